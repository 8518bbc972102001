/* Verifier: open-coded iterators (bpf_iter_num_new(), _next(), _destroy(): libbpf's bpf_for()
 * and bpf_repeat()).  An iterator is a reference in stack slots; _next() forks the walk into the
 * iterator's end (NULL) and one more round (a pointer to the current number), and the rounds
 * converge as 6.18.44 makes them converge.  Skipped without a kernel BTF. */
#include <errno.h>

#include "test.h"
#include "verifier_harness.h"

#define FP(r, off) BPF_MOV64_REG(r, 10), BPF_ALU64_IMM(BPF_ADD, r, off)
/* bpf_iter_num_new(fp + off, start, end) */
#define NEW(off, start, end)                                                                     \
	FP(1, off), BPF_MOV64_IMM(2, start), BPF_MOV64_IMM(3, end), KFUNC(KF_ITER_NEW)
#define NEXT(off) FP(1, off), KFUNC(KF_ITER_NEXT)
#define DESTROY(off) FP(1, off), KFUNC(KF_ITER_DESTROY)

static const struct vcase cases[] = {
	/* for (i in [0, 3)) r6 += *i: 3 insns NEW, 3 NEXT, then the loop */
	{ "iter_sum", XDP, { BPF_MOV64_IMM(6, 0), NEW(-8, 0, 3), NEXT(-8),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 3), BPF_LDX_MEM(BPF_W, 1, 0, 0), BPF_ALU64_REG(BPF_ADD, 6, 1),
	  BPF_JMP_IMM(BPF_JA, 0, 0, -7), DESTROY(-8), BPF_MOV64_REG(0, 6), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "iter_leak", XDP, { NEW(-8, 0, 3), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL,
	  .full_log = true, .log_level = 2 },
	{ "iter_next_uninit", XDP, { NEXT(-8), R0_0, EXIT }, REJECT,
	  "expected an initialized iter_num as arg #0", EINVAL, .full_log = true },
	{ "iter_new_twice", XDP, { NEW(-8, 0, 3), NEW(-8, 0, 3), DESTROY(-8), R0_0, EXIT }, REJECT,
	  "expected uninitialized iter_num as arg #0", EINVAL,
	  .full_log = true },
	{ "iter_bounded_index", XDP, { BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  BPF_ST_MEM(BPF_DW, 10, -16, 0),
	  NEW(-8, 0, 16), NEXT(-8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 7), BPF_LDX_MEM(BPF_W, 1, 0, 0),
	  BPF_JMP_IMM(BPF_JGT, 1, 15, -6), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -24),
	  BPF_ALU64_REG(BPF_ADD, 2, 1), BPF_LDX_MEM(BPF_B, 3, 2, 0), BPF_JMP_IMM(BPF_JA, 0, 0, -11),
	  DESTROY(-8), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	/* the iterator's life */
	{ "iter_next_after_destroy", XDP, { NEW(-8, 0, 3), DESTROY(-8), NEXT(-8), R0_0, EXIT },
	  REJECT,
	  "expected an initialized iter_num as arg #0", EINVAL,
	  .full_log = true },
	{ "iter_destroy_twice", XDP, { NEW(-8, 0, 3), DESTROY(-8), DESTROY(-8), R0_0, EXIT },
	  REJECT,
	  "expected an initialized iter_num as arg #0", EINVAL,
	  .full_log = true },
	{ "iter_leak_after_next", XDP, { NEW(-8, 0, 3), NEXT(-8), R0_0, EXIT }, REJECT,
	  "BPF_EXIT instruction in main prog would lead to reference leak", EINVAL,
	  .full_log = true, .log_level = 2 },
	{ "iter_elem_after_destroy", XDP, { NEW(-8, 0, 3), NEXT(-8), BPF_MOV64_REG(6, 0),
	  DESTROY(-8), BPF_JMP_IMM(BPF_JEQ, 6, 0, 1), BPF_LDX_MEM(BPF_W, 0, 6, 0), R0_0, EXIT },
	  REJECT,
	  "R6 invalid mem access 'scalar'", EACCES,
	  .full_log = true },
	{ "iter_elem_write", XDP, { NEW(-8, 0, 3), NEXT(-8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_ST_MEM(BPF_W, 0, 0, 1), DESTROY(-8), R0_0, EXIT }, REJECT,
	  "R0 cannot write into rdonly_mem", EACCES, .full_log = true },
	{ "iter_elem_oob", XDP, { NEW(-8, 0, 3), NEXT(-8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_W, 0, 0, 1), DESTROY(-8), R0_0, EXIT }, REJECT,
	  "R0 min value is outside of the allowed memory range", EACCES, .full_log = true },
	{ "iter_elem_unchecked", XDP, { NEW(-8, 0, 3), NEXT(-8), BPF_LDX_MEM(BPF_W, 0, 0, 0),
	  DESTROY(-8), R0_0, EXIT }, REJECT,
	  "R0 invalid mem access 'scalar'", EACCES, .full_log = true },
	{ "iter_slot_read", XDP, { NEW(-8, 0, 3), BPF_LDX_MEM(BPF_DW, 0, 10, -8), DESTROY(-8), R0_0,
	  EXIT }, REJECT, "invalid read from stack off -8+0 size 8", EACCES, .full_log = true },
	{ "iter_slot_write", XDP, { NEW(-8, 0, 3), BPF_ST_MEM(BPF_DW, 10, -8, 0), DESTROY(-8), R0_0,
	  EXIT }, REJECT, "expected an initialized iter_num as arg #0", EINVAL, .full_log = true },
	{ "iter_slot_write_half", XDP, { NEW(-8, 0, 3), BPF_ST_MEM(BPF_W, 10, -4, 0), DESTROY(-8),
	  R0_0, EXIT }, REJECT,
	  "expected an initialized iter_num as arg #0", EINVAL, .full_log = true },
	{ "iter_misaligned", XDP, { NEW(-12, 0, 3), R0_0, EXIT }, REJECT,
	  "expected uninitialized iter_num as arg #0", EINVAL, .full_log = true },
	{ "iter_not_stack", XDP, { BPF_MOV64_REG(1, 1), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 3),
	  KFUNC(KF_ITER_NEW), R0_0, EXIT }, REJECT,
	  "arg#0 expected pointer to an iterator on stack", EINVAL, .full_log = true },
	{ "iter_null", XDP, { BPF_MOV64_IMM(1, 0), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 3),
	  KFUNC(KF_ITER_NEW), R0_0, EXIT }, REJECT,
	  "Possibly NULL pointer passed to trusted arg0", EACCES, .full_log = true },
	{ "iter_var_range", XDP, { BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_MOV64_REG(3, 0),
	  FP(1, -8), BPF_MOV64_IMM(2, 0), KFUNC(KF_ITER_NEW), NEXT(-8), DESTROY(-8), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
	/* loops */
	{ "iter_nested", XDP, { BPF_MOV64_IMM(6, 0), NEW(-8, 0, 3), NEXT(-8),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 15), NEW(-16, 0, 2), NEXT(-16), BPF_JMP_IMM(BPF_JEQ, 0, 0, 2),
	  BPF_ALU64_IMM(BPF_ADD, 6, 1), BPF_JMP_IMM(BPF_JA, 0, 0, -6), DESTROY(-16),
	  BPF_JMP_IMM(BPF_JA, 0, 0, -19), DESTROY(-8), BPF_MOV64_REG(0, 6), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "iter_counter_index", XDP, { BPF_ST_MEM(BPF_DW, 10, -24, 0),
	  BPF_ST_MEM(BPF_DW, 10, -16, 0),
	  BPF_MOV64_IMM(7, 0), NEW(-8, 0, 100), NEXT(-8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 7),
	  BPF_JMP_IMM(BPF_JGE, 7, 16, 5), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -24),
	  BPF_ALU64_REG(BPF_ADD, 2, 7), BPF_ST_MEM(BPF_B, 2, 0, 1), BPF_ALU64_IMM(BPF_ADD, 7, 1),
	  BPF_JMP_IMM(BPF_JA, 0, 0, -11), DESTROY(-8), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	{ "iter_break", XDP, { NEW(-8, 0, 10), NEXT(-8), BPF_JMP_IMM(BPF_JEQ, 0, 0, 3),
	  BPF_LDX_MEM(BPF_W, 1, 0, 0), BPF_JMP_IMM(BPF_JEQ, 1, 5, 1), BPF_JMP_IMM(BPF_JA, 0, 0, -7),
	  DESTROY(-8), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "iter_map_values", XDP, { BPF_MOV64_IMM(6, 0), NEW(-8, 0, 4), NEXT(-8),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 11), BPF_LDX_MEM(BPF_W, 1, 0, 0),
	  BPF_STX_MEM(BPF_W, 10, 1, -12), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -12),
	  BPF_LD_MAP_FD(1, MAP_ARRAY), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, -12), BPF_LDX_MEM(BPF_DW, 1, 0, 40),
	  BPF_ALU64_REG(BPF_ADD, 6, 1), BPF_JMP_IMM(BPF_JA, 0, 0, -15), DESTROY(-8),
	  BPF_MOV64_REG(0, 6), EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "iter_in_subprog", XDP, { BPF_CALL_REL(2), R0_0, EXIT, NEW(-8, 0, 3), NEXT(-8),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, -4), DESTROY(-8), R0_0, EXIT }, ACCEPT, .funcs = true,
	  .full_log = true, .log_level = 2 },
	{ "iter_callee_takes_it", XDP, { NEW(-8, 0, 3), FP(1, -8), BPF_CALL_REL(5), DESTROY(-8),
	  R0_0,
	  EXIT, KFUNC(KF_ITER_NEXT), R0_0, EXIT }, ACCEPT, .funcs = true, .full_log = true,
	  .log_level = 2 },
};

TEST(verifier_iter)
{
	if (!kfunc_btf_available()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	vcase_run_table("iter", cases, NCASES(cases));
}
