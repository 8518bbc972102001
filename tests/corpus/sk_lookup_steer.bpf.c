/* Socket steering: connections to a port listed in a socket hash go to the socket it holds for
 * that port (one socket serving several ports, or a port no socket binds); a connection the
 * socket cannot take (another protocol or family) is refused.  Ports not listed go on to the
 * regular lookup. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} steer SEC(".maps");

SEC("sk_lookup") int sk_lookup_steer(struct bpf_sk_lookup *ctx)
{
	__u32 port = ctx->local_port;
	struct bpf_sock *sk;
	long err;

	sk = bpf_map_lookup_elem(&steer, &port);
	if (!sk)
		return SK_PASS;
	err = bpf_sk_assign(ctx, sk, 0);
	bpf_sk_release(sk);
	return err ? SK_DROP : SK_PASS;
}
char _license[] SEC("license") = "GPL";
