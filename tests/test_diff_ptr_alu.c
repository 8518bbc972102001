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

/* What the destination holds. */
enum dst { D_CTX, D_FP, D_STACK, D_MAP, D_VALUE, D_VALUE_OR_NULL, D_PKT, D_PKT_END, D_PKT_META,
	   D_SCALAR, DSTS };
static const char *const dst_names[] = { "ctx", "fp", "fp-16", "map", "map value",
					 "map value or null", "pkt", "pkt_end", "pkt_meta",
					 "scalar" };

/* What the source is: an immediate, or a register holding a known, bounded or unknown scalar,
 * a second pointer of the destination's own kind, or the ctx or packet pointer. */
enum src { S_IMM0, S_IMM8, S_IMM_NEG, S_IMM_BIG, S_KNOWN, S_BOUNDED, S_UNKNOWN, S_SAME, S_CTX,
	   S_PKT, SRCS };
static const char *const src_names[] = { "0", "8", "-8", "0x40000000", "r=8", "r&0xff",
					 "r unknown", "same kind", "ctx", "pkt" };

static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
			       BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH };

static const struct {
	uint32_t type;
	struct pkt_src pkt;
	short data_meta, scalar; /* ctx offsets (data_meta -1: none) */
} types[] = {
	{ BPF_PROG_TYPE_XDP,
	  { offsetof(struct xdp_md, data), offsetof(struct xdp_md, data_end), BPF_W },
	  offsetof(struct xdp_md, data_meta), offsetof(struct xdp_md, ingress_ifindex) },
	{ BPF_PROG_TYPE_SCHED_CLS,
	  { offsetof(struct __sk_buff, data), offsetof(struct __sk_buff, data_end), BPF_W }, -1,
	  offsetof(struct __sk_buff, mark) },
};

/* Loads reg with what kind k of destination holds (r6 the ctx, r7 the lookup's result, r8 the
 * packet data checked for 16 bytes, r9 its end, r4 an unknown scalar). */
static uint32_t load_dst(struct bpf_insn *p, uint32_t n, int reg, enum dst k, int meta_off)
{
	switch (k) {
	case D_CTX:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_6);
		break;
	case D_FP:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_10);
		break;
	case D_STACK:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_10);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, reg, -16);
		break;
	case D_MAP: {
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(reg, 0) };

		p[n++] = ld[0];
		p[n++] = ld[1];
		break;
	}
	case D_VALUE:
	case D_VALUE_OR_NULL:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_7);
		break;
	case D_PKT:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_8);
		break;
	case D_PKT_END:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_9);
		break;
	case D_PKT_META:
		p[n++] = BPF_LDX_MEM(BPF_W, reg, BPF_REG_6, meta_off);
		break;
	case D_SCALAR:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_4);
		break;
	case DSTS:
		break;
	}
	return n;
}

/* What the program does with the result. */
enum use { U_NONE, U_READ, U_WRITE, U_CMP, USES };
static const char *const use_names[] = { "", ", then a read through it",
					 ", then a write through it",
					 ", then a comparison with pkt_end" };

/* The program: r6 = ctx, a zeroed stack, r4 an unknown scalar, r7 a map value (NULL-checked
 * unless the destination is one that must not be), r8/r9 16 checked packet bytes; then r3 = the
 * destination, r3 op= source, and the use of r3; r0 = 0. */
static uint32_t build(struct bpf_insn *p, int t, enum dst d, enum src s, uint8_t op, bool alu64,
		      enum use use)
{
	uint8_t cls = alu64 ? BPF_ALU64 : BPF_ALU;
	static const int32_t imms[] = { 0, 8, -8, 0x40000000 };
	uint32_t n, skip_at[2], nskip;

	n = sweep_start(p, d == D_VALUE_OR_NULL ? SV_UNCHECKED : SV_CHECKED, &types[t].pkt, 16,
			skip_at, &nskip);
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_6, types[t].scalar);
	n = load_dst(p, n, BPF_REG_3, d, types[t].data_meta);
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
			n = load_dst(p, n, BPF_REG_2, d, types[t].data_meta);
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

TEST(diff_ptr_alu)
{
	int map[NSIDES], programs = 0, accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 64, 1, 0).rc;
		REQUIRE(map[s] >= 0);
	}
	for (int t = 0; t < (int)N(types); t++)
		for (int d = 0; d < DSTS; d++)
			for (size_t o = 0; o < N(ops); o++)
				for (int s = 0; s < SRCS; s++)
					for (int w = 0; w < 2 * USES; w++) {
						struct bpf_insn insns[NSIDES][64];
						bool alu64 = !(w & 1);
						enum use use = (enum use)(w / 2);
						char what[128];
						uint32_t n = 0;

						if ((d == D_PKT_META && types[t].data_meta < 0) ||
						    (ops[o] == BPF_NEG && s) ||
						    (d == D_MAP && (use == U_READ || use == U_WRITE) &&
						     alu64 &&
						     map_stays(ops[o], (enum src)s)))
							continue;
						for (int side = 0; side < NSIDES; side++) {
							n = build(insns[side], t, (enum dst)d,
								  (enum src)s, ops[o], alu64, use);
							sweep_set_map(insns[side], n, map[side]);
						}
						snprintf(what, sizeof(what),
							 "type %u: %s %s(%#x) %s%s", types[t].type,
							 dst_names[d], alu64 ? "alu64" : "alu32",
							 ops[o], ops[o] == BPF_NEG ? "" : src_names[s],
							 use_names[use]);
						accepted += verdicts_agree_eat_at(
							__FILE__, __LINE__, what, types[t].type, 0,
							insns[K], insns[U], n);
						programs++;
					}
	if (getenv("TEST_VERBOSE"))
		printf("diff_ptr_alu: %d programs, %d accepted\n", programs, accepted);
	CHECK(programs > 15000 && accepted > 1000);
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
}
