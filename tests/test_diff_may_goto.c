/* may_goto (BPF_JMP | BPF_JCOND, src_reg BPF_MAY_GOTO: the instruction libbpf's can_loop and
 * cond_break emit, 6.9+) against the kernel: a conditional jump the verifier walks both ways,
 * the fall-through a round deeper, whose loops converge when a round brings nothing new; at run
 * time it jumps once its frame's budget is spent.
 *
 * diff_may_goto_verifier: loops (with and without their own bound, nested, in a subprogram, a
 * call in one, over the stack), a jump to the next instruction and to itself, and the refusals
 * (reserved fields, JMP32, out of range, an unsafe later round) give the kernel's verdict and
 * whole level-2 log.
 * diff_may_goto_runs: the accepted programs' results on a packet, JIT-compiled and interpreted,
 * are the kernel's where their own bounds end the loops; where only may_goto does, the budget
 * is the kernel's as its interpreter spends it (BPF_MAX_LOOPS = 8388608 rounds per call of the
 * function, userbpf's JIT and interpreter alike: the kernel's JIT bounds time instead, 250 ms, so
 * its count depends on the machine and is only checked to be positive).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define MAY_GOTO(off) BPF_RAW_INSN(BPF_JMP | 0xe0, 0, 0, off, 0)
#define RET BPF_EXIT_INSN()
#define MAX_LOOPS 8388608 /* the kernel's BPF_MAX_LOOPS */

struct mg_case {
	const char *name;
	int32_t want;		/* the result where the program's own bound ends it; ENDLESS: the
				 * budget ends it, and the result counts its rounds */
	uint32_t budgets;	/* ENDLESS: the result, in budgets of MAX_LOOPS rounds */
	struct bpf_insn insns[40];
};

#define ENDLESS (-1)
#define REFUSED (-2)

static const struct mg_case cases[] = {
	/* r0 counts rounds until the budget is spent */
	{ "count", ENDLESS, 1, { BPF_MOV64_IMM(BPF_REG_0, 0), MAY_GOTO(2),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_JMP_A(-3), RET } },
	/* its own bound first: 100 rounds */
	{ "bounded", 100, 0, { BPF_MOV64_IMM(BPF_REG_0, 0), MAY_GOTO(2),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_JMP_IMM(BPF_JLT, BPF_REG_0, 100, -3),
	  RET } },
	/* the counter spilled to the stack and read back each round */
	{ "stack_counter", 50, 0, { BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), MAY_GOTO(5),
	  BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	  BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	  BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 50, -5), BPF_JMP_A(0),
	  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8), RET } },
	/* bytes of the stack summed, the index bounded by a mask only */
	{ "stack_index", 0x1c, 0, { BPF_LD_IMM64(BPF_REG_1, 0x0706050403020100ll),
	  BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	  BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, 0), MAY_GOTO(9),
	  BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 7),
	  BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	  BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2),
	  BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_3, 0), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1), BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 8, -10), RET } },
	/* two loops, one in the other: 10 * 10 */
	{ "nested", 100, 0, { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, 0),
	  MAY_GOTO(7), BPF_MOV64_IMM(BPF_REG_2, 0), MAY_GOTO(3),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
	  BPF_JMP_IMM(BPF_JLT, BPF_REG_2, 10, -4), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	  BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 10, -8), RET } },
	/* in a subprogram called twice: each call its own budget */
	{ "subprog_twice", ENDLESS, 2, { BPF_CALL_REL(4), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	  BPF_CALL_REL(2), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6), RET,
	  BPF_MOV64_IMM(BPF_REG_0, 0), MAY_GOTO(2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	  BPF_JMP_A(-3), RET } },
	/* the caller's budget is its own: a call in its loop does not reset it */
	{ "call_in_loop", ENDLESS, 1, { BPF_MOV64_IMM(BPF_REG_6, 0), MAY_GOTO(3), BPF_CALL_REL(4),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1), BPF_JMP_A(-4), BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
	  RET, BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	/* a jump to the next instruction: either way the same */
	{ "next", 7, 0, { BPF_MOV64_IMM(BPF_REG_0, 7), MAY_GOTO(0), RET } },
	/* to itself: the kernel takes it for an infinite loop */
	{ "self", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 3), MAY_GOTO(-1), RET } },
	/* refusals */
	{ "imm", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0),
	  BPF_RAW_INSN(BPF_JMP | 0xe0, 0, 0, 1, 5),
	  RET, RET } },
	{ "dst_reg", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0),
	  BPF_RAW_INSN(BPF_JMP | 0xe0, 1, 0, 1, 0), RET, RET } },
	{ "src_reg", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0),
	  BPF_RAW_INSN(BPF_JMP | 0xe0, 0, 1, 1, 0), RET, RET } },
	{ "jmp32", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0),
	  BPF_RAW_INSN(BPF_JMP32 | 0xe0, 0, 0, 1, 0), RET, RET } },
	{ "src_x", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0),
	  BPF_RAW_INSN(BPF_JMP | 0xe0 | BPF_X, 0, 0, 1, 0), RET, RET } },
	{ "out_of_range", REFUSED, 0, { BPF_MOV64_IMM(BPF_REG_0, 0), MAY_GOTO(10), RET } },
	{ "into_subprog", REFUSED, 0, { BPF_CALL_REL(2), MAY_GOTO(2), RET,
	  BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	/* later rounds walk off the stack */
	{ "unsafe_round", REFUSED, 0, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_MOV64_IMM(BPF_REG_0, 0), MAY_GOTO(3), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
	  BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 0), BPF_JMP_A(-4), RET } },
	/* r0 unset on the way out of the loop */
	{ "r0_unset", REFUSED, 0, { MAY_GOTO(2), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(-3),
	  RET } },
};

