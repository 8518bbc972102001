/* The kfunc table (kfuncs.h): the kernel's common_btf_ids set (kernel/bpf/helpers.c), for
 * every program type, some of its generic_btf_ids set (the task and cgroup references, for the
 * types it is registered for), the cpumask set (kernel/bpf/cpumask.c: tracing, struct_ops and
 * syscall programs), and the packets' dynptr constructors, for the skb types and XDP
 * (net/core/filter.c).  The dynptr kfuncs live with the dynptr helpers (bpf_dynptr.c), the
 * string ones in kfuncs_string.c, the references in kfuncs_refs.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "exec/bpf_dynptr.h"
#include "exec/bpf_timer.h"
#include "exec/helpers/impl.h"
#include "exec/interp.h"
#include "exec/kfuncs.h"
#include "exec/kfuncs_cpumask.h"
#include "exec/kfuncs_string.h"
#include "exec/iter_css.h"
#include "exec/iter_task.h"
#include "exec/task_vma.h"
#include "map/map.h"
#include "exec/kfuncs_refs.h"
#include "prog/prog.h"

/* ---- open-coded iterators: struct bpf_iter_num (the kernel's bpf_iter_num_kern) ---- */

#define BPF_MAX_LOOPS (8 * 1024 * 1024) /* the kernel's bound, as bpf_loop()'s */

struct iter_num {
	int cur, end;
};

_Static_assert(sizeof(struct iter_num) == 8, "struct bpf_iter_num is 8 bytes");

/* Numbers [start, end): the first _next() gives start. */
static u64 bpf_iter_num_new_kfunc(u64 it, u64 start, u64 end, u64 a4, u64 a5)
{
	struct iter_num *s = (struct iter_num *)(uintptr_t)it;
	int b = (int)start, e = (int)end;

	if (b > e) {
		s->cur = s->end = 0;
		return (u32)-EINVAL;
	}
	if ((s64)e - (s64)b > BPF_MAX_LOOPS) {
		s->cur = s->end = 0;
		return (u32)-E2BIG;
	}
	s->cur = (int)((u32)b - 1); /* (wraps for INT_MIN, as the kernel's does) */
	s->end = e;
	return 0;
}

static u64 bpf_iter_num_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_num *s = (struct iter_num *)(uintptr_t)it;

	if ((s64)s->cur + 1 >= s->end) {
		s->cur = s->end = 0;
		return 0;
	}
	s->cur++;
	return (u64)(uintptr_t)&s->cur;
}

static u64 bpf_iter_num_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_num *s = (struct iter_num *)(uintptr_t)it;

	s->cur = s->end = 0;
	return 0;
}

/* ---- struct bpf_iter_bits (the kernel's bpf_iter_bits_kern): the set bits of nr_words u64s,
 * copied at _new() from any address without faulting; one word is kept in place, more are
 * allocated (freed by _destroy(), which the verifier makes every path call) ---- */

#define BITS_ITER_NR_WORDS_MAX 511

struct iter_bits {
	union {
		u64 *bits;
		u64 bits_copy;
	};
	int nr_bits;
	int bit;
};

_Static_assert(sizeof(struct iter_bits) == 16, "struct bpf_iter_bits is 16 bytes");

static u64 bpf_iter_bits_new_kfunc(u64 it, u64 ptr, u64 nr_words, u64 a4, u64 a5)
{
	struct iter_bits *k = (struct iter_bits *)(uintptr_t)it;
	u32 words = (u32)nr_words, bytes = words * 8;
	u64 *bits;

	k->nr_bits = 0;
	k->bits_copy = 0;
	k->bit = -1;
	if (!ptr || !words)
		return (u32)-EINVAL;
	if (words > BITS_ITER_NR_WORDS_MAX)
		return (u32)-E2BIG;
	if (words == 1) {
		if (ptr > UINTPTR_MAX || !copy_nofault(&k->bits_copy, (void *)(uintptr_t)ptr, 8)) {
			k->bits_copy = 0;
			return (u32)-EFAULT;
		}
		k->nr_bits = 64;
		return 0;
	}
	bits = malloc(bytes);
	if (!bits)
		return (u32)-ENOMEM;
	/* (the kernel's read here answers -ERANGE for an address it does not allow) */
	if (!nofault_allowed(ptr) || ptr > UINTPTR_MAX ||
	    !copy_nofault(bits, (void *)(uintptr_t)ptr, bytes)) {
		int err = nofault_allowed(ptr) ? -EFAULT : -ERANGE;

		free(bits);
		return (u32)err;
	}
	k->bits = bits;
	k->nr_bits = (int)bytes * 8;
	return 0;
}

