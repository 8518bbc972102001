/* jit_x86_64.c — the eBPF to x86-64 translator.
 *
 * Algorithm.  scan() validates the program exactly as interp_prepare() does (same errors) and
 * gathers what the layout depends on: registers used, bpf-to-bpf calls, packet loads, which exit
 * stubs exist.  Then emit_program() runs in passes.  Pass 0 only measures, with every forward
 * jump long and every call far; its size bounds all later passes, so the RW mapping is made that
 * size and later passes write into it at its final address (so helper calls can be rel32).  Each
 * pass records the start of every slot and stub in addr[]; jumps use the current pass's address
 * for backward targets and the previous pass's for forward ones, choosing rel8 when it fits and
 * nothing at all for a jmp to the next byte.  The code is final when a pass reproduces the
 * previous pass's addresses.  After PAD_AFTER passes a slot may no longer shrink (NOPs pad it),
 * which makes sizes monotone and convergence certain.  NOPs also move the head of a small loop
 * to the start of a 64-byte line where the loop would otherwise straddle two (align_loop_head()).
 * Slow paths that a fast path rarely takes (a probe load outside the tasks' arena, a current
 * task not yet looked at) are segments of their own after the stubs, jumping back when done
 * (emit_colds()), so that the fast path runs straight on: a taken jump, even predicted, cost
 * about 0.14 ns a run on this project's machines (bench's task row, three of them moved out:
 * 2.36 -> 1.82 ns).  Finally the mapping becomes R+X.
 *
 * Machine model.  BPF r0..r10 live in rax, rdi, rsi, rdx, rcx, r8, rbx, r13, r14, r15, rbp (the
 * kernel's mapping: r1..r5 are the SysV argument registers, r6..r9 callee-saved, r0 the return
 * register).  r9, r10, r11 are scratch (r10 carries blinded immediates); r12 holds the top of
 * frame 0 when the program has bpf-to-bpf calls.  A leaf program (no call of any kind, no
 * blinding) whose instructions need no scratch register keeps r6..r8 in r9, r10, r11 instead,
 * which need no saving.  The entry is a SysV function returning
 * struct jit_ret in rax:rdx (r0, status).  The prologue pushes only the callee-saved registers
 * the program uses, keeps rsp 16-byte aligned at every call, and zeroes r0 and r6..r9 as the
 * interpreter does.  BPF stack frames are 512 bytes, contiguous as in the interpreter (8 of
 * them with bpf-to-bpf calls, r10 = top - depth * 512), so depth is (r12 - rbp) / 512.  A local
 * call checks the depth, pushes the caller's r6..r9, moves rbp down 512 and does a native call;
 * exit compares rbp with r12 to choose between ret and the epilogue, like the interpreter's
 * depth test.  Run-time errors and early exits (LD_ABS miss, unwind helper) jump to stubs that
 * reset rsp from r12 (or from the fixed frame size) and leave through the epilogue.
 *
 * Callbacks (exec/callback.h).  Each distinct target of an LD_IMM64 BPF_PSEUDO_FUNC gets a
 * descriptor (struct jit_callback, allocated before the passes so that its address is a constant
 * of the code: the LD_IMM64 is a movabs of it, not blinded) and an alternate entry placed after
 * the stubs: a copy of the prologue, zeroing what the straight-line code from the target does
 * not set first, then a jmp to the target's slot.  The descriptor's call() (jit_cb_call()) calls
 * that entry like jit_exec() calls the main one, so a callback is a fresh run with its own
 * frame(s) and anchor on the native stack below the helper that calls it; its exit at depth 0
 * leaves through the common epilogue, which only depends on the prologue's layout.
 *
 * Inline bpf_loop (interp_env.loop_id).  A call of the loop helper whose r2 is one of the
 * program's callbacks by an LD_IMM64 in the same basic block (find_loops(), the search
 * resolve_calls() makes for r1) is no helper call: emit_inline_loop() checks flags and nr as
 * the helper does, then runs the rounds as bpf-to-bpf calls of the callback's slot, with the
 * local call's machinery done once for all of them (depth check against r12, the caller's r6..r9
 * pushed, rbp moved down a frame).  i, nr and ctx stay on the native stack above the callback's
 * frames, padded so that rsp at the callback is aligned as after a local call.  A program with
 * one gets the frames of bpf-to-bpf calls; the rounds count towards INTERP_MAX_FRAMES as the
 * verifier counts them, so unbounded recursion through the loop ends with -ELOOP (the error
 * stubs reset rsp from r12, the pushes included).  Other calls of the helper (r2 from elsewhere)
 * go through the helper and the callback's descriptor as above.
 *
 * Beyond one instruction at a time: helper calls whose r1 is a map known at compile time are
 * replaced as jit_opts.resolve_call says (resolve_calls()): a direct call of the map's op, or
 * inline array index arithmetic.  Two or three instructions may be one x86 instruction
 * (emit_fused()), an add of a sum another register already holds is a copy of it
 * (emit_known_sum()), a sum `p = data + i` that is only ever used as an address is never
 * computed: the loads, stores and leas that use p address [data + i + off] (fold_address()),
 * a loop's packet check `p + K > data_end` compares p with data_end - K computed on entering
 * the loop, where the verifier vouches for the values (plan_hoists()), and a run of probe loads
 * through one pointer checks for the tasks' arena once (emit_probe_run()).
 *
 * Invariants.  r10 is never written (scan() refuses such programs), so rbp is frame 0's top
 * exactly when depth is 0.  Between BPF instructions rsp is constant per depth and aligned; no
 * flags or scratch registers carry values from one BPF instruction to the next (an inline loop
 * is one instruction: its jumps stay inside it and are fixed in size), but for a hoisted
 * check's bound, which lives in its register from the loop's entry to its end, in a loop whose
 * instructions leave that register alone.  Code bytes of a pass depend only on the previous
 * pass's addresses, the image address and the blinding seed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "exec/callback.h"
#include "exec/current_task.h"
#include "exec/helpers/impl.h"
#include "exec/jit.h"
#include "exec/liveness.h"

#ifdef __x86_64__

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "exec/jit_emit.h"

/* BPF register -> x86 register. */
static const uint8_t bpf2x86[11] = {
    X86_RAX, X86_RDI, X86_RSI, X86_RDX, X86_RCX, X86_R8,
    X86_RBX, X86_R13, X86_R14, X86_R15, X86_RBP,
};
/* A leaf (no call of any kind) that needs none of the scratch registers keeps r6..r8 in them
 * instead of callee-saved registers, which then need no push and pop (plan_frame()). */
static const uint8_t bpf2x86_leaf[11] = {
    X86_RAX, X86_RDI, X86_RSI, X86_RDX, X86_RCX, X86_R8,
    X86_R9,  X86_R10, X86_R11, X86_R15, X86_RBP,
};
#define R(bpf_reg) ((int)c->regs[bpf_reg])

#define AUX_BLIND X86_R10 /* blinded immediates; also saves rdx around div */
#define AUX X86_R11	  /* scratch: call targets, divisors, addresses, saved rcx */
#define AUX_SAVE X86_R9	  /* saves rax around div and fetch-and-op loops */
#define ANCHOR X86_R12	  /* top of frame 0, with bpf-to-bpf calls */

#define STACK_SCRATCH 16 /* LD_ABS/LD_IND copy buffer below the BPF stack */
#define MAX_PASSES 32
#define PAD_AFTER 8

/* Stubs after the body, in emission order (an EFAULT stub then falls into ERR_COMMON). */
enum jit_label {
	LBL_EPILOGUE,	     /* status 0 */
	LBL_EPILOGUE_STATUS, /* status already in edx */
	LBL_EXIT_ZERO,	     /* r0 = 0, status 0 (LD_ABS miss, unwind helper) */
	LBL_ELOOP,
	LBL_ENOENT,
	LBL_EFAULT,
	LBL_ERR_COMMON, /* r0 = 0, status in edx */
	LBL__COUNT
};



/* A callback's descriptor: what helpers receive (cb), and the alternate entry that runs it. */
struct jit_callback {
	struct exec_callback cb; /* first: jit_cb_call() casts back */
	jit_entry_fn entry;
};

struct jit_prog {
	void *image;	/* R+X mapping */
	size_t map_len; /* bytes mapped */
	uint32_t len;	/* code bytes */
	struct jit_callback *cbs; /* one per distinct callback target, in target order */
	uint32_t ncbs;
	uint32_t cnt;
	uint32_t *insn_off; /* cnt + 1: where each instruction's code starts, then the end of
			     * the last one's */
	uint32_t hoisted;   /* checks compared with a hoisted bound */
	uint32_t probe_checks; /* inline arena checks of probe loads */
};

/* A call of the bpf_loop helper (interp_env.loop_id) whose callback is known at compile time:
 * emitted as a native loop of bpf-to-bpf calls of the callback (emit_inline_loop()). */
struct jit_loop {
	uint32_t insn;	 /* the call instruction */
	uint32_t target; /* the callback's first instruction */
	/* BPF registers among r6..r9 that hold the loop's i, nr and ctx across the rounds
	 * (callback_spare_regs()), or 0 when the callback may write all but two of them: the
	 * state then lives on the native stack. */
	uint8_t st[3];
};

/* Code a slot's fast path jumps to when it is not taken, placed after the stubs so that the
 * fast path falls through (emit_colds()): a run of probe loads whose arena check failed, a
 * current task not yet looked at.  It ends with a jump back to the slot's resume point. */
enum jit_cold_kind { COLD_PROBE_RUN, COLD_CALL };
struct jit_cold {
	uint8_t kind;
	int8_t base, index;	/* COLD_PROBE_RUN: the x86 registers of the loads' address */
	uint32_t slot, n;	/* COLD_PROBE_RUN: the loads at slot .. slot + n - 1 */
	const void *fn;		/* COLD_CALL: the function to call */
	uint32_t resume;	/* this pass's offset where the fast path goes on */
};

/* A packet check compared with a bound computed on entering its loop (plan_hoists()). */
struct jit_hoist {
	uint32_t head;	/* the loop's first slot: the bound is computed falling into it */
	uint32_t check; /* the conditional jump; its sum is the fused pair at check - 2 */
	int32_t k;	/* the pair's constant */
	int8_t var;	/* BPF register the jump compares with the bound */
	int8_t inv;	/* a folded sum's part that goes into the bound, or -1 */
	int8_t end;	/* the jump's other register */
	int8_t fold_base, fold_index; /* the pair's source folded from these, or -1 */
	uint8_t sum_is_dst; /* the sum is the jump's dst (else its src) */
	uint8_t reg;	/* x86 register holding the bound through the loop */
};

struct jit_ctx {
	const struct bpf_insn *insns;
	uint32_t cnt;
	const struct interp_env *env;
	int16_t *ids; /* form of each slot; -1 for the second slot of LD_IMM64 */

	/* Facts from scan(), constant across passes. */
	uint16_t used;	     /* bit n: BPF register n appears */
	uint8_t local_calls; /* some bpf-to-bpf call */
	uint8_t any_call;    /* helper, callx, LD_ABS/IND or local call */
	uint8_t ldpkt;	     /* some LD_ABS/LD_IND */
	uint8_t tail_call;   /* some bpf_tail_call (env->tail_call): needs the scratch slot */
	uint8_t may_goto;    /* some may_goto: each frame keeps its budget below the BPF stack */
	uint8_t probe_loads; /* some probe load: arena_lo and arena_shift are set */
	int8_t arena_shift;  /* how probe loads tell the tasks' arena (arena_shift()), or -1 */
	uintptr_t arena_lo;
	uint32_t labels;     /* bit per enum jit_label that is emitted */
	int saved[6];	     /* callee-saved x86 registers the prologue pushes */
	int nsaved;
	int callee_saved[4]; /* the x86 registers of r6..r9 that local calls preserve */
	int ncallee_saved;
	uint32_t align_pad;  /* 0 or 8: keeps rsp 16-byte aligned below the pushes */
	uint32_t frame_size; /* BPF stack(s) + scratch, a multiple of 16 */
	uint32_t bpf_stack;  /* bytes of BPF stack below frame 0's top */
	int blind;
	uint64_t seed;
	const uint8_t *regs; /* BPF register -> x86 register: bpf2x86 or bpf2x86_leaf */
	uint8_t needs_aux;   /* some instruction uses AUX, AUX_SAVE or AUX_BLIND */
	uint8_t *target;     /* bit per slot: some jump or local call lands there */
	uint32_t *loop_end;  /* per slot: 1 + the last slot whose jump goes back to it (a loop
			      * head), else 0; NULL: no alignment (both find_targets()) */
	/* Helper calls replaced at compile time, by instruction index (scan()). */
	struct jit_call *calls;
	uint32_t ncalls;
	uint32_t call_next; /* per pass: the next entry of calls to emit */
	/* Callbacks: the distinct targets of LD_IMM64 BPF_PSEUDO_FUNC, ascending (scan()), and
	 * their descriptors, whose addresses the code embeds. */
	uint32_t *cb_targets;
	uint32_t ncbs;
	struct jit_callback *cbs;
	/* bpf_loop calls run inline (find_loops()), ascending by instruction. */
	struct jit_loop *loops;
	uint32_t nloops;
	uint32_t loop_next; /* per pass: the next entry of loops to emit */

	/* Per pass. */
	struct x86_buf b;
	uint8_t *image; /* final address of b.code; NULL in pass 0 */
	uint32_t *addr; /* [0, cnt) slots, [cnt] fall-off, [cnt + 1 + L] stubs, callback
			 * entries, then the end */
	uint32_t *prev; /* addr of the previous pass; NULL in pass 0 */
	int pad;	/* slots may not shrink */
	uint32_t cur;	/* slot being emitted */
	/* Sums known to be in registers (note_sums()): BPF register r holds sum_base[r] + sum_k[r]
	 * (64-bit), sum_base[r] < 0 where nothing is known.  Where sum_index[r] >= 0, r's value is
	 * sum_base[r] + sum_index[r] (sum_k[r] 0) but r was never written (fold_address()): every
	 * read of r until it is dead uses the two registers instead. */
	int8_t sum_base[MAX_BPF_REG];
	int8_t sum_index[MAX_BPF_REG];
	int32_t sum_k[MAX_BPF_REG];
	/* exec_liveness()'s result, or NULL (then no sum is folded into addresses). */
	uint16_t *live_out;
	/* Packet checks against a bound computed before their loop, ascending by check. */
	struct jit_hoist *hoists;
	uint32_t nhoists;
	uint32_t hoist_next; /* per pass: the first whose check is not behind */
	int32_t hoist_armed; /* per pass: the one whose sum was left out, or -1 */
	uint32_t hoisted;    /* per pass: checks compared with their bound */
	uint32_t probe_checks; /* per pass: arena checks of probe loads (emit_arena_check()) */
	/* Slow paths out of line: at most ncold_max (scan()), ncold of them this pass. */
	struct jit_cold *colds;
	uint32_t ncold_max;
	uint32_t ncold;
};

#define LBL(c, l) ((c)->cnt + 1 + (l))
#define CB_SEG(c, j) ((c)->cnt + 1 + LBL__COUNT + (j)) /* callback j's entry */
#define COLD_SEG(c, k) (CB_SEG(c, (c)->ncbs) + (k))	   /* slow path k (struct jit_cold) */
#define END_SEG(c) COLD_SEG(c, (c)->ncold_max)		   /* the end */
#define NADDR(c) (END_SEG(c) + 1)

/* --- Addresses and jumps --- */

/* Loop heads are aligned to this: a cache line, and the line of Zen's op cache. */
#define LOOP_LINE 64u

