/* Cgroup attachment against the kernel: BPF_PROG_ATTACH, BPF_PROG_DETACH and BPF_PROG_QUERY of
 * cgroup programs, and cgroup links (BPF_LINK_CREATE, _UPDATE, _DETACH, their info), on a
 * subtree of cgroups made for the test (x, x/a, x/a/b below this process's cgroup).
 *
 * One script runs on both sides: the three modes (none, BPF_F_ALLOW_OVERRIDE, BPF_F_ALLOW_MULTI)
 * and what an ancestor's mode allows below it, replacing (BPF_F_REPLACE, and a mode-less
 * attach), ordering (BPF_F_BEFORE / _AFTER by fd, by id, by link; BPF_F_PREORDER), revisions
 * (expected_revision), legacy detach, the 64-program limit, the refusals (flags, fds, types,
 * attach types), and after each change the queries of every cgroup, its own list and the
 * effective one.  Every call must give the kernel's result and errno; a query's flags, count and
 * revision must be the kernel's, and its ids name the same programs (each side's ids are its
 * own, so they are compared as which of the test's programs they are).  Skipped without the
 * kernel's bpf() or a cgroup2 directory this process may make cgroups in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "test_cgroup.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define F_BEFORE (1u << 3)
#define F_AFTER (1u << 4)
#define F_ID (1u << 5)
#define F_PREORDER (1u << 6)
#define F_LINK (1u << 13)

enum { NPROGS = 6 };		/* cgroup skb programs p0..p5 */
enum { CG_X, CG_A, CG_B, NCG };	/* the subtree */

struct fixture {
	int skb[NSIDES][NPROGS];	/* cgroup skb programs, returning 1 + their index % 2 */
	int sock[NSIDES];		/* cgroup sock, for sock_create */
	int sockops[NSIDES];
	int map[NSIDES];
	int cg[NCG];			/* the cgroups' directory fds */
	uint32_t ids[NSIDES][NPROGS + 2];	/* the programs' ids on each side */
};

static int calls, queries;

static int load(int s, uint32_t type, uint32_t eat, int ret)
{
	struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, ret), BPF_EXIT_INSN() };

	return side_prog_load_eat_log(s, type, eat, p, 2, NULL, 0).rc;
}

#define prog_id side_prog_id
#define attach side_prog_attach
#define detach side_prog_detach
#define link_create side_link_create
#define link_update side_link_update
#define link_detach side_link_detach

/* Which of the fixture's programs id is on side s: its index, or -1. */
static int prog_index(const struct fixture *f, int s, uint32_t id)
{
	for (int i = 0; i < NPROGS + 2; i++)
		if (f->ids[s][i] == id)
			return i;
	return -1;
}

/* A query's answer, with the ids as program indices. */
struct query {
	struct bpf_result r;
	uint32_t attach_flags, cnt;
	uint64_t revision;
	int idx[80];
	uint32_t flags[80];
};

static void query(const struct fixture *f, int s, int cg, uint32_t type, uint32_t qflags,
		  uint32_t cnt, bool with_flags, struct query *q)
{
	uint32_t ids[80], pflags[80];
	union bpf_attr a;

	memset(q, 0, sizeof(*q));
	memset(ids, 0, sizeof(ids));
	memset(pflags, 0xff, sizeof(pflags));
	q->r = side_prog_query(s, cg, type, qflags, cnt ? ids : NULL, cnt,
			       with_flags ? pflags : NULL, &a);
	q->attach_flags = a.query.attach_flags;
	q->cnt = a.query.prog_cnt;
	memcpy(&q->revision, (uint8_t *)&a + 56, 8);
	for (uint32_t i = 0; i < 80 && i < cnt; i++) {
		q->idx[i] = ids[i] ? prog_index(f, s, ids[i]) : -2;
		q->flags[i] = pflags[i];
	}
}

static void queries_agree_at(const char *file, int line, const char *what,
			     const struct fixture *f, int cg, uint32_t type, uint32_t qflags,
			     uint32_t cnt, bool with_flags)
{
	struct query q[NSIDES];
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		query(f, s, s == K ? cg : cg, type, qflags, cnt, with_flags, &q[s]);
		r[s] = q[s].r;
	}
	queries++;
	if (!results_agree_at(file, line, what, r))
		return;
	if (getenv("TEST_VERBOSE")) {
		printf("  %s: rc %d flags %u cnt %u rev %llu ids", what, r[K].rc, q[K].attach_flags,
		       q[K].cnt, (unsigned long long)q[K].revision);
		for (uint32_t i = 0; i < q[K].cnt && i < cnt; i++)
			printf(" %d", q[K].idx[i]);
		printf("\n");
	}
	if (q[K].attach_flags != q[U].attach_flags || q[K].cnt != q[U].cnt ||
	    q[K].revision != q[U].revision ||
	    memcmp(q[K].idx, q[U].idx, sizeof(q[K].idx)) ||
	    memcmp(q[K].flags, q[U].flags, sizeof(q[K].flags)))
		test_fail(file, line,
			  "%s: kernel flags %u cnt %u revision %llu first %d %d %d, userbpf flags "
			  "%u cnt %u revision %llu first %d %d %d",
			  what, q[K].attach_flags, q[K].cnt, (unsigned long long)q[K].revision,
			  q[K].idx[0], q[K].idx[1], q[K].idx[2], q[U].attach_flags, q[U].cnt,
			  (unsigned long long)q[U].revision, q[U].idx[0], q[U].idx[1], q[U].idx[2]);
}

#define QUERY(what, cg, type, qflags, cnt, with_flags)                                           \
	queries_agree_at(__FILE__, __LINE__, what, f, cg, type, qflags, cnt, with_flags)

