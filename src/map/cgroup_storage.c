/* BPF_MAP_TYPE_CGROUP_STORAGE and BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE: one value per attached
 * (cgroup, attach type), which a cgroup program reaches with bpf_get_local_storage().
 *
 * As in the kernel, a map of these types holds no element of its own: attaching a program that
 * uses it to a cgroup (src/prog/cgroup_attach.c) links a zeroed storage for that cgroup into it,
 * and bpf() sees the storage under the key { cgroup inode id, attach type } (a 16-byte struct
 * bpf_cgroup_storage_key), or the id alone (an 8-byte key: one storage per cgroup, shared by its
 * attach types).  bpf() may read and overwrite a storage, not add or delete one; it goes when
 * its cgroup is removed or the map is freed, and get_next_key walks the newest first.
 *
 * Attached programs do not run in user space.  What programs use is the storage a run brings
 * with it: as the kernel's BPF_PROG_TEST_RUN does, each test run makes fresh zeroed storage for
 * the maps the program uses (one of each type at most, which the verifier enforces), kept
 * through the run's repeats and dropped at its end (cgroup_storage_run_begin/end()).
 *
 * Per-CPU storage has round_up(value_size, 8) bytes for each possible CPU; a program gets its
 * CPU's.
 */
#include <errno.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "map/cgroup_storage.h"
#include "map/map.h"
#include "prog/prog.h"
#include "rcu.h"

#define CGS_CREATE_FLAG_MASK                                                                     \
	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)
/* sizeof(struct bpf_cgroup_storage_key) to a 64-bit kernel: a u64 and a u32, padded (an i386
 * compiler makes it 12 bytes, which an x86-64 kernel refuses too). */
#define CGS_KEY_SIZE 16u
/* The kernel's BPF_LOCAL_STORAGE_MAX_VALUE_SIZE (U16_MAX less its element header, 128 bytes on
 * x86-64) and, for per-CPU storage, PCPU_MIN_UNIT_SIZE. */
#define CGS_MAX_VALUE 65407u
#define CGS_PERCPU_MAX_VALUE 32768u

/* The storages of the running test runs of this thread, by type (shared, per CPU): the map each
 * was made for, and its memory. */
static __thread struct cgroup_storage_run *cgs_current __attribute__((tls_model("initial-exec")));

static int cgs_alloc_check(const union bpf_attr *attr)
{
	bool percpu = attr->map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;

	if (attr->key_size != CGS_KEY_SIZE &&
	    attr->key_size != sizeof(u64))
		return -EINVAL;
	if (!attr->value_size)
		return -EINVAL;
	if (attr->value_size > (percpu ? CGS_PERCPU_MAX_VALUE : CGS_MAX_VALUE))
		return -E2BIG;
	if ((attr->map_flags & ~CGS_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	/* max_entries is not used, and must be 0 */
	return attr->max_entries ? -EINVAL : 0;
}

/* A storage linked into a map by an attach. */
struct cgs_elem {
	struct cgs_elem *next;		/* the map's, newest first (the kernel's list_add()) */
	u64 cgroup_id;
	u32 attach_type;
	_Alignas(8) u8 value[];		/* cgs_bytes() */
};

struct cgs_map {
	struct bpf_map map;
	/* What bpf_get_local_storage() gives a run that has no storage for the map (see
	 * cgroup_storage_get()); as large as a run's. */
	void *spare;
	pthread_mutex_t lock;		/* guards elems (readers of values take no lock) */
	struct cgs_elem *elems;
	struct cgs_map *next_map;	/* on cgs_maps */
};

/* Every live map of these types, for a removed cgroup's storages. */
static pthread_mutex_t cgs_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cgs_map *cgs_maps;

static inline struct cgs_map *cgs_of(struct bpf_map *map)
{
	return container_of(map, struct cgs_map, map);
}

/* Bytes of one storage: the value (8-byte aligned), for each possible CPU if per CPU. */
static size_t cgs_bytes(u32 map_type, u32 value_size)
{
	size_t size = round_up(value_size, 8);

	return map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE ? size * map_possible_cpus() : size;
}

static int cgs_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct cgs_map *m = calloc(1, sizeof(*m));

	(void)memfd;
	if (!m)
		return -ENOMEM;
	m->spare = calloc(1, cgs_bytes(attr->map_type, attr->value_size));
	if (!m->spare) {
		free(m);
		return -ENOMEM;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_lock(&cgs_maps_lock);
	m->next_map = cgs_maps;
	cgs_maps = m;
	pthread_mutex_unlock(&cgs_maps_lock);
	*out = &m->map;
	return 0;
}

static void cgs_free(struct bpf_map *map)
{
	struct cgs_map *m = cgs_of(map);

	pthread_mutex_lock(&cgs_maps_lock);
	for (struct cgs_map **pp = &cgs_maps; *pp; pp = &(*pp)->next_map)
		if (*pp == m) {
			*pp = m->next_map;
			break;
		}
	pthread_mutex_unlock(&cgs_maps_lock);
	while (m->elems) {
		struct cgs_elem *e = m->elems;

		m->elems = e->next;
		free(e);
	}
	pthread_mutex_destroy(&m->lock);
	free(m->spare);
	free(m);
}

/* The storage of key (m's lock held): a 16-byte key names the cgroup and the attach type, an
 * 8-byte one the cgroup. */
static struct cgs_elem *cgs_find(struct cgs_map *m, u64 id, u32 attach_type)
{
	for (struct cgs_elem *e = m->elems; e; e = e->next)
		if (e->cgroup_id == id &&
		    (m->map.key_size != CGS_KEY_SIZE || e->attach_type == attach_type))
			return e;
	return NULL;
}

static struct cgs_elem *cgs_find_key(struct cgs_map *m, const void *key)
{
	u32 attach_type = 0;
	u64 id;

	memcpy(&id, key, sizeof(id));
	if (m->map.key_size == CGS_KEY_SIZE)
		memcpy(&attach_type, (const u8 *)key + 8, sizeof(attach_type));
	return cgs_find(m, id, attach_type);
}

/* An element's value stays where it is until its cgroup or the map goes (after a grace period),
 * so a pointer found under the lock may be used after it, inside the command's read section. */
static void *cgs_lookup_ptr(struct bpf_map *map, const void *key)
{
	struct cgs_map *m = cgs_of(map);
	struct cgs_elem *e;

	pthread_mutex_lock(&m->lock);
	e = cgs_find_key(m, key);
	pthread_mutex_unlock(&m->lock);
	return e ? e->value : NULL;
}

static int cgs_lookup(struct bpf_map *map, const void *key, void *value)
{
	u8 *v = cgs_lookup_ptr(map, key);

	if (!v)
		return -ENOENT;
	racy_load(value, v, map->uvalue_size);
	return 0;
}

static int cgs_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	u8 *v;

	if (flags & ~(u64)(BPF_F_LOCK | BPF_EXIST))
		return -EINVAL;
	if ((flags & BPF_F_LOCK) && map->spin_lock_off < 0)
		return -EINVAL;
	v = cgs_lookup_ptr(map, key);
	if (!v)
		return -ENOENT; /* (only an attach makes one) */
	if (flags & BPF_F_LOCK)
		map_update_locked(map, v, value);
	else
		map_copy_around_lock(map, v, value, racy_store);
	return 0;
}

static int cgs_percpu_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	u8 *v;

	if (flags != BPF_ANY && flags != BPF_EXIST)
		return -EINVAL;
	v = cgs_lookup_ptr(map, key);
	if (!v)
		return -ENOENT;
	racy_store(v, value, map->uvalue_size);
	return 0;
}

