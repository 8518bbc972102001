/* The fd -> object table, the registry of live objects, and reference counting (see fd.h).
 *
 * Table: FD_CHUNKS chunks of FD_CHUNK slots, allocated on first use and never freed, so readers
 * can index it with plain atomic loads.  A slot is NULL (not ours, or not yet adopted), an object
 * pointer, or SLOT_CLOSING while a wrapper is closing that number: adoption never fills a closing
 * slot, so a racing bpf() cannot resurrect an fd that is being closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
	return (int)syscall(SYS_close, fd);
}

struct bpf_object **fd_slot(int fd, bool create)
{
	struct bpf_object **chunk;
	unsigned idx = (unsigned)fd / FD_CHUNK;

	if (fd < 0 || idx >= FD_CHUNKS)
		return NULL;
	chunk = __atomic_load_n(&fd_chunks[idx], __ATOMIC_ACQUIRE);
	if (!chunk && create) {
		struct bpf_object **fresh = calloc(FD_CHUNK, sizeof(*fresh));

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

int obj_install(struct bpf_object *obj, int memfd)
{
	struct bpf_object **slot, *expect = NULL;
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
	registry_add(obj);
	/* A fresh fd number: any stale slot was cleared when the old fd was closed.  If the number
	 * was closed behind our back (raw syscall), replace the stale entry and drop its reference. */
	if (!__atomic_compare_exchange_n(slot, &expect, obj, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED)) {
		struct bpf_object *stale = __atomic_exchange_n(slot, obj, __ATOMIC_ACQ_REL);

		if (stale && stale != SLOT_CLOSING)
			obj_slot_put(stale);
	}
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

/* Takes a reference unless the object is already on its way out. */
static bool obj_tryget(struct bpf_object *obj)
{
	u32 c = __atomic_load_n(&obj->refcnt, __ATOMIC_RELAXED);

	while (c)
		if (__atomic_compare_exchange_n(&obj->refcnt, &c, c + 1, true, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
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

/* Slow path: fd is not in the table.  Tell EBADF from EINVAL as the kernel does, and adopt fds
 * that share one of our memfds (made by dup(), fcntl(F_DUPFD) or inherited over fork()).  Runs
 * outside any read section: it may drop the last reference of an object. */
static int obj_adopt(int fd)
{
	struct bpf_object **slot, *obj, *expect = NULL;
	struct stat st;

	if (fd < 0 || fcntl(fd, F_GETFD) < 0 || fstat(fd, &st) < 0)
		return -EBADF;
	pthread_mutex_lock(&registry_lock);
	for (obj = registry_head; obj; obj = obj->reg_next)
		if (obj->ino == st.st_ino && obj->dev == st.st_dev && obj_tryget(obj))
			break;
	pthread_mutex_unlock(&registry_lock);
	if (!obj)
		return -EINVAL;
	slot = fd_slot(fd, true);
	if (!slot) {
		obj_put(obj);
		return -ENOMEM;
	}
	__atomic_add_fetch(&obj->ucnt, 1, __ATOMIC_RELAXED); /* the reference becomes a slot's */
	if (!__atomic_compare_exchange_n(slot, &expect, obj, false, __ATOMIC_RELEASE,
					 __ATOMIC_ACQUIRE)) {
		/* Adopted by another thread meanwhile, or being closed: the slot decides. */
		obj_slot_put(obj);
		if (expect == SLOT_CLOSING)
			return -EBADF;
	}
	return 0;
}

struct bpf_object *obj_from_fd(int fd, enum obj_kind kind, int *err)
{
	struct bpf_object *obj = NULL;
	unsigned idx = (unsigned)fd / FD_CHUNK;

	if (likely(fd >= 0 && idx < FD_CHUNKS)) {
		struct bpf_object **chunk = __atomic_load_n(&fd_chunks[idx], __ATOMIC_ACQUIRE);

		if (likely(chunk))
			obj = __atomic_load_n(&chunk[(unsigned)fd % FD_CHUNK], __ATOMIC_ACQUIRE);
	}
	if (unlikely(obj == SLOT_CLOSING)) {
		*err = -EBADF;
		return NULL;
	}
	if (unlikely(!obj)) {
		int ret;

		rcu_read_unlock();
		ret = obj_adopt(fd);
		rcu_read_lock();
		if (ret < 0) {
			*err = ret;
			return NULL;
		}
		return obj_from_fd(fd, kind, err); /* the slot is filled now (or closing) */
	}
	if (unlikely(obj->kind != kind)) {
		*err = -EINVAL;
		return NULL;
	}
	return obj;
}
