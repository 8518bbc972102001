/* A syscall program (SEC("syscall"): sleepable, as the section says), the shape of a light
 * skeleton's loader: it makes an array map with bpf_sys_bpf() from an attr it builds on its
 * stack, writes the caller's value into it, reports the fd through its ctx, and closes it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct args {
	__u64 value;
	int map_fd;
	int update_ret;
};

SEC("syscall") int syscall_make_map(struct args *ctx)
{
	union bpf_attr attr;
	__u32 key = 0;
	__u64 value = ctx->value;
	int fd;

	__builtin_memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	fd = bpf_sys_bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	ctx->map_fd = fd;
	if (fd < 0)
		return 1;
	__builtin_memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (long)&key;
	attr.value = (long)&value;
	ctx->update_ret = bpf_sys_bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr));
	bpf_sys_close(fd);
	return 0;
}

char _license[] SEC("license") = "GPL";
