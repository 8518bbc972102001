/* interp_checked.c — the checked interpreter: interp.c compiled with INTERP_CHECKED, plus the
 * check run before every instruction (see interp_checked.h for what is checked).
 *
 * Algorithm.  chk_step() looks at the decoded record's form (insn_descs()[id]): which registers
 * it reads and writes, and for memory forms the address base + off and the width.  Register
 * initialisation is a bit mask (bit n: rn written on this path) kept in struct chk_state, with
 * one saved mask per call frame: a bpf-to-bpf call saves the caller's mask and gives the callee
 * r1..r5 and r10; its exit restores the caller's r6..r10 and adds r0.  A helper call defers
 * helper_post to the next step (the helper has run by then).  A callback the helper calls runs
 * nested (chk_callback_run()), in the same struct interp_check: its violation stops the outer run
 * at its next step.
 *
 * Invariants.  A failed check fills c->v and stops the run before the instruction executes.
 * The state is local to one run; the prepared program is shared and immutable as for interp.c.
 */
#define INTERP_CHECKED 1
#include "interp.c"

#include <stdio.h>

struct chk_state {
	uint32_t init;				/* bit n: rn initialised */
	uint32_t saved[INTERP_MAX_FRAMES];	/* callers' masks, by depth */
};

#define REGS_ARGS 0x3eu		/* r1..r5 */
#define REGS_CALLEE_SAVED 0x7c0u	/* r6..r10 */
#define BIT(n) (1u << (n))

static bool add_region(struct interp_check *c, uint64_t start, uint64_t len, const char *what,
		       bool readonly)
{
	if (c->nregions >= INTERP_CHECK_MAX_REGIONS)
		return false;
	c->regions[c->nregions++] = (struct interp_region){ start, len, what, readonly };
	return true;
}

bool interp_check_add(struct interp_check *c, uint64_t start, uint64_t len, const char *what)
{
	return add_region(c, start, len, what, false);
}

bool interp_check_add_ro(struct interp_check *c, uint64_t start, uint64_t len, const char *what)
{
	return add_region(c, start, len, what, true);
}

void interp_check_allow_unaligned(struct interp_check *c, uint64_t start, uint64_t len)
{
	unsigned int n = sizeof(c->unaligned_ok) / sizeof(c->unaligned_ok[0]);
	unsigned int i = c->nunaligned_ok++ % n;

	c->unaligned_ok[i].start = start;
	c->unaligned_ok[i].len = len;
}

static bool unaligned_ok(const struct interp_check *c, uint64_t addr, uint64_t size)
{
	unsigned int n = sizeof(c->unaligned_ok) / sizeof(c->unaligned_ok[0]);

	for (unsigned int i = 0; i < n && i < c->nunaligned_ok; i++)
		if (addr >= c->unaligned_ok[i].start &&
		    addr + size <= c->unaligned_ok[i].start + c->unaligned_ok[i].len)
			return true;
	return false;
}

/* Whether [addr, end) lies in one of the frames [top - (d + 1) * 512, top - d * 512), d <= depth. */
static bool in_frames(uint64_t addr, uint64_t end, uint64_t top, unsigned int depth)
{
	if (addr < top && end <= top && end > addr) {
		uint64_t d = (top - addr - 1) / INTERP_STACK_SIZE;
		uint64_t lo = top - (d + 1) * INTERP_STACK_SIZE;

		return d <= depth && end <= lo + INTERP_STACK_SIZE;
	}
	return false;
}

bool interp_check_mem(struct interp_check *c, uint64_t addr, uint64_t size, bool write)
{
	uint64_t end = addr + size;

	if (end >= addr) {
		if (in_frames(addr, end, c->stack_top, c->depth))
			return true;
		for (unsigned int i = 0; i < c->nouter; i++)
			if (in_frames(addr, end, c->outer[i].stack_top, c->outer[i].depth))
				return true;
		for (unsigned int i = 0; i < c->nregions; i++) {
			const struct interp_region *r = &c->regions[i];

			if (addr < r->start || end > r->start + r->len)
				continue;
			if (!write || !r->readonly)
				return true;
			c->v.kind = IV_MEM;
			c->v.insn = c->insn;
			c->v.addr = addr;
			c->v.size = (uint32_t)size;
			c->v.write = true;
			snprintf(c->v.msg, sizeof(c->v.msg),
				 "write of %llu bytes at 0x%llx into a read-only %s",
				 (unsigned long long)size, (unsigned long long)addr, r->what);
			return false;
		}
	}
	c->v.kind = IV_MEM;
	c->v.insn = c->insn;
	c->v.addr = addr;
	c->v.size = (uint32_t)size;
	c->v.write = write;
	snprintf(c->v.msg, sizeof(c->v.msg), "%s of %llu bytes at 0x%llx outside every region",
		 write ? "write" : "read", (unsigned long long)size, (unsigned long long)addr);
	return false;
}

