/* tcx_attach.c — tc programs on devices' ingress and egress (tcx_attach.h).
 *
 * Each device and direction with programs has a struct tcx_entry, found by (network namespace,
 * ifindex, direction): its programs in run order, each with the link that put it there, if one
 * did, and a revision every change bumps (1 for a new entry; an entry that empties goes, and its
 * revision with it, as the kernel frees it).  The list operations are the kernel's
 * bpf_mprog_attach() / _detach() / _query() rules, position by position.  userbpf does not see a
 * device go: its programs stay attached.  One lock serialises it all, as the RTNL does.
 */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "map/map.h"
#include "prog/attach.h"
#include "prog/link.h"
#include "prog/tcx_attach.h"

#define MPROG_MAX 64
#define ATTACH_TCX_INGRESS 46u

/* 6.18's flags and attr fields past Debian 12's uapi header */
#define F_BEFORE (1u << 3)
#define F_AFTER (1u << 4)
#define F_ID (1u << 5)
#define F_LINK (1u << 13)
#define ATTR_ATTACH_RELATIVE 20	/* BPF_PROG_ATTACH/DETACH: relative_fd / relative_id */
#define ATTR_ATTACH_REVISION 24	/* ... expected_revision */
#define ATTR_LINK_RELATIVE 16	/* BPF_LINK_CREATE: link_create.tcx.relative_fd / _id */
#define ATTR_LINK_REVISION 24	/* ... expected_revision */
#define ATTR_QUERY_REVISION 56	/* BPF_PROG_QUERY: query.revision (out) */
#define ATTR_QUERY_LINK_IDS 40	/* query.link_ids */
#define ATTR_QUERY_LINK_FLAGS 48 /* query.link_attach_flags */

struct tcx_entry {
	struct tcx_entry *next;
	u64 netns;
	u32 ifindex;
	bool ingress;
	u64 revision;
	u32 count;
	struct bpf_prog *prog[MPROG_MAX];	/* a reference each, unless link[i] holds it */
	struct bpf_link *link[MPROG_MAX];
};

/* A program and the link it came by (the kernel's struct bpf_tuple), with the reference of
 * whichever was looked up. */
struct tuple {
	struct bpf_prog *prog;
	struct bpf_link *link;
	struct bpf_object *ref;
};

static pthread_mutex_t tcx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcx_entry *tcx_list;

static u64 netns_current(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) ? 0 : (u64)st.st_ino;
}

/* Whether ifindex is a device of the calling thread's namespace. */
static bool dev_exists(u32 ifindex)
{
	char name[IF_NAMESIZE];

	return ifindex && if_indextoname(ifindex, name) != NULL;
}

static struct tcx_entry **entry_link(u32 ifindex, bool ingress)
{
	u64 ns = netns_current();
	struct tcx_entry **pp;

	for (pp = &tcx_list; *pp; pp = &(*pp)->next)
		if ((*pp)->netns == ns && (*pp)->ifindex == ifindex && (*pp)->ingress == ingress)
			break;
	return pp;
}

static struct tcx_entry *entry_fetch_or_create(u32 ifindex, bool ingress, bool *created)
{
	struct tcx_entry **pp = entry_link(ifindex, ingress), *e = *pp;

	*created = false;
	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->netns = netns_current();
	e->ifindex = ifindex;
	e->ingress = ingress;
	e->revision = 1;
	*pp = e;
	*created = true;
	return e;
}

/* An entry that is empty goes (its revision with it). */
static void entry_drop_if_empty(struct tcx_entry *e)
{
	if (e->count)
		return;
	for (struct tcx_entry **pp = &tcx_list; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			free(e);
			return;
		}
}

/* bpf_mprog_tuple_relative(): the program or link id_or_fd names (by id with BPF_F_ID, by fd
 * else; a link with BPF_F_LINK), of type when type is set; nothing without either. */
static int tuple_relative(struct tuple *t, u32 id_or_fd, u32 flags, u32 type)
{
	bool id = flags & F_ID;
	int err = -EINVAL;

	memset(t, 0, sizeof(*t));
	if (flags & F_LINK) {
		if (id) {
			t->ref = obj_get_by_id(OBJ_LINK, id_or_fd);
			err = -ENOENT;
		} else if (id_or_fd) {
			t->ref = obj_get_from_fd((int)id_or_fd, OBJ_LINK, &err);
		}
		if (!t->ref)
			return err;
		t->link = link_of(t->ref);
		t->prog = t->link->prog;
	} else {
		if (!id && !id_or_fd)
			return 0;
		if (id) {
			t->ref = obj_get_by_id(OBJ_PROG, id_or_fd);
			err = -ENOENT;
		} else {
			t->ref = obj_get_from_fd((int)id_or_fd, OBJ_PROG, &err);
		}
		if (!t->ref)
			return err;
		t->prog = prog_of(t->ref);
	}
	if (type && t->prog->type != type) {
		obj_put(t->ref);
		t->ref = NULL;
		return -EINVAL;
	}
	return 0;
}

