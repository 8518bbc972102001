/* Soundness: the checked interpreter catches what it must, and a short fixed-seed run of the
 * random program generator finds no program that the verifier accepts and that then touches
 * memory outside its regions (tests/soundness_gen.h; the long run is `make soundness`).
 * Regression tests for soundness bugs the generator found stay here, one per bug.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include <stdlib.h>

#include "btf/vmlinux.h"
#include "exec/interp_checked.h"
#include "fd.h"
#include "prog/check_run.h"
#include "prog/prog.h"
#include "kbpf.h"
#include "soundness_gen.h"
#include "test.h"

/* Runs insns (unverified) in the checked interpreter with only the stack allowed. */
static int run_raw(const struct bpf_insn *insns, unsigned int cnt, struct interp_check *c)
{
	struct interp_checked_prog *p;
	uint64_t args[5] = { 0 }, r0;
	int err;

	memset(c, 0, sizeof(*c));
	if (interp_checked_prepare(insns, cnt, NULL, &p))
		return -999;
	err = interp_checked_exec(p, args, &r0, c);
	interp_checked_free(p);
	return err;
}

TEST(soundness_checked_mode_flags_violations)
{
	struct interp_check c;
	const struct bpf_insn ok[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -512),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn below[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -520, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn above[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_10, -2),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn uninit[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn r0_unset[] = {
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn fp_write[] = {
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_10, -8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn after_call[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_CALL_REL(2),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), /* r1 is dead after the call */
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn dead_frame[] = {
		BPF_CALL_REL(3),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0), /* the callee's frame is gone */
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, -8),
		BPF_EXIT_INSN(),
	};

	CHECK_EQ(run_raw(ok, 3, &c), 0);
	CHECK_EQ(run_raw(below, 3, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(c.v.insn, 0);
	CHECK_EQ(c.v.size, 8);
	CHECK_EQ(run_raw(above, 2, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(run_raw(uninit, 2, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_UNINIT_REG);
	CHECK_EQ(c.v.reg, 2);
	CHECK_EQ(run_raw(r0_unset, 1, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_UNINIT_REG);
	CHECK_EQ(run_raw(fp_write, 3, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_WRITE_R10);
	CHECK_EQ(run_raw(after_call, 6, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_UNINIT_REG);
	CHECK_EQ(c.v.insn, 2);
	CHECK_EQ(run_raw(dead_frame, 7, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(c.v.insn, 1);
}

/* A read-only region (a cgroup skb program's packet, a BPF_F_RDONLY_PROG map's values): loads
 * pass, a store or an atomic into it is a violation; the same region writable takes both. */
static int run_region(const struct bpf_insn *insns, unsigned int cnt, void *buf, bool ro,
		      struct interp_check *c)
{
	struct interp_checked_prog *p;
	uint64_t args[5] = { (uintptr_t)buf }, r0;
	int err;

	memset(c, 0, sizeof(*c));
	if (interp_checked_prepare(insns, cnt, NULL, &p))
		return -999;
	if (ro)
		interp_check_add_ro(c, (uintptr_t)buf, 16, "packet");
	else
		interp_check_add(c, (uintptr_t)buf, 16, "packet");
	err = interp_checked_exec(p, args, &r0, c);
	interp_checked_free(p);
	return err;
}

TEST(soundness_checked_mode_readonly)
{
	uint64_t buf[2] = { 0 };
	struct interp_check c;
	const struct bpf_insn rd[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn st[] = {
		BPF_ST_MEM(BPF_B, BPF_REG_1, 15, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn atomic[] = {
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_1, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	CHECK_EQ(run_region(rd, 2, buf, true, &c), 0);
	CHECK_EQ(run_region(st, 3, buf, true, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MEM);
	CHECK_EQ(c.v.insn, 0);
	CHECK(c.v.write);
	CHECK(strstr(c.v.msg, "read-only packet") != NULL);
	CHECK_EQ(buf[1], 0); /* stopped before the store */
	CHECK_EQ(run_region(atomic, 4, buf, true, &c), -EACCES);
	CHECK_EQ(c.v.insn, 1);
	CHECK_EQ(run_region(st, 3, buf, false, &c), 0);
	CHECK_EQ(buf[1], 1ull << 56);
	CHECK_EQ(run_region(atomic, 4, buf, false, &c), 0);
	CHECK_EQ(buf[0], 1);
}

/* Loaded programs: packet and map value bounds, as prog_check_run() sets them up. */
TEST(soundness_checked_mode_regions)
{
	struct gen_src s = { .state = 1 };
	/* tc: the last byte inside a 14-byte bounds check */
	const struct bpf_insn pkt_ok[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 14),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 13),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn map_ok[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 1),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_ARRAY),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_ST_MEM(BPF_DW, BPF_REG_0, GEN_ARRAY_VALUE - 8, 7),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	CHECK_EQ(sound_check_one(&s, pkt_ok, sizeof(pkt_ok) / sizeof(pkt_ok[0]), BPF_PROG_TYPE_SCHED_CLS, 8, stderr), 0);
	CHECK_EQ(sound_check_one(&s, map_ok, sizeof(map_ok) / sizeof(map_ok[0]), BPF_PROG_TYPE_XDP, 4, stderr), 0);
}

/* A helper that moves the packet: after it, the packet is where the context says (here in what
 * was headroom), and the program may read it there once it loaded and checked the pointers
 * again.  (Were the regions not refreshed after the call, these runs would be violations.) */
TEST(soundness_checked_mode_packet_moves)
{
	struct gen_src s = { .state = 2 };
#define MOVED_READ(ctx_type)                                                                      \
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 7),                                                   \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, offsetof(ctx_type, data)),                      \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, offsetof(ctx_type, data_end)),                  \
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),                                                     \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 16),                                                   \
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 2),                                           \
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),                                            \
	BPF_ST_MEM(BPF_DW, BPF_REG_2, 8, 1),                                                     \
	BPF_MOV64_IMM(BPF_REG_0, 0),                                                             \
	BPF_EXIT_INSN()
	/* xdp: 16 bytes pushed in front (bpf_xdp_adjust_head(ctx, -16)) */
	const struct bpf_insn xdp_head[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_2, -16),
		BPF_EMIT_CALL(BPF_FUNC_xdp_adjust_head),
		MOVED_READ(struct xdp_md),
	};
	/* tc: 16 bytes of room pushed in front (bpf_skb_change_head(ctx, 16, 0)) */
	const struct bpf_insn skb_head[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_2, 16),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_skb_change_head),
		MOVED_READ(struct __sk_buff),
	};
#undef MOVED_READ

	CHECK_EQ(sound_check_one(&s, xdp_head, sizeof(xdp_head) / sizeof(xdp_head[0]), BPF_PROG_TYPE_XDP, 8, stderr), 0);
	CHECK_EQ(sound_check_one(&s, skb_head, sizeof(skb_head) / sizeof(skb_head[0]), BPF_PROG_TYPE_SCHED_CLS, 8, stderr), 0);
}

/* bpf_spin_lock: a correct region runs clean; the same program with one instruction changed
 * after verification (as if the verifier had accepted the change) shows each rule the checked
 * run enforces, and a run that stops holding the lock releases it (the next run would spin
 * forever on it otherwise). */
TEST(soundness_checked_mode_spin_lock)
{
	const struct bpf_insn prog[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_LOCK),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, GEN_LOCK_OFF),
		BPF_EMIT_CALL(BPF_FUNC_spin_lock),			/* 10 */
		BPF_ST_MEM(BPF_DW, BPF_REG_7, 8, 1),			/* 11 */
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, GEN_LOCK_OFF),
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock),			/* 14 */
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	const struct {
		unsigned int at;
		struct bpf_insn insn;
		enum interp_violation_kind kind;
		const char *msg;
	} bad[] = {
		{ 14, BPF_MOV64_IMM(BPF_REG_0, 0), IV_LOCK, "exit while holding" },
		{ 14, BPF_MOV64_IMM(BPF_REG_0, 0), IV_LOCK, "exit while holding" }, /* released */
		{ 14, BPF_EMIT_CALL(BPF_FUNC_spin_lock), IV_LOCK, "bpf_spin_lock while holding" },
		{ 11, BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), IV_LOCK, "helper call while" },
		{ 10, BPF_MOV64_IMM(BPF_REG_0, 0), IV_LOCK, "unlock of a lock not held" },
		{ 11, BPF_ST_MEM(BPF_W, BPF_REG_7, GEN_LOCK_OFF, 1), IV_MEM, "outside every region" },
		{ 13, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 0), IV_HELPER_ARG, "not the bpf_spin_lock" },
	};
	struct gen_src s = { .state = 3 };
	unsigned int n = sizeof(prog) / sizeof(prog[0]);
	struct prog_check_result r;
	struct bpf_object *obj;
	struct bpf_prog *p;
	uint8_t pkt[16] = { 0 };
	int fd, err;

	CHECK_EQ(sound_check_one(&s, prog, n, BPF_PROG_TYPE_XDP, 4, stderr), 0);
	fd = gen_load_user(prog, n, BPF_PROG_TYPE_XDP);
	REQUIRE(fd >= 0);
	obj = obj_get_from_fd(fd, OBJ_PROG, &err);
	REQUIRE(obj != NULL);
	p = prog_of(obj);
	REQUIRE_EQ(p->len, n);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct bpf_insn was = p->insns[bad[k].at];

		p->insns[bad[k].at] = bad[k].insn;
		CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
		CHECK_EQ(r.err, -EACCES);
		CHECK_EQ(r.v.kind, bad[k].kind);
		if (!strstr(r.v.msg, bad[k].msg))
			test_fail(__FILE__, __LINE__, "case %zu: \"%s\", want \"%s\"", k, r.v.msg,
				  bad[k].msg);
		p->insns[bad[k].at] = was;
	}
	/* and the original again: clean */
	CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
	CHECK_EQ(r.err, 0);
	CHECK_EQ(r.retval, XDP_PASS);
	obj_put(obj);
	close(fd);
}

