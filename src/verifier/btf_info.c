/* BTF on BPF_PROG_LOAD: prog_btf_fd, func_info and line_info, checked where and as the kernel
 * checks them, and the source-line comments of the verifier log.
 *
 *   check_btf_info_early()  before subprograms are known: takes the BTF fd (EBADF / EINVAL),
 *                           reads func_info (record size, zero record tails, first insn_off 0,
 *                           strictly increasing, each type a FUNC with a FUNC_PROTO);
 *   check_btf_info()        after check_subprogs(), before ldimm64 resolution: one func_info
 *                           record per subprogram, at its start; line_info (record size,
 *                           strictly increasing offsets inside the program, not on the second
 *                           half of an ldimm64, valid string offsets, one record at each
 *                           subprogram's start);
 *   verbose_linfo()         at log level 1 and above, before an instruction whose line record
 *                           differs (by file or line number) from the last one printed:
 *                           "; <source line, left-trimmed> @ <file basename>:<line>".
 *
 * Records are copied field by field from the user's array (rec_size apart, bytes beyond the
 * kernel's record size must be zero); nothing here keeps a user pointer.  On success the
 * program owns the copies and a reference on the BTF (prog->btf), released with the program.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "btf/btf.h"
#include "prog/prog.h"
#include "verifier/env.h"

#define MIN_FUNCINFO_SIZE 8u
#define MAX_FUNCINFO_REC_SIZE 252u
#define MIN_LINEINFO_SIZE 16u /* through line_col */

int rec_tail_zero(const u8 *rec, u32 ksize, u32 usize)
{
	for (u32 i = ksize; i < usize; i++)
		if (rec[i])
			return -E2BIG;
	return 0;
}

void tell_rec_size(union bpf_attr *uattr, u32 usize, size_t off, u32 size)
{
	if (uattr && usize >= off + sizeof(size))
		memcpy((u8 *)uattr + off, &size, sizeof(size));
}

int check_btf_info_early(struct verifier_env *env, const union bpf_attr *attr,
			 union bpf_attr *uattr, u32 usize)
{
	u32 n = attr->func_info_cnt, rsize = attr->func_info_rec_size, ksize, prev = 0;
	const u8 *urec = u64_to_voidp(attr->func_info);
	int err;

	if (!attr->func_info_cnt && !attr->line_info_cnt)
		return 0;
	env->btf = btf_get_by_fd((int)attr->prog_btf_fd, &err);
	if (!env->btf)
		return err;
	if (!n)
		return 0;
	if (rsize < MIN_FUNCINFO_SIZE || rsize > MAX_FUNCINFO_REC_SIZE || rsize % 4) {
		verbose(env, "invalid func info rec size %u\n", rsize);
		return -EINVAL;
	}
	ksize = sizeof(struct bpf_func_info);
	env->func_info = calloc(n, sizeof(*env->func_info));
	if (!env->func_info)
		return -ENOMEM;
	for (u32 i = 0; i < n; i++, urec += rsize) {
		struct bpf_func_info *r = &env->func_info[i];
		const struct btf_type *t, *proto;

		if (!urec)
			return -EFAULT;
		if (rec_tail_zero(urec, ksize, rsize)) {
			verbose(env, "nonzero tailing record in func info");
			tell_rec_size(uattr, usize, offsetof(union bpf_attr, func_info_rec_size),
				      ksize < rsize ? ksize : rsize);
			return -E2BIG;
		}
		memcpy(r, urec, ksize < rsize ? ksize : rsize);
		if (i == 0 && r->insn_off) {
			verbose(env, "nonzero insn_off %u for the first func info record",
				r->insn_off);
			return -EINVAL;
		}
		if (i && r->insn_off <= prev) {
			verbose(env, "same or smaller insn offset (%u) than previous func info "
				     "record (%u)", r->insn_off, prev);
			return -EINVAL;
		}
		t = btf_type_by_id(env->btf, r->type_id);
		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC) {
			verbose(env, "invalid type id %d in func info", r->type_id);
			return -EINVAL;
		}
		proto = btf_type_by_id(env->btf, t->type);
		if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
			return -EINVAL; /* BPF_BTF_LOAD made sure of it */
		prev = r->insn_off;
	}
	env->func_info_cnt = n;
	return 0;
}

