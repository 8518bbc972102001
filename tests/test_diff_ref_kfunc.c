/* kfuncs that hand out references to kernel objects, against the kernel: bpf_task_acquire() and
 * bpf_task_release() on the current task and the tasks reached from it, bpf_task_from_pid() and
 * bpf_task_from_vpid() on this process's ids and ids no task has; bpf_cgroup_acquire(),
 * _release(), _ancestor() and _from_id() on the current task's cgroup (task->cgroups->dfl_cgrp)
 * and bpf_task_under_cgroup(); the task and cgroup (css) iterators.  The references they make
 * must be released on every path, once,
 * with the pointer as acquired; their arguments must be trusted (or, for the RCU kfuncs,
 * RCU-protected) objects of the struct they take.  Each program's verdict, errno and whole
 * level-2 log must be the kernel's; the accepted ones then run on both sides (XDP, tc and
 * sleepable syscall programs), JIT-compiled and interpreted, and must return the kernel's value
 * (this thread's ids, its parent's, its cgroup's id, level and ancestors), in the cgroup this
 * process is in and again in a nested one where cgroup2 is writable.  Skipped without the
 * kernel's BTF or bpf().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "test_cgroup.h"
#include "userbpf.h"
#include "userbpf/insn.h"

/* Values a case names by placeholder (an off or imm of VAL(n)), filled in at run time. */
enum {
	V_PID, V_TGID, V_RP, V_PARENT, V_COMM, V_CGROUPS, V_DFL_CGRP, V_KN, V_KN_ID, V_LEVEL,
	V_ANCESTORS, V_CSS_CGROUP,
	V_ACQUIRE, V_RELEASE, V_FROM_PID, V_FROM_VPID, V_RCU_LOCK, V_RCU_UNLOCK, /* kfunc ids */
	V_CG_ACQUIRE, V_CG_RELEASE, V_CG_ANCESTOR, V_CG_FROM_ID, V_UNDER,
	V_ITER_NEW, V_ITER_NEXT, V_ITER_DESTROY, V_CSS_NEW, V_CSS_NEXT, V_CSS_DESTROY,
	V_CT_NEW, V_CT_NEXT, V_CT_DESTROY,
	V_MY_PID, V_MY_TID, V_PARENT_PID, V_GRANDPARENT_PID, /* this process's ids */
	V__COUNT
};
#define VAL(n) PLACEHOLDER(n)
static s32 vals[V__COUNT];

