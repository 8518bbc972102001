/* Epoch-based reclamation: how a thread inside bpf() can use an object without a lock or a
 * reference count, while another thread may close it.
 *
 * A reader brackets its use with rcu_read_lock()/rcu_read_unlock(): it publishes the global epoch
 * in a per-thread slot (one store and a fence, on its own cache line).  A writer that unpublished
 * an object calls synchronize_rcu(): it advances the epoch and waits until no thread is still
 * inside a section that began in an older epoch; then nobody can hold the old pointer.
 * Read sections must not nest, block, or call synchronize_rcu().
 */
#ifndef USERBPF_RCU_H
#define USERBPF_RCU_H

#include "util.h"

struct rcu_slot {
	u64 epoch;		/* 0: outside a read section; else the epoch it entered in */
	int in_use;		/* owned by a live thread */
	int skipping;		/* inside rcu_skip_begin() .. rcu_skip_end() */
	struct rcu_slot *next;	/* registry list; slots are never freed, only reused */
} __attribute__((aligned(64))); /* one cache line each: readers never share a line */

extern u64 rcu_epoch HIDDEN_DATA;
/* initial-exec: a plain %fs-relative load, no __tls_get_addr call, also in libuserbpf.so */
extern __thread struct rcu_slot *rcu_my_slot __attribute__((tls_model("initial-exec")));
/* membarrier() is available: synchronize_rcu() makes every running thread execute a barrier,
 * so readers need only a compiler barrier (liburcu's "memb" flavour). */
extern bool rcu_use_membarrier HIDDEN_DATA;

struct rcu_slot *rcu_register_thread(void);

/* Lock elision while one thread uses userbpf (glibc's SINGLE_THREAD_P, for userbpf's threads).
 *
 * rcu_multi_thread is set, for good, when a second thread registers.  Until then the one thread
 * may skip a lock in a short window, rcu_skip_begin() .. rcu_skip_end(), that takes nothing and
 * does not block.  A thread that registers sets the flag, issues the membarrier() that makes the
 * windows' own ordering a compiler barrier, and waits for any window still open; every thread
 * that takes such a lock must therefore be registered first (rcu_thread_slot()).  Without
 * membarrier() there is no skipping: the window would need a full fence, as dear as the lock. */
extern bool rcu_multi_thread HIDDEN_DATA;

/* The calling thread's slot, registering the thread first if needed. */
static inline struct rcu_slot *rcu_thread_slot(void)
{
	struct rcu_slot *s = rcu_my_slot;

	return likely(s) ? s : rcu_register_thread();
}

/* Opens a window if the caller (slot s) is the only registered thread; else returns false and
 * the caller takes the lock. */
static inline bool rcu_skip_begin(struct rcu_slot *s)
{
	if (unlikely(!rcu_use_membarrier))
		return false;
	__atomic_store_n(&s->skipping, 1, __ATOMIC_RELAXED);
	/* Store, then load: a registering thread's membarrier() orders them for us (see
	 * rcu_register_thread()). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (likely(!__atomic_load_n(&rcu_multi_thread, __ATOMIC_RELAXED)))
		return true;
	__atomic_store_n(&s->skipping, 0, __ATOMIC_RELAXED);
	return false;
}

static inline void rcu_skip_end(struct rcu_slot *s)
{
	__atomic_store_n(&s->skipping, 0, __ATOMIC_RELEASE);
}

static inline void rcu_read_lock(void)
{
	struct rcu_slot *s = rcu_my_slot;

	if (unlikely(!s))
		s = rcu_register_thread();
	/* Acquire: seeing a newer epoch implies seeing what was unpublished before it began. */
	__atomic_store_n(&s->epoch, __atomic_load_n(&rcu_epoch, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
	/* Order the publication before every load of shared pointers in the section: for free
	 * when the writer side issues membarrier(), else with a full fence. */
	if (likely(rcu_use_membarrier))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void rcu_read_unlock(void)
{
	__atomic_store_n(&rcu_my_slot->epoch, 0, __ATOMIC_RELEASE);
}

void synchronize_rcu(void);

#endif
