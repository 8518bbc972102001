/* The cgroup array's interface to the helpers (src/map/cgroup_array.c). */
#ifndef USERBPF_MAP_CGROUP_ARRAY_H
#define USERBPF_MAP_CGROUP_ARRAY_H

#include "util.h"

struct bpf_map;

/* The cgroup in slot index of a cgroup array: its id and level (0: the root); -E2BIG beyond
 * the array, -EAGAIN for an empty slot (the helpers' errors). */
int cgroup_array_get(struct bpf_map *map, u32 index, u64 *id, int *level);

/* The cgroup2 mount's root (the part of the hierarchy it shows, "/" for all of it) and mount
 * point, from /proc/self/mountinfo; -EBADF if there is none. */
int cgroup2_mount_info(char *root, size_t root_size, char *mnt, size_t mnt_size);

#endif
