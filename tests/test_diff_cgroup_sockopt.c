/* BPF_PROG_TYPE_CGROUP_SOCKOPT against the kernel: its attach types (getsockopt, setsockopt),
 * its ctx (struct bpf_sockopt: every offset, size and direction under both hooks, with the
 * kernel's error line), the option's bytes between optval and optval_end (read and written as a
 * packet, once bounds-checked), its return values, and BPF_PROG_TEST_RUN, which the kernel does
 * not have for it.  (Which helpers it may call is checked with every other type in
 * test_helpers.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define SO BPF_PROG_TYPE_CGROUP_SOCKOPT
#define SO_OFF(f) offsetof(struct bpf_sockopt, f)

static const uint32_t hooks[] = { BPF_CGROUP_GETSOCKOPT, BPF_CGROUP_SETSOCKOPT };

TEST(diff_cgroup_sockopt_attach_types_and_test_run)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(ATTACH_TYPES_AGREE(SO), 2);
	TEST_RUN_UNSUPPORTED(SO, BPF_CGROUP_SETSOCKOPT);
}

/* Every load, store and immediate store of the ctx at every offset and size, under both hooks;
 * and return values 0..2. */
TEST(diff_cgroup_sockopt_ctx)
{
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int h = 0; h < 2; h++) {
		accepted += CTX_ACCESSES_AGREE(SO, hooks[h], -1, (int)sizeof(struct bpf_sockopt) + 4,
					       false);
		for (int v = 0; v <= 2; v++) {
			struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN() };
			char what[32];

			snprintf(what, sizeof(what), "hook %u returns %d", hooks[h], v);
			VERDICTS_AGREE_EAT(what, SO, hooks[h], insns, 2);
		}
	}
	CHECK(accepted > 10);
}

/* The option's bytes: read and written after a bounds check against optval_end, not before;
 * the socket behind sk. */
TEST(diff_cgroup_sockopt_optval)
{
	static const struct {
		const char *what;
		bool checked;
		struct bpf_insn use;
	} cases[] = {
		{ "read a checked byte", true, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 3) },
		{ "write a checked byte", true, BPF_ST_MEM(BPF_B, BPF_REG_2, 3, 1) },
		{ "read past the check", true, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 2) },
		{ "read without a check", false, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_2, 0) },
		{ "an atomic on the option", true,
		  BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_2, BPF_REG_0, 0) },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, SO_OFF(optval)),
			BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, SO_OFF(optval_end)),
			BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 4),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			cases[i].checked ? BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 2)
					 : BPF_MOV64_IMM(BPF_REG_5, 0),
			cases[i].use,
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_EAT(cases[i].what, SO, BPF_CGROUP_SETSOCKOPT, insns, 9);
	}
	/* sk: a full socket, read only */
	for (int form = 0; form < 2; form++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, SO_OFF(sk)),
			form ? BPF_ST_MEM(BPF_W, BPF_REG_2, 0, 1)
			     : BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2,
					   offsetof(struct bpf_sock, protocol)),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_EAT(form ? "write sk" : "read sk->protocol", SO,
				   BPF_CGROUP_GETSOCKOPT, insns, 4);
	}
}
