/* Concurrency stress test for userbpf's bpf() entry point.
 *
 * Why: the unit tests run one thread; this program hammers the map commands from several threads
 * at once and checks invariants that a lock or memory-ordering bug would break.  It is also what
 * `make check-tsan` runs under ThreadSanitizer, so that data races inside userbpf are reported even
 * when no invariant happens to catch them.
 *
 * Phases (each one counts as one pass or one failure in the last line, "N passed, N failed"):
 *  - mixed workloads on a hash map with 8-byte values, a hash map with 64-byte values and an array
 *    map with 8-byte values: LOOKUP, UPDATE (ANY/NOEXIST/EXIST), DELETE, GET_NEXT_KEY and
 *    LOOKUP_AND_DELETE from several threads.  Each thread owns a disjoint key range and records
 *    what it wrote there, so every result on an owned key is exact; shared keys carry values whose
 *    words are all derived from the first one (a checksum), so a torn read is detected.  A thread
 *    now and then walks the whole map with GET_NEXT_KEY: the walk must terminate, return only
 *    valid keys and include the thread's own present keys.  At the end, with no thread running,
 *    the map must match the records exactly, hold at most max_entries elements, and a full map
 *    must refuse new keys only (E2BIG), never updates of existing ones.  During the hash-map runs,
 *    one more thread creates, uses and closes other maps.
 *  - a fill race: threads insert more distinct keys than max_entries; exactly max_entries win.
 *  - a close race: one thread closes map fds while others are inside bpf() on them; every call must
 *    succeed or fail with EBADF, EINVAL or ENOENT, and nothing may crash.
 *  - a program race: threads run an extension program (userbpf_prog_run()) whose map helpers
 *    look up, update and delete keys of a hash map (then of an LRU hash map, which evicts), while another thread changes the same keys
 *    through bpf() and closes the map's fd halfway (the program keeps the map alive).  Programs
 *    run without a read section on hash maps (bpf_map_ops.prog_needs_rcu), so this is where a
 *    reused element or a freed map would show: every value a program reads must be one some
 *    thread wrote (self-checking; a program may see a reused element's new value, as in the
 *    kernel, but never a torn or stray one), and every helper result must be 0, ENOENT (delete) or E2BIG
 *    (update: the map holds half the keys).
 *  - a pin race: threads pin maps at a few shared names of a temporary directory, get them back,
 *    rename and unlink them at once.  Every call must succeed or fail as a filesystem race
 *    allows (EEXIST, ENOENT), every fd BPF_OBJ_GET gives must be a pinned map with its value
 *    (never EACCES: a pin's file and its table entry appear and go together), and once every
 *    name is unlinked and every fd closed no map of the phase may be left alive.
 *  - an attach race: threads attach and detach cgroup skb programs on a cgroup made for the
 *    phase (and its child), create, update, detach and close cgroup and sockmap links, attach
 *    sk_skb programs to a socket map and tc programs to the loopback device's ingress (tcx),
 *    read link infos and query the lists, all at once.  Every
 *    call must succeed or fail with an errno its race allows; a query's count must be within the
 *    kernel's 64 and name live programs; once every link is closed and everything detached, the
 *    lists must be empty and no program of the phase alive.  (Skipped, with a message, where no
 *    cgroup2 directory of this process's can have a child.)
 *
 * Usage: stress [--quick] [--ops N] [--threads N] [--seed N] [-v]
 * Full mode is 1,000,000 operations; --quick is 50,000.  Exit status 1 on any violation.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_cgroup.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", which bpf() does return */
#endif

#define MAX_THREADS 16
#define MAX_VWORDS 16 /* values of up to 64 bytes */

