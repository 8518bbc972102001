/* libbpf on userbpf, unchanged: tests/preload/libbpf_user.c (libbpf's map calls and pins, three
 * example objects opened, loaded and test-run by libbpf, global data set before load) runs with
 * LD_PRELOAD=libuserbpf-preload.so and must pass every check on userbpf's objects (its map fds
 * are userbpf's memfds); where the kernel's bpf() works it runs there too, without the preload,
 * and must print the same checks.
 * Skipped without libbpf (the helper is not built) and in sanitizer builds (a sanitized library
 * cannot be preloaded into a program that is not).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/loader.h"
#include "preload/core_dump.h"

#define OUT_MAX 8192

/* Runs a helper program (with the preload library if preload): args[0] with args, or (args
 * NULL) the libbpf user on the object directory, its output into out (size bytes); its exit
 * status, or -1. */
static int run_user_args(bool preload, char *const *args, char *out, size_t size)
{
	char tmpl[] = "/tmp/userbpf-preload-XXXXXX";
	int fd = mkstemp(tmpl), status = -1;
	pid_t pid;
	ssize_t n;

	if (fd < 0)
		return -1;
	unlink(tmpl);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (preload)
			setenv("LD_PRELOAD", PRELOAD_PATH, 1);
		else
			unsetenv("LD_PRELOAD");
		if (args)
			execv(args[0], args);
		else
			execl(LIBBPF_USER_PATH, LIBBPF_USER_PATH, LOADER_OBJ_DIR, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		close(fd);
		return -1;
	}
	n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_user(bool preload, char *out)
{
	return run_user_args(preload, NULL, out, OUT_MAX);
}

#define REQUIRE_LIBBPF_USER()                                                                      \
	do {                                                                                       \
		if (SANITIZED)                                                                     \
			SKIP("a sanitizer build: its library cannot be preloaded into an "          \
			     "uninstrumented program");                                            \
		if (!LIBBPF_USER_PATH[0] || access(LIBBPF_USER_PATH, X_OK) ||                      \
		    access(PRELOAD_PATH, R_OK))                                                    \
			SKIP("no libbpf for this build: the libbpf user is not built");            \
	} while (0)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

TEST(preload_libbpf_runs_on_userbpf)
{
	static char u[OUT_MAX], k[OUT_MAX];
	int rc;

	REQUIRE_LIBBPF_USER();
	rc = run_user(true, u);
	if (rc)
		test_fail(__FILE__, __LINE__, "libbpf-user on userbpf: status %d:\n%s", rc, u);
	CHECK(strstr(u, "backend: userbpf\n"));
	CHECK(!strstr(u, "FAIL"));
	CHECK(strstr(u, "ok   verdicts: 3 dropped, 3 passed\n"));
	CHECK(strstr(u, "ok   sockex1: my_map[TCP] = 256 bytes after 4 frames\n"));
	CHECK(strstr(u, "ok   bpf_obj_get, then a lookup through its fd: 300\n"));
	CHECK(strstr(u, "ok   the .bss after the runs: calls 2, last 360\n"));
	if (!kernel_bpf_available())
		return; /* (userbpf's side is the test; the kernel's only confirms the checks) */
	rc = run_user(false, k);
	CHECK_EQ(rc, 0);
	CHECK(strstr(k, "backend: kernel\n"));
	/* the same lines after the backend's, unless the kernel's side skipped its pins */
	if (!strstr(k, "skip pin"))
		CHECK(strchr(u, '\n') && strchr(k, '\n') &&
		      !strcmp(strchr(u, '\n'), strchr(k, '\n')));
}

/* A light skeleton (bpftool gen skeleton -L), which loads itself through a syscall program:
 * the XDP program's verdicts, its .bss, .data and .rodata (mmap()ed maps, .rodata set before
 * load), the typeless ksym's address (the loader program's kallsyms lookup) and its hash map,
 * read after its runs, are the table's, and the kernel's where its bpf() is available. */
TEST(preload_light_skeleton)
{
	static char u[OUT_MAX], k[OUT_MAX];
	char *args[] = { (char *)LSKEL_USER_PATH, NULL };
	int rc;

	if (SANITIZED)
		SKIP("a sanitizer build: its library cannot be preloaded into an uninstrumented "
		     "program");
	if (!LSKEL_USER_PATH[0] || access(LSKEL_USER_PATH, X_OK) || access(PRELOAD_PATH, R_OK))
		SKIP("no bpftool (or libbpf's headers) for this build: the light skeleton user is "
		     "not built");
	if (!btf_vmlinux())
		SKIP("no kernel BTF: the skeleton's kfunc cannot be resolved");
	rc = run_user_args(true, args, u, sizeof(u));
	if (rc)
		test_fail(__FILE__, __LINE__, "lskel-user on userbpf: status %d:\n%s", rc, u);
	CHECK(strstr(u, "backend: userbpf\n"));
	CHECK(strstr(u, "verdicts: 2 1 2 2 2 1 2\n"));
	/* (head_sum: what user space wrote through the mmap()ed .data, 0x5a5a0000, xor the
	 * programs' sums) */
	CHECK(strstr(u, ".bss: total_bytes 1842, short_packets 2; .data: head_sum 0x5c54937c; "
			".rodata: min_len 60\n"));
	CHECK(strstr(u, "ksym bpf_prog_put: kallsyms'\n"));
	CHECK(strstr(u, "protos: 1:1 6:3 17:1 47:No such file or directory\n"));
	if (!kernel_bpf_available())
		return;
	CHECK_EQ(run_user_args(false, args, k, sizeof(k)), 0);
	CHECK(strstr(k, "backend: kernel\n"));
	CHECK(strchr(u, '\n') && strchr(k, '\n') && !strcmp(strchr(u, '\n'), strchr(k, '\n')));
}

/* Every BPF object of the build (examples, corpus, loader fixtures), opened and loaded by libbpf:
 * on userbpf it must load exactly where it loads on the kernel. */
TEST(preload_libbpf_loads_as_the_kernel)
{
	static const char *const dirs[] = { "/examples", "/tests/corpus", "/tests/fixtures" };
	static char u[1 << 16], k[1 << 16], names[256][160];
	char *args[260];
	int n = 0, loaded = 0;
	const char *p;

	REQUIRE_LIBBPF_USER();
	SKIP_WITHOUT_KERNEL_BPF();
	args[n++] = (char *)LIBBPF_USER_PATH;
	args[n++] = (char *)"--load";
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[128];
		struct dirent *e;
		DIR *dp;

		snprintf(dir, sizeof(dir), "%s%s", LOADER_OBJ_DIR, dirs[d]);
		dp = opendir(dir);
		while (dp && (e = readdir(dp)) && n < 258) {
			size_t len = strlen(e->d_name);

			if (len < 6 || strcmp(e->d_name + len - 6, ".bpf.o"))
				continue;
			/* (fentry programs: a kernel without trampolines refuses them) */
			if ((!strcmp(e->d_name, "tracing_sections.bpf.o") ||
			     !strcmp(e->d_name, "trampoline_runs.bpf.o")) &&
			    !kernel_has_trampolines())
				continue;
			snprintf(names[n], sizeof(names[n]), "%s/%s", dir, e->d_name);
			args[n] = names[n];
			n++;
		}
		if (dp)
			closedir(dp);
	}
	args[n] = NULL;
	REQUIRE(n > 40);
	CHECK_EQ(run_user_args(true, args, u, sizeof(u)), 0);
	CHECK_EQ(run_user_args(false, args, k, sizeof(k)), 0);
	for (p = strstr(k, ": 0\n"); p; p = strstr(p + 1, ": 0\n"))
		loaded++;
	CHECK(loaded > 20);
	/* line by line, to name the first object where they part */
	for (const char *a = u, *b = k; *a || *b;) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || strncmp(a, b, la)) {
			test_fail(__FILE__, __LINE__, "userbpf \"%.*s\", kernel \"%.*s\"", (int)la, a,
				  (int)lb, b);
			break;
		}
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
	}
	printf("preload: libbpf loaded %d of %d objects on the kernel, and the same on userbpf\n",
	       loaded, n - 2);
}

