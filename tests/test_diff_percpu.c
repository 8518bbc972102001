/* Per-CPU maps, differentially: BPF_MAP_TYPE_PERCPU_ARRAY and BPF_MAP_TYPE_PERCPU_HASH on the
 * live kernel and on userbpf.  Through bpf() a per-CPU value is round_up(value_size, 8) bytes for
 * each possible CPU, CPU 0 first; a program sees only its CPU's.  Covered: creation rules, element
 * and batch commands on that layout (every byte written to user memory is compared, with slack
 * after it), and programs that change their CPU's copy, run through BPF_PROG_TEST_RUN with the
 * test pinned to one CPU so that both sides' programs see the same one.  Skipped where the
 * kernel's bpf() is unavailable.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SLACK 16
#define OUT_MAX 65536

static _Alignas(8) unsigned char out[NSIDES][OUT_MAX + SLACK];

/* Possible CPUs, counted as libbpf counts them (the ranges of /sys/.../cpu/possible). */
static unsigned int possible_cpus(void)
{
	char buf[256], *p = buf;
	unsigned int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	}
	fclose(f);
	while (*p >= '0' && *p <= '9') {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		n += (unsigned int)(b - a + 1);
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

static int bytes_agree_at(const char *file, int line, const char *what, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (out[K][i] != out[U][i]) {
			test_fail(file, line, "%s: byte %zu: kernel %#x, userbpf %#x", what, i,
				  out[K][i], out[U][i]);
			return 0;
		}
	return 1;
}
#define BYTES_AGREE(what, len) bytes_agree_at(__FILE__, __LINE__, what, len)

struct pmap {
	int fd[NSIDES];
	uint32_t type, ks, vs, max;
	size_t uvs; /* value bytes through bpf() */
};

static int pmap_create(struct pmap *m, uint32_t type, uint32_t ks, uint32_t vs, uint32_t max,
		       uint32_t flags)
{
	struct bpf_result r[2];

	for (int s = 0; s < NSIDES; s++) {
		r[s] = side_map_create(s, type, ks, vs, max, flags);
		m->fd[s] = r[s].rc;
	}
	m->type = type;
	m->ks = ks;
	m->vs = vs;
	m->max = max;
	m->uvs = (size_t)((vs + 7) / 8 * 8) * possible_cpus();
	return AGREE("MAP_CREATE", r) && r[K].rc >= 0 ? 0 : -1;
}

static void pmap_close(struct pmap *m)
{
	for (int s = 0; s < NSIDES; s++)
		if (m->fd[s] >= 0)
			close(m->fd[s]);
}

/* Hash maps iterate in the kernel's order only with the kernel's seed. */
static uint32_t order_flags(uint32_t type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH ? BPF_F_ZERO_SEED : 0;
}

/* One element command on both sides; value is in or out (OUT: out[s], compared after). */
#define OUTBUF ((const void *)1)
static struct bpf_result elem_at(const char *file, int line, const struct pmap *m, int cmd,
				 const void *key, const void *value, uint64_t flags,
				 const char *what)
{
	struct bpf_result r[2];
	union bpf_attr a;

	memset(out, 0xa5, sizeof(out));
	for (int s = 0; s < NSIDES; s++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)m->fd[s];
		a.key = PTR_TO_U64(key);
		a.value = PTR_TO_U64(value == OUTBUF ? out[s] : value);
		a.flags = flags;
		r[s] = side_call(s, cmd, &a);
	}
	if (results_agree_at(file, line, what, r) && value == OUTBUF && r[K].rc >= 0)
		bytes_agree_at(file, line, what, cmd == BPF_MAP_GET_NEXT_KEY ? m->ks + SLACK
									     : m->uvs + SLACK);
	return r[K];
}
#define ELEM(m, cmd, key, value, flags, what) elem_at(__FILE__, __LINE__, m, cmd, key, value, flags, what)

