/* BPF_MAP_TYPE_RINGBUF: a multi-producer, single-consumer ring of variable-size records.
 *
 * Memory: the map's memfd holds the kernel's user-visible layout: a page with the consumer
 * position (user space writes it), a page with the producer position, then max_entries bytes of
 * data.  Records are 8-byte aligned: an 8-byte header { u32 len (bit 31 busy, bit 30 discarded),
 * u32 page offset } and the bytes, padded to 8.  As in the kernel, the data pages are mapped
 * twice in a row, so a record that wraps is contiguous: in the map's own mapping (where programs
 * write) and in user mappings (ringbuf_mmap_map()), so libbpf-style consumers work unchanged.
 *
 * Producers (programs) serialise on a spinlock; positions only grow; a record that would bring
 * the producer within a full ring of the consumer (or of the oldest uncommitted record) is
 * refused (bpf_ringbuf_output: -EAGAIN).  The page offset written in each header is the kernel's
 * (counted from its struct bpf_ringbuf, whose data starts 3 pages in), so the bytes a consumer
 * reads are the kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "map/map.h"
#include "map/ringbuf.h"

#define RINGBUF_CREATE_FLAG_MASK BPF_F_NUMA_NODE
#define RINGBUF_MAX_RECORD_SZ (UINT32_MAX / 4)
#define RINGBUF_KERNEL_DATA_PGOFF 3 /* the kernel's: a private page, consumer, producer */
#define RINGBUF_POS_PAGES 2	    /* consumer and producer pages, before the data */

struct ringbuf {
	struct bpf_map map;
	size_t page;
	u8 *base;		/* consumer page, producer page, data, data again */
	size_t base_len;
	u64 mask;		/* data size - 1 */
	spinlock_t lock;	/* producers */
	int busy;		/* a user ring buffer's drain in progress (the kernel's rb->busy) */
};

static inline struct ringbuf *rb_of(struct bpf_map *map)
{
	return container_of(map, struct ringbuf, map);
}

static inline u64 *consumer_pos(struct ringbuf *rb)
{
	return (u64 *)rb->base;
}

static inline u64 *producer_pos(struct ringbuf *rb)
{
	return (u64 *)(rb->base + rb->page);
}

/* The oldest record not yet committed (producers' lock): beside the producer position, where
 * the kernel keeps it too (user space sees it). */
static inline u64 *pending_pos(struct ringbuf *rb)
{
	return (u64 *)(rb->base + rb->page) + 1;
}

static inline u8 *data(struct ringbuf *rb)
{
	return rb->base + RINGBUF_POS_PAGES * rb->page;
}

/* Maps [off, off + len) of the layout consumer, producer, data, data (page units) from fd at
 * at (MAP_FIXED over a reservation), the second data copy from the same file pages. */
static int map_layout(struct ringbuf *rb, u8 *at, size_t len, int prot, int fd, u64 off)
{
	u64 file_pages = RINGBUF_POS_PAGES + (rb->mask + 1) / rb->page;
	u64 first = off / rb->page, n = len / rb->page;

	/* the part before the second copy, then the part in it */
	if (first < file_pages) {
		u64 k = file_pages - first < n ? file_pages - first : n;

		if (sys_mmap(at, k * rb->page, prot, MAP_SHARED | MAP_FIXED, fd, first * rb->page) ==
		    MAP_FAILED)
			return -errno;
		at += k * rb->page;
		first += k;
		n -= k;
	}
	if (n && sys_mmap(at, n * rb->page, prot, MAP_SHARED | MAP_FIXED, fd,
			  (first - file_pages + RINGBUF_POS_PAGES) * rb->page) == MAP_FAILED)
		return -errno;
	return 0;
}

static int ringbuf_alloc_check(const union bpf_attr *attr)
{
	long page = sysconf(_SC_PAGESIZE);

	if (attr->map_flags & ~RINGBUF_CREATE_FLAG_MASK)
		return -EINVAL;
	if (attr->key_size || attr->value_size || !attr->max_entries ||
	    (attr->max_entries & (attr->max_entries - 1)) ||
	    attr->max_entries % (u32)page)
		return -EINVAL;
	/* (the kernel's RINGBUF_MAX_DATA_SZ, 64 GiB, is beyond any u32 max_entries) */
	return 0;
}

static int ringbuf_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct ringbuf *rb = calloc(1, sizeof(*rb));
	size_t data_sz = attr->max_entries;

	if (!rb)
		return -ENOMEM;
	rb->map.obj.memfd_data = true; /* the memfd holds the ring */
	rb->page = (size_t)sysconf(_SC_PAGESIZE);
	rb->mask = data_sz - 1;
	/* size_t on i386: the double mapping must fit the address space */
	if (data_sz > (SIZE_MAX - RINGBUF_POS_PAGES * rb->page) / 2)
		goto nomem;
	rb->base_len = RINGBUF_POS_PAGES * rb->page + 2 * data_sz;
	if (ftruncate(memfd, (off_t)(RINGBUF_POS_PAGES * rb->page + data_sz)) < 0)
		goto nomem;
	rb->base = mmap(NULL, rb->base_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rb->base == MAP_FAILED)
		goto nomem;
	if (map_layout(rb, rb->base, rb->base_len, PROT_READ | PROT_WRITE, memfd, 0)) {
		munmap(rb->base, rb->base_len);
		goto nomem;
	}
	*out = &rb->map;
	return 0;
