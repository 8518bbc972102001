/* kfuncs_cpumask.c — the kernel's BPF cpumask kfuncs (kernel/bpf/cpumask.c): struct
 * bpf_cpumask objects a program makes, changes, queries and drops, and queries of any struct
 * cpumask (a task's cpus_ptr, which current_task.c fills with the thread's affinity).
 *
 * The bits are the kernel's: a bitmap of NR_CPUS bits in 64-bit words (the size of struct
 * cpumask in the kernel's BTF), of which the first nr_cpu_ids (the possible CPUs) are CPUs.  The
 * kernel's cpumask functions work on nr_cpu_ids bits for most things but whole words for some
 * (setall and populate fill or copy the first word whole, or and xor work on whole words, copy
 * and clear on all NR_CPUS bits); this keeps to that, since a program can read the words
 * directly (mask->cpumask.bits[0]).  Which count each uses is the kernel's
 * small_cpumask_bits / large_cpumask_bits: NR_CPUS for both up to 64, nr_cpu_ids and NR_CPUS
 * up to 256, nr_cpu_ids for both above.
 *
 * An object has its reference count at the kernel's offset of usage, and goes when the last
 * reference does (the verifier sees that a program drops every reference it takes; a map's
 * kptr holds one, which emptying the kptr drops: map.h).  A program may still read a mask it
 * loaded from a map's kptr in an RCU section while another thread drops it, as the kernel's
 * programs may until a grace period ends: objects are kept on a free list and reused, never
 * unmapped, so such a read reads a mask (maybe a newer one), never freed memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "exec/kfuncs_cpumask.h"
#include "map/map.h"

static struct {
	bool ok;
	u32 size;		/* struct bpf_cpumask */
	long usage;		/* its refcount_t */
	u32 nr_cpus;		/* NR_CPUS: struct cpumask's bits */
	u32 nr_cpu_ids;		/* the possible CPUs */
	u32 small, large;	/* small_cpumask_bits, large_cpumask_bits */
} L;

static void layout_init(void)
{
	const struct btf *btf = btf_vmlinux();
	u32 id = btf ? btf_find_by_name_kind(btf, "bpf_cpumask", BTF_KIND_STRUCT) : 0;
	u32 mask = btf ? btf_find_by_name_kind(btf, "cpumask", BTF_KIND_STRUCT) : 0;

	if (!id || !mask)
		return;
	L.size = btf_type_by_id(btf, id)->size;
	L.usage = btf_member_offset(btf, id, "usage");
	L.nr_cpus = btf_type_by_id(btf, mask)->size * 8;
	L.nr_cpu_ids = map_possible_cpus();
	if (L.nr_cpu_ids > L.nr_cpus)
		L.nr_cpu_ids = L.nr_cpus;
	L.small = L.nr_cpus <= 64 ? L.nr_cpus : L.nr_cpu_ids;
	L.large = L.nr_cpus <= 256 ? L.nr_cpus : L.nr_cpu_ids;
	L.ok = L.usage >= 0 && L.usage + 4 <= (long)L.size && L.nr_cpus && L.nr_cpu_ids;
}

static bool layout(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, layout_init);
	return L.ok;
}

/* A mask's words; (every kfunc below gets here first: the layout is known from then on) */
static u64 *W(u64 p)
{
	layout();
	return (u64 *)(uintptr_t)p;
}

/* The low bits of the last word of an nbits bitmap (all of it when nbits is a multiple). */
static u64 last_mask(u32 nbits)
{
	return nbits % 64 ? ((u64)1 << (nbits % 64)) - 1 : ~(u64)0;
}

static u32 words(u32 nbits)
{
	return (nbits + 63) / 64;
}

/* The first bit set in (a & b, or a where b is NULL; ~a where invert) from bit `from` on, below
 * nbits; nbits if none (the kernel's find_next_bit() family). */
static u32 find_next(const u64 *a, const u64 *b, bool invert, u32 nbits, u32 from)
{
	for (u32 k = from / 64; k < words(nbits); k++) {
		u64 w = (invert ? ~a[k] : a[k]) & (b ? b[k] : ~(u64)0);

		if (k == from / 64)
			w &= ~(u64)0 << (from % 64);
		if (k == words(nbits) - 1)
			w &= last_mask(nbits);
		if (w)
			return k * 64 + (u32)__builtin_ctzll(w);
	}
	return nbits;
}

