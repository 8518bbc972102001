/* The bpf() entry point: the kernel's attr contract, then one switch over commands.
 *
 * The contract (kernel/bpf/syscall.c): a size over a page is E2BIG; bytes the caller passed beyond
 * our union must be zero (E2BIG); the copy we work on is zero-filled past the caller's size; and
 * every byte after the command's last field must be zero (EINVAL).  Internal functions return
 * negative errno; this is the one place that turns it into -1 and errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <userbpf.h>

#include "btf/btf.h"
#include "exec/bpf_timer.h"
#include "ids.h"
#include "pin.h"
#include "syscall.h"
#include "map/map.h"
#include "prog/link.h"
#include "prog/attach.h"
#include "prog/prog.h"
#include "rcu.h"

#define PAGE_SIZE_ATTR 4096u

/* Commands of Linux 6.18 (through BPF_PROG_STREAM_READ_BY_FD = 37); our uapi header may be older. */
#define KERNEL_BPF_CMDS 38
#define CMD_TOKEN_CREATE 36
#define CMD_PROG_STREAM_READ_BY_FD 37

#define ATTR_END(field) (offsetof(union bpf_attr, field) + sizeof(((union bpf_attr *)0)->field))

/* Bytes up to KERNEL_ATTR_SIZE (syscall.h) are inside the kernel's union (EINVAL when set after a
 * command's last field), bytes beyond it are the caller's tail (E2BIG when set). */
/* BPF_MAP_CREATE ends there in 6.18: value_type_btf_obj_fd and map_token_fd (72..79, read only
 * with flags userbpf refuses), then excl_prog_hash and its size (80..91). */
#define MAP_CREATE_ATTR_END 92u

/* BPF_BTF_LOAD ends at btf_token_fd (36..39) in 6.18. */
#define BTF_LOAD_ATTR_END 40u

/* Where each command's attr ends; 0: a command userbpf does not know. */
static const u32 cmd_attr_end[] = {
	[BPF_MAP_CREATE] = MAP_CREATE_ATTR_END,
	[BPF_MAP_LOOKUP_ELEM] = ATTR_END(flags),
	[BPF_MAP_UPDATE_ELEM] = ATTR_END(flags),
	[BPF_MAP_DELETE_ELEM] = ATTR_END(key),
	[BPF_MAP_GET_NEXT_KEY] = ATTR_END(next_key),
	[BPF_MAP_LOOKUP_AND_DELETE_ELEM] = ATTR_END(flags),
	[BPF_MAP_LOOKUP_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_LOOKUP_AND_DELETE_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_UPDATE_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_DELETE_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_FREEZE] = ATTR_END(map_fd),
	/* 6.18's PROG_LOAD runs to keyring_id, beyond our uapi union: log_true_size (140),
	 * prog_token_fd (144), fd_array_cnt (148), signature (152), signature_size (160),
	 * keyring_id (164).  load.c reads them from the raw bytes. */
	[BPF_PROG_LOAD] = KERNEL_ATTR_SIZE,
	[BPF_PROG_TEST_RUN] = ATTR_END(test.batch_size),
	/* 6.18's ATTACH and DETACH end at expected_revision (24..31), after relative_fd (20),
	 * its QUERY at query.revision (56..63): beyond our uapi union (attach.c reads them) */
	[BPF_PROG_ATTACH] = 32,
	[BPF_PROG_DETACH] = 32,
	[BPF_PROG_QUERY] = 64,
	[BPF_TASK_FD_QUERY] = ATTR_END(task_fd_query.probe_addr),
	/* 6.18's BTF_LOAD ends at btf_token_fd, after btf_log_true_size (28) and btf_flags (32),
	 * beyond our uapi union; btf.c reads them from the raw bytes. */
	[BPF_BTF_LOAD] = BTF_LOAD_ATTR_END,
	[BPF_OBJ_GET_INFO_BY_FD] = ATTR_END(info.info),
	[BPF_MAP_GET_NEXT_ID] = ATTR_END(next_id),
	[BPF_PROG_GET_NEXT_ID] = ATTR_END(next_id),
	[BPF_BTF_GET_NEXT_ID] = ATTR_END(next_id),
	/* 6.18: a map's ends at open_flags, a program's at its id, a BTF object's at
	 * fd_by_id_token_fd (12..15), beyond our uapi union (ids.c reads it raw) */
	[BPF_MAP_GET_FD_BY_ID] = ATTR_END(open_flags),
	[BPF_PROG_GET_FD_BY_ID] = ATTR_END(prog_id),
	[BPF_BTF_GET_FD_BY_ID] = 16,
	/* pathname, bpf_fd, file_flags, then 6.18's path_fd (16..19, beyond our uapi union) */
	[BPF_OBJ_PIN] = 20,
	[BPF_OBJ_GET] = 20,
	[BPF_ENABLE_STATS] = ATTR_END(enable_stats.type),
	[BPF_PROG_BIND_MAP] = ATTR_END(prog_bind_map.flags),
	/* name, prog_fd, then 6.10's cookie (16..23, beyond our uapi union) */
	[BPF_RAW_TRACEPOINT_OPEN] = 24,
	/* 6.18's ends at link_create.uprobe_multi.pid (56..59) */
	[BPF_LINK_CREATE] = 60,
	[BPF_LINK_UPDATE] = ATTR_END(link_update.old_prog_fd),
	[BPF_LINK_DETACH] = ATTR_END(link_detach.link_fd),
	[BPF_LINK_GET_FD_BY_ID] = ATTR_END(link_id),
	[BPF_LINK_GET_NEXT_ID] = ATTR_END(next_id),
	[BPF_ITER_CREATE] = ATTR_END(iter_create.flags),
	/* 6.9's token_create: flags, bpffs_fd */
	[CMD_TOKEN_CREATE] = 8,
	/* 6.17's prog_stream_read: stream_buf, stream_buf_len, stream_id, prog_fd */
	[CMD_PROG_STREAM_READ_BY_FD] = 20,
};

