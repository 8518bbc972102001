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
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "exec/kfuncs_cpumask.h"
#include "fd.h"
#include "kbpf.h"
#include "map/map.h"
#include "map/sk_storage.h"
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
		SKIP("no kernel BTF with task_struct and the cpumask kfuncs "
		     "(bpf_cpumask_populate(): 6.16; /sys/kernel/btf/vmlinux)");
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

/* The task's affinity read again after the thread moved to one CPU (sched_setaffinity()) and
 * back: each run gives the kernel's first CPU and weight. */
TEST(diff_cpumask_affinity_change)
{
	static const char what[] = "the task's affinity: its first CPU, its weight";
	struct bpf_insn p[36];
	struct bpf_result r[NSIDES];
	cpu_set_t was, one;
	size_t i = 0;
	uint32_t n, ret[NSIDES], seen[3];
	int last = -1;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and the cpumask kfuncs "
		     "(bpf_cpumask_populate(): 6.16; /sys/kernel/btf/vmlinux)");
	REQUIRE(!sched_getaffinity(0, sizeof(was), &was));
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &was))
			last = cpu;
	if (CPU_COUNT(&was) < 2)
		SKIP("this thread may run on one CPU only: no other affinity to move to");
	while (i < ARRAY_SIZE(cases) && strcmp(cases[i].what, what))
		i++;
	REQUIRE(i < ARRAY_SIZE(cases));
	n = build(i, p);
	for (int s = 0; s < NSIDES; s++)
		r[s] = side_prog_load_flags(s, SYSCALL, 0, BPF_F_SLEEPABLE, p, n, NULL, 0, 0);
	REQUIRE(r[K].rc >= 0 && r[U].rc >= 0);
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	for (int step = 0; step < 3; step++) { /* all of was, the last CPU alone, was again */
		REQUIRE(!sched_setaffinity(0, sizeof(cpu_set_t), step == 1 ? &one : &was));
		for (int s = 0; s < NSIDES; s++) {
			ret[s] = ~0u;
			CHECK_EQ(side_test_run_ctx(s, r[s].rc, NULL, 0, 0, NULL, 0, NULL, 0,
						   &ret[s]).rc, 0);
		}
		CHECK_EQ(ret[U], ret[K]);
		seen[step] = ret[U];
	}
	sched_setaffinity(0, sizeof(was), &was);
	/* (first CPU in the low byte, weight above) */
	CHECK_EQ(seen[1], (uint32_t)last | 1u << 8);
	CHECK_EQ(seen[2], seen[0]);
	CHECK_EQ(seen[0] >> 8, (uint32_t)CPU_COUNT(&was));
	for (int s = 0; s < NSIDES; s++)
		close(r[s].rc);
}

/* ---- masks kept in maps: `struct bpf_cpumask __kptr *` ---- */

static const char STRS[] = "\0int\0long\0bpf_cpumask\0kptr\0v\0m\0n";
enum { S_INT = 1, S_LONG = 5, S_MASK = 10, S_KPTR = 22, S_V = 27, S_M = 29, S_N = 31,
       S_END = sizeof(STRS) };
enum { INT = 1, LONG, MASK_T, TAG, PTR, VAL_T };
/* struct v { struct bpf_cpumask __kptr *m; u64 n; } (clang 14 emits no type tags: by hand) */
static const uint32_t types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),		/* 1 int */
	T_INT(S_LONG, 8, 0, 0, 64),			/* 2 u64 */
	T_STRUCT(S_MASK, 0, 0),				/* 3 struct bpf_cpumask {} */
	T_REF(BTF_KIND_TYPE_TAG, S_KPTR, MASK_T),	/* 4 __kptr */
	T_PTR(TAG),					/* 5 */
	T_STRUCT(S_V, 2, 16), T_MEMBER(S_M, PTR, 0), T_MEMBER(S_N, LONG, 64), /* 6 struct v */
};

/* r6 = element 0 of the map (returns 0 without it); a task storage map's program gets the
 * current task's value instead (TS_LOOKUP, made if missing) */
#define LOOKUP BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), MOV(2, 10),                                 \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),                        \
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), IF_NULL(0, 100), MOV(6, 0)
#define LOOKUP_LEN 8
#define TS_LOOKUP TASK, MOV(2, 0), BPF_LD_MAP_FD(BPF_REG_1, 0), IMM(3, 0),                       \
	IMM(4, BPF_LOCAL_STORAGE_GET_F_CREATE), BPF_EMIT_CALL(BPF_FUNC_task_storage_get),          \
	IF_NULL(0, 100), MOV(6, 0)

