/* BPF_MAP_TYPE_STACK_TRACE: the call stacks bpf_get_stackid() records, by id.
 *
 * In the kernel a tracing program records the stack of the kernel (or of the user thread) it
 * interrupted, and bpf() reads, walks and deletes the stacks by id.  userbpf runs programs in
 * user space, with no kernel call chain to record: bpf_get_stackid() answers as the kernel does
 * where it gets no call chain (-EFAULT, see helpers.c), so the map stays empty.  What the map
 * does is the kernel's: its creation rules (sizes, flags, the perf_event_max_stack limit on a
 * value's frames), and the commands on an empty map: lookups (and lookup-and-delete) and walks
 * find nothing, update is EINVAL, and delete is E2BIG past the map's buckets (max_entries
 * rounded up to a power of two), else ENOENT.  (The kernel preallocates max_entries stacks, and
 * refuses with ENOMEM a map it cannot; nothing is allocated here.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "map/map.h"

#define STACK_CREATE_FLAG_MASK                                                                   \
	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_STACK_BUILD_ID)
#define STACK_BUILD_ID_SIZE 32u	/* sizeof(struct bpf_stack_build_id) */

struct stack_map {
	struct bpf_map map;
	u64 n_buckets;
};

/* The kernel.perf_event_max_stack sysctl (127 unless changed). */
static u32 max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned int v = 127;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 127;
		fclose(f);
	}
	return v;
}

static int stack_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	u32 vs = attr->value_size;
	struct stack_map *m;

	(void)memfd;
	if (attr->map_flags & ~STACK_CREATE_FLAG_MASK)
		return -EINVAL;
	if (!attr->max_entries || attr->key_size != 4 || vs < 8 || vs % 8)
		return -EINVAL;
	if (attr->map_flags & BPF_F_STACK_BUILD_ID) {
		if (vs % STACK_BUILD_ID_SIZE || vs / STACK_BUILD_ID_SIZE > max_stack())
			return -EINVAL;
	} else if (vs / 8 > max_stack()) {
		return -EINVAL;
	}
	if (attr->max_entries > 1u << 31)
		return -E2BIG;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->n_buckets = roundup_pow_of_two(attr->max_entries);
	*out = &m->map;
	return 0;
}

static void stack_free(struct bpf_map *map)
{
	free(container_of(map, struct stack_map, map));
}

static int stack_lookup(struct bpf_map *map, const void *key, void *value)
{
	return -ENOENT;
}

static int stack_update(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	return -EINVAL; /* stacks come from programs only */
}

static int stack_delete(struct bpf_map *map, const void *key)
{
	u32 id;

	memcpy(&id, key, sizeof(id));
	return id >= container_of(map, struct stack_map, map)->n_buckets ? -E2BIG : -ENOENT;
}

static int stack_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	return -ENOENT;
}

/* (6.18 copies and deletes a stack in one command; none is ever there to find) */
static int stack_lookup_and_delete(struct bpf_map *map, const void *key, void *value, u64 flags)
{
	return -ENOENT;
}

static void *stack_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* (the verifier allows only bpf_get_stackid() on the map) */
}

const struct bpf_map_ops stack_trace_map_ops = {
	.alloc = stack_alloc,
	.free = stack_free,
	.lookup = stack_lookup,
	.lookup_ptr = stack_lookup_ptr,
	.update = stack_update,
	.delete = stack_delete,
	.get_next_key = stack_get_next_key,
	.lookup_and_delete = stack_lookup_and_delete,
	.check_btf = map_check_no_btf,
};
