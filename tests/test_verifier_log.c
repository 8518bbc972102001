/* Verifier: the log.  Whole logs at levels 1 and 2 compared with the kernel's for small programs
 * (instruction dump, register states, "from N to M" lines, the error, the statistics line), the
 * level-2 liveness section on its own (liveness.c: straight line, branches, loops, calls), and
 * the log attribute rules of BPF_PROG_LOAD (EINVAL combinations, ENOSPC truncation in rotating
 * and BPF_LOG_FIXED modes, log_true_size), each through bpf() on both sides. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test.h"
#include "userbpf.h"
#include "verifier_harness.h"

#define L1 .full_log = true, .log_level = 1
#define L2 .full_log = true, .log_level = 2

static const struct vcase cases[] = {
	{ "log1_ret42", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, L1 },
	{ "log2_ret42", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, L2 },
	{ "log1_uninit_r0", SOCK, { EXIT }, REJECT, "R0 !read_ok", EACCES, L1 },
	{ "log2_uninit_r0", SOCK, { EXIT }, REJECT, "R0 !read_ok", EACCES, L2 },
	{ "log1_alu_chain", SOCK, { BPF_MOV64_IMM(0, 1), BPF_MOV32_IMM(1, -1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 41), BPF_ALU64_REG(BPF_MUL, 0, 1), BPF_ALU32_IMM(BPF_RSH, 1, 4),
	  BPF_ALU64_IMM(BPF_NEG, 0, 0), BPF_ENDIAN(BPF_TO_BE, 0, 16), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_IMM(BPF_ADD, 2, -16), EXIT }, ACCEPT, L2 },
	/* 6.18 prints a number in decimal when it fits in an s16, else in hex: constants and
	 * range bounds on both sides of the edges */
	{ "log2_number_format", SOCK, { BPF_MOV64_IMM(0, 32767), BPF_MOV64_IMM(0, 32768),
	  BPF_MOV64_IMM(0, -32768), BPF_MOV64_IMM(0, -32769), BPF_MOV64_IMM(0, 513),
	  BPF_LDX_MEM(BPF_W, 0, 1, 0), BPF_ALU64_IMM(BPF_AND, 0, 1023),
	  BPF_ALU64_IMM(BPF_SUB, 0, 511), BPF_LDX_MEM(BPF_W, 0, 1, 0),
	  BPF_ALU64_IMM(BPF_AND, 0, 0xffff), BPF_ALU64_IMM(BPF_SUB, 0, 32767),
	  BPF_LDX_MEM(BPF_W, 0, 1, 0), BPF_ALU64_IMM(BPF_AND, 0, 0x7ffff),
	  BPF_ALU64_IMM(BPF_SUB, 0, 0x3ffff), R0_0, EXIT }, ACCEPT, L2 },
	{ "log2_branches", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0), R0_0,
	  BPF_JMP_IMM(BPF_JGT, 2, 10, 2), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_A(1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 2), EXIT }, ACCEPT, L2 },
	/* a store into the caller's frame shows the current frame's slot of that index in the
	 * state line (6.18 marks slots scratched by index): the callee's fp-8, then its fp-16
	 * after a helper writes the caller's fp-16 */
	{ "log2_store_into_caller_frame", SOCK, { BPF_MOV64_REG(6, 1), BPF_MOV64_REG(1, 10),
	  BPF_ALU64_IMM(BPF_ADD, 1, -16), BPF_MOV64_REG(2, 6), BPF_CALL_REL(2), R0_0, EXIT,
	  BPF_ST_MEM(BPF_DW, 10, -8, 7), BPF_ST_MEM(BPF_DW, 10, -16, 9), BPF_MOV64_REG(3, 1),
	  BPF_ST_MEM(BPF_DW, 3, 8, 1), BPF_MOV64_REG(1, 2), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_IMM(4, 8), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), R0_0, EXIT }, ACCEPT, L2 },
	/* a pruning match propagates only what 6.18 keeps of the old state: the fallback that
	 * forces every scalar precise (backtracking into an LD_ABS) marks the spilled fp-16 and
	 * r9 too, which no path reads again: dead, cleaned away, so the other branch pruned at
	 * the join propagates r0 alone */
	{ "log2_propagate_live_only", SOCK, { BPF_MOV64_REG(6, 1), BPF_LDX_MEM(BPF_W, 9, 6, 0),
	  BPF_STX_MEM(BPF_DW, 10, 9, -16), BPF_LD_ABS(BPF_B, 0), BPF_ALU64_IMM(BPF_AND, 0, 15),
	  BPF_LDX_MEM(BPF_W, 2, 6, 4), BPF_JMP_IMM(BPF_JGT, 2, 3, 1), BPF_MOV64_IMM(3, 0),
	  BPF_MOV64_REG(2, 0), BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -48),
	  BPF_MOV64_IMM(3, 0), BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel), R0_0, EXIT }, ACCEPT,
	  L2, .prog_flags = BPF_F_TEST_STATE_FREQ },
	/* an LD_ABS in a subprogram may end the program: 6.18 walks a return with r0 = 0 first,
	 * then the load that succeeded */
	{ "log2_ld_abs_in_subprog", SOCK, { BPF_CALL_REL(1), EXIT, BPF_MOV64_REG(6, 1),
	  BPF_LD_ABS(BPF_B, 0), BPF_ALU64_IMM(BPF_ADD, 0, 1), EXIT }, ACCEPT, L2, .funcs = true },
	{ "log1_branch_error", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_JMP_IMM(BPF_JGT, 2, 10, 2),
	  R0_0, EXIT, BPF_LDX_MEM(BPF_W, 0, 2, 0), EXIT }, REJECT, "R2 invalid mem access 'scalar'",
	  EACCES, L1 },
	/* a load shows the slot it read: spilled, misc, zero, a part of one */
	{ "log2_stack_reads", SOCK, { BPF_ST_MEM(BPF_DW, 10, -8, 7), BPF_ST_MEM(BPF_W, 10, -12, 1),
	  BPF_ST_MEM(BPF_W, 10, -16, 0), BPF_LDX_MEM(BPF_W, 6, 1, 0),
	  BPF_STX_MEM(BPF_W, 10, 6, -24), BPF_LDX_MEM(BPF_W, 6, 10, -24), BPF_MOV64_IMM(0, 0),
	  BPF_STX_MEM(BPF_DW, 10, 0, -32),
	  BPF_LDX_MEM(BPF_W, 2, 10, -12), BPF_LDX_MEM(BPF_W, 3, 10, -16),
	  BPF_LDX_MEM(BPF_B, 4, 10, -8), BPF_LDX_MEM(BPF_W, 5, 10, -32), R0_0, EXIT }, ACCEPT,
	  L2 },
	{ "log1_stack", SOCK, { BPF_ST_MEM(BPF_DW, 10, -8, 7), BPF_STX_MEM(BPF_DW, 10, 1, -16),
	  BPF_ST_MEM(BPF_W, 10, -20, 0), BPF_LDX_MEM(BPF_DW, 0, 10, -8), EXIT }, ACCEPT, L2 },
	{ "log1_map_lookup", SOCK, { LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 0, 0, 0), EXIT }, ACCEPT, L2 },
	{ "log1_map_oob", SOCK, { LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 0, 0, 4), EXIT }, REJECT,
	  "R0 min value is outside of the allowed memory range", EACCES, L1 },
	/* the callee's first line shows its initialised registers and R10 */
	{ "log2_subprog_args", SOCK, { BPF_MOV64_IMM(1, 5), BPF_MOV64_IMM(3, 7),
	  BPF_MOV64_IMM(2, 600), BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1), EXIT,
	  BPF_MOV64_REG(0, 1), BPF_ALU64_REG(BPF_ADD, 0, 2), EXIT }, ACCEPT, L2 },
	{ "log2_subprog", SOCK, { BPF_MOV64_IMM(1, 5),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1), EXIT, BPF_MOV64_REG(0, 1),
	  EXIT }, ACCEPT, L2 },
	{ "log2_pkt", XDP, { BPF_LDX_MEM(BPF_W, 2, 1, XDPM(data)),
	  BPF_LDX_MEM(BPF_W, 3, 1, XDPM(data_end)), BPF_MOV64_REG(4, 2),
	  BPF_ALU64_IMM(BPF_ADD, 4, 14), BPF_JMP_REG(BPF_JGT, 4, 3, 2),
	  BPF_LDX_MEM(BPF_H, 0, 2, 12), EXIT, R0_0, EXIT }, ACCEPT, L2 },
	{ "log1_cfg_error", SOCK, { BPF_MOV64_IMM(0, 1), BPF_JMP_A(5), EXIT }, REJECT,
	  "jump out of range from insn 1 to 7", EINVAL, L1 },
	{ "log2_ldimm64", SOCK, { BPF_LD_IMM64(0, 0x123456789ULL), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  EXIT }, ACCEPT, L2 },
	{ "log2_helper", SOCK, { BPF_MOV64_IMM(6, 3), BPF_EMIT_CALL(BPF_FUNC_ktime_get_ns),
	  BPF_ALU64_REG(BPF_ADD, 0, 6), EXIT }, ACCEPT, L2 },
	{ "log1_loop", SOCK, { BPF_MOV64_IMM(0, 0), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 4, -2), EXIT }, ACCEPT, L2 },
	/* a loop inside a subprogram: the SCC is named by its call chain, "(1,1)" */
	{ "log2_loop_in_subprog", SOCK, { BPF_MOV64_IMM(1, 0),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1), EXIT, BPF_MOV64_IMM(0, 0),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JLT, 0, 3, -2), EXIT }, ACCEPT, L2 },
	{ "log1_infinite_loop", SOCK, { BPF_MOV64_IMM(0, 0), BPF_JMP_IMM(BPF_JEQ, 0, 0, -1), EXIT },
	  REJECT, "old state: R0=P0 R1=ctx() R10=fp0", EINVAL, L1, },
	{ "log1_stats", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, .full_log = true,
	  .log_level = 4,
	  .known = "level 4 prints the verification time, which differs run to run" },
};