static const struct {
	const char *what;
	bool run;
	struct bpf_insn insns[32];
} kptr_cases[] = {
	{ "put: a new mask with CPU 1 xchg'd in, the old one dropped", true,
	  { LOOKUP, MOV(8, 6), CREATE, IMM(1, 1), MOV(2, 6), KFUNC(V_SET), MOV(1, 8), MOV(2, 6),
	    BPF_EMIT_CALL(BPF_FUNC_kptr_xchg), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "get: the kept mask's weight, in an RCU section (-1 if none)", true,
	  { LOOKUP, IMM(7, -1), KFUNC(V_RCU_LOCK), BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
	    IF_NULL(1, 2), KFUNC(V_WEIGHT), MOV(7, 0), KFUNC(V_RCU_UNLOCK), MOV(0, 7), EXIT } },
	{ "take: xchg'd out (NULL in), its weight + 10, dropped", true,
	  { LOOKUP, MOV(1, 6), IMM(2, 0), BPF_EMIT_CALL(BPF_FUNC_kptr_xchg), IF_NULL(0, 100),
	    MOV(7, 0), MOV(1, 7), KFUNC(V_WEIGHT), MOV(8, 0), RELEASE(7),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_8, 10), MOV(0, 8), EXIT } },
	{ "the kept mask's weight outside an RCU section (untrusted)", false,
	  { LOOKUP, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0), IF_NULL(1, 1), KFUNC(V_WEIGHT),
	    IMM(0, 0), EXIT } },
	{ "the kept mask dropped as loaded", false,
	  { LOOKUP, KFUNC(V_RCU_LOCK), BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
	    IF_NULL(1, 1), KFUNC(V_RELEASE), KFUNC(V_RCU_UNLOCK), IMM(0, 0), EXIT } },
	{ "a mask stored in the kptr", false,
	  { LOOKUP, MOV(8, 6), CREATE, BPF_STX_MEM(BPF_DW, BPF_REG_8, BPF_REG_6, 0), RELEASE(6),
	    IMM(0, 0), EXIT } },
};

enum { PUT, GET, TAKE, NRUN }; /* the runnable cases, in order */

/* The kptr cases loaded on both sides over map[]: their verdicts and logs compared (how many
 * agree), the runnable ones' fds into prog[][NRUN]. */
static int kptr_cases_load(const int map[NSIDES], bool ts, int prog[NSIDES][NRUN])
{
	static const struct bpf_insn ts_lookup[] = { TS_LOOKUP };
	static char log[NSIDES][1 << 16];
	int same = 0, r_i = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kptr_cases); i++) {
		struct bpf_insn p[NSIDES][40];
		struct bpf_result r[NSIDES];
		uint32_t used = insns_used(kptr_cases[i].insns, 32), n;

		for (int s = 0; s < NSIDES; s++) {
			memcpy(p[s], kptr_cases[i].insns, used * sizeof(p[s][0]));
			n = used;
			if (ts) { /* (the case after its lookup, behind the task storage's) */
				n = used - LOOKUP_LEN + ARRAY_SIZE(ts_lookup);
				memcpy(p[s], ts_lookup, sizeof(ts_lookup));
				memcpy(p[s] + ARRAY_SIZE(ts_lookup),
				       kptr_cases[i].insns + LOOKUP_LEN,
				       (used - LOOKUP_LEN) * sizeof(p[s][0]));
			}
			fill_placeholders(p[s], n, vals, V__COUNT);
			n = fill_tail_jumps(p[s], n);
			fill_map_fds(p[s], n, map[s]);
			r[s] = side_prog_load_flags(s, SYSCALL, 0, BPF_F_SLEEPABLE, p[s], n, log[s],
						    sizeof(log[s]), 2);
			log_cut_stats(log[s]);
			log_cut_map_addrs(log[s]);
		}
		if (AGREE(kptr_cases[i].what, r) && LOGS_SAME(kptr_cases[i].what, log[K], log[U]))
			same++;
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n%s", kptr_cases[i].what,
			       r[K].rc >= 0 ? "accepted" : "refused", r[K].rc >= 0 ? "" : log[K]);
		CHECK_EQ(r[K].rc >= 0, kptr_cases[i].run);
		for (int s = 0; s < NSIDES; s++) {
			if (kptr_cases[i].run && r_i < NRUN)
				prog[s][r_i] = r[s].rc;
			else if (r[s].rc >= 0)
				close(r[s].rc);
		}
		r_i += kptr_cases[i].run;
	}
	return same;
}

/* A map of type with struct v values on each side, the cases loaded over it, and this
 * sequence run on both (bpf() updating the element between): the kernel's results.  userbpf's
 * masks must all be dropped again once the programs and the map are closed. */
