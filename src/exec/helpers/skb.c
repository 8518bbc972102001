/* skb.c — packet helpers of socket filters and tc programs: loads and stores, pulls,
 * resizing (change_tail/head, adjust_room, change_proto), VLAN tags, the packet's hash, type and
 * ECN mark.  The skb is the runtime context of src/exec/ctx.h.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/random.h>

#include "map/jhash.h"
#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

/* bpf_skb_load_bytes(skb, offset, to, len): 0, or -EFAULT with to zeroed when out of bounds. */
u64 h_skb_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	const struct skb_ctx *c = PTR(ctx);
	u32 offset = (u32)off, n = (u32)len, plen = (u32)(c->data_end - c->data);

	if (offset > INT32_MAX || n > plen || offset > plen - n) {
		memset(PTR(to), 0, n);
		return (u64)-EFAULT;
	}
	memcpy(PTR(to), c->data + offset, n);
	return 0;
}

/* A flow dissector's bpf_skb_load_bytes(): the kernel's reads through the skb being dissected,
 * which its BPF_PROG_TEST_RUN does not have (only the packet's bytes), so there the helper always
 * fails as it does without an skb: -EFAULT, to zeroed.  userbpf runs flow dissectors through
 * the test run only, and does the same.  (Programs read the packet directly.) */
u64 h_flow_dissector_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	memset(PTR(to), 0, (u32)len);
	return (u64)-EFAULT;
}

/* bpf_skb_store_bytes(skb, offset, from, len, flags).  With BPF_F_RECOMPUTE_CSUM and a
 * CHECKSUM_COMPLETE skb, the checksum is updated for the bytes replaced, as the kernel's
 * postpull/postpush pair does; BPF_F_INVALIDATE_HASH clears a hash we never set. */
u64 h_skb_store_bytes(u64 ctx, u64 off, u64 from, u64 len, u64 flags)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 offset = (u32)off, n = (u32)len, plen = skb->ctx.uapi.len;
	u8 *p;

	if (flags & ~(u64)(BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH))
		return (u64)-EINVAL;
	if (offset > INT32_MAX || (u64)offset + n > plen)
		return (u64)-EFAULT;
	p = skb->ctx.data + offset;
	if ((flags & BPF_F_RECOMPUTE_CSUM) && skb->csum_complete) {
		/* csum - sum(old bytes) + sum(new bytes); subtracting is adding the complement.
		 * The parity of offset is the bytes' position in their 16-bit words, as for the
		 * kernel (the checksum starts at the network header, an even offset). */
		bool even = !(offset & 1);
		u16 old_sum = csum_fold16(csum_add_bytes(0, p, n, even));
		u16 new_sum = csum_fold16(csum_add_bytes(0, PTR(from), n, even));

		skb->csum = csum_fold16(skb->csum + (u16)~old_sum + new_sum);
	}
	memcpy(p, PTR(from), n);
	if (flags & BPF_F_INVALIDATE_HASH)
		skb->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_skb_load_bytes_relative(skb, offset, to, len, start_header): from the mac or the network
 * header; out of bounds, an unknown start or offset > 0xffff: -EFAULT with to zeroed. */
u64 h_skb_load_bytes_relative(u64 ctx, u64 off, u64 to, u64 len, u64 start_header)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 offset = (u32)off, n = (u32)len, hdr = (u32)start_header;
	const u8 *start = hdr == BPF_HDR_START_MAC ? skb->mac :
			  hdr == BPF_HDR_START_NET ? skb->net : NULL;

	if (offset > 0xffff || !start || (size_t)(skb->tail - start) < (size_t)offset + n) {
		memset(PTR(to), 0, n);
		return (u64)-EFAULT;
	}
	memcpy(PTR(to), start + offset, n);
	return 0;
}

/* bpf_skb_pull_data(skb, len): the first len bytes (0: the linear part) made direct-access
 * readable and writable; a test run's skb is linear, so it is there unless len passes its end
 * (-ENOMEM, as pskb_may_pull() fails). */
u64 h_skb_pull_data(u64 ctx, u64 len, u64 a3, u64 a4, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));

	return (u32)len <= skb->ctx.uapi.len ? 0 : (u64)-ENOMEM;
}

/* ---- packet size and metadata (tc) ---- */

