/* Open-coded iterators (iter.h): struct bpf_iter_<type> on the stack, as 6.18.44 verifies them.
 *
 * An iterator lives in its struct's 8-byte slots, typed STACK_ITER, whose spilled states carry
 * its kind (the struct's kernel BTF id), its state and depth; the first (upper) slot holds its
 * reference, which _new() acquires and _destroy() releases, so an iterator left undestroyed is a
 * leak at exit.  _next() forks the walk: one path sees the iterator drained and NULL, the other
 * (pushed) one more round with the iterator active and a pointer.  The rounds end when a round's
 * state at the _next() call is contained (RANGE_WITHIN) in an earlier round's there while the
 * iterator is active (states.c): the loop then converges like a bpf_loop() callback's rounds.
 * Each round's imprecise scalars that changed are widened to unknown against the round before,
 * so that loop counters converge.
 */
#include <errno.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "verifier/iter.h"

static struct func_state *frame_of(struct verifier_env *env, const struct reg_state *reg)
{
	return env->cur->frame[reg->frameno];
}

static void scratch_slot(struct verifier_env *env, const struct func_state *f, int spi)
{
	if (f == cur_frame(env) && spi < 64)
		env->scratched_slots |= 1ull << spi;
}

const char *iter_type_str(u32 btf_id)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t = btf ? btf_type_by_id(btf, btf_id) : NULL;
	const char *n = t ? btf_str_by_offset(btf, t->name_off) : NULL;

	if (!n)
		return "<invalid>";
	return strncmp(n, "bpf_iter_", 9) ? n : n + 9;
}

/* No slot of the nr_slots from spi is part of an iterator (beyond the stack: none is). */
static bool valid_uninit(struct verifier_env *env, const struct reg_state *reg, int nr_slots)
{
	const struct func_state *f = frame_of(env, reg);
	int spi = stack_obj_spi(env, reg, "iter", nr_slots);

	if (spi == -ERANGE)
		return true;
	if (spi < 0)
		return false;
	for (int i = 0; i < nr_slots; i++)
		for (int j = 0; j < SLOT_SIZE; j++)
			if (f->stack[spi - i].type[j] == STACK_ITER)
				return false;
	return true;
}

/* An iterator of kind btf_id is at spi: the reference in its first slot only. */
static bool valid_init(struct verifier_env *env, const struct reg_state *reg, u32 btf_id,
		       int nr_slots)
{
	const struct func_state *f = frame_of(env, reg);
	int spi = stack_obj_spi(env, reg, "iter", nr_slots);

	if (spi < 0)
		return false;
	for (int i = 0; i < nr_slots; i++) {
		const struct stack_slot *sl = &f->stack[spi - i];

		if (!sl->spilled.ref_obj_id != (i != 0) || sl->spilled.iter_btf_id != btf_id)
			return false;
		for (int j = 0; j < SLOT_SIZE; j++)
			if (sl->type[j] != STACK_ITER)
				return false;
	}
	return true;
}

static int make_iter(struct verifier_env *env, u32 regno, u32 btf_id, int nr_slots, int insn_idx,
		     bool rcu)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct func_state *f = frame_of(env, reg);
	u32 ref;
	int spi, err;

	/* the kernel writes the struct's slots first, 8 bytes at a time */
	for (int off = 0; off < nr_slots * SLOT_SIZE; off += SLOT_SIZE) {
		err = check_stack_store(env, regno, off, SLOT_SIZE, &env->insns[insn_idx]);
		if (err)
			return err;
	}
	spi = stack_obj_spi(env, reg, "iter", nr_slots);
	if (spi < 0)
		return spi;
	err = acquire_ref(env, insn_idx, &ref);
	if (err)
		return err;
	for (int i = 0; i < nr_slots; i++) {
		struct stack_slot *sl = &f->stack[spi - i];

		mark_reg_not_init(&sl->spilled);
		sl->spilled.ref_obj_id = i == 0 ? ref : 0;
		sl->spilled.iter_btf_id = btf_id;
		sl->spilled.iter_state = ITER_ACTIVE;
		sl->spilled.iter_depth = 0;
		sl->spilled.iter_rcu = rcu ? ITER_RCU : ITER_RCU_NONE;
		for (int j = 0; j < SLOT_SIZE; j++)
			sl->type[j] = STACK_ITER;
		sl_mark_write(env, f->frameno, (u32)(spi - i));
		scratch_slot(env, f, spi - i);
	}
	return 0;
}

/* _destroy(): the reference goes (and whatever came from the iterator with it), the slots
 * become never-written stack. */
