/* Tests for src/verifier/tnum.c: exhaustive soundness at small widths, random 64-bit samples with a
 * fixed seed, optimality of the bitwise operations, and the printers' exact text.
 *
 * Method.  A "small" tnum has W significant bits (all 3^W of them are enumerated); it is placed
 * into a 64-bit tnum at a bit offset over a known background (all zeros, or all ones so that
 * carries and borrows run through the upper bits and sign bits are set).  Its members are
 * enumerated by walking the submasks of its mask.  For every pair of abstract values and every
 * pair of members, the concrete result must be a member of the abstract result.  For
 * and/or/xor/union/shifts the abstract result must also equal the join of all concrete results
 * (those operations are optimal).
 *
 * Widths: binary ops over all pairs of 6-bit tnums (3^6 = 729 values, 531441 pairs, 16.7 million
 * member pairs per op), and all pairs of 4-bit tnums at 6 placements each (upper bits known 0 or
 * 1, at bit 0, 28, 30, 60) so that results wrap modulo 2^64; unary ops (shifts by every amount,
 * neg, casts, sign extension, byte swaps) over all 8-bit tnums at 8 placements; tnum_range over
 * every 8-bit interval; union/intersect/in over all pairs of 5-bit tnums; plus 100000 random
 * 64-bit pairs.
 */
#include "test.h"
#include "verifier/tnum.h"

/* xorshift64*: a fixed-seed generator so the random samples are the same on every run. */
struct rng {
	u64 s;
};

static u64 rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* A random tnum; the mask density varies so that near-constant and near-unknown values occur. */
static struct tnum rand_tnum(struct rng *r)
{
	u64 m = rng_next(r);

	switch (rng_next(r) % 5) {
	case 0:
		m &= rng_next(r) & rng_next(r);
		break;
	case 1:
		m &= rng_next(r);
		break;
	case 2:
		m &= 0xff;
		break;
	case 3:
		m |= rng_next(r);
		break;
	default:
		m = 0;
		break;
	}
	return TNUM(rng_next(r) & ~m, m);
}

static u64 rand_member(struct rng *r, struct tnum t)
{
	return t.value | (rng_next(r) & t.mask);
}

/* The i-th of the 3^w tnums over w bits, placed at bit 'shift' over background bg (bg's bits in
 * the placed window are ignored). */
static struct tnum small_tnum(unsigned int i, unsigned int w, unsigned int shift, u64 bg)
{
	u64 v = 0, m = 0, window = (((u64)1 << w) - 1) << shift;

	for (unsigned int b = 0; b < w; b++, i /= 3) {
		if (i % 3 == 1)
			v |= (u64)1 << b;
		else if (i % 3 == 2)
			m |= (u64)1 << b;
	}
	return TNUM((bg & ~window) | (v << shift), m << shift);
}

static unsigned int pow3(unsigned int w)
{
	unsigned int n = 1;

	while (w--)
		n *= 3;
	return n;
}

/* Iterate over the members of t: start with x = t.value, step with next_member() until it returns
 * false.  Walks the submasks of t.mask in increasing order. */
static bool next_member(struct tnum t, u64 *x)
{
	u64 sub = *x & t.mask;

	if (sub == t.mask)
		return false;
	sub = (sub - t.mask) & t.mask;	/* next submask */
	*x = t.value | sub;
	return true;
}

enum binop { OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR, OP_XOR, OP_NR };

static const char *const binop_name[OP_NR] = { "add", "sub", "mul", "and", "or", "xor" };

static struct tnum tnum_binop(enum binop op, struct tnum a, struct tnum b)
{
	switch (op) {
	case OP_ADD:
		return tnum_add(a, b);
	case OP_SUB:
		return tnum_sub(a, b);
	case OP_MUL:
		return tnum_mul(a, b);
	case OP_AND:
		return tnum_and(a, b);
	case OP_OR:
		return tnum_or(a, b);
	default:
		return tnum_xor(a, b);
	}
}

