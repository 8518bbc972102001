/* BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH.
 *
 * Layout: n_buckets = roundup_pow_of_two(max_entries) buckets, each a singly linked chain with a
 * writer lock and a sequence counter.  Keys hash with jhash under a random seed (seed 0 with
 * BPF_F_ZERO_SEED), and a new or updated element goes to the head of its chain, as in the kernel,
 * so iteration order under BPF_F_ZERO_SEED is the kernel's.
 *
 * Concurrency: writers take the bucket lock and bump the bucket's sequence counter around every
 * change, except that the common update (htab_update()) of the element at a chain's head with a
 * value of 1, 2, 4 or 8 bytes is one store, of which no reader can see half.  Readers (lookup,
 * get_next_key) take no lock and write nothing: they walk the chain, copy what they need, and
 * retry if the counter moved.  So a reader never sees a torn value of any size.
 * Element memory is never returned to the allocator while the map lives (deleted elements go to a
 * free list and are reused), so a reader racing with a delete reads stale memory at worst, never
 * freed memory; the counter check then discards what it read.  The one exception to the lock: an
 * update of a present key skips it while its thread is the only one that ever entered userbpf
 * (rcu_skip_begin(), rcu.h); the lock is a third of that call's time, and a second thread waits,
 * when it registers, for the skipping to end before it can take any bucket lock.
 *
 * Memory: with preallocation (the default) the elements are one block of max_entries reserved at
 * create and handed out in order (pages are touched only when used); with BPF_F_NO_PREALLOC each
 * is malloc'ed on first need.  The live count never exceeds max_entries: inserting beyond is E2BIG.
 *
 * Per CPU: an element's value is one round_up(value_size, 8) copy per possible CPU, side by side
 * (the layout bpf() copies); a program reads and updates its CPU's copy, and a program's insert
 * zeroes the others.  As in the kernel, an update of an existing per-CPU element is in place: it
 * does not move to the head of its chain.
 *
 * LRU: the kernel's lists (map/lru.h), so a map evicts the keys the kernel's would, in its
 * batches, and an update takes a fresh element first, as the kernel's does (even for a present
 * key, which may evict another).  A program's lookup marks its element referenced (the kernel's
 * bpf_lru_node_set_ref(); bpf() lookups do not).  An update of a present key links the new
 * element and frees the old one (per CPU: the value is replaced in place).  Elements go back to
 * the lists after their bucket's lock is released, as the LRU's lock is taken before a bucket's.
 * BPF_F_NO_COMMON_LRU rounds max_entries to a multiple of the CPUs, as the kernel does.
 *
 * bpf_for_each_map_elem() walks the buckets in order and each chain from its head, as the kernel
 * does, and leaves LRU marks alone (the kernel's walk does not touch its lists either).  The
 * callback may delete the element it was given (or any other): a bucket's chain is copied before
 * its first callback, and each copied element is given only if it is still live in that bucket.
 *
 * Hash of maps (BPF_MAP_TYPE_HASH_OF_MAPS, see map_in_map.h): an element's value is a pointer to
 * an inner map the element holds a reference on.  bpf() writes a map fd and reads the map's id;
 * a program's lookup returns the map.  The reference goes when the element is replaced, deleted
 * or freed with the map, after the command's read section (obj_put_deferred()).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/random.h>

#include "exec/bpf_timer.h"
#include "exec/callback.h"
#include "map/jhash.h"
#include "map/lru.h"
#include "map/map.h"
#include "map/map_in_map.h"
#include "map/value_ranges.h"
#include "rcu.h"

#define HTAB_CREATE_FLAG_MASK                                                                    \
	(BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | \
	 BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG | BPF_F_ZERO_SEED)

/* The kernel bounds key + value below KMALLOC_MAX_SIZE (4 MiB) minus its element header. */
#define HTAB_KV_MAX ((4u << 20) - 48u)

struct htab_elem {
	struct htab_elem *next;	/* chain of the bucket, or the free list */
	u32 hash;		/* full hash of the key; its low bits pick the bucket */
	u8 live;		/* in a chain (set and cleared under its bucket's lock) */
	u8 ref;			/* LRU: looked up by a program since the lists last looked */
	_Alignas(8) u8 data[];	/* key, padded to 8 bytes, then the value */
};

struct bucket {
	u32 seq;		/* odd while a writer changes the chain or one of its elements */
	spinlock_t lock;	/* serialises writers of this bucket */
	struct htab_elem *head;
};

struct bpf_htab {
	struct bpf_map map;
	struct bucket *buckets;
	u32 n_buckets;		/* power of two */
	u32 hashrnd;		/* seed */
	u32 key_round;		/* key_size rounded up to 8: the value's offset in data */
	u32 value_round;	/* value_size rounded up to 8: one CPU's copy (per CPU) */
	bool percpu;
	bool lru;
	bool fd_values;		/* hash of maps: values are struct bpf_map pointers */
	struct lru lists;	/* LRU: the lists every element is on */
	u32 elem_size;
	bool prealloc;
	u32 count;		/* live elements, <= max_entries */
	spinlock_t free_lock;	/* guards free_list and next_unused */
	struct htab_elem *free_list;
	u8 *area;		/* prealloc: max_entries elements */
	u32 next_unused;	/* prealloc: area elements never handed out start here */
};

static inline struct bpf_htab *htab_of(struct bpf_map *map)
{
	return container_of(map, struct bpf_htab, map);
}

static inline void *elem_key(struct htab_elem *e)
{
	return e->data;
}

static inline void *elem_value(struct bpf_htab *h, struct htab_elem *e)
{
	return e->data + h->key_round;
}

/* Bytes of an element's value that bpf() writes whole: a map pointer in a hash of maps. */
static inline u32 value_bytes(struct bpf_htab *h)
{
	return h->fd_values ? (u32)sizeof(struct bpf_map *) : h->map.uvalue_size;
}

/* A hash of maps' inner map in e (read racily: callers check their bucket's sequence). */
static inline struct bpf_map *elem_inner(struct bpf_htab *h, struct htab_elem *e)
{
	struct bpf_map *m;

	racy_load(&m, elem_value(h, e), sizeof(m));
	return m;
}

