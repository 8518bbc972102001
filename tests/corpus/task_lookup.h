/* What syscall_task_lookup reads of the tasks whose ids the caller puts in .bss (pid), and
 * what the test compares (tests/test_loader_current_task.c). */
#ifndef CORPUS_TASK_LOOKUP_H
#define CORPUS_TASK_LOOKUP_H

#define TASK_LOOKUPS 4

struct task_entry {
	int pid;			/* in */
	int found, tgid, ppid, is_current;
	char comm[16];
};

struct task_lookup {
	struct task_entry e[TASK_LOOKUPS];
	int current_pid;
	/* the current cgroup (bpf_cgroup_from_id() of bpf_get_current_cgroup_id()) */
	int cgroup_found, cgroup_level, root_found, under_root;
	/* (8-aligned on i386 too, as the program lays them out) */
	unsigned long long cgroup_id __attribute__((aligned(8)));
	unsigned long long root_id __attribute__((aligned(8)));
};

#endif
