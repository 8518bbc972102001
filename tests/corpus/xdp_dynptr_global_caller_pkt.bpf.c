/* XDP, refused: the caller of a global function that calls bpf_dynptr_write() reads a packet
 * pointer it checked before the call.  Such a function may move the packet (6.18 counts every
 * bpf_dynptr_write() so), so the call forgets the caller's packet pointers.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dynptr_vals.h"

__attribute__((noinline)) int stamp(struct bpf_dynptr *d)
{
	__u8 mark[1] = { 1 };

	return bpf_dynptr_write(d, 0, mark, sizeof(mark), 0);
}

SEC("xdp") int xdp_dynptr_global_caller_pkt(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bpf_dynptr d;
	__u8 *p = data;
	struct val *v;
	__u32 key = 0;

	if ((void *)(p + 1) > end)
		return XDP_PASS;
	v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return XDP_DROP;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &d);
	stamp(&d);
	return p[0];
}

char _license[] SEC("license") = "GPL";