/* The last 4-byte key this thread hashed, with its seed and hash: a program that looks a key
 * up and then updates it (the common pattern) hashes it once.  jhash() is a pure function of
 * (key, length, seed), so the memo needs no invalidation. */
struct hash_memo {
	u32 key, seed, hash;
	bool valid;
};
static __thread struct hash_memo hash_memo __attribute__((tls_model("initial-exec")));

/* The hash of the 4-byte key k.  Inlined, as htab_hash(): out of line it costs a call per
 * lookup and per update. */
static inline __attribute__((always_inline)) u32 htab_hash_k4(struct bpf_htab *h, u32 k)
{
	struct hash_memo *m = &hash_memo;

	if (!m->valid || m->key != k || m->seed != h->hashrnd) {
		m->key = k;
		m->seed = h->hashrnd;
		m->hash = jhash(&k, 4, h->hashrnd);
		m->valid = true;
	}
	return m->hash;
}

static inline __attribute__((always_inline)) u32 htab_hash(struct bpf_htab *h, const void *key)
{
	u32 k;

	if (h->map.key_size != 4)
		return jhash(key, h->map.key_size, h->hashrnd);
	memcpy(&k, key, 4);
	return htab_hash_k4(h, k);
}

static inline struct bucket *htab_bucket(struct bpf_htab *h, u32 hash)
{
	return &h->buckets[hash & (h->n_buckets - 1)];
}

/* Writers lock a bucket as registered threads: htab_update() skips the lock while its thread
 * is alone (rcu.h), and a thread's registration is what ends that. */
static inline void bucket_lock(struct bucket *b)
{
	rcu_thread_slot();
	spin_lock(&b->lock);
}

#define PCPU_MIN_UNIT_SIZE 32768u /* the kernel's bound on one CPU's copy of a value */

