/* BPF_PROG_TYPE_SYSCALL against the kernel: only sleepable; its ctx (the caller's buffer, any
 * aligned access below U16_MAX); the maps a sleepable program may use; BPF_PROG_TEST_RUN (one
 * run on a copy of ctx_in, copied back; its argument rules); and bpf_sys_bpf() and
 * bpf_sys_close(), with which a program makes a map, fills it and closes fds.  Skipped where
 * the kernel's bpf() is unavailable.
 */
#include <linux/btf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RET(v) BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN()

static struct bpf_result load(int s, const struct bpf_insn *insns, uint32_t cnt, uint32_t flags,
			      char *log, size_t log_size)
{
	return side_prog_load_flags(s, BPF_PROG_TYPE_SYSCALL, 0, flags, insns, cnt, log, log_size,
				    1);
}

/* Both sides' verdicts and error lines (the line before "processed"). */
static bool verdicts(const char *what, const struct bpf_insn *insns, uint32_t cnt, uint32_t flags)
{
	static char log[NSIDES][8192];
	struct bpf_result r[NSIDES];
	const char *line[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		r[s] = load(s, insns, cnt, flags, log[s], sizeof(log[s]));
		if (r[s].rc >= 0)
			close(r[s].rc);
		char *end = strstr(log[s], "\nprocessed");

		if (end)
			*end = 0;
		line[s] = strrchr(log[s], '\n') ? strrchr(log[s], '\n') + 1 : log[s];
	}
	if (AGREE(what, r) && r[K].rc < 0 && strcmp(line[K], line[U]))
		test_fail(__FILE__, __LINE__, "%s: kernel says \"%s\", userbpf \"%s\"", what,
			  line[K], line[U]);
	return r[K].rc >= 0;
}

/* A sleepable program referring to a map of each kind (an inner map's type counts for a map of
 * maps): the kernel's verdict and error line. */
static void sleepable_maps(void)
{
	static const struct {
		const char *what;
		uint32_t type, key, value, max, flags;
		int inner; /* for a map of maps: 1 an array, 2 a perf event array, 3 a queue */
	} maps[] = {
		{ "hash", BPF_MAP_TYPE_HASH, 4, 8, 4, 0, 0 },
		{ "array", BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, 0 },
		{ "percpu array", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, 0 },
		{ "lru hash", BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0, 0 },
		{ "queue", BPF_MAP_TYPE_QUEUE, 0, 8, 4, 0, 0 },
		{ "stack", BPF_MAP_TYPE_STACK, 0, 8, 4, 0, 0 },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, 0 },
		{ "user ringbuf", BPF_MAP_TYPE_USER_RINGBUF, 0, 0, 4096, 0, 0 },
		{ "lpm trie", BPF_MAP_TYPE_LPM_TRIE, 8, 8, 4, BPF_F_NO_PREALLOC, 0 },
		{ "bloom filter", BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 4, 0, 0 },
		{ "devmap", BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0, 0 },
		{ "cpumap", BPF_MAP_TYPE_CPUMAP, 4, 4, 4, 0, 0 },
		{ "prog array", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, 0 },
		{ "stack trace", BPF_MAP_TYPE_STACK_TRACE, 4, 8, 4, 0, 0 },
		{ "array of arrays", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 4, 0, 1 },
		{ "array of perf event arrays", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 4, 0, 2 },
		{ "hash of queues", BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 4, 0, 3 },
	};

	for (size_t i = 0; i < N(maps); i++) {
		static char log[NSIDES][8192];
		struct bpf_result r[NSIDES];
		const char *line[NSIDES];
		int fd[NSIDES], inner[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			static const uint32_t inner_type[] = { 0, BPF_MAP_TYPE_ARRAY,
							       BPF_MAP_TYPE_PERF_EVENT_ARRAY,
							       BPF_MAP_TYPE_QUEUE };
			uint32_t it = inner_type[maps[i].inner];
			union bpf_attr a;

			inner[s] = it ? side_map_create(s, it, it == BPF_MAP_TYPE_QUEUE ? 0 : 4,
							it == BPF_MAP_TYPE_ARRAY ? 8 : 4, 4, 0).rc
				      : -1;
			memset(&a, 0, sizeof(a));
			a.map_type = maps[i].type;
			a.key_size = maps[i].key;
			a.value_size = maps[i].value;
			a.max_entries = maps[i].max;
			a.map_flags = maps[i].flags;
			a.inner_map_fd = inner[s] >= 0 ? (uint32_t)inner[s] : 0;
			fd[s] = side_call(s, BPF_MAP_CREATE, &a).rc;
			r[s].rc = fd[s];
			if (fd[s] < 0)
				continue;
			struct bpf_insn p[] = { BPF_LD_MAP_FD(BPF_REG_1, fd[s]), RET(0) };

			r[s] = load(s, p, N(p), BPF_F_SLEEPABLE, log[s], sizeof(log[s]));
			line[s] = log_error_line(log[s]);
			if (r[s].rc >= 0)
				close(r[s].rc);
		}
		if (fd[K] < 0 || fd[U] < 0)
			test_fail(__FILE__, __LINE__, "%s: no map (kernel %d, userbpf %d)",
				  maps[i].what, fd[K], fd[U]);
		else if (AGREE(maps[i].what, r) && r[K].rc < 0 &&
			 strcmp(line[K] ? line[K] : "", line[U] ? line[U] : ""))
			test_fail(__FILE__, __LINE__, "%s: the kernel says \"%s\", userbpf \"%s\"",
				  maps[i].what, line[K] ? line[K] : "", line[U] ? line[U] : "");
		for (int s = 0; s < NSIDES; s++) {
			if (fd[s] >= 0)
				close(fd[s]);
			if (inner[s] >= 0)
				close(inner[s]);
		}
	}
}

