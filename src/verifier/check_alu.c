/* ALU instructions and register operand checks.
 *
 * Scalars go through the scalar domain (scalar.c); pointer arithmetic follows the kernel's rules:
 * only 64-bit ADD/SUB on pointers, a constant folded into the fixed offset while it fits in s32,
 * otherwise a variable offset whose bounds stay within +-BPF_MAX_VAR_OFF; packet pointers with a
 * new variable part get a fresh id and range 0.  Everything the kernel lets privileged loaders do
 * (pointer minus pointer, 32-bit SUB of pointers: meaningless scalars) is allowed here too.
 * A 64-bit register copy of a non-constant scalar links the two registers by an id, so a branch
 * on one refines the other (check_jmp.c).
 */
#include <errno.h>

#include "verifier/env.h"

static const char *const alu_op_str[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=", "=", "s>>=",
	"endian", "?", "?",
};

int check_reg_arg_read(struct verifier_env *env, u32 regno)
{
	if (regno >= MAX_BPF_REG) {
		verbose(env, "R%u is invalid\n", regno);
		return -EINVAL;
	}
	env->scratched[regno] = true;
	if (cur_regs(env)[regno].type == NOT_INIT) {
		verbose(env, "R%u !read_ok\n", regno);
		return -EACCES;
	}
	return 0;
}

int check_reg_arg_write(struct verifier_env *env, u32 regno)
{
	if (regno >= MAX_BPF_REG) {
		verbose(env, "R%u is invalid\n", regno);
		return -EINVAL;
	}
	env->scratched[regno] = true;
	if (regno == BPF_REG_FP) {
		verbose(env, "frame pointer is read only\n");
		return -EACCES;
	}
	return 0;
}

/* The scalar operand of pointer arithmetic: known and small, or bounded below by a small
 * value (the kernel's check_reg_sane_offset_scalar()). */
static bool sane_scalar_offset(struct verifier_env *env, const struct reg_state *reg, u8 type)
{
	bool known = scalar_is_const(&reg->s);
	s64 val = (s64)reg->s.var_off.value, smin = reg->s.smin;

	if (known && (val >= BPF_MAX_VAR_OFF || val <= -BPF_MAX_VAR_OFF)) {
		verbose(env, "math between %s pointer and %lld is not allowed\n", reg_type_str(type),
			(long long)val);
		return false;
	}
	if (smin == SCALAR_S64_MIN) {
		verbose(env, "math between %s pointer and register with unbounded min value is not "
			     "allowed\n", reg_type_str(type));
		return false;
	}
	if (smin >= BPF_MAX_VAR_OFF || smin <= -BPF_MAX_VAR_OFF) {
		verbose(env, "value %lld makes %s pointer be out of bounds\n", (long long)smin,
			reg_type_str(type));
		return false;
	}
	return true;
}

/* A pointer operand, or the result: its fixed and variable offsets within bounds (the
 * kernel's check_reg_sane_offset_ptr(), which 6.18 applies to the result as well; a result
 * whose variable part went out is "pointer offset", not "value ... makes"). */
static bool sane_ptr_offset(struct verifier_env *env, const struct reg_state *reg, u8 type)
{
	bool known = scalar_is_const(&reg->s);
	s64 val = (s64)reg->s.var_off.value, smin = reg->s.smin;

	if (known && (val >= BPF_MAX_VAR_OFF || val <= -BPF_MAX_VAR_OFF)) {
		verbose(env, "%s pointer offset %lld is not allowed\n", reg_type_str(type),
			(long long)val);
		return false;
	}
	if (reg->off >= BPF_MAX_VAR_OFF || reg->off <= -BPF_MAX_VAR_OFF) {
		verbose(env, "%s pointer offset %d is not allowed\n", reg_type_str(type), reg->off);
		return false;
	}
	if (smin >= BPF_MAX_VAR_OFF || smin <= -BPF_MAX_VAR_OFF) {
		verbose(env, "%s pointer offset %lld is not allowed\n", reg_type_str(type),
			(long long)smin);
		return false;
	}
	return true;
}

