/* The fd -> object table, the registry of live objects, and reference counting (see fd.h).
 *
 * Table: FD_CHUNKS chunks of FD_CHUNK slots, allocated on first use and never freed, so readers
 * can index it with plain atomic loads.  After a chunk's slots come their fds' access bytes,
 * written before the slot is published (release) and read after it (acquire).  A slot is NULL (not ours, or not yet adopted), an object
 * pointer, or a marker (fd_table.h): SLOT_CLOSING while a wrapper is closing that number, or an
 * adopter's mark while it identifies the number's file.  Adoption fills only its own mark, and a
 * close replaces any mark, so a racing bpf() can neither resurrect an fd that is being closed
 * nor file an object under a number that has since become another file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "fd_table.h"
#include "rcu.h"

struct bpf_object **fd_chunks[FD_CHUNKS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bpf_object *registry_head;
static unsigned registry_count;

int sys_close(int fd)
{
	return raw_close(fd);
}

void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, u64 off)
{
#ifdef __i386__
	return (void *)syscall(SYS_mmap2, addr, len, prot, flags, fd, (unsigned long)(off >> 12));
#else
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

struct bpf_object **fd_slot(int fd, bool create)
{
	struct bpf_object **chunk;
	unsigned idx = (unsigned)fd / FD_CHUNK;

	if (fd < 0 || idx >= FD_CHUNKS)
		return NULL;
	chunk = __atomic_load_n(&fd_chunks[idx], __ATOMIC_ACQUIRE);
	if (!chunk && create) {
		struct bpf_object **fresh = calloc(1, FD_CHUNK * (sizeof(*fresh) + 1));

		if (!fresh)
			return NULL;
		if (__atomic_compare_exchange_n(&fd_chunks[idx], &chunk, fresh, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			chunk = fresh;
		else
			free(fresh); /* another thread installed one; chunk now holds it */
	}
	return chunk ? &chunk[(unsigned)fd % FD_CHUNK] : NULL;
}

void fd_set_access(int fd, int access)
{
	struct bpf_object **chunk = __atomic_load_n(&fd_chunks[(unsigned)fd / FD_CHUNK],
						    __ATOMIC_ACQUIRE);

	/* (the chunk exists: fd has a slot being filled) */
	__atomic_store_n((u8 *)(chunk + FD_CHUNK) + (unsigned)fd % FD_CHUNK, (u8)access,
			 __ATOMIC_RELAXED);
}

/* The access an open file's mode gives (O_ACCMODE). */
static int access_of_mode(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return OBJ_CAN_READ;
	case O_WRONLY:
		return OBJ_CAN_WRITE;
	default:
		return OBJ_CAN_READ | OBJ_CAN_WRITE;
	}
}

static int mode_of_access(int access)
{
	return access == OBJ_CAN_READ ? O_RDONLY : access == OBJ_CAN_WRITE ? O_WRONLY : O_RDWR;
}

static int obj_reopen(int fd, int access)
{
	char path[40];
	int nfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, mode_of_access(access) | O_CLOEXEC);
	return nfd < 0 ? -errno : nfd;
}

int obj_memfd_set_access(int memfd, int access)
{
	int r, err = 0;

	if (access == (OBJ_CAN_READ | OBJ_CAN_WRITE))
		return 0;
	r = obj_reopen(memfd, access);
	if (r < 0) /* no /proc: the file stays read-write */
		return 0;
	if (syscall(SYS_dup3, r, memfd, O_CLOEXEC) < 0)
		err = -errno;
	sys_close(r);
	return err;
}

