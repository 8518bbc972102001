/* Resolution of 64-bit immediate loads that name maps, and the first pass of opcode sanity checks.
 *
 * One linear pass, in the kernel's order: LDX with reserved fields, then LD_IMM64 shape (second
 * slot present and otherwise zero), its pseudo kind, the fd (looked up in userbpf's fd table
 * under rcu_read_lock(), a reference taken for the program), and the direct value offset; any
 * other opcode byte must be one the instruction list (src/insn.h) knows.  Each distinct map is
 * recorded once in env->used_maps; the address (the struct bpf_map, or the value's address for
 * BPF_PSEUDO_MAP_VALUE) replaces the fd in the two imm halves, low half first.  On failure the
 * caller drops the references with release_maps().
 */
#include <errno.h>
#include <stdlib.h>

#include "btf/vmlinux.h"
#include "exec/helpers/impl.h"
#include "exec/kernel_vars.h"
#include "exec/kfuncs.h"
#include "kallsyms.h"
#include "map/map.h"
#include "prog/prog.h"
#include "rcu.h"
#include "verifier/env.h"

/* Records map in env->used_maps with a reference: 1 if it is new there, 0 if it was already,
 * or -errno. */
/* The map types a sleepable program may use (the kernel's check_map_prog_compatibility()). */
static bool sleepable_map_ok(u32 type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_USER_RINGBUF:
	case BPF_MAP_TYPE_SK_STORAGE:
	case BPF_MAP_TYPE_TASK_STORAGE:
	case BPF_MAP_TYPE_CGRP_STORAGE:
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		return true;
	default:
		return false;
	}
}

static int use_map(struct verifier_env *env, struct bpf_map *map)
{
	for (u32 j = 0; j < env->used_map_cnt; j++)
		if (env->used_maps[j] == map)
			return 0;
	if (env->used_map_cnt >= MAX_USED_MAPS) {
		verbose(env, "The total number of maps per program has reached the limit of %u\n",
			MAX_USED_MAPS);
		return -E2BIG;
	}
	if (!env->used_maps) {
		env->used_maps = calloc(MAX_USED_MAPS, sizeof(*env->used_maps));
		if (!env->used_maps)
			return -ENOMEM;
	}
	if (!obj_tryget(&map->obj))
		return -EBADF; /* its fd closed meanwhile */
	env->used_maps[env->used_map_cnt++] = map;
	return 1;
}

void release_maps(struct verifier_env *env)
{
	for (u32 j = 0; j < env->used_map_cnt; j++)
		obj_put(&env->used_maps[j]->obj);
	free(env->used_maps);
	env->used_maps = NULL;
	env->used_map_cnt = 0;
}

/* Whether the kernel's BTF places variable var_id in its per-CPU section. */
static bool var_is_percpu(const struct btf *btf, u32 var_id)
{
	u32 sec = btf_find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_type *t = sec ? btf_type_by_id(btf, sec) : NULL;
	const struct btf_var_secinfo *v = t ? (const struct btf_var_secinfo *)(t + 1) : NULL;

	for (u32 i = 0; t && i < BTF_INFO_VLEN(t->info); i++)
		if (v[i].type == var_id)
			return true;
	return false;
}

/* A kernel variable's LD_IMM64 (the kernel's check_pseudo_btf_id()): a per-CPU one is a
 * percpu_ptr_ of its type, a struct a ptr_ to it, anything else read-only memory of its size.
 * Its address here is the zeroed region of kernel_vars.h. */
