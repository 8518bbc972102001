/* prog_check_run(): one run of a loaded program in the checked interpreter; see check_run.h.
 *
 * The program is prepared afresh for the checked interpreter (the same helper table and LD_ABS
 * source as prog_prepare()), so loading stays as it is.  The context is a zeroed run_skb or
 * xdp_ctx with the packet copied into a heap buffer with head- and tailroom: memory the program
 * must not reach, so an out-of-bounds packet access is reported, not silently allowed.  The
 * frame may move inside the buffer (bpf_xdp_adjust_head() and the like); after each helper that
 * may move or resize the packet, its regions are what the context then says.  Map values enter the region table from helper_post after each
 * successful bpf_map_lookup_elem, without their bpf_spin_lock and bpf_timer fields (only helpers
 * may touch those); helper_pre checks arguments by the helper's prototype; a
 * bpf_for_each_map_elem() callback may use the key and value it is given while it runs.
 *
 * bpf_spin_lock: the verifier promises that a program takes one lock at a time, releases the one
 * it holds, calls no other helper while holding it, and never exits with it held.  A run checks
 * each promise (IV_LOCK), and a lock taken twice is reported before the helper would spin
 * forever; a lock still held when a run stops is released, so no later run waits on it.
 * Likewise a ring buffer record still reserved at a clean exit is a leak (IV_LEAK).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "exec/bpf_dynptr.h"
#include "exec/interp_checked.h"
#include "exec/kfuncs.h"
#include "map/map.h"
#include "prog/check_run.h"
#include "prog/prog.h"
#include "prog/run.h"
#include "rcu.h"

#define HEADROOM 256u /* before the packet: an XDP frame's room for adjust_head(), an skb's for
			* change_head() (without it the skb would have to move, which it cannot) */
#define TAILROOM 64u  /* after it: room to grow into (adjust_tail(), change_tail()) */
#define NR_HELPERS BPF_HELPER_ID_MAX

struct check_priv {
	const struct bpf_prog *prog;
	const struct interp_checked_prog *ip;
	u64 ctx;
	const struct bpf_map *lookup_map;	/* map of the pending lookup */
	u64 reserve_size;	/* the pending bpf_ringbuf_reserve()'s */
	u64 dynptr;		/* the pending bpf_ringbuf_reserve_dynptr()'s dynptr */
	u64 slice_len;		/* the pending bpf_dynptr_data()'s length */
	u64 locks[16];		/* the bpf_spin_lock words of the map values the run has seen */
	unsigned int nlocks;
	u64 held;		/* the lock the program holds, or 0 */
};

/* A reserved ring buffer record: its region, by its start. */
static int record_region(const struct interp_check *c, u64 addr)
{
	for (unsigned int i = 0; i < c->nregions; i++)
		if (c->regions[i].start == addr && !strcmp(c->regions[i].what, "ringbuf record"))
			return (int)i;
	return -1;
}

static const struct bpf_map *held_map(const struct bpf_prog *prog, u64 addr)
{
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if ((uintptr_t)prog->used_maps[i] == addr)
			return prog->used_maps[i];
	return NULL;
}

static int arg_fail(struct interp_check *c, int reg, const char *what, u64 addr, u64 size)
{
	c->v.kind = IV_HELPER_ARG;
	c->v.insn = c->insn;
	c->v.reg = reg;
	c->v.addr = addr;
	c->v.size = (u32)size;
	snprintf(c->v.msg, sizeof(c->v.msg), "helper argument r%d: %s", reg, what);
	return 1;
}

/* A helper's or kfunc's (who) argument register reg not written on this path. */
static int uninit_arg(struct interp_check *c, int reg, const char *who)
{
	c->v.kind = IV_UNINIT_REG;
	c->v.insn = c->insn;
	c->v.reg = reg;
	snprintf(c->v.msg, sizeof(c->v.msg), "%s reads uninitialised r%d", who, reg);
	return 1;
}

