/* The socket lookup helpers against the kernel: bpf_sk_lookup_tcp(), bpf_sk_lookup_udp(),
 * bpf_skc_lookup_tcp(), bpf_sk_release() and bpf_get_listener_sock().
 *
 * Runs: real sockets of this process (TCP listeners and connections, a time-wait socket, UDP
 * sockets bound and connected, IPv4, IPv6 and dual-stack) looked up by tc and XDP programs in
 * BPF_PROG_TEST_RUN, on the kernel and on userbpf, which must find the same socket and show the
 * program the same struct bpf_sock fields (written into the packet, compared in data_out), or
 * find nothing alike (unknown tuples, sizes, flags and netns ids); socket storage that bpf()
 * sets on a socket's fd is what a program that looks the socket up reads, and the reverse.
 * Verifier: the reference a lookup acquires (released exactly once on every path, NULL
 * branches, casts, tail calls, spills), the helpers' argument rules and which program types have
 * them, compared by verdict and error line, and whole level-2 logs for accepted programs.
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SKB_OFF(f) ((short)offsetof(struct __sk_buff, f))
#define XDP_OFF(f) ((short)offsetof(struct xdp_md, f))
#define SK_OFF(f) ((short)offsetof(struct bpf_sock, f))
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The test packet: an Ethernet header, the tuple at TUPLE_AT, the fields the program read from
 * OUT_AT on (4 bytes each), PKT_LEN bytes in all. */
#define TUPLE_AT 14
#define OUT_AT 52
#define PKT_LEN 200

/* The struct bpf_sock fields a program reads: every one of a full socket, the common ones of
 * a bpf_skc_lookup_tcp() socket. */
static const struct field {
	short off, size;
	bool full_only;
} fields[] = {
	{ SK_OFF(bound_dev_if), 4, false }, { SK_OFF(family), 4, false },
	{ SK_OFF(type), 4, true },	     { SK_OFF(protocol), 4, true },
	{ SK_OFF(mark), 4, true },	     { SK_OFF(priority), 4, true },
	{ SK_OFF(src_ip4), 4, false },	     { SK_OFF(src_ip6[0]), 4, false },
	{ SK_OFF(src_ip6[1]), 4, false },    { SK_OFF(src_ip6[2]), 4, false },
	{ SK_OFF(src_ip6[3]), 4, false },    { SK_OFF(src_port), 4, false },
	{ SK_OFF(dst_port), 2, false },	     { SK_OFF(dst_ip4), 4, false },
	{ SK_OFF(dst_ip6[0]), 4, false },    { SK_OFF(dst_ip6[1]), 4, false },
	{ SK_OFF(dst_ip6[2]), 4, false },    { SK_OFF(dst_ip6[3]), 4, false },
	{ SK_OFF(state), 4, false },	     { SK_OFF(rx_queue_mapping), 4, true },
};

enum kind { TCP, UDP, SKC, LISTENER };

/* A program that looks up the tuple in its packet and writes what it found after it.
 *   cb[0] (tc) the tuple size, cb[1] flags, cb[2] | cb[3] << 32 netns_id;
 *   XDP: the size, flags and netns_id (32 bits) from the packet's first 12 bytes (the
 *   Ethernet addresses, which nothing reads).
 * Returns 0 when the lookup found nothing, else 1 (LISTENER: 2 more when
 * bpf_get_listener_sock() of the socket found one, whose fields are then written). */
static int load_lookup(int s, uint32_t type, enum kind kind)
{
	bool xdp = type == BPF_PROG_TYPE_XDP;
	int helper = kind == UDP ? BPF_FUNC_sk_lookup_udp
		     : kind == SKC ? BPF_FUNC_skc_lookup_tcp
				   : BPF_FUNC_sk_lookup_tcp;
	struct bpf_insn p[160];
	uint32_t n = 0;

	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, xdp ? XDP_OFF(data) : SKB_OFF(data));
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1,
			     xdp ? XDP_OFF(data_end) : SKB_OFF(data_end));
	p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_7);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, PKT_LEN);
	p[n++] = BPF_JMP_REG(BPF_JLE, BPF_REG_0, BPF_REG_8, 2);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 3);
	p[n++] = BPF_EXIT_INSN();
	if (xdp) {
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_7, 0);
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_7, 4);
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_7, 8);
	} else {
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, SKB_OFF(cb[0]));
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_6, SKB_OFF(cb[1]));
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, SKB_OFF(cb[3]));
		p[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_4, 32);
		p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, SKB_OFF(cb[2]));
		p[n++] = BPF_ALU64_REG(BPF_OR, BPF_REG_4, BPF_REG_1);
	}
	p[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_3, 63);
	p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_7);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, TUPLE_AT);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
	p[n++] = BPF_EMIT_CALL(helper);
	p[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	if (kind == LISTENER) /* (released at the end: the listener is no reference) */
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -8);
	p[n++] = BPF_MOV64_REG(BPF_REG_9, BPF_REG_0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_8, 1);
	if (kind == LISTENER) {
		/* r9 = the listener, when there is one (else the socket itself) */
		p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
		p[n++] = BPF_EMIT_CALL(BPF_FUNC_get_listener_sock);
		p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2);
		p[n++] = BPF_MOV64_REG(BPF_REG_9, BPF_REG_0);
		p[n++] = BPF_MOV64_IMM(BPF_REG_8, 3);
	}
	for (size_t i = 0; i < N(fields); i++) {
		if (kind == SKC && fields[i].full_only)
			continue;
		p[n++] = BPF_LDX_MEM(fields[i].size == 2 ? BPF_H : BPF_W, BPF_REG_1, BPF_REG_9,
				     fields[i].off);
		p[n++] = BPF_STX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, (short)(OUT_AT + 4 * i));
	}
	if (kind == LISTENER)
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8);
	else
		p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_9);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_sk_release);
	p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_8);
	p[n++] = BPF_EXIT_INSN();
	return side_prog_load(s, type, p, n);
}

/* The sockets the runs look up, the same on both sides (the kernel's own). */
struct socks {
	int listen4, client4, server4, udp4, udp4c, listen6, dual6, tw_client;
	uint16_t lport4, cport4, uport4, ucport4, lport6, dport6, twport, twlport;
};

static uint16_t port_of(int fd)
{
	struct sockaddr_in6 a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len))
		return 0;
	return a.sin6_port; /* (sin_port is at the same offset) */
}

