/* test_prog_diff_random.c — random XDP programs, run on the kernel and on userbpf: the same
 * retval, data_out and map contents.
 *
 * The generator builds programs that a kernel-grade verifier accepts by construction:
 *  - prologue: r6 = ctx, r7 = data, r8 = data_end; packets shorter than PKT_MIN end at once
 *    (return XDP_PASS), so after the bounds check every access [r7 + off] with off + size <=
 *    PKT_MIN is proven safe; the stack slots fp-64..fp-8 are initialised, then the scalar
 *    registers r0..r5, r9 from the packet or immediates;
 *  - body: blocks of random 64/32-bit ALU (immediate shifts in range, register shift amounts
 *    masked first, divisions by anything), multiply-add and shift-mix sequences, sign-extending
 *    moves, byte swaps, packet loads and
 *    stores (plain and sign-extending), aligned stack loads and stores inside the initialised
 *    slots, forward conditional jumps over whole blocks (no loops, so it terminates), and map
 *    blocks: lookup (NULL-checked, the value read, changed and written back), update, delete on
 *    an array and a hash map; each helper call clobbers r1..r5 as for the verifier;
 *  - epilogue: the scalar registers are stored into the packet (so data_out shows them) and
 *    r0 & 3 is returned (an XDP action).
 * The generator tracks which scalar registers are initialised on every path: at a jump target,
 * the intersection of what the jumping and falling paths initialised.  Programs read only
 * initialised registers, so the verifier has no reason to refuse them; the test requires the
 * kernel to accept every one (it validates the generator while userbpf's verifier is a
 * stand-in).
 *
 * Each program runs on a few random packets (some shorter than PKT_MIN) on both sides, then the
 * maps are compared key by key.  A failure prints the seed and the program number; set
 * USERBPF_DIFF_SEED to replay or explore.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdlib.h>

#include <linux/if_ether.h>

#include "test_prog.h"

#define NPROGS 1000
#define NPKTS 4
#define PKT_MIN 64
#define PKT_MAX 128
#define MAX_INSNS 512
#define MAX_BLOCKS 48
#define STACK_SLOTS 8		/* fp-64 .. fp-8 */
#define KEY_OFF (-72)		/* u32 key for map helpers */
#define VAL_OFF (-80)		/* u64 value for update */
#define ARRAY_SLOT 0x7ffffff1
#define HASH_SLOT 0x7ffffff2
#define ARRAY_ENTRIES 12
#define HASH_ENTRIES 8
#define KEY_MASK 15		/* keys 0..15: some out of the array, more than the hash holds */

/* Scalar registers the generator uses: r0..r5 and r9 (r6 ctx, r7 data, r8 data_end, r10 fp). */
#define SCALARS ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 9))
#define CALLER_SAVED 0x3eu	/* r1..r5 */

struct gen {
	uint64_t rng;
	struct bpf_insn insns[MAX_INSNS];
	int n;
	u_int32_t init;			/* scalar registers initialised on every path here */
	u_int32_t join[MAX_BLOCKS + 1];	/* per block index: AND of masks of jumps landing there */
	int fixup_block[MAX_INSNS];	/* branch insn -> target block (-1: none) */
	int block_start[MAX_BLOCKS + 1];
	int short_fixup;		/* the bounds check's jump, to the short-packet exit */
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static u_int32_t rnd_below(struct gen *g, u_int32_t n)
{
	return (u_int32_t)(rnd(g) % n);
}

static void emit(struct gen *g, struct bpf_insn in)
{
	if (g->n < MAX_INSNS) {
		g->fixup_block[g->n] = -1;
		g->insns[g->n++] = in;
	}
}

/* LD_IMM64: two slots. */
static void emit_ld64(struct gen *g, int dst, int src, uint64_t imm)
{
	struct bpf_insn two[] = { BPF_LD_IMM64_RAW(dst, src, imm) };

	emit(g, two[0]);
	emit(g, two[1]);
}

/* A random register of mask (non-empty). */
static int pick(struct gen *g, u_int32_t mask)
{
	int regs[11], k = 0;

	for (int r = 0; r < 11; r++)
		if (mask & (1u << r))
			regs[k++] = r;
	return regs[rnd_below(g, (u_int32_t)k)];
}

static int32_t rnd_imm(struct gen *g)
{
	switch (rnd_below(g, 4)) {
	case 0:
		return (int32_t)rnd_below(g, 16);
	case 1:
		return -(int32_t)rnd_below(g, 16);
	case 2:
		return (int32_t)(u_int32_t)rnd(g);
	default:
		return (int32_t)(1u << rnd_below(g, 32));
	}
}

static const int size_bytes[] = { [BPF_B] = 1, [BPF_H] = 2, [BPF_W] = 4, [BPF_DW] = 8 };

static int rnd_size(struct gen *g)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };

	return sizes[rnd_below(g, 4)];
}

