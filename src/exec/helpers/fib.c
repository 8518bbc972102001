/* fib.c — bpf_fib_lookup(): the route, next hop and MAC addresses a forwarded packet would
 * take, from the network namespace of the calling thread (the one the kernel's test run uses).
 *
 * The kernel's helper (net/core/filter.c) reads its FIB directly.  userbpf asks the kernel the
 * same questions through routing netlink, so the routes, rules, neighbours and devices are the
 * kernel's own:
 * - a lookup through the rules (no BPF_FIB_LOOKUP_DIRECT) is an RTM_GETROUTE query: IPv6 as the
 *   kernel's input lookup (iif, source) or output lookup (BPF_FIB_LOOKUP_OUTPUT: oif, source);
 *   IPv4 as an output lookup without a source address (an IPv4 input query would check the
 *   source as a received packet's, which the helper does not), so IPv4 rules that select on
 *   the input device or the source do not see them;
 * - a lookup in one table (BPF_FIB_LOOKUP_DIRECT, BPF_FIB_LOOKUP_TBID) is done here, as the
 *   kernel's fib_table_lookup() and fib6_table_lookup() do it, over the table's routes dumped;
 * - the rest (MTU, source address, neighbour, device address) as the helper does it, on what
 *   RTM_GETLINK, RTM_GETADDR and RTM_GETNEIGH say.
 * Multipath routes take their first usable path (the kernel hashes the flow with a per-boot
 * seed), and route exceptions (learnt path MTUs) are not read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/neighbour.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* the neighbour states the kernel takes an entry's address from (NUD_VALID) */
#define NUD_VALID_STATES                                                                           \
	(NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY)
#undef IPV6_MIN_MTU
#define IPV6_MIN_MTU 1280u
#define IP6_MAX_MTU (65535u + 40u)

/* What RTM_GETLINK says of a device. */
struct fib_dev {
	u32 flags, type, mtu, mtu6;
	u8 addr[6];
	bool has_in, in_fwd;	/* an IPv4 config and its forwarding switch */
	bool has_in6, in6_fwd;
};

/* A route and the path of it the lookup takes. */
struct fib_route {
	u8 family, type, scope, tos, dst_len;
	u8 dst[16];
	u32 table, priority;
	bool dead;		/* every next hop dead (RTNH_F_DEAD) */
	u32 oif;
	u8 gw_family;
	u8 gw[16];
	bool has_prefsrc;
	u8 prefsrc[16];
	u32 mtu;		/* RTAX_MTU, 0 if none */
	bool mtu_locked;
	bool lwt;
	/* the next hops of a multipath route (a single one: oif and gw above) */
	u32 nh_oif[8];
	u8 nh_gw_family[8];
	u8 nh_gw[8][16];
	bool nh_dead[8];
	int nh_cnt;
};

/* ---- devices ---- */

static int link_cb(const struct nlmsghdr *h, void *arg)
{
	struct fib_dev *d = arg;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct rtattr *tb[IFLA_MAX + 1], *af;
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));

	if (h->nlmsg_type != RTM_NEWLINK || len < 0)
		return 0;
	d->flags = ifi->ifi_flags;
	d->type = ifi->ifi_type;
	rtnl_parse(tb, IFLA_MAX, IFLA_RTA(ifi), len);
	d->mtu = rta_u32(tb[IFLA_MTU]);
	if (tb[IFLA_ADDRESS])
		memcpy(d->addr, RTA_DATA(tb[IFLA_ADDRESS]),
		       RTA_PAYLOAD(tb[IFLA_ADDRESS]) < 6 ? RTA_PAYLOAD(tb[IFLA_ADDRESS]) : 6);
	if (!tb[IFLA_AF_SPEC])
		return 0;
	af = RTA_DATA(tb[IFLA_AF_SPEC]);
	for (int n = (int)RTA_PAYLOAD(tb[IFLA_AF_SPEC]); RTA_OK(af, n); af = RTA_NEXT(af, n)) {
		struct rtattr *sub[IFLA_INET6_MAX + 1];
		const s32 *conf;

		if (af->rta_type == AF_INET) {
			rtnl_parse(sub, IFLA_INET_MAX, RTA_DATA(af), (int)RTA_PAYLOAD(af));
			if (!sub[IFLA_INET_CONF] ||
			    RTA_PAYLOAD(sub[IFLA_INET_CONF]) < IPV4_DEVCONF_FORWARDING * 4)
				continue;
			conf = RTA_DATA(sub[IFLA_INET_CONF]);
			d->has_in = true;
			d->in_fwd = conf[IPV4_DEVCONF_FORWARDING - 1] != 0;
		} else if (af->rta_type == AF_INET6) {
			rtnl_parse(sub, IFLA_INET6_MAX, RTA_DATA(af), (int)RTA_PAYLOAD(af));
			if (!sub[IFLA_INET6_CONF] ||
			    RTA_PAYLOAD(sub[IFLA_INET6_CONF]) <= DEVCONF_MTU6 * 4)
				continue;
			conf = RTA_DATA(sub[IFLA_INET6_CONF]);
			d->has_in6 = true;
			d->in6_fwd = conf[DEVCONF_FORWARDING] != 0;
			d->mtu6 = (u32)conf[DEVCONF_MTU6];
		}
	}
	return 0;
}