/* Before loop head k: NOPs (run once, on entering the loop) that move the head to the start of
 * the next 64-byte line when the loop, up to the end of its last backward jump, fits in one
 * line.  A small loop across a line boundary costs each round a second fetch, and even within a
 * line where it starts matters: bench's 29-byte csum1500 loop, run by prog_repeat() on AMD Zen
 * 3, took 211 ns from a line's start (and from offsets up to 20 or 32), 300 ns from offsets
 * 22..30, 414 ns across two lines; gcc and clang align loop heads for the same reason.  The
 * image starts a page, so offsets in it are as good as addresses.  Pass 0 reserves the most
 * that can be needed, so no later pass outgrows it; later passes size the loop from the
 * previous pass. */
static void align_loop_head(struct jit_ctx *c, uint32_t k)
{
	uint32_t at = c->b.len % LOOP_LINE, span;

	if (!c->prev) {
		emit_nops(&c->b, LOOP_LINE - 1);
		return;
	}
	span = c->prev[c->loop_end[k]] - c->prev[k];
	if (span <= LOOP_LINE && at)
		emit_nops(&c->b, LOOP_LINE - at);
}

/* Start segment k (a slot, the fall-off point, a stub or the end): pad segment k - 1 up to its
 * previous size in pad mode (and before a loop head, to its alignment), then record where k
 * begins. */
static void begin_segment(struct jit_ctx *c, uint32_t k)
{
	if (c->pad && c->prev && k > 0) {
		uint32_t want = c->prev[k] - c->prev[k - 1];

		while (c->b.len - c->addr[k - 1] < want && !c->b.err)
			emit_nop(&c->b);
	}
	if (k < c->cnt && c->loop_end && c->loop_end[k])
		align_loop_head(c, k);
	c->addr[k] = c->b.len;
	c->cur = k;
}

/* Best known address of segment k: this pass's if already emitted, else the previous pass's;
 * -1 in pass 0 for segments ahead. */
static int64_t target_addr(const struct jit_ctx *c, uint32_t k)
{
	if (k <= c->cur)
		return c->addr[k];
	return c->prev ? (int64_t)c->prev[k] : -1;
}

/* jmp/jcc to segment k in the shortest form the known addresses allow. */
static void emit_jump(struct jit_ctx *c, enum x86_cc cc, uint32_t k)
{
	int64_t to = target_addr(c, k), here = c->b.len;

	if (to < 0) {
		emit_jcc_rel32(&c->b, cc, 0);
		return;
	}
	/* An unconditional jump ends its segment: drop it when its target came right after the
	 * segment in the previous pass (in the final pass that is exactly the next byte). */
	if (cc == CC_ALWAYS &&
	    (to == here || (k > c->cur && c->prev && c->prev[k] == c->prev[c->cur + 1])))
		return;
	if (fits_s8(to - (here + 2)))
		emit_jcc_rel8(&c->b, cc, (int8_t)(to - (here + 2)));
	else
		emit_jcc_rel32(&c->b, cc, (int32_t)(to - (here + (cc == CC_ALWAYS ? 5 : 6))));
}

/* call to a C function: rel32 when the image is within reach, else through AUX. */
static void emit_call_abs(struct jit_ctx *c, const void *fn)
{
	if (c->image) {
		int64_t rel =
		    (int64_t)(uintptr_t)fn - (int64_t)(uintptr_t)(c->image + c->b.len + 5);

		if (fits_s32(rel)) {
			emit_call_rel32(&c->b, (int32_t)rel);
			return;
		}
	}
	emit_movabs(&c->b, AUX, (uint64_t)(uintptr_t)fn);
	emit_call_reg(&c->b, AUX);
}

/* --- Constant blinding --- */

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The key for the current slot: the same in every pass, so sizes and bytes are stable. */
static uint64_t blind_key(const struct jit_ctx *c)
{
	return splitmix64(c->seed ^ ((uint64_t)c->cur << 20));
}

/* reg = imm (sign-extended when is64, zero-extended otherwise) without imm in the code. */
static void emit_blinded_imm(struct jit_ctx *c, int is64, int reg, int32_t imm)
{
	int32_t key = (int32_t)blind_key(c);

	if (is64)
		emit_mov_r64_simm32_fixed(&c->b, reg, imm ^ key);
	else
		emit_mov_r32_imm32_fixed(&c->b, reg, (uint32_t)(imm ^ key));
	emit_alu_imm32_fixed(&c->b, is64, ALU_XOR, reg, key);
}

/* --- Translation of each kind --- */

/* dst = 0 / dst unchanged (zero-extended for 32 bits): results of x / 0 and x % 0. */
static void emit_divmod_by_zero(struct jit_ctx *c, int is64, int is_mod, int dst)
{
	if (!is_mod)
		emit_alu_rr(&c->b, 0, ALU_XOR, dst, dst);
	else if (!is64)
		emit_mov_rr(&c->b, 0, dst, dst);
}

/* Signed x / -1 = -x (wrapping at INT_MIN, where idiv would trap) and x % -1 = 0. */
static void emit_sdivmod_by_minus1(struct jit_ctx *c, int is64, int is_mod, int dst)
{
	if (is_mod)
		emit_alu_rr(&c->b, 0, ALU_XOR, dst, dst);
	else
		emit_neg(&c->b, is64, dst);
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* DIV, MOD, SDIV, SMOD.  x86 divides rdx:rax, so rax and rdx are saved in AUX_SAVE and
 * AUX_BLIND unless dst is one of them, and the divisor goes to AUX first. */
static void emit_divmod(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, dst = R(in->dst_reg);
	int is_mod = d->op == INSN_OP_MOD || d->op == INSN_OP_SMOD;
	int is_signed = d->op == INSN_OP_SDIV || d->op == INSN_OP_SMOD;
	int is_k = BPF_SRC(d->code) == BPF_K;
	uint64_t mask = is64 ? UINT64_MAX : UINT32_MAX;
	uint64_t v = (uint64_t)(int64_t)in->imm & mask; /* the divisor, if constant */
	uint32_t skip_zero = 0, skip_m1 = 0, done1 = 0, done2 = 0;
	int res = is_mod ? X86_RDX : X86_RAX;

	if (is_k) {
		if (v == 0) {
			emit_divmod_by_zero(c, is64, is_mod, dst);
			return;
		}
		if (is_signed && v == mask) {
			emit_sdivmod_by_minus1(c, is64, is_mod, dst);
			return;
		}
		if (!is_signed && is_pow2(v) && !c->blind) {
			int sh = __builtin_ctzll(v);

			if (is_mod)
				emit_alu_imm(b, is64, ALU_AND, dst, (int32_t)(v - 1));
			else if (sh)
				emit_shift_imm(b, is64, SHIFT_SHR, dst, (uint8_t)sh);
			else if (!is64)
				emit_mov_rr(b, 0, dst, dst);
			return;
		}
		if (c->blind)
			emit_blinded_imm(c, is64, AUX, in->imm);
		else
			emit_mov_imm64(b, AUX, v);
	} else {
		emit_mov_rr(b, 1, AUX, R(in->src_reg));
		emit_test_rr(b, is64, AUX, AUX);
		skip_zero = emit_jcc_fwd8(b, CC_NE);
		emit_divmod_by_zero(c, is64, is_mod, dst);
		done1 = emit_jcc_fwd8(b, CC_ALWAYS);
		patch_rel8(b, skip_zero);
		if (is_signed) {
			emit_alu_imm(b, is64, ALU_CMP, AUX, -1);
			skip_m1 = emit_jcc_fwd8(b, CC_NE);
			emit_sdivmod_by_minus1(c, is64, is_mod, dst);
			done2 = emit_jcc_fwd8(b, CC_ALWAYS);
			patch_rel8(b, skip_m1);
		}
	}
	if (dst != X86_RAX)
		emit_mov_rr(b, 1, AUX_SAVE, X86_RAX);
	if (dst != X86_RDX)
		emit_mov_rr(b, 1, AUX_BLIND, X86_RDX);
	if (dst != X86_RAX)
		emit_mov_rr(b, 1, X86_RAX, dst);
	if (is_signed)
		emit_cqo(b, is64);
	else
		emit_alu_rr(b, 0, ALU_XOR, X86_RDX, X86_RDX);
	emit_div(b, is64, is_signed, AUX);
	if (dst != res)
		emit_mov_rr(b, is64, dst, res);
	if (dst != X86_RDX)
		emit_mov_rr(b, 1, X86_RDX, AUX_BLIND);
	if (dst != X86_RAX)
		emit_mov_rr(b, 1, X86_RAX, AUX_SAVE);
	if (done1)
		patch_rel8(b, done1);
	if (done2)
		patch_rel8(b, done2);
}

static void emit_shift(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, dst = R(in->dst_reg), src;
	enum x86_shift sh = d->op == INSN_OP_LSH   ? SHIFT_SHL
			    : d->op == INSN_OP_RSH ? SHIFT_SHR
						   : SHIFT_SAR;

	if (BPF_SRC(d->code) == BPF_K) {
		/* Not blinded: at most 6 meaningful bits survive the mask. */
		uint8_t n = (uint8_t)(in->imm & (is64 ? 63 : 31));

		if (n)
			emit_shift_imm(b, is64, sh, dst, n);
		else if (!is64)
			emit_mov_rr(b, 0, dst, dst);
		return;
	}
	src = R(in->src_reg);
	if (src == X86_RCX) {
		emit_shift_cl(b, is64, sh, dst);
		return;
	}
	/* The count must be in cl: park rcx (r4) in AUX, shift AUX if it is the destination. */
	emit_mov_rr(b, 1, AUX, X86_RCX);
	emit_mov_rr(b, 1, X86_RCX, src);
	emit_shift_cl(b, is64, sh, dst == X86_RCX ? AUX : dst);
	emit_mov_rr(b, 1, X86_RCX, AUX);
}

static enum x86_alu alu_of(int op)
{
	switch (op) {
	case INSN_OP_ADD:
		return ALU_ADD;
	case INSN_OP_SUB:
		return ALU_SUB;
	case INSN_OP_AND:
		return ALU_AND;
	case INSN_OP_OR:
	case INSN_OP_FETCH_OR:
		return ALU_OR;
	case INSN_OP_FETCH_AND:
		return ALU_AND;
	default:
		return ALU_XOR; /* XOR, FETCH_XOR */
	}
}

/* Multiplication by some constants in fewer cycles than imul (3): 0, 1, 2^k, 3/5/9 (lea),
 * 2^k - 1 and 2^k + 1 (shift and subtract/add).  Returns 0 when imm is none of those. */
static int emit_mul_const(struct jit_ctx *c, int is64, int dst, int32_t imm)
{
	struct x86_buf *b = &c->b;
	int k;

	if (imm == 0) {
		emit_alu_rr(b, 0, ALU_XOR, dst, dst);
	} else if (imm == 1) {
		if (!is64)
			emit_mov_rr(b, 0, dst, dst);
	} else if (imm < 0) {
		return 0;
	} else if (is_pow2((uint32_t)imm)) {
		emit_shift_imm(b, is64, SHIFT_SHL, dst, (uint8_t)__builtin_ctz((uint32_t)imm));
	} else if (imm == 3 || imm == 5 || imm == 9) {
		emit_lea_indexed(b, is64, dst, dst, dst, __builtin_ctz((uint32_t)imm - 1));
	} else if (is_pow2((uint32_t)imm + 1) || is_pow2((uint32_t)imm - 1)) {
		k = is_pow2((uint32_t)imm + 1) ? __builtin_ctz((uint32_t)imm + 1)
					       : __builtin_ctz((uint32_t)imm - 1);
		emit_mov_rr(b, 1, AUX, dst);
		emit_shift_imm(b, is64, SHIFT_SHL, dst, (uint8_t)k);
		emit_alu_rr(b, is64, is_pow2((uint32_t)imm + 1) ? ALU_SUB : ALU_ADD, dst, AUX);
	} else {
		return 0;
	}
	return 1;
}

static void emit_alu(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, dst = R(in->dst_reg);
	int is_k = BPF_SRC(d->code) == BPF_K;
	int src = is_k ? -1 : R(in->src_reg);

	switch (d->op) {
	case INSN_OP_MOV:
		if (is_k && c->blind)
			emit_blinded_imm(c, is64, dst, in->imm);
		else if (is_k)
			emit_mov_imm64(b, dst,
				       is64 ? (uint64_t)(int64_t)in->imm : (uint32_t)in->imm);
		else if (!is64 || dst != src)
			emit_mov_rr(b, is64, dst, src);
		return;
	case INSN_OP_LSH:
	case INSN_OP_RSH:
	case INSN_OP_ARSH:
		emit_shift(c, d, in);
		return;
	case INSN_OP_DIV:
	case INSN_OP_MOD:
	case INSN_OP_SDIV:
	case INSN_OP_SMOD:
		emit_divmod(c, d, in);
		return;
	default:
		break;
	}
	if (is_k && c->blind) {
		emit_blinded_imm(c, is64, AUX_BLIND, in->imm);
		src = AUX_BLIND;
		is_k = 0;
	}
	if (d->op == INSN_OP_MUL) {
		if (is_k && emit_mul_const(c, is64, dst, in->imm))
			return;
		if (is_k)
			emit_imul_imm(b, is64, dst, dst, in->imm);
		else
			emit_imul_rr(b, is64, dst, src);
	} else if (is_k) {
		emit_alu_imm(b, is64, alu_of(d->op), dst, in->imm);
	} else {
		emit_alu_rr(b, is64, alu_of(d->op), dst, src);
	}
}

static void emit_end(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int dst = R(in->dst_reg);

	if (d->op == INSN_OP_LE) { /* x86 is little-endian: truncate only */
		if (d->bits == 16)
			emit_movzx_rr(b, 16, dst, dst);
		else if (d->bits == 32)
			emit_mov_rr(b, 0, dst, dst);
		return;
	}
	if (d->bits == 16) {
		emit_rol16_8(b, dst);
		emit_movzx_rr(b, 16, dst, dst);
	} else {
		emit_bswap(b, d->bits == 64, dst);
	}
}

static enum x86_cc cc_of(int op)
{
	switch (op) {
	case INSN_OP_JEQ:
		return CC_E;
	case INSN_OP_JGT:
		return CC_A;
	case INSN_OP_JGE:
		return CC_AE;
	case INSN_OP_JLT:
		return CC_B;
	case INSN_OP_JLE:
		return CC_BE;
	case INSN_OP_JSGT:
		return CC_G;
	case INSN_OP_JSGE:
		return CC_GE;
	case INSN_OP_JSLT:
		return CC_L;
	case INSN_OP_JSLE:
		return CC_LE;
	default:
		return CC_NE; /* JNE, JSET */
	}
}

static void emit_jcond(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, dst = R(in->dst_reg), src = -1;
	int is_set = d->op == INSN_OP_JSET;

	if (in->off == 0)
		return; /* both ways lead to the next instruction */
	if (BPF_SRC(d->code) == BPF_X) {
		src = R(in->src_reg);
	} else if (c->blind) {
		emit_blinded_imm(c, is64, AUX_BLIND, in->imm);
		src = AUX_BLIND;
	}
	if (src >= 0 && is_set)
		emit_test_rr(b, is64, dst, src);
	else if (src >= 0)
		emit_alu_rr(b, is64, ALU_CMP, dst, src);
	else if (is_set)
		emit_test_imm(b, is64, dst, in->imm);
	else if (in->imm == 0)
		emit_test_rr(b, is64, dst, dst); /* same flags as cmp dst, 0 */
	else
		emit_alu_imm(b, is64, ALU_CMP, dst, in->imm);
	emit_jump(c, cc_of(d->op), (uint32_t)(c->cur + 1 + in->off));
}

/* The uBPF unwind helper: a 0 result ends the program with r0 = 0. */
static void emit_unwind_check(struct jit_ctx *c)
{
	emit_test_rr(&c->b, 1, X86_RAX, X86_RAX);
	emit_jump(c, CC_E, LBL(c, LBL_EXIT_ZERO));
}

static int has_unwind(const struct interp_env *env)
{
	return env->unwind_id && env->unwind_id < env->nr_helpers && env->helpers[env->unwind_id];
}

/* callx: the helper id is in dst at run time. */
static void emit_callx(struct jit_ctx *c, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	const struct interp_env *env = c->env;
	uint32_t nr = env->nr_helpers > INT32_MAX ? INT32_MAX : env->nr_helpers;
	uint32_t general = 0, done = 0;

	if (nr == 0) {
		emit_jump(c, CC_ALWAYS, LBL(c, LBL_ENOENT));
		return;
	}
	emit_mov_rr(b, 1, AUX, R(in->dst_reg));
	emit_alu_imm(b, 1, ALU_CMP, AUX, (int32_t)nr);
	emit_jump(c, CC_AE, LBL(c, LBL_ENOENT));
	if (has_unwind(env)) {
		emit_alu_imm(b, 1, ALU_CMP, AUX, (int32_t)env->unwind_id);
		general = emit_jcc_fwd8(b, CC_NE);
		emit_call_abs(c, (const void *)env->helpers[env->unwind_id]);
		emit_unwind_check(c);
		done = emit_jcc_fwd8(b, CC_ALWAYS);
		patch_rel8(b, general);
	}
	emit_movabs(b, AUX_BLIND, (uint64_t)(uintptr_t)env->helpers);
	emit_load64_indexed8(b, AUX, AUX_BLIND, AUX);
	emit_test_rr(b, 1, AUX, AUX);
	emit_jump(c, CC_E, LBL(c, LBL_ENOENT));
	emit_call_reg(b, AUX);
	if (done)
		patch_rel8(b, done);
}

/* Where the frame whose top rbp is keeps its may_goto budget (plan_frame()). */
static int32_t may_goto_off(const struct jit_ctx *c)
{
	return -(int32_t)c->bpf_stack - 8;
}

/* A function's run begins: its frame's budget is whole (programs with may_goto only). */
static void emit_may_goto_init(struct jit_ctx *c)
{
	if (c->may_goto)
		emit_store_imm(&c->b, 64, X86_RBP, may_goto_off(c), (int32_t)MAY_GOTO_BUDGET);
}

/* may_goto: jump when the budget is spent, else spend one. */
static void emit_may_goto(struct jit_ctx *c, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;

	emit_load(b, 64, AUX, X86_RBP, may_goto_off(c));
	emit_test_rr(b, 1, AUX, AUX);
	emit_jump(c, CC_E, (uint32_t)(c->cur + 1 + in->off));
	emit_alu_imm(b, 1, ALU_SUB, AUX, 1);
	emit_store(b, 64, X86_RBP, may_goto_off(c), AUX);
}

/* bpf-to-bpf call: depth check, save the caller's r6..r9, next frame, native call. */
static void emit_local_call(struct jit_ctx *c, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	uint32_t pad = c->ncallee_saved % 2 ? 0 : 8; /* pushes + return address: 16-byte multiple */
	int64_t to;

	/* depth = (r12 - rbp) / 512; refuse to go past INTERP_MAX_FRAMES - 1 pushed frames. */
	emit_lea(b, AUX, X86_RBP, (INTERP_MAX_FRAMES - 1) * INTERP_STACK_SIZE);
	emit_alu_rr(b, 1, ALU_CMP, AUX, ANCHOR);
	emit_jump(c, CC_BE, LBL(c, LBL_ELOOP));
	for (int i = 0; i < c->ncallee_saved; i++)
		emit_push(b, c->callee_saved[i]);
	if (pad)
		emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)pad);
	emit_alu_imm(b, 1, ALU_SUB, X86_RBP, INTERP_STACK_SIZE);
	emit_may_goto_init(c);
	to = target_addr(c, (uint32_t)(c->cur + 1 + in->imm));
	emit_call_rel32(b, to < 0 ? 0 : (int32_t)(to - (b->len + 5)));
	emit_alu_imm(b, 1, ALU_ADD, X86_RBP, INTERP_STACK_SIZE);
	if (pad)
		emit_alu_imm(b, 1, ALU_ADD, X86_RSP, (int32_t)pad);
	for (int i = c->ncallee_saved - 1; i >= 0; i--)
		emit_pop(b, c->callee_saved[i]);
}