/* Storages go with their cgroup, never by bpf(). */
static int cgs_delete(struct bpf_map *map, const void *key)
{
	return -EINVAL;
}

static int cgs_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	struct cgs_map *m = cgs_of(map);
	struct cgs_elem *e;
	u8 out[CGS_KEY_SIZE] = { 0 };

	pthread_mutex_lock(&m->lock);
	e = m->elems;
	if (e && key) { /* (a key that is not there: no first key, unlike a hash map) */
		e = cgs_find_key(m, key);
		e = e ? e->next : NULL;
	}
	if (e) {
		memcpy(out, &e->cgroup_id, 8);
		memcpy(out + 8, &e->attach_type, 4);
	}
	pthread_mutex_unlock(&m->lock);
	if (!e)
		return -ENOENT;
	memcpy(next_key, out, map->key_size);
	return 0;
}

int cgroup_storage_attach(const struct bpf_prog *prog, u64 cgroup_id, u32 attach_type)
{
	for (int t = 0; t < CGROUP_STORAGE_TYPES; t++) {
		struct bpf_map *map = prog->cgroup_storage[t];
		struct cgs_map *m;
		struct cgs_elem *e;

		if (!map)
			continue;
		m = cgs_of(map);
		pthread_mutex_lock(&m->lock);
		if (!cgs_find(m, cgroup_id, attach_type)) {
			e = calloc(1, sizeof(*e) + cgs_bytes(map->map_type, map->value_size));
			if (!e) {
				pthread_mutex_unlock(&m->lock);
				return -ENOMEM;
			}
			e->cgroup_id = cgroup_id;
			e->attach_type = map->key_size == CGS_KEY_SIZE ? attach_type : 0;
			e->next = m->elems;
			__atomic_store_n(&m->elems, e, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&m->lock);
	}
	return 0;
}

void cgroup_storage_release_cgroup(u64 cgroup_id)
{
	struct cgs_elem *gone = NULL;

	pthread_mutex_lock(&cgs_maps_lock);
	for (struct cgs_map *m = cgs_maps; m; m = m->next_map) {
		pthread_mutex_lock(&m->lock);
		for (struct cgs_elem **pp = &m->elems, *e; (e = *pp);) {
			if (e->cgroup_id != cgroup_id) {
				pp = &e->next;
				continue;
			}
			__atomic_store_n(pp, e->next, __ATOMIC_RELEASE);
			e->next = gone;
			gone = e;
		}
		pthread_mutex_unlock(&m->lock);
	}
	pthread_mutex_unlock(&cgs_maps_lock);
	if (!gone)
		return;
	synchronize_rcu(); /* (a command may still hold a value's address) */
	while (gone) {
		struct cgs_elem *e = gone;

		gone = e->next;
		free(e);
	}
}

/* Whether member m of struct s is a plain integer of size bytes at byte off (whole bytes,
 * not a bitfield: the kernel's btf_member_is_reg_int()). */
static bool cgs_member_is_int(const struct btf *btf, const struct btf_type *s,
			      const struct btf_member *m, u32 off, u32 size)
{
	u32 id = m->type, tsize, int_data, bits;
	const struct btf_type *t = btf_type_id_size(btf, &id, &tsize);

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_INT)
		return false;
	memcpy(&int_data, t + 1, sizeof(int_data));
	bits = BTF_INT_BITS(int_data);
	if (BTF_INFO_KFLAG(s->info))
		return !BTF_MEMBER_BITFIELD_SIZE(m->offset) &&
		       (BTF_MEMBER_BIT_OFFSET(m->offset) + 7) / 8 == off && (bits + 7) / 8 == size;
	return !BTF_INT_OFFSET(int_data) && !(m->offset % 8) && m->offset / 8 == off &&
	       !(bits % 8) && bits / 8 == size;
}