static int kptr_sequence_agrees(uint32_t map_type, int *same_logs)
{
	static const struct { int step; uint32_t want; } steps[] = {
		{ GET, ~0u }, { PUT, 0 }, { GET, 1 }, { PUT, 0 }, { GET, 1 }, { -1, 0 },
		{ GET, ~0u }, { PUT, 0 }, { TAKE, 11 }, { GET, ~0u }, { TAKE, 0 }, { PUT, 0 },
		{ -1, 0 }, { PUT, 0 }, { -2, 0 }, { GET, ~0u }, { PUT, 0 },
	};
	bool percpu = map_type == BPF_MAP_TYPE_PERCPU_ARRAY || map_type == BPF_MAP_TYPE_PERCPU_HASH;
	bool ts = map_type == BPF_MAP_TYPE_TASK_STORAGE;
	uint32_t copies = percpu ? map_possible_cpus() : 1, live = cpumask_live();
	int btf[NSIDES], map[NSIDES], prog[NSIDES][NRUN], agreed = 0;
	/* (a task storage's key: this process's pidfd, this main thread's task) */
	int key = ts ? (int)syscall(SYS_pidfd_open, getpid(), 0) : 0;
	static uint64_t v[2 * 256];

	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		map[s] = btf[s] < 0 ? -1
				    : side_map_create_btf(s, map_type, 4, 16, ts ? 0 : 4,
							  ts ? BPF_F_NO_PREALLOC : 0, btf[s], INT,
							  VAL_T).rc;
		if (map[s] < 0 || copies > 256 || key < 0) {
			test_fail(__FILE__, __LINE__, "side %d: no map of type %u with a "
				  "bpf_cpumask kptr (errno %d)", s, map_type, errno);
			return 0;
		}
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, v, 0).rc, 0);
	}
	*same_logs += kptr_cases_load(map, ts, prog);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		uint32_t ret[NSIDES] = { 0, 0 };

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_result r;

			/* (an update empties the kptr, and an element deleted drops it: its mask
			 * is dropped; an array's delete fails, as the kernel's) */
			if (steps[i].step == -2) {
				bool array = map_type == BPF_MAP_TYPE_ARRAY ||
					     map_type == BPF_MAP_TYPE_PERCPU_ARRAY;

				r = side_elem(s, BPF_MAP_DELETE_ELEM, map[s], &key, NULL, 0);
				CHECK_EQ(r.err, array ? EINVAL : 0);
				/* (at once, not when the element is reused) */
				if (s == U && !array)
					CHECK_EQ(cpumask_live(), live);
			}
			if (steps[i].step < 0) {
				r = side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, v, 0);
				CHECK_EQ(r.rc, 0);
			}
			else if (prog[s][steps[i].step] >= 0)
				side_test_run_ctx(s, prog[s][steps[i].step], NULL, 0, 0, NULL, 0,
						  NULL, 0, &ret[s]);
		}
		if (steps[i].step < 0)
			continue;
		if (ret[K] == ret[U] && ret[U] == steps[i].want)
			agreed++;
		else
			test_fail(__FILE__, __LINE__, "%s (map type %u): kernel %d, userbpf %d",
				  kptr_cases[steps[i].step].what, map_type, (int)ret[K],
				  (int)ret[U]);
	}
	/* (a mask is left in the map: its end drops it) */
	for (int s = 0; s < NSIDES; s++) {
		for (int r = 0; r < NRUN; r++)
			if (prog[s][r] >= 0)
				close(prog[s][r]);
		close(map[s]);
		close(btf[s]);
	}
	if (ts)
		close(key);
	CHECK_EQ(cpumask_live(), live);
	return agreed;
}

TEST(diff_cpumask_kptr)
{
	static const uint32_t map_types[] = {
		BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_LRU_HASH,
		BPF_MAP_TYPE_PERCPU_ARRAY, BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_TASK_STORAGE,
	};
	int agreed = 0, same_logs = 0, types_run = 0;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	bool pidfd_works = pidfd >= 0;
	cpu_set_t was, one;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and the cpumask kfuncs "
		     "(bpf_cpumask_populate(): 6.16; /sys/kernel/btf/vmlinux)");
	if (pidfd_works)
		close(pidfd);
	/* (on one CPU: a per-CPU map's runs must see the same copy, on both sides) */
	REQUIRE(!sched_getaffinity(0, sizeof(was), &was));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	REQUIRE(!sched_setaffinity(0, sizeof(one), &one));
	for (size_t t = 0; t < ARRAY_SIZE(map_types); t++) {
		if (map_types[t] == BPF_MAP_TYPE_TASK_STORAGE && !pidfd_works) {
			printf("  no pidfd_open() (valgrind?): the task storage's runs skipped\n");
			continue;
		}
		agreed += kptr_sequence_agrees(map_types[t], &same_logs);
		types_run++;
	}
	sched_setaffinity(0, sizeof(was), &was);
	printf("diff_cpumask_kptr: %d map types, %d programs with the kernel's verdict and "
	       "level-2 log, %d runs with its value\n", types_run, same_logs, agreed);
	CHECK_EQ(same_logs, types_run * (int)ARRAY_SIZE(kptr_cases));
	CHECK_EQ(agreed, types_run * 14);
	CHECK(types_run >= (int)ARRAY_SIZE(map_types) - 1);
}

