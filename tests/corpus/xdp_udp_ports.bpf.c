#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 256); __type(key, __u16); __type(value, __u64); } ports SEC(".maps");
SEC("xdp") int xdp_udp_ports(struct xdp_md *ctx) {
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > end) return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP)) return XDP_PASS;
	struct iphdr *ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end) return XDP_PASS;
	if (ip->protocol != 17) return XDP_PASS;
	unsigned ihl = ip->ihl * 4;
	if (ihl < 20 || ihl > 60) return XDP_DROP;
	struct udphdr *udp = (void *)ip + ihl;
	if ((void *)(udp + 1) > end) return XDP_PASS;
	__u16 port = bpf_ntohs(udp->dest);
	__u64 *v = bpf_map_lookup_elem(&ports, &port), one = 1;
	if (v) __sync_fetch_and_add(v, 1); else bpf_map_update_elem(&ports, &port, &one, BPF_ANY);
	__u32 sum = 0;
	unsigned char *p = (void *)(udp + 1);
	for (int i = 0; i < 16; i++) { if ((void *)(p + i + 1) > end) break; sum += p[i]; }
	return sum & 1 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
