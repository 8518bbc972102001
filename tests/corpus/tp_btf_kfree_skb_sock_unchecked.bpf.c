/* tp_btf/kfree_skb reading skb->sk's family without a NULL check: skb->sk may be NULL (an RCU
 * pointer that may be NULL, in 6.18), so the verifier refuses the read. */
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
} __attribute__((preserve_access_index));

__u64 families;

SEC("tp_btf/kfree_skb") int BPF_PROG(tp_btf_kfree_skb_sock_unchecked, struct sk_buff *skb)
{
	families += skb->sk->__sk_common.skc_family;
	return 0;
}

char _license[] SEC("license") = "GPL";
