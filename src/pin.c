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
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fd.h"
#include "pin.h"
#include "rcu.h"

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
static u32 pin_count; /* read without the lock by the unlink hooks */

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
	/* O_EXCL: anything already at the path, a symlink included, is EEXIST, as for bpffs */
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		/* a trailing slash on a name to create: the kernel's path lookup says ENOENT */
		err = errno == EISDIR ? -ENOENT : -errno;
		goto fail;
	}
	err = pin_file_at(fd, "", AT_EMPTY_PATH, &p->file, NULL);
	if (!err) {
		int n = snprintf(text, sizeof(text), "userbpf %s %u of process %d\n",
				 obj->kind == OBJ_MAP ? "map" : "prog", obj->id, (int)getpid());

		/* the text is for people; a short write loses nothing the table needs */
		if (write(fd, text, (size_t)n) < 0)
			n = 0;
	}
	close(fd);
	if (err) {
		unlinkat(dirfd, path, 0);
		goto fail;
	}
	p->obj = obj;
	pthread_mutex_lock(&pin_lock);
	p->next = pins;
	pins = p;
	__atomic_store_n(&pin_count, pin_count + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pin_lock);
	return 0;
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
	/* the lookup (following symlinks), then the file's permission for the access asked */
	fd = openat(dirfd, path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = pin_file_at(fd, "", AT_EMPTY_PATH, &f, NULL);
	if (!err && faccessat(fd, "", mode, AT_EMPTY_PATH | AT_EACCESS) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	pthread_mutex_lock(&pin_lock);
	for (struct pin *p = pins; p; p = p->next)
		if (same_file(&p->file, &f)) {
			obj = p->obj;
			obj_get(obj);
			break;
		}
	pthread_mutex_unlock(&pin_lock);
	if (!obj)
		return -EACCES; /* not a pin: the kernel's answer for a file that is no BPF inode */
	/* a program's fd is read-write whatever the flags ask, as bpf_prog_new_fd() makes it */
	fd = obj_new_fd(obj, obj->kind == OBJ_PROG ? OBJ_CAN_READ | OBJ_CAN_WRITE : access,
			obj->kind == OBJ_MAP ? "bpf-map" : "bpf-prog");
	obj_put(obj);
	return fd;
}

bool pins_exist(void)
{
	return __atomic_load_n(&pin_count, __ATOMIC_ACQUIRE) != 0;
}

void pin_file_removed(const struct pin_file *f)
{
	struct pin **pp, *p = NULL;

	pthread_mutex_lock(&pin_lock);
	for (pp = &pins; *pp; pp = &(*pp)->next)
		if (same_file(&(*pp)->file, f)) {
			p = *pp;
			*pp = p->next;
			__atomic_store_n(&pin_count, pin_count - 1, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&pin_lock);
	if (p) {
		obj_slot_put(p->obj);
		free(p);
	}
}
