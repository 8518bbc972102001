/* BPF_MAP_TYPE_CGROUP_ARRAY: cgroups (v2) that programs test membership of, with
 * bpf_skb_under_cgroup() and bpf_current_task_under_cgroup().
 *
 * bpf() writes an fd of a cgroup2 directory into a slot, with the fd array rules (fd_array.h:
 * BPF_ANY only, E2BIG beyond the array before the fd is looked at); the kernel refuses anything
 * else with EBADF.  It cannot read slots back (ENOTSUPP, as the kernel's type has no
 * map_fd_sys_lookup_elem) and has no batch commands.
 *
 * The kernel holds a reference on the cgroup; what a membership test needs of it is its id (the
 * directory's inode number in cgroup2, the kernel's cgroup id) and its level (0 for the root),
 * since a cgroup is under C exactly when its ancestor at C's level is C.  A slot keeps both in
 * one u64, level in the top byte, so that a program reads a whole slot with one atomic load
 * while bpf() replaces it.  A cgroup removed after it was stored keeps its slot, as the
 * kernel's reference keeps it: nothing is ever under it any more.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "map/cgroup_array.h"
#include "map/fd_array.h"
#include "map/map.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define SLOT_LEVEL_SHIFT 56
#define SLOT_ID_MASK ((UINT64_C(1) << SLOT_LEVEL_SHIFT) - 1)

struct cgroup_array {
	struct bpf_map map;
	u64 slots[]; /* level << 56 | id; 0 when empty (ids start at 1) */
};

static inline struct cgroup_array *carray_of(struct bpf_map *map)
{
	return container_of(map, struct cgroup_array, map);
}

static int carray_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct cgroup_array *a;

	a = fd_array_alloc(sizeof(*a), attr->max_entries, sizeof(a->slots[0]));
	if (!a)
		return -ENOMEM;
	*out = &a->map;
	return 0;
}

static void carray_free(struct bpf_map *map)
{
	free(carray_of(map));
}

int cgroup_array_get(struct bpf_map *map, u32 index, u64 *id, int *level)
{
	u64 slot;

	if (index >= map->max_entries)
		return -E2BIG;
	slot = __atomic_load_n(&carray_of(map)->slots[index], __ATOMIC_ACQUIRE);
	if (!slot)
		return -EAGAIN;
	*id = slot & SLOT_ID_MASK;
	*level = (int)(slot >> SLOT_LEVEL_SHIFT);
	return 0;
}

static int carray_lookup(struct bpf_map *map, const void *key, void *value)
{
	return -ENOTSUPP;
}

static void *carray_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* the verifier lets programs use the array only through the two helpers */
}

int cgroup2_mount_info(char *root, size_t root_size, char *mnt, size_t mnt_size)
{
	char line[4096], r[1024], m[1024];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err = -EBADF;

	if (!f)
		return -EBADF;
	while (fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (dash && !strncmp(dash + 3, "cgroup2 ", 8) &&
		    sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) == 2) {
			snprintf(root, root_size, "%s", r);
			snprintf(mnt, mnt_size, "%s", m);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* Number of components of an absolute path ("/" has none). */
static int path_depth(const char *p)
{
	int depth = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			depth++;
	return depth;
}

/* The slot for the cgroup directory open at fd: EBADF unless it is one (the kernel's
 * cgroup_get_from_fd()). */
static int cgroup_slot(int fd, u64 *slot)
{
	char link[64], path[4096], root[1024], mnt[1024];
	struct statfs sfs;
	struct stat st;
	size_t mlen;
	ssize_t n;
	int level;

	if (fd < 0 || fstat(fd, &st) || fstatfs(fd, &sfs))
		return -EBADF;
	if ((u64)sfs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode))
		return -EBADF;
	if (!st.st_ino || (u64)st.st_ino >> SLOT_LEVEL_SHIFT)
		return -EBADF; /* not an id of a live kernel's */
	/* the level: the directory's depth below the mount, plus the depth of the hierarchy's
	 * part the mount starts at */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || cgroup2_mount_info(root, sizeof(root), mnt, sizeof(mnt)))
		return -EBADF;
	path[n] = 0;
	mlen = strlen(mnt);
	if (!strcmp(mnt, "/"))
		mlen = 0;
	if (strncmp(path, mnt, mlen) || (path[mlen] && path[mlen] != '/'))
		return -EBADF; /* under another cgroup2 mount than the one we know */
	level = path_depth(root) + path_depth(path + mlen);
	if (level > 255)
		return -EBADF;
	*slot = (u64)level << SLOT_LEVEL_SHIFT | (u64)st.st_ino;
	return 0;
}

static u32 key_index(const void *key)
{
	u32 index;

	memcpy(&index, key, sizeof(index));
	return index;
}

static int carray_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	u32 index = key_index(key), fd;
	u64 slot;
	int err;

	if (flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	memcpy(&fd, value, sizeof(fd));
	err = cgroup_slot(fd > INT_MAX ? -1 : (int)fd, &slot);
	if (err)
		return err;
	__atomic_store_n(&carray_of(map)->slots[index], slot, __ATOMIC_RELEASE);
	return 0;
}

static int carray_delete(struct bpf_map *map, const void *key)
{
	u32 index = key_index(key);

	if (index >= map->max_entries)
		return -E2BIG;
	return __atomic_exchange_n(&carray_of(map)->slots[index], 0, __ATOMIC_ACQ_REL) ? 0
										       : -ENOENT;
}

const struct bpf_map_ops cgroup_array_map_ops = {
	.alloc_check = fd_array_alloc_check,
	.alloc = carray_alloc,
	.free = carray_free,
	.lookup = carray_lookup,
	.lookup_ptr = carray_lookup_ptr,
	.update = carray_update,
	.delete = carray_delete,
	.get_next_key = array_map_get_next_key,
	.check_btf = map_check_no_btf,
};
