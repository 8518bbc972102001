/* test_jit.c — the x86-64 JIT against the interpreter's expectations: test_interp.c's tricky
 * cases (with and without constant blinding), run-time error statuses, acceptance identical to
 * interp_prepare() on random instruction words, one instance of every form of INSN_LIST
 * (the JIT's coverage check), and a few properties of the generated code (no prologue for a
 * leaf without stack, no division check for a known divisor, short jumps).
 *
 * On other architectures jit_compile() must answer -EOPNOTSUPP and everything else is skipped.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <userbpf/insn.h>

#include "test.h"
#include "conformance_asm.h"
#include "insn.h"
#include "interp_cases.h"
#include "exec/interp.h"
#include "exec/jit.h"

#ifdef __x86_64__

static const struct jit_opts blind_opts = {.sz = sizeof(struct jit_opts), .blind = 1};

/* Assemble and JIT src (blinded or not); returns jit_compile()'s status. */
static int jit_asm(const char *src, int blind, struct jit_prog **p, const char *name)
{
	struct bpf_insn *insns;
	char err[256];
	int n, ret;

	n = casm_assemble(src, &insns, err, sizeof(err));
	if (n < 0) {
		test_fail(__FILE__, __LINE__, "%s: assemble: %s", name, err);
		return -EINVAL;
	}
	ret = jit_compile(insns, (uint32_t)n, &interp_case_env, blind ? &blind_opts : NULL, p);
	free(insns);
	return ret;
}

static int run_jit_asm(const char *src, uint64_t arg, int blind, uint64_t *r0, const char *name)
{
	uint64_t args[5] = {arg, 0, 0, 0, 0};
	struct jit_prog *p;
	int ret = jit_asm(src, blind, &p, name);

	if (ret) {
		test_fail(__FILE__, __LINE__, "%s: jit_compile: %d", name, ret);
		return ret;
	}
	ret = jit_exec(p, args, r0);
	jit_free(p);
	return ret;
}

TEST(jit_semantics)
{
	for (int blind = 0; blind <= 1; blind++) {
		for (size_t i = 0; i < interp_n_sem_cases; i++) {
			const struct sem_case *c = &interp_sem_cases[i];
			uint64_t arg = c->arg == INTERP_CASE_PKT
					   ? (uint64_t)(uintptr_t)interp_case_packet
					   : c->arg;
			uint64_t r0 = 0xdeadbeef;
			int err = run_jit_asm(c->src, arg, blind, &r0, c->name);

			if (err)
				test_fail(__FILE__, __LINE__, "%s%s: status %d", c->name,
					  blind ? " (blinded)" : "", err);
			else if (r0 != c->expect)
				test_fail(__FILE__, __LINE__,
					  "%s%s: r0 0x%" PRIx64 ", want 0x%" PRIx64, c->name,
					  blind ? " (blinded)" : "", r0, c->expect);
		}
	}
}

TEST(jit_runtime_errors)
{
	for (size_t i = 0; i < interp_n_err_cases; i++) {
		const struct err_case *c = &interp_err_cases[i];
		uint64_t r0 = 0xdeadbeef;
		int err = run_jit_asm(c->src, 0, 0, &r0, c->name);

		if (err != c->err || r0 != 0)
			test_fail(__FILE__, __LINE__, "%s: status %d r0 0x%" PRIx64 ", want %d, 0",
				  c->name, err, r0, c->err);
	}
}

/* Errors from deep inside bpf-to-bpf calls unwind every native frame: run them repeatedly and
 * then a normal program, which would crash if rsp or a callee-saved register were off. */
TEST(jit_unwind_from_depth)
{
	static const char *const srcs[] = {
	    /* LD_ABS miss at depth 3 with r6..r9 live */
	    ("mov %r6, %r1\nmov %r7, 7\nmov %r2, 3\ncall local f\nexit\n"
	     "f:\njeq %r2, 0, miss\nsub %r2, 1\nmov %r8, 8\ncall local f\nexit\n"
	     "miss:\nldabsw 100\nmov %r0, 9\nexit"),
	    /* unwind helper at depth 2 */
	    ("mov %r6, %r1\ncall local f\nmov %r0, 5\nexit\nf:\ncall local g\nexit\n"
	     "g:\nmov %r1, 0\ncall 5\nmov %r0, 3\nexit"),
	    /* callx unknown at depth 1 */
	    "mov %r9, 1\ncall local f\nexit\nf:\nmov %r3, 4\ncall %r3\nexit",
	};
	static const int want[] = {0, 0, -ENOENT};

	for (int rep = 0; rep < 100; rep++) {
		for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
			uint64_t r0 = 1;
			int err = run_jit_asm(srcs[i], (uint64_t)(uintptr_t)interp_case_packet, 0,
					      &r0, "unwind");

			if (err != want[i] || r0 != 0)
				test_fail(__FILE__, __LINE__, "case %zu: status %d r0 %" PRIu64, i,
					  err, r0);
		}
	}
}

/* The JIT accepts exactly what the interpreter accepts, with the same errors, except that it
 * refuses writes to r10 with -EOPNOTSUPP.  Random instruction words, biased to valid opcodes. */
TEST(jit_accepts_like_interp)
{
	const struct insn_desc *d = insn_descs();
	uint64_t s = 0x5eed;
	int accepted = 0;

	for (int n = 0; n < 20000; n++) {
		struct bpf_insn prog[4];
		struct interp_prog *ip;
		struct jit_prog *jp;
		int ie, je;

		for (int i = 0; i < 4; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t r = s >> 11;

			prog[i].code = (r & 3) ? d[(r >> 2) % INSN__COUNT].code : (uint8_t)(r >> 2);
			/* each field zero half of the time: most forms need some fields zero */
			prog[i].dst_reg = (r >> 10) & 1 ? (r >> 11) % 12 : 0;
			prog[i].src_reg = (r >> 15) & 1 ? (r >> 16) % 12 : 0;
			prog[i].off = (r >> 20) & 1 ? (int16_t)(((r >> 21) & 7) - 3) : 0;
			prog[i].imm = !((r >> 24) & 1) ? 0
				      : (r >> 25) & 1  ? (int32_t)((r >> 26) & 7) - 1
						       : (int32_t)(r >> 26);
		}
		prog[3] = (struct bpf_insn){.code = BPF_JMP | BPF_EXIT};
		ie = interp_prepare(prog, 4, &interp_case_env, &ip);
		je = jit_compile(prog, 4, &interp_case_env, NULL, &jp);
		if (!ie)
			interp_free(ip);
		if (!je)
			jit_free(jp);
		accepted += !ie;
		if (ie != je && !(ie == 0 && je == -EOPNOTSUPP)) {
			test_fail(__FILE__, __LINE__, "program %d: interp %d, jit %d", n, ie, je);
			break;
		}
	}
	printf("jit_accepts_like_interp: %d of 20000 random programs accepted\n", accepted);
	CHECK(accepted > 100);
}

