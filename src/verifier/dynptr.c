/* Dynptrs: struct bpf_dynptr objects on the stack (the kernel's ARG_PTR_TO_DYNPTR handling).
 *
 * A dynptr is 16 bytes at an 8-aligned constant stack offset: two slots typed STACK_DYNPTR whose
 * spilled states carry its kind (local: over a map value, bpf_dynptr_from_mem(); ring buffer: a
 * reserved record, bpf_ringbuf_reserve_dynptr(); a packet's, bpf_dynptr_from_skb()/_xdp(); a
 * bpf_dynptr_clone(): its parent's kind and reference (check_kfunc.c)), which slot is the first
 * (the one the pointer points at: the higher slot index), and one id shared by both.  A ring
 * buffer dynptr is a reference (ref_obj_id): it must be submitted or discarded before the
 * program ends, even when the reservation failed, and then both slots become invalid, as does
 * every slice (bpf_dynptr_data()'s PTR_TO_MEM, which carries the dynptr's id and reference).
 *
 * The program cannot read a dynptr's bytes, and a store into either slot destroys a local one
 * (its slices become unusable) but is refused for a ring buffer one, whose reference would be
 * lost.  A helper that makes a dynptr first stores 8 bytes twice, as the kernel's does, so the
 * usual stack write rules apply to the slots; one that only reads it marks both slots read.
 */
#include <errno.h>

#include "exec/helpers.h"
#include "verifier/dynptr.h"
#include "verifier/env.h"

#define DYNPTR_SLOTS 2

const char *dynptr_type_str(u8 type)
{
	switch (type) {
	case DYNPTR_TYPE_LOCAL:
		return "local";
	case DYNPTR_TYPE_RINGBUF:
		return "ringbuf";
	case DYNPTR_TYPE_SKB:
		return "skb";
	case DYNPTR_TYPE_XDP:
		return "xdp";
	default:
		return "<invalid>";
	}
}

static struct func_state *frame_of(struct verifier_env *env, const struct reg_state *reg)
{
	return env->cur->frame[reg->frameno];
}

static void scratch_slot(struct verifier_env *env, const struct func_state *f, int spi)
{
	if (f == cur_frame(env) && spi < 64)
		env->scratched_slots |= 1ull << spi;
}

int stack_obj_spi(struct verifier_env *env, const struct reg_state *reg, const char *kind,
		  int nr_slots)
{
	s64 off;
	int spi;

	if (!scalar_is_const(&reg->s)) {
		verbose(env, "%s has to be at a constant offset\n", kind);
		return -EINVAL;
	}
	off = reg->off + (s64)reg->s.var_off.value;
	if (off % SLOT_SIZE) {
		verbose(env, "cannot pass in %s at an offset=%d\n", kind, (int)off);
		return -EINVAL;
	}
	spi = (int)((-off - 1) / SLOT_SIZE);
	if (spi + 1 < nr_slots) {
		verbose(env, "cannot pass in %s at an offset=%d\n", kind, (int)off);
		return -EINVAL;
	}
	if (spi - nr_slots + 1 < 0 || (u32)spi >= frame_of(env, reg)->allocated)
		return -ERANGE;
	return spi;
}

static int dynptr_spi(struct verifier_env *env, const struct reg_state *reg)
{
	return stack_obj_spi(env, reg, "dynptr", DYNPTR_SLOTS);
}

static void slot_set(struct stack_slot *sl, u8 type)
{
	for (int j = 0; j < SLOT_SIZE; j++)
		sl->type[j] = type;
}

/* Both slots of the dynptr at spi become never-written stack. */
static void clear_slots(struct verifier_env *env, struct func_state *f, int spi)
{
	for (int i = 0; i < DYNPTR_SLOTS; i++) {
		slot_set(&f->stack[spi - i], STACK_INVALID);
		mark_reg_not_init(&f->stack[spi - i].spilled);
		sl_mark_write(env, f->frameno, (u32)(spi - i));
	}
}

struct slice_arg {
	u32 dynptr_id;
};

static void forget_slice(struct reg_state *reg, void *p)
{
	const struct slice_arg *a = p;

	if (reg_is_mem(reg) && reg->dynptr_id == a->dynptr_id)
		mark_reg_unknown(reg); /* (privileged: an unknown scalar, as the kernel's) */
}

int destroy_dynptr_slot(struct verifier_env *env, struct func_state *f, int spi)
{
	struct slice_arg a;

	if ((u32)spi >= f->allocated || f->stack[spi].type[0] != STACK_DYNPTR)
		return 0;
	if (!f->stack[spi].spilled.dynptr_first)
		spi++;
	if (f->stack[spi].spilled.dynptr_type == DYNPTR_TYPE_RINGBUF) {
		verbose(env, "cannot overwrite referenced dynptr\n");
		return -EINVAL;
	}
	scratch_slot(env, f, spi);
	scratch_slot(env, f, spi - 1);
	a.dynptr_id = f->stack[spi].spilled.id;
	clear_slots(env, f, spi);
	for_each_reg(env->cur, forget_slice, &a);
	return 0;
}

