/* Kernel objects kept in maps (kptrs), against the kernel: a map value with a referenced
 * `struct task_struct __kptr *` and an unreferenced `__kptr_untrusted` one (BTF-tagged pointer
 * fields); what the verifier makes of their loads and stores, bpf_kptr_xchg() moving a
 * reference into the map and the old one out; bpf() on such values (the fields read 0 and are
 * not written); runs that keep the current task in the map and take it back; the same from a
 * task storage map's value.  Skipped without the kernel's BTF or its bpf().
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"
#include "map/map.h"

static const char STRS[] = "\0int\0long\0task_struct\0kptr\0kptr_untrusted\0v\0t\0u\0n\0cgroup\0c"
			   "\0sock\0w\0x";
enum {
	S_INT = 1, S_LONG = 5, S_TASK = 10, S_KPTR = 22, S_UNTR = 27, S_V = 42, S_T = 44, S_U = 46,
	S_N = 48, S_CGROUP = 50, S_C = 57, S_SOCK = 59, S_W = 64, S_X = 66,
	S_END = sizeof(STRS)
};
enum {
	INT = 1, LONG, TASK_T, TAG_REF, PTR_REF, TAG_UNTR, PTR_UNTR, VAL, CG_T, TAG_CG, PTR_CG,
	SOCK_T, TAG_SOCK, PTR_SOCK, TAG_USOCK, PTR_USOCK, W_T, X_T
};
/* struct v { struct task_struct __kptr *t; struct task_struct __kptr_untrusted *u; u64 n;
 * struct cgroup __kptr *c; } */
static const uint32_t types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),		/* 1 int */
	T_INT(S_LONG, 8, 0, 0, 64),			/* 2 u64 */
	T_STRUCT(S_TASK, 0, 0),				/* 3 struct task_struct {} */
	T_REF(BTF_KIND_TYPE_TAG, S_KPTR, TASK_T),	/* 4 __kptr */
	T_PTR(TAG_REF),					/* 5 */
	T_REF(BTF_KIND_TYPE_TAG, S_UNTR, TASK_T),	/* 6 __kptr_untrusted */
	T_PTR(TAG_UNTR),				/* 7 */
	T_STRUCT(S_V, 4, 32), T_MEMBER(S_T, PTR_REF, 0), T_MEMBER(S_U, PTR_UNTR, 64),
	T_MEMBER(S_N, LONG, 128), T_MEMBER(S_C, PTR_CG, 192), /* 8 struct v */
	T_STRUCT(S_CGROUP, 0, 0),			/* 9 struct cgroup {} */
	T_REF(BTF_KIND_TYPE_TAG, S_KPTR, CG_T),		/* 10 __kptr */
	T_PTR(TAG_CG),					/* 11 */
	T_STRUCT(S_SOCK, 0, 0),				/* 12 struct sock {} */
	T_REF(BTF_KIND_TYPE_TAG, S_KPTR, SOCK_T),	/* 13 __kptr */
	T_PTR(TAG_SOCK),				/* 14 */
	T_REF(BTF_KIND_TYPE_TAG, S_UNTR, SOCK_T),	/* 15 __kptr_untrusted */
	T_PTR(TAG_USOCK),				/* 16 */
	/* 17 struct w { struct sock __kptr *t; u64 n; } would hold a reference of a struct with no
	 * destructor, which the kernel's BTF_LOAD refuses (ENOENT) */
	T_STRUCT(S_W, 1, 32), T_MEMBER(S_N, LONG, 64),
	/* 18 struct x { struct sock __kptr_untrusted *t; ... } */
	T_STRUCT(S_X, 2, 32), T_MEMBER(S_T, PTR_USOCK, 0), T_MEMBER(S_N, LONG, 64),
};
enum { F_T = 0, F_U = 8, F_N = 16, F_C = 24 }; /* the fields' offsets */

/* BPF_MAP_CREATE on side s of a map of type whose 32-byte values are the BTF value_id of the
 * blob btf (4 entries, int keys; a local storage map with its own rules). */