TEST(jit_refuses_r10_writes)
{
	static const char *const srcs[] = {
	    "mov %r10, 1\nexit",	 "add %r10, -8\nexit",
	    "ldxdw %r10, [%r1+0]\nexit", "lock fetch add [%r1+0], %r10\nexit",
	    "lddw %r10, 5\nexit",
	};
	struct jit_prog *p;

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		CHECK_EQ(jit_asm(srcs[i], 0, &p, srcs[i]), -EOPNOTSUPP);
	REQUIRE_EQ(jit_asm("stxdw [%r10-8], %r1\nlock xchg [%r10-8], %r1\nexit", 0, &p, "ok"), 0);
	jit_free(p);
}

/* Coverage check: one instance of every form in INSN_LIST compiles (kfunc excepted, as in the
 * interpreter) and runs like the interpreter with random registers and a scratch buffer. */
TEST(jit_every_form)
{
	const struct insn_desc *d = insn_descs();
	uint64_t mem[8];

	for (int i = 0; i < INSN__COUNT; i++) {
		struct bpf_insn prog[24];
		struct interp_prog *ip;
		struct jit_prog *jp;
		uint64_t args[5] = {(uint64_t)(uintptr_t)mem, 0, 0, 0, 0}, ir0, jr0;
		uint64_t imem[8], jmem[8];
		int n = 0, want = d[i].op == INSN_OP_KFUNC ? -EOPNOTSUPP : 0, ie, je, clobbers;
		struct bpf_insn *in;

		memset(prog, 0, sizeof(prog));
		/* r6 = &test packet, r1 = buffer, r2..r5, r7..r9 distinctive values */
		prog[n++] = (struct bpf_insn){
		    .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 9, .src_reg = 1};
		for (int r = 2; r <= 8; r++) {
			if (r == 6)
				continue;
			prog[n++] = (struct bpf_insn){.code = BPF_LD | BPF_IMM | BPF_DW,
						      .dst_reg = (uint8_t)r,
						      .imm = (int32_t)(0x9abcdef0u + r * 0x1111)};
			prog[n++] = (struct bpf_insn){.imm = (int32_t)(0x80000001u * r)};
		}
		prog[n++] = (struct bpf_insn){.code = BPF_LD | BPF_IMM | BPF_DW,
					      .dst_reg = 6,
					      .imm = (int32_t)(uintptr_t)interp_case_packet};
		prog[n++] = (struct bpf_insn){
		    .imm = (int32_t)((uint64_t)(uintptr_t)interp_case_packet >> 32)};
		prog[n++] = (struct bpf_insn){
		    .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0x1234};
		in = &prog[n];
		in->code = d[i].code;
		in->dst_reg = 2;
		in->src_reg = 3;
		in->imm = 3;
		in->off = 8;
		if (d[i].kind == INSN_K_LDX || d[i].kind == INSN_K_LDXSX)
			in->src_reg = 9; /* loads read the buffer through r9 */
		if (d[i].kind == INSN_K_ST || d[i].kind == INSN_K_STX || d[i].kind == INSN_K_ATOMIC)
			in->dst_reg = 9; /* stores and atomics write it */
		if (d[i].kind == INSN_K_LDDW || d[i].kind == INSN_K_CALL ||
		    d[i].kind == INSN_K_EXIT)
			in->src_reg = 0;
		if (!(d[i].fields & INSN_F_DST))
			in->dst_reg = 0;
		if (!(d[i].fields & INSN_F_SRC))
			in->src_reg = 0;
		if (!(d[i].fields & INSN_F_IMM))
			in->imm = 0;
		if (!(d[i].fields & INSN_F_OFF))
			in->off = 0;
		if (d[i].kind == INSN_K_JA || d[i].kind == INSN_K_JCOND ||
		    d[i].kind == INSN_K_MAY_GOTO) {
			in->off = d[i].fields & INSN_F_OFF ? 1 : 0; /* skip "xor r0, r2" */
			if (d[i].code == (BPF_JMP32 | BPF_JA))
				in->imm = 1;
		}
		if (d[i].op == INSN_OP_HELPER || d[i].op == INSN_OP_LOCAL)
			in->imm = 1; /* helper 1 (sum), or the local function at +1 */
		if (d[i].kind == INSN_K_CALL && d[i].op == INSN_OP_REG) {
			in->dst_reg = 7; /* callx helper 2 (identity) */
			prog[n - 1] = (struct bpf_insn){
			    .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 7, .imm = 2};
		}
		if (d[i].kind == INSN_K_LDPKT)
			in->imm = 1;
		if (d[i].disc == INSN_D_OFF)
			in->off = (int16_t)d[i].dval;
		else if (d[i].disc == INSN_D_IMM)
			in->imm = d[i].dval;
		else if (d[i].disc == INSN_D_SRC)
			in->src_reg = (uint8_t)d[i].dval;
		if (d[i].kind == INSN_K_LDDW && in->src_reg == BPF_PSEUDO_FUNC)
			in->dst_reg = 4; /* an engine's own descriptor address: r4 is not compared;
					  * the callback is the final exit (imm 3) */
		n += insn_slots(i);
		if (d[i].kind == INSN_K_CALL && d[i].op == INSN_OP_LOCAL)
			prog[n++] = (struct bpf_insn){.code = BPF_JMP | BPF_EXIT};
		/* r0 ^= r2 ^ r3 so that both registers an instruction may write are compared; calls
		 * and packet loads scratch r1..r5, so fold r7 and r8 after those instead. */
		clobbers = d[i].kind == INSN_K_LDPKT ||
			   (d[i].kind == INSN_K_CALL && d[i].op != INSN_OP_LOCAL);
		prog[n++] = (struct bpf_insn){.code = BPF_ALU64 | BPF_XOR | BPF_X,
					      .src_reg = clobbers ? 7 : 2};
		prog[n++] = (struct bpf_insn){.code = BPF_ALU64 | BPF_XOR | BPF_X,
					      .src_reg = clobbers ? 8 : 3};
		prog[n++] = (struct bpf_insn){.code = BPF_JMP | BPF_EXIT};
		REQUIRE(n <= 24);
		REQUIRE_EQ(insn_find(in), i);

		je = jit_compile(prog, (uint32_t)n, &interp_case_env, NULL, &jp);
		if (je != want) {
			test_fail(__FILE__, __LINE__, "%s: jit_compile %d, want %d", d[i].name, je,
				  want);
			continue;
		}
		if (je)
			continue;
		REQUIRE_EQ(interp_prepare(prog, (uint32_t)n, &interp_case_env, &ip), 0);
		for (int k = 0; k < 8; k++)
			mem[k] = 0x8877665544332211ULL * (uint64_t)(k + 1);
		ie = interp_exec(ip, args, &ir0);
		memcpy(imem, mem, sizeof(mem));
		for (int k = 0; k < 8; k++)
			mem[k] = 0x8877665544332211ULL * (uint64_t)(k + 1);
		je = jit_exec(jp, args, &jr0);
		memcpy(jmem, mem, sizeof(mem));
		if (ie != je || ir0 != jr0 || memcmp(imem, jmem, sizeof(mem)))
			test_fail(__FILE__, __LINE__,
				  "%s: interp %d 0x%" PRIx64 ", jit %d 0x%" PRIx64 "%s", d[i].name,
				  ie, ir0, je, jr0,
				  memcmp(imem, jmem, sizeof(mem)) ? ", memory" : "");
		interp_free(ip);
		jit_free(jp);
	}
}

