/* The sleepable user-memory copies, against the kernel: the helper bpf_copy_from_user() and the
 * kfuncs bpf_copy_from_user_str() (6.12), bpf_copy_from_user_dynptr() and
 * bpf_copy_from_user_str_dynptr() (6.16).
 *
 * The verifier's rules (only sleepable programs have them; not inside an RCU read section nor
 * with preemption off) are compared whole-log with the kernel's.  At run time a sleepable
 * syscall program, test-run on both sides, copies into a 64-byte map value (or a dynptr over
 * it) from this process's memory, which the kernel's test run reads as the caller's: strings
 * with NULs anywhere, ones running into an unreadable page, NULL, small integers, non-canonical
 * and kernel addresses.  The value returned and every byte of the map value must be the
 * kernel's.  Skipped where the kernel's bpf() or BTF is unavailable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"
#include "verifier_harness.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define VALUE 64
#define SYSCALL BPF_PROG_TYPE_SYSCALL
#define KPROBE BPF_PROG_TYPE_KPROBE
#define SLEEPABLE .prog_flags = BPF_F_SLEEPABLE
#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
#define FP(r, off) BPF_MOV64_REG(r, 10), BPF_ALU64_IMM(BPF_ADD, r, off)
/* bpf_copy_from_user(fp - 16, 16, NULL) */
#define COPY BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 16), FP(1, -16), CALL(copy_from_user)
/* bpf_copy_from_user_str(fp - 16, 16, NULL, 0) */
#define COPY_STR                                                                                 \
	BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 16), FP(1, -16),              \
		KFUNC(KF_COPY_USER_STR)
/* a local dynptr at fp - 16 over 16 bytes of a MAP_ARRAY value (else return 0), then
 * k(it, 0, 8, NULL) */
#define DYNPTR_COPY(k)                                                                           \
	BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4), BPF_LD_MAP_FD(1, MAP_ARRAY),                    \
		CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT,                  \
		BPF_MOV64_REG(1, 0), BPF_MOV64_IMM(2, 16), BPF_MOV64_IMM(3, 0), FP(4, -16),       \
		CALL(dynptr_from_mem), FP(1, -16), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 8),       \
		BPF_MOV64_IMM(4, 0), KFUNC(k)

/* bpf_copy_from_user_task(fp - 16, 16, NULL, the current task, 0) */
#define COPY_TASK CALL(get_current_task_btf), BPF_MOV64_REG(4, 0), BPF_MOV64_IMM(5, 0),          \
	BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 16), FP(1, -16), CALL(copy_from_user_task)

