/* The generic map: what every map type shares, and the ops table each type provides.
 *
 * A map type is one file under src/map/ ending in a `const struct bpf_map_ops`; map_types.h lists
 * them.  The generic layer (map.c) does everything the kernel's syscall layer does before calling
 * a type: attr checks, fd and permission checks, copying keys and values, batching where a type
 * has no batch op of its own.  Ops take and return kernel-style negative errno.
 *
 * Concurrency contract for ops: lookup, get_next_key and the batch lookups may run concurrently
 * with anything, and never take a map-wide lock; writers serialise among themselves as the type
 * sees fit.  Every op runs inside rcu_read_lock().
 */
#ifndef USERBPF_MAP_H
#define USERBPF_MAP_H

#include <errno.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include "fd.h"
#include "util.h"

struct bpf_map;
struct bpf_prog;
struct btf;
struct btf_type;

struct bpf_map_ops {
	/* Validates attr before anything is allocated (may be NULL). */
	int (*alloc_check)(const union bpf_attr *attr);
	/* Allocates the map; memfd is the fd-to-be, for types whose storage it backs. */
	int (*alloc)(const union bpf_attr *attr, int memfd, struct bpf_map **out);
	void (*free)(struct bpf_map *map);
	/* Copies the value of key into value (value_size bytes).  -ENOENT if absent. */
	int (*lookup)(struct bpf_map *map, const void *key, void *value);
	int (*update)(struct bpf_map *map, const void *key, const void *value, u64 flags);
	int (*delete)(struct bpf_map *map, const void *key);
	/* key NULL: the first key.  -ENOENT after the last. */
	int (*get_next_key)(struct bpf_map *map, const void *key, void *next_key);
	int (*lookup_and_delete)(struct bpf_map *map, const void *key, void *value, u64 flags);
	/* Batch ops; NULL means the generic one (update/delete) or ENOTSUPP (the others),
	 * as set by the type's table. */
	int (*lookup_batch)(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);
	int (*lookup_and_delete_batch)(struct bpf_map *map, union bpf_attr *attr,
				       union bpf_attr *uattr);
	int (*update_batch)(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);
	int (*delete_batch)(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);
	/* For programs: the address of key's value inside the map, or NULL.  The memory stays
	 * valid while the map lives (elements are reused, never freed), as the kernel's RCU
	 * guarantees for a program.  Per-CPU types: the calling CPU's copy. */
	void *(*lookup_ptr)(struct bpf_map *map, const void *key);
	/* Per-CPU types, for bpf_map_lookup_percpu_elem(): the address of CPU cpu's copy of
	 * key's value, or NULL (no such key, or cpu not below the possible CPUs). */
	void *(*lookup_percpu_ptr)(struct bpf_map *map, const void *key, u32 cpu);
	/* bpf_for_each_map_elem(): calls callback (a struct exec_callback, src/exec/callback.h)
	 * as callback(map, &key, &value, ctx, 0) for each element in the type's order, value the
	 * element's own memory (per CPU: the calling CPU's copy, as lookup_ptr gives it), and stops
	 * after the first nonzero return.  Returns the number of calls.  The callback may update
	 * and delete elements, the one it was given included.  NULL: the type has none (the
	 * verifier refuses the helper on it). */
	s64 (*for_each)(struct bpf_map *map, u64 callback, void *ctx);
	/* For programs, when it differs from update (per-CPU types: value is value_size bytes,
	 * for the calling CPU's copy; update takes every CPU's, as bpf() does).  NULL: update. */
	int (*prog_update)(struct bpf_map *map, const void *key, const void *value, u64 flags);
	/* For JITs (the kernel's map_gen_lookup): when lookup_ptr(key) is always
	 * index < max_entries ? base + index * *elem_size : NULL for the u32 index at key, with
	 * base fixed for the map's life, returns base and sets *elem_size (NULL: not so). */
	void *(*array_base)(struct bpf_map *map, u32 *elem_size);
	/* Whether [off, off + len) of the map may be mmapped with prot (NULL: ENOTSUPP). */
	int (*mmap_check)(struct bpf_map *map, u64 off, u64 len, int prot);
	/* Makes the mapping itself (after mmap_check), when the file's pages do not simply
	 * follow one another (a ring buffer shows its data twice); NULL: a plain mmap of fd. */
	void *(*mmap_map)(struct bpf_map *map, void *addr, size_t len, int prot, int flags, int fd,
			  u64 off);
	/* A program using this type must run inside rcu_read_lock(): the type frees memory a
	 * program may still point into after a grace period (as an inner map of a map-in-map
	 * would be).  False where memory a program sees lives as long as the map, which the
	 * program holds (hash: deleted elements are reused, never freed; array). */
	bool prog_needs_rcu;
	/* Cancels and frees the timer of every value (bpf_timer_free()): the map's last fd or pin
	 * went, or the map goes.  Types that may hold a bpf_timer (hash, LRU hash, array). */
	void (*free_timers)(struct bpf_map *map);
	/* How many elements the map holds, for bpf_map_sum_elem_count() (NULL: 0, as the kernel
	 * counts them for hash maps only). */
	s64 (*elem_count)(struct bpf_map *map);
	/* bpf_redirect_map() on this type (device maps): the action the program returns. */
	int (*xdp_redirect)(struct bpf_map *map, u64 index, u64 flags);
	/* Flags the type adds to the map's (BPF_F_RDONLY_PROG for device maps, whose values
	 * programs may only read). */
	u32 forced_flags;
	/* Values are per CPU: bpf() sees round_up(value_size, 8) bytes for each possible CPU,
	 * CPU 0 first (bpf_map.uvalue_size); a program sees its CPU's. */
	bool percpu;
	/* A map of maps: created from a template (inner_map_fd, map_in_map.h), its values are
	 * maps. */
	bool inner_maps;
	/* bpf()'s LOOKUP reads the caller's value as its input and writes nothing back (a bloom
	 * filter's membership test). */
	bool lookup_reads_value;
	/* The type cannot be an inner map (the kernel's types without map_meta_equal). */
	bool no_inner_map;
	/* The type's rules for BTF key and value types (key_type NULL: no key id), after the
	 * generic size checks; NULL: none, but then a key id is required (the kernel's
	 * map_check_btf); map_check_no_btf: the type takes no BTF. */
	int (*check_btf)(const struct bpf_map *map, const struct btf *btf,
			 const struct btf_type *key_type, const struct btf_type *value_type);
};

