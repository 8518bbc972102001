/* The differential verifier test runner (see verifier_harness.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "map/map.h"
#include "prog/prog.h"
#include "syscall.h"
#include "verifier/verifier.h"
#include "test.h"
#include "userbpf.h"
#include "verifier_harness.h"
#include "btf_blob.h"
#include "kernel_probe.h"
#include "btf/btf.h"
#include "btf/vmlinux.h"

#define LOG_SIZE (1 << 18)	/* a 1100-insn program's level-2 log fits */

struct map_spec {
	u32 type, key, value, max, flags;
	bool rodata;	/* value bytes 1, 2, ..., (or text) then BPF_MAP_FREEZE */
	int inner;	/* maps of maps: 1 + the index of the template (an earlier spec) */
	u32 btf_value;	/* BTF (lock_types): u32 key, value type 3 { u32 a; struct bpf_spin_lock
			 * l; } or 6 { u64 n; struct bpf_timer t; u64 m; }; 0: none */
	const char *text; /* rodata: the value's bytes */
};

#define NMAPS 17
_Static_assert(sizeof(FMT_TEXT) == 16 * 16 + 1, "FMT_TEXT: 16 formats of 16 bytes");
static const struct map_spec map_specs[NMAPS] = {
	{ BPF_MAP_TYPE_HASH, 8, 8, 16 },
	{ BPF_MAP_TYPE_ARRAY, 4, 48, 4 },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 1 },
	{ BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG },
	{ BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG, true },
	{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096 },
	{ BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4 },
	{ BPF_MAP_TYPE_QUEUE, 0, 8, 4 },
	{ BPF_MAP_TYPE_QUEUE, 0, 8, 4, BPF_F_RDONLY_PROG },
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 4, 0, false, 3 },
	{ BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 4, 0, false, 1 },
	{ BPF_MAP_TYPE_HASH, 4, 8, 4, 0, false, 0, 3 },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, false, 0, 3 },
	{ BPF_MAP_TYPE_ARRAY, 4, 16 * 16, 1, BPF_F_RDONLY_PROG, true, 0, 0, FMT_TEXT },
	{ BPF_MAP_TYPE_HASH, 4, 32, 4, 0, false, 0, 6 },
	{ BPF_MAP_TYPE_ARRAY, 4, 32, 2, 0, false, 0, 6 },
	{ BPF_MAP_TYPE_USER_RINGBUF, 0, 0, 4096 },
};

/* The BTF of the locked and timer maps: 1 u32, 2 struct bpf_spin_lock, 3 the locked value
 * struct, 4 u64, 5 struct bpf_timer, 6 the timer value struct. */
static const char lock_strs[] = "\0u32\0bpf_spin_lock\0val\0v\0a\0l\0u64\0bpf_timer\0tv\0n\0t\0m\0b";
static const u32 lock_types[] = {
	T_INT(1, 4, 0, 0, 32),
	T_STRUCT(5, 1, 4), T_MEMBER(19, 1, 0),
	T_STRUCT(23, 2, 8), T_MEMBER(25, 1, 0), T_MEMBER(27, 2, 32),
	T_INT(29, 8, 0, 0, 64),
	T_STRUCT(33, 2, 16), T_MEMBER(19, 4, 0), T_MEMBER(52, 4, 64),
	T_STRUCT(43, 3, 32), T_MEMBER(46, 4, 0), T_MEMBER(48, 5, 64), T_MEMBER(50, 4, 192),
};
static int kbtf = -1, ubtf = -1;

static int load_btf(bool kernel, const u32 *types, u32 nwords, const char *strs, u32 slen);

static int load_lock_btf(bool kernel)
{
	return load_btf(kernel, lock_types, sizeof(lock_types) / 4, lock_strs, sizeof(lock_strs));
}

