/* value_ranges.c — where map values live, so that a read that must not fault (the string
 * kfuncs') can copy straight from them instead of through process_vm_readv(), a system call.
 * Array maps register their values (global data among them: a program's string literals are
 * in .rodata), preallocated hash maps their elements' area.
 *
 * Readers are running programs, inside their RCU read section (src/rcu.h): they load the
 * published set and search it, without a lock.  Writers (a map made or freed) take a mutex and
 * publish a new sorted copy; a range leaves the set, and a grace period passes, before its
 * memory is freed, so a reader that found it can still read there.  Replaced copies wait in a
 * list until that next grace period.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "map/value_ranges.h"
#include "rcu.h"

struct range_set {
	u32 n;
	u64 gen; /* unique to this copy: a per-thread hit is valid while its copy is published */
	struct range_set *retired_next;
	struct {
		uintptr_t lo, hi;
	} r[];
};

static struct range_set *published;
static struct range_set *retired;
static u64 next_gen = 1; /* (under ranges_lock) */

/* This thread's last hit, [lo, hi) of the copy numbered gen: a string read in a loop, or two
 * strings of one map, then cost no search (whose branches mispredict). */
static __thread struct {
	u64 gen;
	uintptr_t lo, hi;
} last_hit __attribute__((tls_model("initial-exec")));
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

/* A copy of the published set, room for one more; NULL without memory. */
static struct range_set *copy_set(void)
{
	const struct range_set *old = published;
	u32 n = old ? old->n : 0;
	struct range_set *s = malloc(sizeof(*s) + (n + 1) * sizeof(s->r[0]));

	if (!s)
		return NULL;
	s->n = n;
	s->gen = next_gen++;
	s->retired_next = NULL;
	if (n)
		memcpy(s->r, old->r, n * sizeof(s->r[0]));
	return s;
}

static void publish(struct range_set *s)
{
	struct range_set *old = published;

	__atomic_store_n(&published, s, __ATOMIC_RELEASE);
	if (old) {
		old->retired_next = retired;
		retired = old;
	}
}

int value_ranges_add(uintptr_t lo, size_t len)
{
	struct range_set *s;
	u32 i;

	if (!len)
		return 0;
	pthread_mutex_lock(&ranges_lock);
	s = copy_set();
	if (!s) {
		pthread_mutex_unlock(&ranges_lock);
		return -ENOMEM;
	}
	for (i = s->n; i > 0 && s->r[i - 1].lo > lo; i--)
		s->r[i] = s->r[i - 1];
	s->r[i].lo = lo;
	s->r[i].hi = lo + len;
	s->n++;
	publish(s);
	pthread_mutex_unlock(&ranges_lock);
	return 0;
}

void value_ranges_del(uintptr_t lo)
{
	struct range_set *s, *old;
	u32 j = 0;

	pthread_mutex_lock(&ranges_lock);
	s = copy_set();
	if (s) {
		for (u32 i = 0; i < s->n; i++)
			if (s->r[i].lo != lo)
				s->r[j++] = s->r[i];
		s->n = j;
		publish(s);
	} else if (published) {
		/* (no memory for a copy: nothing is found any more, every read takes the
		 * system call) */
		publish(NULL);
	}
	synchronize_rcu();
	old = retired;
	retired = NULL;
	pthread_mutex_unlock(&ranges_lock);
	while (old) {
		struct range_set *next = old->retired_next;

		free(old);
		old = next;
	}
}

uintptr_t value_ranges_end(uintptr_t a)
{
	const struct range_set *s = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
	u32 lo = 0, hi = s ? s->n : 0;

	if (s && last_hit.gen == s->gen && a >= last_hit.lo && a < last_hit.hi)
		return last_hit.hi;

	/* the last range that starts at or below a */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (s->r[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a >= s->r[lo - 1].hi)
		return 0;
	last_hit.gen = s->gen;
	last_hit.lo = s->r[lo - 1].lo;
	last_hit.hi = s->r[lo - 1].hi;
	return last_hit.hi;
}
