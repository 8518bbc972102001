/* sock.c — socket helpers: socket lookups (src/exec/sock_lookup.c), release and assign,
 * socket storage, full and TCP socket views, cookies and the socket's uid.
 */
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

/* bpf_sk_storage_get(map, sk, value, flags), bpf_sk_storage_delete(map, sk): the storage of
 * a test run's dummy socket (__sk_buff.sk), which goes with the run, or of a kernel socket a
 * lookup found, which the map keeps (src/map/sk_storage.c).  flags: BPF_SK_STORAGE_GET_F_CREATE
 * or 0, else NULL; a socket that is not a full one (time-wait) has none. */
u64 h_sk_storage_get(u64 map, u64 sk, u64 value, u64 flags, u64 a5)
{
	struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;
	bool create = flags == BPF_SK_STORAGE_GET_F_CREATE;

	if (!ps || flags > BPF_SK_STORAGE_GET_F_CREATE || !prog_sock_is_full(ps))
		return 0;
	if (ps->cookie)
		return (u64)(uintptr_t)sk_storage_sock_get(PTR(map), ps->cookie, PTR(value), create);
	return (u64)(uintptr_t)sk_storage_get(&ps->storage, PTR(map), PTR(value), create);
}

u64 h_sk_storage_delete(u64 map, u64 sk, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;

	if (!ps || !prog_sock_is_full(ps))
		return (u64)-EINVAL;
	if (ps->cookie)
		return (u64)(s64)sk_storage_sock_delete(PTR(map), ps->cookie);
	return (u64)(s64)sk_storage_delete(&ps->storage, PTR(map));
}

/* bpf_sk_lookup_tcp(), bpf_sk_lookup_udp(), bpf_skc_lookup_tcp() (ctx, tuple, tuple_size,
 * netns_id, flags): a kernel socket of the runner's network namespace, found as the kernel's
 * lookup finds it (src/exec/sock_lookup.c), seen from the packet's device: a test run's skb
 * arrives on __sk_buff.ifindex, an XDP frame on its ingress_ifindex (whose helpers take a
 * 32-bit netns_id).  A cgroup sock_addr program's (which never runs here) from no device. */
static u64 skb_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	u32 ifindex = ((const struct skb_ctx *)PTR(ctx))->uapi.ifindex;

	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, false, flags,
					   ifindex, full);
}

/* The three lookups of each context (tcp, udp, skc) over its lookup function. */
#define SK_LOOKUP_HELPERS(prefix, lookup)                                                          \
	u64 prefix##sk_lookup_tcp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)       \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_TCP, true);                   \
	}                                                                                          \
	u64 prefix##sk_lookup_udp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)       \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_UDP, true);                   \
	}                                                                                          \
	u64 prefix##skc_lookup_tcp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)      \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_TCP, false);                  \
	}

SK_LOOKUP_HELPERS(h_, skb_lookup)

static u64 xdp_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	u32 ifindex = ((const struct xdp_ctx *)PTR(ctx))->uapi.ingress_ifindex;

	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, true, flags,
					   ifindex, full);
}

SK_LOOKUP_HELPERS(h_xdp_, xdp_lookup)

static u64 sa_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, false, flags, 0,
					   full);
}

SK_LOOKUP_HELPERS(h_sa_, sa_lookup)

/* bpf_sk_release(sk): the socket stays until the run ends (sock_lookup_run_end()), as a
 * kernel socket stays for an RCU grace period; the verifier has seen to the reference. */
