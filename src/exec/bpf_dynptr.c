/* The dynptr helpers (bpf_dynptr.h), as the kernel's kernel/bpf/helpers.c and ringbuf.c define
 * them: sizes below 2^24, offsets and lengths checked against the dynptr's size (-E2BIG), flags
 * 0 (-EINVAL), memmove() for copies (a local dynptr may overlap the other side).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/bpf_dynptr.h"
#include "exec/ctx.h"
#include "exec/helpers/impl.h"
#include "map/ringbuf.h"

/* The kernel's struct bpf_dynptr_kern, which fits the program's 16 bytes: size holds the
 * length in its low 24 bits, the kind above (bit 31: read-only).  A packet's dynptr (skb, XDP)
 * has the program's context as its data: its bytes are the packet's, wherever it now is. */
struct dynptr {
	u8 *data;
	u32 size;
	u32 offset;
};

#define DYNPTR_MAX_SIZE ((1u << 24) - 1)
#define DYNPTR_SIZE_MASK 0xffffffu
#define DYNPTR_TYPE_SHIFT 28
#define DYNPTR_RDONLY_BIT (1u << 31)
enum { DYNPTR_LOCAL = 1, DYNPTR_RINGBUF = 2, DYNPTR_SKB = 3, DYNPTR_XDP = 4 }; /* (the
										       * kernel's) */

_Static_assert(sizeof(struct dynptr) <= 16, "a dynptr is 16 bytes of the program's stack");

static struct dynptr *dynptr_at(u64 p)
{
	return (struct dynptr *)(uintptr_t)p;
}

static u32 dynptr_type(const struct dynptr *d)
{
	return d->size >> DYNPTR_TYPE_SHIFT & 7;
}

/* The first byte of the dynptr's view (the packet's for a packet dynptr: userbpf's frames keep
 * an XDP frame's frags right after its linear part, and skbs are linear). */
static u8 *view(const struct dynptr *d)
{
	switch (dynptr_type(d)) {
	case DYNPTR_SKB:
		return ((const struct skb_ctx *)(const void *)d->data)->data + d->offset;
	case DYNPTR_XDP:
		return ((const struct xdp_ctx *)(const void *)d->data)->data + d->offset;
	default:
		return d->data + d->offset;
	}
}

static bool is_pkt(const struct dynptr *d)
{
	return dynptr_type(d) == DYNPTR_SKB || dynptr_type(d) == DYNPTR_XDP;
}

static void dynptr_init(struct dynptr *d, void *data, u32 type, u32 size)
{
	d->data = data;
	d->offset = 0;
	d->size = size | type << DYNPTR_TYPE_SHIFT;
}

static void dynptr_set_null(struct dynptr *d)
{
	memset(d, 0, sizeof(*d));
}

static u32 dynptr_size(const struct dynptr *d)
{
	return d->size & DYNPTR_SIZE_MASK;
}

/* Whether [offset, offset + len) lies within the dynptr. */
static bool dynptr_range_ok(const struct dynptr *d, u32 offset, u32 len)
{
	u32 size = dynptr_size(d);

	return len <= size && offset <= size - len;
}

u64 bpf_dynptr_from_mem_helper(u64 data, u64 size, u64 flags, u64 ptr, u64 a5)
{
	struct dynptr *d = dynptr_at(ptr);
	u32 sz = (u32)size;

	if (sz > DYNPTR_MAX_SIZE) {
		dynptr_set_null(d);
		return (u64)-E2BIG;
	}
	if (flags) {
		dynptr_set_null(d);
		return (u64)-EINVAL;
	}
	dynptr_init(d, (void *)(uintptr_t)data, DYNPTR_LOCAL, sz);
	return 0;
}

u64 bpf_dynptr_read_helper(u64 dst, u64 len, u64 src, u64 offset, u64 flags)
{
	const struct dynptr *d = dynptr_at(src);

	if (!d->data || flags)
		return (u64)-EINVAL;
	if (!dynptr_range_ok(d, (u32)offset, (u32)len))
		return (u64)-E2BIG;
	memmove((void *)(uintptr_t)dst, view(d) + (u32)offset, (u32)len);
	return 0;
}