static struct bpf_result kptr_map_create(int s, uint32_t map_type, int btf, uint32_t value_id)
{
	bool storage = map_type == BPF_MAP_TYPE_TASK_STORAGE ||
		       map_type == BPF_MAP_TYPE_SK_STORAGE ||
		       map_type == BPF_MAP_TYPE_CGRP_STORAGE ||
		       map_type == BPF_MAP_TYPE_INODE_STORAGE;

	return side_map_create_btf(s, map_type, 4, 32, storage ? 0 : 4,
				   storage ? BPF_F_NO_PREALLOC : 0, btf, INT, value_id);
}

/* On each side a BTF blob and a map of type (struct v values) of it; false on failure. */
static bool kptr_maps(uint32_t map_type, int btf[NSIDES], int map[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		map[s] = -1;
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		if (btf[s] < 0) {
			printf("  side %d: the BTF: errno %d\n", s, errno);
			return false;
		}
		map[s] = kptr_map_create(s, map_type, btf[s], VAL).rc;
		if (map[s] < 0) {
			printf("  side %d: the map: errno %d\n", s, errno);
			return false;
		}
	}
	return true;
}

/* Values a case names by placeholder. */
enum { V_PID, V_ACQUIRE, V_RELEASE, V_CG_RELEASE, V_RCU_LOCK, V_RCU_UNLOCK, V__COUNT };
#define VAL(n) PLACEHOLDER(n)
static s32 vals[V__COUNT];

static bool fill_values(void)
{
	const struct btf *btf = btf_vmlinux();

	if (!btf)
		return false;
	vals[V_PID] = (s32)btf_member_offset(btf, btf_vmlinux_task_struct(), "pid");
	vals[V_ACQUIRE] = (s32)btf_find_func(btf, "bpf_task_acquire");
	vals[V_RELEASE] = (s32)btf_find_func(btf, "bpf_task_release");
	vals[V_CG_RELEASE] = (s32)btf_find_func(btf, "bpf_cgroup_release");
	vals[V_RCU_LOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_lock");
	vals[V_RCU_UNLOCK] = (s32)btf_find_func(btf, "bpf_rcu_read_unlock");
	for (int i = 0; i < V__COUNT; i++)
		if (vals[i] <= 0)
			return false;
	return true;
}

#define TASK BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf)
#define KFUNC(v) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, VAL(v))
#define MOV(dst, src) BPF_MOV64_REG(BPF_REG_##dst, BPF_REG_##src)
#define IMM(dst, v) BPF_MOV64_IMM(BPF_REG_##dst, v)
#define IF_NULL(reg, skip) BPF_JMP_IMM(BPF_JEQ, BPF_REG_##reg, 0, skip)
#define EXIT BPF_EXIT_INSN()
#define LDX(size, dst, src, off) BPF_LDX_MEM(BPF_##size, BPF_REG_##dst, BPF_REG_##src, off)
#define STX(size, dst, src, off) BPF_STX_MEM(BPF_##size, BPF_REG_##dst, BPF_REG_##src, off)
#define RELEASE(reg) MOV(1, reg), KFUNC(V_RELEASE)
/* r6 = the map's value at key 0 (returns 0 if none): 8 insns, the map's LD_IMM64 at 3 */
#define VALUE BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), MOV(2, 10),                                \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),                     \
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), IF_NULL(0, 100), MOV(6, 0)
/* The same from a task storage map (r6 = the current task's value, made if none): 9 insns, the
 * map's LD_IMM64 at 3 too; build() puts it in VALUE's place. */
#define TASK_VALUE TASK, MOV(2, 0), IMM(3, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),                      \
	IMM(4, BPF_LOCAL_STORAGE_GET_F_CREATE), BPF_EMIT_CALL(BPF_FUNC_task_storage_get),        \
	IF_NULL(0, 100), MOV(6, 0)
#define VALUE_LEN 8
/* r0 = bpf_kptr_xchg(r6 + off, r<reg>) */
#define XCHG(off, reg) MOV(1, 6), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off), MOV(2, reg),          \
	BPF_EMIT_CALL(BPF_FUNC_kptr_xchg)

#define RUN 1u
/* (a case's name: 1 when both kptrs are NULL, 2 when only the referenced one is not, 3 when
 * only the untrusted one is not, 4 when neither is) */
