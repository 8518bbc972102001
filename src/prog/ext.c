/* The embedding API: extension programs (USERBPF_PROG_TYPE_EXT) whose context is the
 * application's own memory and whose helpers the application registers (include/userbpf.h).
 *
 * Loading: the options are checked in libbpf's OPTS manner (sz, zero tail), the helper
 * descriptions are turned into kernel-style prototypes (struct bpf_func_proto) in a table indexed
 * by helper id, and the program goes through the same path as BPF_PROG_LOAD after its attr checks
 * (prog_verify_install(): the verifier, the interpreter, an fd).  The handle holds one reference
 * on the program and its fd; running it jumps straight into the JIT's code unless one of its maps
 * needs a read section (bpf_map_ops.prog_needs_rcu), or runs the interpreter.
 *
 * Invariants: a loaded extension program's ext_mem holds, in one allocation, the interpreter's
 * helper table (nr_ext_helpers function pointers, NULL for unregistered ids), then the
 * prototypes (nr_ext_helpers entries, func NULL for unregistered ids), then the helper names;
 * nothing in it points at the caller's memory.  A handle's prog and interp stay valid until
 * userbpf_prog_free(), whatever happens to the fd.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <userbpf.h>

#include "exec/helpers.h"
#include "exec/interp.h"
#include "exec/jit.h"
#include "map/map.h"
#include "prog/prog.h"
#include "syscall.h"
#include "prog/run.h"
#include "rcu.h"

#define EXT_MAX_INSNS 1000000u
#define EXT_NAME_MAX 64		/* longest helper name with its NUL */
#define EXT_TEST_CTX_MAX 65536u	/* ctx_size_in limit of BPF_PROG_TEST_RUN (the kernel: a page) */

/* The JIT's entry seen as returning r0 only: it returns struct jit_ret in rax:rdx, so r0 is
 * exactly what a function returning a u64 leaves in rax (rdx is call-clobbered either way).
 * Called through this type, userbpf_prog_run()'s hot path is a tail jump into the code. */
typedef uint64_t (*jit_r0_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5);

struct userbpf_prog {
	/* The entry when it needs no read section and run statistics are off, else NULL (the
	 * slow path): set by ext_fast_entry() (atomics: runs read it as stats come and go). */
	jit_r0_fn fast_entry;
	u64 ctx_size;				/* (first: the hot path reads one cache line) */
	struct bpf_prog *prog;			/* one reference held */
	const struct interp_prog *interp;	/* prog->interp */
	jit_entry_fn entry;			/* prog->jit's code, called directly; or NULL */
	bool needs_rcu;				/* run inside a read section */
	int fd;
	struct userbpf_prog *prev, *next;	/* every handle, for prog_stats_switch() */
};

/* Every live handle, so that turning run statistics on can take them off the fast path (as
 * the kernel's static key patches its runs) instead of the fast path testing for them. */
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct userbpf_prog *handles;

/* h's fast entry for whether statistics are on (handles_lock held). */
static void ext_fast_entry(struct userbpf_prog *h, bool stats)
{
	jit_r0_fn fast = h->needs_rcu || !h->entry || stats
				 ? NULL
				 : (jit_r0_fn)(void (*)(void))h->entry;

	__atomic_store_n(&h->fast_entry, fast, __ATOMIC_RELAXED);
}

void prog_stats_switch(bool on)
{
	pthread_mutex_lock(&handles_lock);
	for (struct userbpf_prog *h = handles; h; h = h->next)
		ext_fast_entry(h, on);
	pthread_mutex_unlock(&handles_lock);
}

#define offsetofend(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

const struct bpf_func_proto *prog_helper_proto(const struct bpf_prog *prog, u32 func_id)
{
	if (prog->type != USERBPF_PROG_TYPE_EXT)
		return bpf_helper_proto_attach(func_id, prog->type, prog->expected_attach_type);
	if (func_id >= prog->nr_ext_helpers || !prog->ext_helpers[func_id].func)
		return NULL;
	return &prog->ext_helpers[func_id];
}

/* Copies the caller's options (sz bytes of a struct of possibly another version) into *o:
 * fields beyond sz stay zero, bytes beyond the fields we know must be zero. */
static int opts_copy(const struct userbpf_prog_load_opts *opts,
		     struct userbpf_prog_load_opts *o)
{
	const size_t known = offsetofend(struct userbpf_prog_load_opts, name);

	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if (opts->sz < sizeof(opts->sz))
		return -EINVAL;
	for (size_t i = known; i < opts->sz; i++)
		if (((const u8 *)opts)[i])
			return -EINVAL;
	memcpy(o, opts, opts->sz < known ? opts->sz : known);
	return 0;
}

