/* XDP with open-coded iterators (the loops libbpf's bpf_for() writes): a sum over the packet's
 * first 64 bytes (each checked against the packet's end, the loop left at the end), then a
 * weighted sum over the 32-byte `vals` element, through nested iterators.  Returns the sums
 * packed, for a test to compare with the kernel's run. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dynptr_vals.h"
#include "iter_num.h"

SEC("xdp") int xdp_iter_bytes(struct xdp_md *ctx)
{
	__u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bpf_iter_num it, inner;
	__u32 sum = 0, weighted = 0, key = 0;
	struct val *v;
	int *i, *j;

	bpf_iter_num_new(&it, 0, 64);
	while ((i = bpf_iter_num_next(&it))) {
		__u32 k = *i;

		if (k >= 64 || data + k + 1 > end)
			break;
		sum += data[k];
	}
	bpf_iter_num_destroy(&it);

	v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return XDP_ABORTED;
	bpf_iter_num_new(&it, 0, 4);
	while ((i = bpf_iter_num_next(&it))) {
		bpf_iter_num_new(&inner, 0, 8);
		while ((j = bpf_iter_num_next(&inner))) {
			__u32 k = (__u32)(*i * 8 + *j) & 31;

			weighted += v->b[k] * (*i + 1);
		}
		bpf_iter_num_destroy(&inner);
	}
	bpf_iter_num_destroy(&it);
	return (sum & 0xffff) | weighted << 16;
}

char _license[] SEC("license") = "GPL";
