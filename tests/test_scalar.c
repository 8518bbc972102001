/* Tests for src/verifier/scalar.c: soundness of synchronisation, every ALU transfer function (64-
 * and 32-bit), width changes, byte swaps, branch decisions and branch refinement; and the printer
 * against the kernel's text.
 *
 * Method.  Abstract values are built from random concrete sets: a set of 1..6 values (clustered
 * around boundary values such as 0, 2^31, 2^32, 2^63 and -1, or random), abstracted to the
 * tightest scalar (join of tnums, min/max in each view), sometimes loosened at random (bounds
 * widened, tnum bits forgotten) so that non-tight inputs occur, and then synced.  Every concrete
 * result of the operation on members of the sets must be in the abstract result; for branches,
 * every pair of members that produces the outcome must survive refinement.  A chain test also
 * feeds results back as inputs (through ALU ops, width changes and branches), which is how the
 * verifier produces its abstract values.  Window tests are exhaustive over every interval of up
 * to 5 consecutive values around boundary points (0, 2^31, 2^32, 2^63-1, 2^63, -2), for every ALU
 * op and every constant compare.  Register-against-itself (aliased) ALU ops and branches are
 * covered too.  The generator has a fixed seed, and the runs are the same on every build.
 */
#include <stdlib.h>

#include "test.h"
#include "verifier/scalar.h"

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

static unsigned int rng_below(struct rng *r, unsigned int n)
{
	return (unsigned int)(rng_next(r) % n);
}

#define MAXSET 8

struct cset {
	int n;
	u64 v[MAXSET];
};

static const u64 interesting[] = {
	0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0x17fffffffULL, 0x180000000ULL,
	0x1ffffffffULL, 0x7fffffff00000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	0x8000000080000000ULL, 0xffffffff00000000ULL, 0xffffffff7fffffffULL,
	0xffffffff80000000ULL, 0xfffffffffffffff0ULL, ~(u64)0,
};

/* A value near a random interesting one, or random of various magnitudes. */
static u64 rand_value(struct rng *r)
{
	unsigned int n = sizeof(interesting) / sizeof(interesting[0]);
	u64 x;

	switch (rng_below(r, 6)) {
	case 0:
	case 1:
		x = interesting[rng_below(r, n)];
		return x + (u64)(s64)((int)rng_below(r, 9) - 4);
	case 2:
		return rng_next(r);
	case 3:
		x = rng_next(r);
		return x >> rng_below(r, 64);
	case 4:
		x = rng_next(r);
		return (u64)(s64)(s32)(u32)(x >> rng_below(r, 32));
	default:
		return rng_below(r, 70);
	}
}

/* A set: a cluster around one value, or independent values. */
static struct cset rand_set(struct rng *r)
{
	struct cset c;
	u64 base = rand_value(r);
	unsigned int spread = 1u << rng_below(r, 12);

	c.n = 1 + (int)rng_below(r, 6);
	for (int i = 0; i < c.n; i++) {
		if (i == 0 || rng_below(r, 4) == 0)
			c.v[i] = i == 0 ? base : rand_value(r);
		else
			c.v[i] = base + (u64)(s64)((int)rng_below(r, 2 * spread + 1) - (int)spread);
	}
	return c;
}

/* The tightest scalar holding the set, loosened at random, synced. */
static struct scalar abstract(struct rng *r, const struct cset *c, bool loosen)
{
	struct scalar s;

	s.var_off = tnum_const(c->v[0]);
	s.umin = s.umax = c->v[0];
	s.smin = s.smax = (s64)c->v[0];
	s.u32_min = s.u32_max = (u32)c->v[0];
	s.s32_min = s.s32_max = (s32)(u32)c->v[0];
	for (int i = 1; i < c->n; i++) {
		u64 x = c->v[i];

		s.var_off = tnum_union(s.var_off, tnum_const(x));
		s.umin = x < s.umin ? x : s.umin;
		s.umax = x > s.umax ? x : s.umax;
		s.smin = (s64)x < s.smin ? (s64)x : s.smin;
		s.smax = (s64)x > s.smax ? (s64)x : s.smax;
		s.u32_min = (u32)x < s.u32_min ? (u32)x : s.u32_min;
		s.u32_max = (u32)x > s.u32_max ? (u32)x : s.u32_max;
		s.s32_min = (s32)(u32)x < s.s32_min ? (s32)(u32)x : s.s32_min;
		s.s32_max = (s32)(u32)x > s.s32_max ? (s32)(u32)x : s.s32_max;
	}
	if (loosen && rng_below(r, 2)) {
		switch (rng_below(r, 6)) {
		case 0:
			s.var_off = tnum_union(s.var_off, TNUM(0, rng_next(r) & rng_next(r)));
			break;
		case 1:
			scalar_mark_unbounded64(&s);
			break;
		case 2:
			scalar_mark_unbounded32(&s);
			break;
		case 3:
			s.umin = 0;
			s.smax = SCALAR_S64_MAX;
			break;
		case 4:
			s.var_off = tnum_unknown();
			s.s32_min = SCALAR_S32_MIN;
			break;
		default:
			s.var_off = tnum_union(s.var_off, tnum_const(0));
			s.smin = s.smin > 0 ? 0 : s.smin;
			s.umin = 0;
			s.u32_min = 0;
			s.s32_min = s.s32_min > 0 ? 0 : s.s32_min;
			break;
		}
	}
	scalar_sync_bounds(&s);
	return s;
}