static u64 conc_binop(enum binop op, u64 x, u64 y)
{
	switch (op) {
	case OP_ADD:
		return x + y;
	case OP_SUB:
		return x - y;
	case OP_MUL:
		return x * y;
	case OP_AND:
		return x & y;
	case OP_OR:
		return x | y;
	default:
		return x ^ y;
	}
}

static bool binop_optimal(enum binop op)
{
	return op == OP_AND || op == OP_OR || op == OP_XOR;
}

/* The join of j (unless first) and the constant x. */
static struct tnum join_with(struct tnum j, bool first, u64 x)
{
	return first ? tnum_const(x) : tnum_union(j, tnum_const(x));
}

/* Checks one pair of abstract values for op: soundness for every member pair and (for bitwise ops)
 * optimality.  Returns false, after reporting, on the first problem. */
static bool check_binop_pair(enum binop op, struct tnum a, struct tnum b)
{
	struct tnum r = tnum_binop(op, a, b);
	struct tnum join = { 0, 0 };
	bool first = true;
	u64 x = a.value;

	if (!tnum_is_wellformed(r)) {
		test_fail(__FILE__, __LINE__, "%s: ill-formed result", binop_name[op]);
		return false;
	}
	do {
		u64 y = b.value;

		do {
			u64 z = conc_binop(op, x, y);

			if (!tnum_contains(r, z)) {
				test_fail(__FILE__, __LINE__,
					  "%s (%#" PRIx64 ";%#" PRIx64 ") (%#" PRIx64 ";%#" PRIx64
					  "): %#" PRIx64 " %s %#" PRIx64 " = %#" PRIx64
					  " not in (%#" PRIx64 ";%#" PRIx64 ")",
					  binop_name[op], a.value, a.mask, b.value, b.mask, x,
					  binop_name[op], y, z, r.value, r.mask);
				return false;
			}
			join = join_with(join, first, z);
			first = false;
		} while (next_member(b, &y));
	} while (next_member(a, &x));
	if (binop_optimal(op) && (join.value != r.value || join.mask != r.mask)) {
		test_fail(__FILE__, __LINE__, "%s not optimal", binop_name[op]);
		return false;
	}
	return true;
}

/* Every binary op over every pair of 6-bit tnums (upper bits known 0). */
TEST(tnum_binops_exhaustive_6bit)
{
	unsigned int n = pow3(6);

	for (int op = 0; op < OP_NR; op++) {
		for (unsigned int i = 0; i < n; i++) {
			struct tnum a = small_tnum(i, 6, 0, 0);

			for (unsigned int j = 0; j < n; j++)
				if (!check_binop_pair(op, a, small_tnum(j, 6, 0, 0)))
					return;
		}
	}
}

/* Every pair of 4-bit tnums, placed at several offsets over zero/one backgrounds so results wrap
 * around 2^64 and carries cross the upper bits. */
TEST(tnum_binops_exhaustive_4bit_placed)
{
	static const struct {
		unsigned int shift;
		u64 bg;
	} place[] = {
		{ 0, ~(u64)0 }, { 28, 0 }, { 28, ~(u64)0 }, { 60, 0 },
		{ 60, 0x5555555555555555ULL }, { 30, 0x00000000ffffffffULL },
	};
	unsigned int n = pow3(4), np = sizeof(place) / sizeof(place[0]);

	for (int op = 0; op < OP_NR; op++)
		for (unsigned int pa = 0; pa < np; pa++)
			for (unsigned int pb = 0; pb < np; pb++)
				for (unsigned int i = 0; i < n; i++)
					for (unsigned int j = 0; j < n; j++) {
						struct tnum a = small_tnum(i, 4, place[pa].shift,
									   place[pa].bg);
						struct tnum b = small_tnum(j, 4, place[pb].shift,
									   place[pb].bg);

						if (!check_binop_pair(op, a, b))
							return;
					}
}

