/* What a program sees of a kernel variable (a typed ksym: an LD_IMM64 of a BTF VAR): zeros.
 * userbpf cannot read the kernel's memory, so a variable's address is that of a read-only
 * region of zeroed pages (kernel_vars.c), per-CPU ones included: every CPU's copy reads 0. */
#ifndef USERBPF_EXEC_KERNEL_VARS_H
#define USERBPF_EXEC_KERNEL_VARS_H

#include "util.h"

/* Bytes a kernel variable may have here (the region's size). */
#define KERNEL_VAR_MAX (1u << 20)

/* The region's address (made on first use), NULL if it cannot be mapped. */
const void *kernel_var_memory(void);

#endif
