/* BPF_PROG_LOAD with BTF: prog_btf_fd, func_info and line_info checks, and the "; <source> @
 * file:line" comments of the verifier log, on userbpf and on the live kernel.  Each case loads
 * one program with hand-made records against a hand-made BTF (two functions, a few source
 * lines); both sides must agree on rc, errno and the log's last line, and accepted programs on
 * the log's source-line comments (at level 2, the whole log).
 */
#include <linux/btf.h>
#include <stdlib.h>
#include <unistd.h>

#include <userbpf/insn.h>

#include "kbpf.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define INFO(kind, kf, vlen) (((uint32_t)(kf) << 31) | ((uint32_t)(kind) << 24) | (uint32_t)(vlen))

static const char STRS[] = "\0int\0main\0sub\0/home/u/prog.c\0    int x = 0;\0return 0;\0"
			   "return 1;\0\tlong y;";
enum { S_INT = 1, S_MAIN = 5, S_SUB = 10, S_FILE = 14, S_L1 = 29, S_L2 = 44, S_L3 = 54,
       S_L4 = 64, S_END = sizeof(STRS) };

/* [1] int, [2] int (void), [3] FUNC main global, [4] FUNC sub static, [5] int typedef? no. */
static const uint32_t TYPES[] = {
	S_INT, INFO(BTF_KIND_INT, 0, 0), 4, (BTF_INT_SIGNED << 24) | 32,
	0, INFO(BTF_KIND_FUNC_PROTO, 0, 0), 1,
	S_MAIN, INFO(BTF_KIND_FUNC, 0, BTF_FUNC_GLOBAL), 2,
	S_SUB, INFO(BTF_KIND_FUNC, 0, BTF_FUNC_STATIC), 2,
};

static int load_btf(const struct bpf_backend *be)
{
	static uint8_t blob[sizeof(struct btf_header) + sizeof(TYPES) + S_END];
	struct btf_header h = { BTF_MAGIC, BTF_VERSION, 0, sizeof(h), 0, sizeof(TYPES),
				sizeof(TYPES), S_END };
	union bpf_attr a;

	memcpy(blob, &h, sizeof(h));
	memcpy(blob + sizeof(h), TYPES, sizeof(TYPES));
	memcpy(blob + sizeof(h) + sizeof(TYPES), STRS, S_END);
	memset(&a, 0, sizeof(a));
	a.btf = PTR_TO_U64(blob);
	a.btf_size = sizeof(blob);
	return be->bpf(BPF_BTF_LOAD, &a, sizeof(a));
}

#define LINE(n, col) (((n) << 10) | (col))
#define BTF_FD_OURS (-100) /* the side's own BTF fd */

enum prog_kind { P_ONE, P_CALL, P_LDIMM };

struct pcase {
	const char *name;
	enum prog_kind prog;
	int btf_fd;		/* BTF_FD_OURS or a literal fd */
	uint32_t fi_rec, fi_cnt;
	uint32_t fi[4][4];	/* insn_off, type_id, (tail words) */
	uint32_t li_rec, li_cnt;
	uint32_t li[6][5];	/* insn_off, file_name_off, line_off, line_col, (tail) */
};

