/* XDP with the dynptr kfuncs, declared as a program declares them (extern ... __ksym, resolved
 * by name in the kernel's BTF), and a weak kfunc no kernel has, tested before use (its call is
 * dead code).  The packet drives one step over a local dynptr of the 32-byte `vals` element:
 * bytes 0..1 adjust it to [start, end), byte 2 is a slice's offset, byte 3 chooses the slice
 * (0: of 4 bytes, no buffer; 1: of 8 bytes, with a stack buffer; 2: of a clone adjusted by
 * one more byte).  The result packs the kfuncs' answers: adjust's return (low byte), the size
 * after it, whether the slice was NULL, and the slice's first two bytes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dynptr_vals.h"

extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym;
extern _Bool bpf_dynptr_is_null(const struct bpf_dynptr *p) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;
extern int bpf_no_such_kfunc_anywhere(int x) __ksym __weak;

SEC("xdp") int xdp_kfunc_dynptr(struct xdp_md *ctx)
{
	__u8 *p = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end, *s = 0;
	struct bpf_dynptr d, c;
	__u8 buf[8] = {};
	__u32 key = 0, size;
	struct val *v;
	int ret;

	if ((void *)(p + 4) > (void *)end)
		return XDP_ABORTED;
	v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return XDP_ABORTED;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &d);
	if (bpf_no_such_kfunc_anywhere)
		return bpf_no_such_kfunc_anywhere(1);
	ret = bpf_dynptr_adjust(&d, p[0], p[1]);
	size = bpf_dynptr_size(&d);
	if (p[3] == 0) {
		s = bpf_dynptr_slice(&d, p[2], NULL, 4);
	} else if (p[3] == 1) {
		s = bpf_dynptr_slice(&d, p[2], buf, 8);
	} else {
		bpf_dynptr_clone(&d, &c);
		if (bpf_dynptr_adjust(&c, 1, bpf_dynptr_size(&c)) || bpf_dynptr_is_null(&c))
			return 7;
		s = bpf_dynptr_slice(&c, p[2], NULL, 4);
	}
	if (!s)
		return (ret & 0xff) | size << 8 | 1 << 16;
	return (ret & 0xff) | size << 8 | s[0] << 17 | s[1] << 25;
}

char _license[] SEC("license") = "GPL";
