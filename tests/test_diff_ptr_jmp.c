/* Conditional jumps on pointers against the kernel: each kind of register (the ctx, the frame
 * pointer, a stack pointer, a map, a map value and one not yet NULL-checked, packet data, its
 * end and its metadata, and a scalar for comparison) compared by every conditional jump, 64 and
 * 32 bits, with each kind of source (immediates, known and unknown scalars, a NULL register,
 * pointers of each kind).  Each program then does nothing more, or reads a byte through the
 * compared register on the fall-through path, or on the taken one (what the comparison taught
 * the verifier: a NULL check, a packet range, a dead branch).  Verdicts and error lines must
 * agree.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kbpf.h"
#include "sweep_prog.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The source: an immediate, or a register holding a known scalar, an unknown one, a known zero,
 * or a pointer (of the destination's own kind, or a fixed one). */
enum src { S_IMM0, S_IMM8, S_IMM_NEG, S_KNOWN, S_UNKNOWN, S_NULL, S_SAME, S_CTX, S_PKT,
	   S_PKT_END, S_FP, S_VALUE, SRCS };
static const char *const src_names[] = { "0",	"8",	   "-8",      "r=8",
					 "r unknown", "r=0", "same kind", "ctx",
					 "pkt", "pkt_end", "fp",	"map value" };

static const uint8_t ops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE,
			       BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };

/* Where the read through the compared register is. */
enum use { U_NONE, U_FALL, U_TAKEN, USES };
static const char *const use_names[] = { "", ", then a read on the fall-through path",
					 ", then a read on the taken path" };

/* The program: the sweep start (r7 a map value, NULL-checked unless the destination must not
 * be; r8/r9 16 checked packet bytes), r4 an unknown scalar, r3 the destination, r2 the source;
 * `if r3 op src goto +k`, the reads, r0 = 0, exit. */
static uint32_t build(struct bpf_insn *p, int t, enum sweep_kind d, enum src s, uint8_t op,
		      bool jmp64, enum use use)
{
	static const int32_t imms[] = { 0, 8, -8 };
	uint8_t cls = jmp64 ? BPF_JMP : BPF_JMP32;
	uint32_t n, skip_at[2], nskip;
	struct bpf_insn jmp;

	n = sweep_start(p, d == K_VALUE_OR_NULL ? SV_UNCHECKED : SV_CHECKED, &sweep_pkt_types[t].pkt, 16,
			skip_at, &nskip);
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, sweep_pkt_types[t].scalar);
	n = sweep_load(p, n, BPF_REG_3, d, sweep_pkt_types[t].data_meta);
	if (s <= S_IMM_NEG) {
		jmp = (struct bpf_insn){ .code = (uint8_t)(cls | op | BPF_K), .dst_reg = BPF_REG_3,
					 .imm = imms[s] };
	} else {
		switch (s) {
		case S_KNOWN:
			p[n++] = BPF_MOV64_IMM(BPF_REG_2, 8);
			break;
		case S_UNKNOWN:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_4);
			break;
		case S_NULL:
			p[n++] = BPF_MOV64_IMM(BPF_REG_2, 0);
			break;
		case S_SAME:
			n = sweep_load(p, n, BPF_REG_2, d, sweep_pkt_types[t].data_meta);
			break;
		case S_CTX:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_6);
			break;
		case S_PKT:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_8);
			break;
		case S_PKT_END:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_9);
			break;
		case S_FP:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
			break;
		default:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_7);
			break;
		}
		jmp = (struct bpf_insn){ .code = (uint8_t)(cls | op | BPF_X), .dst_reg = BPF_REG_3,
					 .src_reg = BPF_REG_2 };
	}
	switch (use) {
	case U_NONE:
		p[n++] = jmp; /* (off 0: both paths go on to the end) */
		break;
	case U_FALL:
		jmp.off = 1;
		p[n++] = jmp;
		p[n++] = BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_3, 0);
		break;
	default:
		jmp.off = 1;
		p[n++] = jmp;
		p[n++] = BPF_JMP_A(1);
		p[n++] = BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_3, 0);
		break;
	}
	sweep_skips_to(p, skip_at, nskip, n); /* the checks that failed come here */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* Case i (sweep_at()); a read through a map pointer is left out (the kernel's struct bpf_map
 * fields, a known difference). */
static bool jmp_case(uint32_t i, struct bpf_insn *p, uint32_t *n, uint32_t *type, char *what,
		     size_t what_size)
{
	struct sweep_at a = sweep_at(i, N(ops), SRCS, USES);
	enum use use = (enum use)a.use;
	bool jmp64 = a.wide;
	enum src s = (enum src)a.src;
	uint8_t op = ops[a.op];
	enum sweep_kind d = a.d;
	int t = a.t;

	if ((d == K_PKT_META && sweep_pkt_types[t].data_meta < 0) || (d == K_MAP && use != U_NONE))
		return false;
	*n = build(p, t, d, s, op, jmp64, use);
	*type = sweep_pkt_types[t].type;
	snprintf(what, what_size, "type %u: %s %s(%#x) %s%s", *type, sweep_kind_names[d],
		 jmp64 ? "jmp" : "jmp32", op, src_names[s], use_names[use]);
	return true;
}

TEST(diff_ptr_jmp)
{
	SKIP_WITHOUT_KERNEL_BPF();
	sweep_compare_all("diff_ptr_jmp", sweep_count(N(ops), SRCS, USES), jmp_case, 10000, 1000);
}
