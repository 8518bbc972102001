/* What the dynptr kfuncs do when programs run: each program below runs on userbpf (the JIT and
 * the interpreter) and must return the value the table gives, which the live kernel's run of the
 * same program must return too where its bpf() is available.  Results of 32 bits (int, u32,
 * bool) come back zero-extended, as from the kernel's compiled kfuncs.  Skipped without a kernel
 * BTF (/sys/kernel/btf/vmlinux), which the calls' ids come from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAXI 64

/* Placeholders the loader below fills in per side: the maps, and kfuncs by name. */
#define ARRAY_FD 0x7fd00001 /* array 4/16, 1 entry, value bytes 1..16 */
#define RINGBUF_FD 0x7fd00002 /* a 4096-byte ring buffer */
#define KF_BASE 0x7fe10000
static const char *const kf_names[] = { "bpf_dynptr_size", "bpf_dynptr_is_null",
					"bpf_dynptr_is_rdonly", "bpf_dynptr_adjust",
					"bpf_dynptr_slice", "bpf_dynptr_clone", "bpf_dynptr_copy",
					"bpf_dynptr_memset", "bpf_iter_num_new",
					"bpf_iter_num_next", "bpf_iter_num_destroy",
					"bpf_rcu_read_lock", "bpf_rcu_read_unlock",
					"bpf_dynptr_from_skb", "bpf_dynptr_from_xdp", "bpf_strchr",
					"bpf_strrchr", "bpf_strnlen", "bpf_strlen",
					"bpf_iter_bits_new", "bpf_iter_bits_next",
					"bpf_iter_bits_destroy", "bpf_preempt_disable",
					"bpf_preempt_enable" };
enum { SIZE, IS_NULL, IS_RDONLY, ADJUST, SLICE, CLONE, COPY, MEMSET, ITER_NEW, ITER_NEXT,
       ITER_DESTROY, RCU_LOCK, RCU_UNLOCK, FROM_SKB, FROM_XDP, STRCHR, STRRCHR, STRNLEN,
       STRLEN, BITS_NEW, BITS_NEXT, BITS_DESTROY, PREEMPT_OFF, PREEMPT_ON };
#define KFUNC(k) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, KF_BASE + (k))

#define CALL(id) BPF_EMIT_CALL(BPF_FUNC_##id)
#define FP(r, off) BPF_MOV64_REG(r, 10), BPF_ALU64_IMM(BPF_ADD, r, off)
#define EXIT BPF_EXIT_INSN()
/* r6 = the array's value (or return 0); a local dynptr over its size bytes at fp-16 (with
 * flags 1: a NULL dynptr) */
#define FROM_MEM(size, flags)                                                                    \
	BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4), BPF_LD_MAP_FD(1, ARRAY_FD),                    \
		CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 1), EXIT, BPF_MOV64_REG(6, 0),  \
		BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, flags), FP(4, -16), \
		CALL(dynptr_from_mem)
#define LOCAL(size) FROM_MEM(size, 0)
#define NULL_DYNPTR FROM_MEM(8, 1)
/* a bool result: its low byte (the kernel's kfuncs leave the rest of the register as it was) */
#define BOOL(r) BPF_ALU64_IMM(BPF_AND, r, 0xff)
#define ON(k, off) FP(1, off), KFUNC(k)
#define ADJ(off, start, end) FP(1, off), BPF_MOV64_IMM(2, start), BPF_MOV64_IMM(3, end), KFUNC(ADJUST)
/* r0 = bpf_dynptr_slice(fp + off, start, NULL, size) */
#define SLICE_OF(off, start, size)                                                               \
	FP(1, off), BPF_MOV64_IMM(2, start), BPF_MOV64_IMM(3, 0), BPF_MOV64_IMM(4, size), KFUNC(SLICE)
#define RESERVE(size)                                                                            \
	BPF_LD_MAP_FD(1, RINGBUF_FD), BPF_MOV64_IMM(2, size), BPF_MOV64_IMM(3, 0), FP(4, -16),    \
		CALL(ringbuf_reserve_dynptr)
#define SUBMIT(off) FP(1, off), BPF_MOV64_IMM(2, 0), CALL(ringbuf_submit_dynptr)
/* bpf_dynptr_from_skb/_xdp(ctx, flags, fp - 16) (r1 the ctx) */
#define PKT_DYN(k, flags) BPF_MOV64_IMM(2, flags), FP(3, -16), KFUNC(k)
#define R0_0_ BPF_MOV64_IMM(0, 0)
/* bpf_dynptr_copy(fp + dst, doff, fp + src, soff, n) */
#define COPY_OF(dst, doff, src, soff, n)                                                         \
	FP(1, dst), BPF_MOV64_IMM(2, doff), FP(3, src), BPF_MOV64_IMM(4, soff),                 \
		BPF_MOV64_IMM(5, n), KFUNC(COPY)
