/* BPF_PROG_TYPE_PERF_EVENT against the kernel: its attach types, its ctx (struct
 * bpf_perf_event_data: the sampled registers as whole longs, sample_period and addr, every
 * offset, size and direction), and BPF_PROG_TEST_RUN, which the kernel does not have for it.
 * (Which helpers it may call is checked with every other type in test_helpers.c; the perf event
 * array maps are test_diff_perf_event.c's.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <linux/bpf_perf_event.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define PE BPF_PROG_TYPE_PERF_EVENT

TEST(diff_perf_event_prog)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(ATTACH_TYPES_AGREE(PE) >= 1);
	TEST_RUN_UNSUPPORTED(PE, 0);
#ifdef __i386__
	if (kernel_is_x86_64()) {
		printf("diff_perf_event_prog: the ctx not compared: the kernel's struct "
		       "bpf_perf_event_data holds x86-64's registers, this i386 build's i386's\n");
		return;
	}
#endif
	/* 21 registers; sample_period and addr: 8 + 4 + 2 + 1 narrow loads each; and ldsx */
	CHECK_EQ(CTX_ACCESSES_AGREE(PE, 0, -2, (int)sizeof(struct bpf_perf_event_data) + 4, true),
		 21 + 2 * 15 + 2 * 14);
}
