/* Object ids, differentially: BPF_{MAP,PROG,BTF}_GET_NEXT_ID and BPF_{MAP,PROG,BTF}_GET_FD_BY_ID
 * (attr rules byte by byte, open_flags, unknown ids, the INT_MAX bound), and what an fd by id is:
 * a working fd of the same object, whose access is its open_flags' (not the creation flags'),
 * which a dup() keeps, and which keeps the object alive.  An inner map held only by its outer
 * map gets an fd too.  The kernel's ids are system-wide, ours per process: each side's calls use
 * that side's ids.  Skipped where the kernel's bpf() is unavailable.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/btf.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

enum { KMAP, KPROG, KBTF };

/* The id of the object of kind behind fd, 0 if none. */
static uint32_t kind_id(int s, int fd, int kind)
{
	union {
		struct bpf_map_info map;
		struct bpf_prog_info prog;
		struct bpf_btf_info btf;
	} info;
	uint32_t len = kind == KMAP ? sizeof(info.map) : kind == KPROG ? sizeof(info.prog)
								     : sizeof(info.btf);

	memset(&info, 0, sizeof(info));
	if (side_obj_info(s, fd, &info, &len).rc)
		return 0;
	return kind == KMAP ? info.map.id : kind == KPROG ? info.prog.id : info.btf.id;
}

static int load_ret0(int s)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };

	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, 2);
}

/* One int type: a BTF object. */
static int load_btf(int s)
{
	static const struct {
		struct btf_header h;
		uint32_t t[4];
		char str[5];
	} __attribute__((packed)) blob = {
		{ BTF_MAGIC, 1, 0, sizeof(struct btf_header), 0, 16, 16, 5 },
		{ 1, (uint32_t)BTF_KIND_INT << 24, 4, 32 },
		"\0int",
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.btf = PTR_TO_U64(&blob);
	a.btf_size = sizeof(blob);
	return side_call(s, BPF_BTF_LOAD, &a).rc;
}

/* A raw call: the id at byte 0, then the 32-bit words of extra at bytes 4, 8, 12, 16. */
static struct bpf_result id_call(int s, int cmd, uint32_t id, const uint32_t extra[4],
				 uint32_t *next)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	memcpy(&a, &id, 4);
	memcpy((uint8_t *)&a + 4, extra, 16);
	r = side_call(s, cmd, &a);
	if (next)
		*next = a.next_id;
	if (r.rc >= 0 && cmd != BPF_MAP_GET_NEXT_ID && cmd != BPF_PROG_GET_NEXT_ID &&
	    cmd != BPF_BTF_GET_NEXT_ID)
		close(r.rc);
	return r;
}

TEST(diff_ids_attr_rules)
{
	static const int cmds[] = { BPF_MAP_GET_FD_BY_ID, BPF_PROG_GET_FD_BY_ID,
				    BPF_BTF_GET_FD_BY_ID, BPF_MAP_GET_NEXT_ID,
				    BPF_PROG_GET_NEXT_ID, BPF_BTF_GET_NEXT_ID };
	/* the object each command's id names (the NEXT_ID ones start below it) */
	static const int kinds[] = { 0, 1, 2, 0, 1, 2 };
	/* word 1 (next_id), 2 (open_flags), 3 (the token fd), 4 (beyond) */
	static const uint32_t extras[][4] = {
		{ 0, 0, 0, 0 },	      { 5, 0, 0, 0 },	     { 0, 1, 0, 0 },
		{ 0, BPF_F_RDONLY, 0, 0 }, { 0, BPF_F_WRONLY, 0, 0 },
		{ 0, BPF_F_RDONLY | BPF_F_WRONLY, 0, 0 }, { 0, BPF_F_RDONLY_PROG, 0, 0 },
		{ 0, 1u << 16, 0, 0 }, { 0, 1u << 16, 1, 0 }, { 0, 1u << 16, 999, 0 },
		{ 0, 0, 5, 0 },	      { 0, 0, 0, 1 },
	};
	int obj[3][NSIDES];
	uint32_t id[3][NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		obj[0][s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		obj[1][s] = load_ret0(s);
		obj[2][s] = load_btf(s);
		for (int k = 0; k < 3; k++) {
			REQUIRE(obj[k][s] >= 0);
			id[k][s] = kind_id(s, obj[k][s], k);
			REQUIRE(id[k][s] != 0);
		}
	}
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		for (size_t e = 0; e < sizeof(extras) / sizeof(extras[0]); e++)
			for (int which = 0; which < 4; which++) {
				struct bpf_result r[NSIDES];
				char what[80];

				for (int s = 0; s < NSIDES; s++) {
					/* the object's id (or one below it for NEXT_ID), an id
					 * nobody has, 0, INT_MAX */
					uint32_t i = which == 0 ? id[kinds[c]][s] - (c >= 3)
						     : which == 1 ? 0x7ffffff0u
						     : which == 2 ? 0
								  : INT_MAX;

					r[s] = id_call(s, cmds[c], i, extras[e], NULL);
				}
				snprintf(what, sizeof(what), "cmd %d extra %zu id %d", cmds[c], e,
					 which);
				AGREE(what, r);
			}
	for (int k = 0; k < 3; k++)
		for (int s = 0; s < NSIDES; s++)
			close(obj[k][s]);
}

/* The ids of objects made in order come back in order from GET_NEXT_ID, each once. */
TEST(diff_ids_next_walk)
{
	int fd[NSIDES][5];
	uint32_t id[NSIDES][5];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		for (int i = 0; i < 5; i++) {
			fd[s][i] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0).rc;
			REQUIRE(fd[s][i] >= 0);
			id[s][i] = side_map_id(s, fd[s][i]);
		}
		close(fd[s][2]); /* a closed map's id is gone */
		for (int i = 0; i < 5; i++) {
			uint32_t next = 0, extra[4] = { 0 };
			struct bpf_result r = id_call(s, BPF_MAP_GET_NEXT_ID, id[s][i] - 1, extra,
						      &next);

			CHECK_EQ(r.rc, 0);
			CHECK_EQ(next, i == 2 ? id[s][3] : id[s][i]);
		}
		for (int i = 0; i < 5; i++)
			if (i != 2)
				close(fd[s][i]);
	}
}

