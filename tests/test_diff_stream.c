/* Programs' standard streams (6.17+): the kfunc bpf_stream_vprintk_impl() (libbpf's
 * bpf_stream_printk()) and BPF_PROG_STREAM_READ_BY_FD.
 *
 * diff_stream_verifier: programs calling the kfunc (its format a __str constant, its last
 * argument a __prog one the verifier lets anything through for) give the kernel's verdict and
 * whole level-2 log, map addresses aside.
 * diff_stream_runs: the kfunc's results (bad stream ids, lengths, formats, empty messages) and
 * the read command's (ids, fds, attr tails, empty streams) are the kernel's.  Where the kernel
 * keeps a message, the text read back must be its; where it cannot (the kernel on this
 * project's machines fails every non-empty message with -ENOMEM: its stream allocator gets no
 * page there), userbpf's text must be what the kernel's bpf_snprintf() makes of the same format
 * and arguments.
 * stream_reads: userbpf alone, what the kernel's source says a stream does: messages in order,
 * partial reads, the capacity, the 1024-byte limit, faults, both engines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define CMD_STREAM_READ 37
#define VSIZE 256

/* The formats, at their offsets in the read-only map's value. */
enum {
	F_HELLO = 0,	/* "hello %d\n" */
	F_EMPTY = 16,	/* "" */
	F_STR = 24,	/* "%s" */
	F_BAD = 32,	/* "%q" */
	F_MANY = 40,	/* integers of every size and form */
	F_TWO = 100,	/* "%s and %s\n" */
	F_WIDE = 120,	/* "%01023d" */
	F_WIDER = 128,	/* "%01024d" */
	F_WIDEST = 136,	/* "%01025d" */
	F_UNTERMINATED = 240, /* 16 'x' to the value's end */
};

static void fill_formats(uint8_t *v)
{
	memset(v, 0, VSIZE);
	strcpy((char *)v + F_HELLO, "hello %d\n");
	strcpy((char *)v + F_STR, "%s");
	strcpy((char *)v + F_BAD, "%q");
	strcpy((char *)v + F_MANY, "%d %u %x %lld %llx %c|%5d|%-4d|%i\n");
	strcpy((char *)v + F_TWO, "%s and %s\n");
	strcpy((char *)v + F_WIDE, "%01023d");
	strcpy((char *)v + F_WIDER, "%01024d");
	strcpy((char *)v + F_WIDEST, "%01025d");
	memset(v + F_UNTERMINATED, 'x', VSIZE - F_UNTERMINATED);
}

/* The maps of a side: the formats read-only and frozen; the same not frozen; frozen but
 * writable by programs. */
struct side_maps {
	int fmt, unfrozen, writable;
};

static int map_with_formats(int s, uint32_t flags, bool freeze)
{
	uint8_t v[VSIZE];
	union bpf_attr a;
	int fd = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, VSIZE, 1, flags).rc, key = 0;

	if (fd < 0)
		return fd;
	fill_formats(v);
	if (side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &key, v, 0).rc)
		return -1;
	if (freeze) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)fd;
		if (side_call(s, BPF_MAP_FREEZE, &a).rc)
			return -1;
	}
	return fd;
}

static bool side_maps_make(struct side_maps m[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		m[s].fmt = map_with_formats(s, BPF_F_RDONLY_PROG, true);
		m[s].unfrozen = map_with_formats(s, BPF_F_RDONLY_PROG, false);
		m[s].writable = map_with_formats(s, 0, true);
		if (m[s].fmt < 0 || m[s].unfrozen < 0 || m[s].writable < 0)
			return false;
	}
	return true;
}

static void side_maps_close(const struct side_maps m[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		close(m[s].fmt);
		close(m[s].unfrozen);
		close(m[s].writable);
	}
}

