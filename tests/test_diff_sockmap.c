/* BPF_MAP_TYPE_SOCKMAP and BPF_MAP_TYPE_SOCKHASH against the kernel: creation rules; bpf()
 * commands with this process's sockets as values (which sockets a map takes, the flags, the
 * cookies read back, deletes, the iteration order, what the types refuse); programs that look
 * sockets up (a socket lookup program selecting one with bpf_sk_assign(), whose cookie the test
 * run returns; a tc program reading one, and adding the sockets it finds), and the verifier's
 * rules for the two types.  Skipped where the kernel's bpf() is unavailable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SOCKMAP BPF_MAP_TYPE_SOCKMAP
#define SOCKHASH BPF_MAP_TYPE_SOCKHASH
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()

TEST(diff_sockmap_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 1, 0 },	     { 4, 8, 16, 0 },	  { 4, 0, 1, 0 },
		{ 4, 16, 1, 0 },     { 8, 8, 1, 0 },	  { 0, 8, 1, 0 },
		{ 4, 8, 0, 0 },	     { 4, 8, 1, BPF_F_RDONLY },
		{ 4, 8, 1, BPF_F_WRONLY }, { 4, 8, 1, BPF_F_NO_PREALLOC },
		{ 4, 8, 1, BPF_F_RDONLY_PROG }, { 4, 8, 1, BPF_F_MMAPABLE },
		{ 512, 8, 1, 0 },    { 513, 8, 1, 0 },	  { 16, 4, 1000, 0 },
		{ 4, 8, 1u << 27, 0 }, { 4, 8, (1u << 27) + 1, 0 },
		{ 4, 8, (1u << 31) + 1, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	/* (SOCKMAP's largest shapes would allocate gigabytes on the kernel: hash only) */
	CREATES_AGREE(SOCKMAP, ((const struct map_shape[]){
		{ 4, 4, 1, 0 }, { 4, 8, 16, 0 }, { 4, 0, 1, 0 }, { 4, 16, 1, 0 }, { 8, 8, 1, 0 },
		{ 0, 8, 1, 0 }, { 4, 8, 0, 0 }, { 4, 8, 1, BPF_F_RDONLY }, { 4, 8, 1, BPF_F_WRONLY },
		{ 4, 8, 1, BPF_F_NO_PREALLOC }, { 4, 8, 1, BPF_F_RDONLY_PROG },
		{ 4, 8, 1, BPF_F_MMAPABLE }, { 4, 8, (1u << 31) + 1, 0 } }));
	CREATES_AGREE(SOCKHASH, shapes);
}

/* This process's sockets, of every kind a map may or may not take. */
struct socks {
	int listen4, client4, server4, udp4, udp_unbound, tcp_unbound, listen6, ustream[2],
		ulisten, udgram, pipefd[2], reuse;
	struct sockaddr_in a4;
};