nomem:
	free(rb);
	return -ENOMEM;
}

static void ringbuf_free(struct bpf_map *map)
{
	struct ringbuf *rb = rb_of(map);

	munmap(rb->base, rb->base_len);
	free(rb);
}

/* Element commands: a ring has none (EINVAL from bpf(), as 6.18 answers). */
static int ringbuf_lookup(struct bpf_map *map, const void *key, void *value)
{
	return -EINVAL;
}

static int ringbuf_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	return -EINVAL;
}

static int ringbuf_delete(struct bpf_map *map, const void *key)
{
	return -EINVAL;
}

static int ringbuf_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	return -EINVAL;
}

static int ringbuf_lookup_and_delete(struct bpf_map *map, const void *key, void *value,
				     u64 flags)
{
	return -EINVAL;
}

static void *ringbuf_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL;
}

/* The consumer page may be mapped writable (exactly it); the rest only read-only, within the
 * layout of two position pages and the data twice. */
static int ringbuf_mmap_check(struct bpf_map *map, u64 off, u64 len, int prot)
{
	struct ringbuf *rb = rb_of(map);

	if (prot & PROT_WRITE) {
		if (off || len != rb->page)
			return -EPERM;
		return 0;
	}
	if (off % rb->page || off + len > rb->base_len)
		return -EINVAL;
	return MMAP_READ_ONLY;
}

static void *ringbuf_mmap_map(struct bpf_map *map, void *addr, size_t len, int prot, int flags,
			      int fd, u64 off)
{
	struct ringbuf *rb = rb_of(map);
	size_t span = (len + rb->page - 1) / rb->page * rb->page;
	u8 *at = sys_mmap(addr, span, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | (flags & MAP_FIXED), -1, 0);
	int err;

	if (at == MAP_FAILED)
		return MAP_FAILED;
	err = map_layout(rb, at, span, prot, fd, off);
	if (err) {
		munmap(at, span);
		errno = -err;
		return MAP_FAILED;
	}
	return at;
}

/* Reserves a record of size bytes: its header, busy; NULL when the ring has no room. */
static u8 *reserve(struct ringbuf *rb, u64 size)
{
	u64 len, cons, prod, pend;
	u8 *hdr;

	if (size > RINGBUF_MAX_RECORD_SZ)
		return NULL;
	len = round_up(size + RINGBUF_HDR_SZ, 8);
	if (len > rb->mask + 1)
		return NULL;
	cons = __atomic_load_n(consumer_pos(rb), __ATOMIC_ACQUIRE);
	spin_lock(&rb->lock);
	prod = *producer_pos(rb);
	/* committed records at the old end no longer hold the producer back */
	for (pend = *pending_pos(rb); pend < prod;) {
		u32 hlen = __atomic_load_n((u32 *)(data(rb) + (pend & rb->mask)), __ATOMIC_ACQUIRE);

		if (hlen & RINGBUF_BUSY_BIT)
			break;
		pend += round_up((hlen & ~RINGBUF_DISCARD_BIT) + RINGBUF_HDR_SZ, 8);
	}
	__atomic_store_n(pending_pos(rb), pend, __ATOMIC_RELAXED);
	if (prod + len - cons > rb->mask || prod + len - pend > rb->mask) {
		spin_unlock(&rb->lock);
		return NULL;
	}
	hdr = data(rb) + (prod & rb->mask);
	/* the page offset the kernel writes: from its struct's start, whose data is 3 pages in */
	((u32 *)hdr)[1] = (u32)(RINGBUF_KERNEL_DATA_PGOFF + (prod & rb->mask) / rb->page);
	__atomic_store_n((u32 *)hdr, (u32)size | RINGBUF_BUSY_BIT, __ATOMIC_RELAXED);
	__atomic_store_n(producer_pos(rb), prod + len, __ATOMIC_RELEASE);
	spin_unlock(&rb->lock);
	return hdr;
}

static void commit(u8 *hdr, bool discard)
{
	u32 len = __atomic_load_n((u32 *)hdr, __ATOMIC_RELAXED) & ~RINGBUF_BUSY_BIT;

	__atomic_store_n((u32 *)hdr, discard ? len | RINGBUF_DISCARD_BIT : len, __ATOMIC_RELEASE);
}

