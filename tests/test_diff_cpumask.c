/* The cpumask kfuncs' verifier rules against the kernel: a bpf_cpumask is a reference the
 * program must drop once, on every path, after its NULL check; the kfuncs that change a mask
 * take a bpf_cpumask, the ones that read one any struct cpumask (a bpf_cpumask as one, the
 * current task's cpus_ptr, in an RCU section), trusted or RCU-protected; only tracing, struct_ops
 * and syscall
 * programs may call them; bpf_cpumask_populate()'s memory and size.  Each program's verdict,
 * errno and whole level-2 log must be the kernel's; the accepted syscall programs then run on
 * both sides, JIT-compiled and interpreted, and must return the kernel's value.  (What the
 * kfuncs compute, over many masks: test_loader_cpumask.c.)  Skipped without the kernel's BTF
 * (with bpf_cpumask_populate(), 6.16) or bpf().
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

enum {
	V_CPUS_PTR, V_PARENT, V_BITS1,			/* offsets */
	V_CREATE, V_RELEASE, V_ACQUIRE, V_SET, V_FIRST, V_FIRST_ZERO, V_WEIGHT, V_SETALL,
	V_TEST, V_POPULATE, V_DISTRIBUTE, V_RCU_LOCK, V_RCU_UNLOCK,	/* kfunc ids */
	V__COUNT
};
static s32 vals[V__COUNT];

static bool fill_values(void)
{
	const struct btf *btf = btf_vmlinux();
	static const char *const funcs[] = {
		[V_CREATE] = "bpf_cpumask_create", [V_RELEASE] = "bpf_cpumask_release",
		[V_ACQUIRE] = "bpf_cpumask_acquire", [V_SET] = "bpf_cpumask_set_cpu",
		[V_FIRST] = "bpf_cpumask_first", [V_FIRST_ZERO] = "bpf_cpumask_first_zero",
		[V_WEIGHT] = "bpf_cpumask_weight", [V_SETALL] = "bpf_cpumask_setall",
		[V_TEST] = "bpf_cpumask_test_cpu", [V_POPULATE] = "bpf_cpumask_populate",
		[V_DISTRIBUTE] = "bpf_cpumask_any_distribute", [V_RCU_LOCK] = "bpf_rcu_read_lock",
		[V_RCU_UNLOCK] = "bpf_rcu_read_unlock",
	};
	u32 task;

	if (!btf || !(task = btf_find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT)))
		return false;
	vals[V_CPUS_PTR] = (s32)btf_member_offset(btf, task, "cpus_ptr");
	vals[V_PARENT] = (s32)btf_member_offset(btf, task, "parent");
	vals[V_BITS1] = 8; /* (struct bpf_cpumask begins with the cpumask's words) */
	for (int i = V_CREATE; i < V__COUNT; i++)
		if ((vals[i] = (s32)btf_find_func(btf, funcs[i])) <= 0)
			return false;
	return vals[V_CPUS_PTR] > 0 && vals[V_PARENT] > 0;
}

#define VAL(n) PLACEHOLDER(n)
#define KFUNC(v) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, VAL(v))
#define MOV(dst, src) BPF_MOV64_REG(BPF_REG_##dst, BPF_REG_##src)
#define IMM(dst, v) BPF_MOV64_IMM(BPF_REG_##dst, v)
#define LD(dst, src, o) BPF_LDX_MEM(BPF_DW, BPF_REG_##dst, BPF_REG_##src, VAL(o))
#define IF_NULL(reg, skip) BPF_JMP_IMM(BPF_JEQ, BPF_REG_##reg, 0, skip)
#define EXIT BPF_EXIT_INSN()
#define TASK BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf)
/* r6 = a new mask, NULL-checked (returns 0 if NULL) */
#define CREATE KFUNC(V_CREATE), IF_NULL(0, 100), MOV(6, 0)
#define RELEASE(reg) MOV(1, reg), KFUNC(V_RELEASE)
/* r2 = the current task's cpus_ptr (an RCU pointer: inside RCU(...), syscall programs being
 * sleepable) */
#define CPUS TASK, LD(2, 0, V_CPUS_PTR)
#define RCU(...) KFUNC(V_RCU_LOCK), __VA_ARGS__, KFUNC(V_RCU_UNLOCK)

/* The kernel takes the case (and both sides then run it) */
#define RUN 1u

#define SYSCALL BPF_PROG_TYPE_SYSCALL
#define XDP BPF_PROG_TYPE_XDP