static atomic_int violations;
static int verbose;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;
	int n = atomic_fetch_add(&violations, 1);

	if (n >= 30) {
		if (n == 30)
			fprintf(stderr, "FAIL ... (further violations not printed)\n");
		return;
	}
	fprintf(stderr, "FAIL ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64*: deterministic per thread for a given --seed */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* A value for key: word 0 is r, every other word a hash of (r, key, index). */
static void val_fill(uint32_t *w, unsigned int nw, uint32_t key, uint32_t r)
{
	w[0] = r;
	for (unsigned int i = 1; i < nw; i++)
		w[i] = mix32(r ^ (key * 0x9e3779b9U) ^ (i * 0x85ebca6bU));
}

static int val_ok(const uint32_t *w, unsigned int nw, uint32_t key)
{
	uint32_t want[MAX_VWORDS];

	val_fill(want, nw, key, w[0]);
	return memcmp(want, w, nw * 4) == 0;
}

static int all_zero(const uint32_t *w, unsigned int nw)
{
	for (unsigned int i = 0; i < nw; i++)
		if (w[i])
			return 0;
	return 1;
}

/* bpf() wrappers: 0 on success, else the errno.  A return other than 0 or -1, or -1 with errno 0,
 * is a violation in itself. */
static int ret_err(int cmd, int ret)
{
	int e = errno;

	if (ret == 0)
		return 0;
	if (ret != -1 || e == 0) {
		violation("bpf(cmd %d) returned %d with errno %d", cmd, ret, e);
		return -1000;
	}
	return e;
}

static int elem_op(int cmd, int fd, const void *key, void *value, uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(uintptr_t)key;
	a.value = (uint64_t)(uintptr_t)value; /* also next_key */
	a.flags = flags;
	errno = 0;
	return ret_err(cmd, bpf(cmd, &a, sizeof(a)));
}

static int m_lookup(int fd, const void *k, void *v)
{
	return elem_op(BPF_MAP_LOOKUP_ELEM, fd, k, v, 0);
}

static int m_update(int fd, const void *k, const void *v, uint64_t flags)
{
	return elem_op(BPF_MAP_UPDATE_ELEM, fd, k, (void *)v, flags);
}

static int m_delete(int fd, const void *k)
{
	return elem_op(BPF_MAP_DELETE_ELEM, fd, k, NULL, 0);
}

static int m_next(int fd, const void *k, void *nk)
{
	return elem_op(BPF_MAP_GET_NEXT_KEY, fd, k, nk, 0);
}

static int m_lookup_del(int fd, const void *k, void *v)
{
	return elem_op(BPF_MAP_LOOKUP_AND_DELETE_ELEM, fd, k, v, 0);
}

static int map_create(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = ks;
	a.value_size = vs;
	a.max_entries = max;
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static const char *ename(int e)
{
	static __thread char buf[32];

	switch (e) {
	case 0: return "success";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case E2BIG: return "E2BIG";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case ENOTSUPP: return "ENOTSUPP";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* ---------------------------------------------------------------------------------------------- */
/* Mixed workload on one map */

struct workload {
	const char *name;
	uint32_t type;
	unsigned int vwords;	/* value size / 4 */
	unsigned int own;	/* owned keys per thread */
	unsigned int shared;	/* keys every thread uses */
	unsigned int max;	/* max_entries, set from the thread count: hash = all owned keys,
				 * so that shared keys can fill the map; array = owned + shared */
};

struct run {
	const struct workload *w;
	int fd;
	int hash;
	unsigned int nthreads;
	unsigned int universe; /* owned + shared keys */
	atomic_int workers_left;
	uint64_t seed;
};

struct worker {
	pthread_t th;
	struct run *r;
	unsigned int tid;
	uint64_t nops;
	uint64_t rng;
	uint8_t *present;	/* per owned key (hash: in the map; array: written at least once) */
	uint32_t *rec;		/* per owned key: the r of the value last written */
	uint32_t seq;
	uint64_t walks;
};

/* Hash keys are offset so that 0 is not special; array keys are indices. */
static uint32_t to_key(const struct run *r, unsigned int idx)
{
	return r->hash ? idx + 1000 : idx;
}

static int key_valid(const struct run *r, uint32_t key)
{
	return r->hash ? key >= 1000 && key - 1000 < r->universe : key < r->w->max;
}

/* Walk the map with GET_NEXT_KEY while the others mutate it. */
static uint64_t walk(struct worker *wk)
{
	struct run *r = wk->r;
	unsigned int base = wk->tid * r->w->own;
	uint64_t limit = 64ULL * r->w->max + 1000, steps = 0;
	uint8_t *seen = calloc(r->universe, 1);
	uint32_t cur = 0, next;
	int first = 1, e;

	for (;;) {
		e = m_next(r->fd, first ? NULL : &cur, &next);
		steps++;
		if (e == ENOENT)
			break;
		if (e) {
			violation("%s: walk: GET_NEXT_KEY: %s", r->w->name, ename(e));
			break;
		}
		if (!key_valid(r, next)) {
			violation("%s: walk: GET_NEXT_KEY returned invalid key %u", r->w->name, next);
			break;
		}
		if (!r->hash && next != (first ? 0 : cur + 1)) {
			violation("%s: walk: array GET_NEXT_KEY(%u) = %u", r->w->name, cur, next);
			break;
		}
		seen[r->hash ? next - 1000 : next] = 1;
		if (steps > limit) {
			violation("%s: walk: no end after %" PRIu64 " steps", r->w->name, steps);
			break;
		}
		cur = next;
		first = 0;
	}
	/* Keys that were present during the whole walk (this thread's own, untouched while it
	 * walks) are found, as on the kernel, whose buckets are never rehashed. */
	if (e == ENOENT) {
		for (unsigned int i = 0; i < r->w->own; i++) {
			if ((!r->hash || wk->present[i]) && !seen[base + i]) {
				violation("%s: walk missed key %u, present throughout", r->w->name,
					  to_key(r, base + i));
				break;
			}
		}
	}
	free(seen);
	wk->walks++;
	return steps;
}

static void check_owned_lookup(struct worker *wk, unsigned int i, uint32_t key, int e,
			       const uint32_t *v, const char *what)
{
	struct run *r = wk->r;
	unsigned int nw = r->w->vwords;
	uint32_t want[MAX_VWORDS];

	if (r->hash && !wk->present[i]) {
		if (e != ENOENT)
			violation("%s: %s of absent own key %u: %s, want ENOENT", r->w->name, what,
				  key, ename(e));
		return;
	}
	if (e) {
		violation("%s: %s of own key %u: %s, want success", r->w->name, what, key, ename(e));
		return;
	}
	if (!wk->present[i]) { /* array, never written */
		if (!all_zero(v, nw))
			violation("%s: %s of unwritten own key %u: not zero", r->w->name, what, key);
		return;
	}
	val_fill(want, nw, key, wk->rec[i]);
	if (memcmp(want, v, nw * 4))
		violation("%s: %s of own key %u: value %08x.. differs from the one written (%08x..)",
			  r->w->name, what, key, v[0], want[0]);
}

static void check_shared_value(struct run *r, uint32_t key, const uint32_t *v, const char *what)
{
	if (!val_ok(v, r->w->vwords, key) && !(!r->hash && all_zero(v, r->w->vwords)))
		violation("%s: %s of shared key %u: torn or foreign value %08x %08x ..", r->w->name,
			  what, key, v[0], v[1]);
}

enum { OP_LOOKUP, OP_ANY, OP_NOEXIST, OP_EXIST, OP_DELETE, OP_NEXT, OP_LAD };

static int pick_op(uint64_t x)
{
	unsigned int p = x % 100;

	if (p < 25) return OP_LOOKUP;
	if (p < 45) return OP_ANY;
	if (p < 55) return OP_NOEXIST;
	if (p < 65) return OP_EXIST;
	if (p < 78) return OP_DELETE;
	if (p < 89) return OP_NEXT;
	return OP_LAD;
}

static void one_op(struct worker *wk)
{
	struct run *r = wk->r;
	const struct workload *w = r->w;
	unsigned int nw = w->vwords;
	uint64_t x = rnd(&wk->rng);
	int own = (x & 0xff) < 154; /* 60% */
	unsigned int i = 0, idx;
	uint32_t key, nk, v[MAX_VWORDS], nv[MAX_VWORDS];
	int op = pick_op(x >> 8), e;
	uint64_t flags;

	if (own) {
		i = (x >> 16) % w->own;
		idx = wk->tid * w->own + i;
	} else {
		idx = r->nthreads * w->own + (x >> 16) % w->shared;
	}
	key = to_key(r, idx);

	switch (op) {
	case OP_LOOKUP:
		memset(v, 0xa5, sizeof(v));
		e = m_lookup(r->fd, &key, v);
		if (own)
			check_owned_lookup(wk, i, key, e, v, "LOOKUP");
		else if (e == 0)
			check_shared_value(r, key, v, "LOOKUP");
		else if (e != ENOENT || !r->hash)
			violation("%s: LOOKUP of shared key %u: %s", w->name, key, ename(e));
		break;
	case OP_ANY:
	case OP_NOEXIST:
	case OP_EXIST: {
		uint32_t nr = ((wk->tid + 1) << 24) | (++wk->seq & 0xffffff);

		flags = op == OP_ANY ? BPF_ANY : op == OP_NOEXIST ? BPF_NOEXIST : BPF_EXIST;
		val_fill(nv, nw, key, nr);
		e = m_update(r->fd, &key, nv, flags);
		if (!r->hash) {
			int want = op == OP_NOEXIST ? EEXIST : 0;

			if (e != want)
				violation("%s: UPDATE(flags %d) of key %u: %s, want %s", w->name,
					  (int)flags, key, ename(e), ename(want));
			else if (own && !e)
				wk->present[i] = 1, wk->rec[i] = nr;
			break;
		}
		if (own) {
			int was = wk->present[i], ok;

			if (op == OP_ANY)
				ok = e == 0 || (e == E2BIG && !was);
			else if (op == OP_NOEXIST)
				ok = was ? e == EEXIST : (e == 0 || e == E2BIG);
			else
				ok = was ? e == 0 : e == ENOENT;
			if (!ok)
				violation("%s: UPDATE(flags %d) of own key %u (%s): %s", w->name,
					  (int)flags, key, was ? "present" : "absent", ename(e));
			if (e == 0)
				wk->present[i] = 1, wk->rec[i] = nr;
		} else {
			int ok = e == 0 || (op != OP_EXIST && e == E2BIG) ||
				 (op == OP_NOEXIST && e == EEXIST) || (op == OP_EXIST && e == ENOENT);
			if (!ok)
				violation("%s: UPDATE(flags %d) of shared key %u: %s", w->name,
					  (int)flags, key, ename(e));
		}
		break;
	}
	case OP_DELETE:
		e = m_delete(r->fd, &key);
		if (!r->hash) {
			if (e != EINVAL)
				violation("%s: DELETE on array: %s, want EINVAL", w->name, ename(e));
		} else if (own) {
			if (e != (wk->present[i] ? 0 : ENOENT))
				violation("%s: DELETE of own key %u (%s): %s", w->name, key,
					  wk->present[i] ? "present" : "absent", ename(e));
			if (e == 0)
				wk->present[i] = 0;
		} else if (e && e != ENOENT) {
			violation("%s: DELETE of shared key %u: %s", w->name, key, ename(e));
		}
		break;
	case OP_NEXT: {
		int null_key = (x >> 40) % 16 == 0, outside = (x >> 40) % 16 == 1;
		uint32_t k = outside ? to_key(r, r->universe + 7) + (r->hash ? 0 : w->max) : key;

		e = m_next(r->fd, null_key ? NULL : &k, &nk);
		if (e == 0 && !key_valid(r, nk))
			violation("%s: GET_NEXT_KEY returned invalid key %u", w->name, nk);
		else if (e && e != ENOENT)
			violation("%s: GET_NEXT_KEY: %s", w->name, ename(e));
		else if (!r->hash) {
			uint32_t want = null_key || outside ? 0 : k + 1;

			if (want >= w->max ? e != ENOENT : (e || nk != want))
				violation("%s: array GET_NEXT_KEY(%u): %s %u", w->name,
					  null_key ? ~0U : k, ename(e), nk);
		}
		break;
	}
	case OP_LAD:
		memset(v, 0xa5, sizeof(v));
		e = m_lookup_del(r->fd, &key, v);
		if (!r->hash) {
			if (e != ENOTSUPP)
				violation("%s: LOOKUP_AND_DELETE on array: %s, want ENOTSUPP (524)",
					  w->name, ename(e));
		} else if (own) {
			check_owned_lookup(wk, i, key, e, v, "LOOKUP_AND_DELETE");
			if (e == 0)
				wk->present[i] = 0;
		} else if (e == 0) {
			check_shared_value(r, key, v, "LOOKUP_AND_DELETE");
		} else if (e != ENOENT) {
			violation("%s: LOOKUP_AND_DELETE of shared key %u: %s", w->name, key,
				  ename(e));
		}
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	uint64_t walk_every = 2048 + 97 * wk->tid;

	for (uint64_t n = 0; n < wk->nops; n++) {
		if (n % walk_every == walk_every / 2)
			n += walk(wk); /* a walk counts as the operations it makes */
		else
			one_op(wk);
	}
	atomic_fetch_sub(&wk->r->workers_left, 1);
	return NULL;
}

/* Creates, uses and closes small maps until the workers are done. */
static void *churn_main(void *arg)
{
	struct run *r = arg;
	uint64_t rng = r->seed ^ 0xc0ffee;
	unsigned long n = 0;

	while (atomic_load(&r->workers_left) > 0) {
		int hash = rnd(&rng) & 1;
		uint32_t max = 1 + rnd(&rng) % 64, k, nk;
		uint64_t v, got;
		int fd = map_create(hash ? BPF_MAP_TYPE_HASH : BPF_MAP_TYPE_ARRAY, 4, 8, max);
		int e;

		if (fd < 0) {
			violation("churn: MAP_CREATE: %s", ename(errno));
			break;
		}
		if (fd == r->fd)
			violation("churn: MAP_CREATE returned the fd %d of a live map", fd);
		e = m_next(fd, NULL, &nk);
		if (hash ? e != ENOENT : (e || nk != 0))
			violation("churn: new %s map: GET_NEXT_KEY(NULL) = %s", hash ? "hash" : "array",
				  ename(e));
		for (k = 0; k < max; k++) {
			v = (uint64_t)k * 0x100000001ULL ^ n;
			if ((e = m_update(fd, &k, &v, BPF_ANY)))
				violation("churn: UPDATE %u: %s", k, ename(e));
		}
		for (k = 0; k < max; k++) {
			got = 0;
			e = m_lookup(fd, &k, &got);
			if (e || got != ((uint64_t)k * 0x100000001ULL ^ n))
				violation("churn: LOOKUP %u: %s, value %" PRIx64, k, ename(e), got);
		}
		if (close(fd))
			violation("churn: close: %s", ename(errno));
		n++;
	}
	if (verbose)
		printf("  churn: %lu maps created and closed\n", n);
	return NULL;
}

/* Quiescent checks at the end of a workload. */
static void final_checks(struct run *r, struct worker *wks)
{
	const struct workload *w = r->w;
	unsigned int nw = w->vwords, count = 0, walked = 0;
	uint32_t v[MAX_VWORDS], key, nk, cur = 0;
	int e, first = 1;

	for (unsigned int t = 0; t < r->nthreads; t++)
		for (unsigned int i = 0; i < w->own; i++) {
			key = to_key(r, t * w->own + i);
			e = m_lookup(r->fd, &key, v);
			check_owned_lookup(&wks[t], i, key, e, v, "final LOOKUP");
			count += e == 0;
		}
	for (unsigned int j = 0; j < w->shared; j++) {
		key = to_key(r, r->nthreads * w->own + j);
		e = m_lookup(r->fd, &key, v);
		if (e == 0)
			check_shared_value(r, key, v, "final LOOKUP");
		else if (e != ENOENT)
			violation("%s: final LOOKUP of shared key %u: %s", w->name, key, ename(e));
		count += e == 0;
	}
	while (!(e = m_next(r->fd, first ? NULL : &cur, &nk)) && walked <= w->max + 1) {
		walked++;
		cur = nk;
		first = 0;
	}
	if (e && e != ENOENT)
		violation("%s: final walk: %s", w->name, ename(e));
	if (walked != count || count > w->max)
		violation("%s: final walk found %u keys, lookups %u, max_entries %u", w->name, walked,
			  count, w->max);
	if (!r->hash)
		return;

	/* Fill the map up with new keys: exactly max_entries fit, then only new keys fail. */
	unsigned int j = 0;

	for (;; j++) {
		key = to_key(r, r->universe + j);
		val_fill(v, nw, key, j);
		e = m_update(r->fd, &key, v, j & 1 ? BPF_ANY : BPF_NOEXIST);
		if (e)
			break;
		count++;
		if (count > w->max)
			break;
	}
	if (e != E2BIG || count != w->max)
		violation("%s: filling: %s after %u elements, max_entries %u", w->name, ename(e),
			  count, w->max);
	key = to_key(r, r->universe + j + 1);
	if ((e = m_update(r->fd, &key, v, BPF_ANY)) != E2BIG)
		violation("%s: full map, new key, BPF_ANY: %s, want E2BIG", w->name, ename(e));
	if ((e = m_update(r->fd, &key, v, BPF_EXIST)) != ENOENT)
		violation("%s: full map, new key, BPF_EXIST: %s, want ENOENT", w->name, ename(e));
	if ((e = m_next(r->fd, NULL, &key))) {
		violation("%s: full map, GET_NEXT_KEY(NULL): %s", w->name, ename(e));
		return;
	}
	val_fill(v, nw, key, 12345);
	if ((e = m_update(r->fd, &key, v, BPF_ANY)))
		violation("%s: full map, existing key, BPF_ANY: %s", w->name, ename(e));
	if ((e = m_update(r->fd, &key, v, BPF_EXIST)))
		violation("%s: full map, existing key, BPF_EXIST: %s", w->name, ename(e));
	if ((e = m_update(r->fd, &key, v, BPF_NOEXIST)) != EEXIST)
		violation("%s: full map, existing key, BPF_NOEXIST: %s", w->name, ename(e));
	if ((e = m_delete(r->fd, &key)))
		violation("%s: full map, DELETE: %s", w->name, ename(e));
	key = to_key(r, r->universe + j + 1);
	if ((e = m_update(r->fd, &key, v, BPF_NOEXIST)))
		violation("%s: insert after a delete from a full map: %s", w->name, ename(e));
}

static uint64_t run_workload(struct workload *w, unsigned int nthreads, uint64_t ops,
			     uint64_t seed, int churn)
{
	struct run r = { .w = w, .hash = w->type == BPF_MAP_TYPE_HASH, .nthreads = nthreads,
			 .universe = nthreads * w->own + w->shared, .seed = seed };
	struct worker wks[MAX_THREADS];
	pthread_t churn_th;

	w->max = r.hash ? nthreads * w->own : r.universe;
	r.fd = map_create(w->type, 4, w->vwords * 4, w->max);
	if (r.fd < 0) {
		violation("%s: MAP_CREATE: %s", w->name, ename(errno));
		return 0;
	}
	atomic_store(&r.workers_left, (int)nthreads);
	memset(wks, 0, sizeof(wks));
	for (unsigned int t = 0; t < nthreads; t++) {
		wks[t].r = &r;
		wks[t].tid = t;
		wks[t].nops = ops / nthreads;
		wks[t].rng = seed * 0x9e3779b97f4a7c15ULL + t + 1;
		wks[t].present = calloc(w->own, 1);
		wks[t].rec = calloc(w->own, sizeof(uint32_t));
		if (pthread_create(&wks[t].th, NULL, worker_main, &wks[t])) {
			perror("pthread_create");
			exit(2);
		}
	}
	if (churn && pthread_create(&churn_th, NULL, churn_main, &r)) {
		perror("pthread_create");
		exit(2);
	}
	for (unsigned int t = 0; t < nthreads; t++)
		pthread_join(wks[t].th, NULL);
	if (churn)
		pthread_join(churn_th, NULL);
	final_checks(&r, wks);
	for (unsigned int t = 0; t < nthreads; t++) {
		if (verbose)
			printf("  %s: thread %u: %" PRIu64 " walks\n", w->name, t, wks[t].walks);
		free(wks[t].present);
		free(wks[t].rec);
	}
	if (close(r.fd))
		violation("%s: close: %s", w->name, ename(errno));
	return ops / nthreads * nthreads;
}

/* ---------------------------------------------------------------------------------------------- */
/* Fill race: more distinct keys than max_entries, inserted concurrently */

#define FILL_MAX 256

struct filler {
	pthread_t th;
	int fd;
	unsigned int tid, nkeys;
	uint8_t won[FILL_MAX * 2];
	unsigned int wins;
	pthread_barrier_t *bar;
};

static void *filler_main(void *arg)
{
	struct filler *f = arg;
	uint32_t key;
	uint64_t v = 0;
	int e;

	for (unsigned int i = 0; i < f->nkeys; i++) {
		key = f->tid * f->nkeys + i;
		v = key * 3ULL;
		e = m_update(f->fd, &key, &v, i & 1 ? BPF_ANY : BPF_NOEXIST);
		if (e == 0)
			f->won[i] = 1, f->wins++;
		else if (e != E2BIG)
			violation("fill race: insert %u: %s", key, ename(e));
	}
	pthread_barrier_wait(f->bar); /* the map is full now */
	for (unsigned int i = 0; i < f->nkeys; i++) {
		key = f->tid * f->nkeys + i;
		v = key * 5ULL;
		if (f->won[i]) {
			if ((e = m_update(f->fd, &key, &v, BPF_ANY)) ||
			    (e = m_update(f->fd, &key, &v, BPF_EXIST)))
				violation("fill race: full map, update existing %u: %s", key,
					  ename(e));
			if ((e = m_update(f->fd, &key, &v, BPF_NOEXIST)) != EEXIST)
				violation("fill race: full map, NOEXIST existing %u: %s", key,
					  ename(e));
		} else {
			if ((e = m_update(f->fd, &key, &v, BPF_ANY)) != E2BIG)
				violation("fill race: full map, ANY new %u: %s", key, ename(e));
			if ((e = m_update(f->fd, &key, &v, BPF_EXIST)) != ENOENT)
				violation("fill race: full map, EXIST new %u: %s", key, ename(e));
		}
	}
	return NULL;
}

static void run_fill_race(unsigned int nthreads)
{
	struct filler fs[MAX_THREADS];
	pthread_barrier_t bar;
	unsigned int wins = 0, per = FILL_MAX * 2 / nthreads;
	int fd = map_create(BPF_MAP_TYPE_HASH, 4, 8, FILL_MAX);

	if (fd < 0) {
		violation("fill race: MAP_CREATE: %s", ename(errno));
		return;
	}
	pthread_barrier_init(&bar, NULL, nthreads);
	memset(fs, 0, sizeof(fs));
	for (unsigned int t = 0; t < nthreads; t++) {
		fs[t].fd = fd;
		fs[t].tid = t;
		fs[t].nkeys = per;
		fs[t].bar = &bar;
		pthread_create(&fs[t].th, NULL, filler_main, &fs[t]);
	}
	for (unsigned int t = 0; t < nthreads; t++) {
		pthread_join(fs[t].th, NULL);
		wins += fs[t].wins;
	}
	if (wins != FILL_MAX)
		violation("fill race: %u inserts of distinct keys succeeded, max_entries %u", wins,
			  FILL_MAX);
	pthread_barrier_destroy(&bar);
	close(fd);
}

/* ---------------------------------------------------------------------------------------------- */
/* Close race: close(fd) while other threads are inside bpf() on it */

struct closer_state {
	atomic_int fd;
	atomic_int stop;
	uint64_t ops_per_user;
	uint64_t seed;
};

struct close_user {
	pthread_t th;
	struct closer_state *s;
	unsigned int tid;
	uint64_t calls;
};

static void *close_user_main(void *arg)
{
	struct close_user *u = arg;
	uint64_t rng = u->s->seed + 77 * (u->tid + 1);
	uint32_t key, nk;
	uint64_t v = 0;
	int e, op;

	for (uint64_t n = 0; n < u->s->ops_per_user; n++) {
		int fd = atomic_load(&u->s->fd);
		uint64_t x = rnd(&rng);

		key = x % 32;
		op = (x >> 8) % 4;
		if (op == 0)
			e = m_lookup(fd, &key, &v);
		else if (op == 1)
			e = m_update(fd, &key, &v, BPF_ANY);
		else if (op == 2)
			e = m_delete(fd, &key);
		else
			e = m_next(fd, (x >> 16) & 1 ? &key : NULL, &nk);
		if (e && e != EBADF && e != EINVAL && !(e == ENOENT && op != 1))
			violation("close race: op %d on fd %d being closed: %s", op, fd, ename(e));
		__atomic_store_n(&u->calls, n + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run_close_race(unsigned int nusers, uint64_t ops, uint64_t seed)
{
	struct closer_state s = { .ops_per_user = ops / nusers, .seed = seed };
	struct close_user us[MAX_THREADS];
	uint64_t rng = seed ^ 0xdead;
	unsigned long cycles = 0;
	uint32_t key;
	uint64_t v;
	int done, e;

	atomic_store(&s.fd, -1);
	memset(us, 0, sizeof(us));
	for (unsigned int t = 0; t < nusers; t++) {
		us[t].s = &s;
		us[t].tid = t;
		pthread_create(&us[t].th, NULL, close_user_main, &us[t]);
	}
	/* This thread is the closer.  It runs until every user is done. */
	do {
		int fd, devnull = (cycles % 8) == 7;

		if (devnull)
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		else
			fd = map_create(cycles & 1 ? BPF_MAP_TYPE_ARRAY : BPF_MAP_TYPE_HASH, 4, 8, 64);
		if (fd < 0) {
			violation("close race: create: %s", ename(errno));
			break;
		}
		atomic_store(&s.fd, fd);
		for (volatile unsigned int spin = rnd(&rng) % 2000; spin; spin--)
			;
		/* A user's adoption that began before the close must not leave the object in the
		 * number's slot: bpf() on it must say what the kernel says of the file. */
		key = 0;
		e = m_lookup(fd, &key, &v);
		if (devnull ? e != EINVAL : e && e != ENOENT)
			violation("close race: lookup on fd %d (%s): %s", fd,
				  devnull ? "/dev/null" : "map", ename(e));
		if (close(fd))
			violation("close race: close(%d): %s", fd, ename(errno));
		e = m_lookup(fd, &key, &v);
		if (e != EBADF)
			violation("close race: lookup on closed fd %d: %s", fd, ename(e));
		/* The users keep the stale number; so does the next cycle, most often. */
		cycles++;
		done = 1;
		for (unsigned int t = 0; t < nusers; t++)
			done &= __atomic_load_n(&us[t].calls, __ATOMIC_RELAXED) >= s.ops_per_user;
	} while (!done);
	for (unsigned int t = 0; t < nusers; t++)
		pthread_join(us[t].th, NULL);
	if (verbose)
		printf("  close race: %lu fds created and closed\n", cycles);
}

/* ---------------------------------------------------------------------------------------------- */

#define PR_KEYS 64

/* A value that checks itself: the high half is a hash of the low half. */
static uint64_t pr_value(uint32_t x)
{
	return x | (uint64_t)mix32(x ^ 0x5bd1e995u) << 32;
}

static int pr_value_ok(uint64_t v)
{
	return v == pr_value((uint32_t)v);
}

/* The program's context: what to do with which key. */
struct pr_ctx {
	uint32_t key;
	uint32_t op;		/* 0 lookup, 1 update with val, 2 delete */
	uint64_t val;
};

#define PR_ABSENT 0xffffffffffffff00ull	/* r0 of a lookup that found nothing */

struct pr_state {
	struct userbpf_prog *prog;
	uint64_t runs_per_thread;
	uint64_t seed;
};

struct pr_thread {
	pthread_t th;
	struct pr_state *s;
	unsigned int tid;
};

static void *pr_runner_main(void *arg)
{
	struct pr_thread *t = arg;
	uint64_t rng = t->s->seed * 31 + t->tid;

	for (uint64_t n = 0; n < t->s->runs_per_thread; n++) {
		uint64_t x = rnd(&rng), r0;
		struct pr_ctx c = { .key = x % PR_KEYS, .op = (x >> 8) % 3,
				    .val = pr_value((uint32_t)(x >> 16)) };

		r0 = userbpf_prog_run(t->s->prog, &c);
		if (c.op == 0 && r0 != PR_ABSENT && !pr_value_ok(r0))
			violation("prog race: lookup of key %u read %#" PRIx64, c.key, r0);
		if (c.op == 1 && r0 != 0 && (int)r0 != -E2BIG)
			violation("prog race: update of key %u returned %d", c.key, (int)r0);
		if (c.op == 2 && r0 != 0 && (int)r0 != -ENOENT)
			violation("prog race: delete of key %u returned %d", c.key, (int)r0);
	}
	return NULL;
}

/* The race's program on map fd: ctx says what to do with which key (struct pr_ctx). */
static int pr_load(int fd, struct userbpf_prog **prog)
{
	/* The key and the value go through the stack: map helpers take no ctx pointers. */
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct pr_ctx, key)),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, offsetof(struct pr_ctx, val)),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_6, -16),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, offsetof(struct pr_ctx, op)),
		BPF_LD_MAP_FD(BPF_REG_1, fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 1, 7),			/* to update */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 2, 11),			/* to delete */
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_6, (int32_t)(PR_ABSENT & 0xffffffff)), /* sign-extends */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
		/* update */
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -16),
		BPF_MOV64_IMM(BPF_REG_4, BPF_ANY),
		BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_EXIT_INSN(),
		/* delete */
		BPF_EMIT_CALL(BPF_FUNC_map_delete_elem),
		BPF_EXIT_INSN(),
	};
	struct userbpf_prog_load_opts o = { .sz = sizeof(o), .ctx_size = sizeof(struct pr_ctx),
					    .map_helpers = true };

	return userbpf_prog_load_ext(insns, sizeof(insns) / sizeof(insns[0]), &o, prog);
}

