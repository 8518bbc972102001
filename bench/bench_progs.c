/* Program execution speed: the same BPF programs on userbpf and on the kernel, against the same
 * logic in native C (bench/native_progs.c, -O2).
 *
 * Programs (XDP, built with userbpf/insn.h macros so that the kernel's verifier accepts them:
 * bounds checks before every packet access, loops with constant bounds):
 *   ret0      return XDP_PASS
 *   parse     Ethernet / IPv4 (variable IHL) / TCP header parse, XDP_DROP for port 80
 *   csum      ones' complement sum over a 1500-byte packet, a bounds check per word
 *   cc-csum   the same sum as clang compiles it from C (cc3-csum: with -mcpu=v3)
 *   loop      100 iterations of x = x * 31 + i; x ^= x >> 7
 *   bpf_loop  the same loop as bpf_loop(100, callback, &x, 0)
 *   hashmap   key from the packet; lookup in a 1024-entry hash map, then update with value + 1
 *   task      bpf_get_current_task_btf(); its pid, tgid and parent's tgid read directly (probe
 *             loads; skipped without the kernel's BTF)
 *   task-fields  the same task's pid, tgid, prio and static_prio: four loads through one pointer
 * Sides of each row, all measured in this run, one thread:
 *   userbpf   bpf(BPF_PROG_TEST_RUN) with repeat: the mean it reports in duration
 *   ext       userbpf_prog_run() in a loop, wall clock, on an extension program doing the same
 *             with the packet as its ctx (rows where the ctx rules allow it: constant ctx
 *             offsets only, so parse handles IHL 5 and csum has no ext variant)
 *   kernel    the kernel's bpf(BPF_PROG_TEST_RUN) with repeat: its duration (JIT if enabled)
 *   native    the C function called in a loop, wall clock
 *   native-cb, native-map (bpf_loop100, hashmap): a second C baseline that does what the
 *             program does the way it does it: bpf_loop's callback called through a pointer
 *             with its state behind ctx; userbpf's own hash map operations called from C.
 *             Their ratios show what the JIT adds over C for the same work; the plain native
 *             column stays the C a programmer would write (an inlined loop, a hash table
 *             without locks)
 * TEST_RUN sides use the duration the command reports because the kernel's fixed cost per call
 * is large (see test_run_once()); both sides measure the same way, as the kernel does.
 * The sides run interleaved, round by round, and each ratio is the median of the per-round
 * ratios: on a shared machine whose speed drifts, that is far steadier than a ratio of medians
 * taken seconds apart.
 * Printed: ns per run for each side, then kernel/userbpf (> 1: userbpf faster) and
 * userbpf/native, ext/native (how many times native C is faster), and userbpf over the second
 * baseline where there is one.  Where userbpf's duration is under 10 ns (whole ns: 2 may be
 * 2.99), also userbpf-wall: its TEST_RUN call's wall time per run, and that over native.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include "bench.h"
#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "native_progs.h"

#define MAP_SLOT 0x7ffffff0
#define XDP_OFF(f) ((short)offsetof(struct xdp_md, f))
#define NATIVE_LEN 1500
#define MAX_BATCH (1u << 20)

typedef int (*bpf_call_fn)(int cmd, union bpf_attr *attr, unsigned int size);

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

/* ---- the programs ---- */

#define PKT_PTRS /* r2 = data, r3 = data_end */                                                  \
	BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, XDP_OFF(data)),                                 \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data_end))

static const struct bpf_insn p_ret0[] = {
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_EXIT_INSN(),
};

