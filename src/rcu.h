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
	struct rcu_slot *next;	/* registry list; slots are never freed, only reused */
} __attribute__((aligned(64))); /* one cache line each: readers never share a line */

extern u64 rcu_epoch;
/* initial-exec: a plain %fs-relative load, no __tls_get_addr call, also in libuserbpf.so */
extern __thread struct rcu_slot *rcu_my_slot __attribute__((tls_model("initial-exec")));
/* membarrier() is available: synchronize_rcu() makes every running thread execute a barrier,
 * so readers need only a compiler barrier (liburcu's "memb" flavour). */
extern bool rcu_use_membarrier;

struct rcu_slot *rcu_register_thread(void);

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
