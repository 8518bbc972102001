/* kfunc calls (`call` with src_reg BPF_PSEUDO_KFUNC_CALL), as the kernel's verifier checks
 * them: at the start, each call must name a function of the kernel's BTF (add_kfunc_call());
 * when the walk reaches it, the program type must be one the kfunc is for, its arguments are
 * checked against that function's prototype, by kind (a scalar, the ctx, a struct bpf_dynptr,
 * an iterator (iter.c), a kernel object, a memory and size pair), and R0 is what the prototype
 * returns (check_kfunc_call()); an iterator's _next() then forks the walk, an RCU section opens
 * or closes.  An acquiring kfunc's kernel object holds a reference (it is trusted while it
 * does), which a release kfunc ends for every copy of the pointer; the program must end each
 * on every path, as a socket's.  The functions are userbpf's own (src/exec/kfuncs.c): a kernel
 * function userbpf does not have is refused with EOPNOTSUPP, one the kernel does not offer as a
 * kfunc with the kernel's EACCES.
 */
#include <errno.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "exec/kfuncs.h"
#include "prog/prog.h"
#include "verifier/dynptr.h"
#include "verifier/iter.h"
#include "verifier/env.h"

#define MAX_KFUNC_ARGS 5 /* the kernel's MAX_BPF_FUNC_REG_ARGS */

/* What a call needs of its function: the kernel's BTF, the function and its prototype. */
struct kfunc_btf {
	const struct btf *btf;
	const char *name;
	const struct btf_type *proto;
};

static bool str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static const char *param_name(const struct kfunc_btf *k, u32 i)
{
	const struct btf_param *p = (const struct btf_param *)(k->proto + 1) + i;
	const char *n = btf_str_by_offset(k->btf, p->name_off);

	return n ? n : "";
}

static const struct btf_type *param_type(const struct kfunc_btf *k, u32 i)
{
	const struct btf_param *p = (const struct btf_param *)(k->proto + 1) + i;

	return btf_skip_modifiers(k->btf, p->type, NULL);
}

static bool is_ptr(const struct btf_type *t)
{
	return t && BTF_INFO_KIND(t->info) == BTF_KIND_PTR;
}

static bool is_scalar(const struct btf_type *t)
{
	u32 kind = t ? BTF_INFO_KIND(t->info) : 0;

	return kind == BTF_KIND_INT || kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64;
}

/* The struct a pointer parameter points at is called name. */
static bool points_to_struct(const struct kfunc_btf *k, const struct btf_type *t, const char *name)
{
	const struct btf_type *r = btf_skip_modifiers(k->btf, t->type, NULL);
	const char *n = r ? btf_str_by_offset(k->btf, r->name_off) : NULL;

	return r && BTF_INFO_KIND(r->info) == BTF_KIND_STRUCT && n && !strcmp(n, name);
}

/* Whether the pointer type t points to a const type (through typedefs and the like). */
static bool points_to_const(const struct kfunc_btf *k, const struct btf_type *t)
{
	for (u32 id = t->type; id && id < k->btf->nr_types; id = k->btf->types[id]->type) {
		u32 kind = BTF_INFO_KIND(k->btf->types[id]->info);

		if (kind == BTF_KIND_CONST)
			return true;
		if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_VOLATILE &&
		    kind != BTF_KIND_RESTRICT && kind != BTF_KIND_TYPE_TAG)
			return false;
	}
	return false;
}

/* Whether the kernel marks name as a kfunc in its BTF (a "bpf_kfunc" declaration tag, which
 * __bpf_kfunc adds). */
static bool btf_is_kfunc(const struct btf *btf, u32 func_id)
{
	for (u32 id = 1; id < btf->nr_types; id++) {
		const struct btf_type *t = btf->types[id];
		const char *n;

		if (BTF_INFO_KIND(t->info) != BTF_KIND_DECL_TAG || t->type != func_id)
			continue;
		n = btf_str_by_offset(btf, t->name_off);
		if (n && !strcmp(n, "bpf_kfunc"))
			return true;
	}
	return false;
}

/* The function behind a call's imm and off, or the kernel's message and error. */
static int kfunc_btf_of(struct verifier_env *env, s32 imm, s16 off, struct kfunc_btf *k)
{
	const struct btf_type *func;

	if (off) {
		int err = -EINVAL;

		/* a module's BTF, by fd in fd_array: userbpf has no module BTFs */
		if (off < 0) {
			verbose(env, "negative offset disallowed for kernel module function "
				     "call\n");
		} else if (!env->fd_array) {
			verbose(env, "kfunc offset > 0 without fd_array is invalid\n");
			err = -EPROTO;
		} else {
			verbose(env, "BTF fd for kfunc is not a module BTF\n");
		}
		verbose(env, "failed to find BTF for kernel function\n");
		return err;
	}
	k->btf = btf_vmlinux();
	if (!k->btf) {
		verbose(env, "calling kernel function is not supported without "
			     "CONFIG_DEBUG_INFO_BTF\n");
		return -ENOTSUPP;
	}
	func = imm > 0 ? btf_type_by_id(k->btf, (u32)imm) : NULL;
	if (!func || BTF_INFO_KIND(func->info) != BTF_KIND_FUNC) {
		verbose(env, "kernel btf_id %u is not a function\n", (u32)imm);
		return -EINVAL;
	}
	k->proto = btf_type_by_id(k->btf, func->type);
	if (!k->proto || BTF_INFO_KIND(k->proto->info) != BTF_KIND_FUNC_PROTO) {
		verbose(env, "kernel function btf_id %u does not have a valid func_proto\n",
			(u32)imm);
		return -EINVAL;
	}
	k->name = btf_str_by_offset(k->btf, func->name_off);
	if (!k->name)
		k->name = "";
	return 0;
}

