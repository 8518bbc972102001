/* cgroup_attach.c — programs attached to cgroup v2 cgroups (cgroup_attach.h): the kernel's
 * kernel/bpf/cgroup.c bookkeeping as 6.18 keeps it, without the hooks that would run them.
 *
 * Each cgroup userbpf has seen an attach command for has a struct cg_bpf, found by its id (the
 * directory's inode number): per attach type a list of entries (a program attached by
 * BPF_PROG_ATTACH, holding a reference, or a cgroup link), the mode its first attach chose and a
 * revision that every change bumps (1 at first).  A cgroup whose directory is gone loses its
 * programs, as a dying cgroup does in the kernel: its links are left attached to nothing.
 * userbpf notices that when it next looks (each command first prunes such cgroups).
 *
 * The effective programs of a cgroup (BPF_F_QUERY_EFFECTIVE) are computed when asked, from the
 * cgroup and its ancestors as the kernel's compute_effective_progs() builds them at each change.
 * One lock serialises every command here, as the kernel's cgroup_mutex does.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exec/current_cgroup.h"
#include "map/cgroup_storage.h"
#include "map/map.h"
#include "prog/attach.h"
#include "prog/cgroup_attach.h"
#include "prog/link.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define CG_ATYPES 64u		/* enum bpf_attach_type values userbpf keeps lists for */
#define CG_MAX_PROGS 64u	/* the kernel's BPF_CGROUP_MAX_PROGS, per cgroup and type */
#define CG_MAX_DEPTH 256	/* ancestors looked at */

/* 6.18's attach flags past Debian 12's uapi header */
#define F_BEFORE (1u << 3)
#define F_AFTER (1u << 4)
#define F_ID (1u << 5)
#define F_PREORDER (1u << 6)
#define F_LINK (1u << 13)
#define LINK_ATTACH_MASK (F_ID | F_BEFORE | F_AFTER | F_PREORDER | F_LINK)

/* 6.18's attr fields past Debian 12's uapi header */
#define ATTR_ATTACH_RELATIVE 20	/* BPF_PROG_ATTACH/DETACH: relative_fd or relative_id */
#define ATTR_ATTACH_REVISION 24	/* ... expected_revision (u64) */
#define ATTR_LINK_RELATIVE 16	/* BPF_LINK_CREATE: link_create.cgroup.relative_fd/_id */
#define ATTR_LINK_REVISION 24	/* ... expected_revision */
#define ATTR_QUERY_REVISION 56	/* BPF_PROG_QUERY: query.revision (u64, out) */

#define ATTACH_LSM_CGROUP 43u	/* BPF_LSM_CGROUP */

struct cg_entry {			/* the kernel's struct bpf_prog_list */
	struct cg_entry *next;
	struct bpf_prog *prog;		/* attached by BPF_PROG_ATTACH: a reference */
	struct bpf_link *link;		/* or by this link (whose program it is) */
	u32 flags;			/* the attach flags (BPF_F_PREORDER matters) */
};

struct cg_bpf {
	struct cg_bpf *next;
	u64 id;
	char *path;			/* the directory, to see whether it is still there */
	u32 flags[CG_ATYPES];		/* 0, BPF_F_ALLOW_OVERRIDE or BPF_F_ALLOW_MULTI */
	u64 revisions[CG_ATYPES];
	struct cg_entry *progs[CG_ATYPES];
};

static pthread_mutex_t cg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cg_bpf *cg_list;

bool cgroup_prog_type(u32 ptype)
{
	switch (ptype) {
	case BPF_PROG_TYPE_CGROUP_DEVICE:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_CGROUP_SOCK:
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
	case BPF_PROG_TYPE_CGROUP_SYSCTL:
	case BPF_PROG_TYPE_SOCK_OPS:
		return true;
	default:
		return false;
	}
}

static struct bpf_prog *entry_prog(const struct cg_entry *e)
{
	return e->prog ? e->prog : __atomic_load_n(&e->link->prog, __ATOMIC_RELAXED);
}

static u32 list_length(const struct cg_entry *e, u32 *preorder)
{
	u32 n = 0;

	for (; e; e = e->next, n++)
		if (preorder && (e->flags & F_PREORDER))
			(*preorder)++;
	return n;
}