#define SKB_MAX_LEN 16064u	/* the kernel's BPF_SKB_MAX_LEN (SKB_MAX_ALLOC, 4 KiB pages) */
#define VLAN_HLEN 4u

/* (prog/run.h) */
int run_skb_room(struct run_skb *skb, u32 head, u32 tail)
{
	size_t hr = (size_t)(skb->ctx.data - skb->head), tr = (size_t)(skb->end - skb->tail);
	size_t more_h = hr < head ? round_up(head - hr, 64) : 0;
	size_t more_t = tr < tail ? round_up(tail - tr, 64) : 0;
	size_t size = (size_t)(skb->end - skb->head);
	ptrdiff_t d;
	u8 *nb;

	if (!more_h && !more_t)
		return 0;
	if (!skb->can_grow)
		return -ENOMEM;
	nb = calloc(1, more_h + size + more_t);
	if (!nb)
		return -ENOMEM;
	memcpy(nb + more_h, skb->head, size);
	d = (nb + more_h) - skb->head;
	free(skb->head);
	skb->head = nb;
	skb->end = nb + more_h + size + more_t;
	skb->tail += d;
	skb->mac += d;
	skb->net += d;
	skb->ctx.data += d;
	skb->ctx.data_end += d;
	skb->ctx.data_meta += d;
	return 0;
}

/* The packet's new extent after a helper moved its start or end (bpf_compute_data_pointers()). */
static void skb_set_data(struct run_skb *skb, u8 *data, u8 *tail)
{
	skb->ctx.data = skb->ctx.data_meta = data;
	skb->ctx.data_end = skb->tail = tail;
	skb->ctx.uapi.len = (u32)(tail - data);
}

/* bpf_skb_change_tail(skb, new_len, flags): grows the packet with zeroes or cuts it, not below
 * the network header; the checksum is no longer CHECKSUM_COMPLETE (but a test run with
 * BPF_F_TEST_SKB_CHECKSUM_COMPLETE still compares the stale sum, as the kernel's does). */
u64 h_skb_change_tail(u64 ctx, u64 new_len, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 len = skb->ctx.uapi.len, n = (u32)new_len;
	u32 min = skb->net > skb->ctx.data ? (u32)(skb->net - skb->ctx.data) : 0;
	int err;

	if (flags || n > SKB_MAX_LEN || n < min)
		return (u64)-EINVAL;
	if (skb->encapsulation)
		return (u64)-ENOTSUPP;
	if (n > len) {
		err = run_skb_room(skb, 0, n - len);
		if (err)
			return (u64)(s64)err;
		memset(skb->tail, 0, n - len);
	}
	if (n != len)
		skb->csum_complete = false;
	skb_set_data(skb, skb->ctx.data, skb->ctx.data + n);
	return 0;
}

/* bpf_skb_change_head(skb, head_room, flags): head_room zero bytes pushed in front, which
 * become the mac header (the network header stays where it was). */
u64 h_skb_change_head(u64 ctx, u64 head_room, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 len = skb->ctx.uapi.len, room = (u32)head_room, n = len + room;
	int err;

	if (flags || n > SKB_MAX_LEN || n < len)
		return (u64)-EINVAL;
	err = run_skb_room(skb, room, 0);
	if (err)
		return (u64)(s64)err;
	memset(skb->ctx.data - room, 0, room);
	skb->mac = skb->ctx.data - room;
	skb_set_data(skb, skb->ctx.data - room, skb->tail);
	return 0;
}

/* 6.18's flags of bpf_skb_adjust_room() that our uapi header may lack */
#define ADJ_ROOM_DECAP_L3_IPV4 (1ull << 7)
#define ADJ_ROOM_DECAP_L3_IPV6 (1ull << 8)
#define ADJ_ROOM_DECAP_L3_MASK (ADJ_ROOM_DECAP_L3_IPV4 | ADJ_ROOM_DECAP_L3_IPV6)
#define ADJ_ROOM_ENCAP_L3_MASK (BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 | BPF_F_ADJ_ROOM_ENCAP_L3_IPV6)
#define ADJ_ROOM_MASK                                                                            \
	(BPF_F_ADJ_ROOM_FIXED_GSO | ADJ_ROOM_ENCAP_L3_MASK | BPF_F_ADJ_ROOM_ENCAP_L4_GRE |         \
	 BPF_F_ADJ_ROOM_ENCAP_L4_UDP | BPF_F_ADJ_ROOM_ENCAP_L2_ETH |                              \
	 BPF_F_ADJ_ROOM_ENCAP_L2(BPF_ADJ_ROOM_ENCAP_L2_MASK) | ADJ_ROOM_DECAP_L3_MASK)

