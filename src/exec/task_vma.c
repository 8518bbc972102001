/* task_vma.c — a task's memory areas for bpf_find_vma() and the task_vma iterator, and its open
 * files for the task_file iterator (see task_vma.h).
 *
 * /proc/<tgid>/maps lists the task's areas in order, as the kernel's find_vma() walks them (but
 * for [vsyscall], which is no area of the mm).  The area found is written, each call anew, into
 * a block of the tasks' arena that this thread keeps (so a program's loads through it read in
 * place, as the task's do): the vm_area_struct (start, end, mm, flags, page offset, file), and
 * for a mapped file its struct file, dentry (the name) and inode (the number).  The flags are
 * the permissions maps shows (VM_READ, VM_WRITE, VM_EXEC), and VM_SHARED as smaps shows it for
 * a shared mapping (of a file opened read-only it has none); the kernel's other flags
 * (VM_MAYREAD, VM_GROWSDOWN, ...) read 0.
 *
 * An open file is written into the same block from /proc/<tgid>/fd and fdinfo: the struct
 * file (its position), dentry (its name) and inode (number and mode); its other fields read 0.
 *
 * An iterator's walk (task_walk_begin() to task_walk_end()) reads a task's maps, smaps and fd
 * list once and finds each next area or fd in that copy: read anew per step, a walk was
 * quadratic in the task's areas (29 s for 4000 of them).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "exec/current_task.h"
#include "exec/task_vma.h"

#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_SHARED 0x8
#define NAME_MAX_BYTES 256

static struct {
	bool ok;
	u32 vma_size, file_size, dentry_size, inode_size;
	long vm_start, vm_end, vm_mm, vm_flags, vm_pgoff, vm_file;
	long f_dentry, f_inode, d_name, d_len, d_inode, i_ino;
	long f_pos, i_mode; /* (-1: not in the kernel's BTF) */
} L;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static u32 struct_id(const struct btf *btf, const char *name, u32 *size)
{
	u32 id = btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id ? btf_type_by_id(btf, id) : NULL;

	*size = t ? t->size : 0;
	return t ? id : 0;
}

/* The offset of member b of the struct that member a of id is (a.b), or -1. */
static long nested(const struct btf *btf, u32 id, const char *a, u32 inner, const char *b)
{
	long x = btf_member_offset(btf, id, a), y = btf_member_offset(btf, inner, b);

	return x < 0 || y < 0 ? -1 : x + y;
}

static void layout(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 vma, file, dentry, inode, path, qstr, unused;

	if (!btf)
		return;
	vma = struct_id(btf, "vm_area_struct", &L.vma_size);
	file = struct_id(btf, "file", &L.file_size);
	dentry = struct_id(btf, "dentry", &L.dentry_size);
	inode = struct_id(btf, "inode", &L.inode_size);
	path = struct_id(btf, "path", &unused);
	qstr = struct_id(btf, "qstr", &unused);
	if (!vma || !file || !dentry || !inode || !path || !qstr)
		return;
	const struct {
		long *off;
		u32 id;
		const char *name;
	} fields[] = {
		{ &L.vm_start, vma, "vm_start" }, { &L.vm_end, vma, "vm_end" },
		{ &L.vm_mm, vma, "vm_mm" },	  { &L.vm_flags, vma, "vm_flags" },
		{ &L.vm_pgoff, vma, "vm_pgoff" }, { &L.vm_file, vma, "vm_file" },
		{ &L.f_inode, file, "f_inode" },  { &L.d_inode, dentry, "d_inode" },
		{ &L.i_ino, inode, "i_ino" },
	};

	L.ok = true;
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		*fields[i].off = btf_member_offset(btf, fields[i].id, fields[i].name);
		L.ok &= *fields[i].off >= 0;
	}
	L.f_pos = btf_member_offset(btf, file, "f_pos");
	L.i_mode = btf_member_offset(btf, inode, "i_mode");
	L.f_dentry = nested(btf, file, "f_path", path, "dentry");
	L.d_name = nested(btf, dentry, "d_name", qstr, "name");
	L.d_len = nested(btf, dentry, "d_name", qstr, "len");
	L.ok &= L.f_dentry >= 0 && L.d_name >= 0 && L.d_len >= 0;
}

/* A kernel field of 8 bytes (a pointer's too: 64 bits, as the kernel's), or of 4. */
static void put64(u8 *base, long off, u64 v)
{
	memcpy(base + off, &v, sizeof(v));
}

static void put32(u8 *base, long off, u32 v)
{
	memcpy(base + off, &v, sizeof(v));
}