/* bpf_loop(nr = r1, callback, ctx = r3, flags = r4) with the callback known (find_loops()): the
 * helper's checks, then rounds of a bpf-to-bpf call of the callback with r1 = i, r2 = ctx until
 * one returns nonzero or i reaches nr; r0 = the rounds run.  Like emit_local_call() but once for
 * all the rounds: depth check, the caller's r6..r9 pushed, rbp moved down a frame.  The loop
 * state (i, nr, ctx) lives in the x86 registers of three of r6..r9 that the callback never
 * writes (l->st; any of them the program does not use is pushed too, being the C caller's),
 * else on the native stack above the callback's frames: [rsp] i, [rsp + 8 + pad] nr (u32),
 * [rsp + 16 + pad] ctx.  pad makes the pushes plus the return address a multiple of 16 so that
 * the callback's rsp is aligned as a local call's is.  r1..r5 end up unspecified, as after a
 * helper call. */
static void emit_inline_loop(struct jit_ctx *c, const struct jit_loop *l)
{
	struct x86_buf *b = &c->b;
	/* the state in registers (l->st: i, nr, ctx), else on the stack */
	int si = l->st[0] ? R(l->st[0]) : -1, sn = si < 0 ? -1 : R(l->st[1]),
	    sc = si < 0 ? -1 : R(l->st[2]);
	int extra[3], nextra = 0, npush;
	uint32_t pad;
	int32_t nr_off, ctx_off;
	uint32_t einval, e2big, none, stop, top;
	int64_t to, back;

	/* a state register the program does not use is the C caller's: saved too */
	for (int k = 0; si >= 0 && k < 3; k++) {
		int r = k == 0 ? si : k == 1 ? sn : sc;
		bool pushed = false;

		for (int i = 0; i < c->ncallee_saved; i++)
			pushed |= c->callee_saved[i] == r;
		if (!pushed)
			extra[nextra++] = r;
	}
	/* pushes + return address: a multiple of 16 at the callback, as after a local call */
	npush = c->ncallee_saved + (si >= 0 ? nextra : 3);
	pad = npush % 2 ? 0 : 8;
	nr_off = (int32_t)(8 + pad);
	ctx_off = (int32_t)(16 + pad);

	emit_mov_r64_simm32_fixed(b, X86_RAX, -EINVAL);
	emit_test_rr(b, 1, X86_RCX, X86_RCX);
	einval = emit_jcc_fwd32(b, CC_NE);
	emit_mov_r64_simm32_fixed(b, X86_RAX, -E2BIG);
	emit_alu_imm32_fixed(b, 0, ALU_CMP, X86_RDI, 1 << 23); /* BPF_MAX_LOOPS */
	e2big = emit_jcc_fwd32(b, CC_A);
	emit_alu_rr(b, 0, ALU_XOR, X86_RAX, X86_RAX);
	emit_test_rr(b, 0, X86_RDI, X86_RDI);
	none = emit_jcc_fwd32(b, CC_E);
	/* a round would be frame depth + 1: the same bound as a local call's */
	emit_lea(b, AUX, X86_RBP, (INTERP_MAX_FRAMES - 1) * INTERP_STACK_SIZE);
	emit_alu_rr(b, 1, ALU_CMP, AUX, ANCHOR);
	emit_jump(c, CC_BE, LBL(c, LBL_ELOOP));
	for (int i = 0; i < c->ncallee_saved; i++)
		emit_push(b, c->callee_saved[i]);
	if (si >= 0) {
		for (int i = 0; i < nextra; i++)
			emit_push(b, extra[i]);
		if (pad)
			emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)pad);
		emit_mov_rr(b, 1, sc, X86_RDX);
		emit_mov_rr(b, 0, sn, X86_RDI);
		emit_alu_rr(b, 0, ALU_XOR, si, si);
	} else {
		emit_push(b, X86_RDX); /* ctx */
		emit_push(b, X86_RDI); /* nr: only its low half is read */
		if (pad)
			emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)pad);
		emit_push(b, X86_RAX); /* i = 0 */
	}
	emit_alu_imm(b, 1, ALU_SUB, X86_RBP, INTERP_STACK_SIZE);
	if (si < 0)
		emit_alu_rr(b, 0, ALU_XOR, X86_RDI, X86_RDI);
	top = b->len; /* rdi = i (stack state) */
	if (si >= 0) {
		emit_mov_rr(b, 0, X86_RDI, si);
		emit_mov_rr(b, 1, X86_RSI, sc);
	} else {
		emit_load(b, 64, X86_RSI, X86_RSP, ctx_off);
	}
	emit_may_goto_init(c); /* (each round is a call of the callback) */
	to = target_addr(c, l->target);
	emit_call_rel32(b, to < 0 ? 0 : (int32_t)(to - (b->len + 5)));
	if (si >= 0) {
		emit_alu_imm(b, 0, ALU_ADD, si, 1);
		emit_test_rr(b, 1, X86_RAX, X86_RAX);
		stop = emit_jcc_fwd8(b, CC_NE); /* this round counts */
		emit_alu_rr(b, 0, ALU_CMP, sn, si);
	} else {
		emit_load(b, 64, X86_RDI, X86_RSP, 0);
		emit_alu_imm(b, 0, ALU_ADD, X86_RDI, 1);
		emit_test_rr(b, 1, X86_RAX, X86_RAX);
		stop = emit_jcc_fwd8(b, CC_NE); /* this round counts */
		emit_store(b, 64, X86_RSP, 0, X86_RDI);
		emit_cmp_m32_r32(b, X86_RSP, nr_off, X86_RDI);
	}
	back = (int64_t)top - (b->len + 2);
	if (fits_s8(back))
		emit_jcc_rel8(b, CC_A, (int8_t)back); /* nr > i + 1: another round */
	else
		emit_jcc_rel32(b, CC_A, (int32_t)((int64_t)top - (b->len + 6)));
	patch_rel8(b, stop);
	emit_mov_rr(b, 0, X86_RAX, si >= 0 ? si : X86_RDI); /* i + 1 rounds */
	emit_alu_imm(b, 1, ALU_ADD, X86_RBP, INTERP_STACK_SIZE);
	if (si >= 0) {
		if (pad)
			emit_alu_imm(b, 1, ALU_ADD, X86_RSP, (int32_t)pad);
		for (int i = nextra - 1; i >= 0; i--)
			emit_pop(b, extra[i]);
	} else {
		emit_alu_imm(b, 1, ALU_ADD, X86_RSP, (int32_t)(24 + pad));
	}
	for (int i = c->ncallee_saved - 1; i >= 0; i--)
		emit_pop(b, c->callee_saved[i]);
	patch_rel32(b, einval);
	patch_rel32(b, e2big);
	patch_rel32(b, none);
}

/* A helper call that jit_opts.resolve_call replaced (see struct jit_call). */
static void emit_resolved_call(struct jit_ctx *c, const struct jit_call *how)
{
	struct x86_buf *b = &c->b;
	uint32_t miss, done;

	if (how->kind == JIT_CALL_DIRECT) {
		emit_call_abs(c, how->fn);
		if (how->sext32)
			emit_movsx_rr(b, 1, 32, X86_RAX, X86_RAX);
		return;
	}
	/* JIT_CALL_ARRAY: the index is the u32 at r2 (rsi) */
	emit_load(b, 32, AUX, X86_RSI, 0);
	emit_alu_imm(b, 0, ALU_CMP, AUX, (int32_t)how->max_entries);
	miss = emit_jcc_fwd8(b, CC_AE);
	if (is_pow2(how->elem_size))
		emit_shift_imm(b, 1, SHIFT_SHL, AUX, (uint8_t)__builtin_ctz(how->elem_size));
	else
		emit_imul_imm(b, 1, AUX, AUX, (int32_t)how->elem_size);
	emit_mov_imm64(b, X86_RAX, how->base);
	emit_alu_rr(b, 1, ALU_ADD, X86_RAX, AUX);
	done = emit_jcc_fwd8(b, CC_ALWAYS);
	patch_rel8(b, miss);
	emit_alu_rr(b, 0, ALU_XOR, X86_RAX, X86_RAX);
	patch_rel8(b, done);
}

static void emit_exit(struct jit_ctx *c);

/* bpf_tail_call through env->tail_call(r1, r2, r3, &r0) (interp.h): 0, go on; 1, the target ran:
 * leave this function with its r0, as an exit; < 0, its run-time error. */
static void emit_tail_call(struct jit_ctx *c)
{
	struct x86_buf *b = &c->b;
	uint32_t go_on, failed;

	/* r1..r3 already are rdi, rsi, rdx; r0's slot is the scratch below the BPF stack */
	if (c->local_calls)
		emit_lea(b, X86_RCX, ANCHOR, -(int32_t)c->frame_size);
	else
		emit_lea(b, X86_RCX, X86_RSP, 0);
	emit_call_abs(c, (const void *)c->env->tail_call);
	emit_test_rr(b, 0, X86_RAX, X86_RAX);
	go_on = emit_jcc_fwd8(b, CC_E);
	failed = emit_jcc_fwd8(b, CC_L);
	if (c->local_calls)
		emit_load(b, 64, X86_RAX, ANCHOR, -(int32_t)c->frame_size);
	else
		emit_load(b, 64, X86_RAX, X86_RSP, 0);
	emit_exit(c);
	patch_rel8(b, failed);
	emit_mov_rr(b, 0, X86_RDX, X86_RAX);
	emit_jump(c, CC_ALWAYS, LBL(c, LBL_ERR_COMMON));
	patch_rel8(b, go_on);
}

/* A new slow path out of line (emit_colds()): its index, for COLD_SEG(). */
static uint32_t new_cold(struct jit_ctx *c, const struct jit_cold *cold)
{
	if (c->ncold >= c->ncold_max) { /* (scan() counted them all: cannot happen) */
		c->b.err = -EFAULT;
		return 0;
	}
	c->colds[c->ncold] = *cold;
	return c->ncold++;
}

/* Where cold k goes on: here, in this pass. */
static void set_resume(struct jit_ctx *c, uint32_t k)
{
	if (k < c->ncold)
		c->colds[k].resume = c->b.len;
}

/* bpf_get_current_task() and _btf(): the task a hold has checked, read from the thread's
 * current_task_cached (mov rax, fs:[off]), else the helper's call, which looks (out of line). */
static void emit_current_task(struct jit_ctx *c, const void *fn)
{
	uintptr_t tp;
	intptr_t off;

	__asm__("mov %%fs:0, %0" : "=r"(tp)); /* (the TCB's pointer to itself: the thread's) */
	off = (intptr_t)(uintptr_t)&current_task_cached - (intptr_t)tp;
	if (fits_s32(off)) {
		const uint8_t mov[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, (uint8_t)off,
					(uint8_t)(off >> 8), (uint8_t)(off >> 16),
					(uint8_t)(off >> 24) };

		uint32_t k = new_cold(c, &(struct jit_cold){ .kind = COLD_CALL, .fn = fn });

		emit_bytes(&c->b, mov, sizeof(mov));
		emit_test_rr(&c->b, 1, X86_RAX, X86_RAX);
		emit_jump(c, CC_E, COLD_SEG(c, k));
		set_resume(c, k);
		return;
	}
	emit_call_abs(c, fn);
}

