/* bpf_tail_call(ctx, prog_array, index) at run time, for the interpreter and the JIT.
 *
 * The kernel jumps into the target and never comes back; here the target runs to its end as a
 * call, and the caller then leaves its function at once with the target's r0 (interp.c's
 * XL_TAIL_CALL, the JIT's tail-call sequence).  Nothing the caller would do after the call is
 * observable, so the result is the kernel's: a tail call from the main function ends the
 * program with the target's result, and one from a bpf-to-bpf callee returns that result to
 * the callee's caller, as the kernel's x86 JIT does.  The cost is native stack per nested call
 * (at most MAX_TAIL_CALL_CNT of them).
 *
 * The count of tail calls taken in one run is per thread; a run of a program that has tail
 * calls starts it at 0 (prog_run_reset_tail_calls()).
 */
#include "exec/jit.h"
#include "exec/interp.h"
#include "map/prog_array.h"
#include "prog/prog.h"
#include "prog/run.h"

#define MAX_TAIL_CALL_CNT 33 /* the kernel's: a chain of 33 tail calls, the 34th falls through */

static __thread u32 tail_call_cnt;

void prog_run_reset_tail_calls(void)
{
	tail_call_cnt = 0;
}

int prog_tail_call(u64 ctx, u64 map, u64 index, u64 *r0)
{
	struct bpf_prog *target;

	if (tail_call_cnt >= MAX_TAIL_CALL_CNT)
		return 0;
	target = prog_array_get((struct bpf_map *)(uintptr_t)map, (u32)index);
	if (!target)
		return 0;
	tail_call_cnt++;
	if (target->jit) {
		struct jit_ret ret = jit_entry(target->jit)(ctx, 0, 0, 0, 0);

		int st = (int32_t)(uint32_t)ret.status; /* 0 or -errno, as jit_exec() reads it */

		*r0 = ret.r0;
		return st ? st : 1;
	}
	{
		u64 args[5] = { ctx };
		int err = interp_exec(target->interp, args, r0);

		return err ? err : 1;
	}
}
