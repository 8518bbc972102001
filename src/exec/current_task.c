/* current_task.c — what bpf_get_current_task() returns: the address of a struct task_struct for
 * the calling thread, laid out as the running kernel's BTF says, so that a program reading it
 * with bpf_probe_read_kernel() (at CO-RE offsets, as BPF_CORE_READ() does) finds this thread.
 *
 * Filled: pid (the thread id) and tgid, comm, group_leader (itself for the main thread), the
 * parent chain (real_parent and parent: each ancestor process's pid, tgid, comm and credentials
 * from /proc, up to init, whose parent is the idle task "swapper/0", its own parent), the
 * credentials (real_cred and cred: uid, gid, suid, sgid, euid, egid, fsuid, fsgid) and mm
 * (non-NULL: user threads have one; its bytes are zero), cgroups (a css_set whose dfl_cgrp is
 * the task's cgroup v2 cgroup: current_cgroup.c; the calling thread's looked at again each time
 * its task is), cpus_ptr (at its own cpus_mask: the thread's CPU affinity, the calling
 * thread's looked at again each time its task is) and nr_cpus_allowed.  Every other byte reads 0.
 *
 * The calling thread's task is rebuilt when its ids or comm changed (a fork, prctl()), its
 * ancestors when its parent did.  Ancestors are kept for the process's life; a thread's own
 * task is freed when the thread exits (its block is reused: a program that kept its address
 * reads stale or another task's bytes, as for a task that exited in the kernel).
 *
 * Other tasks, by id (bpf_task_from_pid()): any process's or thread's, from /proc, with its
 * parent chain and group leader; kept for the process's life like ancestors, and made anew when
 * /proc shows the id belongs to another task since (another parent or name).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "exec/current_cgroup.h"
#include "exec/current_task.h"

/* Byte offsets in the kernel's structs (-1: the kernel has no such member). */
static struct {
	bool ok;
	u32 task_size, cred_size, mm_size;
	long pid, tgid, comm, real_parent, parent, group_leader, real_cred, cred, mm, cgroups;
	long cpus_ptr, cpus_mask, nr_cpus_allowed;
	u32 cpumask_size;
	long ids[8]; /* struct cred's uid, gid, suid, sgid, euid, egid, fsuid, fsgid */
} L;

static const char *const cred_ids[8] = { "uid", "gid", "suid", "sgid",
					  "euid", "egid", "fsuid", "fsgid" };

static u32 struct_size(const struct btf *btf, const char *name)
{
	u32 id = btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id ? btf_type_by_id(btf, id) : NULL;

	return t ? t->size : 0;
}

static void layout_init(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 task, cred;

	if (!btf)
		return;
	task = btf_find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	cred = btf_find_by_name_kind(btf, "cred", BTF_KIND_STRUCT);
	if (!task || !cred)
		return;
	L.task_size = struct_size(btf, "task_struct");
	L.cred_size = struct_size(btf, "cred");
	L.mm_size = struct_size(btf, "mm_struct");
	L.pid = btf_member_offset(btf, task, "pid");
	L.tgid = btf_member_offset(btf, task, "tgid");
	L.comm = btf_member_offset(btf, task, "comm");
	L.real_parent = btf_member_offset(btf, task, "real_parent");
	L.parent = btf_member_offset(btf, task, "parent");
	L.group_leader = btf_member_offset(btf, task, "group_leader");
	L.real_cred = btf_member_offset(btf, task, "real_cred");
	L.cred = btf_member_offset(btf, task, "cred");
	L.mm = btf_member_offset(btf, task, "mm");
	L.cgroups = btf_member_offset(btf, task, "cgroups");
	L.cpus_ptr = btf_member_offset(btf, task, "cpus_ptr");
	L.cpus_mask = btf_member_offset(btf, task, "cpus_mask");
	L.nr_cpus_allowed = btf_member_offset(btf, task, "nr_cpus_allowed");
	L.cpumask_size = struct_size(btf, "cpumask");
	for (int i = 0; i < 8; i++)
		L.ids[i] = btf_member_offset(btf, cred, cred_ids[i]);
	/* (what a task needs to be one: the ids, the name, the links; the rest may be missing) */
	L.ok = L.task_size && L.cred_size && L.mm_size && L.pid >= 0 && L.tgid >= 0 &&
	       L.comm >= 0 && L.real_parent >= 0 && L.group_leader >= 0;
}

