/* Verifier: bpf_spin_lock — a map value's lock (its BTF says where) is taken and released by
 * the helpers, one at a time, with nothing but straight-line code in between (no calls, no
 * LD_ABS, no exit), never read or written directly, and not from socket filters or tracing
 * programs, as the kernel's rules say. */
#include "test.h"
#include "verifier_harness.h"

#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
#define PCALL(off) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, off)
/* r0 = lookup(MAP, key 0 at fp - 4): 6 insns */
#define LK(MAP)                                                                                  \
	BPF_ST_MEM(BPF_W, 10, -4, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4),       \
		BPF_LD_MAP_FD(1, MAP), CALL(map_lookup_elem)
/* bpf_spin_lock / unlock of the lock at reg + off: 3 insns */
#define LOCK(reg, off) BPF_MOV64_REG(1, reg), BPF_ALU64_IMM(BPF_ADD, 1, off), CALL(spin_lock)
#define UNLOCK(reg, off) BPF_MOV64_REG(1, reg), BPF_ALU64_IMM(BPF_ADD, 1, off), CALL(spin_unlock)
/* r6 = a NULL-checked value of MAP (else return 0): 9 insns */
#define VAL(MAP) LK(MAP), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), R0_0, EXIT, BPF_MOV64_REG(6, 0)

static const struct vcase cases[] = {
	{ "lock_unlock", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), BPF_ST_MEM(BPF_W, 6, 0, 1),
	  UNLOCK(6, 4), R0_0, EXIT }, ACCEPT, .full_log = true },
	{ "lock_unlock_array", CLS, { LK(MAP_ALOCK), BPF_MOV64_REG(6, 0), LOCK(6, 4),
	  BPF_LDX_MEM(BPF_W, 7, 6, 0), UNLOCK(6, 4), BPF_MOV64_REG(0, 7), EXIT }, ACCEPT,
	  .full_log = true, .log_level = 2 },
	{ "lock_missing_unlock", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), R0_0, EXIT }, REJECT, "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region", EINVAL },
	{ "unlock_without_lock", CLS, { VAL(MAP_HLOCK), UNLOCK(6, 4), R0_0, EXIT }, REJECT, "bpf_spin_unlock without taking a lock", EINVAL },
	{ "lock_twice", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT },
	  REJECT, "function calls are not allowed while holding a lock", EINVAL },
	{ "lock_wrong_offset", CLS, { VAL(MAP_HLOCK), LOCK(6, 0), UNLOCK(6, 0), R0_0, EXIT }, REJECT, "off 0 doesn't point to 'struct bpf_spin_lock' that is at 4", EINVAL },
	{ "lock_call_inside", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), CALL(ktime_get_ns), UNLOCK(6, 4),
	  R0_0, EXIT }, REJECT, "function calls are not allowed while holding a lock", EINVAL },
	{ "lock_load_lock_word", CLS, { VAL(MAP_HLOCK), BPF_LDX_MEM(BPF_W, 0, 6, 4), EXIT }, REJECT, "bpf_spin_lock cannot be accessed directly by load/store", EACCES },
	{ "lock_store_over_lock", CLS, { VAL(MAP_HLOCK), BPF_ST_MEM(BPF_DW, 6, 0, 0), R0_0, EXIT },
	  REJECT, "bpf_spin_lock cannot be accessed directly by load/store", EACCES },
	{ "lock_store_beside", CLS, { VAL(MAP_HLOCK), BPF_ST_MEM(BPF_W, 6, 0, 5), R0_0, EXIT },
	  ACCEPT },
	{ "lock_map_without_btf", CLS, { VAL(MAP_ARRAY1), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT },
	  REJECT, "map '' has to have BTF in order to use bpf_spin_lock", EINVAL },
	{ "lock_socket_filter", SOCK, { VAL(MAP_HLOCK), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT },
	  REJECT, "socket filter progs cannot use bpf_spin_lock yet", EINVAL },
	{ "lock_kprobe", KPROBE, { VAL(MAP_HLOCK), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT }, REJECT, "tracing progs cannot use bpf_spin_lock yet", EINVAL },
	{ "lock_xdp", XDP, { VAL(MAP_HLOCK), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT }, ACCEPT,
	  .full_log = true },
	{ "unlock_other_element", CLS, { VAL(MAP_HLOCK), LK(MAP_ALOCK), BPF_MOV64_REG(7, 0),
	  LOCK(6, 4), UNLOCK(7, 4), R0_0, EXIT }, REJECT, "bpf_spin_unlock of different lock", EINVAL },
	{ "lock_ld_abs", CLS, { BPF_MOV64_REG(9, 1), VAL(MAP_HLOCK), LOCK(6, 4),
	  BPF_MOV64_REG(6, 9), BPF_LD_ABS(BPF_B, 0), R0_0, EXIT }, REJECT, "BPF_LD_[ABS|IND] cannot be used inside bpf_spin_lock-ed region", EINVAL },
	{ "lock_var_offset", CLS, { VAL(MAP_HLOCK), BPF_LDX_MEM(BPF_W, 7, 6, 0),
	  BPF_ALU64_IMM(BPF_AND, 7, 4), BPF_MOV64_REG(1, 6), BPF_ALU64_REG(BPF_ADD, 1, 7),
	  CALL(spin_lock), R0_0, EXIT }, REJECT, "R1 doesn't have constant offset. bpf_spin_lock has to be at the constant offset", EINVAL },
	{ "lock_stack_ptr", CLS, { BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -8),
	  CALL(spin_lock), R0_0, EXIT }, REJECT, "R1 type=fp expected=map_value, ptr_", EACCES },
	{ "lock_subprog_call", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), PCALL(5), UNLOCK(6, 4), R0_0,
	  EXIT, R0_0, EXIT }, ACCEPT },
	{ "lock_one_branch", CLS, { VAL(MAP_HLOCK), BPF_LDX_MEM(BPF_W, 7, 6, 0),
	  BPF_JMP_IMM(BPF_JEQ, 7, 0, 6), LOCK(6, 4), UNLOCK(6, 4), R0_0, EXIT }, ACCEPT,
	  .full_log = true },
	{ "lock_branch_leak", CLS, { VAL(MAP_HLOCK), BPF_LDX_MEM(BPF_W, 7, 6, 0), LOCK(6, 4),
	  BPF_JMP_IMM(BPF_JEQ, 7, 0, 3), UNLOCK(6, 4), R0_0, EXIT }, REJECT, "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region", EINVAL },
	{ "lock_value_copy", CLS, { VAL(MAP_HLOCK), BPF_MOV64_REG(8, 6), LOCK(6, 4),
	  UNLOCK(8, 4), R0_0, EXIT }, ACCEPT, .full_log = true },
	{ "lock_update_helper_inside", CLS, { VAL(MAP_HLOCK), LOCK(6, 4), BPF_LD_MAP_FD(1, MAP_HLOCK),
	  BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -4), BPF_MOV64_REG(3, 6),
	  BPF_MOV64_IMM(4, 0), CALL(map_update_elem), UNLOCK(6, 4), R0_0, EXIT }, REJECT, "function calls are not allowed while holding a lock", EINVAL },
};

TEST(verifier_lock)
{
	vcase_run_table("lock", cases, NCASES(cases));
}