/* Every entry of cg goes: programs are put, links left attached to nothing. */
static void cg_free(struct cg_bpf *cg)
{
	for (u32 t = 0; t < CG_ATYPES; t++)
		while (cg->progs[t]) {
			struct cg_entry *e = cg->progs[t];

			cg->progs[t] = e->next;
			if (e->prog)
				obj_put(&e->prog->obj);
			else
				__atomic_store_n(&e->link->cg, NULL, __ATOMIC_RELEASE);
			free(e);
		}
	cgroup_storage_release_cgroup(cg->id);
	free(cg->path);
	free(cg);
}

/* The kernel releases a removed cgroup's programs; userbpf does when it sees the directory gone
 * (or another there). */
static void cg_prune(void)
{
	for (struct cg_bpf **pp = &cg_list, *cg; (cg = *pp);) {
		struct stat st;

		if (!stat(cg->path, &st) && (u64)st.st_ino == cg->id) {
			pp = &cg->next;
			continue;
		}
		*pp = cg->next;
		cg_free(cg);
	}
}

static struct cg_bpf *cg_find(u64 id)
{
	for (struct cg_bpf *cg = cg_list; cg; cg = cg->next)
		if (cg->id == id)
			return cg;
	return NULL;
}

/* The cgroup fd names: its path in *path (PATH_MAX bytes) and its state in *out (made if
 * create, else NULL for one without).  -EBADF for an fd that is no cgroup2 directory, -ENOENT
 * for a removed one (the kernel's cgroup_get_from_fd()). */
static int cg_resolve(int fd, bool create, char *path, struct cg_bpf **out)
{
	char proc[64];
	struct cg_bpf *cg;
	ssize_t n;
	u64 id;
	int err = cgroup_fd_id(fd, &id);

	if (err || (id & CGROUP_V1_ID))
		return -EBADF;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, path, PATH_MAX - 1);
	if (n <= 0)
		return -EBADF;
	path[n] = 0;
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		return -ENOENT;
	cg = cg_find(id);
	if (!cg && create) {
		cg = calloc(1, sizeof(*cg));
		if (!cg || !(cg->path = strdup(path))) {
			free(cg);
			return -ENOMEM;
		}
		cg->id = id;
		for (u32 t = 0; t < CG_ATYPES; t++)
			cg->revisions[t] = 1;
		cg->next = cg_list;
		cg_list = cg;
	}
	*out = cg;
	return 0;
}

/* The states of the cgroup at path and of its ancestors on its cgroup2 mount, nearest first
 * (NULL for a cgroup without one): how many, at least 1 (the first is self). */
static int cg_chain(const char *path, struct cg_bpf *self, struct cg_bpf **chain)
{
	char p[PATH_MAX];
	struct stat st;
	dev_t dev = 0;
	int n = 0;

	snprintf(p, sizeof(p), "%s", path);
	chain[n++] = self;
	if (!stat(p, &st))
		dev = st.st_dev;
	while (n < CG_MAX_DEPTH) {
		char *slash = strrchr(p, '/');
		struct statfs sfs;

		if (!slash || slash == p)
			break;
		*slash = 0;
		if (stat(p, &st) || st.st_dev != dev || statfs(p, &sfs) ||
		    (u64)sfs.f_type != CGROUP2_SUPER_MAGIC)
			break;
		chain[n++] = cg_find((u64)st.st_ino);
	}
	return n;
}

static u32 cg_flags(const struct cg_bpf *cg, u32 t)
{
	return cg ? cg->flags[t] : 0;
}

static struct cg_entry *cg_progs(const struct cg_bpf *cg, u32 t)
{
	return cg ? cg->progs[t] : NULL;
}

/* An ancestor's single program that may not be overridden keeps the cgroups below it from
 * attaching their own (the kernel's hierarchy_allows_attach()). */
static bool hierarchy_allows_attach(struct cg_bpf **chain, int n, u32 t)
{
	for (int i = 1; i < n; i++) {
		u32 cnt;

		if (cg_flags(chain[i], t) & BPF_F_ALLOW_MULTI)
			return true;
		cnt = list_length(cg_progs(chain[i], t), NULL);
		if (cnt == 1)
			return cg_flags(chain[i], t) & BPF_F_ALLOW_OVERRIDE;
	}
	return true;
}

