/* tc ingress guard: a TCP segment passes only when it belongs to a local socket (an
 * established connection, found whole or as a time-wait one, or a listener for a SYN); the
 * others are dropped and counted per destination port.  Segments a listener takes are counted
 * in the listener's socket storage.  IPv4 and IPv6, the tuple taken from the headers. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TCP_LISTEN 10

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u16);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} syns SEC(".maps");

static int drop(__u16 port)
{
	__u64 one = 1, *n = bpf_map_lookup_elem(&drops, &port);

	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&drops, &port, &one, BPF_NOEXIST);
	return TC_ACT_SHOT;
}

SEC("tc") int tc_sk_lookup_guard(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct bpf_sock_tuple t = {};
	struct ethhdr *eth = data;
	struct bpf_sock *sk, *full;
	struct tcphdr *tcp;
	__u32 size;

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP || ip->ihl != 5)
			return TC_ACT_OK;
		tcp = (void *)(ip + 1);
		t.ipv4.saddr = ip->saddr;
		t.ipv4.daddr = ip->daddr;
		size = sizeof(t.ipv4);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_TCP)
			return TC_ACT_OK;
		tcp = (void *)(ip6 + 1);
		__builtin_memcpy(t.ipv6.saddr, &ip6->saddr, 16);
		__builtin_memcpy(t.ipv6.daddr, &ip6->daddr, 16);
		size = sizeof(t.ipv6);
	} else {
		return TC_ACT_OK;
	}
	if ((void *)(tcp + 1) > end)
		return TC_ACT_OK;
	if (size == sizeof(t.ipv4)) {
		t.ipv4.sport = tcp->source;
		t.ipv4.dport = tcp->dest;
	} else {
		t.ipv6.sport = tcp->source;
		t.ipv6.dport = tcp->dest;
	}
	sk = bpf_skc_lookup_tcp(skb, &t, size, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return drop(bpf_ntohs(tcp->dest));
	if (sk->state != TCP_LISTEN) {
		bpf_sk_release(sk);
		return TC_ACT_OK;
	}
	if (!tcp->syn || tcp->ack) {
		bpf_sk_release(sk);
		return drop(bpf_ntohs(tcp->dest));
	}
	full = bpf_sk_fullsock(sk);
	if (full) {
		__u64 *n = bpf_sk_storage_get(&syns, full, 0, BPF_SK_STORAGE_GET_F_CREATE);

		if (n)
			*n += 1;
	}
	bpf_sk_release(sk);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
