/* 6.18's stack-slot liveness pass, as its level-2 log shows it.
 *
 * Linux 6.18 learns, per call chain and instruction, which stack slots an instruction may read and
 * which it surely writes (a whole 8-byte slot at a fixed offset), as the walk meets them, and
 * after every path end and subprogram exit solves the classic backward equations over the
 * subprogram's instructions in postorder until nothing changes:
 *
 *   live_before(i)    = (U live_before(s) for s in succ(i)  \  must_write(i))  U  may_read(i)
 *   must_write_acc(i) = (n must_write_acc(s) for s in succ(i))  U  must_write(i)
 *
 * At log level 2 each change is logged ("(0) frame 0 insn 5 +live -8", "+written -16"), for the
 * instructions that touch the stack, the subprogram's first one and prune points, then
 * "(0) live stack update done in 2 iterations".  A callee's may_read and must_write_acc at its
 * first instruction become the call instruction's in the caller's chain.  The same sets tell
 * pruning which slots of an explored state are dead (sl_live_slots()): a slot no continuation
 * reads before writing it holds nothing that matters, as in 6.18's clean_func_state().  Sound
 * because an explored state prunes only once all its continuations were walked, so every read
 * they make was marked and solved (sl_update() runs at every path end and subprogram exit).
 *
 * A call chain is the call instructions leading to a frame plus the frame's subprogram start:
 * "(0)" for the main program, "(5,10)" for a subprogram at 10 called from 5.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/env.h"

struct sl_masks {
	u64 may_read;		/* slots this insn may read */
	u64 must_write;		/* slots this insn surely writes (intersection over visits) */
	u64 must_write_acc;	/* ... this insn and all its continuations surely write */
	u64 live_before;	/* slots read by this insn or later before being written */
};

/* One function instance: a subprogram reached through one call chain. */
struct sl_inst {
	struct sl_inst *next;
	u32 callsites[MAX_CALL_FRAMES];
	u32 depth;		/* frames in the chain - 1 */
	u32 sub;		/* its subprogram */
	u32 start, cnt;		/* the subprogram's first insn and length */
	bool updated;		/* marks changed since the last solve */
	bool dropped;		/* a must_write shrank: must_write_acc is recomputed from scratch */
	struct sl_masks *frames[MAX_CALL_FRAMES]; /* per frame of the chain, per insn */
	bool *mw_seen;		/* per insn: must_write was set once */
};

struct stack_live {
	struct sl_inst *insts;
	struct sl_inst *cur;	/* the instance of env->cur's innermost frame, or NULL */
	u64 wacc[MAX_CALL_FRAMES]; /* writes of the current insn, per frame */
	u32 widx;
	u32 *postorder;		/* each subprogram's insns in DFS postorder ... */
	u32 *po_start;		/* ... from po_start[sub] to po_start[sub + 1] */
};

/* The kernel's successor order: fall-through first, then the jump target. */
static u32 succs(const struct verifier_env *env, u32 i, u32 out[2])
{
	const struct bpf_insn *in = &env->insns[i];
	u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	u32 n = 0;

	if (cls != BPF_JMP && cls != BPF_JMP32) {
		out[n++] = i + (in->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1);
		return n;
	}
	if (op == BPF_EXIT)
		return 0;
	if (op != BPF_JA)
		out[n++] = i + 1;
	if (op != BPF_CALL)
		out[n++] = (u32)((s64)i + 1 + (cls == BPF_JMP32 && op == BPF_JA ? in->imm : in->off));
	return n;
}

/* Per subprogram, a DFS from its start that pushes all undiscovered successors at once and
 * records an insn when it is popped the second time (the kernel's bpf_compute_postorder()). */
