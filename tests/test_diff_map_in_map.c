/* BPF_MAP_TYPE_ARRAY_OF_MAPS and BPF_MAP_TYPE_HASH_OF_MAPS, differentially: creation rules
 * (sizes, flags, which maps may be the template); seeded random bpf() command sequences with
 * inner maps that match the template or not, whose results, ids read back, key order and batch
 * lookups must be the kernel's; inner maps outliving their fds; and XDP programs that look up an
 * inner map and count in it, through TEST_RUN, with the outer map changing between runs.
 * (The verifier's rules are cases of tests/test_verifier_map.c.)  Skipped where the kernel's
 * bpf() is unavailable.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static const uint32_t outer_types[2] = { BPF_MAP_TYPE_ARRAY_OF_MAPS, BPF_MAP_TYPE_HASH_OF_MAPS };

struct map_spec {
	uint32_t type, ks, vs, max, flags;
};

static int spec_create(int s, const struct map_spec *m)
{
	return side_map_create(s, m->type, m->ks, m->vs, m->max, m->flags).rc;
}

static struct bpf_result outer_create(int s, uint32_t type, const struct map_spec *shape,
				      int inner_fd)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = shape->ks;
	a.value_size = shape->vs;
	a.max_entries = shape->max;
	a.map_flags = shape->flags;
	a.inner_map_fd = (uint32_t)inner_fd;
	return side_call(s, BPF_MAP_CREATE, &a);
}

/* Creates an outer map on both sides and compares the outcome; closes what was made. */
static void create_agrees(uint32_t type, const struct map_spec *shape, const int inner[NSIDES],
			  const char *what)
{
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++)
		r[s] = outer_create(s, type, shape, inner[s]);
	AGREE(what, r);
	for (int s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
}

TEST(diff_map_in_map_create)
{
	/* templates: every kind the kernel takes, and the ones it refuses */
	static const struct map_spec inners[] = {
		{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0 },
		{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_INNER_MAP },
		{ BPF_MAP_TYPE_HASH, 4, 8, 4, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0 },
		{ BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0 },
		{ BPF_MAP_TYPE_LPM_TRIE, 8, 4, 4, BPF_F_NO_PREALLOC },
		{ BPF_MAP_TYPE_QUEUE, 0, 4, 4, 0 },
		{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0 },
		{ BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0 },
		{ BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0 },
		{ BPF_MAP_TYPE_CGROUP_ARRAY, 4, 4, 4, 0 },
		{ BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 4, 0 },
	};
	static const struct map_spec shapes[] = {
		{ 0, 4, 4, 4, 0 },
		{ 0, 4, 8, 4, 0 },
		{ 0, 8, 4, 4, 0 },
		{ 0, 4, 4, 0, 0 },
		{ 0, 4, 0, 4, 0 },
		{ 0, 4, 4, 4, BPF_F_RDONLY },
		{ 0, 4, 4, 4, BPF_F_WRONLY },
		{ 0, 4, 4, 4, BPF_F_RDONLY_PROG },
		{ 0, 4, 4, 4, BPF_F_WRONLY_PROG },
		{ 0, 4, 4, 4, BPF_F_NO_PREALLOC },
		{ 0, 4, 4, 4, BPF_F_MMAPABLE },
		{ 0, 4, 4, 4, BPF_F_INNER_MAP },
		{ 0, 4, 4, 4, BPF_F_ZERO_SEED },
		{ 0, 4, 4, 4, BPF_F_NUMA_NODE },
	};
	enum { NI = sizeof(inners) / sizeof(inners[0]) };
	int in[NI][NSIDES], nested[2][NSIDES], devnull = open("/dev/null", O_RDONLY);
	char what[96];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(devnull >= 0);
	for (int i = 0; i < (int)NI; i++)
		for (int s = 0; s < NSIDES; s++) {
			in[i][s] = spec_create(s, &inners[i]);
			REQUIRE(in[i][s] >= 0);
		}
	for (int t = 0; t < 2; t++) {
		const int bad[][NSIDES] = { { devnull, devnull }, { 999, 999 }, { -1, -1 } };

		for (int i = 0; i < (int)NI; i++) {
			snprintf(what, sizeof(what), "type %u, template %d", outer_types[t], i);
			create_agrees(outer_types[t], &shapes[0], in[i], what);
		}
		/* every shape with a good template, and with bad ones (which check comes first) */
		for (size_t h = 0; h < sizeof(shapes) / sizeof(shapes[0]); h++) {
			snprintf(what, sizeof(what), "type %u, shape %zu", outer_types[t], h);
			create_agrees(outer_types[t], &shapes[h], in[0], what);
			/* (valgrind's bpf() wrapper answers an fd of -1 itself, with EBADF before
			 * the kernel's size checks: that one is for runs outside valgrind) */
			for (int b = 0; b < (getenv("USERBPF_VALGRIND") ? 2 : 3); b++) {
				snprintf(what, sizeof(what), "type %u, shape %zu, bad template %d",
					 outer_types[t], h, b);
				create_agrees(outer_types[t], &shapes[h], bad[b], what);
			}
		}
		/* no map of maps of maps */
		for (int s = 0; s < NSIDES; s++) {
			nested[t][s] = outer_create(s, outer_types[t], &shapes[0], in[0][s]).rc;
			REQUIRE(nested[t][s] >= 0);
		}
		for (int u = 0; u < 2; u++) {
			snprintf(what, sizeof(what), "type %u, template a map of maps %u",
				 outer_types[u], outer_types[t]);
			create_agrees(outer_types[u], &shapes[0], nested[t], what);
		}
		for (int s = 0; s < NSIDES; s++)
			close(nested[t][s]);
	}
	for (int i = 0; i < (int)NI; i++)
		for (int s = 0; s < NSIDES; s++)
			close(in[i][s]);
	close(devnull);
}

