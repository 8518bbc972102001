/* A program's standard streams (Linux 6.17+): BPF_STDOUT (1) and BPF_STDERR (2), text the
 * program writes with the kfunc bpf_stream_vprintk_impl() (libbpf's bpf_stream_printk()) and
 * user space reads, consuming it, with BPF_PROG_STREAM_READ_BY_FD (stream.c).
 *
 * Each stream is a queue of the messages written, in order; a read takes bytes from its head,
 * possibly part of a message (the rest stays for the next read).  A stream holds at most
 * STREAM_CAPACITY - 1 bytes not yet read: a message that would reach the capacity is refused
 * with -ENOSPC, as the kernel's is.
 */
#ifndef USERBPF_PROG_STREAM_H
#define USERBPF_PROG_STREAM_H

#include "util.h"

#define BPF_STREAM_STDOUT 1
#define BPF_STREAM_STDERR 2
#define STREAM_CAPACITY 100000	/* the kernel's BPF_STREAM_MAX_CAPACITY */

struct stream_msg;

struct prog_stream {
	spinlock_t lock;	/* the queue and capacity: writers and readers */
	struct stream_msg *head, *tail;
	int capacity;		/* bytes of the messages queued, as the kernel counts them */
};

union bpf_attr;
struct bpf_prog;

/* The kfunc bpf_stream_vprintk_impl(stream_id, fmt__str, args, len__sz, aux__prog): fmt
 * formatted as bpf_trace_vprintk() formats it, with len / 8 u64 arguments at args, appended to
 * the program's stream.  0, or -ENOENT (no such stream), -EINVAL (a bad length or format),
 * -ENOSPC (the stream is full), -ENOMEM (the text is over 1024 bytes).  aux__prog is the
 * program itself, which the engines pass (the verifier lets any value through). */
u64 bpf_stream_vprintk_kfunc(u64 stream_id, u64 fmt, u64 args, u64 len, u64 prog);

/* BPF_PROG_STREAM_READ_BY_FD. */
int prog_stream_read(const union bpf_attr *attr);

/* The messages left in prog's streams, freed with it. */
void prog_streams_free(struct bpf_prog *prog);

#endif
