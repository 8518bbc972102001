/* Exploration bookkeeping: the stack of pending branches, explored-state equivalence (pruning),
 * branch counting and loop detection.
 *
 * Pruning is sound containment: an explored state E at an instruction, whose every continuation
 * was verified, covers the current state C when every value C may hold E may hold too:
 *   - a register unreadable in E was never read on any path from E, so C's is irrelevant;
 *   - scalars: an imprecise scalar in E matches any scalar (no check on E's paths depended on
 *     its value, precision.c; the kernel's regsafe()); a precise one needs E's ranges and known
 *     bits to contain C's, and its id (linked copies) to correspond;
 *   - pointers: same type, base (map / frame), fixed offset; E's variable part contains C's; for
 *     packet pointers C's proven range is at least E's;
 *   - ids must correspond one to one (an id map), so NULL checks and packet ranges learnt through
 *     one register apply to the same set of registers on both sides;
 *   - stack: E's never-written and "some bytes" slots accept anything (root reads them as unknown
 *     scalars); E's zero bytes need zero bytes in C; E's spills need the same spill in C with a
 *     covered register; an 8-byte scalar spill in E matches 8 unknown bytes in C as an unknown
 *     scalar would.
 *   - a register dead at E's instruction (compute_live_registers()) accepts anything, as after
 *     the kernel's clean_live_states().
 * An explored state whose continuations are still being walked (branches > 0) cannot prune; if C
 * equals it exactly the program loops forever.
 *
 * Checkpoints follow Linux 6.18 (is_state_visited()), whose counts the log's "processed" line
 * shows: a state is kept only when forced (BPF_F_TEST_STATE_FREQ) or after 2 jumps and 8 insns
 * since the last one, inside a loop only every 20 jumps or 100 insns; states hash into prog-len
 * buckets by insn ^ callsite; states that keep missing are evicted (freed once their paths end,
 * counted in peak_states until then); a path history longer than 40 entries forces a state.  When
 * C is pruned, E's precise scalars are backtracked in C's path (propagate_precision()).  A helper
 * call that runs a callback always keeps a state; when a callback round returns there while that
 * state is still being walked, the round ends if the state contains it with every scalar's range
 * (RANGE_WITHIN: imprecise ones too, as precision marks are not complete yet), and the states
 * kept there are evicted only after 64 misses per hit instead of 3.
 *
 * Loops (6.18.y): such a call is a loop of its own (compute_scc()).  A prune inside a loop whose
 * explored state may still gain precision marks (its loop visit has back edges pending) compares
 * by RANGE_WITHIN and keeps a copy of the current state as a back edge; when the path that
 * entered the loop ends, the marks of the states the back edges equalled are backtracked along
 * their paths until nothing changes (propagate_backedges()).  Back edges count in peak_states.
 * A may_goto keeps a state too; a round of its fall-through that brings nothing new (contained
 * by RANGE_WITHIN, a round deeper) ends its rounds, as an iterator's _next() does.
 */
#include <errno.h>
#include <stdlib.h>

#include "prog/prog.h"
#include "verifier/env.h"
#include "verifier/iter.h"

/* the kernel's, plus the references */
#define ID_MAP_SIZE                                                                              \
	((MAX_BPF_REG + MAX_BPF_STACK / SLOT_SIZE) * MAX_CALL_FRAMES + MAX_ACQUIRED_REFS)

struct idmap {
	u32 old[ID_MAP_SIZE], cur[ID_MAP_SIZE];
	u32 cnt;
	u32 tmp_gen;		/* fresh ids for unlinked scalars: above every id given so far and
				 * below ID_ADD_CONST, so that they meet neither a real id nor a
				 * linked scalar's (the kernel starts them at env->id_gen) */
};

static bool check_ids(struct idmap *m, u32 old, u32 cur)
{
	if (!old && !cur)
		return true;
	if (!old || !cur)
		return false;
	for (u32 i = 0; i < m->cnt; i++) {
		if (m->old[i] == old)
			return m->cur[i] == cur;
		if (m->cur[i] == cur)
			return false;
	}
	if (m->cnt == ID_MAP_SIZE)
		return false;
	m->old[m->cnt] = old;
	m->cur[m->cnt++] = cur;
	return true;
}

/* The kernel's check_scalar_ids(): a scalar without an id is unlinked, so it gets a fresh one
 * that must not map to anything else. */
static bool check_scalar_ids(struct idmap *m, u32 old, u32 cur)
{
	if (!old)
		old = ++m->tmp_gen;
	if (!cur)
		cur = ++m->tmp_gen;
	return check_ids(m, old, cur);
}

