/* BPF_MAP_TYPE_SK_STORAGE: a value per socket, which programs reach with bpf_sk_storage_get()
 * and bpf_sk_storage_delete() and bpf() through a socket's fd as the key.  And
 * BPF_MAP_TYPE_TASK_STORAGE, BPF_MAP_TYPE_CGRP_STORAGE and BPF_MAP_TYPE_INODE_STORAGE, the
 * same table for tasks, cgroups and inodes (at the end).
 *
 * Two kinds of sockets carry storage here.  The sockets of test runs (the dummy socket behind
 * __sk_buff.sk, as the kernel's BPF_PROG_TEST_RUN makes one for each run) hold their own list
 * (struct sk_storage_list), which goes with the run.  Kernel sockets, which bpf() names by fd
 * and programs find with bpf_sk_lookup_*(), are not ours, so the map keeps their storage
 * itself, under the socket's cookie (SO_COOKIE, never reused while the system runs): a value
 * bpf() sets on a socket is the one a program that looks the socket up gets, as in the kernel.
 *
 * bpf() side: the fd must be a socket (EBADF, ENOTSOCK); update follows BPF_NOEXIST / BPF_EXIST
 * (BPF_F_LOCK updates a value with a bpf_spin_lock in place); get_next_key is ENOTSUPP (sockets
 * cannot be listed by fd), as are the batch commands.  Differences from the kernel: userbpf does
 * not see a real socket close, so its storage stays until the map goes; and storage is not
 * charged to the socket's optmem (the kernel refuses values beyond net.core.optmem_max).
 *
 * Concurrency: the kernel sockets' table is guarded by the map's lock, which every bpf() command
 * and the helpers on a found socket take (not a program's hot path); a deleted element stays
 * memory of the map (retired, spare), since a program may hold its value.  A test run's list is
 * its thread's alone.
 */
#include <errno.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/current_cgroup.h"
#include "map/map.h"
#include "map/sk_storage.h"

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

#define SKS_CREATE_FLAG_MASK (BPF_F_NO_PREALLOC | BPF_F_CLONE)
#define SKS_MAX_VALUE 65407u	/* the kernel's BPF_LOCAL_STORAGE_MAX_VALUE_SIZE (x86-64) */
#define SKS_BUCKETS 64u

struct sk_storage_elem {
	struct sk_storage_elem *next;
	union {
		struct bpf_map *map;	/* a test run's socket: whose value */
		u64 cookie;		/* the map's table: which socket */
	};
	_Alignas(8) u8 value[];
};

struct sks_map {
	struct bpf_map map;
	/* The owner behind the fd at a bpf() key: a socket's cookie, a task's pid. */
	int (*owner_of_fd)(const void *key, u64 *owner);
	spinlock_t lock;	/* guards buckets and retired */
	struct sk_storage_elem *buckets[SKS_BUCKETS];
	/* Deleted elements of values with a bpf_spin_lock, which a BPF_F_LOCK lookup may still
	 * be reading outside the map's lock: freed with the map. */
	struct sk_storage_elem *retired;
	/* Other deleted elements, reused for new values: a program may still hold one's value
	 * (a kernel socket's, found by a lookup), so it stays memory of this map, as a
	 * preallocated hash map's elements do. */
	struct sk_storage_elem *spare;
};

static inline struct sks_map *sks_of(struct bpf_map *map)
{
	return container_of(map, struct sks_map, map);
}

static struct sk_storage_elem *elem_new(const struct bpf_map *map, const void *init)
{
	struct sk_storage_elem *e = calloc(1, sizeof(*e) + round_up(map->value_size, 8));

	if (e && init) {
		memcpy(e->value, init, map->value_size);
		map_hide_lock(map, e->value);
	}
	return e;
}

/* ---- a socket's own list (test runs) ---- */

void *sk_storage_get(struct sk_storage_list *l, struct bpf_map *map, const void *init,
		     bool create)
{
	struct sk_storage_elem *e, **tail = &l->head;

	for (e = l->head; e; e = e->next) {
		if (e->map == map)
			return e->value;
		tail = &e->next;
	}
	if (!create || !(e = elem_new(map, init)))
		return NULL;
	e->map = map;
	*tail = e;
	return e->value;
}

int sk_storage_delete(struct sk_storage_list *l, struct bpf_map *map)
{
	for (struct sk_storage_elem **p = &l->head; *p; p = &(*p)->next) {
		if ((*p)->map == map) {
			struct sk_storage_elem *e = *p;

			*p = e->next;
			if (map->nr_kptrs) /* (dropped now, as elem_drop() does) */
				map_empty_kptrs(map, e->value);
			e->next = l->retired;
			l->retired = e;
			return 0;
		}
	}
	return -ENOENT;
}

