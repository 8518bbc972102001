/* BPF_MAP_TYPE_REUSEPORT_SOCKARRAY: an array of the kernel's SO_REUSEPORT sockets, from which an
 * sk_reuseport program picks the one a packet goes to (bpf_sk_select_reuseport()).
 *
 * bpf() puts a socket in a slot by its fd (a u32, or a u64 in 8-byte values) and reads back its
 * cookie (8-byte values only: ENOSPC otherwise).  A socket goes in only if the kernel would take
 * it (its reuseport_array_update_check()): TCP or UDP (else ENOTSUPP, the kernel's 524), IPv4 or
 * IPv6, a stream or a datagram socket, in a reuseport group (a TCP listener or a bound,
 * unconnected UDP socket with SO_REUSEPORT: else EINVAL), and in no slot of any such array yet,
 * its own included, nor in a socket map (EBUSY: the kernel marks the socket through
 * sk_user_data, as socket maps do theirs, which a socket of an array cannot go in either).  The
 * flags and the slot's state are checked first (EEXIST, ENOENT), as the kernel does.
 *
 * The kernel takes a socket out of its slot when it closes (or stops listening); userbpf cannot
 * see that happen, so a slot's socket is looked for (sock_cookie_alive()) whenever bpf() reads
 * or changes the slot, and a slot whose socket is gone is empty from then on, as the kernel's
 * would be.  Every operation but get_next_key holds reuseport_lock (the kernel's lock of the
 * same name), which also guards the set of the sockets in any array's slots (for the EBUSY
 * check: a lookup, where a scan of every slot of every array made each update cost as much as
 * all the arrays' sizes).
 *
 * Programs cannot use the map but through bpf_sk_select_reuseport(), which only sk_reuseport
 * programs have; userbpf verifies those but never runs them (the kernel runs them on its own
 * sockets' packets and cannot test-run them), so the map is bpf()'s.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "exec/sock.h"
#include "map/map.h"
#include "map/reuseport_array.h"
#include "map/sockmap.h"

#define REUSEPORT_CREATE_FLAG_MASK                                                             \
	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)

struct reuseport_slot {
	struct sock_ref ref;
	bool used;
};

struct reuseport_array {
	struct bpf_map map;
	struct reuseport_slot slots[];
};

static pthread_mutex_t reuseport_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cookies of the sockets in used slots of any array (the kernel marks such a socket through
 * its sk_user_data): a set, open-addressed with linear probing, 0 an empty place (no socket's
 * cookie is 0), at most half full.  reuseport_lock held for all of it. */
static struct {
	u64 *place;
	u32 bits;	/* 1 << bits places (none while place is NULL) */
	size_t n;
} held;

static size_t held_home(u64 cookie)
{
	return (size_t)((cookie * 0x9e3779b97f4a7c15ull) >> (64 - held.bits));
}

static size_t held_find(u64 cookie)
{
	size_t mask = ((size_t)1 << held.bits) - 1, i = held_home(cookie);

	while (held.place[i] && held.place[i] != cookie)
		i = (i + 1) & mask;
	return i;
}

static bool held_has(u64 cookie)
{
	return held.place && held.place[held_find(cookie)] == cookie;
}

/* Adds cookie (not in the set): 0, or -ENOMEM with the set as it was. */
static int held_add(u64 cookie)
{
	if (!held.place || (held.n + 1) * 2 > (size_t)1 << held.bits) {
		u32 bits = held.place ? held.bits + 1 : 6;
		u64 *old = held.place, *place = calloc((size_t)1 << bits, sizeof(u64));
		size_t old_size = old ? (size_t)1 << held.bits : 0;

		if (!place)
			return -ENOMEM;
		held.place = place;
		held.bits = bits;
		for (size_t i = 0; i < old_size; i++)
			if (old[i])
				held.place[held_find(old[i])] = old[i];
		free(old);
	}
	held.place[held_find(cookie)] = cookie;
	held.n++;
	return 0;
}

