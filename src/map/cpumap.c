/* BPF_MAP_TYPE_CPUMAP: the CPUs an XDP program redirects frames to with bpf_redirect_map(), for
 * a kernel thread on that CPU to build their skbs (and run a second XDP program first).
 *
 * Key: a CPU number below max_entries.  Value: struct bpf_cpumap_val: the queue size toward the
 * CPU (1..16384; 0 empties the entry) and, in 8-byte values, a program for the CPU (an fd in,
 * its id out: an XDP program loaded for BPF_XDP_CPUMAP, of the map's kind).  As in the kernel, an
 * update of a CPU that is not possible is ENODEV, and programs may use the map only through
 * bpf_redirect_map() (no lookups).  No frame is ever queued: a test run only returns
 * XDP_REDIRECT, as the kernel's does without BPF_F_TEST_XDP_LIVE_FRAMES, and no thread runs.
 *
 * An array of max_entries slots, each empty or holding a value; iteration visits every index,
 * empty or not (the kernel's).  Writers and readers take the map's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "prog/prog.h"

#define CPUMAP_QSIZE_MAX 16384u /* the kernel's sanity limit */

struct cpu_entry {
	struct bpf_cpumap_val val;	/* what lookups see: qsize, program id */
	struct bpf_prog *prog;		/* held, or NULL */
	bool used;
};

struct cpumap {
	struct bpf_map map;
	spinlock_t lock;
	struct cpu_entry slots[];	/* max_entries */
};

static inline struct cpumap *cpumap_of(struct bpf_map *map)
{
	return container_of(map, struct cpumap, map);
}

static int cpu_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || attr->key_size != 4 ||
	    (attr->value_size != 4 && attr->value_size != sizeof(struct bpf_cpumap_val)) ||
	    (attr->map_flags & ~BPF_F_NUMA_NODE))
		return -EINVAL;
	if (attr->max_entries > map_kernel_nr_cpus())
		return -E2BIG;
	return 0;
}

static int cpu_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct cpumap *c = calloc(1, sizeof(*c) + (size_t)attr->max_entries * sizeof(c->slots[0]));

	(void)memfd;
	if (!c)
		return -ENOMEM;
	*out = &c->map;
	return 0;
}

static void cpu_free(struct bpf_map *map)
{
	struct cpumap *c = cpumap_of(map);

	for (u32 i = 0; i < map->max_entries; i++)
		if (c->slots[i].prog)
			obj_put(&c->slots[i].prog->obj);
	free(c);
}

/* Empties slot e (map locked); its program goes after the command's read section. */
static void slot_clear(struct cpu_entry *e)
{
	if (e->prog)
		obj_put_deferred(&e->prog->obj);
	memset(e, 0, sizeof(*e));
}

static int cpu_lookup(struct bpf_map *map, const void *key, void *value)
{
	struct cpumap *c = cpumap_of(map);
	int err = -ENOENT;
	u32 k;

	memcpy(&k, key, 4);
	if (k >= map->max_entries)
		return -ENOENT;
	spin_lock(&c->lock);
	if (c->slots[k].used) {
		memcpy(value, &c->slots[k].val, map->value_size);
		err = 0;
	}
	spin_unlock(&c->lock);
	return err;
}

/* The program of an 8-byte value (fd > 0): an XDP program for BPF_XDP_CPUMAP, of the map's
 * kind; with a reference, or NULL.  (The kernel's __cpu_map_load_bpf_program().)  Inside the
 * command's read section. */
static struct bpf_prog *get_prog(struct bpf_map *map, int fd)
{
	struct bpf_object *obj;
	int err;

	obj = obj_from_fd(fd, OBJ_PROG, &err);
	if (!obj || prog_of(obj)->type != BPF_PROG_TYPE_XDP ||
	    prog_of(obj)->expected_attach_type != BPF_XDP_CPUMAP ||
	    !map_prog_compatible(map, prog_of(obj)) || !obj_tryget(obj))
		return NULL;
	return prog_of(obj);
}

/* The kernel's cpu_map_update_elem(): flags, the key's range, BPF_NOEXIST (always EEXIST: the
 * entries exist as slots), the queue size, a possible CPU, then the program; a queue size of 0
 * empties the entry. */
static int cpu_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct cpumap *c = cpumap_of(map);
	struct bpf_cpumap_val v = { 0 };
	struct bpf_prog *prog = NULL;
	u32 k;

	memcpy(&k, key, 4);
	memcpy(&v, value, map->value_size);
	if (flags > BPF_EXIST)
		return -EINVAL;
	if (k >= map->max_entries)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	if (v.qsize > CPUMAP_QSIZE_MAX)
		return -EOVERFLOW;
	if (k >= map_possible_cpus())
		return -ENODEV;
	/* (the kernel's entry allocation fails as a whole: ENOMEM, whatever the cause) */
	if (v.qsize && v.bpf_prog.fd > 0 && !(prog = get_prog(map, v.bpf_prog.fd)))
		return -ENOMEM;
	spin_lock(&c->lock);
	slot_clear(&c->slots[k]);
	if (v.qsize) {
		c->slots[k].used = true;
		c->slots[k].val.qsize = v.qsize;
		c->slots[k].val.bpf_prog.id = prog ? prog->obj.id : 0;
		c->slots[k].prog = prog;
	}
	spin_unlock(&c->lock);
	return 0;
}

static int cpu_delete(struct bpf_map *map, const void *key)
{
	struct cpumap *c = cpumap_of(map);
	u32 k;

	memcpy(&k, key, 4);
	if (k >= map->max_entries)
		return -EINVAL;
	spin_lock(&c->lock);
	slot_clear(&c->slots[k]);
	spin_unlock(&c->lock);
	return 0;
}

/* bpf_redirect_map(): the CPU's entry decides (no flags of the type's own). */
static int cpu_xdp_redirect(struct bpf_map *map, u64 index, u64 flags)
{
	struct cpumap *c = cpumap_of(map);
	bool used = false;

	if (xdp_redirect_flags_bad(flags, 0))
		return XDP_ABORTED;
	if (index < map->max_entries) {
		spin_lock(&c->lock);
		used = c->slots[index].used;
		spin_unlock(&c->lock);
	}
	return xdp_redirect_verdict(flags, used);
}

const struct bpf_map_ops cpu_map_ops = {
	.alloc_check = cpu_alloc_check,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.lookup = cpu_lookup,
	.update = cpu_update,
	.delete = cpu_delete,
	.get_next_key = array_map_get_next_key, /* (every index, empty or not) */
	.xdp_redirect = cpu_xdp_redirect,
	.check_btf = map_check_no_btf,
};