/* bpf_dynptr_memset(fp + off, at, n, val) */
#define MEMSET_OF(off, at, n, val)                                                               \
	FP(1, off), BPF_MOV64_IMM(2, at), BPF_MOV64_IMM(3, n), BPF_MOV64_IMM(4, val), KFUNC(MEMSET)
/* An iterator over [start, end) at fp-8: r7 = new()'s result, r6 = the sum of the numbers
 * times 3 plus the number of rounds, r0 = r7 << 24 | r6 (8 insns + the loop's 9) */
#define ITER_SUM(start, end)                                                                     \
	BPF_MOV64_IMM(6, 0), FP(1, -8), BPF_LD_IMM64(2, start), BPF_LD_IMM64(3, end),           \
		KFUNC(ITER_NEW), BPF_MOV64_REG(7, 0), FP(1, -8), KFUNC(ITER_NEXT),                \
		BPF_JMP_IMM(BPF_JEQ, 0, 0, 5), BPF_LDX_MEM(BPF_W, 1, 0, 0),                       \
		BPF_ALU64_IMM(BPF_MUL, 1, 3), BPF_ALU64_REG(BPF_ADD, 6, 1),                       \
		BPF_ALU64_IMM(BPF_ADD, 6, 1), BPF_JMP_IMM(BPF_JA, 0, 0, -9), FP(1, -8),           \
		KFUNC(ITER_DESTROY), BPF_ALU64_IMM(BPF_LSH, 7, 24), BPF_MOV64_REG(0, 6),           \
		BPF_ALU64_REG(BPF_OR, 0, 7)

/* A bits iterator at fp-40 over nwords u64s at r2 (set up by the caller): r0 = new()'s result's
 * low byte << 24 | the number of set bits << 16 | the sum of their indexes (9 insns + the
 * loop's 8) */
#define BITS_SUM(nwords)                                                                         \
	BPF_MOV64_IMM(6, 0), FP(1, -40), BPF_MOV64_IMM(3, nwords), KFUNC(BITS_NEW),              \
		BPF_MOV64_REG(7, 0), FP(1, -40), KFUNC(BITS_NEXT), BPF_JMP_IMM(BPF_JEQ, 0, 0, 4), \
		BPF_LDX_MEM(BPF_W, 1, 0, 0), BPF_ALU64_REG(BPF_ADD, 6, 1),                       \
		BPF_ALU64_IMM(BPF_ADD, 6, 0x10000), BPF_JMP_IMM(BPF_JA, 0, 0, -8), FP(1, -40),    \
		KFUNC(BITS_DESTROY), BPF_ALU64_IMM(BPF_AND, 7, 0xff), BPF_ALU64_IMM(BPF_LSH, 7, 24), \
		BPF_MOV64_REG(0, 6), BPF_ALU64_REG(BPF_OR, 0, 7)
/* two words at fp-16: w0 at fp-16, w1 at fp-8; r2 = fp-16 */
#define WORDS(w0, w1) BPF_LD_IMM64(1, w0), BPF_STX_MEM(BPF_DW, 10, 1, -16), BPF_LD_IMM64(1, w1), \
	BPF_STX_MEM(BPF_DW, 10, 1, -8), FP(2, -16)

/* "abc" at fp-8, r1 pointing at it */
#define ABC BPF_ST_MEM(BPF_W, 10, -8, 0x636261), FP(1, -8)

/* r0 = r0's low byte << 24 | the value's 3 bytes at off (r6 the value), little-endian */
#define AND_WORD(off)                                                                            \
	BPF_ALU64_IMM(BPF_AND, 0, 0xff), BPF_ALU64_IMM(BPF_LSH, 0, 24),                          \
		BPF_LDX_MEM(BPF_W, 1, 6, off), BPF_ALU64_IMM(BPF_AND, 1, 0xffffff),               \
		BPF_ALU64_REG(BPF_OR, 0, 1)

