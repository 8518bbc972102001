/* userbpf-conformance-plugin — the plugin process of the bpf_conformance runner
 * (https://github.com/Alan-Jowett/bpf_conformance), running programs on userbpf.
 *
 *   echo "b7 00 00 00 2a 00 00 00 95 00 00 00 00 00 00 00" | userbpf-conformance-plugin [MEM] [--interpret|--jit]
 *   bpf_conformance_runner --test_file_directory tests --plugin_path userbpf-conformance-plugin
 *
 * The program (hex bytes, 8 per instruction) comes on stdin, the memory (hex bytes) as the first
 * argument if it is not an option; the program goes through userbpf's verifier via the
 * embedding API with the memory as its writable ctx and helper 5 as uBPF's "unwind"
 * (conf_plugin.c).  Output: r0 in hex on stdout, exit 0; or the error on stderr (with the
 * verifier's log for a refused program), exit 1; exit 2 for a usage error.
 * --interpret forces the interpreter, --jit (the default) the JIT where there is one (x86-64).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <userbpf.h>

#include "conf_plugin.h"

#define LOG_SIZE (1u << 20)

static void usage(FILE *f)
{
	fprintf(f, "usage: userbpf-conformance-plugin [MEMORY_HEX] [--interpret | --jit]\n"
		   "  program as hex bytes on stdin; prints r0 in hex\n");
}

static char *read_all(FILE *f)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL;

	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap = cap * 2 + 4096);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = 0;
	return buf;
}

int main(int argc, char **argv)
{
	const char *mem_hex = NULL;
	uint8_t *prog = NULL, *mem = NULL;
	size_t prog_len, mem_len = 0;
	char *text, *log;
	uint64_t r0 = 0;
	int err, i, status;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--interpret")) {
			userbpf_set_jit(0);
		} else if (!strcmp(argv[i], "--jit")) {
			userbpf_set_jit(1); /* the default; off x86-64 the interpreter runs */
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "userbpf-conformance-plugin: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (i == 1) {
			mem_hex = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (mem_hex && conf_parse_hex(mem_hex, &mem, &mem_len)) {
		fprintf(stderr, "userbpf-conformance-plugin: memory is not hex bytes\n");
		return 2;
	}
	text = read_all(stdin);
	if (!text || conf_parse_hex(text, &prog, &prog_len)) {
		fprintf(stderr, "userbpf-conformance-plugin: program on stdin is not hex bytes\n");
		status = 2;
		goto free_text;
	}
	if (prog_len == 0 || prog_len % sizeof(struct bpf_insn) ||
	    prog_len / sizeof(struct bpf_insn) > UINT32_MAX) {
		fprintf(stderr, "userbpf-conformance-plugin: program of %zu bytes is not a whole "
				"number of instructions\n", prog_len);
		status = 2;
		goto free_prog;
	}
	log = malloc(LOG_SIZE);
	if (!log) {
		fprintf(stderr, "userbpf-conformance-plugin: out of memory\n");
		status = 1;
		goto free_prog;
	}
	/* prog comes from malloc: suitably aligned for struct bpf_insn */
	err = conf_plugin_run((const struct bpf_insn *)prog,
			      (uint32_t)(prog_len / sizeof(struct bpf_insn)), mem, mem_len, &r0,
			      log, LOG_SIZE);
	if (err) {
		fprintf(stderr, "userbpf: program refused: %s\n%s", strerror(-err), log);
		status = 1;
	} else {
		printf("%" PRIx64 "\n", r0);
		status = 0;
	}
	free(log);
free_prog:
	free(prog);
free_text:
	free(text);
	free(mem);
	return status;
}
