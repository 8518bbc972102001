/* Programs attached to a network namespace against the kernel, in a namespace made for the test
 * (the kernel's flow dissector and socket lookups would otherwise act on this machine's
 * traffic): flow dissectors by BPF_PROG_ATTACH (the calling thread's namespace) or a link, socket
 * lookup programs by links only, BPF_PROG_DETACH, BPF_PROG_QUERY of the namespace's fd, the links'
 * updates, detaches and info, and the refusals (a program and links together, two flow
 * dissectors, fds, flags, namespaces of another kind, program types).  Every call must give the
 * kernel's result and errno, every query the same programs in the same order (ids compared as
 * which of the test's programs they name).  Skipped without the kernel's bpf() or where this
 * process may not make a network namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

enum { FD1, FD2, LK1, LK2, XDP, NPROGS };

static int calls, queries;

struct fixture {
	int prog[NSIDES][NPROGS], map[NSIDES], ns, null, uts;
	uint32_t ids[NSIDES][NPROGS];
};

/* (the attach commands without 6.16's relative fds and revisions) */
#define attach(s, target, prog, type, flags, replace)                                            \
	side_prog_attach(s, target, prog, type, flags, replace, 0, 0)
#define detach(s, target, prog, type) side_prog_detach(s, target, prog, type, 0)
#define link_create(s, target, prog, type, flags)                                                \
	side_link_create(s, target, prog, type, flags, 0, 0)
#define link_update side_link_update
#define link_detach side_link_detach

#define link_info side_link_info_head

static void query_agree_at(const char *file, int line, const char *what,
			   const struct fixture *f, int target, uint32_t type, uint32_t qflags,
			   uint32_t cnt)
{
	struct bpf_result r[NSIDES];
	uint32_t flags[NSIDES], n[NSIDES];
	int idx[NSIDES][8];

	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;
		uint32_t ids[8] = { 0 };

		r[s] = side_prog_query(s, target, type, qflags, ids, cnt, NULL, &a);
		flags[s] = a.query.attach_flags;
		n[s] = a.query.prog_cnt;
		for (int i = 0; i < 8; i++) {
			idx[s][i] = ids[i] ? -2 : -1;
			for (int p = 0; p < NPROGS; p++)
				if (ids[i] && ids[i] == f->ids[s][p])
					idx[s][i] = p;
		}
	}
	queries++;
	if (getenv("TEST_VERBOSE"))
		printf("  %s: rc %d errno %d flags %u cnt %u progs %d %d %d\n", what, r[K].rc,
		       r[K].err, flags[K], n[K], idx[K][0], idx[K][1], idx[K][2]);
	if (results_agree_at(file, line, what, r) &&
	    (flags[K] != flags[U] || n[K] != n[U] || memcmp(idx[K], idx[U], sizeof(idx[K]))))
		test_fail(file, line, "%s: kernel flags %u cnt %u progs %d %d %d, userbpf flags %u "
			  "cnt %u progs %d %d %d", what, flags[K], n[K], idx[K][0], idx[K][1],
			  idx[K][2], flags[U], n[U], idx[U][0], idx[U][1], idx[U][2]);
}

#define QUERY(what, target, type, qflags, cnt)                                                   \
	query_agree_at(__FILE__, __LINE__, what, f, target, type, qflags, cnt)
#define BOTH_QUERIES(what)                                                                       \
	do {                                                                                     \
		QUERY(what, f->ns, BPF_FLOW_DISSECTOR, 0, 8);                                    \
		QUERY(what, f->ns, BPF_SK_LOOKUP, 0, 8);                                         \
	} while (0)

#define BOTH CALL_BOTH

#define FD BPF_FLOW_DISSECTOR
#define LK BPF_SK_LOOKUP