TEST(diff_syscall_prog_verifier)
{
	static const struct bpf_insn ret0[] = { RET(0) };
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	verdicts("not sleepable", ret0, 2, 0);
	CHECK(verdicts("sleepable", ret0, 2, BPF_F_SLEEPABLE));
	/* the ctx: loads and stores of every size around its ends */
	static const int offs[] = { -8, -1, 0, 1, 2, 4, 6, 8, 12, 4096, 0xfff8, 0xfffc, 0xfffe,
				    0xffff, 0x10000 };
	for (size_t o = 0; o < N(offs); o++)
		for (int z = 0; z < 4; z++)
			for (int store = 0; store < 2; store++) {
				static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
				struct bpf_insn p[] = {
					store ? BPF_STX_MEM(sizes[z], BPF_REG_1, BPF_REG_1,
							    (short)offs[o])
					      : BPF_LDX_MEM(sizes[z], BPF_REG_0, BPF_REG_1,
							    (short)offs[o]),
					RET(0),
				};
				char what[48];

				if (offs[o] > 0x7fff || offs[o] < -0x8000) {
					/* (beyond a 16-bit offset: through a pointer moved first) */
					continue;
				}
				snprintf(what, sizeof(what), "ctx %s off %d size %d",
					 store ? "store" : "load", offs[o], 1 << z);
				accepted += verdicts(what, p, N(p), BPF_F_SLEEPABLE);
			}
	/* past 32767: r1 moved by a constant first */
	for (int z = 0; z < 4; z++) {
		static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
		struct bpf_insn p[] = {
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 0xfff8),
			BPF_LDX_MEM(sizes[z], BPF_REG_0, BPF_REG_1, 4),
			RET(0),
		};
		char what[48];

		snprintf(what, sizeof(what), "ctx + 0xfff8, load off 4 size %d", 1 << z);
		verdicts(what, p, N(p), BPF_F_SLEEPABLE);
	}
	CHECK(accepted > 10);
	/* the maps a sleepable program may use, inner maps' types too: the verdicts and error
	 * lines (sleepable_maps()) */
	sleepable_maps();
}

