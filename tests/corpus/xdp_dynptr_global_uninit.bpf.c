/* XDP, refused: a global function taking a dynptr is called with stack bytes that hold none
 * ("Expected an initialized dynptr", then the caller's error).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__attribute__((noinline)) int first_byte(struct bpf_dynptr *d)
{
	__u8 b[1];

	if (bpf_dynptr_read(b, sizeof(b), d, 0, 0))
		return 0;
	return b[0];
}

SEC("xdp") int xdp_dynptr_global_uninit(struct xdp_md *ctx)
{
	struct bpf_dynptr d;

	__builtin_memset(&d, 0, sizeof(d));
	return first_byte(&d) ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
