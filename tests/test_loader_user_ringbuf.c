/* BPF_MAP_TYPE_USER_RINGBUF, differentially: user space produces records on both sides (mapped
 * and written as libbpf's user_ring_buffer__reserve()/__submit() do: the header busy, the bytes,
 * then the header's length, or the discard bit), and the corpus program xdp_user_ringbuf drains
 * them, its callback reading each through its dynptr.  The same random sequence of records
 * (sizes from 0 to beyond the ring, some discarded, some left unsubmitted for a while) and
 * drains (stopping early, wakeup flags, bad flags) must give the same drain results, callback
 * totals and consumer positions; a record whose length the producer position cannot hold ends
 * the drain with the kernel's error.  The mmap rules are compared too.  Skipped where the
 * kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbpf.h"
#include "loader_sides.h"
#include "prog/check_run.h"
#include "test.h"

#define BUSY (1u << 31)
#define DISCARD (1u << 30)
#define DATA_SZ 4096u

struct acc {
	uint64_t calls, sum, short_reads, stop_after;
	int64_t ret;
};

/* One side's producer: its mappings and its own producer position. */
struct producer {
	volatile uint64_t *cons;	/* read-only mapping of the consumer page */
	uint64_t *prod;			/* producer page, then the data twice */
	uint8_t *data;
	uint64_t pos;
};

static bool map_producer(struct producer *p, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *c = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	void *w = mmap(NULL, page + 2 * DATA_SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)page);

	if (c == MAP_FAILED || w == MAP_FAILED)
		return false;
	p->cons = c;
	p->prod = w;
	p->data = (uint8_t *)w + page;
	p->pos = *p->prod;
	return true;
}

/* Reserves a record of size bytes (its header busy), fills it, and publishes the new producer
 * position; NULL if the ring has no room. */
static uint32_t *reserve(struct producer *p, uint32_t size, uint8_t fill)
{
	uint64_t cons = __atomic_load_n(p->cons, __ATOMIC_ACQUIRE);
	uint64_t total = ((uint64_t)size + 8 + 7) & ~7ull;
	uint32_t *hdr;

	if (total > DATA_SZ - (p->pos - cons))
		return NULL;
	hdr = (uint32_t *)(p->data + (p->pos & (DATA_SZ - 1)));
	hdr[0] = size | BUSY;
	hdr[1] = 0;
	for (uint32_t i = 0; i < size; i++)
		((uint8_t *)(hdr + 2))[i] = (uint8_t)(fill + i * 13);
	p->pos += total;
	__atomic_store_n(p->prod, p->pos, __ATOMIC_RELEASE);
	return hdr;
}

static void submit(uint32_t *hdr, bool discard)
{
	uint32_t size = hdr[0] & ~(BUSY | DISCARD);

	__atomic_store_n(hdr, discard ? size | DISCARD : size, __ATOMIC_RELEASE);
}

struct urb_sides {
	struct obj_sides os;
	int urb[NSIDES], stats[NSIDES];
	struct producer p[NSIDES];
};

/* One drain on both sides: the runs, the totals and the consumer positions must agree. */
static bool drain(struct urb_sides *us, uint8_t stop_after, uint8_t flags, unsigned step,
		  int64_t *ret)
{
	uint8_t pkt[64] = { stop_after, flags };
	struct bpf_result r[NSIDES];
	uint32_t rv[NSIDES], key = 0;
	struct acc a[NSIDES];
	char name[64];

	snprintf(name, sizeof(name), "step %u: drain stopping after %u, flags %u", step,
		 stop_after, flags);
	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, us->os.prog[s], pkt, sizeof(pkt), &rv[s]);
	if (!AGREE(name, r))
		return false;
	for (int s = 0; s < NSIDES; s++) {
		memset(&a[s], 0xdd, sizeof(a[s]));
		side_elem(s, BPF_MAP_LOOKUP_ELEM, us->stats[s], &key, &a[s], 0);
	}
	if (memcmp(&a[K], &a[U], sizeof(a[K])) || *us->p[K].cons != *us->p[U].cons) {
		test_fail(__FILE__, __LINE__,
			  "%s: kernel ret %lld calls %llu sum %llu short %llu cons %llu, userbpf ret "
			  "%lld calls %llu sum %llu short %llu cons %llu",
			  name, (long long)a[K].ret, (unsigned long long)a[K].calls,
			  (unsigned long long)a[K].sum, (unsigned long long)a[K].short_reads,
			  (unsigned long long)*us->p[K].cons, (long long)a[U].ret,
			  (unsigned long long)a[U].calls, (unsigned long long)a[U].sum,
			  (unsigned long long)a[U].short_reads, (unsigned long long)*us->p[U].cons);
		return false;
	}
	*ret = a[U].ret;
	return true;
}

