/* The cpumask kfuncs through the ELF loader, differentially: the corpus program syscall_cpumask
 * (a sleepable syscall program) runs on both sides with CPUs, a word and a size from its ctx
 * (both CPUs, one twice, CPUs past the last, a populate() too small: -EACCES, unaligned patterns)
 * and must return the kernel's count and leave the kernel's results in .bss: bits, weights,
 * first bits, relations, the distribute picks with one answer, the current task's affinity,
 * populate()'s words.  Some results are also checked against this machine's CPUs where the
 * kernel's bpf() is unavailable.  Skipped without the kernel's BTF (with bpf_cpumask_populate(),
 * 6.16). */
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "loader_sides.h"
#include "map/map.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif

struct cpumask_args {
	uint32_t cpu_a, cpu_b;
	uint64_t pattern;
	uint32_t size, pad;
};

#define NOUT 42 /* the program's results (it returns their count) */

/* The results that are bools (the kfuncs' bool returns, stored as they come).  The kernel's
 * bool-returning kfuncs set %al only: the kernel here leaves other bits above it (0xffffff00 for
 * false), which a program that stores the register sees; userbpf's are 0 or 1, as the BPF
 * calling convention clang follows has them.  These compare by their low byte. */
static const bool is_bool[NOUT] = {
	[0] = 1, [5] = 1, [10] = 1, [11] = 1, [12] = 1, [13] = 1, [16] = 1, [17] = 1, [18] = 1,
	[19] = 1, [23] = 1, [27] = 1, [29] = 1, [31] = 1, [35] = 1, [36] = 1,
};

TEST(loader_cpumask)
{
	const struct cpumask_args args[] = {
		{ 0, 1, 0x5, 8, 0 },
		{ 1, 1, ~0ull, 16, 0 },
		{ 0, 0, 0, 4, 0 },			/* populate(): too small (-EACCES) */
		{ 5, 300, 0x2, 8, 0 },			/* no such CPUs: nothing set */
		{ 1, 0, 0x8000000000000001ull, 9, 0 },
		{ 0, 2, 0xff00, 15, 0 },
	};
	uint32_t cpus = map_possible_cpus();
	struct obj_sides os;
	int bss[NSIDES], compared = 0, high_bits = 0;
	bool kernel = kernel_bpf_available();

	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_cpumask_populate"))
		SKIP("no kernel BTF with bpf_cpumask_populate() (/sys/kernel/btf/vmlinux, 6.16+)");
	if (!kernel)
		printf("loader_cpumask: the kernel's bpf() is unavailable (%s): userbpf's results "
		       "are checked against this machine's CPUs only\n",
		       kernel_bpf_unavailable_reason());
	REQUIRE(obj_sides_open(&os, LOADER_OBJ_DIR "/tests/corpus/syscall_cpumask.bpf.o"));
	REQUIRE(obj_sides_bss(&os, bss));
	for (size_t i = 0; i < ARRAY_SIZE(args); i++) {
		static uint64_t out[NSIDES][1 + 48]; /* (the count, then the results) */
		struct cpumask_args in = args[i];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES], key = 0;
		char what[64];

		snprintf(what, sizeof(what), "cpumask run %zu", i);
		for (int s = 0; s < NSIDES; s++) {
			if (s == K && !kernel)
				continue;
			r[s] = side_test_run_ctx(s, os.prog[s], NULL, 0, 0, &in, sizeof(in), NULL,
						 0, &ret[s]);
			REQUIRE(!side_elem(s, BPF_MAP_LOOKUP_ELEM, bss[s], &key, out[s], 0).rc);
		}
		CHECK_EQ(r[U].rc, 0);
		/* (the machine's own answers, whatever the kernel: a new mask is empty, its first
		 * bit is none (nr_cpu_ids), a mask of all CPUs weighs nr_cpu_ids) */
		CHECK_EQ((int32_t)ret[U], NOUT);
		CHECK_EQ(out[U][0], NOUT);
		CHECK_EQ(out[U][1 + 0], 1);
		CHECK_EQ(out[U][1 + 1], cpus);
		CHECK_EQ(out[U][1 + 5], in.cpu_a < cpus);
		CHECK_EQ(out[U][1 + 24], cpus);
		for (int k = 0; k < NOUT; k++)
			if (is_bool[k])
				CHECK(out[U][1 + k] <= 1);
		if (!kernel || !AGREE(what, r))
			continue;
		CHECK_EQ(ret[U], ret[K]);
		for (int k = 0; k < NOUT + 1; k++) {
			uint64_t kv = out[K][k], uv = out[U][k];

			if (k && is_bool[k - 1]) {
				high_bits += (kv >> 8) != 0;
				kv &= 0xff;
			}
			if (kv != uv)
				test_fail(__FILE__, __LINE__, "%s: result %d: kernel %#llx, "
					  "userbpf %#llx", what, k - 1,
					  (unsigned long long)out[K][k], (unsigned long long)uv);
		}
		compared++;
	}
	if (kernel)
		CHECK_EQ(compared, (int)ARRAY_SIZE(args));
	printf("loader_cpumask: %zu runs, %d with the kernel's %d results (%u CPUs; %d of the "
	       "kernel's bool results had bits above their low byte)\n", ARRAY_SIZE(args), compared,
	       NOUT, cpus, high_bits);
	obj_sides_close(&os);
}