static const struct bpf_insn p_parse[] = {
	PKT_PTRS,
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 34),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 21),		/* shorter than eth + ip */
	BPF_LDX_MEM(BPF_H, BPF_REG_5, BPF_REG_2, 12),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_5, 0x0008, 19),		/* not IPv4 (htons(0x800)) */
	BPF_LDX_MEM(BPF_B, BPF_REG_5, BPF_REG_2, 14),
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_5),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_6, 4),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_6, 4, 15),			/* version */
	BPF_ALU64_IMM(BPF_AND, BPF_REG_5, 0xf),
	BPF_JMP_IMM(BPF_JLT, BPF_REG_5, 5, 13),			/* IHL */
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_5, 2),
	BPF_LDX_MEM(BPF_B, BPF_REG_6, BPF_REG_2, 23),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_6, 6, 10),			/* not TCP */
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 14),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_4, BPF_REG_5),		/* the TCP header */
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_4),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 20),
	BPF_JMP_REG(BPF_JGT, BPF_REG_6, BPF_REG_3, 4),		/* TCP header cut */
	BPF_LDX_MEM(BPF_H, BPF_REG_7, BPF_REG_4, 2),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0x5000, 2),		/* dport != htons(80) */
	BPF_MOV64_IMM(BPF_REG_0, XDP_DROP),
	BPF_EXIT_INSN(),
	BPF_EXIT_INSN(),
};

/* The same on an extension program whose ctx is the packet (ctx_size 54): constant offsets, so
 * only IHL 5 takes the fast path (the others are passed). */
static const struct bpf_insn e_parse[] = {
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_LDX_MEM(BPF_H, BPF_REG_5, BPF_REG_1, 12),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_5, 0x0008, 7),
	BPF_LDX_MEM(BPF_B, BPF_REG_5, BPF_REG_1, 14),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_5, 0x45, 5),		/* version 4, IHL 5 */
	BPF_LDX_MEM(BPF_B, BPF_REG_6, BPF_REG_1, 23),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_6, 6, 3),
	BPF_LDX_MEM(BPF_H, BPF_REG_7, BPF_REG_1, 14 + 20 + 2),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0x5000, 1),
	BPF_MOV64_IMM(BPF_REG_0, XDP_DROP),
	BPF_EXIT_INSN(),
};

static const struct bpf_insn p_csum[] = {
	PKT_PTRS,
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	/* loop: */
	BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 2),
	BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_3, 5),		/* to done */
	BPF_LDX_MEM(BPF_H, BPF_REG_6, BPF_REG_2, 0),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
	BPF_JMP_IMM(BPF_JLT, BPF_REG_4, 750, -8),		/* to loop */
	/* done: fold twice, invert */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 16),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_1, 16),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_ALU64_IMM(BPF_XOR, BPF_REG_0, 0xffff),
	BPF_EXIT_INSN(),
};

/* native_csum()'s loop as clang 14 -O2 -target bpf compiles it (the same C as in that function,
 * with ctx->data / data_end and a break on the bounds check): what a program built from C runs,
 * rather than the hand-written loop above.  Default CPU (v1: a u32 counter compared after a
 * shift pair) and -mcpu=v3 (alu32 and jmp32). */
#define CSUM_CC_HEAD(to_fold) /* through sum += *(u16 *)r5; i += 2 */                             \
	BPF_MOV64_IMM(BPF_REG_2, 0),                                                             \
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, XDP_OFF(data_end)),                             \
	BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1, XDP_OFF(data)),                                 \
	BPF_MOV64_IMM(BPF_REG_1, 0),                                                             \
	/* loop: r5 = data + i; bounds check; sum += *(u16 *)r5 */                               \
	BPF_MOV64_REG(BPF_REG_5, BPF_REG_4),                                                     \
	BPF_ALU64_REG(BPF_ADD, BPF_REG_5, BPF_REG_2),                                            \
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_5),                                                     \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2),                                                    \
	BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_3, to_fold),                                     \
	BPF_LDX_MEM(BPF_H, BPF_REG_5, BPF_REG_5, 0),                                             \
	BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_5),                                            \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 2)
#define CSUM_CC_FOLD                                                                              \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_1),                                                     \
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_2, 16),                                                   \
	BPF_ALU64_IMM(BPF_AND, BPF_REG_1, 0xffff),                                               \
	BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2),                                            \
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),                                                     \
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_0, 16),                                                   \
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),                                            \
	BPF_ALU64_IMM(BPF_XOR, BPF_REG_0, -1),                                                   \
	BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff),                                               \
	BPF_EXIT_INSN()

