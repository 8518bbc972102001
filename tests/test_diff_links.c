/* Links against the kernel: BPF_RAW_TRACEPOINT_OPEN of raw tracepoint and tp_btf programs (by
 * name, the unknown tracepoint, a NULL name, a name for a tp_btf program, arguments the
 * tracepoint has not, other program types, bad fds, a cookie, the attr's tail), BPF_LINK_CREATE
 * of tp_btf programs (attach types, flags, target fields, cookies), BPF_LINK_UPDATE and
 * BPF_LINK_DETACH (which neither kind has), BPF_OBJ_GET_INFO_BY_FD of a link (type, ids,
 * tracepoint name with every buffer size, cookie, info_len and its tail), and the link ids
 * (GET_FD_BY_ID, GET_NEXT_ID, gone once the last fd closes).  Every call must give the kernel's
 * result and errno; a link's info must be the kernel's but for the ids, which are each side's
 * own.  Skipped without the kernel's bpf().
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

/* A raw tracepoint program reading its arguments up to nargs (0: none) */
static int load_raw_tp(int s, int nargs)
{
	struct bpf_insn p[4] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	uint32_t n = 2;

	if (nargs) {
		p[0] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, (short)(8 * (nargs - 1)));
		p[1] = BPF_MOV64_IMM(BPF_REG_0, 0);
		p[2] = BPF_EXIT_INSN();
		n = 3;
	}
	return side_prog_load_log(s, BPF_PROG_TYPE_RAW_TRACEPOINT, p, n, NULL, 0).rc;
}

/* A tracing program of attach type eat (tp_btf, iter) for btf_id. */
static int load_tracing(int s, uint32_t eat, uint32_t btf_id)
{
	struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = eat;
	a.attach_btf_id = btf_id;
	a.insns = PTR_TO_U64(p);
	a.insn_cnt = 2;
	a.license = PTR_TO_U64("GPL");
	return side_call(s, BPF_PROG_LOAD, &a).rc;
}

/* The kernel BTF's ids of sched_switch's tracepoint and of the task iterator: whether it has
 * both. */
static bool tracing_targets(const struct btf *btf, uint32_t *sw_id, uint32_t *iter_id)
{
	*sw_id = btf ? btf_find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF) : 0;
	*iter_id = btf ? btf_find_func(btf, "bpf_iter_task") : 0;
	return *sw_id && *iter_id;
}

static struct bpf_result raw_tp_open(int s, const char *name, int prog, uint64_t cookie)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = PTR_TO_U64(name);
	a.raw_tracepoint.prog_fd = (uint32_t)prog;
	memcpy((uint8_t *)&a + 16, &cookie, sizeof(cookie)); /* (6.10's cookie) */
	return side_call(s, BPF_RAW_TRACEPOINT_OPEN, &a);
}

static struct bpf_result link_create(int s, int prog, uint32_t attach_type, uint32_t flags,
				     uint32_t target_fd, uint32_t btf_id, uint64_t cookie)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.attach_type = attach_type;
	a.link_create.flags = flags;
	a.link_create.target_fd = target_fd;
	a.link_create.tracing.target_btf_id = btf_id;
	a.link_create.tracing.cookie = cookie;
#ifdef __i386__
	/* (the uapi's tracing.cookie is a plain __u64 after a __u32: at +4 in an i386 build, as
	 * an i386 kernel reads it, where an x86-64 kernel reads +8 from an i386 process too: the
	 * kernel side gets its own layout) */
	if (s == K && kernel_is_x86_64()) {
		a.link_create.tracing.cookie = 0;
		memcpy((char *)&a.link_create.tracing + 8, &cookie, 8);
	}
#endif
	return side_call(s, BPF_LINK_CREATE, &a);
}

static int calls, links_made; /* compared, and links both sides made */

