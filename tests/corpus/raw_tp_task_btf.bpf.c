/* raw_tp_current_task's report read the way BTF-aware tools read it: the task from
 * bpf_get_current_task_btf(), its fields loaded directly (t->real_parent->tgid), which the
 * verifier checks against the kernel's BTF and runs as probe loads.  The struct layouts are CO-RE
 * (preserve_access_index): the loader moves each field to the kernel's offset. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "task_fill.h"

static struct task_struct *(*get_current_task_btf)(void) = (void *)BPF_FUNC_get_current_task_btf;

struct report report;

SEC("raw_tp/sys_enter") int raw_tp_task_btf(void *ctx)
{
	fill_report(&report, get_current_task_btf());
	return 0;
}

char _license[] SEC("license") = "GPL";