/* ---- concrete semantics of BPF instructions (the interpreter's) ---- */

static u64 sext_bits(u64 x, unsigned int bits)
{
	switch (bits) {
	case 8:
		return (u64)(s64)(s8)(u8)x;
	case 16:
		return (u64)(s64)(s16)(u16)x;
	case 32:
		return (u64)(s64)(s32)(u32)x;
	default:
		return x;
	}
}

static u64 asr(u64 x, unsigned int k)
{
	return (x >> k) | ((x >> 63) && k ? ~(~(u64)0 >> k) : 0);
}

static u64 conc_alu64(u8 op, s16 off, u64 x, u64 y)
{
	switch (op) {
	case BPF_ADD: return x + y;
	case BPF_SUB: return x - y;
	case BPF_MUL: return x * y;
	case BPF_AND: return x & y;
	case BPF_OR: return x | y;
	case BPF_XOR: return x ^ y;
	case BPF_LSH: return x << (y & 63);
	case BPF_RSH: return x >> (y & 63);
	case BPF_ARSH: return asr(x, (unsigned int)(y & 63));
	case BPF_NEG: return -x;
	case BPF_MOV: return off ? sext_bits(y, (unsigned int)off) : y;
	case BPF_DIV:
		if (!y)
			return 0;
		if (!off)
			return x / y;
		if ((s64)y == -1)
			return -x;
		return (u64)((s64)x / (s64)y);
	case BPF_MOD:
		if (!y)
			return x;
		if (!off)
			return x % y;
		if ((s64)y == -1)
			return 0;
		return (u64)((s64)x % (s64)y);
	default:
		return 0;
	}
}

static u64 conc_alu32(u8 op, s16 off, u64 x64, u64 y64)
{
	u32 x = (u32)x64, y = (u32)y64;

	switch (op) {
	case BPF_ADD: return (u32)(x + y);
	case BPF_SUB: return (u32)(x - y);
	case BPF_MUL: return (u32)(x * y);
	case BPF_AND: return x & y;
	case BPF_OR: return x | y;
	case BPF_XOR: return x ^ y;
	case BPF_LSH: return (u32)(x << (y & 31));
	case BPF_RSH: return x >> (y & 31);
	case BPF_ARSH: return (u32)asr(sext_bits(x, 32), y & 31);
	case BPF_NEG: return (u32)-x;
	case BPF_MOV: return off ? (u32)sext_bits(y, (unsigned int)off) : y;
	case BPF_DIV:
		if (!y)
			return 0;
		if (!off)
			return x / y;
		if ((s32)y == -1)
			return (u32)-x;
		return (u32)((s32)x / (s32)y);
	case BPF_MOD:
		if (!y)
			return x;
		if (!off)
			return x % y;
		if ((s32)y == -1)
			return 0;
		return (u32)((s32)x % (s32)y);
	default:
		return 0;
	}
}

static bool conc_cond(u8 op, bool jmp32, u64 x, u64 y)
{
	if (jmp32) {
		x = (u32)x;
		y = (u32)y;
	}
	s64 sx = jmp32 ? (s64)(s32)(u32)x : (s64)x, sy = jmp32 ? (s64)(s32)(u32)y : (s64)y;

	switch (op) {
	case BPF_JEQ: return x == y;
	case BPF_JNE: return x != y;
	case BPF_JGT: return x > y;
	case BPF_JGE: return x >= y;
	case BPF_JLT: return x < y;
	case BPF_JLE: return x <= y;
	case BPF_JSGT: return sx > sy;
	case BPF_JSGE: return sx >= sy;
	case BPF_JSLT: return sx < sy;
	case BPF_JSLE: return sx <= sy;
	default: return (x & y) != 0;	/* BPF_JSET */
	}
}

struct aluop {
	u8 op;
	s16 off;
	const char *name;
};

static const struct aluop aluops[] = {
	{ BPF_ADD, 0, "add" },	 { BPF_SUB, 0, "sub" },	  { BPF_MUL, 0, "mul" },
	{ BPF_DIV, 0, "div" },	 { BPF_DIV, 1, "sdiv" },  { BPF_MOD, 0, "mod" },
	{ BPF_MOD, 1, "smod" },	 { BPF_AND, 0, "and" },	  { BPF_OR, 0, "or" },
	{ BPF_XOR, 0, "xor" },	 { BPF_LSH, 0, "lsh" },	  { BPF_RSH, 0, "rsh" },
	{ BPF_ARSH, 0, "arsh" }, { BPF_NEG, 0, "neg" },	  { BPF_MOV, 0, "mov" },
	{ BPF_MOV, 8, "movsx8" }, { BPF_MOV, 16, "movsx16" }, { BPF_MOV, 32, "movsx32" },
};

