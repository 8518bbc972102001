/* A getsockopt(2) filter: SO_PRIORITY reads back at most 6 (the kernel's answer is rewritten in
 * the option's buffer, which must hold the int); other options pass through untouched. */
#include <linux/bpf.h>
#include <sys/socket.h>
#include <bpf/bpf_helpers.h>

SEC("cgroup/getsockopt") int cgroup_getsockopt_clamp(struct bpf_sockopt *ctx)
{
	int *val = ctx->optval;

	if (ctx->level != SOL_SOCKET || ctx->optname != SO_PRIORITY)
		return 1;
	if ((void *)(val + 1) > ctx->optval_end)
		return 1;
	if (ctx->retval == 0 && *val > 6) {
		*val = 6;
		ctx->optlen = sizeof(*val);
	}
	return 1;
}
char _license[] SEC("license") = "GPL";
