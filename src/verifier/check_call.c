/* Calls and returns: helper calls checked against their prototypes, bpf-to-bpf calls with call
 * frames, and exits.
 *
 * A helper call checks each argument register against the prototype (src/exec/helpers.h):
 * map pointer, key and value memory of the map's sizes, memory + size pairs, the context; then
 * R1-R5 become unreadable and R0 takes the return type (a map lookup gives a value-or-NULL
 * pointer with a fresh id, to be NULL-checked before use; as in the kernel, a lookup in an array
 * map whose key is a constant below max_entries, known from the stack, cannot fail and gives a
 * plain map value pointer).  A bpf-to-bpf call pushes a frame whose
 * R1-R5 are the caller's and whose other registers are unreadable, up to MAX_CALL_FRAMES deep; the
 * exit of a subprogram copies R0 back and restores the caller frame (R1-R5 unreadable there).
 * The exit of the main program requires R0 to be readable.
 *
 * Callbacks (bpf_loop, bpf_for_each_map_elem; 6.18's model): the call queues a round of the
 * callback, a copy of the state before the call with a new frame whose registers are what the
 * helper passes, and goes on as if the helper returned.  The callback's exit checks R0 in [0, 1]
 * and returns to the call itself, which queues another round, until a round brings nothing new
 * (states.c prunes it) or, for bpf_loop, R1's bound is reached.  Scalars a round changed that no
 * check depends on are widened to unknown first, so that a counter converges.
 *
 * References: bpf_ringbuf_reserve() and the socket lookups acquire one (an id the path holds,
 * carried by R0 as ref_obj_id); submit or discard, or bpf_sk_release(), releases it, and every
 * register pointing at the record or socket becomes unusable (bpf_sk_fullsock()'s result
 * included, which carries the reference it was given).  The main program's exit, a tail call
 * and LD_ABS require that none is held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "exec/helpers.h"
#include "exec/kfuncs.h"
#include "map/map.h"
#include "prog/prog.h"
#include "verifier/dynptr.h"
#include "verifier/env.h"



void clobber_caller_saved(struct verifier_env *env, struct reg_state *regs)
{
	for (int i = 0; i <= BPF_REG_5; i++) {
		mark_reg_not_init(&regs[i]);
		env->scratched[i] = true;
	}
}

static int type_err(struct verifier_env *env, u32 regno, const struct reg_state *reg,
		    const char *expected)
{
	verbose(env, "R%u type=%s expected=%s\n", regno, reg_type_str(reg->type), expected);
	return -EACCES;
}

/* One of the memory pointer types; read-only memory only where the helper just reads (the
 * kernel's MEM_RDONLY arguments). */
static bool is_mem_ptr(const struct reg_state *reg, bool rdonly_ok)
{
	return reg->type == PTR_TO_STACK || reg->type == PTR_TO_PACKET ||
	       reg->type == PTR_TO_PACKET_META || reg->type == PTR_TO_MAP_VALUE ||
	       reg->type == PTR_TO_RINGBUF_MEM || reg->type == PTR_TO_MAP_KEY ||
	       reg->type == PTR_TO_MEM || (rdonly_ok && reg->type == PTR_TO_RDONLY_MEM);
}

#define MEM_TYPES "fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"

/* The size of the memory argument before it, of type mem: a helper that writes it may find it
 * uninitialised (ARG_PTR_TO_UNINIT_MEM, which the kernel replays as byte stores) or not. */
static int check_size_arg(struct verifier_env *env, u32 regno, bool zero_ok,
			  enum bpf_arg_type mem)
{
	bool write = mem == ARG_PTR_TO_UNINIT_MEM || mem == ARG_PTR_TO_WRITE_MEM ||
		     mem == ARG_PTR_TO_WRITE_MEM_OR_NULL;
	struct reg_state *reg = &cur_regs(env)[regno];

	if (reg->type != SCALAR_VALUE)
		return type_err(env, regno, reg, "scalar");
	if (reg->s.smin < 0) {
		verbose(env, "R%u min value is negative, either use unsigned or 'var &= const'\n",
			regno);
		return -EACCES;
	}
	if (reg->s.umin == 0 && !zero_ok) {
		verbose(env, "R%u invalid zero-sized read: u64=[%lld,%lld]\n", regno,
			(long long)reg->s.umin, (long long)reg->s.umax);
		return -EACCES;
	}
	if (reg->s.umax >= BPF_MAX_VAR_SIZ) {
		verbose(env, "R%u unbounded memory access, use 'var &= const' or 'if (var < const)'\n",
			regno);
		return -EACCES;
	}
	/* the kernel replays a helper's write of a constant size byte by byte (which shows the
	 * slots in the log); a variable size it checks as one range */
	int err = check_helper_mem(env, regno - 1, (int)reg->s.umax, zero_ok, write,
				   mem == ARG_PTR_TO_UNINIT_MEM && scalar_is_const(&reg->s));

	/* the access was checked with the size's bounds */
	return err ? err : mark_precise_reg(env, regno);
}

int check_mem_size_pair(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct reg_state *mem = &cur_regs(env)[regno - 1], saved = *mem;
	int err = 0;

	/* a maybe-NULL pointer is checked as the pointer it is when not NULL */
	mem->type = reg_type_not_null(mem->type);
	for (int write = 0; write <= 1 && !err; write++) {
		if (reg->s.smin < 0) {
			verbose(env, "R%u min value is negative, either use unsigned or 'var &= "
				     "const'\n", regno);
			err = -EACCES;
		} else if (reg->s.umax >= BPF_MAX_VAR_SIZ) {
			verbose(env, "R%u unbounded memory access, use 'var &= const' or 'if (var < "
				     "const)'\n", regno);
			err = -EACCES;
		} else {
			err = check_helper_mem(env, regno - 1, (int)reg->s.umax, true, write, false);
			if (!err)
				err = mark_precise_reg(env, regno);
		}
	}
	mem->type = saved.type;
	return err;
}

/* (.rodata is such a map) */
int check_const_str(struct verifier_env *env, u32 regno)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	struct bpf_map *map = reg->map;
	u32 key = 0;
	const char *val;
	s64 off;
	int err;

	if (reg->type != PTR_TO_MAP_VALUE)
		return type_err(env, regno, reg, "map_value");
	if (!(map->map_flags & BPF_F_RDONLY_PROG) || !__atomic_load_n(&map->frozen, __ATOMIC_ACQUIRE)) {
		verbose(env, "R%u does not point to a readonly map'\n", regno);
		return -EACCES;
	}
	if (!scalar_is_const(&reg->s)) {
		verbose(env, "R%u is not a constant address'\n", regno);
		return -EACCES;
	}
	if (map->map_type != BPF_MAP_TYPE_ARRAY) {
		verbose(env, "no direct value access support for this map type\n");
		return -EACCES;
	}
	err = check_mem_region(env, regno, reg->off, (int)map->value_size - reg->off, false, -1,
			       false);
	if (err)
		return err;
	off = reg->off + (s64)reg->s.var_off.value;
	/* (an array's direct value address exists for a single element only) */
	val = map->max_entries == 1 ? map->ops->lookup_ptr(map, &key) : NULL;
	if (!val || off < 0 || (u64)off >= map->value_size) {
		verbose(env, "direct value access on string failed\n");
		return map->max_entries == 1 ? -EINVAL : -ENOTSUPP;
	}
	if (!memchr(val + off, 0, map->value_size - (u64)off)) {
		verbose(env, "string is not zero-terminated\n");
		return -EINVAL;
	}
	return 0;
}

/* A memory argument's register: one of the memory pointer types (a packet only for helpers
 * that may access it, which check_arg() saw to). */
static int check_mem_ptr_arg(struct verifier_env *env, const struct bpf_func_proto *fn, u32 regno,
			     const struct reg_state *reg, enum bpf_arg_type t)
{
	bool rdonly = t == ARG_PTR_TO_MEM || t == ARG_PTR_TO_MEM_OR_NULL;

	if (reg->type == PTR_TO_BTF_ID_TRUSTED) {
		/* a kernel object is memory a helper may read, never write */
		if (rdonly)
			return 0;
		verbose(env, "%s() may write into memory pointed by R%u type=%s\n", fn->name, regno,
			reg_type_str(reg->type));
		return -EACCES;
	}
	if (!is_mem_ptr(reg, rdonly))
		return type_err(env, regno, reg, MEM_TYPES);
	return 0;
}

static bool is_sockmap(const struct bpf_map *map);

int check_map_field_ptr(struct verifier_env *env, u32 regno, const char *name, s32 field_off)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	s64 off = (s64)reg->s.var_off.value + reg->off;

	if (!scalar_is_const(&reg->s)) {
		verbose(env, "R%u doesn't have constant offset. %s has to be at the constant "
			     "offset\n", regno, name);
		return -EINVAL;
	}
	if (!reg->map->btf) {
		verbose(env, "map '%s' has to have BTF in order to use %s\n", reg->map->name, name);
		return -EINVAL;
	}
	if (field_off < 0) {
		verbose(env, "map '%s' has no valid %s\n", reg->map->name, name);
		return -EINVAL;
	}
	if (off != field_off) {
		verbose(env, "off %lld doesn't point to 'struct %s' that is at %d\n",
			(long long)off, name, field_off);
		return -EINVAL;
	}
	return 0;
}

/* A map value's struct bpf_timer, at a constant offset (the kernel's process_timer_func()); its
 * map becomes the call's. */
static int check_timer_arg(struct verifier_env *env, u32 regno, const struct reg_state *reg,
			   struct bpf_map **map)
{
	int err = check_map_field_ptr(env, regno, "bpf_timer", reg->map->timer_off);

	if (err)
		return err;
	if (*map) {
		verbose(env, "verifier bug. Two map pointers in a timer helper\n");
		return -EFAULT;
	}
	*map = reg->map;
	return 0;
}

/* A kernel object pointer argument (6.18's ARG_PTR_TO_BTF_ID_OR_NULL for a task_struct or a
 * cgroup): NULL, or one of the BTF pointer types a helper may take (trusted, RCU or a kfunc's;
 * not an untrusted one), to that struct (or a struct that begins with one) at its start. */
