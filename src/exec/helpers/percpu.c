/* percpu.c — a per-CPU kernel variable's copy for a CPU (bpf_per_cpu_ptr(): NULL past the
 * possible CPUs) or for this one (bpf_this_cpu_ptr()).  Every copy of a kernel variable is the
 * same zeroed memory here (src/exec/kernel_vars.h). */
#include "map/map.h"
#include "exec/helpers/impl.h"

u64 h_per_cpu_ptr(u64 ptr, u64 cpu, u64 a3, u64 a4, u64 a5)
{
	return cpu < map_possible_cpus() ? ptr : 0;
}

u64 h_this_cpu_ptr(u64 ptr, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return ptr;
}