int obj_memfd_create(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void registry_add(struct bpf_object *obj)
{
	pthread_mutex_lock(&registry_lock);
	obj->reg_prev = NULL;
	obj->reg_next = registry_head;
	if (registry_head)
		registry_head->reg_prev = obj;
	registry_head = obj;
	registry_count++;
	pthread_mutex_unlock(&registry_lock);
}

static void registry_del(struct bpf_object *obj)
{
	pthread_mutex_lock(&registry_lock);
	if (obj->reg_prev)
		obj->reg_prev->reg_next = obj->reg_next;
	else
		registry_head = obj->reg_next;
	if (obj->reg_next)
		obj->reg_next->reg_prev = obj->reg_prev;
	registry_count--;
	pthread_mutex_unlock(&registry_lock);
}

unsigned obj_live_count(void)
{
	unsigned n;

	pthread_mutex_lock(&registry_lock);
	n = registry_count;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

/* Fills the slot of a fresh fd number with obj (whose slot reference the caller made).  Any
 * stale entry was cleared when the old fd was closed; if the number was closed behind our back
 * (raw syscall), the stale entry is replaced and its reference dropped. */
static void slot_publish(struct bpf_object **slot, struct bpf_object *obj)
{
	struct bpf_object *expect = NULL;

	if (!__atomic_compare_exchange_n(slot, &expect, obj, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED)) {
		struct bpf_object *stale = __atomic_exchange_n(slot, obj, __ATOMIC_ACQ_REL);

		if (slot_is_obj(stale))
			obj_slot_put(stale);
	}
}

int obj_install(struct bpf_object *obj, int memfd)
{
	struct bpf_object **slot;
	struct stat st;

	if (fstat(memfd, &st) < 0) {
		int err = -errno;

		sys_close(memfd);
		return err;
	}
	slot = fd_slot(memfd, true);
	if (!slot) {
		sys_close(memfd);
		return -ENOMEM;
	}
	obj->dev = st.st_dev;
	obj->ino = st.st_ino;
	obj->refcnt = 1;
	obj->ucnt = 1;
	fd_set_access(memfd, obj->access);
	registry_add(obj);
	slot_publish(slot, obj);
	return memfd;
}

void obj_get(struct bpf_object *obj)
{
	__atomic_add_fetch(&obj->refcnt, 1, __ATOMIC_RELAXED);
}

void obj_slot_get(struct bpf_object *obj)
{
	__atomic_add_fetch(&obj->ucnt, 1, __ATOMIC_RELAXED);
	obj_get(obj);
}

void obj_slot_put(struct bpf_object *obj)
{
	if (!__atomic_sub_fetch(&obj->ucnt, 1, __ATOMIC_ACQ_REL) && obj->release_uref)
		obj->release_uref(obj);
	obj_put(obj);
}

bool obj_tryget(struct bpf_object *obj)
{
	u32 c = __atomic_load_n(&obj->refcnt, __ATOMIC_RELAXED);

	while (c)
		if (__atomic_compare_exchange_n(&obj->refcnt, &c, c + 1, true, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

struct bpf_object *obj_get_from_fd(int fd, enum obj_kind kind, int *err)
{
	struct bpf_object *obj;

	rcu_read_lock();
	obj = obj_from_fd(fd, kind, err);
	if (obj && !obj_tryget(obj)) {
		obj = NULL;
		*err = -EBADF;
	}
	rcu_read_unlock();
	return obj;
}

void obj_put(struct bpf_object *obj)
{
	if (__atomic_sub_fetch(&obj->refcnt, 1, __ATOMIC_ACQ_REL))
		return;
	registry_del(obj);
	/* Readers that loaded the pointer before its slot was cleared may still be using it. */
	synchronize_rcu();
	obj->destroy(obj);
}

/* The last references dropped inside read sections, for obj_put_flush(). */
static __thread struct bpf_object *deferred;

void obj_put_deferred(struct bpf_object *obj)
{
	u32 c = __atomic_load_n(&obj->refcnt, __ATOMIC_RELAXED);

	/* not the last one: drop it now (no destruction can follow) */
	while (c > 1)
		if (__atomic_compare_exchange_n(&obj->refcnt, &c, c - 1, true, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return;
	obj->defer_next = deferred;
	deferred = obj;
}

void obj_put_flush(void)
{
	while (deferred) {
		struct bpf_object *obj = deferred;

		deferred = obj->defer_next;
		obj_put(obj);
	}
}

/* Whether the file st describes is obj's memfd (or its alias). */
static bool is_obj_file(const struct bpf_object *obj, const struct stat *st)
{
	return (obj->ino == st->st_ino && obj->dev == st->st_dev) ||
	       (obj->alias_ino && obj->alias_ino == st->st_ino && obj->alias_dev == st->st_dev);
}

/* fstat() of a number another thread may be closing, by design (a bpf() call racing a close):
 * ThreadSanitizer's model of fds would report the probe as a race, so under it the probe goes
 * around its interceptor. */
static int probe_fstat(int fd, struct stat *st)
{
#if defined(__SANITIZE_THREAD__) && defined(__x86_64__)
	return (int)syscall(SYS_fstat, fd, st);
#else
	return fstat(fd, st);
#endif
}

/* The object whose memfd fd is, with a reference: 0, -EBADF (fd not open) or -EINVAL (not
 * ours); *fl gets the file's status flags. */
static int obj_identify(int fd, struct bpf_object **objp, int *fl)
{
	struct bpf_object *obj;
	struct stat st;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0 || probe_fstat(fd, &st) < 0 ||
	    (*fl = fcntl(fd, F_GETFL)) < 0)
		return -EBADF;
	pthread_mutex_lock(&registry_lock);
	for (obj = registry_head; obj; obj = obj->reg_next)
		if (is_obj_file(obj, &st) && obj_tryget(obj))
			break;
	pthread_mutex_unlock(&registry_lock);
	*objp = obj;
	return obj ? 0 : -EINVAL;
}

/* Slow path: fd's slot is empty.  Tell EBADF from EINVAL as the kernel does, and adopt fds
 * that share one of our memfds (made by dup(), fcntl(F_DUPFD) or inherited over fork()).
 *
 * The slot holds the adopter's mark while it identifies the file: a close of the number
 * meanwhile replaces the mark, so the fill fails and the caller looks again, instead of
 * filing the object under a number that has become another file.  Returns 0 when the caller
 * should read the slot again.  Runs outside any read section: it may drop the last reference
 * of an object. */
static int obj_adopt(int fd)
{
	struct bpf_object **slot, *obj, *expect = NULL, *mark;
	int err, fl;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0) /* (no chunk for a number that is not open) */
		return -EBADF;
	slot = fd_slot(fd, true);
	mark = (struct bpf_object *)((uintptr_t)&expect | 1); /* unique while we run */
	if (slot && !__atomic_compare_exchange_n(slot, &expect, mark, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
		/* filled, closing, or another thread's adoption in flight: the slot decides */
		if (!slot_is_obj(expect) && expect != SLOT_CLOSING)
			sched_yield();
		return 0;
	}
	err = obj_identify(fd, &obj, &fl);
	if (!err && !slot) {
		obj_put(obj);
		err = -ENOMEM;
	}
	if (err) {
		expect = mark;
		if (slot)
			__atomic_compare_exchange_n(slot, &expect, NULL, false, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
		return err;
	}
	__atomic_add_fetch(&obj->ucnt, 1, __ATOMIC_RELAXED); /* the reference becomes a slot's */
	/* a dup shares its file, and so the mode that holds the fd's access */
	fd_set_access(fd, access_of_mode(fl));
	expect = mark;
	if (!__atomic_compare_exchange_n(slot, &expect, obj, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		obj_slot_put(obj); /* closed (or a new file published) meanwhile: look again */
	return 0;
}

void slot_drop_stale(int fd)
{
	struct bpf_object **slot = fd_slot_peek(fd), *v, *expect;
	bool stale = true;
	struct stat st;

	if (!slot)
		return;
	rcu_read_lock();
	v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!v || v == SLOT_CLOSING || (slot_is_obj(v) && !obj_tryget(v))) {
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	expect = v;
	if (!slot_is_obj(v)) { /* an adoption in flight: make it look again */
		__atomic_compare_exchange_n(slot, &expect, NULL, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
		return;
	}
	if (probe_fstat(fd, &st) == 0) {
		pthread_mutex_lock(&registry_lock); /* (the alias is set under it) */
		stale = !is_obj_file(v, &st);
		pthread_mutex_unlock(&registry_lock);
	}
	if (stale && __atomic_compare_exchange_n(slot, &expect, NULL, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
		obj_slot_put(v);
	obj_put(v);
}

struct bpf_object *obj_from_fd(int fd, enum obj_kind kind, int *err)
{
	struct bpf_object *obj;
	unsigned idx = (unsigned)fd / FD_CHUNK;
	int ret;

	for (;;) {
		obj = NULL;
		if (likely(fd >= 0 && idx < FD_CHUNKS)) {
			struct bpf_object **chunk = __atomic_load_n(&fd_chunks[idx],
								    __ATOMIC_ACQUIRE);

			if (likely(chunk))
				obj = __atomic_load_n(&chunk[(unsigned)fd % FD_CHUNK],
						      __ATOMIC_ACQUIRE);
		}
		if (likely(slot_is_obj(obj)))
			break;
		if (obj == SLOT_CLOSING) {
			*err = -EBADF;
			return NULL;
		}
		rcu_read_unlock();
		ret = obj_adopt(fd);
		rcu_read_lock();
		if (ret < 0) {
			*err = ret;
			return NULL;
		}
	}
	if (unlikely(obj->kind != kind)) {
		*err = -EINVAL;
		return NULL;
	}
	return obj;
}

struct bpf_object *obj_get_by_id(enum obj_kind kind, u32 id)
{
	struct bpf_object *obj;

	pthread_mutex_lock(&registry_lock);
	for (obj = registry_head; obj; obj = obj->reg_next)
		if (obj->kind == kind && obj->id == id && obj_tryget(obj))
			break;
	pthread_mutex_unlock(&registry_lock);
	return obj;
}

u32 obj_next_id(enum obj_kind kind, u32 start)
{
	u32 next = 0;

	pthread_mutex_lock(&registry_lock);
	for (struct bpf_object *obj = registry_head; obj; obj = obj->reg_next)
		if (obj->kind == kind && obj->id > start && (!next || obj->id < next) &&
		    __atomic_load_n(&obj->refcnt, __ATOMIC_RELAXED))
			next = obj->id;
	pthread_mutex_unlock(&registry_lock);
	return next;
}

/* An fd of ours that holds obj, or -1.  (It may be closed by the time the caller uses it.) */
static int find_fd(const struct bpf_object *obj)
{
	for (unsigned c = 0; c < FD_CHUNKS; c++) {
		struct bpf_object **chunk = __atomic_load_n(&fd_chunks[c], __ATOMIC_ACQUIRE);

		for (unsigned i = 0; chunk && i < FD_CHUNK; i++)
			if (__atomic_load_n(&chunk[i], __ATOMIC_RELAXED) == obj)
				return (int)(c * FD_CHUNK + i);
	}
	return -1;
}

/* Whether fd is a file of obj's memfd. */
static bool fd_is_obj(int fd, const struct bpf_object *obj)
{
	struct stat st;
	bool is;

	if (probe_fstat(fd, &st))
		return false;
	pthread_mutex_lock(&registry_lock); /* (the alias may be changing) */
	is = is_obj_file(obj, &st);
	pthread_mutex_unlock(&registry_lock);
	return is;
}

/* The name of a fresh memfd for an object of kind, as its creator names the first. */
static const char *memfd_name(enum obj_kind kind)
{
	switch (kind) {
	case OBJ_MAP:
		return "bpf-map";
	case OBJ_PROG:
		return "bpf-prog";
	case OBJ_BTF:
		return "bpf-btf";
	case OBJ_STATS:
		return "bpf-stats";
	case OBJ_LINK:
		return "bpf-link";
	case OBJ_PERF_EVENT:
		break;
	}
	return "perf_event";
}

int obj_new_fd(struct bpf_object *obj, int access)
{
	struct bpf_object **slot;
	int fd = -1, src = find_fd(obj), err;
	struct stat st;

	/* A new open file of the same memfd: mmap() and adoption see the same object. */
	if (src >= 0) {
		fd = obj_reopen(src, access);
		/* src closed meanwhile (and maybe its number reused): as if there were none */
		if (fd >= 0 && !fd_is_obj(fd, obj)) {
			sys_close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		/* No fd left: a fresh memfd becomes the object's file, unless its pages are the
		 * object's data. */
		if (obj->memfd_data)
			return -EOPNOTSUPP;
		fd = obj_memfd_create(memfd_name(obj->kind));
		if (fd < 0)
			return fd;
		err = obj_memfd_set_access(fd, access);
		if (!err && fstat(fd, &st) < 0)
			err = -errno;
		if (err) {
			sys_close(fd);
			return err;
		}
		/* (an fd of the first file the table missed, a raw dup, stays the object's) */
		pthread_mutex_lock(&registry_lock);
		obj->alias_dev = st.st_dev;
		obj->alias_ino = st.st_ino;
		pthread_mutex_unlock(&registry_lock);
	}
	slot = fd_slot(fd, true);
	if (!slot) {
		sys_close(fd);
		return -ENOMEM;
	}
	obj_slot_get(obj);
	fd_set_access(fd, access);
	slot_publish(slot, obj);
	return fd;
}
