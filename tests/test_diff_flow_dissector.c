/* BPF_PROG_TYPE_FLOW_DISSECTOR against the kernel: its ctx (every offset, size and form of
 * access to __sk_buff: only data, data_end and flow_keys, read whole), the flow keys pointer
 * (accesses in and out of struct bpf_flow_keys, its arithmetic, atomics), read-only packets, and
 * BPF_PROG_TEST_RUN: its attr rules, the keys it starts each run with and gives back in data_out
 * (offsets clamped into the packet), ctx_in's flags, repeat, and bpf_skb_load_bytes() there.
 * (Which helpers it may call is checked with every other type in test_helpers.c.)  Skipped where
 * the kernel's bpf() is unavailable, but for the last test, which checks userbpf's runs alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define FD BPF_PROG_TYPE_FLOW_DISSECTOR
#define KEYS offsetof(struct __sk_buff, flow_keys)
#define KEY(f) offsetof(struct bpf_flow_keys, f)

/* Every load (plain and sign-extending), store and immediate store of __sk_buff, at every offset
 * and size: 3 accesses are allowed (data and data_end as u32, flow_keys as u64). */
TEST(diff_flow_dissector_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(CTX_ACCESSES_AGREE(FD, 0, -4, (int)sizeof(struct __sk_buff) + 4, true), 3);
}

/* Accesses through the keys pointer: at and around the struct's bounds, after constant and
 * variable arithmetic, atomics, a pointer stored into them. */
TEST(diff_flow_dissector_keys)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	static const int offs[] = { -1, 0, 1, 2, 6, 8, 12, 16, 40, 48, 49, 52, 54, 55, 56, 60 };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
		for (int z = 0; z < 4; z++) {
			for (int form = 0; form < 3; form++) {
				struct bpf_insn insns[] = {
					BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, KEYS),
					BPF_MOV64_IMM(BPF_REG_0, 0),
					form == 0 ? BPF_LDX_MEM(sizes[z], BPF_REG_3, BPF_REG_2, offs[o])
					: form == 1
						? BPF_STX_MEM(sizes[z], BPF_REG_2, BPF_REG_0, offs[o])
						: BPF_ST_MEM(sizes[z], BPF_REG_2, offs[o], 1),
					BPF_EXIT_INSN(),
				};
				char what[64];

				snprintf(what, sizeof(what), "keys off %d size %d form %d", offs[o], z,
					 form);
				VERDICTS_AGREE(what, FD, insns, insns, 4);
			}
		}
	}
	/* the rest: one instruction (after r2 = keys, r3 = an unknown scalar) each */
	static const struct {
		const char *what;
		struct bpf_insn a, b;
	} cases[] = {
		{ "add a constant, then read", BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 8),
		  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0) },
		{ "add a constant, read past the end", BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 52),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0) },
		{ "subtract, read before", BPF_ALU64_IMM(BPF_SUB, BPF_REG_2, 4),
		  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0) },
		{ "subtract, read back inside", BPF_ALU64_IMM(BPF_SUB, BPF_REG_2, 4),
		  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 8) },
		{ "add an unknown scalar", BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_3),
		  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0) },
		{ "32-bit add", BPF_ALU32_IMM(BPF_ADD, BPF_REG_2, 4),
		  BPF_MOV64_IMM(BPF_REG_0, 0) },
		{ "atomic add", BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_2, BPF_REG_0, 0) },
		{ "atomic xchg", BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, BPF_REG_2, BPF_REG_0, 8) },
		{ "store a pointer into the keys", BPF_MOV64_REG(BPF_REG_0, BPF_REG_10),
		  BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, 8) },
		{ "spill and fill", BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -8) },
		{ "pass to a helper as memory", BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		  BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32) },
		{ "compare with NULL", BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 0),
		  BPF_MOV64_IMM(BPF_REG_0, 0) },
		{ "write into the packet", BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1,
						       offsetof(struct __sk_buff, data)),
		  BPF_ST_MEM(BPF_B, BPF_REG_2, 0, 1) },
		{ "LD_ABS", BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		  BPF_RAW_INSN(BPF_LD | BPF_ABS | BPF_B, 0, 0, 0, 12) },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, KEYS),
			BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data)),
			BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1,
				    offsetof(struct __sk_buff, data_end)),
			BPF_ALU64_REG(BPF_SUB, BPF_REG_4, BPF_REG_3), /* r3: a scalar */
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_4),
			cases[i].a,
			cases[i].b,
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE(cases[i].what, FD, insns, insns, sizeof(insns) / sizeof(insns[0]));
	}
}