static void gen_alu(struct gen *g)
{
	static const int ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
				   BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH };
	int op = ops[rnd_below(g, ARRAY_SIZE(ops))];
	bool is64 = rnd_below(g, 3) != 0, use_reg = rnd_below(g, 2);
	int cls = is64 ? BPF_ALU64 : BPF_ALU, dst, src = pick(g, g->init);
	int16_t off = 0;

	dst = op == BPF_MOV ? pick(g, SCALARS) : pick(g, g->init);
	if ((op == BPF_DIV || op == BPF_MOD) && rnd_below(g, 3) == 0)
		off = 1; /* signed */
	if (op == BPF_NEG) {
		emit(g, BPF_RAW_INSN(cls | BPF_NEG | BPF_K, dst, 0, 0, 0));
	} else if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) {
		int width = is64 ? 64 : 32;

		if (use_reg) {
			/* the amount in range first: out-of-range shifts are undefined in the ISA */
			emit(g, BPF_ALU64_IMM(BPF_AND, src, width - 1));
			emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, src, 0, 0));
		} else {
			emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 0, (int32_t)rnd_below(g, width)));
		}
	} else if (use_reg) {
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, src, off, 0));
	} else {
		int32_t imm = rnd_imm(g);

		if ((op == BPF_DIV || op == BPF_MOD) && imm == 0)
			imm = 7; /* division by an immediate 0 is refused */
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, off, imm));
	}
	g->init |= 1u << dst;
}

/* The interpreter's mixing superinstructions (exec/interp_fuse.h): mul64 rX, K; add64 rX, rY,
 * mov64 rT, rX; lsh/rsh64 rT, K; xor/add64 rX, rT and mov64 rT, rX; op64 rT, K / rY, with
 * registers that may coincide (which must not be fused) and with 32-bit or other ops in place
 * of theirs now and then. */
static void gen_mix(struct gen *g)
{
	int x = pick(g, g->init), y = pick(g, g->init);
	int cls = rnd_below(g, 5) ? BPF_ALU64 : BPF_ALU;
	int kind = (int)rnd_below(g, 3);

	if (kind == 2) {
		static const int ops[] = { BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_XOR, BPF_LSH,
					   BPF_RSH, BPF_ARSH, BPF_MUL, BPF_DIV };
		int op = ops[rnd_below(g, ARRAY_SIZE(ops))], t = pick(g, SCALARS);
		bool shift = op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH;

		emit(g, BPF_MOV64_REG(t, x));
		if (rnd_below(g, 2)) {
			emit(g, BPF_RAW_INSN(cls | op | BPF_X, t, rnd_below(g, 5) ? y : t, 0, 0));
		} else {
			int32_t imm = shift ? (int32_t)rnd_below(g, cls == BPF_ALU ? 32 : 64)
					    : rnd_imm(g);

			emit(g, BPF_RAW_INSN(cls | op | BPF_K, t, 0, 0,
					     op == BPF_DIV && imm == 0 ? 3 : imm));
		}
		g->init |= 1u << t;
	} else if (kind == 1) {
		emit(g, BPF_RAW_INSN(cls | BPF_MUL | BPF_K, x, 0, 0, rnd_imm(g)));
		emit(g, BPF_RAW_INSN(BPF_ALU64 | (rnd_below(g, 4) ? BPF_ADD : BPF_SUB) | BPF_X, x, y,
				     0, 0));
	} else {
		static const int shifts[] = { BPF_LSH, BPF_RSH, BPF_ARSH };
		static const int ops[] = { BPF_XOR, BPF_ADD, BPF_OR };
		int t = rnd_below(g, 5) ? pick(g, SCALARS) : x;

		emit(g, BPF_MOV64_REG(t, x));
		emit(g, BPF_RAW_INSN(BPF_ALU64 | shifts[rnd_below(g, 5) ? rnd_below(g, 2) : 2] | BPF_K,
				     t, 0, 0, (int32_t)rnd_below(g, 64)));
		emit(g, BPF_RAW_INSN(cls | ops[rnd_below(g, 5) ? rnd_below(g, 2) : 2] | BPF_X, x, t, 0,
				     0));
		g->init |= 1u << t;
	}
}

