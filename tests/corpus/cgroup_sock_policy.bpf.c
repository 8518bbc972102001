/* A cgroup socket policy: raw sockets refused unless the creating task's uid is 0, the others
 * marked by their protocol and counted per family; binds to ports below 1024 refused. */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/socket.h>
#include <bpf/bpf_helpers.h>

#define SOCK_RAW 3

struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 16); __type(key, __u32); __type(value, __u64); } families SEC(".maps");

SEC("cgroup/sock_create") int cgroup_sock_policy(struct bpf_sock *sk)
{
	__u32 family = sk->family;
	__u64 *n = bpf_map_lookup_elem(&families, &family);

	if (n)
		__sync_fetch_and_add(n, 1);
	if (sk->type == SOCK_RAW && (__u32)bpf_get_current_uid_gid() != 0)
		return 0;
	sk->mark = 0x100 | sk->protocol;
	return 1;
}

SEC("cgroup/post_bind4") int cgroup_bind_policy(struct bpf_sock *sk)
{
	return sk->src_port >= 1024 || sk->src_ip4 == 0x0100007f;
}
char _license[] SEC("license") = "GPL";
