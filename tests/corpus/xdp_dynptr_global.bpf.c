/* XDP: a global function takes a dynptr (struct bpf_dynptr *, which it may only read through
 * helpers: verified once for any local dynptr), called with a dynptr over a map value and with
 * one over a ring buffer record, which the caller then submits.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dynptr_vals.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

__attribute__((noinline)) int checksum(struct bpf_dynptr *d)
{
	__u8 buf[8] = {};
	__u8 *p;
	int sum = 0;

	if (bpf_dynptr_read(buf, sizeof(buf), d, 0, 0))
		return -1;
	p = bpf_dynptr_data(d, 0, 4);
	if (p)
		sum = p[0];
	return sum + buf[7];
}

SEC("xdp") int xdp_dynptr_global(struct xdp_md *ctx)
{
	struct bpf_dynptr d, r;
	struct val *v;
	__u32 key = 0;
	int sum;

	v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return XDP_DROP;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &d);
	sum = checksum(&d);
	bpf_ringbuf_reserve_dynptr(&rb, 16, 0, &r);
	sum += checksum(&r);
	bpf_ringbuf_submit_dynptr(&r, 0);
	return sum > 0 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
