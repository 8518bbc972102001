/* BPF_BTF_LOAD and the BTF object's life: the kernel's attr checks (btf_flags, token, size), the
 * log attributes (the verifier's rules: a buffer needs a size and a level), validation by
 * btf_check.c, the log's finalisation (ENOSPC when it did not fit, btf_log_true_size written
 * back when the caller's attr has room for it), then installation as a "bpf-btf" fd.
 *
 * Invariant: a failed load frees everything and leaves no fd; a loaded BTF is immutable and
 * lives until its last fd and holder (programs with func/line info) are gone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "verifier/env.h"

/* 6.18's BPF_BTF_LOAD fields beyond our uapi header. */
#define BTF_LOG_TRUE_SIZE_OFF 28u
#define BTF_FLAGS_OFF 32u
#ifndef BPF_F_TOKEN_FD
#define BPF_F_TOKEN_FD (1U << 16)
#endif

static void btf_free(struct btf *btf)
{
	btf_free_data(btf);
	free(btf->data);
	free(btf);
}

static void btf_destroy(struct bpf_object *obj)
{
	btf_free(btf_of(obj));
}

struct btf *btf_get_by_fd(int fd, int *err)
{
	struct bpf_object *obj = obj_get_from_fd(fd, OBJ_BTF, err);

	return obj ? btf_of(obj) : NULL;
}

void btf_put(struct btf *btf)
{
	if (btf)
		obj_put(&btf->obj);
}

static u32 next_btf_id; /* ids handed out so far */

int btf_load(union bpf_attr *attr, union bpf_attr *uattr, u32 usize)
{
	const u8 *data = u64_to_voidp(attr->btf);
	struct vlog log;
	struct btf *btf;
	u32 flags, true_size;
	int err, ferr, memfd;

	memcpy(&flags, (const u8 *)attr + BTF_FLAGS_OFF, sizeof(flags));
	if (flags & ~BPF_F_TOKEN_FD)
		return -EINVAL;
	/* BPF tokens do not exist in userbpf: whatever btf_token_fd is, it is not one. */
	if (flags & BPF_F_TOKEN_FD)
		return -EINVAL;
	if (attr->btf_size > BTF_MAX_SIZE)
		return -E2BIG;
	err = vlog_init(&log, attr->btf_log_level, attr->btf_log_buf, attr->btf_log_size);
	if (err)
		return err;
	btf = calloc(1, sizeof(*btf));
	if (!btf)
		return -ENOMEM;
	if (!data && attr->btf_size)
		err = -EFAULT;
	else
		err = btf_parse(btf, data, attr->btf_size, &log);
	/* ENOSPC (the log did not fit) replaces the verdict, as in the kernel */
	ferr = vlog_finalize(&log);
	if (ferr)
		err = ferr;
	true_size = log.level ? (u32)log.len_max : 0;
	if (usize >= BTF_LOG_TRUE_SIZE_OFF + sizeof(u32))
		memcpy((u8 *)uattr + BTF_LOG_TRUE_SIZE_OFF, &true_size, sizeof(true_size));
	if (err)
		goto free_btf;

	memfd = obj_memfd_create("bpf-btf");
	if (memfd < 0) {
		err = memfd;
		goto free_btf;
	}
	btf->data = malloc(attr->btf_size ? attr->btf_size : 1);
	if (!btf->data) {
		err = -ENOMEM;
		sys_close(memfd);
		goto free_btf;
	}
	memcpy(btf->data, data, attr->btf_size);
	btf->data_size = attr->btf_size;
	btf->obj.id = __atomic_add_fetch(&next_btf_id, 1, __ATOMIC_RELAXED);
	btf->obj.kind = OBJ_BTF;
	btf->obj.access = OBJ_CAN_READ | OBJ_CAN_WRITE;
	btf->obj.destroy = btf_destroy;
	err = obj_install(&btf->obj, memfd); /* closes memfd itself on failure */
	if (err < 0)
		goto free_btf;
	return err;

free_btf:
	btf_free(btf);
	return err;
}

/* The kernel's btf_get_info_by_fd(): the blob (as much as the caller's btf_size takes, the full
 * size reported), the id, and the name: "" for a BTF loaded by a program (name and name_len
 * must come together; a name buffer too short for it is ENOSPC). */
int btf_get_info(struct btf *btf, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_btf_info info, *uinfo = u64_to_voidp(attr->info.info);
	u32 info_len = attr->info.info_len, copy;
	char *uname;

	if (info_len > 4096)
		return -E2BIG;
	if (info_len && !uinfo)
		return -EFAULT;
	for (u32 i = sizeof(info); i < info_len; i++)
		if (((const u8 *)uinfo)[i])
			return -E2BIG;
	copy = info_len < sizeof(info) ? info_len : sizeof(info);
	memset(&info, 0, sizeof(info));
	if (copy)
		memcpy(&info, uinfo, copy);
	info.id = btf->obj.id;
	if (info.btf_size) {
		void *ubtf = u64_to_voidp(info.btf);

		if (!ubtf)
			return -EFAULT;
		memcpy(ubtf, btf->data, info.btf_size < btf->data_size ? info.btf_size
									 : btf->data_size);
	}
	info.btf_size = btf->data_size;
	info.kernel_btf = 0;
	uname = u64_to_voidp(info.name);
	if (!uname != !info.name_len)
		return -EINVAL;
	info.name_len = 0;
	if (uname)
		uname[0] = 0;
	if (copy)
		memcpy(uinfo, &info, copy);
	memcpy(&uattr->info.info_len, &copy, sizeof(copy));
	return 0;
}
