/* Pinning: BPF_OBJ_PIN and BPF_OBJ_GET (see pin.h).
 *
 * The kernel pins an object as an inode of the BPF filesystem, which holds a reference (a map's
 * user reference) until the last link to it goes.  userbpf's objects live in this process, so
 * its pins are files of the real filesystem that stand for the object: pinning creates a regular
 * file at the path (mode 0600 less the umask, as bpffs makes it; its text says what it pins),
 * and a table here maps the file's identity (device, inode, birth time) to the object.  A pin is
 * then looked up, renamed, linked and permission-checked by the filesystem itself, with its
 * errors; BPF_OBJ_GET of any other file is EACCES, as a file that is not a BPF inode is.
 *
 * The reference goes when the file's last link is removed through this process's unlink(),
 * unlinkat(), remove() or a rename() over it (hooks.c); a pin removed from outside (another
 * process) keeps its object until exit, and a new file reusing its inode is told apart by its
 * birth time where the filesystem keeps one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fd.h"
#include "pin.h"
#include "rcu.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#ifndef BPF_F_PATH_FD
#define BPF_F_PATH_FD (1U << 14)
#endif

struct pin {
	struct pin_file file;
	struct bpf_object *obj;
	struct pin *next;
};

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pin *pins;
/* Pins, plus BPF_OBJ_PINs under way; and unlink()s and rename()s making their system call
 * without the lock because there were none.  A pin begins by counting itself in pin_users, then
 * waits for fast_calls to drain: every call either saw the pin coming (and takes the lock) or
 * ended before the pin's file exists (sequentially consistent order on both counters). */
static u32 pin_users, fast_calls;

int pin_file_at(int dirfd, const char *path, int flags, struct pin_file *f, nlink_t *nlink)
{
	struct statx sx;

	if (statx(dirfd, path, flags, STATX_TYPE | STATX_INO | STATX_NLINK | STATX_BTIME, &sx) < 0)
		return -errno;
	f->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	f->ino = (ino_t)sx.stx_ino;
	f->btime_ns = sx.stx_mask & STATX_BTIME
			      ? (u64)sx.stx_btime.tv_sec * 1000000000u + sx.stx_btime.tv_nsec
			      : 0;
	if (nlink)
		*nlink = S_ISREG(sx.stx_mode) ? sx.stx_nlink : 0;
	return 0;
}

static bool same_file(const struct pin_file *a, const struct pin_file *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->btime_ns == b->btime_ns;
}

/* The attr's path_fd (offset 16, beyond our uapi header's union) as openat()'s dirfd. */
static int path_dirfd(const union bpf_attr *attr, int *dirfd)
{
	s32 path_fd;

	memcpy(&path_fd, (const u8 *)attr + 16, sizeof(path_fd));
	if (!(attr->file_flags & BPF_F_PATH_FD) && path_fd)
		return -EINVAL;
	*dirfd = attr->file_flags & BPF_F_PATH_FD ? path_fd : AT_FDCWD;
	return 0;
}

/* A map's or a program's object behind fd, with a pin's reference (a user reference, as the
 * kernel's pin of a map holds); NULL for anything else (EINVAL, as the kernel says even for a
 * bad fd). */
static struct bpf_object *pin_target(int fd)
{
	struct bpf_object *obj;
	int err;

	rcu_read_lock();
	obj = obj_from_fd(fd, OBJ_MAP, &err);
	if (!obj)
		obj = obj_from_fd(fd, OBJ_PROG, &err);
	if (!obj)
		obj = obj_from_fd(fd, OBJ_LINK, &err);
	if (obj)
		obj_slot_get(obj);
	rcu_read_unlock();
	return obj;
}

