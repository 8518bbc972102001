/* Dynptrs on the stack: the verifier's side (dynptr.c). */
#ifndef USERBPF_VERIFIER_DYNPTR_H
#define USERBPF_VERIFIER_DYNPTR_H

#include "verifier/env.h"

/* A dynptr's kind, as the kernel numbers them (enum bpf_dynptr_type).  A packet's (skb: from
 * bpf_dynptr_from_skb(); xdp: bpf_dynptr_from_xdp()) moves the packet when written through
 * bpf_dynptr_write() (an skb's), and its slices go with the packet pointers.  6.18 also types a
 * global function's dynptr argument as an skb's. */
enum { DYNPTR_TYPE_INVALID, DYNPTR_TYPE_LOCAL, DYNPTR_TYPE_RINGBUF, DYNPTR_TYPE_SKB,
       DYNPTR_TYPE_XDP };

const char *dynptr_type_str(u8 type);

/* reg becomes a dynptr the program was given (a user ring buffer callback's R1, a global
 * function's dynptr argument), of kind type, with a fresh id. */
void mark_const_dynptr(struct verifier_env *env, struct reg_state *reg, u8 type);

/* A helper's dynptr argument in register regno, of one of the ARG_PTR_TO_DYNPTR_* kinds: makes
 * the dynptr (the *_UNINIT kinds) or checks that one is there. */
int check_dynptr_arg(struct verifier_env *env, u32 regno, int arg_type, int insn_idx);

/* A global function's struct bpf_dynptr * argument in regno: the caller's initialised dynptr
 * (on its stack, or one it was given). */
int check_global_dynptr_arg(struct verifier_env *env, u32 regno);

/* A kfunc's struct bpf_dynptr * argument in regno: a pointer to the stack or a const dynptr,
 * at no offset where the type allows none (the kernel's check_func_arg_reg_off()). */
int check_dynptr_arg_reg(struct verifier_env *env, u32 regno);

/* A kfunc's __uninit dynptr argument: a dynptr of kind type is made at regno's stack; of the
 * ring buffer kind with clone_ref, one sharing that reference (bpf_dynptr_clone()). */
int make_dynptr_arg(struct verifier_env *env, u32 regno, u8 type, u32 clone_ref, int insn_idx);

/* The kind of the initialised dynptr regno points at (DYNPTR_TYPE_INVALID for none). */
u8 dynptr_arg_type(struct verifier_env *env, u32 regno);

/* After the arguments: the ring buffer dynptr in regno is submitted or discarded. */
int release_dynptr_arg(struct verifier_env *env, u32 regno);

/* The id and reference of the dynptr regno points at (bpf_dynptr_data()'s slice carries them). */
int dynptr_arg_ids(struct verifier_env *env, u32 regno, u32 *id, u32 *ref_obj_id);

/* A store into slot spi of frame f: a local dynptr there is destroyed (its slices with it), a
 * ring buffer one refuses the store. */
int destroy_dynptr_slot(struct verifier_env *env, struct func_state *f, int spi);

#endif
