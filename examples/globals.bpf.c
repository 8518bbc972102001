/* globals: global data in .data, .rodata and .bss, and a bpf-to-bpf call.
 *
 * The loader turns each global-data section into a one-element array map (.rodata read-only to
 * the program and frozen), and the call to the static __noinline scale() into a call of a
 * subprogram appended after the program.  For each packet: calls (.bss) counts invocations,
 * last (.bss) receives scale(skb->len) = skb->len * multiplier (.rodata) + offset (.data), and
 * offset grows by step (.rodata) so that writes to .data are seen too.  Returns last & 0xff.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 multiplier = 3;
const volatile __u32 step = 10;
__u32 offset = 100;
__u64 calls;
__u64 last;

static __noinline __u64 scale(__u32 x)
{
	__u64 r = (__u64)x * multiplier + offset;

	offset += step;
	return r;
}

SEC("socket")
int globals_prog(struct __sk_buff *skb)
{
	calls++;
	last = scale(skb->len);
	return last & 0xff;
}

char _license[] SEC("license") = "GPL";
