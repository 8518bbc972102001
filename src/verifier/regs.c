/* Register and state operations, and the kernel's (6.18) state printer.
 *
 * States are deep-copied when a branch is pushed or a checkpoint is taken; each frame owns its
 * stack array (grown in whole 8-byte slots, never shrunk within a state).  The printer writes
 * "R1=ctx() R2=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff)) R10=fp0 fp-8=mmmmmmmm":
 * a constant scalar prints as its value, a pointer as its type name with the fields that are not
 * implied in parentheses, ranges grouped when several views share a value ("smax=umax=5"), numbers
 * in decimal when they fit in an s16 and in hex otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "map/map.h"
#include "verifier/dynptr.h"
#include "verifier/env.h"
#include "verifier/iter.h"

const char *reg_type_str(u8 type)
{
	static const char *const names[] = {
		[NOT_INIT] = "?",
		[SCALAR_VALUE] = "scalar",
		[PTR_TO_CTX] = "ctx",
		[CONST_PTR_TO_MAP] = "map_ptr",
		[PTR_TO_MAP_VALUE] = "map_value",
		[PTR_TO_MAP_VALUE_OR_NULL] = "map_value_or_null",
		[PTR_TO_STACK] = "fp",
		[PTR_TO_PACKET_META] = "pkt_meta",
		[PTR_TO_PACKET] = "pkt",
		[PTR_TO_PACKET_END] = "pkt_end",
		[PTR_TO_RINGBUF_MEM] = "ringbuf_mem",
		[PTR_TO_RINGBUF_MEM_OR_NULL] = "ringbuf_mem_or_null",
		[PTR_TO_SOCK_COMMON] = "sock_common",
		[PTR_TO_SOCK_COMMON_OR_NULL] = "sock_common_or_null",
		[PTR_TO_FUNC] = "func",
		[PTR_TO_MAP_KEY] = "map_key",
		[PTR_TO_MEM] = "mem",
		[PTR_TO_MEM_OR_NULL] = "mem_or_null",
		[CONST_PTR_TO_MAP_OR_NULL] = "map_ptr_or_null",
		[PTR_TO_FLOW_KEYS] = "flow_keys",
		[PTR_TO_SOCKET] = "sock",
		[PTR_TO_SOCKET_OR_NULL] = "sock_or_null",
		[PTR_TO_TCP_SOCK] = "tcp_sock",
		[PTR_TO_TCP_SOCK_OR_NULL] = "tcp_sock_or_null",
		[PTR_TO_XDP_SOCK] = "xdp_sock",
		[PTR_TO_XDP_SOCK_OR_NULL] = "xdp_sock_or_null",
		[CONST_PTR_TO_DYNPTR] = "dynptr_ptr",
		[PTR_TO_RDONLY_MEM] = "rdonly_mem",
		[PTR_TO_RDONLY_MEM_OR_NULL] = "rdonly_mem_or_null",
		/* (the state print adds the struct's name) */
		[PTR_TO_BTF_ID_TRUSTED] = "trusted_ptr_",
		[PTR_TO_BTF_ID_RCU] = "rcu_ptr_",
		[PTR_TO_BTF_ID_UNTRUSTED] = "untrusted_ptr_",
		[PTR_TO_RDONLY_UNTRUSTED_MEM] = "rdonly_untrusted_mem",
		[PTR_TO_BTF_ID] = "ptr_",
		[PTR_TO_BTF_ID_OR_NULL] = "ptr_or_null_",
		[PTR_TO_BTF_ID_RCU_OR_NULL] = "rcu_ptr_or_null_",
		[PTR_TO_BTF_ID_UNTRUSTED_OR_NULL] = "untrusted_ptr_or_null_",
		[PTR_TO_BTF_ID_TRUSTED_OR_NULL] = "trusted_ptr_or_null_",
		[PTR_TO_PERCPU_BTF_ID] = "percpu_ptr_",
	};
	return type < ARRAY_SIZE(names) ? names[type] : "?";
}

