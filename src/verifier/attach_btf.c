/* attach_btf.c — what a tracing program (BPF_PROG_TYPE_TRACING: tp_btf, fentry, fexit,
 * fmod_ret) is loaded for, and its ctx.
 *
 * Its attach_btf_id names a type of the kernel's BTF: a kernel function (fentry and the others)
 * or a BTF tracepoint's typedef btf_trace_<name>.  check_attach_btf_id() checks it as the
 * kernel's bpf_check_attach_target() and check_attach_btf_id() do, with their log lines, and
 * fills prog->attach.  The program's ctx is then the target's arguments, a u64 slot each, and
 * after them (fexit, fmod_ret) its return value: check_tracing_ctx() types each load by the
 * target's prototype, as the kernel's btf_ctx_access() does (a scalar, or a pointer to a kernel
 * struct).
 *
 * What the kernel knows only from its own tables comes from what user space can see
 * (/proc/kallsyms for a function's address) or from the lists below, as of 6.18.  Running
 * them is src/prog/trampoline.c's.
 */
#include <stdio.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "kallsyms.h"
#include "prog/prog.h"
#include "verifier/env.h"

#define MAX_BPF_FUNC_ARGS ATTACH_MAX_ARGS
#define TRACE_PREFIX "btf_trace_"

/* Functions no tracing program may attach to (6.18's btf_id_deny: the ones a trampoline itself
 * calls), whichever of them this kernel has. */
static const char *const deny_list[] = {
	"migrate_disable", "migrate_enable", "rcu_read_unlock_strict", "preempt_count_add",
	"preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
};

/* Functions that never return, which fexit and fmod_ret cannot follow (6.18's noreturn_deny). */
static const char *const noreturn_list[] = {
	"__ia32_sys_exit", "__ia32_sys_exit_group", "__kunit_abort", "kunit_try_catch_throw",
	"__module_put_and_kthread_exit", "__x64_sys_exit", "__x64_sys_exit_group", "do_exit",
	"do_group_exit", "kthread_complete_and_exit", "kthread_exit", "make_task_dead",
};

/* The functions registered as fmod_ret targets (register_btf_fmodret_id_set(): the kernel's
 * test functions), the one of them also sleepable; beyond them fmod_ret takes the security_*
 * hooks and, in kernels built with CONFIG_FUNCTION_ERROR_INJECTION, the functions that allow
 * error injection, which user space cannot list without debugfs (not consulted: userbpf refuses
 * those as a kernel built without the option does). */
static const char *const fmodret_list[] = {
	"bpf_modify_return_test", "bpf_modify_return_test2", "bpf_modify_return_test_tp",
	"bpf_fentry_test1",
};
#define FMODRET_SLEEPABLE "bpf_fentry_test1"

/* BTF tracepoints whose pointer arguments may be NULL or hold an error code, or are not to be
 * trusted: 4 bits per argument (from argument 0): TP_NULL, TP_ERR, TP_UNTRUSTED.  6.18's
 * raw_tp_null_args, with what it does for other arguments as measured on its vmlinux (names
 * ending in __nullable in the tracepoints' templates, neigh_create's neighbour). */
