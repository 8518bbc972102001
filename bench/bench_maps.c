/* Map-operation throughput through bpf(): userbpf against the kernel's bpf() system call.
 *
 * Why: userbpf's claim is that map operations in user space cost a function call instead of a
 * system call; these rows measure by how much, for the common commands on a hash map (4-byte key,
 * 8-byte value, 10k entries, all present), an LRU hash map and an array map of the same shape, at
 * 1 and 2 threads.
 * Both sides run the same code: they differ only in the function that is called with the attr.
 * With 2 threads, "delete+insert" partitions the keys so that every call succeeds; an operation
 * there is one DELETE and one re-insert (UPDATE with BPF_NOEXIST).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "userbpf.h"

#define NKEYS 10000

typedef int (*bpf_call_fn)(int cmd, union bpf_attr *attr, unsigned int size);

struct map_ctx {
	bpf_call_fn call;
	int fd;
};

/* The map types measured: an LRU hash has room for twice the keys (an LRU map evicts before it
 * is full: the kernel's lists hand out elements in batches), so every key stays present. */
enum kind { K_ARRAY, K_HASH, K_LRU };
static const char *const kind_names[] = { "array", "hash", "lru" };

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

/* Like libbpf: a zeroed attr per call, sized to the whole union. */
static int elem_call(const struct map_ctx *c, int cmd, const void *key, void *value, uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = c->fd;
	a.key = (uint64_t)(uintptr_t)key;
	a.value = (uint64_t)(uintptr_t)value;
	a.flags = flags;
	return c->call(cmd, &a, sizeof(a));
}

static uint64_t seed_of(unsigned int tid)
{
	return 0x9e3779b97f4a7c15ULL * (tid + 1);
}

static uint64_t op_lookup(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct map_ctx *c = ctx;
	uint64_t s = seed_of(tid), fails = 0, v;
	uint32_t k;

	for (uint64_t i = 0; i < n; i++) {
		k = bench_rand(&s) % NKEYS;
		fails += elem_call(c, BPF_MAP_LOOKUP_ELEM, &k, &v, 0) != 0;
	}
	return fails;
}

static uint64_t op_update(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct map_ctx *c = ctx;
	uint64_t s = seed_of(tid), fails = 0, v;
	uint32_t k;

	for (uint64_t i = 0; i < n; i++) {
		k = bench_rand(&s) % NKEYS;
		v = i;
		fails += elem_call(c, BPF_MAP_UPDATE_ELEM, &k, &v, BPF_ANY) != 0;
	}
	return fails;
}

static uint64_t op_delete_insert(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct map_ctx *c = ctx;
	uint64_t s = seed_of(tid), fails = 0, v;
	uint32_t k, per = NKEYS / nthreads;

	for (uint64_t i = 0; i < n; i++) {
		k = bench_rand(&s) % per * nthreads + tid; /* this thread's keys only */
		v = i;
		fails += elem_call(c, BPF_MAP_DELETE_ELEM, &k, NULL, 0) != 0;
		fails += elem_call(c, BPF_MAP_UPDATE_ELEM, &k, &v, BPF_NOEXIST) != 0;
	}
	return fails;
}

static uint64_t op_get_next_key(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct map_ctx *c = ctx;
	uint64_t s = seed_of(tid), fails = 0;
	uint32_t k, next;

	for (uint64_t i = 0; i < n; i++) {
		k = bench_rand(&s) % NKEYS;
		/* the last key has no next one: ENOENT is a valid answer */
		fails += elem_call(c, BPF_MAP_GET_NEXT_KEY, &k, &next, 0) != 0 && errno != ENOENT;
	}
	return fails;
}

/* Creates a map of the given type with NKEYS keys present; returns -1 if that failed. */
static int setup(struct map_ctx *c, bpf_call_fn call, enum kind kind)
{
	static const uint32_t types[] = { BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH,
					  BPF_MAP_TYPE_LRU_HASH };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = types[kind];
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = kind == K_LRU ? 2 * NKEYS : NKEYS;
	c->call = call;
	c->fd = call(BPF_MAP_CREATE, &a, sizeof(a));
	if (c->fd < 0)
		return -1;
	for (uint32_t k = 0; k < NKEYS; k++) {
		uint64_t v = k;

		if (elem_call(c, BPF_MAP_UPDATE_ELEM, &k, &v, BPF_ANY)) {
			close(c->fd);
			c->fd = -1;
			return -1;
		}
	}
	return 0;
}

static void map_rows(enum kind kind)
{
	static const struct {
		const char *name;
		bench_fn fn;
		int hash_only;
	} ops[] = {
		{ "lookup", op_lookup, 0 },
		{ "update", op_update, 0 },
		{ "delete+insert", op_delete_insert, 1 },
		{ "get_next_key", op_get_next_key, 0 },
	};
	struct map_ctx u, k;
	int have_u = !setup(&u, bpf, kind), have_k = !setup(&k, kernel_bpf, kind);

	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ops[i].hash_only && kind == K_ARRAY)
			continue;
		for (unsigned int nt = 1; nt <= 2; nt++) {
			struct bench_side sides[2] = {
				{ "userbpf", have_u ? ops[i].fn : NULL, &u },
				{ "kernel", have_k ? ops[i].fn : NULL, &k },
			};
			char name[64];

			snprintf(name, sizeof(name), "map/%s/%s/%ut", kind_names[kind],
				 ops[i].name, nt);
			bench_row(name, sides, 2, nt);
		}
	}
	if (have_u)
		close(u.fd);
	if (have_k)
		close(k.fd);
}

BENCH(map_hash)
{
	map_rows(K_HASH);
}

BENCH(map_lru)
{
	map_rows(K_LRU);
}

BENCH(map_array)
{
	map_rows(K_ARRAY);
}