/* A per-CPU value: every CPU's copy different, padding bytes included. */
static void pattern(unsigned char *v, size_t len, unsigned int salt)
{
	for (size_t i = 0; i < len; i++)
		v[i] = (unsigned char)(i * 13 + salt * 7 + 1);
}

/* All of the map, key by key in GET_NEXT_KEY order, on both sides: keys and values agree. */
static void contents_agree_at(const char *file, int line, const struct pmap *m, const char *what)
{
	unsigned char key[2][64], next[2][64];
	int have = 0, n = 0;

	for (;;) {
		struct bpf_result r[2];
		union bpf_attr a;

		for (int s = 0; s < NSIDES; s++) {
			memset(&a, 0, sizeof(a));
			a.map_fd = (uint32_t)m->fd[s];
			a.key = have ? PTR_TO_U64(key[s]) : 0;
			a.next_key = PTR_TO_U64(next[s]);
			r[s] = side_call(s, BPF_MAP_GET_NEXT_KEY, &a);
		}
		if (!results_agree_at(file, line, what, r) || r[K].rc < 0 || ++n > (int)m->max + 1)
			return;
		if (memcmp(next[K], next[U], m->ks)) {
			test_fail(file, line, "%s: key %d differs", what, n);
			return;
		}
		memcpy(key, next, sizeof(key));
		have = 1;
		elem_at(file, line, m, BPF_MAP_LOOKUP_ELEM, next[K], OUTBUF, 0, what);
	}
}
#define CONTENTS_AGREE(m, what) contents_agree_at(__FILE__, __LINE__, m, what)

TEST(diff_percpu_create)
{
	static const struct {
		uint32_t type, ks, vs, max, flags;
		int err; /* the kernel's errno, 0: created */
	} cases[] = {
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 8, 8, 4, 0, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 0, 4, 0, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 0, 0, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_MMAPABLE, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_INNER_MAP, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_NUMA_NODE, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_NO_PREALLOC, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_ZERO_SEED, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_RDONLY_PROG, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, BPF_F_RDONLY, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32768, 4, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32761, 4, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32769, 4, 0, E2BIG },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 1, 100000, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 3, 5, 4, BPF_F_NO_PREALLOC, 0 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, BPF_F_ZERO_SEED, 0 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, BPF_F_NUMA_NODE, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, BPF_F_MMAPABLE, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, BPF_F_NO_COMMON_LRU, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_HASH, 0, 8, 4, 0, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 0, 4, 0, EINVAL },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 32768, 4, 0, 0 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 32769, 4, 0, E2BIG },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_result r[2];
		union bpf_attr a;
		char what[96];

		snprintf(what, sizeof(what), "create type %u key %u value %u max %u flags %#x",
			 cases[i].type, cases[i].ks, cases[i].vs, cases[i].max, cases[i].flags);
		for (int s = 0; s < NSIDES; s++) {
			memset(&a, 0, sizeof(a));
			a.map_type = cases[i].type;
			a.key_size = cases[i].ks;
			a.value_size = cases[i].vs;
			a.max_entries = cases[i].max;
			a.map_flags = cases[i].flags;
			r[s] = side_call(s, BPF_MAP_CREATE, &a);
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

static void elements(uint32_t type, uint32_t vs)
{
	unsigned char *v = malloc(OUT_MAX);
	uint32_t key;
	struct pmap m;

	if (!v || pmap_create(&m, type, 4, vs, 4, order_flags(type))) {
		free(v);
		return;
	}
	key = 0;
	ELEM(&m, BPF_MAP_LOOKUP_ELEM, &key, OUTBUF, 0, "lookup of a fresh element");
	pattern(v, m.uvs, 1);
	key = 1;
	ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "update, every CPU");
	ELEM(&m, BPF_MAP_LOOKUP_ELEM, &key, OUTBUF, 0, "lookup after the update");
	ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_NOEXIST, "update NOEXIST");
	pattern(v, m.uvs, 2);
	ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_EXIST, "update EXIST");
	ELEM(&m, BPF_MAP_LOOKUP_ELEM, &key, OUTBUF, 0, "lookup after EXIST");
	for (uint64_t f = 3; f <= 32; f = f == 3 ? 4 : f * 2) {
		ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, f, "update with flags");
		ELEM(&m, BPF_MAP_LOOKUP_ELEM, &key, OUTBUF, f, "lookup with flags");
	}
	for (key = 2; key < 4; key++)
		ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "update of another key");
	pattern(v, m.uvs, 4);
	key = 2;
	ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "update of an older key");
	CONTENTS_AGREE(&m, "contents after the updates");
	key = 4;
	ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "update beyond max_entries");
	ELEM(&m, BPF_MAP_LOOKUP_ELEM, &key, OUTBUF, 0, "lookup beyond max_entries");
	key = 1;
	ELEM(&m, BPF_MAP_DELETE_ELEM, &key, NULL, 0, "delete");
	ELEM(&m, BPF_MAP_LOOKUP_AND_DELETE_ELEM, &key, OUTBUF, 0, "lookup and delete");
	key = 9;
	ELEM(&m, BPF_MAP_DELETE_ELEM, &key, NULL, 0, "delete of a missing key");
	ELEM(&m, BPF_MAP_GET_NEXT_KEY, NULL, OUTBUF, 0, "first key");
	key = 2;
	ELEM(&m, BPF_MAP_GET_NEXT_KEY, &key, OUTBUF, 0, "next key");
	CONTENTS_AGREE(&m, "contents");
	pmap_close(&m);
	free(v);
}

