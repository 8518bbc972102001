/* BPF_MAP_TYPE_CGROUP_STORAGE and BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, differentially: creation
 * rules (key and value sizes, flags, max_entries, BTF keys); the commands, which find nothing in
 * a map no attached program has filled; bpf_get_local_storage() from cgroup skb programs through
 * BPF_PROG_TEST_RUN, whose storage is fresh for each test run and kept through its repeats; the
 * verifier's rules (flags, map types, bounds, one map of each type per program); and program
 * arrays, whose programs must use the same storage maps.  Skipped where the kernel's bpf() is
 * unavailable, but for the counting program's runs, which then run on userbpf alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SHARED BPF_MAP_TYPE_CGROUP_STORAGE
#define PERCPU BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE

TEST(diff_cgroup_storage_create)
{
	static const struct map_shape shapes[] = {
		{ 8, 8, 0, 0 },
		{ 16, 8, 0, 0 },
		{ 4, 8, 0, 0 },
		{ 12, 8, 0, 0 },
		{ 0, 8, 0, 0 },
		{ 32, 8, 0, 0 },
		{ 8, 0, 0, 0 },
		{ 8, 1, 0, 0 },
		{ 8, 8, 1, 0 },
		{ 8, 8, 1024, 0 },
		{ 8, 32768, 0, 0 },
		{ 8, 32769, 0, 0 },
		{ 8, 65407, 0, 0 },
		{ 8, 65408, 0, 0 },
		{ 8, 1u << 20, 0, 0 },
		{ 8, 8, 0, BPF_F_NO_PREALLOC },
		{ 8, 8, 0, BPF_F_NUMA_NODE },
		{ 8, 8, 0, BPF_F_RDONLY },
		{ 8, 8, 0, BPF_F_WRONLY },
		{ 8, 8, 0, BPF_F_RDONLY | BPF_F_WRONLY },
		{ 8, 8, 0, BPF_F_RDONLY_PROG },
		{ 8, 8, 0, BPF_F_WRONLY_PROG },
		{ 8, 8, 0, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG },
		{ 8, 8, 0, BPF_F_MMAPABLE },
		{ 8, 8, 0, BPF_F_ZERO_SEED },
		{ 16, 64, 0, BPF_F_INNER_MAP },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(SHARED, shapes);
	CREATES_AGREE(PERCPU, shapes);
}

static const char STRS[] = "\0int\0k\0a\0b\0c\0bpf_spin_lock\0v\0l\0val";
enum { S_INT = 1, S_K = 5, S_A = 7, S_B = 9, S_C = 11, S_LOCK = 13, S_V = 27, S_L = 29,
       S_VAL = 31, S_END = sizeof(STRS) };

/* Type ids of the blob below. */
enum {
	U32 = 1, U64, U16, KEY, SWAPPED, THREE, BITFIELD, SIGNED64, SPIN_LOCK, LOCKED, VAL,
	NTYPES
};

#define INFO_KF(kind, vlen) (((uint32_t)1 << 31) | ((uint32_t)(kind) << 24) | (uint32_t)(vlen))
static const uint32_t types[] = {
	T_INT(S_INT, 4, 0, 0, 32),					/* 1 u32 */
	T_INT(S_INT, 8, 0, 0, 64),					/* 2 u64 */
	T_INT(S_INT, 2, 0, 0, 16),					/* 3 u16 */
	T_STRUCT(S_K, 2, 16), T_MEMBER(S_A, U64, 0), T_MEMBER(S_B, U32, 64), /* 4 the key */
	T_STRUCT(S_K, 2, 16), T_MEMBER(S_A, U32, 0), T_MEMBER(S_B, U64, 64), /* 5 swapped */
	T_STRUCT(S_K, 3, 16), T_MEMBER(S_A, U64, 0), T_MEMBER(S_B, U16, 64),
	T_MEMBER(S_C, U16, 80),						/* 6 three members */
	S_K, INFO_KF(BTF_KIND_STRUCT, 2), 16, T_MEMBER(S_A, U64, 0),
	T_MEMBER(S_B, U32, (32u << 24) | 64),				/* 7 b a bitfield */
	T_INT(S_INT, 8, BTF_INT_SIGNED, 0, 64),				/* 8 s64 */
	T_STRUCT(S_LOCK, 1, 4), T_MEMBER(S_VAL, U32, 0),		/* 9 bpf_spin_lock */
	T_STRUCT(S_V, 2, 8), T_MEMBER(S_A, U32, 0), T_MEMBER(S_L, SPIN_LOCK, 32), /* 10 */
	T_STRUCT(S_V, 1, 8), T_MEMBER(S_A, U64, 0),			/* 11 a plain value */
};

