/* test_embed.c — the embedding API (userbpf_prog_load_ext / run / fd / free, src/prog/ext.c).
 *
 * What is checked: the context contract (R1 = the application's memory, R2 = ctx_size, stores
 * reach it), registered helpers (arguments, return value, the unwind flag), the map helpers on
 * request, the OPTS rules (sz, zero tail), refusal of malformed helper descriptions (a table),
 * the prog fd through bpf() (BPF_PROG_TEST_RUN with ctx_in/ctx_out; BPF_PROG_LOAD refusing the
 * extension type), concurrent runs, and that freeing the handle releases the program.
 * Every program here is one a kernel-grade verifier accepts under the extension type's rules
 * (src/prog/prog.h): constant-offset ctx accesses within ctx_size, NULL-checked map values.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include "exec/helpers.h"
#include "fd.h"
#include "prog/prog.h"
#include "rcu.h"
#include "test.h"

struct rec {
	uint32_t a, b;
	uint64_t sum;
};

static const struct bpf_insn prog_sum[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct rec, a)),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct rec, b)),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_3),
	BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, offsetof(struct rec, sum)),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
	BPF_EXIT_INSN(),
};

TEST(embed_ctx_read_write)
{
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = sizeof(struct rec),
					       .ctx_writable = true };
	struct userbpf_prog *p;
	struct rec r = { .a = 40, .b = 0xffffffff };

	REQUIRE_EQ(userbpf_prog_load_ext(prog_sum, ARRAY_SIZE(prog_sum), &opts, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, &r), 0x100000027ULL);
	CHECK_EQ(r.sum, 0x100000027ULL);
	r.a = 1;
	r.b = 2;
	CHECK_EQ(userbpf_prog_run(p, &r), 3);
	CHECK_EQ(r.sum, 3);
	userbpf_prog_free(p);
}

TEST(embed_r2_is_ctx_size)
{
	static const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = 24 };
	struct userbpf_prog *p;
	char buf[24];

	REQUIRE_EQ(userbpf_prog_load_ext(insns, ARRAY_SIZE(insns), &opts, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, buf), 24);
	userbpf_prog_free(p);

	/* no options at all: ctx_size 0, R1 may be NULL */
	REQUIRE_EQ(userbpf_prog_load_ext(insns, ARRAY_SIZE(insns), NULL, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, NULL), 0);
	userbpf_prog_free(p);
}

/* ---- registered helpers ---- */

static uint64_t last_args[5];

static uint64_t h_mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	last_args[0] = a;
	last_args[1] = b;
	last_args[2] = c;
	last_args[3] = d;
	last_args[4] = e;
	return a * 1000 + b;
}

/* (mem, size): sums size bytes of mem */
static uint64_t h_sum_bytes(uint64_t mem, uint64_t size, uint64_t c, uint64_t d, uint64_t e)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)mem;
	uint64_t s = 0;

	for (uint64_t i = 0; i < size; i++)
		s += p[i];
	return s;
}

static uint64_t h_unwind(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a;
}

static const struct userbpf_helper test_helpers[] = {
	{ "mix", 7, 0, h_mix,
	  { USERBPF_ARG_ANYTHING, USERBPF_ARG_ANYTHING, USERBPF_ARG_PTR_TO_CTX }, USERBPF_RET_INTEGER },
	{ "sum_bytes", 9, 0, h_sum_bytes,
	  { USERBPF_ARG_PTR_TO_MEM, USERBPF_ARG_CONST_SIZE }, USERBPF_RET_INTEGER },
	{ NULL, 5, USERBPF_HELPER_F_UNWIND, h_unwind, { USERBPF_ARG_ANYTHING },
	  USERBPF_RET_INTEGER },
};

TEST(embed_helpers)
{
	static const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_1, 12),
		BPF_MOV64_IMM(BPF_REG_2, 34),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_6),
		BPF_EMIT_CALL(7),			/* r0 = 12034 */
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0x01020304),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_EMIT_CALL(9),			/* r0 = 10 */
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = 8,
					       .helpers = test_helpers, .nr_helpers = 3 };
	struct userbpf_prog *p;
	uint64_t ctx = 0;

	REQUIRE_EQ(userbpf_prog_load_ext(insns, ARRAY_SIZE(insns), &opts, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, &ctx), 12034 + 10);
	CHECK_EQ(last_args[0], 12);
	CHECK_EQ(last_args[1], 34);
	CHECK_EQ(last_args[2], (uintptr_t)&ctx);
	userbpf_prog_free(p);
}