/* Placeholders of the programs' tables: the kfunc's id, the maps (on each side its own). */
#define KFUNC PLACEHOLDER(0)
#define FMT_MAP PLACEHOLDER(1)
#define UNFROZEN_MAP PLACEHOLDER(2)
#define WRITABLE_MAP PLACEHOLDER(3)
#define CALL BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, KFUNC)
#define FMT(reg, map, off) BPF_LD_MAP_VALUE(reg, map, off)
/* r3 = fp - 96, the args array: its slots 0..11 at fp-96 .. fp-8 */
#define ARGS BPF_MOV64_REG(BPF_REG_3, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -96)
#define SLOT(i, v) BPF_ST_MEM(BPF_DW, BPF_REG_10, -96 + 8 * (i), v)
#define ZERO_SLOTS                                                                               \
	BPF_MOV64_IMM(BPF_REG_0, 0), BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -96),           \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -88),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -80),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -72),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -64),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -56),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -48),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -40),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -32),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -24),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -16),                                 \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -8)
/* the usual call: stream id, format at off of the read-only map, n u64 arguments */
#define PRINT(id, off, n)                                                                        \
	BPF_MOV64_IMM(BPF_REG_1, id), FMT(BPF_REG_2, FMT_MAP, off), ARGS,                        \
		BPF_MOV64_IMM(BPF_REG_4, 8 * (n)), CALL
#define RET BPF_EXIT_INSN()

struct prog_case {
	const char *name;
	struct bpf_insn insns[40];
};

static const struct prog_case verifier_cases[] = {
	{ "hello", { ZERO_SLOTS, SLOT(0, 42), PRINT(1, F_HELLO, 1), RET } },
	/* r5 is never checked: unset, a number, a pointer */
	{ "prog_arg_number", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_5, 7), PRINT(2, F_HELLO, 1),
	  RET } },
	{ "prog_arg_pointer", { ZERO_SLOTS, BPF_MOV64_REG(BPF_REG_5, BPF_REG_10),
	  PRINT(1, F_HELLO, 1), RET } },
	{ "no_args", { BPF_MOV64_IMM(BPF_REG_1, 1), FMT(BPF_REG_2, FMT_MAP, F_EMPTY), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "twelve_args", { ZERO_SLOTS, PRINT(1, F_MANY, 12), RET } },
	{ "format_offset_end", { ZERO_SLOTS, PRINT(1, F_UNTERMINATED - 1, 0), RET } },
	{ "stream_id_unknown", { ZERO_SLOTS, BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
	  BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), FMT(BPF_REG_2, FMT_MAP, F_HELLO), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 8), CALL, RET } },
	/* refusals */
	{ "format_on_stack", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_1, 1),
	  BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "format_in_ctx", { ZERO_SLOTS, BPF_MOV64_REG(BPF_REG_2, BPF_REG_1),
	  BPF_MOV64_IMM(BPF_REG_1, 1), ARGS, BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "format_in_ctx_offset", { ZERO_SLOTS, BPF_MOV64_REG(BPF_REG_2, BPF_REG_1),
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 4), BPF_MOV64_IMM(BPF_REG_1, 1), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "format_null", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 0),
	  ARGS, BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "format_number", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_1, 1),
	  BPF_MOV64_IMM(BPF_REG_2, 4096), ARGS, BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "format_not_frozen", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_1, 1),
	  FMT(BPF_REG_2, UNFROZEN_MAP, F_HELLO), ARGS, BPF_MOV64_IMM(BPF_REG_4, 8), CALL,
	  RET } },
	{ "format_writable", { ZERO_SLOTS, BPF_MOV64_IMM(BPF_REG_1, 1),
	  FMT(BPF_REG_2, WRITABLE_MAP, F_HELLO), ARGS, BPF_MOV64_IMM(BPF_REG_4, 8), CALL,
	  RET } },
	{ "format_unterminated", { ZERO_SLOTS, PRINT(1, F_UNTERMINATED, 0), RET } },
	{ "format_variable_offset", { ZERO_SLOTS, BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
	  BPF_ALU64_IMM(BPF_AND, BPF_REG_6, 8), BPF_MOV64_IMM(BPF_REG_1, 1),
	  FMT(BPF_REG_2, FMT_MAP, F_HELLO), BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_6), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 8), CALL, RET } },
	{ "format_past_value", { ZERO_SLOTS, PRINT(1, VSIZE, 0), RET } },
	{ "args_null", { BPF_MOV64_IMM(BPF_REG_1, 1), FMT(BPF_REG_2, FMT_MAP, F_EMPTY),
	  BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0), CALL, RET } },
	{ "args_uninit", { BPF_MOV64_IMM(BPF_REG_1, 1), FMT(BPF_REG_2, FMT_MAP, F_HELLO), ARGS,
	  BPF_MOV64_IMM(BPF_REG_4, 8), CALL, RET } },
	{ "args_past_stack", { ZERO_SLOTS, PRINT(1, F_HELLO, 13), RET } },
	{ "len_unknown", { ZERO_SLOTS, BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
	  BPF_MOV64_IMM(BPF_REG_1, 1), FMT(BPF_REG_2, FMT_MAP, F_HELLO), ARGS,
	  BPF_MOV64_REG(BPF_REG_4, BPF_REG_6), CALL, RET } },
	{ "stream_id_pointer", { ZERO_SLOTS, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	  FMT(BPF_REG_2, FMT_MAP, F_HELLO), ARGS, BPF_MOV64_IMM(BPF_REG_4, 8), CALL, RET } },
	{ "r0_is_scalar", { ZERO_SLOTS, PRINT(1, F_HELLO, 1), BPF_LDX_MEM(BPF_W, BPF_REG_0,
	  BPF_REG_0, 0), RET } },
};

