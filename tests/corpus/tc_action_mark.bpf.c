/* A tc action (section "action"): marks IPv4 packets with their protocol number, and TCP ones
 * with their destination port too, reading the headers directly. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("action") int tc_action_mark(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct tcphdr *tcp;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	skb->mark = ip->protocol;
	if (ip->protocol != IPPROTO_TCP)
		return TC_ACT_OK;
	tcp = (void *)ip + ip->ihl * 4;
	if ((void *)(tcp + 1) > end)
		return TC_ACT_SHOT;
	skb->mark |= (__u32)bpf_ntohs(tcp->dest) << 8;
	return TC_ACT_PIPE;
}
char _license[] SEC("license") = "GPL";
