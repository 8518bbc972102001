/* Cgroup storage as tools keep per-cgroup state: a count per cgroup in a
 * BPF_MAP_TYPE_CGRP_STORAGE map, on the current task's cgroup (task->cgroups->dfl_cgrp, an RCU
 * pointer in a raw tracepoint), made on first sight, dropped when it reaches 100; the count and
 * whether the cgroup's id is bpf_get_current_cgroup_id()'s come back in the return value. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* (newer than the uapi header this may be built with) */
#define MAP_TYPE_CGRP_STORAGE 32
static void *(*cgrp_storage_get)(void *map, void *cgrp, void *value, __u64 flags) = (void *)210;
static long (*cgrp_storage_delete)(void *map, void *cgrp) = (void *)211;

struct kernfs_node {
	unsigned long long id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct {
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

struct {
	__uint(type, MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, long);
} counts SEC(".maps");

SEC("raw_tp/sys_enter") int raw_tp_cgrp_storage(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct cgroup *cg = t->cgroups->dfl_cgrp;
	long *n = cgrp_storage_get(&counts, cg, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	int same_id = cg->kn->id == bpf_get_current_cgroup_id();

	if (!n)
		return 0;
	if (++*n >= 100)
		cgrp_storage_delete(&counts, cg);
	return *n * 2 + same_id;
}

char _license[] SEC("license") = "GPL";