/* find_next_bit_wrap(): from bit `from`, then from the start up to it */
static u32 find_wrap(const u64 *a, const u64 *b, u32 nbits, u32 from)
{
	u32 bit = from < nbits ? find_next(a, b, false, nbits, from) : nbits;

	if (bit < nbits || from == 0)
		return bit;
	bit = find_next(a, b, false, from < nbits ? from : nbits, 0);
	return bit < from ? bit : nbits;
}

/* A bit's 32-bit word and mask: atomic updates work on halves (an i386 build has no plain
 * 64-bit atomics), the same bits of the little-endian 64-bit words. */
static u32 *half(u64 mask, u32 cpu, u32 *bit)
{
	*bit = (u32)1 << (cpu % 32);
	return (u32 *)(uintptr_t)mask + cpu / 32;
}

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static void *free_masks; /* (linked through their first word) */
static u32 live;	 /* masks made and not yet dropped, for the tests */

u32 cpumask_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

u64 bpf_cpumask_create_kfunc(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u8 *m;
	u32 one = 1;

	if (!layout())
		return 0;
	pthread_mutex_lock(&free_lock);
	m = free_masks;
	if (m)
		memcpy(&free_masks, m, sizeof(void *));
	pthread_mutex_unlock(&free_lock);
	if (!m && !(m = malloc(L.size)))
		return 0;
	__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	memset(m, 0, L.size);
	__atomic_store_n((u32 *)(m + L.usage), one, __ATOMIC_RELEASE);
	return (u64)(uintptr_t)m;
}

u64 bpf_cpumask_acquire_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	__atomic_fetch_add((u32 *)(uintptr_t)(mask + (u64)L.usage), 1, __ATOMIC_RELAXED);
	return mask;
}

u64 bpf_cpumask_release_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	void *m = (void *)(uintptr_t)mask;

	if (__atomic_sub_fetch((u32 *)(uintptr_t)(mask + (u64)L.usage), 1, __ATOMIC_ACQ_REL))
		return 0;
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&free_lock);
	memcpy(m, &free_masks, sizeof(void *));
	free_masks = m;
	pthread_mutex_unlock(&free_lock);
	return 0;
}

u64 bpf_cpumask_first_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);

	return find_next(m, NULL, false, L.small, 0);
}

u64 bpf_cpumask_first_zero_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);

	return find_next(m, NULL, true, L.small, 0);
}

u64 bpf_cpumask_first_and_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5)
{
	const u64 *x = W(a), *y = W(b);

	return find_next(x, y, false, L.small, 0);
}

/* set_cpu, clear_cpu, test_and_set_cpu, test_and_clear_cpu: a CPU past nr_cpu_ids is none */
static u64 change_cpu(u64 cpu, u64 mask, bool set)
{
	u32 bit, old, *w;

	if (!layout() || (u32)cpu >= L.nr_cpu_ids)
		return 0;
	w = half(mask, (u32)cpu, &bit);
	old = set ? __atomic_fetch_or(w, bit, __ATOMIC_RELAXED)
		  : __atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED);
	return (old & bit) != 0;
}

u64 bpf_cpumask_set_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5)
{
	change_cpu(cpu, mask, true);
	return 0;
}

u64 bpf_cpumask_clear_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5)
{
	change_cpu(cpu, mask, false);
	return 0;
}

u64 bpf_cpumask_test_and_set_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5)
{
	return change_cpu(cpu, mask, true);
}

u64 bpf_cpumask_test_and_clear_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5)
{
	return change_cpu(cpu, mask, false);
}

u64 bpf_cpumask_test_cpu_kfunc(u64 cpu, u64 mask, u64 a3, u64 a4, u64 a5)
{
	u32 bit;

	if (!layout() || (u32)cpu >= L.nr_cpu_ids)
		return 0;
	return (__atomic_load_n(half(mask, (u32)cpu, &bit), __ATOMIC_RELAXED) & bit) != 0;
}

/* cpumask_setall(): bitmap_fill() of nr_cpu_ids bits fills whole words (but a one-word mask:
 * the CPUs' bits only) */
u64 bpf_cpumask_setall_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u64 *w = W(mask);

	if (L.nr_cpus <= 64)
		w[0] = last_mask(L.nr_cpu_ids);
	else
		memset(w, 0xff, words(L.nr_cpu_ids) * 8);
	return 0;
}

