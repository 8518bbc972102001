/* The CLI end to end: build/userbpf and build/trafficgen run as programs (fork + exec, output to
 * temporary files), their output and exit codes checked.
 *
 * Expected results are computed here from the generated capture, parsed by hand (classic pcap:
 * a 24-byte file header, then a 16-byte header per record), independently of libpcap and the
 * CLI: sockex1 adds each frame's length to the array slot of frame byte 23 (the IPv4 protocol
 * byte on a packet socket); xdp_portfilter drops IPv4 TCP/UDP to a blocked port.  The
 * differential test loads the same objects into the live kernel through the loader's backend
 * and runs the same packets via BPF_PROG_TEST_RUN (with the CLI's 14-byte pseudo header for the
 * socket filter), comparing per-packet return values and the maps with userbpf's.  Live capture
 * on lo needs root (or CAP_NET_RAW) and skips otherwise.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"

#define EXAMPLE(n) LOADER_OBJ_DIR "/examples/" n ".bpf.o"
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"
#define CORPUS(n) LOADER_OBJ_DIR "/tests/corpus/" n ".bpf.o"
#define OUT_MAX (4 << 20)
#define NPKTS 600
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static char tmpdir[64];
static char pcap_path[128], pcapng_path[128], frame_path[128];
static char out[OUT_MAX], err[OUT_MAX];

/* The generated capture, parsed: frames and lengths. */
static unsigned char *cap;
static size_t cap_size;
static struct frame {
	const unsigned char *data;
	uint32_t len;
} frames[NPKTS];
static unsigned int nframes;

static void cleanup(void)
{
	unlink(pcap_path);
	unlink(pcapng_path);
	unlink(frame_path);
	if (tmpdir[0])
		rmdir(tmpdir);
	free(cap);
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The test's own directory, made on first use (every run's output files go there: two test
 * runs at once must not share them). */
static bool make_tmpdir(void)
{
	if (tmpdir[0])
		return true;
	strcpy(tmpdir, "/tmp/userbpf-cli-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		return false;
	}
	atexit(cleanup);
	return true;
}

/* Runs argv (NULL-terminated) with stdout/stderr to files read into out/err; returns the exit
 * status, or -1 if it did not exit normally (or could not be run). */
