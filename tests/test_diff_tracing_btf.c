/* Tracing programs (BPF_PROG_TYPE_TRACING) against the kernel: tp_btf, fentry, fexit and
 * fmod_ret programs loaded for targets of the kernel's BTF (tracepoints, its test functions,
 * functions it may not trace, functions that never return, a function returning a struct) and
 * for bad targets; their ctx read at each argument (scalars, trusted and plain pointers to
 * kernel structs, pointers that may be NULL, void and int pointers, the return value), past
 * them, misaligned, narrow and written; their return values and sleepable forms.  Each
 * program's verdict, errno and whole level-2 log must be the kernel's; then BPF_PROG_TEST_RUN,
 * which the kernel has for fentry, fexit and fmod_ret only, must answer as the kernel's.
 * Skipped without the kernel's bpf() or its BTF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

/* The targets a case names: a kernel function (FUNC) or a tracepoint (its typedef). */
static const struct {
	const char *name;
	uint32_t kind;
} targets[] = {
#define T_SWITCH 0
	{ "btf_trace_sched_switch", BTF_KIND_TYPEDEF },	/* bool, task *, task *, uint */
#define T_NEWTASK 1
	{ "btf_trace_task_newtask", BTF_KIND_TYPEDEF },	/* task *, u64 */
#define T_PI 2
	{ "btf_trace_sched_pi_setprio", BTF_KIND_TYPEDEF }, /* task *, task * (may be NULL) */
#define T_FT1 3
	{ "bpf_fentry_test1", BTF_KIND_FUNC },		/* int (int) */
#define T_FT7 4
	{ "bpf_fentry_test7", BTF_KIND_FUNC },		/* (struct bpf_fentry_test_t *) */
#define T_UNLINK 5
	{ "do_unlinkat", BTF_KIND_FUNC },			/* int (int, struct filename *) */
#define T_MODRET 6
	{ "bpf_modify_return_test", BTF_KIND_FUNC },	/* int (int, int *) */
#define T_SECURITY 7
	{ "security_file_open", BTF_KIND_FUNC },		/* int (struct file *) */
#define T_MIGRATE 8
	{ "migrate_disable", BTF_KIND_FUNC },
#define T_EXIT 9
	{ "do_exit", BTF_KIND_FUNC },
#define T_NS_TO_TS 10
	{ "ns_to_timespec64", BTF_KIND_FUNC },		/* struct timespec64 (s64) */
#define T_WAKE 11
	{ "wake_up_process", BTF_KIND_FUNC },		/* int (struct task_struct *) */
#define T_STRUCT 12
	{ "task_struct", BTF_KIND_STRUCT },
#define T_U32 13
	{ "u32", BTF_KIND_TYPEDEF },
#define T_KFREE 14
	{ "kfree", BTF_KIND_FUNC },			/* void (const void *) */
#define T_EXEC 15
	{ "btf_trace_sched_process_exec", BTF_KIND_TYPEDEF }, /* task *, pid_t, binprm * */
#define T_ITER_TASK 16
	{ "bpf_iter_task", BTF_KIND_FUNC },		/* (struct bpf_iter_meta *, task *) */
#define T_ITER_NONE 17
	{ "bpf_iter_num_new", BTF_KIND_FUNC },		/* (no iterator target) */
};
#define T_NONE 18	/* attach_btf_id 0 */
#define T_HUGE 19	/* past the kernel's types */
#define T__COUNT 20
enum { O_PID, O_FILENAME_NAME, O_FT_A, O_BPRM_FILENAME, O_ACQUIRE, O_RELEASE, O__COUNT };
#define OFF(n) PLACEHOLDER(n)
static int32_t ids[T__COUNT], offs[O__COUNT];

