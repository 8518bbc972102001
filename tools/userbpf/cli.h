/* The userbpf CLI's shared declarations: exit codes, global options, the object helper (obj.c),
 * the packet runner (run.c), packet sources (pktsrc.c), map printing (map.c), perf event rings
 * (perf.c) and the JSON writer (json.c).  Each command group lives in its own file and is
 * entered through a do_*() function taking the arguments after its group word (argv[0] is the
 * command, e.g. "run").
 *
 * Conventions: commands return an exit code (enum cli_exit), print results on stdout (text, or
 * one JSON document with --json) and diagnostics on stderr prefixed "userbpf: ".  Maps and
 * programs exist only while the process runs, so every command that needs them opens and loads
 * the object itself.
 */
#ifndef USERBPF_CLI_H
#define USERBPF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <userbpf.h>
#include <userbpf/loader.h>

#include "pktsrc.h"

enum cli_exit {
	EXIT_OK = 0,
	EXIT_USAGE = 1,	   /* bad command line */
	EXIT_OBJECT = 2,   /* the object cannot be read, parsed, or its maps created */
	EXIT_VERIFIER = 3, /* a program was rejected by the verifier */
	EXIT_INPUT = 4,	   /* the packet input (pcap, data file, interface) failed */
	EXIT_RUN = 5,	   /* BPF_PROG_TEST_RUN or a map operation failed */
};

#define EXIT_CODES_HELP                                                                            \
	"Exit codes: 0 ok, 1 usage error, 2 object error (read, parse, maps), 3 verifier\n"        \
	"rejected a program, 4 packet input error, 5 run or map operation failed.\n"

struct cli_global {
	bool json;   /* --json: one JSON document on stdout */
	bool kernel; /* --kernel: load into the live kernel through bpf(2) */
	const char *btf; /* --btf FILE: CO-RE relocations against FILE, not the kernel's BTF */
};
extern struct cli_global cli;

/* The bpf() function the selected backend provides. */
userbpf_bpf_fn cli_backend(void);

/* obj.c: "OBJ[:PROG]" or "OBJ:MAP".  If spec names an existing file it is all path; otherwise it
 * is split at its last ':'.  *path is malloc'd; *sub points into it (NULL when absent). */
int cli_split_spec(const char *spec, char **path, const char **sub);
/* How to load an object: the verifier log buffer and level as in userbpf_object_opts; err gets
 * the loader's message on failure. */
struct cli_load {
	char *log;
	unsigned int log_size;
	unsigned int log_level;
	bool log_to_stderr; /* on rejection, copy the verifier log to stderr */
	const char *prog;   /* the program the command names (NULL: none): loaded even from a
			     * "?" section, which the load otherwise leaves out */
	bool prog_only;	    /* with prog: the object's other programs are not loaded */
	char err[512];
};
/* Opens and loads path.  Returns EXIT_OK and *objp, or prints the loader's message and returns
 * EXIT_OBJECT, or EXIT_VERIFIER when the verifier left a log (a program was rejected). */
int cli_load_object(const char *path, struct cli_load *l, struct userbpf_object **objp);
/* cli_load_object with a 64 KiB log that goes to stderr on rejection (prog: as in cli_load). */
int cli_load_simple(const char *path, const char *prog, struct userbpf_object **objp);
const char *cli_prog_type_name(unsigned int type);
const char *cli_map_type_name(unsigned int type);

/* map.c: values on the command line: an integer (decimal or 0x..) in host byte order in 1, 2, 4
 * or 8 bytes, "be:N" the same in network byte order, or "hex:0a0b.." exact bytes. */
int cli_parse_bytes(const char *s, void *out, unsigned int size);
/* "--set MAP:KEY=VALUE" applied to a loaded object.  Returns an exit code. */
int cli_map_set(struct userbpf_object *obj, const char *arg);
/* Dumps map name of obj (text or JSON).  names: NULL, "ipproto" or "xdp" for key labels; all:
 * also print all-zero values.  Returns an exit code. */
int cli_map_dump(struct userbpf_object *obj, const char *name, const char *names, bool all);

