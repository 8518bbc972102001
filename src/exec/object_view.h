/* object_view.h — userbpf's maps and programs as the kernel's struct bpf_map and struct
 * bpf_prog, for the bpf_map and bpf_prog iterators. */
#ifndef USERBPF_EXEC_OBJECT_VIEW_H
#define USERBPF_EXEC_OBJECT_VIEW_H

#include "util.h"

struct bpf_map;
struct bpf_prog;

/* map as a struct bpf_map laid out by the kernel's BTF in the tasks' arena, valid until the next
 * call on this thread: its address, or 0 without the kernel's BTF or memory. */
u64 map_view_get(const struct bpf_map *map);
/* The same for prog, a struct bpf_prog with its struct bpf_prog_aux. */
u64 prog_view_get(const struct bpf_prog *prog);

#endif