/* A ring buffer record reserved and never submitted or discarded: a leak at exit (the same
 * program with the submit replaced after verification); submitted, the run is clean. */
TEST(soundness_checked_mode_ringbuf_leak)
{
	const struct bpf_insn prog[] = {
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_RINGBUF),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_ringbuf_reserve),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
		BPF_ST_MEM(BPF_DW, BPF_REG_0, 0, 1),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_ringbuf_submit),			/* 9 */
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	unsigned int n = sizeof(prog) / sizeof(prog[0]);
	struct prog_check_result r;
	struct bpf_object *obj;
	struct bpf_insn was;
	struct bpf_prog *p;
	uint8_t pkt[16] = { 0 };
	int fd, err;

	fd = gen_load_user(prog, n, BPF_PROG_TYPE_XDP);
	REQUIRE(fd >= 0);
	obj = obj_get_from_fd(fd, OBJ_PROG, &err);
	REQUIRE(obj != NULL);
	p = prog_of(obj);
	CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
	CHECK_EQ(r.err, 0);
	was = p->insns[9];
	p->insns[9] = BPF_MOV64_IMM(BPF_REG_0, 0);
	CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
	CHECK_EQ(r.err, -EACCES);
	CHECK_EQ(r.v.kind, IV_LEAK);
	CHECK_EQ(r.v.size, 8);
	p->insns[9] = was;
	obj_put(obj);
	close(fd);
}

