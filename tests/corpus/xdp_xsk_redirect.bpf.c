/* The XDP side of an AF_XDP application: frames go to the AF_XDP socket of their receive queue
 * when one is registered for it and bound to that queue, and to the stack otherwise. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

SEC("xdp") int xdp_xsk_redirect(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	struct bpf_xdp_sock *xs = bpf_map_lookup_elem(&xsks, &queue);

	if (!xs || xs->queue_id != queue)
		return XDP_PASS;
	return bpf_redirect_map(&xsks, queue, XDP_PASS);
}
char _license[] SEC("license") = "GPL";