void mark_reg_not_init(struct reg_state *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->s = scalar_unknown();
	reg->type = NOT_INIT;
}

void mark_reg_unknown(struct reg_state *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->type = SCALAR_VALUE;
	reg->s = scalar_unknown();
}

void mark_reg_const(struct reg_state *reg, u64 v)
{
	memset(reg, 0, sizeof(*reg));
	reg->type = SCALAR_VALUE;
	reg->s = scalar_const(v);
}

void mark_ptr(struct reg_state *reg, u8 type)
{
	memset(reg, 0, sizeof(*reg));
	reg->type = type;
	reg->s = scalar_const(0);
}

bool reg_is_ptr(const struct reg_state *reg)
{
	return reg->type != SCALAR_VALUE && reg->type != NOT_INIT;
}

u8 reg_type_not_null(u8 type)
{
	switch (type) {
	case PTR_TO_MAP_VALUE_OR_NULL: return PTR_TO_MAP_VALUE;
	case PTR_TO_RINGBUF_MEM_OR_NULL: return PTR_TO_RINGBUF_MEM;
	case PTR_TO_SOCK_COMMON_OR_NULL: return PTR_TO_SOCK_COMMON;
	case PTR_TO_MEM_OR_NULL: return PTR_TO_MEM;
	case PTR_TO_RDONLY_MEM_OR_NULL: return PTR_TO_RDONLY_MEM;
	case CONST_PTR_TO_MAP_OR_NULL: return CONST_PTR_TO_MAP;
	case PTR_TO_SOCKET_OR_NULL: return PTR_TO_SOCKET;
	case PTR_TO_TCP_SOCK_OR_NULL: return PTR_TO_TCP_SOCK;
	case PTR_TO_XDP_SOCK_OR_NULL: return PTR_TO_XDP_SOCK;
	case PTR_TO_BTF_ID_OR_NULL: return PTR_TO_BTF_ID;
	case PTR_TO_BTF_ID_RCU_OR_NULL: return PTR_TO_BTF_ID_RCU;
	case PTR_TO_BTF_ID_UNTRUSTED_OR_NULL: return PTR_TO_BTF_ID_UNTRUSTED;
	case PTR_TO_BTF_ID_TRUSTED_OR_NULL: return PTR_TO_BTF_ID_TRUSTED;
	default: return type;
	}
}

bool reg_may_be_null(const struct reg_state *reg)
{
	return reg_type_not_null(reg->type) != reg->type;
}

u8 reg_type_or_null(u8 type)
{
	for (u8 t = 0; t < REG_TYPE__COUNT; t++)
		if (t != type && reg_type_not_null(t) == type)
			return t;
	return type;
}

struct buf_range {
	u32 frameno;
	s64 lo, hi;
};

static void forget_buf_slice(struct reg_state *reg, void *p)
{
	const struct buf_range *b = p;

	if (reg_is_mem(reg) && reg->buf_size && reg->buf_frame == b->frameno &&
	    reg->buf_off < b->hi && reg->buf_off + reg->buf_size > b->lo)
		mark_reg_unknown(reg); /* (privileged: an unknown scalar, as the kernel's) */
}

void forget_buf_slices(struct verifier_env *env, u32 frameno, s64 lo, s64 hi)
{
	struct buf_range b = { frameno, lo, hi };

	for_each_reg(env->cur, forget_buf_slice, &b);
}

bool reg_is_mem(const struct reg_state *reg)
{
	return reg->type == PTR_TO_MEM || reg->type == PTR_TO_MEM_OR_NULL ||
	       reg->type == PTR_TO_RDONLY_MEM || reg->type == PTR_TO_RDONLY_MEM_OR_NULL ||
	       reg->type == PTR_TO_RDONLY_UNTRUSTED_MEM;
}

bool is_btf_ptr_type(u8 type)
{
	return type == PTR_TO_BTF_ID_TRUSTED || type == PTR_TO_BTF_ID_RCU ||
	       type == PTR_TO_BTF_ID_UNTRUSTED || type == PTR_TO_BTF_ID;
}