static const struct pcase cases[] = {
	{ "ok_one", P_ONE, BTF_FD_OURS, 8, 1, { { 0, 3 } }, 16, 2,
	  { { 0, S_FILE, S_L1, LINE(3, 5) }, { 1, S_FILE, S_L2, LINE(4, 2) } } },
	{ "ok_call", P_CALL, BTF_FD_OURS, 8, 2, { { 0, 3 }, { 3, 4 } }, 16, 4,
	  { { 0, S_FILE, S_L1, LINE(3, 5) }, { 1, S_FILE, S_L2, LINE(4, 2) },
	    { 3, S_FILE, S_L3, LINE(9, 2) }, { 4, S_FILE, S_L4, LINE(9, 7) } } },
	{ "ok_line_info_only", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 1,
	  { { 0, S_FILE, S_L2, LINE(1, 1) } } },
	{ "ok_func_info_only", P_CALL, BTF_FD_OURS, 8, 2, { { 0, 3 }, { 3, 4 } } },
	{ "ok_rec_tails_zero", P_ONE, BTF_FD_OURS, 12, 1, { { 0, 3, 0 } }, 20, 1,
	  { { 0, S_FILE, S_L2, LINE(1, 1), 0 } } },
	{ "ok_no_info_bad_fd", P_ONE, -1 },
	{ "btf_fd_bad", P_ONE, -1, 8, 1, { { 0, 3 } } },
	{ "btf_fd_not_btf", P_ONE, 0, 8, 1, { { 0, 3 } } },
	{ "btf_fd_bad_line_only", P_ONE, 9999, 0, 0, {}, 16, 1, { { 0, S_FILE, S_L2, 1 } } },
	{ "fi_rec_small", P_ONE, BTF_FD_OURS, 4, 1, { { 0, 3 } } },
	{ "fi_rec_unaligned", P_ONE, BTF_FD_OURS, 10, 1, { { 0, 3 } } },
	{ "fi_rec_big", P_ONE, BTF_FD_OURS, 256, 1, { { 0, 3 } } },
	{ "fi_rec_tail", P_ONE, BTF_FD_OURS, 12, 1, { { 0, 3, 1 } } },
	{ "fi_first_nonzero", P_ONE, BTF_FD_OURS, 8, 1, { { 1, 3 } } },
	{ "fi_not_increasing", P_CALL, BTF_FD_OURS, 8, 2, { { 0, 3 }, { 0, 4 } } },
	{ "fi_type_not_func", P_ONE, BTF_FD_OURS, 8, 1, { { 0, 1 } } },
	{ "fi_type_oob", P_ONE, BTF_FD_OURS, 8, 1, { { 0, 99 } } },
	{ "fi_count_mismatch", P_CALL, BTF_FD_OURS, 8, 1, { { 0, 3 } } },
	{ "fi_layout_mismatch", P_CALL, BTF_FD_OURS, 8, 2, { { 0, 3 }, { 2, 4 } } },
	{ "li_rec_small", P_ONE, BTF_FD_OURS, 0, 0, {}, 8, 1, { { 0, S_FILE, S_L2, 1 } } },
	{ "li_rec_unaligned", P_ONE, BTF_FD_OURS, 0, 0, {}, 18, 1, { { 0, S_FILE, S_L2, 1 } } },
	{ "li_rec_tail", P_ONE, BTF_FD_OURS, 0, 0, {}, 20, 1, { { 0, S_FILE, S_L2, 1, 7 } } },
	{ "li_beyond", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 2,
	  { { 0, S_FILE, S_L2, 1 }, { 2, S_FILE, S_L2, 1 } } },
	{ "li_not_increasing", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 2,
	  { { 1, S_FILE, S_L2, 1 }, { 1, S_FILE, S_L2, 1 } } },
	{ "li_ldimm64_half", P_LDIMM, BTF_FD_OURS, 0, 0, {}, 16, 2,
	  { { 0, S_FILE, S_L2, 1 }, { 1, S_FILE, S_L2, 1 } } },
	{ "li_bad_line_off", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 1, { { 0, S_FILE, 999, 1 } } },
	{ "li_bad_file_off", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 1, { { 0, 999, S_L2, 1 } } },
	{ "li_missing_func1", P_CALL, BTF_FD_OURS, 0, 0, {}, 16, 2,
	  { { 0, S_FILE, S_L2, 1 }, { 4, S_FILE, S_L2, 1 } } },
	{ "li_missing_tail_funcs", P_CALL, BTF_FD_OURS, 0, 0, {}, 16, 1,
	  { { 0, S_FILE, S_L2, 1 } } },
	{ "li_missing_func0", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 1, { { 1, S_FILE, S_L2, 1 } } },
	{ "li_same_line_other_col", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 2,
	  { { 0, S_FILE, S_L1, LINE(7, 1) }, { 1, S_FILE, S_L2, LINE(7, 9) } } },
	{ "li_anon_file", P_ONE, BTF_FD_OURS, 0, 0, {}, 16, 1, { { 0, 0, S_L3, LINE(2, 1) } } },
};

#define LOG_SIZE 65536

struct outcome {
	int rc, err;
	char log[LOG_SIZE];
};

