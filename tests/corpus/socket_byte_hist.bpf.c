#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 256); __type(key, __u32); __type(value, __u64); } bytes SEC(".maps");
SEC("socket") int socket_byte_hist(struct __sk_buff *skb) {
	unsigned char buf[32];
	__u32 len = skb->len;
	if (len > sizeof(buf)) len = sizeof(buf);
	if (len < 1) return 0;
	if (bpf_skb_load_bytes(skb, 0, buf, len) < 0) return 0;
	for (__u32 i = 0; i < len && i < sizeof(buf); i++) {
		__u32 k = buf[i];
		__u64 *v = bpf_map_lookup_elem(&bytes, &k);
		if (v) *v += 1;
	}
	return skb->len;
}
char _license[] SEC("license") = "GPL";
