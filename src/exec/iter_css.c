/* iter_css.c — the open-coded cgroup iterator (struct bpf_iter_css, 24 bytes on the program's
 * stack): bpf_iter_css_new(it, start, flags), _next(it), _destroy(it), over the cgroup
 * subsystem states of cgroup v2 cgroups (a cgroup's `self`, at its start: userbpf's css is its
 * cgroup, current_cgroup.c).
 *
 * flags: BPF_CGROUP_ITER_DESCENDANTS_PRE (start, then below it, each before its children),
 * _DESCENDANTS_POST (each after its children, start last), _ANCESTORS_UP (start, its parent, up to
 * the root); any other: -EINVAL, and _next() gives nothing.  Descendants are the cgroup2
 * directories below start when _new() is called (siblings in the order they were made, as the
 * kernel's lists keep them); the kernel also visits cgroups removed but not yet freed, which
 * userbpf cannot see.
 */
#include <errno.h>
#include <stdlib.h>

#include "exec/current_cgroup.h"
#include "exec/current_task.h"
#include "exec/iter_css.h"

enum { ITER_SELF_ONLY = 1, ITER_PRE, ITER_POST, ITER_UP };

struct iter_css {
	u64 list;	/* (u64 *) the css's to give, malloc'ed; 0: none */
	u32 pos, n;
	u64 up;		/* ITER_UP: the next to give */
};

_Static_assert(sizeof(struct iter_css) == 24, "struct bpf_iter_css is 24 bytes");

u64 bpf_iter_css_new_kfunc(u64 it, u64 start, u64 flags, u64 a4, u64 a5)
{
	struct iter_css *k = (struct iter_css *)(uintptr_t)it;
	u64 *list = NULL;

	k->list = k->up = 0;
	k->pos = k->n = 0;
	switch ((u32)flags) {
	case ITER_PRE:
	case ITER_POST:
		k->n = (u32)cgroup_descendants(start, (u32)flags == ITER_POST, &list);
		k->list = (uintptr_t)list;
		return 0;
	case ITER_UP:
		k->up = start;
		return 0;
	default:
		return (u64)-EINVAL;
	}
}

u64 bpf_iter_css_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_css *k = (struct iter_css *)(uintptr_t)it;
	u64 css;

	if (k->list)
		return k->pos < k->n ? ((const u64 *)(uintptr_t)k->list)[k->pos++] : 0;
	css = k->up;
	if (css)
		k->up = cgroup_parent(css);
	return css;
}

u64 bpf_iter_css_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_css *k = (struct iter_css *)(uintptr_t)it;

	free((void *)(uintptr_t)k->list);
	k->list = k->up = 0;
	return 0;
}

/* ---- the tasks of a cgroup (struct bpf_iter_css_task, one word) ---- */

#define CSS_TASK_ITER_PROCS_ (1u << 0)	  /* processes only: their leaders */
#define CSS_TASK_ITER_THREADED_ (1u << 1) /* with PROCS: a threaded subtree's too */

struct iter_css_task {
	int *pids;	/* as the cgroup's cgroup.threads (cgroup.procs) lists them at _new() */
	u32 pos, n;
};

/* bpf_iter_css_task_new(it, css, flags): the tasks of the cgroup (not below it), all of its
 * threads (flags 0) or its processes (CSS_TASK_ITER_PROCS, with or without _THREADED, which
 * userbpf's cgroups, none threaded, do not tell apart); other flags: -EINVAL. */
u64 bpf_iter_css_task_new_kfunc(u64 it, u64 css, u64 flags, u64 a4, u64 a5)
{
	struct iter_css_task *k;

	*(u64 *)(uintptr_t)it = 0;
	if ((u32)flags != 0 && (u32)flags != CSS_TASK_ITER_PROCS_ &&
	    (u32)flags != (CSS_TASK_ITER_PROCS_ | CSS_TASK_ITER_THREADED_))
		return (u64)-EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return (u64)-ENOMEM;
	k->n = (u32)cgroup_tasks(css, (u32)flags != 0, &k->pids);
	*(u64 *)(uintptr_t)it = (uintptr_t)k;
	return 0;
}

/* The next task, or NULL at the end (a task gone since _new() is passed over). */
u64 bpf_iter_css_task_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_css_task *k = (struct iter_css_task *)(uintptr_t)*(u64 *)(uintptr_t)it;

	while (k && k->pos < k->n) {
		u64 task = current_task_by_pid(k->pids[k->pos++]);

		if (task)
			return task;
	}
	return 0;
}

u64 bpf_iter_css_task_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_css_task *k = (struct iter_css_task *)(uintptr_t)*(u64 *)(uintptr_t)it;

	if (k) {
		free(k->pids);
		free(k);
	}
	*(u64 *)(uintptr_t)it = 0;
	return 0;
}
