/* Map commands of bpf(): create, element operations and batches, for every map type.
 *
 * This is the kernel's syscall layer for maps: it resolves the fd, checks the access the fd
 * grants, applies the checks the kernel applies in the same order (so that a call with several
 * faults gets the kernel's errno), then calls the type's ops.  Keys are read straight from the
 * caller's memory; values come back through a private buffer and are copied out only on success,
 * so a failed call leaves the caller's buffer untouched.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "exec/bpf_timer.h"
#include "exec/kfuncs_cpumask.h"
#include "map/map.h"
#include "map/map_in_map.h"
#include "btf/btf.h"
#include "rcu.h"

#define BPF_MAP_TYPE(type, ops) extern const struct bpf_map_ops ops;
#include "map/map_types.h"
#undef BPF_MAP_TYPE

static const struct bpf_map_ops *const map_types[] = {
#define BPF_MAP_TYPE(type, ops) [type] = &ops,
#include "map/map_types.h"
#undef BPF_MAP_TYPE
};

/* Values up to this size are staged on the stack; larger ones in a heap buffer. */
#define VALUE_STACK_MAX 256

/* The kernel's isalnum(): its ctype table is Latin-1, where 0xc0-0xff are letters except the
 * multiplication (0xd7) and division (0xf7) signs. */
