/* Precision tracking, as Linux (6.18) does it.
 *
 * Most scalars never influence a safety decision: two states that differ only in such a scalar
 * are equally safe, so pruning (states.c) may ignore it.  A scalar becomes "precise" when some
 * check depends on its bounds: a conditional jump whose outcome the bounds decide, pointer
 * arithmetic with it, a helper's size argument, a constant map key, a zero written to the stack
 * as STACK_ZERO.  Then every scalar it was computed from must be precise too, back to where the
 * value came from (a constant, a load from memory, a helper's result).  Only explored states
 * (checkpoints) carry the marks: the current state never does, it is compared against, not kept.
 *
 * Backtracking walks the current path backwards, instruction by instruction, with a set of
 * registers and stack slots (per call frame) still to be explained: a move hands the mark to its
 * source, arithmetic adds the source register, a fill from a stack slot hands it to the slot and
 * the spill into the slot to the spilled register, a subprogram's exit and call move marks between
 * frames.  The path comes from the per-state history (struct hist_ent: the predecessor of each
 * jump target visit, the stack slot of each spill and fill, the linked scalars a conditional jump
 * refined together); an instruction without an entry was reached from the one before it.  At the
 * start of a state's segment the walk continues in its parent checkpoint, whose registers get the
 * marks (a register already precise there needs no further walk: its own history was walked when
 * it was marked).  When the walk meets something it cannot follow, all scalars of all parent
 * states become precise (the kernel's fallback; sound, prunes less).
 *
 * When the current state is pruned against an explored state, the explored state's precise
 * registers are what made it safe; they are backtracked in the current path too
 * (propagate_precision), so that the current path's checkpoints keep them precise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "verifier/env.h"

#define ARG_REGS 0x3eu		/* R1..R5 */
#define FALLBACK 1		/* backtrack_insn(): mark everything precise */

struct bt {
	int frame;
	u16 regs[MAX_CALL_FRAMES];
	u64 stack[MAX_CALL_FRAMES];
};

static bool bt_empty(const struct bt *bt)
{
	for (int i = 0; i <= bt->frame; i++)
		if (bt->regs[i] || bt->stack[i])
			return false;
	return true;
}

static bool reg_set(const struct bt *bt, u32 r)
{
	return bt->regs[bt->frame] & (1u << r);
}

static void set_reg(struct bt *bt, u32 r)
{
	bt->regs[bt->frame] |= (u16)(1u << r);
}

static void clear_reg(struct bt *bt, u32 r)
{
	bt->regs[bt->frame] &= (u16)~(1u << r);
}

int hist_push(struct verifier_env *env, u16 flags, const u16 *linked, u8 nlinked)
{
	struct vstate *st = env->cur;
	struct hist_ent *e;

	if (env->hist_this_insn && st->hist_cnt) {
		e = &st->hist[st->hist_cnt - 1];
		e->flags |= flags;
		if (nlinked) {
			e->nlinked = nlinked;
			memcpy(e->linked, linked, nlinked * sizeof(*linked));
		}
		return 0;
	}
	e = grow_one(st->hist, st->hist_cnt, &st->hist_cap, sizeof(*e), 16);
	if (!e)
		return -ENOMEM;
	st->hist = e;
	e = &st->hist[st->hist_cnt++];
	memset(e, 0, sizeof(*e));
	e->idx = env->insn_idx;
	e->prev_idx = env->path_prev;
	e->flags = flags;
	e->nlinked = nlinked;
	if (nlinked)
		memcpy(e->linked, linked, nlinked * sizeof(*linked));
	env->hist_this_insn = true;
	return 0;
}

/* At a jump target, or any insn not reached from the one before it (but an insn run again by
 * the path a scalar fork queued, fork_sign_mask(): it was not run on the path copied). */
int hist_push_jmp(struct verifier_env *env)
{
	int i = env->insn_idx, p = env->path_prev;

	if (env->aux[i].jmp_point ||
	    (p >= 0 && p + 1 != i && p != i && !(p + 2 == i && env->aux[i - 1].ld_imm64_hi)))
		return hist_push(env, 0, NULL, 0);
	return 0;
}

void clear_precise(struct vstate *st)
{
	for (u32 i = 0; i <= st->curframe; i++) {
		struct func_state *f = st->frame[i];

		for (int r = 0; r < MAX_BPF_REG; r++)
			f->regs[r].precise = 0;
		for (u32 s = 0; s < f->allocated; s++)
			f->stack[s].spilled.precise = 0;
	}
}