static int run_argv(char *const argv[])
{
	char opath[160], epath[160];
	int status;
	pid_t pid;

	if (!make_tmpdir())
		return -1;

	snprintf(opath, sizeof(opath), "%s/out", tmpdir);
	snprintf(epath, sizeof(epath), "%s/err", tmpdir);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0)
			_exit(127);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	read_file(opath, out, sizeof(out));
	read_file(epath, err, sizeof(err));
	unlink(opath);
	unlink(epath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* cli("prog", "load", path, NULL) */
static int cli(const char *first, ...)
{
	char *argv[32];
	int n = 0;
	va_list ap;

	argv[n++] = (char *)CLI_PATH;
	argv[n++] = (char *)first;
	va_start(ap, first);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_argv(argv);
}

static int parse_pcap(void)
{
	struct stat st;
	size_t off = 24;
	int fd = open(pcap_path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return -1;
	cap_size = (size_t)st.st_size;
	cap = malloc(cap_size);
	if (!cap || read(fd, cap, cap_size) != (ssize_t)cap_size) {
		close(fd);
		return -1;
	}
	close(fd);
	if (cap_size < 24 || *(uint32_t *)cap != 0xa1b2c3d4)
		return -1;
	while (off + 16 <= cap_size && nframes < NPKTS) {
		uint32_t incl;

		memcpy(&incl, cap + off + 8, 4);
		if (off + 16 + incl > cap_size)
			return -1;
		frames[nframes].data = cap + off + 16;
		frames[nframes].len = incl;
		nframes++;
		off += 16 + incl;
	}
	return off == cap_size ? 0 : -1;
}

/* Generates the captures once: pcap (parsed here), the same as pcapng, one frame as raw data. */
static int setup(void)
{
	static int done, ok;
	char n[16];

	if (done)
		return ok;
	done = 1;
	if (access(TRAFFICGEN_PATH, X_OK) || !make_tmpdir())
		return 0;
	snprintf(pcap_path, sizeof(pcap_path), "%s/t.pcap", tmpdir);
	snprintf(pcapng_path, sizeof(pcapng_path), "%s/t.pcapng", tmpdir);
	snprintf(frame_path, sizeof(frame_path), "%s/frame.bin", tmpdir);
	snprintf(n, sizeof(n), "%d", NPKTS);
	{
		char *a1[] = {(char *)TRAFFICGEN_PATH, "-n", n, "-o", pcap_path, NULL};
		char *a2[] = {
		    (char *)TRAFFICGEN_PATH, "-n", n, "-f", "pcapng", "-o", pcapng_path, NULL};

		if (run_argv(a1) || run_argv(a2) || parse_pcap() || nframes != NPKTS)
			return 0;
	}
	{
		int fd = open(frame_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || write(fd, frames[0].data, frames[0].len) != (ssize_t)frames[0].len)
			return 0;
		close(fd);
	}
	ok = 1;
	return ok;
}

#define REQUIRE_SETUP()                                                                            \
	do {                                                                                       \
		if (!setup())                                                                      \
			SKIP("no trafficgen (built without libpcap) or no temporary directory");   \
	} while (0)

/* sockex1's expected array: bytes per frame byte 23. */
static void expect_sockex1(uint64_t bytes[256])
{
	memset(bytes, 0, 256 * sizeof(bytes[0]));
	for (unsigned int i = 0; i < nframes; i++)
		if (frames[i].len > 23)
			bytes[frames[i].data[23]] += frames[i].len;
}

/* xdp_portfilter's verdict for a frame with dport blocked. */
static uint32_t expect_xdp(const struct frame *f, uint16_t blocked)
{
	const unsigned char *d = f->data;
	unsigned int ihl, l4;

	if (f->len < 34 || d[12] != 0x08 || d[13] != 0x00)
		return 2;
	ihl = d[14] & 15;
	if (ihl < 5 || (d[23] != 6 && d[23] != 17))
		return 2;
	l4 = 14 + ihl * 4;
	if (f->len < l4 + (d[23] == 6 ? 20u : 8u))
		return 2;
	return (uint16_t)(d[l4 + 2] << 8 | d[l4 + 3]) == blocked ? 1 : 2;
}

/* The verdict of tests/corpus/cgroup_skb_egress_policy on f: 0 (drop) for UDP to port blocked,
 * 3 (pass, congestion) for TCP above 1400 bytes of network packet, 1 (pass) otherwise. */
static uint32_t expect_cgroup(const struct frame *f, uint16_t blocked)
{
	const unsigned char *d = f->data;
	unsigned int ihl;

	if (f->len < 34 || d[12] != 0x08 || d[13] != 0x00)
		return 1;
	ihl = d[14] & 15;
	if (d[23] == 17)
		return f->len >= 14 + ihl * 4 + 8 &&
				       (uint16_t)(d[14 + ihl * 4 + 2] << 8 | d[14 + ihl * 4 + 3]) ==
					       blocked
			       ? 0
			       : 1;
	return d[23] == 6 && f->len - 14 > 1400 ? 3 : 1;
}

/* Checks the "  KEY (name)   VALUE" lines of a text map dump against want[] (all-zero omitted). */
static void check_dump_lines(const char *text, const uint64_t want[256])
{
	uint64_t got[256] = {0};
	const char *p = strstr(text, "map my_map:");
	int lines = 0, nonzero = 0;

	REQUIRE(p);
	for (p = strchr(p, '\n'); p && p[1] == ' ' && p[2] == ' ' && p[3] >= '0' && p[3] <= '9';
	     p = strchr(p + 1, '\n')) {
		unsigned int k;
		unsigned long long v;
		char name[32];

		if (sscanf(p + 1, " %u (%31[^)]) %llu", &k, name, &v) != 3 &&
		    sscanf(p + 1, " %u %llu", &k, &v) != 2)
			break;
		if (k < 256)
			got[k] = v;
		lines++;
	}
	for (int k = 0; k < 256; k++) {
		nonzero += want[k] != 0;
		if (got[k] != want[k])
			test_fail(__FILE__, __LINE__, "my_map[%d]: cli %llu, pcap %llu", k,
				  (unsigned long long)got[k], (unsigned long long)want[k]);
	}
	CHECK_EQ(lines, nonzero);
}

/* The value of the text map entry labelled label ("6", "1 (XDP_DROP)"), or -1. */
static long long entry(const char *text, const char *label)
{
	char pat[64];
	const char *p = text;
	size_t n = (size_t)snprintf(pat, sizeof(pat), "\n  %s ", label);

	if (!strncmp(text, pat + 1, n - 1))
		return strtoll(text + n - 1, NULL, 10);
	p = strstr(text, pat);
	return p ? strtoll(p + n, NULL, 10) : -1;
}

TEST(cli_help_and_usage)
{
	static const char *const helps[][3] = {
	    {"--help"},
	    {"help"},
	    {"prog", "--help"},
	    {"prog", "help"},
	    {"map", "--help"},
	    {"prog", "run", "--help"},
	    {"prog", "load", "--help"},
	    {"prog", "dump", "--help"},
	    {"prog", "verify", "--help"},
	    {"map", "dump", "--help"},
	    {"map", "lookup", "--help"},
	    {"map", "update", "--help"},
	    {"map", "list", "--help"},
	};

	for (size_t i = 0; i < ARRAY_LEN(helps); i++) {
		int rc = cli(helps[i][0], helps[i][1], helps[i][2], NULL);

		if (rc != 0 || !strstr(out, "Usage") || !strstr(out, "Exit codes"))
			test_fail(__FILE__, __LINE__, "%s %s --help: rc %d", helps[i][0],
				  helps[i][1] ? helps[i][1] : "", rc);
	}
	CHECK_EQ(cli("version", NULL), 0);
	CHECK(!strncmp(out, "userbpf ", 8));
	CHECK_EQ(cli("--json", "version", NULL), 0);
	CHECK(!strncmp(out, "{\"version\":\"", 12));
	CHECK_EQ(run_argv((char *[]){(char *)CLI_PATH, NULL}), 1);
	CHECK_EQ(cli("frobnicate", NULL), 1);
	CHECK_EQ(cli("--frob", "prog", NULL), 1);
	CHECK_EQ(cli("prog", "frob", NULL), 1);
	CHECK_EQ(cli("map", "frob", NULL), 1);
	CHECK_EQ(cli("prog", "load", NULL), 1);
	CHECK_EQ(cli("prog", "load", EXAMPLE("sockex1"), "extra", NULL), 1);
	CHECK_EQ(cli("prog", "dump", EXAMPLE("sockex1"), "--frob", NULL), 1);
	CHECK_EQ(cli("prog", "verify", EXAMPLE("sockex1"), "--log-level", "x", NULL), 1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), NULL), 1);
	CHECK(strstr(err, "no input"));
}

TEST(cli_prog_load)
{
	CHECK_EQ(cli("prog", "load", EXAMPLE("sockex1"), NULL), 0);
	CHECK(strstr(out, "prog bpf_prog1: socket_filter, section socket"));
	CHECK(strstr(out, "map my_map: array, key 4 B, value 8 B, max_entries 256"));
	CHECK_EQ(cli("--json", "prog", "load", EXAMPLE("globals"), NULL), 0);
	CHECK(strstr(out, "\"programs\":[{\"name\":\"globals_prog\",\"section\":\"socket\""));
	CHECK(strstr(out, "{\"name\":\".rodata\",\"type\":\"array\""));
	/* object errors: 2 */
	CHECK_EQ(cli("prog", "load", LOADER_OBJ_DIR "/no/such.bpf.o", NULL), 2);
	CHECK(strstr(err, "userbpf: "));
	CHECK_EQ(cli("prog", "load", CLI_PATH, NULL), 2);
	/* a verifier rejection: 3, with the log on stderr */
	CHECK_EQ(cli("prog", "load", FIXTURE("cli_rejected"), NULL), 3);
	CHECK(strstr(err, "R0 invalid mem access 'map_value_or_null'"));
}

/* --btf FILE: the object's CO-RE relocations resolved against FILE; one that cannot be read
 * is an object error naming it (and an object without relocations never reads it). */
TEST(cli_btf_option)
{
	const char *core = LOADER_OBJ_DIR "/tests/corpus/socket_core_reads.bpf.o";

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP("no kernel BTF to relocate against");
	CHECK_EQ(cli("prog", "load", core, NULL), 0);
	CHECK(strstr(out, "prog socket_core_reads: socket_filter, section socket"));
	/* the kernel's own BTF named explicitly: the same */
	CHECK_EQ(cli("--btf", "/sys/kernel/btf/vmlinux", "prog", "load", core, NULL), 0);
	CHECK_EQ(cli("--btf", "/nonexistent.btf", "prog", "load", core, NULL), 2);
	CHECK(strstr(err, "CO-RE relocations: target BTF '/nonexistent.btf': No such file"));
	CHECK_EQ(cli("--btf", "/nonexistent.btf", "prog", "load", EXAMPLE("sockex1"), NULL), 0);
}

