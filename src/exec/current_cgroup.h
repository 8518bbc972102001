/* The kernel's struct cgroup objects for programs (current_cgroup.c): the cgroup v2 hierarchy's
 * cgroups, laid out by the kernel's BTF, which the tasks' css_sets point at and the cgroup
 * kfuncs take and return. */
#ifndef USERBPF_EXEC_CURRENT_CGROUP_H
#define USERBPF_EXEC_CURRENT_CGROUP_H

#include "util.h"

/* The address of the struct css_set for the cgroup v2 cgroup of the task whose /proc directory
 * is proc_dir ("/proc/thread-self", "/proc/<pid>"), or 0 (no kernel BTF, no cgroup2 mount that
 * shows it). */
u64 cgroup_css_set_of(const char *proc_dir);

/* The id of the struct cgroup at cgrp (one of userbpf's): 0, or -EINVAL. */
int cgroup_id_of(u64 cgrp, u64 *id);

/* The same for the calling thread (its /proc file read again each time; the cgroup looked up
 * again only when the file says another). */
u64 cgroup_css_set_of_self(void);

/* The id of the cgroup whose directory fd is: a cgroup2 directory's inode number, a v1
 * hierarchy's with bit 63 set (CGROUP_V1_ID); -EBADF for any other fd. */
#define CGROUP_V1_ID (UINT64_C(1) << 63)
int cgroup_fd_id(int fd, u64 *id);

/* The struct cgroup of id (a cgroup2 directory's inode number), or 0 if no cgroup has it. */
u64 cgroup_by_id(u64 id);

/* The ancestor of the struct cgroup at cgrp at level (0: the root; its level: itself), or 0
 * if level is outside [0, its level] or cgrp is not one of userbpf's. */
u64 cgroup_ancestor(u64 cgrp, s64 level);

/* The cgroup at cgrp and every cgroup below it, depth first, each level's children in the order
 * they were made (post: each after its descendants, else before): a malloc'ed array in *out (at
 * most 4096; the caller frees it), and how many. */
int cgroup_descendants(u64 cgrp, bool post, u64 **out);

/* The parent of the cgroup at cgrp, or 0 for the root (or not one of userbpf's). */
u64 cgroup_parent(u64 cgrp);

/* The ids of the tasks in the cgroup at cgrp (not below it), as its cgroup.threads lists them
 * (procs: its processes, cgroup.procs): a malloc'ed array in *out (the caller frees it), and
 * how many. */
int cgroup_tasks(u64 cgrp, bool procs, int **out);

/* Whether the task's cgroup (task: one of current_task.c's) is ancestor or below it. */
bool cgroup_task_under(u64 task, u64 ancestor);

#endif
