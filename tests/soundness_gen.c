/* The soundness generator and driver (see soundness_gen.h).
 *
 * Generation.  A program is a prologue (r6 = ctx, some of r7..r9 set), a few random snippets, an
 * epilogue (r0 set, exit) and, if a snippet called one, a subprogram.  Each snippet is a short
 * idiom a BPF programmer writes, with its constants drawn so that it is usually in bounds and
 * sometimes just out: offsets near the end of a map value or a checked packet range, masks that
 * bound a variable offset or fail to, a NULL check or none.  Forward jumps are patched when the
 * snippet they skip is complete; loops jump back to their head.  Finally one field of one
 * instruction may be nudged (offset, immediate, size, comparison).  Programs are never run
 * unless the verifier accepted them.
 *
 * Driving.  Program i of a run uses its own generator state derived from (seed, i), so any
 * program is reproducible from the two numbers printed with a violation.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "exec/helpers.h"
#include "exec/jit.h"
#include "insn.h"
#include "kernel_probe.h"
#include "prog/check_run.h"
#include "prog_struct.h"
#include "soundness_gen.h"

uint32_t gen_rand(struct gen_src *s)
{
	if (s->data) {
		uint32_t v = 0;

		for (int i = 0; i < 4 && s->pos < s->size; i++)
			v = v << 8 | s->data[s->pos++];
		return v;
	}
	s->state ^= s->state << 13;
	s->state ^= s->state >> 7;
	s->state ^= s->state << 17;
	return (uint32_t)(s->state >> 16);
}

struct gen {
	struct gen_src *s;
	struct bpf_insn *in;
	unsigned int n;
	uint32_t type;
	int depth;		/* snippet nesting */
	bool sub;		/* generating the subprogram */
	bool global;		/* ... which is a global function (it starts with `goto +0`) */
	unsigned int ncalls;
	unsigned int calls[8];	/* call sites to patch to the subprogram */
	bool cb;		/* generating the callback */
	int cb_helper;		/* the callback's helper (all sites), 0 before the first */
	int cb_ctx;		/* bytes of ctx the first site passes (0: NULL) */
	unsigned int ncb;
	unsigned int cbs[8];	/* LD_IMM64 BPF_PSEUDO_FUNC sites to patch to the callback */
};

#define ROOM 48 /* a snippet (nesting included) is emitted only with this many slots left */

static uint32_t rnd(struct gen *g, uint32_t n)
{
	return n ? gen_rand(g->s) % n : 0;
}

static bool chance(struct gen *g, uint32_t pct)
{
	return rnd(g, 100) < pct;
}

static void emit(struct gen *g, struct bpf_insn i)
{
	if (g->n < GEN_MAX_INSNS)
		g->in[g->n++] = i;
}

static void emit2(struct gen *g, const struct bpf_insn i[2])
{
	if (g->n + 2 <= GEN_MAX_INSNS) {
		g->in[g->n++] = i[0];
		g->in[g->n++] = i[1];
	}
}

/* Sets the offset of the forward jump at j to land at the current end. */
static void patch(struct gen *g, unsigned int j)
{
	g->in[j].off = (int16_t)(g->n - j - 1);
}

#define JCOND 0xe0 /* BPF_JCOND (may_goto), newer than Debian's uapi header */

static const int sizes[4] = { BPF_B, BPF_H, BPF_W, BPF_DW };
static const int size_bytes[4] = { 1, 2, 4, 8 };

/* A scalar register: usually r7..r9, sometimes a scratch one that may not be set. */
static int sreg(struct gen *g)
{
	return chance(g, 94) ? 7 + (int)rnd(g, 3) : (int)rnd(g, 6);
}

static int32_t interesting(struct gen *g)
{
	static const int32_t v[] = { 0, 1, -1, 2, 7, 8, 15, 16, 31, 48, 63, 64, 255, 256,
				     511, 512, 0x7fff, 0x10000, INT32_MAX, INT32_MIN, -8, -512 };

	return chance(g, 70) ? v[rnd(g, sizeof(v) / sizeof(v[0]))] : (int32_t)gen_rand(g->s);
}

static int ctx_data_off(struct gen *g, int which)
{
	if (g->type == BPF_PROG_TYPE_XDP)
		return which == 0 ? (int)offsetof(struct xdp_md, data)
				  : (int)offsetof(struct xdp_md, data_end);
	return which == 0 ? (int)offsetof(struct __sk_buff, data)
			  : (int)offsetof(struct __sk_buff, data_end);
}

static void snippet(struct gen *g);

static void snip_scalar(struct gen *g)
{
	int dst = sreg(g);

	switch (rnd(g, 3)) {
	case 0:
		emit(g, BPF_MOV64_IMM(dst, interesting(g)));
		break;
	case 1: {
		static const int skb[] = { offsetof(struct __sk_buff, len),
					   offsetof(struct __sk_buff, mark),
					   offsetof(struct __sk_buff, protocol),
					   offsetof(struct __sk_buff, cb[0]),
					   offsetof(struct __sk_buff, cb[4]),
					   offsetof(struct __sk_buff, hash) };
		static const int xdp[] = { offsetof(struct xdp_md, ingress_ifindex),
					   offsetof(struct xdp_md, rx_queue_index) };
		int off = g->type == BPF_PROG_TYPE_XDP ? xdp[rnd(g, 2)] : skb[rnd(g, 6)];
		int sz = 2;

		if (chance(g, 5)) {
			off = (int)rnd(g, 200);
			sz = (int)rnd(g, 4);
		}
		emit(g, BPF_LDX_MEM(sizes[sz], dst, 6, off));
		break;
	}
	default:
		emit(g, BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32));
		emit(g, BPF_MOV64_REG(dst, 0));
		break;
	}
}

static void snip_alu(struct gen *g)
{
	static const int ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
				   BPF_RSH, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH, BPF_NEG };
	int op = ops[rnd(g, sizeof(ops) / sizeof(ops[0]))], cls = chance(g, 70) ? BPF_ALU64 : BPF_ALU;
	int dst = sreg(g);

	if (op == BPF_NEG)
		emit(g, BPF_RAW_INSN(cls | BPF_NEG, dst, 0, 0, 0));
	else if (chance(g, 60))
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 0,
				     (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
					     ? (int32_t)rnd(g, cls == BPF_ALU64 ? 64 : 32)
					     : interesting(g)));
	else
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, sreg(g), 0, 0));
}

/* A stack offset: mostly aligned inside the frame, sometimes not. */
static int stack_off(struct gen *g, int sz)
{
	int off = -8 * (1 + (int)rnd(g, 64));

	if (chance(g, 8))
		off += (int)rnd(g, 8);
	if (chance(g, 3))
		off = (int)rnd(g, 16) - 8;
	if (chance(g, 3))
		off = -512 - (int)rnd(g, 8);
	return off + (chance(g, 50) ? 8 - size_bytes[sz] : 0);
}

static void snip_stack(struct gen *g)
{
	int sz = (int)rnd(g, 4), off = stack_off(g, sz);

	switch (rnd(g, 4)) {
	case 0:
		emit(g, BPF_ST_MEM(sizes[sz], 10, off, interesting(g)));
		break;
	case 1:
		emit(g, BPF_STX_MEM(sizes[sz], 10, sreg(g), off));
		break;
	case 2:
		emit(g, BPF_LDX_MEM(sizes[sz], sreg(g), 10, off));
		break;
	default: /* spill and fill of a pointer or scalar */
		emit(g, BPF_STX_MEM(BPF_DW, 10, chance(g, 50) ? 6 : sreg(g), off & ~7));
		emit(g, BPF_LDX_MEM(sizes[chance(g, 80) ? 3 : sz], chance(g, 50) ? 1 : sreg(g), 10,
				    off & ~7));
		break;
	}
}

static int mask_of(struct gen *g)
{
	static const int m[] = { 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, -1 };

	return m[chance(g, 70) ? rnd(g, 5) : rnd(g, sizeof(m) / sizeof(m[0]))];
}

/* r1 = a bounded (or not) variable index, from a scalar register. */
static void var_index(struct gen *g)
{
	emit(g, BPF_MOV64_REG(1, sreg(g)));
	if (chance(g, 75)) {
		emit(g, BPF_ALU64_IMM(BPF_AND, 1, mask_of(g)));
	} else {
		/* bound by a branch instead: if r1 <= K (or s<=) keep it, else r1 = 0 */
		emit(g, BPF_JMP_IMM(chance(g, 70) ? BPF_JLE : BPF_JSLE, 1, (int32_t)rnd(g, 64), 1));
		emit(g, BPF_MOV64_IMM(1, 0));
	}
}

static void mem_access(struct gen *g, int ptr, int off, int sz)
{
	switch (rnd(g, 5)) {
	case 0:
		emit(g, BPF_ST_MEM(sizes[sz], ptr, off, interesting(g)));
		break;
	case 1:
		emit(g, BPF_STX_MEM(sizes[sz], ptr, sreg(g), off));
		break;
	case 2:
		if (sz >= 2) {
			emit(g, BPF_ATOMIC_OP(sizes[sz], chance(g, 50) ? BPF_ADD : BPF_ADD | BPF_FETCH,
					      ptr, sreg(g), off));
			break;
		}
		/* fall through */
	default:
		emit(g, BPF_LDX_MEM(sizes[sz], sreg(g), ptr, off));
		break;
	}
}

static void snip_var_stack(struct gen *g)
{
	static const int base[] = { 8, 16, 64, 128, 256, 512, 520 };
	int sz = (int)rnd(g, 4);

	var_index(g);
	emit(g, BPF_MOV64_REG(2, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 2, -base[rnd(g, 7)]));
	emit(g, BPF_ALU64_REG(BPF_ADD, 2, 1));
	mem_access(g, 2, chance(g, 70) ? 0 : -8 * (int)rnd(g, 4), sz);
}

/* kfuncs by name: their ids in the kernel's BTF (0 without one: no kfunc snippets). */
enum { KF_DYN_SIZE, KF_DYN_ADJUST, KF_DYN_SLICE, KF_DYN_CLONE, KF_DYN_IS_NULL, KF_DYN_COPY,
       KF_DYN_MEMSET, KF_ITER_NEW, KF_ITER_NEXT, KF_ITER_DESTROY, KF_FROM_SKB, KF_FROM_XDP,
       KF_STRLEN, KF_STRCMP, KF_STRNCHR, KF_BITS_NEW, KF_BITS_NEXT, KF_BITS_DESTROY,
       KF_RCU_LOCK, KF_RCU_UNLOCK, KF_PREEMPT_OFF, KF_PREEMPT_ON, KF_N };

static int32_t kf(int k)
{
	static const char *const names[KF_N] = {
		"bpf_dynptr_size", "bpf_dynptr_adjust", "bpf_dynptr_slice", "bpf_dynptr_clone",
		"bpf_dynptr_is_null", "bpf_dynptr_copy", "bpf_dynptr_memset", "bpf_iter_num_new",
		"bpf_iter_num_next", "bpf_iter_num_destroy", "bpf_dynptr_from_skb",
		"bpf_dynptr_from_xdp", "bpf_strlen", "bpf_strcmp", "bpf_strnchr",
		"bpf_iter_bits_new", "bpf_iter_bits_next", "bpf_iter_bits_destroy",
		"bpf_rcu_read_lock", "bpf_rcu_read_unlock", "bpf_preempt_disable",
		"bpf_preempt_enable",
	};
	static int32_t ids[KF_N];
	static bool done;

	if (!done) {
		for (int i = 0; i < KF_N; i++)
			ids[i] = btf_vmlinux() ? (int32_t)btf_find_func(btf_vmlinux(), names[i]) : 0;
		done = true;
	}
	return ids[k];
}