/* The BTF of `funcs` cases: 1 int, 2 int (void), 3 f0 global, 4.. f1..f7 static. */
#define FUNCS_MAX 8
static const char funcs_strs[] = "\0int\0f0\0f1\0f2\0f3\0f4\0f5\0f6\0f7";
static const u32 funcs_types[] = {
	T_INT(1, 4, BTF_INT_SIGNED, 0, 32), T_PROTO(1, 0),
	T_FUNC(5, 2, BTF_FUNC_GLOBAL), T_FUNC(8, 2, BTF_FUNC_STATIC), T_FUNC(11, 2, BTF_FUNC_STATIC),
	T_FUNC(14, 2, BTF_FUNC_STATIC), T_FUNC(17, 2, BTF_FUNC_STATIC),
	T_FUNC(20, 2, BTF_FUNC_STATIC), T_FUNC(23, 2, BTF_FUNC_STATIC),
	T_FUNC(26, 2, BTF_FUNC_STATIC),
};
static int kfuncs_btf = -1, ufuncs_btf = -1;

static int load_btf(bool kernel, const u32 *types, u32 nwords, const char *strs, u32 slen)
{
	struct blob b = btf_blob(types, nwords, strs, slen);
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.btf = (uintptr_t)b.data;
	a.btf_size = b.size;
	fd = kernel ? (int)syscall(__NR_bpf, BPF_BTF_LOAD, &a, sizeof(a))
		    : bpf(BPF_BTF_LOAD, &a, sizeof(a));
	free(b.data);
	return fd;
}

/* func_info for a `funcs` case: one record per function start, in order. */
static u32 funcs_info(const struct bpf_insn *in, u32 n, struct bpf_func_info *fi)
{
	bool start[VCASE_MAX_INSNS * 8] = { true };
	u32 cnt = 0;

	for (u32 i = 0; i < n && i < sizeof(start); i++) {
		bool call = in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL;
		bool func = in[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			    in[i].src_reg == BPF_PSEUDO_FUNC;
		s64 t = (s64)i + 1 + in[i].imm;

		if ((call || func) && t >= 0 && t < (s64)n && t < (s64)sizeof(start))
			start[t] = true;
	}
	for (u32 i = 0; i < n && i < sizeof(start) && cnt < FUNCS_MAX; i++)
		if (start[i]) {
			fi[cnt].insn_off = i;
			fi[cnt].type_id = 3 + cnt;
			cnt++;
		}
	return cnt;
}

static void set_funcs(union bpf_attr *a, const struct vcase *c, const struct bpf_insn *in, u32 n,
		      struct bpf_func_info *fi, bool kernel)
{
	int *fd = kernel ? &kfuncs_btf : &ufuncs_btf;

	if (!c->funcs)
		return;
	if (*fd < 0)
		*fd = load_btf(kernel, funcs_types, sizeof(funcs_types) / 4, funcs_strs,
			       sizeof(funcs_strs));
	a->prog_btf_fd = (u32)*fd;
	a->func_info_rec_size = sizeof(*fi);
	a->func_info = (uintptr_t)fi;
	a->func_info_cnt = funcs_info(in, n, fi);
}

static int kernel_state; /* 0 unknown, 1 works, -1 unavailable */
static int kmaps[NMAPS] = { [0 ... NMAPS - 1] = -1 };
static int umaps[NMAPS] = { [0 ... NMAPS - 1] = -1 };

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int make_map(int i, bool kernel)
{
	union bpf_attr a;
	u8 val[16 * 16];
	u32 key = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = map_specs[i].type;
	a.key_size = map_specs[i].key;
	a.value_size = map_specs[i].value;
	a.max_entries = map_specs[i].max;
	a.map_flags = map_specs[i].flags;
	for (int t = 0; t < NMAPS; t++)
		if (map_specs[i].inner == t + 1)
			a.inner_map_fd = (u32)(kernel ? kmaps : umaps)[t];
	if (map_specs[i].btf_value) {
		int *btf = kernel ? &kbtf : &ubtf;

		if (*btf < 0)
			*btf = load_lock_btf(kernel);
		a.btf_fd = (u32)*btf;
		a.btf_key_type_id = 1;
		a.btf_value_type_id = map_specs[i].btf_value;
	}
	fd = kernel ? (int)sys_bpf(BPF_MAP_CREATE, &a) : bpf(BPF_MAP_CREATE, &a, sizeof(a));
	if (fd < 0 || !map_specs[i].rodata)
		return fd;
	for (u32 b = 0; b < sizeof(val); b++)
		val[b] = (u8)(b + 1);
	if (map_specs[i].text)
		memcpy(val, map_specs[i].text, map_specs[i].value);
	memset(&a, 0, sizeof(a));
	a.map_fd = (u32)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	if (kernel ? (int)sys_bpf(BPF_MAP_UPDATE_ELEM, &a) : bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)))
		goto fail;
	memset(&a, 0, sizeof(a)); /* BPF_MAP_FREEZE ends at map_fd */
	a.map_fd = (u32)fd;
	if (kernel ? (int)sys_bpf(BPF_MAP_FREEZE, &a) : bpf(BPF_MAP_FREEZE, &a, sizeof(a)))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static bool kernel_ok(void)
{
	if (!kernel_state) {
		kernel_state = -1;
		for (int i = 0; i < NMAPS; i++) {
			kmaps[i] = make_map(i, true);
			if (kmaps[i] < 0)
				return false;
		}
		kernel_state = 1;
	}
	return kernel_state > 0;
}

