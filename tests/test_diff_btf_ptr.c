/* Pointers to kernel objects (PTR_TO_BTF_ID) against the kernel: bpf_get_current_task_btf()'s
 * task read directly at the offsets its BTF gives, through the fields the kernel trusts (RCU:
 * real_parent, group_leader, cgroups ...) and those it does not (mm), with every refusal the
 * kernel has (negative, variable and out-of-struct offsets, partial pointer reads, ends of
 * members, holes, writes).  Each program's verdict, errno and whole level-2 log must be the
 * kernel's; the accepted raw tracepoint programs then run on both, from this thread, and must
 * return the same value (this thread's ids, its parent's, its name), on userbpf both JIT-compiled
 * and interpreted.  Skipped without the
 * kernel's BTF or its bpf().
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

/* Offsets a case names by placeholder (an off or imm of OFF(n)), filled from the kernel's BTF. */
enum {
	O_PID, O_PID1, O_TGID, O_RP, O_GL, O_MM, O_COMM, O_COMM12, O_TASK_SIZE, O_CGROUPS,
	O_DFL_CGRP, O_KN, O_HOLE, O_PARENT, O_CPUS, O_TASK_WORKS, O_CB_FUNC,
	O_RCU_LOCK, O_RCU_UNLOCK, /* (kfunc ids, as a call's imm) */
	O__COUNT
};
#define OFF(n) PLACEHOLDER(n)
static s32 offs[O__COUNT];

/* The first byte of task_struct that no member covers (a hole before a member), or -1. */
static long task_hole(const struct btf *btf, u32 id)
{
	const struct btf_type *t = btf_type_by_id(btf, id);
	const struct btf_member *m = (const struct btf_member *)(t + 1);

	for (u32 i = 0; i + 1 < BTF_INFO_VLEN(t->info); i++) {
		u32 mid = m[i].type, size;

		if (BTF_INFO_KFLAG(t->info) && BTF_MEMBER_BITFIELD_SIZE(m[i].offset))
			continue;
		if (!btf_type_id_size(btf, &mid, &size))
			continue;
		if (m[i].offset / 8 + size < m[i + 1].offset / 8 && !(m[i + 1].offset % 8) &&
		    !(m[i].offset % 8))
			return m[i].offset / 8 + size;
	}
	return -1;
}

