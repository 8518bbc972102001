/* BPF output perf events: what bpf_perf_event_output() writes to through a perf event array.
 *
 * userbpf_perf_event_open() takes perf_event_open(2)'s arguments and makes the one kind of event
 * a BPF program can write to, a software PERF_COUNT_SW_BPF_OUTPUT event, as an object behind a
 * real fd (a memfd, as maps are).  It is per CPU (pid -1, cpu N: active while a program runs on
 * CPU N), per thread (pid 0 or a thread of this process, cpu -1), or both, and enabled unless
 * attr.disabled; PERF_EVENT_IOC_ENABLE, _DISABLE and _ID work on it through userbpf's ioctl().
 *
 * Ring: mapping the fd as the kernel's perf fd is mapped (MAP_SHARED, offset 0, a metadata page
 * then 2^n data pages) makes the ring in the memfd, so a reader written for the kernel's layout
 * (struct perf_event_mmap_page's data_head and data_tail, records behind struct
 * perf_event_header) reads it unchanged.  As in the kernel, a mapping without PROT_WRITE makes
 * the ring overwrite old records instead of respecting data_tail, and a second mapping must ask
 * the first one's size.  The kernel frees its ring at the last munmap(), which userbpf does not
 * see: here the first size stays.
 *
 * Records are the kernel's, byte for byte (the differential test compares them): a
 * PERF_RECORD_SAMPLE, misc PERF_RECORD_MISC_KERNEL, whose PERF_SAMPLE_RAW part is a u32 size and
 * the bytes padded to 8 (the size counts the padding, which the kernel leaves as the ring had
 * it: zeros in a new ring, older records' bytes once it wrapped).  A record that finds no room is lost
 * (-ENOSPC) and counted; the next one that fits is preceded by a PERF_RECORD_LOST with the
 * event's id and the count.
 *
 * Not supported (EOPNOTSUPP): other event types, sample fields other than PERF_SAMPLE_RAW,
 * enable_on_exec, groups, events of other processes or of cgroups; a ring without data pages
 * (EINVAL).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <userbpf.h>

#include "fd.h"
#include "map/map.h"
#include "perf_event.h"

#define PERF_RECORD_LOST_SIZE 24 /* header, id, count */

struct perf_event_obj {
	struct bpf_object obj;
	u64 id;			/* PERF_EVENT_IOC_ID; in PERF_RECORD_LOST */
	int cpu;		/* -1: any */
	pid_t tid;		/* 0: any thread */
	bool inherit;
	bool raw;		/* sample_type has PERF_SAMPLE_RAW */
	bool enabled;		/* atomic: ioctl() flips it */
	pthread_mutex_t map_lock; /* the first mapping */
	spinlock_t lock;	/* writers */
	u8 *base;		/* metadata page then data, once mapped (published with release) */
	size_t base_len;
	u64 data_size;		/* power of two */
	bool overwrite;
	u64 head;		/* writers' position; data_head is its published copy */
	u64 lost;		/* records lost since the last PERF_RECORD_LOST */
};

static u64 next_event_id;

static inline struct perf_event_obj *ev_of(struct bpf_object *obj)
{
	return container_of(obj, struct perf_event_obj, obj);
}

static inline struct perf_event_mmap_page *user_page(struct perf_event_obj *ev)
{
	return (struct perf_event_mmap_page *)ev->base;
}

static void ev_destroy(struct bpf_object *obj)
{
	struct perf_event_obj *ev = ev_of(obj);

	if (ev->base)
		munmap(ev->base, ev->base_len);
	pthread_mutex_destroy(&ev->map_lock);
	free(ev);
}

/* The kernel's perf_mmap() rules: shared, at offset 0, 1 + 2^n pages (n > 0 here), and the
 * first mapping's size if there was one. */
static int ev_mmap_check(struct bpf_object *obj, int access, u64 len, int prot, int flags,
			 u64 off)
{
	struct perf_event_obj *ev = ev_of(obj);
	u64 page = (u64)sysconf(_SC_PAGESIZE), data;

	len = round_up(len, page); /* (what the mapping will cover) */
	if (!(flags & MAP_SHARED) || off || len < 2 * page)
		return -EINVAL;
	data = len - page;
	if (data & (data - 1))
		return -EINVAL;
	if (__atomic_load_n(&ev->base, __ATOMIC_ACQUIRE) && data != ev->data_size)
		return -EINVAL;
	return 0;
}

