/* Differential tests of the map commands: every test runs the same sequence of bpf() calls on the
 * live kernel and on userbpf (BPF_MAP_TYPE_HASH and BPF_MAP_TYPE_ARRAY) and compares return values,
 * errno, the bytes written to user memory and, at the end, the maps' contents.  Table-driven
 * cases also carry the result the kernel is expected to give; that column is checked against the
 * kernel too, so a wrong table entry shows up as a failure rather than as a silent pass.
 *
 * Covered: entry-point attr rules (size, tail bytes, NULL attr, unknown commands), BPF_MAP_CREATE
 * validation, element commands with every flag value, permissions, bad pointers and fds, batch
 * commands, iteration order under BPF_F_ZERO_SEED, and seeded random operation sequences.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"

#define ENOTSUPP_K 524 /* the kernel's internal ENOTSUPP, which leaks to user space */
#define ATTR_BUF 8192
#define OUT_BUF 8192
#define SLACK 16 /* bytes past an output that must stay untouched */

#define side_be diff_sides

/* Per-side attr and output buffers.  Outputs are pre-filled with a pattern, so writes past the
 * expected length show up in the comparison too. */
static _Alignas(8) unsigned char attrbuf[NSIDES][ATTR_BUF];
static _Alignas(8) unsigned char outbuf[NSIDES][OUT_BUF];
static _Alignas(8) unsigned char outbuf2[NSIDES][OUT_BUF];
static _Alignas(8) unsigned char batchbuf[NSIDES][64];

/* Marks a value (or keys/values) argument as "this side's output buffer". */
static char out_mark, out2_mark;
#define OUT ((void *)&out_mark)
#define OUT2 ((void *)&out2_mark)

static void *side_ptr(int s, const void *p)
{
	if (p == OUT)
		return outbuf[s];
	if (p == OUT2)
		return outbuf2[s];
	return (void *)p;
}

/* ---- results and their reporting ---- */