/* ctx[1] = ctx[0] * 2; return ctx[0] + 1 (u32s). */
static const struct bpf_insn doubler[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_2, 1),
	BPF_STX_MEM(BPF_W, BPF_REG_1, BPF_REG_2, 4),
	BPF_EXIT_INSN(),
};

TEST(diff_syscall_prog_test_run)
{
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = load(s, doubler, N(doubler), BPF_F_SLEEPABLE, NULL, 0).rc;
		REQUIRE(prog[s] >= 0);
	}
	static const struct {
		const char *what;
		uint32_t ctx_size, repeat, flags;
		bool data_in, ctx_out, duration;
	} runs[] = {
		{ "ctx of 8 bytes", 8, 0, 0, false, false, false },
		{ "ctx of 64 bytes", 64, 0, 0, false, false, false },
		{ "ctx of 7 bytes", 7, 0, 0, false, false, false },
		{ "no ctx", 0, 0, 0, false, false, false },
		{ "ctx of 65535 bytes", 65535, 0, 0, false, false, false },
		{ "ctx of 65536 bytes", 65536, 0, 0, false, false, false },
		{ "repeat 1", 8, 1, 0, false, false, false },
		{ "flags", 8, 0, BPF_F_TEST_RUN_ON_CPU, false, false, false },
		{ "data_in", 8, 0, 0, true, false, false },
		{ "ctx_out", 8, 0, 0, false, true, false },
		{ "duration", 8, 0, 0, false, false, true },
	};
	for (size_t i = 0; i < N(runs); i++) {
		static uint32_t ctx[NSIDES][65536 / 4 + 1];
		uint32_t out[4], data[4] = { 0 };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(ctx[s], 0, sizeof(ctx[s]));
			ctx[s][0] = 21 + (uint32_t)i;
			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog[s];
			if (runs[i].ctx_size) {
				a.test.ctx_in = PTR_TO_U64(ctx[s]);
				a.test.ctx_size_in = runs[i].ctx_size;
			}
			a.test.repeat = runs[i].repeat;
			a.test.flags = runs[i].flags;
			if (runs[i].data_in) {
				a.test.data_in = PTR_TO_U64(data);
				a.test.data_size_in = sizeof(data);
			}
			if (runs[i].ctx_out) {
				a.test.ctx_out = PTR_TO_U64(out);
				a.test.ctx_size_out = sizeof(out);
			}
			a.test.duration = runs[i].duration;
			r[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
			ret[s] = a.test.retval;
		}
		if (!AGREE(runs[i].what, r) || r[K].rc)
			continue;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[K], 22 + (uint32_t)i);
		CHECK_EQ(ctx[U][1], ctx[K][1]); /* the program's write, copied back */
		CHECK_EQ(ctx[K][1], 2 * (21 + (uint32_t)i));
	}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
}

/* The bpf_sys_bpf() program: it makes an array map (its attr on the stack, as the kernel wants
 * memory, not the ctx), puts the value at ctx + AT_VALUE under key 2 (an update attr whose key
 * and value point into its stack), tries a command bpf_sys_bpf() refuses, and closes the fd at
 * ctx + AT_RES + 32 and then -1; results at ctx + AT_RES. */
#define AT_VALUE 0
#define AT_RES 8
#define CTX_SIZE 64

