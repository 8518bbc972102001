/* bpf_fib_lookup() against the kernel, in a network namespace made for the test: two veth
 * pairs with IPv4 and IPv6 addresses, neighbours in valid, invalid and failed states, and routes
 * of every kind the helper reports on (via a gateway, on-link, an IPv6 gateway for IPv4,
 * blackhole, unreachable, prohibit, an MTU locked or not, a preferred source, metrics, TOS,
 * other tables, default routes, nexthop objects), forwarding on for some devices only.  An XDP and a tc program
 * copy a struct bpf_fib_lookup and flags from a map value, call the helper and store its result
 * and the struct back; scripted and random lookups (families, destinations, sources, devices,
 * every flag, MTUs, TOS, marks, tables, protocols, ports, packet sizes) run on both sides, in
 * three phases: without rules of the namespace's own, after policy rules of every kind are
 * added, and with the namespace's IPv6 forwarding switch off.  Each must give the kernel's
 * result and the kernel's bytes.  The same namespace's devices (other MTUs, more receive
 * queues) serve bpf_check_mtu() and XDP test runs whose ctx names a device and queue.  Skipped
 * without the kernel's bpf(), where no network namespace can be made, or without iproute2's
 * `ip`, which builds the namespace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define VAL_SIZE 80 /* params (64), flags, plen, the result (u64) */
#define FIB_MARK_FLAG (1u << 5)

enum { XDP, TC, NPROGS };

struct fixture {
	int map[NSIDES];
	int prog[NSIDES][NPROGS][2]; /* [plen 64, plen 48] */
	uint32_t ifindex[4];	     /* a0, a1, b0, b1 */
	int cases, codes[10], mtu_checks, rx_runs;
};

/* r0 = bpf_fib_lookup(ctx, params copied from the map value, plen, flags from the value);
 * the params and r0 stored back. */
static int load(int s, int map, uint32_t type, int32_t plen)
{
	struct bpf_insn p[64];
	int n = 0;

	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0);
	p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4);
	{
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, map) };

		p[n++] = ld[0];
		p[n++] = ld[1];
	}
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
	p[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	p[n++] = BPF_MOV64_REG(BPF_REG_7, BPF_REG_0);
	for (int i = 0; i < 8; i++) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_7, (short)(8 * i));
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, (short)(-72 + 8 * i));
	}
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
	p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -72);
	p[n++] = BPF_MOV64_IMM(BPF_REG_3, plen);
	p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_7, 64);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_fib_lookup);
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_0, 72);
	for (int i = 0; i < 8; i++) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, (short)(-72 + 8 * i));
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, (short)(8 * i));
	}
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, type == BPF_PROG_TYPE_XDP ? 2 : 0);
	p[n++] = BPF_EXIT_INSN();
	return side_prog_load(s, type, p, (uint32_t)n);
}

/* r0 = bpf_check_mtu(ctx, ifindex, &mtu_len, len_diff, flags) with the four from the map value
 * (MTU_*), mtu_len and r0 stored back. */
enum { MTU_IFINDEX = 0, MTU_LEN = 4, MTU_DIFF = 8, MTU_FLAGS = 12, MTU_RC = 16 };
static int load_check_mtu(int s, int map, uint32_t type)
{
	struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, map) };
	const struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		ld[0], ld[1],
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_7, MTU_LEN),
		BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -8),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_7, MTU_IFINDEX),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_7, MTU_DIFF),
		BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_7, MTU_FLAGS),
		BPF_EMIT_CALL(BPF_FUNC_check_mtu),
		BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_0, MTU_RC),
		BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_10, -8),
		BPF_STX_MEM(BPF_W, BPF_REG_7, BPF_REG_1, MTU_LEN),
		BPF_MOV64_IMM(BPF_REG_0, type == BPF_PROG_TYPE_XDP ? 2 : 0),
		BPF_EXIT_INSN(),
	};

	return side_prog_load(s, type, p, sizeof(p) / sizeof(*p));
}

/* bpf_check_mtu() on this namespace's devices (b0's MTU 1400, b1's 9000): random devices
 * (none: the packet's own, missing ones), lengths, differences and flags, XDP and tc, packets
 * of several sizes: the kernel's result and MTU.  How many agreed. */
