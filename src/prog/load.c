/* BPF_PROG_LOAD: the kernel's attr checks, in the kernel's order, then the verifier, then
 * preparation for the interpreter and installation as an fd ("bpf-prog" memfd).
 *
 * The order matters because a call with several faults must fail with the kernel's errno; it is
 * Linux 6.18's bpf_prog_load(): prog_flags, token, insn_cnt (E2BIG), attach target fields, the
 * per-type expected_attach_type rule, copying the instructions (EFAULT), copying the license
 * (EFAULT), device binding, the program type (EINVAL when unknown), the name, then bpf_check().
 *
 * Invariants: a failed load frees everything it took (the verifier's map references included)
 * and leaves no fd; a loaded program owns prog->insns, prog->interp and one reference on each
 * of prog->used_maps, all released by prog_destroy() when its last fd and holder are gone.
 */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "exec/interp.h"
#include "exec/jit.h"
#include "exec/kfuncs.h"

#include <userbpf.h>
#include "map/map.h"
#include "prog/prog.h"
#include "prog/run.h"
#include "rcu.h"
#include "verifier/verifier.h"

/* prog_flags of Linux 6.18; our uapi header may predate some. */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif
#ifndef BPF_F_TEST_REG_INVARIANTS
#define BPF_F_TEST_REG_INVARIANTS (1U << 7)
#endif
#ifndef BPF_F_TOKEN_FD
#define BPF_F_TOKEN_FD (1U << 16)
#endif

#define PROG_FLAGS_KNOWN                                                                         \
	(BPF_F_STRICT_ALIGNMENT | BPF_F_ANY_ALIGNMENT | BPF_F_TEST_STATE_FREQ | BPF_F_SLEEPABLE |  \
	 BPF_F_TEST_RND_HI32 | BPF_F_XDP_HAS_FRAGS | BPF_F_XDP_DEV_BOUND_ONLY |                   \
	 BPF_F_TEST_REG_INVARIANTS | BPF_F_TOKEN_FD)

/* BPF_COMPLEXITY_LIMIT_INSNS: the limit for a privileged loader (we are root-equivalent). */
#define PROG_MAX_INSNS 1000000u
/* BTF_MAX_TYPE (linux/btf.h): larger attach_btf_id values are refused before anything else. */

#define BPF_PROG_TYPE(type, run) [type] = true,
static const bool prog_type_known[] = {
#include "prog/prog_types.h"
};
#undef BPF_PROG_TYPE

bool prog_type_supported(u32 type)
{
	return type < ARRAY_SIZE(prog_type_known) && prog_type_known[type];
}

/* The kernel's license_is_gpl_compatible(). */
static bool license_is_gpl_compatible(const char *license)
{
	static const char *const gpl[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
		"Dual MPL/GPL",
	};

	for (size_t i = 0; i < ARRAY_SIZE(gpl); i++)
		if (!strcmp(license, gpl[i]))
			return true;
	return false;
}

/* ---- the interpreter's helper tables, one per program type, built once ---- */

#define HELPER_TABLE_SIZE BPF_HELPER_ID_MAX

static bpf_helper_fn helper_table[ARRAY_SIZE(prog_type_known)][HELPER_TABLE_SIZE];
static u32 helper_table_len[ARRAY_SIZE(prog_type_known)];
static pthread_once_t helper_table_once = PTHREAD_ONCE_INIT;

static void helper_tables_init(void)
{
	for (u32 t = 0; t < ARRAY_SIZE(prog_type_known); t++)
		if (prog_type_known[t])
			helper_table_len[t] = helper_fns(t, helper_table[t], HELPER_TABLE_SIZE);
}

/* JIT settings, like the kernel's bpf_jit_enable and bpf_jit_harden sysctls: read from the
 * environment (USERBPF_JIT=0 forces the interpreter, USERBPF_JIT_HARDEN=1 blinds constants) on
 * first use, changed with userbpf_set_jit() / userbpf_set_jit_harden().  -1: not read yet. */
static int jit_enabled = -1, jit_harden = -1;

static int env_flag(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? strcmp(v, "0") != 0 : dflt;
}

USERBPF_API int userbpf_set_jit(int enable)
{
	int old = __atomic_exchange_n(&jit_enabled, !!enable, __ATOMIC_RELAXED);

	return old < 0 ? env_flag("USERBPF_JIT", 1) : old;
}

