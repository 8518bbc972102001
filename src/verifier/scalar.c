/* The scalar value domain: bounds synchronisation, ALU transfer functions, branch decisions and
 * refinement, and the kernel-format printer (declarations and the meaning of each field in
 * scalar.h).
 *
 * Algorithm.  Each operation computes every view it can (tnum, 64-bit signed/unsigned ranges,
 * 32-bit signed/unsigned ranges) independently and soundly, setting a view to "unbounded" when the
 * cheap argument for it fails (a possible overflow, a sign that cannot be tracked), and then calls
 * scalar_sync_bounds(), which lets the views narrow each other:
 *   1. ranges from var_off: the smallest/largest member of the tnum in each view;
 *   2. signed <-> unsigned of one width: when a range does not cross that width's sign boundary,
 *      the signed and unsigned orders agree on it, so the two ranges can be intersected;
 *   3. 32 <-> 64 (later kernels' mixed deduction): a 64-bit range inside one 2^32-aligned block
 *      bounds the low 32 bits; the 32-bit range moves the 64-bit ends to the next value whose low
 *      half lies in it;
 *   4. var_off from the unsigned ranges (tnum_range of each, intersected);
 *   5. step 1 again, since a narrower tnum can tighten the ranges.
 * Steps 2 and 3 run as three rounds of 64 -> 32, 32-bit, 64-bit, 32 -> 64, the kernel's order.
 * Each step only intersects a view with a superset of the values, so sync is sound, and it never
 * widens a view, with one exception copied from the kernel (end of deduce64_from32()), where
 * the order decides the result.  The ALU and branch rules are those of the Linux verifier (6.1),
 * generalised where noted; each function says why its result holds every concrete result.
 *
 * Differences from 6.1 (all sound, all more precise; later kernels made most of the same moves):
 *   - sync also deduces 32-bit ranges from 64-bit ones and back (step 3); 6.1 links the two
 *     widths only through var_off;
 *   - MUL/OR/XOR with a non-constant source are tracked (6.1 gives unknown); MUL bounds come from
 *     overflow-checked corner products (6.1: only non-negative operands up to 2^32 / 2^16);
 *   - NEG is 0 - x and BPF_END an exact byte swap (6.1: unknown); MOVSX and
 *     sdiv/smod (ISA v4, after 6.1) are handled (sdiv/smod as unknown, like div/mod);
 *   - branches refine register-register compares in both widths (6.1 only refines against a
 *     constant, plus JEQ/JNE register combination in 64-bit), JNE trims a range end equal to a
 *     constant, a JMP32 keeps the
 *     64-bit ranges and a 64-bit jump keeps the 32-bit ranges (6.1 resets them and re-derives),
 *     and a contradiction is reported as a dead path;
 *   - branch decisions use ranges and tnums of both operands (6.1: only against a constant, and
 *     JEQ/JNE only when both are constant);
 *   - JSET is 6.18's exactly: decided and refined only against a constant, from tnums alone
 *     (jset_refine()).  A finer JSET would accept programs the kernel rejects: it walks paths
 *     that a JSET alone makes dead.
 * The printer is exactly 6.1's.  Shifts by non-constant amounts and DIV/MOD give unknown, as in
 * the kernel.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verifier/scalar.h"

#define U32_MAX_ ((u32)~(u32)0)
#define U64_MAX_ (~(u64)0)
#define HI32 (~(u64)0xffffffffu)
#define BLOCK ((u64)1 << 32)

static inline u64 umin64(u64 a, u64 b) { return a < b ? a : b; }
static inline u64 umax64(u64 a, u64 b) { return a > b ? a : b; }
static inline s64 smin64(s64 a, s64 b) { return a < b ? a : b; }
static inline s64 smax64(s64 a, s64 b) { return a > b ? a : b; }
static inline u32 umin32(u32 a, u32 b) { return a < b ? a : b; }
static inline u32 umax32(u32 a, u32 b) { return a > b ? a : b; }
static inline s32 smin32(s32 a, s32 b) { return a < b ? a : b; }
static inline s32 smax32(s32 a, s32 b) { return a > b ? a : b; }

/* Arithmetic right shift without relying on implementation-defined >> of negative numbers. */
static s64 asr_s64(s64 x, unsigned int k)
{
	return x < 0 ? -(s64)((~(u64)x) >> k) - 1 : (s64)((u64)x >> k);
}

/* ---- constructors and predicates ---- */

void scalar_mark_unbounded64(struct scalar *s)
{
	s->smin = SCALAR_S64_MIN;
	s->smax = SCALAR_S64_MAX;
	s->umin = 0;
	s->umax = U64_MAX_;
}

void scalar_mark_unbounded32(struct scalar *s)
{
	s->s32_min = SCALAR_S32_MIN;
	s->s32_max = SCALAR_S32_MAX;
	s->u32_min = 0;
	s->u32_max = U32_MAX_;
}

struct scalar scalar_unknown(void)
{
	struct scalar s;

	s.var_off = tnum_unknown();
	scalar_mark_unbounded64(&s);
	scalar_mark_unbounded32(&s);
	return s;
}

struct scalar scalar_const(u64 v)
{
	struct scalar s;

	s.var_off = tnum_const(v);
	s.smin = s.smax = (s64)v;
	s.umin = s.umax = v;
	s.s32_min = s.s32_max = (s32)(u32)v;
	s.u32_min = s.u32_max = (u32)v;
	return s;
}

struct scalar scalar_urange(u64 lo, u64 hi)
{
	struct scalar s = scalar_unknown();

	s.umin = lo;
	s.umax = hi;
	scalar_sync_bounds(&s);
	return s;
}

struct scalar scalar_srange(s64 lo, s64 hi)
{
	struct scalar s = scalar_unknown();

	s.smin = lo;
	s.smax = hi;
	scalar_sync_bounds(&s);
	return s;
}

bool scalar_contains(const struct scalar *s, u64 x)
{
	return tnum_contains(s->var_off, x) && x >= s->umin && x <= s->umax &&
	       (s64)x >= s->smin && (s64)x <= s->smax && (u32)x >= s->u32_min &&
	       (u32)x <= s->u32_max && (s32)(u32)x >= s->s32_min && (s32)(u32)x <= s->s32_max;
}

bool scalar_is_valid(const struct scalar *s)
{
	struct tnum t = s->var_off, t32 = tnum_subreg(t);

	return tnum_is_wellformed(t) && s->smin <= s->smax && s->umin <= s->umax &&
	       s->s32_min <= s->s32_max && s->u32_min <= s->u32_max &&
	       t.value <= s->umax && (t.value | t.mask) >= s->umin &&
	       t32.value <= s->u32_max && (t32.value | t32.mask) >= s->u32_min;
}

