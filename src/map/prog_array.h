/* The program array's interface to the rest of userbpf (src/map/prog_array.c). */
#ifndef USERBPF_MAP_PROG_ARRAY_H
#define USERBPF_MAP_PROG_ARRAY_H

#include "util.h"

struct bpf_map;
struct bpf_prog;

/* Whether prog may be in, or use, the program array map: the array's first program (or user)
 * sets its type and whether it is compiled; the others must match (EINVAL otherwise). */
bool prog_array_compatible(struct bpf_map *map, const struct bpf_prog *prog);

/* The program in slot index, or NULL (empty, or beyond max_entries).  Inside a read section:
 * the program stays valid until it ends. */
struct bpf_prog *prog_array_get(struct bpf_map *map, u32 index);

#endif