static void gen_movsx_endian(struct gen *g)
{
	int src = pick(g, g->init), dst = pick(g, g->init);
	static const int widths[] = { 16, 32, 64 };

	switch (rnd_below(g, 4)) {
	case 0: {
		static const int16_t offs[] = { 8, 16, 32 };

		dst = pick(g, SCALARS);
		emit(g, BPF_MOVSX64_REG(dst, src, offs[rnd_below(g, 3)]));
		break;
	}
	case 1:
		dst = pick(g, SCALARS);
		emit(g, BPF_MOVSX32_REG(dst, src, rnd_below(g, 2) ? 8 : 16));
		break;
	case 2:
		emit(g, BPF_ENDIAN(rnd_below(g, 2) ? BPF_TO_BE : BPF_TO_LE, dst,
				   widths[rnd_below(g, 3)]));
		break;
	default:
		emit(g, BPF_BSWAP(dst, widths[rnd_below(g, 3)]));
		break;
	}
	g->init |= 1u << dst;
}

/* Loads and stores on the packet (r7) or the stack (r10). */
static void gen_mem(struct gen *g)
{
	bool stack = rnd_below(g, 2), load = rnd_below(g, 2);
	int size = rnd_size(g), bytes = size_bytes[size], base = stack ? BPF_REG_10 : BPF_REG_7;
	int16_t off;

	if (stack) /* aligned, inside the initialised slots */
		off = (int16_t)(-(STACK_SLOTS * 8) + (int)rnd_below(g, STACK_SLOTS * 8 / bytes) * bytes);
	else
		off = (int16_t)rnd_below(g, PKT_MIN - bytes + 1);
	if (load) {
		int dst = pick(g, SCALARS);

		if (size != BPF_DW && rnd_below(g, 3) == 0)
			emit(g, BPF_LDX_MEMSX(size, dst, base, off));
		else
			emit(g, BPF_LDX_MEM(size, dst, base, off));
		g->init |= 1u << dst;
	} else if (rnd_below(g, 3) == 0) {
		emit(g, BPF_ST_MEM(size, base, off, rnd_imm(g)));
	} else {
		emit(g, BPF_STX_MEM(size, base, pick(g, g->init), off));
	}
}

static void gen_branch(struct gen *g, int block, int nblocks)
{
	static const int ops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT,
				   BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };
	int op = ops[rnd_below(g, ARRAY_SIZE(ops))], cls = rnd_below(g, 3) ? BPF_JMP : BPF_JMP32;
	int target = block + 1 + (int)rnd_below(g, 4); /* skip 0..3 blocks */
	int dst = pick(g, g->init);

	if (target > nblocks)
		target = nblocks;
	/* now and then the interpreter's counter idioms: add64 rX, K before the jump on rX (AJ,
	 * AJ32), or a zero-extended copy (MZXJ), after such an add of its source or not (AMZXJ) */
	switch (rnd_below(g, 7)) {
	case 0:
		if (!(SCALARS & (1u << dst)))
			break;
		emit(g, BPF_ALU64_IMM(BPF_ADD, dst, rnd_below(g, 2) ? 1 : rnd_imm(g)));
		break;
	case 1:
	case 2: {
		int t = pick(g, SCALARS);

		if (rnd_below(g, 2) && (SCALARS & (1u << dst))) /* counter step first (AMZXJ) */
			emit(g, BPF_ALU64_IMM(BPF_ADD, dst, rnd_below(g, 2) ? 2 : rnd_imm(g)));
		emit(g, BPF_MOV64_REG(t, dst));
		emit(g, BPF_ALU64_IMM(BPF_LSH, t, 32));
		emit(g, BPF_ALU64_IMM(BPF_RSH, t, 32));
		g->init |= 1u << t;
		dst = t;
		break;
	}
	default:
		break;
	}
	if (rnd_below(g, 2))
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, pick(g, g->init), 0, 0));
	else
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 0,
				     rnd_below(g, 2) ? (int32_t)rnd_below(g, 256) : rnd_imm(g)));
	g->fixup_block[g->n - 1] = target;
	g->join[target] &= g->init;
}

/* key = src & KEY_MASK at fp-72; r1 = map; r2 = &key.  Clobbers r1 only (before the call). */
static void gen_key(struct gen *g, int src, int map_slot)
{
	emit(g, BPF_MOV64_REG(BPF_REG_1, src));
	emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_1, KEY_MASK));
	emit(g, BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, KEY_OFF));
	emit_ld64(g, BPF_REG_1, BPF_PSEUDO_MAP_FD, (uint32_t)map_slot);
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, KEY_OFF));
}

