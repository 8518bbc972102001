/* The packet runner: a loaded program over every packet of a source, through
 * BPF_PROG_TEST_RUN on the selected backend, with per-return-value counts.
 *
 * Program types and what they see:
 *  - XDP and tc (sched_cls/sched_act): the frame as it is, from the Ethernet header.
 *  - cgroup skb and LWT (lwt_in/out/xmit): the frame's network packet (the test run pulls the
 *    Ethernet header), as a cgroup's hooks and a route's tunnel see it.
 *  - socket filters: the frame as on a packet socket (AF_PACKET, SOCK_RAW), from the Ethernet
 *    header with skb->len the frame's length, which is where a socket filter such as the kernel's
 *    sockex1 expects LD_ABS offsets to start.  BPF_PROG_TEST_RUN pulls an Ethernet header for
 *    socket filters, so the runner puts a 14-byte pseudo header in front of the frame (zero
 *    addresses, the frame's EtherType): the test run pulls that one and the program gets the real
 *    frame.  The same bytes go to the kernel with --kernel, so both backends agree.
 * Counting: packets and captured bytes per return value, in a small array kept in first-seen
 * order (programs return few distinct values).  Time: wall clock around the loop (ns/packet,
 * all overheads included) and the backend's own mean run time (ns/run, the program alone).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PSEUDO_HLEN 14
#define FRAME_MAX (256u * 1024)
#define MAX_RETVALS 64

struct retval_count {
	uint32_t retval;
	uint64_t packets, bytes;
};

struct run_stats {
	struct retval_count rv[MAX_RETVALS];
	unsigned int nrv;
	uint64_t other_packets, other_bytes; /* beyond MAX_RETVALS distinct values */
	uint64_t packets, bytes, run_ns;
};

int run_opt_parse(struct run_opts *o, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case OPT_PCAP:
		o->pcap = arg;
		return 1;
	case OPT_DATA:
		o->data = arg;
		return 1;
	case OPT_IFACE:
		o->iface = arg;
		return 1;
	case OPT_COUNT:
	case OPT_REPEAT:
	case OPT_PERF_PAGES: {
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 0);
		if (errno || *end || !*arg || arg[0] == '-' || v > UINT32_MAX ||
		    (opt == OPT_REPEAT && !v) ||
		    (opt == OPT_PERF_PAGES && (!v || v & (v - 1) || v > 4096))) {
			cli_err("bad number '%s' for --%s%s", arg,
				opt == OPT_COUNT    ? "count"
				: opt == OPT_REPEAT ? "repeat"
						    : "perf-pages",
				opt == OPT_PERF_PAGES ? " (a power of 2, 1 to 4096)" : "");
			return -1;
		}
		if (opt == OPT_COUNT)
			o->count = v;
		else if (opt == OPT_REPEAT)
			o->repeat = (unsigned int)v;
		else
			o->perf_pages = (unsigned int)v;
		return 1;
	}
	case OPT_VERDICTS:
		o->verdicts = true;
		return 1;
	case OPT_PROGRESS:
		o->progress = true;
		return 1;
	case OPT_TRACE:
		o->trace = true;
		return 1;
	case OPT_SET:
		if (o->nsets >= sizeof(o->sets) / sizeof(o->sets[0])) {
			cli_err("too many --set options");
			return -1;
		}
		o->sets[o->nsets++] = arg;
		return 1;
	}
	return 0;
}

bool run_opts_have_input(const struct run_opts *o)
{
	return o->pcap || o->data || o->iface;
}

#define CMD_PROG_STREAM_READ_BY_FD 37 /* (6.17: beyond older uapi headers) */

/* What the program wrote to its streams (BPF_STDOUT, then BPF_STDERR) in the last run, to
 * stderr with the trace lines: read until a stream is empty (a kernel without streams answers
 * EINVAL: nothing to print). */
static void drain_streams(userbpf_bpf_fn bpf_fn, int prog_fd)
{
	char text[4096];

	for (uint32_t id = 1; id <= 2; id++) {
		for (;;) {
			uint32_t a[40] = { 0 };
			uint64_t p = (uint64_t)(uintptr_t)text;
			int n;

			memcpy(a, &p, sizeof(p));
			a[2] = sizeof(text);
			a[3] = id;
			a[4] = (uint32_t)prog_fd;
			n = bpf_fn(CMD_PROG_STREAM_READ_BY_FD, (union bpf_attr *)a, sizeof(a));
			if (n <= 0)
				break;
			fwrite(text, 1, (size_t)n, stderr);
		}
	}
}

