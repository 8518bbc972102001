/* bpf_spin_lock in map values, differentially: bpf() copies values around the lock (a caller
 * never reads or writes it), BPF_F_LOCK lookups and updates with their flag rules, a tc program
 * counting under the lock through TEST_RUN, and two threads running it at once, whose counts
 * must add up exactly on both sides.  (The verifier's rules: tests/test_verifier_lock.c.)
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

/* 1 u32, 2 struct bpf_spin_lock, 3 struct v { u32 count; struct bpf_spin_lock l; u64 tag; } */
static const char STRS[] = "\0u32\0bpf_spin_lock\0val\0v\0count\0l\0u64\0tag";
static const uint32_t types[] = {
	T_INT(1, 4, 0, 0, 32),
	T_STRUCT(5, 1, 4), T_MEMBER(19, 1, 0),
	T_STRUCT(23, 3, 16), T_MEMBER(25, 1, 0), T_MEMBER(31, 2, 32), T_MEMBER(39, 4, 64),
	T_INT(33, 8, 0, 0, 64),
};

struct v {
	uint32_t count;
	uint32_t lock;
	uint64_t tag;
};

static int lock_map_flags(int s, uint32_t type, int *btf, uint32_t flags);

static int lock_map(int s, uint32_t type, int *btf)
{
	return lock_map_flags(s, type, btf, 0);
}

static int lock_map_flags(int s, uint32_t type, int *btf, uint32_t flags)
{
	*btf = side_btf_load(s, types, sizeof(types) / 4, STRS, sizeof(STRS));
	if (*btf < 0)
		return -1;
	return side_map_create_btf(s, type, 4, sizeof(struct v), 4, flags, *btf, 1, 3).rc;
}

/* Random commands (updates with garbage in the lock word, BPF_F_LOCK or not, every flag;
 * lookups with and without BPF_F_LOCK) on a hash and an array: same results, same values, and
 * the lock word always reads 0. */
TEST(diff_lock_commands)
{
	static const uint32_t map_types[] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY };
	uint64_t rng = 0x10c4ull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		int fd[NSIDES], btf[NSIDES], ok = 0;

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = lock_map(s, map_types[t], &btf[s]);
			REQUIRE(fd[s] >= 0);
		}
		for (int i = 0; i < 400; i++) {
			uint64_t x = xorshift64(&rng);
			uint32_t key = (uint32_t)(x % 5), op = (uint32_t)(x >> 8) % 3;
			uint64_t flags = ((x >> 12) % 4 == 0 ? 0 : BPF_F_LOCK) | (x >> 16) % 3;
			struct bpf_result r[NSIDES];
			struct v v[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++) {
				v[s].count = (uint32_t)(x >> 20);
				v[s].lock = 0xdeadbeef; /* never stored */
				v[s].tag = x;
				r[s] = side_elem(s, op == 0 ? BPF_MAP_LOOKUP_ELEM
						 : op == 1 ? BPF_MAP_UPDATE_ELEM
							   : BPF_MAP_DELETE_ELEM,
						 fd[s], &key, op == 2 ? NULL : &v[s],
						 op == 2 ? 0 : op == 0 ? flags & BPF_F_LOCK : flags);
			}
			snprintf(what, sizeof(what), "map type %u step %d op %u flags %#llx",
				 map_types[t], i, op, (unsigned long long)flags);
			if (!AGREE(what, r))
				break;
			if (op == 0 && r[K].rc == 0) {
				CHECK(!memcmp(&v[K], &v[U], sizeof(v[K])));
				CHECK_EQ(v[U].lock, 0);
			}
			ok += r[K].rc == 0;
		}
		CHECK(ok > 100);
		for (int s = 0; s < NSIDES; s++) {
			close(fd[s]);
			close(btf[s]);
		}
	}
}

/* BPF_F_LOCK beyond single elements: the batch commands (elem_flags) and LOOKUP_AND_DELETE,
 * on hashes and arrays with and without a lock, random flags (good, BPF_F_LOCK, bad): same
 * results, counts, keys and values (the lock word 0), and the same elements left.  Hashes are
 * BPF_F_ZERO_SEED, so their batches come in the same order. */