/* vm_pgoff, which maps shows for a file only.  An anonymous area keeps the page number it was
 * made at, which growing or splitting keeps in step with its start; the kernel's special
 * mappings ([vdso], [vvar]) have 0; the main stack was made at the top of the address space
 * (x86-64's STACK_TOP_MAX) and moved down with its offset kept, which growing down lowers by
 * each page it gains.  (The kernel's: an i386 process on an x86-64 kernel has it too.) */
static bool kernel_is_x86_64(void)
{
	static int known = -1; /* (threads may race to set it: the same value) */
	int is = __atomic_load_n(&known, __ATOMIC_RELAXED);
	struct utsname u;

	if (is < 0) {
		is = !uname(&u) && !strcmp(u.machine, "x86_64");
		__atomic_store_n(&known, is, __ATOMIC_RELAXED);
	}
	return is;
}

static u64 area_pgoff(u64 start, u64 end, u64 off, u64 ino, const char *name)
{
	if (ino)
		return off / 4096;
	if (!strcmp(name, "[stack]") && kernel_is_x86_64())
		return (0x7ffffffff000ull - (end - start)) / 4096;
	if (name[0] == '[' && strcmp(name, "[heap]") && strcmp(name, "[stack]"))
		return 0;
	return start / 4096;
}

/* A walk's copy of one /proc file of a task (text NULL: none yet, or it could not be read). */
struct proc_copy {
	int tgid;
	char *text;
	size_t len;
	/* maps: where the line after the last area found starts, and that area's end (a walk
	 * asks for the area after it next: its search starts there, not at the top) */
	long cursor;
	u64 cursor_addr;
};

static __thread struct {
	u32 on;			/* walks begun and not ended (an open-coded iterator in a walk's
				 * program nests) */
	struct proc_copy maps, smaps;
	int fds_tgid;		/* fds: the open fds of this task, ascending */
	u32 *fds;
	size_t n_fds;
} walk;

static void proc_copy_drop(struct proc_copy *c)
{
	free(c->text);
	c->text = NULL;
	c->len = 0;
	c->cursor = 0;
	c->cursor_addr = 0;
}

/* The whole of the file at path, malloc'ed (/proc files tell no size: read until the end). */
static char *read_whole(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *grown;
	FILE *f = fopen(path, "re");
	size_t got;

	if (!buf || !f)
		goto fail;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (!(grown = realloc(buf, cap * 2)))
				goto fail;
			buf = grown;
			cap *= 2;
		}
	}
	fclose(f);
	*len = n;
	return buf;
fail:
	if (f)
		fclose(f);
	free(buf);
	return NULL;
}

/* /proc/<tgid>/<name> to read by line: the walk's copy of it while a walk is on (made on the
 * task's first use), else the file. */
static FILE *proc_open(int tgid, const char *name, struct proc_copy *c)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", tgid, name);
	if (!walk.on)
		return fopen(path, "re");
	if (c->tgid != tgid || !c->text) {
		proc_copy_drop(c);
		c->tgid = tgid;
		c->text = read_whole(path, &c->len);
	}
	return c->text && c->len ? fmemopen(c->text, c->len, "r") : NULL;
}

void task_walk_begin(void)
{
	walk.on++;
}

void task_walk_end(void)
{
	if (--walk.on)
		return;
	proc_copy_drop(&walk.maps);
	proc_copy_drop(&walk.smaps);
	free(walk.fds);
	walk.fds = NULL;
	walk.n_fds = 0;
	walk.fds_tgid = 0;
}

/* Whether the kernel's flags of tgid's area at start have VM_SHARED, which maps's 's' does not
 * tell (it shows VM_MAYSHARE: a shared mapping of a file opened read-only has no VM_SHARED):
 * smaps's VmFlags do ("sh"). */
static bool area_vm_shared(int tgid, u64 start)
{
	char line[1024];
	bool in_area = false, shared = false;
	FILE *f = proc_open(tgid, "smaps", &walk.smaps);

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in_area = s == start;
		} else if (in_area && !strncmp(line, "VmFlags:", 8)) {
			shared = strstr(line, " sh") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	return shared;
}

/* The struct file at file, with its dentry, inode and name after it in the block (zeroed):
 * the dentry named name (cut to NAME_MAX_BYTES), the inode numbered ino. */
