/* interp_fuse.h — superinstructions: short instruction idioms the interpreter runs as one record.
 *
 * interp_prepare() asks fuse_match() at every instruction whether the sequence starting there is
 * one of a few idioms that clang and hand-written programs put in hot loops; if so the record of
 * the first instruction gets a fused handler that does the work of all of them, with one dispatch
 * instead of two or three.  Only the targeted idioms below are fused (a generic pair fusion of
 * every form costs far more compile time and code size for little more speed):
 *
 *   BND   mov64 rX, rY; add64 rX, K; jCC64 rX, rZ    packet bounds check (CC: gt ge lt le; the
 *                                                    mirrored `jCC rZ, rX` is normalised)
 *   LDA   ldx{b,h,w,dw} rA, [rB + off]; alu64 rC OP= rA    load then use (OP: add sub and or xor)
 *   AJ    add64 rX, K; jCC64 rX, imm / rZ            counter increment and branch (every CC)
 *   AJ2   add64 rW, K1; AJ                           the same after a pointer increment (K1 must
 *                                                    fit in 16 bits)
 *   BNDL  BND; LDA with B == Y != X, A != C,         bounds check, then read what it checked
 *         rX and rA dead afterwards
 *   ZX    lsh64 rX, 32; rsh64 rX, 32                 zero-extend the low half (clang's u32 casts
 *   MZX   mov64 rX, rY; ZX                           without alu32), of rX or of a copy of rY
 *   MULADD  mul64 rX, K; add64 rX, rY (Y != X)       multiply-accumulate: hash and LCG steps
 *   SHX   mov64 rT, rX; sh64 rT, K; op64 rX, rT      xorshift and shift-add mixing steps (sh: lsh
 *         (T != X)                                   rsh; op: xor add), x ^= x >> K
 *   MOVK  mov64 rX, rY; op64 rX, K                   the three-operand ALU op that clang spells
 *   MOVX  mov64 rX, rY; op64 rX, rZ (Z != X)         as two (pointer = base + offset, a shifted
 *                                                    copy); op: add sub and or xor lsh rsh arsh
 *                                                    mul
 *   MZXJ  MZX; jCC64 rX, imm / rZ                    clang's u32 loop counter test without alu32
 *   AJ32  add64 rX, K; jCC32 wX, imm / wZ            the same with jmp32 (clang -mcpu=v3)
 *   AMZXJ add64 rW, K; MZXJ with Y == W              a u32 counter's step and test without
 *                                                    alu32: i += K; if ((u32)i != N)
 *   XBNDL mov64 rY, rB; add64 rY, rI; BNDL           clang's indexed packet read: p = data + i,
 *         (I != Y), with rY dead afterwards          bounds check, read, accumulate
 *         (also where the jump lands), Z != Y, C != Y
 *
 * Semantics are exactly those of the original sequence: every register the sequence writes is
 * written (the intermediate rX of BND, rA of LDA), in the same order, so aliasing registers
 * (Z == X, C == A, ...) behave as unfused.  The one exception is BNDL, which is chosen only where
 * a liveness analysis (exec/liveness.h) shows that nothing reads rX after the jump or rA after the
 * ALU op, and then skips both stores: in a packet loop they are the scratch registers of the
 * check and the load, and two of the loop's few stores.  No instruction after the first of an idiom may be a
 * jump target or a second LD_IMM64 slot.  The records of those later instructions stay as
 * decoded, so entering a sequence anywhere but at its start still runs the plain forms.
 * XBNDL, a BNDL after the two instructions that compute its Y, also skips Y's store; the matcher
 * checks that nothing reads Y afterwards on either edge of the jump.
 */
#ifndef USERBPF_EXEC_INTERP_FUSE_H
#define USERBPF_EXEC_INTERP_FUSE_H

#include <stdint.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

/* X(name, kind, op, op2, bits): op the jump (BND, AJ, AJ2, BNDL), ALU (LDA) or shift (SHX)
 * operation, op2 BNDL's and SHX's ALU operation, bits the load width of LDA and BNDL (64
 * otherwise). */
