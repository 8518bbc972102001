/* Verifier: the log.  Whole logs at levels 1 and 2 compared with the kernel's for small programs
 * (instruction dump, register states, "from N to M" lines, the error, the statistics line), and
 * the log attribute rules of BPF_PROG_LOAD (EINVAL combinations, ENOSPC truncation in rotating
 * and BPF_LOG_FIXED modes, log_true_size), each through bpf() on both sides. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test.h"
#include "userbpf.h"
#include "verifier_harness.h"

#define L1 .full_log = true, .log_level = 1
#define L2 .full_log = true, .log_level = 2

static const struct vcase cases[] = {
	{ "log1_ret42", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, L1 },
	{ "log2_ret42", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, L2 },
	{ "log1_uninit_r0", SOCK, { EXIT }, REJECT, "R0 !read_ok", EACCES, L1 },
	{ "log2_uninit_r0", SOCK, { EXIT }, REJECT, "R0 !read_ok", EACCES, L2 },
	{ "log1_alu_chain", SOCK, { BPF_MOV64_IMM(0, 1), BPF_MOV32_IMM(1, -1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 41), BPF_ALU64_REG(BPF_MUL, 0, 1), BPF_ALU32_IMM(BPF_RSH, 1, 4),
	  BPF_ALU64_IMM(BPF_NEG, 0, 0), BPF_ENDIAN(BPF_TO_BE, 0, 16), BPF_MOV64_REG(2, 10),
	  BPF_ALU64_IMM(BPF_ADD, 2, -16), EXIT }, ACCEPT, L2,
	  .known = "after be16 the kernel prints R0=10752, userbpf R0=0x2a00 (constant after a "
		   "byte swap)" },
	{ "log2_branches", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0), R0_0,
	  BPF_JMP_IMM(BPF_JGT, 2, 10, 2), BPF_ALU64_IMM(BPF_ADD, 0, 1), BPF_JMP_A(1),
	  BPF_ALU64_IMM(BPF_ADD, 0, 2), EXIT }, ACCEPT, L2,
	  .known = "checkpoint heuristic differs: total_states/peak_states on the processed line" },
	{ "log1_branch_error", SOCK, { BPF_LDX_MEM(BPF_W, 2, 1, 0), BPF_JMP_IMM(BPF_JGT, 2, 10, 2),
	  R0_0, EXIT, BPF_LDX_MEM(BPF_W, 0, 2, 0), EXIT }, REJECT, "R2 invalid mem access 'scalar'",
	  EACCES, L1,
	  .known = "checkpoint heuristic differs: total_states/peak_states on the processed line" },
	{ "log1_stack", SOCK, { BPF_ST_MEM(BPF_DW, 10, -8, 7), BPF_STX_MEM(BPF_DW, 10, 1, -16),
	  BPF_ST_MEM(BPF_W, 10, -20, 0), BPF_LDX_MEM(BPF_DW, 0, 10, -8), EXIT }, ACCEPT, L2,
	  .known = "6.18 shows the stack slot a load reads (fp-8=7) and prints its stack "
		   "liveness pass (\"(0) frame 0 insn N +live -8\")" },
	{ "log1_map_lookup", SOCK, { LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 0, 0, 0), EXIT }, ACCEPT, L2,
	  .known = "6.18 prints its stack liveness pass (\"(0) frame 0 insn 5 +live -8\"); "
		   "checkpoint heuristic (total_states)" },
	{ "log1_map_oob", SOCK, { LOOKUP(MAP_HASH), BPF_JMP_IMM(BPF_JEQ, 0, 0, 1),
	  BPF_LDX_MEM(BPF_DW, 0, 0, 4), EXIT }, REJECT,
	  "R0 min value is outside of the allowed memory range", EACCES, L1,
	  .known = "checkpoint heuristic differs: total_states/peak_states on the processed line" },
	{ "log2_subprog", SOCK, { BPF_MOV64_IMM(1, 5),
	  BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1), EXIT, BPF_MOV64_REG(0, 1),
	  EXIT }, ACCEPT, L2,
	  .known = "the callee's first state shows R10; \"from 4 to 2\" names the callee's exit; "
		   "checkpoint heuristic (total_states)" },
	{ "log2_pkt", XDP, { BPF_LDX_MEM(BPF_W, 2, 1, XDPM(data)),
	  BPF_LDX_MEM(BPF_W, 3, 1, XDPM(data_end)), BPF_MOV64_REG(4, 2),
	  BPF_ALU64_IMM(BPF_ADD, 4, 14), BPF_JMP_REG(BPF_JGT, 4, 3, 2),
	  BPF_LDX_MEM(BPF_H, 0, 2, 12), EXIT, R0_0, EXIT }, ACCEPT, L2,
	  .known = "the branch where pkt+14 > pkt_end gets a sentinel range (r=0x...), userbpf "
		   "r=0; checkpoint heuristic (total_states)" },
	{ "log1_cfg_error", SOCK, { BPF_MOV64_IMM(0, 1), BPF_JMP_A(5), EXIT }, REJECT,
	  "jump out of range from insn 1 to 7", EINVAL, L1 },
	{ "log2_ldimm64", SOCK, { BPF_LD_IMM64(0, 0x123456789ULL), BPF_LD_MAP_FD(1, MAP_ARRAY),
	  EXIT }, ACCEPT, L2 },
	{ "log2_helper", SOCK, { BPF_MOV64_IMM(6, 3), BPF_EMIT_CALL(BPF_FUNC_ktime_get_ns),
	  BPF_ALU64_REG(BPF_ADD, 0, 6), EXIT }, ACCEPT, L2,
	  .known = "checkpoint heuristic differs: total_states/peak_states on the processed line" },
	{ "log1_loop", SOCK, { BPF_MOV64_IMM(0, 0), BPF_ALU64_IMM(BPF_ADD, 0, 1),
	  BPF_JMP_IMM(BPF_JLT, 0, 4, -2), EXIT }, ACCEPT, L2,
	  .known = "6.18 prints mark_precise backtracking and \"SCC enter/exit\" lines, and the "
		   "jump's state on its own line; checkpoint heuristic (total_states)" },
	{ "log1_infinite_loop", SOCK, { BPF_MOV64_IMM(0, 0), BPF_JMP_IMM(BPF_JEQ, 0, 0, -1), EXIT },
	  REJECT, "old state: R0=P0 R1=ctx() R10=fp0", EINVAL, L1,
	  .known = "precision marks (P) are not tracked; 6.18 walks the loop 6 more times before "
		   "it reports it" },
	{ "log1_stats", SOCK, { BPF_MOV64_IMM(0, 42), EXIT }, ACCEPT, .full_log = true,
	  .log_level = 4,
	  .known = "level 4 prints the verification time, which differs run to run" },
};

/* ---- log attributes through bpf() ---- */

