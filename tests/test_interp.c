/* test_interp.c — table-driven unit tests of the interpreter's tricky semantics and of the
 * decoder's rejections.
 *
 * Programs are written in the conformance assembler syntax (conformance_asm.h) and run with
 * r1 = the case's argument.  Expected values follow RFC 9669 / the kernel: division by zero
 * gives 0, modulo by zero the (32-bit: zero-extended) dividend, INT_MIN / -1 = INT_MIN,
 * INT_MIN % -1 = 0, shift counts masked, 32-bit results zero-extended.
 */
#include <stdlib.h>

#include "test.h"
#include "conformance_asm.h"
#include "insn.h"
#include "exec/interp.h"
#include "interp_cases.h"

/* --- Environment: helper 1 sums its arguments, 2 returns r1, 5 is uBPF's unwind; LD_ABS reads
 * the struct test_pkt that r6 points to. --- */

struct test_pkt {
	const uint8_t *data;
	uint32_t len;
};

static uint64_t helper_sum(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	return r1 + r2 * 10 + r3 * 100 + r4 * 1000 + r5 * 10000;
}

static uint64_t helper_id(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	return r1;
}

static const void *test_load_pkt(uint64_t ctx, int32_t off, uint32_t size, void *buf)
{
	const struct test_pkt *pkt = (const struct test_pkt *)(uintptr_t)ctx;

	if (off < 0 || (uint64_t)off + size > pkt->len)
		return NULL;
	return pkt->data + off;
}

static const interp_helper_fn test_helpers[6] = {
	[1] = helper_sum,
	[2] = helper_id,
	[5] = helper_id,
};

const struct interp_env interp_case_env = {
	.helpers = test_helpers,
	.nr_helpers = 6,
	.unwind_id = 5,
	.load_pkt = test_load_pkt,
};