static void kcall(struct gen *g, int k)
{
	emit(g, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kf(k)));
}

static void ld_map(struct gen *g, int reg, bool array)
{
	struct bpf_insn ld[2] = { BPF_LD_MAP_FD(reg, array ? GEN_MAP_ARRAY : GEN_MAP_HASH) };

	emit2(g, ld);
}

static void snip_map(struct gen *g)
{
	bool array = chance(g, 55);
	int vs = array ? GEN_ARRAY_VALUE : GEN_HASH_VALUE;
	unsigned int j = 0;
	bool check = chance(g, 85);

	if (chance(g, 70))
		emit(g, BPF_ST_MEM(BPF_W, 10, -8, (int32_t)rnd(g, 6)));
	else
		emit(g, BPF_STX_MEM(BPF_W, 10, sreg(g), -8));
	ld_map(g, 1, array);
	emit(g, BPF_MOV64_REG(2, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 2, chance(g, 95) ? -8 : -(int)rnd(g, 12)));
	if (chance(g, 12)) { /* update or delete instead */
		if (chance(g, 50)) {
			emit(g, BPF_MOV64_REG(3, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, 3, -8 - (chance(g, 85) ? vs : (int)rnd(g, vs))));
			emit(g, BPF_MOV64_IMM(4, 0));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_map_update_elem));
		} else {
			emit(g, BPF_EMIT_CALL(BPF_FUNC_map_delete_elem));
		}
		return;
	}
	emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
	if (check) {
		j = g->n;
		emit(g, BPF_JMP_IMM(chance(g, 90) ? BPF_JEQ : BPF_JNE, 0, 0, 0));
	}
	for (int k = 0, nacc = 1 + (int)rnd(g, 3); k < nacc; k++) {
		int sz = (int)rnd(g, 4), b = size_bytes[sz], off;

		if (chance(g, 30)) {
			var_index(g);
			emit(g, BPF_ALU64_REG(BPF_ADD, 0, 1));
		}
		off = chance(g, 75) ? (int)rnd(g, (uint32_t)(vs - b + 1)) & ~(b - 1)
				    : vs - b + (int)rnd(g, 5) - 2;
		mem_access(g, 0, off, sz);
	}
	if (chance(g, 25))
		emit(g, BPF_MOV64_REG(7, 0));
	if (check)
		patch(g, j);
}

/* r1 = &value + off of the one-entry array (LD_IMM64 BPF_PSEUDO_MAP_VALUE, off mostly inside
 * the value), then an access through it, maybe after moving it by a variable index. */
static void snip_map_value(struct gen *g)
{
	int sz = (int)rnd(g, 4), b = size_bytes[sz];
	int off = chance(g, 90) ? 8 * (int)rnd(g, GEN_ARRAY_VALUE / 8) : (int)rnd(g, 64);
	struct bpf_insn ld[2] = { BPF_LD_IMM64_RAW(2, BPF_PSEUDO_MAP_VALUE, 0) };

	ld[0].imm = GEN_MAP_ARRAY1;
	ld[1].imm = off;
	emit2(g, ld);
	if (chance(g, 25)) {
		var_index(g);
		emit(g, BPF_ALU64_REG(BPF_ADD, 2, 1));
	}
	mem_access(g, 2, chance(g, 80) ? (int)rnd(g, 16) & ~(b - 1) : (int)rnd(g, 56) - 8, sz);
}

/* A ring buffer record: bpf_ringbuf_reserve(rb, size, 0), NULL-checked (mostly), written or
 * read inside the size (mostly), then submitted or discarded on every path (mostly: a leak is
 * refused), maybe through a copy of the pointer. */
static void snip_ringbuf(struct gen *g)
{
	int size = chance(g, 85) ? 8 * (int)(1 + rnd(g, 8)) : interesting(g);
	bool check = chance(g, 90), release = chance(g, 92);
	int p = chance(g, 25) ? 7 + (int)rnd(g, 3) : 0;
	unsigned int j = 0;

	ld_map(g, 1, false);
	g->in[g->n - 2].imm = GEN_MAP_RINGBUF;
	if (chance(g, 90)) {
		emit(g, BPF_MOV64_IMM(2, size));
	} else {
		emit(g, BPF_MOV64_REG(2, sreg(g)));
		emit(g, BPF_ALU64_IMM(BPF_AND, 2, mask_of(g)));
	}
	emit(g, BPF_MOV64_IMM(3, chance(g, 95) ? 0 : (int)rnd(g, 4)));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_ringbuf_reserve));
	if (check) {
		j = g->n;
		emit(g, BPF_JMP_IMM(chance(g, 92) ? BPF_JEQ : BPF_JNE, 0, 0, 0));
	}
	if (p)
		emit(g, BPF_MOV64_REG(p, 0));
	for (int k = 0, n = (int)rnd(g, 3); k < n; k++) {
		int sz = (int)rnd(g, 4), b = size_bytes[sz];
		int lim = size > 0 && size <= 64 ? size : 64;
		int off = chance(g, 85) ? (int)rnd(g, (uint32_t)(lim - b + 1 > 0 ? lim - b + 1 : 1)) &
						  ~(b - 1)
					: lim - b + (int)rnd(g, 5) - 2;

		mem_access(g, p ? p : 0, off, sz);
	}
	if (release) {
		emit(g, BPF_MOV64_REG(1, p ? p : 0));
		emit(g, BPF_MOV64_IMM(2, chance(g, 95) ? 0 : 1));
		emit(g, BPF_EMIT_CALL(chance(g, 50) ? BPF_FUNC_ringbuf_submit
						    : BPF_FUNC_ringbuf_discard));
	}
	if (check)
		patch(g, j);
}

/* A bpf_spin_lock region: a lookup in the lock map (NULL-checked, mostly), the value kept in
 * r7..r9, its lock taken (mostly at the lock's offset), a few accesses to the value (mostly
 * around the lock word), sometimes a nested snippet (a helper call there is refused, a
 * bpf-to-bpf call is not), then the lock released (mostly: on every path, through the same
 * pointer). */
static void snip_lock(struct gen *g)
{
	static const int odd_off[] = { 0, 8, 5, -4 };
	int p = 7 + (int)rnd(g, 3);
	int off = chance(g, 92) ? GEN_LOCK_OFF : odd_off[rnd(g, 4)];
	bool check = chance(g, 92);
	unsigned int j = 0, skip = 0;

	emit(g, BPF_ST_MEM(BPF_W, 10, -8, (int32_t)rnd(g, GEN_LOCK_ENTRIES + 1)));
	ld_map(g, 1, true);
	g->in[g->n - 2].imm = GEN_MAP_LOCK;
	emit(g, BPF_MOV64_REG(2, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 2, -8));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
	if (check) {
		j = g->n;
		emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, 0));
	}
	emit(g, BPF_MOV64_REG(p, 0));
	emit(g, BPF_MOV64_REG(1, p));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 1, off));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_spin_lock));
	for (int k = 0, n = (int)rnd(g, 3); k < n; k++) {
		int sz = (int)rnd(g, 4), b = size_bytes[sz];
		int at = chance(g, 85) ? 8 + ((int)rnd(g, GEN_LOCK_VALUE - 8 - b + 1) & ~(b - 1))
				       : (int)rnd(g, GEN_LOCK_VALUE + 4) - 2;

		mem_access(g, p, at, sz);
	}
	if (chance(g, 20)) {
		g->depth++;
		snippet(g);
		g->depth--;
	}
	if (chance(g, 6)) { /* a path that skips the release */
		skip = g->n;
		emit(g, BPF_JMP_IMM(BPF_JEQ, sreg(g), 0, 0));
	}
	if (chance(g, 95)) {
		emit(g, BPF_MOV64_REG(1, chance(g, 95) ? p : sreg(g)));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, chance(g, 95) ? off : GEN_LOCK_OFF));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_spin_unlock));
	}
	if (skip)
		patch(g, skip);
	if (check)
		patch(g, j);
}

/* Socket filters cannot read data/data_end: legacy packet loads instead (r6 = ctx). */
static void snip_ld_abs(struct gen *g)
{
	int sz = (int)rnd(g, 3);

	if (chance(g, 50)) {
		emit(g, BPF_LD_ABS(sizes[sz], (int32_t)rnd(g, 80)));
	} else {
		emit(g, BPF_LD_IND(sizes[sz], sreg(g), (int32_t)rnd(g, 40)));
	}
	if (chance(g, 60))
		emit(g, BPF_MOV64_REG(sreg(g), 0));
}

static void snip_pkt(struct gen *g)
{
	int k = 1 + (int)rnd(g, 40), sz = (int)rnd(g, 4), off;
	unsigned int j = 0;
	bool check = chance(g, 85);

	if (g->type == BPF_PROG_TYPE_SOCKET_FILTER && chance(g, 90)) {
		snip_ld_abs(g);
		return;
	}

	emit(g, BPF_LDX_MEM(BPF_W, 2, 6, ctx_data_off(g, 0)));
	emit(g, BPF_LDX_MEM(BPF_W, 3, 6, ctx_data_off(g, 1)));
	emit(g, BPF_MOV64_REG(4, 2));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 4, k));
	if (check) {
		j = g->n;
		if (chance(g, 80))
			emit(g, BPF_JMP_REG(chance(g, 85) ? BPF_JGT : BPF_JGE, 4, 3, 0));
		else
			emit(g, BPF_JMP_REG(chance(g, 85) ? BPF_JLT : BPF_JLE, 3, 4, 0));
	}
	if (chance(g, 35)) { /* a variable offset from the packet, checked again */
		unsigned int j2;

		emit(g, BPF_LDX_MEM(BPF_B, 5, 2, 0));
		emit(g, BPF_ALU64_IMM(BPF_AND, 5, mask_of(g)));
		emit(g, BPF_ALU64_REG(BPF_ADD, 2, 5));
		emit(g, BPF_MOV64_REG(4, 2));
		k = 1 + (int)rnd(g, 16);
		emit(g, BPF_ALU64_IMM(BPF_ADD, 4, k));
		j2 = g->n;
		emit(g, BPF_JMP_REG(BPF_JGT, 4, 3, 0));
		off = chance(g, 80) ? (int)rnd(g, (uint32_t)k) : k;
		mem_access(g, 2, off, sz);
		patch(g, j2);
	} else {
		off = chance(g, 75) ? (int)rnd(g, (uint32_t)k) : k - size_bytes[sz] + (int)rnd(g, 3);
		if (off + size_bytes[sz] > k && chance(g, 70))
			off = k - size_bytes[sz];
		mem_access(g, 2, off, sz);
	}
	if (check)
		patch(g, j);
}

/* What the JIT made of userbpf's program fd (nothing without a JIT): its packet checks compared
 * with a bound computed before their loop, and its probe loads (as verified) with the arena
 * checks the code makes for them (a run through one pointer takes one). */
static void jit_counts_of(int fd, struct sound_stats *st)
{
	struct bpf_prog *prog = prog_struct_of_fd(fd);
	uint32_t hoisted;

	if (!prog || !prog->jit)
		return;
	hoisted = jit_hoisted_checks(prog->jit);
	st->hoist_accepted += hoisted > 0;
	st->hoist_checks += hoisted;
	for (uint32_t i = 0; i < prog->len; i++)
		st->probe_loads += insn_is_probe_load(&prog->insns[i]);
	st->probe_checks += jit_probe_checks(prog->jit);
}