static bool scalar_within(const struct scalar *o, const struct scalar *c)
{
	return o->smin <= c->smin && o->smax >= c->smax && o->umin <= c->umin &&
	       o->umax >= c->umax && o->s32_min <= c->s32_min && o->s32_max >= c->s32_max &&
	       o->u32_min <= c->u32_min && o->u32_max >= c->u32_max &&
	       tnum_in(o->var_off, c->var_off);
}

static bool scalar_same(const struct scalar *o, const struct scalar *c)
{
	return memcmp(o, c, sizeof(*o)) == 0;
}

/* How states are compared (the kernel's enum exact_level): containment where imprecise scalars
 * match anything; containment of every scalar's range (RANGE_WITHIN, for a callback's rounds,
 * whose explored state is still being walked and so has no complete precision marks); bit for
 * bit (the infinite-loop check). */
enum { NOT_EXACT, RANGE_WITHIN, EXACT };

static bool regsafe(const struct reg_state *o, const struct reg_state *c, struct idmap *m,
		    int mode)
{
	bool exact = mode == EXACT;

	if (exact) {
		if (o->type != c->type)
			return false;
		if (o->type == NOT_INIT)
			return true;
	} else if (o->type == NOT_INIT) {
		return true;
	}
	if (o->type != c->type)
		return false;
	if (o->type == SCALAR_VALUE) {
		if (exact)
			return scalar_same(&o->s, &c->s) && check_ids(m, o->id, c->id) &&
			       o->delta == c->delta;
		/* no check depended on an imprecise scalar's value (precision.c) */
		if (!o->precise && mode == NOT_EXACT)
			return true;
		if ((o->id & ID_ADD_CONST) != (c->id & ID_ADD_CONST) ||
		    ((o->id & ID_ADD_CONST) && o->delta != c->delta))
			return false;
		/* a linked scalar in E constrains its partners; C must link the same way */
		if (!check_scalar_ids(m, o->id, c->id))
			return false;
		return scalar_within(&o->s, &c->s);
	}
	if (o->off != c->off || o->map != c->map || o->frameno != c->frameno)
		return false;
	if (exact ? !scalar_same(&o->s, &c->s) : !scalar_within(&o->s, &c->s))
		return false;
	switch (o->type) {
	case PTR_TO_MAP_VALUE_OR_NULL:
	case CONST_PTR_TO_MAP_OR_NULL:
	case PTR_TO_SOCK_COMMON_OR_NULL:
	case PTR_TO_SOCKET_OR_NULL:
	case PTR_TO_TCP_SOCK_OR_NULL:
	case PTR_TO_XDP_SOCK_OR_NULL:
	case PTR_TO_SOCK_COMMON:
	case PTR_TO_SOCKET:
	case PTR_TO_TCP_SOCK:
	case PTR_TO_XDP_SOCK:
		/* the kernel's regs_exact(): the same socket, by the same reference */
		return check_ids(m, o->id, c->id) && check_ids(m, o->ref_obj_id, c->ref_obj_id);
	case PTR_TO_MEM:
	case PTR_TO_MEM_OR_NULL:
	case PTR_TO_RDONLY_MEM:
	case PTR_TO_RDONLY_MEM_OR_NULL:
	case PTR_TO_RDONLY_UNTRUSTED_MEM:
		/* the kernel's memcmp up to var_off covers the size and a slice's dynptr id */
		return o->mem_size == c->mem_size && o->dynptr_id == c->dynptr_id &&
		       o->dynptr_type == c->dynptr_type && o->buf_frame == c->buf_frame && o->buf_off == c->buf_off &&
		       o->buf_size == c->buf_size &&
		       check_ids(m, o->id, c->id) && check_ids(m, o->ref_obj_id, c->ref_obj_id);
	case PTR_TO_RINGBUF_MEM:
	case PTR_TO_RINGBUF_MEM_OR_NULL:
		/* the kernel's regs_exact(): the same record, seen the same way */
		return scalar_same(&o->s, &c->s) && o->mem_size == c->mem_size &&
		       check_ids(m, o->id, c->id) && check_ids(m, o->ref_obj_id, c->ref_obj_id);
	case CONST_PTR_TO_DYNPTR:
		/* the kernel's regs_exact() */
		return o->dynptr_type == c->dynptr_type && check_ids(m, o->id, c->id) &&
		       check_ids(m, o->ref_obj_id, c->ref_obj_id);
	case PTR_TO_BTF_ID_TRUSTED:
	case PTR_TO_BTF_ID_RCU:
	case PTR_TO_BTF_ID_UNTRUSTED:
	case PTR_TO_BTF_ID:
	case PTR_TO_BTF_ID_OR_NULL:
	case PTR_TO_BTF_ID_RCU_OR_NULL:
	case PTR_TO_BTF_ID_UNTRUSTED_OR_NULL:
	case PTR_TO_BTF_ID_TRUSTED_OR_NULL:
	case PTR_TO_PERCPU_BTF_ID:
		/* the kernel's regs_exact(): the same struct at the same offset */
		return o->btf_id == c->btf_id && scalar_same(&o->s, &c->s) &&
		       check_ids(m, o->id, c->id) && check_ids(m, o->ref_obj_id, c->ref_obj_id);
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
		/* (a range that is a comparison's mark, at or beyond the end, only the same) */
		if (exact || o->range < 0 || c->range < 0 ? c->range != o->range
							  : c->range < o->range)
			return false;
		return check_ids(m, o->id, c->id);
	default:
		return true;
	}
}

