/* Test runner: runs every registered test (or those whose name contains an argument, less those
 * whose name contains an argument's text after a '-') and prints
 * "N passed, N failed, N skipped".  Exit status is 1 when any test failed. */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

static struct test_case *tests_head, **tests_tail = &tests_head;
static int cur_failed, cur_skipped;
static const char *cur_name;

void test_register(struct test_case *tc)
{
	*tests_tail = tc;
	tests_tail = &tc->next;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: %s:%d: ", cur_name, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed++;
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "SKIP %s: ", cur_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_skipped = 1;
}

int test_failed_now(void)
{
	return cur_failed;
}

/* Arguments: NAME runs the tests whose name contains it (all, without any); -NAME leaves out
 * those whose name contains NAME. */
static int selected(const char *name, int argc, char **argv)
{
	int any = 0, hit = 0;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (strstr(name, argv[i] + 1))
				return 0;
			continue;
		}
		any = 1;
		hit |= strstr(name, argv[i]) != NULL;
	}
	return !any || hit;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	int verbose = getenv("TEST_VERBOSE") != NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct test_case *tc = tests_head; tc; tc = tc->next) {
		if (!selected(tc->name, argc, argv))
			continue;
		cur_name = tc->name;
		cur_failed = 0;
		cur_skipped = 0;
		tc->fn();
		if (cur_failed)
			failed++;
		else if (cur_skipped)
			skipped++;
		else
			passed++;
		if (verbose)
			printf("%s %s\n", cur_failed ? "FAIL" : cur_skipped ? "SKIP" : "ok  ", tc->name);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
