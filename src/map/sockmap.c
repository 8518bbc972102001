/* BPF_MAP_TYPE_SOCKMAP and BPF_MAP_TYPE_SOCKHASH: maps of the kernel's sockets.
 *
 * bpf() adds a socket by its fd (a u32, or a u64 in 8-byte values) and reads back its cookie (8-
 * byte values only: ENOSPC otherwise); programs look sockets up (bpf_map_lookup_elem(), a
 * reference to release: a socket lookup program then selects it with bpf_sk_assign()) and add
 * the sockets they hold (bpf_map_update_elem() with a socket).  A socket a map can hold is the
 * kernel's rule (src/exec/sock_lookup.c: TCP established or listening, UDP bound, Unix), checked
 * before the flags and the index, as the kernel does.
 *
 * The map keeps each socket as its cookie and addresses (struct sock_ref): a program's lookup
 * asks the kernel for the socket of that cookie at those addresses, so a socket that is gone is
 * not found (the kernel's map drops a socket when it closes; here the entry stays, to bpf(),
 * until deleted or replaced).  No socket is redirected: sk_skb and sk_msg programs, which the
 * kernel attaches to these maps, are verified (their redirect helpers take these maps) but
 * nothing attaches or runs them.
 *
 * SOCKMAP is an array of max_entries slots; iteration visits every index, empty or not, and
 * deleting an empty one is EINVAL (the kernel's).  SOCKHASH has keys of any size up to
 * MAX_BPF_STACK, in roundup_pow_of_two(max_entries) buckets by the kernel's jhash(key, 0), a new
 * or replaced entry at its bucket's head: get_next_key gives the kernel's order.
 *
 * Concurrency: the map's lock guards slots and buckets, for bpf() and programs alike; a program
 * copies the entry under it and asks the kernel outside it.  Hash entries are reused, not freed,
 * while the map lives.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sock.h"
#include "map/jhash.h"
#include "map/map.h"

#define SOCK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY)
#define SOCKHASH_KEY_MAX 512u	/* MAX_BPF_STACK */
#define SOCKHASH_BUCKETS_MAX (UINT32_MAX / 16u) /* the kernel's, by its bucket's size */

struct sock_entry {
	struct sock_ref ref;
	bool used;			/* array: the slot holds a socket */
	u32 hash;			/* hash: jhash of the key */
	struct sock_entry *next;	/* hash: the bucket's next, or the free list's */
	_Alignas(8) u8 key[];		/* hash: key_size bytes */
};

struct stab {
	struct bpf_map map;
	spinlock_t lock;
	bool hash;
	u32 n_buckets;			/* hash: a power of two */
	u32 items;			/* hash: entries */
	struct sock_entry *slots;	/* array: max_entries */
	struct sock_entry **buckets;	/* hash */
	struct sock_entry *free_list;	/* hash: deleted entries, for reuse */
};

static inline struct stab *stab_of(struct bpf_map *map)
{
	return container_of(map, struct stab, map);
}

static u32 buckets_for(u32 max_entries)
{
	u64 n = 1;

	while (n < max_entries)
		n <<= 1;
	return n > UINT32_MAX ? 0 : (u32)n;
}

static int sock_alloc_check(const union bpf_attr *attr)
{
	bool hash = attr->map_type == BPF_MAP_TYPE_SOCKHASH;

	if (!attr->max_entries || (attr->value_size != 4 && attr->value_size != 8) ||
	    (attr->map_flags & ~SOCK_CREATE_FLAG_MASK))
		return -EINVAL;
	if (!hash)
		return attr->max_entries > INT_MAX || attr->key_size != 4 ? -EINVAL : 0;
	if (!attr->key_size)
		return -EINVAL;
	if (attr->key_size > SOCKHASH_KEY_MAX)
		return -E2BIG;
	u32 n = buckets_for(attr->max_entries);

	return !n || n > SOCKHASH_BUCKETS_MAX ? -EINVAL : 0;
}

