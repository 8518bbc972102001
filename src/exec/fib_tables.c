/* fib_tables.c — the kernel's routing state and lookups, as fib_tables.h says.  Each lookup
 * reads the state anew (a dump per family): a test run's lookups are few, and it is then
 * exactly what the kernel holds at that moment.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/neighbour.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fib_tables.h"
#include "exec/rtnl.h"

/* the neighbour states the kernel takes an entry's address from (NUD_VALID) */
#define NUD_VALID_STATES                                                                           \
	(NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY)

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

/* The kernel's IPv6 output route to dst through the device (`ip -6 route get dst oif dev`):
 * its answer's preferred source is what ipv6_dev_get_saddr() picks on that device. */
int fib_output_route6(struct fib_route *rt, const u8 *dst, u32 oif)
{
	struct rtmsg m = { .rtm_family = AF_INET6, .rtm_dst_len = 128 };
	struct rtnl_req r;

	rtnl_req_init(&r, RTM_GETROUTE, 0, &m, sizeof(m));
	rtnl_req_attr(&r, RTA_DST, dst, 16);
	rtnl_req_attr(&r, RTA_OIF, &oif, 4);
	memset(rt, 0, sizeof(*rt));
	return rtnl_talk(&r, route_one_cb, rt);
}

/* v with room for one more element (n used of *cap), maybe moved; NULL if out of memory (v
 * is kept). */
static void *grow(void *v, int n, int *cap, size_t elem)
{
	int more = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return v;
	v = realloc(v, elem * (size_t)more);
	if (v)
		*cap = more;
	return v;
}

