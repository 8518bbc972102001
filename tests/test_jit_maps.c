/* test_jit_maps.c — helper calls the JIT resolves at compile time (jit_opts.resolve_call):
 *  - at the JIT's level, with a resolver of its own: inline array lookups (hit, miss, index out
 *    of range, a value written through the returned pointer, elem_size a power of two or not)
 *    and direct calls (a 32-bit result sign-extended), each against the interpreter running the
 *    same program with helpers that compute the same; r1 known only when an LD_IMM64 of a map
 *    reaches the call in the same basic block (a jump landing in between, a write to r1 or a
 *    call in between keep the helper call);
 *  - end to end through bpf(): XDP programs on array and hash maps (lookup, update, delete,
 *    errors) run with the JIT on and off, retval and map contents compared with each other and
 *    with the expected values.
 */
#include <stdlib.h>

#include "test_prog.h"
#include "exec/interp.h"
#include "exec/jit.h"

#ifdef __x86_64__

/* ---- JIT level ---- */

#define FAKE_MAP 0x123456789abcULL
#define ARR_N 5

static uint8_t arr_area[ARR_N * 24];
static uint32_t arr_elem;	/* elem_size of the fake array, 8 or 24 */
static int resolver_calls;
static int resolve_mode;	/* 1: array inline, 2: direct call with sext32 */

static uint64_t fake_lookup(uint64_t map, uint64_t key, uint64_t a3, uint64_t a4, uint64_t a5)
{
	uint32_t idx;

	if (map != FAKE_MAP)
		return 0xdead;
	memcpy(&idx, (const void *)(uintptr_t)key, 4);
	return idx < ARR_N ? (uintptr_t)(arr_area + (size_t)idx * arr_elem) : 0;
}

/* The helper returns the int's sign extension; the direct function only the int. */
static int fake_op_int(uint64_t map, uint64_t key)
{
	uint32_t k;

	memcpy(&k, (const void *)(uintptr_t)key, 4);
	return k ? -(int)k : 5;
}

static uint64_t fake_op(uint64_t map, uint64_t key, uint64_t a3, uint64_t a4, uint64_t a5)
{
	return (uint64_t)(int64_t)fake_op_int(map, key);
}

static const interp_helper_fn fake_helpers[3] = { NULL, fake_lookup, fake_op };
static const struct interp_env fake_env = { .helpers = fake_helpers, .nr_helpers = 3 };

static int fake_resolve(void *arg, const void *fn, uint64_t r1, struct jit_call *how)
{
	resolver_calls++;
	if (r1 != FAKE_MAP || arg != (void *)&fake_env)
		return 0;
	if (fn == (const void *)fake_lookup && resolve_mode == 1) {
		how->kind = JIT_CALL_ARRAY;
		how->base = (uintptr_t)arr_area;
		how->elem_size = arr_elem;
		how->max_entries = ARR_N;
		return 1;
	}
	if (fn == (const void *)fake_op && resolve_mode == 2) {
		how->kind = JIT_CALL_DIRECT;
		how->fn = (const void *)fake_op_int;
		how->sext32 = 1;
		return 1;
	}
	return 0;
}

#define LD_FAKE_MAP(reg)                                                                         \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0,                       \
		     (int32_t)(uint32_t)FAKE_MAP),                                               \
	BPF_RAW_INSN(0, 0, 0, 0, (int32_t)(FAKE_MAP >> 32))

/* r1 (the index) -> lookup; miss: 1000; hit: the u64 at the value, then store it + 7 there. */
static const struct bpf_insn prog_lookup[] = {
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
	LD_FAKE_MAP(BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(1),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 1000),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 7),
	BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
};