/* Every cgroup's own list (with each program's flags) and effective list of type. */
static void all_agree_at(const char *file, int line, const char *what, const struct fixture *f,
			 uint32_t type)
{
	for (int c = 0; c < NCG; c++) {
		queries_agree_at(file, line, what, f, f->cg[c], type, 0, 80, true);
		queries_agree_at(file, line, what, f, f->cg[c], type, BPF_F_QUERY_EFFECTIVE, 80,
				 false);
	}
}

#define ALL(what) all_agree_at(__FILE__, __LINE__, what, f, BPF_CGROUP_INET_INGRESS)

#define BOTH CALL_BOTH

#define IN BPF_CGROUP_INET_INGRESS
#define MULTI BPF_F_ALLOW_MULTI
#define OVERRIDE BPF_F_ALLOW_OVERRIDE

/* Detaches whatever f's programs are on cg (both sides), ignoring errors. */
static void detach_all(struct fixture *f)
{
	for (int c = 0; c < NCG; c++)
		for (int s = 0; s < NSIDES; s++)
			for (int i = 0; i < NPROGS; i++)
				detach(s, f->cg[c], f->skb[s][i], IN, 0);
}

static void modes(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, x = f->cg[CG_X], a = f->cg[CG_A], b = f->cg[CG_B];

	ALL("nothing attached");
	BOTH("p0 on x, no flags", attach(s, x, f->skb[s][0], IN, 0, 0, 0, 0));
	ALL("p0 on x");
	BOTH("p1 on a below x's p0", attach(s, a, f->skb[s][1], IN, 0, 0, 0, 0));
	BOTH("p1 on x, replacing p0", attach(s, x, f->skb[s][1], IN, 0, 0, 0, 0));
	ALL("p1 on x");
	BOTH("p2 on x, multi over none", attach(s, x, f->skb[s][2], IN, MULTI, 0, 0, 0));
	BOTH("p2 on x, override over none", attach(s, x, f->skb[s][2], IN, OVERRIDE, 0, 0, 0));
	BOTH("legacy detach without a program", detach(s, x, f->map[s], IN, 0));
	BOTH("detach of nothing", detach(s, x, f->map[s], IN, 0));
	ALL("x empty again");
	BOTH("p0 on x, override", attach(s, x, f->skb[s][0], IN, OVERRIDE, 0, 0, 0));
	BOTH("p1 on a, override below override", attach(s, a, f->skb[s][1], IN, OVERRIDE, 0, 0,
							  0));
	BOTH("p2 on b, none below override", attach(s, b, f->skb[s][2], IN, 0, 0, 0, 0));
	ALL("override chain");
	BOTH("p3 on b, none below b's none", attach(s, b, f->skb[s][3], IN, 0, 0, 0, 0));
	BOTH("detach b's with another program", detach(s, b, f->skb[s][5], IN, 0));
	ALL("b's replaced, then detached");
	detach_all(f);
	ALL("all detached");
	BOTH("p0 on x, multi", attach(s, x, f->skb[s][0], IN, MULTI, 0, 0, 0));
	BOTH("p1 on x, multi", attach(s, x, f->skb[s][1], IN, MULTI, 0, 0, 0));
	BOTH("p0 on x again", attach(s, x, f->skb[s][0], IN, MULTI, 0, 0, 0));
	BOTH("p2 on a, override below multi", attach(s, a, f->skb[s][2], IN, OVERRIDE, 0, 0, 0));
	BOTH("p3 on b, multi", attach(s, b, f->skb[s][3], IN, MULTI, 0, 0, 0));
	ALL("multi on x, override on a, multi on b");
	BOTH("p4 on x, none over multi", attach(s, x, f->skb[s][4], IN, 0, 0, 0, 0));
	BOTH("p4 on x, both modes", attach(s, x, f->skb[s][4], IN, MULTI | OVERRIDE, 0, 0, 0));
	BOTH("multi detach without a program", detach(s, x, f->map[s], IN, 0));
	BOTH("multi detach of a program not there", detach(s, x, f->skb[s][5], IN, 0));
	BOTH("detach of p1 from x", detach(s, x, f->skb[s][1], IN, 0));
	ALL("p1 gone from x");
	detach_all(f);
}

