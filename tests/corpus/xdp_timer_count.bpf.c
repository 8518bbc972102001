/* XDP: timers.  Each packet arms the timer of its flow's slot (by the first byte of the frame),
 * once: init, a callback, a start 1 ms out.  The callback counts its firing in the slot, and
 * re-arms itself while the count is below the slot's limit (its second field).  bpf_timer_cancel()
 * of a slot whose first byte is 0xff says whether the timer was pending. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1

struct slot {
	__u64 fired;
	__u64 limit;
	struct bpf_timer t;
	__s64 cancelled;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

static int fire(void *map, __u32 *key, struct slot *s)
{
	s->fired++;
	if (s->fired < s->limit)
		bpf_timer_start(&s->t, 1000000, 0);
	return 0;
}

SEC("xdp") int xdp_timer_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *b = data;
	struct slot *s;
	__u32 key;
	long err;

	if ((void *)(b + 1) > end)
		return XDP_ABORTED;
	key = *b & 3;
	s = bpf_map_lookup_elem(&slots, &key);
	if (!s)
		return XDP_ABORTED;
	if (*b == 0xff) {
		s->cancelled = bpf_timer_cancel(&s->t);
		return XDP_DROP;
	}
	err = bpf_timer_init(&s->t, &slots, CLOCK_MONOTONIC);
	if (err)
		return err == -16 /* EBUSY: armed before */ ? XDP_PASS : XDP_ABORTED;
	bpf_timer_set_callback(&s->t, fire);
	bpf_timer_start(&s->t, 1000000, 0);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