#define NALUOPS ((int)(sizeof(aluops) / sizeof(aluops[0])))

static const u8 jmpops[] = {
	BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE,
	BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET,
};

static u64 conc_alu(const struct aluop *o, bool alu32, u64 x, u64 y)
{
	return alu32 ? conc_alu32(o->op, o->off, x, y) : conc_alu64(o->op, o->off, x, y);
}

static void report_scalar(const char *what, const struct scalar *s)
{
	char buf[400];

	scalar_snprint(buf, sizeof(buf), s, 0);
	fprintf(stderr, "  %s: %s  [var_off=(%#" PRIx64 "; %#" PRIx64 ") s=[%" PRId64 ",%" PRId64
		"] u=[%#" PRIx64 ",%#" PRIx64 "] s32=[%d,%d] u32=[%#x,%#x]]\n",
		what, buf, s->var_off.value, s->var_off.mask, s->smin, s->smax, s->umin, s->umax,
		s->s32_min, s->s32_max, s->u32_min, s->u32_max);
}

/* Shift amounts: usually one small constant so that shifts are tracked. */
static struct cset rand_operand(struct rng *r, int op)
{
	struct cset c;

	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && rng_below(r, 4)) {
		c.n = 1;
		c.v[0] = rng_below(r, 4) ? rng_below(r, 64) : rand_value(r);
		if (rng_below(r, 4) == 0)
			c.v[0] |= rng_next(r) << 32;	/* ALU32 only looks at the low half */
		return c;
	}
	return rand_set(r);
}

/* Checks one ALU op on abstract a, b against every member pair; returns false after reporting. */
static bool check_alu(const struct aluop *o, bool alu32, const struct cset *A,
		      const struct scalar *a, const struct cset *B, const struct scalar *b)
{
	struct scalar res = *a;

	if (!scalar_alu(&res, b, o->op, o->off, alu32) && !(alu32 && o->off == 32)) {
		test_fail(__FILE__, __LINE__, "%s rejected", o->name);
		return false;
	}
	if (alu32 && o->op == BPF_MOV && o->off == 32)
		return true;	/* not an instruction */
	for (int i = 0; i < A->n; i++) {
		for (int j = 0; j < B->n; j++) {
			u64 x = A->v[i], y = B->v[j];
			u64 z = conc_alu(o, alu32, x, y);

			if (!scalar_contains(&res, z) || !scalar_is_valid(&res)) {
				test_fail(__FILE__, __LINE__,
					  "%s%s: %#" PRIx64 " op %#" PRIx64 " = %#" PRIx64
					  " not in result",
					  o->name, alu32 ? "32" : "", x, y, z);
				report_scalar("dst", a);
				report_scalar("src", b);
				report_scalar("res", &res);
				return false;
			}
		}
	}
	return true;
}

TEST(scalar_abstraction_and_sync_sound)
{
	struct rng r = { 0x1234567 };

	for (int k = 0; k < 200000; k++) {
		struct cset c = rand_set(&r);
		struct scalar s = abstract(&r, &c, true);

		REQUIRE(scalar_is_valid(&s));
		for (int i = 0; i < c.n; i++) {
			if (!scalar_contains(&s, c.v[i])) {
				test_fail(__FILE__, __LINE__, "sync lost %#" PRIx64, c.v[i]);
				report_scalar("s", &s);
				return;
			}
		}
	}
}

TEST(scalar_alu_sound_random)
{
	struct rng r = { 42 };

	for (int k = 0; k < 12000; k++) {
		for (int o = 0; o < NALUOPS; o++) {
			struct cset A = rand_set(&r), B = rand_operand(&r, aluops[o].op);
			struct scalar a = abstract(&r, &A, true), b = abstract(&r, &B, true);

			if (!check_alu(&aluops[o], false, &A, &a, &B, &b) ||
			    !check_alu(&aluops[o], true, &A, &a, &B, &b))
				return;
		}
	}
}

/* dst and src the same register: "r1 op= r1". */
TEST(scalar_alu_sound_aliased)
{
	struct rng r = { 77 };

	for (int k = 0; k < 20000; k++) {
		struct cset A = rand_set(&r);
		struct scalar a = abstract(&r, &A, true);

		for (int o = 0; o < NALUOPS; o++) {
			for (int w = 0; w < 2; w++) {
				struct scalar res = a;

				if (w && aluops[o].off == 32)
					continue;
				scalar_alu(&res, &res, aluops[o].op, aluops[o].off, w);
				for (int i = 0; i < A.n; i++) {
					u64 z = conc_alu(&aluops[o], w, A.v[i], A.v[i]);

					if (scalar_contains(&res, z))
						continue;
					test_fail(__FILE__, __LINE__, "aliased %s%s",
						  aluops[o].name, w ? "32" : "");
					return;
				}
			}
		}
	}
}

