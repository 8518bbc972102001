/* The common parts of the generated programs of the verifier sweeps (test_diff_helper_args.c,
 * test_diff_ptr_alu.c, test_diff_ptr_jmp.c, test_diff_mem_ops.c): a start that gives the
 * registers things to point at, the jumps of its checks to the program's end, registers loaded
 * with each kind of thing, and each side's map fd.
 */
#ifndef USERBPF_TESTS_SWEEP_PROG_H
#define USERBPF_TESTS_SWEEP_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "userbpf/insn.h"

/* Where a program type's packet pointers come from: the ctx offsets of data and data_end (0:
 * the type has none), and their width (BPF_W or BPF_DW). */
struct pkt_src {
	short data, data_end;
	int size;
};

enum sweep_value { SV_NONE, SV_CHECKED, SV_UNCHECKED };

/* A program's start, at p: r6 = ctx and 32 zeroed stack bytes below fp; with value, r7 = the
 * lookup of key 0 in the map whose LD_IMM64 has imm 0 (fill_map_fds() fills it in), with
 * SV_CHECKED NULL-checked; with pkt_bytes (and a pkt), r8/r9 the packet's data and end with
 * that many bytes checked.  The checks' jumps are left for sweep_skips_to(); the number of
 * instructions is returned. */
uint32_t sweep_start(struct bpf_insn *p, enum sweep_value value, const struct pkt_src *pkt,
		     int pkt_bytes, uint32_t skip_at[2], uint32_t *nskip);

/* Points the start's failed checks at instruction to. */
void sweep_skips_to(struct bpf_insn *p, const uint32_t *skip_at, uint32_t nskip, uint32_t to);

/* What a register holds, loaded after sweep_start() (with a value and 16 packet bytes) and
 * r4 = an unknown scalar: the ctx, the frame pointer, a stack pointer, a map, a map value and
 * one not yet NULL-checked, packet data, its end and its metadata (meta_off: its ctx offset),
 * an unknown scalar. */
enum sweep_kind { K_CTX, K_FP, K_STACK, K_MAP, K_VALUE, K_VALUE_OR_NULL, K_PKT, K_PKT_END,
		  K_PKT_META, K_SCALAR, SWEEP_KINDS };
extern const char *const sweep_kind_names[SWEEP_KINDS];
uint32_t sweep_load(struct bpf_insn *p, uint32_t n, int reg, enum sweep_kind k, int meta_off);

/* The program types with packet pointers the pointer sweeps use (XDP and tc): where their
 * packet pointers, metadata pointer (-1: none) and a scalar field are in the ctx. */
struct sweep_type {
	uint32_t type;
	struct pkt_src pkt;
	short data_meta, scalar;
};
extern const struct sweep_type sweep_pkt_types[2];

/* Where case i of a pointer sweep is, its cases numbered in mixed radix over (program type,
 * register kind, operation, source, 64-bit or 32-bit, use); sweep_count(): how many. */
struct sweep_at {
	int t;			/* sweep_pkt_types[t] */
	enum sweep_kind d;
	uint32_t op, src, use;	/* indexes */
	bool wide;		/* 64-bit */
};
struct sweep_at sweep_at(uint32_t i, uint32_t nops, uint32_t nsrcs, uint32_t nuses);
uint32_t sweep_count(uint32_t nops, uint32_t nsrcs, uint32_t nuses);

/* One case of a sweep, numbered i: fills p (with the map LD_IMM64 imm 0) and its length,
 * the program type and what to call it; false to leave the case out. */
typedef bool (*sweep_case_fn)(uint32_t i, struct bpf_insn *p, uint32_t *n, uint32_t *type,
			      char *what, size_t what_size);

/* Loads cases 0..count-1 on the kernel and on userbpf, each side with its own 64-byte array map,
 * and compares verdicts and error lines (failing the test where they differ); the number of
 * programs loaded, *accepted those accepted.  -1 if the maps cannot be made. */
int sweep_compare(uint32_t count, sweep_case_fn fn, int *accepted);
/* sweep_compare(), then the counts (printed with TEST_VERBOSE) must reach the minimums. */
void sweep_compare_all(const char *name, uint32_t count, sweep_case_fn fn, int min_programs,
		       int min_accepted);

#endif
