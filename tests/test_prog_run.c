/* BPF_PROG_TEST_RUN, differential: the same programs (userbpf/insn.h macros) loaded on userbpf
 * and on the live kernel, run on the same packets and contexts; return code, errno, retval,
 * data_out, data_size_out, ctx_out, ctx_size_out and map contents must agree.  Duration is only
 * checked for being set.  The kernel side SKIPs where its bpf() is unavailable.
 */
#include <linux/if_ether.h>
#include <linux/filter.h>

#include "kernel_probe.h"
#include "test_prog.h"

/* The case table lives inside the test (its programs are compound literals) and its rows give
 * only the leading fields they need. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define SF BPF_PROG_TYPE_SOCKET_FILTER
#define CLS BPF_PROG_TYPE_SCHED_CLS
#define XDP BPF_PROG_TYPE_XDP
#define RAWTP BPF_PROG_TYPE_RAW_TRACEPOINT
#define CGSKB BPF_PROG_TYPE_CGROUP_SKB
#define ACT BPF_PROG_TYPE_SCHED_ACT
#define LWTIN BPF_PROG_TYPE_LWT_IN
#define LWTOUT BPF_PROG_TYPE_LWT_OUT
#define LWTX BPF_PROG_TYPE_LWT_XMIT
#define SKB_OFF(f) ((short)offsetof(struct __sk_buff, f))
#define XDP_OFF(f) ((short)offsetof(struct xdp_md, f))
#define LEN(a) ((u_int32_t)ARRAY_SIZE(a))
#define PROG(...) (const struct bpf_insn[]){ __VA_ARGS__ }, LEN(((struct bpf_insn[]){ __VA_ARGS__ }))

/* ---- packets ---- */

static u_int8_t pkt_ip4[] = {
	0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x08, 0x00,			/* eth: to lo, IPv4 */
	0x45, 0, 0, 44, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, /* IPv4, UDP */
	0x30, 0x39, 0x00, 0x35, 0, 24, 0, 0,				/* UDP 12345 -> 53 */
	'p', 'a', 'y', 'l', 'o', 'a', 'd', '-', 'b', 'y', 't', 'e', 's', '!', '!', '!',
};
static u_int8_t pkt_ip6[14 + 40 + 8] = {
	0x33, 0x33, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 8, 17, 64,
};
static u_int8_t pkt_ip6_addr[14 + 40 + 8] = {
	0x33, 0x33, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 8, 17, 64,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,		/* src fe80::1 */
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34,	/* dst 2001:db8::1234 */
};
/* 802.1Q (VLAN 100) in the payload, then IPv4; and 802.1ad (VLAN 7) over 802.1Q (VLAN 100) */
static u_int8_t pkt_vlan[64] = {
	0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x64, 0x08, 0x00,
	0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
};
static u_int8_t pkt_qinq[68] = {
	0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x88, 0xa8, 0x00, 0x07, 0x81, 0x00, 0x00, 0x64,
	0x08, 0x00, 0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
};
static u_int8_t pkt_vlan_short[17] = { 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0, 1, 8 };
static u_int8_t pkt_ip4_big[120] = {
	0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
	0x45, 0, 0, 106, 0, 1, 0, 0, 64, 4, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,	/* IPIP */
	0x45, 0, 0, 86, 0, 2, 0, 0, 64, 17, 0, 0, 10, 1, 0, 1, 10, 1, 0, 2,
};
/* pkt_ip4 with the ECN bits ECT(0), ECT(1), CE; IPv6 with ECT(0) */
#define IP4_TOS(tos)                                                                             \
	{ 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, tos, 0, 44, 0, 1, 0, 0, 64, 17,     \
	  0x12, 0x34, 10, 0, 0, 1, 10, 0, 0, 2, 0x30, 0x39, 0x00, 0x35, 0, 24, 0, 0 }
static u_int8_t pkt_ip4_ect0[58] = IP4_TOS(0x02);
static u_int8_t pkt_ip4_ect1[58] = IP4_TOS(0xb9);
static u_int8_t pkt_ip4_ce[58] = IP4_TOS(0x03);
static u_int8_t pkt_ip6_ect0[14 + 40 + 8] = {
	0x33, 0x33, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x6a, 0x2f, 0xff, 0xee, 0, 8, 17, 64,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};
static u_int8_t pkt_bcast[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08,
				  0x06 };
static u_int8_t pkt_other[60] = { 2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1, 0x08, 0x06 };
static u_int8_t pkt_8023[60] = { 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x00, 0x2e, 0xff, 0xff };
static u_int8_t pkt_8022[60] = { 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x00, 0x2e, 0xaa, 0xaa };
static u_int8_t pkt_ip4_short[14 + 10] = { 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45 };
static u_int8_t pkt_big[80000];

/* ---- cases ---- */

struct run_case {
	const char *name;
	u_int32_t type;
	const struct bpf_insn *insns;
	u_int32_t cnt;
	const u_int8_t *pkt;		/* NULL with pkt_len: data_in NULL */
	u_int32_t pkt_len;
	u_int32_t data_size_out;	/* data_out buffer is always large */
	const void *ctx_in;
	u_int32_t ctx_size_in, ctx_size_out;
	u_int32_t repeat, flags, cpu, batch_size;
	bool no_data_out;
	int prog_fd;			/* non-zero: use this fd instead of the program's */
};

static const u_int64_t rawtp_args[13] = { 1000, 7, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x1234567 };
static struct __sk_buff skb_ctx_mark = { .mark = 0x11, .priority = 3, .cb = { 1, 2, 3, 4, 5 },
					 .tstamp = 99, .gso_segs = 2, .gso_size = 1400 };
static struct __sk_buff skb_ctx_len = { .len = 1 };
static struct __sk_buff skb_ctx_wire_small = { .wire_len = 10 };
static struct __sk_buff skb_ctx_wire_ok = { .wire_len = 1000 };
static struct __sk_buff skb_ctx_gso_big = { .gso_segs = 70000 };
static struct __sk_buff skb_ctx_ifindex_none = { .ifindex = 99999 };
static struct __sk_buff skb_ctx_ifindex_lo = { .ifindex = 1, .ingress_ifindex = 7 };
static u_int8_t skb_ctx_long[256]; /* zero beyond __sk_buff */
static u_int8_t skb_ctx_long_dirty[256] = { [200] = 1 };
static struct xdp_md xdp_ctx_meta = { .data = 8, .data_end = 58 };
static struct xdp_md xdp_ctx_meta_odd = { .data = 6, .data_end = 58 };
static struct xdp_md xdp_ctx_meta_36 = { .data = 36, .data_end = 58 };
static struct xdp_md xdp_ctx_meta_32 = { .data = 32, .data_end = 58 };
static struct xdp_md xdp_ctx_meta_216 = { .data = 216, .data_end = 300 };
static struct xdp_md xdp_ctx_meta_220 = { .data = 220, .data_end = 300 };
static struct xdp_md xdp_ctx_meta_252 = { .data = 252, .data_end = 300 };
static struct xdp_md xdp_ctx_meta_256 = { .data = 256, .data_end = 300 };
static struct xdp_md xdp_ctx_data_meta = { .data_meta = 4, .data_end = 58 };
static struct xdp_md xdp_ctx_end_big = { .data_end = 100 };
static struct xdp_md xdp_ctx_egress = { .data_end = 58, .egress_ifindex = 1 };
static struct xdp_md xdp_ctx_rxq_only = { .data_end = 58, .rx_queue_index = 1 };
static struct xdp_md xdp_ctx_lo = { .data_end = 58, .ingress_ifindex = 1 };
static struct xdp_md xdp_ctx_lo_q5 = { .data_end = 58, .ingress_ifindex = 1, .rx_queue_index = 5 };
static struct xdp_md xdp_ctx_none = { .data_end = 58, .ingress_ifindex = 99999 };
static struct xdp_md xdp_ctx_short_linear = { .data_end = 20 };
static struct xdp_md xdp_ctx_plain = { .data_end = 58 };

#define RET_IMM(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()
/* A cgroup skb program's verdict is 0 or 1: what it computes into r6 goes to map[0] (the
 * instructions X, with the ctx in r1), then it returns 1. */
#define CGSKB_REC(X...)                                                                          \
	X, BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),           \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),       \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),  \
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),                                    \
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0), BPF_MOV64_IMM(BPF_REG_0, 1),       \
		BPF_EXIT_INSN()
#define R6_SKB(f) BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(f))
/* tc: r6 = ctx; the instructions X (a helper call); r0 = (the call's r0 & 0xffff) << 16 |
 * skb->len (so an error or the new length both show in retval) */
#define CALL_THEN_LEN(X...)                                                                      \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), X, BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),              \
		BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 0xffff), BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 16), \
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, SKB_OFF(len)),                          \
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), BPF_EXIT_INSN()
/* tc: r6 = ctx; X (helper calls); r0 = the last call's r0 << 8 | skb->f */
#define CALL_THEN_FIELD(f, X...)                                                                 \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), X,                                                  \
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, SKB_OFF(f)),                            \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), \
		BPF_EXIT_INSN()
#define CHANGE_TAIL(n, fl)                                                                       \
	BPF_MOV64_IMM(BPF_REG_2, n), BPF_MOV64_IMM(BPF_REG_3, fl),                               \
		BPF_EMIT_CALL(BPF_FUNC_skb_change_tail)
#define CHANGE_HEAD(n, fl)                                                                       \
	BPF_MOV64_IMM(BPF_REG_2, n), BPF_MOV64_IMM(BPF_REG_3, fl),                               \
		BPF_EMIT_CALL(BPF_FUNC_skb_change_head)
#define VLAN_PUSH(proto_be, tci)                                                                 \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, proto_be),                 \
		BPF_MOV64_IMM(BPF_REG_3, tci), BPF_EMIT_CALL(BPF_FUNC_skb_vlan_push)
#define ADJ_ROOM(diff, mode, fl)                                                                 \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, diff),                     \
		BPF_MOV64_IMM(BPF_REG_3, mode), BPF_LD_IMM64(BPF_REG_4, fl),                     \
		BPF_EMIT_CALL(BPF_FUNC_skb_adjust_room)
/* bpf_csum_level(ctx in r6, L); r0 its result */
#define CSUM_LEVEL(L)                                                                            \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, L),                        \
		BPF_EMIT_CALL(BPF_FUNC_csum_level)
#define CSUM_LEVELS_1(L) CSUM_LEVEL(L)
#define CSUM_LEVELS(...) BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), CSUM_LEVELS_N(__VA_ARGS__), BPF_EXIT_INSN()
#define CSUM_LEVELS_N(...) CSUM_LEVELS_SEL(__VA_ARGS__, CL6, CL5, CL4, CL3, CL2, CL1)(__VA_ARGS__)
#define CSUM_LEVELS_SEL(a, b, c, d, e, f, N, ...) N
#define CL1(a) CSUM_LEVEL(a)
#define CL2(a, ...) CSUM_LEVEL(a), CL1(__VA_ARGS__)
#define CL3(a, ...) CSUM_LEVEL(a), CL2(__VA_ARGS__)
#define CL4(a, ...) CSUM_LEVEL(a), CL3(__VA_ARGS__)
#define CL5(a, ...) CSUM_LEVEL(a), CL4(__VA_ARGS__)
#define CL6(a, ...) CSUM_LEVEL(a), CL5(__VA_ARGS__)
/* bpf_redirect_neigh(1, params on the stack or NULL, plen, flags) */
#define REDIRECT_NEIGH(plen, fl)                                                                 \
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),           \
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0), BPF_MOV64_IMM(BPF_REG_1, 1),              \
		BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, plen),                     \
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 2), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),     \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -24), BPF_MOV64_IMM(BPF_REG_4, fl),            \
		BPF_EMIT_CALL(BPF_FUNC_redirect_neigh), BPF_EXIT_INSN()
