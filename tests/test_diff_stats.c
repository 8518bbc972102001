/* BPF_ENABLE_STATS, differentially: the attr rules, and the counts a program's info then shows.
 * While a stats fd is open every run counts (each repeat of a test run) with its time; before
 * and after, nothing does; two fds keep counting on until both are closed.  The kernel's switch
 * is system-wide: if another process has it on, its side counts from the start and the test
 * skips.  Skipped too where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

static struct bpf_result enable_stats(int s, uint32_t type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.enable_stats.type = type;
	return side_call(s, BPF_ENABLE_STATS, &a);
}

/* The program's run_cnt, and its run_time_ns in *ns. */
static uint64_t run_cnt(int s, int prog_fd, uint64_t *ns)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (side_obj_info(s, prog_fd, &info, &len).rc)
		return UINT64_MAX;
	*ns = info.run_time_ns;
	return info.run_cnt;
}

static void run(int s, int prog_fd, uint32_t repeat)
{
	uint8_t pkt[64] = { 0 };
	uint32_t retval = 0;

	CHECK_EQ(side_test_run_ctx(s, prog_fd, pkt, sizeof(pkt), repeat, NULL, 0, NULL, 0,
				   &retval).rc, 0);
	CHECK_EQ(retval, XDP_PASS);
}

TEST(diff_stats_attr_rules)
{
	struct bpf_result r[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++)
		r[s] = enable_stats(s, BPF_STATS_RUN_TIME + 1);
	AGREE("unknown type", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++) { /* a byte after type */
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		((uint8_t *)&a)[sizeof(a.enable_stats.type)] = 1;
		r[s] = side_call(s, BPF_ENABLE_STATS, &a);
	}
	AGREE("byte after the last field", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++) {
		r[s] = enable_stats(s, BPF_STATS_RUN_TIME);
		CHECK(r[s].rc >= 0);
		if (r[s].rc >= 0)
			close(r[s].rc);
	}
}

TEST(diff_stats_counts)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };
	int prog[NSIDES];
	uint64_t ns;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, insns, 2);
		REQUIRE(prog[s] >= 0);
	}
	run(K, prog[K], 3);
	if (run_cnt(K, prog[K], &ns))
		SKIP("another process has the kernel's run statistics on");
	for (int s = 0; s < NSIDES; s++) {
		int fd, fd2;

		run(s, prog[s], 3); /* off: nothing counts */
		CHECK_EQ(run_cnt(s, prog[s], &ns), 0);
		CHECK_EQ(ns, 0);
		fd = enable_stats(s, BPF_STATS_RUN_TIME).rc;
		REQUIRE(fd >= 0);
		run(s, prog[s], 10);
		run(s, prog[s], 0); /* (one run) */
		CHECK_EQ(run_cnt(s, prog[s], &ns), 11);
		CHECK(ns > 0);
		/* a second fd; closing one of the two leaves them on */
		fd2 = enable_stats(s, BPF_STATS_RUN_TIME).rc;
		REQUIRE(fd2 >= 0);
		close(fd);
		run(s, prog[s], 5);
		CHECK_EQ(run_cnt(s, prog[s], &ns), 16);
		close(fd2);
		run(s, prog[s], 7);
		CHECK_EQ(run_cnt(s, prog[s], &ns), 16);
		close(prog[s]);
	}
}

/* userbpf only: an embedded program's runs (userbpf_prog_run()) count too, whether its handle
 * was made before statistics went on (p) or while they were on (q); neither counts after. */
TEST(stats_embedded_runs)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 7), BPF_EXIT_INSN() };
	struct userbpf_prog *p = NULL, *q = NULL;
	uint64_t ns;
	int fd;

	REQUIRE_EQ(userbpf_prog_load_ext(insns, 2, NULL, &p), 0);
	CHECK_EQ(userbpf_prog_run(p, NULL), 7);
	CHECK_EQ(run_cnt(U, userbpf_prog_fd(p), &ns), 0);
	fd = enable_stats(U, BPF_STATS_RUN_TIME).rc;
	REQUIRE(fd >= 0);
	REQUIRE_EQ(userbpf_prog_load_ext(insns, 2, NULL, &q), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(userbpf_prog_run(p, NULL), 7);
		CHECK_EQ(userbpf_prog_run(q, NULL), 7);
	}
	CHECK_EQ(userbpf_prog_run(q, NULL), 7);
	close(fd);
	CHECK_EQ(userbpf_prog_run(p, NULL), 7);
	CHECK_EQ(userbpf_prog_run(q, NULL), 7);
	CHECK_EQ(run_cnt(U, userbpf_prog_fd(p), &ns), 4);
	CHECK_EQ(run_cnt(U, userbpf_prog_fd(q), &ns), 5);
	userbpf_prog_free(p);
	userbpf_prog_free(q);
}