static int fail_reg(struct interp_check *c, enum interp_violation_kind kind, int reg,
		    const char *what)
{
	c->v.kind = kind;
	c->v.insn = c->insn;
	c->v.reg = reg;
	snprintf(c->v.msg, sizeof(c->v.msg), "%s r%d", what, reg);
	return 1;
}

static int need(struct interp_check *c, const struct chk_state *cs, int reg)
{
	if (cs->init & BIT(reg))
		return 0;
	return fail_reg(c, IV_UNINIT_REG, reg, "read of uninitialised");
}

static int writes(struct interp_check *c, struct chk_state *cs, int reg)
{
	if (reg == 10)
		return fail_reg(c, IV_WRITE_R10, reg, "write to");
	cs->init |= BIT(reg);
	return 0;
}

static int mem(struct interp_check *c, const uint64_t *R, int base, int16_t off, int bits,
	       bool write)
{
	return !interp_check_mem(c, R[base] + (uint64_t)(int64_t)off, (uint64_t)bits / 8, write);
}

static int chk_step(struct interp_check *c, struct chk_state *cs, const struct interp_prog *p,
		    const struct dinsn *pc, const uint64_t *R, unsigned int depth,
		    uintptr_t stack_top)
{
	const struct insn_desc *d;
	int dst = pc->dst, src = pc->src;

	/* a violation in a callback (run inside a helper) stops the run that called it */
	if (c->v.kind != IV_NONE)
		return 1;
	c->insn = (int)(pc - p->insns);
	c->stack_top = stack_top;
	c->depth = depth;
	if (c->pending_helper >= 0) {
		uint32_t id = (uint32_t)c->pending_helper;

		c->pending_helper = -1;
		if (c->helper_post)
			c->helper_post(c, id, R, R[0]);
	}
	if (c->max_steps && c->steps >= c->max_steps)
		return 1; /* v.kind stays IV_NONE: the step limit */
	c->steps++;
	if ((uint32_t)c->insn >= p->cnt)
		return 0; /* the trap record: the interpreter reports it */
	if (pc->id == INSN__COUNT) /* a probe load: any address reads (0 if unmapped) */
		return need(c, cs, src) || writes(c, cs, dst);
	d = &insn_descs()[pc->id];

	switch (d->kind) {
	case INSN_K_ALU:
		if (d->op != INSN_OP_MOV && need(c, cs, dst))
			return 1;
		if (BPF_SRC(d->code) == BPF_X && need(c, cs, src))
			return 1;
		return writes(c, cs, dst);
	case INSN_K_NEG:
	case INSN_K_END:
		return need(c, cs, dst) || writes(c, cs, dst);
	case INSN_K_MOVSX:
		return need(c, cs, src) || writes(c, cs, dst);
	case INSN_K_JA:
	case INSN_K_MAY_GOTO:
		return 0;
	case INSN_K_JCOND:
		if (need(c, cs, dst))
			return 1;
		return BPF_SRC(d->code) == BPF_X && need(c, cs, src);
	case INSN_K_CALL:
		if (d->op == INSN_OP_LOCAL) {
			if (depth + 1 < INTERP_MAX_FRAMES)
				cs->saved[depth] = cs->init;
			cs->init = (cs->init & REGS_ARGS) | BIT(10);
			return 0;
		}
		if (d->op == INSN_OP_REG && need(c, cs, dst))
			return 1;
		if (d->op == INSN_OP_HELPER && c->helper_pre &&
		    c->helper_pre(c, (uint32_t)pc->imm, R, cs->init))
			return 1;
		if (d->op == INSN_OP_HELPER)
			c->pending_helper = pc->imm;
		if (d->op == INSN_OP_KFUNC && c->kfunc_pre && c->kfunc_pre(c, pc->imm, R, cs->init))
			return 1;
		cs->init = (cs->init & ~REGS_ARGS) | BIT(0);
		return 0;
	case INSN_K_EXIT:
		/* a subprogram may leave r0 unset if its caller does not read it (as the kernel) */
		if (depth > 0) {
			cs->init = (cs->saved[depth - 1] & REGS_CALLEE_SAVED) | (cs->init & BIT(0));
			return 0;
		}
		return need(c, cs, 0);
	case INSN_K_LDDW:
		return writes(c, cs, dst);
	case INSN_K_LDPKT:
		if (need(c, cs, 6))
			return 1;
		if (d->op == INSN_OP_IND && need(c, cs, src))
			return 1;
		cs->init = (cs->init & ~REGS_ARGS) | BIT(0);
		return 0;
	case INSN_K_LDX:
	case INSN_K_LDXSX:
		if (need(c, cs, src) || mem(c, R, src, pc->off, d->bits, false))
			return 1;
		return writes(c, cs, dst);
	case INSN_K_ST:
		return need(c, cs, dst) || mem(c, R, dst, pc->off, d->bits, true);
	case INSN_K_STX:
		return need(c, cs, dst) || need(c, cs, src) || mem(c, R, dst, pc->off, d->bits, true);
	case INSN_K_ATOMIC:
		if (need(c, cs, dst) || need(c, cs, src))
			return 1;
		if (d->op == INSN_OP_CMPXCHG && need(c, cs, 0))
			return 1;
		if (mem(c, R, dst, pc->off, d->bits, true))
			return 1;
		if ((R[dst] + (uint64_t)(int64_t)pc->off) % (d->bits / 8) &&
		    !unaligned_ok(c, R[dst] + (uint64_t)(int64_t)pc->off, d->bits / 8)) {
			/* the interpreter (and the hardware, off x86) needs aligned atomics */
			c->v.kind = IV_MISALIGNED;
			c->v.insn = c->insn;
			c->v.addr = R[dst] + (uint64_t)(int64_t)pc->off;
			c->v.size = d->bits / 8;
			c->v.write = true;
			snprintf(c->v.msg, sizeof(c->v.msg), "misaligned %u-byte atomic at 0x%llx",
				 d->bits / 8, (unsigned long long)c->v.addr);
			return 1;
		}
		if (d->op == INSN_OP_CMPXCHG)
			return writes(c, cs, 0);
		if (pc->imm & BPF_FETCH)
			return writes(c, cs, src);
		return 0;
	default:
		return 0;
	}
}

