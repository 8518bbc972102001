/* tc: rewrite the IPv4 TOS byte through a global function that calls bpf_skb_store_bytes; the
 * packet pointers are derived again after the call, which moved the packet for the verifier */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <stddef.h>
#include <bpf/bpf_helpers.h>

__attribute__((noinline)) int set_tos(struct __sk_buff *skb, int tos)
{
	__u8 b = (__u8)tos;

	return bpf_skb_store_bytes(skb, ETH_HLEN + offsetof(struct iphdr, tos), &b, 1, 0);
}

SEC("tc") int tc_rewrite_global(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct iphdr *ip = data + ETH_HLEN;

	if ((void *)(ip + 1) > end)
		return TC_ACT_OK;
	if (ip->tos == 0 && set_tos(skb, 0x28) < 0)
		return TC_ACT_SHOT;
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	ip = data + ETH_HLEN;
	if ((void *)(ip + 1) > end)
		return TC_ACT_SHOT;
	return ip->tos == 0x28 ? TC_ACT_OK : TC_ACT_UNSPEC;
}
char _license[] SEC("license") = "GPL";