/* The encapsulation a growing bpf_skb_adjust_room() asks for, checked as the kernel's
 * bpf_skb_net_grow() does before it moves anything: 0, or the error. */
static int adjust_room_encap_check(const struct run_skb *skb, u32 diff, u64 flags)
{
	u8 inner_mac_len = (u8)(flags >> BPF_ADJ_ROOM_ENCAP_L2_SHIFT);

	if ((flags & ADJ_ROOM_ENCAP_L3_MASK) == ADJ_ROOM_ENCAP_L3_MASK)
		return -EINVAL;
	if ((flags & BPF_F_ADJ_ROOM_ENCAP_L4_GRE) && (flags & BPF_F_ADJ_ROOM_ENCAP_L4_UDP))
		return -EINVAL;
	if ((flags & BPF_F_ADJ_ROOM_ENCAP_L2_ETH) && inner_mac_len < ETH_HLEN)
		return -EINVAL;
	if (skb->encapsulation)
		return -EALREADY;
	if (inner_mac_len > diff)
		return -EINVAL;
	return 0;
}

/* bpf_skb_adjust_room(skb, len_diff, mode, flags): len_diff zero bytes inserted (or bytes
 * removed) after the mac header (BPF_ADJ_ROOM_MAC) or after the IPv4/IPv6 header
 * (BPF_ADJ_ROOM_NET), the headers before them moved along; with the encapsulation flags the
 * skb becomes an encapsulation (and its protocol the outer one's), with the decapsulation
 * flags (shrinking) the protocol becomes the inner one's. */
u64 h_skb_adjust_room(u64 ctx, u64 len_diff, u64 mode, u64 flags, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	s32 diff = (s32)len_diff;
	u32 abs_diff = diff < 0 ? -(u32)diff : (u32)diff;
	u16 proto = (u16)skb->ctx.uapi.protocol;
	u32 base = proto == htons(ETH_P_IP) ? 20 : 40, off, len_cur;
	u8 *d = skb->ctx.data;
	bool shrink = diff < 0;
	int err;

	if (flags & ~(ADJ_ROOM_MASK | BPF_F_ADJ_ROOM_NO_CSUM_RESET))
		return (u64)-EINVAL;
	if (abs_diff > 0xfff)
		return (u64)-EFAULT;
	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return (u64)-ENOTSUPP;
	off = (u32)(skb->net - skb->mac);
	if ((u32)mode == BPF_ADJ_ROOM_NET)
		off += base;
	else if ((u32)mode != BPF_ADJ_ROOM_MAC)
		return (u64)-ENOTSUPP;
	len_cur = skb->ctx.uapi.len - (u32)(skb->net - d);
	if (shrink ? abs_diff >= len_cur || len_cur - abs_diff < base
		   : skb->ctx.uapi.len + abs_diff > SKB_MAX_LEN)
		return (u64)-ENOTSUPP;
	if (shrink) {
		if (flags & ~(BPF_F_ADJ_ROOM_FIXED_GSO | ADJ_ROOM_DECAP_L3_MASK |
			      BPF_F_ADJ_ROOM_NO_CSUM_RESET))
			return (u64)-EINVAL;
		if ((flags & ADJ_ROOM_DECAP_L3_MASK) == ADJ_ROOM_DECAP_L3_MASK)
			return (u64)-EINVAL;
		if (off + abs_diff > skb->ctx.uapi.len)
			return (u64)-ENOMEM;
		if (skb->csum_complete) /* skb_postpull_rcsum() of the removed bytes */
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, d + off, abs_diff,
										 true)));
		memmove(d + abs_diff, d, off);
		skb->mac += abs_diff;
		skb->net += abs_diff;
		skb_set_data(skb, d + abs_diff, skb->tail);
		if (proto == htons(ETH_P_IP) && (flags & ADJ_ROOM_DECAP_L3_IPV6))
			skb->ctx.uapi.protocol = htons(ETH_P_IPV6);
		else if (proto == htons(ETH_P_IPV6) && (flags & ADJ_ROOM_DECAP_L3_IPV4))
			skb->ctx.uapi.protocol = htons(ETH_P_IP);
		goto done;
	}
	if (flags & ADJ_ROOM_ENCAP_L3_MASK) {
		err = adjust_room_encap_check(skb, abs_diff, flags);
		if (err)
			return (u64)(s64)err;
	}
	err = run_skb_room(skb, abs_diff, 0);
	if (err)
		return (u64)(s64)err;
	d = skb->ctx.data - abs_diff;
	memmove(d, d + abs_diff, off);
	memset(d + off, 0, abs_diff); /* (zeroes: a COMPLETE checksum stays right) */
	skb->mac -= abs_diff;
	skb->net -= abs_diff;
	skb_set_data(skb, d, skb->tail);
	if (flags & ADJ_ROOM_ENCAP_L3_MASK) {
		skb->encapsulation = true;
		if (proto == htons(ETH_P_IP) && (flags & BPF_F_ADJ_ROOM_ENCAP_L3_IPV6))
			skb->ctx.uapi.protocol = htons(ETH_P_IPV6);
		else if (proto == htons(ETH_P_IPV6) && (flags & BPF_F_ADJ_ROOM_ENCAP_L3_IPV4))
			skb->ctx.uapi.protocol = htons(ETH_P_IP);
	}
