/* test_jit_diff.c — random differential test: the JIT (plain and blinded) against the
 * interpreter on thousands of generated well-formed programs.
 *
 * Generator.  Forms are drawn from INSN_LIST (src/insn.h) by kind: ALU/NEG/MOVSX/END on r0..r9
 * with operands biased to edge values (0, -1, INT_MIN, widths, powers of two); conditional and
 * unconditional jumps (JMP, JMP32, gotol) forward only, so every program terminates; loads,
 * stores, sign-extending loads and atomics on the stack at in-bounds offsets (atomics naturally
 * aligned); helper calls (r1..r5 reloaded afterwards, as the verifier would demand) and
 * bpf-to-bpf calls to a generated function that initialises and uses its own stack.  A quarter
 * of the ALU share goes to idioms: the sequences the interpreter fuses into superinstructions
 * (interp_fuse.h) and the JIT pattern-matches, with registers drawn so that they often alias,
 * including bounds-checked reads through stack pointers whose registers are then overwritten or
 * turned back into offsets (so no address reaches the output); other jumps enter those only at
 * their start, and r1..r5 are reloaded after every call, as the verifier demands.
 *
 * Layout of a program: save r1 (the output buffer) at [r10-8]; fill the stack below -88 with
 * random words; set r0..r9; the random body; then a tail that stores r0..r9 at [r10-16..-88]
 * and copies the whole 512-byte frame to the output buffer; r0 is returned.  Both engines must
 * give the same status, r0 and buffer.  Run K programs with seeds S, S+1, ...; a failure prints
 * the seed, which reproduces alone with USERBPF_JIT_DIFF_SEED=<seed> USERBPF_JIT_DIFF_N=1.
 * K is 3000 (300 under valgrind), or $USERBPF_JIT_DIFF_N.
 */
#include <stdbool.h>
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
	/* Bounds-read idioms (instruction indexes [lo, hi)): only their own jump may land inside,
	 * for the rest they are entered at lo (their registers hold stack addresses). */
	int span_lo[MAX_SLOTS], span_hi[MAX_SLOTS], nspans;
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

/* ---- idioms: the instruction sequences the interpreter fuses (interp_fuse.h) and the JIT
 * pattern-matches, with registers drawn from a few so that they often alias ---- */

static struct bpf_insn alu64(uint8_t op, int dst, int src_or_neg1, int32_t imm)
{
	struct bpf_insn in = {.code = (uint8_t)(BPF_ALU64 | op | BPF_K), .dst_reg = (uint8_t)dst,
			      .imm = imm};

	if (src_or_neg1 >= 0) {
		in.code = (uint8_t)(BPF_ALU64 | op | BPF_X);
		in.src_reg = (uint8_t)src_or_neg1;
		in.imm = 0;
	}
	return in;
}

/* A register of r0..r9; half the time one of the n already chosen (aliasing). */
static int idiom_reg(struct gen *g, const int *chosen, int n)
{
	return n && below(g, 2) ? chosen[below(g, (uint32_t)n)] : (int)below(g, 10);
}

/* A conditional jump on x (against imm or z) to `to` (an instruction index), or to the next
 * instruction when `to` is not ahead (an idiom may run past the body's planned end). */
static void put_jcc(struct gen *g, uint8_t cls, uint8_t op, int x, int z, int32_t imm, int to)
{
	if (to <= g->ninsns)
		to = g->ninsns + 1;
	struct bpf_insn in = {.code = (uint8_t)(cls | op | (z >= 0 ? BPF_X : BPF_K)),
			      .dst_reg = (uint8_t)x,
			      .src_reg = (uint8_t)(z >= 0 ? z : 0),
			      .imm = z >= 0 ? 0 : imm};

	g->jump_slot[g->njumps] = g->n;
	g->jump_to_insn[g->njumps++] = to;
	put(g, in);
}

static uint8_t any_jcc(struct gen *g)
{
	static const uint8_t ops[] = {BPF_JEQ, BPF_JGT,	 BPF_JGE, BPF_JSET, BPF_JNE,  BPF_JSGT,
				      BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE};

	return ops[below(g, sizeof(ops))];
}

static uint8_t unsigned_jcc(struct gen *g)
{
	static const uint8_t ops[] = {BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE};

	return ops[below(g, sizeof(ops))];
}

static uint8_t lda_op(struct gen *g)
{
	static const uint8_t ops[] = {BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_XOR};

	return ops[below(g, sizeof(ops))];
}

