/* csum.c — checksum helpers (bpf_csum_diff, bpf_l3/l4_csum_replace), the kernel's
 * include/net/checksum.h arithmetic in memory byte order.
 */

#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

/* The kernel's csum_partial() on x86-64: the ones' complement sum of len bytes as little-endian
 * words (a last odd byte as the low byte of its word), seeded, as 32 bits. */
static u32 csum_partial(const u8 *p, u32 len, u32 seed)
{
	u64 sum = seed;
	u32 i = 0, w;
	u16 h;

	for (; len - i >= 4; i += 4) { /* (2^32 words before the u64 could overflow) */
		memcpy(&w, p + i, 4);
		sum += w;
	}
	if (len - i >= 2) {
		memcpy(&h, p + i, 2);
		sum += h;
		i += 2;
	}
	if (i < len)
		sum += p[i];
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	return (u32)sum;
}

static u32 csum_add32(u32 a, u32 b)
{
	u32 r = a + b;

	return r + (r < b);
}

/* csum_fold(): the complemented 16-bit fold */
static u16 csum_fold(u32 sum)
{
	return (u16)~csum_fold16(sum);
}

static u16 csum16_add(u16 a, u16 b)
{
	u16 r = (u16)(a + b);

	return (u16)(r + (r < b));
}

/* bpf_csum_diff(from, from_size, to, to_size, seed): 6.18's sum(to) + seed - sum(from), folded
 * to 16 bits (not complemented), for any sizes (the verifier bounds them; 6.1 wanted multiples
 * of 4 and 512 bytes in all, and returned 32 bits). */
u64 h_csum_diff(u64 from, u64 from_size, u64 to, u64 to_size, u64 seed)
{
	u32 fs = (u32)from_size, ts = (u32)to_size, sum;

	if (!fs)
		sum = csum_partial(PTR(to), ts, (u32)seed);
	else if (!ts)
		sum = ~csum_partial(PTR(from), fs, ~(u32)seed);
	else
		sum = csum_add32(csum_partial(PTR(to), ts, (u32)seed), ~csum_partial(PTR(from), fs, 0));
	return csum_fold16(sum);
}

/* The 16-bit checksum field at offset of an skb's packet, for the replace helpers: NULL (then
 * -EFAULT) when it is odd, beyond 0xffff or not inside the packet. */
static u8 *csum_field(const struct run_skb *skb, u32 offset)
{
	if (offset > 0xffff || (offset & 1) || (u64)offset + 2 > skb->ctx.uapi.len)
		return NULL;
	return skb->ctx.data + offset;
}

static u16 ld16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, 2);
	return v;
}

static void st16(u8 *p, u16 v)
{
	memcpy(p, &v, 2);
}

/* bpf_l3_csum_replace(skb, offset, from, to, flags): updates the checksum at offset for a
 * field changed from `from` to `to` (flags: its size, 2 or 4; 0: `to` is a csum_diff()). */
u64 h_l3_csum_replace(u64 ctx, u64 off, u64 from, u64 to, u64 flags)
{
	u8 *p;
	u16 sum;

	if (flags & ~(u64)BPF_F_HDR_FIELD_MASK)
		return (u64)-EINVAL;
	p = csum_field(run_skb_of(PTR(ctx)), (u32)off);
	if (!p)
		return (u64)-EFAULT;
	sum = ld16(p);
	switch (flags & BPF_F_HDR_FIELD_MASK) {
	case 0:
		if (from)
			return (u64)-EINVAL;
		st16(p, csum_fold(csum_add32((u32)to, ~(u32)sum)));
		break;
	case 2:
		st16(p, (u16)~csum16_add(csum16_add((u16)~sum, (u16)~(u16)from), (u16)to));
		break;
	case 4:
		st16(p, csum_fold(csum_add32(csum_add32(~(u32)sum, ~(u32)from), (u32)to)));
		break;
	default:
		return (u64)-EINVAL;
	}
	return 0;
}

#ifndef BPF_F_IPV6
#define BPF_F_IPV6 (1ULL << 7) /* (uapi 6.16) */
#endif

/* bpf_l4_csum_replace(skb, offset, from, to, flags): as l3, for a TCP/UDP checksum; with
 * BPF_F_PSEUDO_HDR the field is in the pseudo header, so a CHECKSUM_COMPLETE skb's csum changes
 * too (not for a csum_diff() with BPF_F_IPV6); BPF_F_MARK_MANGLED_0 leaves a zero checksum
 * (UDP's "none") alone and writes a computed zero as 0xffff, unless BPF_F_MARK_ENFORCE. */
u64 h_l4_csum_replace(u64 ctx, u64 off, u64 from, u64 to, u64 flags)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	bool pseudo = flags & BPF_F_PSEUDO_HDR, mmzero = flags & BPF_F_MARK_MANGLED_0;
	u32 diff[2], d;
	u8 *p;
	u16 sum;

	if (flags & ~(u64)(BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE | BPF_F_PSEUDO_HDR |
			   BPF_F_HDR_FIELD_MASK | BPF_F_IPV6))
		return (u64)-EINVAL;
	p = csum_field(skb, (u32)off);
	if (!p)
		return (u64)-EFAULT;
	sum = ld16(p);
	if (mmzero && !(flags & BPF_F_MARK_ENFORCE) && !sum)
		return 0;
	switch (flags & BPF_F_HDR_FIELD_MASK) {
	case 0:
		if (from)
			return (u64)-EINVAL;
		d = (u32)to;
		if (flags & BPF_F_IPV6)
			pseudo = false; /* the kernel leaves skb->csum alone for IPv6 diffs */
		break;
	case 2:
	case 4:
		diff[0] = ~(u32)((flags & BPF_F_HDR_FIELD_MASK) == 2 ? (u16)from : (u32)from);
		diff[1] = (flags & BPF_F_HDR_FIELD_MASK) == 2 ? (u16)to : (u32)to;
		d = csum_partial((const u8 *)diff, sizeof(diff), 0);
		break;
	default:
		return (u64)-EINVAL;
	}
	/* not CHECKSUM_PARTIAL (a test run's skb never is) */
	st16(p, csum_fold(csum_add32(d, ~(u32)sum)));
	if (skb->csum_complete && pseudo) {
		/* skb->csum = ~(~skb->csum + d), on our big-endian view of it */
		u16 cur = (u16)__builtin_bswap16(csum_fold16(skb->csum));

		skb->csum = __builtin_bswap16((u16)~csum_fold16(csum_add32(d, (u16)~cur)));
	}
	if (mmzero && !ld16(p))
		st16(p, 0xffff); /* CSUM_MANGLED_0 */
	return 0;
}

/* bpf_csum_update(skb, csum): adds csum (a bpf_csum_diff() of bytes the program changed
 * directly) to a CHECKSUM_COMPLETE skb's checksum and returns it; -ENOTSUPP for any other skb.
 * The kernel returns its 32-bit sum as x86's csum_add() leaves it; userbpf keeps the sum in its
 * own form and returns it folded to 16 bits, the same value once folded (README). */
u64 h_csum_update(u64 ctx, u64 csum, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 add;

	if (!skb->csum_complete)
		return (u64)-ENOTSUPP;
	/* csum is little-endian words' sum; skb->csum big-endian words' (csum_add_bytes()) */
	add = __builtin_bswap16(csum_fold16((u32)csum));
	skb->csum = csum_fold16(csum_add32(csum_fold16(skb->csum), add));
	return __builtin_bswap16(csum_fold16(skb->csum));
}
