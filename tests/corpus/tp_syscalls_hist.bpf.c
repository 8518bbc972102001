/* tracepoint: raw ctx fields, a log2 histogram in an array map, a per-task hash map */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sys_enter_ctx { __u64 pad; long id; unsigned long args[6]; };
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 64); __type(key, __u32); __type(value, __u64); } hist SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 4096); __type(key, __u32); __type(value, __u64); } start SEC(".maps");

static __always_inline __u32 log2l(__u64 v)
{
	__u32 r = 0;
	for (int i = 0; i < 64 && v > 1; i++) {
		v >>= 1;
		r++;
	}
	return r;
}

SEC("tracepoint/raw_syscalls/sys_enter") int tp_syscalls_hist(struct sys_enter_ctx *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns(), *then;

	if (ctx->id < 0)
		return 0;
	then = bpf_map_lookup_elem(&start, &tid);
	if (then) {
		__u32 slot = log2l(now - *then);
		__u64 *c = bpf_map_lookup_elem(&hist, &slot);
		if (c)
			__sync_fetch_and_add(c, 1);
	}
	bpf_map_update_elem(&start, &tid, &now, BPF_ANY);
	return 0;
}
char _license[] SEC("license") = "GPL";
