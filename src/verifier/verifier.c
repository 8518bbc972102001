/* bpf_check(): the verifier's driver, in the kernel's order.
 *
 *   log attributes -> subprograms -> map loads (ldimm64) -> control-flow graph -> loops (SCCs)
 *   -> register liveness (the level-2 "Live regs" section) -> do_check (walk every path,
 *   depth-first, pruning at checkpoints) -> combined stack depth -> rewrites (packet-pointer ctx
 *   loads) -> "processed N insns ..." statistics line -> log finalisation (ENOSPC when the log
 *   did not fit replaces the verdict, as in the kernel).
 *
 * do_check() is one loop over instructions with an explicit stack of pending branches; each
 * iteration logs the instruction (level 1: only the failing path survives in the log, the log of
 * paths that ended well is rewound) and dispatches by class to check_*.c.  Memory: per-insn aux
 * data, explored states at prune points (bounded by eviction) and the pending stack.
 */
#include <errno.h>
#include <stdlib.h>

#include "exec/ctx.h"
#include "exec/kfuncs.h"
#include "map/map.h"
#include "prog/prog.h"
#include "verifier/dynptr.h"
#include "verifier/env.h"
#include "verifier/verifier.h"

static bool any_scratched(const struct verifier_env *env)
{
	for (int i = 0; i < MAX_BPF_REG; i++)
		if (env->scratched[i])
			return true;
	return env->scratched_slots != 0;
}

/* The state comment after the previous instruction ("; R0=42"), or "N:" and the state. */
static void print_insn_state(struct verifier_env *env, int idx)
{
	if (env->prev_log_pos && env->prev_log_pos == env->log.end_pos) {
		u64 pos = env->insn_log_len;
		u64 col = pos + 4 > 40 ? pos + 4 : 40;

		col = (col + 7) / 8 * 8;
		vlog_reset(&env->log, env->prev_log_pos - 1);
		verbose(env, "%*c;", (int)(col - pos - 1), ' ');
	} else {
		verbose(env, "%d:", idx);
	}
	print_state(env, env->cur, cur_frame(env), false);
}

/* A kfunc a program may call while holding a bpf_spin_lock (KF_SPIN_OK: the number iterator's;
 * the kernel's list also has the graph and resilient-lock kfuncs, which userbpf lacks). */
static bool kfunc_spin_allowed(const struct bpf_insn *insn)
{
	const struct kfunc_desc *k;

	if (insn->src_reg != BPF_PSEUDO_KFUNC_CALL)
		return false;
	k = kfunc_of_insn(insn);
	return k && (k->flags & KF_SPIN_OK);
}

bool in_sleepable(const struct verifier_env *env)
{
	return env->prog->prog_flags & BPF_F_SLEEPABLE;
}

/* Walks every path from subprogram sub's first instruction: the main program (0) with R1 = ctx,
 * or a global function with its arguments as its prototype says. */
