/* BPF_MAP_TYPE_SOCKMAP and BPF_MAP_TYPE_SOCKHASH: maps of the kernel's sockets.
 *
 * bpf() adds a socket by its fd (a u32, or a u64 in 8-byte values) and reads back its cookie (8-
 * byte values only: ENOSPC otherwise); programs look sockets up (bpf_map_lookup_elem(), a
 * reference to release: a socket lookup program then selects it with bpf_sk_assign()) and add
 * the sockets they hold (bpf_map_update_elem() with a socket).  A socket a map can hold is the
 * kernel's rule (src/exec/sock_lookup.c: TCP established or listening, UDP bound, Unix), checked
 * before the flags and the index, as the kernel does.
 *
 * The map keeps each socket as its cookie and addresses (struct sock_ref): a program's lookup asks
 * the kernel for the socket of that cookie at those addresses, so a socket that is gone is not
 * found.  The kernel's map drops a socket when it closes, which userbpf does not see happen: bpf()
 * looks for a socket before it reads or changes its entry, and before a hash's walk for all of
 * them (sock_cookie_alive()), and drops the entries of those closed, so that bpf() sees what
 * the kernel's would.  No socket is redirected: sk_skb and sk_msg programs, which the kernel
 * attaches to these maps, are verified (their redirect helpers take these maps) and attach
 * (BPF_PROG_ATTACH, BPF_LINK_CREATE: one program per attach type, as the kernel keeps them,
 * sockmap.h), but no socket's data runs them.
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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "exec/sock.h"
#include "map/jhash.h"
#include "map/map.h"
#include "map/reuseport_array.h"
#include "map/sockmap.h"
#include "prog/attach.h"
#include "prog/link.h"

#define SOCK_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY)
#define SOCK_PROG_SLOTS 4
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
	struct stab *next_map;		/* every socket map: sockmap_holds() */
	spinlock_t lock;
	bool hash;
	u32 n_buckets;			/* hash: a power of two */
	u32 items;			/* hash: entries */
	struct sock_entry *slots;	/* array: max_entries */
	struct sock_entry **buckets;	/* hash */
	struct sock_entry *free_list;	/* hash: deleted entries, for reuse */
	/* Attached programs (the kernel's sk_psock_progs), by enum sock_prog_slot: a reference
	 * each, and the link that put it there, if one did.  Guarded by progs_lock. */
	struct bpf_prog *progs[SOCK_PROG_SLOTS];
	struct bpf_link *links[SOCK_PROG_SLOTS];
};

enum sock_prog_slot { MSG_PARSER, STREAM_PARSER, STREAM_VERDICT, SKB_VERDICT };

/* The kernel's sockmap_mutex: attach, detach, links and queries of every socket map. */
static pthread_mutex_t progs_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every socket map, for sockmap_holds(). */
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stab *all_maps;

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

static void sock_release_uref(struct bpf_object *obj);

static int sock_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct stab *t = calloc(1, sizeof(*t));

	(void)memfd;
	if (!t)
		return -ENOMEM;
	t->map.obj.release_uref = sock_release_uref;
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
	pthread_mutex_lock(&maps_lock);
	t->next_map = all_maps;
	all_maps = t;
	pthread_mutex_unlock(&maps_lock);
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
	struct stab *t = stab_of(map), **pp;

	pthread_mutex_lock(&maps_lock);
	for (pp = &all_maps; *pp; pp = &(*pp)->next_map)
		if (*pp == t) {
			*pp = t->next_map;
			break;
		}
	pthread_mutex_unlock(&maps_lock);

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

/* Takes key's entry out (t->lock held): 0, or the kernel's errno for none (an array's slot:
 * EINVAL; a hash's key: ENOENT). */
static int remove_locked(struct stab *t, const void *key)
{
	struct sock_entry **pp, *e;
	u32 k;

	if (!t->hash) {
		memcpy(&k, key, 4);
		if (k >= t->map.max_entries || !t->slots[k].used)
			return -EINVAL;
		t->slots[k].used = false;
		return 0;
	}
	if (!(pp = hash_find(t, key, key_hash(t, key))))
		return -ENOENT;
	e = *pp;
	*pp = e->next;
	e->next = t->free_list;
	t->free_list = e;
	t->items--;
	return 0;
}

/* Whether r's socket is still open.  The kernel's map drops a socket when it closes (its
 * sock_map_close()), which userbpf does not see happen, so bpf() looks before it reads or
 * changes an entry. */
static bool ref_open(const struct sock_ref *r)
{
	return sock_cookie_alive(r->family, r->protocol, ~0u, r->cookie);
}

