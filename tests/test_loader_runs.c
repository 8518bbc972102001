/* Corpus programs run: loaded by the ELF loader on both sides and run through
 * BPF_PROG_TEST_RUN, their verdicts and outputs must agree.  (The verifier's side of the corpus
 * is test_loader_corpus.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <linux/in.h>
#include <stdio.h>
#include <string.h>

#include "kbpf.h"
#include "test.h"
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
