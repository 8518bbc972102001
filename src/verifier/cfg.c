/* Program structure, before any value is tracked: subprograms and the control-flow graph.
 *
 * add_subprogs(): every bpf-to-bpf call (src_reg BPF_PSEUDO_CALL) and every callback (an
 * LD_IMM64 with src_reg BPF_PSEUDO_FUNC) starts a subprogram at its target; subprog[] is kept sorted by start, with a sentinel subprog[cnt].start == len.
 * check_subprogs(): every jump stays inside its subprogram and each subprogram ends with an exit
 * or an unconditional jump (no falling from one into the next).
 * check_cfg(): an iterative depth-first walk from insn 0 (explicit stack: no recursion, so 100k
 * instruction programs are fine) that refuses jumps out of the program, unreachable instructions
 * and jumps into the second half of a 64-bit immediate load.  Back-edges are allowed (the kernel
 * allows bounded loops to privileged loaders; do_check proves them bounded), also through calls:
 * recursion ends at the call depth limit in do_check, as in the kernel.  The walk marks prune points: conditional
 * jumps, jump targets and the instruction after a call; a callback's LD_IMM64 is an edge to the
 * callback, and a helper that calls callbacks (bpf_loop, bpf_for_each_map_elem) is marked
 * calls_callback: a state is always kept there, as the callback's exit returns to it.  Each instruction's edges are tried in
 * order: state[t] records which edges were pushed (FALLTHROUGH, then BRANCH) so the walk resumes
 * where it stopped, as the kernel's does, and gives the same first error.
 * compute_scc(): the loops of the program, as strongly connected components of the graph of
 * insn_successors() (calls do not enter their callee).  Tarjan's algorithm, iterative (an explicit
 * DFS stack of (insn, next successor) pairs, O(len) memory), with roots in insn order and
 * successors fall-through first, so components complete in the kernel's order; only components
 * that are loops (two or more insns, one insn jumping to itself, or a helper call that runs a
 * callback, which repeats it) get a number, from 1 in completion order.  The log shows the number in the liveness section (liveness.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "exec/kfuncs.h"
#include "verifier/env.h"

static bool is_ldimm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

int find_subprog(struct verifier_env *env, int off)
{
	u32 lo = 0, hi = env->subprog_cnt;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (env->subprog[mid].start == off)
			return (int)mid;
		if (env->subprog[mid].start < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

int find_containing_subprog(struct verifier_env *env, int off)
{
	u32 lo = 0, hi = env->subprog_cnt; /* the last subprog starting at or before off */

	while (hi - lo > 1) {
		u32 mid = (lo + hi) / 2;

		if (env->subprog[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

static int add_subprog(struct verifier_env *env, s64 off)
{
	u32 i;

	if (off >= env->len || off < 0) {
		verbose(env, "call to invalid destination\n");
		return -EINVAL;
	}
	if (find_subprog(env, (int)off) >= 0)
		return 0;
	if (env->subprog_cnt >= MAX_SUBPROGS) {
		verbose(env, "too many subprograms\n");
		return -E2BIG;
	}
	/* insertion keeps the array sorted */
	for (i = env->subprog_cnt; i > 0 && env->subprog[i - 1].start > off; i--)
		env->subprog[i] = env->subprog[i - 1];
	memset(&env->subprog[i], 0, sizeof(env->subprog[i]));
	env->subprog[i].start = (int)off;
	env->subprog_cnt++;
	return 0;
}

int add_subprogs(struct verifier_env *env)
{
	int err = add_subprog(env, 0);

	for (u32 i = 0; !err && i < env->len; i++) {
		const struct bpf_insn *in = &env->insns[i];

		/* a callback (bpf_loop's, ...) is a subprogram too */
		if (is_ldimm64(in) && in->src_reg == BPF_PSEUDO_FUNC) {
			err = add_subprog(env, (s64)i + in->imm + 1);
			i++;
			continue;
		}
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			err = add_kfunc_call(env, in);
		if (is_pseudo_call(in))
			err = add_subprog(env, (s64)i + in->imm + 1);
	}
	if (err)
		return err;
	env->subprog[env->subprog_cnt].start = (int)env->len;
	if (env->log.level & 2)
		for (u32 i = 0; i < env->subprog_cnt; i++)
			verbose(env, "func#%u @%d\n", i, env->subprog[i].start);
	return 0;
}

bool insn_is_ld_abs(const struct bpf_insn *in)
{
	return BPF_CLASS(in->code) == BPF_LD &&
	       (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND);
}

bool insn_is_tail_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 &&
	       in->imm == BPF_FUNC_tail_call;
}

bool subprog_has_insn(const struct verifier_env *env, u32 sub,
		      bool (*pred)(const struct bpf_insn *))
{
	for (int i = env->subprog[sub].start; i < env->subprog[sub + 1].start; i++)
		if (pred(&env->insns[i]))
			return true;
	return false;
}

/* Without BTF func info a subprogram may not end the program abnormally, by LD_ABS/LD_IND or
 * a tail call: the kernel's check_abnormal_return(), subprogram by subprogram.  (With it, the
 * subprogram must return an integer: check_btf_func().) */
static int check_abnormal_return(struct verifier_env *env)
{
	for (u32 sub = 1; sub < env->subprog_cnt; sub++) {
		if (subprog_has_insn(env, sub, insn_is_ld_abs)) {
			verbose(env, "LD_ABS is not allowed in subprogs without BTF\n");
			return -EINVAL;
		}
		if (subprog_has_insn(env, sub, insn_is_tail_call)) {
			verbose(env, "tail_call is not allowed in subprogs without BTF\n");
			return -EINVAL;
		}
	}
	return 0;
}

int check_subprogs(struct verifier_env *env)
{
	u32 cur = 0;
	s64 start = env->subprog[0].start, end = env->subprog[1].start;

	for (u32 i = 0; i < env->len; i++) {
		u8 code = env->insns[i].code;
		u8 cls = BPF_CLASS(code);

		if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(code) != BPF_EXIT &&
		    BPF_OP(code) != BPF_CALL) {
			s64 off = code == (BPF_JMP32 | BPF_JA) ? (s64)i + env->insns[i].imm + 1
							       : (s64)i + env->insns[i].off + 1;

			if (off < start || off >= end) {
				verbose(env, "jump out of range from insn %u to %lld\n", i,
					(long long)off);
				return -EINVAL;
			}
		}
		if (i == end - 1) {
			if (code != (BPF_JMP | BPF_EXIT) && code != (BPF_JMP32 | BPF_JA) &&
			    code != (BPF_JMP | BPF_JA)) {
				verbose(env, "last insn is not an exit or jmp\n");
				return -EINVAL;
			}
			start = end;
			cur++;
			if (cur < env->subprog_cnt)
				end = env->subprog[cur + 1].start;
		}
	}
	return env->func_info_cnt ? 0 : check_abnormal_return(env);
}

/* DFS colours and edge marks, as in the kernel's walk */
#define DISCOVERED 0x10
#define EXPLORED 0x20
#define FALLTHROUGH 1
#define BRANCH 2
#define DONE 0
#define KEEP 1

struct cfg_walk {
	u8 *state;
	u32 *stack;
	u32 sp;
};

static int push_edge(struct verifier_env *env, struct cfg_walk *w, u32 t, s64 to, int e,
		     bool loop_ok)
{
	if (e == FALLTHROUGH && w->state[t] >= (DISCOVERED | FALLTHROUGH))
		return DONE;
	if (e == BRANCH && w->state[t] >= (DISCOVERED | BRANCH))
		return DONE;
	if (to < 0 || to >= env->len) {
		verbose(env, "jump out of range from insn %u to %lld\n", t, (long long)to);
		return -EINVAL;
	}
	if (e == BRANCH) {
		env->aux[to].prune_point = 1;
		env->aux[to].jmp_point = 1;
	}
	if (w->state[to] == 0) {
		w->state[t] = DISCOVERED | e;
		w->state[to] = DISCOVERED;
		w->stack[w->sp++] = (u32)to;
		return KEEP;
	}
	if ((w->state[to] & 0xf0) == DISCOVERED) {
		if (loop_ok)
			return DONE;
		verbose(env, "back-edge from insn %u to %lld\n", t, (long long)to);
		return -EINVAL;
	}
	w->state[t] = DISCOVERED | e;
	return DONE;
}

/* Helpers that call a callback synchronously (the kernel's is_sync_callback_calling_insn()). */
static bool calls_callback_helper(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 &&
	       (in->imm == BPF_FUNC_loop || in->imm == BPF_FUNC_for_each_map_elem ||
		in->imm == BPF_FUNC_user_ringbuf_drain || in->imm == BPF_FUNC_find_vma);
}

/* Where a call (or a callback's LD_IMM64) continues: states are kept there, and the path's
 * history records the return. */
static void mark_after_call(struct verifier_env *env, u32 next)
{
	if (next < env->len) {
		env->aux[next].prune_point = 1;
		env->aux[next].jmp_point = 1;
	}
}

static int visit(struct verifier_env *env, struct cfg_walk *w, u32 t)
{
	const struct bpf_insn *in = &env->insns[t];
	u8 cls = BPF_CLASS(in->code);
	int ret;

	/* LD_IMM64 of a callback: like a call, the callee is reached from here (the kernel's
	 * visit_func_call_insn()) */
	if (is_ldimm64(in) && in->src_reg == BPF_PSEUDO_FUNC) {
		ret = push_edge(env, w, t, (s64)t + 2, FALLTHROUGH, false);
		if (ret)
			return ret;
		mark_after_call(env, t + 2);
		env->aux[t].prune_point = 1;
		return push_edge(env, w, t, (s64)t + in->imm + 1, BRANCH, true);
	}
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return push_edge(env, w, t, (s64)t + (is_ldimm64(in) ? 2 : 1), FALLTHROUGH, false);
	switch (BPF_OP(in->code)) {
	case BPF_EXIT:
		return DONE;
	case BPF_CALL:
		/* the callback returns here, maybe many times: a state is always kept */
		if (calls_callback_helper(in)) {
			env->aux[t].calls_callback = 1;
			env->aux[t].prune_point = 1;
			env->aux[t].jmp_point = 1;
		}
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL) {
			const struct kfunc_desc *k = kfunc_of_insn(in);

			if (k && (k->flags & KF_ITER_NEXT)) {
				env->aux[t].iter_next = 1;
				env->aux[t].prune_point = 1;
			}
		}
		ret = push_edge(env, w, t, (s64)t + 1, FALLTHROUGH, false);
		if (ret)
			return ret;
		mark_after_call(env, t + 1);
		if (in->src_reg == BPF_PSEUDO_CALL) {
			env->aux[t].prune_point = 1;
			/* recursion is refused by do_check (call depth), not here */
			ret = push_edge(env, w, t, (s64)t + in->imm + 1, BRANCH, true);
		}
		return ret;
	case BPF_JA: {
		s64 to = (s64)t + 1 + (cls == BPF_JMP ? in->off : in->imm);

		ret = push_edge(env, w, t, to, FALLTHROUGH, true);
		if (ret)
			return ret;
		env->aux[to].prune_point = 1;
		env->aux[to].jmp_point = 1;
		return ret;
	}
	default:
		env->aux[t].prune_point = 1;
		if (in->code == (BPF_JMP | BPF_JCOND) && in->src_reg == BPF_MAY_GOTO)
			env->aux[t].may_goto = 1;
		ret = push_edge(env, w, t, (s64)t + 1, FALLTHROUGH, true);
		if (ret)
			return ret;
		return push_edge(env, w, t, (s64)t + in->off + 1, BRANCH, true);
	}
}