/* prog/load.c's license rule (the kernel's license_is_gpl_compatible()). */
static bool gpl_license(const char *license)
{
	static const char *const gpl[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
		"Dual MPL/GPL",
	};

	for (size_t i = 0; i < sizeof(gpl) / sizeof(gpl[0]); i++)
		if (!strcmp(license, gpl[i]))
			return true;
	return false;
}

static int prog_len(const struct vcase *c)
{
	int n = VCASE_MAX_INSNS;

	while (n > 0 && !c->insns[n - 1].code && !c->insns[n - 1].imm && !c->insns[n - 1].dst_reg &&
	       !c->insns[n - 1].src_reg && !c->insns[n - 1].off)
		n--;
	return n;
}

static const char *const kf_names[KF_NAMES] = {
	[KF_SIZE] = "bpf_dynptr_size",		[KF_IS_NULL] = "bpf_dynptr_is_null",
	[KF_IS_RDONLY] = "bpf_dynptr_is_rdonly",	[KF_ADJUST] = "bpf_dynptr_adjust",
	[KF_SLICE] = "bpf_dynptr_slice",		[KF_SLICE_RDWR] = "bpf_dynptr_slice_rdwr",
	[KF_CLONE] = "bpf_dynptr_clone",		[KF_RCU_READ_LOCK] = "bpf_rcu_read_lock",
	[KF_RCU_READ_UNLOCK] = "bpf_rcu_read_unlock",	[KF_TCP_V4_RCV] = "tcp_v4_rcv",
	[KF_COPY] = "bpf_dynptr_copy",			[KF_MEMSET] = "bpf_dynptr_memset",
	[KF_ITER_NEW] = "bpf_iter_num_new",		[KF_ITER_NEXT] = "bpf_iter_num_next",
	[KF_ITER_DESTROY] = "bpf_iter_num_destroy",	[KF_CAST_TO_KERN_CTX] = "bpf_cast_to_kern_ctx",
	[KF_FROM_SKB] = "bpf_dynptr_from_skb",		[KF_FROM_XDP] = "bpf_dynptr_from_xdp",
	[KF_STRLEN] = "bpf_strlen",			[KF_STRNCHR] = "bpf_strnchr",
	[KF_STRCMP] = "bpf_strcmp",			[KF_BITS_NEW] = "bpf_iter_bits_new",
	[KF_BITS_NEXT] = "bpf_iter_bits_next",		[KF_BITS_DESTROY] = "bpf_iter_bits_destroy",
	[KF_PREEMPT_OFF] = "bpf_preempt_disable",	[KF_PREEMPT_ON] = "bpf_preempt_enable",
	[KF_COPY_USER_STR] = "bpf_copy_from_user_str",
	[KF_COPY_USER_DYNPTR] = "bpf_copy_from_user_dynptr",
	[KF_COPY_USER_STR_DYNPTR] = "bpf_copy_from_user_str_dynptr",
	[KF_PROBE_KERNEL_DYNPTR] = "bpf_probe_read_kernel_dynptr",
};

bool kfunc_btf_available(void)
{
	return btf_vmlinux() != NULL;
}

