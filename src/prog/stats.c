/* BPF_ENABLE_STATS: an fd ("bpf-stats") that keeps run statistics on while it is open, as the
 * kernel's bpf_enable_runtime_stats() (stats.h says what is counted).  The kernel asks for
 * CAP_SYS_ADMIN; userbpf has no privileges to ask for. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "prog/stats.h"

u32 prog_stats_users;

static void stats_destroy(struct bpf_object *obj)
{
	__atomic_sub_fetch(&prog_stats_users, 1, __ATOMIC_RELAXED);
	free(obj);
}

int prog_enable_stats(const union bpf_attr *attr)
{
	struct bpf_object *obj;
	int fd;

	if (attr->enable_stats.type != BPF_STATS_RUN_TIME)
		return -EINVAL;
	/* the kernel's bound on its key's count */
	if (__atomic_load_n(&prog_stats_users, __ATOMIC_RELAXED) > INT_MAX / 2)
		return -EBUSY;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	obj->kind = OBJ_STATS;
	obj->destroy = stats_destroy;
	/* counted before the fd exists: a close racing the install then uncounts it after */
	__atomic_add_fetch(&prog_stats_users, 1, __ATOMIC_RELAXED);
	fd = obj_memfd_create("bpf-stats");
	if (fd >= 0)
		fd = obj_install(obj, fd);
	if (fd < 0)
		stats_destroy(obj); /* (a failed install leaves the object to us) */
	return fd;
}