/* The effective programs of chain[0] for type t into *out (malloc'ed; NULL when none), as
 * compute_effective_progs() orders them: the cgroup's own, then each ancestor's while they allow
 * more (BPF_F_ALLOW_MULTI); BPF_F_PREORDER programs first, an ancestor's before a descendant's.
 * How many, or -ENOMEM. */
static int cg_effective(struct cg_bpf **chain, int n, u32 t, struct bpf_prog ***out)
{
	u32 cnt = 0, preorder = 0, fstart, bstart, init_bstart;
	struct bpf_prog **progs;

	*out = NULL;
	for (int i = 0; i < n; i++)
		if (!cnt || (cg_flags(chain[i], t) & BPF_F_ALLOW_MULTI))
			cnt += list_length(cg_progs(chain[i], t), &preorder);
	if (!cnt)
		return 0;
	progs = calloc(cnt, sizeof(*progs));
	if (!progs)
		return -ENOMEM;
	fstart = preorder;
	bstart = preorder; /* (one past the next preorder slot, counting down) */
	cnt = 0;
	for (int i = 0; i < n; i++) {
		if (cnt && !(cg_flags(chain[i], t) & BPF_F_ALLOW_MULTI))
			continue;
		init_bstart = bstart;
		for (struct cg_entry *e = cg_progs(chain[i], t); e; e = e->next, cnt++)
			if (e->flags & F_PREORDER)
				progs[--bstart] = entry_prog(e);
			else
				progs[fstart++] = entry_prog(e);
		/* this level's preorder programs in their own order */
		for (u32 a = bstart, b = init_bstart - 1; a < b && b != UINT32_MAX; a++, b--) {
			struct bpf_prog *tmp = progs[a];

			progs[a] = progs[b];
			progs[b] = tmp;
		}
	}
	*out = progs;
	return (int)cnt;
}

/* Where a new entry goes (the kernel's get_prog_list()): *at is the link to store it through.
 * With an anchor (a program or link by fd or id, BPF_F_BEFORE or _AFTER), next to it; else at
 * the head (BPF_F_BEFORE) or the tail. */
static int cg_insert_pos(struct cg_entry **head, struct bpf_prog *prog, struct bpf_link *link,
			 u32 flags, u32 id_or_fd, struct cg_entry ***at)
{
	bool is_link = flags & F_LINK, is_id = flags & F_ID, before = flags & F_BEFORE;
	bool after = flags & F_AFTER;
	struct bpf_object *anchor = NULL;
	struct cg_entry **pp;
	int err = 0;

	if (is_link || is_id || id_or_fd) {
		if (before == after)
			return -EINVAL;
		if ((is_link && !link) || (!is_link && !prog))
			return -EINVAL;
	} else if (*head && before && after) {
		return -EINVAL;
	}
	if (is_link || is_id || id_or_fd) {
		enum obj_kind kind = is_link ? OBJ_LINK : OBJ_PROG;

		if (is_id) {
			anchor = obj_get_by_id(kind, id_or_fd);
			err = -ENOENT;
		} else if (id_or_fd) {
			anchor = obj_get_from_fd((int)id_or_fd, kind, &err);
		} else {
			err = -EINVAL;
		}
		if (!anchor)
			return err;
	}
	if (!anchor) {
		for (pp = head; *pp && !before; pp = &(*pp)->next)
			;
		*at = pp;
		return 0;
	}
	err = -ENOENT;
	for (pp = head; *pp; pp = &(*pp)->next) {
		struct cg_entry *e = *pp;

		if (is_link ? !e->link || &e->link->obj != anchor
			    : !e->prog || &e->prog->obj != anchor)
			continue;
		if (!!(e->flags & F_PREORDER) != !!(flags & F_PREORDER)) {
			err = -EINVAL;
			break;
		}
		*at = before ? pp : &e->next;
		err = 0;
		break;
	}
	obj_put(anchor);
	return err;
}

