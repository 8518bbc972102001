/* func_args.c — the helpers of a trampoline program (fentry, fexit, fmod_ret): the traced
 * function's arguments, return value and address, and the link's cookie, read from below the
 * ctx where the trampoline keeps them (TRAMP_CTX, src/prog/trampoline.c).  The kernel's
 * verifier inlines them to the same reads.
 */
#include <errno.h>

#include "exec/helpers/impl.h"

static const u64 *frame_of(u64 ctx)
{
	return (const u64 *)PTR(ctx);
}

u64 h_get_func_arg(u64 ctx, u64 n, u64 value, u64 a4, u64 a5)
{
	const u64 *c = frame_of(ctx);

	if (n >= (c[-1] & 0xff))
		return (u64)-EINVAL;
	*(u64 *)PTR(value) = c[n];
	return 0;
}

u64 h_get_func_ret(u64 ctx, u64 value, u64 a3, u64 a4, u64 a5)
{
	const u64 *c = frame_of(ctx);

	if (!(c[-1] & TRAMP_ARGS_RET)) /* fentry: there is none yet */
		return (u64)-EOPNOTSUPP;
	*(u64 *)PTR(value) = c[c[-1] & 0xff];
	return 0;
}

u64 h_get_func_arg_cnt(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return frame_of(ctx)[-1] & 0xff;
}

u64 h_get_func_ip_tracing(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return frame_of(ctx)[-2];
}

u64 h_get_attach_cookie_tracing(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return frame_of(ctx)[-3];
}