static int bound(int family, int type, const char *addr)
{
	int fd = socket(family, type, 0);

	if (fd < 0)
		return -1;
	if (family == AF_INET) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		inet_pton(AF_INET, addr, &a.sin_addr);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6 };

		inet_pton(AF_INET6, addr, &a.sin6_addr);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	}
	if (type == SOCK_STREAM && listen(fd, 8))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static int connect4(int fd, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = port,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return connect(fd, (struct sockaddr *)&a, sizeof(a));
}

static bool socks_open(struct socks *k)
{
	int one = 1, tw_listen, tw_server;

	memset(k, 0xff, sizeof(*k));
	k->listen4 = bound(AF_INET, SOCK_STREAM, "127.0.0.1");
	k->client4 = socket(AF_INET, SOCK_STREAM, 0);
	k->udp4 = bound(AF_INET, SOCK_DGRAM, "127.0.0.1");
	k->udp4c = bound(AF_INET, SOCK_DGRAM, "127.0.0.1");
	k->listen6 = bound(AF_INET6, SOCK_STREAM, "::1");
	k->dual6 = bound(AF_INET6, SOCK_STREAM, "::");
	if (k->listen4 < 0 || k->client4 < 0 || k->udp4 < 0 || k->udp4c < 0 || k->listen6 < 0 ||
	    k->dual6 < 0)
		return false;
	k->lport4 = port_of(k->listen4);
	k->uport4 = port_of(k->udp4);
	k->ucport4 = port_of(k->udp4c);
	k->lport6 = port_of(k->listen6);
	k->dport6 = port_of(k->dual6);
	setsockopt(k->listen4, SOL_SOCKET, SO_PRIORITY, &(int){ 5 }, sizeof(int));
	if (connect4(k->client4, k->lport4) || connect4(k->udp4c, k->uport4))
		return false;
	k->cport4 = port_of(k->client4);
	k->server4 = accept(k->listen4, NULL, NULL);
	/* a time-wait socket: the side that closes first keeps it */
	tw_listen = bound(AF_INET, SOCK_STREAM, "127.0.0.1");
	k->tw_client = socket(AF_INET, SOCK_STREAM, 0);
	if (k->server4 < 0 || tw_listen < 0 || k->tw_client < 0)
		return false;
	setsockopt(tw_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	k->twlport = port_of(tw_listen);
	if (connect4(k->tw_client, k->twlport))
		return false;
	k->twport = port_of(k->tw_client);
	tw_server = accept(tw_listen, NULL, NULL);
	close(tw_listen);
	if (tw_server < 0)
		return false;
	close(k->tw_client);
	k->tw_client = -1;
	usleep(20000);
	close(tw_server);
	usleep(20000);
	return true;
}

static void socks_close(struct socks *k)
{
	int *fds[] = { &k->listen4, &k->client4, &k->server4, &k->udp4, &k->udp4c, &k->listen6,
		       &k->dual6 };

	for (size_t i = 0; i < N(fds); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
}

/* One lookup: the tuple (saddr:sport -> daddr:dport, of family 4 or 6), the size passed
 * (0: the family's), flags and netns_id. */
struct lookup {
	const char *what;
	enum kind kind;
	int family;
	const char *saddr, *daddr;
	int sport, dport; /* a port, or -1 .. -8: the sockets' (see port()) */
	uint32_t size;
	uint64_t flags, netns;
};

static uint16_t port(const struct socks *k, int p)
{
	switch (p) {
	case -1: return k->lport4;
	case -2: return k->cport4;
	case -3: return k->uport4;
	case -4: return k->ucport4;
	case -5: return k->lport6;
	case -6: return k->dport6;
	case -7: return k->twport;
	case -8: return k->twlport;
	default: return htons((uint16_t)p);
	}
}

static void make_packet(uint8_t *pkt, const struct socks *k, const struct lookup *l, bool xdp)
{
	struct bpf_sock_tuple t;
	uint32_t size = l->size ? l->size : l->family == 4 ? sizeof(t.ipv4) : sizeof(t.ipv6);

	memset(pkt, 0, PKT_LEN);
	memset(&t, 0, sizeof(t));
	if (l->family == 4) {
		inet_pton(AF_INET, l->saddr, &t.ipv4.saddr);
		inet_pton(AF_INET, l->daddr, &t.ipv4.daddr);
		t.ipv4.sport = port(k, l->sport);
		t.ipv4.dport = port(k, l->dport);
	} else {
		inet_pton(AF_INET6, l->saddr, t.ipv6.saddr);
		inet_pton(AF_INET6, l->daddr, t.ipv6.daddr);
		t.ipv6.sport = port(k, l->sport);
		t.ipv6.dport = port(k, l->dport);
	}
	memcpy(pkt + TUPLE_AT, &t, sizeof(t));
	pkt[12] = 0x08; /* (an IPv4 ethertype, which nothing reads) */
	if (xdp) {
		uint32_t w[3] = { size, (uint32_t)l->flags, (uint32_t)l->netns };

		memcpy(pkt, w, sizeof(w));
	}
}

static const struct lookup lookups[] = {
	{ "tcp: an established socket", TCP, 4, "127.0.0.1", "127.0.0.1", -2, -1, 0, 0, -1ull },
	{ "tcp: its peer", TCP, 4, "127.0.0.1", "127.0.0.1", -1, -2, 0, 0, -1ull },
	{ "tcp: a listener", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, -1ull },
	{ "tcp: no socket", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, 1, 0, 0, -1ull },
	{ "tcp: another address", TCP, 4, "10.1.2.3", "127.0.0.2", 5555, -1, 0, 0, -1ull },
	{ "tcp: the UDP socket's port", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -3, 0, 0, -1ull },
	{ "tcp: a dual-stack listener, by IPv4", TCP, 4, "10.1.2.3", "127.0.0.5", 5555, -6, 0, 0,
	  -1ull },
	{ "tcp: an IPv6 listener", TCP, 6, "2001:db8::1", "::1", 5555, -5, 0, 0, -1ull },
	{ "tcp: a dual-stack listener", TCP, 6, "2001:db8::1", "::1", 5555, -6, 0, 0, -1ull },
	{ "tcp: an IPv6 tuple, IPv4 socket", TCP, 6, "::1", "::1", 5555, -1, 0, 0, -1ull },
	{ "tcp: size 13", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 13, 0, -1ull },
	{ "tcp: size 0", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 63, 0, -1ull },
	{ "tcp: flags 1", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 1, -1ull },
	{ "tcp: netns 0x80000000", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, 0x80000000ull },
	{ "tcp: netns 0xffffffff", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, 0xffffffffull },
	{ "tcp: netns 12345", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, 12345 },
	{ "tcp: netns 2^32 + 5", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, 0x100000005ull },
	{ "tcp: netns 2^32 - 2^31", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0,
	  0x1ffffffffull },
	{ "tcp: a time-wait socket", TCP, 4, "127.0.0.1", "127.0.0.1", -8, -7, 0, 0, -1ull },
	{ "udp: a bound socket", UDP, 4, "10.1.2.3", "127.0.0.1", 5555, -3, 0, 0, -1ull },
	{ "udp: a connected socket", UDP, 4, "127.0.0.1", "127.0.0.1", -3, -4, 0, 0, -1ull },
	{ "udp: connected, another peer", UDP, 4, "127.0.0.9", "127.0.0.1", 5555, -4, 0, 0, -1ull },
	{ "udp: the TCP listener's port", UDP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, -1ull },
	{ "udp: flags 2", UDP, 4, "10.1.2.3", "127.0.0.1", 5555, -3, 0, 2, -1ull },
	{ "skc: an established socket", SKC, 4, "127.0.0.1", "127.0.0.1", -2, -1, 0, 0, -1ull },
	{ "skc: a listener", SKC, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, -1ull },
	{ "skc: a time-wait socket", SKC, 4, "127.0.0.1", "127.0.0.1", -8, -7, 0, 0, -1ull },
	{ "skc: IPv6", SKC, 6, "2001:db8::1", "::1", 5555, -5, 0, 0, -1ull },
	{ "listener of a listener", LISTENER, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, -1ull },
	{ "listener of an established one", LISTENER, 4, "127.0.0.1", "127.0.0.1", -2, -1, 0, 0,
	  -1ull },
};

/* BPF_PROG_TEST_RUN on side s of prog with lookup l's packet (its size, flags and netns_id in
 * the ctx's cb for tc, in the packet for XDP), repeated twice; what it wrote in out, *ret. */
static struct bpf_result run_lookup(int s, int prog, const struct socks *k, const struct lookup *l,
				    bool xdp, uint8_t *out, uint32_t *ret)
{
	uint8_t pkt[PKT_LEN];
	struct __sk_buff ctx;
	struct bpf_result r;
	union bpf_attr a;

	make_packet(pkt, k, l, xdp);
	memset(&ctx, 0, sizeof(ctx));
	ctx.cb[0] = l->size ? l->size : l->family == 4 ? 12 : 36;
	ctx.cb[1] = (uint32_t)l->flags;
	ctx.cb[2] = (uint32_t)l->netns;
	ctx.cb[3] = (uint32_t)(l->netns >> 32);
	memset(&a, 0, sizeof(a));
	memset(out, 0xee, PKT_LEN);
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = PTR_TO_U64(pkt);
	a.test.data_size_in = PKT_LEN;
	a.test.data_out = PTR_TO_U64(out);
	a.test.data_size_out = PKT_LEN;
	if (!xdp) {
		a.test.ctx_in = PTR_TO_U64(&ctx);
		a.test.ctx_size_in = sizeof(ctx);
	}
	a.test.repeat = 2;
	r = side_call(s, BPF_PROG_TEST_RUN, &a);
	*ret = a.test.retval;
	return r;
}

static void lookups_agree(uint32_t type)
{
	bool xdp = type == BPF_PROG_TYPE_XDP;
	int prog[4][NSIDES];
	struct socks k;
	int found = 0, rx_queue_unknown = 0;

	REQUIRE(socks_open(&k));
	/* (XDP has no bpf_get_listener_sock()) */
	int kinds = xdp ? LISTENER : LISTENER + 1;

	for (int kind = 0; kind < kinds; kind++)
		for (int s = 0; s < NSIDES; s++) {
			prog[kind][s] = load_lookup(s, type, (enum kind)kind);
			if (prog[kind][s] < 0)
				test_fail(__FILE__, __LINE__, "type %u kind %d side %d: load: %s",
					  type, kind, s, strerror(errno));
			REQUIRE(prog[kind][s] >= 0);
		}
	for (size_t i = 0; i < N(lookups); i++) {
		const struct lookup *l = &lookups[i];
		uint8_t out[NSIDES][PKT_LEN];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];
		char what[96];

		if ((int)l->kind >= kinds)
			continue;
		for (int s = 0; s < NSIDES; s++)
			r[s] = run_lookup(s, prog[l->kind][s], &k, l, xdp, out[s], &ret[s]);
		snprintf(what, sizeof(what), "%s: %s", xdp ? "xdp" : "tc", l->what);
		if (!AGREE(what, r) || r[K].rc)
			continue;
		if (ret[U] != ret[K])
			test_fail(__FILE__, __LINE__, "%s: retval %u, the kernel's %u", what, ret[U],
				  ret[K]);
		found += ret[K] != 0;
		for (size_t f = 0; f < N(fields); f++) {
			uint32_t u, kv;

			memcpy(&u, out[U] + OUT_AT + 4 * f, 4);
			memcpy(&kv, out[K] + OUT_AT + 4 * f, 4);
			/* the receive queue an accepted socket's packets came in on (0 here, on
			 * loopback, mostly; once 0x5273 on this project's machines) is not known
			 * to userbpf, which shows none (-1; see src/exec/sock_lookup.c) */
			if (fields[f].off == SK_OFF(rx_queue_mapping) && u == UINT32_MAX &&
			    kv != UINT32_MAX) {
				rx_queue_unknown++;
				continue;
			}
			/* an IPv4 time-wait socket has no IPv6 addresses: the kernel reads
			 * whatever its memory holds there */
			if (l->sport == -8 && l->family == 4 &&
			    ((fields[f].off >= SK_OFF(src_ip6) && fields[f].off < SK_OFF(src_port)) ||
			     (fields[f].off >= SK_OFF(dst_ip6) && fields[f].off < SK_OFF(state))))
				continue;
			if (u != kv)
				test_fail(__FILE__, __LINE__, "%s: field at %d: 0x%x, the kernel's 0x%x",
					  what, fields[f].off, u, kv);
		}
	}
	/* (most of the lookups find a socket: the comparisons above are not all of NULLs) */
	CHECK(found >= 15);
	/* (only the accepted socket: the lookups of it by tuple and of its listener) */
	CHECK(rx_queue_unknown <= 2);
	for (int kind = 0; kind < kinds; kind++)
		for (int s = 0; s < NSIDES; s++)
			close(prog[kind][s]);
	socks_close(&k);
}

TEST(diff_sock_lookup_tc)
{
	SKIP_WITHOUT_KERNEL_BPF();
	lookups_agree(BPF_PROG_TYPE_SCHED_CLS);
}

TEST(diff_sock_lookup_xdp)
{
	SKIP_WITHOUT_KERNEL_BPF();
	lookups_agree(BPF_PROG_TYPE_XDP);
}

/* Socket storage on a socket a lookup found: the listener's, which bpf() reaches by its fd. */
static const char STRS[] = "\0int\0v\0a\0long";
enum { S_INT = 1, S_V = 5, S_A = 7, S_LONG = 9, S_END = sizeof(STRS) };
static const uint32_t types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32), /* 1 int */
	T_INT(S_LONG, 8, 0, 0, 64),		/* 2 u64 */
	T_STRUCT(S_V, 1, 8), T_MEMBER(S_A, 2, 0), /* 3 struct v { u64 a; } */
};