int add_kfunc_call(struct verifier_env *env, const struct bpf_insn *in)
{
	struct kfunc_btf k;

	if (!env->prog->gpl_compatible) {
		verbose(env, "cannot call kernel function from non-GPL compatible program\n");
		return -EINVAL;
	}
	/* a call to id 0 is refused only if it survives dead code removal (bpf_check()) */
	if (!in->imm && !in->off)
		return 0;
	return kfunc_btf_of(env, in->imm, in->off, &k);
}


/* What the arguments taught about the call (the kernel's struct bpf_kfunc_call_arg_meta). */
struct kfunc_meta {
	bool const_found;
	u64 const_value;	/* a __szk size */
	bool arg_prog;		/* a __prog parameter was seen */
	u32 ref_obj_id;		/* the reference an argument holds (an iterator's, an acquired
				 * object's) */
	u32 release_regno;	/* a release kfunc's: the register whose reference it ends */
	u32 iter_frameno;	/* the iterator argument's frame and first slot */
	int iter_spi;
	bool buf_found;		/* a __szk memory argument that is a stack buffer: where */
	u8 buf_frame;
	s16 buf_off;
	bool dynptr_found;
	u8 dynptr_type;		/* the initialised dynptr argument's kind, id and reference */
	u32 dynptr_id, dynptr_ref;
	bool writes_skb;	/* an skb's dynptr is the destination: the packet may move */
	struct bpf_map *map;	/* a bpf_wq argument's map, or a __map argument */
	int subprogno;		/* a callback argument's subprogram (-1: none) */
};

/* A struct bpf_dynptr * argument (the kernel's KF_ARG_PTR_TO_DYNPTR): an initialised dynptr,
 * or, for a parameter named __uninit, stack to make one in (bpf_dynptr_clone()'s, which is
 * of the kind of, and shares the reference of, the dynptr before it). */
static int kfunc_dynptr_arg(struct verifier_env *env, const struct kfunc_btf *k,
			    const struct kfunc_desc *desc, u32 i, struct kfunc_meta *meta,
			    int insn_idx)
{
	u32 regno = BPF_REG_1 + i;
	int err;

	if (str_ends(param_name(k, i), "__uninit")) {
		const struct reg_state *reg = &cur_regs(env)[regno];

		err = check_dynptr_arg_reg(env, regno);
		if (err)
			return err;
		if (reg->type == CONST_PTR_TO_DYNPTR) {
			verbose(env, "Dynptr has to be an uninitialized dynptr\n");
			return -EINVAL;
		}
		/* a packet's (bpf_dynptr_from_skb()/_xdp()), or a clone of the one before */
		if (desc->flags & (KF_PKT_SKB | KF_PKT_XDP))
			return make_dynptr_arg(env, regno,
					       desc->flags & KF_PKT_SKB ? DYNPTR_TYPE_SKB
									: DYNPTR_TYPE_XDP,
					       0, insn_idx);
		if (!meta->dynptr_found) {
			verbose(env, "verifier internal error: no dynptr type for parent of "
				     "clone\n");
			return -EFAULT;
		}
		return make_dynptr_arg(env, regno, meta->dynptr_type, meta->dynptr_ref, insn_idx);
	}
	err = check_global_dynptr_arg(env, regno);
	if (err)
		return err;
	err = dynptr_arg_ids(env, regno, &meta->dynptr_id, &meta->dynptr_ref);
	if (err)
		return err;
	meta->dynptr_type = dynptr_arg_type(env, regno);
	meta->dynptr_found = true;
	return 0;
}

/* The program types bpf_dynptr_from_skb() is registered for (those userbpf loads). */
static bool skb_dynptr_type(u32 type)
{
	switch (type) {
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_SK_SKB:
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_TRACING:
		return true;
	default:
		return false;
	}
}

/* The program types 6.18's generic_btf_ids set (the task kfuncs) is registered for (those
 * userbpf loads). */
static bool generic_kfunc_type(u32 type)
{
	switch (type) {
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_PERF_EVENT:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_CGROUP_SOCK:
	case BPF_PROG_TYPE_SOCK_OPS:
	case BPF_PROG_TYPE_CGROUP_DEVICE:
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
	case BPF_PROG_TYPE_CGROUP_SYSCTL:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_STRUCT_OPS:
	case BPF_PROG_TYPE_LSM:
	case BPF_PROG_TYPE_SYSCALL:
		return true;
	default:
		return false;
	}
}

/* Whether programs of type may call the kfunc (its set is registered for the type). */
static bool kfunc_type_allowed(const struct kfunc_desc *desc, u32 type)
{
	return !((desc->flags & KF_PKT_SKB) && !skb_dynptr_type(type)) &&
	       !((desc->flags & KF_PKT_XDP) && type != BPF_PROG_TYPE_XDP) &&
	       !((desc->flags & KF_GENERIC) && !generic_kfunc_type(type)) &&
	       !((desc->flags & KF_CPUMASK) && type != BPF_PROG_TYPE_TRACING &&
		 type != BPF_PROG_TYPE_STRUCT_OPS && type != BPF_PROG_TYPE_SYSCALL);
}