static int listener(int family, const char *addr, bool reuseport)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	int fd = socket(family, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (reuseport)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (family == AF_INET)
		inet_pton(AF_INET, addr, &a4.sin_addr);
	else
		inet_pton(AF_INET6, addr, &a6.sin6_addr);
	if ((family == AF_INET ? bind(fd, (struct sockaddr *)&a4, sizeof(a4))
			       : bind(fd, (struct sockaddr *)&a6, sizeof(a6))) ||
	    listen(fd, 4)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool socks_open(struct socks *k)
{
	socklen_t len = sizeof(k->a4);
	struct sockaddr_in u = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	memset(k, 0xff, sizeof(*k));
	k->listen4 = listener(AF_INET, "127.0.0.1", false);
	k->listen6 = listener(AF_INET6, "::1", false);
	k->reuse = listener(AF_INET, "127.0.0.1", true);
	k->client4 = socket(AF_INET, SOCK_STREAM, 0);
	k->tcp_unbound = socket(AF_INET, SOCK_STREAM, 0);
	k->udp4 = socket(AF_INET, SOCK_DGRAM, 0);
	k->udp_unbound = socket(AF_INET6, SOCK_DGRAM, 0);
	k->ulisten = socket(AF_UNIX, SOCK_STREAM, 0);
	k->udgram = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (k->listen4 < 0 || k->listen6 < 0 || k->reuse < 0 || k->client4 < 0 || k->udp4 < 0 ||
	    k->udp_unbound < 0 || k->tcp_unbound < 0 || k->ulisten < 0 || k->udgram < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, k->ustream) || pipe(k->pipefd) ||
	    getsockname(k->listen4, (struct sockaddr *)&k->a4, &len) ||
	    connect(k->client4, (struct sockaddr *)&k->a4, sizeof(k->a4)) ||
	    bind(k->udp4, (struct sockaddr *)&u, sizeof(u)) ||
	    /* (an abstract address, chosen by the kernel) */
	    bind(k->ulisten, (struct sockaddr *)&(sa_family_t){ AF_UNIX }, sizeof(sa_family_t)) ||
	    listen(k->ulisten, 1))
		return false;
	k->server4 = accept(k->listen4, NULL, NULL);
	return k->server4 >= 0;
}

static void socks_close(struct socks *k)
{
	int *fds = &k->listen4;

	for (size_t i = 0; i < offsetof(struct socks, a4) / sizeof(int); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int create(int s, uint32_t type, uint32_t ks, uint32_t vs, uint32_t max)
{
	return side_map_create(s, type, ks, vs, max, 0).rc;
}

/* bpf() on maps of sockets: every step on both sides, rc, errno and the cookies read back. */
TEST(diff_sockmap_commands)
{
	struct socks k;
	int maps[4][NSIDES]; /* sockmap u64, sockmap u32, sockhash u64 (4-byte keys), sockhash 8 */

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int s = 0; s < NSIDES; s++) {
		maps[0][s] = create(s, SOCKMAP, 4, 8, 8);
		maps[1][s] = create(s, SOCKMAP, 4, 4, 8);
		maps[2][s] = create(s, SOCKHASH, 4, 8, 4);
		maps[3][s] = create(s, SOCKHASH, 8, 8, 4);
		for (int m = 0; m < 4; m++)
			REQUIRE(maps[m][s] >= 0);
	}
	const int *fds = &k.listen4;
	/* which: an index into struct socks' fds, or -1: fd 999, -2: a u64 fd past INT_MAX */
	static const struct {
		int map, cmd;
		uint32_t key;
		int which;
		uint64_t flags;
	} steps[] = {
#define FD(f) (int)(offsetof(struct socks, f) / sizeof(int))
		{ 0, BPF_MAP_UPDATE_ELEM, 0, FD(listen4), BPF_ANY },
		{ 0, BPF_MAP_LOOKUP_ELEM, 0, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 0, FD(client4), BPF_NOEXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(client4), BPF_EXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(client4), BPF_NOEXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 2, FD(server4), 3 },
		{ 0, BPF_MAP_UPDATE_ELEM, 2, -1, 3 },
		{ 0, BPF_MAP_UPDATE_ELEM, 8, FD(server4), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 2, FD(server4), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 3, FD(udp4), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(udp_unbound), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(tcp_unbound), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(listen6), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(ustream[0]), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 6, FD(ulisten), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 6, FD(udgram), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 7, FD(pipefd[0]), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 7, -1, BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 7, -2, BPF_ANY },
		{ 0, BPF_MAP_LOOKUP_ELEM, 1, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 2, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 3, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 4, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 5, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 6, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 7, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 9, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 7, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 9, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 6, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 6, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_AND_DELETE_ELEM, 1, 0, 0 },
		{ 1, BPF_MAP_UPDATE_ELEM, 0, FD(listen4), BPF_ANY },
		{ 1, BPF_MAP_LOOKUP_ELEM, 0, 0, 0 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 1, 0, 0 },
		{ 2, BPF_MAP_UPDATE_ELEM, 100, FD(listen4), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 7, FD(client4), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 100, FD(server4), BPF_NOEXIST },
		{ 2, BPF_MAP_UPDATE_ELEM, 100, FD(server4), BPF_EXIST },
		{ 2, BPF_MAP_UPDATE_ELEM, 5, FD(udp4), BPF_EXIST },
		{ 2, BPF_MAP_UPDATE_ELEM, 5, FD(udp4), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 0x10000, FD(listen6), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 0x20000, FD(ustream[1]), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 0x30000, FD(udgram), BPF_ANY },
		{ 2, BPF_MAP_LOOKUP_ELEM, 100, 0, 0 },
		{ 2, BPF_MAP_LOOKUP_ELEM, 8, 0, 0 },
		{ 2, BPF_MAP_DELETE_ELEM, 8, 0, 0 },
		{ 2, BPF_MAP_DELETE_ELEM, 7, 0, 0 },
		{ 2, BPF_MAP_UPDATE_ELEM, 0x30000, FD(udgram), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 0x40000, FD(reuse), BPF_ANY },
		{ 2, BPF_MAP_LOOKUP_ELEM, 0x40000, 0, 0 },
		{ 3, BPF_MAP_UPDATE_ELEM, 1, FD(listen4), BPF_ANY },
		{ 3, BPF_MAP_LOOKUP_ELEM, 1, 0, 0 },
	};
	for (size_t i = 0; i < N(steps); i++) {
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES], key[2] = { steps[i].key, 0 };
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			int w = steps[i].which;

			v[s] = steps[i].cmd != BPF_MAP_UPDATE_ELEM ? 0xeeee
			       : w == -1			    ? 999
			       : w == -2			    ? 1ull << 32 | (uint32_t)fds[0]
								    : (uint64_t)fds[w];
			r[s] = side_elem(s, steps[i].cmd, maps[steps[i].map][s], key,
					 steps[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : &v[s],
					 steps[i].flags);
		}
		snprintf(what, sizeof(what), "sockmap step %zu", i);
		if (AGREE(what, r) && !r[K].rc && steps[i].cmd == BPF_MAP_LOOKUP_ELEM)
			CHECK_EQ(v[U], v[K]); /* the same socket's cookie */
	}
	/* the iteration orders (the hash: the kernel's buckets) */
	for (int m = 0; m < 3; m++) {
		uint32_t key = 0, next[NSIDES];
		struct bpf_result r[NSIDES];
		bool first = true;

		for (int n = 0; n < 20; n++) {
			for (int s = 0; s < NSIDES; s++)
				r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, maps[m][s],
						 first ? NULL : &key, &next[s], 0);
			if (!AGREE("sockmap walk", r) || r[K].rc)
				break;
			CHECK_EQ(next[U], next[K]);
			key = next[K];
			first = false;
		}
	}
	/* what the types do not do */
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;
		uint32_t keys[2] = { 0, 1 };
		uint64_t vals[2] = { (uint64_t)k.listen4, (uint64_t)k.client4 };

		memset(&a, 0, sizeof(a));
		a.batch.map_fd = (uint32_t)maps[0][s];
		a.batch.keys = PTR_TO_U64(keys);
		a.batch.values = PTR_TO_U64(vals);
		a.batch.count = 2;
		CHECK_EQ(side_call(s, BPF_MAP_UPDATE_BATCH, &a).err, 524); /* ENOTSUPP */
		a.batch.count = 2;
		CHECK_EQ(side_call(s, BPF_MAP_LOOKUP_BATCH, &a).err, 524);
		a.batch.count = 2;
		CHECK_EQ(side_call(s, BPF_MAP_DELETE_BATCH, &a).err, 524);
	}
	for (int s = 0; s < NSIDES; s++)
		for (int m = 0; m < 4; m++)
			close(maps[m][s]);
	socks_close(&k);
}