#define MAP_MAX_KPTRS 8 /* kptr fields in a value (the kernel: 11 special fields in all) */

struct bpf_map {
	struct bpf_object obj;	/* must stay first: fds and programs hold the object */
	const struct bpf_map_ops *ops;
	u32 map_type;
	u32 key_size;
	u32 value_size;
	u32 uvalue_size;	/* a value as bpf() copies it: value_size, or per CPU (ops.percpu) */
	u32 max_entries;
	u32 map_flags;
	char name[BPF_OBJ_NAME_LEN];
	/* BPF_MAP_FREEZE: no more writes through bpf() or writable mmaps; a frozen
	 * BPF_F_RDONLY_PROG array's contents are then constants to the verifier. */
	u8 frozen;
	u8 mmapped_writable;	/* a shared writable mmap was made (freeze is then EBUSY) */
	/* Maps of maps: the template inner maps must match (the verifier's view of a map looked
	 * up in this one); owned by the map.  NULL otherwise. */
	struct bpf_map *inner_meta;
	/* BTF of the key and value (btf_fd at creation, held; NULL without), and their ids. */
	struct btf *btf;
	u32 btf_key_type_id;
	u32 btf_value_type_id;
	/* Where the value's struct bpf_spin_lock is (its BTF says), -1 without one.  Programs
	 * take it with bpf_spin_lock(); bpf() copies values around it (never reading or writing
	 * it), and under it with BPF_F_LOCK. */
	s32 spin_lock_off;
	/* Where the value's struct bpf_timer is, -1 without one: its first word points at the
	 * timer's state (src/exec/bpf_timer.c); bpf() copies values around it and reads it as 0, and
	 * an element's timer is cancelled and freed when the element is updated, deleted or
	 * evicted, and every one when the last fd (or pin) of the map goes. */
	s32 timer_off;
	/* Where the value's struct bpf_wq is, -1 without one: a work item, kept as a timer is (its
	 * first word points at the same state, src/exec/bpf_timer.c), started to run its callback
	 * as soon as it can (bpf_wq_start()). */
	s32 wq_off;
	/* Where the value's struct bpf_task_work is, -1 without one: work a program schedules for
	 * a task (6.18's bpf_task_work_schedule_*()), kept as a timer is. */
	s32 task_work_off;
	/* The value's kptrs (pointers to kernel objects: a task_struct, a cgroup, ...), in
	 * offset order: where, the struct (its kernel BTF id), and whether the field holds a
	 * reference (moved in and out with bpf_kptr_xchg(); else a plain store).  bpf() copies
	 * values around them and reads them as 0; an update or delete empties them (a reference
	 * held there is dropped, which for userbpf's objects is nothing to do). */
	u8 nr_kptrs;
	struct map_kptr {
		u32 off;
		u32 btf_id;
		bool ref;
		bool drop;	/* a reference emptying must drop (a bpf_cpumask's: tasks' and
				 * cgroups' live on in userbpf whatever their references) */
	} *kptrs; /* (malloc'ed, freed with the map: a map's hot fields keep their places) */
	/* Maps that hold programs (program arrays, device maps): the kind of program the first
	 * one to use the map or go into it was, which every later one must be (map_owner.c). */
	struct map_owner {
		spinlock_t lock;
		bool set;
		bool jited;
		bool xdp_has_frags;
		u32 type;
		u32 expected_attach_type;
		u32 storage[2];	/* ids of its cgroup storage maps (0: none) */
	} owner;
};

