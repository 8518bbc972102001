/* Load-time benchmark: opening, verifying and loading each example object on userbpf against the
 * live kernel, in the same run, through the loader's backend (include/userbpf/loader.h).
 *
 * Rows per object (build/examples/NAME.bpf.o, found through LOADER_OBJ_DIR):
 *   load/NAME/open     parse the ELF only (no backend): the loader's own cost, one side
 *   load/NAME/full     open + create maps + BPF_PROG_LOAD every program + close, per backend,
 *                      and Debian's libbpf doing the same into the kernel (bpf_object__open_file,
 *                      __load, __close) when the bench was built with it (HAVE_LIBBPF)
 *   load/NAME/prog     BPF_PROG_LOAD (verifier + preparation) + close of the relocated first
 *                      program alone, maps already created, per backend
 * One operation is one object (or program); rates are loads per second, so the ratio is how many
 * times faster userbpf loads than the kernel.  The kernel side is "unavailable" without bpf(2).
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf/loader.h>
#ifdef HAVE_LIBBPF
#include <bpf/libbpf.h>
#endif

#include "bench.h"

#define OBJ(n) LOADER_OBJ_DIR "/examples/" n ".bpf.o"

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

struct load_ctx {
	const char *path;
	userbpf_bpf_fn bpf;
	struct userbpf_object *obj; /* prog rows: a loaded object */
	struct userbpf_program *prog;
};

static int open_obj(struct load_ctx *c, struct userbpf_object **obj)
{
	struct userbpf_object_opts o = {.sz = sizeof(o), .bpf = c->bpf};

	return userbpf_object_open_file(c->path, &o, obj);
}

static uint64_t op_open(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct load_ctx *c = ctx;
	uint64_t failed = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct userbpf_object *obj;

		if (open_obj(c, &obj))
			failed++;
		else
			userbpf_object_close(obj);
	}
	return failed;
}

static uint64_t op_full(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct load_ctx *c = ctx;
	uint64_t failed = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct userbpf_object *obj;

		if (open_obj(c, &obj)) {
			failed++;
			continue;
		}
		failed += userbpf_object_load(obj) != 0;
		userbpf_object_close(obj);
	}
	return failed;
}

static uint64_t op_prog(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct load_ctx *c = ctx;
	uint64_t failed = 0;

	for (uint64_t i = 0; i < n; i++) {
		union bpf_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.prog_type = userbpf_program_type(c->prog);
		attr.expected_attach_type = userbpf_program_expected_attach_type(c->prog);
		attr.insn_cnt = (uint32_t)userbpf_program_insn_cnt(c->prog);
		attr.insns = (uint64_t)(uintptr_t)userbpf_program_insns(c->prog);
		attr.license = (uint64_t)(uintptr_t)userbpf_object_license(c->obj);
		fd = c->bpf(BPF_PROG_LOAD, &attr, sizeof(attr));
		if (fd < 0)
			failed++;
		else
			close(fd);
	}
	return failed;
}

#ifdef HAVE_LIBBPF
/* The reference loader: libbpf into the kernel, the whole object per operation. */
static uint64_t op_libbpf_full(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct load_ctx *c = ctx;
	uint64_t failed = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct bpf_object *obj = bpf_object__open_file(c->path, NULL);

		if (libbpf_get_error(obj)) {
			failed++;
			continue;
		}
		failed += bpf_object__load(obj) != 0;
		bpf_object__close(obj);
	}
	return failed;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}
#endif

/* A loaded object for the prog rows; 0 or -1 (the side is then unavailable). */
static int prepare(struct load_ctx *c)
{
	if (open_obj(c, &c->obj))
		return -1;
	if (userbpf_object_load(c->obj)) {
		userbpf_object_close(c->obj);
		c->obj = NULL;
		return -1;
	}
	c->prog = userbpf_object_program(c->obj, 0);
	return 0;
}

static void loader_rows(const char *name, const char *path)
{
	struct load_ctx u = {.path = path, .bpf = bpf}, k = {.path = path, .bpf = kernel_bpf};
	int have_k = !prepare(&k), have_u = !prepare(&u);
	char row[64];

	snprintf(row, sizeof(row), "load/%s/open", name);
	if (bench_selected(row)) {
		struct bench_side s[1] = {{"userbpf", op_open, &u}};

		bench_row(row, s, 1, 1);
	}
	snprintf(row, sizeof(row), "load/%s/full", name);
	if (bench_selected(row)) {
		struct bench_side s[3] = {{"userbpf", have_u ? op_full : NULL, &u},
					  {"kernel", have_k ? op_full : NULL, &k},
#ifdef HAVE_LIBBPF
					  {"libbpf", have_k ? op_libbpf_full : NULL, &k},
#endif
		};

		bench_row(row, s, sizeof(s) / sizeof(s[0]), 1);
	}
	snprintf(row, sizeof(row), "load/%s/prog", name);
	if (bench_selected(row)) {
		struct bench_side s[2] = {{"userbpf", have_u ? op_prog : NULL, &u},
					  {"kernel", have_k ? op_prog : NULL, &k}};

		bench_row(row, s, 2, 1);
	}
	userbpf_object_close(u.obj);
	userbpf_object_close(k.obj);
}

BENCH(loader)
{
#ifdef HAVE_LIBBPF
	libbpf_set_print(quiet);
#endif
	loader_rows("sockex1", OBJ("sockex1"));
	loader_rows("xdp_portfilter", OBJ("xdp_portfilter"));
	loader_rows("globals", OBJ("globals"));
}