static int check_mtu_agree(struct fixture *f, uint64_t *seed)
{
	static const uint32_t lens[] = { 0, 0, 64, 1386, 1400, 1401, 1500, 1501, 8986, 9001 };
	static const int32_t diffs[] = { 0, 0, 1, -1, 100, -100, 1500, -2000 };
	static const uint32_t pkt_lens[] = { 64, 1414, 1415, 1514, 1515, 1600 };
	static uint8_t pkt[1700];
	int prog[NSIDES][NPROGS], agreed = 0;

	for (int s = 0; s < NSIDES; s++) {
		prog[s][XDP] = load_check_mtu(s, f->map[s], BPF_PROG_TYPE_XDP);
		prog[s][TC] = load_check_mtu(s, f->map[s], BPF_PROG_TYPE_SCHED_CLS);
		if (prog[s][XDP] < 0 || prog[s][TC] < 0) {
			test_fail(__FILE__, __LINE__, "side %d: the check_mtu programs do not load",
				  s);
			return 0;
		}
	}
	for (int i = 0; i < 400 && !test_failed_now(); i++) {
		uint64_t x = xorshift64(seed);
		uint32_t devs[] = { 0, f->ifindex[0], f->ifindex[1], f->ifindex[2], f->ifindex[3],
				    1, 999 };
		uint32_t in[4] = { devs[x % 7], lens[(x >> 8) % 10], (uint32_t)diffs[(x >> 16) % 8],
				   (x >> 24) % 8 == 0 ? 1 : (x >> 24) % 8 == 1 ? 2 : 0 };
		int t = (int)((x >> 32) & 1);
		uint32_t len = pkt_lens[(x >> 40) % 6], key = 1, ret;
		_Alignas(8) uint8_t v[NSIDES][VAL_SIZE];
		struct bpf_result r[NSIDES];
		char what[64];

		snprintf(what, sizeof(what), "check_mtu %d (%s)", i, t == XDP ? "xdp" : "tc");
		for (int s = 0; s < NSIDES; s++) {
			memset(v[s], 0, VAL_SIZE);
			memcpy(v[s], in, sizeof(in));
			side_elem(s, BPF_MAP_UPDATE_ELEM, f->map[s], &key, v[s], 0);
			r[s] = side_test_run(s, prog[s][t], pkt, len, &ret);
			side_elem(s, BPF_MAP_LOOKUP_ELEM, f->map[s], &key, v[s], 0);
		}
		if (!AGREE(what, r))
			continue;
		if (memcmp(v[K], v[U], MTU_RC + 8))
			test_fail(__FILE__, __LINE__,
				  "%s: dev %u len %u diff %d flags %u, packet %u: kernel mtu %u "
				  "rc %lld, userbpf mtu %u rc %lld", what, in[0], in[1], (int)in[2],
				  in[3], len, *(uint32_t *)(v[K] + MTU_LEN),
				  *(long long *)(v[K] + MTU_RC), *(uint32_t *)(v[U] + MTU_LEN),
				  *(long long *)(v[U] + MTU_RC));
		else
			agreed++;
	}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s][XDP]), close(prog[s][TC]);
	return agreed;
}

/* XDP test runs with a ctx naming this namespace's devices (c0 has 4 receive queues, c1 2, the
 * others 1) and queues: the kernel's results (a queue past the device's: EINVAL; no device:
 * ENODEV) and the ctx it gives back.  How many agreed. */
static int rx_queues_agree(struct fixture *f)
{
	const struct bpf_insn ret2[] = { BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN() };
	uint32_t devs[] = { 1, f->ifindex[0], f->ifindex[2], if_nametoindex("c0"),
			    if_nametoindex("c1"), 999 };
	int prog[NSIDES], agreed = 0;
	uint8_t pkt[64] = { 0 };

	for (int s = 0; s < NSIDES; s++)
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, ret2, 2);
	if (prog[K] < 0 || prog[U] < 0) {
		test_fail(__FILE__, __LINE__, "the XDP program does not load");
		return 0;
	}
	for (size_t d = 0; d < sizeof(devs) / sizeof(*devs); d++)
		for (uint32_t q = 0; q < 6; q++) {
			struct xdp_md in = { .data_end = sizeof(pkt), .ingress_ifindex = devs[d],
					     .rx_queue_index = q }, out[NSIDES];
			struct bpf_result r[NSIDES];
			uint32_t ret[NSIDES];
			char what[64];

			snprintf(what, sizeof(what), "xdp ctx: device %u queue %u", devs[d], q);
			for (int s = 0; s < NSIDES; s++) {
				memset(&out[s], 0, sizeof(out[s]));
				r[s] = side_test_run_ctx(s, prog[s], pkt, sizeof(pkt), 1, &in,
							 sizeof(in), &out[s], sizeof(out[s]),
							 &ret[s]);
			}
			if (!AGREE(what, r))
				continue;
			if (memcmp(&out[K], &out[U], sizeof(out[K])))
				test_fail(__FILE__, __LINE__, "%s: the ctx out differs", what);
			else
				agreed++;
		}
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
	return agreed;
}