/* kfunc calls run checked: their dynptr and iterator arguments must be where the program may
 * write, their argument registers written; each is broken after verification in turn. */
TEST(soundness_checked_mode_kfuncs)
{
	const struct btf *btf = btf_vmlinux();
	int32_t size = btf ? (int32_t)btf_find_func(btf, "bpf_dynptr_size") : 0;
	int32_t inew = btf ? (int32_t)btf_find_func(btf, "bpf_iter_num_new") : 0;
	int32_t idestroy = btf ? (int32_t)btf_find_func(btf, "bpf_iter_num_destroy") : 0;
	const struct bpf_insn prog[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_ARRAY),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 17),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -16),
		BPF_EMIT_CALL(BPF_FUNC_dynptr_from_mem),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),			/* 14 */
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, size),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -32),			/* 17 */
		BPF_MOV64_IMM(BPF_REG_2, 0),				/* 18 */
		BPF_MOV64_IMM(BPF_REG_3, 3),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, inew),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -32),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, idestroy),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	const struct {
		unsigned int at;
		struct bpf_insn insn;
		enum interp_violation_kind kind;
		const char *msg;
	} bad[] = {
		{ 14, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), IV_HELPER_ARG, "dynptr outside" },
		{ 17, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 0), IV_HELPER_ARG, "iterator outside" },
		{ 18, BPF_MOV64_IMM(BPF_REG_0, 0), IV_UNINIT_REG, "kfunc reads uninitialised r2" },
	};
	struct prog_check_result r;
	struct bpf_object *obj;
	struct bpf_prog *p;
	uint8_t pkt[16] = { 0 };
	int fd, err;

	if (!size || !inew || !idestroy) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	fd = gen_load_user(prog, sizeof(prog) / sizeof(prog[0]), BPF_PROG_TYPE_XDP);
	REQUIRE(fd >= 0);
	obj = obj_get_from_fd(fd, OBJ_PROG, &err);
	REQUIRE(obj != NULL);
	p = prog_of(obj);
	CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
	CHECK_EQ(r.err, 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct bpf_insn was = p->insns[bad[k].at];

		p->insns[bad[k].at] = bad[k].insn;
		CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
		CHECK_EQ(r.err, -EACCES);
		CHECK_EQ(r.v.kind, bad[k].kind);
		if (!strstr(r.v.msg, bad[k].msg))
			test_fail(__FILE__, __LINE__, "case %zu: \"%s\", want \"%s\"", k, r.v.msg,
				  bad[k].msg);
		p->insns[bad[k].at] = was;
	}
	CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
	CHECK_EQ(r.err, 0);
	CHECK_EQ(r.retval, XDP_PASS);
	obj_put(obj);
	close(fd);
}

/* Lightweight tunnel programs: lwt in may only read its packet, lwt xmit may write it.  A read
 * verified for both is turned into a store after verification: a violation for lwt in only. */
TEST(soundness_checked_mode_lwt_packet)
{
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 1),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 7),		/* 6 */
		BPF_EXIT_INSN(),
	};
	const uint32_t types[] = { BPF_PROG_TYPE_LWT_IN, BPF_PROG_TYPE_LWT_XMIT };
	uint8_t pkt[16] = { 0 };

	for (int t = 0; t < 2; t++) {
		struct prog_check_result r;
		struct bpf_object *obj;
		int fd = gen_load_user(prog, sizeof(prog) / sizeof(prog[0]), types[t]), err;

		REQUIRE(fd >= 0);
		obj = obj_get_from_fd(fd, OBJ_PROG, &err);
		REQUIRE(obj != NULL);
		CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
		CHECK_EQ(r.err, 0);
		prog_of(obj)->insns[6] = BPF_ST_MEM(BPF_B, BPF_REG_2, 7, 1);
		CHECK_EQ(prog_check_run(fd, pkt, sizeof(pkt), 1000, &r), 0);
		if (types[t] == BPF_PROG_TYPE_LWT_IN) {
			CHECK_EQ(r.err, -EACCES);
			CHECK_EQ(r.v.kind, IV_MEM);
			CHECK(strstr(r.v.msg, "read-only packet") != NULL);
		} else {
			CHECK_EQ(r.err, 0);
		}
		obj_put(obj);
		close(fd);
	}
}