u64 bpf_cpumask_clear_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u64 *w = W(mask);

	memset(w, 0, words(L.large) * 8);
	return 0;
}

/* cpumask_and(): the last word masked; whether any bit is left */
u64 bpf_cpumask_and_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5)
{
	u64 *d = W(dst), *x = W(a), *y = W(b), any = 0;

	for (u32 k = 0; k < words(L.small); k++) {
		u64 w = x[k] & y[k];

		if (k == words(L.small) - 1)
			w &= last_mask(L.small);
		d[k] = w;
		any |= w;
	}
	return any != 0;
}

/* cpumask_or(), cpumask_xor(): whole words */
u64 bpf_cpumask_or_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5)
{
	u64 *d = W(dst), *x = W(a), *y = W(b);

	for (u32 k = 0; k < words(L.small); k++)
		d[k] = x[k] | y[k];
	return 0;
}

u64 bpf_cpumask_xor_kfunc(u64 dst, u64 a, u64 b, u64 a4, u64 a5)
{
	u64 *d = W(dst), *x = W(a), *y = W(b);

	for (u32 k = 0; k < words(L.small); k++)
		d[k] = x[k] ^ y[k];
	return 0;
}

/* The bits of the first small_cpumask_bits of a op b, word k (the last one masked) */
enum relation { EQUAL, INTERSECTS, SUBSET };

static bool relation(u64 a, u64 b, enum relation r)
{
	const u64 *p = W(a), *q = W(b);

	for (u32 k = 0; k < words(L.small); k++) {
		u64 x = p[k], y = q[k];
		u64 w = r == EQUAL ? x ^ y : r == INTERSECTS ? x & y : x & ~y;

		if (k == words(L.small) - 1)
			w &= last_mask(L.small);
		if (w)
			return r == INTERSECTS;
	}
	return r != INTERSECTS;
}

u64 bpf_cpumask_equal_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5)
{
	return relation(a, b, EQUAL);
}

u64 bpf_cpumask_intersects_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5)
{
	return relation(a, b, INTERSECTS);
}

u64 bpf_cpumask_subset_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5)
{
	return relation(a, b, SUBSET);
}

u64 bpf_cpumask_empty_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);

	return find_next(m, NULL, false, L.small, 0) == L.small;
}

u64 bpf_cpumask_full_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);

	return find_next(m, NULL, true, L.nr_cpu_ids, 0) == L.nr_cpu_ids;
}

u64 bpf_cpumask_copy_kfunc(u64 dst, u64 src, u64 a3, u64 a4, u64 a5)
{
	u64 *d = W(dst), *s = W(src);

	memmove(d, s, words(L.large) * 8);
	return 0;
}

/* The kernel keeps the last CPU these chose per CPU; userbpf per thread.  The first choice
 * skips CPU 0, as the kernel's. */
static __thread u32 distribute_prev;

static u64 distribute(const u64 *a, const u64 *b)
{
	u32 next = find_wrap(a, b, L.nr_cpu_ids, distribute_prev + 1);

	if (next < L.nr_cpu_ids)
		distribute_prev = next;
	return next;
}

u64 bpf_cpumask_any_distribute_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);

	return distribute(m, NULL);
}

u64 bpf_cpumask_any_and_distribute_kfunc(u64 a, u64 b, u64 a3, u64 a4, u64 a5)
{
	const u64 *x = W(a), *y = W(b);

	return distribute(x, y);
}

u64 bpf_cpumask_weight_kfunc(u64 mask, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const u64 *m = W(mask);
	u32 n = 0;

	for (u32 k = 0; k < words(L.small); k++)
		n += (u32)__builtin_popcountll(m[k] & (k == words(L.small) - 1 ? last_mask(L.small)
										: ~(u64)0));
	return n;
}

/* bpf_cpumask_populate(mask, src, size): the first words' worth of nr_cpu_ids bits, whole,
 * from memory of at least that size (-EACCES else); x86 reads unaligned words well, so any
 * address does, as the kernel's CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS */
u64 bpf_cpumask_populate_kfunc(u64 mask, u64 src, u64 size, u64 a4, u64 a5)
{
	u64 *w = W(mask);

	if (size < words(L.nr_cpu_ids) * 8)
		return (u32)-EACCES; /* (an int: its upper half 0, as the kernel's leaves it) */
	memmove(w, (const void *)(uintptr_t)src, words(L.nr_cpu_ids) * 8);
	return 0;
}