/* BTF keys: the 16-byte struct of a u64 and a u32, or a 64-bit integer for 8-byte keys; a
 * bpf_spin_lock in the value (shared storage only). */
TEST(diff_cgroup_storage_btf)
{
	static const struct {
		uint32_t ks, key_id, value_id;
	} keys[] = {
		{ 16, KEY, VAL },      { 16, SWAPPED, VAL }, { 16, THREE, VAL }, { 16, BITFIELD, VAL },
		{ 8, U64, VAL },       { 8, SIGNED64, VAL }, { 4, U32, VAL },    { 16, U64, VAL },
		{ 8, KEY, VAL },       { 8, 0, VAL },        { 8, U64, LOCKED }, { 16, KEY, LOCKED },
	};
	int btf[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		REQUIRE(btf[s] >= 0);
	}
	for (int t = 0; t < 2; t++) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			struct bpf_result r[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++)
				r[s] = side_map_create_btf(s, t ? PERCPU : SHARED, keys[i].ks, 8,
							   0, 0, btf[s], keys[i].key_id,
							   keys[i].value_id);
			snprintf(what, sizeof(what), "type %d, BTF case %zu", t, i);
			AGREE(what, r);
			for (int s = 0; s < NSIDES; s++)
				if (r[s].rc >= 0)
					close(r[s].rc);
		}
	}
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
}

/* Every command on empty maps of both key sizes: what the kernel answers with nothing
 * attached. */
TEST(diff_cgroup_storage_commands)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		for (uint32_t ks = 8; ks <= 16; ks += 8) {
			uint8_t key[16] = { 1, 2, 3 }, next[16], value[8 * 1024] = { 0 };
			int fd[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				fd[s] = side_map_create(s, t ? PERCPU : SHARED, ks, 12, 0, 0).rc;
				REQUIRE(fd[s] >= 0);
			}
			for (int c = 0; c < 14; c++) {
				struct bpf_result r[NSIDES];
				char what[48];

				for (int s = 0; s < NSIDES; s++) {
					switch (c) {
					case 0:
						r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], key,
								 value, 0);
						break;
					case 1:
						r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], key,
								 value, BPF_F_LOCK);
						break;
					case 2: case 3: case 4: case 5:
						r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], key,
								 value, (uint64_t)(c - 2));
						break;
					case 6:
						r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], key,
								 value, BPF_F_LOCK);
						break;
					case 7:
						r[s] = side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], key,
								 NULL, 0);
						break;
					case 8:
						r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], NULL,
								 next, 0);
						break;
					case 9:
						r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], key,
								 next, 0);
						break;
					case 10:
						r[s] = side_elem(s, BPF_MAP_LOOKUP_AND_DELETE_ELEM,
								 fd[s], key, value, 0);
						break;
					default: {
						static const int cmds[] = {
							BPF_MAP_LOOKUP_BATCH,
							BPF_MAP_UPDATE_BATCH,
							BPF_MAP_DELETE_BATCH,
						};
						union bpf_attr a;
						uint32_t count = 1;

						memset(&a, 0, sizeof(a));
						a.batch.map_fd = (uint32_t)fd[s];
						a.batch.keys = PTR_TO_U64(key);
						a.batch.values = PTR_TO_U64(value);
						a.batch.out_batch = PTR_TO_U64(next);
						a.batch.count = count;
						r[s] = side_call(s, cmds[c - 11], &a);
						break;
					}
					}
				}
				snprintf(what, sizeof(what), "type %d key %u command %d", t, ks, c);
				AGREE(what, r);
			}
			for (int s = 0; s < NSIDES; s++)
				close(fd[s]);
		}
	}
}

/* A cgroup skb program counting in its storage: shared { runs, bytes } and a per-CPU u64 that
 * grows by 3 a run; it writes runs, bytes and the per-CPU value into cb[0..2] and returns
 * runs & 1. */