/* Properties of the generated code. */
static size_t code_len(const char *src, int blind)
{
	struct jit_prog *p;
	size_t len = 0;

	if (jit_asm(src, blind, &p, src) == 0) {
		jit_code(p, &len);
		jit_free(p);
	}
	return len;
}

TEST(jit_code_shape)
{
	struct jit_prog *p;
	const uint8_t *code;
	size_t len;

	/* A leaf without stack: lea rax, [rdi + 5] (the move and the add); xor edx, edx; ret. */
	REQUIRE_EQ(jit_asm("mov %r0, %r1\nadd %r0, 5\nexit", 0, &p, "leaf"), 0);
	code = jit_code(p, &len);
	CHECK_EQ(len, 4 + 2 + 1);
	CHECK_EQ(code[1], 0x8d);
	CHECK_EQ(code[len - 1], 0xc3);
	jit_free(p);
	/* Known non-zero divisor: no test/jcc; a power of two is a shift. */
	CHECK(code_len("mov %r0, %r1\ndiv %r0, 7\nexit", 0) <
	      code_len("mov %r0, %r1\nmov %r2, 7\ndiv %r0, %r2\nexit", 0) - 5);
	CHECK_EQ(code_len("mov %r0, %r1\ndiv %r0, 8\nexit", 0), 3 + 4 + 2 + 1);
	/* A leaf keeps r6 in a scratch register (no push rbx); not when it needs the scratch
	 * registers (a division) or calls. */
	REQUIRE_EQ(jit_asm("mov %r6, %r1\nlsh %r6, 1\nmov %r0, %r6\nexit", 0, &p, "leaf r6"), 0);
	code = jit_code(p, &len);
	CHECK(code[0] != 0x53);
	jit_free(p);
	REQUIRE_EQ(jit_asm("mov %r6, %r1\ndiv %r6, %r2\nmov %r0, %r6\nexit", 0, &p, "div r6"), 0);
	code = jit_code(p, &len);
	CHECK_EQ(code[0], 0x53);
	jit_free(p);
	{
		uint64_t r0 = 0;

		CHECK_EQ(run_jit_asm("mov %r6, %r1\nmov %r7, 3\nmov %r8, %r6\nadd %r8, %r7\n"
				     "lsh %r8, 2\nmov %r9, %r8\nsub %r9, 1\nmov %r0, %r9\nexit",
				     5, 0, &r0, "leaf r6..r9"),
			 0);
		CHECK_EQ(r0, 31);
	}
	/* No lea when the add is a jump target (the move is skipped on one path), nor for K under
	 * blinding; a register sum is lea too. */
	CHECK_EQ(code_len("jeq %r1, 0, l\nmov %r0, %r1\nl:\nadd %r0, 5\nexit", 0),
		 code_len("jeq %r1, 0, l\nmov %r0, %r1\nadd %r0, 5\nl:\nexit", 0) + 3);
	CHECK(code_len("mov %r0, %r1\nadd %r0, 5\nexit", 1) > 4 + 2 + 1 + 10);
	CHECK_EQ(code_len("mov %r0, %r1\nadd %r0, %r2\nexit", 0), 4 + 2 + 1);
	/* A zero-extended copy is one 32-bit move (mov eax, edi), the shifts alone too; not with
	 * a jump to the second shift. */
	CHECK_EQ(code_len("mov %r0, %r1\nlsh %r0, 32\nrsh %r0, 32\nexit", 0), 2 + 2 + 1);
	CHECK_EQ(code_len("mov %r0, %r1\nlsh %r0, 32\nrsh %r0, 32\nexit", 1), 2 + 2 + 1);
	CHECK_EQ(code_len("mov %r0, %r1\nja l\nl:\nlsh %r0, 32\nrsh %r0, 32\nexit", 0),
		 code_len("mov %r0, %r1\nja l\nl:\nexit", 0) + 2);
	CHECK(code_len("mov %r0, %r1\nlsh %r0, 32\njeq %r1, 0, l\nl:\nrsh %r0, 32\nexit", 0) >
	      code_len("mov %r0, %r1\nlsh %r0, 32\nrsh %r0, 32\njeq %r1, 0, l\nl:\nexit", 0) + 4);
	/* Short jumps where they fit: a 2-instruction loop body (add r0, 1: 4 bytes; cmp r0, 10:
	 * 4) jumps back with rel8 (2). */
	REQUIRE_EQ(jit_asm("mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, 10, l\nexit", 0, &p, "loop"), 0);
	CHECK_EQ(jit_insn_offset(p, 3) - jit_insn_offset(p, 1), 4 + 4 + 2);
	jit_free(p);
	/* Blinding makes code longer but changes no result (see jit_semantics). */
	CHECK(code_len("mov %r0, 0x12345678\nexit", 1) > code_len("mov %r0, 0x12345678\nexit", 0));
}