#define KPTRS_NULL "whether the kptrs are NULL"
#define PLAIN_MAP 2u	/* the map is one without kptrs */

static const struct {
	const char *what;
	uint32_t opts;
	struct bpf_insn insns[40];
} cases[] = {
	{ "load the referenced kptr, read through it", RUN,
	  { VALUE, LDX(DW, 1, 6, F_T), IF_NULL(1, 100), LDX(W, 0, 1, VAL(V_PID)), EXIT } },
	{ "load the untrusted kptr, read through it", RUN,
	  { VALUE, LDX(DW, 1, 6, F_U), IF_NULL(1, 100), LDX(W, 0, 1, VAL(V_PID)), EXIT } },
	{ "load the referenced kptr as a word", 0,
	  { VALUE, LDX(W, 1, 6, F_T), IMM(0, 0), EXIT } },
	{ "load at the referenced kptr's middle", 0,
	  { VALUE, LDX(W, 1, 6, F_T + 4), IMM(0, 0), EXIT } },
	{ "store a scalar in the referenced kptr", 0,
	  { VALUE, IMM(1, 5), STX(DW, 6, 1, F_T), IMM(0, 0), EXIT } },
	{ "store NULL in the referenced kptr", 0,
	  { VALUE, BPF_ST_MEM(BPF_DW, BPF_REG_6, F_T, 0), IMM(0, 0), EXIT } },
	{ "store the current task in the referenced kptr", 0,
	  { VALUE, TASK, STX(DW, 6, 0, F_T), IMM(0, 0), EXIT } },
	{ "store the current task in the untrusted kptr", RUN,
	  { VALUE, TASK, STX(DW, 6, 0, F_U), IMM(0, 0), EXIT } },
	{ "store a scalar in the untrusted kptr", 0,
	  { VALUE, IMM(1, 5), STX(DW, 6, 1, F_U), IMM(0, 0), EXIT } },
	{ "store NULL in the untrusted kptr", RUN,
	  { VALUE, BPF_ST_MEM(BPF_DW, BPF_REG_6, F_U, 0), IMM(0, 0), EXIT } },
	{ "store a cgroup in the untrusted task kptr", 0,
	  { VALUE, TASK, LDX(DW, 1, 0, 0), STX(DW, 6, 1, F_U), IMM(0, 0), EXIT } },
	{ "atomic add to the referenced kptr", 0,
	  { VALUE, IMM(1, 1), BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_6, BPF_REG_1, F_T),
	    IMM(0, 0), EXIT } },
	{ "the plain field beside them", RUN,
	  { VALUE, IMM(1, 7), STX(DW, 6, 1, F_N), LDX(DW, 0, 6, F_N), EXIT } },
	{ "xchg an acquired task in, release the old one", RUN,
	  { VALUE, TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 100), MOV(7, 0), XCHG(F_T, 7),
	    IF_NULL(0, 2), RELEASE(0), IMM(0, 1), EXIT } },
	{ "xchg NULL in, release the old one", RUN,
	  { VALUE, IMM(8, 0), IMM(7, 0), XCHG(F_T, 7), IF_NULL(0, 4), MOV(7, 0),
	    LDX(W, 8, 7, VAL(V_PID)), RELEASE(7), MOV(0, 8), EXIT } },
	{ "xchg, the old one not released", 0,
	  { VALUE, IMM(7, 0), XCHG(F_T, 7), IMM(0, 0), EXIT } },
	{ "xchg the current task (not acquired)", 0,
	  { VALUE, TASK, MOV(7, 0), XCHG(F_T, 7), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "xchg into the untrusted kptr", 0,
	  { VALUE, IMM(7, 0), XCHG(F_U, 7), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "xchg into the plain field", 0,
	  { VALUE, IMM(7, 0), XCHG(F_N, 7), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "xchg a task into the cgroup kptr", 0,
	  { VALUE, TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 100), MOV(7, 0), XCHG(F_C, 7),
	    IF_NULL(0, 2), RELEASE(0), IMM(0, 1), EXIT } },
	{ "xchg at a variable offset", 0,
	  { VALUE, LDX(DW, 8, 6, F_N), BPF_ALU64_IMM(BPF_AND, BPF_REG_8, 8), IMM(7, 0),
	    MOV(1, 6), BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_8), MOV(2, 7),
	    BPF_EMIT_CALL(BPF_FUNC_kptr_xchg), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "xchg the old one back in", RUN,
	  { VALUE, IMM(7, 0), XCHG(F_T, 7), IF_NULL(0, 5), MOV(7, 0), XCHG(F_T, 7),
	    IF_NULL(0, 2), RELEASE(0), IMM(0, 2), EXIT } },
	{ "the referenced kptr acquired", RUN,
	  { VALUE, LDX(DW, 1, 6, F_T), IF_NULL(1, 100), KFUNC(V_ACQUIRE), IF_NULL(0, 100),
	    MOV(7, 0), LDX(W, 8, 7, VAL(V_PID)), RELEASE(7), MOV(0, 8), EXIT } },
	{ "xchg with a stack pointer", 0,
	  { VALUE, IMM(7, 0), MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), MOV(2, 7),
	    BPF_EMIT_CALL(BPF_FUNC_kptr_xchg), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ "the value's kptr probe-read (an ARG_ANYTHING source)", RUN,
	  { VALUE, MOV(1, 10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16), IMM(2, 8), MOV(3, 6),
	    BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel), IMM(0, 0), EXIT } },
	{ "a helper writes the value", 0,
	  { VALUE, MOV(1, 6), IMM(2, 16), BPF_EMIT_CALL(BPF_FUNC_get_current_comm), IMM(0, 0),
	    EXIT } },
	{ "the referenced kptr loaded, a sign-extending load", 0,
	  { VALUE, BPF_LDX_MEMSX(BPF_DW, BPF_REG_1, BPF_REG_6, F_T), IMM(0, 0), EXIT } },
	{ "an xchg'd task read after the xchg", 0,
	  { VALUE, TASK, MOV(1, 0), KFUNC(V_ACQUIRE), IF_NULL(0, 100), MOV(7, 0), XCHG(F_T, 7),
	    IF_NULL(0, 2), RELEASE(0), LDX(W, 0, 7, VAL(V_PID)), EXIT } },
	{ "xchg into a map without kptrs", PLAIN_MAP,
	  { VALUE, IMM(7, 0), XCHG(F_T, 7), IF_NULL(0, 2), RELEASE(0), IMM(0, 0), EXIT } },
	{ KPTRS_NULL, RUN,
	  { VALUE, IMM(0, 1), LDX(DW, 1, 6, F_T), IF_NULL(1, 1), IMM(0, 2), LDX(DW, 1, 6, F_U),
	    IF_NULL(1, 1), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2), EXIT } },
	{ "the untrusted kptr acquired", 0,
	  { VALUE, LDX(DW, 1, 6, F_U), IF_NULL(1, 100), KFUNC(V_ACQUIRE), IF_NULL(0, 100),
	    RELEASE(0), IMM(0, 0), EXIT } },
};