static const char *errno_name(int e)
{
	static const struct {
		int e;
		const char *n;
	} names[] = {
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" },   { EBADF, "EBADF" },
		{ EFAULT, "EFAULT" }, { EINVAL, "EINVAL" },   { E2BIG, "E2BIG" },
		{ ENOSPC, "ENOSPC" }, { EEXIST, "EEXIST" },   { ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { ENOSYS, "ENOSYS" },
		{ ERANGE, "ERANGE" }, { EBUSY, "EBUSY" },     { ENODEV, "ENODEV" },
		{ ENXIO, "ENXIO" },   { ENOTSUPP_K, "ENOTSUPP" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	return "E?";
}

static const char *res_str(struct bpf_result r, char *buf, size_t len)
{
	if (r.rc >= 0 && !r.err)
		snprintf(buf, len, "rc=%d", r.rc);
	else
		snprintf(buf, len, "rc=%d errno=%s(%d)", r.rc, errno_name(r.err), r.err);
	return buf;
}

/* Compare kernel and userbpf results; an fd-returning call only has to agree on success. */
static int diff_res_at(const char *file, int line, const char *what, const struct bpf_result r[2],
		       int fd_result)
{
	char a[64], b[64];
	int same;

	if (fd_result)
		same = (r[K].rc >= 0) == (r[U].rc >= 0) && r[K].err == r[U].err;
	else
		same = r[K].rc == r[U].rc && r[K].err == r[U].err;
	if (!same)
		test_fail(file, line, "%s: kernel %s, userbpf %s", what,
			  res_str(r[K], a, sizeof(a)), res_str(r[U], b, sizeof(b)));
	return same;
}

/* Check the kernel's result against a table's expectation: 0 means success, else the errno. */
static int expect_at(const char *file, int line, const char *what, struct bpf_result k, int want)
{
	char a[64];
	int ok = want ? (k.rc == -1 && k.err == want) : k.rc >= 0;

	if (!ok)
		test_fail(file, line, "%s: kernel (reference) gave %s, table expects %s", what,
			  res_str(k, a, sizeof(a)), want ? errno_name(want) : "success");
	return ok;
}

static int diff_bytes_at(const char *file, int line, const char *what, const void *k,
			 const void *u, size_t len)
{
	const unsigned char *pk = k, *pu = u;

	for (size_t i = 0; i < len; i++) {
		if (pk[i] != pu[i]) {
			test_fail(file, line, "%s: byte %zu differs: kernel 0x%02x, userbpf 0x%02x",
				  what, i, pk[i], pu[i]);
			return 0;
		}
	}
	return 1;
}

#define DIFF_RES(what, r) diff_res_at(__FILE__, __LINE__, what, r, 0)
#define DIFF_FD(what, r) diff_res_at(__FILE__, __LINE__, what, r, 1)
#define EXPECT(what, k, want) expect_at(__FILE__, __LINE__, what, k, want)
#define DIFF_BYTES(what, k, u, len) diff_bytes_at(__FILE__, __LINE__, what, k, u, len)

static void fill_out(void)
{
	memset(outbuf, 0xa5, sizeof(outbuf));
	memset(outbuf2, 0xa5, sizeof(outbuf2));
	memset(batchbuf, 0xa5, sizeof(batchbuf));
}

static union bpf_attr *attr_of(int s)
{
	return (union bpf_attr *)attrbuf[s];
}

static void run_both(int cmd, unsigned int size, struct bpf_result r[2])
{
	for (int s = 0; s < NSIDES; s++)
		r[s] = backend_call(side_be[s], cmd, attrbuf[s], size);
}

/* ---- maps on both sides ---- */

struct pair {
	int fd[NSIDES];
	uint32_t type, ks, vs, max, flags;
	int ordered; /* iteration order is deterministic: array, or hash with BPF_F_ZERO_SEED */
};

static void create_attr(int s, uint32_t type, uint32_t ks, uint32_t vs, uint32_t max,
			uint32_t flags)
{
	union bpf_attr *a = attr_of(s);

	memset(attrbuf[s], 0, sizeof(attrbuf[s]));
	a->map_type = type;
	a->key_size = ks;
	a->value_size = vs;
	a->max_entries = max;
	a->map_flags = flags;
}

static void pair_close(struct pair *p)
{
	for (int s = 0; s < NSIDES; s++) {
		if (p->fd[s] >= 0)
			close(p->fd[s]);
		p->fd[s] = -1;
	}
}

/* Create the same map on both sides; 0 when both succeeded. */
static int pair_create_at(const char *file, int line, struct pair *p, uint32_t type, uint32_t ks,
			  uint32_t vs, uint32_t max, uint32_t flags)
{
	struct bpf_result r[2];
	char what[128];

	for (int s = 0; s < NSIDES; s++)
		create_attr(s, type, ks, vs, max, flags);
	run_both(BPF_MAP_CREATE, sizeof(union bpf_attr), r);
	p->fd[K] = r[K].rc;
	p->fd[U] = r[U].rc;
	p->type = type;
	p->ks = ks;
	p->vs = vs;
	p->max = max;
	p->flags = flags;
	p->ordered = type == BPF_MAP_TYPE_ARRAY || (flags & BPF_F_ZERO_SEED);
	snprintf(what, sizeof(what), "MAP_CREATE type %u key %u value %u max %u flags 0x%x", type,
		 ks, vs, max, flags);
	if (!diff_res_at(file, line, what, r, 1) || r[K].rc < 0) {
		if (r[K].rc < 0 && r[U].rc < 0)
			test_fail(file, line, "%s: failed on both (errno %d)", what, r[K].err);
		pair_close(p);
		return -1;
	}
	return 0;
}

#define PAIR_CREATE(p, type, ks, vs, max, flags) \
	pair_create_at(__FILE__, __LINE__, p, type, ks, vs, max, flags)

static void elem_attr(int s, int fd, const void *key, const void *value, uint64_t flags)
{
	union bpf_attr *a = attr_of(s);

	memset(attrbuf[s], 0, sizeof(attrbuf[s]));
	a->map_fd = (uint32_t)fd;
	a->key = PTR_TO_U64(side_ptr(s, key));
	a->value = PTR_TO_U64(side_ptr(s, value));
	a->flags = flags;
}

static const char *cmd_name(int cmd)
{
	switch (cmd) {
	case BPF_MAP_CREATE: return "MAP_CREATE";
	case BPF_MAP_LOOKUP_ELEM: return "LOOKUP_ELEM";
	case BPF_MAP_UPDATE_ELEM: return "UPDATE_ELEM";
	case BPF_MAP_DELETE_ELEM: return "DELETE_ELEM";
	case BPF_MAP_GET_NEXT_KEY: return "GET_NEXT_KEY";
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM: return "LOOKUP_AND_DELETE_ELEM";
	case BPF_MAP_LOOKUP_BATCH: return "LOOKUP_BATCH";
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH: return "LOOKUP_AND_DELETE_BATCH";
	case BPF_MAP_UPDATE_BATCH: return "UPDATE_BATCH";
	case BPF_MAP_DELETE_BATCH: return "DELETE_BATCH";
	default: return "?";
	}
}

/* One element command on both maps of a pair (fds substituted per side).  key and value may be
 * OUT for the side's output buffer.  Compares rc/errno and, for reads, the output bytes.  Returns
 * the kernel's result. */
static struct bpf_result elem_both_at(const char *file, int line, const struct pair *p, int cmd,
				      const void *key, const void *value, uint64_t flags,
				      const char *note)
{
	struct bpf_result r[2];
	char what[160];
	size_t outlen = 0;

	fill_out();
	for (int s = 0; s < NSIDES; s++)
		elem_attr(s, p->fd[s], key, value, flags);
	run_both(cmd, sizeof(union bpf_attr), r);
	snprintf(what, sizeof(what), "%s flags 0x%llx on %s map (key %u value %u max %u mflags 0x%x)%s%s",
		 cmd_name(cmd), (unsigned long long)flags,
		 p->type == BPF_MAP_TYPE_ARRAY ? "array" : "hash", p->ks, p->vs, p->max, p->flags,
		 note ? ": " : "", note ? note : "");
	if (!diff_res_at(file, line, what, r, 0))
		return r[K];
	if (cmd == BPF_MAP_LOOKUP_ELEM || cmd == BPF_MAP_LOOKUP_AND_DELETE_ELEM)
		outlen = p->vs;
	else if (cmd == BPF_MAP_GET_NEXT_KEY && p->ordered)
		outlen = p->ks;
	if (outlen && value == OUT)
		diff_bytes_at(file, line, what, outbuf[K], outbuf[U], outlen + SLACK);
	return r[K];
}

#define ELEM(p, cmd, key, value, flags, note) \
	elem_both_at(__FILE__, __LINE__, p, cmd, key, value, flags, note)

/* ---- map contents ---- */

static size_t rec_size; /* for qsort of key|value records */

static int rec_cmp(const void *a, const void *b)
{
	return memcmp(a, b, rec_size);
}

/* Read a whole map (GET_NEXT_KEY from NULL, LOOKUP of each key) into key|value records.  Returns
 * the number of entries, or -1 on an error or a walk longer than max_entries. */
static int dump_side(const struct pair *p, int s, unsigned char *recs)
{
	unsigned char key[512], next[512];
	size_t rs = p->ks + p->vs;
	const void *cur = NULL;
	int n = 0;

	for (;;) {
		union bpf_attr *a = attr_of(s);
		struct bpf_result r;

		memset(a, 0, sizeof(*a));
		a->map_fd = (uint32_t)p->fd[s];
		a->key = PTR_TO_U64(cur);
		a->next_key = PTR_TO_U64(next);
		r = backend_call(side_be[s], BPF_MAP_GET_NEXT_KEY, a, sizeof(*a));
		if (r.rc < 0)
			return r.err == ENOENT ? n : -1;
		if ((uint32_t)n >= p->max)
			return -1;
		memcpy(key, next, p->ks);
		memcpy(recs + n * rs, key, p->ks);
		memset(a, 0, sizeof(*a));
		a->map_fd = (uint32_t)p->fd[s];
		a->key = PTR_TO_U64(key);
		a->value = PTR_TO_U64(recs + n * rs + p->ks);
		r = backend_call(side_be[s], BPF_MAP_LOOKUP_ELEM, a, sizeof(*a));
		if (r.rc < 0)
			return -1;
		n++;
		cur = key;
	}
}

/* Compare the maps' contents: exact order when the pair is ordered, else as sets. */
static int compare_contents_at(const char *file, int line, const struct pair *p, const char *note)
{
	size_t rs = p->ks + p->vs;
	unsigned char *recs[NSIDES];
	int n[NSIDES], ok = 1;

	for (int s = 0; s < NSIDES; s++) {
		recs[s] = calloc(p->max + 1, rs);
		n[s] = recs[s] ? dump_side(p, s, recs[s]) : -1;
	}
	if (n[K] < 0 || n[U] < 0 || n[K] != n[U]) {
		test_fail(file, line, "%s: contents: kernel has %d entries, userbpf %d (-1: walk failed)",
			  note, n[K], n[U]);
		ok = 0;
	} else {
		if (!p->ordered) {
			rec_size = rs;
			for (int s = 0; s < NSIDES; s++)
				qsort(recs[s], n[s], rs, rec_cmp);
		}
		ok = diff_bytes_at(file, line, note, recs[K], recs[U], n[K] * rs);
	}
	free(recs[K]);
	free(recs[U]);
	return ok;
}

#define COMPARE_CONTENTS(p, note) compare_contents_at(__FILE__, __LINE__, p, note)

/* Deterministic key/value bytes for test number i. */
static void make_bytes(unsigned char *buf, size_t len, uint32_t i, uint32_t salt)
{
	for (size_t j = 0; j < len; j++)
		buf[j] = (unsigned char)((i * 2654435761u + salt) >> (8 * (j % 4)) ^ (uint32_t)j);
	if (len >= 4)
		memcpy(buf, &i, 4); /* distinct keys for distinct i */
	else if (len)
		buf[0] = (unsigned char)i;
}

/* ==== 1. entry point attr rules ==== */

/* One valid call per map command, built on side s for map pair p (holding key 1 / index 1). */
struct cmd_case {
	int cmd;
	size_t last_end; /* offsetofend of the command's last field in this header's union */
};

static const struct cmd_case map_cmds[] = {
	{ BPF_MAP_CREATE, offsetof(union bpf_attr, map_extra) + 8 },
	{ BPF_MAP_LOOKUP_ELEM, offsetof(union bpf_attr, flags) + 8 },
	{ BPF_MAP_UPDATE_ELEM, offsetof(union bpf_attr, flags) + 8 },
	{ BPF_MAP_DELETE_ELEM, offsetof(union bpf_attr, key) + 8 },
	{ BPF_MAP_GET_NEXT_KEY, offsetof(union bpf_attr, next_key) + 8 },
	{ BPF_MAP_LOOKUP_AND_DELETE_ELEM, offsetof(union bpf_attr, flags) + 8 },
	{ BPF_MAP_LOOKUP_BATCH, offsetof(union bpf_attr, batch.flags) + 8 },
	{ BPF_MAP_LOOKUP_AND_DELETE_BATCH, offsetof(union bpf_attr, batch.flags) + 8 },
	{ BPF_MAP_UPDATE_BATCH, offsetof(union bpf_attr, batch.flags) + 8 },
	{ BPF_MAP_DELETE_BATCH, offsetof(union bpf_attr, batch.flags) + 8 },
};

static uint32_t key1 = 1, val1 = 0x11223344;

static void build_cmd(int s, int cmd, const struct pair *p)
{
	union bpf_attr *a = attr_of(s);

	memset(attrbuf[s], 0, sizeof(attrbuf[s]));
	switch (cmd) {
	case BPF_MAP_CREATE:
		create_attr(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0);
		break;
	case BPF_MAP_LOOKUP_ELEM:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_GET_NEXT_KEY:
		elem_attr(s, p->fd[s], &key1, OUT, 0);
		break;
	case BPF_MAP_UPDATE_ELEM:
		elem_attr(s, p->fd[s], &key1, &val1, 0);
		break;
	case BPF_MAP_DELETE_ELEM:
		elem_attr(s, p->fd[s], &key1, NULL, 0);
		break;
	default: /* batches of one element */
		a->batch.map_fd = (uint32_t)p->fd[s];
		a->batch.keys = PTR_TO_U64(cmd == BPF_MAP_LOOKUP_BATCH ||
						   cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH ?
					   (void *)outbuf[s] : (void *)&key1);
		a->batch.values = PTR_TO_U64(cmd == BPF_MAP_UPDATE_BATCH ? (void *)&val1 :
									  (void *)outbuf2[s]);
		a->batch.out_batch = PTR_TO_U64(batchbuf[s]);
		a->batch.count = 1;
		break;
	}
}

/* Put key 1 back so every variant starts from the same map. */
static void refill(const struct pair *p)
{
	for (int s = 0; s < NSIDES; s++) {
		elem_attr(s, p->fd[s], &key1, &val1, BPF_ANY);
		backend_call(side_be[s], BPF_MAP_UPDATE_ELEM, attrbuf[s], sizeof(union bpf_attr));
	}
}

/* A variant of the attr: the size passed, a byte set to 0x5a at some offset (or none). */
struct size_case {
	const char *name;
	unsigned int size; /* 0 here means the command's last_end */
	int poke;          /* offset of a non-zero byte, -1 none, -2: at last_end */
	int want;          /* -1: same result as the plain call; else the errno (0 success) */
};

static const struct size_case size_cases[] = {
	{ "exact size, garbage beyond it", 0, -3, -1 },
	{ "sizeof(union bpf_attr)", sizeof(union bpf_attr), -1, -1 },
	{ "size 4096, zero tail", 4096, -1, -1 },
	{ "size 4097, zero tail", 4097, -1, E2BIG },
	{ "size 4096, byte 4095 set", 4096, 4095, E2BIG },
	{ "size 1000, byte 999 set", 1000, 999, E2BIG },
	{ "size 256, byte 200 set", 256, 200, E2BIG },
	{ "size 168, byte 167 set (inside the 6.18 union)", 168, 167, EINVAL },
	{ "size 4096, byte right after the last field set", 4096, -2, EINVAL },
	{ "size 0", 1, -4, -1 },
};

TEST(diff_attr_size_rules)
{
	struct pair p;
	char what[160];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(PAIR_CREATE(&p, BPF_MAP_TYPE_HASH, 4, 4, 8, BPF_F_ZERO_SEED) == 0);
	for (size_t c = 0; c < sizeof(map_cmds) / sizeof(map_cmds[0]); c++) {
		const struct cmd_case *cc = &map_cmds[c];
		struct bpf_result plain[2];

		refill(&p);
		fill_out();
		for (int s = 0; s < NSIDES; s++)
			build_cmd(s, cc->cmd, &p);
		run_both(cc->cmd, sizeof(union bpf_attr), plain);
		snprintf(what, sizeof(what), "%s plain", cmd_name(cc->cmd));
		DIFF_FD(what, plain);
		if (cc->cmd == BPF_MAP_CREATE)
			for (int s = 0; s < NSIDES; s++)
				if (plain[s].rc >= 0)
					close(plain[s].rc);
		for (size_t i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
			const struct size_case *sc = &size_cases[i];
			unsigned int size = sc->size ? sc->size : (unsigned int)cc->last_end;
			struct bpf_result r[2];
			int want = sc->want;

			/* BPF_MAP_CREATE's 6.18 fields go to offset 92; other commands end as here */
			if (sc->poke == -2 && cc->cmd == BPF_MAP_CREATE)
				want = 0;
			refill(&p);
			fill_out();
			for (int s = 0; s < NSIDES; s++) {
				build_cmd(s, cc->cmd, &p);
				if (sc->poke >= 0)
					attrbuf[s][sc->poke] = 0x5a;
				else if (sc->poke == -2)
					attrbuf[s][cc->last_end] = 0x5a;
				else if (sc->poke == -3)
					memset(attrbuf[s] + size, 0xee, 256);
				else if (sc->poke == -4)
					size = 0;
			}
			run_both(cc->cmd, size, r);
			snprintf(what, sizeof(what), "%s, %s (size %u)", cmd_name(cc->cmd), sc->name,
				 size);
			DIFF_FD(what, r);
			if (want >= 0)
				EXPECT(what, r[K], want);
			else if (sc->poke != -4)
				CHECK((r[K].rc >= 0) == (plain[K].rc >= 0) && r[K].err == plain[K].err);
			if (cc->cmd == BPF_MAP_CREATE)
				for (int s = 0; s < NSIDES; s++)
					if (r[s].rc >= 0)
						close(r[s].rc);
		}
	}
	COMPARE_CONTENTS(&p, "after attr size rules");
	pair_close(&p);
}

TEST(diff_attr_null_and_unknown_cmd)
{
	static const unsigned int sizes[] = { 1, 8, sizeof(union bpf_attr), 168, 4096 };
	static const int bad_cmds[] = { 1000, -1, 0x7fffffff, 0x10000 };
	struct bpf_result r[2];
	char what[128];

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(map_cmds) / sizeof(map_cmds[0]); c++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			for (int s = 0; s < NSIDES; s++)
				r[s] = backend_call(side_be[s], map_cmds[c].cmd, NULL, sizes[i]);
			snprintf(what, sizeof(what), "%s, NULL attr, size %u", cmd_name(map_cmds[c].cmd),
				 sizes[i]);
			DIFF_RES(what, r);
			EXPECT(what, r[K], EFAULT);
		}
		/* NULL with size 0: an all-zero attr, so map_fd 0 (whatever stdin is) */
		for (int s = 0; s < NSIDES; s++)
			r[s] = backend_call(side_be[s], map_cmds[c].cmd, NULL, 0);
		snprintf(what, sizeof(what), "%s, NULL attr, size 0", cmd_name(map_cmds[c].cmd));
		DIFF_RES(what, r);
		CHECK(r[K].rc == -1);
	}
	for (size_t i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++) {
		for (int s = 0; s < NSIDES; s++) {
			memset(attrbuf[s], 0, sizeof(attrbuf[s]));
			r[s] = backend_call(side_be[s], bad_cmds[i], attrbuf[s], sizeof(union bpf_attr));
		}
		snprintf(what, sizeof(what), "unknown command %d", bad_cmds[i]);
		DIFF_RES(what, r);
		EXPECT(what, r[K], EINVAL);
	}
}

/* ==== 2. BPF_MAP_CREATE validation ==== */

#define H BPF_MAP_TYPE_HASH
#define A BPF_MAP_TYPE_ARRAY

struct create_case {
	const char *name;
	uint32_t type, ks, vs, max, flags;
	uint32_t numa;
	const char name_bytes[BPF_OBJ_NAME_LEN];
	uint64_t extra;
	uint32_t btf_fd, btf_key, btf_value, btf_vmlinux, ifindex, inner_fd;
	int want; /* 0 success, else errno */
};

static const struct create_case create_cases[] = {
	{ "hash 4/4/16", H, 4, 4, 16, 0, .want = 0 },
	{ "array 4/4/16", A, 4, 4, 16, 0, .want = 0 },
	{ "map_type 0", 0, 4, 4, 16, 0, .want = EINVAL },
	{ "map_type 1000", 1000, 4, 4, 16, 0, .want = EINVAL },
	/* key and value sizes */
	{ "hash key 0", H, 0, 4, 16, 0, .want = EINVAL },
	{ "hash value 0", H, 4, 0, 16, 0, .want = EINVAL },
	{ "hash key 1 value 1", H, 1, 1, 16, 0, .want = 0 },
	{ "hash key 512", H, 512, 4, 4, 0, .want = 0 },
	{ "hash key 513 (no stack limit on 6.18)", H, 513, 4, 4, 0, .want = 0 },
	{ "hash key 1<<20", H, 1u << 20, 4, 1, BPF_F_NO_PREALLOC, .want = 0 },
	{ "hash key 1<<22 (KMALLOC_MAX_SIZE)", H, 1u << 22, 4, 1, BPF_F_NO_PREALLOC, .want = E2BIG },
	{ "hash key 1<<31", H, 1u << 31, 4, 4, 0, .want = E2BIG },
	{ "hash value 65536", H, 4, 65536, 2, 0, .want = 0 },
	{ "hash value 1<<22", H, 4, 1u << 22, 2, 0, .want = E2BIG },
	{ "hash value 1<<30", H, 4, 1u << 30, 2, 0, .want = E2BIG },
	{ "hash value 0xffffffff", H, 4, 0xffffffffu, 2, 0, .want = E2BIG },
	{ "array key 0", A, 0, 4, 16, 0, .want = EINVAL },
	{ "array key 1", A, 1, 4, 16, 0, .want = EINVAL },
	{ "array key 8", A, 8, 4, 16, 0, .want = EINVAL },
	{ "array value 0", A, 4, 0, 16, 0, .want = EINVAL },
	{ "array value 1", A, 4, 1, 16, 0, .want = 0 },
	{ "array value 1<<22", A, 4, 1u << 22, 1, 0, .want = 0 },
	{ "array value (1<<22)+1", A, 4, (1u << 22) + 1, 1, 0, .want = 0 },
	{ "array value 0x80000000 (> INT_MAX)", A, 4, 0x80000000u, 1, 0, .want = E2BIG },
	{ "array value 0xffffffff", A, 4, 0xffffffffu, 1, 0, .want = E2BIG },
	/* max_entries */
	{ "hash max 0", H, 4, 4, 0, 0, .want = EINVAL },
	{ "hash max 1", H, 4, 4, 1, 0, .want = 0 },
	{ "hash max 65536", H, 4, 4, 65536, 0, .want = 0 },
	{ "hash no-prealloc max 1<<20", H, 4, 4, 1u << 20, BPF_F_NO_PREALLOC, .want = 0 },
	{ "hash no-prealloc max (1<<28)+1", H, 4, 4, (1u << 28) + 1, BPF_F_NO_PREALLOC,
	  .want = E2BIG },
	{ "hash no-prealloc max 0xffffffff", H, 4, 4, 0xffffffffu, BPF_F_NO_PREALLOC,
	  .want = E2BIG },
	{ "hash max (1<<28)+1", H, 4, 4, (1u << 28) + 1, 0, .want = E2BIG },
	{ "array max 0", A, 4, 4, 0, 0, .want = EINVAL },
	{ "array max 1", A, 4, 4, 1, 0, .want = 0 },
	{ "array max 1<<20", A, 4, 4, 1u << 20, 0, .want = 0 },
	/* map_flags */
	{ "hash NO_PREALLOC", H, 4, 4, 16, BPF_F_NO_PREALLOC, .want = 0 },
	{ "array NO_PREALLOC", A, 4, 4, 16, BPF_F_NO_PREALLOC, .want = EINVAL },
	{ "hash NUMA_NODE node 0", H, 4, 4, 16, BPF_F_NUMA_NODE, .numa = 0, .want = 0 },
	{ "array NUMA_NODE node 0", A, 4, 4, 16, BPF_F_NUMA_NODE, .numa = 0, .want = 0 },
	{ "hash NUMA_NODE node 1000", H, 4, 4, 16, BPF_F_NUMA_NODE, .numa = 1000, .want = EINVAL },
	{ "array NUMA_NODE node 1000", A, 4, 4, 16, BPF_F_NUMA_NODE, .numa = 1000, .want = EINVAL },
	{ "hash numa_node 1000 without the flag", H, 4, 4, 16, 0, .numa = 1000, .want = 0 },
	{ "hash RDONLY", H, 4, 4, 16, BPF_F_RDONLY, .want = 0 },
	{ "hash WRONLY", H, 4, 4, 16, BPF_F_WRONLY, .want = 0 },
	{ "hash RDONLY|WRONLY", H, 4, 4, 16, BPF_F_RDONLY | BPF_F_WRONLY, .want = EINVAL },
	{ "array RDONLY|WRONLY", A, 4, 4, 16, BPF_F_RDONLY | BPF_F_WRONLY, .want = EINVAL },
	{ "hash RDONLY_PROG", H, 4, 4, 16, BPF_F_RDONLY_PROG, .want = 0 },
	{ "hash WRONLY_PROG", H, 4, 4, 16, BPF_F_WRONLY_PROG, .want = 0 },
	{ "array RDONLY_PROG|WRONLY_PROG", A, 4, 4, 16, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG,
	  .want = EINVAL },
	{ "hash RDONLY_PROG|WRONLY_PROG", H, 4, 4, 16, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG,
	  .want = EINVAL },
	{ "hash RDONLY|WRONLY_PROG", H, 4, 4, 16, BPF_F_RDONLY | BPF_F_WRONLY_PROG, .want = 0 },
	{ "hash ZERO_SEED", H, 4, 4, 16, BPF_F_ZERO_SEED, .want = 0 },
	{ "array ZERO_SEED", A, 4, 4, 16, BPF_F_ZERO_SEED, .want = EINVAL },
	{ "hash ZERO_SEED|NO_PREALLOC", H, 4, 4, 16, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC,
	  .want = 0 },
	{ "hash MMAPABLE", H, 4, 4, 16, BPF_F_MMAPABLE, .want = EINVAL },
	{ "array MMAPABLE", A, 4, 4, 16, BPF_F_MMAPABLE, .want = 0 },
	{ "array MMAPABLE|RDONLY_PROG", A, 4, 4, 16, BPF_F_MMAPABLE | BPF_F_RDONLY_PROG,
	  .want = 0 },
	{ "hash PRESERVE_ELEMS", H, 4, 4, 16, BPF_F_PRESERVE_ELEMS, .want = EINVAL },
	{ "array PRESERVE_ELEMS", A, 4, 4, 16, BPF_F_PRESERVE_ELEMS, .want = EINVAL },
	{ "hash INNER_MAP", H, 4, 4, 16, BPF_F_INNER_MAP, .want = EINVAL },
	{ "array INNER_MAP", A, 4, 4, 16, BPF_F_INNER_MAP, .want = 0 },
	{ "hash NO_COMMON_LRU", H, 4, 4, 16, BPF_F_NO_COMMON_LRU, .want = EINVAL },
	{ "hash STACK_BUILD_ID", H, 4, 4, 16, BPF_F_STACK_BUILD_ID, .want = EINVAL },
	{ "hash all access flags", H, 4, 4, 16,
	  BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, .want = EINVAL },
	{ "hash bit 31", H, 4, 4, 16, 1u << 31, .want = EINVAL },
	{ "array bit 31", A, 4, 4, 16, 1u << 31, .want = EINVAL },
	/* map_name */
	{ "name alnum _ .", H, 4, 4, 16, 0, .name_bytes = "Ab_9.x", .want = 0 },
	{ "name with '-'", H, 4, 4, 16, 0, .name_bytes = "a-b", .want = EINVAL },
	{ "name with ' '", A, 4, 4, 16, 0, .name_bytes = "a b", .want = EINVAL },
	/* the kernel's isalnum() follows Latin-1: 0xc3 is a letter */
	{ "name with 0xc3", H, 4, 4, 16, 0, .name_bytes = "a\xc3", .want = 0 },
	{ "name with 0xd7", H, 4, 4, 16, 0, .name_bytes = "a\xd7", .want = EINVAL },
	{ "name of 15 chars", H, 4, 4, 16, 0, .name_bytes = "abcdefghijklmno", .want = 0 },
	{ "name of 16 chars, no NUL", H, 4, 4, 16, 0, .name_bytes = "abcdefghijklmnop",
	  .want = EINVAL },
	{ "name: junk after the NUL", H, 4, 4, 16, 0, .name_bytes = "ab\0-!?", .want = 0 },
	/* other fields */
	{ "hash map_extra 1", H, 4, 4, 16, 0, .extra = 1, .want = EINVAL },
	{ "array map_extra 1<<40", A, 4, 4, 16, 0, .extra = 1ull << 40, .want = EINVAL },
	{ "btf_key_type_id without value id", H, 4, 4, 16, 0, .btf_key = 1, .want = EINVAL },
	{ "btf_fd alone", H, 4, 4, 16, 0, .btf_fd = 12345, .want = 0 },
	{ "btf_value_type_id, bad btf_fd", H, 4, 4, 16, 0, .btf_fd = 0xffffffffu, .btf_value = 1,
	  .want = EBADF },
	{ "btf_vmlinux_value_type_id", H, 4, 4, 16, 0, .btf_vmlinux = 1, .want = EINVAL },
	{ "map_ifindex 1", H, 4, 4, 16, 0, .ifindex = 1, .want = EOPNOTSUPP },
	{ "array map_ifindex 1000000", A, 4, 4, 16, 0, .ifindex = 1000000, .want = EINVAL },
	{ "hash inner_map_fd 12345", H, 4, 4, 16, 0, .inner_fd = 12345, .want = 0 },
};

static void create_case_attr(int s, const struct create_case *c)
{
	union bpf_attr *a = attr_of(s);

	create_attr(s, c->type, c->ks, c->vs, c->max, c->flags);
	a->numa_node = c->numa;
	memcpy(a->map_name, c->name_bytes, BPF_OBJ_NAME_LEN);
	a->map_extra = c->extra;
	a->btf_fd = c->btf_fd;
	a->btf_key_type_id = c->btf_key;
	a->btf_value_type_id = c->btf_value;
	a->btf_vmlinux_value_type_id = c->btf_vmlinux;
	a->map_ifindex = c->ifindex;
	a->inner_map_fd = c->inner_fd;
}

static void close_results(const struct bpf_result r[2])
{
	for (int s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
}

TEST(diff_map_create_table)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(create_cases) / sizeof(create_cases[0]); i++) {
		const struct create_case *c = &create_cases[i];
		struct bpf_result r[2];
		char what[128];

		for (int s = 0; s < NSIDES; s++)
			create_case_attr(s, c);
		run_both(BPF_MAP_CREATE, sizeof(union bpf_attr), r);
		snprintf(what, sizeof(what), "MAP_CREATE %s", c->name);
		DIFF_FD(what, r);
		EXPECT(what, r[K], c->want);
		close_results(r);
	}
}

