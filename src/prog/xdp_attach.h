/* XDP links (xdp_attach.c): an XDP program on a network device by BPF_LINK_CREATE (BPF_XDP with
 * the device's ifindex), as the kernel's bpf_xdp_link_attach() / dev_xdp_attach() keep them:
 * one link per device and mode.  userbpf takes every device as one without native XDP (the
 * kernel's loopback): programs attach in generic (skb) mode, native and offloaded modes are
 * EOPNOTSUPP.  No packet of user space runs them.  (Netlink attachment is not bpf()'s.) */
#ifndef USERBPF_PROG_XDP_ATTACH_H
#define USERBPF_PROG_XDP_ATTACH_H

#include "prog/prog.h"

struct bpf_link;

/* The link onto the device the attr names (link->prog the program); 0 or -errno.  Then its
 * BPF_LINK_UPDATE (new: a reference, kept on success), its leaving, its info's ifindex (0 once
 * detached). */
int xdp_link_attach(struct bpf_link *link, const union bpf_attr *attr);
int xdp_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old);
void xdp_link_release(struct bpf_link *link);
u32 xdp_link_ifindex(struct bpf_link *link);

#endif