bool reg_is_btf_id(const struct reg_state *reg)
{
	return is_btf_ptr_type(reg->type) || reg->type == PTR_TO_BTF_ID_OR_NULL ||
	       reg->type == PTR_TO_PERCPU_BTF_ID ||
	       reg->type == PTR_TO_BTF_ID_RCU_OR_NULL ||
	       reg->type == PTR_TO_BTF_ID_UNTRUSTED_OR_NULL ||
	       reg->type == PTR_TO_BTF_ID_TRUSTED_OR_NULL;
}

bool reg_is_trusted_btf(const struct reg_state *reg)
{
	return reg->type == PTR_TO_BTF_ID_TRUSTED ||
	       (reg->type == PTR_TO_BTF_ID && reg->ref_obj_id);
}

bool reg_is_pkt(const struct reg_state *reg)
{
	return reg->type == PTR_TO_PACKET || reg->type == PTR_TO_PACKET_META;
}

void for_each_reg(struct vstate *st, reg_fn fn, void *arg)
{
	for (u32 i = 0; i <= st->curframe; i++) {
		struct func_state *f = st->frame[i];

		for (int r = 0; r < MAX_BPF_REG; r++)
			fn(&f->regs[r], arg);
		for (u32 s = 0; s < f->allocated; s++)
			if (f->stack[s].type[SLOT_SIZE - 1] == STACK_SPILL)
				fn(&f->stack[s].spilled, arg);
	}
}

bool reg_is_const(const struct reg_state *reg)
{
	return reg->type == SCALAR_VALUE && scalar_is_const(&reg->s);
}

void init_func_state(struct func_state *f, int callsite, u32 frameno, u32 subprogno)
{
	for (int i = 0; i < MAX_BPF_REG; i++)
		mark_reg_not_init(&f->regs[i]);
	mark_ptr(&f->regs[BPF_REG_FP], PTR_TO_STACK);
	f->regs[BPF_REG_FP].frameno = (u8)frameno;
	f->callsite = callsite;
	f->frameno = frameno;
	f->subprogno = subprogno;
	f->allocated = 0;
	f->stack = NULL;
}

int grow_stack(struct func_state *f, u32 slots)
{
	struct stack_slot *n;

	if (slots <= f->allocated)
		return 0;
	n = realloc(f->stack, slots * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n + f->allocated, 0, (slots - f->allocated) * sizeof(*n));
	f->stack = n;
	f->allocated = slots;
	return 0;
}

struct vstate *state_new(void)
{
	return calloc(1, sizeof(struct vstate));
}

void state_free(struct vstate *st)
{
	if (!st)
		return;
	for (u32 i = 0; i < MAX_CALL_FRAMES; i++) {
		if (st->frame[i]) {
			free(st->frame[i]->stack);
			free(st->frame[i]);
		}
	}
	free(st->hist);
	free(st);
}

