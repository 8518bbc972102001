/* insn.h — the one list of eBPF instructions (RFC 9669 plus the kernel's pseudo forms).
 *
 * INSN_LIST(X) expands X once per legal instruction form.  An instruction form is an opcode byte,
 * plus, where the opcode alone is ambiguous, the value of one other field (the "discriminator"):
 * off for sdiv/smod (1) and movsx (8/16/32), imm for byte swaps (16/32/64) and atomics (the
 * operation), src_reg for calls (helper/local/kfunc) and 64-bit immediate loads (pseudo kinds).
 * Everything that needs a per-opcode table — verifier, interpreter, JIT, disassembler, assembler,
 * tests — expands this list instead of writing its own, so a form is added in exactly one place.
 *
 * X(name, code, disc, dval, kind, op, bits, fields, grp, ver, mnem):
 *   name   unique identifier; INSN_<name> is its index in enum insn_id.
 *   code   the opcode byte, spelled with the <linux/bpf.h> constants.
 *   disc   NONE, OFF, IMM or SRC: the field that, with code, selects this form (INSN_D_*).
 *   dval   the value disc must hold (0 when disc is NONE).
 *   kind   semantic family (INSN_K_*): ALU, NEG, MOVSX, END, JA, JCOND, CALL, EXIT, LDDW, LDPKT,
 *          LDX, LDXSX, ST, STX, ATOMIC.  A consumer handles a family once, keyed by op and bits.
 *   op     operation within the family (INSN_OP_*), e.g. ADD, SDIV, JSGT, BE, FETCH_XOR, HELPER.
 *   bits   ALU/JMP/atomic: operation width (32 or 64); memory ops: access width (8..64); END:
 *          swap width; MOVSX: destination width (the source width is dval); otherwise 0 or 64.
 *   fields which instruction fields carry meaning (INSN_FLD_*: D dst_reg, S src_reg, O off,
 *          I imm).  Every other field must be zero; insn_fields_ok() checks that.
 *   grp    RFC 9669 conformance group (INSN_G_*); CALLX is bpf_conformance's extra group:
 *          `call %rN` (BPF_JMP | BPF_CALL | BPF_X) with the helper id in register dst_reg.
 *   ver    first LLVM -mcpu version that emits the form (INSN_V1..INSN_V4).
 *   mnem   mnemonic in the bpf_conformance / uBPF assembler syntax ("add32", "lock fetch or").
 *
 * Invariants: entries with the same code are adjacent; within a code, at most one entry has disc
 * NONE and every other entry of that code is discriminated by the same field.  insn_find()
 * relies on both.  LDDW occupies two slots (insn_slots()); the second slot has code 0 and only
 * imm set.
 */
#ifndef USERBPF_SRC_INSN_H
#define USERBPF_SRC_INSN_H

#include <stdint.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

/* Constants newer than some distributions' uapi headers (Debian 12 ships 6.1's). */
#ifndef BPF_JMP32
#define BPF_JMP32 0x06
#endif
#ifndef BPF_JLT
#define BPF_JLT 0xa0
#define BPF_JLE 0xb0
#define BPF_JSLT 0xc0
#define BPF_JSLE 0xd0
#endif
#ifndef BPF_JCOND
#define BPF_JCOND 0xe0
#endif
#ifndef BPF_MAY_GOTO
#define BPF_MAY_GOTO 0
#endif
/* The budget of a frame's may_goto rounds (the kernel's BPF_MAX_LOOPS, as its interpreter and
 * JITs without timed may_goto spend it). */
#define MAY_GOTO_BUDGET (8u * 1024 * 1024)
#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef BPF_FETCH
#define BPF_FETCH 0x01
#endif
#ifndef BPF_XCHG
#define BPF_XCHG (0xe0 | BPF_FETCH)
#endif
#ifndef BPF_CMPXCHG
#define BPF_CMPXCHG (0xf0 | BPF_FETCH)
#endif
/* Internal LDX modes (the kernel's, never accepted from a program): a load through a pointer to
 * a kernel object, which reads 0 where nothing is mapped instead of faulting.  The verifier
 * rewrites such loads to them (btf_access.c). */
#define BPF_PROBE_MEM 0x20
#define BPF_PROBE_MEMSX 0x40

static inline int insn_is_probe_load(const struct bpf_insn *insn)
{
	return (insn->code & 0x07) == 0x01 /* BPF_LDX */ &&
	       ((insn->code & 0xe0) == BPF_PROBE_MEM || (insn->code & 0xe0) == BPF_PROBE_MEMSX);
}

/* The opcode of the load a probe load stands for: LDX BPF_MEM or BPF_MEMSX of its size. */
static inline uint8_t insn_probe_load_plain(uint8_t code)
{
	return (uint8_t)(0x01 | (code & 0x18) | ((code & 0xe0) == BPF_PROBE_MEM ? 0x60 : 0x80));
}

/* Its width in bytes, negated when it sign-extends. */
static inline int insn_probe_load_width(uint8_t code)
{
	static const int8_t bytes[4] = { 4, 2, 1, 8 }; /* BPF_W, BPF_H, BPF_B, BPF_DW */
	int w = bytes[(code & 0x18) >> 3];

	return (code & 0xe0) == BPF_PROBE_MEMSX ? -w : w;
}

/* Its fields are a load's: registers 0..10, imm 0. */
static inline int insn_probe_load_ok(const struct bpf_insn *insn)
{
	return insn->dst_reg <= 10 && insn->src_reg <= 10 && !insn->imm &&
	       ((insn->code & 0xe0) == BPF_PROBE_MEM || (insn->code & 0x18) != 0x18);
}