static bool full_scalar_spill(const struct stack_slot *sl)
{
	for (int j = 0; j < SLOT_SIZE; j++)
		if (sl->type[j] != STACK_SPILL)
			return false;
	return sl->spilled.type == SCALAR_VALUE;
}

static bool all_misc(const struct stack_slot *sl)
{
	for (int j = 0; j < SLOT_SIZE; j++)
		if (sl->type[j] != STACK_MISC && sl->type[j] != STACK_INVALID)
			return false;
	return true;
}

static bool stacksafe(const struct func_state *o, const struct func_state *c, struct idmap *m,
		      int mode, u64 live)
{
	bool exact = mode == EXACT;

	for (u32 s = 0; s < o->allocated; s++) {
		const struct stack_slot *os = &o->stack[s];
		const struct stack_slot *cs = s < c->allocated ? &c->stack[s] : NULL;
		static const struct stack_slot invalid;

		/* a slot no continuation of E reads before writing it (stack_live.c) */
		if (!exact && s < 64 && !(live >> s & 1))
			continue;

		if (!cs)
			cs = &invalid;
		/* an 8-byte scalar spill in E against 8 bytes of unknown data in C: C's bytes
		 * read as an unknown scalar, which E's covers when imprecise (or unbounded) */
		if (!exact && s < c->allocated && full_scalar_spill(os) && all_misc(cs)) {
			struct reg_state unknown;

			mark_reg_unknown(&unknown);
			if (!regsafe(&os->spilled, &unknown, m, mode))
				return false;
			continue;
		}
		/* RANGE_WITHIN takes E's unknown bytes as NOT_EXACT does (6.18.y: a loop's state
		 * that accepted any bytes there accepts C's), then wants contained values */
		if (exact) {
			if (memcmp(os->type, cs->type, SLOT_SIZE))
				return false;
		} else {
			for (int j = 0; j < SLOT_SIZE; j++) {
				u8 ot = os->type[j], ct = cs->type[j];

				if (ot == STACK_INVALID || ot == STACK_MISC)
					continue;
				if (ot != ct)
					return false;
			}
		}
		if (os->type[SLOT_SIZE - 1] == STACK_SPILL &&
		    !regsafe(&os->spilled, &cs->spilled, m, mode))
			return false;
		/* the same kind of iterator in the same state, holding the same reference (the
		 * depth is left out: it would keep the rounds from converging) */
		if (os->type[SLOT_SIZE - 1] == STACK_ITER &&
		    (os->spilled.iter_btf_id != cs->spilled.iter_btf_id ||
		     os->spilled.iter_state != cs->spilled.iter_state ||
		     os->spilled.iter_rcu != cs->spilled.iter_rcu ||
		     !check_ids(m, os->spilled.ref_obj_id, cs->spilled.ref_obj_id)))
			return false;
		/* the same half of the same kind of dynptr, holding the same reference */
		if (os->type[SLOT_SIZE - 1] == STACK_DYNPTR &&
		    (os->spilled.dynptr_type != cs->spilled.dynptr_type ||
		     os->spilled.dynptr_first != cs->spilled.dynptr_first ||
		     !check_ids(m, os->spilled.ref_obj_id, cs->spilled.ref_obj_id)))
			return false;
	}
	if (exact) {
		for (u32 s = o->allocated; s < c->allocated; s++)
			for (int j = 0; j < SLOT_SIZE; j++)
				if (c->stack[s].type[j] != STACK_INVALID)
					return false;
	}
	return true;
}

