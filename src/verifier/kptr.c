/* kptrs: map value fields that hold pointers to kernel objects (a BTF-tagged `struct task_struct
 * __kptr *`), as 6.18 checks their use (check_map_kptr_access(), process_kptr_func(),
 * map_kptr_match_type()).
 *
 * A load of one gives the object, maybe NULL: a referenced kptr's to an RCU-protected struct
 * (task_struct, cgroup, bpf_cpumask) is an RCU pointer inside an RCU section, anything else
 * untrusted.  A referenced kptr changes only through bpf_kptr_xchg(), which moves a reference
 * the program holds into the map and the one there out (a new reference the program must
 * release); an unreferenced one takes a plain store of a pointer to its struct, or NULL.  Only
 * whole 8-byte loads and stores at the field reach it (check_mem.c refuses the others, and
 * helpers).
 */
#include <errno.h>

#include "btf/vmlinux.h"
#include "map/map.h"
#include "verifier/env.h"

/* The pointer types whose structs a kptr takes. */
static bool kptr_ptr_type(u8 type, bool untrusted_ok)
{
	switch (type) {
	case PTR_TO_BTF_ID:
	case PTR_TO_BTF_ID_OR_NULL:
	case PTR_TO_BTF_ID_TRUSTED:
	case PTR_TO_BTF_ID_RCU:
	case PTR_TO_BTF_ID_RCU_OR_NULL:
	case PTR_TO_BTF_ID_TRUSTED_OR_NULL:
		return true;
	case PTR_TO_BTF_ID_UNTRUSTED:
	case PTR_TO_BTF_ID_UNTRUSTED_OR_NULL:
		return untrusted_ok;
	default:
		return false;
	}
}

int kptr_match_type(struct verifier_env *env, const struct map_kptr *k, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	const char *target = btf_id_name(k->btf_id);

	if (kptr_ptr_type(reg->type, !k->ref)) {
		if (check_ptr_off(env, reg, regno, true))
			return -EACCES;
		/* (a referenced kptr takes its own struct only, at offset 0) */
		if (k->ref ? !reg->off && reg->btf_id == k->btf_id
			   : btf_ids_match(env, reg->btf_id, reg->off, k->btf_id))
			return 0;
	}
	verbose(env, "invalid kptr access, R%u type=%s%s ", regno, reg_type_str(reg->type),
		reg_is_btf_id(reg) ? btf_id_name(reg->btf_id) : "");
	verbose(env, "expected=%s%s", reg_type_str(PTR_TO_BTF_ID), target);
	if (!k->ref)
		verbose(env, " or %s%s\n", reg_type_str(PTR_TO_BTF_ID_UNTRUSTED), target);
	else
		verbose(env, "\n");
	return -EINVAL;
}

int check_map_kptr_access(struct verifier_env *env, int value_regno,
			  const struct bpf_insn *insn, const struct map_kptr *k)
{
	u8 class = BPF_CLASS(insn->code);
	struct reg_state *dst;

	if (BPF_MODE(insn->code) != BPF_MEM) {
		verbose(env, "kptr in map can only be accessed using BPF_MEM instruction mode\n");
		return -EACCES;
	}
	if (class != BPF_LDX && k->ref) {
		verbose(env, "store to referenced kptr disallowed\n");
		return -EACCES;
	}
	if (class == BPF_LDX) {
		/* a referenced task's, cgroup's or CPU mask's kptr is freed after an RCU grace
		 * period (the kernel's rcu_protected_object()) */
		bool rcu = k->ref && in_rcu_cs(env) &&
			   (k->btf_id == btf_vmlinux_task_struct() ||
			    k->btf_id == btf_vmlinux_cgroup() || k->drop);

		dst = &cur_regs(env)[value_regno];
		mark_ptr(dst, rcu ? PTR_TO_BTF_ID_RCU_OR_NULL : PTR_TO_BTF_ID_UNTRUSTED_OR_NULL);
		dst->btf_id = k->btf_id;
		dst->id = ++env->id_gen;
		return 0;
	}
	if (class == BPF_STX) {
		const struct reg_state *val = &cur_regs(env)[value_regno];

		if (reg_is_const(val) && !val->s.var_off.value)
			return 0;
		return kptr_match_type(env, k, (u32)value_regno) ? -EACCES : 0;
	}
	if (insn->imm) {
		verbose(env, "BPF_ST imm must be 0 when storing to kptr at off=%u\n", k->off);
		return -EACCES;
	}
	return 0;
}

const struct map_kptr *check_kptr_xchg_dest(struct verifier_env *env, u32 regno, int *err)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	const struct map_kptr *k;
	s64 off;

	*err = -EINVAL;
	if (!reg->map->btf) {
		verbose(env, "map '%s' has to have BTF in order to use bpf_kptr_xchg\n",
			reg->map->name);
		return NULL;
	}
	if (!scalar_is_const(&reg->s)) {
		verbose(env, "R%u doesn't have constant offset. kptr has to be at the constant "
			     "offset\n", regno);
		return NULL;
	}
	if (!reg->map->nr_kptrs) {
		verbose(env, "R%u has no valid kptr\n", regno);
		return NULL;
	}
	off = reg->off + (s64)reg->s.var_off.value;
	k = map_kptr_at(reg->map, off);
	*err = -EACCES;
	if (!k) {
		verbose(env, "off=%d doesn't point to kptr\n", (int)off);
		return NULL;
	}
	if (!k->ref) {
		verbose(env, "off=%d kptr isn't referenced kptr\n", (int)off);
		return NULL;
	}
	*err = 0;
	return k;
}
