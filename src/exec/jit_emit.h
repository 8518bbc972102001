/* jit_emit.h — x86-64 instruction emitters for the JIT, one tiny function per instruction form.
 *
 * Each emitter appends one machine instruction to a struct x86_buf.  Encoding order is
 * [F0 lock][66 operand size][REX][opcode][ModRM][SIB][displacement][immediate]; the helpers
 * x86_rr() (register-direct operands) and x86_rm() ([base + disp] operand) build that sequence,
 * and the named emitters above them pick opcodes from the constants below.
 *
 * Invariants.  A buffer with code == NULL only counts bytes (the JIT's sizing pass); otherwise
 * writes past cap set the sticky error err and are dropped, so callers check err once at the end.
 * Registers are x86 numbers (enum x86_reg), never BPF ones.  Emitters never change the size of
 * their output with the value of an operand unless their name says so ("_imm" chooses the
 * shortest form; "_imm32_fixed" always has a 4-byte immediate, which blinding needs).
 */
#ifndef USERBPF_EXEC_JIT_EMIT_H
#define USERBPF_EXEC_JIT_EMIT_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

enum x86_reg {
	X86_RAX,
	X86_RCX,
	X86_RDX,
	X86_RBX,
	X86_RSP,
	X86_RBP,
	X86_RSI,
	X86_RDI,
	X86_R8,
	X86_R9,
	X86_R10,
	X86_R11,
	X86_R12,
	X86_R13,
	X86_R14,
	X86_R15,
};

/* Prefixes. */
#define X86_P_LOCK 0xf0
#define X86_P_OPSIZE 0x66
#define X86_REX 0x40
#define X86_REX_W 0x08
#define X86_REX_R 0x04
#define X86_REX_X 0x02
#define X86_REX_B 0x01

/* Flags for x86_rr()/x86_rm(). */
#define XF_W 0x01    /* 64-bit operand size (REX.W) */
#define XF_LOCK 0x02 /* lock prefix */
#define XF_16 0x04   /* 16-bit operand size (0x66) */
#define XF_BYTE 0x08 /* a byte register operand: spl/bpl/sil/dil need a REX prefix */

/* Opcodes ("rm, r" means ModRM.rm is the destination).  Two-byte opcodes are written 0x0fXX. */
#define OP_ALU_RM_R(alu) (((alu) << 3) | 0x01) /* add/or/and/sub/xor/cmp rm, r */
#define OP_ALU_RM_IMM8 0x83		       /* /alu ib, sign-extended */
#define OP_ALU_RM_IMM32 0x81		       /* /alu id, sign-extended */
#define OP_TEST_RM_R 0x85
#define OP_TEST_RM_IMM32 0xf7 /* /0 id */
#define OP_MOV_RM8_R8 0x88
#define OP_MOV_RM_R 0x89
#define OP_MOV_R_RM 0x8b
#define OP_LEA 0x8d
#define OP_MOV_R_IMM 0xb8    /* +r: mov r32, imm32 / REX.W: mov r64, imm64 */
#define OP_MOV_RM8_IMM8 0xc6 /* /0 ib */
#define OP_MOV_RM_IMM32 0xc7 /* /0 id (REX.W: sign-extended) */
#define OP_MOVSXD 0x63
#define OP_IMUL_R_RM_IMM32 0x69
#define OP_IMUL_R_RM_IMM8 0x6b
#define OP_XCHG_RM_R 0x87
#define OP_SHIFT_1 0xd1	   /* /ext rm, 1 */
#define OP_SHIFT_CL 0xd3   /* /ext rm, cl */
#define OP_SHIFT_IMM8 0xc1 /* /ext rm, ib */
#define OP_GRP3 0xf7	   /* /2 not, /3 neg, /6 div, /7 idiv, /0 test */
#define OP_GRP5 0xff	   /* /2 call rm */
#define OP_CQO 0x99	   /* cdq, REX.W: cqo */
#define OP_PUSH 0x50	   /* +r */
#define OP_POP 0x58	   /* +r */
#define OP_RET 0xc3
#define OP_NOP 0x90
#define OP_CALL_REL32 0xe8
#define OP_JMP_REL32 0xe9
#define OP_JMP_REL8 0xeb
#define OP_JCC_REL8 0x70    /* +cc */
#define OP_JCC_REL32 0x0f80 /* +cc */
#define OP_IMUL_R_RM 0x0faf
#define OP_MOVZX_R_RM8 0x0fb6
#define OP_MOVZX_R_RM16 0x0fb7
#define OP_MOVSX_R_RM8 0x0fbe
#define OP_MOVSX_R_RM16 0x0fbf
#define OP_XADD_RM_R 0x0fc1
#define OP_CMPXCHG_RM_R 0x0fb1
#define OP_BSWAP 0x0fc8 /* +r */

