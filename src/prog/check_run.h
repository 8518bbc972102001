/* Running a loaded program in the checked interpreter (src/exec/interp_checked.h), for soundness
 * testing: "what the verifier accepts is safe".
 *
 * prog_check_run() builds the context a program of the prog's type sees (socket filter, tc,
 * cgroup skb, sk_skb and the lwt types: a run_skb; XDP: an xdp_ctx) around a copy of the
 * caller's packet, and allows exactly: the context structure, the packet [data_meta, data_end)
 * (read-only where the type may only read it), the value of each element the program
 * looked up (value_size bytes at the address bpf_map_lookup_elem returned), element 0 of each
 * array map it holds (direct value loads), and its live stack frames.  Helper arguments are
 * checked against their prototypes: map arguments must be maps the program holds, key/value and
 * memory arguments must lie in allowed regions with their sizes, ctx arguments must be the
 * context.  Internal to userbpf (tests and tools link the static library).
 */
#ifndef USERBPF_PROG_CHECK_RUN_H
#define USERBPF_PROG_CHECK_RUN_H

#include "exec/interp_checked.h"
#include "util.h"

struct prog_check_result {
	int err;		/* interp_checked_exec()'s: 0, -EACCES (violation), -E2BIG, ... */
	u32 retval;
	u64 steps;
	struct interp_violation v;	/* valid when err == -EACCES */
};

/* Runs the program behind prog_fd once on a copy of pkt (len bytes), stopping after max_steps
 * instructions (0: no limit).  Returns 0 (the run's outcome in *res) or -errno if the program
 * could not be run at all (bad fd, unsupported type: -EOPNOTSUPP; no memory).  Callers skip such
 * programs.  Callbacks run checked, within the run of the helper that calls them. */
int prog_check_run(int prog_fd, const void *pkt, u32 len, u64 max_steps,
		   struct prog_check_result *res);

#endif
