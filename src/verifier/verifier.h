/* The verifier's entry point, as the rest of userbpf sees it.
 *
 * bpf_check() takes a program whose fields are set from attr and whose instructions are the
 * user's, and either proves it safe or rejects it, writing the kernel's log to attr->log_buf
 * under the kernel's log rules.  On success the program is ready to run: map references are
 * resolved (prog->used_maps, each holding a reference), LD_IMM64 map loads hold addresses, ctx
 * accesses that need it are rewritten for the runtime context layouts of src/exec/ctx.h, and
 * prog->stack_depth is set.  Returns 0 or a negative errno (the kernel's for the same program).
 *
 * Everything else under src/verifier/ is internal to the verifier.
 */
#ifndef USERBPF_VERIFIER_H
#define USERBPF_VERIFIER_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

struct bpf_prog;

/* attr is the kernel's whole union (KERNEL_ATTR_SIZE bytes, src/syscall.h: union kernel_attr),
 * for the fields past our header's (fd_array_cnt).  uattr (usize bytes) receives what the
 * kernel writes back (the record size it expects). */
int bpf_check(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr,
	      u32 usize);

#endif
