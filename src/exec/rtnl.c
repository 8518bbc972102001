/* rtnl.c — routing netlink requests (see rtnl.h).  A socket per request: lookups are rare
 * enough (a helper call in a test run) that the clarity of one self-contained exchange wins
 * over a cached socket, which would also tie it to the namespace it was opened in.
 */
#include <errno.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec/rtnl.h"

void rtnl_req_init(struct rtnl_req *r, u16 type, u16 flags, const void *hdr, size_t hdr_len)
{
	memset(r->buf, 0, sizeof(r->buf));
	r->nlh = (struct nlmsghdr *)r->buf;
	r->cap = sizeof(r->buf);
	r->nlh->nlmsg_type = type;
	r->nlh->nlmsg_flags = (u16)(NLM_F_REQUEST | flags);
	r->nlh->nlmsg_seq = 1;
	r->nlh->nlmsg_len = (u32)NLMSG_LENGTH(hdr_len);
	memcpy(NLMSG_DATA(r->nlh), hdr, hdr_len);
}

void rtnl_req_attr(struct rtnl_req *r, u16 type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(r->nlh->nlmsg_len);
	struct rtattr *a = (struct rtattr *)(r->buf + off);

	if (off + RTA_SPACE(len) > r->cap)
		return;
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->nlh->nlmsg_len = (u32)(off + RTA_SPACE(len));
}

int rtnl_talk(struct rtnl_req *r, int (*cb)(const struct nlmsghdr *h, void *arg), void *arg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	_Alignas(struct nlmsghdr) static __thread char buf[32768];
	int fd, err = 0;
	bool done = false;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, r->nlh, r->nlh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		err = -errno;
		done = true;
	}
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (u32)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				err = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? e->error : -EIO;
				done = true;
				break;
			}
			if (!err) {
				int rc = cb(h, arg);

				if (rc)
					err = rc;
			}
			if (!(h->nlmsg_flags & NLM_F_MULTI)) {
				done = true;
				break;
			}
		}
	}
	close(fd);
	return err;
}

void rtnl_parse(struct rtattr **tb, int max, struct rtattr *rta, int len)
{
	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type <= max)
			tb[rta->rta_type] = rta;
}

u32 rta_u32(const struct rtattr *a)
{
	u32 v = 0;

	if (a && RTA_PAYLOAD(a) >= sizeof(v))
		memcpy(&v, RTA_DATA(a), sizeof(v));
	return v;
}

static int link_cb(const struct nlmsghdr *h, void *arg)
{
	struct rtnl_link *d = arg;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct rtattr *tb[IFLA_MAX + 1], *af;
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));

	if (h->nlmsg_type != RTM_NEWLINK || len < 0)
		return 0;
	d->flags = ifi->ifi_flags;
	d->type = ifi->ifi_type;
	rtnl_parse(tb, IFLA_MAX, IFLA_RTA(ifi), len);
	d->mtu = rta_u32(tb[IFLA_MTU]);
	d->num_rx_queues = rta_u32(tb[IFLA_NUM_RX_QUEUES]);
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

int rtnl_link_get(u32 ifindex, struct rtnl_link *d)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex };
	struct rtnl_req r;

	memset(d, 0, sizeof(*d));
	if (!ifindex || ifindex > INT32_MAX)
		return -ENODEV;
	rtnl_req_init(&r, RTM_GETLINK, 0, &ifi, sizeof(ifi));
	return rtnl_talk(&r, link_cb, d) ? -ENODEV : 0;
}

u32 rtnl_link_hh_len(const struct rtnl_link *d)
{
	return d->type == ARPHRD_ETHER || d->type == ARPHRD_LOOPBACK ? ETH_HLEN : 0;
}