static int lock_fail(struct interp_check *c, u64 lock, const char *what)
{
	c->v.kind = IV_LOCK;
	c->v.insn = c->insn;
	c->v.reg = 1;
	c->v.addr = lock;
	c->v.size = 4;
	snprintf(c->v.msg, sizeof(c->v.msg), "%s", what);
	return 1;
}

static bool is_lock(const struct check_priv *cp, u64 addr)
{
	for (unsigned int i = 0; i < cp->nlocks; i++)
		if (cp->locks[i] == addr)
			return true;
	return false;
}

/* The lock rules, for a helper call about to run (its arguments checked). */
static int lock_pre(struct interp_check *c, struct check_priv *cp, u32 id, u64 r1)
{
	if (id == BPF_FUNC_spin_lock) {
		if (cp->held) /* it would spin forever on its own lock, or hold two */
			return lock_fail(c, r1, "bpf_spin_lock while holding a lock");
		cp->held = r1;
	} else if (id == BPF_FUNC_spin_unlock) {
		if (cp->held != r1)
			return lock_fail(c, r1, "bpf_spin_unlock of a lock not held");
		cp->held = 0;
	} else if (cp->held) {
		return lock_fail(c, cp->held, "helper call while holding a bpf_spin_lock");
	}
	return 0;
}