static int do_check(struct verifier_env *env, u32 sub)
{
	bool pop_log = !(env->log.level & 2);
	bool do_print_state = false;
	struct func_state *f0;
	int err;

	env->explored = calloc(env->len ? env->len : 1, sizeof(*env->explored));
	env->cur = state_new();
	if (!env->cur || !env->explored)
		return -ENOMEM;
	f0 = calloc(1, sizeof(*f0));
	if (!f0)
		return -ENOMEM;
	env->cur->frame[0] = f0;
	env->cur->branches = 1;
	init_func_state(f0, -1, 0, sub);
	if (sub) {
		const struct subprog_info *sp = &env->subprog[sub];

		if (env->log.level & BPF_LOG_LEVEL_ANY)
			verbose(env, "Validating %s() func#%u...\n", sp->name, sub);
		for (u32 a = 0; a < sp->nargs; a++) {
			struct reg_state *r = &f0->regs[BPF_REG_1 + a];

			if (sp->arg[a] == GARG_CTX) {
				mark_ptr(r, PTR_TO_CTX);
			} else if (sp->arg[a] == GARG_DYNPTR) {
				/* some dynptr of the caller's (6.18 says an skb's: dynptr.h) */
				mark_const_dynptr(env, r, DYNPTR_TYPE_SKB);
			} else if (sp->arg[a] == GARG_MEM) {
				/* any memory of the pointee's size, or NULL */
				mark_ptr(r, PTR_TO_MEM_OR_NULL);
				r->mem_size = sp->arg_size[a];
				r->id = ++env->id_gen;
			} else {
				mark_reg_unknown(r);
			}
		}
	} else if (env->prog->type == USERBPF_PROG_TYPE_EXT) {
		struct bpf_map *ctx = &env->ext_ctx;

		ctx->map_type = BPF_MAP_TYPE_ARRAY;
		ctx->key_size = 4;
		ctx->value_size = env->prog->ctx_size;
		ctx->max_entries = 1;
		ctx->map_flags = env->prog->ctx_writable ? 0 : BPF_F_RDONLY_PROG;
		ctx->spin_lock_off = ctx->timer_off = ctx->wq_off = ctx->task_work_off = -1;
		mark_ptr(&f0->regs[BPF_REG_1], PTR_TO_MAP_VALUE);
		f0->regs[BPF_REG_1].map = ctx;
		mark_reg_const(&f0->regs[BPF_REG_2], env->prog->ctx_size); /* R2 = ctx_size */
	} else {
		mark_ptr(&f0->regs[BPF_REG_1], PTR_TO_CTX);
	}
	if (!sub)
		log_main_args(env);
	mark_all_scratched(env);
	env->insn_idx = env->subprog[sub].start;
	env->cur->first_insn_idx = env->insn_idx;
	env->prev_insn_idx = -1;
	env->prev_linfo = NULL;
	env->path_prev = -1;
	for (u32 i = 0; i + 1 < env->len; i++) {
		if (env->insns[i].code == (BPF_LD | BPF_DW | BPF_IMM))
			env->aux[++i].ld_imm64_hi = 1;
	}

	for (;;) {
		struct bpf_insn *insn;
		u8 cls;
		bool done = false;
		int this_idx = env->insn_idx;

		env->hist_this_insn = false;

		if (env->insn_idx < 0 || (u32)env->insn_idx >= env->len) {
			verbose(env, "invalid insn idx %d insn_cnt %u\n", env->insn_idx, env->len);
			return -EFAULT;
		}
		insn = &env->insns[env->insn_idx];
		cls = BPF_CLASS(insn->code);
		if (++env->insn_processed > BPF_COMPLEXITY_LIMIT_INSNS) {
			verbose(env, "BPF program is too large. Processed %u insn\n",
				env->insn_processed);
			return -E2BIG;
		}
		env->aux[env->insn_idx].seen = 1;
		if (env->aux[env->insn_idx].prune_point) {
			err = is_state_visited(env, env->insn_idx);
			if (err < 0)
				return err;
			if (err == 1) {
				if (env->log.level & BPF_LOG_LEVEL_ANY) {
					if (do_print_state)
						verbose(env, "\nfrom %d to %d: safe\n",
							env->path_prev, env->insn_idx);
					else
						verbose(env, "%d: safe\n", env->insn_idx);
				}
				goto process_exit;
			}
		}
		/* a jump target (or any insn not reached from the one before it): record where
		 * control came from, for backtracking */
		err = hist_push_jmp(env);
		if (err)
			return err;
		if ((env->log.level & 2) && do_print_state) {
			verbose(env, "\nfrom %d to %d:", env->path_prev, env->insn_idx);
			print_state(env, env->cur, cur_frame(env), true);
			do_print_state = false;
		}
		if (env->log.level & BPF_LOG_LEVEL_ANY) {
			if (any_scratched(env))
				print_insn_state(env, env->insn_idx);
			verbose_linfo(env, (u32)env->insn_idx, "; ");
			env->prev_log_pos = env->log.end_pos;
			verbose(env, "%d: ", env->insn_idx);
			print_insn(env, insn);
			verbose(env, "\n");
			env->insn_log_len = env->log.end_pos - env->prev_log_pos;
			env->prev_log_pos = env->log.end_pos;
		}

		err = sl_insn_begin(env);
		if (err)
			return err;
		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			err = check_alu_op(env, insn);
			break;
		case BPF_LDX:
		case BPF_STX:
		case BPF_ST:
			err = check_mem_insn(env, insn);
			break;
		case BPF_LD:
			if (BPF_MODE(insn->code) == BPF_ABS || BPF_MODE(insn->code) == BPF_IND) {
				err = check_ld_abs(env, insn);
				/* 6.18: in a subprogram, a load that fails ends the program with 0,
				 * walked as a return from the subprogram with r0 = 0; the next
				 * instruction is the load that succeeded */
				if (!err && env->cur->curframe) {
					if (!push_stack(env, env->insn_idx + 1, env->insn_idx))
						return -ENOMEM;
					mark_reg_const(&cur_regs(env)[BPF_REG_0], 0);
					goto exit_insn;
				}
			} else if (BPF_MODE(insn->code) == BPF_IMM) {
				err = check_ld_imm(env, insn);
				env->insn_idx++;
			} else {
				verbose(env, "invalid BPF_LD mode\n");
				return -EINVAL;
			}
			break;
		default: { /* BPF_JMP, BPF_JMP32 */
			u8 op = BPF_OP(insn->code);

			env->jmps_processed++;
			if (op == BPF_CALL) {
				if (BPF_SRC(insn->code) != BPF_K ||
				    (insn->src_reg != BPF_PSEUDO_KFUNC_CALL && insn->off != 0) ||
				    (insn->src_reg != 0 && insn->src_reg != BPF_PSEUDO_CALL &&
				     insn->src_reg != BPF_PSEUDO_KFUNC_CALL) ||
				    insn->dst_reg != 0 || cls == BPF_JMP32) {
					verbose(env, "BPF_CALL uses reserved fields\n");
					return -EINVAL;
				}
				/* (bpf-to-bpf calls are fine, as in 6.18: the callee is held to
				 * the same rule; so are the number iterator's kfuncs, the
				 * kernel's kfunc_spin_allowed()) */
				if (env->cur->active_locks && insn->src_reg != BPF_PSEUDO_CALL &&
				    (insn->imm != BPF_FUNC_spin_unlock ||
				     insn->src_reg == BPF_PSEUDO_KFUNC_CALL) &&
				    !kfunc_spin_allowed(insn)) {
					verbose(env, "function calls are not allowed while holding a "
						     "lock\n");
					return -EINVAL;
				}
				if (insn->src_reg == BPF_PSEUDO_CALL)
					err = check_func_call(env, insn, &env->insn_idx);
				else if (insn->src_reg == BPF_PSEUDO_KFUNC_CALL)
					err = check_kfunc_call(env, insn, env->insn_idx);
				else
					err = check_helper_call(env, insn, &env->insn_idx);
				if (err == TAIL_CALL_EXIT)
					goto exit_insn;
			} else if (op == BPF_JA) {
				if (BPF_SRC(insn->code) != BPF_K || insn->src_reg || insn->dst_reg ||
				    (cls == BPF_JMP && insn->imm) || (cls == BPF_JMP32 && insn->off)) {
					verbose(env, "BPF_JA uses reserved fields\n");
					return -EINVAL;
				}
				env->insn_idx += (cls == BPF_JMP ? insn->off : insn->imm) + 1;
				err = sl_insn_commit(env);
				if (err)
					return err;
				env->path_prev = this_idx;
				continue;
			} else if (op == BPF_EXIT) {
				if (BPF_SRC(insn->code) != BPF_K || insn->imm || insn->src_reg ||
				    insn->dst_reg || cls == BPF_JMP32) {
					verbose(env, "BPF_EXIT uses reserved fields\n");
					return -EINVAL;
				}
exit_insn:;
				/* (a tail call's, from a subprogram, comes here too, and an LD_ABS's) */
				bool from_tail_call = BPF_OP(insn->code) == BPF_CALL ||
						      BPF_CLASS(insn->code) == BPF_LD;
				int exit_idx = env->insn_idx;

				err = check_exit(env, &env->insn_idx, &done);
				if (!err)
					err = sl_insn_commit(env);
				if (err)
					return err;
				if (!done) {
					/* "from <the callee's exit> to <the return address>" (not
					 * after a tail call's return: 6.18 prints the state only) */
					env->prev_insn_idx = exit_idx;
					do_print_state = !from_tail_call;
					env->path_prev = this_idx;
					continue;
				}
				goto process_exit;
			} else if (insn->code == (BPF_JMP | BPF_JCOND)) {
				err = check_may_goto(env, insn, &env->insn_idx);
			} else {
				env->prev_insn_idx = env->insn_idx;
				err = check_cond_jmp(env, insn, &env->insn_idx);
				if (err == 1) {
					/* the normal path below commits the other outcomes */
					err = sl_insn_commit(env);
					if (err)
						return err;
					goto process_exit;
				}
				if (!err && (env->log.level & BPF_LOG_LEVEL_ANY))
					print_insn_state(env, this_idx);
			}
			break;
		}
		}
		if (!err)
			err = sl_insn_commit(env);
		if (err)
			return err;
		env->prev_insn_idx = env->insn_idx;
		env->insn_idx++;
		env->path_prev = this_idx;
		continue;
process_exit:
		mark_all_scratched(env);
		err = update_branch_counts(env, env->cur);
		if (!err)
			err = sl_update(env);
		if (err)
			return err;
		err = pop_stack(env, pop_log);
		if (err == -ENOENT)
			break;
		env->path_prev = env->prev_insn_idx;
		do_print_state = true;
	}
	if (pop_log)
		vlog_reset(&env->log, 0);
	return 0;
}