/* A bounds check and read on the stack: [mov rB, r10; add rB, -S; mov rI, i;] mov rY, r10 +
 * ... (or rB + rI); mov rZ, r10; add rZ, -S2; mov rX, rY; add rX, K; jCC rX, rZ over the next
 * two; ldx rA, [rY + off]; alu64 rC OP= rA; then each pointer-derived register (B, Y, Z, X)
 * is overwritten, or turned into its offset from r10 (then it is live: no fusion), so that no
 * stack address reaches the output. */
static void gen_bounds_read(struct gen *g, int bottom, int top)
{
	static const uint8_t sizes[] = {BPF_B, BPF_H, BPF_W, BPF_DW};
	uint8_t size = sizes[below(g, 4)];
	int bytes = size == BPF_B ? 1 : size == BPF_H ? 2 : size == BPF_W ? 4 : 8;
	int chosen[8], n = 0, x, y, z, a, c, b = -1, ptrs[4], np = 0;
	int16_t off = (int16_t)((int)below(g, 17) - 8);
	int at = bottom + (int)below(g, (uint32_t)(top - bottom - bytes + 1)); /* Y + off */
	bool indexed = below(g, 2);
	int lo = g->ninsns;

	y = chosen[n++] = (int)below(g, 10);
	if (indexed) {
		int i, idx = (int)below(g, 9);

		do
			b = idiom_reg(g, chosen, n);
		while (b == y && below(g, 4));
		chosen[n++] = b;
		do
			i = idiom_reg(g, chosen, n);
		while (i == y || i == b);
		chosen[n++] = i;
		put(g, alu64(BPF_MOV, b, 10, 0));
		put(g, alu64(BPF_ADD, b, -1, at - off - idx));
		put(g, alu64(BPF_MOV, i, -1, idx));
		put(g, alu64(BPF_MOV, y, b, 0));
		put(g, alu64(BPF_ADD, y, i, 0));
		ptrs[np++] = b;
	} else {
		put(g, alu64(BPF_MOV, y, 10, 0));
		put(g, alu64(BPF_ADD, y, -1, at - off));
	}
	ptrs[np++] = y;
	z = idiom_reg(g, chosen, n);
	if (z != y) {
		put(g, alu64(BPF_MOV, z, 10, 0));
		put(g, alu64(BPF_ADD, z, -1, bottom + (int)below(g, (uint32_t)(top - bottom))));
		ptrs[np++] = z;
	}
	chosen[n++] = z;
	do
		x = idiom_reg(g, chosen, n);
	while (x == y);
	chosen[n++] = x;
	ptrs[np++] = x;
	a = idiom_reg(g, chosen, n);
	c = idiom_reg(g, chosen, n);
	put(g, alu64(BPF_MOV, x, y, 0));
	put(g, alu64(BPF_ADD, x, -1, (int32_t)below(g, 24) - 8));
	if (below(g, 4)) /* `jCC rX, rZ`, or mirrored */
		put_jcc(g, BPF_JMP, unsigned_jcc(g), x, z, 0, g->ninsns + 3);
	else
		put_jcc(g, BPF_JMP, unsigned_jcc(g), z, x, 0, g->ninsns + 3);
	put(g, (struct bpf_insn){.code = (uint8_t)(BPF_LDX | BPF_MEM | size),
				 .dst_reg = (uint8_t)a,
				 .src_reg = (uint8_t)y,
				 .off = off});
	put(g, alu64(lda_op(g), c, a, 0));
	for (int k = 0; k < np; k++) /* each once: a second `sub rP, r10` would leak r10 */
		for (int l = k + 1; l < np; l++)
			if (ptrs[l] == ptrs[k])
				ptrs[l--] = ptrs[--np];
	for (int k = 0; k < np; k++)
		if (below(g, 4))
			put(g, alu64(BPF_MOV, ptrs[k], -1, edge_imm(g)));
		else
			put(g, alu64(BPF_SUB, ptrs[k], 10, 0));
	for (int k = 0; k < np; k++) /* (C or A may be one of them, now a pointer again) */
		if (ptrs[k] == a || ptrs[k] == c)
			put(g, alu64(BPF_MOV, ptrs[k], -1, 0));
	g->span_lo[g->nspans] = lo;
	g->span_hi[g->nspans++] = g->ninsns;
}