static u64 bpf_iter_bits_next_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_bits *k = (struct iter_bits *)(uintptr_t)it;
	const u64 *bits = k->nr_bits == 64 ? &k->bits_copy : k->bits;
	int bit = k->bit + 1;

	if (!k->nr_bits || k->bit >= k->nr_bits)
		return 0;
	/* the next set bit from bit on (nr_bits at the end) */
	while (bit < k->nr_bits) {
		u64 w = bits[bit / 64] >> (bit % 64);

		if (w) {
			bit += __builtin_ctzll(w);
			break;
		}
		bit = (bit / 64 + 1) * 64;
	}
	if (bit > k->nr_bits)
		bit = k->nr_bits;
	k->bit = bit;
	return bit < k->nr_bits ? (u64)(uintptr_t)&k->bit : 0;
}

static u64 bpf_iter_bits_destroy_kfunc(u64 it, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct iter_bits *k = (struct iter_bits *)(uintptr_t)it;

	if (k->nr_bits > 64)
		free(k->bits);
	return 0;
}

/* A program runs inside an RCU read section already (src/rcu.h), and nothing preempts it but
 * the operating system: the regions these mark (RCU, preemption off) only matter to the
 * verifier. */
static u64 bpf_rcu_read_lock_kfunc(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* bpf_map_sum_elem_count(map): the elements the map holds, for the types that count them. */
static u64 bpf_map_sum_elem_count_kfunc(u64 map, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = (struct bpf_map *)(uintptr_t)map;

	return m && m->ops->elem_count ? (u64)m->ops->elem_count(m) : 0;
}

/* bpf_rdonly_cast(obj, btf_id): obj itself (the verifier gives it its type; the kernel
 * replaces the call with r0 = r1). */
static u64 bpf_rdonly_cast_kfunc(u64 obj, u64 btf_id, u64 a3, u64 a4, u64 a5)
{
	return obj;
}

/* The cpumask set's kfuncs (kfuncs_cpumask.c), with the kernel's flags */
#define CPUMASK(f, flags) { "bpf_cpumask_" #f, bpf_cpumask_##f##_kfunc, KF_CPUMASK | (flags) }

static const struct kfunc_desc kfuncs[] = {
	{ "bpf_copy_from_user_dynptr", bpf_copy_from_user_dynptr_kfunc, KF_SLEEPABLE },
	{ "bpf_copy_from_user_str", bpf_copy_from_user_str_kfunc, KF_SLEEPABLE },
	{ "bpf_copy_from_user_str_dynptr", bpf_copy_from_user_str_dynptr_kfunc, KF_SLEEPABLE },
	CPUMASK(acquire, KF_ACQUIRE | KF_TRUSTED_ARGS),
	CPUMASK(and, KF_RCU),
	CPUMASK(any_and_distribute, KF_RCU),
	CPUMASK(any_distribute, KF_RCU),
	CPUMASK(clear, KF_RCU),
	CPUMASK(clear_cpu, KF_RCU),
	CPUMASK(copy, KF_RCU),
	CPUMASK(create, KF_ACQUIRE | KF_RET_NULL),
	CPUMASK(empty, KF_RCU),
	CPUMASK(equal, KF_RCU),
	CPUMASK(first, KF_RCU),
	CPUMASK(first_and, KF_RCU),
	CPUMASK(first_zero, KF_RCU),
	CPUMASK(full, KF_RCU),
	CPUMASK(intersects, KF_RCU),
	CPUMASK(or, KF_RCU),
	CPUMASK(populate, KF_RCU),
	CPUMASK(release, KF_RELEASE),
	CPUMASK(set_cpu, KF_RCU),
	CPUMASK(setall, KF_RCU),
	CPUMASK(subset, KF_RCU),
	CPUMASK(test_and_clear_cpu, KF_RCU),
	CPUMASK(test_and_set_cpu, KF_RCU),
	CPUMASK(test_cpu, KF_RCU),
	CPUMASK(weight, KF_RCU),
	CPUMASK(xor, KF_RCU),
	{ "bpf_cgroup_acquire", bpf_task_acquire_kfunc,
	  KF_GENERIC | KF_ACQUIRE | KF_RCU | KF_RET_NULL },
	{ "bpf_cgroup_ancestor", bpf_cgroup_ancestor_kfunc,
	  KF_GENERIC | KF_ACQUIRE | KF_RCU | KF_RET_NULL },
	{ "bpf_cgroup_from_id", bpf_cgroup_from_id_kfunc, KF_GENERIC | KF_ACQUIRE | KF_RET_NULL },
	{ "bpf_cgroup_release", bpf_obj_release_kfunc, KF_GENERIC | KF_RELEASE },
	{ "bpf_dynptr_adjust", bpf_dynptr_adjust_kfunc, 0 },
	{ "bpf_dynptr_clone", bpf_dynptr_clone_kfunc, 0 },
	{ "bpf_dynptr_copy", bpf_dynptr_copy_kfunc, 0 },
	{ "bpf_dynptr_from_skb", bpf_dynptr_from_skb_kfunc, KF_PKT_SKB },
	{ "bpf_dynptr_from_xdp", bpf_dynptr_from_xdp_kfunc, KF_PKT_XDP },
	{ "bpf_dynptr_is_null", bpf_dynptr_is_null_kfunc, 0 },
	{ "bpf_dynptr_is_rdonly", bpf_dynptr_is_rdonly_kfunc, 0 },
	{ "bpf_dynptr_memset", bpf_dynptr_memset_kfunc, 0 },
	{ "bpf_dynptr_size", bpf_dynptr_size_kfunc, 0 },
	{ "bpf_dynptr_slice", bpf_dynptr_slice_kfunc, KF_RET_NULL },
	{ "bpf_dynptr_slice_rdwr", bpf_dynptr_slice_rdwr_kfunc, KF_RET_NULL },
	{ "bpf_iter_bits_destroy", bpf_iter_bits_destroy_kfunc, KF_ITER_DESTROY },
	{ "bpf_iter_bits_new", bpf_iter_bits_new_kfunc, KF_ITER_NEW },
	{ "bpf_iter_bits_next", bpf_iter_bits_next_kfunc, KF_ITER_NEXT | KF_RET_NULL },
	/* (the number iterator also under a bpf_spin_lock: the kernel's kfunc_spin_allowed()) */
	{ "bpf_iter_css_destroy", bpf_iter_css_destroy_kfunc, KF_ITER_DESTROY },
	{ "bpf_iter_css_new", bpf_iter_css_new_kfunc,
	  KF_ITER_NEW | KF_TRUSTED_ARGS | KF_RCU_PROTECTED },
	{ "bpf_iter_css_next", bpf_iter_css_next_kfunc, KF_ITER_NEXT | KF_RET_NULL },
	{ "bpf_iter_css_task_destroy", bpf_iter_css_task_destroy_kfunc, KF_ITER_DESTROY },
	{ "bpf_iter_css_task_new", bpf_iter_css_task_new_kfunc, KF_ITER_NEW | KF_TRUSTED_ARGS },
	{ "bpf_iter_css_task_next", bpf_iter_css_task_next_kfunc, KF_ITER_NEXT | KF_RET_NULL },
	{ "bpf_iter_num_destroy", bpf_iter_num_destroy_kfunc, KF_ITER_DESTROY | KF_SPIN_OK },
	{ "bpf_iter_task_destroy", bpf_iter_task_destroy_kfunc, KF_ITER_DESTROY },
	{ "bpf_iter_task_new", bpf_iter_task_new_kfunc,
	  KF_ITER_NEW | KF_TRUSTED_ARGS | KF_RCU_PROTECTED },
	{ "bpf_iter_task_next", bpf_iter_task_next_kfunc, KF_ITER_NEXT | KF_RET_NULL },
	{ "bpf_iter_task_vma_destroy", bpf_iter_task_vma_destroy_kfunc, KF_ITER_DESTROY },
	{ "bpf_iter_task_vma_new", bpf_iter_task_vma_new_kfunc, KF_ITER_NEW | KF_RCU },
	{ "bpf_iter_task_vma_next", bpf_iter_task_vma_next_kfunc, KF_ITER_NEXT | KF_RET_NULL },
	{ "bpf_iter_num_new", bpf_iter_num_new_kfunc, KF_ITER_NEW | KF_SPIN_OK },
	{ "bpf_iter_num_next", bpf_iter_num_next_kfunc, KF_ITER_NEXT | KF_RET_NULL | KF_SPIN_OK },
	{ "bpf_map_sum_elem_count", bpf_map_sum_elem_count_kfunc, KF_TRUSTED_ARGS },
	{ "bpf_preempt_disable", bpf_rcu_read_lock_kfunc, KF_PREEMPT_OFF },
	{ "bpf_preempt_enable", bpf_rcu_read_lock_kfunc, KF_PREEMPT_ON },
	{ "bpf_probe_read_kernel_dynptr", bpf_probe_read_kernel_dynptr_kfunc, 0 },
	{ "bpf_probe_read_kernel_str_dynptr", bpf_probe_read_kernel_str_dynptr_kfunc, 0 },
	{ "bpf_probe_read_user_dynptr", bpf_probe_read_user_dynptr_kfunc, 0 },
	{ "bpf_probe_read_user_str_dynptr", bpf_probe_read_user_str_dynptr_kfunc, 0 },
	{ "bpf_rcu_read_lock", bpf_rcu_read_lock_kfunc, KF_RCU_LOCK },
	{ "bpf_rcu_read_unlock", bpf_rcu_read_lock_kfunc, KF_RCU_UNLOCK },
	{ "bpf_rdonly_cast", bpf_rdonly_cast_kfunc, 0 },
	{ "bpf_strcasecmp", bpf_strcasecmp_kfunc, 0 },
	{ "bpf_strchr", bpf_strchr_kfunc, 0 },
	{ "bpf_strchrnul", bpf_strchrnul_kfunc, 0 },
	{ "bpf_strcmp", bpf_strcmp_kfunc, 0 },
	{ "bpf_strcspn", bpf_strcspn_kfunc, 0 },
	{ "bpf_strlen", bpf_strlen_kfunc, 0 },
	{ "bpf_strnchr", bpf_strnchr_kfunc, 0 },
	{ "bpf_strnlen", bpf_strnlen_kfunc, 0 },
	{ "bpf_strnstr", bpf_strnstr_kfunc, 0 },
	{ "bpf_strrchr", bpf_strrchr_kfunc, 0 },
	{ "bpf_strspn", bpf_strspn_kfunc, 0 },
	{ "bpf_strstr", bpf_strstr_kfunc, 0 },
	{ "bpf_stream_vprintk_impl", bpf_stream_vprintk_kfunc, KF_TRUSTED_ARGS },
	{ "bpf_task_acquire", bpf_task_acquire_kfunc,
	  KF_GENERIC | KF_ACQUIRE | KF_RCU | KF_RET_NULL },
	{ "bpf_task_from_pid", bpf_task_from_pid_kfunc, KF_GENERIC | KF_ACQUIRE | KF_RET_NULL },
	{ "bpf_task_from_vpid", bpf_task_from_pid_kfunc, KF_GENERIC | KF_ACQUIRE | KF_RET_NULL },
	{ "bpf_task_release", bpf_obj_release_kfunc, KF_GENERIC | KF_RELEASE },
	{ "bpf_task_under_cgroup", bpf_task_under_cgroup_kfunc, KF_GENERIC | KF_RCU },
	{ "bpf_task_work_schedule_resume_impl", bpf_task_work_schedule_kfunc, KF_TRUSTED_ARGS },
	{ "bpf_task_work_schedule_signal_impl", bpf_task_work_schedule_kfunc, KF_TRUSTED_ARGS },
	{ "bpf_wq_init", bpf_wq_init_kfunc, 0 },
	{ "bpf_wq_set_callback_impl", bpf_wq_set_callback_kfunc, 0 },
	{ "bpf_wq_start", bpf_wq_start_kfunc, 0 },
};

const struct kfunc_desc *kfunc_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(kfuncs) / sizeof(kfuncs[0]); i++)
		if (!strcmp(kfuncs[i].name, name))
			return &kfuncs[i];
	return NULL;
}