static const struct {
	const char *name;
	struct bpf_insn insns[MAXI];
	uint32_t ret;
	uint32_t type;	/* 0: XDP */
} progs[] = {
	{ "size", { LOCAL(16), ON(SIZE, -16), EXIT }, 16 },
	{ "size_of_null", { NULL_DYNPTR, ON(SIZE, -16), EXIT }, (uint32_t)-EINVAL },
	{ "is_null", { NULL_DYNPTR, ON(IS_NULL, -16), BPF_MOV64_REG(7, 0), BOOL(7), LOCAL(8),
	  ON(IS_NULL, -16), BOOL(0), BPF_ALU64_IMM(BPF_LSH, 7, 4), BPF_ALU64_REG(BPF_OR, 0, 7),
	  EXIT },
	  0x10 },
	{ "is_rdonly", { LOCAL(8), ON(IS_RDONLY, -16), BOOL(0), EXIT }, 0 },
	{ "adjust", { LOCAL(16), ADJ(-16, 2, 6), BPF_MOV64_REG(7, 0), ON(SIZE, -16),
	  BPF_ALU64_IMM(BPF_LSH, 7, 8), BPF_ALU64_REG(BPF_OR, 0, 7), EXIT }, 4 },
	{ "adjust_backwards", { LOCAL(16), ADJ(-16, 6, 2), EXIT }, (uint32_t)-EINVAL },
	{ "adjust_upper_32", { LOCAL(16), ADJ(-16, 6, 2), BPF_ALU64_IMM(BPF_RSH, 0, 32), EXIT }, 0 },
	{ "adjust_too_far", { LOCAL(16), ADJ(-16, 0, 17), EXIT }, (uint32_t)-ERANGE },
	{ "adjust_to_empty", { LOCAL(16), ADJ(-16, 16, 16), BPF_MOV64_REG(7, 0), ON(SIZE, -16),
	  BPF_ALU64_REG(BPF_ADD, 0, 7), EXIT }, 0 },
	/* value bytes 3..6 (1-based values 3, 4, 5, 6), little-endian */
	{ "slice_read", { LOCAL(16), SLICE_OF(-16, 2, 4), BPF_JMP_IMM(BPF_JNE, 0, 0, 2),
	  BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT }, 0x06050403 },
	{ "slice_after_adjust", { LOCAL(16), ADJ(-16, 4, 12), SLICE_OF(-16, 1, 2),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 2), BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_H, 0, 0, 0),
	  EXIT }, 0x0706 },
	{ "slice_past_end", { LOCAL(16), SLICE_OF(-16, 13, 4), BPF_JMP_IMM(BPF_JNE, 0, 0, 2),
	  BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT }, 99 },
	{ "slice_of_null", { NULL_DYNPTR, SLICE_OF(-16, 0, 1), BPF_JMP_IMM(BPF_JNE, 0, 0, 2),
	  BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_B, 0, 0, 0), EXIT }, 99 },
	{ "slice_with_buffer", { LOCAL(16), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(1, -16),
	  BPF_MOV64_IMM(2, 8), FP(3, -24), BPF_MOV64_IMM(4, 8), KFUNC(SLICE),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 2), BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_B, 0, 0, 7),
	  EXIT }, 16 },
	/* the clone moves on its own: the original keeps its view */
	{ "clone", { LOCAL(16), FP(1, -16), FP(2, -32), KFUNC(CLONE), BPF_MOV64_REG(7, 0),
	  ADJ(-32, 8, 10), ON(SIZE, -32), BPF_MOV64_REG(8, 0), ON(SIZE, -16),
	  BPF_ALU64_IMM(BPF_LSH, 8, 8), BPF_ALU64_REG(BPF_OR, 0, 8), BPF_ALU64_IMM(BPF_LSH, 7, 16),
	  BPF_ALU64_REG(BPF_OR, 0, 7), EXIT }, 0x0210 },
	{ "clone_of_null", { NULL_DYNPTR, FP(1, -16), FP(2, -32), KFUNC(CLONE),
	  BPF_MOV64_REG(7, 0), ON(IS_NULL, -32), BOOL(0), BPF_ALU64_IMM(BPF_LSH, 0, 32),
	  BPF_ALU64_REG(BPF_OR, 0, 7), BPF_ALU64_IMM(BPF_RSH, 0, 16), EXIT },
	  (uint32_t)(((1ull << 32) | (uint32_t)-EINVAL) >> 16) },
	/* copies between views of the value (they overlap: a memmove), and a memset; each returns
	 * its result, then the bytes it changed */
	{ "copy", { LOCAL(16), FP(1, -16), FP(2, -32), KFUNC(CLONE), ADJ(-32, 8, 16),
	  COPY_OF(-16, 0, -32, 0, 4), AND_WORD(0), EXIT }, 0x000b0a09 },
	{ "copy_overlap", { LOCAL(16), COPY_OF(-16, 1, -16, 0, 8), AND_WORD(4), EXIT }, 0x00060504 },
	{ "copy_dst_short", { LOCAL(16), FP(1, -16), FP(2, -32), KFUNC(CLONE), ADJ(-32, 8, 16),
	  COPY_OF(-32, 6, -16, 0, 4), EXIT }, (uint32_t)-E2BIG },
	{ "copy_src_short", { LOCAL(16), FP(1, -16), FP(2, -32), KFUNC(CLONE), ADJ(-32, 8, 16),
	  COPY_OF(-16, 0, -32, 6, 4), EXIT }, (uint32_t)-E2BIG },
	{ "copy_from_null", { NULL_DYNPTR, BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 16),
	  BPF_MOV64_IMM(3, 0), FP(4, -32), CALL(dynptr_from_mem), COPY_OF(-32, 0, -16, 0, 4),
	  EXIT }, (uint32_t)-EINVAL },
	{ "copy_into_null", { NULL_DYNPTR, BPF_MOV64_REG(1, 6), BPF_MOV64_IMM(2, 16),
	  BPF_MOV64_IMM(3, 0), FP(4, -32), CALL(dynptr_from_mem), COPY_OF(-16, 0, -32, 0, 4),
	  EXIT }, (uint32_t)-EINVAL },
	{ "copy_nulls_nothing", { NULL_DYNPTR, COPY_OF(-16, 0, -16, 0, 0), EXIT }, 0 },
	{ "copy_nulls", { NULL_DYNPTR, COPY_OF(-16, 0, -16, 0, 1), EXIT }, (uint32_t)-E2BIG },
	{ "memset", { LOCAL(16), MEMSET_OF(-16, 2, 3, 0x77), AND_WORD(0), EXIT }, 0x00770201 },
	{ "memset_past_end", { LOCAL(16), MEMSET_OF(-16, 14, 3, 0x77), EXIT }, (uint32_t)-E2BIG },
	{ "memset_null", { NULL_DYNPTR, MEMSET_OF(-16, 0, 1, 0x77), EXIT }, (uint32_t)-E2BIG },
	{ "memset_null_nothing", { NULL_DYNPTR, MEMSET_OF(-16, 0, 0, 0x77), EXIT }, 0 },
	/* open-coded iterators: numbers [start, end); a range the kernel refuses gives none */
	{ "iter_sum", { ITER_SUM(0, 5), EXIT }, 30 + 5 },
	{ "iter_negative", { ITER_SUM(-3, 1), EXIT }, (uint32_t)(-18 + 4) },
	{ "iter_empty", { ITER_SUM(7, 7), EXIT }, 0 },
	{ "iter_backwards", { ITER_SUM(5, 2), EXIT }, (uint32_t)-EINVAL << 24 },
	{ "iter_too_long", { ITER_SUM(0, (8 << 20) + 1), EXIT }, (uint32_t)-E2BIG << 24 },
	{ "iter_int_max", { ITER_SUM(0x7ffffffd, 0x7fffffff), EXIT },
	  (uint32_t)((0x7ffffffdull + 0x7ffffffeull) * 3 + 2) },
	/* _next() after the end keeps answering NULL */
	{ "iter_drained", { FP(1, -8), BPF_MOV64_IMM(2, 0), BPF_MOV64_IMM(3, 1), KFUNC(ITER_NEW),
	  BPF_MOV64_IMM(6, 0), FP(1, -8), KFUNC(ITER_NEXT), BPF_JMP_IMM(BPF_JEQ, 0, 0, 2),
	  BPF_ALU64_IMM(BPF_ADD, 6, 1), BPF_JMP_IMM(BPF_JA, 0, 0, -6), FP(1, -8), KFUNC(ITER_NEXT),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 1), BPF_ALU64_IMM(BPF_ADD, 6, 16), FP(1, -8),
	  KFUNC(ITER_DESTROY), BPF_MOV64_REG(0, 6), EXIT }, 17 },
	/* packets' dynptrs (the packet's bytes are i * 3 + 1): sized, sliced, read, written */
	{ "xdp_size", { PKT_DYN(FROM_XDP, 0), ON(SIZE, -16), EXIT }, 64 },
	{ "xdp_flags", { PKT_DYN(FROM_XDP, 1), EXIT }, (uint32_t)-EINVAL },
	{ "xdp_flags_null", { PKT_DYN(FROM_XDP, 1), ON(IS_NULL, -16), BOOL(0), EXIT }, 1 },
	{ "xdp_slice", { PKT_DYN(FROM_XDP, 0), SLICE_OF(-16, 12, 2), BPF_JMP_IMM(BPF_JNE, 0, 0, 2),
	  BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_H, 0, 0, 0), EXIT }, 37 | 40 << 8 },
	{ "xdp_slice_past_end", { PKT_DYN(FROM_XDP, 0), SLICE_OF(-16, 62, 4),
	  BPF_JMP_IMM(BPF_JNE, 0, 0, 2), BPF_MOV64_IMM(0, 99), EXIT, BPF_LDX_MEM(BPF_H, 0, 0, 0),
	  EXIT }, 99 },
	{ "xdp_read", { PKT_DYN(FROM_XDP, 0), FP(1, -24), BPF_MOV64_IMM(2, 4), FP(3, -16),
	  BPF_MOV64_IMM(4, 20), BPF_MOV64_IMM(5, 0), CALL(dynptr_read), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  EXIT, BPF_LDX_MEM(BPF_W, 0, 10, -24), EXIT }, 61 | 64 << 8 | 67 << 16 | 70u << 24 },
	{ "xdp_write", { BPF_MOV64_REG(6, 1), PKT_DYN(FROM_XDP, 0), BPF_ST_MEM(BPF_W, 10, -24, 0x55),
	  FP(1, -16), BPF_MOV64_IMM(2, 30), FP(3, -24), BPF_MOV64_IMM(4, 1), BPF_MOV64_IMM(5, 0),
	  CALL(dynptr_write), BPF_MOV64_REG(7, 0), BPF_LDX_MEM(BPF_W, 2, 6, 0),
	  BPF_LDX_MEM(BPF_W, 3, 6, 4), BPF_MOV64_REG(4, 2), BPF_ALU64_IMM(BPF_ADD, 4, 31),
	  BPF_MOV64_IMM(0, 98), BPF_JMP_REG(BPF_JGT, 4, 3, 2), BPF_LDX_MEM(BPF_B, 0, 2, 30),
	  BPF_ALU64_REG(BPF_ADD, 0, 7), EXIT }, 0x55 },
	{ "xdp_write_flags", { PKT_DYN(FROM_XDP, 0), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(1, -16),
	  BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 1), BPF_MOV64_IMM(5, 1),
	  CALL(dynptr_write), EXIT },
	  (uint32_t)-EINVAL },
	{ "xdp_data_helper", { PKT_DYN(FROM_XDP, 0), FP(1, -16), BPF_MOV64_IMM(2, 0),
	  BPF_MOV64_IMM(3, 4), CALL(dynptr_data), BPF_JMP_IMM(BPF_JNE, 0, 0, 2),
	  BPF_MOV64_IMM(0, 99), EXIT, R0_0_, EXIT }, 99 },
	{ "skb_size_slice", { PKT_DYN(FROM_SKB, 0), ON(SIZE, -16), BPF_MOV64_REG(7, 0),
	  SLICE_OF(-16, 3, 1), BPF_JMP_IMM(BPF_JNE, 0, 0, 2), BPF_MOV64_IMM(0, 99), EXIT,
	  BPF_LDX_MEM(BPF_B, 0, 0, 0), BPF_ALU64_IMM(BPF_LSH, 7, 8), BPF_ALU64_REG(BPF_OR, 0, 7),
	  EXIT }, 10 | 64 << 8, BPF_PROG_TYPE_SCHED_CLS },
	{ "skb_write_flags", { PKT_DYN(FROM_SKB, 0), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(1, -16),
	  BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 2),
	  BPF_MOV64_IMM(5, BPF_F_INVALIDATE_HASH), CALL(dynptr_write), BPF_MOV64_REG(7, 0),
	  FP(1, -16), BPF_MOV64_IMM(2, 0), FP(3, -24), BPF_MOV64_IMM(4, 2),
	  BPF_MOV64_IMM(5, 8), CALL(dynptr_write), BPF_ALU64_IMM(BPF_AND, 0, 0xff),
	  BPF_ALU64_IMM(BPF_LSH, 0, 8), BPF_ALU64_REG(BPF_OR, 0, 7), EXIT },
	  (uint8_t)-EINVAL << 8, BPF_PROG_TYPE_SCHED_CLS },
	/* (a cgroup skb program returns 0 or 1: 1 when read-only, and a write fails) */
	{ "skb_cgroup_rdonly", { PKT_DYN(FROM_SKB, 0), ON(IS_RDONLY, -16), BOOL(0),
	  BPF_MOV64_REG(7, 0), BPF_ST_MEM(BPF_DW, 10, -24, 0), FP(1, -16), BPF_MOV64_IMM(2, 0),
	  FP(3, -24), BPF_MOV64_IMM(4, 2), BPF_MOV64_IMM(5, 0), CALL(dynptr_write),
	  BPF_ALU64_IMM(BPF_LSH, 0, 32), BPF_ALU64_IMM(BPF_ARSH, 0, 32),
	  BPF_JMP_IMM(BPF_JEQ, 0, -EINVAL, 1), BPF_MOV64_IMM(7, 0), BPF_MOV64_REG(0, 7),
	  BPF_ALU64_IMM(BPF_AND, 0, 1), EXIT },
	  1, BPF_PROG_TYPE_CGROUP_SKB },
	/* an RCU read section around a lookup changes nothing */
	{ "rcu_section", { KFUNC(RCU_LOCK), LOCAL(16), ON(SIZE, -16), BPF_MOV64_REG(7, 0),
	  KFUNC(RCU_UNLOCK), BPF_MOV64_REG(0, 7), EXIT }, 16 },
	/* nor does a region with preemption off, nested */
	{ "preempt_section", { KFUNC(PREEMPT_OFF), KFUNC(PREEMPT_OFF), LOCAL(16), ON(SIZE, -16),
	  BPF_MOV64_REG(7, 0), KFUNC(PREEMPT_ON), KFUNC(PREEMPT_ON), BPF_MOV64_REG(0, 7), EXIT },
	  16 },
	/* a ring buffer record: sized, sliced, cloned and submitted through the clone */
	{ "ringbuf", { RESERVE(24), ON(SIZE, -16), BPF_MOV64_REG(7, 0), SLICE_OF(-16, 20, 4),
	  BPF_JMP_IMM(BPF_JEQ, 0, 0, 1), BPF_ALU64_IMM(BPF_ADD, 7, 0x100), FP(1, -16), FP(2, -32),
	  KFUNC(CLONE), SUBMIT(-32), BPF_MOV64_REG(0, 7), EXIT }, 0x118 },
	/* the string kfuncs' integer arguments: a char is the register's low byte, an int its
	 * low 32 bits, a size_t all 64 */
	{ "str_chr_char", { ABC, BPF_MOV64_IMM(2, 0x163), KFUNC(STRCHR), EXIT }, 2 },
	{ "str_rchr_int", { ABC, BPF_LD_IMM64(2, 0x100000063ull), KFUNC(STRRCHR), EXIT }, 2 },
	{ "str_nlen_size", { ABC, BPF_LD_IMM64(2, 0x100000002ull), KFUNC(STRNLEN), EXIT }, 3 },
	/* addresses: the kernel's unmapped guard hole, a non-canonical one, a small integer */
	{ "str_len_unmapped", { BPF_LD_IMM64(1, 0xffff800000000000ull), KFUNC(STRLEN), EXIT },
	  (uint32_t)-EFAULT },
	{ "str_len_noncanonical", { BPF_LD_IMM64(1, 0x0000800000000000ull), KFUNC(STRLEN),
	  EXIT }, (uint32_t)-ERANGE },
	{ "str_len_small", { BPF_MOV64_IMM(1, 4095), KFUNC(STRLEN), EXIT }, (uint32_t)-ERANGE },
	/* the bits iterator: one word (kept in the iterator), two (copied to the heap), none,
	 * too many, NULL, addresses it cannot read */
	{ "bits_one_word", { WORDS(0xf7310, 0), BITS_SUM(1), EXIT }, 10 << 16 | 130 },
	{ "bits_two_words", { WORDS(1ull << 63 | 1, 1 << 5 | 1), BITS_SUM(2), EXIT },
	  4 << 16 | 196 },
	{ "bits_none_set", { WORDS(0, 0), BITS_SUM(2), EXIT }, 0 },
	{ "bits_top_bit", { WORDS(0, 1ull << 63), BITS_SUM(2), EXIT }, 1 << 16 | 127 },
	{ "bits_zero_words", { WORDS(1, 1), BITS_SUM(0), EXIT }, (uint32_t)(uint8_t)-EINVAL << 24 },
	{ "bits_too_many", { WORDS(1, 1), BITS_SUM(512), EXIT },
	  (uint32_t)(uint8_t)-E2BIG << 24 },
	{ "bits_null", { BPF_MOV64_IMM(2, 0), BITS_SUM(1), EXIT },
	  (uint32_t)(uint8_t)-EINVAL << 24 },
	{ "bits_small_int_one", { BPF_MOV64_IMM(2, 1234), BITS_SUM(1), EXIT },
	  (uint32_t)(uint8_t)-EFAULT << 24 },
	{ "bits_small_int_two", { BPF_MOV64_IMM(2, 1234), BITS_SUM(2), EXIT },
	  (uint32_t)(uint8_t)-ERANGE << 24 },
	{ "bits_unmapped_two", { BPF_LD_IMM64(2, 0xffff800000000000ull), BITS_SUM(2), EXIT },
	  (uint32_t)(uint8_t)-EFAULT << 24 },
	/* the array's value, bytes 1..16: 33 bits set, their indexes summing to 2316 */
	{ "bits_map_value", { BPF_ST_MEM(BPF_W, 10, -4, 0), FP(2, -4), BPF_LD_MAP_FD(1, ARRAY_FD),
	  CALL(map_lookup_elem), BPF_JMP_IMM(BPF_JNE, 0, 0, 1), EXIT, BPF_MOV64_REG(2, 0),
	  BITS_SUM(2), EXIT }, 33 << 16 | 2316 },
	{ "ringbuf_failed", { RESERVE(8192), ON(IS_NULL, -16), BPF_MOV64_REG(7, 0), BOOL(7),
	  SUBMIT(-16),
	  BPF_MOV64_REG(0, 7), EXIT }, 1 },
};