/* tc: r6 = ctx, r7 = the packet (PKT_LEN bytes, else return 3), r0 = bpf_sk_lookup_tcp() of
 * its IPv4 tuple, returning 0 when that finds nothing. */
#define LOOKUP_PACKET_TUPLE                                                                        \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),                                                       \
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, SKB_OFF(data)),                                   \
	BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1, SKB_OFF(data_end)),                               \
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_7), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, PKT_LEN),           \
	BPF_JMP_REG(BPF_JLE, BPF_REG_0, BPF_REG_8, 2), BPF_MOV64_IMM(BPF_REG_0, 3),               \
	BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_REG(BPF_REG_2, BPF_REG_7), \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, TUPLE_AT), BPF_MOV64_IMM(BPF_REG_3, 12),                \
	BPF_MOV64_IMM(BPF_REG_4, -1), BPF_MOV64_IMM(BPF_REG_5, 0),                                 \
	BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),            \
	BPF_EXIT_INSN()

/* Looks up the listener of the packet's tuple (cb[0]: flags for the storage) and adds 1 to its
 * storage, returning the new value (0: nothing found, 1 << 20: no storage). */
static int load_storage_counter(int s, int map)
{
	struct bpf_insn p[] = {
		LOOKUP_PACKET_TUPLE,
		BPF_MOV64_REG(BPF_REG_9, BPF_REG_0),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_9),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, SKB_OFF(cb[0])),
		BPF_EMIT_CALL(BPF_FUNC_sk_storage_get),
		BPF_MOV64_IMM(BPF_REG_8, 1 << 20),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
		BPF_LDX_MEM(BPF_DW, BPF_REG_8, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_8, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_8, 0),
		BPF_JMP_IMM(BPF_JA, 0, 0, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_9),
		BPF_EMIT_CALL(BPF_FUNC_sk_release),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_8),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, p, N(p));
}