TEST(diff_percpu_array_elements)
{
	SKIP_WITHOUT_KERNEL_BPF();
	elements(BPF_MAP_TYPE_PERCPU_ARRAY, 8);
	elements(BPF_MAP_TYPE_PERCPU_ARRAY, 12);
	elements(BPF_MAP_TYPE_PERCPU_ARRAY, 3);
	elements(BPF_MAP_TYPE_PERCPU_ARRAY, 200);
}

static void batches(uint32_t type, uint32_t vs)
{
	uint32_t keys[4] = { 3, 0, 2, 1 }, count, out_batch[NSIDES];
	unsigned char *v = malloc(4 * OUT_MAX);
	struct bpf_result r[2];
	union bpf_attr a;
	struct pmap m;

	if (!v || pmap_create(&m, type, 4, vs, 4, order_flags(type))) {
		free(v);
		return;
	}
	pattern(v, 4 * m.uvs, 3);
	for (int s = 0; s < NSIDES; s++) {
		memset(&a, 0, sizeof(a));
		a.batch.map_fd = (uint32_t)m.fd[s];
		a.batch.keys = PTR_TO_U64(keys);
		a.batch.values = PTR_TO_U64(v);
		a.batch.count = 3;
		r[s] = side_call(s, BPF_MAP_UPDATE_BATCH, &a);
	}
	AGREE("update batch", r);
	for (count = 1; count <= 5; count += 2) {
		uint32_t got[NSIDES];

		memset(out, 0xa5, sizeof(out));
		for (int s = 0; s < NSIDES; s++) {
			memset(&a, 0, sizeof(a));
			a.batch.map_fd = (uint32_t)m.fd[s];
			a.batch.keys = PTR_TO_U64(out[s]);
			a.batch.values = PTR_TO_U64(out[s] + 64);
			a.batch.out_batch = PTR_TO_U64(&out_batch[s]);
			a.batch.count = count;
			r[s] = side_call(s, BPF_MAP_LOOKUP_BATCH, &a);
			got[s] = a.batch.count;
		}
		if (AGREE("lookup batch", r) && got[K] == got[U])
			BYTES_AGREE("lookup batch", 64 + got[K] * m.uvs + SLACK);
		else if (got[K] != got[U])
			test_fail(__FILE__, __LINE__, "lookup batch count: kernel %u, userbpf %u",
				  got[K], got[U]);
	}
	CONTENTS_AGREE(&m, "contents after batches");
	if (type == BPF_MAP_TYPE_PERCPU_HASH) {
		uint32_t got[NSIDES];

		memset(out, 0xa5, sizeof(out));
		for (int s = 0; s < NSIDES; s++) {
			memset(&a, 0, sizeof(a));
			a.batch.map_fd = (uint32_t)m.fd[s];
			a.batch.keys = PTR_TO_U64(out[s]);
			a.batch.values = PTR_TO_U64(out[s] + 64);
			a.batch.out_batch = PTR_TO_U64(&out_batch[s]);
			a.batch.count = 4;
			r[s] = side_call(s, BPF_MAP_LOOKUP_AND_DELETE_BATCH, &a);
			got[s] = a.batch.count;
		}
		if (AGREE("lookup and delete batch", r) && got[K] == got[U])
			BYTES_AGREE("lookup and delete batch", 64 + got[K] * m.uvs + SLACK);
		CONTENTS_AGREE(&m, "contents after lookup and delete batch");
	}
	pmap_close(&m);
	free(v);
}

