/* A loaded BPF program: what BPF_PROG_LOAD produces and BPF_PROG_TEST_RUN runs.
 *
 * Lifecycle: prog_load() (src/prog/load.c) checks attr, copies the instructions into a new
 * bpf_prog, calls bpf_check() (src/verifier/), which proves it safe, resolves map references and
 * rewrites what needs rewriting; then the program is prepared for execution and installed as an
 * fd (an OBJ_PROG object).  The program holds a reference on every map it uses until destroyed.
 */
#ifndef USERBPF_PROG_H
#define USERBPF_PROG_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <string.h>

#include "fd.h"
#include "prog/stream.h"
#include "util.h"

struct bpf_map;
struct btf;
struct bpf_func_proto;
struct interp_prog;
struct jit_prog;

/* The extension program type of userbpf_prog_load_ext() (src/prog/ext.c): beyond the kernel's
 * enum bpf_prog_type, and refused by bpf(BPF_PROG_LOAD) (prog_types.h does not list it), so only
 * the embedding API creates such programs.
 *
 * What the verifier must check for it (it learns the rest from the fields below):
 *  - R1 at entry is the ctx pointer, R2 a known scalar equal to ctx_size (the kernel marks R2..R5
 *    not initialised for its types; here R2 is readable); R3..R5 are not initialised.
 *  - ctx accesses: loads (and, only if ctx_writable, stores, ST and STX; no atomics) of size
 *    1, 2, 4 or 8 with the whole access inside [0, ctx_size).  The minimum is the kernel's rule
 *    for a ctx (constant offset from the unmodified pointer); recommended is to treat the ctx as
 *    PTR_TO_MEM of ctx_size bytes (read-only unless ctx_writable), so that a variable offset
 *    proven in bounds is accepted as for a map value, and to accept R1 for ARG_PTR_TO_MEM /
 *    ARG_PTR_TO_UNINIT_MEM (the latter only if ctx_writable) as well as for ARG_PTR_TO_CTX.
 *    ctx_size 0 (R1 may then be NULL) allows no access.  No ctx access is rewritten.
 *  - helper calls: prog_helper_proto(prog, id), not bpf_helper_proto(); ids go up to
 *    USERBPF_HELPER_ID_MAX; an unknown id is "invalid func", as the kernel says.  gpl_only is
 *    false for every registered helper.
 *  - no LD_ABS/LD_IND (no skb); maps through LD_IMM64 as for any type.
 *  - the return value is any scalar (64 bits are returned to the application). */
#define USERBPF_PROG_TYPE_EXT 0x7fff0000u

/* What a tracing program (tp_btf, fentry, fexit, fmod_ret) is loaded for: the kernel
 * function or tracepoint its attach_btf_id names, and the shape of its arguments, which are the
 * program's ctx (a u64 slot each, two for a struct of 9 to 16 bytes; the return value after
 * them). */
#define ATTACH_MAX_ARGS 12
struct prog_attach {
	u32 btf_id;		/* the FUNC (TYPEDEF btf_trace_<name> for tp_btf); 0: none */
	u32 proto_id;		/* its FUNC_PROTO */
	bool trace;		/* tp_btf: the prototype's first argument (void *__data) is not the
				 * program's */
	u8 nr_args;		/* the program's arguments */
	/* The prototype's parameters (tp_btf: with __data first, which the kernel counts ctx
	 * slots from) and their sizes in bytes. */
	u8 nr_params;
	u8 param_size[ATTACH_MAX_ARGS + 1];
	u8 ret_size;		/* the return value's (0: void) */
	u64 addr;		/* the function's address in /proc/kallsyms (0: hidden) */
	u16 iter_args;		/* an iterator's: its target's NULL-able arguments
				 * (src/verifier/attach_btf.c) */
	char name[128];		/* the function's or tracepoint's */
};

struct bpf_prog {
	struct bpf_object obj;		/* must stay first */
	bool has_tail_call;		/* some bpf_tail_call(): runs reset the tail call count */
	bool jited;			/* the JIT was on at load (the kernel's prog->jited, which
					 * program arrays compare), whether or not it took it */
	u32 type;			/* enum bpf_prog_type */
	u32 expected_attach_type;
	bool enforce_expected_attach_type; /* a cgroup skb program attaches as expected_attach_type
					    * only (the verifier saw egress-only return values) */
	u32 prog_flags;
	u32 kern_version;
	bool gpl_compatible;		/* license allows GPL-only helpers */
	char name[BPF_OBJ_NAME_LEN];
	/* A tracing program's attach target (attach_btf_id, a type of the kernel's BTF), which
	 * src/verifier/attach_btf.c checks and types the ctx by. */
	struct prog_attach attach;

