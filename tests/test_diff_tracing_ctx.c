/* The ctx of the tracing program types against the kernel: every load, store and sign-extending
 * load, at every offset and size, of a kprobe's struct pt_regs, a tracepoint's record (its
 * start, negative offsets included, and its end at PERF_MAX_TRACE_SIZE) and a raw tracepoint's
 * arguments; and BPF_PROG_TEST_RUN, which the kernel has for none but raw tracepoints.
 * Skipped where the kernel's bpf() is unavailable.
 */
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

TEST(diff_tracing_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	TEST_RUN_UNSUPPORTED(BPF_PROG_TYPE_KPROBE, 0);
	TEST_RUN_UNSUPPORTED(BPF_PROG_TYPE_TRACEPOINT, 0);
	/* struct pt_regs of x86-64: 21 longs, read only */
	CHECK(CTX_ACCESSES_AGREE(BPF_PROG_TYPE_KPROBE, 0, -16, 168 + 8, true) > 21);
	/* a tracepoint's record past its common header: 6.18 compares the offset with
	 * sizeof(void *) unsigned, so negative ones (multiples of the size) are reads it takes */
	CHECK(CTX_ACCESSES_AGREE(BPF_PROG_TYPE_TRACEPOINT, 0, -16, 24, true) >= 30);
	CHECK(CTX_ACCESSES_AGREE(BPF_PROG_TYPE_TRACEPOINT, 0, 8192 - 16, 8192 + 8, true) > 0);
	/* 12 u64 arguments */
	CHECK(CTX_ACCESSES_AGREE(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, -16, 12 * 8 + 8, true) >= 12);
}