/* Exhaustive over small windows: every interval of up to 5 consecutive values around boundary
 * points (0, 2^31, 2^32, 2^63, -1, ...) as dst and as src, every ALU op, both widths. */
TEST(scalar_alu_exhaustive_window)
{
	static const u64 centres[] = { 0, 0x80000000, 0x100000000ULL, 0x8000000000000000ULL,
				       0x7fffffffffffffffULL, 0xfffffffffffffffeULL };
	const unsigned int nc = sizeof(centres) / sizeof(centres[0]);
	struct cset sets[6][15];
	struct scalar abs[6][15];
	struct rng r = { 1 };

	for (unsigned int c = 0; c < nc; c++) {
		int n = 0;

		for (u64 lo = 0; lo < 5; lo++) {
			for (u64 hi = lo; hi < 5; hi++, n++) {
				sets[c][n].n = 0;
				for (u64 x = lo; x <= hi; x++)
					sets[c][n].v[sets[c][n].n++] = centres[c] + x - 2;
				abs[c][n] = abstract(&r, &sets[c][n], false);
			}
		}
	}
	for (int o = 0; o < NALUOPS; o++)
		for (unsigned int ca = 0; ca < nc; ca++)
			for (unsigned int cb = 0; cb < nc; cb++)
				for (int i = 0; i < 15; i++)
					for (int j = 0; j < 15; j++)
						for (int w = 0; w < 2; w++)
							if (!check_alu(&aluops[o], w, &sets[ca][i],
								       &abs[ca][i], &sets[cb][j],
								       &abs[cb][j]))
								return;
}

/* Refines "r op r" (one register on both sides) and checks every member giving the outcome. */
static bool check_branch_self(const struct cset *A, const struct scalar *a, u8 op, bool w,
			      bool outcome)
{
	struct scalar s = *a;
	bool ok = scalar_refine_branch(&s, &s, op, w, outcome);

	for (int i = 0; i < A->n; i++) {
		u64 x = A->v[i];

		if (conc_cond(op, w, x, x) != outcome || (ok && scalar_contains(&s, x)))
			continue;
		test_fail(__FILE__, __LINE__, "aliased branch %#x%s outcome %d", op, w ? "32" : "",
			  outcome);
		return false;
	}
	return true;
}

/* Branches on one register against itself ("if r1 > r1"): dst and src may alias. */
TEST(scalar_branch_aliased)
{
	struct rng r = { 8 };

	for (int k = 0; k < 20000; k++) {
		struct cset A = rand_set(&r);
		struct scalar a = abstract(&r, &A, true);

		for (unsigned int o = 0; o < sizeof(jmpops); o++)
			for (int w = 0; w < 2; w++)
				if (!check_branch_self(&A, &a, jmpops[o], w, false) ||
				    !check_branch_self(&A, &a, jmpops[o], w, true))
					return;
	}
}

/* Width changes and byte swaps. */
TEST(scalar_ext_end_sound_random)
{
	struct rng r = { 99 };
	static const int kinds[] = { BPF_TO_LE, BPF_TO_BE, SCALAR_BSWAP };
	bool be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	for (int k = 0; k < 40000; k++) {
		struct cset A = rand_set(&r);
		struct scalar a = abstract(&r, &A, true);

		for (int size = 1; size <= 8; size *= 2) {
			struct scalar t = a, sx = a, z = a;

			scalar_trunc(&t, size);
			scalar_sext(&sx, size);
			scalar_zext32(&z);
			for (int i = 0; i < A.n; i++) {
				u64 x = A.v[i];
				u64 mask = size == 8 ? ~(u64)0 : ((u64)1 << (8 * size)) - 1;

				if (!scalar_contains(&t, x & mask) ||
				    !scalar_contains(&sx, sext_bits(x, 8u * (unsigned int)size)) ||
				    !scalar_contains(&z, (u32)x)) {
					test_fail(__FILE__, __LINE__, "ext size %d of %#" PRIx64,
						  size, x);
					report_scalar("in", &a);
					report_scalar("trunc", &t);
					report_scalar("sext", &sx);
					return;
				}
			}
		}
		for (int w = 16; w <= 64; w *= 2) {
			for (int kd = 0; kd < 3; kd++) {
				struct scalar e = a;

				scalar_end(&e, w, kinds[kd]);
				for (int i = 0; i < A.n; i++) {
					u64 x = A.v[i], y;
					bool swap = kinds[kd] == SCALAR_BSWAP ||
						    (kinds[kd] == BPF_TO_BE) != be;

					if (w == 16)
						y = swap ? __builtin_bswap16((u16)x) : (u16)x;
					else if (w == 32)
						y = swap ? __builtin_bswap32((u32)x) : (u32)x;
					else
						y = swap ? __builtin_bswap64(x) : x;
					if (!scalar_contains(&e, y)) {
						test_fail(__FILE__, __LINE__, "end %d kind %d", w,
							  kd);
						return;
					}
				}
			}
		}
	}
}

