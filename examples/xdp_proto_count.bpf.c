/* xdp_proto_count: count packets per IP protocol in a per-CPU array, and let them pass.
 *
 * A per-CPU array gives each CPU its own counters, so the increment needs no atomic operation:
 * a program only ever sees the copy of the CPU it runs on.  User space reads every CPU's copy
 * (bpf() returns them side by side) and adds them up; `userbpf map dump` prints the sum and the
 * copies.  IPv4 counts under its protocol number, IPv6 under its next header; other frames, and
 * frames too short for their IP header, under key 255.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 256);
} proto_count SEC(".maps");

SEC("xdp") int xdp_proto_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key = 255;
	__u64 *n;

	if ((void *)(eth + 1) <= end) {
		if (eth->h_proto == bpf_htons(ETH_P_IP)) {
			struct iphdr *ip = (void *)(eth + 1);

			if ((void *)(ip + 1) <= end)
				key = ip->protocol;
		} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
			struct ipv6hdr *ip6 = (void *)(eth + 1);

			if ((void *)(ip6 + 1) <= end)
				key = ip6->nexthdr;
		}
	}
	n = bpf_map_lookup_elem(&proto_count, &key);
	if (n)
		*n += 1;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
