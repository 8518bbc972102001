/* test_jit_diff.c — random differential test: the JIT (plain and blinded) against the
 * interpreter on thousands of generated well-formed programs.
 *
 * Generator.  Forms are drawn from INSN_LIST (src/insn.h) by kind: ALU/NEG/MOVSX/END on r0..r9
 * with operands biased to edge values (0, -1, INT_MIN, widths, powers of two); conditional and
 * unconditional jumps (JMP, JMP32, gotol) forward only, so every program terminates; loads,
 * stores, sign-extending loads and atomics on the stack at in-bounds offsets (atomics naturally
 * aligned); helper calls (r1..r5 reloaded afterwards, as the verifier would demand) and
 * bpf-to-bpf calls to a generated function that initialises and uses its own stack.
 *
 * Layout of a program: save r1 (the output buffer) at [r10-8]; fill the stack below -88 with
 * random words; set r0..r9; the random body; then a tail that stores r0..r9 at [r10-16..-88]
 * and copies the whole 512-byte frame to the output buffer; r0 is returned.  Both engines must
 * give the same status, r0 and buffer.  Run K programs with seeds S, S+1, ...; a failure prints
 * the seed, which reproduces alone with USERBPF_JIT_DIFF_SEED=<seed> USERBPF_JIT_DIFF_N=1.
 * K is 3000 (300 under valgrind), or $USERBPF_JIT_DIFF_N.
 */
#include <stdlib.h>

#include "test.h"
#include "insn.h"
#include "exec/interp.h"
#include "exec/jit.h"

#ifdef __x86_64__

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#define DIFF_DEFAULT_N 3000
#define DIFF_VALGRIND_N 300 /* valgrind translates each new program: ~3 ms apiece */
#define DIFF_DEFAULT_SEED 0x6a17d1ffULL
#define MAX_SLOTS 1024
#define OUT_BYTES INTERP_STACK_SIZE
#define RANDOM_AREA_TOP (-88) /* random accesses stay in [-512, -88) */
#define SUB_STACK 64	      /* the called function uses [-64, 0) of its frame */

static uint64_t diff_helper(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	return (r1 ^ (r2 << 7)) + r3 * 31 - (r4 >> 3) + (r5 | 1);
}

static const interp_helper_fn diff_helpers[2] = {[1] = diff_helper};
static const struct interp_env diff_env = {.helpers = diff_helpers, .nr_helpers = 2};

struct gen {
	uint64_t s;
	struct bpf_insn p[MAX_SLOTS];
	int n;
	/* Pending forward jumps: slot of the jump, and the instruction index it targets. */
	int jump_slot[MAX_SLOTS], jump_to_insn[MAX_SLOTS], njumps;
	int insn_slot[MAX_SLOTS]; /* slot of the k-th instruction */
	int ninsns;
};