static int resolve_btf_var(struct verifier_env *env, struct bpf_insn *in, struct insn_aux *aux,
			   const struct btf *btf, const struct btf_type *t, const char *name)
{
	const void *mem = kernel_var_memory();
	const struct btf_type *vt;
	u32 size = 0, id = t->type, size_id = t->type;
	bool sized;
	u64 addr;

	if (kallsyms_lookup(name, &addr, NULL) == -ENOENT) {
		verbose(env, "ldimm64 failed to find the address for kernel symbol '%s'.\n", name);
		return -ENOENT;
	}
	vt = btf_skip_modifiers(btf, t->type, NULL);
	sized = btf_type_id_size(btf, &size_id, &size) != NULL;
	if (var_is_percpu(btf, (u32)in[0].imm)) {
		aux->ksym_type = PTR_TO_PERCPU_BTF_ID;
		aux->ksym_btf_id = id;
	} else if (vt && (BTF_INFO_KIND(vt->info) == BTF_KIND_STRUCT ||
			  BTF_INFO_KIND(vt->info) == BTF_KIND_UNION)) {
		aux->ksym_type = PTR_TO_BTF_ID;
		aux->ksym_btf_id = id;
	} else {
		if (!sized) {
			const char *tname = vt ? btf_str_by_offset(btf, vt->name_off) : "";

			verbose(env, "ldimm64 unable to resolve the size of type '%s': %d\n",
				tname ? tname : "", -EINVAL);
			return -EINVAL;
		}
		aux->ksym_type = PTR_TO_RDONLY_MEM;
		aux->ksym_size = size;
	}
	if (!sized || size > KERNEL_VAR_MAX || !mem) {
		verbose(env, "userbpf: kernel variable '%s' does not fit its region\n", name);
		return -EOPNOTSUPP;
	}
	addr = (uintptr_t)mem;
	in[0].imm = (s32)(u32)addr;
	in[1].imm = (s32)(u32)(addr >> 32);
	return 0;
}

/* An LD_IMM64 of a kernel symbol by its BTF id (BPF_PSEUDO_BTF_ID, the kernel's
 * check_pseudo_btf_id()): a function of the kernel's BTF loads as read-only memory of 0 bytes
 * that is not NULL (what `if (kfunc)`, a weak kfunc's existence test, compiles to).  Its address
 * is userbpf's implementation of the kfunc, or some non-NULL address.  A variable:
 * resolve_btf_var().  Module BTFs userbpf does not have. */
static int resolve_btf_id(struct verifier_env *env, struct bpf_insn *in, struct insn_aux *aux)
{
	static const char not_a_kfunc; /* the address of a function userbpf does not have */
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t;
	const char *name;
	u64 addr;

	if (in[1].imm) {
		verbose(env, "invalid module BTF object FD specified.\n");
		return -EINVAL;
	}
	if (!btf) {
		verbose(env, "kernel is missing BTF, make sure CONFIG_DEBUG_INFO_BTF=y is specified in "
			     "Kconfig.\n");
		return -EINVAL;
	}
	t = btf_type_by_id(btf, (u32)in[0].imm);
	if (!t) {
		verbose(env, "ldimm64 insn specifies invalid btf_id %d.\n", in[0].imm);
		return -ENOENT;
	}
	name = btf_str_by_offset(btf, t->name_off);
	if (BTF_INFO_KIND(t->info) == BTF_KIND_VAR)
		return resolve_btf_var(env, in, aux, btf, t, name ? name : "");
	if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC) {
		verbose(env, "pseudo btf_id %d in ldimm64 isn't KIND_VAR or KIND_FUNC\n", in[0].imm);
		return -EINVAL;
	}
	aux->ksym_type = PTR_TO_RDONLY_MEM;
	aux->ksym_size = 0;
	addr = (uintptr_t)kfunc_resolve(NULL, in[0].imm, 0);
	if (!addr)
		addr = (uintptr_t)&not_a_kfunc;
	in[0].imm = (s32)(u32)addr;
	in[1].imm = (s32)(u32)(addr >> 32);
	return 0;
}

/* fd_array[idx] (read from the caller's memory) into *fd: 0, or -EFAULT. */
static int fd_array_read(const struct verifier_env *env, s64 idx, int *fd)
{
	u64 at = env->fd_array + (u64)idx * sizeof(*fd);

	return at <= UINTPTR_MAX - sizeof(*fd) &&
		       copy_nofault(fd, (const void *)(uintptr_t)at, sizeof(*fd))
		       ? 0
		       : -EFAULT;
}

/* The map fd names, recorded in env->used_maps (*added: 1 new there, 0 already, or -errno);
 * NULL with *err when fd is not a map's (or was closed meanwhile: as if before). */
static struct bpf_map *map_of_fd(struct verifier_env *env, int fd, int *err, int *added)
{
	struct bpf_object *obj;
	struct bpf_map *map;

	rcu_read_lock();
	obj = obj_from_fd(fd, OBJ_MAP, err);
	map = obj ? map_of(obj) : NULL;
	*added = map ? use_map(env, map) : 0;
	if (*added == -EBADF) {
		map = NULL;
		*err = -EBADF;
	}
	rcu_read_unlock();
	return map;
}