TEST(soundness_random_programs_fixed_seed)
{
	/* A fixed number of programs, not a time budget, so every build checks the same ones;
	 * fewer under valgrind, which runs them ~50x slower. */
	unsigned int n = getenv("USERBPF_VALGRIND") ? 300 : 3000;
	struct sound_opts o = {
		.seed = 0x5eed5eedull,
		.max_progs = n,
		.seconds = 0,
		.inputs = 3,
		.report = stderr,
		.max_reports = 3,
	};
	struct sound_stats st;

	REQUIRE_EQ(sound_run(&o, &st), 0);
	CHECK_EQ(st.generated, n);
	CHECK(st.accepted >= st.generated / 10);
	/* each kind of snippet that has its own count reaches accepted programs (in the full
	 * run: a few hundred programs may have none) */
	if (n >= 3000) {
		CHECK(st.cb_accepted > 0);
		CHECK(st.dyn_accepted > 0);
		CHECK(st.tc_accepted > 0);
		CHECK(st.glob_accepted > 0);
		CHECK(st.move_accepted > 0);
		CHECK(st.lock_accepted > 0);
		/* (kfunc snippets need the kernel's BTF, for their ids) */
		if (btf_vmlinux()) {
			CHECK(st.kf_accepted > 0);
			CHECK(st.iter_accepted > 0);
			if (btf_find_func(btf_vmlinux(), "bpf_strlen")) /* (6.17 and later) */
				CHECK(st.str_accepted > 0);
		}
	}
	CHECK_EQ(st.violations, 0);
	if (getenv("TEST_VERBOSE"))
		printf("soundness fixed seed: kfuncs %llu/%llu accepted, iterators %llu/%llu, string "
		       "kfuncs %llu/%llu\n",
		       (unsigned long long)st.kf_accepted, (unsigned long long)st.kf_generated,
		       (unsigned long long)st.iter_accepted, (unsigned long long)st.iter_generated,
		       (unsigned long long)st.str_accepted, (unsigned long long)st.str_generated);
}

/* The same kind of run with each program also loaded into the live kernel: the verdicts must
 * be the kernel's, one by one (the long runs, `make soundness`, do this at any seed; this keeps
 * the divergences they found fixed). */
TEST(soundness_random_programs_kernel_verdicts)
{
	unsigned int n = getenv("USERBPF_VALGRIND") ? 300 : 4000;
	struct sound_opts o = {
		.seed = 0x7a11ca11ull,
		.max_progs = n,
		.inputs = 1,
		.kernel = true,
		.report = stderr,
		.max_reports = 3,
	};
	struct sound_stats st;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE_EQ(sound_run(&o, &st), 0);
	/* (programs calling a helper the kernel lacks are not compared: few) */
	REQUIRE_EQ(st.kernel_compared + st.kernel_skipped, n);
	CHECK(st.kernel_skipped < n / 20);
	CHECK(st.kernel_accepted >= n / 10);
	CHECK_EQ(st.ua_kr, 0);
	CHECK_EQ(st.ur_ka, 0);
	CHECK_EQ(st.kernel_agree, st.kernel_compared);
	CHECK_EQ(st.violations, 0);
	if (getenv("TEST_VERBOSE"))
		printf("soundness vs kernel: %u programs, %llu accepted by both\n", n,
		       (unsigned long long)st.kernel_accepted);
}

/* Loads insns (GEN_MAP_ARRAY placeholders patched) on userbpf; the fd or -errno, log in log. */
static int load_logged(const struct bpf_insn *insns, unsigned int cnt, uint32_t type, char *log,
		       unsigned int log_size)
{
	struct bpf_insn patched[GEN_MAX_INSNS];
	union bpf_attr a;
	int map, fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = GEN_ARRAY_VALUE;
	a.max_entries = GEN_ARRAY_ENTRIES;
	map = bpf(BPF_MAP_CREATE, &a, sizeof(a));
	if (map < 0)
		return -errno;
	gen_patch_maps(insns, cnt, patched, &(struct gen_maps){ map, map, map, map, map, { map, map, map, map, map, map, map } });
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)patched;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = log_size;
	a.log_level = 1;
	log[0] = 0;
	fd = bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0)
		fd = -errno;
	close(map);
	return fd;
}

/* Found by the generator (seed 0x3, program 1449): an atomic on a map value at an offset not
 * aligned to its size was accepted; the kernel requires aligned atomics everywhere, and the
 * interpreter relies on it (i386 lock cmpxchg8b, strict-alignment hosts). */
