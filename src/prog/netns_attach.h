/* Programs attached to network namespaces (netns_attach.c): flow dissectors (BPF_PROG_ATTACH of
 * the calling thread's namespace, or a link) and socket lookup programs (links only), with
 * BPF_PROG_DETACH and BPF_PROG_QUERY, as 6.18's kernel/bpf/net_namespace.c keeps them.  A
 * namespace is its nsfs inode number; no packet or socket lookup of user space runs them. */
#ifndef USERBPF_PROG_NETNS_ATTACH_H
#define USERBPF_PROG_NETNS_ATTACH_H

#include "prog/prog.h"

struct bpf_link;

/* BPF_PROG_ATTACH of a flow dissector (prog: a reference the namespace keeps on success),
 * BPF_PROG_DETACH, BPF_PROG_QUERY (results into uattr); 0 or -errno. */
int netns_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog);
int netns_prog_detach(const union bpf_attr *attr, u32 ptype);
int netns_prog_query(const union bpf_attr *attr, union bpf_attr *uattr);

/* A netns link (link->attach_type set) onto the namespace the attr's fd names; its
 * BPF_LINK_UPDATE (new: a reference, kept on success), its leaving, its info's inode (0 once
 * detached). */
int netns_link_attach(struct bpf_link *link, const union bpf_attr *attr);
int netns_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old);
void netns_link_release(struct bpf_link *link);
u32 netns_link_ino(struct bpf_link *link);

#endif