static bool sh(const char *cmd)
{
	char full[512];

	snprintf(full, sizeof(full), "%s >/dev/null 2>&1", cmd);
	return system(full) == 0;
}

static bool put_sysctl(const char *path, const char *v)
{
	FILE *f = fopen(path, "we");
	bool ok = f && fputs(v, f) >= 0;

	if (f)
		ok &= fclose(f) == 0;
	return ok;
}

/* The namespace's devices, addresses, neighbours and routes. */
static const char *const setup[] = {
	"ip link set lo up",
	"ip link add a0 address 02:00:00:00:00:a0 type veth peer name a1 address 02:00:00:00:00:a1",
	"ip link add b0 address 02:00:00:00:00:b0 type veth peer name b1 address 02:00:00:00:00:b1",
	"ip link set a0 up", "ip link set a1 up", "ip link set b0 up", "ip link set b1 up",
	"ip link set b0 mtu 1400", "ip link set b1 mtu 9000",
	"ip link add c0 numrxqueues 4 type veth peer name c1 numrxqueues 2",
	"ip link set c0 up", "ip link set c1 up",
	"ip addr add 10.1.0.1/24 dev a0",
	"ip addr add 10.2.0.1/24 dev b0",
	"ip addr add 10.2.0.5/24 dev b0",
	"ip -6 addr add fd01::1/64 dev a0 nodad",
	"ip -6 addr add fd02::1/64 dev b0 nodad",
	"ip neigh add 10.2.0.2 lladdr 02:00:00:00:02:02 dev b0 nud permanent",
	"ip neigh add 10.1.0.9 lladdr 02:00:00:00:01:09 dev a0 nud stale",
	"ip neigh add 10.2.0.3 lladdr 02:00:00:00:02:03 dev b0 nud noarp",
	"ip neigh add 10.13.0.7 lladdr 02:00:00:00:13:07 dev b0 nud reachable",
	"ip neigh add 10.13.0.8 dev b0 nud incomplete",
	"ip -6 neigh add fd02::2 lladdr 02:00:00:00:06:02 dev b0 nud permanent",
	"ip -6 neigh add fd01::9 lladdr 02:00:00:00:06:09 dev a0 nud stale",
	"ip -6 neigh add fd02::9 dev b0 nud failed",
	"ip neigh add 10.2.0.9 dev b0 nud failed",
	"ip route add 10.3.0.0/16 via 10.2.0.2",
	"ip route add 10.4.0.0/16 via 10.2.0.9",
	"ip route add blackhole 10.5.0.0/16",
	"ip route add unreachable 10.6.0.0/16",
	"ip route add prohibit 10.7.0.0/16",
	"ip route add 10.8.0.0/16 via 10.2.0.2 mtu lock 1400",
	"ip route add 10.9.0.0/16 via 10.1.0.9 table 100",
	"ip route add 10.10.0.0/16 via 10.2.0.2 src 10.1.0.1",
	"ip route add 10.11.0.0/16 via 10.2.0.2 metric 50",
	"ip route add 10.11.0.0/16 via 10.1.0.9 metric 10",
	"ip route add 10.12.0.0/16 tos 0x10 via 10.1.0.9",
	"ip route add 10.12.0.0/16 via 10.2.0.2",
	"ip route add 10.13.0.0/24 dev b0",
	"ip route add 10.14.0.0/16 via 10.2.0.3 mtu 1300",
	"ip route add 10.15.0.0/16 via inet6 fd02::2 dev b0",
	"ip route add 10.16.0.0/16 via 10.2.0.2 dev b0 onlink",
	"ip route add default via 10.1.0.9",
	"ip nexthop add id 10 via 10.2.0.2 dev b0",
	"ip route add 10.17.0.0/16 nhid 10",
	"ip nexthop add id 11 blackhole",
	"ip route add 10.18.0.0/16 nhid 11",
	"ip -6 route add fd03::/64 via fd02::2",
	"ip -6 route add fd04::/64 via fd02::9",
	"ip -6 route add fd04::/64 via fd01::9 metric 2048",
	"ip -6 route add blackhole fd05::/64",
	"ip -6 route add unreachable fd06::/64",
	"ip -6 route add prohibit fd07::/64",
	"ip -6 route add fd08::/64 via fd02::2 mtu lock 1400",
	"ip -6 route add fd09::/64 via fd01::9 table 100",
	"ip -6 route add fd0a::/64 via fd02::2 src fd01::1",
	"ip -6 route add fd0b::/64 via fd02::2 metric 50",
	"ip -6 route add fd0b::/64 via fd01::9 metric 10",
	"ip -6 route add default via fd01::9",
	"ip -6 nexthop add id 20 via fd02::2 dev b0",
	"ip -6 route add fd0c::/64 nhid 20",
};

