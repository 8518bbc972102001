/* current_cgroup.c — what task->cgroups->dfl_cgrp and the cgroup kfuncs give a program: a
 * struct cgroup for a cgroup v2 cgroup, laid out as the running kernel's BTF says.
 *
 * Filled: level, kn (a struct kernfs_node with the cgroup's id, name and parent's node),
 * ancestors[] (the root first, the cgroup itself at its level), self.cgroup and self.parent;
 * and for each cgroup a struct css_set whose dfl_cgrp is the cgroup (what a task's cgroups
 * field points at).  Every other byte reads 0.  A cgroup's id is its directory's inode number in
 * the cgroup2 file system, as the kernel's; its path comes from /proc/<task>/cgroup ("0::/a/b").
 *
 * Cgroups are made on first use and kept for the process's life in the tasks' arena (so that
 * programs read them in place); one whose directory now has another inode (removed and made
 * again) is made anew.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "exec/current_cgroup.h"
#include "exec/current_task.h"
#include "fd.h"
#include "map/cgroup_array.h"

/* Byte offsets in the kernel's structs (-1: the kernel has no such member). */
static struct {
	bool ok;
	u32 cgroup_size, kn_size, cset_size;
	long level, kn, ancestors, self_cgroup, self_parent, kn_id, kn_name, kn_parent, dfl_cgrp;
} C;

/* The cgroup2 mount: the part of the hierarchy it shows (its root) and where. */
static char mnt_root[1024], mnt_dir[1024];

static void init(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 cgroup, css, kn, cset;
	long self;

	if (!btf || cgroup2_mount_info(mnt_root, sizeof(mnt_root), mnt_dir, sizeof(mnt_dir)))
		return;
	cgroup = btf_find_by_name_kind(btf, "cgroup", BTF_KIND_STRUCT);
	css = btf_find_by_name_kind(btf, "cgroup_subsys_state", BTF_KIND_STRUCT);
	kn = btf_find_by_name_kind(btf, "kernfs_node", BTF_KIND_STRUCT);
	cset = btf_find_by_name_kind(btf, "css_set", BTF_KIND_STRUCT);
	if (!cgroup || !css || !kn || !cset)
		return;
	C.cgroup_size = btf_type_by_id(btf, cgroup)->size;
	C.kn_size = btf_type_by_id(btf, kn)->size;
	C.cset_size = btf_type_by_id(btf, cset)->size;
	C.level = btf_member_offset(btf, cgroup, "level");
	C.kn = btf_member_offset(btf, cgroup, "kn");
	C.ancestors = btf_member_offset(btf, cgroup, "ancestors");
	self = btf_member_offset(btf, cgroup, "self");
	C.self_cgroup = self < 0 ? -1 : self + btf_member_offset(btf, css, "cgroup");
	C.self_parent = self < 0 ? -1 : self + btf_member_offset(btf, css, "parent");
	C.kn_id = btf_member_offset(btf, kn, "id");
	C.kn_name = btf_member_offset(btf, kn, "name");
	C.kn_parent = btf_member_offset(btf, kn, "__parent");
	if (C.kn_parent < 0)
		C.kn_parent = btf_member_offset(btf, kn, "parent"); /* (before 6.15) */
	C.dfl_cgrp = btf_member_offset(btf, cset, "dfl_cgrp");
	/* (what a cgroup needs to be one: its level, id, ancestors and the css_set's link) */
	C.ok = C.level >= 0 && C.kn >= 0 && C.ancestors >= 0 && C.kn_id >= 0 &&
	       C.dfl_cgrp >= 0 && (u64)C.ancestors <= C.cgroup_size;
}

