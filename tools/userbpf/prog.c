/* `userbpf prog ...`: load, run, dump and verify the programs of a BPF object.
 *
 *  load    loads every program and map (the verifier runs on each) and lists them.
 *  run     runs one program (the named one, else the first) over packets (run.c), then prints
 *          the summary and any --map-dump maps.
 *  dump    the instructions as loaded (relocated, subprograms appended), one per line in the
 *          kernel's format through the verifier's disassembler (src/verifier/disasm.h); map loads
 *          show the map's name as bpftool shows map[id:N].  The verifier does not run (see
 *          dump_bpf()), so a program it rejects can be dumped too.
 *  verify  the verifier's log: each selected program is loaded on its own (the object with that
 *          program and the maps only, then again with the asked log level), so the verdict and
 *          log are that program's whatever else the object holds, and every program is
 *          reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/jit.h"
#include "fd.h"
#include "prog/prog.h"
#include "rcu.h"
#include "verifier/disasm.h"

#include "cli.h"

#define VERIFY_LOG_SIZE (16u << 20)
#define MAX_DUMPS 16

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: userbpf [--json] [--kernel] [--btf FILE] prog COMMAND ...\n"
		"  prog load   OBJ                   load; list programs and maps\n"
		"  prog run    OBJ[:PROG] INPUT [OPTIONS]\n"
		"                                    run over packets: counts per return value,\n"
		"                                    packets, bytes, ns/packet\n"
		"  prog dump   OBJ[:PROG] [--opcodes] instructions in the kernel's format\n"
		"  prog dump   OBJ[:PROG] --jited     the JIT's x86-64 code (objdump syntax)\n"
		"  prog verify OBJ[:PROG] [--log-level N]\n"
		"                                    the verifier's log (default level 1; 2 every\n"
		"                                    instruction's state; +4 statistics)\n"
		"\n"
		"PROG names a function (default: every program; run: the first).\n"
		"Socket filters see each frame as on a packet socket, from the Ethernet header.\n"
		"\n"
		"run options:\n"
		"  --map-dump MAP       after the run, print the map (repeatable)\n"
		"  --names ipproto|xdp  with --map-dump: label integer keys\n"
		"  --all                with --map-dump: arrays' all-zero entries "
		"too\n" RUN_OPTIONS_HELP "\n" EXIT_CODES_HELP);
}

enum { OPT_MAP_DUMP = OPT_RUN_LAST, OPT_NAMES, OPT_ALL, OPT_LOG_LEVEL, OPT_OPCODES, OPT_JITED,
       OPT_HELP };

static int select_progs(struct userbpf_object *obj, const char *name, struct userbpf_program ***out,
			size_t *n)
{
	size_t cnt = userbpf_object_program_count(obj);

	*out = calloc(cnt ? cnt : 1, sizeof(**out));
	*n = 0;
	if (!*out)
		return EXIT_RUN;
	for (size_t i = 0; i < cnt; i++) {
		struct userbpf_program *p = userbpf_object_program(obj, i);

		if (!name || !strcmp(name, userbpf_program_name(p)))
			(*out)[(*n)++] = p;
	}
	if (!*n) {
		cli_err("%s: no program%s%s", userbpf_object_name(obj), name ? " " : "",
			name ? name : "");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int cmd_load(const char *path)
{
	struct userbpf_object *obj;
	int rc = cli_load_simple(path, NULL, &obj);

	if (rc)
		return rc;
	if (cli.json) {
		json_begin_object();
		json_key("object");
		json_string(userbpf_object_name(obj));
		json_key("license");
		json_string(userbpf_object_license(obj));
		json_key("programs");
		json_begin_array();
	} else {
		printf("%s: license %s, %zu program%s, %zu map%s\n", userbpf_object_name(obj),
		       userbpf_object_license(obj), userbpf_object_program_count(obj),
		       userbpf_object_program_count(obj) == 1 ? "" : "s",
		       userbpf_object_map_count(obj),
		       userbpf_object_map_count(obj) == 1 ? "" : "s");
	}
	for (size_t i = 0; i < userbpf_object_program_count(obj); i++) {
		struct userbpf_program *p = userbpf_object_program(obj, i);

		if (cli.json) {
			json_begin_object();
			json_key("name");
			json_string(userbpf_program_name(p));
			json_key("section");
			json_string(userbpf_program_section(p));
			json_key("type");
			json_string(cli_prog_type_name(userbpf_program_type(p)));
			json_key("insns");
			json_uint(userbpf_program_insn_cnt(p));
			json_end_object();
		} else {
			printf("prog %s: %s, section %s, %zu insns\n", userbpf_program_name(p),
			       cli_prog_type_name(userbpf_program_type(p)),
			       userbpf_program_section(p), userbpf_program_insn_cnt(p));
		}
	}
	if (cli.json) {
		json_end_array();
		json_key("maps");
		json_begin_array();
	}
	for (size_t i = 0; i < userbpf_object_map_count(obj); i++) {
		struct userbpf_map *m = userbpf_object_map(obj, i);

		if (cli.json) {
			json_begin_object();
			cli_map_json_fields(m);
			json_end_object();
		} else {
			cli_map_print_header(m);
		}
	}
	if (cli.json) {
		json_end_array();
		json_end_object();
		json_finish();
	}
	userbpf_object_close(obj);
	return EXIT_OK;
}

/* The map an ld_imm64 refers to by fd, if any. */
static const char *map_of_fd(struct userbpf_object *obj, int fd)
{
	for (size_t i = 0; i < userbpf_object_map_count(obj); i++)
		if (userbpf_map_fd(userbpf_object_map(obj, i)) == fd)
			return userbpf_map_name(userbpf_object_map(obj, i));
	return NULL;
}