TEST(diff_sock_lookup_storage)
{
	int btf[NSIDES], map[NSIDES], prog[NSIDES];
	static const struct lookup l = { "", TCP, 4, "10.1.2.3", "127.0.0.1", 5555, -1, 0, 0, 0 };
	/* cb[0] for each run: get without create, then create, then bpf() sets 100 */
	static const uint32_t flags[] = { 0, BPF_SK_STORAGE_GET_F_CREATE, 0, 0, 1, 2 };
	struct socks k;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, N(types), STRS, S_END);
		REQUIRE(btf[s] >= 0);
		map[s] = side_map_create_btf(s, BPF_MAP_TYPE_SK_STORAGE, 4, 8, 0, BPF_F_NO_PREALLOC,
					     btf[s], 1, 3).rc;
		REQUIRE(map[s] >= 0);
		prog[s] = load_storage_counter(s, map[s]);
		REQUIRE(prog[s] >= 0);
	}
	for (size_t i = 0; i < N(flags); i++) {
		uint8_t pkt[PKT_LEN];
		struct __sk_buff ctx;
		uint32_t ret[NSIDES];
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES];
		char what[48];

		if (i == 3)
			for (int s = 0; s < NSIDES; s++) {
				uint64_t hundred = 100;

				CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &k.listen4,
						   &hundred, 0).rc, 0);
			}
		make_packet(pkt, &k, &l, false);
		memset(&ctx, 0, sizeof(ctx));
		ctx.cb[0] = flags[i];
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run_ctx(s, prog[s], pkt, PKT_LEN, 1, &ctx, sizeof(ctx),
						 NULL, 0, &ret[s]);
		snprintf(what, sizeof(what), "storage run %zu", i);
		if (!AGREE(what, r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		/* and what bpf() reads on the socket's fd */
		for (int s = 0; s < NSIDES; s++) {
			v[s] = 0xeeee;
			r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &k.listen4, &v[s], 0);
		}
		if (AGREE(what, r) && !r[K].rc)
			CHECK_EQ(v[U], v[K]);
	}
	/* the storage count went through the program and bpf() alike: 1, 100 + 1 + 1 */
	for (int s = 0; s < NSIDES; s++) {
		uint64_t v = 0;

		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &k.listen4, &v, 0).rc, 0);
		CHECK_EQ(v, 102);
		close(prog[s]);
		close(map[s]);
		close(btf[s]);
	}
	socks_close(&k);
}

/* ---- the verifier ---- */

#define TUPLE_ON_STACK                                                                             \
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),              \
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),      \
		BPF_MOV64_IMM(BPF_REG_3, 12), BPF_MOV64_IMM(BPF_REG_4, -1),                        \
		BPF_MOV64_IMM(BPF_REG_5, 0)
#define LOOKUP(fn) TUPLE_ON_STACK, BPF_EMIT_CALL(fn)
#define RELEASE(reg) BPF_MOV64_REG(BPF_REG_1, reg), BPF_EMIT_CALL(BPF_FUNC_sk_release)
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()

struct vcase {
	const char *what;
	uint32_t type, eat;
	struct bpf_insn insns[32];
};

