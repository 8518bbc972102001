/* interp_checked.h — the checked interpreter: the same decoder and handlers as interp.c, compiled
 * a second time (interp_checked.c defines INTERP_CHECKED and includes interp.c) with a check
 * before every instruction.  The normal interpreter's hot path is untouched: without
 * INTERP_CHECKED the hooks expand to nothing.
 *
 * What is checked, before each instruction runs:
 *  - registers: every register the instruction reads must have been written on this path (r1
 *    and r10 start initialised; a helper call leaves r1..r5 uninitialised, a bpf-to-bpf call
 *    gives the callee r1..r5 and r10 only and the caller back r6..r10 and r0 as the callee
 *    left it; the outermost exit reads r0); r10 is never written;
 *  - memory: an LDX/ST/STX/atomic touches [addr, addr + size) entirely inside one of: a live
 *    stack frame (512 bytes each, the current one or a caller's, reached through a pointer it
 *    passed), or a region of the caller's table (context, packet, map values...); atomics
 *    must also be naturally aligned;
 *  - helper calls: the caller's helper_pre hook checks the arguments (and may use
 *    interp_check_mem() for pointer arguments); helper_post sees the result (e.g. to add a
 *    looked-up map value to the table).
 * The first failed check stops the run before the instruction executes (so nothing is read or
 * written out of bounds) and is recorded in struct interp_check.v.
 *
 * Invariants: regions are [start, start + len) in the process's address space; the table is
 * the caller's and may grow during a run (from helper_post), up to INTERP_CHECK_MAX_REGIONS.
 */
#ifndef USERBPF_EXEC_INTERP_CHECKED_H
#define USERBPF_EXEC_INTERP_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/interp.h"

#define INTERP_CHECK_MAX_REGIONS 256

struct interp_region {
	uint64_t start;
	uint64_t len;
	const char *what;	/* "ctx", "packet", "map value": for reports */
	bool readonly;		/* a store (or a helper's write) into it is a violation */
};

/* Why a run stopped. */
enum interp_violation_kind {
	IV_NONE = 0,
	IV_MEM,		/* memory access outside every allowed region */
	IV_UNINIT_REG,	/* read of a register not written on this path */
	IV_WRITE_R10,	/* r10 written */
	IV_HELPER_ARG,	/* a helper argument the hook refused */
	IV_MISALIGNED,	/* an atomic operand not naturally aligned */
	IV_LOCK,	/* a bpf_spin_lock taken twice, released unheld, held over a helper
			 * call or at exit (a hook's: the interpreter knows no helper) */
	IV_LEAK,	/* a reference (ring buffer record) not released at exit (a hook's) */
};

struct interp_violation {
	enum interp_violation_kind kind;
	int insn;		/* instruction index */
	uint64_t addr;		/* IV_MEM, IV_HELPER_ARG: the address */
	uint32_t size;		/* the access size */
	int reg;		/* IV_UNINIT_REG, IV_HELPER_ARG: the register */
	bool write;
	char msg[128];
};

struct interp_check {
	/* Set by the caller. */
	struct interp_region regions[INTERP_CHECK_MAX_REGIONS];
	unsigned int nregions;
	/* Before a helper call (R: r0..r10, init: bit n set if rn is initialised): 0 to let it
	 * run, else fill c->v (kind IV_HELPER_ARG or IV_UNINIT_REG) and return nonzero. */
	int (*helper_pre)(struct interp_check *c, uint32_t id, const uint64_t *R, uint32_t init);
	/* Before a kfunc call (imm: its kernel BTF id), as helper_pre. */
	int (*kfunc_pre)(struct interp_check *c, int32_t imm, const uint64_t *R, uint32_t init);
	/* After a helper call returned r0. */
	void (*helper_post)(struct interp_check *c, uint32_t id, const uint64_t *R, uint64_t r0);
	void *priv;

	/* Set by the run. */
	struct interp_violation v;
	uint64_t steps;		/* instructions executed */
	uint64_t max_steps;	/* 0: no limit; else stop with -E2BIG after that many */
	/* Live stack frames: [stack_top - (depth + 1) * 512, stack_top). */
	uint64_t stack_top;
	unsigned int depth;
	/* While a callback runs (nested inside a helper the program called), the live frames of
	 * the runs it is nested in, innermost last: their stacks stay accessible (a callback's
	 * ctx usually points into its caller's). */
	struct {
		uint64_t stack_top;
		unsigned int depth;
	} outer[INTERP_MAX_FRAMES];
	unsigned int nouter;
	int insn;		/* index of the instruction being checked */
	int pending_helper;	/* internal: helper id whose helper_post is due, or -1 */
	/* Around each callback run, with the id of the helper that calls it and the callback's
	 * r0..r10 (r1..r5 its arguments), e.g. to allow the memory its arguments point at for the
	 * run's length (may be NULL). */
	void (*callback_pre)(struct interp_check *c, int helper, const uint64_t *R);
	void (*callback_post)(struct interp_check *c, int helper, const uint64_t *R);
	/* Ranges where an atomic may be misaligned (x86 executes it): dynptr slices, whose
	 * offset in the memory below the verifier does not know, as the kernel's does not, so
	 * it checks their atomics' alignment against offset 0.  They make no memory valid. */
	struct {
		uint64_t start, len;
	} unaligned_ok[8];
	unsigned int nunaligned_ok;
};

struct interp_checked_prog;

/* As interp_prepare(), for the checked interpreter.  A callback (LD_IMM64 BPF_PSEUDO_FUNC) runs
 * checked too, as part of the run whose helper calls it: with r1..r5 (its arguments) and r10
 * initialised, its own stack frames, and the frames of the runs it is nested in. */
int interp_checked_prepare(const struct bpf_insn *insns, uint32_t cnt,
			   const struct interp_env *env, struct interp_checked_prog **out);

/* Whether v is the address of one of p's callbacks (what an LD_IMM64 BPF_PSEUDO_FUNC loads). */
bool interp_checked_is_callback(const struct interp_checked_prog *p, uint64_t v);
void interp_checked_free(struct interp_checked_prog *p);

/* As interp_exec(), with checks.  Returns 0, the errors of interp_exec(), -EACCES when a check
 * failed (c->v says which), or -E2BIG when c->max_steps was reached. */
int interp_checked_exec(const struct interp_checked_prog *p, const uint64_t args[5], uint64_t *r0,
			struct interp_check *c);

/* Whether [addr, addr + size) lies inside one live stack frame or one region of c.  Fills c->v
 * (IV_MEM) and returns false if not. */
bool interp_check_mem(struct interp_check *c, uint64_t addr, uint64_t size, bool write);

/* Adds a region; false when the table is full.  _ro: one the program may only read (a cgroup
 * skb program's packet, a BPF_F_RDONLY_PROG map's values, a socket). */
bool interp_check_add(struct interp_check *c, uint64_t start, uint64_t len, const char *what);
bool interp_check_add_ro(struct interp_check *c, uint64_t start, uint64_t len, const char *what);
/* Adds a range of unaligned_ok (the oldest goes when the table is full). */
void interp_check_allow_unaligned(struct interp_check *c, uint64_t start, uint64_t len);

#endif /* USERBPF_EXEC_INTERP_CHECKED_H */
