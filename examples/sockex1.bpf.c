/* sockex1: the kernel's classic socket-filter sample (samples/bpf/sockex1_kern.c), in libbpf style.
 *
 * For every packet seen by the socket, read the IPv4 protocol byte with an absolute load
 * (LD_ABS: load_byte() is LLVM's llvm.bpf.load.byte intrinsic) and add the packet's length to a
 * per-protocol byte counter in a 256-entry array keyed by that byte.  The filter returns 0: it
 * counts, the socket receives nothing.  Unlike the kernel sample it counts packets in every
 * direction (no skb->pkt_type test), so that BPF_PROG_TEST_RUN, whose packets are never
 * PACKET_OUTGOING, exercises the counter.  LD_ABS offsets are relative to skb->data, which is the
 * Ethernet header on a packet socket (and the network header under BPF_PROG_TEST_RUN).
 */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 256);
} my_map SEC(".maps");

SEC("socket")
int bpf_prog1(struct __sk_buff *skb)
{
	int index = load_byte(skb, ETH_HLEN + offsetof(struct iphdr, protocol));
	long *value;

	value = bpf_map_lookup_elem(&my_map, &index);
	if (value)
		__sync_fetch_and_add(value, skb->len);

	return 0;
}

char _license[] SEC("license") = "GPL";
