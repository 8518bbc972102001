/* conformance_asm.h — assembler for the bpf_conformance / uBPF assembly syntax.
 *
 * One instruction or label per line, '#' starts a comment:
 *   mov %r0, 1          add32 %r1, %r2        neg %r3          be16 %r0     bswap64 %r0
 *   movsx1632 %r0, %r1  sdiv %r0, -3          lddw %r0, 0x1122334455667788
 *   ldxw %r0, [%r1+4]   ldxsb %r0, [%r10-1]   stw [%r1+4], 7   stxdw [%r10-8], %r1
 *   jeq %r1, 0x10, +2   jne32 %r0, %r1, label ja -1  ja32 label
 *   call 5   call %r2   call local func   exit   ldabsw 12   ldindh %r1, 2
 *   lock add [%r1+0], %r2   lock fetch xor32 [%r10-4], %r1   lock cmpxchg [%r10-8], %r1
 *   label:
 * Mnemonics, opcodes and operand shapes come from INSN_LIST (src/insn.h); the label "exit" names
 * the first exit instruction unless defined explicitly.
 */
#ifndef USERBPF_TESTS_CONFORMANCE_ASM_H
#define USERBPF_TESTS_CONFORMANCE_ASM_H

#include <stddef.h>
#include <linux/bpf.h>

/* Assemble text.  On success returns the number of instruction slots and stores a malloc'ed
 * array in *out (free() it).  On failure returns -EINVAL and writes "line N: reason" to err. */
int casm_assemble(const char *text, struct bpf_insn **out, char *err, size_t errlen);

#endif
