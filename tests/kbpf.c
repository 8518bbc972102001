/* Backends for differential tests (see kbpf.h): userbpf's bpf() and the kernel's bpf() system
 * call, plus a cached probe of whether the kernel's bpf() can be used at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"

static int under_valgrind = -1;

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	if (under_valgrind < 0)
		under_valgrind = getenv("USERBPF_VALGRIND") != NULL;
	/* valgrind's own bpf() wrapper dereferences attr and crashes on NULL.  The kernel reads no
	 * byte of a size-0 attr, so a zeroed one is the same call; with a size it answers EFAULT
	 * before reading anything (pinned by the runs outside valgrind). */
	if (under_valgrind && !attr) {
		static union bpf_attr zero;

		if (size) {
			errno = EFAULT;
			return -1;
		}
		attr = &zero;
	}
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

const struct bpf_backend backend_userbpf = { "userbpf", bpf };
const struct bpf_backend backend_kernel = { "kernel", kernel_bpf };

struct bpf_result backend_call(const struct bpf_backend *be, int cmd, void *attr,
			       unsigned int size)
{
	struct bpf_result r;

	errno = 0;
	r.rc = be->bpf(cmd, attr, size);
	r.err = r.rc < 0 ? errno : 0;
	return r;
}

const struct bpf_backend *const diff_sides[NSIDES] = { &backend_kernel, &backend_userbpf };

struct bpf_result side_call(int s, int cmd, union bpf_attr *attr)
{
	return backend_call(diff_sides[s], cmd, attr, sizeof(*attr));
}

struct bpf_result side_map_create(int s, uint32_t type, uint32_t key_size, uint32_t value_size,
				  uint32_t max_entries, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key_size;
	a.value_size = value_size;
	a.max_entries = max_entries;
	a.map_flags = flags;
	return side_call(s, BPF_MAP_CREATE, &a);
}

int side_prog_load(int s, uint32_t type, const struct bpf_insn *insns, uint32_t cnt)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = cnt;
	a.license = PTR_TO_U64("GPL");
	return side_call(s, BPF_PROG_LOAD, &a).rc;
}

struct bpf_result side_test_run(int s, int prog_fd, const void *pkt, uint32_t len,
				uint32_t *retval)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog_fd;
	a.test.data_in = PTR_TO_U64(pkt);
	a.test.data_size_in = len;
	r = side_call(s, BPF_PROG_TEST_RUN, &a);
	*retval = a.test.retval;
	return r;
}

int results_agree_at(const char *file, int line, const char *what, const struct bpf_result r[2])
{
	if ((r[K].rc < 0) != (r[U].rc < 0) || (r[K].rc < 0 && r[K].err != r[U].err)) {
		test_fail(file, line, "%s: kernel rc %d errno %d, userbpf rc %d errno %d", what,
			  r[K].rc, r[K].err, r[U].rc, r[U].err);
		return 0;
	}
	return 1;
}

static int probe_state = -1; /* -1 not probed, 0 unavailable, 1 available */
static char probe_reason[128];

int kernel_bpf_available(void)
{
	union bpf_attr attr;
	int fd;

	if (probe_state >= 0)
		return probe_state;
	if (getenv("USERBPF_NO_KERNEL")) {
		probe_state = 0;
		snprintf(probe_reason, sizeof(probe_reason), "disabled by USERBPF_NO_KERNEL");
		return probe_state;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	errno = 0;
	fd = kernel_bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		probe_state = 1;
		probe_reason[0] = '\0';
	} else {
		int e = errno;

		probe_state = 0;
		snprintf(probe_reason, sizeof(probe_reason), "BPF_MAP_CREATE failed with %s (%s)",
			 e == EPERM ? "EPERM" : e == ENOSYS ? "ENOSYS" : "an error", strerror(e));
	}
	return probe_state;
}

const char *kernel_bpf_unavailable_reason(void)
{
	kernel_bpf_available();
	return probe_reason;
}