/* Runs prog (no arguments) on the interpreter and the JIT (blinded or not); whether both exit
 * normally with the same r0.  what says which case, in the failure message. */
static bool interp_jit_agree(const struct bpf_insn *prog, int n, int blind, const char *what)
{
	uint64_t args[5] = { 0 }, ir0 = 0, jr0 = 1;
	struct interp_prog *ip;
	struct jit_prog *jp;
	int ie, je;

	if (interp_prepare(prog, (uint32_t)n, &interp_case_env, &ip)) {
		test_fail(__FILE__, __LINE__, "%s: the interpreter refused it", what);
		return false;
	}
	if (jit_compile(prog, (uint32_t)n, &interp_case_env, blind ? &blind_opts : NULL, &jp)) {
		test_fail(__FILE__, __LINE__, "%s: the JIT refused it", what);
		interp_free(ip);
		return false;
	}
	ie = interp_exec(ip, args, &ir0);
	je = jit_exec(jp, args, &jr0);
	interp_free(ip);
	jit_free(jp);
	if (ie || je || ir0 != jr0) {
		test_fail(__FILE__, __LINE__,
			  "%s (blind %d): interp %d 0x%" PRIx64 ", jit %d 0x%" PRIx64, what, blind,
			  ie, ir0, je, jr0);
		return false;
	}
	return true;
}

/* LD_IMM64s giving r0..r9 distinct values with high bits set (salt picks them); returns the
 * slots written. */
static int put_reg_values(struct bpf_insn *p, int salt)
{
	int n = 0;

	for (int r = 0; r <= 9; r++) {
		uint64_t v = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(r + salt);

		p[n++] = (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = r,
					    .imm = (int32_t)v };
		p[n++] = (struct bpf_insn){ .imm = (int32_t)(v >> 32) };
	}
	return n;
}

/* At p[n]: r0 = r0 * 31 + r for r1..r9, then exit, so that the result depends on every
 * register; returns the new count. */
static int put_mix_exit(struct bpf_insn *p, int n)
{
	for (int r = 1; r <= 9; r++) {
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 31);
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_ADD, BPF_REG_0, r);
	}
	p[n++] = (struct bpf_insn)BPF_EXIT_INSN();
	return n;
}

/* The sequences the JIT emits as one instruction (emit_fused()): mov64 rX, rY; add64 rX, K / rZ
 * (lea), mov64 rX, rY; lsh64 rX, 32; rsh64 rX, 32 and the shifts alone (mov eX, eY), for every
 * X, Y (r10 included, whose value is an address: the program stores and loads through X
 * instead) and Z, against the interpreter, blinded and not.  Each register starts distinct,
 * with high bits set; the result folds all of r0..r9. */
enum pair_form { PAIR_ADD_K, PAIR_ADD_X, PAIR_MZX, PAIR_ZX };

static int pair_prog(struct bpf_insn *p, enum pair_form form, int x, int y, int z, int32_t k)
{
	int n = put_reg_values(p, 1);

	if (form != PAIR_ZX)
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(x, y);
	if (form == PAIR_ADD_K)
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, x, k);
	else if (form == PAIR_ADD_X)
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_ADD, x, z);
	if (form == PAIR_MZX || form == PAIR_ZX) {
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_LSH, x, 32);
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_RSH, x, 32);
	}
	if (y == BPF_REG_10) { /* x = fp + k: a stack slot; (u32)fp: nothing to read */
		if (form == PAIR_ADD_K)
			p[n++] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, x, 0, 0x5a5a);
		p[n++] = form == PAIR_ADD_K ? (struct bpf_insn)BPF_LDX_MEM(BPF_DW, x, x, 0)
					    : (struct bpf_insn)BPF_MOV64_IMM(x, 7);
	}
	return put_mix_exit(p, n);
}

TEST(jit_fused_pairs)
{
	static const int32_t ks[] = { 0, -8, 0x7fffffff, -0x7fffffff - 1 };
	struct bpf_insn prog[64];
	int cases = 0;

	for (int blind = 0; blind <= 1; blind++)
	for (int form = PAIR_ADD_K; form <= PAIR_ZX; form++)
	for (int x = 0; x <= 9; x++)
	for (int y = 0; y <= 10; y++)
	for (int v = 0; v < (form == PAIR_ADD_K ? 4 : form == PAIR_ADD_X ? 10 : 1); v++) {
		int32_t k = form == PAIR_ADD_K ? ks[v] : 0;
		char what[80];
		int n;

		if ((form == PAIR_ZX && y != x) || (y == BPF_REG_10 && form == PAIR_ADD_K && k != -8) ||
		    (y == BPF_REG_10 && form == PAIR_ADD_X))
			continue; /* ZX has no Y; only fp - 8 is a slot */
		n = pair_prog(prog, (enum pair_form)form, x, y, v, k);
		snprintf(what, sizeof(what), "form %d x r%d y r%d z r%d k %d", form, x, y, v, k);
		interp_jit_agree(prog, n, blind, what);
		cases++;
	}
	/* add K: 10 x 10 x 4 + 10 (fp - 8); add rZ: 10 x 10 x 10; MZX: 10 x 11; ZX: 10 */
	CHECK_EQ(cases, 2 * (410 + 1000 + 110 + 10));
}

