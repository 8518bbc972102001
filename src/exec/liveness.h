/* liveness.h — register liveness for the execution engines.
 *
 * Both engines drop a register write where nothing reads the value: the interpreter's BNDL and
 * XBNDL superinstructions (interp_fuse.h) skip the scratch registers of a packet read, and the
 * JIT folds `p = data + i` into the addresses that use p (jit_x86_64.c).  This answers "may any
 * path from here read rX before writing it?", erring towards yes.
 */
#ifndef USERBPF_EXEC_LIVENESS_H
#define USERBPF_EXEC_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

/* Registers insn may read (*use, a superset) and surely writes (*def, a subset), as masks
 * (bit r for rR). */
void exec_insn_use_def(const struct bpf_insn *in, uint16_t *use, uint16_t *def);

/* live_out[i] gets the registers that some path from instruction i's end may read before
 * writing them; every bit when the analysis gives up (loops needing too many passes).  The
 * entry of a second LD_IMM64 slot is meaningless.  The instructions must have passed the
 * decoder's checks.  Returns 0 or -ENOMEM. */
int exec_liveness(const struct bpf_insn *insns, uint32_t cnt, uint16_t *live_out);

/* Whether reg is dead after instruction i (false when live_out is NULL). */
bool exec_dead_after(const uint16_t *live_out, uint32_t i, uint8_t reg);

/* Whether reg is dead where the conditional jump insns[j] lands (false when live_out is
 * NULL). */
bool exec_dead_at_target(const struct bpf_insn *insns, uint32_t cnt, const uint16_t *live_out,
			 uint32_t j, uint8_t reg);

#endif /* USERBPF_EXEC_LIVENESS_H */
