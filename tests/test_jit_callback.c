/* test_jit_callback.c — the x86-64 JIT's callbacks (exec/callback.h): an LD_IMM64 BPF_PSEUDO_FUNC
 * loads a descriptor whose call() runs the program entered at the callback as a fresh run.
 *
 * The helpers that take callbacks are this file's own (a bpf_loop-like `loop` and an `apply`
 * that passes five arguments), so that the JIT is tested whatever src/exec/helpers/ provides.
 * Programs are conformance-assembler text; LDFUNC(r, label) stands for `lddw %rN, func label`,
 * which the assembler has no syntax for: it assembles as `call local label` (whose imm is the
 * same relative target) followed by a marker mov, which fix_ldfunc() turns into the LD_IMM64.
 *
 * Every case runs unblinded and blinded, as written and nested one bpf-to-bpf call deep (the
 * other frame layout), against a value computed here and, once the interpreter resolves
 * callbacks (probed, see interp_has_callbacks()), against the interpreter.
 *
 * The jit_loop_inline_* cases name `call 4` as bpf_loop (interp_env.loop_id), which the JIT runs
 * inline when r2 is a known callback: compared with the same program through the helper, with
 * constants, with the helper's call count, and with the interpreter either way.
 */
#include <stdlib.h>

#include "test.h"
#include "conformance_asm.h"
#include "insn.h"
#include "exec/callback.h"
#include "exec/interp.h"
#include "exec/jit.h"

#ifdef __x86_64__

#define LDFUNC_MARK 0x5eedf0
#define STR(x) #x
#define LDFUNC(r, label) "call local " label "\nmov %r" STR(r) ", " STR(0x5eedf0) "\n"
/* LDFUNC in a printf format */
#define LDFUNC_FMT(r, label) "call local " label "\nmov %%r" STR(r) ", " STR(0x5eedf0) "\n"

enum { H_LOOP = 1, H_APPLY = 2, H_ALIGNED = 3, H_BPF_LOOP = 4, H_NR };

/* bpf_loop(nr, cb, ctx, flags): cb(i, ctx) for i < nr until it returns nonzero; the number of
 * calls made. */
static uint64_t h_loop(uint64_t nr, uint64_t cb, uint64_t ctx, uint64_t flags, uint64_t r5)
{
	uint64_t i;

	if (nr > 1u << 16)
		return (uint64_t)-7;
	for (i = 0; i < nr; i++)
		if (exec_callback_call(cb, i, ctx, 0, 0, 0))
			return i + 1;
	return i;
}

/* cb(a, b, c, d, 85) */
static uint64_t h_apply(uint64_t cb, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return exec_callback_call(cb, a, b, c, d, 85);
}

/* 1 when called with the stack 16-byte aligned as the ABI wants (rsp = 8 mod 16 at the entry,
 * after the return address).  In assembly: a C function cannot observe its own misalignment,
 * the compiler assumes the ABI's alignment and folds such a test to 1. */
uint64_t jit_cb_test_aligned(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);
__asm__(".text\n"
	".type jit_cb_test_aligned, @function\n"
	"jit_cb_test_aligned:\n"
	"\tmov %rsp, %rax\n"
	"\tand $15, %eax\n"
	"\tcmp $8, %eax\n"
	"\tsete %al\n"
	"\tmovzbl %al, %eax\n"
	"\tret\n"
	".size jit_cb_test_aligned, . - jit_cb_test_aligned\n");
#define h_aligned jit_cb_test_aligned

/* bpf_loop() exactly (src/exec/helpers/callback.c): the helper that interp_env.loop_id names in the
 * inline-loop tests.  Counts its own calls: an inlined loop never reaches it. */
static unsigned int bpf_loop_calls;

static uint64_t h_bpf_loop(uint64_t nr, uint64_t cb, uint64_t ctx, uint64_t flags, uint64_t r5)
{
	uint32_t n = (uint32_t)nr;

	bpf_loop_calls++;
	if (flags)
		return (uint64_t)-EINVAL;
	if (n > 1u << 23)
		return (uint64_t)-E2BIG;
	for (uint32_t i = 0; i < n; i++)
		if (exec_callback_call(cb, i, ctx, 0, 0, 0))
			return (uint64_t)i + 1;
	return n;
}

static const interp_helper_fn cb_helpers[H_NR] = {
    [H_LOOP] = h_loop, [H_APPLY] = h_apply, [H_ALIGNED] = h_aligned, [H_BPF_LOOP] = h_bpf_loop};
static const struct interp_env cb_env = {.helpers = cb_helpers, .nr_helpers = H_NR};
/* The same with `call 4` as bpf_loop, which the engines may run themselves. */
static const struct interp_env loop_env = {
    .helpers = cb_helpers, .nr_helpers = H_NR, .loop_id = H_BPF_LOOP};

/* LDFUNC's two slots into the LD_IMM64. */
static void fix_ldfunc(struct bpf_insn *insns, int n)
{
	for (int i = 0; i + 1 < n; i++) {
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL &&
		    insns[i + 1].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
		    insns[i + 1].imm == LDFUNC_MARK) {
			insns[i] = (struct bpf_insn){.code = BPF_LD | BPF_IMM | BPF_DW,
						     .dst_reg = insns[i + 1].dst_reg,
						     .src_reg = BPF_PSEUDO_FUNC,
						     .imm = insns[i].imm};
			insns[i + 1] = (struct bpf_insn){0};
		}
	}
}

/* Assemble src, optionally as a function called from a new main (so that the program has a
 * bpf-to-bpf call: the anchored frame layout). */
static int assemble(const char *src, int nested, struct bpf_insn **insns)
{
	static const char prefix[] = "call local body\nexit\nbody:\n";
	char err[256];
	char *text = malloc(sizeof(prefix) + strlen(src));
	int n;

	if (!text)
		return -ENOMEM;
	strcpy(text, nested ? prefix : "");
	strcat(text, src);
	n = casm_assemble(text, insns, err, sizeof(err));
	free(text);
	if (n < 0) {
		test_fail(__FILE__, __LINE__, "assemble: %s", err);
		return n;
	}
	fix_ldfunc(*insns, n);
	return n;
}

/* Whether interp_prepare() resolves callbacks yet (it is being written alongside): it must
 * refuse a callback into the second slot of an LD_IMM64 and load something other than the raw
 * immediate for a good one.  Until then, results are checked against constants only. */
