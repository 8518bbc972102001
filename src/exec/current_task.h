/* bpf_get_current_task()'s task_struct: the calling thread's, built from the kernel's BTF (see
 * current_task.c for the fields it holds). */
#ifndef USERBPF_EXEC_CURRENT_TASK_H
#define USERBPF_EXEC_CURRENT_TASK_H

#include "util.h"

/* The address of the calling thread's task_struct, or 0 without a kernel BTF to lay it out by
 * (or when /proc cannot say what it holds). */
u64 current_task_addr(void);

/* What current_task_addr() answers without looking while a hold (current_task_hold()) has
 * checked the task, else 0: the JIT reads it inline before calling the helper.  Initial-exec
 * TLS, so at one offset from every thread's pointer. */
extern __thread u64 current_task_cached __attribute__((tls_model("initial-exec")));

/* Whether the n bytes at addr are inside the calling thread's task or an ancestor's (with their
 * creds and mms): memory that stays mapped while a program runs, so a probe load reads it
 * directly (probe_load()). */
bool current_task_holds(u64 addr, u32 n);

/* The task_struct of the task (thread) pid, or 0 if there is none: the calling thread's own
 * (current_task_addr()), or one made from /proc (kept for the process's life, as ancestors
 * are; made anew when the id went to another task).  Ids are this process's pid namespace's. */
u64 current_task_by_pid(int pid);

/* The cgroups (struct css_set *) of the task_struct at task, one of userbpf's; 0 if none. */
u64 current_task_cgroups(u64 task);

/* size bytes, zeroed, in the tasks' arena (readable in place, never freed: the cgroups'
 * objects), or malloc'ed where the arena is full; NULL without memory. */
void *task_arena_alloc(size_t size);

/* The idle task ("swapper/0", pid 0), which the task iterator gives first; 0 without a
 * kernel BTF. */
u64 current_task_idle(void);

/* The tgid in the task_struct at task (one of userbpf's), or 0. */
int current_task_tgid(u64 task);

/* The mm_struct pointer in the task_struct at task (one of userbpf's), or 0 (none: the idle
 * task's). */
u64 current_task_mm(u64 task);

/* The pid (thread id) in the task_struct at task, one of userbpf's: 0, or -EINVAL. */
int current_task_pid(u64 task, u32 *pid);

/* The mapping every task lives in (reserved on the first call): any address in [*lo, *lo +
 * *size + TASK_ARENA_TAIL) may be read at any time, and a load of up to 8 bytes from it never
 * faults; *size is a power of two that *lo is aligned to.  False (and *size 0) where it could
 * not be mapped. */
bool current_task_arena(uintptr_t *lo, size_t *size);

/* Bytes past the arena that stay mapped and zero (never handed out): a probe load at an
 * address that far past the arena reads 0, as probe_load() does there. */
#define TASK_ARENA_TAIL 4096u

/* Between these (nested), the calling thread's task is looked at once, by the first run that
 * asks for it, and then kept: a command's repeated runs see one snapshot (its ids, name and
 * parent), as if a change came after them, instead of paying /proc's and four system calls'
 * cost each time. */
void current_task_hold(void);
void current_task_release(void);

#endif