/* 0, or -ENODEV for no device of that index in this namespace. */
static int dev_get(u32 ifindex, struct fib_dev *d)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex };
	struct rtnl_req r;

	memset(d, 0, sizeof(*d));
	if (!ifindex || ifindex > INT32_MAX)
		return -ENODEV;
	rtnl_req_init(&r, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	return rtnl_talk(&r, link_cb, d) ? -ENODEV : 0;
}

/* ---- routes ---- */

static void route_parse_nh(struct fib_route *rt, int i, const struct rtnexthop *nh)
{
	struct rtattr *tb[RTA_MAX + 1];
	int len = (int)nh->rtnh_len - (int)sizeof(*nh);

	rt->nh_oif[i] = (u32)nh->rtnh_ifindex;
	rt->nh_dead[i] = nh->rtnh_flags & RTNH_F_DEAD;
	rt->nh_gw_family[i] = 0;
	if (len <= 0)
		return;
	rtnl_parse(tb, RTA_MAX, RTNH_DATA(nh), len);
	if (tb[RTA_GATEWAY]) {
		rt->nh_gw_family[i] = rt->family;
		memcpy(rt->nh_gw[i], RTA_DATA(tb[RTA_GATEWAY]), rt->family == AF_INET ? 4 : 16);
	} else if (tb[RTA_VIA] && RTA_PAYLOAD(tb[RTA_VIA]) >= 2 + 16) {
		const struct rtvia *via = RTA_DATA(tb[RTA_VIA]);

		rt->nh_gw_family[i] = (u8)via->rtvia_family;
		memcpy(rt->nh_gw[i], via->rtvia_addr, 16);
	}
	if (tb[RTA_ENCAP])
		rt->lwt = true;
}