const struct kfunc_desc *kfunc_of_insn(const struct bpf_insn *in)
{
	const char *name = in->off ? NULL : kfunc_btf_name(in->imm);

	return name ? kfunc_by_name(name) : NULL;
}

const char *kfunc_btf_name(s32 id)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t = btf && id > 0 ? btf_type_by_id(btf, (u32)id) : NULL;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC)
		return NULL;
	return btf_str_by_offset(btf, t->name_off);
}

int kfunc_owner_reg(const struct interp_env *env, s32 id, s16 off)
{
	const struct btf *btf = btf_vmlinux();
	const char *name = off ? NULL : kfunc_btf_name(id);
	const struct btf_type *proto;
	const struct btf_param *p;

	if (!name || !kfunc_by_name(name))
		return 0;
	proto = btf_type_by_id(btf, btf_type_by_id(btf, (u32)id)->type);
	p = (const struct btf_param *)(proto + 1);
	for (u32 i = 0; i < BTF_INFO_VLEN(proto->info) && i < 5; i++) {
		const char *n = btf_str_by_offset(btf, p[i].name_off);
		size_t len = n ? strlen(n) : 0;

		if (len >= 6 && !strcmp(n + len - 6, "__prog"))
			return (int)i + 1;
	}
	return 0;
}

u64 (*kfunc_resolve(const struct interp_env *env, s32 id, s16 off))(u64, u64, u64, u64, u64)
{
	const char *name = off ? NULL : kfunc_btf_name(id);
	const struct kfunc_desc *k = name ? kfunc_by_name(name) : NULL;
	const struct bpf_prog *prog = env ? env->owner : NULL;

	/* a program that may not write its packet gets a read-only skb dynptr (the kernel's
	 * specialize_kfunc(): bpf_dynptr_from_skb_rdonly()) */
	if (k && k->func == bpf_dynptr_from_skb_kfunc && prog && !prog_may_write_pkt(prog->type))
		return bpf_dynptr_from_skb_rdonly_kfunc;
	return k ? k->func : NULL;
}