static int pos_exact(const struct tcx_entry *e, const struct tuple *t)
{
	for (u32 i = 0; i < e->count; i++)
		if (t->prog == e->prog[i])
			return t->link == e->link[i] ? (int)i : -EBUSY;
	return -ENOENT;
}

static int pos_before(const struct tcx_entry *e, const struct tuple *t)
{
	for (u32 i = 0; i < e->count; i++)
		if (t->prog == e->prog[i] && (!t->link || t->link == e->link[i]))
			return (int)i - 1;
	return t->prog ? -ENOENT : -1;
}

static int pos_after(const struct tcx_entry *e, const struct tuple *t)
{
	for (u32 i = 0; i < e->count; i++)
		if (t->prog == e->prog[i] && (!t->link || t->link == e->link[i]))
			return (int)i + 1;
	return t->prog ? -ENOENT : (int)e->count;
}

/* The position the flags and the relative object agree on (idx: the exact one found so far,
 * or -ERANGE); the flags left in *flags (BPF_F_AFTER where none chose). */
static int agreed_pos(const struct tcx_entry *e, const struct tuple *r, int idx, u32 *flags)
{
	int t;

	if (*flags & F_BEFORE) {
		t = pos_before(e, r);
		if (t < -1 || (idx >= -1 && t != idx))
			return t < -1 ? t : -ERANGE;
		idx = t;
	}
	if (*flags & F_AFTER) {
		t = pos_after(e, r);
		if (t < -1 || (idx >= -1 && t != idx))
			return t < 0 ? t : -ERANGE;
		idx = t;
	}
	if (idx < -1) {
		if (r->prog || *flags)
			return -EINVAL;
		idx = (int)e->count;
		*flags = F_AFTER;
	}
	return idx >= MPROG_MAX ? -ERANGE : idx;
}

/* bpf_mprog_attach(): prog (by link, or with old to replace) into e; the programs put that the
 * change let go into *put.  0 or -errno. */
static int mprog_attach(struct tcx_entry *e, struct bpf_prog *prog, struct bpf_link *link,
			struct bpf_prog *old, u32 flags, u32 id_or_fd, u64 revision,
			struct bpf_prog **put)
{
	struct tuple r, o = { old, link, NULL };
	int idx = -ERANGE, err;

	*put = NULL;
	if (revision && revision != e->revision)
		return -ESTALE;
	for (u32 i = 0; i < e->count; i++)
		if (e->prog[i] == prog)
			return -EEXIST;
	err = tuple_relative(&r, id_or_fd, flags & ~BPF_F_REPLACE, prog->type);
	if (err)
		return err;
	if (flags & BPF_F_REPLACE) {
		idx = pos_exact(e, &o);
		if (idx < 0) {
			err = idx;
			goto out;
		}
	}
	idx = agreed_pos(e, &r, idx, &flags);
	if (idx < -1) {
		err = idx;
		goto out;
	}
	if (flags & BPF_F_REPLACE) {
		if (!link)
			*put = e->prog[idx];
		e->prog[idx] = prog;
		e->link[idx] = link;
	} else {
		u32 tail;

		if (idx != (int)e->count && (flags & F_BEFORE))
			idx++;
		tail = e->count - (u32)idx;
		memmove(&e->prog[idx + 1], &e->prog[idx], tail * sizeof(e->prog[0]));
		memmove(&e->link[idx + 1], &e->link[idx], tail * sizeof(e->link[0]));
		e->prog[idx] = prog;
		e->link[idx] = link;
		e->count++;
	}
	e->revision++;
	err = 0;
out:
	if (r.ref)
		obj_put(r.ref);
	return err;
}

/* bpf_mprog_detach(): prog (by link, or the one the flags and relative object name) out of e;
 * the program put that it let go into *put. */