static void replace_and_order(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, x = f->cg[CG_X], a = f->cg[CG_A];
	struct query q;

	for (int i = 0; i < 3; i++)
		BOTH("p0..p2 on x, multi", attach(s, x, f->skb[s][i], IN, MULTI, 0, 0, 0));
	BOTH("replace p1 by p4", attach(s, x, f->skb[s][4], IN, MULTI | BPF_F_REPLACE,
					f->skb[s][1], 0, 0));
	ALL("p1 replaced");
	BOTH("replace of a program not there", attach(s, x, f->skb[s][5], IN,
						      MULTI | BPF_F_REPLACE, f->skb[s][1], 0, 0));
	BOTH("replace by a program there", attach(s, x, f->skb[s][0], IN,
						  MULTI | BPF_F_REPLACE, f->skb[s][2], 0, 0));
	BOTH("replace by itself", attach(s, x, f->skb[s][0], IN, MULTI | BPF_F_REPLACE,
					 f->skb[s][0], 0, 0));
	BOTH("replace without multi", attach(s, x, f->skb[s][5], IN, BPF_F_REPLACE, f->skb[s][0],
					     0, 0));
	BOTH("replace of a bad fd", attach(s, x, f->skb[s][5], IN, MULTI | BPF_F_REPLACE, 999, 0,
					   0));
	BOTH("replace of a sock program", attach(s, x, f->skb[s][5], IN, MULTI | BPF_F_REPLACE,
						 f->sock[s], 0, 0));
	BOTH("replace and before", attach(s, x, f->skb[s][5], IN, MULTI | BPF_F_REPLACE | F_BEFORE,
					  f->skb[s][0], 0, 0));
	ALL("after the refused replaces");
	detach_all(f);
	BOTH("p0 on x", attach(s, x, f->skb[s][0], IN, MULTI, 0, 0, 0));
	BOTH("p1 before everything", attach(s, x, f->skb[s][1], IN, MULTI | F_BEFORE, 0, 0, 0));
	BOTH("p2 after p1, by fd", attach(s, x, f->skb[s][2], IN, MULTI | F_AFTER, 0,
					  (uint32_t)f->skb[s][1], 0));
	BOTH("p3 before p0, by id", attach(s, x, f->skb[s][3], IN, MULTI | F_BEFORE | F_ID, 0,
					   f->ids[s][0], 0));
	ALL("ordered by anchors");
	BOTH("p4 before and after", attach(s, x, f->skb[s][4], IN, MULTI | F_BEFORE | F_AFTER, 0,
					   0, 0));
	BOTH("p4 by anchor, no direction", attach(s, x, f->skb[s][4], IN, MULTI, 0,
						  (uint32_t)f->skb[s][0], 0));
	BOTH("p4 by id, no direction", attach(s, x, f->skb[s][4], IN, MULTI | F_ID, 0,
					      f->ids[s][0], 0));
	BOTH("p4 after a program not there", attach(s, x, f->skb[s][4], IN, MULTI | F_AFTER, 0,
						    (uint32_t)f->skb[s][5], 0));
	BOTH("p4 after an id no program has", attach(s, x, f->skb[s][4], IN,
						     MULTI | F_AFTER | F_ID, 0, 0x7ffffff0u, 0));
	BOTH("p4 after a bad fd", attach(s, x, f->skb[s][4], IN, MULTI | F_AFTER, 0, 999, 0));
	BOTH("p4 after a map", attach(s, x, f->skb[s][4], IN, MULTI | F_AFTER, 0,
				      (uint32_t)f->map[s], 0));
	BOTH("p4 after p0 as a link", attach(s, x, f->skb[s][4], IN, MULTI | F_AFTER | F_LINK, 0,
					     (uint32_t)f->skb[s][0], 0));
	BOTH("p4 before, with a relative fd, without multi",
	     attach(s, a, f->skb[s][4], IN, F_BEFORE, 0, (uint32_t)f->skb[s][0], 0));
	BOTH("p4 before p0, preorder", attach(s, x, f->skb[s][4], IN, MULTI | F_BEFORE | F_PREORDER,
					      0, (uint32_t)f->skb[s][0], 0));
	ALL("after the refused anchors");
	/* preorder: on x and on a; b's effective list runs x's then a's preorder programs first */
	BOTH("p4 on x, preorder", attach(s, x, f->skb[s][4], IN, MULTI | F_PREORDER, 0, 0, 0));
	BOTH("p5 on x, preorder", attach(s, x, f->skb[s][5], IN, MULTI | F_PREORDER, 0, 0, 0));
	BOTH("p0 on a, preorder", attach(s, a, f->skb[s][0], IN, MULTI | F_PREORDER, 0, 0, 0));
	BOTH("p1 on a", attach(s, a, f->skb[s][1], IN, MULTI, 0, 0, 0));
	BOTH("p2 on a before p0, not preorder", attach(s, a, f->skb[s][2], IN, MULTI | F_BEFORE, 0,
						       (uint32_t)f->skb[s][0], 0));
	BOTH("p2 on a before p0, preorder", attach(s, a, f->skb[s][2], IN,
						   MULTI | F_BEFORE | F_PREORDER, 0,
						   (uint32_t)f->skb[s][0], 0));
	ALL("preorder programs");
	/* revisions */
	query(f, K, x, IN, 0, 0, false, &q);
	BOTH("attach at a stale revision", attach(s, x, f->skb[s][3], IN, MULTI, 0, 0,
						   q.revision + 1));
	BOTH("detach at a stale revision", detach(s, x, f->skb[s][0], IN, q.revision - 1));
	BOTH("detach at the revision", detach(s, x, f->skb[s][4], IN, q.revision));
	query(f, K, x, IN, 0, 0, false, &q);
	BOTH("attach at the revision", attach(s, x, f->skb[s][4], IN, MULTI, 0, 0, q.revision));
	ALL("after revisions");
	/* short buffers */
	QUERY("x, 2 of its ids", x, IN, 0, 2, true);
	QUERY("x effective, 1 id", x, IN, BPF_F_QUERY_EFFECTIVE, 1, false);
	QUERY("x effective with flags", x, IN, BPF_F_QUERY_EFFECTIVE, 8, true);
	QUERY("x, count only", x, IN, 0, 0, false);
	detach_all(f);
}

