/* jit.h — the x86-64 JIT: translate an eBPF program to native code with the interpreter's exact
 * contract, so that a caller can pick either engine per program.
 *
 * jit_compile() accepts what interp_prepare() accepts, with the same environment (struct
 * interp_env: helper table, uBPF unwind helper, LD_ABS/LD_IND callback) and the same errors, and
 * refuses in addition (-EOPNOTSUPP) programs that write r10, which the verifier forbids too.  A
 * compiled program is immutable code in an R+X mapping; any number of threads may run it at once.
 * Each run uses about 4.7 KiB of the caller's stack when the program has bpf-to-bpf calls or an
 * inline bpf_loop (eight 512-byte frames), 512 bytes otherwise.
 *
 * bpf_loop (interp_env.loop_id): a call of that helper whose r2 is one of the program's callbacks
 * by an LD_IMM64 earlier in the same basic block (no jump lands in between, r2 not written since)
 * runs inline as interp.h describes, each round a bpf-to-bpf call of the callback (a frame of
 * the caller's chain: -ELOOP past INTERP_MAX_FRAMES); any other call of it calls the helper.
 *
 * Callbacks (exec/callback.h): each distinct target of an LD_IMM64 BPF_PSEUDO_FUNC (checked like
 * a bpf-to-bpf call's: an instruction start inside the program, else -EINVAL) gets a struct
 * exec_callback owned by the compiled program, whose address the LD_IMM64 loads.  Its call() runs
 * the program entered at the callback's first instruction as a fresh run (own frames, r0 and
 * r6..r9 zero at entry, r1..r5 the arguments, r0 its result, 0 after a run-time error); each
 * callback run nested below a helper uses another run's worth of the caller's stack, and as in
 * the interpreter a call nested deeper than INTERP_MAX_FRAMES callback runs on the thread returns
 * 0 without running.  The descriptors live as long as the program.
 *
 * On other architectures jit_compile() returns -EOPNOTSUPP: callers fall back to the interpreter.
 *
 * Differences from the interpreter that a verified program cannot observe: after a helper call
 * or LD_ABS/LD_IND, r1..r5 hold unspecified values (the interpreter leaves them unchanged; the
 * kernel scratches them too), and the frames of bpf-to-bpf calls are 512 bytes apart as in the
 * interpreter, but return addresses and saved registers live elsewhere on the native stack.
 * The jumps jit_opts.pkt_cmp marks compare as the interpreter does for the values it promises
 * (the verifier's packet pointers), not for any others.
 */
#ifndef USERBPF_EXEC_JIT_H
#define USERBPF_EXEC_JIT_H

#include <stddef.h>
#include <stdint.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include "exec/interp.h"

/* A helper call replaced at compile time (jit_opts.resolve_call). */
struct jit_call {
	enum {
		/* call fn with the helper's arguments (r1..r5); its result is r0, sign-extended
		 * from 32 bits if sext32 (an int-returning map op standing for a helper) */
		JIT_CALL_DIRECT = 1,
		/* inline: r0 = *(u32 *)r2 < max_entries ? base + *(u32 *)r2 * elem_size : 0 (an
		 * array map's lookup_elem); r1..r5 are left unspecified as after a call */
		JIT_CALL_ARRAY,
	} kind;
	int sext32;
	const void *fn;
	uint64_t base;
	uint32_t elem_size;
	uint32_t max_entries;
	uint32_t insn; /* (the JIT's own: the call instruction) */
};

/* Options.  sz must be sizeof(struct jit_opts) as the caller knows it (a smaller, older struct is
 * fine; a larger one must have zero bytes past the last field this library knows). */
