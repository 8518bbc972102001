/* BPF_PROG_BIND_MAP: a loaded program takes a reference on a map it does not use, as the
 * kernel's bpf_prog_bind_map().  libbpf binds an object's .rodata to each of its programs this
 * way, so that tools find a program's metadata through the info's map_ids; the map then lives as
 * long as the program.
 *
 * The verifier's used_maps stay as they were at load (runs and the JIT read them without a
 * lock); bound maps go on a list of their own, appended under one lock that the info's readers
 * take too.  The kernel appends to used_maps itself, so its map_ids list the same maps in the
 * same order: the used ones, then the bound ones as they came.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "map/map.h"
#include "prog/prog.h"

struct prog_bound_map {
	struct bpf_map *map;		/* a reference */
	struct prog_bound_map *next;
};

/* Binds are rare and quick: one lock for every program. */
static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;

static bool prog_has_map(const struct bpf_prog *prog, const struct bpf_map *map)
{
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if (prog->used_maps[i] == map)
			return true;
	for (const struct prog_bound_map *b = prog->bound_maps; b; b = b->next)
		if (b->map == map)
			return true;
	return false;
}

/* The program and the map found, a reference on each taken; the map's goes to the program
 * unless it has the map already. */
static int add_bound_map(struct bpf_prog *prog, struct bpf_map *map)
{
	struct prog_bound_map *b, **tail;
	int err = 0;

	pthread_mutex_lock(&bind_lock);
	if (prog_has_map(prog, map)) { /* bound already, or used: nothing to do, as the kernel */
		err = 1;
		goto unlock;
	}
	b = malloc(sizeof(*b));
	if (!b) {
		err = -ENOMEM;
		goto unlock;
	}
	b->map = map;
	b->next = NULL;
	for (tail = &prog->bound_maps; *tail; tail = &(*tail)->next)
		;
	*tail = b;
unlock:
	pthread_mutex_unlock(&bind_lock);
	return err;
}

int prog_bind_map(const union bpf_attr *attr)
{
	struct bpf_object *pobj, *mobj;
	int err;

	if (attr->prog_bind_map.flags)
		return -EINVAL;
	/* the kernel's order: the program's fd, then the map's */
	pobj = obj_get_from_fd((int)attr->prog_bind_map.prog_fd, OBJ_PROG, &err);
	if (!pobj)
		return err;
	mobj = obj_get_from_fd((int)attr->prog_bind_map.map_fd, OBJ_MAP, &err);
	if (mobj) {
		err = add_bound_map(prog_of(pobj), map_of(mobj));
		if (err) /* the program has it already, or no memory: the reference goes back */
			obj_put(mobj);
		if (err > 0)
			err = 0;
	}
	obj_put(pobj);
	return err;
}

int prog_map_ids(const struct bpf_prog *prog, u32 **ids, u32 *cnt)
{
	u32 n = prog->used_map_cnt, i = 0;
	const struct prog_bound_map *b;
	u32 *out;

	pthread_mutex_lock(&bind_lock);
	for (b = prog->bound_maps; b; b = b->next)
		n++;
	out = malloc((size_t)n * sizeof(*out) + 1);
	if (out) {
		for (; i < prog->used_map_cnt; i++)
			out[i] = prog->used_maps[i]->obj.id;
		for (b = prog->bound_maps; b; b = b->next)
			out[i++] = b->map->obj.id;
	}
	pthread_mutex_unlock(&bind_lock);
	if (!out)
		return -ENOMEM;
	*ids = out;
	*cnt = n;
	return 0;
}

void prog_unbind_maps(struct bpf_prog *prog)
{
	for (struct prog_bound_map *b = prog->bound_maps, *n; b; b = n) {
		n = b->next;
		obj_put(&b->map->obj);
		free(b);
	}
	prog->bound_maps = NULL;
}