/* A route message into rt: false if it is not one. */
static bool route_parse(const struct nlmsghdr *h, struct fib_route *rt)
{
	const struct rtmsg *m = NLMSG_DATA(h);
	struct rtattr *tb[RTA_MAX + 1];
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
	size_t alen;

	if (h->nlmsg_type != RTM_NEWROUTE || len < 0)
		return false;
	memset(rt, 0, sizeof(*rt));
	rt->family = m->rtm_family;
	alen = m->rtm_family == AF_INET ? 4 : 16;
	rt->type = m->rtm_type;
	rt->scope = m->rtm_scope;
	rt->tos = m->rtm_tos;
	rt->dst_len = m->rtm_dst_len;
	rtnl_parse(tb, RTA_MAX, RTM_RTA(m), len);
	rt->table = tb[RTA_TABLE] ? rta_u32(tb[RTA_TABLE]) : m->rtm_table;
	rt->priority = rta_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_DST] && RTA_PAYLOAD(tb[RTA_DST]) >= alen)
		memcpy(rt->dst, RTA_DATA(tb[RTA_DST]), alen);
	if (tb[RTA_PREFSRC] && RTA_PAYLOAD(tb[RTA_PREFSRC]) >= alen) {
		rt->has_prefsrc = true;
		memcpy(rt->prefsrc, RTA_DATA(tb[RTA_PREFSRC]), alen);
	}
	if (tb[RTA_METRICS]) {
		struct rtattr *mx[RTAX_MAX + 1];

		rtnl_parse(mx, RTAX_MAX, RTA_DATA(tb[RTA_METRICS]),
			   (int)RTA_PAYLOAD(tb[RTA_METRICS]));
		rt->mtu = rta_u32(mx[RTAX_MTU]);
		rt->mtu_locked = rta_u32(mx[RTAX_LOCK]) & (1u << RTAX_MTU);
	}
	if (tb[RTA_MULTIPATH]) {
		const struct rtnexthop *nh = RTA_DATA(tb[RTA_MULTIPATH]);
		int n = (int)RTA_PAYLOAD(tb[RTA_MULTIPATH]);

		while (n >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) &&
		       nh->rtnh_len <= n && rt->nh_cnt < 8) {
			route_parse_nh(rt, rt->nh_cnt++, nh);
			n -= RTNH_ALIGN(nh->rtnh_len);
			nh = RTNH_NEXT(nh);
		}
	} else {
		struct rtnexthop one = { .rtnh_len = sizeof(one), .rtnh_flags = m->rtm_flags & 0xff,
					 .rtnh_ifindex = (int)rta_u32(tb[RTA_OIF]) };

		route_parse_nh(rt, 0, &one);
		rt->nh_cnt = 1;
		if (tb[RTA_GATEWAY] && RTA_PAYLOAD(tb[RTA_GATEWAY]) >= alen) {
			rt->nh_gw_family[0] = rt->family;
			memcpy(rt->nh_gw[0], RTA_DATA(tb[RTA_GATEWAY]), alen);
		} else if (tb[RTA_VIA] && RTA_PAYLOAD(tb[RTA_VIA]) >= 2 + 16) {
			const struct rtvia *via = RTA_DATA(tb[RTA_VIA]);

			rt->nh_gw_family[0] = (u8)via->rtvia_family;
			memcpy(rt->nh_gw[0], via->rtvia_addr, 16);
		}
	}
	if (tb[RTA_ENCAP])
		rt->lwt = true;
	rt->dead = true;
	for (int i = 0; i < rt->nh_cnt; i++)
		rt->dead &= rt->nh_dead[i];
	return true;
}

/* The path of rt the lookup takes: next hop i. */
static void route_take_nh(struct fib_route *rt, int i)
{
	rt->oif = rt->nh_oif[i];
	rt->gw_family = rt->nh_gw_family[i];
	memcpy(rt->gw, rt->nh_gw[i], 16);
}

static int route_one_cb(const struct nlmsghdr *h, void *arg)
{
	struct fib_route *rt = arg;

	if (route_parse(h, rt))
		route_take_nh(rt, 0);
	return 0;
}

/* An RTM_GETROUTE query, as `ip route get` sends it. */
static int route_query(struct fib_route *rt, u8 family, u32 rtm_flags, u8 tos, const void *dst,
		       const void *src, u32 iif, u32 oif, const struct bpf_fib_lookup *p,
		       u32 flags)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct rtmsg m = { .rtm_family = family, .rtm_flags = rtm_flags, .rtm_tos = tos,
			   .rtm_dst_len = (u8)(alen * 8), .rtm_src_len = src ? (u8)(alen * 8) : 0 };
	struct rtnl_req r;
	u32 uid = 0;

	rtnl_req_init(&r, RTM_GETROUTE, 0, &m, sizeof(m));
	rtnl_req_attr(&r, RTA_DST, dst, alen);
	if (src)
		rtnl_req_attr(&r, RTA_SRC, src, alen);
	if (iif)
		rtnl_req_attr(&r, RTA_IIF, &iif, 4);
	if (oif)
		rtnl_req_attr(&r, RTA_OIF, &oif, 4);
	if (flags & BPF_FIB_LOOKUP_MARK)
		rtnl_req_attr(&r, RTA_MARK, &FIB_MARK(p), 4);
	/* the helper's flow has uid 0 (sock_net_uid() without a socket) */
	rtnl_req_attr(&r, RTA_UID, &uid, 4);
	/* protocols RTM_GETROUTE takes; rules on others' ports cannot be asked for */
	if (p->l4_protocol == IPPROTO_TCP || p->l4_protocol == IPPROTO_UDP ||
	    p->l4_protocol == (family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
		rtnl_req_attr(&r, RTA_IP_PROTO, &p->l4_protocol, 1);
		rtnl_req_attr(&r, RTA_SPORT, &p->sport, 2);
		rtnl_req_attr(&r, RTA_DPORT, &p->dport, 2);
	}
	memset(rt, 0, sizeof(*rt));
	return rtnl_talk(&r, route_one_cb, rt);
}