/* An object with "?" sections: a command that names such a program loads it; one that names
 * none leaves them out and says so. */
TEST(cli_autoload)
{
	char frame[] = "/tmp/userbpf-cli-frame-XXXXXX";
	unsigned char zeros[64] = { 0 };
	int fd = mkstemp(frame);

	REQUIRE(fd >= 0);
	REQUIRE(write(fd, zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros));
	close(fd);
	CHECK_EQ(cli("prog", "run", FIXTURE("mixed_autoload") ":drop_all", "--data", frame, NULL),
		 0);
	CHECK(strstr(out, "drop_all (xdp): 1 packets"));
	CHECK(strstr(out, "XDP_DROP"));
	CHECK_EQ(cli("prog", "verify", FIXTURE("mixed_autoload"), NULL), 0);
	CHECK(strstr(out, "pass_all: verified"));
	CHECK(strstr(out, "drop_all: not loaded (section '?xdp' starts with '?'"));
	CHECK_EQ(cli("prog", "verify", FIXTURE("mixed_autoload") ":drop_all", NULL), 0);
	CHECK(strstr(out, "drop_all: verified"));
	/* the LSM one, named, is loaded, and userbpf cannot: an object error that says why */
	CHECK_EQ(cli("prog", "run", FIXTURE("mixed_autoload") ":on_file_open", "--data", frame,
		     NULL),
		 2);
	CHECK(strstr(err, "program 'on_file_open' (section '?lsm/file_open'): BPF_PROG_LOAD "
			  "failed: Invalid argument: the program type is not supported by userbpf"));
	/* a program the load left out is dumped as the object has it */
	CHECK_EQ(cli("prog", "dump", FIXTURE("mixed_autoload"), NULL), 0);
	CHECK(strstr(out, "drop_all:\n   0: (b7) r0 = 1\n   1: (95) exit"));
	unlink(frame);
}

/* A named program is verified alone: another one's failure, the verifier's or the section
 * name's (libbpf's rule: the object opens, that program's load fails), is not its own. */
TEST(cli_verify_named_alone)
{
	CHECK_EQ(cli("prog", "verify", FIXTURE("sibling_fails") ":good", NULL), 0);
	CHECK(strstr(out, "good: verified"));
	/* all of them: each alone, each reported; the exit code a rejection's */
	CHECK_EQ(cli("prog", "verify", FIXTURE("sibling_fails"), NULL), 3);
	CHECK(strstr(out, "good: verified\n"));
	CHECK(strstr(out, "bad: rejected\n"));
	CHECK(strstr(out, "program 'bad' (section 'xdp'): BPF_PROG_LOAD failed: Permission denied"));
	CHECK(strstr(out, "unknown: not loaded: sibling_fails.bpf.o: program 'unknown': missing BPF "
			  "prog type"));
	CHECK_EQ(cli("--json", "prog", "verify", FIXTURE("sibling_fails"), NULL), 3);
	CHECK(strstr(out, "[{\"name\":\"good\",\"verified\":true,"));
	CHECK(strstr(out, "{\"name\":\"bad\",\"verified\":false,"));
	CHECK(strstr(out, "{\"name\":\"unknown\",\"verified\":false,"));
	CHECK_EQ(cli("prog", "verify", FIXTURE("sibling_fails") ":unknown", NULL), 2);
	CHECK(strstr(err, "program 'unknown': missing BPF prog type, check ELF section name "
			  "'frobnicate'"));
	CHECK_EQ(cli("prog", "dump", FIXTURE("sibling_fails") ":unknown", NULL), 0);
	CHECK(strstr(out, "unknown:\n   0: (b7) r0 = 0\n   1: (95) exit"));
}

/* --trace: what a program writes to its streams (bpf_stream_printk()) goes to stderr, run by
 * run.  The program (corpus socket_stream_printk) sees the frame as a packet socket does. */
TEST(cli_prog_run_stream_trace)
{
	char frame[] = "/tmp/userbpf-cli-frame-XXXXXX";
	unsigned char bytes[100] = { 0 };
	int fd;

	if (!btf_vmlinux() || btf_find_func(btf_vmlinux(), "bpf_stream_vprintk_impl") <= 0)
		SKIP("no bpf_stream_vprintk_impl in the kernel's BTF (Linux 6.18+)");
	bytes[0] = 0x12; /* (the destination address: a packet socket's first bytes) */
	bytes[1] = 0x34;
	bytes[12] = 0x08;
	fd = mkstemp(frame);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, bytes, sizeof(bytes)) == (ssize_t)sizeof(bytes));
	close(fd);
	CHECK_EQ(cli("prog", "run", CORPUS("socket_stream_printk"), "--data", frame, "--trace",
		     NULL), 0);
	CHECK(strstr(err, "len 100 proto 800 first 1234\n"));
	CHECK(!strstr(out, "len 100"));
	/* without --trace nothing is printed (and the next run's stream starts empty) */
	CHECK_EQ(cli("prog", "run", CORPUS("socket_stream_printk"), "--data", frame, NULL), 0);
	CHECK(!strstr(err, "len 100") && !strstr(out, "len 100"));
	fd = open(frame, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, bytes, 40) == 40);
	close(fd);
	CHECK_EQ(cli("prog", "run", CORPUS("socket_stream_printk"), "--data", frame, "--trace",
		     NULL), 0);
	CHECK(strstr(err, "short packet: 40 bytes\n"));
	unlink(frame);
}

