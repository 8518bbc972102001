/* Conditional jumps: dead-branch pruning, range refinement, NULL checks and packet bounds.
 *
 * When the scalar domain proves the outcome (scalar_branch_taken), only the live successor is
 * walked.  Otherwise the taken successor is pushed as a pending state and both copies are refined:
 * scalars through scalar_refine_branch() (a successor refined to nothing is dead and dropped),
 * linked copies of a scalar (same id) get the same refinement, a map lookup result compared with
 * 0 becomes a map value pointer on one side and the scalar 0 on the other (all registers and
 * spills sharing its id), and a packet pointer compared with pkt_end gives every pointer with the
 * same id a known-accessible range on the side where it is below the end.
 */
#include <errno.h>

#include "verifier/env.h"

#define MAX_PACKET_OFF 0xffff

struct null_arg {
	u32 id;
	bool is_null;
};

static void null_fn(struct reg_state *reg, void *p)
{
	struct null_arg *a = p;

	if (!reg_may_be_null(reg) || reg->id != a->id)
		return;
	if (a->is_null) {
		mark_reg_const(reg, 0);
		reg->ref_obj_id = 0;
		return;
	}
	/* a value with a lock keeps its id: the lock is known by it (process_spin_lock()) */
	if (reg->type == PTR_TO_MAP_VALUE_OR_NULL && reg->map->spin_lock_off >= 0) {
		reg->type = PTR_TO_MAP_VALUE;
		return;
	}
	if (reg->type == CONST_PTR_TO_MAP_OR_NULL) {
		reg->type = CONST_PTR_TO_MAP;
		reg->id = 0;
		return;
	}
	/* not NULL: a record keeps its reference (a submit or discard releases it) */
	reg->type = reg_type_not_null(reg->type);
	reg->id = 0;
}

/* After `if rX == 0` on a maybe-NULL pointer: each branch learns which it is; on the NULL one,
 * a reference the pointer carried is gone (nothing was reserved). */
static void mark_null_branches(struct vstate *is_null, struct vstate *not_null,
			       const struct reg_state *dst)
{
	struct null_arg n = { dst->id, true }, nn = { dst->id, false };
	u32 ref = dst->ref_obj_id;

	for_each_reg(is_null, null_fn, &n);
	for_each_reg(not_null, null_fn, &nn);
	/* (only the acquired pointer's own NULL: a cast's, bpf_sk_fullsock()'s, leaves the
	 * socket it came from held) */
	if (ref && ref == n.id)
		release_ref(NULL, is_null, ref, false);
}

struct pkt_arg {
	u8 type;
	u32 id;
	s32 range;
};

static void pkt_fn(struct reg_state *reg, void *p)
{
	struct pkt_arg *a = p;

	if (reg->type == a->type && reg->id == a->id && reg->range < a->range)
		reg->range = a->range;
}

static void good_pkt_pointers(struct vstate *st, const struct reg_state *dst, bool right_open)
{
	struct pkt_arg a = { dst->type, dst->id, 0 };

	if (dst->off < 0 || (dst->off == 0 && right_open))
		return;
	if (dst->s.umax > MAX_PACKET_OFF || dst->s.umax + (u64)dst->off > MAX_PACKET_OFF)
		return;
	a.range = dst->off + right_open;
	for_each_reg(st, pkt_fn, &a);
}

/* The scalars linked to reg (the same id, or "that id + K") take its refined state, shifted by
 * the difference of their constants: those the jump collected (collect_linked(): the live
 * registers and the spilled slots, at most 6), in state st, which is either branch.  A dead copy
 * keeps its old bounds, as 6.18's sync_linked_regs() leaves it. */
