/* lru.h — the LRU lists of the LRU hash maps, as the kernel keeps them (its bpf_lru_list.c), so
 * that a map evicts the keys the kernel's evicts, and as many at a time.
 *
 * Every preallocated element is a node on one list.  Common LRU (the default): one global set of
 * lists (active, inactive, free) and, per CPU, a local free list and a pending list of the
 * elements that CPU handed out since it last went to the global lists.  A CPU takes elements
 * from its local free list; when that is empty it moves its pending elements to the global
 * active (looked up since) or inactive list, rotates those lists, and takes a batch of free
 * elements (target_free of them, at most 128), evicting elements from the inactive list's tail
 * when the global free list has too few: so a full map drops up to a batch of keys at once, and
 * evictions begin before the map is full.  With no batch to be had it steals a free or pending
 * element from any CPU.  BPF_F_NO_COMMON_LRU: one set of lists per CPU, elements dealt out to
 * the CPUs at creation, a batch of 4.
 *
 * A program's lookup marks its element referenced (the element's ref byte, which the lists read
 * through ref_base); rotation gives referenced elements another round on the active list.
 * Evicting calls evict(), which unlinks the element from its bucket (under the bucket's lock,
 * taken inside the LRU lock: never the other way round).  The CPU is the caller's
 * (map_this_cpu()): a run on one CPU gives the kernel's evictions on one CPU.
 */
#ifndef USERBPF_MAP_LRU_H
#define USERBPF_MAP_LRU_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Whether it unlinked element i from the map (it may be gone already). */
typedef bool (*lru_evict_fn)(void *arg, u32 i);

struct lru_node;
struct lru_list;
struct lru_local;

struct lru {
	struct lru_node *nodes;	/* the n elements, then the lists' heads */
	struct lru_list *lists;	/* one (common) or one per CPU */
	struct lru_local *locals;	/* common: one per CPU */
	u32 n, ncpus;
	bool percpu;		/* BPF_F_NO_COMMON_LRU */
	u32 target_free;	/* the batch a CPU takes for its local free list */
	u32 nr_scans;		/* the most nodes a rotation or shrink looks at */
	u8 *ref_base;		/* element i's ref byte is ref_base[i * ref_stride] */
	size_t ref_stride;
	lru_evict_fn evict;
	void *arg;
	spinlock_t lock;	/* every list */
};

/* Lists for n elements, all free (with percpu, dealt to the CPUs in blocks of n / ncpus).
 * 0 or -ENOMEM. */
int lru_init(struct lru *l, u32 n, u32 ncpus, bool percpu, u8 *ref_base, size_t ref_stride,
	     lru_evict_fn evict, void *arg);
void lru_destroy(struct lru *l);

/* A free element for a new key, for the calling CPU (evicting as the kernel would), or -1. */
s64 lru_pop_free(struct lru *l);
/* Element i, unlinked from the map, back to its free list. */
void lru_push_free(struct lru *l, u32 i);

#endif