TEST(cli_prog_verify_and_dump)
{
	CHECK_EQ(cli("prog", "verify", EXAMPLE("sockex1"), NULL), 0);
	CHECK(strstr(out, "bpf_prog1: verified"));
	CHECK(strstr(out, "processed "));
	CHECK_EQ(cli("prog", "verify", FIXTURE("cli_rejected"), "--log-level", "2", NULL), 3);
	CHECK(strstr(out, "rejected"));
	CHECK(strstr(out, "R0 invalid mem access 'map_value_or_null'"));
	CHECK_EQ(cli("--json", "prog", "verify", EXAMPLE("xdp_portfilter") ":xdp_portfilter", NULL),
		 0);
	CHECK(strstr(out, "[{\"name\":\"xdp_portfilter\",\"verified\":true,\"log\":\""));
	CHECK_EQ(cli("prog", "verify", EXAMPLE("sockex1") ":nosuch", NULL), 1);

	CHECK_EQ(cli("prog", "dump", EXAMPLE("sockex1"), NULL), 0);
	CHECK(strstr(out, "bpf_prog1:\n   0: (bf) r6 = r1\n   1: (30) r0 = *(u8 *)skb[23]\n"));
	CHECK(strstr(out, "(18) r1 = map[my_map]\n   7: (85) call bpf_map_lookup_elem#1\n"));
	CHECK_EQ(cli("prog", "dump", EXAMPLE("globals") ":globals_prog", "--opcodes", NULL), 0);
	CHECK(strstr(out, "(18) r2 = map[.bss][0]+0\n       18 22 00 00"));
	CHECK_EQ(cli("--json", "prog", "dump", EXAMPLE("sockex1"), NULL), 0);
	CHECK(strstr(out,
		     "[{\"name\":\"bpf_prog1\",\"insns\":[{\"pc\":0,\"disasm\":\"(bf) r6 = r1\"}"));
	/* --jited: the JIT's code (x86-64), or a note that the interpreter runs it */
	CHECK_EQ(cli("prog", "dump", EXAMPLE("sockex1"), "--jited", NULL), 0);
#ifdef __x86_64__
	if (!getenv("USERBPF_JIT") || strcmp(getenv("USERBPF_JIT"), "0"))
		CHECK(strstr(out, "bpf_prog1: ") && strstr(out, " bytes of x86-64 code\n"));
	else
#endif
		CHECK(strstr(out, "bpf_prog1: not JIT-compiled (the interpreter runs it)\n"));
	CHECK_EQ(cli("prog", "verify", EXAMPLE("sockex1"), "--jited", NULL), 1);
	/* a program with a bpf_loop() the JIT runs inline: its bound check is in the code */
	CHECK_EQ(cli("prog", "dump", LOADER_OBJ_DIR "/tests/corpus/xdp_loop_callbacks.bpf.o",
		     "--jited", NULL),
		 0);
#ifdef __x86_64__
	if (!getenv("USERBPF_JIT") || strcmp(getenv("USERBPF_JIT"), "0")) {
		CHECK(strstr(out, "xdp_loop_callbacks: ") && strstr(out, " bytes of x86-64 code\n"));
		/* with objdump's listing (not a hex dump): cmp $BPF_MAX_LOOPS, nr */
		if (strstr(out, ":\t"))
			CHECK(strstr(out, "81 ff 00 00 80 00    \tcmp    $0x800000,%edi\n"));
	} else
#endif
		CHECK(strstr(out, "xdp_loop_callbacks: not JIT-compiled (the interpreter runs it)\n"));
	/* a program the verifier rejects can be dumped */
	CHECK_EQ(cli("prog", "dump", FIXTURE("cli_rejected"), NULL), 0);
	CHECK(strstr(out, "unchecked:\n"));
	CHECK(strstr(out, "(18) r1 = map[values]\n"));
	CHECK_EQ(cli("prog", "dump", LOADER_OBJ_DIR "/no/such.bpf.o", NULL), 2);
	CHECK_EQ(cli("prog", "dump", EXAMPLE("sockex1") ":nosuch", NULL), 1);
}

TEST(cli_prog_run_sockex1_matches_pcap)
{
	uint64_t want[256], bytes = 0;
	char line[128];

	REQUIRE_SETUP();
	expect_sockex1(want);
	for (unsigned int i = 0; i < nframes; i++)
		bytes += frames[i].len;
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--map-dump", "my_map",
		     "--names", "ipproto", NULL),
		 0);
	snprintf(line, sizeof(line), "bpf_prog1 (socket_filter): %u packets, %llu bytes, ", nframes,
		 (unsigned long long)bytes);
	CHECK(strstr(out, line));
	CHECK(strstr(out, "  0 (drop)"));
	check_dump_lines(out, want);
	CHECK(want[6] && want[17] && want[1]); /* the traffic has tcp, udp and icmp */
	CHECK(strstr(out, " (tcp) "));
	/* pcapng gives the same */
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1") ":bpf_prog1", "--pcap", pcapng_path,
		     "--map-dump", "my_map", NULL),
		 0);
	check_dump_lines(out, want);
	/* the map commands: the same run, then the map */
	CHECK_EQ(cli("map", "dump", EXAMPLE("sockex1") ":my_map", "--pcap", pcap_path, NULL), 0);
	check_dump_lines(out, want);
	CHECK_EQ(cli("map", "lookup", EXAMPLE("sockex1") ":my_map", "6", "--pcap", pcap_path, NULL),
		 0);
	CHECK_EQ(entry(out, "6"), want[6]);
	CHECK_EQ(cli("--json", "map", "lookup", EXAMPLE("sockex1") ":my_map", "hex:11000000",
		     "--pcap", pcap_path, NULL),
		 0);
	snprintf(line, sizeof(line), "\"formatted\":{\"key\":17,\"value\":%llu}",
		 (unsigned long long)want[17]);
	CHECK(strstr(out, line));
	/* --repeat runs the program N times per packet: the counters grow N-fold */
	CHECK_EQ(cli("--json", "prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--repeat",
		     "3", "--map-dump", "my_map", NULL),
		 0);
	snprintf(line, sizeof(line), "\"formatted\":{\"key\":6,\"value\":%llu}",
		 (unsigned long long)want[6] * 3);
	CHECK(strstr(out, line));
	CHECK(strstr(out, "\"retvals\":[{\"retval\":0,\"name\":\"drop\",\"packets\":600,"));
}

/* A per-CPU array: the text dump's value column is the sum of the CPUs' copies (one line per
 * nonzero key, "(cpu0 N, cpu1 M)" after it), the JSON dump lists the copies and the sum. */
