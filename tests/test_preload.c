/* libbpf on userbpf, unchanged: tests/preload/libbpf_user.c (libbpf's map calls and pins, three
 * example objects opened, loaded and test-run by libbpf, global data set before load) runs with
 * LD_PRELOAD=libuserbpf-preload.so and must pass every check on userbpf's objects (its map fds
 * are userbpf's memfds); where the kernel's bpf() works it runs there too, without the preload,
 * and must print the same checks.
 * Skipped without libbpf (the helper is not built) and in sanitizer builds (a sanitized library
 * cannot be preloaded into a program that is not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"

#define OUT_MAX 8192

/* Runs the helper (with the preload library if preload) into out; its exit status, or -1. */
static int run_user(bool preload, char *out)
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
		execl(LIBBPF_USER_PATH, LIBBPF_USER_PATH, LOADER_OBJ_DIR, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		close(fd);
		return -1;
	}
	n = pread(fd, out, OUT_MAX - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(preload_libbpf_runs_on_userbpf)
{
	static char u[OUT_MAX], k[OUT_MAX];
	int rc;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	SKIP("a sanitizer build: its library cannot be preloaded into an uninstrumented program");
#endif
	if (!LIBBPF_USER_PATH[0] || access(LIBBPF_USER_PATH, X_OK) || access(PRELOAD_PATH, R_OK))
		SKIP("no libbpf for this build: the libbpf user is not built");
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
