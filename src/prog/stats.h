/* Run statistics of programs, on while a BPF_ENABLE_STATS fd is open (stats.c).
 *
 * As the kernel's bpf_stats_enabled_key: every run of a program (each repeat of a test run, each
 * userbpf_prog_run()) then adds 1 to its run_cnt and the run's time to its run_time_ns, which
 * BPF_OBJ_GET_INFO_BY_FD reports.  A tail-called program's runs count in its caller's, as in
 * the kernel.  Off, a test run pays one load and a branch for them per batch of runs, and an
 * embedded program's run (userbpf_prog_run()) nothing: turning them on takes every handle off its
 * fast path (prog_stats_switch()), as the kernel's static key patches its runs.
 */
#ifndef USERBPF_PROG_STATS_H
#define USERBPF_PROG_STATS_H

#include <time.h>

#include "prog/prog.h"

/* BPF_ENABLE_STATS fds open now. */
extern u32 prog_stats_users HIDDEN_DATA;

/* ext.c: statistics went on (or off): every userbpf_prog handle leaves (or takes back) its fast
 * path, which does not look at them. */
void prog_stats_switch(bool on);

static inline bool prog_stats_on(void)
{
	return unlikely(__atomic_load_n(&prog_stats_users, __ATOMIC_RELAXED) != 0);
}

/* The clock of runs' times, for statistics and test runs' durations (the kernel's
 * sched_clock(), ktime_get_ns()). */
static inline u64 prog_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

/* Adds runs runs that took ns in all to prog's counters (runs of any thread: atomics).  The
 * counters are the one part of a loaded program its runs write, hence the cast. */
static inline void prog_stats_add(const struct bpf_prog *prog, u64 runs, u64 ns)
{
	struct prog_run_stats *s = (struct prog_run_stats *)&prog->stats;

	__atomic_add_fetch(&s->cnt, runs, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->nsecs, ns, __ATOMIC_RELAXED);
}

#endif
