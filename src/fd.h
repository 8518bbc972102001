/* Objects (maps, programs) and the file descriptors that own them.
 *
 * Every object is handed to the application as a real file descriptor: a memfd named after the
 * object kind ("bpf-map", "bpf-prog"), so the number is the process's own, shows up in
 * /proc/self/fd, survives nothing it should not, and (for BPF_F_MMAPABLE arrays) can be mmapped.
 *
 * A table indexed by fd number maps an fd to its object without a syscall; that is what makes
 * bpf() cheaper than the kernel's.  The table learns about closes through userbpf's close(),
 * dup2(), dup3(), close_range() and closefrom() wrappers (hooks.c).  A number missing from the
 * table takes the slow path: fstat() it, and if it is a dup of one of our memfds (dup(), fcntl
 * F_DUPFD, fork) adopt it.  Lookups run inside rcu_read_lock(); an object is destroyed only after
 * its last reference is gone and a grace period has passed.
 *
 * Access: each fd has its own, as each kernel file has its mode: a map's creating fd gets what
 * the creation flags grant, an fd from BPF_MAP_GET_FD_BY_ID what its open_flags ask.  The table
 * keeps it next to the slot; the memfd behind the fd is opened with the matching mode
 * (O_RDONLY, O_WRONLY, O_RDWR), so that a dup() adopted later is known to have the same.
 *
 * References: each table slot that points at an object holds one; so does each holder (a loaded
 * program holding a map).  The object is destroyed when the count reaches zero.  The slots' own
 * count (the kernel's map usercnt) tells when the last fd is gone: release_uref then runs, which
 * is how a program array lets go of its programs (a program that holds the array it is in would
 * otherwise keep both alive forever).
 */
#ifndef USERBPF_FD_H
#define USERBPF_FD_H

#include <sys/types.h>

#include "util.h"

enum obj_kind {
	OBJ_MAP = 1,
	OBJ_PROG = 2,
	OBJ_BTF = 3,
	OBJ_PERF_EVENT = 4, /* a BPF output event (perf_event.h) */
	OBJ_STATS = 5,	    /* a BPF_ENABLE_STATS fd (src/prog/stats.h) */
	OBJ_LINK = 6,	    /* a program attached to a hook (src/prog/link.h) */
};

/* Access an fd grants, from BPF_F_RDONLY / BPF_F_WRONLY at creation (the kernel's FMODE_*). */
#define OBJ_CAN_READ 1
#define OBJ_CAN_WRITE 2

#define MMAP_READ_ONLY 1

struct bpf_object {
	enum obj_kind kind;
	u32 id;			/* process-wide per kind, from 1 (the kernel's object ids) */
	int access;		/* OBJ_CAN_READ | OBJ_CAN_WRITE of the creating fd */
	/* The memfd's pages are the object's data (mmapable arrays, ring buffers): a new fd must
	 * be of that file, so BPF_*_GET_FD_BY_ID needs one of its fds open. */
	bool memfd_data;
	u32 refcnt;		/* table slots + holders; destroyed at 0 */
	u32 ucnt;		/* table slots (fds) only */
	/* Called when ucnt drops to 0 (NULL: nothing to do); the object is still alive. */
	void (*release_uref)(struct bpf_object *obj);
	dev_t dev;		/* identity of the memfd behind the fds, valid once installed */
	ino_t ino;
	/* A second memfd made for BPF_*_GET_FD_BY_ID when no fd was left (0: none); fds of
	 * either file are the object's. */
	dev_t alias_dev;
	ino_t alias_ino;
	void (*destroy)(struct bpf_object *obj); /* frees the object; no reader can see it */
	/* Whether mmap(len, prot, flags, off) of an fd of this object may go ahead; -errno if
	 * not.  NULL: the object cannot be mapped (ENODEV, as for a non-mappable file). */
	/* 0: map it; MMAP_READ_ONLY: map it through a read-only file (no later mprotect to
	 * writable); negative: the errno. */
	int (*mmap_check)(struct bpf_object *obj, int access, u64 len, int prot, int flags,
			  u64 off);
	/* After mmap_check: makes the mapping (NULL: a plain mmap of the fd).  Called outside the
	 * read section, with a reference held; MAP_FAILED with errno on failure. */
	void *(*mmap_map)(struct bpf_object *obj, void *addr, size_t len, int prot, int flags,
			  int fd, u64 off);
	struct bpf_object *reg_prev, *reg_next;  /* registry of live objects, for adoption */
	struct bpf_object *defer_next;		 /* obj_put_deferred() list */
};

