/* The kernel's number iterator, as libbpf's bpf_for() calls it: the kfuncs' declarations. */
#ifndef CORPUS_ITER_NUM_H
#define CORPUS_ITER_NUM_H

/* (struct bpf_iter_num came to the uapi header in 6.4; the system's is older) */
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

#endif
