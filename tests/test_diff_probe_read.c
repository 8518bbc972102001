/* The probe-read helpers' answers for addresses they cannot read, against the kernel: XDP
 * programs (bpf_probe_read_kernel() and the others are base helpers there) read 8 bytes, or
 * none, from NULL, a small integer, the kernel's unmapped guard hole, a non-canonical address
 * and the stack, into a stack buffer filled with 0x77.  The _kernel forms refuse an address
 * below user space's end with -ERANGE (userbpf: one no mapping can hold), the _user forms say
 * -EFAULT; a failed read zeroes the buffer.  Each program returns the result's low 16 bits and
 * the buffer's first and last bytes, which both sides must give as the table does (userbpf alone
 * where the kernel's bpf() is unavailable). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { SRC_NULL, SRC_SMALL, SRC_HOLE, SRC_NONCANONICAL, SRC_STACK };
#define R(ret, first, last) ((uint32_t)(uint16_t)(ret) | (uint32_t)(first) << 16 | (uint32_t)(last) << 24)

static const struct {
	int helper;
	uint8_t src, size;
	uint32_t ret;
} cases[] = {
	{ BPF_FUNC_probe_read_kernel, SRC_NULL, 8, R(-ERANGE, 0, 0) },
	{ BPF_FUNC_probe_read_kernel, SRC_SMALL, 8, R(-ERANGE, 0, 0) },
	{ BPF_FUNC_probe_read_kernel, SRC_SMALL, 0, R(-ERANGE, 0x77, 0x77) },
	{ BPF_FUNC_probe_read_kernel, SRC_HOLE, 8, R(-EFAULT, 0, 0) },
	{ BPF_FUNC_probe_read_kernel, SRC_NONCANONICAL, 8, R(-ERANGE, 0, 0) },
	{ BPF_FUNC_probe_read_kernel, SRC_STACK, 8, R(0, 'a', 0) },
	{ BPF_FUNC_probe_read_kernel_str, SRC_SMALL, 8, R(-ERANGE, 0, 0) },
	{ BPF_FUNC_probe_read_kernel_str, SRC_SMALL, 0, R(0, 0x77, 0x77) },
	{ BPF_FUNC_probe_read_kernel_str, SRC_HOLE, 8, R(-EFAULT, 0, 0) },
	{ BPF_FUNC_probe_read_kernel_str, SRC_STACK, 8, R(4, 'a', 0x77) },
	{ BPF_FUNC_probe_read_user, SRC_SMALL, 8, R(-EFAULT, 0, 0) },
	{ BPF_FUNC_probe_read_user, SRC_HOLE, 8, R(-EFAULT, 0, 0) },
	{ BPF_FUNC_probe_read_user_str, SRC_SMALL, 8, R(-EFAULT, 0, 0) },
	{ BPF_FUNC_probe_read_user_str, SRC_NULL, 8, R(-EFAULT, 0, 0) },
};

TEST(diff_probe_read)
{
	bool kernel = kernel_bpf_available();
	uint8_t pkt[64] = { 0 };

	if (!self_reads_work()) {
		test_skip("process_vm_readv() cannot read this process (qemu-user?): the probe "
			  "reads go through it");
		return;
	}

	for (size_t i = 0; i < N(cases); i++) {
		struct bpf_insn src[2];
		int ns = 1;

		switch (cases[i].src) {
		case SRC_NULL:
			src[0] = (struct bpf_insn)BPF_MOV64_IMM(3, 0);
			break;
		case SRC_SMALL:
			src[0] = (struct bpf_insn)BPF_MOV64_IMM(3, 1234);
			break;
		case SRC_STACK:
			src[0] = (struct bpf_insn)BPF_MOV64_REG(3, 10);
			src[1] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, 3, -16);
			ns = 2;
			break;
		default: {
			struct bpf_insn ld[2] = { BPF_LD_IMM64(3, cases[i].src == SRC_HOLE ?
						  0xffff800000000000ull : 0x0000800000000000ull) };

			src[0] = ld[0];
			src[1] = ld[1];
			ns = 2;
		}
		}
		/* fp-16: "abc\0xyz\0"; fp-8: 0x77 bytes; r0 = the packed answer */
		struct bpf_insn prog[32] = {
			BPF_LD_IMM64(1, 0x007a797800636261ull), BPF_STX_MEM(BPF_DW, 10, 1, -16),
			BPF_LD_IMM64(1, 0x7777777777777777ull), BPF_STX_MEM(BPF_DW, 10, 1, -8),
			BPF_MOV64_REG(1, 10), BPF_ALU64_IMM(BPF_ADD, 1, -8),
			BPF_MOV64_IMM(2, cases[i].size),
		};
		int n = 9;

		for (int k = 0; k < ns; k++)
			prog[n++] = src[k];
		struct bpf_insn tail[] = {
			BPF_EMIT_CALL(cases[i].helper), BPF_ALU64_IMM(BPF_AND, 0, 0xffff),
			BPF_LDX_MEM(BPF_B, 1, 10, -8), BPF_ALU64_IMM(BPF_LSH, 1, 16),
			BPF_ALU64_REG(BPF_OR, 0, 1), BPF_LDX_MEM(BPF_B, 1, 10, -1),
			BPF_ALU64_IMM(BPF_LSH, 1, 24), BPF_ALU64_REG(BPF_OR, 0, 1), BPF_EXIT_INSN(),
		};
		for (size_t k = 0; k < N(tail); k++)
			prog[n++] = tail[k];

		for (int s = kernel ? K : U; s < NSIDES; s++) {
			for (int jit = 1; jit >= (s == U ? 0 : 1); jit--) {
				int old = userbpf_set_jit(jit);
				int fd = side_prog_load(s, BPF_PROG_TYPE_XDP, prog, (uint32_t)n);
				uint32_t ret = 0;

				userbpf_set_jit(old);
				if (fd < 0) {
					test_fail(__FILE__, __LINE__, "case %zu: %s load failed", i,
						  s == K ? "kernel" : "userbpf");
					continue;
				}
				CHECK_EQ(side_test_run(s, fd, pkt, sizeof(pkt), &ret).rc, 0);
				if (ret != cases[i].ret)
					test_fail(__FILE__, __LINE__, "case %zu (helper %d): %s%s "
						  "returned %#x, not %#x", i, cases[i].helper,
						  s == K ? "the kernel" : "userbpf",
						  s == K ? "" : jit ? " (JIT)" : " (interpreter)", ret,
						  cases[i].ret);
				close(fd);
			}
		}
	}
}
