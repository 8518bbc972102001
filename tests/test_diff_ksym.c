/* Typed ksyms against the kernel: LD_IMM64 of a kernel variable by its BTF id
 * (BPF_PSEUDO_BTF_ID), as libbpf emits `extern ... __ksym` variables: the per-CPU struct
 * runqueues and int bpf_prog_active as percpu_ptr_, read only through bpf_this_cpu_ptr()
 * (ptr_rq, rdonly_mem of 4 bytes) and bpf_per_cpu_ptr() (the same or NULL), their fields and
 * bounds, writes, direct loads, offsets, other arguments, other program types, ids that are
 * no variable.  Each program's verdict, errno and whole level-2 log must be the kernel's; the
 * accepted ones then run on userbpf, where every kernel variable reads 0 (its CPU's copy or
 * NULL past the possible CPUs).  Skipped without the kernel's bpf() or BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kallsyms.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

enum { V_RQ, V_ACTIVE, V_TASK_STRUCT, V_RQ_NR_RUNNING, V__COUNT };
static int32_t vals[V__COUNT];

#define KSYM(dst, v) BPF_LD_IMM64_RAW(BPF_REG_##dst, BPF_PSEUDO_BTF_ID, PLACEHOLDER(v))
#define THIS_CPU BPF_EMIT_CALL(BPF_FUNC_this_cpu_ptr)
#define PER_CPU BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr)
#define RET0 BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()

static const struct {
	const char *what;
	uint32_t type;
	bool run;		/* accepted: run on userbpf, must return 0 */
	/* A refusal's error line as 6.18's source gives it, for a kernel that cannot resolve
	 * kernel variables (without CONFIG_KALLSYMS_ALL, as here: see the test) */
	const char *want;
	struct bpf_insn insns[16];
} cases[] = {
	{ "a per-CPU struct", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL, { KSYM(1, V_RQ), RET0 } },
	{ "this CPU's rq->nr_running", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL,
	  { KSYM(1, V_RQ), THIS_CPU,
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, PLACEHOLDER(V_RQ_NR_RUNNING)),
	    BPF_EXIT_INSN() } },
	{ "CPU 0's, unchecked", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R0 invalid mem access 'ptr_or_null_'",
	  { KSYM(1, V_RQ), BPF_MOV64_IMM(BPF_REG_2, 0), PER_CPU,
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, PLACEHOLDER(V_RQ_NR_RUNNING)),
	    BPF_EXIT_INSN() } },
	{ "CPU 0's, checked", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL,
	  { KSYM(1, V_RQ), BPF_MOV64_IMM(BPF_REG_2, 0), PER_CPU,
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 100),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, PLACEHOLDER(V_RQ_NR_RUNNING)),
	    BPF_EXIT_INSN() } },
	{ "a CPU past the possible ones", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL,
	  { KSYM(1, V_RQ), BPF_MOV64_IMM(BPF_REG_2, 100000), PER_CPU,
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 100), BPF_MOV64_IMM(BPF_REG_0, 1),
	    BPF_EXIT_INSN() } },
	{ "a per-CPU int", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL,
	  { KSYM(1, V_ACTIVE), THIS_CPU, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
	    BPF_EXIT_INSN() } },
	{ "past the int", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "invalid access to memory, mem_size=4 off=4 size=4",
	  { KSYM(1, V_ACTIVE), THIS_CPU, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4),
	    BPF_EXIT_INSN() } },
	{ "a write to the int", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R0 cannot write into rdonly_mem",
	  { KSYM(1, V_ACTIVE), THIS_CPU, BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1), RET0 } },
	{ "CPU 1's int, unchecked", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R0 invalid mem access 'rdonly_mem_or_null'",
	  { KSYM(1, V_ACTIVE), BPF_MOV64_IMM(BPF_REG_2, 1), PER_CPU,
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), BPF_EXIT_INSN() } },
	{ "a direct load", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R1 is ptr_rq access percpu memory: off=0",
	  { KSYM(1, V_RQ), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN() } },
	{ "a direct store", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R1 is ptr_int access percpu memory: off=0",
	  { KSYM(1, V_ACTIVE), BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 1), RET0 } },
	{ "moved by 8", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "dereference of modified percpu_ptr_ ptr R1 off=8 disallowed",
	  { KSYM(1, V_RQ), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), THIS_CPU, RET0 } },
	{ "spilled and filled", BPF_PROG_TYPE_RAW_TRACEPOINT, true, NULL,
	  { KSYM(1, V_RQ), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), THIS_CPU, RET0 } },
	{ "a scalar to bpf_this_cpu_ptr()", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R1 type=scalar expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_",
	  { BPF_MOV64_IMM(BPF_REG_1, 0), THIS_CPU, RET0 } },
	{ "the ctx to bpf_this_cpu_ptr()", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "R1 type=ctx expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_",
	  { THIS_CPU, RET0 } },
	{ "in XDP", BPF_PROG_TYPE_XDP, true, NULL,
	  { KSYM(1, V_RQ), THIS_CPU, BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() } },
	{ "in a socket filter", BPF_PROG_TYPE_SOCKET_FILTER, true, NULL,
	  { KSYM(1, V_ACTIVE), THIS_CPU, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
	    BPF_EXIT_INSN() } },
	{ "a struct's id", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "isn't KIND_VAR or KIND_FUNC",
	  { KSYM(1, V_TASK_STRUCT), RET0 } },
	{ "an id past the types", BPF_PROG_TYPE_RAW_TRACEPOINT, false,
	  "ldimm64 insn specifies invalid btf_id 8388607.",
	  { BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_BTF_ID, 0x7fffff), RET0 } },
};

