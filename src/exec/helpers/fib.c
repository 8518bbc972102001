/* fib.c — bpf_fib_lookup(): the route, next hop and MAC addresses a forwarded packet would
 * take, from the network namespace of the calling thread (the one the kernel's test run uses).
 *
 * The kernel's helper (net/core/filter.c) reads its FIB directly; userbpf reads the same
 * routes, rules, neighbours and devices through routing netlink and searches them as the
 * kernel does (src/exec/fib_tables.c, which says what it leaves out).  This file is the
 * helper's own part: its flags and refusals, the flow it looks up, forwarding, the MTU check,
 * the source address, the gateway and the neighbour, in the order the kernel's fills the
 * struct in (an answer other than success leaves what was filled until then).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fib_tables.h"
#include "exec/rtnl.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

#ifndef BPF_FIB_LOOKUP_MARK
#define BPF_FIB_LOOKUP_MARK (1U << 5)
#endif
#define FIB_FLAGS_KNOWN                                                                            \
	(BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_OUTPUT | BPF_FIB_LOOKUP_SKIP_NEIGH |               \
	 BPF_FIB_LOOKUP_TBID | BPF_FIB_LOOKUP_SRC | BPF_FIB_LOOKUP_MARK)
/* 6.18's struct bpf_fib_lookup has the input mark where smac starts */
#define FIB_MARK(p) (*(const u32 *)(const void *)(p)->smac)

#define IP_MAX_MTU 0xFFF0u
#undef IPV6_MIN_MTU
#define IPV6_MIN_MTU 1280u
#define IP6_MAX_MTU (65535u + 40u)

static int lookup_error_code(int err)
{
	if (err == -EINVAL)
		return BPF_FIB_LKUP_RET_BLACKHOLE;
	if (err == -EHOSTUNREACH)
		return BPF_FIB_LKUP_RET_UNREACHABLE;
	if (err == -EACCES)
		return BPF_FIB_LKUP_RET_PROHIBIT;
	return BPF_FIB_LKUP_RET_NOT_FWDED;
}

/* What the kernel's bpf_fib_set_fwd_params() leaves. */
static int set_fwd_params(struct bpf_fib_lookup *p, u32 mtu)
{
	p->h_vlan_TCI = 0;
	p->h_vlan_proto = 0;
	if (mtu)
		p->mtu_result = (u16)mtu;
	return BPF_FIB_LKUP_RET_SUCCESS;
}

static bool fwd_use_pmtu(void)
{
	return fib_net_sysctl("/proc/sys/net/ipv4/ip_forward_use_pmtu") != 0;
}

/* The flow's fields both families fill alike: the devices as the rules see them (an output
 * lookup's input device is the loopback), the mark, protocol and ports. */
static struct fib_flow helper_flow(const struct bpf_fib_lookup *p, u32 flags, u8 family)
{
	bool output = flags & BPF_FIB_LOOKUP_OUTPUT;

	return (struct fib_flow){ .family = family, .iif = output ? 1 : p->ifindex,
				  .oif = output ? p->ifindex : 0,
				  .mark = flags & BPF_FIB_LOOKUP_MARK ? FIB_MARK(p) : 0,
				  .proto = p->l4_protocol, .sport = p->sport, .dport = p->dport };
}

/* BPF_FIB_LOOKUP_DIRECT's table: main, or with BPF_FIB_LOOKUP_TBID the one params names (0:
 * main, as fib_get_table() and fib6_get_table() take it), whose field the helper then zeroes
 * (it is the VLAN output's). */
static u32 direct_table(struct bpf_fib_lookup *p, u32 flags)
{
	u32 tbid = RT_TABLE_MAIN;

	if (flags & BPF_FIB_LOOKUP_TBID) {
		tbid = p->tbid ? p->tbid : RT_TABLE_MAIN;
		p->tbid = 0;
	}
	return tbid;
}