/* Whether func_info[i]'s function returns an integer or an enum (the kernel's scalar_return:
 * btf_type_is_small_int() or any enum). */
static bool func_returns_scalar(struct verifier_env *env, u32 i)
{
	const struct btf_type *f = btf_type_by_id(env->btf, env->func_info[i].type_id), *proto, *ret;

	proto = f ? btf_type_by_id(env->btf, f->type) : NULL;
	ret = proto ? btf_skip_modifiers(env->btf, proto->type, NULL) : NULL;
	if (!ret)
		return false;
	if (BTF_INFO_KIND(ret->info) == BTF_KIND_ENUM || BTF_INFO_KIND(ret->info) == BTF_KIND_ENUM64)
		return true;
	return BTF_INFO_KIND(ret->info) == BTF_KIND_INT && ret->size <= 8;
}

static int check_btf_func(struct verifier_env *env)
{
	if (!env->func_info_cnt)
		return 0;
	if (env->func_info_cnt != env->subprog_cnt) {
		verbose(env, "number of funcs in func_info doesn't match number of subprogs\n");
		return -EINVAL;
	}
	for (u32 i = 0; i < env->func_info_cnt; i++) {
		if ((u32)env->subprog[i].start != env->func_info[i].insn_off) {
			verbose(env, "func_info BTF section doesn't match subprog layout in BPF "
				     "program\n");
			return -EINVAL;
		}
		/* a subprogram that may end the program (LD_ABS/LD_IND, a tail call) returns
		 * the program's integer */
		if (i && !func_returns_scalar(env, i)) {
			if (subprog_has_insn(env, i, insn_is_ld_abs)) {
				verbose(env, "LD_ABS is only allowed in functions that return 'int'.\n");
				return -EINVAL;
			}
			if (subprog_has_insn(env, i, insn_is_tail_call)) {
				verbose(env, "tail_call is only allowed in functions that return "
					     "'int'.\n");
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int check_btf_line(struct verifier_env *env, const union bpf_attr *attr,
			  union bpf_attr *uattr, u32 usize)
{
	u32 n = attr->line_info_cnt, rsize = attr->line_info_rec_size, prev = 0, s = 0;
	const u8 *urec = u64_to_voidp(attr->line_info);
	const u32 ksize = sizeof(struct bpf_line_info);

	if (!n)
		return 0;
	if (n > INT32_MAX / ksize)
		return -EINVAL;
	if (rsize < MIN_LINEINFO_SIZE || rsize > MAX_FUNCINFO_REC_SIZE || rsize % 4)
		return -EINVAL;
	env->linfo = calloc(n, ksize);
	if (!env->linfo)
		return -ENOMEM;
	for (u32 i = 0; i < n; i++, urec += rsize) {
		struct bpf_line_info *l = &env->linfo[i];

		if (!urec)
			return -EFAULT;
		if (rec_tail_zero(urec, ksize, rsize)) {
			verbose(env, "nonzero tailing record in line_info");
			tell_rec_size(uattr, usize, offsetof(union bpf_attr, line_info_rec_size),
				      ksize);
			return -E2BIG;
		}
		memcpy(l, urec, ksize < rsize ? ksize : rsize);
		if ((i && l->insn_off <= prev) || l->insn_off >= env->len) {
			verbose(env, "Invalid line_info[%u].insn_off:%u (prev_offset:%u "
				     "prog->len:%u)\n", i, l->insn_off, prev, env->len);
			return -EINVAL;
		}
		if (!env->insns[l->insn_off].code) {
			verbose(env, "Invalid insn code at line_info[%u].insn_off\n", i);
			return -EINVAL;
		}
		if (!btf_str_by_offset(env->btf, l->line_off) ||
		    !btf_str_by_offset(env->btf, l->file_name_off)) {
			verbose(env, "Invalid line_info[%u].line_off or .file_name_off\n", i);
			return -EINVAL;
		}
		if (s != env->subprog_cnt) {
			if (l->insn_off == (u32)env->subprog[s].start) {
				s++;
			} else if ((u32)env->subprog[s].start < l->insn_off) {
				verbose(env, "missing bpf_line_info for func#%u\n", s);
				return -EINVAL;
			}
		}
		prev = l->insn_off;
	}
	if (s != env->subprog_cnt) {
		verbose(env, "missing bpf_line_info for %u funcs starting from func#%u\n",
			env->subprog_cnt - s, s);
		return -EINVAL;
	}
	env->nr_linfo = n;
	return 0;
}

/* The name of the struct (or typedef) a program type's ctx is declared as in BPF C. */
const char *ctx_type_name(u32 prog_type, bool typedef_name)
{
	switch (prog_type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_LWT_SEG6LOCAL:
	case BPF_PROG_TYPE_SK_SKB:
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
		return typedef_name ? NULL : "__sk_buff";
	case BPF_PROG_TYPE_SK_MSG:
		return typedef_name ? NULL : "sk_msg_md";
	case BPF_PROG_TYPE_SK_REUSEPORT:
		return typedef_name ? NULL : "sk_reuseport_md";
	case BPF_PROG_TYPE_XDP:
		return typedef_name ? NULL : "xdp_md";
	case BPF_PROG_TYPE_CGROUP_SOCK:
		return typedef_name ? NULL : "bpf_sock";
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
		return typedef_name ? NULL : "bpf_sock_addr";
	case BPF_PROG_TYPE_CGROUP_DEVICE:
		return typedef_name ? NULL : "bpf_cgroup_dev_ctx";
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
		return typedef_name ? NULL : "bpf_sockopt";
	case BPF_PROG_TYPE_CGROUP_SYSCTL:
		return typedef_name ? NULL : "bpf_sysctl";
	case BPF_PROG_TYPE_SOCK_OPS:
		return typedef_name ? NULL : "bpf_sock_ops";
	case BPF_PROG_TYPE_PERF_EVENT:
		return typedef_name ? NULL : "bpf_perf_event_data";
	case BPF_PROG_TYPE_SK_LOOKUP:
		return typedef_name ? NULL : "bpf_sk_lookup";
	case BPF_PROG_TYPE_KPROBE:
		return typedef_name ? "bpf_user_pt_regs_t" : "pt_regs";
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE:
		return typedef_name ? NULL : "bpf_raw_tracepoint_args";
	default:
		return NULL;
	}
}

/* The size of type id as the kernel's btf_resolve_size() finds it: modifiers and typedefs
 * skipped, arrays multiplied out; 0 when it has none (void, a function, a forward
 * declaration). */
static u64 type_size(const struct btf *btf, u32 id, int depth)
{
	const struct btf_type *t = btf_skip_modifiers(btf, id, NULL);

	if (!t || depth > 32)
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FLOAT:
		return t->size;
	case BTF_KIND_PTR:
		return 8;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const struct btf_array *)(t + 1);

		return a->nelems * type_size(btf, a->type, depth + 1);
	}
	default:
		return 0;
	}
}

/* GARG_SCALAR for an integer or enum, GARG_CTX for a pointer to the program type's ctx,
 * GARG_DYNPTR for a pointer to struct bpf_dynptr (which the function may only read through
 * helpers), GARG_MEM (its size in *size) for a pointer to anything else with a size, else 0 (a
 * kind we do not model). */
static u8 garg_kind(const struct verifier_env *env, u32 type_id, u32 *size)
{
	const struct btf *btf = env->btf;
	const struct btf_type *t = btf_skip_modifiers(btf, type_id, NULL);
	const char *want;
	u8 kind;

	if (!t)
		return 0;
	kind = (u8)BTF_INFO_KIND(t->info);
	if (kind == BTF_KIND_INT || kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64)
		return GARG_SCALAR;
	if (kind != BTF_KIND_PTR)
		return 0;
	/* const / volatile pointee, then the ctx struct or its typedef by name */
	for (t = btf_type_by_id(btf, t->type); t; t = btf_type_by_id(btf, t->type)) {
		kind = (u8)BTF_INFO_KIND(t->info);
		if (kind != BTF_KIND_CONST && kind != BTF_KIND_VOLATILE &&
		    kind != BTF_KIND_RESTRICT && kind != BTF_KIND_TYPE_TAG)
			break;
	}
	if (!t) { /* void *: no size */
		if (size)
			*size = 0;
		return size ? GARG_UNSIZED : 0;
	}
	if (kind == BTF_KIND_STRUCT && !strcmp(btf_str_by_offset(btf, t->name_off), "bpf_dynptr"))
		return GARG_DYNPTR;
	want = ctx_type_name(env->prog->type, kind == BTF_KIND_TYPEDEF);
	if ((kind == BTF_KIND_STRUCT || kind == BTF_KIND_TYPEDEF) && want &&
	    !strcmp(btf_str_by_offset(btf, t->name_off), want))
		return GARG_CTX;
	if (size) {
		u32 ref = btf_skip_modifiers(btf, type_id, NULL)->type;
		u64 n = type_size(btf, ref, 0);

		if (n && n <= UINT32_MAX) {
			*size = (u32)n;
			return GARG_MEM;
		}
		*size = ref;
		return GARG_UNSIZED;
	}
	return 0;
}

/* Global functions (BTF_FUNC_GLOBAL linkage) are verified on their own from their prototype
 * (the kernel's global subprogs), where it is one we model: an integer return and integer,
 * ctx-pointer or sized-memory-pointer arguments.  Any other global function is walked at each
 * call like a static one. */
static void find_global_subprogs(struct verifier_env *env)
{
	if (!env->btf || env->prog->type == USERBPF_PROG_TYPE_EXT)
		return;
	for (u32 i = 1; i < env->func_info_cnt && i < env->subprog_cnt; i++) {
		struct subprog_info *sp = &env->subprog[i];
		const struct btf_type *f = btf_type_by_id(env->btf, env->func_info[i].type_id);
		const struct btf_type *proto, *ret;
		const struct btf_param *p;
		u32 n;

		if (!f || BTF_INFO_KIND(f->info) != BTF_KIND_FUNC ||
		    BTF_INFO_VLEN(f->info) != BTF_FUNC_GLOBAL)
			continue;
		proto = btf_type_by_id(env->btf, f->type);
		if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
			continue;
		n = BTF_INFO_VLEN(proto->info);
		if (n > 5)
			continue;
		sp->name = btf_str_by_offset(env->btf, f->name_off);
		/* one that returns no integer cannot be called (6.18 refuses the call) */
		ret = btf_skip_modifiers(env->btf, proto->type, NULL);
		if (!ret || (BTF_INFO_KIND(ret->info) != BTF_KIND_INT &&
			     BTF_INFO_KIND(ret->info) != BTF_KIND_ENUM &&
			     BTF_INFO_KIND(ret->info) != BTF_KIND_ENUM64)) {
			sp->global = true;
			sp->bad_ret = true;
			continue;
		}
		p = (const struct btf_param *)(proto + 1);
		sp->nargs = (u8)n;
		sp->global = true;
		for (u32 a = 0; a < n; a++) {
			sp->arg[a] = garg_kind(env, p[a].type, &sp->arg_size[a]);
			if (!sp->arg[a])
				sp->global = false;
		}
	}
}

/* 6.18 reads the main function's prototype too, and logs a pointer argument whose pointee has
 * no size (void *ctx of a kprobe, a forward-declared struct), though it goes on with R1 = ctx. */
void log_main_args(struct verifier_env *env)
{
	const struct btf_type *f, *proto;
	const struct btf_param *p;

	if (!env->btf || !env->func_info_cnt || env->prog->type == USERBPF_PROG_TYPE_EXT)
		return;
	f = btf_type_by_id(env->btf, env->func_info[0].type_id);
	if (!f || BTF_INFO_KIND(f->info) != BTF_KIND_FUNC)
		return;
	proto = btf_type_by_id(env->btf, f->type);
	if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
		return;
	p = (const struct btf_param *)(proto + 1);
	for (u32 a = 0; a < BTF_INFO_VLEN(proto->info) && a < 5; a++) {
		const struct btf_type *t = btf_skip_modifiers(env->btf, p[a].type, NULL), *r;
		u8 k;

		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR ||
		    garg_kind(env, p[a].type, NULL) == GARG_CTX)
			continue;
		r = btf_skip_modifiers(env->btf, t->type, NULL);
		k = r ? (u8)BTF_INFO_KIND(r->info) : 0;
		if (k == 0 || k == BTF_KIND_FWD || k == BTF_KIND_FUNC_PROTO)
			verbose(env, "arg#%u reference type('%s %s') size cannot be determined: %d\n", a,
				k == 0 ? "UNKNOWN" : k == BTF_KIND_FWD ? "FWD" : "FUNC_PROTO",
				r ? btf_str_by_offset(env->btf, r->name_off) : "", -EINVAL);
	}
}