done:
	if (!(flags & BPF_F_ADJ_ROOM_NO_CSUM_RESET)) /* __skb_reset_checksum_unnecessary() */
		skb->csum_unnecessary = false, skb->csum_level = 0;
	return 0;
}

/* bpf_skb_change_proto(skb, proto, flags): IPv4 to IPv6 makes 20 bytes of room after the mac
 * header, IPv6 to IPv4 removes 20 there (the program writes the new header); the hash is
 * cleared. */
u64 h_skb_change_proto(u64 ctx, u64 proto, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 from = (u16)skb->ctx.uapi.protocol, to = (u16)proto;
	u32 off = (u32)(skb->net - skb->mac), diff = 20;
	u8 *d = skb->ctx.data;
	int err;

	if (flags)
		return (u64)-EINVAL;
	if (from == htons(ETH_P_IP) && to == htons(ETH_P_IPV6)) {
		err = run_skb_room(skb, diff, 0);
		if (err)
			return (u64)(s64)err;
		d = skb->ctx.data - diff;
		memmove(d, d + diff, off);
		memset(d + off, 0, diff);
		skb->mac -= diff;
		skb->net -= diff;
	} else if (from == htons(ETH_P_IPV6) && to == htons(ETH_P_IP)) {
		if (off + diff > skb->ctx.uapi.len)
			return (u64)-ENOMEM;
		if (skb->csum_complete)
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, d + off, diff,
										 true)));
		memmove(d + diff, d, off);
		d += diff;
		skb->mac += diff;
		skb->net += diff;
	} else {
		return (u64)-ENOTSUPP;
	}
	skb_set_data(skb, d, skb->tail);
	skb->ctx.uapi.protocol = to;
	skb->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_csum_level(skb, level): the CHECKSUM_UNNECESSARY depth, as the kernel's
 * __skb_{incr,decr,reset}_checksum_unnecessary() change it; QUERY reads it (-EACCES when the
 * checksum is not "unnecessary"). */
u64 h_csum_level(u64 ctx, u64 level, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));

	switch (level) {
	case BPF_CSUM_LEVEL_INC:
		if (skb->csum_unnecessary) {
			if (skb->csum_level < 3) /* SKB_MAX_CSUM_LEVEL */
				skb->csum_level++;
		} else if (!skb->csum_complete) {
			skb->csum_unnecessary = true;
			skb->csum_level = 0;
		}
		return 0;
	case BPF_CSUM_LEVEL_DEC:
		if (skb->csum_unnecessary) {
			if (!skb->csum_level)
				skb->csum_unnecessary = false;
			else
				skb->csum_level--;
		}
		return 0;
	case BPF_CSUM_LEVEL_RESET:
		skb->csum_unnecessary = false;
		skb->csum_level = 0;
		return 0;
	case BPF_CSUM_LEVEL_QUERY:
		return skb->csum_unnecessary ? skb->csum_level : (u64)-EACCES;
	default:
		return (u64)-EINVAL;
	}
}

