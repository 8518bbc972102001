/* BPF_MAP_TYPE_RINGBUF, differentially: creation rules, the element commands a ring does not
 * have, its mmap rules (the consumer page writable, the rest read-only, the data twice; and a
 * BPF_MAP_TYPE_USER_RINGBUF's, the other way round), and
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
	return side_map_create(s, BPF_MAP_TYPE_RINGBUF, ks, vs, max, flags);
}

/* Creation, element commands and mmap rules of a ring buffer (type RINGBUF) or a user ring
 * buffer (USER_RINGBUF, whose producer page and data user space maps writable instead). */
static void create_and_commands(uint32_t type)
{
	static const struct {
		uint32_t ks, vs, max, flags;
	} cases[] = {
		{ 0, 0, 4096, 0 },  { 0, 0, 8192, 0 },	{ 0, 0, 4096 * 3, 0 }, { 0, 0, 2048, 0 },
		{ 4, 0, 4096, 0 },  { 0, 8, 4096, 0 },	{ 0, 0, 0, 0 },	       { 0, 0, 4096, 1 },
		{ 0, 0, 4096, BPF_F_NUMA_NODE },	{ 0, 0, 1u << 31, BPF_F_RDONLY },
	};
	int fd[NSIDES];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		char what[80];

		snprintf(what, sizeof(what), "create key %u value %u max %u flags %#x", cases[i].ks,
			 cases[i].vs, cases[i].max, cases[i].flags);
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_map_create(s, type, cases[i].ks, cases[i].vs, cases[i].max,
					      cases[i].flags);
		AGREE(what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	for (int s = 0; s < NSIDES; s++)
		fd[s] = side_map_create(s, type, 0, 0, 4096, 0).rc;
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

TEST(diff_ringbuf_create_and_commands)
{
	SKIP_WITHOUT_KERNEL_BPF();
	create_and_commands(BPF_MAP_TYPE_RINGBUF);
}

TEST(diff_user_ringbuf_create_and_commands)
{
	SKIP_WITHOUT_KERNEL_BPF();
	create_and_commands(BPF_MAP_TYPE_USER_RINGBUF);
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

/* A ring of one page per side, a program writing to it, and a consumer's mappings. */
struct rb_pair {
	size_t page;
	int fd[NSIDES], prog[NSIDES];
	uint64_t *cons[NSIDES];
	unsigned char *prod[NSIDES];	/* producer page, then the data twice */
};

static void rb_open(struct rb_pair *p, int (*load)(int s, int rb))
{
	p->page = (size_t)sysconf(_SC_PAGESIZE);
	for (int s = 0; s < NSIDES; s++) {
		p->fd[s] = create(s, 0, 0, (uint32_t)p->page, 0).rc;
		p->prog[s] = p->fd[s] >= 0 ? load(s, p->fd[s]) : -1;
		p->cons[s] = mmap(NULL, p->page, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd[s], 0);
		p->prod[s] = mmap(NULL, 3 * p->page, PROT_READ, MAP_SHARED, p->fd[s],
				  (off_t)p->page);
	}
}

static bool rb_ok(const struct rb_pair *p)
{
	for (int s = 0; s < NSIDES; s++)
		if (p->prog[s] < 0 || p->cons[s] == MAP_FAILED || p->prod[s] == MAP_FAILED)
			return false;
	return true;
}

static void rb_close(struct rb_pair *p)
{
	for (int s = 0; s < NSIDES; s++) {
		if (p->cons[s] != MAP_FAILED)
			munmap(p->cons[s], p->page);
		if (p->prod[s] != MAP_FAILED)
			munmap(p->prod[s], 3 * p->page);
		if (p->prog[s] >= 0)
			close(p->prog[s]);
		if (p->fd[s] >= 0)
			close(p->fd[s]);
	}
}

/* A 64-byte packet from the xorshift state */
static void next_pkt(uint64_t *rng, unsigned char *pkt, size_t len)
{
	xorshift64(rng);
	for (size_t b = 0; b < len; b++)
		pkt[b] = (unsigned char)(*rng >> (b % 8 * 8)) ^ (unsigned char)b;
}

/* Run i: the packet on both sides, which must agree in result, retval (*ret, the kernel's) and
 * every byte a consumer can read; false after reporting a difference. */
static bool rb_run(struct rb_pair *p, int i, const unsigned char *pkt, size_t len, uint32_t *ret)
{
	char what[32];

	snprintf(what, sizeof(what), "run %d", i);
	if (!RUNS_AGREE(what, p->prog, pkt, (uint32_t)len, ret))
		return false;
	if (memcmp(p->prod[K], p->prod[U], 3 * p->page)) {
		test_fail(__FILE__, __LINE__, "run %d: the producer page or data differ", i);
		return false;
	}
	return true;
}

/* The consumer reads everything (libbpf: consumer_pos = producer_pos). */
static void rb_consume_all(struct rb_pair *p)
{
	for (int s = 0; s < NSIDES; s++)
		__atomic_store_n(p->cons[s], *(uint64_t *)p->prod[s], __ATOMIC_RELEASE);
}

TEST(diff_ringbuf_records)
{
	uint64_t rng = 0x2545f4914f6cdd1dull;
	int full = 0, bad_flags = 0;
	struct rb_pair p;

	SKIP_WITHOUT_KERNEL_BPF();
	rb_open(&p, load_writer);
	if (!rb_ok(&p)) {
		rb_close(&p);
		REQUIRE(!"the rings and writers load");
	}
	for (int i = 0; i < 1500; i++) {
		unsigned char pkt[64];
		uint32_t ret;

		next_pkt(&rng, pkt, sizeof(pkt));
		pkt[0] = (unsigned char)(rng % 61);			 /* size 0..60 */
		pkt[1] = (rng >> 40) % 13 == 0 ? 4 : (rng >> 40) % 3;	 /* flags; 4 is bad */
		if (!rb_run(&p, i, pkt, sizeof(pkt), &ret))
			break;
		full += (ret >> 16) == (uint16_t)-EAGAIN;
		bad_flags += (ret >> 16) == (uint16_t)-EINVAL;
		/* now and then, so the ring fills, wraps and empties */
		if ((rng >> 50) % 150 == 0)
			rb_consume_all(&p);
	}
	CHECK(full > 0);	/* the ring did fill up */
	CHECK(bad_flags > 0);
	rb_close(&p);
}

/* A tiny assembler with forward labels, for the reserve program's branches. */
struct prog_asm {
	struct bpf_insn in[256];
	int n;
	int label[32];
	struct {
		int at, label;
	} fix[32];
	int nfix;
};

static void emit(struct prog_asm *a, struct bpf_insn insn)
{
	a->in[a->n++] = insn;
}

/* r = the map (an LD_IMM64: two instructions) */
static void emit_map(struct prog_asm *a, int reg, int fd)
{
	struct bpf_insn ld[] = { BPF_LD_MAP_FD(reg, fd) };

	emit(a, ld[0]);
	emit(a, ld[1]);
}

/* a jump (its off filled in by resolve()) to label l */
static void emit_jmp(struct prog_asm *a, struct bpf_insn insn, int l)
{
	a->fix[a->nfix].at = a->n;
	a->fix[a->nfix++].label = l;
	emit(a, insn);
}

static void resolve(struct prog_asm *a)
{
	for (int i = 0; i < a->nfix; i++)
		a->in[a->fix[i].at].off = (int16_t)(a->label[a->fix[i].label] - a->fix[i].at - 1);
}

/* Fills size bytes at r0 with the data word r6 (r6 += 1 per 8 bytes), ending with narrower
 * stores. */
static void emit_fill(struct prog_asm *a, int reg, int size)
{
	int off = 0;

	for (; off + 8 <= size; off += 8) {
		emit(a, BPF_STX_MEM(BPF_DW, reg, BPF_REG_6, (int16_t)off));
		emit(a, BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1));
	}
	if (off + 4 <= size) {
		emit(a, BPF_STX_MEM(BPF_W, reg, BPF_REG_6, (int16_t)off));
		off += 4;
	}
	for (; off < size; off++)
		emit(a, BPF_STX_MEM(BPF_B, reg, BPF_REG_6, (int16_t)off));
}

enum { L_QUERY, L_SIZE0 /* L_SIZE0 + k: the block for selector k; then one per commit */ };

/* An XDP program on ring rb: packet byte 0 & 3 picks the record size (8, 13, 40 or 0 bytes),
 * byte 1 % 4 the mode: 0 reserve, fill and submit; 1 the same, then discard; 2 reserve with
 * flags 1 (refused); 3 two records, the second submitted first.  The record is filled from the
 * packet's first 8 bytes.  r0 = records committed << 16 | available bytes (bpf_ringbuf_query). */
static int load_reserver(int s, int rb)
{
	static const int sizes[4] = { 8, 13, 40, 0 };
	struct prog_asm a = { .n = 0 };
	int next_label = L_SIZE0 + 4;

	emit(&a, BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)));
	emit(&a, BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)));
	emit(&a, BPF_MOV64_REG(BPF_REG_4, BPF_REG_2));
	emit(&a, BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8));
	emit(&a, BPF_MOV64_IMM(BPF_REG_9, 0));
	emit_jmp(&a, BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0), L_QUERY);
	emit(&a, BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_2, 0));
	emit(&a, BPF_LDX_MEM(BPF_B, BPF_REG_7, BPF_REG_2, 1));
	emit(&a, BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 3));
	emit(&a, BPF_LDX_MEM(BPF_B, BPF_REG_8, BPF_REG_2, 0));
	emit(&a, BPF_ALU64_IMM(BPF_AND, BPF_REG_8, 3));
	for (int k = 0; k < 4; k++) {
		int sub = next_label++, dis = next_label++, done = next_label++, one = next_label++;

		a.label[L_SIZE0 + k] = a.n;
		if (k < 3)
			emit_jmp(&a, BPF_JMP_IMM(BPF_JNE, BPF_REG_8, k, 0), L_SIZE0 + k + 1);
		emit_map(&a, BPF_REG_1, rb);
		emit(&a, BPF_MOV64_IMM(BPF_REG_2, sizes[k]));
		emit(&a, BPF_MOV64_IMM(BPF_REG_3, 0));
		emit_jmp(&a, BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 2, 0), sub);
		emit(&a, BPF_MOV64_IMM(BPF_REG_3, 1));
		a.label[sub] = a.n;
		emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_reserve));
		emit_jmp(&a, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), L_QUERY);
		emit(&a, BPF_MOV64_REG(BPF_REG_8, BPF_REG_0));
		emit_fill(&a, BPF_REG_8, sizes[k]);
		emit_jmp(&a, BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 3, 0), one);
		/* a second record, committed while the first is still busy */
		emit_map(&a, BPF_REG_1, rb);
		emit(&a, BPF_MOV64_IMM(BPF_REG_2, 8));
		emit(&a, BPF_MOV64_IMM(BPF_REG_3, 0));
		emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_reserve));
		emit_jmp(&a, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0), one);
		emit(&a, BPF_ST_MEM(BPF_DW, BPF_REG_0, 0, 0x55));
		emit(&a, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0));
		emit(&a, BPF_MOV64_IMM(BPF_REG_2, 0));
		emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_submit));
		emit(&a, BPF_ALU64_IMM(BPF_ADD, BPF_REG_9, 1));
		a.label[one] = a.n;
		emit(&a, BPF_MOV64_REG(BPF_REG_1, BPF_REG_8));
		emit(&a, BPF_MOV64_IMM(BPF_REG_2, 0));
		emit_jmp(&a, BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 1, 0), dis);
		emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_submit));
		emit_jmp(&a, BPF_JMP_A(0), done);
		a.label[dis] = a.n;
		emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_discard));
		a.label[done] = a.n;
		emit(&a, BPF_ALU64_IMM(BPF_ADD, BPF_REG_9, 1));
		emit_jmp(&a, BPF_JMP_A(0), L_QUERY);
	}
	a.label[L_QUERY] = a.n;
	emit(&a, BPF_ALU64_IMM(BPF_LSH, BPF_REG_9, 16));
	emit_map(&a, BPF_REG_1, rb);
	emit(&a, BPF_MOV64_IMM(BPF_REG_2, BPF_RB_AVAIL_DATA));
	emit(&a, BPF_EMIT_CALL(BPF_FUNC_ringbuf_query));
	emit(&a, BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_9));
	emit(&a, BPF_EXIT_INSN());
	resolve(&a);
	return side_prog_load(s, BPF_PROG_TYPE_XDP, a.in, (uint32_t)a.n);
}

