/* test_jit_bounds.c — packet checks compared with a bound computed before their loop
 * (jit_opts.pkt_cmp, plan_hoists() in the JIT): `p2 = p + K; if p2 > end` runs as
 * `if p > end - K`.  Where it applies the check's sum takes no code; where a condition fails
 * (end written in the loop, a jump into it, the sum used later, a call or scratch register in
 * the loop, an inner loop, blinding, no register left, no verifier fact, a 32-bit compare) the
 * check is compiled as written.  Every program runs on the interpreter and on the JIT with and
 * without the fact, over packets of 0..41 bytes, and the results must agree.
 *
 * Programs take r1 = data, r2 = data_end (a real buffer), as the verifier's packet pointers.
 *
 * Then the fact itself: the verifier sets it for a jump between packet pointers near data at
 * every visit, and not where a visit had scalars or a pointer with an unbounded offset; and XDP
 * loops of each shape, loaded through bpf(), give the kernel's results on packets of 14..84 and
 * 1500 bytes with the JIT and with the interpreter (skipped without the kernel's bpf()).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <userbpf/insn.h>

#include "test.h"
#include "conformance_asm.h"
#include "interp_cases.h"
#include "kbpf.h"
#include "prog_struct.h"
#include "exec/interp.h"
#include "exec/jit.h"

#ifdef __x86_64__

/* A check at slot check whose sum is the pair at check - 2. */
struct bounds_case {
	const char *name;
	const char *src;
	uint32_t check;
	int hoisted; /* whether the pair takes no code with the fact */
	int blind;
	uint64_t facts; /* the slots with the fact (bit n: slot n); 0: check's alone */
};

/* Hand-written loop (bench's csum): r5 = p + 2 checked, then p advances, a counter stops it. */
#define CSUM_HEAD "mov %r0, 0\nmov %r4, 0\nl:\nmov %r5, %r1\nadd %r5, 2\n"
#define CSUM_TAIL                                                                                 \
	"ldxh %r6, [%r1+0]\nadd %r0, %r6\nadd %r1, 2\nadd %r4, 1\njlt %r4, 15, l\nout:\nexit"
/* clang's form (bench's cc3-csum): p = data + i folded into addresses, p + 2 checked. */
#define CC_HEAD "mov %r3, 0\nmov %r0, 0\nl:\nmov %r5, %r1\nadd %r5, %r3\nmov %r4, %r5\nadd %r4, 2\n"
#define CC_TAIL "ldxh %r5, [%r5+0]\nadd %r0, %r5\nadd %r3, 2\njne %r3, 30, l\nout:\nexit"

#define THREE_CHECKS                                                                              \
	"mov %r7, 1\nmov %r8, 2\nmov %r0, 0\nmov %r4, 0\nl:\n"                                     \
	"mov %r5, %r1\nadd %r5, 2\njgt %r5, %r2, out\n"                                          \
	"mov %r5, %r1\nadd %r5, 4\njgt %r5, %r2, out\n"                                          \
	"mov %r5, %r1\nadd %r5, 6\njgt %r5, %r2, out\nldxh %r6, [%r1+0]\nadd %r0, %r6\n"          \
	"add %r1, 2\nadd %r4, 1\njlt %r4, 15, l\nout:\nadd %r0, %r7\nadd %r0, %r8\nexit"