/* A copy of key's entry's socket, taken under t->lock: false if there is none. */
static bool entry_ref(struct stab *t, const void *key, struct sock_ref *ref)
{
	struct sock_entry *e;

	spin_lock(&t->lock);
	e = sock_find(t, key);
	if (e)
		*ref = e->ref;
	spin_unlock(&t->lock);
	return e != NULL;
}

/* Drops key's entry if its socket closed, as the kernel's map would have (the kernel is asked
 * outside t->lock). */
static void drop_if_closed(struct stab *t, const void *key)
{
	struct sock_entry *e;
	struct sock_ref ref;

	if (!entry_ref(t, key, &ref) || ref_open(&ref))
		return;
	spin_lock(&t->lock);
	e = sock_find(t, key);
	if (e && e->ref.cookie == ref.cookie)
		remove_locked(t, key);
	spin_unlock(&t->lock);
}

/* The socket kinds a map may hold, for drop_closed()'s one dump each. */
static const struct {
	u8 family, protocol;
} sock_kinds[] = {
	{ AF_INET, IPPROTO_TCP }, { AF_INET, IPPROTO_UDP }, { AF_INET6, IPPROTO_TCP },
	{ AF_INET6, IPPROTO_UDP }, { AF_UNIX, 0 },
};

static int sock_kind(const struct sock_ref *r)
{
	for (int i = 0; i < (int)ARRAY_SIZE(sock_kinds); i++)
		if (r->family == sock_kinds[i].family &&
		    (r->family == AF_UNIX || r->protocol == sock_kinds[i].protocol))
			return i;
	return -1;
}

/* Drops every hash entry whose socket closed (before a walk: the kernel's has none of them):
 * one dump for each kind of socket the map holds, asked outside t->lock, then the entries of
 * sockets not among the open ones taken out under it. */
static void drop_closed(struct stab *t)
{
	struct sock_cookie_set open[ARRAY_SIZE(sock_kinds)];
	bool asked[ARRAY_SIZE(sock_kinds)] = { false };
	u32 present = 0;
	int k;

	spin_lock(&t->lock);
	for (u32 b = 0; b < t->n_buckets; b++)
		for (struct sock_entry *e = t->buckets[b]; e; e = e->next)
			if ((k = sock_kind(&e->ref)) >= 0)
				present |= 1u << k;
	spin_unlock(&t->lock);
	for (k = 0; k < (int)ARRAY_SIZE(sock_kinds); k++)
		if (present & 1u << k)
			asked[k] = !sock_open_cookies(sock_kinds[k].family,
						      sock_kinds[k].protocol, &open[k]);
	spin_lock(&t->lock);
	for (u32 b = 0; b < t->n_buckets; b++)
		for (struct sock_entry **pp = &t->buckets[b], *e; (e = *pp);) {
			k = sock_kind(&e->ref);
			if (k < 0 || !asked[k] || sock_cookie_set_has(&open[k], e->ref.cookie)) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			e->next = t->free_list;
			t->free_list = e;
			t->items--;
		}
	spin_unlock(&t->lock);
	for (k = 0; k < (int)ARRAY_SIZE(sock_kinds); k++)
		if (asked[k])
			sock_cookie_set_free(&open[k]);
}

/* bpf(): the socket's cookie. */
static int sock_lookup_sys(struct bpf_map *map, const void *key, void *value)
{
	struct stab *t = stab_of(map);
	struct sock_entry *e;

	if (map->value_size != 8)
		return -ENOSPC;
	drop_if_closed(t, key);
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
	struct sock_ref ref;

	return entry_ref(stab_of(map), key, &ref) ? sock_ref_get(&ref) : NULL;
}

