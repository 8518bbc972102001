/* BPF iterators that run: a clang-compiled task iterator (tests/fixtures/iter_task_lines.bpf.c)
 * attached with BPF_LINK_CREATE (iter_info: this process's threads, or one thread) and read
 * through BPF_ITER_CREATE's fd, on the kernel and on userbpf: the same lines (ids, names, the
 * header through bpf_seq_write(), the count at the end).  Over every task, userbpf's output has
 * this thread's line; a process's threads come in the order they were made, even where their
 * ids wrapped (set up by moving ns_last_pid back, as root).  The link's info and the attr rules
 * are compared too.  Skipped without the kernel's BTF; the comparison without the kernel's
 * bpf() or where this process's ids are not the kernel's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <userbpf/loader.h>
#include <userbpf/insn.h>

#include "btf/vmlinux.h"
#include "exec/iter_task.h"
#include "kbpf.h"
#include "loader_sides.h"
#include "test_cgroup.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"

/* What side s's iterator prints with iter_info (16 bytes, or NULL), into out (a NUL-terminated
 * copy); the result of the first call that failed, or 0.  link_out: the link is kept there. */
static struct bpf_result iterate_info(int s, int prog, const void *linfo, char *out, size_t size,
				      int *link_out)
{
	union bpf_attr a;
	struct bpf_result r;
	size_t len = 0;
	ssize_t n;
	int link;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.attach_type = BPF_TRACE_ITER;
	if (linfo) {
		a.link_create.iter_info = PTR_TO_U64(linfo);
		a.link_create.iter_info_len = 16;
	}
	out[0] = 0;
	r = side_call(s, BPF_LINK_CREATE, &a);
	if (r.rc < 0)
		return r;
	link = r.rc;
	memset(&a, 0, sizeof(a));
	a.iter_create.link_fd = (uint32_t)link;
	r = side_call(s, BPF_ITER_CREATE, &a);
	if (r.rc >= 0) {
		while (len + 1 < size && (n = read(r.rc, out + len, size - len - 1)) > 0)
			len += (size_t)n;
		close(r.rc);
		r.rc = 0;
	}
	out[len] = 0;
	if (link_out)
		*link_out = link;
	else
		close(link);
	return r;
}

/* A task iterator over (tid, pid): see iterate_info(). */
static struct bpf_result iterate(int s, int prog, uint32_t tid, uint32_t pid, char *out,
				 size_t size, int *link_out)
{
	uint32_t linfo[4] = { tid, pid, 0, 0 };

	return iterate_info(s, prog, tid || pid ? linfo : NULL, out, size, link_out);
}

/* This process's thread ids as /proc lists them, a text ("1 2 3 "), into buf. */
static void threads_now(char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t len = 0;
	int n = 0;

	buf[0] = 0;
	while (d && (e = readdir(d)) && len + 16 < size)
		if (e->d_name[0] != '.') {
			len += (size_t)snprintf(buf + len, size - len, "%s ", e->d_name);
			n++;
		}
	if (d)
		closedir(d);
	snprintf(buf + len, size - len, "(%d)", n);
}

static void *idle_thread(void *arg)
{
	pthread_mutex_lock(arg); /* (held by the test until it is done) */
	pthread_mutex_unlock(arg);
	return NULL;
}

static int load_on(int s, const char *path, struct userbpf_object **obj)
{
	struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = diff_sides[s]->bpf };

	if (userbpf_object_open_file(path, &o, obj) ||
	    userbpf_object_load(*obj))
		return -1;
	return userbpf_program_fd(userbpf_object_program(*obj, 0));
}