/* The candidates a command may store: matching the templates or not (below). */
static const struct map_spec cands[] = {
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0 },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0 },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 8, 0 },		/* other max_entries */
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 9, BPF_F_INNER_MAP },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_INNER_MAP },
	{ BPF_MAP_TYPE_ARRAY, 4, 16, 4, 0 },		/* other value size */
	{ BPF_MAP_TYPE_HASH, 4, 8, 4, 0 },
	{ BPF_MAP_TYPE_HASH, 4, 8, 16, 0 },		/* other max_entries: fine for a hash */
	{ BPF_MAP_TYPE_HASH, 4, 8, 4, BPF_F_NO_PREALLOC }, /* other flags */
};
#define NCANDS ((int)(sizeof(cands) / sizeof(cands[0])))

/* Outer maps under test: type, template (an index in cands), flags. */
static const struct {
	uint32_t type;
	int tmpl;
	uint32_t flags;
} configs[] = {
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 0, 0 },
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 3, 0 },
	{ BPF_MAP_TYPE_HASH_OF_MAPS, 6, BPF_F_ZERO_SEED },
	{ BPF_MAP_TYPE_HASH_OF_MAPS, 3, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
};

struct world {
	int outer[NSIDES];
	int cand[NCANDS][NSIDES];
	uint32_t cand_id[NCANDS][NSIDES];
};

/* An id read back, as a candidate index on both sides (whose ids differ); -1: unknown. */
static int cand_of(const struct world *w, int s, uint32_t id)
{
	for (int c = 0; c < NCANDS; c++)
		if (w->cand_id[c][s] == id)
			return c;
	return -1;
}

/* Ids read back agree: they name the same candidate on each side. */
static bool cands_same(const void *kv, const void *uv, void *arg)
{
	const struct world *w = arg;
	uint32_t k, u;

	memcpy(&k, kv, 4);
	memcpy(&u, uv, 4);
	return cand_of(w, K, k) == cand_of(w, U, u);
}

/* The outer map's walk: the same keys in the same order, holding the same candidates. */
static bool walks_agree(const struct world *w, const char *what)
{
	return WALKS_AGREE(what, w->outer, 4, 32, cands_same, (void *)w);
}