static void gen_map(struct gen *g)
{
	int map = rnd_below(g, 2) ? ARRAY_SLOT : HASH_SLOT, src = pick(g, g->init);

	switch (rnd_below(g, 4)) {
	case 0:
	case 1: /* lookup; r0 = the value after "value = value OP r9", or an immediate if NULL */
		gen_key(g, src, map);
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		emit(g, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2));
		emit(g, BPF_MOV64_IMM(BPF_REG_0, rnd_imm(g)));
		emit(g, BPF_JMP_A(4));
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0));
		emit(g, BPF_ALU64_REG(rnd_below(g, 2) ? BPF_ADD : BPF_XOR, BPF_REG_1, BPF_REG_9));
		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0));
		emit(g, BPF_MOV64_REG(BPF_REG_0, BPF_REG_1));
		break;
	case 2: { /* update with a random flag; r0 = its result */
		static const int flags[] = { BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST };

		emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_10, pick(g, g->init), VAL_OFF));
		gen_key(g, src, map);
		emit(g, BPF_MOV64_REG(BPF_REG_3, BPF_REG_10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, VAL_OFF));
		emit(g, BPF_MOV64_IMM(BPF_REG_4, flags[rnd_below(g, 4)]));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
		break;
	}
	default: /* delete; r0 = its result */
		gen_key(g, src, map);
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_delete_elem));
		break;
	}
	g->init = (g->init & ~CALLER_SAVED) | 1u;
}

/* One program; returns its length. */
static int gen_prog(struct gen *g)
{
	int nblocks = 8 + (int)rnd_below(g, MAX_BLOCKS - 8);

	g->n = 0;
	for (int i = 0; i <= MAX_BLOCKS; i++)
		g->join[i] = ~0u;

	/* prologue */
	emit(g, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1));
	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, offsetof(struct xdp_md, data)));
	emit(g, BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, offsetof(struct xdp_md, data_end)));
	emit(g, BPF_MOV64_REG(BPF_REG_2, BPF_REG_7));
	emit(g, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, PKT_MIN));
	g->short_fixup = g->n;
	emit(g, BPF_JMP_REG(BPF_JGT, BPF_REG_2, BPF_REG_8, 0));
	for (int s = 1; s <= STACK_SLOTS; s++)
		emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, -8 * s, rnd_imm(g)));
	for (int r = 0; r <= 9; r++) {
		if (!(SCALARS & (1u << r)))
			continue;
		if (rnd_below(g, 2))
			emit(g, BPF_LDX_MEM(rnd_size(g), r, BPF_REG_7, (int16_t)rnd_below(g, PKT_MIN - 7)));
		else if (rnd_below(g, 2))
			emit(g, BPF_MOV64_IMM(r, rnd_imm(g)));
		else
			emit_ld64(g, r, 0, rnd(g));
	}
	g->init = SCALARS;

	/* body */
	for (int b = 0; b < nblocks; b++) {
		u_int32_t k = rnd_below(g, 100);

		g->init &= g->join[b];
		g->block_start[b] = g->n;
		if (k < 30)
			gen_alu(g);
		else if (k < 36)
			gen_mix(g);
		else if (k < 45)
			gen_movsx_endian(g);
		else if (k < 70)
			gen_mem(g);
		else if (k < 85)
			gen_branch(g, b, nblocks);
		else
			gen_map(g);
	}
	g->init &= g->join[nblocks];
	g->block_start[nblocks] = g->n;

	/* epilogue: every initialised scalar into the packet, r0 & 3 returned */
	if (!(g->init & 1u))
		emit(g, BPF_MOV64_REG(BPF_REG_0, BPF_REG_9));
	for (int r = 0, slot = 0; r <= 9; r++)
		if ((SCALARS & (1u << r)) && ((g->init | 1u) & (1u << r)))
			emit(g, BPF_STX_MEM(BPF_DW, BPF_REG_7, r, (int16_t)(8 * slot++)));
	emit(g, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 3));
	emit(g, BPF_EXIT_INSN());
	/* short packets */
	g->insns[g->short_fixup].off = (int16_t)(g->n - g->short_fixup - 1);
	emit(g, BPF_MOV64_IMM(BPF_REG_0, XDP_PASS));
	emit(g, BPF_EXIT_INSN());

	for (int i = 0; i < g->n; i++)
		if (g->fixup_block[i] >= 0)
			g->insns[i].off = (int16_t)(g->block_start[g->fixup_block[i]] - i - 1);
	return g->n;
}