static bool fill_values(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 task, cset, cgroup, kn;

	if (!btf)
		return false;
	task = btf_find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	cset = btf_find_by_name_kind(btf, "css_set", BTF_KIND_STRUCT);
	cgroup = btf_find_by_name_kind(btf, "cgroup", BTF_KIND_STRUCT);
	kn = btf_find_by_name_kind(btf, "kernfs_node", BTF_KIND_STRUCT);
	if (!task || !cset || !cgroup || !kn)
		return false;
	vals[V_CGROUPS] = (s32)btf_member_offset(btf, task, "cgroups");
	vals[V_DFL_CGRP] = (s32)btf_member_offset(btf, cset, "dfl_cgrp");
	vals[V_KN] = (s32)btf_member_offset(btf, cgroup, "kn");
	vals[V_KN_ID] = (s32)btf_member_offset(btf, kn, "id");
	vals[V_LEVEL] = (s32)btf_member_offset(btf, cgroup, "level");
	vals[V_ANCESTORS] = (s32)btf_member_offset(btf, cgroup, "ancestors");
	vals[V_CG_ACQUIRE] = (s32)btf_find_func(btf, "bpf_cgroup_acquire");
	vals[V_CG_RELEASE] = (s32)btf_find_func(btf, "bpf_cgroup_release");
	vals[V_CG_ANCESTOR] = (s32)btf_find_func(btf, "bpf_cgroup_ancestor");
	vals[V_CG_FROM_ID] = (s32)btf_find_func(btf, "bpf_cgroup_from_id");
	vals[V_UNDER] = (s32)btf_find_func(btf, "bpf_task_under_cgroup");
	vals[V_ITER_NEW] = (s32)btf_find_func(btf, "bpf_iter_task_new");
	vals[V_ITER_NEXT] = (s32)btf_find_func(btf, "bpf_iter_task_next");
	vals[V_ITER_DESTROY] = (s32)btf_find_func(btf, "bpf_iter_task_destroy");
	vals[V_CSS_NEW] = (s32)btf_find_func(btf, "bpf_iter_css_new");
	vals[V_CSS_NEXT] = (s32)btf_find_func(btf, "bpf_iter_css_next");
	vals[V_CSS_DESTROY] = (s32)btf_find_func(btf, "bpf_iter_css_destroy");
	vals[V_CT_NEW] = (s32)btf_find_func(btf, "bpf_iter_css_task_new");
	vals[V_CT_NEXT] = (s32)btf_find_func(btf, "bpf_iter_css_task_next");
	vals[V_CT_DESTROY] = (s32)btf_find_func(btf, "bpf_iter_css_task_destroy");
	vals[V_CSS_CGROUP] = (s32)btf_member_offset(btf, btf_find_by_name_kind(btf,
		"cgroup_subsys_state", BTF_KIND_STRUCT), "cgroup");
	vals[V_PID] = (s32)btf_member_offset(btf, task, "pid");
	vals[V_TGID] = (s32)btf_member_offset(btf, task, "tgid");
	vals[V_RP] = (s32)btf_member_offset(btf, task, "real_parent");
	vals[V_PARENT] = (s32)btf_member_offset(btf, task, "parent");
	vals[V_COMM] = (s32)btf_member_offset(btf, task, "comm");
	vals[V_ACQUIRE] = (s32)btf_find_func(btf, "bpf_task_acquire");
	vals[V_RELEASE] = (s32)btf_find_func(btf, "bpf_task_release");
	vals[V_FROM_PID] = (s32)btf_find_func(btf, "bpf_task_from_pid");
	vals[V_FROM_VPID] = (s32)btf_find_func(btf, "bpf_task_from_vpid");
	vals[V_RCU_LOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_lock");
	vals[V_RCU_UNLOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_unlock");
	vals[V_MY_PID] = getpid();
	vals[V_MY_TID] = gettid();
	vals[V_PARENT_PID] = getppid();
	vals[V_GRANDPARENT_PID] = proc_grandparent();
	for (int i = 0; i < V_MY_PID; i++) /* (offsets go in an s16) */
		if (vals[i] < 0 || (i < V_ACQUIRE && vals[i] > 32767) ||
		    (i >= V_ACQUIRE && !vals[i]))
			return false;
	return true;
}

#define TASK BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf)
#define LD(size, dst, src, o) BPF_LDX_MEM(BPF_##size, BPF_REG_##dst, BPF_REG_##src, VAL(o))
#define KFUNC(v) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, VAL(v))
#define MOV(dst, src) BPF_MOV64_REG(BPF_REG_##dst, BPF_REG_##src)
#define IMM(dst, v) BPF_MOV64_IMM(BPF_REG_##dst, v)
#define IF_NULL(reg, skip) BPF_JMP_IMM(BPF_JEQ, BPF_REG_##reg, 0, skip)
#define EXIT BPF_EXIT_INSN()
/* r0 = current, acquired, NULL-checked (returns 0 if NULL), in r6 */
#define ACQUIRE_CURRENT TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 100), MOV(6, 0)
#define RELEASE(reg) MOV(1, reg), KFUNC(V_RELEASE)
#define CG_RELEASE(reg) MOV(1, reg), KFUNC(V_CG_RELEASE)
/* r1 = the current task's cgroup (an RCU pointer) */
#define CGROUP TASK, LD(DW, 1, 0, V_CGROUPS), LD(DW, 1, 1, V_DFL_CGRP)
/* r0 = the current cgroup, acquired, NULL-checked (returns 0 if NULL), in r6 */
#define ACQUIRE_CGROUP CGROUP, KFUNC(V_CG_ACQUIRE), IF_NULL(0, 100), MOV(6, 0)

/* The task iterator at fp-24: _new(r2 as set before, flags), _next(), _destroy() */
#define ITER_NEW(flags) MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), IMM(3, flags),       \
	KFUNC(V_ITER_NEW)
#define ITER_NEXT MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_ITER_NEXT)
#define ITER_DESTROY MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_ITER_DESTROY)
/* r7 = 1 if the iterator (made before) gives a task whose pid is the placeholder's, else as
 * it was; then the iterator destroyed (10 + 3 insns) */
#define ITER_FIND(v) ITER_NEXT, IF_NULL(0, 5), LD(W, 1, 0, V_PID), IMM(2, VAL(v)),               \
	BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 1), IMM(7, 1), BPF_JMP_A(-9), ITER_DESTROY
/* r7 = how many tasks the iterator gives; then destroyed */
#define ITER_COUNT ITER_NEXT, IF_NULL(0, 2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),               \
	BPF_JMP_A(-6), ITER_DESTROY

/* The cgroup iterator over the current cgroup (acquired by id, in r6) with flags: r7 = an
 * order-sensitive sum of the ids it gives (r7 * 31 + id each); then destroyed, r6 released */
#define CSS_SUM(flags) BPF_EMIT_CALL(BPF_FUNC_get_current_cgroup_id), MOV(1, 0),                  \
	KFUNC(V_CG_FROM_ID), IF_NULL(0, 100), MOV(6, 0), IMM(7, 0), MOV(1, 10),                  \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), MOV(2, 6), IMM(3, flags), KFUNC(V_CSS_NEW),       \
	MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_CSS_NEXT), IF_NULL(0, 6),     \
	LD(DW, 1, 0, V_CSS_CGROUP), LD(DW, 1, 1, V_KN), LD(DW, 1, 1, V_KN_ID),                    \
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_7, 31), BPF_ALU64_REG(BPF_ADD, BPF_REG_7, BPF_REG_1),      \
	BPF_JMP_A(-10), MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_CSS_DESTROY), \
	CG_RELEASE(6), MOV(0, 7), EXIT