static int route_list_cb(const struct nlmsghdr *h, void *arg)
{
	struct fib_route_list *l = arg;
	struct fib_route rt, *v;

	if (!route_parse(h, &rt))
		return 0;
	v = grow(l->v, l->n, &l->cap, sizeof(*l->v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = rt;
	return 0;
}

int fib_routes_dump(struct fib_route_list *l, u8 family)
{
	struct rtmsg m = { .rtm_family = family };
	struct rtnl_req r;

	memset(l, 0, sizeof(*l));
	rtnl_req_init(&r, RTM_GETROUTE, NLM_F_DUMP, &m, sizeof(m));
	return rtnl_talk(&r, route_list_cb, l);
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
 * each prefix keeps its routes) IPv4 by TOS descending and priority, IPv6 by metric; the dump
 * lists a prefix's routes in the kernel's order, which the (stable) sort keeps. */
static bool route_before(const struct fib_route *a, const struct fib_route *b)
{
	if (a->dst_len != b->dst_len)
		return a->dst_len > b->dst_len;
	if (a->tos != b->tos)
		return a->tos > b->tos;
	return a->priority < b->priority;
}


/* rt6_score_route() of a route's first next hop: -1 to pass it over, else higher is better
 * (the device asked for, if any).  The helper's lookups never have RT6_LOOKUP_F_REACHABLE
 * (ip6_pol_route() adds it, not fib6_table_lookup()), so neighbours do not count. */
static int rt6_score(const struct fib_route *rt, const struct fib_flow *f)
{
	if (rt->dead)
		return -1;
	return !f->tbl_oif || rt->nh_oif[0] == f->tbl_oif ? 2 : 0;
}

/* fib_table_lookup() and fib6_table_lookup() in table (and table2: IPv4's local table merged
 * into main) of the dumped routes: 0 with *out, the kernel's error for an IPv4 reject route,
 * or -EAGAIN where no route matches (as fib_table_lookup() says it). */
int fib_table_search(const struct fib_route_list *all, const struct fib_flow *f, u32 table,
			u32 table2, struct fib_route *out)
{
	struct fib_route **c = malloc(sizeof(*c) * (size_t)(all->n + 1));
	int err = -EAGAIN, n = 0;

	if (!c)
		return -ENOMEM;
	for (int i = 0; i < all->n; i++) {
		struct fib_route *rt = &all->v[i];
		int j;

		if ((rt->table != table && rt->table != table2) ||
		    !prefix_match(f->dst, rt->dst, rt->dst_len))
			continue;
		for (j = n++; j > 0 && route_before(rt, c[j - 1]); j--)
			c[j] = c[j - 1];
		c[j] = rt;
	}
	for (int i = 0; i < n && err == -EAGAIN;) {
		int end = i, best = -1, best_nh = 0, best_score = -1;

		while (end < n && c[end]->dst_len == c[i]->dst_len)
			end++;
		for (int k = i; k < end; k++) {
			const struct fib_route *rt = c[k];

			if (f->family == AF_INET) {
				/* 6.18 matches a route's TOS against the flow's legacy bits */
				if (rt->tos && rt->tos != (f->tos & 0x1c))
					continue;
				if (reject_error(rt->type)) {
					err = reject_error(rt->type);
					break;
				}
				for (int h = 0; h < rt->nh_cnt && best < 0; h++)
					if (!rt->nh_dead[h] &&
					    (!f->tbl_oif || rt->nh_oif[h] == f->tbl_oif)) {
						best = k;
						best_nh = h;
					}
				if (best >= 0)
					break;
			} else {
				/* rt6_select(): the first of the best score among the routes of
				 * the prefix's lowest metric, then, if none is usable, among the
				 * others */
				int score;

				if (best >= 0 && rt->priority != c[i]->priority &&
				    c[best]->priority == c[i]->priority)
					break;
				score = rt6_score(rt, f);
				if (score > best_score) {
					best = k;
					best_score = score;
				}
			}
		}
		if (best >= 0) {
			*out = *c[best];
			route_take_nh(out, best_nh);
			err = 0;
		}
		i = end;
	}
	free(c);
	return err;
}

/* ---- policy rules ---- */

struct fib_rule {
	u32 pref, table, action, flags, goto_pref;
	u8 dst[16], src[16], dst_len, src_len, tos, ip_proto;
	u32 mark, mark_mask;
	u32 uid_start, uid_end;
	u16 sport[2], dport[2];	/* ranges; 0/0: any */
	int iif, oif;		/* 0: any; -1: a device not there, matching nothing */
	s32 suppress_prefixlen;
	bool never;		/* a selector userbpf's flows never meet (l3mdev, tunnel id) */
};

struct rule_list {
	struct fib_rule *v;
	int n, cap;
	bool custom;	/* anything but the three rules a namespace starts with */
};

static int dev_by_name(const struct rtattr *a)
{
	char name[IF_NAMESIZE] = { 0 };
	unsigned int i;

	if (!a)
		return 0;
	memcpy(name, RTA_DATA(a), RTA_PAYLOAD(a) < IF_NAMESIZE ? RTA_PAYLOAD(a) : IF_NAMESIZE - 1);
	i = if_nametoindex(name);
	return i ? (int)i : -1;
}

static int rules_cb(const struct nlmsghdr *h, void *arg)
{
	struct rule_list *l = arg;
	const struct fib_rule_hdr *frh = NLMSG_DATA(h);
	struct rtattr *tb[FRA_MAX + 1];
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*frh));
	struct fib_rule *r, *v;
	u64 tun_id = 0;

	if (h->nlmsg_type != RTM_NEWRULE || len < 0)
		return 0;
	v = grow(l->v, l->n, &l->cap, sizeof(*l->v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	r = &l->v[l->n++];
	memset(r, 0, sizeof(*r));
	rtnl_parse(tb, FRA_MAX, (struct rtattr *)((char *)frh + NLMSG_ALIGN(sizeof(*frh))), len);
	r->pref = rta_u32(tb[FRA_PRIORITY]);
	r->table = tb[FRA_TABLE] ? rta_u32(tb[FRA_TABLE]) : frh->table;
	r->action = frh->action;
	r->flags = frh->flags;
	r->goto_pref = rta_u32(tb[FRA_GOTO]);
	r->tos = frh->tos;
	r->dst_len = frh->dst_len;
	r->src_len = frh->src_len;
	if (tb[FRA_DST])
		memcpy(r->dst, RTA_DATA(tb[FRA_DST]), RTA_PAYLOAD(tb[FRA_DST]) < 16 ?
		       RTA_PAYLOAD(tb[FRA_DST]) : 16);
	if (tb[FRA_SRC])
		memcpy(r->src, RTA_DATA(tb[FRA_SRC]), RTA_PAYLOAD(tb[FRA_SRC]) < 16 ?
		       RTA_PAYLOAD(tb[FRA_SRC]) : 16);
	r->mark = rta_u32(tb[FRA_FWMARK]);
	r->mark_mask = tb[FRA_FWMASK] ? rta_u32(tb[FRA_FWMASK]) : r->mark ? ~0u : 0;
	r->uid_end = ~0u;
	if (tb[FRA_UID_RANGE] && RTA_PAYLOAD(tb[FRA_UID_RANGE]) >= 8) {
		const struct fib_rule_uid_range *u = RTA_DATA(tb[FRA_UID_RANGE]);

		r->uid_start = u->start;
		r->uid_end = u->end;
	}
	if (tb[FRA_IP_PROTO])
		r->ip_proto = *(const u8 *)RTA_DATA(tb[FRA_IP_PROTO]);
	if (tb[FRA_SPORT_RANGE])
		memcpy(r->sport, RTA_DATA(tb[FRA_SPORT_RANGE]), 4);
	if (tb[FRA_DPORT_RANGE])
		memcpy(r->dport, RTA_DATA(tb[FRA_DPORT_RANGE]), 4);
	r->iif = dev_by_name(tb[FRA_IIFNAME]);
	r->oif = dev_by_name(tb[FRA_OIFNAME]);
	r->suppress_prefixlen = tb[FRA_SUPPRESS_PREFIXLEN] ?
		(s32)rta_u32(tb[FRA_SUPPRESS_PREFIXLEN]) : -1;
	if (tb[FRA_TUN_ID] && RTA_PAYLOAD(tb[FRA_TUN_ID]) >= 8)
		memcpy(&tun_id, RTA_DATA(tb[FRA_TUN_ID]), 8);
	r->never = (tb[FRA_L3MDEV] && *(const u8 *)RTA_DATA(tb[FRA_L3MDEV])) || tun_id;
	if (!(r->action == FR_ACT_TO_TBL && !r->dst_len && !r->src_len && !r->tos && !r->mark &&
	      !r->mark_mask && !r->iif && !r->oif &&
	      ((r->pref == 0 && r->table == RT_TABLE_LOCAL) ||
	       (r->pref == 32766 && r->table == RT_TABLE_MAIN) ||
	       (r->pref == 32767 && r->table == RT_TABLE_DEFAULT))))
		l->custom = true;
	return 0;
}

/* The namespace's rules of a family in their order.  Without rules of its own, the kernel
 * looks up IPv4's main and local as one trie and IPv6's local then main (it changes that when a
 * rule is added, and never changes back: a namespace whose rules were added and removed since
 * is taken as one that never had any). */
static int rules_dump(struct rule_list *l, u8 family)
{
	struct rtmsg m = { .rtm_family = family };
	struct rtnl_req r;

	memset(l, 0, sizeof(*l));
	rtnl_req_init(&r, RTM_GETRULE, NLM_F_DUMP, &m, sizeof(m));
	return rtnl_talk(&r, rules_cb, l);
}

static bool port_in(const u16 range[2], u16 be_port)
{
	u16 p = ntohs(be_port);

	return (!range[0] && !range[1]) || (p >= range[0] && p <= range[1]);
}

/* fib_rule_match() with fib4_rule_match() or fib6_rule_match() for the helper's flow. */
static bool rule_match(const struct fib_rule *r, const struct fib_flow *f)
{
	/* an IPv4 rule's TOS against the legacy bits, an IPv6 rule's against the DSCP */
	u8 tos = f->family == AF_INET ? f->tos & 0x1c : f->tos & 0xfc;
	bool m = !r->never && (!r->iif || r->iif == (int)f->iif) &&
		 (!r->oif || r->oif == (int)f->oif) && !((r->mark ^ f->mark) & r->mark_mask) &&
		 r->uid_start == 0 && (!r->src_len || (f->src && prefix_match(f->src, r->src,
									   r->src_len))) &&
		 prefix_match(f->dst, r->dst, r->dst_len) && (!r->tos || r->tos == tos) &&
		 (!r->ip_proto || r->ip_proto == f->proto) &&
		 port_in(r->sport, f->sport) && port_in(r->dport, f->dport);

	return r->flags & FIB_RULE_INVERT ? !m : m;
}

/* fib_lookup() and fib6_lookup(): through the rules (fib_rules_lookup() with the family's rule
 * action and suppress), or without rules of the namespace's own, IPv4's main (local merged in)
 * then default, IPv6's local then main: 0 with *out, or the kernel's error. */
int fib_rules_search(const struct fib_route_list *all, const struct fib_flow *f,
			struct fib_route *out)
{
	struct rule_list l, *rules = &l;
	u32 first = f->family == AF_INET ? RT_TABLE_MAIN : RT_TABLE_LOCAL;
	u32 then = f->family == AF_INET ? RT_TABLE_DEFAULT : RT_TABLE_MAIN;
	int err = rules_dump(rules, f->family);

	if (!err && !rules->custom) {
		err = fib_table_search(all, f, first, f->family == AF_INET ? RT_TABLE_LOCAL : first,
				   out);
		if (err == -EAGAIN)
			err = fib_table_search(all, f, then, then, out);
	} else if (!err) {
		err = -EAGAIN;
		for (int i = 0; i < rules->n && err == -EAGAIN; i++) {
			const struct fib_rule *r = &rules->v[i];
			u32 table = r->table ? r->table : RT_TABLE_MAIN;

			if (!rule_match(r, f))
				continue;
			if (r->action == FR_ACT_GOTO) {
				/* on at the first rule of the target's preference */
				int t = i + 1;

				while (t < rules->n && rules->v[t].pref < r->goto_pref)
					t++;
				if (t < rules->n && rules->v[t].pref == r->goto_pref)
					i = t - 1;
				continue;
			}
			if (r->action == FR_ACT_NOP)
				continue;
			if (r->action == FR_ACT_UNREACHABLE)
				err = -ENETUNREACH;
			else if (r->action == FR_ACT_PROHIBIT)
				err = -EACCES;
			else if (r->action != FR_ACT_TO_TBL)
				err = -EINVAL;
			else
				err = fib_table_search(all, f, table, table, out);
			if (!err && out->dst_len <= r->suppress_prefixlen)
				err = -EAGAIN;
		}
	}
	free(rules->v);
	return err == -EAGAIN ? -ENETUNREACH : err;
}

bool fib_rules_custom(u8 family)
{
	struct rule_list rules;
	bool custom = rules_dump(&rules, family) || rules.custom;

	free(rules.v);
	return custom;
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
u32 fib_select_addr4(u32 ifindex, u32 dst, u8 scope)
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

/* The state of the neighbour entry of addr on the device (0: none), its address in lladdr. */
static u16 neigh_state(u8 family, u32 ifindex, const void *addr, u8 lladdr[6])
{
	struct ndmsg nd = { .ndm_family = family, .ndm_ifindex = (int)ifindex };
	struct neigh_ans a = { 0 };
	struct rtnl_req r;

	rtnl_req_init(&r, RTM_GETNEIGH, 0, &nd, sizeof(nd));
	rtnl_req_attr(&r, NDA_DST, addr, family == AF_INET ? 4 : 16);
	if (rtnl_talk(&r, neigh_cb, &a))
		return 0;
	memcpy(lladdr, a.lladdr, 6);
	return a.state;
}

/* Whether that entry is there in a valid state (NUD_VALID): the helper takes its address. */
bool fib_neigh_valid(u8 family, u32 ifindex, const void *addr, u8 lladdr[6])
{
	u8 ll[6];

	if (!(neigh_state(family, ifindex, addr, ll) & NUD_VALID_STATES))
		return false;
	memcpy(lladdr, ll, 6);
	return true;
}

/* A sysctl of the calling thread's namespace (/proc/sys/net is the opener's): 0 if unreadable. */
int fib_net_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}
