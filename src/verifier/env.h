/* The verifier's internal state: the environment of one bpf_check() run, the abstract machine
 * state (registers, stack, call frames) it walks the program with, and the prototypes of the
 * verifier's modules.  Every other file under src/verifier/ (except the tnum/scalar domains)
 * includes this one.
 *
 * The abstract machine follows the kernel's model.  A verifier state is a stack of call frames;
 * each frame has eleven registers and its own stack.  A register holds a type (enum reg_type) and,
 * for scalars and the variable part of pointers, a struct scalar.  A pointer's value is
 * base + off + (the scalar part), where off is a fixed s32 offset and the scalar part is usually
 * the constant 0.  The stack is a set of 8-byte slots, each byte typed (enum slot_type); a slot
 * holding a spilled register keeps the register's full state.
 *
 * Exploration is depth-first with an explicit stack of pending branch states (no recursion on
 * program structure).  At prune points (jump targets and fall-throughs of conditional jumps) the
 * current state is compared with states kept there (the kernel's checkpoint policy decides which
 * are kept); a state contained in an explored one is not walked again.  See states.c.  Scalars
 * whose value some check depended on are marked precise in the explored states by backtracking
 * through the path's history (precision.c); the others match anything when pruning.
 */
#ifndef USERBPF_VERIFIER_ENV_H
#define USERBPF_VERIFIER_ENV_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stdarg.h>

#include "insn.h"
#include "util.h"
#include "map/map.h"
#include "verifier/scalar.h"
#include "verifier/tnum.h"

struct bpf_prog;
struct bpf_map;
struct bpf_func_proto;

/* MAX_BPF_REG (11: R0..R10) comes from <linux/bpf.h> */
#define BPF_REG_FP 10
#define MAX_BPF_STACK 512	/* bytes of stack per program (all frames together) */
#define MAX_CALL_FRAMES 8
#define MAX_SUBPROGS 256
#define BPF_COMPLEXITY_LIMIT_INSNS 1000000
#define BPF_COMPLEXITY_LIMIT_JMP_SEQ 8192
#define BPF_MAX_VAR_OFF (1 << 29)	/* bound on a pointer's variable offset */
#define BPF_MAX_VAR_SIZ (1 << 29)
#define MAX_USED_MAPS 64
#define MAX_ACQUIRED_REFS 64
#define SLOT_SIZE 8

enum reg_type {
	NOT_INIT = 0,
	SCALAR_VALUE,
	PTR_TO_CTX,
	CONST_PTR_TO_MAP,
	PTR_TO_MAP_VALUE,
	PTR_TO_MAP_VALUE_OR_NULL,
	PTR_TO_STACK,
	PTR_TO_PACKET_META,
	PTR_TO_PACKET,
	PTR_TO_PACKET_END,
	PTR_TO_RINGBUF_MEM,		/* a ring buffer record (mem_size bytes) held */
	PTR_TO_RINGBUF_MEM_OR_NULL,	/* bpf_ringbuf_reserve()'s, before its NULL check */
	PTR_TO_SOCK_COMMON,		/* a socket (struct bpf_sock, common fields), read only */
	PTR_TO_SOCK_COMMON_OR_NULL,	/* __sk_buff.sk, before its NULL check */
	PTR_TO_FUNC,			/* a callback (LD_IMM64 BPF_PSEUDO_FUNC): subprogno */
	PTR_TO_MAP_KEY,			/* a map's key, read only (a for_each callback's R2) */
	PTR_TO_MEM,			/* mem_size bytes (a global function's pointer argument;
					 * a dynptr's slice, dynptr_id its dynptr) */
	PTR_TO_MEM_OR_NULL,		/* the same, before its NULL check */
	CONST_PTR_TO_MAP_OR_NULL,	/* a map of maps' lookup result: an inner map (map: the
					 * template), before its NULL check */
	PTR_TO_FLOW_KEYS,		/* a flow dissector's struct bpf_flow_keys (__sk_buff's
					 * flow_keys), read and written at constant offsets */
	PTR_TO_SOCKET,			/* a full socket (struct bpf_sock), read only: a cgroup
					 * sock_addr program's ctx->sk */
	PTR_TO_SOCKET_OR_NULL,		/* bpf_sk_fullsock()'s, before its NULL check */
	PTR_TO_TCP_SOCK,		/* a TCP socket's struct bpf_tcp_sock, read only */
	PTR_TO_TCP_SOCK_OR_NULL,	/* bpf_tcp_sock()'s, before its NULL check */
	PTR_TO_XDP_SOCK,		/* an AF_XDP socket's struct bpf_xdp_sock, read only */
	PTR_TO_XDP_SOCK_OR_NULL,	/* an XSKMAP lookup's, before its NULL check */
	CONST_PTR_TO_DYNPTR,		/* a dynptr the program did not make, which it may read
					 * through helpers only (a user ring buffer callback's R1;
					 * dynptr_type its kind) */
	PTR_TO_RDONLY_MEM,		/* PTR_TO_MEM that may only be read (the kernel's
					 * PTR_TO_MEM | MEM_RDONLY: bpf_dynptr_slice()'s) */
	PTR_TO_RDONLY_MEM_OR_NULL,	/* the same, before its NULL check */
	/* A kernel object of the type btf_id (vmlinux BTF), read at constant offsets that BTF
	 * says are fields (btf_access.c); loads through it never fault (BPF_PROBE_MEM).  The
	 * kernel's PTR_TO_BTF_ID with its trust flags: */
	PTR_TO_BTF_ID_TRUSTED,		/* valid for the program's run: a helper's result
					 * (bpf_get_current_task_btf()) */
	PTR_TO_BTF_ID_RCU,		/* valid inside the RCU section (MEM_RCU): a field the
					 * kernel lists as RCU-protected, read from a trusted one */
	PTR_TO_BTF_ID_UNTRUSTED,	/* anything else read through one: may be NULL or stale */
	PTR_TO_RDONLY_UNTRUSTED_MEM,	/* a pointer field to something not a struct (void *,
					 * char *...): memory of unknown size (mem_size 0) */
	PTR_TO_BTF_ID,			/* a kfunc's result (the kernel's plain PTR_TO_BTF_ID):
					 * trusted while it holds a reference (ref_obj_id, an
					 * acquiring kfunc's), which a release kfunc ends */
	PTR_TO_BTF_ID_OR_NULL,		/* the same, before its NULL check */
	PTR_TO_BTF_ID_RCU_OR_NULL,	/* an RCU-protected iterator's _next() result, a
					 * referenced kptr's load, before its NULL check */
	PTR_TO_BTF_ID_UNTRUSTED_OR_NULL, /* another kptr's load, before its NULL check */
	PTR_TO_BTF_ID_TRUSTED_OR_NULL,	/* a tp_btf argument that may be NULL, before its NULL
					 * check */
	PTR_TO_PERCPU_BTF_ID,		/* a per-CPU kernel variable of type btf_id (a typed
					 * ksym, MEM_PERCPU): not to be read, but through
					 * bpf_per_cpu_ptr() and bpf_this_cpu_ptr() */
	REG_TYPE__COUNT
};

