/* BPF_MAP_TYPE_REUSEPORT_SOCKARRAY against the kernel: creation rules; bpf() with this process's
 * sockets as values (which sockets the map takes: TCP listeners and bound UDP sockets of a
 * reuseport group, each in one slot of one array at most; the flags; the cookies read back;
 * deletes; the iteration), sockets leaving their slots when they close, a socket in either a
 * reuseport array or socket maps but never both, and the verifier's refusal of the map to every
 * helper a program here may call.  Skipped where the kernel's bpf() is unavailable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define REUSEPORT BPF_MAP_TYPE_REUSEPORT_SOCKARRAY

TEST(diff_reuseport_array_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 1, 0 },
		{ 4, 8, 16, 0 },
		{ 4, 0, 1, 0 },
		{ 4, 16, 1, 0 },
		{ 4, 2, 1, 0 },
		{ 8, 8, 1, 0 },
		{ 0, 8, 1, 0 },
		{ 4, 8, 0, 0 },
		{ 4, 8, 1, BPF_F_RDONLY },
		{ 4, 8, 1, BPF_F_WRONLY },
		{ 4, 8, 1, BPF_F_RDONLY | BPF_F_WRONLY },
		{ 4, 8, 1, BPF_F_RDONLY_PROG },
		{ 4, 8, 1, BPF_F_WRONLY_PROG },
		{ 4, 8, 1, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG },
		{ 4, 8, 1, BPF_F_NO_PREALLOC },
		{ 4, 8, 1, BPF_F_MMAPABLE },
		{ 4, 8, 1, BPF_F_INNER_MAP },
		{ 4, 8, 1, BPF_F_PRESERVE_ELEMS },
		{ 4, 8, 1, BPF_F_ZERO_SEED },
		{ 4, 8, 100000, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(REUSEPORT, shapes);
}

/* A TCP socket bound to 127.0.0.1 or ::1 at port (0: any), SO_REUSEPORT if reuse, listening if
 * listen_too; -1 on failure. */
static int tcp_sock(int family, uint16_t port, bool reuse, bool listen_too)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(family, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (reuse)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if ((family == AF_INET ? bind(fd, (struct sockaddr *)&a4, sizeof(a4))
			       : bind(fd, (struct sockaddr *)&a6, sizeof(a6))) ||
	    (listen_too && listen(fd, 4))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A UDP socket on 127.0.0.1 at port (0: any; bound only if bind_too), SO_REUSEPORT if reuse. */
static int udp_sock(uint16_t port, bool reuse, bool bind_too)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	if (fd < 0)
		return -1;
	if (reuse)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (bind_too && bind(fd, (struct sockaddr *)&a4, sizeof(a4))) {
		close(fd);
		return -1;
	}
	return fd;
}

static uint16_t port_of(int fd)
{
	struct sockaddr_in6 a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	return ntohs(a.sin6_port); /* (sin_port is at the same place) */
}

/* This process's sockets, of every kind the map may or may not take. */
struct socks {
	int tcp4a, tcp4b, tcp4c, tcp6, udp4a, udp4b, udp_noreuse, tcp_noreuse, tcp_bound_reuse,
		client, server, udp_unbound, ustream[2], udgram, pipefd[2], udp_conn, lone;
};

static bool socks_open(struct socks *k)
{
	uint16_t port, uport;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	memset(k, 0xff, sizeof(*k));
	k->tcp4a = tcp_sock(AF_INET, 0, true, true);
	if (k->tcp4a < 0)
		return false;
	port = port_of(k->tcp4a);
	k->tcp4b = tcp_sock(AF_INET, port, true, true); /* (the same group) */
	k->tcp4c = tcp_sock(AF_INET, port, true, true);
	k->tcp6 = tcp_sock(AF_INET6, 0, true, true);
	k->udp4a = udp_sock(0, true, true);
	if (k->udp4a < 0)
		return false;
	uport = port_of(k->udp4a);
	k->udp4b = udp_sock(uport, true, true);
	k->udp_noreuse = udp_sock(0, false, true);
	k->tcp_noreuse = tcp_sock(AF_INET, 0, false, true);
	k->tcp_bound_reuse = tcp_sock(AF_INET, 0, true, false);
	k->udp_unbound = udp_sock(0, true, false);
	k->udp_conn = udp_sock(0, true, true);
	k->udgram = socket(AF_UNIX, SOCK_DGRAM, 0);
	k->client = socket(AF_INET, SOCK_STREAM, 0);
	/* (the client connects to a group of one, which then has the connection to accept) */
	k->lone = tcp_sock(AF_INET, 0, true, true);
	if (k->lone < 0)
		return false;
	to.sin_port = htons(port_of(k->lone));
	if (k->tcp4b < 0 || k->tcp4c < 0 || k->tcp6 < 0 || k->udp4b < 0 || k->udp_noreuse < 0 ||
	    k->tcp_noreuse < 0 || k->tcp_bound_reuse < 0 || k->udp_unbound < 0 ||
	    k->udp_conn < 0 || k->udgram < 0 || k->client < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, k->ustream) || pipe(k->pipefd) ||
	    connect(k->client, (struct sockaddr *)&to, sizeof(to)) ||
	    connect(k->udp_conn, (struct sockaddr *)&to, sizeof(to)))
		return false;
	/* (accepted from a reuseport listener: SO_REUSEPORT set, in no group) */
	k->server = accept(k->lone, NULL, NULL);
	return k->server >= 0;
}

