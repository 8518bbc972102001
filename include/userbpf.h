/* userbpf — the Linux bpf() system call, in user space.
 *
 * The one entry point is bpf(), with the kernel's ABI: a command, a pointer to union bpf_attr from
 * <linux/bpf.h>, and the size of what the caller filled in.  It returns what the kernel's call
 * returns (a new file descriptor, 0, or a count) or -1 with errno set to the value the kernel
 * would set.  Objects (maps, and later programs) are real file descriptors of the process:
 * close(fd) releases them, as on the kernel.
 *
 * Differences from the kernel, by design (see README.md, "Fidelity"):
 *  - Objects live in this process: a forked child gets a copy, not a shared map.
 *  - Pointers in attr are trusted to be valid when non-NULL; NULL gives EFAULT as on the kernel.
 *  - userbpf learns that an fd was closed through its close()/dup2()/dup3()/close_range()
 *    wrappers; an fd closed with a raw syscall(SYS_close) is not noticed.
 */
#ifndef USERBPF_H
#define USERBPF_H

#include <linux/bpf.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define USERBPF_API __attribute__((visibility("default")))
#else
#define USERBPF_API
#endif

/* The bpf() system call.  Returns >= 0 on success, -1 with errno on failure. */
USERBPF_API int bpf(int cmd, union bpf_attr *attr, unsigned int size);

/* Whether programs loaded from now on are compiled to native code (x86-64; elsewhere the
 * interpreter always runs them), as the kernel's bpf_jit_enable.  The default is on unless the
 * environment says USERBPF_JIT=0.  Returns the previous setting; never fails. */
USERBPF_API int userbpf_set_jit(int enable);

/* Constant blinding in the JIT (the kernel's bpf_jit_harden): off by default, or
 * USERBPF_JIT_HARDEN=1.  Returns the previous setting; never fails. */
USERBPF_API int userbpf_set_jit_harden(int enable);

/* The library's version as "MAJOR.MINOR.PATCH".  Never fails. */
USERBPF_API const char *userbpf_version(void);

/* The trace stream (what bpf_trace_printk() writes; the kernel's trace_pipe): one line per event,
 * "<comm>-<tid> [cpu] sec.usec: bpf_trace_printk: <message>".  Lines are kept in a 64 KiB buffer
 * (the oldest bytes are dropped when it is full).
 *
 * userbpf_trace_read() moves up to size buffered bytes into buf and returns how many (0: none
 * buffered); -1 with errno EFAULT if buf is NULL and size is not 0.
 * userbpf_trace_set_fd() also writes every new line to fd (-1: stop); returns 0, or -1 with
 * errno EBADF for fd < -1. */
USERBPF_API long userbpf_trace_read(char *buf, unsigned long size);
USERBPF_API int userbpf_trace_set_fd(int fd);

#ifdef __cplusplus
}
#endif

#endif /* USERBPF_H */
