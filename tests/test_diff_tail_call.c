/* Program arrays and bpf_tail_call(), differentially: the same calls on the live kernel and on
 * userbpf.  Covered: BPF_MAP_TYPE_PROG_ARRAY creation and element commands (program fds in,
 * "some id" out, the owner's type rule), the verifier's pairing of the array with the helper,
 * and programs run through BPF_PROG_TEST_RUN: a dispatcher jumping by a packet byte, a missing
 * slot and an index out of range falling through, a chain that calls itself until the kernel's
 * limit of 33 tail calls (counted in a map), tail calls from a bpf-to-bpf callee, and the array
 * emptied when its last fd is closed.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static int map_create(int s, uint32_t type, uint32_t ks, uint32_t vs, uint32_t max,
		      uint32_t flags)
{
	return side_map_create(s, type, ks, vs, max, flags).rc;
}

/* r0 = imm */
static int load_ret(int s, uint32_t type, int imm)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, imm), BPF_EXIT_INSN() };

	return side_prog_load_log(s, type, insns, 2, NULL, 0).rc;
}

TEST(diff_prog_array_create)
{
	static const struct {
		uint32_t ks, vs, max, flags;
		int err;
	} cases[] = {
		{ 4, 4, 8, 0, 0 },
		{ 4, 8, 8, 0, EINVAL },
		{ 8, 4, 8, 0, EINVAL },
		{ 4, 4, 0, 0, EINVAL },
		{ 4, 4, 8, BPF_F_RDONLY_PROG, EINVAL },
		{ 4, 4, 8, BPF_F_MMAPABLE, EINVAL },
		{ 4, 4, 8, BPF_F_RDONLY, 0 },
		{ 4, 4, 8, BPF_F_NO_PREALLOC, EINVAL },
		{ 4, 4, 8, BPF_F_NUMA_NODE, 0 },
		{ 4, 4, 8, BPF_F_INNER_MAP, EINVAL },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		char what[80];

		snprintf(what, sizeof(what), "create key %u value %u max %u flags %#x", cases[i].ks,
			 cases[i].vs, cases[i].max, cases[i].flags);
		for (int s = 0; s < NSIDES; s++) {
			r[s].rc = map_create(s, BPF_MAP_TYPE_PROG_ARRAY, cases[i].ks, cases[i].vs,
					     cases[i].max, cases[i].flags);
			r[s].err = r[s].rc < 0 ? errno : 0;
		}
		AGREE(what, r);
		if (r[K].rc < 0 ? r[K].err != cases[i].err : cases[i].err != 0)
			test_fail(__FILE__, __LINE__, "%s: the table says errno %d, the kernel %d",
				  what, cases[i].err, r[K].rc < 0 ? r[K].err : 0);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

TEST(diff_prog_array_elements)
{
	int m[NSIDES], xdp[NSIDES], cls[NSIDES], hash[NSIDES];
	struct bpf_result r[2];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		m[s] = map_create(s, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0);
		hash[s] = map_create(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0);
		xdp[s] = load_ret(s, BPF_PROG_TYPE_XDP, 2);
		cls[s] = load_ret(s, BPF_PROG_TYPE_SCHED_CLS, 0);
		if (m[s] < 0 || hash[s] < 0 || xdp[s] < 0 || cls[s] < 0) {
			test_fail(__FILE__, __LINE__, "setup on side %d failed", s);
			return;
		}
	}
#define BOTH(what, cmd, key, val, fds, flags)                                                      \
	do {                                                                                       \
		for (int s = 0; s < NSIDES; s++) {                                                 \
			uint32_t k_ = (key), v_ = (val) == -1 ? 0 : (uint32_t)(val);              \
			if ((fds) == 1)                                                            \
				v_ = (uint32_t)xdp[s];                                             \
			else if ((fds) == 2)                                                       \
				v_ = (uint32_t)cls[s];                                             \
			else if ((fds) == 3)                                                       \
				v_ = (uint32_t)hash[s];                                            \
			r[s] = side_elem(s, cmd, m[s], &k_, &v_, flags);                                \
			if (cmd == BPF_MAP_LOOKUP_ELEM && r[s].rc >= 0 && !v_)                     \
				test_fail(__FILE__, __LINE__, "%s: id 0 on side %d", what, s);     \
		}                                                                                  \
		AGREE(what, r);                                                                    \
	} while (0)
	BOTH("lookup of an empty slot", BPF_MAP_LOOKUP_ELEM, 0, -1, 0, 0);
	BOTH("update with an XDP program", BPF_MAP_UPDATE_ELEM, 0, 0, 1, BPF_ANY);
	BOTH("lookup: the program's id", BPF_MAP_LOOKUP_ELEM, 0, -1, 0, 0);
	BOTH("update with a tc program (not the owner's type)", BPF_MAP_UPDATE_ELEM, 1, 0, 2,
	     BPF_ANY);
	BOTH("update with a map fd", BPF_MAP_UPDATE_ELEM, 1, 0, 3, BPF_ANY);
	BOTH("update with a closed fd", BPF_MAP_UPDATE_ELEM, 1, 999, 0, BPF_ANY);
	BOTH("update NOEXIST", BPF_MAP_UPDATE_ELEM, 1, 0, 1, BPF_NOEXIST);
	BOTH("update EXIST", BPF_MAP_UPDATE_ELEM, 0, 0, 1, BPF_EXIST);
	BOTH("update beyond max_entries", BPF_MAP_UPDATE_ELEM, 4, 0, 1, BPF_ANY);
	BOTH("update again", BPF_MAP_UPDATE_ELEM, 3, 0, 1, BPF_ANY);
	BOTH("delete", BPF_MAP_DELETE_ELEM, 3, -1, 0, 0);
	BOTH("delete of an empty slot", BPF_MAP_DELETE_ELEM, 3, -1, 0, 0);
	BOTH("delete beyond max_entries", BPF_MAP_DELETE_ELEM, 9, -1, 0, 0);
	BOTH("lookup beyond max_entries", BPF_MAP_LOOKUP_ELEM, 9, -1, 0, 0);
	BOTH("get_next_key", BPF_MAP_GET_NEXT_KEY, 1, -1, 0, 0);
	BOTH("lookup and delete", BPF_MAP_LOOKUP_AND_DELETE_ELEM, 0, -1, 0, 0);
#undef BOTH
	/* a tc program that uses an array owned by XDP programs does not load */
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn insns[] = {
			BPF_LD_MAP_FD(BPF_REG_2, m[s]), BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_EMIT_CALL(BPF_FUNC_tail_call), BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		r[s] = side_prog_load_log(s, BPF_PROG_TYPE_SCHED_CLS, insns, sizeof(insns) / sizeof(insns[0]),
			    NULL, 0);
		if (r[s].rc >= 0)
			close(r[s].rc);
	}
	AGREE("a tc program using an XDP-owned array", r);
	for (int s = 0; s < NSIDES; s++) {
		close(m[s]);
		close(hash[s]);
		close(xdp[s]);
		close(cls[s]);
	}
}

/* Programs for the verifier cases, built for one side's fds: m a program array, h a hash map. */
#define BUILD(...)                                                                                 \
	do {                                                                                       \
		struct bpf_insn p_[] = { __VA_ARGS__ };                                            \
		memcpy(out, p_, sizeof(p_));                                                       \
		return sizeof(p_) / sizeof(p_[0]);                                                 \
	} while (0)

static uint32_t v_tail_call(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_LD_MAP_FD(BPF_REG_2, m), BPF_MOV64_IMM(BPF_REG_3, 0),
	      BPF_EMIT_CALL(BPF_FUNC_tail_call), BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN());
}