/* Checks branch decision and refinement of one (op, width) on abstract a, b. */
static bool check_branch(u8 op, bool jmp32, const struct cset *A, const struct scalar *a,
			 const struct cset *B, const struct scalar *b)
{
	int taken = scalar_branch_taken(a, b, op, jmp32);
	int seen[2] = { 0, 0 };

	for (int i = 0; i < A->n; i++)
		for (int j = 0; j < B->n; j++)
			seen[conc_cond(op, jmp32, A->v[i], B->v[j])] = 1;
	if ((taken == 1 && seen[0]) || (taken == 0 && seen[1])) {
		test_fail(__FILE__, __LINE__, "branch_taken op %#x%s said %d wrongly", op,
			  jmp32 ? " (32)" : "", taken);
		report_scalar("dst", a);
		report_scalar("src", b);
		return false;
	}
	for (int outcome = 0; outcome < 2; outcome++) {
		struct scalar d = *a, s = *b;
		bool ok = scalar_refine_branch(&d, &s, op, jmp32, outcome);

		if (!seen[outcome])
			continue;
		for (int i = 0; i < A->n; i++) {
			for (int j = 0; j < B->n; j++) {
				u64 x = A->v[i], y = B->v[j];

				if (conc_cond(op, jmp32, x, y) != outcome)
					continue;
				if (!ok || !scalar_contains(&d, x) || !scalar_contains(&s, y)) {
					test_fail(__FILE__, __LINE__,
						  "refine op %#x%s outcome %d: (%#" PRIx64
						  ", %#" PRIx64 ") lost (ok=%d)",
						  op, jmp32 ? " (32)" : "", outcome, x, y, ok);
					report_scalar("dst", a);
					report_scalar("src", b);
					report_scalar("dst'", &d);
					report_scalar("src'", &s);
					return false;
				}
			}
		}
	}
	return true;
}

/* check_branch for every jump op in both widths. */
static bool check_branch_all(const struct cset *A, const struct scalar *a, const struct cset *B,
			     const struct scalar *b)
{
	for (unsigned int o = 0; o < sizeof(jmpops); o++)
		for (int w = 0; w < 2; w++)
			if (!check_branch(jmpops[o], w, A, a, B, b))
				return false;
	return true;
}

/* Operands related to each other (nearby values, shared elements, constants) so that both
 * outcomes and the boundary cases of every comparison occur often. */
static struct cset related_set(struct rng *r, const struct cset *A)
{
	struct cset B;

	switch (rng_below(r, 4)) {
	case 0:
		return rand_set(r);
	case 1:
		B.n = 1;
		B.v[0] = A->v[rng_below(r, (unsigned int)A->n)];
		B.v[0] += (u64)(s64)((int)rng_below(r, 5) - 2);
		return B;
	case 2:
		B.n = 1;
		B.v[0] = interesting[rng_below(r, sizeof(interesting) / sizeof(interesting[0]))];
		return B;
	default:
		B.n = 1 + (int)rng_below(r, 4);
		for (int i = 0; i < B.n; i++) {
			B.v[i] = A->v[rng_below(r, (unsigned int)A->n)];
			B.v[i] += (u64)(s64)((int)rng_below(r, 3) - 1);
		}
		return B;
	}
}

TEST(scalar_branch_sound_random)
{
	struct rng r = { 2024 };

	for (int k = 0; k < 25000; k++) {
		struct cset A = rand_set(&r), B = related_set(&r, &A);
		struct scalar a = abstract(&r, &A, true), b = abstract(&r, &B, true);

		if (rng_below(&r, 2)) {	/* either side may be the constant one */
			struct cset tc = A;
			struct scalar ts = a;

			A = B;
			a = b;
			B = tc;
			b = ts;
		}
		if (!check_branch_all(&A, &a, &B, &b))
			return;
	}
}

/* Does some pair (x in S, y in T) give this outcome of the jump? */
static bool cond_possible(u8 op, bool jmp32, const struct cset *S, const struct cset *T,
			  bool outcome)
{
	for (int i = 0; i < S->n; i++)
		for (int j = 0; j < T->n; j++)
			if (conc_cond(op, jmp32, S->v[i], T->v[j]) == outcome)
				return true;
	return false;
}

/* One random step of a chain: applies an operation to s (with operand t for T) and computes the
 * concrete results N of S.  Returns false when the step was skipped (dead path, nothing left). */