static void flow_dissector(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, l[NSIDES];
	uint32_t info[NSIDES][3];

	BOTH_QUERIES("nothing attached");
	BOTH("fd1 attached", attach(s, 0, f->prog[s][FD1], FD, 0, 0));
	BOTH("fd1 again", attach(s, 0, f->prog[s][FD1], FD, 0, 0));
	BOTH("fd2, replacing", attach(s, 0, f->prog[s][FD2], FD, 0, 0));
	BOTH_QUERIES("fd2 attached");
	BOTH("with the namespace's fd", attach(s, f->ns, f->prog[s][FD1], FD, 0, 0));
	BOTH("with flags", attach(s, 0, f->prog[s][FD1], FD, BPF_F_ALLOW_MULTI, 0));
	BOTH("with a replace fd", attach(s, 0, f->prog[s][FD1], FD, 0, f->prog[s][FD2]));
	BOTH("an XDP program", attach(s, 0, f->prog[s][XDP], FD, 0, 0));
	BOTH("detach fd1, not there", detach(s, 0, f->prog[s][FD1], FD));
	BOTH("detach with the namespace's fd", detach(s, f->ns, f->prog[s][FD2], FD));
	BOTH("detach of a map", detach(s, 0, f->map[s], FD));
	BOTH("detach fd2", detach(s, 0, f->prog[s][FD2], FD));
	BOTH("detach fd2 again", detach(s, 0, f->prog[s][FD2], FD));
	BOTH_QUERIES("all detached");
	/* a link */
	BOTH("fd1 linked", link_create(s, f->ns, f->prog[s][FD1], FD, 0));
	for (s = 0; s < NSIDES; s++)
		l[s] = r[s].rc;
	REQUIRE(l[K] >= 0 && l[U] >= 0);
	BOTH_QUERIES("fd1 linked");
	for (s = 0; s < NSIDES; s++)
		link_info(s, l[s], info[s]);
	CHECK_EQ(info[K][0], BPF_LINK_TYPE_NETNS);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("fd2 attached beside the link", attach(s, 0, f->prog[s][FD2], FD, 0, 0));
	BOTH("a second flow dissector link", link_create(s, f->ns, f->prog[s][FD2], FD, 0));
	BOTH("detach the linked program", detach(s, 0, f->prog[s][FD1], FD));
	BOTH("update to fd2", link_update(s, l[s], f->prog[s][FD2], 0, 0));
	BOTH_QUERIES("link updated");
	BOTH("update expecting fd1", link_update(s, l[s], f->prog[s][FD1], BPF_F_REPLACE,
						 f->prog[s][FD1]));
	BOTH("update expecting fd2", link_update(s, l[s], f->prog[s][FD1], BPF_F_REPLACE,
						 f->prog[s][FD2]));
	BOTH("update to a socket lookup program", link_update(s, l[s], f->prog[s][LK1], 0, 0));
	BOTH_QUERIES("after the updates");
	BOTH("link detach", link_detach(s, l[s]));
	BOTH_QUERIES("link detached");
	for (s = 0; s < NSIDES; s++)
		link_info(s, l[s], info[s]);
	CHECK_EQ(info[U][1], 0);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("update after the detach", link_update(s, l[s], f->prog[s][FD2], 0, 0));
	BOTH("detach again", link_detach(s, l[s]));
	for (s = 0; s < NSIDES; s++)
		close(l[s]);
	BOTH("fd2 attached after", attach(s, 0, f->prog[s][FD2], FD, 0, 0));
	BOTH("a link beside it", link_create(s, f->ns, f->prog[s][FD1], FD, 0));
	BOTH("its detach", detach(s, 0, f->prog[s][FD2], FD));
	BOTH_QUERIES("flow dissector done");
}

