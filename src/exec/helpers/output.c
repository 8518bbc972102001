/* output.c — what programs send to user space: ring buffer records (src/map/ringbuf.h),
 * the user ring buffer drain, perf event output (src/map/perf_event_array.h).
 */

#include "exec/bpf_dynptr.h"
#include "exec/callback.h"
#include "map/map.h"
#include "map/perf_event_array.h"
#include "map/ringbuf.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

u64 h_ringbuf_output(u64 map, u64 data, u64 size, u64 flags, u64 a5)
{
	return (u64)(s64)ringbuf_output(PTR(map), PTR(data), size, flags);
}

u64 h_ringbuf_reserve(u64 map, u64 size, u64 flags, u64 a4, u64 a5)
{
	return (u64)(uintptr_t)ringbuf_reserve(PTR(map), size, flags);
}

/* (the flags only choose how a kernel consumer is woken: nothing to check or do here) */
u64 h_ringbuf_submit(u64 sample, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ringbuf_commit(PTR(sample), false);
	return 0;
}

u64 h_ringbuf_discard(u64 sample, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ringbuf_commit(PTR(sample), true);
	return 0;
}

/* bpf_user_ringbuf_drain(map, callback, ctx, flags): each submitted record, in order, to the
 * callback as a local dynptr (read-write, as the kernel's) with ctx, until none is left, the
 * callback returns 1 or 128Ki records were drained; the count of records drained (discarded
 * ones skipped), -EBUSY while another drain runs, -EINVAL or -E2BIG for a bad record. */
#define USER_RINGBUF_MAX_SAMPLES (128 * 1024) /* the kernel's BPF_MAX_USER_RINGBUF_SAMPLES */
u64 h_user_ringbuf_drain(u64 map, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);
	long samples, discarded = 0;
	u64 ret = 0;

	if (flags & ~(u64)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
		return (u64)-EINVAL;
	if (user_ringbuf_begin(m))
		return (u64)-EBUSY;
	for (samples = 0; samples < USER_RINGBUF_MAX_SAMPLES && !ret; samples++) {
		u64 dynptr[2];
		void *sample;
		u32 size;
		int err = user_ringbuf_peek(m, &sample, &size);

		if (err == -ENODATA)
			break;
		if (err == -EAGAIN) {
			discarded++;
			continue;
		}
		if (err) {
			user_ringbuf_end(m);
			return (u64)(s64)err;
		}
		bpf_dynptr_init_local(dynptr, sample, size);
		ret = exec_callback_call(callback, (u64)(uintptr_t)dynptr, ctx, 0, 0, 0);
		user_ringbuf_consume(m, size);
	}
	user_ringbuf_end(m);
	return (u64)(samples - discarded);
}

u64 h_ringbuf_query(u64 map, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return ringbuf_query(PTR(map), flags);
}

/* ---- perf event output (src/map/perf_event_array.h) ---- */

/* bpf_perf_event_output(ctx, map, flags, data, size) of tracing programs: flags is the slot. */
u64 h_perf_event_output(u64 ctx, u64 map, u64 flags, u64 data, u64 size)
{
	if (flags & ~(u64)BPF_F_INDEX_MASK)
		return (u64)-EINVAL;
	return (u64)(s64)perf_event_array_output(PTR(map), flags, PTR(data), (u32)size, NULL, 0);
}

/* The skb and XDP forms: the upper bits of flags (BPF_F_CTXLEN_MASK) ask for that many bytes of
 * the packet, from its start, after data (the kernel's bpf_skb_event_output(),
 * bpf_xdp_event_output()); avail is how many it has. */
static u64 pkt_event_output(u64 map, u64 flags, u64 meta, u64 meta_size, const u8 *pkt,
			    u64 avail)
{
	u64 n = (flags & BPF_F_CTXLEN_MASK) >> 32;

	if (flags & ~(u64)(BPF_F_CTXLEN_MASK | BPF_F_INDEX_MASK))
		return (u64)-EINVAL;
	if (n > avail)
		return (u64)-EFAULT;
	return (u64)(s64)perf_event_array_output(PTR(map), flags, PTR(meta), (u32)meta_size, pkt,
						 (u32)n);
}

u64 h_skb_event_output(u64 ctx, u64 map, u64 flags, u64 meta, u64 meta_size)
{
	const struct skb_ctx *c = PTR(ctx);

	return pkt_event_output(map, flags, meta, meta_size, c->data,
				(u64)(c->data_end - c->data));
}

/* (the frags follow the linear part in memory here) */
u64 h_xdp_event_output(u64 ctx, u64 map, u64 flags, u64 meta, u64 meta_size)
{
	const struct xdp_ctx *x = PTR(ctx);

	return pkt_event_output(map, flags, meta, meta_size, x->data,
				(u64)(x->data_end - x->data) + x->frags_size);
}
