/* Tristate numbers ("tnums"): the verifier's bit-level abstract domain.
 *
 * A tnum describes a set of 64-bit values by saying, for each bit, whether it is known to be 0,
 * known to be 1, or unknown.  It is a pair (value, mask):
 *   - a bit set in mask is unknown;
 *   - a bit clear in mask is known, and its value is the same bit of value.
 * Invariant (well-formedness): value & mask == 0.  The set a tnum stands for ("gamma") is
 *   { x : (x & ~mask) == value },
 * so it always holds 2^popcount(mask) values.  Every operation below is sound: if x is in gamma(a)
 * and y in gamma(b), then x OP y is in gamma(OP(a, b)).  Bitwise operations and shifts are also
 * optimal (the smallest tnum holding every result); add/sub/mul are sound but may lose precision.
 *
 * The operations and their meaning follow the Linux verifier's kernel/bpf/tnum.c, and the printer
 * produces the kernel's text form "(0x<value>; 0x<mask>)", as in the verifier log's var_off=...
 * This is an independent implementation written from those semantics.
 */
#ifndef USERBPF_VERIFIER_TNUM_H
#define USERBPF_VERIFIER_TNUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kernel-style fixed-width integer names used throughout the verifier. */
typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint16_t u16;
typedef int16_t s16;
typedef uint8_t u8;
typedef int8_t s8;

struct tnum {
	u64 value;	/* known bits' values (0 where unknown) */
	u64 mask;	/* 1 = bit unknown */
};

#define TNUM(v, m) ((struct tnum){ .value = (v), .mask = (m) })

/* Constructors. */
static inline struct tnum tnum_const(u64 v)
{
	return TNUM(v, 0);
}

static inline struct tnum tnum_unknown(void)
{
	return TNUM(0, ~(u64)0);
}

/* A tnum holding every x with min <= x <= max (and possibly more: it keeps the common high-bit
 * prefix of min and max and leaves the bits below it unknown, so range(0, 2) also holds 3). */
struct tnum tnum_range(u64 min, u64 max);

/* Predicates. */
static inline bool tnum_is_const(struct tnum a)
{
	return a.mask == 0;
}

static inline bool tnum_equals_const(struct tnum a, u64 v)
{
	return a.mask == 0 && a.value == v;
}

static inline bool tnum_is_unknown(struct tnum a)
{
	return a.mask == ~(u64)0;
}

/* True when value & mask == 0 (see the invariant above). */
static inline bool tnum_is_wellformed(struct tnum a)
{
	return (a.value & a.mask) == 0;
}

/* True when the concrete value x is in gamma(a). */
static inline bool tnum_contains(struct tnum a, u64 x)
{
	return (x & ~a.mask) == a.value;
}

/* True when every member of a is a multiple of size (size a power of two; 0 means "any"). */
bool tnum_is_aligned(struct tnum a, u64 size);

/* True when gamma(b) is a subset of gamma(a). */
bool tnum_in(struct tnum a, struct tnum b);

/* Shifts by a fixed amount.  Amounts >= 64 give the value a real shift by the whole width gives
 * (0 for lshift/rshift, the sign fill for arshift); BPF programs never get here with such amounts
 * because the verifier treats them as unknown. */
struct tnum tnum_lshift(struct tnum a, u8 shift);
struct tnum tnum_rshift(struct tnum a, u8 shift);
/* Arithmetic right shift of the low 'width' (32 or 64) bits; for width 32 the result is the 32-bit
 * result zero-extended (as a 32-bit ALU result is). */
struct tnum tnum_arshift(struct tnum a, u8 shift, u8 width);

/* Arithmetic (modulo 2^64) and bitwise operations. */
struct tnum tnum_add(struct tnum a, struct tnum b);
struct tnum tnum_sub(struct tnum a, struct tnum b);
struct tnum tnum_neg(struct tnum a);
struct tnum tnum_mul(struct tnum a, struct tnum b);
struct tnum tnum_and(struct tnum a, struct tnum b);
struct tnum tnum_or(struct tnum a, struct tnum b);
struct tnum tnum_xor(struct tnum a, struct tnum b);

/* Meet: a tnum for the values in both a and b.  If a and b contradict each other (a bit known 0 in
 * one and known 1 in the other) the true meet is empty; the result then has that bit known 1, as
 * the kernel's tnum_intersect does, and callers detect emptiness by other means. */
struct tnum tnum_intersect(struct tnum a, struct tnum b);

/* The smallest member of t above z; t's smallest if z is below it, its largest if z is not
 * below that (the kernel's tnum_step()). */
u64 tnum_step(struct tnum t, u64 z);

/* Join: the smallest tnum holding every value of a and every value of b. */
struct tnum tnum_union(struct tnum a, struct tnum b);

/* Width views. */
/* Keep the low 'size' bytes (1, 2, 4 or 8), the rest known 0 (zero extension). */
struct tnum tnum_cast(struct tnum a, u8 size);
/* Sign-extend the low 'size' bytes (1, 2 or 4; 8 is the identity) to 64 bits. */
struct tnum tnum_sext(struct tnum a, u8 size);
/* Byte swap of the low 'size' bytes (2, 4 or 8), upper bytes known 0.  Exact: a bit permutation. */
struct tnum tnum_bswap(struct tnum a, u8 size);

/* The low 32 bits (upper known 0). */
static inline struct tnum tnum_subreg(struct tnum a)
{
	return TNUM(a.value & 0xffffffffu, a.mask & 0xffffffffu);
}

/* The upper 32 bits, with the low 32 bits known 0. */
static inline struct tnum tnum_clear_subreg(struct tnum a)
{
	return TNUM(a.value & ~(u64)0xffffffffu, a.mask & ~(u64)0xffffffffu);
}

/* The upper 32 bits of hi with the low 32 bits of lo. */
static inline struct tnum tnum_with_subreg(struct tnum hi, struct tnum lo)
{
	return TNUM((hi.value & ~(u64)0xffffffffu) | (lo.value & 0xffffffffu),
		    (hi.mask & ~(u64)0xffffffffu) | (lo.mask & 0xffffffffu));
}

/* The upper 32 bits of a, with the low 32 bits the constant v. */
static inline struct tnum tnum_const_subreg(struct tnum a, u32 v)
{
	return tnum_with_subreg(a, tnum_const(v));
}

static inline bool tnum_subreg_is_const(struct tnum a)
{
	return (a.mask & 0xffffffffu) == 0;
}

/* Printers, with snprintf semantics: write at most size bytes including the NUL, return the length
 * the full text has.  tnum_snprint gives the kernel's "(0x<value>; 0x<mask>)" (lower-case hex, and
 * 0 printed as 0x0); tnum_sbin gives 64 characters, one per bit from bit 63 down: '0', '1' or
 * 'x'. */
int tnum_snprint(char *buf, size_t size, struct tnum a);
int tnum_sbin(char *buf, size_t size, struct tnum a);

#endif /* USERBPF_VERIFIER_TNUM_H */
