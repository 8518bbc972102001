/* The kernel's text form of one instruction, as the verifier log prints it ("(b7) r0 = 42").
 *
 * Each instruction class has one format; the operator strings are indexed by BPF_OP() >> 4 and
 * the access-size names by BPF_SIZE() >> 3, as in the kernel.  64-bit immediates print as hex
 * (after ldimm64 resolution a map load shows the map's address, as the kernel's log shows the
 * kernel address).  Helper calls print the helper's kernel name from the uapi list, whatever the
 * program type.  The text goes straight to the log sink; no allocation.
 * bpf_insn_snprint() (disasm.h) points a throwaway log sink at a caller's buffer for the CLI.
 */
#include "exec/kfuncs.h"
#include "verifier/disasm.h"
#include "verifier/env.h"

static const char *const alu_str[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=", "=", "s>>=",
	"endian", "BUG", "BUG",
};
static const char *const alu_sign_str[16] = {
	[BPF_DIV >> 4] = "s/=", [BPF_MOD >> 4] = "s%=",
};
static const char *const atomic_str[16] = {
	[BPF_ADD >> 4] = "add", [BPF_AND >> 4] = "and", [BPF_OR >> 4] = "or",
	[BPF_XOR >> 4] = "xor",
};
static const char *const jmp_str[16] = {
	"jmp", "==", ">", ">=", "&", "!=", "s>", "s>=", "call", "exit", "<", "<=", "s<", "s<=",
	"(null)" /* (BPF_JCOND: the kernel's table has no string) */, "BUG",
};
static const char *const ldst_str[4] = { "u32", "u16", "u8", "u64" };
static const char *const ldsx_str[4] = { "s32", "s16", "s8", "s64" };
static const char *const class_str[8] = { "ld", "ldx", "st", "stx", "alu", "jmp", "jmp32",
					  "alu64" };

#define HELPER_NAME_FN(x) "bpf_" #x
static const char *const helper_names[] = { __BPF_FUNC_MAPPER(HELPER_NAME_FN) };
#undef HELPER_NAME_FN

const char *helper_name_of(s32 id)
{
	if (id >= 0 && (u32)id < ARRAY_SIZE(helper_names))
		return helper_names[id];
	switch (id) { /* (helpers newer than the uapi header this is built with) */
	case BPF_FUNC_cgrp_storage_get: return "bpf_cgrp_storage_get";
	case BPF_FUNC_cgrp_storage_delete: return "bpf_cgrp_storage_delete";
	default: return "unknown";
	}
}

static void print_alu(struct verifier_env *env, const struct bpf_insn *in)
{
	u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	char r = cls == BPF_ALU ? 'w' : 'r';

	if (op == BPF_END) {
		if (cls == BPF_ALU64)
			verbose(env, "(%02x) r%d = bswap%d r%d", in->code, in->dst_reg, in->imm,
				in->dst_reg);
		else
			verbose(env, "(%02x) r%d = %s%d r%d", in->code, in->dst_reg,
				BPF_SRC(in->code) == BPF_TO_BE ? "be" : "le", in->imm, in->dst_reg);
	} else if (op == BPF_NEG) {
		verbose(env, "(%02x) %c%d = -%c%d", in->code, r, in->dst_reg, r, in->dst_reg);
	} else if (op == BPF_MOV && BPF_SRC(in->code) == BPF_X && in->off) {
		verbose(env, "(%02x) %c%d = (s%d)%c%d", in->code, r, in->dst_reg, in->off, r,
			in->src_reg);
	} else {
		const char *s = alu_str[op >> 4];

		if ((op == BPF_DIV || op == BPF_MOD) && in->off == 1)
			s = alu_sign_str[op >> 4];
		if (BPF_SRC(in->code) == BPF_X)
			verbose(env, "(%02x) %c%d %s %c%d", in->code, r, in->dst_reg, s, r,
				in->src_reg);
		else
			verbose(env, "(%02x) %c%d %s %d", in->code, r, in->dst_reg, s, in->imm);
	}
}

static void print_stx(struct verifier_env *env, const struct bpf_insn *in)
{
	const char *sz = ldst_str[BPF_SIZE(in->code) >> 3];
	const char *w = BPF_SIZE(in->code) == BPF_DW ? "64" : "";
	s32 imm = in->imm;

	if (BPF_MODE(in->code) == BPF_MEM) {
		verbose(env, "(%02x) *(%s *)(r%d %+d) = r%d", in->code, sz, in->dst_reg, in->off,
			in->src_reg);
	} else if (BPF_MODE(in->code) != BPF_ATOMIC) {
		verbose(env, "BUG_%02x", in->code);
	} else if (imm == BPF_ADD || imm == BPF_AND || imm == BPF_OR || imm == BPF_XOR) {
		verbose(env, "(%02x) lock *(%s *)(r%d %+d) %s r%d", in->code, sz, in->dst_reg,
			in->off, alu_str[BPF_OP(imm) >> 4], in->src_reg);
	} else if (imm == (BPF_ADD | BPF_FETCH) || imm == (BPF_AND | BPF_FETCH) ||
		   imm == (BPF_OR | BPF_FETCH) || imm == (BPF_XOR | BPF_FETCH)) {
		verbose(env, "(%02x) r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)", in->code,
			in->src_reg, w, atomic_str[BPF_OP(imm) >> 4], sz, in->dst_reg, in->off,
			in->src_reg);
	} else if (imm == BPF_CMPXCHG) {
		verbose(env, "(%02x) r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)", in->code, w,
			sz, in->dst_reg, in->off, in->src_reg);
	} else if (imm == BPF_XCHG) {
		verbose(env, "(%02x) r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)", in->code,
			in->src_reg, w, sz, in->dst_reg, in->off, in->src_reg);
	} else {
		verbose(env, "BUG_%02x", in->code);
	}
}