/* dst gets src's frames (dst's extra frames are freed); parent/branches are the caller's. */
int state_copy(struct vstate *dst, const struct vstate *src)
{
	for (u32 i = 0; i < MAX_CALL_FRAMES; i++) {
		const struct func_state *s = i <= src->curframe ? src->frame[i] : NULL;
		struct func_state *d = dst->frame[i];

		if (!s) {
			if (d) {
				free(d->stack);
				free(d);
				dst->frame[i] = NULL;
			}
			continue;
		}
		if (!d) {
			d = calloc(1, sizeof(*d));
			if (!d)
				return -ENOMEM;
			dst->frame[i] = d;
		}
		free(d->stack);
		*d = *s;
		d->stack = NULL;
		if (s->allocated) {
			d->stack = malloc(s->allocated * sizeof(*s->stack));
			if (!d->stack) {
				d->allocated = 0;
				return -ENOMEM;
			}
		}
		if (s->allocated)
			memcpy(d->stack, s->stack, s->allocated * sizeof(*s->stack));
	}
	dst->curframe = src->curframe;
	dst->nrefs = src->nrefs;
	memcpy(dst->ref_id, src->ref_id, src->nrefs * sizeof(src->ref_id[0]));
	memcpy(dst->ref_insn, src->ref_insn, src->nrefs * sizeof(src->ref_insn[0]));
	memcpy(dst->ref_type, src->ref_type, src->nrefs * sizeof(src->ref_type[0]));
	dst->active_locks = src->active_locks;
	dst->active_rcu_lock = src->active_rcu_lock;
	dst->active_preempt_locks = src->active_preempt_locks;
	dst->callback_unroll_depth = src->callback_unroll_depth;
	dst->may_goto_depth = src->may_goto_depth;
	dst->dfs_depth = src->dfs_depth;
	dst->first_insn_idx = src->first_insn_idx;
	dst->last_insn_idx = src->last_insn_idx;
	if (dst->hist_cap < src->hist_cnt) {
		struct hist_ent *h = realloc(dst->hist, src->hist_cnt * sizeof(*h));

		if (!h)
			return -ENOMEM;
		dst->hist = h;
		dst->hist_cap = src->hist_cnt;
	}
	if (src->hist_cnt)
		memcpy(dst->hist, src->hist, src->hist_cnt * sizeof(*src->hist));
	dst->hist_cnt = src->hist_cnt;
	return 0;
}

/* The state printer. */

struct pbuf {
	char *b;
	size_t size, len;
};

static void __attribute__((format(printf, 2, 3))) pb(struct pbuf *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p->len < p->size ? p->b + p->len : NULL, p->len < p->size ? p->size - p->len : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		p->len += (size_t)n;
}

/* 6.18 prints numbers that fit in an s16 in decimal, the others in hex. */
static bool num_is_decimal(s64 v)
{
	return v >= -32768 && v <= 32767;
}

static void pb_snum(struct pbuf *p, s64 v)
{
	if (num_is_decimal(v))
		pb(p, "%lld", (long long)v);
	else
		pb(p, "%#llx", (unsigned long long)v);
}

static void pb_unum(struct pbuf *p, u64 v)
{
	if (v <= 32767)
		pb(p, "%llu", (unsigned long long)v);
	else
		pb(p, "%#llx", (unsigned long long)v);
}

static void print_ranges(struct pbuf *p, const struct scalar *s, const char **sep)
{
	struct {
		const char *name;
		u64 val;
		bool omit;
	} m[] = {
		{ "smin", (u64)s->smin, s->smin == SCALAR_S64_MIN },
		{ "smax", (u64)s->smax, s->smax == SCALAR_S64_MAX },
		{ "umin", s->umin, s->umin == 0 },
		{ "umax", s->umax, s->umax == ~(u64)0 },
		{ "smin32",
		  num_is_decimal(s->s32_min) ? (u64)(s64)s->s32_min : (u32)s->s32_min,
		  s->s32_min == SCALAR_S32_MIN },
		{ "smax32",
		  num_is_decimal(s->s32_max) ? (u64)(s64)s->s32_max : (u32)s->s32_max,
		  s->s32_max == SCALAR_S32_MAX },
		{ "umin32", s->u32_min, s->u32_min == 0 },
		{ "umax32", s->u32_max, s->u32_max == ~(u32)0 },
	};
	int n = (int)ARRAY_SIZE(m);

	for (int i = 0; i < n; i++) {
		if (m[i].omit)
			continue;
		bool neg1 = m[i].name[0] == 's' && (s64)m[i].val < 0;

		pb(p, "%s%s=", *sep, m[i].name);
		*sep = ",";
		for (int j = i + 2; j < n; j += 2) {
			bool neg2 = m[j].name[0] == 's' && (s64)m[j].val < 0;

			if (m[j].omit || m[j].val != m[i].val || neg1 != neg2)
				continue;
			m[j].omit = true;
			pb(p, "%s=", m[j].name);
		}
		if (m[i].name[0] == 's')
			pb_snum(p, (s64)m[i].val);
		else
			pb_unum(p, m[i].val);
	}
}