static bool chain_step(struct rng *r, unsigned int what, struct scalar *s, const struct cset *S,
		       struct scalar *t, struct cset *T, struct cset *N)
{
	N->n = 0;
	if (what < 5) {
		const struct aluop *o = &aluops[rng_below(r, NALUOPS)];
		bool w = rng_below(r, 3) == 0;

		if (w && o->off == 32)
			return false;
		if (o->op == BPF_LSH || o->op == BPF_RSH || o->op == BPF_ARSH) {
			T->n = 1;
			T->v[0] = rng_below(r, 64);
			*t = scalar_const(T->v[0]);
		}
		scalar_alu(s, t, o->op, o->off, w);
		for (int i = 0; i < S->n; i++)
			for (int j = 0; j < T->n && N->n < MAXSET; j++)
				N->v[N->n++] = conc_alu(o, w, S->v[i], T->v[j]);
	} else if (what < 6) {
		int size = 1 << rng_below(r, 3);
		bool sx = rng_below(r, 2);
		u64 mask = ((u64)1 << (8 * size)) - 1;

		if (sx)
			scalar_sext(s, size);
		else
			scalar_trunc(s, size);
		for (int i = 0; i < S->n; i++)
			N->v[N->n++] = sx ? sext_bits(S->v[i], 8u * (unsigned int)size)
					  : S->v[i] & mask;
	} else {
		u8 op = jmpops[rng_below(r, sizeof(jmpops))];
		bool w = rng_below(r, 2), outcome = rng_below(r, 2);

		if (!scalar_refine_branch(s, t, op, w, outcome)) {
			if (cond_possible(op, w, S, T, outcome))
				test_fail(__FILE__, __LINE__, "chain: feasible branch called dead");
			return false;
		}
		for (int i = 0; i < S->n; i++) {
			struct cset one = { 1, { S->v[i] } };

			if (cond_possible(op, w, &one, T, outcome))
				N->v[N->n++] = S->v[i];
		}
		if (!N->n)
			return false;
	}
	return true;
}

/* Chains: a concrete set and its abstraction evolve together through random ALU ops, width
 * changes and branch refinements; the set must stay inside the abstraction at every step. */
TEST(scalar_chains_sound)
{
	struct rng r = { 31337 };
	long steps = 0;

	for (int k = 0; k < 6000; k++) {
		struct cset S = rand_set(&r);
		struct scalar s = abstract(&r, &S, true);

		for (int step = 0; step < 24; step++) {
			struct cset T = related_set(&r, &S), N;
			struct scalar t = abstract(&r, &T, true), before = s;
			unsigned int what = rng_below(&r, 10);

			if (!chain_step(&r, what, &s, &S, &t, &T, &N)) {
				if (test_failed_now())
					return;
				s = before;	/* skipped: stay on this path */
				continue;
			}
			S = N;
			steps++;
			for (int i = 0; i < S.n; i++) {
				if (!scalar_contains(&s, S.v[i])) {
					test_fail(__FILE__, __LINE__,
						  "chain step %d (%u) lost %#" PRIx64, step, what,
						  S.v[i]);
					report_scalar("before", &before);
					report_scalar("operand", &t);
					report_scalar("after", &s);
					return;
				}
			}
		}
	}
	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "chains: %ld steps\n", steps);
}

/* Exhaustive over small sets: every subset-derived abstraction of values in a window around
 * interesting points, against every constant compare in the window. */
TEST(scalar_branch_const_exhaustive_window)
{
	static const u64 centres[] = { 0, 0x80000000, 0x100000000ULL, 0x8000000000000000ULL,
				       0x7fffffffffffffffULL, 0x7fffffff };
	struct rng r = { 5 };

	for (unsigned int c = 0; c < sizeof(centres) / sizeof(centres[0]); c++) {
		for (u64 lo = 0; lo < 8; lo++) {
			for (u64 hi = lo; hi < 8; hi++) {
				struct cset A = { 0, { 0 } };

				for (u64 x = lo; x <= hi && A.n < MAXSET; x++)
					A.v[A.n++] = centres[c] + x - 4;
				struct scalar a = abstract(&r, &A, false);

				for (u64 y = 0; y < 10; y++) {
					struct cset B = { 1, { centres[c] + y - 5 } };
					struct scalar b = scalar_const(B.v[0]);

					if (!check_branch_all(&A, &a, &B, &b) ||
					    !check_branch_all(&B, &b, &A, &a))
						return;
				}
			}
		}
	}
}