static int check_btf_obj_arg(struct verifier_env *env, u32 regno, const struct reg_state *reg,
			     u32 want_id, const char *want)
{
	if (reg_is_const(reg) && !reg->s.var_off.value)
		return mark_precise_reg(env, regno); /* (NULL: a value the helper acts on) */
	if (reg->type != PTR_TO_BTF_ID_TRUSTED && reg->type != PTR_TO_BTF_ID_RCU &&
	    reg->type != PTR_TO_BTF_ID)
		return type_err(env, regno, reg, "ptr_, trusted_ptr_, rcu_ptr_");
	if (!scalar_is_const(&reg->s) ||
	    !btf_ids_match(env, reg->btf_id, reg->off + (int)reg->s.var_off.value, want_id)) {
		verbose(env, "R%u is of type %s but %s is expected\n", regno,
			btf_id_name(reg->btf_id), want);
		return -EACCES;
	}
	return 0;
}

static int check_arg(struct verifier_env *env, const struct bpf_func_proto *fn, int arg,
		     struct bpf_map **map, int *cb_sub, int insn_idx)
{
	u32 regno = (u32)arg + 1;
	enum bpf_arg_type t = fn->arg_type[arg];
	struct reg_state *reg = &cur_regs(env)[regno];
	bool uninit;
	int err;

	if (t == ARG_DONTCARE)
		return 0;
	err = check_reg_arg_read(env, regno);
	if (err)
		return err;
	if (t == ARG_ANYTHING)
		return 0;
	/* before the argument's type is looked at, for every kind of argument (as 6.18) */
	if (reg_is_pkt(reg) && !may_access_pkt(env, fn, false)) {
		verbose(env, "helper access to the packet is not allowed\n");
		return -EACCES;
	}
	/* a socket map's value is a socket (the kernel's resolve_map_arg_type()) */
	if ((t == ARG_PTR_TO_MAP_VALUE || t == ARG_PTR_TO_MAP_VALUE_OR_NULL ||
	     t == ARG_PTR_TO_UNINIT_MAP_VALUE) && is_sockmap(*map)) {
		if (t != ARG_PTR_TO_MAP_VALUE) {
			verbose(env, "invalid arg_type for sockmap/sockhash\n");
			return -EINVAL;
		}
		t = ARG_PTR_TO_BTF_ID_SOCK_COMMON;
	}
	switch (t) {
	case ARG_CONST_MAP_PTR:
		if (reg->type != CONST_PTR_TO_MAP)
			return type_err(env, regno, reg, "map_ptr");
		/* bpf_timer_init(): the map the timer is in (an inner map's uid, which userbpf
		 * does not track, would be its lookup's; 0 for any other) */
		if (*map && *map != reg->map) {
			verbose(env, "timer pointer in R1 map_uid=0 doesn't match map pointer in R2 "
				     "map_uid=0\n");
			return -EINVAL;
		}
		*map = reg->map;
		return 0;
	case ARG_PTR_TO_CTX_OR_NULL:
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		/* fall through */
	case ARG_PTR_TO_CTX:
		/* the ext type's ctx is the application's memory, described as a map value */
		if (reg->type == PTR_TO_MAP_VALUE && reg->map == &env->ext_ctx && !reg->off &&
		    scalar_is_const(&reg->s) && !reg->s.var_off.value)
			return 0;
		if (reg->type != PTR_TO_CTX)
			return type_err(env, regno, reg, "ctx");
		if (reg->off < 0 || reg->off || !scalar_is_const(&reg->s) || reg->s.var_off.value) {
			verbose(env, "dereference of modified ctx ptr R%u off=%d disallowed\n", regno,
				reg->off);
			return -EACCES;
		}
		return 0;
	case ARG_PTR_TO_BTF_ID_TASK_NOT_NULL:
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return type_err(env, regno, reg, "ptr_, trusted_ptr_, rcu_ptr_");
		/* fall through */
	case ARG_PTR_TO_BTF_ID_TASK:
		return check_btf_obj_arg(env, regno, reg, btf_vmlinux_task_struct(), "task_struct");
	case ARG_KPTR_XCHG_DEST:
		if (reg->type != PTR_TO_MAP_VALUE)
			return type_err(env, regno, reg, "map_value, ptr_");
		env->kptr_xchg = check_kptr_xchg_dest(env, regno, &err);
		return err;
	case ARG_PTR_TO_BTF_ID_KPTR_RELEASE:
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno); /* (NULL: nothing goes in) */
		if (reg->type != PTR_TO_BTF_ID && reg->type != PTR_TO_BTF_ID_TRUSTED &&
		    reg->type != PTR_TO_BTF_ID_RCU)
			return type_err(env, regno, reg, "ptr_, trusted_ptr_, rcu_ptr_");
		if (kptr_match_type(env, env->kptr_xchg, regno))
			return -EACCES;
		if (reg->off) {
			verbose(env, "R%u must have zero offset when passed to release func or "
				     "trusted arg to kfunc\n", regno);
			return -EINVAL;
		}
		if (!reg->ref_obj_id) {
			verbose(env, "R%u must be referenced when passed to release function\n",
				regno);
			return -EINVAL;
		}
		return 0;
	case ARG_PTR_TO_BTF_ID_CGROUP:
		return check_btf_obj_arg(env, regno, reg, btf_vmlinux_cgroup(), "cgroup");
	case ARG_PTR_TO_BTF_ID_SEQ_FILE: {
		static u32 seq_file; /* (the kernel's struct seq_file, found once) */

		if (!seq_file && btf_vmlinux())
			seq_file = btf_find_by_name_kind(btf_vmlinux(), "seq_file", BTF_KIND_STRUCT);
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return type_err(env, regno, reg, "ptr_, trusted_ptr_, rcu_ptr_");
		return check_btf_obj_arg(env, regno, reg, seq_file, "seq_file");
	}
	case ARG_PTR_TO_PERCPU_BTF_ID:
		if (reg->type != PTR_TO_PERCPU_BTF_ID)
			return type_err(env, regno, reg,
					"percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_");
		err = check_ptr_off(env, reg, regno, false);
		if (err)
			return err;
		if (!reg->btf_id) {
			verbose(env, "Helper has invalid btf_id in R%u\n", regno);
			return -EACCES;
		}
		env->percpu_btf_id = reg->btf_id;
		return 0;
	case ARG_PTR_TO_BTF_ID_SOCK_COMMON_OR_NULL:
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		if (reg->type == PTR_TO_SOCK_COMMON_OR_NULL || reg->type == PTR_TO_SOCKET_OR_NULL ||
		    reg->type == PTR_TO_TCP_SOCK_OR_NULL)
			return 0;
		/* fall through */
	case ARG_PTR_TO_BTF_ID_SOCK_COMMON:
	case ARG_PTR_TO_SOCK_COMMON:
	case ARG_PTR_TO_SOCK_RELEASE:
		/* (the BTF form also takes BTF pointers to sockets, which userbpf has none of) */
		if (reg->type != PTR_TO_SOCK_COMMON && reg->type != PTR_TO_SOCKET &&
		    reg->type != PTR_TO_TCP_SOCK && reg->type != PTR_TO_XDP_SOCK)
			return type_err(env, regno, reg,
					t == ARG_PTR_TO_SOCK_COMMON
						? "sock_common, sock, tcp_sock, xdp_sock"
						: "sock_common, sock, tcp_sock, xdp_sock, ptr_, "
						  "trusted_ptr_");
		/* (never offset: no arithmetic on socket pointers) */
		if (t == ARG_PTR_TO_SOCK_RELEASE && !reg->ref_obj_id) {
			verbose(env, "R%u must be referenced when passed to release function\n",
				regno);
			return -EINVAL;
		}
		return 0;
	case ARG_PTR_TO_SOCKET_OR_NULL:
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		if (reg->type != PTR_TO_SOCKET && reg->type != PTR_TO_SOCKET_OR_NULL)
			return type_err(env, regno, reg, "sock");
		return 0;
	case ARG_PTR_TO_MAP_VALUE_OR_NULL:
		/* NULL: precise, as ARG_PTR_TO_MEM_OR_NULL's */
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		t = ARG_PTR_TO_MAP_VALUE;
		/* fall through */
	case ARG_PTR_TO_MAP_KEY:
	case ARG_PTR_TO_MAP_VALUE:
	case ARG_PTR_TO_UNINIT_MAP_VALUE:
		err = check_mem_ptr_arg(env, fn, regno, reg, t);
		if (err)
			return err;
		if (!*map) {
			verbose(env, "invalid map_ptr to access map->%s\n",
				t == ARG_PTR_TO_MAP_KEY ? "key" : "value");
			return -EACCES;
		}
		/* (an uninit value is written by the helper, byte by byte as the kernel checks
		 * it; but a bloom filter's peek reads its value, the membership it tests) */
		uninit = t == ARG_PTR_TO_UNINIT_MAP_VALUE &&
			 (*map)->map_type != BPF_MAP_TYPE_BLOOM_FILTER;
		return check_helper_mem(env, regno,
					(int)(t == ARG_PTR_TO_MAP_KEY ? (*map)->key_size
								      : (*map)->value_size),
					false, uninit, uninit);
	case ARG_PTR_TO_FUNC:
		if (reg->type != PTR_TO_FUNC)
			return type_err(env, regno, reg, "func");
		*cb_sub = reg->subprogno;
		return 0;
	case ARG_PTR_TO_STACK_OR_NULL:
		/* NULL: precise, as ARG_PTR_TO_MEM_OR_NULL's */
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		if (reg->type != PTR_TO_STACK)
			return type_err(env, regno, reg, "fp");
		return 0;
	case ARG_PTR_TO_CONST_STR:
		return check_const_str(env, regno);
	case ARG_PTR_TO_SPIN_LOCK:
		if (reg->type != PTR_TO_MAP_VALUE)
			return type_err(env, regno, reg, "map_value, ptr_");
		return 0; /* (what it points at: process_spin_lock()) */
	case ARG_PTR_TO_TIMER:
		if (reg->type != PTR_TO_MAP_VALUE)
			return type_err(env, regno, reg, "map_value");
		return check_timer_arg(env, regno, reg, map);
	case ARG_PTR_TO_MEM_OR_NULL:
	case ARG_PTR_TO_WRITE_MEM_OR_NULL:
		/* NULL (its size must then be 0, check_helper_mem()): a value the helper acts
		 * on, so precise, as 6.18 marks every NULL it accepts */
		if (reg_is_const(reg) && !reg->s.var_off.value)
			return mark_precise_reg(env, regno);
		/* fall through */
	case ARG_PTR_TO_MEM:
	case ARG_PTR_TO_UNINIT_MEM:
	case ARG_PTR_TO_WRITE_MEM:
		return check_mem_ptr_arg(env, fn, regno, reg, t); /* the size: with its argument */
	case ARG_PTR_TO_LONG:
	case ARG_PTR_TO_INT: {
		/* bpf_strtol()'s result, bpf_check_mtu()'s mtu: 8 or 4 bytes the helper writes
		 * (so may be uninitialised: the kernel's MEM_UNINIT), aligned whatever the
		 * program's alignment flags (MEM_ALIGNED) */
		int size = t == ARG_PTR_TO_LONG ? 8 : 4;

		err = check_mem_ptr_arg(env, fn, regno, reg, t);
		if (!err)
			err = check_helper_mem(env, regno, size, false, true, true);
		return err ? err : check_alignment(env, reg, 0, size, true);
	}
	case ARG_CONST_SIZE:
	case ARG_CONST_SIZE_OR_ZERO:
		return check_size_arg(env, regno, t == ARG_CONST_SIZE_OR_ZERO, fn->arg_type[arg - 1]);
	case ARG_CONST_ALLOC_SIZE_OR_ZERO:
		if (reg->type != SCALAR_VALUE)
			return type_err(env, regno, reg, "scalar");
		if (!scalar_is_const(&reg->s)) {
			verbose(env, "R%u is not a known constant'\n", regno);
			return -EACCES;
		}
		return mark_precise_reg(env, regno);
	case ARG_PTR_TO_RINGBUF_MEM_RELEASE:
		if (reg->type != PTR_TO_RINGBUF_MEM)
			return type_err(env, regno, reg, "ringbuf_mem");
		if (reg->off) {
			verbose(env, "R%u must have zero offset when passed to release func or "
				"trusted arg to kfunc\n", regno);
			return -EINVAL;
		}
		if (!scalar_is_const(&reg->s) || reg->s.var_off.value) {
			char tn[48];

			tnum_snprint(tn, sizeof(tn), reg->s.var_off);
			verbose(env, "variable %s access var_off=%s disallowed\n",
				reg_type_str(reg->type), tn);
			return -EACCES;
		}
		if (!reg->ref_obj_id) {
			verbose(env, "R%u must be referenced when passed to release function\n",
				regno);
			return -EINVAL;
		}
		return 0;
	case ARG_PTR_TO_DYNPTR_LOCAL_UNINIT:
	case ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT:
	case ARG_PTR_TO_DYNPTR_RDONLY:
	case ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE:
		return check_dynptr_arg(env, regno, t, insn_idx);
	default:
		verbose(env, "kernel subsystem misconfigured verifier\n");
		return -EFAULT;
	}
}