/* Every map_flags bit alone and every pair of bits, on both map types. */
TEST(diff_map_create_flag_bits)
{
	static const uint32_t types[] = { H, A };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < 2; t++) {
		for (int b1 = 0; b1 < 32; b1++) {
			for (int b2 = b1; b2 < 32; b2++) {
				uint32_t flags = (1u << b1) | (1u << b2);
				struct bpf_result r[2];
				char what[96];

				for (int s = 0; s < NSIDES; s++)
					create_attr(s, types[t], 4, 8, 8, flags);
				run_both(BPF_MAP_CREATE, sizeof(union bpf_attr), r);
				snprintf(what, sizeof(what), "MAP_CREATE %s flags 0x%x",
					 t ? "array" : "hash", flags);
				DIFF_FD(what, r);
				close_results(r);
			}
		}
	}
}

/* Each name byte value 1..255 as a one-character name. */
TEST(diff_map_create_name_chars)
{
	char bad[256 * 5 + 1] = "";
	size_t len = 0;
	int nbad = 0, nok = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int ch = 1; ch < 256; ch++) {
		struct bpf_result r[2];

		for (int s = 0; s < NSIDES; s++) {
			create_attr(s, H, 4, 4, 4, 0);
			attr_of(s)->map_name[0] = 'm';
			attr_of(s)->map_name[1] = (char)ch;
		}
		run_both(BPF_MAP_CREATE, sizeof(union bpf_attr), r);
		nok += r[K].rc >= 0;
		if ((r[K].rc >= 0) != (r[U].rc >= 0) || r[K].err != r[U].err) {
			len += snprintf(bad + len, sizeof(bad) - len, " %02x", ch);
			nbad++;
		}
		close_results(r);
	}
	/* one line for all the byte values where the two disagree */
	if (nbad)
		test_fail(__FILE__, __LINE__,
			  "MAP_CREATE name \"m<byte>\": kernel and userbpf disagree on %d bytes:%s",
			  nbad, bad);
	CHECK(nok >= 64); /* at least [0-9A-Za-z_.] are accepted by the kernel */
}