static void refusals(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, x = f->cg[CG_X], null = open("/dev/null", O_RDONLY);
	char own[4096];
	int parent;

	REQUIRE(null >= 0);
	BOTH("attach to a file", attach(s, null, f->skb[s][0], IN, 0, 0, 0, 0));
	BOTH("attach to a bad fd", attach(s, 999, f->skb[s][0], IN, 0, 0, 0, 0));
	BOTH("attach of a map", attach(s, x, f->map[s], IN, 0, 0, 0, 0));
	BOTH("attach of a bad fd", attach(s, x, 999, IN, 0, 0, 0, 0));
	BOTH("skb program as sock_create", attach(s, x, f->skb[s][0], BPF_CGROUP_INET_SOCK_CREATE,
						  0, 0, 0, 0));
	BOTH("skb program on egress", attach(s, x, f->skb[s][0], BPF_CGROUP_INET_EGRESS, 0, 0, 0,
					     0));
	BOTH("its detach", detach(s, x, f->skb[s][0], BPF_CGROUP_INET_EGRESS, 0));
	{
		/* loaded for egress: returning 2 holds it to egress, 1 does not */
		int eg2[NSIDES], eg1[NSIDES];

		for (s = 0; s < NSIDES; s++) {
			eg2[s] = load(s, BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, 2);
			eg1[s] = load(s, BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, 1);
			REQUIRE(eg2[s] >= 0 && eg1[s] >= 0);
		}
		BOTH("egress-only program on ingress", attach(s, x, eg2[s], IN, 0, 0, 0, 0));
		BOTH("its link on ingress", link_create(s, x, eg2[s], IN, 0, 0, 0));
		BOTH("egress program returning 1 on ingress", attach(s, x, eg1[s], IN, 0, 0, 0, 0));
		BOTH("its detach", detach(s, x, eg1[s], IN, 0));
		for (s = 0; s < NSIDES; s++) {
			close(eg2[s]);
			close(eg1[s]);
		}
	}
	BOTH("sock program as post_bind4", attach(s, x, f->sock[s], BPF_CGROUP_INET4_POST_BIND, 0,
						  0, 0, 0));
	BOTH("sock program as sock_create", attach(s, x, f->sock[s], BPF_CGROUP_INET_SOCK_CREATE,
						   0, 0, 0, 0));
	QUERY("sock_create list", x, BPF_CGROUP_INET_SOCK_CREATE, 0, 8, true);
	BOTH("its detach", detach(s, x, f->sock[s], BPF_CGROUP_INET_SOCK_CREATE, 0));
	BOTH("sock_ops program", attach(s, x, f->sockops[s], BPF_CGROUP_SOCK_OPS, MULTI, 0, 0, 0));
	QUERY("sock_ops list", x, BPF_CGROUP_SOCK_OPS, 0, 8, true);
	BOTH("its detach", detach(s, x, f->sockops[s], BPF_CGROUP_SOCK_OPS, 0));
	BOTH("an unknown attach type", attach(s, x, f->skb[s][0], 200, 0, 0, 0, 0));
	BOTH("XDP as an attach type", attach(s, x, f->skb[s][0], BPF_XDP, 0, 0, 0, 0));
	BOTH("unknown flags", attach(s, x, f->skb[s][0], IN, 1u << 20, 0, 0, 0));
	BOTH("detach with flags", detach(s, x, f->skb[s][0], IN, 0) /* (set below) */);
	for (s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.target_fd = (uint32_t)x;
		a.attach_bpf_fd = (uint32_t)f->skb[s][0];
		a.attach_type = IN;
		a.attach_flags = MULTI;
		r[s] = side_call(s, BPF_PROG_DETACH, &a);
	}
	calls_agree_at(__FILE__, __LINE__, "detach with attach flags", r, &calls);
	for (s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.target_fd = (uint32_t)x;
		a.attach_bpf_fd = (uint32_t)f->skb[s][0];
		a.attach_type = IN;
		((uint8_t *)&a)[32] = 1; /* past expected_revision */
		r[s] = side_call(s, BPF_PROG_ATTACH, &a);
	}
	calls_agree_at(__FILE__, __LINE__, "attach, a byte past the attr", r, &calls);
	BOTH("detach from a file", detach(s, null, f->skb[s][0], IN, 0));
	BOTH("detach, unknown attach type", detach(s, x, f->skb[s][0], 200, 0));
	QUERY("query of a file", null, IN, 0, 8, false);
	QUERY("query of a bad fd", 999, IN, 0, 8, false);
	QUERY("query, unknown attach type", x, 200, 0, 8, false);
	QUERY("query, unknown flags", x, IN, 2, 8, false);
	QUERY("query, XDP", x, BPF_XDP, 0, 8, false);
	QUERY("query, egress", x, BPF_CGROUP_INET_EGRESS, 0, 8, true);
	QUERY("query, device", x, BPF_CGROUP_DEVICE, BPF_F_QUERY_EFFECTIVE, 8, false);
	/* the parent of the subtree, and the process's own cgroup v1 ones are not cgroup2 */
	if (!own_cgroup_dir(own, sizeof(own)) && (parent = open(own, O_RDONLY)) >= 0) {
		QUERY("this process's cgroup", parent, IN, 0, 8, true);
		close(parent);
	}
	close(null);
}

/* 64 programs on a cgroup, then the 65th. */
static void limit(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, progs[NSIDES][65], made = 0, x = f->cg[CG_X];

	for (int i = 0; i < 65; i++) {
		for (s = 0; s < NSIDES; s++)
			progs[s][i] = load(s, BPF_PROG_TYPE_CGROUP_SKB, 0, i % 2);
		if (progs[K][i] < 0 || progs[U][i] < 0)
			break;
		made++;
		BOTH(i < 64 ? "one of 64 programs" : "the 65th program",
		     attach(s, x, progs[s][i], IN, MULTI, 0, 0, 0));
	}
	CHECK_EQ(made, 65);
	QUERY("64 programs", x, IN, 0, 80, true);
	for (int i = 0; i < made; i++)
		for (s = 0; s < NSIDES; s++) {
			detach(s, x, progs[s][i], IN, 0);
			close(progs[s][i]);
		}
	QUERY("none left", x, IN, 0, 80, true);
}

static struct bpf_result link_info(int s, int link, uint8_t info[64])
{
	uint32_t len = 64;

	memset(info, 0, 64);
	return side_obj_info(s, link, info, &len);
}

