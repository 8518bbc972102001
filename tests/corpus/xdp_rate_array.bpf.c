/* XDP: per-source token bucket in a hash map, struct values updated in place, a bounded loop
 * over a small array of allowed prefixes kept in .rodata */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct bucket { __u64 last_ns; __u32 tokens; __u32 drops; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1024); __type(key, __u32); __type(value, struct bucket); } buckets SEC(".maps");

const volatile __u32 allowed[4] = { 0x0a000000, 0xc0a80000, 0xac100000, 0x7f000000 };
const volatile __u32 masks[4] = { 0xff000000, 0xffff0000, 0xfff00000, 0xff000000 };

SEC("xdp") int xdp_rate_array(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct bucket *b, nb = {};
	__u32 src;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	src = bpf_ntohl(ip->saddr);
	for (int i = 0; i < 4; i++)
		if ((src & masks[i]) == allowed[i])
			return XDP_PASS;
	b = bpf_map_lookup_elem(&buckets, &src);
	if (!b) {
		nb.last_ns = bpf_ktime_get_ns();
		nb.tokens = 10;
		bpf_map_update_elem(&buckets, &src, &nb, BPF_NOEXIST);
		return XDP_PASS;
	}
	if (b->tokens == 0) {
		b->drops++;
		return XDP_DROP;
	}
	b->tokens--;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
