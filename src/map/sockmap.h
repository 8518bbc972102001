/* Programs attached to socket maps (sockmap.c): sk_msg and sk_skb programs by BPF_PROG_ATTACH,
 * _DETACH and _QUERY with the map's fd as the target, and sockmap links (BPF_LINK_CREATE), one
 * program per attach type as 6.18's net/core/sock_map.c keeps them.  No socket's data runs them
 * in user space. */
#ifndef USERBPF_MAP_SOCKMAP_H
#define USERBPF_MAP_SOCKMAP_H

#include "prog/prog.h"

struct bpf_link;

/* BPF_PROG_ATTACH (prog: a reference, which the map keeps on success) and _DETACH; 0 or
 * -errno. */
int sockmap_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog);
int sockmap_prog_detach(const union bpf_attr *attr, u32 ptype);
/* BPF_PROG_QUERY: the attached program's id, if any, into uattr. */
int sockmap_prog_query(const union bpf_attr *attr, union bpf_attr *uattr);

/* A sockmap link (link->attach_type set) onto the map the attr names; its BPF_LINK_UPDATE (new:
 * a reference, kept on success), its leaving (BPF_LINK_DETACH or its last fd), its info's map
 * id (0 once detached). */
int sockmap_link_attach(struct bpf_link *link, const union bpf_attr *attr);
int sockmap_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old);
void sockmap_link_release(struct bpf_link *link);
u32 sockmap_link_map_id(struct bpf_link *link);

/* Whether a socket map holds the socket of cookie (the kernel's psock: in sk_user_data, which
 * keeps it out of reuseport arrays). */
bool sockmap_holds(u64 cookie);

#endif