#define TP_NULL(arg) (1u << (4 * (arg)))
#define TP_ERR(arg) (2u << (4 * (arg)))
#define TP_UNTRUSTED(arg) (4u << (4 * (arg)))
static const struct {
	const char *tp;
	u32 args;
} nullable_tps[] = {
	{ "sched_pi_setprio", TP_NULL(1) }, { "sched_stick_numa", TP_NULL(2) },
	{ "sched_swap_numa", TP_NULL(2) }, { "sched_process_wait", TP_NULL(0) },
	{ "signal_generate", TP_ERR(1) }, { "signal_deliver", TP_ERR(1) },
	{ "afs_make_fs_call", TP_NULL(1) }, { "afs_make_fs_calli", TP_NULL(1) },
	{ "afs_make_fs_call1", TP_NULL(1) }, { "afs_make_fs_call2", TP_NULL(1) },
	{ "afs_protocol_error", TP_NULL(0) }, { "afs_flock_ev", TP_NULL(1) },
	{ "cachefiles_lookup", TP_NULL(0) | TP_ERR(2) }, { "cachefiles_unlink", TP_NULL(0) },
	{ "cachefiles_rename", TP_NULL(0) }, { "cachefiles_prep_read", TP_NULL(0) },
	{ "cachefiles_mark_active", TP_NULL(0) }, { "cachefiles_mark_failed", TP_NULL(0) },
	{ "cachefiles_mark_inactive", TP_NULL(0) }, { "cachefiles_vfs_error", TP_NULL(0) },
	{ "cachefiles_io_error", TP_NULL(0) }, { "cachefiles_ondemand_open", TP_NULL(0) },
	{ "cachefiles_ondemand_copen", TP_NULL(0) }, { "cachefiles_ondemand_close", TP_NULL(0) },
	{ "cachefiles_ondemand_read", TP_NULL(0) }, { "cachefiles_ondemand_cread", TP_NULL(0) },
	{ "cachefiles_ondemand_fd_write", TP_NULL(0) },
	{ "cachefiles_ondemand_fd_release", TP_NULL(0) },
	{ "ext4_mballoc_discard", TP_NULL(1) }, { "ext4_mballoc_free", TP_NULL(1) },
	{ "fib_table_lookup", TP_NULL(2) }, { "posix_lock_inode", TP_NULL(1) },
	{ "fcntl_setlk", TP_NULL(1) }, { "locks_remove_posix", TP_NULL(1) },
	{ "flock_lock_inode", TP_NULL(1) }, { "break_lease_noblock", TP_NULL(1) },
	{ "break_lease_block", TP_NULL(1) }, { "break_lease_unblock", TP_NULL(1) },
	{ "generic_delete_lease", TP_NULL(1) }, { "time_out_leases", TP_NULL(1) },
	{ "host1x_cdma_push_gather", TP_NULL(4) }, { "hugetlbfs_alloc_inode", TP_NULL(1) },
	{ "mm_khugepaged_scan_pmd", TP_NULL(1) }, { "mm_collapse_huge_page_isolate", TP_NULL(0) },
	{ "mm_khugepaged_scan_file", TP_NULL(1) }, { "mm_khugepaged_collapse_file", TP_NULL(1) },
	{ "mm_page_alloc", TP_NULL(0) }, { "mm_page_pcpu_drain", TP_NULL(0) },
	{ "mm_page_alloc_zone_locked", TP_NULL(0) }, { "mr_integ_alloc", TP_ERR(3) },
	{ "netfs_failure", TP_NULL(1) }, { "device_pm_callback_start", TP_NULL(1) },
	{ "qdisc_dequeue", TP_NULL(3) }, { "rxrpc_recvdata", TP_NULL(0) },
	{ "rxrpc_resend", TP_NULL(1) }, { "xs_stream_read_data", TP_NULL(0) },
	{ "tcp_send_reset", TP_NULL(0) | TP_NULL(1) }, { "tcp_sendmsg_locked", TP_NULL(2) },
	{ "tegra_dma_tx_status", TP_NULL(2) }, { "tmigr_update_events", TP_NULL(0) },
	{ "writeback_dirty_folio", TP_NULL(1) }, { "folio_wait_writeback", TP_NULL(1) },
	{ "kfree_skb", TP_NULL(3) }, { "neigh_create", TP_UNTRUSTED(3) },
	{ "xfs_inodegc_flush", TP_NULL(0) }, { "xfs_inodegc_push", TP_NULL(0) },
	{ "xfs_inodegc_start", TP_NULL(0) }, { "xfs_inodegc_stop", TP_NULL(0) },
	{ "xfs_inodegc_queue", TP_NULL(0) }, { "xfs_inodegc_throttle", TP_NULL(0) },
	{ "xfs_fs_sync_fs", TP_NULL(0) }, { "xfs_blockgc_start", TP_NULL(0) },
	{ "xfs_blockgc_stop", TP_NULL(0) }, { "xfs_blockgc_worker", TP_NULL(0) },
	{ "xfs_blockgc_flush_all", TP_NULL(0) }, { "xfs_map_blocks_found", TP_NULL(4) },
	{ "xfs_map_blocks_alloc", TP_NULL(4) }, { "xfs_btree_updkeys", TP_NULL(2) },
	{ "xfs_btree_overlapped_query_range", TP_NULL(2) },
	{ "xfs_defer_create_intent", TP_NULL(0) }, { "xfs_defer_cancel_list", TP_NULL(0) },
	{ "xfs_defer_pending_finish", TP_NULL(0) }, { "xfs_defer_pending_abort", TP_NULL(0) },
	{ "xfs_defer_relog_intent", TP_NULL(0) }, { "xfs_defer_isolate_paused", TP_NULL(0) },
	{ "xfs_defer_item_pause", TP_NULL(0) }, { "xfs_defer_item_unpause", TP_NULL(0) },
	{ "xfs_defer_add_item", TP_NULL(0) }, { "xfs_defer_cancel_item", TP_NULL(0) },
	{ "xfs_defer_finish_item", TP_NULL(0) }, { "xfs_ioc_free_eofblocks", TP_NULL(1) },
	{ "xfs_blockgc_free_space", TP_NULL(1) },
};