static int interp_has_callbacks(void)
{
	struct bpf_insn prog[] = {
	    {.code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 0, .src_reg = BPF_PSEUDO_FUNC, .imm = 2},
	    {0},
	    {.code = BPF_JMP | BPF_EXIT},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 7},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	uint64_t args[5] = {0}, r0 = 0;
	struct interp_prog *ip;
	int ok;

	prog[0].imm = 0; /* its own second slot */
	if (interp_prepare(prog, 5, &cb_env, &ip) == 0) {
		interp_free(ip);
		return 0;
	}
	prog[0].imm = 2;
	if (interp_prepare(prog, 5, &cb_env, &ip))
		return 0;
	ok = interp_exec(ip, args, &r0) == 0 && r0 != 2 && r0 != 0 &&
	     exec_callback_call(r0, 0, 0, 0, 0, 0) == 7;
	interp_free(ip);
	return ok;
}

static void note_interp(int has)
{
	static int said;

	if (!has && !said++)
		printf("jit callbacks: the interpreter does not resolve BPF_PSEUDO_FUNC yet: "
		       "compared with expected values only\n");
}

static const struct jit_opts opts_blind = {.sz = sizeof(struct jit_opts), .blind = 1};
static const struct jit_opts opts_blind_seed = {
    .sz = sizeof(struct jit_opts), .blind = 1, .blind_seed = 0x1234567};
static const struct jit_opts *const all_opts[] = {NULL, &opts_blind, &opts_blind_seed};

/* Compile src every way and run it with r1 = arg: r0 and status must be want (and the
 * interpreter's, when it has callbacks). */
static void check_prog(const char *name, const char *src, int nest_too, uint64_t arg,
		       uint64_t want)
{
	int has_interp = interp_has_callbacks();

	note_interp(has_interp);
	for (int nested = 0; nested <= nest_too; nested++) {
		struct bpf_insn *insns = NULL;
		int n = assemble(src, nested, &insns);
		uint64_t args[5] = {arg, 0, 0, 0, 0};

		if (n < 0)
			return;
		for (size_t o = 0; o < sizeof(all_opts) / sizeof(all_opts[0]); o++) {
			struct jit_prog *jp;
			uint64_t r0 = 0xdead;
			int err = jit_compile(insns, (uint32_t)n, &cb_env, all_opts[o], &jp);

			if (err) {
				test_fail(__FILE__, __LINE__, "%s%s opts %zu: jit_compile %d", name,
					  nested ? " (nested)" : "", o, err);
				continue;
			}
			/* twice: the descriptors and entries stay valid across runs */
			for (int rep = 0; rep < 2; rep++) {
				err = jit_exec(jp, args, &r0);
				if (err || r0 != want)
					test_fail(__FILE__, __LINE__,
						  "%s%s opts %zu arg %" PRIu64 ": status %d r0 %" PRIu64
						  " (0x%" PRIx64 "), want %" PRIu64 " (0x%" PRIx64 ")",
						  name, nested ? " (nested)" : "", o, arg, err, r0, r0,
						  want, want);
			}
			jit_free(jp);
		}
		if (has_interp) {
			struct interp_prog *ip;
			uint64_t r0 = 0xdead;
			int err = interp_prepare(insns, (uint32_t)n, &cb_env, &ip);

			if (err) {
				test_fail(__FILE__, __LINE__, "%s: interp_prepare %d", name, err);
			} else {
				err = interp_exec(ip, args, &r0);
				if (err || r0 != want)
					test_fail(__FILE__, __LINE__,
						  "%s%s interp arg %" PRIu64 ": status %d r0 %" PRIu64
						  ", want %" PRIu64,
						  name, nested ? " (nested)" : "", arg, err, r0, want);
				interp_free(ip);
			}
		}
		free(insns);
	}
}

/* The end of the main programs below: r0 = rounds << 32 | the sum at fp-8, -1 if a check
 * jumped to bad. */
#define RESULT_TAIL                                                                              \
	"lsh %r0, 32\n"                                                                          \
	"ldxdw %r1, [%r10-8]\n"                                                                  \
	"or %r0, %r1\n"                                                                          \
	"exit\n"                                                                                 \
	"bad:\n"                                                                                 \
	"mov %r0, -1\n"                                                                          \
	"exit\n"

/* loop(n, cb, &sum) with sum on the caller's stack; r0 = count << 32 | sum.  The callback
 * scratches r6..r9, which the caller must find unchanged (n kept in r6 and on the stack, 0x77 in
 * r7); -1 if not. */
#define MAIN_SUM                                                                                 \
	"mov %r6, %r1\n"                                                                         \
	"mov %r7, 0x77\n"                                                                        \
	"stxdw [%r10-16], %r1\n"                                                                 \
	"stdw [%r10-8], 0\n" LDFUNC(2, "cb") "mov %r3, %r10\n"                                   \
	"add %r3, -8\n"                                                                          \
	"mov %r4, 0\n"                                                                           \
	"call 1\n"                                                                               \
	"jne %r7, 0x77, bad\n"                                                                   \
	"ldxdw %r1, [%r10-16]\n"                                                                 \
	"jne %r1, %r6, bad\n"                                                                    \
	RESULT_TAIL

TEST(jit_callback_sum)
{
	static const char src[] = MAIN_SUM "cb:\n"
					   "mov %r6, 1\n"
					   "mov %r7, 2\n"
					   "mov %r8, 3\n"
					   "mov %r9, 4\n"
					   "ldxdw %r3, [%r2+0]\n"
					   "add %r3, %r1\n"
					   "stxdw [%r2+0], %r3\n"
					   "mov %r0, 0\n"
					   "exit\n";
	static const uint64_t ns[] = {0, 1, 10, 100};

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		check_prog("sum", src, 1, ns[k], ns[k] << 32 | ns[k] * (ns[k] - 1) / 2);
}

TEST(jit_callback_early_stop)
{
	/* stops after i == 5: 6 calls, 0 + ... + 5 */
	static const char src[] = MAIN_SUM "cb:\n"
					   "ldxdw %r3, [%r2+0]\n"
					   "add %r3, %r1\n"
					   "stxdw [%r2+0], %r3\n"
					   "mov %r0, 0\n"
					   "jne %r1, 5, out\n"
					   "mov %r0, 1\n"
					   "out:\n"
					   "exit\n";

	check_prog("early_stop", src, 1, 3, 3ull << 32 | 3);
	check_prog("early_stop", src, 1, 6, 6ull << 32 | 15);
	check_prog("early_stop", src, 1, 100, 6ull << 32 | 15);
}