/* Results the kernel gets for common cases (and precision we rely on). */
TEST(scalar_precision_examples)
{
	struct scalar s = scalar_unknown(), k;

	/* r &= 0xff */
	k = scalar_const(0xff);
	scalar_alu(&s, &k, BPF_AND, 0, false);
	CHECK(s.umin == 0 && s.umax == 255 && s.smin == 0 && s.smax == 255);
	CHECK(s.var_off.value == 0 && s.var_off.mask == 0xff);
	/* r += 10 -> [10, 265] */
	k = scalar_const(10);
	scalar_alu(&s, &k, BPF_ADD, 0, false);
	CHECK(s.umin == 10 && s.umax == 265 && s.u32_min == 10 && s.u32_max == 265);
	/* if r > 100 goto (not taken) -> [10, 100] */
	k = scalar_const(100);
	CHECK(scalar_refine_branch(&s, &k, BPF_JGT, false, false));
	CHECK(s.umin == 10 && s.umax == 100 && s.smax == 100 && s.s32_max == 100);
	CHECK_EQ(scalar_branch_taken(&s, &k, BPF_JGT, false), 0);
	CHECK_EQ(scalar_branch_taken(&s, &k, BPF_JLE, false), 1);
	k = scalar_const(50);
	CHECK_EQ(scalar_branch_taken(&s, &k, BPF_JGT, false), -1);
	k = scalar_const(5);
	CHECK_EQ(scalar_branch_taken(&s, &k, BPF_JEQ, false), 0);
	/* a constant result */
	s = scalar_const(6);
	k = scalar_const(7);
	scalar_alu(&s, &k, BPF_MUL, 0, false);
	CHECK(scalar_is_const(&s) && s.var_off.value == 42);
	/* w1 = -1 then zero-extension */
	s = scalar_const(~(u64)0);
	scalar_alu(&s, &s, BPF_MOV, 0, true);
	CHECK(scalar_is_const(&s) && s.var_off.value == 0xffffffff);
	/* a branch the range rules out: [10, 4] shares nothing with the tnum; 6.18's bounds
	 * update makes it the tnum's member at umin (the kernel decides such a branch before
	 * refining; a register compared with itself reaches this) */
	s = scalar_urange(10, 20);
	k = scalar_const(5);
	CHECK(scalar_refine_branch(&s, &k, BPF_JLT, false, true));
	CHECK(scalar_is_const(&s) && s.var_off.value == 10);
	/* JNE against a bound trims it */
	s = scalar_urange(10, 20);
	k = scalar_const(10);
	CHECK(scalar_refine_branch(&s, &k, BPF_JNE, false, true));
	CHECK(s.umin == 11);
	/* jmp32 on an unknown: 64-bit bounds follow from the block structure */
	s = scalar_unknown();
	k = scalar_const(10);
	CHECK(scalar_refine_branch(&s, &k, BPF_JLT, true, true));
	CHECK(s.u32_max == 9 && s.umax == 0xffffffff00000009ULL);
	/* a signed range across zero and an unsigned one across 2^63 that meets only its
	 * negative piece: r = -(u32 x); if r > 42 (the kernel's log: smax -1, umin and the high
	 * half of var_off from smin) */
	s = scalar_srange(-0xffffffffLL, 0);
	k = scalar_const(42);
	CHECK(scalar_refine_branch(&s, &k, BPF_JGT, false, true));
	CHECK(s.smin == -0xffffffffLL && s.smax == -1 && s.umin == 0xffffffff00000001ULL &&
	      s.umax == ~0ULL && s.u32_min == 1);
	CHECK(s.var_off.value == 0xffffffff00000000ULL && s.var_off.mask == 0xffffffff);
	/* the mirror image: [-5, 100] and u <= 2^63 + 10 meet in [0, 100] only */
	s = scalar_srange(-5, 100);
	k = scalar_const(0x800000000000000aULL);
	CHECK(scalar_refine_branch(&s, &k, BPF_JLE, false, true));
	CHECK(s.smin == 0 && s.smax == 100 && s.umin == 0 && s.umax == 100);
	/* the same in 32 bits: u32 [3, U32_MAX] meets only the negative piece of s32 [S32_MIN, 1] */
	s = scalar_unknown();
	k = scalar_const(3);
	CHECK(scalar_refine_branch(&s, &k, BPF_JLT, true, false));
	k = scalar_const(1);
	CHECK(scalar_refine_branch(&s, &k, BPF_JSGT, true, false));
	CHECK(s.s32_min == INT32_MIN && s.s32_max == -1 && s.u32_min == 0x80000000u &&
	      s.u32_max == 0xffffffffu);
	/* and u32 [0, 0x80000005] only the non-negative piece of s32 [-5, 100] */
	s = scalar_unknown();
	k = scalar_const(0x80000005u);
	CHECK(scalar_refine_branch(&s, &k, BPF_JGT, true, false));
	k = scalar_const(100);
	CHECK(scalar_refine_branch(&s, &k, BPF_JSGT, true, false));
	k = scalar_const((u64)-5);
	CHECK(scalar_refine_branch(&s, &k, BPF_JSLT, true, false));
	CHECK(s.s32_min == 0 && s.s32_max == 100 && s.u32_min == 0 && s.u32_max == 100);
	/* unknown shifts */
	s = scalar_urange(0, 5);
	k = scalar_urange(1, 2);
	scalar_alu(&s, &k, BPF_LSH, 0, false);
	CHECK(tnum_is_unknown(s.var_off));
	/* a 32-bit one too, all 64 bits (the kernel does not zero-extend an untracked result) */
	s = scalar_urange(0, 5);
	scalar_alu(&s, &k, BPF_LSH, 0, true);
	CHECK(tnum_is_unknown(s.var_off) && s.umax == ~0ULL);
}

static bool prints(const struct scalar *s, u32 id, const char *want)
{
	char buf[256];
	int n = scalar_snprint(buf, sizeof(buf), s, id);

	if (strcmp(buf, want) || n != (int)strlen(want)) {
		test_fail(__FILE__, __LINE__, "printed \"%s\", want \"%s\"", buf, want);
		return false;
	}
	return true;
}

/* 6.18's rule: a range sharing one value with the tnum makes the register that value. */
static struct scalar tnum_and_range(u64 value, u64 mask, u64 umin, u64 umax)
{
	struct scalar s = scalar_unknown();

