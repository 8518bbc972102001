/* Perf events for bpf_perf_event_output(): the BPF output events userbpf_perf_event_open() makes
 * (src/perf_event.c), as the perf event array's slots and its helper see them. */
#ifndef USERBPF_PERF_EVENT_H
#define USERBPF_PERF_EVENT_H

#include "fd.h"
#include "util.h"

/* The event behind fd, referenced; NULL with *err = -EBADF when fd is no perf event of ours
 * (the kernel's perf_event_get()), -EOPNOTSUPP for an inherited event (which the kernel cannot
 * read locally, so a perf event array refuses it).  Inside a read section. */
struct bpf_object *perf_event_get(int fd, int *err);

/* Writes a PERF_RECORD_SAMPLE of meta_size bytes from meta then extra_size from extra, for a
 * program running on cpu.  0; -EOPNOTSUPP when the event is disabled or not active there (bound
 * to another CPU or thread: the kernel's oncpu test); -ENOSPC when it is not mapped yet or its
 * ring has no room (counted as lost); -E2BIG beyond what a record header can describe. */
int perf_event_output(struct bpf_object *obj, u32 cpu, const void *meta, u32 meta_size,
		      const void *extra, u32 extra_size);

/* ioctl() on an event (the ioctl() wrapper, hooks.c): 0 or -errno. */
int perf_event_ioctl(struct bpf_object *obj, unsigned long req, void *arg);

#endif