u32 kfunc_nargs(const struct verifier_env *env, const struct bpf_insn *in)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *func = btf && !in->off && in->imm > 0
					      ? btf_type_by_id(btf, (u32)in->imm) : NULL;
	const struct btf_type *proto = func ? btf_type_by_id(btf, func->type) : NULL;
	const struct kfunc_desc *desc = kfunc_of_insn(in);

	/* (the kernel's call summary fails for a kfunc the type may not call) */
	if (!proto || BTF_INFO_KIND(func->info) != BTF_KIND_FUNC ||
	    BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO ||
	    (desc && !kfunc_type_allowed(desc, env->prog->type)))
		return MAX_KFUNC_ARGS;
	return BTF_INFO_VLEN(proto->info) < MAX_KFUNC_ARGS ? BTF_INFO_VLEN(proto->info)
							   : MAX_KFUNC_ARGS;
}

/* A known-zero scalar (the kernel's register_is_null()). */
static bool reg_is_null(const struct reg_state *reg)
{
	return reg_is_const(reg) && !reg->s.var_off.value;
}

/* A memory argument with its size in the next parameter (named __sz, or __szk for a constant
 * the result depends on); NULL where the parameter is named __opt. */
static int kfunc_mem_size_arg(struct verifier_env *env, const struct kfunc_btf *k, u32 i,
			      struct kfunc_meta *meta)
{
	u32 regno = BPF_REG_1 + i;
	const struct reg_state *buf = &cur_regs(env)[regno], *size = buf + 1;
	int err;

	if (!reg_is_null(buf) || !str_ends(param_name(k, i), "__opt")) {
		err = check_mem_size_pair(env, regno + 1);
		if (err) {
			verbose(env, "arg#%u arg#%u memory, len pair leads to invalid memory "
				     "access\n", i, i + 1);
			return err;
		}
	} else {
		err = mark_precise_reg(env, regno);
		if (err)
			return err;
	}
	if (str_ends(param_name(k, i + 1), "__szk")) {
		if (!scalar_is_const(&size->s)) {
			verbose(env, "R%u must be a known constant\n", regno + 1);
			return -EINVAL;
		}
		err = mark_precise_reg(env, regno + 1);
		if (err)
			return err;
		meta->const_found = true;
		meta->const_value = size->s.var_off.value;
		if (buf->type == PTR_TO_STACK && scalar_is_const(&buf->s)) {
			meta->buf_found = true;
			meta->buf_frame = buf->frameno;
			meta->buf_off = (s16)(buf->off + (s64)buf->s.var_off.value);
		}
	}
	return 0;
}

int func_arg_reg_off(struct verifier_env *env, const struct reg_state *reg, u32 regno)
{
	if (reg->type != PTR_TO_STACK && reg->type != SCALAR_VALUE && !reg_is_pkt(reg) &&
	    reg->type != PTR_TO_MAP_VALUE && reg->type != PTR_TO_MAP_KEY && !reg_is_mem(reg) &&
	    reg->type != PTR_TO_RINGBUF_MEM)
		return check_ptr_off(env, reg, regno, false);
	return 0;
}

/* A pointer to a scalar or a struct of scalars (a struct cpumask) given something that is not
 * a kernel object (the kernel's KF_ARG_PTR_TO_MEM): memory of its size, read and written (NULL
 * passes here: the kfuncs that want their objects refused it before); a kfunc that wants
 * trusted arguments takes no such memory (6.18: "must be referenced or trusted"). */
static int kfunc_mem_arg(struct verifier_env *env, const struct kfunc_desc *desc, u32 i,
			 const struct btf_type *ref_t)
{
	u32 regno = BPF_REG_1 + i;
	const struct reg_state *reg = &cur_regs(env)[regno];
	int err;

	if (desc->flags & (KF_TRUSTED_ARGS | KF_RELEASE)) {
		verbose(env, "R%u must be referenced or trusted\n", regno);
		return -EINVAL;
	}
	err = func_arg_reg_off(env, reg, regno);
	if (err || reg_is_null(reg))
		return err;
	err = check_helper_mem(env, regno, (int)ref_t->size, true, false, false);
	return err ? err : check_helper_mem(env, regno, (int)ref_t->size, true, true, false);
}

/* The program's ctx (the kernel's KF_ARG_PTR_TO_CTX), unmodified. */
static int kfunc_ctx_arg(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	int err = func_arg_reg_off(env, reg, regno);

	if (err)
		return err;
	if (reg->type != PTR_TO_CTX) {
		verbose(env, "arg#%u expected pointer to ctx, but got %s\n", regno - 1,
			reg_type_str(reg->type));
		return -EINVAL;
	}
	return 0;
}

/* The struct a register points at as a kernel object: a PTR_TO_BTF_ID's, or the kernel's for
 * the socket and map pointers it also takes as such (its reg2btf_ids); 0 for any other. */
static u32 reg_struct_id(const struct reg_state *reg)
{
	const struct btf *btf = btf_vmlinux();
	const char *name;

	if (reg_is_btf_id(reg))
		return reg->btf_id;
	switch (reg->type) {
	case PTR_TO_SOCKET: name = "sock"; break;
	case PTR_TO_SOCK_COMMON: name = "sock_common"; break;
	case PTR_TO_TCP_SOCK: name = "tcp_sock"; break;
	case CONST_PTR_TO_MAP: name = "bpf_map"; break;
	default: return 0;
	}
	return btf ? btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT) : 0;
}

