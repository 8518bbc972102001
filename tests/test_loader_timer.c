/* bpf_timer at run time, differentially: the corpus program xdp_timer_ops, loaded by the ELF
 * loader on both sides, performs one timer operation per test run; the same operations in the
 * same order must give the same results, and leave the same elements (a timer's bytes read as
 * 0), on both sides: a started timer's callback runs once with its element's key and can be
 * re-armed; its own cancel from inside it is -EDEADLK; a cancelled timer loses its callback; an
 * element's timer goes when bpf() updates the element or a program deletes or replaces it, and
 * then never fires; every timer goes with the map's last fd, after which bpf_timer_init() is
 * -EPERM.  (Creating maps with timers: test_diff_timer.c; the verifier's side:
 * test_verifier_timer.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kbpf.h"
#include "loader_sides.h"
#include "test.h"

struct elem {
	uint64_t fired, seen_key;
	uint64_t t[2];
	int64_t ret[8];
	int64_t self_cancel;
};

enum { T_INIT, T_SETCB, T_START, T_CANCEL, T_DELETE, T_INIT_CLOCK, T_START_FLAGS, T_UPDATE,
       T_DELETE_INIT };

struct timer_sides {
	struct obj_sides os;
	int prog[NSIDES], map[NSIDES];
};

/* xdp_timer_ops.bpf.o on both sides, and its map. */
static bool open_sides(struct timer_sides *ts)
{
	if (!obj_sides_open(&ts->os, LOADER_OBJ_DIR "/tests/corpus/xdp_timer_ops.bpf.o"))
		return false;
	for (int s = 0; s < NSIDES; s++) {
		ts->prog[s] = ts->os.prog[s];
		ts->map[s] = obj_sides_map(&ts->os, s, "timers");
		if (ts->map[s] < 0)
			return false;
	}
	return true;
}

/* One operation on both sides: the runs must agree (XDP_PASS where the element is there). */
static void op(struct timer_sides *ts, uint8_t what, uint8_t key, uint64_t arg)
{
	uint8_t pkt[64] = { what, key };
	struct bpf_result r[NSIDES];
	uint32_t ret[NSIDES];
	char name[48];

	memcpy(pkt + 2, &arg, sizeof(arg));
	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, ts->prog[s], pkt, sizeof(pkt), &ret[s]);
	snprintf(name, sizeof(name), "timer op %u on key %u", what, key);
	if (AGREE(name, r) && !r[K].rc)
		CHECK_EQ(ret[U], ret[K]);
}

static void put(struct timer_sides *ts, uint32_t key)
{
	struct elem zero = { 0 };
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, ts->map[s], &key, &zero, BPF_ANY);
	AGREE("bpf() update of a timer's element", r);
}

static struct elem get(struct timer_sides *ts, int s, uint32_t key)
{
	struct elem e;

	memset(&e, 0xee, sizeof(e));
	if (side_elem(s, BPF_MAP_LOOKUP_ELEM, ts->map[s], &key, &e, 0).rc)
		memset(&e, 0xdd, sizeof(e));
	return e;
}

/* Waits (up to 2 s) until key's callback ran n times on both sides. */
static void wait_fired(struct timer_sides *ts, uint32_t key, uint64_t n)
{
	for (int i = 0; i < 400; i++) {
		if (get(ts, K, key).fired >= n && get(ts, U, key).fired >= n)
			return;
		usleep(5000);
	}
}

static void elems_agree(struct timer_sides *ts, uint32_t nkeys)
{
	for (uint32_t key = 0; key < nkeys; key++) {
		struct elem k = get(ts, K, key), u = get(ts, U, key);

		if (memcmp(&k, &u, sizeof(k)))
			test_fail(__FILE__, __LINE__,
				  "key %u: kernel fired %llu key %llu t %llx ret %lld %lld %lld %lld "
				  "%lld %lld %lld %lld self %lld; userbpf fired %llu key %llu t %llx "
				  "ret %lld %lld %lld %lld %lld %lld %lld %lld self %lld",
				  key, (unsigned long long)k.fired, (unsigned long long)k.seen_key,
				  (unsigned long long)k.t[0], (long long)k.ret[0], (long long)k.ret[1],
				  (long long)k.ret[2], (long long)k.ret[3], (long long)k.ret[4],
				  (long long)k.ret[5], (long long)k.ret[6], (long long)k.ret[7],
				  (long long)k.self_cancel, (unsigned long long)u.fired,
				  (unsigned long long)u.seen_key, (unsigned long long)u.t[0],
				  (long long)u.ret[0], (long long)u.ret[1], (long long)u.ret[2],
				  (long long)u.ret[3], (long long)u.ret[4], (long long)u.ret[5],
				  (long long)u.ret[6], (long long)u.ret[7], (long long)u.self_cancel);
	}
}

