/* BPF_MAP_TYPE_LPM_TRIE: longest-prefix match over keys { u32 prefixlen; u8 data[data_size]; }.
 *
 * Layout: the kernel's path-compressed binary trie.  A node holds a prefix (prefixlen bits of its
 * data, most significant bit of data[0] first) and two children; a child's prefix extends its
 * parent's, and bit `parent->prefixlen` of the child's data says which child it is.  Nodes that
 * only join two branches are intermediate (IM): they have no value, are not elements, and always
 * have exactly two children.  So the trie's shape is a function of the set of prefixes, and so is
 * the order GET_NEXT_KEY returns them in: postorder, bit 0 before bit 1, more specific prefixes
 * before the ones they extend.
 *
 * Semantics (the kernel's): lookup finds the longest stored prefix that covers the key's first
 * prefixlen bits; update and delete work on the exact prefix; an update keeps the key's data as
 * given, bits beyond the prefix included (GET_NEXT_KEY returns them); BPF_NOEXIST / BPF_EXIST as
 * for hash maps; a full trie is ENOSPC; a prefixlen beyond data_size * 8 is EINVAL (ENOENT for
 * a lookup).  BPF_F_NO_PREALLOC is required at creation.
 *
 * Concurrency: writers take the trie's lock and make the sequence counter odd around every
 * change; readers (lookups, GET_NEXT_KEY) take no lock, walk, copy, and retry when the counter
 * moved.  Nodes are never returned to the allocator while the map lives (a removed node goes to
 * a free list), so a racing reader reads stale memory at worst, and a program's value pointer
 * stays valid, as the kernel's RCU keeps it.
 */
#include <errno.h>
#include <linux/btf.h>
#include <stdlib.h>

#include "map/map.h"

#define LPM_DATA_SIZE_MIN 1
#define LPM_DATA_SIZE_MAX 256
#define LPM_KEY_SIZE_MIN (4 + LPM_DATA_SIZE_MIN)
#define LPM_KEY_SIZE_MAX (4 + LPM_DATA_SIZE_MAX)
/* The kernel's KMALLOC_MAX_SIZE (4 MiB) minus the largest key data and 6.18's node header. */
#define LPM_VAL_SIZE_MAX ((4u << 20) - LPM_DATA_SIZE_MAX - 24u)
#define LPM_CREATE_FLAG_MASK                                                                     \
	(BPF_F_NO_PREALLOC | BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG |  \
	 BPF_F_WRONLY_PROG)

struct lpm_node {
	struct lpm_node *child[2];
	struct lpm_node *all;	/* every node ever allocated, for the map's free */
	u32 prefixlen;
	bool im;		/* intermediate: no value, exactly two children */
	_Alignas(8) u8 data[];	/* data_size bytes, padded to 8, then the value */
};

struct lpm_trie {
	struct bpf_map map;
	u32 data_size;
	u32 max_prefixlen;	/* data_size * 8 */
	u32 data_round;		/* data_size rounded up to 8: the value's offset in data */
	u32 n_entries;		/* nodes that are not intermediate */
	u32 seq;		/* odd while a writer changes the trie */
	spinlock_t lock;	/* serialises writers */
	struct lpm_node *root;
	struct lpm_node *free_list;	/* removed nodes, linked through child[0] */
	struct lpm_node *all;
};

/* The key as programs and bpf() pass it. */
struct lpm_key {
	u32 prefixlen;
	u8 data[];
};

static inline struct lpm_trie *trie_of(struct bpf_map *map)
{
	return container_of(map, struct lpm_trie, map);
}

static inline u8 *node_value(const struct lpm_trie *t, struct lpm_node *n)
{
	return n->data + t->data_round;
}

static inline unsigned int bit_at(const u8 *data, u32 index)
{
	return (data[index / 8] >> (7 - index % 8)) & 1;
}

/* How many leading bits of n's prefix and of key agree, at most min(both lengths). */
static u32 match_len(const struct lpm_trie *t, const struct lpm_node *n, const struct lpm_key *key)
{
	u32 limit = n->prefixlen < key->prefixlen ? n->prefixlen : key->prefixlen, len = 0;

	for (u32 i = 0; i < t->data_size && len < limit; i++) {
		u8 diff = (u8)(__atomic_load_n(&n->data[i], __ATOMIC_RELAXED) ^ key->data[i]);

		if (diff) {
			len += (u32)__builtin_clz(diff) - 24;
			break;
		}
		len += 8;
	}
	return len < limit ? len : limit;
}

