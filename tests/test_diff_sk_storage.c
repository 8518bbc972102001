/* BPF_MAP_TYPE_SK_STORAGE against the kernel: creation rules (BTF required, BPF_F_NO_PREALLOC,
 * an int key, no max_entries, value limits); the commands on a real socket's storage through its
 * fd (the same socket on both sides: the kernel keeps the value on the socket, userbpf in the
 * map), on other fds, and those the type refuses; bpf_sk_storage_get() and _delete() on a test
 * run's socket from cgroup skb and tc programs (fresh for each test run, kept through its
 * repeats); and the verifier's rules.  Skipped where the kernel's bpf() is unavailable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SKS BPF_MAP_TYPE_SK_STORAGE

static const char STRS[] = "\0int\0v\0a\0bpf_spin_lock\0l\0val\0long";
enum { S_INT = 1, S_V = 5, S_A = 7, S_LOCK = 9, S_L = 23, S_VAL = 25, S_LONG = 29,
       S_END = sizeof(STRS) };
enum { INT = 1, LONG, VAL, SPIN_LOCK, LOCKED };
static const uint32_t types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),				/* 1 int */
	T_INT(S_LONG, 8, 0, 0, 64),					/* 2 u64 */
	T_STRUCT(S_V, 1, 8), T_MEMBER(S_A, LONG, 0),			/* 3 struct v { u64 a; } */
	T_STRUCT(S_LOCK, 1, 4), T_MEMBER(S_VAL, INT, 0),		/* 4 bpf_spin_lock */
	T_STRUCT(S_V, 2, 8), T_MEMBER(S_A, INT, 0), T_MEMBER(S_L, SPIN_LOCK, 32), /* 5 */
};

static struct bpf_result sks_create(int s, int btf, uint32_t ks, uint32_t vs, uint32_t max,
				    uint32_t flags, uint32_t key_id, uint32_t value_id)
{
	return side_map_create_btf(s, SKS, ks, vs, max, flags, btf, key_id, value_id);
}

/* On each side a BTF blob and a map of struct v values on it; false if one fails. */
static bool sks_maps(int btf[NSIDES], int map[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		if (btf[s] < 0)
			return false;
		map[s] = sks_create(s, btf[s], 4, 8, 0, BPF_F_NO_PREALLOC, INT, VAL).rc;
		if (map[s] < 0)
			return false;
	}
	return true;
}