/* The cgroup tasks iterator at fp-24 over the current cgroup's processes (the cgroup acquired by
 * id, in r6; r7 = 0), then its first _next() */
#define CT_NEW_NEXT BPF_EMIT_CALL(BPF_FUNC_get_current_cgroup_id), MOV(1, 0),                    \
	KFUNC(V_CG_FROM_ID), IF_NULL(0, 100), MOV(6, 0), IMM(7, 0), MOV(1, 10),                  \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), MOV(2, 6), IMM(3, 1), KFUNC(V_CT_NEW),            \
	MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_CT_NEXT)
/* ...and its end: destroyed, r6 released, r7 returned */
#define CT_END MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), KFUNC(V_CT_DESTROY),           \
	CG_RELEASE(6), MOV(0, 7), EXIT

/* A case's opts: the run's value is the kernel's too; loaded with BPF_F_SLEEPABLE; run in the
 * nested cgroup only (a subtree made for it: the whole hierarchy may hold cgroups removed but not
 * yet freed, which the kernel visits and userbpf cannot see). */
#define RUN 1u
#define SLEEPABLE 2u
#define NESTED 4u

#define XDP BPF_PROG_TYPE_XDP
#define TC BPF_PROG_TYPE_SCHED_CLS
#define SYSCALL BPF_PROG_TYPE_SYSCALL
#define RAW_TP BPF_PROG_TYPE_RAW_TRACEPOINT