/* The second phase's policy rules, with a selector or action of each kind, and their tables. */
static const char *const rules[] = {
	"ip route add 10.3.0.0/16 via 10.1.0.9 table 200",
	"ip route add default via 10.2.0.2 table 200",
	"ip route add 10.3.0.0/16 via 10.2.0.3 table 300",
	"ip route add 10.12.0.0/16 via 10.2.0.3 table 300",
	"ip -6 route add fd03::/64 via fd01::9 table 200",
	"ip rule add pref 100 from 192.0.2.7 lookup 200",
	"ip rule add pref 110 iif a1 lookup 200",
	"ip rule add pref 120 to 10.11.0.0/16 tos 0x10 lookup 200",
	"ip rule add pref 130 ipproto tcp dport 443 lookup 300",
	"ip rule add pref 140 fwmark 7 lookup 100",
	"ip rule add pref 145 fwmark 0x4/0x6 lookup 300",
	"ip rule add pref 150 to 10.6.0.0/16 unreachable",
	"ip rule add pref 160 to 10.7.0.0/16 prohibit",
	"ip rule add pref 165 to 10.5.0.0/16 blackhole",
	"ip rule add pref 170 not iif a0 lookup 300",
	"ip rule add pref 180 lookup main suppress_prefixlength 0",
	"ip rule add pref 190 from 10.1.0.1 goto 220",
	"ip rule add pref 200 to 10.4.0.0/16 lookup 200",
	"ip rule add pref 220 uidrange 1000-2000 lookup 200",
	"ip rule add pref 230 oif b0 lookup 200",
	"ip rule add pref 240 sport 1001 lookup 300",
	"ip -6 rule add pref 100 from 2001:db8::7 lookup 200",
	"ip -6 rule add pref 110 iif a1 lookup 200",
	"ip -6 rule add pref 140 fwmark 7 lookup 100",
};

/* Addresses the random lookups take, most inside the routes above. */
static const char *const v4_dsts[] = {
	"10.3.1.1", "10.4.0.1", "10.5.0.1", "10.6.0.1", "10.7.0.1", "10.8.0.1", "10.9.0.1",
	"10.10.0.1", "10.11.0.1", "10.12.0.1", "10.13.0.7", "10.13.0.8", "10.13.0.9",
	"10.14.0.1", "10.15.0.1", "10.16.0.1", "10.1.0.1", "10.1.0.9", "10.2.0.2", "10.2.0.3",
	"10.2.0.255", "192.0.2.1", "127.0.0.1", "0.0.0.1", "8.8.8.8", "10.2.0.5", "0.0.0.0", "10.17.0.1", "10.18.0.1",
};
static const char *const v4_srcs[] = { "0.0.0.0", "10.1.0.1", "192.0.2.7", "10.2.0.5" };
static const char *const v6_dsts[] = {
	"fd03::1", "fd04::1", "fd05::1", "fd06::1", "fd07::1", "fd08::1", "fd09::1", "fd0a::1",
	"fd0b::1", "fd02::2", "fd01::9", "fd01::1", "2001:db8::1", "fe80::1", "ff02::1", "::1",
	"fd02::77", "fd0c::1",
};
static const char *const v6_srcs[] = { "::", "fd01::1", "2001:db8::7", "fe80::5" };