/* ---- bounds synchronisation ---- */

/* The kernel's ___mark_reg_known() on the bounds and tnum. */
static void set_known(struct scalar *s, u64 v)
{
	*s = scalar_const(v);
}

/* Step 1: the smallest member of a tnum in the signed view has the sign bit set if it may be,
 * and every other unknown bit clear; the largest the opposite.  Unsigned: unknown bits all 0 for
 * the smallest, all 1 for the largest.  Then 6.18's rule (__update_reg64_bounds()): when the
 * unsigned range and the tnum seem to share one value, the register is that value; its second
 * case does not check the range's end, so a range and tnum sharing nothing (a dead branch) give
 * the tnum's largest member, as in the kernel. */
static void bounds_from_tnum(struct scalar *s)
{
	struct tnum t = s->var_off, t32 = tnum_subreg(t);
	u64 sign64 = (u64)1 << 63;
	u32 sign32 = (u32)1 << 31;

	s->smin = smax64(s->smin, (s64)(t.value | (t.mask & sign64)));
	s->smax = smin64(s->smax, (s64)(t.value | (t.mask & ~sign64)));
	s->umin = umax64(s->umin, t.value);
	s->umax = umin64(s->umax, t.value | t.mask);

	s->s32_min = smax32(s->s32_min, (s32)(u32)(t32.value | (t32.mask & sign32)));
	s->s32_max = smin32(s->s32_max, (s32)(u32)(t32.value | (t32.mask & ~sign32)));
	s->u32_min = umax32(s->u32_min, (u32)t32.value);
	s->u32_max = umin32(s->u32_max, (u32)(t32.value | t32.mask));

	u64 next = tnum_step(t, s->umin), tmax = t.value | t.mask;
	bool umin_in = (s->umin & ~t.mask) == t.value;

	if (umin_in && next > s->umax)
		set_known(s, s->umin);
	else if (!umin_in && next == tmax)
		set_known(s, tmax);
	else if (!umin_in && next <= s->umax && tnum_step(t, next) > s->umax)
		set_known(s, next);
}

/* Step 2 for the low 32 bits.  If the signed range stays on one side of zero, signed and
 * unsigned orders agree on it: intersect.  Otherwise, if the unsigned range lies entirely in the
 * non-negative half, the value is non-negative and the unsigned range is also a signed one (and
 * the signed maximum still bounds it); symmetrically for the negative half.  Last, the case
 * deduce64() explains, for 32 bits (6.18.44 has it: a 2026 stable backport): a signed range
 * across zero that the unsigned range meets in one piece only. */
static void deduce32(struct scalar *s)
{
	if (s->s32_min >= 0 || s->s32_max < 0) {
		u32 lo = umax32((u32)s->s32_min, s->u32_min);
		u32 hi = umin32((u32)s->s32_max, s->u32_max);

		s->u32_min = lo;
		s->s32_min = (s32)lo;
		s->u32_max = hi;
		s->s32_max = (s32)hi;
	} else if ((s32)s->u32_max >= 0) {
		s->u32_max = umin32(s->u32_max, (u32)s->s32_max);
		s->s32_min = (s32)s->u32_min;
		s->s32_max = (s32)s->u32_max;
	} else if ((s32)s->u32_min < 0) {
		s->u32_min = umax32(s->u32_min, (u32)s->s32_min);
		s->s32_min = (s32)s->u32_min;
		s->s32_max = (s32)s->u32_max;
	} else if ((u32)s->s32_max < s->u32_min) { /* only the negative piece */
		s->u32_min = umax32(s->u32_min, (u32)s->s32_min);
		s->s32_max = (s32)s->u32_max;
	} else if (s->u32_max < (u32)s->s32_min) { /* only the non-negative piece */
		s->u32_max = umin32(s->u32_max, (u32)s->s32_max);
		s->s32_min = (s32)s->u32_min;
	}
}

/* Step 2 for the whole register: the same argument with 64-bit ranges, and one more case (as
 * 6.18): the signed range crosses zero, so in unsigned order it is two pieces,
 * [0, smax] and [smin, U64_MAX]; an unsigned range that crosses 2^63 but lies wholly above the
 * first piece, or wholly below the second, meets only the other one. */
static void deduce64(struct scalar *s)
{
	if (s->smin >= 0 || s->smax < 0) {
		u64 lo = umax64((u64)s->smin, s->umin);
		u64 hi = umin64((u64)s->smax, s->umax);

		s->umin = lo;
		s->smin = (s64)lo;
		s->umax = hi;
		s->smax = (s64)hi;
	} else if ((s64)s->umax >= 0) {
		s->umax = umin64(s->umax, (u64)s->smax);
		s->smin = (s64)s->umin;
		s->smax = (s64)s->umax;
	} else if ((s64)s->umin < 0) {
		s->umin = umax64(s->umin, (u64)s->smin);
		s->smin = (s64)s->umin;
		s->smax = (s64)s->umax;
	} else if ((u64)s->smax < s->umin) { /* only the negative piece */
		s->umin = umax64(s->umin, (u64)s->smin);
		s->smax = (s64)s->umax;
	} else if (s->umax < (u64)s->smin) { /* only the non-negative piece */
		s->umax = umin64(s->umax, (u64)s->smax);
		s->smin = (s64)s->umin;
	}
}

/* Step 3a: [lo, hi] are bit patterns of the ends of a 64-bit range, in an order (unsigned, or
 * signed) in which every 2^32-aligned block is contiguous and ordered by its low 32 bits.  If
 * both ends are in the same block, so is every value between them, and the low halves run from
 * lo's to hi's: that bounds u32, and s32 too unless that run crosses 0x7fffffff -> 0x80000000. */
static void deduce32_from_block(struct scalar *s, u64 lo, u64 hi)
{
	/* Ends in adjacent blocks (0xffffffff.. to 0x0.. included), lo's low half negative and
	 * hi's non-negative: the low halves run up from lo's through -1, 0 to hi's, one s32 run. */
	if ((u32)((lo >> 32) + 1) == (u32)(hi >> 32) && (s32)(u32)lo < 0 && (s32)(u32)hi >= 0) {
		s->s32_min = smax32(s->s32_min, (s32)(u32)lo);
		s->s32_max = smin32(s->s32_max, (s32)(u32)hi);
		return;
	}
	if ((lo & HI32) != (hi & HI32))
		return;
	s->u32_min = umax32(s->u32_min, (u32)lo);
	s->u32_max = umin32(s->u32_max, (u32)hi);
	if ((s32)(u32)lo <= (s32)(u32)hi) {
		s->s32_min = smax32(s->s32_min, (s32)(u32)lo);
		s->s32_max = smin32(s->s32_max, (s32)(u32)hi);
	}
}