static const struct bpf_insn sys_bpf_prog[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
	/* fd = sys_bpf(BPF_MAP_CREATE, fp - 24, 20): an array of 4 u64s */
	BPF_ST_MEM(BPF_W, BPF_REG_10, -24, BPF_MAP_TYPE_ARRAY),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -20, 4),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -16, 8),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -12, 4),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_IMM(BPF_REG_1, BPF_MAP_CREATE),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -24),
	BPF_MOV64_IMM(BPF_REG_3, 20),
	BPF_EMIT_CALL(BPF_FUNC_sys_bpf),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, AT_RES),
	BPF_JMP_IMM(BPF_JSLT, BPF_REG_0, 0, 29),
	/* key 2 at fp - 72, the value at fp - 80; the update's attr at fp - 64 */
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -72, 2),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, AT_VALUE),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -80),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -64, 0),
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_0, -64),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -72),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -56),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -48),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -40, 0),
	/* sys_bpf(BPF_MAP_UPDATE_ELEM, fp - 64, 32) */
	BPF_MOV64_IMM(BPF_REG_1, BPF_MAP_UPDATE_ELEM),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
	BPF_MOV64_IMM(BPF_REG_3, 32),
	BPF_EMIT_CALL(BPF_FUNC_sys_bpf),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, AT_RES + 8),
	/* a command bpf_sys_bpf() does not allow: BPF_MAP_LOOKUP_ELEM */
	BPF_MOV64_IMM(BPF_REG_1, BPF_MAP_LOOKUP_ELEM),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
	BPF_MOV64_IMM(BPF_REG_3, 32),
	BPF_EMIT_CALL(BPF_FUNC_sys_bpf),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, AT_RES + 16),
	/* sys_close(the fd at AT_RES + 32), then of -1 */
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, AT_RES + 32),
	BPF_EMIT_CALL(BPF_FUNC_sys_close),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, AT_RES + 24),
	BPF_MOV64_IMM(BPF_REG_1, -1),
	BPF_EMIT_CALL(BPF_FUNC_sys_close),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, AT_RES + 40),
	RET(0),
};

TEST(diff_syscall_prog_sys_bpf)
{
	int prog[NSIDES], victim[NSIDES];
	uint8_t ctx[NSIDES][CTX_SIZE];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		prog[s] = load(s, sys_bpf_prog, N(sys_bpf_prog), BPF_F_SLEEPABLE, NULL, 0).rc;
		REQUIRE(prog[s] >= 0);
		/* an fd for the program to close: a map of the side's */
		victim[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(victim[s] >= 0);
		memset(ctx[s], 0, sizeof(ctx[s]));
		memcpy(ctx[s] + AT_VALUE, &(uint64_t){ 0x1122334455667788ull }, 8);
		memcpy(ctx[s] + AT_RES + 32, &victim[s], 4);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)prog[s];
		a.test.ctx_in = PTR_TO_U64(ctx[s]);
		a.test.ctx_size_in = CTX_SIZE;
		REQUIRE_EQ(side_call(s, BPF_PROG_TEST_RUN, &a).rc, 0);
	}
	int64_t res[NSIDES][6];

	for (int s = 0; s < NSIDES; s++)
		memcpy(res[s], ctx[s] + AT_RES, sizeof(res[s]));
	/* the map made (fds differ), the update, the refused command, the closes */
	CHECK(res[K][0] >= 0 && res[U][0] >= 0);
	for (int i = 1; i < 6; i++)
		if (i != 4) /* (slot 4: the fd closed, each side's own) */
			CHECK_EQ(res[U][i], res[K][i]);
	CHECK_EQ(res[K][1], 0);
	CHECK_EQ(res[K][2], -22);
	CHECK_EQ(res[K][3], 0);
	CHECK_EQ(res[K][5], -9);
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_map_info info;
		uint32_t len = sizeof(info), key = 2;
		uint64_t v = 0;

		if (res[s][0] < 0)
			continue;
		memset(&info, 0, sizeof(info));
		CHECK_EQ(side_obj_info(s, (int)res[s][0], &info, &len).rc, 0);
		CHECK_EQ(info.type, BPF_MAP_TYPE_ARRAY);
		CHECK_EQ(info.value_size, 8);
		CHECK_EQ(info.max_entries, 4);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, (int)res[s][0], &key, &v, 0).rc, 0);
		CHECK_EQ(v, 0x1122334455667788ull);
		close((int)res[s][0]);
		/* the program closed the victim: its fd is gone */
		CHECK_EQ(side_map_id(s, victim[s]), 0);
		close(prog[s]);
	}
}

/* The loader programs' lookups, bpf_btf_find_by_name_kind() and bpf_kallsyms_lookup_name():
 * a program looks up the name in its ctx (the size, kind and flags there too, flags as a 64-bit
 * value) and leaves the result, and the address a symbol lookup wrote, in it. */
