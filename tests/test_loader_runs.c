/* Corpus programs run: loaded by the ELF loader on both sides and run through
 * BPF_PROG_TEST_RUN, their verdicts and outputs must agree (socket lookups on this process's
 * own sockets, which both sides find).  (The verifier's side of the corpus
 * is test_loader_corpus.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"
#include "userbpf/loader.h"

/* Opens and loads tests/corpus/<name>.bpf.o on each side: 0, its objects and its (first)
 * program's fds; -1 on a failure (the objects opened are in obj[], for closing). */
static int load_corpus(const char *name, struct userbpf_object *obj[NSIDES], int prog[NSIDES])
{
	char path[256];

	snprintf(path, sizeof(path), LOADER_OBJ_DIR "/tests/corpus/%s.bpf.o", name);
	for (int s = 0; s < NSIDES; s++) {
		struct userbpf_object_opts opts = { .sz = sizeof(opts), .bpf = diff_sides[s]->bpf };

		if (userbpf_object_open_file(path, &opts, &obj[s]) || userbpf_object_load(obj[s]))
			return -1;
		prog[s] = userbpf_program_fd(userbpf_object_program(obj[s], 0));
		if (prog[s] < 0)
			return -1;
	}
	return 0;
}

/* cgroup_skb_storage_count: its cgroup storage's spin lock and per-CPU counter at run time;
 * small packets pass, large ones are dropped. */
TEST(loader_runs_cgroup_storage)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(load_corpus("cgroup_skb_storage_count", obj, prog) == 0);
	for (uint32_t len = 64; len <= 1514; len += 290) {
		static uint8_t pkt[1514] = { [12] = 0x08, [14] = 0x45 };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run(s, prog[s], pkt, len, &ret[s]);
		if (!AGREE("corpus program run", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[U], len - 14 > 1000 ? 0u : 1u);
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}

/* A frame for flow_dissector_ports: Ethernet, vlans VLAN tags, then an IPv4 (v6 false) or IPv6
 * header of protocol proto with frag_off, then 8 bytes of ports; *len is its length, cut by
 * cut bytes. */
static uint32_t make_frame(uint8_t *f, int vlans, bool v6, uint8_t proto, uint16_t frag_off,
			   uint32_t label, uint32_t cut)
{
	uint32_t n = 12;

	memset(f, 0, 256);
	for (int i = 0; i < 6; i++)
		f[i] = (uint8_t)(0x10 + i), f[6 + i] = (uint8_t)(0x20 + i);
	for (int v = 0; v < vlans; v++) {
		f[n] = v ? 0x81 : 0x88, f[n + 1] = v ? 0x00 : 0xa8; /* 802.1ad outside */
		f[n + 2] = 0, f[n + 3] = (uint8_t)(10 + v);
		n += 4;
	}
	f[n] = v6 ? 0x86 : 0x08, f[n + 1] = v6 ? 0xdd : 0x00;
	n += 2;
	if (v6) {
		f[n] = 0x60 | (uint8_t)((label >> 16) & 0xf);
		f[n + 1] = (uint8_t)(label >> 8), f[n + 2] = (uint8_t)label;
		f[n + 6] = proto, f[n + 7] = 64;
		for (int i = 0; i < 32; i++)
			f[n + 8 + i] = (uint8_t)(0xa0 + i);
		n += 40;
	} else {
		f[n] = 0x45, f[n + 8] = 64, f[n + 9] = proto;
		f[n + 6] = (uint8_t)(frag_off >> 8), f[n + 7] = (uint8_t)frag_off;
		for (int i = 0; i < 8; i++)
			f[n + 12 + i] = (uint8_t)(0xc0 + i);
		n += 20;
	}
	for (int i = 0; i < 8; i++)
		f[n + i] = (uint8_t)(0x30 + i);
	n += 8;
	return n - cut;
}

/* flow_dissector_ports: the keys (data_out) and verdicts of frames of each kind, with each of
 * the flags it reads, against the kernel's. */
TEST(loader_runs_flow_dissector)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES], runs = 0, ok_verdicts = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(load_corpus("flow_dissector_ports", obj, prog) == 0);
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	static const uint16_t frags[] = { 0, 0x2000, 0x2005, 0x4000 };
	static const uint32_t flags[] = { 0, BPF_FLOW_DISSECTOR_F_PARSE_1ST_FRAG,
					  BPF_FLOW_DISSECTOR_F_STOP_AT_FLOW_LABEL };
	/* every combination: 4 VLAN depths x 2 families x 3 protocols x 4 fragment offsets x
	 * 3 cuts x 3 flags */
	for (int c = 0; c < 4 * 2 * 3 * 4 * 3 * 3; c++) {
		int vlans = c % 4, v6 = c / 4 % 2, p = c / 8 % 3, fr = c / 24 % 4;
		uint32_t cut = (uint32_t)(c / 96 % 3) * 4, fl = (uint32_t)(c / 288);
		uint8_t frame[256], out[NSIDES][64];
		struct bpf_flow_keys ctx_in = { .flags = flags[fl] };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES], len;
		char what[96];

		if (v6 && fr)
			continue; /* (no fragments in IPv6 here) */
		len = make_frame(frame, vlans, v6, protos[p], frags[fr], fr ? 0 : 0x12345, cut);
		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(out[s], 0xaa, sizeof(out[s]));
			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog[s];
			a.test.data_in = PTR_TO_U64(frame);
			a.test.data_size_in = len;
			a.test.data_out = PTR_TO_U64(out[s]);
			a.test.data_size_out = sizeof(out[s]);
			a.test.ctx_in = PTR_TO_U64(&ctx_in);
			a.test.ctx_size_in = sizeof(ctx_in);
			r[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
			ret[s] = a.test.retval;
		}
		snprintf(what, sizeof(what), "vlans %d v6 %d proto %u frag %#x cut %u flags %u",
			 vlans, v6, protos[p], frags[fr], cut, flags[fl]);
		if (!AGREE(what, r) || r[K].rc)
			continue;
		runs++;
		ok_verdicts += ret[K] == BPF_OK;
		CHECK_EQ(ret[U], ret[K]);
		if (memcmp(out[U], out[K], sizeof(out[K])))
			test_fail(__FILE__, __LINE__, "%s: keys differ", what);
	}
	CHECK(runs > 200 && ok_verdicts > 100 && ok_verdicts < runs);
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}

