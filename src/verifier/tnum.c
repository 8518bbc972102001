/* Tristate numbers: the operations declared in tnum.h.
 *
 * Notation: a tnum (v; m) stands for { x : x & ~m == v }, with v & m == 0.  Every result below is
 * built to keep that invariant and to be sound (hold every concrete result).  The reasoning for
 * each operation is given next to it.  The semantics are those of the Linux verifier's tnums
 * (kernel/bpf/tnum.c); the code is an independent implementation.
 */
#include <inttypes.h>
#include <stdio.h>

#include "verifier/tnum.h"

/* Index of the highest set bit plus one (0 for 0). */
static unsigned int bit_length(u64 x)
{
	return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}

/* Low-bits mask with n ones, n in [0, 64]. */
static u64 low_ones(unsigned int n)
{
	return n >= 64 ? ~(u64)0 : ((u64)1 << n) - 1;
}

/* min and max agree on every bit above their highest differing bit; all of [min, max] shares that
 * prefix, and any bit below it can take either value within the range, so leave those unknown. */
struct tnum tnum_range(u64 min, u64 max)
{
	u64 unknown = low_ones(bit_length(min ^ max));

	return TNUM(min & ~unknown, unknown);
}

bool tnum_is_aligned(struct tnum a, u64 size)
{
	if (!size)
		return true;
	return ((a.value | a.mask) & (size - 1)) == 0;
}

/* b within a: b may only be unsure where a is, and must agree with a on a's known bits. */
bool tnum_in(struct tnum a, struct tnum b)
{
	if (b.mask & ~a.mask)
		return false;
	return (b.value & ~a.mask) == a.value;
}

/* A shift moves every bit, known or not, to a new position and brings in known zeros. */
struct tnum tnum_lshift(struct tnum a, u8 shift)
{
	if (shift >= 64)
		return tnum_const(0);
	return TNUM(a.value << shift, a.mask << shift);
}

struct tnum tnum_rshift(struct tnum a, u8 shift)
{
	if (shift >= 64)
		return tnum_const(0);
	return TNUM(a.value >> shift, a.mask >> shift);
}

/* Arithmetic shift of a 64-bit pattern, spelled out so it does not rely on the implementation-
 * defined behaviour of >> on negative signed integers. */
static u64 asr64(u64 x, unsigned int shift)
{
	u64 fill;

	if (shift >= 64)
		shift = 63;
	fill = (x >> 63) ? ~(~(u64)0 >> shift) : 0;
	return (x >> shift) | fill;
}

/* Shifting value and mask arithmetically copies the sign bit's state into the vacated bits: a
 * known 1 fills value with ones, an unknown sign fills mask with ones, a known 0 fills zeros. */
struct tnum tnum_arshift(struct tnum a, u8 shift, u8 width)
{
	if (width == 32) {
		u64 v = (u64)(s64)(s32)(u32)a.value;	/* sign-extend bit 31 */
		u64 m = (u64)(s64)(s32)(u32)a.mask;

		if (shift > 31)
			shift = 31;
		return TNUM(asr64(v, shift) & 0xffffffffu, asr64(m, shift) & 0xffffffffu);
	}
	return TNUM(asr64(a.value, shift), asr64(a.mask, shift));
}

/* Sum: the smallest possible sum is v_a + v_b (every unknown bit 0), the largest is
 * (v_a + m_a) + (v_b + m_b) (every unknown bit 1).  A bit of the sum can only vary if it differs
 * between those two extreme sums (a carry chain reaching it changed) or if an input bit at that
 * position is unknown; every other bit is the same in all sums and equals the low sum's bit. */
struct tnum tnum_add(struct tnum a, struct tnum b)
{
	u64 lo = a.value + b.value;
	u64 hi = lo + a.mask + b.mask;
	u64 unknown = (lo ^ hi) | a.mask | b.mask;

	return TNUM(lo & ~unknown, unknown);
}

/* Difference: the same argument with the extremes a_max - b_min and a_min - b_max, i.e. the
 * borrow chains of the largest and the smallest difference. */
struct tnum tnum_sub(struct tnum a, struct tnum b)
{
	u64 base = a.value - b.value;
	u64 hi = base + a.mask;
	u64 lo = base - b.mask;
	u64 unknown = (lo ^ hi) | a.mask | b.mask;

	return TNUM(base & ~unknown, unknown);
}

struct tnum tnum_neg(struct tnum a)
{
	return tnum_sub(tnum_const(0), a);
}

/* Product: write a = v_a + u_a where u_a is some submask of m_a.  Then
 *   a * b = v_a * v_b + sum over bits i of a of (bit i of a) * (b - v_b or b) << i
 * More precisely, for every bit i:
 *   - bit known 1 in a contributes v_b << i (folded into the exact product v_a * v_b) plus the
 *     unknown part of b shifted, which is some submask of m_b << i: the tnum (0; m_b << i);
 *   - bit unknown in a contributes either 0 or b << i, and both are submasks of
 *     (v_b | m_b) << i: the tnum (0; (v_b | m_b) << i);
 *   - bit known 0 contributes nothing.
 * Summing those tnums with tnum_add (sound) and then adding the exact v_a * v_b gives a sound
 * result.  This is the decomposition the kernel uses (see arXiv:2105.05398). */
