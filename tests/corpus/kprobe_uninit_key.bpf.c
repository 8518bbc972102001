/* a key struct whose padding is never written: accepted as root, since 6.18 lets privileged
 * programs read uninitialized stack */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct key { __u32 pid; __u64 cookie; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 128); __type(key, struct key); __type(value, __u64); } seen SEC(".maps");

SEC("kprobe/vfs_read") int kprobe_uninit_key(void *ctx)
{
	struct key k;
	__u64 one = 1;

	k.pid = bpf_get_current_pid_tgid() >> 32;
	k.cookie = bpf_get_prandom_u32();
	bpf_map_update_elem(&seen, &k, &one, BPF_ANY);
	return 0;
}
char _license[] SEC("license") = "GPL";
