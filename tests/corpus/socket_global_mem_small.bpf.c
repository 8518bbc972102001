/* rejected: the caller passes 8 bytes of stack where the function's argument points at 32 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct big { long a[4]; };
__attribute__((noinline)) long first(const struct big *b)
{
	if (!b)
		return 0;
	return b->a[0];
}
SEC("socket") int socket_global_mem_small(struct __sk_buff *skb)
{
	long x = skb->len;

	return first((const struct big *)&x);
}
char _license[] SEC("license") = "GPL";