/* The kernel's get_constant_map_key(): the value of the key_size-byte key R points at, when the
 * stack proves it constant: key_size known-zero bytes, or a scalar spill of exactly key_size
 * bytes (counted from the key's first byte towards the slot's top) holding a constant.  The
 * counts run over the key's own bytes, so a constant found describes them (an 8-byte spill read
 * from its upper half gives the whole spilled value, which, when below any max_entries, has zero
 * upper bytes, as the key then has). */
static bool const_map_key(struct verifier_env *env, const struct reg_state *reg, u32 key_size,
			  u64 *value, int *spi)
{
	const struct func_state *f;
	const struct stack_slot *sl;
	s64 off, slot;
	u32 zeros = 0, spills = 0;

	if (reg->type != PTR_TO_STACK || !scalar_is_const(&reg->s))
		return false;
	f = env->cur->frame[reg->frameno];
	off = reg->off + (s64)reg->s.var_off.value;
	slot = -off - 1;
	if (slot < 0 || slot / SLOT_SIZE >= f->allocated)
		return false;
	sl = &f->stack[slot / SLOT_SIZE];
	for (int i = (int)(slot % SLOT_SIZE); i >= 0 && sl->type[i] == STACK_ZERO; i--)
		zeros++;
	if (zeros >= key_size) {
		*value = 0;
		return true;
	}
	if (sl->type[SLOT_SIZE - 1] != STACK_SPILL || sl->spilled.type != SCALAR_VALUE)
		return false;
	for (int i = (int)(slot % SLOT_SIZE); i >= 0 && sl->type[i] == STACK_SPILL; i--)
		spills++;
	if (spills != key_size || !scalar_is_const(&sl->spilled.s))
		return false;
	*value = sl->spilled.s.var_off.value;
	*spi = (int)(slot / SLOT_SIZE);
	return true;
}

static bool is_sockmap(const struct bpf_map *map)
{
	return map && (map->map_type == BPF_MAP_TYPE_SOCKMAP ||
		       map->map_type == BPF_MAP_TYPE_SOCKHASH);
}

/* The helpers that take a socket map (sockmap_fn) or a socket hash (sockhash_fn) and no other
 * map: adding a socket, redirecting a packet or a message to one. */
static bool sockmap_fn(s32 id)
{
	return id == BPF_FUNC_sock_map_update || id == BPF_FUNC_sk_redirect_map ||
	       id == BPF_FUNC_msg_redirect_map;
}

static bool sockhash_fn(s32 id)
{
	return id == BPF_FUNC_sock_hash_update || id == BPF_FUNC_sk_redirect_hash ||
	       id == BPF_FUNC_msg_redirect_hash;
}

/* The kernel's may_update_sockmap(): where a program may add sockets to a socket map (and delete
 * them): not where it could hold a socket's lock. */
static bool may_update_sockmap(struct verifier_env *env, s32 id)
{
	u32 type = env->prog->type;

	if (id != BPF_FUNC_map_update_elem && id != BPF_FUNC_map_delete_elem)
		return false;
	if (type == BPF_PROG_TYPE_SOCKET_FILTER || type == BPF_PROG_TYPE_SCHED_CLS ||
	    type == BPF_PROG_TYPE_SCHED_ACT || type == BPF_PROG_TYPE_XDP ||
	    type == BPF_PROG_TYPE_FLOW_DISSECTOR || type == BPF_PROG_TYPE_SK_LOOKUP)
		return true;
	/* (a sock_ops program adds sockets with its own helpers, which check the event) */
	if (type == BPF_PROG_TYPE_SOCK_OPS && id == BPF_FUNC_map_delete_elem)
		return true;
	verbose(env, "cannot update sockmap in this context\n");
	return false;
}

/* The kernel's can_elide_value_nullness(): lookups that cannot fail for an in-range key. */
static bool lookup_never_null(const struct bpf_map *map)
{
	return map->map_type == BPF_MAP_TYPE_ARRAY || map->map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* What the kernel knows of some helpers' results (do_refine_retval_range()): a string read
 * returns at most its buffer's size, or a negative errno; the CPU number is below the number of
 * possible CPUs. */
static void refine_retval(struct reg_state *r0, s32 id, u64 size_max)
{
	struct scalar *s = &r0->s;

	switch (id) {
	case BPF_FUNC_probe_read_str:
	case BPF_FUNC_probe_read_kernel_str:
	case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_get_stack:
	case BPF_FUNC_get_task_stack:
		s->smax = (s64)size_max;
		s->s32_max = (s32)size_max;
		s->smin = -4095;
		s->s32_min = -4095;
		break;
	case BPF_FUNC_get_smp_processor_id: {
		static long ncpus;

		if (!ncpus)
			ncpus = sysconf(_SC_NPROCESSORS_CONF);
		s->umin = s->smin = 0;
		s->u32_min = 0;
		s->s32_min = 0;
		s->umax = s->u32_max = (u32)(ncpus > 0 ? ncpus - 1 : 0);
		s->smax = (s64)s->umax;
		s->s32_max = (s32)s->umax;
		break;
	}
	default:
		return;
	}
	scalar_sync_bounds(s);
}

/* A new reference held by the path (the kernel's acquire_reference()): its id. */
int acquire_ref(struct verifier_env *env, int insn_idx, u32 *id)
{
	struct vstate *st = env->cur;

	if (st->nrefs == MAX_ACQUIRED_REFS) {
		verbose(env, "too many references\n"); /* (the kernel has no fixed bound) */
		return -E2BIG;
	}
	*id = ++env->id_gen;
	st->ref_id[st->nrefs] = *id;
	st->ref_type[st->nrefs] = REF_PTR;
	st->ref_insn[st->nrefs++] = insn_idx;
	return 0;
}

/* R0 becomes a new reference (the kernel's acquire_reference()): the reference's id replaces
 * the one R0 drew for its NULL check (the kernel draws both: both show in later ids). */
static int acquire_r0(struct verifier_env *env, int insn_idx, struct reg_state *r0)
{
	u32 ref;
	int err = acquire_ref(env, insn_idx, &ref);

	if (err)
		return err;
	r0->id = ref;
	r0->ref_obj_id = ref;
	return 0;
}

/* Removes entry i of the path's references. */
static void drop_ref_entry(struct vstate *st, u32 i)
{
	u32 n = st->nrefs - i - 1;

	memmove(&st->ref_id[i], &st->ref_id[i + 1], n * sizeof(st->ref_id[0]));
	memmove(&st->ref_insn[i], &st->ref_insn[i + 1], n * sizeof(st->ref_insn[0]));
	memmove(&st->ref_type[i], &st->ref_type[i + 1], n * sizeof(st->ref_type[0]));
	st->nrefs--;
}

/* bpf_spin_lock(reg) / bpf_spin_unlock(reg): the kernel's process_spin_lock().  The lock is
 * known by the id of the map value it is in (which a lock map's values keep after their NULL
 * check), and held as a reference of its own kind. */
static int process_spin_lock(struct verifier_env *env, u32 regno, bool is_lock, int insn_idx)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	const struct bpf_map *map = reg->map;
	struct vstate *st = env->cur;
	s64 off;

	if (!scalar_is_const(&reg->s)) {
		verbose(env, "R%u doesn't have constant offset. bpf_spin_lock has to be at the "
			     "constant offset\n", regno);
		return -EINVAL;
	}
	if (!map->btf) {
		verbose(env, "map '%s' has to have BTF in order to use bpf_spin_lock\n", map->name);
		return -EINVAL;
	}
	if (map->spin_lock_off < 0) {
		verbose(env, "map '%s' has no valid bpf_spin_lock\n", map->name);
		return -EINVAL;
	}
	off = (s64)reg->s.var_off.value + reg->off;
	if (off != map->spin_lock_off) {
		verbose(env, "off %lld doesn't point to 'struct bpf_spin_lock' that is at %d\n",
			(long long)off, map->spin_lock_off);
		return -EINVAL;
	}
	if (is_lock) {
		if (st->active_locks) {
			verbose(env, "Locking two bpf_spin_locks are not allowed\n");
			return -EINVAL;
		}
		if (st->nrefs == MAX_ACQUIRED_REFS) {
			verbose(env, "too many references\n");
			return -E2BIG;
		}
		st->ref_id[st->nrefs] = reg->id;
		st->ref_type[st->nrefs] = REF_LOCK;
		st->ref_insn[st->nrefs++] = insn_idx;
		st->active_locks++;
		return 0;
	}
	if (!st->active_locks) {
		verbose(env, "bpf_spin_unlock without taking a lock\n");
		return -EINVAL;
	}
	for (u32 i = 0; i < st->nrefs; i++)
		if (st->ref_type[i] == REF_LOCK && st->ref_id[i] == reg->id) {
			drop_ref_entry(st, i);
			st->active_locks--;
			return 0;
		}
	verbose(env, "bpf_spin_unlock of different lock\n");
	return -EINVAL;
}

