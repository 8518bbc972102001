/* BPF_PROG_TYPE_SK_LOOKUP against the kernel: its attach type, its ctx (struct bpf_sk_lookup:
 * every offset, size and direction), and BPF_PROG_TEST_RUN: the attr and ctx_in rules, and what
 * a program reads of the connection (each field, for both families, the other family's address
 * reading 0) as its verdict shows it.  Skipped where the kernel's bpf() is unavailable.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SL BPF_PROG_TYPE_SK_LOOKUP
#define SL_OFF(f) offsetof(struct bpf_sk_lookup, f)

TEST(diff_sk_lookup_attach_types_and_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(ATTACH_TYPES_AGREE(SL), 1);
	CHECK(CTX_ACCESSES_AGREE(SL, BPF_SK_LOOKUP, -1, (int)sizeof(struct bpf_sk_lookup) + 4,
				 true) > 40);
}

/* r0 = (load of size at off) == want ? SK_PASS : SK_DROP; off -1: sk == NULL */
static int load_check(int s, int size, int off, uint32_t want)
{
	struct bpf_insn insns[] = {
		off < 0 ? BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0)
			: BPF_LDX_MEM(size, BPF_REG_2, BPF_REG_1, off),
		BPF_MOV64_IMM(BPF_REG_0, SK_DROP),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_2, (int32_t)want, 1),
		BPF_MOV64_IMM(BPF_REG_0, SK_PASS),
		BPF_EXIT_INSN(),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = SL;
	a.expected_attach_type = BPF_SK_LOOKUP;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = 5;
	a.license = PTR_TO_U64("GPL");
	return side_call(s, BPF_PROG_LOAD, &a).rc;
}

TEST(diff_sk_lookup_test_run)
{
	struct bpf_sk_lookup v4, v6;
	static const struct {
		int size, off;
		uint32_t want;
	} checks[] = {
		{ BPF_W, SL_OFF(family), AF_INET },
		{ BPF_W, SL_OFF(family), AF_INET6 },
		{ BPF_W, SL_OFF(protocol), IPPROTO_TCP },
		{ BPF_W, SL_OFF(remote_ip4), 0x0100000a },
		{ BPF_B, SL_OFF(remote_ip4) + 3, 1 },
		{ BPF_W, SL_OFF(local_ip4), 0 },
		{ BPF_W, SL_OFF(remote_ip6[3]), 0x01000000 },
		{ BPF_H, SL_OFF(remote_ip6[0]), 0x0120 },
		{ BPF_W, SL_OFF(local_ip6[0]), 0 },
		{ BPF_H, SL_OFF(remote_port), 0xd204 },
		{ BPF_W, SL_OFF(remote_port), 0xd204 },
		{ BPF_H, SL_OFF(remote_port) + 2, 0 },
		{ BPF_W, SL_OFF(local_port), 80 },
		{ BPF_B, SL_OFF(local_port), 80 },
		{ BPF_W, SL_OFF(ingress_ifindex), 0 },
		{ BPF_DW, -1, 0 },
	};
	int passed = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	memset(&v4, 0, sizeof(v4));
	v4.family = AF_INET;
	v4.protocol = IPPROTO_TCP;
	v4.remote_ip4 = htonl(0x0a000001);
	v4.local_ip4 = htonl(0x0a000002);
	v4.remote_port = htons(1234);
	v4.local_port = 80;
	v6 = v4;
	v6.family = AF_INET6;
	v6.remote_ip4 = v6.local_ip4 = 0;
	memcpy(v6.remote_ip6, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(v6.local_ip6, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
		int prog[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			prog[s] = load_check(s, checks[c].size, checks[c].off, checks[c].want);
			REQUIRE(prog[s] >= 0);
		}
		for (int fam = 0; fam < 2; fam++) {
			struct bpf_sk_lookup out[NSIDES];
			struct bpf_result r[NSIDES];
			uint32_t ret[NSIDES];
			char what[48];

			for (int s = 0; s < NSIDES; s++) {
				memset(&out[s], 0xaa, sizeof(out[s]));
				r[s] = side_test_run_ctx(s, prog[s], NULL, 0, 3, fam ? &v6 : &v4,
							 sizeof(v4), &out[s], sizeof(out[s]),
							 &ret[s]);
			}
			snprintf(what, sizeof(what), "check %zu, family %d", c, fam);
			if (!AGREE(what, r) || r[K].rc)
				continue;
			CHECK_EQ(ret[U], ret[K]);
			CHECK(!memcmp(&out[U], &out[K], sizeof(out[K])));
			passed += ret[K] == SK_PASS;
		}
		for (int s = 0; s < NSIDES; s++)
			close(prog[s]);
	}
	CHECK(passed >= 10);
}

/* The attr and ctx_in rules. */
TEST(diff_sk_lookup_test_run_rules)
{
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = load_check(s, BPF_W, SL_OFF(family), AF_INET);
		REQUIRE(prog[s] >= 0);
	}
	for (int c = 0; c < 10; c++) {
		struct bpf_sk_lookup in;
		struct bpf_result r[NSIDES];
		uint8_t big[256] = { 0 };
		char what[32];

		memset(&in, 0, sizeof(in));
		in.family = AF_INET;
		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog[s];
			a.test.ctx_in = PTR_TO_U64(&in);
			a.test.ctx_size_in = sizeof(in);
			switch (c) {
			case 0: a.test.ctx_in = 0; a.test.ctx_size_in = 0; break;
			case 1: a.test.data_in = PTR_TO_U64(big); a.test.data_size_in = 64; break;
			case 2: in.family = 99; break;
			case 3: in.local_port = 70000; break;
			case 4: in.ingress_ifindex = 1; break;
			case 5: in.cookie = 1; break;
			case 6: a.test.flags = 1; break;
			case 7: memcpy(big, &in, sizeof(in)); big[200] = 1;
				a.test.ctx_in = PTR_TO_U64(big); a.test.ctx_size_in = 256; break;
			case 8: in.family = AF_INET6 | 0x10000; break;
			default: a.test.data_out = PTR_TO_U64(big); a.test.data_size_out = 8; break;
			}
			r[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
		}
		snprintf(what, sizeof(what), "rule %d", c);
		AGREE(what, r);
	}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
}
