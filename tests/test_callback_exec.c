/* test_callback_exec.c — callbacks at run time in the interpreter: bpf_loop() and
 * bpf_for_each_map_elem() (src/exec/callback.h), with the real helpers and maps.
 *
 * Programs are raw instructions run by interp_prepare()/interp_exec() without the verifier; a
 * program's r1 points at a struct of the test's, where it reads its inputs and stores what it
 * saw (the helper's return value, the callback's counts).  Callbacks keep their ctx on the
 * caller's stack.  Maps are made through bpf() and named in LD_IMM64 by their struct bpf_map
 * address, as the loader leaves them.  Expected values are the kernel's (bpf_iter.c, arraymap.c,
 * hashtab.c): bpf_loop's count, -EINVAL for flags, -E2BIG above 1 << 23, a u32 nr_loops; the
 * number of elements visited, values through pointers into the map.
 */
#include <stdlib.h>

#include "exec/callback.h"
#include "exec/helpers.h"
#include "exec/interp.h"
#include "exec/interp_checked.h"
#include "fd.h"
#include "map/jhash.h"
#include "map/map.h"
#include "rcu.h"
#include "test_prog.h"

#define FUNC(R, OFF) BPF_LD_IMM64_RAW(R, BPF_PSEUDO_FUNC, OFF)
#define MAP_PLACEHOLDER(R) BPF_LD_IMM64_RAW(R, BPF_PSEUDO_MAP_FD, MAP_SLOT)
#define N_INSNS(a) ((uint32_t)ARRAY_SIZE(a))

/* The helpers of an XDP program, from the prototype table (bpf_loop and the map helpers). */
static const struct interp_env *xdp_env(void)
{
	static interp_helper_fn fns[BPF_HELPER_ID_MAX];
	static struct interp_env env;

	if (!env.helpers) {
		for (uint32_t id = 0; id < BPF_HELPER_ID_MAX; id++) {
			const struct bpf_func_proto *p = bpf_helper_proto(id, BPF_PROG_TYPE_XDP);

			fns[id] = p ? p->func : NULL;
		}
		env.helpers = fns;
		env.nr_helpers = BPF_HELPER_ID_MAX;
	}
	return &env;
}

/* bpf_loop run by the interpreter itself (interp_env.loop_id: each round a bpf-to-bpf call of
 * the callback in the same run) or by the helper.  Both environments have the XDP helpers with
 * bpf_loop's entry counting how often the helper itself runs. */
static bool inline_loop;
static unsigned int loop_helper_calls;
static interp_helper_fn real_loop;

static uint64_t counting_loop(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	loop_helper_calls++;
	return real_loop(r1, r2, r3, r4, r5);
}

static const struct interp_env *loop_env(bool inline_it)
{
	static interp_helper_fn fns[BPF_HELPER_ID_MAX];
	static struct interp_env env[2];

	if (!env[0].helpers) {
		memcpy(fns, xdp_env()->helpers, sizeof(fns));
		real_loop = fns[BPF_FUNC_loop];
		fns[BPF_FUNC_loop] = counting_loop;
		env[0] = env[1] = *xdp_env();
		env[0].helpers = env[1].helpers = fns;
		env[1].loop_id = BPF_FUNC_loop;
	}
	return &env[inline_it];
}

/* How often the bpf_loop helper runs for n bpf_loop calls: never when inlined. */
#define HELPER_CALLS(n) (inline_loop ? 0 : (n))

/* Prepares insns (cnt), with map's address in each map placeholder, and runs it with r1 = io
 * (bpf_loop inlined when inline_loop is set). */
static int run_prog(struct bpf_insn *insns, uint32_t cnt, struct bpf_map *map, void *io,
		    uint64_t *r0)
{
	uint64_t args[5] = { (uintptr_t)io, 0, 0, 0, 0 };
	struct interp_prog *p;
	int err;

	for (uint32_t i = 0; i + 1 < cnt; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    insns[i].src_reg == BPF_PSEUDO_MAP_FD && insns[i].imm == MAP_SLOT) {
			uint64_t v = (uintptr_t)map;

			insns[i].src_reg = 0;
			insns[i].imm = (int32_t)(uint32_t)v;
			insns[i + 1].imm = (int32_t)(uint32_t)(v >> 32);
		}
	err = interp_prepare(insns, cnt, loop_env(inline_loop), &p);
	if (err)
		return err;
	loop_helper_calls = 0;
	rcu_read_lock(); /* map ops run in a read section, as in a loaded program's run */
	err = interp_exec(p, args, r0);
	rcu_read_unlock();
	interp_free(p);
	return err;
}

/* ---- bpf_loop ---- */

/* LOOP_TEST(x) { body } is two tests: callback_exec_loop_x runs body with the bpf_loop helper,
 * callback_exec_inline_loop_x with the interpreter running the loop itself; the results must be
 * the same. */
#define LOOP_TEST(name)                                                                           \
	static void loop_##name(void);                                                            \
	TEST(callback_exec_loop_##name)                                                           \
	{                                                                                         \
		inline_loop = false;                                                              \
		loop_##name();                                                                    \
	}                                                                                         \
	TEST(callback_exec_inline_loop_##name)                                                    \
	{                                                                                         \
		inline_loop = true;                                                               \
		loop_##name();                                                                    \
		inline_loop = false;                                                              \
	}                                                                                         \
	static void loop_##name(void)

struct loop_io {
	uint64_t nr, flags, stop; /* in: bpf_loop's nr_loops and flags; the i the callback stops at */
	uint64_t ret, sum, calls; /* out */
};

/* bpf_loop(nr, cb, &ctx, flags); cb adds i to ctx.sum, counts, returns i == ctx.stop. */
static void run_loop(struct loop_io *io)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_LDX_MEM(BPF_DW, 1, 6, 16),
		BPF_STX_MEM(BPF_DW, 10, 1, -8),		/* ctx: sum -24, calls -16, stop -8 */
		BPF_ST_MEM(BPF_DW, 10, -16, 0),
		BPF_ST_MEM(BPF_DW, 10, -24, 0),
		BPF_LDX_MEM(BPF_DW, 1, 6, 0),
		FUNC(2, 12),				/* 6: -> 19 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -24),
		BPF_LDX_MEM(BPF_DW, 4, 6, 8),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 24),
		BPF_LDX_MEM(BPF_DW, 1, 10, -24),
		BPF_STX_MEM(BPF_DW, 6, 1, 32),
		BPF_LDX_MEM(BPF_DW, 1, 10, -16),
		BPF_STX_MEM(BPF_DW, 6, 1, 40),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 19: the callback (r1 = i, r2 = ctx) */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_LDX_MEM(BPF_DW, 3, 2, 8),
		BPF_ALU64_IMM(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 8),
		BPF_MOV64_IMM(0, 0),
		BPF_LDX_MEM(BPF_DW, 3, 2, 16),
		BPF_JMP_REG(BPF_JNE, 1, 3, 1),
		BPF_MOV64_IMM(0, 1),
		BPF_EXIT_INSN(),
	};
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(loop_helper_calls, HELPER_CALLS(1));
}

