/* A socket map's stream parser: records are framed by a 4-byte big-endian length at their head;
 * the parser returns a record's whole length once its head is in, 0 to wait for more bytes, and
 * an error for a length above 64 KiB. */
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("sk_skb/stream_parser") int frame_parser(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 len;

	if (data + 4 > end)
		return 0;
	len = bpf_ntohl(*(__u32 *)data);
	return len > 65536 ? -1 : (int)len + 4;
}

char _license[] SEC("license") = "GPL";