/* The kernel's BPF iterator targets (bpf_iter_<target>, 6.18's registrations) and the arguments
 * their registration types as pointers that may be NULL: ITER_PLAIN(arg) a ptr_or_null_,
 * ITER_TRUSTED(arg) a trusted_ptr_or_null_ (2 bits an argument).  The targets whose arguments
 * are buffers (bpf_map_elem, bpf_sk_storage_map, sockmap) userbpf does not verify. */
#define ITER_PLAIN(arg) (1u << (2 * (arg)))
#define ITER_TRUSTED(arg) (2u << (2 * (arg)))
static const struct {
	const char *target;
	u16 args;
} iter_targets[] = {
	{ "bpf_link", ITER_PLAIN(1) },	  { "bpf_map", ITER_TRUSTED(1) },
	{ "bpf_prog", ITER_PLAIN(1) },	  { "cgroup", ITER_TRUSTED(1) },
	{ "dmabuf", ITER_PLAIN(1) },	  { "ipv6_route", ITER_PLAIN(1) },
	{ "kmem_cache", ITER_TRUSTED(1) }, { "ksym", ITER_PLAIN(1) },
	{ "netlink", ITER_PLAIN(1) },	  { "task", ITER_TRUSTED(1) },
	{ "task_file", ITER_PLAIN(1) | ITER_PLAIN(3) },
	{ "task_vma", ITER_PLAIN(1) | ITER_PLAIN(2) },
	{ "tcp", ITER_TRUSTED(1) },	  { "udp", ITER_TRUSTED(1) },
	{ "unix", ITER_PLAIN(1) },
};
static const char *const iter_buf_targets[] = { "bpf_map_elem", "bpf_sk_storage_map", "sockmap" };
#define ITER_PREFIX "bpf_iter_"