/* Stores r at key (the kernel's sock_map_update_common() and sock_hash_update_common()). */
static int sock_store(struct stab *t, const void *key, const struct sock_ref *r, u64 flags)
{
	struct sock_entry **pp, *e;
	int err = 0;
	u32 k, hash;

	if (flags > BPF_EXIST)
		return -EINVAL;
	/* (a socket of a reuseport array cannot be a socket map's too: the kernel marks it
	 * through sk_user_data, which one of them has) */
	if (!t->hash) {
		memcpy(&k, key, 4);
		if (k >= t->map.max_entries)
			return -E2BIG;
		if (reuseport_array_holds(r->cookie))
			return -EBUSY;
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
	if (reuseport_array_holds(r->cookie))
		return -EBUSY;
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
	if (err)
		return err;
	drop_if_closed(stab_of(map), key);
	return sock_store(stab_of(map), key, &r, flags);
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
	int err;

	drop_if_closed(t, key);
	spin_lock(&t->lock);
	err = remove_locked(t, key);
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
	drop_closed(t);
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

/* The slot of attach type which on t (the kernel's sock_map_prog_link_lookup()): a slot, or
 * -EOPNOTSUPP (not a socket map, not one of its attach types) or -EBUSY (a stream verdict and
 * an skb verdict program exclude each other). */
static int prog_slot(struct bpf_map *map, u32 which)
{
	struct stab *t;

	if (map->map_type != BPF_MAP_TYPE_SOCKMAP && map->map_type != BPF_MAP_TYPE_SOCKHASH)
		return -EOPNOTSUPP;
	t = stab_of(map);
	switch (which) {
	case BPF_SK_MSG_VERDICT:
		return MSG_PARSER;
	case BPF_SK_SKB_STREAM_PARSER:
		return STREAM_PARSER;
	case BPF_SK_SKB_STREAM_VERDICT:
		return t->progs[SKB_VERDICT] ? -EBUSY : STREAM_VERDICT;
	case BPF_SK_SKB_VERDICT:
		return t->progs[STREAM_VERDICT] ? -EBUSY : SKB_VERDICT;
	default:
		return -EOPNOTSUPP;
	}
}

/* The kernel's sock_map_prog_update() (progs_lock held): prog attached (old NULL) or old
 * detached (prog NULL), by a link or not.  The slot takes prog's reference, and puts old's. */
static int prog_update(struct bpf_map *map, struct bpf_prog *prog, struct bpf_prog *old,
		       struct bpf_link *link, u32 which, struct bpf_prog **put)
{
	int slot = prog_slot(map, which);
	struct stab *t;

	*put = NULL;
	if (slot < 0)
		return slot;
	t = stab_of(map);
	if ((!link || prog) && t->links[slot])
		return -EBUSY; /* (a link's program goes only with the link) */
	if (old) {
		if (t->progs[slot] != old)
			return -ENOENT;
		t->progs[slot] = prog;
		t->links[slot] = NULL;
		*put = old;
		return 0;
	}
	*put = t->progs[slot];
	t->progs[slot] = prog;
	if (link)
		t->links[slot] = link;
	return 0;
}

/* The last fd gone (links hold one of their own): the programs go (sock_map_release_progs()). */
static void sock_release_uref(struct bpf_object *obj)
{
	struct stab *t = stab_of(map_of(obj));
	struct bpf_prog *gone[SOCK_PROG_SLOTS];

	pthread_mutex_lock(&progs_lock);
	for (int i = 0; i < SOCK_PROG_SLOTS; i++) {
		gone[i] = t->progs[i];
		t->progs[i] = NULL;
	}
	pthread_mutex_unlock(&progs_lock);
	for (int i = 0; i < SOCK_PROG_SLOTS; i++)
		if (gone[i])
			obj_put(&gone[i]->obj);
}

/* The map behind fd with a reference (the kernel's __bpf_map_get(): -EBADF, -EINVAL). */
static struct bpf_map *map_ref(int fd, int *err)
{
	struct bpf_object *obj = obj_get_from_fd(fd, OBJ_MAP, err);

	return obj ? map_of(obj) : NULL;
}

int sockmap_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct bpf_prog *put;
	struct bpf_map *map;
	int err;

	if (attr->attach_flags || attr->replace_bpf_fd)
		return -EINVAL;
	map = map_ref((int)attr->target_fd, &err);
	if (!map)
		return err;
	pthread_mutex_lock(&progs_lock);
	err = prog_update(map, prog, NULL, NULL, attr->attach_type, &put);
	pthread_mutex_unlock(&progs_lock);
	if (put)
		obj_put(&put->obj);
	obj_put(&map->obj);
	return err;
}

int sockmap_prog_detach(const union bpf_attr *attr, u32 ptype)
{
	struct bpf_prog *prog, *put = NULL;
	struct bpf_map *map;
	int err;

	if (attr->attach_flags || attr->replace_bpf_fd)
		return -EINVAL;
	map = map_ref((int)attr->target_fd, &err);
	if (!map)
		return err;
	prog = prog_get_type((int)attr->attach_bpf_fd, ptype, &err);
	if (prog) {
		pthread_mutex_lock(&progs_lock);
		err = prog_update(map, NULL, prog, NULL, attr->attach_type, &put);
		pthread_mutex_unlock(&progs_lock);
		obj_put(&prog->obj);
	}
	if (put)
		obj_put(&put->obj);
	obj_put(&map->obj);
	return err;
}

int sockmap_prog_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 *ids = u64_to_ptr(attr->query.prog_ids), cnt = 0, flags = 0, id = 0;
	struct bpf_map *map;
	int err, slot;

	if (attr->query.query_flags)
		return -EINVAL;
	map = map_ref((int)attr->query.target_fd, &err);
	if (!map)
		return err;
	pthread_mutex_lock(&progs_lock);
	slot = prog_slot(map, attr->query.attach_type);
	err = slot < 0 ? slot : 0;
	if (slot >= 0 && stab_of(map)->progs[slot]) {
		cnt = 1;
		if (attr->query.prog_cnt && ids)
			id = stab_of(map)->progs[slot]->obj.id;
	}
	pthread_mutex_unlock(&progs_lock);
	memcpy(&uattr->query.attach_flags, &flags, sizeof(flags));
	if (id)
		ids[0] = id;
	memcpy(&uattr->query.prog_cnt, &cnt, sizeof(cnt));
	obj_put(&map->obj);
	return err;
}

