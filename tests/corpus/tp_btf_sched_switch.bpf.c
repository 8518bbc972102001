/* A BTF tracepoint as scheduler tools write one (tp_btf/sched_switch): the arguments typed by
 * the kernel's BTF (a bool, the two tasks as trusted pointers, the previous task's state),
 * switches counted by that state in an array, the tasks' ids and the previous task's parent
 * read directly (CO-RE layouts), and the next task held for a moment with bpf_task_acquire(),
 * which takes trusted pointers only. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "task_types.h"

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} switches SEC(".maps");

struct {
	int next_pid, next_tgid, prev_ppid, preempted;
} last;

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 key = prev_state & 3;
	__u64 *n = bpf_map_lookup_elem(&switches, &key);
	struct task_struct *held;

	if (n)
		__sync_fetch_and_add(n, 1);
	last.next_pid = next->pid;
	last.prev_ppid = prev->real_parent->tgid;
	last.preempted += preempt;
	held = bpf_task_acquire(next);
	if (!held)
		return 0;
	last.next_tgid = held->tgid;
	bpf_task_release(held);
	return 0;
}

char _license[] SEC("license") = "GPL";
