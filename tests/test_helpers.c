/* Helpers: the prototype table against the live kernel (which program types may call each
 * helper userbpf has, which are GPL-only), bpf_trace_printk() return values against the kernel and its
 * output in the trace stream, and the user-space semantics of the others.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

#include "btf/vmlinux.h"
#include "exec/helpers.h"
#include "kernel_probe.h"
#include "test_cgroup.h"
#include "test_prog.h"

static const u_int32_t prog_types[] = {
	BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_KPROBE, BPF_PROG_TYPE_SCHED_CLS,
	BPF_PROG_TYPE_TRACEPOINT, BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_RAW_TRACEPOINT,
	BPF_PROG_TYPE_CGROUP_SKB, BPF_PROG_TYPE_SCHED_ACT, BPF_PROG_TYPE_LWT_IN,
	BPF_PROG_TYPE_LWT_OUT, BPF_PROG_TYPE_LWT_XMIT, BPF_PROG_TYPE_CGROUP_SOCK,
	BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_PROG_TYPE_CGROUP_DEVICE,
	BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_PROG_TYPE_CGROUP_SYSCTL, BPF_PROG_TYPE_PERF_EVENT,
	BPF_PROG_TYPE_SK_LOOKUP, BPF_PROG_TYPE_SOCK_OPS, BPF_PROG_TYPE_SYSCALL,
	BPF_PROG_TYPE_SK_SKB, BPF_PROG_TYPE_SK_MSG, BPF_PROG_TYPE_TRACING,
	BPF_PROG_TYPE_SK_REUSEPORT,
};

/* Loads "call id; exit" on the kernel; what its verifier says about the call. */
static void kernel_helper_verdict(u_int32_t type, u_int32_t id, const char *license, char *log,
				  size_t log_size)
{
	struct bpf_insn insns[] = { BPF_EMIT_CALL(id), BPF_EXIT_INSN() };
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	/* (sock_addr and sockopt programs need a hook: these have the most helpers) */
	if (type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
		a.expected_attach_type = BPF_CGROUP_INET4_CONNECT;
	if (type == BPF_PROG_TYPE_CGROUP_SOCKOPT)
		a.expected_attach_type = BPF_CGROUP_SETSOCKOPT;
	if (type == BPF_PROG_TYPE_SK_LOOKUP)
		a.expected_attach_type = BPF_SK_LOOKUP;
	if (type == BPF_PROG_TYPE_SOCK_OPS)
		a.expected_attach_type = BPF_CGROUP_SOCK_OPS;
	/* (a syscall program must be sleepable) */
	if (type == BPF_PROG_TYPE_SYSCALL)
		a.prog_flags = BPF_F_SLEEPABLE;
	/* (a tracing program needs a target: a BTF tracepoint, the kind the kernel here can
	 * load) */
	if (type == BPF_PROG_TYPE_TRACING) {
		a.expected_attach_type = BPF_TRACE_RAW_TP;
		a.attach_btf_id = btf_vmlinux() ? btf_find_by_name_kind(btf_vmlinux(),
									"btf_trace_sched_switch",
									BTF_KIND_TYPEDEF) : 0;
	}
	a.insns = (uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uintptr_t)license;
	a.log_buf = (uintptr_t)log;
	a.log_size = (u_int32_t)log_size;
	a.log_level = 1;
	log[0] = 0;
	fd = kernel_bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0)
		close(fd);
}

TEST(helpers_table_vs_kernel)
{
	static char log[65536];
	int cases = 0, omitted = 0;

	REQUIRE_KERNEL();
	for (size_t t = 0; t < ARRAY_SIZE(prog_types); t++) {
		for (u_int32_t id = 1; id < 212; id++) {
			u_int32_t type = prog_types[t];
			bool implemented = false;

			/* every helper userbpf has, for some type */
			for (size_t u = 0; u < ARRAY_SIZE(prog_types) && !implemented; u++)
				implemented = bpf_helper_proto(id, prog_types[u]) != NULL;
			if (!implemented)
				continue;
			const struct bpf_func_proto *p = bpf_helper_proto(id, type);
			bool k_has, k_gpl;

			/* a syscall or tracing program's tracing forms of these take kernel BTF
			 * pointers (a struct sock, an xdp_buff), which no program here can
			 * hold: not offered */
			if ((type == BPF_PROG_TYPE_SYSCALL || type == BPF_PROG_TYPE_TRACING) &&
			    (id == BPF_FUNC_get_socket_cookie || id == BPF_FUNC_sk_storage_get ||
			     id == BPF_FUNC_sk_storage_delete || id == BPF_FUNC_xdp_get_buff_len))
				continue;

			kernel_helper_verdict(type, id, "GPL", log, sizeof(log));
			k_has = !strstr(log, "unknown func") && !strstr(log, "cannot use helper");
			cases++;
			if (!k_has && p && kernel_lacks_helper(type, id)) {
				omitted++;
				continue;
			}
			if (k_has != (p != NULL)) {
				test_fail(__FILE__, __LINE__, "type %u helper %u: kernel %s, userbpf %s",
					  type, id, k_has ? "has" : "has not", p ? "has" : "has not");
				continue;
			}
			if (!p)
				continue;
			kernel_helper_verdict(type, id, "Proprietary", log, sizeof(log));
			k_gpl = strstr(log, "GPL-restricted") != NULL;
			if (k_gpl != p->gpl_only)
				test_fail(__FILE__, __LINE__, "helper %u: gpl_only kernel %d, userbpf %d",
					  id, k_gpl, p->gpl_only);
		}
	}
	if (getenv("TEST_VERBOSE"))
		printf("helpers_table_vs_kernel: %d (type, helper) pairs, %d the kernel lacks\n",
		       cases, omitted);
	CHECK(bpf_helper_proto(BPF_FUNC_map_lookup_elem, 1000) == NULL);
	CHECK(bpf_helper_proto(100000, BPF_PROG_TYPE_XDP) == NULL);
	CHECK(bpf_helper_proto(BPF_FUNC_perf_event_read, BPF_PROG_TYPE_KPROBE) == NULL);
	CHECK(!strcmp(bpf_helper_proto(BPF_FUNC_trace_printk, BPF_PROG_TYPE_XDP)->name,
		      "bpf_trace_printk"));
}

