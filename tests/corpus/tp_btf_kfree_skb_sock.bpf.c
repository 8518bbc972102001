/* tp_btf/kfree_skb: counts the packets freed by their socket's address family (a packet without
 * a socket under family 0).  skb->sk is RCU-protected and may be NULL (6.18 lists it among its
 * __safe_rcu_or_null fields): the program checks it before reading through it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

struct sk_buff {
	struct sock *sk;
	unsigned int len;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} by_family SEC(".maps");

SEC("tp_btf/kfree_skb") int BPF_PROG(tp_btf_kfree_skb_sock, struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	__u32 family = sk ? sk->__sk_common.skc_family : 0;
	__u64 *n = bpf_map_lookup_elem(&by_family, &family);

	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
