/* Verifier: kfunc calls (src_reg BPF_PSEUDO_KFUNC_CALL, imm a function's id in the kernel's
 * BTF).  The calls are checked when the program is scanned (a function of the kernel's BTF, a
 * GPL-compatible program, no module BTF) and when the walk reaches them (a kfunc, its
 * arguments against its BTF prototype, R0 from its return type); the dynptr kfuncs
 * (bpf_dynptr_size(), _is_null(), _is_rdonly(), _adjust(), _slice(), _slice_rdwr(), _clone())
 * over local and ring buffer dynptrs.  (What they do at run time: test_kfunc_run.c.)  Skipped
 * without a kernel BTF (/sys/kernel/btf/vmlinux), which the calls' ids come from. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "verifier_harness.h"

#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
#define FP(r, off) BPF_MOV64_REG(r, 10), BPF_ALU64_IMM(BPF_ADD, r, off)
/* r6 = a NULL-checked value of MAP_ARRAY (48 bytes; else return 0): 10 insns */
#define VAL                                                                                      \
	BPF_ST_MEM(BPF_W, 10, -4, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4),       \
		BPF_LD_MAP_FD(1, MAP_ARRAY), CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), \
		R0_0, EXIT, BPF_MOV64_REG(6, 0)
/* a local dynptr at fp + off over size bytes of r6 */
#define FROM_MEM(off, size)                                                                      \
	BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, 0), FP(4, off),           \
		CALL(dynptr_from_mem)
#define LOCAL(off) VAL, FROM_MEM(off, 16)
#define RESERVE(off, size)                                                                       \
	BPF_LD_MAP_FD(1, MAP_RINGBUF), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, 0), FP(4, off),   \
		CALL(ringbuf_reserve_dynptr)
#define SUBMIT(off) FP(1, off), BPF_MOV64_IMM(2, 0), CALL(ringbuf_submit_dynptr)
/* r0 = bpf_dynptr_slice(fp + off, start, NULL, size) */
#define SLICE(k, off, start, size)                                                               \
	FP(1, off), BPF_MOV64_IMM(2, start), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, size), KFUNC(k)
/* the same with a buffer: register buf */
#define SLICE_BUF(k, off, start, buf, size)                                                      \
	FP(1, off), BPF_MOV64_IMM(2, start), BPF_MOV64_REG(3, buf), BPF_MOV64_IMM(4, size), KFUNC(k)
/* bpf_dynptr_from_skb/_xdp(ctx: r1, 0, fp + off) */
#define PKT(k, off) BPF_MOV64_IMM(2, 0), FP(3, off), KFUNC(k)
/* r7 = a 4-byte slice of the packet's dynptr at fp - 16; later read if not NULL */
#define SKB_SLICE_R7 SLICE(KF_SLICE, -16, 0, 4), BPF_MOV64_REG(7, 0)
/* a local dynptr at fp + off, made before the packet's (its map key is at fp - 4) */
#define LOCAL_FIRST(off) BPF_MOV64_REG(8, 1), LOCAL(off), BPF_MOV64_REG(1, 8)
#define R7_READ BPF_JMP_IMM(BPF_JEQ, 7, 0, 1), BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0, EXIT
/* bpf_dynptr_<k>(fp + off) */
#define ON(k, off) FP(1, off), KFUNC(k)

