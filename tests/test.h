/* Minimal test framework for userbpf.
 *
 * A test file defines tests with TEST(name) { ... }; a constructor registers each one, so adding a
 * file under tests/ is all it takes.  Checks record a failure and go on (CHECK*) or record and
 * return (REQUIRE*).  SKIP(fmt) ends a test as skipped with a reason, e.g. when the kernel's bpf()
 * is unavailable.  The runner prints one line per failure and ends with "N passed, N failed, N
 * skipped".
 */
#ifndef USERBPF_TEST_H
#define USERBPF_TEST_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct test_case {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct test_case *next;
};

void test_register(struct test_case *tc);
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int test_failed_now(void);

#define TEST(tname)                                                                              \
	static void test_##tname(void);                                                          \
	static struct test_case test_case_##tname = { #tname, __FILE__, test_##tname, NULL };   \
	__attribute__((constructor)) static void test_register_##tname(void)                    \
	{                                                                                        \
		test_register(&test_case_##tname);                                               \
	}                                                                                        \
	static void test_##tname(void)

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond))                                                                     \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                       \
	} while (0)

/* The kernel's internal "not supported" errno, which bpf() returns (not in libc's errno.h). */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define REQUIRE(cond)                                                                            \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                     \
			return;                                                                  \
		}                                                                                \
	} while (0)

#define CHECK_EQ(a, b)                                                                           \
	do {                                                                                     \
		long long _a = (long long)(a), _b = (long long)(b);                              \
		if (_a != _b)                                                                    \
			test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
	} while (0)

#define REQUIRE_EQ(a, b)                                                                         \
	do {                                                                                     \
		long long _a = (long long)(a), _b = (long long)(b);                              \
		if (_a != _b) {                                                                  \
			test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
			return;                                                                  \
		}                                                                                \
	} while (0)

/* A call that must fail with -1 and the given errno. */
#define CHECK_ERRNO(call, err)                                                                   \
	do {                                                                                     \
		errno = 0;                                                                       \
		long long _r = (long long)(call);                                                \
		int _e = errno;                                                                  \
		if (_r != -1 || _e != (err))                                                     \
			test_fail(__FILE__, __LINE__, "%s: want -1/%s, got %lld/%s(%d)", #call,  \
				  #err, _r, strerror(_e), _e);                                   \
	} while (0)

/* A call that must succeed (return >= 0). */
#define CHECK_OK(call)                                                                           \
	do {                                                                                     \
		errno = 0;                                                                       \
		long long _r = (long long)(call);                                                \
		if (_r < 0)                                                                      \
			test_fail(__FILE__, __LINE__, "%s: failed %lld, errno %s(%d)", #call, _r, \
				  strerror(errno), errno);                                       \
	} while (0)

#define SKIP(...)                                                                                \
	do {                                                                                     \
		test_skip(__VA_ARGS__);                                                          \
		return;                                                                          \
	} while (0)

#endif
