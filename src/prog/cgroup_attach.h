/* Cgroup programs attached to cgroups (cgroup_attach.c): BPF_PROG_ATTACH, BPF_PROG_DETACH and
 * BPF_PROG_QUERY of the cgroup attach types, and cgroup links (BPF_LINK_CREATE), as 6.18's
 * kernel/bpf/cgroup.c keeps them: per cgroup v2 cgroup and attach type, a list of programs and
 * links, its mode (none, BPF_F_ALLOW_OVERRIDE, BPF_F_ALLOW_MULTI) and its revision; what a
 * cgroup's programs "effectively" are comes from its ancestors' lists.
 *
 * A cgroup is the directory of a cgroup2 mount, named by an fd; its id is the directory's inode
 * number (the kernel's cgroup id) and its ancestors are its parent directories on that mount.
 * No socket, device or sysctl hook calls into user space, so attached programs never run: the
 * bookkeeping is what bpf() shows of them, the kernel's, errno for errno.
 */
#ifndef USERBPF_PROG_CGROUP_ATTACH_H
#define USERBPF_PROG_CGROUP_ATTACH_H

#include "prog/prog.h"

struct bpf_link;

/* Whether programs of ptype attach to cgroups (the kernel's is_cgroup_prog_type(), LSM aside). */
bool cgroup_prog_type(u32 ptype);

/* BPF_PROG_ATTACH of prog (a reference, which the cgroup keeps on success) with attach flags
 * already checked against the type's mask; 0 or -errno. */
int cgroup_prog_attach(const union bpf_attr *attr, struct bpf_prog *prog);
/* BPF_PROG_DETACH for ptype; 0 or -errno. */
int cgroup_prog_detach(const union bpf_attr *attr, u32 ptype);
/* BPF_PROG_QUERY of a cgroup attach type (flags checked); 0 or -errno, results in uattr. */
int cgroup_prog_query(const union bpf_attr *attr, union bpf_attr *uattr);

/* BPF_LINK_CREATE of a cgroup program: link (its attach type set) onto the cgroup the attr names;
 * 0 or -errno. */
int cgroup_link_attach(struct bpf_link *link, const union bpf_attr *attr);
/* A cgroup link's BPF_LINK_UPDATE (new: a reference, the link's on success; old: NULL or the
 * program the caller expects), BPF_LINK_DETACH, and its leaving with its last fd. */
int cgroup_link_update(struct bpf_link *link, struct bpf_prog *new, struct bpf_prog *old);
int cgroup_link_detach(struct bpf_link *link);
void cgroup_link_release(struct bpf_link *link);
/* The cgroup id its info shows: 0 once detached (or its cgroup gone). */
u64 cgroup_link_cgroup_id(struct bpf_link *link);

#endif
