/* callback.h — BPF functions that helpers call back (bpf_loop, bpf_for_each_map_elem).
 *
 * A program names a callback with an LD_IMM64 whose src_reg is BPF_PSEUDO_FUNC and whose imm is
 * the callback's first instruction relative to the LD_IMM64's end (as a bpf-to-bpf call's).  The
 * instructions keep that form after verification; each engine resolves it when it prepares the
 * program: the register gets the address of a struct exec_callback the prepared program owns
 * (one per callback function), which is what the helper receives in its callback argument.  The
 * verifier only lets a program pass that value to a helper that takes a callback.
 *
 * A call runs the function like a fresh run of the program entered at the callback's first
 * instruction: r1..r5 the arguments, r10 the top of a new stack, r0 the result.  The caller's
 * stack stays where it is (a callback's ctx argument often points into it).
 */
#ifndef USERBPF_EXEC_CALLBACK_H
#define USERBPF_EXEC_CALLBACK_H

#include <stdint.h>

struct exec_callback {
	/* Runs the callback with r1..r5; returns its r0 (0 if the run failed, which a verified
	 * program does not do). */
	uint64_t (*call)(const struct exec_callback *cb, uint64_t r1, uint64_t r2, uint64_t r3,
			 uint64_t r4, uint64_t r5);
	/* The program it is code of (interp_env.owner), for a helper that keeps the callback
	 * past the run (bpf_timer_set_callback() holds the program); NULL: none. */
	void *owner;
};

/* The helpers' side: v is the callback argument register's value. */
static inline uint64_t exec_callback_call(uint64_t v, uint64_t r1, uint64_t r2, uint64_t r3,
					  uint64_t r4, uint64_t r5)
{
	const struct exec_callback *cb = (const struct exec_callback *)(uintptr_t)v;

	return cb->call(cb, r1, r2, r3, r4, r5);
}

#endif /* USERBPF_EXEC_CALLBACK_H */
