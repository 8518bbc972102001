/* libFuzzer target for verifier soundness (make fuzz-verifier): the fuzz input drives the same
 * program generator as make soundness (tests/soundness_gen.c, every choice read from the bytes),
 * the program is loaded through userbpf's bpf(BPF_PROG_LOAD), and an accepted one is run in the
 * checked interpreter on inputs drawn from the remaining bytes.  A violation aborts, so libFuzzer
 * saves the input; crashes and sanitizer reports inside the verifier are caught as usual.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "soundness_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen_src s = { .data = data, .size = size };
	struct bpf_insn insns[GEN_MAX_INSNS];
	uint32_t type;
	unsigned int cnt = gen_program(&s, insns, &type);

	if (sound_check_one(&s, insns, cnt, type, 2, stderr) > 0)
		abort();
	return 0;
}