/* A loop over the packet in bench's csum shapes: a pointer advanced each round, or an index
 * added to data (clang's form), checked against data_end (either side first) before each
 * access, a counter ending it.  The JIT compares such checks with a bound computed on entering
 * the loop (jit_opts.pkt_cmp); a snippet inside sometimes writes what that needs unchanged. */
static void snip_pkt_loop(struct gen *g)
{
	static const int ops[] = { BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE };
	int k = 1 + (int)rnd(g, 16), step = 1 + (int)rnd(g, 8), sz = (int)rnd(g, 4);
	int op = ops[rnd(g, 4)], ptr = 2, off;
	bool folded = chance(g, 40);
	unsigned int head, j;

	emit(g, BPF_LDX_MEM(BPF_W, 2, 6, ctx_data_off(g, 0)));
	emit(g, BPF_LDX_MEM(BPF_W, 3, 6, ctx_data_off(g, 1)));
	if (folded)
		emit(g, BPF_MOV64_IMM(8, 0));
	emit(g, BPF_MOV64_IMM(9, 0));
	head = g->n;
	if (folded) {
		emit(g, BPF_MOV64_REG(5, 2));
		emit(g, BPF_ALU64_REG(BPF_ADD, 5, 8));
		ptr = 5;
	}
	emit(g, BPF_MOV64_REG(4, ptr));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 4, k));
	j = g->n;
	if (op == BPF_JGT || op == BPF_JGE) /* out when past the end */
		emit(g, BPF_JMP_REG(op, 4, 3, 0));
	else /* the end first */
		emit(g, BPF_JMP_REG(op, 3, 4, 0));
	off = chance(g, 85) ? (int)rnd(g, (uint32_t)k) : k - size_bytes[sz] + (int)rnd(g, 3);
	if (off + size_bytes[sz] > k && chance(g, 70))
		off = k - size_bytes[sz];
	mem_access(g, ptr, off < 0 ? 0 : off, sz);
	if (chance(g, 20)) {
		g->depth++;
		snippet(g);
		g->depth--;
	}
	emit(g, BPF_ALU64_IMM(BPF_ADD, folded ? 8 : 2, step));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 9, 1));
	emit(g, BPF_JMP_IMM(BPF_JLT, 9, 1 + (int32_t)rnd(g, 20), 0));
	g->in[g->n - 1].off = (int16_t)((int)head - (int)g->n);
	patch(g, j);
}

static void snip_branch(struct gen *g)
{
	static const int ops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE,
				   BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };
	int op = ops[rnd(g, sizeof(ops) / sizeof(ops[0]))];
	int cls = chance(g, 75) ? BPF_JMP : BPF_JMP32;
	unsigned int j = g->n;

	if (chance(g, 70))
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, sreg(g), 0, 0, interesting(g)));
	else
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, sreg(g), sreg(g), 0, 0));
	g->depth++;
	for (int k = 0, nb = 1 + (int)rnd(g, 2); k < nb; k++)
		snippet(g);
	g->depth--;
	patch(g, j);
}

/* A counted loop; sometimes one whose head is a may_goto out of it (counting from 0 with <, so
 * that its own bound ends it at run time long before the budget does). */
static void snip_loop(struct gen *g)
{
	int c = chance(g, 90) ? 9 : sreg(g);
	bool may_goto = chance(g, 30);
	unsigned int head, jmg = 0;

	emit(g, BPF_MOV64_IMM(c, may_goto || chance(g, 90) ? 0 : interesting(g)));
	head = g->n;
	if (may_goto) {
		jmg = g->n;
		emit(g, BPF_RAW_INSN(BPF_JMP | JCOND, 0, 0, 0, 0));
	}
	g->depth++;
	snippet(g);
	g->depth--;
	emit(g, BPF_ALU64_IMM(BPF_ADD, c, 1));
	emit(g, BPF_JMP_IMM(may_goto || chance(g, 85) ? BPF_JLT : BPF_JNE, c,
			    1 + (int32_t)rnd(g, 20), 0));
	g->in[g->n - 1].off = (int16_t)((int)head - (int)g->n);
	if (may_goto)
		patch(g, jmg);
}

static void snip_call(struct gen *g)
{
	if (g->sub || g->ncalls >= 8)
		return;
	if (chance(g, 60)) {
		emit(g, BPF_MOV64_REG(1, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, -8 * (1 + (int)rnd(g, 8))));
	} else {
		emit(g, BPF_MOV64_REG(1, chance(g, 70) ? 6 : sreg(g)));
	}
	emit(g, BPF_MOV64_REG(2, sreg(g)));
	g->calls[g->ncalls++] = g->n;
	emit(g, BPF_CALL_REL(0));
	if (chance(g, 50))
		emit(g, BPF_MOV64_REG(sreg(g), 0));
}

/* The first GEN_NRUN types are the common ones (85% of programs). */
#define GEN_NRUN 4
static const uint32_t gen_types[GEN_NTYPES] = { BPF_PROG_TYPE_SOCKET_FILTER,
						BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_XDP,
						BPF_PROG_TYPE_CGROUP_SKB, BPF_PROG_TYPE_SK_SKB,
						BPF_PROG_TYPE_LWT_XMIT, BPF_PROG_TYPE_LWT_IN };

static int type_index(uint32_t type)
{
	for (int k = 0; k < GEN_NTYPES; k++)
		if (gen_types[k] == type)
			return k;
	return 0;
}

/* bpf_tail_call(ctx, array, index) into the program type's own (empty) array: usually r1 = r6,
 * the ctx in main (and in a subprogram that kept its r1 there), a constant index or not.  From
 * a subprogram the verifier's rules differ (its frames count against 256 bytes of stack; with
 * func info it must return an int; the call is also an exit). */
static void snip_tail_call(struct gen *g)
{
	struct bpf_insn ld[2] = { BPF_LD_MAP_FD(2, GEN_MAP_PROG_ARRAY + type_index(g->type)) };

	emit(g, BPF_MOV64_REG(1, chance(g, 92) ? 6 : sreg(g)));
	emit2(g, ld);
	if (chance(g, 70))
		emit(g, BPF_MOV64_IMM(3, (int32_t)rnd(g, GEN_PROG_ARRAY_ENTRIES + 1)));
	else
		emit(g, BPF_MOV64_REG(3, sreg(g)));
	emit(g, BPF_EMIT_CALL(BPF_FUNC_tail_call));
	if (chance(g, 30))
		emit(g, BPF_MOV64_REG(sreg(g), 0));
}

/* A callback: bpf_loop(n, cb, ctx, 0) or bpf_for_each_map_elem(map, cb, ctx, 0), ctx some bytes
 * of the stack (zeroed first, usually) or NULL.  Every site of a program uses the same helper and
 * the same callback (generated after main). */
static void snip_callback(struct gen *g)
{
	static const int sizes_ctx[] = { 8, 16, 32, 64 };
	struct bpf_insn func[2] = { BPF_LD_IMM64_RAW(2, BPF_PSEUDO_FUNC, 0) };
	int k = sizes_ctx[rnd(g, 4)];

	if (g->sub || g->cb || g->ncb >= 8)
		return;
	if (!g->cb_helper)
		g->cb_helper = chance(g, 60) ? BPF_FUNC_loop : BPF_FUNC_for_each_map_elem;
	for (int o = 8; o <= k; o += 8)
		if (chance(g, 92))
			emit(g, BPF_ST_MEM(BPF_DW, 10, -o, 0));
	if (g->cb_helper == BPF_FUNC_loop) {
		if (chance(g, 85)) {
			emit(g, BPF_MOV64_IMM(1, 1 + (int32_t)rnd(g, 6)));
		} else {
			emit(g, BPF_MOV64_REG(1, sreg(g)));
			emit(g, BPF_ALU64_IMM(BPF_AND, 1, 7));
		}
	} else {
		ld_map(g, 1, chance(g, 50));
	}
	g->cbs[g->ncb++] = g->n;
	emit2(g, func);
	if (chance(g, 88)) {
		emit(g, BPF_MOV64_REG(3, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 3, -k));
	} else {
		emit(g, BPF_MOV64_IMM(3, 0));
		k = 0;
	}
	if (g->ncb == 1)
		g->cb_ctx = k;
	emit(g, BPF_MOV64_IMM(4, chance(g, 96) ? 0 : 1));
	emit(g, BPF_EMIT_CALL(g->cb_helper));
	if (chance(g, 50))
		emit(g, BPF_MOV64_REG(sreg(g), 0));
}

/* Callback-only: accesses through the ctx (kept in r6), mostly inside the first site's ctx. */
static void snip_cb_ctx(struct gen *g)
{
	int sz = (int)rnd(g, 4), n = g->cb_ctx ? g->cb_ctx : 8;
	int off = chance(g, 90) ? 8 * (int)rnd(g, (uint32_t)n / 8) : (int)rnd(g, (uint32_t)n + 8);

	mem_access(g, 6, off, sz);
}

static void snip_helper(struct gen *g)
{
	int k = 8 * (1 + (int)rnd(g, 8)), len = 1 + (int)rnd(g, (uint32_t)k + 4);

	if (g->type != BPF_PROG_TYPE_XDP && chance(g, 60)) {
		emit(g, BPF_MOV64_REG(1, 6));
		emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 32)));
		emit(g, BPF_MOV64_REG(3, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 3, -k));
		if (chance(g, 80)) {
			emit(g, BPF_MOV64_IMM(4, len));
		} else {
			emit(g, BPF_MOV64_REG(4, sreg(g)));
			emit(g, BPF_ALU64_IMM(BPF_AND, 4, mask_of(g)));
		}
		emit(g, BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes));
	} else {
		emit(g, BPF_MOV64_REG(1, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, -k));
		emit(g, BPF_MOV64_IMM(2, len));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_get_current_comm));
	}
}

/* A dynptr on the stack, over an array value (bpf_dynptr_from_mem(), after a lookup that is
 * NULL-checked) or a ring buffer record (bpf_ringbuf_reserve_dynptr()), usually at an aligned
 * offset with room for its 16 bytes; then a few uses: a slice (bpf_dynptr_data()) accessed, a
 * read or write through it, or a store over its slots; a record is then submitted or discarded
 * (mostly: else a leak).  Sizes, offsets and lengths are mostly in bounds and sometimes not. */