static int load_counter(int s, int shared, int percpu)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_MAP_FD(BPF_REG_1, shared),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_7, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, offsetof(struct __sk_buff, len)),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_7, BPF_REG_1, 8),
		BPF_LD_MAP_FD(BPF_REG_1, percpu),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 3),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[2])),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_7, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[0])),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_7, 8),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[1])),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_7, 0),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, insns, sizeof(insns) / sizeof(insns[0]));
}

/* BPF_PROG_TEST_RUN with a zeroed __sk_buff in and out: rc/errno, and retval and cb[] through
 * *out. */
static struct bpf_result run_ctx(int s, int prog, const void *pkt, uint32_t len, uint32_t repeat,
				 uint32_t *retval, struct __sk_buff *out)
{
	struct __sk_buff in;

	memset(&in, 0, sizeof(in));
	memset(out, 0, sizeof(*out));
	return side_test_run_ctx(s, prog, pkt, len, repeat, &in, sizeof(in), out, sizeof(*out),
				 retval);
}

/* Runs on userbpf alone where the kernel's bpf() is unavailable (the expected counts are
 * known), on both sides otherwise. */
TEST(cgroup_storage_prog)
{
	static const uint32_t repeats[] = { 1, 1, 2, 7, 0, 100, 1, 33 };
	int shared[NSIDES], percpu[NSIDES], prog[NSIDES], first = kernel_bpf_available() ? K : U;
	uint8_t pkt[128];

	for (int s = first; s < NSIDES; s++) {
		shared[s] = side_map_create(s, SHARED, 16, 16, 0, 0).rc;
		percpu[s] = side_map_create(s, PERCPU, 8, 8, 0, 0).rc;
		REQUIRE(shared[s] >= 0 && percpu[s] >= 0);
		prog[s] = load_counter(s, shared[s], percpu[s]);
		REQUIRE(prog[s] >= 0);
	}
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08; /* IPv4 */
	pkt[14] = 0x45;
	for (size_t i = 0; i < sizeof(repeats) / sizeof(repeats[0]); i++) {
		struct bpf_result r[NSIDES];
		struct __sk_buff out[NSIDES];
		uint32_t ret[NSIDES], len = 40 + (uint32_t)i * 11, runs = repeats[i] ? repeats[i] : 1;
		char what[48];

		for (int s = first; s < NSIDES; s++)
			r[s] = run_ctx(s, prog[s], pkt, len, repeats[i], &ret[s], &out[s]);
		snprintf(what, sizeof(what), "counter run %zu (repeat %u)", i, repeats[i]);
		if (first == K) {
			if (!AGREE(what, r) || r[K].rc)
				break;
			CHECK_EQ(ret[U], ret[K]);
			for (int c = 0; c < 3; c++)
				CHECK_EQ(out[U].cb[c], out[K].cb[c]);
		}
		REQUIRE(r[U].rc == 0);
		/* fresh storage each test run, the same through its repeats */
		CHECK_EQ(out[U].cb[0], runs);
		CHECK_EQ(out[U].cb[1], runs * (len - 14)); /* (cgroup skb: len from the IP header) */
		CHECK_EQ(out[U].cb[2], 3 * runs);
		CHECK_EQ(ret[U], runs & 1);
	}
	/* the maps stay empty: the runs' storage was never linked into them */
	for (int s = first; s < NSIDES; s++) {
		uint64_t key[2] = { 0, 0 }, next[2];

		CHECK(side_elem(s, BPF_MAP_GET_NEXT_KEY, shared[s], NULL, next, 0).err == ENOENT);
		CHECK(side_elem(s, BPF_MAP_GET_NEXT_KEY, percpu[s], key, next, 0).err == ENOENT);
	}
	for (int s = first; s < NSIDES; s++) {
		close(prog[s]);
		close(shared[s]);
		close(percpu[s]);
	}
}

/* The verifier: flags must be a known 0; storage maps only with the helper and the helper only
 * with them; the value's bounds; one map of each type; the program types. */
