/* The open-coded cgroup iterator, struct bpf_iter_css (iter_css.c), called as helpers are. */
#ifndef USERBPF_EXEC_ITER_CSS_H
#define USERBPF_EXEC_ITER_CSS_H

#include "exec/helpers.h"

u64 bpf_iter_css_new_kfunc(u64 it, u64 start, u64 flags, u64 a4, u64 a5);
u64 bpf_iter_css_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_iter_css_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
/* The open-coded iterator over a cgroup's tasks, struct bpf_iter_css_task. */
u64 bpf_iter_css_task_new_kfunc(u64 it, u64 css, u64 flags, u64 a4, u64 a5);
u64 bpf_iter_css_task_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_iter_css_task_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);

#endif
