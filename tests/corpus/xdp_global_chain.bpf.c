/* global functions calling global functions, with the ctx and scalars as arguments */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

__attribute__((noinline)) int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

__attribute__((noinline)) int eth_proto(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end)
		return -1;
	return clamp(bpf_ntohs(eth->h_proto), 0, 0xffff);
}

SEC("xdp") int xdp_global_chain(struct xdp_md *ctx)
{
	int p = eth_proto(ctx);

	if (p < 0)
		return XDP_ABORTED;
	return p == ETH_P_ARP ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
