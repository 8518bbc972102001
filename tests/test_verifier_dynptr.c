/* Verifier: dynptrs — bpf_dynptr_from_mem() over a map value and bpf_ringbuf_reserve_dynptr()
 * make a struct bpf_dynptr in two stack slots; bpf_dynptr_read(), _write() and _data() take an
 * initialised one; a ring buffer one is a reference that bpf_ringbuf_submit_dynptr() or
 * _discard_dynptr() must release; the program may not read its bytes, a store into it destroys a
 * local one (and its slices) and is refused for a ring buffer one.  (What the helpers do at run
 * time: test_loader_dynptr.c.) */
#include "test.h"
#include "verifier_harness.h"

#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
/* r6 = a NULL-checked value of MAP (48 bytes for MAP_ARRAY; else return 0): 10 insns */
#define VAL(MAP)                                                                                 \
	BPF_ST_MEM(BPF_W, 10, -4, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4),       \
		BPF_LD_MAP_FD(1, MAP), CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, \
		EXIT, BPF_MOV64_REG(6, 0)
/* r1 = fp + off */
#define FP(r, off) BPF_MOV64_REG(r, 10), BPF_ALU64_IMM(BPF_ADD, r, off)
/* bpf_dynptr_from_mem(r6, size, 0, fp + off) */
#define FROM_MEM(off, size)                                                                      \
	BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, 0), FP(4, off),           \
		CALL(dynptr_from_mem)
/* bpf_ringbuf_reserve_dynptr(MAP_RINGBUF, size, 0, fp + off) */
#define RESERVE(off, size)                                                                       \
	BPF_LD_MAP_FD(1, MAP_RINGBUF), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, 0), FP(4, off),   \
		CALL(ringbuf_reserve_dynptr)
#define SUBMIT(off) FP(1, off), BPF_MOV64_IMM(2, 0), CALL(ringbuf_submit_dynptr)
#define DISCARD(off) FP(1, off), BPF_MOV64_IMM(2, 0), CALL(ringbuf_discard_dynptr)
/* r0 = bpf_dynptr_data(fp + off, 0, len) */
#define DATA(off, len) FP(1, off), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, len), CALL(dynptr_data)
/* bpf_dynptr_read(fp + dst, len, fp + src, 0, 0) */
#define READ(dst, len, src)                                                                      \
	FP(1, dst), BPF_MOV64_IMM(2, len), FP(3, src), BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(5, 0),  \
		CALL(dynptr_read)
/* bpf_dynptr_write(fp + dptr, 0, fp + src, len, 0) */
#define WRITE(dptr, src, len)                                                                    \
	FP(1, dptr), BPF_MOV64_IMM(2, 0), FP(3, src), BPF_MOV64_IMM(4, len), BPF_MOV64_IMM(5, 0), \
		CALL(dynptr_write)
/* if r0 == 0 goto +1; *(u64 *)(r0 + 0) = 7 */
#define STORE_SLICE BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_ST_MEM(BPF_DW, 0, 0, 7)

/* bpf_user_ringbuf_drain(MAP_URINGBUF, the callback at insn 9, NULL, 0); r0 = 0; exit: 9 insns,
 * then the callback */
#define DRAIN_MAIN(MAP)                                                                          \
	BPF_LD_MAP_FD(1, MAP), BPF_LD_IMM64_RAW(2, BPF_PSEUDO_FUNC, 6), BPF_MOV64_IMM(3, 0),     \
		BPF_MOV64_IMM(4, 0), CALL(user_ringbuf_drain), R0_0, EXIT
/* in the callback: bpf_dynptr_read(fp - 8, 8, r1, 0, 0) */
#define CB_READ BPF_MOV64_REG(3, 1), FP(1, -8), BPF_MOV64_IMM(2, 8), BPF_MOV64_IMM(4, 0), \
	BPF_MOV64_IMM(5, 0), CALL(dynptr_read)