static void drop_ref_fn(struct reg_state *reg, void *arg)
{
	if (reg->ref_obj_id && reg->ref_obj_id == *(u32 *)arg)
		mark_reg_unknown(reg); /* (privileged: an unknown scalar, not uninitialised) */
}

/* The reference id ends: it leaves the path's list, and every register still pointing at what it
 * held becomes unusable. */
void release_ref(struct verifier_env *env, struct vstate *st, u32 id, bool forget_regs)
{
	for (u32 i = 0; i < st->nrefs; i++)
		if (st->ref_id[i] == id && st->ref_type[i] == REF_PTR) {
			drop_ref_entry(st, i);
			break;
		}
	if (forget_regs)
		for_each_reg(st, drop_ref_fn, &id);
}

/* At the main function's exit, a tail call or LD_ABS: nothing may be held (the kernel's
 * check_resource_leak()). */
int check_reference_leak(struct verifier_env *env, const char *prefix)
{
	struct vstate *st = env->cur;

	/* (as the kernel: a subprogram's exit or tail call is not checked) */
	if (st->nrefs == st->active_locks || st->curframe)
		return 0;
	for (u32 i = 0; i < st->nrefs; i++)
		if (st->ref_type[i] == REF_PTR)
			verbose(env, "Unreleased reference id=%u alloc_insn=%d\n", st->ref_id[i],
				st->ref_insn[i]);
	verbose(env, "%s would lead to reference leak\n", prefix);
	return -EINVAL;
}

int check_resource_leak(struct verifier_env *env, const char *prefix, bool check_lock)
{
	int err;

	if (check_lock && env->cur->active_locks) {
		verbose(env, "%s cannot be used inside bpf_spin_lock-ed region\n", prefix);
		return -EINVAL;
	}
	err = check_reference_leak(env, prefix);
	if (err)
		return err;
	if (check_lock && env->cur->active_rcu_lock) {
		verbose(env, "%s cannot be used inside bpf_rcu_read_lock-ed region\n", prefix);
		return -EINVAL;
	}
	if (check_lock && env->cur->active_preempt_locks) {
		verbose(env, "%s cannot be used inside bpf_preempt_disable-ed region\n", prefix);
		return -EINVAL;
	}
	return 0;
}

static void forget_pkt_fn(struct reg_state *reg, void *arg)
{
	(void)arg;
	if (reg_is_pkt(reg) || reg->type == PTR_TO_PACKET_END ||
	    (reg_is_mem(reg) && (reg->dynptr_type == DYNPTR_TYPE_SKB ||
				 reg->dynptr_type == DYNPTR_TYPE_XDP)))
		mark_reg_unknown(reg); /* (privileged: an unknown scalar, not uninitialised) */
}

/* After a call that may move the packet: no packet pointer of any frame, in a register or
 * spilled, is known to point into it any more (the kernel's clear_all_pkt_pointers()). */
void clear_all_pkt_pointers(struct verifier_env *env)
{
	for_each_reg(env->cur, forget_pkt_fn, NULL);
}

/* subprog[].changes_pkt_data and .might_sleep: set for a function that calls such a helper (a
 * sleeping kfunc too), then for its callers, until nothing changes (the kernel computes them
 * in check_cfg()). */
void mark_subprog_effects(struct verifier_env *env)
{
	bool changed = true;

	for (u32 i = 0; i < env->len; i++) {
		const struct bpf_insn *in = &env->insns[i];
		struct subprog_info *sp;
		const struct bpf_func_proto *fn;
		const struct kfunc_desc *k;

		if (in->code != (BPF_JMP | BPF_CALL))
			continue;
		sp = &env->subprog[find_containing_subprog(env, (int)i)];
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL) {
			k = kfunc_of_insn(in);
			if (k && (k->flags & KF_SLEEPABLE))
				sp->might_sleep = true;
			continue;
		}
		if (in->src_reg || in->imm < 0)
			continue;
		fn = prog_helper_proto(env->prog, (u32)in->imm);
		/* (bpf_dynptr_write() may write an skb's dynptr: 6.18 counts it, whatever the
		 * dynptr turns out to be) */
		if (fn && (fn->changes_pkt_data || in->imm == BPF_FUNC_dynptr_write))
			sp->changes_pkt_data = true;
		if (fn && fn->might_sleep)
			sp->might_sleep = true;
	}
	while (changed) {
		changed = false;
		for (u32 i = 0; i < env->len; i++) {
			const struct bpf_insn *in = &env->insns[i];
			int callee, caller;

			if (in->code != (BPF_JMP | BPF_CALL) || in->src_reg != BPF_PSEUDO_CALL)
				continue;
			callee = find_subprog(env, (int)i + in->imm + 1);
			caller = find_containing_subprog(env, (int)i);
			if (callee >= 0 && env->subprog[callee].changes_pkt_data &&
			    !env->subprog[caller].changes_pkt_data) {
				env->subprog[caller].changes_pkt_data = true;
				changed = true;
			}
			if (callee >= 0 && env->subprog[callee].might_sleep &&
			    !env->subprog[caller].might_sleep) {
				env->subprog[caller].might_sleep = true;
				changed = true;
			}
		}
	}
}

/* Map types whose elements a bpf_for_each_map_elem() callback may walk (the kernel's
 * map_for_each_callback ops). */
static bool map_has_for_each(const struct bpf_map *map)
{
	switch (map->map_type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return !map->inner_meta;
	default:
		return false;
	}
}

/* The state a callback's verification starts from: a copy of the current one, queued to go on
 * at subprogram sub's first instruction (the call at insn_idx). */
static int push_callback_state(struct verifier_env *env, int insn_idx, int sub,
			       struct vstate **st)
{
	if (sub < 0)
		return -EFAULT;
	env->subprog[sub].is_cb = true;
	*st = push_stack(env, env->subprog[sub].start, insn_idx);
	return *st ? 0 : -ENOMEM;
}

/* Queues a timer callback's verification (the kernel's push_async_cb()): not a round of the
 * caller's path but a path of its own, from a fresh state, as the callback runs later on a stack
 * of its own: R1 the timer's map, R2 the element's key, R3 its value.  Its exit ends the path
 * (check_exit()). */
int push_async_callback(struct verifier_env *env, int insn_idx, int sub, struct bpf_map *map)
{
	struct func_state *f;
	struct vstate *st;
	int err = push_callback_state(env, insn_idx, sub, &st);

	if (err)
		return err;
	env->subprog[sub].is_async_cb = true;
	for (u32 i = 1; i <= st->curframe; i++) {
		free(st->frame[i]->stack);
		free(st->frame[i]);
		st->frame[i] = NULL;
	}
	st->curframe = 0;
	if (st->parent) /* (no parent: nothing before it is on its path) */
		st->parent->branches--;
	st->parent = NULL;
	st->first_insn_idx = 0; /* (the kernel's state is zeroed: its precision walks say 0) */
	st->hist_cnt = 0;
	st->nrefs = 0;
	st->active_locks = 0;
	st->callback_unroll_depth = 0;
	f = st->frame[0];
	free(f->stack);
	memset(f, 0, sizeof(*f));
	init_func_state(f, -1, 0, (u32)sub);
	mark_all_scratched(env);
	f->in_async_callback_fn = true;
	mark_ptr(&f->regs[BPF_REG_1], CONST_PTR_TO_MAP);
	f->regs[BPF_REG_1].map = map;
	mark_ptr(&f->regs[BPF_REG_2], PTR_TO_MAP_KEY);
	f->regs[BPF_REG_2].map = map;
	mark_ptr(&f->regs[BPF_REG_3], PTR_TO_MAP_VALUE);
	f->regs[BPF_REG_3].map = map;
	f->regs[BPF_REG_3].id = ++env->id_gen;
	return 0;
}

/* Queues one round of a callback (the kernel's push_callback_call()): a copy of the current
 * state, before the helper's call clobbers anything, with a new frame entering subprogram sub
 * whose registers are what the helper passes (bpf_loop: R1 the index, R2 the ctx; for_each: R1
 * the map, R2 a key, R3 a value, R4 the ctx).  Its exit comes back to the call (check_exit()),
 * which queues the next round until the states converge. */