static int htab_alloc_check(const union bpf_attr *attr)
{
	bool lru = attr->map_type == BPF_MAP_TYPE_LRU_HASH ||
		   attr->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH;

	if (attr->map_type == BPF_MAP_TYPE_HASH_OF_MAPS && attr->value_size != 4)
		return -EINVAL; /* a map fd, in and out */
	if ((attr->map_flags & ~HTAB_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	if ((attr->map_flags & BPF_F_NO_COMMON_LRU) && !lru) /* only for LRU maps */
		return -EINVAL;
	if (lru && (attr->map_flags & BPF_F_NO_PREALLOC))
		return -ENOTSUPP;
	if ((attr->map_flags & BPF_F_NUMA_NODE) && (attr->map_flags & BPF_F_NO_COMMON_LRU))
		return -EINVAL;
	if (!attr->max_entries || !attr->key_size || !attr->value_size)
		return -EINVAL;
	/* in u64: the sum of two u32 must not wrap */
	if ((u64)attr->key_size + attr->value_size >= HTAB_KV_MAX)
		return -E2BIG;
	if (attr->map_type == BPF_MAP_TYPE_PERCPU_HASH ||
	    attr->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH) {
		if (attr->map_flags & BPF_F_NUMA_NODE) /* per-CPU memory has no node */
			return -EINVAL;
		if (round_up(attr->value_size, 8) > PCPU_MIN_UNIT_SIZE)
			return -E2BIG;
	}
	return 0;
}

static bool lru_evict(void *arg, u32 i);

static int htab_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct bpf_htab *h;
	u32 max_entries = attr->max_entries;

	if (attr->map_flags & BPF_F_NO_COMMON_LRU) {
		/* each CPU's lists get the same number of elements, one at least */
		u32 n = map_possible_cpus(), up = (u32)(((u64)max_entries + n - 1) / n * n);

		max_entries = (u64)up >= max_entries && up ? up : max_entries / n * n;
	}
	/* roundup_pow_of_two() must not overflow, and the kernel's bucket array (16-byte
	 * buckets) must fit in a u32 size: both are E2BIG there. */
	if (max_entries > 1u << 31 || roundup_pow_of_two(max_entries) > UINT32_MAX / 16)
		return -E2BIG;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.max_entries = max_entries;
	h->n_buckets = roundup_pow_of_two(max_entries);
	h->key_round = round_up(attr->key_size, 8);
	h->value_round = round_up(attr->value_size, 8);
	h->percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_HASH ||
		    attr->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	h->lru = attr->map_type == BPF_MAP_TYPE_LRU_HASH ||
		 attr->map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	/* (a map pointer fits in the 8 bytes a 4-byte value is rounded to) */
	h->fd_values = attr->map_type == BPF_MAP_TYPE_HASH_OF_MAPS;
	h->elem_size = sizeof(struct htab_elem) + h->key_round +
		       h->value_round * (h->percpu ? map_possible_cpus() : 1);
	h->prealloc = !(attr->map_flags & BPF_F_NO_PREALLOC);
	h->buckets = calloc(h->n_buckets, sizeof(*h->buckets));
	if (!h->buckets)
		goto free_htab;
	if (h->prealloc) {
		/* size_t: on i386 the product may not fit; calloc checks the multiplication */
		h->area = calloc(max_entries, h->elem_size);
		if (!h->area)
			goto free_buckets;
		/* (the string kfuncs then read values there without a system call) */
		if (value_ranges_add((uintptr_t)h->area, (size_t)max_entries * h->elem_size)) {
			free(h->area);
			goto free_buckets;
		}
	}
	if (h->lru) {
		/* every element is the lists' to hand out */
		h->next_unused = max_entries;
		if (lru_init(&h->lists, max_entries, map_possible_cpus(),
			     attr->map_flags & BPF_F_NO_COMMON_LRU,
			     h->area + offsetof(struct htab_elem, ref), h->elem_size, lru_evict,
			     h))
			goto free_area;
	}
	if (attr->map_flags & BPF_F_ZERO_SEED)
		h->hashrnd = 0;
	else if (getrandom(&h->hashrnd, sizeof(h->hashrnd), GRND_NONBLOCK) != sizeof(h->hashrnd))
		h->hashrnd = (u32)(uintptr_t)h ^ 0x9e3779b9u; /* no entropy yet: still per map */
	*out = &h->map;
	return 0;

free_area:
	if (h->prealloc)
		value_ranges_del((uintptr_t)h->area);
	free(h->area);
free_buckets:
	free(h->buckets);
free_htab:
	free(h);
	return -ENOMEM;
}

static void elem_empty_kptrs(struct bpf_htab *h, struct htab_elem *e);

static void htab_free(struct bpf_map *map)
{
	struct bpf_htab *h = htab_of(map);

	if (map->nr_kptrs) /* (the live elements' references) */
		for (u32 i = 0; i < h->n_buckets; i++)
			for (struct htab_elem *e = h->buckets[i].head; e; e = e->next)
				elem_empty_kptrs(h, e);
	if (h->fd_values) /* the inner maps of the live elements (no reader is left) */
		for (u32 i = 0; i < h->n_buckets; i++)
			for (struct htab_elem *e = h->buckets[i].head; e; e = e->next)
				obj_put(&elem_inner(h, e)->obj);
	if (!h->prealloc) {
		/* every element is in a chain or on the free list */
		for (u32 i = 0; i < h->n_buckets; i++)
			for (struct htab_elem *e = h->buckets[i].head, *n; e; e = n) {
				n = e->next;
				free(e);
			}
		for (struct htab_elem *e = h->free_list, *n; e; e = n) {
			n = e->next;
			free(e);
		}
	}
	if (h->lru)
		lru_destroy(&h->lists);
	if (h->prealloc)
		value_ranges_del((uintptr_t)h->area);
	free(h->area);
	free(h->buckets);
	free(h);
}

/* Takes an element for a new key, or NULL with *err = -E2BIG (full) / -ENOMEM. */
static struct htab_elem *elem_alloc(struct bpf_htab *h, int *err)
{
	struct htab_elem *e = NULL;

	if (__atomic_add_fetch(&h->count, 1, __ATOMIC_RELAXED) > h->map.max_entries) {
		__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
		*err = -E2BIG;
		return NULL;
	}
	spin_lock(&h->free_lock);
	if (h->free_list) {
		e = h->free_list;
		h->free_list = e->next;
	} else if (h->prealloc) {
		/* count <= max_entries guarantees an unused element is left; atomic, as
		 * LRU eviction reads it without the lock */
		u32 i = __atomic_load_n(&h->next_unused, __ATOMIC_RELAXED);

		e = (struct htab_elem *)(h->area + (size_t)i * h->elem_size);
		__atomic_store_n(&h->next_unused, i + 1, __ATOMIC_RELAXED);
	}
	spin_unlock(&h->free_lock);
	if (!e && !(e = calloc(1, h->elem_size))) {
		__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
		*err = -ENOMEM;
	}
	return e;
}

/* What an element that leaves the map (deleted, evicted, the map's end) held in its kptrs is
 * dropped: every CPU's copy's. */
static void elem_empty_kptrs(struct bpf_htab *h, struct htab_elem *e)
{
	u8 *v = elem_value(h, e);

	for (u32 c = 0, n = h->percpu ? map_possible_cpus() : 1; c < n; c++)
		map_empty_kptrs(&h->map, v + (size_t)c * h->value_round);
}

/* An element leaves the map (deleted, evicted): its timer and kptrs go with it.  (Counted out
 * only once it is on the free list: elem_alloc() counts on finding one.) */
static void elem_free(struct bpf_htab *h, struct htab_elem *e)
{
	if (map_has_async(&h->map))
		bpf_timer_free(&h->map, elem_value(h, e));
	if (h->map.nr_kptrs)
		elem_empty_kptrs(h, e);
	spin_lock(&h->free_lock);
	/* atomic: a lock-free reader that was walking through e may still load its next */
	__atomic_store_n(&e->next, h->free_list, __ATOMIC_RELAXED);
	h->free_list = e;
	spin_unlock(&h->free_lock);
	__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
}

/* Writers only (bucket locked): the element with key, and the link that points at it. */
static struct htab_elem *chain_find(struct bpf_htab *h, struct bucket *b, u32 hash,
				    const void *key, struct htab_elem ***link)
{
	struct htab_elem **pp = &b->head, *e;

	for (; (e = *pp); pp = &e->next)
		/* racy_equal: an inline compare (one for 4-byte keys), where memcmp is a call */
		if (e->hash == hash && racy_equal(elem_key(e), key, h->map.key_size)) {
			if (link)
				*link = pp;
			return e;
		}
	return NULL;
}

/* Readers: the walk is bounded because a racing writer can briefly make it wander (an element
 * deleted under us may be reused in another chain); the sequence check then forces a retry. */
#define WALK_LIMIT(h) ((h)->map.max_entries + 1)

/* The element with key in bucket b, walking without the lock; NULL if none.  Only meaningful if
 * the caller's sequence check then passes (a racing writer can make the walk wander). */
static inline __attribute__((always_inline)) struct htab_elem *
chain_walk_n(struct bpf_htab *h, struct bucket *b, u32 hash, const void *key, u32 key_size)
{
	struct htab_elem *e = __atomic_load_n(&b->head, __ATOMIC_RELAXED);

	for (u32 steps = 0; e && steps < WALK_LIMIT(h); steps++) {
		if (READ_ONCE(e->hash) == hash && racy_equal(elem_key(e), key, key_size))
			return e;
		e = __atomic_load_n(&e->next, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The walk for the map's key size (chain_walk_n() with a constant size inlines its compare). */
#define chain_walk(h, b, hash, key) chain_walk_n(h, b, hash, key, (h)->map.key_size)

/* Copies the first n bytes of key's value into dst, consistently (retrying while a writer
 * changed the bucket); whether key was there. */
static inline __attribute__((always_inline)) bool htab_read(struct bpf_htab *h, const void *key,
							    void *dst, u32 n)
{
	u32 hash = htab_hash(h, key);
	struct bucket *b = htab_bucket(h, hash);

	for (;;) {
		u32 seq = seq_read_begin(&b->seq);
		struct htab_elem *e = chain_walk(h, b, hash, key);

		if (e)
			racy_load(dst, elem_value(h, e), n);
		if (!seq_read_retry(&b->seq, seq))
			return e != NULL;
	}
}

static int htab_lookup(struct bpf_map *map, const void *key, void *value)
{
	return htab_read(htab_of(map), key, value, map->uvalue_size) ? 0 : -ENOENT;
}

/* htab_lookup_ptr() for a 4-byte key, the programs' usual lookup: in a function of its own, it
 * saves one register where the general walk (lookup_ptr_any()) saves four. */
static __attribute__((noinline)) void *lookup_ptr_k4(struct bpf_htab *h, const void *key)
{
	u32 k, hash;
	struct bucket *b;

	memcpy(&k, key, 4);
	hash = htab_hash_k4(h, k);
	b = htab_bucket(h, hash);
	for (;;) {
		u32 seq = seq_read_begin(&b->seq);
		struct htab_elem *e = chain_walk_n(h, b, hash, &k, 4);

		if (!seq_read_retry(&b->seq, seq))
			return e ? elem_value(h, e) : NULL;
	}
}

static __attribute__((noinline)) void *lookup_ptr_any(struct bpf_htab *h, const void *key)
{
	u32 hash = htab_hash(h, key);
	struct bucket *b = htab_bucket(h, hash);

	for (;;) {
		u32 seq = seq_read_begin(&b->seq);
		struct htab_elem *e = chain_walk(h, b, hash, key);

		if (!seq_read_retry(&b->seq, seq))
			return e ? elem_value(h, e) : NULL;
	}
}

/* A tail jump to one of the two: the walks keep their registers to themselves. */
static void *htab_lookup_ptr(struct bpf_map *map, const void *key)
{
	return map->key_size == 4 ? lookup_ptr_k4(htab_of(map), key)
				  : lookup_ptr_any(htab_of(map), key);
}

static void *percpu_htab_lookup_ptr(struct bpf_map *map, const void *key)
{
	u8 *v = htab_lookup_ptr(map, key);

	return v ? v + (size_t)map_this_cpu() * htab_of(map)->value_round : NULL;
}

static void *percpu_htab_lookup_percpu_ptr(struct bpf_map *map, const void *key, u32 cpu)
{
	u8 *v;

	if (cpu >= map_possible_cpus())
		return NULL;
	v = htab_lookup_ptr(map, key);
	return v ? v + (size_t)cpu * htab_of(map)->value_round : NULL;
}

/* A program's lookup marks the element referenced (written only when it was not: the mark is a
 * hint, and a cache line nobody else writes stays shared). */
static void *lru_htab_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct bpf_htab *h = htab_of(map);
	u8 *v = htab_lookup_ptr(map, key);

	if (v) {
		struct htab_elem *e = (struct htab_elem *)(v - h->key_round -
							   offsetof(struct htab_elem, data));

		if (!__atomic_load_n(&e->ref, __ATOMIC_RELAXED))
			__atomic_store_n(&e->ref, 1, __ATOMIC_RELAXED);
		if (h->percpu)
			v += (size_t)map_this_cpu() * h->value_round;
	}
	return v;
}

/* Stores value into e's value: every CPU's copy from bpf() (cpu < 0), or CPU cpu's from a
 * program, the other copies zeroed when e is new.  Plain maps: the one value. */
static inline __attribute__((always_inline)) void
store_value(struct bpf_htab *h, struct htab_elem *e, const void *value, int cpu, bool fresh)
{
	u8 *v = elem_value(h, e);

	if (cpu < 0 && map_has_specials(&h->map)) { /* around the lock and timer (free in a new
						       * element: a deleted one's timer went) */
		if (h->percpu) { /* (kptrs only: each CPU's copy around them, then emptied) */
			for (u32 c = 0, n = map_possible_cpus(); c < n; c++) {
				map_copy_around_lock(&h->map, v + (size_t)c * h->value_round,
						     (const u8 *)value + (size_t)c * h->value_round,
						     racy_store);
				map_empty_kptrs(&h->map, v + (size_t)c * h->value_round);
			}
			return;
		}
		map_copy_around_lock(&h->map, v, value, racy_store);
		if (fresh && h->map.spin_lock_off >= 0)
			__atomic_store_n(map_value_lock(&h->map, v), 0, __ATOMIC_RELAXED);
		map_empty_kptrs(&h->map, v);
		return;
	}
	if (cpu < 0) {
		racy_store(v, value, value_bytes(h));
		return;
	}
	if (fresh)
		for (u32 c = 0, n = map_possible_cpus(); c < n; c++)
			if (c != (u32)cpu)
				memset(v + (size_t)c * h->value_round, 0, h->value_round);
	if (h->map.nr_kptrs) { /* (the program's CPU's copy: around its kptrs, then emptied) */
		map_copy_around_lock(&h->map, v + (size_t)cpu * h->value_round, value, racy_store);
		map_empty_kptrs(&h->map, v + (size_t)cpu * h->value_round);
		return;
	}
	racy_store(v + (size_t)cpu * h->value_round, value, h->map.value_size);
}

/* e at the head of bucket b's chain (b locked, its counter odd). */
static inline void chain_push(struct bucket *b, struct htab_elem *e)
{
	__atomic_store_n(&e->next, b->head, __ATOMIC_RELAXED);
	__atomic_store_n(&b->head, e, __ATOMIC_RELAXED);
}

/* e, which *link points at, moved to the head (the same conditions). */
static inline void chain_move_to_head(struct bucket *b, struct htab_elem **link,
				      struct htab_elem *e)
{
	__atomic_store_n(link, e->next, __ATOMIC_RELAXED);
	chain_push(b, e);
}

/* Unlinks e from bucket b if it is still live there (b locked).  Returns whether it did. */
static bool chain_unlink(struct bucket *b, struct htab_elem *e)
{
	for (struct htab_elem **pp = &b->head; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			seq_write_begin(&b->seq);
			__atomic_store_n(pp, e->next, __ATOMIC_RELAXED);
			seq_write_end(&b->seq);
			__atomic_store_n(&e->live, 0, __ATOMIC_RELAXED);
			return true;
		}
	return false;
}

/* Area element i of an LRU map (every element of one is in the area). */
static struct htab_elem *area_elem(struct bpf_htab *h, u32 i)
{
	return (struct htab_elem *)(h->area + (size_t)i * h->elem_size);
}

static u32 area_index(struct bpf_htab *h, struct htab_elem *e)
{
	return (u32)(((u8 *)e - h->area) / h->elem_size);
}

/* What an LRU map's element that leaves the map gives up: its timer, its kptrs, its place in
 * the count (which nothing allocates by: the lists do). */
static void lru_elem_release(struct bpf_htab *h, struct htab_elem *e)
{
	if (map_has_async(&h->map))
		bpf_timer_free(&h->map, elem_value(h, e));
	if (h->map.nr_kptrs)
		elem_empty_kptrs(h, e);
	__atomic_sub_fetch(&h->count, 1, __ATOMIC_RELAXED);
}

/* The lists' eviction (lru_evict_fn): element i out of its bucket, if it is still in one. */
static bool lru_evict(void *arg, u32 i)
{
	struct bpf_htab *h = arg;
	struct htab_elem *e = area_elem(h, i);
	struct bucket *b = htab_bucket(h, __atomic_load_n(&e->hash, __ATOMIC_RELAXED));
	bool gone;

	bucket_lock(b);
	gone = chain_unlink(b, e);
	if (gone)
		lru_elem_release(h, e);
	spin_unlock(&b->lock);
	return gone;
}

/* An LRU map's element back to the lists (no bucket lock held: the lists' lock comes first). */
static void lru_elem_free(struct bpf_htab *h, struct htab_elem *e)
{
	lru_elem_release(h, e);
	lru_push_free(&h->lists, area_index(h, e));
}

/* The kernel's LRU update: a fresh element first (which may evict), then under the bucket's
 * lock the flags' check and the link; the element replaced, or the fresh one on an error, goes
 * back after.  cpu as for store_value(); a per-CPU map's present element is updated in place
 * (and takes no fresh one with BPF_EXIST). */
static int lru_update(struct bpf_htab *h, const void *key, const void *value, u64 flags, int cpu)
{
	u32 hash = htab_hash(h, key);
	struct bucket *b = htab_bucket(h, hash);
	struct htab_elem *e = NULL, *old, **link;
	int err = 0;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (!h->percpu || flags != BPF_EXIST) {
		s64 i = lru_pop_free(&h->lists);

		if (i < 0)
			return -ENOMEM;
		e = area_elem(h, (u32)i);
		__atomic_add_fetch(&h->count, 1, __ATOMIC_RELAXED);
		/* A reader of another bucket may still be looking at this reused element: atomic
		 * stores.  Its own bucket's counter, bumped when it was unlinked, makes that reader
		 * retry. */
		__atomic_store_n(&e->hash, hash, __ATOMIC_RELAXED);
		racy_store(elem_key(e), key, h->map.key_size);
		if (!h->percpu)
			store_value(h, e, value, cpu, true);
	}
	bucket_lock(b);
	old = chain_find(h, b, hash, key, &link);
	if (old && flags == BPF_NOEXIST)
		err = -EEXIST;
	else if (!old && flags == BPF_EXIST)
		err = -ENOENT;
	else if (old && h->percpu) {
		__atomic_store_n(&old->ref, 1, __ATOMIC_RELAXED);
		seq_write_begin(&b->seq);
		store_value(h, old, value, cpu, false);
		seq_write_end(&b->seq);
		old = NULL; /* stays; e, if taken, goes back */
	} else {
		if (h->percpu)
			store_value(h, e, value, cpu, true);
		seq_write_begin(&b->seq);
		__atomic_store_n(&e->live, 1, __ATOMIC_RELAXED);
		chain_push(b, e);
		if (old) {
			/* the new element comes first in the chain, so the walk from link finds
			 * the old one after it */
			__atomic_store_n(&e->ref, 1, __ATOMIC_RELAXED);
			if (link == &b->head)
				link = &e->next;
			__atomic_store_n(link, old->next, __ATOMIC_RELAXED);
			__atomic_store_n(&old->live, 0, __ATOMIC_RELAXED);
		}
		seq_write_end(&b->seq);
		e = NULL;
	}
	spin_unlock(&b->lock);
	if (e)
		lru_elem_free(h, e);
	if (old && !err)
		lru_elem_free(h, old);
	return err;
}

/* cpu: -1 for bpf() (every CPU's copy of a per-CPU value), else a program's CPU.  Out of line:
 * inlined into htab_update() it would make the fast path save every register it uses. */
static __attribute__((noinline)) int htab_update_common(struct bpf_map *map, const void *key,
							const void *value, u64 flags, int cpu,
							void *old)
{
	struct bpf_htab *h = htab_of(map);
	u32 hash = htab_hash(h, key);
	struct bucket *b = htab_bucket(h, hash);
	struct htab_elem *e, **link;
	int err = 0;

	if ((flags & ~BPF_F_LOCK) > BPF_EXIST)
		return -EINVAL;
	if (flags & BPF_F_LOCK) {
		void *v;

		if (map->spin_lock_off < 0)
			return -EINVAL;
		/* an element that is there is updated in place under its lock (the bucket's
		 * is not needed); else it is inserted as without the flag */
		v = htab_lookup_ptr(map, key);
		if (v) {
			if (flags & BPF_NOEXIST)
				return -EEXIST;
			map_update_locked(map, v, value);
			return 0;
		}
		flags &= ~BPF_F_LOCK;
	}
	bucket_lock(b);
	e = chain_find(h, b, hash, key, &link);
	if (e && flags == BPF_NOEXIST) {
		err = -EEXIST;
		goto unlock;
	}
	if (!e && flags == BPF_EXIST) {
		err = -ENOENT;
		goto unlock;
	}
	if (e) {
		/* In place; a plain map's element also goes to the head of the chain, like the
		 * kernel's replace (a per-CPU one is updated where it is, as there). */
		if (old)
			memcpy(old, elem_value(h, e), value_bytes(h));
		seq_write_begin(&b->seq);
		store_value(h, e, value, cpu, false);
		if (map_has_async(map)) /* a replaced value's timer goes, as in the kernel */
			bpf_timer_free(map, elem_value(h, e));
		if (!h->percpu && link != &b->head)
			chain_move_to_head(b, link, e);
		seq_write_end(&b->seq);
		goto unlock;
	}
	e = elem_alloc(h, &err);
	if (!e)
		goto unlock;
	seq_write_begin(&b->seq);
	__atomic_store_n(&e->live, 1, __ATOMIC_RELAXED);
	/* A reader of another bucket may still be looking at this reused element: atomic stores.
	 * Its own bucket's counter, bumped when it was deleted, makes that reader retry. */
	__atomic_store_n(&e->hash, hash, __ATOMIC_RELAXED);
	racy_store(elem_key(e), key, map->key_size);
	store_value(h, e, value, cpu, true);
	chain_push(b, e);
	seq_write_end(&b->seq);
unlock:
	spin_unlock(&b->lock);
	return err;
}

/* The common update, a present key of a map that is not per CPU (flags BPF_ANY or BPF_EXIST),
 * in a small function: the value replaced in place and the element moved to its chain's head,
 * as htab_update_common() does it.  Anything else (an insert, a flags error, per-CPU copies)
 * goes there; a key inserted meanwhile by another writer is found there. */
static int htab_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct bpf_htab *h = htab_of(map);

	if (h->lru)
		return lru_update(h, key, value, flags, -1);
	if (!h->percpu && flags <= BPF_EXIST && flags != BPF_NOEXIST && !map_has_specials(map)) {
		u32 hash = htab_hash(h, key);
		struct bucket *b = htab_bucket(h, hash);
		struct htab_elem *e, **link;
		struct rcu_slot *me = rcu_thread_slot();
		/* alone: no other thread is in userbpf, none can come in before the window
		 * closes, so the bucket's lock (an atomic exchange: a third of this call) can
		 * be left alone */
		bool alone = rcu_skip_begin(me);

		if (!alone)
			spin_lock(&b->lock);
		e = chain_find(h, b, hash, key, &link);
		if (e && link == &b->head && single_access(map->value_size)) {
			/* Nothing for a reader to retry on: the chain stays as it is, and the
			 * value changes in one store, so any read sees all of the old value or
			 * all of the new. */
			racy_store(elem_value(h, e), value, map->value_size);
		} else if (e) {
			seq_write_begin(&b->seq);
			racy_store(elem_value(h, e), value, map->value_size);
			if (link != &b->head)
				chain_move_to_head(b, link, e);
			seq_write_end(&b->seq);
		}
		if (alone)
			rcu_skip_end(me);
		else
			spin_unlock(&b->lock);
		if (e)
			return 0;
	}
	return htab_update_common(map, key, value, flags, -1, NULL);
}

static int percpu_htab_prog_update(struct bpf_map *map, const void *key, const void *value,
				   u64 flags)
{
	if (htab_of(map)->lru)
		return lru_update(htab_of(map), key, value, flags, (int)map_this_cpu());
	return htab_update_common(map, key, value, flags, (int)map_this_cpu(), NULL);
}

/* Unlinks key; copies its value out first when value is not NULL. */
static int htab_remove(struct bpf_htab *h, const void *key, void *value, u64 flags)
{
	u32 hash = htab_hash(h, key);
	struct bucket *b = htab_bucket(h, hash);
	struct htab_elem *e, **link;

	bucket_lock(b);
	e = chain_find(h, b, hash, key, &link);
	if (!e) {
		spin_unlock(&b->lock);
		return -ENOENT;
	}
	if (value && (flags & BPF_F_LOCK))
		map_read_locked(&h->map, value, elem_value(h, e));
	else if (value)
		memcpy(value, elem_value(h, e), value_bytes(h));
	seq_write_begin(&b->seq);
	__atomic_store_n(link, e->next, __ATOMIC_RELAXED);
	seq_write_end(&b->seq);
	__atomic_store_n(&e->live, 0, __ATOMIC_RELAXED);
	if (h->lru) { /* after the unlock: the lists' lock comes first */
		spin_unlock(&b->lock);
		lru_elem_free(h, e);
		return 0;
	}
	/* Freed before the unlock, as the kernel does: a full map must take the key back at
	 * once, not fail (E2BIG) for whoever inserts it next while its slot is still counted. */
	elem_free(h, e);
	spin_unlock(&b->lock);
	return 0;
}

static int htab_delete(struct bpf_map *map, const void *key)
{
	return htab_remove(htab_of(map), key, NULL, 0);
}

static int htab_lookup_and_delete(struct bpf_map *map, const void *key, void *value, u64 flags)
{
	int err = htab_remove(htab_of(map), key, value, flags);

	if (!err)
		map_hide_lock(map, value);
	return err;
}

/* Copies the key of the first element of bucket i into next_key.  Returns whether there was one. */
static bool bucket_first_key(struct bpf_htab *h, u32 i, void *next_key)
{
	struct bucket *b = &h->buckets[i];

	for (;;) {
		u32 seq = seq_read_begin(&b->seq);
		struct htab_elem *e = __atomic_load_n(&b->head, __ATOMIC_RELAXED);

		if (e)
			racy_load(next_key, elem_key(e), h->map.key_size);
		if (!seq_read_retry(&b->seq, seq))
			return e != NULL;
	}
}

static int htab_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	struct bpf_htab *h = htab_of(map);
	u32 i = 0, ks = map->key_size;

	if (key) {
		u32 hash = htab_hash(h, key);
		struct bucket *b = htab_bucket(h, hash);

		for (;;) {
			u32 seq = seq_read_begin(&b->seq), steps = 0;
			struct htab_elem *e = __atomic_load_n(&b->head, __ATOMIC_RELAXED), *n = NULL;
			bool found = false;

			for (; e && steps < WALK_LIMIT(h); steps++) {
				if (READ_ONCE(e->hash) == hash && racy_equal(elem_key(e), key, ks)) {
					found = true;
					n = __atomic_load_n(&e->next, __ATOMIC_RELAXED);
					if (n)
						racy_load(next_key, elem_key(n), ks);
					break;
				}
				e = __atomic_load_n(&e->next, __ATOMIC_RELAXED);
			}
			if (seq_read_retry(&b->seq, seq))
				continue;
			if (n)
				return 0;
			/* Not found: start over from the first key, as the kernel does.  Found
			 * last in its chain: go on with the next bucket. */
			i = found ? (hash & (h->n_buckets - 1)) + 1 : 0;
			break;
		}
	}
	for (; i < h->n_buckets; i++)
		if (bucket_first_key(h, i, next_key))
			return 0;
	return -ENOENT;
}

/* The elements of bucket b, copied into *elems (a buffer of *cap, replaced by a larger malloc'ed
 * one when the chain is longer; local is the caller's own, not to be freed), without the lock:
 * retried while a writer changes the chain.  Returns how many, or -1 without memory. */
static s64 bucket_snapshot(struct bpf_htab *h, struct bucket *b, struct htab_elem ***elems,
			   u32 *cap, struct htab_elem **local)
{
	for (;;) {
		u32 seq = seq_read_begin(&b->seq), n;
		struct htab_elem *e = __atomic_load_n(&b->head, __ATOMIC_RELAXED), **more;

		for (n = 0; e && n < WALK_LIMIT(h); n++) {
			if (n < *cap)
				(*elems)[n] = e;
			e = __atomic_load_n(&e->next, __ATOMIC_RELAXED);
		}
		if (seq_read_retry(&b->seq, seq))
			continue;
		if (n <= *cap)
			return n;
		more = malloc((size_t)n * sizeof(*more));
		if (!more)
			return -1;
		if (*elems != local)
			free(*elems);
		*elems = more;
		*cap = n;
	}
}

/* bpf_for_each_map_elem() (see the top of the file): callback(map, key, value, ctx, 0), the key
 * and value the element's (per CPU: this CPU's copy, chosen once). */
static s64 htab_for_each(struct bpf_map *map, u64 callback, void *ctx)
{
	struct bpf_htab *h = htab_of(map);
	struct htab_elem *local[32], **elems = local;
	size_t cpu_off = h->percpu ? (size_t)map_this_cpu() * h->value_round : 0;
	u32 cap = ARRAY_SIZE(local);
	s64 calls = 0;

	for (u32 i = 0; i < h->n_buckets; i++) {
		struct bucket *b = &h->buckets[i];
		/* (out of memory for a pathologically long chain: stop there) */
		s64 n = bucket_snapshot(h, b, &elems, &cap, local);

		if (n < 0)
			break;
		for (s64 j = 0; j < n; j++) {
			struct htab_elem *e = elems[j];

			/* deleted meanwhile (perhaps reused, for a key of another bucket) */
			if (!__atomic_load_n(&e->live, __ATOMIC_RELAXED) ||
			    htab_bucket(h, __atomic_load_n(&e->hash, __ATOMIC_RELAXED)) != b)
				continue;
			calls++;
			if (exec_callback_call(callback, (uintptr_t)map, (uintptr_t)elem_key(e),
					       (uintptr_t)((u8 *)elem_value(h, e) + cpu_off),
					       (uintptr_t)ctx, 0))
				goto out;
		}
	}
out:
	if (elems != local)
		free(elems);
	return calls;
}

/* The kernel's bucket-at-a-time batch: in_batch/out_batch hold a bucket index; a bucket is
 * returned whole or not at all (ENOSPC if the first one does not fit); ENOENT after the last. */
static int htab_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr,
		      bool do_delete)
{
	struct bpf_htab *h = htab_of(map);
	u8 *ukeys = u64_to_ptr(attr->batch.keys), *uvalues = u64_to_ptr(attr->batch.values);
	void *in = u64_to_ptr(attr->batch.in_batch), *out = u64_to_ptr(attr->batch.out_batch);
	u32 ks = map->key_size, vs = map->uvalue_size, max = attr->batch.count;
	u32 batch = 0, total = 0, cap = 0, zero = 0;
	u8 *keys = NULL, *values = NULL;
	int ret = 0;

	ret = map_check_lock_flag(map, attr->batch.elem_flags);
	if (ret || attr->batch.flags)
		return ret ? ret : -EINVAL;
	if (!max)
		return 0;
	memcpy(&uattr->batch.count, &zero, sizeof(zero));
	if (attr->batch.in_batch) {
		if (!in)
			return -EFAULT;
		memcpy(&batch, in, sizeof(batch));
	}
	if (batch >= h->n_buckets)
		return -ENOENT;

	for (;;) {
		struct bucket *b = &h->buckets[batch];
		struct htab_elem *e, *dead = NULL;
		u32 cnt = 0;

		bucket_lock(b);
		for (e = b->head; e; e = e->next)
			cnt++;
		if (cnt > max - total) {
			spin_unlock(&b->lock);
			if (total == 0)
				ret = -ENOSPC;
			break;
		}
		if (cnt > cap) {
			u8 *k = realloc(keys, (size_t)cnt * ks), *v;

			if (k)
				keys = k;
			v = k ? realloc(values, (size_t)cnt * vs) : NULL;
			if (v)
				values = v;
			if (!k || !v) {
				spin_unlock(&b->lock);
				ret = -ENOMEM;
				goto out;
			}
			cap = cnt;
		}
		cnt = 0;
		for (e = b->head; e; e = e->next, cnt++) {
			memcpy(keys + (size_t)cnt * ks, elem_key(e), ks);
			if (h->fd_values) /* an inner map: its id */
				memcpy(values + (size_t)cnt * vs, &elem_inner(h, e)->obj.id, vs);
			else if (attr->batch.elem_flags) /* BPF_F_LOCK */
				map_read_locked(map, values + (size_t)cnt * vs, elem_value(h, e));
			else
				memcpy(values + (size_t)cnt * vs, elem_value(h, e), vs);
			map_hide_lock(map, values + (size_t)cnt * vs);
		}
		if (do_delete && cnt) {
			seq_write_begin(&b->seq);
			dead = b->head;
			__atomic_store_n(&b->head, NULL, __ATOMIC_RELAXED);
			seq_write_end(&b->seq);
			for (e = dead; e; e = e->next)
				__atomic_store_n(&e->live, 0, __ATOMIC_RELAXED);
		}
		spin_unlock(&b->lock);
		if (h->lru) { /* last of the chain first, as the kernel gives them back */
			struct htab_elem *rev = NULL;

			while (dead) {
				e = dead;
				dead = e->next;
				__atomic_store_n(&e->next, rev, __ATOMIC_RELAXED);
				rev = e;
			}
			dead = rev;
		}
		while (dead) {
			e = dead;
			dead = e->next;
			if (h->fd_values)
				obj_put_deferred(&elem_inner(h, e)->obj);
			if (h->lru)
				lru_elem_free(h, e);
			else
				elem_free(h, e);
		}
		if (cnt) {
			if (!ukeys || !uvalues) {
				ret = -EFAULT;
				goto out;
			}
			memcpy(ukeys + (size_t)total * ks, keys, (size_t)cnt * ks);
			memcpy(uvalues + (size_t)total * vs, values, (size_t)cnt * vs);
		}
		total += cnt;
		if (++batch >= h->n_buckets) {
			ret = -ENOENT;
			break;
		}
	}
	/* The kernel writes the token first and the count only if that worked. */
	if (!out) {
		ret = -EFAULT;
	} else {
		memcpy(out, &batch, sizeof(batch));
		memcpy(&uattr->batch.count, &total, sizeof(total));
	}
out:
	free(keys);
	free(values);
	return ret;
}

