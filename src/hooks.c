/* close(), dup(), dup2(), dup3(), close_range(), closefrom(), mmap() and ioctl() wrappers, and
 * the unlink() and rename() ones that unpin (pin.c).
 *
 * userbpf's objects are real fds, and the kernel releases a map when its last fd is closed.  To
 * know that without a syscall on every bpf() call, these wrappers interpose the libc functions of
 * the same names (the executable or libuserbpf.so comes before libc in symbol lookup) and keep the
 * fd table in step, then make the real system call directly.
 *
 * Order matters: a slot is marked SLOT_CLOSING before the fd is closed and cleared after, so a
 * concurrent bpf() can neither resurrect the number nor reach the object through a number the
 * kernel has already handed to another file.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf.h>

#include "fd_table.h"
#include "perf_event.h"
#include "pin.h"
#include "rcu.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Marks fd's slot closing and returns what it held: an object, an adopter's mark, or NULL
 * (empty, or another thread is closing the same number and owns the slot). */
static struct bpf_object *slot_begin_close(int fd)
{
	struct bpf_object **slot = fd_slot_peek(fd);
	struct bpf_object *old;

	if (!slot || !__atomic_load_n(slot, __ATOMIC_RELAXED))
		return NULL;
	old = __atomic_exchange_n(slot, SLOT_CLOSING, __ATOMIC_ACQ_REL);
	if (old == SLOT_CLOSING)
		return NULL;
	if (!old) /* raced with nothing to do; leave the slot as it was */
		__atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
	return old;
}

/* Ends a close: the slot becomes `now` (NULL, or a restored object when the close failed).
 * Once the number is closed, another thread may get it for a new file of ours and publish that
 * file's object in the slot (fd.c, slot_publish()): then the slot is the new file's and stays
 * so, and a restore gives up its reference.  An adopter's mark is not restored: its fill fails
 * and it looks at the number again. */