/* A helper that makes a dynptr: two 8-byte stores of unknown data (which grow the stack and
 * destroy what was there, or refuse to), then the slots' new state. */
static int init_dynptr(struct verifier_env *env, u32 regno, u8 type, int insn_idx, u32 clone_ref)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct func_state *f = frame_of(env, reg);
	u32 id, ref = 0;
	int spi, err;

	spi = dynptr_spi(env, reg);
	if (spi < 0 && spi != -ERANGE) {
		verbose(env, "Dynptr has to be an uninitialized dynptr\n");
		return -EINVAL;
	}
	for (int off = 0; off < DYNPTR_SLOTS * SLOT_SIZE; off += SLOT_SIZE) {
		err = check_stack_store(env, regno, off, SLOT_SIZE, &env->insns[insn_idx]);
		if (err)
			return err;
	}
	spi = dynptr_spi(env, reg);
	if (spi < 0)
		return spi;
	for (int i = 0; i < DYNPTR_SLOTS; i++) {
		err = destroy_dynptr_slot(env, f, spi - i);
		if (err)
			return err;
	}
	id = ++env->id_gen;
	if (type == DYNPTR_TYPE_RINGBUF && clone_ref) {
		ref = clone_ref; /* a clone shares its parent's record */
	} else if (type == DYNPTR_TYPE_RINGBUF) {
		err = acquire_ref(env, insn_idx, &ref);
		if (err)
			return err;
	}
	for (int i = 0; i < DYNPTR_SLOTS; i++) {
		struct reg_state *st = &f->stack[spi - i].spilled;

		slot_set(&f->stack[spi - i], STACK_DYNPTR);
		mark_reg_not_init(st); /* (no register: only its fields below mean anything) */
		st->id = id;
		/* 6.18 shows "dynptr_id=1" at every dynptr: in its struct bpf_reg_state a slice's
		 * dynptr_id shares its bytes with a dynptr's first_slot flag */
		st->dynptr_id = i == 0;
		st->ref_obj_id = ref;
		st->dynptr_type = type;
		st->dynptr_first = i == 0;
		sl_mark_write(env, f->frameno, (u32)(spi - i));
	}
	return 0;
}

/* The first slot of the initialised dynptr reg points at, or -1. */
static int valid_dynptr(struct verifier_env *env, const struct reg_state *reg)
{
	const struct func_state *f = frame_of(env, reg);
	int spi = dynptr_spi(env, reg);

	if (spi < 0 || !f->stack[spi].spilled.dynptr_first)
		return -1;
	for (int i = 0; i < DYNPTR_SLOTS; i++)
		for (int j = 0; j < SLOT_SIZE; j++)
			if (f->stack[spi - i].type[j] != STACK_DYNPTR)
				return -1;
	return spi;
}

void mark_const_dynptr(struct verifier_env *env, struct reg_state *reg, u8 type)
{
	mark_ptr(reg, CONST_PTR_TO_DYNPTR);
	reg->dynptr_type = type;
	reg->id = ++env->id_gen;
}

/* A dynptr the program was given (a user ring buffer callback's): whole, at no offset, never
 * made, mutated or released by the program. */
static int check_const_dynptr_arg(struct verifier_env *env, u32 regno, int arg_type)
{
	int err;

	if (arg_type == ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE) {
		verbose(env, "cannot release unowned const bpf_dynptr\n");
		return -EINVAL;
	}
	err = check_ptr_off(env, &cur_regs(env)[regno], regno, false);
	if (err)
		return err;
	if (arg_type == ARG_PTR_TO_DYNPTR_LOCAL_UNINIT ||
	    arg_type == ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT) {
		verbose(env, "Dynptr has to be an uninitialized dynptr\n");
		return -EINVAL;
	}
	return 0; /* (ARG_PTR_TO_DYNPTR_RDONLY takes any kind) */
}