static const struct {
	const char *what;
	uint32_t type;
	uint32_t opts;		/* RUN, SLEEPABLE */
	struct bpf_insn insns[40];
} cases[] = {
	{ "acquire the current task, read its pid, release it", XDP, RUN,
	  { ACQUIRE_CURRENT, LD(W, 7, 6, V_PID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "the same in tc", TC, RUN,
	  { ACQUIRE_CURRENT, LD(W, 7, 6, V_TGID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "the same in a sleepable syscall program", SYSCALL, RUN | SLEEPABLE,
	  { ACQUIRE_CURRENT, LD(W, 7, 6, V_TGID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "not in a raw tracepoint", RAW_TP, 0,
	  { ACQUIRE_CURRENT, RELEASE(6), IMM(0, 0), EXIT } },
	{ "not released", XDP, 0,
	  { ACQUIRE_CURRENT, IMM(0, 0), EXIT } },
	{ "released on one path only", XDP, 0,
	  { ACQUIRE_CURRENT, LD(W, 7, 6, V_PID), BPF_JMP_IMM(BPF_JGT, BPF_REG_7, 5, 2), RELEASE(6),
	    IMM(0, 0), EXIT } },
	{ "released twice", XDP, 0,
	  { ACQUIRE_CURRENT, RELEASE(6), RELEASE(6), IMM(0, 0), EXIT } },
	{ "read after its release", XDP, 0,
	  { ACQUIRE_CURRENT, RELEASE(6), LD(W, 0, 6, V_PID), EXIT } },
	{ "released without its NULL check", XDP, 0,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), RELEASE(0), IMM(0, 0), EXIT } },
	{ "read without its NULL check", XDP, 0,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), LD(W, 0, 0, V_PID), EXIT } },
	{ "release of the current task (not acquired)", XDP, 0,
	  { TASK, RELEASE(0), IMM(0, 0), EXIT } },
	{ "release of the acquired pointer plus 8", XDP, 0,
	  { ACQUIRE_CURRENT, BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 8), RELEASE(6), IMM(0, 0), EXIT } },
	{ "acquire of the current task plus pid's offset", XDP, 0,
	  { TASK, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, VAL(V_PID)), MOV(1, 0), KFUNC(V_ACQUIRE),
	    IF_NULL(0, 1), RELEASE(0), IMM(0, 0), EXIT } },
	{ "acquire of real_parent (RCU)", XDP, RUN,
	  { TASK, LD(DW, 1, 0, V_RP), KFUNC(V_ACQUIRE), IF_NULL(0, 100), MOV(6, 0),
	    LD(W, 7, 6, V_TGID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "acquire of parent (untrusted)", XDP, 0,
	  { TASK, LD(DW, 1, 0, V_PARENT), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0),
	    EXIT } },
	{ "acquire of a stack pointer", XDP, 0,
	  { IMM(0, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -8), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0),
	    IMM(0, 0), EXIT } },
	{ "acquire of NULL", XDP, 0,
	  { IMM(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0), EXIT } },
	{ "acquire of a scalar", XDP, 0,
	  { IMM(1, 64), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0), EXIT } },
	{ "acquire of the ctx", XDP, 0,
	  { KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0), EXIT } },
	{ "an acquired task's real_parent", XDP, RUN,
	  { ACQUIRE_CURRENT, LD(DW, 7, 6, V_RP), LD(W, 7, 7, V_TGID), RELEASE(6), MOV(0, 7),
	    EXIT } },
	{ "two references, released in either order", XDP, RUN,
	  { ACQUIRE_CURRENT, MOV(1, 6), KFUNC(V_ACQUIRE), IF_NULL(0, 8), MOV(7, 0), RELEASE(6),
	    LD(W, 8, 7, V_PID), RELEASE(7), MOV(0, 8), EXIT, RELEASE(6), IMM(0, 1), EXIT } },
	{ "spilled and filled", XDP, RUN,
	  { ACQUIRE_CURRENT, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_6, -8),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), KFUNC(V_RELEASE), IMM(0, 3), EXIT } },
	{ "from_pid(this process)", XDP, RUN,
	  { IMM(1, VAL(V_MY_PID)), KFUNC(V_FROM_PID), IF_NULL(0, 100), MOV(6, 0),
	    LD(W, 7, 6, V_TGID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_pid(this thread)'s real_parent", TC, RUN,
	  { IMM(1, VAL(V_MY_TID)), KFUNC(V_FROM_PID), IF_NULL(0, 100), MOV(6, 0),
	    LD(DW, 7, 6, V_RP), LD(W, 7, 7, V_PID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_pid(the parent process)", SYSCALL, RUN | SLEEPABLE,
	  { IMM(1, VAL(V_PARENT_PID)), KFUNC(V_FROM_PID), IF_NULL(0, 100), MOV(6, 0),
	    LD(W, 7, 6, V_PID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_pid(the grandparent process)'s name", XDP, RUN,
	  { IMM(1, VAL(V_GRANDPARENT_PID)), KFUNC(V_FROM_PID), IF_NULL(0, 100), MOV(6, 0),
	    LD(W, 7, 6, V_COMM), RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_pid(the parent)'s real_parent's pid", XDP, RUN,
	  { IMM(1, VAL(V_PARENT_PID)), KFUNC(V_FROM_PID), IF_NULL(0, 100), MOV(6, 0),
	    LD(DW, 7, 6, V_RP), LD(W, 7, 7, V_PID), RELEASE(6), MOV(0, 7), EXIT } },
	{ "release of parent (untrusted)", XDP, 0,
	  { TASK, LD(DW, 1, 0, V_PARENT), KFUNC(V_RELEASE), IMM(0, 0), EXIT } },
	{ "release of an RCU pointer", XDP, 0,
	  { TASK, LD(DW, 1, 0, V_RP), KFUNC(V_RELEASE), IMM(0, 0), EXIT } },
	{ "acquire of a map", XDP, 0,
	  { BPF_LD_MAP_FD(BPF_REG_1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0),
	    EXIT } },
	{ "acquire, then the NULL branch reads it", XDP, 0,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	    LD(W, 0, 0, V_PID), EXIT, RELEASE(0), IMM(0, 0), EXIT } },
	{ "NULL-checked twice, released on both", TC, RUN,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), MOV(6, 0), IF_NULL(6, 100), IF_NULL(0, 2),
	    RELEASE(0), IMM(0, 4), EXIT } },
	{ "an acquired task's tgid probe-read", XDP, RUN,
	  { ACQUIRE_CURRENT, BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), IMM(2, 4), MOV(3, 6),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, VAL(V_TGID)),
	    BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_10, -8),
	    RELEASE(6), MOV(0, 7), EXIT } },
	{ "an acquired task as memory for bpf_strtol()", XDP, 0,
	  { ACQUIRE_CURRENT, MOV(1, 6), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, VAL(V_COMM)), IMM(2, 4),
	    IMM(3, 0), MOV(4, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
	    BPF_EMIT_CALL(BPF_FUNC_strtol), RELEASE(6), IMM(0, 0), EXIT } },
	{ "an acquired task's pointer compared with current", XDP, RUN,
	  { ACQUIRE_CURRENT, TASK, IMM(7, 7), BPF_JMP_REG(BPF_JNE, BPF_REG_0, BPF_REG_6, 1),
	    IMM(7, 8), RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_pid(0), from_pid(-1), from_pid(2^30): none", XDP, RUN,
	  { IMM(8, 0), IMM(1, 0), KFUNC(V_FROM_PID), IF_NULL(0, 2), RELEASE(0), IMM(8, 1),
	    IMM(1, -1), KFUNC(V_FROM_PID), IF_NULL(0, 2), RELEASE(0), BPF_ALU64_IMM(BPF_OR,
	    BPF_REG_8, 2), IMM(1, 1 << 30), KFUNC(V_FROM_PID), IF_NULL(0, 2), RELEASE(0),
	    BPF_ALU64_IMM(BPF_OR, BPF_REG_8, 4), MOV(0, 8), EXIT } },
	{ "from_vpid(this thread) is the current task", XDP, RUN,
	  { IMM(1, VAL(V_MY_TID)), KFUNC(V_FROM_VPID), IF_NULL(0, 100), MOV(6, 0), TASK,
	    IMM(7, 1), BPF_JMP_REG(BPF_JEQ, BPF_REG_0, BPF_REG_6, 1), IMM(7, 0), RELEASE(6),
	    MOV(0, 7), EXIT } },
	{ "from_pid not released", XDP, 0,
	  { IMM(1, 1), KFUNC(V_FROM_PID), IMM(0, 0), EXIT } },
	{ "from_pid of a pointer", XDP, 0,
	  { KFUNC(V_FROM_PID), IF_NULL(0, 1), RELEASE(0), IMM(0, 0), EXIT } },
	{ "sleepable: acquire of real_parent outside RCU", SYSCALL, SLEEPABLE,
	  { TASK, LD(DW, 1, 0, V_RP), KFUNC(V_ACQUIRE), IF_NULL(0, 1), RELEASE(0), IMM(0, 0),
	    EXIT } },
	{ "sleepable: acquire of real_parent inside RCU, kept after", SYSCALL, RUN | SLEEPABLE,
	  { KFUNC(V_RCU_LOCK), TASK, LD(DW, 1, 0, V_RP), KFUNC(V_ACQUIRE), MOV(6, 0),
	    KFUNC(V_RCU_UNLOCK), IF_NULL(6, 100), LD(W, 7, 6, V_TGID), RELEASE(6), MOV(0, 7),
	    EXIT } },
	{ "released inside RCU", XDP, RUN,
	  { ACQUIRE_CURRENT, KFUNC(V_RCU_LOCK), RELEASE(6), KFUNC(V_RCU_UNLOCK), IMM(0, 5),
	    EXIT } },
	{ "an acquired task returned", XDP, 0,
	  { ACQUIRE_CURRENT, MOV(0, 6), EXIT } },
	/* cgroups */
	{ "the current cgroup's id and level", XDP, RUN,
	  { CGROUP, LD(DW, 2, 1, V_KN), LD(DW, 0, 2, V_KN_ID), LD(W, 3, 1, V_LEVEL),
	    BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	    EXIT } },
	{ "its id is bpf_get_current_cgroup_id()'s", TC, RUN,
	  { BPF_EMIT_CALL(BPF_FUNC_get_current_cgroup_id), MOV(6, 0), CGROUP, LD(DW, 2, 1, V_KN),
	    LD(DW, 2, 2, V_KN_ID), IMM(0, 1), BPF_JMP_REG(BPF_JEQ, BPF_REG_2, BPF_REG_6, 1),
	    IMM(0, 0), EXIT } },
	{ "acquire the current cgroup, read its root ancestor's id", XDP, RUN,
	  { ACQUIRE_CGROUP, IMM(8, 0), MOV(1, 6), IMM(2, 0),
	    KFUNC(V_CG_ANCESTOR), IF_NULL(0, 5), MOV(7, 0), LD(DW, 8, 7, V_KN),
	    LD(DW, 8, 8, V_KN_ID), CG_RELEASE(7), CG_RELEASE(6), MOV(0, 8), EXIT } },
	{ "ancestors[0] read directly", XDP, 0,
	  { ACQUIRE_CGROUP, LD(DW, 7, 6, V_ANCESTORS), CG_RELEASE(6), IMM(0, 0), EXIT } },
	{ "ancestors at -1, at its level and beyond it", XDP, RUN,
	  { ACQUIRE_CGROUP, IMM(8, 0), LD(W, 9, 6, V_LEVEL), MOV(1, 6), IMM(2, -1),
	    KFUNC(V_CG_ANCESTOR), IF_NULL(0, 2), CG_RELEASE(0), IMM(8, 1), MOV(1, 6), MOV(2, 9),
	    KFUNC(V_CG_ANCESTOR), IF_NULL(0, 3), CG_RELEASE(0), BPF_ALU64_IMM(BPF_OR, BPF_REG_8,
	    2), MOV(1, 6), MOV(2, 9), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
	    KFUNC(V_CG_ANCESTOR), IF_NULL(0, 3), CG_RELEASE(0), BPF_ALU64_IMM(BPF_OR, BPF_REG_8,
	    4), CG_RELEASE(6), MOV(0, 8), EXIT } },
	{ "from_id(the current cgroup's id) is the task's cgroup", XDP, RUN,
	  { BPF_EMIT_CALL(BPF_FUNC_get_current_cgroup_id), MOV(1, 0), KFUNC(V_CG_FROM_ID),
	    IF_NULL(0, 100), MOV(6, 0), CGROUP, IMM(7, 2), BPF_JMP_REG(BPF_JNE, BPF_REG_1,
	    BPF_REG_6, 1), IMM(7, 3), CG_RELEASE(6), MOV(0, 7), EXIT } },
	{ "from_id(0), from_id(2^40): none", XDP, RUN,
	  { IMM(8, 0), IMM(1, 0), KFUNC(V_CG_FROM_ID), IF_NULL(0, 3), CG_RELEASE(0),
	    BPF_ALU64_IMM(BPF_OR, BPF_REG_8, 1), IMM(1, 1), BPF_ALU64_IMM(BPF_LSH, BPF_REG_1, 40),
	    KFUNC(V_CG_FROM_ID), IF_NULL(0, 3), CG_RELEASE(0), BPF_ALU64_IMM(BPF_OR, BPF_REG_8, 2),
	    MOV(0, 8), EXIT } },
	{ "the current task is under its cgroup and its root", XDP, RUN,
	  { ACQUIRE_CGROUP, IMM(8, 0), MOV(1, 6), IMM(2, 0), KFUNC(V_CG_ANCESTOR), IF_NULL(0, 14),
	    MOV(7, 0),
	    TASK, MOV(1, 0), MOV(2, 7), KFUNC(V_UNDER), MOV(8, 0), TASK, MOV(1, 0), MOV(2, 6),
	    KFUNC(V_UNDER), BPF_ALU64_IMM(BPF_LSH, BPF_REG_8, 1), BPF_ALU64_REG(BPF_ADD,
	    BPF_REG_8, BPF_REG_0), CG_RELEASE(7), CG_RELEASE(6), MOV(0, 8), EXIT } },
	{ "the current cgroup not released", XDP, 0,
	  { ACQUIRE_CGROUP, IMM(0, 0), EXIT } },
	{ "a cgroup released as a task", XDP, 0,
	  { ACQUIRE_CGROUP, RELEASE(6), IMM(0, 0), EXIT } },
	{ "a task acquired as a cgroup", XDP, 0,
	  { TASK, MOV(1, 0), KFUNC(V_CG_ACQUIRE), IF_NULL(0, 1), CG_RELEASE(0), IMM(0, 0),
	    EXIT } },
	{ "an untrusted task's cgroup acquired", XDP, 0,
	  { TASK, LD(DW, 1, 0, V_PARENT), LD(DW, 1, 1, V_CGROUPS), LD(DW, 1, 1, V_DFL_CGRP),
	    KFUNC(V_CG_ACQUIRE), IF_NULL(0, 1), CG_RELEASE(0), IMM(0, 0), EXIT } },
	{ "under_cgroup of an untrusted task", XDP, 0,
	  { CGROUP, MOV(2, 1), TASK, LD(DW, 1, 0, V_PARENT), KFUNC(V_UNDER), EXIT } },
	{ "under_cgroup in a raw tracepoint", RAW_TP, 0,
	  { CGROUP, MOV(2, 1), TASK, MOV(1, 0), KFUNC(V_UNDER), EXIT } },
	{ "sleepable: the cgroup outside RCU", SYSCALL, SLEEPABLE,
	  { CGROUP, KFUNC(V_CG_ACQUIRE), IF_NULL(0, 1), CG_RELEASE(0), IMM(0, 0), EXIT } },
	{ "sleepable: the cgroup inside RCU, its level after", SYSCALL, RUN | SLEEPABLE,
	  { KFUNC(V_RCU_LOCK), CGROUP, KFUNC(V_CG_ACQUIRE), MOV(6, 0), KFUNC(V_RCU_UNLOCK),
	    IF_NULL(6, 100), LD(W, 7, 6, V_LEVEL), CG_RELEASE(6), BPF_ALU64_IMM(BPF_ADD,
	    BPF_REG_7, 10), MOV(0, 7), EXIT } },
	/* the task iterator */
	{ "iterator: all processes, this one among them", XDP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_FIND(V_MY_PID), MOV(0, 7), EXIT } },
	{ "iterator: all processes, the first is the idle task", TC, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_NEXT, IF_NULL(0, 2), LD(W, 7, 0, V_PID),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 100), ITER_DESTROY, MOV(0, 7), EXIT } },
	{ "iterator: all threads, this one among them", RAW_TP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(1), ITER_FIND(V_MY_TID), MOV(0, 7), EXIT } },
	{ "iterator: the current process's threads", XDP, RUN,
	  { IMM(7, 0), TASK, MOV(2, 0), ITER_NEW(2), ITER_COUNT, MOV(0, 7), EXIT } },
	{ "iterator: a process's threads from NULL", XDP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(2), MOV(8, 0), ITER_COUNT, BPF_ALU64_IMM(BPF_LSH,
	    BPF_REG_8, 8), BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_7), MOV(0, 8), EXIT } },
	{ "iterator: bad flags", XDP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(3), MOV(8, 0), ITER_COUNT, BPF_ALU64_IMM(BPF_LSH,
	    BPF_REG_8, 8), BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_7), MOV(0, 8), EXIT } },
	{ "iterator: not destroyed", XDP, 0,
	  { IMM(2, 0), ITER_NEW(0), IMM(0, 0), EXIT } },
	{ "iterator: an untrusted task's threads", XDP, 0,
	  { IMM(7, 0), TASK, LD(DW, 2, 0, V_PARENT), ITER_NEW(2), ITER_COUNT, MOV(0, 7), EXIT } },
	{ "iterator: sleepable, outside RCU", SYSCALL, SLEEPABLE,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_COUNT, IMM(0, 0), EXIT } },
	{ "iterator: sleepable, inside RCU", SYSCALL, RUN | SLEEPABLE,
	  { KFUNC(V_RCU_LOCK), IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_FIND(V_MY_PID),
	    KFUNC(V_RCU_UNLOCK), MOV(0, 7), EXIT } },
	{ "iterator: sleepable, RCU unlocked while it runs", SYSCALL, SLEEPABLE,
	  { KFUNC(V_RCU_LOCK), IMM(2, 0), ITER_NEW(0), KFUNC(V_RCU_UNLOCK), ITER_NEXT,
	    ITER_DESTROY, IMM(0, 0), EXIT } },
	{ "iterator: a task it gives acquired", XDP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_NEXT, IF_NULL(0, 6), MOV(1, 0),
	    KFUNC(V_ACQUIRE), IF_NULL(0, 3), LD(W, 7, 0, V_PID), RELEASE(0), ITER_DESTROY,
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 50), MOV(0, 7), EXIT } },
	{ "iterator: a task it gave, read after its destroy", XDP, RUN,
	  { IMM(7, 0), IMM(2, 0), ITER_NEW(0), ITER_NEXT, MOV(6, 0), ITER_DESTROY, IF_NULL(6, 1),
	    LD(W, 7, 6, V_PID), BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 60), MOV(0, 7), EXIT } },
	/* the cgroup iterator */
	{ "css iterator: descendants, pre-order", XDP, RUN | NESTED, { CSS_SUM(2) } },
	{ "css iterator: descendants, post-order", TC, RUN | NESTED, { CSS_SUM(3) } },
	{ "css iterator: ancestors up", XDP, RUN, { CSS_SUM(4) } },
	{ "css iterator: self only (not 6.18's)", XDP, RUN, { CSS_SUM(1) } },
	{ "css iterator: an RCU cgroup (not trusted)", XDP, 0,
	  { CGROUP, MOV(2, 1), MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24), IMM(3, 2),
	    KFUNC(V_CSS_NEW), ITER_NEXT, IMM(0, 0), EXIT } },
	/* the cgroup tasks iterator: what it gives is untrusted here (6.18.44-fc; it was trusted
	 * on an earlier build of this kernel) */
	{ "css_task iterator: this process among its cgroup's", SYSCALL, RUN | SLEEPABLE,
	  { CT_NEW_NEXT, IF_NULL(0, 5), LD(W, 1, 0, V_PID), IMM(2, VAL(V_MY_PID)),
	    BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 1), IMM(7, 1), BPF_JMP_A(-9), CT_END } },
	{ "css_task iterator: a task it gives acquired", SYSCALL, SLEEPABLE,
	  { CT_NEW_NEXT, IF_NULL(0, 5), MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 2), RELEASE(0),
	    CT_END } },
	{ "css_task iterator: not in XDP", XDP, 0,
	  { CT_NEW_NEXT, CT_END } },
	{ "a reference held across a subprogram's call", XDP, RUN,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 5), MOV(6, 0), MOV(1, 6),
	    BPF_CALL_REL(4), RELEASE(6), IMM(0, 9), EXIT, LD(W, 0, 1, V_PID), EXIT } },
	{ "released in a subprogram", XDP, RUN,
	  { TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 3), MOV(6, 0), MOV(1, 6),
	    BPF_CALL_REL(2), IMM(0, 9), EXIT, KFUNC(V_RELEASE), IMM(0, 0), EXIT } },
};

