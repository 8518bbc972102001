/* BPF_MAP_TYPE_RINGBUF, differentially: creation rules, the element commands a ring does not
 * have, its mmap rules (the consumer page writable, the rest read-only, the data twice), and
 * programs writing records with bpf_ringbuf_output() and reading bpf_ringbuf_query(): after each
 * run the positions and every byte a consumer can read (headers with their page offsets, data,
 * padding) are the kernel's, through the records' wrap-around and a full ring, with the consumer
 * advancing as libbpf's does.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static struct bpf_result create(int s, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_RINGBUF;
	a.key_size = ks;
	a.value_size = vs;
	a.max_entries = max;
	a.map_flags = flags;
	return side_call(s, BPF_MAP_CREATE, &a);
}

TEST(diff_ringbuf_create_and_commands)
{
	static const struct {
		uint32_t ks, vs, max, flags;
	} cases[] = {
		{ 0, 0, 4096, 0 },  { 0, 0, 8192, 0 },	{ 0, 0, 4096 * 3, 0 }, { 0, 0, 2048, 0 },
		{ 4, 0, 4096, 0 },  { 0, 8, 4096, 0 },	{ 0, 0, 0, 0 },	       { 0, 0, 4096, 1 },
		{ 0, 0, 4096, BPF_F_NUMA_NODE },	{ 0, 0, 1u << 31, BPF_F_RDONLY },
	};
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		char what[80];

		snprintf(what, sizeof(what), "create key %u value %u max %u flags %#x", cases[i].ks,
			 cases[i].vs, cases[i].max, cases[i].flags);
		for (int s = 0; s < NSIDES; s++)
			r[s] = create(s, cases[i].ks, cases[i].vs, cases[i].max, cases[i].flags);
		AGREE(what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	for (int s = 0; s < NSIDES; s++)
		fd[s] = create(s, 0, 0, 4096, 0).rc;
	REQUIRE(fd[K] >= 0 && fd[U] >= 0);
	{
		static const int cmds[] = { BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM,
					    BPF_MAP_DELETE_ELEM, BPF_MAP_GET_NEXT_KEY,
					    BPF_MAP_LOOKUP_AND_DELETE_ELEM };

		for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
			struct bpf_result r[2];
			uint64_t key = 0, val = 0, next = 0;

			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.map_fd = (uint32_t)fd[s];
				a.key = PTR_TO_U64(&key);
				a.value = PTR_TO_U64(cmds[c] == BPF_MAP_GET_NEXT_KEY ? &next : &val);
				r[s] = side_call(s, cmds[c], &a);
			}
			AGREE("element command", r);
		}
	}
	/* mmap: consumer page writable; producer page and data read-only; within the layout */
	{
		static const struct {
			size_t off, pages;
			int prot;
		} maps[] = {
			{ 0, 1, PROT_READ | PROT_WRITE }, { 0, 2, PROT_READ | PROT_WRITE },
			{ 1, 1, PROT_READ | PROT_WRITE }, { 1, 3, PROT_READ },
			{ 0, 4, PROT_READ },		  { 1, 4, PROT_READ },
			{ 2, 1, PROT_READ },
		};
		size_t page = (size_t)sysconf(_SC_PAGESIZE);

		for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
			int ok[NSIDES], err[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				void *p = mmap(NULL, maps[i].pages * page, maps[i].prot, MAP_SHARED,
					       fd[s], (off_t)(maps[i].off * page));

				ok[s] = p != MAP_FAILED;
				err[s] = ok[s] ? 0 : errno;
				if (ok[s])
					munmap(p, maps[i].pages * page);
			}
			if (ok[K] != ok[U] || err[K] != err[U])
				test_fail(__FILE__, __LINE__,
					  "mmap page %zu x%zu prot %d: kernel %s (%d), userbpf %s (%d)",
					  maps[i].off, maps[i].pages, maps[i].prot,
					  ok[K] ? "ok" : "fails", err[K], ok[U] ? "ok" : "fails",
					  err[U]);
		}
	}
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}

/* An XDP program: packet byte 0 = n (record size), byte 1 = flags; the record is n bytes of
 * the stack, filled from the packet's first 8 bytes (x, x + 1, ..., x + 7 in its 8 words);
 * r0 = (output's result & 0xffff) << 16 | the available bytes after it (bpf_ringbuf_query). */
