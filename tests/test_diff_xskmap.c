/* BPF_MAP_TYPE_XSKMAP, differentially, with the kernel's own AF_XDP sockets on both sides:
 * creation rules; seeded random commands (AF_XDP sockets, another socket, a file that is no
 * socket, a closed fd; every flag; lookups, which the type refuses) with the key order of full
 * walks; an XDP program's lookups and bpf_redirect_map() through TEST_RUN; and the verifier's
 * rules for the socket a lookup gives.  Skipped where the kernel's bpf() is unavailable, or
 * AF_XDP sockets are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

#define XSKMAP BPF_MAP_TYPE_XSKMAP
#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(diff_xskmap_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 8, 0 },
		{ 4, 8, 8, 0 },
		{ 8, 4, 8, 0 },
		{ 4, 4, 0, 0 },
		{ 4, 4, 8, BPF_F_NUMA_NODE },
		{ 4, 4, 8, BPF_F_RDONLY },
		{ 4, 4, 8, BPF_F_WRONLY },
		{ 4, 4, 8, BPF_F_RDONLY_PROG },
		{ 4, 4, 8, BPF_F_NO_PREALLOC },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(XSKMAP, shapes);
}

/* The keys of a full walk of fd on side s, into keys (at most max); how many, or -1. */
static int walk(int s, int fd, uint32_t *keys, int max)
{
	union bpf_attr a;
	uint32_t key, next;
	int n = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.next_key = PTR_TO_U64(&next);
	while (n < max) {
		a.key = n ? PTR_TO_U64(&key) : 0;
		if (side_call(s, BPF_MAP_GET_NEXT_KEY, &a).rc)
			return errno == ENOENT ? n : -1;
		keys[n++] = key = next;
	}
	return n;
}

TEST(diff_xskmap_commands)
{
	int fd[NSIDES], xsk[2], udp, file, ok = 0;
	uint64_t rng = 0x13579bdf2468ace0ull;

	SKIP_WITHOUT_KERNEL_BPF();
	xsk[0] = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	xsk[1] = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (xsk[0] < 0 || xsk[1] < 0)
		SKIP("no AF_XDP sockets here: %s", strerror(errno));
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	file = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(udp >= 0 && file >= 0);
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = side_map_create(s, XSKMAP, 4, 4, 6, 0).rc;
		REQUIRE(fd[s] >= 0);
	}
	for (int i = 0; i < 400; i++) {
		/* the same sockets on both sides: they are the kernel's */
		const int vals[] = { xsk[0], xsk[1], xsk[0], xsk[1], udp, file, -1, 9999 };
		uint64_t x = xorshift64(&rng);
		uint32_t key = (uint32_t)(x % 8), op = (uint32_t)(x >> 8) % 4;
		uint32_t v = (uint32_t)vals[(x >> 24) % N(vals)];
		uint64_t flags = (x >> 16) % 3 == 0 ? (x >> 20) % 4 : BPF_ANY;
		struct bpf_result r[NSIDES];
		char what[48];

		for (int s = 0; s < NSIDES; s++) {
			uint32_t out = 0;
			int cmd = op < 2 ? BPF_MAP_UPDATE_ELEM : op == 2 ? BPF_MAP_DELETE_ELEM
									 : BPF_MAP_LOOKUP_ELEM;

			r[s] = side_elem(s, cmd, fd[s], &key, op == 2 ? NULL : op == 3 ? &out : &v,
					 op < 2 ? flags : 0);
		}
		snprintf(what, sizeof(what), "step %d", i);
		if (!AGREE(what, r))
			break;
		ok += r[K].rc == 0;
	}
	{
		uint32_t keys[NSIDES][16];
		int n[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			n[s] = walk(s, fd[s], keys[s], 16);
		CHECK_EQ(n[K], 6);
		CHECK(n[K] == n[U] && !memcmp(keys[K], keys[U], sizeof(uint32_t) * 6));
	}
	CHECK(ok > 100);
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
	close(xsk[0]);
	close(xsk[1]);
	close(udp);
	close(file);
}

TEST(diff_xskmap_redirect)
{
	int fd[NSIDES], xsk;

	SKIP_WITHOUT_KERNEL_BPF();
	xsk = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (xsk < 0)
		SKIP("no AF_XDP sockets here: %s", strerror(errno));
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = side_map_create(s, XSKMAP, 4, 4, 8, 0).rc;
		REQUIRE(fd[s] >= 0);
		for (uint32_t k = 0; k < 8; k += 3)
			REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &k, &xsk, 0).rc);
	}
	/* (lookups read the socket's queue_id) */
	REDIRECTS_AGREE(fd, true, 3, 300, 0x2468ace013579bdfull);
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
	close(xsk);
}

TEST(diff_xskmap_verifier)
{
	int xm[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		xm[s] = side_map_create(s, XSKMAP, 4, 4, 4, 0).rc;
		REQUIRE(xm[s] >= 0);
	}
#define LOOKUP                                                                                   \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),                      \
	    BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),        \
	    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)
	static const struct {
		const char *what;
		uint32_t type;
		struct bpf_insn insns[16];
	} cases[] = {
		{ "queue_id, NULL-checked", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "queue_id, not NULL-checked", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "beyond queue_id", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "queue_id's half", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "queue_id written", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "arithmetic on the socket", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 4), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "the socket returned", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_EXIT_INSN() } },
		{ "the socket to sk_release", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		    BPF_EMIT_CALL(BPF_FUNC_sk_release), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "the socket to a map update", BPF_PROG_TYPE_XDP,
		  { LOOKUP, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5), BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
		    BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		    BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_MOV64_IMM(BPF_REG_0, 2),
		    BPF_EXIT_INSN() } },
		{ "a lookup from tc", BPF_PROG_TYPE_SCHED_CLS,
		  { LOOKUP, BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
	};
#undef LOOKUP
	for (size_t i = 0; i < N(cases); i++) {
		uint32_t n = 16;

		while (n && !cases[i].insns[n - 1].code)
			n--;
		verdicts_agree_maps_at(__FILE__, __LINE__, cases[i].what, cases[i].type, 0,
				       cases[i].insns, n, xm);
	}
	for (int s = 0; s < NSIDES; s++)
		close(xm[s]);
}