static void emit_call(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	const struct interp_env *env = c->env;

	switch (d->op) {
	case INSN_OP_HELPER:
		if (env->tail_call && (uint32_t)in->imm == env->tail_call_id) {
			emit_tail_call(c);
			break;
		}
		if (c->loop_next < c->nloops && c->loops[c->loop_next].insn == c->cur) {
			emit_inline_loop(c, &c->loops[c->loop_next++]);
			break;
		}
		if (c->call_next < c->ncalls && c->calls[c->call_next].insn == c->cur) {
			emit_resolved_call(c, &c->calls[c->call_next++]);
			break;
		}
		if ((const void *)env->helpers[(uint32_t)in->imm] == (const void *)h_get_current_task) {
			emit_current_task(c, (const void *)h_get_current_task);
			break;
		}
		/* r1..r5 already are the SysV argument registers. */
		emit_call_abs(c, (const void *)env->helpers[(uint32_t)in->imm]);
		if (env->unwind_id && (uint32_t)in->imm == env->unwind_id)
			emit_unwind_check(c);
		break;
	case INSN_OP_REG:
		emit_callx(c, in);
		break;
	case INSN_OP_KFUNC: { /* scan() made sure it resolves; called as a helper */
		int owner = env->kfunc_owner_reg ? env->kfunc_owner_reg(env, in->imm, in->off) : 0;

		if (owner > 0) /* the program, in the argument the kfunc takes it in */
			emit_movabs(&c->b, R(owner), (uint64_t)(uintptr_t)env->owner);
		emit_call_abs(c, (const void *)env->resolve_kfunc(env, in->imm, in->off));
		break;
	}
	default: /* LOCAL */
		emit_local_call(c, in);
		break;
	}
}

static void emit_exit(struct jit_ctx *c)
{
	if (c->local_calls) {
		emit_alu_rr(&c->b, 1, ALU_CMP, X86_RBP, ANCHOR);
		emit_jump(c, CC_E, LBL(c, LBL_EPILOGUE));
		emit_ret(&c->b);
	} else {
		emit_jump(c, CC_ALWAYS, LBL(c, LBL_EPILOGUE));
	}
}

/* Index in c->cb_targets of target t (scan() put every LD_IMM64 BPF_PSEUDO_FUNC target there). */
static uint32_t cb_index(const struct jit_ctx *c, uint32_t t)
{
	uint32_t lo = 0, hi = c->ncbs;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->cb_targets[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void emit_lddw(struct jit_ctx *c, const struct bpf_insn *in)
{
	uint64_t v = (uint64_t)(uint32_t)in[0].imm | (uint64_t)(uint32_t)in[1].imm << 32;
	int dst = R(in->dst_reg);

	if (in->src_reg == BPF_PSEUDO_FUNC) {
		/* the descriptor's address: a JIT-chosen constant, not blinded, fixed size */
		uint32_t j = cb_index(c, (uint32_t)((int64_t)c->cur + 1 + in->imm));

		emit_movabs(&c->b, dst, (uint64_t)(uintptr_t)&c->cbs[j]);
		return;
	}
	if (c->blind) {
		uint64_t key = blind_key(c);

		emit_movabs(&c->b, dst, v ^ key);
		emit_movabs(&c->b, AUX_BLIND, key);
		emit_alu_rr(&c->b, 1, ALU_XOR, dst, AUX_BLIND);
	} else {
		emit_mov_imm64(&c->b, dst, v);
	}
}

/* LD_ABS / LD_IND: r0 = big-endian load through env->load_pkt(r6, off, size, buf); a NULL
 * result ends the program with r0 = 0.  r1..r5 are scratched, as on the kernel. */
static void emit_ldpkt(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;

	/* esi first: the index register may be any of rdi, rdx, rcx. */
	if (d->op == INSN_OP_IND) {
		emit_mov_rr(b, 0, X86_RSI, R(in->src_reg));
		if (c->blind) {
			emit_blinded_imm(c, 0, AUX_BLIND, in->imm);
			emit_alu_rr(b, 0, ALU_ADD, X86_RSI, AUX_BLIND);
		} else if (in->imm) {
			emit_alu_imm(b, 0, ALU_ADD, X86_RSI, in->imm);
		}
	} else if (c->blind) {
		emit_blinded_imm(c, 0, X86_RSI, in->imm);
	} else {
		emit_mov_r32_imm32_fixed(b, X86_RSI, (uint32_t)in->imm);
	}
	emit_mov_rr(b, 1, X86_RDI, R(6));
	emit_mov_r32_imm32_fixed(b, X86_RDX, d->bits / 8);
	if (c->local_calls)
		emit_lea(b, X86_RCX, ANCHOR, -(int32_t)c->frame_size);
	else
		emit_lea(b, X86_RCX, X86_RSP, 0);
	emit_call_abs(c, (const void *)c->env->load_pkt);
	emit_test_rr(b, 1, X86_RAX, X86_RAX);
	emit_jump(c, CC_E, LBL(c, LBL_EXIT_ZERO));
	emit_load(b, d->bits, X86_RAX, X86_RAX, 0);
	if (d->bits == 16)
		emit_rol16_8(b, X86_RAX);
	else if (d->bits == 32)
		emit_bswap(b, 0, X86_RAX);
}

/* Fetch-and-or/and/xor have no x86 instruction: a cmpxchg loop.  rax (r0) is saved in
 * AUX_SAVE; the address goes to AUX first because the base may be rax. */
static void emit_fetch_op_loop(struct jit_ctx *c, const struct insn_desc *d,
			       const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, src = R(in->src_reg);
	int operand = src == X86_RAX ? AUX_SAVE : src;
	uint32_t loop;

	emit_lea(b, AUX, R(in->dst_reg), in->off);
	emit_mov_rr(b, 1, AUX_SAVE, X86_RAX);
	emit_load(b, d->bits, X86_RAX, AUX, 0);
	loop = b->len;
	emit_mov_rr(b, 1, AUX_BLIND, X86_RAX);
	emit_alu_rr(b, is64, alu_of(d->op), AUX_BLIND, operand);
	emit_lock_cmpxchg(b, is64, AUX, 0, AUX_BLIND);
	emit_jcc_rel8(b, CC_NE, (int8_t)(loop - (b->len + 2)));
	if (src != X86_RAX) {
		emit_mov_rr(b, is64, src, X86_RAX);
		emit_mov_rr(b, 1, X86_RAX, AUX_SAVE);
	}
}

static void emit_atomic(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int is64 = d->bits == 64, base = R(in->dst_reg), src = R(in->src_reg);

	switch (d->op) {
	case INSN_OP_ADD:
	case INSN_OP_OR:
	case INSN_OP_AND:
	case INSN_OP_XOR:
		emit_lock_alu(b, is64, alu_of(d->op), base, in->off, src);
		break;
	case INSN_OP_FETCH_ADD:
		emit_lock_xadd(b, is64, base, in->off, src);
		break;
	case INSN_OP_XCHG:
		emit_xchg(b, is64, base, in->off, src);
		break;
	case INSN_OP_CMPXCHG:
		emit_lock_cmpxchg(b, is64, base, in->off, src);
		if (!is64) /* a successful cmpxchg32 leaves rax's high half alone */
			emit_mov_rr(b, 0, X86_RAX, X86_RAX);
		break;
	default: /* FETCH_OR, FETCH_AND, FETCH_XOR */
		emit_fetch_op_loop(c, d, in);
		break;
	}
}

/* The x86 base and index (-1: none) of an address in BPF register r: r itself, or the two
 * registers of a sum folded into addresses (fold_address()). */
static int addr_base(const struct jit_ctx *c, int r)
{
	return c->sum_index[r] >= 0 ? R(c->sum_base[r]) : R(r);
}

static int addr_index(const struct jit_ctx *c, int r)
{
	return c->sum_index[r] >= 0 ? R(c->sum_index[r]) : -1;
}

/* A load through a kernel object's pointer (BPF_PROBE_MEM(SX)).  An address inside the tasks'
 * arena (always mapped: current_task_arena()) is loaded in place after an inline check; any
 * other goes to probe_load(), which reads 0 where nothing is mapped.  Unlike a helper call that
 * changes only dst: r0..r5 are saved around it (six pushes keep the stack's alignment).
 *
 * Most probe loads come in runs through one pointer (a task's pid, then its tgid, ...).  Where
 * slots i.. are such a run (PROBE_RUN_MAX at most) through one register that no load but the
 * last writes, no jump lands inside, and the offsets are at most TASK_ARENA_TAIL - 8 apart,
 * one check of the lowest address covers them all: every load of the run then starts in the
 * arena or in the mapped zero bytes past it, whose probe_load() is 0 as the plain load is.
 * A failed check sends the whole run to probe_load(), load by load.  AUX_SAVE holds what the
 * check computes, AUX the slow path's address; both are free between instructions. */
#define PROBE_RUN_MAX 8

/* The shift that tells an arena address (addr >> shift == lo >> shift: the arena is aligned to
 * its power-of-two size), or -1 where it cannot be told so (then no inline check at all). */
static int arena_shift(uintptr_t *lo)
{
	size_t size = 0;
	int shift = 0;

	if (!current_task_arena(lo, &size) || !size || (size & (size - 1)) || (*lo & (size - 1)))
		return -1;
	while (((size_t)1 << shift) < size)
		shift++;
	return (*lo >> shift) <= INT32_MAX ? shift : -1;
}

/* Compares so that ZF is clear unless [base + index + off] is in the arena. */
static void emit_arena_check(struct jit_ctx *c, uintptr_t lo, int shift, int base, int index,
			     int32_t off)
{
	struct x86_buf *b = &c->b;

	c->probe_checks++;
	emit_lea_idx_disp(b, AUX_SAVE, base, index, off);
	emit_shift_imm(b, 1, SHIFT_SHR, AUX_SAVE, (uint8_t)shift);
	emit_alu_imm32_fixed(b, 1, ALU_CMP, AUX_SAVE, (int32_t)(lo >> shift));
}

/* dst = probe_load([base + index + in->off], in's width), r0..r5 saved around the call. */
static void emit_probe_call(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in,
			    int base, int index)
{
	static const uint8_t saved[6] = { X86_RAX, X86_RDI, X86_RSI, X86_RDX, X86_RCX, X86_R8 };
	struct x86_buf *b = &c->b;
	int32_t width = d->bits / 8;

	emit_lea_idx_disp(b, AUX, base, index, in->off);
	for (int i = 0; i < 6; i++)
		emit_push(b, saved[i]);
	emit_mov_rr(b, 1, X86_RDI, AUX);
	emit_mov_r32_imm32_fixed(b, X86_RSI,
				 (uint32_t)(d->kind == INSN_K_LDXSX ? -width : width));
	emit_call_abs(c, (const void *)probe_load);
	emit_mov_rr(b, 1, AUX, X86_RAX);
	for (int i = 5; i >= 0; i--)
		emit_pop(b, saved[i]);
	emit_mov_rr(b, 1, R(in->dst_reg), AUX);
}

static int is_target(const struct jit_ctx *c, uint32_t i);

/* The run of probe loads from slot i (see above; a folded address, [base + index], runs alone):
 * returns how many slots it covers (>= 1).  The slow path is out of line (emit_colds()). */
static uint32_t emit_probe_run(struct jit_ctx *c, uint32_t i)
{
	const struct insn_desc *descs = insn_descs();
	const struct bpf_insn *in = &c->insns[i];
	struct x86_buf *b = &c->b;
	int src = in->src_reg, base = addr_base(c, src), index = addr_index(c, src);
	int32_t lo_off = in->off, hi_off = in->off;
	uint32_t n = 0, k;

	while (n < (index >= 0 ? 1u : PROBE_RUN_MAX) && i + n < c->cnt && c->ids[i + n] >= 0 &&
	       insn_is_probe_load(&in[n]) && in[n].src_reg == src && (!n || !is_target(c, i + n))) {
		int32_t l = in[n].off < lo_off ? in[n].off : lo_off;
		int32_t h = in[n].off > hi_off ? in[n].off : hi_off;

		if ((int64_t)h - l > (int64_t)TASK_ARENA_TAIL - 8)
			break;
		lo_off = l;
		hi_off = h;
		if (in[n++].dst_reg == src)
			break; /* the pointer is gone: the run ends with this load */
	}
	if (c->arena_shift < 0) {
		emit_probe_call(c, &descs[c->ids[i]], in, base, index);
		return 1;
	}
	k = new_cold(c, &(struct jit_cold){ .kind = COLD_PROBE_RUN, .base = (int8_t)base,
					     .index = (int8_t)index, .slot = i, .n = n });
	emit_arena_check(c, c->arena_lo, c->arena_shift, base, index, lo_off);
	emit_jump(c, CC_NE, COLD_SEG(c, k));
	for (uint32_t j = 0; j < n; j++) {
		const struct insn_desc *d = &descs[c->ids[i + j]];

		if (d->kind == INSN_K_LDXSX)
			emit_load_sx_idx(b, d->bits, R(in[j].dst_reg), base, index, in[j].off);
		else
			emit_load_idx(b, d->bits, R(in[j].dst_reg), base, index, in[j].off);
	}
	set_resume(c, k);
	return n;
}

static void emit_insn(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	struct x86_buf *b = &c->b;
	int dst = R(in->dst_reg);

	switch (d->kind) {
	case INSN_K_ALU:
		emit_alu(c, d, in);
		break;
	case INSN_K_NEG:
		emit_neg(b, d->bits == 64, dst);
		break;
	case INSN_K_MOVSX:
		emit_movsx_rr(b, d->bits == 64, d->dval, dst, R(in->src_reg));
		break;
	case INSN_K_END:
		emit_end(c, d, in);
		break;
	case INSN_K_JA:
		emit_jump(
		    c, CC_ALWAYS,
		    (uint32_t)(c->cur + 1 + (d->code == (BPF_JMP32 | BPF_JA) ? in->imm : in->off)));
		break;
	case INSN_K_JCOND:
		emit_jcond(c, d, in);
		break;
	case INSN_K_MAY_GOTO:
		emit_may_goto(c, in);
		break;
	case INSN_K_CALL:
		emit_call(c, d, in);
		break;
	case INSN_K_EXIT:
		emit_exit(c);
		break;
	case INSN_K_LDDW:
		emit_lddw(c, in);
		break;
	case INSN_K_LDPKT:
		emit_ldpkt(c, d, in);
		break;
	case INSN_K_LDX:
		emit_load_idx(b, d->bits, dst, addr_base(c, in->src_reg), addr_index(c, in->src_reg),
			      in->off);
		break;
	case INSN_K_LDXSX:
		emit_load_sx_idx(b, d->bits, dst, addr_base(c, in->src_reg),
				 addr_index(c, in->src_reg), in->off);
		break;
	case INSN_K_ST:
		if (c->blind) {
			emit_blinded_imm(c, d->bits == 64, AUX_BLIND, in->imm);
			emit_store_idx(b, d->bits, addr_base(c, in->dst_reg),
				       addr_index(c, in->dst_reg), in->off, AUX_BLIND);
		} else {
			emit_store_imm_idx(b, d->bits, addr_base(c, in->dst_reg),
					   addr_index(c, in->dst_reg), in->off, in->imm);
		}
		break;
	case INSN_K_STX:
		emit_store_idx(b, d->bits, addr_base(c, in->dst_reg), addr_index(c, in->dst_reg),
			       in->off, R(in->src_reg));
		break;
	case INSN_K_ATOMIC:
		emit_atomic(c, d, in);
		break;
	}
}

/* --- Prologue, epilogue, stubs --- */

/* Whether the straight-line code from the entry at slot start sets BPF register reg before
 * anything could read it (its initial zero is then dead).  Stops at the first jump, call or
 * exit: every path from the entry runs that code first. */
static int overwritten_first(const struct jit_ctx *c, uint32_t start, int reg)
{
	const struct insn_desc *descs = insn_descs();

	for (uint32_t i = start; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		const struct insn_desc *d;

		if (c->ids[i] < 0)
			continue;
		d = &descs[c->ids[i]];
		switch (d->kind) {
		case INSN_K_ALU:
			if (in->dst_reg == reg)
				return d->op == INSN_OP_MOV &&
				       (BPF_SRC(d->code) == BPF_K || in->src_reg != reg);
			if (BPF_SRC(d->code) == BPF_X && in->src_reg == reg)
				return 0;
			break;
		case INSN_K_LDDW:
			if (in->dst_reg == reg)
				return 1;
			break;
		case INSN_K_LDX:
		case INSN_K_LDXSX:
			if (in->src_reg == reg)
				return 0;
			if (in->dst_reg == reg)
				return 1;
			break;
		case INSN_K_ST:
			if (in->dst_reg == reg)
				return 0;
			break;
		case INSN_K_STX:
			if (in->dst_reg == reg || in->src_reg == reg)
				return 0;
			break;
		case INSN_K_NEG:
		case INSN_K_MOVSX:
		case INSN_K_END:
			if (in->dst_reg == reg || (d->kind == INSN_K_MOVSX && in->src_reg == reg))
				return 0;
			break;
		default: /* control flow, atomics (cmpxchg reads r0), packet loads */
			return 0;
		}
	}
	return 0;
}

/* The prologue of the entry at slot start (0, or a callback's first instruction). */
static void emit_prologue(struct jit_ctx *c, uint32_t start)
{
	struct x86_buf *b = &c->b;
	int uses_rbp = c->used & (1u << 10) || c->local_calls;

	for (int i = 0; i < c->nsaved; i++)
		emit_push(b, c->saved[i]);
	if (uses_rbp) {
		if (c->align_pad)
			emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)c->align_pad);
		emit_mov_rr(b, 1, X86_RBP, X86_RSP);
		if (c->local_calls)
			emit_mov_rr(b, 1, ANCHOR, X86_RSP);
		if (c->frame_size)
			emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)c->frame_size);
	} else if (c->align_pad + c->frame_size) {
		emit_alu_imm(b, 1, ALU_SUB, X86_RSP, (int32_t)(c->align_pad + c->frame_size));
	}
	emit_may_goto_init(c);
	/* The interpreter starts with r0 and r6..r9 zero. */
	for (int r = 0; r <= 9; r++)
		if ((r == 0 || r >= 6) && (c->used & (1u << r)) && !overwritten_first(c, start, r))
			emit_alu_rr(b, 0, ALU_XOR, R(r), R(r));
}