u64 bpf_dynptr_write_helper(u64 dst, u64 offset, u64 src, u64 len, u64 flags)
{
	const struct dynptr *d = dynptr_at(dst);

	if (!d->data || (d->size & DYNPTR_RDONLY_BIT))
		return (u64)-EINVAL;
	if (!dynptr_range_ok(d, (u32)offset, (u32)len))
		return (u64)-E2BIG;
	/* an skb's takes bpf_skb_store_bytes()'s flags (its checksum kept up to date) */
	if (dynptr_type(d) == DYNPTR_SKB)
		return h_skb_store_bytes((u64)(uintptr_t)d->data, d->offset + (u32)offset, src,
					 (u32)len, flags);
	if (flags)
		return (u64)-EINVAL;
	memmove(view(d) + (u32)offset, (const void *)(uintptr_t)src, (u32)len);
	return 0;
}

/* A pointer to len bytes at offset, or NULL (the verifier made the program check). */
u64 bpf_dynptr_data_helper(u64 ptr, u64 offset, u64 len, u64 a4, u64 a5)
{
	const struct dynptr *d = dynptr_at(ptr);

	/* (a packet's: through bpf_dynptr_slice() only) */
	if (!d->data || !dynptr_range_ok(d, (u32)offset, (u32)len) ||
	    (d->size & DYNPTR_RDONLY_BIT) || is_pkt(d))
		return 0;
	return (u64)(uintptr_t)(view(d) + (u32)offset);
}

/* A record of size bytes as a dynptr; on failure a NULL dynptr, which must still be submitted
 * or discarded (the verifier holds the program to it either way). */
u64 bpf_ringbuf_reserve_dynptr_helper(u64 map, u64 size, u64 flags, u64 ptr, u64 a5)
{
	struct dynptr *d = dynptr_at(ptr);
	u32 sz = (u32)size;
	void *rec;

	if (flags) {
		dynptr_set_null(d);
		return (u64)-EINVAL;
	}
	if (sz > DYNPTR_MAX_SIZE) {
		dynptr_set_null(d);
		return (u64)-E2BIG;
	}
	rec = ringbuf_reserve((struct bpf_map *)(uintptr_t)map, sz, 0);
	if (!rec) {
		dynptr_set_null(d);
		return (u64)-EINVAL;
	}
	dynptr_init(d, rec, DYNPTR_RINGBUF, sz);
	return 0;
}

static u64 ringbuf_end_dynptr(u64 ptr, bool discard)
{
	struct dynptr *d = dynptr_at(ptr);

	if (!d->data)
		return 0;
	ringbuf_commit(d->data, discard);
	dynptr_set_null(d);
	return 0;
}

/* (the flags only choose how a kernel consumer is woken, as for bpf_ringbuf_submit()) */
u64 bpf_ringbuf_submit_dynptr_helper(u64 ptr, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return ringbuf_end_dynptr(ptr, false);
}

u64 bpf_ringbuf_discard_dynptr_helper(u64 ptr, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return ringbuf_end_dynptr(ptr, true);
}

bool bpf_dynptr_bytes(const void *p, u64 *start, u32 *len)
{
	const struct dynptr *d = p;

	if (!d->data)
		return false;
	*start = (u64)(uintptr_t)view(d);
	*len = dynptr_size(d);
	return true;
}

u64 bpf_dynptr_base(const void *p)
{
	return (u64)(uintptr_t)((const struct dynptr *)p)->data;
}

void bpf_dynptr_init_local(void *p, void *data, u32 size)
{
	dynptr_init(p, data, DYNPTR_LOCAL, size);
}

/* ---- the dynptr kfuncs (kernel/bpf/helpers.c's bpf_dynptr_*() kfuncs) ----
 * Their int, u32 and bool results come back zero-extended from 32 bits: what the kernel's
 * compiled kfuncs leave in rax, and so what a program sees in r0 there. */