int check_cfg(struct verifier_env *env)
{
	struct cfg_walk w;
	int ret = 0;

	w.state = calloc(env->len, 1);
	w.stack = calloc(env->len, sizeof(u32));
	if (!w.state || !w.stack) {
		ret = -ENOMEM;
		goto out_free;
	}
	w.state[0] = DISCOVERED;
	w.stack[0] = 0;
	w.sp = 1;
	while (w.sp > 0) {
		u32 t = w.stack[w.sp - 1];

		ret = visit(env, &w, t);
		if (ret < 0)
			goto out_free;
		if (ret == DONE) {
			w.state[t] = EXPLORED;
			w.sp--;
		}
	}
	for (u32 i = 0; i < env->len; i++) {
		if (w.state[i] != EXPLORED) {
			verbose(env, "unreachable insn %u\n", i);
			ret = -EINVAL;
			goto out_free;
		}
		if (is_ldimm64(&env->insns[i])) {
			if (w.state[i + 1] != 0) {
				verbose(env, "jump into the middle of ldimm64 insn %u\n", i);
				ret = -EINVAL;
				goto out_free;
			}
			i++;
		}
	}
	ret = 0;
out_free:
	free(w.stack);
	free(w.state);
	return ret;
}

int insn_successors(const struct verifier_env *env, u32 idx, u32 succ[2])
{
	const struct bpf_insn *in = &env->insns[idx];
	u8 cls = BPF_CLASS(in->code);

	if (cls != BPF_JMP && cls != BPF_JMP32) {
		succ[0] = idx + (is_ldimm64(in) ? 2 : 1);
		return 1;
	}
	switch (BPF_OP(in->code)) {
	case BPF_EXIT:
		return 0;
	case BPF_CALL:
		succ[0] = idx + 1;
		return 1;
	case BPF_JA:
		succ[0] = (u32)((s64)idx + 1 + (cls == BPF_JMP ? in->off : in->imm));
		return 1;
	default:
		succ[0] = idx + 1;
		succ[1] = (u32)((s64)idx + 1 + in->off);
		return succ[1] == succ[0] ? 1 : 2;
	}
}