int check_btf_info(struct verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr,
		   u32 usize)
{
	int err;

	if (!attr->func_info_cnt && !attr->line_info_cnt)
		return 0;
	err = check_btf_func(env);
	if (err)
		return err;
	err = check_btf_line(env, attr, uattr, usize);
	if (!err)
		err = check_core_relo(env, attr, uattr, usize);
	if (!err)
		find_global_subprogs(env);
	return err;
}

/* The last line record at or before insn_off, by binary search; NULL without line info. */
static const struct bpf_line_info *find_linfo(const struct verifier_env *env, u32 insn_off)
{
	u32 l = 0, r;

	if (!env->nr_linfo || insn_off >= env->len)
		return NULL;
	r = env->nr_linfo - 1;
	while (l < r) {
		u32 m = l + (r - l + 1) / 2; /* ties to the right, or l never moves */

		if (env->linfo[m].insn_off <= insn_off)
			l = m;
		else
			r = m - 1;
	}
	return &env->linfo[l];
}

void verbose_linfo(struct verifier_env *env, u32 insn_off, const char *prefix)
{
	const struct bpf_line_info *l, *prev = env->prev_linfo;
	const char *s, *file, *slash;

	if (!env->log.level)
		return;
	l = find_linfo(env, insn_off);
	if (!l || l == prev)
		return;
	/* records differing only in the column print the same line: once is enough */
	if (prev && l->file_name_off == prev->file_name_off &&
	    BPF_LINE_INFO_LINE_NUM(l->line_col) == BPF_LINE_INFO_LINE_NUM(prev->line_col))
		return;
	s = btf_str_by_offset(env->btf, l->line_off);
	while (isspace((unsigned char)*s))
		s++;
	file = btf_str_by_offset(env->btf, l->file_name_off);
	slash = strrchr(file, '/');
	/* three messages, as the kernel writes them (each is cut at 1023 bytes on its own) */
	verbose(env, "%s", prefix);
	verbose(env, "%s", s);
	verbose(env, " @ %s:%u\n", slash ? slash + 1 : file, BPF_LINE_INFO_LINE_NUM(l->line_col));
	env->prev_linfo = l;
}

void btf_info_transfer(struct verifier_env *env, struct bpf_prog *prog)
{
	prog->btf = env->btf;
	prog->func_info = env->func_info;
	prog->func_info_cnt = env->func_info_cnt;
	prog->linfo = env->linfo;
	prog->nr_linfo = env->nr_linfo;
	env->btf = NULL;
	env->func_info = NULL;
	env->linfo = NULL;
}

void btf_info_free(struct verifier_env *env)
{
	btf_put(env->btf);
	free(env->func_info);
	free(env->linfo);
}

/* Whether subprogram sub's func_info names a function of static linkage (what a callback must
 * be, the kernel's check_ld_imm()). */
bool func_is_static(struct verifier_env *env, u32 sub)
{
	const struct btf_type *f;

	if (!env->btf || sub >= env->func_info_cnt)
		return false;
	f = btf_type_by_id(env->btf, env->func_info[sub].type_id);
	return f && BTF_INFO_KIND(f->info) == BTF_KIND_FUNC &&
	       BTF_INFO_VLEN(f->info) == BTF_FUNC_STATIC;
}