TEST(loader_timer_runs)
{
	struct timer_sides ts;
	const uint64_t ms = 1000000;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(open_sides(&ts));
	for (uint32_t key = 0; key < 6; key++)
		put(&ts, key);
	/* key 0: nothing before init; init once; no start without a callback; then it fires,
	 * with its key, and again when re-armed, when its cancel of itself is -EDEADLK */
	op(&ts, T_START, 0, ms);
	op(&ts, T_CANCEL, 0, 0);
	op(&ts, T_SETCB, 0, 0);
	op(&ts, T_INIT, 0, 0);
	op(&ts, T_INIT, 0, 0);
	op(&ts, T_START, 0, ms);
	op(&ts, T_SETCB, 0, 0);
	op(&ts, T_START, 0, ms);
	wait_fired(&ts, 0, 1);
	op(&ts, T_START, 0, ms);
	wait_fired(&ts, 0, 2);
	/* key 1: a cancel of an armed timer is 1, then 0, and takes the callback away */
	op(&ts, T_INIT, 1, 0);
	op(&ts, T_SETCB, 1, 0);
	op(&ts, T_START, 1, 10000 * ms);
	op(&ts, T_CANCEL, 1, 0);
	op(&ts, T_CANCEL, 1, 0);
	op(&ts, T_START, 1, ms);
	/* key 2: bpf()'s update of the element frees its timer: it never fires, and start finds
	 * none */
	op(&ts, T_INIT, 2, 0);
	op(&ts, T_SETCB, 2, 0);
	op(&ts, T_START, 2, 20 * ms);
	put(&ts, 2);
	op(&ts, T_START, 2, ms);
	/* key 3: deleted by the program (and put back by bpf()); key 4: replaced by it */
	op(&ts, T_INIT, 3, 0);
	op(&ts, T_SETCB, 3, 0);
	op(&ts, T_START, 3, 20 * ms);
	op(&ts, T_DELETE, 3, 0);
	put(&ts, 3);
	op(&ts, T_INIT, 4, 0);
	op(&ts, T_SETCB, 4, 0);
	op(&ts, T_START, 4, 20 * ms);
	op(&ts, T_UPDATE, 4, 0);
	/* key 5: clocks and start flags */
	op(&ts, T_INIT_CLOCK, 5, 2); /* CLOCK_PROCESS_CPUTIME_ID */
	op(&ts, T_INIT_CLOCK, 5, 16);
	op(&ts, T_INIT_CLOCK, 5, 7); /* CLOCK_BOOTTIME */
	op(&ts, T_START_FLAGS, 5, 4);
	usleep(100 * 1000); /* (the 20 ms timers would have fired by now) */
	elems_agree(&ts, 6);
	CHECK_EQ(get(&ts, U, 0).fired, 2u);
	CHECK_EQ(get(&ts, U, 0).self_cancel, -EDEADLK);
	CHECK_EQ(get(&ts, U, 1).ret[3], 0); /* the second cancel */
	CHECK_EQ(get(&ts, U, 2).fired, 0u);
	CHECK_EQ(get(&ts, U, 4).ret[7], 7); /* the program's new value */
	obj_sides_close(&ts.os);
}

/* A program that looked an element up, deleted it and then made a timer in it: the timer stays
 * with the memory, so an element made later for the key (the same memory, on one CPU) has it,
 * and bpf_timer_init() there is -EBUSY, on both sides.  (Found under qemu-i386, where the churn
 * test's fresh elements sometimes had such a timer.) */