/* Step 3b: min with its low half raised to lo32 when below it, within min's 2^32 block (the
 * kernel's __reg_deduce_mixed_bounds(): a low half above the range would move min to the next
 * block, which 6.18 does not do). */
static u64 raise_to_subrange(u64 min, u32 lo32)
{
	return (u32)min < lo32 ? (min & HI32) | lo32 : min;
}

static u64 lower_to_subrange(u64 max, u32 hi32)
{
	return (u32)max > hi32 ? (max & HI32) | hi32 : max;
}

/* Step 3a for both orders: unsigned, then signed (blocks by arithmetic >> 32). */
static void deduce32_from64(struct scalar *s)
{
	deduce32_from_block(s, s->umin, s->umax);
	deduce32_from_block(s, (u64)s->smin, (u64)s->smax);
}

/* Step 3b, 32 -> 64. */
static void deduce64_from32(struct scalar *s)
{
	if (s->u32_min <= s->u32_max) {
		s->umin = raise_to_subrange(s->umin, s->u32_min);
		s->umax = lower_to_subrange(s->umax, s->u32_max);
		s->smin = (s64)raise_to_subrange((u64)s->smin, s->u32_min);
		s->smax = (s64)lower_to_subrange((u64)s->smax, s->u32_max);
	}

	/* Later kernels' case for sign-extending loads: a value in [S32_MIN, S32_MAX] whose low
	 * half is a non-negative s32 has its upper half 0 (all ones would put it below S32_MIN),
	 * so it is that low half.  The kernel assigns the s32 range to the 64-bit ranges instead of
	 * intersecting, which drops a tighter 64-bit range (6.18 keeps [0, 5] for a value whose
	 * 64-bit ranges say 0); done alike, since verdicts depend on it. */
	if (s->s32_min >= 0 && s->smin >= SCALAR_S32_MIN && s->smax <= SCALAR_S32_MAX) {
		s->smin = s->s32_min;
		s->smax = s->s32_max;
		s->umin = (u64)s->s32_min;
		s->umax = (u64)s->s32_max;
		s->var_off = tnum_intersect(s->var_off, tnum_range(s->umin, s->umax));
	}
}

/* Step 4: the unsigned ranges as tnums, intersected with var_off (64-bit) and with its low half
 * (32-bit). */
static void tnum_from_bounds(struct scalar *s)
{
	struct tnum t64 = tnum_intersect(s->var_off, tnum_range(s->umin, s->umax));
	struct tnum t32 = tnum_intersect(tnum_subreg(t64), tnum_range(s->u32_min, s->u32_max));

	s->var_off = tnum_with_subreg(t64, t32);
}

/* Steps 2 and 3 in the kernel's order (64 -> 32, 32-bit, 64-bit, 32 -> 64), three rounds as
 * there: with the assignment at the end of deduce64_from32(), which can widen, the order
 * decides the result.  A round is a function of the state, so one that changes nothing ends
 * the rounds early with the same result. */
void scalar_sync_bounds(struct scalar *s)
{
	bounds_from_tnum(s);
	for (int round = 0; round < 3; round++) {
		struct scalar before = *s;

		deduce32_from64(s);
		deduce32(s);
		deduce64(s);
		deduce64_from32(s);
		if (!memcmp(&before, s, sizeof(before)))
			break;
	}
	tnum_from_bounds(s);
	bounds_from_tnum(s);
}

/* ---- width changes ---- */

/* The low 32 bits are unchanged, so the 32-bit views stay; the value is now (u32)x, so its
 * 64-bit unsigned range is the u32 range, and its signed range too when that is non-negative as
 * a signed 32-bit range (otherwise [0, U32_MAX], refined by sync). */
void scalar_zext32(struct scalar *s)
{
	s->var_off = tnum_subreg(s->var_off);
	s->umin = s->u32_min;
	s->umax = s->u32_max;
	if (s->s32_min >= 0) {
		s->smin = s->s32_min;
		s->smax = s->s32_max;
	} else {
		s->smin = 0;
		s->smax = U32_MAX_;
	}
	scalar_sync_bounds(s);
}

/* Low bits of a range: if lo and hi agree above the low 'bits' bits, all values between them do
 * and their low parts run from lo's to hi's; otherwise the low part can be anything. */
static void low_part_range(u64 lo, u64 hi, unsigned int bits, u64 *plo, u64 *phi)
{
	u64 m = bits >= 64 ? U64_MAX_ : ((u64)1 << bits) - 1;

	if ((lo & ~m) == (hi & ~m)) {
		*plo = lo & m;
		*phi = hi & m;
	} else {
		*plo = 0;
		*phi = m;
	}
}

void scalar_trunc(struct scalar *s, int size)
{
	unsigned int bits = 8u * (unsigned int)size;
	u64 lo, hi, lo32, hi32;

	if (size >= 8)
		return;
	s->var_off = tnum_cast(s->var_off, (u8)size);
	low_part_range(s->umin, s->umax, bits, &lo, &hi);
	if (size < 4) {
		low_part_range(s->u32_min, s->u32_max, bits, &lo32, &hi32);
		lo = umax64(lo, lo32);
		hi = umin64(hi, hi32);
		/* the low 32 bits are the (small, non-negative) value itself */
		s->u32_min = (u32)lo;
		s->u32_max = (u32)hi;
		s->s32_min = (s32)lo;
		s->s32_max = (s32)hi;
	}
	/* size 4 keeps the 32-bit views: the low 32 bits do not change */
	s->umin = lo;
	s->umax = hi;
	s->smin = (s64)lo;
	s->smax = (s64)hi;
	scalar_sync_bounds(s);
}

/* Sign extension of the low 8*size bits, by the kernel's rule (coerce_reg_to_size_sx), looser
 * than what the tnum alone allows but kept for identical verdicts and logs: a constant stays
 * exact; if the signed range lies in one 2^bits block and its two ends extend to values of one
 * sign, the result is that range (its tnum rebuilt from the range, unsigned and 32-bit views the
 * same numbers); otherwise it is anything of the narrow signed type. */
