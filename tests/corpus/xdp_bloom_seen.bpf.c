/* XDP: drop a flow's packets until it has been seen before: a bloom filter of (saddr, daddr,
 * ports) tuples answers "maybe seen"; new ones are added, and counted per protocol */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct flow { __u32 saddr, daddr; __u16 sport, dport; };

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1024);
	__uint(map_extra, 3);
	__uint(map_flags, BPF_F_ZERO_SEED);
	__type(value, struct flow);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} new_flows SEC(".maps");

SEC("xdp") int xdp_bloom_seen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u16 *ports = (void *)(ip + 1);
	struct flow f = {};
	__u32 proto;
	__u64 *n;

	if ((void *)(ports + 2) > end || eth->h_proto != bpf_htons(ETH_P_IP) || ip->ihl != 5)
		return XDP_PASS;
	f.saddr = ip->saddr;
	f.daddr = ip->daddr;
	if (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP) {
		f.sport = ports[0];
		f.dport = ports[1];
	}
	if (bpf_map_peek_elem(&seen, &f) == 0)
		return XDP_PASS;
	bpf_map_push_elem(&seen, &f, BPF_ANY);
	proto = ip->protocol;
	n = bpf_map_lookup_elem(&new_flows, &proto);
	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_DROP;
}
char _license[] SEC("license") = "GPL";