static int push_callback(struct verifier_env *env, int insn_idx, int sub, struct bpf_map *map,
			 s32 helper)
{
	struct func_state *caller = cur_frame(env), *callee;
	const struct reg_state *cregs = caller->regs;
	struct vstate *st;
	int err = push_callback_state(env, insn_idx, sub, &st);

	if (err)
		return err;
	if (st->curframe + 1 >= MAX_CALL_FRAMES) {
		verbose(env, "the call stack of %u frames is too deep\n", st->curframe + 2);
		return -E2BIG;
	}
	callee = calloc(1, sizeof(*callee));
	if (!callee)
		return -ENOMEM;
	init_func_state(callee, insn_idx, st->curframe + 1, (u32)sub);
	mark_all_scratched(env); /* (so does the kernel's init_func_state()) */
	st->frame[st->curframe + 1] = callee;
	st->curframe++;
	if (helper == BPF_FUNC_find_vma) {
		/* the task, the area (the kernel's struct vm_area_struct), the ctx */
		const struct btf *btf = btf_vmlinux();

		callee->regs[BPF_REG_1] = cregs[BPF_REG_1];
		mark_ptr(&callee->regs[BPF_REG_2], PTR_TO_BTF_ID);
		callee->regs[BPF_REG_2].btf_id =
			btf ? btf_find_by_name_kind(btf, "vm_area_struct", BTF_KIND_STRUCT) : 0;
		callee->regs[BPF_REG_3] = cregs[BPF_REG_4];
	} else if (helper == BPF_FUNC_user_ringbuf_drain) {
		/* a user ring buffer record: R1 a dynptr over it, R2 the ctx */
		mark_const_dynptr(env, &callee->regs[BPF_REG_1], DYNPTR_TYPE_LOCAL);
		callee->regs[BPF_REG_2] = cregs[BPF_REG_3];
	} else if (map) {
		if (!map_has_for_each(map)) {
			verbose(env, "callback function not allowed for map\n");
			return -ENOTSUPP;
		}
		mark_ptr(&callee->regs[BPF_REG_1], CONST_PTR_TO_MAP);
		callee->regs[BPF_REG_1].map = map;
		mark_ptr(&callee->regs[BPF_REG_2], PTR_TO_MAP_KEY);
		callee->regs[BPF_REG_2].map = map;
		mark_ptr(&callee->regs[BPF_REG_3], PTR_TO_MAP_VALUE);
		callee->regs[BPF_REG_3].map = map;
		callee->regs[BPF_REG_3].id = ++env->id_gen;
		callee->regs[BPF_REG_4] = cregs[BPF_REG_3];
	} else {
		mark_reg_unknown(&callee->regs[BPF_REG_1]);
		callee->regs[BPF_REG_2] = cregs[BPF_REG_3];
	}
	callee->in_callback_fn = true;
	st->callback_unroll_depth++;
	st->frame[st->curframe - 1]->callback_depth++;
	caller->callback_depth = 0;
	return 0;
}

/* bpf_snprintf(str, size, fmt, data, data_len): data is an array of u64, one per conversion
 * of the constant fmt (the kernel's check_bpf_snprintf_call(), whose size error has no log
 * line).  check_const_str() has made sure fmt is a NUL-terminated map value. */
static int check_snprintf_fmt(struct verifier_env *env)
{
	const struct reg_state *fmt = &cur_regs(env)[BPF_REG_3];
	u64 len = cur_regs(env)[BPF_REG_5].s.var_off.value;
	u32 key = 0;
	const char *val;
	int err;

	if (len % 8)
		return -EINVAL;
	val = fmt->map->ops->lookup_ptr(fmt->map, &key);
	if (!val) {
		verbose(env, "verifier bug\n");
		return -EFAULT;
	}
	err = bprintf_check(val + fmt->off + (s64)fmt->s.var_off.value, (u32)(len / 8));
	if (err)
		verbose(env, "Invalid format string\n");
	return err;
}

/* bpf_loop(nr_loops, callback, ctx, flags): R4 must be precise while the call could be inlined
 * (the kernel's update_loop_inline_state()), R1 always (its bound ends the rounds); a round is
 * queued while fewer than R1's umax were queued since this frame last called bpf_loop. */
static int loop_callback(struct verifier_env *env, int insn_idx, int sub)
{
	struct insn_aux *aux = &env->aux[insn_idx];
	const struct reg_state *r4 = &cur_regs(env)[BPF_REG_4];
	struct func_state *f = cur_frame(env);
	int err;

	if (!aux->loop_inline_seen || aux->loop_inline_fit) {
		bool zero = reg_is_const(r4) && !r4->s.var_off.value;

		if (zero) {
			err = mark_precise_reg(env, BPF_REG_4);
			if (err)
				return err;
		}
		aux->loop_inline_fit = zero && (!aux->loop_inline_seen ||
						(int)aux->loop_inline_sub == sub);
		aux->loop_inline_seen = 1;
		aux->loop_inline_sub = (u32)sub;
	}
	err = mark_precise_reg(env, BPF_REG_1);
	if (err)
		return err;
	if (f->callback_depth < cur_regs(env)[BPF_REG_1].s.umax)
		return push_callback(env, insn_idx, sub, NULL, BPF_FUNC_loop);
	f->callback_depth = 0;
	if (env->log.level & 2)
		verbose(env, "frame%u bpf_loop iteration limit reached\n", env->cur->curframe);
	return 0;
}

