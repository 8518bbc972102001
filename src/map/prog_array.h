/* The program array's interface to the rest of userbpf (src/map/prog_array.c). */
#ifndef USERBPF_MAP_PROG_ARRAY_H
#define USERBPF_MAP_PROG_ARRAY_H

#include "util.h"

struct bpf_map;
struct bpf_prog;

/* The program in slot index, or NULL (empty, or beyond max_entries).  Inside a read section:
 * the program stays valid until it ends. */
struct bpf_prog *prog_array_get(struct bpf_map *map, u32 index);

#endif
