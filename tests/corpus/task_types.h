/* The parts of the kernel's task_struct and cred the current-task corpus programs read, as CO-RE
 * declarations (preserve_access_index: the loader moves each field to the running kernel's
 * offset).  BPF programs only. */
#ifndef CORPUS_TASK_TYPES_H
#define CORPUS_TASK_TYPES_H

typedef struct { unsigned int val; } kuid_t;
typedef struct { unsigned int val; } kgid_t;

struct cred {
	kuid_t uid;
	kgid_t gid;
	kuid_t euid;
	kgid_t egid;
} __attribute__((preserve_access_index));

struct mm_struct;

struct kernfs_node {
	unsigned long long id;
} __attribute__((preserve_access_index));

struct cgroup {
	int level;
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
	struct task_struct *real_parent;
	struct task_struct *parent;
	struct task_struct *group_leader;
	const struct cred *cred;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

#endif