static bool fill_offsets(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 task, css_set, cgroup;
	const struct btf_type *t;

	if (!btf)
		return false;
	task = btf_find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	css_set = btf_find_by_name_kind(btf, "css_set", BTF_KIND_STRUCT);
	cgroup = btf_find_by_name_kind(btf, "cgroup", BTF_KIND_STRUCT);
	t = btf_type_by_id(btf, task);
	if (!t || !css_set || !cgroup)
		return false;
	offs[O_PID] = (s32)btf_member_offset(btf, task, "pid");
	offs[O_PID1] = offs[O_PID] + 1;
	offs[O_TGID] = (s32)btf_member_offset(btf, task, "tgid");
	offs[O_RP] = (s32)btf_member_offset(btf, task, "real_parent");
	offs[O_PARENT] = (s32)btf_member_offset(btf, task, "parent");
	offs[O_GL] = (s32)btf_member_offset(btf, task, "group_leader");
	offs[O_MM] = (s32)btf_member_offset(btf, task, "mm");
	offs[O_COMM] = (s32)btf_member_offset(btf, task, "comm");
	offs[O_COMM12] = offs[O_COMM] + 12; /* 8 bytes across the end of comm[16] */
	offs[O_TASK_SIZE] = (s32)t->size;
	offs[O_CGROUPS] = (s32)btf_member_offset(btf, task, "cgroups");
	offs[O_DFL_CGRP] = (s32)btf_member_offset(btf, css_set, "dfl_cgrp");
	offs[O_KN] = (s32)btf_member_offset(btf, cgroup, "kn");
	offs[O_HOLE] = (s32)task_hole(btf, task);
	offs[O_CPUS] = (s32)btf_member_offset(btf, task, "cpus_ptr");
	offs[O_TASK_WORKS] = (s32)btf_member_offset(btf, task, "task_works");
	offs[O_CB_FUNC] = (s32)btf_member_offset(btf, btf_find_by_name_kind(btf, "callback_head",
								     BTF_KIND_STRUCT), "func");
	offs[O_RCU_LOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_lock");
	offs[O_RCU_UNLOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_unlock");
	for (int i = 0; i < O_RCU_LOCK; i++)
		if (offs[i] < 0 || offs[i] > 32767)
			return false;
	return offs[O_RCU_LOCK] > 0 && offs[O_RCU_UNLOCK] > 0;
}

/* (the kernel's internal mode, which no program may use) */
#define BPF_PROBE_MEM_UAPI 0x20
#define TASK BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf)
#define LD(size, dst, src, o) BPF_LDX_MEM(BPF_##size, BPF_REG_##dst, BPF_REG_##src, OFF(o))
#define KFUNC(o) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, OFF(o))

/* A case's opts: the run's value is the kernel's too; loaded with BPF_F_SLEEPABLE. */
#define RUN 1u
#define SLEEPABLE 2u

static const struct {
	const char *what;
	uint32_t type;
	uint32_t opts;		/* RUN, SLEEPABLE */
	struct bpf_insn insns[24];
} cases[] = {
	{ "pid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(W, 0, 0, O_PID), BPF_EXIT_INSN() } },
	/* a pointer field that is no struct pointer (a function's), read through an untrusted
	 * pointer: untrusted memory, which may be NULL (6.18.44 walks both ways; this thread's
	 * task_works is NULL, so its func reads 0) */
	{ "a function pointer read through an untrusted pointer, NULL-checked",
	  BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 2, 0, O_TASK_WORKS), LD(DW, 1, 2, O_CB_FUNC), BPF_MOV64_IMM(BPF_REG_0, 2),
	    BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
	    BPF_EXIT_INSN() } },
	{ "tgid, in XDP", BPF_PROG_TYPE_XDP, 0,
	  { TASK, LD(W, 0, 0, O_TGID), BPF_EXIT_INSN() } },
	{ "the second byte of pid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(B, 0, 0, O_PID1), BPF_EXIT_INSN() } },
	{ "pid sign-extended", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_LDX_MEMSX(BPF_H, BPF_REG_0, BPF_REG_0, OFF(O_PID)), BPF_EXIT_INSN() } },
	{ "past the struct", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(W, 0, 0, O_TASK_SIZE), BPF_EXIT_INSN() } },
	{ "negative offset", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, -4), BPF_EXIT_INSN() } },
	{ "store of an immediate", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_ST_MEM(BPF_W, BPF_REG_0, OFF(O_PID), 1), BPF_MOV64_IMM(BPF_REG_0, 0),
	    BPF_EXIT_INSN() } },
	{ "store of a register", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_STX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, OFF(O_PID)),
	    BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
	{ "atomic add", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_MOV64_IMM(BPF_REG_1, 1),
	    BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_0, BPF_REG_1, OFF(O_PID)),
	    BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
	{ "half a pointer", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(W, 0, 0, O_RP), BPF_EXIT_INSN() } },
	{ "real_parent->tgid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 1, 0, O_RP), LD(W, 0, 1, O_TGID), BPF_EXIT_INSN() } },
	{ "real_parent->real_parent->tgid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 1, 0, O_RP), LD(DW, 1, 1, O_RP), LD(W, 0, 1, O_TGID),
	    BPF_EXIT_INSN() } },
	{ "group_leader->pid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 1, 0, O_GL), LD(W, 0, 1, O_PID), BPF_EXIT_INSN() } },
	{ "parent (untrusted)->tgid", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 1, 0, O_PARENT), LD(DW, 1, 1, O_RP), LD(W, 0, 1, O_TGID),
	    BPF_EXIT_INSN() } },
	{ "cgroups->dfl_cgrp->kn", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(DW, 1, 0, O_CGROUPS), LD(DW, 1, 1, O_DFL_CGRP), LD(DW, 1, 1, O_KN),
	    BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
	{ "mm (untrusted), negative", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(DW, 1, 0, O_MM), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, -8),
	    BPF_EXIT_INSN() } },
	{ "comm's first 8 bytes", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, LD(DW, 0, 0, O_COMM), BPF_EXIT_INSN() } },
	{ "across the end of comm", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(DW, 0, 0, O_COMM12), BPF_EXIT_INSN() } },
	{ "a hole", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(B, 0, 0, O_HOLE), BPF_EXIT_INSN() } },
	{ "a constant added first", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, OFF(O_PID)),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), BPF_EXIT_INSN() } },
	{ "a variable offset", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(W, 1, 0, O_PID), BPF_ALU64_IMM(BPF_AND, BPF_REG_1, 4),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), LD(W, 0, 0, O_PID), BPF_EXIT_INSN() } },
	{ "spilled and filled", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -8),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8), LD(W, 0, 0, O_PID),
	    BPF_EXIT_INSN() } },
	{ "NULL checks: trusted never, RCU both ways", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1), LD(DW, 0, 0, O_RP),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1), LD(W, 0, 0, O_PID), BPF_EXIT_INSN() } },
	{ "multiplied", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 2), BPF_EXIT_INSN() } },
	{ "returned", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_EXIT_INSN() } },
	{ "probe-read through it", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, OFF(O_TGID)), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_MOV64_IMM(BPF_REG_2, 4),
	    BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_10, -8),
	    BPF_EXIT_INSN() } },
	{ "given as memory to write", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, OFF(O_COMM)),
	    BPF_MOV64_IMM(BPF_REG_2, 16), BPF_EMIT_CALL(BPF_FUNC_get_current_comm),
	    BPF_EXIT_INSN() } },
	{ "read as memory: bpf_strtol() of comm", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, OFF(O_COMM)),
	    BPF_MOV64_IMM(BPF_REG_2, 4), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_REG(BPF_REG_4, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
	    BPF_EMIT_CALL(BPF_FUNC_strtol), BPF_EXIT_INSN() } },
	{ "read as memory past the struct", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, OFF(O_TASK_SIZE)),
	    BPF_MOV64_IMM(BPF_REG_2, 4), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_REG(BPF_REG_4, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
	    BPF_EMIT_CALL(BPF_FUNC_strtol), BPF_EXIT_INSN() } },
	{ "an RCU pointer as memory", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { TASK, LD(DW, 1, 0, O_RP), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, OFF(O_COMM)),
	    BPF_MOV64_IMM(BPF_REG_2, 4), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_REG(BPF_REG_4, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
	    BPF_EMIT_CALL(BPF_FUNC_strtol), BPF_EXIT_INSN() } },
	{ "r0..r5 kept across a load (the JIT's call)", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_IMM(BPF_REG_0, 100),
	    BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 2), BPF_MOV64_IMM(BPF_REG_3, 3),
	    BPF_MOV64_IMM(BPF_REG_4, 4), BPF_MOV64_IMM(BPF_REG_5, 5), LD(W, 7, 6, O_TGID),
	    /* r0 = ((((100 * 3 + r1) * 3 + r2) * 3 + r3) * 3 + r4) * 3 + r5 + r7: any register
	     * swapped shows */
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7), BPF_EXIT_INSN() } },
	{ "through a register sum", BPF_PROG_TYPE_RAW_TRACEPOINT, RUN,
	  { TASK, BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2), LD(W, 0, 1, O_PID), BPF_EXIT_INSN() } },
	{ "sleepable: real_parent untrusted", BPF_PROG_TYPE_SYSCALL, SLEEPABLE,
	  { TASK, LD(DW, 1, 0, O_RP), LD(W, 0, 1, O_TGID), BPF_EXIT_INSN() } },
	{ "sleepable: RCU inside bpf_rcu_read_lock(), untrusted after", BPF_PROG_TYPE_SYSCALL,
	  SLEEPABLE, { KFUNC(O_RCU_LOCK), TASK, LD(DW, 6, 0, O_RP), LD(DW, 7, 6, O_GL),
	  KFUNC(O_RCU_UNLOCK),
	    LD(W, 0, 6, O_TGID), LD(W, 1, 7, O_PID), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	    BPF_EXIT_INSN() } },
	{ "sleepable: an untrusted pointer's RCU field", BPF_PROG_TYPE_SYSCALL, SLEEPABLE,
	  { KFUNC(O_RCU_LOCK), TASK, LD(DW, 6, 0, O_RP), KFUNC(O_RCU_UNLOCK),
	    KFUNC(O_RCU_LOCK), LD(DW, 6, 6, O_RP), KFUNC(O_RCU_UNLOCK), LD(W, 0, 6, O_TGID),
	    BPF_EXIT_INSN() } },
	{ "a syscall program must be sleepable", BPF_PROG_TYPE_SYSCALL, 0,
	  { TASK, LD(DW, 1, 0, O_RP), LD(W, 0, 1, O_TGID), BPF_EXIT_INSN() } },
	{ "a program's own probe load", BPF_PROG_TYPE_RAW_TRACEPOINT, 0,
	  { BPF_RAW_INSN(BPF_LDX | BPF_PROBE_MEM_UAPI | BPF_W, BPF_REG_0, BPF_REG_1, 0, 0),
	    BPF_EXIT_INSN() } },
};

