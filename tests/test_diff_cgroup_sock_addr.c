/* BPF_PROG_TYPE_CGROUP_SOCK_ADDR against the kernel: the expected attach types it may have (the
 * bind, connect, name, sendmsg and recvmsg hooks of each family), its ctx (struct bpf_sock_addr:
 * every offset, size and direction under each hook, with the kernel's error line), the socket
 * behind ctx->sk (struct bpf_sock, read only, never NULL), its return values per hook, the
 * helpers that take its ctx, and BPF_PROG_TEST_RUN, which the kernel does not have for it.
 * (Which helpers it may call is checked with every other type in test_helpers.c.)  Skipped where
 * the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SA BPF_PROG_TYPE_CGROUP_SOCK_ADDR
#define SA_OFF(f) offsetof(struct bpf_sock_addr, f)

/* The 17 hooks: INET4/6 bind, connect, getpeername, getsockname; UDP4/6 sendmsg and recvmsg;
 * and the Unix ones (6.7+, past Debian 12's uapi names: 49..53). */
static const uint32_t hooks[] = {
	BPF_CGROUP_INET4_BIND,	      BPF_CGROUP_INET6_BIND,	    BPF_CGROUP_INET4_CONNECT,
	BPF_CGROUP_INET6_CONNECT,     BPF_CGROUP_INET4_GETPEERNAME, BPF_CGROUP_INET6_GETPEERNAME,
	BPF_CGROUP_INET4_GETSOCKNAME, BPF_CGROUP_INET6_GETSOCKNAME, BPF_CGROUP_UDP4_SENDMSG,
	BPF_CGROUP_UDP6_SENDMSG,      BPF_CGROUP_UDP4_RECVMSG,	    BPF_CGROUP_UDP6_RECVMSG,
	49,			      50,			    51,
	52,			      53,
};
#define NHOOKS (sizeof(hooks) / sizeof(hooks[0]))

/* The 17 hooks are the attach types, and there is no test run. */
TEST(diff_cgroup_sock_addr_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(ATTACH_TYPES_AGREE(SA), (int)NHOOKS);
	TEST_RUN_UNSUPPORTED(SA, BPF_CGROUP_INET4_CONNECT);
}

/* Every load, store and immediate store of struct bpf_sock_addr (and a little past it), at
 * every size, under every hook. */
TEST(diff_cgroup_sock_addr_ctx)
{
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t h = 0; h < NHOOKS; h++)
		accepted += CTX_ACCESSES_AGREE(SA, hooks[h], -1,
					       (int)sizeof(struct bpf_sock_addr) + 4, false);
	CHECK(accepted > 300);
}

/* Loads through ctx->sk: every offset and size of struct bpf_sock, and what may not be done with
 * the pointer. */
TEST(diff_cgroup_sock_addr_sk)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int off = -1; off < (int)sizeof(struct bpf_sock) + 4; off++) {
		for (int z = 0; z < 4; z++) {
			for (int form = 0; form < 2; form++) {
				struct bpf_insn insns[] = {
					BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, SA_OFF(sk)),
					BPF_MOV64_IMM(BPF_REG_0, 1),
					form == 0 ? BPF_LDX_MEM(sizes[z], BPF_REG_3, BPF_REG_2, off)
						  : BPF_STX_MEM(sizes[z], BPF_REG_2, BPF_REG_0, off),
					BPF_EXIT_INSN(),
				};
				char what[64];

				snprintf(what, sizeof(what), "sk off %d size %d form %d", off, z,
					 form);
				accepted += VERDICTS_AGREE_EAT(what, SA, BPF_CGROUP_INET4_CONNECT,
							       insns, 4);
			}
		}
	}
	CHECK(accepted > 20);
	static const struct {
		const char *what;
		struct bpf_insn a, b;
	} cases[] = {
		{ "arithmetic on sk", BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 4),
		  BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_2, 0) },
		{ "atomic add into sk", BPF_MOV64_IMM(BPF_REG_3, 1),
		  BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_2, BPF_REG_3, 4) },
		{ "sk compared with NULL", BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 1),
		  BPF_MOV64_IMM(BPF_REG_0, 1) },
		{ "sk spilled and filled", BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_10, -8) },
		{ "sk as the ctx of a helper", BPF_MOV64_REG(BPF_REG_1, BPF_REG_2),
		  BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie) },
		{ "sk returned", BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_EXIT_INSN() },
		{ "the socket cookie", BPF_MOV64_IMM(BPF_REG_0, 0),
		  BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie) },
		{ "the netns cookie", BPF_MOV64_IMM(BPF_REG_0, 0),
		  BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie) },
		{ "the current uid", BPF_MOV64_IMM(BPF_REG_0, 0),
		  BPF_EMIT_CALL(BPF_FUNC_get_current_uid_gid) },
		{ "LD_ABS", BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		  BPF_RAW_INSN(BPF_LD | BPF_ABS | BPF_B, 0, 0, 0, 0) },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, SA_OFF(sk)),
			cases[i].a,
			cases[i].b,
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_EAT(cases[i].what, SA, BPF_CGROUP_INET4_CONNECT, insns, 5);
	}
}

