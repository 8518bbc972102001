/* The kernel's sockets as bpf_sk_lookup_tcp(), bpf_sk_lookup_udp() and bpf_skc_lookup_tcp()
 * find them.
 *
 * A program's lookup names a 4-tuple and the kernel answers from its socket tables for the
 * caller's network namespace: established (connected) sockets first, then listening or bound
 * ones.  userbpf asks the same kernel the same question: NETLINK_SOCK_DIAG's exact-match request
 * (no dump) runs the very lookup functions the helpers call (inet_lookup() and
 * __udp4_lib_lookup(), and their IPv6 forms), with the tuple in the order each expects, and
 * describes the socket found.  That description becomes the struct bpf_sock the program reads.
 * It needs no privilege; a socket's mark is shown only to CAP_NET_ADMIN, so without it mark
 * reads 0.  Peer namespaces by id (netns_id >= 0) are not looked into: such a lookup finds
 * nothing, as on a kernel where no peer has an id.
 *
 * A TCP socket's tcp_info comes with it, for bpf_tcp_sock(); and the sockets of socket maps
 * (struct sock_ref) are found again the same way, by their addresses and cookie, so that one
 * the kernel no longer has is not found.
 *
 * The found sockets are kept per thread until the test run ends (sock_lookup_run_end()), with
 * each query's answer: a program that looks the same tuple up on every repeat asks the kernel
 * once, and a socket pointer a program holds (a released one's listener, say) stays good for
 * the whole run, as the kernel's RCU-freed sockets do.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/sock.h"

#define LOOPBACK4_IPV6 htonl(0x7f000006) /* the IPv4 address of an IPv6-only socket */

/* One query of this run and its answer. */
struct query {
	struct query *next;
	u8 proto, full, len;
	u32 ifindex;
	u8 tuple[sizeof(((struct bpf_sock_tuple *)0)->ipv6)];
	struct prog_sock *sock;	/* NULL: nothing found */
};

/* One socket found in this run (each kernel socket once: two lookups that find it give the
 * program the same pointer, as the kernel's do). */
struct found {
	struct found *next;
	struct prog_sock sock;
};

static __thread struct query *queries;
static __thread struct found *founds;

/* What the kernel told about a socket. */
struct diag_sock {
	struct inet_diag_msg msg;
	u32 mark, priority;
	u8 v6only;
	struct tcp_info info;	/* a TCP socket's (zeros where the kernel gave less) */
};

/* One exact-match SOCK_DIAG_BY_FAMILY request: src, dst and ports as the kernel's diag code
 * hands them to its lookup (see sock_lookup()), and the socket's cookie (ANY_COOKIE: any).  0
 * and *out filled, or -ENOENT / -errno. */
#define ANY_COOKIE ((u64)INET_DIAG_NOCOOKIE << 32 | INET_DIAG_NOCOOKIE)
static int diag_query(u8 family, u8 proto, const u32 *src, u16 sport, const u32 *dst, u16 dport,
		      u32 ifindex, u64 cookie, struct diag_sock *out)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} q;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	u32 alen = family == AF_INET ? 4 : 16;
	_Alignas(struct nlmsghdr) char buf[8192];
	int fd, err = -ENOENT;
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST;
	q.req.sdiag_family = family;
	q.req.sdiag_protocol = proto;
	q.req.idiag_states = ~0u;
	/* the TCP counters, and INET_DIAG_CLASS_ID: the priority */
	q.req.idiag_ext = 1 << (INET_DIAG_INFO - 1) | 1 << (INET_DIAG_TCLASS - 1);
	memcpy(q.req.id.idiag_src, src, alen);
	memcpy(q.req.id.idiag_dst, dst, alen);
	q.req.id.idiag_sport = sport;
	q.req.id.idiag_dport = dport;
	q.req.id.idiag_if = ifindex;
	q.req.id.idiag_cookie[0] = (u32)cookie;
	q.req.id.idiag_cookie[1] = (u32)(cookie >> 32);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &q, sizeof(q), 0, (struct sockaddr *)&nl, sizeof(nl)) != (ssize_t)sizeof(q)) {
		err = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(h, (u32)n);
	     h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
			break;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
			continue;
		memset(out, 0, sizeof(*out));
		memcpy(&out->msg, NLMSG_DATA(h), sizeof(out->msg));
		int alen_left = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(struct inet_diag_msg));
		for (struct rtattr *a = (struct rtattr *)((char *)NLMSG_DATA(h) +
							   NLMSG_ALIGN(sizeof(struct inet_diag_msg)));
		     RTA_OK(a, alen_left); a = RTA_NEXT(a, alen_left)) {
			if (a->rta_type == INET_DIAG_MARK && RTA_PAYLOAD(a) >= 4)
				memcpy(&out->mark, RTA_DATA(a), 4);
			else if (a->rta_type == INET_DIAG_CLASS_ID && RTA_PAYLOAD(a) >= 4)
				memcpy(&out->priority, RTA_DATA(a), 4);
			else if (a->rta_type == INET_DIAG_SKV6ONLY && RTA_PAYLOAD(a) >= 1)
				memcpy(&out->v6only, RTA_DATA(a), 1);
			else if (a->rta_type == INET_DIAG_INFO && proto == IPPROTO_TCP)
				memcpy(&out->info, RTA_DATA(a),
				       RTA_PAYLOAD(a) < sizeof(out->info) ? RTA_PAYLOAD(a)
									  : sizeof(out->info));
		}
		err = 0;
		break;
	}