/* Sockets leave socket maps when they close (a listener, a connection's client end, a UDP
 * socket, a Unix datagram socket; a duplicated fd keeps its socket open): lookups, walks,
 * deletes and updates after the closes give the kernel's answers. */
TEST(diff_sockmap_closed_sockets)
{
	struct socks k;
	int maps[2][NSIDES], dup_fd; /* a sockmap and a sockhash, 8 entries each */
	static const struct {
		int map, cmd;
		uint32_t key;
	} steps[] = {
		{ 0, BPF_MAP_LOOKUP_ELEM, 0 }, { 0, BPF_MAP_LOOKUP_ELEM, 1 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 2 }, { 0, BPF_MAP_LOOKUP_ELEM, 3 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 4 }, { 0, BPF_MAP_DELETE_ELEM, 1 },
		{ 0, BPF_MAP_DELETE_ELEM, 2 }, { 0, BPF_MAP_UPDATE_ELEM, 3 },
		{ 0, BPF_MAP_UPDATE_ELEM, 0 }, { 0, BPF_MAP_LOOKUP_ELEM, 0 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 10 }, { 1, BPF_MAP_LOOKUP_ELEM, 11 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 12 }, { 1, BPF_MAP_DELETE_ELEM, 13 },
		{ 1, BPF_MAP_UPDATE_ELEM, 11 }, { 1, BPF_MAP_UPDATE_ELEM, 14 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 14 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 5 }, { 0, BPF_MAP_LOOKUP_ELEM, 6 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 15 }, { 1, BPF_MAP_DELETE_ELEM, 16 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	dup_fd = dup(k.server4);
	REQUIRE(dup_fd >= 0);
	for (int s = 0; s < NSIDES; s++) {
		maps[0][s] = create(s, SOCKMAP, 4, 8, 8);
		maps[1][s] = create(s, SOCKHASH, 4, 8, 8);
		REQUIRE(maps[0][s] >= 0 && maps[1][s] >= 0);
		/* index / key i + 10: listen4, client4, udp4, server4, listen6, a Unix stream's
		 * end, a Unix datagram socket */
		const int put[] = { k.listen4, k.client4, k.udp4, k.server4, k.listen6,
				    k.ustream[0], k.udgram };

		for (uint32_t i = 0; i < 7; i++) {
			uint64_t v = (uint64_t)put[i];
			uint32_t hk = i + 10;

			REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, maps[0][s], &i, &v, 0).rc == 0);
			REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, maps[1][s], &hk, &v, 0).rc == 0);
		}
	}
	/* closed: the listener, the client end, the UDP socket; server4 stays open through its
	 * duplicate */
	close(k.listen4);
	close(k.client4);
	close(k.udp4);
	close(k.server4);
	close(k.udgram);
	k.listen4 = k.client4 = k.udp4 = k.server4 = k.udgram = -1;
	for (size_t i = 0; i < N(steps); i++) {
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES];
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			uint32_t key = steps[i].key;

			v[s] = steps[i].cmd == BPF_MAP_UPDATE_ELEM ? (uint64_t)k.listen6 : 0xeeee;
			r[s] = side_elem(s, steps[i].cmd, maps[steps[i].map][s], &key,
					 steps[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : &v[s],
					 steps[i].cmd != BPF_MAP_UPDATE_ELEM ? 0
					 : steps[i].key == 14		     ? BPF_EXIST
									     : BPF_NOEXIST);
		}
		snprintf(what, sizeof(what), "closed sockets step %zu", i);
		if (AGREE(what, r) && !r[K].rc && steps[i].cmd == BPF_MAP_LOOKUP_ELEM)
			CHECK_EQ(v[U], v[K]);
		if (getenv("TEST_VERBOSE"))
			printf("closed sockets step %zu: %d %d\n", i, r[K].rc, r[K].err);
	}
	/* the hash's walk: the kernel's keys, in its order */
	{
		uint32_t key = 0, next[NSIDES];
		struct bpf_result r[NSIDES];
		int n = 0;

		for (bool first = true; n < 10; n++, first = false) {
			for (int s = 0; s < NSIDES; s++)
				r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, maps[1][s],
						 first ? NULL : &key, &next[s], 0);
			if (!AGREE("sockhash walk after closes", r) || r[K].rc)
				break;
			CHECK_EQ(next[U], next[K]);
			key = next[K];
			if (getenv("TEST_VERBOSE"))
				printf("sockhash walk after closes: key %u\n", key);
		}
		CHECK_EQ(n, 3); /* (listen6 twice and the Unix stream's end are left) */
	}
	for (int s = 0; s < NSIDES; s++) {
		close(maps[0][s]);
		close(maps[1][s]);
	}
	close(dup_fd);
	socks_close(&k);
}

