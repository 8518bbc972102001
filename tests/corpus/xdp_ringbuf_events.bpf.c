/* XDP: one event per IPv4 packet through a ring buffer, reserved, filled from the headers and
 * submitted; events for ICMP are discarded after filling (a filter decided late) */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct event { __u32 saddr, daddr; __u16 len; __u8 proto, ttl; __u64 ts; };
struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 4096); } events SEC(".maps");

SEC("xdp") int xdp_ringbuf_events(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct event *e;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return XDP_PASS;
	e->saddr = ip->saddr;
	e->daddr = ip->daddr;
	e->len = bpf_ntohs(ip->tot_len);
	e->proto = ip->protocol;
	e->ttl = ip->ttl;
	e->ts = bpf_ktime_get_ns();
	if (ip->protocol == IPPROTO_ICMP)
		bpf_ringbuf_discard(e, 0);
	else
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