static void sync_linked(struct vstate *st, const struct reg_state *reg, const u16 *linked, u8 n)
{
	struct reg_state copy = *reg;
	u32 base = reg->id & ~ID_ADD_CONST;

	if (reg->type != SCALAR_VALUE || !reg->id)
		return;
	for (u8 i = 0; i < n; i++) {
		struct func_state *f = st->frame[linked[i] >> 8];
		u32 r = linked[i] & 0x7f;
		struct reg_state *to = linked[i] & 0x80 ? &f->regs[r] : &f->stack[r].spilled;

		if (to == reg || to->type != SCALAR_VALUE || (to->id & ~ID_ADD_CONST) != base)
			continue;
		if ((!(to->id & ID_ADD_CONST) && !(copy.id & ID_ADD_CONST)) ||
		    to->delta == copy.delta) {
			*to = copy;
			continue;
		}
		/* to = reg + (to's constant - reg's), keeping its own id and constant */
		u32 id = to->id;
		s32 delta = to->delta;
		struct scalar k = scalar_const((u64)(s64)((s64)delta - (s64)copy.delta));

		*to = copy;
		to->id = id;
		to->delta = delta;
		scalar_alu(&to->s, &k, BPF_ADD, 0, false);
	}
}

/* The other side of a packet comparison: the pointer is at (pkt >= pkt_end) or beyond
 * (pkt > pkt_end) the end.  Only this register learns it, not its copies, as in the kernel. */
static void mark_pkt_end(struct vstate *st, u8 regno, bool beyond)
{
	struct reg_state *reg = &st->frame[st->curframe]->regs[regno];

	if (reg->type == PTR_TO_PACKET) /* not PACKET_META, as in the kernel */
		reg->range = beyond ? PKT_BEYOND_END : PKT_AT_END;
}

static bool is_init_pkt(const struct reg_state *r)
{
	return r->type == PTR_TO_PACKET && r->off == 0 && scalar_is_const(&r->s) &&
	       r->s.var_off.value == 0;
}

/* The kernel's try_match_pkt_pointers(): this = fall-through state, other = taken state. */
static bool match_pkt(const struct bpf_insn *insn, struct reg_state *dst, struct reg_state *src,
		      struct vstate *this, struct vstate *other)
{
	bool dst_data = (dst->type == PTR_TO_PACKET && src->type == PTR_TO_PACKET_END) ||
			(dst->type == PTR_TO_PACKET_META && is_init_pkt(src));
	bool src_data = (dst->type == PTR_TO_PACKET_END && src->type == PTR_TO_PACKET) ||
			(is_init_pkt(dst) && src->type == PTR_TO_PACKET_META);
	u8 d = insn->dst_reg, s = insn->src_reg;

	if (BPF_SRC(insn->code) != BPF_X || BPF_CLASS(insn->code) == BPF_JMP32)
		return false;
	if (!dst_data && !src_data)
		return false;
	/* Where "ptr > end" (or ">=") holds, ptr learns it is past the end; where it fails, every
	 * pointer sharing ptr's id learns its range. */
	switch (BPF_OP(insn->code)) {
	case BPF_JGT:
		if (dst_data) {
			good_pkt_pointers(this, dst, false);
			mark_pkt_end(other, d, true);
		} else {
			good_pkt_pointers(other, src, true);
			mark_pkt_end(this, s, false);
		}
		return true;
	case BPF_JLT:
		if (dst_data) {
			good_pkt_pointers(other, dst, true);
			mark_pkt_end(this, d, false);
		} else {
			good_pkt_pointers(this, src, false);
			mark_pkt_end(other, s, true);
		}
		return true;
	case BPF_JGE:
		if (dst_data) {
			good_pkt_pointers(this, dst, true);
			mark_pkt_end(other, d, false);
		} else {
			good_pkt_pointers(other, src, false);
			mark_pkt_end(this, s, true);
		}
		return true;
	case BPF_JLE:
		if (dst_data) {
			good_pkt_pointers(other, dst, false);
			mark_pkt_end(this, d, true);
		} else {
			good_pkt_pointers(this, src, true);
			mark_pkt_end(other, s, false);
		}
		return true;
	default:
		return false;
	}
}

