/* BPF_MAP_TYPE_ARRAY_OF_MAPS, and the template and fd rules both maps of maps share (see
 * map_in_map.h; BPF_MAP_TYPE_HASH_OF_MAPS is the hash map of src/map/hash.c with map values).
 *
 * The array: max_entries slots, each empty or holding a reference on a map, with the rules of
 * the kernel's fd arrays (fd_array.h).  Unlike a program array it is not
 * emptied when its last fd closes: the inner maps live as long as the array.  A map leaving a
 * slot is put after the command's read section (obj_put_deferred), and programs using the array
 * run inside a read section (prog_needs_rcu), so an inner map a program looked up stays valid
 * until the program is done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "map/fd_array.h"
#include "map/map_in_map.h"
#include "rcu.h"

struct bpf_map *map_meta_alloc(const union bpf_attr *attr, int *err)
{
	struct bpf_object *obj;
	struct bpf_map *inner, *meta = NULL;

	rcu_read_lock();
	obj = obj_from_fd((int)attr->inner_map_fd, OBJ_MAP, err);
	if (!obj)
		goto out;
	inner = map_of(obj);
	*err = -EINVAL; /* one level of nesting only */
	if (inner->inner_meta)
		goto out;
	*err = -ENOTSUPP; /* the kernel's types without map_meta_equal */
	if (inner->ops->no_inner_map)
		goto out;
	*err = -ENOMEM;
	meta = calloc(1, sizeof(*meta));
	if (!meta)
		goto out;
	/* the generic fields only: the verifier reads no more of the template, and nothing
	 * runs on it (it is never an object, has no id and no name, as the kernel's) */
	meta->ops = inner->ops;
	meta->map_type = inner->map_type;
	meta->key_size = inner->key_size;
	meta->value_size = inner->value_size;
	meta->uvalue_size = inner->uvalue_size;
	meta->max_entries = inner->max_entries;
	meta->map_flags = inner->map_flags;
	/* a value with a lock or a timer: the template's BTF too, which the verifier asks of
	 * them */
	meta->spin_lock_off = inner->spin_lock_off;
	meta->timer_off = inner->timer_off;
	meta->wq_off = inner->wq_off;
	meta->task_work_off = inner->task_work_off;
	if (inner->nr_kptrs) {
		meta->kptrs = malloc(inner->nr_kptrs * sizeof(*meta->kptrs));
		if (!meta->kptrs) {
			free(meta);
			meta = NULL;
			*err = -ENOMEM;
			goto out;
		}
		memcpy(meta->kptrs, inner->kptrs, inner->nr_kptrs * sizeof(*meta->kptrs));
		meta->nr_kptrs = inner->nr_kptrs;
	}
	if (map_has_specials(inner) && inner->btf) {
		obj_get(&inner->btf->obj);
		meta->btf = inner->btf;
	}
	*err = 0;
out:
	rcu_read_unlock();
	return meta;
}

void map_meta_free(struct bpf_map *meta)
{
	if (meta) {
		btf_put(meta->btf);
		free(meta->kptrs);
	}
	free(meta);
}

/* The kernel's bpf_map_meta_equal(), with array_map_meta_equal()'s max_entries rule. */
static bool meta_equal(const struct bpf_map *meta, const struct bpf_map *m)
{
	/* (the kernel compares the special fields' records: here, the lock's and timer's places) */
	if (meta->map_type != m->map_type || meta->key_size != m->key_size ||
	    meta->value_size != m->value_size || meta->map_flags != m->map_flags ||
	    meta->spin_lock_off != m->spin_lock_off || meta->timer_off != m->timer_off ||
	    meta->wq_off != m->wq_off || meta->task_work_off != m->task_work_off ||
	    meta->nr_kptrs != m->nr_kptrs ||
	    (m->nr_kptrs && memcmp(meta->kptrs, m->kptrs, m->nr_kptrs * sizeof(m->kptrs[0]))))
		return false;
	return meta->map_type != BPF_MAP_TYPE_ARRAY || (meta->map_flags & BPF_F_INNER_MAP) ||
	       meta->max_entries == m->max_entries;
}

struct bpf_map *map_in_map_get(struct bpf_map *outer, const void *value, int *err)
{
	struct bpf_object *obj;
	struct bpf_map *m;
	u32 fd;

	memcpy(&fd, value, sizeof(fd));
	obj = obj_from_fd((int)fd, OBJ_MAP, err);
	if (!obj)
		return NULL;
	m = map_of(obj);
	if (!meta_equal(outer->inner_meta, m)) {
		*err = -EINVAL;
		return NULL;
	}
	if (!obj_tryget(obj)) { /* closed meanwhile */
		*err = -EBADF;
		return NULL;
	}
	return m;
}

/* ---- the array ---- */

struct map_array {
	struct bpf_map map;
	struct bpf_object *slots[]; /* maps (fd_array.h) */
};

static inline struct map_array *marray_of(struct bpf_map *map)
{
	return container_of(map, struct map_array, map);
}

static int marray_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct map_array *a;

	(void)memfd;
	a = fd_array_alloc(sizeof(*a), attr->max_entries, sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	*out = &a->map;
	return 0;
}

/* No reader is left (the map is being destroyed): the inner maps are put at once. */
static void marray_free(struct bpf_map *map)
{
	fd_array_clear(map, marray_of(map)->slots);
	free(marray_of(map));
}

static int marray_lookup(struct bpf_map *map, const void *key, void *value)
{
	return fd_array_lookup(map, marray_of(map)->slots, key, value);
}

/* A program's lookup: the inner map itself (NULL for an empty slot). */
static void *marray_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct bpf_object *obj;
	u32 index;

	memcpy(&index, key, sizeof(index));
	obj = fd_array_get(map, marray_of(map)->slots, index);
	return obj ? map_of(obj) : NULL;
}

static struct bpf_object *marray_resolve(struct bpf_map *map, const void *value, int *err)
{
	struct bpf_map *m = map_in_map_get(map, value, err);

	return m ? &m->obj : NULL;
}

static int marray_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	return fd_array_update(map, marray_of(map)->slots, key, value, flags, marray_resolve);
}

static int marray_delete(struct bpf_map *map, const void *key)
{
	return fd_array_delete(map, marray_of(map)->slots, key);
}

const struct bpf_map_ops array_of_maps_map_ops = {
	.alloc_check = fd_array_alloc_check,
	.alloc = marray_alloc,
	.free = marray_free,
	.lookup = marray_lookup,
	.lookup_ptr = marray_lookup_ptr,
	.update = marray_update,
	.delete = marray_delete,
	.get_next_key = array_map_get_next_key,
	.update_batch = generic_map_update_batch,
	.delete_batch = generic_map_delete_batch,
	.lookup_batch = generic_map_lookup_batch,
	.prog_needs_rcu = true,
	.inner_maps = true,
	.check_btf = map_check_no_btf,
};
