/* kernel_probe.c — helpers the live kernel may lack (kernel_probe.h). */
#include "kernel_probe.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The helpers a kernel build may leave out, with what the probe found (-1: not asked yet). */
static struct {
	uint32_t type, helper;
	const char *name;
	int lacks;
} omissible[] = {
	{ BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_adjust_meta, "bpf_xdp_adjust_meta", -1 },
};

static bool probe_lacks(uint32_t type, uint32_t helper)
{
	/* (the helper's availability is checked before its arguments, so a bare call tells) */
	struct bpf_insn p[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = (int32_t)helper },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[512] = "";
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uint64_t)(uintptr_t)"GPL";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0)
		close(fd);
	/* (no bpf() at all, or no permission: nothing known to be lacking) */
	return fd < 0 && (strstr(log, "cannot use helper") || strstr(log, "unknown func"));
}

bool kernel_lacks_helper(uint32_t type, uint32_t helper)
{
	for (size_t i = 0; i < sizeof(omissible) / sizeof(omissible[0]); i++) {
		if (omissible[i].type != type || omissible[i].helper != helper)
			continue;
		if (omissible[i].lacks < 0) {
			omissible[i].lacks = probe_lacks(type, helper);
			if (omissible[i].lacks)
				printf("  known difference: the kernel here lacks %s for "
				       "program type %u, which upstream kernels have; userbpf "
				       "keeps it, and comparisons calling it are skipped\n",
				       omissible[i].name, type);
		}
		return omissible[i].lacks > 0;
	}
	return false;
}

bool calls_helper_kernel_lacks(uint32_t type, const struct bpf_insn *insns, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == 0 &&
		    insns[i].imm > 0 && kernel_lacks_helper(type, (uint32_t)insns[i].imm))
			return true;
	return false;
}