static u64 ret32(int v)
{
	return (u64)(u32)v;
}

u64 bpf_dynptr_size_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const struct dynptr *d = dynptr_at(p);

	return d->data ? dynptr_size(d) : ret32(-EINVAL);
}

u64 bpf_dynptr_is_null_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return !dynptr_at(p)->data;
}

u64 bpf_dynptr_is_rdonly_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const struct dynptr *d = dynptr_at(p);

	return d->data && (d->size & DYNPTR_RDONLY_BIT);
}

/* The view becomes [start, end) of what it was. */
u64 bpf_dynptr_adjust_kfunc(u64 p, u64 start, u64 end, u64 a4, u64 a5)
{
	struct dynptr *d = dynptr_at(p);
	u32 s = (u32)start, e = (u32)end, size;

	if (!d->data || s > e)
		return ret32(-EINVAL);
	size = dynptr_size(d);
	if (s > size || e > size)
		return ret32(-ERANGE);
	d->offset += s;
	d->size = (d->size & ~DYNPTR_SIZE_MASK) | (e - s);
	return 0;
}

/* Where len bytes at offset of a dynptr in range are: in place, except for an XDP frame's
 * bytes across its linear part and a frag, or two frags (the kernel's bpf_xdp_pointer()
 * fails there), which go to the buffer (NULL without one).  (userbpf's skbs are linear.) */
static void *xdp_slice(const struct dynptr *d, u32 offset, u32 len, void *buffer)
{
	const struct xdp_ctx *x = (const void *)d->data;
	u64 at = d->offset + (u64)offset, lin;

	if (dynptr_type(d) != DYNPTR_XDP || !len || !x->nr_frags)
		return view(d) + offset;
	lin = (u64)(x->data_end - x->data);
	if (at + len > lin && (at < lin || (at - lin) / 4096 != (at - lin + len - 1) / 4096)) {
		if (!buffer)
			return NULL;
		memcpy(buffer, view(d) + offset, len);
		return buffer;
	}
	return view(d) + offset;
}

/* A pointer to len bytes at offset of the dynptr, or NULL. */
u64 bpf_dynptr_slice_kfunc(u64 p, u64 offset, u64 buffer, u64 len, u64 a5)
{
	const struct dynptr *d = dynptr_at(p);

	if (!d->data || !dynptr_range_ok(d, (u32)offset, (u32)len))
		return 0;
	return (u64)(uintptr_t)xdp_slice(d, (u32)offset, (u32)len, (void *)(uintptr_t)buffer);
}

u64 bpf_dynptr_slice_rdwr_kfunc(u64 p, u64 offset, u64 buffer, u64 len, u64 a5)
{
	const struct dynptr *d = dynptr_at(p);

	if (!d->data || (d->size & DYNPTR_RDONLY_BIT))
		return 0;
	return bpf_dynptr_slice_kfunc(p, offset, buffer, len, a5);
}

/* The clone views what p views (a ring buffer one shares its record: the verifier releases
 * every clone with it). */
u64 bpf_dynptr_clone_kfunc(u64 p, u64 clone, u64 a3, u64 a4, u64 a5)
{
	const struct dynptr *d = dynptr_at(p);

	if (!d->data) {
		dynptr_set_null(dynptr_at(clone));
		return ret32(-EINVAL);
	}
	*dynptr_at(clone) = *d;
	return 0;
}

/* A dynptr over the skb's bytes (the skb: the program's context). */
u64 bpf_dynptr_from_skb_kfunc(u64 skb, u64 flags, u64 p, u64 a4, u64 a5)
{
	struct dynptr *d = dynptr_at(p);

	if (flags) {
		dynptr_set_null(d);
		return ret32(-EINVAL);
	}
	/* (the skb's bytes from its data on: linear here) */
	dynptr_init(d, (void *)(uintptr_t)skb, DYNPTR_SKB,
		    (u32)(((const struct skb_ctx *)(uintptr_t)skb)->data_end -
			  ((const struct skb_ctx *)(uintptr_t)skb)->data));
	return 0;
}