static void socks_close(struct socks *k)
{
	int *fds = &k->tcp4a;

	for (size_t i = 0; i < sizeof(*k) / sizeof(int); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

#define FD(f) (int)(offsetof(struct socks, f) / sizeof(int))
#define BAD_FD (-1)	/* fd 999 */
#define BIG_FD (-2)	/* a u64 past INT_MAX */
#define NEG_FD (-3)	/* -1 as a u32 */
#define CLOSE (-10)	/* not a command: close the socket of which */

/* bpf() on the arrays: every step on both sides (rc, errno, the cookies read back). */
TEST(diff_reuseport_array_commands)
{
	struct socks k;
	int maps[3][NSIDES]; /* u64 values (8 slots), u32 values (4), u64 (4) */
	static const struct {
		int map, cmd;
		uint32_t key;
		int which;
		uint64_t flags;
	} steps[] = {
		{ 0, BPF_MAP_UPDATE_ELEM, 0, FD(tcp4a), BPF_ANY },
		{ 0, BPF_MAP_LOOKUP_ELEM, 0, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 0, FD(tcp4a), BPF_ANY },	/* its own slot: busy */
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4a), BPF_ANY },	/* another */
		{ 2, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4a), BPF_ANY },	/* another array's */
		{ 0, BPF_MAP_UPDATE_ELEM, 0, FD(tcp4b), BPF_NOEXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4b), BPF_EXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4b), BPF_NOEXIST },
		{ 0, BPF_MAP_UPDATE_ELEM, 1, FD(tcp6), BPF_EXIST },	/* replaces tcp4b */
		{ 0, BPF_MAP_UPDATE_ELEM, 2, FD(tcp4b), BPF_ANY },	/* free again */
		{ 0, BPF_MAP_UPDATE_ELEM, 3, FD(udp4a), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(udp4b), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(udp_noreuse), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(tcp_noreuse), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(tcp_bound_reuse), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(client), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(server), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(udp_unbound), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(ustream[0]), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(udgram), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(pipefd[0]), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, BAD_FD, BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, BIG_FD, BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(udp_conn), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 5, FD(ustream[0]), BPF_NOEXIST }, /* full: first */
		{ 0, BPF_MAP_UPDATE_ELEM, 6, FD(ustream[0]), BPF_EXIST },   /* empty: first */
		{ 0, BPF_MAP_UPDATE_ELEM, 6, FD(tcp4c), 3 },
		{ 0, BPF_MAP_UPDATE_ELEM, 6, BAD_FD, 3 },
		{ 0, BPF_MAP_UPDATE_ELEM, 8, FD(tcp4c), BPF_ANY },
		{ 0, BPF_MAP_UPDATE_ELEM, 8, BAD_FD, BPF_ANY },
		{ 0, BPF_MAP_LOOKUP_ELEM, 1, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 2, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 3, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 4, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 5, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 6, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 8, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 6, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 8, 0, 0 },
		{ 0, BPF_MAP_DELETE_ELEM, 4, 0, 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 4, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(udp4b), BPF_NOEXIST },	/* free again */
		{ 0, BPF_MAP_LOOKUP_AND_DELETE_ELEM, 1, 0, 0 },
		/* closed sockets leave their slots */
		{ 0, CLOSE, 0, FD(tcp4b), 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 2, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 2, FD(tcp4c), BPF_EXIST },
		{ 0, BPF_MAP_DELETE_ELEM, 2, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 2, FD(tcp4c), BPF_NOEXIST },
		{ 0, BPF_MAP_LOOKUP_ELEM, 2, 0, 0 },
		{ 0, CLOSE, 0, FD(udp4b), 0 },
		{ 0, BPF_MAP_LOOKUP_ELEM, 4, 0, 0 },
		{ 0, BPF_MAP_UPDATE_ELEM, 4, FD(udp_conn), BPF_NOEXIST },
		{ 0, BPF_MAP_LOOKUP_ELEM, 3, 0, 0 },
		/* 4-byte values: no lookups */
		{ 1, BPF_MAP_UPDATE_ELEM, 0, FD(tcp6), BPF_ANY },
		{ 1, BPF_MAP_UPDATE_ELEM, 0, NEG_FD, BPF_ANY },
		{ 1, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4c), BPF_ANY },
		{ 1, BPF_MAP_LOOKUP_ELEM, 1, 0, 0 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 9, 0, 0 },
		{ 1, BPF_MAP_DELETE_ELEM, 1, 0, 0 },
		{ 1, BPF_MAP_UPDATE_ELEM, 1, FD(tcp4c), BPF_ANY },
		{ 1, BPF_MAP_UPDATE_ELEM, 3, FD(udp_unbound), BPF_ANY },
		{ 2, BPF_MAP_UPDATE_ELEM, 0, FD(tcp4c), BPF_ANY },
		{ 2, BPF_MAP_LOOKUP_ELEM, 0, 0, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(socks_open(&k));
	for (int s = 0; s < NSIDES; s++) {
		maps[0][s] = side_map_create(s, REUSEPORT, 4, 8, 8, 0).rc;
		maps[1][s] = side_map_create(s, REUSEPORT, 4, 4, 4, 0).rc;
		maps[2][s] = side_map_create(s, REUSEPORT, 4, 8, 4, 0).rc;
		for (int m = 0; m < 3; m++)
			REQUIRE(maps[m][s] >= 0);
	}
	int *fds = &k.tcp4a;

	for (size_t i = 0; i < N(steps); i++) {
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES], key[2] = { steps[i].key, 0 };
		int w = steps[i].which, m = steps[i].map;
		char what[48];

		if (steps[i].cmd == CLOSE) {
			close(fds[w]);
			fds[w] = -1;
			continue;
		}
		for (int s = 0; s < NSIDES; s++) {
			v[s] = steps[i].cmd != BPF_MAP_UPDATE_ELEM ? 0xeeee
			       : w == BAD_FD			    ? 999
			       : w == BIG_FD			    ? 1ull << 32 | (uint32_t)fds[0]
			       : w == NEG_FD			    ? 0xffffffffu
								    : (uint64_t)fds[w];
			r[s] = side_elem(s, steps[i].cmd, maps[m][s], key,
					 steps[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : &v[s],
					 steps[i].flags);
		}
		snprintf(what, sizeof(what), "reuseport array step %zu", i);
		if (AGREE(what, r) && !r[K].rc && steps[i].cmd == BPF_MAP_LOOKUP_ELEM)
			CHECK_EQ(v[U], v[K]); /* the same socket's cookie */
	}
	/* the iteration: every index */
	for (int m = 0; m < 3; m++) {
		uint32_t key = 0, next[NSIDES];
		struct bpf_result r[NSIDES];
		bool first = true;
		int n = 0;

		for (; n < 20; n++) {
			for (int s = 0; s < NSIDES; s++)
				r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, maps[m][s],
						 first ? NULL : &key, &next[s], 0);
			if (!AGREE("reuseport array walk", r) || r[K].rc)
				break;
			CHECK_EQ(next[U], next[K]);
			key = next[K];
			first = false;
		}
		CHECK_EQ(n, m ? 4 : 8);
	}
	/* no batch commands */
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;
		uint32_t keys[2] = { 0, 1 };
		uint64_t vals[2] = { (uint64_t)k.tcp4c, (uint64_t)k.tcp6 };

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
	/* a socket whose array went is free for another */
	for (int s = 0; s < NSIDES; s++)
		close(maps[2][s]);
	{
		struct bpf_result r[NSIDES];
		uint32_t key = 3;
		uint64_t v[NSIDES];
		int fresh[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			fresh[s] = side_map_create(s, REUSEPORT, 4, 8, 4, 0).rc;
			REQUIRE(fresh[s] >= 0);
		}
		/* (the kernel frees a closed array's slots once its last reference goes, after an
		 * RCU grace period: the kernel side may still see tcp4c taken for a moment) */
		for (int tries = 0; tries < 100; tries++) {
			for (int s = 0; s < NSIDES; s++) {
				v[s] = (uint64_t)k.tcp4c;
				r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fresh[s], &key, &v[s], 0);
			}
			if (r[K].err != EBUSY)
				break;
			usleep(10000);
		}
		AGREE("a socket of an array closed", r);
		for (int s = 0; s < NSIDES; s++)
			close(fresh[s]);
	}
	for (int s = 0; s < NSIDES; s++)
		for (int m = 0; m < 2; m++)
			close(maps[m][s]);
	socks_close(&k);
}