/* ---- trace_printk ---- */

struct printk_case {
	const char *fmt; /* at most 31 bytes */
	u_int64_t a1, a2, a3;
	bool a1_str; /* a1: the address of "str" on the program's stack */
	const char *want; /* userbpf's trace message, NULL: not checked */
};

static const struct printk_case printk_cases[] = {
	{ "hello\n", 0, 0, 0, false, "hello" },
	{ "%d %u %x\n", (u_int64_t)-5, (u_int64_t)-5, 255, false, "-5 4294967291 ff" },
	{ "%ld %llu %lx", (u_int64_t)-5, 1ull << 40, 1ull << 36, false,
	  "-5 1099511627776 1000000000" },
	{ "[%5d|%-4u|%03x]", 42, 7, 10, false, "[   42|7   |00a]" },
	{ "%c%c%%", 'o', 'k', 0, false, "ok%" },
	{ "s=%s.", 0, 0, 0, true, "s=str." },
	{ "s=%s.", 0, 0, 0, false, "s=." },
	{ "%d %d %d %d", 1, 2, 3, false, NULL },	/* 4 conversions: EINVAL */
	{ "%q", 1, 0, 0, false, NULL },			/* unknown conversion */
	{ "%lld %i %X", 1, 2, 3, false, "1 2 3" },
	{ "tab\there", 0, 0, 0, false, "tab\there" },
	{ "bell\a", 0, 0, 0, false, NULL },		/* control character: EINVAL */
	{ "%pI4", 0, 0, 0, true, NULL },		/* "str\0" as an address */
	{ "%s%d", 0, 0, 0, true, NULL },		/* %s followed by a letter... no: %d */
	{ "%sx", 0, 0, 0, true, NULL },			/* %s followed by a letter */
	{ "%p", 0x1234, 0, 0, false, NULL },
	{ "", 0, 0, 0, false, "" },
};

/* A socket filter that calls bpf_trace_printk(fmt, sizeof fmt with NUL, a1, a2, a3). */
static int printk_prog(const struct side *s, const struct printk_case *c)
{
	struct bpf_insn insns[64];
	char fmt[32] = { 0 };
	u_int32_t n = 0, len = (u_int32_t)strlen(c->fmt) + 1;
	u_int64_t chunk;

	memcpy(fmt, c->fmt, len);
	for (int i = 0; i < 4; i++) {
		memcpy(&chunk, fmt + 8 * i, 8);
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_1, chunk) };

		insns[n++] = ld[0];
		insns[n++] = ld[1];
		insns[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -32 + 8 * i);
	}
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -40, 0x00727473); /* "str" */
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -36, 0);
	insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -32);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_2, len);
	if (c->a1_str) {
		insns[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_10);
		insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -40);
	} else {
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_3, c->a1) };

		insns[n++] = ld[0];
		insns[n++] = ld[1];
	}
	{
		struct bpf_insn ld[4] = { BPF_LD_IMM64(BPF_REG_4, c->a2),
					  BPF_LD_IMM64(BPF_REG_5, c->a3) };

		memcpy(insns + n, ld, sizeof(ld));
		n += 4;
	}
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_trace_printk);
	insns[n++] = BPF_EXIT_INSN();
	return prog_load_on(s, BPF_PROG_TYPE_SOCKET_FILTER, insns, n, -1);
}

static int run_retval(const struct side *s, int fd, u_int32_t *retval)
{
	static u_int8_t pkt[64] = { [12] = 0x88, [13] = 0xb5 }, out[64];
	union bpf_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = fd;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	a.test.data_out = (uintptr_t)out; /* not needed, but valgrind checks it */
	a.test.data_size_out = sizeof(out);
	rc = s->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a));
	*retval = a.test.retval;
	return rc;
}

TEST(helpers_trace_printk)
{
	bool kernel = kernel_bpf_available() && !under_valgrind();
	char buf[4096];

	userbpf_trace_read(buf, sizeof(buf)); /* drain */
	for (size_t i = 0; i < ARRAY_SIZE(printk_cases); i++) {
		const struct printk_case *c = &printk_cases[i];
		int ufd = printk_prog(&side_user, c);
		u_int32_t ur, kr;
		long n;

		REQUIRE(ufd >= 0);
		REQUIRE(run_retval(&side_user, ufd, &ur) == 0);
		close(ufd);
		n = userbpf_trace_read(buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		if (c->want) {
			const char *msg = strstr(buf, ": bpf_trace_printk: ");

			CHECK_EQ(ur, strlen(c->want) + (strchr(c->fmt, '\n') ? 1 : 0));
			if (!msg || strncmp(msg + 20, c->want, strlen(c->want)) ||
			    msg[20 + strlen(c->want)] != '\n')
				test_fail(__FILE__, __LINE__, "fmt \"%s\": trace \"%s\"", c->fmt, buf);
		}
		if (kernel) {
			int kfd = printk_prog(&side_kern, c);

			REQUIRE(kfd >= 0);
			REQUIRE(run_retval(&side_kern, kfd, &kr) == 0);
			close(kfd);
			if (kr != ur && strcmp(c->fmt, "%p")) /* %p: the kernel hashes */
				test_fail(__FILE__, __LINE__, "fmt \"%s\": retval userbpf %d, kernel %d",
					  c->fmt, (int)ur, (int)kr);
		}
	}
	CHECK_ERRNO(userbpf_trace_read(NULL, 1), EFAULT);
	CHECK_EQ(userbpf_trace_read(NULL, 0), 0);
	CHECK_ERRNO(userbpf_trace_set_fd(-2), EBADF);
}

/* The trace stream mirrored to an fd. */
TEST(helpers_trace_fd)
{
	const struct printk_case c = { "to the pipe %d", 9, 0, 0, false, NULL };
	int p[2], fd;
	u_int32_t r;
	char buf[512];
	ssize_t n;

	REQUIRE(pipe(p) == 0);
	CHECK_EQ(userbpf_trace_set_fd(p[1]), 0);
	fd = printk_prog(&side_user, &c);
	REQUIRE(fd >= 0);
	CHECK_EQ(run_retval(&side_user, fd, &r), 0);
	close(fd);
	CHECK_EQ(userbpf_trace_set_fd(-1), 0);
	n = read(p[0], buf, sizeof(buf) - 1);
	REQUIRE(n > 0);
	buf[n] = 0;
	CHECK(strstr(buf, "bpf_trace_printk: to the pipe 9\n") != NULL);
	close(p[0]);
	close(p[1]);
	userbpf_trace_read(buf, sizeof(buf));
}

/* Runs the program fd (which must have loaded) once on side s, reads the value of key 0 of its
 * map into value, and closes both. */
static void run_read_map0(const struct side *s, int fd, int map, u_int32_t *ret, void *value)
{
	u_int32_t k = 0;
	union bpf_attr a;

	REQUIRE(fd >= 0);
	CHECK_EQ(run_retval(s, fd, ret), 0);
	close(fd);
	memset(&a, 0, sizeof(a));
	a.map_fd = (u_int32_t)map;
	a.key = (uintptr_t)&k;
	a.value = (uintptr_t)value;
	CHECK_EQ(s->bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)), 0);
	close(map);
}