TEST(diff_percpu_array_batches)
{
	SKIP_WITHOUT_KERNEL_BPF();
	batches(BPF_MAP_TYPE_PERCPU_ARRAY, 8);
	batches(BPF_MAP_TYPE_PERCPU_ARRAY, 20);
}

TEST(diff_percpu_hash_elements)
{
	SKIP_WITHOUT_KERNEL_BPF();
	elements(BPF_MAP_TYPE_PERCPU_HASH, 8);
	elements(BPF_MAP_TYPE_PERCPU_HASH, 12);
	elements(BPF_MAP_TYPE_PERCPU_HASH, 3);
	elements(BPF_MAP_TYPE_PERCPU_HASH, 200);
}

/* Updates of existing per-CPU elements are in place: the iteration order (a full map, so chains
 * are shared) stays as the inserts made it, unlike a plain hash map's. */
TEST(diff_percpu_hash_order)
{
	unsigned char v[4096];
	struct pmap m;

	SKIP_WITHOUT_KERNEL_BPF();
	if (pmap_create(&m, BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 16, BPF_F_ZERO_SEED))
		return;
	for (uint32_t pass = 0; pass < 3; pass++) {
		pattern(v, m.uvs, pass);
		for (uint32_t i = 0; i < 16; i++) {
			uint32_t key = pass == 1 ? 15 - i : (i * 7) % 16; /* another order each pass */

			ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "update");
		}
		CONTENTS_AGREE(&m, "order after a pass of updates");
	}
	pmap_close(&m);
}

TEST(diff_percpu_hash_batches)
{
	SKIP_WITHOUT_KERNEL_BPF();
	batches(BPF_MAP_TYPE_PERCPU_HASH, 8);
	batches(BPF_MAP_TYPE_PERCPU_HASH, 20);
}

/* key 0: lookup, then add 1 to its first u64 (atomically); key 1: update to 0x55;
 * key 7 (a miss for the array): insert; r0 = what the lookup found (-1: none). */
static int load_counter(int s, int map_fd)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_7, -1),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_0, 0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0x55),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),
		BPF_MOV64_IMM(BPF_REG_4, BPF_ANY),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 7),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),
		BPF_MOV64_IMM(BPF_REG_4, BPF_NOEXIST),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