TEST(loader_timer_init_after_delete)
{
	struct timer_sides ts;
	cpu_set_t old, one;

	SKIP_WITHOUT_KERNEL_BPF();
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_getaffinity(0, sizeof(old), &old) || sched_setaffinity(0, sizeof(one), &one))
		SKIP("cannot pin the thread to CPU 0");
	REQUIRE(open_sides(&ts));
	put(&ts, 0);
	op(&ts, T_DELETE_INIT, 0, 0);
	put(&ts, 0);
	op(&ts, T_INIT, 0, 0);
	elems_agree(&ts, 1);
	CHECK_EQ(get(&ts, U, 0).ret[0], -EBUSY);
	obj_sides_close(&ts.os);
	sched_setaffinity(0, sizeof(old), &old);
}

/* The map's last fd closed (the program, which holds the map, kept by a dup of its fd): its
 * armed timer never fires, and a new one cannot be made (-EPERM) until an fd is got back. */
TEST(loader_timer_last_fd)
{
	struct timer_sides ts;
	int prog[NSIDES];
	uint32_t id[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(open_sides(&ts));
	put(&ts, 0);
	put(&ts, 1);
	op(&ts, T_INIT, 0, 0);
	op(&ts, T_SETCB, 0, 0);
	op(&ts, T_START, 0, 30 * 1000000ull);
	for (int s = 0; s < NSIDES; s++) {
		id[s] = side_map_id(s, ts.map[s]);
		prog[s] = dup(ts.prog[s]);
		REQUIRE(prog[s] >= 0);
		userbpf_object_close(ts.os.obj[s]);
		ts.os.obj[s] = NULL;
		ts.prog[s] = prog[s];
	}
	op(&ts, T_INIT, 1, 0);
	usleep(100 * 1000);
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.map_id = id[s];
		ts.map[s] = side_call(s, BPF_MAP_GET_FD_BY_ID, &a).rc;
		REQUIRE(ts.map[s] >= 0);
	}
	elems_agree(&ts, 2);
	CHECK_EQ(get(&ts, U, 0).fired, 0u);
	CHECK_EQ(get(&ts, U, 1).ret[0], -EPERM);
	for (int s = 0; s < NSIDES; s++) {
		close(ts.map[s]);
		close(prog[s]);
	}
}

struct churn {
	int prog;
	uint64_t seed;
	int runs;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < c->runs; i++) {
		uint64_t x = xorshift64(&c->seed), ns = (x >> 20) % 200000;
		uint8_t pkt[64] = { (uint8_t)(x % 8), (uint8_t)((x >> 8) % 8) };
		union bpf_attr a;

		memcpy(pkt + 2, &ns, sizeof(ns));
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)c->prog;
		a.test.data_in = (uint64_t)(uintptr_t)pkt;
		a.test.data_size_in = sizeof(pkt);
		if (bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)))
			return (void *)1;
	}
	return NULL;
}

/* userbpf alone: two threads run every operation on random elements (re-inits, short starts,
 * cancels, deletes, replacements) while callbacks fire on the timer thread; then every element
 * still there was fired with its own key only, and the map and program go cleanly (ASan and
 * valgrind runs check the memory). */
TEST(loader_timer_churn)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts) };
	struct userbpf_object *obj;
	struct churn c[2];
	pthread_t th[2];
	int prog, map;

	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/xdp_timer_ops.bpf.o", &opts,
					  &obj));
	REQUIRE(!userbpf_object_load(obj));
	prog = userbpf_program_fd(userbpf_object_program(obj, 0));
	map = userbpf_map_fd(userbpf_object_find_map(obj, "timers"));
	for (int t = 0; t < 2; t++) {
		c[t] = (struct churn){ prog, 0x7133 + (uint64_t)t, 20000 };
		REQUIRE(!pthread_create(&th[t], NULL, churn_main, &c[t]));
	}
	for (int i = 0; i < 4000; i++) { /* meanwhile: put deleted elements back */
		uint32_t key = (uint32_t)i % 8;
		struct elem zero = { 0 };

		side_elem(U, BPF_MAP_UPDATE_ELEM, map, &key, &zero, BPF_NOEXIST);
	}
	for (int t = 0; t < 2; t++) {
		void *ret;

		pthread_join(th[t], &ret);
		CHECK(ret == NULL);
	}
	for (uint32_t key = 0; key < 8; key++) {
		struct elem e;

		if (!side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc) {
			CHECK(e.seen_key == key || !e.fired);
			CHECK(!e.t[0] && !e.t[1]); /* (the timer reads as 0) */
		}
	}
	/* then every element's timer still works: re-armed for 1 ms, all fire */
	for (uint32_t key = 0; key < 8; key++) {
		struct elem zero = { 0 };
		uint8_t pkt[64] = { 0, (uint8_t)key };
		uint64_t ms = 1000000;
		uint32_t ret;

		CHECK_EQ(side_elem(U, BPF_MAP_UPDATE_ELEM, map, &key, &zero, BPF_ANY).rc, 0);
		for (uint8_t what = T_INIT; what <= T_START; what++) {
			pkt[0] = what;
			memcpy(pkt + 2, &ms, sizeof(ms));
			CHECK_EQ(side_test_run(U, prog, pkt, sizeof(pkt), &ret).rc, 0);
		}
	}
	for (uint32_t key = 0; key < 8; key++) {
		struct elem e = { 0 };

		for (int i = 0; i < 400 && !e.fired; i++) {
			usleep(5000);
			CHECK_EQ(side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc, 0);
		}
		CHECK_EQ(e.fired, 1u);
		CHECK_EQ(e.seen_key, key);
		/* (init may find a timer a churn program made in the element's memory after
		 * deleting it, as in the kernel: loader_timer_init_after_delete) */
		CHECK((!e.ret[0] || e.ret[0] == -EBUSY) && !e.ret[1] && !e.ret[2]);
	}
	userbpf_object_close(obj);
}