/* The kernel's BTF id of the kfunc, or 0 (the test skips). */
static int32_t kfunc_id(void)
{
	const struct btf *btf = btf_vmlinux();

	return btf ? (int32_t)btf_find_func(btf, "bpf_stream_vprintk_impl") : 0;
}

/* The case's program for side s: its placeholders filled. */
static uint32_t side_insns(const struct prog_case *c, int s, const struct side_maps *m,
			   int32_t id, struct bpf_insn *p)
{
	int32_t vals[4] = { id, m->fmt, m->unfrozen, m->writable };
	uint32_t n = insns_used(c->insns, 40);

	memcpy(p, c->insns, sizeof(c->insns));
	fill_placeholders(p, n, vals, 4);
	for (uint32_t i = 0; i + 1 < n; i++) /* (map fds are imm of LD_IMM64s) */
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    p[i].src_reg == BPF_PSEUDO_MAP_VALUE && p[i].imm <= PLACEHOLDER(3))
			p[i].imm = vals[p[i].imm - PLACEHOLDER(0)];
	(void)s;
	return n;
}

static bool kernel_has_streams(int32_t *id)
{
	*id = kfunc_id();
	return *id > 0;
}

TEST(diff_stream_verifier)
{
	static char log[NSIDES][32768];
	struct side_maps m[NSIDES];
	int32_t id;
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!kernel_has_streams(&id))
		SKIP("no bpf_stream_vprintk_impl in the kernel's BTF (Linux 6.18+)");
	REQUIRE(side_maps_make(m));
	for (size_t c = 0; c < sizeof(verifier_cases) / sizeof(*verifier_cases); c++) {
		struct bpf_insn p[40];
		struct bpf_result r[NSIDES];
		uint32_t n = 0;

		for (int s = 0; s < NSIDES; s++) {
			n = side_insns(&verifier_cases[c], s, &m[s], id, p);
			r[s] = side_prog_load_level(s, BPF_PROG_TYPE_SOCKET_FILTER, 0, p, n, log[s],
						    sizeof(log[s]), 2);
			log_cut_map_addrs(log[s]);
		}
		if (AGREE(verifier_cases[c].name, r))
			LOGS_SAME(verifier_cases[c].name, log[K], log[U]);
		if (getenv("TEST_VERBOSE") && r[K].rc < 0)
			printf("  %s: %s\n", verifier_cases[c].name, log_error_line(log[K]) ?: "?");
		accepted += r[K].rc >= 0;
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	side_maps_close(m);
	printf("diff_stream_verifier: %zu programs (%d accepted) with the kernel's verdicts and "
	       "level-2 logs\n", sizeof(verifier_cases) / sizeof(*verifier_cases), accepted);
	/* (args_uninit too: a privileged load may read stack it never wrote) */
	CHECK_EQ(accepted, 8);
}

