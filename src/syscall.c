/* The bpf() entry point: the kernel's attr contract, then one switch over commands.
 *
 * The contract (kernel/bpf/syscall.c): a size over a page is E2BIG; bytes the caller passed beyond
 * our union must be zero (E2BIG); the copy we work on is zero-filled past the caller's size; and
 * every byte after the command's last field must be zero (EINVAL).  Internal functions return
 * negative errno; this is the one place that turns it into -1 and errno.
 */
#include <errno.h>
#include <string.h>

#include <userbpf.h>

#include "map/map.h"
#include "prog/prog.h"

#define PAGE_SIZE_ATTR 4096u

/* Commands of Linux 6.18 (through BPF_PROG_STREAM_READ_BY_FD = 37); our uapi header may be older. */
#define KERNEL_BPF_CMDS 38

#define ATTR_END(field) (offsetof(union bpf_attr, field) + sizeof(((union bpf_attr *)0)->field))

/* Where each command's attr ends; 0: a command userbpf does not know. */
static const u32 cmd_attr_end[] = {
	[BPF_MAP_CREATE] = ATTR_END(map_extra),
	[BPF_MAP_LOOKUP_ELEM] = ATTR_END(flags),
	[BPF_MAP_UPDATE_ELEM] = ATTR_END(flags),
	[BPF_MAP_DELETE_ELEM] = ATTR_END(key),
	[BPF_MAP_GET_NEXT_KEY] = ATTR_END(next_key),
	[BPF_MAP_LOOKUP_AND_DELETE_ELEM] = ATTR_END(flags),
	[BPF_MAP_LOOKUP_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_LOOKUP_AND_DELETE_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_UPDATE_BATCH] = ATTR_END(batch.flags),
	[BPF_MAP_DELETE_BATCH] = ATTR_END(batch.flags),
	/* Through log_true_size (Linux 6.4, after core_relo_rec_size; an output field the kernel
	 * overwrites, so any input value is accepted).  6.18's later fields (prog_token_fd,
	 * fd_array_cnt, signature...) lie beyond our uapi union: non-zero there is E2BIG here. */
	[BPF_PROG_LOAD] = ATTR_END(core_relo_rec_size) + sizeof(u32),
	[BPF_PROG_TEST_RUN] = ATTR_END(test.batch_size),
};

static const u8 zero_page[PAGE_SIZE_ATTR];

/* Whether n (<= a page) bytes at p are all zero.  libc's vectorised memcmp: bpf() runs this on
 * every call, over the ~100 bytes after the command's fields. */
static inline bool all_zero(const void *p, size_t n)
{
	return memcmp(p, zero_page, n) == 0;
}

static int sys_bpf(int cmd, union bpf_attr *uattr, unsigned int size)
{
	union bpf_attr attr;
	u32 end, n;

	if (size > PAGE_SIZE_ATTR)
		return -E2BIG;
	if (size > sizeof(attr)) {
		if (!uattr)
			return -EFAULT;
		if (!all_zero((u8 *)uattr + sizeof(attr), size - sizeof(attr)))
			return -E2BIG;
		size = sizeof(attr);
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
	/* Only the command's own fields are copied and zero-filled: handlers read nothing else. */
	n = size < end ? size : end;
	if (n) /* uattr may be NULL when size is 0 */
		memcpy(&attr, uattr, n);
	if (n < end)
		memset((u8 *)&attr + n, 0, end - n);

	switch (cmd) {
	case BPF_MAP_CREATE:
		return map_create(&attr);
	case BPF_MAP_LOOKUP_ELEM:
		return map_lookup_elem(&attr);
	case BPF_MAP_UPDATE_ELEM:
		return map_update_elem(&attr);
	case BPF_MAP_DELETE_ELEM:
		return map_delete_elem(&attr);
	case BPF_MAP_GET_NEXT_KEY:
		return map_get_next_key(&attr);
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		return map_lookup_and_delete_elem(&attr);
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		return map_do_batch(cmd, &attr, uattr, size);
	case BPF_PROG_LOAD:
		return prog_load(&attr, uattr, size);
	case BPF_PROG_TEST_RUN:
		return prog_test_run(&attr, uattr, size);
	}
	return -EINVAL;
}

USERBPF_API int bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	int ret = sys_bpf(cmd, attr, size);

	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

USERBPF_API const char *userbpf_version(void)
{
	return "0.1.0";
}
