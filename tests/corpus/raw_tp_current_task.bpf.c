/* A raw tracepoint reading the current task the way tracing tools do: bpf_get_current_task(),
 * then BPF_CORE_READ() chains (CO-RE offsets into the kernel's task_struct and cred) for the
 * thread's ids and name, its parent's and grandparent's, its group leader, its credentials,
 * whether it has an mm, and how far up init is and what init's parent is.  What it read goes
 * to .bss, for a test to compare with the kernel's run. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "task_report.h"
#include "task_types.h"

struct report report;

SEC("raw_tp/sys_enter") int raw_tp_current_task(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task(), *p;

	report.pid = BPF_CORE_READ(t, pid);
	report.tgid = BPF_CORE_READ(t, tgid);
	BPF_CORE_READ_STR_INTO(&report.comm, t, comm);
	report.ppid = BPF_CORE_READ(t, real_parent, tgid);
	report.gppid = BPF_CORE_READ(t, real_parent, real_parent, tgid);
	BPF_CORE_READ_STR_INTO(&report.parent_comm, t, real_parent, comm);
	report.parent_is_real_parent = BPF_CORE_READ(t, parent) == BPF_CORE_READ(t, real_parent);
	report.leader_pid = BPF_CORE_READ(t, group_leader, pid);
	report.uid = BPF_CORE_READ(t, cred, uid.val);
	report.gid = BPF_CORE_READ(t, cred, gid.val);
	report.euid = BPF_CORE_READ(t, cred, euid.val);
	report.egid = BPF_CORE_READ(t, cred, egid.val);
	report.has_mm = BPF_CORE_READ(t, mm) != 0;
	p = t;
	for (int i = 0; i < 32; i++) {
		if (BPF_CORE_READ(p, pid) == 1) {
			report.levels_to_init = i;
			report.init_parent_pid = BPF_CORE_READ(p, real_parent, pid);
			BPF_CORE_READ_STR_INTO(&report.init_parent_comm, p, real_parent, comm);
			break;
		}
		p = BPF_CORE_READ(p, real_parent);
	}
	return 0;
}

char _license[] SEC("license") = "GPL";