static const char *retval_name(unsigned int type, uint32_t rv)
{
	static const char *const xdp[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					  "XDP_REDIRECT"};
	static const char *const tc[] = {"TC_ACT_OK",	  "TC_ACT_RECLASSIFY", "TC_ACT_SHOT",
					 "TC_ACT_PIPE",	  "TC_ACT_STOLEN",     "TC_ACT_QUEUED",
					 "TC_ACT_REPEAT", "TC_ACT_REDIRECT"};

	switch (type) {
	case BPF_PROG_TYPE_XDP:
		return rv < 5 ? xdp[rv] : "unknown";
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
		return rv < 8 ? tc[rv] : rv == UINT32_MAX ? "TC_ACT_UNSPEC" : "unknown";
	case BPF_PROG_TYPE_SOCKET_FILTER:
		return rv ? "accept" : "drop";
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
		return rv == BPF_OK ? "BPF_OK" : rv == BPF_DROP ? "BPF_DROP" :
		       rv == BPF_REDIRECT ? "BPF_REDIRECT" : rv == BPF_LWT_REROUTE ? "BPF_LWT_REROUTE" :
		       "unknown";
	case BPF_PROG_TYPE_CGROUP_SKB: {
		static const char *const cg[] = {"drop", "pass", "drop, congestion",
						 "pass, congestion"};

		return rv < 4 ? cg[rv] : "unknown";
	}
	}
	return NULL;
}