/* The stack depth check (the kernel's check_max_stack_depth()), after verification, when each
 * subprogram's stack depth is known.  From main, and from each timer callback (which runs on a
 * stack of its own), every chain of calls the code holds, reachable or not: a bpf-to-bpf call,
 * or an LD_IMM64 of a callback, which runs below the frame that names it (but a timer callback
 * named so does not).  Each frame counts rounded up to 16 bytes, as for a JITed program, and a
 * chain must stay within 512; no subprogram with a tail call may run below 256 bytes or more of
 * frames.  Nor may a callback (a timer's too) hold one, or call one that does: 6.18.44 checks
 * this at the end of each function's code, after its callees' chains, unless the function is
 * the root of the walk (a timer callback with a tail call of its own is reported by the walk
 * from main instead).  (6.12's private stacks for tracing programs are not in the live 6.18.44
 * kernel, nor its refusal of LD_ABS in a callback's code the verifier never walks: neither.) */
/* The chains from subprogram idx, entered below depth bytes of frames as frame number frame,
 * below a callback if in_cb; *tail_call: whether idx or a function below it has a tail call. */
static int check_stack_chains(struct verifier_env *env, int idx, int depth, int frame,
			      bool in_cb, bool *tail_call)
{
	struct subprog_info *sp = env->subprog;

	*tail_call = subprog_has_insn(env, (u32)idx, insn_is_tail_call);
	if (idx && depth >= 256 && *tail_call) {
		verbose(env, "tail_calls are not allowed when call stack of previous frames is %d "
			     "bytes. Too large\n", depth);
		return -EACCES;
	}
	depth += (int)round_up(sp[idx].stack_depth, 16);
	if (depth > MAX_BPF_STACK) {
		verbose(env, "combined stack size of %d calls is %d. Too large\n", frame + 1, depth);
		return -EACCES;
	}
	in_cb |= sp[idx].is_cb;
	for (int i = sp[idx].start; i < sp[idx + 1].start; i++) {
		const struct bpf_insn *in = &env->insns[i];
		bool call = in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
		bool below;
		int callee, err;

		if (!call && !(in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
			       in->src_reg == BPF_PSEUDO_FUNC))
			continue;
		callee = find_subprog(env, i + in->imm + 1);
		if (callee < 0)
			return -EFAULT;
		if (sp[callee].is_async_cb) {
			if (subprog_has_insn(env, (u32)callee, insn_is_tail_call)) {
				verbose(env, "verifier bug: subprog has tail_call and async cb\n");
				return -EFAULT;
			}
			/* a timer callback named by LD_IMM64 runs later, elsewhere */
			if (!call)
				continue;
		}
		if (frame + 1 >= MAX_CALL_FRAMES) {
			verbose(env, "the call stack of %d frames is too deep !\n", frame + 1);
			return -E2BIG;
		}
		err = check_stack_chains(env, callee, depth, frame + 1, in_cb, &below);
		if (err)
			return err;
		*tail_call |= below;
	}
	if (*tail_call && frame && in_cb) {
		verbose(env, "cannot tail call within callback\n");
		return -EINVAL;
	}
	return 0;
}