/* The first mapping makes the ring: the memfd's size, the writers' own mapping, the metadata
 * page's fields. */
static void *ev_mmap_map(struct bpf_object *obj, void *addr, size_t len, int prot, int flags,
			 int fd, u64 off)
{
	struct perf_event_obj *ev = ev_of(obj);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = 0;

	len = round_up(len, page);
	pthread_mutex_lock(&ev->map_lock);
	if (ev->base) {
		if (len - page != ev->data_size)
			err = EINVAL; /* a racing first mapping of another size */
	} else if (ftruncate(fd, (off_t)len) < 0) {
		err = errno;
	} else {
		u8 *base = sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (base == MAP_FAILED) {
			err = errno;
		} else {
			struct perf_event_mmap_page *up = (struct perf_event_mmap_page *)base;

			ev->base_len = len;
			ev->data_size = len - page;
			ev->overwrite = !(prot & PROT_WRITE);
			up->data_offset = page;
			up->data_size = ev->data_size;
			__atomic_store_n(&ev->base, base, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&ev->map_lock);
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	return sys_mmap(addr, len, prot, flags, fd, off);
}

struct bpf_object *perf_event_get(int fd, int *err)
{
	struct bpf_object *obj = obj_from_fd(fd, OBJ_PERF_EVENT, err);

	if (!obj) {
		*err = -EBADF; /* a map's fd too: it is no perf file */
		return NULL;
	}
	if (ev_of(obj)->inherit) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	if (!obj_tryget(obj)) {
		*err = -EBADF; /* closed meanwhile */
		return NULL;
	}
	return obj;
}

/* Copies n bytes into the ring at position pos (which wraps). */
static void ring_put(struct perf_event_obj *ev, u64 pos, const void *src, u64 n)
{
	u8 *data = ev->base + user_page(ev)->data_offset;
	u64 at = pos & (ev->data_size - 1), first = ev->data_size - at < n ? ev->data_size - at : n;

	if (!n)
		return; /* (src may be NULL then) */
	memcpy(data + at, src, first);
	memcpy(data, (const u8 *)src + first, n - first);
}

int perf_event_output(struct bpf_object *obj, u32 cpu, const void *meta, u32 meta_size,
		      const void *extra, u32 extra_size)
{
	struct perf_event_obj *ev = ev_of(obj);
	u64 raw = ev->raw ? round_up((u64)meta_size + extra_size + 4, 8) : 0;
	u64 size = sizeof(struct perf_event_header) + raw, need, head;
	struct perf_event_header hdr = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, (u16)size };
	u32 raw_size = (u32)(raw - 4);

	if (!__atomic_load_n(&ev->enabled, __ATOMIC_RELAXED) ||
	    (ev->cpu >= 0 && (u32)ev->cpu != cpu) || (ev->tid && ev->tid != gettid()))
		return -EOPNOTSUPP;
	if (!__atomic_load_n(&ev->base, __ATOMIC_ACQUIRE))
		return -ENOSPC;
	if (size > UINT16_MAX)
		return -E2BIG; /* (the kernel's u16 header size would wrap) */
	spin_lock(&ev->lock);
	head = ev->head;
	need = size + (ev->lost ? PERF_RECORD_LOST_SIZE : 0);
	if (!ev->overwrite) {
		u64 tail = __atomic_load_n(&user_page(ev)->data_tail, __ATOMIC_ACQUIRE);

		/* the kernel's CIRC_SPACE(): a full ring keeps one byte free */
		if (((tail - head - 1) & (ev->data_size - 1)) < need) {
			ev->lost++;
			spin_unlock(&ev->lock);
			return -ENOSPC;
		}
	}
	if (ev->lost) {
		struct {
			struct perf_event_header hdr;
			u64 id, lost;
		} rec = { { PERF_RECORD_LOST, 0, PERF_RECORD_LOST_SIZE }, ev->id, ev->lost };

		ring_put(ev, head, &rec, sizeof(rec));
		head += sizeof(rec);
		ev->lost = 0;
	}
	ring_put(ev, head, &hdr, sizeof(hdr));
	head += sizeof(hdr);
	if (raw) {
		ring_put(ev, head, &raw_size, 4);
		ring_put(ev, head + 4, meta, meta_size);
		ring_put(ev, head + 4 + meta_size, extra, extra_size);
		head += raw; /* the padding keeps what the ring held there, as the kernel skips it */
	}
	ev->head = head;
	__atomic_store_n(&user_page(ev)->data_head, head, __ATOMIC_RELEASE);
	spin_unlock(&ev->lock);
	return 0;
}

/* perf_event_open(2)'s attr rules: size 0 is the first version's 64 bytes, less than that is
 * E2BIG (the expected size written back), more must end in zeros. */
static int copy_attr(struct perf_event_attr *dst, struct perf_event_attr *uattr)
{
	u32 size = uattr->size ? uattr->size : PERF_ATTR_SIZE_VER0;

	memset(dst, 0, sizeof(*dst));
	if (size < PERF_ATTR_SIZE_VER0) {
		uattr->size = sizeof(*dst);
		return -E2BIG;
	}
	for (u32 i = sizeof(*dst); i < size; i++)
		if (((const u8 *)uattr)[i]) {
			uattr->size = sizeof(*dst);
			return -E2BIG;
		}
	memcpy(dst, uattr, size < sizeof(*dst) ? size : sizeof(*dst));
	return 0;
}

/* Whether tid is a thread of this process. */
static bool own_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0 || tid == gettid();
}