	/* The instructions.  Before bpf_check(): as the user passed them.  After: verified, with
	 * each map reference (LD_IMM64 src_reg BPF_PSEUDO_MAP_FD / BPF_PSEUDO_MAP_VALUE) holding
	 * the address (struct bpf_map *, or the map value's address) split over the two imm
	 * halves, low 32 bits first, as the kernel does; other rewrites are the verifier's. */
	struct bpf_insn *insns;
	u32 len;
	/* From the verifier for the JIT: bit per insn, a conditional jump between packet pointers
	 * near data at every visit (jit_opts.pkt_cmp); NULL when there is none. */
	u8 *pkt_cmp;

	/* Maps the program uses, each with a reference taken (obj_get) by the verifier. */
	struct bpf_map **used_maps;
	u32 used_map_cnt;
	/* Maps bound after load by BPF_PROG_BIND_MAP (bind_map.c), a reference each, in the order
	 * they came; listed after used_maps in the info's map_ids.  Only grows while the program
	 * lives; guarded by bind_map.c's lock. */
	struct prog_bound_map *bound_maps;
	/* Its cgroup storage maps among them: shared, per CPU (NULL: none); what a test run
	 * makes storage for (src/map/cgroup_storage.h). */
	struct bpf_map *cgroup_storage[2];

	u32 stack_depth;		/* main's stack use in bytes, from the verifier */
	u32 max_ctx_offset;		/* end of the furthest ctx field the program reads or
					 * writes, from the verifier (a raw tracepoint's test run
					 * needs that much ctx) */
	u32 verified_insns;		/* instructions the verifier processed */
	u8 tag[BPF_TAG_SIZE];		/* the kernel's tag: SHA-256 of the loaded insns (info.c) */
	u64 load_time;			/* CLOCK_BOOTTIME ns at load */
	u32 uid;			/* who loaded it */
	/* Runs and their time while BPF_ENABLE_STATS is on (stats.h): the one part of a loaded
	 * program that its runs write, as the kernel's prog->stats. */
	struct prog_run_stats {
		u64 cnt;
		u64 nsecs;
	} stats;
	/* BPF_STDOUT and BPF_STDERR (stream.h): what its runs wrote and no one read yet. */
	struct prog_stream streams[2];

	/* BTF of the load (prog_btf_fd with func/line info), a reference; NULL without. */
	struct btf *btf;
	/* BTF objects fd_array bound (fd_array_cnt), a reference each, as the kernel's used_btfs
	 * (for module kfuncs, which userbpf has not: only held). */
	struct btf **used_btfs;
	u32 used_btf_cnt;
	struct bpf_func_info *func_info;	/* per subprogram */
	u32 func_info_cnt;
	struct bpf_line_info *linfo;
	u32 nr_linfo;

	struct interp_prog *interp;	/* prepared for the interpreter (NULL until then) */
	struct jit_prog *jit;		/* native code when the JIT is on and took it, else NULL:
					 * runs use it first, the interpreter otherwise */

	/* USERBPF_PROG_TYPE_EXT only; zero for every other type. */
	u32 ctx_size;			/* bytes of ctx the program may access */
	bool ctx_writable;		/* whether it may store to them */
	/* Helper prototypes indexed by helper id: nr_ext_helpers entries, an entry whose func is
	 * NULL is not callable.  Holds the registered helpers and, if the loader asked, the map
	 * helpers; what prog_helper_proto() answers from. */
	const struct bpf_func_proto *ext_helpers;
	u32 nr_ext_helpers;
	u32 ext_unwind_id;		/* a helper whose 0 result ends the run (0: none) */
	void *ext_mem;			/* the one allocation behind ext_helpers; freed with prog */
};

/* info.c: the tag (with load_time and uid), before verification; BPF_OBJ_GET_INFO_BY_FD of a
 * program. */
int prog_calc_tag(struct bpf_prog *prog);
int prog_get_info(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);

/* The Unix socket hooks of cgroup sock_addr programs (6.7+), which Debian 12's uapi header (6.1's)
 * does not name: their enum bpf_attach_type values. */
#define ATTACH_CGROUP_UNIX_CONNECT 49u
#define ATTACH_CGROUP_UNIX_SENDMSG 50u
#define ATTACH_CGROUP_UNIX_RECVMSG 51u
#define ATTACH_CGROUP_UNIX_GETPEERNAME 52u
#define ATTACH_CGROUP_UNIX_GETSOCKNAME 53u

/* A cgroup sock_addr program's hook by what its return value may say: none (not a hook of the
 * type), bind (0..3: refuse, allow, and either without the port's privilege check), connect and
 * sendmsg (refuse or allow), or the name and recvmsg hooks (1: they cannot refuse). */
enum sock_addr_hook { SA_HOOK_NONE, SA_HOOK_BIND, SA_HOOK_CAN_REFUSE, SA_HOOK_MUST_ALLOW };