/* Whether n bytes at p are all zero.  bpf() runs this on every call over the ~100 bytes after
 * the command's fields, so it ORs 16-byte vectors (SSE2 on x86-64; plain words elsewhere). */
static inline bool all_zero(const void *p, size_t n)
{
	typedef u64 v2u64 __attribute__((vector_size(16)));
	const u8 *b = p;
	v2u64 acc = { 0, 0 }, v;
	u64 w = 0;

	for (; n >= 16; n -= 16, b += 16) {
		memcpy(&v, b, 16);
		acc |= v;
	}
	for (; n >= 8; n -= 8, b += 8) {
		u64 x;

		memcpy(&x, b, 8);
		w |= x;
	}
	while (n--)
		w |= *b++;
	return !(acc[0] | acc[1] | w);
}

/* BPF_OBJ_GET_INFO_BY_FD: a program's, a map's, a BTF object's or a link's info (any other file is
 * EINVAL); a closed fd is EBADFD, as the kernel says.  info_len
 * goes back into the caller's attr as far as its size reaches. */
static int obj_get_info(union bpf_attr *attr, union bpf_attr *uattr, u32 size)
{
	union bpf_attr scratch;
	struct bpf_object *obj;
	int err;

	if (size < ATTR_END(info.info_len))
		uattr = &scratch;
	rcu_read_lock();
	obj = obj_from_fd((int)attr->info.bpf_fd, OBJ_PROG, &err);
	if (obj) {
		err = prog_get_info(prog_of(obj), attr, uattr);
	} else if (err == -EINVAL) {
		obj = obj_from_fd((int)attr->info.bpf_fd, OBJ_MAP, &err);
		if (obj)
			err = map_get_info(map_of(obj), attr, uattr);
	}
	if (!obj && err == -EINVAL) {
		obj = obj_from_fd((int)attr->info.bpf_fd, OBJ_BTF, &err);
		if (obj)
			err = btf_get_info(btf_of(obj), attr, uattr);
	}
	if (!obj && err == -EINVAL) {
		obj = obj_from_fd((int)attr->info.bpf_fd, OBJ_LINK, &err);
		if (obj)
			err = link_get_info(link_of(obj), attr, uattr);
	}
	rcu_read_unlock();
	return err == -EBADF ? -EBADFD : err;
}