/* Random 64-bit tnums with random members. */
TEST(tnum_binops_random64)
{
	struct rng r = { 0x9e3779b97f4a7c15ULL };

	for (int k = 0; k < 100000; k++) {
		struct tnum a = rand_tnum(&r), b = rand_tnum(&r);

		for (int op = 0; op < OP_NR; op++) {
			struct tnum res = tnum_binop(op, a, b);

			CHECK(tnum_is_wellformed(res));
			for (int s = 0; s < 4; s++) {
				u64 x = rand_member(&r, a), y = rand_member(&r, b);

				if (!tnum_contains(res, conc_binop(op, x, y))) {
					test_fail(__FILE__, __LINE__, "%s random sample",
						  binop_name[op]);
					return;
				}
			}
		}
	}
}

/* Join and meet over every pair of 5-bit tnums: the union holds both and is the smallest such; the
 * intersection holds every common member and, when the sets overlap, is exact. */
TEST(tnum_union_intersect_exhaustive_5bit)
{
	unsigned int n = pow3(5);

	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < n; j++) {
			struct tnum a = small_tnum(i, 5, 0, 0), b = small_tnum(j, 5, 0, 0);
			struct tnum u = tnum_union(a, b), in = tnum_intersect(a, b);
			struct tnum join = a, meet = { 0, 0 };
			bool common = false;
			u64 x = 0;

			for (u64 y = b.value;; ) {
				join = tnum_union(join, tnum_const(y));
				if (!next_member(b, &y))
					break;
			}
			REQUIRE(tnum_is_wellformed(u) && tnum_is_wellformed(in));
			REQUIRE(tnum_in(u, a) && tnum_in(u, b));
			do {
				if (tnum_contains(a, x) && tnum_contains(b, x)) {
					REQUIRE(tnum_contains(in, x));
					meet = join_with(meet, !common, x);
					common = true;
				}
			} while (++x < 32);
			REQUIRE(u.value == join.value && u.mask == join.mask);
			if (common)
				REQUIRE(in.value == meet.value && in.mask == meet.mask);
		}
	}
}

/* tnum_in(a, b) against the definition, over every pair of 5-bit tnums. */
TEST(tnum_in_exhaustive_5bit)
{
	unsigned int n = pow3(5);

	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < n; j++) {
			struct tnum a = small_tnum(i, 5, 0, 0), b = small_tnum(j, 5, 0, 0);
			bool subset = true;
			u64 y = b.value;

			do
				subset &= tnum_contains(a, y);
			while (next_member(b, &y));
			REQUIRE(tnum_in(a, b) == subset);
		}
	}
}

/* Shifts, negation, casts, sign extension and byte swaps over every 8-bit tnum placed at several
 * offsets, and every shift amount; shifts and casts must also be optimal. */