static const struct vcase cases[] = {
	/* the task's form: the same rules, a task it may pass on */
	{ "task_helper_sleepable_syscall", SYSCALL, { COPY_TASK, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2, SLEEPABLE },
	{ "task_helper_kprobe", KPROBE, { COPY_TASK, EXIT }, REJECT,
	  "helper call might sleep in a non-sleepable prog", EINVAL, .full_log = true },
	{ "task_helper_null_task", SYSCALL, { BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(5, 0),
	  BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 16), FP(1, -16), CALL(copy_from_user_task),
	  EXIT }, REJECT, "R4 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_", EACCES,
	  .full_log = true, SLEEPABLE },
	/* the helper: every program type has it (a base helper in 6.18), the sleepable ones
	 * (kprobes and syscall programs here) may call it */
	{ "helper_sleepable_syscall", SYSCALL, { COPY, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2, SLEEPABLE },
	{ "helper_sleepable_kprobe", KPROBE, { COPY, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2, SLEEPABLE },
	{ "helper_kprobe", KPROBE, { COPY, EXIT }, REJECT,
	  "helper call might sleep in a non-sleepable prog", EINVAL, .full_log = true },
	{ "helper_xdp", XDP, { COPY, EXIT }, REJECT,
	  "helper call might sleep in a non-sleepable prog", EINVAL, .full_log = true },
	{ "helper_sock", SOCK, { COPY, EXIT }, REJECT,
	  "helper call might sleep in a non-sleepable prog", EINVAL, .full_log = true },
	/* (before the arguments: these are not checked) */
	{ "helper_bad_args", XDP, { BPF_MOV64_IMM(1, 0), CALL(copy_from_user), EXIT }, REJECT,
	  "helper call might sleep in a non-sleepable prog", EINVAL, .full_log = true },
	{ "helper_in_rcu", SYSCALL, { KFUNC(KF_RCU_READ_LOCK), COPY, KFUNC(KF_RCU_READ_UNLOCK),
	  R0_0, EXIT }, REJECT, "sleepable helper bpf_copy_from_user#148 in rcu_read_lock region",
	  EINVAL, .full_log = true, SLEEPABLE },
	{ "helper_preempt_off", SYSCALL, { KFUNC(KF_PREEMPT_OFF), COPY, KFUNC(KF_PREEMPT_ON),
	  R0_0, EXIT }, REJECT,
	  "sleepable helper bpf_copy_from_user#148 in non-preemptible region", EINVAL,
	  .full_log = true, SLEEPABLE },
	{ "helper_after_rcu", SYSCALL, { KFUNC(KF_RCU_READ_LOCK), KFUNC(KF_RCU_READ_UNLOCK), COPY,
	  EXIT }, ACCEPT, .full_log = true, .log_level = 2, SLEEPABLE },
	/* the size is the buffer's: more than the stack holds is refused */
	{ "helper_too_big", SYSCALL, { BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 24), FP(1, -16),
	  CALL(copy_from_user), EXIT }, REJECT,
	  "invalid write to stack R1 off=-16 size=24", EINVAL, .full_log = true, SLEEPABLE },
	/* (in a bpf_loop() callback of a sleepable program: sleepable too) */
	{ "helper_in_loop_callback", SYSCALL, { BPF_MOV64_IMM(1, 2),
	  BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, 2, BPF_PSEUDO_FUNC, 0, 5), BPF_RAW_INSN(0, 0, 0, 0, 0),
	  BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, 0), CALL(loop), EXIT, COPY, R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2, SLEEPABLE, .funcs = true },
	/* the kfuncs: any program type, if sleepable */
	{ "str_sleepable", SYSCALL, { COPY_STR, EXIT }, ACCEPT, .full_log = true, .log_level = 2,
	  SLEEPABLE },
	{ "str_not_sleepable", XDP, { COPY_STR, EXIT }, REJECT,
	  "program must be sleepable to call sleepable kfunc bpf_copy_from_user_str", EACCES,
	  .full_log = true },
	{ "str_kprobe", KPROBE, { COPY_STR, EXIT }, REJECT,
	  "program must be sleepable to call sleepable kfunc bpf_copy_from_user_str", EACCES,
	  .full_log = true },
	{ "str_in_rcu", SYSCALL, { KFUNC(KF_RCU_READ_LOCK), COPY_STR, KFUNC(KF_RCU_READ_UNLOCK),
	  R0_0, EXIT }, REJECT,
	  "kernel func bpf_copy_from_user_str is sleepable within rcu_read_lock region", EACCES,
	  .full_log = true, SLEEPABLE },
	{ "str_preempt_off", SYSCALL, { KFUNC(KF_PREEMPT_OFF), COPY_STR, KFUNC(KF_PREEMPT_ON),
	  R0_0, EXIT }, REJECT,
	  "kernel func bpf_copy_from_user_str is sleepable within non-preemptible region", EACCES,
	  .full_log = true, SLEEPABLE },
	/* (the arguments come first: a bad one is what the log names) */
	{ "str_in_rcu_bad_size", SYSCALL, { KFUNC(KF_RCU_READ_LOCK), BPF_MOV64_IMM(4, 0),
	  BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(2, 24), FP(1, -16), KFUNC(KF_COPY_USER_STR),
	  KFUNC(KF_RCU_READ_UNLOCK), R0_0, EXIT }, REJECT,
	  "arg#0 arg#1 memory, len pair leads to invalid memory access", EINVAL, .full_log = true,
	  SLEEPABLE },
	{ "str_size_unknown", SYSCALL, { CALL(get_prandom_u32), BPF_MOV64_REG(2, 0),
	  BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(3, 0), FP(1, -16), KFUNC(KF_COPY_USER_STR), EXIT },
	  REJECT, "arg#0 arg#1 memory, len pair leads to invalid memory access", EACCES,
	  .full_log = true, SLEEPABLE },
	{ "str_size_bounded", SYSCALL, { CALL(get_prandom_u32), BPF_MOV64_REG(2, 0),
	  BPF_ALU64_IMM(BPF_AND, 2, 15), BPF_MOV64_IMM(4, 0), BPF_MOV64_IMM(3, 0), FP(1, -16),
	  KFUNC(KF_COPY_USER_STR), EXIT }, ACCEPT, .full_log = true, .log_level = 2, SLEEPABLE },
	{ "dynptr_copy", SYSCALL, { DYNPTR_COPY(KF_COPY_USER_DYNPTR), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2, SLEEPABLE },
	{ "dynptr_copy_str", SYSCALL, { DYNPTR_COPY(KF_COPY_USER_STR_DYNPTR), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2, SLEEPABLE },
	{ "dynptr_copy_not_sleepable", XDP, { DYNPTR_COPY(KF_COPY_USER_DYNPTR), EXIT }, REJECT,
	  "program must be sleepable to call sleepable kfunc bpf_copy_from_user_dynptr", EACCES,
	  .full_log = true },
	{ "dynptr_copy_str_preempt_off", SYSCALL, { KFUNC(KF_PREEMPT_OFF),
	  DYNPTR_COPY(KF_COPY_USER_STR_DYNPTR), KFUNC(KF_PREEMPT_ON), R0_0, EXIT }, REJECT,
	  "kernel func bpf_copy_from_user_str_dynptr is sleepable within non-preemptible region",
	  EACCES, .full_log = true, SLEEPABLE },
};

TEST(diff_copy_from_user_verifier)
{
	if (!kfunc_btf_available()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	vcase_run_table("copy_from_user", cases, (int)N(cases));
}

enum { HELPER, STR, DYNPTR, STR_DYNPTR, KINDS };
static const char *const kind_names[KINDS] = { "bpf_copy_from_user", "bpf_copy_from_user_str",
					       "bpf_copy_from_user_dynptr",
					       "bpf_copy_from_user_str_dynptr" };

/* r0 = the copy into the map value (a local dynptr over it for the dynptr kfuncs; null: a
 * NULL one) */
static int build(int map_fd, int kind, uint32_t kfunc_id, bool null, uint64_t off, uint32_t size,
		 uint64_t src, uint64_t flags, struct bpf_insn *p)
{
	struct bpf_insn call = kind == HELPER ? BPF_EMIT_CALL(BPF_FUNC_copy_from_user)
					      : BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0,
							     BPF_PSEUDO_KFUNC_CALL, 0,
							     (int32_t)kfunc_id);

	if (kind == DYNPTR || kind == STR_DYNPTR)
		return copy_prog(map_fd, VALUE, null, off, size, src, call, p);
	return copy_prog(map_fd, VALUE, -1, size, src, flags, call, p);
}

TEST(diff_copy_from_user_runs)
{
	const struct btf *vmlinux = btf_vmlinux();
	uint32_t ids[KINDS] = { 0 };
	uint8_t *pages, value[NSIDES][VALUE];
	uint32_t seed = 20261207;
	int maps[NSIDES], runs = 0, copied = 0, faulted = 0, kinds_run[KINDS] = { 0 };

	SKIP_WITHOUT_KERNEL_BPF();
	if (!vmlinux)
		SKIP("no kernel BTF");
	for (int k = STR; k < KINDS; k++) {
		ids[k] = btf_find_func(vmlinux, kind_names[k]);
		if (!ids[k])
			SKIP("the kernel's BTF has no %s (before 6.16)", kind_names[k]);
	}
	pages = copy_fixture(maps, VALUE);
	REQUIRE(pages != NULL);
	for (int i = 0; i < 800; i++) {
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
		int kind = (int)(RND(KINDS));
		bool null = (kind == DYNPTR || kind == STR_DYNPTR) && !RND(8);
		uint64_t off = RND(8) ? RND(VALUE) : RND(3) ? RND(VALUE + 16) : 1ull << 32;
		uint32_t size, kd = RND(COPY_SRC_KINDS);
		uint64_t src, flags = RND(3) ? 0 : RND(4);
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		char what[200];

		if (kind == DYNPTR || kind == STR_DYNPTR)
			size = RND(8) ? RND(VALUE - off % VALUE + 1) : RND(VALUE + 16);
		else
			size = RND(VALUE + 1); /* (the verifier's bound: the value's size) */
		src = copy_src(pages, kd, RND(1u << 20));
#undef RND
		snprintf(what, sizeof(what), "#%d %s(%s, off %llu, size %u, src %#llx, flags %llu)",
			 i, kind_names[kind], null ? "NULL dynptr" : "value", (unsigned long long)off,
			 size, (unsigned long long)src, (unsigned long long)flags);
		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn prog[40];
			int n = build(maps[s], kind, ids[kind], null, off, size, src, flags, prog);

			r[s] = side_copy_run(s, maps[s], VALUE, BPF_PROG_TYPE_SYSCALL, BPF_F_SLEEPABLE,
					     prog, (uint32_t)n, false, value[s], &ret[s]);
		}
		if (!AGREE(what, r) || r[K].rc < 0)
			continue;
		runs++;
		kinds_run[kind]++;
		copied += (int32_t)ret[K] > 0;
		faulted += (int32_t)ret[K] == -EFAULT;
		COPIES_AGREE(what, ret, value[K], value[U], VALUE);
	}
	copy_fixture_done(pages, maps);
	if (getenv("TEST_VERBOSE"))
		printf("diff_copy_from_user_runs: %d runs (%d %d %d %d by kind), %d returned a "
		       "length, %d -EFAULT\n", runs, kinds_run[0], kinds_run[1], kinds_run[2],
		       kinds_run[3], copied, faulted);
	CHECK(runs >= 700 && copied >= 50 && faulted >= 50);
	for (int k = 0; k < KINDS; k++)
		CHECK(kinds_run[k] >= 100);
}

/* bpf_copy_from_user_task(value, size, src, task, flags), a base helper of 6.18 for sleepable
 * programs, on the current task (this process: the kernel's access_process_vm() reads what
 * the caller could): the same sources as above, and flags, give the kernel's result and
 * every byte of the value (all of it zeroed on a partial read). */
TEST(diff_copy_from_user_task_runs)
{
	uint8_t *pages, value[NSIDES][VALUE];
	uint32_t seed = 20261208;
	int maps[NSIDES], runs = 0, copied = 0, faulted = 0, bad_flags = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	pages = copy_fixture(maps, VALUE);
	REQUIRE(pages != NULL);
	for (int i = 0; i < 300; i++) {
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
		uint32_t size = RND(VALUE + 1), kd = RND(COPY_SRC_KINDS);
		uint64_t src = copy_src(pages, kd, RND(1u << 20)), flags = RND(6) ? 0 : RND(3);
#undef RND
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		char what[120];

		snprintf(what, sizeof(what), "#%d bpf_copy_from_user_task(size %u, src %#llx, "
			 "flags %llu)", i, size, (unsigned long long)src, (unsigned long long)flags);
		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn prog[] = {
				BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
				BPF_LD_MAP_FD(BPF_REG_1, maps[s]),
				BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
				BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
				BPF_EXIT_INSN(),
				BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
				BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
				BPF_MOV64_REG(BPF_REG_4, BPF_REG_0),
				BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
				BPF_MOV64_IMM(BPF_REG_2, (int32_t)size),
				BPF_LD_IMM64(BPF_REG_3, src),
				BPF_LD_IMM64(BPF_REG_5, flags),
				BPF_EMIT_CALL(BPF_FUNC_copy_from_user_task),
				BPF_MOV32_REG(BPF_REG_0, BPF_REG_0),
				BPF_EXIT_INSN(),
			};

			r[s] = side_copy_run(s, maps[s], VALUE, BPF_PROG_TYPE_SYSCALL, BPF_F_SLEEPABLE,
					     prog, N(prog), false, value[s], &ret[s]);
		}
		if (!AGREE(what, r) || r[K].rc < 0)
			continue;
		runs++;
		copied += !ret[K] && size;
		faulted += (int32_t)ret[K] == -EFAULT;
		bad_flags += (int32_t)ret[K] == -EINVAL;
		COPIES_AGREE(what, ret, value[K], value[U], VALUE);
	}
	copy_fixture_done(pages, maps);
	printf("diff_copy_from_user_task_runs: %d runs with the kernel's result and bytes (%d "
	       "copies, %d -EFAULT, %d -EINVAL)\n", runs, copied, faulted, bad_flags);
	CHECK(runs == 300 && copied >= 30 && faulted >= 30 && bad_flags >= 10);
}
