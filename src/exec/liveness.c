/* liveness.c — which BPF registers a program may still read (see liveness.h).
 *
 * A backward data-flow analysis over the raw instructions, which the decoder has validated
 * (known forms, jump targets in range).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "exec/liveness.h"

/* Erring towards more uses and fewer writes can only make more registers live.  So calls and
 * LD_ABS/LD_IND write only r0 here, although the verifier treats r1..r5 as clobbered; a
 * bpf-to-bpf call reads everything, and an exit reads r0 (a callee's r6..r9 are the caller's,
 * restored by the interpreter and the JIT).  r10 is never written. */
void exec_insn_use_def(const struct bpf_insn *in, uint16_t *use, uint16_t *def)
{
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	uint16_t d = (uint16_t)(1u << in->dst_reg), s = (uint16_t)(1u << in->src_reg);

	*use = 0;
	*def = 0;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		*def = d;
		if (op != BPF_MOV) /* (MOVSX is a MOV) */
			*use |= d;
		if (BPF_SRC(in->code) == BPF_X && op != BPF_NEG && op != BPF_END)
			*use |= s;
		return;
	case BPF_LDX:
		*use = s;
		*def = d;
		return;
	case BPF_ST:
		*use = d;
		return;
	case BPF_STX: /* the fetching atomics write src or r0: not claimed */
		*use = d | s | (BPF_MODE(in->code) == BPF_ATOMIC ? 1 : 0);
		return;
	case BPF_LD:
		if (BPF_MODE(in->code) == BPF_IMM) {
			*def = d;
			return;
		}
		*use = 1u << BPF_REG_6 | (BPF_MODE(in->code) == BPF_IND ? s : 0);
		*def = 1;
		return;
	default: /* BPF_JMP, BPF_JMP32 */
		if (op == BPF_CALL) {
			*use = in->src_reg == BPF_PSEUDO_CALL ? 0x7ff : 0x3e;
			if (BPF_SRC(in->code) == BPF_X) /* callx: the helper's number in dst */
				*use |= d;
			*def = in->src_reg == BPF_PSEUDO_CALL ? 0 : 1;
		} else if (op == BPF_EXIT) {
			*use = 1;
		} else if (op != BPF_JA && op != BPF_JCOND) { /* (may_goto reads no register) */
			*use = d | (BPF_SRC(in->code) == BPF_X ? s : 0);
		}
		return;
	}
}

/* Successors of insn i: fallthrough (or -1) and jump target (or -1). */
static void insn_succ(const struct bpf_insn *insns, uint32_t i, int64_t *fall, int64_t *jump)
{
	const struct bpf_insn *in = &insns[i];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	*fall = (int64_t)i + 1;
	*jump = -1;
	if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
		*fall = (int64_t)i + 2;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return;
	if (op == BPF_EXIT) {
		*fall = -1;
	} else if (op == BPF_JA) {
		*fall = -1;
		*jump = (int64_t)i + 1 + (cls == BPF_JMP32 ? in->imm : in->off);
	} else if (op != BPF_CALL) {
		*jump = (int64_t)i + 1 + in->off;
	}
}

#define LIVE_MAX_PASSES 64

int exec_liveness(const struct bpf_insn *insns, uint32_t cnt, uint16_t *live_out)
{
	uint16_t *live_in = calloc(cnt ? cnt : 1, sizeof(*live_in));
	bool changed = true;

	if (!live_in)
		return -ENOMEM;
	memset(live_out, 0, cnt * sizeof(*live_out));
	/* Backward passes until nothing changes; a program whose loops need more passes than the
	 * bound has every register live everywhere (nothing is then fused on its account). */
	for (int pass = 0; changed && pass < LIVE_MAX_PASSES; pass++) {
		changed = false;
		for (uint32_t i = cnt; i-- > 0;) {
			int64_t fall, jump;
			uint16_t use, def, out = 0, in;

			/* (a second LD_IMM64 slot is nobody's successor: what it gets is unused) */
			insn_succ(insns, i, &fall, &jump);
			/* out-of-range successors were refused by the decoder; end is the trap */
			if (fall >= 0 && fall < cnt)
				out |= live_in[fall];
			if (jump >= 0 && jump < cnt)
				out |= live_in[jump];
			exec_insn_use_def(&insns[i], &use, &def);
			in = (uint16_t)(use | (out & ~def));
			if (out != live_out[i] || in != live_in[i]) {
				live_out[i] = out;
				live_in[i] = in;
				changed = true;
			}
		}
	}
	if (changed)
		memset(live_out, 0xff, cnt * sizeof(*live_out));
	free(live_in);
	return 0;
}

bool exec_dead_after(const uint16_t *live_out, uint32_t i, uint8_t reg)
{
	return live_out && !(live_out[i] & (1u << reg));
}

bool exec_dead_at_target(const struct bpf_insn *insns, uint32_t cnt, const uint16_t *live_out,
			   uint32_t j, uint8_t reg)
{
	int64_t fall, t;
	uint16_t use, def;

	if (!live_out)
		return false;
	insn_succ(insns, j, &fall, &t);
	if (t < 0 || t >= cnt) /* the end: the trap reads nothing */
		return true;
	exec_insn_use_def(&insns[t], &use, &def);
	return !((use | (live_out[t] & ~def)) & (1u << reg));
}