	s.var_off = (struct tnum){ value, mask };
	s.umin = umin;
	s.umax = umax;
	scalar_sync_bounds(&s);
	return s;
}

TEST(scalar_sync_single_tnum_value)
{
	struct scalar s;

	/* members of (0; 0x1010): 0, 0x10, 0x1000, 0x1010 */
	s = tnum_and_range(0, 0x1010, 0x10, 0x100); /* umin itself, the next member above */
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x10);
	s = tnum_and_range(0, 0x1010, 1, 0x100); /* one member inside, umin not a member */
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x10);
	s = tnum_and_range(0, 0x1010, 0x1001, 0x1010); /* only the largest member */
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x1010);
	s = tnum_and_range(0, 0x1010, 1, 0x1000); /* two members: the range stays as it was */
	CHECK(!scalar_is_const(&s) && s.umin == 1 && s.umax == 0x1000);
	/* fixed bits among the unknown ones: members of (0x101; 0x1010) are 0x101, 0x111,
	 * 0x1101, 0x1111 */
	s = tnum_and_range(0x101, 0x1010, 0x112, 0x1110);
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x1101);
	s = tnum_and_range(0x101, 0x1010, 0x102, 0x1100);
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x111);
	/* no member inside: the kernel's second case gives the largest (a dead branch) */
	s = tnum_and_range(0, 0x80000000, 1, 0x7fffffff);
	CHECK(scalar_is_const(&s) && s.var_off.value == 0x80000000);
}

TEST(scalar_printer_kernel_format)
{
	struct scalar s = scalar_unknown(), k;
	char small[8];

	CHECK(prints(&s, 0, "scalar()"));
	CHECK(prints(&s, 5, "scalar(id=5)"));
	s = scalar_const(42);
	CHECK(prints(&s, 0, "42"));
	s = scalar_const(~(u64)0);
	CHECK(prints(&s, 3, "-1"));

	/* r0 = *(u8 *)(r1 + 0) */
	s = scalar_unknown();
	scalar_trunc(&s, 1);
	CHECK(prints(&s, 0, "scalar(umax=255,var_off=(0x0; 0xff))"));
	CHECK(prints(&s, 2, "scalar(id=2,umax=255,var_off=(0x0; 0xff))"));

	/* w1 = w1 */
	s = scalar_unknown();
	scalar_alu(&s, &s, BPF_MOV, 0, true);
	CHECK(prints(&s, 0, "scalar(umax=4294967295,var_off=(0x0; 0xffffffff))"));

	/* if r1 > 10 goto ... (fall-through) */
	s = scalar_unknown();
	k = scalar_const(10);
	scalar_refine_branch(&s, &k, BPF_JGT, false, false);
	CHECK(prints(&s, 0, "scalar(umax=10,var_off=(0x0; 0xf))"));

	/* if r1 s> -5 goto ... (taken) */
	s = scalar_unknown();
	k = scalar_const((u64)-5);
	scalar_refine_branch(&s, &k, BPF_JSGT, false, true);
	CHECK(prints(&s, 0, "scalar(smin=-4)"));

	/* r1 <<= 32; r1 s>>= 32 */
	s = scalar_unknown();
	k = scalar_const(32);
	scalar_alu(&s, &k, BPF_LSH, 0, false);
	CHECK(prints(&s, 0, "scalar(smax=9223372032559808512,umax=18446744069414584320,"
			    "var_off=(0x0; 0xffffffff00000000),s32_min=0,s32_max=0,u32_max=0)"));
	scalar_alu(&s, &k, BPF_ARSH, 0, false);
	CHECK(prints(&s, 0, "scalar(smin=-2147483648,smax=2147483647)"));

	/* r1 &= 0xf0 */
	s = scalar_unknown();
	k = scalar_const(0xf0);
	scalar_alu(&s, &k, BPF_AND, 0, false);
	CHECK(prints(&s, 0, "scalar(umax=240,var_off=(0x0; 0xf0))"));

	/* a signed range across zero */
	s = scalar_srange(-16, 15);
	CHECK(prints(&s, 0, "scalar(smin=-16,smax=15)"));

	/* u32 bounds print with %d in 6.1 */
	s = scalar_urange(0x180000000ULL, 0x1800000ffULL);
	CHECK(prints(&s, 0, "scalar(umin=6442450944,umax=6442451199,var_off=(0x180000000; 0xff),"
			    "s32_max=-2147483393,u32_min=-2147483648,u32_max=-2147483393)"));

	/* a range of small values: umin printed, smin implied */
	s = scalar_urange(3, 9);
	CHECK(prints(&s, 0, "scalar(umin=3,umax=9,var_off=(0x0; 0xf))"));

	/* snprintf semantics */
	s = scalar_unknown();
	scalar_trunc(&s, 1);
	CHECK_EQ(scalar_snprint(small, sizeof(small), &s, 0), 36);
	CHECK(!strcmp(small, "scalar("));
	CHECK_EQ(scalar_snprint(NULL, 0, &s, 0), 36);
}
