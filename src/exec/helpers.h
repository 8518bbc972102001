/* BPF helper functions: one table that serves both the verifier (each helper's prototype) and
 * execution (its implementation), indexed by the kernel's helper numbers (enum bpf_func_id).
 *
 * Helpers take and return u64 registers.  A map argument arrives as the struct bpf_map pointer
 * the program loaded with LD_IMM64 (no fd look-up when a program runs); a ctx argument as the
 * runtime context of src/exec/ctx.h.
 */
#ifndef USERBPF_HELPERS_H
#define USERBPF_HELPERS_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include "util.h"

/* What an argument register must hold (the kernel's enum bpf_arg_type, the part we use). */
enum bpf_arg_type {
	ARG_DONTCARE = 0,	/* unused argument */
	ARG_CONST_MAP_PTR,	/* a map loaded with LD_IMM64 */
	ARG_PTR_TO_MAP_KEY,	/* readable memory of the map's key_size */
	ARG_PTR_TO_MAP_VALUE,	/* readable memory of the map's value_size */
	ARG_PTR_TO_MAP_VALUE_OR_NULL,	/* the same, or NULL (a known zero) */
	ARG_PTR_TO_BTF_ID_SOCK_COMMON,	/* a socket (sock_common or full), not NULL */
	ARG_PTR_TO_BTF_ID_SOCK_COMMON_OR_NULL,	/* the same, maybe NULL, or NULL (a known zero) */
	ARG_PTR_TO_BTF_ID_TASK,		/* a struct task_struct the program may pass on (trusted
					 * or RCU, not offset), or NULL */
	ARG_PTR_TO_BTF_ID_TASK_NOT_NULL,	/* the same, not NULL (bpf_find_vma()'s) */
	ARG_PTR_TO_BTF_ID_CGROUP,	/* the same for a struct cgroup */
	ARG_PTR_TO_SOCK_COMMON,	/* the same, as the older helpers name it */
	ARG_PTR_TO_SOCK_RELEASE,	/* a socket a lookup acquired, released (bpf_sk_release()) */
	ARG_PTR_TO_SOCKET_OR_NULL,	/* a full socket (maybe NULL), or NULL (a known zero) */
	ARG_PTR_TO_UNINIT_MAP_VALUE,	/* memory of the map's value_size, written by the helper */
	ARG_PTR_TO_MEM,		/* readable initialised memory; size in the next argument */
	ARG_PTR_TO_MEM_OR_NULL,	/* the same, or NULL (a known zero) with a size that may be 0 */
	ARG_PTR_TO_UNINIT_MEM,	/* writable memory, may be uninitialised; size in the next arg */
	ARG_PTR_TO_WRITE_MEM,	/* memory the helper writes, checked as one writable range
				 * (the kernel's ARG_PTR_TO_MEM | MEM_WRITE); size next */
	ARG_CONST_SIZE,		/* a known-bounded size > 0 for the previous argument */
	ARG_CONST_SIZE_OR_ZERO,	/* the same, 0 allowed */
	ARG_PTR_TO_CTX,		/* the program's context, unmodified */
	ARG_PTR_TO_CTX_OR_NULL,	/* the same, or NULL (a known zero) */
	ARG_ANYTHING,		/* any initialised value */
	ARG_CONST_ALLOC_SIZE_OR_ZERO,	/* a known constant: the size R0 will point at */
	ARG_PTR_TO_RINGBUF_MEM_RELEASE,	/* a reserved ring buffer record, released */
	ARG_PTR_TO_SPIN_LOCK,	/* a map value's struct bpf_spin_lock */
	ARG_PTR_TO_TIMER,	/* a map value's struct bpf_timer */
	ARG_PTR_TO_FUNC,	/* a callback: an LD_IMM64 BPF_PSEUDO_FUNC (src/exec/callback.h) */
	ARG_PTR_TO_STACK_OR_NULL,	/* a stack pointer or NULL: the callback's ctx */
	ARG_PTR_TO_CONST_STR,	/* a NUL-terminated string at a constant offset of a frozen
				 * read-only map (.rodata) */
	ARG_PTR_TO_LONG,	/* 8 aligned bytes the helper writes (may be uninitialised) */
	ARG_PTR_TO_INT,		/* the same, 4 bytes (bpf_check_mtu()'s, which it also reads) */
	ARG_PTR_TO_WRITE_MEM_OR_NULL,	/* memory the helper writes, or NULL; size (may be 0) in
					 * the next argument */
	/* A struct bpf_dynptr on the stack (src/verifier/dynptr.c): 16 bytes the helper makes a
	 * dynptr of (local: over memory; ring buffer: a reserved record, a reference) ... */
	ARG_PTR_TO_DYNPTR_LOCAL_UNINIT,
	ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT,
	ARG_PTR_TO_DYNPTR_RDONLY,	/* ... an initialised one, of any kind, left as it is ... */
	ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE, /* ... a ring buffer one, whose record it releases */
	ARG_KPTR_XCHG_DEST,		/* a map value's referenced kptr (src/verifier/kptr.c) */
	ARG_PTR_TO_BTF_ID_KPTR_RELEASE,	/* a kernel object the program holds a reference to, of
					 * that kptr's struct, or NULL: the reference goes */
	ARG_PTR_TO_PERCPU_BTF_ID,	/* a per-CPU kernel variable (a typed ksym's percpu_ptr_) */
	ARG_PTR_TO_BTF_ID_SEQ_FILE,	/* an iterator's struct seq_file (its meta->seq) */
};