/* The instruction a frame of an explored state stands at: the state's own for the innermost
 * frame, the call into the next frame for the callers. */
static int frame_insn_idx(const struct vstate *st, u32 i)
{
	return i == st->curframe ? st->insn_idx : st->frame[i + 1]->callsite;
}

/* exact: the infinite-loop check (bit for bit, dead registers too).  Otherwise containment
 * where, as in the kernel's clean_live_states(), a register dead at the explored state's
 * instruction (never read before written on any path from it: compute_live_registers()) is
 * treated as NOT_INIT, i.e. accepts anything. */
static bool states_equal(const struct verifier_env *env, const struct vstate *o,
			 const struct vstate *c, int mode)
{
	/* register liveness is the program's (compute_live_registers()), good in every mode but
	 * the bit-for-bit one; slot liveness only for explored states whose continuations were all
	 * walked */
	bool exact = mode == EXACT, walked = mode == NOT_EXACT;
	struct idmap m;

	if (o->curframe != c->curframe)
		return false;
	m.cnt = 0;
	m.tmp_gen = env->id_gen;
	/* the same references held (the kernel's refsafe()) */
	if (o->nrefs != c->nrefs || o->active_locks != c->active_locks ||
	    o->active_rcu_lock != c->active_rcu_lock ||
	    o->active_preempt_locks != c->active_preempt_locks)
		return false;
	for (u32 i = 0; i < o->nrefs; i++)
		if (o->ref_type[i] != c->ref_type[i] || !check_ids(&m, o->ref_id[i], c->ref_id[i]))
			return false;
	for (u32 i = 0; i <= o->curframe; i++) {
		const struct func_state *of = o->frame[i], *cf = c->frame[i];
		u16 live = env->aux[frame_insn_idx(o, i)].live_regs;

		if (of->callsite != cf->callsite)
			return false;
		/* fewer bpf_loop rounds queued in E: C may queue rounds E did not */
		if (of->callback_depth > cf->callback_depth)
			return false;
		for (int r = 0; r < MAX_BPF_REG; r++) {
			if (!exact && r < BPF_REG_FP && !(live & (1u << r)))
				continue;
			if (!regsafe(&of->regs[r], &cf->regs[r], &m, mode))
				return false;
		}
		if (!stacksafe(of, cf, &m, mode,
			       walked ? sl_live_slots((struct verifier_env *)env, o, i) : ~0ull))
			return false;
	}
	return true;
}

/* A scalar that changed (bits, or its links: ids that do not correspond) and that no check
 * depends on becomes unknown (the kernel's maybe_widen_reg(), regs_exact() with an id map). */
static void maybe_widen_reg(const struct reg_state *old, struct reg_state *cur, struct idmap *m)
{
	if (old->type != SCALAR_VALUE || cur->type != SCALAR_VALUE)
		return;
	if (old->precise || cur->precise ||
	    (scalar_same(&old->s, &cur->s) && old->delta == cur->delta &&
	     check_ids(m, old->id, cur->id)))
		return;
	mark_reg_unknown(cur);
}

static struct vstate **explored_bucket(struct verifier_env *env, int insn_idx);

void widen_imprecise_scalars_of(struct verifier_env *env, struct vstate *cur,
				const struct vstate *below, int insn)
{
	const struct vstate *old;
	struct idmap m = { .cnt = 0 };

	/* the latest state kept at insn that this path still walks, from before below (the
	 * kernel's find_prev_entry(): the explored states at insn, most recent first; a walk up
	 * the parents instead costs the path's length, which a loop makes long) */
	for (old = *explored_bucket(env, insn); old; old = old->next) {
		bool same = old->insn_idx == insn && old->curframe == cur->curframe &&
			    old->branches && old->dfs_depth < below->dfs_depth;

		for (u32 i = 1; same && i <= cur->curframe; i++)
			same = old->frame[i]->callsite == cur->frame[i]->callsite;
		if (same)
			break;
	}
	if (!old)
		return;
	for (int fr = (int)old->curframe; fr >= 0; fr--) {
		const struct func_state *fo = old->frame[fr];
		struct func_state *fc = cur->frame[fr];
		u32 n = fo->allocated < fc->allocated ? fo->allocated : fc->allocated;

		for (int r = 0; r < MAX_BPF_REG; r++)
			maybe_widen_reg(&fo->regs[r], &fc->regs[r], &m);
		for (u32 i = 0; i < n; i++)
			if (fo->stack[i].type[SLOT_SIZE - 1] == STACK_SPILL &&
			    fc->stack[i].type[SLOT_SIZE - 1] == STACK_SPILL)
				maybe_widen_reg(&fo->stack[i].spilled, &fc->stack[i].spilled, &m);
	}
}