/* One register.
 *   type      what it holds; NOT_INIT registers may not be read.
 *   off       pointers: fixed offset from the base (bytes); 0 for scalars.
 *   s         scalars: the value; pointers: the variable offset (a constant 0 unless variable
 *             arithmetic was done; always within +-BPF_MAX_VAR_OFF).
 *   id        MAP_VALUE_OR_NULL: shared by all copies of one lookup result, so a NULL check on
 *             one refines all; PACKET: shared by copies with the same variable offset, so a range
 *             learnt on one applies to all; SCALAR: shared by copies (linked scalars), 0 = none.
 *   frameno   PTR_TO_STACK: the frame whose stack it points into.
 *   range     PACKET*: bytes from the pointer's off known to be inside the packet; or, after a
 *             comparison proved the pointer at or beyond pkt_end, PKT_AT_END / PKT_BEYOND_END
 *             (negative: no access, and the next such comparison is decided).
 *   map       CONST_PTR_TO_MAP, MAP_VALUE(_OR_NULL): the map (the program holds a reference).
 */
enum { PKT_AT_END = -1, PKT_BEYOND_END = -2 };

/* A scalar that is a linked scalar plus a constant (rX = rY; rX += 5) keeps rY's id with this
 * bit and the constant in delta; 6.18 prints it "id=1+5".  Such an id links to nothing else
 * (the kernel running here refines neither side from the other), and a copy gets a fresh id. */
#define ID_ADD_CONST (1u << 31)

struct reg_state {
	u8 type;
	u8 frameno;
	u8 precise;		/* scalars in explored states: the value's bounds matter to some
				 * later check (precision.c); an imprecise one matches any scalar */
	s32 off;
	u32 id;
	union {
		s32 range;	/* PACKET* */
		s32 delta;	/* SCALAR with ID_ADD_CONST: this = the id's scalar + delta */
		s32 subprogno;	/* FUNC: the callback's subprogram */
	};
	struct bpf_map *map;
	u32 ref_obj_id;		/* the reference it holds: RINGBUF_MEM* (a reserved record),
				 * sockets, PTR_TO_BTF_ID* (an acquired kernel object) */
	u32 mem_size;		/* RINGBUF_MEM*, MEM*: bytes it points at */
	u32 dynptr_id;		/* MEM*: the dynptr it is a slice of (its id), 0 if none */
	u8 dynptr_type;		/* CONST_PTR_TO_DYNPTR, and a STACK_DYNPTR slot's spilled state:
				 * its kind (dynptr.h's DYNPTR_TYPE_*) */
	bool dynptr_first;	/* a STACK_DYNPTR slot's: whether it is the dynptr's first slot */
	/* RDONLY_MEM*: the stack buffer a bpf_dynptr_slice() may have returned instead of the
	 * dynptr's memory, buf_size bytes at buf_off of frame buf_frame (6.18.44's "buf="): a
	 * write there makes the slice an unknown scalar.  buf_size 0: none. */
	u8 buf_frame;
	s16 buf_off;
	u16 buf_size;
	/* A STACK_ITER slot's spilled state: the iterator's struct (its kernel BTF id), whether
	 * it is active or drained (ITER_*), and how many _next() rounds led here.  Its first slot
	 * holds the reference (ref_obj_id). */
	u32 iter_btf_id;
	u32 iter_depth;
	u8 iter_rcu;		/* ITER_RCU_*: an iterator valid only in an RCU section, and
				 * whether that section ended */
	u32 btf_id;		/* PTR_TO_BTF_ID*: the struct's vmlinux BTF id */
	u8 iter_state;
	struct scalar s;
};

