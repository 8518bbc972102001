/* A reuseport group's socket selection: a UDP datagram whose first byte names a slot goes to
 * that slot's socket, anything else by its flow hash over the group's 8 slots; a slot that is
 * empty drops the packet.  Per slot, how many were sent there and the last socket's cookie. */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} group SEC(".maps");

struct slot_stats {
	__u64 packets;
	__u64 cookie;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct slot_stats);
} stats SEC(".maps");

SEC("sk_reuseport") int select_slot(struct sk_reuseport_md *md)
{
	__u8 *data = md->data, *end = md->data_end;
	struct slot_stats *st;
	__u32 key = md->hash % 8;

	if (md->ip_protocol == IPPROTO_UDP && data + 1 <= end)
		key = data[0] & 7;
	if (bpf_sk_select_reuseport(md, &group, &key, 0))
		return SK_DROP;
	st = bpf_map_lookup_elem(&stats, &key);
	if (st) {
		__sync_fetch_and_add(&st->packets, 1);
		st->cookie = bpf_get_socket_cookie(md->sk);
	}
	return SK_PASS;
}
char _license[] SEC("license") = "GPL";