/* ModRM.reg extensions. */
enum x86_alu { ALU_ADD = 0, ALU_OR = 1, ALU_AND = 4, ALU_SUB = 5, ALU_XOR = 6, ALU_CMP = 7 };
enum x86_shift { SHIFT_ROL = 0, SHIFT_SHL = 4, SHIFT_SHR = 5, SHIFT_SAR = 7 };
enum x86_grp3 { GRP3_TEST = 0, GRP3_NEG = 3, GRP3_DIV = 6, GRP3_IDIV = 7 };
#define GRP5_CALL 2
#define MOV_IMM_EXT 0

/* Condition codes (low nibble of jcc/setcc). */
enum x86_cc {
	CC_B = 0x2,
	CC_AE = 0x3,
	CC_E = 0x4,
	CC_NE = 0x5,
	CC_BE = 0x6,
	CC_A = 0x7,
	CC_L = 0xc,
	CC_GE = 0xd,
	CC_LE = 0xe,
	CC_G = 0xf,
	CC_ALWAYS = 0x10, /* not an x86 code: an unconditional jmp */
};

#define MODRM_DIRECT 3
#define MODRM_DISP0 0
#define MODRM_DISP8 1
#define MODRM_DISP32 2
#define SIB_NONE 0x24 /* scale 1, no index, base rsp/r12 */

struct x86_buf {
	uint8_t *code; /* NULL: count only */
	uint32_t len;
	uint32_t cap;
	int err; /* sticky */
};

static inline int fits_s8(int64_t v)
{
	return v >= -128 && v <= 127;
}

static inline int fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static inline void emit_bytes(struct x86_buf *b, const void *p, uint32_t n)
{
	if (b->code) {
		if (b->cap - b->len < n) {
			b->err = -E2BIG;
			return;
		}
		memcpy(b->code + b->len, p, n);
	}
	b->len += n;
}

static inline void emit_u8(struct x86_buf *b, uint8_t v)
{
	emit_bytes(b, &v, 1);
}

static inline void emit_u16(struct x86_buf *b, uint16_t v)
{
	emit_bytes(b, &v, 2); /* x86 is little-endian, and so is the host */
}

static inline void emit_u32(struct x86_buf *b, uint32_t v)
{
	emit_bytes(b, &v, 4);
}

static inline void emit_u64(struct x86_buf *b, uint64_t v)
{
	emit_bytes(b, &v, 8);
}

static inline void emit_opcode(struct x86_buf *b, uint16_t opc)
{
	if (opc > 0xff)
		emit_u8(b, (uint8_t)(opc >> 8));
	emit_u8(b, (uint8_t)opc);
}

/* Prefixes and REX for an instruction whose ModRM.reg is reg and ModRM.rm (or opcode+r) is rm;
 * index is a SIB index register or -1. */
