/* Programs attached to socket maps against the kernel: BPF_PROG_ATTACH, _DETACH and _QUERY of
 * sk_skb and sk_msg programs with a socket map's fd as the target (stream parser, stream
 * verdict, skb verdict, msg verdict: one program each, the two skb verdicts excluding each
 * other, a new one replacing the old), sockmap links (BPF_LINK_CREATE, _UPDATE, _DETACH, their
 * info), and the refusals (other maps, fds, flags, program types).  Every call must give the
 * kernel's result and errno, every query the same program (ids compared as which of the test's
 * programs they name).  Skipped without the kernel's bpf().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define LINK_TYPE_SOCKMAP 14
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { SKB1, SKB2, MSG1, MSG2, NPROGS };

static int calls, queries;

/* (the attach commands without 6.16's relative fds and revisions) */
#define attach(s, target, prog, type, flags, replace)                                            \
	side_prog_attach(s, target, prog, type, flags, replace, 0, 0)
#define detach(s, target, prog, type) side_prog_detach(s, target, prog, type, 0)
#define link_create(s, target, prog, type, flags)                                                \
	side_link_create(s, target, prog, type, flags, 0, 0)
#define link_update side_link_update
#define link_detach_call side_link_detach
#define prog_id side_prog_id

struct fixture {
	int prog[NSIDES][NPROGS], cgskb[NSIDES], sockmap[NSIDES], sockhash[NSIDES], array[NSIDES];
	uint32_t ids[NSIDES][NPROGS];
};

/* Both sides' query of target for type: result, flags, count and the program named. */
static void query_agree_at(const char *file, int line, const char *what,
			   const struct fixture *f, const int target[NSIDES], uint32_t type,
			   uint32_t qflags, uint32_t cnt)
{
	struct bpf_result r[NSIDES];
	uint32_t flags[NSIDES], n[NSIDES];
	int idx[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;
		uint32_t ids[4] = { 0, 0, 0, 0 };

		r[s] = side_prog_query(s, target[s], type, qflags, ids, cnt, NULL, &a);
		flags[s] = a.query.attach_flags;
		n[s] = a.query.prog_cnt;
		idx[s] = -1;
		for (int i = 0; i < NPROGS; i++)
			if (ids[0] && ids[0] == f->ids[s][i])
				idx[s] = i;
		if (ids[0] && idx[s] < 0)
			idx[s] = -2;
	}
	queries++;
	if (getenv("TEST_VERBOSE"))
		printf("  %s: rc %d errno %d flags %u cnt %u prog %d\n", what, r[K].rc, r[K].err,
		       flags[K], n[K], idx[K]);
	if (results_agree_at(file, line, what, r) &&
	    (flags[K] != flags[U] || n[K] != n[U] || idx[K] != idx[U]))
		test_fail(file, line, "%s: kernel flags %u cnt %u prog %d, userbpf flags %u cnt "
			  "%u prog %d", what, flags[K], n[K], idx[K], flags[U], n[U], idx[U]);
}

#define QUERY(what, target, type, qflags, cnt)                                                   \
	query_agree_at(__FILE__, __LINE__, what, f, target, type, qflags, cnt)

#define BOTH CALL_BOTH

#define PARSER BPF_SK_SKB_STREAM_PARSER
#define SVERDICT BPF_SK_SKB_STREAM_VERDICT
#define VERDICT BPF_SK_SKB_VERDICT
#define MSG BPF_SK_MSG_VERDICT

static const uint32_t all_types[] = { PARSER, SVERDICT, VERDICT, MSG };

static void all_agree_at(const char *file, int line, const char *what, const struct fixture *f,
			 const int target[NSIDES])
{
	for (size_t i = 0; i < ARRAY_SIZE(all_types); i++)
		query_agree_at(file, line, what, f, target, all_types[i], 0, 4);
}

#define ALL(what, target) all_agree_at(__FILE__, __LINE__, what, f, target)

