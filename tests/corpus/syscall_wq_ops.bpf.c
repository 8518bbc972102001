/* A syscall program (sleepable: 6.18 takes bpf_wq callbacks from sleepable programs only): one
 * bpf_wq operation per test run, for a test to drive work queue items step by step (the kfuncs
 * of Linux 6.10+: bpf_wq_init(), bpf_wq_set_callback_impl(), bpf_wq_start()).  The context
 * says which (op), on which element (key) and with what argument (arg, the flags): 0
 * bpf_wq_init() with the map, 1 bpf_wq_set_callback(), 2 bpf_wq_start(), 3
 * bpf_map_delete_elem() of the element, 4 bpf_map_update_elem() of the element from the
 * program, 5 bpf_wq_set_callback() with the second callback, 6 bpf_wq_init() on the element of
 * the array map (another map's).  Each result goes to the element (but the update's: the
 * element is replaced).  The callbacks run in a sleepable context: the first counts its runs,
 * notes the key it was given and calls a sleepable kfunc, the second counts into its own
 * field. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
				    int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__prog) __ksym;
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __ksym;

struct elem {
	__u64 fired;
	__u64 seen_key;
	struct bpf_wq w;
	__s64 ret[8];
	__u64 other_fired;
	__s64 copied;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct elem);
} wqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct elem);
} wq_array SEC(".maps");

static int work(void *map, int *key, void *value)
{
	struct elem *e = value;
	char buf[8];

	e->fired++;
	e->seen_key = *key;
	/* (a kfunc only sleepable code may call; with a flag it does not know, -EINVAL: what it
	 * reads of user memory from the kernel's worker, which has none, is not the test's) */
	e->copied = bpf_copy_from_user_str(buf, sizeof(buf), (void *)0, 2);
	return 0;
}

static int other_work(void *map, int *key, void *value)
{
	struct elem *e = value;

	e->other_fired++;
	return 0;
}

struct wq_op {
	__u32 op, key;
	__u64 arg;
};

/* 0: done; 1: no element for the key; 2: no array element */
SEC("syscall") int syscall_wq_ops(struct wq_op *ctx)
{
	struct elem *e, fresh = {};
	__u32 key = ctx->key, zero = 0;
	__u64 arg = ctx->arg;
	__u32 op = ctx->op & 7;

	e = bpf_map_lookup_elem(&wqs, &key);
	if (!e)
		return 1;
	switch (op) {
	case 0:
		e->ret[0] = bpf_wq_init(&e->w, &wqs, arg);
		break;
	case 1:
		e->ret[1] = bpf_wq_set_callback_impl(&e->w, work, arg, (void *)0);
		break;
	case 2:
		e->ret[2] = bpf_wq_start(&e->w, arg);
		break;
	case 3:
		e->ret[3] = bpf_map_delete_elem(&wqs, &key);
		break;
	case 4:
		fresh.ret[4] = 4;
		bpf_map_update_elem(&wqs, &key, &fresh, BPF_EXIST);
		break;
	case 5:
		e->ret[5] = bpf_wq_set_callback_impl(&e->w, other_work, arg, (void *)0);
		break;
	default: {
		struct elem *a = bpf_map_lookup_elem(&wq_array, &zero);

		if (!a)
			return 2;
		a->ret[6] = bpf_wq_init(&a->w, &wq_array, arg);
		if (!a->ret[6])
			a->ret[6] = bpf_wq_set_callback_impl(&a->w, other_work, 0, (void *)0);
		if (!a->ret[6])
			a->ret[6] = bpf_wq_start(&a->w, 0);
		e->ret[6] = a->ret[6];
	}
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