TEST(diff_cgroup_storage_verifier)
{
	int shared[NSIDES], shared2[NSIDES], percpu[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		shared[s] = side_map_create(s, SHARED, 8, 16, 0, 0).rc;
		shared2[s] = side_map_create(s, SHARED, 16, 16, 0, 0).rc;
		percpu[s] = side_map_create(s, PERCPU, 8, 12, 0, 0).rc;
		hash[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 8, 16, 4, 0).rc;
		REQUIRE(shared[s] >= 0 && shared2[s] >= 0 && percpu[s] >= 0 && hash[s] >= 0);
	}
	/* one map: insn 0 loads it, then r2 and the call, then what the case does with r0 */
	static const struct {
		const char *what;
		uint32_t type;
		int map; /* 0 shared, 1 percpu, 2 hash */
		struct bpf_insn flags, use, use2;
		int func;
	} cases[] = {
		{ "flags 0, read the value", BPF_PROG_TYPE_CGROUP_SKB, 0, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 8), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "flags 1", BPF_PROG_TYPE_CGROUP_SKB, 0, BPF_MOV64_IMM(BPF_REG_2, 1),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "flags unknown", BPF_PROG_TYPE_CGROUP_SKB, 0,
		  BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, 0), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_FUNC_get_local_storage },
		{ "read past the value", BPF_PROG_TYPE_CGROUP_SKB, 0, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 12), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "per-CPU, write the value", BPF_PROG_TYPE_CGROUP_SKB, 1,
		  BPF_MOV64_IMM(BPF_REG_2, 0), BPF_ST_MEM(BPF_W, BPF_REG_0, 8, 5),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_FUNC_get_local_storage },
		{ "per-CPU, write past the value", BPF_PROG_TYPE_CGROUP_SKB, 1,
		  BPF_MOV64_IMM(BPF_REG_2, 0), BPF_ST_MEM(BPF_DW, BPF_REG_0, 8, 5),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_FUNC_get_local_storage },
		{ "a hash map", BPF_PROG_TYPE_CGROUP_SKB, 2, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "map_lookup_elem", BPF_PROG_TYPE_CGROUP_SKB, 0, BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_map_lookup_elem },
		{ "a cgroup sock program", BPF_PROG_TYPE_CGROUP_SOCK, 0, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "a socket filter", BPF_PROG_TYPE_SOCKET_FILTER, 0, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "XDP", BPF_PROG_TYPE_XDP, 0, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
		{ "a tc classifier", BPF_PROG_TYPE_SCHED_CLS, 1, BPF_MOV64_IMM(BPF_REG_2, 0),
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_0, 1),
		  BPF_FUNC_get_local_storage },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int *map = cases[i].map == 0 ? shared : cases[i].map == 1 ? percpu : hash;
		struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_LD_MAP_FD(BPF_REG_1, 0),
			cases[i].flags,
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 0),
			BPF_EMIT_CALL(cases[i].func),
			cases[i].use,
			cases[i].use2,
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};

		if (cases[i].func == BPF_FUNC_map_lookup_elem) { /* a key at fp - 8 */
			insns[0] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0);
			insns[4] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8);
		}
		VERDICTS_AGREE_MAP(cases[i].what, cases[i].type, insns,
				   sizeof(insns) / sizeof(insns[0]), map, 1);
	}

	/* two maps in one program: two shared ones are refused, a shared and a per-CPU one (or
	 * the same one twice) are not */
	for (int c = 0; c < 3; c++) {
		struct bpf_insn p[NSIDES][12];
		char what[32];

		for (int s = 0; s < NSIDES; s++) {
			int second = c == 0 ? shared2[s] : c == 1 ? percpu[s] : shared[s];
			struct bpf_insn insns[] = {
				BPF_LD_MAP_FD(BPF_REG_1, shared[s]),
				BPF_MOV64_IMM(BPF_REG_2, 0),
				BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
				BPF_LD_MAP_FD(BPF_REG_1, second),
				BPF_MOV64_IMM(BPF_REG_2, 0),
				BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
				BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
				BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};

			memcpy(p[s], insns, sizeof(insns));
		}
		snprintf(what, sizeof(what), "two maps, case %d", c);
		VERDICTS_AGREE(what, BPF_PROG_TYPE_CGROUP_SKB, p[K], p[U], 11);
	}
	/* a direct value load of a storage map */
	{
		struct bpf_insn insns[] = {
			BPF_LD_MAP_VALUE(BPF_REG_1, 0, 0),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP("direct value", BPF_PROG_TYPE_CGROUP_SKB, insns, 4, shared, 0);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(shared[s]);
		close(shared2[s]);
		close(percpu[s]);
		close(hash[s]);
	}
}

/* A program array's programs use the storage maps of its owner (the first program in or using
 * it), but for one with none and no tail call. */