/* r0 = &cfg[slot] (an array map's), or NULL */
#define CFG_SLOT(slot)                                                                             \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, slot), BPF_LD_MAP_FD(BPF_REG_1, cfg),                    \
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),       \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)

/* A socket lookup program: r = bpf_sk_assign(ctx, map[cb key], flags), both from an array
 * map's slots 0 (the key) and 1 (the flags); r goes to slot 2.  SK_PASS. */
static int load_steer(int s, int map, int cfg)
{
	struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		/* r7 = &cfg[0] (the key), r8 = cfg[1] (the flags) */
		CFG_SLOT(0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		CFG_SLOT(1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_8, BPF_REG_0, 0),
		/* sk = map[key]; if NULL: cfg[2] = -1 */
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_9, -1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_7),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_8),
		BPF_EMIT_CALL(BPF_FUNC_sk_assign),
		BPF_MOV64_REG(BPF_REG_9, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_EMIT_CALL(BPF_FUNC_sk_release),
		/* cfg[2] = r9 */
		CFG_SLOT(2),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_9, 0),
		RET(SK_PASS),
	};

	return side_prog_load_eat_log(s, BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP, p, N(p), NULL, 0)
		.rc;
}

/* Socket lookup programs steering connections to the sockets of a socket map: the assignment's
 * result and the cookie the test run returns, per socket, connection and flags. */