/* A command whose results go into its attr's fields, up to end: into the caller's attr as far as
 * its size reaches (the kernel writes them whatever the size; userbpf writes no byte of the
 * caller's memory past it). */
static int with_out_fields(int (*cmd)(const union bpf_attr *, union bpf_attr *),
			   const union bpf_attr *attr, union bpf_attr *uattr, u32 size, u32 end)
{
	union kernel_attr scratch;
	int err;

	if (size >= end)
		return cmd(attr, uattr);
	memset(&scratch, 0, sizeof(scratch));
	if (size)
		memcpy(&scratch, uattr, size);
	err = cmd(attr, &scratch.attr);
	if (size)
		memcpy(uattr, &scratch, size);
	return err;
}

#define BPF_FS_MAGIC_ 0xcafe4a11

/* BPF_TOKEN_CREATE: the kernel's checks of its attr and of the BPF filesystem it names (an fd
 * of the root of one: else EBADF, or EINVAL), then EOPNOTSUPP, which is the kernel's answer in
 * the initial user namespace ("creating BPF token in init_user_ns doesn't make much sense"),
 * and userbpf's everywhere: it makes no tokens (it needs none to grant anything). */
static int token_create(const union bpf_attr *attr)
{
	const u8 *raw = (const u8 *)attr;
	struct statfs fs;
	struct statx stx;
	u32 flags, fd;
	int fl;

	memcpy(&flags, raw, 4);
	memcpy(&fd, raw + 4, 4);
	if (flags)
		return -EINVAL;
	/* (the kernel's fdget() takes no O_PATH file) */
	fl = fcntl((int)fd, F_GETFL);
	if (fl < 0 || (fl & O_PATH))
		return -EBADF;
	if (statx((int)fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return -EINVAL; /* not the root of a mount */
	if (fstatfs((int)fd, &fs) || (unsigned long)fs.f_type != BPF_FS_MAGIC_)
		return -EINVAL;
	return -EOPNOTSUPP;
}

static int sys_bpf(int cmd, union bpf_attr *uattr, unsigned int size)
{
	/* The kernel's union is larger than our header's: commands may read raw bytes up to it. */
	union kernel_attr buf;
	union bpf_attr *attr = &buf.attr;
	u32 end, n;

	if (size > PAGE_SIZE_ATTR)
		return -E2BIG;
	if (size > KERNEL_ATTR_SIZE) {
		if (!uattr)
			return -EFAULT;
		if (!all_zero((u8 *)uattr + KERNEL_ATTR_SIZE, size - KERNEL_ATTR_SIZE))
			return -E2BIG;
		size = KERNEL_ATTR_SIZE;
	}
	if (size && !uattr)
		return -EFAULT;

	if (cmd < 0 || (unsigned)cmd >= ARRAY_SIZE(cmd_attr_end) || !cmd_attr_end[cmd])
		/* A command the kernel has but userbpf does not yet: say so, rather than EINVAL
		 * which callers read as "bad arguments". */
		return cmd >= 0 && cmd < KERNEL_BPF_CMDS ? -EOPNOTSUPP : -EINVAL;
	end = cmd_attr_end[cmd];
	/* Bytes after the command's last field: zero, whether passed (checked here) or not. */
	if (size > end && !all_zero((u8 *)uattr + end, size - end))
		return -EINVAL;
	/* Only the command's own fields need to be copied and zero-filled: handlers read nothing
	 * else. */
	if (likely(size >= sizeof(*attr) && end <= sizeof(*attr))) {
		/* The usual caller passes sizeof(union bpf_attr): a constant-size copy is a few
		 * vector moves, cheaper than a variable one. */
		memcpy(buf.raw, uattr, sizeof(*attr));
	} else {
		n = size < end ? size : end;
		if (n) /* uattr may be NULL when size is 0 */
			memcpy(buf.raw, uattr, n);
		if (n < end)
			memset(buf.raw + n, 0, end - n);
	}

	switch (cmd) {
	case BPF_MAP_CREATE:
		return map_create(attr);
	case BPF_MAP_LOOKUP_ELEM:
		return map_lookup_elem(attr);
	case BPF_MAP_UPDATE_ELEM:
		return map_update_elem(attr);
	case BPF_MAP_DELETE_ELEM:
		return map_delete_elem(attr);
	case BPF_MAP_GET_NEXT_KEY:
		return map_get_next_key(attr);
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		return map_lookup_and_delete_elem(attr);
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		return map_do_batch(cmd, attr, uattr, size);
	case BPF_MAP_FREEZE:
		return map_freeze(attr);
	case BPF_PROG_LOAD:
		return prog_load(attr, uattr, size);
	case BPF_PROG_TEST_RUN:
		return prog_test_run(attr, uattr, size);
	case BPF_PROG_ATTACH:
		return prog_attach(attr);
	case BPF_PROG_DETACH:
		return prog_detach(attr);
	case BPF_PROG_QUERY:
		return with_out_fields(prog_query, attr, uattr, size, cmd_attr_end[cmd]);
	case BPF_TASK_FD_QUERY:
		return with_out_fields(task_fd_query, attr, uattr, size, cmd_attr_end[cmd]);
	case BPF_BTF_LOAD:
		return btf_load(attr, uattr, size);
	case BPF_OBJ_GET_INFO_BY_FD:
		return obj_get_info(attr, uattr, size);
	case BPF_MAP_GET_NEXT_ID:
		return obj_get_next_id(OBJ_MAP, attr, uattr);
	case BPF_PROG_GET_NEXT_ID:
		return obj_get_next_id(OBJ_PROG, attr, uattr);
	case BPF_BTF_GET_NEXT_ID:
		return obj_get_next_id(OBJ_BTF, attr, uattr);
	case BPF_MAP_GET_FD_BY_ID:
		return obj_get_fd_by_id(OBJ_MAP, attr);
	case BPF_PROG_GET_FD_BY_ID:
		return obj_get_fd_by_id(OBJ_PROG, attr);
	case BPF_BTF_GET_FD_BY_ID:
		return obj_get_fd_by_id(OBJ_BTF, attr);
	case BPF_OBJ_PIN:
		return obj_pin(attr);
	case BPF_OBJ_GET:
		return obj_get_pinned(attr);
	case BPF_ENABLE_STATS:
		return prog_enable_stats(attr);
	case BPF_PROG_BIND_MAP:
		return prog_bind_map(attr);
	case BPF_RAW_TRACEPOINT_OPEN:
		return raw_tracepoint_open(attr);
	case BPF_LINK_CREATE:
		return link_create(attr);
	case BPF_LINK_UPDATE:
		return link_update(attr);
	case BPF_LINK_DETACH:
		return link_detach(attr);
	case BPF_LINK_GET_FD_BY_ID:
		return obj_get_fd_by_id(OBJ_LINK, attr);
	case BPF_LINK_GET_NEXT_ID:
		return obj_get_next_id(OBJ_LINK, attr, uattr);
	case BPF_ITER_CREATE:
		return iter_create(attr);
	case CMD_PROG_STREAM_READ_BY_FD:
		return prog_stream_read(attr);
	case CMD_TOKEN_CREATE:
		return token_create(attr);
	}
	return -EINVAL;
}

int sys_bpf_from_prog(int cmd, union bpf_attr *attr, unsigned int size)
{
	switch (cmd) {
	case BPF_MAP_CREATE:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_FREEZE:
	case BPF_MAP_GET_FD_BY_ID:
	case BPF_PROG_LOAD:
	case BPF_BTF_LOAD:
	case BPF_LINK_CREATE:
	case BPF_RAW_TRACEPOINT_OPEN:
		return sys_bpf(cmd, attr, size);
	default:
		return -EINVAL;
	}
}

int bpf_syscall(int cmd, union bpf_attr *attr, unsigned int size)
{
	int ret = sys_bpf(cmd, attr, size);

	task_work_run_current(); /* (what a program run scheduled for this thread) */
	bpf_timer_sync(); /* (an update or delete freed a timer whose callback runs) */
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

USERBPF_API int bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return bpf_syscall(cmd, attr, size);
}

USERBPF_API int userbpf_num_possible_cpus(void)
{
	return (int)map_possible_cpus();
}

USERBPF_API const char *userbpf_version(void)
{
	return "0.1.0";
}
