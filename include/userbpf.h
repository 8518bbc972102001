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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/version.h>

/* Ids the kernel added after the uapi header this is compiled with (Debian 12's is 6.1's), for
 * code written against 6.18's: */
#if defined(LINUX_VERSION_CODE) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define BPF_MAP_TYPE_CGRP_STORAGE 32
#define BPF_FUNC_cgrp_storage_get 210
#define BPF_FUNC_cgrp_storage_delete 211
#endif

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

/* The number of possible CPUs (libbpf_num_possible_cpus()): a per-CPU map's value, as bpf()
 * reads and writes it, is round_up(value_size, 8) bytes for each, CPU 0 first.  Never fails. */
USERBPF_API int userbpf_num_possible_cpus(void);

/* perf_event_open(2) for what bpf_perf_event_output() writes to: a software BPF output event
 * (attr.type PERF_TYPE_SOFTWARE, attr.config PERF_COUNT_SW_BPF_OUTPUT, sample_type
 * PERF_SAMPLE_RAW or 0) per CPU (pid -1, cpu N), per thread of this process (pid 0 or its tid,
 * cpu -1) or both.  Returns an fd for a BPF_MAP_TYPE_PERF_EVENT_ARRAY slot, or -1 with errno
 * (EINVAL, E2BIG for attr.size as the kernel; EOPNOTSUPP for any other kind of event, sample
 * field, group or process).  Use it as the kernel's: mmap() a metadata page and 2^n data pages
 * (struct perf_event_mmap_page, data_head / data_tail), read the records;
 * ioctl(PERF_EVENT_IOC_ENABLE / _DISABLE / _ID) work on it. */
struct perf_event_attr;
USERBPF_API int userbpf_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
					int group_fd, unsigned long flags);

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


/* ---- Embedding: userbpf as a safe extension VM for an application ----
 *
 * The application loads a program whose context is its own memory (ctx_size bytes, declared at
 * load), gives it helpers of its own, and runs it directly:
 *
 *	struct userbpf_prog_load_opts opts = { .sz = sizeof(opts), .ctx_size = sizeof(struct rule),
 *					       .helpers = my_helpers, .nr_helpers = 1 };
 *	struct userbpf_prog *prog;
 *	int err = userbpf_prog_load_ext(insns, cnt, &opts, &prog);
 *	uint64_t r0 = userbpf_prog_run(prog, &my_rule);
 *	userbpf_prog_free(prog);
 *
 * A program starts with R1 = the ctx pointer and R2 = ctx_size.  The verifier lets it access
 * [0, ctx_size) of the ctx with 1/2/4/8-byte loads (and stores when ctx_writable), call the
 * registered helpers with arguments of the declared types, and use maps (LD_IMM64 of a map fd)
 * when the map helpers are enabled.  See examples/embed_demo.c.
 */

/* What a registered helper's argument register must hold. */
enum userbpf_arg_type {
	USERBPF_ARG_NONE = 0,		/* unused; every following argument must be unused too */
	USERBPF_ARG_ANYTHING,		/* any initialised value */
	USERBPF_ARG_PTR_TO_MEM,		/* readable initialised memory (stack, ctx, map value);
					 * its size is the next argument */
	USERBPF_ARG_PTR_TO_UNINIT_MEM,	/* writable memory the helper fills; size is the next
					 * argument */
	USERBPF_ARG_CONST_SIZE,		/* the size of the previous memory argument, > 0 */
	USERBPF_ARG_CONST_SIZE_OR_ZERO,	/* the same, 0 allowed */
	USERBPF_ARG_PTR_TO_CTX,		/* the program's ctx pointer, unmodified */
};

/* What a registered helper returns in R0. */
enum userbpf_ret_type {
	USERBPF_RET_INTEGER = 0,	/* a scalar */
	USERBPF_RET_VOID,		/* nothing: R0 is unreadable after the call */
};

/* The helper's return value 0 ends the whole program at once with r0 = 0 (uBPF's "unwind"
 * helper).  At most one helper of a program may have it. */
