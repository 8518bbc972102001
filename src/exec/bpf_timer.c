/* Timers in map values (bpf_timer.h): the kernel's bpf_timer_*() of kernel/bpf/helpers.c; and
 * work items (struct bpf_wq, the kfuncs bpf_wq_*()), which are timers here: started, one is
 * armed to expire now (unless it waits to run already, as a queued work item is not queued
 * twice), and its callback runs as a timer's does.  (The kernel runs it on a worker, in a
 * sleepable context: the callback's thread here may sleep too, delaying the timers behind it.)
 * Task work (struct bpf_task_work, the kfuncs bpf_task_work_schedule_*()) is kept so too, but
 * work for the thread that scheduled it waits on tw_pending and runs in that thread as its
 * bpf() returns (task_work_run_current()), as the kernel runs a task's work in the task.
 *
 * State: the first word of a value's struct bpf_timer points at the timer (struct utimer), or
 * is 0 before bpf_timer_init() and after the timer is freed.  Every timer operation takes one
 * mutex (the kernel takes a per-timer spin lock); bpf() copies values around the word and reads
 * it as 0 (map.h).
 *
 * Expiry: one thread, started with the first timer, sleeps until the earliest deadline (a heap
 * of armed timers, on CLOCK_MONOTONIC) and runs expired timers' callbacks one at a time, each in
 * a read section of its own, as the kernel runs them in softirq context.  A callback may re-arm
 * its own timer and use any other; cancelling its own is -EDEADLK, as in the kernel.
 *
 * References: a timer with a callback holds its program (the callback is the program's code).
 * Dropping one may destroy the program, which must not happen inside a read section (where
 * programs and bpf() map commands run) nor under the mutex: a timer freed or a program
 * replaced is handed to the thread, which frees and puts between callbacks.  A timer's map is
 * not held: the map frees its timers when its last fd or pin goes (release_uref), and
 * bpf_timer_init() refuses a map without one (-EPERM), as the kernel does, so that a program and
 * its map's timers cannot keep each other alive.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "exec/bpf_timer.h"
#include "exec/callback.h"
#include "exec/current_task.h"
#include "fd.h"
#include "map/map.h"
#include "prog/prog.h"
#include "prog/run.h"
#include "rcu.h"

#define BPF_F_TIMER_ABS_ (1ull << 0)	 /* nsecs is a time on the timer's clock */
#define BPF_F_TIMER_CPU_PIN_ (1ull << 1) /* (one thread runs every callback here) */

struct utimer {
	struct bpf_map *map;
	u8 *value;			/* the element holding the timer */
	struct bpf_prog *prog;		/* a reference, while a callback is set */
	const struct exec_callback *cb;
	clockid_t clock;
	u64 deadline;			/* CLOCK_MONOTONIC ns, while armed */
	u32 heap_pos;			/* index + 1 in the heap while armed, else 0 */
	struct utimer *next_dead;
	/* task work: scheduled once at a time (armed, pending or running), its callback and
	 * program dropped after the run, as the kernel's context is reset */
	bool task_work;
	bool pending;			/* on tw_pending, for its thread tid to run */
	bool running_here;		/* its thread runs the callback now */
	bool freed;			/* freed meanwhile: that thread hands it to dead */
	int tid;
	struct utimer *next_pending;
};

static pthread_mutex_t tlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t twake;	/* the thread: a new earliest deadline, or work to reap */
static pthread_cond_t tidle;	/* a callback ended */
static pthread_t runner;
static bool runner_started;
static struct utimer **heap;	/* armed timers, earliest deadline first */
static u32 heap_len, heap_cap;
static struct utimer *running;	/* whose callback runs now */
static struct utimer *dead;	/* freed timers, for the thread to free */
static struct bpf_prog **to_put; /* program references dropped, for the thread to put */
static u32 nr_to_put, cap_to_put;
static struct utimer *tw_pending; /* task work for a thread that called bpf(): run at its end */
static u32 nr_tw_pending;	/* (read without tlock: nothing to do when 0) */
/* A timer this thread freed while its callback ran, for bpf_timer_sync() to wait for. */
static __thread const struct utimer *wait_for;

