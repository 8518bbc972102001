/* Arithmetic on pointers against the kernel: each kind of register (the ctx, the frame pointer,
 * a stack pointer, a map, a map value and one not yet NULL-checked, packet data, its end and its
 * metadata, and a scalar for comparison) as the destination of every ALU operation, 64 and 32
 * bits, with each kind of source (immediates, known, bounded and unknown scalars, pointers).
 * Each program then ends at once (the operation's own verdict), or reads or writes a byte
 * through the result, or compares it with the packet's end (what the verifier made of it: its
 * type, offset and range).  Verdicts and error lines must agree.  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "sweep_prog.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* What the source is: an immediate, or a register holding a known, bounded or unknown scalar,
 * a second pointer of the destination's own kind, or the ctx or packet pointer. */
enum src { S_IMM0, S_IMM8, S_IMM_NEG, S_IMM_BIG, S_KNOWN, S_BOUNDED, S_UNKNOWN, S_SAME, S_CTX,
	   S_PKT, SRCS };
static const char *const src_names[] = { "0", "8", "-8", "0x40000000", "r=8", "r&0xff",
					 "r unknown", "same kind", "ctx", "pkt" };

static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
			       BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH };

/* What the program does with the result. */
enum use { U_NONE, U_READ, U_WRITE, U_CMP, USES };
static const char *const use_names[] = { "", ", then a read through it",
					 ", then a write through it",
					 ", then a comparison with pkt_end" };

/* The program: r6 = ctx, a zeroed stack, r4 an unknown scalar, r7 a map value (NULL-checked
 * unless the destination is one that must not be), r8/r9 16 checked packet bytes; then r3 = the
 * destination, r3 op= source, and the use of r3; r0 = 0. */
static uint32_t build(struct bpf_insn *p, int t, enum sweep_kind d, enum src s, uint8_t op, bool alu64,
		      enum use use)
{
	uint8_t cls = alu64 ? BPF_ALU64 : BPF_ALU;
	static const int32_t imms[] = { 0, 8, -8, 0x40000000 };
	uint32_t n, skip_at[2], nskip;

	n = sweep_start(p, d == K_VALUE_OR_NULL ? SV_UNCHECKED : SV_CHECKED, &sweep_pkt_types[t].pkt, 16,
			skip_at, &nskip);
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, sweep_pkt_types[t].scalar);
	n = sweep_load(p, n, BPF_REG_3, d, sweep_pkt_types[t].data_meta);
	if (op == BPF_NEG) {
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(cls | BPF_NEG | BPF_K),
					    .dst_reg = BPF_REG_3 };
	} else if (s <= S_IMM_BIG) {
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(cls | op | BPF_K), .dst_reg = BPF_REG_3,
					    .imm = imms[s] };
	} else {
		switch (s) {
		case S_KNOWN:
			p[n++] = BPF_MOV64_IMM(BPF_REG_2, 8);
			break;
		case S_BOUNDED:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_4);
			p[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 0xff);
			break;
		case S_UNKNOWN:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_4);
			break;
		case S_SAME:
			n = sweep_load(p, n, BPF_REG_2, d, sweep_pkt_types[t].data_meta);
			break;
		case S_CTX:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_6);
			break;
		default:
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_8);
			break;
		}
		p[n++] = (struct bpf_insn){ .code = (uint8_t)(cls | op | BPF_X), .dst_reg = BPF_REG_3,
					    .src_reg = BPF_REG_2 };
	}
	if (use == U_READ)
		p[n++] = BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_3, 0);
	else if (use == U_WRITE)
		p[n++] = BPF_ST_MEM(BPF_B, BPF_REG_3, 0, 1);
	else if (use == U_CMP)
		p[n++] = BPF_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_9, 0);
	sweep_skips_to(p, skip_at, nskip, n); /* the checks that failed come here */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* Whether the operation leaves a map pointer (map + 0, or a copy of one): an access through it
 * is a known difference (README): the kernel reads its struct bpf_map's fields through the
 * vmlinux BTF (and refuses writes as such), userbpf refuses any ("invalid mem access
 * 'map_ptr'"). */
static bool map_stays(uint8_t op, enum src s)
{
	return (op == BPF_ADD && s == S_IMM0) || (op == BPF_MOV && s == S_SAME);
}

/* Case i (sweep_at()). */
static bool alu_case(uint32_t i, struct bpf_insn *p, uint32_t *n, uint32_t *type, char *what,
		     size_t what_size)
{
	struct sweep_at a = sweep_at(i, N(ops), SRCS, USES);
	enum use use = (enum use)a.use;
	bool alu64 = a.wide;
	enum src s = (enum src)a.src;
	uint8_t op = ops[a.op];
	enum sweep_kind d = a.d;
	int t = a.t;

	if ((d == K_PKT_META && sweep_pkt_types[t].data_meta < 0) || (op == BPF_NEG && s) ||
	    (d == K_MAP && (use == U_READ || use == U_WRITE) && alu64 && map_stays(op, s)))
		return false;
	*n = build(p, t, d, s, op, alu64, use);
	*type = sweep_pkt_types[t].type;
	snprintf(what, what_size, "type %u: %s %s(%#x) %s%s", *type, sweep_kind_names[d],
		 alu64 ? "alu64" : "alu32", op, op == BPF_NEG ? "" : src_names[s], use_names[use]);
	return true;
}

TEST(diff_ptr_alu)
{
	SKIP_WITHOUT_KERNEL_BPF();
	sweep_compare_all("diff_ptr_alu", sweep_count(N(ops), SRCS, USES), alu_case, 15000, 1000);
}
