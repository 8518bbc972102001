/* BPF_ENABLE_STATS: an fd ("bpf-stats") that keeps run statistics on while it is open, as the
 * kernel's bpf_enable_runtime_stats() (stats.h says what is counted).  The kernel asks for
 * CAP_SYS_ADMIN; userbpf has no privileges to ask for. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "prog/stats.h"

u32 prog_stats_users;

/* Serialises the count's changes with the switches they make, so that the last one wins. */
static pthread_mutex_t users_lock = PTHREAD_MUTEX_INITIALIZER;

static void users_add(int d)
{
	u32 n;

	pthread_mutex_lock(&users_lock);
	n = __atomic_add_fetch(&prog_stats_users, (u32)d, __ATOMIC_RELAXED);

	if (n == (d > 0 ? 1u : 0u))
		prog_stats_switch(n != 0);
	pthread_mutex_unlock(&users_lock);
}

static void stats_destroy(struct bpf_object *obj)
{
	users_add(-1);
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
	users_add(1);
	fd = obj_memfd_create("bpf-stats");
	if (fd >= 0)
		fd = obj_install(obj, fd);
	if (fd < 0)
		stats_destroy(obj); /* (a failed install leaves the object to us) */
	return fd;
}