/* The instruction a frame of a state stands at: the state's own for the innermost frame, the
 * call into the next frame for the callers. */
static int frame_insn(const struct vstate *st, int insn_idx, u32 i)
{
	return i == st->curframe ? insn_idx : st->frame[i + 1]->callsite;
}

/* The scalars sharing id, "+ K" or not (live registers, spilled slots) for the history entry of
 * a conditional jump, at most 6 as in the kernel; the ones beyond lose their id (they are not
 * refined). */
int collect_linked(struct verifier_env *env, u32 id, u16 *linked, u8 *n)
{
	struct vstate *st = env->cur;

	id &= ~ID_ADD_CONST;
	for (int i = (int)st->curframe; i >= 0; i--) {
		struct func_state *f = st->frame[i];
		u16 live = env->aux[frame_insn(st, env->insn_idx, (u32)i)].live_regs;

		for (int r = 0; r < BPF_REG_FP; r++) {
			struct reg_state *reg = &f->regs[r];

			if (!(live & (1u << r)) || reg->type != SCALAR_VALUE ||
			    (reg->id & ~ID_ADD_CONST) != id)
				continue;
			if (*n == 6)
				reg->id = 0;
			else
				linked[(*n)++] = (u16)(i << 8 | 0x80 | r);
		}
		for (u32 s = 0; s < f->allocated; s++) {
			struct reg_state *reg = &f->stack[s].spilled;

			if (f->stack[s].type[SLOT_SIZE - 1] != STACK_SPILL ||
			    reg->type != SCALAR_VALUE || (reg->id & ~ID_ADD_CONST) != id)
				continue;
			if (*n == 6)
				reg->id = 0;
			else
				linked[(*n)++] = (u16)(i << 8 | s);
		}
	}
	return 0;
}

static void sync_linked_bt(struct bt *bt, const struct hist_ent *e)
{
	bool any = false;

	for (int i = 0; i < e->nlinked; i++) {
		u32 fr = e->linked[i] >> 8, r = e->linked[i] & 0x7f;

		if (e->linked[i] & 0x80)
			any |= (bt->regs[fr] >> r) & 1;
		else
			any |= (bt->stack[fr] >> r) & 1;
	}
	if (!any)
		return;
	for (int i = 0; i < e->nlinked; i++) {
		u32 fr = e->linked[i] >> 8, r = e->linked[i] & 0x7f;

		if (e->linked[i] & 0x80)
			bt->regs[fr] |= (u16)(1u << r);
		else
			bt->stack[fr] |= 1ull << r;
	}
}

static void fmt_regs(char *b, size_t size, u16 mask)
{
	size_t len = 0;

	b[0] = 0;
	for (int r = 0; r < MAX_BPF_REG && len < size; r++)
		if (mask & (1u << r))
			len += (size_t)snprintf(b + len, size - len, "%sr%d", len ? "," : "", r);
}

static void fmt_stack(char *b, size_t size, u64 mask)
{
	size_t len = 0;

	b[0] = 0;
	for (int s = 0; s < 64 && len < size; s++)
		if (mask & (1ull << s))
			len += (size_t)snprintf(b + len, size - len, "%s-%d", len ? "," : "",
						(s + 1) * SLOT_SIZE);
}

static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

/* One instruction backwards: what bt needed after insn idx, it needs before it.  Returns 0,
 * FALLBACK, or a negative errno. */
