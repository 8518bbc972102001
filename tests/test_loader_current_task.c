/* bpf_get_current_task() as tracing tools use it: the corpus program raw_tp_current_task reads
 * the current task with BPF_CORE_READ() chains (ids, names, the parent chain up to init and the
 * idle task, the group leader, the credentials, the mm) into .bss.  Run from the main thread and
 * from a second one: userbpf's report is this thread's (gettid(), getpid(), getppid(), its name,
 * its ids, init's parent the idle task), and, where the kernel's bpf() is available and the pids
 * are the kernel's own (no pid namespace between), the kernel's report, byte for byte but for
 * where init is (see below).  Skipped without a kernel BTF (the
 * task is laid out by it) or where the probe reads cannot read this process (qemu-user). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "corpus/task_lookup.h"
#include "corpus/task_report.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"
#include "userbpf/loader.h"

/* the same report read with probe reads, with direct reads of bpf_get_current_task_btf(), and
 * through bpf_rdonly_cast() of bpf_get_current_task() */
static const char *const objs[] = {
	LOADER_OBJ_DIR "/tests/corpus/raw_tp_current_task.bpf.o",
	LOADER_OBJ_DIR "/tests/corpus/raw_tp_task_btf.bpf.o",
	LOADER_OBJ_DIR "/tests/corpus/raw_tp_core_cast.bpf.o",
};

/* Loads the object on side s, test-runs it once from the calling thread, reads .bss into *r;
 * false (with a failure) if any step fails. */
static bool run_side(int s, const char *obj_path, struct report *r)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };
	struct userbpf_object *obj = NULL;
	uint64_t args[2] = { 0, 0 };
	uint32_t ret = 1, key = 0;
	bool ok = false;

	memset(r, 0xee, sizeof(*r));
	if (userbpf_object_open_file(obj_path, &opts, &obj) || userbpf_object_load(obj)) {
		test_fail(__FILE__, __LINE__, "side %d: %s does not load", s, obj_path);
		goto out;
	}
	if (side_test_run_ctx(s, userbpf_program_fd(userbpf_object_program(obj, 0)), NULL, 0, 0,
			      args, sizeof(args), NULL, 0, &ret).rc || ret) {
		test_fail(__FILE__, __LINE__, "side %d: the run fails (ret %u)", s, ret);
		goto out;
	}
	ok = !side_elem(s, BPF_MAP_LOOKUP_ELEM,
			userbpf_map_fd(userbpf_object_find_map(obj, ".bss")), &key, r, 0).rc;
	if (!ok)
		test_fail(__FILE__, __LINE__, "side %d: no .bss", s);
out:
	userbpf_object_close(obj);
	return ok;
}

static void proc_comm(int pid, char comm[16])
{
	char path[64];
	FILE *fp;

	memset(comm, 0, 16);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fp = fopen(path, "r");
	if (fp && fgets(comm, 16, fp))
		comm[strcspn(comm, "\n")] = 0;
	if (fp)
		fclose(fp);
}

static int checks;