/* add64 rB, K where rA = rB + K is still there (computed by mov64 rA, rB; add64 rA, K and
 * neither register written since) is a copy of rA (emit_known_sum()): 3 bytes where the add is 4.
 * Not after a write of rA or rB, nor where a jump lands between. */
TEST(jit_known_sum_shape)
{
#define SUM_PROG(mid, k)                                                                           \
	"mov %r2, %r1\nadd %r2, 4\n" mid "add %r1, " k "\nmov %r0, %r1\ne:\nexit"
	CHECK_EQ(code_len(SUM_PROG("", "4"), 0) + 1, code_len(SUM_PROG("", "5"), 0));
	CHECK_EQ(code_len(SUM_PROG("mov %r3, 1\n", "4"), 0) + 1,
		 code_len(SUM_PROG("mov %r3, 1\n", "5"), 0));
	CHECK_EQ(code_len(SUM_PROG("jgt %r2, %r3, e\nstxdw [%r10-8], %r2\n", "4"), 0) + 1,
		 code_len(SUM_PROG("jgt %r2, %r3, e\nstxdw [%r10-8], %r2\n", "5"), 0));
	/* blinded: no lea, so nothing known */
	CHECK_EQ(code_len(SUM_PROG("", "4"), 1), code_len(SUM_PROG("", "5"), 1));
	CHECK_EQ(code_len(SUM_PROG("mov %r2, 0\n", "4"), 0),
		 code_len(SUM_PROG("mov %r2, 0\n", "5"), 0));
	CHECK_EQ(code_len(SUM_PROG("neg %r1\n", "4"), 0), code_len(SUM_PROG("neg %r1\n", "5"), 0));
	CHECK_EQ(code_len(SUM_PROG("jeq %r3, 0, l\nl:\n", "4"), 0),
		 code_len(SUM_PROG("jeq %r3, 0, l\nl:\n", "5"), 0));
#undef SUM_PROG
}

/* The same against the interpreter: rA = rB + K, then something in between, then rB += K2, for
 * every A != B of r0..r9 (r10 is never added to), K2 == K or not, blinded and not.  The result
 * folds all of r0..r9. */
enum sum_mid { MID_NONE, MID_OTHER, MID_WRITE_A, MID_WRITE_B, MID_LOAD_A, MID_LOAD_B, MID_STORE,
	       MID_JUMP_IN, MID_COND, MID__COUNT };

static int sum_prog(struct bpf_insn *p, int a, int b, enum sum_mid mid, int32_t k, int32_t k2)
{
	int o = (a + 1) % 10 == b ? (a + 2) % 10 : (a + 1) % 10; /* neither a nor b */
	int n = put_reg_values(p, 3);

	p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_10, o, -8);
	p[n++] = (struct bpf_insn)BPF_MOV64_REG(a, b);
	p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, a, k);
	switch (mid) {
	case MID_NONE:
		break;
	case MID_OTHER:
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_MUL, o, 3);
		break;
	case MID_WRITE_A:
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, a, 1);
		break;
	case MID_WRITE_B:
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_XOR, b, o);
		break;
	case MID_LOAD_A:
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, a, BPF_REG_10, -8);
		break;
	case MID_LOAD_B:
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, b, BPF_REG_10, -8);
		break;
	case MID_STORE:
		p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_10, a, -16);
		break;
	case MID_JUMP_IN: /* over the mov and add: a keeps its start value on the path taken */
		p[n - 2] = (struct bpf_insn)BPF_JMP_IMM(BPF_JA, 0, 0, 2);
		p[n - 1] = (struct bpf_insn)BPF_MOV64_REG(a, b);
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, a, k);
		break;
	case MID_COND: /* not taken, then taken to the add */
		p[n++] = (struct bpf_insn)BPF_JMP_REG(BPF_JGT, a, a, 1);
		p[n++] = (struct bpf_insn)BPF_JMP_REG(BPF_JEQ, a, a, 0);
		break;
	default:
		break;
	}
	p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, b, k2);
	return put_mix_exit(p, n);
}

TEST(jit_known_sums)
{
	static const int32_t ks[] = { 0, 4, -8, 0x7fffffff, -0x7fffffff - 1 };
	struct bpf_insn prog[64];
	int cases = 0;

	for (int blind = 0; blind <= 1; blind++)
	for (int mid = MID_NONE; mid < MID__COUNT; mid++)
	for (int a = 0; a <= 9; a++)
	for (int b = 0; b <= 9; b++)
	for (int v = 0; v < 10; v++) {
		int32_t k = ks[v / 2], k2 = v % 2 ? (int32_t)((uint32_t)k + 1) : k;
		char what[80];
		int n;

		if (a == b)
			continue;
		n = sum_prog(prog, a, b, (enum sum_mid)mid, k, k2);
		snprintf(what, sizeof(what), "mid %d a r%d b r%d k %d k2 %d", mid, a, b, k, k2);
		interp_jit_agree(prog, n, blind, what);
		cases++;
	}
	CHECK_EQ(cases, 2 * MID__COUNT * 90 * 10);
}

/* Whether the JIT's code for src (not blinded) contains the bytes pat. */
static bool code_has(const char *src, const uint8_t *pat, size_t n)
{
	struct jit_prog *p;
	const uint8_t *code;
	size_t len;
	bool found = false;

	if (jit_asm(src, 0, &p, src))
		return false;
	code = jit_code(p, &len);
	for (size_t i = 0; i + n <= len && !found; i++)
		found = !memcmp(code + i, pat, n);
	jit_free(p);
	return found;
}

/* mov64 rX, rB; add64 rX, rI whose rX is only an address is folded into the addresses
 * (fold_address()): r2 = r10 + r1 then ldxdw r3, [r2 - 8] is mov rdx, [rbp + rdi - 8], and
 * r4 = r2 - 8 is lea rcx, [rbp + rdi - 8].  Not where rX is read as a value, rB or rI change
 * while rX is live, a jump lands between, a jump goes where rX is live, or a callx reads it. */
TEST(jit_address_fold_shape)
{
	static const uint8_t load[] = { 0x48, 0x8b, 0x54, 0x3d, 0xf8 }; /* mov rdx,[rbp+rdi-8] */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x4c, 0x3d, 0xf8 };	 /* lea rcx,[rbp+rdi-8] */
