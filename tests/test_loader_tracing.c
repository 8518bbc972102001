/* Tracing programs through the ELF loader: each section's target (tp_btf/<tracepoint>,
 * fentry/<function>, ...) found in the kernel's BTF and passed as attach_btf_id, as libbpf does;
 * the programs load into userbpf and answer BPF_PROG_TEST_RUN as the kernel's do with nothing
 * attached (fentry 0, fmod_ret the test functions' 4 + 29 with two side effects, tp_btf
 * EFAULT); a target the kernel lacks, or none, fails the load naming the program.  Skipped
 * without the kernel's BTF.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"

static char errbuf[512];

static int open_tracing(struct userbpf_object **obj)
{
	struct userbpf_object_opts o = { .sz = sizeof(o), .errbuf = errbuf,
					 .errbuf_size = sizeof(errbuf) };

	return userbpf_object_open_file(FIXTURE("tracing_sections"), &o, obj);
}

/* The program's attach_btf_id as BPF_OBJ_GET_INFO_BY_FD reports it, and its test run. */
static void check_prog(struct userbpf_object *obj, const char *name, uint32_t want_id,
		       int want_err, uint32_t want_retval)
{
	struct userbpf_program *p = userbpf_object_find_program(obj, name);
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	union bpf_attr a;
	int fd = p ? userbpf_program_fd(p) : -1;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	CHECK_EQ(side_obj_info(U, fd, &info, &len).rc, 0);
	CHECK_EQ(info.type, BPF_PROG_TYPE_TRACING);
	CHECK_EQ(info.attach_btf_id, want_id);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)fd;
	CHECK_EQ(side_call(U, BPF_PROG_TEST_RUN, &a).err, want_err);
	if (!want_err)
		CHECK_EQ(a.test.retval, want_retval);
}

TEST(loader_tracing_sections)
{
	const struct btf *btf = btf_vmlinux();
	struct userbpf_object *obj;
	uint32_t test1, modify, sw;

	if (!btf)
		SKIP("no kernel BTF (/sys/kernel/btf/vmlinux)");
	test1 = btf_find_func(btf, "bpf_fentry_test1");
	modify = btf_find_func(btf, "bpf_modify_return_test");
	sw = btf_find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	if (!test1 || !modify || !sw)
		SKIP("the kernel's BTF lacks its test functions or sched_switch");
	REQUIRE(!open_tracing(&obj));
	REQUIRE(!userbpf_object_load(obj));
	check_prog(obj, "on_switch", sw, EFAULT, 0);
	check_prog(obj, "on_entry", test1, 0, 0);
	check_prog(obj, "on_exit", test1, 0, 0);
	check_prog(obj, "on_modify", modify, 0, 2u << 16 | 33);
	check_prog(obj, "on_entry_sleepable", test1, 0, 0);
	CHECK_EQ(userbpf_program_fd(userbpf_object_find_program(obj, "on_nothing")), -1);
	userbpf_object_close(obj);

	/* a tracepoint the kernel has not, a section without a target */
	static const char *const bad[] = { "on_nothing", "on_no_target" };
	static const char *const why[] = {
		"failed to find kernel BTF type ID of 'userbpf_no_such_tracepoint'",
		"no attach target after '/'",
	};
	for (int i = 0; i < 2; i++) {
		REQUIRE(!open_tracing(&obj));
		CHECK_EQ(userbpf_program_set_autoload(
				 obj, userbpf_object_find_program(obj, bad[i]), true), 0);
		CHECK(userbpf_object_load(obj) < 0);
		CHECK(strstr(errbuf, why[i]) != NULL);
		CHECK(strstr(errbuf, bad[i]) != NULL);
		userbpf_object_close(obj);
	}
}