TEST(tnum_unary_exhaustive_8bit)
{
	static const struct {
		unsigned int shift;
		u64 bg;
	} place[] = {
		{ 0, 0 }, { 0, ~(u64)0 }, { 8, 0x5a }, { 24, 0 }, { 24, 0xffffffff00000000ULL },
		{ 28, 0x123 }, { 56, 0 }, { 56, 0x00ffffffffffffffULL },
	};
	unsigned int n = pow3(8);

	for (unsigned int p = 0; p < sizeof(place) / sizeof(place[0]); p++) {
		for (unsigned int i = 0; i < n; i++) {
			struct tnum a = small_tnum(i, 8, place[p].shift, place[p].bg);
			struct tnum neg = tnum_neg(a);
			struct tnum c[3] = { tnum_cast(a, 1), tnum_cast(a, 2), tnum_cast(a, 4) };
			struct tnum sx[3] = { tnum_sext(a, 1), tnum_sext(a, 2), tnum_sext(a, 4) };
			struct tnum bs[3] = { tnum_bswap(a, 2), tnum_bswap(a, 4),
					      tnum_bswap(a, 8) };
			u64 x = a.value;

			do {
				REQUIRE(tnum_contains(neg, -x));
				REQUIRE(tnum_contains(c[0], (u8)x));
				REQUIRE(tnum_contains(c[1], (u16)x));
				REQUIRE(tnum_contains(c[2], (u32)x));
				REQUIRE(tnum_contains(sx[0], (u64)(s64)(s8)x));
				REQUIRE(tnum_contains(sx[1], (u64)(s64)(s16)x));
				REQUIRE(tnum_contains(sx[2], (u64)(s64)(s32)x));
				REQUIRE(tnum_contains(bs[0], __builtin_bswap16((u16)x)));
				REQUIRE(tnum_contains(bs[1], __builtin_bswap32((u32)x)));
				REQUIRE(tnum_contains(bs[2], __builtin_bswap64(x)));
			} while (next_member(a, &x));
			REQUIRE(tnum_sext(a, 8).value == a.value && tnum_sext(a, 8).mask == a.mask);
			for (unsigned int k = 0; k < 64; k++) {
				struct tnum l = tnum_lshift(a, k), rs = tnum_rshift(a, k);
				struct tnum ar = tnum_arshift(a, k, 64);
				struct tnum ar32 = tnum_arshift(a, k, 32);
				struct tnum jl = { 0, 0 }, jr = { 0, 0 };
				bool first = true;

				x = a.value;
				do {
					u64 y = (u64)(s64)(s32)(u32)x;
					u64 sra = (x >> k) | ((x >> 63) ? ~(~(u64)0 >> k) : 0);
					u64 sra32 = (y >> (k & 31)) |
						    ((y >> 63) ? ~(~(u64)0 >> (k & 31)) : 0);

					REQUIRE(tnum_contains(l, x << k));
					REQUIRE(tnum_contains(rs, x >> k));
					REQUIRE(tnum_contains(ar, sra));
					if (k < 32)
						REQUIRE(tnum_contains(ar32, (u32)sra32));
					jl = join_with(jl, first, x << k);
					jr = join_with(jr, first, x >> k);
					first = false;
				} while (next_member(a, &x));
				REQUIRE(jl.value == l.value && jl.mask == l.mask);
				REQUIRE(jr.value == rs.value && jr.mask == rs.mask);
			}
		}
	}
}

/* Shifts by 64 or more: what a full-width shift gives. */
TEST(tnum_shift_out_of_range)
{
	struct tnum a = TNUM(0x8000000000000000ULL, 0x0f);

	CHECK(tnum_equals_const(tnum_lshift(a, 64), 0));
	CHECK(tnum_equals_const(tnum_rshift(a, 200), 0));
	CHECK(tnum_equals_const(tnum_arshift(a, 64, 64), ~(u64)0));
	CHECK(tnum_equals_const(tnum_arshift(TNUM(0x80000000u, 0), 40, 32), 0xffffffffu));
}

/* tnum_range over every 8-bit interval (holds every member, and is the smallest tnum that does),
 * plus random 64-bit intervals. */
TEST(tnum_range_exhaustive_8bit)
{
	struct rng r = { 12345 };

	for (u64 lo = 0; lo < 256; lo++) {
		for (u64 hi = lo; hi < 256; hi++) {
			struct tnum t = tnum_range(lo, hi), j = tnum_const(lo);

			for (u64 x = lo; x <= hi; x++) {
				if (!tnum_contains(t, x)) {
					test_fail(__FILE__, __LINE__,
						  "range(%" PRIu64 ",%" PRIu64 ")", lo, hi);
					return;
				}
				j = tnum_union(j, tnum_const(x));
			}
			REQUIRE(j.value == t.value && j.mask == t.mask);
		}
	}
	for (int k = 0; k < 100000; k++) {
		u64 a = rng_next(&r), b = rng_next(&r), lo, hi;

		a >>= rng_next(&r) % 64;
		b >>= rng_next(&r) % 64;
		lo = a < b ? a : b;
		hi = a < b ? b : a;
		struct tnum t = tnum_range(lo, hi);

		REQUIRE(tnum_is_wellformed(t));
		REQUIRE(tnum_contains(t, lo) && tnum_contains(t, hi));
		REQUIRE(tnum_contains(t, lo + (rng_next(&r) % (hi - lo + 1 ? hi - lo + 1 : 1))));
	}
	CHECK(tnum_is_unknown(tnum_range(0, ~(u64)0)));
	CHECK(tnum_is_unknown(tnum_range(0x7fffffffffffffffULL, 0x8000000000000000ULL)));
	CHECK(tnum_equals_const(tnum_range(7, 7), 7));
	CHECK(tnum_contains(tnum_range(0, 2), 3));	/* documented over-approximation */
}