LOOP_TEST(sum)
{
	struct loop_io io = { .nr = 10, .stop = (uint64_t)-1 };

	run_loop(&io);
	CHECK_EQ(io.ret, 10);
	CHECK_EQ(io.sum, 45);
	CHECK_EQ(io.calls, 10);

	/* only the low 32 bits of nr_loops count */
	io = (struct loop_io){ .nr = (1ull << 32) + 3, .stop = (uint64_t)-1 };
	run_loop(&io);
	CHECK_EQ(io.ret, 3);
	CHECK_EQ(io.sum, 3);
	CHECK_EQ(io.calls, 3);
}

LOOP_TEST(early_stop)
{
	struct loop_io io = { .nr = 10, .stop = 3 };

	run_loop(&io);
	CHECK_EQ(io.ret, 4);
	CHECK_EQ(io.sum, 6);
	CHECK_EQ(io.calls, 4);

	/* the bound itself is allowed (stopped early, so that the test stays fast) */
	io = (struct loop_io){ .nr = 1u << 23, .stop = 5 };
	run_loop(&io);
	CHECK_EQ(io.ret, 6);
	CHECK_EQ(io.calls, 6);

	/* a stop at the first and at the last round */
	io = (struct loop_io){ .nr = 7, .stop = 0 };
	run_loop(&io);
	CHECK_EQ(io.ret, 1);
	CHECK_EQ(io.calls, 1);
	io = (struct loop_io){ .nr = 7, .stop = 6 };
	run_loop(&io);
	CHECK_EQ(io.ret, 7);
	CHECK_EQ(io.sum, 21);
	CHECK_EQ(io.calls, 7);
	io = (struct loop_io){ .nr = 1, .stop = (uint64_t)-1 };
	run_loop(&io);
	CHECK_EQ(io.ret, 1);
	CHECK_EQ(io.calls, 1);
}

LOOP_TEST(zero_and_errors)
{
	struct loop_io io = { .nr = 0, .stop = (uint64_t)-1 };

	run_loop(&io);
	CHECK_EQ(io.ret, 0);
	CHECK_EQ(io.calls, 0);

	io = (struct loop_io){ .nr = 5, .flags = 1, .stop = (uint64_t)-1 };
	run_loop(&io);
	CHECK_EQ(io.ret, (uint64_t)-EINVAL);
	CHECK_EQ(io.calls, 0);

	io = (struct loop_io){ .nr = (1u << 23) + 1, .stop = 0 };
	run_loop(&io);
	CHECK_EQ(io.ret, (uint64_t)-E2BIG);
	CHECK_EQ(io.calls, 0);

	/* the flags are checked before the count; a high half of the count does not help */
	io = (struct loop_io){ .nr = 0, .flags = 1ull << 40, .stop = (uint64_t)-1 };
	run_loop(&io);
	CHECK_EQ(io.ret, (uint64_t)-EINVAL);
	io = (struct loop_io){ .nr = 0xffffffffull, .stop = 0 };
	run_loop(&io);
	CHECK_EQ(io.ret, (uint64_t)-E2BIG);
	CHECK_EQ(io.calls, 0);
}

/* The callback calls a bpf-to-bpf function and keeps i on its own stack at the offset where the
 * caller keeps a canary; the function writes its own frame at the same offset.  Frames that
 * overlapped would change the sum or the canary. */
LOOP_TEST(subcall_and_stack)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_ST_MEM(BPF_DW, 10, -8, 0),		/* ctx: the sum */
		BPF_MOV64_IMM(1, 0x5a5a),
		BPF_STX_MEM(BPF_DW, 10, 1, -32),	/* the canary */
		BPF_LDX_MEM(BPF_DW, 1, 6, 0),
		FUNC(2, 12),				/* 5: -> 18 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 8),
		BPF_LDX_MEM(BPF_DW, 1, 10, -8),
		BPF_STX_MEM(BPF_DW, 6, 1, 16),
		BPF_LDX_MEM(BPF_DW, 1, 10, -32),
		BPF_STX_MEM(BPF_DW, 6, 1, 24),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 18: callback: sum += 2 * i (the function) + i (from its stack) */
		BPF_MOV64_REG(6, 2),
		BPF_STX_MEM(BPF_DW, 10, 1, -32),
		BPF_CALL_REL(7),			/* 20: -> 28 */
		BPF_LDX_MEM(BPF_DW, 1, 10, -32),
		BPF_ALU64_REG(BPF_ADD, 0, 1),
		BPF_LDX_MEM(BPF_DW, 1, 6, 0),
		BPF_ALU64_REG(BPF_ADD, 1, 0),
		BPF_STX_MEM(BPF_DW, 6, 1, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 28: r0 = 2 * r1, scribbling on its own frame */
		BPF_MOV64_IMM(2, 0xbad),
		BPF_STX_MEM(BPF_DW, 10, 2, -32),
		BPF_MOV64_REG(0, 1),
		BPF_ALU64_REG(BPF_ADD, 0, 1),
		BPF_EXIT_INSN(),
	};
	struct { uint64_t nr, ret, sum, canary; } io = { .nr = 5 };
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, &io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.ret, 5);
	CHECK_EQ(io.sum, 30);
	CHECK_EQ(io.canary, 0x5a5a);
	CHECK_EQ(loop_helper_calls, HELPER_CALLS(1));
}

/* bpf_loop(3, A) where A runs bpf_loop(4, B) on the same ctx and adds its result. */
LOOP_TEST(nested)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_ST_MEM(BPF_DW, 10, -8, 0),		/* ctx: count -24, sum -16, outer -8 */
		BPF_ST_MEM(BPF_DW, 10, -16, 0),
		BPF_ST_MEM(BPF_DW, 10, -24, 0),
		BPF_MOV64_IMM(1, 3),
		FUNC(2, 14),				/* 5: -> 20 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -24),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 0),
		BPF_LDX_MEM(BPF_DW, 1, 10, -24),
		BPF_STX_MEM(BPF_DW, 6, 1, 8),
		BPF_LDX_MEM(BPF_DW, 1, 10, -16),
		BPF_STX_MEM(BPF_DW, 6, 1, 16),
		BPF_LDX_MEM(BPF_DW, 1, 10, -8),
		BPF_STX_MEM(BPF_DW, 6, 1, 24),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 20: A (r1 = i, r2 = ctx) */
		BPF_MOV64_REG(6, 2),
		BPF_MOV64_IMM(1, 4),
		FUNC(2, 9),				/* 22: -> 32 */
		BPF_MOV64_REG(3, 6),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_LDX_MEM(BPF_DW, 1, 6, 16),
		BPF_ALU64_REG(BPF_ADD, 1, 0),
		BPF_STX_MEM(BPF_DW, 6, 1, 16),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 32: B (r1 = j, r2 = ctx): count++, sum += j */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_IMM(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_LDX_MEM(BPF_DW, 3, 2, 8),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 8),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};
	struct { uint64_t ret, count, sum, outer; } io = { 0 };
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, &io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.ret, 3);
	CHECK_EQ(io.count, 12);
	CHECK_EQ(io.sum, 18);
	CHECK_EQ(io.outer, 12);
	CHECK_EQ(loop_helper_calls, HELPER_CALLS(4));
}

/* The caller's r6..r10 survive the loop although the callback and a function it calls clobber
 * r6..r9; every round gets r1 = i and r2 = ctx.  Inlined, the callback's frame is the next one
 * down from the caller's. */