static s64 sext_bits(u64 v, unsigned int bits)
{
	u64 sign = (u64)1 << (bits - 1);

	v &= (sign << 1) - 1;
	return (s64)((v ^ sign) - sign);
}

static void sext_default(struct scalar *s, unsigned int bits, bool w32)
{
	s64 hi = (s64)(((u64)1 << (bits - 1)) - 1), lo = -hi - 1;

	s->s32_min = (s32)lo;
	s->s32_max = (s32)hi;
	s->u32_min = 0;
	s->u32_max = U32_MAX_;
	if (w32) {
		s->var_off = tnum_subreg(tnum_unknown());
		return;
	}
	s->smin = lo;
	s->smax = hi;
	s->umin = 0;
	s->umax = U64_MAX_;
	s->var_off = tnum_unknown();
}

/* The kernel's rule for a signed range [smin, smax] (as bit patterns of either width): if both
 * ends are in one 2^bits block and extend to values of one sign, those values, in order. */
static bool sext_range(u64 smin, u64 smax, unsigned int bits, s64 *lo, s64 *hi)
{
	s64 a, b;

	if ((smax >> bits) != (smin >> bits))
		return false;
	a = sext_bits(smin, bits);
	b = sext_bits(smax, bits);
	*lo = a < b ? a : b;
	*hi = a < b ? b : a;
	return (*lo >= 0) == (*hi >= 0);
}

void scalar_sext(struct scalar *s, int size)
{
	unsigned int bits = 8u * (unsigned int)size;
	s64 lo, hi;

	if (size >= 8)
		return;
	if (tnum_is_const(s->var_off)) {
		*s = scalar_const((u64)sext_bits(s->var_off.value, bits));
		return;
	}
	if (!sext_range((u64)s->smin, (u64)s->smax, bits, &lo, &hi)) {
		s64 top = (s64)(((u64)1 << (bits - 1)) - 1);

		/* As 6.18: where the low half's signed range fits the narrow type, the extension
		 * leaves the low half as it is and copies its sign up, so the value is
		 * (s64)(s32)low: the s32 range, and the 32-bit views stay.  (The kernel starts
		 * var_off over, and so does this.) */
		if (s->s32_min >= -top - 1 && s->s32_max <= top) {
			s->smin = s->s32_min;
			s->smax = s->s32_max;
			s->umin = 0;
			s->umax = U64_MAX_;
			s->var_off = tnum_unknown();
			scalar_sync_bounds(s);
			return;
		}
		sext_default(s, bits, false);
		return;
	}
	s->smin = lo;
	s->smax = hi;
	s->umin = (u64)lo;
	s->umax = (u64)hi;
	s->s32_min = (s32)lo;
	s->s32_max = (s32)hi;
	s->u32_min = (u32)lo;
	s->u32_max = (u32)hi;
	s->var_off = tnum_range((u64)lo, (u64)hi);
}

/* The same within the low 32 bits (w = (s8/s16)w, the kernel's coerce_subreg_to_size_sx); the
 * caller zero-extends. */
void scalar_sext32(struct scalar *s, int size)
{
	unsigned int bits = 8u * (unsigned int)size;
	s64 lo, hi;

	if (tnum_is_const(s->var_off)) {
		s32 v = (s32)sext_bits(s->var_off.value, bits);

		s->var_off = tnum_const((u64)(s64)v);
		s->s32_min = s->s32_max = v;
		s->u32_min = s->u32_max = (u32)v;
		return;
	}
	if (!sext_range((u32)s->s32_min, (u32)s->s32_max, bits, &lo, &hi)) {
		sext_default(s, bits, true);
		return;
	}
	s->s32_min = (s32)lo;
	s->s32_max = (s32)hi;
	s->u32_min = (u32)lo;
	s->u32_max = (u32)hi;
	s->var_off = tnum_subreg(tnum_range((u64)lo, (u64)hi));
}

/* ---- ALU ---- */

/* A view of one width: the unsigned and signed ranges, held in 64-bit variables (a 32-bit view's
 * values are zero-/sign-extended), and the width's limits. */
struct view {
	u64 umin, umax;
	s64 smin, smax;
	struct tnum t;
	unsigned int bits;
};

static u64 view_umax(unsigned int bits)
{
	return bits == 64 ? U64_MAX_ : U32_MAX_;
}

static s64 view_smax(unsigned int bits)
{
	return bits == 64 ? SCALAR_S64_MAX : SCALAR_S32_MAX;
}

static s64 view_smin(unsigned int bits)
{
	return bits == 64 ? SCALAR_S64_MIN : SCALAR_S32_MIN;
}

static struct view get_view(const struct scalar *s, unsigned int bits)
{
	struct view v;

	v.bits = bits;
	if (bits == 64) {
		v.umin = s->umin;
		v.umax = s->umax;
		v.smin = s->smin;
		v.smax = s->smax;
		v.t = s->var_off;
	} else {
		v.umin = s->u32_min;
		v.umax = s->u32_max;
		v.smin = s->s32_min;
		v.smax = s->s32_max;
		v.t = tnum_subreg(s->var_off);
	}
	return v;
}

/* Writes the ranges (and, if with_tnum, the tnum) of a view back. */
static void put_view(struct scalar *s, const struct view *v, bool with_tnum)
{
	if (v->bits == 64) {
		s->umin = v->umin;
		s->umax = v->umax;
		s->smin = v->smin;
		s->smax = v->smax;
		if (with_tnum)
			s->var_off = v->t;
	} else {
		s->u32_min = (u32)v->umin;
		s->u32_max = (u32)v->umax;
		s->s32_min = (s32)v->smin;
		s->s32_max = (s32)v->smax;
		if (with_tnum)
			s->var_off = tnum_with_subreg(s->var_off, v->t);
	}
}

static void view_unbound_u(struct view *v)
{
	v->umin = 0;
	v->umax = view_umax(v->bits);
}

static void view_unbound_s(struct view *v)
{
	v->smin = view_smin(v->bits);
	v->smax = view_smax(v->bits);
}

/* Overflow tests in a view's width.  32-bit operands, held in 64-bit variables, cannot overflow
 * 64-bit arithmetic for +, - and *; the result is then checked against the 32-bit limits. */
static bool u_add(const struct view *v, u64 a, u64 b, u64 *r)
{
	if (v->bits == 64)
		return __builtin_add_overflow(a, b, r);
	*r = a + b;
	return *r > U32_MAX_;
}

