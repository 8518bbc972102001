/* XDP calling a global function with preemption disabled (bpf_preempt_disable() ...
 * bpf_preempt_enable() around the call): whether the verifier takes it is the kernel's to say. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

__attribute__((noinline)) int count_bytes(struct xdp_md *ctx)
{
	return (int)(ctx->data_end - ctx->data);
}

SEC("xdp") int xdp_preempt_global(struct xdp_md *ctx)
{
	int n;

	bpf_preempt_disable();
	n = count_bytes(ctx);
	bpf_preempt_enable();
	return n > 64 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
