/* userbpf — the command-line tool.  For now it reports the library version; the bpftool-style
 * commands (prog load/run/dump/verify, map dump) arrive with the program loader. */
#include <stdio.h>
#include <string.h>

#include <userbpf.h>

static void usage(FILE *f)
{
	fprintf(f, "Usage: userbpf COMMAND\n"
		   "\n"
		   "Commands:\n"
		   "  version     print the library version\n"
		   "  help        this text\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("userbpf %s\n", userbpf_version());
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "userbpf: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
