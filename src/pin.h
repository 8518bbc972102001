/* Pinning: BPF_OBJ_PIN and BPF_OBJ_GET, with pins as real files (src/pin.c). */
#ifndef USERBPF_PIN_H
#define USERBPF_PIN_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

/* What identifies a pin's file: device, inode and birth time (0 where the filesystem keeps
 * none, so that a reused inode is not taken for the pin). */
struct pin_file {
	dev_t dev;
	ino_t ino;
	u64 btime_ns;
};

/* BPF_OBJ_PIN: 0 or -errno. */
int obj_pin(const union bpf_attr *attr);
/* BPF_OBJ_GET: a new fd of the pinned object, or -errno. */
int obj_get_pinned(const union bpf_attr *attr);

/* unlinkat(2) and renameat2(2) for the wrappers (hooks.c): removing a pin's last link lets its
 * object go.  Return what the system call returns (-1 with errno). */
int pin_unlinkat(int dirfd, const char *path, int flags);
int pin_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		  unsigned int flags);
/* statx() of path (flags: AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH) into *f, and into *nlink (if not
 * NULL) its link count, 0 for anything but a regular file.  0 or -errno. */
int pin_file_at(int dirfd, const char *path, int flags, struct pin_file *f, nlink_t *nlink);

#endif
