/* The scalar value domain: what the verifier knows about a 64-bit register holding a number.
 *
 * A struct scalar is the product of five abstractions of one 64-bit value x; each describes a
 * superset of the possible values, and the value set it stands for ("gamma") is the intersection:
 *   var_off            x is in gamma(var_off)             (known bits, see tnum.h)
 *   smin..smax         (s64)x lies in [smin, smax]        (signed 64-bit view)
 *   umin..umax         x lies in [umin, umax]             (unsigned 64-bit view)
 *   s32_min..s32_max   (s32)x lies in [s32_min, s32_max]  (signed view of the low 32 bits)
 *   u32_min..u32_max   (u32)x lies in [u32_min, u32_max]  (unsigned view of the low 32 bits)
 * This is the scalar part of the kernel verifier's bpf_reg_state (var_off, smin_value, ...,
 * u32_max_value).
 *
 * Invariants.  A scalar for a non-empty set has every min <= its max and a well-formed var_off.
 * After scalar_sync_bounds() the views also agree: each range is no wider than what var_off
 * allows, the signed and unsigned ranges of one width have been intersected wherever the signed
 * range does not cross the sign boundary (then signed and unsigned orders coincide), var_off has
 * been narrowed by the unsigned ranges (tnum_range), and the 32-bit and 64-bit ranges have been
 * refined from each other.  An empty set may show up as some min > max; every operation here stays
 * sound on such input (the empty set is contained in anything) and scalar_refine_branch() reports
 * it as "infeasible".
 *
 * Soundness is the contract of every transfer function: for any concrete inputs in gamma of the
 * abstract inputs, the concrete result of the BPF instruction is in gamma of the abstract result.
 * tests/test_scalar.c checks it on random abstract values built from concrete sets.
 *
 * The algorithms follow the Linux verifier (kernel/bpf/verifier.c, 6.1: reg_bounds_sync,
 * adjust_scalar_min_max_vals, is_branch_taken, reg_set_min_max) and are written from their
 * semantics; where this module is more precise than 6.1 (general register-register branch
 * refinement, 32<->64 range deduction, NEG/END/MOVSX transfer) the extra step is sound and is
 * the shape later kernels adopted.  See scalar.c for the details of each operation.
 */
#ifndef USERBPF_VERIFIER_SCALAR_H
#define USERBPF_VERIFIER_SCALAR_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stdbool.h>
#include <stddef.h>

#include "verifier/tnum.h"

#define SCALAR_S64_MIN ((s64)((u64)1 << 63))
#define SCALAR_S64_MAX ((s64)(~(u64)0 >> 1))
#define SCALAR_S32_MIN ((s32)((u32)1 << 31))
#define SCALAR_S32_MAX ((s32)(~(u32)0 >> 1))

struct scalar {
	struct tnum var_off;	/* known bits of the 64-bit value */
	s64 smin, smax;		/* bounds of the value as a signed 64-bit number */
	u64 umin, umax;		/* bounds of the value as an unsigned 64-bit number */
	s32 s32_min, s32_max;	/* bounds of the low 32 bits as a signed 32-bit number */
	u32 u32_min, u32_max;	/* bounds of the low 32 bits as an unsigned 32-bit number */
};

/* Constructors. */
struct scalar scalar_unknown(void);
struct scalar scalar_const(u64 v);
/* From bounds: the smallest scalar of this shape with value in [umin, umax] (then synced). */
struct scalar scalar_urange(u64 umin, u64 umax);
struct scalar scalar_srange(s64 smin, s64 smax);

/* Membership: true when x satisfies all five views. */
bool scalar_contains(const struct scalar *s, u64 x);
/* True when no view is visibly empty (min <= max everywhere, var_off well-formed, and var_off
 * compatible with the ranges' ends).  False proves gamma(s) is empty. */