static void elems_free(struct sk_storage_elem *e)
{
	while (e) {
		struct sk_storage_elem *next = e->next;

		free(e);
		e = next;
	}
}

/* A socket's list going: each element drops what its kptrs hold, then is freed (a retired
 * one's too: a program that held its value may have put a new one in after the delete). */
static void list_elems_free(struct sk_storage_elem *e)
{
	for (struct sk_storage_elem *i = e; i; i = i->next)
		if (i->map->nr_kptrs)
			map_empty_kptrs(i->map, i->value);
	elems_free(e);
}

void sk_storage_free(struct sk_storage_list *l)
{
	list_elems_free(l->head);
	list_elems_free(l->retired);
	l->head = l->retired = NULL;
}

/* ---- the map: creation ---- */

static int sks_alloc_check(const union bpf_attr *attr)
{
	if ((attr->map_flags & ~SKS_CREATE_FLAG_MASK) || !(attr->map_flags & BPF_F_NO_PREALLOC) ||
	    attr->max_entries || attr->key_size != sizeof(int) || !attr->value_size ||
	    /* the kernel wants BTF, for dumping the values of sockets */
	    !attr->btf_key_type_id || !attr->btf_value_type_id)
		return -EINVAL;
	return attr->value_size > SKS_MAX_VALUE ? -E2BIG : 0;
}

static int sock_cookie(const void *key, u64 *cookie);

static int sks_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct sks_map *m = calloc(1, sizeof(*m));

	(void)memfd;
	if (!m)
		return -ENOMEM;
	m->owner_of_fd = sock_cookie;
	*out = &m->map;
	return 0;
}

static void sks_free(struct bpf_map *map)
{
	struct sks_map *m = sks_of(map);

	for (u32 b = 0; b < SKS_BUCKETS; b++) {
		for (struct sk_storage_elem *e = m->buckets[b]; e && map->nr_kptrs; e = e->next)
			map_empty_kptrs(map, e->value);
		elems_free(m->buckets[b]);
	}
	elems_free(m->retired);
	elems_free(m->spare);
	free(m);
}

/* The key: a 32-bit integer (the kernel's bpf_local_storage_map_check_btf()). */
static int sks_check_btf(const struct bpf_map *map, const struct btf *btf,
			 const struct btf_type *key_type, const struct btf_type *value_type)
{
	u32 int_data;

	if (!key_type || BTF_INFO_KIND(key_type->info) != BTF_KIND_INT)
		return -EINVAL;
	memcpy(&int_data, key_type + 1, sizeof(int_data));
	return BTF_INT_BITS(int_data) == 32 && !BTF_INT_OFFSET(int_data) ? 0 : -EINVAL;
}

/* ---- the map: real sockets, by fd ---- */

/* The socket behind the fd at key, by its cookie: 0, -EBADF or -ENOTSOCK (sockfd_lookup()). */
static int sock_cookie(const void *key, u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	struct stat st;
	int fd;

	memcpy(&fd, key, sizeof(fd));
	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	return getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) ? -errno : 0;
}

/* The element of cookie's socket and the link that points at it (*link NULL: none); under the
 * lock. */
static struct sk_storage_elem *find(struct sks_map *m, u64 cookie, struct sk_storage_elem ***link)
{
	struct sk_storage_elem **p = &m->buckets[cookie % SKS_BUCKETS];

	for (; *p; p = &(*p)->next)
		if ((*p)->cookie == cookie)
			break;
	*link = p;
	return *p;
}

/* Takes the table's lock and finds the element of the socket behind the fd at key (NULL: none)
 * and the link to it: 0, the lock then held; or the fd's error, unlocked. */
static int lock_find(struct sks_map *m, const void *key, struct sk_storage_elem **e,
		     struct sk_storage_elem ***link)
{
	u64 cookie;
	int err = m->owner_of_fd(key, &cookie);

	if (err)
		return err;
	spin_lock(&m->lock);
	*e = find(m, cookie, link);
	return 0;
}

/* Under the lock: a new element of cookie's socket holding init (zeros when NULL), a spare one
 * if there is one; NULL without memory. */
static struct sk_storage_elem *elem_take(struct sks_map *m, u64 cookie, const void *init)
{
	struct sk_storage_elem *e = m->spare;

	if (e) {
		m->spare = e->next;
		memset(e->value, 0, m->map.value_size);
		if (init) {
			memcpy(e->value, init, m->map.value_size);
			map_hide_lock(&m->map, e->value);
		}
	} else if (!(e = elem_new(&m->map, init))) {
		return NULL;
	}
	e->next = NULL;
	e->cookie = cookie;
	return e;
}

