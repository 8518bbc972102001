/* XDP: walks up to 8 IPv6 extension headers with bpf_loop(), the packet pointers in the
 * callback's ctx, and counts the final protocol */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct walk {
	void *pos, *end;
	__u8 next;
	__u8 done;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} protos SEC(".maps");

static long ext_step(__u32 i, struct walk *w)
{
	struct ipv6_opt_hdr *h = w->pos;

	if (w->next != IPPROTO_HOPOPTS && w->next != IPPROTO_ROUTING &&
	    w->next != IPPROTO_DSTOPTS) {
		w->done = 1;
		return 1;
	}
	if ((void *)(h + 1) > w->end)
		return 1;
	w->next = h->nexthdr;
	w->pos = (void *)h + (h->hdrlen + 1) * 8;
	return 0;
}

SEC("xdp") int xdp_loop_ipv6_ext(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	struct walk w;
	__u32 key;
	__u64 *n;

	if ((void *)(ip6 + 1) > end || eth->h_proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;
	w.pos = ip6 + 1;
	w.end = end;
	w.next = ip6->nexthdr;
	w.done = 0;
	bpf_loop(8, ext_step, &w, 0);
	if (!w.done)
		return XDP_DROP;
	key = w.next;
	n = bpf_map_lookup_elem(&protos, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