/* run.c: the packet runner shared by `prog run` and the map commands. */
struct run_opts {
	const char *pcap, *data, *iface;
	unsigned long count;  /* --count: live capture stops after this many (0: until ^C) */
	unsigned int repeat;  /* BPF_PROG_TEST_RUN repeat per packet */
	unsigned int perf_pages; /* --perf-pages: data pages per perf ring (0: the default) */
	bool verdicts;	      /* one line per packet */
	bool progress;	      /* force the progress line */
	bool trace;	      /* bpf_trace_printk lines and the program's streams to stderr */
	const char *sets[32]; /* --set MAP:KEY=VALUE, applied after load, before the run */
	unsigned int nsets;
};
/* getopt_long values of the runner's options, and their table entries (RUN_LONG_OPTIONS). */
enum {
	OPT_PCAP = 256,
	OPT_DATA,
	OPT_IFACE,
	OPT_COUNT,
	OPT_REPEAT,
	OPT_VERDICTS,
	OPT_PROGRESS,
	OPT_TRACE,
	OPT_SET,
	OPT_PERF_PAGES,
	OPT_RUN_LAST /* commands number their own options from here */
};
/* clang-format off */
#define RUN_LONG_OPTIONS                                                                           \
	{ "pcap", 1, NULL, OPT_PCAP }, { "data", 1, NULL, OPT_DATA },                              \
	{ "iface", 1, NULL, OPT_IFACE }, { "count", 1, NULL, OPT_COUNT },                          \
	{ "repeat", 1, NULL, OPT_REPEAT }, { "verdicts", 0, NULL, OPT_VERDICTS },                  \
	{ "progress", 0, NULL, OPT_PROGRESS }, { "trace", 0, NULL, OPT_TRACE },                    \
	{ "set", 1, NULL, OPT_SET }, { "perf-pages", 1, NULL, OPT_PERF_PAGES }
/* clang-format on */
#define RUN_OPTIONS_HELP                                                                           \
	"Input (one of):\n"                                                                        \
	"  --pcap FILE          packets of a pcap or pcapng file (Ethernet)\n"                     \
	"  --data FILE          one packet: the file's bytes (an Ethernet frame)\n"                \
	"  --iface NAME         live capture (root or CAP_NET_RAW); ^C stops it\n"                 \
	"  --count N            with --iface: stop after N packets\n"                              \
	"Run:\n"                                                                                   \
	"  --repeat N           run the program N times per packet (BPF_PROG_TEST_RUN repeat)\n"   \
	"  --verdicts           one line per packet: number, length, return value\n"               \
	"  --progress           progress line on stderr (default: only when stderr is a tty)\n"    \
	"  --trace              bpf_trace_printk() lines and what the program writes to its\n"     \
	"                       streams (bpf_stream_printk()) to stderr\n"                         \
	"  --set MAP:KEY=VALUE  update a map after loading, before the run (repeatable)\n"         \
	"  --perf-pages N       data pages of each CPU's ring for perf event arrays (default 64)\n" \
	"Values: N (decimal/0x, host order, 1/2/4/8 bytes), be:N (network order), hex:0a0b..\n"
/* Handles one runner option from getopt_long.  Returns 1 if it was one, 0 if not, -1 on a bad
 * value (printed). */
int run_opt_parse(struct run_opts *o, int opt, const char *arg);
bool run_opts_have_input(const struct run_opts *o);
/* Applies the --set options, then runs prog over the input.  json: the caller has opened a JSON
 * object and the runner adds its members; text: a summary block.  Returns an exit code. */
int run_packets(struct userbpf_object *obj, struct userbpf_program *prog, const struct run_opts *o,
		bool print_summary);

/* perf.c: perf event arrays.  cli_perf_attach() gives each perf event array of obj a mapped BPF
 * output event per CPU (slot i: CPU i), once, mapped with pages data pages (0: 64); a CPU whose event fails is reported on stderr and
 * left empty.  Returns an exit code.  cli_perf_poll() drains every ring into its buffer (kept);
 * the runner calls it after each packet.  cli_perf_rings() returns map m's rings (*n of them; a
 * ring whose fd is -1 has no event) or NULL if none were attached; cli_perf_detach() unmaps,
 * closes and frees them all. */
struct cli_perf_ring {
	int cpu;
	int fd;
	void *base; /* the metadata page, then the data pages */
	size_t len;
	uint8_t *kept; /* the records drained so far, as they were in the ring */
	size_t kept_len, kept_cap;
	bool full; /* the CLI's buffer limit was reached: no longer drained */
};
int cli_perf_attach(struct userbpf_object *obj, unsigned int pages);
void cli_perf_poll(void);
const struct cli_perf_ring *cli_perf_rings(const struct userbpf_map *m, unsigned int *n);
void cli_perf_detach(void);

/* json.c: a streaming JSON writer on stdout with automatic commas. */
void json_begin_object(void);
void json_end_object(void);
void json_begin_array(void);
void json_end_array(void);
void json_key(const char *key);
void json_string(const char *s);
void json_uint(uint64_t v);
void json_int(int64_t v);
void json_double(double v);
void json_bool(bool v);
/* Ends the document with a newline. */
void json_finish(void);

/* Command groups. */
int do_prog(int argc, char **argv);
int do_map(int argc, char **argv);

/* One map's description (map.c): the "map NAME: TYPE, key ..." line, and its JSON fields (name,
 * type, sizes, max_entries) inside an object the caller opened. */
void cli_map_print_header(struct userbpf_map *m);
void cli_map_json_fields(struct userbpf_map *m);

#endif
