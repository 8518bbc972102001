/* A connect(2) policy for IPv4: connections to a service address found in a hash map are sent
 * to the local backend the map names (address and port rewritten in place); TCP connections to
 * port 25 are refused unless the socket is bound to a device; everything else goes ahead.  It
 * counts, per verdict, in a per-CPU array. */
#include <linux/bpf.h>
#include <linux/in.h>
#include <sys/socket.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct service {
	__u32 ip;	/* network order */
	__u16 port;	/* network order */
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct service);
	__type(value, struct service);
} backends SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} verdicts SEC(".maps");

static __always_inline int verdict(__u32 v)
{
	__u64 *n = bpf_map_lookup_elem(&verdicts, &v);

	if (n)
		(*n)++;
	return v == 1 ? 0 : 1;	/* 0: passed, 1: refused, 2: redirected */
}

SEC("cgroup/connect4") int cgroup_connect4_redirect(struct bpf_sock_addr *ctx)
{
	struct service key = { .ip = ctx->user_ip4, .port = (__u16)ctx->user_port };
	struct service *to;
	struct bpf_sock *sk = ctx->sk;

	if (ctx->user_family != AF_INET)
		return verdict(0);
	if (ctx->protocol == IPPROTO_TCP && key.port == bpf_htons(25) && !sk->bound_dev_if)
		return verdict(1);
	to = bpf_map_lookup_elem(&backends, &key);
	if (!to)
		return verdict(0);
	ctx->user_ip4 = to->ip;
	ctx->user_port = to->port;
	return verdict(2);
}
char _license[] SEC("license") = "GPL";