/* The callback keeps values in its own stack (the caller's canary at the same offset survives)
 * and makes a bpf-to-bpf call, which has a frame of its own: sum of i * i + 7. */
/* A callback that adds i * i + 7 into *ctx, through a bpf-to-bpf call and its own stack (the
 * ctx pointer spilled, a constant kept in a slot across the call). */
#define CB_SQUARE_PLUS_7                                                                          \
	"cb:\n"                                                                                    \
	"stxdw [%r10-8], %r2\n"                                                                   \
	"stdw [%r10-16], 7\n"                                                                     \
	"call local sq\n"                                                                         \
	"ldxdw %r2, [%r10-8]\n"                                                                   \
	"ldxdw %r3, [%r10-16]\n"                                                                  \
	"add %r0, %r3\n"                                                                          \
	"ldxdw %r3, [%r2+0]\n"                                                                    \
	"add %r3, %r0\n"                                                                          \
	"stxdw [%r2+0], %r3\n"                                                                    \
	"mov %r0, 0\n"                                                                            \
	"exit\n"                                                                                  \
	"sq:\n"                                                                                   \
	"stxdw [%r10-16], %r1\n"                                                                  \
	"mov %r0, %r1\n"                                                                          \
	"ldxdw %r1, [%r10-16]\n"                                                                  \
	"mul %r0, %r1\n"                                                                          \
	"exit\n"

TEST(jit_callback_local_call_and_stack)
{
	static const char src[] = "stdw [%r10-16], 0x1234\n"
				  "call local f\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "jne %r1, 0x1234, bad\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "f:\n"
				  "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n"
				  "stdw [%r10-16], 0x4321\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "jne %r1, 0x4321, bad\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  CB_SQUARE_PLUS_7;

	for (uint64_t n = 0; n <= 20; n += 5) {
		uint64_t want = 0;

		for (uint64_t i = 0; i < n; i++)
			want += i * i + 7;
		check_prog("local_call_and_stack", src, 1, n, want);
	}
}

/* A callback that calls loop with another callback: sum over i < n of (0 + ... + i-1) + i. */
TEST(jit_callback_nested)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n" LDFUNC(2, "outer") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "jne %r0, %r6, bad\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "outer:\n"
				  "stxdw [%r10-8], %r2\n"
				  "mov %r3, %r2\n" LDFUNC(2, "inner") "mov %r4, 0\n"
				  "call 1\n"
				  "ldxdw %r2, [%r10-8]\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r0\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n"
				  "inner:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	for (uint64_t n = 0; n <= 12; n += 4) {
		uint64_t want = 0;

		for (uint64_t i = 0; i < n; i++)
			want += i * (i - 1) / 2 + i;
		check_prog("nested", src, 1, n, want);
	}
}

/* Two callbacks, one of them named twice (one descriptor): a += i over n and then 3 more calls,
 * b += i * i + 1 over n; r0 = a << 32 | b. */
TEST(jit_callback_two_callbacks)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n"
				  "stdw [%r10-16], 0\n"
				  "mov %r1, %r6\n" LDFUNC(2, "cba") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "mov %r1, %r6\n" LDFUNC(2, "cbb") "mov %r3, %r10\n"
				  "add %r3, -16\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "mov %r1, 3\n" LDFUNC(2, "cba") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "lsh %r0, 32\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "or %r0, %r1\n"
				  "exit\n"
				  "cba:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n"
				  "cbb:\n"
				  "mul %r1, %r1\n"
				  "add %r1, 1\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	for (uint64_t n = 0; n <= 30; n += 10) {
		uint64_t a = 3, b = 0;

		for (uint64_t i = 0; i < n; i++) {
			a += i;
			b += i * i + 1;
		}
		check_prog("two_callbacks", src, 1, n, a << 32 | b);
	}
}

/* All five arguments arrive, and r0, r6..r9 start at zero in the callback although the caller's
 * are not (the callback reads them first: their OR lands in bit 20 and up); the caller's r0 and
 * r6..r9 survive.  apply(cb, 1, 2, 3, 4) = cb(1, 2, 3, 4, 85). */
TEST(jit_callback_args_and_fresh_regs)
{
	static const char src[] = "mov %r6, 0x66\n"
				  "mov %r7, 0x77\n"
				  "mov %r8, 0x88\n"
				  "mov %r9, 0x99\n"
				  "mov %r0, 0x100\n" LDFUNC(1, "cb") "mov %r2, 1\n"
				  "mov %r3, 2\n"
				  "mov %r4, 3\n"
				  "mov %r5, 4\n"
				  "call 2\n"
				  "jne %r6, 0x66, bad\n"
				  "jne %r7, 0x77, bad\n"
				  "jne %r8, 0x88, bad\n"
				  "jne %r9, 0x99, bad\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "cb:\n"
				  "add %r0, %r6\n"
				  "or %r0, %r7\n"
				  "or %r0, %r8\n"
				  "or %r0, %r9\n"
				  "lsh %r0, 20\n"
				  "add %r0, %r1\n"
				  "mul %r2, 10\n"
				  "add %r0, %r2\n"
				  "mul %r3, 100\n"
				  "add %r0, %r3\n"
				  "mul %r4, 1000\n"
				  "add %r0, %r4\n"
				  "mul %r5, 10000\n"
				  "add %r0, %r5\n"
				  "mov %r6, -1\n"
				  "mov %r7, -1\n"
				  "mov %r8, -1\n"
				  "mov %r9, -1\n"
				  "exit\n";

	check_prog("args_and_fresh_regs", src, 1, 0, 1 + 20 + 300 + 4000 + 850000);
}

/* Helpers called from callbacks (and a callback called from a helper called at depth 1 when
 * nested) see an ABI-aligned stack, in both frame layouts and with 1 to 4 of r6..r9 in use. */