static void prog_attaches(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, *m = f->sockmap;

	ALL("nothing attached", m);
	BOTH("skb1 as parser", attach(s, m[s], f->prog[s][SKB1], PARSER, 0, 0));
	BOTH("skb1 as stream verdict", attach(s, m[s], f->prog[s][SKB1], SVERDICT, 0, 0));
	BOTH("skb2 as skb verdict, a stream verdict there", attach(s, m[s], f->prog[s][SKB2],
								   VERDICT, 0, 0));
	BOTH("skb2 as stream verdict, replacing", attach(s, m[s], f->prog[s][SKB2], SVERDICT, 0,
							 0));
	BOTH("msg1 as msg verdict", attach(s, m[s], f->prog[s][MSG1], MSG, 0, 0));
	ALL("parser, stream verdict, msg verdict", m);
	BOTH("detach msg2, not there", detach(s, m[s], f->prog[s][MSG2], MSG));
	BOTH("detach msg1", detach(s, m[s], f->prog[s][MSG1], MSG));
	BOTH("detach msg1 again", detach(s, m[s], f->prog[s][MSG1], MSG));
	BOTH("detach skb1 as stream verdict, skb2 there", detach(s, m[s], f->prog[s][SKB1],
								 SVERDICT));
	BOTH("detach skb2 as stream verdict", detach(s, m[s], f->prog[s][SKB2], SVERDICT));
	BOTH("skb2 as skb verdict now", attach(s, m[s], f->prog[s][SKB2], VERDICT, 0, 0));
	BOTH("skb1 as stream verdict now", attach(s, m[s], f->prog[s][SKB1], SVERDICT, 0, 0));
	ALL("parser and skb verdict", m);
	/* refusals */
	BOTH("msg program as parser", attach(s, m[s], f->prog[s][MSG1], PARSER, 0, 0));
	BOTH("skb program as msg verdict", attach(s, m[s], f->prog[s][SKB1], MSG, 0, 0));
	BOTH("cgroup skb program as parser", attach(s, m[s], f->cgskb[s], PARSER, 0, 0));
	BOTH("to an array map", attach(s, f->array[s], f->prog[s][SKB1], PARSER, 0, 0));
	BOTH("to a program", attach(s, f->prog[s][SKB2], f->prog[s][SKB1], PARSER, 0, 0));
	BOTH("to a bad fd", attach(s, 999, f->prog[s][SKB1], PARSER, 0, 0));
	BOTH("with multi", attach(s, m[s], f->prog[s][SKB1], PARSER, BPF_F_ALLOW_MULTI, 0));
	BOTH("with a replace fd", attach(s, m[s], f->prog[s][SKB1], PARSER, 0, f->prog[s][SKB2]));
	BOTH("with an unknown flag", attach(s, m[s], f->prog[s][SKB1], PARSER, 1u << 20, 0));
	BOTH("detach from an array map", detach(s, f->array[s], f->prog[s][SKB1], PARSER));
	BOTH("detach with a map as the program", detach(s, m[s], f->array[s], PARSER));
	BOTH("detach of a msg program as parser", detach(s, m[s], f->prog[s][MSG1], PARSER));
	QUERY("query with flags", m, PARSER, BPF_F_QUERY_EFFECTIVE, 4);
	QUERY("query of an array map", f->array, PARSER, 0, 4);
	QUERY("query, count only", m, PARSER, 0, 0);
	BOTH("detach the parser", detach(s, m[s], f->prog[s][SKB1], PARSER));
	BOTH("detach the skb verdict", detach(s, m[s], f->prog[s][SKB2], VERDICT));
	BOTH("detach the stream verdict", detach(s, m[s], f->prog[s][SKB1], SVERDICT));
	ALL("all detached", m);
}

static void link_info(int s, int link, uint32_t out[2])
{
	uint8_t info[64];
	uint32_t len = sizeof(info);

	memset(info, 0, sizeof(info));
	side_obj_info(s, link, info, &len);
	memcpy(&out[0], info, 4);      /* type */
	memcpy(&out[1], info + 20, 4); /* sockmap.attach_type */
}

static uint32_t link_map_id(int s, int link)
{
	uint8_t info[64];
	uint32_t len = sizeof(info), id;

	memset(info, 0, sizeof(info));
	side_obj_info(s, link, info, &len);
	memcpy(&id, info + 16, 4);
	return id;
}