#define FUSE_ALU_OPS_(X, k, cc, w)                                                                 \
	X(k##cc##w##_ADD, k, cc, ADD, w)                                                           \
	X(k##cc##w##_SUB, k, cc, SUB, w)                                                           \
	X(k##cc##w##_AND, k, cc, AND, w)                                                           \
	X(k##cc##w##_OR, k, cc, OR, w)                                                             \
	X(k##cc##w##_XOR, k, cc, XOR, w)
#define FUSE_LDA_(X, k, cc)                                                                        \
	FUSE_ALU_OPS_(X, k, cc, 8)                                                                 \
	FUSE_ALU_OPS_(X, k, cc, 16)                                                                \
	FUSE_ALU_OPS_(X, k, cc, 32)                                                                \
	FUSE_ALU_OPS_(X, k, cc, 64)
#define FUSE_AJ_OPS_(X, f, s)                                                                      \
	X(f##_JEQ_##s, f##s, JEQ, NONE, 64)                                                        \
	X(f##_JGT_##s, f##s, JGT, NONE, 64)                                                        \
	X(f##_JGE_##s, f##s, JGE, NONE, 64)                                                        \
	X(f##_JSET_##s, f##s, JSET, NONE, 64)                                                      \
	X(f##_JNE_##s, f##s, JNE, NONE, 64)                                                        \
	X(f##_JSGT_##s, f##s, JSGT, NONE, 64)                                                      \
	X(f##_JSGE_##s, f##s, JSGE, NONE, 64)                                                      \
	X(f##_JLT_##s, f##s, JLT, NONE, 64)                                                        \
	X(f##_JLE_##s, f##s, JLE, NONE, 64)                                                        \
	X(f##_JSLT_##s, f##s, JSLT, NONE, 64)                                                      \
	X(f##_JSLE_##s, f##s, JSLE, NONE, 64)

#define FUSE_MOV_OPS_(X, f)                                                                        \
	X(f##_ADD, f, ADD, NONE, 64)                                                               \
	X(f##_SUB, f, SUB, NONE, 64)                                                               \
	X(f##_AND, f, AND, NONE, 64)                                                               \
	X(f##_OR, f, OR, NONE, 64)                                                                 \
	X(f##_XOR, f, XOR, NONE, 64)                                                               \
	X(f##_LSH, f, LSH, NONE, 64)                                                               \
	X(f##_RSH, f, RSH, NONE, 64)                                                               \
	X(f##_ARSH, f, ARSH, NONE, 64)                                                             \
	X(f##_MUL, f, MUL, NONE, 64)

/* Each family's entries are in the order the matcher computes ids in: BND and BNDL by jump op
 * (gt ge lt le), LDA and BNDL by width then ALU op (add sub and or xor), AJ, MZXJ, AJ32 and
 * AMZXJ by jcc_index(), MOVK and MOVX by mov_op_index(). */
#define FUSE_LIST(X)                                                                               \
	X(BND_JGT, BND, JGT, NONE, 64)                                                             \
	X(BND_JGE, BND, JGE, NONE, 64)                                                             \
	X(BND_JLT, BND, JLT, NONE, 64)                                                             \
	X(BND_JLE, BND, JLE, NONE, 64)                                                             \
	FUSE_LDA_(X, LDA, )                                                                        \
	FUSE_AJ_OPS_(X, AJ, K)                                                                     \
	FUSE_AJ_OPS_(X, AJ, R)                                                                     \
	FUSE_AJ_OPS_(X, AJ2, K)                                                                    \
	FUSE_AJ_OPS_(X, AJ2, R)                                                                    \
	FUSE_LDA_(X, BNDL, JGT)                                                                    \
	FUSE_LDA_(X, BNDL, JGE)                                                                    \
	FUSE_LDA_(X, BNDL, JLT)                                                                    \
	FUSE_LDA_(X, BNDL, JLE)                                                                    \
	X(ZX, ZX, NONE, NONE, 64)                                                                  \
	X(MZX, MZX, NONE, NONE, 64)                                                                \
	X(MULADD, MULADD, NONE, NONE, 64)                                                          \
	X(SHX_LSH_XOR, SHX, LSH, XOR, 64)                                                          \
	X(SHX_LSH_ADD, SHX, LSH, ADD, 64)                                                          \
	X(SHX_RSH_XOR, SHX, RSH, XOR, 64)                                                          \
	X(SHX_RSH_ADD, SHX, RSH, ADD, 64)                                                          \
	FUSE_MOV_OPS_(X, MOVK)                                                                     \
	FUSE_MOV_OPS_(X, MOVX)                                                                     \
	FUSE_AJ_OPS_(X, MZXJ, K)                                                                   \
	FUSE_AJ_OPS_(X, MZXJ, R)                                                                   \
	FUSE_AJ_OPS_(X, AJ32, K)                                                                   \
	FUSE_AJ_OPS_(X, AJ32, R)                                                                   \
	FUSE_AJ_OPS_(X, AMZXJ, K)                                                                  \
	FUSE_AJ_OPS_(X, AMZXJ, R)                                                                  \
	FUSE_LDA_(X, XBNDL, JGT)                                                                   \
	FUSE_LDA_(X, XBNDL, JGE)                                                                   \
	FUSE_LDA_(X, XBNDL, JLT)                                                                   \
	FUSE_LDA_(X, XBNDL, JLE)

enum fuse_id {
#define FUSE_ENUM_(name, ...) FUSE_##name,
	FUSE_LIST(FUSE_ENUM_)
#undef FUSE_ENUM_
	FUSE__COUNT
};

/* A match: the operands of the fused record, as the record fields of the same names in interp.c. */
struct fuse {
	enum fuse_id id;
	uint8_t dst, src; /* BND, BNDL: X, Y; LDA: A, B; AJ: X, (R form) Z; AJ2_K: X, W;
			   * AJ2_R: X, Z; XBNDL: B, I (kb, off, aux as BNDL's) */
	int16_t off;      /* BND: Z; LDA, BNDL: the load offset; AJ2: K1 */
	int32_t aux;      /* BND, BNDL: K; LDA: C; AJ_K, AJ2_K: the compared imm; AJ2_R: W */
	uint64_t k;       /* AJ, AJ2: K sign-extended */
			  /* (ZX: dst X; MZX: dst X, src Y) */
			  /* MULADD: dst X, src Y, k K; SHX: dst X, src T, aux K */
			  /* MOVK: dst X, src Y, aux K; MOVX: dst X, src Y, aux Z */
			  /* MZXJ: dst X, src Y, aux the compared imm (K) or Z (R) */
			  /* AJ32: as AJ */
			  /* AMZXJ: dst X, src W, k K, aux as MZXJ's */
	uint8_t kb[3];    /* BNDL: Z, A (not written), C (in the record, the first bytes of k) */
};

/* Whether an idiom is a BNDL or an XBNDL (its record holds kb over k). */
static inline int fuse_is_bndl(enum fuse_id id)
{
	return (id >= FUSE_BNDLJGT8_ADD && id < FUSE_ZX) || id >= FUSE_XBNDLJGT8_ADD;
}

/* Number of instructions an idiom covers. */
static inline uint32_t fuse_len(enum fuse_id id)
{
	if (id >= FUSE_XBNDLJGT8_ADD)
		return 7;
	if (id >= FUSE_AMZXJ_JEQ_K)
		return 5;
	if (id >= FUSE_MOVK_ADD) /* MOVK, MOVX; MZXJ; AJ32 */
		return id < FUSE_MZXJ_JEQ_K ? 2 : id < FUSE_AJ32_JEQ_K ? 4 : 2;
	if (id == FUSE_ZX || id == FUSE_MULADD)
		return 2;
	if (id == FUSE_MZX || id >= FUSE_SHX_LSH_XOR)
		return 3;
	if (fuse_is_bndl(id))
		return 5;
	if (id < FUSE_LDA8_ADD || id >= FUSE_AJ2_JEQ_K)
		return 3;
	return 2;
}

/* Position of the idiom's conditional jump, whose target the fused record takes (0: none). */
static inline uint32_t fuse_jump(enum fuse_id id)
{
	if (id >= FUSE_XBNDLJGT8_ADD)
		return 4;
	if (id >= FUSE_AMZXJ_JEQ_K)
		return 4;
	if (id >= FUSE_MOVK_ADD)
		return id < FUSE_MZXJ_JEQ_K ? 0 : id < FUSE_AJ32_JEQ_K ? 3 : 1;
	if (id >= FUSE_ZX)
		return 0;
	if (id >= FUSE_LDA8_ADD && id < FUSE_AJ_JEQ_K)
		return 0;
	return id >= FUSE_AJ_JEQ_K && id < FUSE_AJ2_JEQ_K ? 1 : 2;
}

/* Whether insns[i..] starts an idiom; fills *f and returns its length, else returns 0.
 * no_entry[j] nonzero: instruction j must not be inside an idiom (a jump target or a second
 * LD_IMM64 slot).  live_out: exec_liveness()'s result, or NULL (then no BNDL).  The instructions
 * must have passed the decoder's checks. */
uint32_t fuse_match(const struct bpf_insn *insns, uint32_t cnt, uint32_t i,
		    const uint8_t *no_entry, const uint16_t *live_out, struct fuse *f);

#endif /* USERBPF_EXEC_INTERP_FUSE_H */
