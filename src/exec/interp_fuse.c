/* interp_fuse.c — the idiom matcher for the interpreter's superinstructions (see interp_fuse.h).
 *
 * Matching works on the raw instructions, which the decoder has already validated (known form,
 * reserved fields zero, registers in range), so a code byte identifies the form except for the
 * discriminated ones: MOV64_X with off != 0 is MOVSX, and no discriminated ALU form is matched
 * otherwise (SDIV/SMOD have their own codes' off 1, and DIV/MOD are not in the lists).
 */
#include <stdbool.h>

#include "insn.h"
#include "exec/interp_fuse.h"
#include "exec/liveness.h"

#define MOV64_X (BPF_ALU64 | BPF_MOV | BPF_X)
#define ADD64_K (BPF_ALU64 | BPF_ADD | BPF_K)
#define LSH64_K (BPF_ALU64 | BPF_LSH | BPF_K)
#define RSH64_K (BPF_ALU64 | BPF_RSH | BPF_K)
#define MUL64_K (BPF_ALU64 | BPF_MUL | BPF_K)
#define ADD64_X (BPF_ALU64 | BPF_ADD | BPF_X)
#define XOR64_X (BPF_ALU64 | BPF_XOR | BPF_X)

/* Index of a conditional jump op in FUSE_AJ_OPS_ order, or -1 (JA, CALL, EXIT, ...). */
static int jcc_index(uint8_t op)
{
	switch (op) {
	case BPF_JEQ:
		return 0;
	case BPF_JGT:
		return 1;
	case BPF_JGE:
		return 2;
	case BPF_JSET:
		return 3;
	case BPF_JNE:
		return 4;
	case BPF_JSGT:
		return 5;
	case BPF_JSGE:
		return 6;
	case BPF_JLT:
		return 7;
	case BPF_JLE:
		return 8;
	case BPF_JSLT:
		return 9;
	case BPF_JSLE:
		return 10;
	default:
		return -1;
	}
}

/* Index of an ALU op in FUSE_MOV_OPS_ order, or -1. */
static int mov_op_index(uint8_t op)
{
	switch (op) {
	case BPF_ADD:
		return 0;
	case BPF_SUB:
		return 1;
	case BPF_AND:
		return 2;
	case BPF_OR:
		return 3;
	case BPF_XOR:
		return 4;
	case BPF_LSH:
		return 5;
	case BPF_RSH:
		return 6;
	case BPF_ARSH:
		return 7;
	case BPF_MUL:
		return 8;
	default:
		return -1;
	}
}

/* Index of an ALU op in FUSE_LDA_OPS_ order (add sub and or xor: FUSE_MOV_OPS_'s first five), or
 * -1. */
static int lda_op_index(uint8_t op)
{
	int i = mov_op_index(op);

	return i < 5 ? i : -1;
}

/* BND's unsigned orderings, and their mirror images for `jCC rZ, rX`. */
static int bnd_id(uint8_t op, int mirrored)
{
	if (mirrored) {
		switch (op) {
		case BPF_JGT:
			op = BPF_JLT;
			break;
		case BPF_JGE:
			op = BPF_JLE;
			break;
		case BPF_JLT:
			op = BPF_JGT;
			break;
		case BPF_JLE:
			op = BPF_JGE;
			break;
		default:
			return -1;
		}
	}
	switch (op) {
	case BPF_JGT:
		return FUSE_BND_JGT;
	case BPF_JGE:
		return FUSE_BND_JGE;
	case BPF_JLT:
		return FUSE_BND_JLT;
	case BPF_JLE:
		return FUSE_BND_JLE;
	default:
		return -1;
	}
}

static uint32_t match_bnd(const struct bpf_insn *in, struct fuse *f)
{
	const struct bpf_insn *j = &in[2];
	uint8_t x = in[0].dst_reg, z;
	int id;

	if (in[0].code != MOV64_X || in[0].off || in[1].code != ADD64_K || in[1].dst_reg != x)
		return 0;
	if (BPF_CLASS(j->code) != BPF_JMP || BPF_SRC(j->code) != BPF_X)
		return 0;
	if (j->dst_reg == x) {
		id = bnd_id(BPF_OP(j->code), 0);
		z = j->src_reg;
	} else if (j->src_reg == x) {
		id = bnd_id(BPF_OP(j->code), 1);
		z = j->dst_reg;
	} else {
		return 0;
	}
	if (id < 0)
		return 0;
	f->id = (enum fuse_id)id;
	f->dst = x;
	f->src = in[0].src_reg;
	f->off = z;
	f->aux = in[1].imm;
	return 3;
}