/* The case with the map, placeholders and tail ("r0 = 0; exit" for a jump of 100) filled; from
 * a task storage map's value (task_storage) instead of an array or hash map's. */
static uint32_t build(size_t i, int map, bool task_storage, struct bpf_insn *p)
{
	static const struct bpf_insn task_value[] = { TASK_VALUE };
	uint32_t n = insns_used(cases[i].insns, 40);

	if (task_storage) {
		memcpy(p, task_value, sizeof(task_value));
		memcpy(p + ARRAY_SIZE(task_value), cases[i].insns + VALUE_LEN,
		       (n - VALUE_LEN) * sizeof(*p));
		n += ARRAY_SIZE(task_value) - VALUE_LEN;
	} else {
		memcpy(p, cases[i].insns, n * sizeof(*p));
	}
	p[3].imm = map;
	fill_placeholders(p, n, vals, V__COUNT);
	n = fill_tail_jumps(p, n);
	return n;
}

TEST(diff_kptr_verifier)
{
	static char log[NSIDES][1 << 16];
	int btf[NSIDES], map[NSIDES], plain[NSIDES], same = 0, accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and its kfuncs (/sys/kernel/btf/vmlinux)");
	int tsmap[NSIDES], tsbtf[NSIDES], total = 0;

	REQUIRE(kptr_maps(BPF_MAP_TYPE_ARRAY, btf, map));
	REQUIRE(kptr_maps(BPF_MAP_TYPE_TASK_STORAGE, tsbtf, tsmap));
	for (int s = 0; s < NSIDES; s++)
		REQUIRE((plain[s] = kptr_map_create(s, BPF_MAP_TYPE_ARRAY, btf[s], W_T).rc) >= 0);
	/* each case from an array map's value, then (but the plain map's) a task storage's */
	for (size_t j = 0; j < 2 * ARRAY_SIZE(cases); j++) {
		size_t i = j % ARRAY_SIZE(cases);
		bool ts = j >= ARRAY_SIZE(cases);
		struct bpf_insn p[44];
		struct bpf_result r[NSIDES];
		uint32_t n = 0;

		if (ts && (cases[i].opts & PLAIN_MAP))
			continue;
		total++;
		for (int s = 0; s < NSIDES; s++) {
			int m = ts ? tsmap[s] : cases[i].opts & PLAIN_MAP ? plain[s] : map[s];

			n = build(i, m, ts, p);
			r[s] = side_prog_load_level(s, BPF_PROG_TYPE_XDP, 0, p, n, log[s],
						    sizeof(log[s]), 2);
			if (r[s].rc >= 0)
				close(r[s].rc);
			log_cut_map_addrs(log[s]);
			if (strstr(log[s], "processed ") && !getenv("TEST_FULLLOG"))
				*strstr(log[s], "processed ") = 0;
		}
		if (r[K].rc >= 0)
			accepted++;
		if (getenv("TEST_VERBOSE"))
			printf("  %s: %s\n%s", cases[i].what, r[K].rc >= 0 ? "accepted" : "refused",
			       r[K].rc >= 0 ? "" : log[K]);
		CHECK_EQ(r[K].rc >= 0, (cases[i].opts & RUN) != 0);
		/* (a disagreement AGREE() reported still counts when both refused) */
		if ((!AGREE(cases[i].what, r) || LOGS_SAME(cases[i].what, log[K], log[U])) &&
		    (r[K].rc >= 0) == (r[U].rc >= 0))
			same++;
	}
	printf("diff_kptr_verifier: %d programs, %d accepted, %d with the whole level-2 log "
	       "equal\n", total, accepted, same);
	CHECK_EQ(same, total);
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(plain[s]);
		close(btf[s]);
		close(tsmap[s]);
		close(tsbtf[s]);
	}
}

