/* Work items (bpf_wq, 6.10+) and task work (bpf_task_work, 6.18) against the kernel: map
 * creates with a struct bpf_wq or bpf_task_work in the value (every map type, the flags that
 * matter, with a timer, two of them) give the kernel's verdicts; programs calling bpf_wq_init(),
 * bpf_wq_set_callback_impl(), bpf_wq_start() and bpf_task_work_schedule_signal_impl() and
 * _resume_impl() (each argument right and wrong, the callbacks' own checks, the fields' access,
 * program types) give its verdicts and whole level-2 logs, map addresses aside.  (At run time:
 * test_loader_wq.c, test_loader_task_work.c.)  Skipped where the kernel's bpf() or BTF is
 * unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

/* BTF: 1 u32, 2 u64, 3 struct bpf_wq, 4 struct v { u64 n; struct bpf_wq w; u64 m; } (32
 * bytes, the item at 8), 5 struct p { u64 n, a, b, c; } (32 bytes, none), 6 struct bpf_timer,
 * 7 struct t { struct bpf_wq w; struct bpf_timer t; } (32), 8 struct two { struct bpf_wq w;
 * struct bpf_wq x; } (32), 9 struct bpf_task_work, 10 struct tv { u64 n; struct bpf_task_work
 * w; u64 m, c; } (32, the work at 8), 11 struct tt { struct bpf_task_work w; u64 n;
 * struct bpf_timer t; } (32), 12 struct tw2 { struct bpf_task_work w, x; u64 n, m; } (32). */
static const char STRS[] = "\0u32\0u64\0bpf_wq\0v\0n\0w\0m\0a\0b\0p\0c\0bpf_timer\0t\0two\0x"
			   "\0bpf_task_work\0tv\0tt\0tw2";
static const uint32_t types[] = {
	T_INT(1, 4, 0, 0, 32),
	T_INT(5, 8, 0, 0, 64),
	T_STRUCT(9, 2, 16), T_MEMBER(24, 2, 0), T_MEMBER(26, 2, 64),
	T_STRUCT(16, 3, 32), T_MEMBER(18, 2, 0), T_MEMBER(20, 3, 64), T_MEMBER(22, 2, 192),
	T_STRUCT(28, 4, 32), T_MEMBER(18, 2, 0), T_MEMBER(24, 2, 64), T_MEMBER(26, 2, 128),
	T_MEMBER(30, 2, 192),
	T_STRUCT(32, 2, 16), T_MEMBER(24, 2, 0), T_MEMBER(26, 2, 64),
	T_STRUCT(42, 2, 32), T_MEMBER(20, 3, 0), T_MEMBER(42, 6, 128),
	T_STRUCT(44, 2, 32), T_MEMBER(20, 3, 0), T_MEMBER(48, 3, 128),
	T_STRUCT(50, 1, 8), T_MEMBER(24, 2, 0),
	T_STRUCT(64, 4, 32), T_MEMBER(18, 2, 0), T_MEMBER(20, 9, 64), T_MEMBER(22, 2, 128),
	T_MEMBER(30, 2, 192),
	T_STRUCT(67, 3, 32), T_MEMBER(20, 9, 0), T_MEMBER(18, 2, 64), T_MEMBER(42, 6, 128),
	T_STRUCT(70, 4, 32), T_MEMBER(20, 9, 0), T_MEMBER(48, 9, 64), T_MEMBER(18, 2, 128),
	T_MEMBER(22, 2, 192),
};

static int wq_btf(int s)
{
	return side_btf_load(s, types, sizeof(types) / 4, STRS, sizeof(STRS));
}

/* A map of type with BTF value type value (0: none), 4-byte keys, 32-byte values. */
static int wq_map(int s, int btf, uint32_t type, uint32_t value, uint32_t flags)
{
	return side_map_create_btf(s, type, 4, 32, 4, flags, value ? btf : 0, value ? 1 : 0,
				   value).rc;
}

