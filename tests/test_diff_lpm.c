/* BPF_MAP_TYPE_LPM_TRIE, differentially: the same calls on the live kernel and on userbpf.
 * Covered: creation rules; seeded random sequences of updates (every flag), deletes, lookups
 * and GET_NEXT_KEY steps over overlapping prefixes, with a full walk after every few operations
 * that compares the keys (their data beyond the prefix included), their order and the values;
 * the batch commands; and a program that looks packets' addresses up.  Skipped where
 * the kernel's bpf() is unavailable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define KEY_MAX (4 + 256)
#define VAL 12 /* value bytes in the sequences */

static void create_both(struct bpf_result r[2], uint32_t ks, uint32_t vs, uint32_t max,
			uint32_t flags)
{
	for (int s = 0; s < NSIDES; s++)
		r[s] = side_map_create(s, BPF_MAP_TYPE_LPM_TRIE, ks, vs, max, flags);
}

TEST(diff_lpm_create)
{
	static const struct {
		uint32_t ks, vs, max, flags;
		int err; /* the kernel's errno, 0: created */
	} cases[] = {
		{ 8, 4, 16, BPF_F_NO_PREALLOC, 0 },
		{ 8, 4, 16, 0, EINVAL },
		{ 5, 1, 1, BPF_F_NO_PREALLOC, 0 },
		{ 4, 4, 16, BPF_F_NO_PREALLOC, EINVAL },
		{ 260, 4, 16, BPF_F_NO_PREALLOC, 0 },
		{ 261, 4, 16, BPF_F_NO_PREALLOC, EINVAL },
		{ 8, 0, 16, BPF_F_NO_PREALLOC, EINVAL },
		{ 8, 4, 0, BPF_F_NO_PREALLOC, EINVAL },
		{ 8, (4u << 20) - 256 - 24, 16, BPF_F_NO_PREALLOC, 0 },
		{ 8, (4u << 20) - 256 - 23, 16, BPF_F_NO_PREALLOC, EINVAL },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_ZERO_SEED, EINVAL },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_MMAPABLE, EINVAL },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_RDONLY, 0 },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_WRONLY_PROG, 0 },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, EINVAL },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_NUMA_NODE, 0 },
		{ 8, 4, 16, BPF_F_NO_PREALLOC | BPF_F_INNER_MAP, EINVAL },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		char what[96];

		snprintf(what, sizeof(what), "create key %u value %u max %u flags %#x", cases[i].ks,
			 cases[i].vs, cases[i].max, cases[i].flags);
		create_both(r, cases[i].ks, cases[i].vs, cases[i].max, cases[i].flags);
		AGREE(what, r);
		if (r[K].rc < 0 ? r[K].err != cases[i].err : cases[i].err != 0)
			test_fail(__FILE__, __LINE__, "%s: the table says errno %d, the kernel %d",
				  what, cases[i].err, r[K].rc < 0 ? r[K].err : 0);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

struct trie {
	int fd[NSIDES];
	uint32_t ks, max;
};

/* One element command on both sides; out-values (lookup, next key) are compared whole. */
static struct bpf_result elem_at(const char *file, int line, const struct trie *t, int cmd,
				 const void *key, const void *value, uint64_t flags,
				 const char *what)
{
	static unsigned char out[NSIDES][KEY_MAX + 64];
	size_t outlen = cmd == BPF_MAP_GET_NEXT_KEY ? t->ks : VAL;
	bool reads = cmd == BPF_MAP_LOOKUP_ELEM || cmd == BPF_MAP_GET_NEXT_KEY;
	struct bpf_result r[2];

	memset(out, 0xa5, sizeof(out));
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)t->fd[s];
		a.key = PTR_TO_U64(key);
		if (cmd == BPF_MAP_GET_NEXT_KEY)
			a.next_key = PTR_TO_U64(out[s]);
		else
			a.value = PTR_TO_U64(reads ? out[s] : value);
		a.flags = flags;
		r[s] = side_call(s, cmd, &a);
	}
	if (results_agree_at(file, line, what, r) && reads && r[K].rc >= 0 &&
	    memcmp(out[K], out[U], outlen + 16))
		test_fail(file, line, "%s: the bytes written differ", what);
	if (reads && r[K].rc >= 0 && value)
		memcpy((void *)value, out[K], outlen);
	return r[K];
}
#define ELEM(t, cmd, key, value, flags, what) elem_at(__FILE__, __LINE__, t, cmd, key, value, flags, what)