static int backtrack_insn(struct verifier_env *env, int idx, int subseq_idx,
			  const struct hist_ent *e, struct bt *bt)
{
	const struct bpf_insn *in = &env->insns[idx];
	u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code), mode = BPF_MODE(in->code);
	u32 dreg = in->dst_reg, sreg = in->src_reg;

	if (env->log.level & 2) {
		char r[64], s[400];

		fmt_regs(r, sizeof(r), bt->regs[bt->frame]);
		fmt_stack(s, sizeof(s), bt->stack[bt->frame]);
		verbose(env, "mark_precise: frame%d: regs=%s stack=%s before %d: ", bt->frame, r, s,
			idx);
		print_insn(env, in);
		verbose(env, "\n");
	}
	if (dreg >= MAX_BPF_REG || sreg >= MAX_BPF_REG)
		return FALLBACK;
	if (e && e->nlinked)
		sync_linked_bt(bt, e);
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (!reg_set(bt, dreg))
			return 0;
		if (op == BPF_END || op == BPF_NEG)
			return 0;
		if (op == BPF_MOV) {
			clear_reg(bt, dreg);
			if (BPF_SRC(in->code) == BPF_X && sreg != BPF_REG_FP)
				set_reg(bt, sreg);
		} else if (BPF_SRC(in->code) == BPF_X && sreg != BPF_REG_FP) {
			set_reg(bt, sreg);
		}
		return 0;
	case BPF_LDX:
		if (!reg_set(bt, dreg))
			return 0;
		clear_reg(bt, dreg);
		if (e && (e->flags & HIST_STACK))
			bt->stack[(e->flags >> 6) & 7] |= 1ull << (e->flags & 63);
		return 0;
	case BPF_STX:
	case BPF_ST:
		if (cls == BPF_STX && mode == BPF_ATOMIC) {
			/* the fetched value comes from memory; anything else: give up */
			u32 fetched = in->imm == BPF_CMPXCHG ? BPF_REG_0 : sreg;

			if ((in->imm & BPF_FETCH) && reg_set(bt, fetched) &&
			    !(e && (e->flags & HIST_STACK))) {
				clear_reg(bt, fetched);
				if (!reg_set(bt, dreg) && !reg_set(bt, sreg))
					return 0;
			}
			if (reg_set(bt, dreg) || reg_set(bt, sreg) ||
			    (e && (e->flags & HIST_STACK)))
				return FALLBACK;
			return 0;
		}
		if (reg_set(bt, dreg))
			return FALLBACK; /* a scalar used as a pointer (pointer subtraction) */
		if (!e || !(e->flags & HIST_STACK))
			return 0;
		{
			u32 fr = (e->flags >> 6) & 7, spi = e->flags & 63;

			if (!(bt->stack[fr] & (1ull << spi)))
				return 0;
			bt->stack[fr] &= ~(1ull << spi);
			if (cls == BPF_STX)
				set_reg(bt, sreg);
		}
		return 0;
	case BPF_LD:
		if (!reg_set(bt, dreg))
			return 0;
		clear_reg(bt, dreg);
		if (mode == BPF_ABS || mode == BPF_IND)
			return FALLBACK;
		return 0;
	default: /* BPF_JMP, BPF_JMP32 */
		if (op == BPF_CALL) {
			int callee = is_pseudo_call(in) ? find_subprog(env, idx + in->imm + 1) : -1;

			/* a global function was not walked: like a helper, it sets R0 */
			if (callee >= 0 && env->subprog[callee].global) {
				clear_reg(bt, BPF_REG_0);
				return bt->regs[bt->frame] & ARG_REGS ? FALLBACK : 0;
			}
			if (is_pseudo_call(in)) {
				/* back into the caller: only R1-R5 can still be wanted */
				if ((bt->regs[bt->frame] & ~ARG_REGS) || bt->stack[bt->frame] ||
				    bt->frame == 0)
					return FALLBACK;
				bt->regs[bt->frame - 1] |= bt->regs[bt->frame] & ARG_REGS;
				bt->regs[bt->frame] = 0;
				bt->frame--;
				return 0;
			}
			/* from a callback's first insn back to the helper that called it: R1-R5
			 * came from the helper, not from the caller's registers */
			if (env->aux[idx].calls_callback && idx != subseq_idx - 1) {
				if ((bt->regs[bt->frame] & ~ARG_REGS) || bt->stack[bt->frame] ||
				    bt->frame == 0)
					return FALLBACK;
				bt->regs[bt->frame] = 0;
				bt->frame--;
				return 0;
			}
			clear_reg(bt, BPF_REG_0);
			if (bt->regs[bt->frame] & ARG_REGS)
				return FALLBACK;
			return 0;
		}
		if (op == BPF_EXIT) {
			bool r0 = subseq_idx >= 1 && is_pseudo_call(&env->insns[subseq_idx - 1]) &&
				  reg_set(bt, BPF_REG_0);

			/* a callback's exit returns to the helper call: the caller's R1-R5 are
			 * the call's arguments, explained before it (as 6.18 keeps them) */
			bool cb = subseq_idx >= 0 && env->aux[subseq_idx].calls_callback;

			if (!cb && (bt->regs[bt->frame] & ARG_REGS))
				return FALLBACK;
			clear_reg(bt, BPF_REG_0);
			if (bt->frame + 1 >= MAX_CALL_FRAMES)
				return FALLBACK;
			bt->frame++;
			bt->regs[bt->frame] = 0;
			bt->stack[bt->frame] = 0;
			if (r0)
				set_reg(bt, BPF_REG_0);
			return 0;
		}
		if (op == BPF_JA)
			return 0;
		if (BPF_SRC(in->code) == BPF_X) {
			if (!reg_set(bt, dreg) && !reg_set(bt, sreg))
				return 0;
			set_reg(bt, dreg);
			set_reg(bt, sreg);
		}
		return 0;
	}
}