static void load(const struct bpf_backend *be, const struct pcase *c, int btf_fd, int level,
		 struct outcome *o)
{
	static const struct bpf_insn one[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	static const struct bpf_insn call[] = {
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	static const struct bpf_insn ldimm[] = { BPF_LD_IMM64(BPF_REG_0, 1), BPF_EXIT_INSN() };
	uint32_t fi[4 * 64], li[6 * 64];
	union bpf_attr a;

	memset(fi, 0, sizeof(fi));
	memset(li, 0, sizeof(li));
	for (uint32_t i = 0; i < c->fi_cnt && c->fi_rec <= 64; i++)
		memcpy((uint8_t *)fi + i * c->fi_rec, c->fi[i], c->fi_rec < 16 ? c->fi_rec : 16);
	for (uint32_t i = 0; i < c->li_cnt && c->li_rec <= 64; i++)
		memcpy((uint8_t *)li + i * c->li_rec, c->li[i], c->li_rec < 20 ? c->li_rec : 20);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	if (c->prog == P_ONE) {
		a.insns = PTR_TO_U64(one);
		a.insn_cnt = (uint32_t)(sizeof(one) / sizeof(one[0]));
	} else if (c->prog == P_CALL) {
		a.insns = PTR_TO_U64(call);
		a.insn_cnt = (uint32_t)(sizeof(call) / sizeof(call[0]));
	} else {
		a.insns = PTR_TO_U64(ldimm);
		a.insn_cnt = (uint32_t)(sizeof(ldimm) / sizeof(ldimm[0]));
	}
	a.license = PTR_TO_U64("GPL");
	a.log_buf = PTR_TO_U64(o->log);
	a.log_size = LOG_SIZE;
	a.log_level = level;
	a.prog_btf_fd = c->btf_fd == BTF_FD_OURS ? btf_fd : c->btf_fd;
	a.func_info_rec_size = c->fi_rec;
	a.func_info = c->fi_cnt ? PTR_TO_U64(fi) : 0;
	a.func_info_cnt = c->fi_cnt;
	a.line_info_rec_size = c->li_rec;
	a.line_info = c->li_cnt ? PTR_TO_U64(li) : 0;
	a.line_info_cnt = c->li_cnt;
	o->log[0] = 0;
	errno = 0;
	o->rc = be->bpf(BPF_PROG_LOAD, &a, sizeof(a));
	o->err = o->rc < 0 ? errno : 0;
	if (o->rc >= 0)
		close(o->rc);
}

static const char *last_line(const char *log, char *buf, size_t size)
{
	size_t n = strlen(log);
	const char *p;

	while (n && log[n - 1] == '\n')
		n--;
	p = log + n;
	while (p > log && p[-1] != '\n')
		p--;
	snprintf(buf, size, "%.*s", (int)(log + n - p), p);
	return buf;
}

/* The log's source-line comments, one per line, in order. */
static void source_lines(const char *log, char *out, size_t size)
{
	size_t n = 0;

	out[0] = 0;
	for (const char *p = log; *p && n + 1 < size;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p + 1) : strlen(p);

		if (*p == ';' && p[1] == ' ' && n + len < size) {
			memcpy(out + n, p, len);
			n += len;
			out[n] = 0;
		}
		p += len;
	}
}

static struct outcome ou, ok;

TEST(btf_prog_load_differential)
{
	int ufd, kfd;
	unsigned agree = 0, same_log = 0, nlevels = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	ufd = load_btf(&backend_userbpf);
	kfd = load_btf(&backend_kernel);
	REQUIRE(ufd >= 0 && kfd >= 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int level = 1; level <= 2; level++) {
			char lu[256], lk[256], su[1024], sk[1024];

			nlevels++;
			load(&backend_userbpf, &cases[i], ufd, level, &ou);
			load(&backend_kernel, &cases[i], kfd, level, &ok);
			last_line(ou.log, lu, sizeof(lu));
			last_line(ok.log, lk, sizeof(lk));
			source_lines(ou.log, su, sizeof(su));
			source_lines(ok.log, sk, sizeof(sk));
			if ((ou.rc < 0) == (ok.rc < 0) && ou.err == ok.err && !strcmp(su, sk) &&
			    (ou.rc >= 0 || !strcmp(lu, lk))) {
				agree++;
				same_log += !strcmp(ou.log, ok.log);
			} else {
				test_fail(__FILE__, __LINE__,
					  "%s (level %d): userbpf %d/%d '%s', kernel %d/%d '%s'\n"
					  "-- userbpf source lines:\n%s-- kernel:\n%s",
					  cases[i].name, level, ou.rc < 0 ? -1 : 0, ou.err, lu,
					  ok.rc < 0 ? -1 : 0, ok.err, lk, su, sk);
			}
			if (getenv("BTF_TEST_VERBOSE") && strcmp(ou.log, ok.log))
				fprintf(stderr, "== %s\n-- userbpf:\n%s\n-- kernel:\n%s\n",
					cases[i].name, ou.log, ok.log);
		}
	}
	fprintf(stderr, "btf_prog_load_differential: %u/%u agree (rc, errno, error line, source "
		"lines), %u with the whole log equal\n", agree, nlevels, same_log);
	close(ufd);
	close(kfd);
}