static const struct vcase vcases[] = {
	{ "lookup, NULL check, release", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(0) } },
	{ "the NULL check the other way", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_udp), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2), RET(0),
	    RELEASE(BPF_REG_0), RET(1) } },
	{ "never released", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), RET(0) } },
	{ "released on one path only", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(family)),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 2, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "released without a NULL check", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), RELEASE(BPF_REG_0), RET(0) } },
	{ "released twice", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), RELEASE(BPF_REG_6), RELEASE(BPF_REG_6),
	    RET(0) } },
	{ "read after release", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), RELEASE(BPF_REG_6),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, SK_OFF(family)), RET(0) } },
	{ "release of skb->sk", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1), BPF_EMIT_CALL(BPF_FUNC_sk_release),
	    RET(0) } },
	{ "release of a scalar", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_IMM(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_sk_release), RET(0) } },
	{ "pointer arithmetic on the socket", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 4), RELEASE(BPF_REG_0), RET(0) } },
	{ "a write to the socket", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
	    BPF_ST_MEM(BPF_W, BPF_REG_0, SK_OFF(mark), 1), RELEASE(BPF_REG_0), RET(0) } },
	{ "sock_common: its type", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_skc_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(type)), RELEASE(BPF_REG_0),
	    RET(0) } },
	{ "sock_common: its state", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_skc_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(state)), RELEASE(BPF_REG_0),
	    RET(0) } },
	{ "fullsock of a reference, release it", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_skc_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 11),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_fullsock), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(type)), RELEASE(BPF_REG_0), RET(1),
	    RELEASE(BPF_REG_6), RET(0) } },
	{ "fullsock of a reference, NULL leaks", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_skc_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 6),
	    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_sk_fullsock),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "fullsock's result after the release", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_fullsock), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	    RELEASE(BPF_REG_6), BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 1),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, SK_OFF(type)), RET(0) } },
	{ "listener of a reference; release the listener", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_get_listener_sock), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RELEASE(BPF_REG_6), RET(0) } },
	{ "listener of a reference; release the reference", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 9),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_get_listener_sock), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	    RELEASE(BPF_REG_6), BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 1),
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, SK_OFF(state)), RET(0) } },
	{ "spilled and filled", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -24),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_10, -24),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, 2), RELEASE(BPF_REG_6), RET(0) } },
	{ "LD_ABS while held", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), LOOKUP(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	    BPF_LD_ABS(BPF_B, 0), RELEASE(BPF_REG_7), RET(0) } },
	{ "two held, both released", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_REG(BPF_REG_9, BPF_REG_1), LOOKUP(BPF_FUNC_sk_lookup_tcp),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_9),
	    LOOKUP(BPF_FUNC_sk_lookup_udp), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, 2), RELEASE(BPF_REG_6),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 2), RELEASE(BPF_REG_7), RET(0) } },
	{ "the tuple in the ctx", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_3, 12),
	    BPF_MOV64_IMM(BPF_REG_4, -1), BPF_MOV64_IMM(BPF_REG_5, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(0) } },
	{ "an uninitialised tuple", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
	    BPF_MOV64_IMM(BPF_REG_3, 12), BPF_MOV64_IMM(BPF_REG_4, -1),
	    BPF_MOV64_IMM(BPF_REG_5, 0), BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "a tuple past the stack's top", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { TUPLE_ON_STACK, BPF_MOV64_IMM(BPF_REG_3, 36), BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "size 0", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { TUPLE_ON_STACK, BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "an unknown size", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(mark)), TUPLE_ON_STACK,
	    BPF_MOV64_REG(BPF_REG_3, BPF_REG_6), BPF_EMIT_CALL(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), RELEASE(BPF_REG_0), RET(0) } },
	{ "XDP", BPF_PROG_TYPE_XDP, 0,
	  { LOOKUP(BPF_FUNC_skc_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(2) } },
	{ "cgroup skb", BPF_PROG_TYPE_CGROUP_SKB, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 6),
	    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_get_listener_sock), RELEASE(BPF_REG_6), RET(1) } },
	{ "a socket filter", BPF_PROG_TYPE_SOCKET_FILTER, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(0) } },
	{ "XDP: get_listener_sock", BPF_PROG_TYPE_XDP, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
	    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	    BPF_EMIT_CALL(BPF_FUNC_get_listener_sock), RELEASE(BPF_REG_6), RET(2) } },
	{ "sock_addr connect4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT,
	  { LOOKUP(BPF_FUNC_sk_lookup_udp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(1) } },
	{ "sock_addr: ctx->sk released", BPF_PROG_TYPE_CGROUP_SOCK_ADDR,
	  BPF_CGROUP_INET4_CONNECT,
	  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, (short)offsetof(struct bpf_sock_addr, sk)),
	    BPF_EMIT_CALL(BPF_FUNC_sk_release), RET(1) } },
	{ "cgroup sock", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(1) } },
	{ "sk_lookup: release ctx->sk", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, (short)offsetof(struct bpf_sk_lookup, sk)),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1), BPF_EMIT_CALL(BPF_FUNC_sk_release),
	    RET(1) } },
	{ "sk_lookup: a lookup", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(1) } },
	{ "tc: sk_assign of a lookup's socket", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), LOOKUP(BPF_FUNC_sk_lookup_tcp),
	    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 7), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
	    BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
	    BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_sk_assign), RELEASE(BPF_REG_7),
	    RET(0) } },
	{ "tc: sk_assign of NULL", BPF_PROG_TYPE_SCHED_CLS, 0,
	  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(0) } },
	{ "XDP: sk_assign", BPF_PROG_TYPE_XDP, 0,
	  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(2) } },
	{ "sk_lookup: sk_assign of NULL", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(1) } },
	{ "sk_lookup: sk_assign of ctx->sk", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, (short)offsetof(struct bpf_sk_lookup, sk)),
	    BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(1) } },
	{ "sk_lookup: sk_assign of a scalar", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { BPF_MOV64_IMM(BPF_REG_2, 1), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(1) } },
	{ "sk_lookup: sk_assign of the ctx", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP,
	  { BPF_MOV64_REG(BPF_REG_2, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_EMIT_CALL(BPF_FUNC_sk_assign), RET(1) } },
	{ "lwt", BPF_PROG_TYPE_LWT_IN, 0,
	  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
	    RELEASE(BPF_REG_0), RET(0) } },
};

static uint32_t insn_count(const struct bpf_insn *insns)
{
	uint32_t n = 32;

	while (n && !insns[n - 1].code)
		n--;
	return n;
}