/* The case with its placeholders replaced by the offsets. */
static uint32_t build(size_t i, struct bpf_insn *p)
{
	uint32_t n = insns_used(cases[i].insns, 24);

	memcpy(p, cases[i].insns, n * sizeof(*p));
	fill_placeholders(p, n, offs, O__COUNT);
	return n;
}

TEST(diff_btf_ptr)
{
	static char log[NSIDES][1 << 16];
	int accepted = 0, same_log = 0, runs = 0;
	bool compare_runs;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_offsets())
		SKIP("no kernel BTF with task_struct's fields (/sys/kernel/btf/vmlinux)");
	/* (the kernel's ids are its own: a pid namespace between would differ) */
	compare_runs = pids_are_global();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[24];
		uint32_t n = build(i, p);
		struct bpf_result r[NSIDES];
		uint32_t flags = cases[i].opts & SLEEPABLE ? BPF_F_SLEEPABLE : 0;

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_prog_load_flags(s, cases[i].type, 0, flags, p, n, log[s],
						    sizeof(log[s]), 2);
		if (AGREE(cases[i].what, r)) {
			for (int s = 0; s < NSIDES; s++)
				log_cut_stats(log[s]);
			same_log += LOGS_SAME(cases[i].what, log[K], log[U]);
		}
		if (r[K].rc >= 0)
			accepted++;
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n%s", cases[i].what, r[K].rc >= 0 ? "accepted" : "refused",
			       r[K].rc >= 0 ? "" : log[K]);
		if (r[K].rc >= 0 && r[U].rc >= 0 && (cases[i].opts & RUN) && compare_runs)
			runs += engines_agree(cases[i].what, r[K].rc, cases[i].type, 0, p, n);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	printf("diff_btf_ptr: %zu programs, %d accepted, %d with the whole level-2 log equal, "
	       "%d runs with the kernel's value\n", ARRAY_SIZE(cases), accepted, same_log, runs);
	CHECK_EQ(same_log, (int)ARRAY_SIZE(cases));
	CHECK(accepted >= 10);
	CHECK(!compare_runs || runs >= 20);
}