/* The case with its placeholders replaced; a conditional jump's off of 100 goes to an added
 * "r0 = 0; exit" at the end. */
static uint32_t build(size_t i, struct bpf_insn *p)
{
	uint32_t n = insns_used(cases[i].insns, 40);

	memcpy(p, cases[i].insns, n * sizeof(*p));
	fill_placeholders(p, n, vals, V__COUNT);
	n = fill_tail_jumps(p, n);
	return n;
}

/* What a pass over the cases found. */
struct tally {
	int accepted, same_log, runs, to_run;
};

/* Every case loaded on both sides (the verdicts and logs compared), the accepted ones run
 * (runs_only: the cases to run only, their runs compared). */
static void cases_agree(const int map[NSIDES], bool runs_only, struct tally *t)
{
	static char log[NSIDES][1 << 16];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[44];
		uint32_t n = build(i, p);
		struct bpf_result r[NSIDES];
		uint32_t flags = cases[i].opts & SLEEPABLE ? BPF_F_SLEEPABLE : 0;

		if (runs_only && !(cases[i].opts & RUN))
			continue;
		for (int s = 0; s < NSIDES; s++) {
			fill_map_fds(p, n, map[s]); /* (a map: an array on each side) */
			r[s] = side_prog_load_flags(s, cases[i].type, 0, flags, p, n, log[s],
						    sizeof(log[s]), 2);
			/* (the map's address, which its LD_IMM64 shows, differs; and the
			 * statistics line's time) */
			log_cut_map_addrs(log[s]);
			log_cut_stats(log[s]);
		}
		/* (a disagreement AGREE() reported still counts when both refused) */
		if ((!AGREE(cases[i].what, r) || LOGS_SAME(cases[i].what, log[K], log[U])) &&
		    (r[K].rc >= 0) == (r[U].rc >= 0))
			t->same_log++;
		if (r[K].rc >= 0)
			t->accepted++;
		if (getenv("TEST_VERBOSE") && !runs_only)
			printf("  %s: %s\n%s", cases[i].what, r[K].rc >= 0 ? "accepted" : "refused",
			       r[K].rc >= 0 ? "" : log[K]);
		CHECK_EQ(r[K].rc >= 0, (cases[i].opts & RUN) != 0);
		if (r[K].rc >= 0 && r[U].rc >= 0 && (cases[i].opts & RUN) &&
		    (runs_only || !(cases[i].opts & NESTED))) {
			t->runs += engines_agree(cases[i].what, r[K].rc, cases[i].type, flags, p, n);
			t->to_run += 2;
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

/* The cases' runs again with this process in a cgroup two levels below the one it is in (its
 * id, level and ancestors other than the root's): false if cgroup2 is not writable. */
static bool nested_runs_agree(const int map[NSIDES], struct tally *t)
{
	char own[5200], a[5300], b[5400], procs[5500], back[5400], pid[32], kid[3][5500];
	bool moved;

	if (own_cgroup_dir(own, sizeof(own)))
		return false;
	snprintf(a, sizeof(a), "%s/userbpf-refs-%d", own, (int)getpid());
	snprintf(b, sizeof(b), "%s/b", a);
	/* (below b, for the cgroup iterator: c1 with d, then c2) */
	snprintf(kid[0], sizeof(kid[0]), "%s/c1", b);
	snprintf(kid[1], sizeof(kid[1]), "%s/c1/d", b);
	snprintf(kid[2], sizeof(kid[2]), "%s/c2", b);
	snprintf(back, sizeof(back), "%s/cgroup.procs", own);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", b);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (mkdir(a, 0755))
		return false;
	moved = !mkdir(b, 0755) && !mkdir(kid[0], 0755) && !mkdir(kid[1], 0755) &&
		!mkdir(kid[2], 0755) && !write_str(procs, pid);
	if (moved) {
		cases_agree(map, true, t);
		CHECK_EQ(write_str(back, pid), 0);
	}
	rmdir(kid[1]);
	rmdir(kid[0]);
	rmdir(kid[2]);
	rmdir(b);
	rmdir(a);
	return moved;
}

TEST(diff_ref_kfunc)
{
	struct tally t = { 0 }, nested = { 0 };
	int map[NSIDES];
	bool in_nested;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct, cgroup and their kfuncs "
		     "(/sys/kernel/btf/vmlinux)");
	/* (the kernel's ids are its own: a pid namespace between would differ) */
	if (!pids_are_global())
		SKIP("a pid namespace of its own: the kernel's task ids are not userbpf's");
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0).rc;
		REQUIRE(map[s] >= 0);
	}
	cases_agree(map, false, &t);
	in_nested = nested_runs_agree(map, &nested);
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
	printf("diff_ref_kfunc: %zu programs, %d accepted, %d with the whole level-2 log equal, "
	       "%d runs with the kernel's value; in a nested cgroup: %d runs of %d\n",
	       ARRAY_SIZE(cases), t.accepted, t.same_log, t.runs, nested.runs, nested.to_run);
	CHECK_EQ(t.same_log, (int)ARRAY_SIZE(cases));
	CHECK_EQ(t.runs, t.to_run);
	CHECK(t.runs >= 40);
	CHECK_EQ(nested.runs, nested.to_run);
	CHECK(!in_nested || nested.runs >= 40);
}