void widen_imprecise_scalars(struct verifier_env *env, int callsite)
{
	widen_imprecise_scalars_of(env, env->cur, env->cur, callsite);
}

static void update_peak_states(struct verifier_env *env)
{
	u32 cur = env->explored_states_size + env->free_list_size + env->num_backedges;

	if (env->peak_states < cur)
		env->peak_states = cur;
}

static bool incomplete_marks(struct verifier_env *env, const struct vstate *st);

/* An evicted state is kept (on the kernel's "free list") while paths below it are still walked,
 * and freed once its last one ends. */
static void maybe_free_evicted(struct verifier_env *env, struct vstate *sl)
{
	if (!sl->evicted || sl->branches || incomplete_marks(env, sl))
		return;
	env->all_states[sl->all_idx] = NULL;
	state_free(sl);
	env->free_list_size--;
}

/* 6.18 tracks each loop (SCC) a path enters, per call chain: the first checkpoint inside it is
 * the loop's entry state, and the log says "SCC enter (1)" there and "SCC exit (1)" once every
 * path from it has ended.  A call chain names the loop by the call sites leading to the frame
 * whose instruction is in it, then its SCC number: "(5,1)". */
struct scc_visit {
	u32 callsites[MAX_CALL_FRAMES];
	u32 scc;
	const struct vstate *entry;
	/* Back edges found inside the loop on this visit, newest first (linked by ->next):
	 * copies of the current state at each prune against a state whose marks may still be
	 * incomplete.  When the loop is left, the marks of the states they equalled are
	 * backtracked along their paths until nothing changes (propagate_backedges()). */
	struct vstate *backedges;
	u32 num_backedges;
};

static bool scc_chain(const struct verifier_env *env, const struct vstate *st, struct scc_visit *v)
{
	memset(v, 0, sizeof(*v));
	for (u32 i = 0; i <= st->curframe; i++) {
		int idx = frame_insn_idx(st, i);
		u32 scc = idx >= 0 && (u32)idx < env->len ? env->aux[idx].scc : 0;

		if (scc) {
			v->scc = scc;
			return true;
		}
		if (i == st->curframe)
			return false;
		v->callsites[i] = (u32)idx;
	}
	return false;
}

static struct scc_visit *scc_find(struct verifier_env *env, const struct scc_visit *key)
{
	for (u32 i = 0; i < env->scc_visit_cnt; i++)
		if (env->scc_visits[i].scc == key->scc &&
		    !memcmp(env->scc_visits[i].callsites, key->callsites, sizeof(key->callsites)))
			return &env->scc_visits[i];
	return NULL;
}

/* The visit of the loop st is in (on its call chain), if the path entered it. */
static struct scc_visit *scc_visit_of(struct verifier_env *env, const struct vstate *st)
{
	struct scc_visit key;

	return scc_chain(env, st, &key) ? scc_find(env, &key) : NULL;
}

static void scc_log(struct verifier_env *env, const char *what, const struct scc_visit *v)
{
	if (!(env->log.level & 2))
		return;
	verbose(env, "SCC %s (", what);
	for (u32 i = 0; i < MAX_CALL_FRAMES && v->callsites[i]; i++)
		verbose(env, "%u,", v->callsites[i]);
	verbose(env, "%u)\n", v->scc);
}

/* A new checkpoint inside a loop the path has not entered yet (on this chain) enters it. */
static int scc_maybe_enter(struct verifier_env *env, const struct vstate *st)
{
	struct scc_visit key, *v;

	if (!scc_chain(env, st, &key))
		return 0;
	v = scc_find(env, &key);
	if (!v) {
		struct scc_visit *a = grow_one(env->scc_visits, env->scc_visit_cnt,
					       &env->scc_visit_cap, sizeof(*a), 8);

		if (!a)
			return -ENOMEM;
		env->scc_visits = a;
		v = &env->scc_visits[env->scc_visit_cnt++];
		*v = key;
	}
	if (!v->entry) {
		v->entry = st;
		scc_log(env, "enter", v);
	}
	return 0;
}