int ringbuf_output(struct bpf_map *map, const void *src, u64 size, u64 flags)
{
	u8 *hdr;

	if (flags & ~(u64)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
		return -EINVAL;
	hdr = reserve(rb_of(map), size);
	if (!hdr)
		return -EAGAIN;
	memcpy(hdr + RINGBUF_HDR_SZ, src, size);
	commit(hdr, false);
	return 0;
}

void *ringbuf_reserve(struct bpf_map *map, u64 size, u64 flags)
{
	u8 *hdr;

	if (flags)
		return NULL;
	hdr = reserve(rb_of(map), size);
	return hdr ? hdr + RINGBUF_HDR_SZ : NULL;
}

void ringbuf_commit(void *sample, bool discard)
{
	commit((u8 *)sample - RINGBUF_HDR_SZ, discard);
}

u64 ringbuf_query(struct bpf_map *map, u64 flags)
{
	struct ringbuf *rb = rb_of(map);
	u64 cons = __atomic_load_n(consumer_pos(rb), __ATOMIC_ACQUIRE);
	u64 prod = __atomic_load_n(producer_pos(rb), __ATOMIC_ACQUIRE);

	switch (flags) {
	case BPF_RB_AVAIL_DATA:
		return prod - cons;
	case BPF_RB_RING_SIZE:
		return rb->mask + 1;
	case BPF_RB_CONS_POS:
		return cons;
	case BPF_RB_PROD_POS:
		return prod;
	default:
		return 0;
	}
}

/* ---- BPF_MAP_TYPE_USER_RINGBUF: the same ring, written by user space, read by programs ----
 *
 * User space maps the producer page and the data writable (never the consumer page), writes a
 * record's header (busy bit set), its bytes, clears the busy bit (or sets the discard bit) and
 * advances the producer position, as libbpf's user_ring_buffer__reserve()/__submit() do.
 * bpf_user_ringbuf_drain() reads records from the consumer position: each is checked against
 * the positions and the ring (a bad one ends the drain with an error), then handed to the
 * program's callback and consumed. */

static int user_ringbuf_mmap_check(struct bpf_map *map, u64 off, u64 len, int prot)
{
	struct ringbuf *rb = rb_of(map);

	if (off % rb->page || off + len > rb->base_len)
		return -EINVAL;
	if (prot & PROT_WRITE)
		return off ? 0 : -EPERM;
	return off ? 0 : MMAP_READ_ONLY;
}

int user_ringbuf_begin(struct bpf_map *map)
{
	int idle = 0;

	return __atomic_compare_exchange_n(&rb_of(map)->busy, &idle, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED)
		       ? 0
		       : -EBUSY;
}

void user_ringbuf_end(struct bpf_map *map)
{
	__atomic_store_n(&rb_of(map)->busy, 0, __ATOMIC_RELEASE);
}

int user_ringbuf_peek(struct bpf_map *map, void **sample, u32 *size)
{
	struct ringbuf *rb = rb_of(map);
	u64 prod = __atomic_load_n(producer_pos(rb), __ATOMIC_ACQUIRE);
	u64 cons = __atomic_load_n(consumer_pos(rb), __ATOMIC_ACQUIRE);
	u32 hlen, len, total;

	if (prod % 8)
		return -EINVAL;
	if (cons >= prod)
		return -ENODATA;
	hlen = __atomic_load_n((u32 *)(data(rb) + (cons & rb->mask)), __ATOMIC_ACQUIRE);
	len = hlen & ~(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT);
	total = (u32)round_up((u64)len + RINGBUF_HDR_SZ, 8);
	if (total > prod - cons)
		return -EINVAL;
	if (total > rb->mask + 1 || len > USER_RINGBUF_MAX_SAMPLE)
		return -E2BIG;
	if (hlen & RINGBUF_DISCARD_BIT) {
		__atomic_store_n(consumer_pos(rb), cons + total, __ATOMIC_RELEASE);
		return -EAGAIN;
	}
	if (hlen & RINGBUF_BUSY_BIT)
		return -ENODATA;
	*sample = data(rb) + ((cons + RINGBUF_HDR_SZ) & rb->mask);
	*size = len;
	return 0;
}

void user_ringbuf_consume(struct bpf_map *map, u32 size)
{
	struct ringbuf *rb = rb_of(map);
	u64 cons = *consumer_pos(rb); /* (only the drain, which is busy, writes it) */

	__atomic_store_n(consumer_pos(rb), cons + round_up((u64)size + RINGBUF_HDR_SZ, 8),
			 __ATOMIC_RELEASE);
}

/* What both kinds of ring share: the memory and the element commands they do not have. */
#define RING_OPS                                                                                   \
	.alloc_check = ringbuf_alloc_check, .alloc = ringbuf_alloc, .free = ringbuf_free,          \
	.lookup = ringbuf_lookup, .lookup_ptr = ringbuf_lookup_ptr, .update = ringbuf_update,     \
	.delete = ringbuf_delete, .get_next_key = ringbuf_get_next_key,                           \
	.lookup_and_delete = ringbuf_lookup_and_delete, .mmap_map = ringbuf_mmap_map

const struct bpf_map_ops user_ringbuf_map_ops = {
	RING_OPS,
	.mmap_check = user_ringbuf_mmap_check,
};

const struct bpf_map_ops ringbuf_map_ops = {
	RING_OPS,
	.mmap_check = ringbuf_mmap_check,
};