/* Alignment against the definition over every 6-bit tnum. */
TEST(tnum_is_aligned_exhaustive_6bit)
{
	unsigned int n = pow3(6);

	for (unsigned int i = 0; i < n; i++) {
		struct tnum a = small_tnum(i, 6, 0, 0);

		for (u64 size = 1; size <= 64; size <<= 1) {
			bool all = true;
			u64 x = a.value;

			do
				all &= (x % size) == 0;
			while (next_member(a, &x));
			REQUIRE(tnum_is_aligned(a, size) == all);
		}
		CHECK(tnum_is_aligned(a, 0));
	}
}

TEST(tnum_predicates_and_views)
{
	struct tnum a = TNUM(0x1234567800000000ULL, 0xff);

	CHECK(tnum_is_const(tnum_const(5)) && !tnum_is_const(a));
	CHECK(tnum_equals_const(tnum_const(5), 5) && !tnum_equals_const(tnum_const(5), 6));
	CHECK(!tnum_equals_const(TNUM(4, 1), 4));
	CHECK(tnum_is_unknown(tnum_unknown()) && !tnum_is_unknown(a));
	CHECK(tnum_subreg(a).value == 0 && tnum_subreg(a).mask == 0xff);
	CHECK(tnum_clear_subreg(a).value == 0x1234567800000000ULL);
	CHECK(tnum_clear_subreg(a).mask == 0);
	CHECK(tnum_const_subreg(a, 7).value == 0x1234567800000007ULL);
	CHECK(tnum_const_subreg(a, 7).mask == 0);
	CHECK(tnum_subreg_is_const(TNUM(0, 0xffffffff00000000ULL)) && !tnum_subreg_is_const(a));
	CHECK(tnum_with_subreg(TNUM(0, ~(u64)0), tnum_const(3)).mask == 0xffffffff00000000ULL);
	CHECK(tnum_sext(TNUM(0x80, 0), 1).value == 0xffffffffffffff80ULL);
	CHECK(tnum_sext(TNUM(0, 0x80), 1).mask == 0xffffffffffffff80ULL);
	CHECK(tnum_bswap(TNUM(0x1122334455667788ULL, 0), 2).value == 0x8877);
	CHECK(tnum_bswap(TNUM(0x1122334455667788ULL, 0), 4).value == 0x88776655);
	CHECK(tnum_bswap(TNUM(0x1122334455667788ULL, 0), 8).value == 0x8877665544332211ULL);
}

/* The kernel's text: "(0x<value>; 0x<mask>)", zero printed as 0x0 (the kernel's %#llx does, unlike
 * the C library's). */
TEST(tnum_printer)
{
	char buf[80];

	CHECK_EQ(tnum_snprint(buf, sizeof(buf), TNUM(0, 0xff)), 11);
	CHECK(!strcmp(buf, "(0x0; 0xff)"));
	tnum_snprint(buf, sizeof(buf), tnum_unknown());
	CHECK(!strcmp(buf, "(0x0; 0xffffffffffffffff)"));
	tnum_snprint(buf, sizeof(buf), tnum_const(0x10));
	CHECK(!strcmp(buf, "(0x10; 0x0)"));
	tnum_snprint(buf, sizeof(buf), TNUM(0xffffffff00000000ULL, 0xfc));
	CHECK(!strcmp(buf, "(0xffffffff00000000; 0xfc)"));
	CHECK_EQ(tnum_snprint(buf, 5, TNUM(0, 0xff)), 11);
	CHECK(!strcmp(buf, "(0x0"));

	CHECK_EQ(tnum_sbin(buf, sizeof(buf), TNUM(0x5, 0x2)), 64);
	CHECK(!strcmp(buf, "00000000000000000000000000000000000000000000000000000000000001x1"));
	CHECK_EQ(tnum_sbin(buf, 4, TNUM(0x8000000000000000ULL, 0x4000000000000000ULL)), 64);
	CHECK(!strcmp(buf, "1x0"));
}
