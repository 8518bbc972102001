/* The trace stream behind bpf_trace_printk(): the kernel's trace_pipe, in user space.
 *
 * Algorithm: a byte ring of TRACE_BUF_SIZE under a mutex.  trace_emit() formats one line the way
 * trace_pipe shows a bpf_trace_printk event and appends it, dropping the oldest bytes when the
 * ring is full; if an fd was set, the line is also written there (outside the lock, one write()
 * per line so concurrent lines do not interleave).  userbpf_trace_read() drains the ring.
 *
 * Invariants: 0 <= used <= TRACE_BUF_SIZE; the unread bytes are ring[(start + i) % SIZE] for
 * i < used.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <userbpf.h>

#include "exec/trace.h"

#define TRACE_BUF_SIZE (64u * 1024)
#define TRACE_LINE_MAX 1024

static struct {
	pthread_mutex_t lock;
	u32 start, used;
	int fd;		/* mirror lines here; -1: none */
	char ring[TRACE_BUF_SIZE];
} trace = { PTHREAD_MUTEX_INITIALIZER, 0, 0, -1, { 0 } };

void trace_emit(const char *msg)
{
	char line[TRACE_LINE_MAX], comm[17] = { 0 };
	struct timespec ts;
	size_t mlen = strlen(msg);
	int n, fd, cpu = sched_getcpu();

	if (mlen && msg[mlen - 1] == '\n')
		mlen--;
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "%16s-%-7d [%03d] %5lld.%06ld: bpf_trace_printk: %.*s\n",
		     comm, (int)gettid(), cpu < 0 ? 0 : cpu, (long long)ts.tv_sec,
		     ts.tv_nsec / 1000, (int)mlen, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) { /* truncated: keep the line ending */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}

	pthread_mutex_lock(&trace.lock);
	for (int i = 0; i < n; i++) {
		if (trace.used == TRACE_BUF_SIZE) { /* full: drop the oldest byte */
			trace.start = (trace.start + 1) % TRACE_BUF_SIZE;
			trace.used--;
		}
		trace.ring[(trace.start + trace.used) % TRACE_BUF_SIZE] = line[i];
		trace.used++;
	}
	fd = trace.fd;
	pthread_mutex_unlock(&trace.lock);
	if (fd >= 0 && write(fd, line, n) < 0) {
		/* the reader went away: nothing to report to a running program */
	}
}

USERBPF_API long userbpf_trace_read(char *buf, unsigned long size)
{
	unsigned long n;

	if (!buf && size) {
		errno = EFAULT;
		return -1;
	}
	pthread_mutex_lock(&trace.lock);
	n = size < trace.used ? size : trace.used;
	for (unsigned long i = 0; i < n; i++)
		buf[i] = trace.ring[(trace.start + i) % TRACE_BUF_SIZE];
	trace.start = (trace.start + n) % TRACE_BUF_SIZE;
	trace.used -= n;
	pthread_mutex_unlock(&trace.lock);
	return (long)n;
}

USERBPF_API int userbpf_trace_set_fd(int fd)
{
	if (fd < -1) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&trace.lock);
	trace.fd = fd;
	pthread_mutex_unlock(&trace.lock);
	return 0;
}