TEST(soundness_regress_misaligned_atomic_map_value)
{
	static char log[8192];
	const struct bpf_insn fixed[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 1),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_ARRAY),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_0, BPF_REG_1, 38),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn var[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 1),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_ARRAY),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0), /* placeholder, replaced below */
		BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_0, BPF_REG_1, 16),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn v2[sizeof(var) / sizeof(var[0])];
	struct gen_src s = { .state = 7 };
	int fd;

	fd = load_logged(fixed, sizeof(fixed) / sizeof(fixed[0]), BPF_PROG_TYPE_XDP, log,
			 sizeof(log));
	CHECK_EQ(fd, -EACCES);
	CHECK(strstr(log, "misaligned value access off 0+0+38 size 8\n") != NULL);
	CHECK_EQ(sound_check_one(&s, fixed, sizeof(fixed) / sizeof(fixed[0]), BPF_PROG_TYPE_XDP,
				 1, NULL),
		 -1);

	/* a variable offset that may be odd: r0 = value + (rand & 1) */
	memcpy(v2, var, sizeof(var));
	v2[6] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_0);
	v2[7] = BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32);
	v2[8] = BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1);
	v2[9] = BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_0);
	v2[10] = BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_6, BPF_REG_6, 16);
	v2[5].off = 5;
	fd = load_logged(v2, sizeof(v2) / sizeof(v2[0]), BPF_PROG_TYPE_XDP, log, sizeof(log));
	CHECK(fd < 0);
	if (fd >= 0)
		close(fd);
}

/* Found by the generator (seed 0x309, program 9253): a bpf_dynptr_data() slice at an odd offset
 * of a map value, then an atomic through it.  The verifier checks a slice's atomics against
 * offset 0, as the kernel's does (which accepts the program too), so the checked run allows a
 * misaligned atomic inside a slice (x86 executes it) and still reports one anywhere else. */
TEST(soundness_regress_dynptr_slice_atomic)
{
	const struct bpf_insn prog[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
		BPF_LD_MAP_FD(BPF_REG_1, GEN_MAP_ARRAY),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 14),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, GEN_ARRAY_VALUE),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -48),
		BPF_EMIT_CALL(BPF_FUNC_dynptr_from_mem),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -48),
		BPF_MOV64_IMM(BPF_REG_2, 11),
		BPF_MOV64_IMM(BPF_REG_3, 5),
		BPF_EMIT_CALL(BPF_FUNC_dynptr_data),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn atomic3[] = {
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_1, BPF_REG_2, 3),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	uint64_t buf[2] = { 0 }, args[5] = { (uintptr_t)buf }, r0;
	struct interp_checked_prog *p;
	struct gen_src s = { .state = 9 };
	struct interp_check c;

	/* accepted, and its runs (the slice at value + 11) are clean */
	CHECK_EQ(sound_check_one(&s, prog, sizeof(prog) / sizeof(prog[0]), BPF_PROG_TYPE_XDP, 4,
				 NULL),
		 0);
	/* a misaligned atomic is reported unless it lies in a slice */
	REQUIRE_EQ(interp_checked_prepare(atomic3, 4, NULL, &p), 0);
	memset(&c, 0, sizeof(c));
	interp_check_add(&c, (uintptr_t)buf, 16, "packet");
	CHECK_EQ(interp_checked_exec(p, args, &r0, &c), -EACCES);
	CHECK_EQ(c.v.kind, IV_MISALIGNED);
	memset(&c, 0, sizeof(c));
	interp_check_add(&c, (uintptr_t)buf, 16, "packet");
	interp_check_allow_unaligned(&c, (uintptr_t)buf + 2, 6);
	CHECK_EQ(interp_checked_exec(p, args, &r0, &c), 0);
	CHECK_EQ(buf[0], 1ull << 24);
	interp_checked_free(p);
}

/* Found by the generator (seed 5151, program 31284): an iterator loop whose body joins again
 * before its back edge; there the states of two rounds differ only in the iterator's depth,
 * which 6.18 does not take for an infinite loop (its iter_active_depths_differ()): the kernel
 * accepts the program, and so must userbpf. */