/* Creates the memfd that will become the object's fd.  Returns the fd or -errno. */
int obj_memfd_create(const char *name);

/* Installs obj (refcnt 0 before, 1 after) as the owner of memfd.  On failure the memfd is closed
 * and the object is NOT destroyed (the caller still owns it).  Returns fd or -errno. */
int obj_install(struct bpf_object *obj, int memfd);

/* The object behind fd if it is of the given kind.  Call inside rcu_read_lock(); the pointer is
 * valid until rcu_read_unlock().  On the slow path (an fd number not in the table) it leaves the
 * read section for a moment, so hold no other protected pointer across the call.  Errors: -EBADF (not an open fd), -EINVAL (an open fd that is not
 * an object of this kind).  Returns NULL and sets *err on failure. */
struct bpf_object *obj_from_fd(int fd, enum obj_kind kind, int *err);

/* The fd table (fd.c): chunks of FD_CHUNK slots, each chunk followed by its fds' access bytes. */
#define FD_CHUNK 4096u
#define FD_CHUNKS 1024u /* 4M fds: above the kernel's default nr_open (1M) */
extern struct bpf_object **fd_chunks[FD_CHUNKS] HIDDEN_DATA;

/* The access of fd (OBJ_CAN_*), which obj_from_fd() just resolved (inside the same section).
 * Inline: every map command asks. */
static inline int fd_access(int fd)
{
	struct bpf_object **chunk = __atomic_load_n(&fd_chunks[(unsigned)fd / FD_CHUNK],
						    __ATOMIC_ACQUIRE);

	return __atomic_load_n((u8 *)(chunk + FD_CHUNK) + (unsigned)fd % FD_CHUNK,
			       __ATOMIC_RELAXED);
}

/* Makes memfd (not installed yet) a file of the mode of access (fd.h, Access): reopened
 * through /proc/self/fd in its place; left read-write without /proc.  0 or -errno. */
int obj_memfd_set_access(int memfd, int access);

/* BPF_*_GET_FD_BY_ID: the live object of kind with id, with a reference; NULL if none. */
struct bpf_object *obj_get_by_id(enum obj_kind kind, u32 id);
/* BPF_*_GET_NEXT_ID: the smallest id above start of a live object of kind; 0 if none. */
u32 obj_next_id(enum obj_kind kind, u32 start);
/* A new fd of obj (referenced by the caller) with access (a fresh memfd, if it needs one, is
 * named after obj's kind).  Returns the fd or -errno. */
int obj_new_fd(struct bpf_object *obj, int access);

void obj_get(struct bpf_object *obj);
/* A reference on an object found inside a read section, to keep it past the section; false
 * when the object is on its way out (its last reference gone: treat it as closed). */
bool obj_tryget(struct bpf_object *obj);
/* obj_from_fd() and obj_tryget() in a read section of its own: the object with a reference
 * (obj_put() it), or NULL with *err (-EBADF also when the fd was closed meanwhile). */
struct bpf_object *obj_get_from_fd(int fd, enum obj_kind kind, int *err);
/* The reference of a table slot (an fd): also counts in ucnt.  obj_slot_put() never inside
 * rcu_read_lock(). */
void obj_slot_get(struct bpf_object *obj);
void obj_slot_put(struct bpf_object *obj);
/* Drops a reference; the last one destroys the object after a grace period.  Never call inside
 * rcu_read_lock(). */
void obj_put(struct bpf_object *obj);

/* obj_put() from inside a read section: the reference is dropped at once unless it is the last,
 * which waits for obj_put_flush() (called after the section by the commands that may defer). */
void obj_put_deferred(struct bpf_object *obj);
void obj_put_flush(void);

/* Copies an object name (map_name, prog_name) of size bytes from attr into dst with the kernel's
 * rules: alphanumerics, '_' and '.', NUL-terminated within size.  0 or -EINVAL (src/map/map.c). */
int obj_name_cpy(char *dst, const char *src, size_t size);

/* How many objects are alive (for tests: close() must release them). */
unsigned obj_live_count(void);

/* Raw kernel calls that bypass the wrappers (for the wrappers and for our own cleanup). */
int sys_close(int fd);
/* mmap(2) itself (on i386 mmap2: off must be page-aligned); MAP_FAILED with errno. */
void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, u64 off);

#endif