TEST(cli_map_dump_percpu)
{
	uint64_t want[256] = {0};
	char line[128];
	const char *p;

	REQUIRE_SETUP();
	for (unsigned int i = 0; i < nframes; i++) {
		const unsigned char *d = frames[i].data;
		unsigned int len = frames[i].len, key = 255;

		if (len >= 34 && d[12] == 0x08 && d[13] == 0x00)
			key = d[23];
		else if (len >= 54 && d[12] == 0x86 && d[13] == 0xdd)
			key = d[20];
		want[key]++;
	}
	CHECK_EQ(cli("map", "dump", EXAMPLE("xdp_proto_count") ":proto_count", "--pcap", pcap_path,
		     NULL),
		 0);
	CHECK(strstr(out, "map proto_count: percpu_array, key 4 B, value 8 B, max_entries 256"));
	for (int k = 0; k < 256; k++)
		if (want[k] && entry(out, (snprintf(line, sizeof(line), "%d", k), line)) !=
				       (long long)want[k])
			test_fail(__FILE__, __LINE__, "proto_count[%d]: cli %lld, pcap %llu", k,
				  entry(out, line), (unsigned long long)want[k]);
	CHECK((p = strstr(out, "\n  6 ")) && strstr(p, "(cpu0 ") && strchr(p, ')'));
	CHECK_EQ(cli("--json", "map", "lookup", EXAMPLE("xdp_proto_count") ":proto_count", "17",
		     "--pcap", pcap_path, NULL),
		 0);
	snprintf(line, sizeof(line), "\"formatted\":{\"key\":17,\"sum\":%llu}",
		 (unsigned long long)want[17]);
	CHECK(strstr(out, line));
	CHECK(strstr(out, "\"values\":[{\"cpu\":0,\"value\":["));
	/* an update writes every CPU's copy */
	CHECK_EQ(cli("map", "update", EXAMPLE("xdp_proto_count") ":proto_count", "3", "5", NULL), 0);
	snprintf(line, sizeof(line), "%u", 5u * (unsigned int)userbpf_num_possible_cpus());
	CHECK_EQ(entry(out, "3"), strtoll(line, NULL, 10));
}

/* Maps without keys: a queue and a stack dump in pop order (and keep their elements), a ring
 * buffer its unconsumed records, discarded ones marked. */
/* A program keeping counts in cgroup storage: each packet's run has fresh storage, and the maps
 * list no storage (nothing is attached to a cgroup). */
TEST(cli_prog_run_cgroup_storage)
{
	unsigned int n[2] = {0};

	REQUIRE_SETUP();
	for (unsigned int i = 0; i < nframes; i++)
		n[frames[i].len - 14 > 1000 ? 0 : 1]++;
	CHECK_EQ(cli("prog", "run", LOADER_OBJ_DIR "/tests/corpus/cgroup_skb_storage_count.bpf.o",
		     "--pcap", pcap_path, NULL),
		 0);
	CHECK_EQ(entry(out, "0 (drop)"), n[0] ? (long long)n[0] : -1);
	CHECK_EQ(entry(out, "1 (pass)"), n[1] ? (long long)n[1] : -1);
	CHECK(n[1] > 0);
	CHECK_EQ(cli("map", "dump",
		     LOADER_OBJ_DIR "/tests/corpus/cgroup_skb_storage_count.bpf.o:cg_counters",
		     "--pcap", pcap_path, NULL),
		 0);
	CHECK(strstr(out, "cg_counters: cgroup_storage, key 16 B, value 24 B") != NULL);
	CHECK(strstr(out, "each run has fresh storage of its own") != NULL);
	/* socket storage cannot be listed: said, not an error */
	CHECK_EQ(cli("map", "dump",
		     LOADER_OBJ_DIR "/tests/corpus/cgroup_skb_sk_bytes.bpf.o:sk_counts", NULL),
		 0);
	CHECK(strstr(out, "sk_counts: sk_storage, key 4 B, value 16 B") != NULL);
	CHECK(strstr(out, "cannot be listed") != NULL);
	/* nor can a socket map be filled from the CLI */
	CHECK_EQ(cli("map", "dump", LOADER_OBJ_DIR "/tests/corpus/sk_lookup_steer.bpf.o:steer",
		     NULL),
		 0);
	CHECK(strstr(out, "steer: sockhash, key 4 B, value 8 B") != NULL);
	CHECK(strstr(out, "the CLI adds none") != NULL);
	/* an AF_XDP socket map cannot be read back: said, not an error */
	CHECK_EQ(cli("map", "dump", LOADER_OBJ_DIR "/tests/corpus/xdp_xsk_redirect.bpf.o:xsks",
		     NULL),
		 0);
	CHECK(strstr(out, "xsks: xskmap, key 4 B, value 4 B") != NULL);
	CHECK(strstr(out, "cannot be read back") != NULL);
}

/* A flow dissector over the capture: every frame gets BPF_OK or BPF_DROP, the same as on the
 * kernel. */
TEST(cli_prog_run_flow_dissector)
{
	static char first[OUT_MAX];
	long long ok, drop;
	char *a, *b;

	REQUIRE_SETUP();
	CHECK_EQ(cli("prog", "run", LOADER_OBJ_DIR "/tests/corpus/flow_dissector_ports.bpf.o",
		     "--pcap", pcap_path, NULL),
		 0);
	ok = entry(out, "0 (BPF_OK)");
	drop = entry(out, "2 (BPF_DROP)");
	CHECK(ok > 0);
	CHECK_EQ((ok > 0 ? ok : 0) + (drop > 0 ? drop : 0), (long long)nframes);
	if (!kernel_bpf_available())
		return;
	strcpy(first, out);
	CHECK_EQ(cli("--kernel", "prog", "run",
		     LOADER_OBJ_DIR "/tests/corpus/flow_dissector_ports.bpf.o", "--pcap", pcap_path,
		     NULL),
		 0);
	/* the summary's timings differ: compare from the retval table on */
	a = strstr(first, "\n");
	b = strstr(out, "\n");
	CHECK(a && b && !strcmp(a, b));
}