/* The map goes with bpf_sk_select_reuseport() only, which only sk_reuseport programs have
 * (test_diff_sk_reuseport.c): every other helper refuses it, as the kernel's verifier does. */
TEST(diff_reuseport_array_verifier)
{
	static const struct {
		const char *what;
		uint32_t type;
		int func;
	} cases[] = {
		{ "lookup", BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_map_lookup_elem },
		{ "update", BPF_PROG_TYPE_XDP, BPF_FUNC_map_update_elem },
		{ "delete", BPF_PROG_TYPE_SOCKET_FILTER, BPF_FUNC_map_delete_elem },
		{ "sk_select_reuseport from tc", BPF_PROG_TYPE_SCHED_CLS,
		  BPF_FUNC_sk_select_reuseport },
	};

	int map[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, REUSEPORT, 4, 8, 4, 0).rc;
		REQUIRE(map[s] >= 0);
	}
	for (size_t i = 0; i < N(cases); i++) {
		struct bpf_insn p[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
			BPF_LD_MAP_FD(BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
			BPF_MOV64_IMM(BPF_REG_4, 0),
			BPF_EMIT_CALL(cases[i].func),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP(cases[i].what, cases[i].type, p, N(p), map, 1);
	}
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
}

/* A socket is in socket maps or in a reuseport array, not both (the kernel's sk_user_data holds
 * either's mark): the same steps on both sides. */
TEST(diff_reuseport_array_sockmap)
{
	int a = tcp_sock(AF_INET, 0, true, true), b = tcp_sock(AF_INET, 0, true, true);
	int ra[NSIDES], sm[NSIDES];
	static const struct {
		int map, cmd, which;	/* map: 0 the reuseport array, 1 the sockmap; which: a, b */
		uint32_t key;
	} steps[] = {
		{ 1, BPF_MAP_UPDATE_ELEM, 0, 0 },	/* a into the sockmap */
		{ 0, BPF_MAP_UPDATE_ELEM, 0, 0 },	/* then into the array */
		{ 0, BPF_MAP_UPDATE_ELEM, 1, 1 },	/* b into the array */
		{ 1, BPF_MAP_UPDATE_ELEM, 1, 1 },	/* then into the sockmap */
		{ 1, BPF_MAP_DELETE_ELEM, 0, 0 },	/* a out of the sockmap */
		{ 0, BPF_MAP_UPDATE_ELEM, 0, 0 },	/* now into the array */
		{ 0, BPF_MAP_DELETE_ELEM, 1, 1 },	/* b out of the array */
		{ 1, BPF_MAP_UPDATE_ELEM, 1, 1 },	/* now into the sockmap */
		{ 0, BPF_MAP_LOOKUP_ELEM, 0, 0 },
		{ 1, BPF_MAP_LOOKUP_ELEM, 0, 1 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(a >= 0 && b >= 0);
	for (int s = 0; s < NSIDES; s++) {
		ra[s] = side_map_create(s, REUSEPORT, 4, 8, 4, 0).rc;
		sm[s] = side_map_create(s, BPF_MAP_TYPE_SOCKMAP, 4, 8, 4, 0).rc;
		REQUIRE(ra[s] >= 0 && sm[s] >= 0);
	}
	for (size_t i = 0; i < N(steps); i++) {
		struct bpf_result r[NSIDES];
		uint64_t v[NSIDES];
		uint32_t key = steps[i].key;
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			v[s] = (uint64_t)(steps[i].which ? b : a);
			r[s] = side_elem(s, steps[i].cmd, steps[i].map ? sm[s] : ra[s], &key,
					 steps[i].cmd == BPF_MAP_DELETE_ELEM ? NULL : &v[s], 0);
		}
		snprintf(what, sizeof(what), "array and sockmap step %zu", i);
		if (AGREE(what, r) && !r[K].rc && steps[i].cmd == BPF_MAP_LOOKUP_ELEM)
			CHECK_EQ(v[U], v[K]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(ra[s]);
		close(sm[s]);
	}
	close(a);
	close(b);
}

/* Many sockets, each in one slot at most across arrays: 100 listeners into a first array, then
 * each into a second (busy), the even ones deleted from the first and tried again (the odd ones
 * still busy), then the first array's slots replaced by other sockets (the sockets replaced
 * freed) and closed.  The results of every step, the kernel's; userbpf alone then: once the
 * first array is gone, its sockets go anywhere. */
TEST(diff_reuseport_array_many)
{
	enum { NS = 100 };
	int socks[NS], extra[NS / 2], ra[NSIDES], rb[NSIDES], sent = 0;
	bool ok = true;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int i = 0; i < NS; i++)
		REQUIRE((socks[i] = tcp_sock(i % 3 ? AF_INET : AF_INET6, 0, true, true)) >= 0);
	for (int i = 0; i < NS / 2; i++)
		REQUIRE((extra[i] = tcp_sock(AF_INET, 0, true, true)) >= 0);
	for (int s = 0; s < NSIDES; s++) {
		ra[s] = side_map_create(s, REUSEPORT, 4, 8, NS, 0).rc;
		rb[s] = side_map_create(s, REUSEPORT, 4, 8, 2 * NS, 0).rc;
		REQUIRE(ra[s] >= 0 && rb[s] >= 0);
	}
	/* round: 0 into a, 1 into b, 2 delete evens from a, 3 into b again, 4 odds of a
	 * replaced by extra sockets, 5 the replaced ones into b (at NS + i) */
	for (int round = 0; round < 6; round++)
		for (int i = 0; i < NS; i++) {
			struct bpf_result r[NSIDES];
			uint32_t key = (uint32_t)(round == 5 ? NS + i : i);
			int cmd = round == 2 ? BPF_MAP_DELETE_ELEM : BPF_MAP_UPDATE_ELEM;
			char what[64];

			if ((round == 2 && i % 2) || (round >= 4 && !(i % 2)))
				continue;
			for (int s = 0; s < NSIDES; s++) {
				uint64_t v = (uint64_t)(round == 4 ? extra[i / 2] : socks[i]);
				int map = round == 0 || round == 2 || round == 4 ? ra[s] : rb[s];

				r[s] = side_elem(s, cmd, map, &key, cmd == BPF_MAP_DELETE_ELEM ? NULL : &v,
						 0);
			}
			snprintf(what, sizeof(what), "many sockets: round %d, socket %d", round, i);
			ok &= AGREE(what, r);
			sent++;
		}
	CHECK(ok);
	CHECK_EQ(sent, 9 * NS / 2);
	/* userbpf: with the first array gone, its extra sockets are free again */
	close(ra[U]);
	for (int i = 0; i < NS / 2; i++) {
		uint32_t key = (uint32_t)(NS + 2 * i);
		uint64_t v = (uint64_t)extra[i];

		CHECK_EQ(side_elem(U, BPF_MAP_UPDATE_ELEM, rb[U], &key, &v, 0).rc, 0);
	}
	close(ra[K]);
	for (int s = 0; s < NSIDES; s++)
		close(rb[s]);
	for (int i = 0; i < NS; i++)
		close(socks[i]);
	for (int i = 0; i < NS / 2; i++)
		close(extra[i]);
}