/* ---- socket storage with a bpf_cpumask kptr ----
 * No program type can both hold a socket here and make a mask (the cpumask kfuncs are tracing,
 * struct_ops and syscall programs', the socket storage helpers socket-facing types'), so against
 * the kernel: the map's creation, bpf() on a real socket's value (the kptr's bytes ignored on
 * update, zero on lookup), and the verifier on a cgroup skb program's value, whose test runs
 * then return the kernel's value.  The drops themselves are checked on userbpf's own storage: a
 * test run socket's list and the map's table of kernel sockets, a mask put in directly. */

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

/* r0 = the value of the test run's socket, made if missing (returns 0 without it) */
#define SK_VALUE                                                                                   \
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct __sk_buff, sk)),                 \
	IF_NULL(1, 100), BPF_EMIT_CALL(BPF_FUNC_sk_fullsock), IF_NULL(0, 100), MOV(2, 0),          \
	BPF_LD_MAP_FD(BPF_REG_1, 0), IMM(3, 0), IMM(4, BPF_LOCAL_STORAGE_GET_F_CREATE),            \
	BPF_EMIT_CALL(BPF_FUNC_sk_storage_get), IF_NULL(0, 100)

static const struct {
	const char *what;
	bool run;
	struct bpf_insn insns[24];
} sks_cases[] = {
	{ "the kept mask's first word, as loaded (1 if none)", true,
	  { SK_VALUE, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0), IMM(0, 1), IF_NULL(1, 2),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0), IMM(0, 0), EXIT } },
	{ "xchg'd out, never dropped", false,
	  { SK_VALUE, MOV(1, 0), IMM(2, 0), BPF_EMIT_CALL(BPF_FUNC_kptr_xchg), IMM(0, 1),
	    EXIT } },
	{ "a scalar stored in the kptr", false,
	  { SK_VALUE, BPF_ST_MEM(BPF_DW, BPF_REG_0, 0, 1), IMM(0, 1), EXIT } },
	{ "the kept mask as the value of another socket storage call", false,
	  { SK_VALUE, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, 0), IF_NULL(2, 4),
	    BPF_LD_MAP_FD(BPF_REG_1, 0), IMM(3, 0), BPF_EMIT_CALL(BPF_FUNC_sk_storage_delete),
	    IMM(0, 1), EXIT } },
};

/* The kernel's: its verdicts, level-2 logs, and the runs' values.  Returns how many agree. */
static int sks_cases_agree(const int map[NSIDES])
{
	static char log[NSIDES][1 << 16];
	uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
	int same = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sks_cases); i++) {
		struct bpf_insn p[NSIDES][24];
		struct bpf_result r[NSIDES];
		uint32_t n = 0, ret[NSIDES] = { 7, 7 };

		for (int s = 0; s < NSIDES; s++) {
			memcpy(p[s], sks_cases[i].insns, sizeof(p[s]));
			n = fill_tail_jumps(p[s], insns_used(sks_cases[i].insns, 24));
			fill_map_fds(p[s], n, map[s]);
			r[s] = side_prog_load_flags(s, BPF_PROG_TYPE_CGROUP_SKB, 0, 0, p[s], n,
						    log[s], sizeof(log[s]), 2);
			log_cut_stats(log[s]);
			log_cut_map_addrs(log[s]);
			if (r[s].rc >= 0) {
				side_test_run_ctx(s, r[s].rc, pkt, sizeof(pkt), 0, NULL, 0, NULL, 0,
						  &ret[s]);
				close(r[s].rc);
			}
		}
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n%s", sks_cases[i].what,
			       r[K].rc >= 0 ? "accepted" : "refused", r[K].rc >= 0 ? "" : log[K]);
		CHECK_EQ(r[K].rc >= 0, sks_cases[i].run);
		CHECK_EQ(ret[U], ret[K]);
		if (AGREE(sks_cases[i].what, r) && LOGS_SAME(sks_cases[i].what, log[K], log[U]))
			same++;
	}
	return same;
}

