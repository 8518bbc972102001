/* rejected: a global function's pointer argument must point at something with a size (6.18
 * refuses the call when it is void *) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
__attribute__((noinline)) int peek(void *p)
{
	if (!p)
		return 0;
	return *(char *)p;
}
SEC("socket") int socket_global_void_ptr(struct __sk_buff *skb)
{
	char c = 7;

	return peek(&c);
}
char _license[] SEC("license") = "GPL";