/* A task_struct with its cred and mm, as one allocation. */
struct fake_task {
	struct fake_task *next; /* (the ancestors' list) */
	int pid, tgid, ppid;
	char comm[16];
	u8 *task, *cred, *mm;
};

static void put_u32(u8 *base, long off, u32 v)
{
	if (base && off >= 0)
		memcpy(base + off, &v, sizeof(v));
}

static void put_ptr(u8 *base, long off, const void *p)
{
	u64 v = (uintptr_t)p; /* (a kernel pointer is 64 bits; an i386 build writes the low half) */

	if (base && off >= 0)
		memcpy(base + off, &v, sizeof(void *));
}

/* Every task lives in one mapping, reserved on first use and never unmapped (a freed block goes
 * to a free list and is reused): any address in it can be read at any time, so a probe load
 * that falls inside reads in place (probe_load(), and the JIT's inline check), as the kernel's
 * probe load of a kernel address does.  A stale pointer reads a reused block, as a stale kernel
 * pointer reads freed memory.  Beyond the arena's room, tasks are malloc'ed (and read through
 * the slow path). */
#define ARENA_SIZE ((size_t)32 << 20)

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static u8 *arena;
static size_t arena_used;
static struct fake_task *arena_free;

/* The arena is aligned to its size, and TASK_ARENA_TAIL bytes past it stay mapped (zero, never
 * handed out): then an address is in it when its bits above the size are the arena's, and a
 * load of up to 8 bytes starting in it never faults; the JIT's inline check is one shift and
 * compare, and one check covers loads from the same pointer that far apart. */
static void arena_init(void)
{
	size_t room = 2 * ARENA_SIZE, keep = ARENA_SIZE + TASK_ARENA_TAIL;
	u8 *p = mmap(NULL, room, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), *a;

	if (p == MAP_FAILED)
		return;
	a = (u8 *)(((uintptr_t)p + ARENA_SIZE - 1) & ~(uintptr_t)(ARENA_SIZE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + room > a + keep)
		munmap(a + keep, (size_t)(p + room - (a + keep)));
	arena = a;
}

bool current_task_arena(uintptr_t *lo, size_t *size)
{
	pthread_once(&arena_once, arena_init);
	*lo = (uintptr_t)arena;
	*size = arena ? ARENA_SIZE : 0;
	return arena != NULL;
}

static bool in_arena(const void *p)
{
	return arena && (const u8 *)p >= arena && (const u8 *)p < arena + ARENA_SIZE;
}

void *task_arena_alloc(size_t size)
{
	void *p = NULL;

	size = (size + 63) & ~(size_t)63;
	pthread_once(&arena_once, arena_init);
	pthread_mutex_lock(&arena_lock);
	if (arena && ARENA_SIZE - arena_used >= size) {
		p = arena + arena_used;
		arena_used += size;
	}
	pthread_mutex_unlock(&arena_lock);
	return p ? p : calloc(1, size); /* (the arena's bytes are zero: never used before) */
}

static size_t block_size(void)
{
	size_t size = sizeof(struct fake_task) + L.task_size + L.cred_size + L.mm_size;

	return (size + 63) & ~(size_t)63;
}

static struct fake_task *fake_alloc(void)
{
	struct fake_task *f = NULL;

	pthread_once(&arena_once, arena_init);
	pthread_mutex_lock(&arena_lock);
	if (arena_free) {
		f = arena_free;
		arena_free = f->next;
	} else if (arena && ARENA_SIZE - arena_used >= block_size()) {
		f = (struct fake_task *)(arena + arena_used);
		arena_used += block_size();
	}
	pthread_mutex_unlock(&arena_lock);
	if (f)
		memset(f, 0, block_size());
	return f ? f : calloc(1, block_size());
}

static void fake_free(struct fake_task *f)
{
	if (!in_arena(f)) {
		free(f);
		return;
	}
	pthread_mutex_lock(&arena_lock);
	f->next = arena_free;
	arena_free = f;
	pthread_mutex_unlock(&arena_lock);
}

/* cpus_ptr at the task's own cpus_mask, the CPUs the thread may run on (sched_getaffinity(),
 * at the task's making, and for the calling thread each time its task is looked at; the idle
 * task's CPU 0; none if that fails, but the pointer is there: a program passes it to the
 * cpumask kfuncs unchecked, as the kernel's never NULL), and their count, nr_cpus_allowed.
 * Byte by byte, only where one changed: another thread's program may be reading the mask. */
static void set_affinity(struct fake_task *f, int pid)
{
	cpu_set_t set;
	u32 n = 0;

	if (L.cpus_ptr < 0 || L.cpus_mask < 0 || !L.cpumask_size)
		return;
	CPU_ZERO(&set);
	if (!pid)
		CPU_SET(0, &set);
	else if (sched_getaffinity(pid, sizeof(set), &set))
		CPU_ZERO(&set);
	for (u32 byte = 0; byte < L.cpumask_size; byte++) {
		u8 bits = 0, *at = &f->task[L.cpus_mask + byte];

		for (u32 cpu = byte * 8; cpu < byte * 8 + 8 && cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set)) {
				bits |= (u8)(1u << (cpu % 8));
				n++;
			}
		if (__atomic_load_n(at, __ATOMIC_RELAXED) != bits)
			__atomic_store_n(at, bits, __ATOMIC_RELAXED);
	}
	put_ptr(f->task, L.cpus_ptr, f->task + L.cpus_mask);
	put_u32(f->task, L.nr_cpus_allowed, n);
}