/* Emits at insns[n]: r8 = the value of key 0 of the map (MAP_SLOT), the key at fp + key_off;
 * exit with r0 = 0 if there is none.  Returns the new n. */
static u_int32_t emit_map0_to_r8(struct bpf_insn *insns, u_int32_t n, int key_off)
{
	struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT) };

	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, (int16_t)key_off, 0);
	insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, key_off);
	insns[n++] = ld[0];
	insns[n++] = ld[1];
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
	insns[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1);
	insns[n++] = BPF_EXIT_INSN();
	insns[n++] = BPF_MOV64_REG(BPF_REG_8, BPF_REG_0);
	return n;
}

/* ---- snprintf ---- */

/* bpf_snprintf(out + 8, size, fmt, data, 8 * nargs) by a socket filter that stores R0 in the
 * first 8 bytes of an array value: the formats and data of each case on both sides, whose
 * values (return and text) must be the same. */
struct snprintf_case {
	const char *fmt; /* at most 63 bytes */
	u_int64_t args[13];
	int nargs;
	u_int32_t size; /* of the output, at most 128 */
	u_int16_t str_args; /* bit i: args[i] is the address of "str" (a "%s", "%pks" operand) */
	u_int16_t ip_args;  /* bit i: args[i] is the address of 16 address bytes */
	const char *want;   /* userbpf's text, NULL: not checked (the kernel's must be the same) */
	long long ret;      /* its return, 0: strlen(want) + 1 */
};

static const struct snprintf_case snprintf_cases[] = {
	{ "%d %u %x", { (u_int64_t)-5, (u_int64_t)-5, 255 }, 3, 64, 0, 0, "-5 4294967291 ff", 0 },
	{ "%ld %llu %lx %lld", { (u_int64_t)-5, 1ull << 40, 1ull << 36, 7 }, 4, 64, 0, 0,
	  "-5 1099511627776 1000000000 7", 0 },
	{ "[%5d|%-4u|%03x|%0+- 7d|%-08x]", { 42, 7, 10, 3, 0xab }, 5, 64, 0, 0,
	  "[   42|7   |00a|+3     |ab      ]", 0 },
	{ "%c%c%%", { 'o', 'k' }, 2, 64, 0, 0, "ok%", 0 },
	{ "s=%s. k=%pks.", { 0, 0 }, 2, 64, 3, 0, "s=str. k=str.", 0 },
	{ "bad=%s.", { 1 }, 1, 64, 0, 0, "bad=.", 0 },
	{ "%pI4 %pi4 %pI6", { 0, 0, 0 }, 3, 128, 0, 7,
	  "192.168.1.10 192.168.001.010 c0a8:010a:0000:0000:0000:0001:0000:0000", 0 },
	{ "%pi6", { 0 }, 1, 128, 0, 1, "c0a8010a000000000000000100000000", 0 },
	{ "%d %d %d", { 1, 2, 3 }, 3, 4, 0, 0, "1 2", 6 }, /* cut to 3 bytes and the NUL */
	{ "%d %d %d", { 1, 2, 3 }, 3, 0, 0, 0, "", 6 },	   /* nothing written */
	{ "no args", { 0 }, 0, 64, 0, 0, "no args", 0 },
	{ "%d", { 1, 2 }, 2, 64, 0, 0, "1", 0 },		/* more data than conversions */
	{ "%d%d%d%d%d%d%d%d%d%d%d%d", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, 12, 64, 0, 0,
	  "123456789101112", 0 },
	{ "%d%d%d%d%d%d%d%d%d%d%d%d%d", { 1 }, 13, 64, 0, 0, "", -EINVAL }, /* 13 arguments */
	{ "%5s|%-5s|", { 0, 0 }, 2, 64, 3, 0, "  str|str  |", 0 },
};

/* The program of case c; out_fd the output map (MAP_SLOT), fmt_fd the format's frozen map. */
static int snprintf_prog(const struct side *s, const struct snprintf_case *c, int out_fd,
			 int fmt_fd)
{
	struct bpf_insn insns[96];
	u_int32_t n = 0;
	const int data = -104, str = -112, ip = -128; /* stack: 13 u64, "str", 16 bytes */

#define EMIT_LD64(reg, v)                                                                          \
	do {                                                                                       \
		struct bpf_insn ld_[2] = { BPF_LD_IMM64(reg, v) };                                 \
                                                                                                   \
		insns[n++] = ld_[0];                                                               \
		insns[n++] = ld_[1];                                                               \
	} while (0)
	insns[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, str, 0x00727473); /* "str" */
	insns[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, ip, 0x0a01a8c0);   /* 192.168.1.10, ... */
	insns[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, ip + 8, 0x01000000);
	for (int i = 0; i < 13; i++) {
		if (c->str_args & (1u << i) || c->ip_args & (1u << i)) {
			insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
			insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1,
						   c->str_args & (1u << i) ? str : ip);
		} else {
			EMIT_LD64(BPF_REG_1, c->args[i]);
		}
		insns[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, data + 8 * i);
	}
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0);
	insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4);
	{
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT) };

		insns[n++] = ld[0];
		insns[n++] = ld[1];
	}
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
	insns[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	insns[n++] = BPF_EXIT_INSN();
	insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_0);
	insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_2, c->size);
	{
		struct bpf_insn ld[2] = { BPF_LD_IMM64_RAW(BPF_REG_3, BPF_PSEUDO_MAP_VALUE, fmt_fd) };

		insns[n++] = ld[0];
		insns[n++] = ld[1];
	}
	insns[n++] = BPF_MOV64_REG(BPF_REG_4, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, data);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_5, 8 * c->nargs);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_snprintf);
	insns[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	insns[n++] = BPF_EXIT_INSN();
#undef EMIT_LD64
	return prog_load_on(s, BPF_PROG_TYPE_SOCKET_FILTER, insns, n, out_fd);
}