static bool is_mem_arg(enum userbpf_arg_type t)
{
	return t == USERBPF_ARG_PTR_TO_MEM || t == USERBPF_ARG_PTR_TO_UNINIT_MEM;
}

static bool is_size_arg(enum userbpf_arg_type t)
{
	return t == USERBPF_ARG_CONST_SIZE || t == USERBPF_ARG_CONST_SIZE_OR_ZERO;
}

/* A well-formed prototype: known types, no argument after an unused one, every memory argument
 * followed by its size and every size preceded by its memory (the kernel's check_func_proto). */
static int helper_check(const struct userbpf_helper *h)
{
	bool unused = false;

	if (!h->fn || h->id == 0 || h->id > USERBPF_HELPER_ID_MAX ||
	    (h->flags & ~USERBPF_HELPER_F_UNWIND))
		return -EINVAL;
	if (h->name && strnlen(h->name, EXT_NAME_MAX) >= EXT_NAME_MAX)
		return -EINVAL;
	if ((unsigned)h->ret_type > USERBPF_RET_VOID)
		return -EINVAL;
	for (int i = 0; i < 5; i++) {
		enum userbpf_arg_type t = h->arg_types[i];

		if ((unsigned)t > USERBPF_ARG_PTR_TO_CTX)
			return -EINVAL;
		if (t == USERBPF_ARG_NONE) {
			unused = true;
			continue;
		}
		if (unused)
			return -EINVAL;
		if (is_mem_arg(t) && (i == 4 || !is_size_arg(h->arg_types[i + 1])))
			return -EINVAL;
		if (is_size_arg(t) && (i == 0 || !is_mem_arg(h->arg_types[i - 1])))
			return -EINVAL;
	}
	return 0;
}

static enum bpf_arg_type arg_type_of(enum userbpf_arg_type t)
{
	switch (t) {
	case USERBPF_ARG_ANYTHING:
		return ARG_ANYTHING;
	case USERBPF_ARG_PTR_TO_MEM:
		return ARG_PTR_TO_MEM;
	case USERBPF_ARG_PTR_TO_UNINIT_MEM:
		return ARG_PTR_TO_UNINIT_MEM;
	case USERBPF_ARG_CONST_SIZE:
		return ARG_CONST_SIZE;
	case USERBPF_ARG_CONST_SIZE_OR_ZERO:
		return ARG_CONST_SIZE_OR_ZERO;
	case USERBPF_ARG_PTR_TO_CTX:
		return ARG_PTR_TO_CTX;
	case USERBPF_ARG_NONE:
		break;
	}
	return ARG_DONTCARE;
}

/* Builds prog's helper tables (ext_mem) from the options. */
static int ext_helpers_build(struct bpf_prog *prog, const struct userbpf_prog_load_opts *o)
{
	static const u32 map_ids[] = { BPF_FUNC_map_lookup_elem, BPF_FUNC_map_update_elem,
				       BPF_FUNC_map_delete_elem };
	struct bpf_func_proto *protos;
	bpf_helper_fn *fns;
	u32 n = 0, unwind = 0;
	size_t size;
	char *names;
	int err;

	if (o->nr_helpers && !o->helpers)
		return -EINVAL;
	/* ids are distinct and at most USERBPF_HELPER_ID_MAX: more entries cannot be valid */
	if (o->nr_helpers > USERBPF_HELPER_ID_MAX)
		return -EINVAL;
	for (u32 i = 0; i < o->nr_helpers; i++) {
		const struct userbpf_helper *h = &o->helpers[i];

		err = helper_check(h);
		if (err)
			return err;
		for (u32 j = 0; j < i; j++)
			if (o->helpers[j].id == h->id)
				return -EINVAL;
		if (h->flags & USERBPF_HELPER_F_UNWIND) {
			if (unwind)
				return -EINVAL;
			unwind = h->id;
		}
		if (h->id + 1 > n)
			n = h->id + 1;
	}
	if (o->map_helpers && n < BPF_FUNC_map_delete_elem + 1)
		n = BPF_FUNC_map_delete_elem + 1;
	if (!n)
		return 0;

	/* n <= 256 entries and names of < EXT_NAME_MAX bytes: no overflow */
	size = n * sizeof(*fns) + n * sizeof(*protos) + (size_t)o->nr_helpers * EXT_NAME_MAX;
	fns = calloc(1, size);
	if (!fns)
		return -ENOMEM;
	protos = (struct bpf_func_proto *)(fns + n);
	names = (char *)(protos + n);

	if (o->map_helpers) {
		for (u32 i = 0; i < ARRAY_SIZE(map_ids); i++) {
			const struct bpf_func_proto *p =
				bpf_helper_proto(map_ids[i], BPF_PROG_TYPE_SOCKET_FILTER);

			protos[map_ids[i]] = *p;
			fns[map_ids[i]] = p->func;
		}
	}
	for (u32 i = 0; i < o->nr_helpers; i++) {
		const struct userbpf_helper *h = &o->helpers[i];
		struct bpf_func_proto *p = &protos[h->id];

		memset(p, 0, sizeof(*p));
		if (h->name)
			snprintf(names, EXT_NAME_MAX, "%s", h->name);
		else
			snprintf(names, EXT_NAME_MAX, "helper_%u", h->id);
		p->name = names;
		names += EXT_NAME_MAX;
		p->func = (bpf_helper_fn)h->fn;
		p->ret_type = h->ret_type == USERBPF_RET_VOID ? RET_VOID : RET_INTEGER;
		for (int a = 0; a < 5; a++)
			p->arg_type[a] = arg_type_of(h->arg_types[a]);
		fns[h->id] = p->func;
	}
	prog->ext_mem = fns;
	prog->ext_helpers = protos;
	prog->nr_ext_helpers = n;
	prog->ext_unwind_id = unwind;
	return 0;
}