/* A pointer to a struct of scalars (arrays of them, such structs nested up to 3 deep): memory
 * a kfunc may take of any pointer kind (the kernel's __btf_type_is_scalar_struct()). */
static bool is_scalar_struct(const struct btf *btf, const struct btf_type *t, int depth)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1);

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT)
		return false;
	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		const struct btf_type *mt = btf_skip_modifiers(btf, m[i].type, NULL);

		if (mt && BTF_INFO_KIND(mt->info) == BTF_KIND_STRUCT) {
			if (depth >= 3 || !is_scalar_struct(btf, mt, depth + 1))
				return false;
			continue;
		}
		if (mt && BTF_INFO_KIND(mt->info) == BTF_KIND_ARRAY) {
			const struct btf_array *a = (const struct btf_array *)(mt + 1);

			if (!a->nelems)
				return false;
			mt = btf_skip_modifiers(btf, a->type, NULL);
		}
		if (!is_scalar(mt))
			return false;
	}
	return true;
}

/* A pointer to a kernel struct (the kernel's KF_ARG_PTR_TO_BTF_ID), given a kernel object's
 * pointer: as trusted as the kfunc asks (a release or trusted-args kfunc: trusted or holding a
 * reference; an RCU one: or RCU), at offset 0 for a release, and to that struct (or one that
 * begins with it; exactly it for a release). */
static int kfunc_btf_id_arg(struct verifier_env *env, const struct kfunc_btf *k,
			    const struct kfunc_desc *desc, u32 i, const struct btf_type *ref_t,
			    u32 ref_id)
{
	const struct reg_state *reg = &cur_regs(env)[BPF_REG_1 + i];
	u32 regno = BPF_REG_1 + i, reg_id = reg_struct_id(reg);
	bool release = (desc->flags & KF_RELEASE) && reg->ref_obj_id;
	bool trusted = reg_is_trusted_btf(reg) || !reg_is_btf_id(reg); /* (a socket, a map) */
	int err;

	if (BTF_INFO_KIND(ref_t->info) != BTF_KIND_STRUCT) {
		verbose(env, "kernel function %s args#%u pointer type %s %s is not supported\n",
			k->name, i, btf_kind_str(BTF_INFO_KIND(ref_t->info)),
			btf_str_by_offset(k->btf, ref_t->name_off) ?: "");
		return -EINVAL;
	}
	if (!(desc->flags & (KF_TRUSTED_ARGS | KF_RELEASE | KF_RCU)))
		goto check_struct;
	if (!trusted && !(desc->flags & KF_RCU)) {
		verbose(env, "R%u must be referenced or trusted\n", regno);
		return -EINVAL;
	}
	if (!trusted && reg->type != PTR_TO_BTF_ID_RCU) {
		verbose(env, "R%u must be a rcu pointer\n", regno);
		return -EINVAL;
	}
	if (release && reg->off) {
		verbose(env, "R%u must have zero offset when passed to release func or trusted arg "
			     "to kfunc\n", regno);
		return -EINVAL;
	}
	/* (a kernel object's fixed offset may point at a struct inside it) */
	err = check_ptr_off(env, reg, regno, !release && reg_is_btf_id(reg));
	if (err)
		return err;
check_struct:
	if (reg_is_btf_id(reg) && reg->type != PTR_TO_BTF_ID_RCU && !reg_is_trusted_btf(reg) &&
	    reg->type != PTR_TO_BTF_ID) {
		verbose(env, "arg#%u is %s expected %s or socket\n", i, reg_type_str(reg->type),
			reg_type_str(PTR_TO_BTF_ID));
		return -EINVAL;
	}
	/* (a release takes exactly the struct it acquired) */
	if (release ? reg->off || reg_id != ref_id
		    : !btf_ids_match(env, reg_id, reg->off, ref_id)) {
		verbose(env, "kernel function %s args#%u expected pointer to STRUCT %s but R%u has "
			     "a pointer to STRUCT %s\n", k->name, i,
			btf_str_by_offset(k->btf, ref_t->name_off) ?: "", regno,
			btf_id_name(reg_id));
		return -EINVAL;
	}
	return 0;
}

/* A __map argument (the kernel's KF_ARG_PTR_TO_MAP): a map, the one of the bpf_wq before it
 * (userbpf tracks no inner map's uid: 0 for all), trusted (a map value pointer, which has a map
 * too, is not). */
static int kfunc_map_arg(struct verifier_env *env, u32 i, struct kfunc_meta *meta)
{
	const struct reg_state *reg = &cur_regs(env)[BPF_REG_1 + i];
	u32 regno = BPF_REG_1 + i;

	if ((reg->type != CONST_PTR_TO_MAP && reg->type != PTR_TO_MAP_VALUE &&
	     reg->type != PTR_TO_MAP_KEY) || !reg->map) {
		verbose(env, "pointer in R%u isn't map pointer\n", regno);
		return -EINVAL;
	}
	if (meta->map && meta->map->task_work_off >= 0 && meta->map != reg->map) {
		verbose(env, "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 "
			     "map_uid=0\n");
		return -EINVAL;
	}
	if (meta->map && meta->map->wq_off >= 0 && meta->map != reg->map) {
		verbose(env, "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 "
			     "map_uid=0\n");
		return -EINVAL;
	}
	meta->map = reg->map;
	if (reg->type != CONST_PTR_TO_MAP) {
		verbose(env, "R%u must be referenced or trusted\n", regno);
		return -EINVAL;
	}
	return 0;
}