static struct fake_task *fake_new(int pid, int tgid, const char *comm, const u32 ids[8])
{
	struct fake_task *f = fake_alloc();

	if (!f)
		return NULL;
	f->task = (u8 *)(f + 1);
	f->cred = f->task + L.task_size;
	f->mm = f->cred + L.cred_size;
	f->pid = pid;
	f->tgid = tgid;
	snprintf(f->comm, sizeof(f->comm), "%s", comm);
	put_u32(f->task, L.pid, (u32)pid);
	put_u32(f->task, L.tgid, (u32)tgid);
	memcpy(f->task + L.comm, f->comm, sizeof(f->comm));
	put_ptr(f->task, L.real_cred, f->cred);
	put_ptr(f->task, L.cred, f->cred);
	put_ptr(f->task, L.group_leader, f->task);
	if (pid) /* (the idle task has no mm) */
		put_ptr(f->task, L.mm, f->mm);
	for (int i = 0; i < 8; i++)
		put_u32(f->cred, L.ids[i], ids[i]);
	set_affinity(f, pid);
	return f;
}

static void set_parent(struct fake_task *f, const struct fake_task *parent)
{
	put_ptr(f->task, L.real_parent, parent->task);
	put_ptr(f->task, L.parent, parent->task);
}

/* A process's parent and comm from /proc (path: its directory); false if it is gone. */
static bool proc_stat(const char *path, int *ppid, char comm[16])
{
	char file[64], line[512], *p;
	FILE *fp;
	bool ok = false;

	snprintf(file, sizeof(file), "%s/stat", path);
	fp = fopen(file, "r");
	if (!fp)
		return false;
	/* "pid (comm) state ppid ...": the comm may hold spaces and parentheses */
	if (fgets(line, sizeof(line), fp) && (p = strrchr(line, ')')) &&
	    sscanf(p + 1, " %*c %d", ppid) == 1) {
		char *open = strchr(line, '(');
		size_t n = open && p > open ? (size_t)(p - open - 1) : 0;

		memset(comm, 0, 16);
		memcpy(comm, open + 1, n < 15 ? n : 15);
		ok = true;
	}
	fclose(fp);
	return ok;
}

/* A task's credentials from /proc (path: its directory), in cred_ids' order; false if it is
 * gone. */
static bool proc_ids(const char *path, u32 ids[8])
{
	char file[64], line[512];
	FILE *fp;

	snprintf(file, sizeof(file), "%s/status", path);
	fp = fopen(file, "r");
	memset(ids, 0, 8 * sizeof(ids[0]));
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		u32 *v = !strncmp(line, "Uid:", 4) ? ids : !strncmp(line, "Gid:", 4) ? ids + 1 : NULL;

		/* (uid, euid, suid, fsuid in the file) */
		if (v)
			sscanf(line + 4, "%u %u %u %u", &v[0], &v[4], &v[2], &v[6]);
	}
	fclose(fp);
	return true;
}