u64 bpf_dynptr_from_skb_rdonly_kfunc(u64 skb, u64 flags, u64 p, u64 a4, u64 a5)
{
	u64 err = bpf_dynptr_from_skb_kfunc(skb, flags, p, a4, a5);

	if (!err)
		dynptr_at(p)->size |= DYNPTR_RDONLY_BIT;
	return err;
}

/* A dynptr over the frame's bytes, its frags included. */
u64 bpf_dynptr_from_xdp_kfunc(u64 xdp, u64 flags, u64 p, u64 a4, u64 a5)
{
	const struct xdp_ctx *x = (const struct xdp_ctx *)(uintptr_t)xdp;
	struct dynptr *d = dynptr_at(p);

	if (flags) {
		dynptr_set_null(d);
		return ret32(-EINVAL);
	}
	dynptr_init(d, (void *)(uintptr_t)xdp, DYNPTR_XDP,
		    (u32)(x->data_end - x->data) + x->frags_size);
	return 0;
}

/* size bytes from src at src_off to dst at dst_off (the views may overlap); a NULL, read-only
 * or too small dynptr fails as the kernel's helpers fail: what it tries first (both views
 * whole), then the write into dst, then the read from src decide the error. */
u64 bpf_dynptr_copy_kfunc(u64 dst, u64 dst_off, u64 src, u64 src_off, u64 size)
{
	struct dynptr *d = dynptr_at(dst);
	const struct dynptr *s = dynptr_at(src);
	u32 n = (u32)size;
	bool d_ok = d->data && !(d->size & DYNPTR_RDONLY_BIT) && dynptr_range_ok(d, (u32)dst_off, n);
	bool s_ok = s->data && dynptr_range_ok(s, (u32)src_off, n);

	if (d_ok && s_ok) {
		memmove(view(d) + (u32)dst_off, view(s) + (u32)src_off, n);
		return 0;
	}
	if (s_ok) /* the write into dst fails */
		return ret32(!d->data || (d->size & DYNPTR_RDONLY_BIT) ? -EINVAL : -E2BIG);
	if (d_ok) /* the read from src fails */
		return ret32(!s->data ? -EINVAL : -E2BIG);
	return dynptr_range_ok(d, (u32)dst_off, n) && dynptr_range_ok(s, (u32)src_off, n)
		       ? 0 : ret32(-E2BIG);
}

/* size bytes at offset set to val. */
u64 bpf_dynptr_memset_kfunc(u64 p, u64 offset, u64 size, u64 val, u64 a5)
{
	struct dynptr *d = dynptr_at(p);
	u32 n = (u32)size;

	if (d->size & DYNPTR_RDONLY_BIT)
		return ret32(-EINVAL);
	if (!dynptr_range_ok(d, (u32)offset, n))
		return ret32(-E2BIG);
	if (d->data)
		memset(view(d) + (u32)offset, (u8)val, n);
	return 0;
}

/* ---- probe reads into a dynptr (6.16): bpf_probe_read_{user,kernel}{,_str}_dynptr() ---- */

/* Reads of this process's memory a page at a time (one system call per page, not per byte):
 * what the kernel's nofault copies read, byte by byte or word by word. */
struct src_cursor {
	uintptr_t page; /* the page held in buf, or 1 (none) */
	bool ok;	/* it could be read */
	u8 buf[4096];
};

static bool src_byte(struct src_cursor *c, uintptr_t a, u8 *v)
{
	uintptr_t page = a & ~(uintptr_t)4095;

	if (c->page != page) {
		c->page = page;
		c->ok = page && copy_nofault(c->buf, (const void *)page, sizeof(c->buf));
	}
	if (!c->ok)
		return false;
	*v = c->buf[a - page];
	return true;
}

typedef int (*copy_in_fn)(u8 *dst, u64 src, u32 n);

/* copy_from_kernel_nofault(): -ERANGE where the kernel's own memory cannot be (here: no mapping
 * can hold it, nofault_allowed()), -EFAULT if a byte cannot be read. */
