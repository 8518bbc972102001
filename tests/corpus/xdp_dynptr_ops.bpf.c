/* XDP: one dynptr operation per packet, for a test to compare the helpers' results step by step.
 * The packet says which (byte 0), on which element of `vals` (byte 1), at what offset (byte 2),
 * with what length (byte 3, masked to 0..31), flags (byte 4) and size (bytes 6..7):
 * 0 bpf_dynptr_from_mem() of the element (size bytes of it, at most its 64) then a read of
 * len bytes at off into the result's bytes; 1 the same then a write of the packet's bytes 8..39
 * (len of them) at off; 2 bpf_dynptr_data() of 8 bytes at off, storing a mark through it;
 * 3 a ring buffer record of size bytes as a dynptr, written at off, submitted (flags bit 0:
 * discarded), then the ring's available bytes; 4 bpf_dynptr_read() with the flags.  Return
 * codes and bytes go to the `results` element of the same key.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct val {
	__u8 b[64];
};

struct result {
	__s64 ret[4];
	__u8 bytes[32];
	__u64 avail;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct val);
} vals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct result);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

SEC("xdp") int xdp_dynptr_ops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *p = data, *slice;
	struct bpf_dynptr d;
	struct result *r;
	struct val *v;
	__u32 key, off, len, size, flags;
	__u8 buf[32] = {};

	if ((void *)(p + 40) > end)
		return XDP_ABORTED;
	key = p[1];
	off = p[2];
	len = p[3] & 31;
	flags = p[4];
	size = p[6] | (__u32)p[7] << 8;
	v = bpf_map_lookup_elem(&vals, &key);
	r = bpf_map_lookup_elem(&results, &key);
	if (!v || !r)
		return XDP_DROP;
	switch (p[0]) {
	case 0:
		r->ret[0] = bpf_dynptr_from_mem(v, size > 64 ? 64 : size, 0, &d);
		r->ret[1] = bpf_dynptr_read(buf, len, &d, off, 0);
		__builtin_memcpy(r->bytes, buf, sizeof(buf));
		break;
	case 1:
		__builtin_memcpy(buf, p + 8, sizeof(buf));
		r->ret[0] = bpf_dynptr_from_mem(v, size > 64 ? 64 : size, flags, &d);
		r->ret[1] = bpf_dynptr_write(&d, off, buf, len, 0);
		break;
	case 2:
		r->ret[0] = bpf_dynptr_from_mem(v, size > 64 ? 64 : size, 0, &d);
		slice = bpf_dynptr_data(&d, off, 8);
		r->ret[1] = slice != 0;
		if (slice)
			*(__u64 *)slice = 0x1122334455667788ull;
		break;
	case 3:
		__builtin_memcpy(buf, p + 8, sizeof(buf));
		r->ret[0] = bpf_ringbuf_reserve_dynptr(&rb, size, 0, &d);
		r->ret[1] = bpf_dynptr_write(&d, off, buf, len, 0);
		slice = bpf_dynptr_data(&d, 0, 4);
		r->ret[2] = slice != 0;
		if (flags & 1)
			bpf_ringbuf_discard_dynptr(&d, 0);
		else
			bpf_ringbuf_submit_dynptr(&d, 0);
		r->avail = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
		break;
	case 4:
		r->ret[0] = bpf_dynptr_from_mem(v, 64, 0, &d);
		r->ret[1] = bpf_dynptr_read(buf, len, &d, off, flags);
		break;
	default:
		return XDP_PASS;
	}
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