static int sock_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct stab *t = calloc(1, sizeof(*t));

	(void)memfd;
	if (!t)
		return -ENOMEM;
	t->hash = attr->map_type == BPF_MAP_TYPE_SOCKHASH;
	if (t->hash) {
		t->n_buckets = buckets_for(attr->max_entries);
		t->buckets = calloc(t->n_buckets, sizeof(*t->buckets));
		if (!t->buckets)
			goto nomem;
	} else if ((u64)attr->max_entries * sizeof(*t->slots) > SIZE_MAX ||
		   !(t->slots = calloc(attr->max_entries, sizeof(*t->slots)))) {
		goto nomem;
	}
	*out = &t->map;
	return 0;
nomem:
	free(t);
	return -ENOMEM;
}

static void entries_free(struct sock_entry *e)
{
	while (e) {
		struct sock_entry *next = e->next;

		free(e);
		e = next;
	}
}

static void sock_free(struct bpf_map *map)
{
	struct stab *t = stab_of(map);

	if (t->hash) {
		for (u32 b = 0; b < t->n_buckets; b++)
			entries_free(t->buckets[b]);
		entries_free(t->free_list);
		free(t->buckets);
	}
	free(t->slots);
	free(t);
}

/* Hash: the link to key's entry in its bucket, or NULL (lock held). */
static struct sock_entry **hash_find(struct stab *t, const void *key, u32 hash)
{
	struct sock_entry **pp = &t->buckets[hash & (t->n_buckets - 1)];

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->hash == hash && !memcmp((*pp)->key, key, t->map.key_size))
			return pp;
	return NULL;
}

static u32 key_hash(const struct stab *t, const void *key)
{
	return jhash(key, t->map.key_size, 0);
}

/* The entry of key, or NULL (lock held). */
static struct sock_entry *sock_find(struct stab *t, const void *key)
{
	struct sock_entry **pp;
	u32 k;

	if (!t->hash) {
		memcpy(&k, key, 4);
		return k < t->map.max_entries && t->slots[k].used ? &t->slots[k] : NULL;
	}
	pp = hash_find(t, key, key_hash(t, key));
	return pp ? *pp : NULL;
}

/* bpf(): the socket's cookie. */
static int sock_lookup_sys(struct bpf_map *map, const void *key, void *value)
{
	struct stab *t = stab_of(map);
	struct sock_entry *e;

	if (map->value_size != 8)
		return -ENOSPC;
	spin_lock(&t->lock);
	e = sock_find(t, key);
	if (e)
		memcpy(value, &e->ref.cookie, 8);
	spin_unlock(&t->lock);
	return e ? 0 : -ENOENT;
}

/* A program's: the socket, seen as the kernel has it now (see above). */
static void *sock_lookup_prog(struct bpf_map *map, const void *key)
{
	struct stab *t = stab_of(map);
	struct sock_entry *e;
	struct sock_ref ref;

	spin_lock(&t->lock);
	e = sock_find(t, key);
	if (e)
		ref = e->ref;
	spin_unlock(&t->lock);
	return e ? sock_ref_get(&ref) : NULL;
}