/* ---- the checkpoint policy: which states are kept at prune points, seen on the processed line
 * (total_states, peak_states, max_states_per_insn), in the "from N to M: safe" lines and in how
 * many loop iterations are walked before an infinite loop is reported ---- */

#define LDLEN BPF_LDX_MEM(BPF_W, 2, 1, 0) /* r2 = skb->len: unknown */
#define JA0 BPF_JMP_A(0)
#define STATS .stats = true, .log_level = 1

static const struct vcase ckpt_cases[] = {
	/* diamonds of 3 insns: a prune point every few insns, a state only every 2 jumps + 8 insns */
	{ "ckpt_diamonds", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 1, 1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JGT, 2, 2, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JGT, 2, 3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JGT, 2, 4, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), R0_0, EXIT }, ACCEPT, L1 },
	/* level 2: the states pruned against (registers dead at the join are ignored) */
	{ "ckpt_diamonds_l2", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 1, 1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JGT, 2, 2, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JGT, 2, 3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), R0_0, EXIT }, ACCEPT, L2, },
	/* BPF_F_TEST_STATE_FREQ: a state at every prune point */
	{ "ckpt_state_freq", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 1, 1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JGT, 2, 2, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JGT, 2, 3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), R0_0, EXIT }, ACCEPT, L1,
	  .prog_flags = BPF_F_TEST_STATE_FREQ },
	{ "ckpt_state_freq_l2", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 1, 1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_A(0), R0_0, EXIT }, ACCEPT, L2,
	  .prog_flags = BPF_F_TEST_STATE_FREQ },
	/* jumps alone: a chain of "goto +0" (each target a prune point) */
	{ "ckpt_goto_chain", SOCK, { R0_0, JA0, JA0, JA0, JA0, JA0, JA0, JA0, JA0, JA0, JA0, JA0,
	  EXIT }, ACCEPT, L1 },
	/* 7 insns and many jumps, then 8 */
	{ "ckpt_goto_chain_7", SOCK, { R0_0, JA0, JA0, JA0, JA0, JA0, JA0, EXIT }, ACCEPT, L1 },
	{ "ckpt_goto_chain_8", SOCK, { R0_0, JA0, JA0, JA0, JA0, JA0, JA0, JA0, EXIT }, ACCEPT, L1 },
	/* many insns, one jump before the prune point */
	{ "ckpt_one_jump", SOCK, { LDLEN, R0_0, R0_0, R0_0, R0_0, R0_0, R0_0, R0_0, R0_0, R0_0,
	  BPF_JMP_IMM(BPF_JGT, 2, 1, 1), R0_0, R0_0, EXIT }, ACCEPT, L1 },
	/* bounded loops: inside a loop a state only every 20 jumps or 100 insns */
	{ "ckpt_loop_30", SOCK, { R0_0, BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 30, -2), EXIT }, ACCEPT, L1 },
	{ "ckpt_loop_300", SOCK, { R0_0, BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 300, -2), EXIT }, ACCEPT, L1 },
	/* 9 insns a turn: 100 insns come before 20 jumps */
	{ "ckpt_loop_long_body", SOCK, { R0_0, BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_MOV64_IMM(3, 1),
	  BPF_MOV64_IMM(3, 2), BPF_MOV64_IMM(3, 3), BPF_MOV64_IMM(3, 4), BPF_MOV64_IMM(3, 5),
	  BPF_MOV64_IMM(3, 6), BPF_JMP_IMM(BPF_JLT, 0, 80, -8), EXIT }, ACCEPT, L1 },
	/* a loop with an unknown branch inside: pending paths, pruning against finished ones */
	{ "ckpt_loop_branch", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 5, 1),
	  BPF_MOV64_IMM(3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JLT, 0, 10, -4),
	  EXIT }, ACCEPT, L1 },
	{ "ckpt_loop_branch_50", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 5, 1),
	  BPF_MOV64_IMM(3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JLT, 0, 50, -4),
	  EXIT }, ACCEPT, L1 },
	/* evicted states still being walked count in peak_states until their paths end */
	{ "ckpt_loop_branch_400", SOCK, { LDLEN, R0_0, BPF_JMP_IMM(BPF_JGT, 2, 5, 1),
	  BPF_MOV64_IMM(3, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JLT, 0, 400, -4),
	  EXIT }, ACCEPT, L1 },
	/* infinite loops: reported when the state repeats one kept while it is still walked */
	{ "ckpt_inf_loop_body", SOCK, { R0_0, BPF_MOV64_IMM(1, 1), BPF_MOV64_IMM(2, 2),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, -3), EXIT }, REJECT, NULL, EINVAL, STATS },
	{ "ckpt_inf_loop_goto", SOCK, { R0_0, BPF_MOV64_IMM(1, 1), BPF_JMP_A(-2) }, REJECT,
	  "old state: R0=0 R1=1 R10=fp0", EINVAL, L1 },
	{ "ckpt_inf_loop_unknown", SOCK, { LDLEN, BPF_MOV64_IMM(0, 1), BPF_ALU64_IMM(BPF_AND, 2, 1),
	  BPF_JMP_IMM(BPF_JLT, 2, 2, -2), EXIT }, REJECT, NULL, EINVAL, STATS },
	/* an infinite loop whose state settles only after some iterations */
	{ "ckpt_inf_loop_settle", SOCK, { R0_0, BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_ALU64_IMM(BPF_AND, 0, 0), BPF_MOV64_IMM(3, 7), BPF_JMP_A(-4) }, REJECT,
	  "old state: R0=0 R1=ctx() R3=7 R10=fp0", EINVAL, L1 },
	/* subprograms: explored states hash by insn ^ callsite into prog-len buckets */
	{ "ckpt_subprog_twice", SOCK, { LDLEN, BPF_MOV64_REG(7, 2), BPF_MOV64_REG(1, 7),
	  BPF_CALL_REL(5), BPF_MOV64_REG(6, 0), BPF_MOV64_REG(1, 7), BPF_CALL_REL(2),
	  BPF_ALU64_REG(BPF_ADD, 0, 6), EXIT, R0_0, BPF_JMP_IMM(BPF_JGT, 1, 1, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JGT, 1, 2, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_A(0), R0_0, EXIT },
	  ACCEPT, L1 },
};