static const struct bounds_case cases[] = {
	{"csum jgt", CSUM_HEAD "jgt %r5, %r2, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"csum jge", CSUM_HEAD "jge %r5, %r2, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"csum jlt end", CSUM_HEAD "jlt %r2, %r5, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"csum jle end", CSUM_HEAD "jle %r2, %r5, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"csum jsgt", CSUM_HEAD "jsgt %r5, %r2, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"csum jeq", CSUM_HEAD "jeq %r5, %r2, out\n" CSUM_TAIL, 4, 1, 0, 0},
	{"cc jgt", CC_HEAD "jgt %r4, %r2, out\n" CC_TAIL, 6, 1, 0, 0},
	{"cc jlt end", CC_HEAD "jlt %r2, %r4, out\n" CC_TAIL, 6, 1, 0, 0},
	/* i + data (index first): the bound takes data, i is compared */
	{"cc index first",
	 "mov %r3, 0\nmov %r0, 0\nl:\nmov %r5, %r3\nadd %r5, %r1\nmov %r4, %r5\nadd %r4, 2\n"
	 "jgt %r4, %r2, out\n" CC_TAIL,
	 6, 1, 0, 0},
	/* the check jumps back: the loop's own back edge */
	{"rotated",
	 "mov %r0, 0\nmov %r5, %r1\nadd %r5, 2\njgt %r5, %r2, out\nl:\nldxh %r6, [%r1+0]\n"
	 "add %r0, %r6\nadd %r1, 2\nmov %r5, %r1\nadd %r5, 2\njle %r5, %r2, l\nout:\nexit",
	 9, 1, 0, 0},
	/* end written in the loop */
	{"end written", CSUM_HEAD "jgt %r5, %r2, out\nadd %r2, 0\n" CSUM_TAIL, 4, 0, 0, 0},
	/* data written while the sum is live: not folded, so the sum's source is a register */
	{"cc not folded", CC_HEAD "jgt %r4, %r2, out\nadd %r1, 0\n" CC_TAIL, 6, 1, 0, 0},
	/* a folded sum whose parts are both written in the loop */
	{"cc both parts written",
	 "mov %r3, 0\nmov %r0, 0\nl:\nadd %r1, 0\nmov %r5, %r1\nadd %r5, %r3\nmov %r4, %r5\n"
	 "add %r4, 2\njgt %r4, %r2, out\n" CC_TAIL,
	 7, 0, 0, 0},
	/* a jump from outside into the loop's body */
	{"entered in the middle",
	 "mov %r0, 0\nmov %r4, 0\njeq %r1, 0, mid\nl:\nmov %r5, %r1\nadd %r5, 2\n"
	 "jgt %r5, %r2, out\nmid:\n" CSUM_TAIL,
	 5, 0, 0, 0},
	/* the sum is read after the check */
	{"sum used", CSUM_HEAD "jgt %r5, %r2, out\nldxh %r6, [%r5-2]\nadd %r0, %r6\nadd %r1, 2\n"
		     "add %r4, 1\njlt %r4, 15, l\nout:\nexit",
	 4, 0, 0, 0},
	{"sum live at target",
	 CSUM_HEAD "jgt %r5, %r2, out\nldxh %r6, [%r1+0]\nadd %r0, %r6\nadd %r1, 2\n"
		   "add %r4, 1\njlt %r4, 15, l\nout:\nadd %r0, %r5\nexit",
	 4, 0, 0, 0},
	/* an atomic (scratch registers) in the loop */
	{"atomic in loop",
	 "stxdw [%r10-8], %r1\n" CSUM_HEAD "jgt %r5, %r2, out\nlock add [%r10-8], %r4\n" CSUM_TAIL,
	 5, 0, 0, 0},
	/* a division (scratch registers) in the loop */
	{"division in loop", CSUM_HEAD "jgt %r5, %r2, out\ndiv %r7, %r4\n" CSUM_TAIL, 4, 0, 0, 0},
	/* the check in a loop that holds another loop */
	{"outer loop",
	 CSUM_HEAD "jgt %r5, %r2, out\nmov %r7, 3\nin:\nsub %r7, 1\njne %r7, 0, in\n" CSUM_TAIL, 4,
	 0, 0, 0},
	/* the leaf mapping with r6..r8 all used: the bound in rbx, pushed; then r12; a third
	 * check has no register left */
	{"r6..r8 used", THREE_CHECKS, 6, 1, 0, 1u << 6 | 1u << 9 | 1u << 12},
	{"r6..r8 used, second check", THREE_CHECKS, 9, 1, 0, 1u << 6 | 1u << 9 | 1u << 12},
	{"r6..r8 used, third check", THREE_CHECKS, 12, 0, 0, 1u << 6 | 1u << 9 | 1u << 12},
	/* a 32-bit compare */
	{"jmp32", CSUM_HEAD "jgt32 %r5, %r2, out\n" CSUM_TAIL, 4, 0, 0, 0},
	{"blinded", CSUM_HEAD "jgt %r5, %r2, out\n" CSUM_TAIL, 4, 0, 1, 0},
};

static uint8_t packet[64];

/* Compiles src with the fact for slot check (or without); the pair's code size, or -1. */
static int64_t compile(const struct bpf_insn *insns, int n, const struct bounds_case *bc,
		       int fact, struct jit_prog **p)
{
	uint8_t bits[64] = {0};
	struct jit_opts o = {.sz = sizeof(o), .blind = bc->blind, .blind_seed = 7};
	int err;

	if (fact) {
		bits[bc->check / 8] |= (uint8_t)(1u << (bc->check % 8));
		for (int i = 0; i < 64; i++)
			if ((bc->facts >> i) & 1)
				bits[i / 8] |= (uint8_t)(1u << (i % 8));
		o.pkt_cmp = bits;
	}
	err = jit_compile(insns, (uint32_t)n, &interp_case_env, &o, p);
	if (err) {
		test_fail(__FILE__, __LINE__, "%s: jit_compile %d", bc->name, err);
		return -1;
	}
	return jit_insn_offset(*p, bc->check) - jit_insn_offset(*p, bc->check - 2);
}

TEST(jit_bounds_hoisted)
{
	int hoisted = 0, kept = 0;

	for (size_t i = 0; i < sizeof(packet); i++)
		packet[i] = (uint8_t)(i * 37 + 11);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct bounds_case *bc = &cases[c];
		struct jit_prog *with = NULL, *without = NULL;
		struct interp_prog *ip = NULL;
		struct bpf_insn *insns;
		char err[256];
		int64_t pair_with, pair_without;
		int n = casm_assemble(bc->src, &insns, err, sizeof(err));

		if (n < 0) {
			test_fail(__FILE__, __LINE__, "%s: %s", bc->name, err);
			continue;
		}
		REQUIRE(bc->check >= 2 && bc->check < (uint32_t)n &&
			BPF_CLASS(insns[bc->check].code) >= BPF_JMP);
		pair_with = compile(insns, n, bc, 1, &with);
		pair_without = compile(insns, n, bc, 0, &without);
		if (pair_with < 0 || pair_without < 0 ||
		    interp_prepare(insns, (uint32_t)n, &interp_case_env, &ip)) {
			CHECK(0);
			goto next;
		}
		if (pair_without <= 0 || (bc->hoisted ? pair_with != 0 : pair_with != pair_without))
			test_fail(__FILE__, __LINE__,
				  "%s: the sum takes %lld bytes (%lld without the fact)", bc->name,
				  (long long)pair_with, (long long)pair_without);
		hoisted += bc->hoisted && !pair_with;
		kept += !bc->hoisted && pair_with == pair_without;
		/* (THREE_CHECKS: the first two) */
		CHECK_EQ(jit_hoisted_checks(with), bc->facts ? 2u : (uint32_t)bc->hoisted);
		CHECK_EQ(jit_hoisted_checks(without), 0);
		for (int len = 0; len <= 41; len++) {
			for (int shift = 0; shift <= 1; shift++) {
				uint64_t args[5] = {(uint64_t)(uintptr_t)(packet + shift),
						    (uint64_t)(uintptr_t)(packet + shift + len)};
				uint64_t ir0 = 1, wr0 = 2, nr0 = 3;
				int ie = interp_exec(ip, args, &ir0);
				int we = jit_exec(with, args, &wr0);
				int ne = jit_exec(without, args, &nr0);

				if (ie || we || ne || ir0 != wr0 || ir0 != nr0)
					test_fail(__FILE__, __LINE__,
						  "%s len %d: interp %d %#llx, fact %d %#llx, "
						  "none %d %#llx", bc->name, len, ie,
						  (unsigned long long)ir0, we,
						  (unsigned long long)wr0, ne,
						  (unsigned long long)nr0);
			}
		}
next:
		interp_free(ip);
		jit_free(with);
		jit_free(without);
		free(insns);
	}
	CHECK_EQ(hoisted, 13);
	CHECK_EQ(kept, 11);
}