struct lookup_ctx {
	char name[48];
	uint32_t name_sz, kind;
	uint64_t flags;
	int64_t ret;
	uint64_t addr;
};

struct lookup_case {
	const char *name;
	uint32_t name_sz, kind; /* (name_sz 0: the name's with its NUL, or 0 for "") */
	uint64_t flags;
};

/* the name copied to the stack (the kernel takes no ctx for memory here) */
#define NAME_WORD(i)                                                                             \
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, (i) * 8),                                      \
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -48 + (i) * 8)
#define LOOKUP_HEAD                                                                              \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), NAME_WORD(0), NAME_WORD(1), NAME_WORD(2),          \
		NAME_WORD(3), NAME_WORD(4), NAME_WORD(5),                                         \
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -56, 0x77),                                        \
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_6, offsetof(struct lookup_ctx, name_sz))
#define LOOKUP_TAIL                                                                              \
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, offsetof(struct lookup_ctx, ret)),             \
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -56),                                  \
		BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, offsetof(struct lookup_ctx, addr)),     \
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()

/* r0 = bpf_btf_find_by_name_kind(fp - 48, name_sz (1..48), kind, flags) */
static const struct bpf_insn btf_lookup_prog[] = {
	LOOKUP_HEAD,
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 0, 9),
	BPF_JMP_IMM(BPF_JGT, BPF_REG_2, 48, 8),
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, offsetof(struct lookup_ctx, kind)),
	BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_6, offsetof(struct lookup_ctx, flags)),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -48),
	BPF_EMIT_CALL(BPF_FUNC_btf_find_by_name_kind),
	LOOKUP_TAIL,
};

/* r0 = bpf_kallsyms_lookup_name(fp - 48, name_sz (0..48), flags, fp - 56) */
static const struct bpf_insn ksym_lookup_prog[] = {
	LOOKUP_HEAD,
	BPF_JMP_IMM(BPF_JGT, BPF_REG_2, 48, 9),
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_6, offsetof(struct lookup_ctx, flags)),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -48),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -56),
	BPF_EMIT_CALL(BPF_FUNC_kallsyms_lookup_name),
	LOOKUP_TAIL,
};

/* Runs prog on both sides for each case: the result and the address left must be the
 * kernel's.  The number of cases the kernel found (a result of 0 for found_is_zero, else > 0). */
static int lookups_agree(const char *what_prog, const struct bpf_insn *prog_insns, uint32_t cnt,
			 const struct lookup_case *cases, size_t n, bool found_is_zero)
{
	int prog[NSIDES], found = 0;

	for (int s = 0; s < NSIDES; s++) {
		prog[s] = load(s, prog_insns, cnt, BPF_F_SLEEPABLE, NULL, 0).rc;
		if (prog[s] < 0) {
			test_fail(__FILE__, __LINE__, "%s: no load on side %d", what_prog, s);
			return 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct lookup_ctx ctx[NSIDES];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];
		char what[128];

		for (int s = 0; s < NSIDES; s++) {
			memset(&ctx[s], 0, sizeof(ctx[s]));
			strcpy(ctx[s].name, cases[i].name);
			ctx[s].name_sz = cases[i].name_sz || !cases[i].name[0]
						 ? cases[i].name_sz
						 : (uint32_t)strlen(cases[i].name) + 1;
			ctx[s].kind = cases[i].kind;
			ctx[s].flags = cases[i].flags;
			ctx[s].ret = -1000;
			r[s] = side_test_run_ctx(s, prog[s], NULL, 0, 0, &ctx[s], sizeof(ctx[s]),
						 NULL, 0, &ret[s]);
		}
		snprintf(what, sizeof(what), "%s(\"%s\", size %u, kind %#x, flags %#llx)",
			 what_prog, cases[i].name, ctx[K].name_sz, cases[i].kind,
			 (unsigned long long)cases[i].flags);
		if (!AGREE(what, r))
			continue;
		found += found_is_zero ? !ctx[K].ret : ctx[K].ret > 0;
		if (getenv("TEST_VERBOSE"))
			printf("%s: %lld, %#llx\n", what, (long long)ctx[K].ret,
			       (unsigned long long)ctx[K].addr);
		if (ctx[U].ret != ctx[K].ret || ctx[U].addr != ctx[K].addr)
			test_fail(__FILE__, __LINE__,
				  "%s: the kernel says %lld (%#llx), userbpf %lld (%#llx)", what,
				  (long long)ctx[K].ret,
				  (unsigned long long)ctx[K].addr, (long long)ctx[U].ret,
				  (unsigned long long)ctx[U].addr);
	}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
	return found;
}