static void run_prog_race(uint32_t type, unsigned int nrunners, uint64_t ops, uint64_t seed)
{
	struct pr_state s = { .runs_per_thread = ops / 2 / nrunners, .seed = seed };
	struct pr_thread ts[MAX_THREADS];
	uint64_t rng = seed ^ 0xfeed;
	/* often full: E2BIG paths, or (LRU) evictions racing with lookups */
	int fd = map_create(type, 4, 8, PR_KEYS / 2);
	unsigned int t;
	int err;

	if (fd < 0) {
		violation("prog race: map create: %s", ename(errno));
		return;
	}
	err = pr_load(fd, &s.prog);
	if (err) {
		violation("prog race: load: %s", ename(-err));
		close(fd);
		return;
	}
	for (t = 0; t < nrunners; t++) {
		ts[t] = (struct pr_thread){ .s = &s, .tid = t };
		pthread_create(&ts[t].th, NULL, pr_runner_main, &ts[t]);
	}
	/* This thread changes the same keys through bpf(), then closes the fd halfway. */
	for (uint64_t n = 0; n < ops / 2; n++) {
		uint64_t x = rnd(&rng), v = pr_value((uint32_t)(x >> 20)), got;
		uint32_t key = x % PR_KEYS;
		int e;

		if (n == ops / 4) {
			if (close(fd))
				violation("prog race: close: %s", ename(errno));
			break;
		}
		if ((x >> 8) & 1) {
			e = m_update(fd, &key, &v, BPF_ANY);
			if (e && e != E2BIG)
				violation("prog race: bpf update: %s", ename(e));
		} else if ((x >> 9) & 1) {
			e = m_lookup(fd, &key, &got);
			if (!e && !pr_value_ok(got))
				violation("prog race: bpf lookup of key %u read %#" PRIx64, key, got);
		} else if ((e = m_delete(fd, &key)) && e != ENOENT) {
			violation("prog race: bpf delete: %s", ename(e));
		}
	}
	for (t = 0; t < nrunners; t++)
		pthread_join(ts[t].th, NULL);
	userbpf_prog_free(s.prog);
}