/* Stores r at key (the kernel's sock_map_update_common() and sock_hash_update_common()). */
static int sock_store(struct stab *t, const void *key, const struct sock_ref *r, u64 flags)
{
	struct sock_entry **pp, *e;
	int err = 0;
	u32 k, hash;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (!t->hash) {
		memcpy(&k, key, 4);
		if (k >= t->map.max_entries)
			return -E2BIG;
		spin_lock(&t->lock);
		e = &t->slots[k];
		if (e->used && flags == BPF_NOEXIST)
			err = -EEXIST;
		else if (!e->used && flags == BPF_EXIST)
			err = -ENOENT;
		else
			e->ref = *r;
		e->used |= !err;
		spin_unlock(&t->lock);
		return err;
	}
	hash = key_hash(t, key);
	spin_lock(&t->lock);
	pp = hash_find(t, key, hash);
	if (pp && flags == BPF_NOEXIST) {
		err = -EEXIST;
	} else if (!pp && flags == BPF_EXIST) {
		err = -ENOENT;
	} else if (!pp && t->items >= t->map.max_entries) {
		err = -E2BIG;
	} else {
		/* (a replaced entry moves to its bucket's head, as the kernel's new one goes) */
		if (pp) {
			e = *pp;
			*pp = e->next;
		} else if ((e = t->free_list)) {
			t->free_list = e->next;
			t->items++;
		} else if ((e = malloc(sizeof(*e) + round_up(t->map.key_size, 8)))) {
			t->items++;
		} else {
			err = -ENOMEM;
		}
		if (e) {
			e->ref = *r;
			e->hash = hash;
			memcpy(e->key, key, t->map.key_size);
			e->next = t->buckets[hash & (t->n_buckets - 1)];
			t->buckets[hash & (t->n_buckets - 1)] = e;
		}
	}
	spin_unlock(&t->lock);
	return err;
}

/* bpf(): the socket behind the fd in value. */
static int sock_update_sys(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct sock_ref r;
	u64 fd = 0;
	int err;

	memcpy(&fd, value, map->value_size);
	if (fd > INT_MAX)
		return -EINVAL;
	err = sock_ref_from_fd((int)fd, &r);
	return err ? err : sock_store(stab_of(map), key, &r, flags);
}

/* A program's: value is a socket it holds. */
static int sock_update_prog(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct sock_ref r;
	int err = value ? sock_ref_from_prog((uintptr_t)value, &r) : -EINVAL;

	return err ? err : sock_store(stab_of(map), key, &r, flags);
}

static int sock_delete(struct bpf_map *map, const void *key)
{
	struct stab *t = stab_of(map);
	struct sock_entry **pp, *e;
	int err = 0;
	u32 k;

	spin_lock(&t->lock);
	if (!t->hash) {
		memcpy(&k, key, 4);
		if (k >= map->max_entries || !t->slots[k].used)
			err = -EINVAL;
		else
			t->slots[k].used = false;
	} else if (!(pp = hash_find(t, key, key_hash(t, key)))) {
		err = -ENOENT;
	} else {
		e = *pp;
		*pp = e->next;
		e->next = t->free_list;
		t->free_list = e;
		t->items--;
	}
	spin_unlock(&t->lock);
	return err;
}

/* Array: every index in order, empty slots included; a missing or out-of-range key starts at
 * 0.  Hash: the key's successor in its bucket, else the first entry of a later bucket; a missing
 * key starts over from the first bucket. */
static int sock_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	struct stab *t = stab_of(map);
	struct sock_entry **pp = NULL, *e = NULL;
	u32 b = 0, hash = 0;

	if (!t->hash)
		return array_map_get_next_key(map, key, next_key);
	spin_lock(&t->lock);
	if (key) {
		hash = key_hash(t, key);
		pp = hash_find(t, key, hash);
	}
	if (pp) {
		e = (*pp)->next;
		b = (hash & (t->n_buckets - 1)) + 1;
	}
	for (; !e && b < t->n_buckets; b++)
		e = t->buckets[b];
	if (e)
		memcpy(next_key, e->key, map->key_size);
	spin_unlock(&t->lock);
	return e ? 0 : -ENOENT;
}

#define SOCK_COMMON_OPS                                                                          \
	.alloc_check = sock_alloc_check, .alloc = sock_alloc, .free = sock_free,                 \
	.lookup = sock_lookup_sys, .lookup_ptr = sock_lookup_prog, .update = sock_update_sys,    \
	.prog_update = sock_update_prog, .delete = sock_delete,                                  \
	.get_next_key = sock_get_next_key, .check_btf = map_check_no_btf

const struct bpf_map_ops sock_map_ops = { SOCK_COMMON_OPS };
const struct bpf_map_ops sock_hash_ops = { SOCK_COMMON_OPS };