/* low[] of an insn whose component is complete: larger than any preorder number, so it never
 * lowers another insn's low link. */
#define SCC_DONE UINT32_MAX

int compute_scc(struct verifier_env *env)
{
	struct dfs_frame {
		u32 insn;
		u32 next;	/* index of the next successor to look at */
	} *dfs;
	u32 *pre, *low, *comp;	/* preorder number (0: not visited), low link, Tarjan's stack */
	u32 n = env->len, order = 0, ncomp = 0, next_id = 1;
	int ret = 0;

	dfs = calloc(n ? n : 1, sizeof(*dfs));
	pre = calloc(n ? n : 1, sizeof(*pre));
	low = calloc(n ? n : 1, sizeof(*low));
	comp = calloc(n ? n : 1, sizeof(*comp));
	if (!dfs || !pre || !low || !comp) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (u32 root = 0; root < n; root++) {
		u32 sp = 0;

		/* an LD_IMM64's second half is no insn of its own: nothing reaches it */
		if (pre[root] || (root > 0 && is_ldimm64(&env->insns[root - 1])))
			continue;
		dfs[sp++] = (struct dfs_frame){ root, 0 };
		pre[root] = low[root] = ++order;
		comp[ncomp++] = root;
		while (sp) {
			struct dfs_frame *f = &dfs[sp - 1];
			u32 w = f->insn, succ[2];
			int cnt = insn_successors(env, w, succ);
			bool self = false;

			if (f->next < (u32)cnt) {
				u32 s = succ[f->next++];

				if (!pre[s]) {
					pre[s] = low[s] = ++order;
					comp[ncomp++] = s;
					dfs[sp++] = (struct dfs_frame){ s, 0 };
				} else if (low[s] < low[w]) {
					low[w] = low[s];
				}
				continue;
			}
			sp--;
			if (sp && low[w] < low[dfs[sp - 1].insn])
				low[dfs[sp - 1].insn] = low[w];
			if (low[w] < pre[w])
				continue;	/* w's component is rooted further up */
			for (int j = 0; j < cnt; j++)
				self |= succ[j] == w;
			self |= comp[ncomp - 1] != w;	/* more than one insn */
			/* a helper call that runs a callback: a loop of its own (6.18.y) */
			self |= env->aux[w].calls_callback;
			for (;;) {
				u32 t = comp[--ncomp];

				low[t] = SCC_DONE;
				env->aux[t].scc = self ? next_id : 0;
				if (t == w)
					break;
			}
			if (self)
				next_id++;
		}
	}
out_free:
	free(comp);
	free(low);
	free(pre);
	free(dfs);
	return ret;
}