TEST(soundness_regress_iter_depths)
{
	const struct btf *btf = btf_vmlinux();
	int32_t inew = btf ? (int32_t)btf_find_func(btf, "bpf_iter_num_new") : 0;
	int32_t inext = btf ? (int32_t)btf_find_func(btf, "bpf_iter_num_next") : 0;
	int32_t idestroy = btf ? (int32_t)btf_find_func(btf, "bpf_iter_num_destroy") : 0;
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 255),
		BPF_RAW_INSN(0xb7, 9, 0, 0, -344633226),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 2),
		BPF_RAW_INSN(0xbf, 1, 10, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, -112),
		BPF_RAW_INSN(0xb7, 2, 0, 0, 1),
		BPF_RAW_INSN(0xb7, 3, 0, 0, 7),
		BPF_RAW_INSN(0x85, 0, 2, 0, inew),
		BPF_RAW_INSN(0xbf, 1, 10, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, -112),
		BPF_RAW_INSN(0x85, 0, 2, 0, inext),
		BPF_RAW_INSN(0x15, 0, 0, 10, 0),
		BPF_RAW_INSN(0x61, 7, 0, 0, 0),
		BPF_RAW_INSN(0x62, 10, 0, -8, 1),
		BPF_RAW_INSN(0x18, 1, 1, 0, 2147418113),
		BPF_RAW_INSN(0x00, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 2, 10, 0, 0),
		BPF_RAW_INSN(0x07, 2, 0, 0, -8),
		BPF_RAW_INSN(0x85, 0, 0, 0, 1),
		BPF_RAW_INSN(0x15, 0, 0, 1, 0),
		BPF_RAW_INSN(0x6a, 0, 0, 44, 2),
		BPF_RAW_INSN(0x05, 0, 0, -14, 0),
		BPF_RAW_INSN(0xbf, 1, 10, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, -112),
		BPF_RAW_INSN(0x85, 0, 2, 0, idestroy),
		BPF_RAW_INSN(0x48, 0, 9, 0, 5),
		BPF_RAW_INSN(0xbf, 9, 0, 0, 0),
		BPF_RAW_INSN(0x18, 2, 2, 0, 2147418116),
		BPF_RAW_INSN(0x00, 0, 0, 0, 32),
		BPF_RAW_INSN(0xbf, 1, 7, 0, 0),
		BPF_RAW_INSN(0x57, 1, 0, 0, 1),
		BPF_RAW_INSN(0x0f, 2, 1, 0, 0),
		BPF_RAW_INSN(0x79, 8, 2, 0, 0),
		BPF_RAW_INSN(0x48, 0, 7, 0, 20),
		BPF_RAW_INSN(0xbf, 7, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 3),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
	};
	int fd;

	if (!inew || !inext || !idestroy) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	fd = gen_load_user(prog, sizeof(prog) / sizeof(prog[0]), BPF_PROG_TYPE_SOCKET_FILTER);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

/* prog (n insns, of type) loaded on both sides with a log of level (its time line cut): the
 * same verdict and errno, the kernel's errno kernel_err (-1: any), the same log; the log's
 * buffer, userbpf's, for the caller to show. */
static const char *sides_load_agree(const struct bpf_insn *prog, unsigned int n, uint32_t type,
				    uint32_t level, int kernel_err, const char *what)
{
	static char log[NSIDES][1 << 16];
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		char *t, *nl;

		r[s].rc = gen_load_on(s == K, prog, n, type, log[s], sizeof(log[s]), level);
		r[s].err = r[s].rc < 0 ? errno : 0;
		if (r[s].rc >= 0)
			close(r[s].rc);
		log_cut_map_addrs(log[s]);
		t = strstr(log[s], "verification time");
		nl = t ? strchr(t, '\n') : NULL;
		if (nl)
			memmove(t, nl + 1, strlen(nl + 1) + 1);
	}
	if (kernel_err >= 0)
		CHECK_EQ(r[K].err, kernel_err);
	if (AGREE(what, r))
		LOGS_SAME(what, log[K], log[U]);
	return log[U];
}

/* Found by the generator (seed 20261209, program 282489): a bpf_for_each_map_elem() callback
 * whose may_goto loops never converge (a key pointer moved each round), which the kernel walks
 * until its limit of 1,000,000 instructions (E2BIG).  userbpf looked for the state of each
 * round's call up the path's parents, which the loops made hundreds of thousands long: the walk
 * was quadratic and ran for hours.  Now it looks in the explored states at the call, as the
 * kernel does: the kernel's verdict and log, and the same state counts. */
TEST(soundness_regress_callback_may_goto_limit)
{
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 48),
		BPF_RAW_INSN(0xb7, 8, 0, 0, 1279981516),
		BPF_RAW_INSN(0xb7, 9, 0, 0, -70504298),
		BPF_RAW_INSN(0x85, 0, 0, 0, 7),
		BPF_RAW_INSN(0xbf, 8, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 1, 6, 0, 0),
		BPF_RAW_INSN(0xb7, 2, 0, 0, 12),
		BPF_RAW_INSN(0xbf, 3, 10, 0, 0),
		BPF_RAW_INSN(0x07, 3, 0, 0, -40),
		BPF_RAW_INSN(0xb7, 4, 0, 0, 16),
		BPF_RAW_INSN(0x85, 0, 0, 0, 26),
		BPF_RAW_INSN(0x40, 0, 9, 0, 32),
		BPF_RAW_INSN(0xbf, 8, 0, 0, 0),
		BPF_RAW_INSN(0x44, 9, 0, 0, 7),
		BPF_RAW_INSN(0x28, 0, 0, 0, 5),
		BPF_RAW_INSN(0xbf, 8, 0, 0, 0),
		BPF_RAW_INSN(0x15, 9, 0, 5, 493945391),
		BPF_RAW_INSN(0x20, 0, 0, 0, 22),
		BPF_RAW_INSN(0xbf, 1, 10, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, -48),
		BPF_RAW_INSN(0xbf, 2, 9, 0, 0),
		BPF_RAW_INSN(0x85, 0, 1, 0, 28),
		BPF_RAW_INSN(0x7a, 10, 0, -8, 0),
		BPF_RAW_INSN(0x18, 1, 1, 0, 2147418113),
		BPF_RAW_INSN(0x00, 0, 0, 0, 0),
		BPF_RAW_INSN(0x18, 2, 4, 0, 8),
		BPF_RAW_INSN(0x00, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 3, 10, 0, 0),
		BPF_RAW_INSN(0x07, 3, 0, 0, -8),
		BPF_RAW_INSN(0xb7, 4, 0, 0, 0),
		BPF_RAW_INSN(0x85, 0, 0, 0, 164),
		BPF_RAW_INSN(0xbf, 7, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 0, 8, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 6, 4, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 664202009),
		BPF_RAW_INSN(0xb7, 8, 0, 0, 31),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 63),
		BPF_RAW_INSN(0x61, 7, 2, 0, 0),
		BPF_RAW_INSN(0x69, 8, 3, 0, 0),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 0),
		BPF_RAW_INSN(0xe5, 0, 0, 3, 0),
		BPF_RAW_INSN(0x0f, 2, 9, 0, 0),
		BPF_RAW_INSN(0x07, 7, 0, 0, 1),
		BPF_RAW_INSN(0xa5, 7, 0, -4, 7),
		BPF_RAW_INSN(0x07, 9, 0, 0, 1),
		BPF_RAW_INSN(0xa5, 9, 0, -7, 7),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 511),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 255),
		BPF_RAW_INSN(0x7b, 10, 7, -352, 0),
		BPF_RAW_INSN(0x62, 10, 0, -228, 1949952756),
		BPF_RAW_INSN(0xbf, 0, 9, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
	};

	if (getenv("USERBPF_VALGRIND"))
		SKIP("a million instructions verified: too slow under valgrind");
	SKIP_WITHOUT_KERNEL_BPF();
	/* (BPF_LOG_STATS: the instructions and states counted) */
	const char *log = sides_load_agree(prog, ARRAY_SIZE(prog), BPF_PROG_TYPE_SOCKET_FILTER, 4,
					   E2BIG, "callback with may_goto loops to the limit");

	if (getenv("TEST_VERBOSE"))
		printf("%s", log);
}

