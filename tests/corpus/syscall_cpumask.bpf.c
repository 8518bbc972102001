/* The cpumask kfuncs (kernel/bpf/cpumask.c) from a (sleepable) syscall program: two masks made,
 * changed and compared, CPUs from the ctx set in them, one acquired twice, the current task's
 * affinity (cpus_ptr) copied and compared, a mask filled from the stack (bpf_cpumask_populate(),
 * a size from the ctx), the distribute picks where they have one answer; each result and some
 * of the masks' words (read directly) noted in .bss, in order.  It returns how many it noted. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct cpumask {
	unsigned long bits[4];
} __attribute__((preserve_access_index));

struct bpf_cpumask {
	struct cpumask cpumask;
} __attribute__((preserve_access_index));

struct task_struct {
	const struct cpumask *cpus_ptr;
	int nr_cpus_allowed;
} __attribute__((preserve_access_index));

extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
extern __u32 bpf_cpumask_first(const struct cpumask *cpumask) __ksym;
extern __u32 bpf_cpumask_first_zero(const struct cpumask *cpumask) __ksym;
extern __u32 bpf_cpumask_first_and(const struct cpumask *a, const struct cpumask *b) __ksym;
extern void bpf_cpumask_set_cpu(__u32 cpu, struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_clear_cpu(__u32 cpu, struct bpf_cpumask *cpumask) __ksym;
extern bool bpf_cpumask_test_cpu(__u32 cpu, const struct cpumask *cpumask) __ksym;
extern bool bpf_cpumask_test_and_set_cpu(__u32 cpu, struct bpf_cpumask *cpumask) __ksym;
extern bool bpf_cpumask_test_and_clear_cpu(__u32 cpu, struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_setall(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_clear(struct bpf_cpumask *cpumask) __ksym;
extern bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a,
			    const struct cpumask *b) __ksym;
extern void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a,
			   const struct cpumask *b) __ksym;
extern void bpf_cpumask_xor(struct bpf_cpumask *dst, const struct cpumask *a,
			    const struct cpumask *b) __ksym;
extern bool bpf_cpumask_equal(const struct cpumask *a, const struct cpumask *b) __ksym;
extern bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b) __ksym;
extern bool bpf_cpumask_subset(const struct cpumask *a, const struct cpumask *b) __ksym;
extern bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
extern bool bpf_cpumask_full(const struct cpumask *cpumask) __ksym;
extern void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src) __ksym;
extern __u32 bpf_cpumask_any_distribute(const struct cpumask *cpumask) __ksym;
extern __u32 bpf_cpumask_any_and_distribute(const struct cpumask *a,
					    const struct cpumask *b) __ksym;
extern __u32 bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;
extern int bpf_cpumask_populate(struct cpumask *cpumask, void *src, __u64 src__sz) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

struct cpumask_args {
	__u32 cpu_a, cpu_b; /* CPUs to set (past the last one: none) */
	__u64 pattern;	    /* populate()'s first word */
	__u32 size;	    /* and its size (16 at most) */
	__u32 pad;
};

/* (one struct: the test reads it as laid out here) */
struct {
	__u64 count;
	__u64 out[48];
} res;

#define M(x) ((const struct cpumask *)(x))
/* (in memory: a counter in a register would be a constant per path, and the paths many) */
#define PUT(v)                          \
	do {                            \
		__u32 i_ = res.count;   \
		if (i_ < 48)            \
			res.out[i_] = (v); \
		res.count = i_ + 1;     \
	} while (0)

SEC("syscall") int syscall_cpumask(struct cpumask_args *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task_btf();
	struct bpf_cpumask *a, *b, *c;
	__u64 buf[2] = { ctx->pattern, ~0ull };
	__u32 cpu_a = ctx->cpu_a, cpu_b = ctx->cpu_b;

	res.count = 0;
	a = bpf_cpumask_create();
	if (!a)
		return -1;
	b = bpf_cpumask_create();
	if (!b) {
		bpf_cpumask_release(a);
		return -2;
	}
	PUT(bpf_cpumask_empty(M(a)));
	PUT(bpf_cpumask_first(M(a)));
	PUT(bpf_cpumask_first_zero(M(a)));
	PUT(bpf_cpumask_any_distribute(M(a)));
	bpf_cpumask_set_cpu(cpu_a, a);
	bpf_cpumask_set_cpu(cpu_b, b);
	PUT(a->cpumask.bits[0]);
	PUT(bpf_cpumask_test_cpu(cpu_a, M(a)));
	PUT(bpf_cpumask_weight(M(a)));
	PUT(bpf_cpumask_first(M(a)));
	PUT(bpf_cpumask_first_zero(M(a)));
	PUT(bpf_cpumask_first_and(M(a), M(b)));
	PUT(bpf_cpumask_equal(M(a), M(b)));
	PUT(bpf_cpumask_intersects(M(a), M(b)));
	PUT(bpf_cpumask_subset(M(a), M(b)));
	PUT(bpf_cpumask_full(M(a)));
	/* one CPU set, or none: the pick has one answer */
	PUT(bpf_cpumask_any_distribute(M(a)));
	PUT(bpf_cpumask_any_and_distribute(M(a), M(b)));
	PUT(bpf_cpumask_test_and_set_cpu(cpu_b, a));
	PUT(bpf_cpumask_test_and_set_cpu(cpu_b, a));
	PUT(bpf_cpumask_subset(M(b), M(a)));
	c = bpf_cpumask_acquire(a);
	PUT(bpf_cpumask_and(c, M(a), M(b)));
	bpf_cpumask_release(c);
	PUT(a->cpumask.bits[0]);
	bpf_cpumask_setall(b);
	PUT(b->cpumask.bits[0]);
	PUT(b->cpumask.bits[1]);
	PUT(bpf_cpumask_full(M(b)));
	PUT(bpf_cpumask_weight(M(b)));
	PUT(bpf_cpumask_first_zero(M(b)));
	bpf_cpumask_xor(a, M(a), M(b));
	PUT(a->cpumask.bits[0]);
	PUT(bpf_cpumask_empty(M(a)));
	bpf_cpumask_or(a, M(a), M(b));
	PUT(a->cpumask.bits[0]);
	PUT(bpf_cpumask_test_and_clear_cpu(cpu_a, a));
	bpf_cpumask_clear_cpu(0, a);
	PUT(a->cpumask.bits[0]);
	PUT(bpf_cpumask_and(a, M(a), M(a)));
	bpf_cpumask_clear(b);
	PUT(b->cpumask.bits[0] | b->cpumask.bits[3]);
	/* the task's affinity (an RCU pointer: in a sleepable program, inside an RCU section) */
	bpf_rcu_read_lock();
	bpf_cpumask_copy(b, t->cpus_ptr);
	PUT(b->cpumask.bits[0]);
	PUT(bpf_cpumask_weight(t->cpus_ptr));
	PUT(bpf_cpumask_equal(t->cpus_ptr, M(b)));
	PUT(bpf_cpumask_test_cpu(0, t->cpus_ptr));
	bpf_rcu_read_unlock();
	PUT(t->nr_cpus_allowed);
	/* from memory: whole words of the CPUs' bits */
	PUT(bpf_cpumask_populate((struct cpumask *)a, buf, ctx->size & 15));
	PUT(a->cpumask.bits[0]);
	PUT(a->cpumask.bits[1]);
	PUT(bpf_cpumask_weight(M(a)));
	bpf_cpumask_release(a);
	bpf_cpumask_release(b);
	return (int)res.count;
}

char _license[] SEC("license") = "GPL";
