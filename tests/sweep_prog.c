/* The verifier sweeps' program parts (sweep_prog.h). */
#include "sweep_prog.h"

uint32_t sweep_start(struct bpf_insn *p, enum sweep_value value, const struct pkt_src *pkt,
		     int pkt_bytes, uint32_t skip_at[2], uint32_t *nskip)
{
	uint32_t n = 0;

	*nskip = 0;
	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (int off = -32; off < 0; off += 8)
		p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, off, 0);
	if (value != SV_NONE) {
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, 0) };

		p[n++] = ld[0];
		p[n++] = ld[1];
		p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -32);
		p[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
		p[n++] = BPF_MOV64_REG(BPF_REG_7, BPF_REG_0);
		if (value == SV_CHECKED) {
			skip_at[(*nskip)++] = n;
			p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0);
		}
	}
	if (pkt_bytes && pkt && pkt->data_end) {
		p[n++] = BPF_LDX_MEM(pkt->size, BPF_REG_8, BPF_REG_6, pkt->data);
		p[n++] = BPF_LDX_MEM(pkt->size, BPF_REG_9, BPF_REG_6, pkt->data_end);
		p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_8);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, pkt_bytes);
		skip_at[(*nskip)++] = n;
		p[n++] = BPF_JMP_REG(BPF_JGT, BPF_REG_0, BPF_REG_9, 0);
	}
	return n;
}

void sweep_skips_to(struct bpf_insn *p, const uint32_t *skip_at, uint32_t nskip, uint32_t to)
{
	for (uint32_t i = 0; i < nskip; i++)
		p[skip_at[i]].off = (short)(to - skip_at[i] - 1);
}

void sweep_set_map(struct bpf_insn *p, uint32_t n, int fd)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) && p[i].src_reg == BPF_PSEUDO_MAP_FD)
			p[i].imm = fd;
}