static bool fill_ids(void)
{
	const struct btf *btf = btf_vmlinux();

	if (!btf)
		return false;
	for (int i = 0; i < T_NONE; i++) {
		ids[i] = (int32_t)btf_find_by_name_kind(btf, targets[i].name, targets[i].kind);
		if (ids[i] <= 0)
			return false;
	}
	ids[T_NONE] = 0;
	ids[T_HUGE] = 0x7ffff;
	offs[O_PID] = (int32_t)btf_member_offset(btf, btf_vmlinux_task_struct(), "pid");
	offs[O_FILENAME_NAME] = (int32_t)btf_member_offset(
		btf, btf_find_by_name_kind(btf, "filename", BTF_KIND_STRUCT), "name");
	offs[O_FT_A] = (int32_t)btf_member_offset(
		btf, btf_find_by_name_kind(btf, "bpf_fentry_test_t", BTF_KIND_STRUCT), "a");
	offs[O_BPRM_FILENAME] = (int32_t)btf_member_offset(
		btf, btf_find_by_name_kind(btf, "linux_binprm", BTF_KIND_STRUCT), "filename");
	offs[O_ACQUIRE] = (int32_t)btf_find_func(btf, "bpf_task_acquire");
	offs[O_RELEASE] = (int32_t)btf_find_func(btf, "bpf_task_release");
	for (int i = 0; i < O__COUNT; i++)
		if (offs[i] < (i >= O_ACQUIRE)) /* (member offsets may be 0, ids not) */
			return false;
	return true;
}

#define WANT(err, line) err, line
#define DIFF 0, NULL /* compared with the kernel alone */
#define RUN_OK 1u	/* the test run is compared too */
#define SLEEPABLE 2u

#define LDX(size, dst, src, off) BPF_LDX_MEM(BPF_##size, BPF_REG_##dst, BPF_REG_##src, off)
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()
#define KFUNC(o) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, OFF(o))

