/* map.c — the map helpers: lookup, update, delete, push/pop/peek, redirect through a map,
 * bpf_spin_lock, the per-CPU lookup.  They call the map's ops with the struct bpf_map the program
 * holds and return the ops' negative errno, as the kernel's helpers do.
 */

#include "exec/bpf_timer.h"
#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

u64 h_map_lookup_elem(u64 map, u64 key, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (uintptr_t)m->ops->lookup_ptr(m, PTR(key));
}

/* (a map with timers: an update or delete may free a timer whose callback runs; the JIT calls
 * these for such maps, not the ops, prog_resolve_call()) */
u64 h_map_update_elem(u64 map, u64 key, u64 value, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);
	int ret = map_prog_update(m)(m, PTR(key), PTR(value), flags);

	if (map_has_async(m))
		bpf_timer_sync();
	return (u64)(s64)ret;
}

u64 h_map_delete_elem(u64 map, u64 key, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);
	int ret = m->ops->delete(m, PTR(key));

	if (map_has_async(m))
		bpf_timer_sync();
	return (u64)(s64)ret;
}

/* Queue and stack maps (the verifier allows these three on them only): their ops with no key
 * (src/map/queue_stack.c). */
u64 h_map_push_elem(u64 map, u64 value, u64 flags, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->update(m, NULL, PTR(value), flags);
}

u64 h_map_pop_elem(u64 map, u64 value, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->lookup_and_delete(m, NULL, PTR(value), 0);
}

u64 h_map_peek_elem(u64 map, u64 value, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->lookup(m, NULL, PTR(value));
}

/* bpf_redirect_map(map, key, flags): the map type's answer (the verifier allows device maps
 * only).  Nothing is sent: see src/map/devmap.c. */
u64 h_redirect_map(u64 map, u64 key, u64 flags, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->xdp_redirect(m, key, flags);
}

/* bpf_spin_lock(lock) / bpf_spin_unlock(lock): the lock word of a map value (the verifier
 * checked it is one, and pairs the two on every path). */
u64 h_spin_lock(u64 lock, u64 a2, u64 a3, u64 a4, u64 a5)
{
	map_spin_lock(PTR(lock));
	return 0;
}

u64 h_spin_unlock(u64 lock, u64 a2, u64 a3, u64 a4, u64 a5)
{
	map_spin_unlock(PTR(lock));
	return 0;
}

/* jit_opts.resolve_call for a loaded program: a map helper whose map the JIT knows becomes a
 * direct call of the map's op (no helper and no ops indirection; int results sign-extended as
 * the helpers do), and an array map's lookup becomes inline index arithmetic, as the kernel's
 * JIT does with map_gen_lookup.  r1 must be one of the maps the verifier recorded for prog. */
int prog_resolve_call(void *arg, const void *fn, u64 r1, struct jit_call *how)
{
	const struct bpf_prog *prog = arg;
	struct bpf_map *m = NULL;
	u32 elem_size;
	void *base;

	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if ((uintptr_t)prog->used_maps[i] == r1)
			m = prog->used_maps[i];
	if (!m)
		return 0;
	if (fn == (const void *)h_map_lookup_elem) {
		if (m->ops->array_base && (base = m->ops->array_base(m, &elem_size))) {
			how->kind = JIT_CALL_ARRAY;
			how->base = (uintptr_t)base;
			how->elem_size = elem_size;
			how->max_entries = m->max_entries;
			return 1;
		}
		how->kind = JIT_CALL_DIRECT;
		how->fn = (const void *)m->ops->lookup_ptr;
		return how->fn != NULL;
	}
	if (map_has_async(m)) /* (the helpers, which wait for a freed timer's callback) */
		return 0;
	how->kind = JIT_CALL_DIRECT;
	how->sext32 = 1;
	if (fn == (const void *)h_map_update_elem)
		how->fn = (const void *)map_prog_update(m);
	else if (fn == (const void *)h_map_delete_elem)
		how->fn = (const void *)m->ops->delete;
	return how->fn != NULL;
}

/* bpf_map_lookup_percpu_elem(map, key, cpu): that CPU's copy (the verifier allows only
 * per-CPU maps). */
u64 h_map_lookup_percpu_elem(u64 map, u64 key, u64 cpu, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (uintptr_t)m->ops->lookup_percpu_ptr(m, PTR(key), (u32)cpu);
}