/* An argument of a run case: a number, or (ptr) the address of the format map's value at v. */
struct run_arg {
	bool ptr;
	uint64_t v;
};

struct run_case {
	const char *name;
	uint64_t id;		/* the stream id (64 bits: the kfunc takes an int) */
	int fmt;		/* the format's offset */
	uint32_t len;		/* len__sz */
	int nargs;
	struct run_arg args[12];
	int args_off;		/* where the args are, from fp (0: -96) */
};

static const struct run_case run_cases[] = {
	{ "hello", 1, F_HELLO, 8, 1, { { false, 42 } }, 0 },
	{ "stderr", 2, F_HELLO, 8, 1, { { false, (uint64_t)-7 } }, 0 },
	{ "id_upper_bits", 0x100000002ull, F_HELLO, 8, 1, { { false, 1 } }, 0 },
	{ "id_zero", 0, F_HELLO, 8, 1, { { false, 1 } }, 0 },
	{ "id_three", 3, F_HELLO, 8, 1, { { false, 1 } }, 0 },
	{ "id_minus_one", (uint64_t)-1, F_HELLO, 8, 1, { { false, 1 } }, 0 },
	{ "len_seven", 1, F_HELLO, 7, 1, { { false, 1 } }, 0 },
	{ "len_104", 1, F_HELLO, 104, 0, { { false, 0 } }, -128 },
	{ "len_96", 1, F_MANY, 96, 12, { { false, 1 } }, 0 },
	{ "bad_format", 1, F_BAD, 8, 1, { { false, 1 } }, 0 },
	{ "too_few_args", 1, F_TWO, 8, 1, { { true, F_HELLO } }, 0 },
	{ "empty", 1, F_EMPTY, 0, 0, { { false, 0 } }, 0 },
	{ "empty_stderr", 2, F_EMPTY, 8, 1, { { false, 5 } }, 0 },
	{ "string_null", 1, F_STR, 8, 1, { { false, 0 } }, 0 },
	{ "string_small_number", 1, F_STR, 8, 1, { { false, 42 } }, 0 },
	{ "many", 1, F_MANY, 72, 9, { { false, (uint64_t)-5 }, { false, 4000000000u },
	  { false, 0xbeef }, { false, (uint64_t)-1 }, { false, 0x123456789abcdefull },
	  { false, 'A' }, { false, 42 }, { false, 7 }, { false, (uint64_t)-9 } }, 0 },
	{ "strings", 1, F_TWO, 16, 2, { { true, F_HELLO }, { true, F_MANY } }, 0 },
	{ "wide_1023", 1, F_WIDE, 8, 1, { { false, 5 } }, 0 },
	{ "wide_1024", 2, F_WIDER, 8, 1, { { false, 6 } }, 0 },
	{ "wide_1025", 1, F_WIDEST, 8, 1, { { false, 7 } }, 0 },
};

/* Stores the case's arguments at its args offset, r3 pointing at them, then loads r4 and
 * *tail: the instructions so far. */
static uint32_t store_args(const struct run_case *c, int fmt_map, struct bpf_insn *p)
{
	int off = c->args_off ? c->args_off : -96;
	uint32_t n = 0;

	for (int i = 0; i < c->nargs; i++) {
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_0, c->args[i].v) };

		if (c->args[i].ptr) {
			struct bpf_insn mv[2] = { BPF_LD_MAP_VALUE(BPF_REG_0, fmt_map,
								  (int)c->args[i].v) };

			memcpy(ld, mv, sizeof(ld));
		}
		p[n++] = ld[0];
		p[n++] = ld[1];
		p[n++] = (struct bpf_insn)BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, off + 8 * i);
	}
	return n;
}

/* The case's call of the kfunc (the program returns its result). */
static uint32_t print_prog(const struct run_case *c, int fmt_map, int32_t kfunc,
			   struct bpf_insn *p)
{
	uint32_t n = store_args(c, fmt_map, p);
	struct bpf_insn tail[] = {
		BPF_LD_IMM64(BPF_REG_1, c->id),
		BPF_LD_MAP_VALUE(BPF_REG_2, fmt_map, c->fmt),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, c->args_off ? c->args_off : -96),
		BPF_MOV64_IMM(BPF_REG_4, (int32_t)c->len),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc),
		BPF_EXIT_INSN(),
	};

	memcpy(p + n, tail, sizeof(tail));
	return n + (uint32_t)(sizeof(tail) / sizeof(*tail));
}