/* BPF_OBJ_GET_INFO_BY_FD's translated program shows a kernel object's loads as the loads they
 * were (the kernel's probe loads are internal, as userbpf's). */
TEST(diff_btf_ptr_xlated)
{
	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_offsets())
		SKIP("no kernel BTF with task_struct's fields (/sys/kernel/btf/vmlinux)");
	for (size_t i = 0; i < 4; i++) { /* pid, tgid, a byte, sign-extended */
		struct bpf_insn p[24], x[NSIDES][24];
		uint32_t n = build(i, p);

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_prog_info info = { .xlated_prog_len = sizeof(x[s]),
						      .xlated_prog_insns = PTR_TO_U64(x[s]) };
			uint32_t len = sizeof(info);
			int fd = side_prog_load(s, cases[i].type, p, n);

			memset(x[s], 0, sizeof(x[s]));
			CHECK(fd >= 0);
			if (fd < 0)
				return;
			CHECK_EQ(side_obj_info(s, fd, &info, &len).rc, 0);
			CHECK_EQ(info.xlated_prog_len, n * sizeof(struct bpf_insn));
			close(fd);
		}
		/* (the call's imm is the kernel's helper address there) */
		CHECK(!memcmp(&x[K][1], &x[U][1], sizeof(x[K][1])));
		CHECK(!memcmp(&x[U][1], &p[1], sizeof(p[1])));
	}
}

/* Every load a program can make of a kernel struct: each offset from -8 to past the end, each
 * size, zero- and sign-extending, from a pointer of each trust level (task_struct trusted, a
 * css_set and a cgroup through RCU fields, an mm_struct untrusted): the verdict, errno and
 * whole level-2 log (so the loaded register's type) must be the kernel's. */
/* One load of size bytes at off (sign-extending with sx) through r1 after walk: the verdicts
 * and whole level-2 logs must agree.  1 if the kernel accepted it, 0 if not, -1 on a
 * difference. */
