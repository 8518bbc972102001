/* rejected: reads the IP header after checking only the Ethernet header's bounds */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int xdp_no_bounds(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	return ip->ttl < 2 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
