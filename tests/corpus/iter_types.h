/* The task and cgroup iterators' ctx (struct bpf_iter__task, bpf_iter__cgroup) and their meta,
 * as CO-RE declarations: for the iterator programs of the corpus and the fixtures.  BPF
 * programs only; task_types.h first. */
#ifndef CORPUS_ITER_TYPES_H
#define CORPUS_ITER_TYPES_H

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct bpf_iter__cgroup {
	struct bpf_iter_meta *meta;
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

#endif
