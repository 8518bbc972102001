/* A syscall program scheduling task work (6.18's bpf_task_work_schedule_signal_impl() and
 * _resume_impl()): per test run, on the element of the key given, the work of the thread of the
 * pid given (signal or resume mode, op 0 or 1), then the same again at once (op 2: that second
 * try's result only, as the first is the same as op 0's), or op 3: the work of the map's other
 * element by the array map's callback, where the element's key is its index.  The callback
 * counts its runs and notes the key it was given and the thread it ran on. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_struct;
struct bpf_map;

struct bpf_task_work {
	__u64 __opaque;
} __attribute__((aligned(8)));

typedef int (*bpf_task_work_callback_t)(struct bpf_map *map, void *key, void *value);

extern int bpf_task_work_schedule_signal_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map, bpf_task_work_callback_t callback,
					      void *aux__prog) __ksym;
extern int bpf_task_work_schedule_resume_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map, bpf_task_work_callback_t callback,
					      void *aux__prog) __ksym;
extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct elem {
	__u64 fired;
	__u64 pid_tgid;
	struct bpf_task_work tw;
	__s64 ret[4];
	__u64 key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct elem);
} works SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct elem);
} work_array SEC(".maps");

static int work(struct bpf_map *map, void *key, void *value)
{
	struct elem *e = value;

	e->fired++;
	e->pid_tgid = bpf_get_current_pid_tgid();
	e->key = *(__u32 *)key;
	return 0;
}

struct tw_op {
	__u32 op, key;
	__s32 pid;
};

/* The array's element key, its work for the thread pid by its callback. */
static int array_work(__u32 key, __s32 pid)
{
	struct elem *e = bpf_map_lookup_elem(&work_array, &key);
	struct task_struct *t;

	if (!e)
		return 1;
	t = bpf_task_from_pid(pid);
	if (!t)
		return 2;
	e->ret[3] = bpf_task_work_schedule_resume_impl(t, &e->tw, &work_array, work, 0);
	bpf_task_release(t);
	return 0;
}

/* 0: done; 1: no element; 2: no task */
SEC("syscall") int syscall_task_work(struct tw_op *ctx)
{
	__u32 key = ctx->key, op = ctx->op;
	struct elem *e;
	struct task_struct *t;

	if (op == 3)
		return array_work(key, ctx->pid);
	e = bpf_map_lookup_elem(&works, &key);
	if (!e)
		return 1;
	t = bpf_task_from_pid(ctx->pid);
	if (!t)
		return 2;
	if (op == 1)
		e->ret[1] = bpf_task_work_schedule_resume_impl(t, &e->tw, &works, work, 0);
	else
		e->ret[op & 3] = bpf_task_work_schedule_signal_impl(t, &e->tw, &works, work, 0);
	if (op == 2)
		e->ret[2] = bpf_task_work_schedule_signal_impl(t, &e->tw, &works, work, 0);
	bpf_task_release(t);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
