/* Verifier: precision tracking.  Which scalars the kernel marks precise (the "P" before a
 * register's value in explored states, the level-2 "mark_precise:" backtracking lines, the
 * "frame N: propagating" lines when a state is pruned) and the pruning it allows (an imprecise
 * scalar of an explored state matches any scalar), compared with the live kernel: whole level-2
 * logs for small programs, the precision lines alone where the rest of the log differs for other
 * reasons (the kernel's stack liveness lines, the slot a fill reads), and the "processed ..."
 * statistics line for pruning. */
#include "test.h"
#include "userbpf.h"
#include "verifier_harness.h"

#define L2 .full_log = true, .log_level = 2
#define PL .prec_lines = true, .log_level = 2
#define STATS .stats = true, .log_level = 1
#define LDLEN(r) BPF_LDX_MEM(BPF_W, r, 1, 0) /* r = skb->len: unknown */
#define CALLSUB(off) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, off)
#define DIAMOND(r, k) BPF_JMP_IMM(BPF_JGT, r, k, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1)

static const struct vcase cases[] = {
	/* a decided branch marks the compared register, back to its constant */
	{ "prec_decided_branch", SOCK, { BPF_MOV64_IMM(1, 5), BPF_MOV64_REG(2, 1),
	  BPF_ALU64_IMM(BPF_ADD, 2, 1), BPF_JMP_IMM(BPF_JGT, 2, 10, 1), R0_0, R0_0, EXIT },
	  ACCEPT, L2 },
	/* register against register: both, twice */
	{ "prec_decided_branch_reg", SOCK, { BPF_MOV64_IMM(1, 5), BPF_MOV64_IMM(3, 7),
	  BPF_ALU64_REG(BPF_ADD, 3, 1), BPF_JMP_REG(BPF_JGT, 3, 1, 1), R0_0, R0_0, EXIT },
	  ACCEPT, L2 },
	/* through LD_IMM64 (two insns) and a helper call (R0 comes from it) */
	{ "prec_ldimm64", SOCK, { BPF_MOV64_IMM(6, 3), BPF_LD_IMM64(0, 0x123456789ULL),
	  BPF_LD_IMM64(1, 7), BPF_JMP_IMM(BPF_JGT, 6, 10, 1), R0_0, R0_0, EXIT }, ACCEPT, L2 },
	{ "prec_helper_ret", SOCK, { BPF_MOV64_IMM(6, 3), BPF_EMIT_CALL(BPF_FUNC_ktime_get_ns),
	  BPF_ALU64_IMM(BPF_AND, 0, 7), BPF_ALU64_REG(BPF_ADD, 0, 6),
	  BPF_JMP_IMM(BPF_JGT, 0, 100, 0), R0_0, EXIT }, ACCEPT, L2 },
	/* a decided branch in the parent state's history: "parent state" lines, P marks */
	{ "prec_parent_states", SOCK, { LDLEN(2), LDLEN(6), R0_0, DIAMOND(2, 1), DIAMOND(2, 2),
	  DIAMOND(2, 3), DIAMOND(2, 4), BPF_MOV64_REG(0, 6), EXIT }, ACCEPT, L2 },
	/* pruning: the explored state's precise r7 is propagated into the pruned path */
	{ "prec_prune_propagate", SOCK, { LDLEN(2), LDLEN(6), BPF_MOV64_IMM(7, 4), R0_0,
	  DIAMOND(2, 1), DIAMOND(2, 2), DIAMOND(2, 3), BPF_JMP_IMM(BPF_JGT, 7, 4, 1),
	  BPF_MOV64_REG(0, 6), EXIT }, ACCEPT, L2 },
	/* pointer + scalar */
	{ "prec_ptr_add", SOCK, { LOOKUP(MAP_ARRAY), BPF_JMP_IMM(BPF_JEQ, 0, 0, 5),
	  BPF_MOV64_IMM(1, 3), BPF_MOV64_REG(2, 1), BPF_ALU64_IMM(BPF_LSH, 2, 2),
	  BPF_ALU64_REG(BPF_ADD, 0, 2), BPF_LDX_MEM(BPF_W, 0, 0, 0), R0_0, EXIT }, ACCEPT, PL },
	/* scalar + pointer */
	{ "prec_scalar_add_ptr", SOCK, { BPF_MOV64_IMM(2, -16), BPF_MOV64_REG(3, 2),
	  BPF_ALU64_REG(BPF_ADD, 3, 10), BPF_ST_MEM(BPF_DW, 3, 0, 1), R0_0, EXIT }, ACCEPT, PL },
	/* linked scalars: the jump on r1 bounded r2, so r1 is marked with it */
	{ "prec_linked", SOCK, { LDLEN(1), BPF_MOV64_REG(2, 1), BPF_JMP_IMM(BPF_JGT, 1, 7, 4),
	  BPF_MOV64_REG(3, 10), BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_ALU64_REG(BPF_ADD, 3, 2),
	  BPF_ST_MEM(BPF_B, 3, 0, 0), R0_0, EXIT }, ACCEPT, PL },
	/* a helper's size argument */
	{ "prec_helper_size", SOCK, { BPF_MOV64_IMM(4, 4), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_REG(3, 10), BPF_ALU64_IMM(BPF_ADD, 3, -8),
	  BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), R0_0, EXIT }, ACCEPT, PL },
	/* a spilled scalar: the mark goes through the stack slot (via r10 and via a copy) */
	{ "prec_spill", SOCK, { BPF_MOV64_IMM(1, 8), BPF_STX_MEM(BPF_DW, 10, 1, -8),
	  BPF_MOV64_IMM(1, 0), BPF_LDX_MEM(BPF_DW, 2, 10, -8), BPF_MOV64_REG(3, 10),
	  BPF_ALU64_REG(BPF_ADD, 3, 2), BPF_ALU64_IMM(BPF_ADD, 3, -16), BPF_LDX_MEM(BPF_DW, 0, 3, 0),
	  R0_0, EXIT }, ACCEPT, PL },
	{ "prec_spill_ptr", SOCK, { BPF_MOV64_IMM(1, 8), BPF_MOV64_REG(4, 10),
	  BPF_STX_MEM(BPF_DW, 4, 1, -8), BPF_LDX_MEM(BPF_DW, 2, 4, -8),
	  BPF_JMP_IMM(BPF_JGT, 2, 10, 0), R0_0, EXIT }, ACCEPT, PL },
	/* a spilled constant imm, then a checkpoint between spill and fill */
	{ "prec_spill_imm_parent", SOCK, { LDLEN(2), BPF_ST_MEM(BPF_DW, 10, -16, 6), R0_0,
	  DIAMOND(2, 1), DIAMOND(2, 2), DIAMOND(2, 3), BPF_LDX_MEM(BPF_DW, 3, 10, -16),
	  BPF_JMP_IMM(BPF_JGT, 3, 10, 0), EXIT }, ACCEPT, PL },
	/* a zero stored unaligned becomes STACK_ZERO: the register must be 0 */
	{ "prec_st_zero_unaligned", SOCK, { BPF_MOV64_IMM(1, 0), BPF_STX_MEM(BPF_W, 10, 1, -4),
	  BPF_LDX_MEM(BPF_W, 0, 10, -4), EXIT }, ACCEPT, PL },
	/* a constant array key spilled on the stack: the slot is marked */
	{ "prec_array_key", SOCK, { BPF_MOV64_IMM(1, 1), BPF_STX_MEM(BPF_W, 10, 1, -8),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -8), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_LDX_MEM(BPF_W, 0, 0, 0), R0_0, EXIT },
	  ACCEPT, PL },
	/* subprograms: R0 back through the callee's exit, R1 back through the call */
	{ "prec_subprog_ret", SOCK, { BPF_MOV64_IMM(6, 3), BPF_MOV64_IMM(1, 2), CALLSUB(3),
	  BPF_ALU64_REG(BPF_ADD, 0, 6), BPF_JMP_IMM(BPF_JGT, 0, 10, 0), EXIT,
	  BPF_MOV64_REG(0, 1), BPF_ALU64_IMM(BPF_ADD, 0, 1), EXIT }, ACCEPT, PL },
	{ "prec_subprog_arg", SOCK, { BPF_MOV64_IMM(6, 3), BPF_MOV64_IMM(1, 2), CALLSUB(2), R0_0,
	  EXIT, BPF_MOV64_REG(2, 1), BPF_JMP_IMM(BPF_JGT, 2, 10, 0), R0_0, EXIT }, ACCEPT, PL },
	/* a bounded loop: every iteration's decided exit test backtracks the whole path */
	{ "prec_loop", SOCK, { BPF_MOV64_IMM(0, 0), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 4, -2), EXIT }, ACCEPT, PL },
	/* pruning the kernel does now that unused scalars are imprecise: the statistics */
	{ "prec_stats_diamonds", SOCK, { LDLEN(2), LDLEN(6), R0_0, DIAMOND(2, 1), DIAMOND(6, 2),
	  DIAMOND(2, 3), DIAMOND(6, 4), DIAMOND(2, 5), DIAMOND(6, 6), DIAMOND(2, 7), DIAMOND(6, 8),
	  R0_0, EXIT }, ACCEPT, STATS },
	{ "prec_stats_precise_blocks", SOCK, { LDLEN(2), LDLEN(6), R0_0, DIAMOND(2, 1),
	  DIAMOND(6, 2), DIAMOND(2, 3), DIAMOND(6, 4), BPF_ALU64_IMM(BPF_AND, 2, 7),
	  BPF_MOV64_REG(3, 10), BPF_ALU64_REG(BPF_ADD, 3, 2), BPF_ST_MEM(BPF_B, 3, -8, 0), R0_0,
	  EXIT }, ACCEPT, STATS },
	{ "prec_stats_loop", SOCK, { LDLEN(6), BPF_MOV64_IMM(0, 0), BPF_MOV64_IMM(1, 0),
	  BPF_ALU64_IMM(BPF_ADD, 1, 1), DIAMOND(6, 3), BPF_JMP_IMM(BPF_JLT, 1, 20, -4), R0_0,
	  EXIT }, ACCEPT, STATS },
	{ "prec_stats_loop_spill", SOCK, { LDLEN(6), BPF_ST_MEM(BPF_DW, 10, -8, 0), R0_0,
	  BPF_LDX_MEM(BPF_DW, 1, 10, -8), BPF_ALU64_IMM(BPF_ADD, 1, 1),
	  BPF_STX_MEM(BPF_DW, 10, 1, -8), DIAMOND(6, 3), BPF_JMP_IMM(BPF_JLT, 1, 12, -6), R0_0,
	  EXIT }, ACCEPT, STATS },
	/* soundness: the first path (fall-through) is safe, the second differs only in a scalar
	 * that a later check depends on; with a state at every prune point the second path must
	 * not be pruned, as the scalar is precise in the explored state */
