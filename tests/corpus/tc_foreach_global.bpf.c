/* tc: per-source counters in a hash; a global function takes the ctx and a pointer to a
 * result struct; bpf_for_each_map_elem() finds the largest counter and ages the others */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

struct stats {
	__u64 max;
	__u32 key;
	__u32 seen;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static long visit(void *map, __u32 *key, __u64 *val, struct stats *s)
{
	s->seen++;
	if (*val > s->max) {
		s->max = *val;
		s->key = *key;
	}
	if (*val > 1)
		*val -= 1;
	return 0;
}

__attribute__((noinline)) int count_len(struct __sk_buff *skb, struct stats *s)
{
	__u32 key;
	__u64 one = 1, *n;

	if (!s)
		return -1;
	key = skb->len & 63;
	n = bpf_map_lookup_elem(&counts, &key);
	if (n)
		*n += 1;
	else
		bpf_map_update_elem(&counts, &key, &one, BPF_ANY);
	s->seen = 0;
	s->max = 0;
	s->key = 0;
	return 0;
}

SEC("tc") int tc_foreach_global(struct __sk_buff *skb)
{
	struct stats s = {};

	if (count_len(skb, &s))
		return TC_ACT_SHOT;
	bpf_for_each_map_elem(&counts, visit, &s, 0);
	return s.key == (skb->len & 63) ? TC_ACT_OK : TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