/* ---- the level-2 liveness section ("Live regs before insn:"), compared on its own ---- */

#define LIVE .live_regs = true, .log_level = 2
#define MOV(r, v) BPF_MOV64_IMM(r, v)
#define ADDR(d, s) BPF_ALU64_REG(BPF_ADD, d, s)

static const struct vcase live_cases[] = {
	/* straight line: every register R0..R9 live at once, R10 read but never shown */
	{ "live_straight", SOCK, { MOV(0, 0), MOV(1, 0), MOV(2, 0), MOV(3, 0), MOV(4, 0),
	  MOV(5, 0), MOV(6, 0), MOV(7, 0), MOV(8, 0), MOV(9, 0), ADDR(0, 1), ADDR(0, 2),
	  ADDR(0, 3), ADDR(0, 4), ADDR(0, 5), ADDR(0, 6), ADDR(0, 7), ADDR(0, 8), ADDR(0, 9),
	  BPF_ALU64_REG(BPF_MOV, 1, 10), EXIT }, ACCEPT, LIVE },
	/* what ALU forms read: MOV reads only its source (also itself), NEG / bswap read dst */
	{ "live_alu_forms", SOCK, { MOV(0, 1), BPF_MOV32_REG(0, 0), BPF_ALU64_IMM(BPF_NEG, 0, 0),
	  BPF_ENDIAN(BPF_TO_BE, 0, 16), MOV(2, 0), BPF_MOV64_REG(2, 2), MOV(3, 7),
	  BPF_ALU32_IMM(BPF_LSH, 3, 1), BPF_ALU64_REG(BPF_SUB, 0, 3), EXIT }, ACCEPT, LIVE },
	/* both arms of a branch join; the fall-through arm ends with a goto */
	{ "live_branches", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0), MOV(0, 0), MOV(4, 1),
	  BPF_JMP_REG(BPF_JGT, 2, 4, 2), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_A(2),
	  MOV(5, 3), ADDR(0, 5), EXIT }, ACCEPT, LIVE },
	/* a bounded loop: the loop's registers stay live around the back edge; loop number 1 */
	{ "live_loop", SOCK, { MOV(0, 0), MOV(3, 0), MOV(4, 9), ADDR(0, 3),
	  BPF_ALU64_IMM(BPF_ADD, 3, 1), BPF_JMP_REG(BPF_JLT, 3, 4, -3), EXIT }, ACCEPT, LIVE },
	/* two loops after a branch: numbered in the order the kernel's walk completes them */
	{ "live_two_loops", SOCK, { MOV(0, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 3),
	  BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_IMM(BPF_JLT, 0, 4, -2), EXIT,
	  BPF_ALU64_IMM(BPF_ADD, 0, 2), BPF_JMP_IMM(BPF_JLT, 0, 4, -2), EXIT }, ACCEPT, LIVE },
	/* nested loops form one component */
	{ "live_nested_loops", SOCK, { MOV(0, 0), MOV(1, 0), BPF_ALU64_IMM(BPF_ADD, 1, 1),
	  BPF_JMP_IMM(BPF_JLT, 1, 3, -2), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 3, -5), EXIT }, ACCEPT, LIVE },
	/* a jump to itself is a loop too (never taken: r0 is 1) */
	{ "live_self_loop", SOCK, { MOV(0, 1), BPF_JMP_IMM(BPF_JEQ, 0, 0, -1), EXIT }, ACCEPT,
	  LIVE },
	/* helpers read their arguments only: lookup R1-R2, ktime none, R6 lives across calls */
	{ "live_helper_args", SOCK, { MOV(6, 3), LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 6, 0, 0), BPF_EMIT_CALL(BPF_FUNC_ktime_get_ns), ADDR(0, 6),
	  BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), EXIT }, ACCEPT, LIVE },
	/* skb_load_bytes: four arguments */
	{ "live_helper_4args", SOCK, { BPF_MOV64_REG(6, 1), MOV(2, 0), BPF_MOV64_REG(3, 10),
	  BPF_ALU64_IMM(BPF_ADD, 3, -8), MOV(4, 4), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
	  MOV(0, 0), EXIT }, ACCEPT, LIVE },
	/* a helper the program type lacks reads R1..R5; the section comes before the error */
	{ "live_helper_unavailable", SOCK, { MOV(0, 0),
	  BPF_EMIT_CALL(BPF_FUNC_xdp_adjust_head), EXIT }, REJECT,
	  "program of this type cannot use helper bpf_xdp_adjust_head#44", EINVAL, LIVE },
	/* bpf-to-bpf calls read R1..R5 and define R0..R5; each subprogram is solved on its own */
	{ "live_bpf2bpf", SOCK, { MOV(1, 5), MOV(6, 1), BPF_CALL_REL(2), ADDR(0, 6), EXIT,
	  MOV(2, 1), BPF_MOV64_REG(7, 1), BPF_CALL_REL(2), ADDR(0, 7), EXIT,
	  BPF_MOV64_REG(0, 2), EXIT }, ACCEPT, LIVE },
	/* LD_IMM64 is one line (its second half is not shown); a jump over it */
	{ "live_ldimm64", SOCK, { BPF_LD_IMM64(0, 0x123456789ULL), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 2), BPF_LD_IMM64(3, 1), BPF_MOV64_REG(0, 1),
	  BPF_LD_IMM64(2, 7), EXIT }, ACCEPT, LIVE },
	/* stores read both registers; atomics: fetch forms write src, cmpxchg reads R0 */
	{ "live_stores_atomics", SOCK, { MOV(3, 1), BPF_STX_MEM(BPF_DW, 10, 3, -8),
	  BPF_ST_MEM(BPF_DW, 10, -16, 0), BPF_ATOMIC_OP(BPF_DW, BPF_ADD, 10, 3, -8),
	  BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, 10, 3, -8), MOV(0, 0),
	  BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, 10, 3, -8), BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, 10, 3, -8),
	  BPF_LDX_MEM(BPF_DW, 4, 10, -16), ADDR(0, 4), EXIT }, ACCEPT, LIVE },
	/* LD_ABS / LD_IND read every register */
	{ "live_ld_abs", SOCK, { BPF_MOV64_REG(6, 1), BPF_LD_ABS(BPF_B, 0), MOV(7, 0),
	  BPF_LD_IND(BPF_B, 7, 0), EXIT }, ACCEPT, LIVE },
	/* 32-bit jumps read both registers; gotol reads none */
	{ "live_jmp32", SOCK, { MOV(0, 0), MOV(3, 0), BPF_JMP32_REG(BPF_JGT, 0, 3, 1), MOV(5, 1),
	  BPF_RAW_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, 0), EXIT }, ACCEPT, LIVE },
	/* exit reads R0 even where R0 was never written */
	{ "live_uninit_r0", SOCK, { MOV(1, 0), EXIT }, REJECT, "R0 !read_ok", EACCES, LIVE },
};