static int mprog_detach(struct tcx_entry *e, struct bpf_prog *prog, struct bpf_link *link,
			u32 flags, u32 id_or_fd, u64 revision, struct bpf_prog **put)
{
	struct tuple r, d = { prog, link, NULL };
	int idx = -ERANGE, err;

	*put = NULL;
	if (flags & BPF_F_REPLACE)
		return -EINVAL;
	if (revision && revision != e->revision)
		return -ESTALE;
	err = tuple_relative(&r, id_or_fd, flags, prog ? prog->type : 0);
	if (err)
		return err;
	if (prog) {
		idx = pos_exact(e, &d);
		if (idx < 0) {
			err = idx;
			goto out;
		}
	}
	idx = agreed_pos(e, &r, idx, &flags);
	if (idx < -1) {
		err = idx;
		goto out;
	}
	/* bpf_mprog_fetch(): the front or back one for an edge position; a link's program goes
	 * only with its link */
	if (idx == -1)
		idx = 0;
	else if (idx == (int)e->count)
		idx = (int)e->count - 1;
	err = -EBUSY;
	if (idx < 0 || (e->link[idx] && !link))
		goto out;
	if (!e->link[idx])
		*put = e->prog[idx];
	memmove(&e->prog[idx], &e->prog[idx + 1], (e->count - (u32)idx - 1) * sizeof(e->prog[0]));
	memmove(&e->link[idx], &e->link[idx + 1], (e->count - (u32)idx - 1) * sizeof(e->link[0]));
	e->count--;
	e->revision++;
	err = 0;
out:
	if (r.ref)
		obj_put(r.ref);
	return err;
}

/* mprog_attach() on the device's list of that direction, made if it has none (and dropped
 * again if the attach fails), with the lock held; ifindex must name a device (-ENODEV). */
static int entry_attach(u32 ifindex, bool ingress, struct bpf_prog *prog, struct bpf_link *link,
			struct bpf_prog *old, u32 flags, u32 relative, u64 revision,
			struct bpf_prog **put)
{
	struct tcx_entry *e;
	bool created;
	int err;

	*put = NULL;
	if (!dev_exists(ifindex))
		return -ENODEV;
	e = entry_fetch_or_create(ifindex, ingress, &created);
	if (!e)
		return -ENOMEM;
	err = mprog_attach(e, prog, link, old, flags, relative, revision, put);
	if (err && created)
		entry_drop_if_empty(e);
	if (!err && link) {
		link->tcx_ifindex = ifindex;
		__atomic_store_n(&link->tcx, e, __ATOMIC_RELEASE);
	}
	return err;
}

int tcx_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	u32 ifindex = attr->target_fd; /* (6.6's target_ifindex) */
	struct bpf_prog *replace = NULL;
	struct bpf_prog *put = NULL;
	u32 relative;
	u64 revision;
	int err;

	memcpy(&relative, (const u8 *)attr + ATTR_ATTACH_RELATIVE, sizeof(relative));
	memcpy(&revision, (const u8 *)attr + ATTR_ATTACH_REVISION, sizeof(revision));
	pthread_mutex_lock(&tcx_lock);
	err = -ENODEV;
	if (!dev_exists(ifindex))
		goto out;
	if (attr->attach_flags & BPF_F_REPLACE) {
		replace = prog_get_type((int)attr->replace_bpf_fd, prog->type, &err);
		if (!replace)
			goto out;
	}
	err = entry_attach(ifindex, attr->attach_type == ATTACH_TCX_INGRESS, prog, NULL,
			   replace, attr->attach_flags, relative,
			   revision, &put);
out:
	pthread_mutex_unlock(&tcx_lock);
	if (replace)
		obj_put(&replace->obj);
	if (put)
		obj_put(&put->obj);
	return err;
}

int tcx_prog_detach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	bool ingress = attr->attach_type == ATTACH_TCX_INGRESS;
	u32 ifindex = attr->target_fd; /* (6.6's target_ifindex) */
	struct bpf_prog *put = NULL;
	struct tcx_entry *e;
	u32 relative;
	u64 revision;
	int err;

	memcpy(&relative, (const u8 *)attr + ATTR_ATTACH_RELATIVE, sizeof(relative));
	memcpy(&revision, (const u8 *)attr + ATTR_ATTACH_REVISION, sizeof(revision));
	pthread_mutex_lock(&tcx_lock);
	err = -ENODEV;
	if (!dev_exists(ifindex))
		goto out;
	e = *entry_link(ifindex, ingress);
	err = -ENOENT;
	if (!e)
		goto out;
	err = mprog_detach(e, prog, NULL, attr->attach_flags, relative, revision, &put);
	if (!err)
		entry_drop_if_empty(e);
