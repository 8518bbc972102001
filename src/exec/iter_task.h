/* The open-coded task iterator, struct bpf_iter_task (iter_task.c), called as helpers are. */
#ifndef USERBPF_EXEC_ITER_TASK_H
#define USERBPF_EXEC_ITER_TASK_H

#include "exec/helpers.h"

u64 bpf_iter_task_new_kfunc(u64 it, u64 task, u64 flags, u64 a4, u64 a5);
u64 bpf_iter_task_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_iter_task_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);

#endif