static void snip_dynptr(struct gen *g)
{
	int off = chance(g, 85) ? -16 - 8 * (int)rnd(g, 6) : stack_off(g, 3);
	bool rb = chance(g, 40), pkt = !rb && kf(KF_FROM_SKB) && chance(g, 35);
	unsigned int j = 0;

	if (pkt) { /* the packet's: bpf_dynptr_from_skb() or _xdp() of the ctx (r6) */
		emit(g, BPF_MOV64_REG(1, chance(g, 95) ? 6 : sreg(g)));
		emit(g, BPF_MOV64_IMM(2, chance(g, 95) ? 0 : (int)rnd(g, 3)));
		emit(g, BPF_MOV64_REG(3, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 3, off));
		kcall(g, g->type == BPF_PROG_TYPE_XDP ? KF_FROM_XDP : KF_FROM_SKB);
	} else if (rb) {
		ld_map(g, 1, false);
		g->in[g->n - 2].imm = GEN_MAP_RINGBUF;
		emit(g, BPF_MOV64_IMM(2, chance(g, 85) ? 8 * (int)(1 + rnd(g, 8)) : interesting(g)));
		emit(g, BPF_MOV64_IMM(3, chance(g, 90) ? 0 : (int)rnd(g, 4)));
	} else {
		emit(g, BPF_ST_MEM(BPF_W, 10, -4, (int32_t)rnd(g, 5)));
		ld_map(g, 1, true);
		emit(g, BPF_MOV64_REG(2, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 2, -4));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
		j = g->n;
		emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, 0));
		emit(g, BPF_MOV64_REG(1, 0));
		if (chance(g, 85)) {
			emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, GEN_ARRAY_VALUE + 1)));
		} else {
			emit(g, BPF_MOV64_REG(2, sreg(g)));
			emit(g, BPF_ALU64_IMM(BPF_AND, 2, mask_of(g)));
		}
		emit(g, BPF_MOV64_IMM(3, chance(g, 90) ? 0 : (int)rnd(g, 4)));
	}
	if (!pkt) {
		emit(g, BPF_MOV64_REG(4, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 4, off));
		emit(g, BPF_EMIT_CALL(rb ? BPF_FUNC_ringbuf_reserve_dynptr
					 : BPF_FUNC_dynptr_from_mem));
	}
	for (int k = 0, uses = (int)rnd(g, 4); k < uses; k++) {
		int at = chance(g, 90) ? off : stack_off(g, 3);
		int len = chance(g, 85) ? 1 + (int)rnd(g, 16) : (int)rnd(g, 80);
		int buf = -8 * (int)(7 + rnd(g, 4)); /* below the usual dynptrs: fp-56..-80 */

		int what = (int)rnd(g, kf(KF_DYN_SIZE) ? 7 : 4);
		bool rd = what == 1;

		switch (what) {
		case 0: { /* a slice, NULL-checked (mostly), accessed */
			int sz = (int)rnd(g, 4);
			bool check = chance(g, 90);

			emit(g, BPF_MOV64_REG(1, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, 1, at));
			emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 24)));
			emit(g, BPF_MOV64_IMM(3, len));
			emit(g, BPF_EMIT_CALL(BPF_FUNC_dynptr_data));
			if (check)
				emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, 1));
			mem_access(g, 0, chance(g, 80) ? (int)rnd(g, (uint32_t)len) & ~(size_bytes[sz] - 1)
						      : (int)rnd(g, 24),
				   sz);
			break;
		}
		case 1: /* bpf_dynptr_read(fp + buf, len, dynptr, offset, 0) */
		case 2: /* bpf_dynptr_write(dynptr, offset, fp + buf, len, 0) */
			emit(g, BPF_MOV64_REG(rd ? 1 : 3, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, rd ? 1 : 3, buf));
			emit(g, BPF_MOV64_REG(rd ? 3 : 1, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, rd ? 3 : 1, at));
			if (rd) {
				emit(g, BPF_MOV64_IMM(2, len));
				emit(g, BPF_MOV64_IMM(4, (int32_t)rnd(g, 24)));
			} else {
				emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 24)));
				emit(g, BPF_MOV64_IMM(4, len));
			}
			emit(g, BPF_MOV64_IMM(5, 0));
			emit(g, BPF_EMIT_CALL(rd ? BPF_FUNC_dynptr_read : BPF_FUNC_dynptr_write));
			break;
		case 4: { /* bpf_dynptr_slice(): NULL-checked (mostly), read (mostly: it is
			   * read-only), with a stack buffer sometimes */
			int sz = (int)rnd(g, 4);
			bool check = chance(g, 90);

			emit(g, BPF_MOV64_REG(1, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, 1, at));
			emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 24)));
			if (chance(g, 70)) {
				emit(g, BPF_MOV64_IMM(3, 0));
			} else {
				emit(g, BPF_MOV64_REG(3, 10));
				emit(g, BPF_ALU64_IMM(BPF_ADD, 3, buf));
			}
			emit(g, BPF_MOV64_IMM(4, len));
			kcall(g, KF_DYN_SLICE);
			if (check)
				emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, 1));
			if (chance(g, 85))
				emit(g, BPF_LDX_MEM(sizes[sz], sreg(g), 0,
						    chance(g, 85) ? (int)rnd(g, (uint32_t)len) &
									~(size_bytes[sz] - 1)
								  : (int)rnd(g, 24)));
			else
				mem_access(g, 0, (int)rnd(g, (uint32_t)len), sz);
			break;
		}
		case 5: /* bpf_dynptr_adjust(), _size() or _is_null() */
			emit(g, BPF_MOV64_REG(1, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, 1, at));
			if (chance(g, 50)) {
				emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 12)));
				emit(g, BPF_MOV64_IMM(3, (int32_t)rnd(g, 40)));
				kcall(g, KF_DYN_ADJUST);
			} else {
				kcall(g, chance(g, 50) ? KF_DYN_SIZE : KF_DYN_IS_NULL);
			}
			if (chance(g, 50))
				emit(g, BPF_MOV64_REG(sreg(g), 0));
			break;
		default: /* a clone (then maybe a copy or memset between the two), or a store
			  * over (or near) its slots */
			if (kf(KF_DYN_CLONE) && chance(g, 50)) {
				int to = chance(g, 85) ? off - 16 : stack_off(g, 3);

				emit(g, BPF_MOV64_REG(1, 10));
				emit(g, BPF_ALU64_IMM(BPF_ADD, 1, at));
				emit(g, BPF_MOV64_REG(2, 10));
				emit(g, BPF_ALU64_IMM(BPF_ADD, 2, to));
				kcall(g, KF_DYN_CLONE);
				if (chance(g, 50)) {
					emit(g, BPF_MOV64_REG(1, 10));
					emit(g, BPF_ALU64_IMM(BPF_ADD, 1, chance(g, 50) ? to : at));
					emit(g, BPF_MOV64_IMM(2, (int32_t)rnd(g, 16)));
					if (chance(g, 50)) {
						emit(g, BPF_MOV64_REG(3, 10));
						emit(g, BPF_ALU64_IMM(BPF_ADD, 3, at));
						emit(g, BPF_MOV64_IMM(4, (int32_t)rnd(g, 16)));
						emit(g, BPF_MOV64_IMM(5, (int32_t)rnd(g, 16)));
						kcall(g, KF_DYN_COPY);
					} else {
						emit(g, BPF_MOV64_IMM(3, (int32_t)rnd(g, 16)));
						emit(g, BPF_MOV64_IMM(4, interesting(g)));
						kcall(g, KF_DYN_MEMSET);
					}
				}
				break;
			}
			emit(g, BPF_ST_MEM(sizes[rnd(g, 4)], 10, at + (int)rnd(g, 16) - 4,
					   interesting(g)));
			break;
		}
	}
	if (rb && chance(g, 92)) {
		emit(g, BPF_MOV64_REG(1, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, chance(g, 95) ? off : stack_off(g, 3)));
		emit(g, BPF_MOV64_IMM(2, 0));
		emit(g, BPF_EMIT_CALL(chance(g, 50) ? BPF_FUNC_ringbuf_submit_dynptr
						    : BPF_FUNC_ringbuf_discard_dynptr));
	}
	if (!rb && !pkt)
		patch(g, j);
}

/* An open-coded iterator loop (libbpf's bpf_for()): bpf_iter_num_new() over a range (mostly
 * small, sometimes from a register), or (sometimes) bpf_iter_bits_new() over a few words of the
 * stack or whatever a register holds, then rounds of _next(), its result NULL-checked
 * (mostly) and read (sometimes out of its 4 bytes, or used as an index), a snippet in the body
 * (sometimes), and bpf_iter_num_destroy() (mostly: else a leak); the iterator's slot is mostly
 * apart from the other snippets' stack. */
static void snip_iter(struct gen *g)
{
	int off = chance(g, 90) ? -8 * (int)(11 + rnd(g, 4)) : stack_off(g, 3);
	bool bits = kf(KF_BITS_NEW) && chance(g, 30);
	int k_next = bits ? KF_BITS_NEXT : KF_ITER_NEXT;
	unsigned int head, j = 0;
	bool check = chance(g, 92);

	if (!kf(KF_ITER_NEW) || g->depth > 1)
		return;
	emit(g, BPF_MOV64_REG(1, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 1, off));
	if (bits) {
		if (chance(g, 75)) {
			emit(g, BPF_MOV64_REG(2, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, 2, -8 * (int)(1 + rnd(g, 8))));
		} else if (chance(g, 50)) {
			emit(g, BPF_MOV64_REG(2, sreg(g)));
		}
		emit(g, BPF_MOV64_IMM(3, chance(g, 90) ? (int32_t)rnd(g, 3) : interesting(g)));
		kcall(g, KF_BITS_NEW);
	} else {
		emit(g, BPF_MOV64_IMM(2, chance(g, 80) ? (int32_t)rnd(g, 4) : interesting(g)));
		if (chance(g, 85)) {
			emit(g, BPF_MOV64_IMM(3, (int32_t)rnd(g, 8)));
		} else {
			emit(g, BPF_MOV64_REG(3, sreg(g)));
			emit(g, BPF_ALU64_IMM(BPF_AND, 3, mask_of(g)));
		}
		kcall(g, KF_ITER_NEW);
	}
	head = g->n;
	emit(g, BPF_MOV64_REG(1, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 1, chance(g, 97) ? off : stack_off(g, 3)));
	kcall(g, k_next);
	if (check) {
		j = g->n;
		emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, 0));
	}
	switch (rnd(g, 3)) {
	case 0: /* the number, into a scalar register */
		emit(g, BPF_LDX_MEM(BPF_W, sreg(g), 0, chance(g, 90) ? 0 : (int)rnd(g, 8) - 2));
		break;
	case 1: /* as an index into the stack */
		emit(g, BPF_LDX_MEM(BPF_W, 1, 0, 0));
		if (chance(g, 80))
			emit(g, BPF_ALU64_IMM(BPF_AND, 1, mask_of(g)));
		emit(g, BPF_MOV64_REG(2, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 2, -64));
		emit(g, BPF_ALU64_REG(BPF_ADD, 2, 1));
		mem_access(g, 2, 0, (int)rnd(g, 4));
		break;
	default:
		mem_access(g, 0, chance(g, 90) ? 0 : (int)rnd(g, 6), (int)rnd(g, 3));
		break;
	}
	if (chance(g, 30)) {
		g->depth++;
		snippet(g);
		g->depth--;
	}
	emit(g, BPF_JMP_IMM(BPF_JA, 0, 0, 0));
	g->in[g->n - 1].off = (int16_t)((int)head - (int)g->n);
	if (check)
		patch(g, j);
	if (chance(g, 94)) {
		emit(g, BPF_MOV64_REG(1, 10));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, chance(g, 97) ? off : stack_off(g, 3)));
		kcall(g, bits ? KF_BITS_DESTROY : KF_ITER_DESTROY);
	}
}

/* An RCU read section, or a region with preemption off (nested, sometimes), around a snippet;
 * its end sometimes skipped on one branch, or missing: the kernel's verdicts on what may not be
 * inside (an exit, a tail call, LD_ABS) and on unmatched ends. */
