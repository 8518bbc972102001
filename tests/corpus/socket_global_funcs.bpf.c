#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
__attribute__((noinline)) int scale(int x) { if (x > 100) return 100; return x * 2; }
__attribute__((noinline)) int get_len(struct __sk_buff *skb) { return skb->len; }
SEC("socket") int socket_global_funcs(struct __sk_buff *skb) {
	int l = get_len(skb);
	return scale(l) + 1;
}
char _license[] SEC("license") = "GPL";
