/* iter_task.c — the open-coded task iterator (struct bpf_iter_task, 24 bytes on the program's
 * stack): bpf_iter_task_new(it, task, flags), _next(it), _destroy(it).
 *
 * flags: BPF_TASK_ITER_ALL_PROCS, every process, the idle task first (as the kernel walks its
 * task list from init_task); BPF_TASK_ITER_ALL_THREADS, every thread of each of them in turn;
 * BPF_TASK_ITER_PROC_THREADS, the threads of task's process, from task on (-EINVAL without a
 * task).  Other flags: -EINVAL, and _next() gives nothing.
 *
 * userbpf's tasks are /proc's (current_task.c): _new() takes the list of ids to visit from
 * /proc at once (processes and threads in ascending id, the order the kernel's lists have
 * unless ids wrapped), and _next() gives the task of the next id still there.  The list is
 * freed by _destroy(), which the verifier makes every program call.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/current_task.h"
#include "exec/iter_task.h"

enum { ITER_ALL_PROCS, ITER_ALL_THREADS, ITER_PROC_THREADS };

/* The iterator, in the program's struct bpf_iter_task. */
struct iter_task {
	u64 ids;	/* (int *) the ids to visit, malloc'ed; 0: none */
	u32 pos, n;
	u64 unused;
};

_Static_assert(sizeof(struct iter_task) == 24, "struct bpf_iter_task is 24 bytes");

struct id_list {
	int *ids;
	u32 n, cap;
};

static void push(struct id_list *l, int id)
{
	if (l->n == l->cap) {
		u32 cap = l->cap ? l->cap * 2 : 256;
		int *p = realloc(l->ids, cap * sizeof(*p));

		if (!p)
			return; /* (short of memory: the iteration ends early) */
		l->ids = p;
		l->cap = cap;
	}
	l->ids[l->n++] = id;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of directory path, ascending, appended to l. */
static void dir_ids(const char *path, struct id_list *l)
{
	DIR *d = opendir(path);
	struct dirent *e;
	u32 from = l->n;

	while (d && (e = readdir(d))) {
		char *end;
		long id = strtol(e->d_name, &end, 10);

		if (!*end && id > 0)
			push(l, (int)id);
	}
	if (d)
		closedir(d);
	if (l->n > from)
		qsort(l->ids + from, l->n - from, sizeof(int), cmp_int);
}

/* The threads of process tgid, ascending, appended to l. */
static void thread_ids(int tgid, struct id_list *l)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir_ids(path, l);
}

u64 bpf_iter_task_new_kfunc(u64 it, u64 task, u64 flags, u64 a4, u64 a5)
{
	struct iter_task *k = (struct iter_task *)(uintptr_t)it;
	struct id_list l = { 0 }, procs = { 0 };
	u32 pid, start = 0;

	k->ids = 0;
	k->pos = k->n = 0;
	switch ((u32)flags) {
	case ITER_ALL_PROCS:
	case ITER_ALL_THREADS:
		push(&l, 0); /* the idle task */
		dir_ids("/proc", &procs);
		for (u32 i = 0; i < procs.n; i++) {
			if ((u32)flags == ITER_ALL_PROCS)
				push(&l, procs.ids[i]);
			else
				thread_ids(procs.ids[i], &l);
		}
		free(procs.ids);
		break;
	case ITER_PROC_THREADS:
		if (!task || current_task_pid(task, &pid))
			return (u64)-EINVAL;
		/* its process's threads, from it on, around to the one before it */
		thread_ids(current_task_tgid(task), &procs);
		while (start < procs.n && procs.ids[start] != (int)pid)
			start++;
		if (start == procs.n)
			push(&l, (int)pid);
		for (u32 i = 0; i < procs.n; i++)
			push(&l, procs.ids[(start + i) % procs.n]);
		free(procs.ids);
		break;
	default:
		return (u64)-EINVAL;
	}
	k->ids = (uintptr_t)l.ids;
	k->n = l.n;
	return 0;
}

u64 bpf_iter_task_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_task *k = (struct iter_task *)(uintptr_t)it;
	const int *ids = (const int *)(uintptr_t)k->ids;

	while (k->pos < k->n) {
		int id = ids[k->pos++];
		u64 t = id ? current_task_by_pid(id) : current_task_idle();

		if (t) /* (else it went since _new()) */
			return t;
	}
	return 0;
}

u64 bpf_iter_task_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_task *k = (struct iter_task *)(uintptr_t)it;

	free((void *)(uintptr_t)k->ids);
	k->ids = 0;
	k->pos = k->n = 0;
	return 0;
}