/* Under the lock: e, at *link, is deleted (see retired and spare). */
static void elem_drop(struct sks_map *m, struct sk_storage_elem *e, struct sk_storage_elem **link)
{
	struct sk_storage_elem **to = m->map.spin_lock_off >= 0 ? &m->retired : &m->spare;

	if (m->map.nr_kptrs) /* (what they held is dropped now, not when e is reused) */
		map_empty_kptrs(&m->map, e->value);
	*link = e->next;
	e->next = *to;
	*to = e;
}

static int sks_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, **link;
	int err = lock_find(m, key, &e, &link);

	if (err)
		return err;
	if (e)
		memcpy(value, e->value, map->value_size);
	spin_unlock(&m->lock);
	return e ? 0 : -ENOENT;
}

/* For BPF_F_LOCK lookups: the value of key's socket, read under its own lock (programs cannot
 * look the map up: the verifier allows only the sk_storage helpers on it).  Updates write such a
 * value in place under that lock, and a deleted one is retired, not freed, so the pointer stays
 * good outside the map's lock. */
static void *sks_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, **link;

	if (lock_find(m, key, &e, &link))
		return NULL;
	spin_unlock(&m->lock);
	return e ? e->value : NULL;
}

static int sks_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, *n, **link;
	u64 cookie, op = flags & ~(u64)BPF_F_LOCK;
	int err = m->owner_of_fd(key, &cookie);

	if (err)
		return err;
	if (op > BPF_EXIST || ((flags & BPF_F_LOCK) && map->spin_lock_off < 0))
		return -EINVAL;
	spin_lock(&m->lock);
	e = find(m, cookie, &link);
	if (e && op == BPF_NOEXIST) {
		err = -EEXIST;
	} else if (!e && op == BPF_EXIST) {
		err = -ENOENT;
	} else if (e) {
		/* in place: bpf() readers hold the map's lock, a BPF_F_LOCK one the value's */
		if (map->spin_lock_off >= 0 && (flags & BPF_F_LOCK)) {
			map_update_locked(map, e->value, value);
		} else if (map_has_specials(map)) {
			/* (the kernel's new element: its lock and kptrs start empty, what the old
			 * one's held is dropped) */
			if (map->spin_lock_off >= 0)
				map_spin_lock(map_value_lock(map, e->value));
			map_copy_around_lock(map, e->value, value, racy_store);
			map_empty_kptrs(map, e->value);
			if (map->spin_lock_off >= 0)
				map_spin_unlock(map_value_lock(map, e->value));
		} else {
			memcpy(e->value, value, map->value_size);
		}
	} else if ((n = elem_take(m, cookie, value))) {
		*link = n;
	} else {
		err = -ENOMEM;
	}
	spin_unlock(&m->lock);
	return err;
}

static int sks_delete(struct bpf_map *map, const void *key)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, **link;
	int err = lock_find(m, key, &e, &link);

	if (err)
		return err;
	if (e)
		elem_drop(m, e, link);
	spin_unlock(&m->lock);
	return e ? 0 : -ENOENT;
}

/* ---- the map: kernel sockets a program found, by cookie ---- */

void *sk_storage_sock_get(struct bpf_map *map, u64 cookie, const void *init, bool create)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, **link;

	spin_lock(&m->lock);
	e = find(m, cookie, &link);
	if (!e && create && (e = elem_take(m, cookie, init)))
		*link = e;
	spin_unlock(&m->lock);
	return e ? e->value : NULL;
}

int sk_storage_sock_delete(struct bpf_map *map, u64 cookie)
{
	struct sks_map *m = sks_of(map);
	struct sk_storage_elem *e, **link;

	spin_lock(&m->lock);
	e = find(m, cookie, &link);
	if (e)
		elem_drop(m, e, link);
	spin_unlock(&m->lock);
	return e ? 0 : -ENOENT;
}

static int sks_no_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	return -ENOTSUPP;
}

/* The ops of both storage types: the same table, owners found by alloc_fn's owner_of_fd. */
#define STORAGE_MAP_OPS(alloc_fn)                                                                \
	{                                                                                        \
		.alloc_check = sks_alloc_check, .alloc = alloc_fn, .free = sks_free,             \
		.lookup = sks_lookup, .lookup_ptr = sks_lookup_ptr, .update = sks_update,        \
		.delete = sks_delete, .get_next_key = sks_no_next_key,                           \
		.check_btf = sks_check_btf,                                                      \
	}

const struct bpf_map_ops sk_storage_map_ops = STORAGE_MAP_OPS(sks_alloc);

/* ---- BPF_MAP_TYPE_TASK_STORAGE ----
 *
 * A value per task, which programs reach with bpf_task_storage_get() and _delete() on a task
 * pointer (bpf_get_current_task_btf()'s, or its relatives'), and bpf() through a pidfd as the
 * key: the table above, keyed by the task's pid (the thread id, as the kernel's task).  The
 * kernel frees a task's storage when the task goes; userbpf does not see tasks exit, so it stays
 * until the map goes, and a new task given the same pid would find it. */

