/* rejected: a global function's pointer argument may be NULL (6.18 assumes so without an
 * __arg_nonnull tag), and this one reads through it unchecked */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct pair { int a, b; };
__attribute__((noinline)) int sum(const struct pair *p) { return p->a + p->b; }
SEC("socket") int socket_global_mem_null(struct __sk_buff *skb)
{
	struct pair p = { skb->len, 2 };

	return sum(&p);
}
char _license[] SEC("license") = "GPL";
