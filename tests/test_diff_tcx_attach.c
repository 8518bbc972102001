/* tcx against the kernel, in a network namespace made for the test (its loopback device, whose
 * traffic no one else sees): tc programs on a device's ingress and egress by BPF_PROG_ATTACH /
 * _DETACH (6.6's multi-program API: BPF_F_BEFORE / _AFTER relative to a program or link by fd
 * or id, BPF_F_REPLACE, expected revisions, detaching the first or last) and by tcx links
 * (their updates, detaches and info), BPF_PROG_QUERY with program and link ids, and the
 * refusals.  Every call must give the kernel's result and errno, every query the same programs
 * in the same order, the same revision, and a link where the kernel shows one (ids compared as
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

#define TCX_IN 46u
#define TCX_OUT 47u
#define LINK_TYPE_TCX 11u
#define F_BEFORE (1u << 3)
#define F_AFTER (1u << 4)
#define F_ID (1u << 5)
#define F_LINK (1u << 13)
#define LO 1 /* the namespace's loopback device */

enum { NPROGS = 5 };

struct fixture {
	int prog[NSIDES][NPROGS], xdp[NSIDES], act[NSIDES], map[NSIDES];
	uint32_t ids[NSIDES][NPROGS];
};

static int calls, queries;

#define BOTH CALL_BOTH

static void query_agree_at(const char *file, int line, const char *what,
			   const struct fixture *f, int ifindex, uint32_t type, uint32_t cnt)
{
	struct bpf_result r[NSIDES];
	uint32_t n[NSIDES];
	uint64_t rev[NSIDES];
	int idx[NSIDES][8], linked[NSIDES][8];

	for (int s = 0; s < NSIDES; s++) {
		uint32_t ids[8] = { 0 }, lids[8] = { 0 };
		uint64_t lp = PTR_TO_U64(lids);
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.query.target_fd = (uint32_t)ifindex;
		a.query.attach_type = type;
		a.query.prog_ids = PTR_TO_U64(ids);
		a.query.prog_cnt = cnt;
		memcpy((uint8_t *)&a + 40, &lp, 8); /* (6.6's link_ids) */
		r[s] = side_call(s, BPF_PROG_QUERY, &a);
		n[s] = a.query.prog_cnt;
		memcpy(&rev[s], (uint8_t *)&a + 56, 8);
		for (int i = 0; i < 8; i++) {
			idx[s][i] = ids[i] ? -2 : -1;
			linked[s][i] = lids[i] != 0;
			for (int p = 0; p < NPROGS; p++)
				if (ids[i] && ids[i] == f->ids[s][p])
					idx[s][i] = p;
		}
	}
	queries++;
	if (getenv("TEST_VERBOSE"))
		printf("  %s: rc %d errno %d cnt %u rev %llu progs %d%s %d%s %d%s %d%s\n", what,
		       r[K].rc, r[K].err, n[K], (unsigned long long)rev[K], idx[K][0],
		       linked[K][0] ? "L" : "", idx[K][1], linked[K][1] ? "L" : "", idx[K][2],
		       linked[K][2] ? "L" : "", idx[K][3], linked[K][3] ? "L" : "");
	if (results_agree_at(file, line, what, r) &&
	    (n[K] != n[U] || rev[K] != rev[U] || memcmp(idx[K], idx[U], sizeof(idx[K])) ||
	     memcmp(linked[K], linked[U], sizeof(linked[K]))))
		test_fail(file, line, "%s: kernel cnt %u rev %llu progs %d %d %d, userbpf cnt %u "
			  "rev %llu progs %d %d %d", what, n[K], (unsigned long long)rev[K],
			  idx[K][0], idx[K][1], idx[K][2], n[U], (unsigned long long)rev[U],
			  idx[U][0], idx[U][1], idx[U][2]);
}

#define QUERY(what, ifindex, type, cnt)                                                          \
	query_agree_at(__FILE__, __LINE__, what, f, ifindex, type, cnt)
#define ALL(what)                                                                                \
	do {                                                                                     \
		QUERY(what, LO, TCX_IN, 8);                                                      \
		QUERY(what, LO, TCX_OUT, 8);                                                     \
	} while (0)

/* The ingress list's current revision, as the kernel's query says. */
static uint64_t revision(void)
{
	union bpf_attr a;
	uint64_t rev = 0;

	memset(&a, 0, sizeof(a));
	a.query.target_fd = LO;
	a.query.attach_type = TCX_IN;
	side_call(K, BPF_PROG_QUERY, &a);
	memcpy(&rev, (uint8_t *)&a + 56, 8);
	return rev;
}

#define attach side_prog_attach
#define detach side_prog_detach