/* Lock handover: a hash map update skips the bucket lock while its thread is the only one in
 * userbpf (rcu.h).  In a fresh process (a child forked before this program starts any thread)
 * the main thread keeps updating present keys through a program, so on that path, and halfway
 * starts a thread that updates, deletes and reinserts the same keys: its registration must end
 * the skipping before it takes its first lock.  Checked: the flag's states, every helper result
 * and value, and at the end a walk of the map (it ends, with valid keys and values). */
extern bool rcu_multi_thread; /* src/rcu.h */

static int handover_child(uint64_t seed, uint64_t runs)
{
	struct pr_state s = { .runs_per_thread = runs, .seed = seed };
	struct pr_thread other = { .s = &s, .tid = 1 };
	int fd = map_create(BPF_MAP_TYPE_HASH, 4, 8, PR_KEYS), err, n = 0;
	uint64_t rng = seed, v, *found;
	uint32_t key, next;

	if (fd < 0 || (err = pr_load(fd, &s.prog))) {
		violation("handover: set-up failed");
		return 1;
	}
	for (key = 0; key < PR_KEYS; key++) {
		v = pr_value(key);
		if (m_update(fd, &key, &v, BPF_ANY))
			violation("handover: insert of key %u failed", key);
	}
	if (rcu_multi_thread)
		violation("handover: a fresh process is already multi-threaded");
	for (uint64_t i = 0; i < 2 * runs; i++) {
		uint64_t x = rnd(&rng), r0;
		struct pr_ctx c = { .key = x % PR_KEYS, .op = (x >> 8) % 4 ? 1 : 0,
				    .val = pr_value((uint32_t)(x >> 16)) };

		if (i == runs / 2)
			pthread_create(&other.th, NULL, pr_runner_main, &other);
		r0 = userbpf_prog_run(s.prog, &c);
		if (c.op == 0 && r0 != PR_ABSENT && !pr_value_ok(r0))
			violation("handover: lookup of key %u read %#" PRIx64, c.key, r0);
		if (c.op == 1 && r0 != 0)
			violation("handover: update of key %u returned %d", c.key, (int)r0);
	}
	pthread_join(other.th, NULL);
	if (!rcu_multi_thread)
		violation("handover: a second thread ran, yet the process is single-threaded");
	found = calloc(PR_KEYS, sizeof(*found));
	for (int e = m_next(fd, NULL, &next); !e && found; e = m_next(fd, &key, &next)) {
		key = next;
		if (key >= PR_KEYS || found[key]++ || ++n > PR_KEYS) {
			violation("handover: the walk gave key %u (%d keys)", key, n);
			break;
		}
		if (m_lookup(fd, &key, &v) || !pr_value_ok(v))
			violation("handover: key %u holds %#" PRIx64, key, v);
	}
	free(found);
	userbpf_prog_free(s.prog);
	close(fd);
	return atomic_load(&violations) != 0;
}