TEST(cli_map_dump_keyless)
{
	unsigned int lens[NPKTS], records = 0;
	char line[160];

	REQUIRE_SETUP();
	for (unsigned int i = 0; i < nframes; i++)
		lens[i] = frames[i].len;
	for (int pass = 0; pass < 2; pass++) {
		bool stack = pass == 1;

		CHECK_EQ(cli("map", "dump",
			     stack ? FIXTURE("cli_keyless") ":lens_lifo"
				   : FIXTURE("cli_keyless") ":lens_fifo",
			     "--pcap", pcap_path, NULL),
			 0);
		for (unsigned int i = 0; i < 8; i++) {
			snprintf(line, sizeof(line), "#%u", i);
			CHECK_EQ(entry(out, line),
				 (long long)lens[stack ? nframes - 1 - i : nframes - 8 + i]);
		}
		snprintf(line, sizeof(line), "#8");
		CHECK_EQ(entry(out, line), -1);
	}
	CHECK_EQ(cli("map", "dump", FIXTURE("cli_keyless") ":tcp_events", "--pcap", pcap_path, NULL),
		 0);
	/* 16-byte records in a 4096-byte ring: the first 255 IPv4 frames' */
	for (unsigned int i = 0; i < nframes && records < 255; i++) {
		const unsigned char *d = frames[i].data;
		unsigned int len = frames[i].len;

		if (len < 34 || d[12] != 0x08 || d[13] != 0x00)
			continue;
		if (d[23] == 6)
			snprintf(line, sizeof(line), "\n  #%-4u %20llu\n", records,
				 (unsigned long long)len | (unsigned long long)d[23] << 32);
		else
			snprintf(line, sizeof(line),
				 "\n  #%-4u (discarded) 8 B: %02x %02x %02x %02x %02x 00 00 00\n",
				 records, len & 0xff, len >> 8 & 0xff, len >> 16 & 0xff, len >> 24,
				 d[23]);
		if (!strstr(out, line)) {
			test_fail(__FILE__, __LINE__, "no line \"%s\"", line + 1);
			break;
		}
		records++;
	}
	CHECK(records > 100);
	snprintf(line, sizeof(line), "(%u records not yet consumed)", records);
	CHECK(strstr(out, line));
}

/* A perf event array's records (cli_keyless's udp_events: { length, 17 } and the frame's MAC
 * addresses, per UDP frame) as `map dump` prints them after a run: "cpu N  #i  20 B: ..." lines.
 * The program runs on whichever CPU the scheduler gives, so the records must be the UDP frames'
 * as a multiset, each CPU's ring in frame order.  Returns 0 when the dump ran, -1 when its events
 * could not be made (stderr says why). */
static int check_perf_dump(bool kernel)
{
	static char want[NPKTS][64], got[NPKTS][64];
	unsigned int nwant = 0, ngot = 0, next[2] = {0, 0};
	char line[64];
	const char *p;
	int rc;

	if (kernel)
		rc = cli("--kernel", "map", "dump", FIXTURE("cli_keyless") ":udp_events", "--pcap",
			 pcap_path, NULL);
	else
		rc = cli("map", "dump", FIXTURE("cli_keyless") ":udp_events", "--pcap", pcap_path,
			 NULL);
	if (strstr(err, "no perf event for CPU"))
		return -1;
	CHECK_EQ(rc, 0);
	for (unsigned int i = 0; i < nframes; i++) {
		const unsigned char *d = frames[i].data;
		uint32_t len = frames[i].len;
		int n;

		if (len < 34 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 17)
			continue;
		n = snprintf(want[nwant], sizeof(want[0]), "%02x %02x %02x %02x 11 00 00 00",
			     len & 0xff, len >> 8 & 0xff, len >> 16 & 0xff, len >> 24);
		for (int b = 0; b < 12; b++)
			n += snprintf(want[nwant] + n, sizeof(want[0]) - (size_t)n, " %02x", d[b]);
		nwant++;
	}
	CHECK(nwant > 20);
	/* each record line: "  cpu N    #i    20 B: <hex>"; per CPU, a subsequence of want */
	for (p = strstr(out, "\n  cpu "); p && ngot < NPKTS; p = strstr(p + 1, "\n  cpu ")) {
		const char *hex = strstr(p, " 20 B: "), *eol = strchr(p + 1, '\n');
		unsigned int cpu = (unsigned int)strtoul(p + 7, NULL, 10);

		if (!hex || !eol || hex > eol || eol - hex - 7 >= (long)sizeof(got[0])) {
			test_fail(__FILE__, __LINE__, "bad record line in: %.80s", p + 1);
			return 0;
		}
		memcpy(got[ngot], hex + 7, (size_t)(eol - hex - 7));
		got[ngot][eol - hex - 7] = '\0';
		if (cpu < 2) {
			while (next[cpu] < nwant && strcmp(want[next[cpu]], got[ngot]))
				next[cpu]++;
			if (next[cpu]++ >= nwant)
				test_fail(__FILE__, __LINE__, "cpu %u: record %s out of frame order", cpu,
					  got[ngot]);
		}
		ngot++;
	}
	CHECK_EQ(ngot, nwant);
	qsort(want, nwant, sizeof(want[0]), (int (*)(const void *, const void *))strcmp);
	qsort(got, ngot, sizeof(got[0]), (int (*)(const void *, const void *))strcmp);
	for (unsigned int i = 0; i < nwant && i < ngot; i++)
		if (strcmp(want[i], got[i])) {
			test_fail(__FILE__, __LINE__, "records differ from the UDP frames: %s vs %s",
				  got[i], want[i]);
			break;
		}
	snprintf(line, sizeof(line), "(%u records)", nwant);
	CHECK(strstr(out, line));
	return 0;
}

TEST(cli_map_dump_perf_events)
{
	REQUIRE_SETUP();
	CHECK_EQ(check_perf_dump(false), 0);
	/* without a run no events are attached, and the dump says so */
	CHECK_EQ(cli("map", "dump", FIXTURE("cli_keyless") ":udp_events", NULL), 0);
	CHECK(strstr(out, "(no perf events attached"));
	/* JSON: one entry per record, with its CPU */
	CHECK_EQ(cli("--json", "map", "dump", FIXTURE("cli_keyless") ":udp_events", "--pcap",
		     pcap_path, NULL),
		 0);
	CHECK(strstr(out, "\"type\":\"perf_event_array\""));
	CHECK(strstr(out, "\"entries\":[{\"cpu\":"));
	/* With one data page per CPU (--perf-pages 1), 130 runs per frame overfill a ring (a page
	 * holds (page - 1) / 32 of these 32-byte records) before the CLI drains it: the next write
	 * after a drain brings a LOST record.  The count still pending after the last frame on
	 * each CPU is never reported (as in the kernel), so kept and lost add up to every write
	 * less at most one frame's worth per CPU */
	{
		unsigned long kept = 0, lost = 0, nudp = 0, total, fit;
		const char *p;

		for (unsigned int i = 0; i < nframes; i++)
			nudp += frames[i].len >= 34 && frames[i].data[12] == 0x08 &&
				frames[i].data[13] == 0x00 && frames[i].data[23] == 17;
		total = nudp * 130;
		fit = ((unsigned long)sysconf(_SC_PAGESIZE) - 1) / 32;
		CHECK_EQ(cli("map", "dump", FIXTURE("cli_keyless") ":udp_events", "--pcap",
			     pcap_path, "--repeat", "130", "--perf-pages", "1", NULL),
			 0);
		p = strstr(out, "\n  (");
		CHECK(p && sscanf(p, "\n  (%lu records, %lu lost)", &kept, &lost) == 2);
		CHECK(strstr(out, " records lost: the ring was full)"));
		CHECK(fit < 130 && kept >= nudp * fit && lost > 0);
		CHECK(kept + lost <= total && kept + lost + 2 * 130 >= total);
	}
	CHECK_EQ(cli("map", "dump", FIXTURE("cli_keyless") ":udp_events", "--pcap", pcap_path,
		     "--perf-pages", "3", NULL),
		 1);
	CHECK(strstr(err, "a power of 2"));
}

