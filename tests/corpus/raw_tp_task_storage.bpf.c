/* Task storage as tracing tools keep per-task state: a count per task in a
 * BPF_MAP_TYPE_TASK_STORAGE map, made on first sight of the task (the current one and its
 * parent), and dropped when it reaches a limit. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_struct {
	int pid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, long);
} counts SEC(".maps");

SEC("raw_tp/sys_enter") int raw_tp_task_storage(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	long *n = bpf_task_storage_get(&counts, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	long *p = bpf_task_storage_get(&counts, t->real_parent, 0,
				       BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!n || !p)
		return 0;
	*p += 1;
	if (++*n >= 1000)
		bpf_task_storage_delete(&counts, t);
	return *n;
}

char _license[] SEC("license") = "GPL";