static int helper_pre(struct interp_check *c, u32 id, const u64 *R, u32 init)
{
	struct check_priv *cp = c->priv;
	const struct bpf_func_proto *fp = bpf_helper_proto(id, cp->prog->type);
	const struct bpf_map *map = NULL;

	if (!fp)
		return arg_fail(c, 0, "helper not allowed for this program type", 0, 0);
	cp->lookup_map = NULL;
	for (int i = 0; i < 5; i++) {
		int reg = i + 1;
		u64 size = i < 4 ? R[reg + 1] : 0;
		enum bpf_arg_type t = fp->arg_type[i];

		if (t == ARG_DONTCARE)
			continue;
		if (!(init & (1u << reg)))
			return uninit_arg(c, reg, "helper");
		switch (t) {
		case ARG_CONST_MAP_PTR:
			map = held_map(cp->prog, R[reg]);
			if (!map)
				return arg_fail(c, reg, "not a map the program holds", R[reg], 0);
			break;
		case ARG_PTR_TO_MAP_KEY:
		case ARG_PTR_TO_MAP_VALUE:
		case ARG_PTR_TO_UNINIT_MAP_VALUE:
			size = map ? (t == ARG_PTR_TO_MAP_KEY ? map->key_size : map->value_size) : 0;
			if (!map ||
			    !interp_check_mem(c, R[reg], size, t == ARG_PTR_TO_UNINIT_MAP_VALUE))
				return arg_fail(c, reg, t == ARG_PTR_TO_MAP_KEY ? "map key outside"
									      : "map value outside",
						R[reg], size);
			break;
		case ARG_PTR_TO_MEM:
		case ARG_PTR_TO_MEM_OR_NULL:
		case ARG_PTR_TO_UNINIT_MEM:
		case ARG_PTR_TO_WRITE_MEM:
		case ARG_PTR_TO_WRITE_MEM_OR_NULL:
			/* the size is the next argument; 0 is checked by its own type */
			if (size && !interp_check_mem(c, R[reg], size,
						      t == ARG_PTR_TO_UNINIT_MEM ||
							      t == ARG_PTR_TO_WRITE_MEM ||
							      t == ARG_PTR_TO_WRITE_MEM_OR_NULL))
				return arg_fail(c, reg, "memory outside", R[reg], size);
			if (!size && fp->arg_type[i + 1] != ARG_CONST_SIZE_OR_ZERO)
				return arg_fail(c, reg + 1, "zero size", R[reg], 0);
			break;
		case ARG_PTR_TO_LONG:
		case ARG_PTR_TO_INT:
			size = t == ARG_PTR_TO_LONG ? 8 : 4;
			if (!interp_check_mem(c, R[reg], size, true))
				return arg_fail(c, reg, "memory outside", R[reg], size);
			break;
		case ARG_CONST_SIZE:
		case ARG_CONST_SIZE_OR_ZERO:
			if (R[reg] > (1u << 29))
				return arg_fail(c, reg, "size out of range", 0, R[reg]);
			break;
		case ARG_PTR_TO_CTX_OR_NULL:
			if (!R[reg])
				break;
			/* fall through */
		case ARG_PTR_TO_CTX:
			if (R[reg] != cp->ctx)
				return arg_fail(c, reg, "not the context", R[reg], 0);
			break;
		case ARG_PTR_TO_FUNC:
			if (!interp_checked_is_callback(cp->ip, R[reg]))
				return arg_fail(c, reg, "not a callback of the program", R[reg], 0);
			break;
		case ARG_PTR_TO_SPIN_LOCK:
			if (!is_lock(cp, R[reg]))
				return arg_fail(c, reg, "not the bpf_spin_lock of a map value",
						R[reg], 4);
			break;
		/* (ARG_PTR_TO_STACK_OR_NULL: what the callback does with it is checked) */
		case ARG_PTR_TO_RINGBUF_MEM_RELEASE: {
			/* submitted or discarded once: the record leaves the regions */
			int r = record_region(c, R[reg]);

			if (r < 0)
				return arg_fail(c, reg, "not a reserved record", R[reg], 0);
			c->regions[r] = c->regions[--c->nregions];
			break;
		}
		case ARG_PTR_TO_DYNPTR_LOCAL_UNINIT:
		case ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT:
			if (!interp_check_mem(c, R[reg], 16, true))
				return arg_fail(c, reg, "dynptr outside", R[reg], 16);
			cp->dynptr = R[reg];
			break;
		case ARG_PTR_TO_DYNPTR_RDONLY:
		case ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE: {
			/* a dynptr the program made: over memory it may use; a released one
			 * over a reserved record, which leaves the regions */
			u64 start;
			u32 len;
			int r;

			if (!interp_check_mem(c, R[reg], 16, false))
				return arg_fail(c, reg, "dynptr outside", R[reg], 16);
			if (!bpf_dynptr_bytes((const void *)(uintptr_t)R[reg], &start, &len))
				break;
			if (len && !interp_check_mem(c, start, len, false))
				return arg_fail(c, reg, "dynptr over memory outside", start, len);
			if (t != ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE)
				break;
			/* (the record itself, wherever bpf_dynptr_adjust() moved the view) */
			start = bpf_dynptr_base((const void *)(uintptr_t)R[reg]);
			r = record_region(c, start);
			if (r < 0)
				return arg_fail(c, reg, "dynptr not over a reserved record", start, 0);
			c->regions[r] = c->regions[--c->nregions];
			break;
		}
		default:
			break;
		}
	}
	if (lock_pre(c, cp, id, R[1]))
		return 1;
	if (id == BPF_FUNC_map_lookup_elem)
		cp->lookup_map = map;
	cp->reserve_size = R[2];
	cp->slice_len = R[3];
	return 0;
}

/* A dynptr argument at p: 16 bytes the program may use (written: the kfunc changes it), whose
 * view, if it has one, is memory the program may read (or write). */
static int dynptr_arg_ok(struct interp_check *c, int reg, u64 p, bool write_ptr, bool write_view)
{
	u64 start;
	u32 len;

	if (!interp_check_mem(c, p, 16, write_ptr))
		return arg_fail(c, reg, "dynptr outside", p, 16);
	if (bpf_dynptr_bytes((const void *)(uintptr_t)p, &start, &len) && len &&
	    !interp_check_mem(c, start, len, write_view))
		return arg_fail(c, reg, "dynptr over memory outside", start, len);
	return 0;
}

static bool name_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A kfunc's arguments, by its kernel BTF prototype: registers written, its dynptrs and
 * iterators where the program may use them, a memory and size pair inside; no kfunc but the
 * number iterator's while a lock is held. */