/* ==== 3. element commands ==== */

struct map_cfg {
	const char *name;
	uint32_t type, ks, vs, max, flags;
};

static const struct map_cfg elem_cfgs[] = {
	{ "hash prealloc", H, 4, 8, 4, BPF_F_ZERO_SEED },
	{ "hash no-prealloc", H, 4, 8, 4, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
	{ "hash random seed", H, 4, 8, 4, 0 },
	{ "array", A, 4, 8, 4, 0 },
};

static const uint64_t flag_values[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, BPF_F_LOCK | BPF_EXIST, 1ull << 32, ~0ull,
};

static const int elem_cmds[] = {
	BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM, BPF_MAP_GET_NEXT_KEY,
	BPF_MAP_LOOKUP_AND_DELETE_ELEM,
};

/* Put keys 0 and 1 (values derived from the key) into both maps. */
static void put_keys01(const struct pair *p)
{
	unsigned char val[64];

	for (uint32_t k = 0; k < 2; k++) {
		make_bytes(val, p->vs, k, 7);
		ELEM(p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, "setup");
	}
}

TEST(diff_elem_every_flag)
{
	static const uint32_t keys[] = { 1, 3, 7, 0xffffffffu };
	unsigned char val[64];

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(elem_cfgs) / sizeof(elem_cfgs[0]); c++) {
		const struct map_cfg *mc = &elem_cfgs[c];
		struct pair p;

		if (PAIR_CREATE(&p, mc->type, mc->ks, mc->vs, mc->max, mc->flags))
			continue;
		for (size_t ci = 0; ci < sizeof(elem_cmds) / sizeof(elem_cmds[0]); ci++) {
			for (size_t f = 0; f < sizeof(flag_values) / sizeof(flag_values[0]); f++) {
				for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
					int cmd = elem_cmds[ci];

					/* which key follows key 1 depends on the random seed */
					if (!p.ordered && cmd == BPF_MAP_GET_NEXT_KEY && keys[k] == 1 &&
					    !flag_values[f])
						continue;
					put_keys01(&p);
					make_bytes(val, p.vs, keys[k], 99);
					ELEM(&p, cmd, &keys[k],
					     cmd == BPF_MAP_UPDATE_ELEM ? (void *)val :
					     cmd == BPF_MAP_DELETE_ELEM ? NULL : OUT,
					     flag_values[f], mc->name);
				}
			}
			COMPARE_CONTENTS(&p, mc->name);
		}
		pair_close(&p);
	}
}

/* A full hash map: new keys get E2BIG, existing keys can still be updated. */
TEST(diff_elem_full_hash)
{
	static const uint32_t mflags[] = { BPF_F_ZERO_SEED, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC };
	unsigned char val[16];

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t m = 0; m < 2; m++) {
		struct pair p;
		uint32_t k;

		REQUIRE(PAIR_CREATE(&p, H, 4, 8, 4, mflags[m]) == 0);
		for (k = 0; k < 4; k++) {
			make_bytes(val, 8, k, 1);
			EXPECT("fill", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_NOEXIST, "fill"), 0);
		}
		k = 4;
		EXPECT("new key, NOEXIST", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_NOEXIST, "full"),
		       E2BIG);
		EXPECT("new key, ANY", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, "full"), E2BIG);
		EXPECT("new key, EXIST", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_EXIST, "full"),
		       ENOENT);
		for (k = 0; k < 4; k++) {
			make_bytes(val, 8, k, 2);
			EXPECT("old key, ANY", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, "full"), 0);
			EXPECT("old key, EXIST", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_EXIST, "full"),
			       0);
			EXPECT("old key, NOEXIST",
			       ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_NOEXIST, "full"), EEXIST);
		}
		COMPARE_CONTENTS(&p, "full map after updates");
		k = 2;
		EXPECT("delete", ELEM(&p, BPF_MAP_DELETE_ELEM, &k, NULL, 0, "full"), 0);
		k = 9;
		EXPECT("new key after a delete", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_NOEXIST,
						      "after delete"), 0);
		k = 10;
		EXPECT("full again", ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, "full"), E2BIG);
		k = 9;
		EXPECT("lookup_and_delete", ELEM(&p, BPF_MAP_LOOKUP_AND_DELETE_ELEM, &k, OUT, 0, NULL),
		       0);
		k = 10;
		EXPECT("insert after lookup_and_delete",
		       ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, NULL), 0);
		COMPARE_CONTENTS(&p, "full map at the end");
		pair_close(&p);
	}
}