/* The same dump with --kernel: the kernel's perf events (CPU-wide: root or CAP_PERFMON). */
TEST(cli_map_dump_perf_events_kernel)
{
	REQUIRE_SETUP();
	SKIP_WITHOUT_KERNEL_BPF();
	if (check_perf_dump(true))
		SKIP("the kernel refused CPU-wide perf events: %.120s", err);
}

TEST(cli_prog_run_xdp_set_and_verdicts)
{
	unsigned int drop = 0, pass = 0;
	char line[128];

	REQUIRE_SETUP();
	for (unsigned int i = 0; i < nframes; i++)
		*(expect_xdp(&frames[i], 80) == 1 ? &drop : &pass) += 1;
	CHECK(drop > 0);
	CHECK_EQ(cli("prog", "run", EXAMPLE("xdp_portfilter"), "--pcap", pcap_path, "--set",
		     "blocked_ports:be:80=1", "--map-dump", "verdicts", "--names", "xdp", NULL),
		 0);
	CHECK_EQ(entry(out, "1 (XDP_DROP)"), drop);
	CHECK_EQ(entry(out, "2 (XDP_PASS)"), pass);
	/* per-packet verdicts */
	CHECK_EQ(cli("prog", "run", EXAMPLE("xdp_portfilter"), "--pcap", pcap_path, "--set",
		     "blocked_ports:be:80=1", "--verdicts", NULL),
		 0);
	for (unsigned int i = 0; i < nframes; i++) {
		uint32_t v = expect_xdp(&frames[i], 80);

		snprintf(line, sizeof(line), "packet %u: len %u retval %u (%s)\n", i + 1,
			 frames[i].len, v, v == 1 ? "XDP_DROP" : "XDP_PASS");
		if (!strstr(out, line)) {
			test_fail(__FILE__, __LINE__, "missing: %s", line);
			break;
		}
	}
	CHECK_EQ(cli("--json", "prog", "run", EXAMPLE("xdp_portfilter"), "--data", frame_path,
		     "--verdicts", NULL),
		 0);
	snprintf(line, sizeof(line), "{\"verdicts\":[{\"packet\":1,\"len\":%u,\"retval\":2}],",
		 frames[0].len);
	CHECK(strstr(out, line) == out);
	/* map update: written before the run, printed after */
	CHECK_EQ(
	    cli("map", "update", EXAMPLE("xdp_portfilter") ":blocked_ports", "be:443", "7", NULL),
	    0);
	CHECK(!strncmp(out, "  47873 ", 8) && strstr(out, " 7\n"));
	CHECK_EQ(cli("map", "lookup", EXAMPLE("xdp_portfilter") ":blocked_ports", "be:80", NULL),
		 5);
	CHECK(strstr(err, "no such key"));
	CHECK_EQ(cli("map", "list", EXAMPLE("xdp_portfilter"), NULL), 0);
	CHECK(strstr(out, "map blocked_ports: hash, key 2 B, value 1 B, max_entries 1024\n"));
}

/* A cgroup skb program runs on each frame's network packet; its verdicts are named. */
TEST(cli_prog_run_cgroup_skb)
{
	unsigned int n[4] = {0};
	char want[64];

	REQUIRE_SETUP();
	for (unsigned int i = 0; i < nframes; i++)
		n[expect_cgroup(&frames[i], 53)]++;
	CHECK_EQ(cli("prog", "run", LOADER_OBJ_DIR "/tests/corpus/cgroup_skb_egress_policy.bpf.o",
		     "--pcap", pcap_path, "--set", "blocked_udp_ports:53=1", NULL),
		 0);
	for (uint32_t v = 0; v < 4; v++) {
		static const char *const names[] = {"drop", "pass", "drop, congestion",
						    "pass, congestion"};

		snprintf(want, sizeof(want), "%u (%s)", v, names[v]);
		CHECK_EQ(entry(out, want), n[v] ? (long long)n[v] : -1); /* (none: no line) */
	}
	CHECK(n[0] && n[1] && n[3]);
}

TEST(cli_error_exit_codes)
{
	REQUIRE_SETUP();
	/* input errors: 4 */
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", "/nonexistent.pcap", NULL), 4);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", frame_path, NULL), 4);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--data", "/nonexistent", NULL), 4);
	CHECK_EQ(
	    cli("prog", "run", EXAMPLE("sockex1"), "--iface", "nosuchif0", "--count", "1", NULL),
	    4);
	/* usage errors: 1 */
	CHECK_EQ(
	    cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--data", frame_path, NULL),
	    1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--repeat", "0", NULL),
		 1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--count", "3", NULL),
		 1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--set", "nosuch:1=1",
		     NULL),
		 1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--set",
		     "my_map:1=0x1ffffffffffffffff", NULL),
		 1);
	CHECK_EQ(
	    cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--set", "my_map=1", NULL),
	    1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--map-dump", "nosuch",
		     NULL),
		 1);
	CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1") ":nosuch", "--pcap", pcap_path, NULL), 1);
	CHECK_EQ(cli("map", "dump", EXAMPLE("sockex1"), NULL), 1);
	CHECK_EQ(cli("map", "dump", EXAMPLE("sockex1") ":nosuch", NULL), 1);
	CHECK_EQ(cli("map", "lookup", EXAMPLE("sockex1") ":my_map", "hex:01", NULL), 1);
	CHECK_EQ(cli("map", "update", EXAMPLE("sockex1") ":my_map", "1", NULL), 1);
	/* run errors: 5 (an array index past max_entries) */
	CHECK_EQ(cli("map", "update", EXAMPLE("sockex1") ":my_map", "256", "1", NULL), 5);
	/* object and verifier errors through run: 2, 3 */
	CHECK_EQ(cli("prog", "run", "/nonexistent.bpf.o", "--pcap", pcap_path, NULL), 2);
	CHECK_EQ(cli("prog", "run", FIXTURE("cli_rejected"), "--pcap", pcap_path, NULL), 3);
	CHECK_EQ(cli("map", "dump", FIXTURE("cli_rejected") ":values", NULL), 3);
}

