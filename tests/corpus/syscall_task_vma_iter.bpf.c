/* The open-coded task_vma iterator (bpf_iter_task_vma_new(), _next(), _destroy()): a syscall
 * program walks the areas of the thread its ctx names from the address its ctx gives, counts
 * them, and notes the file-backed ones (start, end, permission flags, page offset, inode number)
 * in .bss, up to 64; it returns the count.  tests/test_loader_iter.c runs it on both sides. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "file_types.h"

struct task_struct;

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
	unsigned long vm_pgoff;
	struct file *vm_file;
} __attribute__((preserve_access_index));

struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;
extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct area {
	__u64 start, end, flags, pgoff, ino;
};

struct area areas[64];
__u32 nr_file_areas;
int new_ret;

struct walk_args {
	__s32 pid;
	__u32 pad;
	__u64 addr;
};

SEC("syscall") int syscall_task_vma_iter(struct walk_args *ctx)
{
	struct task_struct *t = bpf_task_from_pid(ctx->pid);
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	int n = 0;

	nr_file_areas = 0;
	if (!t)
		return -1;
	new_ret = bpf_iter_task_vma_new(&it, t, ctx->addr);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		struct file *f = vma->vm_file;
		__u32 i = nr_file_areas;

		n++;
		if (!f || i >= 64)
			continue;
		areas[i].start = vma->vm_start;
		areas[i].end = vma->vm_end;
		areas[i].flags = vma->vm_flags & 0xf;
		areas[i].pgoff = vma->vm_pgoff;
		areas[i].ino = f->f_inode->i_ino;
		nr_file_areas = i + 1;
	}
	bpf_iter_task_vma_destroy(&it);
	bpf_task_release(t);
	return n;
}

char _license[] SEC("license") = "GPL";