/* Found by the generator (seed 0x1352959, program 177508): a global function called while a
 * bpf_spin_lock is held, which 6.18 refuses ("global function calls are not allowed while
 * holding a lock"), after the arguments' checks; userbpf accepted it.  The kernel's verdict and
 * log. */
TEST(soundness_regress_global_call_under_lock)
{
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 64),
		BPF_RAW_INSN(0xb7, 8, 0, 0, 32767),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 1),
		BPF_RAW_INSN(0x7b, 10, 8, -24, 0),
		BPF_RAW_INSN(0x89, 9, 10, -24, 0),
		BPF_RAW_INSN(0x37, 8, 0, 0, -258559020),
		BPF_RAW_INSN(0x62, 10, 0, -8, 2),
		BPF_RAW_INSN(0x18, 1, 1, 0, 2147418117),
		BPF_RAW_INSN(0x00, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 2, 10, 0, 0),
		BPF_RAW_INSN(0x07, 2, 0, 0, -8),
		BPF_RAW_INSN(0x85, 0, 0, 0, 1),
		BPF_RAW_INSN(0x15, 0, 0, 11, 0),
		BPF_RAW_INSN(0xbf, 9, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 1, 9, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, 4),
		BPF_RAW_INSN(0x85, 0, 0, 0, 93),
		BPF_RAW_INSN(0xbf, 1, 6, 0, 0),
		BPF_RAW_INSN(0xbf, 2, 7, 0, 0),
		BPF_RAW_INSN(0x85, 0, 1, 0, 6),
		BPF_RAW_INSN(0xbf, 7, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 1, 9, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, 4),
		BPF_RAW_INSN(0x85, 0, 0, 0, 94),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
		BPF_RAW_INSN(0x05, 0, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 8, 0, 0, -512),
		BPF_RAW_INSN(0x85, 0, 0, 0, 7),
		BPF_RAW_INSN(0xbf, 8, 0, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
	};

	SKIP_WITHOUT_KERNEL_BPF();
	sides_load_agree(prog, ARRAY_SIZE(prog), BPF_PROG_TYPE_CGROUP_SKB, 2, EINVAL,
			 "global function call under a lock");
}

/* A global function that may sleep (it, or a function it calls, calls a helper or kfunc that
 * sleeps: bpf_copy_from_user(), bpf_copy_from_user_str()), called where nothing may sleep (a tc
 * program), is refused at the call, as 6.18 does; one that does not sleep is taken.  (Programs
 * in the generator's form: a global function starts with "goto +0".)  The kernel's verdicts
 * and level-2 logs. */
