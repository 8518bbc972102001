/* A container's device policy, as runtimes generate them: the character devices /dev/null,
 * zero, full, random, urandom, tty and ptmx may be used (any access: read, write, mknod);
 * everything else is refused.  Refusals are counted per major number (a hash map). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} refused SEC(".maps");

static __always_inline int allowed(__u32 major, __u32 minor)
{
	if (major == 1)		/* mem: null 3, zero 5, full 7, random 8, urandom 9 */
		return minor == 3 || minor == 5 || minor == 7 || minor == 8 || minor == 9;
	if (major == 5)		/* tty 0, ptmx 2 */
		return minor == 0 || minor == 2;
	return 0;
}

SEC("cgroup/dev") int cgroup_dev_allowlist(struct bpf_cgroup_dev_ctx *ctx)
{
	__u16 type = ctx->access_type & 0xffff;
	__u32 major = ctx->major;
	__u64 one = 1, *n;

	if (type == BPF_DEVCG_DEV_CHAR && allowed(major, ctx->minor))
		return 1;
	n = bpf_map_lookup_elem(&refused, &major);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&refused, &major, &one, BPF_NOEXIST);
	return 0;
}
char _license[] SEC("license") = "GPL";