/* Runs case c on side s: out receives R0 (8 bytes) and the 128-byte output. */
static void snprintf_run(const struct side *s, const struct snprintf_case *c, u_int8_t *out)
{
	char fmt[64] = { 0 };
	u_int32_t key = 0, r;
	union bpf_attr a;
	int out_fd, fmt_fd, fd;

	out_fd = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 8 + 128, 1);
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = sizeof(fmt);
	a.max_entries = 1;
	a.map_flags = BPF_F_RDONLY_PROG;
	fmt_fd = s->bpf(BPF_MAP_CREATE, &a, sizeof(a));
	REQUIRE(out_fd >= 0 && fmt_fd >= 0);
	memcpy(fmt, c->fmt, strlen(c->fmt));
	memset(&a, 0, sizeof(a));
	a.map_fd = (u_int32_t)fmt_fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)fmt;
	CHECK_EQ(s->bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)), 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = (u_int32_t)fmt_fd;
	CHECK_EQ(s->bpf(BPF_MAP_FREEZE, &a, sizeof(a)), 0);
	fd = snprintf_prog(s, c, out_fd, fmt_fd);
	if (fd < 0)
		test_fail(__FILE__, __LINE__, "%s: \"%s\": load: %s", s->name, c->fmt,
			  strerror(errno));
	run_read_map0(s, fd, out_fd, &r, out);
	CHECK_EQ(r, 1);
	close(fmt_fd);
}

TEST(helpers_snprintf)
{
	bool kernel = kernel_bpf_available() && !under_valgrind();

	for (size_t i = 0; i < ARRAY_SIZE(snprintf_cases); i++) {
		const struct snprintf_case *c = &snprintf_cases[i];
		u_int8_t u[8 + 128] = { 0 }, k[8 + 128] = { 0 };
		long long ur;

		snprintf_run(&side_user, c, u);
		memcpy(&ur, u, 8);
		if (c->want) {
			CHECK_EQ(ur, c->ret ? c->ret : (long long)strlen(c->want) + 1);
			if (strcmp((const char *)u + 8, c->want))
				test_fail(__FILE__, __LINE__, "\"%s\": \"%s\", not \"%s\"", c->fmt,
					  (const char *)u + 8, c->want);
		}
		if (!kernel)
			continue;
		snprintf_run(&side_kern, c, k);
		if (memcmp(u, k, sizeof(u))) {
			long long kr;

			memcpy(&kr, k, 8);
			test_fail(__FILE__, __LINE__, "\"%s\": userbpf %lld \"%s\", kernel %lld \"%s\"",
				  c->fmt, ur, (const char *)u + 8, kr, (const char *)k + 8);
		}
	}
}

/* bpf_trace_vprintk(fmt, fmt_size, data, data_len): "v=%d %s|" with data {7, "str"}, data_len
 * len; the return value on both sides, userbpf's trace message. */
static int vprintk_prog(const struct side *s, int len)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -16, 0x64253d76),  /* "v=%d" */
		BPF_ST_MEM(BPF_W, BPF_REG_10, -12, 0x7c732520),  /* " %s|" */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0x00727473), /* "str" */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -40, 7),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -32),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
		BPF_MOV64_IMM(BPF_REG_2, 16),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -40),
		BPF_MOV64_IMM(BPF_REG_4, len),
		BPF_EMIT_CALL(BPF_FUNC_trace_vprintk),
		BPF_EXIT_INSN(),
	};

	return prog_load_on(s, BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), -1);
}

TEST(helpers_trace_vprintk)
{
	static const struct {
		int len;
		int ret; /* the message "v=7 str|" is 8 bytes */
	} t[] = { { 16, 8 }, { 12, -EINVAL }, { 8, -EINVAL }, { 0, -EINVAL } };
	bool kernel = kernel_bpf_available() && !under_valgrind();
	char buf[4096];

	userbpf_trace_read(buf, sizeof(buf)); /* drain */
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		int fd = vprintk_prog(&side_user, t[i].len);
		u_int32_t ur, kr;
		long n;

		REQUIRE(fd >= 0);
		CHECK_EQ(run_retval(&side_user, fd, &ur), 0);
		close(fd);
		CHECK_EQ((int)ur, t[i].ret);
		n = userbpf_trace_read(buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		if (t[i].ret > 0)
			CHECK(strstr(buf, ": bpf_trace_printk: v=7 str|\n") != NULL);
		else
			CHECK_EQ(n, 0);
		if (!kernel)
			continue;
		fd = vprintk_prog(&side_kern, t[i].len);
		REQUIRE(fd >= 0);
		CHECK_EQ(run_retval(&side_kern, fd, &kr), 0);
		close(fd);
		CHECK_EQ((int)kr, t[i].ret);
	}
}

/* ---- cgroups and network namespaces ---- */

#define NS_SLOTS 8

/* A program of type storing, in the 8 u64 of a one-element array's value: 0
 * get_current_cgroup_id, 1..3 get_current_ancestor_cgroup_id(0..2), 4 get_netns_cookie(ctx),
 * 5 get_netns_cookie(NULL), and for tc 6 skb_cgroup_id, 7 skb_ancestor_cgroup_id(1). */