/* Past insn 999 and loop 9 the columns widen: 12 loops spread over 1100 insns. */
static void live_long(void)
{
	enum { N = 1100, LOOPS = 12 };
	static struct bpf_insn p[N];
	struct vcase c = { "live_long", SOCK, .verdict = ACCEPT, LIVE };
	struct vstats st = { 0, 0, 0, 0 };
	__u32 n = 0;

	p[n++] = MOV(0, 0);
	for (int l = 0; l < LOOPS; l++) {
		p[n++] = MOV(3, 0);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, 3, 1);
		p[n++] = BPF_JMP_IMM(BPF_JLT, 3, 2, -2);
		p[n++] = ADDR(0, 3);
	}
	while (n < N - 1)
		p[n++] = BPF_ALU64_IMM(BPF_ADD, 0, 1);
	p[n++] = EXIT;
	vprog_run(&c, p, n, &st);
	printf("verifier liveness long program: %s\n",
	       st.kernel_ran ? (st.agree ? "agrees with the kernel" : "differs")
			     : "kernel bpf() unavailable");
}

/* ---- log attributes through bpf() ---- */

struct logattr {
	const char *name;
	__u32 level, size;
	bool buf;
	bool reject;	/* load the failing program */
	const char *known;
};

static const struct bpf_insn good[] = { BPF_MOV64_IMM(0, 1), BPF_MOV64_IMM(0, 2), EXIT };
static const struct bpf_insn bad[] = { BPF_MOV64_IMM(0, 1), BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT };

static const struct logattr attrs[] = {
	{ "buf_without_size", 1, 0, true },
	{ "size_without_buf", 1, 256, false },
	{ "buf_without_level", 0, 256, true },
	{ "level_bad_bits", 16, 256, true },
	{ "level_fixed_only", 8, 256, true },
	{ "level_stats_only_ok", 4, 256, true, false, "verification time differs run to run" },
	{ "level1_ok", 1, 4096, true },
	{ "level1_ok_reject", 1, 4096, true, true },
	{ "level2_ok", 2, 4096, true },
	{ "level1_size_1", 1, 1, true, true },
	{ "level1_size_127", 1, 127, true, true },
	{ "level1_size_128", 1, 128, true, true },
	{ "level2_trunc_rotate", 2, 160, true },
	{ "level2_trunc_fixed", 2 | 8, 160, true },
	{ "level1_trunc_reject_rotate", 1, 140, true, true },
	{ "level1_trunc_reject_fixed", 1 | 8, 140, true, true },
	{ "level1_exact_fit", 1, 0 /* set to the true size */, true, true },
	{ "level_huge_size", 1, 0x40000000, true },
	{ "level_no_log_reject", 0, 0, false, true },
};

/* log_true_size (6.4) is past the end of older uapi headers' union bpf_attr: use the kernel's
 * 6.18 attr size and read it at its offset. */