out:
	close(fd);
	return err;
}

/* Whether the kernel described a time-wait socket (its diag state is the substate, FIN_WAIT2
 * or TIME_WAIT; its timer is the time-wait one, 3). */
static bool diag_is_tw(const struct inet_diag_msg *m)
{
	return m->idiag_timer == 3 || m->idiag_state == SK_TIME_WAIT;
}

/* A socket's IPv4 address field when it is an IPv6 one: the v4 address of a v4-mapped one, 0
 * for any, else the placeholder the kernel gives IPv6-only sockets. */
static u32 v4_of(const u32 a[4])
{
	if (!a[0] && !a[1] && !a[2] && !a[3])
		return 0;
	if (!a[0] && !a[1] && a[2] == htonl(0xffff))
		return a[3];
	return LOOPBACK4_IPV6;
}

/* struct bpf_tcp_sock from tcp_info, which has most of it: not the sequence numbers (rcv_nxt,
 * snd_nxt, snd_una) nor the last rate sample, which read 0; srtt_us loses its low 3 bits
 * (tcp_info keeps it >> 3), and ecn_flags has only its OK and SEEN bits. */
static void tcp_of(struct bpf_tcp_sock *t, const struct tcp_info *i, bool listen)
{
	t->snd_cwnd = i->tcpi_snd_cwnd;
	t->srtt_us = i->tcpi_rtt << 3;
	/* (a listener's tcp_info stops before these: they keep tcp_init_sock()'s values, no
	 * minimum yet and TCP_MSS_DEFAULT) */
	t->rtt_min = listen ? UINT32_MAX : i->tcpi_min_rtt;
	/* (0 in tcp_info during the initial slow start: the kernel's TCP_INFINITE_SSTHRESH) */
	t->snd_ssthresh = i->tcpi_snd_ssthresh ? i->tcpi_snd_ssthresh : 0x7fffffff;
	t->mss_cache = listen ? 536 : i->tcpi_snd_mss;
	t->ecn_flags = (i->tcpi_options & TCPI_OPT_ECN ? 1 : 0) |
		       (i->tcpi_options & TCPI_OPT_ECN_SEEN ? 8 : 0);
	/* (a listener's unacked and sacked are its accept queue's length and limit) */
	t->packets_out = listen ? 0 : i->tcpi_unacked;
	t->sacked_out = listen ? 0 : i->tcpi_sacked;
	t->retrans_out = i->tcpi_retrans;
	t->total_retrans = i->tcpi_total_retrans;
	t->segs_in = i->tcpi_segs_in;
	t->data_segs_in = i->tcpi_data_segs_in;
	t->segs_out = i->tcpi_segs_out;
	t->data_segs_out = i->tcpi_data_segs_out;
	t->lost_out = i->tcpi_lost;
	t->bytes_received = i->tcpi_bytes_received;
	t->bytes_acked = i->tcpi_bytes_acked;
	t->dsack_dups = i->tcpi_dsack_dups;
	t->delivered = i->tcpi_delivered;
	t->delivered_ce = i->tcpi_delivered_ce;
	t->icsk_retransmits = i->tcpi_retransmits;
}