/* Jump back to offset `to` of this pass (behind us): rel8 where it fits. */
static void emit_jmp_back(struct jit_ctx *c, uint32_t to)
{
	int64_t rel = (int64_t)to - (int64_t)(c->b.len + 2);

	if (fits_s8(rel))
		emit_jcc_rel8(&c->b, CC_ALWAYS, (int8_t)rel);
	else
		emit_jcc_rel32(&c->b, CC_ALWAYS, (int32_t)((int64_t)to - (int64_t)(c->b.len + 5)));
}

/* The slow paths of this pass's fast paths (struct jit_cold), each a segment of its own after
 * the callback entries, and empty segments for the rest of ncold_max.  Each goes back to where
 * its fast path goes on: its resume point, not the next slot, before which a loop's hoisted
 * bound may be computed (emit_hoisted_bounds()). */
static void emit_colds(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();

	for (uint32_t k = 0; k < c->ncold_max; k++) {
		const struct jit_cold *cold = &c->colds[k];

		begin_segment(c, COLD_SEG(c, k));
		if (k >= c->ncold)
			continue;
		if (cold->kind == COLD_CALL) {
			emit_call_abs(c, cold->fn);
		} else {
			uint32_t i = cold->slot;

			for (uint32_t j = 0; j < cold->n; j++)
				emit_probe_call(c, &descs[c->ids[i + j]], &c->insns[i + j],
						cold->base, cold->index);
		}
		emit_jmp_back(c, cold->resume);
	}
}

static void emit_stubs(struct jit_ctx *c)
{
	struct x86_buf *b = &c->b;

	begin_segment(c, LBL(c, LBL_EPILOGUE));
	emit_alu_rr(b, 0, ALU_XOR, X86_RDX, X86_RDX);
	begin_segment(c, LBL(c, LBL_EPILOGUE_STATUS));
	if (c->local_calls)
		emit_lea(b, X86_RSP, ANCHOR, (int32_t)c->align_pad);
	else if (c->align_pad + c->frame_size)
		emit_alu_imm(b, 1, ALU_ADD, X86_RSP, (int32_t)(c->align_pad + c->frame_size));
	for (int i = c->nsaved - 1; i >= 0; i--)
		emit_pop(b, c->saved[i]);
	emit_ret(b);

	begin_segment(c, LBL(c, LBL_EXIT_ZERO));
	if (c->labels & (1u << LBL_EXIT_ZERO)) {
		emit_alu_rr(b, 0, ALU_XOR, X86_RAX, X86_RAX);
		emit_jump(c, CC_ALWAYS, LBL(c, LBL_EPILOGUE));
	}
	for (int l = LBL_ELOOP; l <= LBL_EFAULT; l++) {
		static const int err[] = {
		    [LBL_ELOOP] = -ELOOP, [LBL_ENOENT] = -ENOENT, [LBL_EFAULT] = -EFAULT};

		begin_segment(c, LBL(c, l));
		if (c->labels & (1u << l)) {
			emit_mov_r32_imm32_fixed(b, X86_RDX, (uint32_t)err[l]);
			emit_jump(c, CC_ALWAYS, LBL(c, LBL_ERR_COMMON));
		}
	}
	begin_segment(c, LBL(c, LBL_ERR_COMMON));
	if (c->labels & (1u << LBL_ERR_COMMON)) {
		emit_alu_rr(b, 0, ALU_XOR, X86_RAX, X86_RAX);
		emit_jump(c, CC_ALWAYS, LBL(c, LBL_EPILOGUE_STATUS));
	}
	/* Callback entries: the same frame as the main entry, then on to the callback's slot. */
	for (uint32_t j = 0; j < c->ncbs; j++) {
		begin_segment(c, CB_SEG(c, j));
		emit_prologue(c, c->cb_targets[j]);
		emit_jump(c, CC_ALWAYS, c->cb_targets[j]);
	}
	emit_colds(c);
	begin_segment(c, END_SEG(c));
}

static int is_target(const struct jit_ctx *c, uint32_t i)
{
	return (c->target[i / 8] >> (i % 8)) & 1;
}

/* Whether insns[j..j+1] are mov64 rZ, rY; add64 rZ, K that emit_fused() makes one `lea rZ,
 * [rY + K]` (fold_scan() must see the same pairs). */
static int fuses_lea_k(const struct jit_ctx *c, uint32_t j)
{
	const struct bpf_insn *in = &c->insns[j];

	return j + 1 < c->cnt && !is_target(c, j + 1) && !c->blind &&
	       in[0].code == (BPF_ALU64 | BPF_MOV | BPF_X) && !in[0].off &&
	       in[1].code == (BPF_ALU64 | BPF_ADD | BPF_K) && in[1].dst_reg == in[0].dst_reg &&
	       in[0].src_reg != in[0].dst_reg;
}

/* Two or three instructions as one, where no jump lands after the first (returns how many it
 * emitted, 0 for none):
 *   mov64 rX, rY; add64 rX, K / rZ    lea rX, [rY + K / rZ]
 *   mov64 rX, rY; lsh64 rX, 32; rsh64 rX, 32    mov eX, eY (a 32-bit move zero-extends)
 *   lsh64 rX, 32; rsh64 rX, 32                  mov eX, eX
 * clang spells pointer arithmetic (base + offset, the stack address of a helper's argument) as
 * the first and, without alu32, u32 casts as the others; a loop over a packet has two or three
 * of them per round.  Not lea for K under blinding, which would leave K in the clear. */
static uint32_t emit_fused(struct jit_ctx *c, uint32_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	uint32_t left = c->cnt - i;
	int mov = in[0].code == (BPF_ALU64 | BPF_MOV | BPF_X) && !in[0].off;
	const struct bpf_insn *zx = &in[mov];
	int x = R(in[0].dst_reg), y = R(in[0].src_reg);

	if (left < 2 || is_target(c, i + 1))
		return 0;
	/* ZX (at in[mov]): lsh64 rX, 32; rsh64 rX, 32 */
	if (left >= (uint32_t)mov + 2 && (!mov || !is_target(c, i + 2)) &&
	    zx[0].code == (BPF_ALU64 | BPF_LSH | BPF_K) && zx[0].imm == 32 &&
	    zx[1].code == (BPF_ALU64 | BPF_RSH | BPF_K) && zx[1].imm == 32 &&
	    zx[0].dst_reg == in[0].dst_reg && zx[1].dst_reg == in[0].dst_reg) {
		emit_mov_rr(&c->b, 0, x, mov ? y : x);
		return (uint32_t)mov + 2;
	}
	if (fuses_lea_k(c, i)) {
		if (c->sum_index[in[0].src_reg] >= 0) /* rY was folded: rY + K is [rB + rI + K] */
			emit_lea_idx_disp(&c->b, x, R(c->sum_base[in[0].src_reg]),
					  R(c->sum_index[in[0].src_reg]), in[1].imm);
		else
			emit_lea(&c->b, x, y, in[1].imm);
		return 2;
	}
	if (!mov || in[1].dst_reg != in[0].dst_reg || in[0].src_reg == in[0].dst_reg)
		return 0;
	if (in[1].code == (BPF_ALU64 | BPF_ADD | BPF_X)) { /* rX + rX is rY + rY after the move */
		emit_lea_indexed(&c->b, 1, x, y, in[1].src_reg == in[0].dst_reg ? y : R(in[1].src_reg),
				 0);
		return 2;
	}
	return 0;
}

/* --- Sums already computed ---
 * A packet check computes p + K into a scratch register and the code then advances p by the
 * same K (`r5 = r2 + 2; if r5 > r3 goto out; ...; r2 += 2`).  When neither register changed in
 * between, the add is a copy of the sum: `mov` is renamed away, where `add` takes one of the
 * few ALU slots a tight loop has (on AMD Zen 3, bench's csum1500 loop runs about 15% faster).
 * This is what gcc's -O2 makes of the same C.  Facts live within straight-line code: a jump
 * target, a call or anything else this does not model forgets them all. */
static void forget_sums(struct jit_ctx *c)
{
	memset(c->sum_base, -1, sizeof(c->sum_base));
	memset(c->sum_index, -1, sizeof(c->sum_index));
}

/* BPF register r is written: what held r's value or was computed from it is stale. */
static void forget_reg(struct jit_ctx *c, int r)
{
	c->sum_base[r] = -1;
	c->sum_index[r] = -1;
	for (int a = 0; a < MAX_BPF_REG; a++)
		if (c->sum_base[a] == r || c->sum_index[a] == r) {
			c->sum_base[a] = -1;
			c->sum_index[a] = -1;
		}
}

/* The register holding dst + k, or -1. */
static int find_sum(const struct jit_ctx *c, int dst, int32_t k)
{
	for (int a = 0; a < MAX_BPF_REG; a++)
		if (a != dst && c->sum_base[a] == dst && c->sum_index[a] < 0 && c->sum_k[a] == k)
			return a;
	return -1;
}

/* Whether the form writes its dst register (and no other). */
static int writes_dst(const struct insn_desc *d)
{
	switch (d->kind) {
	case INSN_K_ALU:
	case INSN_K_NEG:
	case INSN_K_MOVSX:
	case INSN_K_END:
	case INSN_K_LDDW:
	case INSN_K_LDX:
	case INSN_K_LDXSX:
		return 1;
	default:
		return 0;
	}
}

/* Updates the facts for instruction in, emitted as an instruction of its own. */
static void note_sums(struct jit_ctx *c, const struct insn_desc *d, const struct bpf_insn *in)
{
	if (writes_dst(d)) {
		forget_reg(c, in->dst_reg);
		return;
	}
	switch (d->kind) {
	case INSN_K_ST:
	case INSN_K_STX:
	case INSN_K_JCOND:
		break; /* no register written */
	default:
		forget_sums(c); /* calls, atomics, packet loads, jumps and exits */
		break;
	}
}

/* add64 rX, K where another register holds rX + K: the copy instead (1), else 0. */
static int emit_known_sum(struct jit_ctx *c, const struct bpf_insn *in)
{
	int a;

	if (in->code != (BPF_ALU64 | BPF_ADD | BPF_K) || in->off)
		return 0;
	a = find_sum(c, in->dst_reg, in->imm);
	if (a < 0)
		return 0;
	emit_mov_rr(&c->b, 1, R(in->dst_reg), R(a));
	forget_reg(c, in->dst_reg);
	return 1;
}

/* --- Sums used only as addresses ---
 * eBPF has no indexed addressing, so clang spells a read of data[i] as `mov64 rX, rB; add64 rX,
 * rI; ...; ldxh rX, [rX + 0]`, often with the bounds check's rX + 2 computed in between.  Where
 * every read of rX while it is live is an address (a load's or store's base, or the rY of a
 * fused `mov64 rZ, rY; add64 rZ, K`), the sum need not exist: those address [rB + rI + off]
 * and the pair emits nothing.  x86's address unit adds for free, so a clang-built checksum loop
 * gets the instructions gcc makes of the same C (bench cc3-csum1500: one ALU op fewer a round).
 *
 * fold_scan() decides by looking ahead through straight-line code from the pair's end, with
 * exec_liveness()'s answers at the edges: it succeeds when rX is written, or dead, before
 * anything reads it otherwise, while rB and rI keep their values, every conditional jump on
 * the way landing where rX is dead.  It stops at jump targets, calls, exits, atomics and after
 * FOLD_SCAN_MAX instructions; rX must then be dead.  Each emitting pass decides the same. */
#define FOLD_SCAN_MAX 64

static int fold_scan(const struct jit_ctx *c, uint32_t j, int x, int base, int index)
{
	const struct insn_desc *descs = insn_descs();
	uint16_t xm = (uint16_t)(1u << x), sum = (uint16_t)(1u << base | 1u << index);
	uint32_t last = j - 1; /* the last instruction looked at */

	for (int steps = 0; steps < FOLD_SCAN_MAX && j < c->cnt; steps++) {
		const struct bpf_insn *in = &c->insns[j];
		const struct insn_desc *d;
		uint16_t use, def, addr = 0; /* addr: registers read as an address only */
		uint32_t n = 1;

		if (c->ids[j] < 0 || is_target(c, j))
			break;
		d = &descs[c->ids[j]];
		if (fuses_lea_k(c, j)) {
			use = addr = (uint16_t)(1u << in->src_reg);
			def = (uint16_t)(1u << in->dst_reg);
			n = 2;
		} else {
			switch (d->kind) {
			case INSN_K_LDX:
			case INSN_K_LDXSX:
				addr = (uint16_t)(1u << in->src_reg);
				break;
			case INSN_K_ST:
				addr = (uint16_t)(1u << in->dst_reg);
				break;
			case INSN_K_STX: /* the value stored is read as a value */
				addr = in->src_reg == x ? 0 : (uint16_t)(1u << in->dst_reg);
				break;
			case INSN_K_LDDW:
				n = 2;
				break;
			case INSN_K_ALU:
			case INSN_K_NEG:
			case INSN_K_MOVSX:
			case INSN_K_END:
			case INSN_K_JCOND:
				break;
			default:
				goto stop;
			}
			exec_insn_use_def(in, &use, &def);
		}
		if (use & xm & ~addr)
			return 0;
		if (d->kind == INSN_K_JCOND &&
		    !exec_dead_at_target(c->insns, c->cnt, c->live_out, j, (uint8_t)x))
			return 0;
		if (def & xm)
			return 1;
		last = d->kind == INSN_K_LDDW ? j : j + n - 1;
		if (!(c->live_out[last] & xm))
			return 1;
		if (def & sum)
			return 0;
		j += n;
	}
stop:
	return !(c->live_out[last] & xm);
}

/* Whether the pair at slot i, mov64 rX, rB; add64 rX, rI, is a sum only ever used as an
 * address (then *x, *base and *index are set). */
static int folds_at(const struct jit_ctx *c, uint32_t i, int *x, int *base, int *index)
{
	const struct bpf_insn *in = &c->insns[i];

	*x = in[0].dst_reg;
	*base = in[0].src_reg;
	if (!c->live_out || i + 1 >= c->cnt || is_target(c, i + 1) ||
	    in[0].code != (BPF_ALU64 | BPF_MOV | BPF_X) || in[0].off ||
	    in[1].code != (BPF_ALU64 | BPF_ADD | BPF_X) || in[1].dst_reg != *x || *base == *x)
		return 0;
	*index = in[1].src_reg == *x ? *base : in[1].src_reg; /* rX + rX is rB + rB after mov */
	return fold_scan(c, i + 2, *x, *base, *index);
}

