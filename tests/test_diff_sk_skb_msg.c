/* BPF_PROG_TYPE_SK_SKB and BPF_PROG_TYPE_SK_MSG (socket map programs: stream parsers and
 * verdicts, message verdicts) against the kernel, verified only (the kernel has no test run for
 * either): their attach types, their ctx (struct __sk_buff and struct sk_msg_md, every access at
 * every offset and size), return values, packet access, the redirect helpers with socket maps
 * and the message helpers.  (Which helpers each may call is checked with every other type in
 * test_helpers.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SKB BPF_PROG_TYPE_SK_SKB
#define MSG BPF_PROG_TYPE_SK_MSG
#define SKB_OFF(f) ((short)offsetof(struct __sk_buff, f))
#define MSG_OFF(f) ((short)offsetof(struct sk_msg_md, f))
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()

TEST(diff_sk_skb_msg_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(ATTACH_TYPES_AGREE(SKB) >= 1);
	CHECK(ATTACH_TYPES_AGREE(MSG) >= 1);
	TEST_RUN_UNSUPPORTED(SKB, BPF_SK_SKB_STREAM_VERDICT);
	TEST_RUN_UNSUPPORTED(MSG, BPF_SK_MSG_VERDICT);
}

TEST(diff_sk_skb_msg_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	/* a load, stores of a register and an immediate, and ldsx, at every offset and size */
	CHECK(CTX_ACCESSES_AGREE(SKB, BPF_SK_SKB_STREAM_VERDICT, -2,
				 (int)sizeof(struct __sk_buff) + 8, true) > 40);
	/* sk_msg_md: the three pointers, 14 u32 fields, read whole only (plain and ldsx) */
	CHECK_EQ(CTX_ACCESSES_AGREE(MSG, BPF_SK_MSG_VERDICT, -2,
				    (int)sizeof(struct sk_msg_md) + 8, true), 3 + 2 * 14);
	for (int v = 0; v <= 3; v++) {
		struct bpf_insn insns[] = { RET(v) };
		char what[32];

		snprintf(what, sizeof(what), "returns %d", v);
		VERDICTS_AGREE_EAT(what, SKB, BPF_SK_SKB_STREAM_PARSER, insns, 2);
		VERDICTS_AGREE_EAT(what, MSG, BPF_SK_MSG_VERDICT, insns, 2);
	}
}

/* The bytes between data and data_end of an sk_skb program, bounds-checked to n bytes, in r2
 * (r3 = data_end); the insns that follow the bounds check run when it passed.  4 insns, then a
 * jump over the rest (skip). */
#define SKB_DATA(skip)                                                                           \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB_OFF(data)),                                \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB_OFF(data_end)),                            \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),              \
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, skip)
#define MSG_DATA(skip)                                                                           \
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, MSG_OFF(data)),                               \
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, MSG_OFF(data_end)),                           \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),              \
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, skip)
/* r3 = &key (0) on the stack */
#define KEY3 BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),        \
	     BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4)