TEST(diff_elem_get_next_key)
{
	uint32_t k, missing = 12345;
	unsigned char val[8] = { 0 };
	struct pair p;

	SKIP_WITHOUT_KERNEL_BPF();
	/* hash, deterministic order */
	REQUIRE(PAIR_CREATE(&p, H, 4, 8, 16, BPF_F_ZERO_SEED) == 0);
	EXPECT("empty, NULL key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, NULL, OUT, 0, "empty"), ENOENT);
	EXPECT("empty, missing key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, &missing, OUT, 0, "empty"),
	       ENOENT);
	for (k = 100; k < 110; k++)
		ELEM(&p, BPF_MAP_UPDATE_ELEM, &k, val, BPF_ANY, NULL);
	EXPECT("NULL key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, NULL, OUT, 0, "NULL key"), 0);
	EXPECT("missing key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, &missing, OUT, 0, "missing key"), 0);
	CHECK(DIFF_BYTES("first key", outbuf[K], outbuf[U], 4));
	{
		uint32_t first;
		int steps = 0;

		ELEM(&p, BPF_MAP_GET_NEXT_KEY, NULL, OUT, 0, NULL);
		memcpy(&first, outbuf[K], 4);
		ELEM(&p, BPF_MAP_GET_NEXT_KEY, &missing, OUT, 0, NULL);
		CHECK(memcmp(&first, outbuf[K], 4) == 0); /* missing key gives the first key */
		k = first;
		while (steps < 20 && ELEM(&p, BPF_MAP_GET_NEXT_KEY, &k, OUT, 0, "walk").rc == 0) {
			memcpy(&k, outbuf[K], 4);
			steps++;
		}
		CHECK_EQ(steps, 9);
		EXPECT("after the last key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, &k, OUT, 0, "last"),
		       ENOENT);
	}
	pair_close(&p);

	/* array */
	REQUIRE(PAIR_CREATE(&p, A, 4, 8, 5, 0) == 0);
	{
		static const uint32_t idx[] = { 0, 1, 3, 4, 5, 6, 1000, 0xffffffffu };
		static const int want[] = { 0, 0, 0, ENOENT, 0, 0, 0, 0 };

		EXPECT("array NULL key", ELEM(&p, BPF_MAP_GET_NEXT_KEY, NULL, OUT, 0, "NULL"), 0);
		CHECK_EQ(*(uint32_t *)outbuf[K], 0);
		for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
			char note[32];

			snprintf(note, sizeof(note), "index %u", idx[i]);
			EXPECT(note, ELEM(&p, BPF_MAP_GET_NEXT_KEY, &idx[i], OUT, 0, note), want[i]);
			if (idx[i] >= 5)
				CHECK_EQ(*(uint32_t *)outbuf[K], 0); /* out of range: first index */
		}
	}
	pair_close(&p);
}

TEST(diff_elem_array_rules)
{
	static const struct {
		int cmd;
		uint32_t idx;
		uint64_t flags;
		int want;
	} cases[] = {
		{ BPF_MAP_DELETE_ELEM, 0, 0, EINVAL },
		{ BPF_MAP_DELETE_ELEM, 100, 0, EINVAL },
		{ BPF_MAP_LOOKUP_AND_DELETE_ELEM, 0, 0, ENOTSUPP_K },
		{ BPF_MAP_LOOKUP_AND_DELETE_ELEM, 100, 0, ENOTSUPP_K },
		{ BPF_MAP_LOOKUP_AND_DELETE_ELEM, 0, 1, EINVAL },
		{ BPF_MAP_UPDATE_ELEM, 3, BPF_ANY, 0 },
		{ BPF_MAP_UPDATE_ELEM, 3, BPF_EXIST, 0 },
		{ BPF_MAP_UPDATE_ELEM, 3, BPF_NOEXIST, EEXIST },
		{ BPF_MAP_UPDATE_ELEM, 4, BPF_ANY, E2BIG },
		{ BPF_MAP_UPDATE_ELEM, 0xffffffffu, BPF_ANY, E2BIG },
		{ BPF_MAP_UPDATE_ELEM, 3, BPF_F_LOCK, EINVAL },
		{ BPF_MAP_UPDATE_ELEM, 3, 4 | BPF_EXIST, EINVAL },
		{ BPF_MAP_UPDATE_ELEM, 3, 8, EINVAL },
		{ BPF_MAP_LOOKUP_ELEM, 3, 0, 0 },
		{ BPF_MAP_LOOKUP_ELEM, 4, 0, ENOENT },
		{ BPF_MAP_LOOKUP_ELEM, 3, BPF_F_LOCK, EINVAL },
		{ BPF_MAP_LOOKUP_ELEM, 3, 1, EINVAL },
	};
	unsigned char val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct pair p;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(PAIR_CREATE(&p, A, 4, 8, 4, 0) == 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char note[64];

		snprintf(note, sizeof(note), "case %zu index %u", i, cases[i].idx);
		EXPECT(note, ELEM(&p, cases[i].cmd, &cases[i].idx,
				  cases[i].cmd == BPF_MAP_UPDATE_ELEM ? (void *)val :
				  cases[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : OUT,
				  cases[i].flags, note), cases[i].want);
	}
	COMPARE_CONTENTS(&p, "array after rules");
	pair_close(&p);
}

/* Maps created BPF_F_RDONLY / BPF_F_WRONLY: the syscall side may only read / only write. */
TEST(diff_elem_permissions)
{
	static const struct {
		uint32_t mflags;
		int cmd;
		int want_hash, want_array;
	} cases[] = {
		{ BPF_F_RDONLY, BPF_MAP_LOOKUP_ELEM, ENOENT, 0 },
		{ BPF_F_RDONLY, BPF_MAP_GET_NEXT_KEY, ENOENT, 0 },
		{ BPF_F_RDONLY, BPF_MAP_UPDATE_ELEM, EPERM, EPERM },
		{ BPF_F_RDONLY, BPF_MAP_DELETE_ELEM, EPERM, EPERM },
		{ BPF_F_RDONLY, BPF_MAP_LOOKUP_AND_DELETE_ELEM, EPERM, EPERM },
		{ BPF_F_WRONLY, BPF_MAP_LOOKUP_ELEM, EPERM, EPERM },
		{ BPF_F_WRONLY, BPF_MAP_GET_NEXT_KEY, EPERM, EPERM },
		{ BPF_F_WRONLY, BPF_MAP_UPDATE_ELEM, 0, 0 },
		{ BPF_F_WRONLY, BPF_MAP_DELETE_ELEM, 0, EINVAL },
		{ BPF_F_WRONLY, BPF_MAP_LOOKUP_AND_DELETE_ELEM, EPERM, EPERM },
		{ BPF_F_RDONLY_PROG, BPF_MAP_UPDATE_ELEM, 0, 0 },
		{ BPF_F_WRONLY_PROG, BPF_MAP_LOOKUP_ELEM, 0, 0 },
	};
	unsigned char val[8] = { 9 };
	uint32_t key = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int t = 0; t < 2; t++) {
			struct pair p;
			char note[64];

			if (PAIR_CREATE(&p, t ? A : H, 4, 8, 4, cases[i].mflags))
				continue;
			if (!t && cases[i].want_hash == 0 && cases[i].cmd != BPF_MAP_UPDATE_ELEM &&
			    !(cases[i].mflags & BPF_F_RDONLY))
				ELEM(&p, BPF_MAP_UPDATE_ELEM, &key, val, BPF_ANY, "setup");
			snprintf(note, sizeof(note), "case %zu", i);
			EXPECT(note, ELEM(&p, cases[i].cmd, &key,
					  cases[i].cmd == BPF_MAP_UPDATE_ELEM ? (void *)val :
					  cases[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : OUT, 0, note),
			       t ? cases[i].want_array : cases[i].want_hash);
			pair_close(&p);
		}
	}
}

/* NULL key/value pointers and bad fds. */
TEST(diff_elem_bad_pointers_and_fds)
{
	unsigned char val[8] = { 1 };
	uint32_t key = 0, absent = 3, far = 100;
	struct pair p, closed;
	int devnull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		REQUIRE(PAIR_CREATE(&p, t ? A : H, 4, 8, 4, BPF_F_ZERO_SEED * !t) == 0);
		ELEM(&p, BPF_MAP_UPDATE_ELEM, &key, val, BPF_ANY, NULL);
		EXPECT("lookup NULL key", ELEM(&p, BPF_MAP_LOOKUP_ELEM, NULL, OUT, 0, "NULL key"),
		       EFAULT);
		EXPECT("lookup NULL value", ELEM(&p, BPF_MAP_LOOKUP_ELEM, &key, NULL, 0, "NULL value"),
		       EFAULT);
		ELEM(&p, BPF_MAP_LOOKUP_ELEM, &absent, NULL, 0, "NULL value, absent key");
		EXPECT("update NULL key", ELEM(&p, BPF_MAP_UPDATE_ELEM, NULL, val, 0, "NULL key"),
		       EFAULT);
		EXPECT("update NULL value", ELEM(&p, BPF_MAP_UPDATE_ELEM, &key, NULL, 0, "NULL value"),
		       EFAULT);
		ELEM(&p, BPF_MAP_UPDATE_ELEM, NULL, NULL, 8, "NULL key, bad flags");
		ELEM(&p, BPF_MAP_DELETE_ELEM, NULL, NULL, 0, "NULL key");
		ELEM(&p, BPF_MAP_LOOKUP_AND_DELETE_ELEM, NULL, OUT, 0, "NULL key");
		ELEM(&p, BPF_MAP_LOOKUP_AND_DELETE_ELEM, &key, NULL, 0, "NULL value");
		/* the kernel deletes before it fails to copy the value out, so put the key back */
		ELEM(&p, BPF_MAP_UPDATE_ELEM, &key, val, BPF_ANY, NULL);
		EXPECT("get_next_key NULL next",
		       ELEM(&p, BPF_MAP_GET_NEXT_KEY, &far, NULL, 0, "NULL next_key"), EFAULT);
		ELEM(&p, BPF_MAP_GET_NEXT_KEY, NULL, NULL, 0, "NULL key and next_key");
		COMPARE_CONTENTS(&p, "after NULL pointers");
		pair_close(&p);
	}

	devnull = open("/dev/null", O_RDWR); /* before closing, so it cannot reuse those fds */
	REQUIRE(devnull >= 0);
	REQUIRE(PAIR_CREATE(&closed, H, 4, 8, 4, 0) == 0);
	{
		int cfd[NSIDES] = { closed.fd[K], closed.fd[U] };

		pair_close(&closed);
		closed.fd[K] = cfd[K];
		closed.fd[U] = cfd[U];
	}
	for (size_t ci = 0; ci < sizeof(elem_cmds) / sizeof(elem_cmds[0]); ci++) {
		static const int fixed_fds[] = { -1, -1000, 0x7fffffff };
		int cmd = elem_cmds[ci];
		const void *v = cmd == BPF_MAP_UPDATE_ELEM ? (void *)val :
				cmd == BPF_MAP_DELETE_ELEM ? NULL : OUT;
		struct pair bad = closed;

		EXPECT(cmd_name(cmd), ELEM(&bad, cmd, &key, v, 0, "closed fd"), EBADF);
		for (size_t i = 0; i < 3; i++) {
			bad.fd[K] = bad.fd[U] = fixed_fds[i];
			EXPECT(cmd_name(cmd), ELEM(&bad, cmd, &key, v, 0, "bad fd"), EBADF);
		}
		bad.fd[K] = bad.fd[U] = devnull;
		EXPECT(cmd_name(cmd), ELEM(&bad, cmd, &key, v, 0, "/dev/null"), EINVAL);
		EXPECT(cmd_name(cmd), ELEM(&bad, cmd, &key, v, 1ull << 40, "/dev/null, flags 1<<40"),
		       EINVAL);
	}
	close(devnull);
}

/* ==== 4. batch commands ==== */

struct batch_args {
	const void *in_batch[NSIDES]; /* NULL, or each side's token */
	int out_batch;                /* 1: batchbuf[s], 0: NULL */
	const void *keys, *values;    /* OUT / OUT2 for outputs, or shared inputs */
	uint32_t count;
	uint64_t elem_flags, flags;
};

/* One batch command on both sides.  Compares rc/errno, the count written back and the outputs
 * (as sets when the pair's order is not deterministic).  Returns the kernel's result; the count
 * each side wrote back goes to counts[]. */
static struct bpf_result batch_both_at(const char *file, int line, const struct pair *p, int cmd,
				       const struct batch_args *b, uint32_t counts[NSIDES],
				       const char *note)
{
	struct bpf_result r[2];
	char what[200];
	int reads = cmd == BPF_MAP_LOOKUP_BATCH || cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;

	fill_out();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr *a = attr_of(s);

		memset(attrbuf[s], 0, sizeof(attrbuf[s]));
		a->batch.map_fd = (uint32_t)p->fd[s];
		a->batch.in_batch = PTR_TO_U64(b->in_batch[s]);
		a->batch.out_batch = PTR_TO_U64(b->out_batch ? batchbuf[s] : NULL);
		a->batch.keys = PTR_TO_U64(side_ptr(s, b->keys));
		a->batch.values = PTR_TO_U64(side_ptr(s, b->values));
		a->batch.count = b->count;
		a->batch.elem_flags = b->elem_flags;
		a->batch.flags = b->flags;
	}
	run_both(cmd, sizeof(union bpf_attr), r);
	for (int s = 0; s < NSIDES; s++)
		counts[s] = attr_of(s)->batch.count;
	snprintf(what, sizeof(what),
		 "%s count %u elem_flags 0x%llx flags 0x%llx in_batch %s on %s map (key %u value %u max %u mflags 0x%x)%s%s",
		 cmd_name(cmd), b->count, (unsigned long long)b->elem_flags,
		 (unsigned long long)b->flags, b->in_batch[K] ? "set" : "NULL",
		 p->type == A ? "array" : "hash", p->ks, p->vs, p->max, p->flags, note ? ": " : "",
		 note ? note : "");
	if (!diff_res_at(file, line, what, r, 0))
		return r[K];
	if (counts[K] != counts[U]) {
		test_fail(file, line, "%s: count written back: kernel %u, userbpf %u", what,
			  counts[K], counts[U]);
		return r[K];
	}
	if (!reads || b->keys != OUT || b->values != OUT2 || b->count > OUT_BUF / 64)
		return r[K];
	if (p->ordered) {
		if (b->out_batch)
			diff_bytes_at(file, line, what, batchbuf[K], batchbuf[U], sizeof(batchbuf[K]));
		diff_bytes_at(file, line, what, outbuf[K], outbuf[U],
			      (size_t)b->count * p->ks + SLACK);
		diff_bytes_at(file, line, what, outbuf2[K], outbuf2[U],
			      (size_t)b->count * p->vs + SLACK);
	} else if (counts[K] <= b->count) {
		/* same key -> value pairs, in any order */
		size_t rs = p->ks + p->vs, n = counts[K];
		unsigned char *recs[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			recs[s] = malloc(n * rs + 1);
			for (size_t i = 0; recs[s] && i < n; i++) {
				memcpy(recs[s] + i * rs, outbuf[s] + i * p->ks, p->ks);
				memcpy(recs[s] + i * rs + p->ks, outbuf2[s] + i * p->vs, p->vs);
			}
		}
		if (recs[K] && recs[U]) {
			rec_size = rs;
			qsort(recs[K], n, rs, rec_cmp);
			qsort(recs[U], n, rs, rec_cmp);
			diff_bytes_at(file, line, what, recs[K], recs[U], n * rs);
		}
		free(recs[K]);
		free(recs[U]);
	}
	return r[K];
}

