/* iter_task.c — the open-coded task iterator (struct bpf_iter_task, 24 bytes on the program's
 * stack): bpf_iter_task_new(it, task, flags), _next(it), _destroy(it); and the iter/task link's
 * walks (prog/iter.c).
 *
 * flags: BPF_TASK_ITER_ALL_PROCS, every process, the idle task first (as the kernel walks its
 * task list from init_task); BPF_TASK_ITER_ALL_THREADS, every thread of each of them in turn;
 * BPF_TASK_ITER_PROC_THREADS, the threads of task's process, from task on (-EINVAL without a
 * task).  Other flags: -EINVAL, and _next() gives nothing.
 *
 * userbpf's tasks are /proc's (current_task.c): _new() takes the list of ids to visit from
 * /proc at once, and _next() gives the task of the next id still there.  The kernel's lists
 * keep tasks in the order they were made, which is not the ids' once ids wrapped at pid_max
 * (32768 on many machines: a busy CI host wraps in minutes), so the list is put in that order
 * (task_ids_creation_order()).  The list is freed by _destroy(), which the verifier makes every
 * program call.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int cmp_start(const void *a, const void *b)
{
	const struct task_start *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return cmp_int(&x->id, &y->id);
}

/* Tasks made in one clock tick lie on a short arc of the id circle: ascending ids, unless
 * the arc crosses pid_max, when it starts after the widest gap between them. */
static void rotate_tick(struct task_start *t, u32 n, u32 pid_max)
{
	u32 widest = pid_max - (u32)t[n - 1].id + (u32)t[0].id, at = 0;
	struct task_start *copy;

	for (u32 k = 1; k < n; k++)
		if ((u32)(t[k].id - t[k - 1].id) > widest) {
			widest = (u32)(t[k].id - t[k - 1].id);
			at = k;
		}
	if (!at || !(copy = malloc(n * sizeof(*t))))
		return;
	for (u32 k = 0; k < n; k++)
		copy[k] = t[(at + k) % n];
	memcpy(t, copy, n * sizeof(*t));
	free(copy);
}

void task_ids_creation_order(struct task_start *t, u32 n, u32 pid_max)
{
	u32 i = 0;

	qsort(t, n, sizeof(*t), cmp_start);
	while (i < n) {
		u32 j = i + 1;

		while (j < n && t[j].start == t[i].start)
			j++;
		if (j - i > 1)
			rotate_tick(t + i, j - i, pid_max);
		i = j;
	}
}

/* Where ids wrap (read once; the largest a 64-bit kernel allows if unreadable). */
static u32 pid_max(void)
{
	static u32 max;
	u32 m = __atomic_load_n(&max, __ATOMIC_RELAXED);
	FILE *fp;

	if (m)
		return m;
	m = 4194304;
	fp = fopen("/proc/sys/kernel/pid_max", "re");
	if (fp) {
		if (fscanf(fp, "%u", &m) != 1 || !m)
			m = 4194304;
		fclose(fp);
	}
	__atomic_store_n(&max, m, __ATOMIC_RELAXED);
	return m;
}

/* The task's start time in clock ticks since boot (field 22 of stat_path); 0 if it is gone. */
static u64 start_ticks(const char *stat_path)
{
	char line[1024], *p;
	unsigned long long t = 0;
	FILE *fp = fopen(stat_path, "re");

	if (!fp)
		return 0;
	/* "pid (comm) state ...": the comm may hold spaces and parentheses; field 22 follows
	 * the 20th space after it */
	if (fgets(line, sizeof(line), fp) && (p = strrchr(line, ')'))) {
		for (int space = 0; p && space < 20; space++)
			p = strchr(p + 1, ' ');
		if (p)
			t = strtoull(p + 1, NULL, 10);
	}
	fclose(fp);
	return t;
}

/* The numeric entries of directory path appended to l: ascending, or (by_creation) in the
 * order they were made. */
static void dir_ids(const char *path, struct id_list *l, bool by_creation)
{
	DIR *d = opendir(path);
	struct dirent *e;
	struct task_start *t;
	u32 from = l->n, n;

	while (d && (e = readdir(d))) {
		char *end;
		long id = strtol(e->d_name, &end, 10);

		if (!*end && id > 0)
			push(l, (int)id);
	}
	if (d)
		closedir(d);
	n = l->n - from;
	if (n < 2)
		return;
	if (!by_creation || !(t = malloc(n * sizeof(*t)))) {
		qsort(l->ids + from, n, sizeof(int), cmp_int);
		return;
	}
	for (u32 i = 0; i < n; i++) {
		char stat[80];

		snprintf(stat, sizeof(stat), "%s/%d/stat", path, l->ids[from + i]);
		t[i].id = l->ids[from + i];
		t[i].start = start_ticks(stat);
	}
	task_ids_creation_order(t, n, pid_max());
	for (u32 i = 0; i < n; i++)
		l->ids[from + i] = t[i].id;
	free(t);
}

/* The threads of process tgid appended to l, ascending or in the order they were made. */
static void thread_ids(int tgid, struct id_list *l, bool by_creation)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir_ids(path, l, by_creation);
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
		dir_ids("/proc", &procs, true);
		for (u32 i = 0; i < procs.n; i++) {
			if ((u32)flags == ITER_ALL_PROCS)
				push(&l, procs.ids[i]);
			else
				thread_ids(procs.ids[i], &l, true);
		}
		free(procs.ids);
		break;
	case ITER_PROC_THREADS:
		if (!task || current_task_pid(task, &pid))
			return (u64)-EINVAL;
		/* its process's threads, from it on, around to the one before it */
		thread_ids(current_task_tgid(task), &procs, true);
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

/* The iter/task link's walk of every thread: by ascending id, processes' threads mixed (the
 * kernel's seq file walks its id table); no idle task. */
void iter_task_new_by_tid(u64 it)
{
	struct iter_task *k = (struct iter_task *)(uintptr_t)it;
	struct id_list l = { 0 }, procs = { 0 };

	dir_ids("/proc", &procs, false);
	for (u32 i = 0; i < procs.n; i++)
		thread_ids(procs.ids[i], &l, false);
	free(procs.ids);
	if (l.n > 1)
		qsort(l.ids, l.n, sizeof(int), cmp_int);
	k->ids = (uintptr_t)l.ids;
	k->pos = 0;
	k->n = l.n;
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