static int ns_prog(const struct side *s, u_int32_t type, int map)
{
	struct bpf_insn insns[64];
	u_int32_t n = 0;

	insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	n = emit_map0_to_r8(insns, n, -4);
#define NS_STORE(slot) (insns[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_8, BPF_REG_0, 8 * (slot)))
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_get_current_cgroup_id);
	NS_STORE(0);
	for (int level = 0; level < 3; level++) {
		insns[n++] = BPF_MOV64_IMM(BPF_REG_1, level);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_get_current_ancestor_cgroup_id);
		NS_STORE(1 + level);
	}
	insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie);
	NS_STORE(4);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_1, 0);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_get_netns_cookie);
	NS_STORE(5);
	if (type == BPF_PROG_TYPE_SCHED_CLS) {
		insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_cgroup_id);
		NS_STORE(6);
		insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_2, 1);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_ancestor_cgroup_id);
		NS_STORE(7);
	}
#undef NS_STORE
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	insns[n++] = BPF_EXIT_INSN();
	return prog_load_on(s, type, insns, n, map);
}

/* Runs ns_prog() of type on side s; out gets the 8 slots. */
static void ns_run(const struct side *s, u_int32_t type, u_int64_t *out)
{
	int map = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 8 * NS_SLOTS, 1);
	u_int32_t r;

	REQUIRE(map >= 0);
	run_read_map0(s, ns_prog(s, type, map), map, &r, out);
}

/* Both sides from the current cgroup, for a socket filter and a tc program. */
static void ns_compare(const char *where, bool kernel)
{
	static const u_int32_t types[] = { BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_SCHED_CLS };

	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		u_int64_t u[NS_SLOTS] = { 0 }, k[NS_SLOTS] = { 0 };

		ns_run(&side_user, types[t], u);
		CHECK(u[0] != 0);
		CHECK_EQ(u[1], 1); /* the root */
		CHECK(u[4] != 0);
		if (!kernel)
			continue;
		ns_run(&side_kern, types[t], k);
		for (int i = 0; i < NS_SLOTS; i++)
			if (u[i] != k[i])
				test_fail(__FILE__, __LINE__, "%s, type %u, slot %d: userbpf %llu, "
					  "kernel %llu", where, types[t], i, (unsigned long long)u[i],
					  (unsigned long long)k[i]);
	}
}

/* The cgroup helpers and the netns cookie against the kernel's: in our cgroup, then (where
 * cgroup2 is mounted and we may) two levels down, in a cgroup made for the test. */
TEST(helpers_cgroup_netns_vs_kernel)
{
	bool kernel = kernel_bpf_available() && !under_valgrind();
	char mnt[1024], a[1200], b[1300], procs[1400], pid[32];
	u_int64_t u[NS_SLOTS] = { 0 };
	struct stat st;

	ns_compare("our cgroup", kernel);
	cgroup2_mount(mnt, sizeof(mnt));
	snprintf(a, sizeof(a), "%s/userbpf-test-%d", mnt, (int)getpid());
	snprintf(b, sizeof(b), "%s/b", a);
	if (!mnt[0] || mkdir(a, 0755)) {
		printf("  (no writable cgroup2 mount: the nested cgroup part is skipped)\n");
		return;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", b);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (mkdir(b, 0755) || write_str(procs, pid)) {
		printf("  (cannot move into a test cgroup: the nested cgroup part is skipped)\n");
		rmdir(b);
		rmdir(a);
		return;
	}
	ns_compare("a nested cgroup", kernel);
	ns_run(&side_user, BPF_PROG_TYPE_SCHED_CLS, u);
	CHECK(stat(b, &st) == 0 && u[0] == (u_int64_t)st.st_ino);
	CHECK(stat(a, &st) == 0 && u[6] != 0);
	/* back to the root (where ns_compare() found us: its ancestor check) */
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", mnt);
	CHECK_EQ(write_str(procs, pid), 0);
	CHECK_EQ(rmdir(b), 0);
	CHECK_EQ(rmdir(a), 0);
}

/* bpf_get_ns_current_pid_tgid() with our pid namespace's (dev, ino), another ino, and a wrong
 * size: the result and the pid and tgid it wrote, on both sides. */
static void pidns_run(const struct side *s, u_int64_t dev, u_int64_t ino, int size,
		      u_int32_t *ret, u_int64_t *pid_tgid)
{
	struct bpf_insn insns[] = {
		BPF_LD_IMM64(BPF_REG_1, dev),
		BPF_LD_IMM64(BPF_REG_2, ino),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_MOV64_IMM(BPF_REG_4, size),
		BPF_EMIT_CALL(BPF_FUNC_get_ns_current_pid_tgid),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -12, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -12),
		BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	int map = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1);

	REQUIRE(map >= 0);
	run_read_map0(s, prog_load_on(s, BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns), map),
		      map, ret, pid_tgid);
}

TEST(helpers_ns_current_pid_tgid)
{
	bool kernel = kernel_bpf_available() && !under_valgrind();
	struct stat st;
	static const struct {
		int ino_delta, size;
	} t[] = { { 0, 8 }, { 1, 8 }, { 0, 4 } };

	REQUIRE(stat("/proc/self/ns/pid", &st) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		u_int32_t ur, kr;
		u_int64_t u = 0, k = 0;

		pidns_run(&side_user, st.st_dev, st.st_ino + t[i].ino_delta, t[i].size, &ur, &u);
		if (!i) {
			CHECK_EQ(ur, 0);
			CHECK_EQ(u, (u_int64_t)getpid() << 32 | (u_int32_t)gettid());
		}
		if (!kernel)
			continue;
		pidns_run(&side_kern, st.st_dev, st.st_ino + t[i].ino_delta, t[i].size, &kr, &k);
		CHECK_EQ(ur, kr);
		CHECK_EQ(u, k);
	}
}

/* ---- tunnel metadata (tc) ---- */

/* A tc program: bpf_skb_set_tunnel_key() of a key on the stack (unless set_size is 0), then
 * optionally bpf_skb_set_tunnel_opt() of opt_len bytes, bpf_skb_get_tunnel_key() into a map
 * value's first 48 bytes and bpf_skb_get_tunnel_opt() into its last 16 (get_opt_size > 0);
 * r0 = set's result << 24 | opt set's << 16 | get's & 0xff << 8 | get opt's & 0xff. */