/* ---- CO-RE: the ELF loader relocates as libbpf does ---- */

#define CORE_OBJ LOADER_OBJ_DIR "/tests/corpus/socket_core_reads.bpf.o"

/* What libbpf-user --core prints, made by userbpf's loader on the backend bpf_fn (NULL:
 * userbpf), against btf (NULL: the kernel's BTF): instructions, test run, the "out" array. */
static void core_dump_ours_kconfig(const char *path, userbpf_bpf_fn bpf_fn, const char *btf,
				   const char *kconfig, char *out, size_t size)
{
	struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = bpf_fn, .btf_custom_path = btf,
					 .kconfig = kconfig };
	int (*call)(int, union bpf_attr *, unsigned int) = bpf_fn ? bpf_fn : bpf;
	struct userbpf_object *obj;
	const struct userbpf_program *prog;
	const struct userbpf_map *m;
	const struct bpf_insn *insn;
	unsigned char frame[64];
	union bpf_attr a;
	size_t len = 0, n;
	int err;

#define OUT(...) (len += (size_t)snprintf(out + len, len < size ? size - len : 0, __VA_ARGS__))
	out[0] = '\0';
	err = userbpf_object_open_file(path, &o, &obj);
	if (err) {
		OUT("load: %d\n", err);
		return;
	}
	err = userbpf_object_load(obj);
	if (err) {
		OUT("load: %d\n", err);
		userbpf_object_close(obj);
		return;
	}
	prog = userbpf_object_program(obj, 0);
	insn = userbpf_program_insns(prog);
	n = userbpf_program_insn_cnt(prog);
	{
		FILE *f = fmemopen(out + len, size - len, "w");

		if (f) {
			core_print_insns(f, insn, n);
			len += (size_t)ftell(f);
			fclose(f);
		}
	}
	{
		struct bpf_prog_info info;

		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (uint32_t)userbpf_program_fd(prog);
		a.info.info_len = sizeof(info);
		a.info.info = PTR_TO_U64(&info);
		if (!call(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)))
			OUT("func_info %u line_info %u\n", info.nr_func_info, info.nr_line_info);
	}
	core_frame(frame);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)userbpf_program_fd(prog);
	a.test.data_in = PTR_TO_U64(frame);
	a.test.data_size_in = sizeof(frame);
	err = call(BPF_PROG_TEST_RUN, &a, sizeof(a));
	OUT("retval %d %u\n", err < 0 ? -errno : err, a.test.retval);
	for (size_t i = 0; i < userbpf_object_map_count(obj); i++) {
		struct bpf_map_info info;

		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (uint32_t)userbpf_map_fd(userbpf_object_map(obj, i));
		a.info.info_len = sizeof(info);
		a.info.info = PTR_TO_U64(&info);
		if (!call(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)))
			OUT("map %s flags 0x%x\n", info.name, info.map_flags);
	}
	m = userbpf_object_find_map(obj, "out");
	for (unsigned int k = 0; m && k < userbpf_map_max_entries(m); k++) {
		unsigned long long v = 0;

		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)userbpf_map_fd(m);
		a.key = PTR_TO_U64(&k);
		a.value = PTR_TO_U64(&v);
		call(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
		OUT("out %u %llu\n", k, v);
	}