/* ---- the two sides ---- */

struct side_objs {
	int array_fd, hash_fd, prog_fd;
};

static int load_xdp(const struct side *s, const struct bpf_insn *insns, int cnt,
		    const struct side_objs *o)
{
	static struct bpf_insn copy[MAX_INSNS];
	static char log[1 << 16];
	union bpf_attr a;
	int fd;

	memcpy(copy, insns, (size_t)cnt * sizeof(*copy));
	for (int i = 0; i < cnt; i++) {
		if (copy[i].code != (BPF_LD | BPF_DW | BPF_IMM) || copy[i].src_reg != BPF_PSEUDO_MAP_FD)
			continue;
		if (copy[i].imm == ARRAY_SLOT)
			copy[i].imm = o->array_fd;
		else if (copy[i].imm == HASH_SLOT)
			copy[i].imm = o->hash_fd;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (uintptr_t)copy;
	a.insn_cnt = (u_int32_t)cnt;
	a.license = (uintptr_t) "GPL";
	fd = s->bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0 && s->bpf == kernel_bpf) {
		/* again with the log (costly when on for every load); its last lines say why */
		int err = errno;
		size_t len;

		log[0] = 0;
		a.log_buf = (uintptr_t)log;
		a.log_size = sizeof(log);
		a.log_level = 1;
		if (s->bpf(BPF_PROG_LOAD, &a, sizeof(a)) >= 0)
			fprintf(stderr, "kernel accepted it the second time\n");
		errno = err;
		len = strlen(log);

		fprintf(stderr, "kernel refused (%s):\n%s\n", strerror(errno),
			len > 1500 ? log + len - 1500 : log);
	}
	return fd;
}

static int objs_create(const struct side *s, struct side_objs *o)
{
	u_int64_t zero = 0;

	o->prog_fd = -1;
	o->array_fd = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 8, ARRAY_ENTRIES);
	o->hash_fd = map_create_on(s, BPF_MAP_TYPE_HASH, 4, 8, HASH_ENTRIES);
	if (o->array_fd < 0 || o->hash_fd < 0)
		return -1;
	/* the same starting contents: keys 1, 3, 5 in the hash */
	for (u_int32_t k = 1; k < 6; k += 2) {
		union bpf_attr a;

		zero = k * 0x1111;
		memset(&a, 0, sizeof(a));
		a.map_fd = o->hash_fd;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)&zero;
		if (s->bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)))
			return -1;
	}
	return 0;
}

static void objs_close(struct side_objs *o)
{
	if (o->prog_fd >= 0)
		close(o->prog_fd);
	if (o->array_fd >= 0)
		close(o->array_fd);
	if (o->hash_fd >= 0)
		close(o->hash_fd);
}

struct run_out {
	int rc, err;
	u_int32_t retval, size_out;
	u_int8_t data[PKT_MAX + 64];
};

static void run_on(const struct side *s, int prog_fd, const u_int8_t *pkt, u_int32_t len,
		   struct run_out *out)
{
	union bpf_attr a;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (u_int32_t)prog_fd;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = len;
	a.test.data_out = (uintptr_t)out->data;
	a.test.data_size_out = sizeof(out->data);
	a.test.repeat = 1;
	out->rc = s->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a));
	out->err = out->rc < 0 ? errno : 0;
	out->retval = a.test.retval;
	out->size_out = a.test.data_size_out;
}

/* Compares the maps key by key (0..KEY_MASK); returns 0 when equal. */
static int maps_differ(const struct side_objs *u, const struct side_objs *k, char *why, size_t n)
{
	for (int m = 0; m < 2; m++) {
		for (u_int32_t key = 0; key <= KEY_MASK; key++) {
			u_int64_t vu = 0, vk = 0;
			union bpf_attr a;
			int ru, rk, eu, ek;

			memset(&a, 0, sizeof(a));
			a.map_fd = (u_int32_t)(m ? u->hash_fd : u->array_fd);
			a.key = (uintptr_t)&key;
			a.value = (uintptr_t)&vu;
			ru = bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
			eu = ru ? errno : 0;
			a.map_fd = (u_int32_t)(m ? k->hash_fd : k->array_fd);
			a.value = (uintptr_t)&vk;
			rk = kernel_bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
			ek = rk ? errno : 0;
			if (ru != rk || eu != ek || vu != vk) {
				snprintf(why, n, "%s map key %u: userbpf %d/%d/0x%llx kernel %d/%d/0x%llx",
					 m ? "hash" : "array", key, ru, eu, (unsigned long long)vu, rk,
					 ek, (unsigned long long)vk);
				return 1;
			}
		}
	}
	return 0;
}