static struct prog_sock *sock_of(const struct diag_sock *d, u8 proto)
{
	const struct inet_diag_msg *m = &d->msg;
	u64 cookie = (u64)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
	struct bpf_sock *sk;
	struct found *f;

	for (f = founds; f; f = f->next)
		if (f->sock.cookie == cookie)
			return &f->sock;
	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	prog_sock_init(&f->sock);
	f->sock.cookie = cookie;
	sk = &f->sock.sk;
	sk->bound_dev_if = m->id.idiag_if;
	sk->family = m->idiag_family;
	sk->type = proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	sk->protocol = proto;
	sk->mark = d->mark;
	sk->priority = d->priority;
	if (m->idiag_family == AF_INET) {
		sk->src_ip4 = m->id.idiag_src[0];
		sk->dst_ip4 = m->id.idiag_dst[0];
		/* a connected TCP socket's IPv6 addresses are its IPv4 ones, v4-mapped (the
		 * kernel's sk_rcv_saddr_set() and sk_daddr_set() at connect and accept; not a
		 * time-wait socket's, which keeps IPv6 addresses only for IPv6) */
		if (proto == IPPROTO_TCP && m->idiag_state != SK_LISTEN && !diag_is_tw(m)) {
			sk->src_ip6[2] = sk->dst_ip6[2] = htonl(0xffff);
			sk->src_ip6[3] = sk->src_ip4;
			sk->dst_ip6[3] = sk->dst_ip4;
		}
	} else {
		memcpy(sk->src_ip6, m->id.idiag_src, 16);
		memcpy(sk->dst_ip6, m->id.idiag_dst, 16);
		sk->src_ip4 = v4_of(m->id.idiag_src);
		sk->dst_ip4 = v4_of(m->id.idiag_dst);
	}
	sk->src_port = ntohs(m->id.idiag_sport);
	sk->dst_port = m->id.idiag_dport;
	sk->state = diag_is_tw(m) ? SK_TIME_WAIT : m->idiag_state;
	sk->rx_queue_mapping = (u32)-1;
	f->sock.v6only = d->v6only;
	if (proto == IPPROTO_TCP && sk->state != SK_TIME_WAIT)
		tcp_of(&f->sock.tcp, &d->info, sk->state == SK_LISTEN);
	f->next = founds;
	founds = f;
	return &f->sock;
}

/* The lookup itself (the kernel's sk_lookup() and bpf_sk_lookup()'s full-socket step). */
static struct prog_sock *lookup(u8 proto, const void *tuple, u32 len, u32 ifindex, bool full)
{
	struct bpf_sock_tuple t;
	u8 family = len == sizeof(t.ipv4) ? AF_INET : AF_INET6;
	const u32 *saddr = family == AF_INET ? &t.ipv4.saddr : t.ipv6.saddr;
	const u32 *daddr = family == AF_INET ? &t.ipv4.daddr : t.ipv6.daddr;
	static const u32 any[4];
	struct diag_sock d;
	u16 sport, dport;
	int err;

	memcpy(&t, tuple, len); /* (a copy: a packet's may be unaligned) */
	sport = family == AF_INET ? t.ipv4.sport : t.ipv6.sport;
	dport = family == AF_INET ? t.ipv4.dport : t.ipv6.dport;
	/* TCP's diag lookup takes the local end as src, UDP's the remote end (the kernel's
	 * inet_diag_find_one_icsk() and udp_dump_one()) */
	if (proto == IPPROTO_TCP)
		err = diag_query(family, proto, daddr, dport, saddr, sport, ifindex, ANY_COOKIE, &d);
	else
		err = diag_query(family, proto, saddr, sport, daddr, dport, ifindex, ANY_COOKIE, &d);
	if (err)
		return NULL;
	if (proto == IPPROTO_TCP && diag_is_tw(&d.msg)) {
		if (full)
			return NULL; /* not a full socket */
	} else if (proto == IPPROTO_TCP && d.msg.idiag_state == SK_NEW_SYN_RECV && full) {
		/* a request socket: its listener, which the same lookup finds for no peer */
		if (diag_query(family, proto, daddr, dport, any, 0, ifindex, ANY_COOKIE, &d) ||
		    d.msg.idiag_state == SK_NEW_SYN_RECV || d.msg.idiag_state == SK_ESTABLISHED)
			return NULL;
	}
	return sock_of(&d, proto);
}