/* r1 (the key) -> the int op; r0 as the helper returns it (64 bits). */
static const struct bpf_insn prog_op[] = {
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
	LD_FAKE_MAP(BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(2),
	BPF_EXIT_INSN(),
};

/* prog_lookup's shape with the map's LD_IMM64 cut off from the call: r1 unknown. */
static const struct bpf_insn prog_blocked_jump[] = {
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
	LD_FAKE_MAP(BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 1, 0), /* lands on the next instruction */
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(1),
	BPF_EXIT_INSN(),
};

static const struct bpf_insn prog_blocked_write[] = {
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
	LD_FAKE_MAP(BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 0), /* r1 written (to the same value) */
	BPF_EMIT_CALL(1),
	BPF_EXIT_INSN(),
};

/* Two lookups; the second's LD_IMM64 is before the first call: r1 clobbered by it. */
static const struct bpf_insn prog_blocked_call[] = {
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
	LD_FAKE_MAP(BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(1), /* resolved */
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(1), /* not: r1 is whatever the first call left */
	BPF_EXIT_INSN(),
};

static int run_both(const struct bpf_insn *insns, uint32_t cnt, const struct jit_opts *opts,
		    uint64_t arg, uint64_t *jit_r0, uint64_t *interp_r0)
{
	uint64_t args[5] = { arg, 0, 0, 0, 0 };
	struct interp_prog *ip;
	struct jit_prog *jp;
	int err;

	err = jit_compile(insns, cnt, &fake_env, opts, &jp);
	if (err)
		return err;
	err = interp_prepare(insns, cnt, &fake_env, &ip);
	if (err) {
		jit_free(jp);
		return err;
	}
	err = jit_exec(jp, args, jit_r0) | interp_exec(ip, args, interp_r0);
	jit_free(jp);
	interp_free(ip);
	return err;
}

static void fill_area(void)
{
	for (size_t i = 0; i < ARR_N; i++) {
		uint64_t v = 100 + i;

		memcpy(arr_area + i * arr_elem, &v, 8);
	}
}

TEST(jit_resolved_array_lookup)
{
	struct jit_opts opts = { .sz = sizeof(opts), .resolve_call = fake_resolve,
				 .resolve_arg = (void *)&fake_env };
	static const uint64_t idx[] = { 0, 2, 4, 5, 1000, 0x80000000u, 0xffffffffu };

	resolve_mode = 1;
	for (int blind = 0; blind <= 1; blind++) {
		opts.blind = blind;
		for (arr_elem = 8; arr_elem <= 24; arr_elem += 16) {
			for (size_t i = 0; i < ARRAY_SIZE(idx); i++) {
				uint64_t rj = 0, ri = 0, v, want = idx[i] < ARR_N ? 100 + idx[i] : 1000;

				resolver_calls = 0;
				/* the JIT runs first and adds 7, then the interpreter */
				fill_area();
				CHECK_EQ(run_both(prog_lookup, ARRAY_SIZE(prog_lookup), &opts,
						  idx[i] | 0xabcd00000000ULL, &rj, &ri),
					 0);
				CHECK_EQ(resolver_calls, 1);
				CHECK_EQ(rj, want);
				CHECK_EQ(ri, idx[i] < ARR_N ? want + 7 : want); /* after the JIT's */
				if (idx[i] < ARR_N) { /* each engine wrote value + 7 once */
					memcpy(&v, arr_area + idx[i] * arr_elem, 8);
					CHECK_EQ(v, 100 + idx[i] + 14);
				}
			}
		}
	}
}

TEST(jit_resolved_direct_call)
{
	struct jit_opts opts = { .sz = sizeof(opts), .resolve_call = fake_resolve,
				 .resolve_arg = (void *)&fake_env };
	static const uint32_t keys[] = { 0, 1, 17, 0x7fffffff };

	resolve_mode = 2;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		uint64_t rj = 0, ri = 0;

		resolver_calls = 0;
		CHECK_EQ(run_both(prog_op, ARRAY_SIZE(prog_op), &opts, keys[i], &rj, &ri), 0);
		CHECK_EQ(resolver_calls, 1);
		CHECK_EQ(rj, keys[i] ? (uint64_t) - (int64_t)keys[i] : 5);
		CHECK_EQ(rj, ri);
	}
}

TEST(jit_resolve_needs_known_r1)
{
	struct jit_opts opts = { .sz = sizeof(opts), .resolve_call = fake_resolve,
				 .resolve_arg = (void *)&fake_env };
	struct { const struct bpf_insn *insns; uint32_t cnt; int calls; } cases[] = {
		{ prog_blocked_jump, ARRAY_SIZE(prog_blocked_jump), 0 },
		{ prog_blocked_write, ARRAY_SIZE(prog_blocked_write), 0 },
		{ prog_blocked_call, ARRAY_SIZE(prog_blocked_call), 1 },
	};

	resolve_mode = 1;
	arr_elem = 24;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t rj = 1, ri = 2;

		resolver_calls = 0;
		fill_area();
		CHECK_EQ(run_both(cases[i].insns, cases[i].cnt, &opts, 3, &rj, &ri), 0);
		CHECK_EQ(resolver_calls, cases[i].calls);
		CHECK_EQ(rj, ri);
	}
}

