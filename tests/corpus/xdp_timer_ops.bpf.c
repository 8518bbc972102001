/* XDP: one timer operation per packet, for a test to drive timers step by step.  The packet
 * says which (byte 0), on which element (byte 1, the key) and with what argument (bytes 2..9):
 * 0 bpf_timer_init() with CLOCK_MONOTONIC, 1 bpf_timer_set_callback(), 2 bpf_timer_start()
 * arg ns from now, 3 bpf_timer_cancel(), 4 bpf_map_delete_elem() of the element, 5
 * bpf_timer_init() with the clock arg, 6 bpf_timer_start() in 1 ms with the flags arg, 7
 * bpf_map_update_elem() of the element from the program, 8 bpf_map_delete_elem() of the element
 * and then bpf_timer_init() on it (deleted: the verdict is XDP_PASS if that worked, XDP_TX if
 * not).  Each result goes to the element (but the update's: the element is replaced); the
 * callback counts its runs, notes the key it was given, and on its second run tries to cancel
 * its own timer. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1

struct elem {
	__u64 fired;
	__u64 seen_key;
	struct bpf_timer t;
	__s64 ret[8];
	__s64 self_cancel;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct elem);
} timers SEC(".maps");

static int fire(void *map, __u32 *key, struct elem *e)
{
	e->fired++;
	e->seen_key = *key;
	if (e->fired == 2)
		e->self_cancel = bpf_timer_cancel(&e->t);
	return 0;
}

SEC("xdp") int xdp_timer_ops(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	struct elem *e, fresh = {};
	__u64 arg;
	__u32 key;
	__u8 op;

	if ((void *)(p + 10) > end)
		return XDP_ABORTED;
	op = p[0] & 15;
	key = p[1];
	arg = *(__u64 *)(p + 2);
	e = bpf_map_lookup_elem(&timers, &key);
	if (!e)
		return XDP_DROP;
	switch (op) {
	case 0:
		e->ret[0] = bpf_timer_init(&e->t, &timers, CLOCK_MONOTONIC);
		break;
	case 1:
		e->ret[1] = bpf_timer_set_callback(&e->t, fire);
		break;
	case 2:
		e->ret[2] = bpf_timer_start(&e->t, arg, 0);
		break;
	case 3:
		e->ret[3] = bpf_timer_cancel(&e->t);
		break;
	case 4:
		e->ret[4] = bpf_map_delete_elem(&timers, &key);
		break;
	case 5:
		e->ret[5] = bpf_timer_init(&e->t, &timers, arg);
		break;
	case 6:
		e->ret[6] = bpf_timer_start(&e->t, 1000000, arg);
		break;
	case 7:
		fresh.ret[7] = 7;
		bpf_map_update_elem(&timers, &key, &fresh, BPF_EXIST);
		break;
	default:
		bpf_map_delete_elem(&timers, &key);
		return bpf_timer_init(&e->t, &timers, CLOCK_MONOTONIC) ? XDP_TX : XDP_PASS;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