static int prog_len(const struct bpf_insn *in)
{
	int n = MAXI;

	while (n > 0 && !in[n - 1].code && !in[n - 1].imm && !in[n - 1].dst_reg &&
	       !in[n - 1].src_reg && !in[n - 1].off)
		n--;
	return n;
}

/* Whether the kernel's BTF has every kfunc prog calls (older kernels lack the newer ones). */
static bool kfuncs_known(const struct bpf_insn *prog, int n)
{
	for (int i = 0; i < n; i++)
		if (prog[i].code == (BPF_JMP | BPF_CALL) &&
		    prog[i].src_reg == BPF_PSEUDO_KFUNC_CALL && prog[i].imm >= KF_BASE &&
		    !btf_find_func(btf_vmlinux(), kf_names[prog[i].imm - KF_BASE]))
			return false;
	return true;
}

/* prog with side s's maps and the kernel's kfunc ids in place of the placeholders, into in. */
static void patch(const struct bpf_insn *prog, int n, const int fds[2], struct bpf_insn *in)
{
	memcpy(in, prog, (size_t)n * sizeof(*in));
	for (int i = 0; i < n; i++) {
		if (in[i].code == (BPF_LD | BPF_DW | BPF_IMM) && in[i].imm >= ARRAY_FD &&
		    in[i].imm <= RINGBUF_FD)
			in[i].imm = fds[in[i].imm - ARRAY_FD];
		if (in[i].src_reg == BPF_PSEUDO_KFUNC_CALL && in[i].imm >= KF_BASE)
			in[i].imm = (int32_t)btf_find_func(btf_vmlinux(), kf_names[in[i].imm - KF_BASE]);
	}
}