static int load_writer(int s, int rb)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_2, BPF_REG_8, 33),
		BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_7, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -64),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -56),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -48),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -40),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -32),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -24),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -16),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -8),
		BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_7, 0),
		BPF_LDX_MEM(BPF_B, BPF_REG_4, BPF_REG_7, 1),
		BPF_JMP_IMM(BPF_JGT, BPF_REG_3, 60, 13),
		BPF_LD_MAP_FD(BPF_REG_1, rb),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
		BPF_EMIT_CALL(BPF_FUNC_ringbuf_output),
		BPF_MOV64_REG(BPF_REG_9, BPF_REG_0),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_9, 0xffff),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_9, 16),
		BPF_LD_MAP_FD(BPF_REG_1, rb),
		BPF_MOV64_IMM(BPF_REG_2, BPF_RB_AVAIL_DATA),
		BPF_EMIT_CALL(BPF_FUNC_ringbuf_query),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_9),
		BPF_EXIT_INSN(),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_ringbuf_records)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page;
	int fd[NSIDES], prog[NSIDES];
	uint64_t *cons[NSIDES];
	unsigned char *prod[NSIDES];
	uint64_t rng = 0x2545f4914f6cdd1dull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = create(s, 0, 0, (uint32_t)size, 0).rc;
		REQUIRE(fd[s] >= 0);
		prog[s] = load_writer(s, fd[s]);
		REQUIRE(prog[s] >= 0);
		cons[s] = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd[s], 0);
		prod[s] = mmap(NULL, page + 2 * size, PROT_READ, MAP_SHARED, fd[s], (off_t)page);
		REQUIRE(cons[s] != MAP_FAILED && prod[s] != MAP_FAILED);
	}
	int full = 0, bad_flags = 0;

	for (int i = 0; i < 1500; i++) {
		unsigned char pkt[64];
		struct bpf_result r[2];
		uint32_t ret[NSIDES];

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		for (size_t b = 0; b < sizeof(pkt); b++)
			pkt[b] = (unsigned char)(rng >> (b % 8 * 8)) ^ (unsigned char)b;
		pkt[0] = (unsigned char)(rng % 61);			 /* size 0..60 */
		pkt[1] = (rng >> 40) % 13 == 0 ? 4 : (rng >> 40) % 3;	 /* flags; 4 is bad */
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
		if (!AGREE("test run", r))
			break;
		if (ret[K] != ret[U]) {
			test_fail(__FILE__, __LINE__, "run %d: retval kernel %#x, userbpf %#x", i,
				  ret[K], ret[U]);
			break;
		}
		full += (ret[K] >> 16) == (uint16_t)-EAGAIN;
		bad_flags += (ret[K] >> 16) == (uint16_t)-EINVAL;
		if (memcmp(prod[K], prod[U], page + 2 * size)) {
			test_fail(__FILE__, __LINE__, "run %d: the producer page or data differ", i);
			break;
		}
		/* the consumer reads everything now and then (libbpf: consumer_pos = producer_pos),
		 * so the ring fills, wraps and empties */
		if ((rng >> 50) % 150 == 0)
			for (int s = 0; s < NSIDES; s++)
				__atomic_store_n(cons[s], *(uint64_t *)prod[s], __ATOMIC_RELEASE);
	}
	CHECK(full > 0);	/* the ring did fill up */
	CHECK(bad_flags > 0);
	for (int s = 0; s < NSIDES; s++) {
		munmap(cons[s], page);
		munmap(prod[s], page + 2 * size);
		close(prog[s]);
		close(fd[s]);
	}
}

TEST(diff_ringbuf_verifier)
{
	int rb[NSIDES], h[NSIDES];
	static char log[NSIDES][65536];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		rb[s] = create(s, 0, 0, 4096, 0).rc;
		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_HASH;
		a.key_size = 4;
		a.value_size = 8;
		a.max_entries = 4;
		h[s] = side_call(s, BPF_MAP_CREATE, &a).rc;
	}
	/* output to a hash map; a lookup in a ring; output of a NULL-sized... */
	for (int c = 0; c < 3; c++) {
		struct bpf_result r[2];
		char *last[2];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn out_hash[] = {
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_1, h[s]),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), BPF_MOV64_IMM(BPF_REG_3, 8),
				BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_ringbuf_output),
				BPF_EXIT_INSN(),
			};
			struct bpf_insn lookup_rb[] = {
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_1, rb[s]),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
				BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_EXIT_INSN(),
			};
			struct bpf_insn out_ok[] = {
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_1, rb[s]),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), BPF_MOV64_IMM(BPF_REG_3, 8),
				BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_ringbuf_output),
				BPF_EXIT_INSN(),
			};
			const struct bpf_insn *p = c == 0 ? out_hash : c == 1 ? lookup_rb : out_ok;
			uint32_t n = c == 0 ? 9 : c == 1 ? 8 : 9;
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.prog_type = BPF_PROG_TYPE_XDP;
			a.insns = PTR_TO_U64(p);
			a.insn_cnt = n;
			a.license = PTR_TO_U64("GPL");
			a.log_buf = PTR_TO_U64(log[s]);
			a.log_size = sizeof(log[s]);
			a.log_level = 1;
			log[s][0] = 0;
			r[s] = side_call(s, BPF_PROG_LOAD, &a);
			if (r[s].rc >= 0)
				close(r[s].rc);
			last[s] = strstr(log[s], "\nprocessed");
			if (last[s])
				*last[s] = 0;
			last[s] = strrchr(log[s], '\n');
		}
		if (AGREE("verdict", r) && r[K].rc < 0 &&
		    strcmp(last[K] ? last[K] : log[K], last[U] ? last[U] : log[U]))
			test_fail(__FILE__, __LINE__, "case %d: kernel \"%s\", userbpf \"%s\"", c,
				  last[K] ? last[K] : log[K], last[U] ? last[U] : log[U]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(rb[s]);
		close(h[s]);
	}
}
