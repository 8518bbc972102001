/* Task work (6.18: bpf_task_work_schedule_signal_impl(), _resume_impl()) at run time,
 * differentially: the corpus program syscall_task_work, loaded by the ELF loader on both sides,
 * schedules one work per test run, and the same runs must give the same results and leave the
 * same elements: work for the calling thread has run, in that thread, when bpf() returns (the
 * kernel runs it as the thread returns to user space), in either mode, once per schedule; a
 * second schedule while one waits is -EBUSY; an array element's callback gets its index as the
 * key.  Work for another thread runs too, with its key (in the kernel in that thread; in userbpf
 * on its timers' thread, which cannot run code in another: there the callback's current thread
 * differs).  Skipped where the kernel's bpf() is unavailable.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kbpf.h"
#include "loader_sides.h"
#include "test.h"

struct elem {
	uint64_t fired, pid_tgid, tw;
	int64_t ret[4];
	uint64_t key;
};

struct tw_op {
	uint32_t op, key;
	int32_t pid;
};

enum { TW_SIGNAL, TW_RESUME, TW_TWICE, TW_ARRAY };

struct tw_sides {
	struct obj_sides os;
	int map[NSIDES], array[NSIDES];
};

static bool open_sides(struct tw_sides *ts)
{
	return obj_sides_open(&ts->os, LOADER_OBJ_DIR "/tests/corpus/syscall_task_work.bpf.o") &&
	       obj_sides_maps(&ts->os, "works", ts->map) &&
	       obj_sides_maps(&ts->os, "work_array", ts->array);
}

static struct elem get(int s, int map, uint32_t key)
{
	struct elem e;

	memset(&e, 0xee, sizeof(e));
	if (side_elem(s, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc)
		memset(&e, 0xdd, sizeof(e));
	return e;
}

/* One schedule on both sides: the runs and their return values agree. */
static void op(struct tw_sides *ts, uint32_t what, uint32_t key, int32_t tid)
{
	struct tw_op o = { what, key, tid };
	struct bpf_result r[NSIDES];
	uint32_t ret[NSIDES];
	char name[48];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run_ctx(s, ts->os.prog[s], NULL, 0, 0, &o, sizeof(o), NULL, 0,
					 &ret[s]);
	snprintf(name, sizeof(name), "task work op %u on key %u", what, key);
	CHECK_EQ(r[K].rc, 0);
	if (AGREE(name, r) && !r[K].rc)
		CHECK_EQ(ret[U], ret[K]);
}

/* The element of key of both sides, the same (but the callback's thread where not same_thread:
 * then only the process is compared). */
static void elems_agree(int map[NSIDES], uint32_t key, bool same_thread)
{
	struct elem k = get(K, map[K], key), u = get(U, map[U], key);

	if (!same_thread) {
		CHECK_EQ(u.pid_tgid >> 32, k.pid_tgid >> 32);
		k.pid_tgid = u.pid_tgid;
	}
	if (memcmp(&k, &u, sizeof(k)))
		test_fail(__FILE__, __LINE__,
			  "key %u: kernel fired %llu on %llx key %llu ret %lld %lld %lld %lld; "
			  "userbpf fired %llu on %llx key %llu ret %lld %lld %lld %lld", key,
			  (unsigned long long)k.fired, (unsigned long long)k.pid_tgid,
			  (unsigned long long)k.key, (long long)k.ret[0], (long long)k.ret[1],
			  (long long)k.ret[2], (long long)k.ret[3], (unsigned long long)u.fired,
			  (unsigned long long)u.pid_tgid, (unsigned long long)u.key,
			  (long long)u.ret[0], (long long)u.ret[1], (long long)u.ret[2],
			  (long long)u.ret[3]);
}

/* Another thread, making system calls (so that the kernel's task work for it runs) until told
 * to stop. */
struct other {
	int tid;
	volatile bool stop;
};

static void *other_main(void *arg)
{
	struct other *o = arg;

	__atomic_store_n(&o->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!o->stop)
		usleep(1000);
	return NULL;
}

TEST(loader_task_work_runs)
{
	struct tw_sides ts;
	struct other other = { 0, false };
	int tid = (int)syscall(SYS_gettid);
	pthread_t th;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(open_sides(&ts));
	for (uint32_t key = 0; key < 4; key++) {
		struct elem zero = { 0 };

		for (int s = 0; s < NSIDES; s++) {
			REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, ts.map[s], &key, &zero, BPF_ANY).rc);
			REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, ts.array[s], &key, &zero, 0).rc);
		}
	}
	/* this thread's: run by the time bpf() returns, once per schedule, a second schedule
	 * before that -EBUSY */
	op(&ts, TW_SIGNAL, 0, tid);
	CHECK_EQ(get(U, ts.map[U], 0).fired, 1u);
	op(&ts, TW_RESUME, 0, tid);
	op(&ts, TW_TWICE, 0, tid);
	elems_agree(ts.map, 0, true);
	CHECK_EQ(get(U, ts.map[U], 0).fired, 3u);
	CHECK_EQ(get(U, ts.map[U], 0).ret[2], -EBUSY);
	CHECK_EQ(get(U, ts.map[U], 0).pid_tgid, (uint64_t)getpid() << 32 | (uint32_t)tid);
	op(&ts, TW_ARRAY, 2, tid);
	elems_agree(ts.array, 2, true);
	CHECK_EQ(get(U, ts.array[U], 2).key, 2u);
	/* bpf() replaces the element: its work is gone, and can be scheduled again */
	{
		struct elem zero = { 0 };
		uint32_t key = 0;

		for (int s = 0; s < NSIDES; s++)
			REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, ts.map[s], &key, &zero, 0).rc);
		op(&ts, TW_RESUME, 0, tid);
		elems_agree(ts.map, 0, true);
		CHECK_EQ(get(U, ts.map[U], 0).fired, 1u);
	}
	/* another thread's */
	REQUIRE(!pthread_create(&th, NULL, other_main, &other));
	while (!__atomic_load_n(&other.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	op(&ts, TW_SIGNAL, 1, other.tid);
	for (int i = 0; i < 400 && (get(K, ts.map[K], 1).fired < 1 || get(U, ts.map[U], 1).fired < 1);
	     i++)
		usleep(5000);
	elems_agree(ts.map, 1, false);
	CHECK_EQ(get(K, ts.map[K], 1).pid_tgid & 0xffffffffu, (uint64_t)other.tid);
	CHECK_EQ(get(U, ts.map[U], 1).fired, 1u);
	CHECK_EQ(get(U, ts.map[U], 1).key, 1u);
	other.stop = true;
	pthread_join(th, NULL);
	obj_sides_close(&ts.os);
}