USERBPF_API int userbpf_set_jit_harden(int enable)
{
	int old = __atomic_exchange_n(&jit_harden, !!enable, __ATOMIC_RELAXED);

	return old < 0 ? env_flag("USERBPF_JIT_HARDEN", 0) : old;
}

static int setting(int *v, const char *name, int dflt)
{
	int cur = __atomic_load_n(v, __ATOMIC_RELAXED);

	return cur < 0 ? env_flag(name, dflt) : cur;
}

int prog_prepare(struct bpf_prog *prog)
{
	struct interp_env env = { .owner = prog };
	int err;

	if (prog->type == USERBPF_PROG_TYPE_EXT) {
		/* ext_mem begins with the interpreter's table (src/prog/ext.c) */
		env.helpers = prog->ext_mem;
		env.nr_helpers = prog->nr_ext_helpers;
		env.unwind_id = prog->ext_unwind_id;
	} else {
		pthread_once(&helper_table_once, helper_tables_init);
		env.helpers = helper_table[prog->type];
		env.nr_helpers = helper_table_len[prog->type];
		/* LD_ABS/LD_IND exist for the skb types only; the verifier refuses them elsewhere */
		if (prog->type == BPF_PROG_TYPE_SOCKET_FILTER || prog_type_is_tc(prog->type))
			env.load_pkt = run_skb_load_pkt;
		env.tail_call_id = BPF_FUNC_tail_call;
		env.loop_id = BPF_FUNC_loop;
		env.tail_call = prog_tail_call;
		env.resolve_kfunc = kfunc_resolve;
		env.kfunc_owner_reg = kfunc_owner_reg;
	}
	for (u32 i = 0; i < prog->len; i++)
		if (prog->insns[i].code == (BPF_JMP | BPF_CALL) && !prog->insns[i].src_reg &&
		    prog->insns[i].imm == BPF_FUNC_tail_call)
			prog->has_tail_call = true;
	err = interp_prepare(prog->insns, prog->len, &env, &prog->interp);
	if (err)
		return err;
	prog->jited = setting(&jit_enabled, "USERBPF_JIT", 1);
	if (prog->jited) {
		struct jit_opts opts = { .sz = sizeof(opts) };

		opts.blind = setting(&jit_harden, "USERBPF_JIT_HARDEN", 0);
		opts.resolve_call = prog_resolve_call;
		opts.resolve_arg = prog;
		opts.pkt_cmp = prog->pkt_cmp;
		/* Any failure (not x86-64, out of memory) leaves the interpreter in charge. */
		if (jit_compile(prog->insns, prog->len, &env, &opts, &prog->jit))
			prog->jit = NULL;
	}
	return 0;
}

/* ---- lifetime ---- */

static u32 next_prog_id; /* ids handed out so far */

static void prog_free(struct bpf_prog *prog)
{
	if (prog->jit)
		jit_free(prog->jit);
	if (prog->interp)
		interp_free(prog->interp);
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		obj_put(&prog->used_maps[i]->obj);
	free(prog->used_maps);
	prog_unbind_maps(prog);
	btf_put(prog->btf);
	for (u32 i = 0; i < prog->used_btf_cnt; i++)
		btf_put(prog->used_btfs[i]);
	free(prog->used_btfs);
	prog_streams_free(prog);
	free(prog->func_info);
	free(prog->linfo);
	free(prog->insns);
	free(prog->pkt_cmp);
	free(prog->ext_mem);
	free(prog);
}

static void prog_destroy(struct bpf_object *obj)
{
	prog_free(prog_of(obj));
}

/* ---- checks before the program exists ---- */

/* Whether fd is one of userbpf's objects of that kind. */
static bool fd_is(int fd, enum obj_kind kind)
{
	struct bpf_object *obj;
	int err;

	rcu_read_lock();
	obj = obj_from_fd(fd, kind, &err);
	rcu_read_unlock();
	return obj != NULL;
}

/* The attach-target fields (the kernel's bpf_prog_load() and bpf_prog_load_check_attach()).
 * Only tracing programs have a target: a type of the kernel's BTF (attach_btf_id), which the
 * verifier checks (src/verifier/attach_btf.c).  attach_prog_fd names a program to trace or a
 * kernel module's BTF: userbpf traces no BPF program, and its BTF objects are never the
 * kernel's (the kernel answers ENOTSUPP for a program's BTF). */
