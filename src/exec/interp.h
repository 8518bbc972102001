/* interp.h — the eBPF interpreter: decode a program once, run it many times.
 *
 * interp_prepare() checks and translates an instruction array into an internal form (one decoded
 * record per 8-byte slot: the address of its handler inside the interpreter loop, pre-extracted
 * operands, resolved jump targets and helper pointers; the first record of a few common idioms
 * runs the whole idiom, see interp_fuse.h).  interp_run()/interp_exec() execute that
 * form with computed-goto dispatch; nothing is decoded at run time.  A prepared program is
 * immutable, so any number of threads may run it at once; each run has its own registers, call
 * frames and stack on the caller's C stack (about 4.5 KiB).
 *
 * LD_IMM64 loads its 64-bit value as it is (the loader has already resolved map fds and the other
 * pseudo forms into it), except BPF_PSEUDO_FUNC, which names a callback (src/exec/callback.h):
 * the register gets the address of a struct exec_callback owned by the prepared program, one per
 * callback target, whose call() runs the program entered at the target with r1..r5 its
 * arguments and a fresh stack, as a new run (nested at most INTERP_MAX_FRAMES deep per thread;
 * deeper, or after a run-time error, it returns 0).
 *
 * What the decoder guarantees and what it leaves to the verifier: every slot is a known form
 * (src/insn.h) with reserved fields zero and registers r0..r10; every jump, bpf-to-bpf call and
 * callback target lands on an instruction start inside the program; every LD_IMM64 is complete;
 * every helper id is known to the environment.  It does NOT check memory accesses, termination, stack bounds or
 * register initialisation: a verifier in front of it must (the stack starts with undefined
 * contents, as on the kernel).  Control flow that runs past the last
 * instruction, a call deeper than INTERP_MAX_FRAMES or a register call to an unknown helper ends
 * the run with an error status, never a crash.
 */
#ifndef USERBPF_EXEC_INTERP_H
#define USERBPF_EXEC_INTERP_H

#include <stdint.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

/* Stack bytes of one frame (MAX_BPF_STACK) and the deepest call chain, main frame included, as
 * the kernel's MAX_CALL_FRAMES. */
#define INTERP_STACK_SIZE 512
#define INTERP_MAX_FRAMES 8

/* Largest accepted program, in slots (the kernel's BPF_COMPLEXITY_LIMIT_INSNS). */
#define INTERP_MAX_INSNS 1000000

/* A helper: arguments in r1..r5, result into r0.  Pointers travel as integers. */
/* A BPF_PROBE_MEM load of |width| bytes at addr (sign-extended when width < 0): what is there,
 * or 0 where nothing is mapped (helpers/probe.c). */
uint64_t probe_load(uint64_t addr, int32_t width);

typedef uint64_t (*interp_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
				     uint64_t r5);

/* What a program may call and read besides its own memory.  Copied by interp_prepare(); the
 * helpers array itself must outlive the prepared program. */
struct interp_env {
	/* helpers[id] serves `call id`; a NULL entry or id >= nr_helpers is an unknown helper,
	 * which interp_prepare() rejects (and `callx` fails at run time). */
	const interp_helper_fn *helpers;
	/* Number of entries in helpers. */
	uint32_t nr_helpers;
	/* If nonzero, a call to this helper id that returns 0 ends the whole program at once with
	 * r0 = 0 (uBPF's "unwind" helper, used by the conformance suite).  Helper id 0 is never a
	 * real helper (BPF_FUNC_unspec), so a zeroed environment has no unwind helper. */
	uint32_t unwind_id;
	/* LD_ABS/LD_IND source: return a pointer to size bytes at offset off of the packet that
	 * ctx (the program's r6) describes, copying them to buf if they are not contiguous, or NULL
	 * when out of bounds, which ends the program with r0 = 0 as the kernel does.  The bytes
	 * are in network order.  NULL here makes interp_prepare() reject LD_ABS/LD_IND. */
	const void *(*load_pkt)(uint64_t ctx, int32_t off, uint32_t size, void *buf);
	/* bpf_tail_call (helper tail_call_id, nonzero): tail_call(r1, r2, r3, &r0) returns 0 when
	 * the call does not happen (the program goes on), 1 when it did (the target ran to its end
	 * and left r0: the current function returns r0, as an exit would), or -errno for a run-time
	 * error of the target. */
	uint32_t tail_call_id;
	int (*tail_call)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t *r0);
	/* A helper with bpf_loop()'s semantics (helper loop_id, nonzero): r4 != 0 gives r0 =
	 * -EINVAL, a u32 r1 above 1 << 23 -E2BIG, else the callback r2 runs with (i, r3) for i
	 * from 0 while it returns 0, at most r1 times, and r0 is the number of runs.  When r2 is one
	 * of the program's own callbacks the engines run that loop themselves, each round a
	 * bpf-to-bpf call of the callback (whose frame counts towards INTERP_MAX_FRAMES, as the
	 * verifier counts it), instead of calling the helper; otherwise they call the helper. */
	uint32_t loop_id;
	/* The function a kfunc call (src_reg BPF_PSEUDO_KFUNC_CALL) with this imm (a BTF id) and
	 * off (its BTF: 0 for the kernel's) runs in this environment, called as a helper; NULL
	 * (the resolver, or its answer) makes interp_prepare() refuse the program with
	 * -EOPNOTSUPP. */
	interp_helper_fn (*resolve_kfunc)(const struct interp_env *env, int32_t imm, int16_t off);
	/* The argument register (1..5) that such a kfunc call takes owner in, loaded right before
	 * the call (the kernel's __prog parameters), or 0; NULL: none does. */
	int (*kfunc_owner_reg)(const struct interp_env *env, int32_t imm, int16_t off);
	/* What the program's callbacks name as their owner (exec_callback.owner): the struct
	 * bpf_prog, for helpers that keep a callback; opaque to the engines. */
	void *owner;
};

struct interp_prog;

/* Decode cnt instructions for env into *out.  Returns 0, or -EINVAL for malformed input (unknown
 * opcode, nonzero reserved field, bad register, jump, call or callback target out of range or
 * into the second slot of an LD_IMM64, truncated LD_IMM64, unknown helper, LD_ABS without
 * load_pkt), -E2BIG for cnt 0 or above INTERP_MAX_INSNS, -EOPNOTSUPP for kfunc calls resolve_kfunc does not resolve (and, in
 * the checked interpreter, callbacks), -ENOMEM. */
int interp_prepare(const struct bpf_insn *insns, uint32_t cnt, const struct interp_env *env,
		   struct interp_prog **out);

/* Run with r1..r5 = args (r10 = top of the stack) and store r0 in *r0.  Returns 0 when the
 * program ended by its outermost exit (or by an LD_ABS miss or the unwind helper), else a
 * negative errno with *r0 = 0: -EFAULT ran past the last instruction, -ELOOP more than
 * INTERP_MAX_FRAMES frames, -ENOENT callx to an unknown helper. */
int interp_exec(const struct interp_prog *p, const uint64_t args[5], uint64_t *r0);

/* interp_exec() with r1, r2 and the rest zero; returns r0 (0 on a run-time error). */
uint64_t interp_run(const struct interp_prog *p, uint64_t r1, uint64_t r2);

/* Number of instruction slots of p. */
uint32_t interp_len(const struct interp_prog *p);

/* Number of instructions the record of instruction i runs as one superinstruction (see
 * interp_fuse.h), or 0 if it is not fused.  For tests. */
uint32_t interp_fused_len(const struct interp_prog *p, uint32_t i);

void interp_free(struct interp_prog *p);

#endif /* USERBPF_EXEC_INTERP_H */