static uint32_t match_lda(const struct bpf_insn *in, struct fuse *f)
{
	static const enum fuse_id base[4] = {
	    [BPF_B >> 3] = FUSE_LDA8_ADD,
	    [BPF_H >> 3] = FUSE_LDA16_ADD,
	    [BPF_W >> 3] = FUSE_LDA32_ADD,
	    [BPF_DW >> 3] = FUSE_LDA64_ADD,
	};
	int op;

	if (BPF_CLASS(in[0].code) != BPF_LDX || BPF_MODE(in[0].code) != BPF_MEM)
		return 0;
	if (BPF_CLASS(in[1].code) != BPF_ALU64 || BPF_SRC(in[1].code) != BPF_X ||
	    in[1].src_reg != in[0].dst_reg)
		return 0;
	op = lda_op_index(BPF_OP(in[1].code));
	if (op < 0)
		return 0;
	f->id = (enum fuse_id)(base[BPF_SIZE(in[0].code) >> 3] + op);
	f->dst = in[0].dst_reg;
	f->src = in[0].src_reg;
	f->off = in[0].off;
	f->aux = in[1].dst_reg;
	return 2;
}

/* AJ (cls BPF_JMP) or AJ32 (BPF_JMP32): add64 rX, K; jCC rX, imm / rZ. */
static uint32_t match_aj(const struct bpf_insn *in, uint8_t cls, struct fuse *f)
{
	int cc;

	if (in[0].code != ADD64_K || BPF_CLASS(in[1].code) != cls ||
	    in[1].dst_reg != in[0].dst_reg)
		return 0;
	cc = jcc_index(BPF_OP(in[1].code));
	if (cc < 0)
		return 0;
	f->dst = in[0].dst_reg;
	f->k = (uint64_t)(int64_t)in[0].imm;
	if (BPF_SRC(in[1].code) == BPF_X) {
		f->id = (enum fuse_id)((cls == BPF_JMP ? FUSE_AJ_JEQ_R : FUSE_AJ32_JEQ_R) + cc);
		f->src = in[1].src_reg;
	} else {
		f->id = (enum fuse_id)((cls == BPF_JMP ? FUSE_AJ_JEQ_K : FUSE_AJ32_JEQ_K) + cc);
		f->aux = in[1].imm;
	}
	return 2;
}

/* MOVK / MOVX: mov64 rX, rY; op64 rX, K / rZ.  Z == X is left alone: the op would read Y's copy,
 * not Z's value. */
static uint32_t match_movop(const struct bpf_insn *in, struct fuse *f)
{
	uint8_t x = in[0].dst_reg;
	int op;

	if (in[0].code != MOV64_X || in[0].off || BPF_CLASS(in[1].code) != BPF_ALU64 ||
	    in[1].dst_reg != x)
		return 0;
	op = mov_op_index(BPF_OP(in[1].code));
	if (op < 0)
		return 0;
	if (BPF_SRC(in[1].code) == BPF_X) {
		if (in[1].src_reg == x)
			return 0;
		f->id = (enum fuse_id)(FUSE_MOVX_ADD + op);
		f->aux = in[1].src_reg;
	} else {
		f->id = (enum fuse_id)(FUSE_MOVK_ADD + op);
		f->aux = in[1].imm;
	}
	f->dst = x;
	f->src = in[0].src_reg;
	return 2;
}

/* ZX: lsh64 rX, 32; rsh64 rX, 32. */
static uint32_t match_zx(const struct bpf_insn *in, struct fuse *f)
{
	if (in[0].code != LSH64_K || in[0].imm != 32 || in[1].code != RSH64_K || in[1].imm != 32 ||
	    in[1].dst_reg != in[0].dst_reg)
		return 0;
	f->id = FUSE_ZX;
	f->dst = in[0].dst_reg;
	return 2;
}

