/* BPF_MAP_TYPE_QUEUE and BPF_MAP_TYPE_STACK, differentially: creation rules; seeded random
 * sequences of bpf() commands (push with every flag, peek, pop, the commands these maps do not
 * have, keys where none is taken) whose results and values must be the kernel's; programs
 * pushing, popping and peeking through BPF_PROG_TEST_RUN; and the verifier's pairing of these
 * maps with their helpers.  Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static const uint32_t types[2] = { BPF_MAP_TYPE_QUEUE, BPF_MAP_TYPE_STACK };

TEST(diff_queue_stack_create)
{
	static const struct map_shape shapes[] = {
		{ 0, 4, 8, 0 },
		{ 0, 12, 1, 0 },
		{ 4, 4, 8, 0 },
		{ 0, 0, 8, 0 },
		{ 0, 4, 0, 0 },
		{ 0, 4, 8, BPF_F_NO_PREALLOC },
		{ 0, 4, 8, BPF_F_RDONLY_PROG },
		{ 0, 4, 8, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG },
		{ 0, 4, 8, BPF_F_RDONLY | BPF_F_WRONLY },
		{ 0, 4, 8, BPF_F_NUMA_NODE },
		{ 0, 4, 8, BPF_F_MMAPABLE },
		{ 0, 5u << 20, 1, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(BPF_MAP_TYPE_QUEUE, shapes);
	CREATES_AGREE(BPF_MAP_TYPE_STACK, shapes);
}

enum { OP_PUSH, OP_PEEK, OP_POP, OP_DELETE, OP_NEXT_KEY, OP_BATCH, OP_COUNT };

/* One command on side s: op with flags; key non-NULL if with_key; the value read in out. */
static struct bpf_result command(int s, int fd, int op, uint64_t flags, bool with_key,
				 const uint8_t *in, uint8_t *out)
{
	uint32_t key = 0, next = 0, count = 4;
	uint8_t vals[64];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	if (op == OP_BATCH) {
		a.batch.map_fd = (uint32_t)fd;
		a.batch.keys = PTR_TO_U64(&key);
		a.batch.values = PTR_TO_U64(vals);
		a.batch.count = count;
		return side_call(s, BPF_MAP_LOOKUP_BATCH, &a);
	}
	a.map_fd = (uint32_t)fd;
	a.key = with_key ? PTR_TO_U64(&key) : 0;
	a.flags = flags;
	switch (op) {
	case OP_PUSH:
		a.value = PTR_TO_U64(in);
		return side_call(s, BPF_MAP_UPDATE_ELEM, &a);
	case OP_PEEK:
		a.value = PTR_TO_U64(out);
		return side_call(s, BPF_MAP_LOOKUP_ELEM, &a);
	case OP_POP:
		a.value = PTR_TO_U64(out);
		return side_call(s, BPF_MAP_LOOKUP_AND_DELETE_ELEM, &a);
	case OP_DELETE:
		return side_call(s, BPF_MAP_DELETE_ELEM, &a);
	default:
		a.next_key = PTR_TO_U64(&next);
		return side_call(s, BPF_MAP_GET_NEXT_KEY, &a);
	}
}

/* Random command sequences on a 5-element queue and stack of 12-byte values: every result and
 * every value read equal; the sequence fills, overflows (E2BIG, or the oldest dropped with
 * BPF_EXIST) and drains the map. */
