/* Runtime contexts: what R1 points at when a program of each type runs.
 *
 * Each begins with the uapi structure the program was written against, so most context loads
 * need no rewriting.  The packet pointers are the exception: the uapi has them as 32-bit fields
 * (__sk_buff.data, xdp_md.data, ...), which cannot hold a pointer, so the verifier rewrites every
 * load of data / data_end / data_meta into a 64-bit load of the pointer fields below, as the
 * kernel's convert_ctx_access() rewrites them into sk_buff / xdp_buff loads.
 */
#ifndef USERBPF_CTX_H
#define USERBPF_CTX_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stddef.h>

#include "util.h"

/* BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_SCHED_ACT */
struct skb_ctx {
	struct __sk_buff uapi;
	_Alignas(8) u8 *data;		/* first byte of the packet (mac header) */
	_Alignas(8) u8 *data_end;	/* one past the last byte */
	_Alignas(8) u8 *data_meta;	/* metadata before data (== data when none) */
};

/* BPF_PROG_TYPE_XDP */
struct xdp_ctx {
	struct xdp_md uapi;
	_Alignas(8) u8 *data;
	_Alignas(8) u8 *data_end;
	_Alignas(8) u8 *data_meta;
	/* The frame's bounds, for bpf_xdp_adjust_head/_meta/_tail: hard_start is the kernel's
	 * data_hard_start (an xdp_frame's room, then headroom, then data); hard_end the last byte
	 * data_end may reach (before skb_shared_info).  NULL hard_start: the frame cannot move.
	 * (Aligned: data_meta above is loaded as 64 bits, which on i386 must end in zero
	 * padding, not in this pointer.) */
	_Alignas(8) u8 *hard_start;
	u8 *hard_end;
	/* Bytes beyond the linear part (the kernel's page frags, which the program cannot
	 * address): nr_frags of them, every one a full page but the last, stored from frags on,
	 * with room for the last to grow to a page. */
	u8 *frags;
	u32 frags_size;
	u32 nr_frags;
};

/* The verifier loads the packet pointers as 64 bits: each must own 8 bytes. */
_Static_assert(offsetof(struct xdp_ctx, hard_start) >= offsetof(struct xdp_ctx, data_meta) + 8,
	       "xdp_ctx.data_meta must be followed by padding on 32-bit targets");

#define XDP_FRAME_SIZE 40u	/* sizeof(struct xdp_frame): kept free at data_hard_start */
#define XDP_META_MAX 255u	/* skb_shared_info.meta_len is a u8 */
#define XDP_FRAG_SIZE 4096u	/* a frag's page, the test run's rxq frag_size */

#endif
