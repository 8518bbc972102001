/* BPF_PROG_TYPE_SK_REUSEPORT (a reuseport group's socket selection) against the kernel, verified
 * only (the kernel runs it on its sockets' packets and has no test run for it): its attach types,
 * its ctx (struct sk_reuseport_md, every access at every offset and size), return values,
 * packet access, bpf_sk_select_reuseport() with each kind of map, its other helpers.  (Which
 * helpers it may call is checked with every other type in test_helpers.c.)  Skipped where the
 * kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define RP BPF_PROG_TYPE_SK_REUSEPORT
#define SELECT BPF_SK_REUSEPORT_SELECT
#define MIGRATE BPF_SK_REUSEPORT_SELECT_OR_MIGRATE
#define RP_OFF(f) ((short)offsetof(struct sk_reuseport_md, f))
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()

TEST(diff_sk_reuseport_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	/* 0 (made SELECT), SELECT, SELECT_OR_MIGRATE */
	CHECK_EQ(ATTACH_TYPES_AGREE(RP), 3);
	TEST_RUN_UNSUPPORTED(RP, SELECT);
	TEST_RUN_UNSUPPORTED(RP, MIGRATE);
}

TEST(diff_sk_reuseport_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	/* a load, stores of a register and an immediate, and ldsx, at every offset and size:
	 * 4 pointers, hash whole, len, ip_protocol and bind_inany 1, 2 and 4 bytes at each place
	 * (4 + 2 + 1 loads each), eth_protocol 2 and 4; plain loads and ldsx of the narrow ones */
	for (int eat = SELECT; eat <= MIGRATE; eat++) {
		int n = CTX_ACCESSES_AGREE(RP, (uint32_t)eat, -2,
					   (int)sizeof(struct sk_reuseport_md) + 8, true);

		CHECK(n > 20);
		if (getenv("TEST_VERBOSE"))
			printf("diff_sk_reuseport_ctx: attach type %d, %d accesses accepted\n", eat,
			       n);
	}
	for (int v = 0; v <= 3; v++) {
		struct bpf_insn insns[] = { RET(v) };
		char what[32];

		snprintf(what, sizeof(what), "returns %d", v);
		VERDICTS_AGREE_EAT(what, RP, SELECT, insns, 2);
	}
}

/* The packet, bounds-checked to 8 bytes, in r2 (r3 = data_end); the insns that follow the
 * bounds check run when it passed.  4 insns, then a jump over the rest (skip). */
#define RP_DATA(skip)                                                                            \
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, RP_OFF(data)),                                \
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, RP_OFF(data_end)),                            \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),              \
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, skip)
/* r3 = &key (0) on the stack */
#define KEY3 BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),        \
	     BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4)
/* bpf_sk_select_reuseport(ctx, map, &key, 0) */
#define SELECT_CALL KEY3, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),           \
	BPF_EMIT_CALL(BPF_FUNC_sk_select_reuseport)

enum { M_REUSEPORT, M_SOCKMAP, M_SOCKHASH, M_ARRAY, M_HASH, NMAPS };

