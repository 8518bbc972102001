/* BPF_MAP_TYPE_ARRAY and BPF_MAP_TYPE_PERCPU_ARRAY.
 *
 * max_entries values of round_up(value_size, 8) bytes each, zero-initialised, indexed by a u32 key.
 * Elements always exist: no delete, update with BPF_NOEXIST is EEXIST.  With BPF_F_MMAPABLE the
 * values live in the map's own memfd, so mmap(fd) shows the same memory (offset 0 = element 0),
 * as the kernel's mmapable arrays do.
 *
 * Per CPU: an element is one value per possible CPU, side by side (CPU 0 first), which is also
 * how bpf() copies it; a program reads and writes its CPU's, bpf() all of them.
 *
 * Concurrency: no locks, as in the kernel.  A value of up to 8 bytes is read and written with one
 * atomic access (its 8-byte slot is aligned), so it is never seen torn; larger values may be, as
 * on the kernel.
 */
#include <errno.h>
#include <limits.h>
#include <linux/btf.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/bpf_timer.h"
#include "exec/callback.h"
#include "map/map.h"
#include "map/value_ranges.h"

#define ARRAY_CREATE_FLAG_MASK                                                                   \
	(BPF_F_NUMA_NODE | BPF_F_MMAPABLE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG |     \
	 BPF_F_WRONLY_PROG | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP)

struct bpf_array {
	struct bpf_map map;
	u32 elem_size;		/* value_size rounded up to 8 */
	u32 ncpus;		/* values per element: possible CPUs when per CPU, else 1 */
	size_t area_size;	/* bytes at values; page-aligned when mmapped */
	bool mmapped;		/* values is a shared mapping of the memfd, else calloc'ed */
	u8 *values;
};

static inline struct bpf_array *array_of(struct bpf_map *map)
{
	return container_of(map, struct bpf_array, map);
}

static int array_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || attr->key_size != 4 || !attr->value_size ||
	    (attr->map_flags & ~ARRAY_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	if (attr->map_flags & BPF_F_PRESERVE_ELEMS) /* perf event arrays only */
		return -EINVAL;
	if (attr->value_size > INT_MAX) /* round_up() below must not overflow */
		return -E2BIG;
	return 0;
}

#define PCPU_MIN_UNIT_SIZE 32768u /* the kernel's bound on one CPU's copy of a value */

static int percpu_array_alloc_check(const union bpf_attr *attr)
{
	int err = array_alloc_check(attr);

	if (err)
		return err;
	/* only plain arrays are mmapable or inner maps; per-CPU memory has no NUMA node */
	if (attr->map_flags & (BPF_F_MMAPABLE | BPF_F_INNER_MAP | BPF_F_NUMA_NODE))
		return -EINVAL;
	if (round_up(attr->value_size, 8) > PCPU_MIN_UNIT_SIZE)
		return -E2BIG;
	return 0;
}

static int array_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct bpf_array *a = calloc(1, sizeof(*a));
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	u64 size;

	if (!a)
		return -ENOMEM;
	a->elem_size = round_up(attr->value_size, 8);
	a->ncpus = attr->map_type == BPF_MAP_TYPE_PERCPU_ARRAY ? map_possible_cpus() : 1;
	/* u32 * 32 KiB * CPUs (a u32): fits in u64 */
	size = (u64)attr->max_entries * a->elem_size * a->ncpus;
	if (size > SIZE_MAX - page) /* i386: more than the address space */
		goto nomem;
	a->area_size = (size_t)size;
	if (attr->map_flags & BPF_F_MMAPABLE) {
		a->area_size = round_up(a->area_size, page);
		if (ftruncate(memfd, (off_t)a->area_size) < 0)
			goto nomem;
		a->values = mmap(NULL, a->area_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		if (a->values == MAP_FAILED)
			goto nomem;
		a->mmapped = true;
		a->map.obj.memfd_data = true;
	} else {
		a->values = calloc(1, a->area_size);
		if (!a->values)
			goto nomem;
	}
	/* (the string kfuncs then read the values, global data's literals among them, without a
	 * system call) */
	if (value_ranges_add((uintptr_t)a->values, a->area_size)) {
		if (a->mmapped)
			munmap(a->values, a->area_size);
		else
			free(a->values);
		goto nomem;
	}
	*out = &a->map;
	return 0;
nomem:
	free(a);
	return -ENOMEM;
}

static u8 *array_elem(struct bpf_array *a, u32 index);

static void array_free(struct bpf_map *map)
{
	struct bpf_array *a = array_of(map);

	if (map->nr_kptrs) /* (what the kptrs hold: every element's, every CPU's copy) */
		for (u32 i = 0; i < map->max_entries; i++)
			for (u32 c = 0; c < a->ncpus; c++)
				map_empty_kptrs(map, array_elem(a, i) + (size_t)c * a->elem_size);
	value_ranges_del((uintptr_t)a->values);
	if (a->mmapped)
		munmap(a->values, a->area_size);
	else
		free(a->values);
	free(a);
}

