/* bpf_wq at run time, differentially: the corpus program syscall_wq_ops, loaded by the ELF loader
 * on both sides, performs one work queue operation per test run; the same operations in the
 * same order must give the same results, and leave the same elements (a bpf_wq's bytes read as
 * 0), on both sides: bpf_wq_init() once per element (-EBUSY after), with flags 0 only;
 * bpf_wq_set_callback_impl() and bpf_wq_start() on an initialised item only, with flags 0
 * only; a started item's callback runs with its element's key and value, in a sleepable
 * context (it calls a sleepable kfunc); started again, it runs again; a second callback
 * replaces the first; an element's item goes when bpf() updates the element or a program
 * deletes or replaces it, after which start finds none.  Skipped where the kernel's bpf() is
 * unavailable.  (Creating maps with a bpf_wq: test_diff_work.c, which also has the verifier's
 * side.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "loader_sides.h"
#include "test.h"

struct elem {
	uint64_t fired, seen_key;
	uint64_t w[2];
	int64_t ret[8];
	uint64_t other_fired;
	int64_t copied;
};

struct wq_op {
	uint32_t op, key;
	uint64_t arg;
};

enum { W_INIT, W_SETCB, W_START, W_DELETE, W_UPDATE, W_SETCB_OTHER, W_ARRAY };

struct wq_sides {
	struct obj_sides os;
	int map[NSIDES], array[NSIDES];
};

static bool open_sides(struct wq_sides *ws)
{
	return obj_sides_open(&ws->os, LOADER_OBJ_DIR "/tests/corpus/syscall_wq_ops.bpf.o") &&
	       obj_sides_maps(&ws->os, "wqs", ws->map) &&
	       obj_sides_maps(&ws->os, "wq_array", ws->array);
}

/* One operation on both sides: the runs and their return values must agree. */
static void op(struct wq_sides *ws, uint32_t what, uint32_t key, uint64_t arg)
{
	struct wq_op o = { what, key, arg };
	struct bpf_result r[NSIDES];
	uint32_t ret[NSIDES];
	char name[48];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run_ctx(s, ws->os.prog[s], NULL, 0, 0, &o, sizeof(o), NULL, 0,
					 &ret[s]);
	snprintf(name, sizeof(name), "wq op %u on key %u (arg %llu)", what, key,
		 (unsigned long long)arg);
	CHECK_EQ(r[K].rc, 0);
	if (AGREE(name, r) && !r[K].rc)
		CHECK_EQ(ret[U], ret[K]);
}

static void put(struct wq_sides *ws, uint32_t key)
{
	struct elem zero = { 0 };
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, ws->map[s], &key, &zero, BPF_ANY);
	AGREE("bpf() update of a bpf_wq's element", r);
}

static struct elem get(int s, int map, uint32_t key)
{
	struct elem e;

	memset(&e, 0xee, sizeof(e));
	if (side_elem(s, BPF_MAP_LOOKUP_ELEM, map, &key, &e, 0).rc)
		memset(&e, 0xdd, sizeof(e));
	return e;
}

/* Waits (up to 2 s) until key's callbacks ran n times (the first) and m times (the second) on
 * both sides. */
static void wait_fired(struct wq_sides *ws, int map_of[NSIDES], uint32_t key, uint64_t n,
		       uint64_t m)
{
	for (int i = 0; i < 400; i++) {
		struct elem k = get(K, map_of[K], key), u = get(U, map_of[U], key);

		if (k.fired >= n && u.fired >= n && k.other_fired >= m && u.other_fired >= m)
			return;
		usleep(5000);
	}
}