/* The kernel's check_map_prog_compatibility(): which maps a program of this kind may use. */
static int map_prog_compat(struct verifier_env *env, const struct bpf_map *map)
{
	/* locks are for the other types */
	if (map->spin_lock_off >= 0) {
		u32 t = env->prog->type;

		if (t == BPF_PROG_TYPE_SOCKET_FILTER) {
			verbose(env, "socket filter progs cannot use bpf_spin_lock yet\n");
			return -EINVAL;
		}
		if (t == BPF_PROG_TYPE_KPROBE || t == BPF_PROG_TYPE_TRACEPOINT ||
		    t == BPF_PROG_TYPE_PERF_EVENT || t == BPF_PROG_TYPE_RAW_TRACEPOINT ||
		    t == BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE) {
			verbose(env, "tracing progs cannot use bpf_spin_lock yet\n");
			return -EINVAL;
		}
	}
	if (map->timer_off >= 0 || map->wq_off >= 0) {
		u32 t = env->prog->type;

		if (t == BPF_PROG_TYPE_KPROBE || t == BPF_PROG_TYPE_TRACEPOINT ||
		    t == BPF_PROG_TYPE_PERF_EVENT || t == BPF_PROG_TYPE_RAW_TRACEPOINT ||
		    t == BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE) {
			verbose(env, "tracing progs cannot use %s yet\n",
				map->timer_off >= 0 ? "bpf_timer" : "bpf_wq");
			return -EINVAL;
		}
	}
	/* a sleepable program may sleep holding a map's element: only the types whose
	 * elements outlive a sleep */
	if (in_sleepable(env) &&
	    (!sleepable_map_ok(map->map_type) ||
	     (map->inner_meta && !sleepable_map_ok(map->inner_meta->map_type)))) {
		/* (6.18's words: a map of maps' inner type counts too) */
		verbose(env, "Sleepable programs can only use array, hash, ringbuf and local "
			     "storage maps, also as inner maps\n");
		return -EINVAL;
	}
	return 0;
}

static int resolve_one(struct verifier_env *env, u32 i)
{
	struct bpf_insn *in = &env->insns[i];
	struct bpf_map *map;
	int fd = in[0].imm, err = 0, added;
	u64 addr;

	switch (in[0].src_reg) {
	case BPF_PSEUDO_FUNC:
		return 0; /* a callback: the engines resolve it (src/exec/callback.h) */
	case BPF_PSEUDO_BTF_ID:
		return resolve_btf_id(env, in, &env->aux[i]);
	case BPF_PSEUDO_MAP_VALUE:
	case BPF_PSEUDO_MAP_IDX_VALUE:
		break;
	case BPF_PSEUDO_MAP_FD:
	case BPF_PSEUDO_MAP_IDX:
		if (in[1].imm == 0)
			break;
		/* fallthrough */
	default:
		verbose(env, "unrecognized bpf_ld_imm64 insn\n");
		return -EINVAL;
	}
	/* the _IDX forms name the map by its index in fd_array (what light skeletons send) */
	if (in[0].src_reg == BPF_PSEUDO_MAP_IDX || in[0].src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
		if (!env->fd_array) {
			verbose(env, "fd_idx without fd_array is invalid\n");
			return -EPROTO;
		}
		if (fd_array_read(env, in[0].imm, &fd))
			return -EFAULT;
	}
	map = map_of_fd(env, fd, &err, &added);
	if (!map) {
		verbose(env, "fd %d is not pointing to valid bpf_map\n", fd);
		return err;
	}
	if (added < 0)
		return added;
	err = map_prog_compat(env, map);
	if (err)
		return err;
	env->aux[i].map = map;
	if (in[0].src_reg == BPF_PSEUDO_MAP_FD || in[0].src_reg == BPF_PSEUDO_MAP_IDX) {
		addr = (uintptr_t)map;
	} else {
		u32 off = (u32)in[1].imm;
		u32 key = 0;
		void *val;

		if (off >= BPF_MAX_VAR_OFF) {
			verbose(env, "direct value offset of %u is not allowed\n", off);
			return -EINVAL;
		}
		if (map->map_type != BPF_MAP_TYPE_ARRAY) {
			verbose(env, "no direct value access support for this map type\n");
			return -EINVAL;
		}
		if (map->max_entries != 1 || off >= map->value_size) {
			verbose(env, "invalid access to map value pointer, value_size=%u off=%u\n",
				map->value_size, off);
			return map->max_entries != 1 ? -ENOTSUPP : -EINVAL;
		}
		rcu_read_lock();
		val = map->ops->lookup_ptr ? map->ops->lookup_ptr(map, &key) : NULL;
		rcu_read_unlock();
		if (!val)
			return -EFAULT;
		env->aux[i].map_off = off;
		addr = (uintptr_t)val + off;
	}
	in[0].imm = (s32)(u32)addr;
	in[1].imm = (s32)(u32)(addr >> 32);
	/* the storage bpf_get_local_storage() returns is found by the map's type alone, so a
	 * program has one map of each (the kernel's bpf_cgroup_storage_assign()) */
	if (added && (map->map_type == BPF_MAP_TYPE_CGROUP_STORAGE ||
		      map->map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE)) {
		struct bpf_map **slot = &env->prog->cgroup_storage[map->ops->percpu];

		if (*slot && *slot != map) {
			verbose(env, "only one cgroup storage of each type is allowed\n");
			return -EBUSY;
		}
		*slot = map;
	}
	return 0;
}