/* The program types that may call the task kfuncs (the kernel's generic set is registered for
 * some only): bpf_task_from_pid(1) and its release, loaded as each type on both sides, must
 * get the kernel's verdict and error line (the types whose "r0 = 1; exit" both sides load
 * with no attach type). */
TEST(diff_ref_kfunc_prog_types)
{
	int allowed = 0, types = 0;
	const struct bpf_insn ret1[] = { IMM(0, 1), EXIT };

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct, cgroup and their kfuncs "
		     "(/sys/kernel/btf/vmlinux)");
	struct bpf_insn p[] = {
		IMM(1, 1), BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
					 vals[V_FROM_PID]),
		IF_NULL(0, 2), MOV(1, 0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, vals[V_RELEASE]),
		IMM(0, 1), EXIT,
	};

	for (uint32_t type = 1; type <= BPF_PROG_TYPE_SYSCALL; type++) {
		char what[32];
		struct bpf_result r = { 0, 0 };

		for (int s = 0; s < NSIDES; s++) {
			int fd = side_prog_load(s, type, ret1, ARRAY_SIZE(ret1));

			r.rc |= fd < 0;
			if (fd >= 0)
				close(fd);
		}
		if (r.rc)
			continue;
		types++;
		snprintf(what, sizeof(what), "program type %u", type);
		VERDICTS_AGREE(what, type, p, p, ARRAY_SIZE(p));
		r.rc = side_prog_load(K, type, p, ARRAY_SIZE(p));
		if (r.rc >= 0) {
			allowed++;
			close(r.rc);
		}
	}
	printf("diff_ref_kfunc_prog_types: %d types of %d may call them\n", allowed, types);
	CHECK(allowed >= 8);
	CHECK(types > allowed);
}