TEST(diff_cgroup_storage_prog_array)
{
	int m1[NSIDES], m2[NSIDES], parray[NSIDES];
	int with_m1[NSIDES], with_m2[NSIDES], without[NSIDES], caller_m2[NSIDES];
	int caller_none[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		m1[s] = side_map_create(s, SHARED, 8, 8, 0, 0).rc;
		m2[s] = side_map_create(s, SHARED, 8, 8, 0, 0).rc;
		parray[s] = side_map_create(s, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0).rc;
		REQUIRE(m1[s] >= 0 && m2[s] >= 0 && parray[s] >= 0);
		for (int v = 0; v < 3; v++) {
			/* *storage += 10; cb[0] = *storage; return 1 */
			struct bpf_insn insns[] = {
				BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
				BPF_LD_MAP_FD(BPF_REG_1, v == 0 ? m1[s] : m2[s]),
				BPF_MOV64_IMM(BPF_REG_2, 0),
				BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
				BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 10),
				BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
				BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct __sk_buff, cb[0])),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};
			struct bpf_insn plain[] = {
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};
			int fd = v < 2 ? side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, insns,
							 sizeof(insns) / sizeof(insns[0]))
				       : side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, plain, 2);

			REQUIRE(fd >= 0);
			(v == 0 ? with_m1 : v == 1 ? with_m2 : without)[s] = fd;
		}
	}
	/* slot 0: the owner, with m1; then one with m2, one without */
	int order[][2] = { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 0 } };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct bpf_result r[NSIDES];
		char what[32];

		for (int s = 0; s < NSIDES; s++) {
			uint32_t key = (uint32_t)order[i][0];
			int v = order[i][1];
			uint32_t fd = (uint32_t)(v == 0 ? with_m1 : v == 1 ? with_m2 : without)[s];

			r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, parray[s], &key, &fd, 0);
		}
		snprintf(what, sizeof(what), "prog array update %zu", i);
		AGREE(what, r);
	}
	/* callers using the array: one with m2, one with none; both tail-call */
	for (int c = 0; c < 2; c++) {
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn insns[] = {
				BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
				BPF_LD_MAP_FD(BPF_REG_1, m2[s]),
				BPF_MOV64_IMM(BPF_REG_2, 0),
				BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
				BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
				BPF_LD_MAP_FD(BPF_REG_2, parray[s]),
				BPF_MOV64_IMM(BPF_REG_3, 0),
				BPF_EMIT_CALL(BPF_FUNC_tail_call),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};

			if (c == 1) /* no storage: a no-op where the map and the call were */
				for (int k = 1; k < 5; k++)
					insns[k] = BPF_MOV64_IMM(BPF_REG_0, 0);
			r[s].rc = side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, insns,
						 sizeof(insns) / sizeof(insns[0]));
			r[s].err = r[s].rc < 0 ? errno : 0;
			(c == 0 ? caller_m2 : caller_none)[s] = r[s].rc;
		}
		AGREE(c == 0 ? "caller with another map" : "caller without a map", r);
	}
	/* a caller with the owner's map: *storage += 1, then the tail call, which finds the same
	 * storage (cb[0] = 11 a run) */
	int caller_m1[NSIDES];
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_LD_MAP_FD(BPF_REG_1, m1[s]),
			BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
			BPF_MOV64_IMM(BPF_REG_1, 1),
			BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_LD_MAP_FD(BPF_REG_2, parray[s]),
			BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_EMIT_CALL(BPF_FUNC_tail_call),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		caller_m1[s] = side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, insns,
					      sizeof(insns) / sizeof(insns[0]));
		REQUIRE(caller_m1[s] >= 0);
	}
	for (uint32_t repeat = 1; repeat <= 3; repeat++) {
		uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
		struct bpf_result r[NSIDES];
		struct __sk_buff out[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = run_ctx(s, caller_m1[s], pkt, sizeof(pkt), repeat, &ret[s], &out[s]);
		if (!AGREE("tail call with storage", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(out[U].cb[0], out[K].cb[0]);
		CHECK_EQ(ret[U], 1);
		CHECK_EQ(out[U].cb[0], 11 * repeat);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(caller_m1[s]);
		if (caller_m2[s] >= 0)
			close(caller_m2[s]);
		if (caller_none[s] >= 0)
			close(caller_none[s]);
		close(with_m1[s]);
		close(with_m2[s]);
		close(without[s]);
		close(parray[s]);
		close(m1[s]);
		close(m2[s]);
	}
}