/* bpf() on sock's value: an update whose kptr bytes are not zero, then a lookup (they are) */
static void sks_bpf_agrees(const int map[NSIDES], int sock)
{
	uint64_t in[2] = { 0x1234567, 7 }, out[NSIDES][2];
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &sock, in, BPF_NOEXIST);
	AGREE("update of a value with a bpf_cpumask kptr", r);
	for (int s = 0; s < NSIDES; s++) {
		memset(out[s], 0xa5, sizeof(out[s]));
		r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &sock, out[s], 0);
	}
	if (AGREE("lookup of a value with a bpf_cpumask kptr", r) && !r[K].rc) {
		CHECK_EQ(out[U][0], out[K][0]);
		CHECK_EQ(out[U][1], out[K][1]);
		CHECK_EQ(out[U][1], 7);
	}
}

/* userbpf's own storage of map: each way a value leaves drops the mask it held. */
static void sks_drops(int map_fd, int sock)
{
	struct sk_storage_list l = { NULL, NULL };
	struct bpf_object *obj;
	struct bpf_map *map;
	uint32_t live = cpumask_live();
	uint64_t *v, *gone, cookie, in[2] = { 0, 1 };
	socklen_t len = sizeof(cookie);
	int err;

	REQUIRE((obj = obj_get_from_fd(map_fd, OBJ_MAP, &err)));
	map = map_of(obj);
	/* a test run's socket: the mask of a deleted value at once, of a live one with it */
	REQUIRE((v = sk_storage_get(&l, map, NULL, true)));
	*v = bpf_cpumask_create_kfunc(0, 0, 0, 0, 0);
	CHECK_EQ(cpumask_live(), live + 1);
	CHECK_EQ(sk_storage_delete(&l, map), 0);
	CHECK_EQ(cpumask_live(), live);
	gone = v;
	REQUIRE((v = sk_storage_get(&l, map, NULL, true)));
	*v = bpf_cpumask_create_kfunc(0, 0, 0, 0, 0);
	*gone = bpf_cpumask_create_kfunc(0, 0, 0, 0, 0); /* (a program still holding it) */
	CHECK_EQ(cpumask_live(), live + 2);
	sk_storage_free(&l);
	CHECK_EQ(cpumask_live(), live);
	/* the map's table: the kernel socket's value updated, deleted, left to the map's end */
	REQUIRE(!getsockopt(sock, SOL_SOCKET, SO_COOKIE, &cookie, &len));
	for (int way = 0; way < 3; way++) {
		REQUIRE((v = sk_storage_sock_get(map, cookie, NULL, true)));
		*v = bpf_cpumask_create_kfunc(0, 0, 0, 0, 0);
		CHECK_EQ(cpumask_live(), live + 1);
		if (way == 0)
			CHECK_EQ(side_elem(U, BPF_MAP_UPDATE_ELEM, map_fd, &sock, in, 0).rc, 0);
		else if (way == 1)
			CHECK_EQ(side_elem(U, BPF_MAP_DELETE_ELEM, map_fd, &sock, NULL, 0).rc, 0);
		if (way < 2)
			CHECK_EQ(cpumask_live(), live);
	}
	obj_put(obj);
	close(map_fd);
	CHECK_EQ(cpumask_live(), live);
}

TEST(diff_cpumask_sk_storage)
{
	int btf[NSIDES], map[NSIDES], sock = socket(AF_INET, SOCK_DGRAM, 0), same;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and the cpumask kfuncs "
		     "(bpf_cpumask_populate(): 6.16; /sys/kernel/btf/vmlinux)");
	REQUIRE(sock >= 0);
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		REQUIRE(btf[s] >= 0);
		map[s] = side_map_create_btf(s, BPF_MAP_TYPE_SK_STORAGE, 4, 16, 0,
					     BPF_F_NO_PREALLOC, btf[s], INT, VAL_T).rc;
	}
	REQUIRE(map[K] >= 0 && map[U] >= 0);
	sks_bpf_agrees(map, sock);
	same = sks_cases_agree(map);
	printf("diff_cpumask_sk_storage: %d programs with the kernel's verdict and level-2 log\n",
	       same);
	CHECK_EQ(same, (int)ARRAY_SIZE(sks_cases));
	sks_drops(map[U], sock);
	for (int s = 0; s < NSIDES; s++) {
		if (s == K)
			close(map[s]);
		close(btf[s]);
	}
	close(sock);
}