static bool eth_type_vlan(u16 proto_be)
{
	return proto_be == htons(ETH_P_8021Q) || proto_be == htons(ETH_P_8021AD);
}

/* The kernel's __skb_vlan_pop(): the VLAN header after the MAC addresses leaves the payload;
 * *tci its TCI, skb->protocol what it encapsulated. */
static int skb_vlan_pop_payload(struct run_skb *skb, u16 *tci)
{
	u8 *d = skb->ctx.data;
	u16 proto, raw;

	if (d != skb->mac)
		return -EINVAL;
	if (skb->ctx.uapi.len < ETH_HLEN + VLAN_HLEN)
		return -ENOMEM;
	if (skb->csum_complete) /* the kernel's skb_postpull_rcsum() of the 4 bytes */
		skb->csum = csum_fold16(skb->csum +
					(u16)~csum_fold16(csum_add_bytes(0, d + 2 * ETH_ALEN,
									 VLAN_HLEN, true)));
	*tci = (u16)(d[14] << 8 | d[15]);
	memcpy(&proto, d + 16, 2);
	if (ntohs(proto) >= ETH_P_802_3_MIN) {
		skb->ctx.uapi.protocol = proto;
	} else {
		memcpy(&raw, d + 18, 2);
		skb->ctx.uapi.protocol = htons(raw == 0xffff ? ETH_P_802_3 : ETH_P_802_2);
	}
	memmove(d + VLAN_HLEN, d, 2 * ETH_ALEN);
	skb->mac = d + VLAN_HLEN;
	if (skb->net < skb->mac + ETH_HLEN)
		skb->net = skb->mac + ETH_HLEN;
	skb_set_data(skb, d + VLAN_HLEN, skb->tail);
	return 0;
}

/* bpf_skb_vlan_push(skb, proto, tci): the tag goes to the skb's metadata (vlan_present,
 * vlan_tci, vlan_proto); one already there moves into the payload first. */
u64 h_skb_vlan_push(u64 ctx, u64 proto, u64 tci, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 p = (u16)proto;

	if (!eth_type_vlan(p))
		p = htons(ETH_P_8021Q);
	if (skb->ctx.uapi.vlan_present) {
		u16 old_proto = (u16)skb->ctx.uapi.vlan_proto, old_tci = htons(
			(u16)skb->ctx.uapi.vlan_tci);
		u8 *d;

		if (skb->ctx.data != skb->mac)
			return (u64)-EINVAL;
		if (run_skb_room(skb, VLAN_HLEN, 0))
			return (u64)-ENOMEM;
		d = skb->ctx.data - VLAN_HLEN;
		memmove(d, d + VLAN_HLEN, 2 * ETH_ALEN);
		memcpy(d + 12, &old_proto, 2);
		memcpy(d + 14, &old_tci, 2);
		skb->mac = d;
		skb->ctx.uapi.protocol = old_proto;
		if (skb->csum_complete) /* skb_postpush_rcsum() */
			skb->csum = csum_add_bytes(skb->csum, d + 2 * ETH_ALEN, VLAN_HLEN, true);
		skb_set_data(skb, d, skb->tail);
	}
	skb->ctx.uapi.vlan_present = 1;
	skb->ctx.uapi.vlan_tci = (u16)tci;
	skb->ctx.uapi.vlan_proto = p;
	return 0;
}

/* bpf_skb_vlan_pop(skb): the metadata's tag goes, else the payload's first; then a tag left in
 * the payload moves to the metadata (the kernel's skb_vlan_pop()). */
u64 h_skb_vlan_pop(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 tci, proto;
	int err;

	if (skb->ctx.uapi.vlan_present) {
		skb->ctx.uapi.vlan_present = 0;
		skb->ctx.uapi.vlan_tci = 0;
		skb->ctx.uapi.vlan_proto = 0;
	} else {
		if (!eth_type_vlan((u16)skb->ctx.uapi.protocol))
			return 0;
		err = skb_vlan_pop_payload(skb, &tci);
		if (err)
			return (u64)(s64)err;
	}
	proto = (u16)skb->ctx.uapi.protocol;
	if (!eth_type_vlan(proto))
		return 0;
	err = skb_vlan_pop_payload(skb, &tci);
	if (err)
		return (u64)(s64)err;
	skb->ctx.uapi.vlan_present = 1;
	skb->ctx.uapi.vlan_tci = tci;
	skb->ctx.uapi.vlan_proto = proto;
	return 0;
}