static int trie_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || !(attr->map_flags & BPF_F_NO_PREALLOC) ||
	    (attr->map_flags & ~LPM_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) ||
	    attr->key_size < LPM_KEY_SIZE_MIN || attr->key_size > LPM_KEY_SIZE_MAX ||
	    !attr->value_size || attr->value_size > LPM_VAL_SIZE_MAX)
		return -EINVAL;
	return 0;
}

static int trie_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct lpm_trie *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->data_size = attr->key_size - 4;
	t->max_prefixlen = t->data_size * 8;
	t->data_round = round_up(t->data_size, 8);
	*out = &t->map;
	return 0;
}

static void trie_free(struct bpf_map *map)
{
	struct lpm_trie *t = trie_of(map);

	for (struct lpm_node *n = t->all, *next; n; n = next) {
		next = n->all;
		free(n);
	}
	free(t);
}

/* Writers only (locked). */
static struct lpm_node *node_get(struct lpm_trie *t)
{
	struct lpm_node *n = t->free_list;

	if (n) {
		t->free_list = n->child[0];
	} else {
		n = calloc(1, sizeof(*n) + t->data_round + round_up(t->map.value_size, 8));
		if (!n)
			return NULL;
		n->all = t->all;
		t->all = n;
	}
	/* atomic stores: a racing reader may still be looking at a reused node */
	__atomic_store_n(&n->child[0], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&n->child[1], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&n->im, false, __ATOMIC_RELAXED);
	return n;
}

/* Sets a node's prefix from key (writers; the node may be a reused one a reader looks at). */
static void node_set(struct lpm_trie *t, struct lpm_node *n, u32 prefixlen, const u8 *data)
{
	__atomic_store_n(&n->prefixlen, prefixlen, __ATOMIC_RELAXED);
	racy_store(n->data, data, t->data_size);
}

static void node_put(struct lpm_trie *t, struct lpm_node *n)
{
	/* atomic: a lock-free reader may still follow n's children */
	__atomic_store_n(&n->child[0], t->free_list, __ATOMIC_RELAXED);
	__atomic_store_n(&n->child[1], NULL, __ATOMIC_RELAXED);
	t->free_list = n;
}

static inline struct lpm_node *child(const struct lpm_node *n, unsigned int b)
{
	return __atomic_load_n(&n->child[b], __ATOMIC_RELAXED);
}

/* The node holding the longest prefix that covers key, or NULL.  Readers: the result means
 * something only if the caller's sequence check then passes; the walk is bounded, as a racing
 * writer can make it wander. */
static struct lpm_node *longest_match(struct lpm_trie *t, const struct lpm_key *key)
{
	struct lpm_node *n = __atomic_load_n(&t->root, __ATOMIC_RELAXED), *found = NULL;

	if (key->prefixlen > t->max_prefixlen)
		return NULL;
	for (u32 steps = 0; n && steps <= t->max_prefixlen; steps++) {
		u32 len = match_len(t, n, key), plen = READ_ONCE(n->prefixlen);

		if (len == t->max_prefixlen) {
			found = n;
			break;
		}
		if (len < plen || plen >= t->max_prefixlen)
			break;
		if (!READ_ONCE(n->im))
			found = n;
		n = child(n, bit_at(key->data, plen));
	}
	return found;
}

static int trie_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct lpm_trie *t = trie_of(map);

	for (;;) {
		u32 seq = seq_read_begin(&t->seq);
		struct lpm_node *n = longest_match(t, key);

		if (n)
			racy_load(value, node_value(t, n), map->value_size);
		if (!seq_read_retry(&t->seq, seq))
			return n ? 0 : -ENOENT;
	}
}

static void *trie_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct lpm_trie *t = trie_of(map);

	for (;;) {
		u32 seq = seq_read_begin(&t->seq);
		struct lpm_node *n = longest_match(t, key);

		if (!seq_read_retry(&t->seq, seq))
			return n ? node_value(t, n) : NULL;
	}
}