TEST(diff_lock_batch)
{
	static const uint32_t map_types[] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY };
	static const uint64_t eflags[] = { 0, BPF_F_LOCK, BPF_F_LOCK, 8, BPF_F_LOCK | 2 };
	static const int cmds[] = { BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_AND_DELETE_BATCH,
				    BPF_MAP_UPDATE_BATCH, BPF_MAP_DELETE_BATCH,
				    BPF_MAP_LOOKUP_AND_DELETE_ELEM, BPF_MAP_UPDATE_ELEM };
	uint64_t rng = 0xba7c4ull;
	int agree = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 4; t++) {
		uint32_t type = map_types[t % 2];
		int fd[NSIDES], btf[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			/* t >= 2: the same map without BTF, so without a lock */
			if (t >= 2) {
				fd[s] = side_map_create(s, type, 4, sizeof(struct v), 4,
							type == BPF_MAP_TYPE_HASH ? BPF_F_ZERO_SEED
										  : 0).rc;
				btf[s] = -1;
			} else {
				fd[s] = lock_map_flags(s, type, &btf[s],
						       type == BPF_MAP_TYPE_HASH ? BPF_F_ZERO_SEED : 0);
			}
			REQUIRE(fd[s] >= 0);
		}
		for (int i = 0; i < 300; i++) {
			uint64_t x = xorshift64(&rng);
			int cmd = cmds[x % 6];
			uint32_t count = 1 + (uint32_t)(x >> 8) % 5, keys[NSIDES][5], in[NSIDES],
				 out[NSIDES], key = (uint32_t)(x >> 16) % 5;
			uint64_t ef = eflags[(x >> 24) % 5], bf = (x >> 28) % 8 == 0;
			struct v vals[NSIDES][5];
			struct bpf_result r[NSIDES];
			uint32_t got[NSIDES] = { 0, 0 };
			char what[96];

			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				for (uint32_t k = 0; k < 5; k++) {
					keys[s][k] = (uint32_t)(x >> (k * 3)) % 5;
					vals[s][k] = (struct v){ (uint32_t)(x >> 32) + k, 0xdeadbeef, x };
				}
				memset(&a, 0, sizeof(a));
				if (cmd == BPF_MAP_LOOKUP_AND_DELETE_ELEM || cmd == BPF_MAP_UPDATE_ELEM) {
					r[s] = side_elem(s, cmd, fd[s], &key, &vals[s][0],
							 cmd == BPF_MAP_UPDATE_ELEM ? ef & ~8ull : ef);
					continue;
				}
				in[s] = 0;
				a.batch.in_batch = (x >> 40) % 3 == 0 ? PTR_TO_U64(&in[s]) : 0;
				a.batch.out_batch = PTR_TO_U64(&out[s]);
				a.batch.keys = PTR_TO_U64(keys[s]);
				a.batch.values = PTR_TO_U64(vals[s]);
				a.batch.count = count;
				a.batch.map_fd = (uint32_t)fd[s];
				a.batch.elem_flags = ef;
				a.batch.flags = bf;
				r[s] = side_call(s, cmd, &a);
				got[s] = a.batch.count;
			}
			snprintf(what, sizeof(what), "map %d cmd %d elem_flags %#llx flags %llu step %d",
				 t, cmd, (unsigned long long)ef, (unsigned long long)bf, i);
			if (!AGREE(what, r))
				break;
			if (cmd != BPF_MAP_LOOKUP_AND_DELETE_ELEM && cmd != BPF_MAP_UPDATE_ELEM)
				CHECK_EQ(got[K], got[U]);
			if (r[K].rc == 0 && (cmd == BPF_MAP_LOOKUP_BATCH ||
					     cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH ||
					     cmd == BPF_MAP_LOOKUP_AND_DELETE_ELEM)) {
				uint32_t n = cmd == BPF_MAP_LOOKUP_AND_DELETE_ELEM ? 1 : got[K];

				CHECK(!memcmp(vals[K], vals[U], n * sizeof(vals[K][0])));
				CHECK(!memcmp(keys[K], keys[U], n * sizeof(keys[K][0])));
				for (uint32_t k = 0; k < n && t < 2; k++)
					CHECK_EQ(vals[U][k].lock, 0);
			}
			agree++;
		}
		for (uint32_t k = 0; k < 5; k++) {
			struct v v[NSIDES];
			struct bpf_result e[NSIDES];

			for (int s = 0; s < NSIDES; s++)
				e[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &k, &v[s], 0);
			if (AGREE("what is left", e) && e[K].rc == 0)
				CHECK(!memcmp(&v[K], &v[U], sizeof(v[K])));
		}
		for (int s = 0; s < NSIDES; s++) {
			close(fd[s]);
			if (btf[s] >= 0)
				close(btf[s]);
		}
	}
	CHECK(agree > 1000);
}

