/* Memory instructions against the kernel: every load, sign-extending load, store of an
 * immediate, store of a register (a scalar, or a pointer of each kind: what may leak where) and
 * atomic operation, of every width, at two offsets, through each kind of register (the stack,
 * the ctx at a field the type has, a map value, packet data and its end, a scalar).
 * Verdicts and error lines must agree.  Skipped where the kernel's bpf() is unavailable.
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

/* Through what.  (Not a map pointer: the kernel reads its struct bpf_map through the vmlinux
 * BTF, and refuses writes as such, where userbpf refuses any access, a known difference in the
 * README.) */
enum base { B_STACK, B_CTX, B_VALUE, B_PKT, B_PKT_END, B_SCALAR, BASES };
static const char *const base_names[] = { "fp-16", "ctx field", "map value", "pkt", "pkt_end",
					  "scalar" };

/* What a register store stores. */
enum val { V_SCALAR, V_CTX, V_FP, V_VALUE, V_PKT, VALS };
static const char *const val_names[] = { "scalar", "ctx", "fp", "map value", "pkt" };

static const struct {
	uint32_t type;
	struct pkt_src pkt;
	short field; /* the ctx offset of a readable u32 field */
} types[] = {
	{ BPF_PROG_TYPE_XDP,
	  { offsetof(struct xdp_md, data), offsetof(struct xdp_md, data_end), BPF_W },
	  offsetof(struct xdp_md, ingress_ifindex) },
	{ BPF_PROG_TYPE_SCHED_CLS,
	  { offsetof(struct __sk_buff, data), offsetof(struct __sk_buff, data_end), BPF_W },
	  offsetof(struct __sk_buff, mark) },
};

static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
static const char *const size_names[] = { "u8", "u16", "u32", "u64" };
static const int32_t atomics[] = { BPF_ADD, BPF_AND, BPF_OR, BPF_XOR, BPF_ADD | BPF_FETCH,
				   BPF_XCHG, BPF_CMPXCHG };

/* One instruction to try (its base register r3 and source r2 filled in by build()). */
struct form {
	struct bpf_insn insn;
	enum val val; /* a register store's value */
	char name[48];
};

static int forms_make(struct form *f)
{
	int n = 0;

	for (int z = 0; z < 4; z++) {
		f[n] = (struct form){ .insn = BPF_LDX_MEM(sizes[z], BPF_REG_0, BPF_REG_3, 0) };
		snprintf(f[n++].name, sizeof(f->name), "load %s", size_names[z]);
		if (z < 3) {
			f[n] = (struct form){ .insn = { .code = (uint8_t)(BPF_LDX | BPF_MEMSX |
									  sizes[z]),
							.dst_reg = BPF_REG_0, .src_reg = BPF_REG_3 } };
			snprintf(f[n++].name, sizeof(f->name), "sign-extending load %s",
				 size_names[z]);
		}
		f[n] = (struct form){ .insn = BPF_ST_MEM(sizes[z], BPF_REG_3, 0, 7) };
		snprintf(f[n++].name, sizeof(f->name), "store of 7, %s", size_names[z]);
		f[n] = (struct form){ .insn = BPF_STX_MEM(sizes[z], BPF_REG_3, BPF_REG_2, 0) };
		snprintf(f[n++].name, sizeof(f->name), "store of a scalar, %s", size_names[z]);
	}
	for (int v = V_CTX; v < VALS; v++) {
		f[n] = (struct form){ .insn = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_2, 0),
				      .val = (enum val)v };
		snprintf(f[n++].name, sizeof(f->name), "store of %s, u64", val_names[v]);
	}
	for (size_t a = 0; a < N(atomics); a++)
		for (int z = 2; z < 4; z++) {
			f[n] = (struct form){ .insn = { .code = (uint8_t)(BPF_STX | BPF_ATOMIC |
									  sizes[z]),
							.dst_reg = BPF_REG_3, .src_reg = BPF_REG_2,
							.imm = atomics[a] } };
			snprintf(f[n++].name, sizeof(f->name), "atomic %#x, %s", atomics[a],
				 size_names[z]);
		}
	return n;
}

/* r6 = ctx, a zeroed stack, r7 a map value, r8/r9 16 checked packet bytes, r0 = 0 (cmpxchg's
 * comparand); r3 the base (plus off), r2 the value; the instruction; r0 = 0. */
static uint32_t build(struct bpf_insn *p, int t, enum base b, int off, const struct form *f)
{
	uint32_t n, skip_at[2], nskip;
	struct bpf_insn in = f->insn;

	n = sweep_start(p, SV_CHECKED, &types[t].pkt, 16, skip_at, &nskip);
	switch (b) {
	case B_STACK:
		p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_10);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16);
		break;
	case B_CTX:
		p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_6);
		off += types[t].field;
		break;
	case B_VALUE:
		p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_7);
		break;
	case B_PKT:
		p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_8);
		break;
	case B_PKT_END:
		p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_9);
		break;
	case B_SCALAR:
		p[n++] = BPF_MOV64_IMM(BPF_REG_3, 4096);
		break;
	case BASES:
		break;
	}
	p[n++] = f->val == V_CTX     ? BPF_MOV64_REG(BPF_REG_2, BPF_REG_6)
		 : f->val == V_FP    ? BPF_MOV64_REG(BPF_REG_2, BPF_REG_10)
		 : f->val == V_VALUE ? BPF_MOV64_REG(BPF_REG_2, BPF_REG_7)
		 : f->val == V_PKT   ? BPF_MOV64_REG(BPF_REG_2, BPF_REG_8)
				     : BPF_MOV64_IMM(BPF_REG_2, 5);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	in.off = (short)off;
	p[n++] = in;
	sweep_skips_to(p, skip_at, nskip, n); /* the checks that failed come here */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

TEST(diff_mem_ops)
{
	static const int offs[] = { 0, 4 };
	int map[NSIDES], programs = 0, accepted = 0;
	struct form forms[64];
	int nforms = forms_make(forms);

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 64, 1, 0).rc;
		REQUIRE(map[s] >= 0);
	}
	for (int t = 0; t < (int)N(types); t++)
		for (int b = 0; b < BASES; b++)
			for (int f = 0; f < nforms; f++)
				for (size_t o = 0; o < N(offs); o++) {
					struct bpf_insn insns[NSIDES][48];
					char what[128];
					uint32_t n = 0;

					for (int side = 0; side < NSIDES; side++) {
						n = build(insns[side], t, (enum base)b, offs[o],
							  &forms[f]);
						fill_map_fds(insns[side], n, map[side]);
					}
					snprintf(what, sizeof(what), "type %u: %s through %s%+d",
						 types[t].type, forms[f].name, base_names[b],
						 offs[o]);
					accepted += verdicts_agree_eat_at(__FILE__, __LINE__, what,
									  types[t].type, 0, insns[K],
									  insns[U], n);
					programs++;
				}
	if (getenv("TEST_VERBOSE"))
		printf("diff_mem_ops: %d programs, %d accepted\n", programs, accepted);
	CHECK(programs > 700 && accepted > 200);
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
}