int obj_pin(const union bpf_attr *attr)
{
	const char *path = (const char *)(uintptr_t)attr->pathname;
	struct bpf_object *obj;
	struct pin *p;
	int dirfd, fd, err;
	char text[64];

	if (attr->file_flags & ~BPF_F_PATH_FD)
		return -EINVAL;
	err = path_dirfd(attr, &dirfd);
	if (err)
		return err;
	obj = pin_target((int)attr->bpf_fd);
	if (!obj)
		return -EINVAL;
	if (!path) { /* (the kernel's copy of the name faults) */
		obj_slot_put(obj);
		return -EFAULT;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		obj_slot_put(obj);
		return -ENOMEM;
	}
	__atomic_add_fetch(&pin_users, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&fast_calls, __ATOMIC_SEQ_CST))
		sched_yield();
	/* The file and its table entry appear together (the lock): a BPF_OBJ_GET or an unlink()
	 * racing with us sees both or neither, as a bpffs inode is made with its object. */
	pthread_mutex_lock(&pin_lock);
	/* O_EXCL: anything already at the path, a symlink included, is EEXIST, as for bpffs */
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		/* a trailing slash on a name to create: the kernel's path lookup says ENOENT */
		err = errno == EISDIR ? -ENOENT : -errno;
		pthread_mutex_unlock(&pin_lock);
		__atomic_sub_fetch(&pin_users, 1, __ATOMIC_SEQ_CST);
		goto fail;
	}
	err = pin_file_at(fd, "", AT_EMPTY_PATH, &p->file, NULL);
	if (!err) {
		int n = snprintf(text, sizeof(text), "userbpf %s %u of process %d\n",
				 obj->kind == OBJ_MAP ? "map" : obj->kind == OBJ_PROG ? "prog" : "link",
				 obj->id, (int)getpid());

		/* the text is for people; a short write loses nothing the table needs */
		if (write(fd, text, (size_t)n) < 0)
			n = 0;
		p->obj = obj;
		p->next = pins;
		pins = p;
	} else {
		/* the raw call: our unlinkat() would wait for the lock we hold */
		syscall(SYS_unlinkat, dirfd, path, 0);
	}
	pthread_mutex_unlock(&pin_lock);
	close(fd);
	if (!err)
		return 0;
	__atomic_sub_fetch(&pin_users, 1, __ATOMIC_SEQ_CST);
fail:
	free(p);
	obj_slot_put(obj);
	return err;
}

int obj_get_pinned(const union bpf_attr *attr)
{
	const char *path = (const char *)(uintptr_t)attr->pathname;
	u32 flags = attr->file_flags;
	struct bpf_object *obj = NULL;
	int dirfd, fd, err, access, mode;
	struct pin_file f;

	if (attr->bpf_fd || flags & ~(BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_PATH_FD))
		return -EINVAL;
	err = path_dirfd(attr, &dirfd);
	if (err)
		return err;
	if ((flags & BPF_F_RDONLY) && (flags & BPF_F_WRONLY))
		return -EINVAL;
	access = flags & BPF_F_RDONLY	? OBJ_CAN_READ
		 : flags & BPF_F_WRONLY ? OBJ_CAN_WRITE
					: OBJ_CAN_READ | OBJ_CAN_WRITE;
	mode = (access & OBJ_CAN_READ ? R_OK : 0) | (access & OBJ_CAN_WRITE ? W_OK : 0);
	if (!path)
		return -EFAULT;
	/* The lookup (following symlinks), the file's permission for the access asked, then its
	 * entry, under the lock: an unlink() that the lookup came before cannot take the entry
	 * away meanwhile (as the kernel's lookup holds the inode). */
	pthread_mutex_lock(&pin_lock);
	fd = openat(dirfd, path, O_PATH | O_CLOEXEC);
	err = fd < 0 ? -errno : pin_file_at(fd, "", AT_EMPTY_PATH, &f, NULL);
	if (!err && faccessat(fd, "", mode, AT_EMPTY_PATH | AT_EACCESS) < 0)
		err = -errno;
	for (struct pin *p = pins; !err && p; p = p->next)
		if (same_file(&p->file, &f)) {
			obj = p->obj;
			obj_get(obj);
			break;
		}
	pthread_mutex_unlock(&pin_lock);
	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	if (!obj)
		return -EACCES; /* not a pin: the kernel's answer for a file that is no BPF inode */
	/* a program's or link's fd is read-write whatever the flags ask, as bpf_prog_new_fd()
	 * and bpf_link_new_fd() make them */
	fd = obj_new_fd(obj, obj->kind == OBJ_PROG || obj->kind == OBJ_LINK
				     ? OBJ_CAN_READ | OBJ_CAN_WRITE : access);
	obj_put(obj);
	return fd;
}