#define FREQ .prog_flags = BPF_F_TEST_STATE_FREQ
#define TWO_PATHS(r, bad, good) LDLEN(2), BPF_MOV64_IMM(r, bad), BPF_JMP_IMM(BPF_JGT, 2, 10, 1), \
	BPF_MOV64_IMM(r, good)
	{ "prec_prune_ptr_add", SOCK, { TWO_PATHS(6, 100, 0), BPF_MOV64_REG(1, 10),
	  BPF_ALU64_IMM(BPF_ADD, 1, -8), BPF_ALU64_REG(BPF_ADD, 1, 6), BPF_ST_MEM(BPF_DW, 1, 0, 0),
	  R0_0, EXIT }, REJECT, "misaligned stack access off 0+92+0 size 8", EACCES, FREQ },
	{ "prec_prune_spill", SOCK, { TWO_PATHS(6, 100, 0), BPF_STX_MEM(BPF_DW, 10, 6, -16),
	  BPF_MOV64_IMM(6, 0), BPF_MOV64_REG(1, 10), BPF_LDX_MEM(BPF_DW, 3, 10, -16),
	  BPF_ALU64_IMM(BPF_ADD, 1, -8), BPF_ALU64_REG(BPF_ADD, 1, 3), BPF_ST_MEM(BPF_DW, 1, 0, 0),
	  R0_0, EXIT }, REJECT, "misaligned stack access off 0+92+0 size 8", EACCES, FREQ },
	{ "prec_prune_size", SOCK, { TWO_PATHS(4, 64, 8), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_REG(3, 10), BPF_ALU64_IMM(BPF_ADD, 3, -8), BPF_MOV64_REG(1, 1),
	  BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes), R0_0, EXIT }, REJECT, "invalid write to stack R3 off=-8 size=64", EINVAL, FREQ },
	{ "prec_prune_branch", SOCK, { TWO_PATHS(6, 1, 0), BPF_MOV64_IMM(0, 0),
	  BPF_JMP_IMM(BPF_JEQ, 6, 1, 1), EXIT, BPF_LDX_MEM(BPF_DW, 0, 0, 0), EXIT }, REJECT, "R0 invalid mem access 'scalar'", EACCES, FREQ },
	{ "prec_prune_subprog", SOCK, { TWO_PATHS(1, 100, 0), CALLSUB(2), R0_0, EXIT,
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -8), BPF_ALU64_REG(BPF_ADD, 2, 1),
	  BPF_ST_MEM(BPF_DW, 2, 0, 0), R0_0, EXIT }, REJECT, "misaligned stack access off 0+92+0 size 8", EACCES, FREQ },
	{ "prec_prune_key", SOCK, { TWO_PATHS(6, 100, 0), BPF_STX_MEM(BPF_W, 10, 6, -8),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -8), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_LDX_MEM(BPF_W, 0, 0, 0), R0_0, EXIT },
	  REJECT, "R0 invalid mem access 'map_value_or_null'", EACCES, FREQ },
	{ "prec_prune_zero", SOCK, { TWO_PATHS(6, 1, 0), BPF_STX_MEM(BPF_W, 10, 6, -4),
	  BPF_LDX_MEM(BPF_W, 0, 10, -4), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_LDX_MEM(BPF_DW, 0, 0, 0),
	  EXIT }, REJECT, "R0 invalid mem access 'scalar'", EACCES, FREQ },
	/* a value from LD_ABS cannot be followed: all scalars of the parent states become precise */
	{ "prec_fallback_ld_abs", SOCK, { BPF_MOV64_REG(6, 1), LDLEN(8), BPF_LD_ABS(BPF_B, 0),
	  BPF_ALU64_IMM(BPF_AND, 0, 1), BPF_MOV64_REG(7, 0), BPF_ST_MEM(BPF_DW, 10, -8, 3),
	  BPF_JMP_IMM(BPF_JGT, 8, 1, 1), BPF_ALU64_IMM(BPF_ADD, 8, 1),
	  BPF_JMP_IMM(BPF_JGT, 7, 5, 0), BPF_LDX_MEM(BPF_DW, 0, 10, -8), EXIT }, ACCEPT, PL,
	  .prog_flags = BPF_F_TEST_STATE_FREQ },
};

TEST(verifier_prec)
{
	vcase_run_table("precision", cases, NCASES(cases));
}