/* The index of the case called what. */
static size_t case_named(const char *what)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].what, what))
			return i;
	return 0;
}

/* Loads case what on side s (map fd map) and runs it once on a packet: its return value, or
 * ~0u (with a failure) if it does not load or run. */
static uint32_t run_case(int s, int map, bool task_storage, const char *what)
{
	static const uint8_t pkt[64];
	struct bpf_insn p[44];
	uint32_t n = build(case_named(what), map, task_storage, p), ret = ~0u;
	int fd = side_prog_load(s, BPF_PROG_TYPE_XDP, p, n);

	if (fd < 0 || side_test_run(s, fd, pkt, sizeof(pkt), &ret).rc) {
		test_fail(__FILE__, __LINE__, "side %d: %s does not load or run", s, what);
		ret = ~0u;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A run of the cases, in order, on both sides and with bpf() between them; each value must be
 * the kernel's (and, where known, expected: ~0u for "this thread's id"). */
static int sequence_agrees(uint32_t map_type, bool jit)
{
	static const struct {
		const char *what;	/* a case, or NULL: bpf() updates the value */
		uint32_t want;
	} steps[] = {
		{ "load the referenced kptr, read through it", 0 },
		{ "xchg an acquired task in, release the old one", 1 },
		{ "load the referenced kptr, read through it", ~0u },
		{ "the referenced kptr acquired", ~0u },
		{ "xchg the old one back in", 2 },
		{ "store the current task in the untrusted kptr", 0 },
		{ "load the untrusted kptr, read through it", ~0u },
		{ "the value's kptr probe-read (an ARG_ANYTHING source)", 0 },
		{ NULL, 0 },
		{ KPTRS_NULL, 1 },
		{ "load the untrusted kptr, read through it", 0 },
		{ "load the referenced kptr, read through it", 0 },
		{ "xchg an acquired task in, release the old one", 1 },
		{ KPTRS_NULL, 2 },
		{ "xchg NULL in, release the old one", ~0u },
		{ "xchg NULL in, release the old one", 0 },
		{ "store NULL in the untrusted kptr", 0 },
	};
	int btf[NSIDES], map[NSIDES], agreed = 0, old = userbpf_set_jit(jit);
	bool ts = map_type == BPF_MAP_TYPE_TASK_STORAGE;
	bool percpu = map_type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      map_type == BPF_MAP_TYPE_PERCPU_HASH ||
		      map_type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	/* (a task storage's key: this process's pidfd, this main thread's task) */
	int key = ts ? (int)syscall(SYS_pidfd_open, getpid(), 0) : 0;
	/* (bpf()'s value: every CPU's copy of a per-CPU map, 4 u64s each) */
	uint32_t copies = percpu ? map_possible_cpus() : 1;
	uint64_t v[4 * 256] = { 0 }, seen[NSIDES][4 * 256];

	if (key < 0 || copies > 256 || !kptr_maps(map_type, btf, map)) {
		test_fail(__FILE__, __LINE__, "no kptr map of type %u", map_type);
		return 0;
	}
	for (int s = 0; s < NSIDES; s++)
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, v, 0).rc, 0);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		uint32_t ret[NSIDES];

		if (!steps[i].what) {
			/* bpf() sees the kptrs as 0, and its update empties them */
			for (int s = 0; s < NSIDES; s++) {
				memset(seen[s], 0xee, sizeof(seen[s]));
				struct bpf_result l, u;

				l = side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &key, seen[s], 0);
				memset(v, 0x5a, sizeof(v));
				u = side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, v, 0);
				CHECK(!l.rc && !u.rc);
			}
			CHECK(!memcmp(seen[K], seen[U], copies * 32));
			for (uint32_t c = 0; c < copies; c++) {
				const uint64_t *copy = seen[U] + 4 * c;

				CHECK(!copy[0] && !copy[1] && !copy[3]);
			}
			continue;
		}
		for (int s = 0; s < NSIDES; s++)
			ret[s] = run_case(s, map[s], ts, steps[i].what);
		if (ret[U] == ret[K] && ret[U] == (steps[i].want == ~0u ? (uint32_t)gettid()
									 : steps[i].want))
			agreed++;
		else
			test_fail(__FILE__, __LINE__, "%s (%s, map type %u): kernel %u, userbpf %u",
				  steps[i].what, jit ? "JIT" : "interpreter", map_type, ret[K],
				  ret[U]);
	}
	userbpf_set_jit(old);
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(btf[s]);
	}
	if (ts)
		close(key);
	return agreed;
}

