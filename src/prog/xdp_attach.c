/* xdp_attach.c — XDP links (xdp_attach.h).  Each device with a link has a struct xdp_dev, found
 * by (network namespace, ifindex), holding its generic-mode link; one lock serialises it all,
 * as the RTNL does.  userbpf does not see a device go: its link stays attached. */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "prog/link.h"
#include "prog/xdp_attach.h"

#define XDP_F_SKB_MODE (1u << 1)	/* XDP_FLAGS_SKB_MODE */
#define XDP_F_DRV_MODE (1u << 2)
#define XDP_F_HW_MODE (1u << 3)
#define XDP_F_MODES (XDP_F_SKB_MODE | XDP_F_DRV_MODE | XDP_F_HW_MODE)

struct xdp_dev {
	struct xdp_dev *next;
	u64 netns;
	u32 ifindex;
	struct bpf_link *link;	/* generic mode's */
};

static pthread_mutex_t xdp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xdp_dev *xdp_list;

static u64 netns_current(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) ? 0 : (u64)st.st_ino;
}

int xdp_link_attach(struct bpf_link *link, const union bpf_attr *attr)
{
	u32 flags = attr->link_create.flags, ifindex = attr->link_create.target_ifindex;
	char name[IF_NAMESIZE];
	struct xdp_dev *d;
	u64 ns;
	int err = 0;

	if (!ifindex || !if_indextoname(ifindex, name))
		return -EINVAL; /* (no such device, as bpf_xdp_link_attach() says) */
	if (flags & ~XDP_F_MODES)
		return -EINVAL; /* (a link takes only the mode flags) */
	if (__builtin_popcount(flags) > 1)
		return -EINVAL; /* (one mode at most) */
	ns = netns_current();
	pthread_mutex_lock(&xdp_lock);
	for (d = xdp_list; d && (d->netns != ns || d->ifindex != ifindex); d = d->next)
		;
	if (!(flags & (XDP_F_DRV_MODE | XDP_F_HW_MODE)) && d && d->link) {
		err = -EBUSY; /* (an active link is not replaced) */
		goto out;
	}
	if (flags & (XDP_F_DRV_MODE | XDP_F_HW_MODE)) {
		err = -EOPNOTSUPP; /* (no native or offloaded XDP: every device as the loopback) */
		goto out;
	}
	if (link->prog->expected_attach_type == BPF_XDP_DEVMAP ||
	    link->prog->expected_attach_type == BPF_XDP_CPUMAP) {
		err = -EINVAL; /* (a devmap's or cpumap's program runs from its map only) */
		goto out;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		err = -ENOMEM;
		if (!d)
			goto out;
		d->netns = ns;
		d->ifindex = ifindex;
		d->next = xdp_list;
		xdp_list = d;
		err = 0;
	}
	d->link = link;
	link->xdp_ifindex = ifindex;
	__atomic_store_n(&link->xdp, d, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&xdp_lock);
	return err;
}

int xdp_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old)
{
	struct bpf_prog *cur, *put = NULL;
	int err = 0;

	pthread_mutex_lock(&xdp_lock);
	cur = link->prog;
	if (!link->xdp)
		err = -ENOLINK;
	else if (old && cur != old)
		err = -EPERM;
	else if (cur->type != new->type || cur->expected_attach_type != new->expected_attach_type)
		err = -EINVAL;
	else if (cur == new)
		put = new; /* (nothing to change: the caller's reference goes) */
	else
		__atomic_store_n(&link->prog, new, __ATOMIC_RELEASE), put = cur;
	pthread_mutex_unlock(&xdp_lock);
	if (put)
		obj_put(&put->obj);
	return err;
}

void xdp_link_release(struct bpf_link *link)
{
	pthread_mutex_lock(&xdp_lock);
	if (link->xdp && link->xdp->link == link)
		link->xdp->link = NULL;
	__atomic_store_n(&link->xdp, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&xdp_lock);
}

u32 xdp_link_ifindex(struct bpf_link *link)
{
	return __atomic_load_n(&link->xdp, __ATOMIC_ACQUIRE) ? link->xdp_ifindex : 0;
}
