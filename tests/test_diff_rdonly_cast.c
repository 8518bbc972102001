/* bpf_rdonly_cast() (libbpf's bpf_core_cast()) against the kernel: a pointer or number seen as a
 * read-only, untrusted pointer to a struct of the kernel's BTF (its loads are probe loads: NULL
 * and unmapped addresses read 0), or with type id 0 as untrusted memory of any size.  Programs
 * cast packet data, the stack, NULL and small numbers to struct ethhdr, iphdr and a union, and
 * the refusals: a type id that is not constant, unknown, or not a struct or union, a store
 * through the result, a load past the struct.  Each program's verdict, errno and whole level-2
 * log must be the kernel's, and the accepted ones must return the kernel's value on a packet,
 * on userbpf JIT-compiled and interpreted.  Skipped without the kernel's BTF or its bpf().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

enum { P_CAST, P_ETH, P_IP, P_INT, P_UNION, P__COUNT };
#define ID(n) PLACEHOLDER(n)
#define CAST BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, ID(P_CAST))
/* r2 = type id; r0 = bpf_rdonly_cast(r1, r2) */
#define CAST_TO(n) BPF_MOV64_IMM(BPF_REG_2, ID(n)), CAST
/* r1 = XDP's data, checked for len bytes (else return 0 through the tail) */
#define XDP_DATA(len)                                                                            \
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_1, 0), BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, 4), \
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_1), BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, len),      \
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 100)
#define START BPF_MOV64_REG(BPF_REG_6, BPF_REG_1)
#define RET BPF_EXIT_INSN()

static const struct {
	const char *name;
	uint32_t type;
	struct bpf_insn insns[24];
} cases[] = {
	{ "eth_proto", BPF_PROG_TYPE_XDP, { START, XDP_DATA(14), CAST_TO(P_ETH),
	  BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_0, 12), RET } },
	{ "ip_daddr", BPF_PROG_TYPE_XDP, { START, XDP_DATA(34),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 14), CAST_TO(P_IP),
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 16), RET } },
	{ "ip_ttl_unchecked", BPF_PROG_TYPE_XDP, { BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_1, 0),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 14), CAST_TO(P_IP),
	  BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 8), RET } },
	{ "tc_eth_source", BPF_PROG_TYPE_SCHED_CLS, { BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_1, 76),
	  CAST_TO(P_ETH), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 6), RET } },
	{ "stack", BPF_PROG_TYPE_XDP, { BPF_LD_IMM64(BPF_REG_3, 0x1122334455667788ll),
	  BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_3, -16), BPF_STX_MEM(BPF_DW, BPF_REG_10,
	  BPF_REG_3, -8), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1,
	  -16), CAST_TO(P_ETH), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 6), RET } },
	{ "null", BPF_PROG_TYPE_XDP, { BPF_MOV64_IMM(BPF_REG_1, 0), CAST_TO(P_IP),
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 12), RET } },
	{ "small_number", BPF_PROG_TYPE_XDP, { BPF_MOV64_IMM(BPF_REG_1, 4096), CAST_TO(P_IP),
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 12), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 7),
	  RET } },
	{ "void", BPF_PROG_TYPE_XDP, { BPF_LD_IMM64(BPF_REG_3, 0x1122334455667788ll),
	  BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_3, -8), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_MOV64_IMM(BPF_REG_2, 0), CAST,
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4), RET } },
	{ "union", BPF_PROG_TYPE_XDP, { BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0x55),
	  BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
	  CAST_TO(P_UNION), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), RET } },
	{ "socket_filter", BPF_PROG_TYPE_SOCKET_FILTER, { BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 3),
	  BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 4), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16), CAST_TO(P_ETH),
	  BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 8), RET } },
	{ "pointer_kept", BPF_PROG_TYPE_XDP, { START, XDP_DATA(14), CAST_TO(P_ETH),
	  BPF_MOV64_REG(BPF_REG_7, BPF_REG_0), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 0),
	  BPF_LDX_MEM(BPF_B, BPF_REG_1, BPF_REG_7, 13),
	  BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), RET } },
	/* refusals */
	{ "id_not_constant", BPF_PROG_TYPE_XDP, { BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 12),
	  BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), CAST, BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "id_unknown", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_MOV64_IMM(BPF_REG_2, 0x7ffffff0), CAST, BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "id_minus_one", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_MOV64_IMM(BPF_REG_2, -1), CAST, BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "id_of_int", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), CAST_TO(P_INT),
	  BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "store", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16), CAST_TO(P_ETH),
	  BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "past_struct", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16), CAST_TO(P_ETH),
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 12), RET } },
	{ "void_store", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16), BPF_MOV64_IMM(BPF_REG_2, 0), CAST,
	  BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
	{ "id_missing", BPF_PROG_TYPE_XDP, { BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  BPF_MOV64_IMM(BPF_REG_3, ID(P_ETH)), CAST, BPF_MOV64_IMM(BPF_REG_0, 0), RET } },
};