#define FOLD(mid, after) "mov %r2, %r10\nadd %r2, %r1\n" mid "ldxdw %r3, [%r2-8]\n" after \
	"mov %r0, %r3\nexit\ne:\nmov %r0, %r2\nexit"
	CHECK(code_has(FOLD("", ""), load, sizeof(load)));
	CHECK(code_has(FOLD("jeq %r1, 1, f\n", "f:\nmov %r2, 0\n"), load, sizeof(load)));
	CHECK(code_has(FOLD("mov %r4, %r2\nadd %r4, -8\nstdw [%r2-16], 1\n", ""), lea,
		       sizeof(lea)));
	CHECK(code_has(FOLD("mov %r4, %r2\nadd %r4, -8\nstdw [%r2-16], 1\n", ""), load,
		       sizeof(load)));
	CHECK(!code_has(FOLD("", "add %r3, %r2\n"), load, sizeof(load)));
	CHECK(!code_has(FOLD("mov %r1, 0\n", ""), load, sizeof(load)));
	CHECK(!code_has(FOLD("jeq %r1, 0, l\nl:\n", ""), load, sizeof(load)));
	CHECK(!code_has(FOLD("jeq %r1, 1, e\n", ""), load, sizeof(load)));
	CHECK(!code_has(FOLD("stxdw [%r2-16], %r2\n", ""), load, sizeof(load)));
	CHECK(!code_has(FOLD("call 1\n", ""), load, sizeof(load)));
	/* callx reads its register (r0: no helper argument) */
	CHECK(code_has("mov %r0, %r10\nadd %r0, %r1\nldxdw %r3, [%r0-8]\ncall 1\nexit", load,
		       sizeof(load)));
	CHECK(!code_has("mov %r0, %r10\nadd %r0, %r1\nldxdw %r3, [%r0-8]\ncall %r0\nexit", load,
			sizeof(load)));
#undef FOLD
}

/* The same against the interpreter: rA = rB + rI (an address in the stack: rB the frame pointer
 * or a copy of it, rI = -16), something in between, then rA = *(u64 *)rA; reads on two paths of
 * conditional jumps after.  Every distinct A, B, I of r0..r9 (B also r10), B + I and I + B,
 * blinded and not.  Where the JIT wrongly folded, it would read or write elsewhere in the
 * stack, or through a register that holds no address. */
enum fold_mid { FM_NONE, FM_OTHER, FM_LEA_K, FM_WRITE_B, FM_WRITE_I, FM_LOAD_VIA, FM_STORE_VIA,
		FM_STORE_A, FM_VALUE, FM_JUMP_IN, FM_COND_DEAD, FM_COND_LIVE, FM_WRITE_A,
		FM_LOAD_INTO_B, FM_STORE_A_VIA_A, FM_LDDW, FM_NESTED, FM__COUNT };

static int fold_prog(struct bpf_insn *p, int a, int b, int i, int o, int swap, enum fold_mid mid)
{
	int n = put_reg_values(p, 5);

	for (int k = 1; k <= 6; k++)
		p[n++] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, BPF_REG_10, -8 * k, 1000 * k + 7);
	if (b != BPF_REG_10)
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(b, BPF_REG_10);
	p[n++] = (struct bpf_insn)BPF_MOV64_IMM(i, -16);
	p[n++] = (struct bpf_insn)BPF_MOV64_REG(a, swap ? i : b);
	p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_ADD, a, swap ? b : i);
	switch (mid) {
	case FM_NONE:
	case FM_COND_DEAD:
	case FM_COND_LIVE:
		break;
	case FM_OTHER:
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_MUL, o, 3);
		break;
	case FM_LEA_K:
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(o, a);
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, o, 8);
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, o, o, 0);
		break;
	case FM_WRITE_B: /* (rB is r10: the same as FM_OTHER) */
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, b == BPF_REG_10 ? o : b, -8);
		break;
	case FM_WRITE_I:
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, i, -8);
		break;
	case FM_LOAD_VIA:
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, o, a, 8);
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_B, o, a, 9); /* (sign-extending below) */
		p[n++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEMSX | BPF_H, .dst_reg = o,
					    .src_reg = (uint8_t)a, .off = -6 };
		break;
	case FM_STORE_VIA:
		p[n++] = (struct bpf_insn)BPF_ST_MEM(BPF_W, a, 8, 77);
		p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_H, a, o, -8);
		break;
	case FM_STORE_A: /* the address itself, loaded back and dereferenced */
		p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_10, a, -56);
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, o, BPF_REG_10, -56);
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, o, o, 8);
		break;
	case FM_VALUE: /* rO = rA - fp: -16 */
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(o, a);
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_SUB, o, BPF_REG_10);
		break;
	case FM_JUMP_IN: /* a jump to the next instruction: a target with rA live */
		p[n++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, i, 0, 0);
		break;
	case FM_WRITE_A: /* rA written without being read: fp - 24 */
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(a, BPF_REG_10);
		p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, a, -24);
		break;
	case FM_LOAD_INTO_B:
		if (b != BPF_REG_10)
			p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, b, a, 8);
		break;
	case FM_STORE_A_VIA_A:
		p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, a, a, 8); /* at fp - 8 */
		p[n++] = (struct bpf_insn)BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 5);
		break;
	case FM_LDDW:
		p[n++] = (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = o,
					    .imm = 0x1234 };
		p[n++] = (struct bpf_insn){ .imm = 0x5678 };
		break;
	case FM_NESTED: /* another foldable pair, through rA's value */
		p[n++] = (struct bpf_insn)BPF_MOV64_REG(o, b);
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_ADD, o, i);
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, o, o, 8);
		break;
	default:
		break;
	}
	/* taken (rI is -16, or -24 after FM_WRITE_I): to where rA is dead, or read */
	if (mid == FM_COND_DEAD)
		p[n++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JSLT, i, 0, 2);
	if (mid == FM_COND_LIVE)
		p[n++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JSLT, i, 0, 4);
	p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, a, a, 0);
	p[n++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JA, 0, 0, 3);
	p[n++] = (struct bpf_insn)BPF_MOV64_IMM(a, 9);
	p[n++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JA, 0, 0, 1);
	p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, a, a, 8);
	if (b != BPF_REG_10) /* no address in the result: the stacks differ */
		p[n++] = (struct bpf_insn)BPF_MOV64_IMM(b, 0);
	for (int k = 1; k <= 6; k++) { /* the stack too */
		p[n++] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, o, BPF_REG_10, -8 * k);
		p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_XOR, a, o);
	}
	return put_mix_exit(p, n);
}

