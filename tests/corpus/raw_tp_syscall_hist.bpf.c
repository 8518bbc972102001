/* A raw tracepoint on sys_enter: counts system calls by number (args[1]) in a hash map, and
 * the calls of one process (the pid in .rodata) in an array; returns the number seen. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} by_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mine SEC(".maps");

const volatile __u32 target_tgid = 0;

SEC("raw_tp/sys_enter") int raw_tp_syscall_hist(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 nr = ctx->args[1], one = 1, *count;
	__u32 zero = 0;

	count = bpf_map_lookup_elem(&by_nr, &nr);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(&by_nr, &nr, &one, BPF_NOEXIST);
	if (target_tgid && (bpf_get_current_pid_tgid() >> 32) == target_tgid) {
		count = bpf_map_lookup_elem(&mine, &zero);
		if (count)
			__sync_fetch_and_add(count, 1);
	}
	return (int)nr;
}
char _license[] SEC("license") = "GPL";
