/* Tasks by id, held by reference: for each pid the caller puts in .bss, bpf_task_from_pid()
 * (NULL for an id no task has), the task's tgid, name and parent's tgid, and whether it is the
 * current task; then bpf_task_acquire() of the current task; then the current cgroup by its id
 * (bpf_cgroup_from_id()), its level and id, its root ancestor (bpf_cgroup_ancestor()) and
 * whether the task is under it.  Every reference is released (the verifier refuses the program
 * otherwise).  A syscall program: sleepable, so the parent read outside an RCU section is an
 * untrusted pointer's probe load. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "task_lookup.h"
#include "task_types.h"

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct cgroup *bpf_cgroup_from_id(unsigned long long cgid) __ksym;
extern struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
extern long bpf_task_under_cgroup(struct task_struct *task, struct cgroup *ancestor) __ksym;

static struct task_struct *(*get_current_task_btf)(void) = (void *)BPF_FUNC_get_current_task_btf;

struct task_lookup lookup;

SEC("syscall") int syscall_task_lookup(void *ctx)
{
	struct task_struct *cur = get_current_task_btf(), *t;

	for (int i = 0; i < TASK_LOOKUPS; i++) {
		struct task_entry *e = &lookup.e[i];

		t = bpf_task_from_pid(e->pid);
		e->found = t != 0;
		if (!t)
			continue;
		e->tgid = t->tgid;
		e->ppid = t->real_parent->tgid;
		__builtin_memcpy(e->comm, t->comm, sizeof(e->comm));
		e->is_current = t == cur;
		bpf_task_release(t);
	}
	t = bpf_task_acquire(cur);
	if (!t)
		return 1;
	lookup.current_pid = t->pid;
	bpf_task_release(t);

	struct cgroup *cg = bpf_cgroup_from_id(bpf_get_current_cgroup_id()), *root;

	lookup.cgroup_found = cg != 0;
	if (!cg)
		return 0;
	lookup.cgroup_level = cg->level;
	lookup.cgroup_id = cg->kn->id;
	root = bpf_cgroup_ancestor(cg, 0);
	lookup.root_found = root != 0;
	if (root) {
		lookup.root_id = root->kn->id;
		lookup.under_root = bpf_task_under_cgroup(cur, root);
		bpf_cgroup_release(root);
	}
	bpf_cgroup_release(cg);
	return 0;
}

char _license[] SEC("license") = "GPL";
