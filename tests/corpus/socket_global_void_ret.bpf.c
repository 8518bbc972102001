/* rejected: a global function must return an integer (6.18 refuses the call otherwise) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
int counter;
__attribute__((noinline)) void bump(int n)
{
	counter += n;
}
SEC("socket") int socket_global_void_ret(struct __sk_buff *skb)
{
	bump(skb->len);
	return counter;
}
char _license[] SEC("license") = "GPL";