struct bpf_sock *sock_lookup(u8 proto, const void *tuple, u32 len, u64 netns_id, bool u32_netns,
			     u64 flags, u32 ifindex, bool full)
{
	struct query *q;

	if (len != sizeof(((struct bpf_sock_tuple *)0)->ipv4) &&
	    len != sizeof(((struct bpf_sock_tuple *)0)->ipv6))
		return NULL;
	if (u32_netns)
		netns_id = (u32)netns_id;
	if (flags || !((s32)netns_id < 0 || netns_id <= INT32_MAX))
		return NULL;
	if ((s32)netns_id >= 0)
		return NULL; /* a peer namespace by id: none known (see above) */
	for (q = queries; q; q = q->next)
		if (q->proto == proto && q->full == full && q->len == len && q->ifindex == ifindex &&
		    !memcmp(q->tuple, tuple, len))
			return q->sock ? &q->sock->sk : NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->proto = proto;
	q->full = full;
	q->len = (u8)len;
	q->ifindex = ifindex;
	memcpy(q->tuple, tuple, len);
	q->sock = lookup(proto, tuple, len, ifindex, full);
	q->next = queries;
	queries = q;
	return q->sock ? &q->sock->sk : NULL;
}

void sock_lookup_run_end(void)
{
	while (queries) {
		struct query *q = queries;

		queries = q->next;
		free(q);
	}
	while (founds) {
		struct found *f = founds;

		founds = f->next;
		free(f);
	}
}

/* ---- the sockets of socket maps ---- */

/* A sockaddr_in or _in6 into an address and port (network order). */
static void addr_of(const struct sockaddr_storage *a, u32 addr[4], u16 *port)
{
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		addr[0] = in->sin_addr.s_addr;
		*port = in->sin_port;
	} else if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)a;

		memcpy(addr, &in6->sin6_addr, 16);
		*port = in6->sin6_port;
	}
}

/* Which sockets a map holds (the kernel's sock_map_sk_is_suitable() and
 * sock_map_sk_state_allowed()): TCP established or listening, UDP bound, Unix streams
 * connected, other Unix sockets in any state. */
static int ref_check(const struct sock_ref *r, bool bound)
{
	bool inet = r->family == AF_INET || r->family == AF_INET6;

	if (inet && r->type == SOCK_STREAM && r->protocol == IPPROTO_TCP)
		return r->state == SK_ESTABLISHED || r->state == SK_LISTEN ? 0 : -EOPNOTSUPP;
	if (inet && r->type == SOCK_DGRAM && r->protocol == IPPROTO_UDP)
		return bound ? 0 : -EOPNOTSUPP;
	if (r->family == AF_UNIX && r->type == SOCK_STREAM)
		return r->state == SK_ESTABLISHED ? 0 : -EOPNOTSUPP;
	if (r->family == AF_UNIX && (r->type == SOCK_DGRAM || r->type == SOCK_SEQPACKET))
		return 0;
	return -EOPNOTSUPP;
}