#endif /* __x86_64__ */

#define XDP_OFF(f) ((short)offsetof(struct xdp_md, f))
#ifdef __x86_64__
#define JIT_HERE 1u
#else
#define JIT_HERE 0u
#endif
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Whether userbpf's verifier gave the jump at slot i of the loaded program fd the fact. */
static int has_fact(int fd, uint32_t i)
{
	struct bpf_prog *prog = prog_struct_of_fd(fd);

	if (!prog) {
		test_fail(__FILE__, __LINE__, "fd %d: no program", fd);
		return -1;
	}
	return prog->pkt_cmp && ((prog->pkt_cmp[i / 8] >> (i % 8)) & 1);
}

/* How many checks the JIT code of userbpf's program fd compares with a hoisted bound. */
static uint32_t hoisted_checks(int fd)
{
	struct bpf_prog *prog = prog_struct_of_fd(fd);

	return prog && prog->jit ? jit_hoisted_checks(prog->jit) : 0;
}

/* r2 = data, r3 = data_end, r4 = rx_queue_index (a u32) */
#define XDP_PTRS                                                                                  \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, XDP_OFF(data)),                                  \
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data_end)),                      \
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, XDP_OFF(rx_queue_index))

TEST(jit_bounds_verifier_fact)
{
	/* slot 7 compares r2 with r3: packet pointers on one way in, and on the other r5 or (with
	 * the scalars) r2 and r3 rewritten to 1 and 2 */
#define JOIN(a, b)                                                                                \
	{BPF_MOV64_IMM(BPF_REG_0, 1), XDP_PTRS, BPF_JMP_IMM(BPF_JEQ, BPF_REG_4, 0, 2),           \
	 BPF_MOV64_IMM(a, 1), BPF_MOV64_IMM(b, 2), BPF_JMP_REG(BPF_JGT, BPF_REG_2, BPF_REG_3, 1),  \
	 BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN()}
	static const struct bpf_insn pkt_only[] = JOIN(BPF_REG_5, BPF_REG_5);
	static const struct bpf_insn scalars_too[] = JOIN(BPF_REG_2, BPF_REG_3);
#undef JOIN
	/* slot 8 compares r2 + 2 with r3, r2 moved by r4 masked to a byte, or shifted up to 2^63 */
#define MOVED(op, k)                                                                              \
	{BPF_MOV64_IMM(BPF_REG_0, 1), XDP_PTRS, BPF_ALU64_IMM(op, BPF_REG_4, k),                  \
	 BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_4), BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),        \
	 BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 2), BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_3, 1),      \
	 BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN()}
	static const struct bpf_insn near[] = MOVED(BPF_AND, 0xff);
	static const struct bpf_insn far[] = MOVED(BPF_LSH, 31);
