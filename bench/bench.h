/* Benchmark framework for userbpf: a registry, a timer and one print format.
 *
 * Why: the point of userbpf's benchmarks is how it compares with the kernel's bpf() (and, for
 * programs, with native C), so every row measures several "sides" of the same case in the same run
 * and prints their throughputs and the ratio of the first side to each other one:
 *
 *   map/hash/lookup/1t  userbpf 25.1 Mops/s  kernel 0.84 Mops/s  ratio 29.9x
 *
 * A benchmark file defines BENCH(name) { ... }; a constructor registers it, so adding a file under
 * bench/ is all it takes.  A side is a function that does n operations from thread tid of nthreads;
 * bench_row() times it at a given thread count (repeating, and taking the median of several runs
 * sized to about --ms milliseconds each) and prints the row.  A side whose fn is NULL prints as
 * "LABEL: unavailable" (e.g. when the kernel's bpf() is not allowed).
 */
#ifndef USERBPF_BENCH_H
#define USERBPF_BENCH_H

#include <stdint.h>

struct bench_case {
	const char *name;
	void (*fn)(void);
	struct bench_case *next;
};

void bench_register(struct bench_case *bc);

#define BENCH(bname)                                                                             \
	static void bench_##bname(void);                                                         \
	static struct bench_case bench_case_##bname = { #bname, bench_##bname, NULL };           \
	__attribute__((constructor)) static void bench_register_##bname(void)                   \
	{                                                                                        \
		bench_register(&bench_case_##bname);                                             \
	}                                                                                        \
	static void bench_##bname(void)

/* Does n operations as thread tid of nthreads; returns how many of them failed (a failure makes
 * the measurement invalid, and the row says so). */
typedef uint64_t (*bench_fn)(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n);

struct bench_side {
	const char *label;	/* "userbpf", "kernel", "native" */
	bench_fn fn;		/* NULL: unavailable */
	void *ctx;
};

struct bench_stat {
	double median;		/* operations per second over all threads */
	double best;
	uint64_t failures;
};

/* Times fn at nthreads threads.  Returns 0, or -1 if a thread could not be started. */
int bench_measure(bench_fn fn, void *ctx, unsigned int nthreads, struct bench_stat *st);

/* Measures every side and prints one row: name, each side's median rate, and the ratio of the first
 * side's rate to each other available side's. */
void bench_row(const char *name, const struct bench_side *sides, unsigned int nsides,
	       unsigned int nthreads);

/* Whether a row of this name was selected on the command line (substring match). */
int bench_selected(const char *name);

/* Monotonic clock, in seconds. */
double bench_now(void);

/* A cheap per-thread random sequence for picking keys. */
static inline uint32_t bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

#endif