int check_helper_call(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	const struct bpf_func_proto *fn = NULL;
	struct reg_state *regs = cur_regs(env);
	struct bpf_map *map = NULL;
	s32 id = insn->imm;
	bool never_null = false;
	int cb_sub = -1;
	u64 key;
	int err;

	if (id < 0 || (id >= BPF_HELPER_ID_MAX && env->prog->type != USERBPF_PROG_TYPE_EXT)) {
		verbose(env, "invalid func %s#%d\n", helper_name_of(id), id);
		return -EINVAL;
	}
	/* The application's registered helpers for the ext type, the kernel's otherwise. */
	fn = prog_helper_proto(env->prog, (u32)id);
	if (!fn && env->prog->type == USERBPF_PROG_TYPE_EXT) {
		verbose(env, "invalid func unknown#%d\n", id);
		return -EINVAL;
	}
	if (!fn) {
		verbose(env, "program of this type cannot use helper %s#%d\n", helper_name_of(id),
			id);
		return -EINVAL;
	}
	if (!env->prog->gpl_compatible && fn->gpl_only) {
		verbose(env, "cannot call GPL-restricted function from non-GPL compatible program\n");
		return -EINVAL;
	}
	/* a helper that may sleep: in sleepable programs only, not where they must not (before
	 * its arguments, as the kernel checks) */
	if (fn->might_sleep && !in_sleepable(env)) {
		verbose(env, "helper call might sleep in a non-sleepable prog\n");
		return -EINVAL;
	}
	if (fn->might_sleep && (env->cur->active_rcu_lock || env->cur->active_preempt_locks)) {
		verbose(env, "sleepable helper %s#%d in %s region\n", helper_name_of(id), id,
			env->cur->active_rcu_lock ? "rcu_read_lock" : "non-preemptible");
		return -EINVAL;
	}
	for (int i = 0; i < 5; i++) {
		err = check_arg(env, fn, i, &map, &cb_sub, *insn_idx);
		if (err)
			return err;
	}
	/* (the tracing programs have it; kprobes and the tracing type's trampoline programs
	 * may call it) */
	if (id == BPF_FUNC_get_func_ip && env->prog->type == BPF_PROG_TYPE_TRACING &&
	    env->prog->expected_attach_type == BPF_TRACE_RAW_TP) {
		verbose(env, "func %s#%d supported only for fentry/fexit/fmod_ret programs\n",
			helper_name_of(id), id);
		return -ENOTSUPP;
	}
	if (id == BPF_FUNC_get_func_ip && env->prog->type != BPF_PROG_TYPE_KPROBE &&
	    env->prog->type != BPF_PROG_TYPE_TRACING) {
		verbose(env, "func %s#%d not supported for program type %u\n", helper_name_of(id),
			id, env->prog->type);
		return -ENOTSUPP;
	}
	if (id == BPF_FUNC_spin_lock || id == BPF_FUNC_spin_unlock) {
		err = process_spin_lock(env, BPF_REG_1, id == BPF_FUNC_spin_lock, *insn_idx);
		if (err)
			return err;
	}
	/* a BPF_F_RDONLY_PROG map is read-only to programs through helpers too (which is what
	 * lets the verifier read a frozen one's values as constants) */
	if (map && (map->map_flags & BPF_F_RDONLY_PROG) &&
	    (id == BPF_FUNC_map_update_elem || id == BPF_FUNC_map_delete_elem ||
	     id == BPF_FUNC_map_push_elem || id == BPF_FUNC_map_pop_elem)) {
		verbose(env, "write into map forbidden\n");
		return -EACCES;
	}
	/* the helper cannot fail, so it has no flags to refuse: they must be 0, a fact the
	 * state's pruning must keep (the kernel's register_is_null() and precision mark) */
	if (id == BPF_FUNC_get_local_storage) {
		if (!reg_is_const(&regs[BPF_REG_2]) || regs[BPF_REG_2].s.var_off.value) {
			verbose(env, "get_local_storage() doesn't support non-zero flags\n");
			return -EINVAL;
		}
		err = mark_precise_reg(env, BPF_REG_2);
		if (err)
			return err;
	}
	/* the callback's round is queued before the helper's return is modelled (as in 6.18,
	 * whose map compatibility check comes after) */
	if (id == BPF_FUNC_for_each_map_elem || id == BPF_FUNC_user_ringbuf_drain ||
	    id == BPF_FUNC_find_vma) {
		err = push_callback(env, *insn_idx, cb_sub, map, id);
		if (err)
			return err;
	} else if (id == BPF_FUNC_loop) {
		err = loop_callback(env, *insn_idx, cb_sub);
		if (err)
			return err;
	} else if (id == BPF_FUNC_timer_set_callback) {
		err = push_async_callback(env, *insn_idx, cb_sub, map);
		if (err)
			return err;
	}
	/* program arrays go with bpf_tail_call only, ring buffers with the ringbuf helpers, queues
	 * and stacks with push/pop/peek, bloom filters with push/peek, device maps and AF_XDP
	 * socket maps with redirect_map (and lookups), CPU maps with redirect_map, cgroup arrays
	 * with the two under_cgroup tests, perf event arrays with perf_event_output, cgroup
	 * storage with get_local_storage, socket, task, cgroup and inode storage with their own
	 * helpers, stack maps with get_stackid, reuseport arrays with sk_select_reuseport (which
	 * takes socket maps too), and those helpers with them (the kernel's
	 * check_map_func_compatibility()) */
	bool queue_stack = map && (map->map_type == BPF_MAP_TYPE_QUEUE ||
				   map->map_type == BPF_MAP_TYPE_STACK);
	bool bloom = map && map->map_type == BPF_MAP_TYPE_BLOOM_FILTER;
	bool devmap = map && (map->map_type == BPF_MAP_TYPE_DEVMAP ||
			      map->map_type == BPF_MAP_TYPE_DEVMAP_HASH);
	bool cpumap = map && map->map_type == BPF_MAP_TYPE_CPUMAP;
	bool xskmap = map && map->map_type == BPF_MAP_TYPE_XSKMAP;
	bool cgroup_fn = id == BPF_FUNC_skb_under_cgroup || id == BPF_FUNC_current_task_under_cgroup;

	if (map && ((map->map_type == BPF_MAP_TYPE_PROG_ARRAY) != (id == BPF_FUNC_tail_call) ||
		    (map->map_type == BPF_MAP_TYPE_RINGBUF) !=
			    (id == BPF_FUNC_ringbuf_output || id == BPF_FUNC_ringbuf_query ||
			     id == BPF_FUNC_ringbuf_reserve || id == BPF_FUNC_ringbuf_reserve_dynptr) ||
		    (queue_stack || bloom) != (id == BPF_FUNC_map_push_elem ||
					       id == BPF_FUNC_map_peek_elem ||
					       (!bloom && id == BPF_FUNC_map_pop_elem)) ||
		    (devmap || cpumap || xskmap) !=
			    (id == BPF_FUNC_redirect_map ||
			     ((devmap || xskmap) && id == BPF_FUNC_map_lookup_elem)) ||
		    (id == BPF_FUNC_map_lookup_percpu_elem && !map->ops->lookup_percpu_ptr) ||
		    (map->map_type == BPF_MAP_TYPE_CGROUP_ARRAY) != cgroup_fn ||
		    (map->map_type == BPF_MAP_TYPE_PERF_EVENT_ARRAY) !=
			    (id == BPF_FUNC_perf_event_output) ||
		    (map->map_type == BPF_MAP_TYPE_CGROUP_STORAGE ||
		     map->map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE) !=
			    (id == BPF_FUNC_get_local_storage) ||
		    (map->map_type == BPF_MAP_TYPE_SK_STORAGE) !=
			    (id == BPF_FUNC_sk_storage_get || id == BPF_FUNC_sk_storage_delete) ||
		    (map->map_type == BPF_MAP_TYPE_TASK_STORAGE) !=
			    (id == BPF_FUNC_task_storage_get ||
			     id == BPF_FUNC_task_storage_delete) ||
		    (map->map_type == BPF_MAP_TYPE_INODE_STORAGE) !=
			    (id == BPF_FUNC_inode_storage_get ||
			     id == BPF_FUNC_inode_storage_delete) ||
		    (map->map_type == BPF_MAP_TYPE_CGRP_STORAGE) !=
			    (id == BPF_FUNC_cgrp_storage_get ||
			     id == BPF_FUNC_cgrp_storage_delete) ||
		    (map->map_type == BPF_MAP_TYPE_STACK_TRACE) != (id == BPF_FUNC_get_stackid) ||
		    (map->map_type == BPF_MAP_TYPE_USER_RINGBUF) !=
			    (id == BPF_FUNC_user_ringbuf_drain) ||
		    (map->map_type == BPF_MAP_TYPE_REUSEPORT_SOCKARRAY &&
		     id != BPF_FUNC_sk_select_reuseport) ||
		    (id == BPF_FUNC_sk_select_reuseport &&
		     map->map_type != BPF_MAP_TYPE_REUSEPORT_SOCKARRAY && !is_sockmap(map)) ||
		    (map->inner_meta && id != BPF_FUNC_map_lookup_elem) ||
		    (sockmap_fn(id) && map->map_type != BPF_MAP_TYPE_SOCKMAP) ||
		    (sockhash_fn(id) && map->map_type != BPF_MAP_TYPE_SOCKHASH) ||
		    (is_sockmap(map) && id != BPF_FUNC_map_lookup_elem && !sockmap_fn(id) &&
		     !sockhash_fn(id) && id != BPF_FUNC_sk_select_reuseport &&
		     !may_update_sockmap(env, id)))) {
		verbose(env, "cannot pass map_type %u into func %s#%d\n", map->map_type, fn->name,
			id);
		return -EINVAL;
	}
	if (id == BPF_FUNC_snprintf) {
		err = check_snprintf_fmt(env);
		if (err)
			return err;
	}
	/* R2 is the key; read before the call clobbers it (the kernel keeps the key as s64 and
	 * wants it in [0, max_entries)) */
	if (map && lookup_never_null(map) && fn->arg_type[1] == ARG_PTR_TO_MAP_KEY) {
		int spi = -1;
		bool known = const_map_key(env, &regs[BPF_REG_2], map->key_size, &key, &spi);

		/* a constant read from a spilled scalar: its value matters */
		if (known && spi >= 0) {
			err = mark_precise_slot(env, regs[BPF_REG_2].frameno, (u32)spi);
			if (err)
				return err;
		}
		if (id == BPF_FUNC_map_lookup_elem && known && (s64)key >= 0 &&
		    key < map->max_entries)
			never_null = true;
	}
	u64 size_max = 0; /* the bound of the buffer's size (the kernel's msize_max_value) */

	for (int i = 0; i < 5; i++)
		if (fn->arg_type[i] == ARG_CONST_SIZE || fn->arg_type[i] == ARG_CONST_SIZE_OR_ZERO) {
			size_max = regs[BPF_REG_1 + i].s.umax;
			break;
		}
	u32 release_id = 0, alloc_size = 0, cast_ref = 0, slice_of = 0, slice_ref = 0;
	/* a write through an skb's dynptr may move the packet */
	bool skb_dynptr = id == BPF_FUNC_dynptr_write &&
			  ((regs[BPF_REG_1].type == CONST_PTR_TO_DYNPTR &&
			    regs[BPF_REG_1].dynptr_type == DYNPTR_TYPE_SKB) ||
			   (regs[BPF_REG_1].type == PTR_TO_STACK &&
			    dynptr_arg_type(env, BPF_REG_1) == DYNPTR_TYPE_SKB));

	if (id == BPF_FUNC_tail_call) {
		/* a constant index into the array is a direct jump for the kernel's JIT: precise
		 * (its record_func_key()) */
		if (map && scalar_is_const(&regs[BPF_REG_3].s) &&
		    regs[BPF_REG_3].s.var_off.value < map->max_entries) {
			err = mark_precise_reg(env, BPF_REG_3);
			if (err)
				return err;
		}
		err = check_resource_leak(env, "tail_call", true);
		if (err)
			return err;
	}
	for (int i = 0; i < 5; i++) {
		if (fn->arg_type[i] == ARG_PTR_TO_RINGBUF_MEM_RELEASE ||
		    fn->arg_type[i] == ARG_PTR_TO_SOCK_RELEASE ||
		    fn->arg_type[i] == ARG_PTR_TO_BTF_ID_KPTR_RELEASE)
			release_id = regs[BPF_REG_1 + i].ref_obj_id;
		/* a cast of a socket (bpf_sk_fullsock(), bpf_tcp_sock()) holds the reference it
		 * was given */
		if ((id == BPF_FUNC_sk_fullsock || id == BPF_FUNC_tcp_sock) &&
		    regs[BPF_REG_1 + i].ref_obj_id)
			cast_ref = regs[BPF_REG_1 + i].ref_obj_id;
		if (fn->arg_type[i] == ARG_CONST_ALLOC_SIZE_OR_ZERO)
			alloc_size = (u32)regs[BPF_REG_1 + i].s.var_off.value;
	}
	if (release_id)
		release_ref(env, env->cur, release_id, true);
	for (int i = 0; i < 5; i++) {
		if (fn->arg_type[i] == ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE) {
			err = release_dynptr_arg(env, BPF_REG_1 + (u32)i);
			if (err)
				return err;
		}
		/* bpf_dynptr_data()'s slice belongs to its dynptr (and its reference) */
		if (fn->ret_type == RET_PTR_TO_DYNPTR_MEM_OR_NULL &&
		    fn->arg_type[i] == ARG_PTR_TO_DYNPTR_RDONLY) {
			err = dynptr_arg_ids(env, BPF_REG_1 + (u32)i, &slice_of, &slice_ref);
			if (err)
				return err;
		}
	}
	/* a local dynptr is over a map value only (6.18: "Unsupported reg type") */
	if (id == BPF_FUNC_dynptr_from_mem && regs[BPF_REG_1].type != PTR_TO_MAP_VALUE) {
		verbose(env, "Unsupported reg type %s for bpf_dynptr_from_mem data\n",
			reg_type_str(regs[BPF_REG_1].type));
		return -EACCES;
	}

	clobber_caller_saved(env, regs);
	switch (fn->ret_type) {
	case RET_INTEGER:
		mark_reg_unknown(&regs[BPF_REG_0]);
		refine_retval(&regs[BPF_REG_0], id, size_max);
		break;
	case RET_VOID:
		mark_reg_not_init(&regs[BPF_REG_0]);
		break;
	case RET_PTR_TO_MAP_VALUE:
	case RET_PTR_TO_MAP_VALUE_OR_NULL:
		if (!map) {
			verbose(env, "kernel subsystem misconfigured verifier\n");
			return -EINVAL;
		}
		if (never_null || fn->ret_type == RET_PTR_TO_MAP_VALUE) {
			mark_ptr(&regs[BPF_REG_0], PTR_TO_MAP_VALUE);
			regs[BPF_REG_0].map = map;
			/* a value with a lock is known by its id (process_spin_lock()) */
			if (map->spin_lock_off >= 0)
				regs[BPF_REG_0].id = ++env->id_gen;
			break;
		}
		if (is_sockmap(map)) {
			/* a socket map's: a socket reference (below), or NULL */
			mark_ptr(&regs[BPF_REG_0], PTR_TO_SOCKET_OR_NULL);
		} else if (map->map_type == BPF_MAP_TYPE_XSKMAP) {
			/* an AF_XDP socket's queue (no reference: XDP runs under RCU) */
			mark_ptr(&regs[BPF_REG_0], PTR_TO_XDP_SOCK_OR_NULL);
		} else if (map->inner_meta) {
			/* a map of maps: maybe an inner map, known by its template (6.18.y; before,
			 * a map value turned into the map at the NULL check) */
			mark_ptr(&regs[BPF_REG_0], CONST_PTR_TO_MAP_OR_NULL);
			regs[BPF_REG_0].map = map->inner_meta;
		} else {
			mark_ptr(&regs[BPF_REG_0], PTR_TO_MAP_VALUE_OR_NULL);
			regs[BPF_REG_0].map = map;
		}
		regs[BPF_REG_0].id = ++env->id_gen;
		if (is_sockmap(map)) {
			err = acquire_r0(env, *insn_idx, &regs[BPF_REG_0]);
			if (err)
				return err;
		}
		break;
	case RET_PTR_TO_SOCKET_OR_NULL:
	case RET_PTR_TO_SOCK_COMMON_OR_NULL:
	case RET_PTR_TO_TCP_SOCK_OR_NULL:
		mark_ptr(&regs[BPF_REG_0],
			 fn->ret_type == RET_PTR_TO_SOCKET_OR_NULL	   ? PTR_TO_SOCKET_OR_NULL
			 : fn->ret_type == RET_PTR_TO_SOCK_COMMON_OR_NULL ? PTR_TO_SOCK_COMMON_OR_NULL
									   : PTR_TO_TCP_SOCK_OR_NULL);
		regs[BPF_REG_0].id = ++env->id_gen;
		regs[BPF_REG_0].ref_obj_id = cast_ref;
		/* a lookup's socket is a reference (the kernel's is_acquire_function()) */
		if (id == BPF_FUNC_sk_lookup_tcp || id == BPF_FUNC_sk_lookup_udp ||
		    id == BPF_FUNC_skc_lookup_tcp) {
			err = acquire_r0(env, *insn_idx, &regs[BPF_REG_0]);
			if (err)
				return err;
		}
		break;
	case RET_PTR_TO_BTF_ID_KPTR_OR_NULL:
		/* what the kptr held: a reference of the program's now */
		mark_ptr(&regs[BPF_REG_0], PTR_TO_BTF_ID_OR_NULL);
		regs[BPF_REG_0].btf_id = env->kptr_xchg->btf_id;
		regs[BPF_REG_0].id = ++env->id_gen;
		err = acquire_r0(env, *insn_idx, &regs[BPF_REG_0]);
		if (err)
			return err;
		break;
	case RET_PTR_TO_MEM_OR_BTF_ID:
	case RET_PTR_TO_MEM_OR_BTF_ID_OR_NULL: {
		/* the variable's copy: a ptr_ to a struct, read-only memory of any other type */
		const struct btf *btf = btf_vmlinux();
		u32 var_type = env->percpu_btf_id, size;
		const struct btf_type *t = btf_skip_modifiers(btf, var_type, NULL);
		bool or_null = fn->ret_type == RET_PTR_TO_MEM_OR_BTF_ID_OR_NULL;

		if (t && (BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT ||
			  BTF_INFO_KIND(t->info) == BTF_KIND_UNION)) {
			mark_ptr(&regs[BPF_REG_0], or_null ? PTR_TO_BTF_ID_OR_NULL : PTR_TO_BTF_ID);
			regs[BPF_REG_0].btf_id = var_type;
		} else if (btf_type_id_size(btf, &var_type, &size)) {
			mark_ptr(&regs[BPF_REG_0],
				 or_null ? PTR_TO_RDONLY_MEM_OR_NULL : PTR_TO_RDONLY_MEM);
			regs[BPF_REG_0].mem_size = size;
		} else {
			verbose(env, "unable to resolve the size of type '%s': %d\n",
				btf_id_name(env->percpu_btf_id), -EINVAL);
			return -EINVAL;
		}
		if (or_null)
			regs[BPF_REG_0].id = ++env->id_gen;
		break;
	}
	case RET_PTR_TO_BTF_ID_TASK: {
		u32 task = btf_vmlinux_task_struct();

		if (!task) {
			verbose(env, "kernel subsystem misconfigured verifier\n");
			return -EINVAL;
		}
		mark_ptr(&regs[BPF_REG_0], PTR_TO_BTF_ID_TRUSTED);
		regs[BPF_REG_0].btf_id = task;
		break;
	}
	case RET_PTR_TO_RINGBUF_MEM_OR_NULL:
		mark_ptr(&regs[BPF_REG_0], PTR_TO_RINGBUF_MEM_OR_NULL);
		regs[BPF_REG_0].id = ++env->id_gen;
		err = acquire_r0(env, *insn_idx, &regs[BPF_REG_0]);
		if (err)
			return err;
		regs[BPF_REG_0].mem_size = alloc_size;
		break;
	case RET_PTR_TO_DYNPTR_MEM_OR_NULL:
		mark_ptr(&regs[BPF_REG_0], PTR_TO_MEM_OR_NULL);
		regs[BPF_REG_0].mem_size = alloc_size;
		regs[BPF_REG_0].id = ++env->id_gen;
		regs[BPF_REG_0].dynptr_id = slice_of;
		regs[BPF_REG_0].ref_obj_id = slice_ref;
		break;
	}
	if (fn->changes_pkt_data || skb_dynptr)
		clear_all_pkt_pointers(env);
	if (id == BPF_FUNC_tail_call && env->cur->curframe) {
		/* 6.18: a tail call in a subprogram returns from it with the target's r0 (the
		 * target runs in its frame), and the next instruction is the call that failed */
		if (!push_stack(env, *insn_idx + 1, *insn_idx))
			return -ENOMEM;
		mark_reg_unknown(&regs[BPF_REG_0]);
		return TAIL_CALL_EXIT;
	}
	return 0;
}

