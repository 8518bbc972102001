/* raw_tp_current_task's report read through a cast, as libbpf's bpf_core_cast() does it: the
 * task's address from bpf_get_current_task() (a number) seen as a struct task_struct by
 * bpf_rdonly_cast() with the kernel's type id (a CO-RE relocation), its fields then loaded
 * directly: untrusted pointers, which the verifier checks against the kernel's BTF and runs as
 * probe loads.  (Debian's libbpf 1.1 has no bpf_core_cast(): the same macro is written here.) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "task_fill.h"

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define core_cast(ptr, type) ((typeof(type) *)bpf_rdonly_cast((ptr), bpf_core_type_id_kernel(type)))

struct report report;

SEC("raw_tp/sys_enter") int raw_tp_core_cast(void *ctx)
{
	fill_report(&report, core_cast((void *)bpf_get_current_task(), struct task_struct));
	return 0;
}

char _license[] SEC("license") = "GPL";
