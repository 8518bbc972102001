/* The kernel's kfuncs that hand out references to kernel objects, tasks and cgroups
 * (kfuncs_refs.c), called as helpers are. */
#ifndef USERBPF_EXEC_KFUNCS_REFS_H
#define USERBPF_EXEC_KFUNCS_REFS_H

#include "exec/helpers.h"

u64 bpf_task_acquire_kfunc(u64 task, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_obj_release_kfunc(u64 obj, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_task_from_pid_kfunc(u64 pid, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cgroup_ancestor_kfunc(u64 cgrp, u64 level, u64 a3, u64 a4, u64 a5);
u64 bpf_cgroup_from_id_kfunc(u64 id, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_task_under_cgroup_kfunc(u64 task, u64 ancestor, u64 a3, u64 a4, u64 a5);

#endif