/* dst = ptr OP off (dst may be ptr or off, for scalar += pointer). */
static int ptr_arith(struct verifier_env *env, const struct bpf_insn *insn, struct reg_state *dst,
		     const struct reg_state *ptr, const struct reg_state *off)
{
	u8 op = BPF_OP(insn->code);
	u32 d = insn->dst_reg;
	bool known = scalar_is_const(&off->s);
	s64 k = (s64)off->s.var_off.value;
	struct reg_state res;

	if (BPF_CLASS(insn->code) != BPF_ALU64) {
		if (op == BPF_SUB) {
			mark_reg_unknown(dst);
			return 0;
		}
		verbose(env, "R%u 32-bit pointer arithmetic prohibited\n", d);
		return -EACCES;
	}
	if (reg_may_be_null(ptr)) {
		verbose(env, "R%u pointer arithmetic on %s prohibited, null-check it first\n", d,
			reg_type_str(ptr->type));
		return -EACCES;
	}
	if ((ptr->type == CONST_PTR_TO_MAP && !(known && k == 0 && op == BPF_ADD)) ||
	    (ptr->type == PTR_TO_FLOW_KEYS && !known) ||
	    ptr->type == PTR_TO_PACKET_END || ptr->type == PTR_TO_SOCK_COMMON ||
	    ptr->type == PTR_TO_SOCKET || ptr->type == PTR_TO_TCP_SOCK ||
	    ptr->type == PTR_TO_XDP_SOCK) {
		verbose(env, "R%u pointer arithmetic on %s prohibited\n", d, reg_type_str(ptr->type));
		return -EACCES;
	}
	if (!sane_scalar_offset(env, off, ptr->type) || !sane_ptr_offset(env, ptr, ptr->type))
		return -EINVAL;
	res = *ptr;
	switch (op) {
	case BPF_ADD:
		if (known && (s64)ptr->off + k == (s64)(s32)((s64)ptr->off + k)) {
			res.off = (s32)(ptr->off + k);
			break;
		}
		scalar_alu(&res.s, &off->s, BPF_ADD, 0, false);
		if (reg_is_pkt(ptr)) {
			res.id = ++env->id_gen;
			res.range = 0;
		}
		break;
	case BPF_SUB:
		if (dst == off) {
			verbose(env, "R%u tried to subtract pointer from scalar\n", d);
			return -EACCES;
		}
		if (ptr->type == PTR_TO_STACK) {
			verbose(env, "R%u subtraction from stack pointer prohibited\n", d);
			return -EACCES;
		}
		if (known && (s64)ptr->off - k == (s64)(s32)((s64)ptr->off - k)) {
			res.off = (s32)(ptr->off - k);
			break;
		}
		scalar_alu(&res.s, &off->s, BPF_SUB, 0, false);
		if (reg_is_pkt(ptr)) {
			res.id = ++env->id_gen;
			if (off->s.smin < 0)
				res.range = 0;
		}
		break;
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		verbose(env, "R%u bitwise operator %s on pointer prohibited\n", d, alu_op_str[op >> 4]);
		return -EACCES;
	default:
		verbose(env, "R%u pointer arithmetic with %s operator prohibited\n", d,
			alu_op_str[op >> 4]);
		return -EACCES;
	}
	if (!sane_ptr_offset(env, &res, ptr->type))
		return -EINVAL;
	*dst = res;
	return 0;
}

/* rX &= K or rX |= K where rX is in [-1, 0]: LLVM's form of "x < 0 ? K : 0" (an arithmetic
 * shift by the width, then the mask), which no single range holds exactly.  The walk forks, as
 * 6.18's maybe_fork_scalars() does: a path queued to run this instruction again with rX = 0,
 * and this one going on with rX = -1; the 64-bit bounds decide first, else the low 32 bits'. */
static int fork_sign_mask(struct verifier_env *env, u32 regno)
{
	struct scalar *s = &cur_regs(env)[regno].s, *q;
	struct reg_state *oreg;
	bool sub32;
	struct vstate *other;

	if (s->smin == -1 && s->smax == 0)
		sub32 = false;
	else if (s->s32_min == -1 && s->s32_max == 0)
		sub32 = true;
	else
		return 0;
	other = push_stack(env, env->insn_idx, env->insn_idx);
	if (!other)
		return -E2BIG;
	oreg = &other->frame[other->curframe]->regs[regno];
	q = &oreg->s;
	s = &cur_regs(env)[regno].s;
	if (!sub32) {
		/* (a constant is linked to nothing: the queued path's copy loses its id) */
		*q = scalar_const(0);
		oreg->id = 0;
		oreg->delta = 0;
		*s = scalar_const(~0ull);
		return 0;
	}
	for (int i = 0; i < 2; i++, q = s) {
		u32 v = i ? ~0u : 0;

		q->var_off = tnum_const_subreg(q->var_off, v);
		q->s32_min = q->s32_max = (s32)v;
		q->u32_min = q->u32_max = v;
	}
	return 0;
}