/* A struct bpf_wq * or struct bpf_task_work * argument (the kernel's KF_ARG_PTR_TO_WORKQUEUE,
 * _TASK_WORK): the map value's field name, whose map becomes the call's. */
static int kfunc_async_arg(struct verifier_env *env, u32 i, const char *name,
			   struct kfunc_meta *meta)
{
	const struct reg_state *reg = &cur_regs(env)[BPF_REG_1 + i];
	u32 regno = BPF_REG_1 + i;
	int err = func_arg_reg_off(env, reg, regno);

	if (err)
		return err;
	if (reg->type != PTR_TO_MAP_VALUE) {
		verbose(env, "arg#%u doesn't point to a map value\n", i);
		return -EINVAL;
	}
	err = check_map_field_ptr(env, regno, name,
				  strcmp(name, "bpf_wq") ? reg->map->task_work_off : reg->map->wq_off);
	if (err)
		return err;
	if (meta->map) {
		verbose(env, "verifier bug: Two map pointers in a %s helper\n", name);
		return -EFAULT;
	}
	meta->map = reg->map;
	return 0;
}

/* A callback argument (a pointer to a function prototype: the kernel's KF_ARG_PTR_TO_CALLBACK):
 * a static function of the program. */
static int kfunc_callback_arg(struct verifier_env *env, u32 i, struct kfunc_meta *meta)
{
	const struct reg_state *reg = &cur_regs(env)[BPF_REG_1 + i];
	int err = func_arg_reg_off(env, reg, BPF_REG_1 + i);

	if (err)
		return err;
	if (reg->type != PTR_TO_FUNC) {
		verbose(env, "arg%u expected pointer to func\n", i);
		return -EINVAL;
	}
	meta->subprogno = (int)reg->subprogno;
	return 0;
}

/* Where bpf_iter_css_task_new() may be called (the kernel's check_css_task_iter_allowlist()):
 * LSM programs, BPF iterators, sleepable programs. */
static bool css_task_iter_allowed(const struct verifier_env *env)
{
	return env->prog->type == BPF_PROG_TYPE_LSM ||
	       (env->prog->type == BPF_PROG_TYPE_TRACING &&
		env->prog->expected_attach_type == BPF_TRACE_ITER) ||
	       in_sleepable(env);
}

/* An iterator kfunc's first argument: a pointer to its struct bpf_iter_<type> on the stack. */
static int kfunc_iter_arg(struct verifier_env *env, const struct kfunc_btf *k,
			  const struct kfunc_desc *desc, const struct btf_type *t,
			  struct kfunc_meta *meta, int insn_idx)
{
	u32 btf_id;
	const struct btf_type *s = btf_skip_modifiers(k->btf, t->type, &btf_id);
	enum iter_op op = desc->flags & KF_ITER_NEW    ? ITER_OP_NEW
			  : desc->flags & KF_ITER_NEXT ? ITER_OP_NEXT
						       : ITER_OP_DESTROY;

	if (!s || BTF_INFO_KIND(s->info) != BTF_KIND_STRUCT || s->size % SLOT_SIZE || !s->size) {
		verbose(env, "expected valid iter pointer as arg #0\n");
		return -EINVAL;
	}
	meta->iter_frameno = cur_regs(env)[BPF_REG_1].frameno;
	return iter_arg(env, BPF_REG_1, op, btf_id, (int)(s->size / SLOT_SIZE), insn_idx,
			desc->flags & KF_RCU_PROTECTED, k->name, &meta->ref_obj_id,
			&meta->iter_spi);
}

