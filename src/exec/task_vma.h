/* task_vma.h — a task's memory areas as the kernel's struct vm_area_struct, for bpf_find_vma()
 * and the task_vma iterator:
 * read from /proc/<tgid>/maps and laid out by the kernel's BTF, with the mapped file as a
 * struct file, dentry and inode a program can walk to.
 */
#ifndef USERBPF_EXEC_TASK_VMA_H
#define USERBPF_EXEC_TASK_VMA_H

#include "util.h"

/* The area of task (one of userbpf's task_structs) that holds addr, as a vm_area_struct in the
 * tasks' arena, valid until task_vma_put(): its address, or 0 with *err: -ENOENT (no area
 * there, no mm, no /proc to read, no kernel BTF), -EBUSY (this thread's area is in use: a
 * nested call). */
u64 task_vma_get(u64 task, u64 addr, int *err);
/* The same for the first area ending above addr (the kernel's find_vma(), which the task_vma
 * iterator walks by), its end in *end. */
u64 task_vma_next(u64 task, u64 addr, u64 *end, int *err);
/* The task's open file with the lowest fd at or above from, as a struct file (its dentry's name,
 * its inode's number and mode, its position) in the same block (valid until task_vma_put()):
 * its address and *fd, or 0 (no more, or the errors above). */
u64 task_file_next(u64 task, u32 from, u32 *fd, int *err);
void task_vma_put(void);
/* An iterator's walk over tasks' areas or files, between the two: each task's /proc files are
 * read once, on its first step, and later steps look in that copy. */
void task_walk_begin(void);
void task_walk_end(void);

/* The open-coded iterator over a task's areas, struct bpf_iter_task_vma (one word), called as
 * helpers are: _new(it, task, addr), _next(it) (a vm_area_struct as above, or 0), _destroy(it). */
u64 bpf_iter_task_vma_new_kfunc(u64 it, u64 task, u64 addr, u64 a4, u64 a5);
u64 bpf_iter_task_vma_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_iter_task_vma_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5);

#endif