#endif /* __x86_64__ */

/* ---- end to end (elsewhere both runs use the interpreter) ---- */

static int map_new(uint32_t type, uint32_t value_size, uint32_t max)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = 4;
	a.value_size = value_size;
	a.max_entries = max;
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static int map_put(int fd, uint32_t key, const void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)value;
	return bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
}

static int map_get(int fd, uint32_t key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)value;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
}

static int load_xdp(const struct bpf_insn *insns, uint32_t cnt, int map_fd, int jit)
{
	struct bpf_insn *copy = malloc(cnt * sizeof(*copy));
	union bpf_attr a;
	int fd, old;

	if (!copy)
		return -1;
	memcpy(copy, insns, cnt * sizeof(*copy));
	for (uint32_t i = 0; i < cnt; i++)
		if (copy[i].code == (BPF_LD | BPF_DW | BPF_IMM) && copy[i].imm == MAP_SLOT)
			copy[i].imm = map_fd;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (uintptr_t)copy;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	old = userbpf_set_jit(jit);
	fd = bpf(BPF_PROG_LOAD, &a, sizeof(a));
	userbpf_set_jit(old);
	free(copy);
	return fd;
}

/* Runs prog_fd on a 64-byte packet starting with the 8 bytes of word; returns retval. */
static uint32_t xdp_run(int prog_fd, uint64_t word)
{
	uint8_t pkt[64] = { 0 };
	union bpf_attr a;

	memcpy(pkt, &word, 8);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog_fd;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	a.test.repeat = 1;
	if (bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)))
		return 0xbadbad;
	return a.test.retval;
}

#define PKT_WORDS /* r6 = pkt[0..4) (key), r7 = pkt[4..8) (op / argument); else XDP_ABORTED */ \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, (short)offsetof(struct xdp_md, data)),          \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, (short)offsetof(struct xdp_md, data_end)),      \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),                                                     \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),                                                    \
	BPF_MOV64_IMM(BPF_REG_0, 0),                                                             \
	BPF_JMP_REG(BPF_JLE, BPF_REG_4, BPF_REG_3, 1),                                           \
	BPF_EXIT_INSN(),                                                                         \
	BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_2, 0),                                             \
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_2, 4),                                             \
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4)

/* Array of 24-byte values (elem 24): lookup(key); miss 1000; hit: u32 at offset 16 of the value
 * += r7, return the old one. */
static const struct bpf_insn e2e_array[] = {
	PKT_WORDS,
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 1000),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, 16),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_1),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_7),
	BPF_STX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 16),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
};

/* Hash u32 -> u64.  r7 low byte: 0 lookup (value or 1000), 1 update(key, key * 3, flags r7 >> 8),
 * 2 delete.  Update and delete return 3000 on 0, 2000 + -err on an error (so a result that was
 * not sign-extended from 32 bits would show). */
static const struct bpf_insn e2e_hash[] = {
	PKT_WORDS,
	BPF_MOV64_REG(BPF_REG_8, BPF_REG_7),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_8, 0xff),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_8, 0, 10),
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 1000),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0),
	BPF_EXIT_INSN(),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_8, 1, 13),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_1, 3),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -16),
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_7),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_4, 8),
	BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
	BPF_JMP_IMM(BPF_JA, 0, 0, 5),
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_EMIT_CALL(BPF_FUNC_map_delete_elem),
	/* r0: 0 or a negative errno */
	BPF_JMP_IMM(BPF_JSGE, BPF_REG_0, 0, 3),
	BPF_RAW_INSN(BPF_ALU64 | BPF_NEG, BPF_REG_0, 0, 0, 0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2000),
	BPF_EXIT_INSN(),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 3000),
	BPF_EXIT_INSN(),
};

