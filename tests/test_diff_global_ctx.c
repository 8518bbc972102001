/* A global function's ctx argument, against the kernel.  The kernel verifies a global function
 * on its own, from its BTF prototype: an argument declared as a pointer to the program type's
 * ctx struct (by name: struct __sk_buff for every skb-based type, struct xdp_md, ...) is the
 * ctx, and the caller must pass the ctx there; a pointer to any other struct is memory, which
 * the ctx is not.  For each program type and each ctx struct name, main (global) calls such a
 * function with r1 = ctx: the verdict, errno and whole level-1 log must be the kernel's (found
 * by the soundness run, seed 0x1092: SK_SKB's ctx was not known to be struct __sk_buff).
 * Skipped where the kernel's bpf() is unavailable. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "verifier_harness.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LOG_SIZE 4096

/* Each program type userbpf loads (not LWT_SEG6LOCAL, SK_REUSEPORT, RAW_TRACEPOINT_WRITABLE),
 * with an expected attach type it loads with. */
static const struct {
	uint32_t type, attach;
} types[] = {
	{ BPF_PROG_TYPE_SOCKET_FILTER, 0 },
	{ BPF_PROG_TYPE_KPROBE, 0 },
	{ BPF_PROG_TYPE_SCHED_CLS, 0 },
	{ BPF_PROG_TYPE_SCHED_ACT, 0 },
	{ BPF_PROG_TYPE_TRACEPOINT, 0 },
	{ BPF_PROG_TYPE_XDP, 0 },
	{ BPF_PROG_TYPE_PERF_EVENT, 0 },
	{ BPF_PROG_TYPE_CGROUP_SKB, 0 },
	{ BPF_PROG_TYPE_CGROUP_SOCK, 0 },
	{ BPF_PROG_TYPE_LWT_IN, 0 },
	{ BPF_PROG_TYPE_LWT_OUT, 0 },
	{ BPF_PROG_TYPE_LWT_XMIT, 0 },
	{ BPF_PROG_TYPE_SOCK_OPS, 0 },
	{ BPF_PROG_TYPE_SK_SKB, 0 },
	{ BPF_PROG_TYPE_CGROUP_DEVICE, 0 },
	{ BPF_PROG_TYPE_SK_MSG, 0 },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, 0 },
	{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT },
	{ BPF_PROG_TYPE_LIRC_MODE2, 0 },
	{ BPF_PROG_TYPE_FLOW_DISSECTOR, 0 },
	{ BPF_PROG_TYPE_CGROUP_SYSCTL, 0 },
	{ BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_GETSOCKOPT },
	{ BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP },
};

/* The ctx structs of the program types above, and one that is none of them. */
static const char *const ctx_names[] = {
	"__sk_buff",	      "xdp_md",		 "bpf_sock",	    "bpf_sock_addr",
	"bpf_sock_ops",	      "sk_msg_md",	 "bpf_cgroup_dev_ctx", "bpf_sysctl",
	"bpf_sockopt",	      "bpf_perf_event_data", "bpf_raw_tracepoint_args",
	"sk_reuseport_md",    "bpf_sk_lookup",	 "bpf_nf_ctx",	    "pt_regs",
	"not_a_ctx",
};

/* BTF: 1 int, 2 int (void), 3 f0 global, 4 struct <name>, 5 a pointer to it, 6 int (5 ctx),
 * 7 g global; loaded on side s (the fd, or -1). */
static int load_btf(int s, const char *name)
{
	static const char head[] = "\0int\0f0\0ctx\0g\0";
	uint32_t types_w[] = {
		T_INT(1, 4, BTF_INT_SIGNED, 0, 32), T_PROTO(1, 0), T_FUNC(5, 2, BTF_FUNC_GLOBAL),
		T_STRUCT(sizeof(head) - 1, 0, 8), T_PTR(4), T_PROTO(1, 1), T_PARAM(8, 5),
		T_FUNC(12, 6, BTF_FUNC_GLOBAL),
	};
	char strs[64];
	size_t n = strlen(name);
	struct blob b;
	union bpf_attr a;
	struct bpf_result r;

	memcpy(strs, head, sizeof(head) - 1);
	memcpy(strs + sizeof(head) - 1, name, n + 1);
	b = btf_blob(types_w, N(types_w), strs, (uint32_t)(sizeof(head) - 1 + n + 1));
	memset(&a, 0, sizeof(a));
	a.btf = (uintptr_t)b.data;
	a.btf_size = b.size;
	r = side_call(s, BPF_BTF_LOAD, &a);
	free(b.data);
	return r.rc;
}