static void unmake_iter(struct verifier_env *env, struct func_state *f, int spi, int nr_slots)
{
	for (int i = 0; i < nr_slots; i++) {
		struct stack_slot *sl = &f->stack[spi - i];

		if (i == 0)
			release_ref(env, env->cur, sl->spilled.ref_obj_id, true);
		mark_reg_not_init(&sl->spilled);
		for (int j = 0; j < SLOT_SIZE; j++)
			sl->type[j] = STACK_INVALID;
		sl_mark_write(env, f->frameno, (u32)(spi - i));
		scratch_slot(env, f, spi - i);
	}
}

int iter_arg(struct verifier_env *env, u32 regno, enum iter_op op, u32 btf_id, int nr_slots,
	     int insn_idx, bool rcu, const char *func, u32 *ref_obj_id, int *spi)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct func_state *f;
	int err;

	if (reg->type != PTR_TO_STACK) {
		verbose(env, "arg#%u expected pointer to an iterator on stack\n", regno - 1);
		return -EINVAL;
	}
	if (op == ITER_OP_NEW) {
		if (!valid_uninit(env, reg, nr_slots)) {
			verbose(env, "expected uninitialized iter_%s as arg #%u\n",
				iter_type_str(btf_id), regno - 1);
			return -EINVAL;
		}
		return make_iter(env, regno, btf_id, nr_slots, insn_idx, rcu);
	}
	if (!valid_init(env, reg, btf_id, nr_slots)) {
		verbose(env, "expected an initialized iter_%s as arg #%u\n", iter_type_str(btf_id),
			regno - 1);
		return -EINVAL;
	}
	*spi = stack_obj_spi(env, reg, "iter", nr_slots);
	if (*spi < 0)
		return *spi;
	f = frame_of(env, reg);
	if (f->stack[*spi].spilled.iter_rcu == ITER_RCU_ENDED) {
		verbose(env, "expected an RCU CS when using %s\n", func);
		return -EPROTO;
	}
	for (int i = 0; i < nr_slots; i++) {
		err = sl_mark_read(env, f->frameno, (u32)(*spi - i));
		if (err)
			return err;
		scratch_slot(env, f, *spi - i);
	}
	*ref_obj_id = f->stack[*spi].spilled.ref_obj_id;
	if (op == ITER_OP_DESTROY)
		unmake_iter(env, f, *spi, nr_slots);
	return 0;
}

int iter_next_fork(struct verifier_env *env, int insn_idx, u32 frameno, int spi)
{
	struct vstate *cur = env->cur, *queued;
	struct reg_state *it = &cur->frame[frameno]->stack[spi].spilled;

	if (it->iter_state != ITER_ACTIVE && it->iter_state != ITER_DRAINED) {
		verbose(env, "verifier bug: unexpected iterator state %d\n", it->iter_state);
		return -EFAULT;
	}
	if (it->iter_state == ITER_ACTIVE) {
		/* _next() is always a checkpoint: the state kept there is cur's parent */
		if (!cur->parent || cur->parent->insn_idx != insn_idx) {
			verbose(env, "verifier bug: bad parent state for iter next call\n");
			return -EFAULT;
		}
		queued = push_stack(env, insn_idx + 1, insn_idx);
		if (!queued)
			return -ENOMEM;
		struct reg_state *qit = &queued->frame[frameno]->stack[spi].spilled;
		struct reg_state *r0 = &queued->frame[queued->curframe]->regs[BPF_REG_0];

		qit->iter_state = ITER_ACTIVE;
		qit->iter_depth++;
		widen_imprecise_scalars_of(env, queued, cur->parent, insn_idx);
		r0->type = reg_type_not_null(r0->type);
	}
	it->iter_state = ITER_DRAINED;
	mark_reg_const(&cur_regs(env)[BPF_REG_0], 0);
	return 0;
}

bool iter_r1_active(struct verifier_env *env, const struct vstate *st)
{
	const struct func_state *f = st->frame[st->curframe];
	const struct reg_state *r1 = &f->regs[BPF_REG_1];
	const struct func_state *fr;
	s64 off;
	int spi;

	if (r1->type != PTR_TO_STACK || !scalar_is_const(&r1->s) || r1->frameno > st->curframe)
		return false;
	fr = st->frame[r1->frameno];
	off = r1->off + (s64)r1->s.var_off.value;
	spi = (int)((-off - 1) / SLOT_SIZE);
	(void)env;
	return spi >= 0 && (u32)spi < fr->allocated && fr->stack[spi].type[0] == STACK_ITER &&
	       fr->stack[spi].spilled.iter_state == ITER_ACTIVE;
}

void iter_rcu_unlock(struct verifier_env *env)
{
	for (u32 fr = 0; fr <= env->cur->curframe; fr++) {
		struct func_state *f = env->cur->frame[fr];

		for (u32 i = 0; i < f->allocated; i++)
			if (f->stack[i].type[0] == STACK_ITER &&
			    f->stack[i].spilled.iter_rcu == ITER_RCU)
				f->stack[i].spilled.iter_rcu = ITER_RCU_ENDED;
	}
}