static int copy_kernel_data(u8 *dst, u64 src, u32 n)
{
	if (!nofault_allowed(src))
		return -ERANGE;
	return src <= UINTPTR_MAX && copy_nofault(dst, (const void *)(uintptr_t)src, n) ? 0
										    : -EFAULT;
}

/* copy_from_user_nofault(): -EFAULT past user space (USER_PTR_MAX; empty copies too, as its
 * __access_ok()) or if a byte cannot be read. */
static int copy_user_data(u8 *dst, u64 src, u32 n)
{
	if (src + n < src || src + n > USER_PTR_MAX)
		return -EFAULT;
	return !n || (src <= UINTPTR_MAX && copy_nofault(dst, (const void *)(uintptr_t)src, n))
		       ? 0 : -EFAULT;
}

/* strncpy_from_user() on x86-64: words while 8 bytes remain (the word holding the NUL written
 * whole, its bytes after the NUL zeroed), then bytes; the string's length (its NUL copied), or
 * count (no NUL), or -EFAULT. */
static int strncpy_user(u8 *dst, u64 src, u32 count)
{
	struct src_cursor *c;
	u32 res = 0, max = count;
	int ret = -EFAULT;

	if (!count)
		return 0;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->page = 1;
	if (src > UINTPTR_MAX) /* (past a 32-bit process's reach) */
		max = 0;
	while (max >= 8) {
		u8 w[8];
		u32 z = 8;

		for (u32 i = 0; i < 8; i++)
			if (!src_byte(c, (uintptr_t)src + res + i, &w[i]))
				goto bytes; /* (a fault in the word: byte by byte from here) */
		for (u32 i = 0; i < 8 && z == 8; i++)
			if (!w[i])
				z = i;
		if (z < 8) {
			memset(w + z, 0, 8 - z);
			memcpy(dst + res, w, 8);
			ret = (int)(res + z);
			goto done;
		}
		memcpy(dst + res, w, 8);
		res += 8;
		max -= 8;
	}
bytes:
	while (max) {
		u8 v;

		if (!src_byte(c, (uintptr_t)src + res, &v))
			goto done; /* -EFAULT */
		dst[res] = v;
		if (!v) {
			ret = (int)res;
			goto done;
		}
		res++;
		max--;
	}
	if (res < count)
		goto done; /* -EFAULT */
	ret = (int)res; /* (res == count: the whole count read) */
done:
	free(c);
	return ret;
}

/* strncpy_from_user_nofault(): the length with the NUL, or count with the last byte made a
 * NUL, or -EFAULT. */
static int copy_user_str(u8 *dst, u64 src, u32 count)
{
	int ret = strncpy_user(dst, src, count);

	if (ret >= (int)count && count) {
		ret = (int)count;
		dst[ret - 1] = 0;
	} else if (ret >= 0 && count) {
		ret++;
	}
	return ret;
}

/* The sleepable string copy (copy_user_str_sleepable()): strncpy_from_user() of one byte less
 * than count, then a NUL after what it copied; the length with the NUL, or -EFAULT. */
static int copy_user_str_sleepable(u8 *dst, u64 src, u32 count)
{
	int ret;

	if (!count)
		return 0;
	ret = strncpy_user(dst, src, count - 1);
	if (ret < 0)
		return ret;
	dst[ret] = 0;
	return ret + 1;
}

/* strncpy_from_kernel_nofault(): byte by byte up to the NUL or count, the last byte made a
 * NUL; the bytes copied, -ERANGE (as copy_kernel_data()), or -EFAULT with a NUL where the read
 * failed. */
