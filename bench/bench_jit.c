/* JIT compile time per instruction, beside the interpreter's decode of the same program.
 *
 * Why: the JIT is on by default, so its cost is paid on every BPF_PROG_LOAD; the figure to watch
 * is the time per instruction.  An operation is one whole compile; the row prints ns per
 * instruction (time per compile / program length) for the JIT and the interpreter's decode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <userbpf/insn.h>

#include "bench.h"
#include "exec/interp.h"
#include "exec/jit.h"

struct prog_ctx {
	struct bpf_insn *insns;
	uint32_t len;
};

/* A mix of what compilers emit: ALU with immediates and registers, stack stores and loads,
 * forward branches and a multiply, ending in exit. */
static struct bpf_insn *make_prog(uint32_t len)
{
	struct bpf_insn *p = calloc(len, sizeof(*p));
	uint32_t i = 0;

	if (!p)
		return NULL;
	p[i++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[i++] = BPF_MOV64_IMM(BPF_REG_2, 7);
	while (i < len - 1) {
		switch (i % 8) {
		case 0:
			p[i] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, (int)i);
			i++;
			break;
		case 1:
			p[i++] = BPF_ALU64_REG(BPF_XOR, BPF_REG_0, BPF_REG_2);
			break;
		case 2:
			p[i++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_0, -8);
			break;
		case 3:
			p[i++] = BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_10, -8);
			break;
		case 4:
			p[i++] = BPF_ALU64_IMM(BPF_MUL, BPF_REG_3, 31);
			break;
		case 5:
			p[i++] = BPF_ALU32_REG(BPF_ADD, BPF_REG_0, BPF_REG_3);
			break;
		case 6:
			/* skip the next instruction when r0 > r2: a short forward jump */
			p[i] = i + 2 < len ? BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_2, 1)
					   : BPF_MOV64_IMM(BPF_REG_1, 0);
			i++;
			break;
		default:
			p[i++] = BPF_ALU64_IMM(BPF_RSH, BPF_REG_2, 1);
			break;
		}
	}
	p[i] = BPF_EXIT_INSN();
	return p;
}

static uint64_t side_jit(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct prog_ctx *c = ctx;
	struct interp_env env = { 0 };
	struct jit_opts opts = { .sz = sizeof(opts) };
	uint64_t fails = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct jit_prog *jp;

		if (jit_compile(c->insns, c->len, &env, &opts, &jp))
			fails++;
		else
			jit_free(jp);
	}
	return fails;
}

static uint64_t side_interp(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct prog_ctx *c = ctx;
	struct interp_env env = { 0 };
	uint64_t fails = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct interp_prog *ip;

		if (interp_prepare(c->insns, c->len, &env, &ip))
			fails++;
		else
			interp_free(ip);
	}
	return fails;
}

BENCH(jit_compile)
{
	static const uint32_t sizes[] = { 100, 10000, 100000 };
	char name[64];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct prog_ctx c = { make_prog(sizes[s]), sizes[s] };
		struct bench_stat jit, interp;

		if (!c.insns)
			return;
		snprintf(name, sizeof(name), "jit/compile/%u-insns", sizes[s]);
		if (bench_selected(name) && !bench_measure(side_jit, &c, 1, &jit) &&
		    !bench_measure(side_interp, &c, 1, &interp))
			printf("%-29s jit %.1f ns/insn  interp-decode %.1f ns/insn  ratio %.2fx%s\n", name,
			       1e9 / jit.median / sizes[s], 1e9 / interp.median / sizes[s],
			       interp.median / jit.median,
			       jit.failures || interp.failures ? "  INVALID" : "");
		free(c.insns);
	}
}
