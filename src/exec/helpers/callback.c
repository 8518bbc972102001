/* callback.c — the helpers that call back into the program (src/exec/callback.h):
 * bpf_loop(), bpf_for_each_map_elem(), and bpf_tail_call().
 */

#include "exec/callback.h"
#include "map/map.h"
#include "exec/helpers/impl.h"

#define BPF_MAX_LOOPS (1u << 23) /* the kernel's bound on bpf_loop()'s iterations */

/* bpf_loop(nr_loops, callback, ctx, flags): callback(i, ctx, 0, 0, 0) for i = 0, 1, ... below
 * nr_loops (a u32, as the kernel's argument: the high half is ignored); a nonzero return stops
 * after i + 1 calls.  Returns the number of calls, -EINVAL for flags, -E2BIG beyond the bound. */
u64 h_loop(u64 nr, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	u32 nr_loops = (u32)nr;

	if (flags)
		return (u64)-EINVAL;
	if (nr_loops > BPF_MAX_LOOPS)
		return (u64)-E2BIG;
	for (u32 i = 0; i < nr_loops; i++)
		if (exec_callback_call(callback, i, ctx, 0, 0, 0))
			return (u64)i + 1;
	return nr_loops;
}

/* bpf_for_each_map_elem(map, callback, ctx, flags): the map type's walk (map.h, for_each). */
u64 h_for_each_map_elem(u64 map, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);

	if (flags || !m->ops->for_each) /* (the verifier refuses a type without one) */
		return (u64)-EINVAL;
	return (u64)m->ops->for_each(m, callback, PTR(ctx));
}

/* bpf_tail_call: the runners handle it (interp_env.tail_call, src/prog/tail_call.c); this entry
 * only gives it a prototype, and a callx of its id falls through, as a failed tail call does. */
u64 h_tail_call(u64 ctx, u64 map, u64 index, u64 a4, u64 a5)
{
	return 0;
}
