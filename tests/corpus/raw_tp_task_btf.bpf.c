/* raw_tp_current_task's report read the way BTF-aware tools read it: the task from
 * bpf_get_current_task_btf(), its fields loaded directly (t->real_parent->tgid), which the
 * verifier checks against the kernel's BTF and runs as probe loads.  The struct layouts are CO-RE
 * (preserve_access_index): the loader moves each field to the kernel's offset. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "task_report.h"
#include "task_types.h"

static struct task_struct *(*get_current_task_btf)(void) = (void *)BPF_FUNC_get_current_task_btf;

struct report report;

SEC("raw_tp/sys_enter") int raw_tp_task_btf(void *ctx)
{
	struct task_struct *t = get_current_task_btf(), *p;
	const struct cred *cred = t->cred;

	report.pid = t->pid;
	report.tgid = t->tgid;
	__builtin_memcpy(report.comm, t->comm, sizeof(report.comm));
	report.ppid = t->real_parent->tgid;
	report.gppid = t->real_parent->real_parent->tgid;
	__builtin_memcpy(report.parent_comm, t->real_parent->comm, sizeof(report.parent_comm));
	report.parent_is_real_parent = t->parent == t->real_parent;
	report.leader_pid = t->group_leader->pid;
	report.uid = cred->uid.val;
	report.gid = cred->gid.val;
	report.euid = cred->euid.val;
	report.egid = cred->egid.val;
	report.has_mm = t->mm != 0;
	p = t;
	for (int i = 0; i < 32; i++) {
		if (p->pid == 1) {
			report.levels_to_init = i;
			report.init_parent_pid = p->real_parent->pid;
			__builtin_memcpy(report.init_parent_comm, p->real_parent->comm,
					 sizeof(report.init_parent_comm));
			break;
		}
		p = p->real_parent;
	}
	return 0;
}

char _license[] SEC("license") = "GPL";