LOOP_TEST(caller_regs)
{
	struct bpf_insn insns[] = {
		BPF_STX_MEM(BPF_DW, 10, 1, -16),	/* ctx: io -16, sum -8 */
		BPF_ST_MEM(BPF_DW, 10, -8, 0),
		BPF_STX_MEM(BPF_DW, 1, 10, 40),		/* fp_before */
		BPF_LD_IMM64(6, 0x1111222233334444ull),
		BPF_LD_IMM64(7, 0x5555666677778888ull),
		BPF_MOV64_IMM(8, -7),
		BPF_MOV64_IMM(9, 9),
		BPF_MOV64_IMM(1, 4),
		FUNC(2, 16),				/* 10: -> 27 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -16),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_LDX_MEM(BPF_DW, 1, 10, -16),
		BPF_STX_MEM(BPF_DW, 1, 0, 0),
		BPF_STX_MEM(BPF_DW, 1, 6, 8),
		BPF_STX_MEM(BPF_DW, 1, 7, 16),
		BPF_STX_MEM(BPF_DW, 1, 8, 24),
		BPF_STX_MEM(BPF_DW, 1, 9, 32),
		BPF_STX_MEM(BPF_DW, 1, 10, 48),		/* fp_after */
		BPF_LDX_MEM(BPF_DW, 2, 10, -8),
		BPF_STX_MEM(BPF_DW, 1, 2, 72),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 27: the callback: clobbers r6..r9, checks r2, sum += f(i) */
		BPF_MOV64_REG(6, 1),
		BPF_MOV64_REG(7, 2),
		BPF_MOV64_IMM(8, -1),
		BPF_MOV64_IMM(9, 0),
		BPF_LDX_MEM(BPF_DW, 3, 7, 0),		/* io */
		BPF_STX_MEM(BPF_DW, 3, 10, 56),		/* cb_fp */
		BPF_LDX_MEM(BPF_DW, 4, 3, 40),
		BPF_ALU64_IMM(BPF_ADD, 4, -16),
		BPF_JMP_REG(BPF_JEQ, 4, 7, 3),
		BPF_LDX_MEM(BPF_DW, 5, 3, 64),		/* bad_ctx++ */
		BPF_ALU64_IMM(BPF_ADD, 5, 1),
		BPF_STX_MEM(BPF_DW, 3, 5, 64),
		BPF_MOV64_REG(1, 6),
		BPF_CALL_REL(5),			/* 40: -> 46 */
		BPF_LDX_MEM(BPF_DW, 1, 7, 8),
		BPF_ALU64_REG(BPF_ADD, 1, 0),
		BPF_STX_MEM(BPF_DW, 7, 1, 8),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 46: r0 = 10 * r1, clobbering r6..r9 again */
		BPF_MOV64_REG(0, 1),
		BPF_ALU64_IMM(BPF_MUL, 0, 10),
		BPF_MOV64_IMM(6, 0),
		BPF_MOV64_IMM(7, 0),
		BPF_MOV64_IMM(8, 0),
		BPF_MOV64_IMM(9, 0),
		BPF_EXIT_INSN(),
	};
	struct {
		uint64_t ret, r6, r7, r8, r9, fp_before, fp_after, cb_fp, bad_ctx, sum;
	} io = { 0 };
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, &io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.ret, 4);
	CHECK_EQ(io.sum, 60);
	CHECK_EQ(io.bad_ctx, 0);
	CHECK_EQ(io.r6, 0x1111222233334444ull);
	CHECK_EQ(io.r7, 0x5555666677778888ull);
	CHECK_EQ(io.r8, (uint64_t)-7);
	CHECK_EQ(io.r9, 9);
	CHECK(io.fp_before != 0);
	CHECK_EQ(io.fp_after, io.fp_before);
	if (inline_loop)
		CHECK_EQ(io.cb_fp, io.fp_before - INTERP_STACK_SIZE);
	CHECK_EQ(loop_helper_calls, HELPER_CALLS(1));
}

/* A callback function also called as a plain bpf-to-bpf function; then the same with its exit
 * reached by a jump to the main function's exit.  Inlined, the first runs the decoder's callback
 * exit (L_LOOP_EXIT) both as a call's return and as a round's end, the second a plain exit that
 * returns to the loop (L_LOOP_NEXT). */
LOOP_TEST(callback_exits)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_ST_MEM(BPF_DW, 10, -8, 0),		/* ctx: the sum */
		BPF_MOV64_IMM(1, 10),
		BPF_MOV64_REG(2, 10),
		BPF_ALU64_IMM(BPF_ADD, 2, -8),
		BPF_CALL_REL(13),			/* 5: -> 19 */
		BPF_STX_MEM(BPF_DW, 6, 0, 16),
		BPF_MOV64_IMM(1, 4),
		FUNC(2, 10),				/* 8: -> 19 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 0),
		BPF_LDX_MEM(BPF_DW, 1, 10, -8),
		BPF_STX_MEM(BPF_DW, 6, 1, 8),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),			/* 18 */
		/* 19: *ctx += i + 1, r0 = 0 */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_ALU64_IMM(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),			/* 24 */
	};
	struct { uint64_t ret, sum, call_ret; } io;
	uint64_t r0;

	for (int jump = 0; jump < 2; jump++) {
		insns[24] = jump ? BPF_JMP_A(-7) : BPF_EXIT_INSN(); /* -> 18 */
		io = (typeof(io)){ 99, 99, 99 };
		r0 = 99;
		CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, &io, &r0), 0);
		CHECK_EQ(r0, 0);
		CHECK_EQ(io.call_ret, 0);
		CHECK_EQ(io.ret, 4);
		CHECK_EQ(io.sum, 11 + 1 + 2 + 3 + 4);
		CHECK_EQ(loop_helper_calls, HELPER_CALLS(1));
	}
}