static void run_handover(unsigned int rounds, uint64_t runs, uint64_t seed)
{
	for (unsigned int r = 0; r < rounds; r++) {
		int status = 0;
		pid_t pid = fork();

		if (pid == 0)
			_exit(handover_child(seed + r, runs));
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			violation("handover: round %u failed (status %#x)", r, status);
			return;
		}
	}
}

/* Maps of maps: programs look an inner map up through the outer one and read its one value,
 * while this thread keeps putting fresh inner maps in the slots (whose fds it closes at once, so
 * the outer map holds the only reference) and deleting slots: a replaced inner map is freed
 * while programs may still be reading it, unless their read section keeps it (prog_needs_rcu).
 * Every inner map's value checks itself, so a read of freed or reused memory shows. */
#define MIM_SLOTS 4

static void *mim_runner_main(void *arg)
{
	struct pr_thread *t = arg;
	uint64_t rng = t->s->seed * 37 + t->tid;

	for (uint64_t n = 0; n < t->s->runs_per_thread; n++) {
		struct pr_ctx c = { .key = (uint32_t)(rnd(&rng) % MIM_SLOTS) };
		uint64_t r0 = userbpf_prog_run(t->s->prog, &c);

		if (r0 != PR_ABSENT && !pr_value_ok(r0))
			violation("map-in-map race: slot %u's inner map read %#" PRIx64, c.key, r0);
	}
	return NULL;
}