TEST(embed_unwind_helper)
{
	/* r0 = unwind(r6); return 2 — ends with 0 at once when r6 is 0 */
	static const struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_EMIT_CALL(5),
		BPF_MOV64_IMM(BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = 8,
					       .helpers = test_helpers, .nr_helpers = 3 };
	struct userbpf_prog *p;
	uint64_t v = 0;

	REQUIRE_EQ(userbpf_prog_load_ext(insns, ARRAY_SIZE(insns), &opts, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, &v), 0);
	v = (uint64_t)-1;
	CHECK_EQ(userbpf_prog_run(p, &v), 2);
	userbpf_prog_free(p);
}

TEST(embed_map_helpers)
{
	/* counts[key] += 1 where key = ctx[0]; returns the new count (0 if the key is absent) */
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_6, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = 4,
					       .map_helpers = true };
	struct userbpf_prog *p;
	union bpf_attr a;
	uint32_t key = 3;
	uint64_t val = 0;
	unsigned live;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_HASH;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 8;
	fd = bpf(BPF_MAP_CREATE, &a, sizeof(a));
	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	CHECK_OK(bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)));
	insns[2].imm = fd;
	live = obj_live_count();

	REQUIRE_EQ(userbpf_prog_load_ext(insns, ARRAY_SIZE(insns), &opts, &p), 0);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(userbpf_prog_run(p, &key), i + 1);
	key = 4;
	CHECK_EQ(userbpf_prog_run(p, &key), 0);
	key = 3;
	CHECK_OK(bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)));
	CHECK_EQ(val, 5);
	close(fd); /* the program still holds the map */
	CHECK_EQ(userbpf_prog_run(p, &key), 6);
	userbpf_prog_free(p);
	CHECK_EQ(obj_live_count(), live - 1);
}

/* ---- options and helper descriptions ---- */

TEST(embed_opts_rules)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct {
		struct userbpf_prog_load_opts o;
		uint64_t newer_field;
	} big;
	struct userbpf_prog *p = (void *)1;
	size_t small = offsetof(struct userbpf_prog_load_opts, ctx_writable);

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), 0); /* zero tail: fine */
	userbpf_prog_free(p);
	big.newer_field = 1;
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), -EINVAL);
	CHECK(p == NULL);

	/* an older caller: only sz and ctx_size; what follows in memory is not read */
	memset(&big, 0xff, sizeof(big));
	big.o.sz = small;
	big.o.ctx_size = 8;
	REQUIRE_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), 0);
	userbpf_prog_free(p);

	big.o.sz = 1; /* not even sz */
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), -EINVAL);
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, NULL, NULL), -EINVAL);
	CHECK_EQ(userbpf_prog_load_ext(NULL, 2, NULL, &p), -EINVAL);
	CHECK_EQ(userbpf_prog_load_ext(ret0, 0, NULL, &p), -E2BIG);
	CHECK_EQ(userbpf_prog_load_ext(ret0, 1000001, NULL, &p), -E2BIG);

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big.o);
	big.o.name = "embed_ok";
	REQUIRE_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), 0);
	userbpf_prog_free(p);
	big.o.name = "a_name_too_long_";	/* 16 characters: no room for the NUL */
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), -EINVAL);
	big.o.name = "bad-name";
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &big.o, &p), -EINVAL);
	userbpf_prog_free(NULL);
	CHECK_EQ(userbpf_prog_fd(NULL), -EINVAL);
}