static int compute_postorder(struct verifier_env *env, struct stack_live *sl)
{
	u32 *stack = calloc(env->len, sizeof(u32));
	u8 *state = calloc(env->len, 1);
	u32 n = 0;

	sl->postorder = calloc(env->len, sizeof(u32));
	sl->po_start = calloc(env->subprog_cnt + 1, sizeof(u32));
	if (!stack || !state || !sl->postorder || !sl->po_start) {
		free(stack);
		free(state);
		return -ENOMEM;
	}
	for (u32 s = 0; s < env->subprog_cnt; s++) {
		u32 sp = 0;

		sl->po_start[s] = n;
		stack[sp++] = (u32)env->subprog[s].start;
		do {
			u32 top = stack[sp - 1], out[2], k;

			state[top] |= 1;
			if (state[top] & 2) {
				if (n < env->len)
					sl->postorder[n++] = top;
				sp--;
				continue;
			}
			k = succs(env, top, out);
			for (u32 j = 0; j < k; j++) {
				if (out[j] < env->len && !state[out[j]] && sp < env->len) {
					stack[sp++] = out[j];
					state[out[j]] |= 1;
				}
			}
			state[top] |= 2;
		} while (sp);
	}
	sl->po_start[env->subprog_cnt] = n;
	free(stack);
	free(state);
	return 0;
}

int sl_init(struct verifier_env *env)
{
	struct stack_live *sl;

	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	env->sl = sl;
	return compute_postorder(env, sl);
}

void sl_free(struct verifier_env *env)
{
	struct stack_live *sl = env->sl;

	if (!sl)
		return;
	while (sl->insts) {
		struct sl_inst *i = sl->insts;

		sl->insts = i->next;
		for (u32 f = 0; f < MAX_CALL_FRAMES; f++)
			free(i->frames[f]);
		free(i->mw_seen);
		free(i);
	}
	free(sl->postorder);
	free(sl->po_start);
	free(sl);
	env->sl = NULL;
}

/* The instance of frame f of state st (created on first use); NULL without memory. */
static struct sl_inst *lookup(struct verifier_env *env, const struct vstate *st, u32 f)
{
	struct stack_live *sl = env->sl;
	u32 chain[MAX_CALL_FRAMES], sub = st->frame[f]->subprogno;
	struct sl_inst *i;

	for (u32 k = 0; k < f; k++)
		chain[k] = (u32)st->frame[k + 1]->callsite;
	chain[f] = (u32)env->subprog[sub].start;
	for (i = sl->insts; i; i = i->next)
		if (i->depth == f && !memcmp(i->callsites, chain, (f + 1) * sizeof(u32)))
			return i;
	i = calloc(1, sizeof(*i));
	if (!i)
		return NULL;
	memcpy(i->callsites, chain, (f + 1) * sizeof(u32));
	i->depth = f;
	i->sub = sub;
	i->start = (u32)env->subprog[sub].start;
	i->cnt = (u32)env->subprog[sub + 1].start - i->start;
	i->mw_seen = calloc(i->cnt ? i->cnt : 1, sizeof(bool));
	if (!i->mw_seen) {
		free(i);
		return NULL;
	}
	i->next = sl->insts;
	sl->insts = i;
	return i;
}

static struct sl_masks *masks(struct sl_inst *i, u32 frame, u32 insn, bool alloc)
{
	if (!i->frames[frame] && alloc)
		i->frames[frame] = calloc(i->cnt ? i->cnt : 1, sizeof(struct sl_masks));
	if (!i->frames[frame] || insn < i->start || insn - i->start >= i->cnt)
		return NULL;
	return &i->frames[frame][insn - i->start];
}

static int ensure_cur(struct verifier_env *env)
{
	if (!env->sl->cur)
		env->sl->cur = lookup(env, env->cur, env->cur->curframe);
	return env->sl->cur ? 0 : -ENOMEM;
}

static int mark_read(struct sl_inst *i, u32 frame, u32 insn, u64 mask)
{
	struct sl_masks *m = masks(i, frame, insn, true);
	u64 nr;

	if (!m)
		return -ENOMEM;
	nr = m->may_read | mask;
	if (nr != m->may_read && (nr | m->live_before) != m->live_before)
		i->updated = true;
	m->may_read = nr;
	return 0;
}

int sl_mark_read(struct verifier_env *env, u32 frame, u32 spi)
{
	if (!env->sl || spi >= 64)
		return 0;
	if (ensure_cur(env))
		return -ENOMEM;
	return mark_read(env->sl->cur, frame, (u32)env->insn_idx, 1ull << spi);
}

