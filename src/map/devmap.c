/* BPF_MAP_TYPE_DEVMAP and BPF_MAP_TYPE_DEVMAP_HASH: network devices an XDP program redirects to
 * with bpf_redirect_map().
 *
 * A value is struct bpf_devmap_val: the device's ifindex and, in 8-byte values, a program for
 * the device (an fd in, its id out).  As in the kernel, an update checks that the ifindex names
 * a device of the caller's network namespace (here: if_indextoname(); both see the same
 * devices) and that the program is an XDP program loaded for BPF_XDP_DEVMAP; programs may only
 * read values (the type adds BPF_F_RDONLY_PROG).  No packet is ever sent anywhere: a test run
 * only returns XDP_REDIRECT, as the kernel's does without BPF_F_TEST_XDP_LIVE_FRAMES.
 *
 * DEVMAP is an array of max_entries slots, each empty or holding a value; iteration visits every
 * index, empty or not (the kernel's).  DEVMAP_HASH keeps n = roundup_pow_of_two(max_entries)
 * buckets indexed by key & (n - 1) (no hash function: the kernel's), a new or replaced entry
 * going to its bucket's head, so get_next_key gives the kernel's order.
 *
 * Concurrency: writers and bpf() readers take the map's lock; a program's lookup too (the walk of
 * a bucket).  Entry memory is never freed while the map lives (deleted entries are kept for
 * reuse), so a pointer a program got stays readable.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "prog/prog.h"

#define DEV_CREATE_FLAG_MASK (BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY)

struct dev_entry {
	struct bpf_devmap_val val;	/* what lookups see: ifindex, program id */
	struct bpf_prog *prog;		/* held, or NULL */
	u32 key;			/* hash: the entry's key */
	bool used;			/* array: the slot holds a value */
	struct dev_entry *next;		/* hash: the bucket's next, or the free list's */
};

struct dtab {
	struct bpf_map map;
	spinlock_t lock;
	bool hash;
	u32 n_buckets;			/* hash: a power of two */
	u32 items;			/* hash: entries */
	struct dev_entry *slots;	/* array: max_entries */
	struct dev_entry **buckets;	/* hash */
	struct dev_entry *free_list;	/* hash: deleted entries, for reuse */
};

static inline struct dtab *dtab_of(struct bpf_map *map)
{
	return container_of(map, struct dtab, map);
}

static int dev_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || attr->key_size != 4 ||
	    (attr->value_size != 4 && attr->value_size != sizeof(struct bpf_devmap_val)) ||
	    (attr->map_flags & ~DEV_CREATE_FLAG_MASK))
		return -EINVAL;
	if (attr->map_type == BPF_MAP_TYPE_DEVMAP_HASH && attr->max_entries > 1u << 31)
		return -EINVAL;
	return 0;
}

static int dev_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct dtab *d = calloc(1, sizeof(*d));
	u64 n;

	(void)memfd;
	if (!d)
		return -ENOMEM;
	d->hash = attr->map_type == BPF_MAP_TYPE_DEVMAP_HASH;
	if (d->hash) {
		for (n = 1; n < attr->max_entries; n <<= 1)
			;
		d->n_buckets = (u32)n;
		if (n * sizeof(*d->buckets) > SIZE_MAX ||
		    !(d->buckets = calloc((size_t)n, sizeof(*d->buckets))))
			goto nomem;
	} else if ((u64)attr->max_entries * sizeof(*d->slots) > SIZE_MAX ||
		   !(d->slots = calloc(attr->max_entries, sizeof(*d->slots)))) {
		goto nomem;
	}
	*out = &d->map;
	return 0;
nomem:
	free(d);
	return -ENOMEM;
}

static void entry_release(struct dev_entry *e)
{
	if (e->prog)
		obj_put_deferred(&e->prog->obj);
	e->prog = NULL;
}

static void dev_free(struct bpf_map *map)
{
	struct dtab *d = dtab_of(map);

	if (d->hash) {
		for (u32 b = 0; b < d->n_buckets; b++)
			while (d->buckets[b]) {
				struct dev_entry *e = d->buckets[b];

				d->buckets[b] = e->next;
				if (e->prog)
					obj_put(&e->prog->obj);
				free(e);
			}
		while (d->free_list) {
			struct dev_entry *e = d->free_list;

			d->free_list = e->next;
			free(e);
		}
		free(d->buckets);
	} else {
		for (u32 i = 0; i < map->max_entries; i++)
			if (d->slots[i].prog)
				obj_put(&d->slots[i].prog->obj);
		free(d->slots);
	}
	free(d);
}

