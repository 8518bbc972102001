/* btf_access.c — loads through pointers to kernel objects (PTR_TO_BTF_ID_*), checked against
 * the kernel's BTF as 6.18 checks them: the access must lie inside the struct and inside one of
 * its fields (a field of a nested struct or union, an element of an array); a pointer field read
 * whole gives a pointer to its struct, anything else a scalar.  Writes are refused.
 *
 * The pointer a load gives keeps its base's trust only through the fields the kernel lists as
 * RCU-protected (task_struct's real_parent, group_leader, ...): it is rcu_ptr_ while the program
 * runs in the RCU section (every program but a sleepable one, which enters it with
 * bpf_rcu_read_lock(); leaving it makes its RCU pointers untrusted); any other field gives an
 * untrusted_ptr_, which may be NULL or stale.  That matters to what may take the pointer, not to
 * loads: all of them are BPF_PROBE_MEM loads (the JIT and the interpreter read the tasks' arena
 * in place and anything else through probe_load(), which gives 0 where nothing is mapped), so a
 * walk through NULL or freed memory reads zeros instead of faulting, as in the kernel.
 */
#include <errno.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "verifier/env.h"
#include "verifier/tnum.h"
#include "verifier/verifier.h"

const char *btf_id_name(u32 btf_id)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t = btf ? btf_type_by_id(btf, btf_id) : NULL;
	const char *name = t ? btf_str_by_offset(btf, t->name_off) : NULL;

	return name ? name : "";
}

/* The pointer fields 6.18 lists as RCU-protected (its BTF_TYPE_SAFE_RCU; or_null: ..._OR_NULL;
 * the kernel's BTF has them as structs <type>__safe_rcu and __safe_rcu_or_null): read from a
 * trusted or RCU pointer inside the RCU section, they give an RCU pointer (that may be NULL). */
static const struct {
	const char *type, *field;
	bool or_null;
} rcu_fields[] = {
	{ "task_struct", "cpus_ptr", false },	 { "task_struct", "cgroups", false },
	{ "task_struct", "real_parent", false }, { "task_struct", "group_leader", false },
	{ "cgroup", "kn", false },		 { "css_set", "dfl_cgrp", false },
	{ "cgroup_subsys_state", "cgroup", false }, { "mm_struct", "exe_file", true },
	{ "sk_buff", "sk", true },		 { "request_sock", "sk", true },
};

/* The pointer fields 6.18 lists as trusted (BTF_TYPE_SAFE_TRUSTED; or_null: ..._OR_NULL; the
 * kernel's BTF has them as structs <type>__safe_trusted and __safe_trusted_or_null): read from a
 * trusted pointer, they give a trusted one (that may be NULL). */
static const struct {
	const char *type, *field;
	bool or_null;
} trusted_fields[] = {
	{ "bpf_iter_meta", "seq", false }, { "bpf_iter__task", "task", false },
	{ "linux_binprm", "file", false }, { "file", "f_inode", false },
	{ "socket", "sk", true },	   { "dentry", "d_inode", true },
};

/* 1 if the field of struct base_id is trusted, 2 if trusted but maybe NULL, else 0. */
static int field_is_trusted(u32 base_id, const char *field)
{
	const char *base = btf_id_name(base_id);

	for (size_t i = 0; field && i < ARRAY_SIZE(trusted_fields); i++)
		if (!strcmp(trusted_fields[i].type, base) && !strcmp(trusted_fields[i].field, field))
			return 1 + trusted_fields[i].or_null;
	return 0;
}

/* 1 if the field of struct base_id is RCU-protected, 2 if so but maybe NULL, else 0. */
static int field_is_rcu(u32 base_id, const char *field)
{
	const char *base = btf_id_name(base_id);

	for (size_t i = 0; field && i < ARRAY_SIZE(rcu_fields); i++)
		if (!strcmp(rcu_fields[i].type, base) && !strcmp(rcu_fields[i].field, field))
			return 1 + rcu_fields[i].or_null;
	return 0;
}

/* struct_walk()'s answers (a negative errno when the access is refused); WALK_PTR_UNTRUSTED: a
 * pointer to something not a struct */
enum { WALK_SCALAR, WALK_PTR, WALK_PTR_UNTRUSTED, WALK_STRUCT };

/* The kernel's in_rcu_cs(): RCU pointers are valid inside bpf_rcu_read_lock(), under a
 * bpf_spin_lock, and throughout a program that cannot sleep. */
bool in_rcu_cs(const struct verifier_env *env)
{
	return env->cur->active_rcu_lock || env->cur->active_locks || !in_sleepable(env);
}

static void rcu_to_untrusted(struct reg_state *reg, void *arg)
{
	(void)arg;
	if (reg->type == PTR_TO_BTF_ID_RCU)
		reg->type = PTR_TO_BTF_ID_UNTRUSTED;
}

void btf_rcu_unlock(struct verifier_env *env)
{
	for_each_reg(env->cur, rcu_to_untrusted, NULL);
}

static bool is_struct(const struct btf_type *t)
{
	return t && (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_UNION);
}