static const struct bpf_insn p_csum_cc[] = {
	CSUM_CC_HEAD(7),					/* to_fold: over 7 */
	BPF_MOV64_REG(BPF_REG_5, BPF_REG_2),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_5, 32),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_5, 32),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_5, 1500, -12),		/* to loop */
	CSUM_CC_FOLD,
};

static const struct bpf_insn p_csum_cc3[] = {
	CSUM_CC_HEAD(4),					/* to_fold: over 4 */
	BPF_JMP32_IMM(BPF_JNE, BPF_REG_2, 1500, -9),		/* to loop */
	CSUM_CC_FOLD,
};

static const struct bpf_insn p_loop[] = {
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_MOV64_IMM(BPF_REG_1, 0),
	/* loop: */
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 31),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_2, 7),
	BPF_ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 100, -7),
	BPF_EXIT_INSN(),
};

/* loop100 through bpf_loop(): the body is the callback, x in a ctx on the stack. */
static const struct bpf_insn p_loop_cb[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1),
	BPF_MOV64_IMM(BPF_REG_1, 100),
	BPF_LD_IMM64_RAW(BPF_REG_2, BPF_PSEUDO_FUNC, 7),	/* to the callback */
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	BPF_EMIT_CALL(BPF_FUNC_loop),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
	BPF_EXIT_INSN(),
	/* the callback: r1 = i, r2 = &x */
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_2, 0),
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_3, 31),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_1),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_3),
	BPF_ALU64_IMM(BPF_RSH, BPF_REG_4, 7),
	BPF_ALU64_REG(BPF_XOR, BPF_REG_3, BPF_REG_4),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

#define HASH_BODY /* key in r5 */                                                                \
	BPF_ALU64_IMM(BPF_AND, BPF_REG_5, 1023),                                                 \
	BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_5, -4),                                           \
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),                                                      \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                                                    \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),                                                   \
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),                                                 \
	BPF_MOV64_IMM(BPF_REG_6, 1),                                                             \
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),                                                   \
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0),                                            \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),                                                    \
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_6, -16),                                         \
	BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),                                                      \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                                                    \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),                                                   \
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),                                                    \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),                                                  \
	BPF_MOV64_IMM(BPF_REG_4, BPF_ANY),                                                       \
	BPF_EMIT_CALL(BPF_FUNC_map_update_elem),                                                 \
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),                                                      \
	BPF_EXIT_INSN()

static const struct bpf_insn p_hash[] = {
	PKT_PTRS,
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 4),
	BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 23),		/* to the last exit */
	BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_2, 0),
	HASH_BODY,
	BPF_EXIT_INSN(),
};

static const struct bpf_insn e_hash[] = {
	BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_1, 0),
	HASH_BODY,
};

/* task: bpf_get_current_task_btf(), then t->pid + t->tgid + t->real_parent->tgid read directly
 * (probe loads), XDP_PASS; task-fields: t->pid, tgid, prio and static_prio.  The offsets are
 * the kernel's BTF's (task_prog_init()). */
static struct bpf_insn p_task[8];
static struct bpf_insn p_task_fields[9];

static bool task_prog_init(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 task = btf_vmlinux_task_struct();
	long off[5] = { -1, -1, -1, -1, -1 };
	static const char *const names[5] = { "pid", "tgid", "real_parent", "prio",
					      "static_prio" };

	for (int j = 0; task && j < 5; j++)
		off[j] = btf_member_offset(btf, task, names[j]);
	for (int j = 0; j < 5; j++)
		if (off[j] < 0 || off[j] > INT16_MAX)
			return false;
	const struct bpf_insn fields[9] = {
		BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, (int16_t)off[0]),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, (int16_t)off[1]),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_0, (int16_t)off[3]),
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_0, (int16_t)off[4]),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_4),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	memcpy(p_task_fields, fields, sizeof(fields));
	const struct bpf_insn prog[8] = {
		BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, (int16_t)off[0]),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, (int16_t)off[1]),
		BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0, (int16_t)off[2]),
		BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_3, (int16_t)off[1]),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	memcpy(p_task, prog, sizeof(prog));
	return true;
}