/* Live capture on lo: the CLI captures 4 packets while this process sends UDP datagrams. */
TEST(cli_live_capture_lo)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	char opath[160], epath[160];
	int probe, s, status = 0;
	pid_t pid, w = 0;

	REQUIRE_SETUP();
	probe = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (probe < 0)
		SKIP("no live capture: AF_PACKET socket: %s (needs root or CAP_NET_RAW)",
		     strerror(errno));
	close(probe);
	snprintf(opath, sizeof(opath), "%s/live.out", tmpdir);
	snprintf(epath, sizeof(epath), "%s/live.err", tmpdir);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(o, 1);
		dup2(e, 2);
		execl(CLI_PATH, CLI_PATH, "prog", "run", EXAMPLE("sockex1"), "--iface", "lo",
		      "--count", "4", "--map-dump", "my_map", "--names", "ipproto", (char *)NULL);
		_exit(127);
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 300 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		if (s >= 0)
			sendto(s, "userbpf", 7, 0, (struct sockaddr *)&to, sizeof(to));
		nanosleep(&ts, NULL);
	}
	if (s >= 0)
		close(s);
	if (w == 0) {
		kill(pid, SIGINT);
		waitpid(pid, &status, 0);
		test_fail(__FILE__, __LINE__, "live capture did not end within 3 s");
	}
	read_file(opath, out, sizeof(out));
	read_file(epath, err, sizeof(err));
	unlink(opath);
	unlink(epath);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(strstr(out, "bpf_prog1 (socket_filter): 4 packets, "));
	CHECK(strstr(out, " (udp) "));
}

/* sockex1 and xdp_portfilter on userbpf and on the kernel, same packets, same results. */
static int run_all(const struct bpf_backend *be, const char *path, const char *map,
		   uint32_t *retvals, uint64_t *values, unsigned int nvalues)
{
	struct userbpf_object_opts o = {.sz = sizeof(o), .bpf = be->bpf};
	struct userbpf_object *obj;
	struct userbpf_program *p;
	struct userbpf_map *m;
	unsigned char buf[14 + 2048];
	bool pseudo;
	int rc = -1;

	if (userbpf_object_open_file(path, &o, &obj))
		return -1;
	if (userbpf_object_load(obj))
		goto out;
	p = userbpf_object_program(obj, 0);
	pseudo = userbpf_program_type(p) == BPF_PROG_TYPE_SOCKET_FILTER;
	m = userbpf_object_find_map(obj, "blocked_ports");
	if (m) {
		uint16_t port = htons(80);
		uint8_t one = 1;
		union bpf_attr a = {.map_fd = (uint32_t)userbpf_map_fd(m),
				    .key = PTR_TO_U64(&port),
				    .value = PTR_TO_U64(&one)};

		if (be->bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)))
			goto out;
	}
	memset(buf, 0, 14);
	for (unsigned int i = 0; i < nframes; i++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)userbpf_program_fd(p);
		if (pseudo) {
			buf[12] = frames[i].data[12];
			buf[13] = frames[i].data[13];
			memcpy(buf + 14, frames[i].data, frames[i].len);
			a.test.data_in = PTR_TO_U64(buf);
			a.test.data_size_in = 14 + frames[i].len;
		} else {
			a.test.data_in = PTR_TO_U64(frames[i].data);
			a.test.data_size_in = frames[i].len;
		}
		if (be->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)))
			goto out;
		retvals[i] = a.test.retval;
	}
	m = userbpf_object_find_map(obj, map);
	for (uint32_t k = 0; m && k < nvalues; k++) {
		union bpf_attr a = {.map_fd = (uint32_t)userbpf_map_fd(m),
				    .key = PTR_TO_U64(&k),
				    .value = PTR_TO_U64(&values[k])};

		if (be->bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)))
			goto out;
	}
	rc = m ? 0 : -1;
out:
	userbpf_object_close(obj);
	return rc;
}

TEST(cli_differential_kernel)
{
	static uint32_t ru[NPKTS], rk[NPKTS];
	uint64_t vu[256], vk[256], want[256];

	REQUIRE_SETUP();
	SKIP_WITHOUT_KERNEL_BPF();
	expect_sockex1(want);
	REQUIRE_EQ(run_all(&backend_userbpf, EXAMPLE("sockex1"), "my_map", ru, vu, 256), 0);
	REQUIRE_EQ(run_all(&backend_kernel, EXAMPLE("sockex1"), "my_map", rk, vk, 256), 0);
	CHECK(!memcmp(ru, rk, sizeof(ru)));
	for (int k = 0; k < 256; k++)
		if (vu[k] != vk[k] || vk[k] != want[k])
			test_fail(__FILE__, __LINE__,
				  "my_map[%d]: userbpf %llu kernel %llu pcap %llu", k,
				  (unsigned long long)vu[k], (unsigned long long)vk[k],
				  (unsigned long long)want[k]);
	REQUIRE_EQ(run_all(&backend_userbpf, EXAMPLE("xdp_portfilter"), "verdicts", ru, vu, 5), 0);
	REQUIRE_EQ(run_all(&backend_kernel, EXAMPLE("xdp_portfilter"), "verdicts", rk, vk, 5), 0);
	for (unsigned int i = 0; i < nframes; i++)
		if (ru[i] != rk[i] || rk[i] != expect_xdp(&frames[i], 80)) {
			test_fail(__FILE__, __LINE__, "packet %u: userbpf %u kernel %u expected %u",
				  i + 1, ru[i], rk[i], expect_xdp(&frames[i], 80));
			break;
		}
	CHECK(!memcmp(vu, vk, 5 * sizeof(vu[0])));
	/* and the CLI with --kernel prints what it prints on userbpf */
	{
		static char first[OUT_MAX];
		char *a, *b;

		CHECK_EQ(cli("prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path, "--map-dump",
			     "my_map", NULL),
			 0);
		strcpy(first, out);
		CHECK_EQ(cli("--kernel", "prog", "run", EXAMPLE("sockex1"), "--pcap", pcap_path,
			     "--map-dump", "my_map", NULL),
			 0);
		/* the summary's timings differ: compare from the retval table on */
		a = strstr(first, "\n");
		b = strstr(out, "\n");
		CHECK(a && b && !strcmp(a, b));
	}
}