/* mov64 rX, rB; add64 rX, rI at slot i whose sum is only ever an address: emits nothing,
 * notes the sum and returns 2; else 0. */
static uint32_t fold_address(struct jit_ctx *c, uint32_t i)
{
	int x, base, index;

	if (!folds_at(c, i, &x, &base, &index))
		return 0;
	forget_reg(c, x);
	c->sum_base[x] = (int8_t)base;
	c->sum_index[x] = (int8_t)index;
	c->sum_k[x] = 0;
	return 2;
}

/* --- Packet checks against a bound computed before the loop ---
 * A packet loop checks each round that its next read stays inside: `r5 = r2 + K; if r5 > r3
 * goto out`, x86 `lea; cmp; ja`.  Where r3 does not change in the loop, r2 + K > r3 is
 * r2 > r3 - K for packet pointers (jit_opts.pkt_cmp: addresses a bounded distance apart, no
 * wraparound), so the bound r3 - K is computed once, falling into the loop, into a register
 * the loop leaves alone, and each round compares r2 with it (`cmp; jg`).  The compare is
 * signed: with a folded sum (`data + i + K > end`, clang's form) it is i > end - data - K, a
 * bound below 0 for a packet shorter than K.  rX must be dead after the jump.  Besides an
 * instruction, this takes the lea out of the round's add chain (p -> lea -> mov -> p, as
 * emit_known_sum() makes of `r2 += K`): on AMD Zen 3 bench's csum1500 loop took 1.65x the
 * time of gcc's -O2 code with it, 1.0x without.
 *
 * plan_hoists() decides once, before the passes: an innermost loop (no other loop head in it)
 * entered only by falling into its head; no call of any kind, atomic, may_goto, LD_ABS/IND or
 * instruction needing a scratch register in it, no blinding, so that r9..r11 hold nothing in
 * the loop (in the leaf mapping, only those of r6..r8 the program never uses are free); the
 * end register (and a folded sum's part in the bound) not written in it; the sum the fused
 * `mov rX, rY; add rX, K` right before the jump, rY possibly a sum folded right before that.
 * The emitting passes check the sum facts again and compare as written where they differ (the
 * bound then goes unused). */

/* Falling into slot i: the bounds of the checks of the loop that i heads.  (Also moves the
 * cursor past the checks behind i, for skip_checked_sum().) */
static void emit_hoisted_bounds(struct jit_ctx *c, uint32_t i)
{
	while (c->hoist_next < c->nhoists && c->hoists[c->hoist_next].check < i)
		c->hoist_next++;
	/* (checks ascend, and so do the heads: innermost loops do not overlap) */
	for (uint32_t n = c->hoist_next; n < c->nhoists && c->hoists[n].head == i; n++) {
		const struct jit_hoist *hz = &c->hoists[n];

		emit_mov_rr(&c->b, 1, hz->reg, R(hz->end));
		if (hz->inv >= 0)
			emit_alu_rr(&c->b, 1, ALU_SUB, hz->reg, R(hz->inv));
		if (hz->k)
			emit_alu_imm(&c->b, 1, ALU_SUB, hz->reg, hz->k);
	}
}

/* The fused sum at slot i that its check compares without, when the sum facts are as planned:
 * emits nothing and returns 2; else 0. */
static uint32_t skip_checked_sum(struct jit_ctx *c, uint32_t i)
{
	const struct jit_hoist *hz;
	int y = c->insns[i].src_reg;

	if (c->hoist_next >= c->nhoists || c->hoists[c->hoist_next].check != i + 2)
		return 0;
	hz = &c->hoists[c->hoist_next];
	if (hz->fold_base >= 0 ? c->sum_index[y] < 0 || c->sum_base[y] != hz->fold_base ||
					 c->sum_index[y] != hz->fold_index
			       : c->sum_index[y] >= 0)
		return 0;
	forget_reg(c, c->insns[i].dst_reg);
	c->hoist_armed = (int32_t)c->hoist_next;
	return 2;
}

/* The check at slot i whose sum was skipped: compares with the bound (1); else 0. */
static int emit_hoisted_check(struct jit_ctx *c, uint32_t i)
{
	const struct bpf_insn *in = &c->insns[i];
	const struct jit_hoist *hz;
	enum x86_cc cc;

	if (c->hoist_armed < 0 || c->hoists[c->hoist_armed].check != i)
		return 0;
	hz = &c->hoists[c->hoist_armed];
	c->hoist_armed = -1;
	c->hoisted++;
	if (in->off == 0)
		return 1; /* both ways lead to the next instruction */
	switch (BPF_OP(in->code)) {
	case BPF_JEQ:
		cc = CC_E;
		break;
	case BPF_JNE:
		cc = CC_NE;
		break;
	case BPF_JGT:
	case BPF_JSGT:
		cc = CC_G;
		break;
	case BPF_JGE:
	case BPF_JSGE:
		cc = CC_GE;
		break;
	case BPF_JLT:
	case BPF_JSLT:
		cc = CC_L;
		break;
	default: /* JLE, JSLE */
		cc = CC_LE;
		break;
	}
	if (hz->sum_is_dst) /* var + C op end  <=>  var op end - C */
		emit_alu_rr(&c->b, 1, ALU_CMP, R(hz->var), hz->reg);
	else /* end op var + C  <=>  end - C op var */
		emit_alu_rr(&c->b, 1, ALU_CMP, hz->reg, R(hz->var));
	emit_jump(c, cc, (uint32_t)(i + 1 + in->off));
	return 1;
}

static void emit_program(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();

	c->b.len = 0;
	c->b.err = 0;
	c->cur = 0;
	c->call_next = 0;
	c->loop_next = 0;
	c->hoist_next = 0;
	c->hoist_armed = -1;
	c->hoisted = 0;
	c->probe_checks = 0;
	c->ncold = 0;
	emit_prologue(c, 0);
	forget_sums(c);
	for (uint32_t i = 0, n; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];

		emit_hoisted_bounds(c, i);
		begin_segment(c, i);
		if (c->ids[i] < 0)
			continue;
		if (is_target(c, i))
			forget_sums(c);
		if (emit_hoisted_check(c, i))
			continue;
		n = skip_checked_sum(c, i);
		if (!n)
			n = fold_address(c, i);
		if (n) {
			begin_segment(c, ++i); /* empty: nothing jumps there */
			continue;
		}
		if (insn_is_probe_load(in)) {
			n = emit_probe_run(c, i);
			for (uint32_t k = 0; k < n; k++)
				forget_reg(c, in[k].dst_reg);
			while (--n) /* empty: nothing jumps there */
				begin_segment(c, ++i);
			continue;
		}
		n = emit_fused(c, i);
		if (n) {
			forget_reg(c, in->dst_reg); /* the only register a fused form writes */
			if (n == 2 && in[1].code == (BPF_ALU64 | BPF_ADD | BPF_K)) { /* X = Y + K */
				c->sum_base[in->dst_reg] = (int8_t)in->src_reg;
				c->sum_k[in->dst_reg] = in[1].imm;
			}
			while (--n) /* empty: nothing jumps there */
				begin_segment(c, ++i);
			continue;
		}
		if (emit_known_sum(c, in))
			continue;
		emit_insn(c, &descs[c->ids[i]], in);
		note_sums(c, &descs[c->ids[i]], in);
	}
	begin_segment(c, c->cnt);
	if (c->labels & (1u << LBL_EFAULT))
		emit_jump(c, CC_ALWAYS, LBL(c, LBL_EFAULT)); /* ran past the last instruction */
	emit_stubs(c);
}

/* --- Validation and layout --- */

/* Whether the form writes BPF register reg (r10 must stay read-only). */
static int writes_reg(const struct insn_desc *d, const struct bpf_insn *in, int reg)
{
	if (writes_dst(d))
		return in->dst_reg == reg;
	switch (d->kind) {
	case INSN_K_ATOMIC:
		return d->op >= INSN_OP_FETCH_ADD && d->op <= INSN_OP_XCHG && in->src_reg == reg;
	default:
		return 0;
	}
}

/* Whether the translation of the form may use a scratch register (calls aside: any call
 * rules out the leaf mapping anyway).  Conservative: every multiplication by a constant,
 * every atomic operation. */
static int uses_aux(const struct insn_desc *d)
{
	switch (d->kind) {
	case INSN_K_ALU:
		switch (d->op) {
		case INSN_OP_DIV:
		case INSN_OP_MOD:
		case INSN_OP_SDIV:
		case INSN_OP_SMOD:
			return 1;
		case INSN_OP_LSH:
		case INSN_OP_RSH:
		case INSN_OP_ARSH:
			return BPF_SRC(d->code) == BPF_X;
		case INSN_OP_MUL:
			return BPF_SRC(d->code) == BPF_K;
		default:
			return 0;
		}
	case INSN_K_ATOMIC:
		return 1;
	default:
		return 0;
	}
}

/* The target of a jump, local call or callback (LD_IMM64 BPF_PSEUDO_FUNC) at slot i, or -1 if it
 * is none of those (a target out of range may be any other value). */
static int64_t branch_target(const struct insn_desc *d, const struct bpf_insn *in, uint32_t i)
{
	int64_t t;

	if (d->code == (BPF_JMP32 | BPF_JA))
		t = (int64_t)i + 1 + in->imm;
	else if (d->kind == INSN_K_JA || d->kind == INSN_K_JCOND || d->kind == INSN_K_MAY_GOTO)
		t = (int64_t)i + 1 + in->off;
	else if (d->kind == INSN_K_CALL && d->op == INSN_OP_LOCAL)
		t = (int64_t)i + 1 + in->imm;
	else if (d->kind == INSN_K_LDDW && in->src_reg == BPF_PSEUDO_FUNC)
		t = (int64_t)i + 1 + in->imm;
	else
		return -1;
	return t == -1 ? -2 : t; /* out of range either way */
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Same checks and errors as interp_prepare(), then the JIT's own; fills ids and the facts. */
static int scan(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();
	const struct interp_env *env = c->env;
	const struct bpf_insn *insns = c->insns;
	uint32_t cnt = c->cnt;
	int16_t first[256];
	int r10_written = 0, last_falls = 1;

	insn_first_of(first);
	for (uint32_t i = 0; i < cnt; i++)
		c->ids[i] = INT16_MAX; /* not yet decoded */
	c->used = 1;		       /* r0 */
	for (uint32_t i = 0; i < cnt; i++) {
		const struct bpf_insn *in = &insns[i];
		const struct insn_desc *d;
		int id;

		if (c->ids[i] == -1)
			continue; /* second LD_IMM64 slot */
		if (insn_is_probe_load(in)) {
			/* a kernel object's load: decoded as the load it was (emit_probe_run()) */
			struct bpf_insn plain = *in;

			if (!insn_probe_load_ok(in))
				return -EINVAL;
			plain.code = insn_probe_load_plain(in->code);
			c->any_call = 1; /* (its call: r6..r9 in callee-saved registers) */
			c->ncold_max++;  /* (its slow path: emit_probe_run()) */
			if (!c->probe_loads) { /* (only then: asking maps the arena) */
				c->probe_loads = 1;
				c->arena_shift = (int8_t)arena_shift(&c->arena_lo);
			}
			id = insn_find_fast(first, &plain);
		} else {
			id = insn_find_fast(first, in);
		}
		if (id < 0 || !insn_fields_ok(id, in))
			return -EINVAL;
		d = &descs[id];
		if (in->dst_reg > 10)
			return -EINVAL;
		if (d->kind != INSN_K_CALL && d->kind != INSN_K_LDDW && in->src_reg > 10)
			return -EINVAL;
		c->ids[i] = (int16_t)id;
		if (d->fields & INSN_F_DST)
			c->used |= (uint16_t)(1u << in->dst_reg);
		if ((d->fields & INSN_F_SRC) && d->kind != INSN_K_CALL && d->kind != INSN_K_LDDW)
			c->used |= (uint16_t)(1u << in->src_reg);
		r10_written |= writes_reg(d, in, 10);
		last_falls = d->kind != INSN_K_EXIT && d->kind != INSN_K_JA;
		if (uses_aux(d))
			c->needs_aux = 1;
		switch (d->kind) {
		case INSN_K_LDDW:
			if (i + 1 >= cnt || insns[i + 1].code || insns[i + 1].dst_reg ||
			    insns[i + 1].src_reg || insns[i + 1].off)
				return -EINVAL;
			c->ids[i + 1] = -1;
			last_falls = 1;
			if (in->src_reg == BPF_PSEUDO_FUNC) {
				c->ncbs++; /* an upper bound until the targets are sorted */
				c->any_call = 1; /* a helper calls it: not a leaf */
			}
			break;
		case INSN_K_MAY_GOTO:
			c->may_goto = 1;
			c->needs_aux = 1;
			c->used |= 1u << 10; /* (its budget is rbp-relative) */
			break;
		case INSN_K_LDPKT:
			if (!env->load_pkt)
				return -EINVAL;
			c->used |= 1u << 6;
			c->any_call = 1;
			c->ldpkt = 1;
			c->labels |= 1u << LBL_EXIT_ZERO;
			break;
		case INSN_K_CALL:
			if (d->op == INSN_OP_KFUNC &&
			    (!env->resolve_kfunc || !env->resolve_kfunc(env, in->imm, in->off)))
				return -EOPNOTSUPP;
			c->any_call = 1;
			if (d->op == INSN_OP_HELPER) {
				uint32_t hid = (uint32_t)in->imm;

				c->ncold_max++; /* (a bound: emit_current_task()'s slow path) */
				if (hid >= env->nr_helpers || !env->helpers[hid])
					return -EINVAL;
				if (env->unwind_id && hid == env->unwind_id)
					c->labels |= 1u << LBL_EXIT_ZERO;
				if (env->tail_call && hid == env->tail_call_id) {
					c->tail_call = 1;
					c->labels |= 1u << LBL_ERR_COMMON;
				}
			} else if (d->op == INSN_OP_REG) {
				c->labels |= 1u << LBL_ENOENT;
				if (has_unwind(env))
					c->labels |= 1u << LBL_EXIT_ZERO;
			} else if (d->op == INSN_OP_LOCAL) {
				c->local_calls = 1;
				c->labels |= 1u << LBL_ELOOP;
			}
			break;
		default:
			break;
		}
	}
	/* Jump, call and callback targets, now that every second slot is known. */
	if (c->ncbs) {
		c->cb_targets = malloc(c->ncbs * sizeof(*c->cb_targets));
		if (!c->cb_targets)
			return -ENOMEM;
		c->ncbs = 0;
	}
	for (uint32_t i = 0; i < cnt; i++) {
		int64_t t;

		if (c->ids[i] < 0)
			continue;
		t = branch_target(&descs[c->ids[i]], &insns[i], i);
		if (t == -1)
			continue;
		if (t < 0 || t >= (int64_t)cnt || c->ids[t] < 0)
			return -EINVAL;
		if (descs[c->ids[i]].kind == INSN_K_LDDW)
			c->cb_targets[c->ncbs++] = (uint32_t)t;
	}
	if (c->ncbs) { /* sorted, distinct */
		uint32_t n = 1;

		qsort(c->cb_targets, c->ncbs, sizeof(*c->cb_targets), cmp_u32);
		for (uint32_t j = 1; j < c->ncbs; j++)
			if (c->cb_targets[j] != c->cb_targets[n - 1])
				c->cb_targets[n++] = c->cb_targets[j];
		c->ncbs = n;
	}
	if (r10_written)
		return -EOPNOTSUPP;
	if (last_falls)
		c->labels |= 1u << LBL_EFAULT;
	if (c->labels & (1u << LBL_ELOOP | 1u << LBL_ENOENT | 1u << LBL_EFAULT))
		c->labels |= 1u << LBL_ERR_COMMON;
	return 0;
}

#define RESOLVE_WINDOW 32 /* instructions searched back from a call for an argument's LD_IMM64 */

/* The LD_IMM64 that set reg for the call in slot i, if it is in the same basic block: no jump
 * lands in between, nothing in between writes reg.  Its slot, or -1. */
static int64_t ldimm_at(const struct jit_ctx *c, uint32_t i, int reg)
{
	const struct insn_desc *descs = insn_descs();

	for (uint32_t j = i; j-- > 0 && i - j <= RESOLVE_WINDOW;) {
		const struct bpf_insn *in = &c->insns[j];
		const struct insn_desc *d;

		if (is_target(c, j + 1))
			return -1; /* another path reaches j + 1 */
		if (c->ids[j] < 0)
			continue; /* second slot of an LD_IMM64 */
		d = &descs[c->ids[j]];
		switch (d->kind) {
		case INSN_K_LDDW:
			if (in->dst_reg == reg)
				return j;
			break;
		case INSN_K_CALL:
		case INSN_K_LDPKT:
		case INSN_K_JA:
		case INSN_K_EXIT:
			return -1; /* reg clobbered, or j + 1 reached only by a jump */
		case INSN_K_JCOND:
			break; /* j + 1 is its fall-through: reg is what it was at j */
		default:
			if (writes_reg(d, in, reg))
				return -1;
			break;
		}
	}
	return -1;
}

/* The constant r1 holds at the helper call in slot i, if an LD_IMM64 of a map (src_reg
 * PSEUDO_MAP_FD or PSEUDO_MAP_IDX) set it in the same basic block (ldimm_at()). */
static int r1_const_at(const struct jit_ctx *c, uint32_t i, uint64_t *k)
{
	int64_t j = ldimm_at(c, i, 1);
	const struct bpf_insn *in;

	if (j < 0)
		return 0;
	in = &c->insns[j];
	if (in->src_reg != BPF_PSEUDO_MAP_FD && in->src_reg != BPF_PSEUDO_MAP_IDX)
		return 0;
	*k = (uint64_t)(uint32_t)in[0].imm | (uint64_t)(uint32_t)in[1].imm << 32;
	return 1;
}

/* c->target: where jumps and local calls land; c->loop_end: for each slot that a jump at or
 * after it targets (a loop head), 1 + the last such jump's slot (calls are not loops: a local
 * call's target is a function's entry). */
static int find_targets(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();

	if (c->target)
		return 0; /* done already */
	c->target = calloc(c->cnt / 8 + 1, 1);
	c->loop_end = calloc(c->cnt, sizeof(*c->loop_end));
	if (!c->target || !c->loop_end)
		return -ENOMEM; /* (both freed with the context) */
	for (uint32_t i = 0; i < c->cnt; i++) {
		const struct insn_desc *d;
		int64_t t;

		if (c->ids[i] < 0)
			continue;
		d = &descs[c->ids[i]];
		t = branch_target(d, &c->insns[i], i);
		if (t < 0)
			continue;
		/* scan() checked 0 <= t < cnt */
		c->target[t / 8] |= (uint8_t)(1u << (t % 8));
		if (t <= i && (d->kind == INSN_K_JA || d->kind == INSN_K_JCOND ||
			       d->kind == INSN_K_MAY_GOTO))
			c->loop_end[t] = i + 1;
	}
	return 0;
}

/* The calls of env->loop_id to run inline (emit_inline_loop()): those whose r2 is one of the
 * program's callbacks, an LD_IMM64 BPF_PSEUDO_FUNC in the same basic block (ldimm_at()); the
 * others call the helper.  Each round is a bpf-to-bpf call, so the program gets the frames of
 * local calls.  Fills c->loops. */
/* arr (n elements of size elem, room for *cap) with room for one more: arr itself, or a larger
 * copy (*cap doubled, first when none); NULL without memory (arr is left as it was). */
static void *grow(void *arr, uint32_t n, uint32_t *cap, size_t elem, uint32_t first)
{
	uint32_t want = *cap ? 2 * *cap : first;
	void *p;

	if (n < *cap)
		return arr;
	p = realloc(arr, (size_t)want * elem);
	if (p)
		*cap = want;
	return p;
}

/* The BPF registers among r6..r9 that a callback never writes: its instructions run from
 * target to the next function's start, and it makes no bpf-to-bpf call (nor callx, kfunc call
 * or nested bpf_loop), so nothing else runs as BPF code within a round; helpers keep their
 * x86 registers (rbx, r13..r15) as the C ABI says.  Bit n: rn is spare. */
static unsigned callback_spare_regs(const struct jit_ctx *c, uint32_t target)
{
	uint32_t end = c->cnt;
	unsigned written = 0;

	for (uint32_t k = 0; k < c->ncbs; k++)
		if (c->cb_targets[k] > target && c->cb_targets[k] < end)
			end = c->cb_targets[k];
	for (uint32_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];

		if (c->ids[i] >= 0 && in->code == (BPF_JMP | BPF_CALL) &&
		    in->src_reg == BPF_PSEUDO_CALL) {
			int64_t t = (int64_t)i + 1 + in->imm;

			if (t > target && t < end)
				end = (uint32_t)t;
		}
	}
	for (uint32_t i = target; i < end; i++) {
		const struct bpf_insn *in = &c->insns[i];
		uint8_t cls = BPF_CLASS(in->code);

		if (c->ids[i] < 0)
			continue;
		if ((cls == BPF_JMP || cls == BPF_JMP32) && BPF_OP(in->code) == BPF_CALL &&
		    (in->src_reg || BPF_SRC(in->code) == BPF_X ||
		     (uint32_t)in->imm == c->env->loop_id))
			return 0;
		if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD)
			written |= 1u << in->dst_reg;
		if (cls == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC && (in->imm & BPF_FETCH))
			written |= 1u << in->src_reg;
	}
	return ~written & 0x3c0u;
}