/* The kernel's __cgroup_bpf_attach(): prog (with replace, for BPF_F_REPLACE) or link onto
 * chain[0]'s list of type t.  The cgroup keeps prog's reference on success; replace's is the
 * caller's. */
static int cg_attach(struct cg_bpf **chain, int n, struct bpf_prog *prog,
		     struct bpf_prog *replace, struct bpf_link *link, u32 t, u32 flags,
		     u32 id_or_fd, u64 revision)
{
	u32 saved = flags & (BPF_F_ALLOW_OVERRIDE | BPF_F_ALLOW_MULTI);
	bool multi = flags & BPF_F_ALLOW_MULTI;
	struct cg_bpf *cg = chain[0];
	struct cg_entry *pl = NULL, **at = NULL;
	struct bpf_prog *old = NULL;
	int err;

	if (((flags & BPF_F_ALLOW_OVERRIDE) && multi) || ((flags & BPF_F_REPLACE) && !multi))
		return -EINVAL;
	if ((flags & BPF_F_REPLACE) && (flags & (F_BEFORE | F_AFTER)))
		return -EINVAL;
	if (!!replace != !!(flags & BPF_F_REPLACE))
		return -EINVAL;
	if (t >= CG_ATYPES || t == ATTACH_LSM_CGROUP)
		return -EOPNOTSUPP; /* (LSM cgroup programs need trampolines: not loaded here) */
	if (revision && revision != cg->revisions[t])
		return -ESTALE;
	if (!hierarchy_allows_attach(chain, n, t))
		return -EPERM;
	if (cg->progs[t] && cg->flags[t] != saved)
		return -EPERM; /* the mode is the first attach's until the list empties */
	if (list_length(cg->progs[t], NULL) >= CG_MAX_PROGS)
		return -E2BIG;
	/* the entry to replace (the kernel's find_attach_entry()) */
	if (!multi) {
		pl = cg->progs[t];
	} else {
		for (struct cg_entry *e = cg->progs[t]; e; e = e->next) {
			if (prog && e->prog == prog && prog != replace)
				return -EINVAL; /* the same program twice */
			if (link && e->link == link)
				return -EINVAL;
		}
		if (replace) {
			for (pl = cg->progs[t]; pl && pl->prog != replace; pl = pl->next)
				;
			if (!pl)
				return -ENOENT;
		}
	}
	if (!pl) {
		err = cg_insert_pos(&cg->progs[t], prog, link, flags, id_or_fd, &at);
		if (err)
			return err;
	}
	/* the program's cgroup storage maps get a storage for this cgroup (kept after a detach,
	 * until the cgroup goes) */
	err = cgroup_storage_attach(prog ? prog : link->prog, cg->id, t);
	if (err)
		return err;
	if (pl) {
		old = pl->prog;
	} else {
		pl = calloc(1, sizeof(*pl));
		if (!pl)
			return -ENOMEM;
		pl->next = *at;
		*at = pl;
	}
	pl->prog = prog;
	pl->link = link;
	pl->flags = flags;
	cg->flags[t] = saved;
	cg->revisions[t]++;
	if (old)
		obj_put(&old->obj);
	return 0;
}

/* The kernel's __cgroup_bpf_detach(): prog or link (or, for a list that is not
 * BPF_F_ALLOW_MULTI, whatever is there) off cg's list of type t. */
static int cg_detach(struct cg_bpf *cg, struct bpf_prog *prog, struct bpf_link *link, u32 t,
		     u64 revision)
{
	struct cg_entry **pp, *pl;
	struct bpf_prog *old;

	if (t >= CG_ATYPES)
		return -EINVAL;
	if (revision && revision != (cg ? cg->revisions[t] : 1))
		return -ESTALE;
	if (!(cg_flags(cg, t) & BPF_F_ALLOW_MULTI)) {
		if (!cg_progs(cg, t))
			return -ENOENT;
		pp = &cg->progs[t]; /* (with any fd or none, as the kernel's legacy detach) */
	} else {
		if (!prog && !link)
			return -EINVAL;
		for (pp = &cg->progs[t]; *pp; pp = &(*pp)->next)
			if ((*pp)->prog == prog && (*pp)->link == link)
				break;
		if (!*pp)
			return -ENOENT;
	}
	pl = *pp;
	*pp = pl->next;
	cg->revisions[t]++;
	old = pl->prog;
	free(pl);
	if (!cg->progs[t])
		cg->flags[t] = 0;
	if (old)
		obj_put(&old->obj);
	return 0;
}

