/* BPF_MAP_TYPE_XSKMAP: AF_XDP sockets, the ones an XDP program redirects frames to with
 * bpf_redirect_map() (usually at the index of the frame's receive queue).
 *
 * bpf() writes a socket by its fd (a u32): the kernel's own AF_XDP socket, bound or not; any
 * other socket is EOPNOTSUPP, a file that is no socket ENOTSOCK.  Nothing can be read back
 * through bpf() (lookups are EOPNOTSUPP, as the kernel's).  A program's lookup gives the
 * socket's struct bpf_xdp_sock (its queue_id: the queue the socket was bound to, which userbpf
 * cannot see: 0, an unbound socket's), and bpf_redirect_map() answers XDP_REDIRECT where a socket
 * is; a test run sends nothing, as the kernel's does without BPF_F_TEST_XDP_LIVE_FRAMES.
 *
 * The map keeps each socket as its cookie (SO_COOKIE), so writing the socket already there is
 * no change (the kernel's rule: even with BPF_NOEXIST).  The kernel drops a socket from its maps
 * when it closes; here the entry stays until deleted or replaced, as socket maps' do.
 *
 * An array of max_entries slots under the map's lock; iteration visits every index.  A slot's
 * memory lives as long as the map, so a pointer a program got stays readable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "map/map.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

struct xsk_slot {
	struct bpf_xdp_sock xs;	/* what a program reads (must stay first) */
	u64 cookie;		/* the socket; 0: the slot is empty */
};

struct xskmap {
	struct bpf_map map;
	spinlock_t lock;
	struct xsk_slot slots[];	/* max_entries */
};

static inline struct xskmap *xskmap_of(struct bpf_map *map)
{
	return container_of(map, struct xskmap, map);
}

static int xsk_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || attr->key_size != 4 || attr->value_size != 4 ||
	    (attr->map_flags & ~(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY)))
		return -EINVAL;
	return 0;
}

static int xsk_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct xskmap *m = calloc(1, sizeof(*m) + (size_t)attr->max_entries * sizeof(m->slots[0]));

	(void)memfd;
	if (!m)
		return -ENOMEM;
	*out = &m->map;
	return 0;
}

static void xsk_free(struct bpf_map *map)
{
	free(xskmap_of(map));
}

/* bpf()'s lookup: nothing to read back (the kernel's xsk_map_lookup_elem_sys_only()). */
static int xsk_lookup_sys(struct bpf_map *map, const void *key, void *value)
{
	return -EOPNOTSUPP;
}

/* A program's: the socket's struct bpf_xdp_sock, or NULL. */
static void *xsk_lookup_prog(struct bpf_map *map, const void *key)
{
	struct xskmap *m = xskmap_of(map);
	u32 k;
	bool used;

	memcpy(&k, key, 4);
	if (k >= map->max_entries)
		return NULL;
	spin_lock(&m->lock);
	used = m->slots[k].cookie != 0;
	spin_unlock(&m->lock);
	return used ? &m->slots[k].xs : NULL;
}

/* The AF_XDP socket behind fd, as its cookie: 0, or -EBADF, -ENOTSOCK, -EOPNOTSUPP (another
 * kind of socket), in the kernel's order. */
static int xsk_of_fd(int fd, u64 *cookie)
{
	socklen_t len = sizeof(int);
	struct stat st;
	int domain;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -EBADF;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_XDP)
		return -EOPNOTSUPP;
	len = sizeof(*cookie);
	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) < 0 || !*cookie)
		return -EOPNOTSUPP;
	return 0;
}

/* The kernel's xsk_map_update_elem(): flags, the index, the socket, then the flags against the
 * slot (the same socket again is no change, whatever they say). */
static int xsk_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct xskmap *m = xskmap_of(map);
	u32 k, fd;
	u64 cookie;
	int err;

	memcpy(&k, key, 4);
	memcpy(&fd, value, 4);
	if (flags > BPF_EXIST)
		return -EINVAL;
	if (k >= map->max_entries)
		return -E2BIG;
	err = xsk_of_fd((int)fd, &cookie);
	if (err)
		return err;
	spin_lock(&m->lock);
	if (m->slots[k].cookie == cookie)
		err = 0;
	else if (m->slots[k].cookie && flags == BPF_NOEXIST)
		err = -EEXIST;
	else if (!m->slots[k].cookie && flags == BPF_EXIST)
		err = -ENOENT;
	else
		m->slots[k].cookie = cookie;
	spin_unlock(&m->lock);
	return err;
}

static int xsk_delete(struct bpf_map *map, const void *key)
{
	struct xskmap *m = xskmap_of(map);
	u32 k;

	memcpy(&k, key, 4);
	if (k >= map->max_entries)
		return -EINVAL;
	spin_lock(&m->lock);
	m->slots[k].cookie = 0;
	spin_unlock(&m->lock);
	return 0;
}

/* bpf_redirect_map(): the slot's socket decides (no flags of the type's own). */
static int xsk_xdp_redirect(struct bpf_map *map, u64 index, u64 flags)
{
	u32 k = (u32)index;

	if (xdp_redirect_flags_bad(flags, 0))
		return XDP_ABORTED;
	return xdp_redirect_verdict(flags, index < map->max_entries && xsk_lookup_prog(map, &k));
}

const struct bpf_map_ops xsk_map_ops = {
	.alloc_check = xsk_alloc_check,
	.alloc = xsk_alloc,
	.free = xsk_free,
	.lookup = xsk_lookup_sys,
	.lookup_ptr = xsk_lookup_prog,
	.update = xsk_update,
	.delete = xsk_delete,
	.get_next_key = array_map_get_next_key, /* (every index, empty or not) */
	.xdp_redirect = xsk_xdp_redirect,
	.check_btf = map_check_no_btf,
};
