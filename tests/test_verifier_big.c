/* Verifier: program size.  A 100k-instruction straight-line program and a deep if-ladder verify
 * (the verifier's memory is linear in the program and nothing recurses on its size); the
 * 1M-instruction complexity limit (in test_verifier_mem.c: loop_too_long). */
#include <stdlib.h>

#include "test.h"
#include "verifier_harness.h"

TEST(verifier_big)
{
	const __u32 n = 100000;
	struct bpf_insn *p = calloc(n, sizeof(*p));
	struct vstats st = { 0, 0, 0, 0 };
	struct vcase line = { "big_straight_100k", SOCK, { { 0 } }, ACCEPT, .log_level = 4 };
	struct vcase ladder = { "big_if_ladder", SOCK, { { 0 } }, ACCEPT, .log_level = 4 };

	REQUIRE(p);
	/* r0 = 0; r0 += 1 ... ; exit */
	p[0] = (struct bpf_insn)BPF_MOV64_IMM(0, 0);
	for (__u32 i = 1; i + 1 < n; i++)
		p[i] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, 0, 1);
	p[n - 1] = (struct bpf_insn)EXIT;
	vprog_run(&line, p, n, &st);

	/* r2 = ctx->len; r0 = 0; then 5000 rungs "if r2 == i goto exit" (a switch): every taken
	 * arm is a pending branch until the fall-through path ends (the kernel allows 8192). */
	const __u32 steps = 5000;
	__u32 k = 0;

	p[k++] = (struct bpf_insn)BPF_LDX_MEM(BPF_W, 2, 1, 0);
	p[k++] = (struct bpf_insn)R0_0;
	for (__u32 i = 0; i < steps; i++)
		p[k++] = (struct bpf_insn)BPF_JMP_IMM(BPF_JEQ, 2, (int)i, (short)(steps - i - 1));
	p[k++] = (struct bpf_insn)EXIT;
	vprog_run(&ladder, p, k, &st);
	free(p);
	printf("verifier big: %d cases, %d agree with the kernel\n", st.cases, st.agree);
}
