/* classic socket filter with the legacy packet loads (LD_ABS / LD_IND through clang builtins) */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");
unsigned long long load_half(void *skb, unsigned long long off) asm("llvm.bpf.load.half");
unsigned long long load_word(void *skb, unsigned long long off) asm("llvm.bpf.load.word");

struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 256); __type(key, __u32); __type(value, __u64); } proto_bytes SEC(".maps");

SEC("socket") int socket_ld_abs(struct __sk_buff *skb)
{
	if (load_half(skb, 12) != ETH_P_IP)
		return 0;
	__u32 proto = load_byte(skb, ETH_HLEN + 9);
	__u32 ihl = (load_byte(skb, ETH_HLEN) & 0xf) * 4;
	__u32 ports = load_word(skb, ETH_HLEN + ihl);
	__u64 *v = bpf_map_lookup_elem(&proto_bytes, &proto);
	if (v)
		__sync_fetch_and_add(v, skb->len);
	return (ports & 0xffff) == 53 ? -1 : 0;
}
char _license[] SEC("license") = "GPL";
