/* Verifier: ALU rules (operands, reserved fields, shifts, division, pointer arithmetic). */
#include "test.h"
#include "verifier_harness.h"

#define R0_0 BPF_MOV64_IMM(0, 0)
#define EXIT BPF_EXIT_INSN()
/* r0 = -1 or 0, as the verifier sees it: [-1, 0] from a random number's sign */
#define SIGN64 BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_ALU64_IMM(BPF_LSH, 0, 32),          \
	BPF_ALU64_IMM(BPF_ARSH, 0, 63)

static const struct vcase cases[] = {
	{ "alu_mov_imm", SOCK, { BPF_MOV64_IMM(0, -1), EXIT }, ACCEPT },
	{ "alu_mov32_imm", SOCK, { BPF_MOV32_IMM(0, -1), EXIT }, ACCEPT },
	{ "alu_uninit_src", SOCK, { BPF_MOV64_REG(0, 2), EXIT }, REJECT, "R2 !read_ok", EACCES },
	{ "alu_uninit_dst", SOCK, { BPF_ALU64_IMM(BPF_ADD, 0, 1), EXIT }, REJECT, "R0 !read_ok",
	  EACCES },
	{ "alu_all_ops64", SOCK,
	  { BPF_MOV64_IMM(0, 7), BPF_MOV64_IMM(2, 3), BPF_ALU64_REG(BPF_ADD, 0, 2),
	    BPF_ALU64_REG(BPF_SUB, 0, 2), BPF_ALU64_REG(BPF_MUL, 0, 2), BPF_ALU64_REG(BPF_DIV, 0, 2),
	    BPF_ALU64_REG(BPF_MOD, 0, 2), BPF_ALU64_REG(BPF_OR, 0, 2), BPF_ALU64_REG(BPF_AND, 0, 2),
	    BPF_ALU64_REG(BPF_XOR, 0, 2), BPF_ALU64_REG(BPF_LSH, 0, 2), BPF_ALU64_REG(BPF_RSH, 0, 2),
	    BPF_ALU64_REG(BPF_ARSH, 0, 2), BPF_ALU64_IMM(BPF_NEG, 0, 0), EXIT }, ACCEPT },
	{ "alu_all_ops32", SOCK,
	  { BPF_MOV32_IMM(0, 7), BPF_MOV32_IMM(2, 3), BPF_ALU32_REG(BPF_ADD, 0, 2),
	    BPF_ALU32_REG(BPF_SUB, 0, 2), BPF_ALU32_REG(BPF_MUL, 0, 2), BPF_ALU32_REG(BPF_DIV, 0, 2),
	    BPF_ALU32_REG(BPF_MOD, 0, 2), BPF_ALU32_REG(BPF_OR, 0, 2), BPF_ALU32_REG(BPF_AND, 0, 2),
	    BPF_ALU32_REG(BPF_XOR, 0, 2), BPF_ALU32_REG(BPF_LSH, 0, 2), BPF_ALU32_REG(BPF_RSH, 0, 2),
	    BPF_ALU32_REG(BPF_ARSH, 0, 2), BPF_ALU32_IMM(BPF_NEG, 0, 0), EXIT }, ACCEPT },
	{ "alu_div_by_zero_imm", SOCK, { R0_0, BPF_ALU64_IMM(BPF_DIV, 0, 0), EXIT }, REJECT,
	  "div by zero", EINVAL },
	{ "alu_mod_by_zero_imm32", SOCK, { R0_0, BPF_ALU32_IMM(BPF_MOD, 0, 0), EXIT }, REJECT,
	  "div by zero", EINVAL },
	{ "alu_div_by_zero_reg_ok", SOCK,
	  { R0_0, BPF_MOV64_IMM(1, 0), BPF_ALU64_REG(BPF_DIV, 0, 1), EXIT }, ACCEPT },
	{ "alu_shift_64", SOCK, { R0_0, BPF_ALU64_IMM(BPF_LSH, 0, 64), EXIT }, REJECT,
	  "invalid shift 64", EINVAL },
	{ "alu_shift_32", SOCK, { R0_0, BPF_ALU32_IMM(BPF_RSH, 0, 32), EXIT }, REJECT,
	  "invalid shift 32", EINVAL },
	{ "alu_shift_neg", SOCK, { R0_0, BPF_ALU64_IMM(BPF_ARSH, 0, -1), EXIT }, REJECT,
	  "invalid shift -1", EINVAL },
	{ "alu_shift_63", SOCK, { R0_0, BPF_ALU64_IMM(BPF_LSH, 0, 63), EXIT }, ACCEPT },
	{ "alu_reserved_src", SOCK, { R0_0, BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 1, 0, 1),
				      EXIT }, REJECT, "BPF_ALU uses reserved fields", EINVAL },
	{ "alu_reserved_imm", SOCK, { R0_0, BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_X, 0, 0, 0, 1),
				      EXIT }, REJECT, "BPF_ALU uses reserved fields", EINVAL },
	{ "alu_reserved_off", SOCK, { R0_0, BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 1, 1),
				      EXIT }, REJECT, "BPF_ALU uses reserved fields", EINVAL },
	{ "alu_mov_reserved", SOCK, { BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 1, 0, 1), EXIT },
	  REJECT, "BPF_MOV uses reserved fields", EINVAL },
	{ "alu_neg_reserved", SOCK, { R0_0, BPF_RAW_INSN(BPF_ALU64 | BPF_NEG, 0, 0, 0, 1), EXIT },
	  REJECT, "BPF_NEG uses reserved fields", EINVAL },
	{ "alu_end_reserved", SOCK, { R0_0, BPF_RAW_INSN(BPF_ALU | BPF_END | BPF_TO_BE, 0, 0, 0,
							 8), EXIT },
	  REJECT, "BPF_END uses reserved fields", EINVAL },
	{ "alu_end_ok", SOCK, { R0_0, BPF_ENDIAN(BPF_TO_BE, 0, 16), BPF_ENDIAN(BPF_TO_LE, 0, 64),
				BPF_BSWAP(0, 32), EXIT }, ACCEPT },
	{ "alu_sdiv_smod", SOCK, { BPF_MOV64_IMM(0, -7), BPF_ALU64_IMM_OFF(BPF_DIV, 0, 2, 1),
				   BPF_ALU32_IMM_OFF(BPF_MOD, 0, 3, 1), EXIT }, ACCEPT },
	{ "alu_movsx", SOCK, { BPF_MOV64_IMM(1, 0xff), BPF_MOVSX64_REG(0, 1, 8),
			       BPF_MOVSX32_REG(0, 1, 16), EXIT }, ACCEPT },
	{ "alu_movsx_bad_off", SOCK, { BPF_MOV64_IMM(1, 0xff), BPF_MOVSX32_REG(0, 1, 32), EXIT },
	  REJECT, "BPF_MOV uses reserved fields", EINVAL },
	{ "alu_ptr_add_const", SOCK, { BPF_MOV64_REG(0, 10), BPF_ALU64_IMM(BPF_ADD, 0, -8),
				       BPF_MOV64_IMM(0, 0), EXIT }, ACCEPT },
	{ "alu_ptr_mul", SOCK, { BPF_MOV64_REG(0, 10), BPF_ALU64_IMM(BPF_MUL, 0, 2), EXIT },
	  REJECT, "R0 pointer arithmetic with *= operator prohibited", EACCES },
	{ "alu_ptr_and", SOCK, { BPF_MOV64_REG(0, 1), BPF_ALU64_IMM(BPF_AND, 0, 2), EXIT },
	  REJECT, "R0 bitwise operator &= on pointer prohibited", EACCES },
	{ "alu_ptr32", SOCK, { BPF_MOV64_REG(0, 1), BPF_ALU32_IMM(BPF_ADD, 0, 2), EXIT },
	  REJECT, "R0 32-bit pointer arithmetic prohibited", EACCES },
	{ "alu_ptr_ptr_add", SOCK, { BPF_MOV64_REG(0, 1), BPF_ALU64_REG(BPF_ADD, 0, 10), EXIT },
	  REJECT, "R0 pointer += pointer prohibited", EACCES },
	{ "alu_ptr_ptr_sub_ok", SOCK, { BPF_MOV64_REG(0, 10), BPF_ALU64_REG(BPF_SUB, 0, 1), EXIT },
	  ACCEPT },
	{ "alu_fp_sub_scalar", SOCK, { BPF_MOV64_REG(0, 10), BPF_MOV64_IMM(2, 8),
				       BPF_LDX_MEM(BPF_W, 2, 1, 0),
				       BPF_ALU64_REG(BPF_SUB, 0, 2), R0_0, EXIT }, REJECT,
	  "R0 subtraction from stack pointer prohibited", EACCES },
	{ "alu_scalar_sub_ptr", SOCK, { R0_0, BPF_ALU64_REG(BPF_SUB, 0, 1), EXIT }, REJECT,
	  "R0 tried to subtract pointer from scalar", EACCES },
	{ "alu_scalar_add_ptr", SOCK, { R0_0, BPF_ALU64_REG(BPF_ADD, 0, 10), BPF_MOV64_IMM(0, 0),
					EXIT }, ACCEPT },
	{ "alu_map_ptr_arith", SOCK, { BPF_LD_MAP_FD(0, MAP_HASH), BPF_ALU64_IMM(BPF_ADD, 0, 8),
				       EXIT }, REJECT, "R0 pointer arithmetic on map_ptr prohibited",
	  EACCES },
	{ "alu_ptr_unbounded", SOCK, { BPF_LDX_MEM(BPF_DW, 2, 1, 0) }, REJECT },
	{ "alu_ptr_unbounded_min", SOCK,
	  { BPF_MOV64_REG(0, 10), BPF_LD_IMM64(2, 0), BPF_ST_MEM(BPF_DW, 10, -8, 0),
	    BPF_LDX_MEM(BPF_DW, 2, 10, -8), BPF_JMP_IMM(BPF_JA, 0, 0, 0),
	    BPF_ALU64_IMM(BPF_SUB, 2, 1), BPF_ALU64_REG(BPF_ADD, 0, 2), R0_0, EXIT }, ACCEPT },
	{ "alu_ptr_unknown_scalar", SOCK,
	  { BPF_MOV64_REG(0, 10), BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_ALU64_IMM(BPF_LSH, 2, 32),
	    BPF_ALU64_IMM(BPF_ARSH, 2, 32), BPF_ALU64_IMM(BPF_LSH, 2, 31),
	    BPF_ALU64_REG(BPF_ADD, 0, 2), R0_0, EXIT }, REJECT,
	  "math between fp pointer and register with unbounded min value is not allowed", EINVAL },
	/* 64-bit bounds whose ends are in adjacent 2^32 blocks, crossing -1 -> 0 in the low half,
	 * still bound the 32-bit signed view: [S32_MIN, 100] after a signed check on an int */
	{ "alu_s32_from_adjacent_blocks", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0),
	  BPF_MOV32_REG(2, 2), BPF_ALU64_IMM(BPF_LSH, 2, 32), BPF_ALU64_IMM(BPF_ARSH, 2, 32),
	  BPF_JMP_IMM(BPF_JSGT, 2, 100, 1), BPF_ALU64_IMM(BPF_ADD, 2, 1),
	  BPF_MOV32_REG(3, 2), BPF_MOV64_REG(4, 2), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	/* rX = rY; rX += K keeps rY's id with +K ("id=1+5"); a second constant, or another
	 * operation, unlinks it; a copy of it gets a fresh id; a branch on either side refines
	 * only that side (the kernel running here syncs neither way) */
	{ "alu_add_const_linked_log", SOCK, { BPF_LDX_MEM(BPF_W, 1, 1, 0), BPF_MOV64_REG(2, 1),
	  BPF_ALU64_IMM(BPF_ADD, 2, 5), BPF_MOV64_REG(3, 1), BPF_ALU64_IMM(BPF_SUB, 3, 3),
	  BPF_MOV64_REG(4, 1), BPF_ALU32_IMM(BPF_ADD, 4, 7), BPF_MOV64_REG(5, 2),
	  BPF_MOV64_REG(6, 1), BPF_ALU64_IMM(BPF_ADD, 6, 1), BPF_ALU64_IMM(BPF_ADD, 6, 1),
	  BPF_MOV64_IMM(7, 9), BPF_MOV64_REG(8, 1), BPF_ALU64_REG(BPF_ADD, 8, 7),
	  BPF_JMP_IMM(BPF_JLT, 1, 10, 1), BPF_MOV64_IMM(9, 0), BPF_JMP_IMM(BPF_JGT, 2, 100, 1),
	  BPF_MOV64_IMM(9, 1), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	/* sign-extending copies are linked only when the sign bit is clear */
	{ "alu_movsx_links_small", SOCK, { BPF_LDX_MEM(BPF_B, 2, 1, 0),
	  BPF_ALU64_IMM(BPF_AND, 2, 100), BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 2, 8, 0),
	  BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, 4, 2, 8, 0), BPF_LDX_MEM(BPF_B, 5, 1, 0),
	  BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 5, 8, 0),
	  BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 7, 5, 16, 0), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	/* a 32-bit operation the kernel does not track (div, mod, shift by a register) leaves all
	 * 64 bits unknown: no zero-extension, so r8 s> -1 is not decided */
	{ "alu32_untracked_not_zext", SOCK, { BPF_LDX_MEM(BPF_W, 9, 1, 0),
	  BPF_LDX_MEM(BPF_W, 8, 1, 4), BPF_ALU32_IMM(BPF_DIV, 8, 3), BPF_ALU32_IMM(BPF_MOD, 8, 7),
	  BPF_ALU32_REG(BPF_LSH, 8, 9), BPF_ALU32_REG(BPF_DIV, 8, 9),
	  BPF_JMP_IMM(BPF_JSGT, 8, -1, 1), BPF_LDX_MEM(BPF_B, 0, 8, 0), R0_0, EXIT }, REJECT,
	  "R8 invalid mem access 'scalar'", EACCES, .full_log = true, .log_level = 2 },
	/* a 32-bit shift by a register is tracked only if the whole 64-bit register is below 32
	 * (the kernel checks umax, not the low half's): w3 >>= w2 with r2 = 1 << 40 (low half 0)
	 * leaves r3 unknown, w4 <<= w5 with r5 = 0 keeps r4 = 7 (found by a soundness run) */
	{ "alu32_shift_amount_high_bits", SOCK, { BPF_MOV64_IMM(2, 1),
	  BPF_ALU64_IMM(BPF_LSH, 2, 40), BPF_MOV64_IMM(3, 7), BPF_ALU32_REG(BPF_RSH, 3, 2),
	  BPF_MOV64_IMM(4, 7), BPF_MOV64_IMM(5, 0), BPF_ALU32_REG(BPF_LSH, 4, 5),
	  BPF_MOV64_IMM(6, 7), BPF_ALU64_REG(BPF_ARSH, 6, 5), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	/* the kernel's LSH drops signed bounds (except <<32) and shifts the unsigned ones only
	 * while max <= 2^(63-k); what the tnum knows comes back */
	{ "alu_lsh_bounds_log", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0),
	  BPF_ALU32_IMM(BPF_AND, 2, 0xff), BPF_ALU32_IMM(BPF_SUB, 2, 100),
	  BPF_ALU64_IMM(BPF_LSH, 2, 32), BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_ALU64_IMM(BPF_AND, 2, 5),
	  BPF_ALU64_IMM(BPF_LSH, 2, 61), BPF_LDX_MEM(BPF_W, 2, 1, 0),
	  BPF_ALU64_IMM(BPF_AND, 2, 5), BPF_ALU32_IMM(BPF_LSH, 2, 29), BPF_LDX_MEM(BPF_W, 2, 1, 0),
	  BPF_ALU64_IMM(BPF_AND, 2, 7), BPF_ALU64_IMM(BPF_SUB, 2, 3), BPF_ALU64_IMM(BPF_LSH, 2, 4),
	  BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_ALU64_IMM(BPF_AND, 2, 6), BPF_ALU64_IMM(BPF_LSH, 2, 3),
	  BPF_ALU32_IMM(BPF_LSH, 2, 28), R0_0, EXIT }, ACCEPT, .full_log = true,
	  .log_level = 2 },
	/* 6.18's bounds sync replaces the 64-bit ranges with the s32 range where that is
	 * non-negative and the value lies in [S32_MIN, S32_MAX], after deducing them from the
	 * 64-bit ranges in the same round: r1 = -len <= 5 is [0, 5] there, though the 64-bit
	 * ranges alone say 0, so the store at fp-8 + r1 may be misaligned (found by a soundness
	 * run) */
	{ "alu_sync_s32_assign", SOCK, { BPF_LDX_MEM(BPF_W, 8, 1, 0),
	  BPF_ALU64_IMM(BPF_NEG, 8, 0), BPF_MOV64_REG(1, 8), BPF_JMP_IMM(BPF_JLE, 1, 5, 1),
	  BPF_MOV64_IMM(1, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -8),
	  BPF_ALU64_REG(BPF_ADD, 2, 1), BPF_STX_MEM(BPF_H, 2, 8, 0), R0_0, EXIT }, REJECT,
	  "misaligned stack access off (0x0; 0x7)+-8+0 size 2", EACCES, .full_log = true,
	  .log_level = 2 },
	/* a 64-bit sign extension whose 64-bit ranges say nothing takes the s32 range when that
	 * fits the narrow type (6.18): (s16)((len << 56) | (len & 7)) is [0, 7] and
	 * (s8)((len << 56) + (len & 15) - 5) is [-5, 10], so both index the stack; (s32) keeps the
	 * low half's unsigned range */
	{ "alu_movsx_from_s32", SOCK, { BPF_LDX_MEM(BPF_W, 8, 1, 0), BPF_ALU64_IMM(BPF_LSH, 8, 56),
	  BPF_LDX_MEM(BPF_W, 9, 1, 0), BPF_ALU64_IMM(BPF_AND, 9, 7), BPF_MOV64_REG(6, 8),
	  BPF_ALU64_REG(BPF_OR, 8, 9), BPF_MOVSX64_REG(7, 8, 16), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_IMM(BPF_ADD, 2, -8), BPF_ALU64_REG(BPF_ADD, 2, 7), BPF_ST_MEM(BPF_B, 2, 0, 0),
	  BPF_LDX_MEM(BPF_W, 9, 1, 0), BPF_ALU64_IMM(BPF_AND, 9, 15), BPF_ALU64_IMM(BPF_ADD, 9, -5),
	  BPF_ALU64_REG(BPF_ADD, 6, 9), BPF_MOVSX64_REG(7, 6, 8), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_IMM(BPF_ADD, 2, -16), BPF_ALU64_REG(BPF_ADD, 2, 7), BPF_ST_MEM(BPF_B, 2, 0, 0),
	  BPF_LDX_MEM(BPF_W, 8, 1, 0), BPF_ALU64_IMM(BPF_LSH, 8, 24), BPF_ALU64_IMM(BPF_OR, 8, 7),
	  BPF_MOVSX64_REG(7, 8, 32), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "alu_ptr_large_const", SOCK,
	  { BPF_MOV64_REG(0, 10), BPF_LD_IMM64(2, 1ULL << 40), BPF_ALU64_REG(BPF_ADD, 0, 2), R0_0,
	    EXIT }, REJECT, "math between fp pointer and 1099511627776 is not allowed", EINVAL },
	{ "alu_ptr_unbounded_scalar", SOCK,
	  { BPF_MOV64_REG(0, 10), BPF_LD_MAP_FD(1, MAP_ARRAY), BPF_MOV64_REG(2, 10),
	    BPF_ALU64_IMM(BPF_ADD, 2, -8), BPF_ST_MEM(BPF_DW, 2, 0, 0),
	    BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_MOV64_REG(2, 10),
	    BPF_ALU64_IMM(BPF_LSH, 0, 32), BPF_ALU64_REG(BPF_ADD, 2, 0), R0_0, EXIT }, REJECT,
	  "math between fp pointer and register with unbounded min value is not allowed", EINVAL },
	{ "alu_ptr_copy_32_unknown", SOCK, { BPF_MOV32_REG(0, 1), EXIT }, ACCEPT },
	/* a 32-bit copy of a pointer's bits is unknown but for its zero upper half: a branch on
	 * the upper half is dead (the soundness generator found this) */
	{ "alu_ptr_copy_32_zext", SOCK, { BPF_MOV32_REG(2, 10), BPF_LD_IMM64(3, 0x100000000ull),
	  BPF_JMP_REG(BPF_JLT, 2, 3, 1), BPF_ALU64_IMM(BPF_AND, 10, 1), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "alu_ptr_movsx_32_zext", SOCK, { BPF_MOVSX32_REG(2, 10, 8),
	  BPF_LD_IMM64(3, 0x100000000ull), BPF_JMP_REG(BPF_JLT, 2, 3, 1),
	  BPF_ALU64_IMM(BPF_AND, 10, 1), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "alu_ptr_movsx_64_unknown", SOCK, { R0_0, BPF_MOVSX64_REG(2, 10, 16),
	  BPF_LD_IMM64(3, 0x100000000ull), BPF_JMP_REG(BPF_JLT, 2, 3, 1), BPF_MOV64_IMM(0, 1),
	  EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "alu_ctx_neg", SOCK, { BPF_MOV64_REG(0, 1), BPF_ALU64_IMM(BPF_NEG, 0, 0), EXIT }, ACCEPT },
	{ "alu_ldimm64_ptr", SOCK, { BPF_LD_MAP_FD(0, MAP_HASH), EXIT }, ACCEPT },
	/* rX &= K, rX |= K with rX in [-1, 0] (LLVM's "x < 0 ? K : 0"): the walk forks into
	 * rX = 0 and rX = -1, so each path knows the result; without the fork these stack
	 * accesses at fp + rX would be refused as unbounded */
	{ "alu_sign_mask_and_fork", SOCK, { SIGN64, BPF_ALU64_IMM(BPF_AND, 0, -134),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 3), BPF_MOV64_REG(2, 10), BPF_ALU64_REG(BPF_ADD, 2, 0),
	  BPF_ST_MEM(BPF_B, 2, 0, 1), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	{ "alu_sign_mask_or_fork", SOCK, { SIGN64, BPF_ALU64_IMM(BPF_OR, 0, 8),
	  BPF_JMP_IMM(BPF_JEQ, 0, 8, 3), BPF_MOV64_REG(2, 10), BPF_ALU64_REG(BPF_ADD, 2, 0),
	  BPF_ST_MEM(BPF_B, 2, 0, 1), R0_0, EXIT }, ACCEPT, .full_log = true, .log_level = 2 },
	/* (the path with 0 | 8 = 8 must not go on as 0: fp + 8 is refused there) */
	{ "alu_sign_mask_or_fork_unchecked", SOCK, { SIGN64, BPF_ALU64_IMM(BPF_OR, 0, 8),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_REG(BPF_ADD, 2, 0), BPF_ST_MEM(BPF_B, 2, 0, 1), R0_0,
	  EXIT }, REJECT, "invalid write to stack R2 off=8 size=1", EACCES, .full_log = true,
	  .log_level = 2 },
	/* the 32-bit form (cilium's): w = w s>> 31, then w &= K on the low half's [-1, 0] */
	{ "alu_sign_mask_and32_fork", SOCK, { BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
	  BPF_ALU32_IMM(BPF_ARSH, 0, 31), BPF_ALU32_IMM(BPF_AND, 0, -134),
	  BPF_JMP32_IMM(BPF_JEQ, 0, 0, 4), BPF_MOVSX64_REG(0, 0, 32), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_REG(BPF_ADD, 2, 0), BPF_ST_MEM(BPF_B, 2, 0, 1), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	/* a constant register as the mask forks too; an unknown one does not */
	{ "alu_sign_mask_reg_fork", SOCK, { SIGN64, BPF_MOV64_IMM(1, -4), BPF_MOV64_REG(3, 0),
	  BPF_ALU64_REG(BPF_AND, 0, 1), BPF_ALU32_IMM(BPF_OR, 3, 2), R0_0, EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "alu_sign_mask_unknown_no_fork", SOCK, { SIGN64, BPF_MOV64_REG(6, 0),
	  BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_ALU64_REG(BPF_AND, 6, 0), R0_0, EXIT },
	  ACCEPT, .full_log = true, .log_level = 2 },
};

TEST(verifier_alu)
{
	vcase_run_table("alu", cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