/* ---- sides ---- */

#define ROUNDS 9		/* interleaved rounds per row; medians are reported */
#define TR_TARGET_NS 10e6	/* aim for this much program time per TEST_RUN call */
#define WALL_TARGET_NS 5e6	/* and per timed loop of the ext and native sides */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One BPF_PROG_TEST_RUN call with repeat: the mean ns per run it reports in duration.  Wall
 * time would charge the kernel's fixed cost per call (XDP test runs with repeat > 1 swap the XDP
 * dispatcher, an RCU grace period: ~25 ms here) to the program.  Returns -1 if the call fails.
 * *wall (if wall) gets the call's wall time per run: duration is whole ns, a coarse measure of
 * the runs of a few ns userbpf makes, and userbpf's fixed cost per call is a few microseconds,
 * nothing beside the ~10 ms of runs, so its wall time per run is the finer measure of the
 * same thing (it counts the loop around the runs, as the native side's wall time does). */
static double test_run_once(bpf_call_fn call, int prog_fd, const uint8_t *pkt, uint32_t len,
			    uint32_t repeat, double *wall)
{
	union bpf_attr a;
	double t0;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog_fd;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = len;
	a.test.repeat = repeat;
	t0 = bench_now();
	if (call(BPF_PROG_TEST_RUN, &a, sizeof(a)))
		return -1;
	if (wall)
		*wall = (bench_now() - t0) * 1e9 / repeat;
	return a.test.duration;
}

/* The repeat count that makes one TEST_RUN call last about TR_TARGET_NS (from a probe call after
 * a warm-up one: a first call's one-time costs, such as userbpf's first look at the current
 * task, would make the count small and leave a later call's fixed cost spread over few runs);
 * 0 if the call fails. */
static uint32_t test_run_repeat(bpf_call_fn call, int prog_fd, const uint8_t *pkt, uint32_t len)
{
	double ns = test_run_once(call, prog_fd, pkt, len, 1000, NULL), r;

	if (ns >= 0)
		ns = test_run_once(call, prog_fd, pkt, len, 1000, NULL);
	if (ns < 0)
		return 0;
	r = TR_TARGET_NS / (ns > 0 ? ns : 1);
	return r < 1000 ? 1000 : r > MAX_BATCH ? MAX_BATCH : (uint32_t)r;
}

/* ns per call of fn's n operations, wall clock. */
static double wall_once(bench_fn fn, void *ctx, uint64_t n)
{
	double t0 = bench_now();

	fn(ctx, 0, 1, n);
	return (bench_now() - t0) * 1e9 / (double)n;
}

/* The n that makes one wall_once() last about WALL_TARGET_NS (calibrating warms up too). */
static uint64_t wall_count(bench_fn fn, void *ctx)
{
	uint64_t n = 1024;
	double ns;

	while ((ns = wall_once(fn, ctx, n) * (double)n) < WALL_TARGET_NS / 5 && n < (1ull << 36))
		n *= 4;
	n = (uint64_t)((double)n * WALL_TARGET_NS / (ns > 1 ? ns : 1));
	return n ? n : 1;
}

struct ext_side {
	struct userbpf_prog *prog;
	void *ctx;
};

static volatile uint64_t sink;

static uint64_t side_ext(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct ext_side *s = ctx;
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc += userbpf_prog_run(s->prog, s->ctx);
	sink = acc;
	return 0;
}

struct native_side {
	uint64_t (*fn)(const uint8_t *pkt, size_t len);
	const uint8_t *pkt;
	size_t len;
};

static uint64_t side_native(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct native_side *s = ctx;
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc += s->fn(s->pkt, s->len);
	sink = acc;
	return 0;
}

/* ---- setup ---- */

static int map_create(bpf_call_fn call)
{
	union bpf_attr a;
	uint64_t v = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_HASH;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1024;
	fd = call(BPF_MAP_CREATE, &a, sizeof(a));
	for (uint32_t k = 0; fd >= 0 && k < 1024; k++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)fd;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)&v;
		call(BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
	}
	return fd;
}

