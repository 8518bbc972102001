/* The kernel's BTF ("vmlinux BTF"): what a kfunc call's imm and an `extern ... __ksym` function
 * name.  userbpf reads the running kernel's own file, /sys/kernel/btf/vmlinux (readable without
 * privileges), so the BTF ids libbpf and its users compute against the kernel are the ids
 * userbpf resolves: code written for the kernel runs unchanged.  USERBPF_VMLINUX_BTF names
 * another file (a copy, for a machine without one).
 */
#ifndef USERBPF_BTF_VMLINUX_H
#define USERBPF_BTF_VMLINUX_H

#include "btf/btf.h"

/* The kernel's BTF, parsed on first use and kept for the process's life; NULL when there is
 * none (no such file, or it does not parse). */
const struct btf *btf_vmlinux(void);

/* A BTF file (a kernel's, or any raw BTF blob) parsed and checked as BPF_BTF_LOAD checks, or
 * NULL and *err.  Freed with btf_free_parsed(). */
struct btf *btf_parse_file(const char *path, int *err);
struct btf *btf_parse_blob(const u8 *data, u32 size, int *err);
void btf_free_parsed(struct btf *btf);

/* The id of the first type of that kind called name in btf, or 0. */
u32 btf_find_by_name_kind(const struct btf *btf, const char *name, u32 kind);
/* ... of the BTF_KIND_FUNC called name. */
u32 btf_find_func(const struct btf *btf, const char *name);
/* The byte offset of member name of the struct or union id, looking into anonymous members
 * (bitfields are not looked at); -1 without one. */
long btf_member_offset(const struct btf *btf, u32 id, const char *name);
/* The kernel's struct task_struct (its id, found once), or 0 without a kernel BTF. */
u32 btf_vmlinux_task_struct(void);
/* The same for struct cgroup. */
u32 btf_vmlinux_cgroup(void);

#endif