out:
	pthread_mutex_unlock(&tcx_lock);
	if (put)
		obj_put(&put->obj);
	return err;
}

int tcx_prog_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	bool ingress = attr->query.attach_type == ATTACH_TCX_INGRESS;
	u32 *ids = u64_to_ptr(attr->query.prog_ids), *pflags, *lids, *lflags;
	u32 count = 0, flags = 0, want = attr->query.prog_cnt;
	u32 ifindex = attr->query.target_fd; /* (6.6's target_ifindex) */
	u64 revision = 1, p;
	struct tcx_entry *e;
	int err = 0;

	pflags = u64_to_ptr(attr->query.prog_attach_flags);
	memcpy(&p, (const u8 *)attr + ATTR_QUERY_LINK_IDS, 8);
	lids = u64_to_ptr(p);
	memcpy(&p, (const u8 *)attr + ATTR_QUERY_LINK_FLAGS, 8);
	lflags = u64_to_ptr(p);
	pthread_mutex_lock(&tcx_lock);
	if (!dev_exists(ifindex)) {
		err = -ENODEV;
		goto out;
	}
	if (attr->query.query_flags || attr->query.attach_flags) {
		err = -EINVAL;
		goto out;
	}
	e = *entry_link(ifindex, ingress);
	if (e) {
		revision = e->revision;
		count = e->count;
	}
	memcpy(&uattr->query.attach_flags, &flags, sizeof(flags));
	memcpy((u8 *)uattr + ATTR_QUERY_REVISION, &revision, sizeof(revision));
	memcpy(&uattr->query.prog_cnt, &count, sizeof(count));
	if (!want || !ids || !count)
		goto out;
	if (want < count) {
		count = want;
		err = -ENOSPC;
	}
	for (u32 i = 0; i < count; i++) {
		ids[i] = e->prog[i]->obj.id;
		if (pflags)
			pflags[i] = 0;
		if (lids)
			lids[i] = e->link[i] ? e->link[i]->obj.id : 0;
		if (lflags)
			lflags[i] = 0;
	}
out:
	pthread_mutex_unlock(&tcx_lock);
	return err;
}

int tcx_link_attach(struct bpf_link *link, const union bpf_attr *attr)
{
	struct bpf_prog *put;
	u32 relative;
	u64 revision;
	int err;

	memcpy(&relative, (const u8 *)attr + ATTR_LINK_RELATIVE, sizeof(relative));
	memcpy(&revision, (const u8 *)attr + ATTR_LINK_REVISION, sizeof(revision));
	pthread_mutex_lock(&tcx_lock);
	err = entry_attach(attr->link_create.target_ifindex,
			   link->attach_type == ATTACH_TCX_INGRESS, link->prog, link, NULL,
			   attr->link_create.flags, relative, revision, &put);
	pthread_mutex_unlock(&tcx_lock);
	if (put)
		obj_put(&put->obj);
	return err;
}

int tcx_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old)
{
	struct bpf_prog *cur = link->prog, *put = NULL;
	int err = 0;

	pthread_mutex_lock(&tcx_lock);
	if (!link->tcx)
		err = -ENOLINK;
	else if (old && cur != old)
		err = -EPERM;
	else if (new == cur)
		put = new; /* (nothing to change: the caller's reference goes) */
	else
		err = mprog_attach(link->tcx, new, link, cur, BPF_F_REPLACE, 0, 0, &put);
	if (!err && new != cur)
		__atomic_store_n(&link->prog, new, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&tcx_lock);
	if (!err && new != cur)
		put = cur; /* (the link's old program; a link's slot holds none of its own) */
	if (put)
		obj_put(&put->obj);
	return err;
}

void tcx_link_release(struct bpf_link *link)
{
	struct bpf_prog *put = NULL;
	struct tcx_entry *e;

	pthread_mutex_lock(&tcx_lock);
	e = link->tcx;
	if (e && !mprog_detach(e, link->prog, link, 0, 0, 0, &put))
		entry_drop_if_empty(e);
	__atomic_store_n(&link->tcx, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&tcx_lock);
	if (put)
		obj_put(&put->obj);
}

u32 tcx_link_ifindex(struct bpf_link *link)
{
	/* (no lock: link info is read in a read section, and a command holding the lock may put
	 * an object, which waits for the section to end) */
	return __atomic_load_n(&link->tcx, __ATOMIC_ACQUIRE) ? link->tcx_ifindex : 0;
}