TEST(diff_queue_stack_commands)
{
	uint64_t rng = 0x1234567887654321ull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		int fd[NSIDES], full = 0, empty = 0, got = 0;

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = side_map_create(s, types[t], 0, 12, 5, 0).rc;
			REQUIRE(fd[s] >= 0);
		}
		for (int i = 0; i < 3000; i++) {
			static const uint64_t push_flags[] = { 0, 0, 0, BPF_EXIST, BPF_NOEXIST, 3 };
			uint8_t in[12], out[NSIDES][12];
			struct bpf_result r[NSIDES];
			uint64_t flags = 0;
			bool with_key;
			int op;
			char what[64];

			xorshift64(&rng);
			/* pushes and pops dominate; a phase bias makes the map fill and drain */
			op = (int)(rng % 16);
			op = op < 7 ? (((i / 200) & 1) ? OP_POP : OP_PUSH)
			   : op < 10 ? OP_PUSH : op < 12 ? OP_POP : op < 14 ? OP_PEEK
			   : (int)(rng >> 20) % OP_COUNT;
			if (op == OP_PUSH)
				flags = push_flags[(rng >> 8) % 6];
			else if (op == OP_POP && (rng >> 8) % 10 == 0)
				flags = BPF_F_LOCK;
			with_key = (rng >> 30) % 12 == 0;
			for (int b = 0; b < 12; b++)
				in[b] = (uint8_t)(rng >> (b * 5));
			memset(out, 0xee, sizeof(out));
			for (int s = 0; s < NSIDES; s++)
				r[s] = command(s, fd[s], op, flags, with_key, in, out[s]);
			snprintf(what, sizeof(what), "type %u step %d op %d flags %#llx key %d",
				 types[t], i, op, (unsigned long long)flags, with_key);
			if (!AGREE(what, r))
				break;
			if (memcmp(out[K], out[U], 12)) {
				test_fail(__FILE__, __LINE__, "%s: values differ", what);
				break;
			}
			full += r[K].err == E2BIG;
			empty += r[K].err == ENOENT;
			got += r[K].rc == 0 && (op == OP_POP || op == OP_PEEK);
		}
		CHECK(full > 0);
		CHECK(empty > 0);
		CHECK(got > 100);
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
}

/* A socket filter on map qs: byte 0 % 4 after the Ethernet header picks push (flags 0), push
 * (BPF_EXIST), pop or peek of a u32 (the pushed one is bytes 4..7 after it); r0 = (result & 0xffff) << 16 | the low
 * 16 bits of the value popped or peeked (the buffer starts as 0x2aaaaaaa). */
static int load_user(int s, int qs)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_ABS(BPF_B, 0),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 3),
		BPF_LD_ABS(BPF_W, 4),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_0, -4),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0x2aaaaaaa),
		BPF_LD_MAP_FD(BPF_REG_1, qs),
		BPF_JMP_IMM(BPF_JGT, BPF_REG_7, 1, 7),
		/* push: flags = r7 ? BPF_EXIST : 0 */
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_7),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_3, 1),
		BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
		BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_JMP_A(7),
		/* pop or peek into fp-8 */
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 3, 2),
		BPF_EMIT_CALL(BPF_FUNC_map_pop_elem),
		BPF_JMP_A(1),
		BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
		BPF_LDX_MEM(BPF_H, BPF_REG_1, BPF_REG_10, -8),
		/* r0 = (r0 & 0xffff) << 16 | r1 */
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 16),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_SOCKET_FILTER, insns,
			      sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_queue_stack_programs)
{
	uint64_t rng = 0xfeedfacecafebeefull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		int fd[NSIDES], prog[NSIDES], ok = 0, failed = 0;

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = side_map_create(s, types[t], 0, 4, 6, 0).rc;
			REQUIRE(fd[s] >= 0);
			prog[s] = load_user(s, fd[s]);
			REQUIRE(prog[s] >= 0);
		}
		for (int i = 0; i < 1000; i++) {
			uint8_t pkt[32];
			uint32_t ret;
			char what[48];

			xorshift64(&rng);
			for (int b = 0; b < 32; b++)
				pkt[b] = (uint8_t)(rng >> (b % 16 * 4));
			/* phases of mostly pushes and mostly pops (LD_ABS counts from the network
			 * header: byte 14) */
			if ((rng >> 60) < 11)
				pkt[14] = (uint8_t)(((i / 50) & 1) ? 2 : (rng >> 56) & 1);
			snprintf(what, sizeof(what), "type %u run %d", types[t], i);
			if (!RUNS_AGREE(what, prog, pkt, sizeof(pkt), &ret))
				break;
			ok += (ret >> 16) == 0;
			failed += (ret >> 16) != 0;
		}
		CHECK(ok > 100 && failed > 10);
		/* what is left: the same elements in the same order */
		for (int n = 0; n < 8; n++) {
			uint8_t out[NSIDES][4];
			struct bpf_result r[NSIDES];

			for (int s = 0; s < NSIDES; s++)
				r[s] = command(s, fd[s], OP_POP, 0, false, NULL, out[s]);
			if (!AGREE("drain", r) || (r[K].rc == 0 && memcmp(out[K], out[U], 4)))
				test_fail(__FILE__, __LINE__, "type %u: drain %d differs", types[t], n);
		}
		for (int s = 0; s < NSIDES; s++) {
			close(prog[s]);
			close(fd[s]);
		}
	}
}