/* cgroup_skb_sk_bytes: the test run's socket's storage through the repeats of one run, fresh in
 * the next: a run of 1000 1500-byte packets goes over the 1 MiB budget, of 10 does not. */
TEST(loader_runs_sk_storage)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(load_corpus("cgroup_skb_sk_bytes", obj, prog) == 0);
	static const uint32_t repeats[] = { 10, 1000, 10 };
	for (size_t i = 0; i < sizeof(repeats) / sizeof(repeats[0]); i++) {
		static uint8_t pkt[1500] = { [12] = 0x08, [14] = 0x45 };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run_ctx(s, prog[s], pkt, sizeof(pkt), repeats[i], NULL, 0,
						 NULL, 0, &ret[s]);
		if (!AGREE("sk storage run", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[U], repeats[i] < 1000 ? 1u : 0u);
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}

/* n runs of the corpus raw tracepoint program name from this thread on each side (a raw
 * tracepoint's test run has no repeat): how many gave the kernel's value, and (want not NULL)
 * the one want(i) says, stopping at the first that did not. */
static int raw_tp_runs_agree(const char *name, int n, uint32_t (*want)(int i))
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES], agreed = 0;

	if (load_corpus(name, obj, prog)) {
		test_fail(__FILE__, __LINE__, "%s does not load", name);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		uint64_t args[2] = { 0, 0 };
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 1, 2 };

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run_ctx(s, prog[s], NULL, 0, 0, args, sizeof(args), NULL,
						 0, &ret[s]);
		if (!AGREE(name, r) || r[K].rc || ret[U] != ret[K] || (want && ret[U] != want(i))) {
			test_fail(__FILE__, __LINE__, "%s run %d: kernel %u, userbpf %u", name, i,
				  ret[K], ret[U]);
			break;
		}
		agreed++;
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
	return agreed;
}