static void free_backedges(struct scc_visit *v)
{
	while (v->backedges) {
		struct vstate *b = v->backedges;

		v->backedges = b->next;
		state_free(b);
	}
}

/* The kernel's MAX_BACKEDGE_ITERS: past it, every scalar on the back edges' paths is made
 * precise instead. */
#define MAX_BACKEDGE_ITERS 64

/* Marks of each back edge's equal state backtracked along the back edge's path, repeated until
 * a round adds none (a mark found late in one state reaches the states that equalled it). */
static int propagate_backedges(struct verifier_env *env, struct scc_visit *v)
{
	bool changed;
	int i = 0;

	do {
		if (i++ > MAX_BACKEDGE_ITERS) {
			if (env->log.level & 2)
				verbose(env, "propagate_backedges: too many iterations\n");
			for (struct vstate *b = v->backedges; b; b = b->next)
				mark_all_precise(env, b);
			break;
		}
		changed = false;
		for (struct vstate *b = v->backedges; b; b = b->next) {
			int err = propagate_precision(env, b->equal_state, b, &changed);

			if (err)
				return err;
		}
	} while (changed);
	free_backedges(v);
	return 0;
}

/* A state whose last path ended: if it entered its loop, the loop is left, and the marks its
 * back edges still owe are propagated. */
static int scc_maybe_exit(struct verifier_env *env, const struct vstate *st)
{
	struct scc_visit *v = scc_visit_of(env, st);

	if (!v || v->entry != st)
		return 0;
	scc_log(env, "exit", v);
	v->entry = NULL;
	env->num_backedges -= v->num_backedges;
	v->num_backedges = 0;
	update_peak_states(env);
	return propagate_backedges(env, v);
}

/* Whether st's loop visit has back edges pending: then st's precision marks may still grow,
 * so it is compared by range containment and kept until the loop is left (the kernel's
 * incomplete_read_marks()). */
static bool incomplete_marks(struct verifier_env *env, const struct vstate *st)
{
	struct scc_visit *v;

	/* no back edge pending anywhere (every program without a callback or loop back edge):
	 * no chain to compute for each explored state compared */
	if (!env->num_backedges)
		return false;
	v = scc_visit_of(env, st);
	return v && v->backedges;
}

/* A copy of the current state, pruned at insn_idx against sl inside a loop, kept as a back edge
 * of sl's loop visit. */
static int add_backedge(struct verifier_env *env, const struct vstate *sl, int insn_idx)
{
	struct scc_visit *v = scc_visit_of(env, sl);
	struct vstate *b;

	if (!v) {
		verbose(env, "verifier bug: back edge at insn %d outside a loop\n", insn_idx);
		return -EFAULT;
	}
	b = state_new();
	if (!b || state_copy(b, env->cur)) {
		state_free(b);
		return -ENOMEM;
	}
	b->parent = env->cur->parent;
	b->insn_idx = insn_idx;
	b->equal_state = sl;
	scc_log(env, "backedge", v);
	b->next = v->backedges;
	v->backedges = b;
	v->num_backedges++;
	env->num_backedges++;
	update_peak_states(env);
	return 0;
}

int update_branch_counts(struct verifier_env *env, struct vstate *st)
{
	bool explored = false;	/* the first state is the walked one, not a checkpoint */

	while (st) {
		struct vstate *parent;
		int err;

		if (st->branches == 0 || --st->branches)
			break;
		err = scc_maybe_exit(env, st);
		if (err)
			return err;
		parent = st->parent;
		if (explored)
			maybe_free_evicted(env, st);
		st = parent;
		explored = true;
	}
	return 0;
}

/* The kernel's bucket of explored states: (insn ^ callsite) % prog len, so that states of
 * different instructions may share one (max_states_per_insn counts the whole bucket). */
static struct vstate **explored_bucket(struct verifier_env *env, int insn_idx)
{
	u32 h = (u32)(insn_idx ^ cur_frame(env)->callsite);

	return &env->explored[h % env->len];
}

/* The kernel's states_maybe_looping(): the registers of the current frame are bit for bit the
 * same, up to the pointer-specific fields. */
static bool states_maybe_looping(const struct vstate *o, const struct vstate *c)
{
	const struct func_state *of, *cf;

	if (o->curframe != c->curframe)
		return false;
	of = o->frame[o->curframe];
	cf = c->frame[c->curframe];
	for (int r = 0; r < MAX_BPF_REG; r++) {
		const struct reg_state *a = &of->regs[r], *b = &cf->regs[r];

		if (a->type != b->type || a->off != b->off || a->id != b->id ||
		    !scalar_same(&a->s, &b->s))
			return false;
	}
	return true;
}