TEST(diff_global_func_might_sleep)
{
	const struct btf *btf = btf_vmlinux();
	int32_t copy_str = btf ? (int32_t)btf_find_func(btf, "bpf_copy_from_user_str") : 0;
	/* main: call the global at 7 with the ctx, return 0; the global at 7 calls nothing,
	 * copy_from_user(fp-8, 8, 0), the kfunc, or a global at 11 that calls the helper */
#define GLOBAL_CALL(open, close)                                                                  \
	open, BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_RAW_INSN(0x85, 0, 1, 0, 3), close,         \
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()
#define NOP BPF_MOV64_IMM(BPF_REG_7, 0)
#define KF(id) BPF_RAW_INSN(0x85, 0, 2, 0, id)
#define COPY_USER(call)                                                                          \
	BPF_RAW_INSN(0x05, 0, 0, 0, 0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),                     \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_MOV64_IMM(BPF_REG_2, 8),               \
		BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0), call,                   \
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()
	const struct {
		const char *name;
		uint32_t type;
		struct bpf_insn insns[24];
	} cases[] = {
		{ "tc_helper", BPF_PROG_TYPE_SCHED_CLS,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), GLOBAL_CALL(NOP, NOP),
		    COPY_USER(BPF_EMIT_CALL(BPF_FUNC_copy_from_user)) } },
		{ "tc_kfunc", BPF_PROG_TYPE_SCHED_CLS,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), GLOBAL_CALL(NOP, NOP), COPY_USER(KF(copy_str)) } },
		{ "tc_nothing", BPF_PROG_TYPE_SCHED_CLS,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), GLOBAL_CALL(NOP, NOP),
		    BPF_RAW_INSN(0x05, 0, 0, 0, 0), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
		{ "tc_through_another", BPF_PROG_TYPE_SCHED_CLS,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), GLOBAL_CALL(NOP, NOP),
		    BPF_RAW_INSN(0x05, 0, 0, 0, 0), BPF_RAW_INSN(0x85, 0, 1, 0, 2),
		    BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
		    COPY_USER(BPF_EMIT_CALL(BPF_FUNC_copy_from_user)) } },
	};
	SKIP_WITHOUT_KERNEL_BPF();
	if (!copy_str)
		SKIP("no kernel BTF with bpf_copy_from_user_str (/sys/kernel/btf/vmlinux)");
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		char *log = (char *)sides_load_agree(cases[c].insns, insns_used(cases[c].insns, 24),
						     cases[c].type, 2, -1, cases[c].name);

		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n", cases[c].name, log_error_line(log) ?: "?");
	}
#undef GLOBAL_CALL
#undef NOP
#undef KF
#undef COPY_USER
}

/* Found by the generator (seed 0x1092, program 252938): a may_goto loop over a packet, whose
 * rounds differ in a packet pointer that a comparison marked as beyond the packet's end.  A
 * range that is such a mark (at or beyond the end) only contains the same mark, in 6.18's
 * regsafe(); userbpf took it for a range of 0 and pruned, accepting a program the kernel walks
 * to its limit (E2BIG).  The kernel's verdict and state counts. */
TEST(soundness_regress_pkt_end_mark_pruning)
{
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(0xbf, 6, 1, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 63),
		BPF_RAW_INSN(0xb7, 8, 0, 0, 15),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 65536),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 0),
		BPF_RAW_INSN(0xe5, 0, 0, 8, 0),
		BPF_RAW_INSN(0x61, 2, 6, 0, 0),
		BPF_RAW_INSN(0x61, 3, 6, 4, 0),
		BPF_RAW_INSN(0xbf, 4, 2, 0, 0),
		BPF_RAW_INSN(0x07, 4, 0, 0, 8),
		BPF_RAW_INSN(0x2d, 4, 3, 1, 0),
		BPF_RAW_INSN(0x69, 7, 2, 1, 0),
		BPF_RAW_INSN(0x07, 9, 0, 0, 1),
		BPF_RAW_INSN(0xa5, 9, 0, -9, 20),
		BPF_RAW_INSN(0xbf, 1, 6, 0, 0),
		BPF_RAW_INSN(0xbf, 2, 7, 0, 0),
		BPF_RAW_INSN(0x85, 0, 1, 0, 18),
		BPF_RAW_INSN(0x62, 10, 0, -8, 2),
		BPF_RAW_INSN(0x18, 1, 1, 0, 2147418117),
		BPF_RAW_INSN(0x00, 0, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 2, 10, 0, 0),
		BPF_RAW_INSN(0x07, 2, 0, 0, -8),
		BPF_RAW_INSN(0x85, 0, 0, 0, 1),
		BPF_RAW_INSN(0x15, 0, 0, 9, 0),
		BPF_RAW_INSN(0xbf, 9, 0, 0, 0),
		BPF_RAW_INSN(0xbf, 1, 9, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, 4),
		BPF_RAW_INSN(0x85, 0, 0, 0, 93),
		BPF_RAW_INSN(0xc3, 9, 7, 16, 1),
		BPF_RAW_INSN(0x7b, 9, 7, 8, 0),
		BPF_RAW_INSN(0xbf, 1, 9, 0, 0),
		BPF_RAW_INSN(0x07, 1, 0, 0, 4),
		BPF_RAW_INSN(0x85, 0, 0, 0, 94),
		BPF_RAW_INSN(0xbf, 0, 8, 0, 0),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 0, 0, 0, 0),
		BPF_RAW_INSN(0xb7, 7, 0, 0, 511),
		BPF_RAW_INSN(0xb7, 9, 0, 0, 65536),
		BPF_RAW_INSN(0x95, 0, 0, 0, 0),
	};

	if (getenv("USERBPF_VALGRIND"))
		SKIP("a million instructions verified: too slow under valgrind");
	SKIP_WITHOUT_KERNEL_BPF();
	/* (BPF_LOG_STATS: the instructions and states counted) */
	sides_load_agree(prog, ARRAY_SIZE(prog), BPF_PROG_TYPE_XDP, 4, E2BIG,
			 "may_goto loop over a packet");
}