/* raw_tp_task_storage: the current task's count in its task storage, one per run, the parent's
 * beside it; at 1000 the task's is deleted (the next run starts again at 1).  1003 runs on each
 * side: the same values. */
TEST(loader_runs_task_storage)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(raw_tp_runs_agree("raw_tp_task_storage", 1003, NULL), 1003);
}

/* What raw_tp_cgrp_storage's run i returns: its count (deleted at 100) times 2, plus 1 for
 * the cgroup's id being bpf_get_current_cgroup_id()'s. */
static uint32_t cgrp_storage_want(int i)
{
	return (uint32_t)(i % 100 + 1) * 2 + 1;
}

/* raw_tp_cgrp_storage: this process's cgroup's count in its cgroup storage, one per run; at 100
 * it is deleted (the next run starts again at 1).  103 runs on each side: the same values, each
 * with the cgroup's id bpf_get_current_cgroup_id()'s. */
TEST(loader_runs_cgrp_storage)
{
	SKIP_WITHOUT_KERNEL_BPF();
	CHECK_EQ(raw_tp_runs_agree("raw_tp_cgrp_storage", 103, cgrp_storage_want), 103);
}

/* A TCP frame (IPv4 or IPv6, from src:sport to dst:dport, the given flags) for
 * tc_sk_lookup_guard; its length. */
static uint32_t tcp_frame(uint8_t *f, bool v6, const void *src, const void *dst, uint16_t sport,
			  uint16_t dport, uint8_t flags)
{
	uint32_t ip_len = v6 ? 40 : 20, at = 14 + ip_len;

	memset(f, 0, 14 + ip_len + 20);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		f[14] = 0x60;
		f[14 + 6] = IPPROTO_TCP;
		memcpy(f + 14 + 8, src, 16);
		memcpy(f + 14 + 24, dst, 16);
	} else {
		f[14] = 0x45;
		f[14 + 9] = IPPROTO_TCP;
		memcpy(f + 14 + 12, src, 4);
		memcpy(f + 14 + 16, dst, 4);
	}
	memcpy(f + at, &sport, 2);
	memcpy(f + at + 2, &dport, 2);
	f[at + 12] = 0x50;
	f[at + 13] = flags;
	return at + 20;
}

/* tc_sk_lookup_guard on this process's sockets: a SYN to a listener passes (counted in its
 * socket storage), other segments to it are dropped, an established connection's pass, those
 * for no socket are dropped (counted per port); IPv4 and IPv6. */