/* An accepted program's whole level-2 log, on both sides. */
static void logs_agree(const char *what, uint32_t type, uint32_t eat,
		       const struct bpf_insn *insns, uint32_t cnt)
{
	static char log[NSIDES][1 << 16];
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		r[s] = side_prog_load_level(s, type, eat, insns, cnt, log[s], sizeof(log[s]), 2);
		if (r[s].rc >= 0)
			close(r[s].rc);
	}
	if (!AGREE(what, r) || r[K].rc < 0)
		return;
	/* (up to the statistics line, whose time differs) */
	for (int s = 0; s < NSIDES; s++) {
		char *end = strstr(log[s], "processed ");

		if (end)
			*end = 0;
	}
	if (strcmp(log[K], log[U]))
		test_fail(__FILE__, __LINE__, "%s: level-2 logs differ:\n--- kernel\n%s--- userbpf\n%s",
			  what, log[K], log[U]);
}

TEST(diff_sock_lookup_verifier)
{
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < N(vcases); i++) {
		uint32_t cnt = insn_count(vcases[i].insns);

		accepted += verdicts_agree_eat_at(__FILE__, __LINE__, vcases[i].what,
						  vcases[i].type, vcases[i].eat, vcases[i].insns,
						  vcases[i].insns, cnt);
		logs_agree(vcases[i].what, vcases[i].type, vcases[i].eat, vcases[i].insns, cnt);
	}
	/* both kinds are here: accepted programs and rejected ones */
	CHECK(accepted >= 10 && accepted + 10 <= (int)N(vcases));
}

/* userbpf alone (no kernel bpf() needed: runs everywhere, i386 included): what a lookup of
 * this process's own sockets shows, against what the sockets themselves say. */
TEST(sock_lookup_own_sockets)
{
	static const struct {
		const char *what;
		int lookup;	/* index into lookups[] */
		uint32_t ret, family, type, protocol, state;
		int src_port, dst_port; /* as port(): the socket's ports */
	} want[] = {
		{ "established", 0, 1, AF_INET, SOCK_STREAM, IPPROTO_TCP, 1, -1, -2 },
		{ "its peer", 1, 1, AF_INET, SOCK_STREAM, IPPROTO_TCP, 1, -2, -1 },
		{ "listener", 2, 1, AF_INET, SOCK_STREAM, IPPROTO_TCP, 10, -1, 0 },
		{ "no socket", 3, 0, 0, 0, 0, 0, 0, 0 },
		{ "dual stack by IPv4", 6, 1, AF_INET6, SOCK_STREAM, IPPROTO_TCP, 10, -6, 0 },
		{ "IPv6 listener", 7, 1, AF_INET6, SOCK_STREAM, IPPROTO_TCP, 10, -5, 0 },
		{ "size 13", 10, 0, 0, 0, 0, 0, 0, 0 },
		{ "flags 1", 12, 0, 0, 0, 0, 0, 0, 0 },
		{ "netns 12345", 15, 0, 0, 0, 0, 0, 0, 0 },
		{ "udp bound", 19, 1, AF_INET, SOCK_DGRAM, IPPROTO_UDP, 7, -3, 0 },
		{ "udp connected", 20, 1, AF_INET, SOCK_DGRAM, IPPROTO_UDP, 1, -4, -3 },
		{ "time-wait, full", 18, 0, 0, 0, 0, 0, 0, 0 },
		{ "time-wait, skc", 26, 1, AF_INET, 0, 0, 6, -7, -8 },
	};
	int prog[LISTENER];
	struct socks k;
	int diag = socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG);

	/* (qemu-user, which runs the i386 tests here, has no such sockets) */
	if (diag < 0)
		SKIP("NETLINK_SOCK_DIAG unavailable (%s): userbpf's lookups find nothing",
		     strerror(errno));
	close(diag);
	REQUIRE(socks_open(&k));
	for (int kind = 0; kind < LISTENER; kind++) {
		prog[kind] = load_lookup(U, BPF_PROG_TYPE_SCHED_CLS, (enum kind)kind);
		REQUIRE(prog[kind] >= 0);
	}
	for (size_t i = 0; i < N(want); i++) {
		const struct lookup *l = &lookups[want[i].lookup];
		uint8_t out[PKT_LEN];
		uint32_t f[N(fields)], ret;

		REQUIRE_EQ(run_lookup(U, prog[l->kind], &k, l, false, out, &ret).rc, 0);
		if (ret != want[i].ret)
			test_fail(__FILE__, __LINE__, "%s: retval %u, want %u", want[i].what, ret,
				  want[i].ret);
		if (!want[i].ret)
			continue;
		memcpy(f, out + OUT_AT, sizeof(f));
		CHECK_EQ(f[1], want[i].family);
		if (l->kind != SKC) {
			CHECK_EQ(f[2], want[i].type);
			CHECK_EQ(f[3], want[i].protocol);
		}
		CHECK_EQ(f[18], want[i].state);
		CHECK_EQ(f[11], ntohs(port(&k, want[i].src_port)));
		CHECK_EQ(f[12], want[i].dst_port ? port(&k, want[i].dst_port) : 0);
		if (want[i].family == AF_INET)
			CHECK_EQ(f[6], htonl(INADDR_LOOPBACK));
	}
	for (int kind = 0; kind < LISTENER; kind++)
		close(prog[kind]);
	socks_close(&k);
}

/* ---- bpf_tcp_sock() ---- */

#define TCP_OFF(f) ((short)offsetof(struct bpf_tcp_sock, f))

/* Looks up the packet's tuple (tc; size 12), takes bpf_tcp_sock() of what it found, copies the
 * whole struct bpf_tcp_sock into the packet at OUT_AT and releases the socket through that
 * view.  0: nothing found, 2: not a TCP socket, 1: copied. */
static int load_tcp_fields(int s)
{
	struct bpf_insn p[128] = { LOOKUP_PACKET_TUPLE };
	uint32_t n = N(((struct bpf_insn[]){ LOOKUP_PACKET_TUPLE }));

	p[n++] = BPF_MOV64_REG(BPF_REG_9, BPF_REG_0);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_tcp_sock);
	p[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 4);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_9);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_sk_release);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 2);
	p[n++] = BPF_EXIT_INSN();
	for (short off = 0; off < (short)sizeof(struct bpf_tcp_sock); off += 4) {
		bool wide = off == TCP_OFF(bytes_received) || off == TCP_OFF(bytes_acked);

		p[n++] = BPF_LDX_MEM(wide ? BPF_DW : BPF_W, BPF_REG_1, BPF_REG_0, off);
		p[n++] = BPF_STX_MEM(wide ? BPF_DW : BPF_W, BPF_REG_7, BPF_REG_1,
				     (short)(OUT_AT + off));
		off += wide ? 4 : 0;
	}
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_sk_release);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	p[n++] = BPF_EXIT_INSN();
	return side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, p, n);
}