void sl_mark_write(struct verifier_env *env, u32 frame, u32 spi)
{
	if (env->sl && spi < 64 && frame < MAX_CALL_FRAMES)
		env->sl->wacc[frame] |= 1ull << spi;
}

static void reset_writes(struct stack_live *sl, u32 insn)
{
	sl->widx = insn;
	memset(sl->wacc, 0, sizeof(sl->wacc));
}

int sl_insn_begin(struct verifier_env *env)
{
	if (!env->sl)
		return 0;
	if (ensure_cur(env))
		return -ENOMEM;
	reset_writes(env->sl, (u32)env->insn_idx);
	return 0;
}

/* The writes of the instruction at sl->widx: its must_write is their intersection over visits. */
static int commit_writes(struct stack_live *sl, struct sl_inst *i)
{
	u32 idx;

	if (!i || sl->widx < i->start || sl->widx - i->start >= i->cnt)
		return 0;
	idx = sl->widx - i->start;
	for (u32 f = 0; f <= i->depth; f++) {
		u64 mask = sl->wacc[f], old;
		struct sl_masks *m;

		if (!mask && !i->mw_seen[idx])
			continue;
		m = masks(i, f, sl->widx, true);
		if (!m)
			return -ENOMEM;
		old = m->must_write;
		if (i->mw_seen[idx])
			mask &= old;
		if (old != mask) {
			m->must_write = mask;
			i->updated = true;
		}
		if (old & ~mask)
			i->dropped = true;
	}
	i->mw_seen[idx] = true;
	sl->widx = 0;
	return 0;
}

int sl_insn_commit(struct verifier_env *env)
{
	return env->sl ? commit_writes(env->sl, env->sl->cur) : 0;
}

void sl_reset_chain(struct verifier_env *env)
{
	if (env->sl)
		env->sl->cur = NULL;
}

static void log_chain(struct verifier_env *env, const struct sl_inst *i)
{
	verbose(env, "(");
	for (u32 k = 0; k <= i->depth; k++)
		verbose(env, "%s%u", k ? "," : "", i->callsites[k]);
	verbose(env, ")");
}

static void log_slots(struct verifier_env *env, u64 mask)
{
	bool first = true;

	for (u32 s = 0; s < 64; s++) {
		if (!(mask >> s & 1))
			continue;
		verbose(env, "%s-%u", first ? "" : ",", (s + 1) * 8);
		first = false;
	}
}

static void log_change(struct verifier_env *env, const struct sl_inst *i, const char *what,
		       u32 frame, u32 insn, u64 old, u64 new)
{
	u64 ones = new & (old ^ new), zeros = ~new & (old ^ new);

	if (!(old ^ new))
		return;
	log_chain(env, i);
	verbose(env, " frame %u insn %u ", frame, insn);
	if (ones) {
		verbose(env, "+%s ", what);
		log_slots(env, ones);
		verbose(env, " ");
	}
	if (zeros) {
		verbose(env, "-%s ", what);
		log_slots(env, zeros);
	}
	verbose(env, "\n");
}

static bool update_insn(struct verifier_env *env, struct sl_inst *i, u32 frame, u32 insn)
{
	struct sl_masks *m = masks(i, frame, insn, false);
	u32 out[2], n = succs(env, insn, out);
	u64 after = 0, acc = ~0ull, before;
	bool changed;

	if (!n || !m)
		return false;
	for (u32 k = 0; k < n; k++) {
		const struct sl_masks *s = masks(i, frame, out[k], false);

		after |= s ? s->live_before : 0;
		acc &= s ? s->must_write_acc : 0;
	}
	acc |= m->must_write;
	before = (after & ~m->must_write) | m->may_read;
	changed = before != m->live_before || acc != m->must_write_acc;
	if ((env->log.level & 2) &&
	    (m->may_read || m->must_write || insn == i->start || env->aux[insn].prune_point)) {
		log_change(env, i, "live", frame, insn, m->live_before, before);
		log_change(env, i, "written", frame, insn, m->must_write_acc, acc);
	}
	m->live_before = before;
	m->must_write_acc = acc;
	return changed;
}