u64 h_sk_release(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* bpf_sk_assign(ctx, sk, flags) in tc: the socket the packet is to be delivered to, which only
 * tc ingress may choose; a test run is not at ingress, so it is -EOPNOTSUPP there as in the
 * kernel (-EINVAL for flags). */
u64 h_sk_assign(u64 ctx, u64 sk, u64 flags, u64 a4, u64 a5)
{
	return flags ? (u64)-EINVAL : (u64)-EOPNOTSUPP;
}

/* bpf_sk_assign(ctx, sk, flags) in a socket lookup program (the kernel's
 * bpf_sk_lookup_assign()): selects sk (NULL: none) as the lookup's result, ctx->sk, after the
 * kernel's checks: not a reference-counted socket (only TCP listeners and UDP sockets are freed
 * after an RCU grace period instead), a listening TCP or unconnected UDP one, of the
 * connection's protocol and family (an IPv6 socket that is not v6-only takes IPv4 too), and
 * none selected before unless BPF_SK_LOOKUP_F_REPLACE. */
u64 h_sk_lookup_assign(u64 ctx, u64 sk, u64 flags, u64 a4, u64 a5)
{
	struct sk_lookup_run *run = PTR(ctx);
	struct bpf_sk_lookup *c = &run->ctx;
	const struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;
	const struct bpf_sock *s = ps ? &ps->sk : NULL;
	bool inet = s && (s->family == AF_INET || s->family == AF_INET6);
	bool rcu_freed = inet && ((s->protocol == IPPROTO_TCP && s->state == SK_LISTEN) ||
				  s->protocol == IPPROTO_UDP);

	if (flags & ~(u64)(BPF_SK_LOOKUP_F_REPLACE | BPF_SK_LOOKUP_F_NO_REUSEPORT))
		return (u64)-EINVAL;
	if (s && (!rcu_freed || (s->protocol == IPPROTO_UDP && s->state != SK_CLOSE)))
		return (u64)-ESOCKTNOSUPPORT;
	if (s && s->protocol != c->protocol)
		return (u64)-EPROTOTYPE;
	if (s && s->family != c->family && (s->family == AF_INET || ps->v6only))
		return (u64)-EAFNOSUPPORT;
	if (c->sk && !(flags & BPF_SK_LOOKUP_F_REPLACE))
		return (u64)-EEXIST;
	c->sk = (struct bpf_sock *)(uintptr_t)sk;
	run->no_reuseport = flags & BPF_SK_LOOKUP_F_NO_REUSEPORT;
	return 0;
}

/* bpf_get_listener_sock(sk): sk when it listens (a TCP socket; the dummy socket of a test
 * run is closed), else NULL.  (These return the socket's struct bpf_sock whichever view they
 * were given.) */
u64 h_get_listener_sock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return ps->sk.state == SK_LISTEN ? (u64)(uintptr_t)&ps->sk : 0;
}

/* bpf_sk_fullsock(sk): the socket when it is a full one, as a test run's dummy socket is (a
 * time-wait socket a lookup found is not). */
u64 h_sk_fullsock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return prog_sock_is_full(ps) ? (u64)(uintptr_t)&ps->sk : 0;
}

/* bpf_tcp_sock(sk): a full TCP socket's struct bpf_tcp_sock (a socket a lookup found; not a
 * test run's dummy socket, which has no protocol), else NULL. */
u64 h_tcp_sock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return prog_sock_is_full(ps) && ps->sk.protocol == IPPROTO_TCP ? (u64)(uintptr_t)&ps->tcp : 0;
}

/* bpf_get_netns_cookie(ctx or NULL): the cookie of the packet's socket's network namespace
 * (the runner's, for a test run's dummy socket), which SO_NETNS_COOKIE tells user space; NULL
 * asks for the initial namespace's, known only when we run in it (else 0). */
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
/* Whether the calling thread runs in the initial network namespace, whose /proc inode is the
 * kernel's PROC_NET_INIT_INO: 0xF0000098 since 6.18, 0xEFFFFFF9 before (the running kernel's,
 * whichever it is). */
static bool in_init_netns(void)
{
	struct stat st;

	return !stat("/proc/thread-self/ns/net", &st) &&
	       (st.st_ino == 0xf0000098u || st.st_ino == 0xeffffff9u);
}

u64 h_get_netns_cookie(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u64 cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	close(fd);
	return ctx || in_init_netns() ? cookie : 0;
}

/* The socket helpers on an skb.  A test run's skb belongs to a dummy socket, as the kernel's
 * (uid 0, whoever runs it); its cookie is drawn when first asked, from a process-wide counter
 * (the kernel's is system-wide, so only "nonzero, stable within a run" is portable). */
u64 h_get_socket_cookie(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	static u64 last_cookie;
	struct run_skb *skb = run_skb_of(PTR(ctx));

	if (!skb->sock_cookie)
		skb->sock_cookie = __atomic_add_fetch(&last_cookie, 1, __ATOMIC_RELAXED);
	return skb->sock_cookie;
}

u64 h_get_socket_uid(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}