/* tc: key = packet byte 0 % 4; v = lookup (a hash inserts it first); lock; v->count++;
 * v->tag += count; unlock; return the count. */
static int load_counter(int s, int map)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 33),
		BPF_LDX_MEM(BPF_B, BPF_REG_6, BPF_REG_2, 0),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_6, 3),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
		/* insert a zero value if absent (a no-op on an array) */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -24),
		BPF_MOV64_IMM(BPF_REG_4, BPF_NOEXIST),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 14),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_lock),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_7, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_8, BPF_REG_6, 8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_7),
		BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_8, 8),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, insns,
			      sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_lock_prog)
{
	static const uint32_t map_types[] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY };
	uint64_t rng = 0x5eedull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		int fd[NSIDES], btf[NSIDES], prog[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = lock_map(s, map_types[t], &btf[s]);
			REQUIRE(fd[s] >= 0);
			prog[s] = load_counter(s, fd[s]);
			REQUIRE(prog[s] >= 0);
		}
		for (int i = 0; i < 200; i++) {
			uint8_t pkt[64] = { (uint8_t)xorshift64(&rng) };
			uint32_t ret;
			char what[32];

			snprintf(what, sizeof(what), "lock run %d", i);
			if (!RUNS_AGREE(what, prog, pkt, sizeof(pkt), &ret))
				break;
		}
		for (uint32_t k = 0; k < 4; k++) {
			struct v v[NSIDES];
			struct bpf_result r[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				memset(&v[s], 0xee, sizeof(v[s]));
				r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &k, &v[s], BPF_F_LOCK);
			}
			AGREE("lock counters", r);
			CHECK(!memcmp(&v[K], &v[U], sizeof(v[K])));
		}
		for (int s = 0; s < NSIDES; s++) {
			close(prog[s]);
			close(fd[s]);
			close(btf[s]);
		}
	}
}

/* Two threads run the counter at once (TEST_RUN with repeat, one packet for key 1): each
 * increment is under the lock, so none is lost, on either side. */
struct runner {
	int side, prog;
	uint32_t repeat;
	int rc;
};

static void *run_many(void *arg)
{
	struct runner *r = arg;
	uint8_t pkt[64] = { 1 };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)r->prog;
	a.test.data_in = PTR_TO_U64(pkt);
	a.test.data_size_in = sizeof(pkt);
	a.test.repeat = r->repeat;
	r->rc = side_call(r->side, BPF_PROG_TEST_RUN, &a).rc;
	return NULL;
}

