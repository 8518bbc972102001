/* Benchmark runner: runs every registered BENCH (rows filtered by the command line's substrings)
 * and holds the timer and the common row format (see bench.h).
 *
 * Usage: bench [--reps N] [--ms N] [FILTER...]
 *   --reps N  timed runs per side and row, the median is reported (default 5)
 *   --ms N    target length of one timed run in milliseconds (default 25)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static struct bench_case *benches_head, **benches_tail = &benches_head;
static int reps = 5;
static double target_sec = 0.025;
static int nfilters;
static char **filters;

void bench_register(struct bench_case *bc)
{
	*benches_tail = bc;
	benches_tail = &bc->next;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_selected(const char *name)
{
	if (!nfilters)
		return 1;
	for (int i = 0; i < nfilters; i++)
		if (strstr(name, filters[i]))
			return 1;
	return 0;
}

struct bench_thread {
	pthread_t th;
	bench_fn fn;
	void *ctx;
	unsigned int tid, nthreads;
	uint64_t n, failures;
	double t0, t1;
	pthread_barrier_t *bar;
};

static void *bench_thread_main(void *arg)
{
	struct bench_thread *bt = arg;

	pthread_barrier_wait(bt->bar);
	bt->t0 = bench_now();
	bt->failures = bt->fn(bt->ctx, bt->tid, bt->nthreads, bt->n);
	bt->t1 = bench_now();
	return NULL;
}

/* One run of n operations per thread; returns the wall time from the first thread's start to the
 * last one's end, or -1. */
static double run_once(bench_fn fn, void *ctx, unsigned int nthreads, uint64_t n,
		       uint64_t *failures)
{
	struct bench_thread bt[64];
	pthread_barrier_t bar;
	double t0 = 1e300, t1 = 0;

	if (nthreads > 64)
		return -1;
	if (nthreads == 1) {
		t0 = bench_now();
		*failures += fn(ctx, 0, 1, n);
		return bench_now() - t0;
	}
	pthread_barrier_init(&bar, NULL, nthreads);
	for (unsigned int t = 0; t < nthreads; t++) {
		bt[t] = (struct bench_thread){ .fn = fn, .ctx = ctx, .tid = t, .nthreads = nthreads,
					       .n = n, .bar = &bar };
		if (pthread_create(&bt[t].th, NULL, bench_thread_main, &bt[t])) {
			/* the barrier would never open: give up on this process */
			perror("pthread_create");
			exit(2);
		}
	}
	for (unsigned int t = 0; t < nthreads; t++) {
		pthread_join(bt[t].th, NULL);
		*failures += bt[t].failures;
		if (bt[t].t0 < t0)
			t0 = bt[t].t0;
		if (bt[t].t1 > t1)
			t1 = bt[t].t1;
	}
	pthread_barrier_destroy(&bar);
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int bench_measure(bench_fn fn, void *ctx, unsigned int nthreads, struct bench_stat *st)
{
	uint64_t n = 256;
	double dt, rates[64];
	int nr = reps < 64 ? reps : 64;

	memset(st, 0, sizeof(*st));
	/* Calibrate (this also warms up caches and per-thread state): grow n until one run takes
	 * at least a fifth of the target, then scale to the target. */
	for (;;) {
		dt = run_once(fn, ctx, nthreads, n, &st->failures);
		if (dt < 0)
			return -1;
		if (dt >= target_sec / 5 || n >= (1ULL << 40))
			break;
		n *= 4;
	}
	n = (uint64_t)(n * (target_sec / (dt > 1e-9 ? dt : 1e-9)));
	if (n < 1)
		n = 1;
	for (int i = 0; i < nr; i++) {
		dt = run_once(fn, ctx, nthreads, n, &st->failures);
		rates[i] = dt > 0 ? (double)n * nthreads / dt : 0;
	}
	qsort(rates, nr, sizeof(double), cmp_double);
	st->median = nr % 2 ? rates[nr / 2] : (rates[nr / 2 - 1] + rates[nr / 2]) / 2;
	st->best = rates[nr - 1];
	return 0;
}

static void print_rate(double r)
{
	if (r >= 1e6)
		printf("%.3g Mops/s", r / 1e6);
	else
		printf("%.3g kops/s", r / 1e3);
}

void bench_row(const char *name, const struct bench_side *sides, unsigned int nsides,
	       unsigned int nthreads)
{
	struct bench_stat st[8];
	int ok[8];

	if (!bench_selected(name) || nsides > 8)
		return;
	for (unsigned int i = 0; i < nsides; i++)
		ok[i] = sides[i].fn && !bench_measure(sides[i].fn, sides[i].ctx, nthreads, &st[i]);
	printf("%-28s", name);
	for (unsigned int i = 0; i < nsides; i++) {
		printf("  ");
		if (!ok[i]) {
			printf("%s: unavailable", sides[i].label);
			continue;
		}
		printf("%s ", sides[i].label);
		print_rate(st[i].median);
		if (st[i].failures)
			printf(" (INVALID: %llu failed operations)",
			       (unsigned long long)st[i].failures);
	}
	for (unsigned int i = 1; i < nsides; i++) {
		if (!ok[0] || !ok[i] || st[i].median <= 0)
			continue;
		if (nsides == 2)
			printf("  ratio %.3gx", st[0].median / st[i].median);
		else
			printf("  ratio/%s %.3gx", sides[i].label, st[0].median / st[i].median);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	double t0 = bench_now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	filters = calloc(argc, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
			target_sec = atof(argv[++i]) / 1000;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: bench [--reps N] [--ms N] [FILTER...]\n");
			return 2;
		} else {
			filters[nfilters++] = argv[i];
		}
	}
	if (reps < 1)
		reps = 1;
	if (target_sec <= 0)
		target_sec = 0.001;
	printf("userbpf benchmarks: median of %d runs of ~%.0f ms; ratio = first column / other\n",
	       reps, target_sec * 1000);
	for (struct bench_case *bc = benches_head; bc; bc = bc->next)
		bc->fn();
	printf("total %.1f s\n", bench_now() - t0);
	free(filters);
	return 0;
}
