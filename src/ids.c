/* Object ids: BPF_{MAP,PROG,BTF}_GET_NEXT_ID and BPF_{MAP,PROG,BTF}_GET_FD_BY_ID.
 *
 * Ids are per process and per kind, from 1, never reused (the kernel's are system-wide, from an
 * idr).  The commands need CAP_SYS_ADMIN in the kernel; a library has nothing to check, so they
 * always work here.  An fd by id is a new open file of the object's memfd (fd.h), with the access
 * open_flags ask for, as the kernel's new file has its mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "fd.h"
#include "ids.h"

#ifndef BPF_F_TOKEN_FD
#define BPF_F_TOKEN_FD (1U << 16)
#endif

int obj_get_next_id(enum obj_kind kind, union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 next;

	if (attr->start_id >= INT_MAX)
		return -EINVAL;
	next = obj_next_id(kind, attr->start_id);
	if (!next)
		return -ENOENT;
	if (!uattr) /* (size 0: the kernel writes next_id all the same, to NULL) */
		return -EFAULT;
	memcpy(&uattr->next_id, &next, sizeof(next));
	return 0;
}

/* 6.18 answers a token (BPF_F_TOKEN_FD with fd_by_id_token_fd) only for BTF; userbpf has no
 * tokens, so one is a bad fd or a file that is not a token. */
static int token_check(const union bpf_attr *attr)
{
	s32 token;

	memcpy(&token, (const u8 *)attr + 12, sizeof(token));
	return fcntl(token, F_GETFD) < 0 ? -EBADF : -EINVAL;
}

int obj_get_fd_by_id(enum obj_kind kind, union bpf_attr *attr)
{
	struct bpf_object *obj;
	int access = OBJ_CAN_READ | OBJ_CAN_WRITE, fd;

	switch (kind) {
	case OBJ_MAP:
		if (attr->open_flags & ~(BPF_F_RDONLY | BPF_F_WRONLY))
			return -EINVAL;
		if ((attr->open_flags & BPF_F_RDONLY) && (attr->open_flags & BPF_F_WRONLY))
			return -EINVAL;
		access = attr->open_flags & BPF_F_RDONLY   ? OBJ_CAN_READ
			 : attr->open_flags & BPF_F_WRONLY ? OBJ_CAN_WRITE
							   : access;
		break;
	case OBJ_BTF:
		if (attr->open_flags & ~BPF_F_TOKEN_FD)
			return -EINVAL;
		if (attr->open_flags & BPF_F_TOKEN_FD)
			return token_check(attr);
		break;
	case OBJ_PROG:
		break;
	case OBJ_LINK:
		if (attr->open_flags)
			return -EINVAL;
		break;
	case OBJ_PERF_EVENT: /* (no bpf() command names them) */
	case OBJ_STATS:
		return -EINVAL;
	}
	obj = obj_get_by_id(kind, attr->map_id); /* (prog_id, btf_id: the same u32) */
	if (!obj)
		return -ENOENT;
	fd = obj_new_fd(obj, access);
	obj_put(obj);
	return fd;
}
