/* bpf_strtol() and bpf_strtoul() on the first 24 bytes of the packet: what each consumed and
 * parsed goes to a map (base 0 for strtol: 0x.. hex, 0.. octal; base 10 for strtoul). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64[4]);
} parsed SEC(".maps");

SEC("socket") int socket_strtol_parse(struct __sk_buff *skb)
{
	char buf[24];
	long v;
	unsigned long u;
	__u32 k = 0;
	__s64 *out;

	if (bpf_skb_load_bytes(skb, 0, buf, sizeof(buf)))
		return 0;
	out = bpf_map_lookup_elem(&parsed, &k);
	if (!out)
		return 0;
	out[0] = bpf_strtol(buf, sizeof(buf), 0, &v);
	out[1] = v;
	out[2] = bpf_strtoul(buf, sizeof(buf), 10, &u);
	out[3] = u;
	return 1;
}
char _license[] SEC("license") = "GPL";