static void fix_maps(struct bpf_insn *in, int n, const int *fds)
{
	for (int i = 0; i < n; i++)
		if (((in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_KFUNC_CALL) ||
		     (in[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		      in[i].src_reg == BPF_PSEUDO_BTF_ID)) &&
		    in[i].imm >= KF_BASE && in[i].imm < KF_BASE + KF_NAMES && btf_vmlinux())
			in[i].imm = (s32)btf_find_func(btf_vmlinux(), kf_names[in[i].imm - KF_BASE]);
	for (int i = 0; i + 1 < n; i++) {
		if (in[i].code != (BPF_LD | BPF_DW | BPF_IMM) || !in[i].src_reg)
			continue;
		if (in[i].imm >= MAP_HASH && in[i].imm <= MAP_URINGBUF)
			in[i].imm = fds[in[i].imm - MAP_HASH];
		i++;
	}
}

/* The last non-empty line before the "processed" line (or the last line). */
static void error_line(const char *log, char *out, size_t size)
{
	const char *end = strstr(log, "\nprocessed ");
	const char *p;

	if (!end)
		end = log + strlen(log);
	while (end > log && end[-1] == '\n')
		end--;
	p = end;
	while (p > log && p[-1] != '\n')
		p--;
	snprintf(out, size, "%.*s", (int)(end - p), p);
}

struct outcome {
	int ret, err;
	char line[512];
	char *log;
};

static struct bpf_insn *copy_insns(const struct bpf_insn *insns, u32 n, const int *fds)
{
	struct bpf_insn *in = calloc((size_t)n + 1, sizeof(*in));

	if (!in)
		abort();
	memcpy(in, insns, (size_t)n * sizeof(*in));
	fix_maps(in, (int)n, fds);
	return in;
}

static u32 log_level_of(const struct vcase *c)
{
	return c->log_level ? c->log_level : 1;
}

static void run_kernel(const struct vcase *c, const struct bpf_insn *prog, u32 n,
		       struct outcome *o)
{
	struct bpf_insn *insns = copy_insns(prog, n, kmaps);
	struct bpf_func_info fi[FUNCS_MAX];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	set_funcs(&a, c, prog, n, fi, true);
	a.prog_type = c->prog_type;
	a.expected_attach_type = c->attach;
	a.prog_flags = c->prog_flags;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)(c->license ? c->license : "GPL");
	a.log_level = log_level_of(c);
	a.log_buf = (uintptr_t)o->log;
	a.log_size = LOG_SIZE;
	o->log[0] = 0;
	o->ret = (int)sys_bpf(BPF_PROG_LOAD, &a);
	o->err = o->ret < 0 ? errno : 0;
	if (o->ret >= 0)
		close(o->ret);
	error_line(o->log, o->line, sizeof(o->line));
	free(insns);
}

static void run_userbpf(const struct vcase *c, const struct bpf_insn *insns, u32 n,
			struct outcome *o)
{
	struct bpf_prog *prog = calloc(1, sizeof(*prog));
	struct bpf_func_info fi[FUNCS_MAX];
	union kernel_attr ka; /* (bpf_check() reads the kernel's whole union) */
	union bpf_attr *a = &ka.attr;

	for (int i = 0; i < NMAPS; i++)
		if (umaps[i] < 0)
			umaps[i] = make_map(i, false);
	prog->type = c->prog_type;
	prog->expected_attach_type = c->attach;
	prog->prog_flags = c->prog_flags;
	prog->gpl_compatible = gpl_license(c->license ? c->license : "GPL");
	prog->insns = copy_insns(insns, n, umaps);
	prog->len = n;
	memset(&ka, 0, sizeof(ka));
	set_funcs(a, c, insns, n, fi, false);
	a->log_level = log_level_of(c);
	a->log_buf = (uintptr_t)o->log;
	a->log_size = LOG_SIZE;
	o->log[0] = 0;
	o->ret = bpf_check(prog, a, NULL, 0);
	o->err = o->ret < 0 ? -o->ret : 0;
	error_line(o->log, o->line, sizeof(o->line));
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		obj_put(&prog->used_maps[i]->obj);
	free(prog->used_maps);
	btf_put(prog->btf);
	free(prog->func_info);
	free(prog->linfo);
	free(prog->insns);
	free(prog->pkt_cmp);
	free(prog);
}

