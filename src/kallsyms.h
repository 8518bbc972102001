/* The kernel's symbols, as /proc/kallsyms shows them to this process: what
 * bpf_kallsyms_lookup_name() answers, what the ELF loader resolves typeless
 * `extern const void sym __ksym` variables to (libbpf's way) and where the verifier looks for
 * a traced function or a typed ksym.  USERBPF_KALLSYMS names another file of the same format
 * to read instead (a kernel built without CONFIG_KALLSYMS_ALL lists no variables). */
#ifndef USERBPF_KALLSYMS_H
#define USERBPF_KALLSYMS_H

#include <stdbool.h>

#include "util.h"

/* The address of the first line naming name into *addr (the kernel's own symbols come before
 * its modules'); *ambiguous (if not NULL) says whether another line names it at another
 * address.  0, -ENOENT, -EPERM where the file shows no addresses (not privileged enough), or
 * -errno when it cannot be read. */
int kallsyms_lookup(const char *name, u64 *addr, bool *ambiguous);

#endif