TEST(diff_kptr_runs)
{
	int agreed = 0, pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	bool pidfd_works = pidfd >= 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!fill_values())
		SKIP("no kernel BTF with task_struct and its kfuncs (/sys/kernel/btf/vmlinux)");
	if (!pids_are_global() || gettid() != getpid())
		SKIP("a pid namespace of its own, or not the main thread");
	if (pidfd_works)
		close(pidfd);
	/* (on one CPU: a per-CPU map's runs must see the same copy, on both sides) */
	cpu_set_t was, one;

	REQUIRE(!sched_getaffinity(0, sizeof(was), &was));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	REQUIRE(!sched_setaffinity(0, sizeof(one), &one));
	for (int jit = 1; jit >= 0; jit--) {
		agreed += sequence_agrees(BPF_MAP_TYPE_PERCPU_ARRAY, jit);
		agreed += sequence_agrees(BPF_MAP_TYPE_PERCPU_HASH, jit);
		agreed += sequence_agrees(BPF_MAP_TYPE_LRU_PERCPU_HASH, jit);
		agreed += sequence_agrees(BPF_MAP_TYPE_ARRAY, jit);
		agreed += sequence_agrees(BPF_MAP_TYPE_HASH, jit);
		agreed += sequence_agrees(BPF_MAP_TYPE_LRU_HASH, jit);
		if (pidfd_works)
			agreed += sequence_agrees(BPF_MAP_TYPE_TASK_STORAGE, jit);
	}
	sched_setaffinity(0, sizeof(was), &was);
	if (!pidfd_works)
		printf("  no pidfd_open() (valgrind?): the task storage's runs skipped\n");
	printf("diff_kptr_runs: %d runs with the kernel's value\n", agreed);
	CHECK_EQ(agreed, (pidfd_works ? 14 : 12) * 16);
}