/* Whether prog may use map or go into it, the first program making itself the map's owner (the
 * kernel's bpf_prog_map_compatible()): the same program type, compiled alike, with or without
 * XDP fragments alike; in a program array also the same attach type, and the same cgroup
 * storage maps (bpf_get_local_storage() in a tail-called program finds the storage of the
 * program the run began with), but for a program with none that makes no tail call. */
bool map_prog_compatible(struct bpf_map *map, const struct bpf_prog *prog);

/* bpf_redirect_map()'s answer on a map that holds targets (the kernel's __bpf_xdp_redirect_map()):
 * XDP_ABORTED for flags other than the fallback action and the type's own (own_flags);
 * XDP_REDIRECT when the target is there; else the fallback action, the flags' low bits. */
#define XDP_REDIRECT_FALLBACKS ((u64)(XDP_ABORTED | XDP_DROP | XDP_PASS | XDP_TX))

static inline bool xdp_redirect_flags_bad(u64 flags, u64 own_flags)
{
	return flags & ~(XDP_REDIRECT_FALLBACKS | own_flags);
}

static inline int xdp_redirect_verdict(u64 flags, bool found)
{
	return found ? XDP_REDIRECT : (int)(flags & XDP_REDIRECT_FALLBACKS);
}

/* The maps whose users the kernel checks at load for compatibility (map_type_contains_progs()):
 * program arrays, (array) device maps and CPU maps. */
static inline bool map_holds_progs(const struct bpf_map *map)
{
	return map->map_type == BPF_MAP_TYPE_PROG_ARRAY || map->map_type == BPF_MAP_TYPE_DEVMAP ||
	       map->map_type == BPF_MAP_TYPE_CPUMAP;
}

/* A value's bpf_spin_lock: a u32, 0 when free (the kernel's qspinlock is a u32 too). */
static inline void map_spin_lock(u32 *lock)
{
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(lock, __ATOMIC_RELAXED))
			cpu_relax();
}