/* Runs obj_path on both sides from the calling thread and checks userbpf's report. */
static void check_obj(const char *obj_path)
{
	struct report r[NSIDES];
	char comm[17] = { 0 }, parent_comm[16];

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	proc_comm(getppid(), parent_comm);
	if (!run_side(U, obj_path, &r[U]))
		return;
	CHECK_EQ(r[U].pid, gettid());
	CHECK_EQ(r[U].tgid, getpid());
	CHECK(!strcmp(r[U].comm, comm));
	CHECK_EQ(r[U].ppid, getppid());
	CHECK(!strcmp(r[U].parent_comm, parent_comm));
	CHECK_EQ(r[U].leader_pid, getpid());
	CHECK_EQ(r[U].uid, getuid());
	CHECK_EQ(r[U].gid, getgid());
	CHECK_EQ(r[U].euid, geteuid());
	CHECK_EQ(r[U].egid, getegid());
	CHECK_EQ(r[U].has_mm, 1);
	CHECK_EQ(r[U].parent_is_real_parent, 1);
	CHECK(r[U].levels_to_init >= 1 || getpid() == 1);
	CHECK_EQ(r[U].init_parent_pid, 0);
	CHECK(!strcmp(r[U].init_parent_comm, "swapper/0"));
	checks++;
	if (!kernel_bpf_available() || !pids_are_global())
		return;
	if (!run_side(K, obj_path, &r[K]))
		return;
	/* (not how far up init is: userbpf's chain is /proc's, and a sandbox's /proc may say
	 * init where the kernel's parent is another process, as on the machine this was
	 * written on) */
	r[K].levels_to_init = r[U].levels_to_init;
	r[K].init_parent_pid = r[U].init_parent_pid;
	memcpy(r[K].init_parent_comm, r[U].init_parent_comm, sizeof(r[K].init_parent_comm));
	if (memcmp(&r[K], &r[U], sizeof(r[K])))
		test_fail(__FILE__, __LINE__,
			  "%s: kernel: pid %d tgid %d comm %s ppid %d (%s) gppid %d "
			  "leader %d uid %u gid %u init at %d, parent %d (%s), mm %d; "
			  "userbpf: pid %d tgid %d comm %s ppid %d (%s) gppid %d leader %d "
			  "uid %u gid %u init at %d, parent %d (%s), mm %d",
			  obj_path, r[K].pid, r[K].tgid, r[K].comm, r[K].ppid, r[K].parent_comm,
			  r[K].gppid, r[K].leader_pid, r[K].uid, r[K].gid, r[K].levels_to_init,
			  r[K].init_parent_pid, r[K].init_parent_comm, r[K].has_mm, r[U].pid,
			  r[U].tgid, r[U].comm, r[U].ppid, r[U].parent_comm, r[U].gppid,
			  r[U].leader_pid, r[U].uid, r[U].gid, r[U].levels_to_init,
			  r[U].init_parent_pid, r[U].init_parent_comm, r[U].has_mm);
	else
		checks++;
}

static void *check_thread(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < ARRAY_SIZE(objs); i++)
		check_obj(objs[i]);
	return NULL;
}

TEST(loader_current_task)
{
	pthread_t t;

	if (!btf_vmlinux())
		SKIP("no kernel BTF: the task is laid out by it");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the probe reads "
		     "go through it");
	checks = 0;
	check_thread(NULL);
	REQUIRE_EQ(pthread_create(&t, NULL, check_thread, NULL), 0);
	pthread_join(t, NULL);
	/* (userbpf's checks of both objects on both threads, and the kernel's where it
	 * compares) */
	CHECK(checks >= 4);
	if (getenv("TEST_VERBOSE"))
		printf("loader_current_task: %d reports checked\n", checks);
}

/* syscall_task_lookup on side s: the ids in, one run, the report out (false, with a failure,
 * if a step fails). */
static bool lookup_side(int s, struct task_lookup *l)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };
	struct userbpf_object *obj = NULL;
	uint64_t args[2] = { 0, 0 };
	uint32_t ret = 1, key = 0;
	bool ok = false;
	int bss;

	if (userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/syscall_task_lookup.bpf.o",
				     &opts, &obj) || userbpf_object_load(obj)) {
		test_fail(__FILE__, __LINE__, "side %d: syscall_task_lookup does not load", s);
		goto out;
	}
	bss = userbpf_map_fd(userbpf_object_find_map(obj, ".bss"));
	if (side_elem(s, BPF_MAP_UPDATE_ELEM, bss, &key, l, 0).rc ||
	    side_test_run_ctx(s, userbpf_program_fd(userbpf_object_program(obj, 0)), NULL, 0, 0,
			      args, sizeof(args), NULL, 0, &ret).rc || ret) {
		test_fail(__FILE__, __LINE__, "side %d: the run fails (ret %u)", s, ret);
		goto out;
	}
	ok = !side_elem(s, BPF_MAP_LOOKUP_ELEM, bss, &key, l, 0).rc;
	if (!ok)
		test_fail(__FILE__, __LINE__, "side %d: no .bss", s);
out:
	userbpf_object_close(obj);
	return ok;
}

/* Tasks found by id and held by reference (bpf_task_from_pid(), bpf_task_acquire(),
 * bpf_task_release()) and the current cgroup (bpf_cgroup_from_id(), _ancestor(), _release(),
 * bpf_task_under_cgroup()) in a clang-compiled program: userbpf's report on this process, its
 * parent and grandparent and an id no task has is what /proc says, its cgroup's id
 * bpf_get_current_cgroup_id()'s (whose own test holds it to the kernel's), and where the
 * kernel's bpf() is there and the pids are its own, the report is the kernel's, byte for
 * byte. */
