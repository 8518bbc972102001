/* Per-socket traffic accounting on egress: packets and bytes in the socket's storage (made on
 * its first packet), and a cap: a socket past a byte budget from .rodata has its packets
 * dropped.  A packet without a socket passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sk_counts {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sk_counts);
} sk_counts SEC(".maps");

const volatile __u64 byte_budget = 1 << 20;

SEC("cgroup_skb/egress") int cgroup_skb_sk_bytes(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	struct sk_counts *c;

	if (!sk)
		return 1;
	c = bpf_sk_storage_get(&sk_counts, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c)
		return 1;
	c->packets++;
	c->bytes += skb->len;
	return c->bytes > byte_budget ? 0 : 1;
}
char _license[] SEC("license") = "GPL";