TEST(diff_work_creates)
{
	static const uint32_t map_types[] = {
		BPF_MAP_TYPE_HASH,	    BPF_MAP_TYPE_ARRAY,	    BPF_MAP_TYPE_PERCPU_HASH,
		BPF_MAP_TYPE_PERCPU_ARRAY, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH,
		BPF_MAP_TYPE_QUEUE,	    BPF_MAP_TYPE_BLOOM_FILTER,
	};
	static const uint32_t flags[] = { 0, BPF_F_NO_PREALLOC, BPF_F_MMAPABLE, BPF_F_RDONLY_PROG };
	static const uint32_t values[] = { 4, 7, 8, 10, 11, 12 };
	int btf[NSIDES], made = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++)
		REQUIRE((btf[s] = wq_btf(s)) >= 0);
	for (size_t t = 0; t < sizeof(map_types) / sizeof(*map_types); t++)
		for (size_t f = 0; f < sizeof(flags) / sizeof(*flags); f++)
			for (size_t v = 0; v < sizeof(values) / sizeof(*values); v++) {
				struct bpf_result r[NSIDES];
				char what[80];

				for (int s = 0; s < NSIDES; s++) {
					bool keyless = map_types[t] == BPF_MAP_TYPE_QUEUE ||
						       map_types[t] == BPF_MAP_TYPE_BLOOM_FILTER;

					r[s] = side_map_create_btf(s, map_types[t], keyless ? 0 : 4,
								   32, 4, flags[f], btf[s],
								   keyless ? 0 : 1, values[v]);
				}
				snprintf(what, sizeof(what), "map type %u flags %#x, value type %u",
					 map_types[t], flags[f], values[v]);
				AGREE(what, r);
				for (int s = 0; s < NSIDES; s++)
					if (r[s].rc >= 0)
						close(r[s].rc);
				made += r[K].rc >= 0;
			}
	printf("diff_work_creates: %zu creates with the kernel's verdicts (%d made)\n",
	       sizeof(map_types) / sizeof(*map_types) * 4 * 6, made);
	CHECK(made >= 12);
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
}

/* Placeholders: the kfuncs' ids; the maps (a hash with the item at 8, an array with the same
 * value, an array without BTF, one with BTF but no item; a hash and an array with task work at
 * 8); a callback (the last len insns of the program: CB(len)). */
#define K_INIT PLACEHOLDER(0)
#define K_SETCB PLACEHOLDER(1)
#define K_START PLACEHOLDER(2)
#define K_COPY PLACEHOLDER(3)
#define M_WQ PLACEHOLDER(4)
#define M_WQ2 PLACEHOLDER(5)
#define M_PLAIN PLACEHOLDER(6)
#define M_NOWQ PLACEHOLDER(7)
#define K_TW_SIGNAL PLACEHOLDER(8)
#define K_TW_RESUME PLACEHOLDER(9)
#define K_FROM_PID PLACEHOLDER(10)
#define K_RELEASE PLACEHOLDER(11)
#define M_TW PLACEHOLDER(12)
#define M_TW2 PLACEHOLDER(13)
#define NVALS 14
#define IS_MAP(imm) (((imm) >= M_WQ && (imm) <= M_NOWQ) || (imm) == M_TW || (imm) == M_TW2)
#define CB(len) PLACEHOLDER(20 + (len))
#define KCALL(id) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id)

/* r6 = the element of map for key 0 (or return 0) */
#define LOOKUP(map)                                                                              \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),               \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, map),             \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),   \
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0)
#define WQ(off) BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off)
#define INIT(off, map)                                                                           \
	WQ(off), BPF_LD_MAP_FD(BPF_REG_2, map), BPF_MOV64_IMM(BPF_REG_3, 0), KCALL(K_INIT)
#define SETCB(off, len)                                                                          \
	WQ(off), BPF_LD_IMM64_RAW(BPF_REG_2, BPF_PSEUDO_FUNC, CB(len)),                         \
		BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0), KCALL(K_SETCB)
#define START(off) WQ(off), BPF_MOV64_IMM(BPF_REG_2, 0), KCALL(K_START)
#define RET0 BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()
/* r7 = the task of pid 1, referenced (or return 0); TASK_PUT releases it */
#define TASK                                                                                     \
	BPF_MOV64_IMM(BPF_REG_1, 1), KCALL(K_FROM_PID), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),    \
		RET0, BPF_MOV64_REG(BPF_REG_7, BPF_REG_0)
#define TASK_PUT BPF_MOV64_REG(BPF_REG_1, BPF_REG_7), KCALL(K_RELEASE)
/* schedule(r7, r6 + off, map, the callback of len insns, 0) with kfunc k */
#define SCHED(k, off, map, len)                                                                  \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_7), BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),                 \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, off), BPF_LD_MAP_FD(BPF_REG_3, map),            \
		BPF_LD_IMM64_RAW(BPF_REG_4, BPF_PSEUDO_FUNC, CB(len)), BPF_MOV64_IMM(BPF_REG_5, 0), \
		KCALL(k)

struct wq_case {
	const char *name;
	uint32_t type;		/* 0: BPF_PROG_TYPE_SYSCALL */
	bool not_sleepable;
	struct bpf_insn insns[48];
};

