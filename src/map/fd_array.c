/* Fd arrays: the slot operations program arrays and arrays of maps share (see fd_array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map/fd_array.h"

#define FD_ARRAY_CREATE_FLAG_MASK \
	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_PRESERVE_ELEMS)

int fd_array_alloc_check(const union bpf_attr *attr)
{
	if (attr->value_size != 4 || (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)))
		return -EINVAL;
	if (!attr->max_entries || attr->key_size != 4 ||
	    (attr->map_flags & ~FD_ARRAY_CREATE_FLAG_MASK))
		return -EINVAL;
	/* (a flag only perf event arrays take) */
	if ((attr->map_flags & BPF_F_PRESERVE_ELEMS) &&
	    attr->map_type != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
		return -EINVAL;
	return 0;
}

void *fd_array_alloc(size_t header, u32 max_entries, size_t slot_size)
{
	if ((u64)max_entries * slot_size > SIZE_MAX - header)
		return NULL;
	return calloc(1, header + (size_t)max_entries * slot_size);
}

static u32 key_index(const void *key)
{
	u32 index;

	memcpy(&index, key, sizeof(index));
	return index;
}

int fd_array_lookup(struct bpf_map *map, struct bpf_object **slots, const void *key,
		    void *value)
{
	struct bpf_object *obj = fd_array_get(map, slots, key_index(key));

	if (!obj)
		return -ENOENT;
	memcpy(value, &obj->id, sizeof(obj->id));
	return 0;
}

int fd_array_update(struct bpf_map *map, struct bpf_object **slots, const void *key,
		    const void *value, u64 flags, fd_array_resolve_fn resolve)
{
	u32 index = key_index(key);
	struct bpf_object *obj, *old;
	int err;

	if (flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	obj = resolve(map, value, &err);
	if (!obj)
		return err;
	old = __atomic_exchange_n(&slots[index], obj, __ATOMIC_ACQ_REL);
	if (old)
		obj_put_deferred(old);
	return 0;
}

int fd_array_delete(struct bpf_map *map, struct bpf_object **slots, const void *key)
{
	u32 index = key_index(key);
	struct bpf_object *old;

	if (index >= map->max_entries)
		return -E2BIG;
	old = __atomic_exchange_n(&slots[index], NULL, __ATOMIC_ACQ_REL);
	if (!old)
		return -ENOENT;
	obj_put_deferred(old);
	return 0;
}

void fd_array_clear(struct bpf_map *map, struct bpf_object **slots)
{
	for (u32 i = 0; i < map->max_entries; i++) {
		struct bpf_object *obj = __atomic_exchange_n(&slots[i], NULL, __ATOMIC_ACQ_REL);

		if (obj)
			obj_put(obj);
	}
}