/* The kernel's mark_all_scalars_precise(): every scalar of every parent state of from. */
void mark_all_precise(struct verifier_env *env, const struct vstate *from)
{
	if (env->log.level & 2)
		verbose(env, "mark_precise: frame%u: falling back to forcing all scalars precise\n",
			from->curframe);
	/* explored states are frozen but for precision marks: a state marked all precise
	 * before had all its ancestors marked too, the walk can stop there */
	for (struct vstate *st = from->parent; st && !st->all_precise; st = st->parent) {
		st->all_precise = true;
		for (u32 i = 0; i <= st->curframe; i++) {
			struct func_state *f = st->frame[i];

			for (int r = 0; r < BPF_REG_FP; r++) {
				struct reg_state *reg = &f->regs[r];

				if (reg->type != SCALAR_VALUE || reg->precise)
					continue;
				reg->precise = 1;
				if (env->log.level & 2)
					verbose(env, "force_precise: frame%u: forcing r%d to be precise\n",
						i, r);
			}
			for (u32 s = 0; s < f->allocated; s++) {
				struct reg_state *reg = &f->stack[s].spilled;

				if (f->stack[s].type[SLOT_SIZE - 1] != STACK_SPILL ||
				    reg->type != SCALAR_VALUE || reg->precise)
					continue;
				reg->precise = 1;
				if (env->log.level & 2)
					verbose(env, "force_precise: frame%u: forcing fp%d to be precise\n",
						i, -(int)(s + 1) * SLOT_SIZE);
			}
		}
	}
}

/* The predecessor of insn i on st's path (hist entries above *h not yet consumed), -ENOENT at
 * the start of the segment. */
static int prev_insn(const struct verifier_env *env, const struct vstate *st, int i, u32 *h)
{
	u32 cnt = *h;

	if (i == st->first_insn_idx) {
		if (cnt == 0)
			return -ENOENT;
		if (cnt == 1 && st->hist[0].idx == i)
			return -ENOENT;
	}
	if (cnt && st->hist[cnt - 1].idx == i) {
		(*h)--;
		return st->hist[cnt - 1].prev_idx;
	}
	if (i >= 2 && env->aux[i - 1].ld_imm64_hi)
		return i - 2;
	return i - 1;
}

/* Walks back from insn last_idx of state from (the current one, or a kept copy: a loop's back
 * edge); *changed (if given) is set when a parent state got a new mark. */
static int backtrack_from(struct verifier_env *env, const struct vstate *from, int last_idx,
			  struct bt *bt, bool *changed)
{
	const struct vstate *st = from;
	int first_idx = st->first_insn_idx, subseq_idx = -1;
	bool skip_first = true, l2 = env->log.level & 2;

	if (bt_empty(bt))
		return 0;
	for (;;) {
		u32 h = st->hist_cnt;

		if (l2)
			verbose(env, "mark_precise: frame%d: last_idx %d first_idx %d subseq_idx %d \n",
				bt->frame, last_idx, first_idx, subseq_idx);
		if (last_idx < 0 || (u32)last_idx >= env->len)
			goto fallback;
		for (int i = last_idx;;) {
			if (skip_first) {
				skip_first = false;
			} else {
				const struct hist_ent *e =
					h && st->hist[h - 1].idx == i ? &st->hist[h - 1] : NULL;
				int err = backtrack_insn(env, i, subseq_idx, e, bt);

				if (err < 0)
					return err;
				if (err == FALLBACK)
					goto fallback;
			}
			if (bt_empty(bt))
				return 0;
			subseq_idx = i;
			i = prev_insn(env, st, i, &h);
			if (i == -ENOENT)
				break;
			if (i < 0 || (u32)i >= env->len)
				goto fallback;
		}
		st = st->parent;
		if (!st)
			break;
		if ((u32)bt->frame > st->curframe)
			goto fallback;
		for (int fr = bt->frame; fr >= 0; fr--) {
			struct func_state *f = st->frame[fr];

			for (int r = 0; r < MAX_BPF_REG; r++) {
				struct reg_state *reg = &f->regs[r];

				if (!(bt->regs[fr] & (1u << r)))
					continue;
				if (reg->type != SCALAR_VALUE || reg->precise) {
					bt->regs[fr] &= (u16)~(1u << r);
				} else {
					reg->precise = 1;
					if (changed)
						*changed = true;
				}
			}
			for (int s = 0; s < 64; s++) {
				struct reg_state *reg;

				if (!(bt->stack[fr] & (1ull << s)))
					continue;
				if ((u32)s >= f->allocated)
					goto fallback;
				reg = &f->stack[s].spilled;
				if (f->stack[s].type[SLOT_SIZE - 1] != STACK_SPILL ||
				    reg->type != SCALAR_VALUE || reg->precise) {
					bt->stack[fr] &= ~(1ull << s);
				} else {
					reg->precise = 1;
					if (changed)
						*changed = true;
				}
			}
			if (l2) {
				char r[64], s[400];

				fmt_regs(r, sizeof(r), bt->regs[fr]);
				fmt_stack(s, sizeof(s), bt->stack[fr]);
				verbose(env, "mark_precise: frame%d: parent state regs=%s stack=%s: ", fr,
					r, s);
				print_state(env, st, f, true);
			}
		}
		if (bt_empty(bt))
			return 0;
		subseq_idx = first_idx;
		last_idx = st->last_insn_idx;
		first_idx = st->first_insn_idx;
	}
	if (bt_empty(bt))
		return 0;
fallback:
	/* something the walk could not explain (e.g. a value from the stack through a path it
	 * does not follow): the big hammer */
	mark_all_precise(env, from);
	return 0;
}

