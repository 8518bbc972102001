/* Typed kernel variables through the ELF loader (`extern struct rq runqueues __ksym`, libbpf's
 * typed ksyms: tests/fixtures/ksym_vars.bpf.c): the extern becomes the variable's BTF id, which
 * the verifier resolves.  On both backends the load must give the same verdict (a kernel
 * without CONFIG_KALLSYMS_ALL, as here, has no address for them: ENOENT on both); userbpf,
 * given a symbol file that lists them where the kernel does not, loads it, and its run reads
 * zeros.  Skipped without the kernel's BTF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "kallsyms.h"
#include "kbpf.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"

/* Loads the fixture on side s: its program's fd, or -errno (the loader's message in err). */
static int load_on(int s, struct userbpf_object **obj, char *err, size_t size)
{
	struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = diff_sides[s]->bpf,
					 .errbuf = err, .errbuf_size = size };
	int rc;

	if (userbpf_object_open_file(FIXTURE("ksym_vars"), &o, obj))
		return -EINVAL;
	rc = userbpf_object_load(*obj);
	return rc ? rc : userbpf_program_fd(userbpf_object_program(*obj, 0));
}

static void runs_zero(int fd)
{
	uint64_t args[2] = { 0, 0 };
	uint32_t ret = 99;

	CHECK_EQ(side_test_run_ctx(U, fd, NULL, 0, 0, args, sizeof(args), NULL, 0, &ret).rc, 0);
	CHECK_EQ(ret, 0);
}

TEST(loader_ksym_vars)
{
	static const char *const vars[] = { "runqueues", "bpf_prog_active" };
	const struct btf *btf = btf_vmlinux();
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	char err[NSIDES][512], path[] = "/tmp/userbpf-kallsyms-XXXXXX";
	int rc[NSIDES] = { -1, -1 };
	uint64_t addr;

	if (!btf || !btf_find_by_name_kind(btf, "runqueues", BTF_KIND_VAR) ||
	    !btf_find_by_name_kind(btf, "bpf_prog_active", BTF_KIND_VAR))
		SKIP("no kernel BTF with runqueues and bpf_prog_active (/sys/kernel/btf/vmlinux)");
	for (int s = 0; s < NSIDES; s++)
		if (s == U || kernel_bpf_available())
			rc[s] = load_on(s, &obj[s], err[s], sizeof(err[s]));
	if (kernel_bpf_available())
		CHECK_EQ(rc[K] >= 0, rc[U] >= 0);
	if (kallsyms_lookup("runqueues", &addr, NULL) != -ENOENT) {
		CHECK(rc[U] >= 0);
		if (rc[U] >= 0)
			runs_zero(rc[U]);
	} else {
		/* (this kernel lists no variables: neither side finds them) */
		CHECK_EQ(rc[U], -ENOENT);
		CHECK(strstr(err[U], "BPF_PROG_LOAD failed") != NULL);
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);

	/* given them, userbpf loads it */
	REQUIRE(kallsyms_file_with(path, vars, 2));
	setenv("USERBPF_KALLSYMS", path, 1);
	rc[U] = load_on(U, &obj[U], err[U], sizeof(err[U]));
	unsetenv("USERBPF_KALLSYMS");
	unlink(path);
	CHECK(rc[U] >= 0);
	if (rc[U] >= 0)
		runs_zero(rc[U]);
	userbpf_object_close(obj[U]);
}
