/* Rejected: a bind hook may read the bound address but not write the socket's mark, which only
 * the create and release hooks own. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("cgroup/post_bind6") int cgroup_sock_bad_write(struct bpf_sock *sk)
{
	if (sk->src_port == 53)
		sk->mark = 53;
	return 1;
}
char _license[] SEC("license") = "GPL";
