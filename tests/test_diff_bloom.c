/* BPF_MAP_TYPE_BLOOM_FILTER, differentially: creation rules (sizes, flags, map_extra); with
 * BPF_F_ZERO_SEED the same bits as the kernel's, so every membership answer agrees, false
 * positives included, for several hash counts and value sizes; the other commands' answers; an
 * XDP program's bpf_map_push_elem / bpf_map_peek_elem through TEST_RUN; the verifier's rules.
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static struct bpf_result bloom_create(int s, uint32_t ks, uint32_t vs, uint32_t max,
				      uint32_t flags, uint64_t extra)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_BLOOM_FILTER;
	a.key_size = ks;
	a.value_size = vs;
	a.max_entries = max;
	a.map_flags = flags;
	a.map_extra = extra;
	return side_call(s, BPF_MAP_CREATE, &a);
}

TEST(diff_bloom_create)
{
	static const struct {
		uint32_t ks, vs, max, flags;
		uint64_t extra;
	} shapes[] = {
		{ 0, 4, 100, 0, 0 },	       { 0, 4, 100, BPF_F_ZERO_SEED, 3 },
		{ 4, 4, 100, 0, 0 },	       { 0, 0, 100, 0, 0 },
		{ 0, 4, 0, 0, 0 },	       { 0, 4, 100, 0, 16 },
		{ 0, 4, 100, 0, 15 },	       { 0, 4, 100, 0, 1ull << 32 },
		{ 0, 4, 100, BPF_F_NO_PREALLOC, 0 }, { 0, 4, 100, BPF_F_RDONLY, 0 },
		{ 0, 4, 100, BPF_F_RDONLY_PROG, 0 }, { 0, 4, 100, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, 0 },
		{ 0, 4, 100, BPF_F_MMAPABLE, 0 }, { 0, (4u << 20) + 1, 100, 0, 0 },
		{ 0, 4, 100, BPF_F_NUMA_NODE, 0 }, { 0, 13, 1, 0, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct bpf_result r[NSIDES];
		char what[48];

		for (int s = 0; s < NSIDES; s++)
			r[s] = bloom_create(s, shapes[i].ks, shapes[i].vs, shapes[i].max,
					    shapes[i].flags, shapes[i].extra);
		snprintf(what, sizeof(what), "bloom shape %zu", i);
		AGREE(what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

/* Pushes n values, then asks about 4n (the pushed and others): every answer agrees. */
TEST(diff_bloom_membership)
{
	static const struct {
		uint32_t vs, max;
		uint64_t extra;
	} configs[] = { { 4, 64, 0 }, { 8, 10, 1 }, { 13, 20, 3 }, { 16, 1000, 7 }, { 3, 5, 15 } };
	uint64_t rng = 0xb10037ull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
		uint32_t vs = configs[c].vs, n = configs[c].max, hits = 0, misses = 0;
		int fd[NSIDES];
		uint8_t v[16];

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = bloom_create(s, 0, vs, n, BPF_F_ZERO_SEED, configs[c].extra).rc;
			REQUIRE(fd[s] >= 0);
		}
		for (uint32_t i = 0; i < 5 * n; i++) {
			struct bpf_result r[NSIDES];
			bool push = i < n;
			char what[64];

			for (uint32_t b = 0; b < vs; b++)
				v[b] = (uint8_t)(xorshift64(&rng) >> 32);
			if (!push && i % 4 == 0) /* an earlier value */
				memset(v, (int)(i % 7), vs);
			for (int s = 0; s < NSIDES; s++)
				r[s] = side_elem(s, push ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM,
						 fd[s], NULL, v, 0);
			snprintf(what, sizeof(what), "config %zu, %s %u", c, push ? "push" : "peek",
				 i);
			if (!AGREE(what, r))
				break;
			if (push && i % 7 < 3) { /* and some of them again */
				memset(v, (int)(i % 7), vs);
				for (int s = 0; s < NSIDES; s++)
					r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], NULL, v, 0);
				AGREE(what, r);
			}
			hits += !push && !r[K].rc;
			misses += !push && r[K].rc;
		}
		CHECK(misses > 0 && hits > 0);
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
}