struct tun_case {
	const char *name;
	u_int32_t set_size, set_flags, get_size, get_flags;
	bool ipv6;
	u_int32_t label, opt_len, get_opt_size;
};

static int tun_prog(const struct side *s, const struct tun_case *c, int map)
{
	struct bpf_insn insns[96];
	u_int32_t n = 0;

	insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (int off = -64; off < 0; off += 8)
		insns[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, off, 0);
	/* the key at fp-48: id, remote, tos, ttl, label, local; options at fp-64 */
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -48, 0x12345678);
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -44, 0x0a000001);
	if (c->ipv6)
		insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -32, 0x01020304);
	insns[n++] = BPF_ST_MEM(BPF_B, BPF_REG_10, -28, 0x2c);
	insns[n++] = BPF_ST_MEM(BPF_B, BPF_REG_10, -27, 61);
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -24, (int32_t)c->label);
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -20, 0x0a000002);
	if (c->ipv6)
		insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0x05060708);
	insns[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -64, 0x11223344);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_7, 0);
	if (c->set_size) {
		insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -48);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_3, c->set_size);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_4, c->set_flags);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_set_tunnel_key);
		insns[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xff);
		insns[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 24);
		insns[n++] = BPF_MOV64_REG(BPF_REG_7, BPF_REG_0);
	}
	if (c->opt_len) {
		insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_3, c->opt_len);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_set_tunnel_opt);
		insns[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xff);
		insns[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 16);
		insns[n++] = BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0);
	}
	n = emit_map0_to_r8(insns, n, -68);
	insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
	insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_8);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_3, c->get_size);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_4, c->get_flags);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_get_tunnel_key);
	insns[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xff);
	insns[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8);
	insns[n++] = BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0);
	if (c->get_opt_size) {
		insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_8);
		insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 48);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_3, c->get_opt_size);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_skb_get_tunnel_opt);
		insns[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xff);
		insns[n++] = BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0);
	}
	insns[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_7);
	insns[n++] = BPF_EXIT_INSN();
	return prog_load_on(s, BPF_PROG_TYPE_SCHED_CLS, insns, n, map);
}

static void tun_run(const struct side *s, const struct tun_case *c, u_int32_t *ret,
		    u_int8_t value[64])
{
	int map = map_create_on(s, BPF_MAP_TYPE_ARRAY, 4, 64, 1);

	REQUIRE(map >= 0);
	run_read_map0(s, tun_prog(s, c, map), map, ret, value);
}

TEST(helpers_tunnel_key_vs_kernel)
{
	const u_int32_t key = sizeof(struct bpf_tunnel_key), v6 = BPF_F_TUNINFO_IPV6,
			fl = BPF_F_TUNINFO_FLAGS;
	const struct tun_case t[] = {
		/* name, set size and flags, get size and flags, IPv6, label, options, get buffer */
		{ "v4", key, 0, key, 0, false, 0, 0, 0 },
		{ "v4, flags", key, 0, key, fl, false, 0, 0, 0 },
		{ "v4, set flags", key, BPF_F_DONT_FRAGMENT | BPF_F_SEQ_NUMBER | BPF_F_ZERO_CSUM_TX,
		  key, fl, false, 0, 0, 0 },
		{ "no key set", 0, 0, key, 0, false, 0, 0, 0 },
		{ "v4 set, v6 get", key, 0, key, v6, false, 0, 0, 0 },
		{ "v6", key, v6, key, v6 | fl, true, 0x123456, 0, 0 },
		{ "v6 set, v4 get", key, v6, key, 0, true, 0, 0, 0 },
		{ "v4 with a label", key, 0, key, 0, false, 5, 0, 0 },
		{ "v4 set, get 8 bytes", key, 0, 8, 0, false, 0, 0, 0 },
		{ "v4 set, get 24 bytes", key, 0, 24, 0, false, 0, 0, 0 },
		{ "v6 set, get 8 bytes", key, v6, 8, v6, true, 0, 0, 0 },
		{ "get 30 bytes", key, 0, 30, 0, false, 0, 0, 0 },
		{ "set 28 bytes", 28, 0, key, 0, false, 0, 0, 0 },
		{ "set 30 bytes", 30, 0, key, 0, false, 0, 0, 0 },
		{ "set unknown flag", key, 1 << 5, key, 0, false, 0, 0, 0 },
		{ "get unknown flag", key, 0, key, 1 << 6, false, 0, 0, 0 },
		{ "options", key, 0, key, fl, false, 0, 8, 16 },
		{ "options, small buffer", key, 0, key, 0, false, 0, 8, 4 },
		{ "no options", key, 0, key, 0, false, 0, 0, 16 },
		{ "options without a key", 0, 0, key, 0, false, 0, 8, 16 },
		{ "options of 6 bytes", key, 0, key, 0, false, 0, 6, 16 },
		{ "options, the key without flags", key, 0, key, 0, false, 0, 8, 16 },
		{ "options set, not read", key, 0, key, fl, false, 0, 8, 0 },
		{ "options of 4 bytes", key, 0, key, 0, false, 0, 4, 16 },
	};
	bool kernel = kernel_bpf_available() && !under_valgrind();

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		u_int8_t u[64], k[64];
		u_int32_t ur, kr;

		tun_run(&side_user, &t[i], &ur, u);
		if (i == 0) { /* set then get: the remote address comes back as the local one */
			struct bpf_tunnel_key got;

			memcpy(&got, u, sizeof(got));
			CHECK_EQ(ur, 0);
			CHECK_EQ(got.tunnel_id, 0x12345678);
			CHECK_EQ(got.remote_ipv4, 0x0a000002);
			CHECK_EQ(got.local_ipv4, 0x0a000001);
			CHECK_EQ(got.tunnel_ttl, 61);
		}
		if (!kernel)
			continue;
		tun_run(&side_kern, &t[i], &kr, k);
		if (ur != kr || memcmp(u, k, sizeof(u)))
			test_fail(__FILE__, __LINE__, "%s: userbpf %#x, kernel %#x%s", t[i].name, ur, kr,
				  memcmp(u, k, sizeof(u)) ? " (and the bytes differ)" : "");
	}
}