/* bpf_get_hash_recalc(skb): the packet's flow hash, computed once (then kept in skb->hash, where
 * bpf_set_hash() may have put one): a jhash of the IPv4/IPv6 addresses, protocol and ports
 * under a random seed, never 0, as the kernel's flow dissector hash is.  Its values are not
 * the kernel's, whose seed is its own: only its properties are (stable for a flow, nonzero). */
u64 h_get_hash_recalc(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	static u32 seed;
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;
	const u8 *ip = skb->net;
	u32 keys[10] = { 0 }, h, s = __atomic_load_n(&seed, __ATOMIC_RELAXED);
	size_t l4 = 0;

	if (skb->ctx.uapi.hash)
		return skb->ctx.uapi.hash;
	while (!s) {
		if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
			s = (u32)clock_ns(CLOCK_MONOTONIC) | 1;
		__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	}
	if (proto == htons(ETH_P_IP) && ip + 20 <= skb->tail) {
		memcpy(keys, ip + 12, 8);
		keys[8] = ip[9];
		l4 = (size_t)(ip[0] & 15) * 4;
	} else if (proto == htons(ETH_P_IPV6) && ip + 40 <= skb->tail) {
		memcpy(keys, ip + 8, 32);
		keys[8] = ip[6];
		l4 = 40;
	}
	if (l4 && (keys[8] == IPPROTO_TCP || keys[8] == IPPROTO_UDP) && ip + l4 + 4 <= skb->tail)
		memcpy(&keys[9], ip + l4, 4);
	h = jhash(keys, sizeof(keys), s);
	skb->ctx.uapi.hash = h ? h : 1;
	return skb->ctx.uapi.hash;
}

/* bpf_set_hash(skb, hash), bpf_set_hash_invalid(skb): skb->hash, as a software L4 hash. */
u64 h_set_hash(u64 ctx, u64 hash, u64 a3, u64 a4, u64 a5)
{
	run_skb_of(PTR(ctx))->ctx.uapi.hash = (u32)hash;
	return 0;
}

u64 h_set_hash_invalid(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	run_skb_of(PTR(ctx))->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_skb_change_type(skb, type): between host, broadcast, multicast and other host only. */
u64 h_skb_change_type(u64 ctx, u64 type, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));

	if (skb->ctx.uapi.pkt_type > PACKET_OTHERHOST || (u32)type > PACKET_OTHERHOST)
		return (u64)-EINVAL;
	skb->ctx.uapi.pkt_type = (u32)type;
	return 0;
}

/* bpf_skb_ecn_set_ce(skb): an ECN-capable IPv4 or IPv6 packet is marked Congestion
 * Experienced (the IPv4 checksum and a COMPLETE checksum follow): 1, or 1 if it already was;
 * 0 for a packet that is not ECN-capable or not IP. */
u64 h_skb_ecn_set_ce(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;
	u8 *ip = skb->net;

	if (proto == htons(ETH_P_IP) && ip + 20 <= skb->tail) {
		u32 ecn = (u32)(ip[1] + 1) & 3;
		u16 check, add;

		if (!(ecn & 2))
			return !ecn;
		/* the kernel's csum16_add() of htons(0xfffb) + htons(ecn), on the raw field */
		memcpy(&check, ip + 10, 2);
		add = (u16)(htons(0xfffb) + htons((u16)ecn));
		check = (u16)(check + add);
		check = (u16)(check + (check < add));
		memcpy(ip + 10, &check, 2);
		ip[1] |= 3;
		return 1;
	}
	if (proto == htons(ETH_P_IPV6) && ip + 40 <= skb->tail) {
		u8 before[4];

		if (!(((ip[0] << 4 | ip[1] >> 4) & 0xff) & 3))
			return 0;
		memcpy(before, ip, 4);
		ip[1] |= 3 << 4;
		if (skb->csum_complete)
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, before, 4, true)) +
						csum_fold16(csum_add_bytes(0, ip, 4, true)));
		return 1;
	}
	return 0;
}