TEST(loader_iter_task)
{
	static char out[NSIDES][1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
	int prog[NSIDES] = { -1, -1 }, link;
	bool compare = kernel_bpf_available() && pids_are_global();
	struct bpf_result r[NSIDES];
	char line[64];
	pthread_t th;

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_task"))
		SKIP("no kernel BTF with the task iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the tasks' reads "
		     "go through it");
	pthread_mutex_lock(&hold);
	REQUIRE(!pthread_create(&th, NULL, idle_thread, &hold));
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		prog[s] = load_on(s, FIXTURE("iter_task_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	/* this process's threads, then this thread alone: the kernel's lines (the threads other
	 * tests left may come and go meanwhile: then the runs are not compared) */
	for (int f = 0; f < 2; f++) {
		char before[1024], after[1024], end[32];
		int n;

		threads_now(before, sizeof(before));
		for (int s = compare ? 0 : U; s < NSIDES; s++)
			r[s] = iterate(s, prog[s], f ? tid : 0, f ? 0 : pid, out[s], sizeof(out[s]),
				       NULL);
		threads_now(after, sizeof(after));
		CHECK_EQ(r[U].rc, 0);
		snprintf(line, sizeof(line), "\n%u %u ", tid, pid);
		CHECK(strstr(out[U], line) != NULL);
		CHECK(!strncmp(out[U], "tid tgid comm\n", 14));
		/* (the end's seq_num: the last element's) */
		n = atoi(strrchr(after, '(') + 1);
		snprintf(end, sizeof(end), "\n%d tasks\n", f ? 0 : n - 1);
		if (!strcmp(before, after)) {
			CHECK(n >= 2);
			CHECK(strstr(out[U], end) != NULL);
			if (compare && AGREE("task iterator", r))
				CHECK(!strcmp(out[K], out[U]));
		} else if (getenv("TEST_VERBOSE")) {
			printf("threads came or went: %s, then %s\n", before, after);
		}
		if (getenv("TEST_VERBOSE"))
			printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
	}
	/* this process by a pidfd: the same lines as by pid, on both sides */
	{
		int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		uint32_t linfo[4] = { 0, 0, (uint32_t)pfd, 0 };

		if (pfd >= 0) {
			char before[1024], after[1024];

			threads_now(before, sizeof(before));
			for (int s = compare ? 0 : U; s < NSIDES; s++)
				r[s] = iterate_info(s, prog[s], linfo, out[s], sizeof(out[s]),
						    NULL);
			threads_now(after, sizeof(after));
			CHECK_EQ(r[U].rc, 0);
			CHECK(strstr(out[U], line) != NULL);
			if (compare && AGREE("task iterator by pidfd", r) && !strcmp(before, after))
				CHECK(!strcmp(out[K], out[U]));
			linfo[2] = (uint32_t)prog[U]; /* (an fd that is no pidfd) */
			for (int s = compare ? 0 : U; s < NSIDES; s++)
				r[s] = iterate_info(s, prog[s], linfo, out[s], sizeof(out[s]),
						    NULL);
			CHECK(r[U].rc < 0);
			if (compare)
				AGREE("task iterator by a non-pidfd", r);
			close(pfd);
		}
	}
	/* every task: this thread among them, the count at the end */
	r[U] = iterate(U, prog[U], 0, 0, out[U], sizeof(out[U]), &link);
	CHECK_EQ(r[U].rc, 0);
	CHECK(strstr(out[U], line) != NULL);
	CHECK(strstr(out[U], " tasks\n") != NULL);
	{
		/* the link's info: iter, the target's name */
		uint8_t info[64] = { 0 };
		char name[16];
		uint64_t np = PTR_TO_U64(name);
		uint32_t len = sizeof(info), nlen = sizeof(name), type;

		memcpy(info + 16, &np, 8);
		memcpy(info + 24, &nlen, 4);
		CHECK_EQ(side_obj_info(U, link, info, &len).rc, 0);
		memcpy(&type, info, 4);
		CHECK_EQ(type, BPF_LINK_TYPE_ITER);
		CHECK(!strcmp(name, "task"));
		close(link);
	}
	/* attr rules: flags, a link of another kind, iter_info without its length */
	{
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.iter_create.link_fd = (uint32_t)prog[U];
		CHECK_EQ(side_call(U, BPF_ITER_CREATE, &a).err, EINVAL);
		memset(&a, 0, sizeof(a));
		a.link_create.prog_fd = (uint32_t)prog[U];
		a.link_create.attach_type = BPF_TRACE_ITER;
		a.link_create.iter_info = PTR_TO_U64(&a);
		CHECK_EQ(side_call(U, BPF_LINK_CREATE, &a).err, EINVAL);
	}
	pthread_mutex_unlock(&hold);
	pthread_join(th, NULL);
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}
/* A thread that reports its id, then waits for the test to be done with it (hold). */
struct id_thread {
	pthread_mutex_t *hold;
	int tid;
};

static void *id_thread(void *arg)
{
	struct id_thread *t = arg;

	__atomic_store_n(&t->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_mutex_lock(t->hold);
	pthread_mutex_unlock(t->hold);
	return NULL;
}

static int start_id_thread(pthread_t *th, struct id_thread *t)
{
	if (pthread_create(th, NULL, id_thread, t))
		return -1;
	while (!__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return t->tid;
}

/* The kernel's next id (ns_last_pid) as set, or -1 if it cannot be. */
static int set_last_pid(int id)
{
	FILE *fp = fopen("/proc/sys/kernel/ns_last_pid", "r+");
	int old = -1;

	if (!fp)
		return -1;
	if (fscanf(fp, "%d", &old) != 1 || fseek(fp, 0, SEEK_SET) || fprintf(fp, "%d", id) < 0)
		old = -1;
	if (fclose(fp))
		old = -1;
	return old;
}

/* A process's threads in the order they were made, which is not their ids' once ids wrapped
 * (the kernel's thread list): a thread given an id below the others' (ns_last_pid set back, as
 * wrapping at pid_max does on a busy machine) is walked after them on both sides. */
TEST(loader_iter_task_wrapped_ids)
{
	static char out[NSIDES][1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
	struct id_thread a = { &hold, 0 }, b = { &hold, 0 };
	int pid = getpid(), prog[NSIDES] = { -1, -1 }, old, lowest;
	bool compare = kernel_bpf_available();
	char before[1024], after[1024], la[48], lb[48], *pa, *pb;
	struct bpf_result r[NSIDES];
	pthread_t ta, tb;

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_task"))
		SKIP("no kernel BTF with the task iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?)");
	if (!pids_are_global())
		SKIP("a pid namespace of its own");
	pthread_mutex_lock(&hold);
	REQUIRE(start_id_thread(&ta, &a) > 0);
	/* b's id goes below both the process's and a's (where ids wrapped, a's may be the
	 * lower); b starts a clock tick or more after a: start times then tell which was first
	 * (within a tick only a wrap at pid_max is told from ascending ids) */
	lowest = a.tid < pid ? a.tid : pid;
	usleep(30000);
	old = lowest < 1000 ? -1 : set_last_pid(lowest / 2);
	if (old < 0) {
		pthread_mutex_unlock(&hold);
		pthread_join(ta, NULL);
		SKIP("/proc/sys/kernel/ns_last_pid cannot be set (not root?), or ids too low to go "
		     "below");
	}
	REQUIRE(start_id_thread(&tb, &b) > 0);
	if (b.tid < old)
		set_last_pid(old); /* (ids go on from where they were) */
	if (b.tid >= lowest)
		test_fail(__FILE__, __LINE__,
			  "thread b got id %d after ns_last_pid %d (was %d): not below the "
			  "process's %d and thread a's %d", b.tid, lowest / 2, old, pid, a.tid);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		prog[s] = load_on(s, FIXTURE("iter_task_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	threads_now(before, sizeof(before));
	for (int s = compare ? 0 : U; s < NSIDES; s++)
		r[s] = iterate(s, prog[s], 0, (uint32_t)pid, out[s], sizeof(out[s]), NULL);
	threads_now(after, sizeof(after));
	CHECK_EQ(r[U].rc, 0);
	/* the leader first; a before b, made first, though b's id is lower */
	snprintf(la, sizeof(la), "\n%d %d ", a.tid, pid);
	snprintf(lb, sizeof(lb), "\n%d %d ", b.tid, pid);
	pa = strstr(out[U], la);
	pb = strstr(out[U], lb);
	CHECK(pa && pb && pa < pb);
	snprintf(la, sizeof(la), "tid tgid comm\n%d %d ", pid, pid);
	CHECK(!strncmp(out[U], la, strlen(la)));
	if (compare && AGREE("task iterator, wrapped ids", r) && !strcmp(before, after))
		CHECK(!strcmp(out[K], out[U]));
	if (getenv("TEST_VERBOSE"))
		printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
	pthread_mutex_unlock(&hold);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	for (int s = 0; s < NSIDES; s++)
		if (obj[s])
			userbpf_object_close(obj[s]);
}

/* This process's file-backed areas as /proc/self/maps lists them (start-end and the rest of
 * each line), into buf: what the task_vma iterator's lines are compared under. */
static void file_areas_now(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	size_t len = 0;

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long inode = 0;

		if (sscanf(line, "%*s %*s %*s %*s %lu", &inode) == 1 && inode &&
		    len + strlen(line) < size)
			len += (size_t)snprintf(buf + len, size - len, "%s", line);
	}
	if (f)
		fclose(f);
}

/* The task_vma iterator over this process (by pid, by this thread's id, by another thread's):
 * the kernel's lines for its file-backed areas (start, end, permissions, page offset, inode,
 * name), where the areas did not change meanwhile; over every task, userbpf's output has
 * this process's lines. */
TEST(loader_iter_task_vma)
{
	static char out[NSIDES][1 << 18], before[1 << 16], after[1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
	struct id_thread other = { &hold, 0 };
	bool compare = kernel_bpf_available() && pids_are_global();
	int prog[NSIDES] = { -1, -1 }, compared = 0;
	char line[64];
	pthread_t th;

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_task_vma"))
		SKIP("no kernel BTF with the task_vma iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the tasks' reads "
		     "go through it");
	/* areas of files of other kinds: a memfd, a deleted file, each side's mmapped array map */
	int memfd = memfd_create("vma-test", MFD_CLOEXEC), map[NSIDES] = { -1, -1 };
	char tmp[] = "/tmp/userbpf-vma-XXXXXX";
	int tmpfd = mkstemp(tmp);
	void *maps_at[NSIDES + 2] = { NULL };

	REQUIRE(memfd >= 0 && tmpfd >= 0 && !ftruncate(memfd, 8192) && !ftruncate(tmpfd, 4096));
	unlink(tmp);
	maps_at[0] = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	maps_at[1] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, tmpfd, 0);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 512, BPF_F_MMAPABLE).rc;
		REQUIRE(map[s] >= 0);
		maps_at[2 + s] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, map[s], 0);
	}
	for (int i = 0; i < NSIDES + 2; i++)
		REQUIRE(maps_at[i] != MAP_FAILED);
	pthread_mutex_lock(&hold);
	REQUIRE(start_id_thread(&th, &other) > 0);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		prog[s] = load_on(s, FIXTURE("iter_task_vma_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	const uint32_t filters[][2] = {
		{ 0, (uint32_t)getpid() },
		{ (uint32_t)syscall(SYS_gettid), 0 },
		{ (uint32_t)other.tid, 0 },
	};
	for (size_t f = 0; f < ARRAY_SIZE(filters); f++) {
		struct bpf_result r[NSIDES];

		/* (a try whose areas changed meanwhile is made again) */
		for (int tries = 0; tries < 5; tries++) {
			file_areas_now(before, sizeof(before));
			for (int s = compare ? 0 : U; s < NSIDES; s++)
				r[s] = iterate(s, prog[s], filters[f][0], filters[f][1], out[s],
					       sizeof(out[s]), NULL);
			file_areas_now(after, sizeof(after));
			if (!strcmp(before, after))
				break;
		}
		CHECK_EQ(r[U].rc, 0);
		/* this thread's code: its executable's first area, a line of the task's id */
		snprintf(line, sizeof(line), "%d ", filters[f][0] ? (int)filters[f][0] : getpid());
		CHECK(!strncmp(out[U], line, strlen(line)));
		CHECK(strstr(out[U], "end\n") != NULL);
		if (compare && AGREE("task_vma iterator", r) && !strcmp(before, after)) {
			CHECK(!strcmp(out[K], out[U]));
			compared++;
		}
		if (getenv("TEST_VERBOSE"))
			printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
	}
	if (compare)
		CHECK(compared > 0);
	/* every task: this process among them */
	{
		struct bpf_result r = iterate(U, prog[U], 0, 0, out[U], sizeof(out[U]), NULL);

		CHECK_EQ(r.rc, 0);
		snprintf(line, sizeof(line), "\n%d ", getpid());
		CHECK(strstr(out[U], line) != NULL);
	}
	pthread_mutex_unlock(&hold);
	pthread_join(th, NULL);
	for (int s = 0; s < NSIDES; s++)
		if (obj[s])
			userbpf_object_close(obj[s]);
	munmap(maps_at[0], 8192);
	munmap(maps_at[1], 4096);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		munmap(maps_at[2 + s], 4096);
		close(map[s]);
	}
	close(memfd);
	close(tmpfd);
}

/* This process's memory areas as /proc/self/maps lists them, all of them, into buf. */
static void areas_now(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	size_t len = f ? fread(buf, 1, size - 1, f) : 0;

	buf[len] = 0;
	if (f)
		fclose(f);
}

/* The open-coded task_vma iterator (bpf_iter_task_vma_new(), _next(), _destroy()) of a syscall
 * program over this thread's areas, from 0 and from an address in the middle, and over another
 * thread's, on both sides: the same count of areas, and the same file-backed ones (start, end,
 * permissions, page offset, inode), where the areas did not change meanwhile; a task without a
 * pid the kernel knows, none. */
TEST(loader_iter_task_vma_open_coded)
{
	static char before[1 << 16], after[1 << 16], all_before[1 << 16], all_after[1 << 16];
	struct { uint64_t start, end, flags, pgoff, ino; } a[NSIDES][64];
	struct { int32_t pid; uint32_t pad; uint64_t addr; } args;
	struct obj_sides os;
	int bss[NSIDES], compared = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_task_vma_new"))
		SKIP("no kernel BTF with bpf_iter_task_vma_new (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work() || !pids_are_global())
		SKIP("process_vm_readv() cannot read this process, or its pids are not the kernel's");
	REQUIRE(obj_sides_open(&os, LOADER_OBJ_DIR "/tests/corpus/syscall_task_vma_iter.bpf.o"));
	REQUIRE(obj_sides_bss(&os, bss));
	const uint64_t froms[] = { 0, (uintptr_t)&before, 0 };

	for (size_t f = 0; f < ARRAY_SIZE(froms); f++) {
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES], key = 0;
		static uint8_t value[NSIDES][4096];

		args.pid = f == 2 ? 0x7ffffff0 : (int32_t)syscall(SYS_gettid);
		args.pad = 0;
		args.addr = froms[f];
		/* (a try whose file-backed areas changed meanwhile is made again; the count of
		 * all areas is compared where none changed, which under valgrind is rare) */
		for (int tries = 0; tries < 5; tries++) {
			file_areas_now(before, sizeof(before));
			areas_now(all_before, sizeof(all_before));
			for (int s = 0; s < NSIDES; s++)
				r[s] = side_test_run_ctx(s, os.prog[s], NULL, 0, 0, &args, sizeof(args),
							 NULL, 0, &ret[s]);
			areas_now(all_after, sizeof(all_after));
			file_areas_now(after, sizeof(after));
			if (!strcmp(before, after))
				break;
		}
		CHECK_EQ(r[U].rc, 0);
		if (!AGREE("open-coded task_vma iterator", r) || r[K].rc || strcmp(before, after))
			continue;
		if (!strcmp(all_before, all_after))
			CHECK_EQ(ret[U], ret[K]);
		/* (.bss: the count of file-backed areas, _new()'s result, then the areas) */
		for (int s = 0; s < NSIDES; s++) {
			REQUIRE(!side_elem(s, BPF_MAP_LOOKUP_ELEM, bss[s], &key, value[s], 0).rc);
			memcpy(a[s], value[s] + 8, sizeof(a[s]));
		}
		CHECK_EQ(memcmp(value[K], value[U], 8), 0);
		CHECK_EQ(memcmp(a[K], a[U], sizeof(a[K])), 0);
		if (f < 2)
			CHECK((int32_t)ret[U] > 3 && a[U][0].ino != 0);
		else
			CHECK_EQ((int32_t)ret[U], -1);
		compared++;
	}
	CHECK(compared >= 2);
	obj_sides_close(&os);
}

/* A child process for the css_task test: two threads, sleeping until killed. */
static void *css_child_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* The open-coded iterator over a cgroup's tasks (bpf_iter_css_task_new(), _next(), _destroy())
 * of a syscall program, over a cgroup made for the test holding a child process of two threads:
 * its threads and its process, in the kernel's order, their count; a flag it does not know
 * (-EINVAL); a cgroup id no cgroup has.  The kernel's results. */
TEST(loader_iter_css_task_open_coded)
{
	struct { uint64_t cgroup_id; uint32_t flags, pad; } args;
	char own[4096], sub[4200], procs[4300], threads[4300], pid[32], buf[256];
	struct obj_sides os;
	struct stat st;
	int bss[NSIDES], compared = 0;
	pid_t child;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_css_task_new"))
		SKIP("no kernel BTF with bpf_iter_css_task_new (/sys/kernel/btf/vmlinux)");
	if (own_cgroup_dir(own, sizeof(own)) || !pids_are_global())
		SKIP("no cgroup2 mount showing this process's cgroup, or pids not the kernel's");
	snprintf(sub, sizeof(sub), "%s/userbpf-css-task-%d", own, (int)getpid());
	if (mkdir(sub, 0755) || stat(sub, &st))
		SKIP("cgroup2 is not writable here");
	REQUIRE(obj_sides_open(&os, LOADER_OBJ_DIR "/tests/corpus/syscall_css_task_iter.bpf.o"));
	REQUIRE(obj_sides_bss(&os, bss));
	child = fork();
	if (child == 0) {
		pthread_t th;

		pthread_create(&th, NULL, css_child_thread, NULL);
		css_child_thread(NULL);
	}
	REQUIRE(child > 0);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", sub);
	snprintf(threads, sizeof(threads), "%s/cgroup.threads", sub);
	snprintf(pid, sizeof(pid), "%d", (int)child);
	CHECK_EQ(write_str(procs, pid), 0);
	/* (until the child's second thread is there) */
	for (int i = 0; i < 400; i++) {
		FILE *f = fopen(threads, "re");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		if (strchr(buf, '\n') && strchr(buf, '\n') != strrchr(buf, '\n'))
			break;
		usleep(5000);
	}
	const struct { uint64_t id; uint32_t flags; int32_t expect; } walks[] = {
		{ (uint64_t)st.st_ino, 0, 2 }, { (uint64_t)st.st_ino, 1, 1 },
		{ (uint64_t)st.st_ino, 3, 1 }, { (uint64_t)st.st_ino, 4, -EINVAL },
		{ UINT64_C(1) << 40, 0, -1 },
	};

	for (size_t w = 0; w < ARRAY_SIZE(walks); w++) {
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES], key = 0;
		static uint8_t value[NSIDES][4 + 4 * 32];

		args.cgroup_id = walks[w].id;
		args.flags = walks[w].flags;
		args.pad = 0;
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run_ctx(s, os.prog[s], NULL, 0, 0, &args, sizeof(args), NULL,
						 0, &ret[s]);
		CHECK_EQ(r[U].rc, 0);
		if (!AGREE("open-coded css_task iterator", r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ((int32_t)ret[U], walks[w].expect);
		for (int s = 0; s < NSIDES; s++)
			REQUIRE(!side_elem(s, BPF_MAP_LOOKUP_ELEM, bss[s], &key, value[s], 0).rc);
		CHECK_EQ(memcmp(value[K], value[U], sizeof(value[K])), 0);
		if (walks[w].expect > 0) /* (the child's own id first: its main thread) */
			CHECK_EQ(((int32_t *)value[U])[1], (int32_t)child);
		compared++;
	}
	CHECK_EQ(compared, 5);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	obj_sides_close(&os);
	rmdir(sub);
}

/* The task_file iterator over this process (by pid, by another thread's id): the kernel's lines
 * for files of every kind opened at fds 900 and up (a regular file read into, a directory, the
 * root, /dev/null, a deleted file, a socket, both ends of a pipe, an eventfd, a memfd, a
 * pidfd, an O_PATH fd, each side's BPF map); over every task, userbpf's output has them too. */
TEST(loader_iter_task_file)
{
	static char out[NSIDES][1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
	struct id_thread other = { &hold, 0 };
	bool compare = kernel_bpf_available() && pids_are_global();
	int prog[NSIDES] = { -1, -1 }, fds[20], n = 0, pipes[2], sv[2];
	char tmp[] = "/tmp/userbpf-file-XXXXXX", line[64], byte;
	pthread_t th;

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_task_file"))
		SKIP("no kernel BTF with the task_file iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the tasks' reads "
		     "go through it");
	fds[n++] = open("/proc/self/status", O_RDONLY);
	fds[n++] = open("/tmp", O_RDONLY | O_DIRECTORY);
	fds[n++] = open("/", O_RDONLY | O_DIRECTORY);
	fds[n++] = open("/dev/null", O_WRONLY);
	fds[n++] = mkstemp(tmp);
	unlink(tmp);
	fds[n++] = socket(AF_INET, SOCK_DGRAM, 0);
	REQUIRE(!pipe(pipes) && !socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	fds[n++] = pipes[0];
	fds[n++] = pipes[1];
	fds[n++] = sv[0];
	fds[n++] = eventfd(0, 0);
	fds[n++] = memfd_create("file-test", 0);
	fds[n] = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fds[n] < 0) /* (valgrind has no pidfd_open()) */
		fds[n] = open("/dev/zero", O_RDONLY);
	n++;
	fds[n++] = open("/etc", O_PATH);
	for (int s = 0; s < NSIDES; s++)
		fds[n++] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0).rc;
	for (int i = 0; i < n; i++)
		REQUIRE(fds[i] >= 0);
	REQUIRE(read(fds[0], &byte, 1) == 1 && write(fds[4], "abc", 3) == 3);
	/* (at 900 up, in the order opened) */
	for (int i = 0; i < n; i++) {
		REQUIRE(dup2(fds[i], 900 + i) == 900 + i);
		close(fds[i]);
		fds[i] = 900 + i;
	}
	close(sv[1]);
	pthread_mutex_lock(&hold);
	REQUIRE(start_id_thread(&th, &other) > 0);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		prog[s] = load_on(s, FIXTURE("iter_task_file_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	const uint32_t filters[][2] = { { 0, (uint32_t)getpid() }, { (uint32_t)other.tid, 0 } };

	for (size_t f = 0; f < ARRAY_SIZE(filters); f++) {
		struct bpf_result r[NSIDES];

		for (int s = compare ? 0 : U; s < NSIDES; s++)
			r[s] = iterate(s, prog[s], filters[f][0], filters[f][1], out[s],
				       sizeof(out[s]), NULL);
		CHECK_EQ(r[U].rc, 0);
		/* the first of them, then "end" */
		snprintf(line, sizeof(line), "%d 900 ",
			 filters[f][0] ? (int)filters[f][0] : getpid());
		CHECK(!strncmp(out[U], line, strlen(line)));
		CHECK(strstr(out[U], "end\n") != NULL);
		if (compare && AGREE("task_file iterator", r))
			CHECK(!strcmp(out[K], out[U]));
		if (getenv("TEST_VERBOSE"))
			printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
	}
	{
		struct bpf_result r = iterate(U, prog[U], 0, 0, out[U], sizeof(out[U]), NULL);

		CHECK_EQ(r.rc, 0);
		snprintf(line, sizeof(line), "\n%d 912 ", getpid());
		CHECK(strstr(out[U], line) != NULL);
	}
	pthread_mutex_unlock(&hold);
	pthread_join(th, NULL);
	for (int s = 0; s < NSIDES; s++)
		if (obj[s])
			userbpf_object_close(obj[s]);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* The objects iterators' common part: each side's iterator program (prog[s], the kernel's only
 * where compare) run without a target; userbpf's lines must begin with the first n bytes of
 * want and reach "end", and with compare both sides' lines must be the same. */
static void object_lines_agree(const char *what, const int prog[NSIDES], bool compare,
			       char out[NSIDES][1 << 16], const char *want, size_t n)
{
	struct bpf_result r[NSIDES];

	for (int s = compare ? 0 : U; s < NSIDES; s++)
		r[s] = iterate(s, prog[s], 0, 0, out[s], sizeof(out[s]), NULL);
	CHECK_EQ(r[U].rc, 0);
	CHECK(!strncmp(out[U], want, n));
	CHECK(strstr(out[U], "end\n") != NULL);
	if (compare && AGREE(what, r))
		CHECK(!strcmp(out[K], out[U]));
	if (getenv("TEST_VERBOSE"))
		printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
}

/* The bpf_map iterator: the maps each side made for the test (the kernel's walk also passes
 * every other map of the system, userbpf's this process's), by id, as the kernel's lines: name,
 * type, sizes, max_entries, flags. */
TEST(loader_iter_bpf_map)
{
	static char out[NSIDES][1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	bool compare = kernel_bpf_available();
	int prog[NSIDES] = { -1, -1 }, maps[NSIDES][4];
	static const struct {
		uint32_t type, ks, vs, max, flags;
		const char *name;
	} made[] = {
		{ BPF_MAP_TYPE_HASH, 4, 8, 16, BPF_F_NO_PREALLOC, "itm_hash" },
		{ BPF_MAP_TYPE_ARRAY, 4, 12, 3, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG, "itm_array" },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 4, 32, 0, "itm_lru" },
		{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, "itm_ring" },
	};

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_bpf_map"))
		SKIP("no kernel BTF with the bpf_map iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the objects' reads "
		     "go through it");
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		for (size_t i = 0; i < ARRAY_SIZE(made); i++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.map_type = made[i].type;
			a.key_size = made[i].ks;
			a.value_size = made[i].vs;
			a.max_entries = made[i].max;
			a.map_flags = made[i].flags;
			snprintf(a.map_name, sizeof(a.map_name), "%s", made[i].name);
			maps[s][i] = side_call(s, BPF_MAP_CREATE, &a).rc;
			REQUIRE(maps[s][i] >= 0);
		}
		prog[s] = load_on(s, FIXTURE("iter_bpf_map_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	object_lines_agree("bpf_map iterator", prog, compare, out,
			   "itm_hash 1 4 8 16 1\nitm_array 2 4 12 3 480\n", 41);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		for (size_t i = 0; i < ARRAY_SIZE(made); i++)
			close(maps[s][i]);
		userbpf_object_close(obj[s]);
	}
}

/* The bpf_prog iterator: the programs each side loaded for the test (the kernel's walk also
 * passes every other program of the system), by id, as the kernel's lines: name, type,
 * expected attach type, instructions the verifier processed. */
TEST(loader_iter_bpf_prog)
{
	static char out[NSIDES][1 << 16];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	bool compare = kernel_bpf_available();
	int prog[NSIDES] = { -1, -1 }, progs[NSIDES][3];
	static const struct bpf_insn ret1[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1), BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN(),
	};
	static const struct {
		uint32_t type, eat;
		const char *name;
	} made[] = {
		{ BPF_PROG_TYPE_XDP, 0, "itp_xdp" },
		{ BPF_PROG_TYPE_SOCKET_FILTER, 0, "itp_socket" },
		{ BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, "itp_egress" },
	};

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_bpf_prog"))
		SKIP("no kernel BTF with the bpf_prog iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?): the objects' reads "
		     "go through it");
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		for (size_t i = 0; i < ARRAY_SIZE(made); i++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.prog_type = made[i].type;
			a.expected_attach_type = made[i].eat;
			a.insns = PTR_TO_U64(ret1);
			a.insn_cnt = ARRAY_SIZE(ret1);
			a.license = PTR_TO_U64("GPL");
			snprintf(a.prog_name, sizeof(a.prog_name), "%s", made[i].name);
			progs[s][i] = side_call(s, BPF_PROG_LOAD, &a).rc;
			REQUIRE(progs[s][i] >= 0);
		}
		prog[s] = load_on(s, FIXTURE("iter_bpf_prog_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	object_lines_agree("bpf_prog iterator", prog, compare, out,
			   "itp_xdp 6 0 5\nitp_socket 1 0 5\nitp_egress 8 1 5\n", 45);
	for (int s = compare ? 0 : U; s < NSIDES; s++) {
		for (size_t i = 0; i < ARRAY_SIZE(made); i++)
			close(progs[s][i]);
		userbpf_object_close(obj[s]);
	}
}

/* Creation order, unit by unit: start times first; in a clock tick, ids from after the widest
 * gap (where they wrapped), else ascending. */
TEST(task_ids_creation_order)
{
	struct task_start t[] = {
		{ 32760, 9 }, { 400, 9 }, { 32765, 9 }, { 301, 9 }, /* wrapped in tick 9 */
		{ 5, 0 }, { 1, 0 }, { 2, 0 },			      /* boot: ascending */
		{ 20000, 3 }, { 100, 12 }, { 20001, 12 },	      /* by start time */
	};
	int want[] = { 1, 2, 5, 20000, 32760, 32765, 301, 400, 20001, 100 };

	task_ids_creation_order(t, ARRAY_SIZE(t), 32768);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		CHECK_EQ(t[i].id, want[i]);
	/* one task; none */
	task_ids_creation_order(t, 1, 32768);
	CHECK_EQ(t[0].id, 1);
	task_ids_creation_order(t, 0, 32768);
}


/* The cgroup iterator over a subtree made for it (x, x/a, x/b below this process's cgroup): the
 * cgroup alone, its descendants before and after their children, its ancestors up to the root,
 * each by directory fd and by id: the kernel's lines (ids and levels, in its order); and the
 * iter_info the kernel refuses (no order, fd and id both, an id no cgroup has, none at all). */
TEST(loader_iter_cgroup)
{
	static char out[NSIDES][1 << 14];
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	char own[5200], x[5264], a[5280], b[5280];
	int prog[NSIDES] = { -1, -1 }, dir, runs = 0;
	struct bpf_result r[NSIDES];
	struct stat st;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_iter_cgroup"))
		SKIP("no kernel BTF with the cgroup iterator (/sys/kernel/btf/vmlinux)");
	if (!self_reads_work())
		SKIP("process_vm_readv() cannot read this process (qemu-user?)");
	if (own_cgroup_dir(own, sizeof(own)))
		SKIP("no cgroup2 mount shows this process's cgroup");
	snprintf(x, sizeof(x), "%s/userbpf-iter-%d", own, (int)getpid());
	snprintf(a, sizeof(a), "%s/a", x);
	snprintf(b, sizeof(b), "%s/b", x);
	if (mkdir(x, 0755))
		SKIP("cannot make a cgroup under this process's (%s)", strerror(errno));
	REQUIRE(!mkdir(a, 0755) && !mkdir(b, 0755));
	dir = open(x, O_RDONLY | O_DIRECTORY);
	REQUIRE(dir >= 0 && !fstat(dir, &st));
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = load_on(s, FIXTURE("iter_cgroup_lines"), &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	for (uint32_t order = 1; order <= 4; order++) {
		for (int by_id = 0; by_id < 2; by_id++) {
			uint32_t linfo[4] = { order, by_id ? 0 : (uint32_t)dir, 0, 0 };
			uint64_t id = (uint64_t)st.st_ino;

			if (by_id)
				memcpy(&linfo[2], &id, 8);
			for (int s = 0; s < NSIDES; s++)
				r[s] = iterate_info(s, prog[s], linfo, out[s], sizeof(out[s]),
						    NULL);
			if (getenv("TEST_VERBOSE"))
				printf("order %u:\n--- kernel\n%s--- userbpf\n%s", order, out[K],
				       out[U]);
			if (AGREE("cgroup iterator", r)) {
				CHECK(!strcmp(out[K], out[U]));
				CHECK(strstr(out[U], "end ") != NULL);
				runs++;
			}
		}
	}
	/* refusals */
	{
		uint32_t bad[4][4] = { { 0, (uint32_t)dir, 0, 0 }, { 1, (uint32_t)dir, 7, 0 },
				       { 1, 0, 0x7fffff00, 0 } };
		static const char *const what[] = { "order 0", "fd and id", "an unknown id",
						    "no iter_info" };

		for (int i = 0; i < 4; i++) {
			for (int s = 0; s < NSIDES; s++)
				r[s] = iterate_info(s, prog[s], i < 3 ? bad[i] : NULL, out[s],
						    sizeof(out[s]), NULL);
			AGREE(what[i], r);
		}
	}
	printf("loader_iter_cgroup: %d runs with the kernel's lines\n", runs);
	CHECK_EQ(runs, 8);
	close(dir);
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
	rmdir(a);
	rmdir(b);
	rmdir(x);
}
