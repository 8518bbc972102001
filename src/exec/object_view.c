/* object_view.c — userbpf's maps and programs as the kernel's struct bpf_map and struct
 * bpf_prog (see object_view.h).
 *
 * A bpf_map or bpf_prog iterator program reads the object it is given directly (map->id,
 * prog->aux->name, ...), as the kernel's struct; userbpf's structs are its own, so each object
 * is written, call by call, into a block of the tasks' arena this thread keeps (loads through
 * the pointer then read in place, as the tasks' do) where the kernel's BTF puts its fields: a
 * map's id, name, type, key and value sizes, max_entries and flags; a program's type, expected
 * attach type and aux (its id, name and the verifier's processed instruction count).  The
 * kernel's other fields read 0.
 */
#include <pthread.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "exec/current_task.h"
#include "exec/object_view.h"
#include "map/map.h"
#include "prog/prog.h"

static struct {
	bool ok;
	u32 size, prog_size, aux_size;
	long id, name, map_type, key_size, value_size, max_entries, map_flags;
	long type, expected_attach_type, aux, aux_id, aux_name, verified_insns;
} L;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread u8 *block;

static u32 struct_size(const struct btf *btf, const char *name, u32 *id)
{
	const struct btf_type *t;

	*id = btf ? btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT) : 0;
	t = *id ? btf_type_by_id(btf, *id) : NULL;
	return t ? t->size : 0;
}

static void layout(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 map, prog, aux;
	const struct {
		long *off;
		u32 *in;
		const char *name;
	} fields[] = {
		{ &L.id, &map, "id" },
		{ &L.name, &map, "name" },
		{ &L.map_type, &map, "map_type" },
		{ &L.key_size, &map, "key_size" },
		{ &L.value_size, &map, "value_size" },
		{ &L.max_entries, &map, "max_entries" },
		{ &L.map_flags, &map, "map_flags" },
		{ &L.type, &prog, "type" },
		{ &L.expected_attach_type, &prog, "expected_attach_type" },
		{ &L.aux, &prog, "aux" },
		{ &L.aux_id, &aux, "id" },
		{ &L.aux_name, &aux, "name" },
		{ &L.verified_insns, &aux, "verified_insns" },
	};

	L.size = struct_size(btf, "bpf_map", &map);
	L.prog_size = struct_size(btf, "bpf_prog", &prog);
	L.aux_size = struct_size(btf, "bpf_prog_aux", &aux);
	if (!L.size || !L.prog_size || !L.aux_size)
		return;
	L.ok = true;
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		*fields[i].off = btf_member_offset(btf, *fields[i].in, fields[i].name);
		L.ok &= *fields[i].off >= 0;
	}
}

/* This thread's block, zeroed: room for a map or a program and its aux. */
static u8 *block_get(void)
{
	size_t size = L.size > L.prog_size + L.aux_size ? L.size : L.prog_size + L.aux_size;

	if (!block)
		block = task_arena_alloc(size);
	if (block)
		memset(block, 0, size);
	return block;
}

static void put32(long off, u32 v)
{
	memcpy(block + off, &v, sizeof(v));
}

u64 map_view_get(const struct bpf_map *map)
{
	pthread_once(&once, layout);
	if (!L.ok || !block_get())
		return 0;
	put32(L.id, map->obj.id);
	memcpy(block + L.name, map->name, sizeof(map->name));
	put32(L.map_type, map->map_type);
	put32(L.key_size, map->key_size);
	put32(L.value_size, map->value_size);
	put32(L.max_entries, map->max_entries);
	put32(L.map_flags, map->map_flags);
	return (uintptr_t)block;
}

u64 prog_view_get(const struct bpf_prog *prog)
{
	u8 *aux;
	u64 aux_addr;

	pthread_once(&once, layout);
	if (!L.ok || !block_get())
		return 0;
	aux = block + L.prog_size;
	aux_addr = (uintptr_t)aux;
	put32(L.type, prog->type);
	put32(L.expected_attach_type, prog->expected_attach_type);
	memcpy(block + L.aux, &aux_addr, sizeof(aux_addr));
	memcpy(aux + L.aux_id, &prog->obj.id, sizeof(u32));
	memcpy(aux + L.aux_name, prog->name, sizeof(prog->name));
	memcpy(aux + L.verified_insns, &prog->verified_insns, sizeof(u32));
	return (uintptr_t)block;
}
