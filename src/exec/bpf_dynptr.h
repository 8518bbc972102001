/* bpf_dynptr.h — the dynptr helpers: bpf_dynptr_from_mem(), bpf_dynptr_read(),
 * bpf_dynptr_write(), bpf_dynptr_data() and the ring buffer's reserve, submit and discard.
 *
 * A struct bpf_dynptr (16 opaque bytes on the program's stack) is a view of memory: its data,
 * offset and size.  A local one views a map value; a ring buffer one, a reserved record.  A
 * failed creation leaves a NULL dynptr, which every helper refuses (and which a ring buffer
 * submit or discard accepts, doing nothing).  The verifier (src/verifier/dynptr.c) makes sure a
 * dynptr argument is one and that ring buffer ones are released exactly once.
 */
#ifndef USERBPF_EXEC_BPF_DYNPTR_H
#define USERBPF_EXEC_BPF_DYNPTR_H

#include "util.h"

u64 bpf_dynptr_from_mem_helper(u64 data, u64 size, u64 flags, u64 ptr, u64 a5);
u64 bpf_dynptr_read_helper(u64 dst, u64 len, u64 src, u64 offset, u64 flags);
u64 bpf_dynptr_write_helper(u64 dst, u64 offset, u64 src, u64 len, u64 flags);
u64 bpf_dynptr_data_helper(u64 ptr, u64 offset, u64 len, u64 a4, u64 a5);
u64 bpf_ringbuf_reserve_dynptr_helper(u64 map, u64 size, u64 flags, u64 ptr, u64 a5);
u64 bpf_ringbuf_submit_dynptr_helper(u64 ptr, u64 flags, u64 a3, u64 a4, u64 a5);
u64 bpf_ringbuf_discard_dynptr_helper(u64 ptr, u64 flags, u64 a3, u64 a4, u64 a5);

/* The dynptr kfuncs (src/exec/kfuncs.c). */
u64 bpf_dynptr_size_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_dynptr_is_null_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_dynptr_is_rdonly_kfunc(u64 p, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_dynptr_adjust_kfunc(u64 p, u64 start, u64 end, u64 a4, u64 a5);
u64 bpf_dynptr_slice_kfunc(u64 p, u64 offset, u64 buffer, u64 len, u64 a5);
u64 bpf_dynptr_slice_rdwr_kfunc(u64 p, u64 offset, u64 buffer, u64 len, u64 a5);
u64 bpf_dynptr_clone_kfunc(u64 p, u64 clone, u64 a3, u64 a4, u64 a5);
u64 bpf_dynptr_from_skb_kfunc(u64 skb, u64 flags, u64 p, u64 a4, u64 a5);
u64 bpf_dynptr_from_skb_rdonly_kfunc(u64 skb, u64 flags, u64 p, u64 a4, u64 a5);
u64 bpf_dynptr_from_xdp_kfunc(u64 xdp, u64 flags, u64 p, u64 a4, u64 a5);
u64 bpf_dynptr_copy_kfunc(u64 dst, u64 dst_off, u64 src, u64 src_off, u64 size);
u64 bpf_dynptr_memset_kfunc(u64 p, u64 offset, u64 size, u64 val, u64 a5);
/* bpf_probe_read_{user,kernel}{,_str}_dynptr(): this process's memory (all of it counts as the
 * kernel's, as for bpf_probe_read_kernel()) copied into the dynptr at offset. */
u64 bpf_probe_read_user_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);
u64 bpf_probe_read_kernel_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);
u64 bpf_probe_read_user_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);
u64 bpf_copy_from_user_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);
u64 bpf_copy_from_user_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);
u64 bpf_copy_from_user_str_kfunc(u64 dst, u64 size, u64 src, u64 flags, u64 a5);
u64 bpf_probe_read_kernel_str_dynptr_kfunc(u64 p, u64 off, u64 size, u64 src, u64 a5);

/* Makes the 16 bytes at p a local dynptr over [data, data + size) (a user ring buffer
 * sample, for the drain's callback); size below 2^24. */
void bpf_dynptr_init_local(void *p, void *data, u32 size);

/* The bytes the dynptr at p views, [*start, *start + *len); false for a NULL dynptr (the checked
 * interpreter's view of a helper's dynptr argument). */
bool bpf_dynptr_bytes(const void *p, u64 *start, u32 *len);
/* The start of the memory the dynptr at p was made over (before any bpf_dynptr_adjust(): a ring
 * buffer record's), 0 for a NULL dynptr. */
u64 bpf_dynptr_base(const void *p);

#endif