TEST(diff_lock_threads)
{
	enum { REPEAT = 20000 };

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		int btf, fd = lock_map(s, BPF_MAP_TYPE_ARRAY, &btf), prog;
		struct runner r[2];
		pthread_t th[2];
		uint32_t key = 1;
		struct v v;

		REQUIRE(fd >= 0);
		prog = load_counter(s, fd);
		REQUIRE(prog >= 0);
		for (int i = 0; i < 2; i++) {
			r[i] = (struct runner){ s, prog, REPEAT, -1 };
			pthread_create(&th[i], NULL, run_many, &r[i]);
		}
		for (int i = 0; i < 2; i++) {
			pthread_join(th[i], NULL);
			CHECK_EQ(r[i].rc, 0);
		}
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, fd, &key, &v, 0).rc, 0);
		CHECK_EQ(v.count, 2 * REPEAT);
		/* the tag sums the counts 1..2 * REPEAT in whatever order */
		CHECK_EQ(v.tag, (uint64_t)2 * REPEAT * (2 * REPEAT + 1) / 2);
		close(prog);
		close(fd);
		close(btf);
	}
}

/* A lock in an inner map: an array of maps whose template's value has a bpf_spin_lock; a tc
 * program takes the lock of an inner map's value and counts under it.  Inner maps must have the
 * template's lock; the counts agree with the kernel's. */
TEST(diff_lock_inner_map)
{
	int inner[NSIDES], plain[NSIDES], outer[NSIDES], prog[NSIDES], btf[NSIDES], btf2[NSIDES];
	uint8_t pkt[64] = { 0 };

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		inner[s] = lock_map(s, BPF_MAP_TYPE_ARRAY, &btf[s]);
		plain[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct v), 4, 0).rc;
		REQUIRE(inner[s] >= 0 && plain[s] >= 0);
		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_ARRAY_OF_MAPS;
		a.key_size = 4;
		a.value_size = 4;
		a.max_entries = 2;
		a.inner_map_fd = (uint32_t)inner[s];
		outer[s] = side_call(s, BPF_MAP_CREATE, &a).rc;
	}
	CHECK_EQ(outer[K] >= 0, outer[U] >= 0);
	if (outer[K] < 0 || outer[U] < 0)
		goto out;
	/* slot 0: the template itself; slot 1: a map without the lock (refused), then another
	 * lock map */
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k0 = 0, k1 = 1, v0 = (uint32_t)inner[s], v1 = (uint32_t)plain[s];
		struct bpf_result r0 = side_elem(s, BPF_MAP_UPDATE_ELEM, outer[s], &k0, &v0, 0);
		struct bpf_result r1 = side_elem(s, BPF_MAP_UPDATE_ELEM, outer[s], &k1, &v1, 0);
		int other = lock_map(s, BPF_MAP_TYPE_ARRAY, &btf2[s]);

		CHECK_EQ(r0.rc, 0);
		CHECK_EQ(r1.rc, -1);
		CHECK_EQ(r1.err, EINVAL);
		REQUIRE(other >= 0);
		v1 = (uint32_t)other;
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, outer[s], &k1, &v1, 0).rc, 0);
		close(other);
	}
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn insns[] = {
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
			BPF_LD_MAP_FD(BPF_REG_1, outer[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 18),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
			BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 1),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 12),
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
			BPF_EMIT_CALL(BPF_FUNC_spin_lock),
			BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, 0),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
			BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_7, 0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
			BPF_EMIT_CALL(BPF_FUNC_spin_unlock),
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
			BPF_EXIT_INSN(),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		prog[s] = side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, insns,
					 sizeof(insns) / sizeof(insns[0]));
	}
	CHECK_EQ(prog[K] >= 0, prog[U] >= 0);
	for (int i = 1; prog[K] >= 0 && prog[U] >= 0 && i <= 5; i++) {
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
		}
		if (!AGREE("test run", r))
			break;
		CHECK_EQ(ret[K], (uint32_t)i);
		CHECK_EQ(ret[U], (uint32_t)i);
	}
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k1 = 1;
		struct v v;

		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, inner[s], &k1, &v, BPF_F_LOCK).rc, 0);
		CHECK_EQ(v.count, prog[K] >= 0 ? 5u : 0u);
		CHECK_EQ(v.lock, 0);
		if (prog[s] >= 0)
			close(prog[s]);
	}
out:
	for (int s = 0; s < NSIDES; s++) {
		if (outer[s] >= 0)
			close(outer[s]);
		close(inner[s]);
		close(plain[s]);
		close(btf[s]);
	}
}