TEST(loader_runs_sk_lookup_guard)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t len4 = sizeof(a4), len6 = sizeof(a6);
	int prog[NSIDES], l4, l6, c4, s4;
	uint8_t lo4[4] = { 127, 0, 0, 1 }, peer4[4] = { 10, 9, 8, 7 }, peer6[16] = { 0x20, 1, 13,
										     0xb8, [15] = 9 };

	SKIP_WITHOUT_KERNEL_BPF();
	l4 = socket(AF_INET, SOCK_STREAM, 0);
	l6 = socket(AF_INET6, SOCK_STREAM, 0);
	c4 = socket(AF_INET, SOCK_STREAM, 0);
	REQUIRE(l4 >= 0 && l6 >= 0 && c4 >= 0);
	REQUIRE(!bind(l4, (struct sockaddr *)&a4, len4) && !listen(l4, 4) &&
		!getsockname(l4, (struct sockaddr *)&a4, &len4));
	REQUIRE(!bind(l6, (struct sockaddr *)&a6, len6) && !listen(l6, 4) &&
		!getsockname(l6, (struct sockaddr *)&a6, &len6));
	REQUIRE(!connect(c4, (struct sockaddr *)&a4, len4));
	s4 = accept(l4, NULL, NULL);
	REQUIRE(s4 >= 0);
	struct sockaddr_in c4a;
	socklen_t c4len = sizeof(c4a);

	REQUIRE(!getsockname(c4, (struct sockaddr *)&c4a, &c4len));
	REQUIRE(load_corpus("tc_sk_lookup_guard", obj, prog) == 0);
	static const uint8_t SYN = 0x02, ACK = 0x10;
	const struct {
		bool v6;
		const void *src, *dst;
		uint16_t sport, dport;
		uint8_t flags;
		uint32_t verdict;
	} frames[] = {
		{ false, peer4, lo4, htons(4000), a4.sin_port, SYN, 0 },
		{ false, peer4, lo4, htons(4001), a4.sin_port, SYN, 0 },
		{ false, peer4, lo4, htons(4000), a4.sin_port, ACK, 2 },
		{ false, lo4, lo4, c4a.sin_port, a4.sin_port, ACK, 0 },
		{ false, lo4, lo4, a4.sin_port, c4a.sin_port, ACK, 0 },
		{ false, peer4, lo4, htons(4000), htons(9), SYN, 2 },
		{ true, peer6, &a6.sin6_addr, htons(4000), a6.sin6_port, SYN, 0 },
		{ true, peer6, &a6.sin6_addr, htons(4000), a6.sin6_port, SYN | ACK, 2 },
		{ true, peer6, &a6.sin6_addr, htons(4000), htons(9), SYN, 2 },
	};
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		uint8_t f[128];
		uint32_t n = tcp_frame(f, frames[i].v6, frames[i].src, frames[i].dst,
				       frames[i].sport, frames[i].dport, frames[i].flags);
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run(s, prog[s], f, n, &ret[s]);
		if (!AGREE("sk lookup guard run", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[U], frames[i].verdict);
	}
	/* what the runs counted: drops per port, SYNs on each listener */
	for (int s = 0; s < NSIDES; s++) {
		int drops = userbpf_map_fd(userbpf_object_find_map(obj[s], "drops"));
		int syns = userbpf_map_fd(userbpf_object_find_map(obj[s], "syns"));
		uint16_t port9 = 9, lport = ntohs(a4.sin_port);
		uint64_t v = 0;

		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, drops, &port9, &v, 0).rc, 0);
		CHECK_EQ(v, 2);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, drops, &lport, &v, 0).rc, 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, syns, &l4, &v, 0).rc, 0);
		CHECK_EQ(v, 2);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, syns, &l6, &v, 0).rc, 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, syns, &c4, &v, 0).err, ENOENT);
		userbpf_object_close(obj[s]);
	}
	close(s4);
	close(c4);
	close(l4);
	close(l6);
}

/* sk_lookup_steer with this process's listener in its socket hash: a listed port's TCP
 * connection gets the listener (its cookie from the test run), a UDP one is refused, an unlisted
 * port goes on (no socket). */
TEST(loader_runs_sk_lookup_steer)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t len4 = sizeof(a4);
	int prog[NSIDES], l4;
	uint64_t cookie;
	socklen_t clen = sizeof(cookie);

	SKIP_WITHOUT_KERNEL_BPF();
	l4 = socket(AF_INET, SOCK_STREAM, 0);
	REQUIRE(l4 >= 0);
	REQUIRE(!bind(l4, (struct sockaddr *)&a4, len4) && !listen(l4, 4));
	REQUIRE(!getsockopt(l4, SOL_SOCKET, SO_COOKIE, &cookie, &clen));
	REQUIRE(load_corpus("sk_lookup_steer", obj, prog) == 0);
	for (int s = 0; s < NSIDES; s++) {
		int steer = userbpf_map_fd(userbpf_object_find_map(obj[s], "steer"));
		uint32_t port = 8080;
		uint64_t fd = (uint64_t)l4;

		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, steer, &port, &fd, 0).rc, 0);
	}
	static const struct {
		uint32_t port, protocol, verdict;
		bool steered;
	} runs[] = {
		{ 8080, IPPROTO_TCP, SK_PASS, true },
		{ 8080, IPPROTO_UDP, SK_DROP, false },
		{ 9999, IPPROTO_TCP, SK_PASS, false },
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct bpf_sk_lookup in = { .family = AF_INET, .protocol = runs[i].protocol,
					    .remote_port = htons(4000), .local_port = runs[i].port };
		struct bpf_sk_lookup out[NSIDES];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_test_run_ctx(s, prog[s], NULL, 0, 1, &in, sizeof(in), &out[s],
						 sizeof(out[s]), &ret[s]);
		if (!AGREE("sk lookup steer run", r) || r[K].rc)
			break;
		CHECK_EQ(ret[U], ret[K]);
		CHECK_EQ(ret[U], runs[i].verdict);
		CHECK_EQ(out[U].cookie, out[K].cookie);
		CHECK_EQ(out[U].cookie, runs[i].steered ? cookie : 0);
	}
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
	close(l4);
}