int cgroup_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct cg_bpf *chain[CG_MAX_DEPTH];
	struct bpf_prog *replace = NULL;
	char path[PATH_MAX];
	u32 relative;
	u64 revision;
	int err, n;

	memcpy(&relative, (const u8 *)attr + ATTR_ATTACH_RELATIVE, sizeof(relative));
	memcpy(&revision, (const u8 *)attr + ATTR_ATTACH_REVISION, sizeof(revision));
	pthread_mutex_lock(&cg_lock);
	cg_prune();
	err = cg_resolve((int)attr->target_fd, true, path, &chain[0]);
	if (err)
		goto out;
	if ((attr->attach_flags & BPF_F_ALLOW_MULTI) && (attr->attach_flags & BPF_F_REPLACE)) {
		replace = prog_get_type((int)attr->replace_bpf_fd, prog->type, &err);
		if (!replace)
			goto out;
	}
	n = cg_chain(path, chain[0], chain);
	err = cg_attach(chain, n, prog, replace, NULL,
			attr->attach_type, attr->attach_flags, relative, revision);
out:
	pthread_mutex_unlock(&cg_lock);
	if (replace)
		obj_put(&replace->obj);
	return err;
}

int cgroup_prog_detach(const union bpf_attr *attr, u32 ptype)
{
	struct bpf_object *obj;
	char path[PATH_MAX];
	struct cg_bpf *cg;
	u64 revision;
	int err;

	memcpy(&revision, (const u8 *)attr + ATTR_ATTACH_REVISION, sizeof(revision));
	pthread_mutex_lock(&cg_lock);
	cg_prune();
	err = cg_resolve((int)attr->target_fd, false, path, &cg);
	if (err) {
		pthread_mutex_unlock(&cg_lock);
		return err;
	}
	/* a program of another type, or no program: none (the kernel's detach by mode) */
	obj = obj_get_from_fd((int)attr->attach_bpf_fd, OBJ_PROG, &err);
	if (obj && prog_of(obj)->type != ptype) {
		obj_put(obj);
		obj = NULL;
	}
	if (attr->attach_type == ATTACH_LSM_CGROUP)
		err = -ENOENT; /* (nothing is: LSM cgroup programs are not loaded here) */
	else
		err = cg_detach(cg, obj ? prog_of(obj) : NULL, NULL, attr->attach_type, revision);
	pthread_mutex_unlock(&cg_lock);
	if (obj)
		obj_put(obj);
	return err;
}

int cgroup_prog_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u64 uflags_ptr = attr->query.prog_attach_flags, revision = 0;
	bool effective = attr->query.query_flags & BPF_F_QUERY_EFFECTIVE;
	u32 *ids = u64_to_ptr(attr->query.prog_ids), *uflags = u64_to_ptr(uflags_ptr);
	u32 t = attr->query.attach_type, flags = 0, total = 0;
	struct cg_bpf *chain[CG_MAX_DEPTH];
	struct bpf_prog **eff = NULL;
	char path[PATH_MAX];
	int err, n;

	pthread_mutex_lock(&cg_lock);
	cg_prune();
	err = cg_resolve((int)attr->query.target_fd, false, path, &chain[0]);
	if (err)
		goto out;
	err = -EINVAL;
	if (effective && uflags)
		goto out;
	if (t == ATTACH_LSM_CGROUP) {
		/* (every LSM hook's list, each empty here) */
		if (!effective && attr->query.prog_cnt && ids && !uflags)
			goto out;
	} else {
		if (t >= CG_ATYPES)
			goto out;
		if (effective) {
			n = cg_chain(path, chain[0], chain);
			err = cg_effective(chain, n, t, &eff);
			if (err < 0)
				goto out;
			total = (u32)err;
		} else {
			flags = cg_flags(chain[0], t);
			total = list_length(cg_progs(chain[0], t), NULL);
			revision = chain[0] ? chain[0]->revisions[t] : 1;
		}
	}
	memcpy(&uattr->query.attach_flags, &flags, sizeof(flags));
	memcpy(&uattr->query.prog_cnt, &total, sizeof(total));
	memcpy((u8 *)uattr + ATTR_QUERY_REVISION, &revision, sizeof(revision));
	err = 0;
	if (!attr->query.prog_cnt || !ids || !total)
		goto out;
	if (attr->query.prog_cnt < total) {
		total = attr->query.prog_cnt;
		err = -ENOSPC;
	}
	if (effective) {
		for (u32 i = 0; i < total; i++)
			ids[i] = eff[i]->obj.id;
	} else {
		u32 i = 0;

		for (struct cg_entry *e = chain[0]->progs[t]; e && i < total; e = e->next, i++) {
			ids[i] = entry_prog(e)->obj.id;
			if (uflags)
				uflags[i] = chain[0]->flags[t];
		}
	}