/* A dissector whose results show what a run starts with and what happens after: it records
 * the keys it was given (n_proto, nhoff, thoff, flags) in sport, dport, ipv4_src and ipv4_dst,
 * then sets nhoff and thoff from packet bytes 14..17 (big-endian u16s) and returns byte 18;
 * bytes 19 odd: it also bumps is_encap (repeat must not accumulate) and calls
 * bpf_skb_load_bytes(), whose result goes into flow_label and the bytes it wrote into ip_proto. */
static const struct bpf_insn recorder[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, KEYS),
	BPF_MOV64_REG(BPF_REG_9, BPF_REG_1),
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, offsetof(struct __sk_buff, data)),
	BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_6, KEY(n_proto)),
	BPF_STX_MEM(BPF_H, BPF_REG_6, BPF_REG_0, KEY(sport)),
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_6, KEY(nhoff)),
	BPF_STX_MEM(BPF_H, BPF_REG_6, BPF_REG_0, KEY(dport)),
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_6, KEY(thoff)),
	BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, KEY(ipv4_src)),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, KEY(flags)),
	BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, KEY(ipv4_dst)),
	/* bytes 14..19 */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 20),
	BPF_MOV64_IMM(BPF_REG_0, 99),
	BPF_JMP_REG(BPF_JGT, BPF_REG_1, BPF_REG_8, 25),		/* to the last exit */
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_7, 14),
	BPF_ENDIAN(BPF_TO_BE, BPF_REG_0, 16),
	BPF_STX_MEM(BPF_H, BPF_REG_6, BPF_REG_0, KEY(nhoff)),
	BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_7, 16),
	BPF_ENDIAN(BPF_TO_BE, BPF_REG_0, 16),
	BPF_STX_MEM(BPF_H, BPF_REG_6, BPF_REG_0, KEY(thoff)),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 19),
	BPF_JMP_IMM(BPF_JSET, BPF_REG_0, 1, 2),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 18),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_6, KEY(is_encap)),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_STX_MEM(BPF_B, BPF_REG_6, BPF_REG_0, KEY(is_encap)),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_9),
	BPF_MOV64_IMM(BPF_REG_2, 0),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 4),
	BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
	BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, KEY(flow_label)),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_10, -8),
	BPF_STX_MEM(BPF_B, BPF_REG_6, BPF_REG_0, KEY(ip_proto)),
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 18),
	BPF_EXIT_INSN(),
	BPF_EXIT_INSN(),
};

struct fd_run {
	const char *what;
	uint32_t len;			/* data_size_in */
	uint16_t nhoff, thoff;		/* written at bytes 14..17 */
	uint8_t ret, flags19;		/* bytes 18, 19 */
	uint32_t repeat, size_out;
	uint32_t test_flags, cpu, batch;
	bool ctx;			/* ctx_in/ctx_out: keys with ctx_flags (and ctx_junk at
					 * byte ctx_junk_at when nonzero) */
	uint32_t ctx_flags, ctx_size;
	uint8_t ctx_junk;
	uint32_t ctx_junk_at;
	bool no_data;
};

