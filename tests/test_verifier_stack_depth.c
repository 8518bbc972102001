/* Verifier: the combined stack depth of chains of calls (the kernel's check_max_stack_depth()),
 * which the kernel checks after verification over every call the code holds, reachable or not:
 * bpf-to-bpf calls and callbacks of bpf_loop() (which run below the frame that names them),
 * with each frame rounded to 16 bytes; no subprogram with a tail call below 256 bytes of frames;
 * (6.12's private stacks for tracing programs' frames are not in the live 6.18.44 kernel: their
 * frames add up too; nor is its refusal of LD_ABS in a callback's code that is never walked.)
 * With BTF func info, a subprogram may hold a tail call or LD_ABS if it returns an integer; no
 * callback may hold one or call one that does (6.18.44). */
#include "test.h"
#include "verifier_harness.h"

#define PCALL(off) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, off)
#define FUNC(R, OFF) BPF_LD_IMM64_RAW(R, BPF_PSEUDO_FUNC, OFF)
#define LOOP BPF_EMIT_CALL(BPF_FUNC_loop)
#define ST(off) BPF_ST_MEM(BPF_DW, 10, off, 0)
/* r1 = 1 round, r2 = the callback OFF instructions after the LD_IMM64's second half, r3 = r4 =
 * 0, bpf_loop() (7 instructions) */
#define LOOP_CALL(OFF) BPF_MOV64_IMM(1, 1), FUNC(2, OFF), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), LOOP
#define TAIL_CALL                                                                                \
	BPF_LD_MAP_FD(2, MAP_PROG_ARRAY), BPF_MOV64_IMM(3, 0), BPF_EMIT_CALL(BPF_FUNC_tail_call)