static inline void emit_prefixes(struct x86_buf *b, unsigned int flags, int reg, int index, int rm)
{
	uint8_t rex = 0;

	if (flags & XF_LOCK)
		emit_u8(b, X86_P_LOCK);
	if (flags & XF_16)
		emit_u8(b, X86_P_OPSIZE);
	if (flags & XF_W)
		rex |= X86_REX_W;
	if (reg & 8)
		rex |= X86_REX_R;
	if (index >= 0 && (index & 8))
		rex |= X86_REX_X;
	if (rm & 8)
		rex |= X86_REX_B;
	if (rex || ((flags & XF_BYTE) && ((reg >= 4 && reg <= 7) || (rm >= 4 && rm <= 7))))
		emit_u8(b, X86_REX | rex);
}

static inline uint8_t modrm(int mod, int reg, int rm)
{
	return (uint8_t)(mod << 6 | (reg & 7) << 3 | (rm & 7));
}

/* "opc rm, reg" (or "opc reg, rm", per opcode) with both operands registers. */
static inline void x86_rr(struct x86_buf *b, unsigned int flags, uint16_t opc, int reg, int rm)
{
	emit_prefixes(b, flags, reg, -1, rm);
	emit_opcode(b, opc);
	emit_u8(b, modrm(MODRM_DIRECT, reg, rm));
}

/* ModRM, SIB and displacement of [base + (index << scale) + disp]; index -1 for none (rsp
 * cannot be one). */
static inline void emit_mem_operand(struct x86_buf *b, int reg, int base, int index, int scale,
				    int32_t disp)
{
	int mod = disp == 0 && (base & 7) != X86_RBP ? MODRM_DISP0
		  : fits_s8(disp)		     ? MODRM_DISP8
						     : MODRM_DISP32;

	if (index >= 0) {
		emit_u8(b, modrm(mod, reg, X86_RSP)); /* rm = 100: a SIB follows */
		emit_u8(b, (uint8_t)(scale << 6 | (index & 7) << 3 | (base & 7)));
	} else {
		emit_u8(b, modrm(mod, reg, base));
		if ((base & 7) == X86_RSP)
			emit_u8(b, SIB_NONE);
	}
	if (mod == MODRM_DISP8)
		emit_u8(b, (uint8_t)disp);
	else if (mod == MODRM_DISP32)
		emit_u32(b, (uint32_t)disp);
}

/* "opc [base + (index << scale) + disp], reg" (or the reverse direction, per opcode); index -1
 * for none. */
static inline void x86_rmi(struct x86_buf *b, unsigned int flags, uint16_t opc, int reg, int base,
			   int index, int scale, int32_t disp)
{
	emit_prefixes(b, flags, reg, index, base);
	emit_opcode(b, opc);
	emit_mem_operand(b, reg, base, index, scale, disp);
}

/* "opc [base + disp], reg" (or the reverse direction, per opcode). */
static inline void x86_rm(struct x86_buf *b, unsigned int flags, uint16_t opc, int reg, int base,
			  int32_t disp)
{
	x86_rmi(b, flags, opc, reg, base, -1, 0, disp);
}

static inline unsigned int wflag(int is64)
{
	return is64 ? XF_W : 0;
}

/* --- Moves --- */

static inline void emit_mov_rr(struct x86_buf *b, int is64, int dst, int src)
{
	x86_rr(b, wflag(is64), OP_MOV_RM_R, src, dst);
}

/* mov r32, imm32: 5 or 6 bytes, always; zero-extends. */
static inline void emit_mov_r32_imm32_fixed(struct x86_buf *b, int dst, uint32_t imm)
{
	emit_prefixes(b, 0, 0, -1, dst);
	emit_u8(b, (uint8_t)(OP_MOV_R_IMM + (dst & 7)));
	emit_u32(b, imm);
}

/* mov r64, sign-extended imm32: 7 bytes, always. */
static inline void emit_mov_r64_simm32_fixed(struct x86_buf *b, int dst, int32_t imm)
{
	x86_rr(b, XF_W, OP_MOV_RM_IMM32, MOV_IMM_EXT, dst);
	emit_u32(b, (uint32_t)imm);
}