static int load(int s, uint32_t type, const struct bpf_insn *prog, int n, const int fds[2])
{
	struct bpf_insn in[MAXI];

	patch(prog, n, fds, in);
	return side_prog_load(s, type ? type : BPF_PROG_TYPE_XDP, in, (uint32_t)n);
}

/* The array's value: bytes 1..16 (the programs may change it). */
static void reset_value(int s, int fd)
{
	uint8_t v[16];
	uint32_t k = 0;

	for (int i = 0; i < 16; i++)
		v[i] = (uint8_t)(i + 1);
	CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &k, v, 0).rc, 0);
}

static void load_log(int s, uint32_t type, const struct bpf_insn *prog, int n, const int fds[2],
		     char *log, size_t size)
{
	struct bpf_insn in[MAXI];

	patch(prog, n, fds, in);
	side_prog_load_log(s, type ? type : BPF_PROG_TYPE_XDP, in, (uint32_t)n, log,
			   (uint32_t)size);
}

static void make_maps(int s, int fds[2])
{
	fds[0] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 16, 1, 0).rc;
	fds[1] = side_map_create(s, BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0).rc;
	CHECK(fds[0] >= 0 && fds[1] >= 0);
}

TEST(kfunc_run)
{
	int fds[NSIDES][2], old = userbpf_set_jit(1);
	bool kernel = kernel_bpf_available();
	uint8_t pkt[64];

	if (!btf_vmlinux()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc ids cannot be resolved");
		return;
	}
	for (int s = kernel ? K : U; s < NSIDES; s++)
		make_maps(s, fds[s]);
	for (size_t i = 0; i < N(progs); i++) {
		int n = prog_len(progs[i].insns);

		/* (the string kfuncs and the bits iterator read through process_vm_readv() on
		 * this process; the string kfuncs need a kernel of 6.17 or later for their ids) */
		if ((!strncmp(progs[i].name, "str_", 4) || !strncmp(progs[i].name, "bits_", 5)) &&
		    !self_reads_work()) {
			printf("  %s left out: process_vm_readv() cannot read this process\n",
			       progs[i].name);
			continue;
		}
		if (!kfuncs_known(progs[i].insns, n)) {
			printf("  %s left out: a kfunc it calls is not in this kernel's BTF\n",
			       progs[i].name);
			continue;
		}

		for (int s = kernel ? K : U; s < NSIDES; s++) {
			/* userbpf twice: the JIT, then the interpreter */
			for (int jit = 1; jit >= (s == U ? 0 : 1); jit--) {
				uint32_t ret = 0;
				int fd;

				userbpf_set_jit(jit);
				fd = load(s, progs[i].type, progs[i].insns, n, fds[s]);
				if (fd < 0 && getenv("TEST_VERBOSE")) {
					char log[4096];

					load_log(s, progs[i].type, progs[i].insns, n, fds[s], log,
						 sizeof(log));
					fprintf(stderr, "%s", log);
				}
				if (fd < 0) {
					test_fail(__FILE__, __LINE__, "%s: %s load failed (errno %d)",
						  progs[i].name, s == K ? "kernel" : "userbpf", errno);
					continue;
				}
				reset_value(s, fds[s][0]);
				for (size_t b = 0; b < sizeof(pkt); b++)
					pkt[b] = (uint8_t)(b * 3 + 1);
				CHECK_EQ(side_test_run(s, fd, pkt, sizeof(pkt), &ret).rc, 0);
				if (ret != progs[i].ret)
					test_fail(__FILE__, __LINE__, "%s: %s%s returned %#x, not %#x",
						  progs[i].name, s == K ? "kernel" : "userbpf",
						  s == K ? "" : jit ? " (JIT)" : " (interpreter)", ret,
						  progs[i].ret);
				close(fd);
			}
		}
	}
	userbpf_set_jit(old);
	for (int s = kernel ? K : U; s < NSIDES; s++)
		for (int m = 0; m < 2; m++)
			close(fds[s][m]);
}

