/* libuserbpf-preload.so: userbpf for programs that call the kernel themselves.
 *
 * libbpf, and code written on the raw system call, reach the kernel through
 * syscall(__NR_bpf, cmd, attr, size), which no library can see.  This library is userbpf plus one
 * more wrapper, syscall(): loaded first (LD_PRELOAD), it sends __NR_bpf to userbpf's bpf() and
 * every other number on to libc's syscall() unchanged.  So a libbpf test suite runs on userbpf,
 * without root and without a kernel's BPF, as it is: its close(), mmap() and the other calls on
 * userbpf's fds already go to userbpf's wrappers (hooks.c) the same way.
 *
 * The wrapper lives in this library only: the plain libuserbpf.so and .a leave syscall() alone,
 * so that a program can use both userbpf and the kernel's bpf() (as userbpf's own differential
 * tests do).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include <userbpf.h>

#include "syscall.h"

typedef long (*syscall_fn)(long nr, ...);

USERBPF_API long syscall(long nr, ...)
{
	static syscall_fn next;
	syscall_fn fn = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
	long a[6];
	va_list ap;

	/* Six arguments, as many as a system call takes: reading more than the caller passed reads
	 * its stack or registers, never memory it does not own (as libc's own wrapper does). */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf)
		return bpf_syscall((int)a[0], (union bpf_attr *)a[1], (unsigned int)a[2]);
	if (!fn) {
		fn = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
		__atomic_store_n(&next, fn, __ATOMIC_RELEASE);
	}
	return fn(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