static void dump_prog(struct userbpf_object *obj, struct userbpf_program *p, bool opcodes)
{
	const struct bpf_insn *in = userbpf_program_insns(p);
	size_t n = in ? userbpf_program_insn_cnt(p) : 0;

	if (cli.json) {
		json_begin_object();
		json_key("name");
		json_string(userbpf_program_name(p));
		json_key("insns");
		json_begin_array();
	} else {
		printf("%s:\n", userbpf_program_name(p));
	}
	for (size_t i = 0; i < n;) {
		bool wide = in[i].code == (BPF_LD | BPF_IMM | BPF_DW) && i + 1 < n;
		const char *map = NULL;
		char text[256];
		int slots = wide ? 2 : 1;

		if (wide &&
		    (in[i].src_reg == BPF_PSEUDO_MAP_FD || in[i].src_reg == BPF_PSEUDO_MAP_VALUE))
			map = map_of_fd(obj, in[i].imm);
		if (map && in[i].src_reg == BPF_PSEUDO_MAP_FD)
			snprintf(text, sizeof(text), "(18) r%d = map[%s]", in[i].dst_reg, map);
		else if (map)
			snprintf(text, sizeof(text), "(18) r%d = map[%s][0]+%d", in[i].dst_reg, map,
				 in[i + 1].imm);
		else if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW) && !wide)
			snprintf(text, sizeof(text), "(18) BUG: ld_imm64 cut at the end");
		else
			bpf_insn_snprint(text, sizeof(text), &in[i]);
		if (cli.json) {
			json_begin_object();
			json_key("pc");
			json_uint(i);
			json_key("disasm");
			json_string(text);
			if (opcodes) {
				char hex[64];
				const unsigned char *b = (const unsigned char *)&in[i];
				int k = 0;

				for (int j = 0; j < 8 * slots; j++)
					k += snprintf(hex + k, sizeof(hex) - k, "%s%02x",
						      j ? " " : "", b[j]);
				json_key("opcodes");
				json_string(hex);
			}
			json_end_object();
		} else {
			printf("%4zu: %s\n", i, text);
			if (opcodes) {
				const unsigned char *b = (const unsigned char *)&in[i];

				printf("      ");
				for (int j = 0; j < 8 * slots; j++)
					printf(" %02x", b[j]);
				putchar('\n');
			}
		}
		i += slots;
	}
	if (cli.json) {
		json_end_array();
		json_end_object();
	}
}

/* The backend of `prog dump`: maps are userbpf's, and BPF_PROG_LOAD "succeeds" without running
 * the verifier (its fd is /dev/null's), so that the loader relocates and links every program and
 * even a program the verifier would reject can be dumped. */
static int dump_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	if (cmd == BPF_PROG_LOAD)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	return bpf(cmd, attr, size);
}

