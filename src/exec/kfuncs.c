/* The kfunc table (kfuncs.h).  The kernel registers these for every program type (its
 * common_btf_ids set, kernel/bpf/helpers.c). */
#include <string.h>

#include "btf/vmlinux.h"
#include "exec/bpf_dynptr.h"
#include "exec/kfuncs.h"

static const struct kfunc_desc kfuncs[] = {
	{ "bpf_dynptr_adjust", bpf_dynptr_adjust_kfunc, 0 },
	{ "bpf_dynptr_clone", bpf_dynptr_clone_kfunc, 0 },
	{ "bpf_dynptr_copy", bpf_dynptr_copy_kfunc, 0 },
	{ "bpf_dynptr_is_null", bpf_dynptr_is_null_kfunc, 0 },
	{ "bpf_dynptr_is_rdonly", bpf_dynptr_is_rdonly_kfunc, 0 },
	{ "bpf_dynptr_memset", bpf_dynptr_memset_kfunc, 0 },
	{ "bpf_dynptr_size", bpf_dynptr_size_kfunc, 0 },
	{ "bpf_dynptr_slice", bpf_dynptr_slice_kfunc, KF_RET_NULL },
	{ "bpf_dynptr_slice_rdwr", bpf_dynptr_slice_rdwr_kfunc, KF_RET_NULL },
};

const struct kfunc_desc *kfunc_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(kfuncs) / sizeof(kfuncs[0]); i++)
		if (!strcmp(kfuncs[i].name, name))
			return &kfuncs[i];
	return NULL;
}

const char *kfunc_btf_name(s32 id)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t = btf && id > 0 ? btf_type_by_id(btf, (u32)id) : NULL;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC)
		return NULL;
	return btf_str_by_offset(btf, t->name_off);
}

u64 (*kfunc_resolve(s32 id, s16 off))(u64, u64, u64, u64, u64)
{
	const char *name = off ? NULL : kfunc_btf_name(id);
	const struct kfunc_desc *k = name ? kfunc_by_name(name) : NULL;

	return k ? k->func : NULL;
}
