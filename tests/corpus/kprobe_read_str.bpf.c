/* kprobe: the legacy probe reads (bpf_probe_read, bpf_probe_read_str) of an argument's string
 * into a per-CPU-style scratch value, keyed by the NUMA node */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>

struct name { char s[32]; __u64 len; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 64); __type(key, __u32); __type(value, struct name); } names SEC(".maps");

SEC("kprobe/do_unlinkat") int kprobe_read_str(struct pt_regs *ctx)
{
	struct name n = {};
	const char *p;
	__u32 node = bpf_get_numa_node_id();
	long len;

	bpf_probe_read(&p, sizeof(p), &ctx->rsi);
	len = bpf_probe_read_str(n.s, sizeof(n.s), p);
	if (len < 0)
		return 0;
	n.len = len;
	bpf_map_update_elem(&names, &node, &n, BPF_ANY);
	return 0;
}
char _license[] SEC("license") = "GPL";