static const struct vcase cases[] = {
	/* scanning */
	{ "kfunc_not_gpl", XDP, { ON(KF_SIZE, -16), R0_0, EXIT }, REJECT,
	  "cannot call kernel function from non-GPL compatible program", EINVAL, .license = "MIT",
	  .full_log = true },
	{ "kfunc_id_not_func", XDP, { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
	  1), R0_0, EXIT }, REJECT, "kernel btf_id 1 is not a function", EINVAL, .full_log = true },
	{ "kfunc_id_negative", XDP, { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
	  -1), R0_0, EXIT }, REJECT, "kernel btf_id 4294967295 is not a function", EINVAL,
	  .full_log = true },
	{ "kfunc_off_negative", XDP, { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
	  -1, KF_BASE + KF_SIZE), R0_0, EXIT }, REJECT, "failed to find BTF for kernel function",
	  EINVAL, .full_log = true },
	{ "kfunc_off_no_fd_array", XDP, { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
	  1, KF_BASE + KF_SIZE), R0_0, EXIT }, REJECT, "failed to find BTF for kernel function",
	  EPROTO, .full_log = true },
	{ "kfunc_id0_reachable", XDP, { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
	  0, 0), R0_0, EXIT }, REJECT,
	  "invalid kernel function call not eliminated in verifier pass",
	  EINVAL, .full_log = true, .log_level = 2 },
	{ "kfunc_id0_dead", XDP, { R0_0, BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 0), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "kfunc_not_a_kfunc", XDP, { ON(KF_TCP_V4_RCV, -16), R0_0, EXIT }, REJECT,
	  "calling kernel function tcp_v4_rcv is not allowed", EACCES, .full_log = true },
	{ "kfunc_jmp32_call", XDP, { BPF_RAW_INSN(BPF_JMP32 | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
	  KF_BASE + KF_SIZE), R0_0, EXIT }, REJECT, "unknown opcode 86", EINVAL, .full_log = true },

	/* the dynptr argument */
	{ "kfunc_size_local", XDP, { LOCAL(-16), ON(KF_SIZE, -16), EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "kfunc_size_ringbuf", XDP, { RESERVE(-16, 8), ON(KF_SIZE, -16), BPF_MOV64_REG(6, 0),
	  SUBMIT(-16), BPF_MOV64_REG(0, 6), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_size_uninit", XDP, { ON(KF_SIZE, -16), EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true },
	{ "kfunc_size_not_stack", XDP, { VAL, BPF_MOV64_REG(1, 6), KFUNC(KF_SIZE), EXIT }, REJECT,
	  "arg#0 expected pointer to stack or const struct bpf_dynptr", EINVAL, .full_log = true },
	{ "kfunc_size_null", XDP, { BPF_MOV64_IMM(1, 0), KFUNC(KF_SIZE), EXIT }, REJECT,
	  "Possibly NULL pointer passed to trusted arg0", EACCES, .full_log = true },
	{ "kfunc_size_scalar", XDP, { BPF_MOV64_IMM(1, 8), KFUNC(KF_SIZE), EXIT }, REJECT,
	  "arg#0 expected pointer to stack or const struct bpf_dynptr", EINVAL, .full_log = true },
	{ "kfunc_size_maybe_null", XDP, { LOOKUP(MAP_HASH), BPF_MOV64_REG(1, 0), KFUNC(KF_SIZE),
	  EXIT }, REJECT, "Possibly NULL pointer passed to trusted arg0", EACCES,
	  .full_log = true },
	{ "kfunc_size_ctx", XDP, { KFUNC(KF_SIZE), EXIT }, REJECT,
	  "arg#0 expected pointer to stack or const struct bpf_dynptr", EINVAL, .full_log = true },
	{ "kfunc_size_misaligned", XDP, { LOCAL(-16), ON(KF_SIZE, -12), EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL,
	  .full_log = true },
	{ "kfunc_size_second_slot", XDP, { LOCAL(-24), ON(KF_SIZE, -16), EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #0", EINVAL,
	  .full_log = true },
	{ "kfunc_size_after_submit", XDP, { RESERVE(-16, 8), SUBMIT(-16), ON(KF_SIZE, -16), EXIT },
	  REJECT, "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true },
	{ "kfunc_is_null_rdonly", CLS, { LOCAL(-16), ON(KF_IS_NULL, -16), BPF_MOV64_REG(7, 0),
	  ON(KF_IS_RDONLY, -16), BPF_ALU64_REG(BPF_ADD, 0, 7), EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "kfunc_ringbuf_leak", XDP, { RESERVE(-16, 8), ON(KF_SIZE, -16), EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL,
	  .full_log = true },

	/* scalar arguments */
	{ "kfunc_adjust", XDP, { LOCAL(-16), FP(1, -16), BPF_MOV64_IMM(2, 2), BPF_MOV64_IMM(3, 6),
	  KFUNC(KF_ADJUST), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_adjust_ptr_arg", XDP, { LOCAL(-16), FP(1, -16), BPF_MOV64_REG(2, 10),
	  BPF_MOV64_IMM(3, 6), KFUNC(KF_ADJUST), EXIT }, REJECT, "R2 is not a scalar", EINVAL,
	  .full_log = true },
	{ "kfunc_adjust_uninit_arg", XDP, { LOCAL(-16), FP(1, -16), BPF_MOV64_IMM(2, 2),
	  KFUNC(KF_ADJUST), EXIT }, REJECT, "R3 is not a scalar", EINVAL, .full_log = true },
	{ "kfunc_adjust_var", XDP, { LOCAL(-16), BPF_LDX_MEM(BPF_DW, 2, 6, 0), FP(1, -16),
	  BPF_MOV64_IMM(3, 6), KFUNC(KF_ADJUST), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },

	/* slices */
	{ "kfunc_slice_read", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 2, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "kfunc_slice_oob", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 2, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_W, 0, 0, 2), EXIT }, REJECT,
	  "R0 min value is outside of the allowed memory range", EACCES, .full_log = true },
	{ "kfunc_slice_write", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 2, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_ST_MEM(BPF_W, 0, 0, 1), EXIT }, REJECT,
	  "R0 cannot write into rdonly_mem", EACCES, .full_log = true },
	{ "kfunc_slice_unchecked", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 2, 4),
	  BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT }, REJECT, "R0 invalid mem access 'rdonly_mem_or_null'",
	  EACCES, .full_log = true },
	{ "kfunc_slice_var_size", XDP, { LOCAL(-16), BPF_LDX_MEM(BPF_DW, 4, 6, 0), FP(1, -16),
	  BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 0), KFUNC(KF_SLICE), R0_0, EXIT }, REJECT,
	  "R4 must be a known constant", EINVAL, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_buffer", XDP, { LOCAL(-16), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(7, -24),
	  SLICE_BUF(KF_SLICE, -16, 0, 7, 8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 0, 0, 0), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_buffer_overwritten", XDP, { LOCAL(-16), BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  FP(7, -24), SLICE_BUF(KF_SLICE, -16, 0, 7, 8), BPF_ST_MEM(BPF_DW, 10, -24, 1),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_DW, 0, 0, 0), EXIT }, REJECT,
	  "R0 invalid mem access 'scalar'", EACCES,
	  .full_log = true, .log_level = 2 },
	{ "kfunc_slice_buffer_overwritten2", XDP, { LOCAL(-16), BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  FP(7, -24), SLICE_BUF(KF_SLICE, -16, 0, 7, 8), BPF_MOV64_REG(8, 0), BPF_MOV64_REG(1, 10),
	  BPF_ALU64_IMM(BPF_ADD, 1, -24), BPF_MOV64_IMM(2, 8), CALL(get_current_comm),
	  BPF_JMP_IMM(BPF_JEQ, 8, 0, 1), BPF_LDX_MEM(BPF_DW, 0, 8, 0), EXIT }, REJECT,
	  "R8 invalid mem access 'scalar'", EACCES, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_buffer_uninit", XDP, { LOCAL(-16), FP(7, -32),
	  SLICE_BUF(KF_SLICE, -16, 0, 7, 16), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "kfunc_slice_buffer_small", XDP, { LOCAL(-16), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(7, -24),
	  SLICE_BUF(KF_SLICE, -16, 0, 7, 16), R0_0, EXIT }, REJECT,
	  "arg#2 arg#3 memory, len pair leads to invalid memory access", EACCES, .full_log = true,
	  .log_level = 2 },
	{ "kfunc_slice_buffer_value", XDP, { LOCAL(-16), SLICE_BUF(KF_SLICE, -16, 0, 6, 64), R0_0,
	  EXIT }, REJECT, "arg#2 arg#3 memory, len pair leads to invalid memory access", EACCES,
	  .full_log = true },
	{ "kfunc_slice_buffer_ctx", XDP, { BPF_MOV64_REG(7, 1), LOCAL(-16),
	  SLICE_BUF(KF_SLICE, -16, 0, 7, 4), R0_0, EXIT }, REJECT,
	  "arg#2 arg#3 memory, len pair leads to invalid memory access", EACCES, .full_log = true },
	{ "kfunc_slice_zero", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 0, 0), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "kfunc_slice_rdwr", XDP, { LOCAL(-16), SLICE(KF_SLICE_RDWR, -16, 2, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_ST_MEM(BPF_W, 0, 0, 1), R0_0, EXIT }, REJECT,
	  "bpf_dynptr_slice_rdwr() is not allowed", EPERM, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_rdwr_ringbuf_kprobe", KPROBE, { RESERVE(-16, 8),
	  SLICE(KF_SLICE_RDWR, -16, 0, 4), SUBMIT(-16), R0_0, EXIT }, REJECT,
	  "bpf_dynptr_slice_rdwr() is not allowed", EPERM, .full_log = true },
	{ "kfunc_slice_ringbuf", XDP, { RESERVE(-16, 8), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_W, 7, 0, 0), SUBMIT(-16), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_after_submit", XDP, { RESERVE(-16, 8), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_MOV64_REG(7, 0), SUBMIT(-16), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0, EXIT }, REJECT, "R7 invalid mem access 'scalar'",
	  EACCES, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_after_overwrite", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_MOV64_REG(7, 0), BPF_ST_MEM(BPF_DW, 10, -16, 0), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_slice_as_key", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 4), BPF_MOV64_REG(2, 0), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  CALL(map_lookup_elem), R0_0, EXIT }, REJECT,
	  "R2 type=rdonly_mem expected=fp, pkt, pkt_meta, map_key, "
	  "map_value, mem, ringbuf_mem, buf, trusted_ptr_", EACCES, .full_log = true },
	{ "kfunc_slice_to_output", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 6), BPF_MOV64_REG(2, 0), BPF_LD_MAP_FD(1, MAP_RINGBUF),
	  BPF_MOV64_IMM(3, 4), BPF_MOV64_IMM(4, 0), CALL(ringbuf_output), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },

	/* clones */
	{ "kfunc_clone_local", XDP, { LOCAL(-16), FP(1, -16), FP(2, -32), KFUNC(KF_CLONE),
	  ON(KF_SIZE, -32), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_clone_ringbuf", XDP, { RESERVE(-16, 8), FP(1, -16), FP(2, -32), KFUNC(KF_CLONE),
	  SUBMIT(-32), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_clone_ringbuf_twice", XDP, { RESERVE(-16, 8), FP(1, -16), FP(2, -32),
	  KFUNC(KF_CLONE), SUBMIT(-32), SUBMIT(-16), R0_0, EXIT }, REJECT,
	  "arg 1 is an unacquired reference", EINVAL, .full_log = true },
	{ "kfunc_clone_onto_dynptr", XDP, { LOCAL(-16), FROM_MEM(-32, 8), FP(1, -16), FP(2, -32),
	  KFUNC(KF_CLONE), R0_0, EXIT }, ACCEPT, .full_log = true },
	{ "kfunc_clone_onto_ringbuf", XDP, { LOCAL(-16), RESERVE(-32, 8), FP(1, -16), FP(2, -32),
	  KFUNC(KF_CLONE), SUBMIT(-32), R0_0, EXIT }, REJECT, "cannot overwrite referenced dynptr",
	  EINVAL, .full_log = true },
	{ "kfunc_clone_uninit_parent", XDP, { FP(1, -16), FP(2, -32), KFUNC(KF_CLONE), R0_0, EXIT },
	  REJECT, "Expected an initialized dynptr as arg #0", EINVAL, .full_log = true },

	/* copies and memsets: two dynptrs (any kinds), scalars */
	{ "kfunc_copy", XDP, { LOCAL(-16), RESERVE(-32, 8), FP(1, -32), BPF_MOV64_IMM(2, 0),
	  FP(3, -16), BPF_MOV64_IMM(4, 2), BPF_MOV64_IMM(5, 4), KFUNC(KF_COPY), SUBMIT(-32), R0_0,
	  EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "kfunc_copy_uninit_src", XDP, { LOCAL(-16), FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -32),
	  BPF_MOV64_IMM(4, 2), BPF_MOV64_IMM(5, 4), KFUNC(KF_COPY), R0_0, EXIT }, REJECT,
	  "Expected an initialized dynptr as arg #2", EINVAL,
	  .full_log = true },
	{ "kfunc_copy_ptr_size", XDP, { LOCAL(-16), FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -16),
	  BPF_MOV64_IMM(4, 2), BPF_MOV64_REG(5, 6), KFUNC(KF_COPY), R0_0, EXIT }, REJECT,
	  "R5 is not a scalar", EINVAL,
	  .full_log = true },
	{ "kfunc_memset", CLS, { LOCAL(-16), FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4),
	  BPF_MOV64_IMM(4, 0x1ff), KFUNC(KF_MEMSET), EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "kfunc_memset_slice_stays", XDP, { LOCAL(-16), SLICE(KF_SLICE, -16, 0, 4),
	  BPF_MOV64_REG(7, 0), FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4),
	  BPF_MOV64_IMM(4, 1), KFUNC(KF_MEMSET), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 7, 0), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },

	/* kernel functions by address: a weak kfunc's existence test */
	{ "ksym_exists", XDP, { KSYM(1, KF_SIZE), R0_0, BPF_JMP_IMM(BPF_JEQ, 1, 0, 1),
	  BPF_MOV64_IMM(0, 1), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "ksym_not_kfunc", XDP, { KSYM(1, KF_TCP_V4_RCV), R0_0, BPF_JMP_IMM(BPF_JNE, 1, 0, 1),
	  BPF_MOV64_IMM(0, 1), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "ksym_read", XDP, { KSYM(1, KF_SIZE), BPF_LDX_MEM(BPF_B, 0, 1, 0), EXIT }, REJECT,
	  "R1 min value is outside of the allowed memory range", EACCES,
	  .full_log = true },
	{ "ksym_write", XDP, { KSYM(1, KF_SIZE), BPF_ST_MEM(BPF_B, 1, 0, 0), R0_0, EXIT }, REJECT,
	  "R1 cannot write into rdonly_mem", EACCES,
	  .full_log = true },
	{ "ksym_not_func", XDP, { BPF_LD_IMM64_RAW(1, BPF_PSEUDO_BTF_ID, 1), R0_0, EXIT }, REJECT,
	  "pseudo btf_id 1 in ldimm64 isn't KIND_VAR or KIND_FUNC", EINVAL,
	  .full_log = true },
	{ "ksym_bad_id", XDP, { BPF_LD_IMM64_RAW(1, BPF_PSEUDO_BTF_ID, 0x7ffffff), R0_0, EXIT },
	  REJECT, "ldimm64 insn specifies invalid btf_id 134217727.", ENOENT, .full_log = true },
	{ "ksym_module_fd", XDP, { BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_BTF_ID, 0,
	  KF_BASE + KF_SIZE), BPF_RAW_INSN(0, 0, 0, 0, 77), R0_0, EXIT }, REJECT,
	  "invalid module BTF object FD specified.", EINVAL, .full_log = true },
	{ "ksym_pointer_math", XDP, { KSYM(1, KF_SIZE), BPF_ALU64_IMM(BPF_ADD, 1, 8),
	  BPF_MOV64_REG(0, 1), EXIT }, ACCEPT, .full_log = true },

	/* calls and locks, kfuncs userbpf has not */
	{ "kfunc_under_lock", XDP, { BPF_ST_MEM(BPF_W, 10, -4, 0), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_IMM(BPF_ADD, 2, -4), BPF_LD_MAP_FD(1, MAP_ALOCK), CALL(map_lookup_elem),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 1), EXIT, BPF_MOV64_REG(6, 0), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_lock), ON(KF_SIZE, -16), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_unlock), R0_0, EXIT }, REJECT,
	  "function calls are not allowed while holding a lock", EINVAL, .full_log = true },
	/* packets' dynptrs: bpf_dynptr_from_skb() for skb programs, _from_xdp() for XDP; their
	 * slices go with the packet pointers */
	{ "pkt_skb_slice", CLS, { PKT(KF_FROM_SKB, -16), SLICE(KF_SLICE, -16, 12, 2),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_H, 0, 0, 0), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "pkt_xdp_slice", XDP, { PKT(KF_FROM_XDP, -16), SLICE(KF_SLICE, -16, 12, 2),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_H, 0, 0, 0), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "pkt_skb_in_xdp", XDP, { PKT(KF_FROM_SKB, -16), R0_0, EXIT }, REJECT,
	  "calling kernel function bpf_dynptr_from_skb is not allowed", EACCES, .full_log = true },
	{ "pkt_xdp_in_tc", CLS, { PKT(KF_FROM_XDP, -16), R0_0, EXIT }, REJECT,
	  "calling kernel function bpf_dynptr_from_xdp is not allowed", EACCES, .full_log = true },
	{ "pkt_skb_in_kprobe", KPROBE, { PKT(KF_FROM_SKB, -16), R0_0, EXIT }, REJECT,
	  "calling kernel function bpf_dynptr_from_skb is not allowed", EACCES,
	  .full_log = true },
	{ "pkt_skb_socket_filter", SOCK, { PKT(KF_FROM_SKB, -16), ON(KF_SIZE, -16), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "pkt_skb_cgroup_write", CGSKB, { PKT(KF_FROM_SKB, -16), BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 4), BPF_MOV64_IMM(5, 0),
	  CALL(dynptr_write), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "pkt_skb_not_ctx", CLS, { BPF_MOV64_REG(1, 10), BPF_MOV64_IMM(2, 0), FP(3, -16),
	  KFUNC(KF_FROM_SKB), R0_0, EXIT }, REJECT, "arg#0 expected pointer to ctx, but got fp",
	  EINVAL, .full_log = true },
	{ "pkt_skb_ctx_moved", CLS, { BPF_ALU64_IMM(BPF_ADD, 1, 8), BPF_MOV64_IMM(2, 0), FP(3, -16),
	  KFUNC(KF_FROM_SKB), R0_0, EXIT }, REJECT,
	  "dereference of modified ctx ptr R1 off=8 disallowed", EACCES, .full_log = true },
	{ "pkt_skb_slice_after_store", CLS, { BPF_MOV64_REG(6, 1), PKT(KF_FROM_SKB, -16),
	  SLICE(KF_SLICE, -16, 0, 4), BPF_MOV64_REG(7, 0), BPF_ST_MEM(BPF_W, 10, -24, 0),
	  BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 4),
	  BPF_MOV64_IMM(5, 0), CALL(skb_store_bytes), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0, EXIT }, REJECT, "R7 invalid mem access 'scalar'",
	  EACCES, .full_log = true },
	{ "pkt_skb_slice_after_dynptr_write", CLS, { PKT(KF_FROM_SKB, -16),
	  SLICE(KF_SLICE, -16, 0, 4), BPF_MOV64_REG(7, 0), BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 4), BPF_MOV64_IMM(5, 0),
	  CALL(dynptr_write), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1), BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0,
	  EXIT }, REJECT, "R7 invalid mem access 'scalar'", EACCES, .full_log = true },
	/* kfuncs writing into an skb's dynptr (their first parameter, not const) forget the
	 * packet's pointers and slices as bpf_dynptr_write() does (found by the soundness run,
	 * seed 0x6cac6a); reading one (a copy's source, _adjust()) or writing an XDP one does
	 * not */
	{ "pkt_skb_slice_after_memset", CLS, { PKT(KF_FROM_SKB, -16), SKB_SLICE_R7,
	  FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4), BPF_MOV64_IMM(4, 0),
	  KFUNC(KF_MEMSET), R7_READ }, REJECT, "R7 invalid mem access 'scalar'", EACCES,
	  .full_log = true, .log_level = 2 },
	{ "pkt_skb_slice_after_copy_into", CLS, { LOCAL_FIRST(-32), PKT(KF_FROM_SKB, -16),
	  SKB_SLICE_R7, FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -32), BPF_MOV64_IMM(4, 0),
	  BPF_MOV64_IMM(5, 4), KFUNC(KF_COPY), R7_READ }, REJECT, "R7 invalid mem access 'scalar'",
	  EACCES, .full_log = true, .log_level = 2 },
	{ "pkt_skb_slice_after_copy_from", CLS, { LOCAL_FIRST(-32), PKT(KF_FROM_SKB, -16),
	  SKB_SLICE_R7, FP(1, -32), BPF_MOV64_IMM(2, 0), FP(3, -16), BPF_MOV64_IMM(4, 0),
	  BPF_MOV64_IMM(5, 4), KFUNC(KF_COPY), R7_READ }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "pkt_skb_slice_after_probe_read", CLS, { PKT(KF_FROM_SKB, -16), SKB_SLICE_R7,
	  FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4), BPF_MOV64_REG(4, 10),
	  KFUNC(KF_PROBE_KERNEL_DYNPTR), R7_READ }, REJECT, "R7 invalid mem access 'scalar'",
	  EACCES, .full_log = true, .log_level = 2 },
	{ "pkt_skb_slice_after_memset_local", CLS, { LOCAL_FIRST(-32), PKT(KF_FROM_SKB, -16),
	  SKB_SLICE_R7, FP(1, -32), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4), BPF_MOV64_IMM(4, 0),
	  KFUNC(KF_MEMSET), R7_READ }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "pkt_skb_slice_after_dynptr_adjust", CLS, { PKT(KF_FROM_SKB, -16), SKB_SLICE_R7,
	  FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4), KFUNC(KF_ADJUST), R7_READ },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "pkt_xdp_slice_after_memset", XDP, { PKT(KF_FROM_XDP, -16), SKB_SLICE_R7,
	  FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 4), BPF_MOV64_IMM(4, 0),
	  KFUNC(KF_MEMSET), R7_READ }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "pkt_xdp_slice_after_adjust", XDP, { BPF_MOV64_REG(6, 1), PKT(KF_FROM_XDP, -16),
	  SLICE(KF_SLICE, -16, 0, 4), BPF_MOV64_REG(7, 0), BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 4),
	  CALL(xdp_adjust_head), BPF_JMP_IMM(BPF_JEQ, 7, 0, 1), BPF_LDX_MEM(BPF_W, 0, 7, 0), R0_0,
	  EXIT }, REJECT, "R7 invalid mem access 'scalar'", EACCES, .full_log = true },
	{ "pkt_xdp_data_helper", XDP, { PKT(KF_FROM_XDP, -16), FP(1, -16), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_IMM(3, 4), CALL(dynptr_data), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 0, 0), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },

	/* RCU read sections: not nested, left before the exit (or an LD_ABS) */
	{ "rcu_section", XDP, { KFUNC(KF_RCU_READ_LOCK), LOOKUP(MAP_HASH),
	  KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "rcu_nested", XDP, { KFUNC(KF_RCU_READ_LOCK), KFUNC(KF_RCU_READ_LOCK),
	  KFUNC(KF_RCU_READ_UNLOCK), KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT }, REJECT,
	  "nested rcu read lock (kernel function bpf_rcu_read_lock)", EINVAL, .full_log = true },
	{ "rcu_unmatched", XDP, { KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT }, REJECT,
	  "unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)", EINVAL,
	  .full_log = true },
	{ "rcu_exit_inside", XDP, { KFUNC(KF_RCU_READ_LOCK), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region",
	  EINVAL, .full_log = true },
	{ "rcu_one_branch", XDP, { BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), KFUNC(KF_RCU_READ_LOCK), KFUNC(KF_RCU_READ_UNLOCK), R0_0,
	  EXIT }, REJECT, "unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)", EINVAL,
	  .full_log = true, .log_level = 2 },
	{ "rcu_ld_abs_inside", SOCK, { BPF_MOV64_REG(6, 1), KFUNC(KF_RCU_READ_LOCK),
	  BPF_LD_ABS(BPF_B, 0), KFUNC(KF_RCU_READ_UNLOCK), EXIT }, REJECT,
	  "BPF_LD_[ABS|IND] cannot be used inside bpf_rcu_read_lock-ed region", EINVAL,
	  .full_log = true },
	{ "rcu_tail_call_inside", XDP, { BPF_MOV64_REG(6, 1), KFUNC(KF_RCU_READ_LOCK),
	  BPF_MOV64_REG(1, 6), BPF_LD_MAP_FD(2, MAP_PROG_ARRAY),
	  BPF_MOV64_IMM(3, 0), BPF_EMIT_CALL(BPF_FUNC_tail_call), KFUNC(KF_RCU_READ_UNLOCK), R0_0,
	  EXIT }, REJECT, "tail_call cannot be used inside bpf_rcu_read_lock-ed region", EINVAL,
	  .full_log = true },
	{ "rcu_subprog_inside", XDP, { KFUNC(KF_RCU_READ_LOCK), BPF_CALL_REL(3),
	  KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT, R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "rcu_subprog_unlocks", XDP, { KFUNC(KF_RCU_READ_LOCK), BPF_CALL_REL(2), R0_0, EXIT,
	  KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true,
	  .log_level = 2 },
	{ "rcu_spin_lock_inside", XDP, { KFUNC(KF_RCU_READ_LOCK), BPF_ST_MEM(BPF_W, 10, -4, 0),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4), BPF_LD_MAP_FD(1, MAP_ALOCK),
	  CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, 0, 0, 6), BPF_MOV64_REG(6, 0),
	  BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_lock), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_unlock), KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT },
	  ACCEPT, .full_log = true },
	/* the string kfuncs: their __ign strings are not checked at all, not even written */
	{ "str_uninit_reg", XDP, { CALL(get_prandom_u32), KFUNC(KF_STRLEN), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "str_uninit_stack", XDP, { FP(1, -8), KFUNC(KF_STRLEN), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "str_ctx", XDP, { KFUNC(KF_STRLEN), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "str_pkt", XDP, { BPF_LDX_MEM(BPF_W, 1, 1, 0), KFUNC(KF_STRLEN), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "str_map", XDP, { BPF_LD_MAP_FD(1, MAP_ARRAY), BPF_LD_MAP_FD(2, MAP_HASH),
	  KFUNC(KF_STRCMP), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "str_value_or_null", XDP, { BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4),
	  BPF_LD_MAP_FD(1, MAP_ARRAY), CALL(map_lookup_elem), BPF_MOV64_REG(1, 0), FP(2, -4),
	  KFUNC(KF_STRCMP), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "str_count_pointer", XDP, { FP(1, -8), BPF_MOV64_REG(2, 1), BPF_MOV64_IMM(3, 'a'),
	  KFUNC(KF_STRNCHR), EXIT }, REJECT, "R2 is not a scalar", EINVAL, .full_log = true },
	{ "str_count_uninit", XDP, { CALL(get_prandom_u32), FP(1, -8), BPF_MOV64_IMM(3, 'a'),
	  KFUNC(KF_STRNCHR), EXIT }, REJECT, "R2 is not a scalar", EINVAL, .full_log = true },
	{ "str_char_uninit", XDP, { CALL(get_prandom_u32), FP(1, -8), BPF_MOV64_IMM(2, 4),
	  KFUNC(KF_STRNCHR), EXIT }, REJECT, "R3 is not a scalar", EINVAL, .full_log = true },
	{ "str_result_scalar", XDP, { FP(1, -8), KFUNC(KF_STRLEN), BPF_LDX_MEM(BPF_B, 0, 0, 0),
	  EXIT }, REJECT, "R0 invalid mem access 'scalar'", EACCES, .full_log = true },
	/* the bits iterator: a loop summing the set bits' indexes of a stack word */
	{ "bits_loop", XDP, { BPF_ST_MEM(BPF_DW, 10, -8, 0x1234), BPF_MOV64_IMM(6, 0), FP(1, -24),
	  FP(2, -8), BPF_MOV64_IMM(3, 1), KFUNC(KF_BITS_NEW), FP(1, -24), KFUNC(KF_BITS_NEXT),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 3), BPF_LDX_MEM(BPF_W, 1, 0, 0), BPF_ALU64_REG(BPF_ADD, 6, 1),
	  BPF_JMP_IMM(BPF_JA, 0, 0, -7), FP(1, -24), KFUNC(KF_BITS_DESTROY), BPF_MOV64_REG(0, 6),
	  EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "bits_no_destroy", XDP, { FP(1, -24), FP(2, -8), BPF_ST_MEM(BPF_DW, 10, -8, 1),
	  BPF_MOV64_IMM(3, 1), KFUNC(KF_BITS_NEW), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL,
	  .full_log = true },
	{ "bits_next_uninit", XDP, { FP(1, -24), KFUNC(KF_BITS_NEXT), R0_0, EXIT }, REJECT,
	  "expected an initialized iter_bits as arg #0", EINVAL, .full_log = true },
	{ "bits_next_on_num", XDP, { FP(1, -24), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 2),
	  KFUNC(KF_ITER_NEW), FP(1, -24), KFUNC(KF_BITS_NEXT), FP(1, -24), KFUNC(KF_ITER_DESTROY),
	  R0_0, EXIT }, REJECT, "expected an initialized iter_bits as arg #0", EINVAL,
	  .full_log = true },
	/* preemption off: nested, matched on every path, no exit, LD_ABS or tail call inside */
	{ "preempt_pair", XDP, { KFUNC(KF_PREEMPT_OFF), CALL(get_prandom_u32),
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "preempt_nested", XDP, { KFUNC(KF_PREEMPT_OFF), KFUNC(KF_PREEMPT_OFF),
	  KFUNC(KF_PREEMPT_ON), KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "preempt_unmatched", XDP, { KFUNC(KF_PREEMPT_OFF), KFUNC(KF_PREEMPT_ON),
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, REJECT,
	  "unmatched attempt to enable preemption (kernel function bpf_preempt_enable)", EINVAL,
	  .full_log = true },
	{ "preempt_exit_inside", XDP, { KFUNC(KF_PREEMPT_OFF), KFUNC(KF_PREEMPT_OFF),
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog cannot be used inside bpf_preempt_disable-ed region",
	  EINVAL, .full_log = true },
	{ "preempt_one_branch", XDP, { CALL(get_prandom_u32), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  KFUNC(KF_PREEMPT_OFF), KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, REJECT,
	  "unmatched attempt to enable preemption (kernel function bpf_preempt_enable)", EINVAL,
	  .full_log = true, .log_level = 2 },
	{ "preempt_branches_pruned", XDP, { CALL(get_prandom_u32), BPF_MOV64_REG(6, 0),
	  KFUNC(KF_PREEMPT_OFF), BPF_JMP_IMM(BPF_JEQ, 6, 0, 1), BPF_MOV64_IMM(6, 1),
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "preempt_ld_abs_inside", SOCK, { BPF_MOV64_REG(6, 1), KFUNC(KF_PREEMPT_OFF),
	  BPF_LD_ABS(BPF_B, 0), KFUNC(KF_PREEMPT_ON), EXIT }, REJECT,
	  "BPF_LD_[ABS|IND] cannot be used inside bpf_preempt_disable-ed region", EINVAL,
	  .full_log = true },
	{ "preempt_tail_call_inside", XDP, { BPF_MOV64_REG(6, 1), KFUNC(KF_PREEMPT_OFF),
	  BPF_MOV64_REG(1, 6), BPF_LD_MAP_FD(2, MAP_PROG_ARRAY), BPF_MOV64_IMM(3, 0),
	  BPF_EMIT_CALL(BPF_FUNC_tail_call), KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, REJECT,
	  "tail_call cannot be used inside bpf_preempt_disable-ed region", EINVAL,
	  .full_log = true },
	{ "preempt_subprog_inside", XDP, { KFUNC(KF_PREEMPT_OFF), BPF_CALL_REL(3),
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT, R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "preempt_subprog_enables", XDP, { KFUNC(KF_PREEMPT_OFF), BPF_CALL_REL(2), R0_0, EXIT,
	  KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true,
	  .log_level = 2 },
	{ "preempt_and_rcu", XDP, { KFUNC(KF_RCU_READ_LOCK), KFUNC(KF_PREEMPT_OFF),
	  KFUNC(KF_RCU_READ_UNLOCK), KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "preempt_exit_with_rcu", XDP, { KFUNC(KF_RCU_READ_LOCK), KFUNC(KF_PREEMPT_OFF), R0_0,
	  EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region",
	  EINVAL, .full_log = true },
	/* under a bpf_spin_lock: the number iterator's kfuncs only (the soundness generator found
	 * that 6.18.44 allows them) */
	{ "lock_iter_num_inside", XDP, { BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4),
	  BPF_LD_MAP_FD(1, MAP_ALOCK), CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, 0, 0, 12),
	  BPF_MOV64_REG(6, 0), BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_lock),
	  FP(1, -24), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 3), KFUNC(KF_ITER_NEW), FP(1, -24),
	  KFUNC(KF_ITER_NEXT), BPF_JMP_IMM(BPF_JNE, 0, 0, -4), FP(1, -24), KFUNC(KF_ITER_DESTROY),
	  BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_unlock), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	{ "lock_other_kfunc_inside", XDP, { BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4),
	  BPF_LD_MAP_FD(1, MAP_ALOCK), CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, 0, 0, 7),
	  BPF_MOV64_REG(6, 0), BPF_MOV64_REG(1, 6), BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_lock),
	  KFUNC(KF_PREEMPT_OFF), KFUNC(KF_PREEMPT_ON), BPF_MOV64_REG(1, 6),
	  BPF_ALU64_IMM(BPF_ADD, 1, 4), CALL(spin_unlock), R0_0, EXIT }, REJECT,
	  "function calls are not allowed while holding a lock", EINVAL, .full_log = true },
	{ "kfunc_userbpf_lacks", XDP, { KFUNC(KF_CAST_TO_KERN_CTX), R0_0, EXIT }, ACCEPT,
	  .known = "userbpf refuses kfuncs it does not have (EOPNOTSUPP); the kernel takes them" },
};

TEST(verifier_kfunc)
{
	if (!kfunc_btf_available()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	vcase_run_table("kfunc", cases, NCASES(cases));
}

/* A kfunc userbpf does not have is refused, saying so, with EOPNOTSUPP. */
TEST(verifier_kfunc_missing)
{
	const struct vcase *c = &cases[NCASES(cases) - 1];
	const char *log;
	int ret;

	if (!kfunc_btf_available()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	log = vcase_userbpf_log(c, &ret);
	CHECK_EQ(ret, -EOPNOTSUPP);
	CHECK(strstr(log, "0: (85) call bpf_cast_to_kern_ctx#") != NULL);
	CHECK(strstr(log, "\nkernel function bpf_cast_to_kern_ctx is not supported by userbpf\n") !=
	      NULL);
}