static int backtrack(struct verifier_env *env, struct bt *bt)
{
	return backtrack_from(env, env->cur, env->insn_idx, bt, NULL);
}

int mark_precise_reg(struct verifier_env *env, u32 regno)
{
	struct bt bt;

	if (regno >= MAX_BPF_REG || cur_regs(env)[regno].type != SCALAR_VALUE)
		return 0;
	memset(&bt, 0, sizeof(bt));
	bt.frame = (int)env->cur->curframe;
	set_reg(&bt, regno);
	return backtrack(env, &bt);
}

int mark_precise_slot(struct verifier_env *env, u32 frameno, u32 spi)
{
	struct bt bt;

	memset(&bt, 0, sizeof(bt));
	bt.frame = (int)env->cur->curframe;
	if (frameno > env->cur->curframe || spi >= 64)
		return 0;
	bt.stack[frameno] |= 1ull << spi;
	return backtrack(env, &bt);
}

int propagate_precision(struct verifier_env *env, const struct vstate *old,
			const struct vstate *cur, bool *changed)
{
	struct bt bt;
	bool l2 = env->log.level & 2;

	memset(&bt, 0, sizeof(bt));
	bt.frame = (int)cur->curframe;
	for (int fr = (int)old->curframe; fr >= 0; fr--) {
		const struct func_state *f = old->frame[fr];
		/* a walked state's dead registers and slots were cleaned away in 6.18
		 * (clean_func_state()): their marks are not propagated; a state still being
		 * walked (a loop's, matched by range) keeps them all */
		u16 live = old->branches ? 0xffff
					 : env->aux[frame_insn(old, old->insn_idx, (u32)fr)].live_regs;
		u64 slive = old->branches ? ~0ull
					  : sl_live_slots(env, old, (u32)fr);
		bool first = true;

		for (int r = 0; r < BPF_REG_FP; r++) {
			const struct reg_state *reg = &f->regs[r];

			if (!(live & (1u << r)) || reg->type != SCALAR_VALUE || !reg->precise)
				continue;
			if (l2 && first)
				verbose(env, "frame %d: propagating r%d", fr, r);
			else if (l2)
				verbose(env, ",r%d", r);
			bt.regs[fr] |= (u16)(1u << r);
			first = false;
		}
		for (u32 s = 0; s < f->allocated && s < 64; s++) {
			const struct reg_state *reg = &f->stack[s].spilled;
			int off = -(int)(s + 1) * SLOT_SIZE;

			if (f->stack[s].type[SLOT_SIZE - 1] != STACK_SPILL ||
			    reg->type != SCALAR_VALUE || !reg->precise || !(slive & (1ull << s)))
				continue;
			if (l2 && first)
				verbose(env, "frame %d: propagating fp%d", fr, off);
			else if (l2)
				verbose(env, ",fp%d", off);
			bt.stack[fr] |= 1ull << s;
			first = false;
		}
		if (!first && l2)
			verbose(env, "\n");
	}
	return backtrack_from(env, cur, cur == env->cur ? env->insn_idx : cur->insn_idx, &bt,
			      changed);
}