struct fake_cgroup {
	struct fake_cgroup *next;
	u64 id;
	int level;
	u8 *cgrp, *kn, *cset;
	char path[]; /* in the hierarchy ("/" for the root) */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_cgroup *cgroups; /* (published whole: read without the lock) */

static void put(u8 *base, long off, const void *v, size_t n)
{
	if (off >= 0)
		memcpy(base + off, v, n);
}

static void put_addr(u8 *base, long off, const void *p)
{
	u64 v = (uintptr_t)p;

	put(base, off, &v, sizeof(void *));
}

/* The id of the cgroup at path in the hierarchy (its directory's inode number), or 0. */
static u64 path_id(const char *path)
{
	char dir[4096 + 1024];
	size_t rlen = strcmp(mnt_root, "/") ? strlen(mnt_root) : 0;
	struct stat st;

	/* the mount shows the hierarchy from its root (a cgroup namespace's, say) */
	if (rlen && (strncmp(path, mnt_root, rlen) || (path[rlen] && path[rlen] != '/')))
		return 0;
	snprintf(dir, sizeof(dir), "%s%s", mnt_dir, path + rlen);
	return stat(dir, &st) || !S_ISDIR(st.st_mode) ? 0 : (u64)st.st_ino;
}

/* The cgroup at path (and its ancestors), made if needed; NULL if the mount does not show it. */
static struct fake_cgroup *cgroup_at(const char *path)
{
	struct fake_cgroup *f, *parent = NULL;
	u64 id = strcmp(path, "/") ? path_id(path) : 1;
	size_t len = strlen(path);
	const char *name;
	int level = 0;