static int htab_lookup_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr)
{
	return htab_batch(map, attr, uattr, false);
}

static int htab_lookup_and_delete_batch(struct bpf_map *map, union bpf_attr *attr,
					union bpf_attr *uattr)
{
	return htab_batch(map, attr, uattr, true);
}

/* BTF: a hash needs a key type (what the generic check lets through without one). */
static int htab_check_btf(const struct bpf_map *map, const struct btf *btf,
			  const struct btf_type *key_type, const struct btf_type *value_type)
{
	return key_type ? 0 : -EINVAL;
}

/* Every live element's timer (the map's last fd or pin went). */
static void htab_free_timers(struct bpf_map *map)
{
	struct bpf_htab *h = htab_of(map);

	for (u32 i = 0; i < h->n_buckets; i++) {
		struct bucket *b = &h->buckets[i];

		bucket_lock(b);
		for (struct htab_elem *e = b->head; e; e = e->next)
			bpf_timer_free(map, elem_value(h, e));
		spin_unlock(&b->lock);
	}
}

/* What all four types share; they differ in what a program's lookup and update do. */
/* The live elements (bpf_map_sum_elem_count(): the kernel counts a hash map's inserts and
 * deletes). */
static s64 htab_elem_count(struct bpf_map *map)
{
	return __atomic_load_n(&htab_of(map)->count, __ATOMIC_RELAXED);
}