static bool u_mul(const struct view *v, u64 a, u64 b, u64 *r)
{
	if (v->bits == 64)
		return __builtin_mul_overflow(a, b, r);
	*r = a * b;
	return *r > U32_MAX_;
}

static bool s_fits(const struct view *v, s64 r)
{
	return v->bits == 64 || (r >= SCALAR_S32_MIN && r <= SCALAR_S32_MAX);
}

static bool s_add(const struct view *v, s64 a, s64 b, s64 *r)
{
	if (v->bits == 64)
		return __builtin_add_overflow(a, b, r);
	*r = a + b;
	return !s_fits(v, *r);
}

static bool s_sub(const struct view *v, s64 a, s64 b, s64 *r)
{
	if (v->bits == 64)
		return __builtin_sub_overflow(a, b, r);
	*r = a - b;
	return !s_fits(v, *r);
}

static bool s_mul(const struct view *v, s64 a, s64 b, s64 *r)
{
	if (v->bits == 64)
		return __builtin_mul_overflow(a, b, r);
	*r = a * b;
	return !s_fits(v, *r);
}

/* The low bits of a view's width (an unsigned result that wrapped). */
static u64 view_wrap(const struct view *v, u64 x)
{
	return v->bits == 64 ? x : (u32)x;
}

/* x + y: sums are monotone in both operands, so if both extreme sums wrap, or neither does,
 * every sum wraps alike and the extremes (wrapped) bound them (6.18); if only the largest wraps
 * the sums straddle the wrap and nothing is known. */
static void range_add(struct view *d, const struct view *s)
{
	u64 ulo, uhi;
	s64 slo, shi;
	bool lo_wraps = u_add(d, d->umin, s->umin, &ulo);
	bool hi_wraps = u_add(d, d->umax, s->umax, &uhi);

	if (!lo_wraps && hi_wraps) {
		view_unbound_u(d);
	} else {
		d->umin = view_wrap(d, ulo);
		d->umax = view_wrap(d, uhi);
	}
	if (s_add(d, d->smin, s->smin, &slo) || s_add(d, d->smax, s->smax, &shi)) {
		view_unbound_s(d);
	} else {
		d->smin = slo;
		d->smax = shi;
	}
}

/* x - y: the extremes are min - max and max - min; as for +, the range survives when both
 * wrap below 0 or neither does (6.18), not when only the smallest does. */
static void range_sub(struct view *d, const struct view *s)
{
	s64 slo, shi;
	bool lo_wraps = d->umin < s->umax, hi_wraps = d->umax < s->umin;

	if (lo_wraps && !hi_wraps) {
		view_unbound_u(d);
	} else {
		u64 lo = d->umin - s->umax, hi = d->umax - s->umin;

		d->umin = view_wrap(d, lo);
		d->umax = view_wrap(d, hi);
	}
	if (s_sub(d, d->smin, s->smax, &slo) || s_sub(d, d->smax, s->smin, &shi)) {
		view_unbound_s(d);
	} else {
		d->smin = slo;
		d->smax = shi;
	}
}

/* x * y.  Unsigned: products are monotone in both operands, so if the largest does not wrap none
 * does.  Signed: a product over two intervals takes its extremes at the corners; if no corner
 * wraps, no product does (each product lies between corner products), so the corners bound it. */
static void range_mul(struct view *d, const struct view *s)
{
	u64 ulo, uhi;
	s64 c[4];

	if (u_mul(d, d->umax, s->umax, &uhi)) {
		view_unbound_u(d);
	} else {
		u_mul(d, d->umin, s->umin, &ulo);
		d->umin = ulo;
		d->umax = uhi;
	}
	if (s_mul(d, d->smin, s->smin, &c[0]) || s_mul(d, d->smin, s->smax, &c[1]) ||
	    s_mul(d, d->smax, s->smin, &c[2]) || s_mul(d, d->smax, s->smax, &c[3])) {
		view_unbound_s(d);
	} else {
		d->smin = smin64(smin64(c[0], c[1]), smin64(c[2], c[3]));
		d->smax = smax64(smax64(c[0], c[1]), smax64(c[2], c[3]));
	}
}

/* The bitwise ops take the result tnum (r) of the view's width.  x & y is at least the bits known
 * 1 in both and at most either operand; x | y at least either operand and at most all possible
 * bits; x ^ y is bounded by its tnum.  On non-negative operands the results are non-negative, so
 * the unsigned range is also the signed one; otherwise the signed range comes from sync. */
static void range_bitwise(struct view *d, const struct view *s, u8 op, struct tnum r)
{
	bool nonneg = d->smin >= 0 && s->smin >= 0;

	switch (op) {
	case BPF_AND:
		d->umin = r.value;
		d->umax = umin64(d->umax, s->umax);
		break;
	case BPF_OR:
		d->umin = umax64(d->umin, s->umin);
		d->umax = r.value | r.mask;
		break;
	default:
		d->umin = r.value;
		d->umax = r.value | r.mask;
		break;
	}
	if (nonneg) {
		d->smin = (s64)d->umin;
		d->smax = (s64)d->umax;
	} else {
		view_unbound_s(d);
	}
}

/* Applies a binary range rule to one width of dst. */
static void range_op(struct scalar *dst, const struct scalar *src, u8 op, unsigned int bits,
		     struct tnum result)
{
	struct view d = get_view(dst, bits), s = get_view(src, bits);

	switch (op) {
	case BPF_ADD:
		range_add(&d, &s);
		break;
	case BPF_SUB:
		range_sub(&d, &s);
		break;
	case BPF_MUL:
		range_mul(&d, &s);
		break;
	default:
		range_bitwise(&d, &s, op, bits == 64 ? result : tnum_subreg(result));
		break;
	}
	put_view(dst, &d, false);
}

static struct tnum tnum_binop(u8 op, struct tnum a, struct tnum b)
{
	switch (op) {
	case BPF_ADD:
		return tnum_add(a, b);
	case BPF_SUB:
		return tnum_sub(a, b);
	case BPF_MUL:
		return tnum_mul(a, b);
	case BPF_AND:
		return tnum_and(a, b);
	case BPF_OR:
		return tnum_or(a, b);
	default:
		return tnum_xor(a, b);
	}
}

/* ADD SUB MUL AND OR XOR: the low 32 bits of the 64-bit result are the 32-bit result, so both
 * widths are computed in either form (ALU32 then zero-extends). */
