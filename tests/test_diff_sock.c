/* __sk_buff.sk in BPF_PROG_TEST_RUN, differentially: the test run's dummy socket (its family,
 * addresses, state, ports, queue) read field by field by socket filters and tc programs, for
 * IPv4, IPv6 and non-IP packets.  Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

/* r0 = skb->sk ? *(u32 *)(skb->sk + off) : 0xdead */
static int load_field(int s, uint32_t type, int16_t off)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0xdead),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, off),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, type, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_sock_fields)
{
	static const int16_t fields[] = {
		offsetof(struct bpf_sock, bound_dev_if), offsetof(struct bpf_sock, family),
		offsetof(struct bpf_sock, src_ip4),	  offsetof(struct bpf_sock, src_ip6[0]),
		offsetof(struct bpf_sock, src_ip6[3]),	  offsetof(struct bpf_sock, src_port),
		offsetof(struct bpf_sock, dst_port),	  offsetof(struct bpf_sock, dst_ip4),
		offsetof(struct bpf_sock, dst_ip6[1]),	  offsetof(struct bpf_sock, dst_ip6[2]),
		offsetof(struct bpf_sock, state),	  offsetof(struct bpf_sock, rx_queue_mapping),
	};
	static const uint32_t types[] = { BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_SCHED_CLS };
	uint8_t pkt[3][80];
	int compared = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	/* IPv4 (10.1.2.3 -> 192.168.7.9), IPv6 (2001:db8::1 -> fe80::2), ARP */
	for (int p = 0; p < 3; p++) {
		memset(pkt[p], 0, sizeof(pkt[p]));
		for (int b = 0; b < 12; b++)
			pkt[p][b] = (uint8_t)(0x10 + b);
	}
	pkt[0][12] = 0x08;
	pkt[0][14] = 0x45;
	memcpy(&pkt[0][14 + 12], "\x0a\x01\x02\x03\xc0\xa8\x07\x09", 8);
	pkt[1][12] = 0x86;
	pkt[1][13] = 0xdd;
	pkt[1][14] = 0x60;
	memcpy(&pkt[1][14 + 8], "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(&pkt[1][14 + 24], "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	pkt[2][12] = 0x08;
	pkt[2][13] = 0x06;
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			int prog[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				prog[s] = load_field(s, types[t], fields[f]);
				REQUIRE(prog[s] >= 0);
			}
			for (int p = 0; p < 3; p++) {
				char what[64];
				uint32_t ret;

				snprintf(what, sizeof(what), "type %u field %d packet %d", types[t],
					 fields[f], p);
				compared += RUNS_AGREE(what, prog, pkt[p], sizeof(pkt[p]), &ret);
			}
			for (int s = 0; s < NSIDES; s++)
				close(prog[s]);
		}
	CHECK_EQ(compared, 2 * 12 * 3);
}

/* bpf_sk_fullsock(): the full socket behind __sk_buff.sk, whose full-socket fields (type,
 * protocol, mark, priority) a tc program then reads. */
TEST(diff_sock_fullsock)
{
	static const int16_t fields[] = {
		offsetof(struct bpf_sock, type), offsetof(struct bpf_sock, protocol),
		offsetof(struct bpf_sock, mark), offsetof(struct bpf_sock, priority),
		offsetof(struct bpf_sock, family),
	};
	uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
	int compared = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, offsetof(struct __sk_buff, sk)),
			BPF_MOV64_IMM(BPF_REG_0, 0xdead),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 4),
			BPF_EMIT_CALL(BPF_FUNC_sk_fullsock),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
			BPF_EXIT_INSN(),
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, fields[f]),
			BPF_EXIT_INSN(),
		};
		int prog[NSIDES];
		uint32_t ret;

		for (int s = 0; s < NSIDES; s++) {
			prog[s] = side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, insns,
						 sizeof(insns) / sizeof(insns[0]));
			REQUIRE(prog[s] >= 0);
		}
		compared += RUNS_AGREE("fullsock field", prog, pkt, sizeof(pkt), &ret);
		for (int s = 0; s < NSIDES; s++)
			close(prog[s]);
	}
	CHECK_EQ(compared, 5);
}