/* bpf_check_mtu(ctx, ifindex, &mtu (= in), diff, flags): map[0] = mtu after, r0 the result */
#define CHECK_MTU(ifindex, in, diff, fl)                                                         \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ST_MEM(BPF_W, BPF_REG_10, -8, in),              \
		BPF_MOV64_IMM(BPF_REG_2, ifindex), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),         \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, diff),           \
		BPF_MOV64_IMM(BPF_REG_5, fl), BPF_EMIT_CALL(BPF_FUNC_check_mtu),                 \
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0), BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_10, -8), \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),      \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),       \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),  \
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_8, 0), BPF_MOV64_REG(BPF_REG_0, BPF_REG_7), \
		BPF_EXIT_INSN()
/* bpf_skb_set_tstamp(ctx, ts, type): r0 = result << 16 | tstamp_type << 8 | (tstamp & 0xff) */
#define SET_TSTAMP(ts, type)                                                                     \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, ts),                       \
		BPF_MOV64_IMM(BPF_REG_3, type), BPF_EMIT_CALL(BPF_FUNC_skb_set_tstamp),          \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 16),                                           \
		BPF_LDX_MEM(BPF_B, BPF_REG_7, BPF_REG_6, SKB_OFF(tstamp_type)),                  \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 8), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), \
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_6, SKB_OFF(tstamp)),                      \
		BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 0xff), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), \
		BPF_EXIT_INSN()
/* r0 = bpf_skb_ecn_set_ce(ctx) (0 or 1) */
#define ECN_CE BPF_EMIT_CALL(BPF_FUNC_skb_ecn_set_ce), BPF_EXIT_INSN()
#define CLONE_REDIRECT(ifindex, fl)                                                              \
	BPF_MOV64_IMM(BPF_REG_2, ifindex), BPF_MOV64_IMM(BPF_REG_3, fl),                         \
		BPF_EMIT_CALL(BPF_FUNC_clone_redirect), BPF_EXIT_INSN()
#define VLAN_POP BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_EMIT_CALL(BPF_FUNC_skb_vlan_pop)
/* r0 = vlan_present << 28 | (vlan_proto & 0xffff) << 12 | (vlan_tci & 0xfff), after X (ctx in
 * r6); the protocol goes to map[0] */
#define VLAN_STATE(X...)                                                                         \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), X, BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6,         \
							      SKB_OFF(vlan_present)),           \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 28),                                           \
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, SKB_OFF(vlan_proto)),                   \
		BPF_ALU64_IMM(BPF_AND, BPF_REG_8, 0xffff), BPF_ALU64_IMM(BPF_LSH, BPF_REG_8, 12), \
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_8),                                     \
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, SKB_OFF(vlan_tci)),                     \
		BPF_ALU64_IMM(BPF_AND, BPF_REG_8, 0xfff), BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_8), \
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_6, SKB_OFF(protocol)),                     \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),      \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),       \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),  \
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_8, 0), BPF_MOV64_REG(BPF_REG_0, BPF_REG_7), \
		BPF_EXIT_INSN()
/* r6 = data_end - data */
#define CGSKB_PKT_LEN                                                                            \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB_OFF(data)),                                 \
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(data_end)),                    \
		BPF_ALU64_REG(BPF_SUB, BPF_REG_6, BPF_REG_2)
/* a raw tracepoint's r0 = arg0 + 3 * arg1 */
#define RAWTP_SUM                                                                                \
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0), BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8), \
		BPF_ALU64_IMM(BPF_MUL, BPF_REG_2, 3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2), \
		BPF_EXIT_INSN()
#define RET_SKB(f) BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, SKB_OFF(f)), BPF_EXIT_INSN()

/* r0 = map[0] += 1 (array map, 8-byte values) */
#define COUNTER_PROG                                                                             \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),              \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),       \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),                                         \
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2), BPF_MOV64_IMM(BPF_REG_0, 0),              \
		BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_1, 1),                                    \
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),                         \
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0), BPF_EXIT_INSN()

/* map[key] = value with flags; r0 = the helper's result */
#define UPDATE_PROG(key, value, flags)                                                           \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, key), BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, value),      \
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),     \
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),    \
		BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT), BPF_MOV64_IMM(BPF_REG_4, flags),             \
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_EXIT_INSN()

#define DELETE_PROG(key)                                                                         \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, key), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),            \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),       \
		BPF_EMIT_CALL(BPF_FUNC_map_delete_elem), BPF_EXIT_INSN()

/* skb_load_bytes(ctx, off, fp - 8, len); r0 = ret << 32 | *(u32 *)(fp - 8) */
#define LOAD_BYTES_PROG(off, len)                                                                \
	BPF_MOV64_IMM(BPF_REG_2, off), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),                     \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, len),            \
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),  \
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_10, -8), BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8), \
		BPF_ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()

/* skb_store_bytes(ctx, off, fp - 8 = 0xdeadbeef, len, flags); r0 = ret */
#define STORE_BYTES_PROG(off, len, flags)                                                        \
	BPF_MOV64_IMM(BPF_REG_2, off), BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0xdeadbeef),            \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0x01020304),                                   \
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),     \
		BPF_MOV64_IMM(BPF_REG_4, len), BPF_MOV64_IMM(BPF_REG_5, flags),                  \
		BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes), BPF_EXIT_INSN()

/* fn(ctx, off) (bpf_xdp_adjust_head / _tail); then data[0] = 0x77 if the packet has a byte, and
 * r0 = (data_end - data) << 8 | (fn's result & 0xff): data_out and ctx_out show the rest */
#define ADJUST_PROG(fn, off)                                                                     \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, off),                      \
		BPF_EMIT_CALL(BPF_FUNC_##fn), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),               \
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, XDP_OFF(data)),                         \
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, XDP_OFF(data_end)),                     \
		BPF_MOV64_REG(BPF_REG_5, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 1),       \
		BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_3, 1), BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 0x77), \
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_3), BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_2), \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8), BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 0xff),   \
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), BPF_EXIT_INSN()

/* bpf_xdp_adjust_meta(ctx, off); then the first metadata word = 0x01020304 if there is one;
 * r0 = the result (data_out starts at the metadata, ctx_out has its length) */
#define META_PROG(off)                                                                           \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, off),                      \
		BPF_EMIT_CALL(BPF_FUNC_xdp_adjust_meta), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),    \
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, XDP_OFF(data)),                         \
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, XDP_OFF(data_meta)),                    \
		BPF_MOV64_REG(BPF_REG_5, BPF_REG_4), BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 4),       \
		BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_2, 1),                                   \
		BPF_ST_MEM(BPF_W, BPF_REG_4, 0, 0x01020304), BPF_MOV64_REG(BPF_REG_0, BPF_REG_7), \
		BPF_EXIT_INSN()

/* The words fp-16 = 0x11223344, fp-12 = 0x55667788 (from), fp-8 = 0x99aabbcc, fp-4 = 0xddeeff00
 * (to); r0 = bpf_csum_diff(FROM, fsz, TO, tsz, seed), FROM and TO each a pointer or 0 */
#define CSUM_DIFF_PROG(FROM, fsz, TO, tsz, seed)                                                 \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -16, 0x11223344), BPF_ST_MEM(BPF_W, BPF_REG_10, -12, 0x55667788), \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, (int)0x99aabbcc),                              \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, (int)0xddeeff00), FROM, TO,                    \
		BPF_MOV64_IMM(BPF_REG_2, fsz), BPF_MOV64_IMM(BPF_REG_4, tsz),                    \
		BPF_MOV64_IMM(BPF_REG_5, seed), BPF_EMIT_CALL(BPF_FUNC_csum_diff), BPF_EXIT_INSN()
/* r0 = bpf_csum_diff(NULL, 0, data + 1, n, 0) after checking n bytes from data + 1 */
#define CSUM_DIFF_PKT_PROG(n)                                                                    \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data)),                                 \
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, XDP_OFF(data_end)),                     \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, 1), BPF_MOV64_REG(BPF_REG_5, BPF_REG_3),       \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, n), BPF_MOV64_IMM(BPF_REG_0, 0),               \
		BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_4, 5), BPF_MOV64_IMM(BPF_REG_1, 0),      \
		BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, n),                        \
		BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_csum_diff), BPF_EXIT_INSN()
#define R1_FP(off) BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off)
#define R3_FP(off) BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, off)
#define R1_NULL BPF_MOV64_IMM(BPF_REG_1, 0)
#define R3_NULL BPF_MOV64_IMM(BPF_REG_3, 0)

/* r0 = fn(skb, off, from, to, flags) for bpf_l3/l4_csum_replace (from, to: 64-bit) */
#define CSUM_REPLACE_PROG(fn, off, from, to, flags)                                              \
	BPF_MOV64_IMM(BPF_REG_2, off), BPF_LD_IMM64(BPF_REG_3, from), BPF_LD_IMM64(BPF_REG_4, to), \
		BPF_LD_IMM64(BPF_REG_5, flags), BPF_EMIT_CALL(BPF_FUNC_##fn), BPF_EXIT_INSN()

/* The packet's u32 at off (26: the IPv4 source) written directly to 0x0d0c0b0a (if write); then
 * r0 = bpf_csum_update(skb, csum) with csum the change's bpf_csum_diff() (mode 1) or a bogus
 * 0x1234 (mode 2), or no update (mode 0: r0 = 0x1234); a result >= 0 folded to 16 bits (the
 * kernel's 32-bit form and userbpf's 16-bit one agree there) */
/* jumps over n instructions if cond, a branch the verifier sees both ways (r6 is the ctx, never
 * NULL), which leaves no unreachable instruction */
#define SKIP_IF(cond, n) BPF_JMP_IMM(BPF_JNE, BPF_REG_6, 0, (cond) ? (n) : 0)
#define CSUM_UPDATE_PROG(off, write, mode)                                                       \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),                                                     \
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, SKB_OFF(data)),                         \
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, SKB_OFF(data_end)),                     \
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, off + 4), \
		BPF_JMP_REG(BPF_JLE, BPF_REG_4, BPF_REG_3, 2), BPF_MOV64_IMM(BPF_REG_0, 99),     \
		BPF_EXIT_INSN(), BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_2, off),                  \
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_5, -8),                                   \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0x0d0c0b0a), SKIP_IF(!(write), 1),       \
		BPF_ST_MEM(BPF_W, BPF_REG_2, off, 0x0d0c0b0a), BPF_MOV64_IMM(BPF_REG_0, 0x1234), \
		SKIP_IF(!((mode) == 1), 8),                                                  \
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),     \
		BPF_MOV64_IMM(BPF_REG_2, 4), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),               \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4), BPF_MOV64_IMM(BPF_REG_4, 4),              \
		BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_csum_diff),                  \
		SKIP_IF((mode) == 0, 3), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),             \
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_csum_update),        \
		BPF_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 8), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),     \
		BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 16), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff), \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), \
		BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 16), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff), \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()