static int find_loops(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();
	const struct interp_env *env = c->env;
	uint32_t cap = 0;

	if (!env->loop_id || !c->ncbs || env->loop_id == env->unwind_id ||
	    (env->tail_call && env->loop_id == env->tail_call_id))
		return 0;
	if (find_targets(c))
		return -ENOMEM;
	for (uint32_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		const struct insn_desc *d;
		int64_t j;

		if (c->ids[i] < 0)
			continue;
		d = &descs[c->ids[i]];
		if (d->kind != INSN_K_CALL || d->op != INSN_OP_HELPER ||
		    (uint32_t)in->imm != env->loop_id)
			continue;
		j = ldimm_at(c, i, 2);
		if (j < 0 || c->insns[j].src_reg != BPF_PSEUDO_FUNC)
			continue;
		struct jit_loop *loops = grow(c->loops, c->nloops, &cap, sizeof(*loops), 4);

		if (!loops)
			return -ENOMEM;
		c->loops = loops;
		/* scan() checked the target */
		struct jit_loop *l = &c->loops[c->nloops++];
		unsigned spare;
		int n = 0;

		*l = (struct jit_loop){ .insn = i, .target = (uint32_t)(j + 1 + c->insns[j].imm) };
		spare = callback_spare_regs(c, l->target);
		for (int r = 9; r >= 6 && n < 3; r--)
			if (spare & (1u << r))
				l->st[n++] = (uint8_t)r;
		if (n < 3)
			l->st[0] = 0;
	}
	if (c->nloops) {
		c->local_calls = 1;
		c->labels |= 1u << LBL_ELOOP | 1u << LBL_ERR_COMMON;
	}
	return 0;
}

/* The padding below the prologue's pushes (c->nsaved). */
static void align_frame(struct jit_ctx *c)
{
	/* Entry rsp is 8 mod 16; after n pushes it is 8 * (n + 1) mod 16. */
	c->align_pad = (c->frame_size || c->any_call) && c->nsaved % 2 == 0 ? 8 : 0;
}

/* --- Packet checks against a bound: the plan (see emit_hoisted_bounds()) --- */

/* Whether [h, e] is an innermost loop whose instructions leave r9..r11 alone; *written gets the
 * BPF registers it writes. */
static int loop_hoistable(const struct jit_ctx *c, uint32_t h, uint32_t e, uint16_t *written)
{
	const struct insn_desc *descs = insn_descs();
	uint16_t w = 0;

	for (uint32_t i = h; i <= e; i++) {
		const struct bpf_insn *in = &c->insns[i];
		const struct insn_desc *d;

		if (c->ids[i] < 0)
			continue;
		if (i > h && c->loop_end[i])
			return 0; /* an inner loop */
		d = &descs[c->ids[i]];
		switch (d->kind) {
		case INSN_K_LDX:
		case INSN_K_LDXSX:
			if (insn_is_probe_load(in))
				return 0; /* a call */
			break;
		case INSN_K_LDDW:
			if (in->src_reg == BPF_PSEUDO_FUNC)
				return 0; /* a callback's entry */
			break;
		case INSN_K_ALU:
		case INSN_K_NEG:
		case INSN_K_MOVSX:
		case INSN_K_END:
		case INSN_K_ST:
		case INSN_K_STX:
		case INSN_K_JA:
		case INSN_K_JCOND:
		case INSN_K_EXIT:
			break;
		default: /* calls, atomics, may_goto, LD_ABS/LD_IND */
			return 0;
		}
		if (uses_aux(d))
			return 0;
		if (writes_dst(d))
			w |= (uint16_t)(1u << in->dst_reg);
	}
	*written = w;
	return 1;
}

/* Drops the hoists of loops entered otherwise than by falling into their head from slot
 * head - 1: a jump from outside landing in the loop (its head included) would skip the bound.
 * One pass over the jumps: the loops do not overlap, so each slot is in one at most. */
static int drop_entered_loops(struct jit_ctx *c)
{
	const struct insn_desc *descs = insn_descs();
	uint32_t *owner = calloc(c->cnt, sizeof(*owner)); /* 1 + a hoist of slot's loop, or 0 */
	uint8_t *entered = calloc(c->nhoists, 1);
	uint32_t n = 0;

	if (!owner || !entered) {
		free(owner);
		free(entered);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < c->nhoists; k++)
		for (uint32_t i = c->hoists[k].head; i < c->loop_end[c->hoists[k].head]; i++)
			owner[i] = k + 1;
	for (uint32_t i = 0; i < c->cnt; i++) {
		int64_t t;

		if (c->ids[i] < 0)
			continue;
		t = branch_target(&descs[c->ids[i]], &c->insns[i], i);
		if (t >= 0 && owner[t] && owner[i] != owner[t])
			entered[owner[t] - 1] = 1;
	}
	for (uint32_t k = 0; k < c->nhoists; k++) {
		uint32_t h = c->hoists[k].head;
		const struct insn_desc *before = c->ids[h - 1] >= 0 ? &descs[c->ids[h - 1]] : NULL;

		if (!entered[owner[h] - 1] &&
		    !(before && (before->kind == INSN_K_JA || before->kind == INSN_K_EXIT)))
			c->hoists[n++] = c->hoists[k];
	}
	c->nhoists = n;
	free(owner);
	free(entered);
	return 0;
}

/* Whether the jump at slot j of the loop [h, ...] that writes the registers written may compare
 * with a bound; fills *hz but its reg. */
static int plan_check(const struct jit_ctx *c, const uint8_t *pkt_cmp, uint32_t h, uint32_t j,
		      uint16_t written, struct jit_hoist *hz)
{
	const struct bpf_insn *in = &c->insns[j];
	const struct insn_desc *d;
	int x, y, f, base, index;

	if (!((pkt_cmp[j / 8] >> (j % 8)) & 1) || j < h + 2 || c->ids[j] < 0 || is_target(c, j))
		return 0;
	d = &insn_descs()[c->ids[j]];
	if (d->kind != INSN_K_JCOND || BPF_CLASS(in->code) != BPF_JMP ||
	    BPF_SRC(in->code) != BPF_X || d->op == INSN_OP_JSET || !fuses_lea_k(c, j - 2))
		return 0;
	x = c->insns[j - 2].dst_reg;
	y = c->insns[j - 2].src_reg;
	if (in->dst_reg == in->src_reg || (in->dst_reg != x && in->src_reg != x) ||
	    !exec_dead_after(c->live_out, j, (uint8_t)x) ||
	    !exec_dead_at_target(c->insns, c->cnt, c->live_out, j, (uint8_t)x))
		return 0;
	*hz = (struct jit_hoist){.head = h, .check = j, .k = c->insns[j - 1].imm, .var = (int8_t)y,
				 .inv = -1, .fold_base = -1, .fold_index = -1,
				 .sum_is_dst = in->dst_reg == x};
	hz->end = (int8_t)(hz->sum_is_dst ? in->src_reg : in->dst_reg);
	if (written & (1u << hz->end))
		return 0;
	if (j >= h + 4 && !is_target(c, j - 2) && folds_at(c, j - 4, &f, &base, &index) && f == y) {
		hz->fold_base = (int8_t)base;
		hz->fold_index = (int8_t)index;
		if (!(written & (1u << base))) {
			hz->inv = (int8_t)base;
			hz->var = (int8_t)index;
		} else if (!(written & (1u << index))) {
			hz->inv = (int8_t)index;
			hz->var = (int8_t)base;
		} else {
			return 0;
		}
	}
	return 1;
}

/* Fills c->hoists (after plan_frame(): the free registers depend on the mapping; a callee-saved
 * one taken is pushed too). */
static int plan_hoists(struct jit_ctx *c, const uint8_t *pkt_cmp)
{
	static const uint8_t scratch[3] = {X86_R9, X86_R10, X86_R11};
	uint32_t cap = 0;
	int err;

	if (!pkt_cmp || !c->live_out || c->blind)
		return 0;
	for (uint32_t h = 1; h < c->cnt; h++) {
		uint32_t e = c->loop_end[h] - 1;
		uint8_t free_regs[5];
		uint16_t written;
		int nfree = 0;

		if (!c->loop_end[h] || e < h + 2 || !loop_hoistable(c, h, e, &written))
			continue;
		/* r9..r11, or in the leaf mapping those of them r6..r8 leave, then (last taken) two
		 * that it leaves but which the prologue must then save */
		if (c->regs == bpf2x86_leaf) {
			free_regs[nfree++] = X86_R12;
			free_regs[nfree++] = X86_RBX;
		}
		for (int r = 6; r <= 8; r++)
			if (c->regs != bpf2x86_leaf || !(c->used & (1u << r)))
				free_regs[nfree++] = scratch[r - 6];
		for (uint32_t j = h + 2; j <= e && nfree; j++) {
			struct jit_hoist hz, *arr;

			if (!plan_check(c, pkt_cmp, h, j, written, &hz))
				continue;
			arr = grow(c->hoists, c->nhoists, &cap, sizeof(*arr), 4);
			if (!arr)
				return -ENOMEM;
			c->hoists = arr;
			hz.reg = free_regs[--nfree];
			c->hoists[c->nhoists++] = hz;
		}
	}
	if (!c->nhoists)
		return 0;
	err = drop_entered_loops(c);
	if (err)
		return err;
	for (uint32_t k = 0; k < c->nhoists; k++) {
		int reg = c->hoists[k].reg, saved = 0;

		if (reg != X86_RBX && reg != X86_R12)
			continue;
		for (int i = 0; i < c->nsaved; i++)
			saved |= c->saved[i] == reg;
		if (!saved)
			c->saved[c->nsaved++] = reg;
	}
	align_frame(c);
	return 0;
}

/* Asks opts->resolve_call about every helper call with a known r1 (but inline loops); fills
 * c->calls. */