static const struct {
	const char *what;
	uint32_t eat, target, opts;
	/* What userbpf must answer where the kernel has no trampolines to check it against
	 * (fentry, fexit and fmod_ret; see the test): errno (0: accepted) and a part of the
	 * log's error line. */
	int want_err;
	const char *want_line;
	struct bpf_insn insns[16];
} cases[] = {
	/* tp_btf */
	{ "tp_btf: the bool and the uint", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 0), LDX(W, 3, 1, 24), BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_3),
	    RET(0) } },
	{ "tp_btf: prev->pid (trusted)", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 8), LDX(W, 0, 2, OFF(O_PID)), BPF_EXIT_INSN() } },
	{ "tp_btf: next, a byte of the uint", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 16), LDX(B, 3, 1, 24), RET(7) } },
	{ "tp_btf: half a pointer", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(W, 2, 1, 8), RET(0) } },
	{ "tp_btf: the slot after the arguments", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 32), RET(0) } },
	{ "tp_btf: two slots after", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 40), RET(0) } },
	{ "tp_btf: misaligned", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(W, 2, 1, 4), RET(0) } },
	{ "tp_btf: unaligned for its size", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(W, 2, 1, 2), RET(0) } },
	{ "tp_btf: negative", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, -8), RET(0) } },
	{ "tp_btf: past 12 slots", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 96), RET(0) } },
	{ "tp_btf: a store", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 1), RET(0) } },
	{ "tp_btf: a store to the task", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 2, 1, 8), BPF_ST_MEM(BPF_W, BPF_REG_2, OFF(O_PID), 1), RET(0) } },
	{ "tp_btf: the task and the u64", BPF_TRACE_RAW_TP, T_NEWTASK, 0, DIFF,
	  { LDX(DW, 2, 1, 0), LDX(W, 0, 2, OFF(O_PID)), LDX(DW, 3, 1, 8),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3), BPF_EXIT_INSN() } },
	{ "tp_btf: a nullable argument without its check", BPF_TRACE_RAW_TP, T_PI, 0, DIFF,
	  { LDX(DW, 2, 1, 8), LDX(W, 0, 2, OFF(O_PID)), BPF_EXIT_INSN() } },
	{ "tp_btf: a nullable argument checked", BPF_TRACE_RAW_TP, T_PI, 0, DIFF,
	  { LDX(DW, 2, 1, 8), BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 100), LDX(W, 0, 2, OFF(O_PID)),
	    BPF_EXIT_INSN() } },
	{ "tp_btf: the other argument needs none", BPF_TRACE_RAW_TP, T_PI, 0, DIFF,
	  { LDX(DW, 2, 1, 0), LDX(W, 0, 2, OFF(O_PID)), BPF_EXIT_INSN() } },
	{ "tp_btf: a trusted task to bpf_task_acquire()", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { LDX(DW, 1, 1, 8), KFUNC(O_ACQUIRE), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 100),
	    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), KFUNC(O_RELEASE), RET(0) } },
	{ "tp_btf: a binprm's filename's first byte", BPF_TRACE_RAW_TP, T_EXEC, 0, DIFF,
	  { LDX(DW, 2, 1, 16), LDX(DW, 3, 2, OFF(O_BPRM_FILENAME)), LDX(B, 0, 3, 0),
	    BPF_EXIT_INSN() } },
	{ "tp_btf: the pid_t", BPF_TRACE_RAW_TP, T_EXEC, 0, DIFF,
	  { LDX(W, 0, 1, 8), BPF_EXIT_INSN() } },
	{ "tp_btf: bpf_get_func_ip()", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { BPF_EMIT_CALL(BPF_FUNC_get_func_ip), RET(0) } },
	{ "tp_btf: sleepable", BPF_TRACE_RAW_TP, T_SWITCH, SLEEPABLE, DIFF, { RET(0) } },
	{ "tp_btf: at a function", BPF_TRACE_RAW_TP, T_FT1, 0, DIFF, { RET(0) } },
	{ "tp_btf: at a typedef of another name", BPF_TRACE_RAW_TP, T_U32, 0, DIFF, { RET(0) } },
	{ "tp_btf: with no target", BPF_TRACE_RAW_TP, T_NONE, 0, DIFF, { RET(0) } },
	{ "tp_btf: at an id past the types", BPF_TRACE_RAW_TP, T_HUGE, 0, DIFF, { RET(0) } },
	/* iterators: seq_printf(meta->seq, "%d\n", [0], 8) */
	{ "iter: meta->seq to bpf_seq_printf()", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF,
	  { LDX(DW, 1, 1, 0), LDX(DW, 1, 1, 0), BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0x000a6425),
	    BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), BPF_MOV64_IMM(BPF_REG_3, 4),
	    BPF_MOV64_REG(BPF_REG_4, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -16),
	    BPF_MOV64_IMM(BPF_REG_5, 8), BPF_EMIT_CALL(BPF_FUNC_seq_printf), RET(0) } },
	{ "iter: bpf_seq_write() of the meta's bytes", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF,
	  { LDX(DW, 2, 1, 0), LDX(DW, 1, 2, 0), BPF_MOV64_IMM(BPF_REG_3, 8),
	    BPF_EMIT_CALL(BPF_FUNC_seq_write), RET(0) } },
	{ "iter: a scalar to bpf_seq_write()", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF,
	  { BPF_MOV64_IMM(BPF_REG_1, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	    BPF_MOV64_IMM(BPF_REG_3, 8), BPF_EMIT_CALL(BPF_FUNC_seq_write), RET(0) } },
	{ "iter: the meta to bpf_seq_write()", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF,
	  { LDX(DW, 1, 1, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	    BPF_MOV64_IMM(BPF_REG_3, 8), BPF_EMIT_CALL(BPF_FUNC_seq_write), RET(0) } },
	{ "tp_btf: bpf_seq_write()", BPF_TRACE_RAW_TP, T_SWITCH, 0, DIFF,
	  { BPF_EMIT_CALL(BPF_FUNC_seq_write), RET(0) } },
	{ "iter: the task's pid, NULL-checked", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF,
	  { LDX(DW, 2, 1, 8), BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 100), LDX(W, 3, 2, OFF(O_PID)),
	    LDX(DW, 4, 1, 0), LDX(DW, 5, 4, 16), RET(0) } },
	{ "iter: returns 2", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF, { RET(2) } },
	{ "iter: returns 1", BPF_TRACE_ITER, T_ITER_TASK, 0, DIFF, { RET(1) } },
	{ "iter: sleepable", BPF_TRACE_ITER, T_ITER_TASK, SLEEPABLE, DIFF, { RET(0) } },
	{ "iter: at a function that is no target", BPF_TRACE_ITER, T_ITER_NONE, 0, DIFF,
	  { RET(0) } },
	/* fentry */
	{ "fentry: the int", BPF_TRACE_FENTRY, T_FT1, RUN_OK, WANT(0, NULL),
	  { LDX(DW, 2, 1, 0), LDX(W, 3, 1, 0), RET(0) } },
	{ "fentry: returns 1", BPF_TRACE_FENTRY, T_FT1, 0,
	  WANT(EINVAL, "At program exit the register R0 has smin=1 smax=1 should have "
		       "been in [0, 0]"),
	  { RET(1) } },
	{ "fentry: the return value", BPF_TRACE_FENTRY, T_FT1, 0,
	  WANT(EACCES, "func 'bpf_fentry_test1' doesn't have 2-th argument"),
	  { LDX(DW, 2, 1, 8), RET(0) } },
	{ "fentry: a struct's field", BPF_TRACE_FENTRY, T_FT7, RUN_OK, WANT(0, NULL),
	  { LDX(DW, 2, 1, 0), LDX(DW, 3, 2, OFF(O_FT_A)), RET(0) } },
	{ "fentry: a filename's name", BPF_TRACE_FENTRY, T_UNLINK, 0, WANT(0, NULL),
	  { LDX(W, 2, 1, 0), LDX(DW, 3, 1, 8), LDX(DW, 4, 3, OFF(O_FILENAME_NAME)),
	    LDX(B, 5, 4, 0), RET(0) } },
	{ "fentry: a plain task to bpf_task_acquire()", BPF_TRACE_FENTRY, T_WAKE, 0,
	  WANT(EINVAL, "R1 must be a rcu pointer"),
	  { LDX(DW, 1, 1, 0), KFUNC(O_ACQUIRE), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 100),
	    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), KFUNC(O_RELEASE), RET(0) } },
	{ "fentry: a task's pid", BPF_TRACE_FENTRY, T_WAKE, 0, WANT(0, NULL),
	  { LDX(DW, 1, 1, 0), LDX(W, 0, 1, OFF(O_PID)), RET(0) } },
	{ "fentry: bpf_get_func_ip()", BPF_TRACE_FENTRY, T_FT1, 0, WANT(0, NULL),
	  { BPF_EMIT_CALL(BPF_FUNC_get_func_ip), RET(0) } },
	{ "fentry: sleepable at a test function", BPF_TRACE_FENTRY, T_FT1, SLEEPABLE,
	  WANT(0, NULL),
	  { RET(0) } },
	{ "fentry: sleepable elsewhere", BPF_TRACE_FENTRY, T_UNLINK, SLEEPABLE,
	  WANT(EINVAL, "do_unlinkat is not sleepable"),
	  { RET(0) } },
	{ "fentry: at a function it may not trace", BPF_TRACE_FENTRY, T_MIGRATE, 0,
	  WANT(EINVAL, "Attaching tracing programs to function 'migrate_disable' is rejected."),
	  { RET(0) } },
	{ "fentry: at a function that never returns", BPF_TRACE_FENTRY, T_EXIT, 0,
	  WANT(0, NULL), { RET(0) } },
	{ "fentry: at a function returning a struct", BPF_TRACE_FENTRY, T_NS_TO_TS, 0,
	  WANT(EINVAL, "The function ns_to_timespec64 return type STRUCT is unsupported."),
	  { RET(0) } },
	{ "fentry: at a struct", BPF_TRACE_FENTRY, T_STRUCT, 0,
	  WANT(EINVAL, "is not a function"),
	  { RET(0) } },
	{ "fentry: at a tracepoint", BPF_TRACE_FENTRY, T_SWITCH, 0,
	  WANT(EINVAL, "is not a function"),
	  { RET(0) } },
	{ "fentry: with no target", BPF_TRACE_FENTRY, T_NONE, 0,
	  WANT(EINVAL, "Tracing programs must provide btf_id"),
	  { RET(0) } },
	{ "attach type 0 at a function", 0, T_FT1, 0, DIFF, { RET(0) } },
	/* fexit */
	{ "fexit: the return value", BPF_TRACE_FEXIT, T_FT1, RUN_OK, WANT(0, NULL),
	  { LDX(DW, 2, 1, 0), LDX(DW, 3, 1, 8), LDX(W, 4, 1, 8), RET(0) } },
	{ "fexit: past the return value", BPF_TRACE_FEXIT, T_FT1, 0,
	  WANT(EACCES, "func 'bpf_fentry_test1' doesn't have 3-th argument"),
	  { LDX(DW, 3, 1, 16), RET(0) } },
	{ "fexit: returns 2", BPF_TRACE_FEXIT, T_UNLINK, 0,
	  WANT(EINVAL, "At program exit the register R0 has smin=2 smax=2 should have "
		       "been in [0, 0]"),
	  { RET(2) } },
	{ "fexit: at a function that never returns", BPF_TRACE_FEXIT, T_EXIT, 0,
	  WANT(EINVAL, "Attaching fexit/fmod_ret to __noreturn function 'do_exit' is rejected."),
	  { RET(0) } },
	{ "fexit: a void function's return slot", BPF_TRACE_FEXIT, T_KFREE, 0,
	  WANT(EACCES, "func 'kfree' doesn't have 3-th argument"),
	  { LDX(DW, 2, 1, 8), RET(0) } },
	/* fmod_ret */
	{ "fmod_ret: the int pointer and the return value", BPF_MODIFY_RETURN, T_MODRET, RUN_OK,
	  WANT(0, NULL),
	  { LDX(DW, 2, 1, 8), LDX(DW, 3, 1, 16), BPF_MOV64_REG(BPF_REG_0, BPF_REG_3),
	    BPF_EXIT_INSN() } },
	{ "fmod_ret: a security hook", BPF_MODIFY_RETURN, T_SECURITY, 0, WANT(0, NULL),
	  { LDX(DW, 0, 1, 8), BPF_EXIT_INSN() } },
	{ "fmod_ret: a function it may not modify", BPF_MODIFY_RETURN, T_UNLINK, 0,
	  WANT(EINVAL, "do_unlinkat() is not modifiable"),
	  { RET(0) } },
	{ "fmod_ret: at a function returning a struct", BPF_MODIFY_RETURN, T_NS_TO_TS, 0,
	  WANT(EINVAL, "The function ns_to_timespec64 return type STRUCT is unsupported."),
	  { RET(0) } },
};