/* bpf_btf_find_by_name_kind() (a light skeleton's way to find kfuncs and ksyms): names of the
 * kernel's own BTF (userbpf does not search modules'), ones of no type or of another kind, kinds
 * past a u8, sizes without the NUL at the end, flags in the upper half: the kernel's results. */
TEST(diff_syscall_prog_btf_lookup)
{
	static const struct lookup_case cases[] = {
		{ "task_struct", 0, BTF_KIND_STRUCT, 0 },
		{ "bpf_map", 0, BTF_KIND_STRUCT, 0 },
		{ "bpf_copy_from_user_str", 0, BTF_KIND_FUNC, 0 },
		{ "bpf_map_type", 0, BTF_KIND_ENUM, 0 },
		{ "u32", 0, BTF_KIND_TYPEDEF, 0 },
		{ "int", 0, BTF_KIND_INT, 0 },
		{ "runqueues", 0, BTF_KIND_VAR, 0 },
		{ "task_struct", 0, BTF_KIND_FUNC, 0 },		/* another kind */
		{ "no_such_type_here", 0, BTF_KIND_STRUCT, 0 },
		{ "task_struct", 0, 0x100 | BTF_KIND_STRUCT, 0 },	/* kind is a u8 */
		{ "task_struct", 0, BTF_KIND_STRUCT, 1 },	/* flags */
		{ "task_struct", 0, BTF_KIND_STRUCT, 1ull << 32 }, /* flags is an int */
		{ "task_struct", 11, BTF_KIND_STRUCT, 0 },	/* no NUL at the end */
		{ "task_struct", 20, BTF_KIND_STRUCT, 0 },	/* zeros after it */
		{ "", 1, BTF_KIND_STRUCT, 0 },			/* too short */
		{ "void", 0, 0, 0 },
		{ "", 2, 0, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(lookups_agree("btf_find_by_name_kind", btf_lookup_prog, N(btf_lookup_prog), cases,
			    N(cases), false) >= 6);
}

/* bpf_kallsyms_lookup_name() (a light skeleton's way to find typeless ksyms): the kernel's
 * results and addresses for its own symbols (a unique one, one with two addresses), a name it
 * has not, an empty name, a size without the NUL at its end, flags.  The addresses are what
 * /proc/kallsyms shows this process (root's: the real ones; the kernel says -EPERM where it
 * hides them). */
TEST(diff_syscall_prog_kallsyms)
{
	static const struct lookup_case cases[] = {
		{ "bpf_prog_put", 0, 0, 0 },
		{ "schedule", 0, 0, 0 },
		{ "__cpuid", 0, 0, 0 },		/* (two static functions of that name) */
		{ "no_such_symbol_here", 0, 0, 0 },
		{ "bpf_prog_put", 0, 0, 1 },
		{ "bpf_prog_put", 0, 0, 1ull << 32 },	/* flags is an int */
		{ "bpf_prog_put", 12, 0, 0 },		/* no NUL at the end */
		{ "bpf_prog_put", 20, 0, 0 },		/* zeros after it */
		{ "", 1, 0, 0 },
		{ "", 0, 0, 0 },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(lookups_agree("kallsyms_lookup_name", ksym_lookup_prog, N(ksym_lookup_prog), cases,
			    N(cases), true) >= 3);
}