#undef OUT
	userbpf_object_close(obj);
}

static void core_dump_ours(const char *path, userbpf_bpf_fn bpf_fn, const char *btf, char *out,
			   size_t size)
{
	core_dump_ours_kconfig(path, bpf_fn, btf, NULL, out, size);
}

/* The first line where a and b differ, as a test failure naming what. */
static bool same_lines(const char *what, const char *a, const char *b)
{
	for (; *a || *b;) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || strncmp(a, b, la)) {
			test_fail(__FILE__, __LINE__, "%s: \"%.*s\" where libbpf has \"%.*s\"", what,
				  (int)la, a, (int)lb, b);
			return false;
		}
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
	}
	return true;
}

/* Removes from text the line that starts with head (if any). */
static void drop_line(char *text, const char *head)
{
	for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, head, strlen(head))) {
			char *end = strchr(p, '\n');
			char *rest = end ? end + 1 : p + strlen(p);

			memmove(p, rest, strlen(rest) + 1);
			return;
		}
	}
}

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

/* A target BTF unlike the kernel's: task_struct {long state; int tgid; char comm[8]}, __sk_buff
 * {len, protocol}, enum bpf_map_type {BPF_MAP_TYPE_ARENA = 7}, iphdr with version before ihl.
 * Written to path; false if it cannot be. */