TEST(embed_bad_helpers)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	static const char long_name[] = "a_helper_name_longer_than_sixty_three_characters_is_refused_____";
	static const struct {
		const char *why;
		struct userbpf_helper h[2];
		uint32_t n;
	} cases[] = {
		{ "no fn", { { "x", 1, 0, NULL, { 0 }, 0 } }, 1 },
		{ "id 0", { { "x", 0, 0, h_mix, { 0 }, 0 } }, 1 },
		{ "id too big", { { "x", USERBPF_HELPER_ID_MAX + 1, 0, h_mix, { 0 }, 0 } }, 1 },
		{ "unknown flag", { { "x", 1, 2, h_mix, { 0 }, 0 } }, 1 },
		{ "unknown ret", { { "x", 1, 0, h_mix, { 0 }, 7 } }, 1 },
		{ "unknown arg", { { "x", 1, 0, h_mix, { 99 }, 0 } }, 1 },
		{ "arg after none",
		  { { "x", 1, 0, h_mix, { 0, USERBPF_ARG_ANYTHING }, 0 } }, 1 },
		{ "mem without size",
		  { { "x", 1, 0, h_mix, { USERBPF_ARG_PTR_TO_MEM, USERBPF_ARG_ANYTHING }, 0 } }, 1 },
		{ "mem last",
		  { { "x", 1, 0, h_mix, { 1, 1, 1, 1, USERBPF_ARG_PTR_TO_UNINIT_MEM }, 0 } }, 1 },
		{ "size without mem",
		  { { "x", 1, 0, h_mix, { USERBPF_ARG_CONST_SIZE }, 0 } }, 1 },
		{ "same id twice",
		  { { "x", 4, 0, h_mix, { 0 }, 0 }, { "y", 4, 0, h_mix, { 0 }, 0 } }, 2 },
		{ "two unwind",
		  { { "x", 4, 1, h_mix, { 0 }, 0 }, { "y", 5, 1, h_mix, { 0 }, 0 } }, 2 },
		{ "long name", { { long_name, 1, 0, h_mix, { 0 }, 0 } }, 1 },
	};
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts) };
	struct userbpf_prog *p;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		opts.helpers = cases[i].h;
		opts.nr_helpers = cases[i].n;
		if (userbpf_prog_load_ext(ret0, 2, &opts, &p) != -EINVAL)
			test_fail(__FILE__, __LINE__, "%s: not refused", cases[i].why);
	}
	opts.helpers = NULL;
	opts.nr_helpers = 1;
	CHECK_EQ(userbpf_prog_load_ext(ret0, 2, &opts, &p), -EINVAL);
}

/* What the verifier will ask at integration. */
TEST(embed_prog_helper_proto)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .helpers = test_helpers,
					       .nr_helpers = 3, .map_helpers = true };
	struct userbpf_prog *p;
	const struct bpf_func_proto *fp;
	struct bpf_prog sk = { .type = BPF_PROG_TYPE_SOCKET_FILTER };
	struct bpf_object *obj;
	int err;

	REQUIRE_EQ(userbpf_prog_load_ext(ret0, 2, &opts, &p), 0);
	rcu_read_lock();
	obj = obj_from_fd(userbpf_prog_fd(p), OBJ_PROG, &err);
	if (obj)
		obj_get(obj);
	rcu_read_unlock();
	REQUIRE(obj);
	fp = prog_helper_proto(prog_of(obj), 9);
	REQUIRE(fp);
	CHECK(!strcmp(fp->name, "sum_bytes"));
	CHECK_EQ(fp->ret_type, RET_INTEGER);
	CHECK_EQ(fp->arg_type[0], ARG_PTR_TO_MEM);
	CHECK_EQ(fp->arg_type[1], ARG_CONST_SIZE);
	CHECK_EQ(fp->arg_type[2], ARG_DONTCARE);
	CHECK(!fp->gpl_only);
	fp = prog_helper_proto(prog_of(obj), 7);
	REQUIRE(fp);
	CHECK_EQ(fp->arg_type[2], ARG_PTR_TO_CTX);
	fp = prog_helper_proto(prog_of(obj), 5);
	REQUIRE(fp);
	CHECK(!strcmp(fp->name, "helper_5"));
	fp = prog_helper_proto(prog_of(obj), BPF_FUNC_map_lookup_elem);
	REQUIRE(fp);
	CHECK_EQ(fp->ret_type, RET_PTR_TO_MAP_VALUE_OR_NULL);
	CHECK(prog_helper_proto(prog_of(obj), 6) == NULL);
	CHECK(prog_helper_proto(prog_of(obj), 8) == NULL);
	CHECK(prog_helper_proto(prog_of(obj), 10) == NULL);
	CHECK(prog_helper_proto(prog_of(obj), 1000) == NULL);
	CHECK(prog_of(obj)->ctx_size == 0 && !prog_of(obj)->ctx_writable);
	obj_put(obj);
	userbpf_prog_free(p);

	/* other types: the kernel's table */
	CHECK(prog_helper_proto(&sk, BPF_FUNC_map_lookup_elem) ==
	      bpf_helper_proto(BPF_FUNC_map_lookup_elem, BPF_PROG_TYPE_SOCKET_FILTER));
	CHECK(prog_helper_proto(&sk, 7) == bpf_helper_proto(7, BPF_PROG_TYPE_SOCKET_FILTER));
}