/* Element index (its CPU 0 value, when per CPU). */
static inline u8 *array_elem(struct bpf_array *a, u32 index)
{
	return a->values + (size_t)index * a->elem_size * a->ncpus;
}

/* Reads a value; one atomic access when it fits in its 8-byte slot. */
static void value_read(void *dst, const u8 *slot, u32 size)
{
	if (size <= 8) {
		u64 w = __atomic_load_n((const u64 *)slot, __ATOMIC_RELAXED);

		memcpy(dst, &w, size); /* little-endian: the value's bytes come first */
	} else {
		racy_load(dst, slot, size);
	}
}

static void value_write(u8 *slot, const void *src, u32 size)
{
	u64 *w = (u64 *)slot;

	switch (size) {
	case 8: {
		u64 v;

		memcpy(&v, src, 8);
		__atomic_store_n(w, v, __ATOMIC_RELAXED);
		return;
	}
	case 4: {
		u32 v;

		memcpy(&v, src, 4);
		__atomic_store_n((u32 *)slot, v, __ATOMIC_RELAXED);
		return;
	}
	case 2: {
		u16 v;

		memcpy(&v, src, 2);
		__atomic_store_n((u16 *)slot, v, __ATOMIC_RELAXED);
		return;
	}
	case 1:
		__atomic_store_n(slot, *(const u8 *)src, __ATOMIC_RELAXED);
		return;
	}
	if (size < 8) {
		/* 3, 5, 6 or 7 bytes: replace them within the word, keeping the slot's tail
		 * (visible through mmap) as it is. */
		u64 old = __atomic_load_n(w, __ATOMIC_RELAXED), neu;

		do {
			neu = old;
			memcpy(&neu, src, size);
		} while (!__atomic_compare_exchange_n(w, &old, neu, true, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
		return;
	}
	racy_store(slot, src, size);
}

static int array_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct bpf_array *a = array_of(map);
	u32 index;

	memcpy(&index, key, sizeof(index));
	if (index >= map->max_entries)
		return -ENOENT;
	value_read(value, array_elem(a, index), map->uvalue_size);
	return 0;
}

static void *array_lookup_ptr(struct bpf_map *map, const void *key)
{
	u32 index;

	memcpy(&index, key, sizeof(index));
	return index < map->max_entries ? array_elem(array_of(map), index) : NULL;
}

static void *array_base(struct bpf_map *map, u32 *elem_size)
{
	struct bpf_array *a = array_of(map);

	*elem_size = a->elem_size;
	return a->values;
}

static int array_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct bpf_array *a = array_of(map);
	bool locked = flags & BPF_F_LOCK;
	u32 index;

	/* (per-CPU arrays have no lock: BPF_F_LOCK is just a bad flag there) */
	if ((flags & ~BPF_F_LOCK) > BPF_EXIST || (locked && a->ncpus > 1))
		return -EINVAL;
	memcpy(&index, key, sizeof(index));
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags & BPF_NOEXIST) /* every element exists */
		return -EEXIST;
	if (locked && map->spin_lock_off < 0)
		return -EINVAL;
	if (map_has_specials(map) && a->ncpus > 1) { /* (kptrs only) */
		for (u32 c = 0; c < a->ncpus; c++) {
			u8 *copy = array_elem(a, index) + (size_t)c * a->elem_size;

			map_copy_around_lock(map, copy, (const u8 *)value + (size_t)c * a->elem_size,
					     racy_store);
			map_empty_kptrs(map, copy);
		}
		return 0;
	}
	if (map_has_specials(map)) { /* around the value's lock and timer, or under the lock */
		if (locked)
			map_update_locked(map, array_elem(a, index), value);
		else
			map_copy_around_lock(map, array_elem(a, index), value, racy_store);
		if (map_has_async(map)) /* an updated value's timer goes, as in the kernel */
			bpf_timer_free(map, array_elem(a, index));
		map_empty_kptrs(map, array_elem(a, index));
		return 0;
	}
	if (a->ncpus > 1) /* all CPUs' values, padding included, as the kernel copies them */
		racy_store(array_elem(a, index), value, map->uvalue_size);
	else
		value_write(array_elem(a, index), value, map->uvalue_size);
	return 0;
}

static void *percpu_array_lookup_percpu_ptr(struct bpf_map *map, const void *key, u32 cpu)
{
	struct bpf_array *a = array_of(map);
	u32 index;

	memcpy(&index, key, sizeof(index));
	if (index >= map->max_entries || cpu >= a->ncpus)
		return NULL;
	return array_elem(a, index) + (size_t)cpu * a->elem_size;
}

static void *percpu_array_lookup_ptr(struct bpf_map *map, const void *key)
{
	return percpu_array_lookup_percpu_ptr(map, key, map_this_cpu());
}