/* xdp_subprog_tail_call: a tail call from a subprogram.  The target (r0 = XDP_TX) in slot 2 runs
 * in the subprogram's frame and its r0 is the subprogram's return value, which main passes on;
 * the other slots are empty, so the call fails and the subprogram's own XDP_DROP becomes main's
 * XDP_PASS.  Then the target is replaced by one returning 9, which main's check turns into
 * XDP_ABORTED. */
TEST(loader_runs_subprog_tail_call)
{
	struct userbpf_object *obj[NSIDES] = { NULL };
	int prog[NSIDES], target[NSIDES][2], table[NSIDES];
	static const int32_t target_r0[2] = { XDP_TX, 9 };

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(load_corpus("xdp_subprog_tail_call", obj, prog) == 0);
	for (int s = 0; s < NSIDES; s++) {
		table[s] = userbpf_map_fd(userbpf_object_find_map(obj[s], "jmp_table"));
		REQUIRE(table[s] >= 0);
		for (int t = 0; t < 2; t++) {
			struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, target_r0[t]),
						    BPF_EXIT_INSN() };

			/* (a program array takes programs of its owner's attach type too:
			 * SEC("xdp") is BPF_XDP) */
			target[s][t] = side_prog_load_eat_log(s, BPF_PROG_TYPE_XDP, BPF_XDP, insns,
							      2, NULL, 0).rc;
			REQUIRE(target[s][t] >= 0);
		}
	}
	for (int t = 0; t < 2; t++) {
		for (int s = 0; s < NSIDES; s++) {
			uint32_t key = 2, fd = (uint32_t)target[s][t];

			struct bpf_result r = side_elem(s, BPF_MAP_UPDATE_ELEM, table[s], &key, &fd,
							BPF_ANY);

			REQUIRE_EQ(r.rc, 0);
		}
		for (uint8_t b = 0; b < 8; b++) {
			uint8_t pkt[64] = { b };
			uint32_t ret = 0;
			char what[64];

			snprintf(what, sizeof(what), "target %d, packet byte 0 = %u", t, b);
			if (!RUNS_AGREE(what, prog, pkt, sizeof(pkt), &ret))
				break;
			CHECK_EQ(ret, (b & 3) != 2 ? XDP_PASS : t ? XDP_ABORTED : XDP_TX);
		}
	}
	for (int s = 0; s < NSIDES; s++) {
		for (int t = 0; t < 2; t++)
			close(target[s][t]);
		userbpf_object_close(obj[s]);
	}
}

/* socket_can_loop: loops that may_goto bounds (can_loop, cond_break), run to their own ends on
 * packets of every length up to 400 bytes with a 0xff byte at a length-dependent place (or
 * none): the kernel's results, JIT-compiled and interpreted. */
TEST(loader_runs_can_loop)
{
	for (int jit = 1; jit >= 0; jit--) {
		struct userbpf_object *obj[NSIDES] = { NULL };
		int prog[NSIDES], was, runs = 0;

		SKIP_WITHOUT_KERNEL_BPF();
		was = userbpf_set_jit(jit);
		REQUIRE(load_corpus("socket_can_loop", obj, prog) == 0);
		userbpf_set_jit(was);
		for (uint32_t len = 14; len <= 400; len += 7) {
			static uint8_t pkt[400];
			uint32_t ret;

			for (uint32_t i = 0; i < len; i++)
				pkt[i] = (uint8_t)(i * 7 + len);
			if (len % 3)
				pkt[len / 2] = 0xff;
			if (!RUNS_AGREE("socket_can_loop", prog, pkt, len, &ret))
				break;
			runs++;
		}
		CHECK_EQ(runs, 56);
		for (int s = 0; s < NSIDES; s++)
			userbpf_object_close(obj[s]);
	}
}
