/* The open-coded task iterator, struct bpf_iter_task (iter_task.c), called as helpers are. */
#ifndef USERBPF_EXEC_ITER_TASK_H
#define USERBPF_EXEC_ITER_TASK_H

#include "exec/helpers.h"

u64 bpf_iter_task_new_kfunc(u64 it, u64 task, u64 flags, u64 a4, u64 a5);
u64 bpf_iter_task_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_iter_task_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);

/* it as _new() leaves it, visiting every thread by ascending id (the iter/task link's walk);
 * _next() and _destroy() as for the others. */
void iter_task_new_by_tid(u64 it);

/* A task's id and start time (clock ticks since boot). */
struct task_start {
	int id;
	u64 start;
};

/* Sorts t into the order its tasks were made, the order of the kernel's task and thread lists:
 * by start time, and within a clock tick by id from where ids wrapped at pid_max if they did. */
void task_ids_creation_order(struct task_start *t, u32 n, u32 pid_max);

#endif
