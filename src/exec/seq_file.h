/* The seq_file an iterator program prints into (bpf_seq_printf(), bpf_seq_write():
 * src/exec/helpers/seq.c): what its meta->seq points at. */
#ifndef USERBPF_EXEC_SEQ_FILE_H
#define USERBPF_EXEC_SEQ_FILE_H

#include <stddef.h>

#include "util.h"

#define SEQ_OUT_MAX (64u << 20) /* the output a run may make (past it: -EOVERFLOW) */

/* The kernel's struct seq_file's bytes first (zeros: what the program may read of it; its
 * BTF's size is under 512), then the output. */
struct iter_seq {
	u8 kernel_part[512];
	u64 magic;
	char *buf;
	size_t len, cap;
	bool overflow;		/* a print went past SEQ_OUT_MAX: the run stops */
};

struct iter_seq *seq_file_new(void);
void seq_file_free(struct iter_seq *s);

#endif