int resolve_ldimm64(struct verifier_env *env)
{
	for (u32 i = 0; i < env->len; i++) {
		struct bpf_insn *in = &env->insns[i];
		int err;

		if (BPF_CLASS(in->code) == BPF_LDX &&
		    ((BPF_MODE(in->code) != BPF_MEM && BPF_MODE(in->code) != BPF_MEMSX) ||
		     in->imm != 0)) {
			verbose(env, "BPF_LDX uses reserved fields\n");
			return -EINVAL;
		}
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (i == env->len - 1 || in[1].code != 0 || in[1].dst_reg != 0 ||
			    in[1].src_reg != 0 || in[1].off != 0) {
				verbose(env, "invalid bpf_ld_imm64 insn\n");
				return -EINVAL;
			}
			if (in->src_reg != 0) {
				err = resolve_one(env, i);
				if (err)
					return err;
			}
			i++;
			continue;
		}
		/* the kernel's table also has atomics of every size (load-acquire/store-release) */
		/* callx (0x8d) is in our opcode list for the interpreter, not in the kernel's */
		if ((env->insn_first[in->code] < 0 &&
		     !(BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_ATOMIC)) ||
		    in->code == (BPF_JMP | BPF_CALL | BPF_X)) {
			verbose(env, "unknown opcode %02x\n", in->code);
			return -EINVAL;
		}
	}
	return 0;
}

/* prog holds btf (a reference the caller gives it), once. */
static int hold_btf(struct bpf_prog *prog, struct btf *btf)
{
	struct btf **grown;

	for (u32 i = 0; i < prog->used_btf_cnt; i++)
		if (prog->used_btfs[i] == btf) {
			btf_put(btf);
			return 0;
		}
	grown = realloc(prog->used_btfs, (prog->used_btf_cnt + 1) * sizeof(*grown));
	if (!grown) {
		btf_put(btf);
		return -ENOMEM;
	}
	prog->used_btfs = grown;
	prog->used_btfs[prog->used_btf_cnt++] = btf;
	return 0;
}

/* fd_array with fd_array_cnt (6.14): every fd in it is a map the program holds from the start
 * (listed first in its info's map_ids, checked as a map it refers to) or a BTF object it holds;
 * the kernel's process_fd_array(). */
int process_fd_array(struct verifier_env *env, u32 cnt)
{
	if (cnt >= UINT32_MAX / sizeof(int)) {
		verbose(env, "fd_array_cnt is too big (%u)\n", cnt);
		return -EINVAL;
	}
	for (u32 i = 0; i < cnt; i++) {
		struct bpf_map *map;
		struct btf *btf;
		int fd, err = 0, added, btf_err = 0;

		if (fd_array_read(env, i, &fd))
			return -EFAULT;
		map = map_of_fd(env, fd, &err, &added);
		if (map) {
			err = added < 0 ? added : map_prog_compat(env, map);
			if (err)
				return err;
			continue;
		}
		btf = btf_get_by_fd(fd, &btf_err);
		if (btf) {
			err = hold_btf(env->prog, btf);
			if (err)
				return err;
			continue;
		}
		verbose(env, "fd %d is not pointing to valid bpf_map or btf\n", fd);
		return err;
	}
	return 0;
}
