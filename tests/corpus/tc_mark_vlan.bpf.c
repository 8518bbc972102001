/* tc classifier: direct packet access through __sk_buff, mark by IPv4 DSCP */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("tc") int tc_mark_vlan(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end)
		return TC_ACT_SHOT;
	switch (ip->tos >> 2) {
	case 46: skb->mark = 1; break;
	case 34: skb->mark = 2; break;
	case 0: skb->mark = 3; break;
	default: skb->priority = ip->tos >> 5;
	}
	return TC_ACT_OK;
}
char _license[] SEC("license") = "GPL";