static int kfunc_pre(struct interp_check *c, s32 imm, const u64 *R, u32 init)
{
	struct check_priv *cp = c->priv;
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *func = btf ? btf_type_by_id(btf, (u32)imm) : NULL;
	const struct btf_type *proto = func ? btf_type_by_id(btf, func->type) : NULL;
	const struct kfunc_desc *k = func ? kfunc_by_name(btf_str_by_offset(btf, func->name_off))
					  : NULL;
	const struct btf_param *params;
	u32 n;

	if (!k || !proto)
		return arg_fail(c, 0, "not a kfunc userbpf has", 0, 0);
	/* (the number iterator's kfuncs may be called under the lock, as the kernel allows) */
	if (cp->held && !(k->flags & KF_SPIN_OK))
		return lock_fail(c, cp->held, "kfunc call while holding a bpf_spin_lock");
	params = (const struct btf_param *)(proto + 1);
	n = BTF_INFO_VLEN(proto->info);
	for (u32 i = 0; i < n && i < 5; i++) {
		int reg = (int)i + 1;
		const struct btf_type *t = btf_skip_modifiers(btf, params[i].type, NULL);
		const struct btf_type *to;
		const char *name = btf_str_by_offset(btf, params[i].name_off) ?: "";
		const char *next = i + 1 < n ? btf_str_by_offset(btf, params[i + 1].name_off) : NULL;

		if (name_ends(name, "__ign"))
			continue; /* (any value: the kfunc reads it without faulting) */
		if (!(init & (1u << reg)))
			return uninit_arg(c, reg, "kfunc");
		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
			continue;
		to = btf_skip_modifiers(btf, t->type, NULL);
		if (i == 0 && (k->flags & (KF_ITER_NEW | KF_ITER_NEXT | KF_ITER_DESTROY))) {
			if (!to || !interp_check_mem(c, R[reg], to->size, true))
				return arg_fail(c, reg, "iterator outside", R[reg], to ? to->size : 0);
		} else if (to && BTF_INFO_KIND(to->info) == BTF_KIND_STRUCT &&
			   !strcmp(btf_str_by_offset(btf, to->name_off) ?: "", "bpf_dynptr")) {
			bool made = name_ends(name, "__uninit");
			/* (a read-only dynptr's view is not written: the kfunc fails) */
			bool writes_view = (!strcmp(k->name, "bpf_dynptr_memset") ||
					    (!strcmp(k->name, "bpf_dynptr_copy") && i == 0)) &&
					   !bpf_dynptr_is_rdonly_kfunc(R[reg], 0, 0, 0, 0);

			if (made ? !interp_check_mem(c, R[reg], 16, true)
				 : dynptr_arg_ok(c, reg, R[reg], true, writes_view))
				return made ? arg_fail(c, reg, "dynptr outside", R[reg], 16) : 1;
		} else if (next && (name_ends(next, "__sz") || name_ends(next, "__szk"))) {
			/* NULL only where the parameter says __opt */
			if (R[reg] || !name_ends(name, "__opt"))
				if (!interp_check_mem(c, R[reg], R[reg + 1], true))
					return arg_fail(c, reg, "memory outside", R[reg], R[reg + 1]);
			i++;
		}
	}
	return 0;
}

static void add_value_part(struct interp_check *c, const struct bpf_map *map, u64 start, u64 len)
{
	if (!len)
		return;
	if (map->map_flags & BPF_F_RDONLY_PROG)
		interp_check_add_ro(c, start, len, "map value");
	else
		interp_check_add(c, start, len, "map value");
}

/* A map's value at v (read-only to programs with BPF_F_RDONLY_PROG), once: the bytes around its
 * bpf_spin_lock and bpf_timer, which programs reach only through helpers (its kptrs they load
 * and store). */