/* bpf_get_hash_recalc(): nonzero and stable within a run, and bpf_set_hash()'s value once set
 * (its values themselves are each kernel's own: only these properties are compared). */
TEST(helpers_get_hash_recalc)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_EMIT_CALL(BPF_FUNC_get_hash_recalc),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_EMIT_CALL(BPF_FUNC_get_hash_recalc),
		BPF_MOV64_IMM(BPF_REG_8, 0),
		BPF_JMP_REG(BPF_JNE, BPF_REG_0, BPF_REG_7, 2),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_MOV64_IMM(BPF_REG_8, 1),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 77),
		BPF_EMIT_CALL(BPF_FUNC_set_hash),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_EMIT_CALL(BPF_FUNC_get_hash_recalc),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 77, 1),
		BPF_ALU64_IMM(BPF_OR, BPF_REG_8, 2),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_8),
		BPF_EXIT_INSN(),
	};
	bool kernel = kernel_bpf_available() && !under_valgrind();
	const struct side *sides[] = { &side_user, &side_kern };

	for (int i = 0; i < (kernel ? 2 : 1); i++) {
		int fd = prog_load_on(sides[i], BPF_PROG_TYPE_SCHED_CLS, insns, ARRAY_SIZE(insns), -1);
		u_int32_t r;

		REQUIRE(fd >= 0);
		CHECK_EQ(run_retval(sides[i], fd, &r), 0);
		CHECK_EQ(r, 3);
		close(fd);
	}
}

/* bpf_send_signal() and bpf_send_signal_thread(): the signal reaches us (the runner), 0; an
 * invalid number is -EINVAL. */
static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	usr1_seen++;
}

TEST(helpers_send_signal)
{
	bool kernel = kernel_bpf_available() && !under_valgrind();
	const struct side *sides[] = { &side_user, &side_kern };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	REQUIRE(sigaction(SIGUSR1, &sa, &old) == 0);
	for (int i = 0; i < (kernel ? 2 : 1); i++) {
		static const struct {
			int helper, sig, ret, seen;
		} t[] = {
			{ BPF_FUNC_send_signal, SIGUSR1, 0, 1 },
			{ BPF_FUNC_send_signal_thread, SIGUSR1, 0, 1 },
			{ BPF_FUNC_send_signal, 0, 0, 0 },
			{ BPF_FUNC_send_signal, 65, -EINVAL, 0 },
		};

		for (size_t k = 0; k < ARRAY_SIZE(t); k++) {
			struct bpf_insn insns[] = {
				BPF_MOV64_IMM(BPF_REG_1, t[k].sig),
				BPF_EMIT_CALL(t[k].helper),
				BPF_EXIT_INSN(),
			};
			int fd = prog_load_on(sides[i], BPF_PROG_TYPE_SOCKET_FILTER, insns,
					      ARRAY_SIZE(insns), -1);
			u_int32_t r;

			REQUIRE(fd >= 0);
			usr1_seen = 0;
			CHECK_EQ(run_retval(sides[i], fd, &r), 0);
			close(fd);
			CHECK_EQ((int)r, t[k].ret);
			for (int wait = 0; wait < 1000 && usr1_seen < t[k].seen; wait++)
				usleep(1000); /* (the kernel's may come a little later) */
			CHECK_EQ(usr1_seen, t[k].seen);
		}
	}
	sigaction(SIGUSR1, &old, NULL);
}

/* ---- the others, called directly through the table ---- */

static u_int64_t call(u_int32_t id, u_int32_t type, u_int64_t r1, u_int64_t r2, u_int64_t r3)
{
	return bpf_helper_proto(id, type)->func(r1, r2, r3, 0, 0);
}