#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80 /* LDX mode: sign-extending load (cpu v4) */
#endif
#ifndef BPF_PSEUDO_CALL
#define BPF_PSEUDO_CALL 1
#endif
#ifndef BPF_PSEUDO_KFUNC_CALL
#define BPF_PSEUDO_KFUNC_CALL 2
#endif
#ifndef BPF_PSEUDO_MAP_FD
#define BPF_PSEUDO_MAP_FD 1
#endif
#ifndef BPF_PSEUDO_MAP_VALUE
#define BPF_PSEUDO_MAP_VALUE 2
#endif
#ifndef BPF_PSEUDO_BTF_ID
#define BPF_PSEUDO_BTF_ID 3
#endif
#ifndef BPF_PSEUDO_FUNC
#define BPF_PSEUDO_FUNC 4
#endif
#ifndef BPF_PSEUDO_MAP_IDX
#define BPF_PSEUDO_MAP_IDX 5
#endif
#ifndef BPF_PSEUDO_MAP_IDX_VALUE
#define BPF_PSEUDO_MAP_IDX_VALUE 6
#endif

/* clang-format off */
#define INSN_LIST(X)                                                                               \
	/* ALU64/ALU: dst OP= src or sign-extended imm; off 1: sdiv/smod; off 8/16/32: movsx */    \
	X(ADD64_K, BPF_ALU64 | BPF_ADD | BPF_K, NONE, 0, ALU, ADD, 64, DI, BASE64, V1, "add")      \
	X(ADD64_X, BPF_ALU64 | BPF_ADD | BPF_X, NONE, 0, ALU, ADD, 64, DS, BASE64, V1, "add")      \
	X(SUB64_K, BPF_ALU64 | BPF_SUB | BPF_K, NONE, 0, ALU, SUB, 64, DI, BASE64, V1, "sub")      \
	X(SUB64_X, BPF_ALU64 | BPF_SUB | BPF_X, NONE, 0, ALU, SUB, 64, DS, BASE64, V1, "sub")      \
	X(MUL64_K, BPF_ALU64 | BPF_MUL | BPF_K, NONE, 0, ALU, MUL, 64, DI, DIVMUL64, V1, "mul")    \
	X(MUL64_X, BPF_ALU64 | BPF_MUL | BPF_X, NONE, 0, ALU, MUL, 64, DS, DIVMUL64, V1, "mul")    \
	X(DIV64_K, BPF_ALU64 | BPF_DIV | BPF_K, NONE, 0, ALU, DIV, 64, DI, DIVMUL64, V1, "div")    \
	X(SDIV64_K, BPF_ALU64 | BPF_DIV | BPF_K, OFF, 1, ALU, SDIV, 64, DOI, DIVMUL64, V4, "sdiv") \
	X(DIV64_X, BPF_ALU64 | BPF_DIV | BPF_X, NONE, 0, ALU, DIV, 64, DS, DIVMUL64, V1, "div")    \
	X(SDIV64_X, BPF_ALU64 | BPF_DIV | BPF_X, OFF, 1, ALU, SDIV, 64, DSO, DIVMUL64, V4, "sdiv") \
	X(OR64_K, BPF_ALU64 | BPF_OR | BPF_K, NONE, 0, ALU, OR, 64, DI, BASE64, V1, "or")          \
	X(OR64_X, BPF_ALU64 | BPF_OR | BPF_X, NONE, 0, ALU, OR, 64, DS, BASE64, V1, "or")          \
	X(AND64_K, BPF_ALU64 | BPF_AND | BPF_K, NONE, 0, ALU, AND, 64, DI, BASE64, V1, "and")      \
	X(AND64_X, BPF_ALU64 | BPF_AND | BPF_X, NONE, 0, ALU, AND, 64, DS, BASE64, V1, "and")      \
	X(LSH64_K, BPF_ALU64 | BPF_LSH | BPF_K, NONE, 0, ALU, LSH, 64, DI, BASE64, V1, "lsh")      \
	X(LSH64_X, BPF_ALU64 | BPF_LSH | BPF_X, NONE, 0, ALU, LSH, 64, DS, BASE64, V1, "lsh")      \
	X(RSH64_K, BPF_ALU64 | BPF_RSH | BPF_K, NONE, 0, ALU, RSH, 64, DI, BASE64, V1, "rsh")      \
	X(RSH64_X, BPF_ALU64 | BPF_RSH | BPF_X, NONE, 0, ALU, RSH, 64, DS, BASE64, V1, "rsh")      \
	X(MOD64_K, BPF_ALU64 | BPF_MOD | BPF_K, NONE, 0, ALU, MOD, 64, DI, DIVMUL64, V1, "mod")    \
	X(SMOD64_K, BPF_ALU64 | BPF_MOD | BPF_K, OFF, 1, ALU, SMOD, 64, DOI, DIVMUL64, V4, "smod") \
	X(MOD64_X, BPF_ALU64 | BPF_MOD | BPF_X, NONE, 0, ALU, MOD, 64, DS, DIVMUL64, V1, "mod")    \
	X(SMOD64_X, BPF_ALU64 | BPF_MOD | BPF_X, OFF, 1, ALU, SMOD, 64, DSO, DIVMUL64, V4, "smod") \
	X(XOR64_K, BPF_ALU64 | BPF_XOR | BPF_K, NONE, 0, ALU, XOR, 64, DI, BASE64, V1, "xor")      \
	X(XOR64_X, BPF_ALU64 | BPF_XOR | BPF_X, NONE, 0, ALU, XOR, 64, DS, BASE64, V1, "xor")      \
	X(MOV64_K, BPF_ALU64 | BPF_MOV | BPF_K, NONE, 0, ALU, MOV, 64, DI, BASE64, V1, "mov")      \
	X(MOV64_X, BPF_ALU64 | BPF_MOV | BPF_X, NONE, 0, ALU, MOV, 64, DS, BASE64, V1, "mov")      \
	X(MOVSX8_64, BPF_ALU64 | BPF_MOV | BPF_X, OFF, 8,                                          \
	  MOVSX, MOVSX, 64, DSO, BASE64, V4, "movsx864")                                           \
	X(MOVSX16_64, BPF_ALU64 | BPF_MOV | BPF_X, OFF, 16,                                        \
	  MOVSX, MOVSX, 64, DSO, BASE64, V4, "movsx1664")                                          \
	X(MOVSX32_64, BPF_ALU64 | BPF_MOV | BPF_X, OFF, 32,                                        \
	  MOVSX, MOVSX, 64, DSO, BASE64, V4, "movsx3264")                                          \
	X(ARSH64_K, BPF_ALU64 | BPF_ARSH | BPF_K, NONE, 0, ALU, ARSH, 64, DI, BASE64, V1, "arsh")  \
	X(ARSH64_X, BPF_ALU64 | BPF_ARSH | BPF_X, NONE, 0, ALU, ARSH, 64, DS, BASE64, V1, "arsh")  \
	X(NEG64, BPF_ALU64 | BPF_NEG, NONE, 0, NEG, NEG, 64, D, BASE64, V1, "neg")                 \
	X(ADD32_K, BPF_ALU | BPF_ADD | BPF_K, NONE, 0, ALU, ADD, 32, DI, BASE32, V1, "add32")      \
	X(ADD32_X, BPF_ALU | BPF_ADD | BPF_X, NONE, 0, ALU, ADD, 32, DS, BASE32, V1, "add32")      \
	X(SUB32_K, BPF_ALU | BPF_SUB | BPF_K, NONE, 0, ALU, SUB, 32, DI, BASE32, V1, "sub32")      \
	X(SUB32_X, BPF_ALU | BPF_SUB | BPF_X, NONE, 0, ALU, SUB, 32, DS, BASE32, V1, "sub32")      \
	X(MUL32_K, BPF_ALU | BPF_MUL | BPF_K, NONE, 0, ALU, MUL, 32, DI, DIVMUL32, V1, "mul32")    \
	X(MUL32_X, BPF_ALU | BPF_MUL | BPF_X, NONE, 0, ALU, MUL, 32, DS, DIVMUL32, V1, "mul32")    \
	X(DIV32_K, BPF_ALU | BPF_DIV | BPF_K, NONE, 0, ALU, DIV, 32, DI, DIVMUL32, V1, "div32")    \
	X(SDIV32_K, BPF_ALU | BPF_DIV | BPF_K, OFF, 1, ALU, SDIV, 32, DOI, DIVMUL32, V4, "sdiv32") \
	X(DIV32_X, BPF_ALU | BPF_DIV | BPF_X, NONE, 0, ALU, DIV, 32, DS, DIVMUL32, V1, "div32")    \
	X(SDIV32_X, BPF_ALU | BPF_DIV | BPF_X, OFF, 1, ALU, SDIV, 32, DSO, DIVMUL32, V4, "sdiv32") \
	X(OR32_K, BPF_ALU | BPF_OR | BPF_K, NONE, 0, ALU, OR, 32, DI, BASE32, V1, "or32")          \
	X(OR32_X, BPF_ALU | BPF_OR | BPF_X, NONE, 0, ALU, OR, 32, DS, BASE32, V1, "or32")          \
	X(AND32_K, BPF_ALU | BPF_AND | BPF_K, NONE, 0, ALU, AND, 32, DI, BASE32, V1, "and32")      \
	X(AND32_X, BPF_ALU | BPF_AND | BPF_X, NONE, 0, ALU, AND, 32, DS, BASE32, V1, "and32")      \
	X(LSH32_K, BPF_ALU | BPF_LSH | BPF_K, NONE, 0, ALU, LSH, 32, DI, BASE32, V1, "lsh32")      \
	X(LSH32_X, BPF_ALU | BPF_LSH | BPF_X, NONE, 0, ALU, LSH, 32, DS, BASE32, V1, "lsh32")      \
	X(RSH32_K, BPF_ALU | BPF_RSH | BPF_K, NONE, 0, ALU, RSH, 32, DI, BASE32, V1, "rsh32")      \
	X(RSH32_X, BPF_ALU | BPF_RSH | BPF_X, NONE, 0, ALU, RSH, 32, DS, BASE32, V1, "rsh32")      \
	X(MOD32_K, BPF_ALU | BPF_MOD | BPF_K, NONE, 0, ALU, MOD, 32, DI, DIVMUL32, V1, "mod32")    \
	X(SMOD32_K, BPF_ALU | BPF_MOD | BPF_K, OFF, 1, ALU, SMOD, 32, DOI, DIVMUL32, V4, "smod32") \
	X(MOD32_X, BPF_ALU | BPF_MOD | BPF_X, NONE, 0, ALU, MOD, 32, DS, DIVMUL32, V1, "mod32")    \
	X(SMOD32_X, BPF_ALU | BPF_MOD | BPF_X, OFF, 1, ALU, SMOD, 32, DSO, DIVMUL32, V4, "smod32") \
	X(XOR32_K, BPF_ALU | BPF_XOR | BPF_K, NONE, 0, ALU, XOR, 32, DI, BASE32, V1, "xor32")      \
	X(XOR32_X, BPF_ALU | BPF_XOR | BPF_X, NONE, 0, ALU, XOR, 32, DS, BASE32, V1, "xor32")      \
	X(MOV32_K, BPF_ALU | BPF_MOV | BPF_K, NONE, 0, ALU, MOV, 32, DI, BASE32, V1, "mov32")      \
	X(MOV32_X, BPF_ALU | BPF_MOV | BPF_X, NONE, 0, ALU, MOV, 32, DS, BASE32, V1, "mov32")      \
	X(MOVSX8_32, BPF_ALU | BPF_MOV | BPF_X, OFF, 8,                                            \
	  MOVSX, MOVSX, 32, DSO, BASE32, V4, "movsx832")                                           \
	X(MOVSX16_32, BPF_ALU | BPF_MOV | BPF_X, OFF, 16,                                          \
	  MOVSX, MOVSX, 32, DSO, BASE32, V4, "movsx1632")                                          \
	X(ARSH32_K, BPF_ALU | BPF_ARSH | BPF_K, NONE, 0, ALU, ARSH, 32, DI, BASE32, V1, "arsh32")  \
	X(ARSH32_X, BPF_ALU | BPF_ARSH | BPF_X, NONE, 0, ALU, ARSH, 32, DS, BASE32, V1, "arsh32")  \
	X(NEG32, BPF_ALU | BPF_NEG, NONE, 0, NEG, NEG, 32, D, BASE32, V1, "neg32")                 \
	/* Byte swaps: imm = width; LE/BE convert from host order, BSWAP always swaps */           \
	X(LE16, BPF_ALU | BPF_END | BPF_TO_LE, IMM, 16, END, LE, 16, DI, BASE32, V1, "le16")       \
	X(LE32, BPF_ALU | BPF_END | BPF_TO_LE, IMM, 32, END, LE, 32, DI, BASE32, V1, "le32")       \
	X(LE64, BPF_ALU | BPF_END | BPF_TO_LE, IMM, 64, END, LE, 64, DI, BASE64, V1, "le64")       \
	X(BE16, BPF_ALU | BPF_END | BPF_TO_BE, IMM, 16, END, BE, 16, DI, BASE32, V1, "be16")       \
	X(BE32, BPF_ALU | BPF_END | BPF_TO_BE, IMM, 32, END, BE, 32, DI, BASE32, V1, "be32")       \
	X(BE64, BPF_ALU | BPF_END | BPF_TO_BE, IMM, 64, END, BE, 64, DI, BASE64, V1, "be64")       \
	X(BSWAP16, BPF_ALU64 | BPF_END | BPF_TO_LE, IMM, 16,                                       \
	  END, SWAP, 16, DI, BASE32, V4, "bswap16")                                                \
	X(BSWAP32, BPF_ALU64 | BPF_END | BPF_TO_LE, IMM, 32,                                       \
	  END, SWAP, 32, DI, BASE32, V4, "bswap32")                                                \
	X(BSWAP64, BPF_ALU64 | BPF_END | BPF_TO_LE, IMM, 64,                                       \
	  END, SWAP, 64, DI, BASE64, V4, "bswap64")                                                \
	/* Jumps: target = pc + 1 + off (JA32: + imm) */                                           \
	X(JA, BPF_JMP | BPF_JA, NONE, 0, JA, JA, 0, O, BASE32, V1, "ja")                           \
	X(JA32, BPF_JMP32 | BPF_JA, NONE, 0, JA, JA, 0, I, BASE32, V4, "ja32")                     \
	X(JEQ64_K, BPF_JMP | BPF_JEQ | BPF_K, NONE, 0, JCOND, JEQ, 64, DOI, BASE64, V1, "jeq")     \
	X(JEQ64_X, BPF_JMP | BPF_JEQ | BPF_X, NONE, 0, JCOND, JEQ, 64, DSO, BASE64, V1, "jeq")     \
	X(JGT64_K, BPF_JMP | BPF_JGT | BPF_K, NONE, 0, JCOND, JGT, 64, DOI, BASE64, V1, "jgt")     \
	X(JGT64_X, BPF_JMP | BPF_JGT | BPF_X, NONE, 0, JCOND, JGT, 64, DSO, BASE64, V1, "jgt")     \
	X(JGE64_K, BPF_JMP | BPF_JGE | BPF_K, NONE, 0, JCOND, JGE, 64, DOI, BASE64, V1, "jge")     \
	X(JGE64_X, BPF_JMP | BPF_JGE | BPF_X, NONE, 0, JCOND, JGE, 64, DSO, BASE64, V1, "jge")     \
	X(JSET64_K, BPF_JMP | BPF_JSET | BPF_K, NONE, 0, JCOND, JSET, 64, DOI, BASE64, V1, "jset") \
	X(JSET64_X, BPF_JMP | BPF_JSET | BPF_X, NONE, 0, JCOND, JSET, 64, DSO, BASE64, V1, "jset") \
	X(JNE64_K, BPF_JMP | BPF_JNE | BPF_K, NONE, 0, JCOND, JNE, 64, DOI, BASE64, V1, "jne")     \
	X(JNE64_X, BPF_JMP | BPF_JNE | BPF_X, NONE, 0, JCOND, JNE, 64, DSO, BASE64, V1, "jne")     \
	X(JSGT64_K, BPF_JMP | BPF_JSGT | BPF_K, NONE, 0, JCOND, JSGT, 64, DOI, BASE64, V1, "jsgt") \
	X(JSGT64_X, BPF_JMP | BPF_JSGT | BPF_X, NONE, 0, JCOND, JSGT, 64, DSO, BASE64, V1, "jsgt") \
	X(JSGE64_K, BPF_JMP | BPF_JSGE | BPF_K, NONE, 0, JCOND, JSGE, 64, DOI, BASE64, V1, "jsge") \
	X(JSGE64_X, BPF_JMP | BPF_JSGE | BPF_X, NONE, 0, JCOND, JSGE, 64, DSO, BASE64, V1, "jsge") \
	X(JLT64_K, BPF_JMP | BPF_JLT | BPF_K, NONE, 0, JCOND, JLT, 64, DOI, BASE64, V2, "jlt")     \
	X(JLT64_X, BPF_JMP | BPF_JLT | BPF_X, NONE, 0, JCOND, JLT, 64, DSO, BASE64, V2, "jlt")     \
	X(JLE64_K, BPF_JMP | BPF_JLE | BPF_K, NONE, 0, JCOND, JLE, 64, DOI, BASE64, V2, "jle")     \
	X(JLE64_X, BPF_JMP | BPF_JLE | BPF_X, NONE, 0, JCOND, JLE, 64, DSO, BASE64, V2, "jle")     \
	X(JSLT64_K, BPF_JMP | BPF_JSLT | BPF_K, NONE, 0, JCOND, JSLT, 64, DOI, BASE64, V2, "jslt") \
	X(JSLT64_X, BPF_JMP | BPF_JSLT | BPF_X, NONE, 0, JCOND, JSLT, 64, DSO, BASE64, V2, "jslt") \
	X(JSLE64_K, BPF_JMP | BPF_JSLE | BPF_K, NONE, 0, JCOND, JSLE, 64, DOI, BASE64, V2, "jsle") \
	X(JSLE64_X, BPF_JMP | BPF_JSLE | BPF_X, NONE, 0, JCOND, JSLE, 64, DSO, BASE64, V2, "jsle") \
	X(JEQ32_K, BPF_JMP32 | BPF_JEQ | BPF_K, NONE, 0, JCOND, JEQ, 32, DOI, BASE32, V3, "jeq32") \
	X(JEQ32_X, BPF_JMP32 | BPF_JEQ | BPF_X, NONE, 0, JCOND, JEQ, 32, DSO, BASE32, V3, "jeq32") \
	X(JGT32_K, BPF_JMP32 | BPF_JGT | BPF_K, NONE, 0, JCOND, JGT, 32, DOI, BASE32, V3, "jgt32") \
	X(JGT32_X, BPF_JMP32 | BPF_JGT | BPF_X, NONE, 0, JCOND, JGT, 32, DSO, BASE32, V3, "jgt32") \
	X(JGE32_K, BPF_JMP32 | BPF_JGE | BPF_K, NONE, 0, JCOND, JGE, 32, DOI, BASE32, V3, "jge32") \
	X(JGE32_X, BPF_JMP32 | BPF_JGE | BPF_X, NONE, 0, JCOND, JGE, 32, DSO, BASE32, V3, "jge32") \
	X(JSET32_K, BPF_JMP32 | BPF_JSET | BPF_K, NONE, 0,                                         \
	  JCOND, JSET, 32, DOI, BASE32, V3, "jset32")                                              \
	X(JSET32_X, BPF_JMP32 | BPF_JSET | BPF_X, NONE, 0,                                         \
	  JCOND, JSET, 32, DSO, BASE32, V3, "jset32")                                              \
	X(JNE32_K, BPF_JMP32 | BPF_JNE | BPF_K, NONE, 0, JCOND, JNE, 32, DOI, BASE32, V3, "jne32") \
	X(JNE32_X, BPF_JMP32 | BPF_JNE | BPF_X, NONE, 0, JCOND, JNE, 32, DSO, BASE32, V3, "jne32") \
	X(JSGT32_K, BPF_JMP32 | BPF_JSGT | BPF_K, NONE, 0,                                         \
	  JCOND, JSGT, 32, DOI, BASE32, V3, "jsgt32")                                              \
	X(JSGT32_X, BPF_JMP32 | BPF_JSGT | BPF_X, NONE, 0,                                         \
	  JCOND, JSGT, 32, DSO, BASE32, V3, "jsgt32")                                              \
	X(JSGE32_K, BPF_JMP32 | BPF_JSGE | BPF_K, NONE, 0,                                         \
	  JCOND, JSGE, 32, DOI, BASE32, V3, "jsge32")                                              \
	X(JSGE32_X, BPF_JMP32 | BPF_JSGE | BPF_X, NONE, 0,                                         \
	  JCOND, JSGE, 32, DSO, BASE32, V3, "jsge32")                                              \
	X(JLT32_K, BPF_JMP32 | BPF_JLT | BPF_K, NONE, 0, JCOND, JLT, 32, DOI, BASE32, V3, "jlt32") \
	X(JLT32_X, BPF_JMP32 | BPF_JLT | BPF_X, NONE, 0, JCOND, JLT, 32, DSO, BASE32, V3, "jlt32") \
	X(JLE32_K, BPF_JMP32 | BPF_JLE | BPF_K, NONE, 0, JCOND, JLE, 32, DOI, BASE32, V3, "jle32") \
	X(JLE32_X, BPF_JMP32 | BPF_JLE | BPF_X, NONE, 0, JCOND, JLE, 32, DSO, BASE32, V3, "jle32") \
	X(JSLT32_K, BPF_JMP32 | BPF_JSLT | BPF_K, NONE, 0,                                         \
	  JCOND, JSLT, 32, DOI, BASE32, V3, "jslt32")                                              \
	X(JSLT32_X, BPF_JMP32 | BPF_JSLT | BPF_X, NONE, 0,                                         \
	  JCOND, JSLT, 32, DSO, BASE32, V3, "jslt32")                                              \
	X(JSLE32_K, BPF_JMP32 | BPF_JSLE | BPF_K, NONE, 0,                                         \
	  JCOND, JSLE, 32, DOI, BASE32, V3, "jsle32")                                              \
	X(JSLE32_X, BPF_JMP32 | BPF_JSLE | BPF_X, NONE, 0,                                         \
	  JCOND, JSLE, 32, DSO, BASE32, V3, "jsle32")                                              \
	/* may_goto (6.9, src_reg BPF_MAY_GOTO): jumps once its frame's budget is spent */         \
	X(MAY_GOTO, BPF_JMP | BPF_JCOND, NONE, 0, MAY_GOTO, MAY_GOTO, 0, O, BASE32, V4, "may_goto") \
	/* Calls and exit */                                                                       \
	X(CALL, BPF_JMP | BPF_CALL | BPF_K, SRC, 0, CALL, HELPER, 0, SI, BASE32, V1, "call")       \
	X(CALL_LOCAL, BPF_JMP | BPF_CALL | BPF_K, SRC, BPF_PSEUDO_CALL,                            \
	  CALL, LOCAL, 0, SI, BASE32, V1, "call local")                                            \
	X(CALL_KFUNC, BPF_JMP | BPF_CALL | BPF_K, SRC, BPF_PSEUDO_KFUNC_CALL,                      \
	  CALL, KFUNC, 0, SI, BASE32, V1, "call runtime")                                          \
	X(CALLX, BPF_JMP | BPF_CALL | BPF_X, NONE, 0, CALL, REG, 0, D, CALLX, V1, "callx")         \
	X(EXIT, BPF_JMP | BPF_EXIT, NONE, 0, EXIT, EXIT, 0, NONE, BASE32, V1, "exit")              \
	/* 64-bit immediate load (two slots); src_reg selects what the loader resolves imm into */ \
	X(LDDW, BPF_LD | BPF_IMM | BPF_DW, SRC, 0, LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")       \
	X(LDDW_MAP_FD, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_MAP_FD,                          \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	X(LDDW_MAP_VALUE, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_MAP_VALUE,                    \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	X(LDDW_BTF_ID, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_BTF_ID,                          \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	X(LDDW_FUNC, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_FUNC,                              \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	X(LDDW_MAP_IDX, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_MAP_IDX,                        \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	X(LDDW_MAP_IDX_VALUE, BPF_LD | BPF_IMM | BPF_DW, SRC, BPF_PSEUDO_MAP_IDX_VALUE,            \
	  LDDW, IMM64, 64, DSI, BASE64, V1, "lddw")                                                \
	/* Legacy packet loads: r0 = ntoh(packet[imm (+ src)]), packet = context in r6 */          \
	X(LDABSB, BPF_LD | BPF_ABS | BPF_B, NONE, 0, LDPKT, ABS, 8, I, PACKET, V1, "ldabsb")       \
	X(LDABSH, BPF_LD | BPF_ABS | BPF_H, NONE, 0, LDPKT, ABS, 16, I, PACKET, V1, "ldabsh")      \
	X(LDABSW, BPF_LD | BPF_ABS | BPF_W, NONE, 0, LDPKT, ABS, 32, I, PACKET, V1, "ldabsw")      \
	X(LDINDB, BPF_LD | BPF_IND | BPF_B, NONE, 0, LDPKT, IND, 8, SI, PACKET, V1, "ldindb")      \
	X(LDINDH, BPF_LD | BPF_IND | BPF_H, NONE, 0, LDPKT, IND, 16, SI, PACKET, V1, "ldindh")     \
	X(LDINDW, BPF_LD | BPF_IND | BPF_W, NONE, 0, LDPKT, IND, 32, SI, PACKET, V1, "ldindw")     \
	/* Memory: LDX dst = *(src + off), ST *(dst + off) = imm, STX *(dst + off) = src */        \
	X(LDXB, BPF_LDX | BPF_MEM | BPF_B, NONE, 0, LDX, MEM, 8, DSO, BASE32, V1, "ldxb")          \
	X(LDXH, BPF_LDX | BPF_MEM | BPF_H, NONE, 0, LDX, MEM, 16, DSO, BASE32, V1, "ldxh")         \
	X(LDXW, BPF_LDX | BPF_MEM | BPF_W, NONE, 0, LDX, MEM, 32, DSO, BASE32, V1, "ldxw")         \
	X(LDXDW, BPF_LDX | BPF_MEM | BPF_DW, NONE, 0, LDX, MEM, 64, DSO, BASE64, V1, "ldxdw")      \
	X(LDXSB, BPF_LDX | BPF_MEMSX | BPF_B, NONE, 0, LDXSX, MEMSX, 8, DSO, BASE64, V4, "ldxsb")  \
	X(LDXSH, BPF_LDX | BPF_MEMSX | BPF_H, NONE, 0, LDXSX, MEMSX, 16, DSO, BASE64, V4, "ldxsh") \
	X(LDXSW, BPF_LDX | BPF_MEMSX | BPF_W, NONE, 0, LDXSX, MEMSX, 32, DSO, BASE64, V4, "ldxsw") \
	X(STB, BPF_ST | BPF_MEM | BPF_B, NONE, 0, ST, MEM, 8, DOI, BASE32, V1, "stb")              \
	X(STH, BPF_ST | BPF_MEM | BPF_H, NONE, 0, ST, MEM, 16, DOI, BASE32, V1, "sth")             \
	X(STW, BPF_ST | BPF_MEM | BPF_W, NONE, 0, ST, MEM, 32, DOI, BASE32, V1, "stw")             \
	X(STDW, BPF_ST | BPF_MEM | BPF_DW, NONE, 0, ST, MEM, 64, DOI, BASE64, V1, "stdw")          \
	X(STXB, BPF_STX | BPF_MEM | BPF_B, NONE, 0, STX, MEM, 8, DSO, BASE32, V1, "stxb")          \
	X(STXH, BPF_STX | BPF_MEM | BPF_H, NONE, 0, STX, MEM, 16, DSO, BASE32, V1, "stxh")         \
	X(STXW, BPF_STX | BPF_MEM | BPF_W, NONE, 0, STX, MEM, 32, DSO, BASE32, V1, "stxw")         \
	X(STXDW, BPF_STX | BPF_MEM | BPF_DW, NONE, 0, STX, MEM, 64, DSO, BASE64, V1, "stxdw")      \
	/* Atomics on *(dst + off) with src; imm selects the operation */                          \
	X(ATOMIC32_ADD, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_ADD,                                \
	  ATOMIC, ADD, 32, DSOI, ATOMIC32, V1, "lock add32")                                       \
	X(ATOMIC32_OR, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_OR,                                  \
	  ATOMIC, OR, 32, DSOI, ATOMIC32, V3, "lock or32")                                         \
	X(ATOMIC32_AND, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_AND,                                \
	  ATOMIC, AND, 32, DSOI, ATOMIC32, V3, "lock and32")                                       \
	X(ATOMIC32_XOR, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_XOR,                                \
	  ATOMIC, XOR, 32, DSOI, ATOMIC32, V3, "lock xor32")                                       \
	X(ATOMIC32_FETCH_ADD, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_ADD | BPF_FETCH,              \
	  ATOMIC, FETCH_ADD, 32, DSOI, ATOMIC32, V3, "lock fetch add32")                           \
	X(ATOMIC32_FETCH_OR, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_OR | BPF_FETCH,                \
	  ATOMIC, FETCH_OR, 32, DSOI, ATOMIC32, V3, "lock fetch or32")                             \
	X(ATOMIC32_FETCH_AND, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_AND | BPF_FETCH,              \
	  ATOMIC, FETCH_AND, 32, DSOI, ATOMIC32, V3, "lock fetch and32")                           \
	X(ATOMIC32_FETCH_XOR, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_XOR | BPF_FETCH,              \
	  ATOMIC, FETCH_XOR, 32, DSOI, ATOMIC32, V3, "lock fetch xor32")                           \
	X(ATOMIC32_XCHG, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_XCHG,                              \
	  ATOMIC, XCHG, 32, DSOI, ATOMIC32, V3, "lock xchg32")                                     \
	X(ATOMIC32_CMPXCHG, BPF_STX | BPF_ATOMIC | BPF_W, IMM, BPF_CMPXCHG,                        \
	  ATOMIC, CMPXCHG, 32, DSOI, ATOMIC32, V3, "lock cmpxchg32")                               \
	X(ATOMIC64_ADD, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_ADD,                               \
	  ATOMIC, ADD, 64, DSOI, ATOMIC64, V1, "lock add")                                         \
	X(ATOMIC64_OR, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_OR,                                 \
	  ATOMIC, OR, 64, DSOI, ATOMIC64, V3, "lock or")                                           \
	X(ATOMIC64_AND, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_AND,                               \
	  ATOMIC, AND, 64, DSOI, ATOMIC64, V3, "lock and")                                         \
	X(ATOMIC64_XOR, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_XOR,                               \
	  ATOMIC, XOR, 64, DSOI, ATOMIC64, V3, "lock xor")                                         \
	X(ATOMIC64_FETCH_ADD, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_ADD | BPF_FETCH,             \
	  ATOMIC, FETCH_ADD, 64, DSOI, ATOMIC64, V3, "lock fetch add")                             \
	X(ATOMIC64_FETCH_OR, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_OR | BPF_FETCH,               \
	  ATOMIC, FETCH_OR, 64, DSOI, ATOMIC64, V3, "lock fetch or")                               \
	X(ATOMIC64_FETCH_AND, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_AND | BPF_FETCH,             \
	  ATOMIC, FETCH_AND, 64, DSOI, ATOMIC64, V3, "lock fetch and")                             \
	X(ATOMIC64_FETCH_XOR, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_XOR | BPF_FETCH,             \
	  ATOMIC, FETCH_XOR, 64, DSOI, ATOMIC64, V3, "lock fetch xor")                             \
	X(ATOMIC64_XCHG, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_XCHG,                             \
	  ATOMIC, XCHG, 64, DSOI, ATOMIC64, V3, "lock xchg")                                       \
	X(ATOMIC64_CMPXCHG, BPF_STX | BPF_ATOMIC | BPF_DW, IMM, BPF_CMPXCHG,                       \
	  ATOMIC, CMPXCHG, 64, DSOI, ATOMIC64, V3, "lock cmpxchg")                                 \
	/* end of INSN_LIST */
/* clang-format on */

/* Discriminators. */
#define INSN_D_NONE 0
#define INSN_D_OFF 1
#define INSN_D_IMM 2
#define INSN_D_SRC 3

/* Meaningful fields. */
#define INSN_F_DST 0x1
#define INSN_F_SRC 0x2
#define INSN_F_OFF 0x4
#define INSN_F_IMM 0x8
#define INSN_FLD_NONE 0
#define INSN_FLD_D INSN_F_DST
#define INSN_FLD_O INSN_F_OFF
#define INSN_FLD_I INSN_F_IMM
#define INSN_FLD_DI (INSN_F_DST | INSN_F_IMM)
#define INSN_FLD_DS (INSN_F_DST | INSN_F_SRC)
#define INSN_FLD_SI (INSN_F_SRC | INSN_F_IMM)
#define INSN_FLD_DOI (INSN_F_DST | INSN_F_OFF | INSN_F_IMM)
#define INSN_FLD_DSO (INSN_F_DST | INSN_F_SRC | INSN_F_OFF)
#define INSN_FLD_DSI (INSN_F_DST | INSN_F_SRC | INSN_F_IMM)
#define INSN_FLD_DSOI (INSN_F_DST | INSN_F_SRC | INSN_F_OFF | INSN_F_IMM)

/* Conformance groups (RFC 9669 section 2.4), as bits so that a runtime can advertise a set. */
#define INSN_G_BASE32 0x01
#define INSN_G_BASE64 0x02
#define INSN_G_ATOMIC32 0x04
#define INSN_G_ATOMIC64 0x08
#define INSN_G_DIVMUL32 0x10
#define INSN_G_DIVMUL64 0x20
#define INSN_G_PACKET 0x40
#define INSN_G_CALLX 0x80

#define INSN_V1 1
#define INSN_V2 2
#define INSN_V3 3
#define INSN_V4 4

enum insn_kind {
	INSN_K_ALU,    /* dst = dst op src; op in ADD..ARSH, SDIV, SMOD, MOV */
	INSN_K_NEG,    /* dst = -dst */
	INSN_K_MOVSX,  /* dst = sign-extended low dval bits of src */
	INSN_K_END,    /* byte order conversion of the low bits bits of dst */
	INSN_K_JA,     /* unconditional jump */
	INSN_K_JCOND,  /* conditional jump comparing dst with src/imm */
	INSN_K_MAY_GOTO, /* jump when the frame's may_goto budget is spent, else spend one */
	INSN_K_CALL,   /* helper, bpf-to-bpf, kfunc or register call */
	INSN_K_EXIT,   /* return from function / program */
	INSN_K_LDDW,   /* 64-bit immediate, two slots */
	INSN_K_LDPKT,  /* legacy LD_ABS / LD_IND */
	INSN_K_LDX,    /* zero-extending load */
	INSN_K_LDXSX,  /* sign-extending load */
	INSN_K_ST,     /* store immediate */
	INSN_K_STX,    /* store register */
	INSN_K_ATOMIC, /* atomic read-modify-write */
};

enum insn_op {
	INSN_OP_ADD, INSN_OP_SUB, INSN_OP_MUL, INSN_OP_DIV, INSN_OP_SDIV, INSN_OP_OR, INSN_OP_AND,
	INSN_OP_LSH, INSN_OP_RSH, INSN_OP_MOD, INSN_OP_SMOD, INSN_OP_XOR, INSN_OP_MOV, INSN_OP_ARSH,
	INSN_OP_NEG, INSN_OP_MOVSX, INSN_OP_LE, INSN_OP_BE, INSN_OP_SWAP,
	INSN_OP_JA, INSN_OP_JEQ, INSN_OP_JGT, INSN_OP_JGE, INSN_OP_JSET, INSN_OP_JNE, INSN_OP_JSGT,
	INSN_OP_JSGE, INSN_OP_JLT, INSN_OP_JLE, INSN_OP_JSLT, INSN_OP_JSLE, INSN_OP_MAY_GOTO,
	INSN_OP_HELPER, INSN_OP_LOCAL, INSN_OP_KFUNC, INSN_OP_REG, INSN_OP_EXIT,
	INSN_OP_IMM64, INSN_OP_ABS, INSN_OP_IND, INSN_OP_MEM, INSN_OP_MEMSX,
	INSN_OP_FETCH_ADD, INSN_OP_FETCH_OR, INSN_OP_FETCH_AND, INSN_OP_FETCH_XOR,
	INSN_OP_XCHG, INSN_OP_CMPXCHG,
};

enum insn_id {
#define INSN_ENUM_(name, ...) INSN_##name,
	INSN_LIST(INSN_ENUM_)
#undef INSN_ENUM_
	INSN__COUNT
};

/* One entry of the list as data, for consumers that iterate at run time. */
struct insn_desc {
	const char *name;  /* the X name, e.g. "SDIV64_X" */
	const char *mnem;  /* assembler mnemonic */
	int32_t dval;      /* discriminator value */
	uint8_t code;      /* opcode byte */
	uint8_t disc;      /* INSN_D_* */
	uint8_t kind;      /* enum insn_kind */
	uint8_t op;        /* enum insn_op */
	uint8_t bits;      /* see "bits" above */
	uint8_t fields;    /* INSN_F_* mask */
	uint8_t group;     /* INSN_G_* bit */
	uint8_t ver;       /* INSN_V* */
};

/* The table, indexed by enum insn_id.  A function-local static keeps the header usable from any
 * number of translation units without an unused-variable warning. */
static inline const struct insn_desc *insn_descs(void)
{
#define INSN_DESC_(name, code, disc, dval, kind, op, bits, fields, grp, ver, mnem)                 \
	{ #name, mnem, (int32_t)(dval), (uint8_t)(code), INSN_D_##disc, INSN_K_##kind,            \
	  INSN_OP_##op, bits, INSN_FLD_##fields, INSN_G_##grp, INSN_##ver },
	static const struct insn_desc table[INSN__COUNT] = { INSN_LIST(INSN_DESC_) };
#undef INSN_DESC_
	return table;
}

/* The value of the discriminating field of insn for discriminator disc. */
static inline int32_t insn_disc_value(const struct bpf_insn *insn, int disc)
{
	switch (disc) {
	case INSN_D_OFF:
		return insn->off;
	case INSN_D_IMM:
		return insn->imm;
	case INSN_D_SRC:
		return insn->src_reg;
	default:
		return 0;
	}
}

/* The form of insn: its enum insn_id, or -1 when the opcode/discriminator pair is not in the
 * list.  A discriminated entry wins over the same code's NONE entry (DIV with off 1 is SDIV).
 * Linear in the list length; decoders that care build a per-opcode index with insn_first_of(). */
static inline int insn_find(const struct bpf_insn *insn)
{
	const struct insn_desc *d = insn_descs();
	int fallback = -1;

	for (int i = 0; i < INSN__COUNT; i++) {
		if (d[i].code != insn->code)
			continue;
		if (d[i].disc == INSN_D_NONE)
			fallback = i;
		else if (insn_disc_value(insn, d[i].disc) == d[i].dval)
			return i;
	}
	return fallback;
}

/* Fill first[256] with the index of the first entry of each opcode (-1 if none); with the
 * adjacency invariant, scanning from there while code matches visits every candidate. */
static inline void insn_first_of(int16_t first[256])
{
	const struct insn_desc *d = insn_descs();

	for (int c = 0; c < 256; c++)
		first[c] = -1;
	for (int i = INSN__COUNT - 1; i >= 0; i--)
		first[d[i].code] = (int16_t)i;
}

/* insn_find() using an index built by insn_first_of(). */
static inline int insn_find_fast(const int16_t first[256], const struct bpf_insn *insn)
{
	const struct insn_desc *d = insn_descs();
	int fallback = -1;

	for (int i = first[insn->code]; i >= 0 && i < INSN__COUNT && d[i].code == insn->code; i++) {
		if (d[i].disc == INSN_D_NONE)
			fallback = i;
		else if (insn_disc_value(insn, d[i].disc) == d[i].dval)
			return i;
	}
	return fallback;
}

/* Whether every field that form id does not use is zero (the kernel's "reserved fields"). */
static inline int insn_fields_ok(int id, const struct bpf_insn *insn)
{
	unsigned int f = insn_descs()[id].fields;

	if (!(f & INSN_F_DST) && insn->dst_reg)
		return 0;
	if (!(f & INSN_F_SRC) && insn->src_reg)
		return 0;
	if (!(f & INSN_F_OFF) && insn->off)
		return 0;
	if (!(f & INSN_F_IMM) && insn->imm)
		return 0;
	return 1;
}

/* Number of 8-byte slots form id occupies. */
static inline int insn_slots(int id)
{
	return insn_descs()[id].kind == INSN_K_LDDW ? 2 : 1;
}

#endif /* USERBPF_SRC_INSN_H */
