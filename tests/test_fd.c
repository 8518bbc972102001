/* Objects as real file descriptors: numbering, close() releasing, dup()/dup2()/fcntl() copies,
 * close_range(), fd reuse by an unrelated file, mmap of BPF_F_MMAPABLE arrays, and the entry
 * point's attr contract.  obj_live_count() (internal) tells whether a map was really released. */
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf.h>

#include "fd.h"
#include "kbpf.h"
#include "test.h"

static int mk(enum bpf_map_type type, unsigned ks, unsigned vs, unsigned max, unsigned flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = ks;
	a.value_size = vs;
	a.max_entries = max;
	a.map_flags = flags;
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static int upd(int fd, uint32_t k, uint64_t v)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&k;
	a.value = (uint64_t)(uintptr_t)&v;
	return bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
}

static int get(int fd, uint32_t k, uint64_t *v)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&k;
	a.value = (uint64_t)(uintptr_t)v;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
}

TEST(fd_is_real_cloexec_memfd)
{
	int fd = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0);
	char path[64], target[256];
	ssize_t n;

	REQUIRE(fd >= 0);
	CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	REQUIRE(n > 0);
	target[n] = 0;
	CHECK(strstr(target, "bpf-map") != NULL);
	/* the next open() does not collide with it */
	int other = open("/dev/null", O_RDONLY);
	CHECK(other >= 0 && other != fd);
	close(other);
	close(fd);
}

TEST(fd_close_releases_and_ebadf)
{
	unsigned before = obj_live_count();
	int fd = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0);
	uint64_t v = 0;

	REQUIRE(fd >= 0);
	CHECK_EQ(obj_live_count(), before + 1);
	CHECK_OK(upd(fd, 1, 42));
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(obj_live_count(), before);
	CHECK_ERRNO(get(fd, 1, &v), EBADF);
	CHECK_ERRNO(get(-1, 1, &v), EBADF);
	CHECK_ERRNO(get(1 << 22, 1, &v), EBADF);
}

TEST(fd_reused_by_unrelated_file_is_einval)
{
	int fd = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0), nul;
	uint64_t v = 7;

	REQUIRE(fd >= 0);
	CHECK_OK(upd(fd, 0, 7));
	close(fd);
	nul = open("/dev/null", O_RDONLY);
	REQUIRE(nul == fd); /* the lowest free number comes back */
	CHECK_ERRNO(get(nul, 0, &v), EINVAL);
	close(nul);
}

TEST(fd_dup_keeps_map_alive)
{
	unsigned before = obj_live_count();
	int fd = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0), d, d2, d3;
	uint64_t v = 0;

	REQUIRE(fd >= 0);
	CHECK_OK(upd(fd, 5, 55));
	d = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100); /* not wrapped: adopted on first use */
	d3 = 200;
	REQUIRE(d >= 0 && d2 >= 100);
	CHECK_EQ(dup2(fd, d3), d3);
	CHECK_OK(get(d2, 5, &v));
	CHECK_EQ(v, 55);
	close(fd);
	CHECK_EQ(obj_live_count(), before + 1);
	v = 0;
	CHECK_OK(get(d, 5, &v));
	CHECK_EQ(v, 55);
	CHECK_OK(upd(d3, 6, 66));
	CHECK_OK(get(d2, 6, &v));
	CHECK_EQ(v, 66);
	close(d);
	close(d2);
	CHECK_EQ(obj_live_count(), before + 1);
	close(d3);
	CHECK_EQ(obj_live_count(), before);
	CHECK_ERRNO(get(d3, 5, &v), EBADF);
}

TEST(fd_dup2_onto_map_closes_it)
{
	unsigned before = obj_live_count();
	int fd = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0), nul = open("/dev/null", O_RDONLY);
	uint64_t v;

	REQUIRE(fd >= 0 && nul >= 0);
	CHECK_EQ(dup2(nul, fd), fd);
	CHECK_EQ(obj_live_count(), before);
	CHECK_ERRNO(get(fd, 0, &v), EINVAL);
	/* dup3 with the same fd is EINVAL and closes nothing */
	CHECK_ERRNO(dup3(nul, nul, 0), EINVAL);
	close(fd);
	close(nul);
}