/* A copy of insns with MAP_SLOT replaced by map_fd (the caller frees it). */
static struct bpf_insn *with_map(const struct bpf_insn *insns, uint32_t cnt, int map_fd)
{
	struct bpf_insn *copy = malloc(cnt * sizeof(*copy));

	if (!copy)
		return NULL;
	memcpy(copy, insns, cnt * sizeof(*copy));
	for (uint32_t i = 0; i < cnt; i++)
		if (copy[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    copy[i].src_reg == BPF_PSEUDO_MAP_FD && copy[i].imm == MAP_SLOT)
			copy[i].imm = map_fd;
	return copy;
}

/* The BTF a program with a callback needs: int (void) functions, main global, the others
 * static (0 when it cannot be loaded). */
static int funcs_btf(bpf_call_fn call)
{
	static const char strs[] = "\0int\0main\0cb";
	static const uint32_t types[] = {
		T_INT(1, 4, BTF_INT_SIGNED, 0, 32), T_PROTO(1, 0),
		T_FUNC(5, 2, BTF_FUNC_GLOBAL), T_FUNC(10, 2, BTF_FUNC_STATIC),
	};
	struct blob b = btf_blob(types, sizeof(types) / 4, strs, sizeof(strs));
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.btf = (uintptr_t)b.data;
	a.btf_size = b.size;
	fd = call(BPF_BTF_LOAD, &a, sizeof(a));
	free(b.data);
	return fd;
}

static int xdp_load(bpf_call_fn call, const struct bpf_insn *insns, uint32_t cnt, int map_fd)
{
	struct bpf_insn *copy = with_map(insns, cnt, map_fd);
	struct bpf_func_info fi[2] = { { 0, 3 }, { 0, 4 } };
	union bpf_attr a;
	int fd, btf = -1;

	if (!copy)
		return -1;
	memset(&a, 0, sizeof(a));
	/* a callback (the only other function these programs have) needs BTF func_info */
	for (uint32_t i = 0; i + 1 < cnt; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    insns[i].src_reg == BPF_PSEUDO_FUNC && (btf = funcs_btf(call)) >= 0) {
			fi[1].insn_off = i + 1 + (uint32_t)insns[i].imm;
			a.prog_btf_fd = (uint32_t)btf;
			a.func_info_rec_size = sizeof(fi[0]);
			a.func_info = (uintptr_t)fi;
			a.func_info_cnt = 2;
			break;
		}
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (uintptr_t)copy;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	fd = call(BPF_PROG_LOAD, &a, sizeof(a));
	free(copy);
	if (btf >= 0)
		close(btf);
	return fd;
}

static uint8_t pkt_tcp[NATIVE_LEN];

/* Ethernet, IPv4 (IHL 5), TCP to port 80; the rest zero. */
static void packets_init(void)
{
	static const uint8_t hdr[] = {
		0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00,			/* eth */
		0x45, 0, 0, 40, 0, 1, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,	/* ip */
		0x30, 0x39, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
	};

	memcpy(pkt_tcp, hdr, sizeof(hdr));
	for (size_t i = sizeof(hdr); i < sizeof(pkt_tcp); i++)
		pkt_tcp[i] = (uint8_t)(i * 7);
}

struct prog_case {
	const char *name;
	const struct bpf_insn *insns;
	uint32_t cnt;
	const struct bpf_insn *ext;	/* NULL: no extension variant */
	uint32_t ext_cnt;
	uint32_t ext_ctx_size;
	uint32_t pkt_len;
	bool map;
	uint64_t (*native)(const uint8_t *pkt, size_t len);
	/* A second C baseline doing what the BPF program does the way it does it (NULL: none):
	 * "native-cb", bpf_loop's callback called through a pointer; "native-map", the same
	 * userbpf hash map operations called from C (so the ratio is what the JIT's code and
	 * calls add, not what the map costs). */
	const char *native2_name;
	uint64_t (*native2)(const uint8_t *pkt, size_t len);
};


static void print_ns(const char *label, double ns)
{
	if (ns < 0)
		printf("  %s -", label);
	else
		printf("  %s %.1f ns", label, ns);
}

/* Runs the sides of a row in ROUNDS interleaved rounds (userbpf, kernel, ext, native, each about
 * 5-10 ms), so that a change in the machine's speed during the row (a shared VM) hits every side
 * alike, and prints each side's median time and the median of the per-round ratios. */
static void measure_row(const struct prog_case *c, int ufd, int kfd, struct ext_side *es,
			struct native_side *ns, struct native_side *ns2, const char *name,
			const char *kernel_err)
{
	enum { U, K, E, NAT, NAT2, UW, NSIDES };
	double t[NSIDES][ROUNDS], ku[ROUNDS], un[ROUNDS], en[ROUNDS], un2[ROUNDS], uwn[ROUNDS];
	double med[NSIDES];
	bool have[NSIDES] = { ufd >= 0, kfd >= 0, es->prog != NULL, true, ns2->fn != NULL, false };
	uint32_t urep = 0, krep = 0;
	uint64_t en_n = 0, nn_n = wall_count(side_native, ns), nn2_n = 0;

	if (have[NAT2])
		nn2_n = wall_count(side_native, ns2);

	if (have[U])
		have[U] = (urep = test_run_repeat(bpf, ufd, pkt_tcp, c->pkt_len)) != 0;
	if (have[K])
		have[K] = (krep = test_run_repeat(kernel_bpf, kfd, pkt_tcp, c->pkt_len)) != 0;
	if (have[E])
		en_n = wall_count(side_ext, es);
	for (int r = 0; r < ROUNDS; r++) {
		if (have[U] && (t[U][r] = test_run_once(bpf, ufd, pkt_tcp, c->pkt_len, urep,
							 &t[UW][r])) < 0)
			have[U] = false;
		if (have[E])
			t[E][r] = wall_once(side_ext, es, en_n);
		t[NAT][r] = wall_once(side_native, ns, nn_n);
		if (have[NAT2])
			t[NAT2][r] = wall_once(side_native, ns2, nn2_n);
		if (have[K] &&
		    (t[K][r] = test_run_once(kernel_bpf, kfd, pkt_tcp, c->pkt_len, krep, NULL)) < 0)
			have[K] = false;
		ku[r] = have[U] && have[K] && t[U][r] > 0 ? t[K][r] / t[U][r] : -1;
		un[r] = have[U] ? t[U][r] / t[NAT][r] : -1;
		en[r] = have[E] ? t[E][r] / t[NAT][r] : -1;
		un2[r] = have[U] && have[NAT2] ? t[U][r] / t[NAT2][r] : -1;
		uwn[r] = have[U] ? t[UW][r] / t[NAT][r] : -1;
	}
	have[UW] = have[U];
	for (int s = 0; s < NSIDES; s++)
		med[s] = have[s] ? median(t[s], ROUNDS) : -1;

	printf("%-14s", name);
	print_ns("userbpf", med[U]);
	print_ns("ext", med[E]);
	print_ns("kernel", med[K]);
	print_ns("native", med[NAT]);
	if (have[U] && have[K] && med[U] > 0)
		printf("  kernel/userbpf %.2fx", median(ku, ROUNDS));
	if (have[U])
		printf("  userbpf/native %.2fx", median(un, ROUNDS));
	if (have[UW] && med[U] < 10) /* (whole ns: see test_run_once()) */
		printf("  userbpf-wall %.2f ns  userbpf-wall/native %.2fx", med[UW],
		       median(uwn, ROUNDS));
	if (have[E])
		printf("  ext/native %.2fx", median(en, ROUNDS));
	if (have[U] && have[NAT2])
		printf("  %s %.1f ns  userbpf/%s %.2fx", c->native2_name, med[NAT2], c->native2_name,
		       median(un2, ROUNDS));
	if (kernel_err)
		printf("  (kernel: %s)", kernel_err);
	putchar('\n');
}

static void prog_row(const struct prog_case *c)
{
	char name[64];
	struct ext_side es = { NULL, pkt_tcp };
	struct native_side ns = { c->native, pkt_tcp, c->pkt_len };
	struct native_side ns2 = { c->native2, pkt_tcp, c->pkt_len };
	int umap = -1, kmap = -1, ufd, kfd, kerr;

	snprintf(name, sizeof(name), "prog/%s", c->name);
	if (!bench_selected(name))
		return;
	if (c->map) {
		umap = map_create(bpf);
		kmap = map_create(kernel_bpf);
	}
	ufd = xdp_load(bpf, c->insns, c->cnt, umap);
	kfd = xdp_load(kernel_bpf, c->insns, c->cnt, kmap);
	kerr = errno;
	if (c->ext) {
		struct bpf_insn *copy = with_map(c->ext, c->ext_cnt, umap);
		struct userbpf_prog_load_opts opts = { .sz = sizeof(opts),
						       .ctx_size = c->ext_ctx_size,
						       .map_helpers = c->map };

		if (copy && userbpf_prog_load_ext(copy, c->ext_cnt, &opts, &es.prog))
			es.prog = NULL;
		free(copy);
	}
	if (c->native == native_hash)
		native_hash_init();

	if (c->native2 == native_hash_userbpf)
		native_hash_userbpf_bind(umap);
	measure_row(c, ufd, kfd, &es, &ns, &ns2, name, kfd < 0 ? strerror(kerr) : NULL);

	userbpf_prog_free(es.prog);
	if (ufd >= 0)
		close(ufd);
	if (kfd >= 0)
		close(kfd);
	if (umap >= 0)
		close(umap);
	if (kmap >= 0)
		close(kmap);
}

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

BENCH(progs)
{
	const struct prog_case cases[] = {
		{ "ret0", p_ret0, N(p_ret0), p_ret0, N(p_ret0), 0, 64, false, native_ret0, NULL, NULL },
		{ "parse", p_parse, N(p_parse), e_parse, N(e_parse), 54, 64, false,
		  native_parse_tcp, NULL, NULL },
		{ "csum1500", p_csum, N(p_csum), NULL, 0, 0, 1500, false, native_csum, NULL, NULL },
		{ "cc-csum1500", p_csum_cc, N(p_csum_cc), NULL, 0, 0, 1500, false, native_csum, NULL,
		  NULL },
		{ "cc3-csum1500", p_csum_cc3, N(p_csum_cc3), NULL, 0, 0, 1500, false, native_csum,
		  NULL, NULL },
		{ "loop100", p_loop, N(p_loop), p_loop, N(p_loop), 0, 64, false, native_loop, NULL, NULL },
		{ "bpf_loop100", p_loop_cb, N(p_loop_cb), NULL, 0, 0, 64, false, native_loop,
		  "native-cb", native_loop_cb },
		{ "hashmap", p_hash, N(p_hash), e_hash, N(e_hash), 4, 64, true, native_hash,
		  "native-map", native_hash_userbpf },
		{ "task", p_task, N(p_task), NULL, 0, 0, 64, false, native_task, NULL, NULL },
		{ "task-fields", p_task_fields, N(p_task_fields), NULL, 0, 0, 64, false,
		  native_task_fields, NULL, NULL },
	};
	bool have_task = task_prog_init();

	packets_init();
	printf("programs: ns per run (userbpf, kernel: BPF_PROG_TEST_RUN duration; ext: "
	       "userbpf_prog_run(); native: C -O2)\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if ((cases[i].insns != p_task && cases[i].insns != p_task_fields) || have_task)
			prog_row(&cases[i]);
}
