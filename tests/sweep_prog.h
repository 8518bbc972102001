/* The common parts of the generated programs of the verifier sweeps (test_diff_helper_args.c,
 * test_diff_ptr_alu.c, test_diff_mem_ops.c): a start that gives the registers things to point
 * at, the jumps of its checks to the program's end, and each side's map fd.
 */
#ifndef USERBPF_TESTS_SWEEP_PROG_H
#define USERBPF_TESTS_SWEEP_PROG_H

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
 * lookup of key 0 in the map whose LD_IMM64 has imm 0 (sweep_set_map() fills it in), with
 * SV_CHECKED NULL-checked; with pkt_bytes (and a pkt), r8/r9 the packet's data and end with
 * that many bytes checked.  The checks' jumps are left for sweep_skips_to(); the number of
 * instructions is returned. */
uint32_t sweep_start(struct bpf_insn *p, enum sweep_value value, const struct pkt_src *pkt,
		     int pkt_bytes, uint32_t skip_at[2], uint32_t *nskip);

/* Points the start's failed checks at instruction to. */
void sweep_skips_to(struct bpf_insn *p, const uint32_t *skip_at, uint32_t nskip, uint32_t to);

/* Gives every map LD_IMM64 of the n instructions the fd. */
void sweep_set_map(struct bpf_insn *p, uint32_t n, int fd);

#endif