static void put_file(u8 *file, const char *name, u64 ino)
{
	u8 *dentry = file + L.file_size, *inode = dentry + L.dentry_size;
	u8 *name_buf = inode + L.inode_size;
	size_t n = strlen(name) < NAME_MAX_BYTES - 1 ? strlen(name) : NAME_MAX_BYTES - 1;

	memcpy(name_buf, name, n);
	name_buf[n] = 0;
	put64(file, L.f_dentry, (uintptr_t)dentry);
	put64(file, L.f_inode, (uintptr_t)inode);
	put64(dentry, L.d_name, (uintptr_t)name_buf);
	put32(dentry, L.d_len, (u32)n);
	put64(dentry, L.d_inode, (uintptr_t)inode);
	put64(inode, L.i_ino, ino);
}

static __thread u8 *block;
static __thread bool in_use;

/* A vm_area_struct, a file, dentry and inode, and a name: the block's layout. */
static size_t block_size(void)
{
	return L.vma_size + L.file_size + L.dentry_size + L.inode_size + NAME_MAX_BYTES;
}

/* This thread's block (made on first use), or NULL: -EBUSY in *err when it is in use (a nested
 * call), *err as it was without memory. */
static u8 *block_get(int *err)
{
	if (in_use) {
		*err = -EBUSY;
		return NULL;
	}
	if (!block)
		block = task_arena_alloc(block_size());
	return block;
}

/* The area of /proc/<tgid>/maps holding addr, or (next) the first ending above it: false if
 * none. */
static bool find_area(int tgid, u64 addr, bool next, u64 *start, u64 *end, char perms[5],
		      u64 *off, u64 *ino, char *name, size_t name_size)
{
	char line[4096 + 128];
	bool found = false;
	FILE *f = proc_open(tgid, "maps", &walk.maps);

	if (!f)
		return false;
	if (walk.on && walk.maps.cursor && addr >= walk.maps.cursor_addr &&
	    fseek(f, walk.maps.cursor, SEEK_SET))
		rewind(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long s, e, o, inode;
		unsigned int maj, mnr;
		int at = 0;

		if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &s, &e, perms, &o, &maj, &mnr,
			   &inode, &at) < 7)
			continue;
		if (addr >= e)
			continue;
		/* the first area ending above addr: it holds addr, or nothing does */
		if (strstr(line + at, "[vsyscall]"))
			break;
		if (addr >= s || next) {
			char *nl = strchr(line + at, '\n'), *del;

			if (nl)
				*nl = 0;
			del = strstr(line + at, " (deleted)");
			if (del && !del[10])
				*del = 0;
			*start = s;
			*end = e;
			*off = o;
			*ino = inode;
			/* the dentry's name: a path's last part; an anonymous inode's file shows
			 * as "anon_inode:<name>" */
			const char *n = strrchr(line + at, '/') ? strrchr(line + at, '/') + 1
								: line + at;

			if (!strncmp(n, "anon_inode:", 11))
				n += 11;
			snprintf(name, name_size, "%s", n);
			if (perms[3] == 's' && !area_vm_shared(tgid, s))
				perms[3] = 'p';
			found = true;
			if (walk.on) {
				walk.maps.cursor = ftell(f);
				walk.maps.cursor_addr = e;
			}
		}
		break;
	}
	fclose(f);
	return found;
}

static u64 area_get(u64 task, u64 addr, bool next, u64 *area_end, int *err)
{
	u64 start, end, off, ino;
	char perms[5] = { 0 }, name[NAME_MAX_BYTES];
	u8 *vma, *file;
	int tgid = current_task_tgid(task);
	u64 mm = current_task_mm(task), flags;

	pthread_once(&once, layout);
	*err = -ENOENT;
	if (!L.ok || !tgid || !mm || !block_get(err) ||
	    !find_area(tgid, addr, next, &start, &end, perms, &off, &ino, name, sizeof(name)))
		return 0;
	vma = block;
	file = vma + L.vma_size;
	memset(block, 0, block_size());
	flags = (perms[0] == 'r' ? VM_READ : 0) | (perms[1] == 'w' ? VM_WRITE : 0) |
		(perms[2] == 'x' ? VM_EXEC : 0) | (perms[3] == 's' ? VM_SHARED : 0);
	put64(vma, L.vm_start, start);
	put64(vma, L.vm_end, end);
	put64(vma, L.vm_mm, mm);
	put64(vma, L.vm_flags, flags);
	put64(vma, L.vm_pgoff, area_pgoff(start, end, off, ino, name));
	if (ino) { /* a mapped file */
		put64(vma, L.vm_file, (uintptr_t)file);
		put_file(file, name, ino);
	}
	in_use = true;
	*err = 0;
	*area_end = end;
	return (uintptr_t)vma;
}

