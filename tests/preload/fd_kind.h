/* Which bpf() an object fd came from, for the preload tests' helper programs: userbpf's are
 * memfds, the kernel's anonymous inodes (what /proc/self/fd says). */
#ifndef TESTS_PRELOAD_FD_KIND_H
#define TESTS_PRELOAD_FD_KIND_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* "userbpf", "kernel", or the fd's link text. */
static inline const char *fd_kind(int fd)
{
	static char buf[128];
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, "memfd:") ? "userbpf" : strstr(buf, "anon_inode:") ? "kernel" : buf;
}

#endif