struct logattr {
	const char *name;
	__u32 level, size;
	bool buf;
	bool reject;	/* load the failing program */
	const char *known;
};

static const struct bpf_insn good[] = { BPF_MOV64_IMM(0, 1), BPF_MOV64_IMM(0, 2), EXIT };
static const struct bpf_insn bad[] = { BPF_MOV64_IMM(0, 1), BPF_LDX_MEM(BPF_W, 0, 0, 0), EXIT };

static const struct logattr attrs[] = {
	{ "buf_without_size", 1, 0, true },
	{ "size_without_buf", 1, 256, false },
	{ "buf_without_level", 0, 256, true },
	{ "level_bad_bits", 16, 256, true },
	{ "level_fixed_only", 8, 256, true },
	{ "level_stats_only_ok", 4, 256, true, false, "verification time differs run to run" },
	{ "level1_ok", 1, 4096, true },
	{ "level1_ok_reject", 1, 4096, true, true },
	{ "level2_ok", 2, 4096, true },
	{ "level1_size_1", 1, 1, true, true },
	{ "level1_size_127", 1, 127, true, true },
	{ "level1_size_128", 1, 128, true, true },
	{ "level2_trunc_rotate", 2, 160, true },
	{ "level2_trunc_fixed", 2 | 8, 160, true },
	{ "level1_trunc_reject_rotate", 1, 140, true, true },
	{ "level1_trunc_reject_fixed", 1 | 8, 140, true, true },
	{ "level1_exact_fit", 1, 0 /* set to the true size */, true, true },
	{ "level_huge_size", 1, 0x40000000, true },
	{ "level_no_log_reject", 0, 0, false, true },
};