static const struct vcase cases[] = {
	/* main 16 calls sub1 (256) and sub2 (264); sub1's call of sub2 is dead code, yet the
	 * chain main, sub1, sub2 counts: 16 + 256 + 272 */
	{ "depth_dead_call", SOCK, {
		ST(-16), PCALL(3), PCALL(8), R0_0, EXIT,
		/* sub1 */ ST(-256), BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1), PCALL(2),
		R0_0, EXIT,
		/* sub2 */ ST(-264), R0_0, EXIT }, REJECT,
	  "combined stack size of 3 calls is 544. Too large", EACCES },
	{ "depth_dead_call_fits", SOCK, {
		ST(-16), PCALL(3), PCALL(8), R0_0, EXIT,
		ST(-224), BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1), PCALL(2), R0_0, EXIT,
		ST(-264), R0_0, EXIT }, ACCEPT },
	/* a bpf_loop() callback's frame is below main's: 256 + 272 */
	{ "depth_loop_callback", SOCK, {
		ST(-256), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ ST(-264), R0_0, EXIT }, REJECT,
	  "combined stack size of 2 calls is 528. Too large", EACCES, .funcs = true },
	{ "depth_loop_callback_fits", SOCK, {
		ST(-240), LOOP_CALL(6), R0_0, EXIT,
		ST(-264), R0_0, EXIT }, ACCEPT, .funcs = true },
	/* the callback calls a subprogram main also calls, on a path the verifier finds dead:
	 * main 32, callback 352, sub 416 (the soundness run's seed 0xbdb29 program) */
	{ "depth_callback_dead_call", SOCK, {
		ST(-32), PCALL(14), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ ST(-344), BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1),
		PCALL(2), R0_0, EXIT,
		/* sub */ ST(-408), R0_0, EXIT }, REJECT,
	  "combined stack size of 3 calls is 800. Too large", EACCES, .funcs = true },
	/* no private stacks on this kernel: a kprobe's frames add up as a socket filter's */
	{ "depth_kprobe_frames_sum", KPROBE, {
		ST(-256), PCALL(2), R0_0, EXIT,
		ST(-320), R0_0, EXIT }, REJECT,
	  "combined stack size of 2 calls is 576. Too large", EACCES },
	/* a subprogram with a tail call below 256 bytes of frames */
	{ "depth_tail_call_deep", SOCK, {
		ST(-256), PCALL(2), R0_0, EXIT,
		TAIL_CALL, R0_0, EXIT }, REJECT,
	  "tail_calls are not allowed when call stack of previous frames is 256 bytes. Too large",
	  EACCES, .funcs = true },
	{ "depth_tail_call_shallow", SOCK, {
		ST(-240), PCALL(2), R0_0, EXIT,
		TAIL_CALL, R0_0, EXIT }, ACCEPT, .funcs = true, .log_level = 2, .full_log = true },
	/* No tail call in a callback or below one, even in code never walked (6.18.44; found by
	 * the soundness run: seed 0x78c4254a, program 162488 of 6441bdd's generator) */
	{ "tail_call_in_loop_callback", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 5),
		BPF_MOV64_REG(1, 6), TAIL_CALL, R0_0, EXIT }, REJECT,
	  "cannot tail call within callback", EINVAL, .funcs = true, .full_log = true },
	{ "tail_call_in_sub_of_loop_callback", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1), PCALL(2), R0_0, EXIT,
		/* sub */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 4), TAIL_CALL, R0_0, EXIT },
	  REJECT, "cannot tail call within callback", EINVAL, .funcs = true, .log_level = 2,
	  .full_log = true },
	{ "tail_call_in_sub_called_by_main_and_callback", SOCK, {
		BPF_MOV64_REG(6, 1), BPF_MOV64_REG(1, 6), PCALL(13), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1), PCALL(2), R0_0, EXIT,
		/* sub */ TAIL_CALL, R0_0, EXIT },
	  REJECT, "cannot tail call within callback", EINVAL, .funcs = true },
	/* ... checked after the rule of 256 bytes of frames above a tail call */
	{ "tail_call_in_deep_loop_callback", SOCK, {
		ST(-256), BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 5),
		BPF_MOV64_REG(1, 6), TAIL_CALL, R0_0, EXIT }, REJECT,
	  "tail_calls are not allowed when call stack of previous frames is 256 bytes. Too large",
	  EACCES, .funcs = true },
	/* ... and after the frames' combined size (208 + 400) */
	{ "tail_call_in_big_loop_callback", SOCK, {
		ST(-200), BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ ST(-400), BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 5),
		BPF_MOV64_REG(1, 6), TAIL_CALL, R0_0, EXIT }, REJECT,
	  "combined stack size of 2 calls is 608. Too large", EACCES, .funcs = true },
	/* ... and after the chains below it */
	{ "tail_call_in_loop_callback_over_deep_sub", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ ST(-16), PCALL(9), BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 5),
		BPF_MOV64_REG(1, 6), TAIL_CALL, R0_0, EXIT,
		/* sub */ ST(-504), R0_0, EXIT }, REJECT,
	  "combined stack size of 3 calls is 528. Too large", EACCES, .funcs = true },
	/* main calls a subprogram with a tail call, then bpf_loop() with a callback that has none */
	{ "tail_call_in_sub_then_loop_callback", SOCK, {
		BPF_MOV64_REG(6, 1), BPF_MOV64_REG(1, 6), PCALL(10), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ R0_0, EXIT,
		/* sub */ TAIL_CALL, R0_0, EXIT },
	  ACCEPT, .funcs = true },
	/* the same with the callback before the subprogram in the code */
	{ "tail_call_loop_callback_then_sub", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(8), BPF_MOV64_REG(1, 6), PCALL(4), R0_0, EXIT,
		/* callback */ R0_0, EXIT,
		/* sub */ TAIL_CALL, R0_0, EXIT },
	  ACCEPT, .funcs = true },
	/* two calls below the callback */
	{ "tail_call_two_calls_below_callback", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ PCALL(2), R0_0, EXIT,
		/* sub1 */ PCALL(2), R0_0, EXIT,
		/* sub2 */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 4), TAIL_CALL, R0_0, EXIT },
	  REJECT, "cannot tail call within callback", EINVAL, .funcs = true },
	/* a callback with a tail call, then a call whose chain is too deep */
	{ "tail_call_in_loop_callback_then_deep_sub", SOCK, {
		ST(-16), BPF_MOV64_REG(6, 1), LOOP_CALL(7), PCALL(11), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 5),
		BPF_MOV64_REG(1, 6), TAIL_CALL, R0_0, EXIT,
		/* sub */ ST(-504), R0_0, EXIT }, REJECT,
	  "cannot tail call within callback", EINVAL, .funcs = true },
	/* LD_ABS in a callback's dead code: 6.18.44 takes it */
	{ "depth_ld_abs_in_callback", SOCK, {
		BPF_MOV64_REG(6, 1), LOOP_CALL(6), R0_0, EXIT,
		/* callback */ BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 1),
		BPF_LD_ABS(BPF_B, 0), R0_0, EXIT }, ACCEPT, .funcs = true },
};

TEST(verifier_stack_depth)
{
	vcase_run_table("stack depth", cases, NCASES(cases));
}