/* GET_NEXT_KEY from NULL to the end on both sides, looking each key up: the same keys in the
 * same order, the same values.  Returns the number of keys. */
static int walk_at(const char *file, int line, const struct trie *t, const char *what)
{
	unsigned char key[KEY_MAX], next[KEY_MAX], v[VAL + 16];
	int n = 0;

	for (const void *cur = NULL;; cur = key) {
		if (elem_at(file, line, t, BPF_MAP_GET_NEXT_KEY, cur, next, 0, what).rc < 0)
			return n;
		memcpy(key, next, t->ks);
		elem_at(file, line, t, BPF_MAP_LOOKUP_ELEM, key, v, 0, what);
		if (++n > (int)t->max + 1) {
			test_fail(file, line, "%s: the walk does not end", what);
			return n;
		}
	}
}
#define WALK(t, what) walk_at(__FILE__, __LINE__, t, what)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A key: prefixes of a few base addresses (so they nest and part at every depth), random bits
 * beyond the prefix, now and then a prefixlen beyond the maximum. */
static void random_key(uint64_t *rng, unsigned char *key, uint32_t data_size)
{
	static const unsigned char bases[4][16] = {
		{ 10, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
		{ 10, 1, 128, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 192, 168, 1, 0, 255, 255, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2 },
		{ 10, 0, 255, 1, 9, 9, 9, 9, 8, 8, 8, 8, 7, 7, 7, 7 },
	};
	uint64_t x = rnd(rng);
	uint32_t max = data_size * 8, plen = (uint32_t)(x % (max + 1));

	if ((x >> 20) % 29 == 0)
		plen = max + 1 + (uint32_t)(x >> 40) % 3;
	memcpy(key, &plen, 4);
	for (uint32_t i = 0; i < data_size; i++)
		key[4 + i] = bases[(x >> 8) % 4][i % 16];
	/* flip one bit inside the prefix now and then: a sibling */
	if (plen && plen <= max && (x >> 12) % 3 == 0) {
		uint32_t b = (uint32_t)(x >> 24) % plen;

		key[4 + b / 8] ^= (unsigned char)(0x80 >> (b % 8));
	}
	/* bits beyond the prefix: random (the trie must ignore, yet keep, them) */
	for (uint32_t b = plen; b < max && (x >> 16) % 2; b++)
		if (rnd(rng) & 1)
			key[4 + b / 8] ^= (unsigned char)(0x80 >> (b % 8));
}

static void sequence(uint32_t data_size, uint32_t max, uint64_t seed, int ops)
{
	unsigned char key[KEY_MAX], v[VAL + 16];
	struct bpf_result r[2];
	struct trie t = { .ks = 4 + data_size, .max = max };
	uint64_t rng = seed;
	char what[96];

	create_both(r, t.ks, VAL, max, BPF_F_NO_PREALLOC);
	t.fd[K] = r[K].rc;
	t.fd[U] = r[U].rc;
	if (!AGREE("create", r) || r[K].rc < 0)
		goto out;
	for (int i = 0; i < ops; i++) {
		uint64_t x = rnd(&rng), flags = 0;
		int op = (int)(x % 10);

		random_key(&rng, key, data_size);
		snprintf(what, sizeof(what), "data %u seed %llu op %d", data_size,
			 (unsigned long long)seed, i);
		if (op < 4) {
			flags = (x >> 8) % 7 == 0 ? 3 : (x >> 8) % 3; /* ANY, NOEXIST, EXIST, bad */
			memset(v, 0, sizeof(v));
			memcpy(v, &x, 8);
			memcpy(v + 8, &i, 4);
			ELEM(&t, BPF_MAP_UPDATE_ELEM, key, v, flags, what);
		} else if (op < 6) {
			ELEM(&t, BPF_MAP_DELETE_ELEM, key, NULL, 0, what);
		} else if (op < 9) {
			ELEM(&t, BPF_MAP_LOOKUP_ELEM, key, v, 0, what);
		} else {
			ELEM(&t, BPF_MAP_GET_NEXT_KEY, (x >> 8) % 4 ? key : NULL, v, 0, what);
		}
		if (i % 16 == 15)
			WALK(&t, what);
	}
	snprintf(what, sizeof(what), "data %u seed %llu: end", data_size, (unsigned long long)seed);
	WALK(&t, what);
out:
	for (int s = 0; s < NSIDES; s++)
		if (t.fd[s] >= 0)
			close(t.fd[s]);
}

TEST(diff_lpm_sequences)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (uint64_t seed = 1; seed <= 6; seed++) {
		sequence(4, 40, seed * 7919, 600);	/* IPv4: often full (ENOSPC) */
		sequence(1, 300, seed * 104729, 300);
		sequence(2, 12, seed * 1299709, 300);
		sequence(16, 64, seed * 15485863, 400);	/* IPv6 */
		sequence(3, 1000, seed * 3, 400);
	}
}

