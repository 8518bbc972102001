/* native_map.c — the hashmap benchmark's C baseline on userbpf's own hash map: the same lookup
 * and update the BPF program's helpers make, called from C, so that the program's ratio to it
 * is what the JIT's code and calls add over C, with the map's cost on both sides.  (Uses the
 * library's internal map interface, which the static library exposes to the benchmark.) */
#include <string.h>

#include "fd.h"
#include "map/map.h"
#include "native_progs.h"
#include "rcu.h"

static struct bpf_map *native_map;

void native_hash_userbpf_bind(int map_fd)
{
	int err;

	rcu_read_lock();
	native_map = map_of(obj_from_fd(map_fd, OBJ_MAP, &err));
	rcu_read_unlock();
}

/* key = first 4 packet bytes & 1023; value = lookup(key) + 1 (1 if absent); update(key). */
uint64_t native_hash_userbpf(const uint8_t *pkt, size_t len)
{
	uint32_t key;
	uint64_t v, *p;

	if (len < 4)
		return 2;
	memcpy(&key, pkt, 4);
	key &= 1023;
	p = native_map->ops->lookup_ptr(native_map, &key);
	v = p ? *p + 1 : 1;
	map_prog_update(native_map)(native_map, &key, &v, BPF_ANY);
	return 2;
}