TEST(jit_map_calls_end_to_end_array)
{
	uint8_t v[24];
	int map[2], prog[2];

	for (int jit = 0; jit <= 1; jit++) {
		map[jit] = map_new(BPF_MAP_TYPE_ARRAY, 24, 4);
		REQUIRE(map[jit] >= 0);
		for (uint32_t k = 0; k < 4; k++) {
			uint32_t x = 10 * k;

			memset(v, 0, sizeof(v));
			memcpy(v + 16, &x, 4);
			REQUIRE(map_put(map[jit], k, v) == 0);
		}
		prog[jit] = load_xdp(e2e_array, ARRAY_SIZE(e2e_array), map[jit], jit);
		REQUIRE(prog[jit] >= 0);
	}
	static const struct { uint32_t key, add, want; } runs[] = {
		{ 0, 1, 0 }, { 0, 1, 1 }, { 3, 5, 30 }, { 3, 5, 35 }, { 4, 1, 1000 },
		{ 0xffffffffu, 1, 1000 }, { 0x80000000u, 1, 1000 }, { 2, 0xffffffffu, 20 },
		{ 2, 2, 19 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		for (int jit = 0; jit <= 1; jit++)
			CHECK_EQ(xdp_run(prog[jit], runs[i].key | (uint64_t)runs[i].add << 32),
				 runs[i].want);
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t x[2];

		for (int jit = 0; jit <= 1; jit++) {
			CHECK_EQ(map_get(map[jit], k, v), 0);
			memcpy(&x[jit], v + 16, 4);
		}
		CHECK_EQ(x[0], x[1]);
		CHECK_EQ(x[1], k == 0 ? 2 : k == 1 ? 10 : k == 2 ? 21 : 40);
	}
	for (int jit = 0; jit <= 1; jit++) {
		close(prog[jit]);
		close(map[jit]);
	}
}

TEST(jit_map_calls_end_to_end_hash)
{
	int map[2], prog[2];

	for (int jit = 0; jit <= 1; jit++) {
		map[jit] = map_new(BPF_MAP_TYPE_HASH, 8, 3);
		REQUIRE(map[jit] >= 0);
		prog[jit] = load_xdp(e2e_hash, ARRAY_SIZE(e2e_hash), map[jit], jit);
		REQUIRE(prog[jit] >= 0);
	}
#define OP(op, flags) ((uint32_t)(op) | (uint32_t)(flags) << 8)
	static const struct { uint32_t key, op, want; } runs[] = {
		{ 7, OP(0, 0), 1000 },				/* miss */
		{ 7, OP(2, 0), 2000 + ENOENT },			/* delete of a missing key */
		{ 7, OP(1, BPF_EXIST), 2000 + ENOENT },
		{ 7, OP(1, BPF_ANY), 3000 },
		{ 7, OP(0, 0), 21 },				/* hit */
		{ 7, OP(1, BPF_NOEXIST), 2000 + EEXIST },
		{ 8, OP(1, BPF_NOEXIST), 3000 },
		{ 9, OP(1, BPF_ANY), 3000 },
		{ 10, OP(1, BPF_ANY), 2000 + E2BIG },		/* full */
		{ 10, OP(1, 7), 2000 + EINVAL },		/* bad flags */
		{ 8, OP(2, 0), 3000 },
		{ 8, OP(0, 0), 1000 },
		{ 10, OP(1, BPF_ANY), 3000 },
		{ 10, OP(0, 0), 30 },
	};
#undef OP
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		for (int jit = 0; jit <= 1; jit++)
			CHECK_EQ(xdp_run(prog[jit], runs[i].key | (uint64_t)runs[i].op << 32),
				 runs[i].want);
	for (uint32_t k = 6; k <= 11; k++) {
		uint64_t x[2] = { 0, 0 };
		int r[2];

		for (int jit = 0; jit <= 1; jit++)
			r[jit] = map_get(map[jit], k, &x[jit]);
		CHECK_EQ(r[0], r[1]);
		CHECK_EQ(x[0], x[1]);
		CHECK_EQ(r[1], k == 7 || k == 9 || k == 10 ? 0 : -1);
		if (!r[1])
			CHECK_EQ(x[1], 3 * k);
	}
	for (int jit = 0; jit <= 1; jit++) {
		close(prog[jit]);
		close(map[jit]);
	}
}