static bool write_custom_btf(const char *path)
{
	static const char strs[] = "\0int\0long\0char\0task_struct\0state\0tgid\0comm\0"
				   "unsigned int\0__sk_buff\0len\0protocol\0bpf_map_type\0"
				   "BPF_MAP_TYPE_ARENA\0unsigned char\0iphdr\0version\0ihl\0tos";
	const uint32_t types_w[] = {
		T_INT(1, 4, BTF_INT_SIGNED, 0, 32),			    /* 1 */
		T_INT(5, 8, BTF_INT_SIGNED, 0, 64),			    /* 2 */
		T_INT(10, 1, BTF_INT_SIGNED, 0, 8),			    /* 3 */
		T_ARRAY(3, 1, 8),					    /* 4 */
		T_STRUCT(15, 3, 24), T_MEMBER(27, 2, 0), T_MEMBER(33, 1, 64),
		T_MEMBER(38, 4, 96),					    /* 5 */
		T_INT(43, 4, 0, 0, 32),					    /* 6 */
		T_STRUCT(56, 2, 8), T_MEMBER(66, 6, 0), T_MEMBER(70, 6, 32), /* 7 */
		79, INFO(BTF_KIND_ENUM, 0, 1), 4, 92, 7,		    /* 8 */
		T_INT(111, 1, 0, 0, 8),					    /* 9 */
		125, INFO(BTF_KIND_STRUCT, 1, 3), 4, 131, 9, 4u << 24 | 0, 139, 9,
		4u << 24 | 4, 143, 9, 8,				    /* 10 */
	};
	struct blob b;
	FILE *f;
	bool ok;

	if (strcmp(strs + 143, "tos") || strcmp(strs + 92, "BPF_MAP_TYPE_ARENA"))
		return false;
	b = btf_blob(types_w, sizeof(types_w) / sizeof(types_w[0]), strs, sizeof(strs));
	f = fopen(path, "w");
	ok = f && fwrite(b.data, 1, b.size, f) == b.size;
	if (f)
		ok = !fclose(f) && ok;
	free(b.data);
	return ok;
}

/* Objects of tests/corpus with CO-RE relocations or __kconfig externs, loaded by libbpf (on
 * userbpf through the preload, and on the kernel) and by userbpf's loader (on userbpf, and on
 * the kernel): the relocated instructions (poisoned ones included), the test run and every
 * value the program stores must be libbpf's.  socket_core_reads: bpf_core_read.h's queries;
 * xdp_core_parse: a vmlinux.h-style packet parser, every field read relocated; socket_kconfig:
 * the kernel's version, feature flags and config; xdp_string_kfuncs: extern kfuncs, whose .BTF
 * (.ksyms) libbpf rewrites before loading it (the func and line info counts show it loaded).
 * Every map's kernel-visible name and flags too (libbpf's "<object>.rodata", mmapable where a
 * global variable lives).  Then socket_core_reads against a made-up
 * target BTF (btf_custom_path), where the values all move. */
