/* redirect.c — redirects and MTU checks.  Outside a live datapath a redirect is a verdict
 * only: the helpers check their arguments as the kernel does and return what it returns.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <unistd.h>

#include "exec/rtnl.h"
#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

/* bpf_redirect(ifindex, flags) for tc: TC_ACT_REDIRECT, or TC_ACT_SHOT for flags other than
 * BPF_F_INGRESS. */
u64 h_redirect(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags & ~(u64)BPF_F_INGRESS ? TC_ACT_SHOT : TC_ACT_REDIRECT;
}

/* A device's MTU and link-layer header length, as the calling thread's network namespace has
 * them (the devices a test run's packet may name are that namespace's, as the kernel's are):
 * 0, or -ENODEV. */
static int dev_mtu(u32 ifindex, u32 *mtu, u32 *hh_len)
{
	struct rtnl_link d;

	if (rtnl_link_get(ifindex, &d))
		return -ENODEV;
	*mtu = d.mtu;
	*hh_len = rtnl_link_hh_len(&d);
	return 0;
}

/* bpf_check_mtu(ctx, ifindex, mtu_len, len_diff, flags): whether the packet (or *mtu_len, an
 * L3 length, when nonzero) plus len_diff fits the device's MTU (ifindex 0: the packet's own
 * device); *mtu_len gets the MTU, and is left as it was on an error (6.18's returns before
 * writing it). */
static u64 check_mtu(u32 dev_ifindex, u32 ifindex, u32 *mtu_len, s32 len_diff, u32 len)
{
	u32 mtu = 0, hh = 0;
	s64 n;

	if (dev_mtu(ifindex ? ifindex : dev_ifindex, &mtu, &hh))
		return (u64)-ENODEV;
	n = (*mtu_len ? (s64)*mtu_len + hh : (s64)len) + len_diff;
	*mtu_len = mtu;
	return (s32)n <= (s32)(mtu + hh) ? BPF_MTU_CHK_RET_SUCCESS : BPF_MTU_CHK_RET_FRAG_NEEDED;
}

u64 h_skb_check_mtu(u64 ctx, u64 ifindex, u64 mtu_len, u64 len_diff, u64 flags)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 *mtu = PTR(mtu_len);

	if ((flags & ~(u64)BPF_MTU_CHK_SEGS) ||
	    ((flags & BPF_MTU_CHK_SEGS) && ((s32)len_diff || *mtu)))
		return (u64)-EINVAL;
	/* (not GSO: BPF_MTU_CHK_SEGS changes nothing) */
	return check_mtu(skb->ctx.uapi.ifindex, (u32)ifindex, mtu, (s32)len_diff,
			 skb->ctx.uapi.len);
}

u64 h_xdp_check_mtu(u64 ctx, u64 ifindex, u64 mtu_len, u64 len_diff, u64 flags)
{
	const struct xdp_ctx *xdp = PTR(ctx);
	u32 *mtu = PTR(mtu_len);

	if (flags)
		return (u64)-EINVAL;
	return check_mtu(xdp->uapi.ingress_ifindex, (u32)ifindex, mtu, (s32)len_diff,
			 (u32)(xdp->data_end - xdp->data));
}

/* bpf_skb_set_tstamp(skb, tstamp, type): the delivery time and its clock (IPv4 and IPv6
 * packets only); a monotonic or TAI time must be nonzero. */
u64 h_skb_set_tstamp(u64 ctx, u64 tstamp, u64 type, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;

	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return (u64)-EOPNOTSUPP;
	switch ((u32)type) {
	case 0: /* BPF_SKB_CLOCK_REALTIME */
		break;
	case 1: /* BPF_SKB_CLOCK_MONOTONIC */
	case 2: /* BPF_SKB_CLOCK_TAI */
		if (!tstamp)
			return (u64)-EINVAL;
		break;
	default:
		return (u64)-EINVAL;
	}
	skb->ctx.uapi.tstamp = tstamp;
	skb->ctx.uapi.tstamp_type = (u8)type;
	return 0;
}

/* bpf_redirect_neigh(ifindex, params, plen, flags), bpf_redirect_peer(ifindex, flags): tc's
 * redirects through the neighbour subsystem or into a peer device's namespace: a test run
 * returns TC_ACT_REDIRECT and sends nothing, as the kernel's; a short params or any flag is
 * TC_ACT_SHOT. */
u64 h_redirect_neigh(u64 ifindex, u64 params, u64 plen, u64 flags, u64 a5)
{
	return ((s32)plen && (s32)plen < (s32)sizeof(struct bpf_redir_neigh)) || flags
		       ? TC_ACT_SHOT
		       : TC_ACT_REDIRECT;
}

u64 h_redirect_peer(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags ? TC_ACT_SHOT : TC_ACT_REDIRECT;
}

/* bpf_redirect(ifindex, flags) for XDP: XDP_REDIRECT, or XDP_ABORTED for any flag. */
u64 h_xdp_redirect(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags ? XDP_ABORTED : XDP_REDIRECT;
}

/* bpf_clone_redirect(skb, ifindex, flags): a copy of the packet to a device's egress (or, with
 * BPF_F_INGRESS, ingress).  A test run sends nothing: the device must exist (-EINVAL) and be up
 * (-ENETDOWN), as the kernel checks before sending. */
u64 h_clone_redirect(u64 ctx, u64 ifindex, u64 flags, u64 a4, u64 a5)
{
	char name[IF_NAMESIZE];
	struct ifreq ifr;
	int fd, up;

	if (flags & ~(u64)BPF_F_INGRESS)
		return (u64)-EINVAL;
	if (!if_indextoname((u32)ifindex, name))
		return (u64)-EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	up = fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP);
	if (fd >= 0)
		close(fd);
	return up ? 0 : (u64)-ENETDOWN;
}
