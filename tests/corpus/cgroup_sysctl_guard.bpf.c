/* A sysctl guard: writes to net/ipv4/ip_forward are refused unless the new value is 0 or 1;
 * reads and every other sysctl pass. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static const char target[] = "net/ipv4/ip_forward";

SEC("cgroup/sysctl") int cgroup_sysctl_guard(struct bpf_sysctl *ctx)
{
	char name[sizeof(target)], value[8];
	unsigned long v;
	long n;

	if (!ctx->write)
		return 1;
	n = bpf_sysctl_get_name(ctx, name, sizeof(name), 0);
	if (n != sizeof(target) - 1 || bpf_strncmp(name, sizeof(name), target))
		return 1;
	n = bpf_sysctl_get_new_value(ctx, value, sizeof(value));
	if (n < 0 || bpf_strtoul(value, sizeof(value), 0, &v) < 0)
		return 0;
	return v <= 1;
}
char _license[] SEC("license") = "GPL";
