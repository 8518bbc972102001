/* The cgroup array's interface to the helpers (src/map/cgroup_array.c). */
#ifndef USERBPF_MAP_CGROUP_ARRAY_H
#define USERBPF_MAP_CGROUP_ARRAY_H

#include "util.h"

struct bpf_map;

/* The cgroup in slot index of a cgroup array: its id and level (0: the root); -E2BIG beyond
 * the array, -EAGAIN for an empty slot (the helpers' errors). */
int cgroup_array_get(struct bpf_map *map, u32 index, u64 *id, int *level);

#endif