/* A fresh inner map (an array of one value) holding a self-checking value; -1 on failure. */
static int mim_inner(uint64_t *rng)
{
	uint64_t v = pr_value((uint32_t)rnd(rng));
	uint32_t zero = 0;
	int fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1), e;

	if (fd < 0) {
		violation("map-in-map race: inner create: %s", ename(errno));
		return -1;
	}
	if ((e = m_update(fd, &zero, &v, BPF_ANY))) {
		violation("map-in-map race: inner update: %s", ename(e));
		close(fd);
		return -1;
	}
	return fd;
}

static void run_mim_race(uint32_t type, unsigned int nrunners, uint64_t ops, uint64_t seed)
{
	struct pr_state s = { .runs_per_thread = ops / 2 / nrunners, .seed = seed };
	struct pr_thread ts[MAX_THREADS];
	uint64_t rng = seed ^ 0xbeef;
	int tmpl = mim_inner(&rng), outer = -1, err;
	union bpf_attr a;
	unsigned int t;

	if (tmpl < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = MIM_SLOTS;
	a.inner_map_fd = (uint32_t)tmpl;
	outer = bpf(BPF_MAP_CREATE, &a, sizeof(a));
	close(tmpl);
	if (outer < 0) {
		violation("map-in-map race: outer create: %s", ename(errno));
		return;
	}
	{
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, offsetof(struct pr_ctx, key)),
			BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
			BPF_LD_MAP_FD(BPF_REG_1, outer),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_MOV64_IMM(BPF_REG_6, (int32_t)(PR_ABSENT & 0xffffffff)),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 6),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
			BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), /* key 0 of a 1-entry array */
			BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0),
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
			BPF_EXIT_INSN(),
		};
		struct userbpf_prog_load_opts o = { .sz = sizeof(o),
						    .ctx_size = sizeof(struct pr_ctx),
						    .map_helpers = true };

		err = userbpf_prog_load_ext(insns, sizeof(insns) / sizeof(insns[0]), &o, &s.prog);
	}
	if (err) {
		violation("map-in-map race: load: %s", ename(-err));
		close(outer);
		return;
	}
	for (t = 0; t < nrunners; t++) {
		ts[t] = (struct pr_thread){ .s = &s, .tid = t };
		pthread_create(&ts[t].th, NULL, mim_runner_main, &ts[t]);
	}
	for (uint64_t n = 0; n < ops / 2 / 16; n++) {
		uint64_t x = rnd(&rng);
		uint32_t key = (uint32_t)(x % MIM_SLOTS), fd;
		int inner, e;

		if ((x >> 8) % 4 == 0) {
			e = m_delete(outer, &key);
			if (e && e != ENOENT)
				violation("map-in-map race: delete: %s", ename(e));
			continue;
		}
		inner = mim_inner(&rng);
		if (inner < 0)
			break;
		fd = (uint32_t)inner;
		e = m_update(outer, &key, &fd, BPF_ANY);
		if (e)
			violation("map-in-map race: update: %s", ename(e));
		close(inner); /* the outer map holds it now */
	}
	for (t = 0; t < nrunners; t++)
		pthread_join(ts[t].th, NULL);
	userbpf_prog_free(s.prog);
	close(outer);
}

/* ---------------------------------------------------------------------------------------------- */

/* ---- pin race ---- */

#define PIN_NAMES 4
#define PIN_MAGIC 0x5eed5eed5eedull

static char pin_dir[64];

struct pin_worker {
	pthread_t tid;
	uint64_t seed, ops;
};

static const char *pin_name(char *buf, size_t size, uint64_t r)
{
	snprintf(buf, size, "%s/p%u", pin_dir, (unsigned int)(r % PIN_NAMES));
	return buf;
}

static void *pin_main(void *arg)
{
	struct pin_worker *w = arg;
	char a[96], b[96];

	for (uint64_t i = 0; i < w->ops; i++) {
		uint64_t r = rnd(&w->seed);
		union bpf_attr at;
		int fd, rc;

		memset(&at, 0, sizeof(at));
		switch (r >> 60 & 3) {
		case 0: { /* a new map, pinned */
			uint32_t key = 0;
			uint64_t v = PIN_MAGIC;

			fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
			if (fd < 0) {
				violation("pin-race: map create: %s", strerror(errno));
				break;
			}
			at.map_fd = (uint32_t)fd;
			at.key = (uint64_t)(uintptr_t)&key;
			at.value = (uint64_t)(uintptr_t)&v;
			if (bpf(BPF_MAP_UPDATE_ELEM, &at, sizeof(at)))
				violation("pin-race: update: %s", strerror(errno));
			memset(&at, 0, sizeof(at));
			at.pathname = (uint64_t)(uintptr_t)pin_name(a, sizeof(a), r);
			at.bpf_fd = (uint32_t)fd;
			rc = bpf(BPF_OBJ_PIN, &at, sizeof(at));
			if (rc && errno != EEXIST)
				violation("pin-race: pin %s: %s", a, strerror(errno));
			close(fd);
			break;
		}
		case 1: { /* got back: a map of the phase, its value intact */
			uint32_t key = 0;
			uint64_t v = 0;

			at.pathname = (uint64_t)(uintptr_t)pin_name(a, sizeof(a), r);
			fd = bpf(BPF_OBJ_GET, &at, sizeof(at));
			if (fd < 0) {
				if (errno != ENOENT)
					violation("pin-race: get %s: %s", a, strerror(errno));
				break;
			}
			memset(&at, 0, sizeof(at));
			at.map_fd = (uint32_t)fd;
			at.key = (uint64_t)(uintptr_t)&key;
			at.value = (uint64_t)(uintptr_t)&v;
			if (bpf(BPF_MAP_LOOKUP_ELEM, &at, sizeof(at)) || v != PIN_MAGIC)
				violation("pin-race: %s's map: lookup %s, value 0x%" PRIx64, a,
					  strerror(errno), v);
			close(fd);
			break;
		}
		case 2: /* unpinned */
			if (unlink(pin_name(a, sizeof(a), r)) && errno != ENOENT)
				violation("pin-race: unlink %s: %s", a, strerror(errno));
			break;
		default: /* renamed, maybe over another pin */
			if (rename(pin_name(a, sizeof(a), r), pin_name(b, sizeof(b), r >> 8)) &&
			    errno != ENOENT)
				violation("pin-race: rename %s %s: %s", a, b, strerror(errno));
			break;
		}
	}
	return NULL;
}

static void run_pin_race(unsigned int nthreads, uint64_t ops, uint64_t seed)
{
	struct pin_worker w[MAX_THREADS];
	union bpf_attr at;
	uint32_t base;
	char name[96];
	int fd;

	strcpy(pin_dir, "/tmp/userbpf-stress-pin-XXXXXX");
	if (!mkdtemp(pin_dir)) {
		violation("pin-race: mkdtemp: %s", strerror(errno));
		return;
	}
	/* maps made from now on have ids above this one's */
	fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	memset(&at, 0, sizeof(at));
	{
		struct bpf_map_info info;

		memset(&info, 0, sizeof(info));
		at.info.bpf_fd = (uint32_t)fd;
		at.info.info = (uint64_t)(uintptr_t)&info;
		at.info.info_len = sizeof(info);
		base = bpf(BPF_OBJ_GET_INFO_BY_FD, &at, sizeof(at)) ? 0 : info.id;
	}
	close(fd);
	for (unsigned int t = 0; t < nthreads; t++) {
		w[t].seed = seed * 977 + t + 1;
		w[t].ops = ops / nthreads;
		pthread_create(&w[t].tid, NULL, pin_main, &w[t]);
	}
	for (unsigned int t = 0; t < nthreads; t++)
		pthread_join(w[t].tid, NULL);
	for (unsigned int i = 0; i < PIN_NAMES; i++)
		unlink(pin_name(name, sizeof(name), i));
	if (rmdir(pin_dir))
		violation("pin-race: rmdir: %s", strerror(errno));
	memset(&at, 0, sizeof(at));
	at.start_id = base;
	if (!base || !bpf(BPF_MAP_GET_NEXT_ID, &at, sizeof(at)))
		violation("pin-race: map %u is alive with no pin and no fd left", at.next_id);
}

