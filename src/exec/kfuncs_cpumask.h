/* The kernel's BPF cpumask kfuncs (kfuncs_cpumask.c), called as helpers are. */
#ifndef USERBPF_EXEC_KFUNCS_CPUMASK_H
#define USERBPF_EXEC_KFUNCS_CPUMASK_H

#include "exec/helpers.h"

/* How many masks are made and not dropped (programs' references and maps' kptrs). */
u32 cpumask_live(void);

u64 bpf_cpumask_create_kfunc(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_acquire_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_release_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_first_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_first_zero_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_first_and_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_set_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_clear_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_test_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_test_and_set_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_test_and_clear_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_setall_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_clear_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_and_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5);
u64 bpf_cpumask_or_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5);
u64 bpf_cpumask_xor_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5);
u64 bpf_cpumask_equal_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_intersects_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_subset_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_empty_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_full_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_copy_kfunc(u64 dst, u64 src, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_any_distribute_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_any_and_distribute_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_weight_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_cpumask_populate_kfunc(u64 mask, u64 src, u64 size, u64 a4, u64 a5);

#endif
