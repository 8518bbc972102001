/* kfuncs: the kernel functions a program calls by BTF id (`call` with src_reg
 * BPF_PSEUDO_KFUNC_CALL), the ones userbpf has.  A call's imm is the id of the function in the
 * kernel's BTF (src/btf/vmlinux.h); the verifier (src/verifier/check_kfunc.c) checks the
 * arguments against the function's prototype there, as the kernel does, and the engines call
 * the implementation as they call a helper.
 */
#ifndef USERBPF_EXEC_KFUNCS_H
#define USERBPF_EXEC_KFUNCS_H

#include "exec/helpers.h"

/* The kernel's kfunc flags (include/linux/btf.h), those userbpf's kfuncs carry. */
#define KF_ACQUIRE (1u << 0)	/* returns a reference the program must release */
#define KF_RELEASE (1u << 1)	/* releases the reference its argument holds */
#define KF_RET_NULL (1u << 2)	/* the result may be NULL: the program must check it */
#define KF_TRUSTED_ARGS (1u << 4) /* kernel object arguments must be trusted (or referenced) */
#define KF_SLEEPABLE (1u << 5)	/* may sleep: sleepable programs only, not in RCU or
				 * preemption-off regions */
#define KF_RCU (1u << 7)	/* kernel object arguments may be RCU-protected ones too */
#define KF_ITER_NEW (1u << 8)	/* makes the iterator its first argument points at */
#define KF_ITER_NEXT (1u << 9)	/* its next element (NULL at the end) */
#define KF_ITER_DESTROY (1u << 10) /* destroys it */
#define KF_RCU_PROTECTED (1u << 11) /* only inside an RCU section (an iterator's _new(): the
				   * iterator then too) */
/* userbpf's own marks (bits the kernel's flags leave free) */
#define KF_CPUMASK (1u << 23)	/* in the kernel's cpumask set (kernel/bpf/cpumask.c): for
				 * tracing, struct_ops and syscall programs */
#define KF_GENERIC (1u << 24)	/* in the kernel's generic_btf_ids set (kernel/bpf/helpers.c):
				 * for the program types it is registered for, not all */
#define KF_SPIN_OK (1u << 25)	/* may be called while a bpf_spin_lock is held */
#define KF_PREEMPT_OFF (1u << 26)	/* bpf_preempt_disable() */
#define KF_PREEMPT_ON (1u << 27)	/* bpf_preempt_enable() */
#define KF_PKT_SKB (1u << 28)	/* bpf_dynptr_from_skb(): skb program types only */
#define KF_PKT_XDP (1u << 29)	/* bpf_dynptr_from_xdp(): XDP only */
#define KF_RCU_LOCK (1u << 30)	/* bpf_rcu_read_lock() */
#define KF_RCU_UNLOCK (1u << 31)	/* bpf_rcu_read_unlock() */

struct kfunc_desc {
	const char *name;
	bpf_helper_fn func;
	u32 flags;
};

/* userbpf's kfunc called name, or NULL. */
const struct kfunc_desc *kfunc_by_name(const char *name);

/* userbpf's kfunc that the call in names (by its kernel BTF id), or NULL. */
const struct kfunc_desc *kfunc_of_insn(const struct bpf_insn *in);

/* The name of the kernel BTF's function id (a call's imm), or NULL when there is no kernel BTF
 * or id is not a function there. */
const char *kfunc_btf_name(s32 id);

struct interp_env;
/* The implementation of the kfunc call with imm id and off (0: the kernel's BTF) in a program
 * (env->owner, a struct bpf_prog: its type may choose the variant), or NULL: the engines'
 * resolver (struct interp_env's resolve_kfunc). */
u64 (*kfunc_resolve(const struct interp_env *env, s32 id, s16 off))(u64, u64, u64, u64, u64);

/* The argument register (1 to 5) of the kfunc call with imm id and off that gets the running
 * program (a parameter named __prog: the kernel's verifier loads the program's aux there), or
 * 0: the engines' interp_env.kfunc_owner_reg. */
int kfunc_owner_reg(const struct interp_env *env, s32 id, s16 off);

#endif