TEST(diff_lpm_commands_and_edges)
{
	unsigned char key[8] = { 0 }, v[VAL + 16] = { 0 };
	struct bpf_result r[2];
	struct trie t = { .ks = 8, .max = 4 };
	uint32_t plen;

	SKIP_WITHOUT_KERNEL_BPF();
	create_both(r, 8, VAL, 4, BPF_F_NO_PREALLOC);
	t.fd[K] = r[K].rc;
	t.fd[U] = r[U].rc;
	if (!AGREE("create", r) || r[K].rc < 0)
		goto out;
	ELEM(&t, BPF_MAP_GET_NEXT_KEY, NULL, v, 0, "next key of an empty trie");
	ELEM(&t, BPF_MAP_LOOKUP_ELEM, key, v, 0, "lookup in an empty trie");
	plen = 0; /* the default route */
	memcpy(key, &plen, 4);
	ELEM(&t, BPF_MAP_UPDATE_ELEM, key, v, 0, "insert /0");
	plen = 32;
	memcpy(key, &plen, 4);
	memcpy(key + 4, "\x7f\0\0\x01", 4);
	ELEM(&t, BPF_MAP_LOOKUP_ELEM, key, v, 0, "lookup covered by /0");
	ELEM(&t, BPF_MAP_UPDATE_ELEM, key, v, 0, "insert /32");
	ELEM(&t, BPF_MAP_LOOKUP_AND_DELETE_ELEM, key, v, 0, "lookup and delete");
	ELEM(&t, BPF_MAP_UPDATE_ELEM, key, v, BPF_F_LOCK, "update with BPF_F_LOCK");
	ELEM(&t, BPF_MAP_LOOKUP_ELEM, key, v, BPF_F_LOCK, "lookup with BPF_F_LOCK");
	plen = 33;
	memcpy(key, &plen, 4);
	ELEM(&t, BPF_MAP_LOOKUP_ELEM, key, v, 0, "lookup with prefixlen 33");
	ELEM(&t, BPF_MAP_DELETE_ELEM, key, NULL, 0, "delete with prefixlen 33");
	ELEM(&t, BPF_MAP_GET_NEXT_KEY, key, v, 0, "next key after prefixlen 33");
	{
		static const int cmds[] = { BPF_MAP_UPDATE_BATCH, BPF_MAP_LOOKUP_BATCH,
					    BPF_MAP_LOOKUP_AND_DELETE_BATCH, BPF_MAP_DELETE_BATCH,
					    BPF_MAP_LOOKUP_BATCH };
		/* /8, /16, /24 of 10.1.2.0; values 1, 2, 3 */
		unsigned char keys[3][8] = { { 8, 0, 0, 0, 10 }, { 16, 0, 0, 0, 10, 1 },
					     { 24, 0, 0, 0, 10, 1, 2 } };
		unsigned char vals[3][VAL] = { { 1 }, { 2 }, { 3 } };

		for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
			static unsigned char okeys[NSIDES][64], ovals[NSIDES][64];
			static unsigned char batch_out[NSIDES][KEY_MAX]; /* a key */
			uint32_t count[NSIDES];
			bool writes = cmds[c] == BPF_MAP_UPDATE_BATCH || cmds[c] == BPF_MAP_DELETE_BATCH;

			memset(okeys, 0xa5, sizeof(okeys));
			memset(ovals, 0xa5, sizeof(ovals));
			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.batch.map_fd = (uint32_t)t.fd[s];
				a.batch.keys = PTR_TO_U64(writes ? (void *)keys : okeys[s]);
				a.batch.values = PTR_TO_U64(writes ? (void *)vals : ovals[s]);
				a.batch.out_batch = PTR_TO_U64(batch_out[s]);
				a.batch.count = cmds[c] == BPF_MAP_DELETE_BATCH ? 1 : 3;
				r[s] = side_call(s, cmds[c], &a);
				count[s] = a.batch.count;
			}
			AGREE("batch command", r);
			if (count[K] != count[U] || memcmp(okeys[K], okeys[U], 64) ||
			    memcmp(ovals[K], ovals[U], 64))
				test_fail(__FILE__, __LINE__, "batch command %d: results differ",
					  cmds[c]);
		}
	}
	WALK(&t, "edges");
