/* rejected: a global function is verified for any argument its prototype allows, so the index
 * the caller passes as a constant is unbounded inside it */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, char[64]); } table SEC(".maps");

__attribute__((noinline)) int byte_at(int i)
{
	__u32 k = 0;
	char *v = bpf_map_lookup_elem(&table, &k);

	if (!v)
		return 0;
	return v[i];
}

SEC("socket") int socket_global_unbounded(struct __sk_buff *skb)
{
	return byte_at(3);
}
char _license[] SEC("license") = "GPL";
