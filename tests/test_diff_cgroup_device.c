/* BPF_PROG_TYPE_CGROUP_DEVICE against the kernel: the expected attach types it may have, its ctx
 * (struct bpf_cgroup_dev_ctx: every offset, size and direction, with the kernel's error line),
 * its return values, and BPF_PROG_TEST_RUN, which the kernel does not have for it.  (Which
 * helpers it may call is checked with every other type in test_helpers.c.)  Skipped where the
 * kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define DEV BPF_PROG_TYPE_CGROUP_DEVICE

/* The kernel checks no attach type for the type, and the test run it does not have. */
TEST(diff_cgroup_device_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(ATTACH_TYPES_AGREE(DEV), 64);
	TEST_RUN_UNSUPPORTED(DEV, BPF_CGROUP_DEVICE);
}

/* Every load (plain and sign-extending), store and immediate store of the ctx, at every offset
 * and size; return values 0..2 and an unknown one. */
TEST(diff_cgroup_device_ctx)
{
	int accepted;

	SKIP_WITHOUT_KERNEL_BPF();
	accepted = CTX_ACCESSES_AGREE(DEV, BPF_CGROUP_DEVICE, -2,
				      (int)sizeof(struct bpf_cgroup_dev_ctx) + 4, true);
	/* access_type: 4 bytes, 2 halves, 1 word; major, minor: 1 word; loads and ldsx */
	CHECK_EQ(accepted, 2 * (4 + 2 + 1 + 1 + 1));
	for (int v = 0; v <= 3; v++) {
		struct bpf_insn insns[] = {
			v < 3 ? BPF_MOV64_IMM(BPF_REG_0, v)
			      : BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1,
					    offsetof(struct bpf_cgroup_dev_ctx, major)),
			BPF_EXIT_INSN(),
		};
		char what[32];

		snprintf(what, sizeof(what), "returns %d", v);
		VERDICTS_AGREE_EAT(what, DEV, BPF_CGROUP_DEVICE, insns, 2);
	}
}