/* The kernel's bpf_snprintf() of the case's format and arguments into out_map's value. */
static uint32_t snprintf_prog(const struct run_case *c, int fmt_map, int out_map,
			      struct bpf_insn *p)
{
	uint32_t n = store_args(c, fmt_map, p);
	struct bpf_insn tail[] = {
		BPF_LD_MAP_VALUE(BPF_REG_1, out_map, 0),
		BPF_MOV64_IMM(BPF_REG_2, 1100),
		BPF_LD_MAP_VALUE(BPF_REG_3, fmt_map, c->fmt),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, c->args_off ? c->args_off : -96),
		BPF_MOV64_IMM(BPF_REG_5, (int32_t)c->len),
		BPF_EMIT_CALL(BPF_FUNC_snprintf),
		BPF_EXIT_INSN(),
	};

	memcpy(p + n, tail, sizeof(tail));
	return n + (uint32_t)(sizeof(tail) / sizeof(*tail));
}

/* BPF_PROG_STREAM_READ_BY_FD on side s with a size of attr. */
static struct bpf_result side_stream_read_size(int s, int prog, uint32_t id, void *buf,
					       uint32_t len, uint32_t tail, unsigned int size)
{
	uint32_t a[40];

	memset(a, 0, sizeof(a));
	memcpy(a, &(uint64_t){ PTR_TO_U64(buf) }, 8);
	a[2] = len;
	a[3] = id;
	a[4] = (uint32_t)prog;
	a[5] = tail;
	return backend_call(diff_sides[s], CMD_STREAM_READ, a, size);
}

static struct bpf_result side_stream_read(int s, int prog, uint32_t id, void *buf, uint32_t len)
{
	return side_stream_read_size(s, prog, id, buf, len, 0, 160);
}

/* One test run of side s's program on a 64-byte packet: its return value. */
static int32_t run_once(int s, int fd)
{
	static const uint8_t pkt[64];
	uint32_t ret = 0xdeadbeef;

	if (side_test_run(s, fd, pkt, sizeof(pkt), &ret).rc)
		return INT32_MIN;
	return (int32_t)ret;
}

/* Whether a stream's message (n bytes at text) is what formatting gave (len bytes at out): the
 * stream's 1024-byte buffer keeps 1023 of them and its NUL at 1024; beyond, nothing. */
static bool stream_text_is(const char *text, int n, const char *out, int len)
{
	if (len > 1024)
		return false;
	if (len == 1024)
		return n == 1024 && !memcmp(text, out, 1023) && !text[1023];
	return n == len && !memcmp(text, out, (size_t)len);
}

/* Whether the kernel's bpf_snprintf() of case c (its format in fmt_map, the text into
 * out_map's value) makes userbpf's message, the u_len bytes at u_text (a failure otherwise). */
static bool snprintf_agrees(const struct run_case *c, int fmt_map, int out_map,
			    const char *u_text, int u_len)
{
	static char out[2048];
	struct bpf_insn p[64];
	uint32_t n = snprintf_prog(c, fmt_map, out_map, p);
	int fd = side_prog_load(K, BPF_PROG_TYPE_SOCKET_FILTER, p, n), key = 0;
	int32_t len = fd >= 0 ? run_once(K, fd) - 1 : -1; /* (it counts the NUL) */
	bool same = false;

	memset(out, 0, sizeof(out));
	if (len < 0 || side_elem(K, BPF_MAP_LOOKUP_ELEM, out_map, &key, out, 0).rc)
		test_fail(__FILE__, __LINE__, "%s: no bpf_snprintf() of it", c->name);
	else if (!(same = stream_text_is(u_text, u_len, out, len)))
		test_fail(__FILE__, __LINE__, "%s: userbpf's text [%.*s], bpf_snprintf()'s [%.*s]",
			  c->name, u_len, u_text, len, out);
	if (fd >= 0)
		close(fd);
	return same;
}

