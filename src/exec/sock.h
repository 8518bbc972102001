/* sock.h — the sockets a running program reaches (PTR_TO_SOCKET, PTR_TO_SOCK_COMMON): a test
 * run's dummy socket (__sk_buff.sk), and the kernel's own sockets that bpf_sk_lookup_tcp(),
 * bpf_sk_lookup_udp() and bpf_skc_lookup_tcp() find (sock_lookup.c).
 *
 * Programs read a socket as struct bpf_sock, so each is one, in the uapi layout, followed by
 * what the helpers that take a socket need to know about it.
 */
#ifndef USERBPF_EXEC_SOCK_H
#define USERBPF_EXEC_SOCK_H

#include <linux/bpf.h>

#include "map/sk_storage.h"
#include "util.h"

struct prog_sock {
	struct bpf_sock sk;		/* what programs read: must stay first */
	u64 cookie;			/* a kernel socket's cookie (SO_COOKIE); 0: a test run's
					 * dummy socket */
	struct sk_storage_list storage;	/* the dummy socket's storage (a kernel socket's is kept
					 * by each map, under its cookie) */
};

/* The socket a program's socket pointer points at. */
static inline struct prog_sock *prog_sock_of(u64 sk)
{
	return container_of((struct bpf_sock *)(uintptr_t)sk, struct prog_sock, sk);
}

/* bpf_sk_lookup_tcp/udp(), bpf_skc_lookup_tcp(): the kernel socket of the caller's network
 * namespace that the kernel's lookup gives for tuple (a struct bpf_sock_tuple's ipv4 or ipv6
 * part, len bytes) and proto (IPPROTO_TCP, IPPROTO_UDP), as seen from device ifindex (0: none);
 * full: only a full socket (a request socket gives its listener, a time-wait socket nothing).
 * netns_id and flags as the helpers take them (xdp's 32-bit netns_id zero-extended: u32_netns).
 * NULL when there is none.  The socket stays valid until sock_lookup_run_end(). */
struct bpf_sock *sock_lookup(u8 proto, const void *tuple, u32 len, u64 netns_id, bool u32_netns,
			     u64 flags, u32 ifindex, bool full);

/* The end of a test run (of all its repeats): the sockets its lookups found go. */
void sock_lookup_run_end(void);

#endif /* USERBPF_EXEC_SOCK_H */