enum slot_type {
	STACK_INVALID = 0,	/* never written: may not be read */
	STACK_SPILL,		/* part of a spilled register */
	STACK_MISC,		/* some initialised bytes of unknown value */
	STACK_ZERO,		/* known zero */
	STACK_DYNPTR,		/* half of a struct bpf_dynptr (dynptr.c): its state in spilled */
	STACK_ITER,		/* part of an open-coded iterator (iter.c): its state in spilled */
};

struct stack_slot {
	u8 type[SLOT_SIZE];	/* per byte, as the kernel indexes them: type[j] is the byte at
				 * fp - 8 * slot - 1 - j (type[7] is the slot's lowest byte) */
	struct reg_state spilled; /* valid when all 8 bytes are STACK_SPILL; or a 32-bit spill's
				    * low 4 bytes (types[0..3] SPILL) */
};

/* One call frame.  stack[i] covers bytes [-8(i+1), -8i) of the frame pointer. */
struct func_state {
	struct reg_state regs[MAX_BPF_REG];
	u32 frameno;
	u32 subprogno;
	int callsite;		/* insn index of the call that made this frame, -1 for main */
	u32 allocated;		/* number of valid entries in stack[] */
	struct stack_slot *stack;
	/* A callback's frame (bpf_loop, bpf_for_each_map_elem): its exit returns to the helper
	 * call (callsite), which may run it again, and must return R0 in [0, 1]. */
	bool in_callback_fn;
	/* A timer callback's frame (bpf_timer_set_callback): the first of a path of its own,
	 * which ends at its exit with R0 0. */
	bool in_async_callback_fn;
	/* The caller's count of bpf_loop callback rounds pushed since the last call of
	 * bpf_loop from this frame (the kernel's callback_depth): at R1's umax no more. */
	u32 callback_depth;
};

/* The path history of a state since its parent checkpoint (the kernel's jump history): an entry
 * for each visit of a jump target (prev_idx: where control came from) and for each instruction
 * that spilled a register to / filled one from a stack slot (flags) or whose conditional jump
 * refined linked scalars (linked).  Other instructions were reached from the one before. */
#define HIST_STACK 0x8000	/* flags: a spill/fill of slot (flags & 63) of frame (flags >> 6 & 7) */
struct hist_ent {
	int idx;
	int prev_idx;
	u16 flags;
	u8 nlinked;
	u16 linked[6];		/* frame << 8 | is_reg << 7 | regno or slot */
};

/* A whole verifier state.  parent: the latest explored (checkpointed) state this state descends
 * from; branches: in an explored state, how many paths descending from it are still being walked
 * (0 = fully explored, safe to prune against). */
struct vstate {
	struct func_state *frame[MAX_CALL_FRAMES];
	u32 curframe;
	u32 branches;
	int insn_idx;		/* explored states: where it was seen */
	struct vstate *parent;
	struct vstate *next;	/* list of explored states at one insn */
	u32 hit_cnt, miss_cnt;	/* explored states: pruning statistics, for eviction */
	u32 all_idx;		/* explored states: index in env->all_states */
	bool evicted;		/* explored states: dropped from its bucket, freed when
				 * branches reaches 0 (the kernel's free list) */
	bool all_precise;	/* explored states: every scalar here and in the parents is
				 * precise (precision.c's fallback) */
	int first_insn_idx;	/* the first insn of this state's path segment */
	int last_insn_idx;	/* explored states: the insn before insn_idx on the path */
	struct hist_ent *hist;	/* the segment's history (precision.c) */
	u32 hist_cnt, hist_cap;
	/* References the path holds (ring buffer records reserved, not yet submitted or
	 * discarded): each must be released before the program ends.  A bpf_spin_lock held is
	 * one too (REF_LOCK, its id the map value's), as 6.18 keeps it (and prints it). */
	u32 nrefs;
	u32 ref_id[MAX_ACQUIRED_REFS];
	int ref_insn[MAX_ACQUIRED_REFS];	/* where it was acquired */
	u8 ref_type[MAX_ACQUIRED_REFS];		/* REF_PTR or REF_LOCK */
	u32 active_locks;			/* REF_LOCK entries (0 or 1) */
	bool active_rcu_lock;			/* inside bpf_rcu_read_lock() (6.18: not nested) */
	u32 active_preempt_locks;		/* bpf_preempt_disable()s not yet enabled */
	u32 callback_unroll_depth;		/* callback rounds pushed on this path */
	u32 may_goto_depth;			/* may_goto rounds pushed on this path */
	/* How many states the path checkpointed before this one (the kernel's dfs_depth): an
	 * explored state still walked with a smaller depth is an earlier visit of the path. */
	u32 dfs_depth;
	const struct vstate *equal_state;	/* a back edge's copy: the explored state it
						 * was found equal to (states.c) */
};

