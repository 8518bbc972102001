/* Epoch-based reclamation (see rcu.h).  Thread slots live on a push-only list; a thread's slot is
 * marked free by a pthread key destructor when the thread exits and reused by the next thread. */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rcu.h"

u64 rcu_epoch = 1;
bool rcu_multi_thread;
__thread struct rcu_slot *rcu_my_slot __attribute__((tls_model("initial-exec")));
bool rcu_use_membarrier;

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* Decided once, before any thread can be in a read section: a reader's fence choice must not
 * change under a writer.  Registration is what makes PRIVATE_EXPEDITED usable. */
__attribute__((constructor)) static void rcu_init(void)
{
	long cmds = membarrier(MEMBARRIER_CMD_QUERY);

	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		rcu_use_membarrier = true;
}
static struct rcu_slot *slots_head;
static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

static void slot_release(void *p)
{
	struct rcu_slot *s = p;

	__atomic_store_n(&s->epoch, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->in_use, 0, __ATOMIC_RELEASE);
}

static void slot_key_init(void)
{
	pthread_key_create(&slot_key, slot_release);
}

/* Called by a thread that has just taken slot mine: if another thread is registered, no thread
 * may skip locks any more (rcu.h); waits for the windows still open.  The fence orders taking
 * our slot before looking at the others', so of two threads registering at once at least one
 * sees the other.  A window's store of `skipping` and load of the flag are ordered by the
 * membarrier(): a window that began before it is seen open here; one after it sees the flag. */
static void end_lock_skipping(struct rcu_slot *mine)
{
	bool other = false;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rcu_multi_thread, __ATOMIC_RELAXED))
		return;
	for (struct rcu_slot *o = __atomic_load_n(&slots_head, __ATOMIC_ACQUIRE); o; o = o->next)
		other |= o != mine && __atomic_load_n(&o->in_use, __ATOMIC_ACQUIRE);
	if (!other)
		return;
	__atomic_store_n(&rcu_multi_thread, true, __ATOMIC_SEQ_CST);
	if (!rcu_use_membarrier || membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (struct rcu_slot *o = __atomic_load_n(&slots_head, __ATOMIC_ACQUIRE); o; o = o->next)
		while (__atomic_load_n(&o->skipping, __ATOMIC_ACQUIRE))
			sched_yield();
}

struct rcu_slot *rcu_register_thread(void)
{
	struct rcu_slot *s;

	pthread_once(&slot_key_once, slot_key_init);
	for (s = __atomic_load_n(&slots_head, __ATOMIC_ACQUIRE); s; s = s->next) {
		int free_slot = 0;

		if (__atomic_compare_exchange_n(&s->in_use, &free_slot, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			goto found;
	}
	/* Slots are never freed: a reader may still be scanning the list. */
	s = aligned_alloc(64, sizeof(*s));
	if (!s)
		abort(); /* 64 bytes once per thread; nothing sensible to return from a read lock */
	s->epoch = 0;
	s->skipping = 0;
	s->in_use = 1;
	s->next = __atomic_load_n(&slots_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&slots_head, &s->next, s, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
found:
	rcu_my_slot = s;
	pthread_setspecific(slot_key, s);
	end_lock_skipping(s);
	return s;
}

void synchronize_rcu(void)
{
	u64 target = __atomic_add_fetch(&rcu_epoch, 1, __ATOMIC_SEQ_CST);

	/* Pairs with the barrier in rcu_read_lock(): a reader either sees the unpublished pointer
	 * gone, or we see its slot's epoch and wait for it. */
	if (!rcu_use_membarrier || membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);

	for (struct rcu_slot *s = __atomic_load_n(&slots_head, __ATOMIC_ACQUIRE); s; s = s->next) {
		for (;;) {
			u64 e = __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE);

			if (e == 0 || e >= target)
				break;
			sched_yield();
		}
	}
}