static void prog_attaches(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s;
	uint64_t rev;

	ALL("nothing attached");
	BOTH("p0", attach(s, LO, f->prog[s][0], TCX_IN, 0, 0, 0, 0));
	BOTH("p1 first", attach(s, LO, f->prog[s][1], TCX_IN, F_BEFORE, 0, 0, 0));
	BOTH("p2 after p0 by fd", attach(s, LO, f->prog[s][2], TCX_IN, F_AFTER, 0,
					 (uint32_t)f->prog[s][0], 0));
	BOTH("p3 before p2 by id", attach(s, LO, f->prog[s][3], TCX_IN, F_BEFORE | F_ID, 0,
					  f->ids[s][2], 0));
	ALL("p1 p0 p3 p2");
	BOTH("p0 again", attach(s, LO, f->prog[s][0], TCX_IN, 0, 0, 0, 0));
	BOTH("p4 replacing p1", attach(s, LO, f->prog[s][4], TCX_IN, BPF_F_REPLACE, f->prog[s][1],
				       0, 0));
	ALL("p4 p0 p3 p2");
	BOTH("p1 replacing p1, not there", attach(s, LO, f->prog[s][1], TCX_IN, BPF_F_REPLACE,
						  f->prog[s][1], 0, 0));
	BOTH("p1 replacing p0, before p2", attach(s, LO, f->prog[s][1], TCX_IN,
						  BPF_F_REPLACE | F_BEFORE, f->prog[s][0],
						  (uint32_t)f->prog[s][2], 0));
	BOTH("p1 replacing p3, before p2", attach(s, LO, f->prog[s][1], TCX_IN,
						  BPF_F_REPLACE | F_BEFORE, f->prog[s][3],
						  (uint32_t)f->prog[s][2], 0));
	ALL("p4 p0 p1 p2");
	BOTH("p3 before and after", attach(s, LO, f->prog[s][3], TCX_IN, F_BEFORE | F_AFTER, 0,
					   0, 0));
	BOTH("p3 after a program not there", attach(s, LO, f->prog[s][3], TCX_IN, F_AFTER, 0,
						    (uint32_t)f->xdp[s], 0));
	BOTH("p3 after an id no program has", attach(s, LO, f->prog[s][3], TCX_IN, F_AFTER | F_ID,
						     0, 0x7ffffff0u, 0));
	BOTH("p3 after a bad fd", attach(s, LO, f->prog[s][3], TCX_IN, F_AFTER, 0, 999, 0));
	BOTH("p3 after a map", attach(s, LO, f->prog[s][3], TCX_IN, F_AFTER, 0,
				      (uint32_t)f->map[s], 0));
	BOTH("p3 with a relative fd, no direction", attach(s, LO, f->prog[s][3], TCX_IN, 0, 0,
							   (uint32_t)f->prog[s][0], 0));
	BOTH("p3 with multi", attach(s, LO, f->prog[s][3], TCX_IN, BPF_F_ALLOW_MULTI, 0, 0, 0));
	BOTH("p3 on no device", attach(s, 999, f->prog[s][3], TCX_IN, 0, 0, 0, 0));
	BOTH("an XDP program", attach(s, LO, f->xdp[s], TCX_IN, 0, 0, 0, 0));
	BOTH("a tc action program", attach(s, LO, f->act[s], TCX_IN, 0, 0, 0, 0));
	rev = revision();
	BOTH("p3 at a stale revision", attach(s, LO, f->prog[s][3], TCX_IN, 0, 0, 0, rev + 1));
	BOTH("p3 at the revision", attach(s, LO, f->prog[s][3], TCX_IN, 0, 0, 0, rev));
	BOTH("p3 on egress too", attach(s, LO, f->prog[s][3], TCX_OUT, 0, 0, 0, 0));
	ALL("p4 p0 p1 p2 p3, egress p3");
	QUERY("2 of 5", LO, TCX_IN, 2);
	QUERY("count only", LO, TCX_IN, 0);
	QUERY("no device", 999, TCX_IN, 8);
	/* detaches */
	BOTH("detach p1", detach(s, LO, f->prog[s][1], TCX_IN, 0));
	BOTH("detach p1 again", detach(s, LO, f->prog[s][1], TCX_IN, 0));
	BOTH("detach the last (no fd)", detach(s, LO, 0, TCX_IN, 0));
	ALL("p4 p0 p2");
	rev = revision();
	BOTH("detach at a stale revision", detach(s, LO, f->prog[s][2], TCX_IN, rev - 1));
	BOTH("detach an XDP program", detach(s, LO, f->xdp[s], TCX_IN, 0));
	BOTH("detach a map", detach(s, LO, f->map[s], TCX_IN, 0));
	BOTH("detach from no device", detach(s, 999, f->prog[s][2], TCX_IN, 0));
	BOTH("detach egress p3", detach(s, LO, f->prog[s][3], TCX_OUT, 0));
	BOTH("detach egress, none left", detach(s, LO, f->prog[s][3], TCX_OUT, 0));
	ALL("egress empty");
	for (int i = 0; i < 3; i++)
		BOTH("detach one", detach(s, LO, 0, TCX_IN, 0));
	ALL("all detached");
}