int check_dynptr_arg(struct verifier_env *env, u32 regno, int arg_type, int insn_idx)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct func_state *f = frame_of(env, reg);
	int spi, err;

	if (reg->type != PTR_TO_STACK && reg->type != CONST_PTR_TO_DYNPTR) {
		verbose(env, "R%u type=%s expected=fp, dynptr_ptr\n", regno, reg_type_str(reg->type));
		return -EACCES;
	}
	if (reg->type == CONST_PTR_TO_DYNPTR)
		return check_const_dynptr_arg(env, regno, arg_type);
	if (arg_type == ARG_PTR_TO_DYNPTR_LOCAL_UNINIT)
		return init_dynptr(env, regno, DYNPTR_TYPE_LOCAL, insn_idx, 0);
	if (arg_type == ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT)
		return init_dynptr(env, regno, DYNPTR_TYPE_RINGBUF, insn_idx, 0);
	/* a release wants the reference before anything else (its own arg number: regno) */
	if (arg_type == ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE) {
		spi = dynptr_spi(env, reg);
		if (spi < 0 || !f->stack[spi].spilled.ref_obj_id) {
			verbose(env, "arg %u is an unacquired reference\n", regno);
			return -EINVAL;
		}
	}
	spi = valid_dynptr(env, reg);
	if (spi < 0) {
		verbose(env, "Expected an initialized dynptr as arg #%u\n", regno - 1);
		return -EINVAL;
	}
	if (arg_type == ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE &&
	    f->stack[spi].spilled.dynptr_type != DYNPTR_TYPE_RINGBUF) {
		verbose(env, "Expected a dynptr of type %s as arg #%u\n",
			dynptr_type_str(DYNPTR_TYPE_RINGBUF), regno - 1);
		return -EINVAL;
	}
	for (int i = 0; i < DYNPTR_SLOTS; i++) {
		err = sl_mark_read(env, f->frameno, (u32)(spi - i));
		if (err)
			return err;
		scratch_slot(env, f, spi - i);
	}
	return 0;
}

int check_dynptr_arg_reg(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	int err;

	/* pointers that may not be offset here (the kernel's check_func_arg_reg_off()) */
	switch (reg->type) {
	case SCALAR_VALUE:
	case PTR_TO_STACK:
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
	case PTR_TO_MAP_KEY:
	case PTR_TO_MAP_VALUE:
	case PTR_TO_MEM:
	case PTR_TO_RDONLY_MEM:
	case PTR_TO_RINGBUF_MEM:
		break;
	default:
		err = check_ptr_off(env, reg, regno, false);
		if (err)
			return err;
	}
	if (reg->type != PTR_TO_STACK && reg->type != CONST_PTR_TO_DYNPTR) {
		verbose(env, "arg#%u expected pointer to stack or const struct bpf_dynptr\n",
			regno - 1);
		return -EINVAL;
	}
	return 0;
}

int check_global_dynptr_arg(struct verifier_env *env, u32 regno)
{
	int err = check_dynptr_arg_reg(env, regno);

	return err ? err : check_dynptr_arg(env, regno, ARG_PTR_TO_DYNPTR_RDONLY, -1);
}

int make_dynptr_arg(struct verifier_env *env, u32 regno, u8 type, u32 clone_ref, int insn_idx)
{
	return init_dynptr(env, regno, type, insn_idx, clone_ref);
}

u8 dynptr_arg_type(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	int spi;

	if (reg->type == CONST_PTR_TO_DYNPTR)
		return reg->dynptr_type;
	spi = dynptr_spi(env, reg);
	return spi < 0 ? DYNPTR_TYPE_INVALID : frame_of(env, reg)->stack[spi].spilled.dynptr_type;
}

int release_dynptr_arg(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct func_state *f = frame_of(env, reg);
	int spi = dynptr_spi(env, reg);
	u32 ref;

	if (spi < 0)
		return spi;
	ref = f->stack[spi].spilled.ref_obj_id;
	/* the record goes, and with it every slice of it ... */
	release_ref(env, env->cur, ref, true);
	/* ... and every dynptr that shares the reference */
	for (u32 i = 1; i < f->allocated; i++) {
		struct stack_slot *sl = &f->stack[i];

		if (sl->spilled.ref_obj_id != ref)
			continue;
		if (sl->type[0] != STACK_DYNPTR) {
			verbose(env, "verifier internal error: misconfigured ref_obj_id\n");
			return -EFAULT;
		}
		if (sl->spilled.dynptr_first)
			clear_slots(env, f, (int)i);
	}
	return 0;
}

int dynptr_arg_ids(struct verifier_env *env, u32 regno, u32 *id, u32 *ref_obj_id)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	const struct func_state *f = frame_of(env, reg);
	int spi;

	if (reg->type == CONST_PTR_TO_DYNPTR) {
		*id = reg->id;
		*ref_obj_id = reg->ref_obj_id;
		return 0;
	}
	spi = dynptr_spi(env, reg);

	if (spi < 0) {
		verbose(env, "verifier internal error: failed to obtain dynptr id\n");
		return -EFAULT;
	}
	*id = f->stack[spi].spilled.id;
	*ref_obj_id = f->stack[spi].spilled.ref_obj_id;
	return 0;
}