static bool fill_vals(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 rq;

	if (!btf)
		return false;
	vals[V_RQ] = (int32_t)btf_find_by_name_kind(btf, "runqueues", BTF_KIND_VAR);
	vals[V_ACTIVE] = (int32_t)btf_find_by_name_kind(btf, "bpf_prog_active", BTF_KIND_VAR);
	vals[V_TASK_STRUCT] = (int32_t)btf_vmlinux_task_struct();
	rq = btf_find_by_name_kind(btf, "rq", BTF_KIND_STRUCT);
	vals[V_RQ_NR_RUNNING] = rq ? (int32_t)btf_member_offset(btf, rq, "nr_running") : -1;
	return vals[V_RQ] > 0 && vals[V_ACTIVE] > 0 && vals[V_TASK_STRUCT] > 0 &&
	       vals[V_RQ_NR_RUNNING] >= 0;
}

static uint32_t build(size_t i, struct bpf_insn *p)
{
	uint32_t n = insns_used(cases[i].insns, 16);

	memcpy(p, cases[i].insns, n * sizeof(*p));
	for (uint32_t j = 0; j < n; j++)
		if (p[j].code == (BPF_LD | BPF_DW | BPF_IMM) && p[j].imm < PLACEHOLDER(V__COUNT) &&
		    p[j].imm >= PLACEHOLDER(0)) {
			p[j].imm = vals[p[j].imm - PLACEHOLDER(0)];
			p[j + 1].imm = 0; /* (the placeholder's sign) */
		}
	fill_placeholders(p, n, vals, V__COUNT);
	return fill_tail_jumps(p, n);
}

/* A run of userbpf's program fd of case i: all kernel variables read 0, so every program
 * returns 0 (XDP_PASS). */
static void run_zero(size_t i, int fd)
{
	static uint8_t pkt[64];
	uint64_t args[2] = { 0, 0 };
	uint32_t ret = 99;
	bool raw = cases[i].type == BPF_PROG_TYPE_RAW_TRACEPOINT;

	CHECK_EQ(side_test_run_ctx(U, fd, raw ? NULL : pkt, raw ? 0 : sizeof(pkt), 0,
				   raw ? args : NULL, raw ? sizeof(args) : 0, NULL, 0, &ret).rc,
		 0);
	CHECK_EQ(ret, cases[i].type == BPF_PROG_TYPE_XDP ? (uint32_t)XDP_PASS : 0);
}

/* userbpf alone, with a symbol file that lists the two variables (USERBPF_KALLSYMS): each
 * case's verdict and error line must be what 6.18 gives where it can resolve them; the
 * number of runs. */
static int expected_answers(void)
{
	static const char *const vars[] = { "runqueues", "bpf_prog_active" };
	static char log[1 << 16], path[] = "/tmp/userbpf-kallsyms-XXXXXX";
	int runs = 0;

	if (!kallsyms_file_with(path, vars, 2))
		return 0;
	setenv("USERBPF_KALLSYMS", path, 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[20];
		uint32_t n = build(i, p);
		struct bpf_result r = side_prog_load_level(U, cases[i].type, 0, p, n, log,
							   sizeof(log), 2);
		if ((r.rc >= 0) != cases[i].run || (!cases[i].run && !strstr(log, cases[i].want)))
			test_fail(__FILE__, __LINE__, "%s: userbpf rc %d, want %s\n%s",
				  cases[i].what, r.rc, cases[i].run ? "a load" : cases[i].want,
				  log);
		if (r.rc >= 0) {
			run_zero(i, r.rc);
			runs++;
			close(r.rc);
		}
	}
	unsetenv("USERBPF_KALLSYMS");
	unlink(path);
	return runs;
}

TEST(diff_ksym)
{
	static char log[NSIDES][1 << 16];
	int same = 0, accepted = 0, runs = 0;
	bool listed;
	uint64_t addr;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_vals())
		SKIP("no kernel BTF with runqueues and bpf_prog_active (/sys/kernel/btf/vmlinux)");
	/* (a kernel without CONFIG_KALLSYMS_ALL has no variables to give: it refuses them all) */
	listed = kallsyms_lookup("runqueues", &addr, NULL) != -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn p[20];
		uint32_t n = build(i, p);
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			r[s] = side_prog_load_level(s, cases[i].type, 0, p, n, log[s],
						    sizeof(log[s]), 2);
			log_cut_stats(log[s]);
			log_cut_map_addrs(log[s]); /* (a variable's address: each side's) */
		}
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %d (errno %d)\n%s", cases[i].what, r[K].rc, r[K].err, log[K]);
		if (AGREE(cases[i].what, r))
			same += LOGS_SAME(cases[i].what, log[K], log[U]);
		if (listed) {
			CHECK_EQ(r[K].rc >= 0, cases[i].run);
			/* (the kernel's run reads its own memory: userbpf's alone, zeros) */
			if (r[U].rc >= 0 && cases[i].run) {
				run_zero(i, r[U].rc);
				runs++;
			}
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
		accepted += r[K].rc >= 0;
	}
	printf("diff_ksym: %zu programs, %d accepted, %d with the whole level-2 log equal",
	       ARRAY_SIZE(cases), accepted, same);
	CHECK_EQ(same, (int)ARRAY_SIZE(cases));
	if (!listed) {
		/* the kernel here lists no variables (no CONFIG_KALLSYMS_ALL): 6.18's answers
		 * where it does, from its source */
		runs = expected_answers();
		printf("; the kernel lists no variables: userbpf given them checked against 6.18's "
		       "answers");
	}
	printf(", %d runs reading zeros\n", runs);
	CHECK(runs >= 6);
}