/* bpf_ringbuf_reserve / submit / discard: the same bytes as the kernel's after every run,
 * through discarded records, a record committed before an older busy one, refused flags, a
 * full ring and wrap-around. */
TEST(diff_ringbuf_reserve)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	int committed = 0, refused = 0;
	struct rb_pair p;

	SKIP_WITHOUT_KERNEL_BPF();
	rb_open(&p, load_reserver);
	if (!rb_ok(&p)) {
		rb_close(&p);
		REQUIRE(!"the rings and reservers load");
	}
	for (int i = 0; i < 1500; i++) {
		unsigned char pkt[64];
		uint32_t ret;

		next_pkt(&rng, pkt, sizeof(pkt));
		if (!rb_run(&p, i, pkt, sizeof(pkt), &ret))
			break;
		committed += ret >> 16;
		refused += (ret >> 16) == 0;
		if ((rng >> 50) % 100 == 0)
			rb_consume_all(&p);
	}
	CHECK(committed > 1000);
	CHECK(refused > 0);	/* bad flags and a full ring */
	rb_close(&p);
}

TEST(diff_ringbuf_verifier)
{
	struct bpf_insn prog[3][NSIDES][9];
	int rb[NSIDES], h[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		rb[s] = create(s, 0, 0, 4096, 0).rc;
		h[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		REQUIRE(rb[s] >= 0 && h[s] >= 0);
	}
	/* output to a hash map; a lookup in a ring; a good output */
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn out_hash[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_1, h[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_MOV64_IMM(BPF_REG_3, 8), BPF_MOV64_IMM(BPF_REG_4, 0),
			BPF_EMIT_CALL(BPF_FUNC_ringbuf_output), BPF_EXIT_INSN(),
		};
		struct bpf_insn lookup_rb[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_1, rb[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		memcpy(prog[0][s], out_hash, sizeof(out_hash));
		memcpy(prog[1][s], lookup_rb, sizeof(lookup_rb));
		memcpy(prog[2][s], out_hash, sizeof(out_hash));
		prog[2][s][1].imm = rb[s];
	}
	VERDICTS_AGREE("ringbuf_output on a hash map", BPF_PROG_TYPE_XDP, prog[0][K], prog[0][U], 9);
	VERDICTS_AGREE("lookup in a ring buffer", BPF_PROG_TYPE_XDP, prog[1][K], prog[1][U], 8);
	VERDICTS_AGREE("ringbuf_output", BPF_PROG_TYPE_XDP, prog[2][K], prog[2][U], 9);
	for (int s = 0; s < NSIDES; s++) {
		close(rb[s]);
		close(h[s]);
	}
}
