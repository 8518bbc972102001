/* Cgroup storage (cgroup_storage.c): the storages attaching a program links into the cgroup
 * storage maps it uses, and the storage a program's test run brings for them, which
 * bpf_get_local_storage() returns. */
#ifndef USERBPF_MAP_CGROUP_STORAGE_H
#define USERBPF_MAP_CGROUP_STORAGE_H

#include "util.h"

struct bpf_map;
struct bpf_prog;

/* Storage types: shared (BPF_MAP_TYPE_CGROUP_STORAGE) and per CPU (..._PERCPU_...). */
#define CGROUP_STORAGE_TYPES 2

/* The storages of one run of a program, on the caller's stack. */
struct cgroup_storage_run {
	struct bpf_map *map[CGROUP_STORAGE_TYPES];	/* the program's maps (NULL: none) */
	void *mem[CGROUP_STORAGE_TYPES];		/* their zeroed storage */
	struct cgroup_storage_run *prev;		/* the thread's previous run */
};

/* Attaching prog to the cgroup of id as attach_type (the kernel's bpf_cgroup_storages_alloc()
 * and _link()): each of its maps gets a zeroed storage for that key, where it has none yet; 0
 * or -ENOMEM. */
int cgroup_storage_attach(const struct bpf_prog *prog, u64 cgroup_id, u32 attach_type);
/* A removed cgroup's storages leave every map. */
void cgroup_storage_release_cgroup(u64 cgroup_id);

/* Makes fresh zeroed storage for prog's cgroup storage maps and makes it the calling thread's
 * until cgroup_storage_run_end(run); 0 or -ENOMEM. */
int cgroup_storage_run_begin(const struct bpf_prog *prog, struct cgroup_storage_run *run);
void cgroup_storage_run_end(struct cgroup_storage_run *run);

/* bpf_get_local_storage(map, 0): the calling thread's storage of map (per CPU: its CPU's copy). */
void *cgroup_storage_get(struct bpf_map *map);

#endif