int snprint_reg(char *buf, size_t size, const struct func_state *f, const struct reg_state *reg)
{
	struct pbuf p = { buf, size, 0 };
	const char *sep = "";
	u8 t = reg->type;

	if (size)
		buf[0] = 0;
	if (t == SCALAR_VALUE && reg->precise)
		pb(&p, "P");
	if (t == SCALAR_VALUE && scalar_is_const(&reg->s)) {
		pb_snum(&p, (s64)reg->s.var_off.value);
		return (int)p.len;
	}
	pb(&p, "%s", reg_type_str(t));
	if (reg_is_btf_id(reg))
		pb(&p, "%s", btf_id_name(reg->btf_id));
	if (t == PTR_TO_STACK) {
		if (f->frameno != reg->frameno)
			pb(&p, "[%d]", reg->frameno);
		if (scalar_is_const(&reg->s)) {
			pb_snum(&p, (s64)(reg->s.var_off.value + (u64)(s64)reg->off));
			return (int)p.len;
		}
	}
	pb(&p, "(");
	if (reg->id) {
		pb(&p, "%sid=%u", sep, reg->id & ~ID_ADD_CONST);
		if (t == SCALAR_VALUE && (reg->id & ID_ADD_CONST))
			pb(&p, "%+d", reg->delta);
		sep = ",";
	}
	if (reg->ref_obj_id) {
		pb(&p, "%sref_obj_id=%u", sep, reg->ref_obj_id);
		sep = ",";
	}
	if ((t == CONST_PTR_TO_MAP || t == CONST_PTR_TO_MAP_OR_NULL || t == PTR_TO_MAP_VALUE ||
	     t == PTR_TO_MAP_VALUE_OR_NULL || t == PTR_TO_MAP_KEY) && reg->map) {
		if (reg->map->name[0]) {
			pb(&p, "%smap=%s", sep, reg->map->name);
			sep = ",";
		}
		pb(&p, "%sks=%u,vs=%u", sep, reg->map->key_size, reg->map->value_size);
		sep = ",";
	}
	if (t != SCALAR_VALUE && reg->off) {
		pb(&p, "%soff=", sep);
		sep = ",";
		pb_snum(&p, reg->off);
	}
	if (t == PTR_TO_PACKET || t == PTR_TO_PACKET_META) {
		pb(&p, "%sr=", sep);
		sep = ",";
		pb_unum(&p, (u64)(s64)reg->range); /* the sentinels as the kernel prints them */
	}
	if (t == PTR_TO_RINGBUF_MEM || t == PTR_TO_RINGBUF_MEM_OR_NULL || reg_is_mem(reg)) {
		pb(&p, "%ssz=%u", sep, reg->mem_size);
		sep = ",";
	}
	if (reg_is_mem(reg) && reg->buf_size) {
		pb(&p, "%sbuf=fp[%u]%d+%u", sep, reg->buf_frame, reg->buf_off, reg->buf_size);
		sep = ",";
	}
	if (t == CONST_PTR_TO_DYNPTR) {
		pb(&p, "%stype=%s", sep, dynptr_type_str(reg->dynptr_type));
		sep = ",";
	}
	if (scalar_is_const(&reg->s)) {
		if (reg->s.var_off.value) {
			pb(&p, "%simm=", sep);
			pb_snum(&p, (s64)reg->s.var_off.value);
		}
	} else {
		print_ranges(&p, &reg->s, &sep);
		if (!tnum_is_unknown(reg->s.var_off)) {
			char tn[48];

			tnum_snprint(tn, sizeof(tn), reg->s.var_off);
			pb(&p, "%svar_off=%s", sep, tn);
		}
	}
	pb(&p, ")");
	return (int)p.len;
}

static const char slot_char[] = { '?', 'r', 'm', '0', 'd', 'i' };

