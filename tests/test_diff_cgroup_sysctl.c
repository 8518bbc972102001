/* BPF_PROG_TYPE_CGROUP_SYSCTL against the kernel: its attach types, its ctx (struct bpf_sysctl:
 * every offset, size and direction), the buffers of its own helpers (written by the getters, so
 * they may be uninitialised; read by the setter), its return values, and BPF_PROG_TEST_RUN,
 * which the kernel does not have for it.  (Which helpers it may call is checked with every other
 * type in test_helpers.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SY BPF_PROG_TYPE_CGROUP_SYSCTL

TEST(diff_cgroup_sysctl_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK(ATTACH_TYPES_AGREE(SY) >= 1);
	TEST_RUN_UNSUPPORTED(SY, BPF_CGROUP_SYSCTL);
}

TEST(diff_cgroup_sysctl_ctx)
{
	SKIP_WITHOUT_KERNEL_BPF();
	/* write: 4 bytes, 2 halves, 1 word, read only; file_pos: the same read, 1 word written;
	 * loads and ldsx */
	CHECK_EQ(CTX_ACCESSES_AGREE(SY, BPF_CGROUP_SYSCTL, -2, (int)sizeof(struct bpf_sysctl) + 4,
				    true),
		 2 * 2 * (4 + 2 + 1) + 2);
	for (int v = 0; v <= 2; v++) {
		struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN() };
		char what[32];

		snprintf(what, sizeof(what), "returns %d", v);
		VERDICTS_AGREE_EAT(what, SY, BPF_CGROUP_SYSCTL, insns, 2);
	}
}

/* The helpers' buffers: 16 bytes at fp - 16, initialised or not (a loader with CAP_PERFMON may
 * pass uninitialised stack to any helper), and their sizes. */
TEST(diff_cgroup_sysctl_helpers)
{
	static const int funcs[] = { BPF_FUNC_sysctl_get_name, BPF_FUNC_sysctl_get_current_value,
				     BPF_FUNC_sysctl_get_new_value, BPF_FUNC_sysctl_set_new_value };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++) {
		for (int init = 0; init < 2; init++) {
			struct bpf_insn insns[] = {
				init ? BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0x31)
				     : BPF_MOV64_IMM(BPF_REG_0, 0),
				init ? BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0)
				     : BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
				BPF_MOV64_IMM(BPF_REG_3, init ? 16 : 17),
				BPF_MOV64_IMM(BPF_REG_4, 0),
				BPF_EMIT_CALL(funcs[f]),
				BPF_MOV64_IMM(BPF_REG_0, 1),
				BPF_EXIT_INSN(),
			};
			char what[64];

			snprintf(what, sizeof(what), "helper %d, buffer %s", funcs[f],
				 init ? "initialised" : "uninitialised, one byte too long");
			VERDICTS_AGREE_EAT(what, SY, BPF_CGROUP_SYSCTL, insns, 10);
		}
	}
}