/* A table's routes, dumped. */
struct route_list {
	struct fib_route *v;
	int n, cap;
	u32 table, table2;	/* the tables wanted (table2: local merged into main) */
	bool seen;		/* a route of the table exists */
};

static int route_list_cb(const struct nlmsghdr *h, void *arg)
{
	struct route_list *l = arg;
	struct fib_route rt;

	if (!route_parse(h, &rt) || (rt.table != l->table && rt.table != l->table2))
		return 0;
	if (rt.table == l->table)
		l->seen = true;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		struct fib_route *v = realloc(l->v, sizeof(*v) * (size_t)cap);

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = rt;
	return 0;
}

static int route_dump(struct route_list *l, u8 family)
{
	struct rtmsg m = { .rtm_family = family };
	struct rtnl_req r;

	rtnl_req_init(&r, RTM_GETROUTE, NLM_F_DUMP, &m, sizeof(m));
	return rtnl_talk(&r, route_list_cb, l);
}

static int rules_cb(const struct nlmsghdr *h, void *arg)
{
	const struct fib_rule_hdr *frh = NLMSG_DATA(h);
	struct rtattr *tb[FRA_MAX + 1];
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*frh));
	u32 pref, table;

	if (h->nlmsg_type != RTM_NEWRULE || len < 0)
		return 0;
	rtnl_parse(tb, FRA_MAX, (struct rtattr *)((char *)frh + NLMSG_ALIGN(sizeof(*frh))), len);
	pref = rta_u32(tb[FRA_PRIORITY]);
	table = tb[FRA_TABLE] ? rta_u32(tb[FRA_TABLE]) : frh->table;
	/* the three rules a namespace starts with, nothing else selecting */
	if (frh->action == FR_ACT_TO_TBL && !frh->dst_len && !frh->src_len && !frh->tos &&
	    !tb[FRA_FWMARK] && !tb[FRA_IFNAME] && !tb[FRA_OIFNAME] &&
	    ((pref == 0 && table == RT_TABLE_LOCAL) || (pref == 32766 && table == RT_TABLE_MAIN) ||
	     (pref == 32767 && table == RT_TABLE_DEFAULT)))
		return 0;
	*(bool *)arg = true;
	return 0;
}

/* Whether the namespace has IPv4 rules of its own: then the kernel keeps local and main apart
 * (it merges them into one trie until a rule is added, and never merges them back). */
static bool has_custom_rules(void)
{
	struct rtmsg m = { .rtm_family = AF_INET };
	struct rtnl_req r;
	bool custom = false;

	rtnl_req_init(&r, RTM_GETRULE, NLM_F_DUMP, &m, sizeof(m));
	return rtnl_talk(&r, rules_cb, &custom) ? true : custom;
}

static bool prefix_match(const u8 *a, const u8 *prefix, u8 len)
{
	u8 full = len / 8, rest = len % 8;

	if (memcmp(a, prefix, full))
		return false;
	return !rest || !((a[full] ^ prefix[full]) & (u8)(0xff << (8 - rest)));
}

/* The kernel's errors for a route of a reject type (fib_props[type].error). */
static int reject_error(u8 type)
{
	switch (type) {
	case RTN_BLACKHOLE: case RTN_NAT: case RTN_XRESOLVE: return -EINVAL;
	case RTN_UNREACHABLE: return -EHOSTUNREACH;
	case RTN_PROHIBIT: return -EACCES;
	case RTN_THROW: return -EAGAIN;
	default: return 0;
	}
}

/* Candidates for dst in the order the kernel's tries try them: longest prefix first, then (as
 * each prefix keeps its routes) IPv4 by TOS descending and priority, IPv6 by metric. */
static int route_cmp(const void *pa, const void *pb)
{
	const struct fib_route *a = pa, *b = pb;

	if (a->dst_len != b->dst_len)
		return b->dst_len - a->dst_len;
	if (a->tos != b->tos)
		return b->tos - a->tos;
	if (a->priority != b->priority)
		return a->priority < b->priority ? -1 : 1;
	return 0;
}

/* fib_table_lookup() and fib6_table_lookup() over a dumped table: 0 with *out, the kernel's
 * lookup error, or 1 for no such table. */
static int table_lookup(u8 family, u32 table, const u8 *dst, u8 tos, u32 oif,
			struct fib_route *out)
{
	struct route_list l;
	int err, n = 0;

	/* (fib_get_table() and fib6_get_table() take 0 for main) */
	if (!table)
		table = RT_TABLE_MAIN;
	l = (struct route_list){ .table = table, .table2 = table };