struct lookup {
	struct bpf_fib_lookup p;
	uint32_t flags;
	int plen_short, prog;
	uint32_t pkt_len;
};

/* One lookup on both sides: the same result, the same bytes. */
static void lookup_agree(struct fixture *f, const struct lookup *l, const char *what)
{
	static uint8_t pkt[1700];
	_Alignas(8) uint8_t v[NSIDES][VAL_SIZE];
	uint32_t key = 0, ret;
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		memset(v[s], 0, VAL_SIZE);
		memcpy(v[s], &l->p, 64);
		memcpy(v[s] + 64, &l->flags, 4);
		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, f->map[s], &key, v[s], 0);
		if (r[s].rc < 0) {
			test_fail(__FILE__, __LINE__, "%s: map update: %s", what,
				  strerror(r[s].err));
			return;
		}
		r[s] = side_test_run(s, f->prog[s][l->prog][l->plen_short], pkt, l->pkt_len, &ret);
		if (r[s].rc < 0 ||
		    side_elem(s, BPF_MAP_LOOKUP_ELEM, f->map[s], &key, v[s], 0).rc < 0)
			memset(v[s], 0xee, VAL_SIZE);
	}
	if (!AGREE(what, r))
		return;
	f->cases++;
	if (memcmp(v[K] + 72, v[U] + 72, 8) || memcmp(v[K], v[U], 64)) {
		char hex[NSIDES][2 * VAL_SIZE + 1];

		for (int s = 0; s < NSIDES; s++)
			for (int i = 0; i < VAL_SIZE; i++)
				sprintf(hex[s] + 2 * i, "%02x", v[s][i]);
		test_fail(__FILE__, __LINE__, "%s (flags %#x, %s): kernel %s, userbpf %s", what,
			  l->flags, l->prog == XDP ? "xdp" : "tc", hex[K], hex[U]);
		return;
	}
	int64_t rc;

	memcpy(&rc, v[K] + 72, 8);
	if (rc >= 0 && rc < 10)
		f->codes[rc]++;
	if (getenv("TEST_VERBOSE"))
		printf("  %s flags %#x: %lld\n", what, l->flags, (long long)rc);
}

static void random_lookup(struct fixture *f, uint64_t *seed, struct lookup *l)
{
	static const uint16_t tot_lens[] = { 0, 0, 0, 1000, 1300, 1400, 1401, 1500, 1501, 9000 };
	static const uint8_t tos[] = { 0, 0, 0x10, 0x14, 0x1c, 0xff };
	static const uint32_t tbids[] = { 0, 100, 254, 255, 253, 1000 };
	static const uint8_t protos[] = { 0, 6, 17, 1, 58, 47 };
	static const uint32_t pkt_lens[] = { 64, 1514, 1518, 1519, 1600 };
	uint64_t x = xorshift64(seed);
	uint32_t devs[] = { f->ifindex[0], f->ifindex[1], f->ifindex[2], f->ifindex[3], 1, 999 };

	memset(l, 0, sizeof(*l));
	l->prog = (int)(x & 1);
	l->plen_short = (x >> 1) % 40 == 0;
	l->pkt_len = pkt_lens[(x >> 8) % 5];
	l->flags = (uint32_t)(xorshift64(seed) & 0x3f);
	if ((x >> 16) % 50 == 0)
		l->flags |= 1u << (6 + (x >> 24) % 8);
	l->p.family = (x >> 32) % 30 == 0 ? AF_UNSPEC : (x >> 33) % 3 == 0 ? AF_INET6 : AF_INET;
	l->p.ifindex = devs[(x >> 36) % 16 < 10 ? 0 : (x >> 40) % 6];
	l->p.tot_len = tot_lens[(x >> 44) % 10];
	l->p.l4_protocol = protos[(x >> 48) % 6];
	l->p.sport = htons(1000 + (uint16_t)((x >> 52) % 3));
	l->p.dport = htons((x >> 56) & 1 ? 443 : 80);
	x = xorshift64(seed);
	if (l->p.family == AF_INET6) {
		inet_pton(AF_INET6, v6_dsts[x % (sizeof(v6_dsts) / sizeof(*v6_dsts))],
			  l->p.ipv6_dst);
		inet_pton(AF_INET6, v6_srcs[(x >> 8) % 4], l->p.ipv6_src);
		l->p.flowinfo = htonl((uint32_t)tos[(x >> 16) % 6] << 20);
	} else {
		inet_pton(AF_INET, v4_dsts[x % (sizeof(v4_dsts) / sizeof(*v4_dsts))],
			  &l->p.ipv4_dst);
		inet_pton(AF_INET, v4_srcs[(x >> 8) % 4], &l->p.ipv4_src);
		l->p.tos = tos[(x >> 16) % 6];
	}
	if (l->flags & BPF_FIB_LOOKUP_TBID)
		l->p.tbid = tbids[(x >> 24) % 6];
	if (l->flags & FIB_MARK_FLAG)
		memcpy(l->p.smac, &(uint32_t){ (x >> 32) % 3 ? 7u : (x >> 34) % 2 ? 3u : 4u }, 4);
}