/* The kernel's is_pkt_ptr_branch_taken(): a pointer known to be at or beyond pkt_end decides
 * its next comparison with pkt_end. */
static int pkt_branch_taken(const struct reg_state *dst, const struct reg_state *src, u8 op)
{
	const struct reg_state *pkt;

	if (src->type == PTR_TO_PACKET_END) {
		pkt = dst;
	} else if (dst->type == PTR_TO_PACKET_END) {
		pkt = src;
		op = op == BPF_JGT ? BPF_JLT : op == BPF_JLT ? BPF_JGT :
		     op == BPF_JGE ? BPF_JLE : op == BPF_JLE ? BPF_JGE : op;
	} else {
		return -1;
	}
	if (pkt->range >= 0)
		return -1;
	switch (op) {
	case BPF_JLE:
	case BPF_JGT:
		if (pkt->range == PKT_BEYOND_END)
			return op == BPF_JGT;
		break;
	case BPF_JLT:
	case BPF_JGE:
		return op == BPF_JGE;
	}
	return -1;
}

static bool is_pkt_any(const struct reg_state *r)
{
	return r->type == PTR_TO_PACKET || r->type == PTR_TO_PACKET_META ||
	       r->type == PTR_TO_PACKET_END;
}

/* A packet pointer within 4 GiB of data (data_end): the values jit_opts.pkt_cmp promises the
 * JIT, far from wrapping when added to or compared.  (A pointer plus a scalar of unbounded
 * maximum, which the kernel allows but never gives a range, is not one.) */
static bool pkt_near(const struct reg_state *r)
{
	return is_pkt_any(r) && r->s.smin > -(1LL << 32) && r->s.smax < (1LL << 32);
}

/* The kernel's reg_not_null(): the pointers it knows are never NULL (not ctx, stack or packet
 * pointers, which it does not rule on). */
static bool ptr_not_null(const struct reg_state *r)
{
	switch (r->type) {
	case CONST_PTR_TO_MAP:
	case PTR_TO_MAP_VALUE:
	case PTR_TO_MAP_KEY:
	case PTR_TO_SOCK_COMMON:
	case PTR_TO_SOCKET:
	case PTR_TO_TCP_SOCK:
	case PTR_TO_XDP_SOCK:
	case PTR_TO_MEM:
	case PTR_TO_RDONLY_MEM:
	case PTR_TO_RINGBUF_MEM:
	case PTR_TO_BTF_ID_TRUSTED: /* (not an RCU one: the field may be NULL) */
		return true;
	/* (PTR_TO_RDONLY_UNTRUSTED_MEM, a pointer field read through an untrusted pointer,
	 * may be NULL: 6.18.44 walks both ways of its NULL check, and a program does run the
	 * NULL one) */
	case PTR_TO_BTF_ID: /* trusted while it holds its reference */
		return r->ref_obj_id != 0;
	default:
		return false;
	}
}

/* The kernel's is_branch_taken() for a pointer against a constant (either side; a non-constant
 * source is swapped with the destination, the comparison mirrored): a not-NULL pointer is never
 * 0, which decides == and !=. */
static int ptr_branch_taken(const struct reg_state *dst, const struct reg_state *src, u8 op)
{
	if (!reg_is_const(src)) {
		const struct reg_state *t = dst;

		dst = src;
		src = t;	/* == and != are their own mirror: op stays */
	}
	if (!reg_is_const(src) || src->s.var_off.value != 0 || !ptr_not_null(dst))
		return -1;
	if (op == BPF_JEQ)
		return 0;
	if (op == BPF_JNE)
		return 1;
	return -1;
}

/* The kernel's reg_bounds_sanity_check() of a branch's refined register (ctx names it, as
 * "true_reg1"): bounds that contradict each other are a verifier bug to 6.18, which says so and
 * goes on with the register's ranges forgotten (its known bits kept).  Only a register compared
 * with itself gets here: the kernel's is_branch_taken() sees two registers, so neither branch
 * is decided, and refining the one register as both operands can leave nothing. */
