/* BPF_MAP_TYPE_BLOOM_FILTER: a set of values that answers "maybe present" or "absent".
 *
 * As the kernel's: nr_hash_funcs (map_extra's low 4 bits, 5 if 0) hashes of each value set bits
 * in a bitmap of max_entries * nr_hash_funcs * 7 / 5 bits rounded up to a power of two (at least
 * 64; 2^32 when that does not fit).  Hash i of a value is jhash(value, value_size, seed + i), seed
 * random unless BPF_F_ZERO_SEED (then the bits, and so every answer, are the kernel's).  Values go
 * in with push (bpf()'s UPDATE with no key, flags BPF_ANY) and are tested with peek (LOOKUP with
 * no key: the value is the input, 0 or ENOENT the answer); nothing is ever removed.
 *
 * Concurrency: bits are set with atomic ORs and read with plain atomic loads: a peek racing with
 * a push may miss it, as in the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "map/jhash.h"
#include "map/map.h"

#define BLOOM_CREATE_FLAG_MASK                                                                   \
	(BPF_F_NUMA_NODE | BPF_F_ZERO_SEED | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG |   \
	 BPF_F_WRONLY_PROG)
#define BLOOM_MAX_VALUE (4u << 20) /* the kernel's KMALLOC_MAX_SIZE on x86-64 */

struct bloom {
	struct bpf_map map;
	u32 bitset_mask;	/* bits - 1 */
	u32 seed;
	u32 nr_hash_funcs;
	u64 bits[];
};

static inline struct bloom *bloom_of(struct bpf_map *map)
{
	return container_of(map, struct bloom, map);
}

static int bloom_alloc_check(const union bpf_attr *attr)
{
	return attr->value_size > BLOOM_MAX_VALUE ? -E2BIG : 0;
}

static int bloom_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	u32 nr_hash_funcs = (u32)attr->map_extra, mask;
	u64 nr_bits, words;
	struct bloom *b;

	(void)memfd;
	if (attr->key_size || !attr->value_size || !attr->max_entries ||
	    (attr->map_flags & ~BLOOM_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) ||
	    (attr->map_extra & ~0xfull))
		return -EINVAL;
	if (!nr_hash_funcs)
		nr_hash_funcs = 5;
	/* n * k / ln 2 bits, with 7 / 5 for 1 / ln 2, in u32 arithmetic as the kernel's */
	nr_bits = (u64)attr->max_entries * nr_hash_funcs;
	if (nr_bits > UINT32_MAX || (nr_bits / 5) * 7 > UINT32_MAX ||
	    (nr_bits / 5) * 7 > (1ull << 31)) {
		mask = UINT32_MAX;
	} else {
		nr_bits = (nr_bits / 5) * 7;
		nr_bits = nr_bits <= 64 ? 64 : roundup_pow_of_two((u32)nr_bits);
		mask = (u32)(nr_bits - 1);
	}
	words = ((u64)mask + 1 + 63) / 64;
	if (words > (SIZE_MAX - sizeof(*b)) / sizeof(u64))
		return -ENOMEM;
	b = calloc(1, sizeof(*b) + (size_t)words * sizeof(u64));
	if (!b)
		return -ENOMEM;
	b->bitset_mask = mask;
	b->nr_hash_funcs = nr_hash_funcs;
	if (!(attr->map_flags & BPF_F_ZERO_SEED) &&
	    getrandom(&b->seed, sizeof(b->seed), GRND_NONBLOCK) != sizeof(b->seed))
		b->seed = (u32)(uintptr_t)b ^ 0x9e3779b9u;
	*out = &b->map;
	return 0;
}

static void bloom_free(struct bpf_map *map)
{
	free(bloom_of(map));
}

/* Hash i of value.  (The kernel's jhash2 over u32 words when value_size is a multiple of 4 is
 * the same function as jhash over its bytes, on a little-endian machine.) */
static inline u32 bloom_hash(const struct bloom *b, const void *value, u32 i)
{
	return jhash(value, b->map.value_size, b->seed + i) & b->bitset_mask;
}

/* Peek: 0 if every bit of value's hashes is set, else ENOENT.  key is NULL. */
static int bloom_peek(struct bpf_map *map, const void *key, void *value)
{
	struct bloom *b = bloom_of(map);

	for (u32 i = 0; i < b->nr_hash_funcs; i++) {
		u32 h = bloom_hash(b, value, i);

		if (!(__atomic_load_n(&b->bits[h / 64], __ATOMIC_RELAXED) & (1ull << (h % 64))))
			return -ENOENT;
	}
	return 0;
}

/* Push: sets value's bits.  key is NULL. */
static int bloom_push(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct bloom *b = bloom_of(map);

	if (flags != BPF_ANY)
		return -EINVAL;
	for (u32 i = 0; i < b->nr_hash_funcs; i++) {
		u32 h = bloom_hash(b, value, i);

		__atomic_fetch_or(&b->bits[h / 64], 1ull << (h % 64), __ATOMIC_RELAXED);
	}
	return 0;
}

static int bloom_no_delete(struct bpf_map *map, const void *key)
{
	return -EOPNOTSUPP;
}

static int bloom_no_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	return -EOPNOTSUPP;
}

static void *bloom_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* (the verifier refuses bpf_map_lookup_elem on a bloom filter) */
}

/* BTF: no key, any value (the kernel's bloom_map_check_btf()). */
static int bloom_check_btf(const struct bpf_map *map, const struct btf *btf,
			   const struct btf_type *key_type, const struct btf_type *value_type)
{
	return key_type ? -EINVAL : 0;
}

const struct bpf_map_ops bloom_filter_map_ops = {
	.alloc_check = bloom_alloc_check,
	.alloc = bloom_alloc,
	.free = bloom_free,
	.lookup = bloom_peek,
	.lookup_ptr = bloom_lookup_ptr,
	.update = bloom_push,
	.delete = bloom_no_delete,
	.get_next_key = bloom_no_next_key,
	.check_btf = bloom_check_btf,
	.lookup_reads_value = true,
};