/* The task behind the pidfd at key: its pid; -EBADF for an fd that is no pidfd, -ENOENT when
 * its process has exited (the kernel's pidfd_get_pid() and pid_task()). */
static int pidfd_pid(const void *key, u64 *pid)
{
	char path[64], link[32], line[64];
	int fd, n = -1;
	ssize_t len;
	FILE *fp;

	memcpy(&fd, key, sizeof(fd));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = fd < 0 ? -1 : readlink(path, link, sizeof(link) - 1);
	if (len < 0)
		return -EBADF;
	link[len] = 0;
	if (strcmp(link, "anon_inode:[pidfd]"))
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "Pid: %d", &n) == 1)
			break;
	if (fp)
		fclose(fp);
	if (n <= 0)
		return -ENOENT;
	*pid = (u64)n;
	return 0;
}

static int task_storage_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	int err = sks_alloc(attr, memfd, out);

	if (!err)
		sks_of(*out)->owner_of_fd = pidfd_pid;
	return err;
}

const struct bpf_map_ops task_storage_map_ops = STORAGE_MAP_OPS(task_storage_alloc);

/* ---- BPF_MAP_TYPE_CGRP_STORAGE ----
 *
 * A value per cgroup, which programs reach with bpf_cgrp_storage_get() and _delete() on a
 * struct cgroup pointer (a task's cgroups->dfl_cgrp, a cgroup kfunc's), and bpf() through the
 * fd of the cgroup's directory as the key: the table above, keyed by the cgroup's id (its
 * directory's inode number in cgroup2).  A cgroup v1 directory's fd is taken too, as the
 * kernel's cgroup_v1v2_get_from_fd() takes it (keyed apart: no program reaches those).  The
 * kernel frees a cgroup's storage when the cgroup goes; here it stays until the map goes. */

/* The cgroup behind the directory fd at key: its id; -EBADF for any other fd. */
static int cgroup_key_id(const void *key, u64 *id)
{
	int fd;

	memcpy(&fd, key, sizeof(fd));
	return cgroup_fd_id(fd, id);
}

static int cgrp_storage_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	int err = sks_alloc(attr, memfd, out);

	if (!err)
		sks_of(*out)->owner_of_fd = cgroup_key_id;
	return err;
}

const struct bpf_map_ops cgrp_storage_map_ops = STORAGE_MAP_OPS(cgrp_storage_alloc);

/* ---- BPF_MAP_TYPE_INODE_STORAGE ----
 *
 * A value per inode, which BPF LSM programs reach with bpf_inode_storage_get() and _delete()
 * (userbpf loads no LSM program), and bpf() through any fd of the inode as the key (an O_PATH
 * one too, as the kernel's fdget_raw() takes it): the table above, keyed by an id given to each
 * (device, inode number) the first time bpf() names it, so that every fd of a file (hard links
 * too; every anonymous-inode fd, which share one inode) finds the same value, as in the kernel.
 * The kernel frees an inode's storage when the inode goes; here it stays until the map goes. */

struct inode_id {
	struct inode_id *next;
	u64 dev, ino, id;
};

#define INODE_ID_BUCKETS 256u

static pthread_mutex_t inode_ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct inode_id *inode_ids[INODE_ID_BUCKETS];
static u64 inode_ids_next = 1;

/* The id of inode (dev, ino), given now if it has none; 0 when out of memory. */
static u64 inode_id_of(u64 dev, u64 ino)
{
	u32 b = (u32)((ino ^ dev * 0x9e3779b97f4a7c15ull) % INODE_ID_BUCKETS);
	struct inode_id *e;
	u64 id = 0;

	pthread_mutex_lock(&inode_ids_lock);
	for (e = inode_ids[b]; e && (e->dev != dev || e->ino != ino); e = e->next)
		;
	if (!e && (e = malloc(sizeof(*e)))) {
		e->dev = dev;
		e->ino = ino;
		e->id = inode_ids_next++;
		e->next = inode_ids[b];
		inode_ids[b] = e;
	}
	if (e)
		id = e->id;
	pthread_mutex_unlock(&inode_ids_lock);
	return id;
}

/* The inode behind the fd at key: its id; -EBADF for no fd. */
static int inode_key_id(const void *key, u64 *id)
{
	struct stat st;
	int fd;

	memcpy(&fd, key, sizeof(fd));
	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	*id = inode_id_of((u64)st.st_dev, (u64)st.st_ino);
	return *id ? 0 : -ENOMEM;
}

static int inode_storage_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	int err = sks_alloc(attr, memfd, out);

	if (!err)
		sks_of(*out)->owner_of_fd = inode_key_id;
	return err;
}

const struct bpf_map_ops inode_storage_map_ops = STORAGE_MAP_OPS(inode_storage_alloc);