TEST(diff_sk_skb_msg_programs)
{
	int map[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_SOCKMAP, 4, 8, 4, 0).rc;
		hash[s] = side_map_create(s, BPF_MAP_TYPE_SOCKHASH, 4, 8, 4, 0).rc;
		REQUIRE(map[s] >= 0 && hash[s] >= 0);
	}
	static const struct {
		const char *what;
		uint32_t type, eat;
		int maps; /* map loads load: 1 the sockmap, 2 the sockhash */
		struct bpf_insn insns[24];
	} cases[] = {
		{ "skb: the packet read", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { SKB_DATA(1), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 7), RET(1) } },
		{ "skb: the packet written", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { SKB_DATA(1), BPF_ST_MEM(BPF_W, BPF_REG_2, 4, 9), RET(1) } },
		{ "skb: past the bounds check", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { SKB_DATA(1), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 6), RET(1) } },
		{ "skb: the packet after skb_pull_data", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { SKB_DATA(5), BPF_MOV64_REG(BPF_REG_6, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_2, 8),
		    BPF_EMIT_CALL(BPF_FUNC_skb_pull_data),
		    BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_6, 0), BPF_EXIT_INSN(), RET(1) } },
		{ "skb: the packet to skb_store_bytes", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { SKB_DATA(5), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 4), BPF_MOV64_IMM(BPF_REG_5, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes), RET(1) } },
		{ "tc: the packet to skb_load_bytes", BPF_PROG_TYPE_SCHED_CLS, 0, 0,
		  { SKB_DATA(4), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 4), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "skb: skb_load_bytes into the stack", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 8),
		    BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "skb: sk, NULL-checked, its family", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct bpf_sock, family)),
		    RET(1) } },
		{ "skb: sk_redirect_map", SKB, BPF_SK_SKB_STREAM_VERDICT, 1,
		  { BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 1),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_sk_redirect_map),
		    BPF_EXIT_INSN() } },
		{ "skb: sk_redirect_map on a sockhash", SKB, BPF_SK_SKB_STREAM_VERDICT, 2,
		  { BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 1),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_sk_redirect_map),
		    BPF_EXIT_INSN() } },
		{ "skb: sk_redirect_hash", SKB, BPF_SK_SKB_VERDICT, 2,
		  { KEY3, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_redirect_hash), BPF_EXIT_INSN() } },
		{ "skb: sk_redirect_hash on a sockmap", SKB, BPF_SK_SKB_VERDICT, 1,
		  { KEY3, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_redirect_hash), BPF_EXIT_INSN() } },
		{ "skb: sk_redirect_hash, the key in the packet", SKB, BPF_SK_SKB_VERDICT, 2,
		  { SKB_DATA(6), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_LD_MAP_FD(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_sk_redirect_hash),
		    BPF_EXIT_INSN(), RET(1) } },
		{ "skb: map_update_elem of a sockmap", SKB, BPF_SK_SKB_STREAM_VERDICT, 1,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		    RET(1) } },
		{ "skb: map_lookup_elem of a sockmap, released", SKB, BPF_SK_SKB_STREAM_VERDICT, 1,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_sk_release),
		    RET(1) } },
		{ "skb: adjust_room, change_tail, change_head", SKB, BPF_SK_SKB_STREAM_PARSER, 0,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 4),
		    BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_adjust_room), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_2, 64), BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_change_tail), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_2, 14), BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_change_head), RET(1) } },
		{ "skb: socket cookie and uid", SKB, BPF_SK_SKB_STREAM_VERDICT, 0,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		    BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_EMIT_CALL(BPF_FUNC_get_socket_uid),
		    BPF_EXIT_INSN() } },
		{ "msg: the message read", MSG, BPF_SK_MSG_VERDICT, 0,
		  { MSG_DATA(1), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 7), RET(1) } },
		{ "msg: the message written", MSG, BPF_SK_MSG_VERDICT, 0,
		  { MSG_DATA(1), BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 1), RET(1) } },
		{ "msg: the message without a bounds check", MSG, BPF_SK_MSG_VERDICT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, MSG_OFF(data)),
		    BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0), RET(1) } },
		{ "msg: the message after msg_pull_data", MSG, BPF_SK_MSG_VERDICT, 0,
		  { MSG_DATA(6), BPF_MOV64_REG(BPF_REG_6, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_3, 8), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_msg_pull_data),
		    BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_6, 0), RET(1) } },
		{ "msg: push, pop, apply, cork", MSG, BPF_SK_MSG_VERDICT, 0,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_3, 4), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_msg_push_data), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 4),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_msg_pop_data),
		    BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_2, 100),
		    BPF_EMIT_CALL(BPF_FUNC_msg_apply_bytes), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_2, 100), BPF_EMIT_CALL(BPF_FUNC_msg_cork_bytes),
		    RET(1) } },
		{ "msg: msg_redirect_map", MSG, BPF_SK_MSG_VERDICT, 1,
		  { BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_MOV64_IMM(BPF_REG_4, BPF_F_INGRESS),
		    BPF_EMIT_CALL(BPF_FUNC_msg_redirect_map), BPF_EXIT_INSN() } },
		{ "msg: msg_redirect_hash", MSG, BPF_SK_MSG_VERDICT, 2,
		  { KEY3, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_msg_redirect_hash), BPF_EXIT_INSN() } },
		{ "msg: msg_redirect_hash on a sockmap", MSG, BPF_SK_MSG_VERDICT, 1,
		  { KEY3, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_msg_redirect_hash), BPF_EXIT_INSN() } },
		{ "msg: sk, its fields, its storage", MSG, BPF_SK_MSG_VERDICT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, MSG_OFF(sk)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, offsetof(struct bpf_sock, dst_port)),
		    RET(1) } },
		{ "msg: the size and the ports", MSG, BPF_SK_MSG_VERDICT, 0,
		  { BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, MSG_OFF(size)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, MSG_OFF(local_port)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, MSG_OFF(remote_ip6[3])), RET(1) } },
		{ "msg: the message to a helper", MSG, BPF_SK_MSG_VERDICT, 2,
		  { MSG_DATA(6), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_LD_MAP_FD(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_msg_redirect_hash),
		    BPF_EXIT_INSN(), RET(1) } },
		{ "msg: skb_load_bytes", MSG, BPF_SK_MSG_VERDICT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 8),
		    BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
	};
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t n = 24;

		while (n && !cases[i].insns[n - 1].code)
			n--;
		verdicts_agree_maps_at(__FILE__, __LINE__, cases[i].what, cases[i].type,
				       cases[i].eat, cases[i].insns, n,
				       cases[i].maps == 2 ? hash : map);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(hash[s]);
	}
}
