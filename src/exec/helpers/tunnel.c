/* tunnel.c — tunnel metadata of tc programs (bpf_skb_set/get_tunnel_key/opt) and the IPsec
 * state query, on the skb's run-time tunnel info.
 */
#include <arpa/inet.h>

#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

/* The kernel's legacy TUNNEL_* flags (host order; bpf_tunnel_key.tunnel_flags is their __be16) */
#define TUNNEL_CSUM 0x0001
#define TUNNEL_KEY 0x0004
#define TUNNEL_SEQ 0x0008
#define TUNNEL_DONT_FRAGMENT 0x0100
#define TUNNEL_OPTIONS_PRESENT 0xd800 /* GENEVE, VXLAN, ERSPAN and GTP options */
#define TUNNEL_NOCACHE 0x2000
#define TUNNEL_KEY_SIZE sizeof(struct bpf_tunnel_key)

/* The sizes of older struct bpf_tunnel_key layouts the kernel still takes. */
static bool tunnel_key_compat_size(u32 size)
{
	return size == offsetof(struct bpf_tunnel_key, local_ipv6[0]) ||
	       size == offsetof(struct bpf_tunnel_key, tunnel_label) ||
	       size == offsetof(struct bpf_tunnel_key, tunnel_ext) ||
	       size == offsetof(struct bpf_tunnel_key, remote_ipv6[1]);
}

/* bpf_skb_set_tunnel_key(skb, from, size, flags): the packet gets transmit tunnel metadata:
 * id, tos, ttl, remote and local addresses (IPv4, or IPv6 with a flow label), flags. */
u64 h_skb_set_tunnel_key(u64 ctx, u64 from, u64 size, u64 flags, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	struct bpf_tunnel_key k = { 0 };
	u32 n = (u32)size;

	if (flags & ~(u64)(BPF_F_TUNINFO_IPV6 | BPF_F_ZERO_CSUM_TX | BPF_F_DONT_FRAGMENT |
			   BPF_F_SEQ_NUMBER))
		return (u64)-EINVAL;
	if (n != TUNNEL_KEY_SIZE && !tunnel_key_compat_size(n))
		return (u64)-EINVAL;
	memcpy(&k, PTR(from), n);
	if ((!(flags & BPF_F_TUNINFO_IPV6) && k.tunnel_label) || k.tunnel_ext)
		return (u64)-EINVAL;
	memset(&skb->tun, 0, sizeof(skb->tun));
	skb->tun.set = true;
	skb->tun.flags = TUNNEL_KEY | TUNNEL_CSUM | TUNNEL_NOCACHE;
	if (flags & BPF_F_DONT_FRAGMENT)
		skb->tun.flags |= TUNNEL_DONT_FRAGMENT;
	if (flags & BPF_F_ZERO_CSUM_TX)
		skb->tun.flags &= (u16)~TUNNEL_CSUM;
	if (flags & BPF_F_SEQ_NUMBER)
		skb->tun.flags |= TUNNEL_SEQ;
	skb->tun.id = k.tunnel_id;
	skb->tun.tos = k.tunnel_tos;
	skb->tun.ttl = k.tunnel_ttl;
	if (flags & BPF_F_TUNINFO_IPV6) {
		skb->tun.ipv6 = true;
		memcpy(skb->tun.dst, k.remote_ipv6, 16);
		memcpy(skb->tun.src, k.local_ipv6, 16);
		skb->tun.label = htonl(k.tunnel_label) & htonl(0xfffff);
	} else {
		skb->tun.dst[0] = htonl(k.remote_ipv4);
		skb->tun.src[0] = htonl(k.local_ipv4);
	}
	return 0;
}

/* bpf_skb_get_tunnel_key(skb, to, size, flags): the metadata back (its source address as the
 * remote one: the kernel reads the receive side's view); -EINVAL without metadata, -EPROTO for
 * the other address family; to is zeroed on an error. */
u64 h_skb_get_tunnel_key(u64 ctx, u64 to, u64 size, u64 flags, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	struct bpf_tunnel_key k = { 0 };
	u32 n = (u32)size;
	int err = -EINVAL;

	if (!skb->tun.set || (flags & ~(u64)(BPF_F_TUNINFO_IPV6 | BPF_F_TUNINFO_FLAGS)))
		goto clear;
	if (skb->tun.ipv6 != !!(flags & BPF_F_TUNINFO_IPV6)) {
		err = -EPROTO;
		goto clear;
	}
	if (n != TUNNEL_KEY_SIZE && (!tunnel_key_compat_size(n) ||
				     (n == offsetof(struct bpf_tunnel_key, remote_ipv6[1]) &&
				      skb->tun.ipv6)))
		goto clear;
	k.tunnel_id = (u32)skb->tun.id;
	k.tunnel_tos = skb->tun.tos;
	k.tunnel_ttl = skb->tun.ttl;
	k.tunnel_ext = 0;
	if (flags & BPF_F_TUNINFO_FLAGS)
		k.tunnel_flags = htons(skb->tun.flags);
	if (flags & BPF_F_TUNINFO_IPV6) {
		memcpy(k.remote_ipv6, skb->tun.src, 16);
		memcpy(k.local_ipv6, skb->tun.dst, 16);
		k.tunnel_label = ntohl(skb->tun.label);
	} else {
		k.remote_ipv4 = ntohl(skb->tun.src[0]);
		k.local_ipv4 = ntohl(skb->tun.dst[0]);
	}
	memcpy(PTR(to), &k, n);
	return 0;
clear:
	memset(PTR(to), 0, n);
	return (u64)(s64)err;
}

/* bpf_skb_set_tunnel_opt(skb, from, size): options (a multiple of 4 bytes, at most 255) for
 * the metadata bpf_skb_set_tunnel_key() set; bpf_skb_get_tunnel_opt(skb, to, size) reads them
 * (their length, the rest of to zeroed). */
u64 h_skb_set_tunnel_opt(u64 ctx, u64 from, u64 size, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 n = (u32)size;

	if (!skb->tun.set || (n & 3))
		return (u64)-EINVAL;
	if (n > sizeof(skb->tun.opts))
		return (u64)-ENOMEM;
	skb->tun.opts_len = n;
	memcpy(skb->tun.opts, PTR(from), n);
	if (n)
		skb->tun.flags |= TUNNEL_OPTIONS_PRESENT;
	return 0;
}

u64 h_skb_get_tunnel_opt(u64 ctx, u64 to, u64 size, u64 a4, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 n = (u32)size;
	u8 *out = PTR(to);

	if (!skb->tun.set || !(skb->tun.flags & TUNNEL_OPTIONS_PRESENT)) {
		memset(out, 0, n);
		return (u64)-ENOENT;
	}
	if (n < skb->tun.opts_len) {
		memset(out, 0, n);
		return (u64)-ENOMEM;
	}
	memcpy(out, skb->tun.opts, skb->tun.opts_len);
	memset(out + skb->tun.opts_len, 0, n - skb->tun.opts_len);
	return skb->tun.opts_len;
}

/* bpf_skb_get_xfrm_state(skb, index, to, size, flags): a test run's packet has no IPsec
 * state: -EINVAL, to zeroed. */
u64 h_skb_get_xfrm_state(u64 ctx, u64 index, u64 to, u64 size, u64 flags)
{
	memset(PTR(to), 0, (u32)size);
	return (u64)-EINVAL;
}