static const struct vcase cases[] = {
	{ "uringbuf_drain_read", XDP, { DRAIN_MAIN(MAP_URINGBUF), CB_READ, R0_0, EXIT }, ACCEPT,
	  .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_data", CLS, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_IMM(3, 4), CALL(dynptr_data), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 0, 0), R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true,
	  .log_level = 2 },
	{ "uringbuf_drain_returns_2", XDP, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_IMM(0, 2), EXIT },
	  REJECT,
	  "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]", EINVAL, .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_submits", XDP, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_IMM(2, 0),
	  CALL(ringbuf_submit_dynptr), R0_0, EXIT }, REJECT,
	  "cannot release unowned const bpf_dynptr", EINVAL, .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_reserves_over", XDP, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_REG(4, 1),
	  BPF_LD_MAP_FD(1, MAP_RINGBUF), BPF_MOV64_IMM(2, 8), BPF_MOV64_IMM(3, 0),
	  CALL(ringbuf_reserve_dynptr), R0_0, EXIT }, REJECT,
	  "Dynptr has to be an uninitialized dynptr", EINVAL, .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_wrong_map", XDP, { DRAIN_MAIN(MAP_RINGBUF), R0_0, EXIT }, REJECT,
	  "cannot pass map_type 27 into func bpf_user_ringbuf_drain#209", EINVAL,
	  .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_output", XDP, { BPF_LD_MAP_FD(1, MAP_URINGBUF), FP(2, -8), BPF_MOV64_IMM(3, 8),
	  BPF_MOV64_IMM(4, 0), CALL(ringbuf_output), R0_0, EXIT }, REJECT,
	  "cannot pass map_type 31 into func bpf_ringbuf_output#130", EINVAL, .full_log = true, .log_level = 2 },
	{ "uringbuf_lookup", XDP, { LOOKUP(MAP_URINGBUF), R0_0, EXIT }, REJECT,
	  "invalid zero-sized read", EACCES, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_load", XDP, { DRAIN_MAIN(MAP_URINGBUF), BPF_LDX_MEM(BPF_DW, 0, 1, 0),
	  R0_0, EXIT }, REJECT,
	  "R1 invalid mem access 'dynptr_ptr'", EACCES, .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_arith", XDP, { DRAIN_MAIN(MAP_URINGBUF), BPF_ALU64_IMM(BPF_ADD, 1, 8),
	  CB_READ, R0_0, EXIT }, REJECT,
	  "dereference of modified dynptr_ptr ptr R3 off=8 disallowed", EACCES, .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_ctx", XDP, { BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_LD_MAP_FD(1, MAP_URINGBUF),
	  BPF_LD_IMM64_RAW(2, BPF_PSEUDO_FUNC, 7), FP(3, -8), BPF_MOV64_IMM(4, 0),
	  CALL(user_ringbuf_drain), R0_0, EXIT, BPF_LDX_MEM(BPF_DW, 3, 2, 0),
	  BPF_ALU64_IMM(BPF_ADD, 3, 1), BPF_STX_MEM(BPF_DW, 2, 3, 0), R0_0, EXIT }, ACCEPT,
	  .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_write_dynptr", KPROBE, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_REG(6, 1),
	  BPF_ST_MEM(BPF_DW, 10, -8, 7), BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 0), FP(3, -8),
	  BPF_MOV64_IMM(4, 8), BPF_MOV64_IMM(5, 0), CALL(dynptr_write), R0_0, EXIT }, ACCEPT,
	  .funcs = true, .full_log = true, .log_level = 2 },
	{ "uringbuf_drain_data_const", SOCK, { DRAIN_MAIN(MAP_URINGBUF), BPF_MOV64_IMM(2, 0),
	  BPF_LDX_MEM(BPF_W, 3, 1, 0), CALL(dynptr_data), R0_0, EXIT }, REJECT,
	  "R1 invalid mem access 'dynptr_ptr'", EACCES, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "dynptr_local_data", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), DATA(-16, 8), STORE_SLICE,
	  R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_local_read_write", CLS, { VAL(MAP_ARRAY), FROM_MEM(-16, 16),
	  BPF_ST_MEM(BPF_DW, 10, -24, 3), WRITE(-16, -24, 8), READ(-32, 8, -16), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_ringbuf_submit", XDP, { RESERVE(-16, 8), DATA(-16, 8), STORE_SLICE, SUBMIT(-16),
	  R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_ringbuf_discard", SOCK, { RESERVE(-16, 8), DISCARD(-16), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "dynptr_ringbuf_leak", XDP, { RESERVE(-16, 8), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_ringbuf_twice", XDP, { RESERVE(-16, 8), SUBMIT(-16), SUBMIT(-16), R0_0, EXIT },
	  REJECT,
	  "arg 1 is an unacquired reference", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_submit_local", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), SUBMIT(-16), R0_0, EXIT },
	  REJECT,
	  "arg 1 is an unacquired reference", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_submit_nothing", XDP, { SUBMIT(-16), R0_0, EXIT }, REJECT,
	  "arg 1 is an unacquired reference", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_data_of_zeros", XDP, { BPF_ST_MEM(BPF_DW, 10, -8, 0),
	  BPF_ST_MEM(BPF_DW, 10, -16, 0), DATA(-16, 8), R0_0, EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_misaligned", XDP, { VAL(MAP_ARRAY), FROM_MEM(-12, 8), R0_0, EXIT }, REJECT,
	  "Dynptr has to be an uninitialized dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_one_slot", XDP, { VAL(MAP_ARRAY), FROM_MEM(-8, 8), R0_0, EXIT }, REJECT,
	  "Dynptr has to be an uninitialized dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_var_offset", XDP, { VAL(MAP_ARRAY), BPF_LDX_MEM(BPF_DW, 7, 6, 0),
	  BPF_ALU64_IMM(BPF_AND, 7, 8), BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 8),
	  BPF_MOV64_IMM(3, 0), FP(4, -32), BPF_ALU64_REG(BPF_ADD, 4, 7), CALL(dynptr_from_mem),
	  R0_0, EXIT }, REJECT,
	  "Dynptr has to be an uninitialized dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_from_stack", XDP, { BPF_ST_MEM(BPF_DW, 10, -32, 0), FP(1, -32),
	  BPF_MOV64_IMM(2, 8), BPF_MOV64_IMM(3, 0), FP(4, -16), CALL(dynptr_from_mem), R0_0, EXIT },
	  REJECT,
	  "Unsupported reg type fp for bpf_dynptr_from_mem data", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_overwrite_ringbuf", XDP, { RESERVE(-16, 8), BPF_ST_MEM(BPF_DW, 10, -16, 0),
	  DISCARD(-16), R0_0, EXIT }, REJECT,
	  "cannot overwrite referenced dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_overwrite_ringbuf_low", XDP, { RESERVE(-16, 8), BPF_ST_MEM(BPF_W, 10, -8, 0),
	  DISCARD(-16), R0_0, EXIT }, REJECT,
	  "cannot overwrite referenced dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_overwrite_local", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8),
	  BPF_ST_MEM(BPF_B, 10, -3, 0), DATA(-16, 8), R0_0, EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_slice_after_overwrite", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), DATA(-16, 8),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(7, 0),
	  BPF_STX_MEM(BPF_DW, 10, 6, -16), BPF_LDX_MEM(BPF_DW, 0, 7, 0), R0_0, EXIT }, REJECT,
	  "R7 invalid mem access 'scalar'", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_slice_after_submit", XDP, { RESERVE(-16, 8), DATA(-16, 8), BPF_MOV64_REG(7, 0),
	  SUBMIT(-16), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1), BPF_LDX_MEM(BPF_DW, 0, 7, 0), R0_0, EXIT },
	  REJECT,
	  "R7 invalid mem access 'scalar'", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_load_bytes", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), BPF_LDX_MEM(BPF_DW, 0, 10, -16),
	  R0_0, EXIT }, REJECT,
	  "invalid read from stack off -16+0 size 8", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_load_var", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), BPF_LDX_MEM(BPF_DW, 7, 6, 0),
	  BPF_ALU64_IMM(BPF_AND, 7, 8), FP(1, -24), BPF_ALU64_REG(BPF_ADD, 1, 7),
	  BPF_LDX_MEM(BPF_B, 0, 1, 0), R0_0, EXIT }, REJECT,
	  "invalid read from stack R1 var_off (0x0; 0x8)+8 size 1", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_as_key", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  FP(2, -16), CALL(map_lookup_elem), R0_0, EXIT }, REJECT,
	  "invalid read from stack R2 off -16+0 size 4", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_read_into_dynptr", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), FROM_MEM(-32, 8),
	  READ(-16, 8, -32), R0_0, EXIT }, REJECT,
	  "potential write to dynptr at off=-16 disallowed", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_reserve_wrong_map", XDP, { BPF_LD_MAP_FD(1, MAP_ARRAY), BPF_MOV64_IMM(2, 8),
	  BPF_MOV64_IMM(3, 0), FP(4, -16), CALL(ringbuf_reserve_dynptr), DISCARD(-16), R0_0, EXIT },
	  REJECT,
	  "cannot pass map_type 2 into func bpf_ringbuf_reserve_dynptr#198", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_slice_bounds", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 16), DATA(-16, 8),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_DW, 0, 0, 8), R0_0, EXIT }, REJECT,
	  "R0 min value is outside of the allowed memory range", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_data_len_unknown", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 16),
	  BPF_LDX_MEM(BPF_DW, 3, 6, 0), FP(1, -16), BPF_MOV64_IMM(2, 0), CALL(dynptr_data), R0_0,
	  EXIT }, REJECT,
	  "R3 is not a known constant'", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_reinit_local", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), FROM_MEM(-16, 16),
	  DATA(-16, 16), STORE_SLICE, R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_reinit_over_ringbuf", XDP, { VAL(MAP_ARRAY), RESERVE(-16, 8), FROM_MEM(-16, 8),
	  DISCARD(-16), R0_0, EXIT }, REJECT,
	  "cannot overwrite referenced dynptr", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_overlap_local", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), FROM_MEM(-24, 8),
	  DATA(-16, 8), R0_0, EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_overlap_ok", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), FROM_MEM(-24, 8),
	  DATA(-24, 8), STORE_SLICE, R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_map_value_arg", XDP, { VAL(MAP_ARRAY), BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_IMM(3, 8), CALL(dynptr_data), R0_0, EXIT }, REJECT,
	  "R1 type=map_value expected=fp, dynptr_ptr", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_reserve_unknown_size", CLS, { BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_LD_MAP_FD(1, MAP_RINGBUF),
	  BPF_MOV64_IMM(3, 0), FP(4, -16), CALL(ringbuf_reserve_dynptr), DISCARD(-16), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_branch_join", XDP, { VAL(MAP_ARRAY), BPF_LDX_MEM(BPF_DW, 7, 6, 0),
	  BPF_JMP_IMM(BPF_JEQ, 7, 0, 13), FROM_MEM(-16, 8), DATA(-16, 8), STORE_SLICE, R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_two_ringbufs", XDP, { RESERVE(-16, 8), RESERVE(-32, 16), DATA(-32, 16),
	  STORE_SLICE, SUBMIT(-16), DISCARD(-32), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "dynptr_write_ringbuf", XDP, { RESERVE(-16, 8), BPF_ST_MEM(BPF_DW, 10, -24, 1),
	  WRITE(-16, -24, 8), SUBMIT(-16), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_write_from_dynptr", XDP, { VAL(MAP_ARRAY), FROM_MEM(-16, 8), FROM_MEM(-32, 8),
	  WRITE(-32, -16, 8), R0_0, EXIT }, REJECT,
	  "invalid read from stack R3 off -16+0 size 8", EACCES, .full_log = true, .log_level = 2 },
	{ "dynptr_submit_in_branch", XDP, { RESERVE(-16, 8), BPF_MOV64_IMM(6, 0),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 4), SUBMIT(-16), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL, .full_log = true, .log_level = 2 },
	{ "dynptr_kprobe", KPROBE, { RESERVE(-16, 8), DISCARD(-16), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_scalar_arg", XDP, { BPF_MOV64_IMM(1, 0), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 8),
	  CALL(dynptr_data), R0_0, EXIT }, REJECT,
	  "R1 type=scalar expected=fp, dynptr_ptr", EACCES, .full_log = true, .log_level = 2 },
	/* a callee releases the caller's dynptr (a pointer to the caller's stack) */
	{ "dynptr_submit_in_callee", XDP, { RESERVE(-16, 8), FP(1, -16), BPF_CALL_REL(2), R0_0, EXIT,
	  BPF_MOV64_IMM(2, 0), CALL(ringbuf_submit_dynptr), R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "dynptr_callee_leaves_it", XDP, { RESERVE(-16, 8), FP(1, -16), BPF_CALL_REL(2), R0_0, EXIT,
	  BPF_LDX_MEM(BPF_DW, 0, 1, 0), R0_0, EXIT }, REJECT,
	  "invalid read from stack off -16+0 size 8", EACCES, .funcs = true, .full_log = true,
	  .log_level = 2 },
	/* a loop that remakes a local dynptr each round: its states must converge */
	{ "dynptr_in_loop", XDP, { VAL(MAP_ARRAY), BPF_MOV64_IMM(7, 0), FROM_MEM(-16, 8),
	  DATA(-16, 8), STORE_SLICE, BPF_ALU64_IMM(BPF_ADD, 7, 1), BPF_JMP_IMM(BPF_JLT, 7, 4, -15),
	  R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "dynptr_ringbuf_in_loop", XDP, { BPF_MOV64_IMM(7, 0), RESERVE(-16, 8), DISCARD(-16),
	  BPF_ALU64_IMM(BPF_ADD, 7, 1), BPF_JMP_IMM(BPF_JLT, 7, 3, -13), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
};

TEST(verifier_dynptr)
{
	vcase_run_table("dynptr", cases, NCASES(cases));
}
