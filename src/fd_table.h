/* Internals of the fd -> object table shared by fd.c and hooks.c (see fd.c). */
#ifndef USERBPF_FD_TABLE_H
#define USERBPF_FD_TABLE_H

#include "fd.h"

/* Slot values with the low bit set are markers, not objects (objects are aligned):
 * SLOT_CLOSING while a wrapper closes the number (not ours any more, not adoptable yet), and
 * an adopter's own mark while it identifies the number's file (fd.c, obj_adopt()). */
#define SLOT_CLOSING ((struct bpf_object *)1)

static inline bool slot_is_obj(const struct bpf_object *v)
{
	return v && !((uintptr_t)v & 1);
}

/* After a close that found fd's slot empty: undoes what an adoption that identified the
 * number's file before the close may have filed since (fd.c). */
void slot_drop_stale(int fd);

/* The slot for fd, allocating its chunk if create.  NULL if fd is out of range (or no memory). */
struct bpf_object **fd_slot(int fd, bool create);

/* fd_slot(fd, false), inline: the libc wrappers (hooks.c) take this path for every fd, ours or
 * not, and under ThreadSanitizer they run before its runtime is ready (it calls mmap() and
 * close() while it starts), so they must not call into instrumented code for a foreign fd. */
static inline struct bpf_object **fd_slot_peek(int fd)
{
	unsigned idx = (unsigned)fd / FD_CHUNK;
	struct bpf_object **chunk;

	if (fd < 0 || idx >= FD_CHUNKS)
		return NULL;
	chunk = __atomic_load_n(&fd_chunks[idx], __ATOMIC_ACQUIRE);
	return chunk ? &chunk[(unsigned)fd % FD_CHUNK] : NULL;
}

/* Sets fd's access byte (its slot's chunk exists); before the slot is published. */
void fd_set_access(int fd, int access);

/* The close(2), dup(2) and dup3(2) the wrappers and the table make.  Under ThreadSanitizer
 * (USERBPF_TSAN for hooks.c, built without its instrumentation) they go through its
 * interceptors, the next definitions after ours: it models each fd's life, and a close it did
 * not see would make the number's next file look like a race with the last. */
#if defined(USERBPF_TSAN) || defined(__SANITIZE_THREAD__)
#include <dlfcn.h>
#define TSAN_NEXT(name, type, ...)                                                                 \
	do {                                                                                       \
		static __typeof__(type) fn;                                                        \
		if (!__atomic_load_n(&fn, __ATOMIC_ACQUIRE))                                       \
			__atomic_store_n(&fn, (type)dlsym(RTLD_NEXT, name), __ATOMIC_RELEASE);     \
		return fn(__VA_ARGS__);                                                            \
	} while (0)
static inline int raw_close(int fd)
{
	TSAN_NEXT("close", int (*)(int), fd);
}
static inline int raw_dup(int fd)
{
	TSAN_NEXT("dup", int (*)(int), fd);
}
static inline int raw_dup3(int oldfd, int newfd, int flags)
{
	TSAN_NEXT("dup3", int (*)(int, int, int), oldfd, newfd, flags);
}
#else
#include <sys/syscall.h>
#include <unistd.h>
static inline int raw_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}
static inline int raw_dup(int fd)
{
	return (int)syscall(SYS_dup, fd);
}
static inline int raw_dup3(int oldfd, int newfd, int flags)
{
	return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}
#endif

#endif