struct jit_opts {
	size_t sz;
	/* Constant blinding: every 32/64-bit immediate from the program reaches the code XORed with
	 * a random key and is unmasked through a scratch register at run time, so that a program
	 * cannot plant chosen byte sequences in executable memory.  Shift counts (6 bits after
	 * masking), memory offsets, jump displacements and JIT-chosen constants are not blinded. */
	int blind;
	/* Key seed for blinding; 0 draws one from getrandom().  Nonzero makes the code reproducible
	 * (tests). */
	uint64_t blind_seed;
	/* Compile-time resolution of helper calls (NULL: every helper call goes through the
	 * helper table).  For each call of a helper whose r1 is a known constant k at the call
	 * (an LD_IMM64 of k into r1 with src_reg BPF_PSEUDO_MAP_FD or BPF_PSEUDO_MAP_IDX earlier in
	 * the same basic block, r1 not written since), the JIT calls
	 * resolve_call(resolve_arg, fn, k, &how) once, fn being the helper table's entry; it
	 * returns nonzero after filling how to replace the call (the kernel's map_gen_lookup and
	 * direct map calls), 0 to keep the helper call. */
	int (*resolve_call)(void *arg, const void *fn, uint64_t r1, struct jit_call *how);
	void *resolve_arg;
	/* Bit i % 8 of byte i / 8 (NULL: none): the conditional jump in slot i compares two
	 * registers that the verifier found to be packet pointers within 4 GiB of data or
	 * data_end at every visit: addresses of this process, far from wrapping.  In a loop,
	 * `p2 = p + K; if p2 > end` may then run as `if p > end - K` with end - K computed once
	 * on entering the loop (plan_hoists()): one x86 instruction fewer a round and the loop's
	 * add chain shorter.  Exact for such values only. */
	const uint8_t *pkt_cmp;
};
#define JIT_OPTS_LAST_FIELD pkt_cmp

struct jit_prog;

/* Compile cnt instructions for env (NULL: no helpers, no LD_ABS) into *out.  opts may be NULL.
 * Returns 0, or: -EINVAL malformed program (as interp_prepare) or bad opts, -E2BIG cnt 0 or above
 * INTERP_MAX_INSNS, -EOPNOTSUPP kfunc call, write to r10, or not an x86-64 build, -ENOMEM. */
int jit_compile(const struct bpf_insn *insns, uint32_t cnt, const struct interp_env *env,
		const struct jit_opts *opts, struct jit_prog **out);

/* Run with r1..r5 = args and store r0 in *r0.  Same statuses as interp_exec(): 0 when the program
 * ended by its outermost exit (or by an LD_ABS miss or the unwind helper), else a negative errno
 * with *r0 = 0: -EFAULT ran past the last instruction, -ELOOP more than INTERP_MAX_FRAMES frames,
 * -ENOENT callx to an unknown helper. */
int jit_exec(const struct jit_prog *p, const uint64_t args[5], uint64_t *r0);

/* jit_exec() with r1, r2 and the rest zero; returns r0 (0 on a run-time error). */
uint64_t jit_run(const struct jit_prog *p, uint64_t r1, uint64_t r2);

/* The compiled code's entry, for callers that want no wrapper on their hot path: called with
 * r1..r5, it returns r0 and the run status (negative errno in the low 32 bits, or 0) in
 * rax:rdx.  NULL where there is no JIT. */
struct jit_ret {
	uint64_t r0;
	uint64_t status;
};
typedef struct jit_ret (*jit_entry_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
				       uint64_t r5);
jit_entry_fn jit_entry(const struct jit_prog *p);

/* The machine code (for a disassembly dump) and its length in bytes. */
const void *jit_code(const struct jit_prog *p, size_t *len);

/* Where the code of instruction i starts in jit_code() (i == the instruction count: where the
 * code after the last one starts); -1 for i beyond.  Instructions that another one's code covers
 * (fused, folded) start where the next one does. */
int64_t jit_insn_offset(const struct jit_prog *p, uint32_t i);

/* How many of p's packet checks compare with a bound computed before their loop
 * (jit_opts.pkt_cmp); 0 where there is no JIT. */
uint32_t jit_hoisted_checks(const struct jit_prog *p);

/* How many inline checks for the tasks' arena p's probe loads make: one per load, or one per
 * run of them through one pointer (emit_probe_run()); 0 where there is no JIT. */
uint32_t jit_probe_checks(const struct jit_prog *p);

/* Frees p and unmaps its code; NULL is a no-op. */
void jit_free(struct jit_prog *p);

#endif /* USERBPF_EXEC_JIT_H */
