/* Helper arguments against the kernel: every helper of every program type, called with each
 * kind of value in its argument registers (constants, the stack, the ctx, a map, a map value,
 * packet bytes): all five the same, the first the ctx and the others the same, or the first of
 * the kind and the others 8.  The verifier checks arguments in order and stops at the first it
 * refuses, so each program tells how a helper's prototype treats that kind up to its first
 * refusal, or that it takes them all: the verdicts and error lines must agree.  (The table of
 * which helpers each type has is test_helpers.c's.)  Skipped where the kernel's bpf() is
 * unavailable.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exec/helpers.h"
#include "kbpf.h"
#include "kernel_probe.h"
#include "sweep_prog.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	uint32_t type, eat;
	struct pkt_src pkt;
} types[] = {
#define SKB_PKT { offsetof(struct __sk_buff, data), offsetof(struct __sk_buff, data_end), BPF_W }
	{ BPF_PROG_TYPE_SOCKET_FILTER, 0, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_KPROBE, 0, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_SCHED_CLS, 0, SKB_PKT },
	{ BPF_PROG_TYPE_SCHED_ACT, 0, SKB_PKT },
	{ BPF_PROG_TYPE_TRACEPOINT, 0, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_XDP, 0,
	  { offsetof(struct xdp_md, data), offsetof(struct xdp_md, data_end), BPF_W } },
	{ BPF_PROG_TYPE_PERF_EVENT, 0, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, SKB_PKT },
	{ BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_LWT_IN, 0, SKB_PKT },
	{ BPF_PROG_TYPE_LWT_XMIT, 0, SKB_PKT },
	{ BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS,
	  { offsetof(struct bpf_sock_ops, skb_data), offsetof(struct bpf_sock_ops, skb_data_end),
	    BPF_DW } },
	{ BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_VERDICT, SKB_PKT },
	{ BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT,
	  { offsetof(struct sk_msg_md, data), offsetof(struct sk_msg_md, data_end), BPF_DW } },
	{ BPF_PROG_TYPE_RAW_TRACEPOINT, 0, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_FLOW_DISSECTOR, SKB_PKT },
	{ BPF_PROG_TYPE_CGROUP_SYSCTL, BPF_CGROUP_SYSCTL, { 0, 0, 0 } },
	{ BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_SETSOCKOPT,
	  { offsetof(struct bpf_sockopt, optval), offsetof(struct bpf_sockopt, optval_end),
	    BPF_DW } },
	{ BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP, { 0, 0, 0 } },
#undef SKB_PKT
};

/* What an argument register holds. */
enum kind { ZERO, EIGHT, STACK, CTX, MAP, MAP_VALUE, PKT, KINDS };
static const char *const kind_names[] = { "0", "8", "fp-32", "ctx", "map", "map value",
					  "packet" };

/* The program: zeroed stack, then (as the kinds need) a map value in r7 and 32 packet bytes in
 * r8, the arguments, the call, and r0 = 1. */
static uint32_t build(struct bpf_insn *p, uint32_t id, const enum kind arg[5],
		      const struct pkt_src *pkt)
{
	bool need_value = false, need_pkt = false;
	uint32_t n, skip_at[2], nskip;

	for (int i = 0; i < 5; i++) {
		need_value |= arg[i] == MAP_VALUE;
		need_pkt |= arg[i] == PKT;
	}
	n = sweep_start(p, need_value ? SV_CHECKED : SV_NONE, pkt, need_pkt ? 32 : 0, skip_at,
			&nskip);
	for (int i = 0; i < 5; i++) {
		int r = BPF_REG_1 + i;

		switch (arg[i]) {
		case ZERO:
			p[n++] = BPF_MOV64_IMM(r, 0);
			break;
		case EIGHT:
			p[n++] = BPF_MOV64_IMM(r, 8);
			break;
		case STACK:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_10);
			p[n++] = BPF_ALU64_IMM(BPF_ADD, r, -32);
			break;
		case CTX:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_6);
			break;
		case MAP: {
			struct bpf_insn ld[2] = { BPF_LD_MAP_FD(r, 0) };

			p[n++] = ld[0];
			p[n++] = ld[1];
			break;
		}
		case MAP_VALUE:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_7);
			break;
		case PKT:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_8);
			break;
		case KINDS:
			break;
		}
	}
	p[n++] = BPF_EMIT_CALL(id);
	sweep_skips_to(p, skip_at, nskip, n); /* the checks that failed come here */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

TEST(diff_helper_args)
{
	int map[NSIDES], programs = 0, accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 64, 1, 0).rc;
		REQUIRE(map[s] >= 0);
	}
	for (size_t t = 0; t < N(types); t++) {
		for (uint32_t id = 1; id < 212; id++) {
			if (!bpf_helper_proto_attach(id, types[t].type, types[t].eat))
				continue; /* (test_helpers.c: the kernel has it not either) */
			if (kernel_lacks_helper(types[t].type, id))
				continue;
			for (int k = 0; k < KINDS; k++) {
				/* 0: all of the kind; 1: ctx first; 2: the kind, then 8s */
				for (int form = 0; form < 3; form++) {
					struct bpf_insn insns[NSIDES][64];
					enum kind arg[5];
					char what[96];
					uint32_t n;

					if ((k == PKT && !types[t].pkt.data_end) ||
					    (form == 1 && k == CTX) || (form == 2 && k == EIGHT))
						continue;
					for (int i = 0; i < 5; i++)
						arg[i] = form == 1 && !i ? CTX
							 : form == 2 && i ? EIGHT
									  : (enum kind)k;
					for (int s = 0; s < NSIDES; s++) {
						n = build(insns[s], id, arg, &types[t].pkt);
						fill_map_fds(insns[s], n, map[s]);
					}
					snprintf(what, sizeof(what), "type %u helper %u args %s%s%s",
						 types[t].type, id, form == 1 ? "ctx, " : "",
						 kind_names[k], form == 2 ? ", 8..." : "");
					accepted += verdicts_agree_eat_at(__FILE__, __LINE__, what,
									  types[t].type, types[t].eat,
									  insns[K], insns[U], n);
					programs++;
				}
			}
		}
	}
	if (getenv("TEST_VERBOSE"))
		printf("diff_helper_args: %d programs, %d accepted\n", programs, accepted);
	CHECK(programs > 10000 && accepted > 1000);
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
}