static int check_attach(const union bpf_attr *attr)
{
	bool traces = attr->prog_type == BPF_PROG_TYPE_TRACING;

	if (attr->attach_prog_fd) {
		if (fd_is((int)attr->attach_prog_fd, OBJ_PROG))
			return traces ? -EOPNOTSUPP : -EINVAL;
		return fd_is((int)attr->attach_prog_fd, OBJ_BTF) ? -ENOTSUPP : -EINVAL;
	}
	if (attr->attach_btf_id > BTF_MAX_TYPE)
		return -EINVAL;
	if (attr->attach_btf_id && (!traces || !btf_vmlinux()))
		return -EINVAL;
	/* the kernel's bpf_prog_load_check_attach(): a cgroup skb program is for ingress or
	 * egress (0 is ingress); a cgroup sock program for a socket's creation, release or bind
	 * (0 was made SOCK_CREATE: prog_load_fixup_attach_type()) */
	if (attr->prog_type == BPF_PROG_TYPE_CGROUP_SKB &&
	    attr->expected_attach_type != BPF_CGROUP_INET_INGRESS &&
	    attr->expected_attach_type != BPF_CGROUP_INET_EGRESS)
		return -EINVAL;
	if (attr->prog_type == BPF_PROG_TYPE_CGROUP_SOCK &&
	    attr->expected_attach_type != BPF_CGROUP_INET_SOCK_CREATE &&
	    attr->expected_attach_type != BPF_CGROUP_INET_SOCK_RELEASE &&
	    attr->expected_attach_type != BPF_CGROUP_INET4_POST_BIND &&
	    attr->expected_attach_type != BPF_CGROUP_INET6_POST_BIND)
		return -EINVAL;
	/* an sk_reuseport program selects a socket, or also migrates one (0 was made SELECT) */
	if (attr->prog_type == BPF_PROG_TYPE_SK_REUSEPORT &&
	    attr->expected_attach_type != BPF_SK_REUSEPORT_SELECT &&
	    attr->expected_attach_type != BPF_SK_REUSEPORT_SELECT_OR_MIGRATE)
		return -EINVAL;
	/* a socket lookup program for its one hook */
	if (attr->prog_type == BPF_PROG_TYPE_SK_LOOKUP && attr->expected_attach_type != BPF_SK_LOOKUP)
		return -EINVAL;
	/* a cgroup sockopt program for getsockopt or setsockopt */
	if (attr->prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT &&
	    attr->expected_attach_type != BPF_CGROUP_GETSOCKOPT &&
	    attr->expected_attach_type != BPF_CGROUP_SETSOCKOPT)
		return -EINVAL;
	/* a cgroup sock_addr program for one of its bind, connect, name, sendmsg and recvmsg
	 * hooks (0 is not one of them) */
	if (attr->prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR &&
	    sock_addr_hook(attr->expected_attach_type) == SA_HOOK_NONE)
		return -EINVAL;
	return 0;
}

/* prog_ifindex asks for a device-bound (offloaded) program: only XDP and tc programs can be,
 * and no device here offers it. */
static int check_dev_bound(const union bpf_attr *attr)
{
	char name[IF_NAMESIZE];

	if (!attr->prog_ifindex)
		return 0; /* BPF_F_XDP_DEV_BOUND_ONLY alone is accepted (and means nothing) */
	if (attr->prog_type != BPF_PROG_TYPE_SCHED_CLS && attr->prog_type != BPF_PROG_TYPE_XDP)
		return -EINVAL;
	return if_indextoname(attr->prog_ifindex, name) ? -EOPNOTSUPP : -EINVAL;
}