#undef MOVED
	static const struct {
		const struct bpf_insn *insns;
		uint32_t n, slot;
		int fact;
	} progs[] = {
	    {pkt_only, N(pkt_only), 7, 1},
	    {scalars_too, N(scalars_too), 7, 0},
	    {near, N(near), 8, 1},
	    {far, N(far), 8, 0},
	};

	for (size_t i = 0; i < N(progs); i++) {
		int fd = side_prog_load(U, BPF_PROG_TYPE_XDP, progs[i].insns, progs[i].n);

		REQUIRE(fd >= 0);
		CHECK_EQ(has_fact(fd, progs[i].slot), progs[i].fact);
		CHECK_EQ(has_fact(fd, 4), 0); /* a jump on an immediate, or an ALU op */
		close(fd);
	}
}

/* The loops of bench's csum1500 (hand-written, counted), clang's (folded index, a 32-bit
 * count) and the end compared first, summing the packet's 16-bit words. */
#define CSUM_FOLD                                                                                 \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 16),              \
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),                                        \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()
static const struct bpf_insn xdp_csum[] = {
    XDP_PTRS,
    BPF_MOV64_IMM(BPF_REG_0, 0),
    BPF_MOV64_IMM(BPF_REG_4, 0),
    BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 2),
    BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_3, 5),
    BPF_LDX_MEM(BPF_H, BPF_REG_6, BPF_REG_2, 0),
    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 2),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
    BPF_JMP_IMM(BPF_JLT, BPF_REG_4, 750, -8),
    CSUM_FOLD,
};
static const struct bpf_insn xdp_csum_cc[] = {
    XDP_PTRS,
    BPF_MOV64_IMM(BPF_REG_4, 0),
    BPF_MOV64_IMM(BPF_REG_0, 0),
    BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),
    BPF_ALU64_REG(BPF_ADD, BPF_REG_5, BPF_REG_4),
    BPF_MOV64_REG(BPF_REG_1, BPF_REG_5),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 2),
    BPF_JMP_REG(BPF_JGT, BPF_REG_1, BPF_REG_3, 4),
    BPF_LDX_MEM(BPF_H, BPF_REG_5, BPF_REG_5, 0),
    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 2),
    BPF_JMP32_IMM(BPF_JNE, BPF_REG_4, 1500, -9),
    CSUM_FOLD,
};
static const struct bpf_insn xdp_csum_end_first[] = {
    XDP_PTRS,
    BPF_MOV64_IMM(BPF_REG_0, 0),
    BPF_MOV64_IMM(BPF_REG_4, 0),
    BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 3),
    BPF_JMP_REG(BPF_JLE, BPF_REG_3, BPF_REG_5, 5),
    BPF_LDX_MEM(BPF_H, BPF_REG_6, BPF_REG_2, 1),
    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 2),
    BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
    BPF_JMP_IMM(BPF_JLT, BPF_REG_4, 750, -8),
    CSUM_FOLD,
};

