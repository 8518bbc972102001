/* kernel_vars.h: one read-only mapping of zero pages, made once, never written. */
#include <pthread.h>
#include <sys/mman.h>

#include "exec/kernel_vars.h"

static const void *region;
static pthread_once_t region_once = PTHREAD_ONCE_INIT;

static void region_map(void)
{
	void *p = mmap(NULL, KERNEL_VAR_MAX, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	region = p == MAP_FAILED ? NULL : p;
}

const void *kernel_var_memory(void)
{
	pthread_once(&region_once, region_map);
	return region;
}
