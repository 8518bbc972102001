/* a bpf_loop() callback that calls a global function, with a round count the verifier only
 * bounds, and a static function after the loop: precision backtracking crosses the global call
 * (which, not walked, only sets R0) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct ctx_t {
	__u64 acc;
	__u32 n;
};

__attribute__((noinline)) int mix(int a, int b)
{
	return (a * 31) ^ (b >> 3);
}

static long step(__u32 i, struct ctx_t *c)
{
	c->acc += mix(i, c->n);
	c->n++;
	return c->n > 20;
}

static __attribute__((noinline)) int low_byte(struct ctx_t *c)
{
	return c->acc & 0xff;
}

SEC("socket") int socket_loop_global_call(struct __sk_buff *skb)
{
	struct ctx_t c = { 0, skb->len & 7 };

	bpf_loop(skb->len & 31, step, &c, 0);
	return low_byte(&c);
}
char _license[] SEC("license") = "GPL";