/* An active iterator of o at a depth other than c's (the kernel's iter_active_depths_differ()):
 * the rounds of an iterator loop are not an infinite loop. */
static bool iter_depths_differ(const struct vstate *o, const struct vstate *c)
{
	for (int fr = (int)o->curframe; fr >= 0; fr--) {
		const struct func_state *of = o->frame[fr], *cf = c->frame[fr];

		for (u32 i = 0; i < of->allocated && i < cf->allocated; i++)
			if (of->stack[i].type[0] == STACK_ITER &&
			    of->stack[i].spilled.iter_state == ITER_ACTIVE &&
			    of->stack[i].spilled.iter_depth != cf->stack[i].spilled.iter_depth)
				return true;
	}
	return false;
}

/* Linux 6.18's is_state_visited().  Returns 1 when an explored state covers the current one
 * (prune), 0 to go on, a negative errno on an infinite loop or no memory.
 *
 * Checkpoint policy: a new explored state is added only when forced (BPF_F_TEST_STATE_FREQ) or
 * when at least 2 jumps and 8 instructions were processed since the last one was added; while a
 * state here is still being walked (a loop), only every 20 jumps or 100 instructions.  A state
 * that keeps missing (more than 3 + 3 * hits misses, counted only when a new state is to be
 * added) is evicted; peak_states counts evicted states until their paths end. */
int is_state_visited(struct verifier_env *env, int insn_idx)
{
	struct vstate *cur = env->cur, *sl, **pprev, **head, *n;
	/* a long history is costly to walk: the kernel checkpoints after 40 entries */
	bool checkpoint = env->aux[insn_idx].calls_callback || env->aux[insn_idx].iter_next ||
			  env->aux[insn_idx].may_goto;
	bool force = (env->prog->prog_flags & BPF_F_TEST_STATE_FREQ) || cur->hist_cnt > 40 ||
		     checkpoint;
	bool add = force, loop = false;
	u32 cnt = 0;

	if (env->jmps_processed - env->prev_jmps_processed >= 2 &&
	    env->insn_processed - env->prev_insn_processed >= 8)
		add = true;

	head = explored_bucket(env, insn_idx);
	pprev = head;
	while ((sl = *pprev) != NULL) {
		cnt++;
		if (sl->insn_idx != insn_idx) {
			pprev = &sl->next;
			continue;
		}
		if (sl->branches) {
			/* a callback's round that brings nothing new ends the rounds */
			if (env->aux[insn_idx].calls_callback) {
				if (states_equal(env, sl, cur, RANGE_WITHIN)) {
					loop = true;	/* the call is a loop (compute_scc()) */
					goto hit;
				}
				goto skip_inf_loop_check;
			}
			/* an iterator's round that brings nothing new, its iterator still active */
			if (env->aux[insn_idx].iter_next) {
				if (states_equal(env, sl, cur, RANGE_WITHIN) && iter_r1_active(env, cur)) {
					loop = true;
					goto hit;
				}
				goto skip_inf_loop_check;
			}
			/* a may_goto round deeper that brings nothing new */
			if (env->aux[insn_idx].may_goto &&
			    sl->may_goto_depth != cur->may_goto_depth &&
			    states_equal(env, sl, cur, RANGE_WITHIN)) {
				loop = true;
				goto hit;
			}
			if (states_maybe_looping(sl, cur) && states_equal(env, sl, cur, EXACT) &&
			    !iter_depths_differ(sl, cur) &&
			    sl->may_goto_depth == cur->may_goto_depth &&
			    sl->callback_unroll_depth == cur->callback_unroll_depth) {
				verbose_linfo(env, (u32)insn_idx, "; ");
				verbose(env, "infinite loop detected at insn %d\n", insn_idx);
				verbose(env, "cur state:");
				print_state(env, env->cur, cur_frame(env), true);
				verbose(env, "old state:");
				print_state(env, sl, sl->frame[sl->curframe], true);
				return -EINVAL;
			}
skip_inf_loop_check:
			/* inside a loop, iterations differ: checkpoint less often */
			if (!force && env->jmps_processed - env->prev_jmps_processed < 20 &&
			    env->insn_processed - env->prev_insn_processed < 100)
				add = false;
			goto miss;
		}
		/* sl's marks may still grow while its loop has back edges pending: contain */
		loop = incomplete_marks(env, sl);
		if (states_equal(env, sl, cur, loop ? RANGE_WITHIN : NOT_EXACT)) {
			int err;
hit:

			sl->hit_cnt++;
			/* what made sl safe must be precise on this path too */
			err = hist_push_jmp(env);
			if (!err)
				err = propagate_precision(env, sl, cur, NULL);
			/* and what sl learns later, once its loop is left */
			if (!err && loop)
				err = add_backedge(env, sl, insn_idx);
			if (err)
				return err;
			return 1;
		}
miss:
		/* without a new state, loop iterations would evict the early ones */
		if (add)
			sl->miss_cnt++;
		/* a callback's call keeps its states longer: the rounds converge against them */
		u32 tolerance = checkpoint && sl->branches ? 64 : 3;

		if (sl->miss_cnt > sl->hit_cnt * tolerance + tolerance) {
			*pprev = sl->next;
			sl->next = NULL;
			sl->evicted = true;
			env->explored_states_size--;
			env->free_list_size++;
			maybe_free_evicted(env, sl);
			continue;
		}
		pprev = &sl->next;
	}
	if (env->max_states_per_insn < cnt)
		env->max_states_per_insn = cnt;
	if (!add)
		return 0;
	{
		struct vstate **a = grow_one(env->all_states, env->all_cnt, &env->all_cap,
					     sizeof(*a), 64);

		if (!a)
			return -ENOMEM;
		env->all_states = a;
	}
	n = state_new();
	if (!n || state_copy(n, cur)) {
		state_free(n);
		return -ENOMEM;
	}
	env->total_states++;
	env->explored_states_size++;
	update_peak_states(env);
	env->prev_jmps_processed = env->jmps_processed;
	env->prev_insn_processed = env->insn_processed;
	n->insn_idx = insn_idx;
	n->branches = 1;
	cur->dfs_depth = n->dfs_depth + 1;
	n->parent = cur->parent;
	n->last_insn_idx = env->path_prev;
	clear_precise(n);
	cur->parent = n;
	cur->first_insn_idx = insn_idx;
	cur->hist_cnt = 0;
	env->hist_this_insn = false;
	n->all_idx = env->all_cnt;
	env->all_states[env->all_cnt++] = n;
	n->next = *head;
	*head = n;
	return scc_maybe_enter(env, n);
}