#define USERBPF_HELPER_F_UNWIND (1u << 0)

typedef uint64_t (*userbpf_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
				      uint64_t r5);

/* A helper the application gives its programs: `call id` runs fn(r1, ..., r5), r0 = its
 * result.  The verifier checks each call against arg_types and ret_type.  userbpf copies the
 * description at load; fn must stay callable while the program is loaded. */
struct userbpf_helper {
	const char *name;		/* for the verifier log ("invalid func my_helper#7"); NULL:
					 * "helper_<id>" */
	uint32_t id;			/* 1 .. USERBPF_HELPER_ID_MAX, distinct within a program */
	uint32_t flags;			/* USERBPF_HELPER_F_* */
	userbpf_helper_fn fn;
	enum userbpf_arg_type arg_types[5];
	enum userbpf_ret_type ret_type;
};

#define USERBPF_HELPER_ID_MAX 255

/* Options of userbpf_prog_load_ext(), in libbpf's OPTS style: set sz to sizeof(the struct) as
 * the caller was compiled with.  Fields beyond sz read as zero; bytes beyond the fields this
 * library knows must be zero (else -EINVAL), so a newer caller's options are never silently
 * ignored. */
struct userbpf_prog_load_opts {
	size_t sz;
	/* The context: bytes at R1 the program may access, and whether it may write them. */
	uint32_t ctx_size;
	bool ctx_writable;
	/* Also offer userbpf's map helpers (bpf_map_lookup_elem #1, update #2, delete #3) at
	 * their kernel ids, unless a registered helper has the same id (it wins). */
	bool map_helpers;
	/* The application's helpers: nr_helpers entries (helpers may be NULL when 0). */
	const struct userbpf_helper *helpers;
	uint32_t nr_helpers;
	/* The verifier log, under the kernel's rules for BPF_PROG_LOAD (log_level 0: none; else
	 * log_buf and log_size >= 128 are required). */
	uint32_t log_level;
	char *log_buf;
	uint32_t log_size;
	/* The program's name (the kernel's prog_name rules; may be NULL). */
	const char *name;
	size_t :0;
};

struct userbpf_prog;

/* Verifies cnt instructions as an extension program and prepares them to run.  Returns 0 and
 * stores a new handle in *prog, or a negative errno: -EINVAL for bad options or helper
 * descriptions (NULL insns or prog, unknown trailing option bytes, a helper with no fn, an id
 * out of range or twice, an argument type sequence that is not well formed), -E2BIG for cnt 0
 * or above 1,000,000, the verifier's errno when it refuses the program (-EACCES, -EINVAL, ...;
 * its reasons are in log_buf), -ENOSPC when the log did not fit, -ENOMEM, -EMFILE. */
USERBPF_API int userbpf_prog_load_ext(const struct bpf_insn *insns, uint32_t cnt,
				      const struct userbpf_prog_load_opts *opts,
				      struct userbpf_prog **prog);

/* Runs prog with R1 = ctx (ctx_size bytes, or NULL when ctx_size is 0) and R2 = ctx_size, and
 * returns its R0.  No system call, no lock: any number of threads may run one program at once.
 * A helper that the program calls while it uses maps must not call bpf() or run a program. */
USERBPF_API uint64_t userbpf_prog_run(const struct userbpf_prog *prog, void *ctx);

/* The program's fd: a real BPF program fd for bpf() (BPF_PROG_TEST_RUN runs it with ctx_in as
 * the context; BPF_OBJ_GET_INFO_BY_FD and the like as implemented).  Owned by the handle:
 * userbpf_prog_free() closes it; dup() it to keep the program beyond the handle.  Returns the
 * fd, or -EINVAL for a NULL prog. */
USERBPF_API int userbpf_prog_fd(const struct userbpf_prog *prog);

/* Closes the handle's fd and frees the handle (the program itself once its last fd is closed).
 * NULL is ignored. */
USERBPF_API void userbpf_prog_free(struct userbpf_prog *prog);

#ifdef __cplusplus
}
#endif

#endif /* USERBPF_H */