static int check_kfunc_args(struct verifier_env *env, const struct kfunc_btf *k,
			    const struct kfunc_desc *desc, struct kfunc_meta *meta, int insn_idx)
{
	u32 nargs = BTF_INFO_VLEN(k->proto->info);

	if (nargs > MAX_KFUNC_ARGS) {
		verbose(env, "Function %s has %u > %d args\n", k->name, nargs, MAX_KFUNC_ARGS);
		return -EINVAL;
	}
	for (u32 i = 0; i < nargs; i++) {
		const struct btf_type *t = param_type(k, i);
		u32 regno = BPF_REG_1 + i;
		int err;

		/* an __ign argument is not checked at all, whatever the register holds (the
		 * string kfuncs read their strings without faulting) */
		if (str_ends(param_name(k, i), "__ign"))
			continue;
		/* a __prog parameter gets the program itself, whatever the register holds: the
		 * engines load it before the call (kfunc_owner_reg()) */
		if (str_ends(param_name(k, i), "__prog")) {
			if (meta->arg_prog) {
				verbose(env, "verifier bug: Only 1 prog->aux argument supported "
					     "per-kfunc\n");
				return -EFAULT;
			}
			meta->arg_prog = true;
			continue;
		}
		if (is_scalar(t)) {
			const struct reg_state *reg = &cur_regs(env)[regno];

			if (reg->type != SCALAR_VALUE) {
				verbose(env, "R%u is not a scalar\n", regno);
				return -EINVAL;
			}
			/* a __k constant (bpf_rdonly_cast()'s type id): known, and precise */
			if (str_ends(param_name(k, i), "__k")) {
				if (!scalar_is_const(&reg->s)) {
					verbose(env, "R%u must be a known constant\n", regno);
					return -EINVAL;
				}
				err = mark_precise_reg(env, regno);
				if (err)
					return err;
				meta->const_found = true;
				meta->const_value = reg->s.var_off.value;
			}
			continue;
		}
		if (!is_ptr(t)) {
			verbose(env, "Unrecognized arg#%u type %s\n", i,
				btf_kind_str(t ? BTF_INFO_KIND(t->info) : 0));
			return -EINVAL;
		}
		const struct reg_state *reg = &cur_regs(env)[regno];
		u32 ref_id;
		const struct btf_type *ref_t = btf_skip_modifiers(k->btf, t->type, &ref_id);

		/* 6.18.44 holds every kfunc's pointers to this (only __opt ones may be NULL) */
		if ((reg_is_null(reg) || reg_may_be_null(reg)) &&
		    !str_ends(param_name(k, i), "__opt") &&
		    !str_ends(param_name(k, i), "__nullable")) {
			verbose(env, "Possibly NULL pointer passed to trusted arg%u\n", i);
			return -EACCES;
		}
		/* a NULL a __nullable parameter takes (the kernel's KF_ARG_PTR_TO_NULL): a
		 * value the kfunc acts on, so precise */
		if (str_ends(param_name(k, i), "__nullable") && reg_is_null(reg)) {
			err = mark_precise_reg(env, regno);
			if (err)
				return err;
			continue;
		}
		if (reg->ref_obj_id) {
			if ((desc->flags & KF_RELEASE) && meta->ref_obj_id) {
				verbose(env, "verifier internal error: more than one arg with "
					     "ref_obj_id R%u %u %u\n", regno, reg->ref_obj_id,
					meta->ref_obj_id);
				return -EFAULT;
			}
			meta->ref_obj_id = reg->ref_obj_id;
			if (desc->flags & KF_RELEASE)
				meta->release_regno = regno;
		}
		if (i == 0 && (desc->flags & (KF_ITER_NEW | KF_ITER_NEXT | KF_ITER_DESTROY))) {
			/* (the tasks of a cgroup: where the kernel's walk cannot deadlock) */
			if (!strcmp(k->name, "bpf_iter_css_task_new") && !css_task_iter_allowed(env)) {
				verbose(env, "css_task_iter is only allowed in bpf_lsm, bpf_iter and "
					     "sleepable progs\n");
				return -EINVAL;
			}
			err = kfunc_iter_arg(env, k, desc, t, meta, insn_idx);
		} else if (ctx_type_name(env->prog->type, false) &&
			   points_to_struct(k, t, ctx_type_name(env->prog->type, false))) {
			err = kfunc_ctx_arg(env, regno);
		} else if (points_to_struct(k, t, "bpf_dynptr")) {
			err = kfunc_dynptr_arg(env, k, desc, i, meta, insn_idx);
			/* A kfunc writing into an skb's dynptr (its first parameter, not const:
			 * bpf_dynptr_memset(), _copy()'s destination, the probe reads' into one)
			 * may make the skb writable, which can move its data: 6.18.44 forgets the
			 * packet pointers then, as after bpf_dynptr_write() (found by the
			 * soundness run, seed 0x6cac6a).  A const one (_adjust(), _clone(),
			 * _size(), _slice()) or the copy's source does not. */
			if (!err && i == 0 && meta->dynptr_type == DYNPTR_TYPE_SKB &&
			    !points_to_const(k, t))
				meta->writes_skb = true;
		} else if (str_ends(param_name(k, i), "__str")) {
			/* a constant string (the kernel's KF_ARG_PTR_TO_CONST_STR) */
			err = func_arg_reg_off(env, reg, regno);
			if (!err && reg->type != PTR_TO_MAP_VALUE) {
				verbose(env, "arg#%u doesn't point to a const string\n", i);
				err = -EINVAL;
			}
			if (!err)
				err = check_const_str(env, regno);
		} else if (str_ends(param_name(k, i), "__map")) {
			err = kfunc_map_arg(env, i, meta);
		} else if (points_to_struct(k, t, "bpf_wq")) {
			err = kfunc_async_arg(env, i, "bpf_wq", meta);
		} else if (points_to_struct(k, t, "bpf_task_work")) {
			err = kfunc_async_arg(env, i, "bpf_task_work", meta);
		} else if (reg_struct_id(reg) && ref_t) {
			err = kfunc_btf_id_arg(env, k, desc, i, ref_t, ref_id);
		} else if (ref_t && BTF_INFO_KIND(ref_t->info) == BTF_KIND_FUNC_PROTO) {
			err = kfunc_callback_arg(env, i, meta);
		} else if (i + 1 < nargs && (str_ends(param_name(k, i + 1), "__sz") ||
					     str_ends(param_name(k, i + 1), "__szk"))) {
			err = kfunc_mem_size_arg(env, k, i, meta);
			i++; /* the size went with it */
		} else if (!is_scalar(ref_t) && !is_scalar_struct(k->btf, ref_t, 0)) {
			verbose(env, "arg#%u pointer type %s %s must point to scalar, or struct "
				     "with scalar\n", i,
				btf_kind_str(ref_t ? BTF_INFO_KIND(ref_t->info) : 0),
				ref_t ? btf_str_by_offset(k->btf, ref_t->name_off) ?: "" : "");
			err = -EINVAL;
		} else {
			err = kfunc_mem_arg(env, desc, i, ref_t);
		}
		if (err)
			return err;
	}
	if ((desc->flags & KF_RELEASE) && !meta->release_regno) {
		verbose(env, "release kernel function %s expects refcounted PTR_TO_BTF_ID\n",
			k->name);
		return -EINVAL;
	}
	return 0;
}