TEST(loader_core_relocates_as_libbpf)
{
	static const char *const objs[] = { CORE_OBJ, LOADER_OBJ_DIR "/tests/corpus/xdp_core_parse.bpf.o",
					    LOADER_OBJ_DIR "/tests/corpus/socket_kconfig.bpf.o",
					    LOADER_OBJ_DIR "/tests/corpus/xdp_string_kfuncs.bpf.o" };
	static char lib[1 << 16], ours[1 << 16];
	char btf_path[] = "/tmp/userbpf-core-btf-XXXXXX";
	char *args[] = { (char *)LIBBPF_USER_PATH, (char *)"--core", NULL, NULL, NULL };
	int fd;

	REQUIRE_LIBBPF_USER();
	REQUIRE(btf_vmlinux() != NULL);
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		args[2] = (char *)objs[i];
		CHECK_EQ(run_user_args(true, args, lib, sizeof(lib)), 0);
		core_dump_ours(objs[i], NULL, NULL, ours, sizeof(ours));
		same_lines(objs[i], ours, lib);
		if (kernel_bpf_available()) {
			static char ours_k[sizeof(ours)];

			CHECK_EQ(run_user_args(false, args, lib, sizeof(lib)), 0);
			core_dump_ours(objs[i], kernel_bpf, NULL, ours_k, sizeof(ours_k));
			same_lines(objs[i], ours_k, lib);
			/* userbpf's run against the kernel's: all but the line info count, which
			 * the kernel's dead code removal shrinks (userbpf keeps dead code) */
			memcpy(ours_k, ours, sizeof(ours_k));
			drop_line(ours_k, "func_info ");
			drop_line(lib, "func_info ");
			same_lines(objs[i], ours_k, lib);
		}
		if (i == 0) {
			/* relocated: task_struct.tgid is not at 4 in any kernel */
			CHECK(strstr(ours, "out 0 4\n") == NULL && strstr(ours, "out 7 1\n") != NULL);
			CHECK(strstr(ours, "insn 38 85 0 0 0 195896080\n") != NULL); /* dead, poisoned */
		} else if (i == 3) {
			/* extern kfuncs: the BTF loads once .ksyms is rewritten as libbpf does */
			CHECK(strstr(ours, "func_info 1 line_info ") && !strstr(ours, "line_info 0\n"));
		} else if (i == 2) {
			/* __kconfig: CONFIG_BPF_SYSCALL=y and CONFIG_BPF_JIT=y on any kernel
			 * that runs these tests, the absent ones 0 */
			CHECK(strstr(ours, "out 3 1\nout 4 1\n") && strstr(ours, "out 9 0\nout 10 0\n"));
		} else {
			/* the frame's UDP port 0x34 counted once, its source address summed: XDP_TX */
			CHECK(strstr(ours, "retval 0 3\n") && strstr(ours, "out 0 0\n") &&
			      strstr(ours, "out 52 1\n"));
			CHECK(strstr(ours, "out 256 167772161\n"));
		}
	}

	fd = mkstemp(btf_path);
	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(write_custom_btf(btf_path));
	args[2] = (char *)CORE_OBJ;
	args[3] = btf_path;
	CHECK_EQ(run_user_args(true, args, lib, sizeof(lib)), 0);
	core_dump_ours(CORE_OBJ, NULL, btf_path, ours, sizeof(ours));
	same_lines("userbpf's loader, btf_custom_path", ours, lib);
	/* tgid at 8, comm 8 bytes, the old flavor's state found, ARENA 7, task_struct id 5 */
	CHECK(strstr(ours, "out 0 8\n") && strstr(ours, "out 1 8\n") && strstr(ours, "out 4 1\n"));
	CHECK(strstr(ours, "out 8 7\n") && strstr(ours, "out 10 5\n"));
	unlink(btf_path);
}

/* An unguarded CO-RE access to a field the kernel lacks (tests/fixtures/core_unresolved): the
 * load fails, and the verifier log our loader leaves is libbpf's, the refusal of the poisoned
 * instruction rewritten to name the relocation; on userbpf and on the kernel alike. */
TEST(loader_core_unresolved_log_as_libbpf)
{
	static const char *const names[] = { "core_unresolved", "core_unresolved_long" };
	static char lib[1 << 16], ours[1 << 16], log[1 << 16];
	userbpf_bpf_fn backends[2] = { NULL, kernel_bpf };

	REQUIRE_LIBBPF_USER();
	REQUIRE(btf_vmlinux() != NULL);
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		char path[256], *args[4] = { (char *)LIBBPF_USER_PATH, (char *)"--core-log", path };

		snprintf(path, sizeof(path), "%s/tests/fixtures/%s.bpf.o", LOADER_OBJ_DIR, names[n]);
		for (int b = 0; b < 2; b++) {
			struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = backends[b],
							 .log_buf = log, .log_size = sizeof(log),
							 .log_level = 1 };
			struct userbpf_object *obj;
			int err;

			if (b == 1 && !kernel_bpf_available())
				break;
			CHECK_EQ(run_user_args(b == 0, args, lib, sizeof(lib)), 0);
			log[0] = '\0';
			err = userbpf_object_open_file(path, &o, &obj);
			REQUIRE(!err);
			err = userbpf_object_load(obj);
			userbpf_object_close(obj);
			snprintf(ours, sizeof(ours), "load: %d\n%s", err, log);
			same_lines(names[n], ours, lib);
			CHECK(strstr(ours, "\nfailed to resolve CO-RE relocation <byte_off> ") != NULL);
			/* the long one's text is cut and marked */
			CHECK((strstr(ours, "...\n") != NULL) == (n == 1));
		}
	}
}