/* Ancestors and group leaders, by pid, for the process's life (a parent's new task replaces
 * nothing: a program may still hold the old one's address). */
static pthread_mutex_t procs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_task *procs;

static void procs_push(struct fake_task *f)
{
	f->next = procs;
	/* (published whole: current_task_holds() walks the list without the lock) */
	__atomic_store_n(&procs, f, __ATOMIC_RELEASE);
}

/* The task of process pid (with its ancestors), made on first use; NULL if it cannot be. */
static struct fake_task *proc_task(int pid)
{
	static const u32 root[8];
	struct fake_task *f;
	char path[32], comm[16];
	u32 ids[8];
	int ppid = 0;

	for (f = procs; f; f = f->next)
		if (f->pid == pid && f->tgid == pid)
			return f;
	if (pid == 0) {
		f = fake_new(0, 0, "swapper/0", root);
		if (!f)
			return NULL;
		set_parent(f, f);
	} else {
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (!proc_stat(path, &ppid, comm))
			return NULL;
		proc_ids(path, ids);
		struct fake_task *parent = proc_task(ppid);

		f = parent ? fake_new(pid, pid, comm, ids) : NULL;
		if (!f)
			return NULL;
		f->ppid = ppid;
		set_parent(f, parent);
		put_ptr(f->task, L.cgroups, (void *)(uintptr_t)cgroup_css_set_of(path));
	}
	procs_push(f);
	return f;
}

