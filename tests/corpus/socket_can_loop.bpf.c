/* Loops bounded by may_goto, as libbpf's bpf_experimental.h spells can_loop and cond_break for
 * compilers without a may_goto mnemonic (clang before 19: the instruction's bytes): a sum of
 * the packet's bytes while can_loop, and a search that gives up at cond_break. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* may_goto to l_break (the offset in instructions, imm 0) */
#define MAY_GOTO_BYTES                                                                   \
	"1:.byte 0xe5;"                                                                  \
	".byte 0;"                                                                       \
	".long ((%l[l_break] - 1b - 8) / 8) & 0xffff;"                                   \
	".short 0"

#define can_loop                                                                         \
	({                                                                               \
		__label__ l_break, l_continue;                                           \
		_Bool ret = 1;                                                           \
		asm volatile goto(MAY_GOTO_BYTES :::: l_break);                          \
		goto l_continue;                                                         \
	l_break:                                                                         \
		ret = 0;                                                                 \
	l_continue:;                                                                     \
		ret;                                                                     \
	})

#define cond_break                                                                       \
	({                                                                               \
		__label__ l_break, l_continue;                                           \
		asm volatile goto(MAY_GOTO_BYTES :::: l_break);                          \
		goto l_continue;                                                         \
	l_break:                                                                         \
		break;                                                                   \
	l_continue:;                                                                     \
	})

SEC("socket") int socket_can_loop(struct __sk_buff *skb)
{
	__u32 sum = 0, at = 0;
	__u8 b;

	for (__u32 i = 0; i < skb->len && can_loop; i++) {
		if (bpf_skb_load_bytes(skb, i, &b, 1))
			break;
		sum += b;
	}
	/* the first 0xff byte's offset, or the length */
	while (at < skb->len) {
		if (bpf_skb_load_bytes(skb, at, &b, 1) || b == 0xff)
			break;
		at++;
		cond_break;
	}
	return sum << 16 | (at & 0xffff);
}
char _license[] SEC("license") = "GPL";
