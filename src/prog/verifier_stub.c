/* TEMPORARY stand-in for bpf_check() until the verifier (branch `verifier`) lands; delete this
 * file when merging it.  It is a weak definition so that a real bpf_check() linked beside it
 * (e.g. in the shared library) wins.
 *
 * It proves nothing: it only does the rewrites a loaded program needs to run, for trusted test
 * programs: resolves LD_IMM64 map references (BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE of an
 * array) to addresses, taking a reference on each map into prog->used_maps; and rewrites 32-bit
 * loads of data / data_end / data_meta from the context into 64-bit loads of the pointer fields
 * of src/exec/ctx.h.  "From the context" is tracked naively along the instruction list: r1 at
 * entry, and registers copied from a context register (enough for straight-line test code).
 */
#include <errno.h>
#include <stdlib.h>

#include "exec/ctx.h"
#include "map/map.h"
#include "prog/prog.h"
#include "rcu.h"
#include "verifier/verifier.h"

static int stub_use_map(struct bpf_prog *prog, int fd, struct bpf_map **out)
{
	struct bpf_object *obj;
	struct bpf_map **maps;
	int err;

	rcu_read_lock();
	obj = obj_from_fd(fd, OBJ_MAP, &err);
	if (obj)
		obj_get(obj);
	rcu_read_unlock();
	if (!obj)
		return err;
	*out = map_of(obj);
	for (u32 i = 0; i < prog->used_map_cnt; i++) {
		if (prog->used_maps[i] == *out) {
			obj_put(obj);
			return 0;
		}
	}
	maps = realloc(prog->used_maps, (prog->used_map_cnt + 1) * sizeof(*maps));
	if (!maps) {
		obj_put(obj);
		return -ENOMEM;
	}
	prog->used_maps = maps;
	maps[prog->used_map_cnt++] = *out;
	return 0;
}

/* The pointer field replacing a 32-bit uapi packet field at off, or -1. */
static int stub_ctx_ptr_off(u32 type, s16 off)
{
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_SCHED_CLS:
		if (off == offsetof(struct __sk_buff, data))
			return offsetof(struct skb_ctx, data);
		if (off == offsetof(struct __sk_buff, data_end))
			return offsetof(struct skb_ctx, data_end);
		if (off == offsetof(struct __sk_buff, data_meta))
			return offsetof(struct skb_ctx, data_meta);
		return -1;
	case BPF_PROG_TYPE_XDP:
		if (off == offsetof(struct xdp_md, data))
			return offsetof(struct xdp_ctx, data);
		if (off == offsetof(struct xdp_md, data_end))
			return offsetof(struct xdp_ctx, data_end);
		if (off == offsetof(struct xdp_md, data_meta))
			return offsetof(struct xdp_ctx, data_meta);
		return -1;
	}
	return -1;
}

__attribute__((weak)) int bpf_check(struct bpf_prog *prog, const union bpf_attr *attr)
{
	u16 is_ctx = 1u << BPF_REG_1;

	for (u32 i = 0; i < prog->len; i++) {
		struct bpf_insn *in = &prog->insns[i];
		u8 cls = BPF_CLASS(in->code);

		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			struct bpf_map *map = NULL;
			u64 addr;
			int err;

			if (i + 1 >= prog->len)
				return -EINVAL;
			if (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_VALUE) {
				err = stub_use_map(prog, in->imm, &map);
				if (err)
					return err;
				addr = (uintptr_t)map;
				if (in->src_reg == BPF_PSEUDO_MAP_VALUE) {
					u32 zero = 0;
					u8 *v = map->ops->lookup_ptr(map, &zero);

					if (!v || (u32)in[1].imm >= map->value_size)
						return -EINVAL;
					addr = (uintptr_t)(v + (u32)in[1].imm);
				}
				in[0].imm = (s32)(u32)addr;
				in[1].imm = (s32)(u32)(addr >> 32);
				in->src_reg = 0;
			}
			is_ctx &= ~(1u << in->dst_reg);
			i++;
			continue;
		}
		if (cls == BPF_LDX && BPF_MODE(in->code) == BPF_MEM && BPF_SIZE(in->code) == BPF_W &&
		    (is_ctx & (1u << in->src_reg))) {
			int off = stub_ctx_ptr_off(prog->type, in->off);

			if (off >= 0) {
				in->code = BPF_LDX | BPF_MEM | BPF_DW;
				in->off = (s16)off;
			}
		}
		if (cls == BPF_ALU64 && in->code == (BPF_ALU64 | BPF_MOV | BPF_X) && !in->off) {
			if (is_ctx & (1u << in->src_reg))
				is_ctx |= 1u << in->dst_reg;
			else
				is_ctx &= ~(1u << in->dst_reg);
			continue;
		}
		if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX)
			is_ctx &= ~(1u << in->dst_reg);
		if (cls == BPF_JMP && BPF_OP(in->code) == BPF_CALL)
			is_ctx &= ~0x3fu; /* r0..r5 clobbered */
	}
	prog->stack_depth = 512;
	return 0;
}