/* The check state of the checked run this thread is in, for the callbacks nested in it. */
static __thread struct interp_check *chk_current;

static int chk_callback_run(const struct interp_prog *p, const struct dinsn *entry, uint64_t *R)
{
	struct interp_check *c = chk_current;
	/* the callback's arguments and its frame pointer */
	struct chk_state cs = { .init = REGS_ARGS | BIT(10) };
	uint64_t top;
	unsigned int depth;
	int insn, helper, err;

	if (!c || c->v.kind != IV_NONE || c->nouter >= INTERP_MAX_FRAMES)
		return -EACCES;
	top = c->stack_top;
	depth = c->depth;
	insn = c->insn;
	helper = c->pending_helper; /* the helper calling the callback, not yet returned */
	c->outer[c->nouter].stack_top = top;
	c->outer[c->nouter].depth = depth;
	c->nouter++;
	c->pending_helper = -1;
	if (c->callback_pre)
		c->callback_pre(c, helper, R);
	err = run(p, entry, R, NULL, c, &cs);
	if (!err && c->pending_helper >= 0 && c->helper_post)
		c->helper_post(c, (uint32_t)c->pending_helper, R, R[0]);
	if (c->callback_post)
		c->callback_post(c, helper, R);
	c->nouter--;
	c->stack_top = top;
	c->depth = depth;
	c->insn = insn;
	c->pending_helper = helper;
	return err;
}

bool interp_checked_is_callback(const struct interp_checked_prog *p, uint64_t v)
{
	for (uint32_t i = 0; i < p->nr_callbacks; i++)
		if ((uintptr_t)&p->callbacks[i] == v)
			return true;
	return false;
}

int interp_checked_exec(const struct interp_checked_prog *p, const uint64_t args[5], uint64_t *r0,
			struct interp_check *c)
{
	struct interp_check *prev = chk_current;
	uint64_t R[11] = { 0 };
	/* the verifier's entry state: r1 (the context) and r10 only */
	struct chk_state cs = { .init = BIT(1) | BIT(10) };
	int err;

	memset(&c->v, 0, sizeof(c->v));
	c->v.insn = -1;
	c->steps = 0;
	c->pending_helper = -1;
	c->nouter = 0;
	memcpy(&R[1], args, 5 * sizeof(R[0]));
	chk_current = c;
	err = run(p, p->insns, R, NULL, c, &cs);
	chk_current = prev;
	if (!err && c->pending_helper >= 0 && c->helper_post)
		c->helper_post(c, (uint32_t)c->pending_helper, R, R[0]);
	*r0 = err ? 0 : R[0];
	return err;
}