/* Return values 0..4 and an unknown one, under every hook. */
TEST(diff_cgroup_sock_addr_returns)
{
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t h = 0; h < NHOOKS; h++) {
		for (int v = 0; v <= 5; v++) {
			struct bpf_insn insns[] = {
				v < 5 ? BPF_MOV64_IMM(BPF_REG_0, v)
				      : BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, SA_OFF(protocol)),
				BPF_EXIT_INSN(),
			};
			char what[48];

			snprintf(what, sizeof(what), "hook %u returns %d", hooks[h], v);
			accepted += VERDICTS_AGREE_EAT(what, SA, hooks[h], insns, 2);
		}
	}
	/* bind (2 hooks): 0..3; connect and sendmsg (6): 0, 1; the name and recvmsg hooks (9): 1 */
	CHECK_EQ(accepted, 2 * 4 + 6 * 2 + 9 * 1);
}

/* The helpers that depend on the hook: bind() at the IPv4 and IPv6 connect hooks only
 * (setsockopt() and getsockopt() at every hook, in 6.18); and a sockopt program's
 * setsockopt(), on its socket, at the setsockopt hook only. */
TEST(diff_cgroup_sock_addr_hook_helpers)
{
	struct bpf_insn bind[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 2),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
		BPF_MOV64_IMM(BPF_REG_3, 16),
		BPF_EMIT_CALL(BPF_FUNC_bind),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn sockopt[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1),
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_MOV64_IMM(BPF_REG_3, 2),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
		BPF_MOV64_IMM(BPF_REG_5, 4),
		BPF_EMIT_CALL(BPF_FUNC_setsockopt),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	int binds = 0, sets = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t h = 0; h < NHOOKS; h++) {
		char what[48];

		snprintf(what, sizeof(what), "bind at hook %u", hooks[h]);
		binds += VERDICTS_AGREE_EAT(what, SA, hooks[h], bind, 8);
		for (int get = 0; get < 2; get++) {
			sockopt[6] = BPF_EMIT_CALL(get ? BPF_FUNC_getsockopt : BPF_FUNC_setsockopt);
			snprintf(what, sizeof(what), "%ssockopt at hook %u", get ? "get" : "set",
				 hooks[h]);
			sets += VERDICTS_AGREE_EAT(what, SA, hooks[h], sockopt, 9);
		}
	}
	CHECK_EQ(binds, 2);
	CHECK_EQ(sets, 2 * (int)NHOOKS);
	/* a sockopt program's: on ctx->sk */
	for (int eat = BPF_CGROUP_GETSOCKOPT; eat <= BPF_CGROUP_SETSOCKOPT; eat++) {
		struct bpf_insn p[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct bpf_sockopt, sk)),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1),
			BPF_MOV64_IMM(BPF_REG_2, 1),
			BPF_MOV64_IMM(BPF_REG_3, 2),
			BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
			BPF_MOV64_IMM(BPF_REG_5, 4),
			BPF_EMIT_CALL(BPF_FUNC_setsockopt),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};
		char what[64];

		snprintf(what, sizeof(what), "sockopt program's setsockopt at hook %d", eat);
		CHECK_EQ(VERDICTS_AGREE_EAT(what, BPF_PROG_TYPE_CGROUP_SOCKOPT, (uint32_t)eat, p,
					    10),
			 eat == BPF_CGROUP_SETSOCKOPT);
	}
}