TEST(diff_sk_reuseport_programs)
{
	int maps[NMAPS][NSIDES];
	static const struct {
		const char *what;
		uint32_t eat;
		int map; /* which map the map loads load */
		struct bpf_insn insns[24];
	} cases[] = {
		{ "the packet read", SELECT, 0,
		  { RP_DATA(1), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 7), RET(1) } },
		{ "the packet written", SELECT, 0,
		  { RP_DATA(1), BPF_ST_MEM(BPF_W, BPF_REG_2, 4, 9), RET(1) } },
		{ "past the bounds check", SELECT, 0,
		  { RP_DATA(1), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 6), RET(1) } },
		{ "select from a reuseport array", SELECT, M_REUSEPORT, { SELECT_CALL, RET(1) } },
		{ "select from a sockmap", MIGRATE, M_SOCKMAP, { SELECT_CALL, RET(1) } },
		{ "select from a sockhash", SELECT, M_SOCKHASH, { SELECT_CALL, RET(1) } },
		{ "select from an array", SELECT, M_ARRAY, { SELECT_CALL, RET(1) } },
		{ "select, the key in the packet", SELECT, M_REUSEPORT,
		  { RP_DATA(5), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_LD_MAP_FD(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_sk_select_reuseport),
		    RET(1) } },
		{ "select, the key uninitialised", SELECT, M_REUSEPORT,
		  { BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4),
		    BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_select_reuseport), RET(1) } },
		{ "lookup in a reuseport array", SELECT, M_REUSEPORT,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), RET(1) } },
		{ "lookup in a hash map", SELECT, M_HASH,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), RET(1) } },
		{ "skb_load_bytes into the stack", SELECT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 8),
		    BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "skb_load_bytes into the packet", SELECT, 0,
		  { RP_DATA(4), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 4), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "skb_load_bytes_relative", MIGRATE, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 8),
		    BPF_MOV64_IMM(BPF_REG_5, 1), BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes_relative),
		    RET(1) } },
		{ "skb_load_bytes of 0 bytes", SELECT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "the socket's cookie", SELECT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(sk)),
		    BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie), BPF_EXIT_INSN() } },
		{ "the ctx's cookie", SELECT, 0,
		  { BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie), BPF_EXIT_INSN() } },
		{ "NULL's cookie", SELECT, 0,
		  { BPF_MOV64_IMM(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		    BPF_EXIT_INSN() } },
		{ "8's cookie", SELECT, 0,
		  { BPF_MOV64_IMM(BPF_REG_1, 8), BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		    BPF_EXIT_INSN() } },
		{ "the migrating socket's cookie, unchecked", MIGRATE, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(migrating_sk)),
		    BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie), BPF_EXIT_INSN() } },
		{ "the migrating socket's cookie, NULL-checked", MIGRATE, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(migrating_sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		    BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie), BPF_EXIT_INSN(), RET(1) } },
		{ "the socket's fields", SELECT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(sk)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct bpf_sock, family)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct bpf_sock, src_port)),
		    BPF_EXIT_INSN() } },
		{ "the socket written", SELECT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(sk)),
		    BPF_ST_MEM(BPF_W, BPF_REG_1, offsetof(struct bpf_sock, mark), 1), RET(1) } },
		{ "the socket released", SELECT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, RP_OFF(sk)),
		    BPF_EMIT_CALL(BPF_FUNC_sk_release), RET(1) } },
		{ "ktime_get_coarse_ns, get_prandom_u32", SELECT, 0,
		  { BPF_EMIT_CALL(BPF_FUNC_ktime_get_coarse_ns),
		    BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), RET(1) } },
		{ "skb_store_bytes", SELECT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 8), BPF_MOV64_IMM(BPF_REG_5, 0),
		    BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes), RET(1) } },
		{ "a socket lookup", SELECT, 0,
		  { BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
		    BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		    BPF_MOV64_IMM(BPF_REG_3, 12), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp), RET(1) } },
		{ "the hash and the protocols", SELECT, 0,
		  { BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, RP_OFF(hash)),
		    BPF_LDX_MEM(BPF_H, BPF_REG_3, BPF_REG_1, RP_OFF(eth_protocol) + 2),
		    BPF_LDX_MEM(BPF_B, BPF_REG_4, BPF_REG_1, RP_OFF(ip_protocol)),
		    BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, RP_OFF(bind_inany) + 3),
		    BPF_EXIT_INSN() } },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		maps[M_REUSEPORT][s] =
			side_map_create(s, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, 4, 8, 4, 0).rc;
		maps[M_SOCKMAP][s] = side_map_create(s, BPF_MAP_TYPE_SOCKMAP, 4, 8, 4, 0).rc;
		maps[M_SOCKHASH][s] = side_map_create(s, BPF_MAP_TYPE_SOCKHASH, 4, 8, 4, 0).rc;
		maps[M_ARRAY][s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0).rc;
		maps[M_HASH][s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		for (int m = 0; m < NMAPS; m++)
			REQUIRE(maps[m][s] >= 0);
	}
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t n = 24;

		while (n && !cases[i].insns[n - 1].code)
			n--;
		verdicts_agree_maps_at(__FILE__, __LINE__, cases[i].what, RP, cases[i].eat,
				       cases[i].insns, n, maps[cases[i].map]);
	}
	for (int s = 0; s < NSIDES; s++)
		for (int m = 0; m < NMAPS; m++)
			close(maps[m][s]);
}