static u32 member_bit_off(const struct btf_type *t, const struct btf_member *m)
{
	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
}

static u32 member_bitfield_size(const struct btf_type *t, const struct btf_member *m)
{
	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
}

/* A member's type with arrays of arrays flattened: the element type (modifiers skipped) in
 * *elem and *elem_id, the total element count in *nelems (0: not an array) and the whole size in
 * *size.  NULL when the size cannot be known. */
static const struct btf_type *member_layout(const struct btf *btf, u32 id, u32 *size,
					    const struct btf_type **elem, u32 *elem_id, u32 *nelems)
{
	const struct btf_type *t = btf_skip_modifiers(btf, id, &id);
	u32 n = 1, esize;
	bool array = false;

	while (t && BTF_INFO_KIND(t->info) == BTF_KIND_ARRAY) {
		const struct btf_array *a = (const struct btf_array *)(t + 1);

		array = true;
		n *= a->nelems;
		t = btf_skip_modifiers(btf, a->type, &id);
	}
	*elem = t;
	*elem_id = id;
	*nelems = array ? n : 0;
	if (!t || !btf_type_id_size(btf, &id, &esize))
		return NULL;
	*size = esize * n;
	return t;
}

/* The kernel's btf_struct_walk(): what off..off+size of struct t is.  For WALK_PTR *next_id is
 * the struct pointed at and *field the pointer's name; for WALK_STRUCT the nested struct that
 * starts at off.  *in_union is set once the walk enters a union of more than one member: what
 * it reads there may be any of them, so the read may cross a member's end and a pointer read
 * is untrusted. */
static int struct_walk(struct verifier_env *env, const struct btf *btf,
		       const struct btf_type *t, u32 off, u32 size, u32 *next_id,
		       const char **field, bool *in_union)
{
again:;
	const char *tname = btf_str_by_offset(btf, t->name_off);

	if (!tname || !*tname)
		tname = "(anon)";
	u16 vlen = BTF_INFO_VLEN(t->info);
	const struct btf_member *members = (const struct btf_member *)(t + 1);

	if (!is_struct(t)) {
		verbose(env, "Type '%s' is not a struct\n", tname);
		return -EINVAL;
	}
	if (BTF_INFO_KIND(t->info) == BTF_KIND_UNION && vlen != 1)
		*in_union = true;
	if (off + size > t->size) {
		/* only a flexible array at the end may be read past the struct's size */
		const struct btf_member *last = vlen ? &members[vlen - 1] : NULL;
		const struct btf_type *mt = last ? btf_skip_modifiers(btf, last->type, NULL) : NULL;
		const struct btf_array *a = (const struct btf_array *)(mt + 1);
		u32 moff = last ? member_bit_off(t, last) / 8 : 0;

		if (!mt || BTF_INFO_KIND(mt->info) != BTF_KIND_ARRAY || a->nelems || off < moff)
			goto beyond;
		mt = btf_skip_modifiers(btf, a->type, NULL);
		if (mt && BTF_INFO_KIND(mt->info) == BTF_KIND_INT)
			return WALK_SCALAR;
		if (!is_struct(mt) || !mt->size)
			goto beyond;
		off = (off - moff) % mt->size;
		t = mt;
		goto again;
beyond:
		verbose(env, "access beyond struct %s at off %u size %u\n", tname, off, size);
		return -EACCES;
	}
	for (u16 i = 0; i < vlen; i++) {
		const struct btf_member *m = &members[i];
		const char *mname = btf_str_by_offset(btf, m->name_off);
		const struct btf_type *mt, *elem;
		u32 moff = member_bit_off(t, m) / 8, msize = 0, mid, nelems, mend;

		if (off + size <= moff)
			break; /* past the access: nothing further can hold it */
		if (member_bitfield_size(t, m)) {
			u32 end_bit = member_bit_off(t, m) + member_bitfield_size(t, m);

			/* (off <= moff: clang leaves anonymous bitfields out of BTF) */
			if (off <= moff && (end_bit + 7) / 8 <= off + size)
				return WALK_SCALAR;
			continue;
		}
		if (off < moff)
			break; /* a hole between fields */
		mt = member_layout(btf, m->type, &msize, &elem, &mid, &nelems);
		if (!mt) {
			verbose(env, "field %s doesn't have size\n", mname);
			return -EFAULT;
		}
		mend = moff + msize;
		if (off >= mend)
			continue;
		if (nelems) {
			if (!msize)
				continue; /* an empty array */
			msize /= nelems;
			moff += (off - moff) / msize * msize;
			mt = elem;
		}
		if (is_struct(mt)) {
			if (off == moff) {
				*next_id = mid;
				return WALK_STRUCT;
			}
			off -= moff;
			t = mt;
			goto again;
		}
		if (BTF_INFO_KIND(mt->info) == BTF_KIND_PTR) {
			u32 id;
			const struct btf_type *st;

			if (msize != size || off != moff) {
				verbose(env, "cannot access ptr member %s with moff %u in struct "
					"%s with off %u size %u\n", mname, moff, tname, off, size);
				return -EACCES;
			}
			st = btf_skip_modifiers(btf, mt->type, &id);
			if (!is_struct(st))
				return WALK_PTR_UNTRUSTED;
			*next_id = id;
			*field = mname;
			return WALK_PTR;
		}
		/* an int may be read in any part, arrays of them as one scratch space */
		if (off + size > mend && !*in_union) {
			verbose(env, "access beyond the end of member %s (mend:%u) in struct %s "
				"with off %u size %u\n", mname, mend, tname, off, size);
			return -EACCES;
		}
		return WALK_SCALAR;
	}
	verbose(env, "struct %s doesn't have field at offset %d\n", tname, (int)off);
	return -EINVAL;
}