static uint32_t build(size_t i, struct bpf_insn *p)
{
	uint32_t n = insns_used(cases[i].insns, 16);

	memcpy(p, cases[i].insns, n * sizeof(*p));
	fill_placeholders(p, n, offs, O__COUNT);
	return fill_tail_jumps(p, n);
}

static struct bpf_result load(int s, size_t i, const struct bpf_insn *p, uint32_t n, char *log,
			      size_t log_size)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = cases[i].eat;
	a.attach_btf_id = (uint32_t)ids[cases[i].target];
	a.prog_flags = cases[i].opts & SLEEPABLE ? BPF_F_SLEEPABLE : 0;
	a.insns = PTR_TO_U64(p);
	a.insn_cnt = n;
	a.license = PTR_TO_U64("GPL");
	a.log_buf = PTR_TO_U64(log);
	a.log_size = (uint32_t)log_size;
	a.log_level = 2;
	log[0] = 0;
	return side_call(s, BPF_PROG_LOAD, &a);
}

/* BPF_PROG_TEST_RUN of userbpf's program fd of case i without a kernel to compare with: the
 * kernel's answer (bpf_prog_test_run_tracing(), 6.18) with no program attached to its test
 * functions: fentry and fexit 0; fmod_ret 4 from bpf_modify_return_test(1, &b) and 29 from
 * bpf_modify_return_test2(1, &b, 3, 4, 5, 6, 7), each adding 1 to b (side effects: 2). */
