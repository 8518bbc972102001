/* What the current-task corpus programs (raw_tp_current_task: probe reads; raw_tp_task_btf:
 * direct reads of bpf_get_current_task_btf()'s task) report in .bss, and the test reads
 * (tests/test_loader_current_task.c). */
#ifndef CORPUS_TASK_REPORT_H
#define CORPUS_TASK_REPORT_H

struct report {
	int pid, tgid, ppid, gppid, leader_pid, levels_to_init, init_parent_pid;
	unsigned int uid, gid, euid, egid;
	int has_mm, parent_is_real_parent;
	char comm[16], parent_comm[16], init_parent_comm[16];
};

#endif