/* Kernel and userbpf addresses (map pointers in LD_IMM64 lines) differ: "0x?" for them (the
 * state comment's column then moves with it on both sides alike): any long hex, and whatever an
 * LD_IMM64 line "(18) rN = 0x..." loads, however short (an i386 build's or valgrind's heap
 * addresses have 7 or 8 digits); a constant so loaded is blanked on both sides alike. */
static bool after_ldimm64(const char *log, const char *p)
{
	const char *line = p;

	while (line > log && line[-1] != '\n')
		line--;
	for (const char *q = strstr(line, "(18) r"); q && q < p; q = strstr(q + 1, "(18) r"))
		if (p - q <= 10 && !strncmp(p - 3, " = ", 3))
			return true;
	return false;
}

void vlog_blank_addrs(char *log)
{
	for (char *p = log; (p = strstr(p, "0x")); p += 2) {
		size_t n = strspn(p + 2, "0123456789abcdef");

		if (n >= 10 || (n && after_ldimm64(log, p))) {
			n += strspn(p + 2 + n, " ");
			memmove(p + 3, p + 2 + n, strlen(p + 2 + n) + 1);
			p[2] = '?';
		}
	}
}

/* The "Live regs before insn:" section of a log, in place: its header and the lines after it
 * shaped like "SSS NNN: " (S: the loop number or blanks), or "" when the log has none. */
static void live_regs_section(char *log)
{
	char *start = strstr(log, "Live regs before insn:\n"), *p;

	if (!start) {
		log[0] = 0;
		return;
	}
	p = strchr(start, '\n') + 1;
	for (;;) {
		size_t n = strcspn(p, "\n"), i = 4;

		if (n < 9 || p[3] != ' ' || strspn(p, " 0123456789") < 4)
			break;
		i += strspn(p + i, " ");
		i += strspn(p + i, "0123456789");
		if (p[i] != ':' || p[n] != '\n')
			break;
		p += n + 1;
	}
	memmove(log, start, (size_t)(p - start));
	log[p - start] = 0;
}

/* Only the precision tracking lines and the statistics line of a level-2 log. */
static void prec_section(char *log)
{
	char *out = log, *p = log;

	while (*p) {
		size_t n = strcspn(p, "\n");
		bool keep = !strncmp(p, "mark_precise: ", 14) || !strncmp(p, "force_precise: ", 15) ||
			    (!strncmp(p, "frame ", 6) && strstr(p, ": propagating ") &&
			     (size_t)(strstr(p, ": propagating ") - p) < n) ||
			    !strncmp(p, "processed ", 10);

		if (p[n] == '\n')
			n++;
		if (keep) {
			memmove(out, p, n);
			out += n;
		}
		p += n;
	}
	*out = 0;
}

