/* LRU hash maps (BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH) against the live kernel.
 * Below capacity an LRU map is a hash map: the same results, bytes and (under BPF_F_ZERO_SEED)
 * iteration order, compared exactly.  At capacity userbpf keeps the kernel's lists
 * (src/map/lru.h): on one CPU every eviction is the kernel's, batches included, compared exactly
 * (diff_lru_evictions); diff_lru_at_capacity checks what an LRU map promises on any CPU: an
 * insert never fails, the map never holds more than max_entries, the key just written is there,
 * and a key a program keeps looking up survives.  Skipped where the kernel's bpf() is
 * unavailable.
 */
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static int create(int s, uint32_t type, uint32_t vs, uint32_t max, uint32_t flags, int *err)
{
	struct bpf_result r = side_map_create(s, type, 4, vs, max, flags);

	if (err)
		*err = r.err;
	return r.rc;
}

TEST(diff_lru_create)
{
	static const struct {
		uint32_t type, vs, max, flags;
		int err;
	} cases[] = {
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, 0, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_NO_PREALLOC, 524 /* ENOTSUPP */ },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_NO_COMMON_LRU, 0 },
		/* rounded up to a multiple of the CPUs (the info shows it) */
		{ BPF_MAP_TYPE_LRU_HASH, 8, 3, BPF_F_NO_COMMON_LRU, 0 },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 8, 1, BPF_F_NO_COMMON_LRU, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 3, 0, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE, EINVAL },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_NUMA_NODE, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_ZERO_SEED, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 0, 16, 0, EINVAL },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 0, 0, EINVAL },
		{ BPF_MAP_TYPE_LRU_HASH, 8, 16, BPF_F_MMAPABLE, EINVAL },
		{ BPF_MAP_TYPE_HASH, 8, 16, BPF_F_NO_COMMON_LRU, EINVAL },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 8, 16, 0, 0 },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 8, 16, BPF_F_NUMA_NODE, EINVAL },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 32769, 16, 0, E2BIG },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 8, 16, BPF_F_NO_PREALLOC, 524 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		char what[80];

		snprintf(what, sizeof(what), "create type %u value %u max %u flags %#x",
			 cases[i].type, cases[i].vs, cases[i].max, cases[i].flags);
		for (int s = 0; s < NSIDES; s++)
			r[s].rc = create(s, cases[i].type, cases[i].vs, cases[i].max, cases[i].flags,
					 &r[s].err);
		AGREE(what, r);
		if (r[K].rc < 0 ? r[K].err != cases[i].err : cases[i].err != 0)
			test_fail(__FILE__, __LINE__, "%s: the table says errno %d, the kernel %d",
				  what, cases[i].err, r[K].rc < 0 ? r[K].err : 0);
		if (r[K].rc >= 0 && r[U].rc >= 0) {
			struct bpf_map_info info[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				uint32_t len = sizeof(info[s]);

				memset(&info[s], 0, sizeof(info[s]));
				side_obj_info(s, r[s].rc, &info[s], &len);
			}
			if (info[K].max_entries != info[U].max_entries)
				test_fail(__FILE__, __LINE__, "%s: max_entries %u, userbpf %u", what,
					  info[K].max_entries, info[U].max_entries);
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

/* Below capacity: a seeded sequence of updates (every flag), deletes and lookups, then a walk;
 * everything identical, order included. */
TEST(diff_lru_below_capacity)
{
	static const uint32_t types[] = { BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < 2; t++) {
		size_t vs = 8 * (types[t] == BPF_MAP_TYPE_LRU_PERCPU_HASH
					 ? (size_t)userbpf_num_possible_cpus()
					 : 1);
		int fd[NSIDES];
		uint64_t rng = 88172645463325252ull;
		char what[64];

		for (int s = 0; s < NSIDES; s++)
			fd[s] = create(s, types[t], 8, 256, BPF_F_ZERO_SEED, NULL);
		if (fd[K] < 0 || fd[U] < 0) {
			test_fail(__FILE__, __LINE__, "create type %u failed", types[t]);
			continue;
		}
		for (int i = 0; i < 400; i++) {
			uint32_t key;
			uint64_t flags;
			unsigned char v[NSIDES][1024];
			struct bpf_result r[2];
			int cmd;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			key = (uint32_t)(rng % 48); /* 48 keys, far below 256: no eviction */
			cmd = (int)((rng >> 8) % 3);
			flags = (rng >> 16) % 3;
			snprintf(what, sizeof(what), "type %u op %d", types[t], i);
			memset(v, 0xa5, sizeof(v));
			for (int s = 0; s < NSIDES; s++) {
				if (cmd == 0) {
					memcpy(v[s], &rng, 8);
					memset(v[s] + 8, (int)i, vs - 8 + 1);
					r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &key, v[s], flags);
				} else if (cmd == 1) {
					r[s] = side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], &key, NULL, 0);
				} else {
					r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &key, v[s], 0);
				}
			}
			if (AGREE(what, r) && cmd == 2 && memcmp(v[K], v[U], vs + 16))
				test_fail(__FILE__, __LINE__, "%s: lookup bytes differ", what);
		}
		/* the walk: same keys in the same order */
		{
			uint32_t cur[NSIDES], next[NSIDES];
			int first = 1, n = 0;

			for (;;) {
				struct bpf_result r[2];

				for (int s = 0; s < NSIDES; s++)
					r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s],
						    first ? NULL : &cur[s], &next[s], 0);
				if (!AGREE("walk", r) || r[K].rc < 0 || ++n > 300)
					break;
				if (next[K] != next[U]) {
					test_fail(__FILE__, __LINE__, "walk step %d: kernel key %u, "
						  "userbpf %u", n, next[K], next[U]);
					break;
				}
				memcpy(cur, next, sizeof(cur));
				first = 0;
			}
		}
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
}

