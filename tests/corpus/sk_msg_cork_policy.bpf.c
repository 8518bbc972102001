/* A message verdict on a socket hash's sockets: messages to a port listed in the hash go to the
 * socket held for it; messages of an unlisted port pass in 512-byte batches (corked until the
 * batch is whole) once their first byte is checked, and a message that starts with a zero byte
 * is refused. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} by_port SEC(".maps");

SEC("sk_msg") int msg_policy(struct sk_msg_md *msg)
{
	__u32 port = msg->remote_port >> 16;
	__u8 *data, *end;

	if (bpf_msg_redirect_hash(msg, &by_port, &port, BPF_F_INGRESS) == SK_PASS)
		return SK_PASS;
	if (bpf_msg_pull_data(msg, 0, 1, 0))
		return SK_DROP;
	data = msg->data;
	end = msg->data_end;
	if (data + 1 > end || !data[0])
		return SK_DROP;
	bpf_msg_apply_bytes(msg, 512);
	bpf_msg_cork_bytes(msg, 512);
	return SK_PASS;
}
char _license[] SEC("license") = "GPL";
