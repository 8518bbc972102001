/* userbpf_perf_event_open(), the ring of a BPF output event and bpf_perf_event_output(), on
 * userbpf alone (test_diff_perf_event.c compares them with the kernel's where it can): the open
 * and mmap rules, the exact bytes of a record from the interpreter and the JIT, a thread's own
 * event, the lost-record count, ioctl(), close-on-exec, and what happens to the slots when the
 * map's fd goes (BPF_F_PRESERVE_ELEMS or not).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_ring.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

static int ubpf_open(struct perf_event_attr *a, int pid, int cpu, int group, unsigned long flags)
{
	int fd = userbpf_perf_event_open(a, pid, cpu, group, flags);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -errno : 0;
}

TEST(perf_event_open_rules)
{
	struct perf_event_attr a, big[2];

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_RAW;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC), 0);
	CHECK_EQ(ubpf_open(&a, 0, -1, -1, 0), 0);
	CHECK_EQ(ubpf_open(&a, 0, 0, -1, 0), 0);
	CHECK_EQ(ubpf_open(&a, (int)gettid(), -1, -1, 0), 0);
	CHECK_EQ(ubpf_open(&a, -1, -1, -1, 0), -EINVAL);
	CHECK_EQ(ubpf_open(&a, -2, 0, -1, 0), -EINVAL);
	CHECK_EQ(ubpf_open(&a, -1, userbpf_num_possible_cpus(), -1, 0), -EINVAL);
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 1ul << 4), -EINVAL);
	CHECK_EQ(ubpf_open(&a, -1, 0, 3, 0), -EOPNOTSUPP);
	CHECK_EQ(ubpf_open(&a, 1, -1, -1, 0), -EOPNOTSUPP); /* init: not ours */
	CHECK_EQ(ubpf_open(NULL, -1, 0, -1, 0), -EFAULT);
	a.sample_type = 0;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), 0);
	a.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), -EOPNOTSUPP);
	a.sample_type = PERF_SAMPLE_RAW;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), -EOPNOTSUPP);
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.type = PERF_TYPE_HARDWARE;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), -EOPNOTSUPP);
	a.type = PERF_TYPE_SOFTWARE;
	a.enable_on_exec = 1;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), -EOPNOTSUPP);
	a.enable_on_exec = 0;
	/* attr.size: 0 is the first version; smaller is E2BIG with ours written back; larger
	 * must end in zeros */
	a.size = 0;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), 0);
	a.size = PERF_ATTR_SIZE_VER0 - 8;
	CHECK_EQ(ubpf_open(&a, -1, 0, -1, 0), -E2BIG);
	CHECK_EQ(a.size, sizeof(a));
	memset(big, 0, sizeof(big));
	memcpy(big, &a, sizeof(a));
	big[0].size = sizeof(big);
	CHECK_EQ(ubpf_open(big, -1, 0, -1, 0), 0);
	((uint8_t *)big)[sizeof(a) + 3] = 1;
	CHECK_EQ(ubpf_open(big, -1, 0, -1, 0), -E2BIG);
	/* close-on-exec only with the flag, as the kernel's fd */
	{
		int fd1 = userbpf_perf_event_open(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
		int fd2 = userbpf_perf_event_open(&a, -1, 0, -1, 0);

		REQUIRE(fd1 >= 0 && fd2 >= 0);
		CHECK(fcntl(fd1, F_GETFD) & FD_CLOEXEC);
		CHECK(!(fcntl(fd2, F_GETFD) & FD_CLOEXEC));
		close(fd1);
		close(fd2);
	}
}