TEST(jit_callback_aligned_stack)
{
	static const char *const srcs[] = {
	    /* no local call, r6 only */
	    "mov %r6, %r1\nstdw [%r10-8], 0\n" LDFUNC(2, "cb") "mov %r3, %r10\nadd %r3, -8\n"
	    "mov %r4, 0\ncall 1\nldxdw %r0, [%r10-8]\nexit\n"
	    "cb:\nmov %r6, %r2\ncall 3\nldxdw %r1, [%r6+0]\nadd %r1, %r0\nstxdw [%r6+0], %r1\n"
	    "mov %r0, 0\nexit\n",
	    /* r6..r9, a local call inside the callback */
	    "mov %r6, %r1\nmov %r7, 0\nmov %r8, 0\nmov %r9, 0\nstdw [%r10-8], 0\n" LDFUNC(2, "cb")
	    "mov %r3, %r10\nadd %r3, -8\nmov %r4, 0\ncall 1\nldxdw %r0, [%r10-8]\nexit\n"
	    "cb:\nmov %r6, %r2\nmov %r7, 1\nmov %r8, 2\nmov %r9, 3\ncall local g\n"
	    "ldxdw %r1, [%r6+0]\nadd %r1, %r0\nstxdw [%r6+0], %r1\nmov %r0, 0\nexit\n"
	    "g:\ncall 3\nexit\n",
	};

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		for (uint64_t n = 1; n <= 9; n += 4)
			check_prog("aligned_stack", srcs[i], 1, n, n);
}

/* A callback run that fails (-ELOOP: unbounded recursion) returns 0 to the helper and the
 * caller goes on unharmed: every native frame of the failed run is unwound. */
TEST(jit_callback_failing_run)
{
	static const char src[] = "mov %r6, %r1\n"
				  "mov %r7, 0x77\n" LDFUNC(2, "cb") "mov %r3, 0\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "jne %r7, 0x77, bad\n"
				  "add %r0, %r6\n"
				  "add %r0, 1000\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "cb:\n"
				  "mov %r7, 5\n"
				  "call local rec\n"
				  "mov %r0, 1\n"
				  "exit\n"
				  "rec:\n"
				  "mov %r7, 6\n"
				  "call local rec\n"
				  "exit\n";

	/* the callback never returns 1: n calls */
	for (int rep = 0; rep < 20; rep++)
		check_prog("failing_run", src, 1, 7, 7 + 7 + 1000);
}

/* A callback that calls the helper with itself: runs nest INTERP_MAX_FRAMES deep, then the next
 * call returns 0 without running (as in the interpreter) instead of exhausting the stack.  Each
 * run counts itself in ctx; afterwards the caller can run callbacks again (the bound is per
 * nesting, not per thread lifetime). */
TEST(jit_callback_recursion_bound)
{
	static const char src[] = "stdw [%r10-8], 0\n"
				  "mov %r1, 1\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "mov %r1, 1\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  "cb:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, 1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r3, %r2\n"
				  "mov %r1, 1\n" LDFUNC(2, "cb") "mov %r4, 0\n"
				  "call 1\n"
				  "mov %r0, 0\n"
				  "exit\n";

	check_prog("recursion_bound", src, 1, 0, 2 * INTERP_MAX_FRAMES);
}

/* A callback run has INTERP_MAX_FRAMES frames of its own, whatever the depth of the call that
 * reached the helper: from depth 2, the callback goes 8 frames deep (sum of rec(6) = 6 per call),
 * but not 9 (rec(7) fails: 0). */
TEST(jit_callback_own_depth)
{
	static const char fmt[] = "call local f1\n"
				  "exit\n"
				  "f1:\n"
				  "call local f2\n"
				  "exit\n"
				  "f2:\n"
				  "stdw [%r10-8], 0\n"
				  "mov %r1, 3\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 1\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  "cb:\n"
				  "mov %r6, %r2\n"
				  "mov %r1, %K\n"
				  "call local rec\n"
				  "ldxdw %r1, [%r6+0]\n"
				  "add %r1, %r0\n"
				  "stxdw [%r6+0], %r1\n"
				  "mov %r0, 0\n"
				  "exit\n"
				  "rec:\n"
				  "mov %r0, 0\n"
				  "jeq %r1, 0, out\n"
				  "sub %r1, 1\n"
				  "call local rec\n"
				  "add %r0, 1\n"
				  "out:\n"
				  "exit\n";

	for (int k = 6; k <= 7; k++) {
		char src[sizeof(fmt) + 8];
		char *at;

		strcpy(src, fmt);
		at = strstr(src, "%K");
		at[0] = (char)('0' + k);
		at[1] = ' ';
		check_prog(k == 6 ? "own_depth 8 frames" : "own_depth 9 frames", src, 0, 0,
			   k == 6 ? 18 : 0);
	}
}

/* The descriptor is a value the program can hand out: call it from C after the run, and compare
 * descriptors (one per target, whichever LD_IMM64 names it). */
TEST(jit_callback_descriptor)
{
	static const char src[] = "mov %r6, %r1\n" LDFUNC(0, "cb1") LDFUNC(1, "cb2") LDFUNC(2, "cb1")
	    "jeq %r6, 1, one\n"
	    "jeq %r6, 2, two\n"
	    "jeq %r6, 3, three\n"
	    "exit\n"
	    "one:\nmov %r0, %r1\nexit\n"
	    "two:\nmov %r0, %r2\nexit\n"
	    "three:\njne %r0, %r2, diff\njeq %r1, %r2, diff\nmov %r0, 0\nexit\n"
	    "diff:\nmov %r0, 1\nexit\n"
	    "cb1:\nmov %r0, %r1\nmul %r0, 3\nadd %r0, %r5\nexit\n"
	    "cb2:\nmov %r0, %r2\nsub %r0, %r3\nexit\n";
	struct bpf_insn *insns;
	int n = assemble(src, 0, &insns);

	REQUIRE(n > 0);
	for (size_t o = 0; o < sizeof(all_opts) / sizeof(all_opts[0]); o++) {
		struct jit_prog *jp;
		uint64_t d[4] = {0}, args[5] = {0};
		const void *code;
		size_t len;

		REQUIRE_EQ(jit_compile(insns, (uint32_t)n, &cb_env, all_opts[o], &jp), 0);
		for (int k = 0; k <= 3; k++) {
			args[0] = (uint64_t)k;
			CHECK_EQ(jit_exec(jp, args, &d[k]), 0);
		}
		/* r0 and r2 name cb1 (one descriptor), r1 cb2 */
		CHECK(d[0] != 0);
		CHECK(d[1] != 0);
		CHECK(d[0] != d[1]);
		CHECK_EQ(d[2], d[0]);
		CHECK_EQ(d[3], 0); /* the program's own comparisons agree */
		CHECK_EQ(exec_callback_call(d[0], 5, 0, 0, 0, 7), 22);
		CHECK_EQ(exec_callback_call(d[1], 0, 50, 8, 0, 0), 42);
		CHECK_EQ(exec_callback_call(d[2], 10, 0, 0, 0, 1), 31);
		/* the descriptors are not in the code, whose length covers the callback entries */
		code = jit_code(jp, &len);
		CHECK(len > 0);
		CHECK((uintptr_t)d[0] < (uintptr_t)code || (uintptr_t)d[0] >= (uintptr_t)code + len);
		jit_free(jp);
	}
	free(insns);
}