out:
	for (int s = 0; s < NSIDES; s++)
		if (t.fd[s] >= 0)
			close(t.fd[s]);
}

/* An XDP program: look the IPv4 destination (packet bytes 30..33) up as a /32; r0 = the value's
 * first u32 + 1, or 0 when no prefix covers it. */
static int load_router(int s, int map_fd)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 34),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 11),
		BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_2, 30),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_5, -4),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 32),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_lpm_program)
{
	static const struct {
		uint32_t plen;
		unsigned char addr[4];
		uint32_t value;
	} routes[] = {
		{ 0, { 0, 0, 0, 0 }, 1 },	 { 8, { 10, 0, 0, 0 }, 2 },
		{ 16, { 10, 1, 0, 0 }, 3 },	 { 24, { 10, 1, 2, 0 }, 4 },
		{ 32, { 10, 1, 2, 3 }, 5 },	 { 24, { 192, 168, 7, 0 }, 6 },
		{ 25, { 192, 168, 7, 128 }, 7 },
	};
	static const unsigned char dsts[][4] = {
		{ 10, 1, 2, 3 },  { 10, 1, 2, 4 }, { 10, 1, 9, 9 },	   { 10, 200, 0, 1 },
		{ 11, 0, 0, 1 },  { 192, 168, 7, 1 }, { 192, 168, 7, 200 }, { 192, 168, 8, 1 },
	};
	struct bpf_result r[2];
	struct trie t = { .ks = 8, .max = 16 };
	int prog[NSIDES] = { -1, -1 };

	SKIP_WITHOUT_KERNEL_BPF();
	create_both(r, 8, 4, 16, BPF_F_NO_PREALLOC);
	t.fd[K] = r[K].rc;
	t.fd[U] = r[U].rc;
	if (!AGREE("create", r) || r[K].rc < 0)
		goto out;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		unsigned char key[8];

		memcpy(key, &routes[i].plen, 4);
		memcpy(key + 4, routes[i].addr, 4);
		ELEM(&t, BPF_MAP_UPDATE_ELEM, key, &routes[i].value, 0, "route");
	}
	for (int s = 0; s < NSIDES; s++)
		prog[s] = load_router(s, t.fd[s]);
	if (prog[K] < 0 || prog[U] < 0) {
		test_fail(__FILE__, __LINE__, "load: kernel %d, userbpf %d", prog[K], prog[U]);
		goto out;
	}
	for (size_t i = 0; i < sizeof(dsts) / sizeof(dsts[0]); i++) {
		unsigned char pkt[64] = { 0 };
		uint32_t ret[NSIDES];

		memcpy(pkt + 30, dsts[i], 4);
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
		if (AGREE("test run", r) && ret[K] != ret[U])
			test_fail(__FILE__, __LINE__, "destination %zu: kernel %u, userbpf %u", i,
				  ret[K], ret[U]);
	}
out:
	for (int s = 0; s < NSIDES; s++) {
		if (prog[s] >= 0)
			close(prog[s]);
		if (t.fd[s] >= 0)
			close(t.fd[s]);
	}
}