int sockmap_link_attach(struct bpf_link *link, const union bpf_attr *attr)
{
	struct bpf_prog *put;
	struct bpf_map *map;
	int err;

	if (attr->link_create.flags)
		return -EINVAL;
	map = map_ref((int)attr->link_create.target_fd, &err);
	if (!map)
		return err;
	err = -EINVAL;
	if (map->map_type != BPF_MAP_TYPE_SOCKMAP && map->map_type != BPF_MAP_TYPE_SOCKHASH)
		goto out;
	pthread_mutex_lock(&progs_lock);
	err = prog_update(map, link->prog, NULL, link, link->attach_type, &put);
	if (!err) {
		obj_get(&link->prog->obj); /* (the slot's; the link keeps its own) */
		obj_slot_get(&map->obj); /* (the link holds the map as an fd would) */
		link->map = map;
	}
	pthread_mutex_unlock(&progs_lock);
	if (!err && put)
		obj_put(&put->obj);
out:
	obj_put(&map->obj);
	return err;
}

int sockmap_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old)
{
	struct bpf_prog *cur = link->prog, *put = NULL;
	int err = 0, slot;
	struct stab *t;

	pthread_mutex_lock(&progs_lock);
	if (!link->map) {
		err = -ENOLINK;
		goto out;
	}
	if (old && cur != old) {
		err = -EPERM;
		goto out;
	}
	if (cur->type != new->type || cur->expected_attach_type != new->expected_attach_type) {
		err = -EINVAL;
		goto out;
	}
	slot = prog_slot(link->map, link->attach_type);
	if (slot < 0) {
		err = slot;
		goto out;
	}
	t = stab_of(link->map);
	if (t->links[slot] != link) {
		err = -EBUSY;
		goto out;
	}
	if (old && t->progs[slot] != old) {
		err = -ENOENT;
		goto out;
	}
	put = t->progs[slot];
	t->progs[slot] = new; /* (the caller's reference) */
	obj_get(&new->obj);   /* (the link's) */
	__atomic_store_n(&link->prog, new, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&progs_lock);
	if (put)
		obj_put(&put->obj);
	if (!err)
		obj_put(&cur->obj);
	return err;
}

void sockmap_link_release(struct bpf_link *link)
{
	struct bpf_prog *put = NULL;
	struct bpf_map *map;

	pthread_mutex_lock(&progs_lock);
	map = link->map;
	if (map)
		prog_update(map, NULL, link->prog, link, link->attach_type, &put);
	__atomic_store_n(&link->map, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&progs_lock);
	if (put)
		obj_put(&put->obj);
	if (map)
		obj_slot_put(&map->obj);
}

u32 sockmap_link_map_id(struct bpf_link *link)
{
	struct bpf_map *map = __atomic_load_n(&link->map, __ATOMIC_ACQUIRE);

	return map ? map->obj.id : 0;
}

bool sockmap_holds(u64 cookie)
{
	bool held = false;

	pthread_mutex_lock(&maps_lock);
	for (struct stab *t = all_maps; t && !held; t = t->next_map) {
		spin_lock(&t->lock);
		if (!t->hash) {
			for (u32 i = 0; i < t->map.max_entries && !held; i++)
				held = t->slots[i].used && t->slots[i].ref.cookie == cookie;
		} else {
			for (u32 b = 0; b < t->n_buckets && !held; b++)
				for (struct sock_entry *e = t->buckets[b]; e && !held; e = e->next)
					held = e->ref.cookie == cookie;
		}
		spin_unlock(&t->lock);
	}
	pthread_mutex_unlock(&maps_lock);
	return held;
}

#define SOCK_COMMON_OPS                                                                          \
	.alloc_check = sock_alloc_check, .alloc = sock_alloc, .free = sock_free,                 \
	.lookup = sock_lookup_sys, .lookup_ptr = sock_lookup_prog, .update = sock_update_sys,    \
	.prog_update = sock_update_prog, .delete = sock_delete,                                  \
	.get_next_key = sock_get_next_key, .check_btf = map_check_no_btf

const struct bpf_map_ops sock_map_ops = { SOCK_COMMON_OPS };
const struct bpf_map_ops sock_hash_ops = { SOCK_COMMON_OPS };
