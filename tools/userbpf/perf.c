/* Perf event arrays in the CLI: before packets run, each BPF_MAP_TYPE_PERF_EVENT_ARRAY of the
 * object gets a BPF output event per CPU (slot i: CPU i), each mapped with PERF_DATA_PAGES data
 * pages (--perf-pages), as bpftool's `map event_pipe` attaches them.  The runner drains the rings after every
 * packet (cli_perf_poll()), as a reader would, into a buffer per CPU that `map dump` prints: all
 * the records of the run, and LOST records only where one packet's runs overfilled a ring.
 *
 * With --kernel the events are the kernel's, from perf_event_open(2) (a CPU-wide event needs
 * CAP_PERFMON or root); otherwise userbpf_perf_event_open()'s.  A CPU whose event cannot be made
 * is reported and its slot left empty: a program writing there gets ENOENT, as with no reader.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

#define PERF_DATA_PAGES 64	      /* per CPU by default: 256 KiB with 4 KiB pages */
#define PERF_KEEP_MAX (256u << 20) /* bytes of records kept, over all CPUs */

struct perf_attached {
	const struct userbpf_map *map;
	unsigned int n;
	struct cli_perf_ring *rings;
	struct perf_attached *next;
};

static struct perf_attached *attached;
static size_t kept_bytes;

/* Appends n bytes at ring offset pos (mod size, a power of 2) to the ring's buffer. */
static int keep(struct cli_perf_ring *r, const uint8_t *data, uint64_t size, uint64_t pos,
		size_t n)
{
	size_t at = (size_t)(pos & (size - 1)), first = n < size - at ? n : (size_t)(size - at);

	if (r->kept_len + n > r->kept_cap) {
		size_t cap = r->kept_cap ? r->kept_cap : 4096;
		uint8_t *b;

		while (cap < r->kept_len + n)
			cap *= 2;
		b = realloc(r->kept, cap);
		if (!b)
			return -ENOMEM;
		r->kept = b;
		r->kept_cap = cap;
	}
	memcpy(r->kept + r->kept_len, data + at, first);
	memcpy(r->kept + r->kept_len + first, data, n - first);
	r->kept_len += n;
	kept_bytes += n;
	return 0;
}

/* Moves one ring's records to its buffer and frees their space, as a perf reader does: read
 * data_head (acquire), copy, then publish data_tail (release). */
static void drain(struct cli_perf_ring *r)
{
	struct perf_event_mmap_page *meta = r->base;
	const uint8_t *data = (const uint8_t *)r->base + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;

	if (head == tail || r->full)
		return;
	if (kept_bytes + (head - tail) > PERF_KEEP_MAX ||
	    keep(r, data, meta->data_size, tail, (size_t)(head - tail))) {
		/* stop reading: later records stay in the ring, or are lost once it fills */
		cli_err("CPU %d's perf records: over %u MiB kept, the rest is left in its ring",
			r->cpu, PERF_KEEP_MAX >> 20);
		r->full = true;
		return;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

void cli_perf_poll(void)
{
	for (struct perf_attached *pa = attached; pa; pa = pa->next)
		for (unsigned int i = 0; i < pa->n; i++)
			if (pa->rings[i].fd >= 0)
				drain(&pa->rings[i]);
}

static int open_event(int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_RAW;
	a.sample_period = 1;
	a.wakeup_events = 1;
	if (cli.kernel)
		return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return userbpf_perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Fills slot cpu of map with a new mapped event.  Returns 0, or -errno (ring->fd stays -1). */
static int attach_cpu(const struct userbpf_map *m, int cpu, unsigned int pages,
		      struct cli_perf_ring *ring)
{
	size_t len = (size_t)(pages + 1) * (size_t)sysconf(_SC_PAGESIZE);
	userbpf_bpf_fn bpf_fn = cli_backend();
	union bpf_attr attr;
	uint32_t key = (uint32_t)cpu;
	int fd = open_event(cpu), err;
	void *base;

	ring->cpu = cpu;
	ring->fd = -1;
	if (fd < 0)
		return -errno;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)userbpf_map_fd(m);
	attr.key = (uint64_t)(uintptr_t)&key;
	attr.value = (uint64_t)(uintptr_t)&fd;
	if (bpf_fn(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) < 0) {
		err = -errno;
		munmap(base, len);
		close(fd);
		return err;
	}
	ring->fd = fd;
	ring->base = base;
	ring->len = len;
	return 0;
}

int cli_perf_attach(struct userbpf_object *obj, unsigned int pages)
{
	unsigned int ncpus = (unsigned int)userbpf_num_possible_cpus();

	for (size_t i = 0; i < userbpf_object_map_count(obj); i++) {
		const struct userbpf_map *m = userbpf_object_map(obj, i);
		struct perf_attached *pa;
		unsigned int n;

		if (userbpf_map_type(m) != BPF_MAP_TYPE_PERF_EVENT_ARRAY || cli_perf_rings(m, &n))
			continue;
		n = userbpf_map_max_entries(m) < ncpus ? userbpf_map_max_entries(m) : ncpus;
		pa = calloc(1, sizeof(*pa));
		if (pa)
			pa->rings = calloc(n ? n : 1, sizeof(*pa->rings));
		if (!pa || !pa->rings) {
			free(pa);
			cli_err("out of memory");
			return EXIT_RUN;
		}
		pa->map = m;
		pa->n = n;
		pa->next = attached;
		attached = pa;
		for (unsigned int cpu = 0; cpu < n; cpu++) {
			int err = attach_cpu(m, (int)cpu, pages ? pages : PERF_DATA_PAGES,
					     &pa->rings[cpu]);

			if (err)
				cli_err("map '%s': no perf event for CPU %u: %s", userbpf_map_name(m),
					cpu, strerror(-err));
		}
	}
	return EXIT_OK;
}

const struct cli_perf_ring *cli_perf_rings(const struct userbpf_map *m, unsigned int *n)
{
	for (struct perf_attached *pa = attached; pa; pa = pa->next)
		if (pa->map == m) {
			*n = pa->n;
			return pa->rings;
		}
	*n = 0;
	return NULL;
}

void cli_perf_detach(void)
{
	while (attached) {
		struct perf_attached *pa = attached;

		for (unsigned int i = 0; i < pa->n; i++) {
			if (pa->rings[i].fd >= 0) {
				munmap(pa->rings[i].base, pa->rings[i].len);
				close(pa->rings[i].fd);
			}
			free(pa->rings[i].kept);
		}
		attached = pa->next;
		free(pa->rings);
		free(pa);
	}
}