static void snip_region(struct gen *g)
{
	bool rcu = chance(g, 50), nested = !rcu && chance(g, 20), branch = chance(g, 10);
	int on = rcu ? KF_RCU_LOCK : KF_PREEMPT_OFF, off = rcu ? KF_RCU_UNLOCK : KF_PREEMPT_ON;
	unsigned int j = 0;

	if (!kf(on) || g->depth > 1)
		return;
	kcall(g, on);
	if (nested)
		kcall(g, on);
	g->depth++;
	snippet(g);
	g->depth--;
	if (branch) {
		j = g->n;
		emit(g, BPF_JMP_IMM(BPF_JEQ, sreg(g), 0, 0));
	}
	if (chance(g, 97))
		kcall(g, off);
	if (branch)
		patch(g, j);
	if (nested)
		kcall(g, off);
}

/* A string kfunc (bpf_strlen(), bpf_strcmp(), bpf_strnchr()): a string is whatever its register
 * holds (a scalar, a pointer, nothing written), or the stack, written or not; the kfunc must
 * read it without faulting, and its result is a scalar, sometimes kept. */
static void snip_str(struct gen *g)
{
	int k = KF_STRLEN + (int)rnd(g, 3);

	if (!kf(k))
		return;
	for (int r = 1; r <= (k == KF_STRCMP ? 2 : 1); r++) {
		if (chance(g, 60)) {
			emit(g, BPF_MOV64_REG(r, 10));
			emit(g, BPF_ALU64_IMM(BPF_ADD, r, stack_off(g, 1)));
		} else if (chance(g, 30)) {
			emit(g, BPF_MOV64_REG(r, sreg(g)));
		}
	}
	if (k == KF_STRNCHR) {
		emit(g, BPF_MOV64_IMM(2, chance(g, 70) ? (int32_t)rnd(g, 64) : interesting(g)));
		emit(g, BPF_MOV64_IMM(3, chance(g, 50) ? 0 : interesting(g)));
	}
	kcall(g, k);
	if (chance(g, 50))
		emit(g, BPF_MOV64_REG(sreg(g), 0));
}

/* A socket lookup (tc, XDP and cgroup skb programs; the ctx in r6) of a tuple on the stack,
 * NULL-checked (mostly), a field read (any offset), and a release (mostly: else a leak).  The
 * reference it acquires must be released on every path, whatever the snippets around do. */
static void snip_sock(struct gen *g)
{
	static const int fns[] = { BPF_FUNC_sk_lookup_tcp, BPF_FUNC_sk_lookup_udp,
				   BPF_FUNC_skc_lookup_tcp };
	bool check = chance(g, 90), read = chance(g, 60), release = chance(g, 90);
	int off = chance(g, 80) ? 4 * (int)rnd(g, 20) : (int)rnd(g, 88);

	emit(g, BPF_MOV64_REG(1, 6));
	emit(g, BPF_MOV64_REG(2, 10));
	emit(g, BPF_ALU64_IMM(BPF_ADD, 2, chance(g, 70) ? -16 : -40));
	emit(g, BPF_MOV64_IMM(3, chance(g, 70) ? 12 : 36));
	emit(g, BPF_MOV64_IMM(4, -1));
	emit(g, BPF_MOV64_IMM(5, 0));
	emit(g, BPF_EMIT_CALL(fns[rnd(g, 3)]));
	if (check)
		emit(g, BPF_JMP_IMM(BPF_JEQ, 0, 0, (read ? 1 : 0) + (release ? 2 : 0)));
	if (read)
		emit(g, BPF_LDX_MEM(sizes[rnd(g, 3)], sreg(g), 0, (int16_t)off));
	if (release) {
		emit(g, BPF_MOV64_REG(1, 0));
		emit(g, BPF_EMIT_CALL(BPF_FUNC_sk_release));
	}
}

/* Offsets in the kernel's task_struct of the fields snip_task() reads ([0] pid, [1] tgid,
 * [2] real_parent, [3] group_leader), -1 each without the kernel's BTF. */
static const long *task_offsets(void)
{
	static long off[4] = { -2 };

	if (off[0] == -2) {
		static const char *const names[4] = { "pid", "tgid", "real_parent",
						      "group_leader" };
		const struct btf *btf = btf_vmlinux();
		uint32_t task = btf ? btf_vmlinux_task_struct() : 0;

		for (int i = 0; i < 4; i++)
			off[i] = task ? btf_member_offset(btf, task, names[i]) : -1;
	}
	return off;
}

/* The current task's ids read directly (probe loads, which the JIT checks once per run of them
 * through one pointer): its pid and tgid (whole, or a byte or half of one, sign-extending now
 * and then), then maybe those of its parent or group leader, into registers later snippets
 * read; the task kept in r0 or in one of r7..r9 (which a helper call in between leaves alone).
 * Only fields userbpf's tasks hold as the kernel's do, so values agree. */
static void snip_task(struct gen *g)
{
	const long *off = task_offsets();
	int t = chance(g, 60) ? 0 : 7 + (int)rnd(g, 3), n = 1 + (int)rnd(g, 4);

	if (off[0] < 0 || off[1] < 0 || off[2] < 0 || off[3] < 0) {
		snip_helper(g);
		return;
	}
	emit(g, BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf));
	if (t)
		emit(g, BPF_MOV64_REG(t, 0));
	for (int i = 0; i < n; i++) {
		int dst = sreg(g), sz = chance(g, 70) ? 2 : (int)rnd(g, 2);
		int part = sz == 2 ? 0 : sz == 1 ? 2 * (int)rnd(g, 2) : (int)rnd(g, 4);
		int16_t at = (int16_t)(off[rnd(g, 2)] + part);

		if (dst == t && i + 1 < n)
			dst = (t + 1 - 7) % 3 + 7; /* (the last load may replace the task) */
		/* a whole id, or a byte or half of one; sign-extending now and then */
		if (chance(g, 15))
			emit(g, BPF_RAW_INSN(BPF_LDX | BPF_MEMSX | sizes[sz], dst, t, at, 0));
		else
			emit(g, BPF_LDX_MEM(sizes[sz], dst, t, at));
	}
	if (chance(g, 50)) {
		int rel = chance(g, 70) ? 2 : 3, p = chance(g, 50) ? t : 1 + (int)rnd(g, 5);

		if (p == t && t == 0)
			p = 1;
		emit(g, BPF_LDX_MEM(BPF_DW, p, t, (int16_t)off[rel]));
		emit(g, BPF_LDX_MEM(BPF_W, sreg(g), p, (int16_t)off[rnd(g, 2)]));
		if (chance(g, 50))
			emit(g, BPF_LDX_MEM(BPF_W, sreg(g), p, (int16_t)off[rnd(g, 2)]));
	}
}

/* A packet pointer kept in r7..r9 (bounds-checked, mostly), a helper that may move or resize
 * the packet (mostly; each type's own, the others refused), maybe the pointers loaded and
 * checked again, then an access through the kept register: which the verifier must refuse
 * unless it was reloaded.  The register stays as it is for later snippets (snip_saved()). */
static void snip_pkt_move(struct gen *g)
{
	int keep = 7 + (int)rnd(g, 3), k = 1 + (int)rnd(g, 32), sz = (int)rnd(g, 4);
	bool check = chance(g, 90), reload = chance(g, 35);
	unsigned int j[2], nj = 0;

	if (g->type == BPF_PROG_TYPE_SOCKET_FILTER && chance(g, 90)) {
		snip_ld_abs(g);
		return;
	}
	for (int pass = 0; pass < (reload ? 2 : 1); pass++) {
		emit(g, BPF_LDX_MEM(BPF_W, 2, 6, ctx_data_off(g, 0)));
		emit(g, BPF_LDX_MEM(BPF_W, 3, 6, ctx_data_off(g, 1)));
		emit(g, BPF_MOV64_REG(keep, 2));
		emit(g, BPF_MOV64_REG(4, 2));
		emit(g, BPF_ALU64_IMM(BPF_ADD, 4, k));
		if (check) {
			j[nj++] = g->n;
			emit(g, BPF_JMP_REG(BPF_JGT, 4, 3, 0));
		}
		if (pass == 1 || !chance(g, 85))
			continue;
		emit(g, BPF_MOV64_REG(1, 6));
		if (g->type == BPF_PROG_TYPE_XDP) {
			static const int fns[] = { BPF_FUNC_xdp_adjust_head, BPF_FUNC_xdp_adjust_tail,
						   BPF_FUNC_xdp_adjust_meta };
			int fn = fns[rnd(g, 3)];

			emit(g, BPF_MOV64_IMM(2, chance(g, 80) ? (int)rnd(g, 49) - 32 : interesting(g)));
			emit(g, BPF_EMIT_CALL(fn));
		} else {
			static const int fns[] = { BPF_FUNC_skb_pull_data, BPF_FUNC_skb_change_tail,
						   BPF_FUNC_skb_change_head, BPF_FUNC_skb_vlan_pop };
			int fn = fns[rnd(g, 4)];

			emit(g, BPF_MOV64_IMM(2, chance(g, 85) ? (int)rnd(g, 100) : interesting(g)));
			emit(g, BPF_MOV64_IMM(3, 0));
			emit(g, BPF_EMIT_CALL(fn));
		}
		if (chance(g, 30))
			emit(g, BPF_MOV64_REG(sreg(g), 0));
	}
	mem_access(g, keep, chance(g, 85) ? (int)rnd(g, (uint32_t)k) & ~(size_bytes[sz] - 1)
					  : (int)rnd(g, 40) - 4, sz);
	for (unsigned int i = 0; i < nj; i++)
		patch(g, j[i]);
}

/* An access through r7..r9, whatever a snippet left there: a map value, a packet pointer (maybe
 * since forgotten by a helper or a callee that moved the packet), ctx, a scalar. */
static void snip_saved(struct gen *g)
{
	int sz = (int)rnd(g, 4);

	mem_access(g, 7 + (int)rnd(g, 3), chance(g, 80) ? 8 * (int)rnd(g, 2) : (int)rnd(g, 24),
		   sz);
}

static void snip_ptr(struct gen *g)
{
	int base = chance(g, 50) ? 6 : 10;

	emit(g, BPF_MOV64_REG(1, base));
	if (chance(g, 50))
		emit(g, BPF_ALU64_IMM(BPF_ADD, 1, interesting(g)));
	else
		emit(g, BPF_ALU64_REG(BPF_ADD, 1, sreg(g)));
	emit(g, BPF_LDX_MEM(sizes[rnd(g, 4)], sreg(g), 1, base == 10 ? -8 : 0));
}

/* Subprogram-only: accesses through the argument r1 (a caller's stack pointer, or not). */
static void snip_arg(struct gen *g)
{
	int sz = (int)rnd(g, 4);

	mem_access(g, 1, -8 * (int)rnd(g, 4) + (chance(g, 90) ? 0 : (int)rnd(g, 8)), sz);
}

/* ISA v4 and the rarer atomics: sign-extending moves and loads, signed division, byte swaps,
 * and/or/xor/xchg/cmpxchg on a stack slot (written first, so the slot is initialised). */
