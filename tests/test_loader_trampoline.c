/* Tracing programs that run: fentry, fexit and fmod_ret programs (a clang-compiled object,
 * tests/fixtures/trampoline_runs.bpf.c) attached with BPF_LINK_CREATE to the kernel's BPF test
 * functions, which BPF_PROG_TEST_RUN of a tracing program calls.  Every fentry program sees its
 * function's arguments, every fexit one the return value too; the trampoline helpers give the
 * argument count, the arguments (EINVAL past them), the return value (EOPNOTSUPP at entry), the
 * function's address and the link's cookie; an fmod_ret program sees 0, and a non-zero return
 * replaces the function's result and its side effect, which fexit then sees, and which the test
 * run reports; one that changes bpf_fentry_test1()'s result makes the fentry test run EFAULT.
 * A program is attached once per function (EBUSY), and closing its link detaches it.
 *
 * The expected values are the kernel's (its test functions' arguments and results, 6.18), on
 * userbpf's JIT and interpreter alike; the same run is made on the kernel where it has
 * trampolines (the kernel on this project's
 * machines has none: there userbpf's side alone runs).  Skipped without the kernel's BTF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "fixtures/trampoline_runs.h"
#include "kallsyms.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"

struct side_obj {
	int s;
	struct userbpf_object *obj;
	int bss;
};

static int prog_fd(const struct side_obj *o, const char *name)
{
	return userbpf_program_fd(userbpf_object_find_program(o->obj, name));
}

/* BPF_LINK_CREATE of program name as its own attach type: the link's fd, or -errno. */
static int attach(const struct side_obj *o, const char *name, uint64_t cookie)
{
	struct userbpf_program *p = userbpf_object_find_program(o->obj, name);
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)userbpf_program_fd(p);
	a.link_create.attach_type = userbpf_program_expected_attach_type(p);
	a.link_create.tracing.cookie = cookie;
	r = side_call(o->s, BPF_LINK_CREATE, &a);
	return r.rc >= 0 ? r.rc : -r.err;
}

/* BPF_PROG_TEST_RUN of program name: 0 or -errno, its retval in *retval. */
static int test_run(const struct side_obj *o, const char *name, uint32_t *retval)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog_fd(o, name);
	r = side_call(o->s, BPF_PROG_TEST_RUN, &a);
	*retval = a.test.retval;
	return r.rc ? -r.err : 0;
}

static void get_res(const struct side_obj *o, struct trampoline_results *res)
{
	uint32_t key = 0;

	memset(res, 0xee, sizeof(*res));
	CHECK_EQ(side_elem(o->s, BPF_MAP_LOOKUP_ELEM, o->bss, &key, res, 0).rc, 0);
}

static void put_res(const struct side_obj *o, const struct trampoline_results *res)
{
	uint32_t key = 0;

	CHECK_EQ(side_elem(o->s, BPF_MAP_UPDATE_ELEM, o->bss, &key, (void *)res, 0).rc, 0);
}

static const char *const entries[] = {
	"entry1", "entry2", "entry3", "entry4", "entry5", "entry6", "entry7", "entry8", "entry9",
	"entry10",
};
static const char *const others[] = {
	"exit1", "exit2", "exit6", "exit8", "entry_ret", "modify", "modify_exit",
};

