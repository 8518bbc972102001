/* trampoline.c — the kernel functions userbpf can run tracing programs around: the kernel's BPF
 * test functions (net/bpf/test_run.c's bpf_fentry_test1() ... and bpf_modify_return_test()),
 * which BPF_PROG_TEST_RUN of a fentry, fexit or fmod_ret program calls.
 *
 * A tracing link joins the attachments of the function its program was loaded for.  A call of a
 * test function runs them as the kernel's trampoline does: every fentry program, then the
 * fmod_ret ones until one returns non-zero (that value is then the function's, which does not
 * run), then the function, then every fexit program with the return value after the
 * arguments; each kind newest first, as the kernel adds them to its lists.  Their ctx is the
 * arguments, a u64 each, and below it what the kernel's trampoline keeps there for the helpers
 * that read it: the argument count (with ARGS_RET: the return value follows them), the
 * function's address and the link's cookie.
 *
 * Functions that are not test functions keep their attachments (the kernel would run them when
 * the function runs, which it never does here).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/helpers.h"
#include "prog/link.h"
#include "prog/run.h"

#define MAX_TRAMP_LINKS 38 /* the kernel's BPF_MAX_TRAMP_LINKS (x86-64) */

static pthread_mutex_t tramp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bpf_link *attached; /* every tracing link, newest first */

static bool same_target(const struct bpf_link *a, const struct bpf_prog *p)
{
	return a->prog->attach.btf_id == p->attach.btf_id;
}

int trampoline_link(struct bpf_link *link)
{
	u32 n = 0;

	pthread_mutex_lock(&tramp_lock);
	for (struct bpf_link *l = attached; l; l = l->next) {
		if (!same_target(l, link->prog))
			continue;
		if (l->prog == link->prog) {
			pthread_mutex_unlock(&tramp_lock);
			return -EBUSY;
		}
		n++;
	}
	if (n >= MAX_TRAMP_LINKS) {
		pthread_mutex_unlock(&tramp_lock);
		return -E2BIG;
	}
	link->next = attached;
	attached = link;
	pthread_mutex_unlock(&tramp_lock);
	return 0;
}

void trampoline_unlink(struct bpf_link *link)
{
	pthread_mutex_lock(&tramp_lock);
	for (struct bpf_link **pp = &attached; *pp; pp = &(*pp)->next)
		if (*pp == link) {
			*pp = link->next;
			break;
		}
	pthread_mutex_unlock(&tramp_lock);
}

/* ---- the test functions ---- */

struct bpf_fentry_test_t {
	struct bpf_fentry_test_t *a;
};

/* A test function: its name, argument count and body (on the arguments as u64s; an int
 * function's value as the register holds it, zero-extended). */
struct test_fn {
	const char *name;
	u8 nargs;
	u64 (*body)(const u64 *a);
};

static u64 int_ret(int v)
{
	return (u32)v;
}

static u64 test1(const u64 *a) { return int_ret((int)a[0] + 1); }
static u64 test2(const u64 *a) { return int_ret((int)((int)a[0] + a[1])); }
static u64 test3(const u64 *a) { return int_ret((int)((char)a[0] + (int)a[1] + a[2])); }
static u64 test4(const u64 *a)
{
	return int_ret((int)((long)a[0] + (char)a[1] + (int)a[2] + a[3]));
}
static u64 test5(const u64 *a)
{
	return int_ret((int)(a[0] + (long)a[1] + (short)a[2] + (int)a[3] + a[4]));
}
static u64 test6(const u64 *a)
{
	return int_ret((int)(a[0] + (long)a[1] + (short)a[2] + (int)a[3] + (long)a[4] + a[5]));
}
static u64 test7(const u64 *a) { return int_ret((int)(long)a[0]); }
static u64 test8(const u64 *a)
{
	return int_ret((int)(long)((struct bpf_fentry_test_t *)(uintptr_t)a[0])->a);
}
static u64 test9(const u64 *a) { return *(u32 *)(uintptr_t)a[0]; }
static u64 test10(const u64 *a) { return int_ret((int)(long)a[0]); }
static u64 modify_return_test(const u64 *a)
{
	int *b = (int *)(uintptr_t)a[1];

	*b += 1;
	return int_ret((int)a[0] + *b);
}
static u64 modify_return_test2(const u64 *a)
{
	int *b = (int *)(uintptr_t)a[1];

	*b += 1;
	return int_ret((int)((int)a[0] + *b + (short)a[2] + (int)a[3] + (long)a[4] + (char)a[5] +
			     (int)a[6]));
}

static const struct test_fn test_fns[] = {
	{ "bpf_fentry_test1", 1, test1 },	{ "bpf_fentry_test2", 2, test2 },
	{ "bpf_fentry_test3", 3, test3 },	{ "bpf_fentry_test4", 4, test4 },
	{ "bpf_fentry_test5", 5, test5 },	{ "bpf_fentry_test6", 6, test6 },
	{ "bpf_fentry_test7", 1, test7 },	{ "bpf_fentry_test8", 1, test8 },
	{ "bpf_fentry_test9", 1, test9 },	{ "bpf_fentry_test10", 1, test10 },
	{ "bpf_modify_return_test", 2, modify_return_test },
	{ "bpf_modify_return_test2", 7, modify_return_test2 },
};

