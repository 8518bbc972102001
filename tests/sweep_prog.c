/* The verifier sweeps' program parts (sweep_prog.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "sweep_prog.h"
#include "test.h"

const struct sweep_type sweep_pkt_types[2] = {
	{ BPF_PROG_TYPE_XDP,
	  { offsetof(struct xdp_md, data), offsetof(struct xdp_md, data_end), BPF_W },
	  offsetof(struct xdp_md, data_meta), offsetof(struct xdp_md, ingress_ifindex) },
	{ BPF_PROG_TYPE_SCHED_CLS,
	  { offsetof(struct __sk_buff, data), offsetof(struct __sk_buff, data_end), BPF_W }, -1,
	  offsetof(struct __sk_buff, mark) },
};

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

const char *const sweep_kind_names[SWEEP_KINDS] = { "ctx", "fp", "fp-16", "map", "map value",
						    "map value or null", "pkt", "pkt_end",
						    "pkt_meta", "scalar" };

uint32_t sweep_load(struct bpf_insn *p, uint32_t n, int reg, enum sweep_kind k, int meta_off)
{
	switch (k) {
	case K_CTX:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_6);
		break;
	case K_FP:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_10);
		break;
	case K_STACK:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_10);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, reg, -16);
		break;
	case K_MAP: {
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(reg, 0) };

		p[n++] = ld[0];
		p[n++] = ld[1];
		break;
	}
	case K_VALUE:
	case K_VALUE_OR_NULL:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_7);
		break;
	case K_PKT:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_8);
		break;
	case K_PKT_END:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_9);
		break;
	case K_PKT_META:
		p[n++] = BPF_LDX_MEM(BPF_W, reg, BPF_REG_6, meta_off);
		break;
	case K_SCALAR:
		p[n++] = BPF_MOV64_REG(reg, BPF_REG_4);
		break;
	case SWEEP_KINDS:
		break;
	}
	return n;
}

int sweep_compare(uint32_t count, sweep_case_fn fn, int *accepted)
{
	int map[NSIDES], programs = 0;

	*accepted = 0;
	for (int s = 0; s < NSIDES; s++)
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 64, 1, 0).rc;
	if (map[K] < 0 || map[U] < 0)
		programs = -1;
	for (uint32_t i = 0; i < count && programs >= 0; i++) {
		struct bpf_insn insns[NSIDES][64];
		uint32_t n = 0, type = 0;
		char what[160];

		if (!fn(i, insns[K], &n, &type, what, sizeof(what)))
			continue;
		memcpy(insns[U], insns[K], n * sizeof(insns[K][0]));
		for (int s = 0; s < NSIDES; s++)
			fill_map_fds(insns[s], n, map[s]);
		*accepted += verdicts_agree_eat_at(__FILE__, __LINE__, what, type, 0, insns[K],
						   insns[U], n);
		programs++;
	}
	for (int s = 0; s < NSIDES; s++)
		if (map[s] >= 0)
			close(map[s]);
	return programs;
}

void sweep_compare_all(const char *name, uint32_t count, sweep_case_fn fn, int min_programs,
		       int min_accepted)
{
	int accepted, programs = sweep_compare(count, fn, &accepted);

	if (getenv("TEST_VERBOSE"))
		printf("%s: %d programs, %d accepted\n", name, programs, accepted);
	CHECK(programs >= min_programs && accepted >= min_accepted);
}

uint32_t sweep_count(uint32_t nops, uint32_t nsrcs, uint32_t nuses)
{
	return (uint32_t)(sizeof(sweep_pkt_types) / sizeof(sweep_pkt_types[0])) * SWEEP_KINDS *
	       nops * nsrcs * 2 * nuses;
}

struct sweep_at sweep_at(uint32_t i, uint32_t nops, uint32_t nsrcs, uint32_t nuses)
{
	struct sweep_at a;

	a.use = i % nuses;
	i /= nuses;
	a.wide = !(i % 2);
	i /= 2;
	a.src = i % nsrcs;
	i /= nsrcs;
	a.op = i % nops;
	i /= nops;
	a.d = (enum sweep_kind)(i % SWEEP_KINDS);
	a.t = (int)(i / SWEEP_KINDS);
	return a;
}