static void bounds_violation(struct verifier_env *env, struct scalar *s, const char *ctx)
{
	const char *msg = "range bounds violation";

	if (s->umin <= s->umax && s->smin <= s->smax && s->u32_min <= s->u32_max &&
	    s->s32_min <= s->s32_max)
		msg = tnum_is_const(s->var_off) ? "const tnum out of sync with range bounds"
						: "const subreg tnum out of sync with range bounds";
	verbose(env, "verifier bug: REG INVARIANTS VIOLATION (%s): %s u64=[%#llx, %#llx] "
		     "s64=[%#llx, %#llx] u32=[%#x, %#x] s32=[%#x, %#x] var_off=(%#llx, %#llx)\n",
		ctx, msg, (unsigned long long)s->umin, (unsigned long long)s->umax,
		(unsigned long long)s->smin, (unsigned long long)s->smax, s->u32_min, s->u32_max,
		(u32)s->s32_min, (u32)s->s32_max, (unsigned long long)s->var_off.value,
		(unsigned long long)s->var_off.mask);
	scalar_mark_unbounded64(s);
	scalar_mark_unbounded32(s);
}

/* may_goto (the kernel's BPF_JCOND branch of check_cond_jmp_op()): the jump is walked on, the
 * fall-through queued a round deeper, its scalars that changed since the previous round here
 * (and that no check depends on) widened, so that rounds converge (is_state_visited()). */
int check_may_goto(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct vstate *cur = env->cur, *queued;
	int idx = *insn_idx;

	if (insn->src_reg != BPF_MAY_GOTO || insn->dst_reg || insn->imm) {
		verbose(env, "invalid may_goto imm %d\n", insn->imm);
		return -EINVAL;
	}
	queued = push_stack(env, idx + 1, idx);
	if (!queued)
		return -ENOMEM;
	queued->may_goto_depth++;
	/* (a may_goto always keeps a state: cur's parent is this round's, the one before it
	 * earlier) */
	if (cur->parent)
		widen_imprecise_scalars_of(env, queued, cur->parent, idx);
	*insn_idx += insn->off;
	return 0;
}

