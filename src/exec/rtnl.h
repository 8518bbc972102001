/* rtnl.h — requests to the kernel's routing netlink (NETLINK_ROUTE) in the calling thread's
 * network namespace: how helpers that ask the network stack (bpf_fib_lookup()) read the routes,
 * links, addresses and neighbours the kernel's helpers would find in that namespace.
 */
#ifndef USERBPF_EXEC_RTNL_H
#define USERBPF_EXEC_RTNL_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>

#include "util.h"

/* A request under construction: the header, its family message and attributes after it. */
struct rtnl_req {
	struct nlmsghdr *nlh;
	size_t cap;
	_Alignas(struct nlmsghdr) char buf[512];
};

/* Starts a request of type with flags (NLM_F_REQUEST is added) and a family message of
 * hdr_len bytes copied from hdr. */
void rtnl_req_init(struct rtnl_req *r, u16 type, u16 flags, const void *hdr, size_t hdr_len);
/* Appends attribute type with len bytes of data (ignored when the buffer is full: requests
 * here are small and fixed). */
void rtnl_req_attr(struct rtnl_req *r, u16 type, const void *data, size_t len);

/* Sends the request on a new socket and calls cb on each reply message (every part of a dump;
 * after cb's first nonzero return, the rest is read but not handed on): 0, the kernel's -errno
 * for the request, a socket's -errno, or cb's nonzero return. */
int rtnl_talk(struct rtnl_req *r, int (*cb)(const struct nlmsghdr *h, void *arg), void *arg);

/* tb[0..max] = the attributes in [rta, rta + len) by type (later ones win; NULL: absent). */
void rtnl_parse(struct rtattr **tb, int max, struct rtattr *rta, int len);

/* An attribute's payload as a u32 (0 if shorter). */
u32 rta_u32(const struct rtattr *a);

/* What RTM_GETLINK says of a device of the namespace. */
struct rtnl_link {
	u32 flags, type, mtu, mtu6;	/* IFF_*, ARPHRD_*, the MTUs (IPv6's: its own setting) */
	u32 num_rx_queues;
	u8 addr[6];
	bool has_in, in_fwd;	/* an IPv4 config and its forwarding switch */
	bool has_in6, in6_fwd;
};

/* The device of that index: 0, or -ENODEV for none in this namespace. */
int rtnl_link_get(u32 ifindex, struct rtnl_link *d);

/* Its link-layer header length (the kernel's hard_header_len): Ethernet's for Ethernet and
 * loopback devices, none for the others (tunnels). */
u32 rtnl_link_hh_len(const struct rtnl_link *d);

#endif