/* bpf_sk_cgroup_id() and bpf_sk_ancestor_cgroup_id() of a cgroup skb program's socket (the
 * test run's, made in the caller's cgroup): into cb[0..3] through ctx_out. */
TEST(diff_sock_cgroup_ids)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_EMIT_CALL(BPF_FUNC_sk_cgroup_id),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct __sk_buff, cb[0])),
		BPF_ALU64_IMM(BPF_RSH, BPF_REG_0, 32),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct __sk_buff, cb[1])),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, offsetof(struct __sk_buff, cb[4])),
		BPF_EMIT_CALL(BPF_FUNC_sk_ancestor_cgroup_id),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct __sk_buff, cb[2])),
		BPF_ALU64_IMM(BPF_RSH, BPF_REG_0, 32),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct __sk_buff, cb[3])),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, insns,
					 sizeof(insns) / sizeof(insns[0]));
		REQUIRE(prog[s] >= 0);
	}
	for (uint32_t level = 0; level < 4; level++) {
		struct __sk_buff in, out[NSIDES];
		struct bpf_result r[NSIDES];

		uint32_t ret;

		memset(&in, 0, sizeof(in));
		in.cb[4] = level;
		for (int s = 0; s < NSIDES; s++) {
			memset(&out[s], 0, sizeof(out[s]));
			r[s] = side_test_run_ctx(s, prog[s], pkt, sizeof(pkt), 1, &in, sizeof(in),
						 &out[s], sizeof(out[s]), &ret);
		}
		if (!AGREE("cgroup ids", r) || r[K].rc)
			break;
		CHECK(!memcmp(out[U].cb, out[K].cb, sizeof(out[K].cb)));
		if (level == 0)
			CHECK(out[U].cb[0] || out[U].cb[1]); /* a cgroup v2 id, never 0 */
	}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
}

/* What the verifier says of the socket helpers' arguments and results. */
TEST(diff_sock_fullsock_verifier)
{
	static const struct {
		const char *what;
		uint32_t type;
		struct bpf_insn a, b;
	} cases[] = {
		{ "fullsock without a NULL check of sk", BPF_PROG_TYPE_SCHED_CLS,
		  BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EMIT_CALL(BPF_FUNC_sk_fullsock) },
		{ "fullsock's result without a NULL check", BPF_PROG_TYPE_SCHED_CLS,
		  BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		  BPF_EMIT_CALL(BPF_FUNC_sk_fullsock) },
		{ "a full field through sock_common", BPF_PROG_TYPE_SCHED_CLS,
		  BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct bpf_sock, protocol)) },
		{ "sk_cgroup_id in tc", BPF_PROG_TYPE_SCHED_CLS, BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		  BPF_EMIT_CALL(BPF_FUNC_sk_cgroup_id) },
		{ "fullsock in XDP", BPF_PROG_TYPE_XDP, BPF_MOV64_IMM(BPF_REG_0, 0),
		  BPF_EMIT_CALL(BPF_FUNC_sk_fullsock) },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn insns[] = {
			cases[i].type == BPF_PROG_TYPE_XDP
				? BPF_MOV64_REG(BPF_REG_1, BPF_REG_1)
				: BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1,
					      offsetof(struct __sk_buff, sk)),
			cases[i].a,
			cases[i].b,
			/* r0 = *(u32 *)r0 when the call returned a pointer */
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		if (i == 1) /* the result read before its NULL check */
			insns[3] = BPF_MOV64_IMM(BPF_REG_2, 0);
		VERDICTS_AGREE(cases[i].what, cases[i].type, insns, insns, 7);
	}
}