/* log_true_size (6.4) is past the end of older uapi headers' union bpf_attr: use the kernel's
 * 6.18 attr size and read it at its offset. */
#define ATTR_SIZE 168
#define LOG_TRUE_SIZE_OFF (offsetof(union bpf_attr, core_relo_rec_size) + 4)

static int load(bool kernel, const struct logattr *t, char *buf, __u32 *true_size)
{
	union {
		union bpf_attr a;
		unsigned char raw[ATTR_SIZE];
	} u;
	union bpf_attr *a = &u.a;
	int fd;

	memset(&u, 0, sizeof(u));
	a->prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a->insns = (uintptr_t)(t->reject ? bad : good);
	a->insn_cnt = 3;
	a->license = (uintptr_t) "GPL";
	a->log_level = t->level;
	a->log_size = t->size;
	if (t->buf)
		a->log_buf = (uintptr_t)buf;
	fd = kernel ? (int)syscall(__NR_bpf, BPF_PROG_LOAD, &u, ATTR_SIZE)
		    : bpf(BPF_PROG_LOAD, a, ATTR_SIZE);
	memcpy(true_size, u.raw + LOG_TRUE_SIZE_OFF, sizeof(*true_size));
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return -errno;
}

TEST(verifier_log)
{
	union bpf_attr probe;
	static char kbuf[1 << 16], ubuf[1 << 16];
	int agree = 0, n = 0, true_size_diff = 0;
	bool have_kernel;

	vcase_run_table("log", cases, NCASES(cases));

	memset(&probe, 0, sizeof(probe));
	probe.map_type = BPF_MAP_TYPE_ARRAY;
	probe.key_size = 4;
	probe.value_size = 4;
	probe.max_entries = 1;
	{
		int fd = (int)syscall(__NR_bpf, BPF_MAP_CREATE, &probe, sizeof(probe));

		have_kernel = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	if (!have_kernel) {
		printf("verifier log attributes: kernel bpf() unavailable: skipped\n");
		return;
	}
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		struct logattr t = attrs[i];
		__u32 ktrue = 0, utrue = 0;
		int kr, ur;

		if (!t.size && t.buf) {	/* exact fit: the true size the kernel reports */
			t.size = 1 << 16;
			load(true, &t, kbuf, &ktrue);
			t.size = ktrue;
		}
		memset(kbuf, 0x5a, sizeof(kbuf));
		memset(ubuf, 0x5a, sizeof(ubuf));
		kr = load(true, &t, kbuf, &ktrue);
		ur = load(false, &t, ubuf, &utrue);
		n++;
		__u32 cmp = t.buf && t.size < (__u32)sizeof(kbuf) ? t.size : t.buf ? 4096 : 0;

		if (t.known) {
			printf("  known difference log %s: %s\n", t.name, t.known);
			continue;
		}
		if (kr != ur)
			test_fail(__FILE__, __LINE__, "log %s: kernel %d, userbpf %d", t.name, kr,
				  ur);
		else if (memcmp(kbuf, ubuf, cmp))
			test_fail(__FILE__, __LINE__,
				  "log %s: buffers differ: kernel \"%.200s\" userbpf \"%.200s\"",
				  t.name, kbuf, ubuf);
		else
			agree++;
		if (ktrue != utrue)
			true_size_diff++;
	}
	if (true_size_diff)
		printf("  known difference: userbpf's BPF_PROG_LOAD does not report "
		       "log_true_size (%d cases)\n", true_size_diff);
	printf("verifier log attributes: %d cases, %d agree with the kernel\n", n, agree);
}