/* A callee instance's entry sets become its call instruction's in the caller's instance. */
static int propagate_out(struct verifier_env *env, struct sl_inst *i)
{
	struct stack_live *sl = env->sl;
	struct sl_inst *outer = NULL;
	u32 callsite = i->callsites[i->depth - 1];
	int err = 0;

	/* the caller's chain: the same call sites, one frame shorter */
	for (struct sl_inst *o = sl->insts; o; o = o->next) {
		if (o->depth == i->depth - 1 &&
		    !memcmp(o->callsites, i->callsites, (i->depth - 1) * sizeof(u32)) &&
		    o->start <= callsite && callsite - o->start < o->cnt) {
			outer = o;
			break;
		}
	}
	if (!outer)
		return 0;
	reset_writes(sl, callsite);
	for (u32 f = 0; f < i->depth; f++) {
		const struct sl_masks *m = masks(i, f, i->start, false);

		if (!m)
			continue;
		sl->wacc[f] |= m->must_write_acc;
		err = mark_read(outer, f, callsite, m->live_before);
		if (err)
			return err;
	}
	return commit_writes(sl, outer);
}

static int update_instance(struct verifier_env *env, struct sl_inst *i)
{
	struct stack_live *sl = env->sl;
	u32 po0 = sl->po_start[i->sub], po1 = sl->po_start[i->sub + 1], iters = 0;
	bool changed;

	if (i->dropped)
		for (u32 f = 0; f <= i->depth; f++)
			for (u32 k = 0; i->frames[f] && k < i->cnt; k++)
				i->frames[f][k].must_write_acc = 0;
	do {
		iters++;
		changed = false;
		for (u32 f = 0; f <= i->depth; f++)
			for (u32 k = po0; i->frames[f] && k < po1; k++)
				changed |= update_insn(env, i, f, sl->postorder[k]);
	} while (changed);
	if (env->log.level & 2) {
		log_chain(env, i);
		verbose(env, " live stack update done in %u iterations\n", iters);
	}
	return i->depth ? propagate_out(env, i) : 0;
}

/* After a path ends or a subprogram returns: solve every instance of the current state's chain
 * whose marks changed, innermost first (its entry feeds the caller's call instruction). */
int sl_update(struct verifier_env *env)
{
	if (!env->sl || !env->cur)
		return 0;
	env->sl->cur = NULL;
	for (int f = (int)env->cur->curframe; f >= 0; f--) {
		struct sl_inst *i = lookup(env, env->cur, (u32)f);
		int err;

		if (!i)
			return -ENOMEM;
		if (!i->updated)
			continue;
		err = update_instance(env, i);
		if (err)
			return err;
		i->updated = false;
		i->dropped = false;
	}
	return 0;
}

static u64 live_mask(struct sl_inst *i, u32 insn, u32 frame)
{
	const struct sl_masks *m = i ? masks(i, frame, insn, false) : NULL;

	return m ? m->live_before : 0;
}

/* The slots of frame `frame` that an explored state st still needs: read before written by a
 * continuation in its own function (live before its instruction), or, for a caller's frame,
 * after the return to the caller (live before the instruction after the call; for a callback,
 * before the call itself, where it returns). */
u64 sl_live_slots(struct verifier_env *env, const struct vstate *st, u32 frame)
{
	struct sl_inst *inner;
	u64 live;

	if (!env->sl)
		return ~0ull;
	inner = lookup(env, st, st->curframe);
	if (!inner)
		return ~0ull;
	live = live_mask(inner, (u32)st->insn_idx, frame);
	for (u32 k = frame; k < st->curframe; k++) {
		struct sl_inst *outer = lookup(env, st, k);

		if (!outer)
			return ~0ull;
		/* a callback returns to its call, which may run it again */
		u32 back = inner->callsites[k] + (st->frame[k + 1]->in_callback_fn ? 0 : 1);

		live |= live_mask(outer, back, frame);
	}
	return live;
}
