/* interp.c — decoder and computed-goto interpreter for the whole eBPF instruction set.
 *
 * Algorithm.  interp_prepare() translates each 8-byte slot into a struct dinsn: the address of
 * the label that executes its form, the registers, the offset, the immediate pre-extended to 64
 * bits (or the whole LD_IMM64 value), and a resolved jump target (a displacement in bytes from
 * the record) or helper function.  The labels live in run(); their table is generated from
 * INSN_LIST in insn.h, and so are the handler bodies: the list's kind/op/bits fields select a
 * body macro (EXEC_<kind>) that is specialised at compile time for that form.  Dispatch is
 * "goto *pc->handler" at the end of every handler (threaded code), so the CPU predicts each
 * transition separately.
 *
 * Superinstructions.  A third decoder pass, once every jump target is known, gives the record of
 * the first instruction of a few hot idioms (packet bounds check, optionally followed by the load
 * it guards; load then accumulate; counter increment and branch; interp_fuse.h) a fused handler
 * that runs the whole idiom, writing every register the idiom writes, and skips the idiom's other
 * records.  An idiom is never fused when one of its later instructions is a jump target; those
 * records keep their plain handlers all the same.  Fewer dispatches matter because a loop
 * iteration is bounded by the instructions it issues and by store-to-load forwarding through the
 * register file, not by arithmetic.  Also, a taken jump predicts its target as pc + the last
 * taken displacement (BRANCH()), so that the next record's loads do not wait for the load of the
 * target's displacement.
 *
 * Semantics follow RFC 9669 and the kernel: 32-bit ALU results are zero-extended; shift counts
 * are masked to the operand width; x / 0 = 0 and x % 0 = x (32-bit forms use and zero-extend the
 * low half); signed division truncates toward zero, INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0;
 * byte swaps truncate to their width; bpf-to-bpf calls give the callee a fresh 512-byte frame and
 * preserve r6..r10 for the caller.  Atomics use the compiler's __atomic builtins (fully ordered
 * for the fetching forms, relaxed for the plain ones, like the kernel's atomic_add vs
 * atomic_fetch_add).  Memory is accessed with memcpy so unaligned accesses are defined.
 *
 * Checked variant.  interp_checked.c compiles this file again with INTERP_CHECKED: every dispatch
 * then calls chk_step() first (register initialisation, memory regions, helper arguments; see
 * interp_checked.h), and nothing is fused, so each instruction is checked on its own.  Without
 * the macro DISPATCH() is the bare computed goto.
 *
 * Callbacks (callback.h).  An LD_IMM64 BPF_PSEUDO_FUNC loads the address of one of the program's
 * struct interp_callback, one per distinct target, made by the decoder; a helper that calls it
 * gets a nested run() entered at the target record, with its own registers and stack on the C
 * stack (the caller's run, and its stack, stay live below it).  A thread-local count bounds the
 * nesting, so that an unverified program that recurses through a helper fails instead of
 * overflowing the C stack.  Programs without callbacks pay nothing: the entry record is a
 * parameter of run(), the LD_IMM64 a plain load.  In the checked build the nested run is checked
 * too, inside the check state of the run that called the helper (interp_checked.c).
 *
 * bpf_loop (interp_env.loop_id).  A nested run costs a helper call, a new 4.5 KiB stack and fresh
 * registers per round, so `call loop_id` gets its own handler (L_LOOP_CALL), chosen by the
 * decoder: when r2 is one of this program's callbacks it runs the loop in the same run(), each
 * round a bpf-to-bpf call of the callback: a frame pushed as CALL_LOCAL pushes one (r6..r10
 * saved, the next 512-byte stack frame, -ELOOP beyond INTERP_MAX_FRAMES), which also keeps the
 * loop's state (index, count, ctx, callback entry, the record after the call) and whose return
 * record is the static loop_ret.  So a plain EXIT that pops it restores r6..r10 and "returns" to
 * L_LOOP_NEXT, which ends the loop (r0 = rounds run, on at the record after the call) or enters
 * the callback again with r1 = i, r2 = ctx.  Exits inside callback functions (from a callback's
 * first instruction to the next function start) get L_LOOP_EXIT instead, which goes on to the
 * next round without the restore and the extra dispatch, and is a plain EXIT for any other
 * frame.  Any other r2 (another program's callback) calls the helper.  Nothing else changes:
 * CALL_LOCAL and EXIT are as they were, and only programs with a loop_id get the new records.
 * Unlike the helper's nested run, a callback's run-time error ends the whole program.  The
 * checked build keeps the helper call, whose nested run it checks.
 *
 * Invariants.  A decoded program has cnt + 1 records; the extra last one traps, so running off the
 * end is an error rather than a wild jump.  The second slot of an LD_IMM64 also traps and no jump
 * targets it.  Every jump target lies in the same record array, and so does a frame's return
 * record (or it is loop_ret).  Run-time state (registers, frames, stack) is local to one call of
 * run(), which makes running reentrant.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#ifdef INTERP_CHECKED
/* The checked build (interp_checked.c) gets its own names, so both variants link together. */
#define interp_prog interp_checked_prog
#define interp_prepare interp_checked_prepare
#define interp_free interp_checked_free
#define interp_exec interp_checked_exec_unused_
#define interp_run interp_checked_run_unused_
#define interp_len interp_checked_len_unused_
#define interp_fused_len interp_checked_fused_len_unused_
#include "exec/interp_checked.h"
#endif
#include "exec/callback.h"
#include "exec/interp.h"
#include "exec/interp_fuse.h"
#include "exec/liveness.h"

struct dinsn {
	/* Label in run() that executes this record. */
	const void *handler;
	union {
		/* JA, JCOND, CALL_LOCAL: the record to continue at, in bytes from this one (a
		 * displacement rather than a pointer: BRANCH() compares it with its guess as a
		 * memory operand). */
		intptr_t disp;
		/* CALL: the helper. */
		interp_helper_fn fn;
	} u;
	union {
		/* imm sign-extended to 64 bits; LD_IMM64: the full value; LD_IND: imm as is. */
		uint64_t k;
		/* BNDL: three more register numbers (struct fuse's kb). */
		uint8_t kb[8];
	};
	/* Memory offset (jump offsets are already resolved into u.target). */
	int16_t off;
	/* Register numbers, 0..10. */
	uint8_t dst, src;
	/* imm; in fused records (struct fuse) a third register or a second immediate. */
	int32_t aux;
#ifdef INTERP_CHECKED
	/* The form (enum insn_id) and the raw imm, for the checks. */
	uint16_t id;
	int32_t imm;
#endif
};

/* OPS_WORD() reads off, dst, src and aux as one little-endian word. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "OPS_WORD() takes a little-endian host");
_Static_assert(offsetof(struct dinsn, dst) == offsetof(struct dinsn, off) + 2 &&
		       offsetof(struct dinsn, src) == offsetof(struct dinsn, off) + 3 &&
		       offsetof(struct dinsn, aux) == offsetof(struct dinsn, off) + 4,
	       "operand fields packed after off");

/* A callback: the program entered at one record.  The LD_IMM64 BPF_PSEUDO_FUNC that names it
 * loads &cb, which is its address (cb comes first). */
struct interp_callback {
	struct exec_callback cb;
	const struct interp_prog *p;
	const struct dinsn *entry;
};