/* A global function's memory argument (the kernel's check_mem_reg()): NULL, or a pointer to
 * size bytes the function may read and write (a maybe-NULL one checked as if it were not NULL);
 * the caller's stack bytes must be initialised, and become some unknown data. */
static int check_mem_arg(struct verifier_env *env, u32 regno, u32 size)
{
	struct reg_state *reg = &cur_regs(env)[regno], saved = *reg;
	int err;

	/* NULL: precise, as a helper's NULL argument */
	if (reg_is_const(reg) && !reg->s.var_off.value)
		return mark_precise_reg(env, regno);
	/* no check of the register's type before its bytes: the ctx of a program type whose
	 * ctx loads are not rewritten gets a ctx check of its last byte, anything else that
	 * is not memory the kernel's "expected=fp" */
	reg->type = reg_type_not_null(reg->type);
	err = check_helper_mem(env, regno, (int)size, true, false, false);
	if (!err)
		err = check_helper_mem(env, regno, (int)size, true, true, false);
	*reg = saved;
	return err;
}

/* A call of a global function: its arguments are checked against the prototype, and it is
 * assumed to return some scalar; it is verified on its own after the caller (do_check_globals). */
static int call_global(struct verifier_env *env, u32 sub)
{
	struct subprog_info *sp = &env->subprog[sub];
	struct reg_state *regs = cur_regs(env);
	int err = 0;

	/* the prototype first: an integer return, no pointer to something without a size */
	if (sp->bad_ret) {
		verbose(env, "Global function %s() doesn't return scalar. Only those are supported.\n",
			sp->name);
		err = -EINVAL;
		goto out;
	}
	for (u32 a = 0; a < sp->nargs; a++) {
		const struct btf_type *t;
		u32 ref;

		if (sp->arg[a] != GARG_UNSIZED)
			continue;
		t = btf_skip_modifiers(env->btf, sp->arg_size[a], &ref);
		verbose(env, "arg#%u reference type('%s %s') size cannot be determined: %d\n", a,
			btf_kind_str(t ? BTF_INFO_KIND(t->info) : 0),
			t ? btf_str_by_offset(env->btf, t->name_off) : "", -EINVAL);
		err = -EINVAL;
		goto out;
	}
	for (u32 a = 0; a < sp->nargs; a++) {
		const struct reg_state *r = &regs[BPF_REG_1 + a];
		bool ok = sp->arg[a] == GARG_SCALAR ? r->type == SCALAR_VALUE : r->type == PTR_TO_CTX;

		if (sp->arg[a] == GARG_MEM || sp->arg[a] == GARG_DYNPTR) {
			/* (a pointer that takes no offset, a moved ctx, is refused first) */
			if (sp->arg[a] == GARG_MEM) {
				err = func_arg_reg_off(env, r, BPF_REG_1 + a);
				if (err)
					goto out;
			}
			err = sp->arg[a] == GARG_MEM ? check_mem_arg(env, BPF_REG_1 + a, sp->arg_size[a])
						     : check_global_dynptr_arg(env, BPF_REG_1 + a);
			if (err) {
				/* (a memory argument's error is EINVAL whatever it was) */
				if (sp->arg[a] == GARG_MEM)
					err = -EINVAL;
				goto out;
			}
			continue;
		}

		if (ok && sp->arg[a] == GARG_CTX && (r->off || !scalar_is_const(&r->s) ||
						   r->s.var_off.value)) {
			verbose(env, "dereference of modified ctx ptr R%u off=%d disallowed\n",
				BPF_REG_1 + a, r->off);
			err = -EACCES;
			goto out;
		}
		if (!ok) {
			if (sp->arg[a] == GARG_SCALAR)
				verbose(env, "R%u is not a scalar\n", BPF_REG_1 + a);
			else
				verbose(env, "arg#%u expects pointer to ctx\n", a);
			err = -EINVAL;
			goto out;
		}
	}
out:
	/* (after the arguments' checks, as 6.18 orders them) */
	if (env->cur->active_locks) {
		verbose(env, "global function calls are not allowed while holding a lock,\n"
			     "use static function instead\n");
		return -EINVAL;
	}
	if (sp->might_sleep && (env->cur->active_rcu_lock || env->cur->active_preempt_locks ||
				!in_sleepable(env))) {
		verbose(env, "global functions that may sleep are not allowed in non-sleepable "
			     "context,\ni.e., in a RCU/IRQ/preempt-disabled section, or in\n"
			     "a non-sleepable BPF program context\n");
		return -EINVAL;
	}
	if (err) {
		verbose(env, "Caller passes invalid args into func#%u ('%s')\n", sub, sp->name);
		return err;
	}
	verbose(env, "Func#%u ('%s') is global and assumed valid.\n", sub, sp->name);
	if (sp->changes_pkt_data)
		clear_all_pkt_pointers(env);
	sp->called = true;
	clobber_caller_saved(env, regs);
	mark_reg_unknown(&regs[BPF_REG_0]);
	return 0;
}