#define ATTR_SIZE 168
#define LOG_TRUE_SIZE_OFF (offsetof(union bpf_attr, core_relo_rec_size) + 4)

static int load(bool kernel, const struct logattr *t, char *buf, __u32 *true_size)
{
	union {
		union bpf_attr a;
		unsigned char raw[ATTR_SIZE];
	} u;
	union bpf_attr *a = &u.a;
	int fd;

	memset(&u, 0, sizeof(u));
	a->prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a->insns = (uintptr_t)(t->reject ? bad : good);
	a->insn_cnt = 3;
	a->license = (uintptr_t) "GPL";
	a->log_level = t->level;
	a->log_size = t->size;
	if (t->buf)
		a->log_buf = (uintptr_t)buf;
	fd = kernel ? (int)syscall(__NR_bpf, BPF_PROG_LOAD, &u, ATTR_SIZE)
		    : bpf(BPF_PROG_LOAD, a, ATTR_SIZE);
	memcpy(true_size, u.raw + LOG_TRUE_SIZE_OFF, sizeof(*true_size));
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return -errno;
}

TEST(verifier_log)
{
	union bpf_attr probe;
	static char kbuf[1 << 16], ubuf[1 << 16];
	int agree = 0, n = 0;
	bool have_kernel;

	vcase_run_table("log", cases, NCASES(cases));
	vcase_run_table("checkpoints", ckpt_cases, NCASES(ckpt_cases));
	vcase_run_table("liveness", live_cases, NCASES(live_cases));
	live_long();

	memset(&probe, 0, sizeof(probe));
	probe.map_type = BPF_MAP_TYPE_ARRAY;
	probe.key_size = 4;
	probe.value_size = 4;
	probe.max_entries = 1;
	{
		int fd = (int)syscall(__NR_bpf, BPF_MAP_CREATE, &probe, sizeof(probe));

		have_kernel = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	if (!have_kernel) {
		printf("verifier log attributes: kernel bpf() unavailable: skipped\n");
		return;
	}
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		struct logattr t = attrs[i];
		__u32 ktrue = 0, utrue = 0;
		int kr, ur;

		if (!t.size && t.buf) {	/* exact fit: the true size the kernel reports */
			t.size = 1 << 16;
			load(true, &t, kbuf, &ktrue);
			t.size = ktrue;
		}
		memset(kbuf, 0x5a, sizeof(kbuf));
		memset(ubuf, 0x5a, sizeof(ubuf));
		kr = load(true, &t, kbuf, &ktrue);
		ur = load(false, &t, ubuf, &utrue);
		n++;
		__u32 cmp = t.buf && t.size < (__u32)sizeof(kbuf) ? t.size : t.buf ? 4096 : 0;

		if (t.known) {
			printf("  known difference log %s: %s\n", t.name, t.known);
			continue;
		}
		if (kr != ur)
			test_fail(__FILE__, __LINE__, "log %s: kernel %d, userbpf %d", t.name, kr,
				  ur);
		else if (memcmp(kbuf, ubuf, cmp))
			test_fail(__FILE__, __LINE__,
				  "log %s: buffers differ: kernel \"%.200s\" userbpf \"%.200s\"",
				  t.name, kbuf, ubuf);
		else
			agree++;
		if (ktrue != utrue)
			test_fail(__FILE__, __LINE__, "log %s: log_true_size kernel %u, userbpf %u",
				  t.name, ktrue, utrue);
	}
	printf("verifier log attributes: %d cases, %d agree with the kernel\n", n, agree);
}
