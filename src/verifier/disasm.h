/* The verifier's disassembler for code outside the verifier (the CLI's `prog dump`).
 *
 * One instruction in the kernel's text ("(b7) r0 = 42"), the same text the verifier log prints,
 * written to a caller's buffer instead of a log.  Internal to userbpf: tools linking the static
 * library may use it; it is not part of the public API.
 */
#ifndef USERBPF_VERIFIER_DISASM_H
#define USERBPF_VERIFIER_DISASM_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stddef.h>

/* Writes the text of insn (for an ld_imm64 both slots are read: the caller guarantees insn[1]
 * exists) into buf, NUL-terminated and cut to size; returns the number of slots the instruction
 * takes (2 for ld_imm64, else 1).  buf may be NULL only when size is 0. */
int bpf_insn_snprint(char *buf, size_t size, const struct bpf_insn *insn);

#endif