int sock_ref_from_fd(int fd, struct sock_ref *r)
{
	struct sockaddr_storage a;
	int domain, type, proto;
	socklen_t len;
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	memset(r, 0, sizeof(*r));
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len))
		return -EOPNOTSUPP;
	len = sizeof(r->cookie);
	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &r->cookie, &len))
		return -errno;
	r->family = (u8)domain;
	r->type = (u8)type;
	r->protocol = (u8)proto;
	len = sizeof(a);
	memset(&a, 0, sizeof(a));
	if (!getsockname(fd, (struct sockaddr *)&a, &len))
		addr_of(&a, r->local, &r->lport);
	len = sizeof(a);
	memset(&a, 0, sizeof(a));
	bool connected = !getpeername(fd, (struct sockaddr *)&a, &len);

	if (connected)
		addr_of(&a, r->remote, &r->rport);
	r->state = connected ? SK_ESTABLISHED : SK_CLOSE;
	len = sizeof(int);
	if (!getsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &type, &len))
		r->reuseport = type != 0;
	if (proto == IPPROTO_TCP && (domain == AF_INET || domain == AF_INET6)) {
		struct tcp_info ti;

		len = sizeof(ti);
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
			return -EOPNOTSUPP;
		r->state = ti.tcpi_state;
	}
	return ref_check(r, r->lport != 0);
}

int sock_ref_from_prog(u64 sk, struct sock_ref *r)
{
	const struct prog_sock *ps = prog_sock_of(sk);
	const struct bpf_sock *s = &ps->sk;

	if (!prog_sock_is_full(ps))
		return -EINVAL;
	if (!ps->cookie)
		return -EOPNOTSUPP; /* a test run's dummy socket: no protocol a map takes */
	memset(r, 0, sizeof(*r));
	r->cookie = ps->cookie;
	r->reuseport = ps->reuseport;
	r->family = (u8)s->family;
	r->type = (u8)s->type;
	r->protocol = (u8)s->protocol;
	r->state = s->state;
	if (s->family == AF_INET) {
		r->local[0] = s->src_ip4;
		r->remote[0] = s->dst_ip4;
	} else {
		memcpy(r->local, s->src_ip6, 16);
		memcpy(r->remote, s->dst_ip6, 16);
	}
	r->lport = htons((u16)s->src_port);
	r->rport = (u16)s->dst_port;
	return ref_check(r, r->lport != 0);
}

struct bpf_sock *sock_ref_get(const struct sock_ref *r)
{
	struct diag_sock d;
	struct found *f;
	int err;

	for (f = founds; f; f = f->next)
		if (f->sock.cookie == r->cookie) {
			f->sock.reuseport |= r->reuseport;
			return &f->sock.sk;
		}
	if (r->family == AF_UNIX) {
		/* (no diag lookup: described as it was added) */
		f = malloc(sizeof(*f));
		if (!f)
			return NULL;
		prog_sock_init(&f->sock);
		f->sock.cookie = r->cookie;
		f->sock.sk.family = AF_UNIX;
		f->sock.sk.type = r->type;
		f->sock.sk.state = r->state;
		f->sock.sk.rx_queue_mapping = (u32)-1;
		f->sock.reuseport = r->reuseport;
		f->next = founds;
		founds = f;
		return &f->sock.sk;
	}
	/* the socket of that cookie at those addresses, as sock_lookup() asks */
	if (r->protocol == IPPROTO_TCP)
		err = diag_query(r->family, r->protocol, r->local, r->lport, r->remote, r->rport, 0,
				 r->cookie, &d);
	else
		err = diag_query(r->family, r->protocol, r->remote, r->rport, r->local, r->lport, 0,
				 r->cookie, &d);
	/* (a closed TCP socket may linger in time-wait, with its cookie: no longer the map's) */
	if (err || diag_is_tw(&d.msg))
		return NULL;
	struct prog_sock *ps = sock_of(&d, r->protocol);

	if (ps)
		ps->reuseport = r->reuseport;
	return ps ? &ps->sk : NULL;
}

/* A sock_diag dump of the caller's network namespace: the request (a struct nlmsghdr followed by
 * the family's request, len bytes), each answer's body given to fn; 0, or -errno when the
 * kernel could not be asked. */
static int diag_dump(void *req, u32 len, void (*fn)(const void *msg, u32 len, void *arg),
		     void *arg)
{
	struct nlmsghdr *q = req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	_Alignas(struct nlmsghdr) char buf[16384];
	int fd, err = 0;

	q->nlmsg_len = len;
	q->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&nl, sizeof(nl)) != (ssize_t)len)
		err = -errno;
	for (bool done = err != 0; !done;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (u32)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			fn(NLMSG_DATA(h), h->nlmsg_len - NLMSG_LENGTH(0), arg);
		}
	}
	close(fd);
	return err;
}