/* r2 a callback of another prepared program: the helper runs it, inlined or not. */
LOOP_TEST(foreign_callback)
{
	const struct bpf_insn other[] = {
		FUNC(1, 3),				/* 0: -> 4 */
		BPF_MOV64_REG(0, 1),			/* r0 = its descriptor */
		BPF_EXIT_INSN(),
		/* 4: *ctx += i + 100 */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_ALU64_IMM(BPF_ADD, 3, 100),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};
#define FOREIGN_LOOP                                                                              \
	BPF_MOV64_REG(6, 1), BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_LDX_MEM(BPF_DW, 1, 6, 8),          \
	BPF_LDX_MEM(BPF_DW, 2, 6, 0), BPF_MOV64_REG(3, 10), BPF_ALU64_IMM(BPF_ADD, 3, -8),        \
	BPF_MOV64_IMM(4, 0), BPF_EMIT_CALL(BPF_FUNC_loop), BPF_STX_MEM(BPF_DW, 6, 0, 16),         \
	BPF_LDX_MEM(BPF_DW, 1, 10, -8), BPF_STX_MEM(BPF_DW, 6, 1, 24) /* 0..10 */
	/* with callbacks of its own, run by bpf_loop after the other's */
	struct bpf_insn mixed[] = {
		FOREIGN_LOOP,
		BPF_ST_MEM(BPF_DW, 10, -8, 0),
		BPF_LDX_MEM(BPF_DW, 1, 6, 8),
		FUNC(2, 10),				/* 13: -> 24 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 32),
		BPF_LDX_MEM(BPF_DW, 1, 10, -8),
		BPF_STX_MEM(BPF_DW, 6, 1, 40),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 24: *ctx += 2 * i */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_ALU64_REG(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};
	/* with none */
	struct bpf_insn only[] = { FOREIGN_LOOP, BPF_MOV64_IMM(0, 0), BPF_EXIT_INSN() };
#undef FOREIGN_LOOP
	struct {
		uint64_t cb, nr, ret, sum, own_ret, own_sum;
	} io = { 0 };
	uint64_t args[5] = { 0 }, r0 = 0;
	struct interp_prog *p;

	REQUIRE_EQ(interp_prepare(other, N_INSNS(other), loop_env(inline_loop), &p), 0);
	CHECK_EQ(interp_exec(p, args, &io.cb), 0);
	REQUIRE(io.cb != 0);
	io.nr = 5;
	CHECK_EQ(run_prog(mixed, N_INSNS(mixed), NULL, &io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.ret, 5);
	CHECK_EQ(io.sum, 510);
	CHECK_EQ(io.own_ret, 5);
	CHECK_EQ(io.own_sum, 20);
	CHECK_EQ(loop_helper_calls, inline_loop ? 1 : 2);

	io.ret = io.sum = 0;
	io.nr = 3;
	CHECK_EQ(run_prog(only, N_INSNS(only), NULL, &io, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.ret, 3);
	CHECK_EQ(io.sum, 303);
	CHECK_EQ(loop_helper_calls, 1);
	interp_free(p);
}

/* bpf_loop(1, cb, io) where cb counts a level in io and, below io.limit levels, runs
 * bpf_loop(1, cb, io) again; the program returns the count. */
static int run_loop_levels(uint64_t limit, uint64_t *count, uint64_t *r0)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_MOV64_IMM(1, 1),
		FUNC(2, 7),				/* 2: -> 10 */
		BPF_MOV64_REG(3, 6),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 16),
		BPF_LDX_MEM(BPF_DW, 0, 6, 0),
		BPF_EXIT_INSN(),
		/* 10: the callback */
		BPF_MOV64_REG(6, 2),
		BPF_LDX_MEM(BPF_DW, 1, 6, 0),
		BPF_ALU64_IMM(BPF_ADD, 1, 1),
		BPF_STX_MEM(BPF_DW, 6, 1, 0),
		BPF_LDX_MEM(BPF_DW, 2, 6, 8),
		BPF_MOV64_IMM(0, 0),
		BPF_JMP_REG(BPF_JGE, 1, 2, 6),		/* 16: -> 23 */
		BPF_MOV64_IMM(1, 1),
		FUNC(2, -9),				/* 18: -> 10 */
		BPF_MOV64_REG(3, 6),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_MOV64_IMM(0, 0),			/* 23 */
		BPF_EXIT_INSN(),
	};
	struct { uint64_t count, limit, ret; } io = { 0, limit, 0 };
	int err = run_prog(insns, N_INSNS(insns), NULL, &io, r0);

	*count = io.count;
	return err;
}

/* Inlined, each round's frame counts towards INTERP_MAX_FRAMES as a bpf-to-bpf call's does: the
 * main frame and 7 callback levels run, an 8th ends the run with -ELOOP.  The helper bounds its
 * nested runs per thread instead (a too deep callback returns 0). */
TEST(callback_exec_inline_loop_depth)
{
	uint64_t count = 0, r0 = 99;

	inline_loop = true;
	CHECK_EQ(run_loop_levels(INTERP_MAX_FRAMES - 1, &count, &r0), 0);
	CHECK_EQ(count, INTERP_MAX_FRAMES - 1);
	CHECK_EQ(r0, INTERP_MAX_FRAMES - 1);
	CHECK_EQ(loop_helper_calls, 0);
	CHECK_EQ(run_loop_levels(INTERP_MAX_FRAMES, &count, &r0), -ELOOP);
	CHECK_EQ(count, INTERP_MAX_FRAMES - 1);
	CHECK_EQ(r0, 0);
	CHECK_EQ(run_loop_levels(1000, &count, &r0), -ELOOP);
	CHECK_EQ(count, INTERP_MAX_FRAMES - 1);
	CHECK_EQ(loop_helper_calls, 0);
	inline_loop = false;
	CHECK_EQ(run_loop_levels(1000, &count, &r0), 0);
	CHECK_EQ(count, INTERP_MAX_FRAMES);
	CHECK_EQ(r0, INTERP_MAX_FRAMES);
	CHECK_EQ(loop_helper_calls, INTERP_MAX_FRAMES + 1); /* the last level's call returns 0 */
}

/* Inlined, a bpf-to-bpf call in the callback counts too: main calls f, whose loop's callback
 * calls g: 4 frames deep, fine; a callback that recurses by bpf-to-bpf calls hits the bound. */
TEST(callback_exec_inline_loop_depth_with_calls)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_CALL_REL(2),			/* 1: -> 4 */
		BPF_LDX_MEM(BPF_DW, 0, 6, 0),
		BPF_EXIT_INSN(),
		/* 4: f: bpf_loop(2, cb, io) */
		BPF_MOV64_IMM(1, 2),
		FUNC(2, 6),				/* 5: -> 12 */
		BPF_MOV64_REG(3, 6),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_STX_MEM(BPF_DW, 6, 0, 8),
		BPF_EXIT_INSN(),
		/* 12: cb: io->count += g(io->depth) */
		BPF_MOV64_REG(7, 2),
		BPF_LDX_MEM(BPF_DW, 1, 7, 16),
		BPF_CALL_REL(5),			/* 14: -> 20 */
		BPF_LDX_MEM(BPF_DW, 1, 7, 0),
		BPF_ALU64_REG(BPF_ADD, 1, 0),
		BPF_STX_MEM(BPF_DW, 7, 1, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 20: g(n): 1 + g(n - 1), g(0) = 1 */
		BPF_MOV64_IMM(0, 1),
		BPF_JMP_IMM(BPF_JEQ, 1, 0, 3),		/* 21: -> 25 */
		BPF_ALU64_IMM(BPF_ADD, 1, -1),
		BPF_CALL_REL(-4),			/* 23: -> 20 */
		BPF_ALU64_IMM(BPF_ADD, 0, 1),
		BPF_EXIT_INSN(),
	};
	struct { uint64_t count, ret, depth; } io = { 0, 0, 0 };
	uint64_t r0 = 99;
	int err;

	inline_loop = true;
	/* frames: main, f, cb, g(0) .. g(depth) */
	io.depth = INTERP_MAX_FRAMES - 4;
	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, &io, &r0), 0);
	CHECK_EQ(io.ret, 2);
	CHECK_EQ(io.count, 2 * (INTERP_MAX_FRAMES - 3));
	CHECK_EQ(r0, io.count);
	io = (typeof(io)){ 0, 0, INTERP_MAX_FRAMES - 3 };
	err = run_prog(insns, N_INSNS(insns), NULL, &io, &r0);
	CHECK_EQ(err, -ELOOP);
	CHECK_EQ(r0, 0);
	CHECK_EQ(io.count, 0);
	CHECK_EQ(loop_helper_calls, 0);
	inline_loop = false;
}

/* Inlined, a callback's run-time error (running off the end) is the program's: the helper's
 * nested run would have returned 0 and gone on (callback_exec_bounds_and_errors). */