/* The whole sequence on side s (test2_addr: bpf_fentry_test2()'s address, 0 if unknown). */
static void runs_on(int s, uint64_t test2_addr)
{
	struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };
	struct side_obj o = { .s = s };
	struct trampoline_results res;
	int links[20], nlinks = 0, brk;
	uint32_t retval;

	REQUIRE(!userbpf_object_open_file(FIXTURE("trampoline_runs"), &opts, &o.obj));
	REQUIRE(!userbpf_program_set_autoload(
		o.obj, userbpf_object_find_program(o.obj, "break_test1"), true));
	REQUIRE(!userbpf_object_load(o.obj));
	o.bss = userbpf_map_fd(userbpf_object_find_map(o.obj, ".bss"));
	REQUIRE(o.bss >= 0);
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		REQUIRE((links[nlinks++] = attach(&o, entries[i], 0)) >= 0);
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		REQUIRE((links[nlinks++] = attach(&o, others[i], 0)) >= 0);
	REQUIRE((links[nlinks++] = attach(&o, "helpers", 0x1234567890ull)) >= 0);
	CHECK_EQ(attach(&o, "entry1", 0), -EBUSY); /* (once per function) */

	/* the fentry test run: every test function called, once */
	CHECK_EQ(test_run(&o, "entry1", &retval), 0);
	CHECK_EQ(retval, 0);
	get_res(&o, &res);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(res.entry_ok[i], 1);
	CHECK(res.exit_ok[0] == 1 && res.exit_ok[1] == 1 && res.exit_ok[5] == 1 &&
	      res.exit_ok[7] == 1);
	CHECK_EQ(res.runs, 1);
	CHECK_EQ(res.arg_cnt, 2);
	CHECK_EQ(res.arg0, 2);
	CHECK_EQ(res.arg2_err, (uint64_t)-EINVAL);
	CHECK_EQ(res.ret_err, 0);
	CHECK_EQ(res.ret, 5);
	CHECK_EQ(res.entry_ret_err, (uint64_t)-EOPNOTSUPP);
	if (test2_addr)
		CHECK_EQ(res.ip, test2_addr);
	CHECK_EQ(res.cookie, 0x1234567890ull);
	/* (the fmod_ret test functions were not called) */
	CHECK_EQ(res.mod_order, 0);

	/* fmod_ret returning 0: bpf_modify_return_test() runs, 1 + (2 + 1) = 4, and its
	 * side effect; _test2() 29 with its own; fexit after fmod_ret */
	res.runs = 0;
	put_res(&o, &res);
	CHECK_EQ(test_run(&o, "modify", &retval), 0);
	CHECK_EQ(retval, 2u << 16 | 33);
	get_res(&o, &res);
	CHECK_EQ(res.mod_seen_ret, 0);
	CHECK_EQ(res.exit_seen_ret, 4);
	CHECK(res.mod_order == 1 && res.exit_order == 2);
	/* ... returning 100: the call is replaced, no side effect; fexit sees 100 */
	res.mod_retval = 100;
	put_res(&o, &res);
	CHECK_EQ(test_run(&o, "modify", &retval), 0);
	CHECK_EQ(retval, 1u << 16 | (100 + 29));
	get_res(&o, &res);
	CHECK_EQ(res.exit_seen_ret, 100);

	/* an fmod_ret program on bpf_fentry_test1(): 0 changes nothing, 7 fails the run */
	REQUIRE((brk = attach(&o, "break_test1", 0)) >= 0);
	CHECK_EQ(test_run(&o, "entry2", &retval), 0);
	res.break_retval = 7;
	put_res(&o, &res);
	CHECK_EQ(test_run(&o, "entry2", &retval), -EFAULT);
	get_res(&o, &res);
	CHECK_EQ(res.exit_ok[0], 0); /* (exit1 saw 7) */
	close(brk);

	/* entry1's link closed: it runs no more */
	res.runs = 0;
	put_res(&o, &res);
	close(links[0]);
	CHECK_EQ(test_run(&o, "entry2", &retval), 0);
	get_res(&o, &res);
	CHECK_EQ(res.runs, 0);
	CHECK_EQ(res.exit_ok[0], 1);
	for (int i = 1; i < nlinks; i++)
		close(links[i]);
	userbpf_object_close(o.obj);
}

TEST(loader_trampoline_runs)
{
	const struct btf *btf = btf_vmlinux();
	uint64_t addr = 0;

	if (!btf || !btf_find_func(btf, "bpf_fentry_test10"))
		SKIP("no kernel BTF with the kernel's test functions (/sys/kernel/btf/vmlinux)");
	/* (bpf_get_func_ip()'s answer, where /proc/kallsyms shows addresses) */
	if (kallsyms_lookup("bpf_fentry_test2", &addr, NULL))
		addr = 0;
	if (kernel_has_trampolines())
		runs_on(K, addr);
	else if (getenv("TEST_VERBOSE"))
		printf("loader_trampoline_runs: the kernel here has no trampolines: userbpf only\n");
	/* userbpf's programs JIT-compiled, then interpreted */
	for (int jit = 1; jit >= 0; jit--) {
		int old = userbpf_set_jit(jit);

		runs_on(U, addr);
		userbpf_set_jit(old);
	}
}