/* What userbpf cannot know of a TCP socket from outside it (src/exec/sock_lookup.c): its
 * sequence numbers and last rate sample read 0; srtt_us lacks its low 3 bits; ecn_flags has
 * its OK and SEEN bits only.  The mask of the bits compared, per field. */
static uint32_t tcp_field_mask(short off)
{
	if (off == TCP_OFF(rcv_nxt) || off == TCP_OFF(snd_nxt) || off == TCP_OFF(snd_una) ||
	    off == TCP_OFF(rate_delivered) || off == TCP_OFF(rate_interval_us))
		return 0;
	if (off == TCP_OFF(srtt_us))
		return ~7u;
	if (off == TCP_OFF(ecn_flags))
		return 9;
	return ~0u;
}

TEST(diff_sock_lookup_tcp_sock)
{
	static const int which[] = { 0, 1, 2, 19 }; /* lookups[]: both ends, a listener, UDP */
	int prog[NSIDES], compared = 0;
	struct socks k;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	/* some traffic on the connection, so that its counters are not all zero */
	REQUIRE(write(k.client4, "hello", 5) == 5);
	REQUIRE(write(k.server4, "hello, world", 12) == 12);
	usleep(20000);
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = load_tcp_fields(s);
		REQUIRE(prog[s] >= 0);
	}
	for (size_t i = 0; i < N(which); i++) {
		const struct lookup *l = &lookups[which[i]];
		uint8_t out[NSIDES][PKT_LEN];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = run_lookup(s, prog[s], &k, l, false, out[s], &ret[s]);
		if (!AGREE(l->what, r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		if (ret[K] != 1)
			continue;
		for (short off = 0; off < (short)sizeof(struct bpf_tcp_sock); off += 4) {
			uint32_t u, kv, mask = tcp_field_mask(off);

			memcpy(&u, out[U] + OUT_AT + off, 4);
			memcpy(&kv, out[K] + OUT_AT + off, 4);
			if (!mask) {
				CHECK_EQ(u, 0);
				continue;
			}
			compared++;
			if ((u & mask) != (kv & mask))
				test_fail(__FILE__, __LINE__, "%s: tcp_sock at %d: %u, the kernel's %u",
					  l->what, off, u, kv);
		}
	}
	CHECK(compared >= 3 * 20);
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
	socks_close(&k);
}

/* The verifier on struct bpf_tcp_sock: every load of every size at every offset, and a store;
 * the helper's program types, its NULL, and the reference its result carries. */
TEST(diff_sock_lookup_tcp_sock_verifier)
{
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int off = -4; off < (int)sizeof(struct bpf_tcp_sock) + 8; off++) {
		static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };

		for (int z = 0; z < 5; z++) {
			struct bpf_insn p[] = {
				BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
				BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 3),
				BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
				BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
				z < 4 ? BPF_LDX_MEM(sizes[z], BPF_REG_0, BPF_REG_0, (short)off)
				      : BPF_ST_MEM(BPF_W, BPF_REG_0, (short)off, 1),
				RET(0),
			};
			char what[48];

			snprintf(what, sizeof(what), "tcp_sock %s off %d size %d",
				 z < 4 ? "load" : "store", off, z < 4 ? 1 << z : 4);
			accepted += VERDICTS_AGREE_EAT(what, BPF_PROG_TYPE_SCHED_CLS, 0, p, N(p));
		}
	}
	CHECK_EQ(accepted, 20 + 2 + 4); /* the 4-byte fields, and the two u64 counters whole */
	static const struct vcase cases[] = {
		{ "cgroup skb", BPF_PROG_TYPE_CGROUP_SKB, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 4), BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, TCP_OFF(snd_cwnd)), RET(1) } },
		{ "XDP", BPF_PROG_TYPE_XDP, 0,
		  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_tcp_sock), RELEASE(BPF_REG_6), RET(2) } },
		{ "no NULL check", BPF_PROG_TYPE_SCHED_CLS, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2), BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, TCP_OFF(snd_cwnd)), RET(0) } },
		{ "released through its tcp_sock", BPF_PROG_TYPE_SCHED_CLS, 0,
		  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 10),
		    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_tcp_sock), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, TCP_OFF(snd_cwnd)),
		    RELEASE(BPF_REG_0), RET(1), RELEASE(BPF_REG_6), RET(0) } },
		{ "tcp_sock after the release", BPF_PROG_TYPE_SCHED_CLS, 0,
		  { LOOKUP(BPF_FUNC_sk_lookup_tcp), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
		    BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_tcp_sock), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		    RELEASE(BPF_REG_6), BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_7, TCP_OFF(snd_cwnd)), RET(0) } },
		{ "arithmetic on a tcp_sock", BPF_PROG_TYPE_SCHED_CLS, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 4), BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8),
		    RET(0) } },
		{ "a tcp_sock as a socket argument", BPF_PROG_TYPE_SCHED_CLS, 0,
		  { BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, SKB_OFF(sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 6), BPF_EMIT_CALL(BPF_FUNC_tcp_sock),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_fullsock), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, SK_OFF(type)), RET(0) } },
	};
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t cnt = insn_count(cases[i].insns);

		verdicts_agree_eat_at(__FILE__, __LINE__, cases[i].what, cases[i].type,
				      cases[i].eat, cases[i].insns, cases[i].insns, cnt);
		logs_agree(cases[i].what, cases[i].type, cases[i].eat, cases[i].insns, cnt);
	}
}

/* bpf_sk_assign() at run time: in tc (a test run is not at ingress: -EOPNOTSUPP, -EINVAL for
 * flags) and in a socket lookup program (selecting no socket, with each flag; the second call
 * without BPF_SK_LOOKUP_F_REPLACE), its results kept in an array map. */