static uint32_t v_r0_after(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_LD_MAP_FD(BPF_REG_2, m), BPF_MOV64_IMM(BPF_REG_3, 0),
	      BPF_EMIT_CALL(BPF_FUNC_tail_call), BPF_EXIT_INSN());
}

static uint32_t v_hash(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_LD_MAP_FD(BPF_REG_2, h), BPF_MOV64_IMM(BPF_REG_3, 0),
	      BPF_EMIT_CALL(BPF_FUNC_tail_call), BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN());
}

static uint32_t v_lookup(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, m),
	      BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	      BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 2),
	      BPF_EXIT_INSN());
}

static uint32_t v_pkt_kept(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	      BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, offsetof(struct xdp_md, data)),
	      BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1, offsetof(struct xdp_md, data_end)),
	      BPF_MOV64_REG(BPF_REG_9, BPF_REG_7), BPF_ALU64_IMM(BPF_ADD, BPF_REG_9, 1),
	      BPF_MOV64_IMM(BPF_REG_0, 2), BPF_JMP_REG(BPF_JGT, BPF_REG_9, BPF_REG_8, 6),
	      BPF_LD_MAP_FD(BPF_REG_2, m), BPF_MOV64_IMM(BPF_REG_3, 0),
	      BPF_EMIT_CALL(BPF_FUNC_tail_call), BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_7, 0),
	      BPF_EXIT_INSN(), BPF_EXIT_INSN());
}