static void sk_lookup(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, l[3][NSIDES];

	BOTH("lk1 attached directly", attach(s, 0, f->prog[s][LK1], LK, 0, 0));
	BOTH("lk1 detached directly", detach(s, 0, f->prog[s][LK1], LK));
	for (int i = 0; i < 3; i++) {
		BOTH("a socket lookup link", link_create(s, f->ns, f->prog[s][i == 1 ? LK2 : LK1],
							 LK, 0));
		for (s = 0; s < NSIDES; s++)
			l[i][s] = r[s].rc;
		REQUIRE(l[i][K] >= 0 && l[i][U] >= 0);
	}
	BOTH_QUERIES("lk1, lk2, lk1 linked");
	QUERY("2 of 3 ids", f->ns, LK, 0, 2);
	QUERY("count only", f->ns, LK, 0, 0);
	QUERY("with flags", f->ns, LK, BPF_F_QUERY_EFFECTIVE, 8);
	QUERY("of a file", f->null, LK, 0, 8);
	QUERY("of another namespace kind", f->uts, LK, 0, 8);
	QUERY("of a bad fd", 999, LK, 0, 8);
	BOTH("update the middle one to lk1", link_update(s, l[1][s], f->prog[s][LK1], 0, 0));
	BOTH("update to a flow dissector", link_update(s, l[1][s], f->prog[s][FD1], 0, 0));
	BOTH_QUERIES("middle updated");
	for (s = 0; s < NSIDES; s++)
		close(l[0][s]);
	BOTH_QUERIES("first closed");
	BOTH("link with flags", link_create(s, f->ns, f->prog[s][LK1], LK, 1));
	BOTH("link to a file", link_create(s, f->null, f->prog[s][LK1], LK, 0));
	BOTH("link to another namespace kind", link_create(s, f->uts, f->prog[s][LK1], LK, 0));
	BOTH("link to a bad fd", link_create(s, 999, f->prog[s][LK1], LK, 0));
	BOTH("an XDP program as a flow dissector link", link_create(s, f->ns, f->prog[s][XDP], FD,
								     0));
	BOTH("a socket lookup program as a flow dissector", link_create(s, f->ns,
									f->prog[s][LK1], FD, 0));
	BOTH("a flow dissector as a socket lookup", link_create(s, f->ns, f->prog[s][FD1], LK, 0));
	for (int i = 1; i < 3; i++)
		for (s = 0; s < NSIDES; s++)
			close(l[i][s]);
	BOTH_QUERIES("all closed");
}

/* The script in the namespace made for it (a failed REQUIRE returns here, so the caller can go
 * back to its own namespace whatever happens). */
static void in_namespace(void *arg)
{
	struct fixture *f = arg;
	int s;

	memset(f, 0, sizeof(*f));
	f->ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	f->uts = open("/proc/thread-self/ns/uts", O_RDONLY | O_CLOEXEC);
	f->null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(f->ns >= 0 && f->uts >= 0 && f->null >= 0);
	for (s = 0; s < NSIDES; s++) {
		struct bpf_insn ok[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
		struct bpf_insn pass[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };

		for (int i = 0; i < NPROGS; i++) {
			if (i <= FD2)
				f->prog[s][i] = side_prog_load_log(s, BPF_PROG_TYPE_FLOW_DISSECTOR,
								   ok, 2, NULL, 0).rc;
			else if (i <= LK2)
				f->prog[s][i] = side_prog_load_eat_log(s, BPF_PROG_TYPE_SK_LOOKUP,
								       BPF_SK_LOOKUP, pass, 2, NULL,
								       0).rc;
			else
				f->prog[s][i] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, pass, 2,
								   NULL, 0).rc;
			REQUIRE(f->prog[s][i] >= 0);
			f->ids[s][i] = side_prog_id(s, f->prog[s][i]);
		}
		f->map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(f->map[s] >= 0);
	}
	flow_dissector(f);
	sk_lookup(f);
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++)
			close(f->prog[s][i]);
		close(f->map[s]);
	}
	close(f->ns);
	close(f->uts);
	close(f->null);
}

TEST(diff_netns_attach)
{
	struct fixture fix;
	int err;

	SKIP_WITHOUT_KERNEL_BPF();
	err = in_private_netns(in_namespace, &fix);
	if (err)
		SKIP("cannot make a network namespace (%s)", strerror(-err));
	printf("diff_netns_attach: %d calls and %d queries with the kernel's answers\n", calls,
	       queries);
	CHECK(calls >= 40);
	CHECK(queries >= 30);
}