/* Every register and slot shows in the next state line. */
void mark_all_scratched(struct verifier_env *env)
{
	memset(env->scratched, 1, sizeof(env->scratched));
	env->scratched_slots = ~0ull;
}

/* Prints " R1=... fp-8=..." for the scratched (or all) registers and slots of frame f, then a
 * newline, as the kernel's print_verifier_state. */
void print_state(struct verifier_env *env, const struct vstate *vs, const struct func_state *f,
		 bool all)
{
	char buf[512];

	if (f->frameno)
		verbose(env, " frame%u:", f->frameno);
	for (int i = 0; i < MAX_BPF_REG; i++) {
		const struct reg_state *r = &f->regs[i];

		if (r->type == NOT_INIT || (!all && !env->scratched[i]))
			continue;
		snprint_reg(buf, sizeof(buf), f, r);
		verbose(env, " R%d=%s", i, buf);
	}
	for (u32 i = 0; i < f->allocated; i++) {
		const struct stack_slot *sl = &f->stack[i];
		char types[SLOT_SIZE + 1];
		bool valid = false;

		if (!all && !(i < 64 && (env->scratched_slots >> i) & 1))
			continue;
		/* a dynptr shows once, at its first slot, met after its second */
		if (sl->type[SLOT_SIZE - 1] == STACK_DYNPTR && i + 1 < f->allocated) {
			const struct reg_state *d = &f->stack[++i].spilled;
			const char *sep = "";

			verbose(env, " fp%d=dynptr_%s(", -(int)(i + 1) * SLOT_SIZE,
				dynptr_type_str(d->dynptr_type));
			if (d->id) {
				verbose(env, "id=%u", d->id);
				sep = ",";
			}
			if (d->ref_obj_id) {
				verbose(env, "%sref_id=%u", sep, d->ref_obj_id);
				sep = ",";
			}
			if (d->dynptr_id)
				verbose(env, "%sdynptr_id=%u", sep, d->dynptr_id);
			verbose(env, ")");
			continue;
		}
		/* an iterator shows at its first slot, which holds the reference */
		if (sl->type[SLOT_SIZE - 1] == STACK_ITER) {
			const struct reg_state *it = &sl->spilled;
			static const char *const states[] = { "invalid", "active", "drained" };

			if (it->ref_obj_id)
				verbose(env, " fp%d=iter_%s(ref_id=%u,state=%s,depth=%u)",
					-(int)(i + 1) * SLOT_SIZE, iter_type_str(it->iter_btf_id),
					it->ref_obj_id, states[it->iter_state % 3], it->iter_depth);
			continue;
		}
		for (int j = 0; j < SLOT_SIZE; j++) {
			valid |= sl->type[j] != STACK_INVALID;
			types[j] = slot_char[sl->type[j]];
		}
		types[SLOT_SIZE] = 0;
		if (!valid)
			continue;
		if (sl->type[SLOT_SIZE - 1] == STACK_SPILL) {
			for (int j = 0; j < SLOT_SIZE; j++) {
				if (sl->type[j] == STACK_SPILL) {
					types[j] = 0;
					break;
				}
			}
			snprint_reg(buf, sizeof(buf), f, &sl->spilled);
			verbose(env, " fp%d=%s%s", -(int)(i + 1) * SLOT_SIZE, types, buf);
		} else {
			verbose(env, " fp%d=%s", -(int)(i + 1) * SLOT_SIZE, types);
		}
	}
	for (u32 i = 0; i < vs->nrefs; i++) /* the path's references, shown in every frame */
		verbose(env, "%s%u", i ? "," : " refs=", vs->ref_id[i]);
	if (f->in_callback_fn)
		verbose(env, " cb");
	if (f->in_async_callback_fn)
		verbose(env, " async_cb");
	verbose(env, "\n");
	if (!all) {
		memset(env->scratched, 0, sizeof(env->scratched));
		env->scratched_slots = 0;
	}
}
