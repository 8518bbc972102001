/* Fd arrays: array maps whose slots hold references on objects (programs in a program array,
 * maps in an array of maps) that bpf() sets by fd and reads back by id, as the kernel's
 * fd_array_map_*() functions serve its program, perf event, cgroup and map arrays.
 *
 * A type keeps max_entries slots (struct bpf_object *, NULL when empty) and calls these with
 * them.  The rules are the kernel's: updates take BPF_ANY only and refuse an index beyond the
 * array with E2BIG before looking at the fd; deletes say E2BIG there too; lookups say ENOENT for
 * an empty slot or a bad index.  An object leaving a slot through bpf() is put after the
 * command's read section (obj_put_deferred), as readers (programs) may hold it until then.
 */
#ifndef USERBPF_MAP_FD_ARRAY_H
#define USERBPF_MAP_FD_ARRAY_H

#include "map/map.h"

/* The kernel's fd_array_map_alloc_check(): 4-byte values (fds) and keys, at least one entry,
 * no flags but NUMA_NODE, RDONLY and WRONLY (EINVAL). */
int fd_array_alloc_check(const union bpf_attr *attr);

/* A zeroed map struct of header bytes followed by max_entries slots of slot_size bytes, or NULL
 * (also when the size does not fit in a size_t, as on i386). */
void *fd_array_alloc(size_t header, u32 max_entries, size_t slot_size);

/* The object in slot index, or NULL (empty, or beyond max_entries).  Inside a read section. */
static inline struct bpf_object *fd_array_get(const struct bpf_map *map,
					      struct bpf_object *const *slots, u32 index)
{
	return index < map->max_entries ? __atomic_load_n(&slots[index], __ATOMIC_ACQUIRE) : NULL;
}

/* The object the fd at value (a u32) names, referenced, if the type takes it; else NULL and
 * *err.  Inside the command's read section. */
typedef struct bpf_object *(*fd_array_resolve_fn)(struct bpf_map *map, const void *value,
						  int *err);

int fd_array_lookup(struct bpf_map *map, struct bpf_object **slots, const void *key,
		    void *value);
int fd_array_update(struct bpf_map *map, struct bpf_object **slots, const void *key,
		    const void *value, u64 flags, fd_array_resolve_fn resolve);
int fd_array_delete(struct bpf_map *map, struct bpf_object **slots, const void *key);
/* Empties every slot, putting the objects at once: no read section may be held. */
void fd_array_clear(struct bpf_map *map, struct bpf_object **slots);

#endif