TEST(helpers_current_task_time)
{
	const u_int32_t KP = BPF_PROG_TYPE_KPROBE;
	struct timespec ts;
	char comm[16], name[17] = { 0 };
	u_int64_t v, t0, t1;

	v = call(BPF_FUNC_get_current_pid_tgid, KP, 0, 0, 0);
	CHECK_EQ(v >> 32, getpid());
	CHECK_EQ((u_int32_t)v, gettid());
	v = call(BPF_FUNC_get_current_uid_gid, KP, 0, 0, 0);
	CHECK_EQ(v >> 32, getgid());
	CHECK_EQ((u_int32_t)v, getuid());

	prctl(PR_GET_NAME, name, 0, 0, 0);
	memset(comm, 'x', sizeof(comm));
	CHECK_EQ(call(BPF_FUNC_get_current_comm, KP, (uintptr_t)comm, sizeof(comm), 0), 0);
	CHECK(!strcmp(comm, name));
	CHECK_EQ(comm[15], 0);
	memset(comm, 'x', sizeof(comm));
	CHECK_EQ(call(BPF_FUNC_get_current_comm, KP, (uintptr_t)comm, 3, 0), 0);
	CHECK(!memcmp(comm, name, 2) && comm[2] == 0 && comm[3] == 'x');

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (u_int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	t1 = call(BPF_FUNC_ktime_get_ns, KP, 0, 0, 0);
	CHECK(t1 >= t0 && t1 - t0 < 1000000000);
	CHECK(call(BPF_FUNC_ktime_get_boot_ns, KP, 0, 0, 0) >= t1 - 1000000000);

	v = call(BPF_FUNC_get_prandom_u32, KP, 0, 0, 0);
	CHECK(v <= 0xffffffffu);
	int same = 0;
	for (int i = 0; i < 16; i++)
		same += call(BPF_FUNC_get_prandom_u32, KP, 0, 0, 0) == v;
	CHECK(same < 2);
	CHECK(call(BPF_FUNC_get_smp_processor_id, KP, 0, 0, 0) < 4096);
}

TEST(helpers_probe_read)
{
	const u_int32_t KP = BPF_PROG_TYPE_KPROBE;
	u_int64_t src = 0x1122334455667788ull, dst = 0;
	char buf[8];

	CHECK_EQ(call(BPF_FUNC_probe_read_kernel, KP, (uintptr_t)&dst, 8, (uintptr_t)&src), 0);
	CHECK_EQ(dst, src);
	dst = 0;
	CHECK_EQ(call(BPF_FUNC_probe_read_user, KP, (uintptr_t)&dst, 4, (uintptr_t)&src), 0);
	CHECK_EQ(dst, 0x55667788u);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ((int64_t)call(BPF_FUNC_probe_read_user, KP, (uintptr_t)buf, 8, 0), -EFAULT);
	CHECK_EQ(buf[0], 0);
	CHECK_EQ(buf[7], 0);
	/* an address the kernel would not read (below 64 KiB here): -ERANGE, whatever the size
	 * (test_diff_probe_read.c compares these with the kernel) */
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ((int64_t)call(BPF_FUNC_probe_read_kernel, KP, (uintptr_t)buf, 8, 8), -ERANGE);
	CHECK_EQ(buf[3], 0);
	CHECK_EQ((int64_t)call(BPF_FUNC_probe_read_kernel, KP, (uintptr_t)buf, 0, 0), -ERANGE);
	CHECK_EQ(call(BPF_FUNC_probe_read_kernel, KP, (uintptr_t)buf, 0, (uintptr_t)&src), 0);
}

TEST(helpers_probe_read_str)
{
	const u_int32_t KP = BPF_PROG_TYPE_KPROBE;
	const char *s = "hello";
	char buf[8];
	u_int64_t v = 0x0102030405060708ull, out = 0;

	/* the legacy probe read is probe_read_kernel */
	CHECK_EQ(call(BPF_FUNC_probe_read, KP, (uintptr_t)&out, 8, (uintptr_t)&v), 0);
	CHECK_EQ(out, v);
	/* the length with the NUL; a long string is cut to size - 1 and terminated */
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(call(BPF_FUNC_probe_read_str, KP, (uintptr_t)buf, 8, (uintptr_t)s), 6);
	CHECK(!strcmp(buf, "hello"));
	CHECK_EQ(buf[6], 'x');
	CHECK_EQ(call(BPF_FUNC_probe_read_kernel_str, KP, (uintptr_t)buf, 4, (uintptr_t)s), 4);
	CHECK(!strcmp(buf, "hel"));
	CHECK_EQ(call(BPF_FUNC_probe_read_user_str, KP, (uintptr_t)buf, 0, (uintptr_t)s), 0);
	/* a fault: -EFAULT and the buffer zeroed */
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ((int64_t)call(BPF_FUNC_probe_read_user_str, KP, (uintptr_t)buf, 8, 0), -EFAULT);
	CHECK_EQ(buf[0], 0);
	CHECK_EQ(buf[7], 0);
}

TEST(helpers_numa_coarse_clock)
{
	struct timespec a, b;
	u_int64_t t;

	CHECK(call(BPF_FUNC_get_numa_node_id, BPF_PROG_TYPE_XDP, 0, 0, 0) < 1024);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &a);
	t = call(BPF_FUNC_ktime_get_coarse_ns, BPF_PROG_TYPE_XDP, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &b);
	CHECK(t >= (u_int64_t)a.tv_sec * 1000000000u + (u_int64_t)a.tv_nsec);
	CHECK(t <= (u_int64_t)b.tv_sec * 1000000000u + (u_int64_t)b.tv_nsec);
}

/* bpf_get_branch_snapshot(): no last-branch records for a program here (userbpf runs in user
 * space; this machine's kernel has no LBR either): -ENOENT with the buffer untouched, -EINVAL
 * for flags; a socket filter's run returns the result's low half and the buffer's first word. */
TEST(helpers_branch_snapshot_vs_kernel)
{
	static const struct { u_int32_t size; int flags; } cases[] = { { 16, 0 }, { 0, 0 },
									{ 16, 1 }, { 24, 0 } };
	const struct side *sides[2] = { &side_kern, &side_user };

	REQUIRE_KERNEL();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bpf_insn insns[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -24, 0x5a5a),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24),
			BPF_MOV64_IMM(BPF_REG_2, (int32_t)cases[i].size),
			BPF_MOV64_IMM(BPF_REG_3, cases[i].flags),
			BPF_EMIT_CALL(BPF_FUNC_get_branch_snapshot),
			BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
			BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -24),
			BPF_ALU64_IMM(BPF_LSH, BPF_REG_1, 16),
			BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
			BPF_EXIT_INSN(),
		};
		u_int32_t ret[2] = { 0, 0 };

		for (int s = 0; s < 2; s++) {
			int fd = prog_load_on(sides[s], BPF_PROG_TYPE_SOCKET_FILTER, insns,
					      ARRAY_SIZE(insns), -1);

			REQUIRE(fd >= 0);
			CHECK_EQ(run_retval(sides[s], fd, &ret[s]), 0);
			close(fd);
		}
		/* (a kernel on a CPU with LBR records branches: nothing to compare then) */
		if ((int16_t)(ret[0] & 0xffff) > 0)
			continue;
		CHECK_EQ(ret[1], ret[0]);
		CHECK_EQ(ret[0], (u_int32_t)(0x5a5a << 16 | (cases[i].flags ? 0xffea : 0xfffe)));
	}
}

/* bpf_get_attach_cookie(): the kernel's raw tracepoint test run has no link, so no cookie (0),
 * and neither has userbpf's; a raw tracepoint program returning it gives the same value on
 * both (its availability per program type: helpers_table_vs_kernel). */
TEST(helpers_attach_cookie_vs_kernel)
{
	const struct bpf_insn insns[] = {
		BPF_EMIT_CALL(BPF_FUNC_get_attach_cookie),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	const struct side *sides[2] = { &side_kern, &side_user };
	u_int64_t args[2] = { 1, 2 };
	u_int32_t ret[2] = { 0, 0 };

	REQUIRE_KERNEL();
	for (int s = 0; s < 2; s++) {
		int fd = prog_load_on(sides[s], BPF_PROG_TYPE_RAW_TRACEPOINT, insns, 3, -1);
		union bpf_attr a;

		REQUIRE(fd >= 0);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (u_int32_t)fd;
		a.test.ctx_in = (uintptr_t)args;
		a.test.ctx_size_in = sizeof(args);
		CHECK_EQ(sides[s]->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
		ret[s] = a.test.retval;
		close(fd);
	}
	CHECK_EQ(ret[0], 7u);
	CHECK_EQ(ret[1], ret[0]);
}