#define HTAB_OPS                                                                                 \
	.alloc_check = htab_alloc_check, .alloc = htab_alloc, .free = htab_free,                 \
	.lookup = htab_lookup, .update = htab_update, .delete = htab_delete,                     \
	.get_next_key = htab_get_next_key, .lookup_and_delete = htab_lookup_and_delete,          \
	.lookup_batch = htab_lookup_batch, .lookup_and_delete_batch = htab_lookup_and_delete_batch, \
	.update_batch = generic_map_update_batch, .delete_batch = generic_map_delete_batch,      \
	.check_btf = htab_check_btf, .for_each = htab_for_each, .free_timers = htab_free_timers, \
	.elem_count = htab_elem_count

const struct bpf_map_ops htab_map_ops = {
	HTAB_OPS,
	.lookup_ptr = htab_lookup_ptr,
};

const struct bpf_map_ops percpu_htab_map_ops = {
	HTAB_OPS,
	.lookup_ptr = percpu_htab_lookup_ptr,
	.lookup_percpu_ptr = percpu_htab_lookup_percpu_ptr,
	.prog_update = percpu_htab_prog_update,
	.percpu = true,
};

const struct bpf_map_ops lru_htab_map_ops = {
	HTAB_OPS,
	.lookup_ptr = lru_htab_lookup_ptr,
};