static void add_map_value(struct interp_check *c, struct check_priv *cp,
			  const struct bpf_map *map, u64 v)
{
	u32 hole[MAP_MAX_HOLES][2], n = map_value_holes(map, hole), at = 0;

	for (unsigned int i = 0; i < c->nregions; i++)
		if (c->regions[i].start >= v && c->regions[i].start < v + map->value_size &&
		    !strcmp(c->regions[i].what, "map value"))
			return;
	if (map->spin_lock_off >= 0 && cp->nlocks < sizeof(cp->locks) / sizeof(cp->locks[0]))
		cp->locks[cp->nlocks++] = v + (u32)map->spin_lock_off;
	for (u32 i = 0; i < n; i++) {
		if (map_kptr_at(map, hole[i][0]))
			continue;
		add_value_part(c, map, v + at, hole[i][0] - at);
		at = hole[i][0] + hole[i][1];
	}
	add_value_part(c, map, v + at, map->value_size - at);
}

/* The packet as the context now says, [data_meta, data) and [data, data_end), replacing what it
 * was: after a helper that may move or resize it, the bytes it left are the buffer's again,
 * which the program must not reach (through a pointer the verifier should have forgotten). */
static void packet_regions(struct interp_check *c, const struct check_priv *cp)
{
	u8 *meta, *data, *end;

	for (unsigned int i = c->nregions; i-- > 0;)
		if (!strcmp(c->regions[i].what, "packet") ||
		    !strcmp(c->regions[i].what, "packet metadata"))
			c->regions[i] = c->regions[--c->nregions];
	if (cp->prog->type == BPF_PROG_TYPE_XDP) {
		const struct xdp_ctx *x = (const struct xdp_ctx *)(uintptr_t)cp->ctx;

		meta = x->data_meta;
		data = x->data;
		end = x->data_end;
	} else {
		const struct skb_ctx *sc = (const struct skb_ctx *)(uintptr_t)cp->ctx;

		meta = sc->data_meta;
		data = sc->data;
		end = sc->data_end;
	}
	if (data > meta)
		interp_check_add(c, (uintptr_t)meta, (u64)(data - meta), "packet metadata");
	/* (cgroup skb and lwt in/out programs may only read their packet) */
	if (cp->prog->type == BPF_PROG_TYPE_CGROUP_SKB ||
	    cp->prog->type == BPF_PROG_TYPE_LWT_IN || cp->prog->type == BPF_PROG_TYPE_LWT_OUT)
		interp_check_add_ro(c, (uintptr_t)data, (u64)(end - data), "packet");
	else
		interp_check_add(c, (uintptr_t)data, (u64)(end - data), "packet");
}

static void helper_post(struct interp_check *c, u32 id, const u64 *R, u64 r0)
{
	struct check_priv *cp = c->priv;
	const struct bpf_func_proto *fp = bpf_helper_proto(id, cp->prog->type);

	if (fp && fp->changes_pkt_data) {
		packet_regions(c, cp);
		return;
	}

	if (id == BPF_FUNC_ringbuf_reserve && r0) {
		interp_check_add(c, r0, cp->reserve_size, "ringbuf record");
		return;
	}
	if (id == BPF_FUNC_dynptr_data && r0) {
		interp_check_allow_unaligned(c, r0, cp->slice_len);
		return;
	}
	if (id == BPF_FUNC_ringbuf_reserve_dynptr) {
		u64 start;
		u32 len;

		if (bpf_dynptr_bytes((const void *)(uintptr_t)cp->dynptr, &start, &len))
			interp_check_add(c, start, len, "ringbuf record");
		return;
	}
	/* a socket found by a lookup, or its TCP view: read only, for the rest of the run */
	if ((id == BPF_FUNC_sk_lookup_tcp || id == BPF_FUNC_sk_lookup_udp ||
	     id == BPF_FUNC_skc_lookup_tcp || id == BPF_FUNC_tcp_sock) && r0) {
		for (unsigned int i = 0; i < c->nregions; i++)
			if (c->regions[i].start == r0)
				return;
		if (id == BPF_FUNC_tcp_sock)
			interp_check_add_ro(c, r0, sizeof(struct bpf_tcp_sock), "tcp socket");
		else
			interp_check_add_ro(c, r0, sizeof(struct bpf_sock), "found socket");
		return;
	}
	if (id != BPF_FUNC_map_lookup_elem || !r0 || !cp->lookup_map)
		return;
	add_map_value(c, cp, cp->lookup_map, r0);
}

