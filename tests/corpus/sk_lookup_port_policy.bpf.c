/* A socket lookup policy: TCP connections to ports listed in a hash map go on to the regular
 * lookup (SK_PASS); other TCP ports in 8000..8999 are refused (SK_DROP); IPv6 connections from
 * outside 2001:db8::/32 to port 22 are refused too.  (It steers no connection to a socket:
 * that takes bpf_sk_assign() and a socket map.) */
#include <linux/bpf.h>
#include <linux/in.h>
#include <sys/socket.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} open_ports SEC(".maps");

SEC("sk_lookup") int sk_lookup_port_policy(struct bpf_sk_lookup *ctx)
{
	__u32 port = ctx->local_port;

	if (ctx->protocol != IPPROTO_TCP)
		return SK_PASS;
	if (bpf_map_lookup_elem(&open_ports, &port))
		return SK_PASS;
	if (port >= 8000 && port < 9000)
		return SK_DROP;
	if (port == 22 && ctx->family == AF_INET6 &&
	    ctx->remote_ip6[0] != bpf_htonl(0x20010db8))
		return SK_DROP;
	return SK_PASS;
}
char _license[] SEC("license") = "GPL";