static inline enum sock_addr_hook sock_addr_hook(u32 expected_attach_type)
{
	switch (expected_attach_type) {
	case BPF_CGROUP_INET4_BIND:
	case BPF_CGROUP_INET6_BIND:
		return SA_HOOK_BIND;
	case BPF_CGROUP_INET4_CONNECT:
	case BPF_CGROUP_INET6_CONNECT:
	case ATTACH_CGROUP_UNIX_CONNECT:
	case BPF_CGROUP_UDP4_SENDMSG:
	case BPF_CGROUP_UDP6_SENDMSG:
	case ATTACH_CGROUP_UNIX_SENDMSG:
		return SA_HOOK_CAN_REFUSE;
	case BPF_CGROUP_INET4_GETPEERNAME:
	case BPF_CGROUP_INET6_GETPEERNAME:
	case ATTACH_CGROUP_UNIX_GETPEERNAME:
	case BPF_CGROUP_INET4_GETSOCKNAME:
	case BPF_CGROUP_INET6_GETSOCKNAME:
	case ATTACH_CGROUP_UNIX_GETSOCKNAME:
	case BPF_CGROUP_UDP4_RECVMSG:
	case BPF_CGROUP_UDP6_RECVMSG:
	case ATTACH_CGROUP_UNIX_RECVMSG:
		return SA_HOOK_MUST_ALLOW;
	default:
		return SA_HOOK_NONE;
	}
}

/* tc programs: classifiers and actions, which the kernel treats alike (tc_cls_act). */
static inline bool prog_type_is_tc(u32 type)
{
	return type == BPF_PROG_TYPE_SCHED_CLS || type == BPF_PROG_TYPE_SCHED_ACT;
}

/* Program types that may write their packet (the kernel's may_access_direct_pkt_data() for a
 * write; the verifier's may_access_pkt()). */
static inline bool prog_may_write_pkt(u32 type)
{
	return prog_type_is_tc(type) || type == BPF_PROG_TYPE_XDP ||
	       type == BPF_PROG_TYPE_LWT_XMIT || type == BPF_PROG_TYPE_SK_SKB ||
	       type == BPF_PROG_TYPE_SK_MSG || type == BPF_PROG_TYPE_CGROUP_SOCKOPT;
}

/* Lightweight tunnel programs: on the way in, out, or to transmit. */
static inline bool prog_type_is_lwt(u32 type)
{
	return type == BPF_PROG_TYPE_LWT_IN || type == BPF_PROG_TYPE_LWT_OUT ||
	       type == BPF_PROG_TYPE_LWT_XMIT;
}

static inline struct bpf_prog *prog_of(struct bpf_object *obj)
{
	return container_of(obj, struct bpf_prog, obj);
}

/* The prototype of helper func_id for prog: the registered one (ext_helpers) for the extension
 * type, bpf_helper_proto(func_id, prog->type) otherwise.  NULL: prog may not call func_id.  What
 * the verifier calls for every helper call (src/prog/ext.c). */
const struct bpf_func_proto *prog_helper_proto(const struct bpf_prog *prog, u32 func_id);

/* The end of a load after the attr checks (src/prog/load.c): bpf_check() with attr's log fields,
 * preparation for the interpreter, installation as an fd.  Returns the fd; on failure frees
 * prog (and what the verifier took) and returns -errno. */
int prog_verify_install(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr,
			u32 usize);

/* BPF_PROG_TEST_RUN of an extension program (src/prog/ext.c). */
int test_run_ext(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);

/* bpf() commands (src/prog/). */
int prog_load(union bpf_attr *attr, union bpf_attr *uattr, u32 usize);
/* Whether userbpf loads programs of type (others: EINVAL, as a kernel built without them). */
bool prog_type_supported(u32 type);
int prog_test_run(union bpf_attr *attr, union bpf_attr *uattr, u32 usize);
int prog_bind_map(const union bpf_attr *attr);		/* bind_map.c */
int prog_enable_stats(const union bpf_attr *attr);	/* stats.c */

/* bind_map.c: the ids of prog's maps as the info lists them (used_maps, then the bound ones):
 * *ids a new array of *cnt entries (free() it); 0 or -ENOMEM. */
int prog_map_ids(const struct bpf_prog *prog, u32 **ids, u32 *cnt);
/* bind_map.c: drops the bound maps' references (prog_free()). */
void prog_unbind_maps(struct bpf_prog *prog);

/* BPF_PROG_LOAD's fields past our uapi header (6.14's fd_array_cnt, 6.18's signature), read
 * where the kernel's union has them. */
#define ATTR_FD_ARRAY_CNT_OFF 148
#define ATTR_SIGNATURE_OFF 152
static inline u32 attr_fd_array_cnt(const union bpf_attr *attr)
{
	u32 cnt;

	memcpy(&cnt, (const u8 *)attr + ATTR_FD_ARRAY_CNT_OFF, sizeof(cnt));
	return cnt;
}

#endif
