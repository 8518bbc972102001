/* bpf_strncmp() against .rodata constants: keeps HTTP request lines (GET, POST, HEAD) whole,
 * truncates everything else to its first 16 bytes */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("socket") int socket_strncmp_http(struct __sk_buff *skb)
{
	char buf[8] = {};

	if (bpf_skb_load_bytes(skb, 0, buf, 5))
		return 16;
	if (!bpf_strncmp(buf, 4, "GET ") || !bpf_strncmp(buf, 5, "POST ") ||
	    !bpf_strncmp(buf, 5, "HEAD "))
		return skb->len;
	return bpf_strncmp(buf, 4, "GET ") < 0 ? 8 : 16;
}
char _license[] SEC("license") = "GPL";