static int ipv4_lookup(struct bpf_fib_lookup *p, u32 flags, bool check_mtu)
{
	struct rtnl_link in, out;
	struct fib_route rt;
	struct fib_route_list all;
	struct fib_flow flow;
	u32 mtu = 0, oif = flags & BPF_FIB_LOOKUP_OUTPUT ? p->ifindex : 0;
	int err;

	if (rtnl_link_get(p->ifindex, &in))
		return -ENODEV;
	if (!in.has_in || !in.in_fwd)
		return BPF_FIB_LKUP_RET_FWD_DISABLED;
	flow = helper_flow(p, flags, AF_INET);
	flow.dst = (const u8 *)&p->ipv4_dst;
	flow.src = (const u8 *)&p->ipv4_src;
	flow.tos = p->tos;
	flow.tbl_oif = oif;
	err = fib_routes_dump(&all, AF_INET);
	if (!err && (flags & BPF_FIB_LOOKUP_DIRECT)) {
		u32 tbid = direct_table(p, flags);

		/* main and local are one trie while the namespace has no rules of its own */
		if ((tbid == RT_TABLE_MAIN || tbid == RT_TABLE_LOCAL) && !fib_rules_custom(AF_INET))
			err = fib_table_search(&all, &flow, RT_TABLE_MAIN, RT_TABLE_LOCAL, &rt);
		else
			err = fib_table_search(&all, &flow, tbid, tbid, &rt);
	} else if (!err) {
		err = fib_rules_search(&all, &flow, &rt);
	}
	free(all.v);
	if (!err && !rt.has_prefsrc && (flags & BPF_FIB_LOOKUP_SRC)) {
		/* fib_result_prefsrc(): the route's own, else inet_select_addr() on its device
		 * near the gateway (the first 4 bytes of an IPv6 one, as the kernel's union
		 * gives them) */
		u32 gw = 0, src;

		if (rt.gw_family)
			memcpy(&gw, rt.gw, 4);
		src = fib_select_addr4(rt.oif, gw, rt.scope);
		memcpy(rt.prefsrc, &src, 4);
	}
	if (err)
		return lookup_error_code(err);
	if (rt.type != RTN_UNICAST)
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (rtnl_link_get(rt.oif, &out))
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (check_mtu) {
		/* ip_mtu_from_fib_result() */
		if (rt.mtu && (rt.mtu_locked || fwd_use_pmtu()))
			mtu = rt.mtu;
		else
			mtu = out.mtu < IP_MAX_MTU ? out.mtu : IP_MAX_MTU;
		if (p->tot_len > mtu) {
			p->mtu_result = (u16)mtu;
			return BPF_FIB_LKUP_RET_FRAG_NEEDED;
		}
	}
	if (rt.lwt)
		return BPF_FIB_LKUP_RET_UNSUPP_LWT;
	p->rt_metric = rt.priority;
	p->ifindex = rt.oif;
	if (flags & BPF_FIB_LOOKUP_SRC)
		memcpy(&p->ipv4_src, rt.prefsrc, 4);
	if (rt.gw_family == AF_INET) {
		memcpy(&p->ipv4_dst, rt.gw, 4);
	} else if (rt.gw_family == AF_INET6) {
		p->family = AF_INET6;
		memcpy(p->ipv6_dst, rt.gw, 16);
	}
	if (flags & BPF_FIB_LOOKUP_SKIP_NEIGH)
		return set_fwd_params(p, mtu);
	if (rt.gw_family == AF_INET6 ? !fib_neigh_valid(AF_INET6, rt.oif, p->ipv6_dst, p->dmac)
	    : !fib_neigh_valid(AF_INET, rt.oif,
			   out.flags & (IFF_LOOPBACK | IFF_POINTOPOINT) ? &(u32){ 0 }
									 : &p->ipv4_dst,
			   p->dmac))
		return BPF_FIB_LKUP_RET_NO_NEIGH;
	memcpy(p->smac, out.addr, 6);
	return set_fwd_params(p, mtu);
}

/* rt6_need_strict(): multicast, link-local and loopback addresses are never forwarded. */
static bool ipv6_strict(const u32 *a)
{
	const u8 *b = (const u8 *)a;
	static const u8 loopback[16] = { [15] = 1 };

	return b[0] == 0xff || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
	       !memcmp(b, loopback, 16);
}