/* bpf_rdonly_cast(obj, btf_id)'s R0: obj seen as a read-only pointer to the kernel's struct
 * btf_id (untrusted: its loads are probe loads, which read 0 where nothing is), or with id 0
 * (void) as untrusted read-only memory of any size. */
static int rdonly_cast_ret(struct verifier_env *env, const struct kfunc_btf *k,
			   const struct kfunc_meta *meta)
{
	struct reg_state *r0 = &cur_regs(env)[BPF_REG_0];
	const struct btf_type *t = meta->const_value <= UINT32_MAX
					   ? btf_type_by_id(k->btf, (u32)meta->const_value)
					   : NULL;
	u32 kind = t ? BTF_INFO_KIND(t->info) : 0;

	if (meta->const_value == 0) {
		mark_ptr(r0, PTR_TO_RDONLY_UNTRUSTED_MEM);
		r0->mem_size = 0;
	} else if (!t) {
		verbose(env, "Unknown type ID %lld passed to kfunc bpf_rdonly_cast\n",
			(long long)meta->const_value);
		return -EINVAL;
	} else if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION) {
		mark_ptr(r0, PTR_TO_BTF_ID_UNTRUSTED);
		r0->btf_id = (u32)meta->const_value;
	} else {
		verbose(env, "kfunc bpf_rdonly_cast type ID argument must be of a struct or "
			     "void\n");
		return -EINVAL;
	}
	return 0;
}