/* Takes cookie out, moving back the places after it that probed past it. */
static void held_del(u64 cookie)
{
	size_t mask, i, j;

	if (!held_has(cookie))
		return;
	mask = ((size_t)1 << held.bits) - 1;
	i = held_find(cookie);
	held.place[i] = 0;
	for (j = (i + 1) & mask; held.place[j]; j = (j + 1) & mask) {
		size_t home = held_home(held.place[j]);

		/* j's cookie stays unless its home is cyclically outside (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			held.place[i] = held.place[j];
			held.place[j] = 0;
			i = j;
		}
	}
	if (!--held.n) {
		free(held.place);
		held.place = NULL;
	}
}

static inline struct reuseport_array *rarray_of(struct bpf_map *map)
{
	return container_of(map, struct reuseport_array, map);
}

/* The kernel's reuseport_array_alloc_check(), then array_map_alloc_check(): only plain arrays
 * are mmapable or inner-map templates, only perf event arrays preserve elements. */
static int rarray_alloc_check(const union bpf_attr *attr)
{
	if (attr->value_size != 4 && attr->value_size != 8)
		return -EINVAL;
	if (!attr->max_entries || attr->key_size != 4 ||
	    (attr->map_flags & ~REUSEPORT_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	return 0;
}

static int rarray_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct reuseport_array *a;

	(void)memfd;
	if ((u64)attr->max_entries * sizeof(a->slots[0]) > SIZE_MAX - sizeof(*a))
		return -ENOMEM;
	a = calloc(1, sizeof(*a) + (size_t)attr->max_entries * sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	*out = &a->map;
	return 0;
}

static void rarray_free(struct bpf_map *map)
{
	struct reuseport_array *a = rarray_of(map);

	pthread_mutex_lock(&reuseport_lock);
	for (u32 i = 0; i < map->max_entries; i++)
		if (a->slots[i].used)
			held_del(a->slots[i].ref.cookie);
	pthread_mutex_unlock(&reuseport_lock);
	free(a);
}

/* The states the kernel keeps a socket of the array in: a TCP listener, a UDP socket in any. */
static u32 kept_states(const struct sock_ref *r)
{
	return r->protocol == IPPROTO_TCP ? 1u << SK_LISTEN : ~0u;
}

/* Slot index's socket, or NULL: empty, or its socket gone (the slot is then emptied, as the
 * kernel's close would have).  reuseport_lock held. */
static struct reuseport_slot *slot_get(struct reuseport_array *a, u32 index)
{
	struct reuseport_slot *s = &a->slots[index];

	if (!s->used)
		return NULL;
	if (!sock_cookie_alive(s->ref.family, s->ref.protocol, kept_states(&s->ref),
			       s->ref.cookie)) {
		s->used = false;
		held_del(s->ref.cookie);
		return NULL;
	}
	return s;
}

bool reuseport_array_holds(u64 cookie)
{
	bool in;

	pthread_mutex_lock(&reuseport_lock);
	in = held_has(cookie);
	pthread_mutex_unlock(&reuseport_lock);
	return in;
}

static u32 key_index(const void *key)
{
	u32 index;

	memcpy(&index, key, sizeof(index));
	return index;
}

static int rarray_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct reuseport_array *a = rarray_of(map);
	struct reuseport_slot *s;
	u32 index = key_index(key);
	int err = -ENOENT;

	if (map->value_size != 8)
		return -ENOSPC;
	if (index >= map->max_entries)
		return -ENOENT;
	pthread_mutex_lock(&reuseport_lock);
	s = slot_get(a, index);
	if (s) {
		memcpy(value, &s->ref.cookie, 8);
		err = 0;
	}
	pthread_mutex_unlock(&reuseport_lock);
	return err;
}

/* The kernel's reuseport_array_update_check(), with the socket's description (sock_ref_from_fd()
 * found it one a socket map may hold or not: the checks here are this map's own). */
static int update_check(const struct sock_ref *r, int fd, bool occupied, u64 flags)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (occupied && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!occupied && flags == BPF_EXIST)
		return -ENOENT;
	if (r->protocol != IPPROTO_UDP && r->protocol != IPPROTO_TCP)
		return -ENOTSUPP;
	if (r->family != AF_INET && r->family != AF_INET6)
		return -ENOTSUPP;
	if (r->type != SOCK_STREAM && r->type != SOCK_DGRAM)
		return -ENOTSUPP;
	/* in a reuseport group: hashed (a TCP listener, a bound UDP socket) with SO_REUSEPORT;
	 * 6.18 takes no connected UDP socket either */
	if (getsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &v, &len) || !v || !r->lport ||
	    (r->protocol == IPPROTO_TCP ? r->state != SK_LISTEN : r->state == SK_ESTABLISHED))
		return -EINVAL;
	if (held_has(r->cookie) || sockmap_holds(r->cookie))
		return -EBUSY;
	return 0;
}

static int rarray_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct reuseport_array *a = rarray_of(map);
	struct reuseport_slot *s;
	struct sock_ref r;
	u32 index = key_index(key);
	u64 fd = 0;
	int err;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	if (map->value_size == 8) {
		memcpy(&fd, value, 8);
		if (fd > INT_MAX)
			return -EINVAL;
	} else {
		s32 fd32;

		memcpy(&fd32, value, 4);
		if (fd32 < 0)
			return -EBADF;
		fd = (u32)fd32;
	}
	/* (its refusals of sockets a socket map cannot hold are not this map's: only a bad fd or
	 * a non-socket ends the update here) */
	err = sock_ref_from_fd((int)fd, &r);
	if (err == -EBADF || err == -ENOTSOCK)
		return err;
	if (err && !r.cookie)
		return -EINVAL;
	pthread_mutex_lock(&reuseport_lock);
	s = slot_get(a, index);
	err = update_check(&r, (int)fd, s != NULL, flags);
	if (!err)
		err = held_add(r.cookie);
	if (!err) {
		if (s) /* (the socket it replaces leaves the set) */
			held_del(s->ref.cookie);
		a->slots[index].ref = r;
		a->slots[index].used = true;
	}
	pthread_mutex_unlock(&reuseport_lock);
	return err;
}

static int rarray_delete(struct bpf_map *map, const void *key)
{
	struct reuseport_array *a = rarray_of(map);
	struct reuseport_slot *s;
	u32 index = key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	pthread_mutex_lock(&reuseport_lock);
	s = slot_get(a, index);
	if (s) {
		s->used = false;
		held_del(s->ref.cookie);
	}
	pthread_mutex_unlock(&reuseport_lock);
	return s ? 0 : -ENOENT;
}

const struct bpf_map_ops reuseport_array_ops = {
	.alloc_check = rarray_alloc_check,
	.alloc = rarray_alloc,
	.free = rarray_free,
	.lookup = rarray_lookup,
	.update = rarray_update,
	.delete = rarray_delete,
	.get_next_key = array_map_get_next_key,
};