enum { REF_PTR = 0, REF_LOCK = 1 };

/* A global function's argument kinds: an integer, the program's ctx, a pointer to memory of a
 * known size (arg_size; maybe NULL, as 6.18 assumes without an __arg_nonnull tag), a pointer to
 * something without a size (void *: 6.18 refuses every call). */
enum { GARG_SCALAR = 1, GARG_CTX, GARG_MEM, GARG_UNSIZED, GARG_DYNPTR };

struct subprog_info {
	int start;		/* first insn; subprog[cnt].start == len (sentinel) */
	u32 stack_depth;	/* deepest stack use seen, rounded to 8 */
	/* A global function (BTF linkage) whose prototype we model: verified once on its own,
	 * assuming only its prototype, not walked at each call (the kernel's global subprogs). */
	bool global;
	bool called, verified;	/* global: a call was seen; it was verified */
	bool bad_ret;		/* global, returning no integer: every call is refused */
	/* It or a function it calls may call a helper that moves the packet
	 * (bpf_func_proto.changes_pkt_data): a call of it, global, invalidates packet pointers. */
	bool changes_pkt_data;
	/* It or a function it calls may call a helper or kfunc that sleeps: a call of it, global,
	 * needs a context that may sleep. */
	bool might_sleep;
	u8 nargs;
	u8 arg[5];		/* GARG_*: R1..R5 */
	u32 arg_size[5];	/* GARG_MEM: bytes; GARG_UNSIZED (a pointer to a type without a
				 * size, which no call may pass): the pointee's type id */
	const char *name;	/* global: the BTF name */
	/* A timer's callback, which runs later on a stack of its own: the stack depth check
	 * (check_stack_depth()) walks it on its own. */
	bool is_async_cb;
	/* An async callback that may return any int (task work's); others return 0. */
	bool async_any_return;
	/* The callback of a helper call the verifier walked (a timer's too): no tail call may
	 * run in it or below it (check_stack_depth()). */
	bool is_cb;
};

/* Per instruction data. */
struct insn_aux {
	u8 seen;		/* reached by do_check */
	u8 prune_point;		/* states are checkpointed here */
	u8 jmp_point;
	u8 ctx_field;		/* ctx access rewritten: 1 data, 2 data_end, 3 data_meta */
	u8 ptr_type;		/* memory insns: the pointer type first seen (kernel: "same insn
				 * cannot be used with different pointers") */
	struct bpf_map *map;	/* LD_IMM64 of a map: the map (a used_maps entry) */
	u32 map_off;		/* BPF_PSEUDO_MAP_VALUE: offset into the value */
	/* BPF_PSEUDO_BTF_ID: what the kernel symbol loads as (ldimm64.c): the register type,
	 * its BTF id (a variable's type) or bytes (read-only memory) */
	u8 ksym_type;
	u32 ksym_btf_id, ksym_size;
	u32 scc;		/* the strongly connected component (loop) of the insn, numbered
				 * from 1; 0 when it is in none (compute_scc()) */
	u16 live_regs;		/* bit r: Rr is live before the insn (compute_live_registers());
				 * the second half of an LD_IMM64 has 0 */
	u8 ld_imm64_hi;		/* the second half of an LD_IMM64 */
	/* A helper call that runs a callback (bpf_loop, bpf_for_each_map_elem): a state is
	 * always kept here, and a callback's exit comes back here (the kernel's calls_callback
	 * and force_checkpoint). */
	u8 calls_callback;
	/* A call of an iterator's _next() kfunc: a state is always kept here, against which the
	 * loop's rounds converge (the kernel's is_iter_next_insn() and force_checkpoint). */
	u8 iter_next;
	/* A may_goto: a state is always kept here too (force_checkpoint), against which its
	 * rounds converge. */
	u8 may_goto;
	/* bpf_loop: whether every visit had flags 0 and the same callback (the kernel's
	 * loop_inline_state, which asks R4 to be precise while it holds). */
	u8 loop_inline_seen, loop_inline_fit;
	u32 loop_inline_sub;
	/* A 64-bit conditional jump on two registers: 1 set when a visit had a packet pointer
	 * (data, data_meta or data_end) in both, 2 when a visit had something else in one (the
	 * JIT may rearrange the first kind only: jit_opts.pkt_cmp). */
	u8 pkt_cmp;
};

/* The kernel's BPF_LOG_LEVEL: instructions are logged at level 1 and at level 2 alike. */
#define BPF_LOG_LEVEL_ANY 3u

struct vlog {
	u32 level;
	char *ubuf;		/* user buffer, NULL when only counting */
	u32 len_total;		/* user buffer size */
	u64 start_pos, end_pos;	/* logical positions in the log stream (rotating mode) */
	u64 len_max;		/* longest the log was */
	bool fixed;		/* BPF_LOG_FIXED: keep the head, drop the rest */
	bool truncated;
};