static struct bpf_result fd_run_one(int s, int prog, const struct fd_run *c, uint8_t *out,
				    uint32_t *size_out, uint32_t *retval, uint8_t *ctx_out)
{
	static uint8_t pkt[4200];
	uint8_t ctx_in[128] = { 0 };
	struct bpf_flow_keys *k = (struct bpf_flow_keys *)ctx_in;
	union bpf_attr a;
	struct bpf_result r;

	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x86;
	pkt[13] = 0xdd;
	pkt[14] = (uint8_t)(c->nhoff >> 8);
	pkt[15] = (uint8_t)c->nhoff;
	pkt[16] = (uint8_t)(c->thoff >> 8);
	pkt[17] = (uint8_t)c->thoff;
	pkt[18] = c->ret;
	pkt[19] = c->flags19;
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = c->no_data ? 0 : PTR_TO_U64(pkt);
	a.test.data_size_in = c->len;
	a.test.data_out = PTR_TO_U64(out);
	a.test.data_size_out = c->size_out;
	a.test.repeat = c->repeat;
	a.test.flags = c->test_flags;
	a.test.cpu = c->cpu;
	a.test.batch_size = c->batch;
	if (c->ctx) {
		k->flags = c->ctx_flags;
		if (c->ctx_junk)
			ctx_in[c->ctx_junk_at] = c->ctx_junk;
		a.test.ctx_in = c->ctx_size ? PTR_TO_U64(ctx_in) : 0;
		a.test.ctx_size_in = c->ctx_size;
		a.test.ctx_out = PTR_TO_U64(ctx_out);
		a.test.ctx_size_out = 64;
	}
	r = side_call(s, BPF_PROG_TEST_RUN, &a);
	*size_out = a.test.data_size_out;
	*retval = a.test.retval;
	return r;
}

TEST(diff_flow_dissector_test_run)
{
	static const struct fd_run runs[] = {
		{ .what = "plain", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1 },
		{ .what = "returns 2", .len = 64, .nhoff = 20, .thoff = 30, .ret = 2, .repeat = 1 },
		{ .what = "nhoff 0 (clamped up), thoff 5", .len = 64, .thoff = 5, .ret = 1, .repeat = 1 },
		{ .what = "nhoff past the packet", .len = 64, .nhoff = 500, .thoff = 600, .repeat = 1 },
		{ .what = "thoff below nhoff", .len = 100, .nhoff = 40, .thoff = 20, .repeat = 1 },
		{ .what = "thoff past the packet", .len = 100, .nhoff = 40, .thoff = 0xffff, .repeat = 1 },
		{ .what = "a page", .len = 4096, .nhoff = 4000, .thoff = 4095, .repeat = 1 },
		{ .what = "over a page", .len = 4097, .nhoff = 14, .thoff = 14, .repeat = 1 },
		{ .what = "shorter than Ethernet", .len = 13, .nhoff = 14, .thoff = 14, .repeat = 1 },
		{ .what = "only Ethernet", .len = 14, .nhoff = 14, .thoff = 14, .repeat = 1 },
		{ .what = "no data_in", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .no_data = true },
		{ .what = "repeat 7, load_bytes", .len = 64, .nhoff = 14, .thoff = 14, .flags19 = 1, .repeat = 7 },
		{ .what = "repeat 0", .len = 64, .nhoff = 14, .thoff = 14, .flags19 = 1 },
		{ .what = "data_size_out 10", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .size_out = 10 },
		{ .what = "data_size_out 56", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .size_out = 56 },
		{ .what = "test flags 1", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .test_flags = 1 },
		{ .what = "cpu 1", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .cpu = 1 },
		{ .what = "batch_size 1", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .batch = 1 },
		{ .what = "ctx flags 1", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_flags = 1, .ctx_size = 56 },
		{ .what = "ctx flags 7", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_flags = 7, .ctx_size = 56 },
		{ .what = "ctx short", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_flags = 2, .ctx_size = 44 },
		{ .what = "ctx with nhoff", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_size = 56, .ctx_junk = 1, .ctx_junk_at = 0 },
		{ .what = "ctx with a flow label", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_size = 56, .ctx_junk = 1, .ctx_junk_at = 52 },
		{ .what = "ctx longer, zero tail", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_flags = 4, .ctx_size = 100 },
		{ .what = "ctx longer, nonzero tail", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_size = 100, .ctx_junk = 1, .ctx_junk_at = 80 },
		{ .what = "ctx out only", .len = 64, .nhoff = 14, .thoff = 14, .repeat = 1, .ctx = true, .ctx_size = 0 },
	};
	int prog[NSIDES], ok = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = side_prog_load(s, FD, recorder, sizeof(recorder) / sizeof(recorder[0]));
		REQUIRE(prog[s] >= 0);
	}
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		uint8_t out[NSIDES][128], ctx_out[NSIDES][64];
		uint32_t size_out[NSIDES], ret[NSIDES];
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			memset(out[s], 0xaa, sizeof(out[s]));
			memset(ctx_out[s], 0xaa, sizeof(ctx_out[s]));
			r[s] = fd_run_one(s, prog[s], &runs[i], out[s], &size_out[s], &ret[s],
					  ctx_out[s]);
		}
		if (!AGREE(runs[i].what, r) || (r[K].rc && r[K].err != ENOSPC))
			continue;
		ok++;
		CHECK_EQ(size_out[U], size_out[K]);
		CHECK_EQ(ret[U], ret[K]);
		if (memcmp(out[U], out[K], sizeof(out[K])))
			test_fail(__FILE__, __LINE__, "%s: data_out differs", runs[i].what);
		if (runs[i].ctx && memcmp(ctx_out[U], ctx_out[K], sizeof(ctx_out[K])))
			test_fail(__FILE__, __LINE__, "%s: ctx_out differs", runs[i].what);
	}
	CHECK(ok >= 15);
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
}

