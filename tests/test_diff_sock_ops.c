/* BPF_PROG_TYPE_SOCK_OPS against the kernel, verified only (the kernel has no test run for it):
 * its attach types, its ctx (struct bpf_sock_ops, every access at every offset and size; the
 * socket and the TCP header it points at), return values, helpers (its own, by program type and
 * attach type) and socket maps.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SO BPF_PROG_TYPE_SOCK_OPS
#define EAT BPF_CGROUP_SOCK_OPS
#define OFF(f) ((short)offsetof(struct bpf_sock_ops, f))
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()
/* 6.18's struct (skb_hwtstamp, a u64 after skb_tcp_flags, is newer than the system header) */
#define SOCK_OPS_SIZE (OFF(skb_tcp_flags) + 4 + 8)

TEST(diff_sock_ops_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(ATTACH_TYPES_AGREE(SO) >= 1);
	TEST_RUN_UNSUPPORTED(SO, EAT);
}

TEST(diff_sock_ops_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	/* a load, stores of a register and an immediate, and ldsx, at every offset and size */
	CHECK(CTX_ACCESSES_AGREE(SO, EAT, -2, SOCK_OPS_SIZE + 8, true) > 40);
	for (int v = 0; v <= 2; v++) {
		struct bpf_insn insns[] = { RET(v) };
		char what[32];

		snprintf(what, sizeof(what), "returns %d", v);
		VERDICTS_AGREE_EAT(what, SO, EAT, insns, 2);
	}
}

/* What the ctx's pointers give: the socket (NULL-checked, its fields, a socket's helpers) and the
 * TCP header (which the program may not read directly), the helpers' arguments. */
TEST(diff_sock_ops_programs)
{
	int map[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_SOCKMAP, 4, 8, 4, 0).rc;
		hash[s] = side_map_create(s, BPF_MAP_TYPE_SOCKHASH, 4, 8, 4, 0).rc;
		REQUIRE(map[s] >= 0 && hash[s] >= 0);
	}
#define KEY BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),       \
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4)
	static const struct {
		const char *what;
		uint32_t eat;
		int maps; /* map loads load: 1 the sockmap, 2 the sockhash */
		struct bpf_insn insns[24];
	} cases[] = {
		{ "sk, NULL-checked, its state", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct bpf_sock, state)),
		    RET(1) } },
		{ "sk, not NULL-checked", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, OFF(sk)),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct bpf_sock, state)),
		    RET(1) } },
		{ "tcp_sock of sk", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 3), BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), RET(1) } },
		{ "the header, bounds-checked", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, OFF(skb_data)),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, OFF(skb_data_end)),
		    BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 20),
		    BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
		    BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 13), RET(1) } },
		{ "the header, written", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, OFF(skb_data)),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, OFF(skb_data_end)),
		    BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 20),
		    BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
		    BPF_ST_MEM(BPF_B, BPF_REG_2, 13, 0), RET(1) } },
		{ "the header to a helper", EAT, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, OFF(skb_data)),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, OFF(skb_data_end)),
		    BPF_MOV64_REG(BPF_REG_4, BPF_REG_2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 20),
		    BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 3), BPF_MOV64_IMM(BPF_REG_3, 20),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_store_hdr_opt), RET(1) } },
		{ "setsockopt", EAT, 0,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1), BPF_MOV64_IMM(BPF_REG_2, 6),
		    BPF_MOV64_IMM(BPF_REG_3, 3), BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -4), BPF_MOV64_IMM(BPF_REG_5, 4),
		    BPF_EMIT_CALL(BPF_FUNC_setsockopt), RET(1) } },
		{ "getsockopt, a size too big", EAT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 6), BPF_MOV64_IMM(BPF_REG_3, 3),
		    BPF_MOV64_REG(BPF_REG_4, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -4),
		    BPF_MOV64_IMM(BPF_REG_5, 8), BPF_EMIT_CALL(BPF_FUNC_getsockopt), RET(1) } },
		{ "cb_flags_set, reserve_hdr_opt", EAT, 0,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_2, 7),
		    BPF_EMIT_CALL(BPF_FUNC_sock_ops_cb_flags_set), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_2, 8), BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_EMIT_CALL(BPF_FUNC_reserve_hdr_opt), RET(1) } },
		{ "load_hdr_opt into the stack", EAT, 0,
		  { BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		    BPF_MOV64_IMM(BPF_REG_3, 8), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_load_hdr_opt), RET(1) } },
		{ "sock_map_update", EAT, 1,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sock_map_update), RET(1) } },
		{ "sock_map_update, the key in the header", EAT, 1,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, OFF(skb_data)),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_1, OFF(skb_data_end)),
		    BPF_MOV64_REG(BPF_REG_5, BPF_REG_3), BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 4),
		    BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_4, 4), BPF_LD_MAP_FD(BPF_REG_2, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_sock_map_update), RET(1) } },
		{ "sock_map_update on a sockhash", EAT, 2,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sock_map_update), RET(1) } },
		{ "sock_hash_update", EAT, 2,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sock_hash_update), RET(1) } },
		{ "map_delete_elem of a sockmap", EAT, 1,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_EMIT_CALL(BPF_FUNC_map_delete_elem), RET(1) } },
		{ "map_update_elem of a sockmap", EAT, 1,
		  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 4), BPF_LD_MAP_FD(BPF_REG_1, 0),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		    RET(1) } },
		{ "get_retval at its own hook", EAT, 0,
		  { BPF_EMIT_CALL(BPF_FUNC_get_retval), RET(1) } },
		{ "get_retval at a setsockopt hook", BPF_CGROUP_SETSOCKOPT, 0,
		  { BPF_EMIT_CALL(BPF_FUNC_get_retval), RET(1) } },
		{ "socket cookie, netns cookie", EAT, 0,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		    BPF_MOV64_IMM(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie),
		    RET(1) } },
		{ "skb_load_bytes", EAT, 0,
		  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8), BPF_MOV64_IMM(BPF_REG_4, 8),
		    BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), RET(1) } },
		{ "ktime_get_coarse_ns", EAT, 0,
		  { BPF_EMIT_CALL(BPF_FUNC_ktime_get_coarse_ns), RET(1) } },
	};
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t n = 24;

		while (n && !cases[i].insns[n - 1].code)
			n--;
		verdicts_agree_maps_at(__FILE__, __LINE__, cases[i].what, SO, cases[i].eat,
				       cases[i].insns, n, cases[i].maps == 2 ? hash : map);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(hash[s]);
	}
}