/* __kconfig externs libbpf refuses: a strong one no config sets (ESRCH), a type it cannot fill
 * (EOPNOTSUPP, at open), an unknown LINUX_ one (EINVAL); userbpf's loader gives libbpf's errno. */
TEST(loader_kconfig_errors_as_libbpf)
{
	static const char *const names[] = { "kconfig_strong_missing", "kconfig_bad_type",
					     "kconfig_bad_linux" };
	static char lib[4096];
	char paths[3][256], *args[6] = { (char *)LIBBPF_USER_PATH, (char *)"--load" };

	REQUIRE_LIBBPF_USER();
	for (int i = 0; i < 3; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/tests/fixtures/%s.bpf.o", LOADER_OBJ_DIR,
			 names[i]);
		args[2 + i] = paths[i];
	}
	args[5] = NULL;
	CHECK_EQ(run_user_args(true, args, lib, sizeof(lib)), 0);
	for (int i = 0; i < 3; i++) {
		struct userbpf_object *obj = NULL;
		char want[128];
		int err = userbpf_object_open_file(paths[i], NULL, &obj);

		if (!err)
			err = userbpf_object_load(obj);
		userbpf_object_close(obj);
		snprintf(want, sizeof(want), "load %s.bpf.o: %d\n", names[i], err);
		if (!strstr(lib, want))
			test_fail(__FILE__, __LINE__, "%s: userbpf %d; libbpf said:\n%s", names[i],
				  err, lib);
	}
	CHECK(strstr(lib, "load kconfig_strong_missing.bpf.o: -3\n") != NULL);
}

/* The kconfig option (libbpf's): config lines that come before the kernel's own, for the
 * externs they name: a tristate 'm', a char 'm', a hex number, a string cut to its array, and
 * the errors (a bool 'm', a number too big for an int, a string where a number goes: EINVAL);
 * socket_kconfig's values, or the load's errno, must be libbpf's. */
TEST(loader_kconfig_option_as_libbpf)
{
	static const char *const configs[] = {
		"CONFIG_BPF_JIT=m\nCONFIG_IPV6=m\nCONFIG_HZ=0x3e8\n",
		"CONFIG_DEFAULT_HOSTNAME=\"a-name-longer-than-sixteen\"\nCONFIG_NR_CPUS=-2\n",
		"CONFIG_USERBPF_NO_SUCH_NUMBER=7", /* (no newline at the end) */
		"CONFIG_BPF_SYSCALL=m\n",
		"CONFIG_NR_CPUS=99999999999\n",
		"CONFIG_NR_CPUS=\"str\"\n",
		"CONFIG_HZ=12x\n",
		"# a comment\nNOT_CONFIG=1\nCONFIG_NR_CPUS=3\n",
		"CONFIG_NR_CPUS\n",
	};
	static char lib[1 << 16], ours[1 << 16];
	const char *obj = LOADER_OBJ_DIR "/tests/corpus/socket_kconfig.bpf.o";
	int loaded = 0;

	REQUIRE_LIBBPF_USER();
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		char *args[] = { (char *)LIBBPF_USER_PATH, (char *)"--core-kconfig", (char *)obj,
				 (char *)configs[i], NULL };
		int rc = run_user_args(true, args, lib, sizeof(lib));

		core_dump_ours_kconfig(obj, NULL, NULL, configs[i], ours, sizeof(ours));
		if (rc == 0) {
			loaded++;
			same_lines(configs[i], ours, lib);
		} else {
			/* libbpf's "load: ERR": ours must fail with the same errno */
			same_lines(configs[i], ours, lib);
		}
	}
	CHECK_EQ(loaded, 4);
}
