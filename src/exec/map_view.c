/* map_view.c — userbpf's maps as the kernel's struct bpf_map (see map_view.h).
 *
 * A bpf_map iterator program reads the map it is given directly (map->id, map->name, ...), as
 * the kernel's struct; userbpf's struct bpf_map is its own, so each map is written, call by
 * call, into a block of the tasks' arena this thread keeps (loads through the pointer then read
 * in place, as the tasks' do): its id, name, type, key and value sizes, max_entries and flags,
 * where the kernel's BTF puts them; the kernel's other fields read 0.
 */
#include <pthread.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "exec/current_task.h"
#include "exec/map_view.h"
#include "map/map.h"

static struct {
	bool ok;
	u32 size;
	long id, name, map_type, key_size, value_size, max_entries, map_flags;
} L;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread u8 *block;

static void layout(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 id = btf ? btf_find_by_name_kind(btf, "bpf_map", BTF_KIND_STRUCT) : 0;
	const struct btf_type *t = id ? btf_type_by_id(btf, id) : NULL;
	const struct {
		long *off;
		const char *name;
	} fields[] = {
		{ &L.id, "id" },		 { &L.name, "name" },
		{ &L.map_type, "map_type" },	 { &L.key_size, "key_size" },
		{ &L.value_size, "value_size" }, { &L.max_entries, "max_entries" },
		{ &L.map_flags, "map_flags" },
	};

	if (!t)
		return;
	L.size = t->size;
	L.ok = true;
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		*fields[i].off = btf_member_offset(btf, id, fields[i].name);
		L.ok &= *fields[i].off >= 0;
	}
}

static void put32(long off, u32 v)
{
	memcpy(block + off, &v, sizeof(v));
}

u64 map_view_get(const struct bpf_map *map)
{
	pthread_once(&once, layout);
	if (!L.ok)
		return 0;
	if (!block)
		block = task_arena_alloc(L.size);
	if (!block)
		return 0;
	memset(block, 0, L.size);
	put32(L.id, map->obj.id);
	memcpy(block + L.name, map->name, sizeof(map->name));
	put32(L.map_type, map->map_type);
	put32(L.key_size, map->key_size);
	put32(L.value_size, map->value_size);
	put32(L.max_entries, map->max_entries);
	put32(L.map_flags, map->map_flags);
	return (uintptr_t)block;
}