/* Both sides' results must agree; the successful ones' fds are closed unless keep. */
static bool agree(const char *what, struct bpf_result r[NSIDES], bool keep)
{
	bool ok = AGREE(what, r);

	calls++;
	links_made += ok && r[K].rc > 0 && strstr(what, "info") == NULL;
	if (getenv("TEST_VERBOSE"))
		printf("  %s: %d (errno %d)\n", what, r[K].rc, r[K].err);
	for (int s = 0; s < NSIDES && !keep; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
	return ok;
}

#define BOTH(what, call, keep)                                                                   \
	do {                                                                                     \
		for (s = 0; s < NSIDES; s++)                                                     \
			r[s] = (call);                                                           \
		agree(what, r, keep);                                                            \
	} while (0)

/* Each side's link info (64 bytes, the kernel's size), with the tracepoint name into name
 * (size bytes, or NULL) and the info_len asked for; the ids zeroed once checked against the
 * side's link and program. */
static struct bpf_result link_info(int s, int link, int prog, char *name, uint32_t size,
				   uint32_t len, uint8_t info[80])
{
	union bpf_attr a;
	struct bpf_prog_info pi;
	uint32_t plen = sizeof(pi);
	struct bpf_result r;
	uint64_t np = PTR_TO_U64(name);

	memset(info, 0, 80);
	memcpy(info + 16, &np, 8);
	memcpy(info + 24, &size, 4);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)link;
	a.info.info = PTR_TO_U64(info);
	a.info.info_len = len;
	r = side_call(s, BPF_OBJ_GET_INFO_BY_FD, &a);
	if (r.rc == 0) {
		uint32_t prog_id;

		memset(&pi, 0, sizeof(pi));
		side_obj_info(s, prog, &pi, &plen);
		memcpy(&prog_id, info + 8, 4);
		CHECK_EQ(prog_id, pi.id);
		memset(info + 4, 0, 8); /* (the link's and program's ids: each side's own) */
		memcpy(info + 76, &a.info.info_len, 4);
	}
	memset(info + 16, 0, 8); /* (the name buffer's address) */
	return r;
}