/* ---- attach race ---- */

#define AR_PROGS 6
#define AR_LINKS 8
#define AR_TCX_INGRESS 46u	/* (6.6's BPF_TCX_INGRESS) */
#define AR_F_BEFORE (1u << 3)

static struct {
	int cg[2], sockmap, skb[AR_PROGS], sk[2], tc[4];
	_Atomic int links[AR_LINKS]; /* cgroup or sockmap links; -1: none */
} ar;

static int ar_call(int cmd, union bpf_attr *at, const int *ok, int nok, const char *what)
{
	int rc = bpf(cmd, at, sizeof(*at));

	if (rc < 0) {
		for (int i = 0; i < nok; i++)
			if (errno == ok[i])
				return rc;
		violation("attach-race: %s: %s", what, strerror(errno));
	}
	return rc;
}

struct ar_worker {
	pthread_t tid;
	uint64_t seed, ops;
};

static void *ar_main(void *arg)
{
	/* what a race may answer: a mode or duplicate refusal (EPERM, EINVAL, EEXIST), nothing
	 * there (ENOENT), a link's slot taken (EBUSY), a closed or reused fd (EBADF, EINVAL),
	 * a detached link (ENOLINK), too many (E2BIG), a stale revision (ESTALE); an info of a
	 * closed fd (EBADFD, the kernel's answer) */
	static const int ok[] = { EPERM, EINVAL, ENOENT, EBUSY, EBADF, ENOLINK, E2BIG, ESTALE,
				  EBADFD, EEXIST };
	struct ar_worker *w = arg;

	for (uint64_t i = 0; i < w->ops; i++) {
		uint64_t r = rnd(&w->seed);
		int cg = ar.cg[r & 1], p = (int)(r >> 1 & 0xff) % AR_PROGS, li = (int)(r >> 9 & 7);
		uint32_t type = r >> 12 & 1 ? BPF_CGROUP_INET_EGRESS : BPF_CGROUP_INET_INGRESS;
		union bpf_attr at;
		int fd;

		memset(&at, 0, sizeof(at));
		switch (r >> 20 & 7) {
		case 0: /* attach, multi or not */
			at.target_fd = (uint32_t)cg;
			at.attach_bpf_fd = (uint32_t)ar.skb[p];
			at.attach_type = type;
			at.attach_flags = r >> 24 & 3 ? BPF_F_ALLOW_MULTI : 0;
			ar_call(BPF_PROG_ATTACH, &at, ok, 10, "attach");
			break;
		case 1: /* detach */
			at.target_fd = (uint32_t)cg;
			at.attach_bpf_fd = (uint32_t)ar.skb[p];
			at.attach_type = type;
			ar_call(BPF_PROG_DETACH, &at, ok, 10, "detach");
			break;
		case 2: { /* a link, cgroup or sockmap */
			int expect = -1;

			at.link_create.prog_fd = (uint32_t)(r >> 24 & 1 ? ar.sk[r >> 25 & 1]
								     : ar.skb[p]);
			at.link_create.target_fd = (uint32_t)(r >> 24 & 1 ? ar.sockmap : cg);
			at.link_create.attach_type = r >> 24 & 1 ? BPF_SK_SKB_STREAM_PARSER : type;
			fd = ar_call(BPF_LINK_CREATE, &at, ok, 10, "link create");
			if (fd >= 0 && !atomic_compare_exchange_strong(&ar.links[li], &expect, fd))
				close(fd);
			break;
		}
		case 3: { /* a link's close */
			fd = atomic_exchange(&ar.links[li], -1);
			if (fd >= 0)
				close(fd);
			break;
		}
		case 4: /* a link's update or detach (its fd may be closed meanwhile) */
			fd = atomic_load(&ar.links[li]);
			if (fd < 0)
				break;
			if (r >> 24 & 1) {
				at.link_detach.link_fd = (uint32_t)fd;
				ar_call(BPF_LINK_DETACH, &at, ok, 10, "link detach");
			} else {
				at.link_update.link_fd = (uint32_t)fd;
				at.link_update.new_prog_fd = (uint32_t)(r >> 25 & 1 ? ar.skb[p]
										     : ar.sk[0]);
				ar_call(BPF_LINK_UPDATE, &at, ok, 10, "link update");
			}
			break;
		case 5: { /* a link's info */
			uint8_t info[64];

			fd = atomic_load(&ar.links[li]);
			if (fd < 0)
				break;
			at.info.bpf_fd = (uint32_t)fd;
			at.info.info = (uint64_t)(uintptr_t)info;
			at.info.info_len = sizeof(info);
			ar_call(BPF_OBJ_GET_INFO_BY_FD, &at, ok, 10, "link info");
			break;
		}
		case 6:
			if (r >> 26 & 1) { /* sk_skb programs on the socket map */
				at.target_fd = (uint32_t)ar.sockmap;
				at.attach_bpf_fd = (uint32_t)ar.sk[r >> 24 & 1];
				at.attach_type = BPF_SK_SKB_STREAM_PARSER;
				ar_call(r >> 25 & 1 ? BPF_PROG_DETACH : BPF_PROG_ATTACH, &at, ok, 10,
					"sockmap attach");
				break;
			}
			/* tc programs on the loopback device's ingress (userbpf's bookkeeping: no
			 * packet runs them), first or last, or detached */
			at.target_fd = 1;
			at.attach_bpf_fd = (uint32_t)ar.tc[r >> 24 & 3];
			at.attach_type = AR_TCX_INGRESS;
			at.attach_flags = r >> 27 & 1 ? AR_F_BEFORE : 0;
			ar_call(r >> 25 & 1 ? BPF_PROG_DETACH : BPF_PROG_ATTACH, &at, ok, 10,
				"tcx attach");
			break;
		default: { /* a query: at most 64 programs, all live */
			uint32_t ids[80];

			at.query.target_fd = (uint32_t)cg;
			at.query.attach_type = type;
			at.query.query_flags = r >> 24 & 1 ? BPF_F_QUERY_EFFECTIVE : 0;
			at.query.prog_ids = (uint64_t)(uintptr_t)ids;
			at.query.prog_cnt = 80;
			if (!ar_call(BPF_PROG_QUERY, &at, ok, 10, "query") &&
			    at.query.prog_cnt > (at.query.query_flags ? 128u : 64u))
				violation("attach-race: %u programs listed", at.query.prog_cnt);
			break;
		}
		}
	}
	return NULL;
}

static int ar_load(uint32_t type)
{
	struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	union bpf_attr at;

	memset(&at, 0, sizeof(at));
	at.prog_type = type;
	at.insns = (uint64_t)(uintptr_t)p;
	at.insn_cnt = 2;
	at.license = (uint64_t)(uintptr_t)"GPL";
	return bpf(BPF_PROG_LOAD, &at, sizeof(at));
}