/* r0 = bpf_redirect(ifindex, flags) */
#define REDIRECT_PROG(ifindex, flags)                                                            \
	BPF_MOV64_IMM(BPF_REG_1, ifindex), BPF_LD_IMM64(BPF_REG_2, flags),                       \
		BPF_EMIT_CALL(BPF_FUNC_redirect), BPF_EXIT_INSN()

/* fn(ctx, off, fp - 8, len[, arg5]) for the byte loaders: r0 = ret << 32 | *(u32 *)(fp - 8) */
#define LOADER_PROG(fn, off, len, arg5)                                                          \
	BPF_MOV64_IMM(BPF_REG_2, off), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),                     \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, len),            \
		BPF_MOV64_IMM(BPF_REG_5, arg5), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1),          \
		BPF_EMIT_CALL(BPF_FUNC_##fn), BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_10, -8),     \
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 32), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1), \
		BPF_EXIT_INSN()

/* bpf_xdp_store_bytes(ctx, off, fp - 8 = 0x0102030405060708, len); r0 = the result */
#define XDP_STORE_PROG(off, len)                                                                 \
	BPF_LD_IMM64(BPF_REG_2, 0x0102030405060708ull),                                          \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8), BPF_MOV64_IMM(BPF_REG_2, off),   \
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),     \
		BPF_MOV64_IMM(BPF_REG_4, len), BPF_EMIT_CALL(BPF_FUNC_xdp_store_bytes),          \
		BPF_EXIT_INSN()

/* direct packet access: if data + 14 <= data_end, data[0] = 0xaa, r0 = data[13] + len */
#define DIRECT_PROG(DATA, END)                                                                   \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, DATA), BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, END), \
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 14),      \
		BPF_MOV64_IMM(BPF_REG_0, 1), BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 6),      \
		BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 0xaa), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 13), \
		BPF_ALU64_REG(BPF_SUB, BPF_REG_3, BPF_REG_2), BPF_ALU64_IMM(BPF_LSH, BPF_REG_3, 8), \
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_3), BPF_EXIT_INSN(), BPF_EXIT_INSN()


/* ---- running one case on one side ---- */

#define OUT_SIZE 80000
#define MAP_ENTRIES 4

struct run_result {
	int rc, err, loaded;
	u_int32_t retval, data_size_out, ctx_size_out, duration;
	u_int8_t data_out[OUT_SIZE];
	u_int8_t ctx_out[512];
	u_int64_t map[MAP_ENTRIES];
};

static void run_on(const struct side *s, const struct run_case *c, struct run_result *r)
{
	int map_fd, prog_fd;
	union bpf_attr a;

	memset(r, 0, sizeof(*r));
	memset(r->data_out, 0xee, sizeof(r->data_out));
	memset(r->ctx_out, 0xee, sizeof(r->ctx_out));
	map_fd = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 8, MAP_ENTRIES);
	if (map_fd < 0) {
		r->err = errno;
		return;
	}
	prog_fd = prog_load_on(s, c->type, c->insns, c->cnt, map_fd);
	if (prog_fd < 0) {
		r->err = errno;
		close(map_fd);
		return;
	}
	r->loaded = 1;
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = c->prog_fd ? (u_int32_t)c->prog_fd : (u_int32_t)prog_fd;
	a.test.data_in = (uintptr_t)c->pkt;
	a.test.data_size_in = c->pkt_len;
	a.test.data_out = c->no_data_out ? 0 : (uintptr_t)r->data_out;
	a.test.data_size_out = c->data_size_out;
	a.test.ctx_in = (uintptr_t)c->ctx_in;
	a.test.ctx_size_in = c->ctx_size_in;
	a.test.ctx_out = c->ctx_size_out ? (uintptr_t)r->ctx_out : 0;
	a.test.ctx_size_out = c->ctx_size_out;
	a.test.repeat = c->repeat;
	a.test.flags = c->flags;
	a.test.cpu = c->cpu;
	a.test.batch_size = c->batch_size;
	errno = 0;
	r->rc = s->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a));
	r->err = errno;
	r->retval = a.test.retval;
	r->data_size_out = a.test.data_size_out;
	r->ctx_size_out = a.test.ctx_size_out;
	r->duration = a.test.duration;
	for (u_int32_t k = 0; k < MAP_ENTRIES; k++) {
		union bpf_attr m;

		memset(&m, 0, sizeof(m));
		m.map_fd = map_fd;
		m.key = (uintptr_t)&k;
		m.value = (uintptr_t)&r->map[k];
		s->bpf(BPF_MAP_LOOKUP_ELEM, &m, sizeof(m));
	}
	close(prog_fd);
	close(map_fd);
}

static struct run_result res_user, res_kern;

static void compare(const struct run_case *c, const struct run_result *u,
		    const struct run_result *k)
{
#define DIFF(fmt, ...) test_fail(__FILE__, __LINE__, "%s: " fmt, c->name, __VA_ARGS__)
	if (u->loaded != k->loaded) {
		DIFF("load: userbpf %s, kernel %s", u->loaded ? "ok" : strerror(u->err),
		     k->loaded ? "ok" : strerror(k->err));
		return;
	}
	if (!u->loaded)
		return;
	if (u->rc != k->rc || (u->rc < 0 && u->err != k->err)) {
		DIFF("rc userbpf %d (%s), kernel %d (%s)", u->rc, strerror(u->err), k->rc,
		     strerror(k->err));
		return;
	}
	if (u->retval != k->retval)
		DIFF("retval userbpf %#x, kernel %#x", u->retval, k->retval);
	if (u->data_size_out != k->data_size_out)
		DIFF("data_size_out userbpf %u, kernel %u", u->data_size_out, k->data_size_out);
	if (memcmp(u->data_out, k->data_out, sizeof(u->data_out))) {
		size_t i = 0;

		while (u->data_out[i] == k->data_out[i])
			i++;
		DIFF("data_out differs at %zu: userbpf %#x, kernel %#x", i, u->data_out[i],
		     k->data_out[i]);
	}
	if (u->ctx_size_out != k->ctx_size_out)
		DIFF("ctx_size_out userbpf %u, kernel %u", u->ctx_size_out, k->ctx_size_out);
	if (memcmp(u->ctx_out, k->ctx_out, sizeof(u->ctx_out))) {
		size_t i = 0;

		while (u->ctx_out[i] == k->ctx_out[i])
			i++;
		DIFF("ctx_out differs at byte %zu: userbpf %#x, kernel %#x", i, u->ctx_out[i],
		     k->ctx_out[i]);
	}
	if (memcmp(u->map, k->map, sizeof(u->map)))
		DIFF("map userbpf %llx %llx, kernel %llx %llx", (unsigned long long)u->map[0],
		     (unsigned long long)u->map[2], (unsigned long long)k->map[0],
		     (unsigned long long)k->map[2]);
#undef DIFF
}