struct interp_prog {
	/* Copy of the environment (helpers array not copied). */
	struct interp_env env;
	/* Number of instruction slots; insns has cnt + 1 records. */
	uint32_t cnt;
	/* Distinct callback targets, in order of first mention; NULL when there are none. */
	uint32_t nr_callbacks;
	struct interp_callback *callbacks;
	struct dinsn insns[];
};

/* Labels outside the list. */
enum {
	XL_TRAP_END,
	XL_TRAP_SLOT2,
	XL_CALL_UNWIND,
	XL_CALL_OWNER, /* a kfunc call with the program in an argument: dst gets k first */
	XL_TAIL_CALL,
	XL_LOOP_CALL, /* `call loop_id` (not in the checked build) */
	XL_LOOP_EXIT, /* an exit in a callback function, when there is a loop_id */
	XL_PROBE_LDX, /* BPF_PROBE_MEM(SX): aux the width in bytes, negated when sign-extending */
	XL__COUNT
};

struct label_table {
	const void *const *form; /* indexed by enum insn_id */
	const void *const *extra; /* indexed by XL_* */
	const void *const *fused; /* indexed by enum fuse_id; NULL in the checked build */
};

/* --- Operation bodies, selected by token pasting on the list's op and bits. --- */

static inline uint64_t sdiv64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return 0;
	if (b == (uint64_t)-1)
		return -a; /* the only overflowing case, INT64_MIN / -1, wraps to INT64_MIN */
	return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t smod64(uint64_t a, uint64_t b)
{
	if (b == 0)
		return a;
	if (b == (uint64_t)-1)
		return 0;
	return (uint64_t)((int64_t)a % (int64_t)b);
}

static inline uint32_t sdiv32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return 0;
	if (b == (uint32_t)-1)
		return -a;
	return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint32_t smod32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return a;
	if (b == (uint32_t)-1)
		return 0;
	return (uint32_t)((int32_t)a % (int32_t)b);
}

/* ALU<bits>_<op>(d, s): the new value of dst, d and s being uint64_t. */
#define ALU64_ADD(d, s) ((d) + (s))
#define ALU64_SUB(d, s) ((d) - (s))
#define ALU64_MUL(d, s) ((d) * (s))
#define ALU64_DIV(d, s) ((s) ? (d) / (s) : 0)
#define ALU64_SDIV(d, s) sdiv64(d, s)
#define ALU64_OR(d, s) ((d) | (s))
#define ALU64_AND(d, s) ((d) & (s))
#define ALU64_LSH(d, s) ((d) << ((s)&63))
#define ALU64_RSH(d, s) ((d) >> ((s)&63))
#define ALU64_MOD(d, s) ((s) ? (d) % (s) : (d))
#define ALU64_SMOD(d, s) smod64(d, s)
#define ALU64_XOR(d, s) ((d) ^ (s))
#define ALU64_MOV(d, s) (s)
#define ALU64_ARSH(d, s) ((uint64_t)((int64_t)(d) >> ((s)&63)))

#define U32(x) ((uint32_t)(x))
#define ALU32_ADD(d, s) U32(U32(d) + U32(s))
#define ALU32_SUB(d, s) U32(U32(d) - U32(s))
#define ALU32_MUL(d, s) U32(U32(d) * U32(s))
#define ALU32_DIV(d, s) (U32(s) ? U32(d) / U32(s) : 0)
#define ALU32_SDIV(d, s) sdiv32(U32(d), U32(s))
#define ALU32_OR(d, s) U32((d) | (s))
#define ALU32_AND(d, s) U32((d) & (s))
#define ALU32_LSH(d, s) U32(U32(d) << ((s)&31))
#define ALU32_RSH(d, s) (U32(d) >> ((s)&31))
#define ALU32_MOD(d, s) (U32(s) ? U32(d) % U32(s) : U32(d))
#define ALU32_SMOD(d, s) smod32(U32(d), U32(s))
#define ALU32_XOR(d, s) U32((d) ^ (s))
#define ALU32_MOV(d, s) U32(s)
#define ALU32_ARSH(d, s) U32((int32_t)U32(d) >> ((s)&31))

/* CMP<bits>_<op>(a, b): whether the jump is taken. */
#define CMP64_JEQ(a, b) ((a) == (b))
#define CMP64_JNE(a, b) ((a) != (b))
#define CMP64_JGT(a, b) ((a) > (b))
#define CMP64_JGE(a, b) ((a) >= (b))
#define CMP64_JLT(a, b) ((a) < (b))
#define CMP64_JLE(a, b) ((a) <= (b))
#define CMP64_JSET(a, b) (((a) & (b)) != 0)
#define CMP64_JSGT(a, b) ((int64_t)(a) > (int64_t)(b))
#define CMP64_JSGE(a, b) ((int64_t)(a) >= (int64_t)(b))
#define CMP64_JSLT(a, b) ((int64_t)(a) < (int64_t)(b))
#define CMP64_JSLE(a, b) ((int64_t)(a) <= (int64_t)(b))
#define CMP32_JEQ(a, b) (U32(a) == U32(b))
#define CMP32_JNE(a, b) (U32(a) != U32(b))
#define CMP32_JGT(a, b) (U32(a) > U32(b))
#define CMP32_JGE(a, b) (U32(a) >= U32(b))
#define CMP32_JLT(a, b) (U32(a) < U32(b))
#define CMP32_JLE(a, b) (U32(a) <= U32(b))
#define CMP32_JSET(a, b) ((U32(a) & U32(b)) != 0)
#define CMP32_JSGT(a, b) ((int32_t)U32(a) > (int32_t)U32(b))
#define CMP32_JSGE(a, b) ((int32_t)U32(a) >= (int32_t)U32(b))
#define CMP32_JSLT(a, b) ((int32_t)U32(a) < (int32_t)U32(b))
#define CMP32_JSLE(a, b) ((int32_t)U32(a) <= (int32_t)U32(b))

/* Byte order.  LE/BE convert between host order and the named order, i.e. swap only when the
 * host differs; SWAP always swaps.  All truncate to the width. */
#define SWAP8(x) ((uint64_t)(uint8_t)(x)) /* LD_ABS/LD_IND B: a byte has no order */
#define KEEP8(x) ((uint64_t)(uint8_t)(x))
#define SWAP16(x) ((uint64_t)__builtin_bswap16((uint16_t)(x)))
#define SWAP32(x) ((uint64_t)__builtin_bswap32((uint32_t)(x)))
#define SWAP64(x) __builtin_bswap64(x)
#define KEEP16(x) ((uint64_t)(uint16_t)(x))
#define KEEP32(x) ((uint64_t)(uint32_t)(x))
#define KEEP64(x) (x)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define END_LE(bits, x) KEEP##bits(x)
#define END_BE(bits, x) SWAP##bits(x)
#else
#define END_LE(bits, x) SWAP##bits(x)
#define END_BE(bits, x) KEEP##bits(x)
#endif
#define END_SWAP(bits, x) SWAP##bits(x)

/* Sign extension of the low n bits (n a constant 8, 16 or 32). */
#define SEXT(n, x)                                                                                 \
	((n) == 8 ? (int64_t)(int8_t)(x) :                                                         \
	 (n) == 16 ? (int64_t)(int16_t)(x) : (int64_t)(int32_t)(x))