static void programs(uint32_t type)
{
	static unsigned char pkt[64] = { 1, 2, 3 };
	cpu_set_t old, one;
	struct pmap m;
	int prog[NSIDES];

	if (pmap_create(&m, type, 4, 8, 8, order_flags(type)))
		return;
	if (type == BPF_MAP_TYPE_PERCPU_HASH) { /* key 0 for the lookup; key 1 updated in place */
		unsigned char v[OUT_MAX];
		uint32_t key;

		pattern(v, m.uvs, 5);
		for (key = 0; key < 3; key++)
			ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "setup");
	}
	for (int s = 0; s < NSIDES; s++)
		prog[s] = load_counter(s, m.fd[s]);
	if (prog[K] < 0 || prog[U] < 0) {
		test_fail(__FILE__, __LINE__, "load: kernel %d, userbpf %d", prog[K], prog[U]);
		goto out;
	}
	/* the programs' CPU: the last possible one, so that it is not CPU 0's slot by accident */
	sched_getaffinity(0, sizeof(old), &old);
	for (int cpu = (int)possible_cpus() - 1; cpu >= 0; cpu--) {
		struct bpf_result r[2];
		uint32_t ret[NSIDES];

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog[s];
			a.test.data_in = PTR_TO_U64(pkt);
			a.test.data_size_in = sizeof(pkt);
			a.test.repeat = (uint32_t)cpu + 3;
			r[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
			ret[s] = a.test.retval;
		}
		if (AGREE("test run", r) && ret[K] != ret[U])
			test_fail(__FILE__, __LINE__, "retval on cpu %d: kernel %u, userbpf %u", cpu,
				  ret[K], ret[U]);
		break;
	}
	sched_setaffinity(0, sizeof(old), &old);
	CONTENTS_AGREE(&m, "contents after the programs");
out:
	for (int s = 0; s < NSIDES; s++)
		if (prog[s] >= 0)
			close(prog[s]);
	pmap_close(&m);
}

TEST(diff_percpu_programs)
{
	SKIP_WITHOUT_KERNEL_BPF();
	programs(BPF_MAP_TYPE_PERCPU_ARRAY);
	programs(BPF_MAP_TYPE_PERCPU_HASH);
}

/* bpf_map_lookup_percpu_elem(map, &1, cpu) with cpu from the packet's first 4 bytes: r0 = the
 * copy's low 32 bits + 1, or 0 when there is none. */
static int load_percpu_reader(int s, int map_fd)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 4),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 11),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_2, 0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_percpu_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, sizeof(insns) / sizeof(insns[0]));
}

TEST(diff_percpu_lookup_percpu_elem)
{
	static const uint32_t types[] = { BPF_MAP_TYPE_PERCPU_ARRAY, BPF_MAP_TYPE_PERCPU_HASH,
					  BPF_MAP_TYPE_LRU_PERCPU_HASH, BPF_MAP_TYPE_HASH };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		unsigned char v[OUT_MAX];
		uint32_t key = 1, ncpu = possible_cpus();
		uint32_t cpus[] = { 0, ncpu - 1, ncpu, 0xffffffff };
		int prog[NSIDES];
		struct bpf_result r[2];
		struct pmap m;

		if (pmap_create(&m, types[t], 4, 8, 4, 0))
			continue;
		if (types[t] == BPF_MAP_TYPE_HASH)
			m.uvs = 8;
		pattern(v, m.uvs, 9);
		ELEM(&m, BPF_MAP_UPDATE_ELEM, &key, v, BPF_ANY, "setup");
		for (int s = 0; s < NSIDES; s++) {
			prog[s] = load_percpu_reader(s, m.fd[s]);
			r[s].rc = prog[s];
			r[s].err = prog[s] < 0 ? errno : 0;
		}
		if (AGREE("load", r) && prog[K] >= 0) {
			for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
				uint32_t ret[NSIDES];
				unsigned char pkt[64] = { 0 };

				memcpy(pkt, &cpus[c], 4);
				for (int s = 0; s < NSIDES; s++)
					r[s] = side_test_run(s, prog[s], pkt, sizeof(pkt), &ret[s]);
				if (AGREE("test run", r) && ret[K] != ret[U])
					test_fail(__FILE__, __LINE__, "type %u cpu %u: kernel %#x, "
						  "userbpf %#x", types[t], cpus[c], ret[K], ret[U]);
				if (cpus[c] < ncpu && !ret[U]) /* a real copy was read */
					test_fail(__FILE__, __LINE__, "type %u cpu %u: no value",
						  types[t], cpus[c]);
			}
		}
		for (int s = 0; s < NSIDES; s++)
			if (prog[s] >= 0)
				close(prog[s]);
		pmap_close(&m);
	}
}
