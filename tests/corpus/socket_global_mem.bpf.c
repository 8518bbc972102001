/* global functions with pointer arguments: verified once for any memory of the pointee's size
 * or NULL; the callers pass stack memory (initialised: the function may read it) and NULL */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct pair { int a, b; };
__attribute__((noinline)) int sum(const struct pair *p)
{
	if (!p)
		return 0;
	return p->a + p->b;
}
__attribute__((noinline)) int fill(int *out, int n)
{
	if (!out)
		return -1;
	*out = n * 3;
	return 0;
}
SEC("socket") int socket_global_mem(struct __sk_buff *skb)
{
	struct pair p = { skb->len, 2 };
	int x = 0;

	fill(&x, 5);
	return sum(&p) + sum(0) + x + fill(0, 1);
}
char _license[] SEC("license") = "GPL";