/* ---- hash of maps ---- */

/* A program's lookup: the inner map itself, or NULL. */
static void *htab_of_maps_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct bpf_map *m;

	return htab_read(htab_of(map), key, &m, sizeof(m)) ? m : NULL;
}

/* bpf(): the inner map's id.  (A map replaced meanwhile is still there: its put waits for
 * the command's read section to end.) */
static int htab_of_maps_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct bpf_map *m = htab_of_maps_lookup_ptr(map, key);

	if (!m)
		return -ENOENT;
	memcpy(value, &m->obj.id, sizeof(m->obj.id));
	return 0;
}

/* The fd is resolved first, then the hash map's flags rules apply (the kernel's order). */
static int htab_of_maps_update(struct bpf_map *map, const void *key, const void *value,
			       u64 flags)
{
	struct bpf_map *m, *old = NULL;
	int err;

	m = map_in_map_get(map, value, &err);
	if (!m)
		return err;
	err = htab_update_common(map, key, &m, flags, -1, &old);
	if (err)
		obj_put_deferred(&m->obj);
	if (old)
		obj_put_deferred(&old->obj);
	return err;
}

static int htab_of_maps_delete(struct bpf_map *map, const void *key)
{
	struct bpf_map *old;
	int err = htab_remove(htab_of(map), key, &old, 0);

	if (!err)
		obj_put_deferred(&old->obj);
	return err;
}

const struct bpf_map_ops htab_of_maps_map_ops = {
	.alloc_check = htab_alloc_check,
	.alloc = htab_alloc,
	.free = htab_free,
	.lookup = htab_of_maps_lookup,
	.lookup_ptr = htab_of_maps_lookup_ptr,
	.update = htab_of_maps_update,
	.delete = htab_of_maps_delete,
	.get_next_key = htab_get_next_key,
	.lookup_batch = htab_lookup_batch,
	.lookup_and_delete_batch = htab_lookup_and_delete_batch,
	.update_batch = generic_map_update_batch,
	.delete_batch = generic_map_delete_batch,
	/* an inner map replaced or deleted is put after a grace period: a program that looked it
	 * up must hold a read section */
	.prog_needs_rcu = true,
	.inner_maps = true,
	.check_btf = map_check_no_btf,
};

const struct bpf_map_ops lru_percpu_htab_map_ops = {
	HTAB_OPS,
	.lookup_ptr = lru_htab_lookup_ptr,
	.lookup_percpu_ptr = percpu_htab_lookup_percpu_ptr,
	.prog_update = percpu_htab_prog_update,
	.percpu = true,
};