TEST(callback_exec_inline_loop_run_off)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(1, 3),
		FUNC(2, 4),				/* 1: -> 6 */
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_EXIT_INSN(),
		/* 6: r0 = 1, then no exit */
		BPF_MOV64_IMM(0, 1),
	};
	uint64_t r0 = 99;

	inline_loop = true;
	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, NULL, &r0), -EFAULT);
	CHECK_EQ(r0, 0);
	CHECK_EQ(loop_helper_calls, 0);
	inline_loop = false;
	CHECK_EQ(run_prog(insns, N_INSNS(insns), NULL, NULL, &r0), 0);
	CHECK_EQ(r0, 3);
	CHECK_EQ(loop_helper_calls, 1);
}

/* Without a verifier: a callback that recurses through bpf_loop stops at the nesting bound, and
 * one that fails at run time (runs off the end) returns 0, so bpf_loop goes on. */
TEST(callback_exec_bounds_and_errors)
{
	struct bpf_insn recurse[] = {
		BPF_ST_MEM(BPF_DW, 10, -8, 0),
		BPF_MOV64_IMM(1, 1),
		FUNC(2, 7),				/* 2: -> 10 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_LDX_MEM(BPF_DW, 0, 10, -8),
		BPF_EXIT_INSN(),
		/* 10: count one level, then bpf_loop(1, itself) */
		BPF_MOV64_REG(6, 2),
		BPF_LDX_MEM(BPF_DW, 1, 6, 0),
		BPF_ALU64_IMM(BPF_ADD, 1, 1),
		BPF_STX_MEM(BPF_DW, 6, 1, 0),
		BPF_MOV64_IMM(1, 1),
		FUNC(2, -6),				/* 15: -> 10 */
		BPF_MOV64_REG(3, 6),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn fall_off[] = {
		BPF_ST_MEM(BPF_DW, 10, -8, 0),
		BPF_MOV64_IMM(1, 3),
		FUNC(2, 9),				/* 2: -> 12 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -8),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_loop),
		BPF_LDX_MEM(BPF_DW, 1, 10, -8),
		BPF_ALU64_IMM(BPF_MUL, 0, 100),
		BPF_ALU64_REG(BPF_ADD, 0, 1),
		BPF_EXIT_INSN(),
		/* 12: count, r0 = 1 (stop), then no exit */
		BPF_LDX_MEM(BPF_DW, 3, 2, 0),
		BPF_ALU64_IMM(BPF_ADD, 3, 1),
		BPF_STX_MEM(BPF_DW, 2, 3, 0),
		BPF_MOV64_IMM(0, 1),
	};
	uint64_t r0 = 0;

	CHECK_EQ(run_prog(recurse, N_INSNS(recurse), NULL, NULL, &r0), 0);
	CHECK_EQ(r0, INTERP_MAX_FRAMES);
	/* the count is per thread and back to 0: the same again */
	CHECK_EQ(run_prog(recurse, N_INSNS(recurse), NULL, NULL, &r0), 0);
	CHECK_EQ(r0, INTERP_MAX_FRAMES);
	CHECK_EQ(run_prog(fall_off, N_INSNS(fall_off), NULL, NULL, &r0), 0);
	CHECK_EQ(r0, 303); /* 3 calls, each "returned" 0 */
}

/* The loaded value is a struct exec_callback: one per target, callable from outside. */
TEST(callback_exec_address_per_target)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		FUNC(1, 10),				/* 1: -> 12 */
		FUNC(2, 8),				/* 3: -> 12 */
		FUNC(3, 9),				/* 5: -> 15 */
		BPF_STX_MEM(BPF_DW, 6, 1, 0),
		BPF_STX_MEM(BPF_DW, 6, 2, 8),
		BPF_STX_MEM(BPF_DW, 6, 3, 16),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 12: r1 + r2 */
		BPF_MOV64_REG(0, 1),
		BPF_ALU64_REG(BPF_ADD, 0, 2),
		BPF_EXIT_INSN(),
		/* 15: r1 * r2 + r5 */
		BPF_MOV64_REG(0, 1),
		BPF_ALU64_REG(BPF_MUL, 0, 2),
		BPF_ALU64_REG(BPF_ADD, 0, 5),
		BPF_EXIT_INSN(),
	};
	uint64_t out[3] = { 0 }, args[5] = { (uintptr_t)out, 0, 0, 0, 0 }, r0 = 99;
	struct interp_prog *p;

	REQUIRE_EQ(interp_prepare(insns, N_INSNS(insns), xdp_env(), &p), 0);
	CHECK_EQ(interp_exec(p, args, &r0), 0);
	CHECK_EQ(r0, 0);
	CHECK(out[0] != 0);
	CHECK_EQ(out[0], out[1]);
	CHECK(out[2] != out[0]);
	if (out[0] && out[2]) {
		CHECK_EQ(exec_callback_call(out[0], 3, 4, 0, 0, 0), 7);
		CHECK_EQ(exec_callback_call(out[2], 3, 4, 0, 0, 5), 17);
	}
	interp_free(p);
}

/* The decoder: a callback target must be an instruction start inside the program. */
TEST(callback_exec_decoder_targets)
{
	struct {
		int32_t off;	/* FUNC at 0: the target is 1 + off */
		int want;
	} cases[] = {
		{ 4, 0 },		/* the exit */
		{ 1, 0 },		/* the other LD_IMM64 */
		{ 2, -EINVAL },		/* its second slot */
		{ 0, -EINVAL },		/* the FUNC's own second slot */
		{ 5, -EINVAL },		/* the end */
		{ 100, -EINVAL },
		{ -2, -EINVAL },	/* before the start */
		{ INT32_MIN, -EINVAL },
		{ INT32_MAX, -EINVAL },
	};

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct bpf_insn insns[] = {
			FUNC(1, cases[c].off),
			BPF_LD_IMM64(2, 5),
			BPF_MOV64_IMM(0, 0),
			BPF_EXIT_INSN(),
		};
		struct interp_prog *p = NULL;
		int err = interp_prepare(insns, N_INSNS(insns), xdp_env(), &p);

		if (err != cases[c].want)
			test_fail(__FILE__, __LINE__, "off %d: %d, want %d", cases[c].off, err,
				  cases[c].want);
		interp_free(p);
	}
}

/* A callback's entry is a target: no superinstruction runs across it (MZX at 2 covers 2..4). */
TEST(callback_exec_entry_not_fused)
{
	struct bpf_insn insns[] = {
		FUNC(2, 2),				/* 0: -> 3 (inside MZX), then -> 5 */
		BPF_MOV64_REG(0, 1),
		BPF_ALU64_IMM(BPF_LSH, 0, 32),
		BPF_ALU64_IMM(BPF_RSH, 0, 32),
		BPF_EXIT_INSN(),
	};
	uint64_t args[5] = { 0x100000005ull, 0, 0, 0, 0 }, r0 = 0;
	struct interp_prog *p;

	REQUIRE_EQ(interp_prepare(insns, N_INSNS(insns), xdp_env(), &p), 0);
	CHECK_EQ(interp_fused_len(p, 2), 0);
	CHECK_EQ(interp_exec(p, args, &r0), 0);
	CHECK_EQ(r0, 5);
	interp_free(p);
	insns[0].imm = 4; /* the exit: MZX fuses */
	REQUIRE_EQ(interp_prepare(insns, N_INSNS(insns), xdp_env(), &p), 0);
	CHECK_EQ(interp_fused_len(p, 2), 3);
	CHECK_EQ(interp_exec(p, args, &r0), 0);
	CHECK_EQ(r0, 5);
	interp_free(p);
}