static int copy_kernel_str(u8 *dst, u64 src, u32 count)
{
	struct src_cursor *c;
	u32 i = 0;
	u8 v;

	if (!count)
		return 0;
	if (!nofault_allowed(src))
		return -ERANGE;
	if (src > UINTPTR_MAX) {
		dst[0] = 0;
		return -EFAULT;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->page = 1;
	do {
		if (!src_byte(c, (uintptr_t)src + i, &v)) {
			dst[i] = 0;
			free(c);
			return -EFAULT;
		}
		dst[i++] = v;
	} while (v && i < count);
	dst[i - 1] = 0;
	free(c);
	return (int)i;
}

/* The kernel's __bpf_dynptr_copy() and, for str, __bpf_dynptr_copy_str(): straight into the
 * dynptr where it is writable and holds [off, off + size) in one piece; else -E2BIG out of
 * range, or 256-byte chunks copied, then written (a read-only or NULL dynptr: -EINVAL, once the
 * first chunk is read).  copy returns 0 for data; for a string the length with its NUL, each
 * chunk then overlapping the last one's NUL, and the copy ending at the string's end (that
 * length is returned). */
static u64 dynptr_copy_in(u64 p, u64 off, u64 size, u64 src, copy_in_fn copy, bool str)
{
	const struct dynptr *d = dynptr_at(p);
	u8 buf[256];
	u64 dsize = dynptr_size(d);
	u8 *slice = NULL;
	u64 at;

	if (d->data && !(d->size & DYNPTR_RDONLY_BIT) && size <= dsize && off <= dsize - size)
		slice = xdp_slice(d, (u32)off, (u32)size, NULL);
	if (slice)
		return ret32(copy(slice, src, (u32)size));
	if (size > dsize || off > dsize - size)
		return ret32(-E2BIG);
	for (at = 0; at < size;) {
		u32 n = size - at < sizeof(buf) ? (u32)(size - at) : (u32)sizeof(buf);
		int cnt = copy(buf, src + at, n);
		u64 w;

		if (cnt < 0)
			return ret32(cnt);
		w = bpf_dynptr_write_helper(p, off + at, (u64)(uintptr_t)buf, str ? (u32)cnt : n, 0);
		if (w)
			return w & 0xffffffffu;
		if (!str) {
			at += n;
			continue;
		}
		if ((u32)cnt < n || n == 1)
			return ret32((int)(at + (u32)cnt));
		at += n - 1;
	}
	return str ? ret32((int)at) : 0;
}

/* (offset and size are u32 arguments in 6.18: their registers' upper halves do not count) */
u64 bpf_probe_read_user_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_user_data, false);
}

u64 bpf_probe_read_kernel_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_kernel_data, false);
}

u64 bpf_probe_read_user_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_user_str, true);
}

u64 bpf_probe_read_kernel_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_kernel_str, true);
}

/* The sleepable forms (KF_SLEEPABLE): copy_from_user() where the probe reads use the nofault
 * copy (partial copies zero-filled; for strings: one byte less read, a NUL after the copy). */
u64 bpf_copy_from_user_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_from_user_emul, false);
}

u64 bpf_copy_from_user_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5)
{
	return dynptr_copy_in(p, (u32)off, (u32)size, src, copy_user_str_sleepable, true);
}

/* bpf_copy_from_user_str(dst, dst__sz, src, flags): unknown flags -EINVAL first; a string of
 * at most dst__sz - 1 bytes and its NUL, the length with the NUL returned; BPF_F_PAD_ZEROS
 * zeroes the rest of dst, or all of it on -EFAULT (else dst keeps what was copied). */
#define PAD_ZEROS 1 /* BPF_F_PAD_ZEROS (6.12 uapi) */

u64 bpf_copy_from_user_str_kfunc(u64 dst, u64 size, u64 src, u64 flags, u64 a5)
{
	u8 *d = (u8 *)(uintptr_t)dst;
	u32 n = (u32)size;
	int ret;

	if (flags & ~(u64)PAD_ZEROS)
		return ret32(-EINVAL);
	ret = copy_user_str_sleepable(d, src, n);
	if ((flags & PAD_ZEROS) && n) /* (after the NUL; all of it on -EFAULT) */
		memset(d + (ret < 0 ? 0 : ret), 0, n - (ret < 0 ? 0 : (u32)ret));
	return ret32(ret);
}