/* A bpf_for_each_map_elem() callback gets the element's key and value: readable (and the value
 * writable, unless the map is read-only to programs) for the callback's run. */
static void callback_pre(struct interp_check *c, int helper, const u64 *R)
{
	struct check_priv *cp = c->priv;
	const struct bpf_map *map = held_map(cp->prog, R[1]);

	/* a user ring buffer record: its dynptr (read through helpers) and its bytes */
	if (helper == BPF_FUNC_user_ringbuf_drain) {
		u64 start;
		u32 len;

		interp_check_add_ro(c, R[1], 16, "callback dynptr");
		if (bpf_dynptr_bytes((const void *)(uintptr_t)R[1], &start, &len))
			interp_check_add(c, start, len, "callback record");
		return;
	}
	if (helper != BPF_FUNC_for_each_map_elem || !map)
		return;
	interp_check_add_ro(c, R[2], map->key_size, "callback key");
	if (map->map_flags & BPF_F_RDONLY_PROG)
		interp_check_add_ro(c, R[3], map->value_size, "callback value");
	else
		interp_check_add(c, R[3], map->value_size, "callback value");
}

static void callback_post(struct interp_check *c, int helper, const u64 *R)
{
	(void)R;
	if (helper != BPF_FUNC_for_each_map_elem && helper != BPF_FUNC_user_ringbuf_drain)
		return;
	for (unsigned int i = c->nregions; i-- > 0;)
		if (!strncmp(c->regions[i].what, "callback ", 9))
			c->regions[i] = c->regions[--c->nregions];
}

/* At a clean exit: every ring buffer record the program reserved was submitted or discarded
 * (the verifier's reference tracking promises it; a record left reserved stalls its ring). */
static int leak_check(struct interp_check *c)
{
	for (unsigned int i = 0; i < c->nregions; i++) {
		if (strcmp(c->regions[i].what, "ringbuf record"))
			continue;
		c->v.kind = IV_LEAK;
		c->v.insn = c->insn;
		c->v.addr = c->regions[i].start;
		c->v.size = (u32)c->regions[i].len;
		snprintf(c->v.msg, sizeof(c->v.msg), "exit with a ring buffer record reserved");
		return -EACCES;
	}
	return 0;
}

/* The program types a checked run builds a context for: an skb's or an XDP frame's. */
static bool check_run_supported(u32 type)
{
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_SK_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_XDP:
		return true;
	default:
		return false;
	}
}

static bool pkt_is_l3(u32 type)
{
	return type == BPF_PROG_TYPE_LWT_IN || type == BPF_PROG_TYPE_LWT_OUT ||
	       type == BPF_PROG_TYPE_LWT_XMIT;
}

static void prepare_env(const struct bpf_prog *prog, bpf_helper_fn *fns, struct interp_env *env)
{
	memset(env, 0, sizeof(*env));
	env->helpers = fns;
	env->nr_helpers = helper_fns(prog->type, fns, NR_HELPERS);
	env->resolve_kfunc = kfunc_resolve;
	env->owner = (void *)prog;
	if (prog->type == BPF_PROG_TYPE_SOCKET_FILTER || prog_type_is_tc(prog->type))
		env->load_pkt = run_skb_load_pkt;
}

static int run_checked(const struct bpf_prog *prog, const void *pkt, u32 len, u64 max_steps,
		       struct prog_check_result *res)
{
	static __thread bpf_helper_fn fns[NR_HELPERS];
	struct interp_checked_prog *ip;
	struct interp_env env;
	struct interp_check *c;
	struct check_priv cp = { .prog = prog };
	struct run_skb skb;
	struct xdp_ctx xdp;
	u64 args[5] = { 0 }, r0;
	u8 *buf, *data;
	int err;