TEST(loader_task_lookup)
{
	const int pids[TASK_LOOKUPS] = { getpid(), getppid(), proc_grandparent(), 0x3fffffff };
	struct task_lookup l[NSIDES];
	char comm[17] = { 0 };

	if (!btf_vmlinux())
		SKIP("no kernel BTF: the task is laid out by it");
	for (int s = 0; s < NSIDES; s++) {
		memset(&l[s], 0, sizeof(l[s]));
		for (int i = 0; i < TASK_LOOKUPS; i++)
			l[s].e[i].pid = pids[i];
	}
	if (!lookup_side(U, &l[U]))
		return;
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	CHECK_EQ(l[U].current_pid, gettid());
	CHECK(l[U].e[0].found && l[U].e[0].tgid == getpid() && l[U].e[0].ppid == getppid());
	CHECK(!strcmp(l[U].e[0].comm, comm));
	CHECK_EQ(l[U].e[0].is_current, getpid() == gettid());
	CHECK(l[U].e[1].found && l[U].e[1].tgid == getppid() && !l[U].e[1].is_current);
	CHECK(l[U].e[2].found && l[U].e[2].tgid == pids[2]);
	CHECK(pids[2] == getppid() || l[U].e[1].ppid == pids[2]);
	CHECK(!l[U].e[3].found);
	CHECK(l[U].cgroup_found && l[U].root_found && l[U].root_id == 1 && l[U].under_root);
	CHECK(l[U].cgroup_level > 0 || l[U].cgroup_id == 1);
	if (!kernel_bpf_available() || !pids_are_global())
		return;
	if (!lookup_side(K, &l[K]))
		return;
	for (int i = 0; i < TASK_LOOKUPS; i++)
		if (memcmp(&l[K].e[i], &l[U].e[i], sizeof(l[K].e[i])))
			test_fail(__FILE__, __LINE__,
				  "pid %d: kernel found %d tgid %d ppid %d comm %s current %d; "
				  "userbpf found %d tgid %d ppid %d comm %s current %d", pids[i],
				  l[K].e[i].found, l[K].e[i].tgid, l[K].e[i].ppid, l[K].e[i].comm,
				  l[K].e[i].is_current, l[U].e[i].found, l[U].e[i].tgid,
				  l[U].e[i].ppid, l[U].e[i].comm, l[U].e[i].is_current);
	CHECK_EQ(l[K].current_pid, l[U].current_pid);
	CHECK(!memcmp(&l[K].cgroup_found, &l[U].cgroup_found,
		      sizeof(l[K]) - offsetof(struct task_lookup, cgroup_found)));
}

/* The JIT reads the task a run has checked inline (current_task_cached) and calls the helper
 * otherwise: a program asking twice per run, repeated, from this thread and from another, gets
 * one task, whose pid is the thread's, compiled and interpreted alike.  (The first call of each
 * command goes through the helper, the rest through the inline read.) */
static void *repeat_runs(void *arg)
{
	const struct btf *btf = btf_vmlinux();
	long pid = btf_member_offset(btf, btf_vmlinux_task_struct(), "pid");
	int *bad = arg;

	for (int jit = 1; jit >= 0; jit--) {
		const struct bpf_insn p[] = {
			BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
			BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
			BPF_JMP_REG(BPF_JEQ, BPF_REG_0, BPF_REG_6, 2),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, (int16_t)pid),
			BPF_EXIT_INSN(),
		};
		int was = userbpf_set_jit(jit), fd = side_prog_load(U, BPF_PROG_TYPE_XDP, p, 8);
		uint8_t pkt[64] = { 0 };
		uint32_t ret = 0;

		userbpf_set_jit(was);
		for (uint32_t repeat = 1; fd >= 0 && repeat <= 64; repeat *= 4) {
			if (side_test_run_ctx(U, fd, pkt, sizeof(pkt), repeat, NULL, 0, NULL, 0,
					      &ret).rc || ret != (uint32_t)gettid())
				(*bad)++;
		}
		if (fd < 0)
			(*bad)++;
		else
			close(fd);
	}
	return NULL;
}

TEST(loader_current_task_repeated)
{
	pthread_t t;
	int bad = 0;

	if (!btf_vmlinux())
		SKIP("no kernel BTF: the task is laid out by it");
	repeat_runs(&bad);
	REQUIRE_EQ(pthread_create(&t, NULL, repeat_runs, &bad), 0);
	pthread_join(t, NULL);
	CHECK_EQ(bad, 0);
}