int check_func_call(struct verifier_env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct vstate *st = env->cur;
	struct func_state *caller = cur_frame(env), *callee;
	int target = *insn_idx + insn->imm + 1;
	int sub = find_subprog(env, target);

	if (st->curframe + 1 >= MAX_CALL_FRAMES) {
		verbose(env, "the call stack of %u frames is too deep\n", st->curframe + 2);
		return -E2BIG;
	}
	if (sub < 0) {
		verbose(env, "verifier bug. No program starts at insn %d\n", target);
		return -EFAULT;
	}
	if (env->subprog[sub].global)
		return call_global(env, (u32)sub);
	callee = calloc(1, sizeof(*callee));
	if (!callee)
		return -ENOMEM;
	init_func_state(callee, *insn_idx, st->curframe + 1, (u32)sub);
	for (int i = BPF_REG_1; i <= BPF_REG_5; i++)
		callee->regs[i] = caller->regs[i];
	clobber_caller_saved(env, caller->regs);
	st->frame[st->curframe + 1] = callee;
	st->curframe++;
	if (env->log.level & BPF_LOG_LEVEL_ANY) {
		verbose(env, "caller:\n");
		print_state(env, st, caller, true);
		verbose(env, "callee:\n");
		print_state(env, st, callee, true);
	}
	/* the callee's first instruction shows its whole frame, R10 included, as 6.18 does */
	mark_all_scratched(env);
	sl_reset_chain(env);
	*insn_idx = env->subprog[sub].start - 1;
	return 0;
}

/* "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]" (the
 * kernel's verbose_invalid_scalar()). */
static void verbose_invalid_scalar(struct verifier_env *env, const struct reg_state *reg,
				   int minval, int maxval, const char *ctx, const char *name)
{
	bool unknown = true;

	verbose(env, "%s the register %s has", ctx, name);
	if (reg->s.smin > SCALAR_S64_MIN) {
		verbose(env, " smin=%lld", (long long)reg->s.smin);
		unknown = false;
	}
	if (reg->s.smax < SCALAR_S64_MAX) {
		verbose(env, " smax=%lld", (long long)reg->s.smax);
		unknown = false;
	}
	if (unknown)
		verbose(env, " unknown scalar value");
	verbose(env, " should have been in [%d, %d]\n", minval, maxval);
}

/* R0 at an exit must be a known scalar in [lo, hi]; it decides a verdict, so it is precise.
 * `where` starts the error line ("At program exit"). */
static int check_r0_range(struct verifier_env *env, int lo, int hi, const char *where)
{
	const struct reg_state *r0 = &cur_regs(env)[BPF_REG_0];
	int err;

	if (r0->type != SCALAR_VALUE) {
		verbose(env, "%s the register R0 is not a known value (%s)\n", where,
			reg_type_str(r0->type));
		return -EINVAL;
	}
	err = mark_precise_reg(env, BPF_REG_0);
	if (err)
		return err;
	if (r0->s.smin < lo || r0->s.smax > hi) {
		verbose_invalid_scalar(env, r0, lo, hi, where, "R0");
		return -EINVAL;
	}
	return 0;
}

/* The main program's return value where its type limits it (the kernel's check_return_code()):
 * a cgroup skb program answers 0 (drop) or 1 (pass), an egress one 2 and 3 too (the same with
 * congestion notification); the other cgroup programs and socket lookups 0 or 1, as a sock_addr
 * one, but a bind hook may add 2 (its port needs no privilege) and the recvmsg, getpeername and
 * getsockname hooks, which cannot refuse, must return 1.  A value that decides the verdict is
 * precise. */
static int check_return_range(struct verifier_env *env)
{
	int lo = 0, hi = 1, err;

	switch (env->prog->type) {
	case BPF_PROG_TYPE_CGROUP_SKB:
		if (env->prog->expected_attach_type == BPF_CGROUP_INET_EGRESS)
			hi = 3;
		break;
	case BPF_PROG_TYPE_CGROUP_SOCK: /* refuse (0) or allow (1) the socket */
	case BPF_PROG_TYPE_CGROUP_DEVICE: /* ... or the device access */
	case BPF_PROG_TYPE_CGROUP_SOCKOPT: /* ... or the option's get or set */
	case BPF_PROG_TYPE_CGROUP_SYSCTL: /* ... or the sysctl's read or write */
	case BPF_PROG_TYPE_SOCK_OPS:	  /* (its verdict is in ctx->reply; 0 or 1 all the same) */
	case BPF_PROG_TYPE_SK_LOOKUP: /* SK_DROP or SK_PASS */
		break;
	case BPF_PROG_TYPE_TRACING:
		/* fentry and fexit return 0 (the trampoline ignores it); tp_btf and fmod_ret
		 * anything (fmod_ret's is the function's return value, if not 0) */
		if (env->prog->expected_attach_type == BPF_TRACE_ITER)
			break; /* 0 or 1 (1: show the element again) */
		if (env->prog->expected_attach_type != BPF_TRACE_FENTRY &&
		    env->prog->expected_attach_type != BPF_TRACE_FEXIT)
			return 0;
		hi = 0;
		break;
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
		if (sock_addr_hook(env->prog->expected_attach_type) == SA_HOOK_BIND)
			hi = 3;
		else if (sock_addr_hook(env->prog->expected_attach_type) == SA_HOOK_MUST_ALLOW)
			lo = 1;
		break;
	default:
		return 0;
	}
	err = check_r0_range(env, lo, hi, "At program exit");
	/* an egress program that says 2 or 3 (congestion notification) attaches as egress only */
	if (!err && hi == 3 && env->prog->type == BPF_PROG_TYPE_CGROUP_SKB &&
	    tnum_in(tnum_range(2, 3), cur_regs(env)[BPF_REG_0].s.var_off))
		env->prog->enforce_expected_attach_type = true;
	return err;
}

/* A timer's or a work item's callback returns 0, task work's any int (the kernel enforces it;
 * the caller ignores the value). */
static int check_async_return(struct verifier_env *env)
{
	bool any = env->subprog[env->cur->frame[0]->subprogno].async_any_return;

	return check_r0_range(env, any ? INT32_MIN : 0, any ? INT32_MAX : 0,
			      "At async callback return");
}

/* Returns 0 and sets *path_done when the path ended (main program exit), else continues at
 * *insn_idx in the caller. */
int check_exit(struct verifier_env *env, int *insn_idx, bool *path_done)
{
	struct vstate *st = env->cur;
	struct func_state *callee, *caller;
	int err;

	*path_done = false;
	if (st->curframe == 0) {
		err = check_resource_leak(env, "BPF_EXIT instruction in main prog", true);
		if (err)
			return err;
		err = check_reg_arg_read(env, BPF_REG_0);
		if (err)
			return err;
		if (st->frame[0]->in_async_callback_fn) {
			err = check_async_return(env);
			if (err)
				return err;
			*path_done = true;
			return 0;
		}
		/* the path started in a global function (verified on its own): it returns a scalar */
		if (st->frame[0]->subprogno && cur_regs(env)[BPF_REG_0].type != SCALAR_VALUE) {
			verbose(env, "At subprogram exit the register R0 is not a scalar value (%s)\n",
				reg_type_str(cur_regs(env)[BPF_REG_0].type));
			return -EINVAL;
		}
		if (!st->frame[0]->subprogno) {
			err = check_return_range(env);
			if (err)
				return err;
		}
		*path_done = true;
		return 0;
	}
	err = sl_update(env);
	if (err)
		return err;
	callee = st->frame[st->curframe];
	caller = st->frame[st->curframe - 1];
	if (callee->regs[BPF_REG_0].type == PTR_TO_STACK) {
		verbose(env, "cannot return stack pointer to the caller\n");
		return -EINVAL;
	}
	if (callee->in_callback_fn) {
		const struct reg_state *r0 = &callee->regs[BPF_REG_0];

		if (r0->type != SCALAR_VALUE) {
			verbose(env, "R0 not a scalar value\n");
			return -EACCES;
		}
		/* the helper acts on the value: 0 goes on, 1 stops */
		err = mark_precise_reg(env, BPF_REG_0);
		if (err)
			return err;
		if (r0->s.smin < 0 || r0->s.smax > 1) {
			verbose_invalid_scalar(env, r0, 0, 1, "At callback return", "R0");
			return -EINVAL;
		}
		/* back to the call, which may run the callback again */
		*insn_idx = callee->callsite;
	} else {
		caller->regs[BPF_REG_0] = callee->regs[BPF_REG_0];
		*insn_idx = callee->callsite + 1;
	}
	if (env->log.level & BPF_LOG_LEVEL_ANY) {
		verbose(env, "returning from callee:\n");
		print_state(env, st, callee, true);
		verbose(env, "to caller at %d:\n", *insn_idx);
		print_state(env, st, caller, true);
	}
	bool in_callback = callee->in_callback_fn;

	free(callee->stack);
	free(callee);
	st->frame[st->curframe] = NULL;
	st->curframe--;
	if (in_callback)
		widen_imprecise_scalars(env, *insn_idx);
	return 0;
}