/* The thread group id in a task's /proc status (path: its directory), or 0. */
static int proc_tgid(const char *path)
{
	char file[64], line[256];
	int tgid = 0;
	FILE *fp;

	snprintf(file, sizeof(file), "%s/status", path);
	fp = fopen(file, "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "Tgid:", 5))
			tgid = atoi(line + 5);
	if (fp)
		fclose(fp);
	return tgid;
}


/* Whether n bytes at addr lie in one of f's objects (task, cred, mm: one block). */
static bool in_fake(const struct fake_task *f, u64 addr, u32 n)
{
	u64 lo = (uintptr_t)f->task, hi = lo + L.task_size + L.cred_size + L.mm_size;

	return addr >= lo && addr <= hi && n <= hi - addr;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t self_key;
static __thread struct fake_task *self;

static void self_free(void *p)
{
	if (p)
		fake_free(p);
}

static void init(void)
{
	layout_init();
	pthread_key_create(&self_key, self_free);
}

static __thread unsigned int hold_depth;
static __thread bool held; /* self was checked since the outermost hold */
__thread u64 current_task_cached __attribute__((tls_model("initial-exec")));

void current_task_hold(void)
{
	if (!hold_depth++) {
		held = false;
		current_task_cached = 0;
	}
}

void current_task_release(void)
{
	hold_depth--;
}

static u64 task_addr(void);

u64 current_task_addr(void)
{
	u64 addr;

	if (held && self)
		return (uintptr_t)self->task;
	addr = task_addr();
	held = hold_depth && addr;
	current_task_cached = held ? addr : 0;
	return addr;
}

static u64 task_addr(void)
{
	int pid = gettid(), tgid = getpid(), ppid = getppid();
	char comm[17] = { 0 }, path[64];
	struct fake_task *parent, *leader = NULL;
	u32 ids[8];

	pthread_once(&once, init);
	if (!L.ok)
		return 0;
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	if (self && self->pid == pid && self->tgid == tgid && self->ppid == ppid &&
	    !strncmp(self->comm, comm, sizeof(self->comm))) {
		/* (the thread may have moved to another cgroup, or to other CPUs) */
		put_ptr(self->task, L.cgroups,
			(void *)(uintptr_t)cgroup_css_set_of_self());
		set_affinity(self, pid);
		return (uintptr_t)self->task;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d", tgid, pid);
	if (!proc_ids(path, ids))
		return 0;
	pthread_mutex_lock(&procs_lock);
	parent = proc_task(ppid);
	if (parent && pid != tgid)
		leader = proc_task(tgid);
	pthread_mutex_unlock(&procs_lock);
	if (!parent || (pid != tgid && !leader))
		return 0;
	if (self) /* (a forked child's copy too: the child's heap and arena hold it) */
		fake_free(self);
	self = fake_new(pid, tgid, comm, ids);
	pthread_setspecific(self_key, self);
	if (!self)
		return 0;
	self->ppid = ppid;
	set_parent(self, parent);
	if (leader)
		put_ptr(self->task, L.group_leader, leader->task);
	put_ptr(self->task, L.cgroups, (void *)(uintptr_t)cgroup_css_set_of_self());
	return (uintptr_t)self->task;
}

bool current_task_holds(u64 addr, u32 n)
{
	if (arena && addr >= (uintptr_t)arena && n <= ARENA_SIZE &&
	    addr - (uintptr_t)arena <= ARENA_SIZE - n)
		return true;
	if (self && in_fake(self, addr, n))
		return true;
	for (const struct fake_task *f = __atomic_load_n(&procs, __ATOMIC_ACQUIRE); f; f = f->next)
		if (in_fake(f, addr, n))
			return true;
	return false;
}

int current_task_pid(u64 task, u32 *pid)
{
	if (!L.ok || !current_task_holds(task + (u64)L.pid, sizeof(*pid)))
		return -EINVAL;
	memcpy(pid, (const void *)(uintptr_t)(task + (u64)L.pid), sizeof(*pid));
	return 0;
}

u64 current_task_by_pid(int pid)
{
	char path[32], comm[16];
	int ppid, tgid;
	u32 ids[8];
	struct fake_task *f, *parent, *leader;

	pthread_once(&once, init);
	if (!L.ok || pid <= 0) /* (pid 0, the idle task, has no id to be found by) */
		return 0;
	if (pid == gettid())
		return current_task_addr();
	/* (a thread's directory is there too, unlisted) */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (!proc_stat(path, &ppid, comm) || !(tgid = proc_tgid(path)) || !proc_ids(path, ids))
		return 0;
	pthread_mutex_lock(&procs_lock);
	/* the task made before, unless its id went to another since (another parent or name) */
	for (f = procs; f; f = f->next)
		if (f->pid == pid && f->tgid == tgid)
			break;
	if (f && (f->ppid != ppid || strncmp(f->comm, comm, sizeof(f->comm))))
		f = NULL;
	if (!f) {
		parent = proc_task(ppid);
		leader = pid == tgid ? NULL : proc_task(tgid);
		f = parent && (pid == tgid || leader) ? fake_new(pid, tgid, comm, ids) : NULL;
		if (f) {
			f->ppid = ppid;
			set_parent(f, parent);
			if (leader)
				put_ptr(f->task, L.group_leader, leader->task);
			put_ptr(f->task, L.cgroups, (void *)(uintptr_t)cgroup_css_set_of(path));
			procs_push(f);
		}
	}
	pthread_mutex_unlock(&procs_lock);
	return f ? (uintptr_t)f->task : 0;
}

u64 current_task_cgroups(u64 task)
{
	u64 cset = 0;

	if (L.ok && L.cgroups >= 0 && current_task_holds(task + (u64)L.cgroups, sizeof(void *)))
		memcpy(&cset, (const void *)(uintptr_t)(task + (u64)L.cgroups), sizeof(void *));
	return cset;
}

int current_task_tgid(u64 task)
{
	u32 tgid = 0;

	if (L.ok && current_task_holds(task + (u64)L.tgid, sizeof(tgid)))
		memcpy(&tgid, (const void *)(uintptr_t)(task + (u64)L.tgid), sizeof(tgid));
	return (int)tgid;
}

u64 current_task_mm(u64 task)
{
	u64 mm = 0;

	if (L.ok && current_task_holds(task + (u64)L.mm, sizeof(void *)))
		memcpy(&mm, (const void *)(uintptr_t)(task + (u64)L.mm), sizeof(void *));
	return mm;
}

u64 current_task_idle(void)
{
	struct fake_task *f;

	pthread_once(&once, init);
	if (!L.ok)
		return 0;
	pthread_mutex_lock(&procs_lock);
	f = proc_task(0);
	pthread_mutex_unlock(&procs_lock);
	return f ? (uintptr_t)f->task : 0;
}
