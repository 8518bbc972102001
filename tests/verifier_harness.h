/* Table-driven, differential verifier tests.
 *
 * A case is a small program with the verdict and error line the kernel gives.  vcase_run() loads
 * it into userbpf's bpf_check() and, where the kernel's bpf() works (root, CONFIG_BPF_SYSCALL),
 * into the live kernel with the same maps, and checks: userbpf's verdict and error line are the
 * table's; the kernel's are the table's too (so the table stays the kernel's truth); both agree.
 * The error line is the last non-empty line of the log before "processed N insns".
 * full_log cases compare the whole log; live_regs cases only the liveness section, so that a
 * difference elsewhere in the log does not hide one in the section.
 *
 * Maps: an LD_IMM64 whose imm is MAP_HASH / MAP_ARRAY / MAP_ARRAY1 refers to a map created for
 * the run on each side (hash 8-byte key/8-byte value; array 4/48, 4 entries; array 4/8, 1 entry;
 * read-only-to-programs arrays MAP_ARRAY_RO and MAP_RODATA, the latter filled and frozen; a
 * 4096-byte ring buffer MAP_RINGBUF; an empty 4-slot MAP_PROG_ARRAY; a
 * queue of 4 8-byte values MAP_QUEUE, and MAP_QUEUE_RO, read-only to programs; maps of maps
 * MAP_AOM and MAP_HOM).
 */
#ifndef TESTS_VERIFIER_HARNESS_H
#define TESTS_VERIFIER_HARNESS_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>

#include "userbpf/insn.h"

/* Tables list only the fields a case needs. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define VCASE_MAX_INSNS 48
#define MAP_HASH 0x7ff00001
#define MAP_ARRAY 0x7ff00002
#define MAP_ARRAY1 0x7ff00003
#define MAP_ARRAY_RO 0x7ff00004	/* array 4/16, 1 entry, BPF_F_RDONLY_PROG */
#define MAP_RODATA 0x7ff00005	/* the same, value bytes 1..16, frozen: .rodata */
#define MAP_RINGBUF 0x7ff00006	/* a 4096-byte ring buffer */
#define MAP_PROG_ARRAY 0x7ff00007	/* a program array, 4 (empty) slots */
#define MAP_QUEUE 0x7ff00008	/* a queue of 4 8-byte values */
#define MAP_QUEUE_RO 0x7ff00009	/* the same, BPF_F_RDONLY_PROG */
#define MAP_AOM 0x7ff0000a	/* an array of 4 maps shaped like MAP_ARRAY1 (all slots empty) */
#define MAP_HOM 0x7ff0000b	/* a hash of 4 maps (4-byte keys) shaped like MAP_HASH, empty */
#define MAP_HLOCK 0x7ff0000c	/* a hash 4/8, BTF value struct { u32 a; struct bpf_spin_lock l; } */
#define MAP_ALOCK 0x7ff0000d	/* an array of 2 such values */
#define MAP_HTIMER 0x7ff0000f	/* a hash 4/32, BTF value struct { u64 n; struct bpf_timer t;
				 * u64 m; }, 4 entries */