/* The recorder on userbpf alone (also where the kernel is unavailable): the keys a run starts
 * with, the clamping after it, fresh keys on each repeat, bpf_skb_load_bytes() failing. */
TEST(flow_dissector_test_run_keys)
{
	int prog = side_prog_load(U, FD, recorder, sizeof(recorder) / sizeof(recorder[0]));
	struct bpf_flow_keys k;
	uint8_t ctx_out[64];
	uint32_t size_out, ret;

	REQUIRE(prog >= 0);
	{
		struct fd_run c = { .len = 64, .nhoff = 0, .thoff = 5, .ret = 3, .repeat = 1 };

		REQUIRE(fd_run_one(U, prog, &c, (uint8_t *)&k, &size_out, &ret, ctx_out).rc == 0);
		CHECK_EQ(size_out, sizeof(k));
		CHECK_EQ(ret, 3);
		CHECK_EQ(k.sport, htons(ETH_P_IPV6)); /* n_proto from the frame */
		CHECK_EQ(k.dport, ETH_HLEN);		/* nhoff and thoff start at ETH_HLEN */
		CHECK_EQ(k.ipv4_src, ETH_HLEN);
		CHECK_EQ(k.nhoff, ETH_HLEN);		/* 0 and 5 clamped up */
		CHECK_EQ(k.thoff, ETH_HLEN);
	}
	{
		struct fd_run c = { .len = 64, .nhoff = 500, .thoff = 40, .repeat = 1 };

		REQUIRE(fd_run_one(U, prog, &c, (uint8_t *)&k, &size_out, &ret, ctx_out).rc == 0);
		CHECK_EQ(k.nhoff, 64);			/* clamped down to the packet */
		CHECK_EQ(k.thoff, 64);			/* and up to nhoff */
	}
	{
		struct fd_run c = { .len = 64, .nhoff = 20, .thoff = 30, .flags19 = 1, .repeat = 7,
				    .ctx = true, .ctx_flags = 7, .ctx_size = sizeof(k) };

		REQUIRE(fd_run_one(U, prog, &c, (uint8_t *)&k, &size_out, &ret, ctx_out).rc == 0);
		CHECK_EQ(k.is_encap, 1);		/* not 7: fresh keys each run */
		CHECK_EQ(k.flow_label, (uint32_t)-EFAULT);
		CHECK_EQ(k.ip_proto, 0);		/* the helper zeroed its buffer */
		CHECK_EQ(k.ipv4_dst, 7);		/* flags from ctx_in */
		CHECK_EQ(((struct bpf_flow_keys *)ctx_out)->flags, 7); /* ctx_out: ctx_in */
	}
	close(prog);
}
