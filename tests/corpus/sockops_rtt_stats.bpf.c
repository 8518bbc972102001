/* sock_ops: per-connection RTT statistics in socket storage.  Established connections ask for
 * RTT callbacks; each callback folds the socket's smoothed RTT into its storage (samples, min,
 * max); listeners get a larger initial receive window through setsockopt. */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>

#define SOL_TCP 6

struct rtt {
	__u64 samples;
	__u32 min_us, max_us;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rtt);
} rtts SEC(".maps");

SEC("sockops") int sockops_rtt_stats(struct bpf_sock_ops *ops)
{
	struct bpf_sock *sk;
	struct rtt *r;
	__u32 srtt;
	int clamp = 65535;

	switch (ops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(ops, ops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_RTT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		bpf_setsockopt(ops, SOL_TCP, TCP_WINDOW_CLAMP, &clamp, sizeof(clamp));
		break;
	case BPF_SOCK_OPS_RTT_CB:
		sk = ops->sk;
		if (!sk)
			break;
		r = bpf_sk_storage_get(&rtts, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!r)
			break;
		srtt = ops->srtt_us >> 3;
		if (!r->samples || srtt < r->min_us)
			r->min_us = srtt;
		if (srtt > r->max_us)
			r->max_us = srtt;
		r->samples++;
		break;
	}
	ops->reply = 0;
	return 1;
}
char _license[] SEC("license") = "GPL";