static void alu_arith(struct scalar *dst, const struct scalar *src, u8 op, bool alu32)
{
	struct tnum t = tnum_binop(op, dst->var_off, src->var_off);

	range_op(dst, src, op, 32, t);
	range_op(dst, src, op, 64, t);
	dst->var_off = t;
	if (alu32)
		scalar_zext32(dst);
	else
		scalar_sync_bounds(dst);
}

/* x << k, k constant and below the width, with the kernel's own (looser) rule so that verdicts
 * match: the unsigned range shifts only while max <= 2^(bits-1-k); the signed range is dropped,
 * except for a 64-bit shift by 32 (compilers' sign-extension idiom), which is the low half's
 * signed range times 2^32.  What the tnum knows is recovered by the sync that follows. */
static void shift_left(struct view *v, unsigned int k, const struct scalar *orig)
{
	if (k >= v->bits || v->umax > ((u64)1 << (v->bits - 1 - k))) {
		view_unbound_u(v);
	} else {
		v->umin <<= k;
		v->umax <<= k;
	}
	if (v->bits == 64 && k == 32) {
		v->smin = (s64)orig->s32_min * ((s64)1 << 32);
		v->smax = (s64)orig->s32_max * ((s64)1 << 32);
	} else {
		view_unbound_s(v);
	}
}

/* LSH RSH ARSH by a constant k below the width (checked by the caller). */
static void alu_shift(struct scalar *dst, u8 op, unsigned int k, bool alu32)
{
	struct scalar orig = *dst;
	struct view v64 = get_view(dst, 64), v32 = get_view(dst, 32);

	switch (op) {
	case BPF_LSH:
		shift_left(&v32, k, &orig);
		if (alu32) {
			dst->var_off = tnum_subreg(tnum_lshift(tnum_subreg(dst->var_off), (u8)k));
		} else {
			shift_left(&v64, k, &orig);
			dst->var_off = tnum_lshift(dst->var_off, (u8)k);
		}
		break;
	case BPF_RSH:
		/* Logical shift is monotone on unsigned values; the signed view is rebuilt by
		 * sync (the sign bit becomes 0 unless k == 0).  A 64-bit shift moves upper
		 * bits into the low half: that view comes from the tnum. */
		if (alu32) {
			v32.umin >>= k;
			v32.umax >>= k;
			view_unbound_s(&v32);
			dst->var_off = tnum_rshift(tnum_subreg(dst->var_off), (u8)k);
		} else {
			v64.umin >>= k;
			v64.umax >>= k;
			view_unbound_s(&v64);
			view_unbound_u(&v32);
			view_unbound_s(&v32);
			dst->var_off = tnum_rshift(dst->var_off, (u8)k);
		}
		break;
	default: /* BPF_ARSH: arithmetic shift is monotone on signed values */
		if (alu32) {
			v32.smin = asr_s64(v32.smin, k);
			v32.smax = asr_s64(v32.smax, k);
			view_unbound_u(&v32);
			dst->var_off = tnum_arshift(tnum_subreg(dst->var_off), (u8)k, 32);
		} else {
			v64.smin = asr_s64(v64.smin, k);
			v64.smax = asr_s64(v64.smax, k);
			view_unbound_u(&v64);
			view_unbound_u(&v32);
			view_unbound_s(&v32);
			dst->var_off = tnum_arshift(dst->var_off, (u8)k, 64);
		}
		break;
	}
	put_view(dst, &v32, false);
	if (alu32) {
		scalar_zext32(dst);
	} else {
		put_view(dst, &v64, false);
		scalar_sync_bounds(dst);
	}
}

/* An operation the domain does not track.  Even a 32-bit one leaves all 64 bits unknown: the
 * kernel gives up before its zero-extension, and matching it keeps the verdicts identical
 * (sound either way: unknown holds every value). */
static void set_unknown(struct scalar *dst, bool alu32)
{
	(void)alu32;
	*dst = scalar_unknown();
}

bool scalar_alu(struct scalar *dst, const struct scalar *src_in, u8 op, s16 off, bool alu32)
{
	struct scalar src = *src_in;	/* dst and src may be the same register */
	unsigned int width = alu32 ? 32 : 64;

	switch (op) {
	case BPF_MOV:
		if (off == 0) {
			*dst = src;
		} else if (alu32 && (off == 8 || off == 16)) {
			*dst = src;
			scalar_sext32(dst, off / 8);
		} else if (!alu32 && (off == 8 || off == 16 || off == 32)) {
			*dst = src;
			scalar_sext(dst, off / 8);
		} else {
			set_unknown(dst, alu32);
			return false;
		}
		if (alu32)
			scalar_zext32(dst);
		return true;
	case BPF_NEG: {
		struct scalar zero = scalar_const(0);

		if (off != 0) {
			set_unknown(dst, alu32);
			return false;
		}
		alu_arith(&zero, dst, BPF_SUB, alu32);
		*dst = zero;
		return true;
	}
	case BPF_DIV:
	case BPF_MOD:
		/* The kernel does not track division; neither do we (sound: anything). */
		set_unknown(dst, alu32);
		return off == 0 || off == 1;
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		break;
	default:
		set_unknown(dst, alu32);
		return false;
	}
	if (off != 0) {
		set_unknown(dst, alu32);
		return false;
	}
	/* An empty source (a dead path's leftovers) taints the result, as in the kernel. */
	if (!scalar_is_valid(&src)) {
		set_unknown(dst, alu32);
		return true;
	}
	if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) {
		struct tnum amt = alu32 ? tnum_subreg(src.var_off) : src.var_off;

		/* Only shifts by a known, in-range amount are tracked (as in the kernel).  The
		 * kernel bounds the whole register, also for a 32-bit shift: a source whose low
		 * half is a small constant but whose high half is not zero leaves dst unknown. */
		if (!tnum_is_const(amt) || amt.value >= width || src.umax >= width)
			set_unknown(dst, alu32);
		else
			alu_shift(dst, op, (unsigned int)amt.value, alu32);
		return true;
	}
	alu_arith(dst, &src, op, alu32);
	return true;
}

/* BPF_END.  A byte swap permutes bits, so the swapped tnum is exact; ranges come from it.
 * Converting to the host's own byte order only truncates to the width. */
void scalar_end(struct scalar *dst, int width, int kind)
{
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	bool swap = kind == SCALAR_BSWAP || (kind == BPF_TO_BE) != host_be;
	int size = width / 8;

	if (size != 2 && size != 4 && size != 8) {
		*dst = scalar_unknown();
		return;
	}
	if (!swap) {
		scalar_trunc(dst, size);
		return;
	}
	dst->var_off = tnum_bswap(dst->var_off, (u8)size);
	scalar_mark_unbounded64(dst);
	scalar_mark_unbounded32(dst);
	scalar_sync_bounds(dst);
}