TEST(diff_may_goto_verifier)
{
	static char log[NSIDES][1 << 20];
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct bpf_result r[NSIDES];
		uint32_t n = insns_used(cases[c].insns, 40);

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_prog_load_level(s, BPF_PROG_TYPE_SOCKET_FILTER, 0,
						    cases[c].insns, n, log[s], sizeof(log[s]), 2);
		if (AGREE(cases[c].name, r))
			LOGS_SAME(cases[c].name, log[K], log[U]);
		if (getenv("TEST_VERBOSE") && r[K].rc < 0)
			printf("  %s: %s\n", cases[c].name, log_error_line(log[K]) ?: "?");
		if ((r[K].rc >= 0) != (cases[c].want != REFUSED))
			test_fail(__FILE__, __LINE__, "%s: the kernel %s it", cases[c].name,
				  r[K].rc >= 0 ? "accepts" : "refuses");
		accepted += r[K].rc >= 0;
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	printf("diff_may_goto_verifier: %zu programs (%d accepted) with the kernel's verdicts and "
	       "level-2 logs\n", sizeof(cases) / sizeof(*cases), accepted);
}

TEST(diff_may_goto_runs)
{
	static const uint8_t pkt[64] = { 1, 2, 3 };
	int runs = 0, endless = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		const struct mg_case *mc = &cases[c];
		uint32_t n = insns_used(mc->insns, 40), ret;
		int kfd = -1;

		if (mc->want == REFUSED)
			continue;
		if (kernel_bpf_available()) {
			kfd = side_prog_load(K, BPF_PROG_TYPE_SOCKET_FILTER, mc->insns, n);
			CHECK(kfd >= 0);
		}
		if (kfd >= 0) {
			struct bpf_result k = side_test_run(K, kfd, pkt, sizeof(pkt), &ret);

			CHECK_EQ(k.rc, 0);
			/* the kernel's JIT spends its budget by time: any positive count */
			if (mc->want == ENDLESS ? (int32_t)ret <= 0 : (int32_t)ret != mc->want)
				test_fail(__FILE__, __LINE__, "%s: the kernel returns %u", mc->name,
					  ret);
			close(kfd);
		}
		for (int jit = 1; jit >= 0; jit--) {
			int was = userbpf_set_jit(jit);
			int fd = side_prog_load(U, BPF_PROG_TYPE_SOCKET_FILTER, mc->insns, n);
			uint32_t want = mc->want == ENDLESS ? mc->budgets * MAX_LOOPS
							    : (uint32_t)mc->want;

			userbpf_set_jit(was);
			REQUIRE(fd >= 0);
			ret = 0xdeadbeef;
			CHECK_EQ(side_test_run(U, fd, pkt, sizeof(pkt), &ret).rc, 0);
			if (ret != want)
				test_fail(__FILE__, __LINE__, "%s (%s): userbpf returns %u, not %u",
					  mc->name, jit ? "JIT" : "interpreter", ret, want);
			/* a second run's budget is whole again */
			CHECK_EQ(side_test_run(U, fd, pkt, sizeof(pkt), &ret).rc, 0);
			CHECK_EQ(ret, want);
			close(fd);
			runs++;
		}
		endless += mc->want == ENDLESS;
	}
	printf("diff_may_goto_runs: %d runs of %d programs (%d ended by their budget) with the "
	       "kernel's results\n", runs, runs / 2, endless);
	CHECK_EQ(runs, 16);
}