static const struct wq_case cases[] = {
	{ "init_callback_start", 0, false,
	  { LOOKUP(M_WQ), INIT(8, M_WQ), SETCB(8, 2), START(8), RET0, RET0 } },
	{ "callback_uses_key_and_value", 0, false,
	  { LOOKUP(M_WQ), INIT(8, M_WQ), SETCB(8, 4), RET0,
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0),
	    BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0, 0), RET0 } },
	{ "callback_returns_one", 0, false,
	  { LOOKUP(M_WQ), SETCB(8, 2), RET0, BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() } },
	{ "callback_reads_r4", 0, false,
	  { LOOKUP(M_WQ), SETCB(8, 3), RET0, BPF_MOV64_REG(BPF_REG_0, BPF_REG_4), RET0 } },
	{ "callback_starts_its_item", 0, false,
	  { LOOKUP(M_WQ), SETCB(8, 6), RET0, BPF_MOV64_REG(BPF_REG_1, BPF_REG_3),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), BPF_MOV64_IMM(BPF_REG_2, 0), KCALL(K_START),
	    RET0 } },
	{ "callback_calls_sleepable_kfunc", 0, false,
	  { LOOKUP(M_WQ), SETCB(8, 8), RET0, BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_MOV64_IMM(BPF_REG_2, 8),
	    BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0), KCALL(K_COPY), RET0 } },
	{ "two_callbacks", 0, false,
	  { LOOKUP(M_WQ), SETCB(8, 4), SETCB(8, 2), RET0, RET0, RET0 } },
	{ "not_sleepable", BPF_PROG_TYPE_XDP, true,
	  { LOOKUP(M_WQ), INIT(8, M_WQ), SETCB(8, 2), RET0, RET0 } },
	{ "xdp_init_and_start", BPF_PROG_TYPE_XDP, true,
	  { LOOKUP(M_WQ), INIT(8, M_WQ), START(8), RET0 } },
	{ "socket_filter_init", BPF_PROG_TYPE_SOCKET_FILTER, true,
	  { LOOKUP(M_WQ2), INIT(8, M_WQ2), RET0 } },
	{ "kprobe_map_with_wq", BPF_PROG_TYPE_KPROBE, true, { LOOKUP(M_WQ), RET0 } },
	{ "array_item", 0, false,
	  { LOOKUP(M_WQ2), INIT(8, M_WQ2), SETCB(8, 2), START(8), RET0, RET0 } },
	{ "wq_wrong_offset", 0, false, { LOOKUP(M_WQ), INIT(0, M_WQ), RET0 } },
	{ "wq_variable_offset", 0, false,
	  { LOOKUP(M_WQ), BPF_LDX_MEM(BPF_B, BPF_REG_7, BPF_REG_6, 0),
	    BPF_ALU64_IMM(BPF_AND, BPF_REG_7, 8), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_7), BPF_LD_MAP_FD(BPF_REG_2, M_WQ),
	    BPF_MOV64_IMM(BPF_REG_3, 0), KCALL(K_INIT), RET0 } },
	{ "wq_on_stack", 0, false,
	  { LOOKUP(M_WQ), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24),
	    BPF_LD_MAP_FD(BPF_REG_2, M_WQ), BPF_MOV64_IMM(BPF_REG_3, 0), KCALL(K_INIT), RET0 } },
	{ "wq_maybe_null", 0, false,
	  { BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, M_WQ),
	    BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	    INIT(8, M_WQ), RET0 } },
	{ "map_without_btf", 0, false, { LOOKUP(M_PLAIN), INIT(8, M_PLAIN), RET0 } },
	{ "map_without_wq", 0, false, { LOOKUP(M_NOWQ), INIT(8, M_NOWQ), RET0 } },
	{ "init_with_other_wq_map", 0, false, { LOOKUP(M_WQ), INIT(8, M_WQ2), RET0 } },
	{ "init_with_map_without_item", 0, false, { LOOKUP(M_WQ), INIT(8, M_PLAIN), RET0 } },
	{ "init_with_map_value", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_MOV64_REG(BPF_REG_2, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_3, 0),
	    KCALL(K_INIT), RET0 } },
	{ "init_with_number", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_MOV64_IMM(BPF_REG_2, 5), BPF_MOV64_IMM(BPF_REG_3, 0),
	    KCALL(K_INIT), RET0 } },
	{ "init_with_null", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
	    KCALL(K_INIT), RET0 } },
	{ "init_flags_unknown", 0, false,
	  { LOOKUP(M_WQ), BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_6, 0), WQ(8),
	    BPF_LD_MAP_FD(BPF_REG_2, M_WQ), BPF_MOV64_REG(BPF_REG_3, BPF_REG_7), KCALL(K_INIT),
	    RET0 } },
	{ "callback_null", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_IMM(BPF_REG_4, 0), KCALL(K_SETCB), RET0 } },
	{ "callback_map_value", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_MOV64_REG(BPF_REG_2, BPF_REG_6), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_IMM(BPF_REG_4, 0), KCALL(K_SETCB), RET0 } },
	{ "callback_map_pointer", 0, false,
	  { LOOKUP(M_WQ), WQ(8), BPF_LD_MAP_FD(BPF_REG_2, M_WQ), BPF_MOV64_IMM(BPF_REG_3, 0),
	    BPF_MOV64_IMM(BPF_REG_4, 0), KCALL(K_SETCB), RET0 } },
	{ "start_on_stack", 0, false,
	  { LOOKUP(M_WQ), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -24),
	    BPF_MOV64_IMM(BPF_REG_2, 0), KCALL(K_START), RET0 } },
	{ "load_of_the_item", 0, false,
	  { LOOKUP(M_WQ), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 16), RET0 } },
	{ "store_over_the_item", 0, false,
	  { LOOKUP(M_WQ), BPF_ST_MEM(BPF_W, BPF_REG_6, 4, 1), BPF_ST_MEM(BPF_DW, BPF_REG_6, 4, 1),
	    RET0 } },
	/* task work */
	{ "task_work_signal", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_resume_array", 0, false,
	  { LOOKUP(M_TW2), TASK, SCHED(K_TW_RESUME, 8, M_TW2, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_callback_returns_five", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 2), TASK_PUT, RET0,
	    BPF_MOV64_IMM(BPF_REG_0, 5), BPF_EXIT_INSN() } },
	{ "task_work_callback_returns_big", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 3), TASK_PUT, RET0,
	    BPF_MOV64_IMM(BPF_REG_0, 1), BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 40), BPF_EXIT_INSN() } },
	{ "task_work_callback_returns_pointer", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 2), TASK_PUT, RET0,
	    BPF_MOV64_REG(BPF_REG_0, BPF_REG_3), BPF_EXIT_INSN() } },
	{ "task_work_callback_uses_args", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 4), TASK_PUT, RET0,
	    BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0),
	    BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0, 16), RET0 } },
	{ "task_work_not_sleepable", BPF_PROG_TYPE_XDP, true,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_task_not_released", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW, 2), RET0, RET0 } },
	{ "task_work_null_task", 0, false,
	  { LOOKUP(M_TW), BPF_MOV64_IMM(BPF_REG_7, 0), SCHED(K_TW_SIGNAL, 8, M_TW, 2), RET0,
	    RET0 } },
	{ "task_work_number_task", 0, false,
	  { LOOKUP(M_TW), BPF_MOV64_IMM(BPF_REG_7, 64), SCHED(K_TW_SIGNAL, 8, M_TW, 2), RET0,
	    RET0 } },
	{ "task_work_wrong_offset", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 0, M_TW, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_other_map", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_TW2, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_map_without_it", 0, false,
	  { LOOKUP(M_TW), TASK, SCHED(K_TW_SIGNAL, 8, M_PLAIN, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_in_a_wq_map", 0, false,
	  { LOOKUP(M_WQ), TASK, SCHED(K_TW_SIGNAL, 8, M_WQ, 2), TASK_PUT, RET0, RET0 } },
	{ "task_work_on_stack", 0, false,
	  { LOOKUP(M_TW), TASK, BPF_MOV64_REG(BPF_REG_6, BPF_REG_10),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, -24), SCHED(K_TW_SIGNAL, 8, M_TW, 2), TASK_PUT, RET0,
	    RET0 } },
	{ "task_work_load_of_it", 0, false,
	  { LOOKUP(M_TW), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 8), RET0 } },
	{ "task_work_kprobe_map", BPF_PROG_TYPE_KPROBE, true, { LOOKUP(M_TW), RET0 } },
};