/* scan() checks a callback's target like a bpf-to-bpf call's, with interp_prepare()'s errors:
 * inside the program, an instruction start, not a second LD_IMM64 slot. */
TEST(jit_callback_bad_targets)
{
	/* 0-1: lddw r1, func ?; 2: lddw r2, 5; 4: mov r0, 0; 5: exit (6 slots) */
	static const struct {
		int32_t imm;
		int ok;
	} cases[] = {
	    {-2, 0}, /* -1 */
	    {-1, 1}, /* 0: the main entry itself */
	    {0, 0},  /* 1: its own second slot */
	    {1, 1},  /* 2 */
	    {2, 0},  /* 3: the second slot of the next LD_IMM64 */
	    {3, 1},  /* 4 */
	    {4, 1},  /* 5: the last instruction */
	    {5, 0},  /* 6: past the end */
	    {INT32_MAX, 0},
	    {INT32_MIN, 0},
	};
	int has_interp = interp_has_callbacks();

	note_interp(has_interp);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bpf_insn prog[6] = {
		    {.code = BPF_LD | BPF_IMM | BPF_DW,
		     .dst_reg = 1,
		     .src_reg = BPF_PSEUDO_FUNC,
		     .imm = cases[k].imm},
		    {0},
		    {.code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2, .imm = 5},
		    {0},
		    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 0},
		    {.code = BPF_JMP | BPF_EXIT},
		};
		struct jit_prog *jp = NULL;
		int want = cases[k].ok ? 0 : -EINVAL;
		int je = jit_compile(prog, 6, &cb_env, NULL, &jp);

		if (je != want)
			test_fail(__FILE__, __LINE__, "imm %d: jit_compile %d, want %d",
				  cases[k].imm, je, want);
		if (!je) {
			CHECK_EQ(jit_run(jp, 0, 0), 0);
			jit_free(jp);
		}
		if (has_interp) {
			struct interp_prog *ip;
			int ie = interp_prepare(prog, 6, &cb_env, &ip);

			if (ie != want)
				test_fail(__FILE__, __LINE__, "imm %d: interp_prepare %d, want %d",
					  cases[k].imm, ie, want);
			if (!ie)
				interp_free(ip);
		}
	}
}

/* Callbacks reach past the constant-blinding: the descriptor's address is the JIT's own
 * constant, while the program's immediates stay hidden. */
TEST(jit_callback_blinded_code)
{
	static const char src[] = "mov %r6, %r1\nstdw [%r10-8], 0\n" LDFUNC(2, "cb")
	    "mov %r3, %r10\nadd %r3, -8\nmov %r4, 0\ncall 1\nldxdw %r0, [%r10-8]\nexit\n"
	    "cb:\nldxdw %r3, [%r2+0]\nadd %r3, 0x5a5a5a5a\nstxdw [%r2+0], %r3\nmov %r0, 0\nexit\n";
	static const uint8_t pattern[4] = {0x5a, 0x5a, 0x5a, 0x5a};
	struct bpf_insn *insns;
	int n = assemble(src, 0, &insns);

	REQUIRE(n > 0);
	for (int blind = 0; blind <= 1; blind++) {
		struct jit_prog *jp;
		const uint8_t *code;
		size_t len;
		int found = 0;

		REQUIRE_EQ(jit_compile(insns, (uint32_t)n, &cb_env, blind ? &opts_blind : NULL, &jp),
			   0);
		code = jit_code(jp, &len);
		for (size_t i = 0; i + 4 <= len; i++)
			found |= !memcmp(code + i, pattern, 4);
		CHECK_EQ(found, !blind);
		CHECK_EQ(jit_run(jp, 4, 0), 4 * 0x5a5a5a5aull);
		jit_free(jp);
	}
	free(insns);
}

/* --- bpf_loop run inline (interp_env.loop_id) ---
 *
 * With loop_env, `call 4` is bpf_loop: when r2 at the call is one of the program's callbacks
 * (an LD_IMM64 in the same basic block) the JIT runs the loop itself, each round a bpf-to-bpf
 * call of the callback; otherwise it calls h_bpf_loop.  Each case runs inline, through the
 * helper (cb_env: no loop_id), unblinded and blinded, and in the interpreter with both
 * environments (which may or may not run the loop itself: the results agree either way). */

/* Whether the interpreter runs bpf_loop itself: a probe's call does not reach the helper. */
static int interp_inlines_loop(void)
{
	static const char src[] = LDFUNC(2, "cb") "mov %r1, 3\n"
						  "mov %r3, 0\n"
						  "mov %r4, 0\n"
						  "call 4\n"
						  "exit\n"
						  "cb:\n"
						  "mov %r0, 0\n"
						  "exit\n";
	struct bpf_insn *insns;
	struct interp_prog *ip;
	uint64_t args[5] = {0}, r0 = 0;
	int n = assemble(src, 0, &insns), inl = 0;

	if (n < 0)
		return 0;
	if (interp_prepare(insns, (uint32_t)n, &loop_env, &ip) == 0) {
		bpf_loop_calls = 0;
		inl = interp_exec(ip, args, &r0) == 0 && r0 == 3 && bpf_loop_calls == 0;
		interp_free(ip);
	}
	free(insns);
	return inl;
}

/* A run's outcome: status and r0. */
struct loop_want {
	int status;
	uint64_t r0;
};

static void check_run(const char *name, const char *how, int nested, uint64_t arg, int status,
		      uint64_t r0, struct loop_want want)
{
	if (status != want.status || r0 != want.r0)
		test_fail(__FILE__, __LINE__,
			  "%s%s %s arg 0x%" PRIx64 ": status %d r0 0x%" PRIx64
			  ", want status %d r0 0x%" PRIx64,
			  name, nested ? " (nested)" : "", how, arg, status, r0, want.status,
			  want.r0);
}

/* Compile src (and, if nest_too, src one local call deep) with and without loop_id, every
 * blinding option, and run it with r1 = arg: the inline runs must give inl and reach
 * h_bpf_loop helper_calls times per run, the helper runs helper; the interpreter gives the same
 * (inl with loop_id if it runs loops itself, else helper). */
static void check_loop_ex(const char *name, const char *src, int nest_too, uint64_t arg,
			  struct loop_want inl, struct loop_want helper, unsigned int helper_calls)
{
	int has_interp = interp_has_callbacks(), interp_inl = has_interp && interp_inlines_loop();

