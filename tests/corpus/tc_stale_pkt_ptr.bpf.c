/* tc, rejected: a packet pointer used after a global function that calls bpf_skb_store_bytes
 * (the kernel invalidates packet pointers across any call that may move the packet) */
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

SEC("tc") int tc_stale_pkt_ptr(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct iphdr *ip = data + ETH_HLEN;

	if ((void *)(ip + 1) > end)
		return TC_ACT_OK;
	if (set_tos(skb, 0x28) < 0)
		return TC_ACT_SHOT;
	return ip->ttl > 1 ? TC_ACT_OK : TC_ACT_SHOT;
}
char _license[] SEC("license") = "GPL";