static bool test_run_agrees(size_t i, int fd)
{
	union bpf_attr a;
	uint32_t want = cases[i].eat == BPF_MODIFY_RETURN ? 2u << 16 | 33 : 0;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)fd;
	a.test.retval = 0xdead;
	if (side_call(U, BPF_PROG_TEST_RUN, &a).rc || a.test.retval != want)
		return false;
	a.test.flags = BPF_F_TEST_RUN_ON_CPU; /* (not for this type) */
	return side_call(U, BPF_PROG_TEST_RUN, &a).err == EINVAL;
}

TEST(diff_tracing_btf)
{
	static char log[NSIDES][1 << 16];
	int accepted = 0, same_log = 0, runs = 0, expected = 0, u_accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_ids())
		SKIP("no kernel BTF with the test's targets (/sys/kernel/btf/vmlinux)");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[20];
		uint32_t n = build(i, p);
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = load(s, i, p, n, log[s], sizeof(log[s]));
		/* A kernel that cannot make trampolines (this one, a paravirtualised kernel
		 * locked down, answers EPERM before verifying anything) cannot be compared
		 * with: userbpf's answer must then be what the case expects, from the kernel's
		 * source (bpf_check_attach_target(), btf_ctx_access(), 6.18). */
		if ((cases[i].eat == BPF_TRACE_FENTRY || cases[i].eat == BPF_TRACE_FEXIT ||
		     cases[i].eat == BPF_MODIFY_RETURN) && !kernel_has_trampolines()) {
			const char *line = log_error_line(log[U]);

			if (cases[i].want_err ? r[U].err != cases[i].want_err
					      : r[U].rc < 0)
				test_fail(__FILE__, __LINE__,
					  "%s: userbpf rc %d errno %d, want %d\n%s", cases[i].what,
					  r[U].rc, r[U].err, cases[i].want_err, log[U]);
			else if (cases[i].want_err && !strstr(log[U], cases[i].want_line))
				test_fail(__FILE__, __LINE__, "%s: error line %s, no %s in the log",
					  cases[i].what, line ? line : "(none)",
					  cases[i].want_line);
			else
				expected++;
			if (r[U].rc >= 0) {
				u_accepted++;
				CHECK(test_run_agrees(i, r[U].rc));
				close(r[U].rc);
			}
			continue;
		}
		if (AGREE(cases[i].what, r)) {
			for (int s = 0; s < NSIDES; s++)
				log_cut_stats(log[s]);
			same_log += LOGS_SAME(cases[i].what, log[K], log[U]);
		}
		if (r[K].rc >= 0)
			accepted++;
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s (%d)\n%s", cases[i].what,
			       r[K].rc >= 0 ? "accepted" : "refused", r[K].err, log[K]);
		if (r[K].rc >= 0 && r[U].rc >= 0) {
			/* BPF_PROG_TEST_RUN: fentry and fexit 0, fmod_ret what the kernel's
			 * test functions returned, tp_btf EFAULT */
			struct bpf_result t[NSIDES];
			uint32_t retval[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.test.prog_fd = (uint32_t)r[s].rc;
				a.test.retval = 0xdead;
				t[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
				retval[s] = a.test.retval;
			}
			if (AGREE(cases[i].what, t) && t[K].rc == 0) {
				CHECK_EQ(retval[U], retval[K]);
				runs++;
			}
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	printf("diff_tracing_btf: %zu programs, %d accepted, %d with the whole level-2 log equal, "
	       "%d test runs with the kernel's answer; %d trampoline programs (the kernel here "
	       "has no trampolines) checked against their expected answers (%d accepted)\n",
	       ARRAY_SIZE(cases), accepted, same_log, runs, expected, u_accepted);
	CHECK_EQ(same_log + expected, (int)ARRAY_SIZE(cases));
	CHECK(same_log >= 23); /* (tp_btf's) */
	CHECK(accepted + u_accepted >= 15);
	CHECK(expected || runs >= 5);
}

/* Every BTF tracepoint of the kernel: a tp_btf program reading each argument slot (8 bytes),
 * one reading the slot past them, and one dereferencing each argument after reading it (a
 * byte at offset 0, no NULL check): verdict, errno and whole level-2 log must be the kernel's,
 * over the kernel's own prototypes (scalars, enums, pointers to structs, to scalars, to void,
 * nullable arguments, error pointers). */
static uint32_t tp_prog(struct bpf_insn *p, uint32_t nargs, int kind)
{
	uint32_t n = 0;

	if (kind == 1) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, (short)(8 * nargs));
	} else {
		for (uint32_t i = 0; i < nargs; i++) {
			p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, (short)(8 * i));
			if (kind == 2)
				p[n++] = BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_2, 0);
		}
	}
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* The three programs of tp_prog() for BTF type id (a tracepoint's typedef or an iterator's
 * function) of nargs arguments, loaded on both sides as attach type eat: verdicts, errno and
 * whole level-2 logs must agree.  Counted in progs, accepted (by the kernel) and same. */