TEST(prog_test_run_vs_kernel)
{
	int failed_before = test_failed_now();
	int lacking = 0;

	REQUIRE_KERNEL();
	for (size_t i = 0; i < sizeof(pkt_big); i++)
		pkt_big[i] = (u_int8_t)(i * 7 + 3);
	pkt_big[12] = 0x88; /* an EtherType nobody parses */
	pkt_big[13] = 0xb5;
	const struct run_case run_cases[] = {
		{ "sf: return 7", SF, PROG(RET_IMM(7)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: return -1", SF, PROG(RET_IMM(-1)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: len", SF, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: protocol", SF, PROG(RET_SKB(protocol)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: protocol v6", SF, PROG(RET_SKB(protocol)), pkt_ip6, sizeof(pkt_ip6) },
		{ "sf: protocol 802.3", SF, PROG(RET_SKB(protocol)), pkt_8023, sizeof(pkt_8023) },
		{ "sf: protocol 802.2", SF, PROG(RET_SKB(protocol)), pkt_8022, sizeof(pkt_8022) },
		{ "sf: pkt_type host", SF, PROG(RET_SKB(pkt_type)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: pkt_type multicast", SF, PROG(RET_SKB(pkt_type)), pkt_ip6, sizeof(pkt_ip6) },
		{ "sf: pkt_type broadcast", SF, PROG(RET_SKB(pkt_type)), pkt_bcast, sizeof(pkt_bcast) },
		{ "sf: pkt_type otherhost", SF, PROG(RET_SKB(pkt_type)), pkt_other, sizeof(pkt_other) },
		{ "sf: ifindex", SF, PROG(RET_SKB(ifindex)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: ingress_ifindex", SF, PROG(RET_SKB(ingress_ifindex)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: mark from ctx", SF, PROG(RET_SKB(mark)), pkt_ip4, sizeof(pkt_ip4), 0, &skb_ctx_mark,
		  sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "sf: cb[4] from ctx", SF, PROG(RET_SKB(cb[4])), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "sf: write cb[1]", SF, PROG(BPF_ST_MEM(BPF_W, BPF_REG_1, SKB_OFF(cb[1]), 77), RET_IMM(0)),
		  pkt_ip4, sizeof(pkt_ip4), 0, &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "sf: ctx_out only", SF, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4), 0, NULL, 0,
		  sizeof(struct __sk_buff) },
		{ "sf: ctx_out short (ENOSPC)", SF, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_mark, sizeof(skb_ctx_mark), 20 },
		{ "sf: ctx_in with len (EINVAL)", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_len, sizeof(skb_ctx_len) },
		{ "sf: ctx wire_len < len", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_wire_small, sizeof(skb_ctx_wire_small), sizeof(skb_ctx_wire_small) },
		{ "sf: ctx wire_len ok", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_wire_ok, sizeof(skb_ctx_wire_ok), sizeof(skb_ctx_wire_ok) },
		{ "sf: ctx gso_segs too big", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_gso_big, sizeof(skb_ctx_gso_big) },
		{ "sf: ctx ifindex missing", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_ifindex_none, sizeof(skb_ctx_ifindex_none) },
		{ "sf: ctx ifindex lo", SF, PROG(RET_SKB(ingress_ifindex)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_ifindex_lo, sizeof(skb_ctx_ifindex_lo), sizeof(skb_ctx_ifindex_lo) },
		{ "sf: ctx 256 bytes, zero tail", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  skb_ctx_long, sizeof(skb_ctx_long), sizeof(skb_ctx_long) },
		{ "sf: ctx 256 bytes, dirty tail", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  skb_ctx_long_dirty, sizeof(skb_ctx_long_dirty) },
		{ "sf: ctx 5000 bytes", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0, pkt_big, 5000 },
		{ "sf: ctx_size_in without ctx_in", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0, NULL,
		  8 },
		{ "sf: LD_ABS B 0", SF, PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_B, 0),
					     BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: LD_ABS W 16 (daddr)", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_W, 16), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: LD_ABS out of bounds", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_H, 43), RET_IMM(5)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: LD_ABS last bytes", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_H, 42), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: LD_ABS SKF_LL_OFF + 12", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_H, SKF_LL_OFF + 12),
		       BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: LD_ABS SKF_NET_OFF + 9", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_B, SKF_NET_OFF + 9),
		       BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: LD_IND", SF,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_7, 20),
		       BPF_LD_IND(BPF_W, BPF_REG_7, 2), BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: skb_load_bytes", SF, PROG(LOAD_BYTES_PROG(12, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: skb_load_bytes at the end", SF, PROG(LOAD_BYTES_PROG(40, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: skb_load_bytes beyond", SF, PROG(LOAD_BYTES_PROG(41, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: skb_load_bytes huge offset", SF, PROG(LOAD_BYTES_PROG(-1, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: data_size_out 20 (ENOSPC)", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), 20 },
		{ "sf: data_size_out exact", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4),
		  sizeof(pkt_ip4) },
		{ "sf: no data_out", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), .no_data_out = true },
		{ "sf: data 13 bytes", SF, PROG(RET_IMM(1)), pkt_ip4, 13 },
		{ "sf: data 14 bytes", SF, PROG(RET_SKB(len)), pkt_big, 14 },
		{ "sf: short IPv4", SF, PROG(RET_IMM(1)), pkt_ip4_short, sizeof(pkt_ip4_short) },
		{ "sf: data_in NULL", SF, PROG(RET_IMM(1)), NULL, 60 },
		{ "sf: 3712 bytes", SF, PROG(RET_SKB(len)), pkt_big, 3712 },
		{ "sf: 3713 bytes", SF, PROG(RET_SKB(len)), pkt_big, 3713 },
		{ "sf: flags unknown", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), .flags = 1 },
		{ "sf: cpu 1", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), .cpu = 1 },
		{ "sf: batch_size", SF, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), .batch_size = 1 },
		{ "sf: repeat 0", SF, PROG(RET_IMM(3)), pkt_ip4, sizeof(pkt_ip4), .repeat = 0 },
		{ "sf: repeat 1000", SF, PROG(RET_IMM(3)), pkt_ip4, sizeof(pkt_ip4), .repeat = 1000 },
		{ "sf: map counter x7", SF, PROG(COUNTER_PROG), pkt_ip4, sizeof(pkt_ip4), .repeat = 7 },
		{ "sf: map update", SF, PROG(UPDATE_PROG(2, 0x55, BPF_ANY)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: map update NOEXIST", SF, PROG(UPDATE_PROG(1, 0x55, BPF_NOEXIST)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: map update bad key", SF, PROG(UPDATE_PROG(9, 0x55, BPF_ANY)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: map update bad flags", SF, PROG(UPDATE_PROG(1, 0x55, 7)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: map delete (array)", SF, PROG(DELETE_PROG(1)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: bad prog fd", SF, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), .prog_fd = 9999 },

		{ "cls: len", CLS, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: protocol", CLS, PROG(RET_SKB(protocol)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: direct access", CLS, PROG(DIRECT_PROG(SKB_OFF(data), SKB_OFF(data_end))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: write mark, priority", CLS,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB_OFF(mark)),
		       BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
		       BPF_STX_MEM(BPF_W, BPF_REG_1, BPF_REG_2, SKB_OFF(mark)),
		       BPF_ST_MEM(BPF_W, BPF_REG_1, SKB_OFF(priority), 5), RET_IMM(0)),
		  pkt_ip4, sizeof(pkt_ip4), 0, &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "cls: LD_ABS H 12", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_H, 12), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: skb_load_bytes", CLS, PROG(LOAD_BYTES_PROG(12, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: skb_store_bytes", CLS, PROG(STORE_BYTES_PROG(20, 8, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: skb_store_bytes at the end", CLS, PROG(STORE_BYTES_PROG(50, 8, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: skb_store_bytes beyond", CLS, PROG(STORE_BYTES_PROG(51, 8, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: skb_store_bytes bad flags", CLS, PROG(STORE_BYTES_PROG(20, 4, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: CHECKSUM_COMPLETE, unchanged", CLS, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: CHECKSUM_COMPLETE, store without recompute", CLS,
		  PROG(STORE_BYTES_PROG(20, 4, 0)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: CHECKSUM_COMPLETE, store with recompute", CLS,
		  PROG(STORE_BYTES_PROG(20, 4, BPF_F_RECOMPUTE_CSUM)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: CHECKSUM_COMPLETE, odd store with recompute", CLS,
		  PROG(STORE_BYTES_PROG(21, 3, BPF_F_RECOMPUTE_CSUM)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: map counter x3", CLS, PROG(COUNTER_PROG), pkt_ip4, sizeof(pkt_ip4), .repeat = 3 },

		{ "xdp: pass", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: direct access", XDP, PROG(DIRECT_PROG(XDP_OFF(data), XDP_OFF(data_end))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: ingress_ifindex", XDP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, XDP_OFF(ingress_ifindex)),
		       BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: rx_queue_index", XDP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, XDP_OFF(rx_queue_index)),
		       BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: metadata", XDP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, XDP_OFF(data)),
		       BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data_meta)),
		       BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_3),
		       BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4), 0, &xdp_ctx_meta, sizeof(xdp_ctx_meta), sizeof(xdp_ctx_meta) },
		{ "xdp: metadata 6 bytes", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_meta_odd, sizeof(xdp_ctx_meta_odd) },
		{ "xdp: metadata 32 bytes", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_meta_32, sizeof(xdp_ctx_meta_32), sizeof(xdp_ctx_meta_32) },
		{ "xdp: metadata 36 bytes", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_meta_36, sizeof(xdp_ctx_meta_36), sizeof(xdp_ctx_meta_36) },
		{ "xdp: metadata 216 bytes", XDP, PROG(RET_IMM(2)), pkt_big, 300, 0,
		  &xdp_ctx_meta_216, sizeof(xdp_ctx_meta_216), sizeof(xdp_ctx_meta_216) },
		{ "xdp: metadata 220 bytes", XDP, PROG(RET_IMM(2)), pkt_big, 300, 0,
		  &xdp_ctx_meta_220, sizeof(xdp_ctx_meta_220), sizeof(xdp_ctx_meta_220) },
		{ "xdp: metadata 252 bytes", XDP, PROG(RET_IMM(2)), pkt_big, 300, 0,
		  &xdp_ctx_meta_252, sizeof(xdp_ctx_meta_252), sizeof(xdp_ctx_meta_252) },
		{ "xdp: metadata 256 bytes", XDP, PROG(RET_IMM(2)), pkt_big, 300, 0,
		  &xdp_ctx_meta_256, sizeof(xdp_ctx_meta_256), sizeof(xdp_ctx_meta_256) },
		{ "xdp: 5000 bytes, data_size_out 1480", XDP, PROG(RET_IMM(2)), pkt_big, 5000, 1480 },
		{ "xdp: 20000 bytes", XDP, PROG(RET_IMM(2)), pkt_big, 20000 },
		{ "xdp: 17 frags", XDP, PROG(RET_IMM(2)), pkt_big, 3520 + 17 * 4096 },
		{ "xdp: 18 frags", XDP, PROG(RET_IMM(2)), pkt_big, 3520 + 17 * 4096 + 1 },
		{ "xdp: ctx data_meta set", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_data_meta, sizeof(xdp_ctx_data_meta) },
		{ "xdp: ctx data_end > size", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_end_big, sizeof(xdp_ctx_end_big) },
		{ "xdp: ctx egress_ifindex", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_egress, sizeof(xdp_ctx_egress) },
		{ "xdp: ctx rx queue without ifindex", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_rxq_only, sizeof(xdp_ctx_rxq_only) },
		{ "xdp: ctx ingress lo", XDP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, XDP_OFF(ingress_ifindex)),
		       BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4), 0, &xdp_ctx_lo, sizeof(xdp_ctx_lo),
		  sizeof(xdp_ctx_lo) },
		{ "xdp: ctx ingress lo queue 5", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_lo_q5, sizeof(xdp_ctx_lo_q5) },
		{ "xdp: ctx ingress missing", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &xdp_ctx_none, sizeof(xdp_ctx_none) },
		{ "xdp: ctx linear 20 of 58", XDP, PROG(DIRECT_PROG(XDP_OFF(data), XDP_OFF(data_end))),
		  pkt_ip4, sizeof(pkt_ip4), 0, &xdp_ctx_short_linear, sizeof(xdp_ctx_short_linear),
		  sizeof(xdp_ctx_short_linear) },
		{ "xdp: 13 bytes", XDP, PROG(RET_IMM(2)), pkt_ip4, 13 },
		{ "xdp: 3520 bytes", XDP, PROG(DIRECT_PROG(XDP_OFF(data), XDP_OFF(data_end))), pkt_big,
		  3520 },
		{ "xdp: 5000 bytes (frags)", XDP, PROG(DIRECT_PROG(XDP_OFF(data), XDP_OFF(data_end))),
		  pkt_big, 5000 },
		{ "xdp: 5000 bytes, data_size_out 4000", XDP, PROG(RET_IMM(2)), pkt_big, 5000, 4000 },
		{ "xdp: 5000 bytes, data_size_out 1000", XDP, PROG(RET_IMM(2)), pkt_big, 5000, 1000 },
		{ "xdp: data_size_out 10", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), 10 },
		{ "xdp: data_in NULL", XDP, PROG(RET_IMM(2)), NULL, 60 },
		{ "xdp: flags unknown", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), .flags = 4 },
		{ "xdp: batch_size without live", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4),
		  .batch_size = 4 },
		{ "xdp: cpu 1", XDP, PROG(RET_IMM(2)), pkt_ip4, sizeof(pkt_ip4), .cpu = 1 },
		{ "xdp: map counter x5", XDP, PROG(COUNTER_PROG), pkt_ip4, sizeof(pkt_ip4), .repeat = 5 },
#define XMD(c) 0, &c, sizeof(c), sizeof(c)
		{ "xdp: adjust_head -14", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -14)), pkt_ip4,
		  sizeof(pkt_ip4), XMD(xdp_ctx_plain) },
		{ "xdp: adjust_head +14", XDP, PROG(ADJUST_PROG(xdp_adjust_head, 14)), pkt_ip4,
		  sizeof(pkt_ip4), XMD(xdp_ctx_plain) },
		{ "xdp: adjust_head to 14 bytes left", XDP, PROG(ADJUST_PROG(xdp_adjust_head, 44)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_head to 13 bytes left", XDP, PROG(ADJUST_PROG(xdp_adjust_head, 45)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_head to the frame's end", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -216)),
		  pkt_ip4, sizeof(pkt_ip4), XMD(xdp_ctx_plain) },
		{ "xdp: adjust_head into the frame", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -217)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_head -4096", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -4096)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: adjust_head INT_MIN", XDP, PROG(ADJUST_PROG(xdp_adjust_head, INT32_MIN)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_head INT_MAX", XDP, PROG(ADJUST_PROG(xdp_adjust_head, INT32_MAX)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_head -14 with metadata", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -14)),
		  pkt_ip4, sizeof(pkt_ip4), XMD(xdp_ctx_meta) },
		{ "xdp: adjust_head -208 with metadata", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -208)),
		  pkt_ip4, sizeof(pkt_ip4), XMD(xdp_ctx_meta) },
		{ "xdp: adjust_head -209 with metadata", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -209)),
		  pkt_ip4, sizeof(pkt_ip4), XMD(xdp_ctx_meta) },
		{ "xdp: adjust_head -14 x3", XDP, PROG(ADJUST_PROG(xdp_adjust_head, -14)), pkt_ip4,
		  sizeof(pkt_ip4), XMD(xdp_ctx_plain), .repeat = 3 },
		{ "xdp: adjust_head on frags", XDP, PROG(ADJUST_PROG(xdp_adjust_head, 20)), pkt_big,
		  5000 },
		{ "xdp: adjust_tail +10", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, 10)), pkt_ip4,
		  sizeof(pkt_ip4), XMD(xdp_ctx_plain) },
		{ "xdp: adjust_tail -10", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -10)), pkt_ip4,
		  sizeof(pkt_ip4), XMD(xdp_ctx_plain) },
		{ "xdp: adjust_tail to 14 bytes", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -44)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: adjust_tail to 13 bytes", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -45)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: adjust_tail to the frame's end", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, 3462)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_tail past the frame's end", XDP,
		  PROG(ADJUST_PROG(xdp_adjust_tail, 3463)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_tail with metadata", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, 100)),
		  pkt_ip4, sizeof(pkt_ip4), XMD(xdp_ctx_meta) },
		{ "xdp: adjust_tail after a short linear part", XDP,
		  PROG(ADJUST_PROG(xdp_adjust_tail, -3)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_short_linear) },
		{ "xdp: adjust_tail frags -100", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -100)), pkt_big,
		  5000 },
		{ "xdp: adjust_tail frags +100", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, 100)), pkt_big,
		  5000 },
		{ "xdp: adjust_tail frags to the page", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, 2616)),
		  pkt_big, 5000 },
		{ "xdp: adjust_tail frags past the page", XDP,
		  PROG(ADJUST_PROG(xdp_adjust_tail, 2617)), pkt_big, 5000 },
		{ "xdp: adjust_tail all frags", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -1480)), pkt_big,
		  5000 },
		{ "xdp: adjust_tail frags and linear", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -1500)),
		  pkt_big, 5000 },
		{ "xdp: adjust_tail frags to 14 bytes", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -4986)),
		  pkt_big, 5000 },
		{ "xdp: adjust_tail frags to 13 bytes", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -4987)),
		  pkt_big, 5000 },
		{ "xdp: adjust_tail across two frags", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -200)),
		  pkt_big, 3520 + 4096 + 100 },
		{ "xdp: adjust_tail frags x3", XDP, PROG(ADJUST_PROG(xdp_adjust_tail, -700)), pkt_big,
		  5000, .repeat = 3 },
		{ "xdp: adjust_meta -4", XDP, PROG(META_PROG(-4)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta -8", XDP, PROG(META_PROG(-8)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: adjust_meta -6", XDP, PROG(META_PROG(-6)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta -32", XDP, PROG(META_PROG(-32)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta -36", XDP, PROG(META_PROG(-36)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta -216", XDP, PROG(META_PROG(-216)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta -220", XDP, PROG(META_PROG(-220)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain) },
		{ "xdp: adjust_meta +4 of 8", XDP, PROG(META_PROG(4)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_meta) },
		{ "xdp: adjust_meta +12 of 8", XDP, PROG(META_PROG(12)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_meta) },
		{ "xdp: adjust_meta -4 x3", XDP, PROG(META_PROG(-4)), pkt_ip4, sizeof(pkt_ip4),
		  XMD(xdp_ctx_plain), .repeat = 3 },
#undef XMD
		{ "xdp: csum_diff 8 -> 8", XDP, PROG(CSUM_DIFF_PROG(R1_FP(-16), 8, R3_FP(-8), 8, 0)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff seeded", XDP,
		  PROG(CSUM_DIFF_PROG(R1_FP(-16), 8, R3_FP(-8), 8, 0x7fffabcd)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: csum_diff seed -1", XDP, PROG(CSUM_DIFF_PROG(R1_FP(-16), 4, R3_FP(-8), 4, -1)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff push (from NULL)", XDP,
		  PROG(CSUM_DIFF_PROG(R1_NULL, 0, R3_FP(-16), 16, 0x1234)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff pull (to NULL)", XDP,
		  PROG(CSUM_DIFF_PROG(R1_FP(-16), 16, R3_NULL, 0, 0x1234)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff nothing", XDP, PROG(CSUM_DIFF_PROG(R1_NULL, 0, R3_NULL, 0, 0x55)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff of zeros", XDP, PROG(BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0),
		  CSUM_DIFF_PROG(R1_NULL, 0, R3_FP(-24), 8, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff of all ones", XDP, PROG(BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, -1),
		  CSUM_DIFF_PROG(R1_NULL, 0, R3_FP(-24), 8, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff size 6", XDP, PROG(CSUM_DIFF_PROG(R1_FP(-16), 6, R3_FP(-8), 8, 0)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff of the IPv4 header", XDP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data)),
		       BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, XDP_OFF(data_end)),
		       BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, 14), BPF_MOV64_REG(BPF_REG_5, BPF_REG_3),
		       BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 20), BPF_MOV64_IMM(BPF_REG_0, 0),
		       BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_4, 5), BPF_MOV64_IMM(BPF_REG_1, 0),
		       BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 20),
		       BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_csum_diff), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff 3 -> 5", XDP, PROG(CSUM_DIFF_PROG(R1_FP(-16), 3, R3_FP(-8), 5, 7)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff 1 -> 0", XDP, PROG(CSUM_DIFF_PROG(R1_FP(-15), 1, R3_NULL, 0, 7)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: csum_diff of 512 packet bytes", XDP, PROG(CSUM_DIFF_PKT_PROG(512)), pkt_big,
		  1000 },
		{ "xdp: csum_diff of 513 packet bytes", XDP, PROG(CSUM_DIFF_PKT_PROG(513)), pkt_big,
		  1000 },
		{ "xdp: csum_diff of 3000 packet bytes", XDP, PROG(CSUM_DIFF_PKT_PROG(3000)), pkt_big,
		  3500 },
		{ "xdp: csum_diff of 13 packet bytes", XDP, PROG(CSUM_DIFF_PKT_PROG(13)), pkt_big,
		  1000 },
		{ "cls: csum_diff", CLS, PROG(CSUM_DIFF_PROG(R1_FP(-16), 8, R3_FP(-8), 8, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace 4", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 0x0100000a, 0x0200000a, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace 2", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 0x0040, 0x0020, 2)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace diff", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 0, 0x12345678, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace diff with from", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 1, 0x12345678, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace size 3", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 1, 2, 3)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace bad flags", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 24, 1, 2, BPF_F_PSEUDO_HDR | 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace odd offset", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 25, 1, 2, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace at the end", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 56, 1, 2, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace beyond", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 58, 1, 2, 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l3_csum_replace offset 0x10000", CLS,
		  PROG(CSUM_REPLACE_PROG(l3_csum_replace, 0x10000, 1, 2, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace 4", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace 2", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x3930, 0x3931, 2)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace diff", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0xfedcba98, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace mangled 0, zero sum", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a,
					 BPF_F_MARK_MANGLED_0 | 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace mangled 0 enforced", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a,
					 BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE | 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace mangled 0, result zero", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0xffff, BPF_F_MARK_MANGLED_0 |
					 BPF_F_MARK_ENFORCE)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace result zero", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0xffff, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace pseudo", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a,
					 BPF_F_PSEUDO_HDR | 4)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace pseudo, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a,
					 BPF_F_PSEUDO_HDR | 4)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: l4_csum_replace not pseudo, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0x0100000a, 0x0200000a, 4)), pkt_ip4,
		  sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: l4_csum_replace pseudo diff, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0x00010000, BPF_F_PSEUDO_HDR)),
		  pkt_ip4, sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: l4_csum_replace ipv6 flag", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0x1234, 1ull << 7)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace ipv6 pseudo diff, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0x00010000,
					 BPF_F_PSEUDO_HDR | (1ull << 7))), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: l4_csum_replace flag 1 << 8", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 40, 0, 0x1234, 1ull << 8)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: l4_csum_replace odd offset", CLS,
		  PROG(CSUM_REPLACE_PROG(l4_csum_replace, 41, 0, 0x1234, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: csum_update, not CHECKSUM_COMPLETE", CLS, PROG(CSUM_UPDATE_PROG(26, 1, 1)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_update, CHECKSUM_COMPLETE", CLS, PROG(CSUM_UPDATE_PROG(26, 1, 1)),
		  pkt_ip4, sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: csum_update at an odd offset, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_UPDATE_PROG(27, 1, 1)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: a direct write without csum_update, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_UPDATE_PROG(26, 1, 0)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: csum_update of a change not made, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_UPDATE_PROG(26, 0, 1)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: csum_update of a wrong sum, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_UPDATE_PROG(26, 1, 2)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: csum_update, no write, CHECKSUM_COMPLETE", CLS,
		  PROG(CSUM_UPDATE_PROG(26, 0, 0)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: redirect", CLS, PROG(REDIRECT_PROG(1, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: redirect ingress", CLS, PROG(REDIRECT_PROG(1, BPF_F_INGRESS)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: redirect bad flags", CLS, PROG(REDIRECT_PROG(1, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: redirect high flag", CLS, PROG(REDIRECT_PROG(1, 1ull << 31)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: redirect", XDP, PROG(REDIRECT_PROG(1, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: redirect with flags", XDP, PROG(REDIRECT_PROG(1, BPF_F_INGRESS)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: get_buff_len", XDP, PROG(BPF_EMIT_CALL(BPF_FUNC_xdp_get_buff_len),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: get_buff_len, frags", XDP, PROG(BPF_EMIT_CALL(BPF_FUNC_xdp_get_buff_len),
		  BPF_EXIT_INSN()), pkt_big, 9000 },
		{ "xdp: get_buff_len, metadata", XDP, PROG(BPF_EMIT_CALL(BPF_FUNC_xdp_get_buff_len),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4), 0, &xdp_ctx_meta, sizeof(xdp_ctx_meta) },
		{ "xdp: load_bytes", XDP, PROG(LOADER_PROG(xdp_load_bytes, 12, 4, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: load_bytes at the end", XDP, PROG(LOADER_PROG(xdp_load_bytes, 54, 4, 0)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: load_bytes beyond", XDP, PROG(LOADER_PROG(xdp_load_bytes, 55, 4, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: load_bytes offset 0x10000", XDP,
		  PROG(LOADER_PROG(xdp_load_bytes, 0x10000, 4, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: load_bytes across linear and frags", XDP,
		  PROG(LOADER_PROG(xdp_load_bytes, 3518, 4, 0)), pkt_big, 9000 },
		{ "xdp: load_bytes in a frag", XDP, PROG(LOADER_PROG(xdp_load_bytes, 8000, 4, 0)),
		  pkt_big, 9000 },
		{ "xdp: load_bytes at the frags' end", XDP,
		  PROG(LOADER_PROG(xdp_load_bytes, 8996, 4, 0)), pkt_big, 9000 },
		{ "xdp: load_bytes beyond the frags", XDP,
		  PROG(LOADER_PROG(xdp_load_bytes, 8997, 4, 0)), pkt_big, 9000 },
		{ "xdp: store_bytes", XDP, PROG(XDP_STORE_PROG(20, 8)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: store_bytes beyond", XDP, PROG(XDP_STORE_PROG(51, 8)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: store_bytes across linear and frags", XDP, PROG(XDP_STORE_PROG(3516, 8)),
		  pkt_big, 9000 },
		{ "xdp: store_bytes across frags", XDP, PROG(XDP_STORE_PROG(7612, 8)), pkt_big, 9000 },
		{ "sf: load_bytes_relative mac", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 12, 2, BPF_HDR_START_MAC)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: load_bytes_relative net", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 9, 1, BPF_HDR_START_NET)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: load_bytes_relative net, at the end", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 40, 4, BPF_HDR_START_NET)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: load_bytes_relative net, beyond", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 41, 4, BPF_HDR_START_NET)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "sf: load_bytes_relative bad start", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 0, 4, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "sf: load_bytes_relative offset 0x10000", SF,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 0x10000, 4, BPF_HDR_START_MAC)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: pull_data 0", CLS, PROG(BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_EMIT_CALL(BPF_FUNC_skb_pull_data), BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: pull_data the whole packet", CLS, PROG(BPF_MOV64_IMM(BPF_REG_2, 58),
		  BPF_EMIT_CALL(BPF_FUNC_skb_pull_data), BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: pull_data beyond", CLS, PROG(BPF_MOV64_IMM(BPF_REG_2, 59),
		  BPF_EMIT_CALL(BPF_FUNC_skb_pull_data), BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: pull_data -1", CLS, PROG(BPF_MOV64_IMM(BPF_REG_2, -1),
		  BPF_EMIT_CALL(BPF_FUNC_skb_pull_data), BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		/* the cookie comes from a system-wide counter: compare "nonzero, stable" */
		{ "sf: socket cookie", SF, PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		  BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		  BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		  BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_7), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		  BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 77),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: socket uid", CLS, PROG(BPF_EMIT_CALL(BPF_FUNC_get_socket_uid),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: cgroup classid", CLS, PROG(BPF_EMIT_CALL(BPF_FUNC_get_cgroup_classid),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: route realm", CLS, PROG(BPF_EMIT_CALL(BPF_FUNC_get_route_realm),
		  BPF_EXIT_INSN()), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: load_bytes_relative mac", CLS,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 6, 4, BPF_HDR_START_MAC)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: load_bytes_relative net", CLS,
		  PROG(LOADER_PROG(skb_load_bytes_relative, 12, 4, BPF_HDR_START_NET)), pkt_ip4,
		  sizeof(pkt_ip4) },

		{ "kprobe: no test_run", BPF_PROG_TYPE_KPROBE, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "tracepoint: no test_run", BPF_PROG_TYPE_TRACEPOINT, PROG(RET_IMM(0)), pkt_ip4,
		  sizeof(pkt_ip4) },

		/* cgroup skb: the socket filter's skb, the packet readable, the socket's fields */
		{ "cgskb: len", CGSKB, PROG(CGSKB_REC(R6_SKB(len))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: protocol", CGSKB, PROG(CGSKB_REC(R6_SKB(protocol))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: data_end - data", CGSKB, PROG(CGSKB_REC(CGSKB_PKT_LEN)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: data_end - data v6", CGSKB, PROG(CGSKB_REC(CGSKB_PKT_LEN)), pkt_ip6, sizeof(pkt_ip6) },
		{ "cgskb: family", CGSKB, PROG(CGSKB_REC(R6_SKB(family))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: family v6", CGSKB, PROG(CGSKB_REC(R6_SKB(family))), pkt_ip6, sizeof(pkt_ip6) },
		{ "cgskb: family other", CGSKB, PROG(CGSKB_REC(R6_SKB(family))), pkt_bcast, sizeof(pkt_bcast) },
		{ "cgskb: remote_ip4", CGSKB, PROG(CGSKB_REC(R6_SKB(remote_ip4))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: local_ip4", CGSKB, PROG(CGSKB_REC(R6_SKB(local_ip4))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: remote_ip6[3]", CGSKB,
		  PROG(CGSKB_REC(R6_SKB(remote_ip6[3]))),
		  pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cgskb: local_ip6[0]", CGSKB,
		  PROG(CGSKB_REC(R6_SKB(local_ip6[0]))),
		  pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cgskb: local_ip6[3]", CGSKB,
		  PROG(CGSKB_REC(R6_SKB(local_ip6[3]))),
		  pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cgskb: remote_port", CGSKB, PROG(CGSKB_REC(R6_SKB(remote_port))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: local_port", CGSKB, PROG(CGSKB_REC(R6_SKB(local_port))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: ifindex", CGSKB, PROG(CGSKB_REC(R6_SKB(ifindex))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: pkt_type", CGSKB, PROG(CGSKB_REC(R6_SKB(pkt_type))), pkt_ip6, sizeof(pkt_ip6) },
		{ "cgskb: mark from ctx", CGSKB, PROG(CGSKB_REC(R6_SKB(mark))), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "cgskb: write mark, priority, tstamp", CGSKB,
		  PROG(BPF_ST_MEM(BPF_W, BPF_REG_1, SKB_OFF(mark), 5),
		       BPF_ST_MEM(BPF_W, BPF_REG_1, SKB_OFF(priority), 6),
		       BPF_ST_MEM(BPF_DW, BPF_REG_1, SKB_OFF(tstamp), 7), RET_IMM(1)),
		  pkt_ip4, sizeof(pkt_ip4), 0, &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "cgskb: ctx_in with len (EINVAL)", CGSKB, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_len, sizeof(skb_ctx_len) },
		{ "cgskb: skb_load_bytes", CGSKB,
		  PROG(CGSKB_REC(BPF_MOV64_REG(BPF_REG_7, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 12),
				 BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
				 BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16), BPF_MOV64_IMM(BPF_REG_4, 4),
				 BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
				 BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_10, -16),
				 BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 32),
				 BPF_ALU64_REG(BPF_OR, BPF_REG_6, BPF_REG_0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: return 0", CGSKB, PROG(RET_IMM(0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: sk family", CGSKB,
		  PROG(CGSKB_REC(BPF_MOV64_IMM(BPF_REG_6, 9),
				 BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, SKB_OFF(sk)),
				 BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 1),
				 BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_2,
					     offsetof(struct bpf_sock, family)))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cgskb: repeat 100", CGSKB,
		  PROG(CGSKB_REC(R6_SKB(len))),
		  pkt_ip4, sizeof(pkt_ip4), .repeat = 100 },
		{ "cgskb: flags unknown", CGSKB, PROG(RET_IMM(1)), pkt_ip4, sizeof(pkt_ip4), .flags = 1 },
		{ "cgskb: data 13 bytes", CGSKB, PROG(RET_IMM(1)), pkt_ip4, 13 },

		/* tc: packet size and metadata helpers */
		{ "cls: change_tail grow", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(100, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_tail grow far", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(3000, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_tail cut", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(30, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_tail to the network header", CLS,
		  PROG(CALL_THEN_LEN(CHANGE_TAIL(14, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_tail into the mac header", CLS,
		  PROG(CALL_THEN_LEN(CHANGE_TAIL(13, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_tail flags", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(60, 1))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_tail max", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(16064, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_tail max + 1", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(16065, 0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_tail grow, csum complete", CLS,
		  PROG(CALL_THEN_LEN(CHANGE_TAIL(100, 0))), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: change_tail cut, csum complete", CLS, PROG(CALL_THEN_LEN(CHANGE_TAIL(30, 0))),
		  pkt_ip4, sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: change_tail x3", CLS, PROG(CALL_THEN_LEN(BPF_LDX_MEM(BPF_W, BPF_REG_2,
									      BPF_REG_1,
									      SKB_OFF(len)),
							      BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 8),
							      BPF_MOV64_IMM(BPF_REG_3, 0),
							      BPF_EMIT_CALL(
								      BPF_FUNC_skb_change_tail))),
		  pkt_ip4, sizeof(pkt_ip4), .repeat = 3 },
		{ "cls: change_head 10", CLS, PROG(CALL_THEN_LEN(CHANGE_HEAD(10, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_head 200", CLS, PROG(CALL_THEN_LEN(CHANGE_HEAD(200, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_head flags", CLS, PROG(CALL_THEN_LEN(CHANGE_HEAD(10, 2))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: change_head too far", CLS, PROG(CALL_THEN_LEN(CHANGE_HEAD(16064, 0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_head, csum complete", CLS, PROG(CALL_THEN_LEN(CHANGE_HEAD(8, 0))),
		  pkt_ip4, sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: change_head then protocol", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), CHANGE_HEAD(4, 0),
		       BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, SKB_OFF(protocol)), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room mac +8", CLS, PROG(CALL_THEN_LEN(ADJ_ROOM(8, BPF_ADJ_ROOM_MAC, 0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room net +12", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(12, BPF_ADJ_ROOM_NET, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room net -8", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-8, BPF_ADJ_ROOM_NET, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room mac -20 (decap)", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-20, BPF_ADJ_ROOM_MAC, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room mac -24 (too much)", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-24, BPF_ADJ_ROOM_MAC, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room net -24 (too much)", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-24, BPF_ADJ_ROOM_NET, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room v6 net +8", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(8, BPF_ADJ_ROOM_NET, 0))), pkt_ip6_addr,
		  sizeof(pkt_ip6_addr) },
		{ "cls: adjust_room v6 mac -8", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-8, BPF_ADJ_ROOM_MAC, 0))), pkt_ip6_addr,
		  sizeof(pkt_ip6_addr) },
		{ "cls: adjust_room not IP", CLS, PROG(CALL_THEN_LEN(ADJ_ROOM(8, BPF_ADJ_ROOM_MAC, 0))),
		  pkt_bcast, sizeof(pkt_bcast) },
		{ "cls: adjust_room mode 2", CLS, PROG(CALL_THEN_LEN(ADJ_ROOM(8, 2, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: adjust_room 0x1000", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(0x1000, BPF_ADJ_ROOM_MAC, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room 0xfff", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(0xfff, BPF_ADJ_ROOM_MAC, 0))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room 0", CLS, PROG(CALL_THEN_LEN(ADJ_ROOM(0, BPF_ADJ_ROOM_MAC, 0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room unknown flag", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(8, BPF_ADJ_ROOM_MAC, 1 << 9))), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap ipip", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(20, BPF_ADJ_ROOM_MAC, BPF_F_ADJ_ROOM_ENCAP_L3_IPV4))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap 6in4 protocol", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		       ADJ_ROOM(40, BPF_ADJ_ROOM_MAC, BPF_F_ADJ_ROOM_ENCAP_L3_IPV6),
		       BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, SKB_OFF(protocol)),
		       BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 16), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7),
		       BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap gre", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(24, BPF_ADJ_ROOM_MAC,
					      BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 |
						      BPF_F_ADJ_ROOM_ENCAP_L4_GRE))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap v4 and v6", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(24, BPF_ADJ_ROOM_MAC,
					      BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 |
						      BPF_F_ADJ_ROOM_ENCAP_L3_IPV6))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap gre and udp", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(36, BPF_ADJ_ROOM_MAC,
					      BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 |
						      BPF_F_ADJ_ROOM_ENCAP_L4_GRE |
						      BPF_F_ADJ_ROOM_ENCAP_L4_UDP))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap l2 eth 10", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(40, BPF_ADJ_ROOM_MAC,
					      BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 |
						      BPF_F_ADJ_ROOM_ENCAP_L2_ETH | (10ull << 56)))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap l2 longer than the room", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(20, BPF_ADJ_ROOM_MAC,
					      BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 | (30ull << 56)))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap twice", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(20, BPF_ADJ_ROOM_MAC, BPF_F_ADJ_ROOM_ENCAP_L3_IPV4),
				     ADJ_ROOM(20, BPF_ADJ_ROOM_MAC, BPF_F_ADJ_ROOM_ENCAP_L3_IPV4))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room encap then change_tail", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(20, BPF_ADJ_ROOM_MAC, BPF_F_ADJ_ROOM_ENCAP_L3_IPV4),
				     BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), CHANGE_TAIL(90, 0))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room shrink with encap flag", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-8, BPF_ADJ_ROOM_NET, BPF_F_ADJ_ROOM_ENCAP_L3_IPV4))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: adjust_room decap 4 to 6", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		       ADJ_ROOM(-20, BPF_ADJ_ROOM_MAC, 1ull << 8),
		       BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, SKB_OFF(protocol)),
		       BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 16), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7),
		       BPF_EXIT_INSN()),
		  pkt_ip4_big, sizeof(pkt_ip4_big) },
		{ "cls: adjust_room decap both", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-20, BPF_ADJ_ROOM_MAC, 3ull << 7))), pkt_ip4_big,
		  sizeof(pkt_ip4_big) },
		{ "cls: adjust_room csum complete", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(-8, BPF_ADJ_ROOM_NET, 0))), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: adjust_room grow, csum complete", CLS,
		  PROG(CALL_THEN_LEN(ADJ_ROOM(16, BPF_ADJ_ROOM_NET, 0))), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: change_proto 4 to 6", CLS,
		  PROG(CALL_THEN_LEN(BPF_MOV64_IMM(BPF_REG_2, 0xdd86), BPF_MOV64_IMM(BPF_REG_3, 0),
				     BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_proto 6 to 4", CLS,
		  PROG(CALL_THEN_LEN(BPF_MOV64_IMM(BPF_REG_2, 0x0008), BPF_MOV64_IMM(BPF_REG_3, 0),
				     BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cls: change_proto 6 to 4, csum complete", CLS,
		  PROG(CALL_THEN_LEN(BPF_MOV64_IMM(BPF_REG_2, 0x0008), BPF_MOV64_IMM(BPF_REG_3, 0),
				     BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip6_addr, sizeof(pkt_ip6_addr), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: change_proto 4 to 4", CLS,
		  PROG(CALL_THEN_LEN(BPF_MOV64_IMM(BPF_REG_2, 0x0008), BPF_MOV64_IMM(BPF_REG_3, 0),
				     BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_proto flags", CLS,
		  PROG(CALL_THEN_LEN(BPF_MOV64_IMM(BPF_REG_2, 0xdd86), BPF_MOV64_IMM(BPF_REG_3, 1),
				     BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_proto clears the hash", CLS,
		  PROG(CALL_THEN_FIELD(hash, BPF_MOV64_IMM(BPF_REG_2, 77),
				       BPF_EMIT_CALL(BPF_FUNC_set_hash),
				       BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
				       BPF_MOV64_IMM(BPF_REG_2, 0xdd86), BPF_MOV64_IMM(BPF_REG_3, 0),
				       BPF_EMIT_CALL(BPF_FUNC_skb_change_proto))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level query", CLS, PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_QUERY)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: csum_level inc, query", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_QUERY)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level inc x5, query", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_INC,
				   BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_QUERY)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level inc x2, dec, query", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_DEC,
				   BPF_CSUM_LEVEL_QUERY)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level inc, dec, query", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_DEC, BPF_CSUM_LEVEL_QUERY)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level inc, reset, query", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_RESET, BPF_CSUM_LEVEL_QUERY)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level 9", CLS, PROG(CSUM_LEVELS(9)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level inc, query, csum complete", CLS,
		  PROG(CSUM_LEVELS(BPF_CSUM_LEVEL_INC, BPF_CSUM_LEVEL_QUERY)), pkt_ip4, sizeof(pkt_ip4),
		  .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: csum_level after adjust_room", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), CSUM_LEVEL(BPF_CSUM_LEVEL_INC),
		       ADJ_ROOM(4, BPF_ADJ_ROOM_NET, 0), CSUM_LEVEL(BPF_CSUM_LEVEL_QUERY),
		       BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: csum_level after adjust_room, no reset", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), CSUM_LEVEL(BPF_CSUM_LEVEL_INC),
		       ADJ_ROOM(4, BPF_ADJ_ROOM_NET, BPF_F_ADJ_ROOM_NO_CSUM_RESET),
		       CSUM_LEVEL(BPF_CSUM_LEVEL_QUERY), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: redirect_neigh", CLS, PROG(REDIRECT_NEIGH(0, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: redirect_neigh params", CLS, PROG(REDIRECT_NEIGH(20, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: redirect_neigh short params", CLS, PROG(REDIRECT_NEIGH(8, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: redirect_neigh flags", CLS, PROG(REDIRECT_NEIGH(0, 1)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: redirect_peer", CLS,
		  PROG(BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 0),
		       BPF_EMIT_CALL(BPF_FUNC_redirect_peer), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: redirect_peer flags", CLS,
		  PROG(BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 4),
		       BPF_EMIT_CALL(BPF_FUNC_redirect_peer), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: check_mtu", CLS, PROG(CHECK_MTU(0, 0, 0, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: check_mtu lo", CLS, PROG(CHECK_MTU(1, 0, 0, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: check_mtu no device", CLS, PROG(CHECK_MTU(99999, 0, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu L3 length", CLS, PROG(CHECK_MTU(0, 1500, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu L3 length at the MTU", CLS, PROG(CHECK_MTU(0, 65536, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu L3 length beyond", CLS, PROG(CHECK_MTU(0, 65537, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu len_diff beyond", CLS, PROG(CHECK_MTU(0, 0, 65536, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu len_diff negative", CLS, PROG(CHECK_MTU(0, 0, -100, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu segs", CLS, PROG(CHECK_MTU(0, 0, 0, BPF_MTU_CHK_SEGS)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: check_mtu segs with a diff", CLS, PROG(CHECK_MTU(0, 0, 4, BPF_MTU_CHK_SEGS)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: check_mtu flags", CLS, PROG(CHECK_MTU(0, 0, 0, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: check_mtu", XDP, PROG(CHECK_MTU(0, 0, 0, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "xdp: check_mtu L3 beyond", XDP, PROG(CHECK_MTU(0, 70000, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: check_mtu no device", XDP, PROG(CHECK_MTU(99999, 0, 0, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "xdp: check_mtu flags", XDP, PROG(CHECK_MTU(0, 0, 0, 1)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp mono", CLS, PROG(SET_TSTAMP(100, 1)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp mono 0", CLS, PROG(SET_TSTAMP(0, 1)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp realtime 0", CLS, PROG(SET_TSTAMP(0, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp realtime 5", CLS, PROG(SET_TSTAMP(5, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp tai", CLS, PROG(SET_TSTAMP(7, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp tai 0", CLS, PROG(SET_TSTAMP(0, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp type 3", CLS, PROG(SET_TSTAMP(7, 3)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_tstamp not IP", CLS, PROG(SET_TSTAMP(7, 1)), pkt_bcast, sizeof(pkt_bcast) },
		{ "cls: set_tstamp v6", CLS, PROG(SET_TSTAMP(9, 1)), pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cls: ecn_set_ce not ECT", CLS, PROG(ECN_CE), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: ecn_set_ce ECT(0)", CLS, PROG(ECN_CE), pkt_ip4_ect0, sizeof(pkt_ip4_ect0) },
		{ "cls: ecn_set_ce ECT(1)", CLS, PROG(ECN_CE), pkt_ip4_ect1, sizeof(pkt_ip4_ect1) },
		{ "cls: ecn_set_ce CE", CLS, PROG(ECN_CE), pkt_ip4_ce, sizeof(pkt_ip4_ce) },
		{ "cls: ecn_set_ce v6 ECT(0)", CLS, PROG(ECN_CE), pkt_ip6_ect0, sizeof(pkt_ip6_ect0) },
		{ "cls: ecn_set_ce v6 ECT(0), csum complete", CLS, PROG(ECN_CE), pkt_ip6_ect0,
		  sizeof(pkt_ip6_ect0), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: ecn_set_ce v6 not ECT", CLS, PROG(ECN_CE), pkt_ip6_addr, sizeof(pkt_ip6_addr) },
		{ "cls: ecn_set_ce not IP", CLS, PROG(ECN_CE), pkt_bcast, sizeof(pkt_bcast) },
		{ "cgskb: ecn_set_ce ECT(0)", CGSKB,
		  PROG(BPF_EMIT_CALL(BPF_FUNC_skb_ecn_set_ce), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
		       BPF_EXIT_INSN()),
		  pkt_ip4_ect0, sizeof(pkt_ip4_ect0) },
		{ "cls: clone_redirect lo", CLS, PROG(CLONE_REDIRECT(1, 0)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: clone_redirect lo ingress", CLS, PROG(CLONE_REDIRECT(1, BPF_F_INGRESS)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: clone_redirect no device", CLS, PROG(CLONE_REDIRECT(99999, 0)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: clone_redirect flags", CLS, PROG(CLONE_REDIRECT(1, 2)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: skb_get_xfrm_state", CLS,
		  PROG(BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1), BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, -1),
		       BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		       BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16), BPF_MOV64_IMM(BPF_REG_4, 16),
		       BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_skb_get_xfrm_state),
		       BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), BPF_ALU64_REG(BPF_OR, BPF_REG_0,
										      BPF_REG_1),
		       BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: skb_cgroup_classid", CLS,
		  PROG(BPF_EMIT_CALL(BPF_FUNC_skb_cgroup_classid), BPF_EXIT_INSN()), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: get_cgroup_classid", CLS,
		  PROG(BPF_EMIT_CALL(BPF_FUNC_get_cgroup_classid), BPF_EXIT_INSN()), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: vlan push", CLS, PROG(VLAN_STATE(VLAN_PUSH(0x0081, 0x123))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: vlan push 802.1ad", CLS, PROG(VLAN_STATE(VLAN_PUSH(0xa888, 0x45))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: vlan push odd proto", CLS, PROG(VLAN_STATE(VLAN_PUSH(0x3412, 0xabc))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: vlan push twice", CLS,
		  PROG(VLAN_STATE(VLAN_PUSH(0xa888, 0x11), VLAN_PUSH(0x0081, 0x22))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "cls: vlan push twice, csum complete", CLS,
		  PROG(VLAN_STATE(VLAN_PUSH(0xa888, 0x11), VLAN_PUSH(0x0081, 0x22))), pkt_ip4,
		  sizeof(pkt_ip4), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: vlan push, pop", CLS, PROG(VLAN_STATE(VLAN_PUSH(0x0081, 0x123), VLAN_POP)),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: vlan pop untagged", CLS, PROG(VLAN_STATE(VLAN_POP)), pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: vlan pop payload tag", CLS, PROG(VLAN_STATE(VLAN_POP)), pkt_vlan,
		  sizeof(pkt_vlan) },
		{ "cls: vlan pop payload tag, csum complete", CLS, PROG(VLAN_STATE(VLAN_POP)), pkt_vlan,
		  sizeof(pkt_vlan), .flags = BPF_F_TEST_SKB_CHECKSUM_COMPLETE },
		{ "cls: vlan pop q-in-q", CLS, PROG(VLAN_STATE(VLAN_POP)), pkt_qinq, sizeof(pkt_qinq) },
		{ "cls: vlan pop q-in-q twice", CLS, PROG(VLAN_STATE(VLAN_POP, VLAN_POP)), pkt_qinq,
		  sizeof(pkt_qinq) },
		{ "cls: vlan pop short", CLS, PROG(VLAN_STATE(VLAN_POP)), pkt_vlan_short,
		  sizeof(pkt_vlan_short) },
		{ "cls: vlan push onto a payload tag", CLS,
		  PROG(VLAN_STATE(VLAN_PUSH(0x0081, 5), VLAN_PUSH(0x0081, 6))), pkt_vlan,
		  sizeof(pkt_vlan) },
		{ "cls: set_hash", CLS,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 0x1234),
		       BPF_EMIT_CALL(BPF_FUNC_set_hash),
		       BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, SKB_OFF(hash)), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: set_hash_invalid", CLS,
		  PROG(CALL_THEN_FIELD(hash, BPF_MOV64_IMM(BPF_REG_2, 0x1234),
				       BPF_EMIT_CALL(BPF_FUNC_set_hash),
				       BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
				       BPF_EMIT_CALL(BPF_FUNC_set_hash_invalid))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_type otherhost", CLS,
		  PROG(CALL_THEN_FIELD(pkt_type, BPF_MOV64_IMM(BPF_REG_2, 3),
				       BPF_EMIT_CALL(BPF_FUNC_skb_change_type))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "cls: change_type 4", CLS,
		  PROG(CALL_THEN_FIELD(pkt_type, BPF_MOV64_IMM(BPF_REG_2, 4),
				       BPF_EMIT_CALL(BPF_FUNC_skb_change_type))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "act: change_head 6", ACT, PROG(CALL_THEN_LEN(CHANGE_HEAD(6, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },

		/* LWT: the packet from its network header */
		{ "lwt_in: len", LWTIN, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4) },
		{ "lwt_in: protocol", LWTIN, PROG(RET_SKB(protocol)), pkt_ip6, sizeof(pkt_ip6) },
		{ "lwt_in: data_end - data", LWTIN,
		  PROG(CGSKB_PKT_LEN, BPF_MOV64_REG(BPF_REG_0, BPF_REG_6), BPF_EXIT_INSN()), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "lwt_out: mark from ctx", LWTOUT, PROG(RET_SKB(mark)), pkt_ip4, sizeof(pkt_ip4), 0,
		  &skb_ctx_mark, sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },
		{ "lwt_out: skb_load_bytes", LWTOUT, PROG(LOAD_BYTES_PROG(12, 4)), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "lwt_out: data 13 bytes", LWTOUT, PROG(RET_IMM(1)), pkt_ip4, 13 },
		{ "lwt_xmit: direct write", LWTX, PROG(DIRECT_PROG(SKB_OFF(data), SKB_OFF(data_end))),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "lwt_xmit: change_tail", LWTX, PROG(CALL_THEN_LEN(CHANGE_TAIL(70, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "lwt_xmit: change_head", LWTX, PROG(CALL_THEN_LEN(CHANGE_HEAD(8, 0))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "lwt_xmit: redirect", LWTX,
		  PROG(BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 0),
		       BPF_EMIT_CALL(BPF_FUNC_redirect), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },

		/* tc actions: the classifiers' test runs */
		{ "act: len", ACT, PROG(RET_SKB(len)), pkt_ip4, sizeof(pkt_ip4) },
		{ "act: direct write", ACT, PROG(DIRECT_PROG(SKB_OFF(data), SKB_OFF(data_end))), pkt_ip4,
		  sizeof(pkt_ip4) },
		{ "act: LD_ABS W 16", ACT,
		  PROG(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_W, 16), BPF_EXIT_INSN()),
		  pkt_ip4, sizeof(pkt_ip4) },
		{ "act: mark from ctx", ACT, PROG(RET_SKB(mark)), pkt_ip4, sizeof(pkt_ip4), 0, &skb_ctx_mark,
		  sizeof(skb_ctx_mark), sizeof(skb_ctx_mark) },

		/* raw tracepoints: the arguments in ctx_in, nothing else in or out */
		{ "rawtp: args", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args, 16, .no_data_out = true },
		{ "rawtp: args, more ctx", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args, 24,
		  .no_data_out = true },
		{ "rawtp: args, all 12", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args, 96,
		  .no_data_out = true },
		{ "rawtp: 13 args (EINVAL)", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args, 104,
		  .no_data_out = true },
		{ "rawtp: ctx shorter than read (EINVAL)", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args,
		  8, .no_data_out = true },
		{ "rawtp: ctx not 8-byte sized", RAWTP, PROG(RAWTP_SUM), NULL, 0, 0, rawtp_args, 20,
		  .no_data_out = true },
		{ "rawtp: last arg", RAWTP, PROG(BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 88),
						 BPF_EXIT_INSN()), NULL, 0, 0, rawtp_args, 96,
		  .no_data_out = true },
		{ "rawtp: last arg, short ctx (EINVAL)", RAWTP,
		  PROG(BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 88), BPF_EXIT_INSN()), NULL, 0, 0,
		  rawtp_args, 88, .no_data_out = true },
		{ "rawtp: no ctx", RAWTP, PROG(RET_IMM(5)), NULL, 0, .no_data_out = true },
		{ "rawtp: data_in (EINVAL)", RAWTP, PROG(RET_IMM(5)), pkt_ip4, sizeof(pkt_ip4),
		  .no_data_out = true },
		{ "rawtp: data_out (EINVAL)", RAWTP, PROG(RET_IMM(5)), NULL, 0 },
		{ "rawtp: ctx_out (EINVAL)", RAWTP, PROG(RET_IMM(5)), NULL, 0, 0, rawtp_args, 16, 16,
		  .no_data_out = true },
		{ "rawtp: repeat (EINVAL)", RAWTP, PROG(RET_IMM(5)), NULL, 0, .repeat = 2,
		  .no_data_out = true },
		{ "rawtp: batch_size (EINVAL)", RAWTP, PROG(RET_IMM(5)), NULL, 0, .batch_size = 1,
		  .no_data_out = true },
		{ "rawtp: cpu without the flag (EINVAL)", RAWTP, PROG(RET_IMM(5)), NULL, 0, .cpu = 1,
		  .no_data_out = true },
		{ "rawtp: flags 2", RAWTP, PROG(RET_IMM(5)), NULL, 0, .flags = 2, .no_data_out = true },
		{ "rawtp: on cpu 0", RAWTP, PROG(BPF_EMIT_CALL(BPF_FUNC_get_smp_processor_id),
						 BPF_EXIT_INSN()), NULL, 0,
		  .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0, .no_data_out = true },
		{ "rawtp: on cpu 1", RAWTP, PROG(BPF_EMIT_CALL(BPF_FUNC_get_smp_processor_id),
						 BPF_EXIT_INSN()), NULL, 0,
		  .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 1, .no_data_out = true },
		{ "rawtp: on cpu 4096 (ENXIO)", RAWTP, PROG(RET_IMM(5)), NULL, 0,
		  .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 4096, .no_data_out = true },
		{ "rawtp: map counter", RAWTP, PROG(COUNTER_PROG), NULL, 0, .no_data_out = true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(run_cases); i++) {
		const struct run_case *c = &run_cases[i];

		if (calls_helper_kernel_lacks(c->type, c->insns, c->cnt)) {
			lacking++;
			continue;
		}
		run_on(&side_user, c, &res_user);
		run_on(&side_kern, c, &res_kern);
		if (getenv("TEST_VERBOSE"))
			printf("  %-48s rc %d/%d %-10.10s retval %#x/%#x size %u/%u\n", c->name,
			       res_user.rc, res_kern.rc, res_kern.rc < 0 ? strerror(res_kern.err) : "",
			       res_user.retval, res_kern.retval, res_user.data_size_out,
			       res_kern.data_size_out);
		compare(c, &res_user, &res_kern);
	}
	if (getenv("TEST_VERBOSE"))
		printf("prog_test_run_vs_kernel: %zu cases, %d differ, %d skipped (a helper the "
		       "kernel lacks)\n", ARRAY_SIZE(run_cases), test_failed_now() - failed_before,
		       lacking);
}

/* attr checks before the program is looked at */
TEST(prog_test_run_attr)
{
	int fd = prog_load_on(&side_user, SF, PROG(RET_IMM(1)), -1), map_fd;
	union bpf_attr a;
	char ctx[8];

	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = fd;
	a.test.data_in = (uintptr_t)pkt_ip4;
	a.test.data_size_in = sizeof(pkt_ip4);
	a.test.ctx_in = (uintptr_t)ctx;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EINVAL);
	a.test.ctx_in = 0;
	a.test.ctx_size_out = 8;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EINVAL);
	a.test.ctx_size_out = 0;
	a.test.ctx_out = (uintptr_t)ctx;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EINVAL);
	a.test.ctx_out = 0;
	CHECK_OK(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)));
	CHECK_EQ(a.test.retval, 1);
	map_fd = map_create_on(&side_user, BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	a.test.prog_fd = map_fd;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EINVAL);
	close(map_fd);
	close(fd);
	a.test.prog_fd = fd;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EBADF);
}

/* duration: the mean of the runs, non-zero for a long enough program */
TEST(prog_test_run_duration)
{
	struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_0, 1000, -2),
		BPF_EXIT_INSN(),
	};
	int fd = prog_load_on(&side_user, SF, loop, LEN(loop), -1);
	union bpf_attr a;

	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = fd;
	a.test.data_in = (uintptr_t)pkt_ip4;
	a.test.data_size_in = sizeof(pkt_ip4);
	a.test.repeat = 10;
	CHECK_OK(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)));
	CHECK_EQ(a.test.retval, 1000);
	CHECK(a.test.duration > 0 && a.test.duration < 10000000);
	close(fd);
}