int prog_load(union bpf_attr *attr, union bpf_attr *uattr, u32 usize)
{
	const char *ulicense = u64_to_ptr(attr->license);
	const void *uinsns = u64_to_ptr(attr->insns);
	struct bpf_prog *prog;
	char license[128];
	size_t len;
	int err;

	if (attr->prog_flags & ~PROG_FLAGS_KNOWN)
		return -EINVAL;
	/* BPF tokens do not exist in userbpf: whatever prog_token_fd is, it is not one. */
	if (attr->prog_flags & BPF_F_TOKEN_FD)
		return -EINVAL;
	if (attr->insn_cnt == 0 || attr->insn_cnt > PROG_MAX_INSNS)
		return -E2BIG;
	/* 6.18 fields beyond our uapi header (sys_bpf() copied them): an fd_array with a count
	 * binds its maps up front (the verifier's process_fd_array()); a signature asks for
	 * verification against a keyring, which userbpf has not.  The kernel answers EFAULT for
	 * a count without an array and EOPNOTSUPP for a signature it cannot check. */
	{
		u64 signature;

		memcpy(&signature, (const u8 *)attr + ATTR_SIGNATURE_OFF, sizeof(signature));
		if (attr_fd_array_cnt(attr) && !attr->fd_array)
			return -EFAULT;
		if (signature)
			return -EOPNOTSUPP;
	}
	/* the kernel's bpf_prog_load_fixup_attach_type(): 0 is INET_INGRESS, which a cgroup sock
	 * program cannot have, so it stands for SOCK_CREATE; an sk_reuseport program's, SELECT */
	if (attr->prog_type == BPF_PROG_TYPE_CGROUP_SOCK && !attr->expected_attach_type)
		attr->expected_attach_type = BPF_CGROUP_INET_SOCK_CREATE;
	if (attr->prog_type == BPF_PROG_TYPE_SK_REUSEPORT && !attr->expected_attach_type)
		attr->expected_attach_type = BPF_SK_REUSEPORT_SELECT;
	err = check_attach(attr);
	if (err)
		return err;

	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	prog->type = attr->prog_type;
	prog->expected_attach_type = attr->expected_attach_type;
	prog->attach.btf_id = attr->attach_btf_id;
	prog->prog_flags = attr->prog_flags;
	prog->kern_version = attr->kern_version;
	prog->len = attr->insn_cnt;
	/* insn_cnt <= 1e6, so the size fits in 32 bits even on i386 */
	prog->insns = malloc((size_t)prog->len * sizeof(struct bpf_insn));
	err = -ENOMEM;
	if (!prog->insns)
		goto free_prog;
	err = -EFAULT;
	if (!uinsns)
		goto free_prog;
	memcpy(prog->insns, uinsns, (size_t)prog->len * sizeof(struct bpf_insn));

	/* The license: at most 127 bytes, not necessarily terminated (the kernel cuts it). */
	if (!ulicense)
		goto free_prog;
	len = strnlen(ulicense, sizeof(license) - 1);
	memcpy(license, ulicense, len);
	license[len] = 0;
	prog->gpl_compatible = license_is_gpl_compatible(license);

	err = check_dev_bound(attr);
	if (err)
		goto free_prog;
	err = -EINVAL;
	if (!prog_type_supported(attr->prog_type))
		goto free_prog;
	err = obj_name_cpy(prog->name, attr->prog_name, sizeof(attr->prog_name));
	if (err)
		goto free_prog;

	return prog_verify_install(prog, attr, uattr, usize);

free_prog:
	prog_free(prog);
	return err;
}

int prog_verify_install(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr,
			u32 usize)
{
	int err, memfd;

	err = prog_calc_tag(prog);
	if (err)
		goto free_prog;
	err = bpf_check(prog, attr, uattr, usize);
	if (err)
		goto free_prog; /* frees the map references the verifier took */
	err = prog_prepare(prog);
	if (err)
		goto free_prog;

	/* every program array it tail-calls through, every device map it redirects to, must
	 * take it (the kernel's bpf_check_tail_call(), once the program is compiled) */
	err = -EINVAL;
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if (map_holds_progs(prog->used_maps[i]) &&
		    !map_prog_compatible(prog->used_maps[i], prog))
			goto free_prog;
	prog->obj.id = __atomic_add_fetch(&next_prog_id, 1, __ATOMIC_RELAXED);
	memfd = obj_memfd_create("bpf-prog");
	if (memfd < 0) {
		err = memfd;
		goto free_prog;
	}
	prog->obj.kind = OBJ_PROG;
	prog->obj.access = OBJ_CAN_READ | OBJ_CAN_WRITE;
	prog->obj.destroy = prog_destroy;
	err = obj_install(&prog->obj, memfd); /* closes memfd itself on failure */
	if (err < 0)
		goto free_prog;
	return err;

free_prog:
	prog_free(prog);
	return err;
}