TEST(diff_sk_storage_create)
{
	static const struct {
		uint32_t ks, vs, max, flags, key_id, value_id;
	} shapes[] = {
		{ 4, 8, 0, BPF_F_NO_PREALLOC, INT, VAL },
		{ 4, 8, 0, 0, INT, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC | BPF_F_CLONE, INT, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC | BPF_F_RDONLY, INT, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC | BPF_F_RDONLY_PROG, INT, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC | BPF_F_MMAPABLE, INT, VAL },
		{ 4, 8, 1, BPF_F_NO_PREALLOC, INT, VAL },
		{ 8, 8, 0, BPF_F_NO_PREALLOC, LONG, VAL },
		{ 4, 0, 0, BPF_F_NO_PREALLOC, INT, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC, 0, 0 },
		{ 4, 8, 0, BPF_F_NO_PREALLOC, 0, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC, VAL, VAL },
		{ 4, 8, 0, BPF_F_NO_PREALLOC, INT, LONG },
		{ 4, 8, 0, BPF_F_NO_PREALLOC, INT, LOCKED },
		{ 4, 65407, 0, BPF_F_NO_PREALLOC, INT, 0 },
	};
	int btf[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		REQUIRE(btf[s] >= 0);
	}
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct bpf_result r[NSIDES];
		char what[32];

		for (int s = 0; s < NSIDES; s++)
			r[s] = sks_create(s, btf[s], shapes[i].ks, shapes[i].vs, shapes[i].max,
					  shapes[i].flags, shapes[i].key_id, shapes[i].value_id);
		snprintf(what, sizeof(what), "sk storage shape %zu", i);
		AGREE(what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
}

/* The commands on socket fds, other fds and bad ones: rc, errno and the values read back. */
TEST(diff_sk_storage_commands)
{
	int btf[NSIDES], fd[NSIDES], lfd[NSIDES], sock1, sock2, pipefd[2];

	SKIP_WITHOUT_KERNEL_BPF();
	sock1 = socket(AF_INET, SOCK_DGRAM, 0);
	sock2 = socket(AF_UNIX, SOCK_STREAM, 0);
	REQUIRE(sock1 >= 0 && sock2 >= 0 && pipe(pipefd) == 0);
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		REQUIRE(btf[s] >= 0);
		fd[s] = sks_create(s, btf[s], 4, 8, 0, BPF_F_NO_PREALLOC, INT, VAL).rc;
		lfd[s] = sks_create(s, btf[s], 4, 8, 0, BPF_F_NO_PREALLOC, INT, LOCKED).rc;
		REQUIRE(fd[s] >= 0 && lfd[s] >= 0);
	}
	struct {
		int cmd, key; /* key: -1 sock1, -2 sock2, -3 the pipe, -4 the map itself */
		uint64_t value, flags;
		bool locked;
	} steps[] = {
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, 0, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 11, BPF_EXIST, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 12, BPF_NOEXIST, false },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, 0, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 13, BPF_NOEXIST, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 14, BPF_EXIST, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 15, 3, false },
		{ BPF_MAP_UPDATE_ELEM, -1, 16, BPF_F_LOCK, false },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, BPF_F_LOCK, false },
		{ BPF_MAP_UPDATE_ELEM, -2, 21, BPF_ANY, false },
		{ BPF_MAP_LOOKUP_ELEM, -2, 0, 0, false },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, 0, false },
		{ BPF_MAP_UPDATE_ELEM, -3, 31, BPF_ANY, false },
		{ BPF_MAP_LOOKUP_ELEM, -3, 0, 0, false },
		{ BPF_MAP_DELETE_ELEM, -3, 0, 0, false },
		{ BPF_MAP_UPDATE_ELEM, -4, 41, BPF_ANY, false },
		{ BPF_MAP_UPDATE_ELEM, 999, 51, BPF_ANY, false },
		{ BPF_MAP_UPDATE_ELEM, 999, 51, 7, false },
		{ BPF_MAP_LOOKUP_ELEM, 999, 0, 0, false },
		{ BPF_MAP_DELETE_ELEM, -1, 0, 0, false },
		{ BPF_MAP_DELETE_ELEM, -1, 0, 0, false },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, 0, false },
		{ BPF_MAP_GET_NEXT_KEY, -2, 0, 0, false },
		{ BPF_MAP_LOOKUP_AND_DELETE_ELEM, -2, 0, 0, false },
		/* the map with a bpf_spin_lock in its value */
		{ BPF_MAP_UPDATE_ELEM, -1, 0x100000061ull, BPF_F_LOCK, true },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, BPF_F_LOCK, true },
		{ BPF_MAP_UPDATE_ELEM, -1, 0x100000062ull, BPF_F_LOCK | BPF_EXIST, true },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, 0, true },
		{ BPF_MAP_UPDATE_ELEM, -1, 0x100000063ull, BPF_ANY, true },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, BPF_F_LOCK, true },
		{ BPF_MAP_DELETE_ELEM, -1, 0, 0, true },
		{ BPF_MAP_LOOKUP_ELEM, -1, 0, BPF_F_LOCK, true },
		{ BPF_MAP_DELETE_ELEM, -2, 0, 0, false },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES];
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			int map = steps[i].locked ? lfd[s] : fd[s];
			int key = steps[i].key == -1   ? sock1
				  : steps[i].key == -2 ? sock2
				  : steps[i].key == -3 ? pipefd[0]
				  : steps[i].key == -4 ? map
						       : steps[i].key;

			v[s] = steps[i].cmd == BPF_MAP_UPDATE_ELEM ? steps[i].value : 0xeeee;
			r[s] = side_elem(s, steps[i].cmd, map, &key, &v[s], steps[i].flags);
		}
		snprintf(what, sizeof(what), "sk storage step %zu", i);
		if (AGREE(what, r) && !r[K].rc && steps[i].cmd == BPF_MAP_LOOKUP_ELEM)
			CHECK_EQ(v[U], v[K]);
	}
	/* what the type does not do */
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;
		int keys[2] = { sock1, sock2 };
		uint64_t vals[2];

		memset(&a, 0, sizeof(a));
		a.batch.map_fd = (uint32_t)fd[s];
		a.batch.keys = PTR_TO_U64(keys);
		a.batch.values = PTR_TO_U64(vals);
		a.batch.count = 2;
		CHECK_EQ(side_call(s, BPF_MAP_LOOKUP_BATCH, &a).err, 524); /* ENOTSUPP */
	}
	for (int s = 0; s < NSIDES; s++) {
		close(fd[s]);
		close(lfd[s]);
		close(btf[s]);
	}
	close(sock1);
	close(sock2);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* A program counting in its socket's storage (skb->sk, the test run's socket): with
 * BPF_SK_STORAGE_GET_F_CREATE, starting from the initial value at fp - 8 (cb[2]), after a get
 * without create (found: cb[1]); a delete of it, and of what is gone, when cb[3] says so
 * (results in cb[3]). cb[0]: the count. */
