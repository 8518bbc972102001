/* netns_attach.c — programs attached to network namespaces (netns_attach.h).
 *
 * Each namespace userbpf has seen an attach for has a struct netns_bpf, found by its nsfs inode
 * number: per attach type (flow dissector, socket lookup) the program BPF_PROG_ATTACH put there
 * (flow dissectors only) or the links, in the order they came, which is the order the kernel
 * runs and lists them.  A program attached directly and links exclude each other; a flow
 * dissector may be attached once per namespace, and not both in the initial namespace and in
 * another (as far as userbpf's own attachments show), a socket lookup namespace has up to 64
 * links.  userbpf does not see a namespace end: its links stay attached until closed (the kernel
 * detaches them when the namespace goes).  One lock serialises it all, as netns_bpf_mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "map/map.h"
#include "prog/attach.h"
#include "prog/link.h"
#include "prog/netns_attach.h"

#define NSFS_MAGIC_NUMBER 0x6e736673
#define NS_GET_NSTYPE_REQ 0xb703	/* _IO(0xb7, 0x3) */
#define PROC_NET_INIT_INO 0xF0000098u	/* init_net's inode, the kernel's constant */

enum { NETNS_FLOW_DISSECTOR, NETNS_SK_LOOKUP, NETNS_TYPES };

struct netns_bpf {
	struct netns_bpf *next;
	u64 ino;
	struct bpf_prog *prog[NETNS_TYPES];	/* attached directly: a reference */
	struct bpf_link *links[NETNS_TYPES][64]; /* or these, in order */
	u32 nlinks[NETNS_TYPES];
};

static pthread_mutex_t ns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct netns_bpf *ns_list;

static int netns_type(u32 attach_type)
{
	return attach_type == BPF_FLOW_DISSECTOR ? NETNS_FLOW_DISSECTOR
	       : attach_type == BPF_SK_LOOKUP	 ? NETNS_SK_LOOKUP
						 : -EINVAL;
}

static struct netns_bpf *ns_find(u64 ino, bool create)
{
	struct netns_bpf *ns;

	for (ns = ns_list; ns; ns = ns->next)
		if (ns->ino == ino)
			return ns;
	if (!create || !(ns = calloc(1, sizeof(*ns))))
		return NULL;
	ns->ino = ino;
	ns->next = ns_list;
	ns_list = ns;
	return ns;
}

/* The network namespace an fd names (the kernel's get_net_ns_by_fd()): its inode, or -EBADF
 * (no fd), -EINVAL (another file, another kind of namespace). */
static int ns_of_fd(int fd, u64 *ino)
{
	struct statfs sfs;
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	if (fstatfs(fd, &sfs) || (u64)sfs.f_type != NSFS_MAGIC_NUMBER ||
	    ioctl(fd, NS_GET_NSTYPE_REQ) != CLONE_NEWNET)
		return -EINVAL;
	*ino = (u64)st.st_ino;
	return 0;
}

/* The calling thread's namespace. */
static u64 ns_current(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) ? PROC_NET_INIT_INO : (u64)st.st_ino;
}

static u32 ns_count(const struct netns_bpf *ns, int t)
{
	return ns->prog[t] ? 1 : ns->nlinks[t];
}

/* flow_dissector_bpf_prog_attach_check(): the initial namespace's flow dissector overrides the
 * others', so it may not join theirs, nor they it. */
static int flow_dissector_check(u64 ino)
{
	for (struct netns_bpf *ns = ns_list; ns; ns = ns->next) {
		if (ino == PROC_NET_INIT_INO ? ns->ino == PROC_NET_INIT_INO
					     : ns->ino != PROC_NET_INIT_INO)
			continue;
		if (ns_count(ns, NETNS_FLOW_DISSECTOR))
			return -EEXIST;
	}
	return 0;
}

int netns_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct bpf_prog *old = NULL;
	struct netns_bpf *ns;
	int t = netns_type(attr->attach_type), err;

	if (attr->target_fd || attr->attach_flags || attr->replace_bpf_fd)
		return -EINVAL;
	if (t < 0)
		return t;
	pthread_mutex_lock(&ns_lock);
	ns = ns_find(ns_current(), true);
	err = -ENOMEM;
	if (!ns)
		goto out;
	err = -EEXIST; /* (not beside links) */
	if (ns->nlinks[t])
		goto out;
	err = t == NETNS_FLOW_DISSECTOR ? flow_dissector_check(ns->ino) : -EINVAL;
	if (err)
		goto out;
	err = -EINVAL; /* (the same program twice) */
	if (ns->prog[t] == prog)
		goto out;
	old = ns->prog[t];
	ns->prog[t] = prog;
	err = 0;
