/* The owner of a map that holds programs (map.h, struct map_owner): the kernel's
 * bpf_prog_map_compatible().  A program array's programs are tail-called with the caller's ctx
 * and stack, a device map's programs run on the frames redirected to it: so every program in
 * such a map, and every program that uses it, must be of the kind the first one was. */
#include <string.h>

#include "map/map.h"
#include "prog/prog.h"

bool map_prog_compatible(struct bpf_map *map, const struct bpf_prog *prog)
{
	struct map_owner *o = &map->owner;
	bool frags = prog->prog_flags & BPF_F_XDP_HAS_FRAGS, ok = true;
	u32 storage[2];

	for (int t = 0; t < 2; t++)
		storage[t] = prog->cgroup_storage[t] ? prog->cgroup_storage[t]->obj.id : 0;
	spin_lock(&o->lock);
	if (!o->set) {
		o->set = true;
		o->type = prog->type;
		o->jited = prog->jited;
		o->xdp_has_frags = frags;
		o->expected_attach_type = prog->expected_attach_type;
		memcpy(o->storage, storage, sizeof(storage));
	} else {
		ok = o->type == prog->type && o->jited == prog->jited && o->xdp_has_frags == frags;
		if (ok && map->map_type == BPF_MAP_TYPE_PROG_ARRAY)
			ok = o->expected_attach_type == prog->expected_attach_type;
		for (int t = 0; t < 2 && ok; t++)
			ok = o->storage[t] == storage[t] || (!storage[t] && !prog->has_tail_call);
	}
	spin_unlock(&o->lock);
	return ok;
}