/* The kernel's __dev_map_alloc_node(): the device must exist, the program (fd > 0) must be an
 * XDP program for BPF_XDP_DEVMAP, of the map's kind (map_prog_compatible()); anything else is
 * EINVAL.  *prog gets a reference. */
static int check_value(struct bpf_map *map, const struct bpf_devmap_val *v,
		       struct bpf_prog **prog)
{
	char name[IF_NAMESIZE];
	struct bpf_object *obj;
	int err;

	*prog = NULL;
	if (!if_indextoname(v->ifindex, name))
		return -EINVAL;
	if (v->bpf_prog.fd <= 0)
		return 0;
	obj = obj_from_fd(v->bpf_prog.fd, OBJ_PROG, &err);
	if (!obj || prog_of(obj)->type != BPF_PROG_TYPE_XDP ||
	    prog_of(obj)->expected_attach_type != BPF_XDP_DEVMAP ||
	    !map_prog_compatible(map, prog_of(obj)))
		return -EINVAL;
	if (!obj_tryget(obj))
		return -EBADF; /* closed meanwhile */
	*prog = prog_of(obj);
	return 0;
}

static void set_entry(struct dev_entry *e, const struct bpf_devmap_val *v, struct bpf_prog *prog)
{
	struct bpf_devmap_val nv = { .ifindex = v->ifindex };

	nv.bpf_prog.id = prog ? prog->obj.id : 0;
	entry_release(e);
	e->prog = prog;
	/* relaxed atomic stores: a program may be reading the value */
	__atomic_store_n(&e->val.ifindex, nv.ifindex, __ATOMIC_RELAXED);
	__atomic_store_n(&e->val.bpf_prog.id, nv.bpf_prog.id, __ATOMIC_RELAXED);
}

static struct dev_entry **hash_find(struct dtab *d, u32 key)
{
	struct dev_entry **pp = &d->buckets[key & (d->n_buckets - 1)];

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->key == key)
			return pp;
	return NULL;
}

/* The entry of key, or NULL (lock held). */
static struct dev_entry *dev_find(struct dtab *d, u32 key)
{
	struct dev_entry **pp;

	if (!d->hash)
		return key < d->map.max_entries && d->slots[key].used ? &d->slots[key] : NULL;
	pp = hash_find(d, key);
	return pp ? *pp : NULL;
}

static int dev_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct dtab *d = dtab_of(map);
	struct dev_entry *e;
	u32 k;

	memcpy(&k, key, 4);
	spin_lock(&d->lock);
	e = dev_find(d, k);
	if (e)
		memcpy(value, &e->val, map->value_size);
	spin_unlock(&d->lock);
	return e ? 0 : -ENOENT;
}

static void *dev_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct dtab *d = dtab_of(map);
	struct dev_entry *e;
	u32 k;

	memcpy(&k, key, 4);
	spin_lock(&d->lock);
	e = dev_find(d, k);
	spin_unlock(&d->lock);
	return e ? &e->val : NULL;
}

static int dev_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct dtab *d = dtab_of(map);
	struct bpf_devmap_val v = { 0 };
	struct bpf_prog *prog;
	u32 k;
	int err;

	memcpy(&k, key, 4);
	memcpy(&v, value, map->value_size);
	if (flags > BPF_EXIST)
		return -EINVAL;
	if (k >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	if (!v.ifindex) {
		/* ifindex 0 empties the slot (no program may come with it) */
		if (map->value_size > 4 && v.bpf_prog.fd > 0)
			return -EINVAL;
		spin_lock(&d->lock);
		entry_release(&d->slots[k]);
		d->slots[k].used = false;
		spin_unlock(&d->lock);
		return 0;
	}
	if (map->value_size == 4)
		v.bpf_prog.fd = 0;
	err = check_value(map, &v, &prog);
	if (err)
		return err;
	spin_lock(&d->lock);
	set_entry(&d->slots[k], &v, prog);
	d->slots[k].used = true;
	spin_unlock(&d->lock);
	return 0;
}