static u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

/* ---- the heap (tlock held) ---- */

static void heap_set(u32 i, struct utimer *t)
{
	heap[i] = t;
	t->heap_pos = i + 1;
}

static void heap_up(u32 i)
{
	struct utimer *t = heap[i];

	while (i && heap[(i - 1) / 2]->deadline > t->deadline) {
		heap_set(i, heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(i, t);
}

static void heap_down(u32 i)
{
	struct utimer *t = heap[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= heap_len)
			break;
		if (c + 1 < heap_len && heap[c + 1]->deadline < heap[c]->deadline)
			c++;
		if (heap[c]->deadline >= t->deadline)
			break;
		heap_set(i, heap[c]);
		i = c;
	}
	heap_set(i, t);
}

static void heap_remove(struct utimer *t)
{
	u32 i = t->heap_pos - 1;
	struct utimer *last;

	t->heap_pos = 0;
	if (--heap_len == i)
		return;
	last = heap[heap_len]; /* into the hole, then to its place */
	heap_set(i, last);
	heap_down(i);
	heap_up(last->heap_pos - 1);
}

static int heap_add(struct utimer *t)
{
	if (heap_len == heap_cap) {
		u32 cap = heap_cap ? 2 * heap_cap : 64;
		struct utimer **h = realloc(heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		heap = h;
		heap_cap = cap;
	}
	heap_set(heap_len, t);
	heap_up(heap_len++);
	return 0;
}

/* ---- references (tlock held) ---- */

/* Hands a program reference to the thread (which exists: a timer made the reference). */
static void put_later(struct bpf_prog *prog)
{
	if (nr_to_put == cap_to_put) {
		u32 cap = cap_to_put ? 2 * cap_to_put : 16;
		struct bpf_prog **p = realloc(to_put, cap * sizeof(*p));

		if (!p)
			return; /* (out of memory: the program is leaked rather than put here) */
		to_put = p;
		cap_to_put = cap;
	}
	to_put[nr_to_put++] = prog;
	pthread_cond_signal(&twake);
}

static void drop_callback(struct utimer *t)
{
	if (t->prog)
		put_later(t->prog);
	t->prog = NULL;
	t->cb = NULL;
}

/* Takes t off tw_pending (tlock held). */
static void pending_remove(struct utimer *t)
{
	for (struct utimer **pp = &tw_pending; *pp; pp = &(*pp)->next_pending)
		if (*pp == t) {
			*pp = t->next_pending;
			t->pending = false;
			__atomic_store_n(&nr_tw_pending, nr_tw_pending - 1, __ATOMIC_RELAXED);
			return;
		}
}

/* Frees what was handed over: called by the thread, outside any read section, tlock held
 * (dropped meanwhile). */
static void reap(void)
{
	while (dead || nr_to_put) {
		struct utimer *d = dead;
		struct bpf_prog *prog = nr_to_put ? to_put[--nr_to_put] : NULL;

		dead = NULL;
		pthread_mutex_unlock(&tlock);
		if (prog)
			obj_put(&prog->obj);
		while (d) {
			struct utimer *next = d->next_dead;

			if (d->prog)
				obj_put(&d->prog->obj);
			free(d);
			d = next;
		}
		pthread_mutex_lock(&tlock);
	}
}

/* ---- the thread ---- */

/* The callback's key argument: a hash element's key is right before its value (padded to 8
 * bytes), an array's is the index, which needs a home (*idx). */
static void *key_of(const struct utimer *t, u32 *idx)
{
	u32 elem_size;
	u8 *base;

	if (t->map->map_type != BPF_MAP_TYPE_ARRAY)
		return t->value - ((t->map->key_size + 7) & ~7u);
	base = t->map->ops->array_base(t->map, &elem_size);
	*idx = (u32)((size_t)(t->value - base) / elem_size);
	return idx;
}

static void *runner_main(void *arg)
{
	pthread_mutex_lock(&tlock);
	for (;;) {
		const struct exec_callback *cb;
		struct utimer *t;
		void *key, *value;
		struct bpf_map *map;
		u32 idx;
		u64 now;

		reap();
		if (!heap_len) {
			pthread_cond_wait(&twake, &tlock);
			continue;
		}
		t = heap[0];
		now = clock_ns(CLOCK_MONOTONIC);
		if (t->deadline > now) {
			struct timespec ts = { (time_t)(t->deadline / 1000000000ull),
					       (long)(t->deadline % 1000000000ull) };

			pthread_cond_timedwait(&twake, &tlock, &ts);
			continue;
		}
		heap_remove(t);
		if (!t->cb) /* (armed timers have one) */
			continue;
		running = t;
		cb = t->cb;
		map = t->map;
		value = t->value;
		key = key_of(t, &idx);
		pthread_mutex_unlock(&tlock);
		rcu_read_lock();
		prog_run_reset_tail_calls();
		exec_callback_call((u64)(uintptr_t)cb, (u64)(uintptr_t)map, (u64)(uintptr_t)key,
				   (u64)(uintptr_t)value, 0, 0); /* (r0 is 0: the verifier says) */
		rcu_read_unlock();
		task_work_run_current(); /* (what a callback scheduled for this thread) */
		pthread_mutex_lock(&tlock);
		if (t->task_work) /* (ran: it may be scheduled again) */
			drop_callback(t);
		running = NULL;
		pthread_cond_broadcast(&tidle);
	}
	return arg;
}

/* fork(): the child gets a copy of the timers but not the thread.  tlock is held across the
 * fork, so the copy is consistent; in the child nothing runs, so no callback is running, and
 * the thread starts again with the child's next timer operation (its copies of armed timers
 * then fire in it, as its copies of the maps are its own). */
static void fork_prepare(void)
{
	pthread_mutex_lock(&tlock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&tlock);
}

static void fork_child(void)
{
	runner_started = false;
	running = NULL;
	pthread_mutex_unlock(&tlock);
}

/* Starts the thread with the first timer, and again in a forked child (tlock held). */
static int runner_start(void)
{
	static bool atfork_done;
	pthread_condattr_t ca;
	pthread_attr_t pa;
	int err;

	if (runner_started)
		return 0;
	if (!atfork_done) {
		if (pthread_atfork(fork_prepare, fork_parent, fork_child))
			return -ENOMEM;
		atfork_done = true;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&twake, &ca);
	pthread_cond_init(&tidle, NULL);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&runner, &pa, runner_main, NULL);
	pthread_attr_destroy(&pa);
	if (err)
		return -ENOMEM;
	runner_started = true;
	return 0;
}

static bool on_runner(void)
{
	return runner_started && pthread_equal(pthread_self(), runner);
}

/* ---- helpers ---- */

static struct utimer **timer_word(u64 timer)
{
	return (struct utimer **)(uintptr_t)timer;
}

static bool map_has_users(const struct bpf_map *map)
{
	return __atomic_load_n(&map->obj.ucnt, __ATOMIC_ACQUIRE) != 0;
}

/* Arms t (re-arms it if it was) to expire at deadline, CLOCK_MONOTONIC ns (tlock held). */
static int timer_arm(struct utimer *t, u64 deadline)
{
	int err;

	if (t->heap_pos)
		heap_remove(t);
	t->deadline = deadline;
	err = heap_add(t);
	if (!err && t->heap_pos == 1) /* a new earliest deadline */
		pthread_cond_signal(&twake);
	return err;
}

/* A timer at word timer of a value of map, on clock (-1: a work item); -EBUSY if it was made
 * already, -EPERM if the map has no fd or pin left. */
static u64 timer_make(u64 timer, u64 map_addr, clockid_t clock)
{
	struct bpf_map *map = (struct bpf_map *)(uintptr_t)map_addr;
	struct utimer **word = timer_word(timer), *t;
	int err = 0;

	pthread_mutex_lock(&tlock);
	if (__atomic_load_n(word, __ATOMIC_RELAXED)) {
		err = -EBUSY;
	} else if (!map_has_users(map)) {
		err = -EPERM;
	} else if (!(t = calloc(1, sizeof(*t))) || runner_start()) {
		free(t);
		err = -ENOMEM;
	} else {
		t->map = map;
		t->value = (u8 *)word - (clock < 0 ? map->wq_off : map->timer_off);
		t->clock = clock;
		__atomic_store_n(word, t, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)err;
}

/* bpf_timer_init(timer, map, flags): flags is the clock (CLOCK_MONOTONIC, CLOCK_REALTIME or
 * CLOCK_BOOTTIME); -EBUSY if the timer was made already, -EPERM if the map has no fd or pin
 * left. */
u64 bpf_timer_init_helper(u64 timer, u64 map_addr, u64 flags, u64 a4, u64 a5)
{
	clockid_t clock = (clockid_t)(flags & 15);

	if (flags >= 16 ||
	    (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_BOOTTIME))
		return (u64)-EINVAL;
	return timer_make(timer, map_addr, clock);
}

/* bpf_wq_init(wq, map, flags): flags must be 0; then as bpf_timer_init() (map is the item's
 * own: the verifier says). */
u64 bpf_wq_init_kfunc(u64 wq, u64 map_addr, u64 flags, u64 a4, u64 a5)
{
	if ((u32)flags)
		return (u64)-EINVAL;
	return timer_make(wq, map_addr, -1);
}

/* bpf_wq_set_callback_impl(wq, callback, flags, aux): flags must be 0; then as
 * bpf_timer_set_callback() (the program is the callback's own: aux is not needed). */
u64 bpf_wq_set_callback_kfunc(u64 wq, u64 callback, u64 flags, u64 aux, u64 a5)
{
	if ((u32)flags)
		return (u64)-EINVAL;
	return bpf_timer_set_callback_helper(wq, callback, 0, 0, 0);
}

/* bpf_wq_start(wq, flags): flags must be 0, and the item made with a callback (-EINVAL); its
 * callback runs as soon as the thread gets to it, once however often it is started before. */
u64 bpf_wq_start_kfunc(u64 wq, u64 flags, u64 a3, u64 a4, u64 a5)
{
	struct utimer *t;
	int err = 0;

	if ((u32)flags)
		return (u64)-EINVAL;
	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(timer_word(wq), __ATOMIC_RELAXED);
	if (!t || !t->prog) {
		err = -EINVAL;
	} else if (runner_start()) { /* (after a fork) */
		err = -ENOMEM;
	} else if (!t->heap_pos) {
		err = timer_arm(t, clock_ns(CLOCK_MONOTONIC));
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)err;
}
/* bpf_timer_set_callback(timer, callback): the callback, and a reference on its program
 * (taken once per program, whichever callback of it). */
u64 bpf_timer_set_callback_helper(u64 timer, u64 callback, u64 a3, u64 a4, u64 a5)
{
	const struct exec_callback *cb = (const struct exec_callback *)(uintptr_t)callback;
	struct bpf_prog *prog = cb->owner;
	struct utimer *t;
	int err = 0;

	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(timer_word(timer), __ATOMIC_RELAXED);
	if (!t || !prog) {
		err = -EINVAL;
	} else if (!map_has_users(t->map)) {
		err = -EPERM;
	} else if (prog != t->prog && !obj_tryget(&prog->obj)) {
		err = -ENOENT;
	} else {
		if (prog != t->prog) {
			if (t->prog)
				put_later(t->prog);
			t->prog = prog;
		}
		t->cb = cb;
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)err;
}

/* bpf_timer_start(timer, nsecs, flags): arms the timer nsecs from now (or at nsecs on its
 * clock, BPF_F_TIMER_ABS), re-arming it if it was; -EINVAL without a callback. */
u64 bpf_timer_start_helper(u64 timer, u64 nsecs, u64 flags, u64 a4, u64 a5)
{
	struct utimer *t;
	int err = 0;

	if (flags & ~(BPF_F_TIMER_ABS_ | BPF_F_TIMER_CPU_PIN_))
		return (u64)-EINVAL;
	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(timer_word(timer), __ATOMIC_RELAXED);
	if (!t || !t->prog) {
		err = -EINVAL;
	} else if (runner_start()) { /* (after a fork) */
		err = -ENOMEM;
	} else {
		u64 now = clock_ns(CLOCK_MONOTONIC), delta = nsecs;

		if (flags & BPF_F_TIMER_ABS_) {
			u64 on_clock = clock_ns(t->clock);

			delta = (s64)(nsecs - on_clock) > 0 ? nsecs - on_clock : 0;
		}
		err = timer_arm(t, now + delta < now ? UINT64_MAX : now + delta);
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)err;
}

/* bpf_timer_cancel(timer): disarms it and drops its callback, waiting for a callback of it
 * that runs now; 1 if it was armed, 0 if not, -EDEADLK from its own callback. */
u64 bpf_timer_cancel_helper(u64 timer, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct utimer *t;
	int ret;

	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(timer_word(timer), __ATOMIC_RELAXED);
	if (!t) {
		ret = -EINVAL;
	} else if (running == t && on_runner()) {
		ret = -EDEADLK;
	} else {
		drop_callback(t);
		/* (the callback cannot re-arm it now: no callback is set) */
		while (running == t)
			pthread_cond_wait(&tidle, &tlock);
		ret = t->heap_pos != 0;
		if (ret)
			heap_remove(t);
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)ret;
}

/* ---- the map side ---- */

static void map_release_timers(struct bpf_object *obj)
{
	struct bpf_map *map = map_of(obj);

	map->ops->free_timers(map);
}

void bpf_timer_map_init(struct bpf_map *map)
{
	map->obj.release_uref = map_release_timers;
}

/* Frees the timer (or work item) whose word is at word. */
static void timer_word_free(struct utimer **word)
{
	struct utimer *t;

	if (!__atomic_load_n(word, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(word, __ATOMIC_RELAXED);
	if (t) {
		__atomic_store_n(word, NULL, __ATOMIC_RELAXED);
		if (t->heap_pos)
			heap_remove(t);
		if (t->pending) /* (task work not run yet: it never will) */
			pending_remove(t);
		if (t->running_here) { /* (its thread runs it: the thread frees it after) */
			t->freed = true;
			pthread_mutex_unlock(&tlock);
			return;
		}
		/* (a callback running now finishes first: the thread reaps between callbacks; the
		 * freeing map operation waits for it once it holds no lock, bpf_timer_sync()) */
		if (running == t && !on_runner() && !t->task_work) /* (task work: none, as in
									    * the kernel) */
			wait_for = t;
		t->next_dead = dead;
		dead = t;
		pthread_cond_signal(&twake);
	}
	pthread_mutex_unlock(&tlock);
}

void bpf_timer_free(struct bpf_map *map, void *value)
{
	if (map->timer_off >= 0)
		timer_word_free((struct utimer **)((u8 *)value + map->timer_off));
	if (map->wq_off >= 0)
		timer_word_free((struct utimer **)((u8 *)value + map->wq_off));
	if (map->task_work_off >= 0)
		timer_word_free((struct utimer **)((u8 *)value + map->task_work_off));
}

void bpf_timer_sync(void)
{
	if (!wait_for)
		return;
	pthread_mutex_lock(&tlock);
	while (running == wait_for)
		pthread_cond_wait(&tidle, &tlock);
	pthread_mutex_unlock(&tlock);
	wait_for = NULL;
}

void bpf_timer_map_free(struct bpf_map *map)
{
	map->ops->free_timers(map);
	pthread_mutex_lock(&tlock);
	while (running && running->map == map && !on_runner())
		pthread_cond_wait(&tidle, &tlock);
	pthread_mutex_unlock(&tlock);
}

/* ---- task work ---- */

/* bpf_task_work_schedule_signal_impl() and _resume_impl() (task, tw, map, callback, aux): the
 * callback, run once for the element, in the task's thread when that is the calling one (when
 * its bpf() returns, as the kernel runs task work when the task returns to user space), on the
 * timers' thread at once otherwise (userbpf cannot run code in another thread); -EBUSY while
 * it is scheduled or running, or when the map has no fd or pin left. */
static u64 task_work_schedule(u64 task, u64 tw, u64 map_addr, u64 callback)
{
	struct bpf_map *map = (struct bpf_map *)(uintptr_t)map_addr;
	const struct exec_callback *cb = (const struct exec_callback *)(uintptr_t)callback;
	struct bpf_prog *prog = cb->owner;
	struct utimer **word = timer_word(tw), *t;
	u32 tid;
	int err = 0;

	if (current_task_pid(task, &tid))
		return (u64)-EBADF; /* (a task that is gone: the kernel cannot acquire it) */
	pthread_mutex_lock(&tlock);
	t = __atomic_load_n(word, __ATOMIC_RELAXED);
	if (!map_has_users(map)) {
		err = -EBUSY;
	} else if (runner_start()) {
		err = -ENOMEM;
	} else if (!t && !(t = calloc(1, sizeof(*t)))) {
		err = -ENOMEM;
	} else {
		if (!t->map) {
			t->map = map;
			t->value = (u8 *)word - map->task_work_off;
			t->task_work = true;
			__atomic_store_n(word, t, __ATOMIC_RELAXED);
		}
		if (t->heap_pos || t->pending || t->running_here || running == t)
			err = -EBUSY;
		else if (!prog || !obj_tryget(&prog->obj))
			err = -EBADF;
	}
	if (!err) {
		t->prog = prog;
		t->cb = cb;
		if ((pid_t)tid == gettid()) {
			t->tid = (int)tid;
			t->pending = true;
			t->next_pending = tw_pending;
			tw_pending = t;
			__atomic_store_n(&nr_tw_pending, nr_tw_pending + 1, __ATOMIC_RELAXED);
		} else {
			err = timer_arm(t, clock_ns(CLOCK_MONOTONIC));
			if (err)
				drop_callback(t);
		}
	}
	pthread_mutex_unlock(&tlock);
	return (u64)(s64)err;
}

u64 bpf_task_work_schedule_kfunc(u64 task, u64 tw, u64 map, u64 callback, u64 aux)
{
	return task_work_schedule(task, tw, map, callback);
}

void task_work_run_current(void)
{
	int me;

	if (!__atomic_load_n(&nr_tw_pending, __ATOMIC_RELAXED))
		return;
	me = gettid();
	pthread_mutex_lock(&tlock);
	for (;;) {
		struct utimer *t = tw_pending;
		const struct exec_callback *cb;
		void *key;
		u32 idx;

		while (t && t->tid != me)
			t = t->next_pending;
		if (!t)
			break;
		pending_remove(t);
		t->running_here = true;
		cb = t->cb;
		key = key_of(t, &idx);
		pthread_mutex_unlock(&tlock);
		rcu_read_lock();
		prog_run_reset_tail_calls();
		exec_callback_call((u64)(uintptr_t)cb, (u64)(uintptr_t)t->map, (u64)(uintptr_t)key,
				   (u64)(uintptr_t)t->value, 0, 0);
		rcu_read_unlock();
		pthread_mutex_lock(&tlock);
		t->running_here = false;
		drop_callback(t);
		if (t->freed) { /* (the element went meanwhile: this thread hands it on) */
			t->next_dead = dead;
			dead = t;
			pthread_cond_signal(&twake);
		}
	}
	pthread_mutex_unlock(&tlock);
}