static const struct {
	const char *what;
	uint32_t type;
	uint32_t opts;
	struct bpf_insn insns[32];
} cases[] = {
	{ "made, a CPU set, its weight, dropped", SYSCALL, RUN,
	  { CREATE, IMM(1, 1), MOV(2, 6), KFUNC(V_SET), MOV(1, 6), KFUNC(V_WEIGHT), MOV(7, 0),
	    RELEASE(6), MOV(0, 7), EXIT } },
	{ "all set: the first clear bit", SYSCALL, RUN,
	  { CREATE, MOV(1, 6), KFUNC(V_SETALL), MOV(1, 6), KFUNC(V_FIRST_ZERO), MOV(7, 0),
	    RELEASE(6), MOV(0, 7), EXIT } },
	{ "a CPU past the last: not set", SYSCALL, RUN,
	  { CREATE, IMM(1, 1000), MOV(2, 6), KFUNC(V_SET), IMM(1, 1000), MOV(2, 6), KFUNC(V_TEST),
	    MOV(7, 0), RELEASE(6), BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 0xff), MOV(0, 7), EXIT } },
	{ "an empty mask's pick: none", SYSCALL, RUN,
	  { CREATE, MOV(1, 6), KFUNC(V_DISTRIBUTE), MOV(7, 0), RELEASE(6), MOV(0, 7), EXIT } },
	{ "acquired again, both dropped", SYSCALL, RUN,
	  { CREATE, MOV(1, 6), KFUNC(V_ACQUIRE), MOV(7, 0), RELEASE(7), RELEASE(6), IMM(0, 0),
	    EXIT } },
	{ "its second word read directly", SYSCALL, RUN,
	  { CREATE, MOV(1, 6), KFUNC(V_SETALL), LD(7, 6, V_BITS1), RELEASE(6), MOV(0, 7), EXIT } },
	{ "the task's affinity: its first CPU, its weight", SYSCALL, RUN,
	  { RCU(CPUS, MOV(1, 2), KFUNC(V_FIRST), MOV(7, 0), CPUS, MOV(1, 2), KFUNC(V_WEIGHT),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8), BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0)),
	    MOV(0, 7), EXIT } },
	{ "the task's affinity outside an RCU section", SYSCALL, 0,
	  { CPUS, MOV(1, 2), KFUNC(V_WEIGHT), EXIT } },
	{ "the parent's affinity (untrusted)", SYSCALL, 0,
	  { RCU(TASK, LD(1, 0, V_PARENT), LD(1, 1, V_CPUS_PTR), KFUNC(V_FIRST)), EXIT } },
	{ "a CPU set in the task's affinity (not a bpf_cpumask)", SYSCALL, 0,
	  { RCU(CPUS, IMM(1, 0), KFUNC(V_SET)), IMM(0, 0), EXIT } },
	{ "the task's affinity acquired", SYSCALL, 0,
	  { RCU(CPUS, MOV(1, 2), KFUNC(V_ACQUIRE), IF_NULL(0, 2), RELEASE(0)), IMM(0, 0), EXIT } },
	{ "the task's affinity dropped", SYSCALL, 0,
	  { RCU(CPUS, RELEASE(2)), IMM(0, 0), EXIT } },
	{ "not dropped", SYSCALL, 0,
	  { CREATE, IMM(0, 0), EXIT } },
	{ "dropped on one path", SYSCALL, 0,
	  { CREATE, BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), IF_NULL(0, 2), RELEASE(6), IMM(0, 0),
	    EXIT } },
	{ "dropped twice", SYSCALL, 0,
	  { CREATE, RELEASE(6), RELEASE(6), IMM(0, 0), EXIT } },
	{ "used after its drop", SYSCALL, 0,
	  { CREATE, RELEASE(6), MOV(1, 6), KFUNC(V_WEIGHT), EXIT } },
	{ "used before its NULL check", SYSCALL, 0,
	  { KFUNC(V_CREATE), MOV(6, 0), MOV(1, 0), KFUNC(V_WEIGHT), IF_NULL(6, 2), RELEASE(6),
	    IMM(0, 0), EXIT } },
	{ "dropped at an offset", SYSCALL, 0,
	  { CREATE, BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 8), RELEASE(6), IMM(0, 0), EXIT } },
	{ "a scalar's weight", SYSCALL, 0,
	  { IMM(1, 64), KFUNC(V_WEIGHT), EXIT } },
	{ "a stack pointer's weight", SYSCALL, 0,
	  { IMM(1, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), KFUNC(V_WEIGHT), EXIT } },
	{ "a stack pointer's weight, its bytes written", SYSCALL, RUN,
	  { IMM(1, 3), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -32),
	    BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -24),
	    BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -16),
	    BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -32), KFUNC(V_WEIGHT), EXIT } },
	{ "a scalar acquired", SYSCALL, 0,
	  { IMM(1, 64), KFUNC(V_ACQUIRE), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "a stack pointer acquired", SYSCALL, 0,
	  { IMM(1, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), KFUNC(V_ACQUIRE), IF_NULL(0, 2), RELEASE(0),
	    IMM(0, 0), EXIT } },
	{ "a stack pointer dropped", SYSCALL, 0,
	  { IMM(1, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8), MOV(1, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), KFUNC(V_RELEASE), IMM(0, 0), EXIT } },
	{ "a CPU set in a stack pointer's mask", SYSCALL, 0,
	  { IMM(1, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8), MOV(2, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), KFUNC(V_SET), IMM(0, 0), EXIT } },
	{ "made in XDP", XDP, 0,
	  { CREATE, RELEASE(6), IMM(0, 2), EXIT } },
	{ "filled from 8 stack bytes", SYSCALL, RUN,
	  { CREATE, BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 6), MOV(1, 6), MOV(2, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), IMM(3, 8), KFUNC(V_POPULATE), MOV(7, 0),
	    MOV(1, 6), KFUNC(V_WEIGHT), BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
	    BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0), RELEASE(6), MOV(0, 7), EXIT } },
	{ "filled from 4 stack bytes (-EACCES)", SYSCALL, RUN,
	  { CREATE, BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1), MOV(1, 6), MOV(2, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), IMM(3, 4), KFUNC(V_POPULATE), MOV(7, 0),
	    RELEASE(6), MOV(0, 7), EXIT } },
	{ "filled from past the stack's bytes", SYSCALL, 0,
	  { CREATE, BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 6), MOV(1, 6), MOV(2, 10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), IMM(3, 16), KFUNC(V_POPULATE), RELEASE(6),
	    IMM(0, 0), EXIT } },
	{ "filled with a size not known", SYSCALL, 0,
	  { CREATE, BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 6), BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
	    MOV(3, 0), MOV(1, 6), MOV(2, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	    KFUNC(V_POPULATE), RELEASE(6), IMM(0, 0), EXIT } },
};