/* ---- branches ---- */

/* Internal condition codes after normalisation: negation for the not-taken side and swapping
 * operands turn every jump into one of these, with "a OP b". */
enum cond { C_EQ, C_NE, C_GT, C_GE, C_SGT, C_SGE, C_SET, C_NSET, C_BAD };

/* Maps (op, taken) to a condition on (a, b); *swapped says whether (a, b) is (src, dst) rather
 * than (dst, src). */
static enum cond normalise(u8 op, bool taken, bool *swapped)
{
	*swapped = false;
	if (!taken) {
		switch (op) {
		case BPF_JEQ: op = BPF_JNE; break;
		case BPF_JNE: op = BPF_JEQ; break;
		case BPF_JGT: op = BPF_JLE; break;
		case BPF_JLE: op = BPF_JGT; break;
		case BPF_JGE: op = BPF_JLT; break;
		case BPF_JLT: op = BPF_JGE; break;
		case BPF_JSGT: op = BPF_JSLE; break;
		case BPF_JSLE: op = BPF_JSGT; break;
		case BPF_JSGE: op = BPF_JSLT; break;
		case BPF_JSLT: op = BPF_JSGE; break;
		case BPF_JSET: return C_NSET;
		default: return C_BAD;
		}
	}
	switch (op) {
	case BPF_JEQ: return C_EQ;
	case BPF_JNE: return C_NE;
	case BPF_JGT: return C_GT;
	case BPF_JGE: return C_GE;
	case BPF_JSGT: return C_SGT;
	case BPF_JSGE: return C_SGE;
	case BPF_JSET: return C_SET;
	case BPF_JLT: *swapped = true; return C_GT;
	case BPF_JLE: *swapped = true; return C_GE;
	case BPF_JSLT: *swapped = true; return C_SGT;
	case BPF_JSLE: *swapped = true; return C_SGE;
	default: return C_BAD;
	}
}

/* Is "a c b" true for all pairs (1), none (0), or does it depend (-1)? */
static int decide(const struct view *a, const struct view *b, enum cond c)
{
	switch (c) {
	case C_EQ:
	case C_NE: {
		int eq = -1;

		if (tnum_is_const(a->t) && tnum_is_const(b->t))
			eq = a->t.value == b->t.value;
		else if (a->umin > b->umax || a->umax < b->umin || a->smin > b->smax ||
			 a->smax < b->smin ||
			 ((a->t.value ^ b->t.value) & ~(a->t.mask | b->t.mask)))
			eq = 0;
		return eq < 0 ? -1 : c == C_EQ ? eq : !eq;
	}
	case C_GT:
		return a->umin > b->umax ? 1 : a->umax <= b->umin ? 0 : -1;
	case C_GE:
		return a->umin >= b->umax ? 1 : a->umax < b->umin ? 0 : -1;
	case C_SGT:
		return a->smin > b->smax ? 1 : a->smax <= b->smin ? 0 : -1;
	case C_SGE:
		return a->smin >= b->smax ? 1 : a->smax < b->smin ? 0 : -1;
	default:
		return -1;
	}
}

/* JSET as the kernel treats it: only against a constant (either side), and only from tnums.
 * *k gets the constant, *r the other side's (sub)register tnum; false without a constant. */
static bool jset_operands(const struct scalar *dst, const struct scalar *src, bool jmp32,
			  const struct scalar **r, u64 *k)
{
	struct tnum ts = jmp32 ? tnum_subreg(src->var_off) : src->var_off;
	struct tnum td = jmp32 ? tnum_subreg(dst->var_off) : dst->var_off;

	if (tnum_is_const(ts)) {
		*r = dst;
		*k = ts.value;
	} else if (tnum_is_const(td)) {
		*r = src;
		*k = td.value;
	} else {
		return false;
	}
	return true;
}

static int jset_taken(const struct scalar *dst, const struct scalar *src, bool jmp32)
{
	const struct scalar *r;
	struct tnum t;
	u64 k;

	if (!jset_operands(dst, src, jmp32, &r, &k))
		return -1;
	t = jmp32 ? tnum_subreg(r->var_off) : r->var_off;
	if (t.value & k)
		return 1;
	return (t.value | t.mask) & k ? -1 : 0;
}

/* The kernel's refinement after JSET (regs_refine_cond_op()): taken, a single-bit constant's
 * bit is set in the other side; not taken, the constant's bits are clear in it, and its ranges
 * are first forgotten (rebuilt from the tnum), so a dead branch stays consistent and is
 * walked, as the kernel walks it. */
static void jset_refine(struct scalar *dst, struct scalar *src, bool jmp32, bool taken)
{
	const struct scalar *cr;
	struct scalar *r;
	struct tnum t;
	u64 k;

	if (!jset_operands(dst, src, jmp32, &cr, &k))
		return;
	r = cr == dst ? dst : src;
	if (taken && (!k || (k & (k - 1))))
		return;
	if (!taken) {
		scalar_mark_unbounded64(r);
		scalar_mark_unbounded32(r);
	}
	t = jmp32 ? tnum_subreg(r->var_off) : r->var_off;
	t = taken ? tnum_or(t, tnum_const(k)) : tnum_and(t, tnum_const(~k));
	r->var_off = jmp32 ? tnum_with_subreg(r->var_off, t) : t;
	scalar_sync_bounds(r);
}

int scalar_branch_taken(const struct scalar *dst, const struct scalar *src, u8 op, bool jmp32)
{
	unsigned int bits = jmp32 ? 32 : 64;
	struct view d = get_view(dst, bits), s = get_view(src, bits);
	bool swapped;
	enum cond c = normalise(op, true, &swapped);

	if (c == C_SET)
		return jset_taken(dst, src, jmp32);
	return swapped ? decide(&s, &d, c) : decide(&d, &s, c);
}

/* a != b where b is the constant v: a cannot be v, so an end of a's range equal to v moves by
 * one (unless the range is just v: then nothing is left). */
static bool exclude_const(struct view *a, u64 v)
{
	s64 sv = a->bits == 64 ? (s64)v : (s64)(s32)(u32)v;

	if ((a->umin == v && a->umax == v) || (a->smin == sv && a->smax == sv))
		return false;
	if (a->umin == v)
		a->umin++;
	else if (a->umax == v)
		a->umax--;
	if (a->smin == sv)
		a->smin++;
	else if (a->smax == sv)
		a->smax--;
	return true;
}