struct tnum tnum_mul(struct tnum a, struct tnum b)
{
	struct tnum unsure = tnum_const(0);
	u64 bits = a.value | a.mask;

	for (unsigned int i = 0; i < 64 && (bits >> i); i++) {
		u64 bit = (u64)1 << i;

		if (a.value & bit)
			unsure = tnum_add(unsure, TNUM(0, b.mask << i));
		else if (a.mask & bit)
			unsure = tnum_add(unsure, TNUM(0, (b.value | b.mask) << i));
	}
	return tnum_add(tnum_const(a.value * b.value), unsure);
}

/* A bit of x & y is known 1 if both are known 1, known 0 if either is known 0. */
struct tnum tnum_and(struct tnum a, struct tnum b)
{
	u64 ones = a.value & b.value;
	u64 maybe = (a.value | a.mask) & (b.value | b.mask);

	return TNUM(ones, maybe & ~ones);
}

/* A bit of x | y is known 1 if either is known 1, known 0 if both are known 0. */
struct tnum tnum_or(struct tnum a, struct tnum b)
{
	u64 ones = a.value | b.value;

	return TNUM(ones, (a.mask | b.mask) & ~ones);
}

/* A bit of x ^ y is known exactly when it is known in both. */
struct tnum tnum_xor(struct tnum a, struct tnum b)
{
	u64 unknown = a.mask | b.mask;

	return TNUM((a.value ^ b.value) & ~unknown, unknown);
}

/* A bit of a value in both sets is known if either side knows it. */
struct tnum tnum_intersect(struct tnum a, struct tnum b)
{
	u64 unknown = a.mask & b.mask;

	return TNUM((a.value | b.value) & ~unknown, unknown);
}

/* A bit stays known only if both sides know it with the same value. */
struct tnum tnum_union(struct tnum a, struct tnum b)
{
	u64 unknown = a.mask | b.mask | (a.value ^ b.value);

	return TNUM(a.value & ~unknown, unknown);
}

struct tnum tnum_cast(struct tnum a, u8 size)
{
	u64 keep = size >= 8 ? ~(u64)0 : low_ones(8u * size);

	return TNUM(a.value & keep, a.mask & keep);
}

/* The bits above the width copy the state of the width's top bit. */
struct tnum tnum_sext(struct tnum a, u8 size)
{
	struct tnum low;
	u64 sign, upper;

	if (size >= 8)
		return a;
	low = tnum_cast(a, size);
	sign = (u64)1 << (8u * size - 1);
	upper = ~low_ones(8u * size);
	if (low.mask & sign)
		low.mask |= upper;
	else if (low.value & sign)
		low.value |= upper;
	return low;
}

struct tnum tnum_bswap(struct tnum a, u8 size)
{
	switch (size) {
	case 2:
		return TNUM(__builtin_bswap16((u16)a.value), __builtin_bswap16((u16)a.mask));
	case 4:
		return TNUM(__builtin_bswap32((u32)a.value), __builtin_bswap32((u32)a.mask));
	default:
		return TNUM(__builtin_bswap64(a.value), __builtin_bswap64(a.mask));
	}
}

int tnum_snprint(char *buf, size_t size, struct tnum a)
{
	return snprintf(buf, size, "(0x%" PRIx64 "; 0x%" PRIx64 ")", a.value, a.mask);
}

int tnum_sbin(char *buf, size_t size, struct tnum a)
{
	size_t n = size ? size - 1 : 0;

	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		u64 bit = (u64)1 << (63 - i);

		buf[i] = (a.mask & bit) ? 'x' : (a.value & bit) ? '1' : '0';
	}
	if (size)
		buf[n] = '\0';
	return 64;
}

/* The smallest member of t above z (t's smallest if z is below it; its largest, tmax, if z is
 * not below that): the kernel's tnum_step().  Members ordered as numbers are ordered as their
 * unknown bits are, so: the first member at or above z + 1, built from the top bit down, staying
 * equal to z + 1 while a fixed bit allows, and otherwise raising the lowest unknown bit above
 * that z + 1 has clear. */
u64 tnum_step(struct tnum t, u64 z)
{
	u64 tmax = t.value | t.mask, want, raise = 0;

	if (z >= tmax)
		return tmax;
	if (z < t.value)
		return t.value;
	want = z + 1;
	if ((want & ~t.mask) == t.value) /* z + 1 is a member (always, for an unknown tnum) */
		return want;
	for (int b = 63; b >= 0; b--) {
		u64 bit = (u64)1 << b, wb = want & bit, vb = t.value & bit;

		if (t.mask & bit) {
			if (!wb)
				raise = bit;
			continue;
		}
		if (vb == wb)
			continue;
		if (vb) /* a fixed 1 where z + 1 has 0: the rest as small as it goes */
			return (want & ~((bit << 1) - 1)) | bit | (t.value & (bit - 1));
		if (!raise) /* (cannot happen below tmax) */
			return tmax;
		return (want & ~((raise << 1) - 1)) | raise | (t.value & (raise - 1));
	}
	return want;
}