/* One of the fused idioms on scalars; jumps forward to at most `limit`. */
static void gen_idiom(struct gen *g, int limit, int bottom, int top)
{
	int chosen[4], n = 0, x, y, z, w;
	int to = g->ninsns + 1 + (int)below(g, 10);

	x = chosen[n++] = (int)below(g, 10);
	y = idiom_reg(g, chosen, n);
	chosen[n++] = y;
	z = idiom_reg(g, chosen, n);
	chosen[n++] = z;
	w = idiom_reg(g, chosen, n);
	switch (below(g, 9)) {
	case 0: /* BND: mov rX, rY; add rX, K; jCC rX, rZ; then often rY += K, which the JIT makes
		 * a copy of rX where nothing wrote rX or rY in between (emit_known_sum()) */
	{
		int32_t k = edge_imm(g);

		put(g, alu64(BPF_MOV, x, y, 0));
		put(g, alu64(BPF_ADD, x, -1, k));
		to += 2;
		put_jcc(g, BPF_JMP, unsigned_jcc(g), x, z, 0, to > limit ? limit : to);
		if (below(g, 2))
			return;
		switch (below(g, 4)) {
		case 0:
			put(g, alu64(BPF_ADD, x, -1, 1));
			break;
		case 1:
			put(g, alu64(BPF_XOR, y, z, 0));
			break;
		case 2:
			put(g, alu64(BPF_MUL, z, -1, 3));
			break;
		default:
			break;
		}
		put(g, alu64(BPF_ADD, y, -1, below(g, 4) ? k : (int32_t)((uint32_t)k + 1)));
		return;
	}
	case 1: /* LDA on the stack */
		put(g, (struct bpf_insn){.code = BPF_LDX | BPF_MEM | BPF_H,
					 .dst_reg = (uint8_t)x,
					 .src_reg = 10,
					 .off = stack_off(g, 16, 0, bottom, top)});
		put(g, alu64(lda_op(g), y, x, 0));
		return;
	case 2: /* AJ, AJ2, AJ32: [add rW, K1;] add rX, K; jCC{,32} rX, imm / rZ */
		if (below(g, 2)) {
			put(g, alu64(BPF_ADD, w, -1, (int32_t)below(g, 64) - 32));
			to++;
		}
		put(g, alu64(BPF_ADD, x, -1, edge_imm(g)));
		to++;
		put_jcc(g, below(g, 3) ? BPF_JMP : BPF_JMP32, any_jcc(g), x, below(g, 2) ? z : -1,
			edge_imm(g), to > limit ? limit : to);
		return;
	case 3: /* ZX, MZX, MZXJ, AMZXJ */
		if (below(g, 3) == 0) {
			put(g, alu64(BPF_ADD, y, -1, edge_imm(g)));
			to++;
		}
		if (below(g, 2)) {
			put(g, alu64(BPF_MOV, x, y, 0));
			to++;
		}
		put(g, alu64(BPF_LSH, x, -1, 32));
		put(g, alu64(BPF_RSH, x, -1, 32));
		to += 2;
		if (below(g, 2))
			put_jcc(g, BPF_JMP, any_jcc(g), x, below(g, 2) ? z : -1, edge_imm(g),
				to > limit ? limit : to);
		return;
	case 4: /* MULADD */
		put(g, alu64(BPF_MUL, x, -1, edge_imm(g)));
		put(g, alu64(BPF_ADD, x, y, 0));
		return;
	case 5: /* SHX: mov rT, rX; lsh/rsh rT, K; xor/add rX, rT */
		put(g, alu64(BPF_MOV, y, x, 0));
		put(g, alu64(below(g, 2) ? BPF_LSH : BPF_RSH, y, -1, (int32_t)below(g, 64)));
		put(g, alu64(below(g, 2) ? BPF_XOR : BPF_ADD, x, y, 0));
		return;
	case 6: /* MOVK, MOVX */
	{
		static const uint8_t ops[] = {BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_XOR,
					      BPF_LSH, BPF_RSH, BPF_ARSH, BPF_MUL};
		uint8_t op = ops[below(g, sizeof(ops))];
		bool shift = op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH;

		put(g, alu64(BPF_MOV, x, y, 0));
		put(g, alu64(op, x, below(g, 2) ? z : -1, shift ? (int32_t)below(g, 64)
								: edge_imm(g)));
		return;
	}
	default: /* BNDL, XBNDL */
		gen_bounds_read(g, bottom, top);
		return;
	}
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

		if (what < 45 && below(g, 4) == 0)
			gen_idiom(g, end, bottom, top);
		else if (what < 45)
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
			/* as after a helper: the verifier lets nothing read the callee's
			 * r1..r5, and the interpreter's liveness relies on it */
			gen_reload_args(g);
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

		for (int k = 0; k < g->nspans; k++)
			if (t > g->span_lo[k] && t < g->span_hi[k] &&
			    g->jump_slot[j] < g->insn_slot[g->span_lo[k]])
				t = g->span_lo[k];

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
			if (at >= 0) {
				uint64_t iw, jw;

				memcpy(&iw, want + (at & ~7), 8);
				memcpy(&jw, out + (at & ~7), 8);
				fprintf(stderr, "  word at byte %d: interp 0x%" PRIx64 ", jit 0x%" PRIx64
					"\n", at & ~7, iw, jw);
			}
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