#define BATCH(p, cmd, b, counts, note) batch_both_at(__FILE__, __LINE__, p, cmd, b, counts, note)

/* Fill a pair with n entries: keys make_bytes(i), values make_bytes(i, salt). */
static void fill_pair(const struct pair *p, uint32_t n, uint32_t salt)
{
	unsigned char key[64], val[64];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t idx = i;

		make_bytes(key, p->ks, i, 0);
		make_bytes(val, p->vs, i, salt);
		ELEM(p, BPF_MAP_UPDATE_ELEM, p->type == A ? (void *)&idx : (void *)key, val, BPF_ANY,
		     "fill");
	}
}

/* Walk a map with LOOKUP_BATCH (or LOOKUP_AND_DELETE_BATCH) and count entries per step. */
static void batch_walk(const struct pair *p, int cmd, uint32_t count, const char *note)
{
	static _Alignas(8) unsigned char token[NSIDES][64];
	struct batch_args b = { { NULL, NULL }, 1, OUT, OUT2, count, 0, 0 };
	uint32_t counts[NSIDES];
	int steps;

	for (steps = 0; steps < 300; steps++) {
		struct bpf_result r = BATCH(p, cmd, &b, counts, note);

		if (r.rc < 0 || test_failed_now())
			break;
		for (int s = 0; s < NSIDES; s++) {
			memcpy(token[s], batchbuf[s], sizeof(token[s]));
			b.in_batch[s] = token[s];
		}
	}
	CHECK(steps < 300);
}

TEST(diff_batch_walks)
{
	static const struct map_cfg cfgs[] = {
		{ "hash", H, 4, 8, 64, BPF_F_ZERO_SEED },
		{ "hash no-prealloc", H, 8, 13, 32, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
		{ "hash random seed", H, 4, 4, 16, 0 },
		{ "array", A, 4, 8, 50, 0 },
		{ "array 1", A, 4, 1, 1, 0 },
	};
	static const uint32_t counts[] = { 1, 2, 3, 7, 64, 1000 };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		const struct map_cfg *mc = &cfgs[c];

		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			struct pair p;

			/* without ZERO_SEED, ENOSPC depends on the seed: only whole-map reads */
			if (mc->type == H && !(mc->flags & BPF_F_ZERO_SEED) && counts[i] < mc->max)
				continue;
			if (PAIR_CREATE(&p, mc->type, mc->ks, mc->vs, mc->max, mc->flags))
				continue;
			batch_walk(&p, BPF_MAP_LOOKUP_BATCH, counts[i], "empty map");
			fill_pair(&p, mc->max * 3 / 4 + 1, 5);
			batch_walk(&p, BPF_MAP_LOOKUP_BATCH, counts[i], mc->name);
			batch_walk(&p, BPF_MAP_LOOKUP_AND_DELETE_BATCH, counts[i], mc->name);
			COMPARE_CONTENTS(&p, mc->name);
			pair_close(&p);
		}
	}
}

