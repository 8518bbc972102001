/* Running loaded programs: the run-time packet state behind a context, and the entry points
 * BPF_PROG_TEST_RUN (test_run.c) and the helpers (src/exec/helpers/) share.
 *
 * A program's r1 points at a struct skb_ctx / xdp_ctx (src/exec/ctx.h).  For socket filters and
 * tc programs that context is the first member of a struct run_skb, which also records what the
 * kernel keeps in its sk_buff: where the buffer, the mac and network headers are, and the
 * checksum state.  Helpers that take the ctx (skb_load_bytes, skb_store_bytes) and the
 * interpreter's LD_ABS/LD_IND callback recover the run_skb with container_of.
 *
 * Invariants of a run_skb: head <= mac <= net, head <= ctx.data <= ctx.data_end == tail <= end,
 * ctx.uapi.len == ctx.data_end - ctx.data.  Helpers that grow or shrink the packet
 * (skb_change_head/tail, skb_vlan_push/pop) move these pointers, and may move the whole buffer
 * (a new head, when can_grow) as the kernel reallocates an skb; the verifier has made the
 * program forget its packet pointers across such calls, as the kernel's does.
 */
#ifndef USERBPF_PROG_RUN_H
#define USERBPF_PROG_RUN_H

#include "exec/ctx.h"
#include "exec/helpers.h"
#include "exec/interp.h"
#include "exec/jit.h"
#include "exec/sock.h"
#include "map/sk_storage.h"
#include "prog/prog.h"
#include "prog/stats.h"
#include "util.h"

struct bpf_prog;

struct run_skb {
	struct skb_ctx ctx;	/* must stay first: r1 */
	u8 *head;		/* first byte of the buffer (headroom included) */
	u8 *end;		/* one past the buffer's last byte (tailroom included) */
	bool can_grow;		/* the buffer is malloc'ed and may be reallocated (a test run's) */
	u8 *tail;		/* one past the last packet byte */
	u8 *mac;		/* mac (Ethernet) header */
	u8 *net;		/* network header, mac + ETH_HLEN */
	bool encapsulation;	/* bpf_skb_adjust_room() added an encapsulation header */
	bool csum_complete;	/* csum covers [net, tail) (the kernel's CHECKSUM_COMPLETE) */
	bool csum_unnecessary;	/* CHECKSUM_UNNECESSARY (bpf_csum_level()), csum_level deep */
	u8 csum_level;
	bool csum_check;	/* BPF_F_TEST_SKB_CHECKSUM_COMPLETE: the run ends by comparing csum
				 * with the sum of [net, tail), whatever csum_complete became */
	u32 csum;		/* ones' complement sum, unfolded */
	u64 sock_cookie;	/* the dummy socket's cookie once asked for (0: not yet) */
	/* Tunnel metadata set by bpf_skb_set_tunnel_key/opt (the kernel's ip_tunnel_info, in
	 * its byte orders: tun_id as a value, addresses and label as on the wire) */
	struct {
		bool set, ipv6;
		u16 flags;		/* TUNNEL_* as in the kernel's legacy __be16, host order */
		u8 tos, ttl;
		u64 id;
		u32 src[4], dst[4], label;
		u8 opts[255];
		u32 opts_len;
	} tun;
	struct prog_sock sock;	/* the dummy socket __sk_buff.sk points at (run_skb_set_sock),
				 * with its storage (bpf_sk_storage_get()) */
};

/* The test run's dummy socket, as the kernel's bpf_prog_test_run_skb() makes it: closed, no
 * ports, no queue, of the packet's family with its addresses (IPv4 or IPv6 with a full header
 * after the Ethernet one, protocol proto_be), AF_UNSPEC otherwise; __sk_buff.sk points at it. */
void run_skb_set_sock(struct run_skb *skb, u16 proto_be);

static inline struct run_skb *run_skb_of(const void *ctx)
{
	return container_of((struct skb_ctx *)ctx, struct run_skb, ctx);
}

/* At least head bytes of headroom before ctx.data and tail bytes of tailroom after the packet:
 * the buffer is moved to a larger one (every pointer into it with it) when can_grow, as the
 * kernel's skb_cow()/pskb_expand_head() would; 0 or -ENOMEM (src/exec/helpers/skb.c). */
int run_skb_room(struct run_skb *skb, u32 head, u32 tail);

/* Ones' complement sum of len bytes at p added to sum, with p's first byte taken as the high
 * byte of a 16-bit word when even is true (the kernel's csum_partial at an even offset). */
u32 csum_add_bytes(u32 sum, const u8 *p, u32 len, bool even);
/* Folds a 32-bit ones' complement sum to 16 bits. */
u16 csum_fold16(u32 sum);

/* The interpreter's LD_ABS/LD_IND source for a run_skb (interp_env.load_pkt). */
const void *run_skb_load_pkt(u64 ctx, s32 off, u32 size, void *buf);

/* Fills fns[0..n) with the helper functions a program of prog_type may call (NULL for the others)
 * and returns how many entries it filled (src/exec/helpers.c). */
u32 helper_fns(u32 prog_type, bpf_helper_fn *fns, u32 n);

/* jit_opts.resolve_call for a verified program (arg: the struct bpf_prog): direct calls of map
 * ops and inline array lookups for map helpers whose map is known (src/exec/helpers/map.c). */
int prog_resolve_call(void *arg, const void *fn, u64 r1, struct jit_call *how);

/* bpf_tail_call() at run time (tail_call.c): interp_env.tail_call's contract.  A run of a
 * program with tail calls first resets the per-thread count of taken ones. */
int prog_tail_call(u64 ctx, u64 map, u64 index, u64 *r0);
void prog_run_reset_tail_calls(void);

/* Prepares prog (verified) for the interpreter: prog->interp.  0 or -errno. */
int prog_prepare(struct bpf_prog *prog);

/* BPF_PROG_TEST_RUN for the skb types and XDP (test_run.c); attr checked, prog referenced. */
int test_run_skb(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);
int test_run_xdp(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);
int test_run_raw_tp(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);
int test_run_tracing(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);
int test_run_flow_dissector(struct bpf_prog *prog, const union bpf_attr *attr,
			    union bpf_attr *uattr);
int test_run_sk_lookup(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);
int test_run_syscall(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr);

/* The kernel's bpf_test_run() loop: runs prog repeat times (0 means 1) with r1..r5 = args,
 * inside read sections; *r0 gets the last run's r0 (0 after a run-time error, which a verified
 * program cannot have), *duration the mean ns per run saturated to u32. */
void prog_repeat(const struct bpf_prog *prog, const u64 args[5], u32 repeat, u64 *r0,
		 u32 *duration);

/* Runs a prepared program once: its native code when the JIT took it, else the interpreter.
 * r0 is 0 after a run-time error, as on the kernel.  (One run outside a read section; repeated
 * runs: prog_repeat().) */
static inline void prog_exec(const struct bpf_prog *prog, const u64 args[5], u64 *r0)
{
	bool stats = prog_stats_on();
	u64 start = stats ? prog_clock_ns() : 0;

	if (prog->has_tail_call)
		prog_run_reset_tail_calls();
	if (prog->jit)
		jit_exec(prog->jit, args, r0);
	else
		interp_exec(prog->interp, args, r0);
	if (stats)
		prog_stats_add(prog, 1, prog_clock_ns() - start);
}

#endif