	note_interp(has_interp);
	for (int nested = 0; nested <= nest_too; nested++) {
		struct bpf_insn *insns = NULL;
		int n = assemble(src, nested, &insns);
		uint64_t args[5] = {arg, 0, 0, 0, 0};

		if (n < 0)
			return;
		for (size_t o = 0; o < sizeof(all_opts) / sizeof(all_opts[0]); o++) {
			for (int via_helper = 0; via_helper <= 1; via_helper++) {
				const struct interp_env *env = via_helper ? &cb_env : &loop_env;
				char how[64];
				struct jit_prog *jp;
				int err = jit_compile(insns, (uint32_t)n, env, all_opts[o], &jp);

				snprintf(how, sizeof(how), "jit %s opts %zu",
					 via_helper ? "helper" : "inline", o);
				if (err) {
					test_fail(__FILE__, __LINE__, "%s %s: jit_compile %d", name,
						  how, err);
					continue;
				}
				for (int rep = 0; rep < 2; rep++) {
					uint64_t r0 = 0xdead;

					bpf_loop_calls = 0;
					err = jit_exec(jp, args, &r0);
					check_run(name, how, nested, arg, err, r0,
						  via_helper ? helper : inl);
					if (!via_helper && bpf_loop_calls != helper_calls)
						test_fail(__FILE__, __LINE__,
							  "%s %s: %u helper calls, want %u", name,
							  how, bpf_loop_calls, helper_calls);
				}
				jit_free(jp);
			}
		}
		for (int via_helper = 0; has_interp && via_helper <= 1; via_helper++) {
			struct interp_prog *ip;
			uint64_t r0 = 0xdead;
			int err = interp_prepare(insns, (uint32_t)n, via_helper ? &cb_env : &loop_env,
						 &ip);

			if (err) {
				test_fail(__FILE__, __LINE__, "%s: interp_prepare %d", name, err);
				continue;
			}
			err = interp_exec(ip, args, &r0);
			check_run(name, via_helper ? "interp helper" : "interp loop_id", nested, arg,
				  err, r0, via_helper || !interp_inl ? helper : inl);
			interp_free(ip);
		}
		free(insns);
	}
}

/* Same result either way, run as one local call deep too. */
static void check_loop(const char *name, const char *src, uint64_t arg, uint64_t want,
		       unsigned int helper_calls)
{
	struct loop_want w = {0, want};

	check_loop_ex(name, src, 1, arg, w, w, helper_calls);
}

/* MAIN_SUM with bpf_loop: r0 = rounds << 32 | sum, -1 if r6 or r7 changed. */
#define LOOP_SUM                                                                                 \
	"mov %r6, %r1\n"                                                                         \
	"mov %r7, 0x77\n"                                                                        \
	"stxdw [%r10-16], %r1\n"                                                                 \
	"stdw [%r10-8], 0\n" LDFUNC(2, "cb") "mov %r3, %r10\n"                                   \
	"add %r3, -8\n"                                                                          \
	"mov %r4, 0\n"                                                                           \
	"call 4\n"                                                                               \
	"jne %r7, 0x77, bad\n"                                                                   \
	"ldxdw %r1, [%r10-16]\n"                                                                 \
	"jne %r1, %r6, bad\n"                                                                    \
	RESULT_TAIL

/* The sum of i into a ctx on the caller's stack; the callback scratches r6..r9 and checks that
 * its stack is ABI-aligned for a helper (an unaligned round adds 1 << 40).  nr is a u32: the
 * high half of r1 is ignored. */
TEST(jit_loop_inline_sum)
{
	static const char src[] = LOOP_SUM "cb:\n"
					   "mov %r6, %r2\n"
					   "mov %r7, %r1\n"
					   "mov %r8, 3\n"
					   "mov %r9, 4\n"
					   "call 3\n"
					   "xor %r0, 1\n"
					   "lsh %r0, 40\n"
					   "add %r0, %r7\n"
					   "ldxdw %r3, [%r6+0]\n"
					   "add %r3, %r0\n"
					   "stxdw [%r6+0], %r3\n"
					   "mov %r0, 0\n"
					   "exit\n";
	static const uint64_t ns[] = {0, 1, 2, 10, 100, 1000};

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		check_loop("sum", src, ns[k], ns[k] << 32 | ns[k] * (ns[k] - 1) / 2, 0);
	check_loop("sum", src, 1ull << 32 | 5, 5ull << 32 | 10, 0);
	check_loop("sum", src, 1ull << 32, 0, 0);
}

/* may_goto in the callback: each round is a call, so each has its whole budget (8388608
 * rounds, the kernel's BPF_MAX_LOOPS) again, inline or through the helper, nested or not,
 * whatever the caller spent of its own (two rounds here). */
TEST(jit_loop_inline_may_goto)
{
	static const char src[] = "may_goto spent1\n"
				  "spent1:\n"
				  "may_goto spent2\n"
				  "spent2:\n" LOOP_SUM "cb:\n"
					   "mov %r0, 0\n"
					   "again:\n"
					   "may_goto spent\n"
					   "add %r0, 1\n"
					   "ja again\n"
					   "spent:\n"
					   "ldxdw %r3, [%r2+0]\n"
					   "add %r3, %r0\n"
					   "stxdw [%r2+0], %r3\n"
					   "mov %r0, 0\n"
					   "exit\n";

	check_loop("may_goto", src, 2, 2ull << 32 | 2 * MAY_GOTO_BUDGET, 0);
}

/* The loop keeps i, nr and ctx in registers of r6..r9 that the callback does not write (here
 * r8, r7, r6: it writes r9), else on the stack (here it writes r6 and r7: one spare); either
 * way the caller's r6..r9 survive the call and the sums are the same. */