int check_cond_jmp(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct reg_state *regs = cur_regs(env);
	u8 op = BPF_OP(insn->code);
	bool jmp32 = BPF_CLASS(insn->code) == BPF_JMP32;
	struct reg_state *dst, *src, imm;
	struct vstate *other;
	int err, pred = -1;

	if (op == BPF_JA || op > BPF_JSLE) {
		verbose(env, "invalid BPF_JMP/JMP32 opcode %x\n", op);
		return -EINVAL;
	}
	/* 6.18 reads the destination first (6.1 read the source first) */
	err = check_reg_arg_read(env, insn->dst_reg);
	if (err)
		return err;
	dst = &regs[insn->dst_reg];
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm != 0) {
			verbose(env, "BPF_JMP/JMP32 uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg_read(env, insn->src_reg);
		if (err)
			return err;
		src = &regs[insn->src_reg];
	} else {
		if (insn->src_reg != 0) {
			verbose(env, "BPF_JMP/JMP32 uses reserved fields\n");
			return -EINVAL;
		}
		mark_reg_const(&imm, (u64)(s64)insn->imm);
		src = &imm;
	}

	if (BPF_SRC(insn->code) == BPF_X && !jmp32)
		env->aux[*insn_idx].pkt_cmp |= pkt_near(dst) && pkt_near(src) ? 1 : 2;
	if (dst->type == SCALAR_VALUE && src->type == SCALAR_VALUE)
		pred = scalar_branch_taken(&dst->s, &src->s, op, jmp32);
	else if (is_pkt_any(dst) && is_pkt_any(src) && !jmp32)
		pred = pkt_branch_taken(dst, src, op);
	else if (!jmp32)
		pred = ptr_branch_taken(dst, src, op);
	if (pred >= 0) {
		/* the scalars' bounds decided the branch: they must be precise */
		err = mark_precise_reg(env, insn->dst_reg);
		if (!err && BPF_SRC(insn->code) == BPF_X)
			err = mark_precise_reg(env, insn->src_reg);
		if (err)
			return err;
	}
	if (pred == 1) {
		*insn_idx += insn->off;
		return 0;
	}
	if (pred == 0)
		return 0;

	/* the scalars refined together (same id) go into the history, before the other branch
	 * is copied so that both have it */
	u16 linked[6];
	u8 n = 0;

	if (dst->type == SCALAR_VALUE && src->type == SCALAR_VALUE) {
		if (BPF_SRC(insn->code) == BPF_X && src->id)
			collect_linked(env, src->id, linked, &n);
		if (dst->id)
			collect_linked(env, dst->id, linked, &n);
		if (n > 1) {
			err = hist_push(env, 0, linked, n);
			if (err)
				return err;
		}
	}
	other = push_stack(env, *insn_idx + insn->off + 1, *insn_idx);
	if (!other)
		return -E2BIG;
	struct reg_state *oregs = other->frame[other->curframe]->regs;
	struct reg_state *odst = &oregs[insn->dst_reg];
	struct reg_state *osrc = BPF_SRC(insn->code) == BPF_X ? &oregs[insn->src_reg] : &imm;
	struct reg_state imm2 = imm;

	if (BPF_SRC(insn->code) == BPF_K)
		osrc = &imm2;
	if (dst->type == SCALAR_VALUE && src->type == SCALAR_VALUE) {
		bool live_taken = scalar_refine_branch(&odst->s, &osrc->s, op, jmp32, true);
		bool live_fall = scalar_refine_branch(&dst->s, &src->s, op, jmp32, false);

		if (dst == src) { /* (a register with itself: both live, as in 6.18) */
			if (!live_taken)
				bounds_violation(env, &odst->s, "true_reg1");
			if (!live_fall)
				bounds_violation(env, &dst->s, "false_reg1");
			live_taken = live_fall = true;
		}

		if (BPF_SRC(insn->code) == BPF_X) {
			sync_linked(env->cur, src, linked, n);
			sync_linked(other, osrc, linked, n);
		}
		sync_linked(env->cur, dst, linked, n);
		sync_linked(other, odst, linked, n);
		if (!live_taken || !live_fall) {
			/* one side is impossible by the bounds: as a decided branch */
			err = mark_precise_reg(env, insn->dst_reg);
			if (!err && BPF_SRC(insn->code) == BPF_X)
				err = mark_precise_reg(env, insn->src_reg);
			if (err)
				return err;
		}
		if (!live_taken) {
			/* the taken side is impossible: drop the pushed state */
			env->stack_size--;
			err = update_branch_counts(env, other);
			state_free(other);
			if (err)
				return err;
		}
		if (!live_fall) {
			/* only the taken side: continue with it */
			if (live_taken) {
				err = update_branch_counts(env, env->cur);
				state_free(env->cur);
				env->cur = other;
				env->stack_size--;
				*insn_idx += insn->off;
				return err;
			}
			/* neither (a contradiction on a dead path): end it */
			return 1;
		}
	} else if (!jmp32 && BPF_SRC(insn->code) == BPF_K && insn->imm == 0 &&
		   (op == BPF_JEQ || op == BPF_JNE) && reg_may_be_null(dst)) {
		struct reg_state d = *dst; /* (dst is one of the registers changed) */

		/* env->cur falls through: NULL for JNE; other takes the jump: NULL for JEQ */
		if (op == BPF_JNE)
			mark_null_branches(env->cur, other, &d);
		else
			mark_null_branches(other, env->cur, &d);
	} else {
		match_pkt(insn, dst, src, env->cur, other);
	}
	return 0;
}
