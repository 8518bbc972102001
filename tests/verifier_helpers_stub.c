/* A stand-in helper table for verifier tests until src/exec/helpers.c lands (prog branch): a few
 * base helpers with the kernel's prototypes.  Weak, so the real table wins when linked. */
#include "exec/helpers.h"

static const struct bpf_func_proto stub_protos[] = {
	[BPF_FUNC_map_lookup_elem] = { NULL, "bpf_map_lookup_elem", false, true,
				       RET_PTR_TO_MAP_VALUE_OR_NULL,
				       { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY } },
	[BPF_FUNC_map_update_elem] = { NULL, "bpf_map_update_elem", false, true, RET_INTEGER,
				       { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
					 ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING } },
	[BPF_FUNC_map_delete_elem] = { NULL, "bpf_map_delete_elem", false, true, RET_INTEGER,
				       { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY } },
	[BPF_FUNC_ktime_get_ns] = { NULL, "bpf_ktime_get_ns", false, false, RET_INTEGER, { 0 } },
	[BPF_FUNC_trace_printk] = { NULL, "bpf_trace_printk", true, false, RET_INTEGER,
				    { ARG_PTR_TO_MEM, ARG_CONST_SIZE } },
	[BPF_FUNC_get_prandom_u32] = { NULL, "bpf_get_prandom_u32", false, false, RET_INTEGER,
				       { 0 } },
	[BPF_FUNC_get_smp_processor_id] = { NULL, "bpf_get_smp_processor_id", false, false,
					    RET_INTEGER, { 0 } },
};

__attribute__((weak)) const struct bpf_func_proto *bpf_helper_proto(u32 func_id, u32 prog_type)
{
	(void)prog_type;
	if (func_id >= sizeof(stub_protos) / sizeof(stub_protos[0]) || !stub_protos[func_id].name)
		return NULL;
	return &stub_protos[func_id];
}