static bool listed(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

static u32 kind_of(const struct btf_type *t)
{
	return t ? BTF_INFO_KIND(t->info) : BTF_KIND_UNKN;
}

static bool is_small_int(const struct btf_type *t)
{
	return kind_of(t) == BTF_KIND_INT && t->size <= 8;
}

static bool is_any_enum(const struct btf_type *t)
{
	return kind_of(t) == BTF_KIND_ENUM || kind_of(t) == BTF_KIND_ENUM64;
}

static const char *kind_name(const struct btf_type *t)
{
	return btf_kind_str(kind_of(t));
}

/* The kernel's __get_type_size(): bytes a value of type id takes in a call (a pointer 8), 0 for
 * void, -EINVAL for what cannot be passed; *t the type with modifiers skipped (NULL: void). */
static int type_size(const struct btf *btf, u32 id, const struct btf_type **t)
{
	*t = NULL;
	if (!id)
		return 0;
	*t = btf_skip_modifiers(btf, id, NULL);
	if (!*t)
		return -EINVAL;
	if (kind_of(*t) == BTF_KIND_PTR)
		return 8;
	/* (unions as structs: 6.15's union arguments) */
	if (kind_of(*t) == BTF_KIND_INT || is_any_enum(*t) || kind_of(*t) == BTF_KIND_STRUCT ||
	    kind_of(*t) == BTF_KIND_UNION)
		return (int)(*t)->size;
	return -EINVAL;
}

/* The kernel's btf_distill_func_proto(): the arguments' and return value's sizes, which a
 * trampoline can pass (at most 12 arguments, structs of at most 16 bytes, no varargs). */
static int distill_proto(struct verifier_env *env, const struct btf *btf,
			 const struct btf_type *proto, const char *tname)
{
	const struct btf_param *args = (const struct btf_param *)(proto + 1);
	u32 nargs = BTF_INFO_VLEN(proto->info);
	struct prog_attach *a = &env->prog->attach;
	const struct btf_type *t;
	int size;

	if (nargs > MAX_BPF_FUNC_ARGS) {
		verbose(env, "The function %s has %u arguments. Too many.\n", tname, nargs);
		return -EINVAL;
	}
	size = type_size(btf, proto->type, &t);
	if (size < 0 || kind_of(t) == BTF_KIND_STRUCT || kind_of(t) == BTF_KIND_UNION) {
		verbose(env, "The function %s return type %s is unsupported.\n", tname,
			kind_name(t));
		return -EINVAL;
	}
	a->ret_size = (u8)size;
	for (u32 i = 0; i < nargs; i++) {
		if (i == nargs - 1 && !args[i].type) {
			verbose(env, "The function %s with variable args is unsupported.\n", tname);
			return -EINVAL;
		}
		size = type_size(btf, args[i].type, &t);
		if (size < 0 || size > 16) {
			verbose(env, "The function %s arg%u type %s is unsupported.\n", tname, i,
				kind_name(t));
			return -EINVAL;
		}
		if (!size) {
			verbose(env, "The function %s has malformed void argument.\n", tname);
			return -EINVAL;
		}
		a->param_size[i] = (u8)size;
	}
	a->nr_args = a->nr_params = (u8)nargs;
	return 0;
}

/* fentry, fexit, fmod_ret: a kernel function with an address, which a sleepable program may
 * attach to only if the kernel lets it sleep there, and fmod_ret only if its return value may
 * be changed. */
static int attach_function(struct verifier_env *env, const struct btf *btf,
			   const struct btf_type *t, const char *tname)
{
	struct bpf_prog *prog = env->prog;
	u64 addr = 0;
	int err;

	if (kind_of(t) != BTF_KIND_FUNC) {
		verbose(env, "attach_btf_id %u is not a function\n", prog->attach.btf_id);
		return -EINVAL;
	}
	t = btf_type_by_id(btf, t->type);
	if (kind_of(t) != BTF_KIND_FUNC_PROTO)
		return -EINVAL;
	err = distill_proto(env, btf, t, tname);
	if (err)
		return err;
	prog->attach.proto_id = btf_type_by_id(btf, prog->attach.btf_id)->type;
	/* (a listing without addresses, for the unprivileged, cannot say: taken as there) */
	if (kallsyms_lookup(tname, &addr, NULL) == -ENOENT) {
		verbose(env, "The address of function %s cannot be found\n", tname);
		return -ENOENT;
	}
	prog->attach.addr = addr;
	if (in_sleepable(env)) {
		if (strcmp(tname, FMODRET_SLEEPABLE)) {
			verbose(env, "%s is not sleepable\n", tname);
			return -EINVAL;
		}
	} else if (prog->expected_attach_type == BPF_MODIFY_RETURN &&
		   strncmp(tname, "security_", 9) &&
		   !listed(fmodret_list, ARRAY_SIZE(fmodret_list), tname)) {
		verbose(env, "%s() is not modifiable\n", tname);
		return -EINVAL;
	}
	return 0;
}

/* The kernel's bpf_check_attach_target() for a target in the kernel's own BTF. */
static int attach_target(struct verifier_env *env)
{
	struct bpf_prog *prog = env->prog;
	struct prog_attach *a = &prog->attach;
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t;
	const char *tname;
	int size_ret;

	if (!a->btf_id) {
		verbose(env, "Tracing programs must provide btf_id\n");
		return -EINVAL;
	}
	if (!btf) { /* (load.c refused an attach_btf_id without it) */
		verbose(env, "FENTRY/FEXIT program can only be attached to another program "
			     "annotated with BTF\n");
		return -EINVAL;
	}
	t = btf_type_by_id(btf, a->btf_id);
	if (!t) {
		verbose(env, "attach_btf_id %u is invalid\n", a->btf_id);
		return -EINVAL;
	}
	tname = btf_str_by_offset(btf, t->name_off);
	if (!tname) {
		verbose(env, "attach_btf_id %u doesn't have a name\n", a->btf_id);
		return -EINVAL;
	}
	switch (prog->expected_attach_type) {
	case BPF_TRACE_RAW_TP:
		if (kind_of(t) != BTF_KIND_TYPEDEF) {
			verbose(env, "attach_btf_id %u is not a typedef\n", a->btf_id);
			return -EINVAL;
		}
		if (strncmp(tname, TRACE_PREFIX, strlen(TRACE_PREFIX))) {
			verbose(env, "attach_btf_id %u points to wrong type name %s\n", a->btf_id,
				tname);
			return -EINVAL;
		}
		tname += strlen(TRACE_PREFIX);
		t = btf_type_by_id(btf, t->type);
		if (kind_of(t) != BTF_KIND_PTR)
			return -EINVAL;
		a->proto_id = t->type;
		t = btf_type_by_id(btf, t->type);
		if (kind_of(t) != BTF_KIND_FUNC_PROTO || !BTF_INFO_VLEN(t->info) ||
		    BTF_INFO_VLEN(t->info) > ATTACH_MAX_ARGS + 1)
			return -EINVAL;
		a->trace = true;
		a->nr_params = (u8)BTF_INFO_VLEN(t->info);
		a->nr_args = a->nr_params - 1;
		for (u32 i = 0; i < a->nr_params; i++) {
			const struct btf_type *pt;
			int size = type_size(btf, ((const struct btf_param *)(t + 1))[i].type, &pt);

			a->param_size[i] = (u8)(size > 0 ? size : 8);
		}
		size_ret = type_size(btf, t->type, &t);
		a->ret_size = (u8)(size_ret > 0 ? size_ret : 0);
		break;
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
	case BPF_MODIFY_RETURN: {
		int err = attach_function(env, btf, t, tname);

		if (err)
			return err;
		break;
	}
	case BPF_TRACE_ITER: {
		int err;

		if (kind_of(t) != BTF_KIND_FUNC) {
			verbose(env, "attach_btf_id %u is not a function\n", a->btf_id);
			return -EINVAL;
		}
		t = btf_type_by_id(btf, t->type);
		if (kind_of(t) != BTF_KIND_FUNC_PROTO)
			return -EINVAL;
		err = distill_proto(env, btf, t, tname);
		if (err)
			return err;
		a->proto_id = btf_type_by_id(btf, a->btf_id)->type;
		break;
	}
	default:
		return -EINVAL;
	}
	snprintf(a->name, sizeof(a->name), "%s", tname);
	return 0;
}

/* The kernel's can_be_sleepable(), for the types userbpf loads. */
static bool can_be_sleepable(const struct bpf_prog *prog)
{
	if (prog->type == BPF_PROG_TYPE_TRACING)
		return prog->expected_attach_type == BPF_TRACE_FENTRY ||
		       prog->expected_attach_type == BPF_TRACE_FEXIT ||
		       prog->expected_attach_type == BPF_MODIFY_RETURN ||
		       prog->expected_attach_type == BPF_TRACE_ITER;
	return prog->type == BPF_PROG_TYPE_KPROBE; /* (for uprobes) */
}

int check_attach_btf_id(struct verifier_env *env)
{
	struct bpf_prog *prog = env->prog;
	bool sleepable = in_sleepable(env);
	const char *name = prog->attach.name;
	int err;

	if (prog->type == BPF_PROG_TYPE_SYSCALL) {
		if (sleepable)
			return 0;
		verbose(env, "Syscall programs can only be sleepable\n");
		return -EINVAL;
	}
	if (sleepable && !can_be_sleepable(prog)) {
		verbose(env, "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops "
			     "programs can be sleepable\n");
		return -EINVAL;
	}
	if (prog->type != BPF_PROG_TYPE_TRACING)
		return 0;
	err = attach_target(env);
	if (err || prog->expected_attach_type == BPF_TRACE_RAW_TP)
		return err;
	if (prog->expected_attach_type == BPF_TRACE_ITER) {
		/* the kernel's bpf_iter_prog_supported(): a registered target */
		if (strncmp(name, ITER_PREFIX, strlen(ITER_PREFIX)))
			return -EINVAL;
		if (listed(iter_buf_targets, ARRAY_SIZE(iter_buf_targets),
			   name + strlen(ITER_PREFIX))) {
			verbose(env, "userbpf: the %s iterator is not supported\n",
				name + strlen(ITER_PREFIX));
			return -EOPNOTSUPP;
		}
		for (size_t i = 0; i < ARRAY_SIZE(iter_targets); i++)
			if (!strcmp(iter_targets[i].target, name + strlen(ITER_PREFIX))) {
				prog->attach.iter_args = iter_targets[i].args;
				return 0;
			}
		return -EINVAL;
	}
	if (listed(deny_list, ARRAY_SIZE(deny_list), name)) {
		verbose(env, "Attaching tracing programs to function '%s' is rejected.\n", name);
		return -EINVAL;
	}
	if (prog->expected_attach_type != BPF_TRACE_FENTRY &&
	    listed(noreturn_list, ARRAY_SIZE(noreturn_list), name)) {
		verbose(env, "Attaching fexit/fmod_ret to __noreturn function '%s' is rejected.\n",
			name);
		return -EINVAL;
	}
	return 0;
}

/* ---- the ctx ---- */

/* The kernel's btf_ctx_arg_idx(): the prototype's parameter the ctx byte off falls in (then
 * nr_params: the return value; nr_params + 1: past it).  A struct passed by value takes one
 * slot per 8 bytes.  (For tp_btf the kernel counts over the prototype with __data first and
 * then skips it: every parameter is 8 bytes there, so slot i is still the program's argument
 * i, but one more slot counts as the return value's.) */
static u32 ctx_arg_idx(const struct prog_attach *a, int off)
{
	u32 end = 0, i;

	for (i = 0; i < a->nr_params; i++) {
		end += round_up(a->param_size[i], 8);
		if ((u32)off < end)
			return i;
	}
	end += round_up(a->ret_size, 8);
	return (u32)off < end ? a->nr_params : a->nr_params + 1u;
}

/* A tp_btf program's argument arg (from 0): its TP_* bits. */
static u32 tp_arg_bits(const char *tp, u32 arg)
{
	for (size_t i = 0; arg < 8 && i < ARRAY_SIZE(nullable_tps); i++)
		if (!strcmp(nullable_tps[i].tp, tp))
			return nullable_tps[i].args >> (4 * arg) & 0xf;
	return 0;
}

/* Whether the parameter's name ends in "__nullable" (the kernel's btf_param_match_suffix()). */
static bool param_nullable(const struct btf *btf, const struct btf_param *p)
{
	const char *name = btf_str_by_offset(btf, p->name_off);
	size_t n = name ? strlen(name) : 0, s = strlen("__nullable");

	return n > s && !strcmp(name + n - s, "__nullable");
}

int check_tracing_ctx(struct verifier_env *env, int off, int size, bool write,
		      struct reg_state *dst)
{
	const struct bpf_prog *prog = env->prog;
	const struct prog_attach *a = &prog->attach;
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *proto = btf_type_by_id(btf, a->proto_id), *t;
	const struct btf_param *args = (const struct btf_param *)(proto + 1) + a->trace;
	const char *tname = a->name;
	bool nullable = false, err_ptr = false, untrusted = false;
	u32 arg, ptr_id;

	/* the kernel's bpf_tracing_ctx_access(): reads of up to 12 u64s, aligned to their size */
	if (off < 0 || off >= 8 * MAX_BPF_FUNC_ARGS || write || off % size)
		goto invalid;
	if (off % 8) {
		verbose(env, "func '%s' offset %d is not multiple of 8\n", tname, off);
		goto invalid;
	}
	arg = ctx_arg_idx(a, off);
	if (arg > a->nr_args)
		goto no_arg;
	/* the argument's type, or the return value's (a void one is no slot: arg is past it
	 * then), modifiers skipped */
	if (arg < a->nr_args)
		t = btf_skip_modifiers(btf, args[arg].type, NULL);
	else if (prog->expected_attach_type == BPF_TRACE_FEXIT ||
		 prog->expected_attach_type == BPF_MODIFY_RETURN)
		t = btf_skip_modifiers(btf, proto->type, NULL);
	else
		goto no_arg;
	if (arg == a->nr_args && prog->expected_attach_type == BPF_MODIFY_RETURN &&
	    !is_small_int(t)) {
		verbose(env, "ret type %s not allowed for fmod_ret\n", kind_name(t));
		goto invalid;
	}
	if (is_small_int(t) || is_any_enum(t) || kind_of(t) == BTF_KIND_STRUCT ||
	    kind_of(t) == BTF_KIND_UNION)
		goto scalar;
	if (kind_of(t) != BTF_KIND_PTR) {
		const char *n = t ? btf_str_by_offset(btf, t->name_off) : "";

		verbose(env, "func '%s' arg%u '%s' has type %s. Only pointer access is allowed\n",
			tname, arg, n ? n : "", kind_name(t));
		goto invalid;
	}
	if (size != 8) {
		verbose(env, "func '%s' size %d must be 8\n", tname, size);
		goto invalid;
	}
	/* void * and pointers to integers are scalars to the program (the kernel's
	 * is_void_or_int_ptr()) */
	{
		const struct btf_type *to = btf_skip_modifiers(btf, t->type, NULL);

		if (!to || kind_of(to) == BTF_KIND_INT)
			goto scalar;
	}
	/* an iterator's target types some arguments itself (its ctx_arg_info) */
	if (prog->expected_attach_type == BPF_TRACE_ITER && arg < 8 &&
	    (a->iter_args >> (2 * arg) & 3)) {
		if (dst) {
			mark_ptr(dst, a->iter_args & ITER_TRUSTED(arg) ? PTR_TO_BTF_ID_TRUSTED_OR_NULL
								       : PTR_TO_BTF_ID_OR_NULL);
			btf_skip_modifiers(btf, t->type, &dst->btf_id);
			dst->id = ++env->id_gen;
		}
		return 0;
	}
	if (arg < a->nr_args && param_nullable(btf, &args[arg]))
		nullable = true;
	if (prog->expected_attach_type == BPF_TRACE_RAW_TP) {
		u32 bits = tp_arg_bits(tname, arg);

		nullable |= bits & TP_NULL(0);
		err_ptr = bits & TP_ERR(0);
		untrusted = bits & TP_UNTRUSTED(0);
	}
	t = btf_skip_modifiers(btf, t->type, &ptr_id);
	if (kind_of(t) != BTF_KIND_STRUCT && kind_of(t) != BTF_KIND_UNION) {
		verbose(env, "func '%s' arg%u type %s is not a struct\n", tname, arg, kind_name(t));
		goto invalid;
	}
	{
		const char *sname = btf_str_by_offset(btf, t->name_off);

		verbose(env, "func '%s' arg%u has btf_id %u type %s '%s'\n", tname, arg, ptr_id,
			kind_name(t), sname && *sname ? sname : "(anon)");
	}
	if (err_ptr) {
		/* (6.18's line has no newline: the next one joins it) */
		verbose(env, "marking pointer arg%u as scalar as it may encode error", arg);
		goto scalar;
	}
	if (dst) {
		/* tp_btf's and iterators' arguments are trusted (the kernel's
		 * prog_args_trusted()); a function's are the old plain kind */
		bool trusted = prog->expected_attach_type == BPF_TRACE_RAW_TP ||
			       prog->expected_attach_type == BPF_TRACE_ITER;
		u8 type = trusted ? (nullable ? PTR_TO_BTF_ID_TRUSTED_OR_NULL
					      : PTR_TO_BTF_ID_TRUSTED)
				  : (nullable ? PTR_TO_BTF_ID_OR_NULL : PTR_TO_BTF_ID);

		if (untrusted)
			type = nullable ? PTR_TO_BTF_ID_UNTRUSTED_OR_NULL : PTR_TO_BTF_ID_UNTRUSTED;

		mark_ptr(dst, type);
		dst->btf_id = ptr_id;
		if (nullable)
			dst->id = ++env->id_gen;
	}
	return 0;

scalar:
	if (dst)
		mark_reg_unknown(dst);
	return 0;
no_arg:
	verbose(env, "func '%s' doesn't have %u-th argument\n", tname, arg + 1);
invalid:
	verbose(env, "invalid bpf_context access off=%d size=%d\n", off, size);
	return -EACCES;
}