TEST(diff_sockmap_sk_lookup_steering)
{
	struct socks k;
	int map[2][NSIDES], cfg[NSIDES], prog[2][NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int s = 0; s < NSIDES; s++) {
		map[0][s] = create(s, SOCKMAP, 4, 8, 8);
		map[1][s] = create(s, SOCKHASH, 4, 8, 8);
		cfg[s] = create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 3);
		REQUIRE(map[0][s] >= 0 && map[1][s] >= 0 && cfg[s] >= 0);
		for (int m = 0; m < 2; m++) {
			/* 0 listen4, 1 server4 (established), 2 udp4, 3 listen6, 4 reuse, 5 a
			 * Unix stream */
			const int socks[] = { k.listen4, k.server4, k.udp4, k.listen6, k.reuse,
					      k.ustream[0] };

			for (uint32_t i = 0; i < N(socks); i++) {
				uint64_t v = (uint64_t)socks[i];

				REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[m][s], &i, &v, 0).rc,
					   0);
			}
			prog[m][s] = load_steer(s, map[m][s], cfg[s]);
			REQUIRE(prog[m][s] >= 0);
		}
	}
	static const struct {
		uint32_t key;
		uint64_t flags;
		uint16_t family, protocol;
	} runs[] = {
		{ 0, 0, AF_INET, IPPROTO_TCP },	 { 0, 0, AF_INET, IPPROTO_UDP },
		{ 0, 0, AF_INET6, IPPROTO_TCP }, { 1, 0, AF_INET, IPPROTO_TCP },
		{ 2, 0, AF_INET, IPPROTO_UDP },	 { 2, 0, AF_INET, IPPROTO_TCP },
		{ 3, 0, AF_INET, IPPROTO_TCP },	 { 3, 0, AF_INET6, IPPROTO_TCP },
		{ 4, 0, AF_INET, IPPROTO_TCP },	 { 4, BPF_SK_LOOKUP_F_NO_REUSEPORT, AF_INET, IPPROTO_TCP },
		{ 5, 0, AF_INET, IPPROTO_TCP },	 { 6, 0, AF_INET, IPPROTO_TCP },
		{ 0, 4, AF_INET, IPPROTO_TCP },	 { 0, BPF_SK_LOOKUP_F_REPLACE, AF_INET, IPPROTO_TCP },
	};
	int found = 0;

	for (int m = 0; m < 2; m++)
		for (size_t i = 0; i < N(runs); i++) {
			struct bpf_result r[NSIDES];
			struct bpf_sk_lookup out[NSIDES];
			uint64_t res[NSIDES];
			uint32_t ret[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++) {
				struct bpf_sk_lookup in = { .family = runs[i].family,
							    .protocol = runs[i].protocol,
							    .remote_port = htons(4000),
							    .local_port = 80 };
				uint32_t c0 = 0, c1 = 1, c2 = 2;
				uint64_t key = runs[i].key, flags = runs[i].flags, none = 7;

				side_elem(s, BPF_MAP_UPDATE_ELEM, cfg[s], &c0, &key, 0);
				side_elem(s, BPF_MAP_UPDATE_ELEM, cfg[s], &c1, &flags, 0);
				side_elem(s, BPF_MAP_UPDATE_ELEM, cfg[s], &c2, &none, 0);
				memset(&out[s], 0xee, sizeof(out[s]));
				r[s] = side_test_run_ctx(s, prog[m][s], NULL, 0, 2, &in, sizeof(in),
							 &out[s], sizeof(out[s]), &ret[s]);
				res[s] = 0xeeee;
				side_elem(s, BPF_MAP_LOOKUP_ELEM, cfg[s], &c2, &res[s], 0);
			}
			snprintf(what, sizeof(what), "%s run %zu", m ? "sockhash" : "sockmap", i);
			CHECK_EQ(res[U], res[K]);
			if (!AGREE(what, r) || r[K].rc)
				continue;
			CHECK_EQ(ret[U], ret[K]);
			CHECK_EQ(out[U].cookie, out[K].cookie);
			found += out[K].cookie != 0;
		}
	CHECK(found >= 8);
	for (int s = 0; s < NSIDES; s++) {
		for (int m = 0; m < 2; m++) {
			close(prog[m][s]);
			close(map[m][s]);
		}
		close(cfg[s]);
	}
	socks_close(&k);
}