TEST(diff_links)
{
	struct bpf_result r[NSIDES];
	int raw[NSIDES], raw2[NSIDES], tp[NSIDES], it[NSIDES], xdp[NSIDES], map[NSIDES], l[NSIDES];
	int s;
	uint8_t info[NSIDES][80];
	char name[NSIDES][32];
	uint32_t sw_id, iter_id;
	const struct btf *btf = btf_vmlinux();

	SKIP_WITHOUT_KERNEL_BPF();
	if (!tracing_targets(btf, &sw_id, &iter_id))
		SKIP("no kernel BTF with sched_switch's tracepoint and the task iterator "
		     "(/sys/kernel/btf/vmlinux)");
	for (s = 0; s < NSIDES; s++) {
		struct bpf_insn x[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };

		raw[s] = load_raw_tp(s, 0);
		raw2[s] = load_raw_tp(s, 2); /* (reads 2 arguments) */
		tp[s] = load_tracing(s, BPF_TRACE_RAW_TP, sw_id);
		it[s] = load_tracing(s, BPF_TRACE_ITER, iter_id);
		xdp[s] = side_prog_load_log(s, BPF_PROG_TYPE_XDP, x, 2, NULL, 0).rc;
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(raw[s] >= 0 && raw2[s] >= 0 && tp[s] >= 0 && it[s] >= 0 && xdp[s] >= 0 &&
			map[s] >= 0);
	}

	/* RAW_TRACEPOINT_OPEN */
	BOTH("raw_tp at sched_switch", raw_tp_open(s, "sched_switch", raw[s], 0), false);
	BOTH("raw_tp at a tracepoint that is not", raw_tp_open(s, "userbpf_no_tp", raw[s], 0),
	     false);
	BOTH("raw_tp with no name", raw_tp_open(s, NULL, raw[s], 0), false);
	BOTH("2 arguments read, at a tracepoint of 1", raw_tp_open(s, "sched_kthread_stop",
								  raw2[s], 0), false);
	BOTH("2 arguments read, at one of 2", raw_tp_open(s, "task_rename", raw2[s], 0), false);
	BOTH("tp_btf with a name", raw_tp_open(s, "sched_switch", tp[s], 0), false);
	BOTH("an XDP program", raw_tp_open(s, "sched_switch", xdp[s], 0), false);
	BOTH("a map's fd", raw_tp_open(s, "sched_switch", map[s], 0), false);
	BOTH("no fd", raw_tp_open(s, "sched_switch", 999999, 0), false);
	for (s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.raw_tracepoint.name = PTR_TO_U64("sched_switch");
		a.raw_tracepoint.prog_fd = (uint32_t)raw[s];
		((uint8_t *)&a)[24] = 1; /* past the command's attr */
		r[s] = side_call(s, BPF_RAW_TRACEPOINT_OPEN, &a);
	}
	agree("a byte past the attr", r, false);

	/* a raw tracepoint link, twice on one program, its info */
	BOTH("raw_tp with a cookie", raw_tp_open(s, "sched_switch", raw[s], 0xabcdef), true);
	memcpy(l, (int[]){ r[K].rc, r[U].rc }, sizeof(l));
	BOTH("the same program again", raw_tp_open(s, "sched_switch", raw[s], 0), false);
	if (l[K] >= 0 && l[U] >= 0) {
		static const uint32_t sizes[] = { 32, 13, 12, 1 };

		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
			memset(name, 0, sizeof(name));
			BOTH("link info", link_info(s, l[s], raw[s], name[s], sizes[i], 64, info[s]),
			     true);
			if (memcmp(info[K], info[U], 80)) {
				test_fail(__FILE__, __LINE__, "link info, %u bytes of name: differ",
					  sizes[i]);
				for (int b = 0; b < 80; b++)
					if (info[K][b] != info[U][b])
						printf("  byte %d: kernel %02x, userbpf %02x\n", b,
						       info[K][b], info[U][b]);
			}
			CHECK(!memcmp(name[K], name[U], sizes[i]));
		}
		BOTH("link info, a name buffer without a size",
		     link_info(s, l[s], raw[s], name[s], 0, 64, info[s]), true);
		BOTH("link info, no name", link_info(s, l[s], raw[s], NULL, 0, 64, info[s]), true);
		CHECK(!memcmp(info[K], info[U], 80));
		BOTH("link info, 16 bytes", link_info(s, l[s], raw[s], NULL, 0, 16, info[s]), true);
		CHECK(!memcmp(info[K], info[U], 80));
		BOTH("link info, 80 bytes", link_info(s, l[s], raw[s], NULL, 0, 80, info[s]), true);
		CHECK(!memcmp(info[K], info[U], 80));
		for (s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(info[s], 0, 80);
			info[s][70] = 1;
			memset(&a, 0, sizeof(a));
			a.info.bpf_fd = (uint32_t)l[s];
			a.info.info = PTR_TO_U64(info[s]);
			a.info.info_len = 80;
			r[s] = side_call(s, BPF_OBJ_GET_INFO_BY_FD, &a);
		}
		agree("link info, a byte set past the kernel's struct", r, true);

		/* no detach, no update */
		for (s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.link_detach.link_fd = (uint32_t)l[s];
			r[s] = side_call(s, BPF_LINK_DETACH, &a);
		}
		agree("LINK_DETACH", r, true);
		for (s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.link_detach.link_fd = (uint32_t)raw[s];
			r[s] = side_call(s, BPF_LINK_DETACH, &a);
		}
		agree("LINK_DETACH of a program", r, true);
		for (int f = 0; f < 4; f++) {
			for (s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.link_update.link_fd = (uint32_t)(f == 3 ? raw[s] : l[s]);
				a.link_update.new_prog_fd = (uint32_t)raw[s];
				a.link_update.flags = f == 1 ? BPF_F_REPLACE : f == 2 ? 8 : 0;
				a.link_update.old_prog_fd = f == 1 ? (uint32_t)raw[s] : 0;
				r[s] = side_call(s, BPF_LINK_UPDATE, &a);
			}
			agree("LINK_UPDATE", r, true);
		}

		/* ids: the link by its id, the next id, gone with its last fd */
		uint32_t id[NSIDES];

		for (s = 0; s < NSIDES; s++) {
			struct bpf_link_info li;
			uint32_t len = sizeof(li);
			union bpf_attr a;

			memset(&li, 0, sizeof(li));
			side_obj_info(s, l[s], &li, &len);
			id[s] = li.id;
			memset(&a, 0, sizeof(a));
			a.link_id = id[s];
			r[s] = side_call(s, BPF_LINK_GET_FD_BY_ID, &a);
		}
		agree("LINK_GET_FD_BY_ID", r, false);
		for (s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.start_id = id[s] - 1;
			r[s] = side_call(s, BPF_LINK_GET_NEXT_ID, &a);
			CHECK_EQ(a.next_id, id[s]);
		}
		agree("LINK_GET_NEXT_ID", r, true); /* (0, no fd) */
		for (s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			close(l[s]);
			memset(&a, 0, sizeof(a));
			a.link_id = id[s];
			r[s] = side_call(s, BPF_LINK_GET_FD_BY_ID, &a);
		}
		agree("LINK_GET_FD_BY_ID after the close", r, false);
	}

	/* tp_btf: RAW_TRACEPOINT_OPEN without a name, LINK_CREATE */
	BOTH("tp_btf", raw_tp_open(s, NULL, tp[s], 0), true);
	if (r[K].rc >= 0 && r[U].rc >= 0) {
		memcpy(l, (int[]){ r[K].rc, r[U].rc }, sizeof(l));
		memset(name, 0, sizeof(name));
		BOTH("tp_btf link info", link_info(s, l[s], tp[s], name[s], 32, 64, info[s]), true);
		CHECK(!memcmp(info[K], info[U], 80));
		CHECK(!strcmp(name[K], name[U]));
		for (s = 0; s < NSIDES; s++)
			close(l[s]);
	}
	BOTH("LINK_CREATE tp_btf", link_create(s, tp[s], BPF_TRACE_RAW_TP, 0, 0, 0, 0), false);
	BOTH("LINK_CREATE tp_btf as fentry", link_create(s, tp[s], BPF_TRACE_FENTRY, 0, 0, 0, 0),
	     false);
	BOTH("LINK_CREATE tp_btf as XDP", link_create(s, tp[s], BPF_XDP, 0, 0, 0, 0), false);
	BOTH("LINK_CREATE tp_btf, flags", link_create(s, tp[s], BPF_TRACE_RAW_TP, 1, 0, 0, 0),
	     false);
	BOTH("LINK_CREATE tp_btf, a target", link_create(s, tp[s], BPF_TRACE_RAW_TP, 0, 5, 7, 0),
	     false);
	BOTH("LINK_CREATE raw_tp", link_create(s, raw[s], BPF_TRACE_RAW_TP, 0, 0, 0, 0), false);
	BOTH("LINK_CREATE of a map", link_create(s, map[s], BPF_TRACE_RAW_TP, 0, 0, 0, 0), false);
	BOTH("LINK_CREATE tp_btf, a cookie",
	     link_create(s, tp[s], BPF_TRACE_RAW_TP, 0, 0, 0, 0x1122334455ull), true);
	if (r[K].rc >= 0 && r[U].rc >= 0) {
		memcpy(l, (int[]){ r[K].rc, r[U].rc }, sizeof(l));
		BOTH("its info", link_info(s, l[s], tp[s], NULL, 0, 64, info[s]), true);
		CHECK(!memcmp(info[K], info[U], 80));
		for (s = 0; s < NSIDES; s++)
			close(l[s]);
	}
	for (s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.link_create.prog_fd = (uint32_t)tp[s];
		a.link_create.attach_type = BPF_TRACE_RAW_TP;
		((uint8_t *)&a)[59] = 1; /* (another kind's field: ignored) */
		r[s] = side_call(s, BPF_LINK_CREATE, &a);
		if (r[s].rc >= 0)
			close(r[s].rc);
		((uint8_t *)&a)[60] = 1; /* past the command's attr */
		r[s] = side_call(s, BPF_LINK_CREATE, &a);
	}
	agree("LINK_CREATE, a byte past the attr", r, false);
	/* an iterator: its link (test_loader_iter.c reads it); no raw tracepoint link (EINVAL,
	 * bpf_tracing_prog_attach()'s answer in 6.18's source; the kernel here says EPERM, as
	 * for every trampoline) */
	BOTH("LINK_CREATE of an iterator", link_create(s, it[s], BPF_TRACE_ITER, 0, 0, 0, 0),
	     false);
	{
		struct bpf_result u = raw_tp_open(U, NULL, it[U], 0);

		CHECK(u.rc < 0 && u.err == EINVAL);
	}
	for (s = 0; s < NSIDES; s++) {
		close(raw[s]);
		close(raw2[s]);
		close(tp[s]);
		close(it[s]);
		close(xdp[s]);
		close(map[s]);
	}
	printf("diff_links: %d calls with the kernel's result and errno (%d made links or fds)\n",
	       calls, links_made);
	CHECK(calls >= 40);
	CHECK(links_made >= 8);
}

