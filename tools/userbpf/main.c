/* userbpf — the command-line tool, in the style of bpftool: `userbpf [OPTIONS] OBJECT COMMAND`.
 *
 * main() takes the global options (--json, --kernel) that may precede the object word, then hands
 * the rest to the object's group (prog.c, map.c).  Every command has --help; exit codes tell
 * failures apart (enum cli_exit in cli.h).  Groups parse their own options with getopt_long.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

struct cli_global cli;

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("userbpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

userbpf_bpf_fn cli_backend(void)
{
	return cli.kernel ? kernel_bpf : bpf;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: userbpf [--json] [--kernel] [--btf FILE] OBJECT COMMAND [ARGS]\n"
	    "       userbpf version | help\n"
	    "\n"
	    "Objects and commands (each has --help):\n"
	    "  prog load   OBJ                    load every program, list programs and maps\n"
	    "  prog run    OBJ[:PROG] INPUT ...   run a program over packets, count verdicts\n"
	    "  prog dump   OBJ[:PROG]             disassemble (the kernel's format)\n"
	    "  prog verify OBJ[:PROG]             the verifier's log\n"
	    "  map list    OBJ                    the object's maps\n"
	    "  map dump    OBJ:MAP [INPUT ...]    entries (after running INPUT, if given)\n"
	    "  map lookup  OBJ:MAP KEY [INPUT ...]\n"
	    "  map update  OBJ:MAP KEY VALUE [INPUT ...]\n"
	    "\n"
	    "Global options:\n"
	    "  -j, --json    JSON output\n"
	    "  --kernel      load into the live kernel's bpf() instead of userbpf (root)\n"
	    "  --btf FILE    resolve CO-RE relocations against FILE (another kernel's BTF)\n"
	    "                instead of the running kernel's /sys/kernel/btf/vmlinux\n"
	    "\n"
	    "Maps live in this process: a map command loads the object, optionally runs packets\n"
	    "through a program, then reads or writes the map.\n"
	    "\n" EXIT_CODES_HELP);
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			cli.json = true;
		} else if (!strcmp(argv[i], "--kernel")) {
			cli.kernel = true;
		} else if (!strcmp(argv[i], "--btf") && i + 1 < argc) {
			cli.btf = argv[++i];
		} else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("userbpf %s\n", userbpf_version());
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return EXIT_OK;
		} else {
			cli_err("unknown option '%s'", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "version")) {
		if (cli.json) {
			json_begin_object();
			json_key("version");
			json_string(userbpf_version());
			json_end_object();
			json_finish();
		} else {
			printf("userbpf %s\n", userbpf_version());
		}
		return EXIT_OK;
	}
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[i], "prog") || !strcmp(argv[i], "map")) {
		int rc = argv[i][0] == 'p' ? do_prog(argc - i - 1, argv + i + 1)
					   : do_map(argc - i - 1, argv + i + 1);

		cli_perf_detach();
		return rc;
	}
	cli_err("unknown object '%s'", argv[i]);
	usage(stderr);
	return EXIT_USAGE;
}