/* The checked interpreter runs callbacks checked, inside the run of the helper that calls them:
 * the caller's stack stays accessible, the callback gets r1..r5 and r10, and a violation in the
 * callback stops the whole run. */
static int checked_run(const struct bpf_insn *insns, uint32_t cnt, uint64_t *r0,
		       struct interp_check *c)
{
	uint64_t args[5] = { 0 };
	struct interp_checked_prog *p = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	err = interp_checked_prepare(insns, cnt, xdp_env(), &p);
	if (err)
		return err;
	err = interp_checked_exec(p, args, r0, c);
	interp_checked_free(p);
	return err;
}

/* bpf_loop(3, cb, fp - 8, 0) where cb adds its index into *(u64 *)ctx; then stmt, the callback's
 * last statement before returning 0, and r0 = the sum. */
#define CHECKED_LOOP(stmt)                                                                        \
	BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_MOV64_IMM(1, 3), FUNC(2, 7), BPF_MOV64_REG(3, 10),    \
	BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_IMM(4, 0), BPF_EMIT_CALL(BPF_FUNC_loop),         \
	BPF_LDX_MEM(BPF_DW, 0, 10, -8), BPF_EXIT_INSN(),                                          \
	/* 10: the callback */                                                                     \
	BPF_LDX_MEM(BPF_DW, 3, 2, 0), BPF_ALU64_REG(BPF_ADD, 3, 1), BPF_STX_MEM(BPF_DW, 2, 3, 0),  \
	stmt, BPF_MOV64_IMM(0, 0), BPF_EXIT_INSN()

TEST(callback_exec_checked_clean)
{
	const struct bpf_insn insns[] = { CHECKED_LOOP(BPF_ST_MEM(BPF_DW, 10, -8, 7)) };
	struct interp_check c;
	uint64_t r0 = 0;

	CHECK_EQ(checked_run(insns, N_INSNS(insns), &r0, &c), 0);
	CHECK_EQ(r0, 0 + 1 + 2);
	CHECK_EQ(c.v.kind, IV_NONE);
	CHECK_EQ(c.nouter, 0);
	CHECK(c.steps > 3 * 6); /* the callback's steps count */
}