/* movabs r64, imm64: 10 bytes, always. */
static inline void emit_movabs(struct x86_buf *b, int dst, uint64_t imm)
{
	emit_prefixes(b, XF_W, 0, -1, dst);
	emit_u8(b, (uint8_t)(OP_MOV_R_IMM + (dst & 7)));
	emit_u64(b, imm);
}

/* dst = v (64-bit) in the shortest form: xor, mov r32 (zero-extends), mov sign-extended imm32
 * or movabs.  The xor form clobbers the flags. */
static inline void emit_mov_imm64(struct x86_buf *b, int dst, uint64_t v)
{
	if (v == 0)
		x86_rr(b, 0, OP_ALU_RM_R(ALU_XOR), dst, dst);
	else if (v <= UINT32_MAX)
		emit_mov_r32_imm32_fixed(b, dst, (uint32_t)v);
	else if (fits_s32((int64_t)v))
		emit_mov_r64_simm32_fixed(b, dst, (int32_t)v);
	else
		emit_movabs(b, dst, v);
}

/* movzx r32, r8/r16 (bits 8 or 16). */
static inline void emit_movzx_rr(struct x86_buf *b, int bits, int dst, int src)
{
	x86_rr(b, bits == 8 ? XF_BYTE : 0, bits == 8 ? OP_MOVZX_R_RM8 : OP_MOVZX_R_RM16, dst, src);
}

/* movsx r32/r64, r8/r16/r32 (bits is the source width). */
static inline void emit_movsx_rr(struct x86_buf *b, int is64, int bits, int dst, int src)
{
	uint16_t opc = bits == 8 ? OP_MOVSX_R_RM8 : bits == 16 ? OP_MOVSX_R_RM16 : OP_MOVSXD;

	x86_rr(b, wflag(is64) | (bits == 8 ? XF_BYTE : 0), opc, dst, src);
}

static inline void emit_lea(struct x86_buf *b, int dst, int base, int32_t disp)
{
	x86_rm(b, XF_W, OP_LEA, dst, base, disp);
}

/* lea dst, [base + index * (1 << scale)], 32 or 64 bits (the 32-bit form zero-extends). */
static inline void emit_lea_indexed(struct x86_buf *b, int is64, int dst, int base, int index,
				    int scale)
{
	x86_rmi(b, wflag(is64), OP_LEA, dst, base, index, scale, 0);
}

/* lea dst, [base + index + disp] (64 bits). */
static inline void emit_lea_idx_disp(struct x86_buf *b, int dst, int base, int index, int32_t disp)
{
	x86_rmi(b, XF_W, OP_LEA, dst, base, index, 0, disp);
}

/* dst = *(u64 *)(base + index * 8) */
static inline void emit_load64_indexed8(struct x86_buf *b, int dst, int base, int index)
{
	x86_rmi(b, XF_W, OP_MOV_R_RM, dst, base, index, 3, 0);
}

/* --- Memory --- */

/* Zero-extending load of bits (8..64) from [base + index + disp] (index -1: none). */
static inline void emit_load_idx(struct x86_buf *b, int bits, int dst, int base, int index,
				 int32_t disp)
{
	if (bits == 8)
		x86_rmi(b, 0, OP_MOVZX_R_RM8, dst, base, index, 0, disp);
	else if (bits == 16)
		x86_rmi(b, 0, OP_MOVZX_R_RM16, dst, base, index, 0, disp);
	else
		x86_rmi(b, wflag(bits == 64), OP_MOV_R_RM, dst, base, index, 0, disp);
}

static inline void emit_load(struct x86_buf *b, int bits, int dst, int base, int32_t disp)
{
	emit_load_idx(b, bits, dst, base, -1, disp);
}

