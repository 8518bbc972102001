/* bpf_get_current_task()'s task_struct: the calling thread's, built from the kernel's BTF (see
 * current_task.c for the fields it holds). */
#ifndef USERBPF_EXEC_CURRENT_TASK_H
#define USERBPF_EXEC_CURRENT_TASK_H

#include "util.h"

/* The address of the calling thread's task_struct, or 0 without a kernel BTF to lay it out by
 * (or when /proc cannot say what it holds). */
u64 current_task_addr(void);

#endif
