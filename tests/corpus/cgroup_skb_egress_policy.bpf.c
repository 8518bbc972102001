/* A cgroup egress policy: counts bytes per IP protocol, drops UDP to the ports listed in a
 * hash map, asks for congestion notification (3) on TCP packets above a size limit from
 * .rodata, lets everything else pass (1).  The packet is read directly (cgroup skb programs
 * may not write it); its data starts at the network header. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} bytes_by_proto SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u16);
	__type(value, __u8);
} blocked_udp_ports SEC(".maps");

const volatile __u32 tcp_cn_above = 1400;

SEC("cgroup_skb/egress") int cgroup_skb_egress_policy(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct iphdr *ip = data;
	__u32 proto;
	__u64 *bytes;

	if (skb->protocol != bpf_htons(ETH_P_IP) || (void *)(ip + 1) > end)
		return 1;
	proto = ip->protocol;
	bytes = bpf_map_lookup_elem(&bytes_by_proto, &proto);
	if (bytes)
		__sync_fetch_and_add(bytes, skb->len);
	if (proto == IPPROTO_UDP) {
		struct udphdr *udp = (void *)ip + ip->ihl * 4;
		__u16 port;

		if ((void *)(udp + 1) > end)
			return 1;
		port = bpf_ntohs(udp->dest);
		if (bpf_map_lookup_elem(&blocked_udp_ports, &port))
			return 0;
	}
	if (proto == IPPROTO_TCP && skb->len > tcp_cn_above)
		return 3;
	return 1;
}
char _license[] SEC("license") = "GPL";