/* Memory.  The types are exact-width so that a load of N bits zero-extends. */
typedef uint8_t mem8_t;
typedef uint16_t mem16_t;
typedef uint32_t mem32_t;
typedef uint64_t mem64_t;

#define ADDR(base, off) ((void *)(uintptr_t)((base) + (uint64_t)(int64_t)(off)))
#define LOAD(bits, addr)                                                                           \
	({                                                                                         \
		mem##bits##_t v_;                                                                  \
		memcpy(&v_, (addr), sizeof(v_));                                                   \
		(uint64_t)v_;                                                                      \
	})
#define STORE(bits, addr, val)                                                                     \
	do {                                                                                       \
		mem##bits##_t v_ = (mem##bits##_t)(val);                                           \
		memcpy((addr), &v_, sizeof(v_));                                                   \
	} while (0)

/* Atomics: T is the operand type; old values are zero-extended into registers. */
#define ATOMIC_OP_ADD(T, p, v) (void)__atomic_fetch_add((T *)(p), (T)(v), __ATOMIC_RELAXED)
#define ATOMIC_OP_OR(T, p, v) (void)__atomic_fetch_or((T *)(p), (T)(v), __ATOMIC_RELAXED)
#define ATOMIC_OP_AND(T, p, v) (void)__atomic_fetch_and((T *)(p), (T)(v), __ATOMIC_RELAXED)
#define ATOMIC_OP_XOR(T, p, v) (void)__atomic_fetch_xor((T *)(p), (T)(v), __ATOMIC_RELAXED)
#define ATOMIC_OP_FETCH_ADD(T, p, v) SRC = __atomic_fetch_add((T *)(p), (T)(v), __ATOMIC_SEQ_CST)
#define ATOMIC_OP_FETCH_OR(T, p, v) SRC = __atomic_fetch_or((T *)(p), (T)(v), __ATOMIC_SEQ_CST)
#define ATOMIC_OP_FETCH_AND(T, p, v) SRC = __atomic_fetch_and((T *)(p), (T)(v), __ATOMIC_SEQ_CST)
#define ATOMIC_OP_FETCH_XOR(T, p, v) SRC = __atomic_fetch_xor((T *)(p), (T)(v), __ATOMIC_SEQ_CST)
#define ATOMIC_OP_XCHG(T, p, v) SRC = __atomic_exchange_n((T *)(p), (T)(v), __ATOMIC_SEQ_CST)
#define ATOMIC_OP_CMPXCHG(T, p, v)                                                                 \
	do {                                                                                       \
		T expected_ = (T)R[0];                                                             \
		/* Either way expected_ ends up holding the old value. */                          \
		__atomic_compare_exchange_n((T *)(p), &expected_, (T)(v), 0, __ATOMIC_SEQ_CST,     \
					    __ATOMIC_SEQ_CST);                                     \
		R[0] = expected_;                                                                  \
	} while (0)
/* The verifier requires atomic operands to be naturally aligned.  Saying so lets i386 compilers
 * (where uint64_t is 4-byte aligned) inline lock cmpxchg8b instead of calling libatomic. */
typedef uint32_t atomic32_t;
typedef uint64_t atomic64_t __attribute__((aligned(8)));

/* --- The interpreter loop. --- */

struct frame {
	const struct dinsn *ret; /* record after the call (a bpf_loop round's: &loop_ret) */
	uint64_t saved[5];       /* caller's r6..r10 */
	uint32_t may_goto;       /* caller's may_goto budget left */
#ifndef INTERP_CHECKED
	/* A bpf_loop round's frame (L_LOOP_CALL): where the loop's caller goes on, the callback's
	 * first record, its ctx argument, this round's index and the number of rounds.  Only the
	 * L_LOOP_* handlers touch these; plain calls leave them stale. */
	const struct dinsn *lp_next, *lp_entry;
	uint64_t lp_ctx;
	uint32_t lp_i, lp_n;
#endif
};

/* bpf_loop()'s bound on its rounds (the kernel's BPF_MAX_LOOPS). */
#define LOOP_MAX_ROUNDS (1u << 23)

/* Runs p from record entry (p->insns, or a callback's first record) with registers R (r1..r5 set
 * by the caller).  Returns 0 or a negative errno and leaves the result in R[0].  Called with
 * p == NULL, it only stores its label tables in *labels: the decoder needs the label addresses,
 * which exist only inside this function. */
#ifdef INTERP_CHECKED
/* Defined in interp_checked.c: checks the instruction at pc before it runs; nonzero stops. */
struct chk_state;
static int chk_step(struct interp_check *c, struct chk_state *cs, const struct interp_prog *p,
		    const struct dinsn *pc, const uint64_t *R, unsigned int depth,
		    uintptr_t stack_top);
#define RUN_CHK_PARAMS , struct interp_check *chk, struct chk_state *cs
#define DISPATCH()                                                                                 \
	do {                                                                                       \
		if (chk_step(chk, cs, p, pc, R, depth, stack_top)) {                               \
			R[0] = 0;                                                                  \
			return chk->v.kind == IV_NONE ? -E2BIG : -EACCES;                          \
		}                                                                                  \
		goto *pc->handler;                                                                 \
	} while (0)
#else
#define RUN_CHK_PARAMS
#define DISPATCH() goto *pc->handler
#endif

static int run(const struct interp_prog *p, const struct dinsn *entry, uint64_t *R,
	       struct label_table *labels RUN_CHK_PARAMS)
{
#define X_LABEL_(name, ...) &&L_##name,
	static const void *const form_labels[INSN__COUNT] = { INSN_LIST(X_LABEL_) };
#undef X_LABEL_
	static const void *const extra_labels[XL__COUNT] = {
		[XL_TRAP_END] = &&L_TRAP_END,
		[XL_TRAP_SLOT2] = &&L_TRAP_SLOT2,
		[XL_CALL_UNWIND] = &&L_CALL_UNWIND,
		[XL_CALL_OWNER] = &&L_CALL_OWNER,
		[XL_TAIL_CALL] = &&L_TAIL_CALL,
		[XL_PROBE_LDX] = &&L_PROBE_LDX,
#ifndef INTERP_CHECKED
		[XL_LOOP_CALL] = &&L_LOOP_CALL,
		[XL_LOOP_EXIT] = &&L_LOOP_EXIT,
#endif
	};
#ifndef INTERP_CHECKED
	/* What a bpf_loop round's frame returns to: its exit restores r6..r10 and goes here. */
	static const struct dinsn loop_ret = { .handler = &&L_LOOP_NEXT };
#endif
	uint64_t stack[INTERP_MAX_FRAMES * INTERP_STACK_SIZE / 8] __attribute__((aligned(16)));
	struct frame frames[INTERP_MAX_FRAMES - 1];
	const struct dinsn *pc;
	unsigned int depth = 0; /* frames pushed by bpf-to-bpf calls */
	uint32_t may_goto = MAY_GOTO_BUDGET; /* this function's may_goto rounds left */
	uintptr_t disp = 0;     /* BRANCH()'s guess, in bytes (modulo the pointer width) */
	uintptr_t stack_top = (uintptr_t)stack + sizeof(stack);
#ifndef INTERP_CHECKED
#define X_FLABEL_(name, ...) &&L_F_##name,
	static const void *const fused_labels[FUSE__COUNT] = { FUSE_LIST(X_FLABEL_) };
#undef X_FLABEL_
#endif

