/* The long soundness run (make soundness SECONDS=600): generate random almost-safe programs, load
 * each on userbpf and on the live kernel (when its bpf() works), run every program userbpf
 * accepts in the checked interpreter on several random inputs, and report the figures.  Violating
 * programs are printed (the first few) and saved as C tables under the directory given.
 *
 * usage: soundness [SECONDS [SEED [SAVE_DIR]]]     exit status 1 if any violation was found
 *        soundness show SEED N                     program N of SEED and both verifiers' logs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soundness_gen.h"

int main(int argc, char **argv)
{
	struct sound_opts o = {
		.seconds = argc > 1 ? atof(argv[1]) : 60,
		.seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (unsigned long long)time(NULL),
		.save_dir = argc > 3 ? argv[3] : NULL,
		.inputs = 4,
		.kernel = true,
		.report = stdout,
		.max_reports = 5,
	};
	struct sound_stats st;

	if (argc > 3 && !strcmp(argv[1], "show")) {
		sound_show(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0), stdout);
		return 0;
	}

	printf("soundness: %.0f s, seed 0x%llx\n", o.seconds, (unsigned long long)o.seed);
	fflush(stdout);
	if (sound_run(&o, &st)) {
		fprintf(stderr, "soundness: cannot create maps\n");
		return 2;
	}
	printf("generated %llu, accepted by userbpf %llu (%.1f%%), checked runs %llu "
	       "(%llu ended in a run-time error), violations %llu\n",
	       (unsigned long long)st.generated, (unsigned long long)st.accepted,
	       st.generated ? 100.0 * st.accepted / st.generated : 0.0,
	       (unsigned long long)st.runs, (unsigned long long)st.run_errors,
	       (unsigned long long)st.violations);
	printf("with a callback: generated %llu, accepted %llu\n",
	       (unsigned long long)st.cb_generated, (unsigned long long)st.cb_accepted);
	printf("with a dynptr: generated %llu, accepted %llu\n",
	       (unsigned long long)st.dyn_generated, (unsigned long long)st.dyn_accepted);
	printf("with a tail call: generated %llu, accepted %llu (in a subprogram: generated %llu, "
	       "accepted %llu)\n",
	       (unsigned long long)st.tc_generated, (unsigned long long)st.tc_accepted,
	       (unsigned long long)st.tc_sub_generated, (unsigned long long)st.tc_sub_accepted);
	printf("with a global function: generated %llu, accepted %llu\n",
	       (unsigned long long)st.glob_generated, (unsigned long long)st.glob_accepted);
	printf("with a helper that moves the packet: generated %llu, accepted %llu\n",
	       (unsigned long long)st.move_generated, (unsigned long long)st.move_accepted);
	printf("with a bpf_spin_lock: generated %llu, accepted %llu\n",
	       (unsigned long long)st.lock_generated, (unsigned long long)st.lock_accepted);
	printf("with a may_goto loop: generated %llu, accepted %llu\n",
	       (unsigned long long)st.mg_generated, (unsigned long long)st.mg_accepted);
	printf("with a kfunc call: generated %llu, accepted %llu (with an iterator: generated %llu, "
	       "accepted %llu; with a string kfunc: generated %llu, accepted %llu)\n",
	       (unsigned long long)st.kf_generated, (unsigned long long)st.kf_accepted,
	       (unsigned long long)st.iter_generated, (unsigned long long)st.iter_accepted,
	       (unsigned long long)st.str_generated, (unsigned long long)st.str_accepted);
	printf("with a packet check the JIT compares with a bound made before its loop: accepted "
	       "%llu (%llu checks)\n",
	       (unsigned long long)st.hoist_accepted, (unsigned long long)st.hoist_checks);
	printf("with the current task's fields read: generated %llu, accepted %llu (%llu probe "
	       "loads, %llu JIT checks for them)\n",
	       (unsigned long long)st.task_generated, (unsigned long long)st.task_accepted,
	       (unsigned long long)st.probe_loads, (unsigned long long)st.probe_checks);
	if (st.kernel_compared)
		printf("kernel: compared %llu, kernel accepted %llu, verdicts agree %.2f%% "
		       "(userbpf accepts/kernel rejects %llu, userbpf rejects/kernel accepts "
		       "%llu); not compared %llu (a helper the kernel lacks)\n",
		       (unsigned long long)st.kernel_compared, (unsigned long long)st.kernel_accepted,
		       100.0 * st.kernel_agree / st.kernel_compared, (unsigned long long)st.ua_kr,
		       (unsigned long long)st.ur_ka, (unsigned long long)st.kernel_skipped);
	else
		printf("kernel: not compared (its bpf() is unavailable)\n");
	return st.violations ? 1 : 0;
}
