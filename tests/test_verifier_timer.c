/* Verifier: bpf_timer — the helpers take a map value's struct bpf_timer (its BTF says where) at a
 * constant offset, bpf_timer_init() its own map; the timer is never read or written directly,
 * tracing programs may not use a map holding one; a timer callback is verified as a path of its
 * own (R1 the map, R2 the key, R3 the value, the log's " async_cb"), which must return 0.  (What
 * timers do at run time: test_loader_runs.c and test_diff_timer.c.) */
#include "test.h"
#include "verifier_harness.h"

#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
#define FUNC(R, OFF) BPF_LD_IMM64_RAW(R, BPF_PSEUDO_FUNC, OFF)
/* r6 = a NULL-checked value of MAP (else return 0): 10 insns */
#define VAL(MAP)                                                                                 \
	BPF_ST_MEM(BPF_W, 10, -4, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4),       \
		BPF_LD_MAP_FD(1, MAP), CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, \
		EXIT, BPF_MOV64_REG(6, 0)
/* bpf_timer_init(r6 + off, MAP, CLOCK_MONOTONIC): 7 insns */
#define INIT(off, MAP)                                                                           \
	BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, off), BPF_LD_MAP_FD(2, MAP),              \
		BPF_MOV64_IMM(3, 1), CALL(timer_init)
/* bpf_timer_set_callback(r6 + 8, the function cb insns past the LD_IMM64's first slot, less
 * one): 6 insns */
#define SETCB(cb) BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 8), FUNC(2, cb), CALL(timer_set_callback)
/* bpf_timer_start(r6 + 8, 1000, 0): 5 insns */
#define START BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 8), BPF_MOV64_IMM(2, 1000), \
	BPF_MOV64_IMM(3, 0), CALL(timer_start)
/* A program arming the timer of MAP with the callback that follows (VAL 10 insns, INIT 7,
 * SETCB 6, START 5, then 2: the callback is 9 past the FUNC) */
#define ARM(MAP) VAL(MAP), INIT(8, MAP), SETCB(9), START, R0_0, EXIT