TEST(fd_close_range_releases)
{
	unsigned before = obj_live_count();
	int fds[4];

	for (int i = 0; i < 4; i++) {
		fds[i] = mk(BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0);
		REQUIRE(fds[i] >= 0);
	}
	CHECK_EQ(obj_live_count(), before + 4);
	/* CLOEXEC only marks them */
	CHECK_EQ(close_range((unsigned)fds[0], (unsigned)fds[3], CLOSE_RANGE_CLOEXEC), 0);
	CHECK_EQ(obj_live_count(), before + 4);
	CHECK_EQ(close_range((unsigned)fds[0], (unsigned)fds[3], 0), 0);
	CHECK_EQ(obj_live_count(), before);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(fcntl(fds[i], F_GETFD), -1);
}

TEST(fd_many_maps)
{
	enum { N = 300 };
	unsigned before = obj_live_count();
	int fds[N];

	for (int i = 0; i < N; i++) {
		fds[i] = mk(BPF_MAP_TYPE_HASH, 4, 8, 2, 0);
		REQUIRE(fds[i] >= 0);
		CHECK_OK(upd(fds[i], 1, (uint64_t)i));
	}
	for (int i = 0; i < N; i++) {
		uint64_t v = 0;

		CHECK_OK(get(fds[i], 1, &v));
		CHECK_EQ(v, i);
		close(fds[i]);
	}
	CHECK_EQ(obj_live_count(), before);
}

TEST(fd_mmap_array)
{
	int fd = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 1000, BPF_F_MMAPABLE);
	size_t len = 8192; /* 1000 values of 8 bytes, page-aligned */
	uint64_t *m, v = 0;

	REQUIRE(fd >= 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED);
	CHECK_OK(upd(fd, 3, 0x1234));
	CHECK_EQ(m[3], 0x1234);
	m[999] = 77;
	CHECK_OK(get(fd, 999, &v));
	CHECK_EQ(v, 77);
	close(fd);
	/* the mapping outlives the fd, as on the kernel */
	m[1] = 5;
	CHECK_EQ(m[1], 5);
	munmap(m, len);
	/* a hash map cannot be used as an mmapable one */
	CHECK_ERRNO(mk(BPF_MAP_TYPE_HASH, 4, 8, 4, BPF_F_MMAPABLE), EINVAL);
}

TEST(attr_contract)
{
	union bpf_attr a[2];
	uint64_t v;

	memset(a, 0, sizeof(a));
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, NULL, sizeof(a[0])), EFAULT);
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, NULL, 0), EINVAL); /* nothing read: map_type 0 */
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, a, 4097), E2BIG);
	CHECK_ERRNO(bpf(9999, a, sizeof(a[0])), EINVAL);
	CHECK_ERRNO(bpf(-1, a, sizeof(a[0])), EINVAL);
	/* BPF_TOKEN_CREATE of fd 0 (stdin, not a BPF filesystem's root), as the kernel */
	CHECK_ERRNO(bpf(36, a, sizeof(a[0])), EINVAL);
	a[0].map_type = BPF_MAP_TYPE_ARRAY;
	a[0].key_size = 4;
	a[0].value_size = 8;
	a[0].max_entries = 1;
	/* a larger size is fine when the tail is zero, E2BIG when not */
	int fd = bpf(BPF_MAP_CREATE, a, sizeof(a));
	CHECK(fd >= 0);
	close(fd);
	/* beyond the kernel's 168-byte union: the caller's tail, E2BIG */
	((char *)a)[168 + 7] = 1;
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, a, sizeof(a)), E2BIG);
	((char *)a)[168 + 7] = 0;
	/* inside the kernel's union, after MAP_CREATE's last field: EINVAL */
	((char *)a)[150] = 1;
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, a, sizeof(a)), EINVAL);
	((char *)a)[150] = 0;
	/* a smaller size reads the rest as zero: without max_entries, EINVAL */
	CHECK_ERRNO(bpf(BPF_MAP_CREATE, a, offsetof(union bpf_attr, max_entries)), EINVAL);
	/* non-zero bytes after the command's last field */
	fd = bpf(BPF_MAP_CREATE, a, sizeof(a[0]));
	REQUIRE(fd >= 0);
	memset(a, 0, sizeof(a));
	a[0].map_fd = (uint32_t)fd;
	uint32_t k = 0;
	a[0].key = (uint64_t)(uintptr_t)&k;
	a[0].value = (uint64_t)(uintptr_t)&v;
	CHECK_OK(bpf(BPF_MAP_LOOKUP_ELEM, a, sizeof(a[0])));
	((char *)a)[offsetof(union bpf_attr, flags) + 8] = 1;
	CHECK_ERRNO(bpf(BPF_MAP_LOOKUP_ELEM, a, sizeof(a[0])), EINVAL);
	/* DELETE_ELEM ends at key: the value field must be zero */
	memset(a, 0, sizeof(a));
	a[0].map_fd = (uint32_t)fd;
	a[0].key = (uint64_t)(uintptr_t)&k;
	a[0].value = 1;
	CHECK_ERRNO(bpf(BPF_MAP_DELETE_ELEM, a, sizeof(a[0])), EINVAL);
	close(fd);
}