static int alu_reg_reg(struct verifier_env *env, const struct bpf_insn *insn)
{
	struct reg_state *regs = cur_regs(env);
	struct reg_state *dst = &regs[insn->dst_reg], *src, imm;
	u8 op = BPF_OP(insn->code);
	bool alu32 = BPF_CLASS(insn->code) == BPF_ALU;

	if (BPF_SRC(insn->code) == BPF_X) {
		src = &regs[insn->src_reg];
		if (src->type != SCALAR_VALUE) {
			if (dst->type != SCALAR_VALUE) {
				if (op == BPF_SUB) {
					mark_reg_unknown(dst);
					return 0;
				}
				verbose(env, "R%u pointer %s pointer prohibited\n", insn->dst_reg,
					alu_op_str[op >> 4]);
				return -EACCES;
			}
			/* scalar += pointer: the scalar's bounds become the pointer's */
			int err = mark_precise_reg(env, insn->dst_reg);

			if (err)
				return err;
			return ptr_arith(env, insn, dst, src, dst);
		}
	} else {
		mark_reg_const(&imm, (u64)(s64)insn->imm);
		src = &imm;
	}
	if (dst->type != SCALAR_VALUE) {
		if (BPF_SRC(insn->code) == BPF_X) {
			int err = mark_precise_reg(env, insn->src_reg);

			if (err)
				return err;
		}
		return ptr_arith(env, insn, dst, dst, src);
	}
	struct scalar s = src->s;
	u32 id = dst->id;
	bool add_const = (op == BPF_ADD || op == BPF_SUB) && id && !(id & ID_ADD_CONST) &&
			 tnum_is_const(alu32 ? tnum_subreg(s.var_off) : s.var_off);
	s64 k = alu32 ? (s64)(s32)(u32)s.var_off.value : (s64)s.var_off.value;

	if ((op == BPF_AND || op == BPF_OR) && tnum_is_const(s.var_off)) {
		int err = fork_sign_mask(env, insn->dst_reg);

		if (err)
			return err;
	}
	scalar_alu(&dst->s, &s, op, insn->off, alu32);
	dst->id = 0;
	dst->delta = 0;
	/* rX += K on a linked scalar: still the same value plus K (6.18's BPF_ADD_CONST) */
	if (add_const && k >= INT32_MIN && k <= INT32_MAX && !(op == BPF_SUB && k == INT32_MIN)) {
		dst->id = id | ID_ADD_CONST;
		dst->delta = (s32)(op == BPF_SUB ? -k : k);
	}
	return 0;
}

/* Before a scalar is copied (and linked to its copy): one that is "linked + K" starts afresh. */
static void unlink_add_const(struct reg_state *r)
{
	if (r->id & ID_ADD_CONST) {
		r->id = 0;
		r->delta = 0;
	}
}

