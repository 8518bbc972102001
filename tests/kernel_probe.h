/* kernel_probe.h — what the live kernel here lacks of what upstream kernels have.
 *
 * The kernel on this project's machines is a build of 6.18.44 whose helpers can differ from
 * upstream's: one refuses bpf_xdp_adjust_meta() in XDP ("cannot use helper"), where an earlier
 * build of the same version had it.  userbpf keeps what upstream has; tests that compare with
 * the kernel compare on kernels that have it and say what they skipped elsewhere.  (The
 * soundness tools link this file without the test framework: raw bpf() only.)
 */
#ifndef USERBPF_TESTS_KERNEL_PROBE_H
#define USERBPF_TESTS_KERNEL_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/bpf.h>

/* Whether the kernel lacks a helper upstream gives the program type: only the helpers listed
 * in kernel_probe.c are asked (others: false), each probed once; false without the kernel's
 * bpf().  The first true answer prints a "known difference" line to stdout. */
bool kernel_lacks_helper(uint32_t type, uint32_t helper);

/* Whether insns (a program of type) call a helper the kernel lacks, as above. */
bool calls_helper_kernel_lacks(uint32_t type, const struct bpf_insn *insns, uint32_t n);

#endif
