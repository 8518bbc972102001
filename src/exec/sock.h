/* sock.h — the sockets a running program reaches (PTR_TO_SOCKET, PTR_TO_SOCK_COMMON): a test
 * run's dummy socket (__sk_buff.sk), and the kernel's own sockets that bpf_sk_lookup_tcp(),
 * bpf_sk_lookup_udp() and bpf_skc_lookup_tcp() find (sock_lookup.c).
 *
 * Programs read a socket as struct bpf_sock, so each is one, in the uapi layout, followed by
 * what the helpers that take a socket need to know about it.
 */
#ifndef USERBPF_EXEC_SOCK_H
#define USERBPF_EXEC_SOCK_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include "map/sk_storage.h"
#include "util.h"

/* The kernel's TCP states a program sees in bpf_sock.state (include/net/tcp_states.h); UDP and
 * Unix sockets use ESTABLISHED (connected) and CLOSE too. */
enum {
	SK_ESTABLISHED = 1,
	SK_TIME_WAIT = 6,
	SK_CLOSE = 7,
	SK_LISTEN = 10,
	SK_NEW_SYN_RECV = 12,
};

/* A socket has two views a pointer may point at: struct bpf_sock (PTR_TO_SOCKET and
 * PTR_TO_SOCK_COMMON) and a TCP socket's struct bpf_tcp_sock (bpf_tcp_sock()), each after a tag
 * saying which it is, so that a helper given either finds the socket. */
#define PROG_SOCK_SK 0x6b73u	/* "sk" */
#define PROG_SOCK_TCP 0x706374u	/* "tcp" */

struct prog_sock {
	u64 sk_tag;			/* PROG_SOCK_SK */
	struct bpf_sock sk;		/* what programs read */
	u64 tcp_tag;			/* PROG_SOCK_TCP */
	struct bpf_tcp_sock tcp;	/* a TCP socket's counters (zero when not one) */
	u64 cookie;			/* a kernel socket's cookie (SO_COOKIE); 0: a test run's
					 * dummy socket */
	bool reuseport;			/* SO_REUSEPORT (known of the sockets of socket maps) */
	bool v6only;			/* an IPv6 socket that takes no IPv4 (IPV6_V6ONLY, or
					 * bound to an IPv6 address) */
	struct sk_storage_list storage;	/* the dummy socket's storage (a kernel socket's is kept
					 * by each map, under its cookie) */
};

/* (each tag right before its view) */
_Static_assert(offsetof(struct prog_sock, sk) == offsetof(struct prog_sock, sk_tag) + 8 &&
		       offsetof(struct prog_sock, tcp) == offsetof(struct prog_sock, tcp_tag) + 8,
	       "a prog_sock view must follow its tag");

/* The socket a program's socket pointer (either view) points at. */
static inline struct prog_sock *prog_sock_of(u64 sk)
{
	const u64 *p = (const u64 *)(uintptr_t)sk;

	return p[-1] == PROG_SOCK_TCP ? container_of((struct bpf_tcp_sock *)p, struct prog_sock, tcp)
				      : container_of((struct bpf_sock *)p, struct prog_sock, sk);
}

/* Whether ps is a full socket (not a time-wait one, which a bpf_skc_lookup_tcp() may find). */
static inline bool prog_sock_is_full(const struct prog_sock *ps)
{
	return ps->sk.state != SK_TIME_WAIT;
}

/* A new socket's tags (and nothing else) set. */
static inline void prog_sock_init(struct prog_sock *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->sk_tag = PROG_SOCK_SK;
	ps->tcp_tag = PROG_SOCK_TCP;
}

/* bpf_sk_lookup_tcp/udp(), bpf_skc_lookup_tcp(): the kernel socket of the caller's network
 * namespace that the kernel's lookup gives for tuple (a struct bpf_sock_tuple's ipv4 or ipv6
 * part, len bytes) and proto (IPPROTO_TCP, IPPROTO_UDP), as seen from device ifindex (0: none);
 * full: only a full socket (a request socket gives its listener, a time-wait socket nothing).
 * netns_id and flags as the helpers take them (xdp's 32-bit netns_id zero-extended: u32_netns).
 * NULL when there is none.  The socket stays valid until sock_lookup_run_end(). */
struct bpf_sock *sock_lookup(u8 proto, const void *tuple, u32 len, u64 netns_id, bool u32_netns,
			     u64 flags, u32 ifindex, bool full);

/* A socket lookup program's ctx as a test run gives it: what bpf_sk_assign() chose besides the
 * socket (ctx.sk). */
struct sk_lookup_run {
	struct bpf_sk_lookup ctx;	/* must stay first: r1 */
	bool no_reuseport;		/* BPF_SK_LOOKUP_F_NO_REUSEPORT */
};

/* The end of a test run (of all its repeats): the sockets its lookups found go. */
void sock_lookup_run_end(void);

/* A kernel socket as a socket map holds it (src/map/sockmap.c): enough to find it again
 * (its cookie and addresses) and to describe it when it cannot be (a Unix socket). */
struct sock_ref {
	u64 cookie;
	u8 family, type, protocol;
	u32 state;		/* when it was added */
	u32 local[4], remote[4];	/* network order (IPv4: [0]) */
	u16 lport, rport;	/* network order */
	bool reuseport;		/* SO_REUSEPORT */
};

/* The socket behind fd, for a socket map (the kernel's sock_map_update_elem_sys() checks): 0,
 * -EBADF, -ENOTSOCK, or -EOPNOTSUPP for a socket a map cannot hold (not TCP, UDP or Unix; a
 * TCP socket neither established nor listening, an unbound UDP one, an unconnected Unix
 * stream). */
int sock_ref_from_fd(int fd, struct sock_ref *r);
/* The same for a socket a program passes (the kernel's sock_map_update_elem()): -EOPNOTSUPP for
 * a test run's dummy socket (no protocol), -EINVAL for a time-wait one. */
int sock_ref_from_prog(u64 sk, struct sock_ref *r);
/* A program's view of r's socket for this run (see sock_lookup()), or NULL when the kernel no
 * longer has it (closed: the kernel's map would have dropped it). */
struct bpf_sock *sock_ref_get(const struct sock_ref *r);

/* Whether the socket of cookie is still open (some file holds it) among the kernel's family/proto
 * sockets in the states (a mask of 1 << state; a Unix socket: any) of the caller's network
 * namespace: a dump, since an exact lookup of a socket in a reuseport group may give another
 * of the group.  True when it cannot tell. */
bool sock_cookie_alive(u8 family, u8 proto, u32 states, u64 cookie);

/* The cookies of every open socket of family and proto (AF_UNIX: every Unix socket) in the
 * caller's network namespace, from one dump: for checking many sockets at once. */
struct sock_cookie_set {
	u64 *cookies;	/* sorted */
	u32 n, cap;
	bool failed;	/* (out of memory while filling it) */
};

/* 0, or -errno with set empty (the kernel could not be asked, or no memory). */
int sock_open_cookies(u8 family, u8 proto, struct sock_cookie_set *set);
bool sock_cookie_set_has(const struct sock_cookie_set *set, u64 cookie);
void sock_cookie_set_add(struct sock_cookie_set *set, u64 cookie);
void sock_cookie_set_free(struct sock_cookie_set *set);

#endif /* USERBPF_EXEC_SOCK_H */