static void sweep_target(uint32_t id, const char *name, uint32_t nargs, uint32_t eat, int *progs,
			 int *accepted, int *same)
{
	static char log[NSIDES][1 << 16];
	char what[160];

	for (int kind = 0; kind < 3; kind++) {
		struct bpf_insn p[40];
		uint32_t n = tp_prog(p, nargs, kind);
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.prog_type = BPF_PROG_TYPE_TRACING;
			a.expected_attach_type = eat;
			a.attach_btf_id = id;
			a.insns = PTR_TO_U64(p);
			a.insn_cnt = n;
			a.license = PTR_TO_U64("GPL");
			a.log_buf = PTR_TO_U64(log[s]);
			a.log_size = sizeof(log[s]);
			a.log_level = 2;
			log[s][0] = 0;
			r[s] = side_call(s, BPF_PROG_LOAD, &a);
			if (r[s].rc >= 0)
				close(r[s].rc);
			log_cut_stats(log[s]);
		}
		snprintf(what, sizeof(what), "%s (%d)", name, kind);
		(*progs)++;
		*accepted += r[K].rc >= 0;
		if (AGREE(what, r))
			*same += LOGS_SAME(what, log[K], log[U]);
	}
}

TEST(diff_tracing_btf_all_tracepoints)
{
	const struct btf *btf = btf_vmlinux();
	int tps = 0, progs = 0, same = 0, accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf)
		SKIP("no kernel BTF (/sys/kernel/btf/vmlinux)");
	for (uint32_t id = 1; id < btf->nr_types; id++) {
		const struct btf_type *t = btf_type_by_id(btf, id), *pt;
		const char *name = btf_str_by_offset(btf, t->name_off);
		uint32_t nargs;

		if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPEDEF || !name ||
		    strncmp(name, "btf_trace_", 10))
			continue;
		pt = btf_type_by_id(btf, t->type);
		pt = pt ? btf_type_by_id(btf, pt->type) : NULL;
		if (!pt || BTF_INFO_KIND(pt->info) != BTF_KIND_FUNC_PROTO || !BTF_INFO_VLEN(pt->info))
			continue;
		nargs = BTF_INFO_VLEN(pt->info) - 1;
		if (nargs > 12)
			continue;
		tps++;
		sweep_target(id, name, nargs, BPF_TRACE_RAW_TP, &progs, &accepted, &same);
	}
	printf("diff_tracing_btf_all_tracepoints: %d tracepoints, %d programs (%d accepted), %d "
	       "with the whole level-2 log equal\n", tps, progs, accepted, same);
	CHECK_EQ(same, progs);
	CHECK(tps > 100);
}

