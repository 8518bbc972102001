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
#include <sys/wait.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"

#define OUT_MAX 8192

/* Runs the helper (with the preload library if preload) with args (NULL: the object directory)
 * into out (size bytes); its exit status, or -1. */
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
			execv(LIBBPF_USER_PATH, args);
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