/* A 64-byte IPv4/UDP frame. */
static void frame(uint8_t *pkt)
{
	static const uint8_t head[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
		0x45, 0x00, 0x00, 0x32, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
		10, 0, 0, 1, 10, 0, 0, 2,
	};

	memset(pkt, 0x5a, 64);
	memcpy(pkt, head, sizeof(head));
}

TEST(diff_rdonly_cast)
{
	static char log[NSIDES][16384];
	const struct btf *btf = btf_vmlinux();
	int32_t ids[P__COUNT];
	int accepted = 0, runs = 0;
	uint8_t pkt[64];

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf)
		SKIP("no kernel BTF (/sys/kernel/btf/vmlinux): the casts name its types");
	ids[P_CAST] = (int32_t)btf_find_func(btf, "bpf_rdonly_cast");
	ids[P_ETH] = (int32_t)btf_find_by_name_kind(btf, "ethhdr", BTF_KIND_STRUCT);
	ids[P_IP] = (int32_t)btf_find_by_name_kind(btf, "iphdr", BTF_KIND_STRUCT);
	ids[P_INT] = (int32_t)btf_find_by_name_kind(btf, "int", BTF_KIND_INT);
	ids[P_UNION] = (int32_t)btf_find_by_name_kind(btf, "bpf_attr", BTF_KIND_UNION);
	for (int i = 0; i < P__COUNT; i++)
		REQUIRE(ids[i] > 0);
	frame(pkt);
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct bpf_insn p[28];
		struct bpf_result r[NSIDES];
		uint32_t n = insns_used(cases[c].insns, 24), ret[NSIDES];

		memcpy(p, cases[c].insns, sizeof(cases[c].insns));
		fill_placeholders(p, n, ids, P__COUNT);
		n = fill_tail_jumps(p, n);
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_prog_load_level(s, cases[c].type, 0, p, n, log[s],
						    sizeof(log[s]), 2);
		if (AGREE(cases[c].name, r))
			LOGS_SAME(cases[c].name, log[K], log[U]);
		if (getenv("TEST_VERBOSE") && r[K].rc < 0)
			printf("  %s: %s\n", cases[c].name, log_error_line(log[K]) ?: "?");
		if (r[K].rc >= 0 && r[U].rc >= 0) {
			int jit_was = userbpf_set_jit(1);
			struct bpf_result k = side_test_run(K, r[K].rc, pkt, sizeof(pkt), &ret[K]);

			accepted++;
			/* (the mode is fixed at load: a program of each) */
			for (int jit = 1; jit >= 0; jit--) {
				struct bpf_result t[NSIDES] = { k };
				int fd;

				userbpf_set_jit(jit);
				fd = side_prog_load(U, cases[c].type, p, n);
				t[U] = side_test_run(U, fd, pkt, sizeof(pkt), &ret[U]);
				if (AGREE(cases[c].name, t) && ret[K] != ret[U])
					test_fail(__FILE__, __LINE__,
						  "%s (%s): kernel returns %#x, userbpf %#x",
						  cases[c].name, jit ? "JIT" : "interpreter",
						  ret[K], ret[U]);
				if (fd >= 0)
					close(fd);
				runs++;
			}
			userbpf_set_jit(jit_was);
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	printf("diff_rdonly_cast: %zu programs (%d accepted, %d runs) with the kernel's verdicts, "
	       "logs and results\n", sizeof(cases) / sizeof(*cases), accepted, runs);
	CHECK_EQ(accepted, 11);
}
