/* A tail call from a static subprogram (6.18 takes them with BTF func info): the subprogram
 * tail-calls the program at jmp_table[packet byte 0 % 4]; when that slot is empty the call fails
 * and it returns its own verdict.  When it succeeds, the target runs in the subprogram's frame
 * and its return value is the subprogram's: the verifier has the caller go on with an unknown
 * scalar, so main checks the value before using it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} jmp_table SEC(".maps");

static __attribute__((noinline)) int dispatch(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u8 *b = data;

	if ((void *)(b + 1) > end)
		return XDP_ABORTED;
	bpf_tail_call(ctx, &jmp_table, *b & 3);
	return XDP_DROP;
}

SEC("xdp") int xdp_subprog_tail_call(struct xdp_md *ctx)
{
	int verdict = dispatch(ctx);

	/* (clang would take dispatch()'s own returns as its range) */
	asm volatile("" : "+r"(verdict));
	/* a verdict from the table's program may be anything */
	if (verdict < XDP_ABORTED || verdict > XDP_REDIRECT)
		return XDP_ABORTED;
	return verdict == XDP_DROP ? XDP_PASS : verdict;
}
char _license[] SEC("license") = "GPL";