int check_kfunc_call(struct verifier_env *env, const struct bpf_insn *insn, int insn_idx)
{
	struct reg_state *regs = cur_regs(env);
	struct kfunc_meta meta = { .subprogno = -1 };
	const struct kfunc_desc *desc;
	const struct btf_type *ret;
	struct kfunc_btf k;
	int err;

	env->scratched[BPF_REG_0] = true; /* (the kernel's log shows R0 after any kfunc call) */
	if (!insn->imm) /* refused after the walk if it is reachable (bpf_check()) */
		return 0;
	err = kfunc_btf_of(env, insn->imm, insn->off, &k);
	if (err)
		return err;
	desc = kfunc_by_name(k.name);
	if (!desc) {
		if (!btf_is_kfunc(k.btf, (u32)insn->imm)) {
			verbose(env, "calling kernel function %s is not allowed\n", k.name);
			return -EACCES;
		}
		verbose(env, "kernel function %s is not supported by userbpf\n", k.name);
		return -EOPNOTSUPP;
	}
	if (!kfunc_type_allowed(desc, env->prog->type)) {
		verbose(env, "calling kernel function %s is not allowed\n", k.name);
		return -EACCES;
	}
	if ((desc->flags & KF_SLEEPABLE) && !in_sleepable(env)) {
		verbose(env, "program must be sleepable to call sleepable kfunc %s\n", k.name);
		return -EACCES;
	}
	err = check_kfunc_args(env, &k, desc, &meta, insn_idx);
	if (err)
		return err;
	if (!strcmp(k.name, "bpf_wq_set_callback_impl") ||
	    !strncmp(k.name, "bpf_task_work_schedule_", 23)) {
		/* (6.18.44 runs a work item's and task work's callbacks as sleepable code, and
		 * takes them from sleepable programs only) */
		if (!in_sleepable(env)) {
			verbose(env, "sleepable callback in a program that is not sleepable\n");
			err = -EPERM;
		} else {
			err = push_async_callback(env, insn_idx, meta.subprogno, meta.map);
		}
		if (err) {
			verbose(env, "kfunc %s#%d failed callback verification\n", k.name, insn->imm);
			return err;
		}
		/* (task work's callback may return any int) */
		env->subprog[meta.subprogno].async_any_return = k.name[4] == 't';
	}
	/* (after its arguments, as the kernel checks) */
	if ((desc->flags & KF_RCU_PROTECTED) && !in_rcu_cs(env)) {
		verbose(env, "kernel func %s requires RCU critical section protection\n", k.name);
		return -EACCES;
	}
	if ((desc->flags & KF_SLEEPABLE) &&
	    (env->cur->active_rcu_lock || env->cur->active_preempt_locks)) {
		verbose(env, "kernel func %s is sleepable within %s region\n", k.name,
			env->cur->active_rcu_lock ? "rcu_read_lock" : "non-preemptible");
		return -EACCES;
	}
	if (env->cur->active_rcu_lock && (desc->flags & KF_RCU_LOCK)) {
		verbose(env, "nested rcu read lock (kernel function %s)\n", k.name);
		return -EINVAL;
	}
	if (!env->cur->active_rcu_lock && (desc->flags & KF_RCU_UNLOCK)) {
		verbose(env, "unmatched rcu read unlock (kernel function %s)\n", k.name);
		return -EINVAL;
	}
	if (desc->flags & KF_RCU_UNLOCK) {
		btf_rcu_unlock(env);
		iter_rcu_unlock(env);
	}
	if (desc->flags & (KF_RCU_LOCK | KF_RCU_UNLOCK))
		env->cur->active_rcu_lock = desc->flags & KF_RCU_LOCK;
	/* preemption off nests: each enable matches a disable */
	if (desc->flags & KF_PREEMPT_OFF)
		env->cur->active_preempt_locks++;
	if (desc->flags & KF_PREEMPT_ON) {
		if (!env->cur->active_preempt_locks) {
			verbose(env, "unmatched attempt to enable preemption (kernel function %s)\n",
				k.name);
			return -EINVAL;
		}
		env->cur->active_preempt_locks--;
	}
	/* the reference ends: every copy of the pointer becomes a scalar */
	if (meta.release_regno)
		release_ref(env, env->cur, regs[meta.release_regno].ref_obj_id, true);

	clobber_caller_saved(env, regs);
	if (meta.writes_skb)
		clear_all_pkt_pointers(env);
	if (!strcmp(k.name, "bpf_rdonly_cast"))
		return rdonly_cast_ret(env, &k, &meta);
	ret = btf_skip_modifiers(k.btf, k.proto->type, NULL);
	if (!ret) {
		mark_reg_not_init(&regs[BPF_REG_0]); /* void */
		return 0;
	}
	if (is_scalar(ret)) {
		mark_reg_unknown(&regs[BPF_REG_0]);
		return 0;
	}
	u32 ret_id;
	const struct btf_type *pointee = is_ptr(ret) ? btf_skip_modifiers(k.btf, ret->type, &ret_id)
						     : NULL;
	bool ret_struct = pointee && BTF_INFO_KIND(pointee->info) == BTF_KIND_STRUCT;

	if ((desc->flags & KF_ACQUIRE) && !ret_struct) {
		verbose(env, "acquire kernel function does not return PTR_TO_BTF_ID\n");
		return -EINVAL;
	}
	if (!strcmp(k.name, "bpf_dynptr_slice") || !strcmp(k.name, "bpf_dynptr_slice_rdwr")) {
		if (!meta.const_found) {
			verbose(env, "verifier internal error: bpf_dynptr_slice(_rdwr) no constant "
				     "size\n");
			return -EFAULT;
		}
		if (!strcmp(k.name, "bpf_dynptr_slice_rdwr")) {
			/* 6.18.44 refuses it whatever the program type and the dynptr */
			verbose(env, "bpf_dynptr_slice_rdwr() is not allowed\n");
			return -EPERM;
		}
		mark_ptr(&regs[BPF_REG_0], PTR_TO_RDONLY_MEM);
		regs[BPF_REG_0].mem_size = (u32)meta.const_value;
		/* (6.18.44 ties the slice to the dynptr's reference, not to the dynptr: an
		 * overwritten local dynptr leaves it, its memory being there still) */
		regs[BPF_REG_0].ref_obj_id = meta.dynptr_ref;
		/* a packet's slice goes with the packet pointers (clear_all_pkt_pointers()) */
		if (meta.dynptr_type == DYNPTR_TYPE_SKB || meta.dynptr_type == DYNPTR_TYPE_XDP)
			regs[BPF_REG_0].dynptr_type = meta.dynptr_type;
		if (meta.buf_found) {
			regs[BPF_REG_0].buf_frame = meta.buf_frame;
			regs[BPF_REG_0].buf_off = meta.buf_off;
			regs[BPF_REG_0].buf_size = (u16)meta.const_value;
		}
	} else if (ret_struct) {
		/* a kernel object: trusted only while it holds a reference. An iterator's is
		 * RCU-protected where the iterator is (in the RCU section), otherwise untrusted:
		 * the kernel here (6.18.44-fc) walks memory areas and a cgroup's tasks without
		 * holding them, so what next() returns may go at any time */
		mark_ptr(&regs[BPF_REG_0], PTR_TO_BTF_ID);
		if (desc->flags & KF_ITER_NEXT)
			regs[BPF_REG_0].type =
				env->cur->frame[meta.iter_frameno]->stack[meta.iter_spi]
						.spilled.iter_rcu ? PTR_TO_BTF_ID_RCU
								  : PTR_TO_BTF_ID_UNTRUSTED;
		regs[BPF_REG_0].btf_id = ret_id;
	} else {
		u32 size;
		const struct btf_type *p = btf_skip_modifiers(k.btf, ret->type, NULL);

		if (!p) {
			mark_reg_unknown(&regs[BPF_REG_0]); /* a void * is a scalar */
			return 0;
		}
		/* a pointer to a scalar (bpf_iter_num_next()'s int *): read-only memory of its
		 * size, gone with the reference the arguments held */
		size = is_scalar(p) ? p->size : 0;
		if (!size) {
			verbose(env, "kernel function %s returns pointer type %s %s is not "
				     "supported\n", k.name, btf_kind_str(BTF_INFO_KIND(p->info)),
				btf_str_by_offset(k.btf, p->name_off) ?: "");
			return -EINVAL;
		}
		mark_ptr(&regs[BPF_REG_0], PTR_TO_RDONLY_MEM);
		regs[BPF_REG_0].mem_size = size;
		regs[BPF_REG_0].ref_obj_id = meta.ref_obj_id;
	}
	if (desc->flags & KF_RET_NULL) {
		regs[BPF_REG_0].type = reg_type_or_null(regs[BPF_REG_0].type);
		regs[BPF_REG_0].id = ++env->id_gen;
	}
	if (desc->flags & KF_ACQUIRE) {
		u32 ref;

		err = acquire_ref(env, insn_idx, &ref);
		if (err)
			return err;
		if (desc->flags & KF_RET_NULL)
			regs[BPF_REG_0].id = ref; /* (its NULL check ends the reference) */
		regs[BPF_REG_0].ref_obj_id = ref;
	}
	if (desc->flags & KF_ITER_NEXT)
		return iter_next_fork(env, insn_idx, meta.iter_frameno, meta.iter_spi);
	return 0;
}
