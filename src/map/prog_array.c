/* BPF_MAP_TYPE_PROG_ARRAY: the slots bpf_tail_call() jumps through.
 *
 * max_entries slots, each empty or holding a reference on a program.  bpf() writes a program's
 * fd into a slot and reads back its id (the kernel's prog_fd_array_sys_lookup_elem); programs
 * only use the array through bpf_tail_call().  Every program in an array, and every program
 * that uses it, must be of the kind the first one was: the array's owner (map_owner.c).
 *
 * Lifetime: as in the kernel, the slots are emptied when the array's last fd is closed
 * (release_uref), even though programs using the array keep it alive; otherwise a program in the
 * array it tail-calls through would keep both alive forever.  A program leaving a slot is put
 * after the read section of the command (obj_put_deferred), since its last put may wait for a
 * grace period; a program running a tail call through the array holds a read section, so the
 * target it loaded stays valid until it is done (prog_needs_rcu).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "map/fd_array.h"
#include "map/map.h"
#include "map/prog_array.h"
#include "prog/prog.h"

struct prog_array {
	struct bpf_map map;
	struct bpf_object *slots[]; /* programs (fd_array.h) */
};

static inline struct prog_array *parray_of(struct bpf_map *map)
{
	return container_of(map, struct prog_array, map);
}

static void parray_release_uref(struct bpf_object *obj);

static int parray_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct prog_array *a;

	a = fd_array_alloc(sizeof(*a), attr->max_entries, sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	a->map.obj.release_uref = parray_release_uref;
	*out = &a->map;
	return 0;
}

static void parray_release_uref(struct bpf_object *obj)
{
	struct bpf_map *map = map_of(obj);

	fd_array_clear(map, parray_of(map)->slots);
}

static void parray_free(struct bpf_map *map)
{
	fd_array_clear(map, parray_of(map)->slots);
	free(parray_of(map));
}

struct bpf_prog *prog_array_get(struct bpf_map *map, u32 index)
{
	struct bpf_object *obj = fd_array_get(map, parray_of(map)->slots, index);

	return obj ? prog_of(obj) : NULL;
}

static int parray_lookup(struct bpf_map *map, const void *key, void *value)
{
	return fd_array_lookup(map, parray_of(map)->slots, key, value);
}

/* A program for the array: of the array's owner type (the first one sets it). */
static struct bpf_object *parray_resolve(struct bpf_map *map, const void *value, int *err)
{
	struct bpf_object *obj;
	u32 fd;

	memcpy(&fd, value, sizeof(fd));
	/* inside the command's read section: the object stays valid while we try for a reference */
	obj = obj_from_fd((int)fd, OBJ_PROG, err);
	if (!obj)
		return NULL;
	if (!map_prog_compatible(map, prog_of(obj))) {
		*err = -EINVAL;
		return NULL;
	}
	if (!obj_tryget(obj)) { /* closed meanwhile */
		*err = -EBADF;
		return NULL;
	}
	return obj;
}

static int parray_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	return fd_array_update(map, parray_of(map)->slots, key, value, flags, parray_resolve);
}

static int parray_delete(struct bpf_map *map, const void *key)
{
	return fd_array_delete(map, parray_of(map)->slots, key);
}

static void *parray_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* programs have no way to look a prog array up (the verifier refuses it) */
}

const struct bpf_map_ops prog_array_map_ops = {
	.alloc_check = fd_array_alloc_check,
	.alloc = parray_alloc,
	.free = parray_free,
	.lookup = parray_lookup,
	.lookup_ptr = parray_lookup_ptr,
	.update = parray_update,
	.delete = parray_delete,
	.get_next_key = array_map_get_next_key,
	.update_batch = generic_map_update_batch,
	.delete_batch = generic_map_delete_batch,
	.lookup_batch = generic_map_lookup_batch,
	/* a tail call's target may leave its slot (and lose its last reference) meanwhile */
	.prog_needs_rcu = true,
	.no_inner_map = true,
};
