/* kfuncs_refs.c — references to kernel objects: bpf_task_acquire() and bpf_task_release(),
 * bpf_task_from_pid() / bpf_task_from_vpid(), which find a task by its id (both this process's
 * pid namespace's ids: /proc's), bpf_cgroup_acquire() and bpf_cgroup_release(),
 * bpf_cgroup_ancestor(), bpf_cgroup_from_id(); and bpf_task_under_cgroup().
 *
 * A reference keeps an object alive in the kernel.  userbpf's tasks and cgroups
 * (current_task.c, current_cgroup.c) are never freed while a program runs (a thread's own task
 * lives as long as the thread, every other object for the process's life), and the verifier
 * sees to it that a program releases what it acquires before it ends (there is no map to keep
 * one in, no kptr), so taking and dropping one is only the verifier's business: acquiring gives
 * back the object, releasing does nothing.
 */
#include "exec/current_cgroup.h"
#include "exec/current_task.h"
#include "exec/kfuncs_refs.h"

/* (bpf_cgroup_acquire() too) */
u64 bpf_task_acquire_kfunc(u64 task, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return task;
}

/* bpf_task_release(), bpf_cgroup_release() */
u64 bpf_obj_release_kfunc(u64 obj, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

u64 bpf_task_from_pid_kfunc(u64 pid, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_task_by_pid((int)(s32)pid);
}

/* (level is an int) */
u64 bpf_cgroup_ancestor_kfunc(u64 cgrp, u64 level, u64 a3, u64 a4, u64 a5)
{
	return cgroup_ancestor(cgrp, (s32)level);
}

u64 bpf_cgroup_from_id_kfunc(u64 id, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return cgroup_by_id(id);
}

u64 bpf_task_under_cgroup_kfunc(u64 task, u64 ancestor, u64 a3, u64 a4, u64 a5)
{
	return cgroup_task_under(task, ancestor);
}