static int load_counter(int s, uint32_t type, int map)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		/* found = get(map, sk, NULL, 0) != NULL */
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_sk_storage_get),
		BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[1])),
		/* p = get(map, sk, &init, F_CREATE); init = cb[2] */
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, offsetof(struct __sk_buff, cb[2])),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_MOV64_IMM(BPF_REG_4, BPF_SK_STORAGE_GET_F_CREATE),
		BPF_EMIT_CALL(BPF_FUNC_sk_storage_get),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[0])),
		/* if cb[3]: cb[3] = delete() * 16 + delete() (the second: nothing left) */
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, offsetof(struct __sk_buff, cb[3])),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 13),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_EMIT_CALL(BPF_FUNC_sk_storage_delete),
		BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_8, 16),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_EMIT_CALL(BPF_FUNC_sk_storage_delete),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
		BPF_ALU64_REG(BPF_OR, BPF_REG_8, BPF_REG_0),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_8, offsetof(struct __sk_buff, cb[3])),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, type, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_sk_storage_prog)
{
	static const struct {
		uint32_t repeat, init, del;
	} runs[] = { { 1, 0, 0 }, { 1, 0, 0 }, { 5, 0, 0 }, { 3, 100, 0 }, { 1, 0, 1 },
		     { 4, 7, 1 },  { 0, 9, 0 } };
	static const uint32_t prog_types[] = { BPF_PROG_TYPE_CGROUP_SKB, BPF_PROG_TYPE_SCHED_CLS };
	int btf[NSIDES], map[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(sks_maps(btf, map));
	for (size_t t = 0; t < 2; t++) {
		int prog[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			prog[s] = load_counter(s, prog_types[t], map[s]);
			REQUIRE(prog[s] >= 0);
		}
		for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
			uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
			struct __sk_buff in, out[NSIDES];
			struct bpf_result r[NSIDES];
			uint32_t ret[NSIDES], n = runs[i].repeat ? runs[i].repeat : 1;
			char what[48];

			memset(&in, 0, sizeof(in));
			in.cb[2] = runs[i].init;
			in.cb[3] = runs[i].del;
			for (int s = 0; s < NSIDES; s++) {
				memset(&out[s], 0, sizeof(out[s]));
				r[s] = side_test_run_ctx(s, prog[s], pkt, sizeof(pkt), runs[i].repeat,
							 &in, sizeof(in), &out[s], sizeof(out[s]),
							 &ret[s]);
			}
			snprintf(what, sizeof(what), "type %u run %zu", prog_types[t], i);
			if (!AGREE(what, r) || r[K].rc)
				continue;
			CHECK_EQ(ret[U], ret[K]);
			for (int c = 0; c < 4; c++)
				CHECK_EQ(out[U].cb[c], out[K].cb[c]);
			/* fresh storage each run, kept through its repeats (deleted each
			 * round when asked: then every round starts again) */
			CHECK_EQ(out[U].cb[0], runs[i].del ? runs[i].init + 1 : runs[i].init + n);
		}
		for (int s = 0; s < NSIDES; s++)
			close(prog[s]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(btf[s]);
	}
}

/* The verifier: the socket must be checked for NULL; the map and the helpers go together; the
 * initial value is the map's value; which program types have the helpers. */
TEST(diff_sk_storage_verifier)
{
	int btf[NSIDES], map[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		REQUIRE(btf[s] >= 0);
		map[s] = sks_create(s, btf[s], 4, 8, 0, BPF_F_NO_PREALLOC, INT, VAL).rc;
		hash[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		REQUIRE(map[s] >= 0 && hash[s] >= 0);
	}
	static const struct {
		const char *what;
		uint32_t type, eat;
		bool hash, no_null_check, lookup;
		struct bpf_insn sk, value, flags;
	} cases[] = {
#define SKB_SK BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, sk))
#define NO_VALUE BPF_MOV64_IMM(BPF_REG_3, 0)
#define STACK_VALUE BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8)
#define F_CREATE BPF_MOV64_IMM(BPF_REG_4, BPF_SK_STORAGE_GET_F_CREATE)
		{ "cgroup skb", BPF_PROG_TYPE_CGROUP_SKB, 0, false, false, false, SKB_SK, NO_VALUE,
		  F_CREATE },
		{ "tc, an initial value", BPF_PROG_TYPE_SCHED_CLS, 0, false, false, false, SKB_SK,
		  STACK_VALUE, F_CREATE },
		{ "no NULL check", BPF_PROG_TYPE_CGROUP_SKB, 0, false, true, false, SKB_SK, NO_VALUE,
		  F_CREATE },
		{ "a hash map", BPF_PROG_TYPE_CGROUP_SKB, 0, true, false, false, SKB_SK, NO_VALUE,
		  F_CREATE },
		{ "map_lookup_elem", BPF_PROG_TYPE_CGROUP_SKB, 0, false, false, true,
		  BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), NO_VALUE, F_CREATE },
		{ "the ctx as the socket", BPF_PROG_TYPE_CGROUP_SKB, 0, false, false, false,
		  BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), NO_VALUE, F_CREATE },
		{ "a value of the wrong size", BPF_PROG_TYPE_CGROUP_SKB, 0, false, false, false,
		  SKB_SK, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -4), F_CREATE },
		{ "a scalar as the value", BPF_PROG_TYPE_CGROUP_SKB, 0, false, false, false, SKB_SK,
		  BPF_MOV64_IMM(BPF_REG_3, 8), F_CREATE },
		{ "unknown flags", BPF_PROG_TYPE_SCHED_CLS, 0, false, false, false, SKB_SK, NO_VALUE,
		  BPF_MOV64_REG(BPF_REG_4, BPF_REG_1) },
		{ "XDP", BPF_PROG_TYPE_XDP, 0, false, false, false,
		  BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), NO_VALUE, F_CREATE },
		{ "a socket filter", BPF_PROG_TYPE_SOCKET_FILTER, 0, false, false, false, SKB_SK,
		  NO_VALUE, F_CREATE },
		{ "a cgroup sock program, the ctx", BPF_PROG_TYPE_CGROUP_SOCK, 0, false, false,
		  false, BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), NO_VALUE, F_CREATE },
		{ "sock_addr, ctx->sk", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT,
		  false, false, false,
		  BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, offsetof(struct bpf_sock_addr, sk)),
		  NO_VALUE, F_CREATE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn p[NSIDES][16];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn insns[] = {
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 3),
				cases[i].sk,
				BPF_JMP_IMM(BPF_JNE, BPF_REG_2, 0, 2),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
				BPF_LD_MAP_FD(BPF_REG_1, cases[i].hash ? hash[s] : map[s]),
				BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
				cases[i].value,
				cases[i].flags,
				BPF_EMIT_CALL(cases[i].lookup ? BPF_FUNC_map_lookup_elem
							      : BPF_FUNC_sk_storage_get),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};

			/* no NULL check: on to the call (a lookup's key: r2 = fp - 8) */
			if (cases[i].no_null_check || cases[i].lookup)
				insns[2] = insns[3] = insns[4] = BPF_MOV64_IMM(BPF_REG_0, 1);
			if (cases[i].lookup)
				insns[2] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8);
			memcpy(p[s], insns, sizeof(insns));
		}
		verdicts_agree_eat_at(__FILE__, __LINE__, cases[i].what, cases[i].type,
				      cases[i].eat, p[K], p[U], 13);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(hash[s]);
		close(btf[s]);
	}
}

