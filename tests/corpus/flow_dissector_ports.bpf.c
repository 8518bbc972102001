/* A flow dissector: Ethernet, then up to two VLAN tags, then IPv4 (options, fragments) or IPv6
 * (no extension headers), then the TCP or UDP ports; the keys say how far it got.  It returns
 * BPF_OK with the keys filled, or BPF_DROP where the packet is too short for what it claims.
 * Flags from the caller: BPF_FLOW_DISSECTOR_F_PARSE_1ST_FRAG parses the ports of a first
 * fragment, BPF_FLOW_DISSECTOR_F_STOP_AT_FLOW_LABEL stops at an IPv6 flow label. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define IP_MF 0x2000
#define IP_OFFSET 0x1fff

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

static __always_inline int parse_ports(struct __sk_buff *skb, struct bpf_flow_keys *keys,
				       void *l4, void *end)
{
	__be16 *ports = l4;

	if (keys->ip_proto != IPPROTO_TCP && keys->ip_proto != IPPROTO_UDP)
		return BPF_OK;
	if ((void *)(ports + 2) > end)
		return BPF_DROP;
	keys->sport = ports[0];
	keys->dport = ports[1];
	return BPF_OK;
}

SEC("flow_dissector") int flow_dissector_ports(struct __sk_buff *skb)
{
	struct bpf_flow_keys *keys = skb->flow_keys;
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u16 nhoff = keys->nhoff;
	__be16 proto = keys->n_proto;
	void *p;

	/* a bound the verifier needs: a pointer plus a u16 may be anywhere in 64 KiB, past what
	 * a packet range can prove */
	if (nhoff > 64)
		return BPF_DROP;
	p = data + nhoff;

	for (int i = 0; i < 2; i++) {
		struct vlan_hdr *vlan = p;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vlan + 1) > end)
			return BPF_DROP;
		proto = vlan->proto;
		p = vlan + 1;
		keys->nhoff += sizeof(*vlan);
	}
	keys->n_proto = proto;
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = p;
		__u32 ihl;

		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return BPF_DROP;
		ihl = ip->ihl * 4;
		if (p + ihl > end)
			return BPF_DROP;
		keys->addr_proto = ETH_P_IP;
		keys->ipv4_src = ip->saddr;
		keys->ipv4_dst = ip->daddr;
		keys->ip_proto = ip->protocol;
		keys->thoff = keys->nhoff + ihl;
		if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET)) {
			keys->is_frag = 1;
			if (ip->frag_off & bpf_htons(IP_OFFSET))
				return BPF_OK;
			keys->is_first_frag = 1;
			if (!(keys->flags & BPF_FLOW_DISSECTOR_F_PARSE_1ST_FRAG))
				return BPF_OK;
		}
		return parse_ports(skb, keys, p + ihl, end);
	}
	if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = p;

		if ((void *)(ip6 + 1) > end)
			return BPF_DROP;
		keys->addr_proto = ETH_P_IPV6;
		__builtin_memcpy(keys->ipv6_src, &ip6->saddr, sizeof(keys->ipv6_src));
		__builtin_memcpy(keys->ipv6_dst, &ip6->daddr, sizeof(keys->ipv6_dst));
		keys->ip_proto = ip6->nexthdr;
		keys->thoff = keys->nhoff + sizeof(*ip6);
		keys->flow_label = *(__be32 *)ip6 & bpf_htonl(0xfffff);
		if (keys->flow_label && (keys->flags & BPF_FLOW_DISSECTOR_F_STOP_AT_FLOW_LABEL))
			return BPF_OK;
		return parse_ports(skb, keys, ip6 + 1, end);
	}
	return BPF_DROP;
}
char _license[] SEC("license") = "GPL";