/* A program's update: its CPU's value only. */
static int percpu_array_prog_update(struct bpf_map *map, const void *key, const void *value,
				    u64 flags)
{
	struct bpf_array *a = array_of(map);
	u32 index;

	if (flags > BPF_EXIST)
		return -EINVAL;
	memcpy(&index, key, sizeof(index));
	if (index >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	u8 *copy = array_elem(a, index) + (size_t)map_this_cpu() * a->elem_size;

	if (map->nr_kptrs) { /* around the kptrs, then emptied, as the kernel's update */
		map_copy_around_lock(map, copy, value, racy_store);
		map_empty_kptrs(map, copy);
		return 0;
	}
	value_write(copy, value, map->value_size);
	return 0;
}

/* Every index below max_entries in order (the kernel's too); the key is a copy of the index, the
 * value the element (per CPU: this CPU's copy, chosen once, as the kernel disables migration). */
static s64 array_for_each(struct bpf_map *map, u64 callback, void *ctx)
{
	struct bpf_array *a = array_of(map);
	size_t cpu_off = a->ncpus > 1 ? (size_t)map_this_cpu() * a->elem_size : 0;
	s64 calls = 0;

	for (u32 i = 0; i < map->max_entries; i++) {
		u32 key = i;

		calls++;
		if (exec_callback_call(callback, (uintptr_t)map, (uintptr_t)&key,
				       (uintptr_t)(array_elem(a, i) + cpu_off), (uintptr_t)ctx, 0))
			break;
	}
	return calls;
}

static int array_delete(struct bpf_map *map, const void *key)
{
	return -EINVAL;
}

int array_map_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	u32 index, next;

	if (!key) {
		next = 0;
	} else {
		memcpy(&index, key, sizeof(index));
		if (index >= map->max_entries)
			next = 0;
		else if (index == map->max_entries - 1)
			return -ENOENT;
		else
			next = index + 1;
	}
	memcpy(next_key, &next, sizeof(next));
	return 0;
}

static int array_mmap_check(struct bpf_map *map, u64 off, u64 len, int prot)
{
	struct bpf_array *a = array_of(map);

	if (!(map->map_flags & BPF_F_MMAPABLE))
		return -EINVAL;
	/* off + len: both below 2^63 after the caller's checks, so the sum cannot wrap */
	if (off + len > a->area_size)
		return -EINVAL;
	return 0;
}

/* BTF: the key a u32-sized integer, or no key for a one-element array whose value is a data
 * section (.bss, .data, .rodata: the kernel's array_map_check_btf()). */
static int array_check_btf(const struct bpf_map *map, const struct btf *btf,
			   const struct btf_type *key_type, const struct btf_type *value_type)
{
	u32 int_data;

	if (!key_type)
		return map->map_type == BPF_MAP_TYPE_ARRAY && map->max_entries == 1 &&
				       BTF_INFO_KIND(value_type->info) == BTF_KIND_DATASEC
			       ? 0
			       : -EINVAL;
	if (BTF_INFO_KIND(key_type->info) != BTF_KIND_INT)
		return -EINVAL;
	memcpy(&int_data, key_type + 1, sizeof(int_data));
	return BTF_INT_BITS(int_data) != 32 || BTF_INT_OFFSET(int_data) ? -EINVAL : 0;
}

/* Every element's timer (the map's last fd or pin went). */
static void array_free_timers(struct bpf_map *map)
{
	struct bpf_array *a = array_of(map);

	for (u32 i = 0; i < map->max_entries; i++)
		bpf_timer_free(map, array_elem(a, i));
}

const struct bpf_map_ops array_map_ops = {
	.alloc_check = array_alloc_check,
	.alloc = array_alloc,
	.free = array_free,
	.lookup = array_lookup,
	.lookup_ptr = array_lookup_ptr,
	.array_base = array_base,
	.update = array_update,
	.delete = array_delete,
	.get_next_key = array_map_get_next_key,
	.lookup_batch = generic_map_lookup_batch,
	.update_batch = generic_map_update_batch,
	.mmap_check = array_mmap_check,
	.check_btf = array_check_btf,
	.for_each = array_for_each,
	.free_timers = array_free_timers,
	/* no delete: elements always exist; the kernel answers ENOTSUPP */
};

const struct bpf_map_ops percpu_array_map_ops = {
	.alloc_check = percpu_array_alloc_check,
	.alloc = array_alloc,
	.free = array_free,
	.lookup = array_lookup,
	.lookup_ptr = percpu_array_lookup_ptr,
	.lookup_percpu_ptr = percpu_array_lookup_percpu_ptr,
	.prog_update = percpu_array_prog_update,
	.check_btf = array_check_btf,
	.update = array_update,
	.delete = array_delete,
	.get_next_key = array_map_get_next_key,
	.lookup_batch = generic_map_lookup_batch,
	.update_batch = generic_map_update_batch,
	.for_each = array_for_each,
	.percpu = true,
	/* no array_base: a program's value depends on its CPU, so lookups cannot be inlined */
};
