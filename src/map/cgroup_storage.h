/* Cgroup storage (cgroup_storage.c): the storage a program's test run brings for the cgroup
 * storage maps it uses, which bpf_get_local_storage() returns. */
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

/* Makes fresh zeroed storage for prog's cgroup storage maps and makes it the calling thread's
 * until cgroup_storage_run_end(run); 0 or -ENOMEM. */
int cgroup_storage_run_begin(const struct bpf_prog *prog, struct cgroup_storage_run *run);
void cgroup_storage_run_end(struct cgroup_storage_run *run);

/* bpf_get_local_storage(map, 0): the calling thread's storage of map (per CPU: its CPU's copy). */
void *cgroup_storage_get(struct bpf_map *map);

#endif