TEST(loader_user_ringbuf)
{
	static const uint32_t sizes[] = { 0, 1, 4, 15, 16, 17, 64, 100, 1000, 2040, 4088, 5000 };
	struct urb_sides us;
	uint32_t *held[NSIDES] = { NULL, NULL };
	uint32_t seed = 20261205, records = 0, drained = 0, failed = 0;
	unsigned drains = 0;
	int64_t ret;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(obj_sides_open(&us.os, LOADER_OBJ_DIR "/tests/corpus/xdp_user_ringbuf.bpf.o"));
	for (int s = 0; s < NSIDES; s++) {
		us.urb[s] = obj_sides_map(&us.os, s, "urb");
		us.stats[s] = obj_sides_map(&us.os, s, "stats");
		REQUIRE(us.urb[s] >= 0 && us.stats[s] >= 0);
		REQUIRE(map_producer(&us.p[s], us.urb[s]));
	}
	/* the consumer page is never writable; the producer page and the data are */
	for (int s = 0; s < NSIDES; s++) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		void *w0 = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, us.urb[s], 0);

		CHECK(w0 == MAP_FAILED);
		if (w0 != MAP_FAILED)
			munmap(w0, page);
	}
	for (unsigned step = 0; step < 400 && !failed; step++) {
		seed = seed * 1103515245u + 12345u;
		switch ((seed >> 16) % 6) {
		case 0: case 1: case 2: { /* a record, submitted (or discarded, or held) */
			uint32_t size = sizes[(seed >> 8) % (sizeof(sizes) / sizeof(sizes[0]))];
			uint32_t *hdr[NSIDES];
			int how = (int)((seed >> 4) % 8); /* 0: discard, 1: hold, else submit */

			if (held[U] && how == 1)
				how = 2;
			for (int s = 0; s < NSIDES; s++)
				hdr[s] = reserve(&us.p[s], size, (uint8_t)step);
			CHECK_EQ(hdr[K] != NULL, hdr[U] != NULL);
			if (!hdr[K] || !hdr[U])
				break;
			records++;
			for (int s = 0; s < NSIDES; s++) {
				if (how == 1)
					held[s] = hdr[s];
				else
					submit(hdr[s], how == 0);
			}
			break;
		}
		case 3: /* the held record goes */
			for (int s = 0; s < NSIDES && held[U]; s++) {
				submit(held[s], (seed >> 8) & 1);
				held[s] = NULL;
			}
			break;
		default: { /* a drain */
			static const uint8_t flag_set[] = { 0, 0, 0, BPF_RB_NO_WAKEUP, BPF_RB_FORCE_WAKEUP, 4 };
			uint8_t stop = (seed >> 8) % 3 ? 0 : (uint8_t)(1 + (seed >> 10) % 3);

			drains++;
			if (!drain(&us, stop, flag_set[(seed >> 12) % 6], step, &ret))
				failed++;
			else if (ret > 0)
				drained += (uint32_t)ret;
			break;
		}
		}
	}
	for (int s = 0; s < NSIDES && held[U]; s++)
		submit(held[s], false);
	/* a record whose length the producer position cannot hold: -EINVAL on both */
	for (int s = 0; s < NSIDES; s++) {
		uint32_t *hdr = reserve(&us.p[s], 8, 1);

		if (hdr)
			__atomic_store_n(hdr, 64u, __ATOMIC_RELEASE);
	}
	if (!failed && drain(&us, 0, 0, 400, &ret)) {
		if (ret >= 0)
			drained += (uint32_t)ret;
		CHECK(drain(&us, 0, 0, 401, &ret));
		CHECK_EQ(ret, -EINVAL);
	}
	printf("user ringbuf: %u records, %u drains (%u records drained), results agree: %s\n",
	       records, drains, drained, failed ? "no" : "yes");
	CHECK(drained > 20);
	obj_sides_close(&us.os);
}

/* userbpf alone: a drain in the checked interpreter (what `make soundness` runs programs in):
 * the callback's dynptr and the record it views are memory the callback may use, for its run
 * only; three records (one shorter than the 16 bytes read) are drained without a violation. */
TEST(loader_user_ringbuf_checked)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts) };
	struct userbpf_object *obj;
	struct prog_check_result res;
	struct producer p;
	uint8_t pkt[64] = { 0 };
	struct acc a;
	uint32_t key = 0;
	int prog, urb, stats;

	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/xdp_user_ringbuf.bpf.o",
					  &opts, &obj));
	REQUIRE(!userbpf_object_load(obj));
	prog = userbpf_program_fd(userbpf_object_program(obj, 0));
	urb = userbpf_map_fd(userbpf_object_find_map(obj, "urb"));
	stats = userbpf_map_fd(userbpf_object_find_map(obj, "stats"));
	REQUIRE(prog >= 0 && urb >= 0 && stats >= 0);
	REQUIRE(map_producer(&p, urb));
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t *hdr = reserve(&p, i == 1 ? 3 : 20, (uint8_t)i);

		REQUIRE(hdr != NULL);
		submit(hdr, false);
	}
	REQUIRE_EQ(prog_check_run(prog, pkt, sizeof(pkt), 1000000, &res), 0);
	CHECK_EQ(res.err, 0);
	if (res.err)
		printf("violation at insn %d: %s\n", res.v.insn, res.v.msg);
	CHECK_EQ(side_elem(U, BPF_MAP_LOOKUP_ELEM, stats, &key, &a, 0).rc, 0);
	CHECK_EQ(a.calls, 3u);
	CHECK_EQ(a.short_reads, 1u);
	CHECK_EQ(a.ret, 3);
	userbpf_object_close(obj);
}