static int check_stack_depth(struct verifier_env *env)
{
	for (int s = (int)env->subprog_cnt - 1; s >= 0; s--)
		if (!s || env->subprog[s].is_async_cb) {
			bool tail_call;
			int err = check_stack_chains(env, s, 0, 0, false, &tail_call);

			if (err)
				return err;
		}
	return 0;
}

/* Loads of data / data_end / data_meta from __sk_buff or xdp_md become 64-bit loads of the
 * pointers in the runtime context (src/exec/ctx.h); loads through a kernel object's pointer
 * become probe loads (BPF_PROBE_MEM). */
static void convert_ctx_accesses(struct verifier_env *env)
{
	bool xdp = env->prog->type == BPF_PROG_TYPE_XDP;

	for (u32 i = 0; i < env->len; i++) {
		struct bpf_insn *in = &env->insns[i];
		size_t off;

		if (BPF_CLASS(in->code) == BPF_LDX &&
		    (is_btf_ptr_type(env->aux[i].ptr_type) ||
		     env->aux[i].ptr_type == PTR_TO_RDONLY_UNTRUSTED_MEM)) {
			bool sx = BPF_MODE(in->code) == BPF_MEMSX;

			in->code = BPF_LDX | BPF_SIZE(in->code) |
				   (sx ? BPF_PROBE_MEMSX : BPF_PROBE_MEM);
			continue;
		}
		switch (env->aux[i].ctx_field) {
		case 1:
			off = xdp ? offsetof(struct xdp_ctx, data) : offsetof(struct skb_ctx, data);
			break;
		case 2:
			off = xdp ? offsetof(struct xdp_ctx, data_end)
				  : offsetof(struct skb_ctx, data_end);
			break;
		case 3:
			off = xdp ? offsetof(struct xdp_ctx, data_meta)
				  : offsetof(struct skb_ctx, data_meta);
			break;
		default:
			continue;
		}
		in->code = BPF_LDX | BPF_DW | BPF_MEM;
		in->off = (s16)off;
	}
}

