/* Object ids: the GET_NEXT_ID and GET_FD_BY_ID commands of bpf() (src/ids.c). */
#ifndef USERBPF_IDS_H
#define USERBPF_IDS_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include "fd.h"

/* BPF_{MAP,PROG,BTF}_GET_NEXT_ID: next_id written to uattr. */
int obj_get_next_id(enum obj_kind kind, union bpf_attr *attr, union bpf_attr *uattr);
/* BPF_{MAP,PROG,BTF}_GET_FD_BY_ID: the new fd, or -errno. */
int obj_get_fd_by_id(enum obj_kind kind, union bpf_attr *attr);

#endif
