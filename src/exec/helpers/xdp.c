/* xdp.c — XDP frame geometry: adjust_head/meta/tail, the buffer length, loads and stores
 * across fragments.
 */

#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

#define ETH_HLEN 14

/* bpf_xdp_adjust_head(xdp, offset): data moves by offset, staying at least ETH_HLEN before
 * data_end and after the xdp_frame room and the metadata, which moves along with data. */
u64 h_xdp_adjust_head(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off;
	size_t metalen = (size_t)(x->data - x->data_meta);

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	/* in integers: the bounds are compared before anything points outside the frame */
	if ((s64)(x->data - x->hard_start) + offset < (s64)(XDP_FRAME_SIZE + metalen) ||
	    (s64)(x->data_end - x->data) - offset < ETH_HLEN)
		return (u64)-EINVAL;
	if (metalen)
		memmove(x->data_meta + offset, x->data_meta, metalen);
	x->data_meta += offset;
	x->data += offset;
	return 0;
}

/* bpf_xdp_adjust_meta(xdp, offset): data_meta moves by offset, between the xdp_frame room and
 * data; the metadata must stay a multiple of 4 bytes and below 256. */
u64 h_xdp_adjust_meta(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off, pos = (s64)(x->data_meta - x->hard_start) + offset;
	s64 metalen = (s64)(x->data - x->hard_start) - pos;

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	if (pos < XDP_FRAME_SIZE || metalen < 0)
		return (u64)-EINVAL;
	if ((metalen & 3) || metalen > XDP_META_MAX)
		return (u64)-EACCES;
	x->data_meta += offset;
	return 0;
}

/* The multi-buffer half of bpf_xdp_adjust_tail(): grow the last frag inside its page, or free
 * bytes from the end, frag by frag, then from the linear part once no frag is left. */
static u64 xdp_frags_adjust_tail(struct xdp_ctx *x, s64 offset)
{
	u32 last = x->frags_size - (x->nr_frags - 1) * XDP_FRAG_SIZE;

	if (offset > 0) {
		if (offset > XDP_FRAG_SIZE - last)
			return (u64)-EINVAL;
		memset(x->frags + x->frags_size, 0, (size_t)offset);
		x->frags_size += (u32)offset;
		return 0;
	}
	offset = -offset;
	if (offset > (s64)(x->data_end - x->data) + x->frags_size - ETH_HLEN)
		return (u64)-EINVAL;
	if (offset < x->frags_size) {
		x->frags_size -= (u32)offset;
		x->nr_frags = (x->frags_size + XDP_FRAG_SIZE - 1) / XDP_FRAG_SIZE;
		return 0;
	}
	offset -= x->frags_size;
	x->frags_size = 0;
	x->nr_frags = 0;
	x->data_end -= offset;
	return 0;
}

/* bpf_xdp_adjust_tail(xdp, offset): data_end moves by offset, up to hard_end and at least
 * ETH_HLEN after data; grown bytes read as zero. */
u64 h_xdp_adjust_tail(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off;

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	if (x->nr_frags)
		return xdp_frags_adjust_tail(x, offset);
	if (offset > x->hard_end - x->data_end || (s64)(x->data_end - x->data) + offset < ETH_HLEN)
		return (u64)-EINVAL;
	if (offset > 0)
		memset(x->data_end, 0, (size_t)offset);
	x->data_end += offset;
	return 0;
}

/* bpf_xdp_get_buff_len(xdp): the linear part and the frags. */
u64 h_xdp_get_buff_len(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const struct xdp_ctx *x = PTR(ctx);

	return (u64)(x->data_end - x->data) + x->frags_size;
}

/* The bytes [offset, offset + len) of the frame, linear part and frags (which follow it in
 * memory here), for bpf_xdp_load_bytes / _store_bytes; NULL with *err set when out of range. */
static u8 *xdp_bytes(const struct xdp_ctx *x, u64 off, u64 len, u64 *err)
{
	u32 offset = (u32)off, n = (u32)len;

	if (offset > 0xffff || n > 0xffff) {
		*err = (u64)-EFAULT;
		return NULL;
	}
	if ((u64)offset + n > (u64)(x->data_end - x->data) + x->frags_size) {
		*err = (u64)-EINVAL;
		return NULL;
	}
	return x->data + offset;
}

u64 h_xdp_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	u64 err = 0;
	const u8 *p = xdp_bytes(PTR(ctx), off, len, &err);

	if (p)
		memcpy(PTR(to), p, (u32)len);
	return err;
}

u64 h_xdp_store_bytes(u64 ctx, u64 off, u64 from, u64 len, u64 a5)
{
	u64 err = 0;
	u8 *p = xdp_bytes(PTR(ctx), off, len, &err);

	if (p)
		memcpy(p, PTR(from), (u32)len);
	return err;
}