static void snip_v4(struct gen *g)
{
	int dst = sreg(g);

	switch (rnd(g, 5)) {
	case 0: { /* movsx: 64-bit from 8, 16, 32 bits; 32-bit from 8, 16 */
		bool alu64 = chance(g, 70);
		static const int16_t w[] = { 8, 16, 32 };

		emit(g, BPF_RAW_INSN((alu64 ? BPF_ALU64 : BPF_ALU) | BPF_MOV | BPF_X, dst, sreg(g),
				     w[rnd(g, alu64 ? 3 : 2)], 0));
		break;
	}
	case 1: { /* ldsx from the stack */
		int sz = (int)rnd(g, 3), off = -8 * (1 + (int)rnd(g, 8));
		int code = BPF_LDX | BPF_MEMSX | (sz == 0 ? BPF_W : sz == 1 ? BPF_H : BPF_B);

		emit(g, BPF_STX_MEM(BPF_DW, 10, sreg(g), off));
		off += chance(g, 80) ? 0 : (int)rnd(g, 8);
		emit(g, BPF_RAW_INSN(code, dst, 10, (int16_t)off, 0));
		break;
	}
	case 2: { /* sdiv / smod, by a constant or a register */
		int cls = chance(g, 70) ? BPF_ALU64 : BPF_ALU;
		int op = chance(g, 50) ? BPF_DIV : BPF_MOD;

		if (chance(g, 50))
			emit(g, BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 1, interesting(g) ?: -1));
		else
			emit(g, BPF_RAW_INSN(cls | op | BPF_X, dst, sreg(g), 1, 0));
		break;
	}
	case 3: { /* bswap (ALU64 | END) and to_be / to_le (ALU | END) */
		static const int32_t w[] = { 16, 32, 64 };

		int code = chance(g, 50) ? BPF_ALU64 | BPF_END | BPF_TO_LE
			   : BPF_ALU | BPF_END | (chance(g, 50) ? BPF_TO_BE : BPF_TO_LE);

		emit(g, BPF_RAW_INSN(code, dst, 0, 0, w[rnd(g, 3)]));
		break;
	}
	default: { /* an atomic on a written stack slot */
		static const int ops[] = { BPF_AND, BPF_OR, BPF_XOR, BPF_AND | BPF_FETCH,
					   BPF_OR | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG,
					   BPF_CMPXCHG };
		int off = -8 * (1 + (int)rnd(g, 8)), sz = chance(g, 60) ? BPF_DW : BPF_W;

		emit(g, BPF_STX_MEM(BPF_DW, 10, sreg(g), off));
		if (chance(g, 50))
			emit(g, BPF_MOV64_REG(0, sreg(g)));
		off += sz == BPF_W && chance(g, 50) ? 4 : 0;
		emit(g, BPF_ATOMIC_OP(sz, ops[rnd(g, 8)], 10, dst, off));
		break;
	}
	}
}

/* The callback's snippets: no packet or ctx (its r1 is not the context), its own stack, its ctx
 * argument, maps, branches, loops and calls. */
static void cb_snippet(struct gen *g)
{
	switch (rnd(g, 10)) {
	case 0:
		snip_scalar(g);
		break;
	case 1: case 2:
		snip_alu(g);
		break;
	case 3:
		snip_stack(g);
		break;
	case 4:
		snip_map(g);
		break;
	case 5: case 6:
		snip_cb_ctx(g);
		break;
	case 7:
		snip_branch(g);
		break;
	case 8:
		snip_loop(g);
		break;
	default:
		snip_call(g);
		break;
	}
}

static void snippet(struct gen *g)
{
	if (g->n + ROOM > GEN_MAX_INSNS - 16 || g->depth > 3)
		return;
	if (g->cb) {
		cb_snippet(g);
		return;
	}
	switch (rnd(g, 20)) {
	case 0: case 1:
		snip_scalar(g);
		break;
	case 2: case 3: case 4:
		snip_alu(g);
		break;
	case 5: case 6:
		snip_stack(g);
		break;
	case 7:
		snip_var_stack(g);
		break;
	case 8: case 9:
		snip_map(g);
		break;
	case 10: {
		uint32_t r = rnd(g, 100);

		if (r < 40)
			snip_map_value(g);
		else if (r < 75)
			snip_ringbuf(g);
		else
			snip_lock(g);
		break;
	}
	case 11: case 12: case 13:
		if (g->sub && !g->global && chance(g, 80))
			snip_arg(g);
		else if (chance(g, 25))
			snip_pkt_move(g);
		else if ((!g->sub || g->global) && g->type != BPF_PROG_TYPE_SOCKET_FILTER &&
			 chance(g, 20))
			snip_pkt_loop(g);
		else if (!g->sub || g->global)
			snip_pkt(g);
		else
			snip_saved(g);
		break;
	case 14: case 15:
		snip_branch(g);
		break;
	case 16:
		snip_loop(g);
		break;
	case 17: {
		uint32_t r = rnd(g, 100);

		if (r < 25)
			snip_callback(g);
		else if (r < 45)
			snip_tail_call(g);
		else
			snip_call(g);
		break;
	}
	case 18:
		if (g->type != BPF_PROG_TYPE_SOCKET_FILTER && chance(g, 40))
			snip_sock(g);
		else if (chance(g, 45))
			snip_dynptr(g);
		else if (chance(g, 25))
			snip_iter(g);
		else if (chance(g, 20))
			snip_str(g);
		else if (chance(g, 15))
			snip_region(g);
		else if (chance(g, 30))
			snip_task(g);
		else
			snip_helper(g);
		break;
	case 19:
		if (chance(g, 50)) {
			snip_v4(g);
			break;
		}
		/* fall through */
	default:
		if (chance(g, 30))
			snip_ptr(g);
		else if (chance(g, 15))
			snip_saved(g);
		else
			snip_alu(g);
		break;
	}
}

/* Nudges one field of one instruction (not an LD_IMM64, whose imm names a map). */
static void mutate(struct gen *g)
{
	unsigned int i = rnd(g, g->n);
	struct bpf_insn *in = &g->in[i];
	int cls = BPF_CLASS(in->code);

	if (in->code == (BPF_LD | BPF_DW | BPF_IMM) ||
	    (i && g->in[i - 1].code == (BPF_LD | BPF_DW | BPF_IMM)))
		return;
	switch (rnd(g, 3)) {
	case 0:
		if (cls == BPF_LDX || cls == BPF_ST || cls == BPF_STX)
			in->off += (int16_t)((int)rnd(g, 17) - 8);
		break;
	case 1:
		if ((cls == BPF_ALU64 || cls == BPF_ALU || cls == BPF_JMP) && BPF_SRC(in->code) == BPF_K &&
		    BPF_OP(in->code) != BPF_CALL && BPF_OP(in->code) != BPF_EXIT)
			/* wrap, as the instruction field would: imm may be INT32_MIN */
			in->imm = (int32_t)((uint32_t)in->imm + (uint32_t)((int32_t)rnd(g, 5) - 2));
		break;
	default:
		if ((cls == BPF_LDX || cls == BPF_ST || cls == BPF_STX) &&
		    BPF_MODE(in->code) == BPF_MEM)
			in->code = (uint8_t)((in->code & ~0x18) | sizes[rnd(g, 4)]);
		break;
	}
}

unsigned int gen_program(struct gen_src *s, struct bpf_insn *insns, uint32_t *type)
{
	struct gen g = { .s = s, .in = insns };

	g.type = chance(&g, 85) ? gen_types[rnd(&g, GEN_NRUN)]
				: gen_types[GEN_NRUN + rnd(&g, GEN_NTYPES - GEN_NRUN)];
	*type = g.type;
	if (chance(&g, 95))
		emit(&g, BPF_MOV64_REG(6, 1));
	for (int r = 7; r <= 9; r++)
		if (chance(&g, 92))
			emit(&g, BPF_MOV64_IMM(r, interesting(&g)));
	for (int k = 0, n = 1 + (int)rnd(&g, 8); k < n; k++)
		snippet(&g);
	/* (a cgroup skb program's verdict is 0 or 1: mostly one of those) */
	emit(&g, chance(&g, 70) ? BPF_MOV64_IMM(0, (int32_t)rnd(&g, g.type ==
								BPF_PROG_TYPE_CGROUP_SKB ? 2 : 4))
				: BPF_MOV64_REG(0, sreg(&g)));
	emit(&g, BPF_EXIT_INSN());
	if (g.ncb) {
		unsigned int start = g.n;

		/* the callback: ctx in r6 (bpf_loop's r2, for_each's r4), r7..r9 set, and for
		 * for_each a read of the key and an access to the value first */
		g.cb = true;
		emit(&g, BPF_MOV64_REG(6, g.cb_helper == BPF_FUNC_loop ? 2 : 4));
		for (int r = 7; r <= 9; r++)
			if (chance(&g, 90))
				emit(&g, BPF_MOV64_IMM(r, interesting(&g)));
		if (g.cb_helper != BPF_FUNC_loop) {
			emit(&g, BPF_LDX_MEM(BPF_W, 7, 2, chance(&g, 95) ? 0 : 4));
			mem_access(&g, 3, chance(&g, 90) ? 8 * (int)rnd(&g, 2) : GEN_HASH_VALUE,
				   (int)rnd(&g, 4));
		}
		for (int k = 0, n = 1 + (int)rnd(&g, 4); k < n; k++)
			snippet(&g);
		if (chance(&g, 92))
			emit(&g, BPF_MOV64_IMM(0, (int32_t)rnd(&g, 2)));
		else
			emit(&g, BPF_MOV64_REG(0, sreg(&g)));
		emit(&g, BPF_EXIT_INSN());
		g.cb = false;
		for (unsigned int c = 0; c < g.ncb; c++)
			g.in[g.cbs[c]].imm = (int32_t)(start - g.cbs[c] - 1);
	}
	if (g.ncalls) {
		unsigned int start = g.n;

		g.sub = true;
		/* A global function (verified on its own, with r1 the ctx its BTF prototype
		 * declares, whatever the caller passes, which must be ctx): load_log() gives the
		 * function starting with this marker a global prototype. */
		g.global = chance(&g, 35);
		if (g.global)
			emit(&g, BPF_JMP_A(0));
		if (chance(&g, 90))
			emit(&g, BPF_MOV64_IMM(0, 0));
		/* the argument kept in r6, for a tail call or packet access (when it is ctx) */
		if (chance(&g, g.global ? 95 : 80))
			emit(&g, BPF_MOV64_REG(6, 1));
		for (int r = 7; r <= 9; r++)
			if (chance(&g, 60))
				emit(&g, BPF_MOV64_IMM(r, interesting(&g)));
		for (int k = 0, n = 1 + (int)rnd(&g, 4); k < n; k++)
			snippet(&g);
		if (chance(&g, 50))
			emit(&g, BPF_MOV64_REG(0, sreg(&g)));
		emit(&g, BPF_EXIT_INSN());
		for (unsigned int c = 0; c < g.ncalls; c++)
			g.in[g.calls[c]].imm = (int32_t)(start - g.calls[c] - 1);
	}
	if (chance(&g, 35))
		mutate(&g);
	return g.n;
}

void gen_patch_maps(const struct bpf_insn *in, unsigned int cnt, struct bpf_insn *out,
		    const struct gen_maps *m)
{
	memcpy(out, in, cnt * sizeof(*in));
	for (unsigned int i = 0; i < cnt; i++) {
		if (out[i].code != (BPF_LD | BPF_DW | BPF_IMM) ||
		    (out[i].src_reg != BPF_PSEUDO_MAP_FD && out[i].src_reg != BPF_PSEUDO_MAP_VALUE))
			continue;
		if (out[i].imm == GEN_MAP_ARRAY)
			out[i].imm = m->array;
		else if (out[i].imm == GEN_MAP_HASH)
			out[i].imm = m->hash;
		else if (out[i].imm == GEN_MAP_RINGBUF)
			out[i].imm = m->ringbuf;
		else if (out[i].imm == GEN_MAP_ARRAY1)
			out[i].imm = m->array1;
		else if (out[i].imm == GEN_MAP_LOCK)
			out[i].imm = m->lock;
		else if (out[i].imm >= GEN_MAP_PROG_ARRAY &&
			 out[i].imm < GEN_MAP_PROG_ARRAY + GEN_NTYPES)
			out[i].imm = m->progs[out[i].imm - GEN_MAP_PROG_ARRAY];
	}
}