out:
	pthread_mutex_unlock(&ns_lock);
	if (old)
		obj_put(&old->obj);
	return err;
}

int netns_prog_detach(const union bpf_attr *attr, u32 ptype)
{
	struct bpf_prog *prog;
	struct netns_bpf *ns;
	int t = netns_type(attr->attach_type), err;

	if (attr->target_fd)
		return -EINVAL;
	if (t < 0)
		return t;
	prog = prog_get_type((int)attr->attach_bpf_fd, ptype, &err);
	if (!prog)
		return err;
	pthread_mutex_lock(&ns_lock);
	ns = ns_find(ns_current(), false);
	err = -ENOENT;
	if (ns && ns->nlinks[t])
		err = -EINVAL; /* (a link's program goes with its link) */
	else if (ns && ns->prog[t] == prog)
		err = 0, ns->prog[t] = NULL;
	pthread_mutex_unlock(&ns_lock);
	if (!err)
		obj_put(&prog->obj); /* (the namespace's reference) */
	obj_put(&prog->obj);
	return err;
}

int netns_prog_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 *ids = u64_to_ptr(attr->query.prog_ids), cnt = 0, flags = 0, want;
	struct netns_bpf *ns;
	int t = netns_type(attr->query.attach_type), err;
	u64 ino;

	if (attr->query.query_flags)
		return -EINVAL;
	if (t < 0)
		return t;
	err = ns_of_fd((int)attr->query.target_fd, &ino);
	if (err)
		return err;
	pthread_mutex_lock(&ns_lock);
	ns = ns_find(ino, false);
	if (ns)
		cnt = ns_count(ns, t);
	memcpy(&uattr->query.attach_flags, &flags, sizeof(flags));
	memcpy(&uattr->query.prog_cnt, &cnt, sizeof(cnt));
	want = attr->query.prog_cnt;
	if (want && ids && cnt) {
		for (u32 i = 0; i < cnt && i < want; i++)
			ids[i] = ns->prog[t] ? ns->prog[t]->obj.id : ns->links[t][i]->prog->obj.id;
		if (want < cnt)
			err = -ENOSPC;
	}
	pthread_mutex_unlock(&ns_lock);
	return err;
}

int netns_link_attach(struct bpf_link *link, const union bpf_attr *attr)
{
	struct netns_bpf *ns;
	int t = netns_type(link->attach_type), err;
	u64 ino;

	if (attr->link_create.flags)
		return -EINVAL;
	if (t < 0)
		return t;
	err = ns_of_fd((int)attr->link_create.target_fd, &ino);
	if (err)
		return err;
	pthread_mutex_lock(&ns_lock);
	ns = ns_find(ino, true);
	err = -ENOMEM;
	if (!ns)
		goto out;
	err = -E2BIG; /* one flow dissector, 64 socket lookup programs */
	if (ns->nlinks[t] >= (t == NETNS_FLOW_DISSECTOR ? 1u : 64u))
		goto out;
	err = -EEXIST; /* (not beside a program attached directly) */
	if (ns->prog[t])
		goto out;
	err = t == NETNS_FLOW_DISSECTOR ? flow_dissector_check(ino) : 0;
	if (err)
		goto out;
	ns->links[t][ns->nlinks[t]++] = link;
	link->netns = ns;
	link->netns_ino = ino;
out:
	pthread_mutex_unlock(&ns_lock);
	return err;
}

int netns_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old)
{
	struct bpf_prog *cur;
	int err = 0;

	pthread_mutex_lock(&ns_lock);
	cur = link->prog;
	if (old && old != cur)
		err = -EPERM;
	else if (new->type != cur->type)
		err = -EINVAL;
	else if (!link->netns)
		err = -ENOLINK;
	else
		__atomic_store_n(&link->prog, new, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ns_lock);
	if (!err)
		obj_put(&cur->obj);
	return err;
}

void netns_link_release(struct bpf_link *link)
{
	struct netns_bpf *ns;

	pthread_mutex_lock(&ns_lock);
	ns = link->netns;
	if (ns) {
		int t = netns_type(link->attach_type);
		u32 i = 0;

		while (i < ns->nlinks[t] && ns->links[t][i] != link)
			i++;
		if (i < ns->nlinks[t]) {
			memmove(&ns->links[t][i], &ns->links[t][i + 1],
				(ns->nlinks[t] - i - 1) * sizeof(ns->links[t][0]));
			ns->nlinks[t]--;
		}
		__atomic_store_n(&link->netns, NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ns_lock);
}

u32 netns_link_ino(struct bpf_link *link)
{
	return __atomic_load_n(&link->netns, __ATOMIC_ACQUIRE) ? (u32)link->netns_ino : 0;
}