static int cmd_dump(const char *path, const char *name, bool opcodes)
{
	struct userbpf_object_opts o = {.sz = sizeof(o), .bpf = dump_bpf, .btf_custom_path = cli.btf};
	struct userbpf_object *obj;
	struct userbpf_program **sel;
	char errbuf[512];
	size_t n;
	int rc;

	o.errbuf = errbuf;
	o.errbuf_size = sizeof(errbuf);
	errbuf[0] = '\0';
	if (userbpf_object_open_file(path, &o, &obj)) {
		cli_err("%s", errbuf);
		return EXIT_OBJECT;
	}
	/* every program relocated ("?" sections too), but one whose section implies no type:
	 * the loader refuses it, so it shows as the object has it */
	for (size_t i = 0; i < userbpf_object_program_count(obj); i++) {
		struct userbpf_program *p = userbpf_object_program(obj, i);

		userbpf_program_set_autoload(obj, p,
					     userbpf_program_type(p) != BPF_PROG_TYPE_UNSPEC);
	}
	if (userbpf_object_load(obj)) {
		cli_err("%s", errbuf);
		userbpf_object_close(obj);
		return EXIT_OBJECT;
	}
	rc = select_progs(obj, name, &sel, &n);
	if (!rc) {
		if (cli.json)
			json_begin_array();
		for (size_t i = 0; i < n; i++) {
			if (i && !cli.json)
				putchar('\n');
			dump_prog(obj, sel[i], opcodes);
		}
		if (cli.json) {
			json_end_array();
			json_finish();
		}
	}
	free(sel);
	userbpf_object_close(obj);
	return rc;
}

/* Loads p again with a log of level; returns the fd or -1 with errno. */
/* The verifier's log of one program: loaded again on its own, as the loader loaded it. */
static int reload(struct userbpf_object *obj, struct userbpf_program *p, char *log,
		  unsigned int level)
{
	return userbpf_program_reload(obj, p, log, VERIFY_LOG_SIZE, level);
}

static void verify_report(const char *name, bool ok, const char *err, const char *log)
{
	if (cli.json) {
		json_begin_object();
		json_key("name");
		json_string(name);
		json_key("verified");
		json_bool(ok);
		if (err) {
			json_key("error");
			json_string(err);
		}
		json_key("log");
		json_string(log);
		json_end_object();
		return;
	}
	printf("%s: %s\n", name, ok ? "verified" : "rejected");
	if (err)
		printf("%s\n", err);
	fputs(log, stdout);
	if (log[0] && log[strlen(log) - 1] != '\n')
		putchar('\n');
}

/* One program verified alone (the object loaded with it and its maps only, so another's
 * failure is not its own): its report.  EXIT_OK, EXIT_VERIFIER, or the load's other error. */
static int verify_one(const char *path, const char *name, unsigned int level, char *log)
{
	struct cli_load l = {.log = log, .log_size = VERIFY_LOG_SIZE, .log_level = level,
			     .prog = name, .prog_only = true};
	struct userbpf_object *obj = NULL;
	struct userbpf_program *p;
	int rc = cli_load_object(path, &l, &obj), fd;

	if (rc == EXIT_VERIFIER) {
		/* (the loader's message names the program) */
		verify_report(name, false, l.err, l.log);
		return rc;
	}
	if (rc) {
		if (cli.json)
			verify_report(name, false, l.err, "");
		else
			printf("%s: not loaded: %s\n", name, l.err);
		return rc;
	}
	p = userbpf_object_find_program(obj, name);
	fd = p ? reload(obj, p, log, level) : -1;
	if (fd >= 0)
		close(fd);
	verify_report(name, fd >= 0, fd < 0 ? strerror(errno) : NULL, log);
	userbpf_object_close(obj);
	return fd >= 0 ? EXIT_OK : EXIT_VERIFIER;
}

/* Each selected program verified alone (a "?" section's only when named); the worst result:
 * a rejection, else another failure. */
static int cmd_verify(const char *path, const char *name, unsigned int level)
{
	struct userbpf_object_opts o = {.sz = sizeof(o), .bpf = cli_backend(),
					.btf_custom_path = cli.btf};
	struct userbpf_object *obj = NULL;
	struct userbpf_program **sel = NULL;
	char errbuf[512], *log = malloc(VERIFY_LOG_SIZE);
	bool rejected = false;
	size_t n;
	int rc = EXIT_OK, worst = EXIT_OK;

	o.errbuf = errbuf;
	o.errbuf_size = sizeof(errbuf);
	errbuf[0] = '\0';
	if (!log)
		return EXIT_RUN;
	if (userbpf_object_open_file(path, &o, &obj)) {
		cli_err("%s", errbuf);
		free(log);
		return EXIT_OBJECT;
	}
	rc = select_progs(obj, name, &sel, &n);
	if (rc)
		goto out;
	if (cli.json)
		json_begin_array();
	for (size_t i = 0; i < n; i++) {
		if (!name && !userbpf_program_autoload(sel[i])) {
			if (!cli.json)
				printf("%s: not loaded (section '%s' starts with '?': name the "
				       "program to load it)\n", userbpf_program_name(sel[i]),
				       userbpf_program_section(sel[i]));
			continue;
		}
		rc = verify_one(path, userbpf_program_name(sel[i]), level, log);
		rejected |= rc == EXIT_VERIFIER;
		if (rc && !worst)
			worst = rc;
	}
	rc = rejected ? EXIT_VERIFIER : worst;
	if (cli.json) {
		json_end_array();
		json_finish();
	}
out:
	free(sel);
	userbpf_object_close(obj);
	free(log);
	return rc;
}