void gen_print(FILE *f, const struct bpf_insn *insns, unsigned int cnt)
{
	fprintf(f, "static const struct bpf_insn prog[%u] = {\n", cnt);
	for (unsigned int i = 0; i < cnt; i++)
		fprintf(f, "\tBPF_RAW_INSN(0x%02x, %u, %u, %d, %d), /* %u */\n", insns[i].code,
			insns[i].dst_reg, insns[i].src_reg, insns[i].off, insns[i].imm, i);
	fprintf(f, "};\n");
}

/* ---- the driver ---- */

static int kbpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

typedef int (*bpf_fn)(int cmd, union bpf_attr *attr, unsigned int size);

static int map_create(bpf_fn call, uint32_t type, uint32_t vs, uint32_t n)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = type == BPF_MAP_TYPE_RINGBUF ? 0 : 4;
	a.value_size = vs;
	a.max_entries = n;
	return call(BPF_MAP_CREATE, &a, sizeof(a));
}

/* Every fd of m (-1 for none). */
static int *gen_maps_fds(struct gen_maps *m, unsigned int *n)
{
	_Static_assert(offsetof(struct gen_maps, progs) == 5 * sizeof(int) &&
			       sizeof(struct gen_maps) == (5 + GEN_NTYPES) * sizeof(int),
		       "struct gen_maps is an array of fds");
	*n = sizeof(*m) / sizeof(int);
	return &m->array;
}

static void gen_maps_close(struct gen_maps *m)
{
	unsigned int n;
	int *fd = gen_maps_fds(m, &n);

	for (unsigned int k = 0; k < n; k++) {
		if (fd[k] >= 0)
			close(fd[k]);
		fd[k] = -1;
	}
}

static int funcs_btf(bpf_fn call);
#define BTF_LOCK_VALUE 17 /* the lock map's value type in funcs_btf() */

