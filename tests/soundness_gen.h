/* Soundness testing of the verifier: a generator of almost-safe random programs and a driver that
 * loads each through userbpf's bpf(BPF_PROG_LOAD) (and, optionally, the live kernel's) and runs
 * every accepted one in the checked interpreter (src/prog/check_run.h) on random packets and map
 * contents.  A violation in a checked run of an accepted program is a soundness bug.
 *
 * The generator draws every choice from a struct gen_src: a seeded xorshift for the long run and
 * make check, or the bytes of a fuzz input (tests/fuzz/fuzz_verifier.c), zero once exhausted, so
 * the same code serves both.  Programs are built from snippets (scalar ALU, stack accesses at
 * constant and variable offsets, map lookups with and without NULL checks, packet accesses with
 * and without bounds checks, range-refining branches, bounded loops, bpf-to-bpf calls, helper
 * calls with memory arguments, ring buffer records, direct map value loads, tail calls from main
 * and from a subprogram, bpf_spin_lock regions), then sometimes
 * mutated by one field, so that the verifier both accepts and rejects many of them.
 */
#ifndef USERBPF_TESTS_SOUNDNESS_GEN_H
#define USERBPF_TESTS_SOUNDNESS_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/bpf.h>

#define GEN_MAX_INSNS 512

/* Map placeholders in generated LD_IMM64 (BPF_PSEUDO_MAP_FD) instructions. */
#define GEN_MAP_ARRAY 0x7fff0001
#define GEN_MAP_HASH 0x7fff0002
#define GEN_ARRAY_VALUE 48	/* array: u32 key, 48-byte values, 4 entries */
#define GEN_ARRAY_ENTRIES 4
#define GEN_HASH_VALUE 16	/* hash: u32 key, 16-byte values, 8 entries */
#define GEN_HASH_ENTRIES 8
#define GEN_MAP_RINGBUF 0x7fff0003	/* a 4096-byte ring buffer (never consumed: it fills) */
#define GEN_RINGBUF_SIZE 4096
#define GEN_MAP_ARRAY1 0x7fff0004	/* array: u32 key, 48-byte values, 1 entry (direct loads) */
/* array: u32 key, 2 entries of struct { int a; struct bpf_spin_lock lock; long b, c; } (BTF) */
#define GEN_MAP_LOCK 0x7fff0005
#define GEN_LOCK_VALUE 24
#define GEN_LOCK_OFF 4
#define GEN_LOCK_ENTRIES 2
/* One program array per generated program type (an array takes programs of the type of the
 * first program that uses it): the placeholder is GEN_MAP_PROG_ARRAY + the type's index. */
#define GEN_MAP_PROG_ARRAY 0x7fff0010
#define GEN_NTYPES 7
#define GEN_PROG_ARRAY_ENTRIES 4

/* The maps a generated program refers to, on one side. */
struct gen_maps {
	int array, hash, ringbuf, array1, lock;
	int progs[GEN_NTYPES];	/* empty program arrays: every tail call falls through */
};
#define GEN_MAPS_NONE { -1, -1, -1, -1, -1, { -1, -1, -1, -1, -1, -1, -1 } }

struct gen_src {
	uint64_t state;			/* xorshift state, when data is NULL */
	const uint8_t *data;		/* fuzz bytes, or NULL */
	size_t size, pos;
};

uint32_t gen_rand(struct gen_src *s);

/* Generates one program of a random type into insns (GEN_MAX_INSNS slots): mostly SOCKET_FILTER,
 * SCHED_CLS, XDP or CGROUP_SKB, sometimes SK_SKB, LWT_XMIT or LWT_IN (other ctx and helper
 * rules).  Returns the number of instructions; *type gets the program type. */
unsigned int gen_program(struct gen_src *s, struct bpf_insn *insns, uint32_t *type);

/* Replaces the map placeholders with fds (a copy in out). */
void gen_patch_maps(const struct bpf_insn *in, unsigned int cnt, struct bpf_insn *out,
		    const struct gen_maps *m);

/* Prints insns as a C table. */
void gen_print(FILE *f, const struct bpf_insn *insns, unsigned int cnt);

struct sound_stats {
	uint64_t generated, accepted, runs, violations;
	uint64_t kernel_compared, kernel_agree, kernel_accepted;
	uint64_t ua_kr, ur_ka;		/* userbpf accepts/kernel rejects, and the reverse */
	uint64_t kernel_skipped;	/* not compared: they call a helper the kernel lacks */
	uint64_t run_errors;		/* checked runs that ended in an error other than a violation */
	uint64_t cb_generated, cb_accepted;	/* programs with a callback (bpf_loop, for_each) */
	uint64_t dyn_generated, dyn_accepted;	/* programs that make a dynptr */
	uint64_t tc_generated, tc_accepted;	/* programs with a tail call */
	uint64_t tc_sub_generated, tc_sub_accepted;	/* ... in a subprogram or callback */
	uint64_t glob_generated, glob_accepted;	/* programs with a global function */
	uint64_t move_generated, move_accepted;	/* programs calling a helper that moves the packet */
	uint64_t lock_generated, lock_accepted;	/* programs taking a bpf_spin_lock */
	uint64_t mg_generated, mg_accepted;	/* programs with a may_goto loop */
	uint64_t kf_generated, kf_accepted;	/* programs calling a kfunc */
	uint64_t iter_generated, iter_accepted;	/* ... an open-coded iterator's */
	uint64_t str_generated, str_accepted;	/* ... a string kfunc's */
	/* accepted programs whose JIT code compares a packet check with a bound computed before
	 * its loop (jit_opts.pkt_cmp), and such checks */
	uint64_t hoist_accepted, hoist_checks;
	uint64_t task_generated, task_accepted; /* programs reading the current task's fields */
	/* accepted programs' probe loads, and the JIT's arena checks for them */
	uint64_t probe_loads, probe_checks;
};

struct sound_opts {
	uint64_t seed;
	double seconds;		/* stop after this long (0: no limit) */
	uint64_t max_progs;	/* stop after this many programs (0: no limit) */
	unsigned int inputs;	/* checked runs per accepted program */
	bool kernel;		/* also load each program into the live kernel */
	FILE *report;		/* violations are printed here (NULL: not printed) */
	const char *save_dir;	/* each violating program is saved here (NULL: not saved) */
	unsigned int max_reports;	/* print at most this many violations */
};

/* Runs the loop.  Returns 0, or -1 if the maps could not be created. */
int sound_run(const struct sound_opts *o, struct sound_stats *st);

/* Loads one program on userbpf (maps patched in) and runs it checked on inputs from s.  Returns
 * -1 when rejected, 0 when accepted and clean, 1 on a violation (printed to report if not NULL). */
/* Loads a program into userbpf with its map placeholders patched: the fd, or -1. */
int gen_load_user(const struct bpf_insn *insns, unsigned int cnt, uint32_t type);
/* The same on the kernel's bpf() (kernel) or userbpf's, with maps of its own (closed again: the
 * program holds them) and a log of level into log (NULL: none): the fd, or -1 and errno. */
int gen_load_on(int kernel, const struct bpf_insn *insns, unsigned int cnt, uint32_t type,
		char *log, size_t size, uint32_t level);
/* Prints program idx of seed and both verifiers' verdicts and logs. */
void sound_show(uint64_t seed, uint64_t idx, FILE *f);

int sound_check_one(struct gen_src *s, const struct bpf_insn *insns, unsigned int cnt,
		    uint32_t type, unsigned int inputs, FILE *report);

#endif