static int resolve_calls(struct jit_ctx *c, const struct jit_opts *opts)
{
	const struct insn_desc *descs = insn_descs();
	uint32_t cap = 0, loop = 0;

	if (!opts->resolve_call || !c->any_call)
		return 0;
	if (find_targets(c))
		return -ENOMEM;
	for (uint32_t i = 0; i < c->cnt; i++) {
		const struct bpf_insn *in = &c->insns[i];
		const struct insn_desc *d;
		struct jit_call how;
		uint64_t k;

		if (c->ids[i] < 0)
			continue;
		d = &descs[c->ids[i]];
		if (d->kind != INSN_K_CALL || d->op != INSN_OP_HELPER || !r1_const_at(c, i, &k))
			continue;
		while (loop < c->nloops && c->loops[loop].insn < i)
			loop++;
		if (loop < c->nloops && c->loops[loop].insn == i)
			continue; /* runs inline */
		memset(&how, 0, sizeof(how));
		if (!opts->resolve_call(opts->resolve_arg,
					(const void *)c->env->helpers[(uint32_t)in->imm], k, &how))
			continue;
		if ((how.kind != JIT_CALL_DIRECT || !how.fn) &&
		    (how.kind != JIT_CALL_ARRAY || !how.elem_size || how.elem_size > INT32_MAX ||
		     !how.max_entries))
			continue; /* nothing this JIT can emit: keep the helper */
		struct jit_call *calls = grow(c->calls, c->ncalls, &cap, sizeof(*calls), 8);

		if (!calls)
			return -ENOMEM;
		c->calls = calls;
		how.insn = i;
		c->calls[c->ncalls++] = how;
	}
	return 0;
}

/* Which callee-saved registers to push, and the frame below them. */
static void plan_frame(struct jit_ctx *c)
{
	int uses_r10 = (c->used >> 10) & 1;

	c->regs = !c->any_call && !c->needs_aux && !c->blind ? bpf2x86_leaf : bpf2x86;
	c->nsaved = 0;
	if (uses_r10 || c->local_calls)
		c->saved[c->nsaved++] = X86_RBP;
	if (c->local_calls)
		c->saved[c->nsaved++] = ANCHOR;
	for (int r = 6; r <= 9; r++) {
		if ((c->used & (1u << r)) && !(c->regs == bpf2x86_leaf && r <= 8)) {
			c->saved[c->nsaved++] = R(r);
			c->callee_saved[c->ncallee_saved++] = R(r);
		}
	}
	c->bpf_stack = uses_r10 ? (c->local_calls ? INTERP_MAX_FRAMES : 1) * INTERP_STACK_SIZE : 0;
	c->frame_size = c->bpf_stack;
	/* the frames' may_goto budgets: each at its frame's top - bpf_stack - 8 (may_goto_off()),
	 * so one per depth, 512 bytes apart, below every frame */
	if (c->may_goto)
		c->frame_size +=
			(c->local_calls ? (INTERP_MAX_FRAMES - 1) * INTERP_STACK_SIZE : 0) + 16;
	if (c->ldpkt || c->tail_call)
		c->frame_size += STACK_SCRATCH;
	align_frame(c);
}

/* A RW mapping of len bytes, within rel32 reach of this library's code when the address space
 * allows (as the kernel puts JIT code in its module area), so that helper and map calls are
 * direct rel32 calls (emit_call_abs()); else wherever mmap puts it.  Images go downwards from
 * 64 MiB below the code (away from the heap that grows above an executable), each at a fresh
 * address: a hint already taken is skipped, and after 1 GiB of addresses the rest go anywhere. */
#define NEAR_START (64u << 20)
#define NEAR_SPAN (1u << 30)

static uintptr_t near_next = NEAR_START; /* distance below the code of the next image's end */

static uint8_t *map_near_text(size_t len, size_t page)
{
	uintptr_t text = (uintptr_t)&jit_compile & ~(uintptr_t)(page - 1);
	void *p;

	for (int tries = 0; tries < 4; tries++) {
		uintptr_t cur = __atomic_load_n(&near_next, __ATOMIC_RELAXED), below, hint;

		below = cur + len;
		if (below > NEAR_SPAN || text < below + NEAR_START)
			break;
		if (!__atomic_compare_exchange_n(&near_next, &cur, below, 0, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue; /* another thread took it: try the next one */
		hint = text - below;
		p = mmap((void *)hint, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (p == MAP_FAILED)
			return p;
		if ((uintptr_t)p == hint)
			return p;
		munmap(p, len); /* taken by something else: skip it */
	}
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* Freed images kept for the next compile: a fresh mapping costs its page tables and a fault on
 * each page first written, most of a small program's load.  The last IMAGE_CACHE freed of up to
 * IMAGE_CACHE_LEN bytes, oldest first, read+execute while kept (the code of a freed program),
 * made writable again when taken. */
#define IMAGE_CACHE 8
#define IMAGE_CACHE_LEN (64u << 10)

static pthread_mutex_t image_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint8_t *p;
	size_t len;
} image_cache[IMAGE_CACHE];
static unsigned int nr_image_cache;

/* A RW mapping of len bytes: the smallest kept image that is large enough (its pages past len
 * given back), else a new one. */
static uint8_t *image_get(size_t len, size_t page)
{
	uint8_t *p = NULL;
	size_t got = 0;
	unsigned int best = IMAGE_CACHE;

	pthread_mutex_lock(&image_cache_lock);
	for (unsigned int i = nr_image_cache; i-- > 0;) /* (the latest of the smallest) */
		if (image_cache[i].len >= len &&
		    (best == IMAGE_CACHE || image_cache[i].len < image_cache[best].len))
			best = i;
	if (best < IMAGE_CACHE) {
		p = image_cache[best].p;
		got = image_cache[best].len;
		memmove(&image_cache[best], &image_cache[best + 1],
			(--nr_image_cache - best) * sizeof(image_cache[0]));
	}
	pthread_mutex_unlock(&image_cache_lock);
	if (p && !mprotect(p, len, PROT_READ | PROT_WRITE)) {
		if (got > len)
			munmap(p + len, got - len);
		return p;
	}
	if (p)
		munmap(p, got);
	return map_near_text(len, page);
}

/* Gives an image back: kept for the next compile (the oldest kept then unmapped if there are
 * too many), or unmapped. */
static void image_put(uint8_t *p, size_t len)
{
	uint8_t *old = NULL;
	size_t old_len = 0;

	if (len > IMAGE_CACHE_LEN) {
		munmap(p, len);
		return;
	}
	pthread_mutex_lock(&image_cache_lock);
	if (nr_image_cache == IMAGE_CACHE) {
		old = image_cache[0].p;
		old_len = image_cache[0].len;
		memmove(&image_cache[0], &image_cache[1], --nr_image_cache * sizeof(image_cache[0]));
	}
	image_cache[nr_image_cache].p = p;
	image_cache[nr_image_cache++].len = len;
	pthread_mutex_unlock(&image_cache_lock);
	if (old)
		munmap(old, old_len);
}

static int check_opts(const struct jit_opts *opts, struct jit_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if (opts->sz < sizeof(opts->sz))
		return -EINVAL;
	if (opts->sz > sizeof(*o)) { /* a newer caller: its extra fields must be unset */
		const uint8_t *p = (const uint8_t *)opts;

		for (size_t i = sizeof(*o); i < opts->sz; i++)
			if (p[i])
				return -EINVAL;
	}
	memcpy(o, opts, opts->sz < sizeof(*o) ? opts->sz : sizeof(*o));
	return 0;
}

/* Callback runs nested on this thread (jit_cb_call() inside a helper inside jit_cb_call()...). */
static __thread unsigned int jit_cb_depth __attribute__((tls_model("initial-exec")));

/* struct exec_callback's call for the JIT: run the callback's entry, as jit_exec() runs the
 * main one.  r0, or 0 after a run-time error or when nested deeper than INTERP_MAX_FRAMES (an
 * unverified program recursing through a helper: it fails instead of overflowing the stack, as
 * in the interpreter). */
static uint64_t jit_cb_call(const struct exec_callback *cb, uint64_t r1, uint64_t r2, uint64_t r3,
			    uint64_t r4, uint64_t r5)
{
	const struct jit_callback *jc = (const struct jit_callback *)cb;
	struct jit_ret ret;

	if (jit_cb_depth >= INTERP_MAX_FRAMES)
		return 0;
	jit_cb_depth++;
	ret = jc->entry(r1, r2, r3, r4, r5);
	jit_cb_depth--;
	return (uint32_t)ret.status ? 0 : ret.r0;
}

int jit_compile(const struct bpf_insn *insns, uint32_t cnt, const struct interp_env *env,
		const struct jit_opts *opts, struct jit_prog **out)
{
	static const struct interp_env no_env;
	struct jit_ctx c = {.insns = insns, .cnt = cnt};
	struct jit_prog *p = NULL;
	struct jit_opts o;
	uint32_t *addr = NULL, *prev = NULL;
	long page = sysconf(_SC_PAGESIZE);
	size_t map_len = 0;
	uint8_t *image = MAP_FAILED;
	int err, pass;

	*out = NULL;
	if (cnt == 0 || cnt > INTERP_MAX_INSNS)
		return -E2BIG;
	err = check_opts(opts, &o);
	if (err)
		return err;
	c.env = env ? env : &no_env;
	c.blind = !!o.blind;
	c.seed = o.blind_seed;
	if (c.blind && !c.seed && getrandom(&c.seed, sizeof(c.seed), 0) != sizeof(c.seed))
		return -EAGAIN;
	err = -ENOMEM;
	c.ids = malloc(cnt * sizeof(*c.ids));
	p = calloc(1, sizeof(*p));
	if (!c.ids || !p)
		goto free_tmp;
	err = scan(&c);
	if (err)
		goto free_tmp;
	err = -ENOMEM;
	addr = malloc(NADDR(&c) * sizeof(*addr));
	prev = malloc(NADDR(&c) * sizeof(*prev));
	c.colds = calloc(c.ncold_max ? c.ncold_max : 1, sizeof(*c.colds));
	if (!addr || !prev || !c.colds)
		goto free_tmp;
	if (c.ncbs) { /* before the passes: the code embeds the descriptors' addresses */
		p->cbs = calloc(c.ncbs, sizeof(*p->cbs));
		if (!p->cbs)
			goto free_tmp;
		p->ncbs = c.ncbs;
		c.cbs = p->cbs;
	}
	err = find_loops(&c);
	if (err)
		goto free_tmp;
	err = resolve_calls(&c, &o);
	if (err)
		goto free_tmp;
	err = find_targets(&c); /* (emit_fused() and align_loop_head() ask) */
	if (err)
		goto free_tmp;
	/* Without memory for it, no sum is folded into addresses. */
	c.live_out = malloc(cnt * sizeof(*c.live_out));
	if (c.live_out && exec_liveness(insns, cnt, c.live_out)) {
		free(c.live_out);
		c.live_out = NULL;
	}
	plan_frame(&c);
	err = plan_hoists(&c, o.pkt_cmp);
	if (err)
		goto free_tmp;

	for (pass = 0;; pass++) {
		uint32_t *t;

		c.addr = addr;
		c.prev = pass ? prev : NULL;
		c.pad = pass >= PAD_AFTER;
		emit_program(&c);
		if (c.b.err) {
			err = c.b.err;
			goto free_image;
		}
		if (pass == 0) {
			/* Pass 0 is the largest any pass can be: map that much. */
			map_len = (c.b.len + (size_t)page - 1) / (size_t)page * (size_t)page;
			image = image_get(map_len, (size_t)page);
			if (image == MAP_FAILED) {
				err = -ENOMEM;
				goto free_tmp;
			}
			c.image = c.b.code = image;
			c.b.cap = (uint32_t)map_len;
		} else if (!memcmp(addr, prev, NADDR(&c) * sizeof(*addr))) {
			break; /* converged: every displacement was computed from final addresses */
		}
		if (pass == MAX_PASSES) {
			err = -E2BIG;
			goto free_image;
		}
		t = prev;
		prev = addr;
		addr = t;
	}
	/* Trap on anything past the code, give back whole unused pages, then W^X. */
	memset(image + c.b.len, 0xcc, map_len - c.b.len);
	{
		size_t used = (c.b.len + (size_t)page - 1) / (size_t)page * (size_t)page;

		if (used < map_len) {
			munmap(image + used, map_len - used);
			map_len = used;
		}
	}
	if (mprotect(image, map_len, PROT_READ | PROT_EXEC)) {
		err = -errno;
		goto free_image;
	}
	p->image = image;
	p->map_len = map_len;
	p->len = c.b.len;
	p->hoisted = c.hoisted;
	p->probe_checks = c.probe_checks;
	for (uint32_t j = 0; j < c.ncbs; j++) {
		p->cbs[j].cb.call = jit_cb_call;
		p->cbs[j].cb.owner = c.env->owner;
		p->cbs[j].entry = (jit_entry_fn)(void *)(image + addr[CB_SEG(&c, j)]);
	}
	p->cnt = cnt;
	p->insn_off = addr; /* the final addresses; only the slots' and the fall-off's are kept */
	addr = realloc(addr, ((size_t)cnt + 1) * sizeof(*addr));
	if (addr)
		p->insn_off = addr;
	addr = NULL;
	*out = p;
	p = NULL;
	err = 0;
	goto free_tmp;
free_image:
	if (image != MAP_FAILED)
		munmap(image, map_len);
free_tmp:
	free(c.colds);
	free(c.hoists);
	free(c.live_out);
	free(c.loop_end);
	free(c.target);
	free(c.loops);
	free(c.calls);
	free(c.cb_targets);
	if (p)
		free(p->cbs);
	free(p);
	free(prev);
	free(addr);
	free(c.ids);
	return err;
}

int jit_exec(const struct jit_prog *p, const uint64_t args[5], uint64_t *r0)
{
	jit_entry_fn fn = (jit_entry_fn)p->image;
	struct jit_ret ret = fn(args[0], args[1], args[2], args[3], args[4]);

	*r0 = ret.r0;
	return (int32_t)(uint32_t)ret.status;
}

uint64_t jit_run(const struct jit_prog *p, uint64_t r1, uint64_t r2)
{
	jit_entry_fn fn = (jit_entry_fn)p->image;

	return fn(r1, r2, 0, 0, 0).r0;
}

jit_entry_fn jit_entry(const struct jit_prog *p)
{
	return (jit_entry_fn)p->image;
}

const void *jit_code(const struct jit_prog *p, size_t *len)
{
	*len = p->len;
	return p->image;
}

int64_t jit_insn_offset(const struct jit_prog *p, uint32_t i)
{
	return i <= p->cnt ? (int64_t)p->insn_off[i] : -1;
}

uint32_t jit_hoisted_checks(const struct jit_prog *p)
{
	return p->hoisted;
}

uint32_t jit_probe_checks(const struct jit_prog *p)
{
	return p->probe_checks;
}

void jit_free(struct jit_prog *p)
{
	if (!p)
		return;
	image_put(p->image, p->map_len);
	free(p->cbs);
	free(p->insn_off);
	free(p);
}

#else /* !__x86_64__: no JIT; callers use the interpreter. */

int jit_compile(const struct bpf_insn *insns, uint32_t cnt, const struct interp_env *env,
		const struct jit_opts *opts, struct jit_prog **out)
{
	*out = NULL;
	return -EOPNOTSUPP;
}

int jit_exec(const struct jit_prog *p, const uint64_t args[5], uint64_t *r0)
{
	*r0 = 0;
	return -EOPNOTSUPP;
}

uint64_t jit_run(const struct jit_prog *p, uint64_t r1, uint64_t r2)
{
	return 0;
}

jit_entry_fn jit_entry(const struct jit_prog *p)
{
	return NULL;
}

const void *jit_code(const struct jit_prog *p, size_t *len)
{
	*len = 0;
	return NULL;
}

int64_t jit_insn_offset(const struct jit_prog *p, uint32_t i)
{
	return -1;
}

uint32_t jit_hoisted_checks(const struct jit_prog *p)
{
	return 0;
}

uint32_t jit_probe_checks(const struct jit_prog *p)
{
	return 0;
}

void jit_free(struct jit_prog *p)
{
}

#endif /* __x86_64__ */