/* Narrows views a and b to the pairs with "a c b"; false if there are none. */
static bool refine(struct view *a, struct view *b, enum cond c)
{
	switch (c) {
	case C_EQ:
		/* Both hold the same value: each view is the intersection. */
		if ((a->t.value ^ b->t.value) & ~(a->t.mask | b->t.mask))
			return false;
		a->umin = b->umin = umax64(a->umin, b->umin);
		a->umax = b->umax = umin64(a->umax, b->umax);
		a->smin = b->smin = smax64(a->smin, b->smin);
		a->smax = b->smax = smin64(a->smax, b->smax);
		a->t = b->t = tnum_intersect(a->t, b->t);
		return a->umin <= a->umax && a->smin <= a->smax;
	case C_NE:
		if (tnum_is_const(b->t) && !exclude_const(a, b->t.value))
			return false;
		if (tnum_is_const(a->t) && !exclude_const(b, a->t.value))
			return false;
		return true;
	case C_GT:
		/* a > b: a >= min(b) + 1 and b <= max(a) - 1. */
		if (b->umin == view_umax(a->bits) || a->umax == 0)
			return false;
		a->umin = umax64(a->umin, b->umin + 1);
		b->umax = umin64(b->umax, a->umax - 1);
		return true;
	case C_GE:
		a->umin = umax64(a->umin, b->umin);
		b->umax = umin64(b->umax, a->umax);
		return true;
	case C_SGT:
		if (b->smin == view_smax(a->bits) || a->smax == view_smin(a->bits))
			return false;
		a->smin = smax64(a->smin, b->smin + 1);
		b->smax = smin64(b->smax, a->smax - 1);
		return true;
	case C_SGE:
		a->smin = smax64(a->smin, b->smin);
		b->smax = smin64(b->smax, a->smax);
		return true;
	default:
		return true;
	}
}

/* A register compared with itself (`if r7 s> r7`): the kernel refines the one register as
 * both operands in place, each operand's update landing on the same bounds.  Its updates of
 * the two operands touch different bounds (a's lower, b's upper), so the result is both
 * refined views together: `r7 s> r7` taken leaves [smin + 1, smax - 1], not a dead branch. */
static bool refine_self(struct scalar *r, const struct view *v, enum cond c, bool swapped)
{
	struct view a = *v, b = *v;

	if (!(swapped ? refine(&b, &a, c) : refine(&a, &b, c)))
		return false;
	a.umin = umax64(a.umin, b.umin);
	a.umax = umin64(a.umax, b.umax);
	a.smin = smax64(a.smin, b.smin);
	a.smax = smin64(a.smax, b.smax);
	a.t = tnum_intersect(a.t, b.t);
	put_view(r, &a, true);
	/* (synchronised once as each operand, as the kernel does) */
	scalar_sync_bounds(r);
	scalar_sync_bounds(r);
	return scalar_is_valid(r);
}

bool scalar_refine_branch(struct scalar *dst, struct scalar *src, u8 op, bool jmp32, bool taken)
{
	unsigned int bits = jmp32 ? 32 : 64;
	struct view d = get_view(dst, bits), s = get_view(src, bits);
	bool swapped, ok;
	enum cond c = normalise(op, taken, &swapped);

	if (c == C_BAD)
		return true;
	if (c == C_SET || c == C_NSET) {
		jset_refine(dst, src, jmp32, c == C_SET);
		return true;
	}
	if (dst == src)
		return refine_self(dst, &d, c, swapped);
	ok = swapped ? refine(&s, &d, c) : refine(&d, &s, c);
	if (!ok)
		return false;
	put_view(dst, &d, true);
	put_view(src, &s, true);
	if (c == C_EQ && !jmp32) {
		/* Equal registers have equal low halves too. */
		struct view dlo = get_view(dst, 32), slo = get_view(src, 32);

		if (!refine(&dlo, &slo, C_EQ))
			return false;
		put_view(dst, &dlo, true);
		put_view(src, &slo, true);
	}
	scalar_sync_bounds(dst);
	scalar_sync_bounds(src);
	return scalar_is_valid(dst) && scalar_is_valid(src);
}

/* ---- printer ---- */

struct out {
	char *buf;
	size_t size;
	size_t len;
	const char *sep;
};

__attribute__((format(printf, 2, 3))) static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->len < o->size)
		n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* The kernel (6.1) prints a field unless another field or the default implies it.  Its tests
 * compare across types with C's conversions (smin != umin compares as u64, s32_min != smin as
 * s64), and it prints u32 bounds with %d; all reproduced here. */
int scalar_snprint(char *buf, size_t size, const struct scalar *s, u32 id)
{
	struct out o = { buf, size, 0, "" };
	char tn[48];

	if (size)
		buf[0] = '\0';
	if (tnum_is_const(s->var_off)) {
		out_printf(&o, "%" PRId64, (s64)s->var_off.value);
		return (int)o.len;
	}
#define FIELD(fmt, ...) (out_printf(&o, "%s" fmt, o.sep, __VA_ARGS__), o.sep = ",")
	out_printf(&o, "scalar(");
	if (id)
		FIELD("id=%u", id);
	if ((u64)s->smin != s->umin && s->smin != SCALAR_S64_MIN)
		FIELD("smin=%" PRId64, s->smin);
	if ((u64)s->smax != s->umax && s->smax != SCALAR_S64_MAX)
		FIELD("smax=%" PRId64, s->smax);
	if (s->umin != 0)
		FIELD("umin=%" PRIu64, s->umin);
	if (s->umax != U64_MAX_)
		FIELD("umax=%" PRIu64, s->umax);
	if (!tnum_is_unknown(s->var_off)) {
		tnum_snprint(tn, sizeof(tn), s->var_off);
		FIELD("var_off=%s", tn);
	}
	if ((s64)s->s32_min != s->smin && s->s32_min != SCALAR_S32_MIN)
		FIELD("s32_min=%d", (int)s->s32_min);
	if ((s64)s->s32_max != s->smax && s->s32_max != SCALAR_S32_MAX)
		FIELD("s32_max=%d", (int)s->s32_max);
	if ((u64)s->u32_min != s->umin && s->u32_min != 0)
		FIELD("u32_min=%d", (int)s->u32_min);
	if ((u64)s->u32_max != s->umax && s->u32_max != U32_MAX_)
		FIELD("u32_max=%d", (int)s->u32_max);
#undef FIELD
	out_printf(&o, ")");
	return (int)o.len;
}