bool scalar_is_valid(const struct scalar *s);
static inline bool scalar_is_const(const struct scalar *s)
{
	return tnum_is_const(s->var_off);
}
static inline bool scalar_subreg_is_const(const struct scalar *s)
{
	return tnum_subreg_is_const(s->var_off);
}

/* Mutual refinement of var_off and the four ranges (the kernel's reg_bounds_sync, plus the 32<->64
 * range deduction of later kernels). */
void scalar_sync_bounds(struct scalar *s);
/* Forget the 64-bit or 32-bit ranges (the kernel's __mark_reg64_unbounded/__mark_reg32_unbounded;
 * var_off is kept, call scalar_sync_bounds() to re-derive them from it). */
void scalar_mark_unbounded64(struct scalar *s);
void scalar_mark_unbounded32(struct scalar *s);

/* Width changes (each result is synced). */
/* Zero-extend the low 32 bits into the whole register: the upper half of every ALU32 result. */
void scalar_zext32(struct scalar *s);
/* Keep the low size bytes (1, 2, 4; 8 is a no-op), zero the rest: narrow loads. */
void scalar_trunc(struct scalar *s, int size);
/* Sign-extend the low size bytes (1, 2, 4) to 64 bits: MOVSX (ALU64) and sign-extending loads. */
void scalar_sext(struct scalar *s, int size);
void scalar_sext32(struct scalar *s, int size);

/* ALU transfer.  op is BPF_OP(insn->code): BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR,
 * BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_NEG, BPF_MOV.  off is insn->off: 1 selects the
 * signed DIV/MOD, 8/16/32 selects MOVSX; 0 otherwise.  alu32 selects the BPF_ALU (32-bit,
 * zero-extending) form over BPF_ALU64.  src is ignored for BPF_NEG.  For a BPF_K instruction pass
 * scalar_const((u64)(s64)insn->imm).  Returns false for an op/off combination BPF does not define
 * (dst is then set to unknown). */
bool scalar_alu(struct scalar *dst, const struct scalar *src, u8 op, s16 off, bool alu32);

/* BPF_END: width is insn->imm (16, 32 or 64).  kind is BPF_TO_LE or BPF_TO_BE for the BPF_ALU
 * class (converting between host order and the given order), or SCALAR_BSWAP for the
 * BPF_ALU64 class (unconditional swap).  The result is zero-extended from width bits. */
#define SCALAR_BSWAP 0x100
void scalar_end(struct scalar *dst, int width, int kind);

/* Branches.  op is BPF_OP(insn->code) of a conditional jump: BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE,
 * BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET; jmp32 selects BPF_JMP32
 * (compare the low 32 bits).  The condition is "dst OP src".
 *
 * scalar_branch_taken: 1 if the jump is taken for every pair of values, 0 if it is never taken,
 * -1 if it depends (the kernel's is_branch_taken, generalised to two non-constant operands).
 *
 * scalar_refine_branch: narrow dst and src to the values consistent with the jump having been
 * taken (taken = true) or not.  Every pair of concrete values that gives that outcome stays in
 * gamma.  Returns false when no pair can give that outcome (the path is dead); the contents of
 * dst and src are then meaningless. */
int scalar_branch_taken(const struct scalar *dst, const struct scalar *src, u8 op, bool jmp32);
bool scalar_refine_branch(struct scalar *dst, struct scalar *src, u8 op, bool jmp32, bool taken);

/* Printer with snprintf semantics, in the kernel's register-state format (verifier.c 6.1,
 * print_verifier_state): a constant prints as its signed decimal value ("-1", "42"); otherwise
 * "scalar(" + the comma-separated fields that are not implied + ")", where the fields are, in
 * order, id=, smin=, smax=, umin=, umax=, var_off=, s32_min=, s32_max=, u32_min=, u32_max=.
 * id 0 means none.  The caller prints the "R1_w=" prefix and the "P" of precise registers. */
int scalar_snprint(char *buf, size_t size, const struct scalar *s, u32 id);

#endif /* USERBPF_VERIFIER_SCALAR_H */