	if (family == AF_INET && (table == RT_TABLE_MAIN || table == RT_TABLE_LOCAL) &&
	    !has_custom_rules()) {
		l.table = RT_TABLE_MAIN;
		l.table2 = RT_TABLE_LOCAL;
	}
	err = route_dump(&l, family);
	if (err) {
		free(l.v);
		return err;
	}
	if (!l.seen && table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL) {
		free(l.v);
		return 1;
	}
	for (int i = 0; i < l.n; i++)
		if (prefix_match(dst, l.v[i].dst, l.v[i].dst_len))
			l.v[n++] = l.v[i];
	/* (a stable order: the dump lists a prefix's routes in the kernel's order) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && route_cmp(&l.v[j - 1], &l.v[j]) > 0; j--) {
			struct fib_route t = l.v[j];

			l.v[j] = l.v[j - 1];
			l.v[j - 1] = t;
		}
	err = -ENETUNREACH;
	for (int i = 0; i < n && err == -ENETUNREACH;) {
		int end = i, best = -1, best_nh = 0, best_score = -1;

		while (end < n && l.v[end].dst_len == l.v[i].dst_len)
			end++;
		for (int k = i; k < end; k++) {
			struct fib_route *rt = &l.v[k];

			if (family == AF_INET) {
				/* 6.18 matches a route's TOS against the flow's DSCP's legacy bits */
				if (rt->tos && rt->tos != (tos & 0x1c))
					continue;
				if (reject_error(rt->type)) {
					err = reject_error(rt->type);
					break;
				}
				for (int h = 0; h < rt->nh_cnt && best < 0; h++)
					if (!rt->nh_dead[h] && (!oif || rt->nh_oif[h] == oif)) {
						best = k;
						best_nh = h;
					}
				if (best >= 0)
					break;
			} else {
				/* rt6_select(): the first of the best score (the device asked
				 * for, if any), among the routes of the prefix's lowest metric,
				 * then, if none is usable, among the others */
				int score = !oif || rt->nh_oif[0] == oif ? 2 : 0;

				if (best >= 0 && rt->priority != l.v[i].priority &&
				    l.v[best].priority == l.v[i].priority)
					break;
				if (!rt->dead && score > best_score) {
					best = k;
					best_score = score;
				}
			}
		}
		if (best >= 0) {
			*out = l.v[best];
			route_take_nh(out, best_nh);
			err = 0;
		}
		i = end;
	}
	free(l.v);
	return err;
}

/* ---- addresses and neighbours ---- */

struct addr_pick {
	u32 ifindex, scope, dst;
	bool any_dev;		/* the fallback: any device's address */
	u32 addr;
};

static int addr_cb(const struct nlmsghdr *h, void *arg)
{
	struct addr_pick *a = arg;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	struct rtattr *tb[IFA_MAX + 1];
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifa));
	u32 local, address, mask, fl;

	if (h->nlmsg_type != RTM_NEWADDR || len < 0 || ifa->ifa_family != AF_INET)
		return 0;
	rtnl_parse(tb, IFA_MAX, IFA_RTA(ifa), len);
	fl = tb[IFA_FLAGS] ? rta_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	if (fl & IFA_F_SECONDARY || ifa->ifa_scope > a->scope || !tb[IFA_LOCAL])
		return 0;
	local = rta_u32(tb[IFA_LOCAL]);
	address = tb[IFA_ADDRESS] ? rta_u32(tb[IFA_ADDRESS]) : local;
	if (a->any_dev) {
		if (ifa->ifa_scope != RT_SCOPE_LINK && !a->addr)
			a->addr = local;
		return 0;
	}
	if (ifa->ifa_index != a->ifindex || (a->addr && a->dst == (u32)-1))
		return 0;
	mask = ifa->ifa_prefixlen ? htonl(~0u << (32 - ifa->ifa_prefixlen)) : 0;
	if (!a->dst || !((a->dst ^ address) & mask)) {
		a->addr = local;
		a->dst = (u32)-1; /* found: the rest is read, not taken */
	} else if (!a->addr) {
		a->addr = local;
	}
	return 0;
}

/* inet_select_addr(): the device's first primary address of the route's scope or wider, one
 * on dst's subnet preferred; else any device's (the loopback's first). */