/* The commands a bloom filter refuses, and its update flags. */
TEST(diff_bloom_commands)
{
	uint32_t v = 7, key = 0, next;
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = bloom_create(s, 0, 4, 16, BPF_F_ZERO_SEED, 0).rc;
		REQUIRE(fd[s] >= 0);
	}
	for (int t = 0; t < 11; t++) {
		struct bpf_result r[NSIDES];
		char what[32];

		for (int s = 0; s < NSIDES; s++) {
			switch (t) {
			case 0: case 1: case 2: case 3:
				r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], NULL, &v, (uint64_t)t);
				break;
			case 4:
				r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &key, &v, 0);
				break;
			case 5:
				r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &key, &v, 0);
				break;
			case 6:
				r[s] = side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], NULL, NULL, 0);
				break;
			case 7:
				r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], NULL, &next, 0);
				break;
			case 8:
				r[s] = side_elem(s, BPF_MAP_LOOKUP_AND_DELETE_ELEM, fd[s], NULL, &v, 0);
				break;
			case 9:
				r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], NULL, NULL, 0);
				break;
			default:
				r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], NULL, &v, BPF_F_LOCK);
				break;
			}
		}
		snprintf(what, sizeof(what), "bloom command %d", t);
		AGREE(what, r);
	}
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}

/* XDP: v = packet bytes 0..3; r0 = peek(v) (0 or -ENOENT) & 0xff; if byte 4 is odd, push(v)
 * first and add 0x100 * its result. */
static int load_bloom_prog(int s, int map)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 5),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 21),
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_2, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
		BPF_LDX_MEM(BPF_B, BPF_REG_7, BPF_REG_2, 4),
		BPF_MOV64_IMM(BPF_REG_8, 0),
		BPF_JMP_IMM(BPF_JSET, BPF_REG_7, 1, 1),
		BPF_JMP_IMM(BPF_JA, 0, 0, 8),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_push_elem),
		BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_8, 8),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xff),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_8),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_bloom_prog)
{
	uint64_t rng = 0xf117e4ull;
	int fd[NSIDES], prog[NSIDES], present = 0, absent = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = bloom_create(s, 0, 4, 32, BPF_F_ZERO_SEED, 2).rc;
		REQUIRE(fd[s] >= 0);
		prog[s] = load_bloom_prog(s, fd[s]);
		REQUIRE(prog[s] >= 0);
	}
	for (int i = 0; i < 300; i++) {
		uint64_t x = xorshift64(&rng);
		uint8_t pkt[64] = { 0 };
		uint32_t ret;
		char what[32];

		/* values from a small set, so that later runs meet earlier pushes */
		pkt[0] = (uint8_t)(x % 48);
		pkt[4] = (uint8_t)(x >> 8);
		snprintf(what, sizeof(what), "bloom run %d", i);
		if (!RUNS_AGREE(what, prog, pkt, sizeof(pkt), &ret))
			break;
		present += (ret & 0xff) == 0;
		absent += (ret & 0xff) != 0;
	}
	CHECK(present > 30 && absent > 10);
	for (int s = 0; s < NSIDES; s++) {
		close(prog[s]);
		close(fd[s]);
	}
}

/* The verifier: push and peek only; peek's value must be readable memory of value_size. */
TEST(diff_bloom_verifier)
{
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = bloom_create(s, 0, 8, 16, 0, 0).rc;
		REQUIRE(fd[s] >= 0);
	}
	for (int t = 0; t < 5; t++) {
		static const int funcs[] = { BPF_FUNC_map_peek_elem, BPF_FUNC_map_push_elem,
					     BPF_FUNC_map_pop_elem, BPF_FUNC_map_lookup_elem,
					     BPF_FUNC_map_peek_elem };
		struct bpf_insn p[NSIDES][9];
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn insns[] = {
				/* (case 4 leaves the value unwritten) */
				t == 4 ? BPF_MOV64_IMM(BPF_REG_0, 0)
				       : BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 3),
				BPF_LD_MAP_FD(BPF_REG_1, fd[s]),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
				BPF_MOV64_IMM(BPF_REG_3, 0),
				BPF_EMIT_CALL(funcs[t]),
				BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
				BPF_EXIT_INSN(),
			};

			memcpy(p[s], insns, sizeof(insns));
		}
		snprintf(what, sizeof(what), "bloom verifier case %d", t);
		VERDICTS_AGREE(what, BPF_PROG_TYPE_XDP, p[K], p[U], 8);
	}
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}