/* Sign-extending load of bits (8, 16, 32) from [base + index + disp] into a 64-bit register. */
static inline void emit_load_sx_idx(struct x86_buf *b, int bits, int dst, int base, int index,
				    int32_t disp)
{
	uint16_t opc = bits == 8 ? OP_MOVSX_R_RM8 : bits == 16 ? OP_MOVSX_R_RM16 : OP_MOVSXD;

	x86_rmi(b, XF_W, opc, dst, base, index, 0, disp);
}

static inline void emit_load_sx(struct x86_buf *b, int bits, int dst, int base, int32_t disp)
{
	emit_load_sx_idx(b, bits, dst, base, -1, disp);
}

static inline void emit_store_idx(struct x86_buf *b, int bits, int base, int index, int32_t disp,
				  int src)
{
	if (bits == 8)
		x86_rmi(b, XF_BYTE, OP_MOV_RM8_R8, src, base, index, 0, disp);
	else
		x86_rmi(b, bits == 16 ? XF_16 : wflag(bits == 64), OP_MOV_RM_R, src, base, index, 0,
			disp);
}

static inline void emit_store(struct x86_buf *b, int bits, int base, int32_t disp, int src)
{
	emit_store_idx(b, bits, base, -1, disp, src);
}

/* Store of an immediate; the 64-bit form stores imm sign-extended. */
static inline void emit_store_imm_idx(struct x86_buf *b, int bits, int base, int index,
				      int32_t disp, int32_t imm)
{
	if (bits == 8) {
		x86_rmi(b, 0, OP_MOV_RM8_IMM8, MOV_IMM_EXT, base, index, 0, disp);
		emit_u8(b, (uint8_t)imm);
	} else if (bits == 16) {
		x86_rmi(b, XF_16, OP_MOV_RM_IMM32, MOV_IMM_EXT, base, index, 0, disp);
		emit_u16(b, (uint16_t)imm);
	} else {
		x86_rmi(b, wflag(bits == 64), OP_MOV_RM_IMM32, MOV_IMM_EXT, base, index, 0, disp);
		emit_u32(b, (uint32_t)imm);
	}
}

static inline void emit_store_imm(struct x86_buf *b, int bits, int base, int32_t disp, int32_t imm)
{
	emit_store_imm_idx(b, bits, base, -1, disp, imm);
}

/* --- Arithmetic --- */

static inline void emit_alu_rr(struct x86_buf *b, int is64, enum x86_alu alu, int dst, int src)
{
	x86_rr(b, wflag(is64), OP_ALU_RM_R(alu), src, dst);
}

/* alu dst, sign-extended imm (imm8 form when it fits). */
static inline void emit_alu_imm(struct x86_buf *b, int is64, enum x86_alu alu, int dst, int32_t imm)
{
	if (fits_s8(imm)) {
		x86_rr(b, wflag(is64), OP_ALU_RM_IMM8, alu, dst);
		emit_u8(b, (uint8_t)imm);
	} else {
		x86_rr(b, wflag(is64), OP_ALU_RM_IMM32, alu, dst);
		emit_u32(b, (uint32_t)imm);
	}
}

/* alu dst, imm32 with a 4-byte immediate, always (blinding keys). */
static inline void emit_alu_imm32_fixed(struct x86_buf *b, int is64, enum x86_alu alu, int dst,
					int32_t imm)
{
	x86_rr(b, wflag(is64), OP_ALU_RM_IMM32, alu, dst);
	emit_u32(b, (uint32_t)imm);
}

static inline void emit_test_rr(struct x86_buf *b, int is64, int dst, int src)
{
	x86_rr(b, wflag(is64), OP_TEST_RM_R, src, dst);
}

static inline void emit_test_imm(struct x86_buf *b, int is64, int dst, int32_t imm)
{
	x86_rr(b, wflag(is64), OP_TEST_RM_IMM32, GRP3_TEST, dst);
	emit_u32(b, (uint32_t)imm);
}

static inline void emit_imul_rr(struct x86_buf *b, int is64, int dst, int src)
{
	x86_rr(b, wflag(is64), OP_IMUL_R_RM, dst, src);
}