static const uint8_t pkt_bytes[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
static const struct test_pkt test_packet = { pkt_bytes, sizeof(pkt_bytes) };
const void *const interp_case_packet = &test_packet;
/* Stands for the address of test_packet, which is not a constant expression on every target. */
#define PKT INTERP_CASE_PKT

/* Assemble and run src with r1 = arg; returns the interp_exec() status. */
static int run_asm(const char *src, uint64_t arg, uint64_t *r0, const char *name)
{
	struct bpf_insn *insns;
	struct interp_prog *p;
	char err[256];
	uint64_t args[5] = { arg, 0, 0, 0, 0 };
	int n, ret;

	n = casm_assemble(src, &insns, err, sizeof(err));
	if (n < 0) {
		test_fail(__FILE__, __LINE__, "%s: assemble: %s", name, err);
		return -EINVAL;
	}
	ret = interp_prepare(insns, (uint32_t)n, &interp_case_env, &p);
	free(insns);
	if (ret) {
		test_fail(__FILE__, __LINE__, "%s: prepare: %d", name, ret);
		return ret;
	}
	ret = interp_exec(p, args, r0);
	interp_free(p);
	return ret;
}

const struct sem_case interp_sem_cases[] = {
	/* Division and modulo by zero, both widths, register and immediate. */
	{ "div64 reg by 0", "mov %r0, 7\nmov %r1, 0\ndiv %r0, %r1\nexit", 0, 0 },
	{ "div64 imm by 0", "mov %r0, 7\ndiv %r0, 0\nexit", 0, 0 },
	{ "mod64 by 0 keeps dividend", "lddw %r0, 0x123456789a\nmov %r1, 0\nmod %r0, %r1\nexit", 0,
	  0x123456789aULL },
	{ "div32 by 0", "lddw %r0, 0xffffffff00000007\nmov %r1, 0\ndiv32 %r0, %r1\nexit", 0, 0 },
	{ "mod32 by 0 zero-extends", "lddw %r0, 0xffffffff00000007\nmod32 %r0, 0\nexit", 0, 7 },
	{ "div32 divisor low half 0", "mov %r0, 9\nlddw %r1, 0x100000000\ndiv32 %r0, %r1\nexit", 0,
	  0 },
	{ "sdiv64 by 0", "mov %r0, -7\nsdiv %r0, 0\nexit", 0, 0 },
	{ "smod64 by 0", "mov %r0, -7\nmov %r1, 0\nsmod %r0, %r1\nexit", 0, (uint64_t)-7 },
	{ "smod32 by 0 zero-extends", "mov %r0, -7\nsmod32 %r0, 0\nexit", 0, 0xfffffff9 },
	/* Signed division: truncation toward zero and the overflow case. */
	{ "sdiv64 -7/2", "mov %r0, -7\nsdiv %r0, 2\nexit", 0, (uint64_t)-3 },
	{ "smod64 -7%2", "mov %r0, -7\nsmod %r0, 2\nexit", 0, (uint64_t)-1 },
	{ "smod64 7%-2", "mov %r0, 7\nsmod %r0, -2\nexit", 0, 1 },
	{ "sdiv64 INT_MIN/-1", "lddw %r0, 0x8000000000000000\nsdiv %r0, -1\nexit", 0,
	  0x8000000000000000ULL },
	{ "smod64 INT_MIN%-1", "lddw %r0, 0x8000000000000000\nmov %r1, -1\nsmod %r0, %r1\nexit", 0,
	  0 },
	{ "sdiv32 INT_MIN/-1", "mov32 %r0, 0x80000000\nsdiv32 %r0, -1\nexit", 0, 0x80000000 },
	{ "smod32 INT_MIN%-1", "mov32 %r0, 0x80000000\nsmod32 %r0, -1\nexit", 0, 0 },
	{ "sdiv32 -10/3", "lddw %r0, 0x7ffffffffffffff6\nsdiv32 %r0, 3\nexit", 0, 0xfffffffd },
	{ "div64 unsigned", "mov %r0, -1\ndiv %r0, 2\nexit", 0, 0x7fffffffffffffffULL },
	/* Overflow and zero extension. */
	{ "add32 wraps, zero-extends", "mov %r0, -1\nadd32 %r0, 1\nexit", 0, 0 },
	{ "mov32 imm zero-extends", "mov32 %r0, -1\nexit", 0, 0xffffffff },
	{ "mov64 imm sign-extends", "mov %r0, -1\nexit", 0, UINT64_MAX },
	{ "mul32 truncates", "mov32 %r0, 0x10000\nmul32 %r0, 0x10000\nexit", 0, 0 },
	{ "mul64 wraps", "lddw %r0, 0x8000000000000000\nmul %r0, 2\nexit", 0, 0 },
	{ "neg32", "mov %r0, 1\nneg32 %r0\nexit", 0, 0xffffffff },
	{ "neg64", "mov %r0, 1\nneg %r0\nexit", 0, UINT64_MAX },
	{ "neg64 INT_MIN", "lddw %r0, 0x8000000000000000\nneg %r0\nexit", 0,
	  0x8000000000000000ULL },
	/* Shifts by >= the width are masked. */
	{ "lsh64 by 64", "mov %r0, 1\nmov %r1, 64\nlsh %r0, %r1\nexit", 0, 1 },
	{ "lsh64 by 65", "mov %r0, 1\nmov %r1, 65\nlsh %r0, %r1\nexit", 0, 2 },
	{ "lsh32 by 33", "mov %r0, 1\nmov %r1, 33\nlsh32 %r0, %r1\nexit", 0, 2 },
	{ "lsh32 imm 32", "lddw %r0, 0x100000005\nlsh32 %r0, 32\nexit", 0, 5 },
	{ "rsh32 clears high", "mov %r0, -1\nrsh32 %r0, 4\nexit", 0, 0x0fffffff },
	{ "rsh64 by 127", "mov %r0, -1\nmov %r1, 127\nrsh %r0, %r1\nexit", 0, 1 },
	{ "arsh32", "mov32 %r0, 0x80000000\narsh32 %r0, 31\nexit", 0, 0xffffffff },
	{ "arsh32 by 63 masks to 31",
	  "mov32 %r0, 0x80000000\nmov %r1, 63\narsh32 %r0, %r1\nexit", 0, 0xffffffff },
	{ "arsh64 by 127", "lddw %r0, 0x8000000000000000\nmov %r1, 127\narsh %r0, %r1\nexit", 0,
	  UINT64_MAX },
	/* Sign-extending moves and loads. */
	{ "movsx8 64", "mov %r1, 0x80\nmovsx864 %r0, %r1\nexit", 0, 0xffffffffffffff80ULL },
	{ "movsx8 32", "mov %r1, 0x80\nmovsx832 %r0, %r1\nexit", 0, 0xffffff80 },
	{ "movsx16 64", "mov %r1, 0x8000\nmovsx1664 %r0, %r1\nexit", 0, 0xffffffffffff8000ULL },
	{ "movsx16 32", "mov32 %r1, 0x12348000\nmovsx1632 %r0, %r1\nexit", 0, 0xffff8000 },
	{ "movsx32 64", "mov32 %r1, 0x80000000\nmovsx3264 %r0, %r1\nexit", 0,
	  0xffffffff80000000ULL },
	{ "movsx8 positive", "mov %r1, 0x17f\nmovsx864 %r0, %r1\nexit", 0, 0x7f },
	{ "ldxsb", "mov %r1, 0xf0\nstxb [%r10-1], %r1\nldxsb %r0, [%r10-1]\nexit", 0,
	  (uint64_t)-16 },
	{ "ldxsh", "mov %r1, 0x8001\nstxh [%r10-2], %r1\nldxsh %r0, [%r10-2]\nexit", 0,
	  0xffffffffffff8001ULL },
	{ "ldxsw", "mov32 %r1, 0x80000001\nstxw [%r10-4], %r1\nldxsw %r0, [%r10-4]\nexit", 0,
	  0xffffffff80000001ULL },
	{ "ldxw zero-extends",
	  "mov32 %r1, 0x80000001\nstxw [%r10-4], %r1\nldxw %r0, [%r10-4]\nexit", 0, 0x80000001 },
	/* Byte swaps. */
	{ "bswap16", "lddw %r0, 0x1122334455667788\nbswap16 %r0\nexit", 0, 0x8877 },
	{ "bswap32", "lddw %r0, 0x1122334455667788\nbswap32 %r0\nexit", 0, 0x88776655 },
	{ "bswap64", "lddw %r0, 0x1122334455667788\nbswap64 %r0\nexit", 0, 0x8877665544332211ULL },
	{ "le16 truncates", "lddw %r0, 0x1122334455667788\nle16 %r0\nexit", 0, 0x7788 },
	{ "le32 truncates", "lddw %r0, 0x1122334455667788\nle32 %r0\nexit", 0, 0x55667788 },
	{ "le64", "lddw %r0, 0x1122334455667788\nle64 %r0\nexit", 0, 0x1122334455667788ULL },
	{ "be16", "lddw %r0, 0x1122334455667788\nbe16 %r0\nexit", 0, 0x8877 },
	{ "be64", "lddw %r0, 0x1122334455667788\nbe64 %r0\nexit", 0, 0x8877665544332211ULL },
	/* Atomics: memory effect and returned values. */
	{ "fetch add returns old", "stdw [%r10-8], 5\nmov %r1, 3\nlock fetch add [%r10-8], %r1\n"
				  "ldxdw %r0, [%r10-8]\nlsh %r0, 8\nor %r0, %r1\nexit", 0, 0x805 },
	{ "add32 touches low word only", "lddw %r1, 0x1ffffffff\nstxdw [%r10-8], %r1\nmov %r1, 1\n"
					 "lock add32 [%r10-8], %r1\nldxdw %r0, [%r10-8]\nexit",
	  0, 0x100000000ULL },
	{ "fetch or32 zero-extends", "stw [%r10-4], -1\nmov %r1, -1\n"
				     "lock fetch or32 [%r10-4], %r1\nmov %r0, %r1\nexit", 0,
	  0xffffffff },
	{ "fetch and", "stdw [%r10-8], 0xff\nmov %r1, 0x0f\nlock fetch and [%r10-8], %r1\n"
		       "ldxdw %r0, [%r10-8]\nlsh %r0, 16\nor %r0, %r1\nexit", 0, 0xf00ff },
	{ "fetch xor", "stdw [%r10-8], 0xff\nmov %r1, 0x0f\nlock fetch xor [%r10-8], %r1\n"
		       "ldxdw %r0, [%r10-8]\nlsh %r0, 16\nor %r0, %r1\nexit", 0, 0xf000ff },
	{ "xchg", "stdw [%r10-8], 7\nmov %r1, 9\nlock xchg [%r10-8], %r1\nldxdw %r0, [%r10-8]\n"
		  "lsh %r0, 8\nor %r0, %r1\nexit", 0, 0x907 },
	{ "cmpxchg hit", "stdw [%r10-8], 7\nmov %r0, 7\nmov %r1, 9\nlock cmpxchg [%r10-8], %r1\n"
			 "ldxdw %r2, [%r10-8]\nlsh %r2, 8\nor %r0, %r2\nexit", 0, 0x907 },
	{ "cmpxchg miss", "stdw [%r10-8], 7\nmov %r0, 6\nmov %r1, 9\nlock cmpxchg [%r10-8], %r1\n"
			  "ldxdw %r2, [%r10-8]\nlsh %r2, 8\nor %r0, %r2\nexit", 0, 0x707 },
	{ "cmpxchg32 compares low half", "stw [%r10-4], 7\nlddw %r0, 0x500000007\nmov %r1, 9\n"
					 "lock cmpxchg32 [%r10-4], %r1\nldxw %r2, [%r10-4]\n"
					 "lsh %r2, 8\nor %r0, %r2\nexit", 0, 0x907 },
	/* Jumps: JMP32 compares the low halves; signed compares of sign-extended immediates. */
	{ "jeq32 low half", "lddw %r1, 0x100000000\nmov %r0, 1\njeq32 %r1, 0, +1\nmov %r0, 2\nexit",
	  0, 1 },
	{ "jeq64 full", "lddw %r1, 0x100000000\nmov %r0, 1\njeq %r1, 0, +1\nmov %r0, 2\nexit", 0,
	  2 },
	{ "jsgt imm sign-extended",
	  "mov %r1, -1\nmov %r0, 1\njsgt %r1, -2, +1\nmov %r0, 2\nexit", 0, 1 },
	{ "jgt imm unsigned", "mov %r1, 1\nmov %r0, 1\njgt %r1, -2, +1\nmov %r0, 2\nexit", 0, 2 },
	{ "jslt32", "mov32 %r1, 0x80000000\nmov %r0, 1\njslt32 %r1, 0, +1\nmov %r0, 2\nexit", 0,
	  1 },
	{ "jset", "mov %r1, 6\nmov %r0, 1\njset %r1, 8, +1\nmov %r0, 2\nexit", 0, 2 },
	{ "ja32 gotol", "mov %r0, 1\nja32 +1\nmov %r0, 2\nexit", 0, 1 },
	{ "ja backward", "mov %r0, 0\nja +1\nexit\nadd %r0, 1\njlt %r0, 3, -2\nexit", 0, 3 },
	/* Helpers: five arguments; the unwind helper; callx. */
	{ "helper args", "mov %r1, 1\nmov %r2, 2\nmov %r3, 3\nmov %r4, 4\nmov %r5, 5\ncall 1\nexit",
	  0, 54321 },
	{ "unwind on 0", "mov %r1, 0\ncall 5\nmov %r0, 2\nexit", 0, 0 },
	{ "unwind passes non-0", "mov %r1, 4\ncall 5\nmov %r0, 2\nexit", 0, 2 },
	{ "callx", "mov %r1, 42\nmov %r3, 2\ncall %r3\nexit", 0, 42 },
	/* the helper's number is a sum read by nothing else: the JIT must compute it (liveness
	 * counts callx's register as read) */
	{ "callx of a sum", "mov %r1, 42\nmov %r4, 1\nmov %r5, 1\nmov %r7, %r4\nadd %r7, %r5\n"
	  "call %r7\nexit", 0, 42 },
	/* bpf-to-bpf calls: 8 frames at most, a stack per frame, r6..r9 preserved. */
	{ "call depth 8 frames",
	  "mov %r1, 6\ncall local f\nexit\nf:\njeq %r1, 0, done\nsub %r1, 1\n"
	  "call local f\nadd %r0, 1\nexit\ndone:\nmov %r0, 0\nexit", 0, 6 },
	{ "call own stack", "stdw [%r10-8], 0x11\nmov %r6, 3\ncall local f\nldxdw %r0, [%r10-8]\n"
			    "add %r0, %r6\nexit\nf:\nstdw [%r10-8], 0x22\nmov %r6, 0\nmov %r0, 0\n"
			    "exit", 0, 0x14 },
	{ "callee r10 below caller", "mov %r1, %r10\ncall local f\nexit\nf:\nmov %r0, %r1\n"
				     "sub %r0, %r10\nexit", 0, 512 },
	/* LD_ABS / LD_IND: network order; out of bounds ends the program with 0. */
	{ "ldabsw", "mov %r6, %r1\nldabsw 0\nexit", PKT, 0x11223344 },
	{ "ldabsh", "mov %r6, %r1\nldabsh 6\nexit", PKT, 0x7788 },
	{ "ldabsb", "mov %r6, %r1\nldabsb 7\nexit", PKT, 0x88 },
	{ "ldindw", "mov %r6, %r1\nmov %r2, 2\nldindw %r2, 2\nexit", PKT, 0x55667788 },
	{ "ldabsw out of bounds", "mov %r6, %r1\nmov %r0, 5\nldabsw 6\nmov %r0, 7\nexit", PKT, 0 },
	{ "ldindb negative",
	  "mov %r6, %r1\nmov %r2, -1\nmov %r0, 5\nldindb %r2, 0\nmov %r0, 7\nexit", PKT, 0 },
	{ "r1 on entry", "mov %r0, %r1\nexit", 0x1234, 0x1234 },
	/* Jumps into the sequences the interpreter and the JIT fuse (interp_fuse.h, the JIT's
	 * emit_fused()): the instructions after the landing point run on their own. */
	{ "jump to the rsh of a zero-extended copy", "lddw %r0, 0xabc00000007\nja l\n"
	  "mov %r0, %r1\nlsh %r0, 32\nl:\nrsh %r0, 32\nexit", 0x100000005, 0xabc },
	{ "jump to the lsh of a zero-extended copy", "lddw %r0, 0xabc00000007\nja l\n"
	  "mov %r0, %r1\nl:\nlsh %r0, 32\nrsh %r0, 32\nexit", 0x100000005, 7 },
	{ "jump to the add of a copy", "mov %r0, 10\nja l\nmov %r0, %r1\nl:\nadd %r0, 5\nexit",
	  100, 15 },
	{ "jump to the add of a copy, register", "mov %r0, 10\nmov %r2, 3\nja l\nmov %r0, %r1\n"
	  "l:\nadd %r0, %r2\nexit", 100, 13 },
};
const size_t interp_n_sem_cases = sizeof(interp_sem_cases) / sizeof(interp_sem_cases[0]);

const struct err_case interp_err_cases[] = {
	{ "callx unknown", "mov %r3, 4\ncall %r3\nexit", -ENOENT },
	{ "callx huge id", "lddw %r3, 0x100000002\ncall %r3\nexit", -ENOENT },
	{ "falls off the end", "mov %r0, 1", -EFAULT },
	{ "call depth 9 frames",
	  "mov %r1, 7\ncall local f\nexit\nf:\njeq %r1, 0, done\nsub %r1, 1\n"
	  "call local f\nadd %r0, 1\nexit\ndone:\nmov %r0, 0\nexit", -ELOOP },
	{ "infinite recursion", "f:\ncall local f\nexit", -ELOOP },
};
const size_t interp_n_err_cases = sizeof(interp_err_cases) / sizeof(interp_err_cases[0]);

TEST(interp_semantics)
{
	for (size_t i = 0; i < interp_n_sem_cases; i++) {
		const struct sem_case *c = &interp_sem_cases[i];
		uint64_t arg = c->arg == PKT ? (uint64_t)(uintptr_t)&test_packet : c->arg;
		uint64_t r0 = 0xdeadbeef;
		int err = run_asm(c->src, arg, &r0, c->name);

		if (err)
			test_fail(__FILE__, __LINE__, "%s: status %d", c->name, err);
		else if (r0 != c->expect)
			test_fail(__FILE__, __LINE__, "%s: r0 0x%" PRIx64 ", want 0x%" PRIx64,
				  c->name, r0, c->expect);
	}
}

TEST(interp_runtime_errors)
{
	for (size_t i = 0; i < interp_n_err_cases; i++) {
		const struct err_case *c = &interp_err_cases[i];
		uint64_t r0 = 0xdeadbeef;
		int err = run_asm(c->src, 0, &r0, c->name);

		if (err != c->err || r0 != 0)
			test_fail(__FILE__, __LINE__, "%s: status %d r0 0x%" PRIx64 ", want %d, 0",
				  c->name, err, r0, c->err);
	}
}

/* --- Decoder rejections, on raw instructions. --- */

#define I(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }
#define EXIT_ I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define MOV0_ I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0)

struct dec_case {
	const char *name;
	struct bpf_insn insns[4];
	uint32_t cnt;
	int no_pkt; /* prepare without load_pkt */
	int err;
};

static const struct dec_case dec_cases[] = {
	{ "ok", { MOV0_, EXIT_ }, 2, 0, 0 },
	{ "empty", { EXIT_ }, 0, 0, -E2BIG },
	{ "unknown opcode 0xff", { I(0xff, 0, 0, 0, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "unknown opcode 0x00", { I(0x00, 0, 0, 0, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "ALU64 DW end (imm 8)", { I(BPF_ALU | BPF_END | BPF_TO_BE, 0, 0, 0, 8), EXIT_ }, 2, 0,
	  -EINVAL },
	{ "sdiv off 2", { I(BPF_ALU64 | BPF_DIV | BPF_K, 0, 0, 2, 1), EXIT_ }, 2, 0, -EINVAL },
	{ "movsx32 in ALU32", { I(BPF_ALU | BPF_MOV | BPF_X, 0, 1, 32, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "unknown atomic op", { I(BPF_STX | BPF_ATOMIC | BPF_DW, 10, 1, -8, 0x10), EXIT_ }, 2, 0,
	  -EINVAL },
	{ "reserved src in K form", { I(BPF_ALU64 | BPF_ADD | BPF_K, 0, 1, 0, 1), EXIT_ }, 2, 0,
	  -EINVAL },
	{ "reserved imm in exit", { MOV0_, I(BPF_JMP | BPF_EXIT, 0, 0, 0, 1) }, 2, 0, -EINVAL },
	{ "register 11", { I(BPF_ALU64 | BPF_MOV | BPF_K, 11, 0, 0, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "src register 12", { I(BPF_ALU64 | BPF_MOV | BPF_X, 0, 12, 0, 0), EXIT_ }, 2, 0,
	  -EINVAL },
	{ "jump past end", { I(BPF_JMP | BPF_JA, 0, 0, 1, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "jump before start", { I(BPF_JMP | BPF_JA, 0, 0, -2, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "ja32 past end", { I(BPF_JMP32 | BPF_JA, 0, 0, 0, 5), EXIT_ }, 2, 0, -EINVAL },
	{ "jump into lddw",
	  { I(BPF_JMP | BPF_JA, 0, 0, 1, 0), I(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1),
	    I(0, 0, 0, 0, 0), EXIT_ },
	  4, 0, -EINVAL },
	{ "truncated lddw", { MOV0_, I(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1) }, 2, 0, -EINVAL },
	{ "lddw bad 2nd slot",
	  { I(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1), I(0x07, 0, 0, 0, 0), EXIT_ }, 3, 0, -EINVAL },
	{ "local call out of range", { I(BPF_JMP | BPF_CALL, 0, 1, 0, 5), EXIT_ }, 2, 0, -EINVAL },
	{ "unknown helper", { I(BPF_JMP | BPF_CALL, 0, 0, 0, 3), EXIT_ }, 2, 0, -EINVAL },
	{ "helper beyond table", { I(BPF_JMP | BPF_CALL, 0, 0, 0, 1000), EXIT_ }, 2, 0, -EINVAL },
	{ "negative helper", { I(BPF_JMP | BPF_CALL, 0, 0, 0, -1), EXIT_ }, 2, 0, -EINVAL },
	{ "kfunc", { I(BPF_JMP | BPF_CALL, 0, 2, 0, 1), EXIT_ }, 2, 0, -EOPNOTSUPP },
	{ "ld_abs without load_pkt", { I(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0), EXIT_ }, 2, 1,
	  -EINVAL },
	{ "ld_abs DW", { I(BPF_LD | BPF_ABS | BPF_DW, 0, 0, 0, 0), EXIT_ }, 2, 0, -EINVAL },
	{ "exit in JMP32", { MOV0_, I(BPF_JMP32 | BPF_EXIT, 0, 0, 0, 0) }, 2, 0, -EINVAL },
};

TEST(interp_decoder_rejects)
{
	struct interp_env no_pkt = interp_case_env;

	no_pkt.load_pkt = NULL;
	for (size_t i = 0; i < sizeof(dec_cases) / sizeof(dec_cases[0]); i++) {
		const struct dec_case *c = &dec_cases[i];
		struct interp_prog *p = (struct interp_prog *)1;
		int err = interp_prepare(c->insns, c->cnt, c->no_pkt ? &no_pkt : &interp_case_env, &p);

		if (err != c->err)
			test_fail(__FILE__, __LINE__, "%s: prepare %d, want %d", c->name, err,
				  c->err);
		if (err)
			CHECK(p == NULL);
		interp_free(err ? NULL : p);
	}
}

/* Every form of the list that the decoder accepts on its own has a handler: decode one instance
 * of each (with a valid operand set) and check that prepare succeeds. */
TEST(interp_every_form_decodes)
{
	const struct insn_desc *d = insn_descs();

	for (int i = 0; i < INSN__COUNT; i++) {
		struct bpf_insn prog[4];
		struct interp_prog *p;
		int err, want = 0;

		memset(prog, 0, sizeof(prog));
		prog[0].code = d[i].code;
		if (d[i].fields & INSN_F_DST)
			prog[0].dst_reg = 1;
		if (d[i].fields & INSN_F_SRC)
			prog[0].src_reg = 2;
		if (d[i].fields & INSN_F_IMM)
			prog[0].imm = 1;
		if (d[i].fields & INSN_F_OFF)
			prog[0].off = 1;
		if (d[i].disc == INSN_D_OFF)
			prog[0].off = (int16_t)d[i].dval;
		else if (d[i].disc == INSN_D_IMM)
			prog[0].imm = d[i].dval;
		else if (d[i].disc == INSN_D_SRC)
			prog[0].src_reg = (uint8_t)d[i].dval;
		if (d[i].kind == INSN_K_JA || d[i].kind == INSN_K_JCOND ||
		    d[i].kind == INSN_K_MAY_GOTO ||
		    (d[i].kind == INSN_K_CALL && d[i].op == INSN_OP_LOCAL)) {
			prog[0].off = d[i].fields & INSN_F_OFF ? 0 : prog[0].off;
			if (d[i].code == (BPF_JMP32 | BPF_JA) || d[i].op == INSN_OP_LOCAL)
				prog[0].imm = 0;
		}
		if (d[i].kind == INSN_K_CALL && d[i].op == INSN_OP_HELPER)
			prog[0].imm = 1;
		if (d[i].op == INSN_OP_KFUNC)
			want = -EOPNOTSUPP;
		prog[insn_slots(i)] = (struct bpf_insn)EXIT_;
		CHECK_EQ(insn_find(&prog[0]), i);
		err = interp_prepare(prog, (uint32_t)insn_slots(i) + 1, &interp_case_env, &p);
		if (err != want)
			test_fail(__FILE__, __LINE__, "%s: prepare %d, want %d", d[i].name, err,
				  want);
		if (!err)
			interp_free(p);
	}
}

/* A program may be run concurrently and repeatedly: prepared state is read-only. */
TEST(interp_rerun)
{
	struct bpf_insn *insns;
	struct interp_prog *p;
	char err[128];
	int n = casm_assemble("mov %r0, 0\nl:\nadd %r0, %r1\nsub %r1, 1\njne %r1, 0, l\nexit",
			      &insns, err, sizeof(err));

	REQUIRE(n > 0);
	REQUIRE_EQ(interp_prepare(insns, (uint32_t)n, NULL, &p), 0);
	free(insns);
	for (uint64_t k = 1; k < 50; k++)
		CHECK_EQ(interp_run(p, k, 0), k * (k + 1) / 2);
	CHECK_EQ(interp_len(p), 5);
	interp_free(p);
}

/* --- Superinstructions (src/exec/interp_fuse.h).  Each case names the instruction that must (len
 * > 0) or must not (len 0) start a fused record, and the result the plain instructions give; the
 * results fold in the intermediate registers a fused record must still write. --- */

struct fuse_case {
	const char *name;
	const char *src;
	uint32_t at;	 /* instruction index */
	uint32_t len;	 /* interp_fused_len() there */
	uint64_t expect; /* r0, or FAULTS: status -EFAULT (and r0 0) */
};

#define FAULTS UINT64_C(0xfa0175fa0175)

#define BND_PRE "mov %r2, 100\nmov %r3, 120\n"
#define BND_OUT "mov %r0, %r5\nexit\nout:\nmov %r0, %r5\nadd %r0, 1000\nexit"

static const struct fuse_case fuse_cases[] = {
	/* BND: mov64 rX, rY; add64 rX, K; jCC64 rX, rZ. */
	{ "bnd jgt not taken", BND_PRE "mov %r5, %r2\nadd %r5, 10\njgt %r5, %r3, out\n" BND_OUT,
	  2, 3, 110 },
	{ "bnd jgt taken", BND_PRE "mov %r5, %r2\nadd %r5, 30\njgt %r5, %r3, out\n" BND_OUT, 2, 3,
	  1130 },
	{ "bnd jgt equal", BND_PRE "mov %r5, %r2\nadd %r5, 20\njgt %r5, %r3, out\n" BND_OUT, 2, 3,
	  120 },
	{ "bnd jge equal", BND_PRE "mov %r5, %r2\nadd %r5, 20\njge %r5, %r3, out\n" BND_OUT, 2, 3,
	  1120 },
	{ "bnd jlt", BND_PRE "mov %r5, %r2\nadd %r5, 19\njlt %r5, %r3, out\n" BND_OUT, 2, 3, 1119 },
	{ "bnd jle equal", BND_PRE "mov %r5, %r2\nadd %r5, 20\njle %r5, %r3, out\n" BND_OUT, 2, 3,
	  1120 },
	{ "bnd mirrored jlt taken", BND_PRE "mov %r5, %r2\nadd %r5, 21\njlt %r3, %r5, out\n" BND_OUT,
	  2, 3, 1121 },
	{ "bnd mirrored jlt equal", BND_PRE "mov %r5, %r2\nadd %r5, 20\njlt %r3, %r5, out\n" BND_OUT,
	  2, 3, 120 },
	{ "bnd mirrored jge", BND_PRE "mov %r5, %r2\nadd %r5, 20\njge %r3, %r5, out\n" BND_OUT, 2, 3,
	  1120 },
	{ "bnd negative imm", BND_PRE "mov %r5, %r3\nadd %r5, -21\njle %r5, %r2, out\n" BND_OUT, 2,
	  3, 99 + 1000 },
	{ "bnd wraps", BND_PRE "mov %r5, %r2\nadd %r5, -101\njgt %r5, %r3, out\n" BND_OUT, 2, 3,
	  (uint64_t)-1 + 1000 },
	{ "bnd z == x", BND_PRE "mov %r5, %r2\nadd %r5, 10\njgt %r5, %r5, out\n" BND_OUT, 2, 3,
	  110 },
	{ "bnd y == x", BND_PRE "mov %r5, 7\nmov %r5, %r5\nadd %r5, 1\njge %r5, %r5, out\n" BND_OUT,
	  3, 3, 1008 },
	{ "bnd z == y", BND_PRE "mov %r5, %r2\nadd %r5, 1\njgt %r5, %r2, out\n" BND_OUT, 2, 3,
	  1101 },
	{ "bnd signed jump: movk only",
	  "mov %r2, -100\nmov %r3, 5\nmov %r5, %r2\nadd %r5, 10\njsgt %r5, %r3, out\n" BND_OUT, 2,
	  2, (uint64_t)-90 },
	{ "bnd mov32 not fused", BND_PRE "mov32 %r5, %r2\nadd %r5, 30\njgt %r5, %r3, out\n" BND_OUT,
	  2, 0, 1130 },
	{ "bnd add32 not fused",
	  "lddw %r2, 0x1fffffffe\nmov %r3, 120\nmov %r5, %r2\nadd32 %r5, 3\njgt %r5, %r3, out\n"
	  BND_OUT, 3, 0, 1 },
	{ "bnd jgt32: movk only",
	  "lddw %r2, 0x100000000\nmov %r3, 120\nmov %r5, %r2\nadd %r5, 3\njgt32 %r5, %r3, out\n"
	  BND_OUT, 3, 2, 0x100000003 },
	{ "bnd other register not fused",
	  BND_PRE "mov %r5, %r2\nadd %r4, 30\njgt %r5, %r3, out\n" BND_OUT, 2, 0, 100 },
	{ "bnd jump to the add not fused",
	  BND_PRE "mov %r5, 1\nja mid\nmov %r5, %r2\nmid:\nadd %r5, 10\njgt %r5, %r3, out\n"
	  BND_OUT, 4, 0, 11 },
	{ "bnd jump to the jcc: movk only",
	  BND_PRE "mov %r5, 200\nja mid\nmov %r5, %r2\nadd %r5, 10\nmid:\njgt %r5, %r3, out\n"
	  BND_OUT, 4, 2, 1200 },
	{ "bnd jump to the mov still fused",
	  BND_PRE "ja mid\nmov %r0, 9\nexit\nmid:\nmov %r5, %r2\nadd %r5, 10\njgt %r5, %r3, out\n"
	  BND_OUT, 5, 3, 110 },

	/* LDA: ldx rA, [rB + off]; alu64 rC OP= rA. */
	{ "lda h add", "mov %r1, 0x1234\nstxh [%r10-2], %r1\nmov %r0, 5\nldxh %r6, [%r10-2]\n"
	  "add %r0, %r6\nadd %r0, %r6\nexit", 3, 2, 5 + 0x1234 * 2 },
	{ "lda b sub", "mov %r1, 0x1ff\nstxb [%r10-1], %r1\nmov %r0, 5\nldxb %r6, [%r10-1]\n"
	  "sub %r0, %r6\nlsh %r6, 8\nor %r0, %r6\nexit", 3, 2, ((uint64_t)5 - 0xff) | 0xff00 },
	{ "lda w and", "mov32 %r1, 0xfffffff0\nstxw [%r10-4], %r1\nmov %r0, -1\n"
	  "ldxw %r6, [%r10-4]\nand %r0, %r6\nexit", 3, 2, 0xfffffff0 },
	{ "lda dw or", "lddw %r1, 0x8000000000000001\nstxdw [%r10-8], %r1\nmov %r0, 6\n"
	  "ldxdw %r7, [%r10-8]\nor %r0, %r7\nexit", 4, 2, 0x8000000000000007ULL },
	{ "lda dw xor", "lddw %r1, 0x8000000000000001\nstxdw [%r10-8], %r1\nmov %r0, 3\n"
	  "ldxdw %r7, [%r10-8]\nxor %r0, %r7\nexit", 4, 2, 0x8000000000000002ULL },
	{ "lda offset and base", "mov %r1, 77\nstxb [%r10-3], %r1\nmov %r2, %r10\nmov %r0, 1\n"
	  "ldxb %r3, [%r2-3]\nadd %r0, %r3\nexit", 4, 2, 78 },
	{ "lda c == a", "mov %r1, 21\nstxw [%r10-4], %r1\nldxw %r6, [%r10-4]\nadd %r6, %r6\n"
	  "mov %r0, %r6\nexit", 2, 2, 42 },
	{ "lda c == b", "mov %r1, 5\nstxdw [%r10-8], %r1\nmov %r2, %r10\nldxdw %r6, [%r2-8]\n"
	  "add %r2, %r6\nsub %r2, %r10\nmov %r0, %r2\nexit", 3, 2, 5 },
	{ "lda add32 not fused", "lddw %r0, 0x100000001\nmov %r1, 2\nstxw [%r10-4], %r1\n"
	  "ldxw %r6, [%r10-4]\nadd32 %r0, %r6\nexit", 4, 0, 3 },
	{ "lda other register not fused", "mov %r1, 2\nstxw [%r10-4], %r1\nmov %r7, 10\nmov %r0, 1\n"
	  "ldxw %r6, [%r10-4]\nadd %r0, %r7\nexit", 4, 0, 11 },
	{ "lda mul not fused", "mov %r1, 3\nstxw [%r10-4], %r1\nmov %r0, 5\nldxw %r6, [%r10-4]\n"
	  "mul %r0, %r6\nexit", 3, 0, 15 },
	{ "lda jump to the alu not fused", "mov %r1, 3\nstxw [%r10-4], %r1\nmov %r0, 5\n"
	  "mov %r6, 100\nja mid\nldxw %r6, [%r10-4]\nmid:\nadd %r0, %r6\nexit", 5, 0, 105 },

	/* AJ: add64 rX, K; jCC64 rX, imm / rZ.  AJ2: add64 rW, K1 first. */
	{ "aj jne loop", "mov %r1, 0\nl:\nadd %r1, 1\njne %r1, 5, l\nmov %r0, %r1\nexit", 1, 2, 5 },
	{ "aj jlt reg", "mov %r1, 0\nmov %r2, 7\nl:\nadd %r1, 1\njlt %r1, %r2, l\nmov %r0, %r1\nexit",
	  2, 2, 7 },
	{ "aj z == x", "mov %r1, 0\nadd %r1, 1\njeq %r1, %r1, t\nmov %r0, 0\nexit\nt:\n"
	  "mov %r0, %r1\nexit", 1, 2, 1 },
	{ "aj signed", "mov %r1, 0\nl:\nadd %r1, -1\njsgt %r1, -3, l\nmov %r0, %r1\nexit", 1, 2,
	  (uint64_t)-3 },
	{ "aj jsle", "mov %r1, -10\nl:\nadd %r1, 3\njsle %r1, 0, l\nmov %r0, %r1\nexit", 1, 2, 2 },
	{ "aj jset", "mov %r1, 0\nl:\nadd %r1, 1\njset %r1, 4, d\nja l\nd:\nmov %r0, %r1\nexit", 1,
	  2, 4 },
	{ "aj imm sign-extended", "lddw %r1, 0xfffffffffffffffd\nl:\nadd %r1, 1\njne %r1, -1, l\n"
	  "mov %r0, %r1\nexit", 2, 2, UINT64_MAX },
	{ "aj jge / jgt / jle / jsge / jslt", "mov %r0, 0\nmov %r1, 0\nadd %r1, 1\njge %r1, 1, a\n"
	  "exit\na:\nadd %r1, 1\njgt %r1, 2, b\nadd %r0, 1\nb:\nadd %r1, 1\njle %r1, 3, c\nexit\nc:\n"
	  "add %r1, -10\njsge %r1, -7, d\nadd %r0, 10\nd:\nadd %r1, 1\njslt %r1, -5, e\nexit\ne:\n"
	  "add %r0, %r1\nexit", 2, 2, 1 + (uint64_t)-6 },
	{ "aj falls off the end", "mov %r1, 5\nl:\nadd %r1, 1\njeq %r1, 0, l", 1, 2, FAULTS },
	{ "aj add32 not fused", "mov32 %r1, -1\nadd32 %r1, 1\njeq %r1, 0, t\nmov %r0, 1\nexit\nt:\n"
	  "mov %r0, 2\nexit", 1, 0, 2 },
	{ "aj32 jeq taken on the low half", "mov32 %r1, -1\nadd %r1, 1\njeq32 %r1, 0, t\nmov %r0, %r1\nexit\n"
	  "t:\nmov %r0, 2\nexit", 1, 2, 2 },
	{ "aj jeq64 after 32-bit wrap", "mov32 %r1, -1\nadd %r1, 1\njeq %r1, 0, t\nmov %r0, %r1\n"
	  "exit\nt:\nmov %r0, 2\nexit", 1, 2, 0x100000000ULL },
	{ "aj other register not fused", "mov %r1, 0\nmov %r2, 0\nl:\nadd %r2, 1\njlt %r1, 3, x\n"
	  "mov %r0, %r2\nexit\nx:\nadd %r1, 1\nja l", 2, 0, 4 },
	{ "aj jump to the jcc not fused", "mov %r1, 50\nja j\nadd %r1, 1\nj:\njeq %r1, 50, t\n"
	  "mov %r0, 0\nexit\nt:\nmov %r0, %r1\nexit", 2, 0, 50 },
	{ "aj2 loop", "mov %r0, 0\nmov %r1, 0\nl:\nadd %r0, 3\nadd %r1, 1\njlt %r1, 10, l\n"
	  "mul %r0, 100\nadd %r0, %r1\nexit", 2, 3, 3010 },
	{ "aj2 w == x", "mov %r1, 0\nl:\nadd %r1, 2\nadd %r1, 1\njlt %r1, 9, l\nmov %r0, %r1\nexit",
	  1, 3, 9 },
	{ "aj2 w == z", "mov %r1, 0\nmov %r2, 3\nl:\nadd %r2, -1\nadd %r1, 1\njlt %r1, %r2, l\n"
	  "mul %r1, 10\nmov %r0, %r1\nadd %r0, %r2\nexit", 2, 3, 21 },
	{ "aj2 k1 too big", "mov %r1, 0\nmov %r2, 0\nl:\nadd %r2, 40000\nadd %r1, 1\njlt %r1, 3, l\n"
	  "mov %r0, %r2\nexit", 2, 0, 120000 },
	{ "aj2 k1 -32768", "mov %r1, 0\nmov %r2, 0\nl:\nadd %r2, -32768\nadd %r1, 1\n"
	  "jlt %r1, 2, l\nmov %r0, %r2\nexit", 2, 3, (uint64_t)-65536 },
	{ "aj2 jump to the second add", "mov %r1, 0\nmov %r2, 0\nja l\nm:\nadd %r2, 5\nl:\n"
	  "add %r1, 1\njlt %r1, 3, m\nmov %r0, %r2\nexit", 3, 0, 10 },
	/* A csum-style loop: BND, LDA and AJ2 together, and the same program unfused. */
	{ "csum loop", "mov %r1, 0x0102\nstxh [%r10-8], %r1\nmov %r1, 0x0304\nstxh [%r10-6], %r1\n"
	  "mov %r1, 0x0506\nstxh [%r10-4], %r1\nmov %r2, %r10\nadd %r2, -8\nmov %r3, %r10\n"
	  "add %r3, -3\nmov %r0, 0\nmov %r4, 0\nl:\nmov %r5, %r2\nadd %r5, 2\njgt %r5, %r3, d\n"
	  "ldxh %r6, [%r2+0]\nadd %r0, %r6\nadd %r2, 2\nadd %r4, 1\njlt %r4, 100, l\nd:\n"
	  "mul %r0, 100\nadd %r0, %r4\nexit", 12, 5, (0x0102 + 0x0304) * 100 + 2 },

	/* ZX: lsh64 rX, 32; rsh64 rX, 32; MZX: a move in front. */
	{ "zx", "lddw %r1, 0x123456789abcdef0\nlsh %r1, 32\nrsh %r1, 32\nmov %r0, %r1\nexit", 2, 2,
	  0x9abcdef0 },
	{ "mzx", "lddw %r2, 0xfedcba9876543210\nmov %r1, %r2\nlsh %r1, 32\nrsh %r1, 32\n"
	  "add %r1, %r2\nmov %r0, %r1\nexit", 2, 3, 0xfedcba9876543210ull + 0x76543210 },
	{ "mzx x == y", "lddw %r1, 0xfedcba9876543210\nmov %r1, %r1\nlsh %r1, 32\nrsh %r1, 32\n"
	  "mov %r0, %r1\nexit", 2, 3, 0x76543210 },
	{ "zx shift 31: not fused", "lddw %r1, 0x123456789abcdef0\nlsh %r1, 31\nrsh %r1, 32\n"
	  "mov %r0, %r1\nexit", 2, 0, (0x123456789abcdef0ull << 31) >> 32 },
	{ "zx arsh: not fused", "lddw %r1, 0x12345678fabcdef0\nlsh %r1, 32\narsh %r1, 32\n"
	  "mov %r0, %r1\nexit", 2, 0, 0xfffffffffabcdef0ull },
	{ "zx two registers: not fused", "lddw %r1, 0x123456789abcdef0\nmov %r2, 1\n"
	  "lsh %r1, 32\nrsh %r2, 32\nmov %r0, %r1\nexit", 3, 0, 0x9abcdef000000000ull },
	{ "mzx other register: zx only", "lddw %r2, 0xfedcba9876543210\nmov %r3, %r2\n"
	  "lsh %r1, 32\nrsh %r1, 32\nmov %r0, %r3\nexit", 3, 2, 0xfedcba9876543210ull },
	{ "mzx movsx: zx only", "lddw %r2, 0xfedcba98f6543210\nmovsx3264 %r1, %r2\nlsh %r1, 32\n"
	  "rsh %r1, 32\nmov %r0, %r1\nexit", 2, 0, 0xf6543210 },
	{ "zx jump to the rsh: not fused", "lddw %r1, 0x123456789abcdef0\nja l\nlsh %r1, 32\nl:\n"
	  "rsh %r1, 32\nmov %r0, %r1\nexit", 3, 0, 0x12345678 },

	/* MULADD: mul64 rX, K; add64 rX, rY.  SHX: mov64 rT, rX; lsh/rsh64 rT, K; xor/add64 rX, rT,
	 * folding rT into r0 afterwards (a fused record must still write it). */
#define MA_X 0x123456789abcdefull
#define MA_PRE "lddw %r0, 0x123456789abcdef\nmov %r1, 7\n"
	{ "muladd", MA_PRE "mul %r0, 31\nadd %r0, %r1\nexit", 3, 2, MA_X * 31 + 7 },
	{ "muladd negative k", MA_PRE "mul %r0, -3\nadd %r0, %r1\nexit", 3, 2,
	  MA_X * (uint64_t)-3 + 7 },
	{ "muladd y == x: not fused", MA_PRE "mul %r0, 31\nadd %r0, %r0\nexit", 3, 0, MA_X * 62 },
	{ "muladd add32: not fused", MA_PRE "mul %r0, 31\nadd32 %r0, %r1\nexit", 3, 0,
	  (uint32_t)(MA_X * 31 + 7) },
	{ "muladd mul32: not fused", MA_PRE "mul32 %r0, 31\nadd %r0, %r1\nexit", 3, 0,
	  (uint64_t)(uint32_t)(MA_X * 31) + 7 },
	{ "muladd into another register: not fused", MA_PRE "mul %r0, 31\nadd %r1, %r0\n"
	  "add %r0, %r1\nexit", 3, 0, MA_X * 62 + 7 },
	{ "muladd mul by a register: not fused", MA_PRE "mul %r0, %r1\nadd %r0, %r1\nexit", 3, 0,
	  MA_X * 7 + 7 },
	{ "muladd jump to the add: not fused", MA_PRE "ja l\nmul %r0, 31\nl:\nadd %r0, %r1\nexit",
	  4, 0, MA_X + 7 },
#define SH_X 0xfedcba9876543210ull
#define SH_PRE "lddw %r0, 0xfedcba9876543210\nmov %r3, 5\n"
#define SH_OUT "add %r0, %r3\nexit"
	{ "shx rsh xor", SH_PRE "mov %r3, %r0\nrsh %r3, 7\nxor %r0, %r3\n" SH_OUT, 3, 3,
	  (SH_X ^ (SH_X >> 7)) + (SH_X >> 7) },
	{ "shx rsh add", SH_PRE "mov %r3, %r0\nrsh %r3, 6\nadd %r0, %r3\n" SH_OUT, 3, 3,
	  SH_X + 2 * (SH_X >> 6) },
	{ "shx lsh xor", SH_PRE "mov %r3, %r0\nlsh %r3, 13\nxor %r0, %r3\n" SH_OUT, 3, 3,
	  (SH_X ^ (SH_X << 13)) + (SH_X << 13) },
	{ "shx lsh add", SH_PRE "mov %r3, %r0\nlsh %r3, 10\nadd %r0, %r3\n" SH_OUT, 3, 3,
	  SH_X + 2 * (SH_X << 10) },
	{ "shx shift 0", SH_PRE "mov %r3, %r0\nrsh %r3, 0\nxor %r0, %r3\n" SH_OUT, 3, 3, SH_X },
	{ "shx shift 63", SH_PRE "mov %r3, %r0\nlsh %r3, 63\nadd %r0, %r3\n" SH_OUT, 3, 3,
	  SH_X + 2 * (SH_X << 63) },
	{ "shx t == x: movk only", SH_PRE "mov %r0, %r0\nrsh %r0, 7\nxor %r0, %r0\n" SH_OUT, 3, 2,
	  5 },
	{ "shx arsh: movk only", SH_PRE "mov %r3, %r0\narsh %r3, 7\nxor %r0, %r3\n" SH_OUT, 3, 2,
	  (SH_X ^ (uint64_t)((int64_t)SH_X >> 7)) + (uint64_t)((int64_t)SH_X >> 7) },
	{ "shx or: movk only", SH_PRE "mov %r3, %r0\nrsh %r3, 7\nor %r0, %r3\n" SH_OUT, 3, 2,
	  (SH_X | (SH_X >> 7)) + (SH_X >> 7) },
	{ "shx xor32: movk only", SH_PRE "mov %r3, %r0\nrsh %r3, 7\nxor32 %r0, %r3\n" SH_OUT, 3, 2,
	  (uint64_t)(uint32_t)(SH_X ^ (SH_X >> 7)) + (SH_X >> 7) },
	{ "shx into the copy: movk only", SH_PRE "mov %r3, %r0\nrsh %r3, 7\n"
	  "xor %r3, %r0\n" SH_OUT, 3, 2, SH_X + ((SH_X >> 7) ^ SH_X) },
	{ "shx shift of another register: not fused", SH_PRE "mov %r3, %r0\nrsh %r4, 7\n"
	  "xor %r0, %r3\n" SH_OUT, 3, 0, 0 + SH_X },
	{ "shx jump to the shift: not fused", SH_PRE "mov %r3, %r0\nja l\nrsh %r3, 7\nl:\n"
	  "xor %r0, %r3\n" SH_OUT, 3, 0, 0 + SH_X },
	/* loop100 of bench/: MULADD, SHX and AJ, and the same program unfused. */
#define HASH_LOOP                                                                                  \
	"mov %r0, 1\nmov %r1, 0\nl:\nmul %r0, 31\nadd %r0, %r1\nmov %r2, %r0\nrsh %r2, 7\n"       \
	"xor %r0, %r2\nadd %r1, 1\njlt %r1, 100, l\nexit"
	{ "hash loop: muladd", HASH_LOOP, 2, 2, 0xaa2393eec0a48728ull },
	{ "hash loop: shx", HASH_LOOP, 4, 3, 0xaa2393eec0a48728ull },
	{ "hash loop: aj", HASH_LOOP, 7, 2, 0xaa2393eec0a48728ull },

	/* MOVK, MOVX: mov64 rX, rY; op64 rX, K / rZ.  r1 = V, r2 = 5; MV_OUT xors rY back in, so
	 * that a clobbered Y shows. */
#define MV_V 0xfedcba9876543210ull
#define MV_PRE "lddw %r1, 0xfedcba9876543210\nmov %r2, 5\n"
#define MV_OUT "xor %r0, %r1\nexit"
	{ "movk add", MV_PRE "mov %r0, %r1\nadd %r0, -16\n" MV_OUT, 3, 2, (MV_V - 16) ^ MV_V },
	{ "movk sub", MV_PRE "mov %r0, %r1\nsub %r0, 7\n" MV_OUT, 3, 2, (MV_V - 7) ^ MV_V },
	{ "movk and", MV_PRE "mov %r0, %r1\nand %r0, 0xff0\n" MV_OUT, 3, 2, (MV_V & 0xff0) ^ MV_V },
	{ "movk or, imm sign-extended", MV_PRE "mov %r0, %r1\nor %r0, -256\n" MV_OUT, 3, 2,
	  (MV_V | 0xffffffffffffff00ull) ^ MV_V },
	{ "movk xor", MV_PRE "mov %r0, %r1\nxor %r0, 0x7fffffff\n" MV_OUT, 3, 2, 0x7fffffff },
	{ "movk lsh 63", MV_PRE "mov %r0, %r1\nlsh %r0, 63\n" MV_OUT, 3, 2, (MV_V << 63) ^ MV_V },
	{ "movk rsh 4", MV_PRE "mov %r0, %r1\nrsh %r0, 4\n" MV_OUT, 3, 2, (MV_V >> 4) ^ MV_V },
	{ "movk arsh 60", MV_PRE "mov %r0, %r1\narsh %r0, 60\n" MV_OUT, 3, 2,
	  (uint64_t)((int64_t)MV_V >> 60) ^ MV_V },
	{ "movk mul", MV_PRE "mov %r0, %r1\nmul %r0, -3\n" MV_OUT, 3, 2,
	  (MV_V * (uint64_t)-3) ^ MV_V },
	{ "movk y == x", MV_PRE "mov %r1, %r1\nadd %r1, 1\nmov %r0, 0\n" MV_OUT, 3, 2, MV_V + 1 },
	{ "movx add", MV_PRE "mov %r0, %r1\nadd %r0, %r2\n" MV_OUT, 3, 2, (MV_V + 5) ^ MV_V },
	{ "movx sub, z == y", MV_PRE "mov %r0, %r1\nsub %r0, %r1\n" MV_OUT, 3, 2, MV_V },
	{ "movx and", MV_PRE "mov %r0, %r1\nand %r0, %r2\n" MV_OUT, 3, 2, (MV_V & 5) ^ MV_V },
	{ "movx or", MV_PRE "mov %r0, %r2\nor %r0, %r1\n" MV_OUT, 3, 2, 5 },
	{ "movx xor", MV_PRE "mov %r0, %r1\nxor %r0, %r2\n" MV_OUT, 3, 2, 5 },
	{ "movx lsh by 67 (masked)", "lddw %r1, 0xfedcba9876543210\nmov %r2, 67\nmov %r0, %r1\n"
	  "lsh %r0, %r2\n" MV_OUT, 3, 2, (MV_V << 3) ^ MV_V },
	{ "movx rsh", MV_PRE "mov %r0, %r1\nrsh %r0, %r2\n" MV_OUT, 3, 2, (MV_V >> 5) ^ MV_V },
	{ "movx arsh", MV_PRE "mov %r0, %r1\narsh %r0, %r2\n" MV_OUT, 3, 2,
	  (uint64_t)((int64_t)MV_V >> 5) ^ MV_V },
	{ "movx mul", MV_PRE "mov %r0, %r1\nmul %r0, %r2\n" MV_OUT, 3, 2, (MV_V * 5) ^ MV_V },
	{ "movx z == x: not fused", MV_PRE "mov %r0, %r1\nadd %r0, %r0\n" MV_OUT, 3, 0,
	  (2 * MV_V) ^ MV_V },
	{ "movk add32: not fused", MV_PRE "mov %r0, %r1\nadd32 %r0, 1\n" MV_OUT, 3, 0,
	  (uint64_t)(uint32_t)(MV_V + 1) ^ MV_V },
	{ "movk after mov32: not fused", MV_PRE "mov32 %r0, %r1\nadd %r0, 1\n" MV_OUT, 3, 0,
	  ((MV_V & 0xffffffff) + 1) ^ MV_V },
	{ "movk div: not fused", MV_PRE "mov %r0, %r1\ndiv %r0, 3\n" MV_OUT, 3, 0,
	  (MV_V / 3) ^ MV_V },
	{ "movk neg: not fused", MV_PRE "mov %r0, %r1\nneg %r0\n" MV_OUT, 3, 0, (0 - MV_V) ^ MV_V },
	{ "movk on another register: not fused", MV_PRE "mov %r0, %r1\nadd %r2, 1\n" MV_OUT, 3, 0,
	  0 },
	{ "movk jump to the op: not fused", MV_PRE "mov %r0, %r2\nja l\nmov %r0, %r1\nl:\n"
	  "add %r0, 1\n" MV_OUT, 5, 0, 6 ^ MV_V },

	/* MZXJ: mov64 rX, rY; lsh64 rX, 32; rsh64 rX, 32; jCC64 rX, imm / rZ.  MZ_OUT: r5 on the
	 * fallthrough, r5 + 1000 taken. */
#define MZ_OUT "mov %r0, %r5\nexit\nt:\nmov %r0, %r5\nadd %r0, 1000\nexit"
#define MZ_BODY(jcc) "mov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\n" jcc "\n" MZ_OUT
	{ "mzxj jeq taken", "lddw %r1, 0x1234567800000005\n" MZ_BODY("jeq %r5, 5, t"), 2, 4, 1005 },
	{ "mzxj jne not taken", "lddw %r1, 0x1234567800000005\n" MZ_BODY("jne %r5, 5, t"), 2, 4,
	  5 },
	{ "mzxj jgt, imm sign-extended to 64 bits", "lddw %r1, 0xffffffff\n"
	  MZ_BODY("jgt %r5, -2, t"), 2, 4, 0xffffffff },
	{ "mzxj jsgt", "lddw %r1, 0x80000000ffffffff\n" MZ_BODY("jsgt %r5, 0, t"), 2, 4,
	  0xffffffffull + 1000 },
	{ "mzxj jset", "lddw %r1, 0xff00000010\n" MZ_BODY("jset %r5, 0x30, t"), 2, 4, 0x10 + 1000 },
	{ "mzxj jlt register", "lddw %r1, 0x1234567800000005\nmov %r6, 6\n"
	  MZ_BODY("jlt %r5, %r6, t"), 3, 4, 1005 },
	{ "mzxj z == x", "lddw %r1, 0x1234567800000005\n" MZ_BODY("jge %r5, %r5, t"), 2, 4, 1005 },
	{ "mzxj z == y", "lddw %r1, 0x100000005\n" MZ_BODY("jeq %r5, %r1, t"), 2, 4, 5 },
	{ "mzxj y == x", "lddw %r5, 0x1234567800000005\nmov %r5, %r5\nlsh %r5, 32\nrsh %r5, 32\n"
	  "jsle %r5, 4, t\n" MZ_OUT, 2, 4, 5 },
	{ "mzxj jmp32: mzx only", "lddw %r1, 0x1234567800000005\n" MZ_BODY("jeq32 %r5, 5, t"), 2,
	  3, 1005 },
	{ "mzxj jump on another register: mzx only", "lddw %r1, 0x1234567800000005\n"
	  MZ_BODY("jeq %r1, 5, t"), 2, 3, 5 },
	{ "mzxj jump to the jcc: mzx only", "lddw %r1, 0x1234567800000005\nmov %r5, 9\nja j\n"
	  "mov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\nj:\njeq %r5, 5, t\n" MZ_OUT, 4, 3, 9 },

	/* AMZXJ: add64 rW, K; then MZXJ copying W.  Taken: r5 (X) + 1000; the fallthrough adds
	 * W's high half to r5 first, to show W's write. */
#define AMZ_OUT "rsh %r1, 32\nadd %r5, %r1\n" MZ_OUT
#define AMZ_BODY(k, jcc) "add %r1, " k "\nmov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\n" jcc "\n" AMZ_OUT
	{ "amzxj jne taken", "lddw %r1, 0x1234567800000005\n" AMZ_BODY("2", "jne %r5, 1500, t"), 2,
	  5, 7 + 1000 },
	{ "amzxj jne not taken", "lddw %r1, 0x12345678000005da\n" AMZ_BODY("2", "jne %r5, 1500, t"),
	  2, 5, 1500 + 0x12345678 },
	{ "amzxj carry into the high half", "lddw %r1, 0x1ffffffff\n" AMZ_BODY("1", "jeq %r5, 0, t"),
	  2, 5, 0 + 1000 },
	{ "amzxj negative k, imm sign-extended", "mov %r1, 0\n"
	  AMZ_BODY("-1", "jgt %r5, 0xfffffff0, t"), 1, 5, 0xffffffffull + 0xffffffffull },
	{ "amzxj register", "lddw %r1, 0x900000009\nmov %r6, 10\n" AMZ_BODY("1", "jge %r5, %r6, t"),
	  3, 5, 10 + 1000 },
	{ "amzxj z == w", "lddw %r1, 0x900000009\n" AMZ_BODY("1", "jlt %r5, %r1, t"), 2, 5,
	  10 + 1000 },
	{ "amzxj x == w", "lddw %r5, 0x9fffffffe\nadd %r5, 3\nmov %r5, %r5\nlsh %r5, 32\n"
	  "rsh %r5, 32\njeq %r5, 1, t\n" MZ_OUT, 2, 5, 1 + 1000 },
	{ "amzxj loop", "mov %r0, 0\nlddw %r1, 0x700000000\nl:\nadd %r0, 3\nadd %r1, 2\n"
	  "mov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\njne %r5, 10, l\nadd %r0, %r1\nexit", 4, 5,
	  15 + 0x70000000aull },
	{ "amzxj add on another register: mzxj only", "lddw %r1, 0x1234567800000005\n"
	  "add %r2, 2\nmov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\njeq %r5, 5, t\n" MZ_OUT, 2, 0, 1005 },
	{ "amzxj jump to the mov: mzxj only", "lddw %r1, 0x1234567800000005\nja l\nadd %r1, 2\nl:\n"
	  "mov %r5, %r1\nlsh %r5, 32\nrsh %r5, 32\njeq %r5, 5, t\n" MZ_OUT, 3, 0, 1005 },

	/* AJ32: add64 rX, K; jCC32 wX, imm / wZ.  AJ_OUT as MZ_OUT on r1. */
#define AJ_OUT "mov %r0, %r1\nexit\nt:\nmov %r0, %r1\nadd %r0, 1000\nexit"
	{ "aj32 jne loop", "mov %r0, 0\nlddw %r1, 0x100000000\nl:\nadd %r0, 1\nadd %r1, 1\n"
	  "jne32 %r1, 3, l\nadd %r0, %r1\nexit", 4, 2, 0x100000006ull },
	{ "aj32 jslt on the low half", "mov32 %r1, 0x7fffffff\nadd %r1, 1\njslt32 %r1, 0, t\n"
	  AJ_OUT, 1, 2, 0x80000000ull + 1000 },
	{ "aj32 jgt, imm truncated", "mov %r1, 0\nadd %r1, -1\njgt32 %r1, -2, t\n" AJ_OUT, 1, 2,
	  (uint64_t)-1 + 1000 },
	{ "aj32 jeq register", "mov %r2, 0x10\nlddw %r1, 0x50000000f\nadd %r1, 1\n"
	  "jeq32 %r1, %r2, t\n" AJ_OUT, 3, 2, 0x500000010ull + 1000 },
	{ "aj32 z == x", "lddw %r1, 0x50000000f\nadd %r1, 1\njle32 %r1, %r1, t\n" AJ_OUT, 2, 2,
	  0x500000010ull + 1000 },
	{ "aj32 jne not taken", "lddw %r1, 0x50000000f\nadd %r1, 1\njne32 %r1, 0x10, t\n" AJ_OUT, 2,
	  2, 0x500000010ull },
	{ "aj32 add32: not fused", "lddw %r1, 0x50000000f\nadd32 %r1, 1\njeq32 %r1, 0x10, t\n"
	  AJ_OUT, 2, 0, 0x10 + 1000 },
	{ "aj32 jump to the jcc: not fused", "mov %r1, 7\nja j\nadd %r1, 1\nj:\njeq32 %r1, 8, t\n"
	  AJ_OUT, 2, 0, 7 },

	/* BNDL: BND then LDA, where rX and rA are dead.  r2 points at the bytes 01 02 03 04, r3 is
	 * 8 bytes further.  BNDL_OUT packs r0, r6 and r5 - r2 (taken: 1000 + r5 - r2), so with it
	 * rX and rA are live and only BND fuses; BNDL_DEAD_OUT reads r0 only (taken: r0 + 1000). */
#define BNDL_PRE                                                                                   \
	"mov32 %r1, 0x04030201\nstxw [%r10-8], %r1\nmov %r2, %r10\nadd %r2, -8\nmov %r3, %r10\n"   \
	"mov %r0, 100\n"
#define BNDL_OUT                                                                                   \
	"lsh %r0, 16\nor %r0, %r6\nlsh %r0, 8\nsub %r5, %r2\nor %r0, %r5\nexit\nout:\n"            \
	"sub %r5, %r2\nmov %r0, %r5\nadd %r0, 1000\nexit"
#define BNDL_DEAD_OUT "exit\nout:\nadd %r0, 1000\nexit"
#define BNDL_BODY(k, jcc, ld, alu) "mov %r5, %r2\nadd %r5, " k "\n" jcc "\n" ld "\n" alu "\n"
	{ "bndl dead, not taken", BNDL_PRE BNDL_BODY("2", "jgt %r5, %r3, out", "ldxh %r6, [%r2+0]",
	  "add %r0, %r6") BNDL_DEAD_OUT, 6, 5, 100 + 0x0201 },
	{ "bndl dead, taken", BNDL_PRE BNDL_BODY("9", "jgt %r5, %r3, out", "ldxh %r6, [%r2+0]",
	  "add %r0, %r6") BNDL_DEAD_OUT, 6, 5, 100 + 1000 },
	{ "bndl dead, at the edge", BNDL_PRE BNDL_BODY("8", "jgt %r5, %r3, out", "ldxw %r6, [%r2+0]",
	  "sub %r0, %r6") BNDL_DEAD_OUT, 6, 5, 100 - 0x04030201ull },
	{ "bndl dead, mirrored jge", BNDL_PRE BNDL_BODY("8", "jle %r3, %r5, out", "ldxb %r6, [%r2+3]",
	  "or %r0, %r6") BNDL_DEAD_OUT, 6, 5, 100 + 1000 },
	{ "bndl jump over a ja: bnd only", BNDL_PRE BNDL_BODY("2", "jlt %r5, %r3, in\nja out\nin:",
	  "ldxh %r5, [%r2+0]", "xor %r0, %r5") BNDL_DEAD_OUT, 6, 3, 100 ^ 0x0201 },
	{ "bndl dead, x == a, jge", BNDL_PRE BNDL_BODY("2", "jge %r5, %r3, out",
	  "ldxh %r5, [%r2+0]", "xor %r0, %r5") BNDL_DEAD_OUT, 6, 5, 100 ^ 0x0201 },
	{ "bndl dead, w and", BNDL_PRE "mov %r0, -1\n" BNDL_BODY("8", "jgt %r5, %r3, out",
	  "ldxw %r6, [%r2+0]", "and %r0, %r6") BNDL_DEAD_OUT, 7, 5, 0x04030201 },
	{ "bndl z == x: bnd only", BNDL_PRE "mov %r5, 1\n" BNDL_BODY("2", "jgt %r5, %r5, out",
	  "ldxh %r6, [%r2+0]", "add %r0, %r6") BNDL_DEAD_OUT, 7, 3, 100 + 0x0201 },
	{ "bndl x read on the taken path: bnd only", BNDL_PRE BNDL_BODY("9", "jgt %r5, %r3, out",
	  "ldxh %r6, [%r2+0]", "add %r0, %r6") "exit\nout:\nmov %r0, %r5\nsub %r0, %r2\nexit", 6, 3,
	  9 },
	{ "bndl x read after: bnd only", BNDL_PRE BNDL_BODY("2", "jgt %r5, %r3, out",
	  "ldxh %r6, [%r2+0]", "add %r0, %r6") "add %r0, %r5\nsub %r0, %r2\n" BNDL_DEAD_OUT, 6, 3,
	  100 + 0x0201 + 2 },
	{ "bndl a read after: bnd only", BNDL_PRE BNDL_BODY("2", "jgt %r5, %r3, out",
	  "ldxh %r6, [%r2+0]", "add %r0, %r6") "add %r0, %r6\n" BNDL_DEAD_OUT, 6, 3,
	  100 + 2 * 0x0201 },
	{ "bndl a read in a later iteration: bnd only", BNDL_PRE "mov %r6, 0\nmov %r4, 0\nl:\n"
	  "add %r0, %r6\n" BNDL_BODY("2", "jgt %r5, %r3, out", "ldxh %r6, [%r2+0]", "add %r0, %r6")
	  "add %r4, 1\njlt %r4, 2, l\n" BNDL_DEAD_OUT, 9, 3, 100 + 3 * 0x0201 },
	{ "bndl a read by a helper call: bnd only", BNDL_PRE BNDL_BODY("2", "jgt %r5, %r3, out",
	  "ldxh %r1, [%r2+0]", "add %r0, %r1") "call 2\n" BNDL_DEAD_OUT, 6, 3, 0x0201 },
	{ "bndl dead, c == a: bnd only", BNDL_PRE BNDL_BODY("2", "jgt %r5, %r3, out",
	  "ldxh %r6, [%r2+0]", "add %r6, %r6") "mov %r0, %r6\n" BNDL_DEAD_OUT, 6, 3, 2 * 0x0201 },
	{ "bndl not taken, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njgt %r5, %r3, out\n"
	  "ldxh %r6, [%r2+0]\nadd %r0, %r6\n" BNDL_OUT, 6, 3, 0x265020102ULL },
	{ "bndl taken, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 9\njgt %r5, %r3, out\n"
	  "ldxh %r6, [%r2+0]\nadd %r0, %r6\n" BNDL_OUT, 6, 3, 1009 },
	{ "bndl mirrored, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njlt %r3, %r5, out\n"
	  "ldxh %r6, [%r2+0]\nadd %r0, %r6\n" BNDL_OUT, 6, 3, 0x265020102ULL },
	{ "bndl load base is x: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njge %r5, %r3, out\n"
	  "ldxb %r6, [%r5-2]\nor %r0, %r6\n" BNDL_OUT, 6, 3, 0x65000102 },
	{ "bndl or, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njge %r5, %r3, out\n"
	  "ldxb %r6, [%r2+0]\nor %r0, %r6\n" BNDL_OUT, 6, 3, 0x65000102 },
	{ "bndl x == y: bnd only", BNDL_PRE "mov %r5, %r2\nmov %r2, %r2\nadd %r2, 2\n"
	  "jgt %r2, %r3, out\nldxh %r6, [%r2-2]\nadd %r0, %r6\nmov %r2, %r5\nadd %r5, 2\n"
	  BNDL_OUT, 7, 3, 0x265020102ULL },
	{ "bndl k beyond 16 bits, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 0x10000\n"
	  "jgt %r5, %r3, out\nldxh %r6, [%r2+0]\nadd %r0, %r6\n" BNDL_OUT, 6, 3, 0x10000 + 1000 },
	{ "bndl k -32768, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, -32768\njgt %r5, %r3, out\n"
	  "ldxh %r6, [%r2+0]\nadd %r0, %r6\nmov %r5, %r2\nadd %r5, 2\n" BNDL_OUT, 6, 3,
	  0x265020102ULL },
	{ "bndl high registers", "mov32 %r1, 0x04030201\nstxw [%r10-8], %r1\nmov %r8, %r10\n"
	  "add %r8, -8\nmov %r9, 0\nmov %r7, 100\nmov %r0, %r8\nadd %r0, 2\njgt %r0, %r10, out\n"
	  "ldxb %r9, [%r8+1]\nadd %r7, %r9\nmov %r0, %r7\nexit\nout:\nmov %r0, 1\nexit", 6, 5,
	  102 },
	{ "bndl c == a: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njle %r3, %r5, out\n"
	  "ldxh %r6, [%r2+0]\nadd %r6, %r6\n" BNDL_OUT, 6, 3, 0x64040202 },
	{ "bndl word, xor, x and a live: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 4\njgt %r5, %r3, out\n"
	  "ldxw %r6, [%r2+0]\nxor %r0, %r6\n" BNDL_OUT, 6, 3,
	  ((((uint64_t)0x04030265 << 16) | 0x04030201) << 8) | 4 },
	{ "bndl alu on another register: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 4\n"
	  "jgt %r5, %r3, out\nldxw %r6, [%r2+0]\nxor %r6, %r0\n" BNDL_OUT, 6, 3,
	  ((((uint64_t)100 << 16) | 0x04030265) << 8) | 4 },
	{ "bndl jump to the ldx: bnd only", "mov %r6, 0\njeq %r6, 1, mid\n" BNDL_PRE
	  "mov %r5, %r2\nadd %r5, 2\njgt %r5, %r3, out\nmid:\nldxh %r6, [%r2+0]\nadd %r0, %r6\n"
	  BNDL_OUT, 8, 3, 0x265020102ULL },
	{ "bndl add32: bnd only", BNDL_PRE "mov %r5, %r2\nadd %r5, 2\njgt %r5, %r3, out\n"
	  "ldxh %r6, [%r2+0]\nadd32 %r0, %r6\n" BNDL_OUT, 6, 3, 0x265020102ULL },
	/* XBNDL: mov64 rY, rB; add64 rY, rI; then BNDL on Y, where Y is dead on both edges.
	 * XBNDL_PRE adds the index r4 = 1 to BNDL_PRE, so a u16 read gets the bytes 02 03. */
#define XBNDL_PRE BNDL_PRE "mov %r4, 1\n"
#define XBNDL_BODY(k, jcc, ld, alu) "mov %r5, %r2\nadd %r5, %r4\nmov %r1, %r5\nadd %r1, " k "\n" \
	jcc "\n" ld "\n" alu "\n"
	{ "xbndl not taken", XBNDL_PRE XBNDL_BODY("2", "jgt %r1, %r3, out", "ldxh %r5, [%r5+0]",
	  "add %r0, %r5") BNDL_DEAD_OUT, 7, 7, 100 + 0x0302 },
	{ "xbndl taken", XBNDL_PRE XBNDL_BODY("8", "jgt %r1, %r3, out", "ldxh %r5, [%r5+0]",
	  "add %r0, %r5") BNDL_DEAD_OUT, 7, 7, 100 + 1000 },
	{ "xbndl at the edge", XBNDL_PRE XBNDL_BODY("7", "jgt %r1, %r3, out",
	  "ldxb %r6, [%r5+2]", "add %r0, %r6") BNDL_DEAD_OUT, 7, 7, 100 + 0x04 },
	{ "xbndl at the edge, jge", XBNDL_PRE XBNDL_BODY("7", "jge %r1, %r3, out",
	  "ldxb %r6, [%r5+2]", "or %r0, %r6") BNDL_DEAD_OUT, 7, 7, 100 + 1000 },
	{ "xbndl mirrored jlt, taken", XBNDL_PRE XBNDL_BODY("8", "jlt %r3, %r1, out",
	  "ldxb %r6, [%r5+0]", "sub %r0, %r6") BNDL_DEAD_OUT, 7, 7, 100 + 1000 },
	{ "xbndl jle, word at offset -1", XBNDL_PRE XBNDL_BODY("3", "jle %r3, %r1, out",
	  "ldxw %r6, [%r5-1]", "xor %r0, %r6") BNDL_DEAD_OUT, 7, 7, 100 ^ 0x04030201 },
	{ "xbndl b == y", XBNDL_PRE "mov %r5, %r2\nmov %r5, %r5\nadd %r5, %r4\nmov %r1, %r5\n"
	  "add %r1, 2\njgt %r1, %r3, out\nldxh %r5, [%r5+0]\nadd %r0, %r5\n" BNDL_DEAD_OUT, 8, 7,
	  100 + 0x0302 },
	{ "xbndl y read on the taken path: movx only", XBNDL_PRE XBNDL_BODY("8",
	  "jgt %r1, %r3, out", "ldxh %r5, [%r5+0]", "add %r0, %r5")
	  "exit\nout:\nsub %r5, %r2\nmov %r0, %r5\nexit", 7, 2, 1 },
	{ "xbndl y read after: movx only", XBNDL_PRE XBNDL_BODY("2", "jgt %r1, %r3, out",
	  "ldxh %r6, [%r5+0]", "add %r0, %r6") "add %r0, %r5\nsub %r0, %r2\n" BNDL_DEAD_OUT, 7, 2,
	  100 + 0x0302 + 1 },
	{ "xbndl compared with y: movx only", XBNDL_PRE XBNDL_BODY("2", "jgt %r1, %r5, out",
	  "ldxh %r5, [%r5+0]", "add %r0, %r5") BNDL_DEAD_OUT, 7, 2, 100 + 1000 },
	{ "xbndl accumulated into y: movx only", XBNDL_PRE XBNDL_BODY("2", "jgt %r1, %r3, out",
	  "ldxh %r6, [%r5+0]", "add %r5, %r6") "mov %r0, 7\n" BNDL_DEAD_OUT, 7, 2, 7 },
	{ "xbndl index is y: not fused", XBNDL_PRE "mov %r5, %r2\nadd %r5, %r5\nmov %r5, %r2\n"
	  "add %r5, %r4\n" "mov %r1, %r5\nadd %r1, 2\njgt %r1, %r3, out\nldxh %r5, [%r5+0]\n"
	  "add %r0, %r5\n" BNDL_DEAD_OUT, 7, 0, 100 + 0x0302 },
	{ "xbndl jump to the bnd: movx only", "mov %r6, 0\njeq %r6, 1, mid\n" XBNDL_PRE
	  "mov %r5, %r2\nadd %r5, %r4\nmid:\nmov %r1, %r5\nadd %r1, 2\njgt %r1, %r3, out\n"
	  "ldxh %r5, [%r5+0]\nadd %r0, %r5\n" BNDL_DEAD_OUT, 9, 2, 100 + 0x0302 },
	{ "xbndl x live after: movx only", XBNDL_PRE XBNDL_BODY("2", "jgt %r1, %r3, out",
	  "ldxh %r5, [%r5+0]", "add %r0, %r5") "add %r0, %r1\nsub %r0, %r2\n" BNDL_DEAD_OUT, 7, 2,
	  100 + 0x0302 + 3 },
	{ "xbndl loop", BNDL_PRE "mov %r3, %r2\nadd %r3, 4\nmov %r6, 0\nmov %r0, 0\nl:\n"
	  "mov %r5, %r2\nadd %r5, %r6\nmov %r1, %r5\nadd %r1, 1\njgt %r1, %r3, out\n"
	  "ldxb %r5, [%r5+0]\nadd %r0, %r5\nadd %r6, 1\njne %r6, 10, l\nexit\nout:\n"
	  "add %r0, 1000\nexit", 10, 7, 1 + 2 + 3 + 4 + 1000 },
};

TEST(interp_fusion)
{
	for (size_t i = 0; i < sizeof(fuse_cases) / sizeof(fuse_cases[0]); i++) {
		const struct fuse_case *c = &fuse_cases[i];
		struct bpf_insn *insns;
		struct interp_prog *p;
		uint64_t args[5] = { 0 }, r0 = 0xdeadbeef;
		char err[256];
		int n, ret;

		n = casm_assemble(c->src, &insns, err, sizeof(err));
		if (n < 0) {
			test_fail(__FILE__, __LINE__, "%s: assemble: %s", c->name, err);
			continue;
		}
		ret = interp_prepare(insns, (uint32_t)n, &interp_case_env, &p);
		free(insns);
		if (ret) {
			test_fail(__FILE__, __LINE__, "%s: prepare: %d", c->name, ret);
			continue;
		}
		if (interp_fused_len(p, c->at) != c->len)
			test_fail(__FILE__, __LINE__, "%s: fused length at %u is %u, want %u",
				  c->name, c->at, interp_fused_len(p, c->at), c->len);
		ret = interp_exec(p, args, &r0);
		if (ret != (c->expect == FAULTS ? -EFAULT : 0) ||
		    r0 != (c->expect == FAULTS ? 0 : c->expect))
			test_fail(__FILE__, __LINE__, "%s: status %d r0 0x%" PRIx64 ", want 0x%" PRIx64,
				  c->name, ret, r0, c->expect);
		interp_free(p);
	}
}