static struct bpf_result get_map_fd(int s, uint32_t id, uint32_t open_flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_id = id;
	a.open_flags = open_flags;
	return side_call(s, BPF_MAP_GET_FD_BY_ID, &a);
}

/* Lookup and update through fd: the two results, compared across the sides by the caller. */
static void rw(int s, int fd, struct bpf_result out[2])
{
	uint32_t k = 0, v = 7;

	out[0] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd, &k, &v, 0);
	out[1] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &k, &v, 0);
}

TEST(diff_ids_fd_access)
{
	static const uint32_t create_flags[] = { 0, BPF_F_RDONLY, BPF_F_WRONLY };
	static const uint32_t open_flags[] = { 0, BPF_F_RDONLY, BPF_F_WRONLY };

	SKIP_WITHOUT_KERNEL_BPF();
	for (int c = 0; c < 3; c++)
		for (int o = 0; o < 3; o++) {
			struct bpf_result r[NSIDES][2], d[NSIDES][2], e[NSIDES][2];
			int m[NSIDES], f[NSIDES], dd[NSIDES], dm[NSIDES];
			char what[64];

			snprintf(what, sizeof(what), "created %#x, opened %#x", create_flags[c],
				 open_flags[o]);
			for (int s = 0; s < NSIDES; s++) {
				m[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1,
						       create_flags[c]).rc;
				REQUIRE(m[s] >= 0);
				f[s] = get_map_fd(s, side_map_id(s, m[s]), open_flags[o]).rc;
				REQUIRE(f[s] >= 0);
				rw(s, f[s], r[s]);
				/* a dup of it has its access: through dup() (which userbpf sees)
				 * and fcntl() (which it adopts on first use) */
				dd[s] = dup(f[s]);
				REQUIRE(dd[s] >= 0);
				rw(s, dd[s], d[s]);
				AGREE(what, ((struct bpf_result[]){ d[s][0], r[s][0] }));
				AGREE(what, ((struct bpf_result[]){ d[s][1], r[s][1] }));
				close(dd[s]);
				dd[s] = fcntl(f[s], F_DUPFD_CLOEXEC, 0);
				REQUIRE(dd[s] >= 0);
				rw(s, dd[s], d[s]);
				/* and the creating fd's dup has the creation flags' access */
				dm[s] = fcntl(m[s], F_DUPFD_CLOEXEC, 0);
				REQUIRE(dm[s] >= 0);
				rw(s, dm[s], e[s]);
			}
			AGREE(what, ((struct bpf_result[]){ r[K][0], r[U][0] }));
			AGREE(what, ((struct bpf_result[]){ r[K][1], r[U][1] }));
			AGREE(what, ((struct bpf_result[]){ d[K][0], d[U][0] }));
			AGREE(what, ((struct bpf_result[]){ d[K][1], d[U][1] }));
			AGREE(what, ((struct bpf_result[]){ e[K][0], e[U][0] }));
			AGREE(what, ((struct bpf_result[]){ e[K][1], e[U][1] }));
			for (int s = 0; s < NSIDES; s++) {
				close(dm[s]);
				close(dd[s]);
				close(f[s]);
				close(m[s]);
			}
		}
}