int userbpf_prog_load_ext(const struct bpf_insn *insns, uint32_t cnt,
			  const struct userbpf_prog_load_opts *opts, struct userbpf_prog **out)
{
	struct userbpf_prog_load_opts o;
	struct userbpf_prog *h;
	struct bpf_prog *prog;
	union kernel_attr ka; /* (zero past our header's fields too) */
	int err, fd;

	if (!out)
		return -EINVAL;
	*out = NULL;
	err = opts_copy(opts, &o);
	if (err)
		return err;
	if (!insns)
		return -EINVAL;
	if (cnt == 0 || cnt > EXT_MAX_INSNS)
		return -E2BIG;

	memset(&ka, 0, sizeof(ka));
	if (o.name) {
		size_t len = strnlen(o.name, sizeof(ka.attr.prog_name));

		if (len >= sizeof(ka.attr.prog_name))
			return -EINVAL;
		memcpy(ka.attr.prog_name, o.name, len);
	}
	ka.attr.prog_type = USERBPF_PROG_TYPE_EXT;
	ka.attr.insn_cnt = cnt;
	ka.attr.insns = (uintptr_t)insns;
	ka.attr.license = (uintptr_t) "GPL";
	ka.attr.log_level = o.log_level;
	ka.attr.log_buf = (uintptr_t)o.log_buf;
	ka.attr.log_size = o.log_size;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	prog = calloc(1, sizeof(*prog));
	err = -ENOMEM;
	if (!prog)
		goto free_handle;
	prog->type = USERBPF_PROG_TYPE_EXT;
	prog->gpl_compatible = true; /* no GPL-only helper is offered anyway */
	prog->ctx_size = o.ctx_size;
	prog->ctx_writable = o.ctx_writable;
	err = obj_name_cpy(prog->name, ka.attr.prog_name, sizeof(ka.attr.prog_name));
	if (err)
		goto free_prog;
	prog->len = cnt;
	/* cnt <= 1e6: the size fits in 32 bits */
	prog->insns = malloc((size_t)cnt * sizeof(*insns));
	if (!prog->insns) {
		err = -ENOMEM;
		goto free_prog;
	}
	memcpy(prog->insns, insns, (size_t)cnt * sizeof(*insns));
	err = ext_helpers_build(prog, &o);
	if (err)
		goto free_prog;

	fd = prog_verify_install(prog, &ka.attr, NULL, 0); /* frees prog on failure */
	if (fd < 0) {
		err = fd;
		goto free_handle;
	}
	obj_get(&prog->obj);
	h->prog = prog;
	h->interp = prog->interp;
	h->entry = prog->jit ? jit_entry(prog->jit) : NULL;
	h->ctx_size = prog->ctx_size;
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		h->needs_rcu |= prog->used_maps[i]->ops->prog_needs_rcu;
	h->fd = fd;
	pthread_mutex_lock(&handles_lock);
	ext_fast_entry(h, prog_stats_on()); /* (a switch waits for the lock: sees h) */
	h->next = handles;
	if (handles)
		handles->prev = h;
	handles = h;
	pthread_mutex_unlock(&handles_lock);
	*out = h;
	return 0;

free_prog:
	free(prog->insns);
	free(prog->ext_mem);
	free(prog);
free_handle:
	free(h);
	return err;
}