static void links(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, x = f->cg[CG_X], a = f->cg[CG_A], l0[NSIDES], l1[NSIDES];
	uint8_t info[NSIDES][64];

	BOTH("link p0 on x", link_create(s, x, f->skb[s][0], IN, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		l0[s] = r[s].rc;
	REQUIRE(l0[K] >= 0 && l0[U] >= 0);
	ALL("p0 linked on x");
	BOTH("its info", link_info(s, l0[s], info[s]));
	/* type, then cgroup_id and attach_type (16..27): the same cgroup on both sides */
	CHECK(!memcmp(info[K], info[U], 4) && !memcmp(info[K] + 12, info[U] + 12, 52));
	BOTH("p1 on x, no flags, over the link", attach(s, x, f->skb[s][1], IN, 0, 0, 0, 0));
	BOTH("p1 on x, multi", attach(s, x, f->skb[s][1], IN, MULTI, 0, 0, 0));
	BOTH("detach p0 (linked) by fd", detach(s, x, f->skb[s][0], IN, 0));
	BOTH("link p0 again",
	     link_create(s, x, f->skb[s][0], IN, F_BEFORE | F_LINK, (uint32_t)l0[s], 0));
	for (s = 0; s < NSIDES; s++)
		l1[s] = r[s].rc;
	ALL("p0 linked twice, p1 attached");
	BOTH("link with flags", link_create(s, x, f->skb[s][2], IN, MULTI, 0, 0));
	BOTH("link after p1 by id",
	     link_create(s, x, f->skb[s][2], IN, F_AFTER | F_ID, f->ids[s][1], 0));
	if (r[K].rc >= 0 && r[U].rc >= 0) {
		ALL("p2 linked after p1");
		for (s = 0; s < NSIDES; s++)
			close(r[s].rc);
	}
	BOTH("link of a sock program as ingress", link_create(s, x, f->sock[s], IN, 0, 0, 0));
	BOTH("link to a file", link_create(s, 0, f->skb[s][3], IN, 0, 0, 0));
	BOTH("link at a stale revision", link_create(s, a, f->skb[s][3], IN, 0, 0, 99));
	BOTH("update to p3", link_update(s, l0[s], f->skb[s][3], 0, 0));
	ALL("link updated to p3");
	BOTH("update expecting p0", link_update(s, l0[s], f->skb[s][4], BPF_F_REPLACE,
						f->skb[s][0]));
	BOTH("update expecting p3", link_update(s, l0[s], f->skb[s][4], BPF_F_REPLACE,
						f->skb[s][3]));
	BOTH("update to a sock program", link_update(s, l0[s], f->sock[s], 0, 0));
	BOTH("update, unknown flags", link_update(s, l0[s], f->skb[s][5], 2, 0));
	ALL("after the updates");
	BOTH("link detach", link_detach(s, l0[s]));
	BOTH("its info after", link_info(s, l0[s], info[s]));
	CHECK(!memcmp(info[K] + 12, info[U] + 12, 52));
	BOTH("update after detach", link_update(s, l0[s], f->skb[s][5], 0, 0));
	BOTH("detach again", link_detach(s, l0[s]));
	ALL("link detached");
	for (s = 0; s < NSIDES; s++) {
		close(l0[s]);
		if (l1[s] >= 0)
			close(l1[s]);
	}
	ALL("links closed");
	detach_all(f);
	ALL("all gone");
}

/* A cgroup removed with a program and a link on it: its fd names nothing any more, and the link
 * is left attached to nothing (the kernel's release of a dying cgroup, which comes a little
 * after the rmdir: waited for). */
static void removal(struct fixture *f, const char *x)
{
	struct bpf_result r[NSIDES];
	int s, c, l[NSIDES];
	char dir[4300];
	uint8_t info[NSIDES][64];

	snprintf(dir, sizeof(dir), "%.4200s/c", x);
	REQUIRE(!mkdir(dir, 0755));
	c = open(dir, O_RDONLY | O_DIRECTORY);
	REQUIRE(c >= 0);
	BOTH("p0 on c", attach(s, c, f->skb[s][0], IN, MULTI, 0, 0, 0));
	BOTH("p1 linked on c", link_create(s, c, f->skb[s][1], IN, 0, 0, 0));
	for (s = 0; s < NSIDES; s++)
		l[s] = r[s].rc;
	REQUIRE(l[K] >= 0 && l[U] >= 0);
	CHECK(!rmdir(dir));
	QUERY("query of a removed cgroup", c, IN, 0, 8, false);
	BOTH("attach to a removed cgroup", attach(s, c, f->skb[s][2], IN, MULTI, 0, 0, 0));
	BOTH("detach from a removed cgroup", detach(s, c, f->skb[s][0], IN, 0));
	for (int i = 0; i < 100; i++) {
		link_info(K, l[K], info[K]);
		if (!info[K][16] && !info[K][17] && !info[K][18] && !info[K][19])
			break;
		usleep(20000);
	}
	BOTH("the link's info", link_info(s, l[s], info[s]));
	CHECK(!memcmp(info[K] + 12, info[U] + 12, 52));
	BOTH("update of the link", link_update(s, l[s], f->skb[s][2], 0, 0));
	BOTH("detach of the link", link_detach(s, l[s]));
	for (s = 0; s < NSIDES; s++)
		close(l[s]);
	close(c);
}

/* A cgroup skb program using the cgroup storage maps given (-1: none). */
static int load_storage_user(int s, int m1, int m2)
{
	struct bpf_insn p[12];
	uint32_t n = 0;
	int maps[2] = { m1, m2 };

	for (int i = 0; i < 2; i++) {
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, maps[i]) };

		if (maps[i] < 0)
			continue;
		p[n++] = ld[0];
		p[n++] = ld[1];
		p[n++] = BPF_MOV64_IMM(BPF_REG_2, 0);
		p[n++] = BPF_EMIT_CALL(BPF_FUNC_get_local_storage);
	}
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	p[n++] = BPF_EXIT_INSN();
	return side_prog_load_log(s, BPF_PROG_TYPE_CGROUP_SKB, p, n, NULL, 0).rc;
}

/* Each side's keys of a cgroup storage map in walk order, with their values (12 bytes, in
 * 16-byte slots): the same keys (cgroup ids are the same cgroups' on both sides) in the same
 * order and the same values. */