/* dst = src * sign-extended imm */
static inline void emit_imul_imm(struct x86_buf *b, int is64, int dst, int src, int32_t imm)
{
	if (fits_s8(imm)) {
		x86_rr(b, wflag(is64), OP_IMUL_R_RM_IMM8, dst, src);
		emit_u8(b, (uint8_t)imm);
	} else {
		x86_rr(b, wflag(is64), OP_IMUL_R_RM_IMM32, dst, src);
		emit_u32(b, (uint32_t)imm);
	}
}

static inline void emit_grp3(struct x86_buf *b, int is64, enum x86_grp3 ext, int rm)
{
	x86_rr(b, wflag(is64), OP_GRP3, ext, rm);
}

static inline void emit_neg(struct x86_buf *b, int is64, int dst)
{
	emit_grp3(b, is64, GRP3_NEG, dst);
}

/* div/idiv divisor: rdx:rax / divisor. */
static inline void emit_div(struct x86_buf *b, int is64, int is_signed, int divisor)
{
	emit_grp3(b, is64, is_signed ? GRP3_IDIV : GRP3_DIV, divisor);
}

/* cqo (64) / cdq (32): sign-extend rax into rdx. */
static inline void emit_cqo(struct x86_buf *b, int is64)
{
	if (is64)
		emit_u8(b, X86_REX | X86_REX_W);
	emit_u8(b, OP_CQO);
}

static inline void emit_shift_cl(struct x86_buf *b, int is64, enum x86_shift sh, int dst)
{
	x86_rr(b, wflag(is64), OP_SHIFT_CL, sh, dst);
}

/* Shift by a count in 1..63 (the caller masks and drops 0). */
static inline void emit_shift_imm(struct x86_buf *b, int is64, enum x86_shift sh, int dst,
				  uint8_t count)
{
	if (count == 1) {
		x86_rr(b, wflag(is64), OP_SHIFT_1, sh, dst);
	} else {
		x86_rr(b, wflag(is64), OP_SHIFT_IMM8, sh, dst);
		emit_u8(b, count);
	}
}

/* rol r16, 8: swaps the two low bytes. */
static inline void emit_rol16_8(struct x86_buf *b, int dst)
{
	x86_rr(b, XF_16, OP_SHIFT_IMM8, SHIFT_ROL, dst);
	emit_u8(b, 8);
}

static inline void emit_bswap(struct x86_buf *b, int is64, int dst)
{
	emit_prefixes(b, wflag(is64), 0, -1, dst);
	emit_opcode(b, (uint16_t)(OP_BSWAP + (dst & 7)));
}

/* --- Atomics on [base + disp] --- */

static inline void emit_lock_alu(struct x86_buf *b, int is64, enum x86_alu alu, int base,
				 int32_t disp, int src)
{
	x86_rm(b, XF_LOCK | wflag(is64), OP_ALU_RM_R(alu), src, base, disp);
}

static inline void emit_lock_xadd(struct x86_buf *b, int is64, int base, int32_t disp, int src)
{
	x86_rm(b, XF_LOCK | wflag(is64), OP_XADD_RM_R, src, base, disp);
}

/* xchg with memory is locked without a prefix. */
static inline void emit_xchg(struct x86_buf *b, int is64, int base, int32_t disp, int src)
{
	x86_rm(b, wflag(is64), OP_XCHG_RM_R, src, base, disp);
}

static inline void emit_lock_cmpxchg(struct x86_buf *b, int is64, int base, int32_t disp, int src)
{
	x86_rm(b, XF_LOCK | wflag(is64), OP_CMPXCHG_RM_R, src, base, disp);
}

/* --- Control flow and stack --- */

static inline void emit_push(struct x86_buf *b, int reg)
{
	emit_prefixes(b, 0, 0, -1, reg);
	emit_u8(b, (uint8_t)(OP_PUSH + (reg & 7)));
}

