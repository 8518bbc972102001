/* a global function reading a packet header through a pointer argument: the caller must prove
 * the whole header is in the packet before the call */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
__attribute__((noinline)) int is_ipv4(const struct ethhdr *eth)
{
	if (!eth)
		return 0;
	return eth->h_proto == bpf_htons(ETH_P_IP);
}
SEC("xdp") int xdp_global_mem_pkt(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	return is_ipv4(eth) ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