TEST(jit_address_folds)
{
	struct bpf_insn prog[128];
	int cases = 0;

	for (int blind = 0; blind <= 1; blind++)
	for (int mid = FM_NONE; mid < FM__COUNT; mid++)
	for (int a = 0; a <= 9; a++)
	for (int b = 0; b <= 10; b++)
	for (int swap = 0; swap <= 1; swap++) {
		int i = (a + b + 1) % 10, o;
		char what[80];
		int n;

		if (b == a)
			continue;
		while (i == a || i == b)
			i = (i + 1) % 10;
		o = (i + 1) % 10;
		while (o == a || o == b || o == i)
			o = (o + 1) % 10;
		n = fold_prog(prog, a, b, i, o, swap, (enum fold_mid)mid);
		snprintf(what, sizeof(what), "mid %d a r%d b r%d i r%d o r%d swap %d", mid, a, b, i,
			 o, swap);
		interp_jit_agree(prog, n, blind, what);
		cases++;
	}
	CHECK_EQ(cases, 2 * FM__COUNT * 100 * 2);
}

/* r2 = 0, r3 = 100, fill 2-byte instructions (mov32 r0, 0: xor eax, eax), then the loop
 * `l: body; r3 -= 1; if r3 != 0 goto l`, then r0 = r2.  JIT-compiled into *p; the index of the
 * loop's first instruction, or -1. */
static int loop_prog(const char *body, int fill, struct jit_prog **p)
{
	char src[2048];
	int len = snprintf(src, sizeof(src), "mov %%r2, 0\nmov %%r3, 100\n");

	for (int i = 0; i < fill; i++)
		len += snprintf(src + len, sizeof(src) - len, "mov32 %%r0, 0\n");
	snprintf(src + len, sizeof(src) - len,
		 "l:\n%ssub %%r3, 1\njne %%r3, 0, l\nmov %%r0, %%r2\nexit", body);
	return jit_asm(src, 0, p, "loop") ? -1 : 2 + fill;
}

/* A small loop starts a 64-byte line (align_loop_head()): moved there unless it starts one
 * already; a loop that cannot fit in one line keeps its place (the natural one, which the same
 * code before the loop gives).  The padding runs on entry without changing the result.  The
 * fill moves the natural place through every even offset of a line. */
TEST(jit_loop_alignment)
{
	char big[1024] = "";
	uint64_t small_r0 = 0, r0;
	struct jit_prog *p;
	int moved = 0;

	for (uint64_t r3 = 100; r3; r3--)
		small_r0 = (small_r0 + r3) ^ 7;
	for (int i = 0; i < 12; i++) /* 12 x 7 bytes: no line holds it */
		strcat(big, "add %r2, 0x12345\n");
	for (int fill = 0; fill <= 40; fill++) {
		struct jit_prog *ps, *pb;
		int hs = loop_prog("add %r2, %r3\nxor %r2, 7\n", fill, &ps);
		int hb = loop_prog(big, fill, &pb);
		int64_t natural, head, end;

		if (hs < 0 || hb < 0) {
			CHECK(0);
			jit_free(hs < 0 ? NULL : ps);
			jit_free(hb < 0 ? NULL : pb);
			continue;
		}
		natural = jit_insn_offset(pb, (uint32_t)hb);
		CHECK(jit_insn_offset(pb, (uint32_t)hb + 14) - natural > 64);
		head = jit_insn_offset(ps, (uint32_t)hs);
		end = jit_insn_offset(ps, (uint32_t)hs + 4); /* after the jne */
		CHECK(end - head <= 64);
		CHECK_EQ(head, (natural + 63) / 64 * 64);
		moved += natural % 64 != 0;
		CHECK_EQ(head / 64, (end - 1) / 64);
		CHECK_EQ(jit_exec(ps, (uint64_t[5]){0}, &r0), 0);
		CHECK_EQ(r0, small_r0);
		CHECK_EQ(jit_exec(pb, (uint64_t[5]){0}, &r0), 0);
		CHECK_EQ(r0, 100ull * 12 * 0x12345);
		jit_free(ps);
		jit_free(pb);
	}
	CHECK(moved > 0);
	/* A loop at a line's start already (slot 0, no prologue) gets no padding: mov rax, rdi (3
	 * bytes); add rdi, 1 (4); cmp rdi, 10 (4); jb (2). */
	REQUIRE_EQ(jit_asm("l:\nmov %r0, %r1\nadd %r1, 1\njlt %r1, 10, l\nexit", 0, &p, "at0"), 0);
	CHECK_EQ(jit_insn_offset(p, 0), 0);
	CHECK_EQ(jit_insn_offset(p, 3), 3 + 4 + 4 + 2);
	CHECK_EQ(jit_exec(p, (uint64_t[5]){3}, &r0), 0);
	CHECK_EQ(r0, 9);
	jit_free(p);
}

/* Blinded code hides the immediates: the 4 bytes of a constant do not appear in the code. */
TEST(jit_blinding_hides_constants)
{
	static const uint8_t pattern[4] = {0x78, 0x56, 0x34, 0x12};
	struct jit_prog *p;
	const uint8_t *code;
	size_t len;
	int found = 0;

	REQUIRE_EQ(jit_asm("mov %r0, 0x12345678\nadd %r0, 0x12345678\nstw [%r10-4], 0x12345678\n"
			   "jeq %r0, 0x12345678, +0\nlddw %r1, 0x1234567812345678\nexit",
			   1, &p, "blind"),
		   0);
	code = jit_code(p, &len);
	for (size_t i = 0; i + 4 <= len; i++)
		found |= !memcmp(code + i, pattern, 4);
	CHECK(!found);
	CHECK_EQ(jit_run(p, 0, 0), 0x2468acf0);
	jit_free(p);
}

