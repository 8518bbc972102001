/* tcx: tc programs attached to a network device's ingress or egress (tcx_attach.c), by
 * BPF_PROG_ATTACH / _DETACH / _QUERY with the device's ifindex and by tcx links, in the order
 * 6.6's multi-program attach API keeps them (kernel/bpf/mprog.c: BPF_F_BEFORE / _AFTER relative
 * to a program or link by fd or id, BPF_F_REPLACE, revisions, 64 at most).  A device is an
 * ifindex of the calling thread's network namespace; no packet of user space runs them. */
#ifndef USERBPF_PROG_TCX_ATTACH_H
#define USERBPF_PROG_TCX_ATTACH_H

#include "prog/prog.h"

struct bpf_link;

/* BPF_PROG_ATTACH (prog: a reference the device keeps on success), BPF_PROG_DETACH (prog: the
 * one named, or NULL), BPF_PROG_QUERY; 0 or -errno. */
int tcx_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog);
int tcx_prog_detach(const union bpf_attr *attr, struct bpf_prog *prog);
int tcx_prog_query(const union bpf_attr *attr, union bpf_attr *uattr);

/* A tcx link (link->attach_type set) onto the device the attr names; its BPF_LINK_UPDATE (new:
 * a reference, kept on success), its leaving, its info's ifindex (0 once detached). */
int tcx_link_attach(struct bpf_link *link, const union bpf_attr *attr);
int tcx_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old);
void tcx_link_release(struct bpf_link *link);
u32 tcx_link_ifindex(struct bpf_link *link);

#endif