TEST(diff_batch_rules)
{
	static const struct map_cfg cfgs[] = {
		{ "hash", H, 4, 8, 16, BPF_F_ZERO_SEED },
		{ "array", A, 4, 8, 16, 0 },
	};
	static const int cmds[] = { BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_AND_DELETE_BATCH,
				    BPF_MAP_UPDATE_BATCH, BPF_MAP_DELETE_BATCH };
	static const uint64_t eflags[] = { 0, 1, 2, 3, 4, 5, 8, 1ull << 32 };
	static const uint64_t bflags[] = { 0, 1, 4, 1ull << 63 };
	static const uint32_t cnts[] = { 0, 1, 5, 16, 100 };
	_Alignas(8) unsigned char keys[64 * 8], vals[64 * 8];
	uint32_t counts[NSIDES], big_token = 1000;

	SKIP_WITHOUT_KERNEL_BPF();
	for (uint32_t i = 0; i < 64; i++) {
		uint32_t k = i % 20; /* indices 16..19 are out of range for the array */

		memcpy(keys + 4 * i, &k, 4);
		make_bytes(vals + 8 * i, 8, i, 3);
	}
	for (size_t c = 0; c < 2; c++) {
		const struct map_cfg *mc = &cfgs[c];
		struct pair p;

		if (PAIR_CREATE(&p, mc->type, mc->ks, mc->vs, mc->max, mc->flags))
			continue;
		for (size_t ci = 0; ci < 4; ci++) {
			int cmd = cmds[ci];
			int reads = cmd == BPF_MAP_LOOKUP_BATCH ||
				    cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;

			for (size_t e = 0; e < sizeof(eflags) / sizeof(eflags[0]); e++)
				for (size_t f = 0; f < sizeof(bflags) / sizeof(bflags[0]); f++)
					for (size_t n = 0; n < sizeof(cnts) / sizeof(cnts[0]); n++) {
						struct batch_args b = {
							{ NULL, NULL }, 1, reads ? OUT : keys,
							reads ? OUT2 : vals, cnts[n], eflags[e],
							bflags[f]
						};

						fill_pair(&p, 10, 1);
						BATCH(&p, cmd, &b, counts, mc->name);
					}
			/* NULL keys / values / out_batch, and a token past the end */
			{
				struct batch_args b = { { NULL, NULL }, 1, NULL, reads ? OUT2 : vals,
							4, 0, 0 };

				fill_pair(&p, 10, 2);
				BATCH(&p, cmd, &b, counts, "NULL keys");
				b.keys = reads ? OUT : keys;
				b.values = NULL;
				fill_pair(&p, 10, 2);
				BATCH(&p, cmd, &b, counts, "NULL values");
				b.values = reads ? OUT2 : vals;
				b.out_batch = 0;
				fill_pair(&p, 10, 2);
				BATCH(&p, cmd, &b, counts, "NULL out_batch");
				b.out_batch = 1;
				b.in_batch[K] = b.in_batch[U] = &big_token;
				fill_pair(&p, 10, 2);
				BATCH(&p, cmd, &b, counts, "in_batch 1000");
			}
			COMPARE_CONTENTS(&p, cmd_name(cmd));
		}
		pair_close(&p);
	}
}

/* Expected kernel results for a few batch rules. */
TEST(diff_batch_expected)
{
	_Alignas(8) unsigned char keys[16 * 4], vals[16 * 8];
	uint32_t counts[NSIDES];
	struct pair p;

	SKIP_WITHOUT_KERNEL_BPF();
	for (uint32_t i = 0; i < 16; i++) {
		memcpy(keys + 4 * i, &i, 4);
		make_bytes(vals + 8 * i, 8, i, 4);
	}
	REQUIRE(PAIR_CREATE(&p, A, 4, 8, 8, 0) == 0);
	{
		struct batch_args b = { { NULL, NULL }, 1, keys, NULL, 4, 0, 0 };

		EXPECT("array DELETE_BATCH", BATCH(&p, BPF_MAP_DELETE_BATCH, &b, counts, NULL),
		       ENOTSUPP_K);
		b.keys = OUT;
		b.values = OUT2;
		EXPECT("array LOOKUP_AND_DELETE_BATCH",
		       BATCH(&p, BPF_MAP_LOOKUP_AND_DELETE_BATCH, &b, counts, NULL), ENOTSUPP_K);
		b.count = 8;
		/* exactly max_entries: success, not ENOENT */
		EXPECT("array LOOKUP_BATCH, all", BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL),
		       0);
		CHECK_EQ(counts[K], 8);
		b.count = 9;
		EXPECT("array LOOKUP_BATCH, more than all",
		       BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL), ENOENT);
		CHECK_EQ(counts[K], 8);
		b.keys = keys;
		b.values = vals;
		b.count = 10; /* indices 8 and 9 are out of range */
		EXPECT("array UPDATE_BATCH past the end",
		       BATCH(&p, BPF_MAP_UPDATE_BATCH, &b, counts, NULL), E2BIG);
		CHECK_EQ(counts[K], 8);
	}
	COMPARE_CONTENTS(&p, "array batch");
	pair_close(&p);

	REQUIRE(PAIR_CREATE(&p, H, 4, 8, 8, BPF_F_ZERO_SEED) == 0);
	{
		struct batch_args b = { { NULL, NULL }, 1, keys, vals, 6, 0, 0 };

		EXPECT("hash UPDATE_BATCH 6", BATCH(&p, BPF_MAP_UPDATE_BATCH, &b, counts, NULL), 0);
		CHECK_EQ(counts[K], 6);
		b.count = 10;
		b.elem_flags = BPF_NOEXIST;
		/* elem_flags of UPDATE_BATCH may only be BPF_F_LOCK; count is left alone */
		EXPECT("hash UPDATE_BATCH NOEXIST", BATCH(&p, BPF_MAP_UPDATE_BATCH, &b, counts, NULL),
		       EINVAL);
		CHECK_EQ(counts[K], 10);
		b.elem_flags = 0;
		EXPECT("hash UPDATE_BATCH into a full map",
		       BATCH(&p, BPF_MAP_UPDATE_BATCH, &b, counts, NULL), E2BIG);
		CHECK_EQ(counts[K], 8);
		b.count = 0;
		EXPECT("hash UPDATE_BATCH count 0", BATCH(&p, BPF_MAP_UPDATE_BATCH, &b, counts, NULL),
		       0);
		b.count = 10;
		b.values = NULL;
		EXPECT("hash DELETE_BATCH, 2 missing", BATCH(&p, BPF_MAP_DELETE_BATCH, &b, counts, NULL),
		       ENOENT);
		CHECK_EQ(counts[K], 8);
		b.keys = OUT;
		b.values = OUT2;
		b.count = 0;
		EXPECT("hash LOOKUP_BATCH count 0", BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL),
		       0);
		b.count = 8;
		EXPECT("hash LOOKUP_BATCH empty", BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL),
		       ENOENT);
		CHECK_EQ(counts[K], 0);
		b.flags = 1;
		EXPECT("hash LOOKUP_BATCH flags 1", BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL),
		       EINVAL);
		b.flags = 0;
		b.elem_flags = BPF_F_LOCK;
		EXPECT("hash LOOKUP_BATCH F_LOCK", BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, NULL),
		       EINVAL);
	}
	pair_close(&p);

	/* ENOSPC: with max_entries 2 and 2 buckets, find two keys that share a bucket */
	REQUIRE(PAIR_CREATE(&p, H, 4, 8, 64, BPF_F_ZERO_SEED) == 0);
	fill_pair(&p, 64, 9);
	{
		struct batch_args b = { { NULL, NULL }, 1, OUT, OUT2, 1, 0, 0 };
		int enospc = 0;
		uint32_t tok[NSIDES] = { 0, 0 };

		/* 64 keys in 64 buckets: some bucket holds two, which count 1 cannot take */
		for (uint32_t bucket = 0; bucket < 64; bucket++) {
			struct bpf_result r;

			tok[K] = tok[U] = bucket;
			b.in_batch[K] = &tok[K];
			b.in_batch[U] = &tok[U];
			r = BATCH(&p, BPF_MAP_LOOKUP_BATCH, &b, counts, "count 1, per bucket");
			if (r.rc < 0 && r.err == ENOSPC)
				enospc++;
		}
		CHECK(enospc > 0);
	}
	pair_close(&p);
}

/* ==== 5. iteration order under BPF_F_ZERO_SEED ==== */

TEST(diff_order_zero_seed)
{
	static const struct map_cfg cfgs[] = {
		{ "1-byte keys", H, 1, 4, 16, BPF_F_ZERO_SEED },
		{ "4-byte keys", H, 4, 8, 100, BPF_F_ZERO_SEED },
		{ "8-byte keys, no-prealloc", H, 8, 8, 33, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
		{ "13-byte keys", H, 13, 3, 64, BPF_F_ZERO_SEED },
		{ "64-byte keys", H, 64, 64, 20, BPF_F_ZERO_SEED },
		{ "3 entries", H, 4, 4, 3, BPF_F_ZERO_SEED },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		const struct map_cfg *mc = &cfgs[c];
		unsigned char key[64], val[64];
		struct pair p;

		if (PAIR_CREATE(&p, mc->type, mc->ks, mc->vs, mc->max, mc->flags))
			continue;
		fill_pair(&p, mc->max, 1);
		COMPARE_CONTENTS(&p, "after fill");
		/* updates move an element to the head of its bucket */
		for (uint32_t i = 0; i < mc->max; i += 3) {
			make_bytes(key, mc->ks, i, 0);
			make_bytes(val, mc->vs, i, 2);
			ELEM(&p, BPF_MAP_UPDATE_ELEM, key, val, BPF_EXIST, "reorder");
		}
		COMPARE_CONTENTS(&p, "after updates");
		for (uint32_t i = 1; i < mc->max; i += 2) {
			make_bytes(key, mc->ks, i, 0);
			ELEM(&p, BPF_MAP_DELETE_ELEM, key, NULL, 0, "thin out");
		}
		for (uint32_t i = mc->max; i < mc->max * 3 / 2; i++) {
			make_bytes(key, mc->ks, i, 0);
			make_bytes(val, mc->vs, i, 3);
			ELEM(&p, BPF_MAP_UPDATE_ELEM, key, val, BPF_NOEXIST, "refill");
		}
		COMPARE_CONTENTS(&p, "after deletes and inserts");
		for (uint32_t n = 1; n <= 3; n++)
			batch_walk(&p, BPF_MAP_LOOKUP_BATCH, n, mc->name);
		batch_walk(&p, BPF_MAP_LOOKUP_BATCH, mc->max, mc->name);
		pair_close(&p);
	}
}

/* ==== 6. seeded random operation sequences ==== */

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng() % n);
}

/* Pick a key: from a pool a little larger than the map (hits and misses), rarely anything. */
static void random_key(const struct pair *p, unsigned char *key)
{
	if (p->type == A) {
		uint32_t idx = rng_below(8) ? rng_below(p->max + 2) : (uint32_t)rng();

		memcpy(key, &idx, 4);
		return;
	}
	if (rng_below(16) == 0) {
		for (uint32_t i = 0; i < p->ks; i++)
			key[i] = (unsigned char)rng();
		return;
	}
	make_bytes(key, p->ks, rng_below(p->ks == 1 ? 256 : p->max * 2 + 2), 0);
}

