/* BPF_MAP_TYPE_PERF_EVENT_ARRAY: the slots bpf_perf_event_output() writes through, usually one
 * BPF output event per CPU (src/perf_event.c).
 *
 * bpf() writes an event's fd into a slot with the fd array rules (fd_array.h): BPF_ANY only,
 * E2BIG beyond the array before the fd is looked at, EBADF for an fd that is no perf event (a
 * map's too), EOPNOTSUPP for an inherited event.  It cannot read slots back (ENOTSUPP: the
 * kernel's type has no map_fd_sys_lookup_elem) and has no batch commands.  A slot holds a
 * reference on its event, so closing the event's fd leaves the slot working.
 *
 * Lifetime: the kernel empties the slots a map file filled when that file is closed, unless the
 * map was made with BPF_F_PRESERVE_ELEMS; here the slots are emptied when the map's last fd is
 * closed (release_uref), which is the same for a map with one file, the usual case.
 */
#include <errno.h>
#include <stdlib.h>

#include "map/fd_array.h"
#include "map/map.h"
#include "map/perf_event_array.h"
#include "perf_event.h"

struct perf_event_array {
	struct bpf_map map;
	struct bpf_object *slots[]; /* events (fd_array.h) */
};

static inline struct perf_event_array *pearray_of(struct bpf_map *map)
{
	return container_of(map, struct perf_event_array, map);
}

static void pearray_release_uref(struct bpf_object *obj)
{
	struct bpf_map *map = map_of(obj);

	if (!(map->map_flags & BPF_F_PRESERVE_ELEMS))
		fd_array_clear(map, pearray_of(map)->slots);
}

static int pearray_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct perf_event_array *a;

	a = fd_array_alloc(sizeof(*a), attr->max_entries, sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	a->map.obj.release_uref = pearray_release_uref;
	*out = &a->map;
	return 0;
}

static void pearray_free(struct bpf_map *map)
{
	fd_array_clear(map, pearray_of(map)->slots);
	free(pearray_of(map));
}

static int pearray_lookup(struct bpf_map *map, const void *key, void *value)
{
	return -ENOTSUPP;
}

static void *pearray_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* the verifier lets programs use the array only through the output helper */
}

static struct bpf_object *pearray_resolve(struct bpf_map *map, const void *value, int *err)
{
	u32 fd;

	memcpy(&fd, value, sizeof(fd));
	return perf_event_get((int)fd, err);
}

static int pearray_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	return fd_array_update(map, pearray_of(map)->slots, key, value, flags, pearray_resolve);
}

static int pearray_delete(struct bpf_map *map, const void *key)
{
	return fd_array_delete(map, pearray_of(map)->slots, key);
}

int perf_event_array_output(struct bpf_map *map, u64 flags, const void *meta, u32 meta_size,
			    const void *extra, u32 extra_size)
{
	u64 index = flags & BPF_F_INDEX_MASK;
	u32 cpu = map_this_cpu();
	struct bpf_object *ev;

	if (index == BPF_F_CURRENT_CPU)
		index = cpu;
	if (index >= map->max_entries)
		return -E2BIG;
	ev = fd_array_get(map, pearray_of(map)->slots, (u32)index);
	if (!ev)
		return -ENOENT;
	return perf_event_output(ev, cpu, meta, meta_size, extra, extra_size);
}

const struct bpf_map_ops perf_event_array_map_ops = {
	.alloc_check = fd_array_alloc_check,
	.alloc = pearray_alloc,
	.free = pearray_free,
	.lookup = pearray_lookup,
	.lookup_ptr = pearray_lookup_ptr,
	.update = pearray_update,
	.delete = pearray_delete,
	.get_next_key = array_map_get_next_key,
	/* an event may leave its slot (and lose its last reference) while a program writes */
	.prog_needs_rcu = true,
	.check_btf = map_check_no_btf,
};