TEST(callback_exec_checked_violations)
{
	/* past the caller's frame through the ctx pointer */
	const struct bpf_insn oob[] = { CHECKED_LOOP(BPF_ST_MEM(BPF_DW, 2, 8, 1)) };
	/* a register the callback was not given */
	const struct bpf_insn uninit[] = { CHECKED_LOOP(BPF_MOV64_REG(4, 6)) };
	/* below the callback's own frame */
	const struct bpf_insn below[] = { CHECKED_LOOP(BPF_ST_MEM(BPF_DW, 10, -520, 1)) };
	struct interp_check c;
	uint64_t r0 = 1;

	CHECK_EQ(checked_run(oob, N_INSNS(oob), &r0, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(c.v.insn, 13);
	CHECK_EQ(r0, 0);
	CHECK_EQ(checked_run(uninit, N_INSNS(uninit), &r0, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_UNINIT_REG);
	CHECK_EQ(c.v.reg, 6);
	CHECK_EQ(checked_run(below, N_INSNS(below), &r0, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK(c.v.write);
}

/* The checked interpreter ignores loop_id: bpf_loop stays a helper call, whose callback runs
 * checked as above. */
TEST(callback_exec_checked_loop_id)
{
	const struct bpf_insn insns[] = { CHECKED_LOOP(BPF_ST_MEM(BPF_DW, 10, -8, 7)) };
	const struct bpf_insn oob[] = { CHECKED_LOOP(BPF_ST_MEM(BPF_DW, 2, 8, 1)) };
	uint64_t args[5] = { 0 }, r0 = 0;
	struct interp_checked_prog *p = NULL;
	struct interp_check c;

	memset(&c, 0, sizeof(c));
	REQUIRE_EQ(interp_checked_prepare(insns, N_INSNS(insns), loop_env(true), &p), 0);
	loop_helper_calls = 0;
	CHECK_EQ(interp_checked_exec(p, args, &r0, &c), 0);
	CHECK_EQ(r0, 0 + 1 + 2);
	CHECK_EQ(c.v.kind, IV_NONE);
	CHECK_EQ(loop_helper_calls, 1);
	interp_checked_free(p);

	memset(&c, 0, sizeof(c));
	REQUIRE_EQ(interp_checked_prepare(oob, N_INSNS(oob), loop_env(true), &p), 0);
	CHECK_EQ(interp_checked_exec(p, args, &r0, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(c.v.insn, 13);
	interp_checked_free(p);
}

/* ---- bpf_for_each_map_elem ---- */

static int map_new(uint32_t type, uint32_t max_entries, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = max_entries;
	a.map_flags = flags;
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static int map_elem(int cmd, int fd, uint32_t key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)value;
	return bpf(cmd, &a, sizeof(a));
}

/* Sets key to v (every CPU's copy of a per-CPU map). */
static int map_set(int fd, uint32_t key, uint64_t v, bool percpu)
{
	uint32_t n = percpu ? map_possible_cpus() : 1;
	uint64_t *vals = calloc(n, sizeof(*vals));
	int err;

	for (uint32_t c = 0; c < n; c++)
		vals[c] = v;
	err = map_elem(BPF_MAP_UPDATE_ELEM, fd, key, vals);
	free(vals);
	return err;
}

static uint32_t map_count(int fd)
{
	union bpf_attr a;
	uint32_t key, next, n = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.next_key = (uintptr_t)&next;
	while (!bpf(BPF_MAP_GET_NEXT_KEY, &a, sizeof(a)) && n < 100000) {
		key = next;
		a.key = (uintptr_t)&key;
		n++;
	}
	return n;
}

/* The sum of the keys in the map. */
static uint64_t map_keysum(int fd)
{
	union bpf_attr a;
	uint32_t key, next, n = 0;
	uint64_t sum = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.next_key = (uintptr_t)&next;
	while (!bpf(BPF_MAP_GET_NEXT_KEY, &a, sizeof(a)) && n++ < 100000) {
		key = next;
		sum += key;
		a.key = (uintptr_t)&key;
	}
	return sum;
}

static struct bpf_map *map_ptr(int fd)
{
	struct bpf_object *obj;
	int err;

	rcu_read_lock();
	obj = obj_from_fd(fd, OBJ_MAP, &err);
	rcu_read_unlock();
	return obj ? map_of(obj) : NULL;
}

struct each_io {
	uint64_t flags, stop;		/* in: the helper's flags; the count the callback stops at */
	uint64_t ret, count, keysum, valsum;	/* out */
};

/* bpf_for_each_map_elem(map, cb, &ctx, flags); cb counts, sums keys and values, adds 1 to the
 * value through its pointer and returns count == ctx.stop. */
static void run_each(struct bpf_map *map, struct each_io *io)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_LDX_MEM(BPF_DW, 1, 6, 8),
		BPF_STX_MEM(BPF_DW, 10, 1, -8),	/* ctx: count -32, keysum -24, valsum -16, stop -8 */
		BPF_ST_MEM(BPF_DW, 10, -16, 0),
		BPF_ST_MEM(BPF_DW, 10, -24, 0),
		BPF_ST_MEM(BPF_DW, 10, -32, 0),
		MAP_PLACEHOLDER(1),
		FUNC(2, 14),				/* 8: -> 23 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -32),
		BPF_LDX_MEM(BPF_DW, 4, 6, 0),
		BPF_EMIT_CALL(BPF_FUNC_for_each_map_elem),
		BPF_STX_MEM(BPF_DW, 6, 0, 16),
		BPF_LDX_MEM(BPF_DW, 1, 10, -32),
		BPF_STX_MEM(BPF_DW, 6, 1, 24),
		BPF_LDX_MEM(BPF_DW, 1, 10, -24),
		BPF_STX_MEM(BPF_DW, 6, 1, 32),
		BPF_LDX_MEM(BPF_DW, 1, 10, -16),
		BPF_STX_MEM(BPF_DW, 6, 1, 40),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 23: the callback (r1 = map, r2 = key, r3 = value, r4 = ctx) */
		BPF_LDX_MEM(BPF_DW, 5, 4, 0),
		BPF_ALU64_IMM(BPF_ADD, 5, 1),
		BPF_STX_MEM(BPF_DW, 4, 5, 0),
		BPF_LDX_MEM(BPF_W, 0, 2, 0),
		BPF_LDX_MEM(BPF_DW, 5, 4, 8),
		BPF_ALU64_REG(BPF_ADD, 5, 0),
		BPF_STX_MEM(BPF_DW, 4, 5, 8),
		BPF_LDX_MEM(BPF_DW, 0, 3, 0),
		BPF_LDX_MEM(BPF_DW, 5, 4, 16),
		BPF_ALU64_REG(BPF_ADD, 5, 0),
		BPF_STX_MEM(BPF_DW, 4, 5, 16),
		BPF_ALU64_IMM(BPF_ADD, 0, 1),
		BPF_STX_MEM(BPF_DW, 3, 0, 0),
		BPF_MOV64_IMM(0, 0),
		BPF_LDX_MEM(BPF_DW, 5, 4, 0),
		BPF_LDX_MEM(BPF_DW, 1, 4, 24),
		BPF_JMP_REG(BPF_JNE, 5, 1, 1),
		BPF_MOV64_IMM(0, 1),
		BPF_EXIT_INSN(),
	};
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), map, io, &r0), 0);
	CHECK_EQ(r0, 0);
}

struct del_io {
	uint64_t ret, count, keysum, delete_errors;	/* out */
	uint64_t partner;	/* in: delete the key the value holds, not the element's own */
};

/* bpf_for_each_map_elem(map, cb, &ctx, 0); cb counts, sums keys and deletes with
 * bpf_map_delete_elem() the element it was given, or (partner) the one whose key is its value,
 * counting failures. */
static void run_each_delete(struct bpf_map *map, struct del_io *io)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(6, 1),
		BPF_LDX_MEM(BPF_DW, 1, 6, 32),
		BPF_STX_MEM(BPF_DW, 10, 1, -8),	/* ctx: count -32, keysum -24, errors -16, partner -8 */
		BPF_ST_MEM(BPF_DW, 10, -16, 0),
		BPF_ST_MEM(BPF_DW, 10, -24, 0),
		BPF_ST_MEM(BPF_DW, 10, -32, 0),
		MAP_PLACEHOLDER(1),
		FUNC(2, 14),				/* 8: -> 23 */
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -32),
		BPF_MOV64_IMM(4, 0),
		BPF_EMIT_CALL(BPF_FUNC_for_each_map_elem),
		BPF_STX_MEM(BPF_DW, 6, 0, 0),
		BPF_LDX_MEM(BPF_DW, 1, 10, -32),
		BPF_STX_MEM(BPF_DW, 6, 1, 8),
		BPF_LDX_MEM(BPF_DW, 1, 10, -24),
		BPF_STX_MEM(BPF_DW, 6, 1, 16),
		BPF_LDX_MEM(BPF_DW, 1, 10, -16),
		BPF_STX_MEM(BPF_DW, 6, 1, 24),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
		/* 23: the callback */
		BPF_MOV64_REG(6, 4),
		BPF_LDX_MEM(BPF_DW, 5, 6, 0),
		BPF_ALU64_IMM(BPF_ADD, 5, 1),
		BPF_STX_MEM(BPF_DW, 6, 5, 0),
		BPF_LDX_MEM(BPF_W, 5, 2, 0),
		BPF_LDX_MEM(BPF_DW, 0, 6, 8),
		BPF_ALU64_REG(BPF_ADD, 0, 5),
		BPF_STX_MEM(BPF_DW, 6, 0, 8),
		BPF_LDX_MEM(BPF_DW, 5, 6, 24),
		BPF_JMP_IMM(BPF_JEQ, 5, 0, 4),		/* own key: r2 as given */
		BPF_LDX_MEM(BPF_DW, 5, 3, 0),
		BPF_STX_MEM(BPF_W, 10, 5, -4),		/* the partner's key, on its own stack */
		BPF_MOV64_REG(2, 10),
		BPF_ALU64_IMM(BPF_ADD, 2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_delete_elem),	/* r1: the map */
		BPF_JMP_IMM(BPF_JEQ, 0, 0, 3),
		BPF_LDX_MEM(BPF_DW, 1, 6, 16),
		BPF_ALU64_IMM(BPF_ADD, 1, 1),
		BPF_STX_MEM(BPF_DW, 6, 1, 16),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};
	uint64_t r0 = 99;

	CHECK_EQ(run_prog(insns, N_INSNS(insns), map, io, &r0), 0);
	CHECK_EQ(r0, 0);
}

TEST(callback_exec_each_array)
{
	int fd = map_new(BPF_MAP_TYPE_ARRAY, 6, 0);
	struct bpf_map *map;
	struct each_io io = { .stop = 1000 };
	uint64_t v;

	REQUIRE(fd >= 0);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (uint32_t i = 0; i < 6; i++)
		CHECK_EQ(map_set(fd, i, (i + 1) * 10, false), 0);
	run_each(map, &io);
	CHECK_EQ(io.ret, 6);
	CHECK_EQ(io.count, 6);
	CHECK_EQ(io.keysum, 15);
	CHECK_EQ(io.valsum, 210);
	for (uint32_t i = 0; i < 6; i++) {
		CHECK_EQ(map_elem(BPF_MAP_LOOKUP_ELEM, fd, i, &v), 0);
		CHECK_EQ(v, (i + 1) * 10 + 1); /* the callback wrote the element */
	}

	/* early stop: the third call returns 1 */
	io = (struct each_io){ .stop = 3 };
	run_each(map, &io);
	CHECK_EQ(io.ret, 3);
	CHECK_EQ(io.count, 3);
	CHECK_EQ(io.keysum, 3);
	CHECK_EQ(io.valsum, 11 + 21 + 31);
	CHECK_EQ(map_elem(BPF_MAP_LOOKUP_ELEM, fd, 3, &v), 0);
	CHECK_EQ(v, 41);

	io = (struct each_io){ .flags = 1, .stop = 1000 };
	run_each(map, &io);
	CHECK_EQ(io.ret, (uint64_t)-EINVAL);
	CHECK_EQ(io.count, 0);
	close(fd);
}