struct pending {		/* a branch state still to be walked */
	struct vstate *st;
	int insn_idx;
	int prev_insn_idx;
	u64 log_pos;
};

struct verifier_env {
	const struct map_kptr *kptr_xchg; /* the bpf_kptr_xchg() call's kptr, its R1 checked */
	u32 percpu_btf_id;	/* a per-CPU variable helper's call: its R1's type */
	struct bpf_prog *prog;
	struct bpf_insn *insns;
	u32 len;
	struct insn_aux *aux;
	struct vlog log;
	struct subprog_info subprog[MAX_SUBPROGS + 1];
	u32 subprog_cnt;
	struct stack_live *sl;	/* 6.18's stack liveness pass, for level-2 logs (stack_live.c) */
	struct scc_visit *scc_visits; /* loops entered on the current paths (states.c) */
	u32 scc_visit_cnt, scc_visit_cap;

	struct vstate *cur;	/* the state being walked */
	int insn_idx, prev_insn_idx;
	struct pending *stack;	/* pending branches */
	u32 stack_size, stack_cap;

	u32 insn_processed, prev_insn_processed;
	u32 jmps_processed, prev_jmps_processed;
	u32 total_states, peak_states, max_states_per_insn;
	u32 explored_states_size; /* explored states in the buckets */
	u32 free_list_size;	/* evicted ones still walked below (count in peak_states) */
	u32 num_backedges;	/* loop back edges kept until their loop is left (states.c) */
	struct vstate **explored; /* len buckets of explored states (states.c) */
	u32 id_gen;
	u64 fd_array;		/* BPF_PROG_LOAD's fd_array (a module kfunc's BTF would be there) */
	bool hist_this_insn;	/* cur->hist's last entry is the current insn's */
	int path_prev;		/* the insn before the current one on the current path */
	bool scratched[MAX_BPF_REG]; /* registers changed by the current insn (for the log) */
	bool stack_scratched;
	/* A load the verifier allowed that the kernel then has no conversion for (the high
	 * half of a struct bpf_tcp_sock u64): the kernel's "verifier bug" EFAULT after the
	 * walk. */
	bool ctx_unconvertible;
	u64 scratched_slots;	/* bit i: slot i of the current frame changed */
	u64 prev_log_pos;	/* log position after the current insn's text */
	u64 insn_log_len;	/* its length, for the state comment's column */

	struct vstate **all_states; /* every explored state, for freeing */
	u32 all_cnt, all_cap;
	struct bpf_map **used_maps;
	u32 used_map_cnt;
	int16_t insn_first[256];

	/* BTF of PROG_LOAD (btf_info.c), each NULL/0 without it; moved to the program on success */
	struct btf *btf;	/* prog_btf_fd's BTF, a reference */
	struct bpf_func_info *func_info;
	u32 func_info_cnt;
	struct bpf_line_info *linfo; /* sorted by insn_off, one at each subprogram's start */
	u32 nr_linfo;
	const struct bpf_line_info *prev_linfo; /* the last source line the log printed */

	/* USERBPF_PROG_TYPE_EXT: the application's ctx, described as a map value of ctx_size
	 * bytes so that accesses get the map-value checks (constant and proven variable offsets),
	 * and BPF_F_RDONLY_PROG when the program may not write it.  R1 points at it. */
	struct bpf_map ext_ctx;
};

static inline void *u64_to_voidp(u64 v)
{
	return v > UINTPTR_MAX ? NULL : (void *)(uintptr_t)v;
}

