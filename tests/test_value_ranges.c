/* value_ranges (src/map/value_ranges.c): the set of map value areas the string kfuncs read
 * directly.  Ranges added out of order are found by any address inside them, up to their end
 * and not past it; a removed one is no longer found, the others still are; an array map's values
 * and a preallocated hash map's elements are in the set while the map lives (not those of a hash
 * map made with BPF_F_NO_PREALLOC, each its own allocation). */
#include <unistd.h>

#include "fd.h"
#include "map/map.h"
#include "map/value_ranges.h"
#include "rcu.h"
#include "test.h"
#include "userbpf.h"

TEST(value_ranges)
{
	static char area[3][64];
	uintptr_t a0 = (uintptr_t)area[0], a1 = (uintptr_t)area[1], a2 = (uintptr_t)area[2];

	CHECK_EQ(value_ranges_add(a2, 64), 0);
	CHECK_EQ(value_ranges_add(a0, 32), 0);
	CHECK_EQ(value_ranges_add(a1, 16), 0);
	CHECK_EQ(value_ranges_add(a1 + 32, 0), 0); /* (nothing to add) */
	rcu_read_lock();
	CHECK_EQ(value_ranges_end(a0), a0 + 32);
	CHECK_EQ(value_ranges_end(a0 + 31), a0 + 32);
	CHECK_EQ(value_ranges_end(a0 + 32), 0);
	CHECK_EQ(value_ranges_end(a1 + 15), a1 + 16);
	CHECK_EQ(value_ranges_end(a1 + 16), 0);
	CHECK_EQ(value_ranges_end(a2 + 10), a2 + 64);
	CHECK_EQ(value_ranges_end(a0 - 1), 0);
	rcu_read_unlock();
	value_ranges_del(a1);
	rcu_read_lock();
	CHECK_EQ(value_ranges_end(a1), 0);
	CHECK_EQ(value_ranges_end(a0 + 1), a0 + 32);
	CHECK_EQ(value_ranges_end(a2), a2 + 64);
	rcu_read_unlock();
	value_ranges_del(a0);
	value_ranges_del(a2);
	rcu_read_lock();
	CHECK_EQ(value_ranges_end(a2), 0);
	rcu_read_unlock();
}

TEST(value_ranges_array_map)
{
	union bpf_attr attr = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 24,
				.max_entries = 3 };
	int fd = bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	uint32_t key = 2;
	uintptr_t v = 0;
	int err;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	/* a program's view of element 2: through a lookup in a read section, as a program does */
	rcu_read_lock();
	struct bpf_object *obj = obj_from_fd(fd, OBJ_MAP, &err);

	CHECK(obj != NULL);
	if (obj)
		v = (uintptr_t)map_of(obj)->ops->lookup_ptr(map_of(obj), &key);
	CHECK(v != 0);
	CHECK_EQ(value_ranges_end(v), v + 24); /* the last element: the area ends with it */
	rcu_read_unlock();
	close(fd);
	rcu_read_lock();
	CHECK_EQ(value_ranges_end(v), 0);
	rcu_read_unlock();
}

/* A hash map's value: in the set when the map preallocates its elements. */
static void hash_value_in_set(uint32_t flags, bool in_set)
{
	union bpf_attr attr = { .map_type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 16,
				.max_entries = 8, .map_flags = flags };
	int fd = bpf(BPF_MAP_CREATE, &attr, sizeof(attr)), err;
	uint32_t key = 5;
	uint8_t val[16] = { 1 };
	uintptr_t v = 0;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	attr = (union bpf_attr){ .map_fd = (uint32_t)fd, .key = (uintptr_t)&key,
				 .value = (uintptr_t)val };
	CHECK_EQ(bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)), 0);
	rcu_read_lock();
	struct bpf_object *obj = obj_from_fd(fd, OBJ_MAP, &err);

	if (obj)
		v = (uintptr_t)map_of(obj)->ops->lookup_ptr(map_of(obj), &key);
	CHECK(v != 0);
	CHECK_EQ(value_ranges_end(v) >= v + 16, in_set);
	rcu_read_unlock();
	close(fd);
	rcu_read_lock();
	CHECK_EQ(value_ranges_end(v), 0);
	rcu_read_unlock();
}

TEST(value_ranges_hash_map)
{
	hash_value_in_set(0, true);
	hash_value_in_set(BPF_F_NO_PREALLOC, false);
}
