/* XDP, refused: a global function that checks the packet's bounds, writes through its dynptr
 * argument and then reads the packet.  6.18 takes a global function's dynptr to be an skb's,
 * through which bpf_dynptr_write() may move the packet, so the packet pointer is gone.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dynptr_vals.h"

__attribute__((noinline)) int stamp(struct xdp_md *ctx, struct bpf_dynptr *d)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 mark[1] = { 1 };
	__u8 *p = data;

	if ((void *)(p + 1) > end)
		return 0;
	bpf_dynptr_write(d, 0, mark, sizeof(mark), 0);
	return p[0];
}

SEC("xdp") int xdp_dynptr_global_pkt(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	struct val *v;
	__u32 key = 0;

	v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return XDP_DROP;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &d);
	return stamp(ctx, &d) ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