/* The lock map: its value type from BTF, as a bpf_spin_lock requires. */
static int lock_map_create(bpf_fn call)
{
	union bpf_attr a;
	int btf = funcs_btf(call);

	if (btf < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = GEN_LOCK_VALUE;
	a.max_entries = GEN_LOCK_ENTRIES;
	a.btf_fd = (uint32_t)btf;
	a.btf_key_type_id = 1;
	a.btf_value_type_id = BTF_LOCK_VALUE;
	return call(BPF_MAP_CREATE, &a, sizeof(a));
}

/* The maps on one side: 0, or -1 (none left open) if one cannot be made. */
static int gen_maps_create(bpf_fn call, struct gen_maps *m)
{
	m->array = map_create(call, BPF_MAP_TYPE_ARRAY, GEN_ARRAY_VALUE, GEN_ARRAY_ENTRIES);
	m->hash = map_create(call, BPF_MAP_TYPE_HASH, GEN_HASH_VALUE, GEN_HASH_ENTRIES);
	m->ringbuf = map_create(call, BPF_MAP_TYPE_RINGBUF, 0, GEN_RINGBUF_SIZE);
	m->array1 = map_create(call, BPF_MAP_TYPE_ARRAY, GEN_ARRAY_VALUE, 1);
	m->lock = lock_map_create(call);
	for (int k = 0; k < GEN_NTYPES; k++)
		m->progs[k] = map_create(call, BPF_MAP_TYPE_PROG_ARRAY, 4, GEN_PROG_ARRAY_ENTRIES);

	unsigned int n;
	int *fd = gen_maps_fds(m, &n);

	for (unsigned int k = 0; k < n; k++) {
		if (fd[k] < 0) {
			gen_maps_close(m);
			return -1;
		}
	}
	return 0;
}

/* The BTF of func info (a callback must be a static function): 1 int, 2 int (void), 3 f0 global
 * (main), 4.. f1, f2, f3 static; global functions taking the ctx: 7 struct __sk_buff,
 * 8 struct xdp_md, 9, 10 pointers to them, 11, 12 int (ctx *), 13 g_skb, 14 g_xdp; and the lock
 * map's value: 15 struct bpf_spin_lock, 16 long, 17 struct lockval. */
#define FUNC_GLOBAL_SKB 13
#define FUNC_GLOBAL_XDP 14
static int funcs_btf(bpf_fn call)
{
	static const char strs[] = "\0int\0f0\0f1\0f2\0f3\0__sk_buff\0xdp_md\0ctx\0g_skb\0g_xdp"
				   "\0bpf_spin_lock\0val\0lockval\0a\0lock\0b\0long\0c";
	static const uint32_t types[] = {
		T_INT(1, 4, BTF_INT_SIGNED, 0, 32), T_PROTO(1, 0), T_FUNC(5, 2, BTF_FUNC_GLOBAL),
		T_FUNC(8, 2, BTF_FUNC_STATIC), T_FUNC(11, 2, BTF_FUNC_STATIC),
		T_FUNC(14, 2, BTF_FUNC_STATIC),
		T_STRUCT(17, 0, sizeof(struct __sk_buff)), T_STRUCT(27, 0, sizeof(struct xdp_md)),
		T_PTR(7), T_PTR(8),
		T_PROTO(1, 1), T_PARAM(34, 9), T_PROTO(1, 1), T_PARAM(34, 10),
		T_FUNC(38, 11, BTF_FUNC_GLOBAL), T_FUNC(44, 12, BTF_FUNC_GLOBAL),
		T_STRUCT(50, 1, 4), T_MEMBER(64, 1, 0), T_INT(85, 8, BTF_INT_SIGNED, 0, 64),
		T_STRUCT(68, 4, GEN_LOCK_VALUE), T_MEMBER(76, 1, 0), T_MEMBER(78, 15, 8 * GEN_LOCK_OFF),
		T_MEMBER(83, 16, 64), T_MEMBER(90, 16, 128),
	};
	static int fd[2] = { -1, -1 };
	int side = call == bpf;

	if (fd[side] < 0) {
		struct blob b = btf_blob(types, sizeof(types) / 4, strs, sizeof(strs));
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.btf = (uintptr_t)b.data;
		a.btf_size = b.size;
		fd[side] = call(BPF_BTF_LOAD, &a, sizeof(a));
		free(b.data);
	}
	return fd[side];
}

/* Whether in is a call of helper id. */
static bool is_helper_call(const struct bpf_insn *in, int32_t id)
{
	return in->code == (BPF_JMP | BPF_CALL) && !in->src_reg && in->imm == id;
}

/* Whether the bpf-to-bpf call at i goes to a function that starts with the global marker. */
static bool is_global(const struct bpf_insn *insns, unsigned int cnt, unsigned int i)
{
	int64_t t = (int64_t)i + 1 + insns[i].imm;

	return t > 0 && t < cnt && insns[t].code == (BPF_JMP | BPF_JA) && !insns[t].off;
}

/* BPF_PROG_LOAD; a log of level 1 into log (size bytes) when log is not NULL. */
static int load_log(bpf_fn call, const struct bpf_insn *insns, unsigned int cnt, uint32_t type,
		    char *log, uint32_t size, uint32_t level)
{
	struct bpf_func_info fi[4] = { { 0, 3 } };
	union bpf_attr a;
	bool funcs = false;
	uint32_t n = 1;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	/* with a callback: func_info, one record per function start, in order; with a tail call,
	 * for most programs (by length), as the rules for one in a subprogram depend on it (without
	 * func info it is refused there) */
	for (unsigned int i = 0; i < cnt; i++)
		funcs |= (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			  insns[i].src_reg == BPF_PSEUDO_FUNC) ||
			 (insns[i].code == (BPF_JMP | BPF_CALL) &&
			  insns[i].src_reg == BPF_PSEUDO_CALL && is_global(insns, cnt, i)) ||
			 (is_helper_call(&insns[i], BPF_FUNC_tail_call) && cnt % 7 != 0);
	for (unsigned int i = 0; funcs && i < cnt; i++) {
		int64_t t = (int64_t)i + 1 + insns[i].imm;
		bool to_func = (insns[i].code == (BPF_JMP | BPF_CALL) &&
				insns[i].src_reg == BPF_PSEUDO_CALL) ||
			       (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
				insns[i].src_reg == BPF_PSEUDO_FUNC);
		uint32_t j;

		if (!to_func || t <= 0 || t >= cnt)
			continue;
		for (j = 0; j < n && fi[j].insn_off != (uint32_t)t; j++)
			;
		if (j < n || n == 4)
			continue;
		for (j = n++; j > 0 && fi[j - 1].insn_off > (uint32_t)t; j--)
			fi[j] = fi[j - 1];
		fi[j].insn_off = (uint32_t)t;
	}
	if (funcs) {
		for (uint32_t j = 0; j < n; j++) {
			const struct bpf_insn *f = &insns[fi[j].insn_off];

			fi[j].type_id = 3 + j;
			if (j && f->code == (BPF_JMP | BPF_JA) && !f->off)
				fi[j].type_id = type == BPF_PROG_TYPE_XDP ? FUNC_GLOBAL_XDP
									  : FUNC_GLOBAL_SKB;
		}
		a.prog_btf_fd = (uint32_t)funcs_btf(call);
		a.func_info_rec_size = sizeof(fi[0]);
		a.func_info = (uintptr_t)fi;
		a.func_info_cnt = n;
	}
	if (log) {
		log[0] = 0;
		a.log_buf = (uintptr_t)log;
		a.log_size = size;
		a.log_level = level;
	}
	return call(BPF_PROG_LOAD, &a, sizeof(a));
}

static int load(bpf_fn call, const struct bpf_insn *insns, unsigned int cnt, uint32_t type)
{
	return load_log(call, insns, cnt, type, NULL, 0, 0);
}

static void map_elem(int fd, int cmd, uint32_t key, const void *val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	bpf(cmd, &a, sizeof(a));
}

static void fill_maps(struct gen_src *s, const struct gen_maps *m)
{
	int array_fd = m->array, hash_fd = m->hash;

	uint8_t v[GEN_ARRAY_VALUE];

	for (uint32_t k = 0; k < GEN_ARRAY_ENTRIES; k++) {
		for (size_t i = 0; i < sizeof(v); i++)
			v[i] = (uint8_t)gen_rand(s);
		map_elem(array_fd, BPF_MAP_UPDATE_ELEM, k, v);
	}
	for (size_t i = 0; i < sizeof(v); i++)
		v[i] = (uint8_t)gen_rand(s);
	map_elem(m->array1, BPF_MAP_UPDATE_ELEM, 0, v);
	/* (an update leaves the lock word alone) */
	for (uint32_t k = 0; k < GEN_LOCK_ENTRIES; k++) {
		for (size_t i = 0; i < GEN_LOCK_VALUE; i++)
			v[i] = (uint8_t)gen_rand(s);
		map_elem(m->lock, BPF_MAP_UPDATE_ELEM, k, v);
	}
	for (uint32_t k = 0; k < 6; k++) {
		for (size_t i = 0; i < GEN_HASH_VALUE; i++)
			v[i] = (uint8_t)gen_rand(s);
		map_elem(hash_fd, gen_rand(s) & 1 ? BPF_MAP_UPDATE_ELEM : BPF_MAP_DELETE_ELEM, k, v);
	}
}

static void report_violation(FILE *f, const struct prog_check_result *r, uint32_t type,
			     const struct bpf_insn *insns, unsigned int cnt)
{
	if (!f)
		return;
	fprintf(f, "VIOLATION prog_type %u insn %d: %s (addr 0x%llx size %u)\n", type, r->v.insn,
		r->v.msg, (unsigned long long)r->v.addr, r->v.size);
	gen_print(f, insns, cnt);
}

/* Runs an accepted program on `inputs` random inputs; 1 on a violation. */
static int check_runs(struct gen_src *s, int fd, const struct bpf_insn *insns, unsigned int cnt,
		      uint32_t type, unsigned int inputs, const struct gen_maps *m, FILE *report,
		      struct sound_stats *st)
{
	uint8_t pkt[128];

	for (unsigned int i = 0; i < inputs; i++) {
		struct prog_check_result r;
		uint32_t len = gen_rand(s) % sizeof(pkt);

		for (uint32_t b = 0; b < len; b++)
			pkt[b] = (uint8_t)gen_rand(s);
		fill_maps(s, m);
		if (prog_check_run(fd, pkt, len, 1000000, &r))
			continue;
		if (st)
			st->runs++;
		if (r.err == -EACCES) {
			report_violation(report, &r, type, insns, cnt);
			return 1;
		}
		if (r.err && st)
			st->run_errors++;
	}
	return 0;
}

static struct gen_maps u_maps = GEN_MAPS_NONE;

static int user_maps(void)
{
	return u_maps.array >= 0 ? 0 : gen_maps_create(bpf, &u_maps);
}

int gen_load_user(const struct bpf_insn *insns, unsigned int cnt, uint32_t type)
{
	struct bpf_insn patched[GEN_MAX_INSNS];

	if (cnt > GEN_MAX_INSNS || user_maps())
		return -1;
	gen_patch_maps(insns, cnt, patched, &u_maps);
	return load(bpf, patched, cnt, type);
}

int gen_load_on(int kernel, const struct bpf_insn *insns, unsigned int cnt, uint32_t type,
		char *log, size_t size, uint32_t level)
{
	struct bpf_insn patched[GEN_MAX_INSNS];
	struct gen_maps m;
	int fd;

	if (cnt > GEN_MAX_INSNS || gen_maps_create(kernel ? kbpf : bpf, &m))
		return -1;
	gen_patch_maps(insns, cnt, patched, &m);
	fd = load_log(kernel ? kbpf : bpf, patched, cnt, type, log, size, level);
	gen_maps_close(&m);
	return fd;
}

int sound_check_one(struct gen_src *s, const struct bpf_insn *insns, unsigned int cnt,
		    uint32_t type, unsigned int inputs, FILE *report)
{
	int fd = gen_load_user(insns, cnt, type), v;

	if (fd < 0)
		return -1;
	v = check_runs(s, fd, insns, cnt, type, inputs, &u_maps, report, NULL);
	close(fd);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int sound_run(const struct sound_opts *o, struct sound_stats *st)
{
	struct bpf_insn insns[GEN_MAX_INSNS], patched[GEN_MAX_INSNS];
	struct gen_maps k_maps = GEN_MAPS_NONE;
	double t0 = now();
	bool kernel = o->kernel;
	unsigned int reports = 0;

	memset(st, 0, sizeof(*st));
	if (user_maps())
		return -1;
	if (kernel)
		kernel = !gen_maps_create(kbpf, &k_maps);
	for (uint64_t i = 0;; i++) {
		struct gen_src s = { .state = (o->seed ^ (i * 0x9e3779b97f4a7c15ull)) | 1 };
		uint32_t type;
		unsigned int cnt;
		int fd, kfd = -1;

		if (o->max_progs && i >= o->max_progs)
			break;
		if (o->seconds > 0 && (i & 15) == 0 && now() - t0 >= o->seconds)
			break;
		for (int w = 0; w < 4; w++)
			gen_rand(&s);
		cnt = gen_program(&s, insns, &type);
		st->generated++;
		gen_patch_maps(insns, cnt, patched, &u_maps);
		double ut = now();

		fd = load(bpf, patched, cnt, type);
		/* (and userbpf: one such once walked for hours) */
		if (now() - ut > 2 && o->report)
			fprintf(o->report, "slow in userbpf (%.1f s): seed 0x%llx program %llu\n",
				now() - ut, (unsigned long long)o->seed, (unsigned long long)i);
		/* (a helper the kernel here lacks: userbpf's side is still run checked) */
		if (kernel && calls_helper_kernel_lacks(type, insns, cnt)) {
			st->kernel_skipped++;
		} else if (kernel) {
			double kt = now();

			gen_patch_maps(insns, cnt, patched, &k_maps);
			kfd = load(kbpf, patched, cnt, type);
			/* a program the kernel takes seconds on slows the run: say which */
			if (now() - kt > 2 && o->report)
				fprintf(o->report, "slow in the kernel (%.1f s): seed 0x%llx program %llu\n",
					now() - kt, (unsigned long long)o->seed, (unsigned long long)i);
			st->kernel_compared++;
			st->kernel_accepted += kfd >= 0;
			st->kernel_agree += (fd >= 0) == (kfd >= 0);
			st->ua_kr += fd >= 0 && kfd < 0;
			if (fd >= 0 && kfd < 0 && st->ua_kr <= 5 && o->report)
				fprintf(o->report, "userbpf accepts, kernel rejects: seed 0x%llx program "
					"%llu\n", (unsigned long long)o->seed, (unsigned long long)i);
			st->ur_ka += fd < 0 && kfd >= 0;
			if (fd < 0 && kfd >= 0 && st->ur_ka <= 5 && o->report)
				fprintf(o->report, "userbpf rejects, kernel accepts: seed 0x%llx program "
					"%llu\n", (unsigned long long)o->seed, (unsigned long long)i);
			if (kfd >= 0)
				close(kfd);
		}
		bool cb = false, dyn = false, tc = false, tc_sub = false, past_main = false;
		bool glob = false, move = false, lock = false, kfn = false, iter = false, str = false;
		bool mg = false, task = false;

		for (unsigned int k = 0; k < cnt; k++) {
			cb |= insns[k].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			      insns[k].src_reg == BPF_PSEUDO_FUNC;
			lock |= is_helper_call(&insns[k], BPF_FUNC_spin_lock);
			task |= is_helper_call(&insns[k], BPF_FUNC_get_current_task_btf);
			mg |= insns[k].code == (BPF_JMP | JCOND);
			if (insns[k].code == (BPF_JMP | BPF_CALL) &&
			    insns[k].src_reg == BPF_PSEUDO_KFUNC_CALL) {
				kfn = true;
				iter |= insns[k].imm && (insns[k].imm == kf(KF_ITER_NEW) ||
							 insns[k].imm == kf(KF_BITS_NEW));
				str |= insns[k].imm && (insns[k].imm == kf(KF_STRLEN) ||
							insns[k].imm == kf(KF_STRCMP) ||
							insns[k].imm == kf(KF_STRNCHR));
			}
			dyn |= is_helper_call(&insns[k], BPF_FUNC_dynptr_from_mem) ||
			       is_helper_call(&insns[k], BPF_FUNC_ringbuf_reserve_dynptr);
			if (is_helper_call(&insns[k], BPF_FUNC_tail_call)) {
				tc = true;
				tc_sub |= past_main;
			}
			past_main |= insns[k].code == (BPF_JMP | BPF_EXIT);
			glob |= insns[k].code == (BPF_JMP | BPF_CALL) &&
				insns[k].src_reg == BPF_PSEUDO_CALL && is_global(insns, cnt, k);
			if (insns[k].code == (BPF_JMP | BPF_CALL) && !insns[k].src_reg) {
				const struct bpf_func_proto *fp = bpf_helper_proto((u32)insns[k].imm,
										   type);

				move |= fp && fp->changes_pkt_data;
			}
		}
		st->cb_generated += cb;
		st->dyn_generated += dyn;
		st->tc_generated += tc;
		st->tc_sub_generated += tc_sub;
		st->glob_generated += glob;
		st->move_generated += move;
		st->task_generated += task;
		st->lock_generated += lock;
		st->mg_generated += mg;
		st->kf_generated += kfn;
		st->iter_generated += iter;
		st->str_generated += str;
		if (fd < 0)
			continue;
		st->accepted++;
		st->cb_accepted += cb;
		st->dyn_accepted += dyn;
		st->tc_accepted += tc;
		st->tc_sub_accepted += tc_sub;
		st->glob_accepted += glob;
		st->move_accepted += move;
		st->task_accepted += task;
		st->lock_accepted += lock;
		st->mg_accepted += mg;
		st->kf_accepted += kfn;
		st->iter_accepted += iter;
		st->str_accepted += str;
		jit_counts_of(fd, st);
		if (check_runs(&s, fd, insns, cnt, type, o->inputs, &u_maps,
			       reports < o->max_reports ? o->report : NULL, st)) {
			st->violations++;
			if (reports++ < o->max_reports && o->report)
				fprintf(o->report, "  (seed 0x%llx, program %llu)\n",
					(unsigned long long)o->seed, (unsigned long long)i);
			if (o->save_dir) {
				char path[512];
				FILE *f;

				snprintf(path, sizeof(path), "%s/violation-%llx-%llu.c", o->save_dir,
					 (unsigned long long)o->seed, (unsigned long long)i);
				f = fopen(path, "w");
				if (f) {
					fprintf(f, "/* seed 0x%llx program %llu type %u */\n",
						(unsigned long long)o->seed, (unsigned long long)i,
						type);
					gen_print(f, insns, cnt);
					fclose(f);
				}
			}
		}
		close(fd);
	}
	gen_maps_close(&k_maps);
	return 0;
}

void sound_show(uint64_t seed, uint64_t idx, FILE *f)
{
	struct gen_src s = { .state = (seed ^ (idx * 0x9e3779b97f4a7c15ull)) | 1 };
	struct bpf_insn insns[GEN_MAX_INSNS], patched[GEN_MAX_INSNS];
	static char log[1 << 24];
	bpf_fn sides[2] = { bpf, kbpf };
	uint32_t type;
	unsigned int cnt;

	for (int w = 0; w < 4; w++)
		gen_rand(&s);
	cnt = gen_program(&s, insns, &type);
	fprintf(f, "type %u\n", type);
	gen_print(f, insns, cnt);
	for (int k = 1; k >= 0; k--) { /* (the kernel's first: userbpf's may be the one at fault) */
		struct gen_maps m;
		int fd;

		fflush(f);
		if (gen_maps_create(sides[k], &m))
			continue;
		gen_patch_maps(insns, cnt, patched, &m);
		/* (SOUND_LOG2=fixed: the log's beginning where it overflows, BPF_LOG_FIXED) */
		fd = load_log(sides[k], patched, cnt, type, log, sizeof(log),
			      !getenv("SOUND_LOG2")			? 1
			      : !strcmp(getenv("SOUND_LOG2"), "fixed") ? 2 | 8
									: 2);
		fprintf(f, "=== %s: %s\n%s\n", k ? "kernel" : "userbpf", fd >= 0 ? "ACCEPTED" : strerror(errno), log);
		if (fd >= 0)
			close(fd);
		gen_maps_close(&m);
	}
}
