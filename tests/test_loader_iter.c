/* BPF iterators that run: a clang-compiled task iterator (tests/fixtures/iter_task_lines.bpf.c)
 * attached with BPF_LINK_CREATE (iter_info: this process's threads, or one thread) and read
 * through BPF_ITER_CREATE's fd, on the kernel and on userbpf: the same lines (ids, names, the
 * header through bpf_seq_write(), the count at the end).  Over every task, userbpf's output has
 * this thread's line.  The link's info and the attr rules are compared too.  Skipped without
 * the kernel's BTF; the comparison without the kernel's bpf() or where this process's ids are
 * not the kernel's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"

/* What side s's iterator over (tid, pid) prints, into out (a NUL-terminated copy); the
 * result of the first call that failed, or 0. */
static struct bpf_result iterate(int s, int prog, uint32_t tid, uint32_t pid, char *out,
				 size_t size, int *link_out)
{
	uint32_t linfo[3] = { tid, pid, 0 };
	union bpf_attr a;
	struct bpf_result r;
	size_t len = 0;
	ssize_t n;
	int link;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.attach_type = BPF_TRACE_ITER;
	if (tid || pid) {
		a.link_create.iter_info = PTR_TO_U64(linfo);
		a.link_create.iter_info_len = sizeof(linfo);
	}
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

static void *idle_thread(void *arg)
{
	pthread_mutex_lock(arg); /* (held by the test until it is done) */
	pthread_mutex_unlock(arg);
	return NULL;
}

static int load_on(int s, struct userbpf_object **obj)
{
	struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = diff_sides[s]->bpf };

	if (userbpf_object_open_file(FIXTURE("iter_task_lines"), &o, obj) ||
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
		prog[s] = load_on(s, &obj[s]);
		REQUIRE(prog[s] >= 0);
	}
	/* this process's threads, then this thread alone: the kernel's lines */
	for (int f = 0; f < 2; f++) {
		for (int s = compare ? 0 : U; s < NSIDES; s++)
			r[s] = iterate(s, prog[s], f ? tid : 0, f ? 0 : pid, out[s], sizeof(out[s]),
				       NULL);
		CHECK_EQ(r[U].rc, 0);
		snprintf(line, sizeof(line), "\n%u %u ", tid, pid);
		CHECK(strstr(out[U], line) != NULL);
		CHECK(!strncmp(out[U], "tid tgid comm\n", 14));
		/* (the end's seq_num: the last element's) */
		CHECK(strstr(out[U], f ? "\n0 tasks\n" : "\n1 tasks\n") != NULL);
		if (compare && AGREE("task iterator", r))
			CHECK(!strcmp(out[K], out[U]));
		if (getenv("TEST_VERBOSE"))
			printf("--- kernel\n%s--- userbpf\n%s", compare ? out[K] : "", out[U]);
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