static void scripted(struct fixture *f)
{
	static const struct {
		const char *dst;
		uint32_t flags;
		uint16_t tot_len;
	} v4[] = {
		{ "10.3.1.1", 0, 0 }, { "10.3.1.1", BPF_FIB_LOOKUP_DIRECT, 0 },
		{ "10.3.1.1", BPF_FIB_LOOKUP_SRC, 0 }, { "10.4.0.1", 0, 0 },
		{ "10.4.0.1", BPF_FIB_LOOKUP_SKIP_NEIGH, 0 }, { "10.5.0.1", 0, 0 },
		{ "10.6.0.1", 0, 0 }, { "10.7.0.1", BPF_FIB_LOOKUP_DIRECT, 0 },
		{ "10.8.0.1", 0, 1401 }, { "10.8.0.1", 0, 1400 }, { "10.14.0.1", 0, 1400 },
		{ "10.9.0.1", BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_TBID, 0 },
		{ "10.10.0.1", BPF_FIB_LOOKUP_SRC, 0 }, { "10.11.0.1", 0, 0 },
		{ "10.13.0.7", 0, 0 }, { "10.13.0.8", 0, 0 }, { "10.15.0.1", 0, 0 },
		{ "8.8.8.8", BPF_FIB_LOOKUP_SRC, 1500 }, { "10.1.0.1", 0, 0 },
		{ "10.2.0.2", BPF_FIB_LOOKUP_OUTPUT, 0 },
	};
	struct lookup l;

	for (size_t i = 0; i < sizeof(v4) / sizeof(*v4); i++)
		for (int prog = 0; prog < NPROGS; prog++) {
			memset(&l, 0, sizeof(l));
			l.prog = prog;
			l.pkt_len = 64;
			l.flags = v4[i].flags;
			l.p.family = AF_INET;
			l.p.ifindex = f->ifindex[0];
			l.p.tot_len = v4[i].tot_len;
			if (l.flags & BPF_FIB_LOOKUP_TBID)
				l.p.tbid = 100;
			inet_pton(AF_INET, v4[i].dst, &l.p.ipv4_dst);
			lookup_agree(f, &l, v4[i].dst);
		}
}

static void in_namespace(void *arg)
{
	struct fixture *f = arg;
	static const char *const names[] = { "a0", "a1", "b0", "b1" };
	uint64_t seed = 0x6b1b5eedull;
	char path[128];

	for (size_t i = 0; i < sizeof(setup) / sizeof(*setup); i++)
		if (!sh(setup[i])) {
			test_fail(__FILE__, __LINE__, "setting up the namespace: %s", setup[i]);
			return;
		}
	for (int i = 0; i < 4; i++) {
		f->ifindex[i] = if_nametoindex(names[i]);
		REQUIRE(f->ifindex[i] != 0);
	}
	for (int phase = 0; phase < 3; phase++) {
		struct lookup l;
		char what[64];

		/* Forwarding on for every device but b0.  IPv6's "all" switch (which sets every
		 * device's as it changes) is on in the first two phases, off in the last: the
		 * kernel's IPv6 lookups then pass over routes through failed neighbours first. */
		REQUIRE(put_sysctl("/proc/sys/net/ipv6/conf/all/forwarding",
				   phase < 2 ? "1" : "0"));
		for (int i = 0; i < 4; i++) {
			const char *on = i != 2 ? "1" : "0";

			snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/forwarding",
				 names[i]);
			REQUIRE(put_sysctl(path, on));
			snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/forwarding",
				 names[i]);
			REQUIRE(put_sysctl(path, on));
		}
		if (!phase) {
			scripted(f);
			f->mtu_checks = check_mtu_agree(f, &seed);
			f->rx_runs = rx_queues_agree(f);
		}
		for (int i = 0; i < 1000 && !test_failed_now(); i++) {
			random_lookup(f, &seed, &l);
			snprintf(what, sizeof(what), "phase %d lookup %d", phase, i);
			lookup_agree(f, &l, what);
		}
		/* rules of this namespace's own: the kernel's IPv4 tables come apart */
		for (size_t i = 0; !phase && i < sizeof(rules) / sizeof(*rules); i++)
			if (!sh(rules[i])) {
				test_fail(__FILE__, __LINE__, "adding a rule: %s", rules[i]);
				return;
			}
	}
}