struct cookie_search {
	u64 cookie;
	bool found;
};

/* (a socket no file holds any more, inode 0, is closed: lingering in TCP's FIN states) */
static void match_inet_cookie(const void *msg, u32 len, void *arg)
{
	const struct inet_diag_msg *m = msg;
	struct cookie_search *c = arg;

	if (len >= sizeof(*m) && m->idiag_inode && m->id.idiag_cookie[0] == (u32)c->cookie &&
	    m->id.idiag_cookie[1] == (u32)(c->cookie >> 32))
		c->found = true;
}

static void match_unix_cookie(const void *msg, u32 len, void *arg)
{
	const struct unix_diag_msg *m = msg;
	struct cookie_search *c = arg;

	if (len >= sizeof(*m) && m->udiag_cookie[0] == (u32)c->cookie &&
	    m->udiag_cookie[1] == (u32)(c->cookie >> 32))
		c->found = true;
}

bool sock_cookie_alive(u8 family, u8 proto, u32 states, u64 cookie)
{
	struct cookie_search c = { cookie, false };
	int err;

	if (family == AF_UNIX) {
		struct {
			struct nlmsghdr nlh;
			struct unix_diag_req req;
		} q = { .req = { .sdiag_family = AF_UNIX, .udiag_states = ~0u } };

		err = diag_dump(&q, sizeof(q), match_unix_cookie, &c);
	} else {
		struct {
			struct nlmsghdr nlh;
			struct inet_diag_req_v2 req;
		} q = { .req = { .sdiag_family = family, .sdiag_protocol = proto,
				 .idiag_states = states } };

		err = diag_dump(&q, sizeof(q), match_inet_cookie, &c);
	}
	/* (when the kernel cannot be asked: as it was) */
	return err || c.found;
}

static void add_inet_cookie(const void *msg, u32 len, void *arg)
{
	const struct inet_diag_msg *m = msg;

	if (len >= sizeof(*m) && m->idiag_inode)
		sock_cookie_set_add(arg, (u64)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0]);
}

static void add_unix_cookie(const void *msg, u32 len, void *arg)
{
	const struct unix_diag_msg *m = msg;

	if (len >= sizeof(*m))
		sock_cookie_set_add(arg, (u64)m->udiag_cookie[1] << 32 | m->udiag_cookie[0]);
}

void sock_cookie_set_add(struct sock_cookie_set *set, u64 cookie)
{
	if (set->n == set->cap) {
		u32 cap = set->cap ? set->cap * 2 : 64;
		u64 *p = realloc(set->cookies, cap * sizeof(*p));

		if (!p) {
			set->failed = true;
			return;
		}
		set->cookies = p;
		set->cap = cap;
	}
	set->cookies[set->n++] = cookie;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

int sock_open_cookies(u8 family, u8 proto, struct sock_cookie_set *set)
{
	int err;

	memset(set, 0, sizeof(*set));
	if (family == AF_UNIX) {
		struct {
			struct nlmsghdr nlh;
			struct unix_diag_req req;
		} q = { .req = { .sdiag_family = AF_UNIX, .udiag_states = ~0u } };

		err = diag_dump(&q, sizeof(q), add_unix_cookie, set);
	} else {
		struct {
			struct nlmsghdr nlh;
			struct inet_diag_req_v2 req;
		} q = { .req = { .sdiag_family = family, .sdiag_protocol = proto,
				 .idiag_states = ~0u } };

		err = diag_dump(&q, sizeof(q), add_inet_cookie, set);
	}
	if (!err && set->failed)
		err = -ENOMEM;
	if (err) {
		sock_cookie_set_free(set);
		return err;
	}
	qsort(set->cookies, set->n, sizeof(*set->cookies), cmp_u64);
	return 0;
}

bool sock_cookie_set_has(const struct sock_cookie_set *set, u64 cookie)
{
	return bsearch(&cookie, set->cookies, set->n, sizeof(cookie), cmp_u64) != NULL;
}

void sock_cookie_set_free(struct sock_cookie_set *set)
{
	free(set->cookies);
	memset(set, 0, sizeof(*set));
}