TEST(jit_loop_inline_state_regs)
{
#define MAIN_R6_R9                                                                               \
	"mov %r6, 6\n"                                                                           \
	"mov %r7, 7\n"                                                                           \
	"mov %r8, 8\n"                                                                           \
	"mov %r9, 9\n"                                                                           \
	"stdw [%r10-8], 0\n" LDFUNC(2, "cb") "mov %r3, %r10\n"                                   \
	"add %r3, -8\n"                                                                          \
	"mov %r4, 0\n"                                                                           \
	"call 4\n"                                                                               \
	"jne %r6, 6, bad\n"                                                                      \
	"jne %r7, 7, bad\n"                                                                      \
	"jne %r8, 8, bad\n"                                                                      \
	"jne %r9, 9, bad\n"                                                                      \
	RESULT_TAIL
	static const char writes_r9[] = "mov %r1, %r1\n" MAIN_R6_R9 "cb:\n"
							     "mov %r9, %r1\n"
							     "add %r9, 1\n"
							     "ldxdw %r3, [%r2+0]\n"
							     "add %r3, %r9\n"
							     "stxdw [%r2+0], %r3\n"
							     "mov %r0, 0\n"
							     "exit\n";
	static const char writes_r6_r7[] = "mov %r1, %r1\n" MAIN_R6_R9 "cb:\n"
								"mov %r6, %r1\n"
								"mov %r7, %r2\n"
								"add %r6, 1\n"
								"ldxdw %r3, [%r7+0]\n"
								"add %r3, %r6\n"
								"stxdw [%r7+0], %r3\n"
								"mov %r0, 0\n"
								"exit\n";
#undef MAIN_R6_R9
	static const uint64_t ns[] = {0, 1, 2, 50};

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		uint64_t want = ns[k] << 32 | ns[k] * (ns[k] + 1) / 2;

		check_loop("state in registers", writes_r9, ns[k], want, 0);
		check_loop("state on the stack", writes_r6_r7, ns[k], want, 0);
	}
}

/* The callback returns 1 at i == 5: that round counts, no more run. */
TEST(jit_loop_inline_early_stop)
{
	static const char src[] = LOOP_SUM "cb:\n"
					   "ldxdw %r3, [%r2+0]\n"
					   "add %r3, %r1\n"
					   "stxdw [%r2+0], %r3\n"
					   "mov %r0, 0\n"
					   "jne %r1, 5, out\n"
					   "lsh %r1, 33\n" /* a nonzero r0 whose low half is 0 */
					   "mov %r0, %r1\n"
					   "out:\n"
					   "exit\n";

	check_loop("early_stop", src, 3, 3ull << 32 | 3, 0);
	check_loop("early_stop", src, 5, 5ull << 32 | 10, 0);
	check_loop("early_stop", src, 6, 6ull << 32 | 15, 0);
	check_loop("early_stop", src, 7, 6ull << 32 | 15, 0);
	check_loop("early_stop", src, 100, 6ull << 32 | 15, 0);
}

/* flags = r1: nonzero (any of 64 bits) gives -EINVAL without a round; nr 3 otherwise.  r0 =
 * the result + (sum of i + 1) << 48. */
TEST(jit_loop_inline_flags)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n"
				  "mov %r1, 3\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, %r6\n"
				  "call 4\n"
				  "ldxdw %r1, [%r10-8]\n"
				  "lsh %r1, 48\n"
				  "add %r0, %r1\n"
				  "exit\n"
				  "cb:\n"
				  "add %r1, 1\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	check_loop("flags", src, 0, 6ull << 48 | 3, 0);
	check_loop("flags", src, 1, (uint64_t)-EINVAL, 0);
	check_loop("flags", src, 1ull << 32, (uint64_t)-EINVAL, 0);
	check_loop("flags", src, UINT64_MAX, (uint64_t)-EINVAL, 0);
}

/* nr = r1 against BPF_MAX_LOOPS (1 << 23, as a u32), with a callback that stops at once: -E2BIG
 * above, one round at 1 << 23.  r0 = the result + rounds << 48. */
TEST(jit_loop_inline_max_loops)
{
	static const char src[] = "stdw [%r10-8], 0\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "ldxdw %r1, [%r10-8]\n"
				  "lsh %r1, 48\n"
				  "add %r0, %r1\n"
				  "exit\n"
				  "cb:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, 1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 1\n"
				  "exit\n";

	check_loop("max_loops", src, 1u << 23, 1ull << 48 | 1, 0);
	check_loop("max_loops", src, 1ull << 32 | 1u << 23, 1ull << 48 | 1, 0);
	check_loop("max_loops", src, (1u << 23) + 1, (uint64_t)-E2BIG, 0);
	check_loop("max_loops", src, UINT32_MAX, (uint64_t)-E2BIG, 0);
	check_loop("max_loops", src, 1ull << 32 | ((1u << 23) + 1), (uint64_t)-E2BIG, 0);
}

/* The callback keeps values in its own stack frame (the caller's canary at the same offset
 * survives) and makes a bpf-to-bpf call with a frame of its own: sum of i * i + 7. */
TEST(jit_loop_inline_local_call_and_stack)
{
	static const char src[] = "stdw [%r10-16], 0x1234\n"
				  "call local f\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "jne %r1, 0x1234, bad\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "f:\n"
				  "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n"
				  "stdw [%r10-16], 0x4321\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "jne %r0, %r6, bad\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "jne %r1, 0x4321, bad\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  CB_SQUARE_PLUS_7;

	for (uint64_t n = 0; n <= 20; n += 5) {
		uint64_t want = 0;

		for (uint64_t i = 0; i < n; i++)
			want += i * i + 7;
		check_loop("local_call_and_stack", src, n, want, 0);
	}
}

/* A callback that runs bpf_loop with another callback, both inline: sum over i < n of
 * (0 + ... + i-1) + i. */
TEST(jit_loop_inline_nested)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n" LDFUNC(2, "outer") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "jne %r0, %r6, bad\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  "bad:\n"
				  "mov %r0, -1\n"
				  "exit\n"
				  "outer:\n"
				  "stxdw [%r10-8], %r2\n"
				  "mov %r3, %r2\n" LDFUNC(2, "inner") "mov %r4, 0\n"
				  "call 4\n"
				  "ldxdw %r2, [%r10-8]\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r0\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n"
				  "inner:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	for (uint64_t n = 0; n <= 12; n += 4) {
		uint64_t want = 0;

		for (uint64_t i = 0; i < n; i++)
			want += i * (i - 1) / 2 + i;
		check_loop("nested", src, n, want, 0);
	}
}

/* With 0 to 4 of r6..r9 in use (both parities of the pushes around the loop): the caller's
 * survive the rounds, which scratch them, and every round's helper call sees an aligned stack.
 * r0 = the aligned rounds, -1 if a register changed. */