/* A new element is allowed (count and flags), and counted. */
static int add_elem(struct lpm_trie *t, u64 flags)
{
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (t->n_entries == t->map.max_entries)
		return -ENOSPC;
	t->n_entries++;
	return 0;
}

static int trie_update(struct bpf_map *map, const void *key_, const void *value, u64 flags)
{
	struct lpm_trie *t = trie_of(map);
	const struct lpm_key *key = key_;
	struct lpm_node **slot = &t->root, *n, *fresh, *im;
	u32 len = 0;
	int err;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (key->prefixlen > t->max_prefixlen)
		return -EINVAL;
	spin_lock(&t->lock);
	/* Down while the key extends the node's prefix: the slot where the key belongs. */
	while ((n = *slot)) {
		len = match_len(t, n, key);
		if (n->prefixlen != len || n->prefixlen == key->prefixlen ||
		    n->prefixlen == t->max_prefixlen)
			break;
		slot = &n->child[bit_at(key->data, n->prefixlen)];
	}
	if (n && n->prefixlen == len && len == key->prefixlen) {
		/* the prefix is there: replace its value (an intermediate node becomes one) */
		if (!n->im && flags == BPF_NOEXIST) {
			err = -EEXIST;
			goto unlock;
		}
		if (n->im && (err = add_elem(t, flags)))
			goto unlock;
		seq_write_begin(&t->seq);
		node_set(t, n, key->prefixlen, key->data);
		racy_store(node_value(t, n), value, map->value_size);
		__atomic_store_n(&n->im, false, __ATOMIC_RELAXED);
		seq_write_end(&t->seq);
		err = 0;
		goto unlock;
	}
	err = add_elem(t, flags);
	if (err)
		goto unlock;
	fresh = node_get(t);
	im = fresh && n && len != key->prefixlen ? node_get(t) : NULL;
	if (!fresh || (n && len != key->prefixlen && !im)) {
		if (fresh)
			node_put(t, fresh);
		t->n_entries--;
		err = -ENOMEM;
		goto unlock;
	}
	seq_write_begin(&t->seq);
	node_set(t, fresh, key->prefixlen, key->data);
	racy_store(node_value(t, fresh), value, map->value_size);
	if (!n) {
		/* an empty slot */
		__atomic_store_n(slot, fresh, __ATOMIC_RELAXED);
	} else if (len == key->prefixlen) {
		/* the key is a prefix of the node's: it goes above it */
		__atomic_store_n(&fresh->child[bit_at(n->data, len)], n, __ATOMIC_RELAXED);
		__atomic_store_n(slot, fresh, __ATOMIC_RELAXED);
	} else {
		/* they part after len bits: a node joins them there */
		node_set(t, im, len, n->data);
		__atomic_store_n(&im->im, true, __ATOMIC_RELAXED);
		__atomic_store_n(&im->child[bit_at(key->data, len)], fresh, __ATOMIC_RELAXED);
		__atomic_store_n(&im->child[!bit_at(key->data, len)], n, __ATOMIC_RELAXED);
		__atomic_store_n(slot, im, __ATOMIC_RELAXED);
	}
	seq_write_end(&t->seq);
unlock:
	spin_unlock(&t->lock);
	return err;
}

static int trie_delete(struct bpf_map *map, const void *key_)
{
	struct lpm_trie *t = trie_of(map);
	const struct lpm_key *key = key_;
	struct lpm_node **slot = &t->root, **parent_slot = slot, *n, *parent = NULL;
	u32 len = 0;
	int err = 0;

	if (key->prefixlen > t->max_prefixlen)
		return -EINVAL;
	spin_lock(&t->lock);
	while ((n = *slot)) {
		len = match_len(t, n, key);
		if (n->prefixlen != len || n->prefixlen == key->prefixlen)
			break;
		parent = n;
		parent_slot = slot;
		slot = &n->child[bit_at(key->data, n->prefixlen)];
	}
	if (!n || n->prefixlen != key->prefixlen || n->prefixlen != len || n->im) {
		err = -ENOENT;
		goto unlock;
	}
	t->n_entries--;
	seq_write_begin(&t->seq);
	if (n->child[0] && n->child[1]) {
		/* still needed to join its children */
		__atomic_store_n(&n->im, true, __ATOMIC_RELAXED);
	} else if (parent && parent->im && !n->child[0] && !n->child[1]) {
		/* a leaf under a joining node: the node goes too, its other child moves up */
		__atomic_store_n(parent_slot, parent->child[parent->child[0] == n], __ATOMIC_RELAXED);
		node_put(t, parent);
		node_put(t, n);
	} else {
		__atomic_store_n(slot, n->child[0] ? n->child[0] : n->child[1], __ATOMIC_RELAXED);
		node_put(t, n);
	}
	seq_write_end(&t->seq);
unlock:
	spin_unlock(&t->lock);
	return err;
}

