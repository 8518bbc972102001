/* trace_printk with a stack format string, prandom sampling, skb_load_bytes into a stack buffer */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("socket") int socket_printk(struct __sk_buff *skb)
{
	char fmt[] = "len %u first %x\n";
	__u8 first[4] = {};

	if (bpf_get_prandom_u32() % 16)
		return skb->len;
	if (bpf_skb_load_bytes(skb, 0, first, sizeof(first)) == 0)
		bpf_trace_printk(fmt, sizeof(fmt), skb->len, *(__u32 *)first);
	return skb->len;
}
char _license[] SEC("license") = "GPL";