TEST(callback_exec_each_percpu_array)
{
	int fd = map_new(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 0);
	uint32_t ncpus = map_possible_cpus();
	struct each_io io = { .stop = 1000 };
	uint64_t *vals = calloc(ncpus, sizeof(*vals));
	int64_t cpu = -1;
	struct bpf_map *map;

	REQUIRE(fd >= 0 && vals);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (uint32_t i = 0; i < 4; i++)
		CHECK_EQ(map_set(fd, i, i * 100 + 7, true), 0);
	run_each(map, &io);
	CHECK_EQ(io.ret, 4);
	CHECK_EQ(io.count, 4);
	CHECK_EQ(io.keysum, 6);
	CHECK_EQ(io.valsum, 628);
	/* each index: one CPU's copy written, the same CPU for all */
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t bumped = 0;

		CHECK_EQ(map_elem(BPF_MAP_LOOKUP_ELEM, fd, i, vals), 0);
		for (uint32_t c = 0; c < ncpus; c++) {
			if (vals[c] == i * 100 + 7)
				continue;
			CHECK_EQ(vals[c], i * 100 + 8);
			bumped++;
			if (cpu < 0)
				cpu = c;
			CHECK_EQ(c, cpu);
		}
		CHECK_EQ(bumped, 1);
	}
	free(vals);
	close(fd);
}

static const uint32_t hash_keys[] = { 3, 7, 11, 100, 5000 };

static void check_hash_each(uint32_t type)
{
	bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	int fd = map_new(type, 16, 0);
	struct each_io io = { .stop = 1000 };
	struct bpf_map *map;
	uint64_t v;

	REQUIRE(fd >= 0);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(hash_keys); i++)
		CHECK_EQ(map_set(fd, hash_keys[i], hash_keys[i] * 2, percpu), 0);
	run_each(map, &io);
	CHECK_EQ(io.ret, 5);
	CHECK_EQ(io.count, 5);
	CHECK_EQ(io.keysum, 5121);
	CHECK_EQ(io.valsum, 10242);
	if (!percpu)
		for (size_t i = 0; i < ARRAY_SIZE(hash_keys); i++) {
			CHECK_EQ(map_elem(BPF_MAP_LOOKUP_ELEM, fd, hash_keys[i], &v), 0);
			CHECK_EQ(v, hash_keys[i] * 2 + 1);
		}

	io = (struct each_io){ .stop = 2 };
	run_each(map, &io);
	CHECK_EQ(io.ret, 2);
	CHECK_EQ(io.count, 2);

	io = (struct each_io){ .flags = 2, .stop = 1000 };
	run_each(map, &io);
	CHECK_EQ(io.ret, (uint64_t)-EINVAL);
	CHECK_EQ(io.count, 0);
	close(fd);

	/* an empty map: no call */
	fd = map_new(type, 16, 0);
	REQUIRE(fd >= 0);
	io = (struct each_io){ .stop = 1000 };
	run_each(map_ptr(fd), &io);
	CHECK_EQ(io.ret, 0);
	CHECK_EQ(io.count, 0);
	close(fd);
}

TEST(callback_exec_each_hash)
{
	check_hash_each(BPF_MAP_TYPE_HASH);
}

TEST(callback_exec_each_hash_percpu_and_lru)
{
	check_hash_each(BPF_MAP_TYPE_PERCPU_HASH);
	check_hash_each(BPF_MAP_TYPE_LRU_HASH);
	check_hash_each(BPF_MAP_TYPE_LRU_PERCPU_HASH);
}

/* Deleting the element the callback was given: every element is still visited once. */
TEST(callback_exec_each_hash_delete)
{
	int fd = map_new(BPF_MAP_TYPE_HASH, 16, 0);
	struct del_io io = { 0 };
	struct bpf_map *map;

	REQUIRE(fd >= 0);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(hash_keys); i++)
		CHECK_EQ(map_set(fd, hash_keys[i], 1, false), 0);
	run_each_delete(map, &io);
	CHECK_EQ(io.ret, 5);
	CHECK_EQ(io.count, 5);
	CHECK_EQ(io.keysum, 5121);
	CHECK_EQ(io.delete_errors, 0);
	CHECK_EQ(map_count(fd), 0);
	close(fd);
}

/* A chain longer than the walk's on-stack copy (32): keys that all hash to bucket 0 of a 64-bucket
 * map (seed 0 with BPF_F_ZERO_SEED).  Visited once each, deleted as they are visited. */
TEST(callback_exec_each_hash_long_chain)
{
	int fd = map_new(BPF_MAP_TYPE_HASH, 64, BPF_F_ZERO_SEED);
	struct each_io io = { .stop = 1000 };
	struct del_io dio = { 0 };
	uint64_t keysum = 0;
	struct bpf_map *map;
	uint32_t n = 0;

	REQUIRE(fd >= 0);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (uint32_t k = 0; n < 40 && k < 1000000; k++)
		if ((jhash(&k, 4, 0) & 63) == 0) {
			CHECK_EQ(map_set(fd, k, k, false), 0);
			keysum += k;
			n++;
		}
	REQUIRE_EQ(n, 40);
	CHECK_EQ(map_count(fd), 40);
	run_each(map, &io);
	CHECK_EQ(io.ret, 40);
	CHECK_EQ(io.count, 40);
	CHECK_EQ(io.keysum, keysum);
	CHECK_EQ(io.valsum, keysum);
	run_each_delete(map, &dio);
	CHECK_EQ(dio.ret, 40);
	CHECK_EQ(dio.count, 40);
	CHECK_EQ(dio.keysum, keysum);
	CHECK_EQ(dio.delete_errors, 0);
	CHECK_EQ(map_count(fd), 0);
	close(fd);
}

/* Pairs of keys, each element's value its partner's key; the callback deletes the partner.  A
 * deleted element is not visited: one of each pair is, and stays. */
static void check_partner_delete(uint32_t max_entries, uint32_t flags, bool same_bucket)
{
	int fd = map_new(BPF_MAP_TYPE_HASH, max_entries, flags);
	struct del_io io = { .partner = 1 };
	uint32_t keys[40], n = 0;
	struct bpf_map *map;

	REQUIRE(fd >= 0);
	map = map_ptr(fd);
	REQUIRE(map != NULL);
	for (uint32_t k = 1; n < 40 && k < 1000000; k++)
		if (!same_bucket || (jhash(&k, 4, 0) & (max_entries - 1)) == 0)
			keys[n++] = k;
	REQUIRE_EQ(n, 40);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ(map_set(fd, keys[i], keys[i ^ 1], false), 0);
	run_each_delete(map, &io);
	CHECK_EQ(io.ret, 20);
	CHECK_EQ(io.count, 20);
	CHECK_EQ(io.delete_errors, 0);
	CHECK_EQ(map_count(fd), 20);
	CHECK_EQ(io.keysum, map_keysum(fd));
	close(fd);
}

TEST(callback_exec_each_hash_delete_other)
{
	check_partner_delete(64, BPF_F_ZERO_SEED, true);	/* one chain of 40 */
	check_partner_delete(64, 0, false);			/* spread over buckets */
}