/* The file at path if it is a regular file whose last link this is (a pin's last name). */
static bool last_link_at(int dirfd, const char *path, struct pin_file *f)
{
	nlink_t nlink;

	return !pin_file_at(dirfd, path, AT_SYMLINK_NOFOLLOW, f, &nlink) && nlink == 1;
}

/* Drops the entry of file f (the lock held); returns it for pin_put() after the unlock. */
static struct pin *pin_take(const struct pin_file *f)
{
	for (struct pin **pp = &pins; *pp; pp = &(*pp)->next)
		if (same_file(&(*pp)->file, f)) {
			struct pin *p = *pp;

			*pp = p->next;
			__atomic_sub_fetch(&pin_users, 1, __ATOMIC_SEQ_CST);
			return p;
		}
	return NULL;
}

static void pin_put(struct pin *p)
{
	if (p) {
		obj_slot_put(p->obj);
		free(p);
	}
}

/* With no pin, the system call alone, counted in fast_calls (see pin_users); true if it was
 * made, its result in *ret. */
static bool fast_call(long nr, long a, long b, long c, long d, long e, int *ret)
{
	bool made = false;

	__atomic_add_fetch(&fast_calls, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&pin_users, __ATOMIC_SEQ_CST)) {
		*ret = (int)syscall(nr, a, b, c, d, e);
		made = true;
	}
	__atomic_sub_fetch(&fast_calls, 1, __ATOMIC_SEQ_CST);
	return made;
}

/* While pins exist, the unlink and rename wrappers run here, under the lock, so that the file
 * identified before the call is the one the call removes, whatever other threads of this
 * process do meanwhile. */
int pin_unlinkat(int dirfd, const char *path, int flags)
{
	struct pin_file f;
	struct pin *p = NULL;
	bool last;
	int ret;

	if (flags & AT_REMOVEDIR)
		return (int)syscall(SYS_unlinkat, dirfd, path, flags);
	if (fast_call(SYS_unlinkat, dirfd, (long)path, flags, 0, 0, &ret))
		return ret;
	pthread_mutex_lock(&pin_lock);
	last = last_link_at(dirfd, path, &f);
	ret = (int)syscall(SYS_unlinkat, dirfd, path, flags);
	if (!ret && last)
		p = pin_take(&f);
	pthread_mutex_unlock(&pin_lock);
	pin_put(p);
	return ret;
}

int pin_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		  unsigned int flags)
{
	struct pin_file f, src;
	struct pin *p = NULL;
	bool last;
	int ret;

	if (flags & RENAME_EXCHANGE) /* an exchange removes nothing */
		return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
	if (fast_call(SYS_renameat2, olddirfd, (long)oldpath, newdirfd, (long)newpath, flags,
		      &ret))
		return ret;
	pthread_mutex_lock(&pin_lock);
	/* over a pin's last name, unless both names are the same file */
	last = last_link_at(newdirfd, newpath, &f) &&
	       !(!pin_file_at(olddirfd, oldpath, AT_SYMLINK_NOFOLLOW, &src, NULL) &&
		 same_file(&src, &f));
	ret = (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
	if (!ret && last)
		p = pin_take(&f);
	pthread_mutex_unlock(&pin_lock);
	pin_put(p);
	return ret;
}
