/* BPF_PROG_LOAD's prog_flags against the kernel, per program type: each single flag bit (and
 * none) on "r0 = 1; exit" of every type userbpf loads, at an attach type it takes.  Which flags
 * a type may carry (sleepable, XDP fragments and device binding, the test flags, the token
 * flag without a token) is decided before or by the verifier: the results and, where both
 * refuse after verifying, the logs' last lines must agree.  Skipped where the kernel's bpf() is
 * unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	uint32_t type, eat;
} types[] = {
	{ BPF_PROG_TYPE_SOCKET_FILTER, 0 },
	{ BPF_PROG_TYPE_KPROBE, 0 },
	{ BPF_PROG_TYPE_SCHED_CLS, 0 },
	{ BPF_PROG_TYPE_SCHED_ACT, 0 },
	{ BPF_PROG_TYPE_TRACEPOINT, 0 },
	{ BPF_PROG_TYPE_XDP, 0 },
	{ BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP },
	{ BPF_PROG_TYPE_PERF_EVENT, 0 },
	{ BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS },
	{ BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE },
	{ BPF_PROG_TYPE_LWT_IN, 0 },
	{ BPF_PROG_TYPE_LWT_OUT, 0 },
	{ BPF_PROG_TYPE_LWT_XMIT, 0 },
	{ BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS },
	{ BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_VERDICT },
	{ BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE },
	{ BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, 0 },
	{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT },
	{ BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_FLOW_DISSECTOR },
	{ BPF_PROG_TYPE_CGROUP_SYSCTL, BPF_CGROUP_SYSCTL },
	{ BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_GETSOCKOPT },
	{ BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP },
	{ BPF_PROG_TYPE_SYSCALL, 0 },
};

/* The log's last line (cut there), or "" for an empty log. */
static const char *last_line(char *log)
{
	size_t n = strlen(log);
	char *p;

	while (n && log[n - 1] == '\n')
		log[--n] = 0;
	p = strrchr(log, '\n');
	return p ? p + 1 : log;
}

TEST(diff_prog_flags)
{
	static const struct bpf_insn ret1[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	static char log[NSIDES][65536];
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < N(types); t++) {
		for (int bit = -1; bit < 32; bit++) {
			struct bpf_result r[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.prog_type = types[t].type;
				a.expected_attach_type = types[t].eat;
				a.prog_flags = bit < 0 ? 0 : 1u << bit;
				a.insns = PTR_TO_U64(ret1);
				a.insn_cnt = 2;
				a.license = PTR_TO_U64("GPL");
				a.log_buf = PTR_TO_U64(log[s]);
				a.log_size = sizeof(log[s]);
				a.log_level = 1;
				log[s][0] = 0;
				r[s] = side_call(s, BPF_PROG_LOAD, &a);
			}
			snprintf(what, sizeof(what), "type %u hook %u flag bit %d", types[t].type,
				 types[t].eat, bit);
			if (AGREE(what, r) && r[K].rc < 0 && strcmp(last_line(log[K]), last_line(log[U])))
				test_fail(__FILE__, __LINE__, "%s: kernel says \"%s\", userbpf \"%s\"",
					  what, last_line(log[K]), last_line(log[U]));
			for (int s = 0; s < NSIDES; s++)
				if (r[s].rc >= 0)
					close(r[s].rc);
			accepted += r[K].rc >= 0;
		}
	}
	if (getenv("TEST_VERBOSE"))
		printf("diff_prog_flags: %zu loads, %d accepted\n", N(types) * 33, accepted);
	CHECK(accepted > (int)N(types));
}
