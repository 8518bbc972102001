/* A task iterator as tools write one (iter/task, bpftool's pids-style listing): each task's
 * pid, its group leader's and its name printed with BPF_SEQ_PRINTF() into the iterator's
 * seq_file, a header on the first element, the tasks of one group skipped but for the leader.
 * (userbpf verifies iterator programs; it runs none.) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "task_types.h"
#include "iter_types.h"

const volatile int leaders_only = 1;

SEC("iter/task")
int dump_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;

	if (!task) {
		BPF_SEQ_PRINTF(seq, "%llu tasks\n", ctx->meta->seq_num);
		return 0;
	}
	if (ctx->meta->seq_num == 0)
		BPF_SEQ_PRINTF(seq, "    pid   tgid comm\n");
	if (leaders_only && task->pid != task->tgid)
		return 0;
	BPF_SEQ_PRINTF(seq, "%7d %6d %s\n", task->pid, task->group_leader->pid, task->comm);
	return 0;
}

char _license[] SEC("license") = "GPL";
