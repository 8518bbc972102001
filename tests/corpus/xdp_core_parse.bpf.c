/* A packet parser written against vmlinux.h-style types: every struct preserve_access_index
 * (the pragma bpftool's vmlinux.h uses), so each header field read is a CO-RE relocation that
 * the loader resolves against the kernel's ethhdr, iphdr and udphdr: byte offsets of loads on
 * packet data, the ihl bitfield through relocated shifts, saddr found inside the kernel's
 * anonymous address union.  Counts UDP packets per destination port (low byte) and sums their
 * source addresses. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct ethhdr {
	unsigned char h_dest[6];
	unsigned char h_source[6];
	__be16 h_proto;
};

struct iphdr {
	__u8 ihl : 4, version : 4;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__sum16 check;
	__be32 saddr;
	__be32 daddr;
};

struct udphdr {
	__be16 source;
	__be16 dest;
	__be16 len;
	__sum16 check;
};
#pragma clang attribute pop

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 257);
	__type(key, __u32);
	__type(value, __u64);
} out SEC(".maps");

SEC("xdp") int xdp_core_parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	__u32 key, ihl;
	__u64 *v;

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(0x0800))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->version != 4)
		return XDP_PASS;
	ihl = ip->ihl;
	if (ihl < 5 || ip->protocol != 17)
		return XDP_DROP;
	udp = (void *)ip + ihl * 4;
	if ((void *)(udp + 1) > end)
		return XDP_DROP;
	key = bpf_ntohs(udp->dest) & 0xff;
	v = bpf_map_lookup_elem(&out, &key);
	if (v)
		*v += 1;
	key = 256;
	v = bpf_map_lookup_elem(&out, &key);
	if (v)
		*v += bpf_ntohl(ip->saddr);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