static int load_agrees(const char *name, const struct bpf_insn *walk, uint32_t nwalk, int off,
		       int size, bool sx)
{
	static char log[NSIDES][4096];
	static const uint8_t sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };
	struct bpf_insn p[8];
	struct bpf_result r[NSIDES];
	uint32_t n = nwalk;
	char what[96];

	memcpy(p, walk, nwalk * sizeof(*p));
	p[n++] = (struct bpf_insn){ .code = BPF_LDX | (sx ? BPF_MEMSX : BPF_MEM) | sizes[size],
				    .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1, .off = (s16)off };
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	snprintf(what, sizeof(what), "%s: %s%d bytes at %d", name, sx ? "sign-extended " : "",
		 size, off);
	for (int s = 0; s < NSIDES; s++) {
		char *end;

		r[s] = side_prog_load_level(s, BPF_PROG_TYPE_RAW_TRACEPOINT, 0, p, n, log[s],
					    sizeof(log[s]), 2);
		if (r[s].rc >= 0)
			close(r[s].rc);
		end = strstr(log[s], "processed ");
		if (end)
			*end = 0;
	}
	if (AGREE(what, r) && strcmp(log[K], log[U])) {
		test_fail(__FILE__, __LINE__, "%s: logs differ:\n--- kernel\n%s--- userbpf\n%s",
			  what, log[K], log[U]);
		return -1;
	}
	return r[K].rc >= 0;
}

/* load_agrees() for every offset from -8 to past the end of struct name, each size in
 * size_mask (bit b: 1 << b bytes), sign-extended too with ldsx: how many the kernel accepted,
 * or -1 at the first difference. */
static int struct_loads_agree(const char *name, const struct bpf_insn *walk, uint32_t nwalk,
			      int size_mask, bool ldsx)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t =
		btf_type_by_id(btf, btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT));
	/* (every offset; under valgrind every seventh, which still meets each kind of field) */
	int accepted = 0, step = getenv("USERBPF_VALGRIND") ? 7 : 1;

	for (int off = -8; off < (int)t->size + 8; off += step)
		for (int z = 0; z < 4; z++)
			for (int sx = 0; (size_mask & (1 << z)) && sx <= (ldsx && z < 3); sx++) {
				int a = load_agrees(name, walk, nwalk, off, 1 << z, sx);

				if (a < 0)
					return -1;
				accepted += a;
			}
	return accepted;
}

TEST(diff_btf_ptr_struct_loads)
{
	const struct bpf_insn task[] = { TASK, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0) };
	struct bpf_insn css_set[] = { TASK, LD(DW, 1, 0, O_CGROUPS) };
	struct bpf_insn cgroup[] = { TASK, LD(DW, 1, 0, O_CGROUPS), LD(DW, 1, 1, O_DFL_CGRP) };
	struct bpf_insn mm[] = { TASK, LD(DW, 1, 0, O_MM) };
	int n;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_offsets())
		SKIP("no kernel BTF with task_struct's fields (/sys/kernel/btf/vmlinux)");
	css_set[1].off = (s16)offs[O_CGROUPS];
	cgroup[1].off = (s16)offs[O_CGROUPS];
	cgroup[2].off = (s16)offs[O_DFL_CGRP];
	mm[1].off = (s16)offs[O_MM];
	n = struct_loads_agree("task_struct", task, 2, 0xf, true);
	printf("diff_btf_ptr_struct_loads: task_struct %d accepted", n);
	CHECK(n > 1000);
	n = struct_loads_agree("css_set", css_set, 2, 0xc, false);
	printf(", css_set %d", n);
	CHECK(n > 5);
	n = struct_loads_agree("cgroup", cgroup, 3, 0x8, false);
	printf(", cgroup %d", n);
	CHECK(n > 10);
	n = struct_loads_agree("mm_struct", mm, 2, 0x8, true);
	printf(", mm_struct %d\n", n);
	CHECK(n > 10);
}

/* A load through a pointer userbpf leaves NULL (the task's cpus_ptr) reads 0, JIT-compiled and
 * interpreted (the JIT's out-of-line path), where the kernel's reads its CPU mask: userbpf's
 * answer alone. */
TEST(btf_ptr_null_reads_zero)
{
	struct bpf_insn p[5] = {
		TASK, LD(DW, 1, 0, O_CPUS), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN(),
	};

	if (!fill_offsets())
		SKIP("no kernel BTF with task_struct's fields (/sys/kernel/btf/vmlinux)");
	p[1].off = (s16)offs[O_CPUS];
	for (int jit = 1; jit >= 0; jit--) {
		int old = userbpf_set_jit(jit), fd = side_prog_load(U, BPF_PROG_TYPE_RAW_TRACEPOINT,
								   p, 5);
		uint64_t args[2] = { 0, 0 };
		uint32_t ret = 1;

		userbpf_set_jit(old);
		REQUIRE(fd >= 0);
		CHECK_EQ(side_test_run_ctx(U, fd, NULL, 0, 0, args, sizeof(args), NULL, 0, &ret).rc,
			 0);
		CHECK_EQ(ret, 0);
		close(fd);
	}
}