static void count(struct run_stats *st, uint32_t rv, uint32_t len)
{
	unsigned int i;

	st->packets++;
	st->bytes += len;
	for (i = 0; i < st->nrv; i++)
		if (st->rv[i].retval == rv)
			break;
	if (i == st->nrv) {
		if (i == MAX_RETVALS) {
			st->other_packets++;
			st->other_bytes += len;
			return;
		}
		st->rv[i].retval = rv;
		st->nrv++;
	}
	st->rv[i].packets++;
	st->rv[i].bytes += len;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void on_sigint(int sig)
{
	(void)sig;
	pktsrc_stop();
}

static int open_source(const struct run_opts *o, struct pktsrc **src)
{
	int n = !!o->pcap + !!o->data + !!o->iface;

	if (n != 1) {
		cli_err(n ? "give one input: --pcap, --data or --iface"
			  : "no input: give --pcap FILE, --data FILE or --iface NAME");
		return EXIT_USAGE;
	}
	if (o->count && !o->iface) {
		cli_err("--count goes with --iface");
		return EXIT_USAGE;
	}
	if (o->pcap)
		return pktsrc_open_pcap(src, o->pcap) ? EXIT_INPUT : EXIT_OK;
	if (o->data)
		return pktsrc_open_data(src, o->data) ? EXIT_INPUT : EXIT_OK;
	if (pktsrc_open_iface(src, o->iface, o->count))
		return EXIT_INPUT;
	signal(SIGINT, on_sigint);
	return EXIT_OK;
}

static void print_summary(const struct run_stats *st, struct userbpf_program *prog, double wall)
{
	unsigned int type = userbpf_program_type(prog);
	double ns_pkt = st->packets ? wall / st->packets : 0;
	double ns_run = st->packets ? (double)st->run_ns / st->packets : 0;

	if (cli.json) {
		json_key("prog");
		json_string(userbpf_program_name(prog));
		json_key("type");
		json_string(cli_prog_type_name(type));
		json_key("packets");
		json_uint(st->packets);
		json_key("bytes");
		json_uint(st->bytes);
		json_key("ns_per_packet");
		json_double(ns_pkt);
		json_key("ns_per_run");
		json_double(ns_run);
		json_key("retvals");
		json_begin_array();
		for (unsigned int i = 0; i < st->nrv; i++) {
			const char *name = retval_name(type, st->rv[i].retval);

			json_begin_object();
			json_key("retval");
			json_uint(st->rv[i].retval);
			if (name) {
				json_key("name");
				json_string(name);
			}
			json_key("packets");
			json_uint(st->rv[i].packets);
			json_key("bytes");
			json_uint(st->rv[i].bytes);
			json_end_object();
		}
		json_end_array();
		return;
	}
	printf("%s (%s): %" PRIu64 " packets, %" PRIu64 " bytes, %.0f ns/packet, %.0f ns/run\n",
	       userbpf_program_name(prog), cli_prog_type_name(type), st->packets, st->bytes, ns_pkt,
	       ns_run);
	if (st->nrv)
		printf("  %-24s %12s %14s\n", "retval", "packets", "bytes");
	for (unsigned int i = 0; i < st->nrv; i++) {
		const char *name = retval_name(type, st->rv[i].retval);
		char label[48];

		if (name)
			snprintf(label, sizeof(label), "%u (%s)", st->rv[i].retval, name);
		else
			snprintf(label, sizeof(label), "%u", st->rv[i].retval);
		printf("  %-24s %12" PRIu64 " %14" PRIu64 "\n", label, st->rv[i].packets,
		       st->rv[i].bytes);
	}
	if (st->other_packets)
		printf("  %-24s %12" PRIu64 " %14" PRIu64 "\n", "(other values)", st->other_packets,
		       st->other_bytes);
}

static void progress(const struct run_stats *st, double t0, bool end)
{
	double dt = now_ns() - t0;

	if (end) {
		fprintf(stderr, "\r%72s\r", "");
		return;
	}
	fprintf(stderr, "\r%" PRIu64 " packets, %.1f MB, %.0f ns/packet ", st->packets,
		st->bytes / 1e6, st->packets ? dt / st->packets : 0.0);
}

int run_packets(struct userbpf_object *obj, struct userbpf_program *prog, const struct run_opts *o,
		bool summary)
{
	unsigned int type = userbpf_program_type(prog);
	userbpf_bpf_fn bpf_fn = cli_backend();
	bool pseudo = false, show_progress;
	struct pktsrc *src = NULL;
	struct run_stats *st;
	double t0, last;
	uint8_t *buf;
	int rc;

	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
		pseudo = true;
		break;
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
		break;
	default:
		cli_err("program '%s': type %s does not run on packets", userbpf_program_name(prog),
			cli_prog_type_name(type));
		return EXIT_USAGE;
	}
	for (unsigned int i = 0; i < o->nsets; i++) {
		rc = cli_map_set(obj, o->sets[i]);
		if (rc)
			return rc;
	}
	rc = cli_perf_attach(obj, o->perf_pages);
	if (rc)
		return rc;
	rc = open_source(o, &src);
	if (rc)
		return rc;
	st = calloc(1, sizeof(*st));
	buf = malloc(PSEUDO_HLEN + FRAME_MAX);
	if (!st || !buf) {
		cli_err("out of memory");
		rc = EXIT_RUN;
		goto out;
	}
	memset(buf, 0, PSEUDO_HLEN);
	if (o->trace)
		userbpf_trace_set_fd(2);
	show_progress = o->progress || isatty(2);
	if (cli.json && o->verdicts) {
		json_key("verdicts");
		json_begin_array();
	}
	t0 = last = now_ns();
	for (;;) {
		union bpf_attr attr;
		struct pkt p;
		uint32_t len;
		int n = pktsrc_next(src, &p);

		if (n < 0) {
			rc = EXIT_INPUT;
			break;
		}
		if (!n)
			break;
		len = p.len > FRAME_MAX ? FRAME_MAX : p.len;
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = userbpf_program_fd(prog);
		attr.test.repeat = o->repeat;
		if (pseudo) {
			/* the pseudo header carries the frame's EtherType for skb->protocol */
			buf[12] = len >= 14 ? p.data[12] : 0;
			buf[13] = len >= 14 ? p.data[13] : 0;
			memcpy(buf + PSEUDO_HLEN, p.data, len);
			attr.test.data_in = (uint64_t)(uintptr_t)buf;
			attr.test.data_size_in = PSEUDO_HLEN + len;
		} else {
			attr.test.data_in = (uint64_t)(uintptr_t)p.data;
			attr.test.data_size_in = len;
		}
		if (bpf_fn(BPF_PROG_TEST_RUN, &attr, sizeof(attr)) < 0) {
			cli_err("packet %" PRIu64 " (%u bytes): BPF_PROG_TEST_RUN: %s",
				st->packets + 1, len, strerror(errno));
			rc = EXIT_RUN;
			break;
		}
		count(st, attr.test.retval, len);
		st->run_ns += attr.test.duration;
		if (o->trace)
			drain_streams(bpf_fn, userbpf_program_fd(prog));
		cli_perf_poll();
		if (o->verdicts) {
			const char *name = retval_name(type, attr.test.retval);

			if (cli.json) {
				json_begin_object();
				json_key("packet");
				json_uint(st->packets);
				json_key("len");
				json_uint(len);
				json_key("retval");
				json_uint(attr.test.retval);
				json_end_object();
			} else {
				printf("packet %" PRIu64 ": len %u retval %u%s%s%s\n", st->packets,
				       len, attr.test.retval, name ? " (" : "", name ? name : "",
				       name ? ")" : "");
			}
		}
		if (show_progress && !(st->packets & 255)) {
			double t = now_ns();

			if (t - last > 2e8) {
				progress(st, t0, false);
				last = t;
			}
		}
	}
	if (cli.json && o->verdicts)
		json_end_array();
	if (show_progress && last != t0)
		progress(st, t0, true);
	if (o->trace)
		userbpf_trace_set_fd(-1);
	if (!rc && summary)
		print_summary(st, prog, now_ns() - t0);
out:
	free(buf);
	free(st);
	pktsrc_close(src);
	return rc;
}
