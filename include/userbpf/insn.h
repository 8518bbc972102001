/* Instruction-building macros in the kernel's style (BPF_MOV64_IMM, BPF_LDX_MEM, BPF_JMP_IMM,
 * BPF_LD_MAP_FD, ...), so programs written for the kernel's samples and tests build unchanged
 * against userbpf.  Each expands to a struct bpf_insn initializer (LD_IMM64 forms to two). */
#ifndef USERBPF_INSN_H
#define USERBPF_INSN_H

#include <linux/bpf.h>

#ifndef BPF_JMP32
#define BPF_JMP32 0x06
#endif
#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef BPF_FETCH
#define BPF_FETCH 0x01
#endif
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

#define BPF_RAW_INSN(CODE, DST, SRC, OFF, IMM)                                                   \
	((struct bpf_insn){ .code = (CODE), .dst_reg = (DST), .src_reg = (SRC), .off = (OFF),    \
			    .imm = (IMM) })

/* ALU: dst = dst OP src / imm, 64-bit and 32-bit */
#define BPF_ALU64_REG(OP, DST, SRC) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU32_REG(OP, DST, SRC) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU64_IMM(OP, DST, IMM) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_ALU32_IMM(OP, DST, IMM) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
/* signed division / modulo (off = 1) */
#define BPF_ALU64_REG_OFF(OP, DST, SRC, OFF)                                                     \
	BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_ALU64_IMM_OFF(OP, DST, IMM, OFF)                                                     \
	BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_ALU32_REG_OFF(OP, DST, SRC, OFF)                                                     \
	BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_ALU32_IMM_OFF(OP, DST, IMM, OFF)                                                     \
	BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)

#define BPF_ENDIAN(TYPE, DST, LEN) BPF_RAW_INSN(BPF_ALU | BPF_END | BPF_SRC(TYPE), DST, 0, 0, LEN)
#define BPF_BSWAP(DST, LEN) BPF_RAW_INSN(BPF_ALU64 | BPF_END | BPF_SRC(BPF_K), DST, 0, 0, LEN)

#define BPF_MOV64_REG(DST, SRC) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define BPF_MOV32_REG(DST, SRC) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define BPF_MOV64_IMM(DST, IMM) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, DST, 0, 0, IMM)
#define BPF_MOV32_IMM(DST, IMM) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_K, DST, 0, 0, IMM)
/* sign-extending moves: off = 8, 16 or 32 */
#define BPF_MOVSX64_REG(DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, OFF, 0)
#define BPF_MOVSX32_REG(DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, DST, SRC, OFF, 0)

/* 64-bit immediate loads: two instruction slots */
#define BPF_LD_IMM64_RAW(DST, SRC, IMM)                                                          \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, DST, SRC, 0, (__s32)(__u32)(IMM)),               \
		BPF_RAW_INSN(0, 0, 0, 0, (__s32)(__u32)((__u64)(IMM) >> 32))
#define BPF_LD_IMM64(DST, IMM) BPF_LD_IMM64_RAW(DST, 0, IMM)
#define BPF_LD_MAP_FD(DST, MAP_FD) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_FD, MAP_FD)
/* the address of the map's value at OFF (BPF_PSEUDO_MAP_VALUE) */
#define BPF_LD_MAP_VALUE(DST, MAP_FD, OFF)                                                       \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, DST, BPF_PSEUDO_MAP_VALUE, 0, MAP_FD),           \
		BPF_RAW_INSN(0, 0, 0, 0, OFF)

/* legacy packet loads of socket filters: R0 = ntoh(*(skb->data + IMM [+ SRC])) */
#define BPF_LD_ABS(SIZE, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_ABS, 0, 0, 0, IMM)
#define BPF_LD_IND(SIZE, SRC, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_IND, 0, SRC, 0, IMM)

/* memory: dst = *(SIZE *)(src + off); *(SIZE *)(dst + off) = src / imm */
#define BPF_LDX_MEM(SIZE, DST, SRC, OFF)                                                         \
	BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_LDX_MEMSX(SIZE, DST, SRC, OFF)                                                       \
	BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEMSX, DST, SRC, OFF, 0)
#define BPF_STX_MEM(SIZE, DST, SRC, OFF)                                                         \
	BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_ST_MEM(SIZE, DST, OFF, IMM)                                                          \
	BPF_RAW_INSN(BPF_ST | BPF_SIZE(SIZE) | BPF_MEM, DST, 0, OFF, IMM)
/* atomics: OP is BPF_ADD/OR/AND/XOR [| BPF_FETCH], BPF_XCHG or BPF_CMPXCHG */
#define BPF_ATOMIC_OP(SIZE, OP, DST, SRC, OFF)                                                   \
	BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_ATOMIC, DST, SRC, OFF, OP)

/* jumps: if (dst OP src / imm) goto pc + off + 1 */
#define BPF_JMP_REG(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP_IMM(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP32_REG(OP, DST, SRC, OFF)                                                         \
	BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP32_IMM(OP, DST, IMM, OFF)                                                         \
	BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP_A(OFF) BPF_RAW_INSN(BPF_JMP | BPF_JA, 0, 0, OFF, 0)
/* gotol: 32-bit offset in imm */
#define BPF_JMP32_A(IMM) BPF_RAW_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, IMM)

/* calls: a helper by number, or a bpf-to-bpf call to pc + IMM + 1 */
#define BPF_EMIT_CALL(FUNC) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, FUNC)
#define BPF_CALL_REL(IMM) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, IMM)

#define BPF_EXIT_INSN() BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#endif