TEST(diff_fib_lookup)
{
	struct fixture f;
	int err;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!sh("ip -V"))
		SKIP("iproute2's ip not found: it builds the test's network namespace");
	memset(&f, 0, sizeof(f));
	for (int s = 0; s < NSIDES; s++) {
		f.map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, VAL_SIZE, 2, 0).rc;
		REQUIRE(f.map[s] >= 0);
		for (int plen = 0; plen < 2; plen++) {
			f.prog[s][XDP][plen] = load(s, f.map[s], BPF_PROG_TYPE_XDP, plen ? 48 : 64);
			f.prog[s][TC][plen] = load(s, f.map[s], BPF_PROG_TYPE_SCHED_CLS,
						   plen ? 48 : 64);
			REQUIRE(f.prog[s][XDP][plen] >= 0 && f.prog[s][TC][plen] >= 0);
		}
	}
	err = in_private_netns(in_namespace, &f);
	for (int s = 0; s < NSIDES; s++) {
		for (int p = 0; p < NPROGS; p++)
			close(f.prog[s][p][0]), close(f.prog[s][p][1]);
		close(f.map[s]);
	}
	if (err)
		SKIP("cannot make a network namespace (%s)", strerror(-err));
	printf("diff_fib_lookup: %d lookups with the kernel's results; by code:", f.cases);
	for (int i = 0; i < 10; i++)
		printf(" %d", f.codes[i]);
	printf("\n");
	printf("diff_fib_lookup: %d bpf_check_mtu() calls with the kernel's results\n",
	       f.mtu_checks);
	CHECK(f.cases >= 3000);
	CHECK(f.mtu_checks >= 350);
	printf("diff_fib_lookup: %d XDP runs on the namespace's devices' queues with the kernel's "
	       "results\n", f.rx_runs);
	CHECK_EQ(f.rx_runs, 36);
	/* every answer but UNSUPP_LWT and NO_SRC_ADDR comes up */
	for (int i = 0; i < 10; i++)
		if (i != BPF_FIB_LKUP_RET_UNSUPP_LWT && i != BPF_FIB_LKUP_RET_NO_SRC_ADDR)
			CHECK(f.codes[i] > 0);
}

/* The verifier's rules for the helper: a writable 64-byte struct of constant size, the ctx, and
 * only the program types that have it.  Each program's verdict and error line must be the
 * kernel's. */