static void print_jmp(struct verifier_env *env, const struct bpf_insn *in)
{
	u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	char r = cls == BPF_JMP32 ? 'w' : 'r';

	if (op == BPF_CALL) {
		if (in->src_reg == BPF_PSEUDO_CALL)
			verbose(env, "(%02x) call pc%+d", in->code, in->imm);
		else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			verbose(env, "(%02x) call %s#%d", in->code,
				!in->imm && !in->off ? "" /* BTF's void */
				: (in->off ? NULL : kfunc_btf_name(in->imm)) ?: "kernel-function",
				in->imm);
		else
			verbose(env, "(%02x) call %s#%d", in->code, helper_name_of(in->imm), in->imm);
	} else if (in->code == (BPF_JMP | BPF_JA)) {
		verbose(env, "(%02x) goto pc%+d", in->code, in->off);
	} else if (in->code == (BPF_JMP32 | BPF_JA)) {
		verbose(env, "(%02x) gotol pc%+d", in->code, in->imm);
	} else if (in->code == (BPF_JMP | BPF_EXIT)) {
		verbose(env, "(%02x) exit", in->code);
	} else if (in->code == (BPF_JMP | BPF_JCOND) && in->src_reg == BPF_MAY_GOTO) {
		verbose(env, "(%02x) may_goto pc%+d", in->code, in->off);
	} else if (BPF_SRC(in->code) == BPF_X) {
		verbose(env, "(%02x) if %c%d %s %c%d goto pc%+d", in->code, r, in->dst_reg,
			jmp_str[op >> 4], r, in->src_reg, in->off);
	} else {
		verbose(env, "(%02x) if %c%d %s 0x%x goto pc%+d", in->code, r, in->dst_reg,
			jmp_str[op >> 4], (u32)in->imm, in->off);
	}
}

void print_insn(struct verifier_env *env, const struct bpf_insn *in)
{
	u8 cls = BPF_CLASS(in->code);
	const char *sz = ldst_str[BPF_SIZE(in->code) >> 3];

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		print_alu(env, in);
		break;
	case BPF_STX:
		print_stx(env, in);
		break;
	case BPF_ST:
		if (BPF_MODE(in->code) == BPF_MEM)
			verbose(env, "(%02x) *(%s *)(r%d %+d) = %d", in->code, sz, in->dst_reg,
				in->off, in->imm);
		else
			verbose(env, "BUG_st_%02x", in->code);
		break;
	case BPF_LDX:
		if (BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX)
			verbose(env, "BUG_ldx_%02x", in->code);
		else
			verbose(env, "(%02x) r%d = *(%s *)(r%d %+d)", in->code, in->dst_reg,
				BPF_MODE(in->code) == BPF_MEMSX ? ldsx_str[BPF_SIZE(in->code) >> 3]
								: sz,
				in->src_reg, in->off);
		break;
	case BPF_LD:
		if (BPF_MODE(in->code) == BPF_ABS) {
			verbose(env, "(%02x) r0 = *(%s *)skb[%d]", in->code, sz, in->imm);
		} else if (BPF_MODE(in->code) == BPF_IND) {
			verbose(env, "(%02x) r0 = *(%s *)skb[r%d + %d]", in->code, sz, in->src_reg,
				in->imm);
		} else if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			/* the caller guarantees the second slot exists */
			u64 imm = ((u64)(u32)in[1].imm << 32) | (u32)in[0].imm;

			verbose(env, "(%02x) r%d = 0x%llx", in->code, in->dst_reg,
				(unsigned long long)imm);
		} else {
			verbose(env, "BUG_ld_%02x", in->code);
		}
		break;
	case BPF_JMP:
	case BPF_JMP32:
		print_jmp(env, in);
		break;
	default:
		verbose(env, "(%02x) %s", in->code, class_str[cls]);
	}
}

/* The log sink in fixed mode on the caller's buffer: print_insn's text lands there as is. */
int bpf_insn_snprint(char *buf, size_t size, const struct bpf_insn *insn)
{
	struct verifier_env env;

	memset(&env.log, 0, sizeof(env.log));
	if (size > UINT32_MAX >> 2)
		size = UINT32_MAX >> 2;
	if (buf && size && !vlog_init(&env.log, 1 | 8 /* LEVEL1 | FIXED */, (u64)(uintptr_t)buf,
				       (u32)size))
		print_insn(&env, insn);
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1;
}
