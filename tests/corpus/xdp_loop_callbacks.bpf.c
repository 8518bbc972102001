/* XDP: callbacks.  bpf_loop() sums the first bytes of the packet into a ctx on the stack, a
 * word per round, stopping at the packet's end; bpf_for_each_map_elem() then finds the busiest
 * of the per-protocol counters, and the program counts the packet under its sum's low byte. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sum_ctx {
	void *data, *end;
	__u64 sum;
	__u32 words;
};

struct max_ctx {
	__u64 max;
	__u32 key;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static long sum_word(__u32 i, struct sum_ctx *c)
{
	__u16 *p = c->data + (i & 63) * 2;

	if ((void *)(p + 1) > c->end)
		return 1;
	c->sum += *p;
	c->words++;
	return 0;
}

static long find_max(void *map, __u32 *key, __u64 *val, struct max_ctx *c)
{
	if (*val > c->max) {
		c->max = *val;
		c->key = *key;
	}
	return 0;
}

SEC("xdp") int xdp_loop_callbacks(struct xdp_md *ctx)
{
	struct sum_ctx s = { (void *)(long)ctx->data, (void *)(long)ctx->data_end, 0, 0 };
	struct max_ctx m = { 0, 0 };
	__u32 key;
	__u64 *n;

	bpf_loop(32, sum_word, &s, 0);
	key = (__u32)s.sum & 15;
	n = bpf_map_lookup_elem(&counts, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	bpf_for_each_map_elem(&counts, find_max, &m, 0);
	return m.key == key && s.words ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