TEST(diff_jit_bounds)
{
	static const struct {
		const char *name;
		const struct bpf_insn *insns;
		uint32_t n, check;
	} progs[] = {
	    {"csum", xdp_csum, N(xdp_csum), 7},
	    {"clang's csum", xdp_csum_cc, N(xdp_csum_cc), 9},
	    {"end first", xdp_csum_end_first, N(xdp_csum_end_first), 7},
	};
	static uint8_t pkt[1500];
	int compared = 0;

	if (!kernel_bpf_available()) {
		test_skip("the kernel's bpf() is unavailable: %s", kernel_bpf_unavailable_reason());
		return;
	}
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 131 + 7);
	for (size_t p = 0; p < N(progs); p++) {
		int kfd = side_prog_load(K, BPF_PROG_TYPE_XDP, progs[p].insns, progs[p].n);
		int was = userbpf_set_jit(1);
		int jfd = side_prog_load(U, BPF_PROG_TYPE_XDP, progs[p].insns, progs[p].n);
		int ifd;

		userbpf_set_jit(0);
		ifd = side_prog_load(U, BPF_PROG_TYPE_XDP, progs[p].insns, progs[p].n);
		userbpf_set_jit(was);
		if (kfd < 0 || jfd < 0 || ifd < 0) {
			test_fail(__FILE__, __LINE__, "%s: load kernel %d, jit %d, interpreter %d",
				  progs[p].name, kfd, jfd, ifd);
			goto next;
		}
		CHECK_EQ(has_fact(jfd, progs[p].check), 1);
		/* (no JIT on i386: none there) */
		CHECK_EQ(hoisted_checks(jfd), JIT_HERE);
		CHECK_EQ(hoisted_checks(ifd), 0);
		for (uint32_t len = 14; len <= 85; len++) { /* (XDP takes 14 bytes at least) */
			uint32_t l = len == 85 ? 1500 : len, kr = 1, jr = 2, ir = 3;
			int ke = side_test_run(K, kfd, pkt, l, &kr).err;
			int je = side_test_run(U, jfd, pkt, l, &jr).err;
			int ie = side_test_run(U, ifd, pkt, l, &ir).err;

			if (ke || je || ie || kr != jr || kr != ir)
				test_fail(__FILE__, __LINE__,
					  "%s, %u bytes: kernel %d %#x, jit %d %#x, "
					  "interpreter %d %#x",
					  progs[p].name, l, ke, kr, je, jr, ie, ir);
			compared += !ke;
		}
next:
		if (kfd >= 0)
			close(kfd);
		if (jfd >= 0)
			close(jfd);
		if (ifd >= 0)
			close(ifd);
	}
	CHECK_EQ(compared, 3 * 72);
}