void vlog_first_diff(const char *a, const char *b, char *out, size_t size)
{
	int line = 1;

	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++, b++;
	}
	while (line > 1 && a[-1] != '\n')
		a--, b--;
	snprintf(out, size, "line %d: kernel \"%.*s\" userbpf \"%.*s\"", line,
		 (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
}

const char *vcase_userbpf_log(const struct vcase *c, int *ret)
{
	static char log[LOG_SIZE];
	struct outcome o = { .log = log };

	run_userbpf(c, c->insns, (u32)prog_len(c), &o);
	*ret = o.ret;
	return log;
}

void vprog_run(const struct vcase *c, const struct bpf_insn *insns, u32 n, struct vstats *st)
{
	static char ulog[LOG_SIZE], klog[LOG_SIZE];
	struct outcome u = { .log = ulog }, k = { .log = klog };
	bool uacc, kacc, show = getenv("VERIFIER_SHOW") != NULL;

	st->cases++;
	run_userbpf(c, insns, n, &u);
	uacc = u.ret >= 0;
	if (c->known) {
		st->known++;
		printf("  known difference %s: %s (userbpf: %s \"%s\")\n", c->name, c->known,
		       uacc ? "accepts" : "rejects", u.line);
	} else if (show) {
		/* the table may still say TBD: report, don't judge */
	} else if (uacc != (c->verdict == ACCEPT))
		test_fail(__FILE__, __LINE__, "%s: userbpf %s (%s), table says %s", c->name,
			  uacc ? "accepts" : "rejects", u.line, c->verdict ? "accept" : "reject");
	else if (!uacc && c->err && strcmp(u.line, c->err))
		test_fail(__FILE__, __LINE__, "%s: userbpf error line \"%s\", table \"%s\"", c->name,
			  u.line, c->err);
	else if (!uacc && c->err_no && u.err != c->err_no)
		test_fail(__FILE__, __LINE__, "%s: userbpf errno %d, table %d", c->name, u.err,
			  c->err_no);
	/* (userbpf's verdict is still the table's) */
	if (!kernel_ok() || calls_helper_kernel_lacks(c->prog_type, insns, n))
		return;
	st->kernel_ran++;
	run_kernel(c, insns, n, &k);
	kacc = k.ret >= 0;
	if (show)
		printf("SHOW\t%s\t%d\t%d\t%s\t|\t%d\t%d\t%s\n", c->name, kacc, k.err, k.line, uacc,
		       u.err, u.line);
	else if (kacc != (c->verdict == ACCEPT) ||
	    (!kacc && c->err && strcmp(k.line, c->err)) ||
	    (!kacc && c->err_no && k.err != c->err_no))
		test_fail(__FILE__, __LINE__, "%s: table disagrees with the kernel: kernel %s (%d) "
			  "\"%s\"", c->name, kacc ? "accepts" : "rejects", k.err, k.line);
	if (c->full_log || c->live_regs || c->prec_lines) {
		vlog_blank_addrs(ulog);
		vlog_blank_addrs(klog);
	}
	if (c->live_regs) {
		live_regs_section(ulog);
		live_regs_section(klog);
		if (!klog[0])
			test_fail(__FILE__, __LINE__, "%s: no liveness section in the kernel's log",
				  c->name);
	}
	if (c->prec_lines) {
		prec_section(ulog);
		prec_section(klog);
		if (!strstr(klog, "mark_precise: "))
			test_fail(__FILE__, __LINE__, "%s: no precision lines in the kernel's log",
				  c->name);
	}
	if ((c->full_log || c->live_regs || c->prec_lines) && !c->known && strcmp(ulog, klog)) {
		char d[1200];

		vlog_first_diff(klog, ulog, d, sizeof(d));
		test_fail(__FILE__, __LINE__, "%s: log level %u differs: %s", c->name,
			  log_level_of(c), d);
		if (getenv("TEST_VERBOSE"))
			fprintf(stderr, "--- kernel log\n%s--- userbpf log\n%s---\n", klog, ulog);
	}
	if (c->stats) {
		const char *kp = strstr(klog, "processed "), *up = strstr(ulog, "processed ");
		bool same = kp && up && !strcmp(kp, up) && uacc == kacc && u.err == k.err;

		if (!same && !c->known)
			test_fail(__FILE__, __LINE__, "%s: kernel \"%.*s\" (%d) userbpf \"%.*s\" (%d)",
				  c->name, kp ? (int)strcspn(kp, "\n") : 0, kp ? kp : "", k.err,
				  up ? (int)strcspn(up, "\n") : 0, up ? up : "", u.err);
		if (same)
			st->agree++;
		return;
	}
	if (uacc == kacc && (uacc || (!strcmp(u.line, k.line) && u.err == k.err)) &&
	    (!(c->full_log || c->live_regs || c->prec_lines) || !strcmp(ulog, klog)))
		st->agree++;
	else if (getenv("VERIFIER_DEBUG"))
		fprintf(stderr, "--- %s kernel log:\n%s--- userbpf log:\n%s", c->name, klog, ulog);
}

void vcase_run(const struct vcase *c, struct vstats *st)
{
	vprog_run(c, c->insns, (u32)prog_len(c), st);
}

void vcase_run_table(const char *topic, const struct vcase *t, int n)
{
	struct vstats st = { 0, 0, 0, 0 };

	for (int i = 0; i < n; i++)
		vcase_run(&t[i], &st);
	if (st.kernel_ran)
		printf("verifier %s: %d cases, %d agree with the kernel (%d known differences)%s\n",
		       topic, st.cases, st.agree, st.known,
		       st.kernel_ran < st.cases ? "; some call a helper the kernel lacks: "
						  "userbpf's verdict checked only" : "");
	else
		printf("verifier %s: %d cases (kernel bpf() unavailable: differential part "
		       "skipped)\n", topic, st.cases);
}
