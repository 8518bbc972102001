/* XDP: drains a user ring buffer that user space fills.  The packet says when the callback
 * stops the drain (byte 0: after that many records, 0 never) and with what flags (byte 1).  The
 * callback reads each record's first 16 bytes (bpf_dynptr_read(), -E2BIG for a shorter one) and
 * its first 4 through a slice, and accumulates them; the totals and the drain's result go to
 * `stats`.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct acc {
	__u64 calls, sum, short_reads, stop_after;
	__s64 ret;
};

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} urb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct acc);
} stats SEC(".maps");

static long take(struct bpf_dynptr *d, void *ctx)
{
	struct acc *a = ctx;
	__u8 buf[16] = {};
	__u8 *p;

	a->calls++;
	if (bpf_dynptr_read(buf, sizeof(buf), d, 0, 0) == 0)
		a->sum += buf[0] + 7 * buf[15];
	else
		a->short_reads++;
	p = bpf_dynptr_data(d, 0, 4);
	if (p)
		a->sum += 3 * p[3];
	return a->stop_after && a->calls >= a->stop_after;
}

SEC("xdp") int xdp_user_ringbuf(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *pkt = data;
	struct acc a = {}, *st;
	__u32 key = 0;

	if ((void *)(pkt + 2) > end)
		return XDP_ABORTED;
	a.stop_after = pkt[0];
	a.ret = bpf_user_ringbuf_drain(&urb, take, &a, pkt[1]);
	st = bpf_map_lookup_elem(&stats, &key);
	if (st)
		*st = a;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