/* The first element in postorder at or below n: the leftmost non-intermediate node, bit 0
 * before bit 1, children before their parent. */
static struct lpm_node *leftmost(struct lpm_node *n)
{
	struct lpm_node *found = NULL;

	for (u32 steps = 0; n && steps <= LPM_DATA_SIZE_MAX * 8; steps++) {
		if (READ_ONCE(n->im)) {
			n = child(n, 0);
		} else {
			found = n;
			n = child(n, 0) ? child(n, 0) : child(n, 1);
		}
	}
	return found;
}

/* Readers: the element after key in postorder (the first for NULL, a key not in the trie or a
 * prefixlen beyond the maximum), or NULL after the last. */
static struct lpm_node *next_of(struct lpm_trie *t, const struct lpm_key *key)
{
	struct lpm_node *stack[LPM_DATA_SIZE_MAX * 8 + 1], *n = __atomic_load_n(&t->root, __ATOMIC_RELAXED);
	int top = -1;
	u32 len = 0;

	if (!key || key->prefixlen > t->max_prefixlen)
		return leftmost(n);
	for (; n && top < (int)t->max_prefixlen; n = child(n, bit_at(key->data, n->prefixlen))) {
		stack[++top] = n;
		len = match_len(t, n, key);
		if (READ_ONCE(n->prefixlen) != len || READ_ONCE(n->prefixlen) == key->prefixlen ||
		    READ_ONCE(n->prefixlen) >= t->max_prefixlen)
			break;
	}
	if (!n || READ_ONCE(n->prefixlen) != len || READ_ONCE(n->prefixlen) != key->prefixlen ||
	    READ_ONCE(n->im))
		return leftmost(__atomic_load_n(&t->root, __ATOMIC_RELAXED));
	/* up: a left child's next is its sibling's leftmost, else the first real ancestor */
	for (; top > 0; top--) {
		struct lpm_node *parent = stack[top - 1];

		if (child(parent, 0) == stack[top] && child(parent, 1))
			return leftmost(child(parent, 1));
		if (!READ_ONCE(parent->im))
			return parent;
	}
	return NULL;
}

static int trie_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	struct lpm_trie *t = trie_of(map);
	struct lpm_key *out = next_key;

	for (;;) {
		u32 seq = seq_read_begin(&t->seq);
		struct lpm_node *n = next_of(t, key);

		if (n) {
			out->prefixlen = READ_ONCE(n->prefixlen);
			racy_load(out->data, n->data, t->data_size);
		}
		if (!seq_read_retry(&t->seq, seq))
			return n ? 0 : -ENOENT;
	}
}

/* BTF: the key is a struct (embedding struct bpf_lpm_trie_key_u8), as the kernel requires. */
static int trie_check_btf(const struct bpf_map *map, const struct btf *btf,
			  const struct btf_type *key_type, const struct btf_type *value_type)
{
	return key_type && BTF_INFO_KIND(key_type->info) == BTF_KIND_STRUCT ? 0 : -EINVAL;
}

const struct bpf_map_ops trie_map_ops = {
	.check_btf = trie_check_btf,
	.alloc_check = trie_alloc_check,
	.alloc = trie_alloc,
	.free = trie_free,
	.lookup = trie_lookup,
	.lookup_ptr = trie_lookup_ptr,
	.update = trie_update,
	.delete = trie_delete,
	.get_next_key = trie_get_next_key,
	.lookup_batch = generic_map_lookup_batch,
	.update_batch = generic_map_update_batch,
	.delete_batch = generic_map_delete_batch,
};