static void storage_walks_agree_at(const char *file, int line, const char *what,
				   const int fd[NSIDES], uint32_t ks, uint32_t vs, int *nkeys)
{
	static uint8_t keys[NSIDES][16][16], vals[NSIDES][16][4096];
	int n[NSIDES] = { 0, 0 };
	struct bpf_result r[NSIDES];

	memset(keys, 0, sizeof(keys));
	memset(vals, 0, sizeof(vals));
	for (int s = 0; s < NSIDES; s++) {
		const void *prev = NULL;

		while (n[s] < 16 && !side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], prev, keys[s][n[s]],
					       0).rc) {
			r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], keys[s][n[s]],
					 vals[s][n[s]], 0);
			if (r[s].rc)
				test_fail(file, line, "%s: side %d cannot look its key %d up",
					  what, s,
					  n[s]);
			prev = keys[s][n[s]++];
		}
	}
	if (getenv("TEST_VERBOSE"))
		printf("  %s: %d keys\n", what, n[K]);
	if (n[K] != n[U])
		test_fail(file, line, "%s: kernel %d keys, userbpf %d", what, n[K], n[U]);
	for (int i = 0; i < n[K] && i < n[U]; i++) {
		uint32_t at = 0;

		/* (a per-CPU copy's bytes past value_size are not compared: the kernel's copies
		 * are value_size bytes, and it shows what follows them in its per-CPU area) */
		while (at < vs && (vals[K][i][at] == vals[U][i][at] || at % 16 >= 12))
			at++;
		if (memcmp(keys[K][i], keys[U][i], ks) || at < vs)
			test_fail(file, line, "%s: key %d differs (kernel id %llu type %u, userbpf "
				  "id %llu type %u) or its value (at byte %u of %u: kernel %#x, "
				  "userbpf %#x)", what, i,
				  (unsigned long long)*(uint64_t *)keys[K][i],
				  *(uint32_t *)(keys[K][i] + 8),
				  (unsigned long long)*(uint64_t *)keys[U][i],
				  *(uint32_t *)(keys[U][i] + 8), at, vs,
				  at < vs ? vals[K][i][at] : 0, at < vs ? vals[U][i][at] : 0);
	}
	*nkeys = n[U];
}

#define STORAGE_WALKS_AGREE(what, fd, ks, vs, nkeys)                                             \
	storage_walks_agree_at(__FILE__, __LINE__, what, fd, ks, vs, nkeys)

/* Cgroup storage made by attaching: for each cgroup and attach type (a 16-byte key) or each
 * cgroup (8 bytes), kept after a detach, read and written by bpf() but not added or deleted,
 * gone with the cgroup. */