static void dump_prog(const struct bpf_insn *insns, int cnt)
{
	for (int i = 0; i < cnt; i++)
		fprintf(stderr, "  %3d: code %02x dst r%d src r%d off %d imm %d\n", i, insns[i].code,
			insns[i].dst_reg, insns[i].src_reg, insns[i].off, insns[i].imm);
}

TEST(prog_diff_random_xdp)
{
	static struct gen g;
	const char *env = getenv("USERBPF_DIFF_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x5eed0001u;
	int programs = 0, runs = 0, long_runs = 0;
	long insns = 0;

	REQUIRE_KERNEL();
	for (int p = 0; p < NPROGS; p++) {
		struct side_objs u, k;
		char why[256] = "";
		int cnt, bad = 0;

		memset(&g, 0, sizeof(g));
		g.rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)p * 0x2545f4914f6cdd1dull + 1;
		cnt = gen_prog(&g);
		insns += cnt;
		if (objs_create(&side_user, &u) || objs_create(&side_kern, &k)) {
			test_fail(__FILE__, __LINE__, "map creation: %s", strerror(errno));
			objs_close(&u);
			objs_close(&k);
			return;
		}
		k.prog_fd = load_xdp(&side_kern, g.insns, cnt, &k);
		u.prog_fd = load_xdp(&side_user, g.insns, cnt, &u);
		if (k.prog_fd < 0 || u.prog_fd < 0) {
			test_fail(__FILE__, __LINE__,
				  "seed 0x%llx program %d: %s refused it (%s); generator bug",
				  (unsigned long long)seed, p, k.prog_fd < 0 ? "the kernel" : "userbpf",
				  strerror(errno));
			dump_prog(g.insns, cnt);
			bad = 1;
		}
		for (int i = 0; !bad && i < NPKTS; i++) {
			u_int8_t pkt[PKT_MAX];
			u_int32_t len = rnd_below(&g, 5) ? PKT_MIN + rnd_below(&g, PKT_MAX - PKT_MIN + 1)
							 : ETH_HLEN + rnd_below(&g, PKT_MIN - ETH_HLEN);
			struct run_out ou, ok;

			for (u_int32_t b = 0; b < len; b++)
				pkt[b] = (u_int8_t)rnd(&g);
			run_on(&side_kern, k.prog_fd, pkt, len, &ok);
			run_on(&side_user, u.prog_fd, pkt, len, &ou);
			runs++;
			long_runs += len >= PKT_MIN;
			if (ou.rc != ok.rc || ou.err != ok.err || ou.retval != ok.retval ||
			    ou.size_out != ok.size_out ||
			    memcmp(ou.data, ok.data, ok.size_out < sizeof(ok.data) ? ok.size_out
										  : sizeof(ok.data))) {
				snprintf(why, sizeof(why),
					 "packet %d (len %u): userbpf rc %d/%d retval %u size %u, "
					 "kernel rc %d/%d retval %u size %u%s", i, len, ou.rc, ou.err,
					 ou.retval, ou.size_out, ok.rc, ok.err, ok.retval, ok.size_out,
					 ou.retval == ok.retval && ou.size_out == ok.size_out
						 ? " (data_out differs)" : "");
				for (u_int32_t b = 0; b < 64 && b < ok.size_out; b += 8) {
					unsigned long long du, dk;

					memcpy(&du, ou.data + b, 8);
					memcpy(&dk, ok.data + b, 8);
					fprintf(stderr, "  data[%2u] userbpf %016llx kernel %016llx\n", b,
						du, dk);
				}
				bad = 1;
			}
		}
		if (!bad && maps_differ(&u, &k, why, sizeof(why)))
			bad = 1;
		if (bad && why[0]) {
			test_fail(__FILE__, __LINE__, "seed 0x%llx program %d: %s",
				  (unsigned long long)seed, p, why);
			dump_prog(g.insns, cnt);
		}
		objs_close(&u);
		objs_close(&k);
		if (bad)
			return;
		programs++;
	}
	printf("random XDP differential: %d programs (%ld insns on average), %d runs (%d past the "
	       "bounds check) agree (seed 0x%llx)\n", programs, insns / NPROGS, runs, long_runs,
	       (unsigned long long)seed);
}