struct vstate *push_stack(struct verifier_env *env, int insn_idx, int prev_insn_idx)
{
	struct vstate *st;

	{
		struct pending *p = grow_one(env->stack, env->stack_size, &env->stack_cap,
					     sizeof(*p), 64);

		if (!p)
			return NULL;
		env->stack = p;
	}
	st = state_new();
	if (!st || state_copy(st, env->cur)) {
		state_free(st);
		return NULL;
	}
	st->parent = env->cur->parent;
	st->branches = 1;
	env->stack[env->stack_size++] = (struct pending){ st, insn_idx, prev_insn_idx,
							   env->log.end_pos };
	if (env->stack_size > BPF_COMPLEXITY_LIMIT_JMP_SEQ) {
		verbose(env, "The sequence of %u jumps is too complex.\n", env->stack_size);
		return NULL;
	}
	if (st->parent)
		st->parent->branches++;
	return st;
}

/* Replaces the current state with the most recent pending one; -ENOENT when none is left. */
int pop_stack(struct verifier_env *env, bool pop_log)
{
	struct pending p;

	if (!env->stack_size)
		return -ENOENT;
	p = env->stack[--env->stack_size];
	state_free(env->cur);
	env->cur = p.st;
	env->insn_idx = p.insn_idx;
	env->prev_insn_idx = p.prev_insn_idx;
	env->hist_this_insn = false;
	if (pop_log)
		vlog_reset(&env->log, p.log_pos);
	return 0;
}

void free_explored(struct verifier_env *env)
{
	for (u32 i = 0; i < env->all_cnt; i++)
		state_free(env->all_states[i]);
	for (u32 i = 0; i < env->scc_visit_cnt; i++)
		free_backedges(&env->scc_visits[i]);
	env->num_backedges = 0;
	free(env->scc_visits);
	env->scc_visits = NULL;
	env->scc_visit_cnt = env->scc_visit_cap = 0;
	free(env->all_states);
	env->all_states = NULL;
	env->all_cnt = 0;
	env->all_cap = 0;
	free(env->explored);
	env->explored = NULL;
	while (env->stack_size)
		state_free(env->stack[--env->stack_size].st);
	free(env->stack);
	env->stack = NULL;
	env->stack_cap = 0;
}
