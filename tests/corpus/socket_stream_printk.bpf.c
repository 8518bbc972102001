/* Writing to the program's standard streams (6.17+) as libbpf 1.6's bpf_stream_printk() does:
 * the format a static const in .rodata, the arguments an array of u64 on the stack, the last
 * argument NULL (the verifier hands the kfunc the program).  Debian's libbpf headers predate
 * the macro, so it is spelled out here as libbpf has it. */
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

extern int bpf_stream_vprintk_impl(int stream_id, const char *fmt__str, const void *args,
				   __u32 len__sz, void *aux__prog) __weak __ksym;

#define STDOUT 1
#define STDERR 2

#define stream_printk(stream_id, fmt, args...)                                            \
	({                                                                               \
		static const char ___fmt[] = fmt;                                        \
		unsigned long long ___param[___bpf_narg(args)];                          \
		___bpf_fill(___param, args);                                             \
		bpf_stream_vprintk_impl(stream_id, ___fmt, ___param, sizeof(___param),   \
					NULL);                                           \
	})

SEC("socket") int socket_stream_printk(struct __sk_buff *skb)
{
	__u8 first[2] = {};
	int err;

	if (skb->len < 60 || bpf_skb_load_bytes(skb, 0, first, sizeof(first)))
		return stream_printk(STDERR, "short packet: %u bytes\n", skb->len);
	err = stream_printk(STDOUT, "len %u proto %x first %02x%02x\n", skb->len,
			    bpf_ntohs(skb->protocol), first[0], first[1]);
	if (err)
		stream_printk(STDERR, "stdout: error %d\n", err);
	return skb->len;
}
char _license[] SEC("license") = "GPL";