/* Counts the keys of a map by walking it. */
static int count_keys(int s, int fd)
{
	uint32_t cur, next;
	int n = 0;

	for (const void *k = NULL; side_elem(s, BPF_MAP_GET_NEXT_KEY, fd, k, &next, 0).rc == 0; k = &cur) {
		cur = next;
		if (++n > 100000)
			break;
	}
	return n;
}

/* An XDP program that looks key 0 up (and so marks it used). */
static int load_toucher(int s, int map_fd)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_lru_at_capacity)
{
	const uint32_t max = 64;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		int fd = create(s, BPF_MAP_TYPE_LRU_HASH, 8, max, 0, NULL), prog;
		uint64_t v = 7;
		uint32_t key = 0;
		unsigned char pkt[64] = { 0 };

		REQUIRE(fd >= 0);
		prog = load_toucher(s, fd);
		REQUIRE(prog >= 0);
		REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &key, &v, BPF_ANY).rc, 0);
		for (key = 1; key < 20 * max; key++) {
			union bpf_attr a;
			struct bpf_result r;

			/* the hot key: looked up by the program before every insert */
			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog;
			a.test.data_in = PTR_TO_U64(pkt);
			a.test.data_size_in = sizeof(pkt);
			side_call(s, BPF_PROG_TEST_RUN, &a);
			r = side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &key, &v, BPF_ANY);
			if (r.rc) {
				test_fail(__FILE__, __LINE__, "%s: insert %u failed: errno %d",
					  diff_sides[s]->name, key, r.err);
				break;
			}
			if (side_elem(s, BPF_MAP_LOOKUP_ELEM, fd, &key, &v, 0).rc) {
				test_fail(__FILE__, __LINE__, "%s: key %u gone right after its insert",
					  diff_sides[s]->name, key);
				break;
			}
		}
		if (count_keys(s, fd) > (int)max)
			test_fail(__FILE__, __LINE__, "%s: %d keys in a map of %u", diff_sides[s]->name,
				  count_keys(s, fd), max);
		key = 0;
		if (side_elem(s, BPF_MAP_LOOKUP_ELEM, fd, &key, &v, 0).rc)
			test_fail(__FILE__, __LINE__, "%s: the hot key was evicted", diff_sides[s]->name);
		close(prog);
		close(fd);
	}
}

/* An XDP program that looks up the key in the packet's first 4 bytes (marking it used): XDP_PASS
 * if it is there, XDP_DROP if not. */
static int load_lookup(int s, int map_fd)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_IMM(BPF_REG_0, XDP_ABORTED),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 4),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 9),
		BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_2, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_5, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_1, XDP_DROP),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_MOV64_IMM(BPF_REG_1, XDP_PASS),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

/* At and beyond capacity, on one CPU, the kernel's evictions: each map type, common lists and
 * BPF_F_NO_COMMON_LRU, several sizes; a seeded mix of inserts (each flag, keys from a range
 * twice the map's), deletes, lookups by bpf() and by a program (which mark keys used), lookup
 * and delete, and a batch lookup and delete now and then.  Every result must agree, and every
 * so often the whole walk.  The kernel's lists are per CPU and the CPU is the caller's, so the
 * test runs pinned to CPU 0 (skipped if it cannot be). */