static const struct vcase cases[] = {
	{ "timer_arm_hash", XDP, { ARM(MAP_HTIMER), R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "timer_arm_array", CLS, { ARM(MAP_ATIMER), R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true },
	{ "timer_cb_uses_args", XDP, { ARM(MAP_HTIMER), BPF_LDX_MEM(BPF_W, 4, 2, 0),
	  BPF_LDX_MEM(BPF_DW, 5, 3, 0), BPF_ALU64_REG(BPF_ADD, 5, 4), BPF_STX_MEM(BPF_DW, 3, 5, 24),
	  R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true, .log_level = 2 },
	{ "timer_cb_rearms", XDP, { ARM(MAP_HTIMER), BPF_MOV64_REG(1, 3), BPF_ALU64_IMM(BPF_ADD, 1, 8),
	  BPF_MOV64_IMM(2, 5), BPF_MOV64_IMM(3, 0), CALL(timer_start), R0_0, EXIT }, ACCEPT,
	  .funcs = true, .full_log = true, .log_level = 2 },
	{ "timer_cb_cancels", XDP, { ARM(MAP_HTIMER), BPF_MOV64_REG(1, 3), BPF_ALU64_IMM(BPF_ADD, 1, 8),
	  CALL(timer_cancel), R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true },
	{ "timer_cb_returns_1", XDP, { ARM(MAP_HTIMER), BPF_MOV64_IMM(0, 1), EXIT }, REJECT, "At async callback return the register R0 has smin=1 smax=1 should have been in [0, 0]", EINVAL, .funcs = true },
	{ "timer_cb_returns_unknown", XDP, { ARM(MAP_HTIMER), BPF_LDX_MEM(BPF_DW, 0, 3, 0), EXIT },
	  REJECT, "At async callback return the register R0 has unknown scalar value should have been in [0, 0]", EINVAL, .funcs = true },
	{ "timer_cb_returns_ptr", XDP, { ARM(MAP_HTIMER), BPF_MOV64_REG(0, 1), EXIT }, REJECT, "At async callback return the register R0 is not a known value (map_ptr)", EINVAL, .funcs = true },
	/* a tail call in a timer callback's dead code */
	{ "timer_cb_tail_call", XDP, { ARM(MAP_HTIMER), BPF_MOV64_IMM(1, 0),
	  BPF_JMP_IMM(BPF_JEQ, 1, 0, 4), BPF_LD_MAP_FD(2, MAP_PROG_ARRAY), BPF_MOV64_IMM(3, 0),
	  CALL(tail_call), R0_0, EXIT }, REJECT, "verifier bug: subprog has tail_call and async cb",
	  EFAULT, .funcs = true, .full_log = true },
	/* ... in a subprogram the timer callback calls */
	{ "timer_cb_sub_tail_call", XDP, { ARM(MAP_HTIMER),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 2), R0_0, EXIT,
	  BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 4), BPF_LD_MAP_FD(2, MAP_PROG_ARRAY),
	  BPF_MOV64_IMM(3, 0), CALL(tail_call), R0_0, EXIT }, REJECT,
	  "cannot tail call within callback", EINVAL, .funcs = true, .full_log = true },
	/* ... and main's own chain too deep: the timer callback's chains are checked first */
	{ "timer_cb_sub_tail_call_main_deep", XDP, { BPF_ST_MEM(BPF_DW, 10, -512, 0),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 39), ARM(MAP_HTIMER),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 2), R0_0, EXIT,
	  BPF_MOV64_IMM(1, 0), BPF_JMP_IMM(BPF_JEQ, 1, 0, 4), BPF_LD_MAP_FD(2, MAP_PROG_ARRAY),
	  BPF_MOV64_IMM(3, 0), CALL(tail_call), R0_0, EXIT,
	  BPF_ST_MEM(BPF_DW, 10, -16, 0), R0_0, EXIT }, REJECT,
	  "cannot tail call within callback", EINVAL, .funcs = true },
	{ "timer_cb_reads_r4", XDP, { ARM(MAP_HTIMER), BPF_MOV64_REG(0, 4), EXIT }, REJECT, "R4 !read_ok", EACCES, .funcs = true },
	{ "timer_cb_reads_timer", XDP, { ARM(MAP_HTIMER), BPF_LDX_MEM(BPF_DW, 0, 3, 8), R0_0, EXIT },
	  REJECT, "bpf_timer cannot be accessed directly by load/store", EACCES, .funcs = true },
	{ "timer_cb_key_write", XDP, { ARM(MAP_HTIMER), BPF_ST_MEM(BPF_W, 2, 0, 1), R0_0, EXIT },
	  REJECT, "write to change key R2 not allowed", EACCES, .funcs = true },
	{ "timer_wrong_offset", XDP, { VAL(MAP_HTIMER), INIT(0, MAP_HTIMER), R0_0, EXIT }, REJECT, "off 0 doesn't point to 'struct bpf_timer' that is at 8", EINVAL },
	{ "timer_offset_16", XDP, { VAL(MAP_HTIMER), INIT(16, MAP_HTIMER), R0_0, EXIT }, REJECT, "off 16 doesn't point to 'struct bpf_timer' that is at 8", EINVAL },
	{ "timer_map_without_btf", XDP, { VAL(MAP_ARRAY), INIT(8, MAP_ARRAY), R0_0, EXIT }, REJECT, "map '' has to have BTF in order to use bpf_timer", EINVAL },
	{ "timer_map_without_timer", XDP, { VAL(MAP_ALOCK), INIT(0, MAP_ALOCK), R0_0, EXIT }, REJECT, "map '' has no valid bpf_timer", EINVAL },
	{ "timer_var_offset", XDP, { VAL(MAP_HTIMER), BPF_LDX_MEM(BPF_DW, 7, 6, 0),
	  BPF_ALU64_IMM(BPF_AND, 7, 8), BPF_MOV64_REG(1, 6), BPF_ALU64_REG(BPF_ADD, 1, 7),
	  BPF_LD_MAP_FD(2, MAP_HTIMER), BPF_MOV64_IMM(3, 1), CALL(timer_init), R0_0, EXIT }, REJECT, "R1 doesn't have constant offset. bpf_timer has to be at the constant offset", EINVAL },
	{ "timer_stack_ptr", XDP, { BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -16),
	  BPF_LD_MAP_FD(2, MAP_HTIMER), BPF_MOV64_IMM(3, 1), CALL(timer_init), R0_0, EXIT }, REJECT, "R1 type=fp expected=map_value", EACCES },
	{ "timer_init_other_map", XDP, { VAL(MAP_HTIMER), INIT(8, MAP_ATIMER), R0_0, EXIT }, REJECT, "timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0", EINVAL },
	{ "timer_init_not_a_map", XDP, { VAL(MAP_HTIMER), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 8), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 1), CALL(timer_init),
	  R0_0, EXIT }, REJECT, "R2 type=scalar expected=map_ptr", EACCES },
	{ "timer_load_word", XDP, { VAL(MAP_HTIMER), BPF_LDX_MEM(BPF_DW, 0, 6, 16), R0_0, EXIT },
	  REJECT, "bpf_timer cannot be accessed directly by load/store", EACCES },
	{ "timer_store_over", XDP, { VAL(MAP_HTIMER), BPF_ST_MEM(BPF_W, 6, 12, 0), R0_0, EXIT },
	  REJECT, "bpf_timer cannot be accessed directly by load/store", EACCES },
	{ "timer_store_beside", XDP, { VAL(MAP_HTIMER), BPF_ST_MEM(BPF_DW, 6, 0, 1),
	  BPF_ST_MEM(BPF_DW, 6, 24, 2), R0_0, EXIT }, ACCEPT },
	{ "timer_value_to_helper", XDP, { VAL(MAP_HTIMER), BPF_LD_MAP_FD(1, MAP_HTIMER),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4), BPF_MOV64_REG(3, 6),
	  BPF_MOV64_IMM(4, 0), CALL(map_update_elem), R0_0, EXIT }, REJECT, "bpf_timer cannot be accessed directly by load/store", EACCES },
	{ "timer_kprobe", KPROBE, { VAL(MAP_HTIMER), INIT(8, MAP_HTIMER), R0_0, EXIT }, REJECT, "tracing progs cannot use bpf_timer yet", EINVAL },
	{ "timer_socket_filter", SOCK, { VAL(MAP_HTIMER), INIT(8, MAP_HTIMER), R0_0, EXIT }, ACCEPT },
	{ "timer_setcb_scalar", XDP, { VAL(MAP_HTIMER), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 8), BPF_MOV64_IMM(2, 0), CALL(timer_set_callback), R0_0, EXIT },
	  REJECT, "R2 type=scalar expected=func", EACCES },
	{ "timer_cancel_only", CLS, { VAL(MAP_ATIMER), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 8), CALL(timer_cancel), EXIT }, ACCEPT },
	{ "timer_start_flags_reg", CLS, { VAL(MAP_ATIMER), BPF_LDX_MEM(BPF_DW, 3, 6, 0),
	  BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 8), BPF_MOV64_IMM(2, 0), CALL(timer_start),
	  EXIT }, ACCEPT },
	{ "timer_not_gpl", XDP, { VAL(MAP_HTIMER), INIT(8, MAP_HTIMER), R0_0, EXIT }, REJECT, "cannot call GPL-restricted function from non-GPL compatible program", EINVAL, .license = "MIT" },
};

TEST(verifier_timer)
{
	vcase_run_table("timer", cases, NCASES(cases));
}
