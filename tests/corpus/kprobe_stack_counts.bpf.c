/* An off-CPU style stack counter: each hit of the probe records the user stack (a stack map id)
 * and counts it per process in a hash map; the first 8 frames also go to a ring buffer record
 * when the count reaches a power of two. */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

struct key {
	__u32 pid;
	__s32 stack_id;
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct key);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} frames SEC(".maps");

SEC("kprobe/do_nanosleep") int kprobe_stack_counts(struct pt_regs *ctx)
{
	struct key k = { .pid = bpf_get_current_pid_tgid() >> 32 };
	__u64 one = 1, *n, *rec;

	k.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
	if (k.stack_id < 0)
		return 0;
	n = bpf_map_lookup_elem(&counts, &k);
	if (!n) {
		bpf_map_update_elem(&counts, &k, &one, BPF_NOEXIST);
		return 0;
	}
	if ((++*n & (*n - 1)) != 0)
		return 0;
	rec = bpf_ringbuf_reserve(&frames, 8 * sizeof(__u64), 0);
	if (!rec)
		return 0;
	if (bpf_get_stack(ctx, rec, 8 * sizeof(__u64), BPF_F_USER_STACK) < 0)
		rec[0] = 0;
	bpf_ringbuf_submit(rec, 0);
	return 0;
}
char _license[] SEC("license") = "GPL";