/* MZX: a move (not a sign-extending one) then ZX of its destination; MZXJ: then a jump on it.
 * Reads insns[i..] as far as no_entry allows. */
static uint32_t match_mzx(const struct bpf_insn *insns, uint32_t cnt, uint32_t i,
			  const uint8_t *no_entry, struct fuse *f)
{
	const struct bpf_insn *j;
	int cc;

	if (i + 2 >= cnt || no_entry[i + 1] || no_entry[i + 2] || insns[i].code != MOV64_X ||
	    insns[i].off || !match_zx(&insns[i + 1], f) || f->dst != insns[i].dst_reg)
		return 0;
	f->src = insns[i].src_reg;
	j = &insns[i + 3]; /* at most one past the end: read only if i + 3 < cnt */
	if (i + 3 < cnt && !no_entry[i + 3] && BPF_CLASS(j->code) == BPF_JMP &&
	    j->dst_reg == f->dst && (cc = jcc_index(BPF_OP(j->code))) >= 0) {
		bool reg = BPF_SRC(j->code) == BPF_X;

		f->id = (enum fuse_id)((reg ? FUSE_MZXJ_JEQ_R : FUSE_MZXJ_JEQ_K) + cc);
		f->aux = reg ? j->src_reg : j->imm;
		return 4;
	}
	f->id = FUSE_MZX;
	return 3;
}

/* AJ2: add64 rW, K1 in front of an AJ. */
static uint32_t match_aj2(const struct bpf_insn *in, struct fuse *f)
{
	if (in[0].code != ADD64_K || in[0].imm != (int16_t)in[0].imm || !match_aj(&in[1], BPF_JMP, f))
		return 0;
	f->id = (enum fuse_id)(f->id - FUSE_AJ_JEQ_K + FUSE_AJ2_JEQ_K);
	f->off = (int16_t)in[0].imm;
	if (f->id >= FUSE_AJ2_JEQ_R)
		f->aux = in[0].dst_reg;
	else
		f->src = in[0].dst_reg;
	return 3;
}

/* MULADD: mul64 rX, K; add64 rX, rY with Y != X (else the add would read the product). */
static uint32_t match_muladd(const struct bpf_insn *in, struct fuse *f)
{
	uint8_t x = in[0].dst_reg;

	if (in[0].code != MUL64_K || in[1].code != ADD64_X || in[1].dst_reg != x ||
	    in[1].src_reg == x)
		return 0;
	f->id = FUSE_MULADD;
	f->dst = x;
	f->src = in[1].src_reg;
	f->k = (uint64_t)(int64_t)in[0].imm;
	return 2;
}

/* SHX: mov64 rT, rX; lsh64/rsh64 rT, K; xor64/add64 rX, rT with T != X.  (The decoder refused
 * shift immediates outside [0, 64).) */
static uint32_t match_shx(const struct bpf_insn *in, struct fuse *f)
{
	uint8_t t = in[0].dst_reg, x = in[0].src_reg;
	int id;

	if (in[0].code != MOV64_X || in[0].off || t == x || in[1].dst_reg != t ||
	    in[2].dst_reg != x || in[2].src_reg != t)
		return 0;
	if (in[1].code == LSH64_K)
		id = FUSE_SHX_LSH_XOR;
	else if (in[1].code == RSH64_K)
		id = FUSE_SHX_RSH_XOR;
	else
		return 0;
	if (in[2].code == ADD64_X)
		id += FUSE_SHX_LSH_ADD - FUSE_SHX_LSH_XOR;
	else if (in[2].code != XOR64_X)
		return 0;
	f->id = (enum fuse_id)id;
	f->dst = x;
	f->src = t;
	f->aux = in[1].imm;
	return 3;
}