/* log.c */
void verbose(struct verifier_env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vlog_init(struct vlog *log, u32 level, u64 ubuf, u32 size);
/* The sink for logs that are not the verifier's (BPF_BTF_LOAD): the same buffer rules. */
void vlog_printf(struct vlog *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vlog_vprintf(struct vlog *log, const char *fmt, va_list ap);
void vlog_reset(struct vlog *log, u64 pos);
int vlog_finalize(struct vlog *log);
bool vlog_on(const struct vlog *log);

/* disasm.c: the kernel's text for one instruction, without the "N: " prefix or newline. */
void print_insn(struct verifier_env *env, const struct bpf_insn *insn);
/* "bpf_map_lookup_elem" for 1; "unknown" for ids the uapi list does not have. */
const char *helper_name_of(s32 id);

/* regs.c */
const char *reg_type_str(u8 type);
void mark_reg_unknown(struct reg_state *reg);
void mark_reg_not_init(struct reg_state *reg);
void mark_reg_const(struct reg_state *reg, u64 v);
void mark_ptr(struct reg_state *reg, u8 type);
bool reg_is_ptr(const struct reg_state *reg);
bool reg_is_pkt(const struct reg_state *reg);
/* The type a NULL check leaves a maybe-NULL pointer type with (any other type: itself). */
u8 reg_type_not_null(u8 type);
/* A pointer a NULL check turns into its non-NULL type (the kernel's type_may_be_null()). */
bool reg_may_be_null(const struct reg_state *reg);
/* The maybe-NULL type of a pointer type that has one (the inverse of reg_type_not_null()). */
u8 reg_type_or_null(u8 type);
/* The first (upper) slot of the nr_slots-slot object (a dynptr, an iterator: kind) reg points
 * at, or a negative errno: -EINVAL with a message for an offset that cannot hold one, -ERANGE
 * (silent) when it lies beyond the stack allocated so far (the kernel's
 * stack_slot_obj_get_spi()). */
int stack_obj_spi(struct verifier_env *env, const struct reg_state *reg, const char *kind,
		  int nr_slots);
/* Stack bytes [lo, hi) of frame frameno were written: slices that may be a buffer there go. */
void forget_buf_slices(struct verifier_env *env, u32 frameno, s64 lo, s64 hi);
/* PTR_TO_MEM or PTR_TO_RDONLY_MEM, NULL-checked or not: memory of mem_size bytes. */
bool reg_is_mem(const struct reg_state *reg);
/* A kernel object's pointer type that may be dereferenced (PTR_TO_BTF_ID*, not _OR_NULL). */
bool is_btf_ptr_type(u8 type);
/* A kernel object's pointer, NULL-checked or not. */
bool reg_is_btf_id(const struct reg_state *reg);
/* The kernel's is_trusted_reg() for kernel objects: trusted (bpf_get_current_task_btf()'s), or
 * holding a reference (an acquiring kfunc's). */
bool reg_is_trusted_btf(const struct reg_state *reg);
/* A load or store of size bytes at regno's pointer + off (its fixed offset included) to a
 * kernel object (btf_access.c); the loaded value goes to value_regno (-1: none). */
int check_btf_access(struct verifier_env *env, u32 regno, s32 off, int size, bool write,
		     int value_regno);
/* Whether the struct btf_id at off is, or begins with, the struct want_id (btf_access.c). */
bool btf_ids_match(struct verifier_env *env, u32 btf_id, int off, u32 want_id);
/* bpf_rcu_read_unlock(): the RCU pointers the state holds become untrusted. */
void btf_rcu_unlock(struct verifier_env *env);
/* The kernel's in_rcu_cs(): inside bpf_rcu_read_lock(), under a bpf_spin_lock, or anywhere in a
 * program that cannot sleep. */
bool in_rcu_cs(const struct verifier_env *env);

/* kptrs (kptr.c).  A load or store (insn; value_regno the loaded or stored register) exactly at kptr k. */
int check_map_kptr_access(struct verifier_env *env, int value_regno,
			  const struct bpf_insn *insn, const struct map_kptr *k);
/* Whether the pointer in regno may go into kptr k (6.18's map_kptr_match_type()). */
int kptr_match_type(struct verifier_env *env, const struct map_kptr *k, u32 regno);
/* bpf_kptr_xchg()'s destination in regno: a referenced kptr at a constant offset of a map
 * value; NULL after the kernel's message, *err its errno. */
const struct map_kptr *check_kptr_xchg_dest(struct verifier_env *env, u32 regno, int *err);
/* The name of the vmlinux struct btf_id (btf_access.c) */
const char *btf_id_name(u32 btf_id);
/* Calls fn on every register of every frame of st, spilled ones included. */
typedef void (*reg_fn)(struct reg_state *reg, void *arg);
void for_each_reg(struct vstate *st, reg_fn fn, void *arg);
bool reg_is_const(const struct reg_state *reg);
void init_func_state(struct func_state *f, int callsite, u32 frameno, u32 subprogno);
struct vstate *state_new(void);
int state_copy(struct vstate *dst, const struct vstate *src);
void state_free(struct vstate *st);
int grow_stack(struct func_state *f, u32 slots);
void mark_all_scratched(struct verifier_env *env);
void print_state(struct verifier_env *env, const struct vstate *vs, const struct func_state *f,
		 bool all);
int snprint_reg(char *buf, size_t size, const struct func_state *f, const struct reg_state *reg);
static inline struct func_state *cur_frame(struct verifier_env *env)
{
	return env->cur->frame[env->cur->curframe];
}
static inline struct reg_state *cur_regs(struct verifier_env *env)
{
	return cur_frame(env)->regs;
}

/* cfg.c */
int add_subprogs(struct verifier_env *env);
int check_subprogs(struct verifier_env *env);
int check_cfg(struct verifier_env *env);
int find_subprog(struct verifier_env *env, int off);
/* Whether subprogram sub's code (reachable or not) holds an instruction pred picks: an LD_ABS or
 * LD_IND, a call of bpf_tail_call(). */
bool subprog_has_insn(const struct verifier_env *env, u32 sub,
		      bool (*pred)(const struct bpf_insn *));
bool insn_is_ld_abs(const struct bpf_insn *in);
bool insn_is_tail_call(const struct bpf_insn *in);
/* The subprogram whose instructions include off (subprog[0].start is 0). */
int find_containing_subprog(struct verifier_env *env, int off);
/* The instructions control may reach next from insn idx, within its subprogram (a call's
 * successor is the insn after it, an exit has none): up to two, fall-through first.  Returns the
 * count. */
int insn_successors(const struct verifier_env *env, u32 idx, u32 succ[2]);
int compute_scc(struct verifier_env *env);

/* liveness.c */
int compute_live_registers(struct verifier_env *env);

/* Whether the program may sleep (the kernel's in_sleepable(); verifier.c). */
bool in_sleepable(const struct verifier_env *env);

/* attach_btf.c: the kernel's check_attach_btf_id() (BPF_F_SLEEPABLE for the program's type, a
 * tracing program's target, which it records in prog->attach), after the CFG; and a tracing
 * program's load of size bytes at ctx offset off (write: a store, refused), typed into dst
 * (NULL: not loaded into a register), 0 or -EACCES. */
int check_attach_btf_id(struct verifier_env *env);
int check_tracing_ctx(struct verifier_env *env, int off, int size, bool write,
		      struct reg_state *dst);

/* ldimm64.c */
int resolve_ldimm64(struct verifier_env *env);
/* Binds the cnt maps and BTF objects of BPF_PROG_LOAD's fd_array (fd_array_cnt). */
int process_fd_array(struct verifier_env *env, u32 cnt);
void release_maps(struct verifier_env *env);

/* check_alu.c */
int check_alu_op(struct verifier_env *env, const struct bpf_insn *insn);
int check_reg_arg_read(struct verifier_env *env, u32 regno);
int check_reg_arg_write(struct verifier_env *env, u32 regno);
int check_ld_imm(struct verifier_env *env, const struct bpf_insn *insn);

/* check_mem.c */
int check_mem_insn(struct verifier_env *env, const struct bpf_insn *insn);
int check_ld_abs(struct verifier_env *env, const struct bpf_insn *insn);
int check_helper_mem(struct verifier_env *env, u32 regno, int size, bool zero_ok, bool write,
		     bool uninit_ok);
int check_alignment(struct verifier_env *env, const struct reg_state *reg, s32 off, int size,
		    bool strict_once);
int check_mem_region(struct verifier_env *env, u32 regno, s32 off, int size, bool write,
		     int value_regno, bool uninit_ok);
/* A pointer that must point at its object's start (the kernel's __check_ptr_off_reg()): no
 * variable offset, no negative one, and no fixed one unless fixed_ok. */
int check_ptr_off(struct verifier_env *env, const struct reg_state *reg, u32 regno, bool fixed_ok);
/* An 8-byte-or-less store of unknown data through stack pointer regno (+off), as an
 * instruction stores it; insn is the one doing it (a helper call making a dynptr). */
int check_stack_store(struct verifier_env *env, u32 regno, s32 off, int size,
		      const struct bpf_insn *insn);
/* The kernel's may_access_direct_pkt_data(): whether the program may write its packet (fn NULL,
 * write true), or pass packet pointers to the helper fn (write false). */
bool may_access_pkt(const struct verifier_env *env, const struct bpf_func_proto *fn, bool write);

/* check_call.c */
/* check_helper_call()'s answer for a tail call in a subprogram: the path goes on as the
 * subprogram's exit at this instruction (the fall-through is pushed). */
#define TAIL_CALL_EXIT 2
int check_helper_call(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
/* Sets subprog[].changes_pkt_data and .might_sleep (after check_cfg()). */
void mark_subprog_effects(struct verifier_env *env);
int check_func_call(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
/* R0..R5 become unreadable (after a call). */
void clobber_caller_saved(struct verifier_env *env, struct reg_state *regs);
/* After a call that may move the packet: every packet pointer (and packet slice) becomes an
 * unknown scalar. */
void clear_all_pkt_pointers(struct verifier_env *env);
/* The kernel's check_func_arg_reg_off() for an argument of a kind that takes no offset (a
 * kfunc's, a global function's): a pointer of a kind that may have one passes; any other
 * must have none ("dereference of modified ctx ptr ...", EACCES). */
int func_arg_reg_off(struct verifier_env *env, const struct reg_state *reg, u32 regno);
/* A memory and size pair whose size is in regno (the kernel's check_kfunc_mem_size_reg()): the
 * memory in regno - 1 (as if not NULL) must take reads and writes of every size the register
 * may hold, 0 included. */
int check_mem_size_pair(struct verifier_env *env, u32 regno);
/* A constant string argument in regno (the kernel's check_reg_const_str()): a map value in a
 * map no one can change (BPF_F_RDONLY_PROG, frozen), at a constant offset, NUL-terminated
 * within the value.  Helpers' ARG_PTR_TO_CONST_STR and kfuncs' __str parameters. */
int check_const_str(struct verifier_env *env, u32 regno);
/* The register regno, a map value pointer, points at the value's struct name (a bpf_timer, a
 * bpf_wq), at field_off (-1: the map has none), with a constant offset (the kernel's
 * check_map_field_pointer()). */
int check_map_field_ptr(struct verifier_env *env, u32 regno, const char *name, s32 field_off);
/* Queues the verification of an asynchronous callback, subprogram sub, called later with R1 the
 * map, R2 the key and R3 the value of an element (a timer's or a work item's callback). */
int push_async_callback(struct verifier_env *env, int insn_idx, int sub, struct bpf_map *map);

/* The name of the struct (or, typedef_name, the typedef) a program type's ctx is declared as in
 * BPF C ("__sk_buff"), or NULL (btf_info.c). */
const char *ctx_type_name(u32 prog_type, bool typedef_name);

/* check_kfunc.c */
/* A kfunc call met before the walk (add_subprogs()): it must name a function of the kernel's
 * BTF, from a GPL-compatible program. */
int add_kfunc_call(struct verifier_env *env, const struct bpf_insn *in);
/* A kfunc call in the walk: its arguments, then R0 as its prototype returns it. */
int check_kfunc_call(struct verifier_env *env, const struct bpf_insn *insn, int insn_idx);
/* How many argument registers the kfunc call in reads (5 when it is not a known function, or
 * not one the program's type may call). */
u32 kfunc_nargs(const struct verifier_env *env, const struct bpf_insn *in);
int check_exit(struct verifier_env *env, int *insn_idx, bool *path_done);
/* References (ring buffer records): release one (and, with forget_regs, the registers holding
 * it); complain about any still held (prefix: what would leak them). */
void release_ref(struct verifier_env *env, struct vstate *st, u32 id, bool forget_regs);
/* A new reference held by the current path, acquired at insn_idx: its id in *id. */
int acquire_ref(struct verifier_env *env, int insn_idx, u32 *id);
int check_reference_leak(struct verifier_env *env, const char *prefix);
/* check_reference_leak() after, if check_lock, the kernel's check that no bpf_spin_lock is held
 * ("<prefix> cannot be used inside bpf_spin_lock-ed region"). */
int check_resource_leak(struct verifier_env *env, const char *prefix, bool check_lock);

/* btf_info.c */
struct btf;
int check_btf_info_early(struct verifier_env *env, const union bpf_attr *attr,
			 union bpf_attr *uattr, u32 usize);
void log_main_args(struct verifier_env *env);
int check_btf_info(struct verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr,
		   u32 usize);
void verbose_linfo(struct verifier_env *env, u32 insn_off, const char *prefix);
void btf_info_transfer(struct verifier_env *env, struct bpf_prog *prog);
void btf_info_free(struct verifier_env *env);
bool func_is_static(struct verifier_env *env, u32 sub);
/* The bytes of a user record beyond the kernel's size must be zero: -E2BIG if not. */
int rec_tail_zero(const u8 *rec, u32 ksize, u32 usize);
/* The kernel tells the loader the record size it expects (so it can zero the rest): at off in
 * the caller's attr, if it is that long. */
void tell_rec_size(union bpf_attr *uattr, u32 usize, size_t off, u32 size);

/* core_relo.c: BPF_PROG_LOAD's CO-RE relocations, applied to env->insns (after line_info). */
int check_core_relo(struct verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr,
		    u32 usize);

/* check_jmp.c */
int check_may_goto(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
int check_cond_jmp(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
void mark_pkt_ranges(struct vstate *st, u32 id, u32 range, u8 type);

/* precision.c */
int hist_push(struct verifier_env *env, u16 flags, const u16 *linked, u8 nlinked);
int hist_push_jmp(struct verifier_env *env);
int mark_precise_reg(struct verifier_env *env, u32 regno);
int mark_precise_slot(struct verifier_env *env, u32 frameno, u32 spi);
int propagate_precision(struct verifier_env *env, const struct vstate *old,
			const struct vstate *cur, bool *changed);
void mark_all_precise(struct verifier_env *env, const struct vstate *from);
void clear_precise(struct vstate *st);
int collect_linked(struct verifier_env *env, u32 id, u16 *linked, u8 *n);

/* states.c */
int is_state_visited(struct verifier_env *env, int insn_idx);
/* After a callback round returned to the call at callsite: the imprecise scalars that changed
 * since the state kept at that call become unknown, so that rounds converge (the kernel's
 * widen_imprecise_scalars()). */
void widen_imprecise_scalars(struct verifier_env *env, int callsite);
/* The same for state cur, against the latest explored state at insn that is an earlier visit
 * of the path than below (the kernel's find_prev_entry(env, below, insn)). */
void widen_imprecise_scalars_of(struct verifier_env *env, struct vstate *cur,
				const struct vstate *below, int insn);
struct vstate *push_stack(struct verifier_env *env, int insn_idx, int prev_insn_idx);
int pop_stack(struct verifier_env *env, bool pop_log);
int update_branch_counts(struct verifier_env *env, struct vstate *st);
/* stack_live.c: 6.18's stack liveness pass for the level-2 log (no-ops below level 2) */
struct stack_live;
int sl_init(struct verifier_env *env);
void sl_free(struct verifier_env *env);
int sl_insn_begin(struct verifier_env *env);
int sl_insn_commit(struct verifier_env *env);
int sl_mark_read(struct verifier_env *env, u32 frame, u32 spi);
void sl_mark_write(struct verifier_env *env, u32 frame, u32 spi);
void sl_reset_chain(struct verifier_env *env);
int sl_update(struct verifier_env *env);
u64 sl_live_slots(struct verifier_env *env, const struct vstate *st, u32 frame);
void free_explored(struct verifier_env *env);

#endif