/* The key: struct bpf_cgroup_storage_key (a u64 and a u32 member at 0 and 8) for 16-byte keys,
 * a 64-bit integer for 8-byte ones; any value (the kernel's cgroup_storage_check_btf()). */
static int cgs_check_btf(const struct bpf_map *map, const struct btf *btf,
			 const struct btf_type *key_type, const struct btf_type *value_type)
{
	u32 int_data;

	if (!key_type)
		return -EINVAL;
	if (map->key_size == CGS_KEY_SIZE) {
		const struct btf_member *m = (const struct btf_member *)(key_type + 1);

		return BTF_INFO_KIND(key_type->info) == BTF_KIND_STRUCT &&
				       BTF_INFO_VLEN(key_type->info) == 2 &&
				       cgs_member_is_int(btf, key_type, &m[0], 0, 8) &&
				       cgs_member_is_int(btf, key_type, &m[1], 8, 4)
			       ? 0
			       : -EINVAL;
	}
	if (BTF_INFO_KIND(key_type->info) != BTF_KIND_INT)
		return -EINVAL;
	memcpy(&int_data, key_type + 1, sizeof(int_data));
	return BTF_INT_BITS(int_data) == 64 && !BTF_INT_OFFSET(int_data) ? 0 : -EINVAL;
}

/* The kernel's types have no batch ops (ENOTSUPP) and cannot be inner maps. */
const struct bpf_map_ops cgroup_storage_map_ops = {
	.alloc_check = cgs_alloc_check,
	.alloc = cgs_alloc,
	.free = cgs_free,
	.lookup = cgs_lookup,
	.lookup_ptr = cgs_lookup_ptr,
	.update = cgs_update,
	.delete = cgs_delete,
	.get_next_key = cgs_get_next_key,
	.check_btf = cgs_check_btf,
	.no_inner_map = true,
};

const struct bpf_map_ops percpu_cgroup_storage_map_ops = {
	.alloc_check = cgs_alloc_check,
	.alloc = cgs_alloc,
	.free = cgs_free,
	.lookup = cgs_lookup,
	.lookup_ptr = cgs_lookup_ptr,
	.update = cgs_percpu_update,
	.delete = cgs_delete,
	.get_next_key = cgs_get_next_key,
	.check_btf = cgs_check_btf,
	.no_inner_map = true,
	.percpu = true,
};

int cgroup_storage_run_begin(const struct bpf_prog *prog, struct cgroup_storage_run *run)
{
	run->prev = cgs_current;
	for (int t = 0; t < CGROUP_STORAGE_TYPES; t++) {
		struct bpf_map *map = prog->cgroup_storage[t];

		run->map[t] = map;
		run->mem[t] = NULL;
		if (map && !(run->mem[t] = calloc(1, cgs_bytes(map->map_type, map->value_size)))) {
			while (t-- > 0)
				free(run->mem[t]);
			return -ENOMEM;
		}
	}
	cgs_current = run;
	return 0;
}

void cgroup_storage_run_end(struct cgroup_storage_run *run)
{
	cgs_current = run->prev;
	for (int t = 0; t < CGROUP_STORAGE_TYPES; t++)
		free(run->mem[t]);
}

void *cgroup_storage_get(struct bpf_map *map)
{
	int t = map->ops->percpu;
	struct cgroup_storage_run *run = cgs_current;
	u8 *mem;

	/* The verifier made map the running program's storage of its type, and program arrays
	 * keep the storages of the programs they hold the same as their users' (but for a user
	 * with none), so this is the run's storage.  A run without it (such a user, or a run
	 * outside BPF_PROG_TEST_RUN) gets the map's spare one: memory of the size the verifier
	 * allowed, where the kernel would have no storage at all. */
	mem = run && run->map[t] == map ? run->mem[t] : cgs_of(map)->spare;
	if (t)
		mem += (size_t)round_up(map->value_size, 8) * map_this_cpu();
	return mem;
}