/* Maps with kptrs in their values: the types that take them and the kptrs they take. */
TEST(diff_kptr_create)
{
	static const struct {
		uint32_t map_type, value_id;
	} shapes[] = {
		{ BPF_MAP_TYPE_ARRAY, VAL },	{ BPF_MAP_TYPE_HASH, VAL },
		{ BPF_MAP_TYPE_LRU_HASH, VAL },
		{ BPF_MAP_TYPE_QUEUE, VAL }, { BPF_MAP_TYPE_RINGBUF, VAL },
		{ BPF_MAP_TYPE_TASK_STORAGE, VAL }, { BPF_MAP_TYPE_SK_STORAGE, VAL },
		{ BPF_MAP_TYPE_CGRP_STORAGE, VAL }, { BPF_MAP_TYPE_INODE_STORAGE, VAL },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, VAL }, { BPF_MAP_TYPE_PERCPU_HASH, VAL },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, VAL },
		{ BPF_MAP_TYPE_ARRAY, W_T }, /* no kptr */
		{ BPF_MAP_TYPE_ARRAY, X_T }, /* no reference: any struct */
	};
	int btf[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux())
		SKIP("no kernel BTF: kptrs point at its structs");
	for (int s = 0; s < NSIDES; s++)
		REQUIRE((btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END)) >= 0);
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++) {
		struct bpf_result r[NSIDES];
		char what[64];

		for (int s = 0; s < NSIDES; s++)
			r[s] = kptr_map_create(s, shapes[i].map_type, btf[s], shapes[i].value_id);
		snprintf(what, sizeof(what), "map type %u, value type %u", shapes[i].map_type,
			 shapes[i].value_id);
		AGREE(what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
}

/* The kernel parses a struct's kptrs when the BTF is loaded: a BTF whose only kptr is not
 * 8-aligned (none made: EFAULT), or holds a reference to a kernel struct with no destructor
 * (ENOENT), fails there. */
TEST(diff_kptr_btf_load)
{
	static const char strs[] = "\0int\0task_struct\0kptr\0y\0n\0t\0sock";
	enum { I = 1, TS = 5, KP = 17, Y = 22, N = 24, T = 26, SK = 28, END = sizeof(strs) };
	/* 1 int, 2 struct task_struct, 3 kptr tag, 4 ptr, 5 struct y { int n; kptr t (at bit
	 * off) } */
#define Y_BLOB(target, off)                                                                      \
	{ T_INT(I, 4, BTF_INT_SIGNED, 0, 32), T_STRUCT(target, 0, 0),                         \
	  T_REF(BTF_KIND_TYPE_TAG, KP, 2), T_PTR(3), T_STRUCT(Y, 2, 16), T_MEMBER(N, 1, 0),     \
	  T_MEMBER(T, 4, off) }
	static const uint32_t blobs[][22] = {
		Y_BLOB(TS, 64),	/* fine */
		Y_BLOB(TS, 32),	/* not aligned */
		Y_BLOB(SK, 64),	/* a reference to a sock: no destructor */
	};

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux())
		SKIP("no kernel BTF: kptrs point at its structs");
	for (size_t i = 0; i < ARRAY_SIZE(blobs); i++) {
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			errno = 0;
			r[s].rc = side_btf_load(s, blobs[i], ARRAY_SIZE(blobs[i]), strs, END);
			r[s].err = r[s].rc < 0 ? errno : 0;
			if (r[s].rc >= 0)
				close(r[s].rc);
		}
		AGREE("BTF load", r);
		CHECK_EQ(r[K].rc >= 0, i == 0);
	}
}