/* Every type's program calls g(ctx), with g's parameter each ctx struct, the ctx as it came
 * (moved: 8 bytes into it, which no type takes, with the caller's line as the kernel adds it):
 * the kernel's verdict, errno and log.  Returns how many programs the kernel took, and how
 * many of them with a named ctx struct. */
static int global_ctx_args_agree(bool moved, int *as_ctx)
{
	static const struct bpf_insn progs[2][6] = {
		{ BPF_CALL_REL(2), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
		  BPF_MOV64_IMM(BPF_REG_0, 0), /* g(ctx) */ BPF_EXIT_INSN() },
		{ BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), BPF_CALL_REL(2), BPF_MOV64_IMM(BPF_REG_0, 0),
		  BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() },
	};
	const struct bpf_insn *prog = progs[moved];
	struct bpf_func_info fi[2] = { { 0, 3 }, { moved ? 4 : 3, 7 } };
	char logs[NSIDES][LOG_SIZE];
	int programs = 0, accepted = 0;

	for (size_t c = 0; c < N(ctx_names); c++) {
		int btf[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			btf[s] = load_btf(s, ctx_names[c]);
		if (btf[K] < 0 || btf[U] < 0) {
			test_fail(__FILE__, __LINE__, "no BTF with struct %s", ctx_names[c]);
			return accepted;
		}
		for (size_t t = 0; t < N(types); t++) {
			struct bpf_result r[NSIDES];
			char diff[512];

			for (int s = 0; s < NSIDES; s++) {
				union bpf_attr a;

				memset(&a, 0, sizeof(a));
				a.prog_type = types[t].type;
				a.expected_attach_type = types[t].attach;
				a.insns = (uintptr_t)prog;
				a.insn_cnt = moved ? 6 : 5;
				a.license = (uintptr_t) "GPL";
				a.prog_btf_fd = (uint32_t)btf[s];
				a.func_info = (uintptr_t)fi;
				a.func_info_rec_size = sizeof(fi[0]);
				a.func_info_cnt = N(fi);
				a.log_buf = (uintptr_t)logs[s];
				a.log_size = LOG_SIZE;
				a.log_level = 1;
				/* (all of it: valgrind does not see which bytes the kernel wrote) */
				memset(logs[s], 0, LOG_SIZE);
				r[s] = side_call(s, BPF_PROG_LOAD, &a);
				if (r[s].rc >= 0)
					close(r[s].rc);
			}
			programs++;
			accepted += r[K].rc >= 0;
			/* the kernel took the argument as the ctx: its log says so */
			*as_ctx += r[K].rc >= 0 && strcmp(ctx_names[c], "not_a_ctx") != 0;
			if ((r[K].rc >= 0) == (r[U].rc >= 0) && r[K].err == r[U].err &&
			    !strcmp(logs[K], logs[U]))
				continue;
			vlog_first_diff(logs[K], logs[U], diff, sizeof(diff));
			test_fail(__FILE__, __LINE__,
				  "prog type %u, g(struct %s *ctx%s): kernel %s/%d, userbpf %s/%d; "
				  "%s",
				  types[t].type, ctx_names[c], moved ? " + 8" : "",
				  r[K].rc >= 0 ? "accepts" : "rejects",
				  r[K].err, r[U].rc >= 0 ? "accepts" : "rejects", r[U].err, diff);
		}
		for (int s = 0; s < NSIDES; s++)
			close(btf[s]);
	}
	if (getenv("TEST_VERBOSE"))
		printf("diff_global_func_ctx_arg: %d programs (%s), %d accepted by the kernel\n",
		       programs, moved ? "the ctx moved" : "the ctx", accepted);
	CHECK_EQ(programs, (int)(N(types) * N(ctx_names)));
	return accepted;
}

TEST(diff_global_func_ctx_arg)
{
	int as_ctx = 0, moved_ctx = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	global_ctx_args_agree(false, &as_ctx);
	/* each type whose ctx is a named struct (all 23 but TRACEPOINT and LIRC_MODE2, whose ctx
	 * is an integer) accepts its own, and only that (KPROBE's: struct pt_regs) */
	CHECK_EQ(as_ctx, 21);
	/* a moved ctx: none */
	CHECK_EQ(global_ctx_args_agree(true, &moved_ctx), 0);
}