/* BPF_TASK_FD_QUERY of this thread's fd into a buffer of size bytes (0: NULL buf, size given
 * as buf_len): rc/errno, with the attr's results. */
static struct bpf_result fd_query(int s, int pid, int fd, uint32_t flags, char *buf,
				  uint32_t size, union bpf_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->task_fd_query.pid = (uint32_t)pid;
	a->task_fd_query.fd = (uint32_t)fd;
	a->task_fd_query.flags = flags;
	a->task_fd_query.buf = PTR_TO_U64(buf);
	a->task_fd_query.buf_len = size;
	return side_call(s, BPF_TASK_FD_QUERY, a);
}

/* BPF_TASK_FD_QUERY against the kernel: raw tracepoint links (by raw_tp and tp_btf programs,
 * opened and created) name their tracepoint with every buffer size, other fds (an iterator
 * link, a program, a map, a file, none) and tasks (another process, none) and flags are refused
 * with the kernel's errno.  The program id is each side's own. */
TEST(diff_task_fd_query)
{
	int raw[NSIDES], tp[NSIDES], it[NSIDES], map[NSIDES], l[3][NSIDES], s, n = 0, named = 0;
	int null = open("/dev/null", O_RDONLY), self = getpid();
	const struct btf *btf = btf_vmlinux();
	uint32_t sw_id, iter_id;
	struct bpf_result r[NSIDES];
	union bpf_attr a[NSIDES];
	char buf[NSIDES][64];

	SKIP_WITHOUT_KERNEL_BPF();
	if (!tracing_targets(btf, &sw_id, &iter_id))
		SKIP("no kernel BTF with sched_switch's tracepoint and the task iterator "
		     "(/sys/kernel/btf/vmlinux)");
	REQUIRE(null >= 0);
	for (s = 0; s < NSIDES; s++) {
		raw[s] = load_raw_tp(s, 0);
		tp[s] = load_tracing(s, BPF_TRACE_RAW_TP, sw_id);
		it[s] = load_tracing(s, BPF_TRACE_ITER, iter_id);
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(raw[s] >= 0 && tp[s] >= 0 && it[s] >= 0 && map[s] >= 0);
		l[0][s] = raw_tp_open(s, "sched_switch", raw[s], 0).rc;
		l[1][s] = raw_tp_open(s, NULL, tp[s], 0).rc;
		l[2][s] = link_create(s, tp[s], BPF_TRACE_RAW_TP, 0, 0, 0, 0).rc;
		REQUIRE(l[0][s] >= 0 && l[1][s] >= 0 && l[2][s] >= 0);
	}
	for (int k = 0; k < 3; k++) {
		static const uint32_t sizes[] = { 64, 13, 12, 2, 1, 0 };

		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
			for (int nul = 0; nul < 2; nul++) {
				for (s = 0; s < NSIDES; s++) {
					memset(buf[s], 'x', sizeof(buf[s]));
					r[s] = fd_query(s, self, l[k][s], 0, nul ? NULL : buf[s],
							sizes[i], &a[s]);
				}
				n++;
				if (!AGREE("a raw tracepoint link", r))
					continue;
				CHECK_EQ(a[K].task_fd_query.buf_len, a[U].task_fd_query.buf_len);
				CHECK_EQ(a[K].task_fd_query.fd_type, a[U].task_fd_query.fd_type);
				CHECK_EQ(a[K].task_fd_query.probe_offset,
					 a[U].task_fd_query.probe_offset);
				CHECK_EQ(a[K].task_fd_query.probe_addr,
					 a[U].task_fd_query.probe_addr);
				CHECK(!memcmp(buf[K], buf[U], sizeof(buf[K])));
				for (s = 0; s < NSIDES; s++) {
					struct bpf_prog_info info;
					uint32_t len = sizeof(info);

					memset(&info, 0, sizeof(info));
					REQUIRE(!side_obj_info(s, k ? tp[s] : raw[s], &info,
							       &len).rc);
					CHECK_EQ(a[s].task_fd_query.prog_id, info.id);
				}
				named += r[K].rc == 0 && !nul && sizes[i] == 64 &&
					 !strcmp(buf[U], "sched_switch");
			}
	}
	{
		int link_it[NSIDES];
		int tid = (int)syscall(SYS_gettid);
		static const char *const what[] = {
			"an iterator link", "a program", "a map", "a file", "no fd", "flags",
			"pid 0", "no such pid", "this thread by tid", "init's fd",
			"a child's fd", "a child's fd that is not",
		};
		int child = fork();

		if (!child) {
			pause();
			_exit(0);
		}
		REQUIRE(child > 0);

		for (s = 0; s < NSIDES; s++)
			link_it[s] = link_create(s, it[s], BPF_TRACE_ITER, 0, 0, 0, 0).rc;
		REQUIRE(link_it[K] >= 0 && link_it[U] >= 0);
		for (size_t w = 0; w < ARRAY_SIZE(what); w++) {
			for (s = 0; s < NSIDES; s++) {
				int fds[] = { link_it[s], raw[s], map[s], null, 999, l[0][s],
					      l[0][s], l[0][s], l[0][s], 0, null, 999 };
				int pids[] = { self, self, self, self, self, self,
					       0, 0x7ffffff0, tid, 1, child, child };

				r[s] = fd_query(s, pids[w], fds[w], w == 5, buf[s], 64, &a[s]);
			}
			n++;
			AGREE(what[w], r);
		}
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		for (s = 0; s < NSIDES; s++)
			close(link_it[s]);
	}
	for (s = 0; s < NSIDES; s++) {
		for (int k = 0; k < 3; k++)
			close(l[k][s]);
		close(raw[s]);
		close(tp[s]);
		close(it[s]);
		close(map[s]);
	}
	close(null);
	printf("diff_task_fd_query: %d queries with the kernel's answers, %d named sched_switch\n",
	       n, named);
	CHECK_EQ(named, 3);
}
