/* The trace stream: where bpf_trace_printk() writes (src/exec/trace.c).
 *
 * Lines are kept in a bounded in-memory buffer that userbpf_trace_read() drains (oldest bytes are
 * dropped when it is full, as the kernel's trace ring overwrites), and are also written to the fd
 * set with userbpf_trace_set_fd(), if any.
 */
#ifndef USERBPF_EXEC_TRACE_H
#define USERBPF_EXEC_TRACE_H

#include "util.h"

/* Appends one event line "<comm>-<tid> [cpu] sec.usec: bpf_trace_printk: msg\n" (msg without its
 * trailing newline, if any). */
void trace_emit(const char *msg);

#endif
