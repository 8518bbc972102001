/* Open-coded iterators on the stack (struct bpf_iter_num): the verifier's side (iter.c). */
#ifndef USERBPF_VERIFIER_ITER_H
#define USERBPF_VERIFIER_ITER_H

#include "verifier/env.h"

/* An iterator's state (the kernel's enum bpf_iter_state). */
enum { ITER_INVALID, ITER_ACTIVE, ITER_DRAINED };

/* An iterator valid only inside an RCU section (made by a KF_RCU_PROTECTED _new()): while it
 * is, and after the section it was made in ended. */
enum { ITER_RCU_NONE, ITER_RCU, ITER_RCU_ENDED };

/* What a kfunc does with its iterator argument. */
enum iter_op { ITER_OP_NEW, ITER_OP_NEXT, ITER_OP_DESTROY };

/* The iterator argument in regno, a pointer to the stack holding a struct of kernel BTF id
 * btf_id (nr_slots 8-byte slots): _new() makes the iterator there (a reference, active), the
 * others want one (valid: inside the RCU section, for an RCU one) and mark it read, _destroy()
 * releases it.  rcu: _new() makes an RCU one; func: the kfunc, for the log.  *ref_obj_id: the
 * iterator's reference (for _next()'s result), *spi its first slot. */
int iter_arg(struct verifier_env *env, u32 regno, enum iter_op op, u32 btf_id, int nr_slots,
	     int insn_idx, bool rcu, const char *func, u32 *ref_obj_id, int *spi);

/* The RCU section ends: the RCU iterators made in it may no longer be used. */
void iter_rcu_unlock(struct verifier_env *env);

/* After _next() was checked, with R0 its maybe-NULL result: the walk forks.  A new branch
 * (pushed) goes on with the iterator active one round deeper and R0 not NULL (its imprecise
 * scalars widened against the previous round's state); the current path sees the iterator
 * drained and R0 = 0. */
int iter_next_fork(struct verifier_env *env, int insn_idx, u32 frameno, int spi);

/* Whether the iterator R1 points at in st is active (is_state_visited(): a _next() call whose
 * state repeats an earlier round's is a loop only while its iterator is active). */
bool iter_r1_active(struct verifier_env *env, const struct vstate *st);

/* "num" for struct bpf_iter_num (kernel BTF id btf_id): what the log calls it, iter_<name>. */
const char *iter_type_str(u32 btf_id);

#endif