/* An fd by id keeps the object alive after the creating fd is closed, shows its contents, and
 * is the last reference: closing it frees the map. */
TEST(diff_ids_fd_lifetime)
{
	unsigned live = obj_live_count();

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k = 0, v = 42, got = 0, id;
		int m = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc, f;

		REQUIRE(m >= 0);
		REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, m, &k, &v, 0).rc);
		id = side_map_id(s, m);
		f = get_map_fd(s, id, 0).rc;
		REQUIRE(f >= 0);
		CHECK(f != m);
		close(m);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, f, &k, &got, 0).rc, 0);
		CHECK_EQ(got, 42);
		CHECK_EQ(side_map_id(s, f), id);
		close(f);
		CHECK(get_map_fd(s, id, 0).rc < 0); /* gone */
	}
	CHECK_EQ(obj_live_count(), live);
}

/* An inner map held only by its outer map (every fd closed): its id, read from the outer map,
 * gives an fd that sees what a program wrote into it. */
TEST(diff_ids_inner_map)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k = 0, v = 9, got = 0, id = 0;
		int inner = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0).rc, outer, f, raw;
		union bpf_attr a;

		REQUIRE(inner >= 0);
		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_ARRAY_OF_MAPS;
		a.key_size = 4;
		a.value_size = 4;
		a.max_entries = 1;
		a.inner_map_fd = (uint32_t)inner;
		outer = side_call(s, BPF_MAP_CREATE, &a).rc;
		REQUIRE(outer >= 0);
		REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, inner, &k, &v, 0).rc);
		REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, outer, &k, (uint32_t[]){ (uint32_t)inner },
				   0).rc);
		/* a copy userbpf has not seen yet (it adopts such fds on first use) */
		raw = fcntl(inner, F_DUPFD_CLOEXEC, 0);
		REQUIRE(raw >= 0);
		close(inner);
		REQUIRE(!side_elem(s, BPF_MAP_LOOKUP_ELEM, outer, &k, &id, 0).rc);
		f = get_map_fd(s, id, 0).rc;
		REQUIRE(f >= 0);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, f, &k, &got, 0).rc, 0);
		CHECK_EQ(got, 9);
		CHECK_EQ(side_map_id(s, f), id);
		/* and the same map is the one in the outer map: a write through f shows */
		v = 10;
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, f, &k, &v, 0).rc, 0);
		close(f);
		f = get_map_fd(s, id, BPF_F_RDONLY).rc;
		REQUIRE(f >= 0);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, f, &k, &got, 0).rc, 0);
		CHECK_EQ(got, 10);
		CHECK(side_elem(s, BPF_MAP_UPDATE_ELEM, f, &k, &v, 0).rc < 0);
		close(f);
		/* the copy made before is still the same map */
		got = 0;
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, raw, &k, &got, 0).rc, 0);
		CHECK_EQ(got, 10);
		CHECK_EQ(side_map_id(s, raw), id);
		close(raw);
		close(outer);
	}
}

/* A program's and a BTF object's fd by id: the same object (its id), usable. */
TEST(diff_ids_prog_btf)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		int p = load_ret0(s), b = load_btf(s), f;
		uint32_t pid, bid, extra[4] = { 0 }, ret = 0;
		union bpf_attr a;
		uint8_t pkt[64] = { 0 };

		REQUIRE(p >= 0 && b >= 0);
		pid = kind_id(s, p, KPROG);
		bid = kind_id(s, b, KBTF);
		memset(&a, 0, sizeof(a));
		a.prog_id = pid;
		f = side_call(s, BPF_PROG_GET_FD_BY_ID, &a).rc;
		REQUIRE(f >= 0);
		close(p); /* f holds it */
		CHECK_EQ(kind_id(s, f, KPROG), pid);
		CHECK_EQ(side_test_run(s, f, pkt, sizeof(pkt), &ret).rc, 0);
		CHECK_EQ(ret, XDP_PASS);
		close(f);
		CHECK(id_call(s, BPF_PROG_GET_FD_BY_ID, pid, extra, NULL).rc < 0); /* gone */
		memset(&a, 0, sizeof(a));
		a.btf_id = bid;
		f = side_call(s, BPF_BTF_GET_FD_BY_ID, &a).rc;
		REQUIRE(f >= 0);
		CHECK_EQ(kind_id(s, f, KBTF), bid);
		close(f);
		close(b);
		CHECK(id_call(s, BPF_BTF_GET_FD_BY_ID, bid, extra, NULL).rc < 0); /* gone */
	}
}