TEST(jit_loop_inline_callee_saved)
{
	for (int k = 0; k <= 4; k++) {
		char set[160] = "", clobber[160] = "", check[200] = "", src[1024];

		for (int r = 6; r < 6 + k; r++) {
			snprintf(set + strlen(set), sizeof(set) - strlen(set), "mov %%r%d, 0x%d%d\n",
				 r, r, r);
			snprintf(clobber + strlen(clobber), sizeof(clobber) - strlen(clobber),
				 "mov %%r%d, -1\n", r);
			snprintf(check + strlen(check), sizeof(check) - strlen(check),
				 "jne %%r%d, 0x%d%d, bad\n", r, r, r);
		}
		snprintf(src, sizeof(src),
			 "%s"
			 "stdw [%%r10-8], 0\n" LDFUNC_FMT(2, "cb") "mov %%r3, %%r10\n"
			 "add %%r3, -8\n"
			 "mov %%r4, 0\n"
			 "call 4\n"
			 "%s"
			 "call 3\n"
			 "jne %%r0, 1, bad\n"
			 "ldxdw %%r0, [%%r10-8]\n"
			 "exit\n"
			 "bad:\n"
			 "mov %%r0, -1\n"
			 "exit\n"
			 "cb:\n"
			 "stxdw [%%r10-8], %%r2\n"
			 "%s"
			 "call 3\n"
			 "ldxdw %%r2, [%%r10-8]\n"
			 "ldxdw %%r3, [%%r2+0]\n"
			 "add %%r3, %%r0\n"
			 "stxdw [%%r2+0], %%r3\n"
			 "mov %%r0, 0\n"
			 "exit\n",
			 set, check, clobber);
		for (uint64_t n = 1; n <= 9; n += 4)
			check_loop("callee_saved", src, n, n, 0);
	}
}

/* Two inline loops with different callbacks, and a third with the first's again: a += i over
 * n and 3 more rounds, b += i * i + 1 over n; r0 = a << 32 | b. */
TEST(jit_loop_inline_two_loops)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n"
				  "stdw [%r10-16], 0\n"
				  "mov %r1, %r6\n" LDFUNC(2, "cba") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "mov %r1, %r6\n" LDFUNC(2, "cbb") "mov %r3, %r10\n"
				  "add %r3, -16\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "mov %r1, 3\n" LDFUNC(2, "cba") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "lsh %r0, 32\n"
				  "ldxdw %r1, [%r10-16]\n"
				  "or %r0, %r1\n"
				  "exit\n"
				  "cba:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n"
				  "cbb:\n"
				  "mul %r1, %r1\n"
				  "add %r1, 1\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	for (uint64_t n = 0; n <= 30; n += 10) {
		uint64_t a = 3, b = 0;

		for (uint64_t i = 0; i < n; i++) {
			a += i;
			b += i * i + 1;
		}
		check_loop("two_loops", src, n, a << 32 | b, 0);
	}
}

/* Where r2 is not provably a callback the helper runs: r2 set before a jump target, r2 copied
 * from another register; a third call, with r2 set in its block, runs inline.  Each loop sums
 * i into the same ctx: r0 = rounds << 32 | sum. */
TEST(jit_loop_inline_unknown_callback)
{
	static const char src[] = "mov %r6, %r1\n"
				  "stdw [%r10-8], 0\n" LDFUNC(8, "cb") "mov %r1, %r6\n" LDFUNC(2, "cb")
				  "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "jeq %r6, 0x7fffffff, next\n"
				  "next:\n"
				  "call 4\n"
				  "mov %r7, %r0\n"
				  "mov %r1, %r6\n"
				  "mov %r2, %r8\n"
				  "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "add %r7, %r0\n"
				  "mov %r1, %r6\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "add %r7, %r0\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "lsh %r7, 32\n"
				  "or %r0, %r7\n"
				  "exit\n"
				  "cb:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, %r1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r0, 0\n"
				  "exit\n";

	for (uint64_t n = 0; n <= 20; n += 5)
		check_loop("unknown_callback", src, n, 3 * n << 32 | 3 * (n * (n - 1) / 2), 2);
}

/* Each round is a frame of the caller's chain (as the verifier counts it): a loop in the
 * function at depth 6 runs its callback at depth 7, the last frame; at depth 7 a round fails
 * with -ELOOP, unless there is none.  Through the helper, a callback run has frames of its own.
 * r0 = rounds. */
TEST(jit_loop_inline_depth)
{
	for (int depth = 6; depth <= 7; depth++) {
		char src[1024] = "";

		for (int f = 1; f <= depth; f++)
			snprintf(src + strlen(src), sizeof(src) - strlen(src),
				 "call local f%d\nexit\nf%d:\n", f, f);
		snprintf(src + strlen(src), sizeof(src) - strlen(src),
			 "stdw [%%r10-8], 0\n" LDFUNC_FMT(2, "cb") "mov %%r3, %%r10\n"
			 "add %%r3, -8\n"
			 "mov %%r4, 0\n"
			 "call 4\n"
			 "exit\n"
			 "cb:\n"
			 "stxdw [%%r10-8], %%r1\n"
			 "mov %%r0, 0\n"
			 "exit\n");
		for (uint64_t n = 0; n <= 3; n += 3) {
			struct loop_want helper = {0, n}, inl = helper;

			if (depth == 7 && n)
				inl = (struct loop_want){-ELOOP, 0};
			check_loop_ex(depth == 6 ? "depth 6" : "depth 7", src, 0, n, inl, helper, 0);
		}
	}
}

/* An unverified callback that runs bpf_loop with itself: inline, each level is a frame and the
 * run ends with -ELOOP (no crash, from either frame layout); through the helper, the callback
 * runs nest INTERP_MAX_FRAMES deep and the next returns 0 (jit_callback_recursion_bound). */
TEST(jit_loop_inline_recursion)
{
	static const char src[] = "stdw [%r10-8], 0\n"
				  "mov %r1, 1\n" LDFUNC(2, "cb") "mov %r3, %r10\n"
				  "add %r3, -8\n"
				  "mov %r4, 0\n"
				  "call 4\n"
				  "ldxdw %r0, [%r10-8]\n"
				  "exit\n"
				  "cb:\n"
				  "ldxdw %r3, [%r2+0]\n"
				  "add %r3, 1\n"
				  "stxdw [%r2+0], %r3\n"
				  "mov %r3, %r2\n"
				  "mov %r1, 1\n" LDFUNC(2, "cb") "mov %r4, 0\n"
				  "call 4\n"
				  "mov %r0, 0\n"
				  "exit\n";
	struct loop_want inl = {-ELOOP, 0}, helper = {0, INTERP_MAX_FRAMES};

	for (int rep = 0; rep < 3; rep++)
		check_loop_ex("recursion", src, 1, 0, inl, helper, 0);
}

#endif