static uint64_t rnd(struct gen *g)
{
	g->s ^= g->s << 13; /* xorshift64 */
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

static uint32_t below(struct gen *g, uint32_t n)
{
	return (uint32_t)(rnd(g) % n);
}

static int32_t edge_imm(struct gen *g)
{
	/* clang-format off */
	static const int32_t edges[] = {
		0, 1, -1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256,
		0x7fff, -0x8000, 0xffff, INT32_MAX, INT32_MIN, -2, 1 << 20,
		0x3fffffff, 0x40000000, 0x40000001,
	};
	/* clang-format on */

	switch (below(g, 4)) {
	case 0:
		return edges[below(g, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return (int32_t)below(g, 64) - 32;
	default:
		return (int32_t)rnd(g);
	}
}

static uint64_t edge_u64(struct gen *g)
{
	switch (below(g, 6)) {
	case 0:
		return (uint64_t)(int64_t)edge_imm(g);
	case 1:
		return 0x8000000000000000ULL >> below(g, 2);
	case 2:
		return (uint64_t)edge_imm(g) << 32 | (uint32_t)edge_imm(g);
	default:
		return rnd(g);
	}
}

static void put(struct gen *g, struct bpf_insn in)
{
	if (g->n < MAX_SLOTS) {
		g->insn_slot[g->ninsns++] = g->n;
		g->p[g->n++] = in;
	}
}

static void put_lddw(struct gen *g, int dst, uint64_t v)
{
	if (g->n + 2 > MAX_SLOTS)
		return;
	g->insn_slot[g->ninsns++] = g->n;
	g->p[g->n++] = (struct bpf_insn){.code = BPF_LD | BPF_IMM | BPF_DW,
					 .dst_reg = (uint8_t)dst,
					 .imm = (int32_t)(uint32_t)v};
	g->p[g->n++] = (struct bpf_insn){.imm = (int32_t)(uint32_t)(v >> 32)};
}

/* A random form of one of the kinds in mask (bit per enum insn_kind). */
static const struct insn_desc *pick_form(struct gen *g, unsigned int mask, int *id)
{
	const struct insn_desc *d = insn_descs();

	for (;;) {
		int i = (int)below(g, INSN__COUNT);

		if (mask & (1u << d[i].kind)) {
			*id = i;
			return &d[i];
		}
	}
}

static void set_disc(const struct insn_desc *d, struct bpf_insn *in)
{
	if (d->disc == INSN_D_OFF)
		in->off = (int16_t)d->dval;
	else if (d->disc == INSN_D_IMM)
		in->imm = d->dval;
	else if (d->disc == INSN_D_SRC)
		in->src_reg = (uint8_t)d->dval;
}

#define KIND(k) (1u << INSN_K_##k)

static void gen_alu(struct gen *g)
{
	int id;
	const struct insn_desc *d =
	    pick_form(g, KIND(ALU) | KIND(NEG) | KIND(MOVSX) | KIND(END), &id);
	struct bpf_insn in = {.code = d->code, .dst_reg = (uint8_t)below(g, 10)};

	if (d->fields & INSN_F_SRC)
		in.src_reg = (uint8_t)below(g, 10);
	if (d->fields & INSN_F_IMM)
		in.imm = edge_imm(g);
	set_disc(d, &in);
	put(g, in);
}

/* Stack offset for an access of bits, in [-512, top), aligned if asked. */
static int16_t stack_off(struct gen *g, int bits, int aligned, int bottom, int top)
{
	int size = bits / 8, off = bottom + (int)below(g, (uint32_t)(top - bottom - size + 1));

	if (aligned)
		off &= ~(size - 1);
	return (int16_t)off;
}

static void gen_mem(struct gen *g, int bottom, int top)
{
	int id;
	const struct insn_desc *d =
	    pick_form(g, KIND(LDX) | KIND(LDXSX) | KIND(ST) | KIND(STX) | KIND(ATOMIC), &id);
	struct bpf_insn in = {.code = d->code};
	int bits = d->bits;

	if (d->kind == INSN_K_LDX || d->kind == INSN_K_LDXSX) {
		in.dst_reg = (uint8_t)below(g, 10);
		in.src_reg = 10;
	} else {
		in.dst_reg = 10;
		if (d->fields & INSN_F_SRC)
			in.src_reg = (uint8_t)below(g, 10);
	}
	if (d->fields & INSN_F_IMM)
		in.imm = edge_imm(g);
	set_disc(d, &in);
	in.off = stack_off(g, bits, d->kind == INSN_K_ATOMIC || below(g, 2), bottom, top);
	put(g, in);
}

/* A forward jump from the current instruction to one of the next span instructions (limit:
 * the instruction index that must not be passed). */
static void gen_jump(struct gen *g, int limit)
{
	int id, here = g->ninsns, to;
	const struct insn_desc *d = pick_form(g, KIND(JCOND) | KIND(JA), &id);
	struct bpf_insn in = {.code = d->code};

	to = here + 1 + (int)below(g, 12);
	if (to > limit)
		to = limit;
	if (d->kind == INSN_K_JCOND) {
		in.dst_reg = (uint8_t)below(g, 10);
		if (d->fields & INSN_F_SRC)
			in.src_reg = (uint8_t)below(g, 10);
		if (d->fields & INSN_F_IMM)
			in.imm = below(g, 3) ? edge_imm(g) : 0;
	}
	g->jump_slot[g->njumps] = g->n;
	g->jump_to_insn[g->njumps++] = to;
	put(g, in);
}

static void gen_reload_args(struct gen *g)
{
	for (int r = 1; r <= 5; r++)
		put(g, (struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_K,
					 .dst_reg = (uint8_t)r,
					 .imm = edge_imm(g)});
}

/* nbody random instructions; jumps stay inside the body or land right after it; memory
 * accesses stay in [bottom, top) of the frame; sub_insn >= 0 allows calls to that function. */
static void gen_body(struct gen *g, int nbody, int bottom, int top, int sub_insn)
{
	int end = g->ninsns + nbody; /* instruction index right after the body */

	while (g->ninsns < end && g->n < MAX_SLOTS - 200) {
		uint32_t what = below(g, 100);

		if (what < 45)
			gen_alu(g);
		else if (what < 63)
			gen_jump(g, end);
		else if (what < 88)
			gen_mem(g, bottom, top);
		else if (what < 92)
			put_lddw(g, (int)below(g, 10), edge_u64(g));
		else if (what < 96) {
			put(g, (struct bpf_insn){.code = BPF_JMP | BPF_CALL, .imm = 1});
			gen_reload_args(g);
		} else if (sub_insn >= 0) {
			g->jump_slot[g->njumps] = g->n;
			g->jump_to_insn[g->njumps++] = sub_insn; /* resolved like a jump */
			put(g, (struct bpf_insn){.code = BPF_JMP | BPF_CALL,
						 .src_reg = BPF_PSEUDO_CALL});
		}
	}
	/* The body may end short (slot budget): jumps aimed past it land on what follows. */
	for (int j = 0; j < g->njumps; j++)
		if (g->jump_to_insn[j] > g->ninsns && g->jump_to_insn[j] != sub_insn)
			g->jump_to_insn[j] = g->ninsns;
}

/* Build the program for seed into g; the function, if any, starts at instruction index
 * sub_insn, which is known in advance because its position is fixed by placeholders. */
static void gen_program(struct gen *g, uint64_t seed)
{
	int nbody, has_sub, sub_insn = -1;

	memset(g, 0, sizeof(*g));
	g->s = seed * 0x9e3779b97f4a7c15ULL | 1;
	nbody = 20 + (int)below(g, 120);
	has_sub = below(g, 3) == 0;

	put(g, (struct bpf_insn){
		   .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 10, .src_reg = 1, .off = -8});
	for (int off = -INTERP_STACK_SIZE; off < RANDOM_AREA_TOP; off += 8)
		put(g, (struct bpf_insn){.code = BPF_ST | BPF_MEM | BPF_DW,
					 .dst_reg = 10,
					 .off = (int16_t)off,
					 .imm = (int32_t)rnd(g)});
	for (int r = 0; r <= 9; r++)
		put_lddw(g, r, edge_u64(g));
	if (has_sub)
		sub_insn = INT32_MAX; /* patched once the function's index is known */
	{
		int first_jump = g->njumps;

		gen_body(g, nbody, -INTERP_STACK_SIZE, RANDOM_AREA_TOP, sub_insn);
		/* Tail: save r0..r9, copy the frame out, return r0. */
		for (int r = 0; r <= 9; r++)
			put(g, (struct bpf_insn){.code = BPF_STX | BPF_MEM | BPF_DW,
						 .dst_reg = 10,
						 .src_reg = (uint8_t)r,
						 .off = (int16_t)(-16 - 8 * r)});
		put(g, (struct bpf_insn){.code = BPF_LDX | BPF_MEM | BPF_DW,
					 .dst_reg = 1,
					 .src_reg = 10,
					 .off = -8});
		for (int k = 0; k < OUT_BYTES / 8; k++) {
			put(g, (struct bpf_insn){.code = BPF_LDX | BPF_MEM | BPF_DW,
						 .dst_reg = 2,
						 .src_reg = 10,
						 .off = (int16_t)(-INTERP_STACK_SIZE + 8 * k)});
			put(g, (struct bpf_insn){.code = BPF_STX | BPF_MEM | BPF_DW,
						 .dst_reg = 1,
						 .src_reg = 2,
						 .off = (int16_t)(8 * k)});
		}
		put(g, (struct bpf_insn){.code = BPF_LDX | BPF_MEM | BPF_DW,
					 .dst_reg = 0,
					 .src_reg = 10,
					 .off = -16});
		put(g, (struct bpf_insn){.code = BPF_JMP | BPF_EXIT});
		if (has_sub) {
			sub_insn = g->ninsns;
			for (int j = first_jump; j < g->njumps; j++)
				if (g->jump_to_insn[j] == INT32_MAX)
					g->jump_to_insn[j] = sub_insn;
			/* The function: initialise its stack, random body, exit. */
			for (int off = -SUB_STACK; off < 0; off += 8)
				put(g, (struct bpf_insn){.code = BPF_ST | BPF_MEM | BPF_DW,
							 .dst_reg = 10,
							 .off = (int16_t)off,
							 .imm = (int32_t)rnd(g)});
			gen_body(g, 10 + (int)below(g, 40), -SUB_STACK, 0, -1);
			put(g, (struct bpf_insn){.code = BPF_JMP | BPF_EXIT});
		}
	}
	/* Resolve jumps and calls: instruction index -> slot offset. */
	for (int j = 0; j < g->njumps; j++) {
		struct bpf_insn *in = &g->p[g->jump_slot[j]];
		int t = g->jump_to_insn[j], rel;

		if (t >= g->ninsns)
			t = g->ninsns - 1;
		rel = g->insn_slot[t] - g->jump_slot[j] - 1;
		if (in->code == (BPF_JMP | BPF_CALL) || in->code == (BPF_JMP32 | BPF_JA))
			in->imm = rel;
		else
			in->off = (int16_t)rel;
	}
}

static void dump_program(const struct gen *g)
{
	for (int i = 0; i < g->n; i++) {
		const struct bpf_insn *in = &g->p[i];

		fprintf(stderr, "  %4d: %02x %x %x %6d %d\n", i, in->code, in->dst_reg, in->src_reg,
			in->off, in->imm);
	}
}

/* Runs one generated program on the interpreter and the JIT (blind: 0, 1); 0 when equal. */
static int diff_one(uint64_t seed, int verbose)
{
	static struct gen g;
	static uint8_t out[OUT_BYTES];
	uint8_t want[OUT_BYTES];
	struct interp_prog *ip;
	uint64_t args[5] = {(uint64_t)(uintptr_t)out, 0, 0, 0, 0}, ir0, jr0;
	int ie, bad = 0;

	gen_program(&g, seed);
	ie = interp_prepare(g.p, (uint32_t)g.n, &diff_env, &ip);
	if (ie) {
		test_fail(__FILE__, __LINE__, "seed %" PRIu64 ": generator made a bad program (%d)",
			  seed, ie);
		if (verbose)
			dump_program(&g);
		return 1;
	}
	memset(out, 0, sizeof(out));
	ie = interp_exec(ip, args, &ir0);
	memcpy(want, out, sizeof(out));
	interp_free(ip);
	for (int blind = 0; blind <= 1 && !bad; blind++) {
		struct jit_opts o = {.sz = sizeof(o), .blind = blind, .blind_seed = seed + 1};
		struct jit_prog *jp;
		int je = jit_compile(g.p, (uint32_t)g.n, &diff_env, &o, &jp);

		if (je) {
			test_fail(__FILE__, __LINE__, "seed %" PRIu64 ": jit_compile %d", seed, je);
			bad = 1;
			break;
		}
		memset(out, 0, sizeof(out));
		je = jit_exec(jp, args, &jr0);
		jit_free(jp);
		if (je != ie || jr0 != ir0 || memcmp(out, want, sizeof(out))) {
			int at = -1;

			for (int k = 0; k < OUT_BYTES && at < 0; k++)
				if (out[k] != want[k])
					at = k;
			test_fail(__FILE__, __LINE__,
				  "seed %" PRIu64 "%s: interp %d r0 0x%" PRIx64
				  ", jit %d r0 0x%" PRIx64
				  ", first stack difference at byte %d (reproduce: "
				  "USERBPF_JIT_DIFF_SEED=%" PRIu64 " USERBPF_JIT_DIFF_N=1)",
				  seed, blind ? " (blinded)" : "", ie, ir0, je, jr0, at, seed);
			bad = 1;
		}
	}
	if (bad && verbose)
		dump_program(&g);
	return bad;
}

TEST(jit_differential_random)
{
	const char *ns = getenv("USERBPF_JIT_DIFF_N"), *ss = getenv("USERBPF_JIT_DIFF_SEED");
	long n = ns ? strtol(ns, NULL, 0) : RUNNING_ON_VALGRIND ? DIFF_VALGRIND_N : DIFF_DEFAULT_N;
	uint64_t seed = ss ? strtoull(ss, NULL, 0) : DIFF_DEFAULT_SEED;
	int failures = 0;

	for (long i = 0; i < n && failures < 5; i++)
		failures += diff_one(seed + (uint64_t)i, n == 1 || failures == 0);
	printf("jit differential: %ld programs, seeds %" PRIu64 "..%" PRIu64 ", %d failed\n", n,
	       seed, seed + (uint64_t)n - 1, failures);
}

#endif