out:
	pthread_mutex_unlock(&cg_lock);
	free(eff);
	return err;
}

int cgroup_link_attach(struct bpf_link *link, const union bpf_attr *attr)
{
	struct cg_bpf *chain[CG_MAX_DEPTH];
	u32 flags = attr->link_create.flags, relative;
	char path[PATH_MAX];
	u64 revision;
	int err, n;

	if (flags & ~LINK_ATTACH_MASK)
		return -EINVAL;
	memcpy(&relative, (const u8 *)attr + ATTR_LINK_RELATIVE, sizeof(relative));
	memcpy(&revision, (const u8 *)attr + ATTR_LINK_REVISION, sizeof(revision));
	pthread_mutex_lock(&cg_lock);
	cg_prune();
	err = cg_resolve((int)attr->link_create.target_fd, true, path, &chain[0]);
	if (!err) {
		n = cg_chain(path, chain[0], chain);
		err = cg_attach(chain, n, NULL, NULL, link, link->attach_type,
				BPF_F_ALLOW_MULTI | flags, relative, revision);
	}
	if (!err) {
		link->cg_id = chain[0]->id;
		__atomic_store_n(&link->cg, chain[0], __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cg_lock);
	return err;
}

int cgroup_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old)
{
	struct bpf_prog *cur;
	struct cg_entry *e;
	int err = 0;

	pthread_mutex_lock(&cg_lock);
	cg_prune();
	cur = link->prog;
	if (!link->cg) {
		err = -ENOLINK; /* detached, or its cgroup gone */
		goto out;
	}
	if (old && cur != old) {
		err = -EPERM;
		goto out;
	}
	if (cur->type != new->type) {
		err = -EINVAL;
		goto out;
	}
	for (e = link->cg->progs[link->attach_type]; e && e->link != link; e = e->next)
		;
	if (!e) {
		err = -ENOENT;
		goto out;
	}
	/* the storage the cgroup has for the old program's maps must do for the new one's */
	if (memcmp(cur->cgroup_storage, new->cgroup_storage, sizeof(cur->cgroup_storage))) {
		err = -EINVAL;
		goto out;
	}
	link->cg->revisions[link->attach_type]++;
	__atomic_store_n(&link->prog, new, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&cg_lock);
	if (!err)
		obj_put(&cur->obj);
	return err;
}

void cgroup_link_release(struct bpf_link *link)
{
	pthread_mutex_lock(&cg_lock);
	if (link->cg) {
		cg_detach(link->cg, NULL, link, link->attach_type, 0);
		__atomic_store_n(&link->cg, NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cg_lock);
}

int cgroup_link_detach(struct bpf_link *link)
{
	cgroup_link_release(link);
	return 0;
}

u64 cgroup_link_cgroup_id(struct bpf_link *link)
{
	/* No lock: link info is read in a read section, and a command holding the lock may wait
	 * for the section to end (putting a program).  A cgroup removed since the last command
	 * still shows: the kernel's release of a dying cgroup comes later too. */
	return __atomic_load_n(&link->cg, __ATOMIC_ACQUIRE) ? link->cg_id : 0;
}