	if (!check_run_supported(prog->type))
		return -EOPNOTSUPP;
	prepare_env(prog, fns, &env);
	err = interp_checked_prepare(prog->insns, prog->len, &env, &ip);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	buf = calloc(1, HEADROOM + len + TAILROOM);
	if (!c || !buf) {
		err = -ENOMEM;
		goto out;
	}
	data = buf + HEADROOM;
	if (len)
		memcpy(data, pkt, len);
	if (prog->type == BPF_PROG_TYPE_XDP) {
		memset(&xdp, 0, sizeof(xdp));
		xdp.data = xdp.data_meta = data;
		xdp.data_end = data + len;
		xdp.hard_start = buf;
		xdp.hard_end = data + len + TAILROOM;
		xdp.uapi.data = HEADROOM;
		xdp.uapi.data_end = HEADROOM + len;
		xdp.uapi.ingress_ifindex = 1;
		cp.ctx = (uintptr_t)&xdp;
		interp_check_add(c, cp.ctx, sizeof(xdp), "ctx");
	} else {
		memset(&skb, 0, sizeof(skb));
		skb.head = buf;
		skb.end = data + len + TAILROOM;
		skb.mac = data;
		/* (a lightweight tunnel's packet starts at its network header) */
		skb.net = len >= 14 && !pkt_is_l3(prog->type) ? data + 14 : data;
		skb.tail = data + len;
		skb.ctx.data = skb.ctx.data_meta = data;
		skb.ctx.data_end = data + len;
		skb.ctx.uapi.len = len;
		skb.ctx.uapi.protocol = 0x0008;
		run_skb_set_sock(&skb, skb.ctx.uapi.protocol);
		cp.ctx = (uintptr_t)&skb.ctx;
		interp_check_add(c, cp.ctx, sizeof(skb.ctx), "ctx");
		interp_check_add_ro(c, (uintptr_t)&skb.sock.sk, sizeof(skb.sock.sk), "socket");
	}
	packet_regions(c, &cp);
	for (u32 i = 0; i < prog->used_map_cnt; i++) {
		struct bpf_map *m = prog->used_maps[i];
		u32 zero = 0;
		void *v;

		if (m->map_type != BPF_MAP_TYPE_ARRAY)
			continue;
		rcu_read_lock();
		v = m->ops->lookup_ptr(m, &zero);
		rcu_read_unlock();
		if (v)
			add_map_value(c, &cp, m, (uintptr_t)v);
	}
	c->helper_pre = helper_pre;
	c->kfunc_pre = kfunc_pre;
	c->helper_post = helper_post;
	c->callback_pre = callback_pre;
	c->callback_post = callback_post;
	cp.ip = ip;
	c->priv = &cp;
	c->max_steps = max_steps;
	args[0] = cp.ctx;
	rcu_read_lock();
	res->err = interp_checked_exec(ip, args, &r0, c);
	rcu_read_unlock();
	if (cp.held) {
		if (!res->err) {
			lock_fail(c, cp.held, "exit while holding a bpf_spin_lock");
			res->err = -EACCES;
		}
		map_spin_unlock((u32 *)(uintptr_t)cp.held);
	}
	if (!res->err)
		res->err = leak_check(c);
	sock_lookup_run_end();
	if (prog->type != BPF_PROG_TYPE_XDP)
		sk_storage_free(&skb.sock.storage);
	res->retval = (u32)r0;
	res->steps = c->steps;
	res->v = c->v;
	err = 0;
out:
	free(buf);
	free(c);
	interp_checked_free(ip);
	return err;
}

int prog_check_run(int prog_fd, const void *pkt, u32 len, u64 max_steps,
		   struct prog_check_result *res)
{
	struct bpf_object *obj;
	int err;

	memset(res, 0, sizeof(*res));
	obj = obj_get_from_fd(prog_fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	err = run_checked(prog_of(obj), pkt, len, max_steps, res);
	obj_put(obj);
	return err;
}