static inline void map_spin_unlock(u32 *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

static inline u32 *map_value_lock(const struct bpf_map *map, void *value)
{
	return (u32 *)((u8 *)value + map->spin_lock_off);
}

/* Whether the value holds a timer, a work item or task work: an element that leaves the map or
 * is updated frees them (bpf_timer_free()), and so do the map's last fd or pin. */
static inline bool map_has_async(const struct bpf_map *map)
{
	return map->timer_off >= 0 || map->wq_off >= 0 || map->task_work_off >= 0;
}

/* Whether the value holds fields bpf() copies around (a bpf_spin_lock, a bpf_timer, a bpf_wq,
 * a bpf_task_work, kptrs). */
static inline bool map_has_specials(const struct bpf_map *map)
{
	return map->spin_lock_off >= 0 || map_has_async(map) || map->nr_kptrs;
}


/* The value's kptr at off, or NULL. */
static inline const struct map_kptr *map_kptr_at(const struct bpf_map *map, s64 off)
{
	for (u32 i = 0; map && i < map->nr_kptrs; i++)
		if (map->kptrs[i].off == off)
			return &map->kptrs[i];
	return NULL;
}

/* Drops the reference a kptr held (its struct's destructor kfunc). */
void map_kptr_drop(const struct map_kptr *k, u64 obj);

/* An update, an element that leaves the map and the map's end empty the value's kptrs: what
 * they held is dropped. */
static inline void map_empty_kptrs(const struct bpf_map *map, void *value)
{
	for (u32 i = 0; i < map->nr_kptrs; i++) {
		u64 *slot = (u64 *)((u8 *)value + map->kptrs[i].off), old;

		if (!map->kptrs[i].drop) {
			__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
			continue;
		}
		old = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);
		if (old)
			map_kptr_drop(&map->kptrs[i], old);
	}
}

#define MAP_TIMER_SIZE 16 /* sizeof(struct bpf_timer) */
#define MAP_WQ_SIZE 16 /* sizeof(struct bpf_wq) */
#define MAP_TASK_WORK_SIZE 8 /* sizeof(struct bpf_task_work) */

/* A value copied out to bpf()'s caller shows its lock word, timer and kptrs as 0: they are not
 * the caller's to see (the kernel's check_and_init_map_value()).  A per-CPU map's value is
 * every CPU's copy, each 8-aligned (only kptrs there: no lock or timer). */
static inline void map_hide_lock(const struct bpf_map *map, void *value)
{
	if (map->spin_lock_off >= 0)
		memset(map_value_lock(map, value), 0, sizeof(u32));
	if (map->timer_off >= 0)
		memset((u8 *)value + map->timer_off, 0, MAP_TIMER_SIZE);
	if (map->wq_off >= 0)
		memset((u8 *)value + map->wq_off, 0, MAP_WQ_SIZE);
	if (map->task_work_off >= 0)
		memset((u8 *)value + map->task_work_off, 0, MAP_TASK_WORK_SIZE);
	for (u32 at = 0; map->nr_kptrs && at < map->uvalue_size;
	     at += (u32)round_up(map->value_size, 8)) {
		for (u32 i = 0; i < map->nr_kptrs; i++)
			memset((u8 *)value + at + map->kptrs[i].off, 0, sizeof(u64));
		if (!map->ops->percpu)
			break;
	}
}

#define MAP_MAX_HOLES (4 + MAP_MAX_KPTRS)

/* The value's lock word, timer and kptrs, as {offset, size} in order of offset: how many. */
static inline u32 map_value_holes(const struct bpf_map *map, u32 hole[MAP_MAX_HOLES][2])
{
	u32 n = 0;

	if (map->spin_lock_off >= 0)
		hole[n][0] = (u32)map->spin_lock_off, hole[n++][1] = sizeof(u32);
	if (map->timer_off >= 0)
		hole[n][0] = (u32)map->timer_off, hole[n++][1] = MAP_TIMER_SIZE;
	if (map->wq_off >= 0)
		hole[n][0] = (u32)map->wq_off, hole[n++][1] = MAP_WQ_SIZE;
	if (map->task_work_off >= 0)
		hole[n][0] = (u32)map->task_work_off, hole[n++][1] = MAP_TASK_WORK_SIZE;
	for (u32 i = 0; i < map->nr_kptrs; i++)
		hole[n][0] = map->kptrs[i].off, hole[n++][1] = sizeof(u64);
	for (u32 i = 1; i < n; i++) /* (insertion: a few, the kptrs in order already) */
		for (u32 j = i; j > 0 && hole[j - 1][0] > hole[j][0]; j--) {
			u32 t0 = hole[j][0], t1 = hole[j][1];

			hole[j][0] = hole[j - 1][0], hole[j][1] = hole[j - 1][1];
			hole[j - 1][0] = t0, hole[j - 1][1] = t1;
		}
	return n;
}

/* Copies value_size bytes of a value from src to dst, but for the lock word, the timer and the
 * kptrs of a map with them (the kernel's copy_map_value()): copy is racy_store or racy_load. */
