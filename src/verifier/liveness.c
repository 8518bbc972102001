/* Register liveness: which registers are live (may still be read) before each instruction, and
 * the log's "Live regs before insn:" section that shows it at log level 2 (kernel 6.13+).
 *
 * What each instruction reads (use) and writes (def), as bit masks over R0..R10:
 *   ALU      dst and src (X) or dst (K); MOV reads only src (X) or nothing (K); NEG and byte
 *            swaps read dst; all write dst.
 *   LDX      reads src, writes dst.  ST reads dst.  STX reads dst and src.
 *   atomics  read dst and src; the fetching forms (and xchg) write src; cmpxchg also reads and
 *            writes R0.
 *   LD_IMM64 writes dst.  LD_ABS/LD_IND read every register R0..R9 (so the kernel's log shows
 *            them; their implicit R6 and R0 are among those).
 *   jumps    read dst and src (X) or dst (K); goto reads nothing; exit reads R0.
 *   calls    write R0..R5.  A helper whose prototype the program type has reads R1..Rn for its
 *            n arguments; any other call (bpf-to-bpf, unknown or unavailable helper) R1..R5.
 *
 * Algorithm: the backward dataflow equation live_in(i) = use(i) | (live_out(i) & ~def(i)),
 * live_out(i) = the union of live_in over insn_successors(i), solved by sweeping the program
 * from the last instruction to the first until nothing changes.  Masks only grow, from empty, so
 * this reaches the least fixpoint; a sweep follows forward edges in one pass and each extra pass
 * carries liveness around one more back edge.  Successors stay inside a subprogram (a call falls
 * through; the callee's body is a separate graph whose exits read R0), so each subprogram is
 * solved on its own, as the kernel does.
 *
 * Invariants: aux[i].live_regs is the fixpoint for every instruction i, 0 for the second half of
 * an LD_IMM64.  Memory: that one u16 per instruction; time: O(len) per sweep.  Runs after
 * check_cfg() (every jump target is in range and every instruction reachable) and compute_scc(),
 * whose loop numbers the printed section shows.
 */
#include "exec/helpers.h"
#include "prog/prog.h"
#include "verifier/env.h"

#define REG_BIT(r) ((u16)(1u << (r)))
#define CALLER_SAVED ((u16)0x3f)	/* R0..R5 */
#define ALL_ARGS ((u16)0x3e)		/* R1..R5 */
#define R0_TO_R9 ((u16)0x3ff)

static bool is_second_half(const struct verifier_env *env, u32 i)
{
	return i > 0 && env->insns[i - 1].code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* R1..Rn for the helper's arguments, or R1..R5 when the program has no such helper. */
static u16 helper_args(const struct verifier_env *env, s32 id)
{
	const struct bpf_func_proto *fn;
	u16 use = 0;

	if (id < 0)
		return ALL_ARGS;
	fn = prog_helper_proto(env->prog, (u32)id);
	if (!fn)
		return ALL_ARGS;
	for (int a = 0; a < 5 && fn->arg_type[a] != ARG_DONTCARE; a++)
		use |= REG_BIT(BPF_REG_1 + a);
	return use;
}

static void insn_use_def(const struct verifier_env *env, const struct bpf_insn *in, u16 *use,
			 u16 *def)
{
	u16 dst = REG_BIT(in->dst_reg & 0xf), src = REG_BIT(in->src_reg & 0xf);
	bool x = BPF_SRC(in->code) == BPF_X;
	u8 op = BPF_OP(in->code);

	*use = 0;
	*def = 0;
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		*def = dst;
		if (op == BPF_MOV)
			*use = x ? src : 0;
		else if (op == BPF_NEG || op == BPF_END)
			*use = dst;
		else
			*use = x ? dst | src : dst;
		break;
	case BPF_LDX:
		*use = src;
		*def = dst;
		break;
	case BPF_ST:
		*use = dst;
		break;
	case BPF_STX:
		*use = dst | src;
		if (BPF_MODE(in->code) != BPF_ATOMIC)
			break;
		if (in->imm == BPF_CMPXCHG) {
			*use |= REG_BIT(BPF_REG_0);
			*def = REG_BIT(BPF_REG_0);
		} else if (in->imm & BPF_FETCH) {
			*def = src;
		}
		break;
	case BPF_LD:
		if (BPF_MODE(in->code) == BPF_IMM)
			*def = dst;
		else
			*use = R0_TO_R9;
		break;
	default: /* BPF_JMP, BPF_JMP32 */
		switch (op) {
		case BPF_JA:
		case BPF_JCOND: /* may_goto reads no register */
			break;
		case BPF_EXIT:
			*use = REG_BIT(BPF_REG_0);
			break;
		case BPF_CALL:
			*def = CALLER_SAVED;
			*use = in->src_reg == 0 ? helper_args(env, in->imm) : ALL_ARGS;
			if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
				*use = (u16)(((1u << kfunc_nargs(env, in)) - 1) << BPF_REG_1);
			break;
		default:
			*use = x ? dst | src : dst;
			break;
		}
		break;
	}
}

static void print_live_regs(struct verifier_env *env)
{
	verbose(env, "Live regs before insn:\n");
	for (u32 i = 0; i < env->len; i++) {
		char regs[11];

		if (is_second_half(env, i))
			continue;
		for (int r = 0; r < 10; r++)
			regs[r] = env->aux[i].live_regs & REG_BIT(r) ? (char)('0' + r) : '.';
		regs[10] = 0;
		if (env->aux[i].scc)
			verbose(env, "%3u ", env->aux[i].scc);
		else
			verbose(env, "    ");
		verbose(env, "%3u: %s ", i, regs);
		print_insn(env, &env->insns[i]);
		verbose(env, "\n");
	}
}

int compute_live_registers(struct verifier_env *env)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (u32 i = env->len; i-- > 0;) {
			u32 succ[2];
			u16 use, def, out = 0, in;
			int n;

			if (is_second_half(env, i))
				continue;
			n = insn_successors(env, i, succ);
			for (int j = 0; j < n; j++)
				out |= env->aux[succ[j]].live_regs;
			insn_use_def(env, &env->insns[i], &use, &def);
			in = (u16)(use | (out & ~def));
			if (in != env->aux[i].live_regs) {
				env->aux[i].live_regs = in;
				changed = true;
			}
		}
	}
	if (env->log.level & 2)
		print_live_regs(env);
	return 0;
}