/* W^X: the code's mapping is readable and executable, not writable. */
TEST(jit_code_is_not_writable)
{
	struct jit_prog *p;
	const void *code;
	char line[512], perms[8] = "";
	size_t len;
	FILE *f;

	REQUIRE_EQ(jit_asm("mov %r0, 1\nexit", 0, &p, "wx"), 0);
	code = jit_code(p, &len);
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		jit_free(p);
		SKIP("no /proc/self/maps");
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && lo <= (uintptr_t)code &&
		    (uintptr_t)code < hi)
			break;
		perms[0] = 0;
	}
	fclose(f);
	CHECK(!strncmp(perms, "r-x", 3));
	CHECK_EQ(jit_run(p, 0, 0), 1);
	jit_free(p);
}

/* The perms of the mapping holding addr in /proc/self/maps ("" if none). */
static void mapping_perms(const void *addr, char perms[8])
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	perms[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && lo <= (uintptr_t)addr &&
		    (uintptr_t)addr < hi)
			break;
		perms[0] = 0;
	}
	if (f)
		fclose(f);
}

/* A freed program's image is kept for the next compile (a fresh mapping is most of a small
 * program's load): a program compiled next takes it, runs its own code there, and the image is
 * read+execute again; a program too large for any kept image gets a mapping of its own. */
TEST(jit_image_reused)
{
	struct jit_prog *a, *b, *c;
	const void *ca, *cb, *cc;
	char perms[8];
	size_t len;

	REQUIRE_EQ(jit_asm("mov %r0, 7\nexit", 0, &a, "reuse a"), 0);
	ca = jit_code(a, &len);
	CHECK_EQ(jit_run(a, 0, 0), 7);
	jit_free(a);
	REQUIRE_EQ(jit_asm("mov %r0, %r1\nadd %r0, 5\nexit", 0, &b, "reuse b"), 0);
	cb = jit_code(b, &len);
	CHECK(cb == ca);
	CHECK_EQ(jit_run(b, 10, 0), 15);
	mapping_perms(cb, perms);
	CHECK(!strncmp(perms, "r-x", 3));
	/* (b holds it: another program gets another image) */
	REQUIRE_EQ(jit_asm("mov %r0, 3\nexit", 0, &c, "reuse c"), 0);
	cc = jit_code(c, &len);
	CHECK(cc != cb);
	CHECK_EQ(jit_run(c, 0, 0), 3);
	CHECK_EQ(jit_run(b, 1, 0), 6);
	jit_free(b);
	jit_free(c);
}

TEST(jit_rerun_and_opts)
{
	struct bpf_insn *insns;
	struct jit_prog *p;
	char err[128];
	struct {
		struct jit_opts o;
		uint64_t future;
	} big = {{.sz = sizeof(big)}, 1};
	int n = casm_assemble("mov %r0, 0\nl:\nadd %r0, %r1\nsub %r1, 1\njne %r1, 0, l\nexit",
			      &insns, err, sizeof(err));

	REQUIRE(n > 0);
	CHECK_EQ(jit_compile(insns, (uint32_t)n, NULL, &big.o, &p), -EINVAL);
	big.future = 0;
	REQUIRE_EQ(jit_compile(insns, (uint32_t)n, NULL, &big.o, &p), 0);
	for (uint64_t k = 1; k < 50; k++)
		CHECK_EQ(jit_run(p, k, 0), k * (k + 1) / 2);
	jit_free(p);
	CHECK_EQ(jit_compile(insns, 0, NULL, NULL, &p), -E2BIG);
	free(insns);
}

#else

TEST(jit_unsupported)
{
	struct bpf_insn exit_insn = {.code = BPF_JMP | BPF_EXIT};
	struct jit_prog *p = (struct jit_prog *)1;

	CHECK_EQ(jit_compile(&exit_insn, 1, NULL, NULL, &p), -EOPNOTSUPP);
	CHECK(p == NULL);
}

#endif

/* A kfunc call: the engines call what env->resolve_kfunc() gives for its imm and off, as a
 * helper; one it does not resolve (or no resolver) is -EOPNOTSUPP. */
static uint64_t kf_mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a * 10000 + b * 1000 + c * 100 + d * 10 + e;
}

static interp_helper_fn kf_resolve(const struct interp_env *env, int32_t imm, int16_t off)
{
	return imm == 77 && off == 0 ? kf_mix : NULL;
}

TEST(jit_kfunc_calls)
{
	struct interp_env env = interp_case_env;
	struct bpf_insn prog[] = {
		BPF_MOV64_IMM(1, 1), BPF_MOV64_IMM(2, 2), BPF_MOV64_IMM(3, 3), BPF_MOV64_IMM(4, 4),
		BPF_MOV64_IMM(5, 5), BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 77),
		BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_EXIT_INSN(),
	};
	struct interp_prog *ip;
	struct jit_prog *jp;
	int je;

	env.resolve_kfunc = kf_resolve;
	REQUIRE_EQ(interp_prepare(prog, 8, &env, &ip), 0);
	CHECK_EQ(interp_run(ip, 0, 0), 12346);
	interp_free(ip);
	je = jit_compile(prog, 8, &env, NULL, &jp);
#if defined(__x86_64__)
	REQUIRE_EQ(je, 0);
	CHECK_EQ(jit_run(jp, 0, 0), 12346);
	jit_free(jp);
#else
	CHECK_EQ(je, -EOPNOTSUPP);
#endif
	prog[5].imm = 78; /* not resolved */
	CHECK_EQ(interp_prepare(prog, 8, &env, &ip), -EOPNOTSUPP);
	CHECK_EQ(jit_compile(prog, 8, &env, NULL, &jp), -EOPNOTSUPP);
	prog[5].imm = 77;
	env.resolve_kfunc = NULL;
	CHECK_EQ(interp_prepare(prog, 8, &env, &ip), -EOPNOTSUPP);
	CHECK_EQ(jit_compile(prog, 8, &env, NULL, &jp), -EOPNOTSUPP);
}