/* Returns 0 when the phase ran, 1 when it was skipped. */
static int run_attach_race(unsigned int nthreads, uint64_t ops, uint64_t seed)
{
	struct ar_worker w[MAX_THREADS];
	char own[5200], dir[2][4300];
	union bpf_attr at;
	uint32_t base;
	int fd;

	if (own_cgroup_dir(own, sizeof(own))) {
		printf("attach-race: skipped (no cgroup2 mount shows this process's cgroup)\n");
		return 1;
	}
	snprintf(dir[0], sizeof(dir[0]), "%.4000s/userbpf-stress-%d", own, (int)getpid());
	snprintf(dir[1], sizeof(dir[1]), "%.4200s/c", dir[0]);
	if (mkdir(dir[0], 0755) || mkdir(dir[1], 0755)) {
		printf("attach-race: skipped (cannot make a cgroup: %s)\n", strerror(errno));
		rmdir(dir[0]);
		return 1;
	}
	/* programs made from now on have ids above this one's */
	fd = ar_load(BPF_PROG_TYPE_SOCKET_FILTER);
	{
		struct bpf_prog_info info;

		memset(&info, 0, sizeof(info));
		memset(&at, 0, sizeof(at));
		at.info.bpf_fd = (uint32_t)fd;
		at.info.info = (uint64_t)(uintptr_t)&info;
		at.info.info_len = sizeof(info);
		base = fd >= 0 && !bpf(BPF_OBJ_GET_INFO_BY_FD, &at, sizeof(at)) ? info.id : 0;
	}
	close(fd);
	for (int c = 0; c < 2; c++)
		ar.cg[c] = open(dir[c], O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < AR_PROGS; i++)
		ar.skb[i] = ar_load(BPF_PROG_TYPE_CGROUP_SKB);
	for (int i = 0; i < 2; i++)
		ar.sk[i] = ar_load(BPF_PROG_TYPE_SK_SKB);
	for (int i = 0; i < 4; i++)
		ar.tc[i] = ar_load(BPF_PROG_TYPE_SCHED_CLS);
	ar.sockmap = map_create(BPF_MAP_TYPE_SOCKMAP, 4, 4, 4);
	for (int i = 0; i < AR_LINKS; i++)
		atomic_store(&ar.links[i], -1);
	for (unsigned int t = 0; t < nthreads; t++) {
		w[t].seed = seed * 1931 + t + 1;
		w[t].ops = ops / nthreads;
		pthread_create(&w[t].tid, NULL, ar_main, &w[t]);
	}
	for (unsigned int t = 0; t < nthreads; t++)
		pthread_join(w[t].tid, NULL);
	/* everything let go: the lists empty, no program of the phase alive */
	for (int i = 0; i < AR_LINKS; i++)
		if (atomic_load(&ar.links[i]) >= 0)
			close(atomic_load(&ar.links[i]));
	for (int c = 0; c < 2; c++)
		for (int t = 0; t < 2; t++)
			for (int i = 0; i < AR_PROGS; i++) {
				memset(&at, 0, sizeof(at));
				at.target_fd = (uint32_t)ar.cg[c];
				at.attach_bpf_fd = (uint32_t)ar.skb[i];
				at.attach_type = t ? BPF_CGROUP_INET_EGRESS
						   : BPF_CGROUP_INET_INGRESS;
				bpf(BPF_PROG_DETACH, &at, sizeof(at));
			}
	for (int c = 0; c < 2; c++)
		for (int t = 0; t < 2; t++) {
			memset(&at, 0, sizeof(at));
			at.query.target_fd = (uint32_t)ar.cg[c];
			at.query.attach_type = t ? BPF_CGROUP_INET_EGRESS : BPF_CGROUP_INET_INGRESS;
			if (bpf(BPF_PROG_QUERY, &at, sizeof(at)) || at.query.prog_cnt)
				violation("attach-race: %u programs left on cgroup %d (%s)",
					  at.query.prog_cnt, c, strerror(errno));
		}
	for (int i = 0; i < 4; i++) { /* the tcx list emptied too */
		memset(&at, 0, sizeof(at));
		at.target_fd = 1;
		at.attach_bpf_fd = (uint32_t)ar.tc[i];
		at.attach_type = AR_TCX_INGRESS;
		bpf(BPF_PROG_DETACH, &at, sizeof(at));
	}
	memset(&at, 0, sizeof(at));
	at.query.target_fd = 1;
	at.query.attach_type = AR_TCX_INGRESS;
	if (bpf(BPF_PROG_QUERY, &at, sizeof(at)) || at.query.prog_cnt)
		violation("attach-race: %u tc programs left (%s)", at.query.prog_cnt,
			  strerror(errno));
	for (int i = 0; i < AR_PROGS; i++)
		close(ar.skb[i]);
	for (int i = 0; i < 2; i++)
		close(ar.sk[i]);
	for (int i = 0; i < 4; i++)
		close(ar.tc[i]);
	close(ar.sockmap);
	for (int c = 1; c >= 0; c--) {
		close(ar.cg[c]);
		if (rmdir(dir[c]))
			violation("attach-race: rmdir %s: %s", dir[c], strerror(errno));
	}
	memset(&at, 0, sizeof(at));
	at.start_id = base;
	if (!base || !bpf(BPF_PROG_GET_NEXT_ID, &at, sizeof(at)))
		violation("attach-race: program %u is alive with no fd left", at.next_id);
	return 0;
}

static int passed, failed;

static void phase_end(const char *name, int before, uint64_t ops, double t0)
{
	double dt = now_sec() - t0;
	int bad = atomic_load(&violations) != before;

	if (bad)
		failed++;
	else
		passed++;
	printf("%s %-22s %9" PRIu64 " ops %7.3f s %8.3f Mops/s\n", bad ? "FAIL" : "ok  ", name, ops,
	       dt, dt > 0 ? ops / dt / 1e6 : 0.0);
}

static void usage(void)
{
	fprintf(stderr, "usage: stress [--quick] [--ops N] [--threads N] [--seed N] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t ops = 1000000, seed = 1;
	unsigned int nthreads = 4;
	static struct workload wls[] = {
		{ "hash/v8", BPF_MAP_TYPE_HASH, 2, 128, 128, 0 },
		{ "hash/v64", BPF_MAP_TYPE_HASH, 16, 128, 128, 0 },
		{ "array/v8", BPF_MAP_TYPE_ARRAY, 2, 128, 128, 0 },
	};
	/* Shares of the operation budget: the three workloads, then the close race and the
	 * program race (15% each). */
	static const unsigned int share[] = { 35, 25, 25 };
	double t_all = now_sec();
	uint64_t total = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			ops = 50000;
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else
			usage();
	}
	if (nthreads < 2 || nthreads > MAX_THREADS || ops < 1000)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("stress: %" PRIu64 " operations, %u threads, seed %" PRIu64 "\n", ops, nthreads,
	       seed);

	{ /* first: forks only while this process has no thread of its own */
		int before = atomic_load(&violations);
		double t0 = now_sec();
		unsigned int rounds = 20;
		uint64_t runs = ops / 20 / rounds;

		run_handover(rounds, runs, seed);
		phase_end("handover", before, rounds * runs * 3, t0);
		total += rounds * runs * 3;
	}
	for (unsigned int i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = run_workload(&wls[i], nthreads, ops * share[i] / 100, seed + i,
					  wls[i].type == BPF_MAP_TYPE_HASH);

		total += n;
		phase_end(wls[i].name, before, n, t0);
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();

		run_fill_race(nthreads);
		phase_end("fill-race", before, FILL_MAX * 2 * 5, t0);
		total += FILL_MAX * 2 * 5;
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 15 / 100;

		run_close_race(nthreads - 1, n, seed);
		phase_end("close-race", before, n, t0);
		total += n;
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 15 / 100;

		run_prog_race(BPF_MAP_TYPE_HASH, nthreads - 1, n, seed);
		phase_end("prog-race", before, n, t0);
		total += n;
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 15 / 100;

		run_prog_race(BPF_MAP_TYPE_LRU_HASH, nthreads - 1, n, seed + 1);
		phase_end("prog-race-lru", before, n, t0);
		total += n;
	}
	for (int k = 0; k < 2; k++) {
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 10 / 100;

		run_mim_race(k ? BPF_MAP_TYPE_HASH_OF_MAPS : BPF_MAP_TYPE_ARRAY_OF_MAPS,
			     nthreads - 1, n, seed + 2 + k);
		phase_end(k ? "mim-race-hash" : "mim-race-array", before, n, t0);
		total += n;
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 5 / 100;

		run_pin_race(nthreads, n, seed + 4);
		phase_end("pin-race", before, n, t0);
		total += n;
	}
	{
		int before = atomic_load(&violations);
		double t0 = now_sec();
		uint64_t n = ops * 5 / 100;

		if (!run_attach_race(nthreads, n, seed + 5)) {
			phase_end("attach-race", before, n, t0);
			total += n;
		}
	}
	printf("total %" PRIu64 " ops in %.3f s\n", total, now_sec() - t_all);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