TEST(perf_event_mmap_rules)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = perf_ring_open(U, 0, false, false);
	uint8_t *p, *q;

	REQUIRE(fd >= 0);
	CHECK(mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EINVAL); /* 3 data pages is no power of two... */
	CHECK(mmap(NULL, 6 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EINVAL); /* ...5 neither */
	CHECK(mmap(NULL, 5 * page + 100, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EINVAL); /* nor 5 and a part (a length counts whole pages) */
	CHECK(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EINVAL); /* no data pages */
	CHECK(mmap(NULL, 3 * page, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED && errno == EINVAL);
	CHECK(mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, (off_t)page) == MAP_FAILED &&
	      errno == EINVAL);
	p = mmap(NULL, 5 * page - 100, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(p != MAP_FAILED);
	CHECK_EQ(((struct perf_event_mmap_page *)p)->data_offset, page);
	CHECK_EQ(((struct perf_event_mmap_page *)p)->data_size, 4 * page);
	/* a second mapping: the first one's size only, and the same pages */
	CHECK(mmap(NULL, 3 * page, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
	q = mmap(NULL, 5 * page, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(q != MAP_FAILED);
	p[page + 5] = 0x7e;
	CHECK_EQ(q[page + 5], 0x7e);
	munmap(q, 5 * page);
	munmap(p, 5 * page);
	close(fd);
}

static int load_output(uint32_t type, int map, uint64_t flags, uint32_t size)
{
	struct bpf_insn insns[32];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = perf_output_prog(insns, map, flags, size);
	a.license = (uintptr_t)"GPL";
	return bpf(BPF_PROG_LOAD, &a, sizeof(a));
}

static int make_array(int event_fd, uint32_t flags)
{
	union bpf_attr a;
	uint32_t key = 0, val = (uint32_t)event_fd;
	int map;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	a.key_size = a.value_size = 4;
	a.max_entries = 1;
	a.map_flags = flags;
	map = bpf(BPF_MAP_CREATE, &a, sizeof(a));
	if (map < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	if (bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a))) {
		close(map);
		return -1;
	}
	return map;
}

/* A socket filter's record from each engine: the header, the raw size with its padding, the
 * data, then the packet's bytes from its network header. */
TEST(perf_event_output_record_bytes)
{
	uint8_t pkt[64];

	for (int i = 0; i < 64; i++)
		pkt[i] = (uint8_t)(0x80 + i);
	for (int jit = 0; jit < 2; jit++) {
		struct perf_ring r;
		union bpf_attr a;
		int map, prog;
		uint8_t rec[64];

		userbpf_set_jit(jit);
		REQUIRE(perf_ring_open_mapped(U, &r, -1, 1, PROT_READ | PROT_WRITE) == 0);
		map = make_array(r.fd, 0);
		REQUIRE(map >= 0);
		prog = load_output(BPF_PROG_TYPE_SOCKET_FILTER, map, 7ull << 32, 5);
		REQUIRE(prog >= 0);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)prog;
		a.test.data_in = (uintptr_t)pkt;
		a.test.data_size_in = sizeof(pkt);
		CHECK_EQ(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
		CHECK_EQ(a.test.retval, 0);
		/* header (8), raw size (4), 5 + 7 bytes, padded: 24 bytes in all */
		CHECK_EQ(perf_ring_page(&r)->data_head, 24);
		perf_ring_read(&r, 0, rec, 24);
		CHECK_EQ(rec[0] | rec[1] << 8 | rec[2] << 16 | rec[3] << 24, PERF_RECORD_SAMPLE);
		CHECK_EQ(rec[4] | rec[5] << 8, PERF_RECORD_MISC_KERNEL);
		CHECK_EQ(rec[6] | rec[7] << 8, 24);
		CHECK_EQ(rec[8] | rec[9] << 8 | rec[10] << 16 | rec[11] << 24, 12);
		for (uint32_t i = 0; i < 5; i++)
			CHECK_EQ(rec[12 + i], perf_output_pattern(i));
		for (uint32_t i = 0; i < 7; i++)
			CHECK_EQ(rec[17 + i], pkt[14 + i]);
		close(prog);
		close(map);
		perf_ring_close(&r);
	}
	userbpf_set_jit(1);
}

struct thread_run {
	int prog;
	uint32_t retval;
};

static void *run_in_thread(void *arg)
{
	struct thread_run *t = arg;
	uint8_t pkt[64] = { [12] = 8 };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)t->prog;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	if (bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0)
		t->retval = a.test.retval;
	return NULL;
}

/* A thread's event takes records from that thread only; a ring that fills loses records and
 * says how many in front of the next one; ioctl() ids, enable and disable. */
TEST(perf_event_thread_lost_ioctl)
{
	struct thread_run t = { .retval = 1 };
	struct perf_ring r;
	pthread_t th;
	uint8_t pkt[64] = { 0 };
	uint64_t id = 0, id2 = 0;
	union bpf_attr a;
	int map, prog, ok = 0, lost = 0, other;

	REQUIRE(perf_ring_open_mapped(U, &r, -1, 1, PROT_READ | PROT_WRITE) == 0);
	map = make_array(r.fd, 0);
	prog = load_output(BPF_PROG_TYPE_XDP, map, 0, 40); /* 56-byte records */
	REQUIRE(map >= 0 && prog >= 0);
	t.prog = prog;
	REQUIRE(pthread_create(&th, NULL, run_in_thread, &t) == 0);
	pthread_join(th, NULL);
	CHECK_EQ((int)t.retval, -EOPNOTSUPP);
	CHECK_EQ(perf_ring_page(&r)->data_head, 0);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	for (int i = 0; i < 100; i++) {
		REQUIRE(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0);
		ok += a.test.retval == 0;
		lost += (int)a.test.retval == -ENOSPC;
	}
	CHECK_EQ(ok, 4095 / 56);
	CHECK_EQ(lost, 100 - 4095 / 56);
	CHECK_EQ(perf_ring_page(&r)->data_head, (4095 / 56) * 56);
	perf_ring_consume(&r);
	REQUIRE(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0);
	CHECK_EQ(a.test.retval, 0);
	{
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
		} rec;

		perf_ring_read(&r, perf_ring_page(&r)->data_tail, &rec, sizeof(rec));
		CHECK_EQ(rec.h.type, PERF_RECORD_LOST);
		CHECK_EQ(rec.h.size, 24);
		CHECK_EQ(rec.lost, 100 - 4095 / 56);
		CHECK_EQ(ioctl(r.fd, PERF_EVENT_IOC_ID, &id), 0);
		CHECK_EQ(rec.id, id);
		CHECK_EQ(perf_ring_page(&r)->data_head - perf_ring_page(&r)->data_tail, 24 + 56);
	}
	other = perf_ring_open(U, 0, false, false);
	REQUIRE(other >= 0);
	CHECK_EQ(ioctl(other, PERF_EVENT_IOC_ID, &id2), 0);
	CHECK(id2 != id);
	CHECK(ioctl(other, PERF_EVENT_IOC_RESET, 0) == -1 && errno == ENOTTY);
	close(other);
	perf_ring_consume(&r);
	CHECK_EQ(ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	REQUIRE(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0);
	CHECK_EQ((int)a.test.retval, -EOPNOTSUPP);
	CHECK_EQ(ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	REQUIRE(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0);
	CHECK_EQ(a.test.retval, 0);
	/* ioctl() on other fds goes through: a pipe's FIONREAD */
	{
		int p[2], avail = -1;

		REQUIRE(pipe(p) == 0);
		CHECK_EQ(write(p[1], "abc", 3), 3);
		CHECK_EQ(ioctl(p[0], FIONREAD, &avail), 0);
		CHECK_EQ(avail, 3);
		close(p[0]);
		close(p[1]);
	}
	close(prog);
	close(map);
	perf_ring_close(&r);
}

/* The map's last fd empties its slots unless it was made with BPF_F_PRESERVE_ELEMS (a program
 * holds the map); the event's own fd is not needed once it is in a slot. */
TEST(perf_event_array_preserve_elems)
{
	for (int preserve = 0; preserve < 2; preserve++) {
		uint8_t pkt[64] = { 0 };
		struct perf_ring r;
		union bpf_attr a;
		int map, prog;

		REQUIRE(perf_ring_open_mapped(U, &r, -1, 1, PROT_READ | PROT_WRITE) == 0);
		map = make_array(r.fd, preserve ? BPF_F_PRESERVE_ELEMS : 0);
		prog = load_output(BPF_PROG_TYPE_XDP, map, 0, 8);
		REQUIRE(map >= 0 && prog >= 0);
		close(r.fd);
		r.fd = -1;
		close(map);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)prog;
		a.test.data_in = (uintptr_t)pkt;
		a.test.data_size_in = sizeof(pkt);
		REQUIRE(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) == 0);
		CHECK_EQ((int)a.test.retval, preserve ? 0 : -ENOENT);
		CHECK_EQ(perf_ring_page(&r)->data_head, preserve ? 24 : 0);
		close(prog);
		perf_ring_close(&r);
	}
}