/* userbpf alone: a fork() while a timer is armed (and the timer thread waits for it).  The child
 * has its own copies of the maps and timers, and no timer thread until its first timer
 * operation: then its copy of the armed timer fires in it, a new one fires too, and a cancel
 * returns (nothing runs in the child that it could wait for).  The parent's timers go on. */
TEST(loader_timer_fork)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts) };
	struct userbpf_object *obj;
	uint64_t ms = 1000000;
	int prog, map, status = -1;
	pid_t pid;

	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/xdp_timer_ops.bpf.o", &opts,
					  &obj));
	REQUIRE(!userbpf_object_load(obj));
	prog = userbpf_program_fd(userbpf_object_program(obj, 0));
	map = userbpf_map_fd(userbpf_object_find_map(obj, "timers"));
	for (uint32_t key = 0; key < 3; key++) {
		struct elem zero = { 0 };
		uint64_t when = key == 0 ? 50 * ms : ms;
		uint8_t pkt[64] = { 0, (uint8_t)key };
		uint32_t ret;

		REQUIRE_EQ(side_elem(U, BPF_MAP_UPDATE_ELEM, map, &key, &zero, BPF_ANY).rc, 0);
		for (uint8_t what = T_INIT; what <= T_START && key < 2; what++) {
			pkt[0] = what;
			memcpy(pkt + 2, &when, sizeof(when));
			REQUIRE_EQ(side_test_run(U, prog, pkt, sizeof(pkt), &ret).rc, 0);
		}
	}
	usleep(20 * 1000); /* key 1 fired; key 0 armed for 30 ms more */
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		/* the child: exit status 0 if its timers work, else which check failed */
		uint8_t pkt[64] = { T_INIT, 2 };
		uint32_t ret, key = 2, key0 = 0;
		struct elem e;
		int i;

		alarm(10); /* (a hang ends the child; the parent sees the signal) */
		for (uint8_t what = T_INIT; what <= T_START; what++) {
			pkt[0] = what;
			memcpy(pkt + 2, &ms, sizeof(ms));
			if (side_test_run(U, prog, pkt, sizeof(pkt), &ret).rc)
				_exit(1);
		}
		for (i = 0; i < 400; i++) {
			if (!side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc && e.fired &&
			    !side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key0, &e, 0).rc && e.fired)
				break;
			usleep(5000);
		}
		if (i == 400)
			_exit(2);
		pkt[0] = T_CANCEL;
		pkt[1] = 1;
		if (side_test_run(U, prog, pkt, sizeof(pkt), &ret).rc)
			_exit(3);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	/* the parent's key 0 fires too */
	for (int i = 0; i < 400; i++) {
		struct elem e;
		uint32_t key = 0;

		if (!side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc && e.fired)
			break;
		usleep(5000);
	}
	{
		struct elem e;
		uint32_t key = 0;

		CHECK_EQ(side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc, 0);
		CHECK_EQ(e.fired, 1u);
	}
	userbpf_object_close(obj);
}