/* Everything but the hot path: the interpreter, native code inside a read section, or any run
 * while run statistics are on (stats.h).  The section is taken only for map types that free
 * memory a program may point into after a grace period (bpf_map_ops.prog_needs_rcu); without
 * one there is nothing to protect, and the section's cost (a thread-local slot, the epoch
 * store) stays off every run. */
static __attribute__((noinline)) uint64_t prog_run_slow(const struct userbpf_prog *h, void *ctx)
{
	bool stats = prog_stats_on();
	u64 start = stats ? prog_clock_ns() : 0, args[5], r0 = 0;

	if (h->needs_rcu)
		rcu_read_lock();
	if (h->entry) {
		r0 = h->entry((uintptr_t)ctx, h->ctx_size, 0, 0, 0).r0;
	} else {
		args[0] = (uintptr_t)ctx;
		args[1] = h->ctx_size;
		args[2] = args[3] = args[4] = 0;
		interp_exec(h->interp, args, &r0);
	}
	if (h->needs_rcu)
		rcu_read_unlock();
	if (stats)
		prog_stats_add(h->prog, 1, prog_clock_ns() - start);
	return r0;
}

uint64_t userbpf_prog_run(const struct userbpf_prog *h, void *ctx)
{
	/* The hot path: native code that needs no read section needs no wrapper, and the call is
	 * a tail call. */
	jit_r0_fn fast = __atomic_load_n(&h->fast_entry, __ATOMIC_RELAXED);

	if (likely(fast))
		return fast((uintptr_t)ctx, h->ctx_size, 0, 0, 0);
	return prog_run_slow(h, ctx);
}

int userbpf_prog_fd(const struct userbpf_prog *h)
{
	return h ? h->fd : -EINVAL;
}

void userbpf_prog_free(struct userbpf_prog *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&handles_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&handles_lock);
	close(h->fd);
	obj_put(&h->prog->obj);
	free(h);
}

/* ---- BPF_PROG_TEST_RUN ---- */

/* The context is ctx_in (at most ctx_size bytes, the rest zero; bytes of ctx_in beyond ctx_size
 * must be zero: E2BIG, as bpf_ctx_init()); ctx_out gets it back after the last run (ENOSPC when
 * ctx_size_out is smaller, with ctx_size_out set to ctx_size).  There is no packet: data_in and
 * data_out must be unset.  repeat runs on the same ctx (0 means 1); retval is r0's low 32 bits;
 * duration the mean in ns.  flags and cpu must be 0. */
int test_run_ext(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	const u8 *in = u64_to_ptr(attr->test.ctx_in);
	u8 *out = u64_to_ptr(attr->test.ctx_out);
	u32 size = prog->ctx_size, repeat = attr->test.repeat, duration = 0;
	u64 args[5], r0 = 0;
	u8 *ctx = NULL;
	int err = 0;

	if (attr->test.data_in || attr->test.data_size_in || attr->test.data_out ||
	    attr->test.data_size_out || attr->test.flags || attr->test.cpu)
		return -EINVAL;
	if (attr->test.ctx_size_in > EXT_TEST_CTX_MAX)
		return -E2BIG;
	for (u32 i = size; i < attr->test.ctx_size_in; i++)
		if (in[i])
			return -E2BIG;
	if (size) {
		ctx = calloc(1, size);
		if (!ctx)
			return -ENOMEM;
		if (in)
			memcpy(ctx, in, attr->test.ctx_size_in < size ? attr->test.ctx_size_in : size);
	}
	args[0] = (uintptr_t)ctx;
	args[1] = size;
	args[2] = args[3] = args[4] = 0;

	prog_repeat(prog, args, repeat, &r0, &duration);

	if (out) {
		u32 n = attr->test.ctx_size_out < size ? attr->test.ctx_size_out : size;

		if (n)
			memcpy(out, ctx, n);
		if (n < size)
			err = -ENOSPC;
		uattr->test.ctx_size_out = size;
	}
	uattr->test.retval = (u32)r0;
	uattr->test.duration = duration;
	free(ctx);
	return err;
}