	if (!id)
		return NULL;
	for (f = cgroups; f; f = f->next)
		if (f->id == id && !strcmp(f->path, path))
			return f;
	if (strcmp(path, "/")) {
		char up[4096];
		const char *slash = strrchr(path, '/');

		snprintf(up, sizeof(up), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		parent = cgroup_at(up);
		if (!parent)
			return NULL;
		level = parent->level + 1;
	}
	name = strcmp(path, "/") ? strrchr(path, '/') + 1 : "";
	f = task_arena_alloc(sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	f->cgrp = task_arena_alloc(C.cgroup_size + ((size_t)level + 1) * 8);
	f->kn = task_arena_alloc(C.kn_size + strlen(name) + 1);
	f->cset = task_arena_alloc(C.cset_size);
	if (!f->cgrp || !f->kn || !f->cset)
		return NULL; /* (the arena is full: what was taken stays unused) */
	memcpy(f->path, path, len + 1);
	f->id = id;
	f->level = level;
	strcpy((char *)f->kn + C.kn_size, name);
	put(f->cgrp, C.level, &level, sizeof(level));
	put_addr(f->cgrp, C.kn, f->kn);
	put_addr(f->cgrp, C.self_cgroup, f->cgrp);
	if (parent) {
		put_addr(f->cgrp, C.self_parent, parent->cgrp); /* (self is the struct's start) */
		memcpy(f->cgrp + C.ancestors, parent->cgrp + C.ancestors, (size_t)level * 8);
		put_addr(f->kn, C.kn_parent, parent->kn);
	}
	put_addr(f->cgrp, C.ancestors + level * 8, f->cgrp);
	put(f->kn, C.kn_id, &id, sizeof(id));
	put_addr(f->kn, C.kn_name, f->kn + C.kn_size);
	put_addr(f->cset, C.dfl_cgrp, f->cgrp);
	f->next = cgroups;
	__atomic_store_n(&cgroups, f, __ATOMIC_RELEASE);
	return f;
}

/* The css_set for the cgroup v2 line ("0::/a/b") of a /proc cgroup file's text. */
static u64 css_set_of_text(char *text)
{
	struct fake_cgroup *f;
	char *line = strncmp(text, "0::/", 4) ? strstr(text, "\n0::/") : text;

	if (!line)
		return 0;
	line += line == text ? 3 : 4; /* (the path) */
	line[strcspn(line, "\n")] = 0;
	pthread_mutex_lock(&lock);
	f = cgroup_at(line);
	pthread_mutex_unlock(&lock);
	return f ? (uintptr_t)f->cset : 0;
}

u64 cgroup_css_set_of(const char *proc_dir)
{
	char file[256], text[8192];
	size_t n = 0;
	FILE *fp;

	pthread_once(&once, init);
	if (!C.ok)
		return 0;
	snprintf(file, sizeof(file), "%s/cgroup", proc_dir);
	fp = fopen(file, "re");
	if (fp) {
		n = fread(text, 1, sizeof(text) - 1, fp);
		fclose(fp);
	}
	text[n] = 0;
	return css_set_of_text(text);
}

/* What the calling thread's cgroup file last said, and the css_set it gave.  (The file is not
 * kept open: the application may close any fd, and reuse its number.) */
static __thread struct self_cgroup {
	u64 cset;
	char text[1024];
} self;

u64 cgroup_css_set_of_self(void)
{
	char text[sizeof(self.text)];
	int fd;
	ssize_t n = -1;

	pthread_once(&once, init);
	if (!C.ok)
		return 0;
	fd = open("/proc/thread-self/cgroup", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		sys_close(fd);
	}
	if (n <= 0 || n == sizeof(text) - 1)
		return cgroup_css_set_of("/proc/thread-self");
	text[n] = 0;
	/* (a thread moves seldom: the same text, the same cgroup) */
	if (self.cset && !strcmp(text, self.text))
		return self.cset;
	memcpy(self.text, text, (size_t)n + 1);
	self.cset = css_set_of_text(text);
	return self.cset;
}

/* The path below the mount's directory dir (rel: its path in the hierarchy) whose directory has
 * inode id, into out; false if none has. */
static bool find_id(const char *dir, const char *rel, u64 id, char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char sub[4096], subrel[4096];

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(subrel, sizeof(subrel), "%s/%s", strcmp(rel, "/") ? rel : "", e->d_name);
		if ((u64)e->d_ino == id) {
			snprintf(out, size, "%s", subrel);
			found = true;
		} else {
			snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
			found = find_id(sub, subrel, id, out, size);
		}
	}
	if (d)
		closedir(d);
	return found;
}

#define CGROUP_SUPER_MAGIC 0x27e0eb
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

int cgroup_fd_id(int fd, u64 *id)
{
	struct statfs sfs;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || fstatfs(fd, &sfs) || !S_ISDIR(st.st_mode))
		return -EBADF;
	if ((u64)sfs.f_type == CGROUP2_SUPER_MAGIC)
		*id = (u64)st.st_ino;
	else if ((u64)sfs.f_type == CGROUP_SUPER_MAGIC)
		*id = (u64)st.st_ino | CGROUP_V1_ID;
	else
		return -EBADF;
	return 0;
}

u64 cgroup_by_id(u64 id)
{
	struct fake_cgroup *f;
	char path[4096];

	pthread_once(&once, init);
	if (!C.ok || !id)
		return 0;
	pthread_mutex_lock(&lock);
	for (f = cgroups; f; f = f->next)
		if (f->id == id && path_id(f->path) == id)
			break;
	if (!f) {
		/* (the mount's directory is the cgroup mnt_root) */
		if (path_id(mnt_root) == id)
			f = cgroup_at(mnt_root);
		else if (find_id(mnt_dir, mnt_root, id, path, sizeof(path)))
			f = cgroup_at(path);
	}
	pthread_mutex_unlock(&lock);
	return f ? (uintptr_t)f->cgrp : 0;
}

static struct fake_cgroup *cgroup_of(u64 cgrp)
{
	for (struct fake_cgroup *f = __atomic_load_n(&cgroups, __ATOMIC_ACQUIRE); f; f = f->next)
		if ((uintptr_t)f->cgrp == cgrp)
			return f;
	return NULL;
}

u64 cgroup_ancestor(u64 cgrp, s64 level)
{
	struct fake_cgroup *f = cgroup_of(cgrp);
	u64 a = 0;

	if (f && level >= 0 && level <= f->level)
		memcpy(&a, f->cgrp + C.ancestors + level * 8, sizeof(void *));
	return a;
}

bool cgroup_task_under(u64 task, u64 ancestor)
{
	struct fake_cgroup *a = cgroup_of(ancestor);
	u64 cset = current_task_cgroups(task), cgrp = 0;

	if (!a || !cset)
		return false;
	memcpy(&cgrp, (const u8 *)(uintptr_t)cset + C.dfl_cgrp, sizeof(void *));
	return cgroup_ancestor(cgrp, a->level) == ancestor;
}

int cgroup_id_of(u64 cgrp, u64 *id)
{
	struct fake_cgroup *f = cgroup_of(cgrp);

	if (!f)
		return -EINVAL;
	*id = f->id;
	return 0;
}

/* The subdirectories of the cgroup at path (a directory under the mount), by inode (creation)
 * order, appended to *ids / *n. */
struct child {
	u64 ino;
	char name[256];
};

static int cmp_child(const void *a, const void *b)
{
	u64 x = ((const struct child *)a)->ino, y = ((const struct child *)b)->ino;

	return (x > y) - (x < y);
}

/* Appends the cgroups below f (post: after them, else before them) to out, depth first, each
 * level's children in creation order (as the kernel's lists keep them: ascending ids). */
static void walk(struct fake_cgroup *f, bool post, u64 **out, u32 *n, u32 *cap)
{
	char dir[4096 + 1024];
	size_t rlen = strcmp(mnt_root, "/") ? strlen(mnt_root) : 0;
	struct child *kids = NULL;
	u32 nk = 0;
	struct dirent *e;
	DIR *d;

	if (!post && *n < *cap)
		(*out)[(*n)++] = (uintptr_t)f->cgrp;
	snprintf(dir, sizeof(dir), "%s%s", mnt_dir, f->path + rlen);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		struct child *k;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		k = realloc(kids, (nk + 1) * sizeof(*kids));
		if (!k)
			break;
		kids = k;
		kids[nk].ino = (u64)e->d_ino;
		snprintf(kids[nk++].name, sizeof(kids[0].name), "%s", e->d_name);
	}
	if (d)
		closedir(d);
	if (nk)
		qsort(kids, nk, sizeof(*kids), cmp_child);
	for (u32 i = 0; i < nk; i++) {
		char path[4096];
		struct fake_cgroup *c;

		snprintf(path, sizeof(path), "%s/%s", strcmp(f->path, "/") ? f->path : "",
			 kids[i].name);
		c = cgroup_at(path);
		if (c)
			walk(c, post, out, n, cap);
	}
	free(kids);
	if (post && *n < *cap)
		(*out)[(*n)++] = (uintptr_t)f->cgrp;
}