static uint32_t v_ctx_moved(struct bpf_insn *out, int m, int h)
{
	BUILD(BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4), BPF_LD_MAP_FD(BPF_REG_2, m),
	      BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_tail_call),
	      BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN());
}

TEST(diff_tail_call_verifier)
{
	static const struct {
		const char *name;
		uint32_t (*build)(struct bpf_insn *out, int m, int h);
	} cases[] = {
		{ "a tail call", v_tail_call },
		{ "r0 after a tail call", v_r0_after },
		{ "a tail call through a hash map", v_hash },
		{ "a lookup in a program array", v_lookup },
		{ "a packet pointer kept across a tail call", v_pkt_kept },
		{ "a tail call with a modified ctx", v_ctx_moved },
	};
	int m[NSIDES], h[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		m[s] = map_create(s, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0);
		h[s] = map_create(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn pk[32], pu[32];
		uint32_t n = cases[i].build(pk, m[K], h[K]);

		cases[i].build(pu, m[U], h[U]);
		VERDICTS_AGREE(cases[i].name, BPF_PROG_TYPE_XDP, pk, pu, n);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(m[s]);
		close(h[s]);
	}
}

/* A run on both sides with pkt; the retvals must agree.  Returns the kernel's. */
static uint32_t run_both_at(const char *file, int line, const char *what, const int prog[2],
			    unsigned char first_byte)
{
	unsigned char pkt[64] = { first_byte };
	struct bpf_result r[2];
	uint32_t ret[2];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
	if (results_agree_at(file, line, what, r) && ret[K] != ret[U])
		test_fail(file, line, "%s: retval kernel %u, userbpf %u", what, ret[K], ret[U]);
	return ret[K];
}
#define RUN_BOTH(what, prog, b) run_both_at(__FILE__, __LINE__, what, prog, b)

/* The dispatcher: tail call to slot = packet byte 0, else r0 = 100.  A target: r0 = 10 + slot,
 * except slot 2, which counts its runs in counter[0] and tail-calls slot 2 again (itself). */
TEST(diff_tail_call_runs)
{
	int m[NSIDES], cnt[NSIDES], disp[NSIDES], t0[NSIDES], t1[NSIDES], self[NSIDES];
	int sub[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		m[s] = map_create(s, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 8, 0);
		cnt[s] = map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0);
		{
			struct bpf_insn d[] = {
				BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
				BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1,
					    offsetof(struct xdp_md, data_end)),
				BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 5),
				BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_2, 0),
				BPF_LD_MAP_FD(BPF_REG_2, m[s]),
				BPF_EMIT_CALL(BPF_FUNC_tail_call),
				BPF_MOV64_IMM(BPF_REG_0, 100),
				BPF_EXIT_INSN(),
			};
			disp[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, d, sizeof(d) / sizeof(d[0]), NULL, 0).rc;
		}
		t0[s] = load_ret(s, BPF_PROG_TYPE_XDP, 10);
		t1[s] = load_ret(s, BPF_PROG_TYPE_XDP, 11);
		{
			struct bpf_insn c[] = {
				BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
				BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
				BPF_LD_MAP_FD(BPF_REG_1, cnt[s]),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
				BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
				BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
				BPF_MOV64_IMM(BPF_REG_1, 1),
				BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
				BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
				BPF_LD_MAP_FD(BPF_REG_2, m[s]),
				BPF_MOV64_IMM(BPF_REG_3, 2),
				BPF_EMIT_CALL(BPF_FUNC_tail_call),
				BPF_MOV64_IMM(BPF_REG_0, 12),
				BPF_EXIT_INSN(),
			};
			self[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, c, sizeof(c) / sizeof(c[0]), NULL, 0).rc;
		}
		{
			/* a bpf-to-bpf callee tail-calls slot 1: the result comes back to main,
			 * which adds 1000 */
			struct bpf_insn b[] = {
				BPF_CALL_REL(3),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1000),
				BPF_EXIT_INSN(),
				BPF_EXIT_INSN(),
				BPF_LD_MAP_FD(BPF_REG_2, m[s]),
				BPF_MOV64_IMM(BPF_REG_3, 1),
				BPF_EMIT_CALL(BPF_FUNC_tail_call),
				BPF_MOV64_IMM(BPF_REG_0, 7),
				BPF_EXIT_INSN(),
			};
			sub[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, b, sizeof(b) / sizeof(b[0]), NULL, 0).rc;
		}
		if (m[s] < 0 || cnt[s] < 0 || disp[s] < 0 || t0[s] < 0 || t1[s] < 0 || self[s] < 0) {
			test_fail(__FILE__, __LINE__, "setup on side %d failed (errno %d)", s, errno);
			return;
		}
		for (uint32_t k = 0; k < 3; k++) {
			uint32_t fd = (uint32_t)(k == 0 ? t0[s] : k == 1 ? t1[s] : self[s]);

			side_elem(s, BPF_MAP_UPDATE_ELEM, m[s], &k, &fd, BPF_ANY);
		}
	}
	CHECK_EQ(RUN_BOTH("slot 0", disp, 0), 10u);
	CHECK_EQ(RUN_BOTH("slot 1", disp, 1), 11u);
	CHECK_EQ(RUN_BOTH("an empty slot", disp, 5), 100u);
	CHECK_EQ(RUN_BOTH("beyond max_entries", disp, 200), 100u);
	CHECK_EQ(RUN_BOTH("the self-calling chain", disp, 2), 12u);
	{
		uint32_t k = 0;
		uint64_t n[NSIDES] = { 0, 0 };

		for (int s = 0; s < NSIDES; s++)
			side_elem(s, BPF_MAP_LOOKUP_ELEM, cnt[s], &k, &n[s], 0);
		/* the dispatcher's call, then 33 - 1 more from the chain */
		if (n[K] != n[U])
			test_fail(__FILE__, __LINE__, "chain runs: kernel %llu, userbpf %llu",
				  (unsigned long long)n[K], (unsigned long long)n[U]);
		CHECK_EQ(n[K], 33u);
	}
	if (sub[K] >= 0 || sub[U] >= 0) {
		int both[NSIDES] = { sub[K], sub[U] };

		if (sub[K] < 0 || sub[U] < 0)
			test_fail(__FILE__, __LINE__, "callee tail call: load kernel %d, userbpf %d",
				  sub[K], sub[U]);
		else
			CHECK_EQ(RUN_BOTH("a tail call from a callee", both, 0), 1011u);
	}
	/* the array's last fd closed: its slots are emptied, though the dispatcher holds it (the
	 * kernel empties them from a work queue: wait for that) */
	for (int s = 0; s < NSIDES; s++)
		close(m[s]);
	for (int tries = 0; tries < 200; tries++) {
		unsigned char pkt[64] = { 0 };
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)disp[K];
		a.test.data_in = PTR_TO_U64(pkt);
		a.test.data_size_in = sizeof(pkt);
		if (side_call(K, BPF_PROG_TEST_RUN, &a).rc < 0 || a.test.retval == 100)
			break;
		usleep(10000);
	}
	CHECK_EQ(RUN_BOTH("after the array's fd is closed", disp, 0), 100u);
	for (int s = 0; s < NSIDES; s++) {
		close(cnt[s]);
		close(disp[s]);
		close(t0[s]);
		close(t1[s]);
		close(self[s]);
		if (sub[s] >= 0)
			close(sub[s]);
	}
}
