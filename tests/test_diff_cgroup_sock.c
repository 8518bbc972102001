/* BPF_PROG_TYPE_CGROUP_SOCK against the kernel: the expected attach types it may have (0 meaning
 * SOCK_CREATE), its ctx (struct bpf_sock: every offset, size and direction, under each attach
 * type, with the kernel's error line), its return values (0 or 1), the helpers that take its ctx,
 * and BPF_PROG_TEST_RUN, which the kernel does not have for it.  (Which helpers it may call is
 * checked with every other type in test_helpers.c.)  Skipped where the kernel's bpf() is
 * unavailable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static const uint32_t attach_types[] = {
	BPF_CGROUP_INET_SOCK_CREATE,
	BPF_CGROUP_INET_SOCK_RELEASE,
	BPF_CGROUP_INET4_POST_BIND,
	BPF_CGROUP_INET6_POST_BIND,
};

/* Loads insns as a cgroup sock program of attach type eat on both sides: the results must
 * agree, and for a rejection the error line.  Returns whether the kernel accepted it. */
#define sock_prog_agrees(what, eat, insns, cnt)                                                  \
	VERDICTS_AGREE_EAT(what, BPF_PROG_TYPE_CGROUP_SOCK, eat, insns, cnt)

TEST(diff_cgroup_sock_attach_types)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(ATTACH_TYPES_AGREE(BPF_PROG_TYPE_CGROUP_SOCK), 5); /* 0 (as SOCK_CREATE), the 4 */
}

TEST(diff_cgroup_sock_ctx_access)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	int accepted = 0, cases = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < sizeof(attach_types) / sizeof(attach_types[0]); t++)
		for (int off = -4; off < (int)sizeof(struct bpf_sock) + 8; off++)
			for (int z = 0; z < 4; z++)
				for (int dir = 0; dir < 3; dir++) {
					struct bpf_insn p[4];
					char what[96];
					uint32_t n = 0;

					if (dir == 0) {
						p[n++] = BPF_LDX_MEM(sizes[z], BPF_REG_2, BPF_REG_1,
								     (short)off);
					} else if (dir == 1) {
						p[n++] = BPF_MOV64_IMM(BPF_REG_2, 7);
						p[n++] = BPF_STX_MEM(sizes[z], BPF_REG_1, BPF_REG_2,
								     (short)off);
					} else {
						p[n++] = BPF_ST_MEM(sizes[z], BPF_REG_1, (short)off, 7);
					}
					p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
					p[n++] = BPF_EXIT_INSN();
					snprintf(what, sizeof(what), "attach %u %s size %d off %d",
						 attach_types[t], dir == 0 ? "load" : dir == 1 ? "stx" : "st",
						 1 << z, off);
					accepted += sock_prog_agrees(what, attach_types[t], p, n);
					cases++;
				}
	CHECK(accepted > 100 && accepted < cases);
	if (getenv("TEST_VERBOSE"))
		printf("cgroup sock ctx: %d accesses, %d accepted by both\n", cases, accepted);
}

TEST(diff_cgroup_sock_returns_helpers_and_test_run)
{
	static const int32_t rets[] = { 0, 1, 2, -1 };
	const struct bpf_insn cookie[] = {
		BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn netns_null[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn cookie_stack[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_EMIT_CALL(BPF_FUNC_get_socket_cookie),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(rets) / sizeof(rets[0]); i++) {
		const struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, rets[i]), BPF_EXIT_INSN() };
		char what[32];

		snprintf(what, sizeof(what), "return %d", rets[i]);
		CHECK_EQ(sock_prog_agrees(what, BPF_CGROUP_INET_SOCK_CREATE, p, 2), rets[i] == 0 ||
										      rets[i] == 1);
	}
	CHECK(sock_prog_agrees("get_socket_cookie(ctx)", BPF_CGROUP_INET_SOCK_CREATE, cookie, 3));
	CHECK(sock_prog_agrees("get_netns_cookie(NULL)", BPF_CGROUP_INET4_POST_BIND, netns_null,
			       4));
	CHECK(!sock_prog_agrees("get_socket_cookie(stack)", BPF_CGROUP_INET_SOCK_RELEASE,
				cookie_stack, 5));
	/* no BPF_PROG_TEST_RUN for the type */
	TEST_RUN_UNSUPPORTED(BPF_PROG_TYPE_CGROUP_SOCK, 0);
}

/* bpf_get_retval() and bpf_set_retval(), which only some cgroup hooks have: every hook of the
 * cgroup types userbpf verifies. */
TEST(diff_cgroup_retval_helpers)
{
	static const struct {
		uint32_t type, eat;
	} hooks[] = {
		{ BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS },
		{ BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS },
		{ BPF_PROG_TYPE_CGROUP_SOCK, 0 },
		{ BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_RELEASE },
		{ BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET4_POST_BIND },
		{ BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET6_POST_BIND },
		{ BPF_PROG_TYPE_CGROUP_DEVICE, 0 },
		{ BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_BIND },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_CONNECT },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_SENDMSG },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_RECVMSG },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_GETPEERNAME },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_GETSOCKNAME },
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, 49 },	/* unix connect */
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, 51 },	/* unix recvmsg */
		{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, 53 },	/* unix getsockname */
	};
	const struct bpf_insn get[] = {
		BPF_EMIT_CALL(BPF_FUNC_get_retval),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn set[] = {
		BPF_MOV64_IMM(BPF_REG_1, -1),
		BPF_EMIT_CALL(BPF_FUNC_set_retval),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++) {
		char what[64];

		snprintf(what, sizeof(what), "type %u hook %u get_retval", hooks[h].type,
			 hooks[h].eat);
		accepted += VERDICTS_AGREE_EAT(what, hooks[h].type, hooks[h].eat, get, 3);
		snprintf(what, sizeof(what), "type %u hook %u set_retval", hooks[h].type,
			 hooks[h].eat);
		accepted += VERDICTS_AGREE_EAT(what, hooks[h].type, hooks[h].eat, set, 4);
	}
	/* cgroup sock 4, device 1, sock_addr 4 (bind, connect, sendmsg, unix connect): twice */
	CHECK_EQ(accepted, 2 * (4 + 1 + 4));
}
