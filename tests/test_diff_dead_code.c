/* BPF_PROG_LOAD of programs with dead code, differentially: what no path reaches is neither
 * checked nor run (a privileged load in the kernel removes it), whatever it holds.
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

/* Code no path reaches is not checked (a privileged kernel load removes it), so a reserved
 * field set there does not refuse the program: found by a soundness run (an END with imm 33
 * behind an always-taken branch), which userbpf refused when the runtimes decoded it. */
TEST(prog_load_dead_code_reserved_fields)
{
	static const struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_9, 63),
		BPF_JMP32_IMM(BPF_JLE, BPF_REG_9, -1518658807, 1), /* always (unsigned) */
		BPF_RAW_INSN(BPF_ALU | BPF_END | BPF_TO_LE, BPF_REG_9, 0, 0, 33), /* dead */
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_9),
		BPF_EXIT_INSN(),
	};
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++)
		fd[s] = side_prog_load(s, BPF_PROG_TYPE_SOCKET_FILTER, insns,
				       sizeof(insns) / sizeof(insns[0]));
	CHECK(fd[K] >= 0);
	CHECK(fd[U] >= 0);
	if (fd[K] >= 0 && fd[U] >= 0) {
		uint8_t pkt[64] = { 0 };
		uint32_t ret;

		RUNS_AGREE("dead code", fd, pkt, sizeof(pkt), &ret);
		CHECK_EQ(ret, 63);
	}
	for (int s = 0; s < NSIDES; s++)
		if (fd[s] >= 0)
			close(fd[s]);
}
