/* configuration in .rodata (a frozen read-only map): the verifier reads it as constants, so a
 * disabled branch is never walked and a loop bounded by a configured count is accepted */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile int cfg_mode = 2;
const volatile unsigned int cfg_rounds = 5;
const volatile unsigned char cfg_table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };

SEC("socket") int socket_rodata_cfg(struct __sk_buff *skb)
{
	unsigned int acc = skb->len;

	if (cfg_mode == 1) {
		/* dead with cfg_mode 2: the kernel never looks at it */
		for (int i = 0; i < 64; i++)
			acc = acc * 31 + i;
		bpf_trace_printk("mode 1\n", 8);
	}
	for (unsigned int i = 0; i < cfg_rounds; i++)
		acc += cfg_table[i & 7];
	return acc;
}
char _license[] SEC("license") = "GPL";