/* ---- the fd ---- */

TEST(embed_prog_fd_test_run)
{
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = sizeof(struct rec),
					       .ctx_writable = true };
	struct userbpf_prog *p;
	struct rec in = { .a = 5, .b = 6 }, out;
	union bpf_attr a;
	char small[4];

	REQUIRE_EQ(userbpf_prog_load_ext(prog_sum, ARRAY_SIZE(prog_sum), &opts, &p), 0);
	REQUIRE(userbpf_prog_fd(p) >= 0);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = userbpf_prog_fd(p);
	a.test.ctx_in = (uintptr_t)&in;
	a.test.ctx_size_in = sizeof(in);
	a.test.ctx_out = (uintptr_t)&out;
	a.test.ctx_size_out = sizeof(out);
	a.test.repeat = 10;
	CHECK_OK(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)));
	CHECK_EQ(a.test.retval, 11);
	CHECK_EQ(out.sum, 11);
	CHECK_EQ(out.a, 5);
	CHECK_EQ(in.sum, 0); /* the program ran on a copy */

	a.test.ctx_out = (uintptr_t)small;
	a.test.ctx_size_out = sizeof(small);
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), ENOSPC);
	CHECK_EQ(a.test.ctx_size_out, sizeof(struct rec));

	a.test.ctx_out = 0;
	a.test.ctx_size_out = 0;
	a.test.data_in = (uintptr_t)&in;
	a.test.data_size_in = 4;
	CHECK_ERRNO(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), EINVAL);
	userbpf_prog_free(p);
}

TEST(embed_type_not_loadable_by_bpf)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = USERBPF_PROG_TYPE_EXT;
	a.insns = (uintptr_t)ret0;
	a.insn_cnt = 2;
	a.license = (uintptr_t) "GPL";
	CHECK_ERRNO(bpf(BPF_PROG_LOAD, &a, sizeof(a)), EINVAL);
}

TEST(embed_free_releases)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct userbpf_prog *p;
	unsigned live = obj_live_count();
	int fd2;

	REQUIRE_EQ(userbpf_prog_load_ext(ret0, 2, NULL, &p), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	fd2 = dup(userbpf_prog_fd(p));
	userbpf_prog_free(p);
	CHECK_EQ(obj_live_count(), live + 1); /* the dup keeps it */
	close(fd2);
	CHECK_EQ(obj_live_count(), live);
}

/* ---- threads ---- */

struct run_arg {
	struct userbpf_prog *p;
	int bad;
};

static void *run_many(void *arg)
{
	struct run_arg *ra = arg;

	for (uint32_t i = 0; i < 20000; i++) {
		struct rec r = { .a = i, .b = 7 };

		if (userbpf_prog_run(ra->p, &r) != i + 7u || r.sum != i + 7u)
			ra->bad++;
	}
	return NULL;
}

TEST(embed_concurrent_runs)
{
	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = sizeof(struct rec),
					       .ctx_writable = true };
	struct run_arg ra[2];
	pthread_t th[2];

	REQUIRE_EQ(userbpf_prog_load_ext(prog_sum, ARRAY_SIZE(prog_sum), &opts, &ra[0].p), 0);
	ra[0].bad = ra[1].bad = 0;
	ra[1].p = ra[0].p;
	for (int i = 0; i < 2; i++)
		REQUIRE(!pthread_create(&th[i], NULL, run_many, &ra[i]));
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(ra[0].bad + ra[1].bad, 0);
	userbpf_prog_free(ra[0].p);
}
