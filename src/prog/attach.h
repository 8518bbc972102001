/* BPF_PROG_ATTACH, BPF_PROG_DETACH and BPF_PROG_QUERY (attach.c): the kernel's checks of every
 * attach type, then the cgroup types' bookkeeping (cgroup_attach.c) or the socket maps'
 * (map/sockmap.c), the network namespaces' (netns_attach.c) or the devices' (tcx_attach.c).
 * The other attach targets (IR devices, netkit devices) are not in userbpf: their commands pass
 * the kernel's checks and then answer -EOPNOTSUPP. */
#ifndef USERBPF_PROG_ATTACH_H
#define USERBPF_PROG_ATTACH_H

#include "prog/prog.h"

/* The program type an attach type is for (the kernel's attach_type_to_prog_type()), or
 * BPF_PROG_TYPE_UNSPEC. */
u32 attach_type_to_prog_type(u32 attach_type);
/* Whether prog may attach as attach_type (bpf_prog_attach_check_attach_type()): 0 or -EINVAL. */
int prog_attach_check_attach_type(const struct bpf_prog *prog, u32 attach_type);
/* The program behind fd if it is of type, with a reference (the kernel's bpf_prog_get_type()):
 * NULL with *err -EBADF (no fd), -EINVAL (not a program, or of another type). */
struct bpf_prog *prog_get_type(int fd, u32 type, int *err);
/* Whether attach_type is tcx's (a device's ingress or egress). */
bool tcx_attach_type(u32 attach_type);

int prog_attach(const union bpf_attr *attr);
int prog_detach(const union bpf_attr *attr);
/* Results into uattr (its 64 bytes: syscall.c gives a short attr a scratch one). */
int prog_query(const union bpf_attr *attr, union bpf_attr *uattr);

#endif