u64 task_vma_get(u64 task, u64 addr, int *err)
{
	u64 end;

	return area_get(task, addr, false, &end, err);
}

u64 task_vma_next(u64 task, u64 addr, u64 *end, int *err)
{
	return area_get(task, addr, true, end, err);
}

void task_vma_put(void)
{
	in_use = false;
}

/* ---- open files (the task_file iterator) ---- */

static int u32_order(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The open fds of tgid as /proc/<tgid>/fd lists them, into walk.fds, ascending. */
static void list_fds(int tgid)
{
	char path[64];
	struct dirent *e;
	size_t cap = 0;
	DIR *d;

	free(walk.fds);
	walk.fds = NULL;
	walk.n_fds = 0;
	walk.fds_tgid = tgid;
	snprintf(path, sizeof(path), "/proc/%d/fd", tgid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char *end;
		long long n = strtoll(e->d_name, &end, 10);

		if (*end || e->d_name[0] == '.' || n < 0 || n > (long long)UINT32_MAX)
			continue;
		if (walk.n_fds == cap) {
			u32 *grown = realloc(walk.fds, (cap = cap ? cap * 2 : 64) * sizeof(u32));

			if (!grown)
				break;
			walk.fds = grown;
		}
		walk.fds[walk.n_fds++] = (u32)n;
	}
	if (d)
		closedir(d);
	if (walk.n_fds)
		qsort(walk.fds, walk.n_fds, sizeof(u32), u32_order);
}

/* The lowest open fd of tgid at or above from, or -1: from the walk's list while a walk is on
 * (made on the task's first use), else from the directory. */
static long lowest_fd(int tgid, u32 from)
{
	char path[64];
	struct dirent *e;
	long best = -1;
	DIR *d;

	if (walk.on) {
		size_t lo = 0, hi;

		if (walk.fds_tgid != tgid)
			list_fds(tgid);
		for (hi = walk.n_fds; lo < hi;) { /* the first not below from */
			size_t mid = lo + (hi - lo) / 2;

			if (walk.fds[mid] < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < walk.n_fds ? (long)walk.fds[lo] : -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", tgid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);

		if (!*end && e->d_name[0] != '.' && n >= (long)from && (best < 0 || n < best))
			best = n;
	}
	if (d)
		closedir(d);
	return best;
}

/* The lowest open fd of tgid at or above from, with what /proc tells of it: 1; 0 if none; -1
 * if *fd closed while it was looked at. */
static int find_fd(int tgid, u32 from, u32 *fd, char *target, size_t target_size,
		   struct stat *st, u64 *pos)
{
	char path[64], line[128];
	long best = lowest_fd(tgid, from);

	if (best < 0)
		return 0;
	*fd = (u32)best;
	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", tgid, best);
	ssize_t len = readlink(path, target, target_size - 1);

	if (len < 0 || stat(path, st))
		return -1;
	target[len] = 0;
	*pos = 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%ld", tgid, best);
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "pos: %" SCNu64, pos) == 1)
			break;
	if (f)
		fclose(f);
	return 1;
}

/* A socket's dentry name: its protocol's (the kernel names it after sk_prot_creator->name), as
 * SO_DOMAIN, SO_TYPE and SO_PROTOCOL tell it of fd (tgid's: taken with pidfd_getfd() when not
 * this process's); "" when it cannot be told. */
static const char *socket_name(int tgid, u32 fd)
{
	int own = -1, domain = 0, type = 0, proto = 0;
	socklen_t len = sizeof(int);

	if (tgid != getpid()) {
		int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);

		own = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
		if (pidfd >= 0)
			close(pidfd);
		if (own < 0)
			return "";
	}
	int s = own >= 0 ? own : (int)fd;

	if (getsockopt(s, SOL_SOCKET, SO_DOMAIN, &domain, &len) ||
	    getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &len))
		domain = 0;
	if (own >= 0)
		close(own);
	bool v6 = domain == AF_INET6;

	if (domain == AF_INET || domain == AF_INET6) {
		if (type == SOCK_RAW)
			return v6 ? "RAWv6" : "RAW";
		if (proto == IPPROTO_TCP)
			return v6 ? "TCPv6" : "TCP";
		if (proto == IPPROTO_UDP)
			return v6 ? "UDPv6" : "UDP";
		if (proto == IPPROTO_UDPLITE)
			return v6 ? "UDPLITEv6" : "UDP-Lite";
		if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6)
			return v6 ? "PINGv6" : "PING";
		return "";
	}
	if (domain == AF_UNIX)
		return type == SOCK_STREAM ? "UNIX-STREAM" : "UNIX";
	if (domain == AF_NETLINK)
		return "NETLINK";
	if (domain == AF_PACKET)
		return "PACKET";
	return "";
}