static bool kernel_isalnum(unsigned char c)
{
	return (c < 0x80 && isalnum(c)) || (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

/* The kernel's bpf_obj_name_cpy(): alnum, '_' and '.', NUL-terminated within the field.  Also
 * used for program names (fd.h). */
int obj_name_cpy(char *dst, const char *src, size_t size)
{
	size_t i;

	memset(dst, 0, size);
	for (i = 0; i < size && src[i]; i++) {
		if (!kernel_isalnum((unsigned char)src[i]) && src[i] != '_' && src[i] != '.')
			return -EINVAL;
		dst[i] = src[i];
	}
	return i == size ? -EINVAL : 0;
}

/* Access an fd gets from the creation flags (the kernel's bpf_get_file_flag()). */
static int map_access_from_flags(u32 flags)
{
	if ((flags & BPF_F_RDONLY) && (flags & BPF_F_WRONLY))
		return -EINVAL;
	if (flags & BPF_F_RDONLY)
		return OBJ_CAN_READ;
	if (flags & BPF_F_WRONLY)
		return OBJ_CAN_WRITE;
	return OBJ_CAN_READ | OBJ_CAN_WRITE;
}

static void map_destroy(struct bpf_object *obj)
{
	struct bpf_map *map = map_of(obj);
	struct bpf_map *meta = map->inner_meta;
	struct btf *btf = map->btf;

	struct map_kptr *kptrs = map->kptrs;

	if (map_has_async(map))
		bpf_timer_map_free(map);
	map->ops->free(map);
	free(kptrs);
	map_meta_free(meta);
	btf_put(btf);
}

int map_check_no_btf(const struct bpf_map *map, const struct btf *btf,
		     const struct btf_type *key_type, const struct btf_type *value_type)
{
	return -ENOTSUPP;
}

/* Whether the kernel allows the special fields in a map of type (6.18's map_check_btf()). */
static bool specials_allowed(u32 type, u32 fields)
{
	bool hash = type == BPF_MAP_TYPE_HASH, array = type == BPF_MAP_TYPE_ARRAY;
	bool lru = type == BPF_MAP_TYPE_LRU_HASH;

	if ((fields & BTF_SPECIAL_LOCK) && !hash && !array && type != BPF_MAP_TYPE_CGROUP_STORAGE &&
	    type != BPF_MAP_TYPE_SK_STORAGE && type != BPF_MAP_TYPE_TASK_STORAGE &&
	    type != BPF_MAP_TYPE_CGRP_STORAGE && type != BPF_MAP_TYPE_INODE_STORAGE)
		return false;
	if ((fields & BTF_SPECIAL_TIMER) && !hash && !lru && !array)
		return false;
	if ((fields & BTF_SPECIAL_KPTR) && !hash && !lru && !array &&
	    type != BPF_MAP_TYPE_PERCPU_HASH && type != BPF_MAP_TYPE_LRU_PERCPU_HASH &&
	    type != BPF_MAP_TYPE_PERCPU_ARRAY && type != BPF_MAP_TYPE_SK_STORAGE &&
	    type != BPF_MAP_TYPE_TASK_STORAGE && type != BPF_MAP_TYPE_CGRP_STORAGE &&
	    type != BPF_MAP_TYPE_INODE_STORAGE)
		return false;
	return !(fields & BTF_SPECIAL_OTHER) || hash || lru || array;
}

void map_kptr_drop(const struct map_kptr *k, u64 obj)
{
	if (k->drop)
		bpf_cpumask_release_kfunc(obj, 0, 0, 0, 0);
}

/* The value's kptrs (btf_find_kptrs()), each to a struct of the kernel's BTF (a struct the
 * program's BTF alone has is one of its own objects, which userbpf cannot allocate:
 * EOPNOTSUPP), a referenced one to a struct the kernel can drop a reference to (its dtor
 * kfuncs: tasks, cgroups and CPU masks; ENOENT else, as the kernel's btf_find_dtor_kfunc()). */
static int map_check_kptrs(struct bpf_map *map, const struct btf *btf, u32 value_id)
{
	struct btf_kptr k[MAP_MAX_KPTRS];
	u32 ids[MAP_MAX_KPTRS];
	const struct btf *vmlinux = btf_vmlinux();
	int n = btf_find_kptrs(btf, value_id, k, MAP_MAX_KPTRS);

	if (n < 0)
		return n == -E2BIG ? -EOPNOTSUPP : n;
	for (int i = 0; i < n; i++) {
		ids[i] = vmlinux && k[i].pointee
				 ? btf_find_by_name_kind(vmlinux, k[i].pointee, BTF_KIND_STRUCT) : 0;
		if (!ids[i])
			return -EOPNOTSUPP;
		if (k[i].ref && strcmp(k[i].pointee, "task_struct") &&
		    strcmp(k[i].pointee, "cgroup") && strcmp(k[i].pointee, "bpf_cpumask"))
			return -ENOENT;
	}
	if (!n)
		return 0;
	map->kptrs = calloc((size_t)n, sizeof(*map->kptrs));
	if (!map->kptrs)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		map->kptrs[i] = (struct map_kptr){ .off = k[i].off, .btf_id = ids[i],
						   .ref = k[i].ref,
						   .drop = k[i].ref &&
							   !strcmp(k[i].pointee, "bpf_cpumask") };
	map->nr_kptrs = (u8)n;
	return 0;
}

/* The kernel's map_check_btf(), in 6.18's order: the key type (its size, or none if the type's
 * own rules may take none) and the value type's size; the special fields of the value (refused
 * for programs' read-only or write-only maps, and by types that cannot hold them); the type's
 * rules.  Of the special fields, a bpf_spin_lock, a bpf_timer, a bpf_wq, a bpf_task_work and
 * kptrs to kernel objects, members of the value struct, are supported: a map the kernel would
 * make with others is refused last, with EOPNOTSUPP. */
static int map_check_btf(struct bpf_map *map, const struct btf *btf, u32 key_id,
			 u32 value_id)
{
	const struct btf_type *key_type = NULL, *value_type;
	u32 size, specials;
	int err;

	if (key_id) {
		key_type = btf_type_id_size(btf, &key_id, &size);
		if (!key_type || size != map->key_size)
			return -EINVAL;
	} else if (!map->ops->check_btf) {
		return -EINVAL;
	}
	value_type = btf_type_id_size(btf, &value_id, &size);
	if (!value_type || size != map->value_size)
		return -EINVAL;
	specials = btf_special_fields(btf, value_id);
	/* a second lock or timer (or one out of place) fails the kernel's btf_parse_fields(),
	 * and the map is then made as if its value had no special field at all */
	if (((specials & BTF_SPECIAL_LOCK) &&
	     btf_find_value_field(btf, value_id, "bpf_spin_lock", 4) == -E2BIG) ||
	    ((specials & BTF_SPECIAL_TIMER) &&
	     (btf_find_value_field(btf, value_id, "bpf_timer", 8) == -E2BIG ||
	      btf_find_value_field(btf, value_id, "bpf_wq", 8) == -E2BIG ||
	      btf_find_value_field(btf, value_id, "bpf_task_work", 8) == -E2BIG)))
		specials = 0;
	if (specials) {
		if (map->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
			return -EACCES;
		if (!specials_allowed(map->map_type, specials))
			return -EOPNOTSUPP;
	}
	err = map->ops->check_btf ? map->ops->check_btf(map, btf, key_type, value_type) : 0;
	if (err || !specials)
		return err;
	/* what userbpf supports: one bpf_spin_lock, one bpf_timer, one bpf_wq, one bpf_task_work
	 * and kptrs to kernel objects (in the hash, array and local storage maps, per-CPU ones
	 * too), members of the value struct */
	if (specials & ~(BTF_SPECIAL_LOCK | BTF_SPECIAL_TIMER | BTF_SPECIAL_KPTR))
		return -EOPNOTSUPP;
	if (specials & BTF_SPECIAL_KPTR) {
		err = map_check_kptrs(map, btf, value_id);
		if (err)
			return err;
	}
	if (specials & BTF_SPECIAL_LOCK) {
		int off = btf_find_value_field(btf, value_id, "bpf_spin_lock", 4);

		if (off < 0)
			return -EOPNOTSUPP;
		map->spin_lock_off = off;
	}
	if (specials & BTF_SPECIAL_TIMER) {
		int timer = btf_find_value_field(btf, value_id, "bpf_timer", 8);
		int wq = btf_find_value_field(btf, value_id, "bpf_wq", 8);
		int tw = btf_find_value_field(btf, value_id, "bpf_task_work", 8);

		if (timer < 0 && wq < 0 && tw < 0) {
			map->spin_lock_off = -1;
			return -EOPNOTSUPP;
		}
		map->timer_off = timer >= 0 ? timer : -1;
		map->wq_off = wq >= 0 ? wq : -1;
		map->task_work_off = tw >= 0 ? tw : -1;
		bpf_timer_map_init(map);
	}
	return 0;
}

/* BPF_MAP_CREATE's BTF, after the map exists, as the kernel orders it: btf_fd must be a BTF
 * object (held by the map), checked against the value type id when there is one. */
static int map_attach_btf(struct bpf_map *map, const union bpf_attr *attr)
{
	struct btf *btf;
	int err;

	if (!attr->btf_key_type_id && !attr->btf_value_type_id &&
	    !attr->btf_vmlinux_value_type_id)
		return 0;
	btf = btf_get_by_fd((int)attr->btf_fd, &err);
	if (!btf)
		return err;
	map->btf = btf;
	if (attr->btf_value_type_id) {
		err = map_check_btf(map, btf, attr->btf_key_type_id, attr->btf_value_type_id);
		if (err)
			return err;
	}
	map->btf_key_type_id = attr->btf_key_type_id;
	map->btf_value_type_id = attr->btf_value_type_id;
	return 0;
}

/* mmap() of a map fd, in the kernel's order: the VFS first (a readable fd for any mapping, a
 * writable one for a shared writable mapping; a shared mapping of a read-only fd silently becomes
 * private), then bpf_map_mmap() (ENOTSUPP without mmap support, EINVAL unless shared, EACCES for
 * writing a BPF_F_RDONLY_PROG map), then the type's range checks. */
static int map_mmap_check(struct bpf_object *obj, int access, u64 len, int prot, int flags,
			  u64 off)
{
	struct bpf_map *map = map_of(obj);
	bool shared = (flags & MAP_TYPE) == MAP_SHARED || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE;
	int err;

	if (!(access & OBJ_CAN_READ))
		return -EACCES;
	if (shared && (prot & PROT_WRITE) && !(access & OBJ_CAN_WRITE))
		return -EACCES;
	if (!(access & OBJ_CAN_WRITE))
		shared = false;
	if (!map->ops->mmap_check)
		return -ENOTSUPP;
	if (!shared)
		return -EINVAL;
	if ((prot & PROT_WRITE) && __atomic_load_n(&map->frozen, __ATOMIC_ACQUIRE))
		return -EPERM;
	if ((prot & PROT_WRITE) && (map->map_flags & BPF_F_RDONLY_PROG))
		return -EACCES;
	err = map->ops->mmap_check(map, off, len, prot);
	if (err)
		return err;
	if (prot & PROT_WRITE) {
		__atomic_store_n(&map->mmapped_writable, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* a read-only mapping must never become writable (mprotect), as the kernel clears
	 * VM_MAYWRITE: the caller maps it through a read-only file */
	return MMAP_READ_ONLY;
}

static void *map_mmap_map(struct bpf_object *obj, void *addr, size_t len, int prot, int flags,
			  int fd, u64 off)
{
	struct bpf_map *map = map_of(obj);

	return map->ops->mmap_map(map, addr, len, prot, flags, fd, off);
}

static u32 next_map_id; /* ids handed out so far */

int map_create(union bpf_attr *attr)
{
	const struct bpf_map_ops *ops;
	struct bpf_map *map, *meta = NULL;
	int access, memfd, err;
	u64 excl_hash;
	u32 excl_hash_size;

	/* 6.18's exclusive maps (excl_prog_hash at 80, its size at 88): not supported, and the
	 * kernel refuses a size without a hash or a hash of the wrong size, so refuse both. */
	memcpy(&excl_hash, (u8 *)attr + 80, sizeof(excl_hash));
	memcpy(&excl_hash_size, (u8 *)attr + 88, sizeof(excl_hash_size));
	if (excl_hash || excl_hash_size)
		return -EINVAL;

	if (attr->btf_vmlinux_value_type_id) {
		if (attr->map_type != BPF_MAP_TYPE_STRUCT_OPS || attr->btf_key_type_id ||
		    attr->btf_value_type_id)
			return -EINVAL;
	} else if (attr->btf_key_type_id && !attr->btf_value_type_id) {
		return -EINVAL;
	}
	if (attr->map_type != BPF_MAP_TYPE_BLOOM_FILTER && attr->map_extra)
		return -EINVAL;
	access = map_access_from_flags(attr->map_flags);
	if (access < 0)
		return access;
	/* One NUMA node, node 0, as on a machine without NUMA. */
	if ((attr->map_flags & BPF_F_NUMA_NODE) && attr->numa_node != 0)
		return -EINVAL;
	if (attr->map_type >= ARRAY_SIZE(map_types) || !map_types[attr->map_type])
		return -EINVAL;
	ops = map_types[attr->map_type];
	if (ops->alloc_check) {
		err = ops->alloc_check(attr);
		if (err)
			return err;
	}
	if (attr->map_ifindex) /* offload: no device here can take a map */
		return if_indextoname(attr->map_ifindex, (char[IF_NAMESIZE]){ 0 }) ? -EOPNOTSUPP
										     : -EINVAL;
	/* a map of maps' template, before the map itself, as the kernel's map_alloc does */
	if (ops->inner_maps && !(meta = map_meta_alloc(attr, &err)))
		return err;
	memfd = obj_memfd_create("bpf-map");
	if (memfd < 0) {
		free(meta);
		return memfd;
	}
	err = ops->alloc(attr, memfd, &map);
	if (err)
		goto close_memfd;
	map->inner_meta = meta;
	map->btf = NULL;
	map->btf_key_type_id = map->btf_value_type_id = 0;
	map->spin_lock_off = map->timer_off = map->wq_off = map->task_work_off = -1;
	memset(&map->owner, 0, sizeof(map->owner));
	map->ops = ops;
	map->obj.id = __atomic_add_fetch(&next_map_id, 1, __ATOMIC_RELAXED);
	map->map_type = attr->map_type;
	map->key_size = attr->key_size;
	map->value_size = attr->value_size;
	map->uvalue_size = ops->percpu ? round_up(attr->value_size, 8) * map_possible_cpus()
				       : attr->value_size;
	/* (a type may have rounded it, as BPF_F_NO_COMMON_LRU does: its alloc set it) */
	if (!map->max_entries)
		map->max_entries = attr->max_entries;
	map->map_flags = attr->map_flags | ops->forced_flags;
	map->obj.kind = OBJ_MAP;
	map->obj.access = access;
	map->obj.destroy = map_destroy;
	map->obj.mmap_check = map_mmap_check;
	if (ops->mmap_map)
		map->obj.mmap_map = map_mmap_map;
	err = obj_name_cpy(map->name, attr->map_name, sizeof(attr->map_name));
	if (err)
		goto free_map;
	err = map_attach_btf(map, attr);
	if (err)
		goto free_map;
	/* A read-only or write-only fd is a file of that mode, so that its dups are known to be
	 * (fd.h); without /proc the memfd stays read-write, and only its dups see more. */
	err = obj_memfd_set_access(memfd, access);
	if (err)
		goto free_map;
	return obj_install(&map->obj, memfd); /* closes memfd itself on failure */

free_map:
	map->inner_meta = NULL; /* (freed below) */
	btf_put(map->btf);
	ops->free(map);
close_memfd:
	map_meta_free(meta);
	sys_close(memfd);
	return err;
}

/* Resolves fd to a map inside a read section and checks the access the call needs. */
static struct bpf_map *map_get(int fd, int need, int *err)
{
	struct bpf_object *obj = obj_from_fd(fd, OBJ_MAP, err);

	if (!obj)
		return NULL;
	if ((fd_access(fd) & need) != need) {
		*err = -EPERM;
		return NULL;
	}
	/* a frozen map takes no more writes from user space, as if its fds were read-only */
	if ((need & OBJ_CAN_WRITE) && __atomic_load_n(&map_of(obj)->frozen, __ATOMIC_ACQUIRE)) {
		*err = -EPERM;
		return NULL;
	}
	return map_of(obj);
}

/* BPF_MAP_FREEZE.  Unlike the kernel, which counts live writable mappings, a map that was ever
 * mapped writable stays unfreezable (EBUSY), as userbpf does not see munmap(). */
int map_freeze(union bpf_attr *attr)
{
	struct bpf_map *map;
	int err;

	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_WRITE, &err);
	if (!map)
		goto out;
	err = -EBUSY;
	if (__atomic_load_n(&map->mmapped_writable, __ATOMIC_ACQUIRE))
		goto out;
	err = 0;
	__atomic_store_n(&map->frozen, 1, __ATOMIC_RELEASE);
out:
	rcu_read_unlock();
	return err;
}

/* The first size - 1 bytes of a small sysfs file into buf, NUL-terminated; how many (<= 0: none,
 * buf then ""). */
static ssize_t read_sysfs(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		sys_close(fd);
	buf[len > 0 ? len : 0] = 0;
	return len;
}

u32 map_possible_cpus(void)
{
	static u32 cached;
	u32 n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	char buf[256];

	if (n)
		return n;
	/* "0-3,8-11": count every CPU of every range */
	if (read_sysfs("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0) {
		char *p = buf;

		while (*p >= '0' && *p <= '9') {
			unsigned long a = strtoul(p, &p, 10), b = a;

			if (*p == '-')
				b = strtoul(p + 1, &p, 10);
			if (b >= a)
				n += (u32)(b - a + 1);
			if (*p != ',')
				break;
			p++;
		}
	}
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		n = c > 0 ? (u32)c : 1;
	}
	__atomic_store_n(&cached, n, __ATOMIC_RELAXED);
	return n;
}

u32 map_kernel_nr_cpus(void)
{
	static u32 cached;
	u32 n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	char buf[32];

	if (n)
		return n;
	/* kernel_max is NR_CPUS - 1 */
	n = read_sysfs("/sys/devices/system/cpu/kernel_max", buf, sizeof(buf)) > 0
		    ? (u32)strtoul(buf, NULL, 10) + 1
		    : NR_CPUS_DEFAULT;
	__atomic_store_n(&cached, n, __ATOMIC_RELAXED);
	return n;
}

u32 map_this_cpu(void)
{
	int cpu = sched_getcpu(); /* glibc reads it from rseq: no system call */

	return cpu >= 0 && (u32)cpu < map_possible_cpus() ? (u32)cpu : 0;
}

/* A staging buffer for one value: on the stack when small. */
struct value_buf {
	void *p;
	_Alignas(8) u8 small[VALUE_STACK_MAX];
};

static void *value_buf_get(struct value_buf *b, u32 size)
{
	b->p = size <= VALUE_STACK_MAX ? b->small : malloc(size);
	return b->p;
}

static void value_buf_put(struct value_buf *b)
{
	if (b->p != b->small)
		free(b->p);
}

/* The key of an element command (the kernel's __bpf_copy_key()): maps without keys (queue,
 * stack, ring buffer) take none, and refuse one with EINVAL; the others need one. */
static int key_ok(const struct bpf_map *map, const void *ukey, u64 ukey_raw)
{
	if (!map->key_size)
		return ukey_raw ? -EINVAL : 0;
	return ukey ? 0 : -EFAULT;
}

/* BPF_F_LOCK: key's value copied under its lock (the types with locks, arrays and hashes, keep
 * their values in place, where lookup_ptr finds them). */
static int lookup_locked(struct bpf_map *map, const void *key, void *value)
{
	void *elem = map->ops->lookup_ptr(map, key);

	if (!elem)
		return -ENOENT;
	map_read_locked(map, value, elem);
	return 0;
}

int map_lookup_elem(union bpf_attr *attr)
{
	void *ukey = u64_to_ptr(attr->key), *uvalue = u64_to_ptr(attr->value), *value;
	struct value_buf vb;
	struct bpf_map *map;
	int err;

	if (attr->flags & ~BPF_F_LOCK)
		return -EINVAL;
	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_READ, &err);
	if (!map)
		goto out;
	err = -EINVAL; /* BPF_F_LOCK needs a bpf_spin_lock in the value (BTF) */
	if ((attr->flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		goto out;
	err = key_ok(map, ukey, attr->key);
	if (err)
		goto out;
	err = -ENOMEM;
	value = value_buf_get(&vb, map->uvalue_size);
	if (!value)
		goto out;
	if (map->ops->lookup_reads_value) {
		err = uvalue ? map->ops->lookup(map, ukey, memcpy(value, uvalue, map->uvalue_size))
			     : -EFAULT;
		goto put;
	}
	if (attr->flags & BPF_F_LOCK)
		err = lookup_locked(map, ukey, value);
	else
		err = map->ops->lookup(map, ukey, value);
	if (!err) {
		map_hide_lock(map, value);
		if (!uvalue)
			err = -EFAULT;
		else if (map->uvalue_size == 8) /* the common case, without a call */
			memcpy(uvalue, value, 8);
		else
			memcpy(uvalue, value, map->uvalue_size);
	}
put:
	value_buf_put(&vb);
out:
	rcu_read_unlock();
	return err;
}

int map_update_elem(union bpf_attr *attr)
{
	void *ukey = u64_to_ptr(attr->key), *uvalue = u64_to_ptr(attr->value);
	struct bpf_map *map;
	int err;

	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_WRITE, &err);
	if (!map)
		goto out;
	err = -EINVAL; /* BPF_F_LOCK needs a bpf_spin_lock in the value (BTF) */
	if ((attr->flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		goto out;
	err = key_ok(map, ukey, attr->key);
	if (err)
		goto out;
	err = -EFAULT;
	if (!uvalue)
		goto out;
	err = map->ops->update(map, ukey, uvalue, attr->flags);
out:
	rcu_read_unlock();
	obj_put_flush(); /* a program array's replaced program */
	return err;
}

int map_delete_elem(union bpf_attr *attr)
{
	void *ukey = u64_to_ptr(attr->key);
	struct bpf_map *map;
	int err;

	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_WRITE, &err);
	if (!map)
		goto out;
	err = key_ok(map, ukey, attr->key);
	if (err)
		goto out;
	err = map->ops->delete(map, ukey);
out:
	rcu_read_unlock();
	obj_put_flush();
	return err;
}

int map_get_next_key(union bpf_attr *attr)
{
	void *ukey = u64_to_ptr(attr->key), *unext = u64_to_ptr(attr->next_key), *next;
	struct value_buf kb;
	struct bpf_map *map;
	int err;

	/* A key pointer that is non-zero but not addressable here (i386) is a fault, not "none". */
	if (attr->key && !ukey)
		return -EFAULT;
	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_READ, &err);
	if (!map)
		goto out;
	err = -ENOMEM;
	next = value_buf_get(&kb, map->key_size);
	if (!next)
		goto out;
	err = map->ops->get_next_key(map, ukey, next);
	if (!err) {
		if (unext)
			memcpy(unext, next, map->key_size);
		else
			err = -EFAULT;
	}
	value_buf_put(&kb);
out:
	rcu_read_unlock();
	return err;
}

int map_lookup_and_delete_elem(union bpf_attr *attr)
{
	void *ukey = u64_to_ptr(attr->key), *uvalue = u64_to_ptr(attr->value), *value;
	struct value_buf vb;
	struct bpf_map *map;
	int err;

	if (attr->flags & ~BPF_F_LOCK)
		return -EINVAL;
	rcu_read_lock();
	map = map_get(attr->map_fd, OBJ_CAN_READ | OBJ_CAN_WRITE, &err);
	if (!map)
		goto out;
	/* a queue's or stack's takes no flag; a hash's BPF_F_LOCK (with a lock) copies the value
	 * under it */
	err = -EINVAL;
	if (attr->flags && (map->map_type == BPF_MAP_TYPE_QUEUE ||
			    map->map_type == BPF_MAP_TYPE_STACK))
		goto out;
	err = map_check_lock_flag(map, attr->flags);
	if (err)
		goto out;
	err = key_ok(map, ukey, attr->key);
	if (err)
		goto out;
	err = -ENOTSUPP;
	if (!map->ops->lookup_and_delete)
		goto out;
	err = -ENOMEM;
	value = value_buf_get(&vb, map->uvalue_size);
	if (!value)
		goto out;
	/* A missing value buffer faults before anything is deleted. */
	err = uvalue ? map->ops->lookup_and_delete(map, ukey, value, attr->flags) : -EFAULT;
	if (!err)
		memcpy(uvalue, value, map->uvalue_size);
	value_buf_put(&vb);
out:
	rcu_read_unlock();
	return err;
}

/* Batch count write-back: the kernel writes the count into the caller's attr. */
static void batch_set_count(union bpf_attr *uattr, u32 count)
{
	memcpy(&uattr->batch.count, &count, sizeof(count));
}

int generic_map_lookup_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr)
{
	u8 *ukeys = u64_to_ptr(attr->batch.keys), *uvalues = u64_to_ptr(attr->batch.values);
	void *in = u64_to_ptr(attr->batch.in_batch), *out = u64_to_ptr(attr->batch.out_batch);
	u32 ks = map->key_size, vs = map->uvalue_size, max = attr->batch.count, cp = 0;
	u8 *buf, *prev = NULL, *key, *value;
	int err;

	/* The only element flag is BPF_F_LOCK, for a value with a bpf_spin_lock.  batch.flags is
	 * not checked: the kernel's generic lookup batch ignores it. */
	err = map_check_lock_flag(map, attr->batch.elem_flags);
	if (err)
		return err;
	if (!max)
		return 0;
	batch_set_count(uattr, 0);
	/* [prev key][key][value]: the key found last becomes the start of the next step. */
	buf = malloc((size_t)2 * ks + vs);
	if (!buf)
		return -ENOMEM;
	key = buf + ks;
	value = buf + 2 * ks;
	err = -EFAULT;
	if (attr->batch.in_batch) {
		if (!in)
			goto out;
		memcpy(buf, in, ks);
		prev = buf;
	}
	while (cp < max) {
		err = map->ops->get_next_key(map, prev, key);
		if (err)
			break;
		err = attr->batch.elem_flags ? lookup_locked(map, key, value)
					     : map->ops->lookup(map, key, value);
		/* Deleted since we found it, or an index with nothing in it (an fd array's empty
		 * slot): skipped, as 6.18 does (older kernels retried, then said EINTR). */
		if (err == -ENOENT) {
			memcpy(buf, key, ks);
			prev = buf;
			continue;
		}
		if (err)
			goto out;
		err = -EFAULT;
		if (!ukeys || !uvalues)
			goto out;
		memcpy(ukeys + (size_t)cp * ks, key, ks);
		map_hide_lock(map, value);
		memcpy(uvalues + (size_t)cp * vs, value, vs);
		memcpy(buf, key, ks);
		prev = buf;
		cp++;
		err = 0;
	}
	if (err == -EFAULT)
		goto out;
	batch_set_count(uattr, cp);
	if (cp) {
		if (!out)
			err = -EFAULT;
		else
			memcpy(out, buf, ks);
	}
out:
	free(buf);
	return err;
}

int generic_map_update_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr)
{
	u8 *ukeys = u64_to_ptr(attr->batch.keys), *uvalues = u64_to_ptr(attr->batch.values);
	u32 max = attr->batch.count, cp;
	int err;

	/* the only element flag is BPF_F_LOCK (for a value with a lock), passed on per element */
	err = map_check_lock_flag(map, attr->batch.elem_flags);
	if (err)
		return err;
	if (!max)
		return 0;
	batch_set_count(uattr, 0);
	for (cp = 0; cp < max; cp++) {
		err = -EFAULT;
		if (!ukeys || !uvalues)
			break;
		err = map->ops->update(map, ukeys + (size_t)cp * map->key_size,
				       uvalues + (size_t)cp * map->uvalue_size, attr->batch.elem_flags);
		if (err)
			break;
	}
	batch_set_count(uattr, cp);
	return err;
}

int generic_map_delete_batch(struct bpf_map *map, union bpf_attr *attr, union bpf_attr *uattr)
{
	u8 *ukeys = u64_to_ptr(attr->batch.keys);
	u32 max = attr->batch.count, cp;
	int err = 0;

	/* the only element flag is BPF_F_LOCK (for a value with a lock), which a delete ignores */
	err = map_check_lock_flag(map, attr->batch.elem_flags);
	if (err)
		return err;
	if (!max)
		return 0;
	batch_set_count(uattr, 0);
	for (cp = 0; cp < max; cp++) {
		err = -EFAULT;
		if (!ukeys)
			break;
		err = map->ops->delete(map, ukeys + (size_t)cp * map->key_size);
		if (err)
			break;
	}
	batch_set_count(uattr, cp);
	return err;
}

int map_do_batch(int cmd, union bpf_attr *attr, union bpf_attr *uattr, u32 usize)
{
	bool has_read = cmd == BPF_MAP_LOOKUP_BATCH || cmd == BPF_MAP_LOOKUP_AND_DELETE_BATCH;
	bool has_write = cmd != BPF_MAP_LOOKUP_BATCH;
	int (*fn)(struct bpf_map *, union bpf_attr *, union bpf_attr *);
	union bpf_attr scratch;
	struct bpf_map *map;
	int err;

	/* The count is written back into the caller's attr, as far as the caller's size reaches;
	 * beyond it the kernel would write to memory the caller did not pass, so use a scratch. */
	if (usize < offsetof(union bpf_attr, batch.count) + sizeof(attr->batch.count))
		uattr = &scratch;
	rcu_read_lock();
	map = map_get(attr->batch.map_fd,
		      (has_read ? OBJ_CAN_READ : 0) | (has_write ? OBJ_CAN_WRITE : 0), &err);
	if (!map)
		goto out;
	switch (cmd) {
	case BPF_MAP_LOOKUP_BATCH:
		fn = map->ops->lookup_batch;
		break;
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
		fn = map->ops->lookup_and_delete_batch;
		break;
	case BPF_MAP_UPDATE_BATCH:
		fn = map->ops->update_batch;
		break;
	default:
		fn = map->ops->delete_batch;
		break;
	}
	err = fn ? fn(map, attr, uattr) : -ENOTSUPP;
out:
	rcu_read_unlock();
	obj_put_flush();
	return err;
}

/* 6.18's struct bpf_map_info is ours (6.1's) plus the content hash request of signed programs:
 * u64 hash (a buffer for the digest, 88), u32 hash_size (96), padding to 104. */
#define KERNEL_MAP_INFO_SIZE 104u
#define MAP_INFO_HASH_OFF 88u

/* The kernel's bpf_map_get_info_by_fd(): a struct the size the caller asks for (bytes beyond
 * the kernel's must be zero), filled from scratch but for the hash request, which userbpf does
 * not serve (EINVAL, as the kernel answers for a map without content hashing); its length
 * written back. */
int map_get_info(struct bpf_map *map, const union bpf_attr *attr, union bpf_attr *uattr)
{
	union {
		struct bpf_map_info info;
		u8 raw[KERNEL_MAP_INFO_SIZE];
	} u;
	u8 *uinfo = u64_to_ptr(attr->info.info);
	u32 info_len = attr->info.info_len;
	u64 hash = 0;

	if (info_len > 4096)
		return -E2BIG;
	if (info_len && !uinfo)
		return -EFAULT;
	for (u32 i = KERNEL_MAP_INFO_SIZE; i < info_len; i++)
		if (uinfo[i])
			return -E2BIG;
	if (info_len > KERNEL_MAP_INFO_SIZE)
		info_len = KERNEL_MAP_INFO_SIZE;
	memset(&u, 0, sizeof(u));
	if (info_len > MAP_INFO_HASH_OFF)
		memcpy(u.raw + MAP_INFO_HASH_OFF, uinfo + MAP_INFO_HASH_OFF,
		       info_len - MAP_INFO_HASH_OFF);
	memcpy(&hash, u.raw + MAP_INFO_HASH_OFF, sizeof(hash));
	if (hash)
		return -EINVAL;
	u.info.type = map->map_type;
	u.info.id = map->obj.id;
	u.info.key_size = map->key_size;
	u.info.value_size = map->value_size;
	u.info.max_entries = map->max_entries;
	u.info.map_flags = map->map_flags;
	u.info.btf_id = map->btf ? map->btf->obj.id : 0;
	u.info.btf_key_type_id = map->btf_key_type_id;
	u.info.btf_value_type_id = map->btf_value_type_id;
	memcpy(u.info.name, map->name, sizeof(u.info.name));
	if (info_len)
		memcpy(uinfo, &u, info_len);
	memcpy(&uattr->info.info_len, &info_len, sizeof(info_len));
	return 0;
}