int cgroup_descendants(u64 cgrp, bool post, u64 **out)
{
	struct fake_cgroup *f = cgroup_of(cgrp);
	u32 n = 0, cap = 4096;

	*out = f ? malloc(cap * sizeof(**out)) : NULL;
	if (!*out)
		return 0;
	pthread_mutex_lock(&lock);
	walk(f, post, out, &n, &cap);
	pthread_mutex_unlock(&lock);
	return (int)n;
}

u64 cgroup_parent(u64 cgrp)
{
	struct fake_cgroup *f = cgroup_of(cgrp);

	return f && f->level ? cgroup_ancestor(cgrp, f->level - 1) : 0;
}

int cgroup_tasks(u64 cgrp, bool procs, int **out)
{
	struct fake_cgroup *f = cgroup_of(cgrp);
	size_t rlen = strcmp(mnt_root, "/") ? strlen(mnt_root) : 0;
	char file[4096 + 1024];
	u32 n = 0, cap = 0;
	int pid, *grown;
	FILE *fp;

	*out = NULL;
	if (!f)
		return 0;
	/* (the kernel lists the file from the same iteration the kfunc makes) */
	snprintf(file, sizeof(file), "%s%s/%s", mnt_dir,
		 strcmp(f->path + rlen, "/") ? f->path + rlen : "",
		 procs ? "cgroup.procs" : "cgroup.threads");
	fp = fopen(file, "re");
	while (fp && fscanf(fp, "%d", &pid) == 1) {
		if (n == cap) {
			grown = realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof(int));
			if (!grown)
				break;
			*out = grown;
		}
		(*out)[n++] = pid;
	}
	if (fp)
		fclose(fp);
	return (int)n;
}