TEST(fd_mmap_kernel_checks)
{
	int h = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0);
	int plain = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0);
	int m = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_MMAPABLE); /* 32 bytes: one page */
	int ro = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG);
	int rw = PROT_READ | PROT_WRITE;
	void *p;

	REQUIRE(h >= 0 && plain >= 0 && m >= 0 && ro >= 0);
	errno = 0;
	CHECK(mmap(NULL, 4096, rw, MAP_SHARED, h, 0) == MAP_FAILED && errno == ENOTSUPP);
	errno = 0;
	CHECK(mmap(NULL, 4096, rw, MAP_SHARED, plain, 0) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 4096, rw, MAP_PRIVATE, m, 0) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 8192, rw, MAP_SHARED, m, 0) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 4096, rw, MAP_SHARED, m, 4096) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 4096, rw, MAP_SHARED, ro, 0) == MAP_FAILED && errno == EACCES);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	p = mmap(NULL, 4096, rw, MAP_SHARED, m, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	/* ordinary mappings are untouched */
	p = mmap(NULL, 4096, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(h);
	close(plain);
	close(m);
	close(ro);
}

/* The same mmap() calls on kernel maps and on ours give the same outcome and errno. */
TEST(diff_mmap_matches_kernel)
{
	static const struct {
		int type, flags, prot, mflags;
		size_t len;
		long off;
	} cases[] = {
		{ BPF_MAP_TYPE_HASH, 0, PROT_READ | PROT_WRITE, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_HASH, BPF_F_RDONLY, PROT_READ, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, 0, PROT_READ | PROT_WRITE, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_PRIVATE, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ, MAP_PRIVATE, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_SHARED, 8192, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_SHARED, 4096, 4096 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG, PROT_READ | PROT_WRITE,
		  MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG, PROT_READ, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_RDONLY, PROT_READ | PROT_WRITE, MAP_SHARED,
		  4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_RDONLY, PROT_READ, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_RDONLY, PROT_READ, MAP_PRIVATE, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_WRONLY, PROT_READ, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE | BPF_F_WRONLY, PROT_WRITE, MAP_SHARED, 4096, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0 },
		{ BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, PROT_READ | PROT_WRITE, MAP_SHARED, 4096, -4096 },
	};

	if (!kernel_bpf_available())
		SKIP("kernel bpf() unavailable: %s", kernel_bpf_unavailable_reason());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fds[2], res[2], err[2];

		for (int side = 0; side < 2; side++) {
			union bpf_attr a;
			void *p;

			memset(&a, 0, sizeof(a));
			a.map_type = (uint32_t)cases[i].type;
			a.key_size = 4;
			a.value_size = 8;
			a.max_entries = 4;
			a.map_flags = (uint32_t)cases[i].flags;
			fds[side] = side ? bpf(BPF_MAP_CREATE, &a, sizeof(a))
					 : (int)syscall(__NR_bpf, BPF_MAP_CREATE, &a, sizeof(a));
			REQUIRE(fds[side] >= 0);
			errno = 0;
			p = mmap(NULL, cases[i].len, cases[i].prot, cases[i].mflags, fds[side],
				 cases[i].off);
			res[side] = p != MAP_FAILED;
			err[side] = errno;
			if (p != MAP_FAILED)
				munmap(p, cases[i].len);
			close(fds[side]);
		}
		if (res[0] != res[1] || err[0] != err[1])
			test_fail(__FILE__, __LINE__, "case %zu: kernel %s/%d, userbpf %s/%d", i,
				  res[0] ? "ok" : "fail", err[0], res[1] ? "ok" : "fail", err[1]);
	}
}