TEST(diff_sock_lookup_sk_assign)
{
	static const uint64_t flags[] = { 0, 1, 2, 3, 4, 1ull << 40 };
	int map[NSIDES], tc[NSIDES], sl[NSIDES];
	struct socks k;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0).rc;
		REQUIRE(map[s] >= 0);
		/* r8 = assign(lookup(the packet's tuple), flags from cb[0]); map[0] = r8 */
		struct bpf_insn ptc[] = {
			BPF_LDX_MEM(BPF_W, BPF_REG_9, BPF_REG_1, SKB_OFF(cb[0])),
			LOOKUP_PACKET_TUPLE,
			BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_9),
			BPF_EMIT_CALL(BPF_FUNC_sk_assign),
			BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
			RELEASE(BPF_REG_7),
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
			BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_8, 0),
			RET(1),
		};
		/* map[1] = assign(NULL, flags from map[1]) << 32 | (u32)assign(NULL, flags) */
		struct bpf_insn psl[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
			BPF_EXIT_INSN(),
			BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
			BPF_LDX_MEM(BPF_DW, BPF_REG_9, BPF_REG_0, 0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_9),
			BPF_EMIT_CALL(BPF_FUNC_sk_assign),
			BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_9),
			BPF_EMIT_CALL(BPF_FUNC_sk_assign),
			BPF_ALU64_IMM(BPF_LSH, BPF_REG_8, 32),
			BPF_MOV32_REG(BPF_REG_0, BPF_REG_0),
			BPF_ALU64_REG(BPF_OR, BPF_REG_8, BPF_REG_0),
			BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_8, 0),
			RET(1),
		};

		tc[s] = side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, ptc, N(ptc));
		sl[s] = side_prog_load_eat_log(s, BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP, psl,
					       N(psl), NULL, 0).rc;
		REQUIRE(tc[s] >= 0 && sl[s] >= 0);
	}
	for (size_t i = 0; i < N(flags); i++) {
		struct lookup l = lookups[2]; /* the listener */
		uint64_t v[NSIDES][2];
		uint32_t ret[NSIDES];
		struct bpf_result r[NSIDES];

		l.flags = 0;
		for (int s = 0; s < NSIDES; s++) {
			struct __sk_buff ctx;
			uint8_t pkt[PKT_LEN];

			make_packet(pkt, &k, &l, false);
			memset(&ctx, 0, sizeof(ctx));
			ctx.cb[0] = (uint32_t)flags[i];
			r[s] = side_test_run_ctx(s, tc[s], pkt, PKT_LEN, 1, &ctx, sizeof(ctx), NULL, 0,
						 &ret[s]);
		}
		/* (1: the listener was found and the result stored) */
		if (AGREE("tc sk_assign", r) && !r[K].rc && ret[K] == 1 && ret[U] == 1)
			for (int s = 0; s < NSIDES; s++) {
				uint32_t zero = 0;

				v[s][0] = 0xeeee;
				CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &zero, &v[s][0], 0).rc,
					 0);
			}
		else
			test_fail(__FILE__, __LINE__, "tc sk_assign: retvals %u, %u", ret[K], ret[U]);
		CHECK_EQ(v[U][0], v[K][0]);
		for (int s = 0; s < NSIDES; s++) {
			struct bpf_sk_lookup in = { .family = AF_INET, .protocol = IPPROTO_TCP,
						    .remote_port = htons(5555), .local_port = 80 };
			uint32_t one = 1;
			uint64_t f = flags[i];

			CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &one, &f, 0).rc, 0);
			r[s] = side_test_run_ctx(s, sl[s], NULL, 0, 1, &in, sizeof(in), NULL, 0,
						 &ret[s]);
		}
		if (!AGREE("sk_lookup sk_assign", r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		for (int s = 0; s < NSIDES; s++) {
			uint32_t one = 1;

			CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &one, &v[s][1], 0).rc, 0);
		}
		CHECK_EQ(v[U][1], v[K][1]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(tc[s]);
		close(sl[s]);
		close(map[s]);
	}
	socks_close(&k);
}

/* cgroup skb: the program sees the packet from its network header, where the tuple is, and
 * reports what it found in cb (it may not write the packet): the same as the kernel's. */
/* A cgroup skb program looking up the tuple at the start of its data (helper: which lookup) and
 * writing the family, state, src_port and dst_port of what it found into cb[0..3]. */
static int load_cgroup_skb(int s, int helper)
{
	struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, SKB_OFF(data)),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, SKB_OFF(data_end)),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 12),
		BPF_JMP_REG(BPF_JLE, BPF_REG_0, BPF_REG_3, 2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_3, 12),
		BPF_MOV64_IMM(BPF_REG_4, -1),
		BPF_MOV64_IMM(BPF_REG_5, 0),
		BPF_EMIT_CALL(helper),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(family)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(cb[0])),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(state)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(cb[1])),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, SK_OFF(src_port)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(cb[2])),
		BPF_LDX_MEM(BPF_H, BPF_REG_1, BPF_REG_0, SK_OFF(dst_port)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, SKB_OFF(cb[3])),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_EMIT_CALL(BPF_FUNC_sk_release),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_CGROUP_SKB, p, N(p));
}

/* cgroup skb: the program sees the packet from its network header, where the tuple is put, and
 * reports what it found in cb (it may not write the packet): the same as the kernel's. */
TEST(diff_sock_lookup_cgroup_skb)
{
	static const int which[] = { 0, 1, 2, 3, 18, 19, 20, 24, 26 };
	static const int helpers[] = { BPF_FUNC_sk_lookup_tcp, BPF_FUNC_sk_lookup_udp,
				       BPF_FUNC_skc_lookup_tcp };
	int prog[3][NSIDES], found = 0;
	struct socks k;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int h = 0; h < 3; h++)
		for (int s = 0; s < NSIDES; s++) {
			prog[h][s] = load_cgroup_skb(s, helpers[h]);
			REQUIRE(prog[h][s] >= 0);
		}
	for (size_t i = 0; i < N(which); i++) {
		const struct lookup *l = &lookups[which[i]];
		int h = l->kind == UDP ? 1 : l->kind == SKC ? 2 : 0;
		uint8_t pkt[PKT_LEN];
		struct __sk_buff out[NSIDES];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		/* the tuple right after the Ethernet header, where the program's data begins */
		make_packet(pkt, &k, l, false);
		memmove(pkt + 14, pkt + TUPLE_AT, sizeof(struct bpf_sock_tuple));
		for (int s = 0; s < NSIDES; s++) {
			memset(&out[s], 0, sizeof(out[s]));
			r[s] = side_test_run_ctx(s, prog[h][s], pkt, PKT_LEN, 1, NULL, 0, &out[s],
						 sizeof(out[s]), &ret[s]);
		}
		if (!AGREE(l->what, r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		for (int c = 0; c < 4; c++)
			CHECK_EQ(out[U].cb[c], out[K].cb[c]);
		found += out[K].cb[0] != 0;
	}
	CHECK(found >= 6);
	for (int h = 0; h < 3; h++)
		for (int s = 0; s < NSIDES; s++)
			close(prog[h][s]);
	socks_close(&k);
}