/* log_true_size's offset in 6.4+'s union bpf_attr, past the end of older uapi headers' union. */
#define PROG_LOG_TRUE_SIZE_OFF 140u

/* The global functions the verified code calls, each verified once on its own (those a global
 * function calls included, hence the repeat), as the kernel does after the main program. */
/* Instructions no path reaches never run: a privileged load in the kernel removes them, and
 * nothing checked their fields (a reserved one set is the kernel's to ignore there).  They
 * become `goto -1` traps, so that the runtimes never decode them (the kernel's
 * sanitize_dead_code()); the tag was taken before. */
static void sanitize_dead_code(struct verifier_env *env)
{
	for (u32 i = 0; i < env->len; i++) {
		if (env->aux[i].seen) {
			if (env->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
				i++; /* its second slot */
			continue;
		}
		env->insns[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = -1 };
	}
}

static int do_check_globals(struct verifier_env *env)
{
	bool again = true;

	while (again) {
		again = false;
		for (u32 i = 1; i < env->subprog_cnt; i++) {
			struct subprog_info *sp = &env->subprog[i];
			int err;

			if (!sp->global || !sp->called || sp->verified)
				continue;
			free_explored(env);
			state_free(env->cur);
			env->cur = NULL;
			err = do_check(env, i);
			if (err)
				return err;
			verbose(env, "Func#%u ('%s') is safe for any args that match its prototype\n", i,
				sp->name);
			sp->verified = true;
			again = true;
		}
	}
	return 0;
}

/* The jumps the JIT may compare differently (jit_opts.pkt_cmp): packet pointers on both sides
 * at every visit.  No bitmap without memory or without such a jump: the JIT then compares as
 * written. */
static void pkt_cmp_transfer(struct verifier_env *env, struct bpf_prog *prog)
{
	u8 *bits = NULL;

	for (u32 i = 0; i < env->len; i++) {
		if (env->aux[i].pkt_cmp != 1)
			continue;
		if (!bits)
			bits = calloc(env->len / 8 + 1, 1);
		if (!bits)
			return;
		bits[i / 8] |= (u8)(1u << (i % 8));
	}
	prog->pkt_cmp = bits;
}

int bpf_check(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr,
	      u32 usize)
{
	struct verifier_env *env;
	int ret;

	env = calloc(1, sizeof(*env));
	if (!env)
		return -ENOMEM;
	ret = vlog_init(&env->log, attr->log_level, attr->log_buf, attr->log_size);
	if (ret)
		goto out_free_env;
	env->prog = prog;
	env->fd_array = attr->fd_array;
	env->insns = prog->insns;
	env->len = prog->len;
	insn_first_of(env->insn_first);
	env->aux = calloc(env->len ? env->len : 1, sizeof(*env->aux));
	if (!env->aux) {
		ret = -ENOMEM;
		goto out_free_env;
	}
	ret = process_fd_array(env, attr_fd_array_cnt(attr));
	if (!ret)
		ret = check_btf_info_early(env, attr, uattr, usize);
	if (!ret)
		ret = add_subprogs(env);
	if (!ret)
		ret = check_subprogs(env);
	if (!ret)
		ret = check_btf_info(env, attr, uattr, usize);
	if (!ret)
		ret = resolve_ldimm64(env);
	if (!ret)
		ret = check_cfg(env);
	if (!ret)
		ret = check_attach_btf_id(env);
	if (!ret)
		mark_subprog_effects(env);
	if (!ret)
		ret = compute_scc(env);
	if (!ret)
		ret = compute_live_registers(env);
	if (!ret)
		ret = sl_init(env);
	if (!ret)
		ret = do_check(env, 0);
	if (!ret)
		ret = do_check_globals(env);
	if (!ret)
		ret = check_stack_depth(env);
	if (!ret && env->ctx_unconvertible) {
		verbose(env, "verifier bug: error during ctx access conversion (0)\n");
		ret = -EFAULT;
	}
	if (!ret)
		convert_ctx_accesses(env);
	if (!ret)
		sanitize_dead_code(env);
	/* a kfunc call without a function is let through the walk, to be dropped if dead */
	for (u32 i = 0; !ret && i < env->len; i++)
		if (env->insns[i].code == (BPF_JMP | BPF_CALL) &&
		    env->insns[i].src_reg == BPF_PSEUDO_KFUNC_CALL && !env->insns[i].imm) {
			verbose(env, "invalid kernel function call not eliminated in verifier pass\n");
			ret = -EINVAL;
		}
	if (env->log.level & 4) {
		verbose(env, "verification time %d usec\n", 0);
		verbose(env, "stack depth ");
		for (u32 i = 0; i < env->subprog_cnt; i++)
			verbose(env, "%u%s", env->subprog[i].stack_depth,
				i + 1 < env->subprog_cnt ? "+" : "");
		verbose(env, "\n");
	}
	verbose(env, "processed %u insns (limit %d) max_states_per_insn %u total_states %u "
		     "peak_states %u mark_read %d\n", env->insn_processed,
		BPF_COMPLEXITY_LIMIT_INSNS, env->max_states_per_insn, env->total_states,
		env->peak_states, 0);
	{
		int err = vlog_finalize(&env->log);
		/* 6.4+ tells the caller the size the whole log needed (0 without a log), where
		 * its attr reaches log_true_size. */
		u32 true_size = env->log.level ? (u32)env->log.len_max : 0;

		if (err)
			ret = err;
		if (uattr && usize >= PROG_LOG_TRUE_SIZE_OFF + sizeof(true_size))
			memcpy((u8 *)uattr + PROG_LOG_TRUE_SIZE_OFF, &true_size, sizeof(true_size));
	}
	if (!ret) {
		prog->verified_insns = env->insn_processed;
		prog->used_maps = env->used_maps;
		prog->used_map_cnt = env->used_map_cnt;
		prog->stack_depth = env->subprog[0].stack_depth;
		env->used_maps = NULL;
		env->used_map_cnt = 0;
		btf_info_transfer(env, prog);
		pkt_cmp_transfer(env, prog);
	} else {
		/* (the storages were among the maps released below) */
		prog->cgroup_storage[0] = prog->cgroup_storage[1] = NULL;
	}
	btf_info_free(env);
	sl_free(env);
	release_maps(env);
	free_explored(env);
	state_free(env->cur);
	free(env->aux);
out_free_env:
	free(env);
	return ret;
}