static void storage(struct fixture *f, const char *x)
{
	struct bpf_result r[NSIDES];
	int s, c, s16[NSIDES], p16[NSIDES], s8[NSIDES], pa[NSIDES], pb[NSIDES], pc[NSIDES];
	int n16 = 0, np16 = 0, n8 = 0, n;
	uint32_t pvs = 16 * (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	uint8_t key[16], value[4096];
	char dir[4300];

	snprintf(dir, sizeof(dir), "%.4200s/s", x);
	REQUIRE(!mkdir(dir, 0755));
	c = open(dir, O_RDONLY | O_DIRECTORY);
	REQUIRE(c >= 0);
	for (s = 0; s < NSIDES; s++) {
		s16[s] = side_map_create(s, BPF_MAP_TYPE_CGROUP_STORAGE, 16, 12, 0, 0).rc;
		p16[s] = side_map_create(s, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 16, 12, 0, 0).rc;
		s8[s] = side_map_create(s, BPF_MAP_TYPE_CGROUP_STORAGE, 8, 12, 0, 0).rc;
		REQUIRE(s16[s] >= 0 && p16[s] >= 0 && s8[s] >= 0);
		pa[s] = load_storage_user(s, s16[s], p16[s]);
		pb[s] = load_storage_user(s, s8[s], -1);
		pc[s] = load_storage_user(s, s16[s], -1);
		REQUIRE(pa[s] >= 0 && pb[s] >= 0 && pc[s] >= 0);
	}
	STORAGE_WALKS_AGREE("nothing attached", s16, 16, 12, &n);
	CHECK_EQ(n, 0);
	BOTH("a on c, ingress", attach(s, c, pa[s], IN, MULTI, 0, 0, 0));
	BOTH("a on c, egress", attach(s, c, pa[s], BPF_CGROUP_INET_EGRESS, MULTI, 0, 0, 0));
	BOTH("c on x, ingress", attach(s, f->cg[CG_X], pc[s], IN, MULTI, 0, 0, 0));
	BOTH("b on c, ingress", attach(s, c, pb[s], IN, MULTI, 0, 0, 0));
	BOTH("b on c, egress", attach(s, c, pb[s], BPF_CGROUP_INET_EGRESS, MULTI, 0, 0, 0));
	BOTH("b linked on x, egress", link_create(s, f->cg[CG_X], pb[s], BPF_CGROUP_INET_EGRESS,
						  0, 0, 0));
	if (r[K].rc >= 0 && r[U].rc >= 0)
		for (s = 0; s < NSIDES; s++)
			close(r[s].rc); /* (and detached) */
	STORAGE_WALKS_AGREE("shared, 16-byte keys", s16, 16, 12, &n16);
	STORAGE_WALKS_AGREE("per CPU, 16-byte keys", p16, 16, pvs, &np16);
	STORAGE_WALKS_AGREE("shared, 8-byte keys", s8, 8, 12, &n8);
	CHECK_EQ(n16, 3);
	CHECK_EQ(np16, 2);
	CHECK_EQ(n8, 2);
	/* c's ingress storage: written, read back */
	for (s = 0; s < NSIDES; s++)
		side_elem(s, BPF_MAP_GET_NEXT_KEY, s16[s], NULL, key, 0);
	for (int i = 0; i < (int)sizeof(value); i++)
		value[i] = (uint8_t)(i * 7 + 1);
	BOTH("update", side_elem(s, BPF_MAP_UPDATE_ELEM, s16[s], key, value, BPF_ANY));
	BOTH("update, exist", side_elem(s, BPF_MAP_UPDATE_ELEM, s16[s], key, value, BPF_EXIST));
	BOTH("update, noexist", side_elem(s, BPF_MAP_UPDATE_ELEM, s16[s], key, value,
					  BPF_NOEXIST));
	BOTH("delete", side_elem(s, BPF_MAP_DELETE_ELEM, s16[s], key, NULL, 0));
	for (s = 0; s < NSIDES; s++)
		side_elem(s, BPF_MAP_GET_NEXT_KEY, p16[s], NULL, key, 0);
	BOTH("per-CPU update", side_elem(s, BPF_MAP_UPDATE_ELEM, p16[s], key, value, BPF_ANY));
	BOTH("per-CPU update, noexist", side_elem(s, BPF_MAP_UPDATE_ELEM, p16[s], key, value,
						  BPF_NOEXIST));
	key[8] ^= 2; /* an attach type without storage */
	BOTH("update of no storage", side_elem(s, BPF_MAP_UPDATE_ELEM, p16[s], key, value,
					       BPF_ANY));
	BOTH("next key after no storage", side_elem(s, BPF_MAP_GET_NEXT_KEY, p16[s], key, value,
						    0));
	STORAGE_WALKS_AGREE("shared, written", s16, 16, 12, &n16);
	STORAGE_WALKS_AGREE("per CPU, written", p16, 16, pvs, &np16);
	/* detached: the storage stays with the cgroup */
	for (s = 0; s < NSIDES; s++) {
		detach(s, c, pa[s], IN, 0);
		detach(s, c, pa[s], BPF_CGROUP_INET_EGRESS, 0);
		detach(s, c, pb[s], IN, 0);
		detach(s, c, pb[s], BPF_CGROUP_INET_EGRESS, 0);
		detach(s, f->cg[CG_X], pc[s], IN, 0);
	}
	STORAGE_WALKS_AGREE("shared, detached", s16, 16, 12, &n16);
	CHECK_EQ(n16, 3);
	BOTH("a on c again", attach(s, c, pa[s], IN, MULTI, 0, 0, 0));
	STORAGE_WALKS_AGREE("shared, attached again", s16, 16, 12, &n16);
	CHECK_EQ(n16, 3);
	BOTH("its detach", detach(s, c, pa[s], IN, 0));
	/* the cgroup removed: its storages go (the kernel's a little after the rmdir, userbpf's
	 * at its next cgroup command) */
	CHECK(!rmdir(dir));
	QUERY("a query after the rmdir", f->cg[CG_X], IN, 0, 8, false);
	for (int i = 0; i < 100; i++) {
		int cnt = 0;
		const void *prev = NULL;

		while (!side_elem(K, BPF_MAP_GET_NEXT_KEY, s16[K], prev, key, 0).rc && cnt < 16) {
			cnt++;
			memcpy(value, key, 16);
			prev = value;
		}
		if (cnt == 1)
			break;
		usleep(20000);
	}
	STORAGE_WALKS_AGREE("shared, the cgroup removed", s16, 16, 12, &n16);
	STORAGE_WALKS_AGREE("per CPU, the cgroup removed", p16, 16, pvs, &np16);
	STORAGE_WALKS_AGREE("8-byte keys, the cgroup removed", s8, 8, 12, &n8);
	CHECK_EQ(n16, 1);
	CHECK_EQ(np16, 0);
	CHECK_EQ(n8, 1);
	for (s = 0; s < NSIDES; s++) {
		close(pa[s]);
		close(pb[s]);
		close(pc[s]);
		close(s16[s]);
		close(p16[s]);
		close(s8[s]);
	}
	close(c);
}

/* Random attaches, detaches, links, link updates, detaches and closes over the subtree, ingress
 * and egress, with random modes, anchors, revisions and preorder: every call and, after each,
 * every cgroup's lists must be the kernel's. */
static void random_ops(struct fixture *f, int nops)
{
	enum { NLINKS = 8 };
	struct bpf_result r[NSIDES];
	int s, links[NSIDES][NLINKS], attached = 0, linked = 0;
	uint64_t seed = 0x5eed1234abcdull;

	for (s = 0; s < NSIDES; s++)
		for (int i = 0; i < NLINKS; i++)
			links[s][i] = -1;
	for (int op = 0; op < nops; op++) {
		uint32_t x = (uint32_t)xorshift64(&seed), y = (uint32_t)xorshift64(&seed);
		int c = (int)(x % NCG), p = (int)((x >> 4) % NPROGS), q = (int)((x >> 8) % NPROGS);
		int li = (int)((x >> 12) % NLINKS), lj = (int)((x >> 16) % NLINKS);
		uint32_t type = (x >> 20) & 1 ? BPF_CGROUP_INET_EGRESS : IN;
		uint32_t flags = 0, rel[NSIDES] = { 0, 0 };
		uint64_t rev = 0;
		struct query cur;
		char what[64];

		/* a mode, mostly multi; an anchor now and then; preorder; a revision */
		switch (y % 8) {
		case 0: flags = 0; break;
		case 1: flags = OVERRIDE; break;
		default: flags = MULTI; break;
		}
		if (flags == MULTI && (y >> 3) % 4 == 0) {
			flags |= (y >> 5) & 1 ? F_BEFORE : F_AFTER;
			if ((y >> 6) & 1)
				flags |= F_ID;
			for (s = 0; s < NSIDES; s++)
				rel[s] = (y >> 7) % 3 == 0 ? 0
					 : flags & F_ID ? f->ids[s][q]
							: (uint32_t)f->skb[s][q];
		}
		if (flags & MULTI && (y >> 9) % 4 == 0)
			flags |= F_PREORDER;
		if ((y >> 11) % 5 == 0) {
			query(f, K, f->cg[c], type, 0, 0, false, &cur);
			rev = cur.revision + ((y >> 14) % 3 == 0);
		}
		switch ((y >> 16) % 7) {
		case 0:
		case 1:
			snprintf(what, sizeof(what), "op %d: attach p%d on %d, flags %#x", op, p, c,
				 flags);
			BOTH(what, attach(s, f->cg[c], f->skb[s][p], type, flags, 0, rel[s], rev));
			attached += r[K].rc == 0;
			break;
		case 2:
			snprintf(what, sizeof(what), "op %d: replace p%d by p%d on %d", op, q, p,
				 c);
			BOTH(what, attach(s, f->cg[c], f->skb[s][p], type, MULTI | BPF_F_REPLACE,
					  f->skb[s][q], 0, rev));
			break;
		case 3:
			snprintf(what, sizeof(what), "op %d: detach p%d from %d", op, p, c);
			BOTH(what, detach(s, f->cg[c], (y >> 19) % 4 ? f->skb[s][p] : f->map[s],
					  type, rev));
			break;
		case 4:
			if (links[K][li] >= 0)
				break;
			flags &= F_BEFORE | F_AFTER | F_ID | F_PREORDER;
			if (flags & (F_BEFORE | F_AFTER) && (y >> 20) & 1 && links[K][lj] >= 0) {
				flags = (flags & ~F_ID) | F_LINK;
				for (s = 0; s < NSIDES; s++)
					rel[s] = (uint32_t)links[s][lj];
			}
			snprintf(what, sizeof(what), "op %d: link p%d on %d, flags %#x", op, p, c,
				 flags);
			BOTH(what,
			     link_create(s, f->cg[c], f->skb[s][p], type, flags, rel[s], rev));
			if (r[K].rc >= 0 && r[U].rc >= 0) {
				linked++;
				for (s = 0; s < NSIDES; s++)
					links[s][li] = r[s].rc;
			} else {
				for (s = 0; s < NSIDES; s++)
					if (r[s].rc >= 0)
						close(r[s].rc);
			}
			break;
		case 5:
			if (links[K][li] < 0)
				break;
			snprintf(what, sizeof(what), "op %d: update link %d to p%d", op, li, p);
			BOTH(what, link_update(s, links[s][li], f->skb[s][p],
					       (y >> 20) & 1 ? BPF_F_REPLACE : 0, f->skb[s][q]));
			break;
		default:
			if (links[K][li] < 0)
				break;
			if ((y >> 20) & 1) {
				snprintf(what, sizeof(what), "op %d: detach link %d", op, li);
				BOTH(what, link_detach(s, links[s][li]));
			} else {
				for (s = 0; s < NSIDES; s++) {
					close(links[s][li]);
					links[s][li] = -1;
				}
			}
			break;
		}
		all_agree_at(__FILE__, __LINE__, "after a random op", f, type);
	}
	for (s = 0; s < NSIDES; s++)
		for (int i = 0; i < NLINKS; i++)
			if (links[s][i] >= 0)
				close(links[s][i]);
	detach_all(f);
	for (s = 0; s < NSIDES; s++)
		for (int c = 0; c < NCG; c++)
			for (int i = 0; i < NPROGS; i++)
				detach(s, f->cg[c], f->skb[s][i], BPF_CGROUP_INET_EGRESS, 0);
	all_agree_at(__FILE__, __LINE__, "random ops undone", f, IN);
	all_agree_at(__FILE__, __LINE__, "random ops undone", f, BPF_CGROUP_INET_EGRESS);
	printf("diff_cgroup_attach: %d random ops (%d attaches and %d links made)\n", nops,
	       attached, linked);
	CHECK(attached >= nops / 20);
	CHECK(linked >= nops / 40);
}

TEST(diff_cgroup_attach)
{
	struct fixture fix, *f = &fix;
	char own[4096], dir[NCG][4300];
	int s;

	SKIP_WITHOUT_KERNEL_BPF();
	if (own_cgroup_dir(own, sizeof(own)))
		SKIP("no cgroup2 mount shows this process's cgroup");
	snprintf(dir[CG_X], 4200, "%s/userbpf-attach-%d", own, (int)getpid());
	snprintf(dir[CG_A], sizeof(dir[0]), "%.4200s/a", dir[CG_X]);
	snprintf(dir[CG_B], sizeof(dir[0]), "%.4250s/b", dir[CG_A]);
	if (mkdir(dir[CG_X], 0755))
		SKIP("cannot make a cgroup under this process's (%s)", strerror(errno));
	REQUIRE(!mkdir(dir[CG_A], 0755) && !mkdir(dir[CG_B], 0755));
	memset(f, 0, sizeof(*f));
	for (int c = 0; c < NCG; c++) {
		f->cg[c] = open(dir[c], O_RDONLY | O_DIRECTORY);
		REQUIRE(f->cg[c] >= 0);
	}
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++) {
			f->skb[s][i] = load(s, BPF_PROG_TYPE_CGROUP_SKB, 0, 1);
			REQUIRE(f->skb[s][i] >= 0);
			f->ids[s][i] = prog_id(s, f->skb[s][i]);
		}
		f->sock[s] = load(s, BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, 1);
		f->sockops[s] = load(s, BPF_PROG_TYPE_SOCK_OPS, 0, 1);
		f->map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(f->sock[s] >= 0 && f->sockops[s] >= 0 && f->map[s] >= 0);
		f->ids[s][NPROGS] = prog_id(s, f->sock[s]);
		f->ids[s][NPROGS + 1] = prog_id(s, f->sockops[s]);
	}
	modes(f);
	replace_and_order(f);
	refusals(f);
	limit(f);
	links(f);
	random_ops(f, getenv("USERBPF_VALGRIND") ? 200 : 3000);
	removal(f, dir[CG_X]);
	storage(f, dir[CG_X]);
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++)
			close(f->skb[s][i]);
		close(f->sock[s]);
		close(f->sockops[s]);
		close(f->map[s]);
	}
	for (int c = NCG - 1; c >= 0; c--) {
		close(f->cg[c]);
		CHECK(!rmdir(dir[c]));
	}
	printf("diff_cgroup_attach: %d calls and %d queries with the kernel's answers\n", calls,
	       queries);
	CHECK(calls >= 100);
	CHECK(queries >= 100);
}