TEST(diff_fib_lookup_verifier)
{
	enum { ZERO, UNINIT, SHORT, VAR_SIZE, PKT, NULL_PARAMS, NOT_CTX, NCASES };
	static const char *const names[NCASES] = {
		"params zeroed", "params uninitialised", "size past the stack",
		"size not constant", "params in the packet", "params NULL", "r1 not the ctx",
	};
	static const uint32_t types[] = { BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_SCHED_CLS,
					  BPF_PROG_TYPE_SCHED_ACT, BPF_PROG_TYPE_SOCKET_FILTER,
					  BPF_PROG_TYPE_CGROUP_SKB, BPF_PROG_TYPE_LWT_IN };
	uint64_t accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t t = 0; t < sizeof(types) / sizeof(*types); t++)
		for (int c = 0; c < NCASES; c++) {
			struct bpf_insn p[40];
			char what[96];
			int n = 0;

			if (c != UNINIT)
				for (int i = 0; i < 8; i++)
					p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10,
							    (short)(-64 + 8 * i), 0);
			p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
			p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, c == SHORT ? -56 : -64);
			p[n++] = BPF_MOV64_IMM(BPF_REG_3, 64);
			if (c == VAR_SIZE) {
				p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, 0);
				p[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_3, 64);
			}
			if (c == PKT) {
				/* r2 = data, checked for 64 bytes */
				p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1,
						     types[t] == BPF_PROG_TYPE_XDP ? 0 : 76);
				p[n++] = BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_1,
						     types[t] == BPF_PROG_TYPE_XDP ? 4 : 80);
				p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_2);
				p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 64);
				p[n++] = BPF_JMP_REG(BPF_JLE, BPF_REG_0, BPF_REG_5, 2);
				p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
				p[n++] = BPF_EXIT_INSN();
			}
			if (c == NULL_PARAMS)
				p[n++] = BPF_MOV64_IMM(BPF_REG_2, 0);
			if (c == NOT_CTX)
				p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_10);
			p[n++] = BPF_MOV64_IMM(BPF_REG_4, 0);
			p[n++] = BPF_EMIT_CALL(BPF_FUNC_fib_lookup);
			p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
			p[n++] = BPF_EXIT_INSN();
			snprintf(what, sizeof(what), "type %u: %s", types[t], names[c]);
			if (verdicts_agree_eat_at(__FILE__, __LINE__, what, types[t], 0, p, p,
						  (uint32_t)n))
				accepted |= 1u << (t * NCASES + (size_t)c);
		}
	printf("diff_fib_lookup_verifier: %zu programs, accepted %#llx\n",
	       sizeof(types) / sizeof(*types) * NCASES, (unsigned long long)accepted);
	/* the kernel takes params zeroed or not (the helper writes them), from XDP, tc
	 * classifiers and actions; nothing else */
	CHECK_EQ(accepted, 0xc183);
}

/* userbpf alone (no kernel needed): the helper's refusals before any lookup. */
TEST(fib_lookup_errors)
{
	static uint8_t pkt[64];
	static const struct {
		uint8_t family;
		uint32_t ifindex, flags;
		int short_plen;
		int64_t rc;
	} cases[] = {
		{ AF_INET, 1, 1u << 6, 0, -EINVAL },	  /* an unknown flag */
		{ AF_INET6, 1, 1u << 31, 0, -EINVAL },
		{ AF_INET, 1, 0, 1, -EINVAL },		  /* plen 48 */
		{ AF_UNSPEC, 1, 0, 0, -EAFNOSUPPORT },
		{ AF_PACKET, 1, 0, 0, -EAFNOSUPPORT },
		{ AF_INET, 0x7ffffff0, 0, 0, -ENODEV },	  /* no such device */
		{ AF_INET6, 0x7ffffff0, BPF_FIB_LOOKUP_DIRECT, 0, -ENODEV },
	};
	int map = side_map_create(U, BPF_MAP_TYPE_ARRAY, 4, VAL_SIZE, 1, 0).rc, prog[NPROGS][2];

	REQUIRE(map >= 0);
	for (int plen = 0; plen < 2; plen++) {
		prog[XDP][plen] = load(U, map, BPF_PROG_TYPE_XDP, plen ? 48 : 64);
		prog[TC][plen] = load(U, map, BPF_PROG_TYPE_SCHED_CLS, plen ? 48 : 64);
		REQUIRE(prog[XDP][plen] >= 0 && prog[TC][plen] >= 0);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		for (int t = 0; t < NPROGS; t++) {
			struct bpf_fib_lookup in = { .family = cases[i].family,
						     .ifindex = cases[i].ifindex };
			uint8_t v[VAL_SIZE] = { 0 };
			uint32_t key = 0, ret;
			int64_t rc;

			inet_pton(AF_INET, "10.0.0.1", &in.ipv4_dst);
			memcpy(v, &in, 64);
			memcpy(v + 64, &cases[i].flags, 4);
			REQUIRE(side_elem(U, BPF_MAP_UPDATE_ELEM, map, &key, v, 0).rc == 0);
			REQUIRE(side_test_run(U, prog[t][cases[i].short_plen], pkt, sizeof(pkt),
					      &ret).rc == 0);
			REQUIRE(side_elem(U, BPF_MAP_LOOKUP_ELEM, map, &key, v, 0).rc == 0);
			memcpy(&rc, v + 72, 8);
			CHECK_EQ(rc, cases[i].rc);
			/* (refused before the lookup: the struct as it was) */
			CHECK(!memcmp(v, &in, 64));
		}
	for (int t = 0; t < NPROGS; t++)
		close(prog[t][0]), close(prog[t][1]);
	close(map);
}