TEST(diff_stream_runs)
{
	static char k_text[2048], u_text[2048];
	struct side_maps m[NSIDES];
	int32_t id;
	int out_map, compared = 0, texts = 0, calls = 0, s;
	struct bpf_result r[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	if (!kernel_has_streams(&id))
		SKIP("no bpf_stream_vprintk_impl in the kernel's BTF (Linux 6.18+)");
	REQUIRE(side_maps_make(m));
	out_map = side_map_create(K, BPF_MAP_TYPE_ARRAY, 4, 2048, 1, 0).rc;
	REQUIRE(out_map >= 0);
	for (size_t c = 0; c < sizeof(run_cases) / sizeof(*run_cases); c++) {
		const struct run_case *rc = &run_cases[c];
		struct bpf_insn p[64];
		int fd[NSIDES], k_len, u_len;
		int32_t ret[NSIDES];
		uint32_t sid = (uint32_t)rc->id;

		for (s = 0; s < NSIDES; s++) {
			uint32_t n = print_prog(rc, m[s].fmt, id, p);

			fd[s] = side_prog_load(s, BPF_PROG_TYPE_SOCKET_FILTER, p, n);
		}
		if (fd[K] < 0 || fd[U] < 0) {
			test_fail(__FILE__, __LINE__, "%s: loads %d (errno %d), %d (errno %d)",
				  rc->name, fd[K], errno, fd[U], errno);
			continue;
		}
		for (s = 0; s < NSIDES; s++)
			ret[s] = run_once(s, fd[s]);
		k_len = side_stream_read(K, fd[K], sid, k_text, sizeof(k_text)).rc;
		u_len = side_stream_read(U, fd[U], sid, u_text, sizeof(u_text)).rc;
		if (ret[K] == ret[U] && k_len == u_len &&
		    (k_len <= 0 || !memcmp(k_text, u_text, (size_t)k_len))) {
			compared++;
		} else if (ret[K] == -ENOMEM && ret[U] == 0) {
			/* the kernel could not keep the message: userbpf's must be the text its
			 * bpf_snprintf() makes */
			texts += snprintf_agrees(rc, m[K].fmt, out_map, u_text, u_len);
		} else {
			test_fail(__FILE__, __LINE__, "%s: kernel returns %d and reads %d bytes, "
				  "userbpf %d and %d", rc->name, ret[K], k_len, ret[U], u_len);
		}
		for (s = 0; s < NSIDES; s++)
			close(fd[s]);
	}

	/* The read command on a program that wrote empty messages (which both keep) */
	{
		const struct run_case *empty = &run_cases[11];
		struct bpf_insn p[64];
		int fd[NSIDES];
		char buf[16];

		for (s = 0; s < NSIDES; s++) {
			uint32_t n = print_prog(empty, m[s].fmt, id, p);

			fd[s] = side_prog_load(s, BPF_PROG_TYPE_SOCKET_FILTER, p, n);
			REQUIRE(fd[s] >= 0);
			CHECK_EQ(run_once(s, fd[s]), 0);
		}
		CALL_BOTH("read", side_stream_read(s, fd[s], 1, buf, sizeof(buf)));
		CALL_BOTH("read stderr", side_stream_read(s, fd[s], 2, buf, sizeof(buf)));
		CALL_BOTH("id 0", side_stream_read(s, fd[s], 0, buf, sizeof(buf)));
		CALL_BOTH("id 3", side_stream_read(s, fd[s], 3, buf, sizeof(buf)));
		CALL_BOTH("id -1", side_stream_read(s, fd[s], UINT32_MAX, buf, sizeof(buf)));
		CALL_BOTH("no fd", side_stream_read(s, 9999, 1, buf, sizeof(buf)));
		CALL_BOTH("map fd", side_stream_read(s, m[s].fmt, 1, buf, sizeof(buf)));
		CALL_BOTH("tail", side_stream_read_size(s, fd[s], 1, buf, sizeof(buf), 1, 160));
		CALL_BOTH("size 16", side_stream_read_size(s, fd[s], 1, buf, sizeof(buf), 0, 16));
		CALL_BOTH("size 20", side_stream_read_size(s, fd[s], 1, buf, sizeof(buf), 0, 20));
		CALL_BOTH("len 0", side_stream_read(s, fd[s], 1, buf, 0));
		CALL_BOTH("NULL, empty", side_stream_read(s, fd[s], 1, NULL, 8));
		for (s = 0; s < NSIDES; s++)
			CHECK_EQ(run_once(s, fd[s]), 0);
		CALL_BOTH("NULL, an empty message", side_stream_read(s, fd[s], 1, NULL, 8));
		for (s = 0; s < NSIDES; s++)
			CHECK_EQ(run_once(s, fd[s]), 0);
		CALL_BOTH("len over INT_MAX, an empty message",
			  side_stream_read(s, fd[s], 1, buf, 0x80000000u));
		CALL_BOTH("len over INT_MAX, nothing",
			  side_stream_read(s, fd[s], 2, buf, 0x80000000u));
		for (s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
	close(out_map);
	side_maps_close(m);
	printf("diff_stream_runs: %zu programs: %d with the kernel's results and texts, %d with "
	       "the text of its bpf_snprintf() (the kernel kept no text: -ENOMEM); %d read "
	       "commands with its results\n", sizeof(run_cases) / sizeof(*run_cases), compared,
	       texts, calls);
	CHECK_EQ(compared + texts, (int)(sizeof(run_cases) / sizeof(*run_cases)));
	CHECK(texts >= 1 || compared == (int)(sizeof(run_cases) / sizeof(*run_cases)));
}

/* userbpf's program of run case c, loaded with the JIT on or off. */
static int load_case(const struct run_case *c, int fmt_map, int32_t kfunc, int jit)
{
	struct bpf_insn p[64];
	uint32_t n = print_prog(c, fmt_map, kfunc, p);
	int was = userbpf_set_jit(jit), fd;

	fd = side_prog_load(U, BPF_PROG_TYPE_SOCKET_FILTER, p, n);
	userbpf_set_jit(was);
	return fd;
}

/* A test run of userbpf's fd repeated n times: the last run's return value. */
static int32_t run_repeat(int fd, uint32_t n)
{
	static const uint8_t pkt[64];
	uint32_t ret = 0xdeadbeef;

	if (side_test_run_ctx(U, fd, pkt, sizeof(pkt), n, NULL, 0, NULL, 0, &ret).rc)
		return INT32_MIN;
	return (int32_t)ret;
}

/* What the kernel's source says a stream does, on userbpf alone (the kernel here keeps no
 * non-empty message): messages in order, read whole or in parts, each stream its own; the
 * capacity; the 1024-byte buffer; faults; through the JIT and the interpreter. */
TEST(stream_reads)
{
	static char buf[4096];
	int32_t id = kfunc_id();
	int fmt;

	if (id <= 0)
		SKIP("no bpf_stream_vprintk_impl in the kernel's BTF (Linux 6.18+): its id names "
		     "the kfunc");
	fmt = map_with_formats(U, BPF_F_RDONLY_PROG, true);
	REQUIRE(fmt >= 0);
	for (int jit = 1; jit >= 0; jit--) {
		int out = load_case(&run_cases[0], fmt, id, jit); /* "hello 42\n" */
		int err = load_case(&run_cases[1], fmt, id, jit); /* "hello -7\n" on stderr */
		int wide = load_case(&run_cases[18], fmt, id, jit); /* 1024 bytes on stderr */
		int widest = load_case(&run_cases[19], fmt, id, jit);
		int n;

		REQUIRE(out >= 0 && err >= 0 && wide >= 0 && widest >= 0);
		CHECK_EQ(run_repeat(out, 3), 0);
		CHECK_EQ(run_repeat(err, 1), 0);
		/* in parts: a message's rest stays for the next read */
		CHECK_EQ(side_stream_read(U, out, 1, buf, 5).rc, 5);
		CHECK(!memcmp(buf, "hello", 5));
		CHECK_EQ(side_stream_read(U, out, 1, buf, 6).rc, 6);
		CHECK(!memcmp(buf, " 42\nhe", 6));
		CHECK_EQ(side_stream_read(U, out, 1, buf, sizeof(buf)).rc, 16);
		CHECK(!memcmp(buf, "llo 42\nhello 42\n", 16));
		CHECK_EQ(side_stream_read(U, out, 1, buf, sizeof(buf)).rc, 0);
		CHECK_EQ(side_stream_read(U, out, 2, buf, sizeof(buf)).rc, 0);
		CHECK_EQ(side_stream_read(U, err, 1, buf, sizeof(buf)).rc, 0);
		CHECK_EQ(side_stream_read(U, err, 2, buf, sizeof(buf)).rc, 9);
		CHECK(!memcmp(buf, "hello -7\n", 9));
		/* a fault leaves the message unread */
		CHECK_EQ(run_repeat(out, 1), 0);
		CHECK_EQ(side_stream_read(U, out, 1, NULL, 4).rc, -1);
		CHECK_EQ(errno, EFAULT);
		CHECK_EQ(side_stream_read(U, out, 1, buf, sizeof(buf)).rc, 9);
		/* 1024 bytes: the buffer's 1023 and its NUL; 1025: -ENOMEM, nothing kept */
		CHECK_EQ(run_repeat(wide, 1), 0);
		CHECK_EQ(run_repeat(widest, 1), -ENOMEM);
		memset(buf, 'z', sizeof(buf));
		CHECK_EQ(side_stream_read(U, wide, 2, buf, sizeof(buf)).rc, 1024);
		CHECK(buf[0] == '0' && buf[1021] == '0' && buf[1022] == '0' && buf[1023] == 0);
		CHECK_EQ(side_stream_read(U, widest, 1, buf, sizeof(buf)).rc, 0);
		/* the capacity: 9-byte messages while the stream holds less than 100000 - 9
		 * bytes, the rest refused; a read makes room again */
		CHECK_EQ(run_repeat(out, 11111), 0);
		CHECK_EQ(run_repeat(out, 1), -ENOSPC);
		CHECK_EQ(side_stream_read(U, out, 1, buf, 9).rc, 9);
		CHECK_EQ(run_repeat(out, 1), 0);
		CHECK_EQ(run_repeat(out, 1), -ENOSPC);
		for (n = 0; side_stream_read(U, out, 1, buf, sizeof(buf)).rc > 0;)
			n++;
		CHECK_EQ(n, (11111 * 9 + 4095) / 4096);
		/* the refused 1025 bytes stay counted, as the kernel's */
		{
			struct bpf_insn p[] = {
				/* skb->len (less the Ethernet header) */
				BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 7),
				BPF_MOV64_IMM(BPF_REG_1, 1),
				BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
				BPF_MOV64_IMM(BPF_REG_4, 8),
				BPF_JMP_IMM(BPF_JGT, BPF_REG_6, 100, 4),
				BPF_LD_MAP_VALUE(BPF_REG_2, fmt, F_HELLO),
				BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id),
				BPF_EXIT_INSN(),
				BPF_LD_MAP_VALUE(BPF_REG_2, fmt, F_WIDEST),
				BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id),
				BPF_EXIT_INSN(),
			};
			static const uint8_t big[200]; /* (len 186: the wide one) */
			int was = userbpf_set_jit(jit), both;
			uint32_t ret = 0;
			int k;

			both = side_prog_load(U, BPF_PROG_TYPE_SOCKET_FILTER, p,
					      sizeof(p) / sizeof(*p));
			userbpf_set_jit(was);
			REQUIRE(both >= 0);
			CHECK_EQ(side_test_run(U, both, big, sizeof(big), &ret).rc, 0);
			CHECK_EQ((int32_t)ret, -ENOMEM);
			for (k = 0; k < 20000 && run_repeat(both, 1) == 0;)
				k++;
			/* ("hello 7\n": 8 bytes) the last taken at 1025 + 8 * (k - 1), the next
			 * refused */
			CHECK(1025 + 8 * (k - 1) + 8 < 100000 && 1025 + 8 * k + 8 >= 100000);
			close(both);
		}
		close(out);
		close(err);
		close(wide);
		close(widest);
	}
	close(fmt);
}
