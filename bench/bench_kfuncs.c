/* kfunc benchmark: the string kfuncs against the kernel's, in the same run.  The corpus program
 * xdp_string_kfuncs (tests/corpus/) makes one call per run, chosen by the packet; each side
 * runs it through BPF_PROG_TEST_RUN with n repeats, so an operation is one program run (the
 * call, and the program's few instructions around it) and the ratio is how many times faster
 * userbpf runs it than the kernel (below 1: slower).
 *
 * Rows:
 *   kfunc/strcmp-stack   bpf_strcmp() of two 32-byte stack copies of "hello"
 *   kfunc/strcmp-map     the same two strings in an array map's value
 *   kfunc/strlen-rodata  bpf_strlen() of a string literal (in .rodata)
 *   kfunc/strlen-null    bpf_strlen(NULL): -ERANGE before any read
 * userbpf reads strings on the program's stack and in array maps' values directly, others
 * through process_vm_readv() (README: Reads without faulting).
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "bench.h"

#define OBJ LOADER_OBJ_DIR "/tests/corpus/xdp_string_kfuncs.bpf.o"

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

struct kf_ctx {
	userbpf_bpf_fn bpf;
	struct userbpf_object *obj;
	int prog;
	unsigned char pkt[64];
};

/* The object loaded on c's backend, `strs` strings 0 and 1 "hello"; 0 or -1. */
static int prepare(struct kf_ctx *c)
{
	struct userbpf_object_opts o = {.sz = sizeof(o), .bpf = c->bpf};
	static char strs[16][32] = {"hello", "hello"};
	union bpf_attr a;
	unsigned int key = 0;

	if (userbpf_object_open_file(OBJ, &o, &c->obj) || userbpf_object_load(c->obj)) {
		userbpf_object_close(c->obj);
		c->obj = NULL;
		return -1;
	}
	c->prog = userbpf_program_fd(userbpf_object_program(c->obj, 0));
	memset(&a, 0, sizeof(a));
	a.map_fd = (unsigned int)userbpf_map_fd(userbpf_object_find_map(c->obj, "strs"));
	a.key = (unsigned long)&key;
	a.value = (unsigned long)strs;
	return c->bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) ? -1 : 0;
}

static uint64_t op_run(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct kf_ctx *c = ctx;
	uint64_t failed = 0;

	while (n) {
		union bpf_attr a;
		uint32_t r = n > (1u << 30) ? 1u << 30 : (uint32_t)n;

		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (unsigned int)c->prog;
		a.test.data_in = (unsigned long)c->pkt;
		a.test.data_size_in = sizeof(c->pkt);
		a.test.repeat = r;
		if (c->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)))
			failed += r;
		n -= r;
	}
	return failed;
}

BENCH(kfuncs)
{
	static const struct {
		const char *name;
		unsigned char op, a, b;
	} rows[] = {
		{"kfunc/strcmp-stack", 0, 32, 33},
		{"kfunc/strcmp-map", 0, 0, 1},
		{"kfunc/strlen-rodata", 6, 19, 0},
		{"kfunc/strlen-null", 6, 17, 0},
	};
	struct kf_ctx u = {.bpf = bpf}, k = {.bpf = kernel_bpf};
	int have_u = 0, have_k = 0, any = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		any |= bench_selected(rows[i].name);
	if (!any)
		return;
	have_u = !prepare(&u);
	have_k = !prepare(&k);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned char req[3] = {rows[i].op, rows[i].a, rows[i].b};
		struct bench_side s[2] = {{"userbpf", have_u ? op_run : NULL, &u},
					  {"kernel", have_k ? op_run : NULL, &k}};

		if (!bench_selected(rows[i].name))
			continue;
		memcpy(u.pkt, req, sizeof(req));
		memcpy(k.pkt, req, sizeof(req));
		bench_row(rows[i].name, s, 2, 1);
	}
	userbpf_object_close(u.obj);
	userbpf_object_close(k.obj);
}