static int event_open(struct perf_event_attr *uattr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags)
{
	struct perf_event_attr attr;
	struct perf_event_obj *ev;
	int err, fd;

	if (!uattr)
		return -EFAULT;
	if (flags & ~(unsigned long)(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT |
				     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC))
		return -EINVAL;
	err = copy_attr(&attr, uattr);
	if (err)
		return err;
	if ((pid == -1 && cpu == -1) || pid < -1 || cpu < -1 ||
	    (cpu >= 0 && (u32)cpu >= map_possible_cpus()))
		return -EINVAL;
	if (attr.type != PERF_TYPE_SOFTWARE || attr.config != PERF_COUNT_SW_BPF_OUTPUT ||
	    (attr.sample_type & ~(u64)PERF_SAMPLE_RAW) || attr.enable_on_exec || group_fd != -1 ||
	    (flags & PERF_FLAG_PID_CGROUP) || (pid > 0 && !own_thread(pid)))
		return -EOPNOTSUPP;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->obj.kind = OBJ_PERF_EVENT;
	ev->obj.access = OBJ_CAN_READ | OBJ_CAN_WRITE;
	ev->obj.memfd_data = true; /* the ring */
	ev->obj.destroy = ev_destroy;
	ev->obj.mmap_check = ev_mmap_check;
	ev->obj.mmap_map = ev_mmap_map;
	ev->id = __atomic_add_fetch(&next_event_id, 1, __ATOMIC_RELAXED);
	ev->cpu = cpu;
	ev->tid = pid == 0 ? gettid() : pid > 0 ? pid : 0;
	ev->inherit = attr.inherit;
	ev->raw = attr.sample_type & PERF_SAMPLE_RAW;
	ev->enabled = !attr.disabled;
	pthread_mutex_init(&ev->map_lock, NULL);
	fd = obj_memfd_create("perf_event");
	if (fd < 0) {
		ev_destroy(&ev->obj);
		return fd;
	}
	/* (the memfd is close-on-exec; the kernel's fd is only with the flag) */
	if (!(flags & PERF_FLAG_FD_CLOEXEC) && fcntl(fd, F_SETFD, 0) < 0) {
		err = -errno;
		sys_close(fd);
		ev_destroy(&ev->obj);
		return err;
	}
	fd = obj_install(&ev->obj, fd);
	if (fd < 0)
		ev_destroy(&ev->obj);
	return fd;
}

USERBPF_API int userbpf_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
					int group_fd, unsigned long flags)
{
	int ret = event_open(attr, pid, cpu, group_fd, flags);

	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* PERF_EVENT_IOC_ENABLE, _DISABLE, _ID; -ENOTTY for anything else, as a memfd says. */
int perf_event_ioctl(struct bpf_object *obj, unsigned long req, void *arg)
{
	struct perf_event_obj *ev = ev_of(obj);

	switch (req) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
		__atomic_store_n(&ev->enabled, req == PERF_EVENT_IOC_ENABLE, __ATOMIC_RELAXED);
		return 0;
	case PERF_EVENT_IOC_ID:
		if (!arg)
			return -EFAULT;
		memcpy(arg, &ev->id, sizeof(ev->id));
		return 0;
	default:
		return -ENOTTY;
	}
}
