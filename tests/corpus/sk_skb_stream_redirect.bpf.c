/* A socket map's stream verdict: each record (framed by sk_skb_frame_parser) goes to the socket
 * its first payload byte names; what cannot be placed is counted and dropped, and so are records
 * too short to name a socket. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} peers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unplaced SEC(".maps");

SEC("sk_skb/stream_verdict") int frame_verdict(struct __sk_buff *skb)
{
	__u8 *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 zero = 0, peer;
	__u64 *n;

	if (data + 5 > end)
		return SK_DROP;
	peer = data[4] & 15;
	if (bpf_sk_redirect_map(skb, &peers, peer, 0) == SK_PASS)
		return SK_PASS;
	n = bpf_map_lookup_elem(&unplaced, &zero);
	if (n)
		__sync_fetch_and_add(n, 1);
	return SK_DROP;
}
char _license[] SEC("license") = "GPL";