/* The dentry name of tgid's fd, which /proc shows as target: a path's last part ("/" for the
 * root), an anonymous inode's own name, a socket's protocol; a pipe's is empty (the
 * "pipe:[ino]" /proc shows is made up when it is asked), as a pidfd's is "/". */
static const char *dentry_name(int tgid, u32 fd, char *target)
{
	char *del = strstr(target, " (deleted)"), *slash;

	if (del && !del[10])
		*del = 0;
	if (!strcmp(target, "anon_inode:[pidfd]"))
		return "/";
	if (!strncmp(target, "anon_inode:", 11))
		return target + 11;
	if (!strncmp(target, "socket:", 7))
		return socket_name(tgid, fd);
	if (target[0] != '/')
		return strchr(target, ':') ? "" : target;
	slash = strrchr(target, '/');
	return slash[1] ? slash + 1 : slash;
}

u64 task_file_next(u64 task, u32 from, u32 *fd, int *err)
{
	char target[4096];
	struct stat st;
	u64 pos;
	u8 *file, *inode;
	int tgid = current_task_tgid(task);

	pthread_once(&once, layout);
	*err = -ENOENT;
	if (!L.ok || !tgid || !block_get(err))
		return 0;
	for (int found; (found = find_fd(tgid, from, fd, target, sizeof(target), &st, &pos)) < 1;) {
		if (!found || *fd == UINT32_MAX)
			return 0;
		from = *fd + 1; /* (it closed: the next one) */
	}
	file = block + L.vma_size;
	inode = file + L.file_size + L.dentry_size;
	memset(file, 0, L.file_size + L.dentry_size + L.inode_size + NAME_MAX_BYTES);
	put_file(file, dentry_name(tgid, *fd, target), (u64)st.st_ino);
	if (L.f_pos >= 0)
		put64(file, L.f_pos, pos);
	if (L.i_mode >= 0) {
		u16 mode = (u16)st.st_mode;

		/* (a pidfd's inode is a regular file's, which stat() does not show) */
		if (!strcmp(target, "anon_inode:[pidfd]") && !(mode & S_IFMT))
			mode |= S_IFREG;

		memcpy(inode + L.i_mode, &mode, sizeof(mode));
	}
	in_use = true;
	*err = 0;
	return (uintptr_t)file;
}

/* ---- the open-coded iterator (struct bpf_iter_task_vma) ---- */

/* What the iterator's one word points at. */
struct iter_task_vma {
	u64 task;
	u64 addr;	/* the next area is the first ending above it */
	bool done;
};

/* bpf_iter_task_vma_new(it, task, addr): the task's areas from the one holding addr (or the
 * first above it) up; -ENOENT without a task or an mm (a kernel thread), as the kernel's. */
u64 bpf_iter_task_vma_new_kfunc(u64 it, u64 task, u64 addr, u64 a4, u64 a5)
{
	struct iter_task_vma *k;

	*(u64 *)(uintptr_t)it = 0;
	if (!task || !current_task_mm(task))
		return (u64)-ENOENT;
	k = calloc(1, sizeof(*k));
	if (!k)
		return (u64)-ENOMEM;
	k->task = task;
	k->addr = addr;
	*(u64 *)(uintptr_t)it = (uintptr_t)k;
	task_walk_begin(); /* (the task's areas read once for the whole iteration) */
	return 0;
}

/* The next area as a vm_area_struct (valid until the next call), or NULL at the end. */
u64 bpf_iter_task_vma_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_task_vma *k = (struct iter_task_vma *)(uintptr_t)*(u64 *)(uintptr_t)it;
	u64 vma, end;
	int err;

	if (!k || k->done)
		return 0;
	task_vma_put(); /* (the area given last) */
	vma = task_vma_next(k->task, k->addr, &end, &err);
	if (!vma) {
		k->done = true;
		return 0;
	}
	k->addr = end;
	return vma;
}

u64 bpf_iter_task_vma_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_task_vma *k = (struct iter_task_vma *)(uintptr_t)*(u64 *)(uintptr_t)it;

	if (!k)
		return 0;
	task_vma_put();
	task_walk_end();
	free(k);
	*(u64 *)(uintptr_t)it = 0;
	return 0;
}