TEST(diff_lru_evictions)
{
	static const uint32_t types[] = { BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH };
	static const uint32_t sizes[] = { 1, 2, 7, 64, 300, 1000 };
	cpu_set_t old, one;
	int evicted_at_once = 0, walks = 0, ops = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(one), &one))
		SKIP("cannot pin the thread to CPU 0");
	for (size_t t = 0; t < 2; t++)
		for (int common = 0; common < 2; common++)
			for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
				uint32_t max = sizes[z], range = 2 * max + 8;
				uint32_t flags = BPF_F_ZERO_SEED | (common ? 0 : BPF_F_NO_COMMON_LRU);
				size_t vs = 8 * (types[t] == BPF_MAP_TYPE_LRU_PERCPU_HASH
						 ? (size_t)userbpf_num_possible_cpus() : 1);
				uint64_t rng = 0x9e3779b97f4a7c15ull ^
					       ((uint64_t)t << 40 | (uint64_t)common << 32 | max);
				int fd[NSIDES], prog[NSIDES], before = 0;
				char what[128];

				for (int s = 0; s < NSIDES; s++) {
					fd[s] = create(s, types[t], 8, max, flags, NULL);
					prog[s] = fd[s] >= 0 ? load_lookup(s, fd[s]) : -1;
				}
				if (fd[K] < 0 || fd[U] < 0 || prog[K] < 0 || prog[U] < 0) {
					test_fail(__FILE__, __LINE__, "type %u max %u: create or load failed",
						  types[t], max);
					goto close;
				}
				for (int i = 0; i < 1500; i++) {
					uint64_t x = xorshift64(&rng);
					uint32_t key = (uint32_t)(x % range), op = (uint32_t)(x >> 32) % 16;
					unsigned char v[NSIDES][1024];
					struct bpf_result r[2];

					snprintf(what, sizeof(what), "type %u %s max %u op %d (%u, key %u)",
						 types[t], common ? "common" : "per-CPU lists", max, i, op, key);
					memset(v, 0xa5, sizeof(v));
					ops++;
					for (int s = 0; s < NSIDES; s++) {
						if (op < 8) { /* inserts dominate: the map fills and evicts */
							memcpy(v[s], &x, 8);
							memset(v[s] + 8, i, vs - 8);
							r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &key, v[s],
									 op < 6 ? BPF_ANY : op - 5);
						} else if (op < 11) {
							uint32_t ret = 0;

							r[s] = side_test_run(s, prog[s], &key, sizeof(key), &ret);
							r[s].rc = r[s].rc ? r[s].rc : (int)ret;
						} else if (op == 11) {
							r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &key, v[s], 0);
						} else if (op == 12) {
							r[s] = side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], &key, NULL, 0);
						} else if (op == 13 && types[t] == BPF_MAP_TYPE_LRU_HASH) {
							r[s] = side_elem(s, BPF_MAP_LOOKUP_AND_DELETE_ELEM, fd[s],
									 &key, v[s], 0);
						} else if (op == 14 && i % 7 == 0) {
							union bpf_attr a;
							uint32_t out = 0, keys[8];
							unsigned char vals[8 * 1024];

							memset(&a, 0, sizeof(a));
							a.batch.map_fd = (uint32_t)fd[s];
							a.batch.out_batch = PTR_TO_U64(&out);
							a.batch.keys = PTR_TO_U64(keys);
							a.batch.values = PTR_TO_U64(vals);
							a.batch.count = 8;
							r[s] = side_call(s, BPF_MAP_LOOKUP_AND_DELETE_BATCH, &a);
						} else {
							r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &key, v[s], 0);
						}
					}
					if (AGREE(what, r) && (op == 11 || op == 13) && r[K].rc == 0 &&
					    memcmp(v[K], v[U], vs))
						test_fail(__FILE__, __LINE__, "%s: values differ", what);
					if (r[K].rc != r[U].rc || test_failed_now())
						break;
					if (i % 50 == 49 || max <= 7) {
						/* (BPF_F_ZERO_SEED: the same walk order) */
						int n = count_keys(K, fd[K]);

						WALKS_AGREE(what, fd, 0, 100000, NULL, NULL);
						walks++;
						/* a batch of evictions: more than one key went for one insert */
						evicted_at_once += op < 8 && n < before - 1;
						before = n;
						if (test_failed_now())
							break;
					}
				}
				WALKS_AGREE("the final walk", fd, 0, 100000, NULL, NULL);
				walks++;
close:
				for (int s = 0; s < NSIDES; s++) {
					if (prog[s] >= 0)
						close(prog[s]);
					if (fd[s] >= 0)
						close(fd[s]);
				}
			}
	sched_setaffinity(0, sizeof(old), &old);
	if (getenv("TEST_VERBOSE"))
		printf("diff_lru_evictions: %d operations, %d walks compared, %d batch evictions "
		       "seen\n", ops, walks, evicted_at_once);
	CHECK(ops == 2 * 2 * 6 * 1500);
	/* the kernel's batches show: some insert evicted several keys at once */
	CHECK(evicted_at_once > 0);
}