static u32 select_addr4(u32 ifindex, u32 dst, u8 scope)
{
	struct ifaddrmsg m = { .ifa_family = AF_INET };
	struct addr_pick a = { .ifindex = ifindex, .scope = scope, .dst = dst };
	struct rtnl_req r;

	rtnl_req_init(&r, RTM_GETADDR, NLM_F_DUMP, &m, sizeof(m));
	if (rtnl_talk(&r, addr_cb, &a))
		return 0;
	if (a.addr)
		return a.addr;
	a.any_dev = true;
	rtnl_req_init(&r, RTM_GETADDR, NLM_F_DUMP, &m, sizeof(m));
	return rtnl_talk(&r, addr_cb, &a) ? 0 : a.addr;
}

struct neigh_ans {
	u16 state;
	u8 lladdr[6];
};

static int neigh_cb(const struct nlmsghdr *h, void *arg)
{
	struct neigh_ans *a = arg;
	const struct ndmsg *nd = NLMSG_DATA(h);
	struct rtattr *tb[NDA_MAX + 1];
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*nd));

	if (h->nlmsg_type != RTM_NEWNEIGH || len < 0)
		return 0;
	rtnl_parse(tb, NDA_MAX, (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd))), len);
	a->state = nd->ndm_state;
	if (tb[NDA_LLADDR])
		memcpy(a->lladdr, RTA_DATA(tb[NDA_LLADDR]),
		       RTA_PAYLOAD(tb[NDA_LLADDR]) < 6 ? RTA_PAYLOAD(tb[NDA_LLADDR]) : 6);
	return 0;
}

/* The neighbour entry of addr on the device, if its state is a valid one (NUD_VALID). */
static bool neigh_valid(u8 family, u32 ifindex, const void *addr, u8 lladdr[6])
{
	struct ndmsg nd = { .ndm_family = family, .ndm_ifindex = (int)ifindex };
	struct neigh_ans a = { 0 };
	struct rtnl_req r;

	rtnl_req_init(&r, RTM_GETNEIGH, 0, &nd, sizeof(nd));
	rtnl_req_attr(&r, NDA_DST, addr, family == AF_INET ? 4 : 16);
	if (rtnl_talk(&r, neigh_cb, &a) || !(a.state & NUD_VALID_STATES))
		return false;
	memcpy(lladdr, a.lladdr, 6);
	return true;
}

/* ---- the lookup ---- */

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
	FILE *f = fopen("/proc/sys/net/ipv4/ip_forward_use_pmtu", "re");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}