static inline void map_copy_around_lock(const struct bpf_map *map, void *dst, const void *src,
					void (*copy)(void *, const void *, size_t))
{
	u32 hole[MAP_MAX_HOLES][2], n = map_value_holes(map, hole), at = 0;

	for (u32 i = 0; i < n; i++) {
		copy((u8 *)dst + at, (const u8 *)src + at, hole[i][0] - at);
		at = hole[i][0] + hole[i][1];
	}
	copy((u8 *)dst + at, (const u8 *)src + at, map->value_size - at);
}

/* BPF_F_LOCK: an element's value written in place, under its own lock. */
static inline void map_update_locked(const struct bpf_map *map, void *elem, const void *value)
{
	map_spin_lock(map_value_lock(map, elem));
	map_copy_around_lock(map, elem, value, racy_store);
	map_spin_unlock(map_value_lock(map, elem));
}

/* BPF_F_LOCK reads: value_size bytes of an element's value copied out under its own lock, the
 * lock word shown as 0. */
static inline void map_read_locked(const struct bpf_map *map, void *dst, void *elem)
{
	map_spin_lock(map_value_lock(map, elem));
	memcpy(dst, elem, map->value_size);
	map_spin_unlock(map_value_lock(map, elem));
	map_hide_lock(map, dst);
}

/* The element flags of a batch command (and LOOKUP_AND_DELETE's flags): BPF_F_LOCK only, and
 * only for a value with a bpf_spin_lock (the kernel's checks). */
static inline int map_check_lock_flag(const struct bpf_map *map, u64 flags)
{
	if ((flags & ~BPF_F_LOCK) || ((flags & BPF_F_LOCK) && map->spin_lock_off < 0))
		return -EINVAL;
	return 0;
}

static inline struct bpf_map *map_of(struct bpf_object *obj)
{
	return container_of(obj, struct bpf_map, obj);
}

/* The kernel's num_possible_cpus(): CPUs in /sys/devices/system/cpu/possible (as libbpf counts
 * them for per-CPU values), else the configured ones. */
u32 map_possible_cpus(void);
/* The kernel's NR_CPUS (from sysfs; Debian's 8192 where it does not say): the bound on a CPU
 * map's entries. */
u32 map_kernel_nr_cpus(void);
#define NR_CPUS_DEFAULT 8192u

/* The calling thread's CPU, below map_possible_cpus(): the copy a per-CPU map gives a program. */
u32 map_this_cpu(void);

/* The update a program's bpf_map_update_elem() calls. */
static inline int (*map_prog_update(const struct bpf_map *map))(struct bpf_map *, const void *,
								   const void *, u64)
{
	return map->ops->prog_update ? map->ops->prog_update : map->ops->update;
}

/* check_btf of the types that take no BTF (ENOTSUPP, as the kernel's map_check_no_btf). */
int map_check_no_btf(const struct bpf_map *map, const struct btf *btf,
		     const struct btf_type *key_type, const struct btf_type *value_type);

/* GET_NEXT_KEY of every array-like type (arrays, program arrays, arrays of maps): each index
 * below max_entries in order, from 0 after an index beyond them (array.c). */
int array_map_get_next_key(struct bpf_map *map, const void *key, void *next_key);

/* The generic batch implementations, for types' ops tables. */
int generic_map_lookup_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);
int generic_map_update_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);
int generic_map_delete_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr);

/* Syscall commands (map.c), called by syscall.c with a checked attr copy. */
int map_create(union bpf_attr *attr);
int map_lookup_elem(union bpf_attr *attr);
int map_update_elem(union bpf_attr *attr);
int map_delete_elem(union bpf_attr *attr);
int map_get_next_key(union bpf_attr *attr);
int map_lookup_and_delete_elem(union bpf_attr *attr);
int map_do_batch(int cmd, union bpf_attr *attr, union bpf_attr *uattr, u32 usize);
int map_freeze(union bpf_attr *attr);
/* BPF_OBJ_GET_INFO_BY_FD of a map (struct bpf_map_info). */
int map_get_info(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr);

/* A user pointer from attr; NULL if it is 0 or cannot be a pointer in this process (i386). */
static inline void *u64_to_ptr(u64 v)
{
	return v > UINTPTR_MAX ? NULL : (void *)(uintptr_t)v;
}

#endif