/* The kernel's btf_struct_ids_match() (not strict): whether the struct btf_id, at off, is or
 * begins with a struct want_id nested at that offset; the walk logs why not. */
bool btf_ids_match(struct verifier_env *env, u32 btf_id, int off, u32 want_id)
{
	const struct btf *btf = btf_vmlinux();
	bool in_union = false;

	if (!btf)
		return false;
	if (!off && btf_id == want_id)
		return true;
	for (;;) {
		const struct btf_type *t = btf_type_by_id(btf, btf_id);
		const char *field = NULL;
		u32 next_id = 0;

		if (!t || struct_walk(env, btf, t, (u32)off, 1, &next_id, &field, &in_union) !=
				  WALK_STRUCT)
			return false;
		btf_skip_modifiers(btf, next_id, &next_id);
		if (next_id == want_id)
			return true;
		btf_id = next_id;
		off = 0;
	}
}

/* The kernel's check_ptr_to_btf_access(): regno + off (the register's fixed offset included),
 * size bytes, read into value_regno (-1: none) or written. */
int check_btf_access(struct verifier_env *env, u32 regno, s32 off, int size, bool write,
		     int value_regno)
{
	const struct btf *btf = btf_vmlinux();
	struct reg_state *reg = &cur_regs(env)[regno];
	const char *tname = btf_id_name(reg->btf_id);
	const struct btf_type *t;
	const char *field = NULL;
	u32 next_id = 0;
	bool in_union = false;
	int w;

	if (off < 0) {
		verbose(env, "R%u is ptr_%s invalid negative access: off=%d\n", regno, tname, off);
		return -EACCES;
	}
	if (!tnum_is_const(reg->s.var_off) || reg->s.var_off.value) {
		char tn[48];

		tnum_snprint(tn, sizeof(tn), reg->s.var_off);
		verbose(env, "R%u is ptr_%s invalid variable offset: off=%d, var_off=%s\n", regno,
			tname, off, tn);
		return -EACCES;
	}
	if (reg->type == PTR_TO_PERCPU_BTF_ID) {
		verbose(env, "R%u is ptr_%s access percpu memory: off=%d\n", regno, tname, off);
		return -EACCES;
	}
	if (write) {
		verbose(env, "only read is supported\n");
		return -EACCES;
	}
	if (!btf)
		return -EFAULT; /* (no pointer of this kind exists without the kernel's BTF) */
	t = btf_type_by_id(btf, reg->btf_id);
	for (;;) {
		w = struct_walk(env, btf, t, (u32)off, (u32)size, &next_id, &field, &in_union);
		if (w != WALK_STRUCT)
			break;
		t = btf_skip_modifiers(btf, next_id, NULL);
		off = 0;
	}
	if (w < 0)
		return w;
	if (value_regno < 0)
		return 0;
	if (w == WALK_SCALAR) {
		mark_reg_unknown(&cur_regs(env)[value_regno]);
		return 0;
	}
	if (w == WALK_PTR_UNTRUSTED) {
		mark_ptr(&cur_regs(env)[value_regno], PTR_TO_RDONLY_UNTRUSTED_MEM);
		return 0;
	}
	u8 type = PTR_TO_BTF_ID_UNTRUSTED;
	bool trusted = reg->type == PTR_TO_BTF_ID_TRUSTED ||
		       (reg->type == PTR_TO_BTF_ID && reg->ref_obj_id);
	int safe = trusted && !in_union ? field_is_trusted(reg->btf_id, field) : 0;
	int rcu = 0;

	if (safe) {
		type = safe == 2 ? PTR_TO_BTF_ID_TRUSTED_OR_NULL : PTR_TO_BTF_ID_TRUSTED;
	} else if (reg->type != PTR_TO_BTF_ID_UNTRUSTED && !in_union && in_rcu_cs(env) &&
		   (rcu = field_is_rcu(reg->btf_id, field))) {
		type = rcu == 2 ? PTR_TO_BTF_ID_RCU_OR_NULL : PTR_TO_BTF_ID_RCU;
	}
	mark_ptr(&cur_regs(env)[value_regno], type);
	cur_regs(env)[value_regno].btf_id = next_id;
	if (safe == 2 || rcu == 2)
		cur_regs(env)[value_regno].id = ++env->id_gen;
	return 0;
}
