/* The open-coded iterator over a cgroup's tasks (bpf_iter_css_task_new(), _next(), _destroy()):
 * a syscall program (sleepable, as the kernel wants it) takes the cgroup of the id its ctx gives
 * and walks its threads (flags 0) or processes (CSS_TASK_ITER_PROCS), noting the first 32 ids
 * and their count in .bss; it returns the count, or -1 without the cgroup, or _new()'s error. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state;

struct cgroup {
	struct cgroup_subsys_state *__unused_self_marker;
} __attribute__((preserve_access_index));

struct bpf_iter_css_task {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_css_task_new(struct bpf_iter_css_task *it, struct cgroup_subsys_state *css,
				 unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_css_task_next(struct bpf_iter_css_task *it) __ksym;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym;
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

int ids[32];
__u32 count; /* (in memory: a counter in a register would keep the walk's rounds apart) */

struct walk_args {
	__u64 cgroup_id;
	__u32 flags;
};

SEC("syscall") int syscall_css_task_iter(struct walk_args *ctx)
{
	struct cgroup *cgrp = bpf_cgroup_from_id(ctx->cgroup_id);
	struct bpf_iter_css_task it;
	struct task_struct *t;
	int err;

	if (!cgrp)
		return -1;
	/* (a cgroup's css, its member self, is at its start) */
	count = 0;
	err = bpf_iter_css_task_new(&it, (struct cgroup_subsys_state *)cgrp, ctx->flags);
	while ((t = bpf_iter_css_task_next(&it))) {
		__u32 i = count;

		if (i < 32)
			ids[i] = t->pid;
		count = i + 1;
	}
	bpf_iter_css_task_destroy(&it);
	bpf_cgroup_release(cgrp);
	return err ? err : (int)count;
}

char _license[] SEC("license") = "GPL";