/* (the kernel's: BPF_EXIST does not require the key; a replaced entry moves to the head) */
static int dev_hash_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct dtab *d = dtab_of(map);
	struct bpf_devmap_val v = { 0 };
	struct dev_entry **pp, *e;
	struct bpf_prog *prog;
	u32 k;
	int err;

	memcpy(&k, key, 4);
	memcpy(&v, value, map->value_size);
	if (map->value_size == 4)
		v.bpf_prog.fd = 0;
	if (flags > BPF_EXIST || !v.ifindex)
		return -EINVAL;
	/* the key's presence is checked first, as the kernel does; the device and program are
	 * checked without the lock (if_indextoname() is a system call) */
	if (flags & BPF_NOEXIST) {
		spin_lock(&d->lock);
		pp = hash_find(d, k);
		spin_unlock(&d->lock);
		if (pp)
			return -EEXIST;
	}
	err = check_value(map, &v, &prog);
	if (err)
		return err;
	spin_lock(&d->lock);
	pp = hash_find(d, k);
	if (pp && (flags & BPF_NOEXIST)) {
		if (prog)
			obj_put_deferred(&prog->obj);
		err = -EEXIST;
		goto unlock;
	}
	if (pp) {
		e = *pp;
		*pp = e->next;
	} else {
		if (d->items >= map->max_entries) {
			if (prog)
				obj_put_deferred(&prog->obj);
			err = -E2BIG;
			goto unlock;
		}
		e = d->free_list;
		if (e)
			d->free_list = e->next;
		else if (!(e = calloc(1, sizeof(*e)))) {
			if (prog)
				obj_put_deferred(&prog->obj);
			err = -ENOMEM;
			goto unlock;
		}
		e->key = k;
		d->items++;
	}
	set_entry(e, &v, prog);
	e->next = d->buckets[k & (d->n_buckets - 1)];
	d->buckets[k & (d->n_buckets - 1)] = e;
unlock:
	spin_unlock(&d->lock);
	return err;
}

static int dev_delete(struct bpf_map *map, const void *key)
{
	struct dtab *d = dtab_of(map);
	u32 k;

	memcpy(&k, key, 4);
	if (k >= map->max_entries)
		return -EINVAL;
	spin_lock(&d->lock);
	entry_release(&d->slots[k]);
	d->slots[k].used = false;
	spin_unlock(&d->lock);
	return 0;
}

static int dev_hash_delete(struct bpf_map *map, const void *key)
{
	struct dtab *d = dtab_of(map);
	struct dev_entry **pp, *e;
	u32 k;

	memcpy(&k, key, 4);
	spin_lock(&d->lock);
	pp = hash_find(d, k);
	if (!pp) {
		spin_unlock(&d->lock);
		return -ENOENT;
	}
	e = *pp;
	*pp = e->next;
	entry_release(e);
	e->next = d->free_list;
	d->free_list = e;
	d->items--;
	spin_unlock(&d->lock);
	return 0;
}

/* The kernel's order: the key's successor in its bucket, else the first entry of a later
 * bucket; a missing key starts over from the first bucket. */
static int dev_hash_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	struct dtab *d = dtab_of(map);
	struct dev_entry **pp = NULL, *e = NULL;
	u32 b = 0, k;

	spin_lock(&d->lock);
	if (key) {
		memcpy(&k, key, 4);
		pp = hash_find(d, k);
	}
	if (pp) {
		e = (*pp)->next;
		b = (k & (d->n_buckets - 1)) + 1;
	}
	for (; !e && b < d->n_buckets; b++)
		e = d->buckets[b];
	if (e)
		memcpy(next_key, &e->key, 4);
	spin_unlock(&d->lock);
	return e ? 0 : -ENOENT;
}

/* bpf_redirect_map(): a broadcast always redirects, else the entry decides. */
static int dev_xdp_redirect(struct bpf_map *map, u64 index, u64 flags)
{
	u32 k = (u32)index;

	if (xdp_redirect_flags_bad(flags, BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS))
		return XDP_ABORTED;
	return xdp_redirect_verdict(flags, (flags & BPF_F_BROADCAST) || dev_lookup_ptr(map, &k));
}

#define DEV_COMMON_OPS                                                                           \
	.alloc_check = dev_alloc_check, .alloc = dev_alloc, .free = dev_free,                    \
	.lookup = dev_lookup, .lookup_ptr = dev_lookup_ptr, .xdp_redirect = dev_xdp_redirect,    \
	.forced_flags = BPF_F_RDONLY_PROG, .check_btf = map_check_no_btf

const struct bpf_map_ops dev_map_ops = {
	DEV_COMMON_OPS,
	.update = dev_update,
	.delete = dev_delete,
	.get_next_key = array_map_get_next_key, /* (every index, empty or not) */
};

const struct bpf_map_ops dev_map_hash_ops = {
	DEV_COMMON_OPS,
	.update = dev_hash_update,
	.delete = dev_hash_delete,
	.get_next_key = dev_hash_get_next_key,
};
