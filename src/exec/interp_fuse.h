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
 *
 * Semantics are exactly those of the original sequence: every register the sequence writes is
 * written (the intermediate rX of BND, rA of LDA), in the same order, so aliasing registers
 * (Z == X, C == A, ...) behave as unfused.  No instruction after the first of an idiom may be a
 * jump target or a second LD_IMM64 slot.  The records of those later instructions stay as
 * decoded, so entering a sequence anywhere but at its start still runs the plain forms.
 */
#ifndef USERBPF_EXEC_INTERP_FUSE_H
#define USERBPF_EXEC_INTERP_FUSE_H

#include <stdint.h>
#include <linux/bpf.h>

/* X(name, kind, op, bits): bits is the load width for LDA, the jump width otherwise. */
#define FUSE_LDA_OPS_(X, w)                                                                        \
	X(LDA##w##_ADD, LDA, ADD, w)                                                               \
	X(LDA##w##_SUB, LDA, SUB, w)                                                               \
	X(LDA##w##_AND, LDA, AND, w)                                                               \
	X(LDA##w##_OR, LDA, OR, w)                                                                 \
	X(LDA##w##_XOR, LDA, XOR, w)
#define FUSE_AJ_OPS_(X, f, s)                                                                      \
	X(f##_JEQ_##s, f##s, JEQ, 64)                                                              \
	X(f##_JGT_##s, f##s, JGT, 64)                                                              \
	X(f##_JGE_##s, f##s, JGE, 64)                                                              \
	X(f##_JSET_##s, f##s, JSET, 64)                                                            \
	X(f##_JNE_##s, f##s, JNE, 64)                                                              \
	X(f##_JSGT_##s, f##s, JSGT, 64)                                                            \
	X(f##_JSGE_##s, f##s, JSGE, 64)                                                            \
	X(f##_JLT_##s, f##s, JLT, 64)                                                              \
	X(f##_JLE_##s, f##s, JLE, 64)                                                              \
	X(f##_JSLT_##s, f##s, JSLT, 64)                                                            \
	X(f##_JSLE_##s, f##s, JSLE, 64)

#define FUSE_LIST(X)                                                                               \
	X(BND_JGT, BND, JGT, 64)                                                                   \
	X(BND_JGE, BND, JGE, 64)                                                                   \
	X(BND_JLT, BND, JLT, 64)                                                                   \
	X(BND_JLE, BND, JLE, 64)                                                                   \
	FUSE_LDA_OPS_(X, 8)                                                                        \
	FUSE_LDA_OPS_(X, 16)                                                                       \
	FUSE_LDA_OPS_(X, 32)                                                                       \
	FUSE_LDA_OPS_(X, 64)                                                                       \
	FUSE_AJ_OPS_(X, AJ, K)                                                                     \
	FUSE_AJ_OPS_(X, AJ, R)                                                                     \
	FUSE_AJ_OPS_(X, AJ2, K)                                                                    \
	FUSE_AJ_OPS_(X, AJ2, R)

enum fuse_id {
#define FUSE_ENUM_(name, ...) FUSE_##name,
	FUSE_LIST(FUSE_ENUM_)
#undef FUSE_ENUM_
	FUSE__COUNT
};

/* A match.  Fields as the record fields of the same names in interp.c. */
struct fuse {
	enum fuse_id id;
	uint32_t len;     /* instructions covered */
	uint8_t dst, src; /* BND: X, Y; LDA: A, B; AJ: X, (R form) Z; AJ2_K: X, W; AJ2_R: X, Z */
	int32_t aux;      /* BND: Z; LDA: C; AJ_K, AJ2_K: the compared imm; AJ2_R: W */
	int16_t off;      /* LDA: the load offset; AJ2: K1 */
	int32_t imm;      /* BND, AJ, AJ2: K */
};

/* Number of instructions an idiom covers. */
static inline uint32_t fuse_len(enum fuse_id id)
{
	return id < FUSE_LDA8_ADD || id >= FUSE_AJ2_JEQ_K ? 3 : 2;
}

/* Whether insns[i..] starts an idiom; fills *f and returns its length, else returns 0.
 * no_entry[j] nonzero: instruction j must not be inside an idiom (a jump target or a second
 * LD_IMM64 slot).  The instructions must have passed the decoder's checks. */
uint32_t fuse_match(const struct bpf_insn *insns, uint32_t cnt, uint32_t i,
		    const uint8_t *no_entry, struct fuse *f);

#endif /* USERBPF_EXEC_INTERP_FUSE_H */