/* What a program of one call runs with. */
struct run {
	struct bpf_prog *prog;
	u64 cookie;
};

/* The programs of kind attached to f (a reference each), newest first, into runs (room for
 * MAX_TRAMP_LINKS): how many. */
static u32 attached_to(const struct test_fn *f, u32 kind, struct run *runs)
{
	u32 n = 0;

	pthread_mutex_lock(&tramp_lock);
	for (struct bpf_link *l = attached; l && n < MAX_TRAMP_LINKS; l = l->next)
		if (l->attach_type == kind && !strcmp(l->prog->attach.name, f->name)) {
			obj_get(&l->prog->obj);
			runs[n].prog = l->prog;
			runs[n++].cookie = l->cookie;
		}
	pthread_mutex_unlock(&tramp_lock);
	return n;
}

/* One program's run on the frame (ctx at frame + TRAMP_CTX), its r0. */
static u64 run_one(const struct run *r, u64 *frame)
{
	u64 args[5] = { (uintptr_t)(frame + TRAMP_CTX) }, r0;
	u32 duration;

	frame[TRAMP_CTX - 3] = r->cookie;
	frame[TRAMP_CTX - 2] = r->prog->attach.addr;
	prog_repeat(r->prog, args, 1, &r0, &duration);
	return r0;
}

static void put_runs(struct run *runs, u32 n)
{
	for (u32 i = 0; i < n; i++)
		obj_put(&runs[i].prog->obj);
}

/* A call of f on args through its trampoline: its return value. */
static u64 call_traced(const struct test_fn *f, const u64 *args)
{
	struct run runs[MAX_TRAMP_LINKS];
	u64 frame[TRAMP_CTX + ATTACH_MAX_ARGS + 1] = { 0 }, *ctx = frame + TRAMP_CTX, ret = 0;
	bool modified = false;
	u32 n;

	memcpy(ctx, args, f->nargs * sizeof(u64));
	n = attached_to(f, BPF_TRACE_FENTRY, runs);
	frame[TRAMP_CTX - 1] = f->nargs;
	for (u32 i = 0; i < n; i++)
		run_one(&runs[i], frame);
	put_runs(runs, n);
	n = attached_to(f, BPF_MODIFY_RETURN, runs);
	frame[TRAMP_CTX - 1] = f->nargs | TRAMP_ARGS_RET;
	for (u32 i = 0; i < n && !modified; i++) {
		ctx[f->nargs] = run_one(&runs[i], frame);
		modified = ctx[f->nargs] != 0;
	}
	put_runs(runs, n);
	ret = modified ? ctx[f->nargs] : f->body(ctx);
	ctx[f->nargs] = ret;
	n = attached_to(f, BPF_TRACE_FEXIT, runs);
	for (u32 i = 0; i < n; i++)
		run_one(&runs[i], frame);
	put_runs(runs, n);
	return ret;
}

static u64 call(u32 i, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5, u64 a6)
{
	const u64 args[7] = { a0, a1, a2, a3, a4, a5, a6 };

	return call_traced(&test_fns[i], args);
}

#define P(x) ((u64)(uintptr_t)(x))

int trampoline_run_fentry_tests(void)
{
	struct bpf_fentry_test_t arg = { NULL };
	u32 zero = 0;

	/* (as the kernel calls them: int results compared as ints) */
	if ((int)call(0, 1, 0, 0, 0, 0, 0, 0) != 2 || (int)call(1, 2, 3, 0, 0, 0, 0, 0) != 5 ||
	    (int)call(2, 4, 5, 6, 0, 0, 0, 0) != 15 || (int)call(3, 7, 8, 9, 10, 0, 0, 0) != 34 ||
	    (int)call(4, 11, 12, 13, 14, 15, 0, 0) != 65 ||
	    (int)call(5, 16, 17, 18, 19, 20, 21, 0) != 111 ||
	    (int)call(6, 0, 0, 0, 0, 0, 0, 0) != 0 || (int)call(7, P(&arg), 0, 0, 0, 0, 0, 0) ||
	    (u32)call(8, P(&zero), 0, 0, 0, 0, 0, 0) || (int)call(9, 0, 0, 0, 0, 0, 0, 0))
		return -EFAULT;
	return 0;
}

u32 trampoline_run_modify_return_tests(void)
{
	u16 side_effects = 0, ret;
	int b = 2;

	ret = (u16)call(10, 1, P(&b), 0, 0, 0, 0, 0);
	side_effects += b != 2;
	b = 2;
	ret = (u16)(ret + (u16)call(11, 1, P(&b), 3, 4, 5, 6, 7));
	side_effects += b != 2;
	return (u32)side_effects << 16 | ret;
}