	if (!p) {
		labels->form = form_labels;
		labels->extra = extra_labels;
#ifndef INTERP_CHECKED
		labels->fused = fused_labels;
#else
		labels->fused = NULL;
#endif
		return 0;
	}
#ifdef INTERP_CHECKED
	/* A privileged program may read stack it never wrote (the kernel's allow_uninit_stack),
	 * getting whatever is there; the checked runs give it zeroes, so that their results do
	 * not depend on the C stack's leftovers (and valgrind sees no uninitialised bytes). */
	memset(stack, 0, sizeof(stack));
#endif
	R[10] = stack_top;
	pc = entry;
	DISPATCH();

/* Operands.  Each is one load (or a memory operand) away: cheaper than loading a packed word
 * and taking it apart, as a loop's dispatches are bounded by the instructions they issue. */
#define O_OFF (pc->off)
#define O_DST (pc->dst)
#define O_SRC (pc->src)
#define O_AUX (pc->aux)
#define O_IMM ((uint64_t)(int64_t)pc->aux)
#define DST R[O_DST]
#define SRC R[O_SRC]
#define NEXT                                                                                       \
	do {                                                                                       \
		++pc;                                                                              \
		DISPATCH();                                                                        \
	} while (0)
#define JUMP(t)                                                                                    \
	do {                                                                                       \
		pc = (t);                                                                          \
		DISPATCH();                                                                        \
	} while (0)
/* The record a jump goes to. */
#define TARGET() ((const struct dinsn *)((uintptr_t)pc + (uintptr_t)pc->u.disp))
/* A taken jump.  pc = TARGET() puts a load on the dependency chain that every later record's
 * operand loads wait for, once per loop iteration.  A loop's closing jump repeats one
 * displacement, so predict it: when the record's displacement is disp (the last taken one),
 * compute the target from pc and leave the check to the branch predictor.  The comparison is in
 * asm so that the compiler cannot see the equality and use the loaded value after all; on x86 it
 * takes the record's field as a memory operand, one instruction for load and compare. */
#if defined(__x86_64__) || defined(__i386__)
#define SAME_DISP(field, d, miss)                                                                  \
	__asm__ goto("cmp %0, %1\n\tjne %l2" : : "m"(field), "r"(d) : "cc" : miss)
#else
#define SAME_DISP(field, d, miss)                                                                  \
	do {                                                                                       \
		if ((field) != (d))                                                                \
			goto miss;                                                                 \
	} while (0)
#endif
#define BRANCH()                                                                                   \
	do {                                                                                       \
		__label__ miss_;                                                                   \
                                                                                                   \
		SAME_DISP(pc->u.disp, disp, miss_);                                                \
		pc = (const void *)((uintptr_t)pc + disp);                                         \
		DISPATCH();                                                                        \
	miss_:                                                                                     \
		disp = (uintptr_t)pc->u.disp;                                                      \
		pc = (const void *)((uintptr_t)pc + disp);                                         \
		DISPATCH();                                                                        \
	} while (0)
/* The source operand: src_reg or the sign-extended immediate, by the form's BPF_X bit. */
#define OPERAND(code) (BPF_SRC(code) == BPF_X ? SRC : pc->k)
#define HELPER_ARGS R[1], R[2], R[3], R[4], R[5]

#define EXEC_ALU(op, bits, dval, code)                                                             \
	DST = ALU##bits##_##op(DST, OPERAND(code));                                                \
	NEXT;
#define EXEC_NEG(op, bits, dval, code)                                                             \
	DST = bits == 64 ? -DST : U32(-U32(DST));                                                  \
	NEXT;
#define EXEC_MOVSX(op, bits, dval, code)                                                           \
	DST = bits == 64 ? (uint64_t)SEXT(dval, SRC) : U32(SEXT(dval, SRC));                       \
	NEXT;
#define EXEC_END(op, bits, dval, code)                                                             \
	DST = END_##op(bits, DST);                                                                 \
	NEXT;
#define EXEC_JA(op, bits, dval, code) BRANCH();
#define EXEC_JCOND(op, bits, dval, code)                                                           \
	if (CMP##bits##_##op(DST, OPERAND(code)))                                                  \
		BRANCH();                                                                \
	NEXT;
/* may_goto: each function's run (a call, a bpf_loop round, the program) has its own budget */
#define EXEC_MAY_GOTO(op, bits, dval, code)                                                        \
	if (may_goto == 0)                                                                         \
		BRANCH();                                                                          \
	may_goto--;                                                                                \
	NEXT;
#define EXEC_CALL(op, bits, dval, code) CALL_##op
#define CALL_HELPER                                                                                \
	R[0] = pc->u.fn(HELPER_ARGS);                                                              \
	NEXT;
#define CALL_KFUNC CALL_HELPER /* the decoder resolved it (env->resolve_kfunc) */
#define CALL_REG                                                                                   \
	{                                                                                          \
		uint64_t id_ = DST;                                                                \
		interp_helper_fn fn_;                                                              \
                                                                                                   \
		if (id_ >= p->env.nr_helpers || !(fn_ = p->env.helpers[id_])) {                    \
			R[0] = 0;                                                                  \
			return -ENOENT;                                                            \
		}                                                                                  \
		R[0] = fn_(HELPER_ARGS);                                                           \
		if (id_ == p->env.unwind_id && R[0] == 0)                                          \
			return 0;                                                                  \
	}                                                                                          \
	NEXT;
#define CALL_LOCAL                                                                                 \
	if (depth >= INTERP_MAX_FRAMES - 1) {                                                      \
		R[0] = 0;                                                                          \
		return -ELOOP;                                                                     \
	}                                                                                          \
	frames[depth].ret = pc + 1;                                                                \
	memcpy(frames[depth].saved, &R[6], sizeof(frames[depth].saved));                           \
	frames[depth].may_goto = may_goto;                                                         \
	may_goto = MAY_GOTO_BUDGET;                                                                \
	depth++;                                                                                   \
	R[10] = stack_top - depth * INTERP_STACK_SIZE;                                             \
	JUMP(TARGET());
#define EXEC_EXIT(op, bits, dval, code)                                                            \
	if (depth == 0)                                                                            \
		return 0;                                                                          \
	depth--;                                                                                   \
	memcpy(&R[6], frames[depth].saved, sizeof(frames[depth].saved));                           \
	may_goto = frames[depth].may_goto;                                                         \
	JUMP(frames[depth].ret);
#define EXEC_LDDW(op, bits, dval, code)                                                            \
	DST = pc->k;                                                                               \
	pc += 2;                                                                                   \
	DISPATCH();
#define EXEC_LDPKT(op, bits, dval, code)                                                           \
	{                                                                                          \
		int32_t off_ = (int32_t)U32(pc->k + (INSN_OP_##op == INSN_OP_IND ? SRC : 0));      \
		uint64_t buf_;                                                                     \
		const void *ptr_ = p->env.load_pkt(R[6], off_, bits / 8, &buf_);                   \
                                                                                                   \
		if (!ptr_) {                                                                       \
			R[0] = 0;                                                                  \
			return 0;                                                                  \
		}                                                                                  \
		R[0] = END_BE(bits, LOAD(bits, ptr_));                                             \
	}                                                                                          \
	NEXT;
#define EXEC_LDX(op, bits, dval, code)                                                             \
	DST = LOAD(bits, ADDR(SRC, O_OFF));                                                        \
	NEXT;
#define EXEC_LDXSX(op, bits, dval, code)                                                           \
	DST = (uint64_t)SEXT(bits, LOAD(bits, ADDR(SRC, O_OFF)));                                  \
	NEXT;
#define EXEC_ST(op, bits, dval, code)                                                              \
	STORE(bits, ADDR(DST, O_OFF), pc->k);                                                      \
	NEXT;
#define EXEC_STX(op, bits, dval, code)                                                             \
	STORE(bits, ADDR(DST, O_OFF), SRC);                                                        \
	NEXT;
#define EXEC_ATOMIC(op, bits, dval, code)                                                          \
	ATOMIC_OP_##op(atomic##bits##_t, ADDR(DST, O_OFF), SRC);                                   \
	NEXT;

#define X_BODY_(name, code, disc, dval, kind, op, bits, fields, grp, ver, mnem)                    \
	L_##name : EXEC_##kind(op, bits, dval, code)
	INSN_LIST(X_BODY_)
#undef X_BODY_

#ifndef INTERP_CHECKED
/* Superinstructions (interp_fuse.h).  Each writes what its instructions write, in their order:
 * a later read of a register the sequence wrote (R[O_AUX], SRC) sees the new value.  BNDL leaves
 * out rX and rA, which the matcher proved dead.  The hints
 * lay out the usual path straight: bounds checks pass, loops loop. */
#define FUSED_BND(op, op2, bits)                                                                   \
	{                                                                                          \
		uint64_t val_ = SRC + O_IMM;                                                       \
                                                                                                   \
		DST = val_;                                                                        \
		if (__builtin_expect(CMP64_##op(val_, R[O_OFF]), 0))                               \
			BRANCH();                                                                  \
	}                                                                                          \
	pc += 3;                                                                                   \
	DISPATCH();
#define FUSED_LDA(op, op2, bits)                                                                   \
	{                                                                                          \
		uint64_t val_ = LOAD(bits, ADDR(SRC, O_OFF));                                      \
                                                                                                   \
		DST = val_;                                                                        \
		R[O_AUX] = ALU64_##op2(R[O_AUX], val_);                                            \
	}                                                                                          \
	pc += 2;                                                                                   \
	DISPATCH();
/* The operand fields off, dst, src, aux as one load (and BNDL's kb as another), taken apart in
 * registers.  BNDL and XBNDL read them so: measured on this machine (AMD Zen 5), bench's csum
 * loops ran 5-9% faster than with a load per field.  The same in AJ2, whose register updates
 * carry a loop's pointer and counter, ran 10-30% slower, so the counter steps keep a load per
 * field. */
#define OPS_WORD() LOAD(64, &pc->off)
#define KB_WORD() LOAD(64, pc->kb)
#define W_OFF(w) ((int64_t)(int16_t)(w))
#define W_DST(w) ((uint8_t)((w) >> 16))
#define W_SRC(w) ((uint8_t)((w) >> 24))
#define W_IMM(w) ((uint64_t)(int64_t)(int32_t)((w) >> 32))
/* A register number the compiler cannot see through, so that R[] is addressed as base + index * 8
 * like everywhere else, not with the shift folded into the index's extraction. */
#define REG_INDEX(r)                                                                               \
	({                                                                                         \
		uintptr_t r_ = (r);                                                                \
		__asm__("" : "+r"(r_));                                                            \
		r_;                                                                                \
	})
/* R_GET(i), R_SET(i, v): register i of the file, addressed as R + i * 8 in the instruction
 * itself.  A loop counter makes a round trip through the file each iteration, stored by its step
 * and loaded by the next record and the next step.  AMD Zen hands a store's value to a later
 * load without delay when both spell the address alike, and the compiler addressed the step's
 * load and store through a pointer it computed (R + i * 8 in a register), where the other
 * handlers' loads index R: with both spelt as here, bench's csum1500 and cc3-csum1500 ran 4-5%
 * faster on this machine (Zen 5; alternated runs).  The memory clobbers keep every other access
 * to the file in order. */
#if defined(__x86_64__)
#define R_GET(i)                                                                                   \
	({                                                                                         \
		uint64_t v_;                                                                       \
		__asm__ volatile("movq (%1,%2,8), %0" : "=r"(v_) : "r"(R), "r"((uintptr_t)(i))     \
				 : "memory");                                                      \
		v_;                                                                                \
	})
#define R_SET(i, v)                                                                                \
	__asm__ volatile("movq %0, (%1,%2,8)" : : "r"((uint64_t)(v)), "r"(R), "r"((uintptr_t)(i)) \
			 : "memory")
#else
#define R_GET(i) R[i]
#define R_SET(i, v) (R[i] = (v))
#endif
/* add then compare (bits wide) and take: the step AJ, AJ2 and AJ32 share */
#define AJ_STEP(op, operand, bits, take)                                                           \
	{                                                                                          \
		const uintptr_t x_ = O_DST;                                                        \
		const uint64_t val_ = R_GET(x_) + pc->k;                                           \
                                                                                                   \
		R_SET(x_, val_);                                                                   \
		if (__builtin_expect(CMP##bits##_##op(val_, operand), 1))                          \
			take;                                                                      \
	}
/* AJ, AJ2 and AJ32 all take BRANCH()'s guess.  (On AMD Zen 3, AJ ran loop100 25-40% faster with
 * the target taken from the record; on Zen 5, where the guess costs one compare with the record's
 * displacement, the guess runs it 15% faster.) */
#define FUSED_AJ(op, operand)                                                                      \
	AJ_STEP(op, operand, 64, BRANCH())                                                         \
	pc += 2;                                                                                   \
	DISPATCH();
#define FUSED_AJK(op, op2, bits) FUSED_AJ(op, O_IMM)
#define FUSED_AJR(op, op2, bits) FUSED_AJ(op, SRC)
#define FUSED_AJ2(op, w, operand)                                                                  \
	R[w] += (uint64_t)(int64_t)O_OFF;                                                          \
	AJ_STEP(op, operand, 64, BRANCH())                                                         \
	pc += 3;                                                                                   \
	DISPATCH();
#define FUSED_AJ2K(op, op2, bits) FUSED_AJ2(op, O_SRC, O_IMM)
#define FUSED_AJ2R(op, op2, bits) FUSED_AJ2(op, O_AUX, SRC)
/* bounds check of y + K against Z, then C OP= the load at y + off: BNDL and XBNDL */
#define BNDL_STEP(op, op2, bits, y)                                                                \
	{                                                                                          \
		const uint64_t w_ = OPS_WORD(), kw_ = KB_WORD();                                   \
		const uint64_t y_ = (y);                                                           \
		uint64_t val_ = y_ + W_IMM(w_);                                                    \
                                                                                                   \
		if (__builtin_expect(CMP64_##op(val_, R[(uint8_t)kw_]), 0))                        \
			BRANCH();                                                                  \
		val_ = LOAD(bits, ADDR(y_, W_OFF(w_)));                                            \
		const uintptr_t c_ = REG_INDEX((uint8_t)(kw_ >> 16));                              \
		R[c_] = ALU64_##op2(R[c_], val_);                                                  \
	}
#define FUSED_BNDL(op, op2, bits)                                                                  \
	BNDL_STEP(op, op2, bits, R[W_SRC(w_)])                                                     \
	pc += 5;                                                                                   \
	DISPATCH();
/* Y = B + I is not stored (the matcher proved it dead). */
#define FUSED_XBNDL(op, op2, bits)                                                                 \
	BNDL_STEP(op, op2, bits, R[W_DST(w_)] + R[W_SRC(w_)])                                      \
	pc += 7;                                                                                   \
	DISPATCH();
#define FUSED_ZX(op, op2, bits)                                                                    \
	DST = (uint32_t)DST;                                                                       \
	pc += 2;                                                                                   \
	DISPATCH();
#define FUSED_MZX(op, op2, bits)                                                                   \
	DST = (uint32_t)SRC;                                                                       \
	pc += 3;                                                                                   \
	DISPATCH();
/* Y != X and T != X (the matcher's), so loading the other register first changes nothing; X is
 * then read and written once, not twice: in a hash loop X is the loop-carried value. */
#define FUSED_MULADD(op, op2, bits)                                                                \
	{                                                                                          \
		const uint64_t y_ = SRC;                                                           \
                                                                                                   \
		DST = ALU64_MUL(DST, pc->k) + y_;                                                  \
	}                                                                                          \
	pc += 2;                                                                                   \
	DISPATCH();
#define FUSED_SHX(op, op2, bits)                                                                   \
	{                                                                                          \
		const uint64_t x_ = DST, t_ = ALU64_##op(x_, O_IMM);                               \
                                                                                                   \
		SRC = t_;                                                                          \
		DST = ALU64_##op2(x_, t_);                                                         \
	}                                                                                          \
	pc += 3;                                                                                   \
	DISPATCH();
/* Y is read before X is written; Z != X (the matcher's). */
#define FUSED_MOVK(op, op2, bits)                                                                  \
	DST = ALU64_##op(SRC, O_IMM);                                                              \
	pc += 2;                                                                                   \
	DISPATCH();
#define FUSED_MOVX(op, op2, bits)                                                                  \
	DST = ALU64_##op(SRC, R[O_AUX]);                                                           \
	pc += 2;                                                                                   \
	DISPATCH();
/* X = (u32)Y, then compare X and branch: the step MZXJ and AMZXJ share.  Z is read after X is
 * written (Z == X compares the new value). */
#define ZXJ_STEP(op, operand)                                                                      \
	{                                                                                          \
		const uint64_t val_ = (uint32_t)SRC;                                               \
                                                                                                   \
		DST = val_;                                                                        \
		if (CMP64_##op(val_, operand))                                                     \
			BRANCH();                                                                  \
	}
#define FUSED_MZXJ(op, operand)                                                                    \
	ZXJ_STEP(op, operand)                                                                      \
	pc += 4;                                                                                   \
	DISPATCH();
#define FUSED_MZXJK(op, op2, bits) FUSED_MZXJ(op, O_IMM)
#define FUSED_MZXJR(op, op2, bits) FUSED_MZXJ(op, R[O_AUX])
#define FUSED_AJ32(op, operand)                                                                    \
	AJ_STEP(op, operand, 32, BRANCH())                                                         \
	pc += 2;                                                                                   \
	DISPATCH();
#define FUSED_AJ32K(op, op2, bits) FUSED_AJ32(op, O_IMM)
#define FUSED_AJ32R(op, op2, bits) FUSED_AJ32(op, SRC)
/* W is written before X (X == W ends with X's value), Z read after both. */
#define FUSED_AMZXJ(op, operand)                                                                   \
	SRC += pc->k;                                                                              \
	ZXJ_STEP(op, operand)                                                                      \
	pc += 5;                                                                                   \
	DISPATCH();
#define FUSED_AMZXJK(op, op2, bits) FUSED_AMZXJ(op, O_IMM)
#define FUSED_AMZXJR(op, op2, bits) FUSED_AMZXJ(op, R[O_AUX])
#define X_FBODY_(name, kind, op, op2, bits)                                                        \
	L_F_##name : FUSED_##kind(op, op2, bits)
	FUSE_LIST(X_FBODY_)
#undef X_FBODY_
#endif

L_CALL_UNWIND:
	R[0] = pc->u.fn(HELPER_ARGS);
	if (R[0] == 0)
		return 0;
	NEXT;
L_CALL_OWNER:
	R[pc->dst] = pc->k;
	R[0] = pc->u.fn(HELPER_ARGS);
	NEXT;
L_PROBE_LDX:
	/* a load through a kernel object's pointer: 0 where nothing is mapped */
	DST = probe_load(SRC + (uint64_t)(int64_t)O_OFF, O_AUX);
	NEXT;
L_TAIL_CALL:
	/* the target ran to its end: what is left of this function is an exit with its r0 */
	{
		uint64_t r0_ = 0;
		int rc_ = p->env.tail_call(R[1], R[2], R[3], &r0_);

		if (rc_ == 0)
			NEXT;
		R[0] = rc_ < 0 ? 0 : r0_;
		if (rc_ < 0)
			return rc_;
	}
	goto L_EXIT;
#ifndef INTERP_CHECKED
L_LOOP_CALL:
	/* `call loop_id`: when r2 is one of this program's callbacks, run bpf_loop() here, each
	 * round a bpf-to-bpf call of the callback in this run; else the helper. */
	{
		const uint64_t off_ = R[2] - (uint64_t)(uintptr_t)p->callbacks;
		const struct interp_callback *cb_;
		struct frame *f_;
		uint32_t n_;

		if (__builtin_expect(off_ >= (uint64_t)p->nr_callbacks * sizeof(*cb_) ||
				     off_ % sizeof(*cb_), 0)) {
			R[0] = pc->u.fn(HELPER_ARGS);
			NEXT;
		}
		cb_ = &p->callbacks[off_ / sizeof(*cb_)];
		n_ = (uint32_t)R[1];
		if (R[4]) {
			R[0] = (uint64_t)-EINVAL;
			NEXT;
		}
		if (n_ > LOOP_MAX_ROUNDS) {
			R[0] = (uint64_t)-E2BIG;
			NEXT;
		}
		if (n_ == 0) {
			R[0] = 0;
			NEXT;
		}
		if (depth >= INTERP_MAX_FRAMES - 1) {
			R[0] = 0;
			return -ELOOP;
		}
		f_ = &frames[depth];
		f_->ret = &loop_ret;
		memcpy(f_->saved, &R[6], sizeof(f_->saved));
		f_->may_goto = may_goto;
		may_goto = MAY_GOTO_BUDGET;
		f_->lp_next = pc + 1;
		f_->lp_entry = cb_->entry;
		f_->lp_ctx = R[3];
		f_->lp_i = 0;
		f_->lp_n = n_;
		depth++;
		R[10] = stack_top - depth * INTERP_STACK_SIZE;
		R[1] = 0;
		R[2] = f_->lp_ctx;
		JUMP(f_->lp_entry);
	}
/* The next round of the loop whose frame f_ is (popped: depth is the loop's caller's): */
#define LOOP_AGAIN(f_, i_)                                                                         \
	do {                                                                                       \
		(f_)->lp_i = (i_);                                                                 \
		may_goto = MAY_GOTO_BUDGET;                                                        \
		depth++;                                                                           \
		R[10] = stack_top - depth * INTERP_STACK_SIZE;                                     \
		R[1] = (i_);                                                                       \
		R[2] = (f_)->lp_ctx;                                                               \
		JUMP((f_)->lp_entry);                                                              \
	} while (0)
L_LOOP_NEXT:
	/* A round's exit popped its frame (depth) and restored the caller's r6..r10: stop after a
	 * nonzero r0 or the last round, else enter the callback again in the same frame. */
	{
		struct frame *f_ = &frames[depth];
		const uint32_t i_ = f_->lp_i + 1;

		if (R[0] || i_ >= f_->lp_n) {
			R[0] = i_;
			JUMP(f_->lp_next);
		}
		LOOP_AGAIN(f_, i_);
	}
L_LOOP_EXIT:
	/* An exit of a callback function (decoder: after a callback target, before the next function
	 * start): EXIT, except that at the end of a round it goes straight on to the next one,
	 * leaving r6..r9 as they are (the callback's, unspecified for the next round too). */
	{
		struct frame *f_;
		uint32_t i_;

		if (depth == 0)
			return 0;
		f_ = &frames[--depth];
		may_goto = f_->may_goto;
		if (f_->ret == &loop_ret) {
			i_ = f_->lp_i + 1;
			if (__builtin_expect(!R[0] && i_ < f_->lp_n, 1))
				LOOP_AGAIN(f_, i_);
			R[0] = i_;
			memcpy(&R[6], f_->saved, sizeof(f_->saved));
			JUMP(f_->lp_next);
		}
		memcpy(&R[6], f_->saved, sizeof(f_->saved));
		JUMP(f_->ret);
	}
#undef LOOP_AGAIN
#endif
L_TRAP_END:
L_TRAP_SLOT2:
	R[0] = 0;
	return -EFAULT;
}

/* --- Decoder. --- */

/* Per-slot marks: the second slot of an LD_IMM64; a jump or call target.  Either keeps the slot
 * out of the inside of a superinstruction (fuse_match()'s no_entry). */
#define MARK_SLOT2 1
#define MARK_TARGET 2
/* A function's first instruction (bpf-to-bpf call target); one that is a callback's too. */
#define MARK_FUNC 4
#define MARK_CALLBACK 8

static int check_target(const struct interp_prog *p, const uint8_t *mark, int64_t t)
{
	if (t < 0 || t >= (int64_t)p->cnt || (mark[t] & MARK_SLOT2))
		return -EINVAL;
	return 0;
}

/* Callbacks nested on this thread (callback_call() inside a helper inside callback_call()...). */
static __thread unsigned int callback_depth __attribute__((tls_model("initial-exec")));

#ifdef INTERP_CHECKED
/* Defined in interp_checked.c: a callback's run, checked inside the run that called its helper. */
static int chk_callback_run(const struct interp_prog *p, const struct dinsn *entry, uint64_t *R);
#endif

/* A run's r0..r9: r1..r5 the arguments, the others 0 (r10 is run()'s).  Element by element:
 * "R[11] = { 0 }" becomes a rep stos, whose start-up alone cost a short program's run as much
 * as its instructions. */
static inline void regs_init(uint64_t *R, const uint64_t args[5])
{
	R[0] = 0;
	memcpy(&R[1], args, 5 * sizeof(R[0]));
	R[6] = R[7] = R[8] = R[9] = 0;
}

/* exec_callback.call: a run entered at the callback's record, r0 its result (0 after a run-time
 * error, or when nested deeper than INTERP_MAX_FRAMES, which only an unverified program does). */
static uint64_t callback_call(const struct exec_callback *cb, uint64_t r1, uint64_t r2,
			      uint64_t r3, uint64_t r4, uint64_t r5)
{
	const struct interp_callback *c = (const struct interp_callback *)cb;
	const uint64_t args[5] = { r1, r2, r3, r4, r5 };
	uint64_t R[11];
	int err;

	if (callback_depth >= INTERP_MAX_FRAMES)
		return 0;
	regs_init(R, args);
	callback_depth++;
#ifdef INTERP_CHECKED
	err = chk_callback_run(c->p, c->entry, R);
#else
	err = run(c->p, c->entry, R, NULL);
#endif
	callback_depth--;
	return err ? 0 : R[0];
}

/* The callback entered at slot t, made on first mention; cb_of[t] is its index + 1 or 0. */
static struct interp_callback *callback_at(struct interp_prog *p, uint32_t *cb_of, uint32_t t)
{
	struct interp_callback *c;

	if (cb_of[t])
		return &p->callbacks[cb_of[t] - 1];
	c = &p->callbacks[p->nr_callbacks++];
	c->cb.call = callback_call;
	c->cb.owner = p->env.owner;
	c->p = p;
	c->entry = &p->insns[t];
	cb_of[t] = p->nr_callbacks;
	return c;
}

int interp_prepare(const struct bpf_insn *insns, uint32_t cnt, const struct interp_env *env,
		   struct interp_prog **out)
{
	static const struct interp_env no_env;
	const struct insn_desc *descs = insn_descs();
	struct label_table labels;
	struct interp_prog *p;
	int16_t first[256];
	uint8_t *mark;
#ifndef INTERP_CHECKED
	uint16_t *live_out;
#endif
	uint32_t *cb_of = NULL; /* by slot: index + 1 of the callback entered there, or 0 */
	uint32_t nr_funcs = 0;	/* LD_IMM64 BPF_PSEUDO_FUNC instructions */
	int err = -EINVAL;

	*out = NULL;
	if (cnt == 0 || cnt > INTERP_MAX_INSNS)
		return -E2BIG;
	if (!env)
		env = &no_env;
#ifdef INTERP_CHECKED
	run(NULL, NULL, NULL, &labels, NULL, NULL);
#else
	run(NULL, NULL, NULL, &labels);
#endif
	insn_first_of(first);
	p = calloc(1, sizeof(*p) + (cnt + 1) * sizeof(p->insns[0]));
	mark = calloc(cnt, 1);
	if (!p || !mark) {
		err = -ENOMEM;
		goto fail;
	}
	p->env = *env;
	p->cnt = cnt;

	/* Pass 1: forms, operands, helpers; remember second LD_IMM64 slots. */
	for (uint32_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		struct dinsn *d = &p->insns[i];
		int id = insn_find_fast(first, in);
		const struct insn_desc *desc;

		if (mark[i] & MARK_SLOT2) {
			d->handler = labels.extra[XL_TRAP_SLOT2];
			continue;
		}
		if (insn_is_probe_load(in)) {
			if (!insn_probe_load_ok(in))
				goto fail;
			d->handler = labels.extra[XL_PROBE_LDX];
			d->dst = in->dst_reg;
			d->src = in->src_reg;
			d->off = in->off;
			d->aux = insn_probe_load_width(in->code);
#ifdef INTERP_CHECKED
			d->id = INSN__COUNT; /* (chk_step(): no memory check) */
#endif
			continue;
		}
		if (id < 0 || !insn_fields_ok(id, in))
			goto fail;
		desc = &descs[id];
		if (in->dst_reg > 10)
			goto fail;
		if (desc->kind != INSN_K_CALL && desc->kind != INSN_K_LDDW && in->src_reg > 10)
			goto fail;
		d->handler = labels.form[id];
		d->dst = in->dst_reg;
		d->src = in->src_reg;
		d->off = in->off;
		d->aux = in->imm;
		d->k = (uint64_t)(int64_t)in->imm;
#ifdef INTERP_CHECKED
		d->id = (uint16_t)id;
		d->imm = in->imm;
#endif

		switch (desc->kind) {
		case INSN_K_LDDW:
			if (i + 1 >= cnt || insns[i + 1].code || insns[i + 1].dst_reg ||
			    insns[i + 1].src_reg || insns[i + 1].off)
				goto fail;
			/* The loader resolves the other pseudo forms into the value: load it
			 * verbatim. */
			d->k = (uint64_t)(uint32_t)in->imm |
			       (uint64_t)(uint32_t)insns[i + 1].imm << 32;
			mark[i + 1] = MARK_SLOT2;
			/* a callback: its address, once pass 2 knows the target is one */
			if (id == INSN_LDDW_FUNC)
				nr_funcs++;
			break;
		case INSN_K_LDPKT:
			if (!env->load_pkt)
				goto fail;
			break;
		case INSN_K_CALL:
			if (desc->op == INSN_OP_KFUNC) {
				d->u.fn = env->resolve_kfunc
						  ? env->resolve_kfunc(env, in->imm, in->off) : NULL;
				if (!d->u.fn) {
					err = -EOPNOTSUPP;
					goto fail;
				}
				int owner_reg = 0;

				if (env->kfunc_owner_reg)
					owner_reg = env->kfunc_owner_reg(env, in->imm, in->off);
				if (owner_reg > 0) {
					d->handler = labels.extra[XL_CALL_OWNER];
					d->dst = (uint8_t)owner_reg;
					d->k = (uint64_t)(uintptr_t)env->owner;
				}
			}
			if (desc->op == INSN_OP_HELPER) {
				uint32_t hid = (uint32_t)in->imm;

				if (hid >= env->nr_helpers || !env->helpers[hid])
					goto fail;
				d->u.fn = env->helpers[hid];
#ifndef INTERP_CHECKED
				if (env->loop_id && hid == env->loop_id)
					d->handler = labels.extra[XL_LOOP_CALL];
#endif
				if (env->unwind_id && hid == env->unwind_id)
					d->handler = labels.extra[XL_CALL_UNWIND];
				if (env->tail_call && hid == env->tail_call_id)
					d->handler = labels.extra[XL_TAIL_CALL];
			}
			break;
		default:
			break;
		}
	}

	/* Pass 2: jump, call and callback targets, now that every second slot is known. */
	if (nr_funcs) {
		p->callbacks = calloc(nr_funcs, sizeof(*p->callbacks));
		cb_of = calloc(cnt, sizeof(*cb_of));
		if (!p->callbacks || !cb_of) {
			err = -ENOMEM;
			goto fail;
		}
	}
	for (uint32_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		const struct insn_desc *desc;
		int64_t t;

		if (mark[i] & MARK_SLOT2 || insn_is_probe_load(in))
			continue;
		desc = &descs[insn_find_fast(first, in)];
		if (desc->code == (BPF_JMP32 | BPF_JA))
			t = (int64_t)i + 1 + in->imm; /* JMP32 JA: gotol */
		else if (desc->kind == INSN_K_JA || desc->kind == INSN_K_JCOND ||
			 desc->kind == INSN_K_MAY_GOTO)
			t = (int64_t)i + 1 + in->off;
		else if (desc->kind == INSN_K_CALL && desc->op == INSN_OP_LOCAL)
			t = (int64_t)i + 1 + in->imm;
		else if (desc->kind == INSN_K_LDDW && in->src_reg == BPF_PSEUDO_FUNC)
			t = (int64_t)i + 1 + in->imm;
		else
			continue;
		if (check_target(p, mark, t))
			goto fail;
		mark[t] |= MARK_TARGET;
		if (desc->kind == INSN_K_CALL)
			mark[t] |= MARK_FUNC;
		if (desc->kind == INSN_K_LDDW) {
			mark[t] |= MARK_FUNC | MARK_CALLBACK;
			p->insns[i].k = (uintptr_t)callback_at(p, cb_of, (uint32_t)t);
			continue;
		}
		p->insns[i].u.disp = (intptr_t)((t - (int64_t)i) * (int64_t)sizeof(struct dinsn));
	}
	free(cb_of);
	cb_of = NULL;
#ifndef INTERP_CHECKED
	/* bpf_loop run here (L_LOOP_CALL): the exits of callback functions, from a callback's first
	 * instruction to the next function's, go on to the next round themselves (L_LOOP_EXIT).
	 * The split only decides speed: L_LOOP_EXIT is a correct exit anywhere. */
	if (env->loop_id && p->nr_callbacks) {
		bool in_cb = false;

		for (uint32_t i = 0; i < cnt; i++) {
			if (mark[i] & MARK_FUNC)
				in_cb = mark[i] & MARK_CALLBACK;
			if (in_cb && p->insns[i].handler == labels.form[INSN_EXIT])
				p->insns[i].handler = labels.extra[XL_LOOP_EXIT];
		}
	}
	/* Pass 3: superinstructions, now that every target is known.  The checked build keeps one
	 * record per instruction so that every access is checked on its own.  Without memory for
	 * the liveness, only BNDL is lost. */
	live_out = malloc(cnt * sizeof(*live_out));
	if (live_out && exec_liveness(insns, cnt, live_out)) {
		free(live_out);
		live_out = NULL;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		struct dinsn *d = &p->insns[i];
		struct fuse f;

		if ((mark[i] & MARK_SLOT2) || !fuse_match(insns, cnt, i, mark, live_out, &f))
			continue;
		/* The jump's target from its record, not yet rewritten (i ascends). */
		if (fuse_jump(f.id)) /* the jump's displacement, from the first record */
			d->u.disp = p->insns[i + fuse_jump(f.id)].u.disp +
				    (intptr_t)(fuse_jump(f.id) * sizeof(struct dinsn));
		d->handler = labels.fused[f.id];
		d->dst = f.dst;
		d->src = f.src;
		d->off = f.off;
		d->aux = f.aux;
		d->k = f.k;
		if (fuse_is_bndl(f.id)) /* kb overlays k, which BNDL does not use */
			memcpy(d->kb, f.kb, sizeof(f.kb));
	}
	free(live_out);
#endif
	p->insns[cnt].handler = labels.extra[XL_TRAP_END];
	free(mark);
	*out = p;
	return 0;
fail:
	free(cb_of);
	free(mark);
	interp_free(p);
	return err;
}

#ifndef INTERP_CHECKED
int interp_exec(const struct interp_prog *p, const uint64_t args[5], uint64_t *r0)
{
	uint64_t R[11];
	int err;

	regs_init(R, args);
	err = run(p, p->insns, R, NULL);
	*r0 = err ? 0 : R[0];
	return err;
}

uint64_t interp_run(const struct interp_prog *p, uint64_t r1, uint64_t r2)
{
	uint64_t args[5] = { r1, r2, 0, 0, 0 };
	uint64_t r0;

	interp_exec(p, args, &r0);
	return r0;
}

uint32_t interp_len(const struct interp_prog *p)
{
	return p->cnt;
}

uint32_t interp_fused_len(const struct interp_prog *p, uint32_t i)
{
	struct label_table labels;

	run(NULL, NULL, NULL, &labels);
	for (int id = 0; i < p->cnt && id < FUSE__COUNT; id++)
		if (p->insns[i].handler == labels.fused[id])
			return fuse_len((enum fuse_id)id);
	return 0;
}

#endif /* !INTERP_CHECKED */

void interp_free(struct interp_prog *p)
{
	if (p)
		free(p->callbacks);
	free(p);
}