static int ipv6_lookup(struct bpf_fib_lookup *p, u32 flags, bool check_mtu)
{
	static const u8 any[16];
	struct rtnl_link in, out;
	struct fib_route rt;
	struct fib_route_list all;
	struct fib_flow flow;
	u8 dst[16];
	u32 mtu = 0;
	bool output = flags & BPF_FIB_LOOKUP_OUTPUT;
	u8 tclass = (u8)((ntohl(p->flowinfo) >> 20) & 0xff);
	int err;

	if (ipv6_strict(p->ipv6_dst) || ipv6_strict(p->ipv6_src))
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (rtnl_link_get(p->ifindex, &in))
		return -ENODEV;
	if (!in.has_in6 || !in.in6_fwd)
		return BPF_FIB_LKUP_RET_FWD_DISABLED;
	memcpy(dst, p->ipv6_dst, 16);
	/* The rules see the loopback as an output lookup's input device, and its source only
	 * for an input lookup (RT6_LOOKUP_F_HAS_SADDR); the table lookup prefers the device
	 * either way. */
	flow = helper_flow(p, flags, AF_INET6);
	flow.dst = dst;
	flow.src = output ? NULL : (const u8 *)p->ipv6_src;
	flow.tos = tclass;
	flow.tbl_oif = p->ifindex;
	err = fib_routes_dump(&all, AF_INET6);
	if (!err && (flags & BPF_FIB_LOOKUP_DIRECT)) {
		u32 tbid = direct_table(p, flags);

		err = fib_table_search(&all, &flow, tbid, tbid, &rt);
	} else if (!err) {
		err = fib_rules_search(&all, &flow, &rt);
	}
	free(all.v);
	if (err)
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	switch (rt.type) {
	case RTN_UNICAST: break;
	case RTN_BLACKHOLE: return BPF_FIB_LKUP_RET_BLACKHOLE;
	case RTN_UNREACHABLE: return BPF_FIB_LKUP_RET_UNREACHABLE;
	case RTN_PROHIBIT: return BPF_FIB_LKUP_RET_PROHIBIT;
	default: return BPF_FIB_LKUP_RET_NOT_FWDED;
	}
	/* The source for BPF_FIB_LOOKUP_SRC: the route's own, else ipv6_dev_get_saddr() on its
	 * device, which an output query by that device reports. */
	if ((flags & BPF_FIB_LOOKUP_SRC) && !rt.has_prefsrc) {
		struct fib_route o;

		if (!fib_output_route6(&o, dst, rt.oif) &&
		    o.has_prefsrc) {
			rt.has_prefsrc = true;
			memcpy(rt.prefsrc, o.prefsrc, 16);
		}
	}
	if (rtnl_link_get(rt.oif, &out))
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (check_mtu) {
		/* ip6_mtu_from_fib6() */
		if (rt.mtu_locked && rt.mtu) {
			mtu = rt.mtu;
		} else {
			mtu = out.mtu6 > IPV6_MIN_MTU ? out.mtu6 : IPV6_MIN_MTU;
			mtu = mtu < IP6_MAX_MTU ? mtu : IP6_MAX_MTU;
		}
		if (p->tot_len > mtu) {
			p->mtu_result = (u16)mtu;
			return BPF_FIB_LKUP_RET_FRAG_NEEDED;
		}
	}
	if (rt.lwt)
		return BPF_FIB_LKUP_RET_UNSUPP_LWT;
	if (rt.gw_family == AF_INET6)
		memcpy(p->ipv6_dst, rt.gw, 16);
	p->rt_metric = rt.priority;
	p->ifindex = rt.oif;
	if (flags & BPF_FIB_LOOKUP_SRC) {
		if (!rt.has_prefsrc || !memcmp(rt.prefsrc, any, 16))
			return BPF_FIB_LKUP_RET_NO_SRC_ADDR;
		memcpy(p->ipv6_src, rt.prefsrc, 16);
	}
	if (flags & BPF_FIB_LOOKUP_SKIP_NEIGH)
		return set_fwd_params(p, mtu);
	if (!fib_neigh_valid(AF_INET6, rt.oif, p->ipv6_dst, p->dmac))
		return BPF_FIB_LKUP_RET_NO_NEIGH;
	memcpy(p->smac, out.addr, 6);
	return set_fwd_params(p, mtu);
}

static s64 fib_lookup(struct bpf_fib_lookup *p, s32 plen, u64 flags, bool check_mtu)
{
	if (plen < (s32)sizeof(*p) || (flags & ~(u64)FIB_FLAGS_KNOWN))
		return -EINVAL;
	switch (p->family) {
	case AF_INET:
		return ipv4_lookup(p, (u32)flags, check_mtu);
	case AF_INET6:
		return ipv6_lookup(p, (u32)flags, check_mtu);
	}
	return -EAFNOSUPPORT;
}

/* bpf_fib_lookup(ctx, params, plen, flags) for XDP: the MTU always checked (against tot_len). */
u64 h_xdp_fib_lookup(u64 ctx, u64 params, u64 plen, u64 flags, u64 a5)
{
	return (u64)fib_lookup(PTR(params), (s32)plen, flags, true);
}

/* For tc: the MTU checked against tot_len when given, else the packet against the egress
 * device (the kernel's is_skb_forwardable(): up, and within its MTU and header, a VLAN tag
 * allowed), whose MTU it reports. */
u64 h_skb_fib_lookup(u64 ctx, u64 params, u64 plen, u64 flags, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	struct bpf_fib_lookup *p = PTR(params);
	bool check_mtu = (s32)plen >= (s32)sizeof(*p) && p->tot_len;
	s64 rc = fib_lookup(p, (s32)plen, flags, check_mtu);
	struct rtnl_link dev;

	if (rc == BPF_FIB_LKUP_RET_SUCCESS && !check_mtu && !rtnl_link_get(p->ifindex, &dev)) {
		if (!(dev.flags & IFF_UP) ||
		    skb->ctx.uapi.len > dev.mtu + rtnl_link_hh_len(&dev) + 4 /* a VLAN tag */)
			rc = BPF_FIB_LKUP_RET_FRAG_NEEDED;
		p->mtu_result = (u16)dev.mtu;
	}
	return (u64)rc;
}
