/* The text both sides of the CO-RE comparison print (tests/preload/libbpf_user.c for libbpf,
 * tests/test_preload.c for userbpf's loader): a program's instructions after relocation, one
 * "insn N code dst src off imm" line each, map references' fds (which differ) as 0; and the
 * frame they run it on. */
#ifndef TESTS_PRELOAD_CORE_DUMP_H
#define TESTS_PRELOAD_CORE_DUMP_H

#include <linux/bpf.h>
#include <stdio.h>

static inline void core_print_insns(FILE *f, const struct bpf_insn *insn, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ld64 = insn[i].code == (BPF_LD | BPF_IMM | BPF_DW);

		fprintf(f, "insn %zu %02x %u %u %d %d\n", i, insn[i].code, insn[i].dst_reg,
			insn[i].src_reg, insn[i].off, ld64 && insn[i].src_reg ? 0 : insn[i].imm);
		if (ld64 && i + 1 < n) {
			i++;
			fprintf(f, "insn %zu %02x %u %u %d %d\n", i, insn[i].code, insn[i].dst_reg,
				insn[i].src_reg, insn[i].off, insn[i].imm);
		}
	}
}

/* The frame both sides test-run: Ethernet, IPv4 (ihl 5) from 10.0.0.1, UDP to port 0x1234. */
static inline void core_frame(unsigned char f[64])
{
	for (int i = 0; i < 64; i++)
		f[i] = 0;
	f[12] = 0x08;			   /* ETH_P_IP */
	f[14] = 0x45;			   /* version 4, ihl 5 */
	f[23] = 17;			   /* UDP */
	f[26] = 10, f[29] = 1;		   /* saddr 10.0.0.1 */
	f[36] = 0x12, f[37] = 0x34;	   /* dest port */
}

#endif