/* The case's program: its placeholders filled (a callback's imm its distance); where its
 * callbacks start, in order, into cbs (*ncbs). */
static uint32_t case_insns(const struct wq_case *c, const int32_t vals[NVALS], struct bpf_insn *p,
			   uint32_t cbs[SIDE_MAX_CBS], uint32_t *ncbs)
{
	uint32_t n = insns_used(c->insns, 48);

	*ncbs = 0;
	memcpy(p, c->insns, sizeof(c->insns));
	fill_placeholders(p, n, vals, NVALS);
	for (uint32_t i = 0; i + 1 < n; i++) {
		if (p[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		/* (the placeholder's sign filled the upper half) */
		if (p[i].src_reg == BPF_PSEUDO_MAP_FD && IS_MAP(p[i].imm)) {
			p[i].imm = vals[p[i].imm - PLACEHOLDER(0)];
			p[i + 1].imm = 0;
		}
		if (p[i].src_reg == BPF_PSEUDO_FUNC && p[i].imm >= CB(0)) {
			uint32_t at = n - (uint32_t)(p[i].imm - CB(0)), k = *ncbs;

			p[i].imm = (int32_t)at - (int32_t)(i + 1);
			p[i + 1].imm = 0;
			for (uint32_t j = 0; j < *ncbs; j++)
				if (cbs[j] == at)
					k = SIDE_MAX_CBS; /* (known) */
			for (; k < SIDE_MAX_CBS && k > 0 && cbs[k - 1] > at; k--)
				cbs[k] = cbs[k - 1];
			if (k < SIDE_MAX_CBS) {
				cbs[k] = at;
				++*ncbs;
			}
		}
		i++;
	}
	return n;
}

TEST(diff_work_verifier)
{
	static char log[NSIDES][65536];
	const struct btf *vmlinux = btf_vmlinux();
	int32_t vals[NSIDES][NVALS];
	int btf[NSIDES], accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!vmlinux || btf_find_func(vmlinux, "bpf_task_work_schedule_signal_impl") <= 0)
		SKIP("no bpf_task_work_schedule_signal_impl in the kernel's BTF (Linux 6.18+)");
	for (int s = 0; s < NSIDES; s++) {
		REQUIRE((btf[s] = wq_btf(s)) >= 0);
		vals[s][0] = (int32_t)btf_find_func(vmlinux, "bpf_wq_init");
		vals[s][1] = (int32_t)btf_find_func(vmlinux, "bpf_wq_set_callback_impl");
		vals[s][2] = (int32_t)btf_find_func(vmlinux, "bpf_wq_start");
		vals[s][3] = (int32_t)btf_find_func(vmlinux, "bpf_copy_from_user_str");
		vals[s][4] = wq_map(s, btf[s], BPF_MAP_TYPE_HASH, 4, 0);
		vals[s][5] = wq_map(s, btf[s], BPF_MAP_TYPE_ARRAY, 4, 0);
		vals[s][6] = wq_map(s, btf[s], BPF_MAP_TYPE_ARRAY, 0, 0);
		vals[s][7] = wq_map(s, btf[s], BPF_MAP_TYPE_ARRAY, 5, 0);
		vals[s][8] = (int32_t)btf_find_func(vmlinux, "bpf_task_work_schedule_signal_impl");
		vals[s][9] = (int32_t)btf_find_func(vmlinux, "bpf_task_work_schedule_resume_impl");
		vals[s][10] = (int32_t)btf_find_func(vmlinux, "bpf_task_from_pid");
		vals[s][11] = (int32_t)btf_find_func(vmlinux, "bpf_task_release");
		vals[s][12] = wq_map(s, btf[s], BPF_MAP_TYPE_HASH, 10, 0);
		vals[s][13] = wq_map(s, btf[s], BPF_MAP_TYPE_ARRAY, 10, 0);
		for (int i = 0; i < NVALS; i++)
			REQUIRE(vals[s][i] > 0);
	}
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct bpf_insn p[48];
		struct bpf_result r[NSIDES];
		uint32_t type = cases[c].type ? cases[c].type : BPF_PROG_TYPE_SYSCALL;

		for (int s = 0; s < NSIDES; s++) {
			uint32_t cbs[SIDE_MAX_CBS], ncbs, n = case_insns(&cases[c], vals[s], p, cbs, &ncbs);

			r[s] = side_prog_load_cbs(s, type,
						  cases[c].not_sleepable ? 0 : BPF_F_SLEEPABLE, p, n,
						  cbs, ncbs, log[s], sizeof(log[s]));
			log_cut_map_addrs(log[s]);
		}
		if (AGREE(cases[c].name, r))
			LOGS_SAME(cases[c].name, log[K], log[U]);
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n", cases[c].name,
			       r[K].rc >= 0 ? "accepted" : log_error_line(log[K]) ?: "?");
		accepted += r[K].rc >= 0;
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	for (int s = 0; s < NSIDES; s++) {
		for (int i = 4; i < NVALS; i++)
			if (IS_MAP(PLACEHOLDER(i)))
				close(vals[s][i]);
		close(btf[s]);
	}
	printf("diff_work_verifier: %zu programs (%d accepted) with the kernel's verdicts and level-2 "
	       "logs\n", sizeof(cases) / sizeof(*cases), accepted);
	CHECK_EQ(accepted, 14);
}