enum bpf_return_type {
	RET_INTEGER,			/* a scalar */
	RET_VOID,			/* nothing (R0 is unreadable afterwards) */
	RET_PTR_TO_MAP_VALUE_OR_NULL,	/* a value of the map in R1, or NULL */
	RET_PTR_TO_MAP_VALUE,		/* a value of the map in R1, never NULL */
	RET_PTR_TO_SOCKET_OR_NULL,	/* a full socket, or NULL (a new reference from a lookup) */
	RET_PTR_TO_SOCK_COMMON_OR_NULL,	/* a socket, maybe not a full one, or NULL (the same) */
	RET_PTR_TO_TCP_SOCK_OR_NULL,	/* a TCP socket's struct bpf_tcp_sock, or NULL */
	RET_PTR_TO_RINGBUF_MEM_OR_NULL,	/* a new reference: a record, or NULL */
	RET_PTR_TO_DYNPTR_MEM_OR_NULL,	/* a slice of the dynptr argument (the size argument's
					 * bytes), or NULL */
	RET_PTR_TO_BTF_ID_TASK,		/* a trusted struct task_struct (PTR_TO_BTF_ID_TRUSTED) */
	RET_PTR_TO_BTF_ID_KPTR_OR_NULL,	/* a new reference: what the kptr held, or NULL */
	/* a copy of the per-CPU variable argument: a ptr_ to its struct, or read-only memory of
	 * its size (never NULL; _OR_NULL: or NULL) */
	RET_PTR_TO_MEM_OR_BTF_ID,
	RET_PTR_TO_MEM_OR_BTF_ID_OR_NULL,
};

/* Helper ids run below this (the 6.18 kernel's __BPF_FUNC_MAX_ID): the size of helper tables. */
#define BPF_HELPER_ID_MAX 212

typedef u64 (*bpf_helper_fn)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);

struct bpf_func_proto {
	bpf_helper_fn func;
	const char *name;	/* "bpf_map_lookup_elem": the log names helpers so */
	bool gpl_only;		/* refused to programs without a GPL-compatible license */
	bool pkt_access;	/* may be given packet pointers */
	enum bpf_return_type ret_type;
	enum bpf_arg_type arg_type[5];
	/* May move or resize the packet (the kernel's bpf_helper_changes_pkt_data()): the
	 * verifier forgets every packet pointer after a call, as the kernel does.  (userbpf's
	 * helpers write in place, but a program must pass the kernel's verifier too.) */
	bool changes_pkt_data;
	/* May sleep (the kernel's might_sleep): only sleepable programs have it, and not inside
	 * an RCU read section or with preemption off. */
	bool might_sleep;
};

/* The prototype of helper func_id for a program of prog_type, or NULL if that program type may
 * not call it (or userbpf does not have it). */
const struct bpf_func_proto *bpf_helper_proto(u32 func_id, u32 prog_type);

/* The same for a program of that type attached as expected_attach_type: a few helpers exist only
 * at some hooks (the cgroup hooks' bpf_get_retval() and bpf_set_retval()). */
const struct bpf_func_proto *bpf_helper_proto_attach(u32 func_id, u32 prog_type,
						     u32 expected_attach_type);

/* A trampoline program's ctx (fentry, fexit, fmod_ret: src/prog/trampoline.c) is the
 * function's arguments, a u64 each; below it, as the kernel's trampoline keeps them, ctx[-1]
 * holds their count (with TRAMP_ARGS_RET: the return value follows them), ctx[-2] the
 * function's address and ctx[-3] the link's cookie, which bpf_get_func_arg() and the other
 * helpers of the kind read. */
#define TRAMP_CTX 3
#define TRAMP_ARGS_RET 0x100u

/* Whether fmt (NUL-terminated) is a format bpf_snprintf() accepts with nargs arguments: 0 or
 * -EINVAL (the verifier's check of its constant format). */
int bprintf_check(const char *fmt, u32 nargs);

#endif