/* Every function of the kernel's BTF named bpf_iter_* as an iterator program's target (the
 * registered targets among them, and the functions that are none), the same three programs:
 * the kernel's verdicts and whole level-2 logs.  The targets whose arguments are buffers
 * (which userbpf does not verify, and the kernel here refuses with EPERM) are left out. */
TEST(diff_tracing_btf_all_iterators)
{
	static const char *const buf_targets[] = { "bpf_iter_bpf_map_elem",
						   "bpf_iter_bpf_sk_storage_map",
						   "bpf_iter_sockmap" };
	const struct btf *btf = btf_vmlinux();
	int funcs = 0, progs = 0, same = 0, accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf)
		SKIP("no kernel BTF (/sys/kernel/btf/vmlinux)");
	for (uint32_t id = 1; id < btf->nr_types; id++) {
		const struct btf_type *t = btf_type_by_id(btf, id), *pt;
		const char *name = btf_str_by_offset(btf, t->name_off);
		bool buf = false;

		if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC || !name || strncmp(name, "bpf_iter_", 9))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(buf_targets); i++)
			buf |= !strcmp(name, buf_targets[i]);
		pt = btf_type_by_id(btf, t->type);
		if (buf || !pt || BTF_INFO_VLEN(pt->info) > 12)
			continue;
		funcs++;
		sweep_target(id, name, BTF_INFO_VLEN(pt->info), BPF_TRACE_ITER, &progs, &accepted,
			     &same);
	}
	printf("diff_tracing_btf_all_iterators: %d functions, %d programs (%d accepted), %d with "
	       "the whole level-2 log equal\n", funcs, progs, accepted, same);
	CHECK_EQ(same, progs);
	CHECK(accepted >= 15);
}
