/* Maps of maps (BPF_MAP_TYPE_ARRAY_OF_MAPS, BPF_MAP_TYPE_HASH_OF_MAPS): what the two types share.
 *
 * An outer map is created with a template, inner_map_fd: every map stored in it must match the
 * template's type, key and value sizes and flags (and, for a plain array without
 * BPF_F_INNER_MAP, its max_entries), as the kernel's bpf_map_meta_equal() and
 * array_map_meta_equal() require.  The template is kept as a copy of the inner map's generic
 * fields (map->inner_meta), which is what the verifier checks a program's use of an inner map
 * against: after a lookup in the outer map and a NULL check, a register holds "some map shaped
 * like the template".
 *
 * bpf() writes an inner map's fd into an element and reads its id back; a program's lookup
 * returns the inner map itself.  Each element holds a reference on its map.
 */
#ifndef USERBPF_MAP_IN_MAP_H
#define USERBPF_MAP_IN_MAP_H

#include "map/map.h"

/* The template from attr->inner_map_fd, or NULL with *err set (EBADF: no fd; EINVAL: not a map,
 * or a map of maps; ENOTSUPP: a type that cannot be an inner map). */
struct bpf_map *map_meta_alloc(const union bpf_attr *attr, int *err);
/* Frees a template made by map_meta_alloc() (NULL: nothing), with its BTF reference. */
void map_meta_free(struct bpf_map *meta);

/* The map behind the fd at value (a u32), with a reference, if it matches outer's template; NULL
 * with *err set otherwise.  Inside rcu_read_lock(). */
struct bpf_map *map_in_map_get(struct bpf_map *outer, const void *value, int *err);

#endif