static inline void emit_pop(struct x86_buf *b, int reg)
{
	emit_prefixes(b, 0, 0, -1, reg);
	emit_u8(b, (uint8_t)(OP_POP + (reg & 7)));
}

static inline void emit_ret(struct x86_buf *b)
{
	emit_u8(b, OP_RET);
}

static inline void emit_nop(struct x86_buf *b)
{
	emit_u8(b, OP_NOP);
}

/* n bytes of NOPs in as few instructions as the recommended multi-byte forms allow (nopw and
 * nopl with a zero displacement, up to 9 bytes each): padding that runs decodes quickly. */
static inline void emit_nops(struct x86_buf *b, uint32_t n)
{
	static const uint8_t nops[9][9] = {
		{0x90},
		{0x66, 0x90},
		{0x0f, 0x1f, 0x00},
		{0x0f, 0x1f, 0x40, 0x00},
		{0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
		{0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
		{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	};

	while (n) {
		uint32_t k = n < 9 ? n : 9;

		emit_bytes(b, nops[k - 1], k);
		n -= k;
	}
}

static inline void emit_call_reg(struct x86_buf *b, int reg)
{
	x86_rr(b, 0, OP_GRP5, GRP5_CALL, reg);
}

static inline void emit_call_rel32(struct x86_buf *b, int32_t rel)
{
	emit_u8(b, OP_CALL_REL32);
	emit_u32(b, (uint32_t)rel);
}

/* jmp (cc == CC_ALWAYS) or jcc with an 8-bit displacement: 2 bytes. */
static inline void emit_jcc_rel8(struct x86_buf *b, enum x86_cc cc, int8_t rel)
{
	emit_u8(b, cc == CC_ALWAYS ? OP_JMP_REL8 : (uint8_t)(OP_JCC_REL8 + cc));
	emit_u8(b, (uint8_t)rel);
}

/* jmp (5 bytes) or jcc (6 bytes) with a 32-bit displacement. */
static inline void emit_jcc_rel32(struct x86_buf *b, enum x86_cc cc, int32_t rel)
{
	if (cc == CC_ALWAYS)
		emit_u8(b, OP_JMP_REL32);
	else
		emit_opcode(b, (uint16_t)(OP_JCC_REL32 + cc));
	emit_u32(b, (uint32_t)rel);
}

/* A forward jcc/jmp rel8 to a place not emitted yet: returns where to patch_rel8() later. */
static inline uint32_t emit_jcc_fwd8(struct x86_buf *b, enum x86_cc cc)
{
	emit_jcc_rel8(b, cc, 0);
	return b->len;
}

/* Make the rel8 jump that ended at `end` land at the current position. */
static inline void patch_rel8(struct x86_buf *b, uint32_t end)
{
	uint32_t rel = b->len - end;

	if (rel > 127) {
		b->err = -E2BIG;
		return;
	}
	if (b->code && end <= b->cap)
		b->code[end - 1] = (uint8_t)rel;
}

/* A forward jcc/jmp rel32 to a place not emitted yet (any distance): returns where to
 * patch_rel32() later. */
static inline uint32_t emit_jcc_fwd32(struct x86_buf *b, enum x86_cc cc)
{
	emit_jcc_rel32(b, cc, 0);
	return b->len;
}

/* Make the rel32 jump that ended at `end` land at the current position. */
static inline void patch_rel32(struct x86_buf *b, uint32_t end)
{
	uint32_t rel = b->len - end;

	if (b->code && end <= b->cap)
		memcpy(b->code + end - 4, &rel, 4);
}

/* cmp dword [base + disp], r32 (flags of the memory operand minus reg). */
static inline void emit_cmp_m32_r32(struct x86_buf *b, int base, int32_t disp, int reg)
{
	x86_rm(b, 0, OP_ALU_RM_R(ALU_CMP), reg, base, disp);
}

#endif /* USERBPF_EXEC_JIT_EMIT_H */
