/* fib_tables.h — the kernel's routing state of the calling thread's network namespace, read
 * through routing netlink (src/exec/rtnl.c), and the kernel's lookups in it: fib_lookup() and
 * fib6_lookup() through the policy rules, fib_table_lookup() and fib6_table_lookup() in one
 * table, inet_select_addr(), neighbour entries.  What bpf_fib_lookup() (helpers/fib.c) asks.
 *
 * Not done: multipath routes take their first usable path (the kernel hashes the flow with a
 * per-namespace seed); route exceptions (learnt path MTUs), VRF tables and the rule selectors
 * iproute2 6.1 cannot set (interface groups, 6.13's DSCP, flow label and port masks) are not
 * read; a tunnel id or l3mdev rule matches nothing.  Routes through nexthop objects are read as
 * the kernel expands them in its dumps (net.ipv4.nexthop_compat_mode, on by default).
 */
#ifndef USERBPF_EXEC_FIB_TABLES_H
#define USERBPF_EXEC_FIB_TABLES_H

#include <stdbool.h>

#include "util.h"

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
	/* the next hops (one for a single-path route); oif and gw: the one the lookup took */
	u32 nh_oif[8];
	u8 nh_gw_family[8];
	u8 nh_gw[8][16];
	bool nh_dead[8];
	int nh_cnt;
};

/* What the rules and tables look at. */
struct fib_flow {
	u8 family;
	const u8 *dst, *src;	/* src NULL: none (the kernel's IPv6 lookups without
				 * RT6_LOOKUP_F_HAS_SADDR: a rule on the source matches none) */
	u8 tos;			/* IPv4: the TOS byte; IPv6: the traffic class */
	u32 iif, oif, mark;	/* as the rules see them */
	u32 tbl_oif;		/* the device the table lookup prefers (IPv6) or insists on */
	u8 proto;
	u16 sport, dport;	/* network order */
};

/* A family's routes, dumped (every table). */
struct fib_route_list {
	struct fib_route *v;
	int n, cap;
};

/* A family's routes, every table (l->v to be freed): 0 or -errno. */
int fib_routes_dump(struct fib_route_list *l, u8 family);

/* fib_table_lookup() and fib6_table_lookup() in table (and table2: IPv4's local table merged
 * into main) of the dumped routes: 0 with *out, the kernel's error for an IPv4 reject route,
 * or -EAGAIN where no route matches. */
int fib_table_search(const struct fib_route_list *all, const struct fib_flow *f, u32 table,
		     u32 table2, struct fib_route *out);

/* fib_lookup() and fib6_lookup(): 0 with *out, or the kernel's error (-ENETUNREACH: none). */
int fib_rules_search(const struct fib_route_list *all, const struct fib_flow *f,
		     struct fib_route *out);

/* Whether the namespace has rules of its own for the family (then IPv4's main and local are
 * two tables). */
bool fib_rules_custom(u8 family);

/* inet_select_addr(): an IPv4 source on the device for dst within scope (network order; 0). */
u32 fib_select_addr4(u32 ifindex, u32 dst, u8 scope);

/* Whether the neighbour entry of addr on the device is in a valid state (its address in
 * lladdr). */
bool fib_neigh_valid(u8 family, u32 ifindex, const void *addr, u8 lladdr[6]);

/* The kernel's IPv6 output route to dst through the device: its preferred source is what
 * ipv6_dev_get_saddr() picks there. */
int fib_output_route6(struct fib_route *rt, const u8 *dst, u32 oif);

/* An integer sysctl of the namespace (a /proc/sys/net path): 0 if unreadable. */
int fib_net_sysctl(const char *path);

#endif