/* The JIT's code of a loaded program, copied out (the program may go away after).  NULL when
 * the interpreter runs it (no JIT on this machine, USERBPF_JIT=0, or the JIT gave up). */
static unsigned char *jited_code(int prog_fd, size_t *len)
{
	unsigned char *copy = NULL;
	struct bpf_object *o;
	int err;

	rcu_read_lock();
	o = obj_from_fd(prog_fd, OBJ_PROG, &err);
	if (o && prog_of(o)->jit) {
		const void *code = jit_code(prog_of(o)->jit, len);

		copy = malloc(*len);
		if (copy)
			memcpy(copy, code, *len);
	}
	rcu_read_unlock();
	return copy;
}

/* objdump-style listing: binutils' objdump disassembles when it is installed (as bpftool uses
 * libbfd), else a hex dump. */
static void print_code(const unsigned char *code, size_t len)
{
	char path[] = "/tmp/userbpf-jited-XXXXXX", cmd[256], line[512];
	int fd = mkstemp(path);
	bool shown = false;
	FILE *p;

	if (fd >= 0 && write(fd, code, len) == (ssize_t)len) {
		snprintf(cmd, sizeof(cmd),
			 "objdump -D -b binary -m i386:x86-64 %s 2>/dev/null", path);
		p = popen(cmd, "r");
		/* keep the instruction lines ("   0:\t55 \tpush %%rbp") */
		while (p && fgets(line, sizeof(line), p))
			if (strchr(line, ':') && line[0] == ' ' && (shown = true))
				fputs(line, stdout);
		if (p)
			pclose(p);
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	if (shown)
		return;
	for (size_t i = 0; i < len; i++)
		printf("%s%02x%s", i % 16 ? " " : "  ", code[i], i % 16 == 15 ? "\n" : "");
	if (len % 16)
		putchar('\n');
}

static int cmd_dump_jited(const char *path, const char *name)
{
	struct cli_load l = {.prog = name, .prog_only = true};
	struct userbpf_object *obj = NULL;
	struct userbpf_program **sel = NULL;
	size_t n;
	int rc = cli_load_object(path, &l, &obj);

	if (rc)
		goto out;
	rc = select_progs(obj, name, &sel, &n);
	for (size_t i = 0; !rc && i < n; i++) {
		size_t len = 0;
		unsigned char *code = jited_code(userbpf_program_fd(sel[i]), &len);

		if (i)
			putchar('\n');
		if (userbpf_program_fd(sel[i]) < 0) {
			printf("%s: not loaded (section '%s' starts with '?': name the program to "
			       "load it)\n", userbpf_program_name(sel[i]),
			       userbpf_program_section(sel[i]));
			continue;
		}
		if (!code) {
			printf("%s: not JIT-compiled (the interpreter runs it)\n",
			       userbpf_program_name(sel[i]));
			continue;
		}
		printf("%s: %zu bytes of x86-64 code\n", userbpf_program_name(sel[i]), len);
		print_code(code, len);
		free(code);
	}
out:
	free(sel);
	userbpf_object_close(obj);
	return rc;
}

static int cmd_run(const char *path, const char *name, const struct run_opts *ro,
		   const char **dumps, unsigned int ndumps, const char *names, bool all)
{
	struct userbpf_object *obj;
	struct userbpf_program *p;
	int rc = cli_load_simple(path, name, &obj);

	if (rc)
		return rc;
	p = name ? userbpf_object_find_program(obj, name) : userbpf_object_program(obj, 0);
	if (!p) {
		cli_err("%s: no program %s", path, name ? name : "");
		rc = EXIT_USAGE;
		goto out;
	}
	for (unsigned int i = 0; i < ndumps; i++) {
		if (!userbpf_object_find_map(obj, dumps[i])) {
			cli_err("%s: no map '%s'", path, dumps[i]);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (cli.json)
		json_begin_object();
	rc = run_packets(obj, p, ro, true);
	if (!rc && ndumps) {
		if (cli.json) {
			json_key("maps");
			json_begin_array();
		}
		for (unsigned int i = 0; i < ndumps && !rc; i++)
			rc = cli_map_dump(obj, dumps[i], names, all);
		if (cli.json)
			json_end_array();
	}
	if (cli.json) {
		json_end_object();
		json_finish();
	}
out:
	userbpf_object_close(obj);
	return rc;
}

int do_prog(int argc, char **argv)
{
	static const struct option longopts[] = {
	    RUN_LONG_OPTIONS,
	    {"map-dump", 1, NULL, OPT_MAP_DUMP},
	    {"names", 1, NULL, OPT_NAMES},
	    {"all", 0, NULL, OPT_ALL},
	    {"log-level", 1, NULL, OPT_LOG_LEVEL},
	    {"opcodes", 0, NULL, OPT_OPCODES},
	    {"jited", 0, NULL, OPT_JITED},
	    {"help", 0, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	const char *cmd = argc > 0 ? argv[0] : NULL, *names = NULL, *sub, *spec = NULL;
	const char *dumps[MAX_DUMPS];
	unsigned int ndumps = 0, level = 1;
	struct run_opts ro = {0};
	bool all = false, opcodes = false, jited = false;
	int opt, rc, npos = 0;
	char *path, *end;

	if (!cmd || !strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(cmd ? stdout : stderr);
		return cmd ? EXIT_OK : EXIT_USAGE;
	}
	if (strcmp(cmd, "load") && strcmp(cmd, "run") && strcmp(cmd, "dump") &&
	    strcmp(cmd, "verify")) {
		cli_err("unknown prog command '%s'", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	optind = 0; /* full reset of getopt's state */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1 || optind < argc) {
		if (opt == -1) {
			spec = argv[optind++];
			npos++;
			continue;
		}
		rc = strcmp(cmd, "run") ? 0 : run_opt_parse(&ro, opt, optarg);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc)
			continue;
		switch (opt) {
		case OPT_MAP_DUMP:
			if (strcmp(cmd, "run") || ndumps == MAX_DUMPS)
				goto bad;
			dumps[ndumps++] = optarg;
			break;
		case OPT_NAMES:
			if (strcmp(cmd, "run") ||
			    (strcmp(optarg, "ipproto") && strcmp(optarg, "xdp")))
				goto bad;
			names = optarg;
			break;
		case OPT_ALL:
			if (strcmp(cmd, "run"))
				goto bad;
			all = true;
			break;
		case OPT_LOG_LEVEL:
			errno = 0;
			level = (unsigned int)strtoul(optarg, &end, 0);
			if (strcmp(cmd, "verify") || errno || *end || !*optarg || !level ||
			    level > 7)
				goto bad;
			break;
		case OPT_OPCODES:
			if (strcmp(cmd, "dump"))
				goto bad;
			opcodes = true;
			break;
		case OPT_JITED:
			if (strcmp(cmd, "dump"))
				goto bad;
			jited = true;
			break;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return EXIT_OK;
		default:
			goto bad;
		}
	}
	if (npos != 1) {
		cli_err("prog %s: wants one OBJ%s argument", cmd,
			strcmp(cmd, "load") ? "[:PROG]" : "");
		return EXIT_USAGE;
	}
	if (cli_split_spec(spec, &path, &sub))
		return EXIT_RUN;
	if (!strcmp(cmd, "load")) {
		rc = sub ? (cli_err("prog load: OBJ only"), EXIT_USAGE) : cmd_load(path);
	} else if (!strcmp(cmd, "dump")) {
		rc = jited ? cmd_dump_jited(path, sub) : cmd_dump(path, sub, opcodes);
	} else if (!strcmp(cmd, "verify")) {
		rc = cmd_verify(path, sub, level);
	} else if (!run_opts_have_input(&ro)) {
		cli_err("prog run: no input: give --pcap FILE, --data FILE or --iface NAME");
		rc = EXIT_USAGE;
	} else {
		rc = cmd_run(path, sub, &ro, dumps, ndumps, names, all);
	}
	free(path);
	return rc;
bad:
	cli_err("prog %s: bad or unknown option '%s'", cmd, argv[optind - 1]);
	return EXIT_USAGE;
}
