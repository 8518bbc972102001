/* task_vma.c — a task's memory areas for bpf_find_vma() (see task_vma.h).
 *
 * /proc/<tgid>/maps lists the task's areas in order, as the kernel's find_vma() walks them (but
 * for [vsyscall], which is no area of the mm).  The area found is written, each call anew, into
 * a block of the tasks' arena that this thread keeps (so a program's loads through it read in
 * place, as the task's do): the vm_area_struct (start, end, mm, flags, page offset, file), and
 * for a mapped file its struct file, dentry (the name) and inode (the number).  The flags are
 * the permissions maps shows (VM_READ, VM_WRITE, VM_EXEC), and VM_SHARED as smaps shows it for
 * a shared mapping (of a file opened read-only it has none); the kernel's other flags
 * (VM_MAYREAD, VM_GROWSDOWN, ...) read 0.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

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
 * each page it gains. */
static u64 area_pgoff(u64 start, u64 end, u64 off, u64 ino, const char *name)
{
	if (ino)
		return off / 4096;
	if (!strcmp(name, "[stack]") && sizeof(void *) == 8)
		return (0x7ffffffff000ull - (end - start)) / 4096;
	if (name[0] == '[' && strcmp(name, "[heap]") && strcmp(name, "[stack]"))
		return 0;
	return start / 4096;
}

/* Whether the kernel's flags of tgid's area at start have VM_SHARED, which maps's 's' does not
 * tell (it shows VM_MAYSHARE: a shared mapping of a file opened read-only has no VM_SHARED):
 * smaps's VmFlags do ("sh"). */
static bool area_vm_shared(int tgid, u64 start)
{
	char path[64], line[1024];
	bool in_area = false, shared = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", tgid);
	f = fopen(path, "re");
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

static __thread u8 *block;
static __thread bool in_use;

/* The area of /proc/<tgid>/maps holding addr, or (next) the first ending above it: false if
 * none. */
static bool find_area(int tgid, u64 addr, bool next, u64 *start, u64 *end, char perms[5],
		      u64 *off, u64 *ino, char *name, size_t name_size)
{
	char path[64], line[4096 + 128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
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
	u8 *vma, *file, *dentry, *inode, *name_buf;
	int tgid = current_task_tgid(task);
	u64 mm = current_task_mm(task), flags;

	pthread_once(&once, layout);
	*err = -ENOENT;
	if (!L.ok || !tgid || !mm)
		return 0;
	if (in_use) {
		*err = -EBUSY;
		return 0;
	}
	if (!block)
		block = task_arena_alloc(L.vma_size + L.file_size + L.dentry_size + L.inode_size +
					 NAME_MAX_BYTES);
	if (!block ||
	    !find_area(tgid, addr, next, &start, &end, perms, &off, &ino, name, sizeof(name)))
		return 0;
	vma = block;
	file = vma + L.vma_size;
	dentry = file + L.file_size;
	inode = dentry + L.dentry_size;
	name_buf = inode + L.inode_size;
	memset(block, 0, L.vma_size + L.file_size + L.dentry_size + L.inode_size + NAME_MAX_BYTES);
	flags = (perms[0] == 'r' ? VM_READ : 0) | (perms[1] == 'w' ? VM_WRITE : 0) |
		(perms[2] == 'x' ? VM_EXEC : 0) | (perms[3] == 's' ? VM_SHARED : 0);
	put64(vma, L.vm_start, start);
	put64(vma, L.vm_end, end);
	put64(vma, L.vm_mm, mm);
	put64(vma, L.vm_flags, flags);
	put64(vma, L.vm_pgoff, area_pgoff(start, end, off, ino, name));
	if (ino) { /* a mapped file */
		put64(vma, L.vm_file, (uintptr_t)file);
		put64(file, L.f_dentry, (uintptr_t)dentry);
		put64(file, L.f_inode, (uintptr_t)inode);
		memcpy(name_buf, name, strlen(name) + 1);
		put64(dentry, L.d_name, (uintptr_t)name_buf);
		put32(dentry, L.d_len, (u32)strlen(name));
		put64(dentry, L.d_inode, (uintptr_t)inode);
		put64(inode, L.i_ino, ino);
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
