/* Kernel configuration externs (__kconfig), as libbpf resolves them into its read-only
 * ".kconfig" map: LINUX_KERNEL_VERSION from the running kernel's release, the LINUX_HAS_*
 * feature flags, and CONFIG_* values from the kernel's config (/boot/config-$(uname -r) or
 * /proc/config.gz): a bool, a tristate, numbers of three sizes and signs, a string, and weak
 * ones the config lacks (zero).  Each goes into the array "out"; a branch on a disabled option
 * is dead code the verifier never walks. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int LINUX_KERNEL_VERSION __kconfig;
extern bool LINUX_HAS_SYSCALL_WRAPPER __kconfig __weak;
extern bool LINUX_HAS_BPF_COOKIE __kconfig __weak;
extern bool CONFIG_BPF_SYSCALL __kconfig;
extern enum libbpf_tristate CONFIG_BPF_JIT __kconfig __weak;
extern int CONFIG_NR_CPUS __kconfig __weak;
extern unsigned long long CONFIG_HZ __kconfig __weak;
extern unsigned char CONFIG_IPV6 __kconfig __weak;
extern char CONFIG_DEFAULT_HOSTNAME[16] __kconfig __weak;
extern bool CONFIG_USERBPF_NO_SUCH_OPTION __kconfig __weak;
extern int CONFIG_USERBPF_NO_SUCH_NUMBER __kconfig __weak;

#include "out_array.h"

SEC("socket") int socket_kconfig(struct __sk_buff *skb)
{
	put(0, LINUX_KERNEL_VERSION);
	put(1, LINUX_HAS_SYSCALL_WRAPPER);
	put(2, LINUX_HAS_BPF_COOKIE);
	put(3, CONFIG_BPF_SYSCALL);
	put(4, CONFIG_BPF_JIT);
	put(5, CONFIG_NR_CPUS);
	put(6, CONFIG_HZ);
	put(7, CONFIG_IPV6);
	put(8, CONFIG_DEFAULT_HOSTNAME[0] | CONFIG_DEFAULT_HOSTNAME[1] << 8 |
		       CONFIG_DEFAULT_HOSTNAME[5] << 16 | CONFIG_DEFAULT_HOSTNAME[6] << 24);
	put(9, CONFIG_USERBPF_NO_SUCH_OPTION);
	put(10, CONFIG_USERBPF_NO_SUCH_NUMBER);
	if (CONFIG_USERBPF_NO_SUCH_OPTION) /* dead: the option is not set */
		put(11, bpf_get_prandom_u32());
	return 0;
}

char _license[] SEC("license") = "GPL";