static void elems_agree(int map_of[NSIDES], uint32_t nkeys)
{
	for (uint32_t key = 0; key < nkeys; key++) {
		struct elem k = get(K, map_of[K], key), u = get(U, map_of[U], key);

		if (memcmp(&k, &u, sizeof(k)))
			test_fail(__FILE__, __LINE__,
				  "key %u: kernel fired %llu/%llu key %llu w %llx copied %lld ret %lld "
				  "%lld %lld %lld %lld %lld %lld; userbpf fired %llu/%llu key %llu w "
				  "%llx copied %lld ret %lld %lld %lld %lld %lld %lld %lld",
				  key, (unsigned long long)k.fired, (unsigned long long)k.other_fired,
				  (unsigned long long)k.seen_key, (unsigned long long)k.w[0],
				  (long long)k.copied, (long long)k.ret[0], (long long)k.ret[1],
				  (long long)k.ret[2], (long long)k.ret[3], (long long)k.ret[4],
				  (long long)k.ret[5], (long long)k.ret[6],
				  (unsigned long long)u.fired, (unsigned long long)u.other_fired,
				  (unsigned long long)u.seen_key, (unsigned long long)u.w[0],
				  (long long)u.copied, (long long)u.ret[0], (long long)u.ret[1],
				  (long long)u.ret[2], (long long)u.ret[3], (long long)u.ret[4],
				  (long long)u.ret[5], (long long)u.ret[6]);
	}
}

TEST(loader_wq_runs)
{
	struct wq_sides ws;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(open_sides(&ws));
	for (uint32_t key = 0; key < 6; key++)
		put(&ws, key);
	/* key 0: nothing before init; flags; init once; no start without a callback; then it
	 * runs, with its key, and again when started again; a second callback replaces it */
	op(&ws, W_START, 0, 0);
	op(&ws, W_SETCB, 0, 0);
	op(&ws, W_INIT, 0, 1);
	op(&ws, W_INIT, 0, 0);
	op(&ws, W_INIT, 0, 0);
	op(&ws, W_START, 0, 0);
	op(&ws, W_SETCB, 0, 1);
	op(&ws, W_SETCB, 0, 0);
	op(&ws, W_START, 0, 1);
	op(&ws, W_START, 0, 0);
	wait_fired(&ws, ws.map, 0, 1, 0);
	op(&ws, W_START, 0, 0);
	wait_fired(&ws, ws.map, 0, 2, 0);
	op(&ws, W_SETCB_OTHER, 0, 0);
	op(&ws, W_START, 0, 0);
	wait_fired(&ws, ws.map, 0, 2, 1);
	/* key 1: bpf()'s update of the element frees its item: start finds none */
	op(&ws, W_INIT, 1, 0);
	op(&ws, W_SETCB, 1, 0);
	put(&ws, 1);
	op(&ws, W_START, 1, 0);
	op(&ws, W_INIT, 1, 0);
	/* key 2: deleted by the program (and put back by bpf()); key 3: replaced by it */
	op(&ws, W_INIT, 2, 0);
	op(&ws, W_SETCB, 2, 0);
	op(&ws, W_DELETE, 2, 0);
	put(&ws, 2);
	op(&ws, W_START, 2, 0);
	op(&ws, W_INIT, 3, 0);
	op(&ws, W_SETCB, 3, 0);
	op(&ws, W_UPDATE, 3, 0);
	op(&ws, W_START, 3, 0);
	/* key 4: an item in an array's element, started from the hash's run */
	op(&ws, W_ARRAY, 4, 0);
	op(&ws, W_ARRAY, 4, 0);
	wait_fired(&ws, ws.array, 0, 0, 1);
	/* key 9: no element */
	op(&ws, W_INIT, 9, 0);
	usleep(50 * 1000);
	elems_agree(ws.map, 6);
	elems_agree(ws.array, 1);
	CHECK_EQ(get(U, ws.map[U], 0).fired, 2u);
	CHECK_EQ(get(U, ws.map[U], 0).other_fired, 1u);
	CHECK_EQ(get(U, ws.map[U], 0).seen_key, 0u);
	CHECK_EQ(get(U, ws.map[U], 0).copied, -EINVAL);
	CHECK_EQ(get(U, ws.map[U], 0).ret[0], -EBUSY);
	CHECK_EQ(get(U, ws.map[U], 1).ret[2], -EINVAL);
	CHECK_EQ(get(U, ws.map[U], 3).ret[4], 4);
	CHECK_EQ(get(U, ws.array[U], 0).other_fired, 1u);
	obj_sides_close(&ws.os);
}