static void links(struct fixture *f)
{
	struct bpf_result r[NSIDES];
	int s, *h = f->sockhash, l[NSIDES];
	uint32_t info[NSIDES][2];

	BOTH("link skb1 as skb verdict", link_create(s, h[s], f->prog[s][SKB1], VERDICT, 0));
	for (s = 0; s < NSIDES; s++)
		l[s] = r[s].rc;
	REQUIRE(l[K] >= 0 && l[U] >= 0);
	ALL("skb verdict linked", h);
	for (s = 0; s < NSIDES; s++) {
		link_info(s, l[s], info[s]);
		CHECK_EQ(link_map_id(s, l[s]), side_map_id(s, h[s]));
	}
	CHECK_EQ(info[K][0], LINK_TYPE_SOCKMAP);
	CHECK(!memcmp(info[K], info[U], sizeof(info[K])));
	BOTH("attach over the link", attach(s, h[s], f->prog[s][SKB2], VERDICT, 0, 0));
	BOTH("detach the linked program", detach(s, h[s], f->prog[s][SKB1], VERDICT));
	BOTH("a second link", link_create(s, h[s], f->prog[s][SKB2], VERDICT, 0));
	BOTH("a stream verdict link beside it", link_create(s, h[s], f->prog[s][SKB2], SVERDICT,
							   0));
	BOTH("a parser link", link_create(s, h[s], f->prog[s][SKB2], PARSER, 0));
	if (r[K].rc >= 0 && r[U].rc >= 0) {
		ALL("parser linked too", h);
		for (s = 0; s < NSIDES; s++)
			close(r[s].rc);
	}
	ALL("parser link closed", h);
	BOTH("link with flags", link_create(s, h[s], f->prog[s][MSG1], MSG, 1));
	BOTH("link to an array map", link_create(s, f->array[s], f->prog[s][MSG1], MSG, 0));
	BOTH("link to a bad fd", link_create(s, 999, f->prog[s][MSG1], MSG, 0));
	BOTH("link of a msg program as parser", link_create(s, h[s], f->prog[s][MSG1], PARSER, 0));
	BOTH("update to skb2", link_update(s, l[s], f->prog[s][SKB2], 0, 0));
	ALL("link updated", h);
	BOTH("update expecting skb1", link_update(s, l[s], f->prog[s][SKB1], BPF_F_REPLACE,
						  f->prog[s][SKB1]));
	BOTH("update expecting skb2", link_update(s, l[s], f->prog[s][SKB1], BPF_F_REPLACE,
						  f->prog[s][SKB2]));
	BOTH("update to a msg program", link_update(s, l[s], f->prog[s][MSG1], 0, 0));
	ALL("after the updates", h);
	BOTH("link detach", link_detach_call(s, l[s]));
	ALL("link detached", h);
	for (s = 0; s < NSIDES; s++)
		CHECK_EQ(link_map_id(s, l[s]), 0);
	/* (an update now: userbpf says ENOLINK; the kernel is not asked, its 6.18 code reads the
	 * detached link's map without a check) */
	r[U] = link_update(U, l[U], f->prog[U][SKB2], 0, 0);
	CHECK(r[U].rc < 0 && r[U].err == ENOLINK);
	BOTH("skb2 attached after the link", attach(s, h[s], f->prog[s][SKB2], VERDICT, 0, 0));
	ALL("skb2 attached", h);
	for (s = 0; s < NSIDES; s++)
		close(l[s]);
	BOTH("its detach", detach(s, h[s], f->prog[s][SKB2], VERDICT));
	/* a link keeps its map: the map's fd closed, the program stays attached */
	BOTH("link msg1", link_create(s, h[s], f->prog[s][MSG1], MSG, 0));
	for (s = 0; s < NSIDES; s++)
		l[s] = r[s].rc;
	REQUIRE(l[K] >= 0 && l[U] >= 0);
	for (s = 0; s < NSIDES; s++)
		close(h[s]);
	for (s = 0; s < NSIDES; s++)
		CHECK(link_map_id(s, l[s]) != 0);
	BOTH("link detach, map fd closed", link_detach_call(s, l[s]));
	for (s = 0; s < NSIDES; s++) {
		CHECK_EQ(link_map_id(s, l[s]), 0);
		close(l[s]);
		h[s] = -1;
	}
}

TEST(diff_sockmap_attach)
{
	struct fixture fix, *f = &fix;
	struct bpf_insn pass[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	int s;

	SKIP_WITHOUT_KERNEL_BPF();
	memset(f, 0, sizeof(*f));
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++) {
			uint32_t type = i < MSG1 ? BPF_PROG_TYPE_SK_SKB : BPF_PROG_TYPE_SK_MSG;

			f->prog[s][i] = side_prog_load_log(s, type, pass, 2, NULL, 0).rc;
			REQUIRE(f->prog[s][i] >= 0);
			f->ids[s][i] = prog_id(s, f->prog[s][i]);
		}
		f->cgskb[s] = side_prog_load_log(s, BPF_PROG_TYPE_CGROUP_SKB, pass, 2, NULL, 0).rc;
		f->sockmap[s] = side_map_create(s, BPF_MAP_TYPE_SOCKMAP, 4, 4, 4, 0).rc;
		f->sockhash[s] = side_map_create(s, BPF_MAP_TYPE_SOCKHASH, 4, 4, 4, 0).rc;
		f->array[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 4, 0).rc;
		REQUIRE(f->cgskb[s] >= 0 && f->sockmap[s] >= 0 && f->sockhash[s] >= 0 &&
			f->array[s] >= 0);
	}
	prog_attaches(f);
	links(f);
	/* programs left attached go with the map's last fd */
	for (s = 0; s < NSIDES; s++)
		attach(s, f->sockmap[s], f->prog[s][MSG2], MSG, 0, 0);
	for (s = 0; s < NSIDES; s++) {
		for (int i = 0; i < NPROGS; i++)
			close(f->prog[s][i]);
		close(f->cgskb[s]);
		close(f->sockmap[s]);
		close(f->array[s]);
	}
	printf("diff_sockmap_attach: %d calls and %d queries with the kernel's answers\n", calls,
	       queries);
	CHECK(calls >= 40);
	CHECK(queries >= 20);
}
