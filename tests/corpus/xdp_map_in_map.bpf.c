/* XDP: per-protocol packet-size histograms in inner arrays chosen through an array of maps (its
 * two slots set at load from the object's initial values), and per-destination source counts in
 * inner hashes found through a hash of maps (filled by user space) */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct hist {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} tcp_sizes SEC(".maps"), udp_sizes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct hist);
} by_proto SEC(".maps") = {
	.values = { [0] = &tcp_sizes, [1] = &udp_sizes },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 8);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_HASH);
		__uint(max_entries, 16);
		__type(key, __u32);
		__type(value, __u64);
	});
} by_dst SEC(".maps");

SEC("xdp") int xdp_map_in_map(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u32 slot, size, dst, src;
	__u64 one = 1, *cnt;
	void *inner;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if (ip->protocol == IPPROTO_TCP)
		slot = 0;
	else if (ip->protocol == IPPROTO_UDP)
		slot = 1;
	else
		return XDP_PASS;
	inner = bpf_map_lookup_elem(&by_proto, &slot);
	if (!inner)
		return XDP_ABORTED;
	size = (bpf_ntohs(ip->tot_len) >> 9) & 3;
	cnt = bpf_map_lookup_elem(inner, &size);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	dst = ip->daddr;
	inner = bpf_map_lookup_elem(&by_dst, &dst);
	if (!inner)
		return XDP_PASS;
	src = ip->saddr;
	cnt = bpf_map_lookup_elem(inner, &src);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	else
		bpf_map_update_elem(inner, &src, &one, BPF_NOEXIST);
	return XDP_DROP;
}
char _license[] SEC("license") = "GPL";