uint32_t fuse_match(const struct bpf_insn *insns, uint32_t cnt, uint32_t i, const uint8_t *no_entry,
		    const uint16_t *live_out, struct fuse *f)
{
	uint32_t n;

	*f = (struct fuse){0};
	/* Longest first; each matcher reads only as far as its length. */
	/* AMZXJ: add64 rW, K, then an MZXJ copying W */
	if (i + 1 < cnt && insns[i].code == ADD64_K && !no_entry[i + 1] &&
	    match_mzx(insns, cnt, i + 1, no_entry, f) == 4 && f->src == insns[i].dst_reg) {
		f->id = (enum fuse_id)(f->id - FUSE_MZXJ_JEQ_K + FUSE_AMZXJ_JEQ_K);
		f->k = (uint64_t)(int64_t)insns[i].imm;
		n = 5;
		goto found;
	}
	*f = (struct fuse){0};
	/* XBNDL: mov64 rY, rB; add64 rY, rI; then a BNDL on Y, with Y dead after it on both
	 * edges of its jump and neither compared with nor accumulated into (it is not stored). */
	if (i + 6 < cnt && insns[i].code == MOV64_X && !insns[i].off &&
	    insns[i + 1].code == ADD64_X && insns[i + 1].dst_reg == insns[i].dst_reg &&
	    insns[i + 1].src_reg != insns[i].dst_reg && !no_entry[i + 1] && !no_entry[i + 2] &&
	    fuse_match(insns, cnt, i + 2, no_entry, live_out, f) == 5 && fuse_is_bndl(f->id) &&
	    f->src == insns[i].dst_reg && f->kb[0] != f->src && f->kb[2] != f->src &&
	    exec_dead_after(live_out, i + 6, f->src) &&
	    exec_dead_at_target(insns, cnt, live_out, i + 4, f->src)) {
		f->id = (enum fuse_id)(f->id - FUSE_BNDLJGT8_ADD + FUSE_XBNDLJGT8_ADD);
		f->dst = insns[i].src_reg;
		f->src = insns[i + 1].src_reg;
		n = 7;
		goto found;
	}
	*f = (struct fuse){0};
	if (i + 2 < cnt && !no_entry[i + 1] && !no_entry[i + 2] && match_bnd(&insns[i], f)) {
		struct fuse l;

		/* BNDL writes neither X nor A: both must be dead after their last use (X after
		 * the jump, on both edges; A after the ALU op, which must not be A's own), and
		 * the jump must not compare X with itself (it would read the stale X). */
		if (i + 4 < cnt && !no_entry[i + 3] && !no_entry[i + 4] &&
		    match_lda(&insns[i + 3], &l) && l.src == f->src && f->dst != f->src &&
		    (uint8_t)f->off != f->dst &&
		    l.dst != (uint8_t)l.aux && exec_dead_after(live_out, i + 2, f->dst) &&
		    exec_dead_after(live_out, i + 4, l.dst)) {
			/* BNDL: X, Y and K as BND; LDA's offset; Z, A, C in kb. */
			f->id = (enum fuse_id)(FUSE_BNDLJGT8_ADD + (f->id - FUSE_BND_JGT) * 20 +
					       (l.id - FUSE_LDA8_ADD));
			f->kb[0] = (uint8_t)f->off;
			f->kb[1] = l.dst;
			f->kb[2] = (uint8_t)l.aux;
			f->off = l.off;
			n = 5;
		} else {
			n = 3;
		}
		goto found;
	}
	*f = (struct fuse){0};
	if (i + 2 < cnt && !no_entry[i + 1] && !no_entry[i + 2] && (n = match_aj2(&insns[i], f)))
		goto found;
	*f = (struct fuse){0};
	if (i + 2 < cnt && !no_entry[i + 1] && !no_entry[i + 2] && (n = match_shx(&insns[i], f)))
		goto found;
	*f = (struct fuse){0};
	if ((n = match_mzx(insns, cnt, i, no_entry, f)))
		goto found;
	*f = (struct fuse){0};
	if (i + 1 >= cnt || no_entry[i + 1])
		return 0;
	if ((n = match_lda(&insns[i], f)) || (n = match_aj(&insns[i], BPF_JMP, f)) ||
	    (n = match_aj(&insns[i], BPF_JMP32, f)) || (n = match_zx(&insns[i], f)) ||
	    (n = match_muladd(&insns[i], f)) || (n = match_movop(&insns[i], f)))
		goto found;
	return 0;
found:
	return n == fuse_len(f->id) ? n : 0;
}