static int ipv4_lookup(struct bpf_fib_lookup *p, u32 flags, bool check_mtu)
{
	struct fib_dev in, out;
	struct fib_route rt, fm;
	u32 mtu = 0, oif = flags & BPF_FIB_LOOKUP_OUTPUT ? p->ifindex : 0;
	u8 tos = p->tos & 0xfc;
	int err;

	if (dev_get(p->ifindex, &in))
		return -ENODEV;
	if (!in.has_in || !in.in_fwd)
		return BPF_FIB_LKUP_RET_FWD_DISABLED;
	if (flags & BPF_FIB_LOOKUP_DIRECT) {
		u32 tbid = RT_TABLE_MAIN;

		if (flags & BPF_FIB_LOOKUP_TBID) {
			tbid = p->tbid;
			p->tbid = 0;
		}
		err = table_lookup(AF_INET, tbid, (const u8 *)&p->ipv4_dst, tos, oif, &rt);
		if (err == 1)
			return BPF_FIB_LKUP_RET_NOT_FWDED;
		if (!err && !rt.has_prefsrc && (flags & BPF_FIB_LOOKUP_SRC)) {
			/* fib_result_prefsrc(): the route's own, else one of its device's */
			u32 gw = 0, s;

			if (rt.gw_family == AF_INET)
				memcpy(&gw, rt.gw, 4);
			s = select_addr4(rt.oif, gw, rt.scope);
			memcpy(rt.prefsrc, &s, 4);
		}
	} else {
		/* the resolved route (its path and, for its source, fib_result_prefsrc()),
		 * then the FIB entry behind it for the metric */
		err = route_query(&rt, AF_INET, 0, tos, &p->ipv4_dst, NULL, 0, oif, p, flags);
		if (!err && rt.type == RTN_UNICAST) {
			err = route_query(&fm, AF_INET, RTM_F_FIB_MATCH, tos, &p->ipv4_dst, NULL,
					  0, oif, p, flags);
			/* No FIB entry behind a route by oif: the kernel's output routing took
			 * the destination as on-link after its lookup failed.  The helper
			 * reports that failure, which the lookup without oif shows (a route
			 * through another device: none through this one). */
			if (err && oif) {
				err = route_query(&fm, AF_INET, 0, tos, &p->ipv4_dst, NULL, 0, 0, p,
						  flags);
				if (!err)
					err = -ENETUNREACH;
			}
			rt.priority = fm.priority;
			rt.mtu = fm.mtu;
			rt.mtu_locked = fm.mtu_locked;
			rt.lwt |= fm.lwt;
		}
	}
	if (err)
		return lookup_error_code(err);
	if (rt.type != RTN_UNICAST)
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (dev_get(rt.oif, &out))
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
	if (rt.gw_family == AF_INET6 ? !neigh_valid(AF_INET6, rt.oif, p->ipv6_dst, p->dmac)
	    : !neigh_valid(AF_INET, rt.oif,
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
	struct fib_dev in, out;
	struct fib_route rt;
	u8 dst[16];
	u32 mtu = 0;
	bool output = flags & BPF_FIB_LOOKUP_OUTPUT;
	u8 tclass = (u8)((ntohl(p->flowinfo) >> 20) & 0xff);
	int err;

	if (ipv6_strict(p->ipv6_dst) || ipv6_strict(p->ipv6_src))
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	if (dev_get(p->ifindex, &in))
		return -ENODEV;
	if (!in.has_in6 || !in.in6_fwd)
		return BPF_FIB_LKUP_RET_FWD_DISABLED;
	memcpy(dst, p->ipv6_dst, 16);
	if (flags & BPF_FIB_LOOKUP_DIRECT) {
		u32 tbid = RT_TABLE_MAIN;

		if (flags & BPF_FIB_LOOKUP_TBID) {
			tbid = p->tbid;
			p->tbid = 0;
		}
		err = table_lookup(AF_INET6, tbid, dst, 0, output ? p->ifindex : 0, &rt);
		if (err)
			return BPF_FIB_LKUP_RET_NOT_FWDED;
		switch (rt.type) {
		case RTN_UNICAST: break;
		case RTN_BLACKHOLE: return BPF_FIB_LKUP_RET_BLACKHOLE;
		case RTN_UNREACHABLE: return BPF_FIB_LKUP_RET_UNREACHABLE;
		case RTN_PROHIBIT: return BPF_FIB_LKUP_RET_PROHIBIT;
		default: return BPF_FIB_LKUP_RET_NOT_FWDED;
		}
	} else {
		/* (an input query for BPF_FIB_LOOKUP_OUTPUT too: the kernel's input lookup
		 * passes its device on as the table lookup's, as the helper passes its oif;
		 * an output query without a source would insist on the device) */
		err = route_query(&rt, AF_INET6, 0, tclass, dst, p->ipv6_src, p->ifindex, 0, p,
				  flags);
		if (err)
			return lookup_error_code(err);
		if (rt.type != RTN_UNICAST)
			return BPF_FIB_LKUP_RET_NOT_FWDED;
	}
	/* The source for BPF_FIB_LOOKUP_SRC: the route's own, else ipv6_dev_get_saddr() on its
	 * device, which an output query by that device reports (a table's route and an input
	 * query's answer have only the route's own). */
	if ((flags & BPF_FIB_LOOKUP_SRC) && !rt.has_prefsrc) {
		struct fib_route o;

		if (!route_query(&o, AF_INET6, 0, tclass, dst, NULL, 0, rt.oif, p, flags) &&
		    o.has_prefsrc) {
			rt.has_prefsrc = true;
			memcpy(rt.prefsrc, o.prefsrc, 16);
		}
	}
	if (dev_get(rt.oif, &out))
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
	if (!neigh_valid(AF_INET6, rt.oif, p->ipv6_dst, p->dmac))
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
	struct fib_dev dev;

	if (rc == BPF_FIB_LKUP_RET_SUCCESS && !check_mtu && !dev_get(p->ifindex, &dev)) {
		u32 hh = dev.type == ARPHRD_ETHER || dev.type == ARPHRD_LOOPBACK ? 14 : 0;

		if (!(dev.flags & IFF_UP) || skb->ctx.uapi.len > dev.mtu + hh + 4)
			rc = BPF_FIB_LKUP_RET_FRAG_NEEDED;
		p->mtu_result = (u16)dev.mtu;
	}
	return (u64)rc;
}