#define MAP_ATIMER 0x7ff00010	/* an array of 2 such values */
#define MAP_URINGBUF 0x7ff00011	/* a 4096-byte user ring buffer */
#define MAP_FMT 0x7ff0000e	/* .rodata (frozen, read-only to programs) of 16 format strings,
				 * each in 16 bytes (FMT_TEXT; FMT(i) is the i-th's offset) */
#define FMT_TEXT                                                                                   \
	"%d %u\0\0\0\0\0\0\0\0\0\0\0"                                                               \
	"%s and %llx\0\0\0\0\0"                                                                       \
	"%pI4 %pi6\0\0\0\0\0\0\0"                                                                     \
	"%q\0\0\0\0\0\0\0\0\0\0\0\0\0\0"                                                                \
	"%d%d%d%d%d\0\0\0\0\0\0"                                                                      \
	"\x01 %d\0\0\0\0\0\0\0\0\0\0\0\0"                                                                 \
	"no args\0\0\0\0\0\0\0\0\0"                                                                   \
	"100%% %c\0\0\0\0\0\0\0\0"                                                                    \
	"%5s|%-3d|%x\0\0\0\0\0"                                                                       \
	"%px %pK %pB\0\0\0\0\0"                                                                       \
	"%sx\0\0\0\0\0\0\0\0\0\0\0\0\0"                                                                 \
	"%ld %lld %lu\0\0\0\0"                                                                        \
	"%lllx\0\0\0\0\0\0\0\0\0\0\0"                                                                  \
	"%pks %pus\0\0\0\0\0\0\0"                                                                     \
	"%0+- 7d|%-08x\0\0\0"                                                                         \
	"%c%c%c%c%c%c\0\0\0\0"
#define FMT(i) ((i) * 16)

enum { REJECT = 0, ACCEPT = 1 };

struct vcase {
	const char *name;
	unsigned prog_type;
	struct bpf_insn insns[VCASE_MAX_INSNS];
	int verdict;		/* ACCEPT or REJECT */
	const char *err;	/* REJECT: the kernel's error line */
	int err_no;		/* REJECT: errno, 0 = don't check */
	const char *license;	/* NULL: "GPL" */
	const char *known;	/* a known disagreement of userbpf with the kernel: why */
	__u32 attach;		/* expected_attach_type */
	__u32 log_level;		/* 0: 1 */
	bool full_log;		/* compare the whole log with the kernel's, not only the error */
	bool live_regs;		/* compare the "Live regs before insn:" section of the level-2 log
				 * (which must be in the kernel's) */
	bool prec_lines;	/* compare the precision lines of the level-2 log ("mark_precise:",
				 * "force_precise:", "frame N: propagating ...", which must be in
				 * the kernel's) and the "processed ..." line */
	bool stats;		/* compare the verdict, errno and the "processed ..." line only (for
				 * logs that differ elsewhere, e.g. by precision marks) */
	__u32 prog_flags;	/* BPF_PROG_LOAD's prog_flags (e.g. BPF_F_TEST_STATE_FREQ) */
	bool funcs;		/* load with BTF and func_info: the main function global ("f0"),
				 * each subprogram (a bpf-to-bpf call's or a BPF_PSEUDO_FUNC's
				 * target) static ("f1", ...), all of type int (void); what
				 * callbacks need */
};

/* A case whose expectation is still to be filled in from the kernel: VERIFIER_SHOW=1 prints
 * each case's outcome on both sides ("SHOW name kernel-verdict errno line | userbpf ..."). */
#define TBD REJECT, "?"


struct vstats {
	int cases, agree, kernel_ran, known;
};

/* A program of any length (not a table row): the same checks as vcase_run(). */
void vprog_run(const struct vcase *c, const struct bpf_insn *insns, __u32 n, struct vstats *st);
/* Runs one case; failures are reported through test_fail(). */
void vcase_run(const struct vcase *c, struct vstats *st);
/* Runs a table and prints "<topic>: N cases, N agree with the kernel". */
void vcase_run_table(const char *topic, const struct vcase *t, int n);

/* userbpf's log of a case (at its log level), without the kernel; *ret is bpf_check()'s. */
const char *vcase_userbpf_log(const struct vcase *c, int *ret);

/* The first line where the kernel's log a and userbpf's b differ, for a failure message. */
void vlog_first_diff(const char *a, const char *b, char *out, size_t size);

/* Replaces what differs between two runs of one program in a log by "0x?": map addresses. */
void vlog_blank_addrs(char *log);

/* kfunc calls: `call` with src_reg BPF_PSEUDO_KFUNC_CALL and imm KF_BASE + i calls the i-th
 * of kf_names (in verifier_harness.c), whose id in the kernel's BTF replaces imm on both sides.
 * kfunc_btf_available() says whether there is a kernel BTF to find them in. */
#define KF_BASE 0x7fe00000
enum { KF_SIZE, KF_IS_NULL, KF_IS_RDONLY, KF_ADJUST, KF_SLICE, KF_SLICE_RDWR, KF_CLONE,
       KF_RCU_READ_LOCK, KF_RCU_READ_UNLOCK, KF_TCP_V4_RCV, KF_COPY, KF_MEMSET, KF_ITER_NEW,
       KF_ITER_NEXT, KF_ITER_DESTROY, KF_CAST_TO_KERN_CTX, KF_FROM_SKB, KF_FROM_XDP, KF_STRLEN,
       KF_STRNCHR, KF_STRCMP, KF_BITS_NEW, KF_BITS_NEXT, KF_BITS_DESTROY,
       KF_PREEMPT_OFF, KF_PREEMPT_ON, KF_COPY_USER_STR, KF_COPY_USER_DYNPTR,
       KF_COPY_USER_STR_DYNPTR, KF_PROBE_KERNEL_DYNPTR, KF_NAMES };
#define KFUNC(k) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, KF_BASE + (k))
/* r = the address of the kernel function (an LD_IMM64 of its BTF id: BPF_PSEUDO_BTF_ID) */
#define KSYM(r, k) BPF_LD_IMM64_RAW(r, BPF_PSEUDO_BTF_ID, KF_BASE + (k))
bool kfunc_btf_available(void);

/* Shorthands the tables share. */
#define R0_0 BPF_MOV64_IMM(0, 0)
#define EXIT BPF_EXIT_INSN()
/* r2 = fp - 8, key zeroed; r1 = map; call lookup */
#define LOOKUP(MAP)                                                                              \
	BPF_ST_MEM(BPF_DW, 10, -8, 0), BPF_MOV64_REG(2, 10), BPF_ALU64_IMM(BPF_ADD, 2, -8),       \
		BPF_LD_MAP_FD(1, MAP), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)
#define SKB(f) offsetof(struct __sk_buff, f)
#define XDPM(f) offsetof(struct xdp_md, f)
#define NCASES(t) ((int)(sizeof(t) / sizeof((t)[0])))

#define SOCK BPF_PROG_TYPE_SOCKET_FILTER
#define XDP BPF_PROG_TYPE_XDP
#define KPROBE BPF_PROG_TYPE_KPROBE
#define TP BPF_PROG_TYPE_TRACEPOINT
#define CLS BPF_PROG_TYPE_SCHED_CLS
#define RAWTP BPF_PROG_TYPE_RAW_TRACEPOINT
#define CGSKB BPF_PROG_TYPE_CGROUP_SKB
#define ACT BPF_PROG_TYPE_SCHED_ACT
#define LWTIN BPF_PROG_TYPE_LWT_IN
#define LWTOUT BPF_PROG_TYPE_LWT_OUT
#define LWTX BPF_PROG_TYPE_LWT_XMIT

#endif