/* The case with its placeholders replaced; a jump's off of 100 goes to an added "r0 = 0;
 * exit" at the end. */
static uint32_t build(size_t i, struct bpf_insn *p)
{
	uint32_t n = insns_used(cases[i].insns, 32);

	memcpy(p, cases[i].insns, n * sizeof(*p));
	fill_placeholders(p, n, vals, V__COUNT);
	return fill_tail_jumps(p, n);
}

TEST(diff_cpumask)
{
	static char log[NSIDES][1 << 16];
	int accepted = 0, same_log = 0, runs = 0, to_run = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and the cpumask kfuncs (bpf_cpumask_populate(): "
		     "6.16; /sys/kernel/btf/vmlinux)");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[36];
		uint32_t n = build(i, p);
		/* (syscall programs: sleepable only) */
		uint32_t flags = cases[i].type == SYSCALL ? BPF_F_SLEEPABLE : 0;
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			r[s] = side_prog_load_flags(s, cases[i].type, 0, flags, p, n, log[s],
						    sizeof(log[s]), 2);
			log_cut_stats(log[s]);
		}
		if ((!AGREE(cases[i].what, r) || LOGS_SAME(cases[i].what, log[K], log[U])) &&
		    (r[K].rc >= 0) == (r[U].rc >= 0))
			same_log++;
		accepted += r[K].rc >= 0;
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n%s", cases[i].what, r[K].rc >= 0 ? "accepted" : "refused",
			       r[K].rc >= 0 ? "" : log[K]);
		CHECK_EQ(r[K].rc >= 0, (cases[i].opts & RUN) != 0);
		if (r[K].rc >= 0 && r[U].rc >= 0) {
			runs += engines_agree(cases[i].what, r[K].rc, cases[i].type, flags, p, n);
			to_run += 2;
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	printf("diff_cpumask: %zu programs, %d accepted, %d with the whole level-2 log equal, %d "
	       "runs with the kernel's value\n", ARRAY_SIZE(cases), accepted, same_log, runs);
	CHECK_EQ(same_log, (int)ARRAY_SIZE(cases));
	CHECK_EQ(runs, to_run);
	CHECK(runs >= 18);
}