/* tc: r0 = the family of map[cb[0]] (0: no socket), and map[cb[1]] = the packet's socket
 * (skb->sk, the test run's dummy one) with its result in cb[2]. */
static int load_tc(int s, int map)
{
	struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, offsetof(struct __sk_buff, cb[1])),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -8),
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_6, offsetof(struct __sk_buff, sk)),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 11),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_3),
		BPF_EMIT_CALL(BPF_FUNC_sk_fullsock),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_0, offsetof(struct __sk_buff, cb[2])),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, offsetof(struct __sk_buff, cb[0])),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, offsetof(struct bpf_sock, family)),
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_0, offsetof(struct bpf_sock, src_port)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_8, offsetof(struct __sk_buff, cb[3])),
		BPF_LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_0, offsetof(struct bpf_sock, state)),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_8, offsetof(struct __sk_buff, cb[4])),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_EMIT_CALL(BPF_FUNC_sk_release),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, BPF_PROG_TYPE_SCHED_CLS, p, N(p));
}

/* tc programs reading the sockets of a map (a closed one no longer there) and adding the test
 * run's socket, which a map does not take. */
TEST(diff_sockmap_tc)
{
	struct socks k;
	int map[NSIDES], prog[NSIDES], gone;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	gone = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in u = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	REQUIRE(gone >= 0 && !bind(gone, (struct sockaddr *)&u, sizeof(u)));
	for (int s = 0; s < NSIDES; s++) {
		const int socks[] = { k.listen4, k.client4, k.udp4, k.listen6, k.ustream[0], gone };

		map[s] = create(s, SOCKHASH, 4, 8, 16);
		REQUIRE(map[s] >= 0);
		for (uint32_t i = 0; i < N(socks); i++) {
			uint64_t v = (uint64_t)socks[i];

			REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &i, &v, 0).rc, 0);
		}
		prog[s] = load_tc(s, map[s]);
		REQUIRE(prog[s] >= 0);
	}
	close(gone); /* (the kernel's map drops it; userbpf's lookup no longer finds it) */
	for (uint32_t key = 0; key < 8; key++) {
		uint8_t pkt[64] = { [12] = 0x08, [14] = 0x45 };
		struct __sk_buff in, out[NSIDES];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];
		char what[32];

		memset(&in, 0, sizeof(in));
		in.cb[0] = key;
		in.cb[1] = 10 + key;
		for (int s = 0; s < NSIDES; s++) {
			memset(&out[s], 0, sizeof(out[s]));
			r[s] = side_test_run_ctx(s, prog[s], pkt, sizeof(pkt), 1, &in, sizeof(in),
						 &out[s], sizeof(out[s]), &ret[s]);
		}
		snprintf(what, sizeof(what), "sockhash key %u", key);
		if (!AGREE(what, r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		for (int c = 2; c < 5; c++)
			CHECK_EQ(out[U].cb[c], out[K].cb[c]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(prog[s]);
		close(map[s]);
	}
	socks_close(&k);
}

/* The verifier on socket maps: the reference a lookup gives, which helpers and program types
 * may use the maps, the value a program adds. */
TEST(diff_sockmap_verifier)
{
	int map[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = create(s, SOCKMAP, 4, 8, 4);
		hash[s] = create(s, SOCKHASH, 4, 8, 4);
		REQUIRE(map[s] >= 0 && hash[s] >= 0);
	}
#define KEY BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),       \
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4)
	static const struct {
		const char *what;
		uint32_t type, eat;
		bool hash;
		struct bpf_insn insns[24]; /* insn 1 loads the map */
	} cases[] = {
		{ "lookup, release", BPF_PROG_TYPE_SCHED_CLS, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		    BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, offsetof(struct bpf_sock, type)),
		    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_sk_release),
		    RET(0) } },
		{ "lookup, no release", BPF_PROG_TYPE_SCHED_CLS, 0, true,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		    RET(0) } },
		{ "lookup, a write to it", BPF_PROG_TYPE_XDP, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3), BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1),
		    BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_EMIT_CALL(BPF_FUNC_sk_release),
		    RET(2) } },
		{ "lookup in cgroup skb", BPF_PROG_TYPE_CGROUP_SKB, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_release), RET(1) } },
		{ "delete in tc", BPF_PROG_TYPE_SCHED_CLS, 0, true,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_delete_elem),
		    RET(0) } },
		{ "delete in cgroup skb", BPF_PROG_TYPE_CGROUP_SKB, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_delete_elem),
		    RET(1) } },
		{ "update with a stack value", BPF_PROG_TYPE_SCHED_CLS, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_2),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		    RET(0) } },
		{ "update with skb->sk", BPF_PROG_TYPE_SCHED_CLS, 0, true,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_6, 0),
		    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, offsetof(struct __sk_buff, sk)),
		    BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 3), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		    RET(0) } },
		{ "peek", BPF_PROG_TYPE_SCHED_CLS, 0, false,
		  { KEY, BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_peek_elem),
		    RET(0) } },
		{ "sk_lookup: lookup and assign", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP, false,
		  { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_MAP_FD(BPF_REG_1, 0), KEY,
		    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 7),
		    BPF_MOV64_REG(BPF_REG_7, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		    BPF_MOV64_REG(BPF_REG_2, BPF_REG_0), BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_assign), BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		    BPF_EMIT_CALL(BPF_FUNC_sk_release), RET(1) } },
	};
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t n = 24;

		while (n && !cases[i].insns[n - 1].code)
			n--;
		verdicts_agree_maps_at(__FILE__, __LINE__, cases[i].what, cases[i].type,
				       cases[i].eat, cases[i].insns, n, cases[i].hash ? hash : map);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(hash[s]);
	}
}