static void slot_end_close(int fd, struct bpf_object *old, struct bpf_object *now)
{
	struct bpf_object **slot, *expect = SLOT_CLOSING;

	if (!old) {
		/* An adoption may have begun on the number between our look and the close. */
		if ((slot = fd_slot_peek(fd)) && __atomic_load_n(slot, __ATOMIC_RELAXED))
			slot_drop_stale(fd);
		return;
	}
	slot = fd_slot_peek(fd);
	if (!slot_is_obj(old))
		now = NULL;
	if (!__atomic_compare_exchange_n(slot, &expect, now, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		now = NULL;
	if (!now && slot_is_obj(old))
		obj_slot_put(old);
}

/* If oldfd is one of ours, make newfd another owner of the same object (as a dup is). */
static void slot_dup(int oldfd, int newfd)
{
	struct bpf_object **src = fd_slot_peek(oldfd), **dst, *obj, *expect = NULL;

	obj = src ? __atomic_load_n(src, __ATOMIC_ACQUIRE) : NULL;
	if (!slot_is_obj(obj))
		return; /* not ours; a later bpf() on newfd adopts it by identity if it is */
	dst = fd_slot(newfd, true);
	if (!dst)
		return;
	/* oldfd is open and ours, so its slot's reference keeps obj alive while we take one. */
	obj_slot_get(obj);
	fd_set_access(newfd, fd_access(oldfd)); /* the same file, the same mode */
	if (!__atomic_compare_exchange_n(dst, &expect, obj, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		obj_slot_put(obj);
}

USERBPF_API int close(int fd)
{
	struct bpf_object *old = slot_begin_close(fd);
	int ret = raw_close(fd);

	/* Linux closes the fd even when close() reports EINTR/EIO; only EBADF means it wasn't. */
	slot_end_close(fd, old, ret < 0 && errno == EBADF ? old : NULL);
	return ret;
}

USERBPF_API int dup(int oldfd)
{
	int ret = raw_dup(oldfd);

	if (ret >= 0)
		slot_dup(oldfd, ret);
	return ret;
}

static int dup3_common(int oldfd, int newfd, int flags, bool is_dup2)
{
	struct bpf_object *old;
	int ret;

	if (oldfd == newfd) {
		if (!is_dup2) {
			errno = EINVAL;
			return -1;
		}
		/* dup2(fd, fd) only checks fd */
		return fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
	}
	old = slot_begin_close(newfd);
	ret = raw_dup3(oldfd, newfd, flags);
	if (ret < 0) {
		int e = errno;

		slot_end_close(newfd, old, old);
		errno = e;
		return ret;
	}
	slot_end_close(newfd, old, NULL);
	slot_dup(oldfd, newfd);
	return ret;
}

USERBPF_API int dup2(int oldfd, int newfd)
{
	return dup3_common(oldfd, newfd, 0, true);
}

USERBPF_API int dup3(int oldfd, int newfd, int flags)
{
	return dup3_common(oldfd, newfd, flags, false);
}

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

/* Our fds in the range are closed one by one through close(), which keeps the table in step;
 * then the kernel closes the rest.  No memory is needed, so nothing can fail half-way. */
USERBPF_API int close_range(unsigned int first, unsigned int last, int flags)
{
	unsigned int top;

	if ((flags & CLOSE_RANGE_CLOEXEC) || first > last ||
	    (flags & ~(int)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)))
		return (int)syscall(SYS_close_range, first, last, flags);
	top = last < FD_CHUNK * FD_CHUNKS - 1 ? last : FD_CHUNK * FD_CHUNKS - 1;
	for (unsigned int fd = first; fd <= top && fd >= first; fd++) {
		struct bpf_object **slot;

		if (!__atomic_load_n(&fd_chunks[fd / FD_CHUNK], __ATOMIC_ACQUIRE)) {
			fd = (fd / FD_CHUNK + 1) * FD_CHUNK - 1; /* unallocated chunk: none of ours */
			continue;
		}
		slot = fd_slot_peek((int)fd);
		if (__atomic_load_n(slot, __ATOMIC_ACQUIRE))
			close((int)fd);
	}
	return (int)syscall(SYS_close_range, first, last, flags);
}

USERBPF_API void closefrom(int lowfd)
{
	close_range(lowfd < 0 ? 0 : (unsigned int)lowfd, ~0U, 0);
}

/* mmap(2) itself (fd.c's sys_mmap(), inline for the reason fd_slot_peek() gives). */
static inline void *raw_mmap(void *addr, size_t len, int prot, int flags, int fd, u64 off)
{
#ifdef __i386__
	return (void *)syscall(SYS_mmap2, addr, len, prot, flags, fd, (unsigned long)(off >> 12));
#else
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

/* mmap() of one of our fds gets the kernel's checks first (a hash map cannot be mapped, an array
 * only with BPF_F_MMAPABLE and within its values, ...); every other mmap() goes straight through. */
static void *mmap_checked(void *addr, size_t len, int prot, int flags, int fd, u64 off)
{
	struct bpf_object **slot, *obj, *custom = NULL;
	u64 len64 = len;
	int err = 0, rfd = -1;
	void *p;

	if (!(flags & MAP_ANONYMOUS) && (slot = fd_slot_peek(fd))) {
		rcu_read_lock();
		obj = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (slot_is_obj(obj)) {
			/* The kernel rejects a zero or too long length before the file sees it. */
			if (len64 && len64 <= (u64)INT64_MAX && off <= (u64)INT64_MAX)
				err = obj->mmap_check ? obj->mmap_check(obj, fd_access(fd), len,
									prot, flags, off)
						      : -ENODEV;
			if (err >= 0 && obj->mmap_map) {
				custom = obj;
				if (!obj_tryget(custom)) /* closed meanwhile */
					err = -EBADF;
			}
		}
		rcu_read_unlock();
		if (err < 0) {
			errno = -err;
			return MAP_FAILED;
		}
		if (err == MMAP_READ_ONLY) {
			char path[40];

			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			rfd = open(path, O_RDONLY | O_CLOEXEC);
			if (rfd >= 0)
				fd = rfd; /* without /proc, the writable file (mprotect not refused) */
		}
	}
	if (custom) {
		int e;

		p = custom->mmap_map(custom, addr, len, prot, flags, fd, off);
		e = errno;
		obj_put(custom);
		errno = e;
	} else
#ifdef __i386__
	if (off & 4095) {
		p = MAP_FAILED;
		errno = EINVAL;
	} else {
		p = raw_mmap(addr, len, prot, flags, fd, off);
	}
#else
	p = raw_mmap(addr, len, prot, flags, fd, off);
#endif
	if (rfd >= 0) {
		int e = errno;

		sys_close(rfd);
		errno = e;
	}
	return p;
}

USERBPF_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	/* off_t is signed: a negative offset is EINVAL, as the kernel says for it */
	if (off < 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return mmap_checked(addr, len, prot, flags, fd, (u64)off);
}

#ifdef __i386__
USERBPF_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (off < 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return mmap_checked(addr, len, prot, flags, fd, (u64)off);
}
#endif

/* ioctl() on a perf event of ours (perf_event.c: enable, disable, id); any other goes through. */
USERBPF_API int ioctl(int fd, unsigned long req, ...)
{
	struct bpf_object **slot = fd_slot_peek(fd), *obj;
	int ret = 1;
	void *arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (slot) {
		rcu_read_lock();
		obj = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (slot_is_obj(obj) && obj->kind == OBJ_PERF_EVENT)
			ret = perf_event_ioctl(obj, req, arg);
		rcu_read_unlock();
	}
	if (ret == 1)
		return (int)syscall(SYS_ioctl, fd, req, arg);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* Pins are files (pin.c): removing a pin's last link unpins its object, as unlink(2) does on
 * bpffs. */
USERBPF_API int unlinkat(int dirfd, const char *path, int flags)
{
	return pin_unlinkat(dirfd, path, flags);
}

USERBPF_API int unlink(const char *path)
{
	return pin_unlinkat(AT_FDCWD, path, 0);
}

/* libc's remove() calls its own unlink, which these wrappers do not see. */
USERBPF_API int remove(const char *path)
{
	int ret = pin_unlinkat(AT_FDCWD, path, 0);

	if (ret < 0 && errno == EISDIR)
		ret = pin_unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
	return ret;
}

USERBPF_API int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
			  unsigned int flags)
{
	int ret = pin_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);

	if (ret < 0 && errno == ENOSYS && !flags) /* a kernel before 3.15 */
		ret = (int)syscall(SYS_renameat, olddirfd, oldpath, newdirfd, newpath);
	return ret;
}

USERBPF_API int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	return renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
}

USERBPF_API int rename(const char *oldpath, const char *newpath)
{
	return renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}