#define link_info side_link_info_head

static void links(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, l0[NSIDES], l1[NSIDES];
	uint32_t info[NSIDES][3];

	BOTH("link p0", side_link_create(s, LO, f->prog[s][0], TCX_IN, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		l0[s] = r[s].rc;
	REQUIRE(l0[K] >= 0 && l0[U] >= 0);
	for (s = 0; s < NSIDES; s++)
		link_info(s, l0[s], info[s]);
	CHECK_EQ(info[K][0], LINK_TYPE_TCX);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("p1 first", attach(s, LO, f->prog[s][1], TCX_IN, F_BEFORE, 0, 0, 0));
	BOTH("link p2 before p0's link", side_link_create(s, LO, f->prog[s][2], TCX_IN,
							  F_BEFORE | F_LINK, (uint32_t)l0[s], 0));
	for (s = 0; s < NSIDES; s++)
		l1[s] = r[s].rc;
	REQUIRE(l1[K] >= 0 && l1[U] >= 0);
	ALL("p1 p2L p0L");
	BOTH("p0 attached directly", attach(s, LO, f->prog[s][0], TCX_IN, 0, 0, 0, 0));
	BOTH("detach p0 (linked)", detach(s, LO, f->prog[s][0], TCX_IN, 0));
	BOTH("detach the last (linked)", detach(s, LO, 0, TCX_IN, 0));
	BOTH("link p3 after an id no link has", side_link_create(s, LO, f->prog[s][3], TCX_IN,
								 F_AFTER | F_LINK | F_ID,
								 0x7ffffff0u, 0));
	BOTH("link on no device", side_link_create(s, 999, f->prog[s][3], TCX_IN, 0, 0, 0));
	BOTH("link of an XDP program", side_link_create(s, LO, f->xdp[s], TCX_IN, 0, 0, 0));
	BOTH("link with unknown flags", side_link_create(s, LO, f->prog[s][3], TCX_IN, 1u << 20,
							 0, 0));
	BOTH("update p0's link to p3", side_link_update(s, l0[s], f->prog[s][3], 0, 0));
	ALL("p1 p2L p3L");
	BOTH("update expecting p0", side_link_update(s, l0[s], f->prog[s][4], BPF_F_REPLACE,
						     f->prog[s][0]));
	BOTH("update to itself", side_link_update(s, l0[s], f->prog[s][3], 0, 0));
	BOTH("update to p1, attached", side_link_update(s, l0[s], f->prog[s][1], 0, 0));
	BOTH("update to p4 expecting p3", side_link_update(s, l0[s], f->prog[s][4], BPF_F_REPLACE,
							   f->prog[s][3]));
	ALL("p1 p2L p4L");
	BOTH("link detach", side_link_detach(s, l0[s]));
	ALL("p1 p2L");
	for (s = 0; s < NSIDES; s++)
		link_info(s, l0[s], info[s]);
	CHECK_EQ(info[U][1], 0);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("update after the detach", side_link_update(s, l0[s], f->prog[s][0], 0, 0));
	for (s = 0; s < NSIDES; s++) {
		close(l0[s]);
		close(l1[s]);
	}
	ALL("links closed");
	BOTH("detach p1", detach(s, LO, f->prog[s][1], TCX_IN, 0));
	ALL("all gone");
}

/* XDP links on the loopback device (generic mode: it has no native XDP). */
static void xdp_links(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	struct bpf_insn pass[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };
	int s, l[NSIDES], xdp2[NSIDES], devmap[NSIDES], frags[NSIDES];
	uint32_t info[NSIDES][3];

	for (s = 0; s < NSIDES; s++) {
		xdp2[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, pass, 2, NULL, 0).rc;
		devmap[s] = side_prog_load_eat_log(s, BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, pass, 2,
						   NULL, 0).rc;
		frags[s] = side_prog_load_flags(s, BPF_PROG_TYPE_XDP, 0, BPF_F_XDP_HAS_FRAGS, pass,
						2, NULL, 0, 0).rc;
		REQUIRE(xdp2[s] >= 0 && devmap[s] >= 0 && frags[s] >= 0);
	}
	BOTH("XDP link", side_link_create(s, LO, f->xdp[s], BPF_XDP, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		l[s] = r[s].rc;
	REQUIRE(l[K] >= 0 && l[U] >= 0);
	for (s = 0; s < NSIDES; s++)
		link_info(s, l[s], info[s]);
	CHECK_EQ(info[K][0], BPF_LINK_TYPE_XDP);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("a second XDP link", side_link_create(s, LO, xdp2[s], BPF_XDP, 0, 0, 0));
	BOTH("a second, skb mode", side_link_create(s, LO, xdp2[s], BPF_XDP, 2, 0, 0));
	BOTH("a second, native mode", side_link_create(s, LO, xdp2[s], BPF_XDP, 4, 0, 0));
	BOTH("a second, offloaded", side_link_create(s, LO, xdp2[s], BPF_XDP, 8, 0, 0));
	BOTH("two modes", side_link_create(s, LO, xdp2[s], BPF_XDP, 2 | 4, 0, 0));
	BOTH("update-if-noexist", side_link_create(s, LO, xdp2[s], BPF_XDP, 1, 0, 0));
	BOTH("no device", side_link_create(s, 999, xdp2[s], BPF_XDP, 0, 0, 0));
	BOTH("a tc program", side_link_create(s, LO, f->prog[s][0], BPF_XDP, 0, 0, 0));
	BOTH("an XDP program as tcx", side_link_create(s, LO, xdp2[s], TCX_IN, 0, 0, 0));
	BOTH("update to xdp2", side_link_update(s, l[s], xdp2[s], 0, 0));
	BOTH("update expecting the first", side_link_update(s, l[s], f->xdp[s], BPF_F_REPLACE,
							    f->xdp[s]));
	BOTH("update to a tc program", side_link_update(s, l[s], f->prog[s][0], 0, 0));
	BOTH("update to a devmap program", side_link_update(s, l[s], devmap[s], 0, 0));
	BOTH("update to itself", side_link_update(s, l[s], xdp2[s], 0, 0));
	BOTH("link detach", side_link_detach(s, l[s]));
	for (s = 0; s < NSIDES; s++)
		link_info(s, l[s], info[s]);
	CHECK_EQ(info[U][1], 0);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("update after the detach", side_link_update(s, l[s], f->xdp[s], 0, 0));
	BOTH("a devmap program", side_link_create(s, LO, devmap[s], BPF_XDP, 0, 0, 0));
	BOTH("a devmap program, native mode", side_link_create(s, LO, devmap[s], BPF_XDP, 4, 0,
								0));
	BOTH("a frags program", side_link_create(s, LO, frags[s], BPF_XDP, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
	BOTH("skb mode", side_link_create(s, LO, xdp2[s], BPF_XDP, 2, 0, 0));
	for (s = 0; s < NSIDES; s++) {
		if (r[s].rc >= 0)
			close(r[s].rc);
		close(l[s]);
		close(xdp2[s]);
		close(devmap[s]);
		close(frags[s]);
	}
	BOTH("after all closed", side_link_create(s, LO, f->xdp[s], BPF_XDP, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
}

/* The script in the namespace made for it (a failed REQUIRE returns here, so the caller can go
 * back to its own namespace whatever happens). */
static void in_namespace(void *arg)
{
	struct fixture *f = arg;
	struct bpf_insn ok[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	int s;

	memset(f, 0, sizeof(*f));
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++) {
			f->prog[s][i] = side_prog_load_log(s, BPF_PROG_TYPE_SCHED_CLS, ok, 2, NULL,
							   0).rc;
			REQUIRE(f->prog[s][i] >= 0);
			f->ids[s][i] = side_prog_id(s, f->prog[s][i]);
		}
		f->xdp[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, ok, 2, NULL, 0).rc;
		f->act[s] = side_prog_load_log(s, BPF_PROG_TYPE_SCHED_ACT, ok, 2, NULL, 0).rc;
		f->map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(f->xdp[s] >= 0 && f->act[s] >= 0 && f->map[s] >= 0);
	}
	prog_attaches(f);
	links(f);
	xdp_links(f);
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++)
			close(f->prog[s][i]);
		close(f->xdp[s]);
		close(f->act[s]);
		close(f->map[s]);
	}
}

TEST(diff_tcx_attach)
{
	struct fixture fix;
	int err;

	SKIP_WITHOUT_KERNEL_BPF();
	err = in_private_netns(in_namespace, &fix);
	if (err)
		SKIP("cannot make a network namespace (%s)", strerror(-err));
	printf("diff_tcx_attach: %d calls and %d queries with the kernel's answers\n", calls,
	       queries);
	CHECK(calls >= 50);
	CHECK(queries >= 30);
}