static uint64_t random_flags(int update)
{
	if (rng_below(5))
		return update ? rng_below(3) : 0;
	return flag_values[rng_below(sizeof(flag_values) / sizeof(flag_values[0]))];
}

static void random_op(const struct pair *p, uint32_t n_buckets)
{
	static _Alignas(8) unsigned char keys[64 * 64], vals[64 * 64], key[64], val[64];
	static _Alignas(8) uint32_t token;
	uint32_t counts[NSIDES];
	uint32_t op = rng_below(100);

	random_key(p, key);
	for (uint32_t i = 0; i < p->vs; i++)
		val[i] = (unsigned char)rng();
	if (op < 35) {
		ELEM(p, BPF_MAP_UPDATE_ELEM, key, rng_below(50) ? (void *)val : NULL,
		     random_flags(1), "random");
	} else if (op < 50) {
		ELEM(p, BPF_MAP_LOOKUP_ELEM, key, rng_below(50) ? OUT : NULL, random_flags(0),
		     "random");
	} else if (op < 63) {
		ELEM(p, BPF_MAP_DELETE_ELEM, rng_below(50) ? (void *)key : NULL, NULL,
		     rng_below(10) ? 0 : random_flags(0), "random");
	} else if (op < 73) {
		/* without a fixed seed, which key follows an existing key is not comparable */
		const void *k = p->ordered && rng_below(4) ? (void *)key : NULL;

		if (!p->ordered && rng_below(2)) {
			memset(key, 0xfe, p->ks); /* never in the pool */
			k = key;
		}
		ELEM(p, BPF_MAP_GET_NEXT_KEY, k, OUT, rng_below(20) ? 0 : random_flags(0), "random");
	} else if (op < 81) {
		ELEM(p, BPF_MAP_LOOKUP_AND_DELETE_ELEM, key, OUT, random_flags(0), "random");
	} else {
		static const int cmds[] = { BPF_MAP_LOOKUP_BATCH, BPF_MAP_LOOKUP_AND_DELETE_BATCH,
					    BPF_MAP_UPDATE_BATCH, BPF_MAP_DELETE_BATCH };
		int cmd = cmds[rng_below(4)];
		int reads = cmd == BPF_MAP_LOOKUP_BATCH || cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;
		uint32_t n = rng_below(p->max + 2);
		struct batch_args b = { { NULL, NULL }, 1, reads ? OUT : keys, reads ? OUT2 : vals,
					n, rng_below(10) ? 0 : random_flags(0),
					rng_below(20) ? 0 : random_flags(0) };

		if (n > 64)
			n = b.count = 64;
		if (reads && !p->ordered)
			b.count = p->max; /* whole-map reads only: ENOSPC would depend on the seed */
		if (reads && p->ordered && rng_below(3) == 0) {
			if (p->type == A) {
				token = rng_below(p->max + 2);
			} else {
				token = rng_below(n_buckets + 2);
			}
			b.in_batch[K] = b.in_batch[U] = &token;
		}
		for (uint32_t i = 0; !reads && i < n; i++) {
			random_key(p, keys + i * p->ks);
			for (uint32_t j = 0; j < p->vs; j++)
				vals[i * p->vs + j] = (unsigned char)rng();
		}
		BATCH(p, cmd, &b, counts, "random");
	}
}

TEST(diff_random_sequences)
{
	static const struct map_cfg cfgs[] = {
		{ "hash 1/1 max 8", H, 1, 1, 8, BPF_F_ZERO_SEED },
		{ "hash 4/4 max 16", H, 4, 4, 16, BPF_F_ZERO_SEED },
		{ "hash 8/13 max 33 no-prealloc", H, 8, 13, 33, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
		{ "hash 13/64 max 64", H, 13, 64, 64, BPF_F_ZERO_SEED },
		{ "hash 64/8 max 5 no-prealloc, random seed", H, 64, 8, 5, BPF_F_NO_PREALLOC },
		{ "hash 4/8 max 1", H, 4, 8, 1, BPF_F_ZERO_SEED },
		{ "hash 13/4 max 20, random seed", H, 13, 4, 20, 0 },
		{ "hash 1/8 max 64 no-prealloc", H, 1, 8, 64, BPF_F_ZERO_SEED | BPF_F_NO_PREALLOC },
		{ "array 4/1 max 1", A, 4, 1, 1, 0 },
		{ "array 4/13 max 17", A, 4, 13, 17, 0 },
		{ "array 4/64 max 64", A, 4, 64, 64, 0 },
	};
	const char *env = getenv("USERBPF_DIFF_SEED");
	uint64_t base = env ? strtoull(env, NULL, 0) : 0x5eed2024ull;
	int ops = getenv("USERBPF_DIFF_OPS") ? atoi(getenv("USERBPF_DIFF_OPS")) : 5000;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		const struct map_cfg *mc = &cfgs[c];
		uint64_t seed = base + c;
		uint32_t n_buckets = 1;
		int before = test_failed_now();
		struct pair p;

		while (n_buckets < mc->max)
			n_buckets <<= 1;
		rng_state = seed ? seed : 1;
		if (PAIR_CREATE(&p, mc->type, mc->ks, mc->vs, mc->max, mc->flags))
			continue;
		for (int i = 0; i < ops && test_failed_now() == before; i++) {
			random_op(&p, n_buckets);
			if (i % 500 == 499)
				COMPARE_CONTENTS(&p, mc->name);
			if (test_failed_now() != before)
				fprintf(stderr, "  random sequence \"%s\": seed 0x%llx (set USERBPF_DIFF_SEED=0x%llx), failed at op %d\n",
					mc->name, (unsigned long long)seed,
					(unsigned long long)base, i);
		}
		if (test_failed_now() == before && !COMPARE_CONTENTS(&p, mc->name))
			fprintf(stderr, "  random sequence \"%s\": seed 0x%llx (USERBPF_DIFF_SEED=0x%llx)\n",
				mc->name, (unsigned long long)seed, (unsigned long long)base);
		pair_close(&p);
	}
}

/* BPF_MAP_FREEZE on both sides: writes from user space refused afterwards (EPERM) while reads
 * work; a second freeze, a read-only fd, a bad fd, a non-map fd, a set tail byte; mmap after the
 * freeze (writable: EPERM; read-only: allowed, and mprotect cannot make it writable); a freeze
 * while a writable mapping exists (EBUSY). */
TEST(diff_map_freeze)
{
	struct pair p, m;
	uint32_t key = 0, key2 = 1;
	uint64_t val = 7;
	struct bpf_result r[2];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(PAIR_CREATE(&p, BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_MMAPABLE) == 0);
	elem_both_at(__FILE__, __LINE__, &p, BPF_MAP_UPDATE_ELEM, &key, &val, BPF_ANY, NULL);
	/* freeze: map_fd is its last field */
	for (int s = 0; s < NSIDES; s++) {
		memset(attrbuf[s], 0, sizeof(attrbuf[s]));
		attr_of(s)->map_fd = (uint32_t)p.fd[s];
		attrbuf[s][4] = 1;
	}
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE with a set byte after map_fd", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		attrbuf[s][4] = 0;
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE", r);
	CHECK_EQ(r[U].rc, 0);
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE again", r);
	CHECK(r[U].rc < 0);
	CHECK_EQ(elem_both_at(__FILE__, __LINE__, &p, BPF_MAP_UPDATE_ELEM, &key2, &val, BPF_ANY,
			      "frozen").err, EPERM);
	CHECK_EQ(elem_both_at(__FILE__, __LINE__, &p, BPF_MAP_DELETE_ELEM, &key, NULL, 0,
			      "frozen").err, EPERM);
	CHECK_EQ(elem_both_at(__FILE__, __LINE__, &p, BPF_MAP_LOOKUP_ELEM, &key, OUT, 0,
			      "frozen").rc, 0);
	for (int s = 0; s < NSIDES; s++) {
		void *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd[s], 0);
		void *ro = mmap(NULL, 4096, PROT_READ, MAP_SHARED, p.fd[s], 0);

		CHECK(w == MAP_FAILED && errno == EPERM);
		CHECK(ro != MAP_FAILED);
		if (ro != MAP_FAILED) {
			CHECK_EQ(*(uint64_t *)ro, 7);
			CHECK(mprotect(ro, 4096, PROT_READ | PROT_WRITE) != 0);
			munmap(ro, 4096);
		}
		if (w != MAP_FAILED)
			munmap(w, 4096);
	}
	/* fds that are not maps, or not there */
	for (int s = 0; s < NSIDES; s++) {
		memset(attrbuf[s], 0, sizeof(attrbuf[s]));
		attr_of(s)->map_fd = 0x7fffff;
	}
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE of a closed fd", r);
	CHECK_EQ(r[U].err, EBADF);
	for (int s = 0; s < NSIDES; s++)
		attr_of(s)->map_fd = 1;
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE of stdout", r);
	pair_close(&p);

	/* a read-only fd may not freeze */
	REQUIRE(PAIR_CREATE(&p, BPF_MAP_TYPE_HASH, 4, 8, 2, BPF_F_RDONLY) == 0);
	for (int s = 0; s < NSIDES; s++) {
		memset(attrbuf[s], 0, sizeof(attrbuf[s]));
		attr_of(s)->map_fd = (uint32_t)p.fd[s];
	}
	run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
	DIFF_RES("MAP_FREEZE through a read-only fd", r);
	CHECK_EQ(r[U].err, EPERM);
	pair_close(&p);

	/* a live writable mapping: EBUSY */
	REQUIRE(PAIR_CREATE(&m, BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_MMAPABLE) == 0);
	{
		void *w[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			w[s] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m.fd[s], 0);
			CHECK(w[s] != MAP_FAILED);
			memset(attrbuf[s], 0, sizeof(attrbuf[s]));
			attr_of(s)->map_fd = (uint32_t)m.fd[s];
		}
		run_both(BPF_MAP_FREEZE, sizeof(union bpf_attr), r);
		DIFF_RES("MAP_FREEZE with a writable mapping", r);
		CHECK_EQ(r[U].err, EBUSY);
		for (int s = 0; s < NSIDES; s++)
			if (w[s] != MAP_FAILED)
				munmap(w[s], 4096);
	}
	pair_close(&m);
}