/* BPF_MAP_LOOKUP_BATCH over the whole map, in batches of count: results, keys and candidates. */
static bool batches_agree(const struct world *w, uint32_t count, const char *what)
{
	uint32_t keys[NSIDES][16], vals[NSIDES][16], in[NSIDES], out[NSIDES], cnt[NSIDES];
	bool first = true;

	for (int round = 0; round < 20; round++) {
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(keys[s], 0, sizeof(keys[s]));
			memset(vals[s], 0, sizeof(vals[s]));
			memset(&a, 0, sizeof(a));
			a.batch.map_fd = (uint32_t)w->outer[s];
			a.batch.in_batch = first ? 0 : PTR_TO_U64(&in[s]);
			a.batch.out_batch = PTR_TO_U64(&out[s]);
			a.batch.keys = PTR_TO_U64(keys[s]);
			a.batch.values = PTR_TO_U64(vals[s]);
			a.batch.count = count;
			r[s] = side_call(s, BPF_MAP_LOOKUP_BATCH, &a);
			cnt[s] = a.batch.count;
		}
		if (!results_agree_at(__FILE__, __LINE__, what, r))
			return false;
		if (cnt[K] != cnt[U]) {
			test_fail(__FILE__, __LINE__, "%s: batch count %u / %u", what, cnt[K], cnt[U]);
			return false;
		}
		for (uint32_t i = 0; i < cnt[K] && i < 16; i++)
			if (keys[K][i] != keys[U][i] ||
			    cand_of(w, K, vals[K][i]) != cand_of(w, U, vals[U][i])) {
				test_fail(__FILE__, __LINE__, "%s: batch entry %u differs", what, i);
				return false;
			}
		if (r[K].rc < 0)
			return true;
		first = false;
		for (int s = 0; s < NSIDES; s++)
			in[s] = out[s];
	}
	return true;
}

/* One random command on both sides: an update (a candidate, a closed fd or a non-map fd, random
 * flags), a delete, a lookup.  *ok counts successes; false after a reported difference. */
static bool one_command(const struct world *w, int devnull, uint64_t rng, const char *what,
			int *ok)
{
	uint32_t key = (uint32_t)(rng % 6), op = (uint32_t)(rng >> 8) % 4;
	uint32_t c = (uint32_t)(rng >> 16) % (NCANDS + 2);
	uint64_t flags = (rng >> 24) % 4 == 0 ? (rng >> 28) % 5 : BPF_ANY;
	struct bpf_result r[NSIDES];
	uint32_t v[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		int cmd = op < 2 ? BPF_MAP_UPDATE_ELEM : op == 2 ? BPF_MAP_DELETE_ELEM
							       : BPF_MAP_LOOKUP_ELEM;

		v[s] = c < NCANDS ? (uint32_t)w->cand[c][s] : c == NCANDS ? 999u : (uint32_t)devnull;
		r[s] = side_elem(s, cmd, w->outer[s], &key, op == 2 ? NULL : &v[s],
				 op < 2 ? flags : 0);
	}
	if (!AGREE(what, r))
		return false;
	if (op == 3 && r[K].rc == 0 && cand_of(w, K, v[K]) != cand_of(w, U, v[U])) {
		test_fail(__FILE__, __LINE__, "%s: key %u holds candidate %d / %d", what, key,
			  cand_of(w, K, v[K]), cand_of(w, U, v[U]));
		return false;
	}
	*ok += r[K].rc == 0;
	return true;
}

TEST(diff_map_in_map_commands)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	int devnull = open("/dev/null", O_RDONLY);
	unsigned live = obj_live_count();

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(devnull >= 0);
	for (size_t f = 0; f < sizeof(configs) / sizeof(configs[0]); f++) {
		struct map_spec shape = { 0, 4, 4, 5, configs[f].flags };
		struct world w;
		int ok = 0;
		char what[64];

		for (int s = 0; s < NSIDES; s++) {
			for (int c = 0; c < NCANDS; c++) {
				w.cand[c][s] = spec_create(s, &cands[c]);
				REQUIRE(w.cand[c][s] >= 0);
				w.cand_id[c][s] = side_map_id(s, w.cand[c][s]);
			}
			w.outer[s] = outer_create(s, configs[f].type, &shape,
						  w.cand[configs[f].tmpl][s]).rc;
			REQUIRE(w.outer[s] >= 0);
		}
		for (int i = 0; i < 500; i++) {
			snprintf(what, sizeof(what), "config %zu step %d", f, i);
			if (!one_command(&w, devnull, xorshift64(&rng), what, &ok))
				break;
			if (i % 50 == 49 && (!walks_agree(&w, what) || !batches_agree(&w, 2, what) ||
					     !batches_agree(&w, 16, what)))
				break;
		}
		CHECK(ok > 50); /* (70 to 130 of the 500: most candidates do not match) */
		/* the maps stored live on without their fds: the same ids are read back */
		for (int c = 0; c < NCANDS; c++)
			for (int s = 0; s < NSIDES; s++)
				close(w.cand[c][s]);
		snprintf(what, sizeof(what), "config %zu, fds closed", f);
		walks_agree(&w, what);
		for (int s = 0; s < NSIDES; s++)
			close(w.outer[s]);
	}
	/* and go with the outer map */
	CHECK_EQ(obj_live_count(), live);
	close(devnull);
}