/* userbpf alone: the string kfuncs read without faulting.  A string that ends in the last bytes
 * before an unreadable page is read whole; one that runs into it, or one in that page,
 * gives -EFAULT (the kernel's answer for its own unmapped addresses, above). */
TEST(kfunc_strings_fault)
{
	static const int fds[2] = { -1, -1 };
	char *page;
	struct {
		int at;		/* offset from the mapped page's start */
		const char *text;	/* written there (no NUL unless it has one) */
		uint32_t ret;
	} steps[] = {
		{ 4096 - 4, "abc", 3 },
		{ 4096 - 3, "xyz", (uint32_t)-EFAULT },
		{ 4096, NULL, (uint32_t)-EFAULT },
		{ 0, "hello", 5 },
	};

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_strlen")) {
		test_skip("no kernel BTF with bpf_strlen() (6.17 and later): no kfunc id for it");
		return;
	}
	if (!self_reads_work()) {
		test_skip("process_vm_readv() cannot read this process (qemu-user?): the string "
			  "kfuncs read through it");
		return;
	}
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	if (page == MAP_FAILED)
		return;
	/* (unreadable but kept: an unmapped page could be taken by the next mmap()) */
	CHECK_EQ(mprotect(page + 4096, 4096, PROT_NONE), 0);
	for (size_t i = 0; i < N(steps); i++) {
		struct bpf_insn prog[] = { BPF_LD_IMM64(1, (uint64_t)(uintptr_t)(page + steps[i].at)),
					   KFUNC(STRLEN), EXIT };
		uint8_t pkt[64] = { 0 };
		uint32_t ret = 0;

		if (steps[i].text)
			memcpy(page + steps[i].at, steps[i].text,
			       strlen(steps[i].text) + (steps[i].at + strlen(steps[i].text) < 4096));
		for (int jit = 1; jit >= 0; jit--) {
			int old = userbpf_set_jit(jit), fd = load(U, 0, prog, N(prog), fds);

			userbpf_set_jit(old);
			CHECK(fd >= 0);
			if (fd < 0)
				continue;
			CHECK_EQ(side_test_run(U, fd, pkt, sizeof(pkt), &ret).rc, 0);
			if (ret != steps[i].ret)
				test_fail(__FILE__, __LINE__, "step %zu (%s): %d, not %d", i,
					  jit ? "JIT" : "interpreter", (int)ret, (int)steps[i].ret);
			close(fd);
		}
	}
	munmap(page, 8192);
}