int check_alu_op(struct verifier_env *env, const struct bpf_insn *insn)
{
	struct reg_state *regs = cur_regs(env);
	u8 op = BPF_OP(insn->code), cls = BPF_CLASS(insn->code);
	int err;

	if (op == BPF_END || op == BPF_NEG) {
		if (op == BPF_NEG) {
			if (BPF_SRC(insn->code) != BPF_K || insn->src_reg || insn->off || insn->imm) {
				verbose(env, "BPF_NEG uses reserved fields\n");
				return -EINVAL;
			}
		} else if (insn->src_reg || insn->off ||
			   (insn->imm != 16 && insn->imm != 32 && insn->imm != 64) ||
			   (cls == BPF_ALU64 && BPF_SRC(insn->code) != BPF_TO_LE)) {
			verbose(env, "BPF_END uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg_read(env, insn->dst_reg);
		if (err)
			return err;
		err = check_reg_arg_write(env, insn->dst_reg);
		if (err)
			return err;
		struct reg_state *dst = &regs[insn->dst_reg];

		if (dst->type != SCALAR_VALUE) {
			mark_reg_unknown(dst);
			return 0;
		}
		dst->id = 0;
		if (op == BPF_NEG)
			scalar_alu(&dst->s, &dst->s, BPF_NEG, 0, cls == BPF_ALU);
		else
			scalar_end(&dst->s, insn->imm,
				   cls == BPF_ALU64 ? SCALAR_BSWAP : BPF_SRC(insn->code));
		return 0;
	}
	if (op == BPF_MOV) {
		if (BPF_SRC(insn->code) == BPF_X) {
			bool ok = insn->off == 0 || insn->off == 8 || insn->off == 16 ||
				  (cls == BPF_ALU64 && insn->off == 32);

			if (!ok || insn->imm) {
				verbose(env, "BPF_MOV uses reserved fields\n");
				return -EINVAL;
			}
			err = check_reg_arg_read(env, insn->src_reg);
			if (err)
				return err;
		} else if (insn->src_reg || insn->off) {
			verbose(env, "BPF_MOV uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg_write(env, insn->dst_reg);
		if (err)
			return err;
		struct reg_state *dst = &regs[insn->dst_reg];

		if (BPF_SRC(insn->code) == BPF_K) {
			mark_reg_const(dst, cls == BPF_ALU64 ? (u64)(s64)insn->imm : (u32)insn->imm);
			return 0;
		}
		struct reg_state *src = &regs[insn->src_reg];

		if (src->type != SCALAR_VALUE) {
			if (cls == BPF_ALU64 && insn->off == 0) {
				*dst = *src;
			} else {
				mark_reg_unknown(dst);
				/* (a 32-bit copy of a pointer's bits: the upper half is zero, as
				 * after the kernel's zext_32_to_64()) */
				if (cls == BPF_ALU)
					scalar_zext32(&dst->s);
			}
			return 0;
		}
		if (cls == BPF_ALU64 && insn->off == 0) {
			unlink_add_const(src);
			if (!src->id && !scalar_is_const(&src->s))
				src->id = ++env->id_gen;
			*dst = *src;
			return 0;
		}
		struct scalar s = src->s;
		/* A 32-bit or sign-extending copy that cannot change the value (the value fits
		 * the width, or has no sign bit to extend) is linked to its source, as in 6.18. */
		u64 umax = src->s.umax;
		bool same = insn->off ? umax < (1ULL << (insn->off - 1)) : umax <= 0xffffffffULL;
		u32 id = 0;

		if (same) {
			unlink_add_const(src);
			if (!src->id && !scalar_is_const(&src->s))
				src->id = ++env->id_gen;
			id = src->id;
		}
		mark_reg_unknown(dst);
		dst->s = s;
		if (insn->off) {
			scalar_alu(&dst->s, &s, BPF_MOV, insn->off, cls == BPF_ALU);
		} else {
			scalar_zext32(&dst->s);
		}
		dst->id = id;
		return 0;
	}
	if (op > BPF_END) {
		verbose(env, "invalid BPF_ALU opcode %x\n", op);
		return -EINVAL;
	}
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm || (insn->off && insn->off != 1) ||
		    (insn->off == 1 && op != BPF_MOD && op != BPF_DIV)) {
			verbose(env, "BPF_ALU uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg_read(env, insn->src_reg);
		if (err)
			return err;
	} else if (insn->src_reg || (insn->off && insn->off != 1) ||
		   (insn->off == 1 && op != BPF_MOD && op != BPF_DIV)) {
		verbose(env, "BPF_ALU uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg_read(env, insn->dst_reg);
	if (err)
		return err;
	if ((op == BPF_MOD || op == BPF_DIV) && BPF_SRC(insn->code) == BPF_K && insn->imm == 0) {
		verbose(env, "div by zero\n");
		return -EINVAL;
	}
	if ((op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) && BPF_SRC(insn->code) == BPF_K) {
		int size = cls == BPF_ALU64 ? 64 : 32;

		if (insn->imm < 0 || insn->imm >= size) {
			verbose(env, "invalid shift %d\n", insn->imm);
			return -EINVAL;
		}
	}
	err = check_reg_arg_write(env, insn->dst_reg);
	if (err)
		return err;
	return alu_reg_reg(env, insn);
}

int check_ld_imm(struct verifier_env *env, const struct bpf_insn *insn)
{
	u32 idx = (u32)env->insn_idx;
	struct reg_state *dst;
	int err;

	if (BPF_SIZE(insn->code) != BPF_DW) {
		verbose(env, "invalid BPF_LD_IMM insn\n");
		return -EINVAL;
	}
	if (insn->off != 0) {
		verbose(env, "BPF_LD_IMM64 uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg_write(env, insn->dst_reg);
	if (err)
		return err;
	dst = &cur_regs(env)[insn->dst_reg];
	if (insn->src_reg == 0) {
		mark_reg_const(dst, ((u64)(u32)insn[1].imm << 32) | (u32)insn[0].imm);
		return 0;
	}
	if (insn->src_reg == BPF_PSEUDO_FUNC) {
		int sub = find_subprog(env, (int)idx + insn->imm + 1);

		if (!env->func_info_cnt) {
			verbose(env, "missing btf func_info\n");
			return -EINVAL;
		}
		if (sub < 0 || !func_is_static(env, (u32)sub)) {
			verbose(env, "callback function not static\n");
			return -EINVAL;
		}
		mark_ptr(dst, PTR_TO_FUNC);
		dst->subprogno = sub;
		return 0;
	}
	if (insn->src_reg == BPF_PSEUDO_BTF_ID) {
		/* a kernel function or variable (ldimm64.c): read-only memory (a function's of
		 * no bytes), a kernel struct, a per-CPU variable; never NULL */
		mark_ptr(dst, env->aux[idx].ksym_type);
		dst->mem_size = env->aux[idx].ksym_size;
		dst->btf_id = env->aux[idx].ksym_btf_id;
		return 0;
	}
	if (insn->src_reg == BPF_PSEUDO_MAP_VALUE || insn->src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
		mark_ptr(dst, PTR_TO_MAP_VALUE);
		dst->off = (s32)env->aux[idx].map_off;
	} else {
		mark_ptr(dst, CONST_PTR_TO_MAP);
	}
	dst->map = env->aux[idx].map;
	return 0;
}
