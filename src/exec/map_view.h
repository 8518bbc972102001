/* map_view.h — userbpf's maps as the kernel's struct bpf_map, for the bpf_map iterator. */
#ifndef USERBPF_EXEC_MAP_VIEW_H
#define USERBPF_EXEC_MAP_VIEW_H

#include "util.h"

struct bpf_map;

/* map as a struct bpf_map laid out by the kernel's BTF in the tasks' arena, valid until the next
 * call on this thread: its address, or 0 without the kernel's BTF or memory. */
u64 map_view_get(const struct bpf_map *map);

#endif