/* XDP: key = packet byte 0 % 5; m = lookup(outer, key), 100 if none; v = lookup(m, packet byte 1
 * % 10), 101 if none; *v += 1 (the inner maps' values are u64 counters); returns *v. */
static int load_counter(int s, int outer)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 2),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 23),
		BPF_LDX_MEM(BPF_B, BPF_REG_6, BPF_REG_2, 0),
		BPF_ALU64_IMM(BPF_MOD, BPF_REG_6, 5),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
		BPF_LDX_MEM(BPF_B, BPF_REG_7, BPF_REG_2, 1),
		BPF_ALU64_IMM(BPF_MOD, BPF_REG_7, 10),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_7, -8),
		BPF_LD_MAP_FD(BPF_REG_1, outer),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_6, 100),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 9),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_6, 101),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_map_in_map_run)
{
	/* inner maps: arrays of 10 or 4 counters, hashes of 10 (as a hash template) */
	static const struct map_spec inner[2][3] = {
		{ { BPF_MAP_TYPE_ARRAY, 4, 8, 10, BPF_F_INNER_MAP },
		  { BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_INNER_MAP },
		  { BPF_MAP_TYPE_ARRAY, 4, 8, 10, BPF_F_INNER_MAP } },
		{ { BPF_MAP_TYPE_HASH, 4, 8, 10, 0 },
		  { BPF_MAP_TYPE_HASH, 4, 8, 10, 0 },
		  { BPF_MAP_TYPE_HASH, 4, 8, 10, 0 } },
	};
	uint64_t rng = 0x0ddba11cafef00dull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		struct map_spec shape = { 0, 4, 4, 5, 0 };
		int in[3][NSIDES], outer[NSIDES], prog[NSIDES], counted = 0, missed = 0;

		for (int s = 0; s < NSIDES; s++) {
			for (int i = 0; i < 3; i++) {
				in[i][s] = spec_create(s, &inner[t][i]);
				REQUIRE(in[i][s] >= 0);
			}
			/* the hashes hold keys 0..5 */
			for (uint32_t k = 0; t == 1 && k < 6; k++)
				for (int i = 0; i < 3; i++) {
					uint64_t zero = 0;

					REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, in[i][s], &k, &zero,
							   0).rc);
				}
			outer[s] = outer_create(s, outer_types[t], &shape, in[0][s]).rc;
			REQUIRE(outer[s] >= 0);
			prog[s] = load_counter(s, outer[s]);
			REQUIRE(prog[s] >= 0);
		}
		for (int i = 0; i < 400; i++) {
			uint64_t x = xorshift64(&rng);
			uint8_t pkt[64] = { (uint8_t)x, (uint8_t)(x >> 8) };
			uint32_t ret;
			char what[48];

			/* now and then the outer map changes: a slot gets an inner map, or loses it */
			if (x >> 60 == 0 || i < 5) {
				uint32_t key = (uint32_t)(x >> 16) % 5, which = (uint32_t)(x >> 24) % 4;

				for (int s = 0; s < NSIDES; s++) {
					uint32_t fd = which < 3 ? (uint32_t)in[which][s] : 0;

					if (which < 3)
						side_elem(s, BPF_MAP_UPDATE_ELEM, outer[s], &key, &fd, 0);
					else
						side_elem(s, BPF_MAP_DELETE_ELEM, outer[s], &key, NULL, 0);
				}
			}
			snprintf(what, sizeof(what), "type %u run %d", outer_types[t], i);
			if (!RUNS_AGREE(what, prog, pkt, sizeof(pkt), &ret))
				break;
			counted += ret < 100;
			missed += ret >= 100;
		}
		CHECK(counted > 100 && missed > 20);
		/* the counters: every key of every inner map */
		for (int i = 0; i < 3; i++)
			for (uint32_t k = 0; k < 10; k++) {
				uint64_t v[NSIDES] = { 0, 0 };
				struct bpf_result r[NSIDES];

				for (int s = 0; s < NSIDES; s++)
					r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, in[i][s], &k, &v[s], 0);
				AGREE("counter", r);
				CHECK_EQ(v[K], v[U]);
			}
		for (int s = 0; s < NSIDES; s++) {
			close(prog[s]);
			close(outer[s]);
			for (int i = 0; i < 3; i++)
				close(in[i][s]);
		}
	}
}