/* A value deleted while the program holds it stays the program's until the run ends (the
 * kernel frees it after an RCU grace period): written and read back after the delete. */
TEST(diff_sk_storage_value_after_delete)
{
	int btf[NSIDES], map[NSIDES], prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(sks_maps(btf, map));
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, offsetof(struct __sk_buff, sk)),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 2),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
			BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_MOV64_IMM(BPF_REG_4, BPF_SK_STORAGE_GET_F_CREATE),
			BPF_EMIT_CALL(BPF_FUNC_sk_storage_get),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
			BPF_MOV64_IMM(BPF_REG_0, 2),
			BPF_EXIT_INSN(),
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
			BPF_EMIT_CALL(BPF_FUNC_sk_storage_delete),
			BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
			BPF_ST_MEM(BPF_DW, BPF_REG_6, 0, 40),
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
			BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_8), /* 40 + delete's 0 */
			BPF_EXIT_INSN(),
		};
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, insns,
					 sizeof(insns) / sizeof(insns[0]));
		REQUIRE(prog[s] >= 0);
	}
	uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
	uint32_t ret[NSIDES];
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
	if (AGREE("value after delete", r) && !r[K].rc) {
		CHECK_EQ(ret[K], 40);
		CHECK_EQ(ret[U], ret[K]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(prog[s]);
		close(map[s]);
		close(btf[s]);
	}
}
