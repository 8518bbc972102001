/* test_conformance.c — runs the bpf_conformance suite's *.data files on the interpreter.
 *
 * The files are read at test time from $USERBPF_CONFORMANCE_DIR, default ../shared/conformance
 * (relative to the repo root, where tests run); they are never copied into the repository.  Each
 * file is split into sections ("-- asm", "-- raw", "-- mem", "-- result"; others ignored, see the
 * suite's README.md), its program assembled (or "raw" words decoded), and run with r1 = a private
 * copy of mem (NULL if none) and r2 = its length.  r0 must equal the last "result" line.  The
 * environment registers uBPF's test helper 5, "unwind", which returns its first argument and
 * ends the program with r0 = 0 when that is 0; `call %r2` (callx) reaches it the same way.
 * All files run inside one TEST; each failure names its file.
 */
#include <dirent.h>
#include <stdlib.h>

#include "test.h"
#include "conformance_asm.h"
#include "exec/interp.h"
#include "exec/jit.h"

#define CONF_DEFAULT_DIR "../shared/conformance"
#define UNWIND_HELPER 5

static uint64_t helper_unwind(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	return r1;
}

static const interp_helper_fn conf_helpers[UNWIND_HELPER + 1] = {
	[UNWIND_HELPER] = helper_unwind,
};

static const struct interp_env conf_env = {
	.helpers = conf_helpers,
	.nr_helpers = UNWIND_HELPER + 1,
	.unwind_id = UNWIND_HELPER,
};

/* One parsed test file. */
struct conf_case {
	char *asm_text;         /* concatenated "-- asm" lines */
	struct bpf_insn *raw;   /* "-- raw" program, or NULL */
	int nraw;
	uint8_t *mem;           /* "-- mem" bytes, or NULL */
	size_t mem_len;
	uint64_t result;        /* last "-- result" value */
	int has_result;
};

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap = cap * 2 + 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = 0;
	return buf;
}

static int append(char **dst, size_t *len, const char *s)
{
	size_t l = strlen(s);
	char *nd = realloc(*dst, *len + l + 2);

	if (!nd)
		return -ENOMEM;
	memcpy(nd + *len, s, l);
	nd[*len + l] = '\n';
	nd[*len + l + 1] = 0;
	*dst = nd;
	*len += l + 1;
	return 0;
}

static void conf_case_free(struct conf_case *c)
{
	free(c->asm_text);
	free(c->raw);
	free(c->mem);
}

/* Parse text into c; returns 0 or a negative errno with a reason in why. */
static int conf_parse(char *text, struct conf_case *c, const char **why)
{
	enum { S_NONE, S_ASM, S_RAW, S_MEM, S_RESULT, S_OTHER } sec = S_NONE;
	size_t asm_len = 0;
	char *save, *line;

	memset(c, 0, sizeof(*c));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *dash = strstr(line, "--"), *tok, *tsave;

		if (hash && (!dash || hash < dash))
			*hash = 0;
		else if (dash) {
			char name[32] = "";

			sscanf(dash + 2, "%31s", name);
			sec = !strcmp(name, "asm")      ? S_ASM :
			      !strcmp(name, "raw")      ? S_RAW :
			      !strcmp(name, "mem")      ? S_MEM :
			      !strcmp(name, "result")   ? S_RESULT :
							  S_OTHER;
			continue;
		}
		switch (sec) {
		case S_ASM:
			if (append(&c->asm_text, &asm_len, line))
				return -ENOMEM;
			break;
		case S_RAW:
		case S_MEM:
		case S_RESULT:
			for (tok = strtok_r(line, " \t\r", &tsave); tok;
			     tok = strtok_r(NULL, " \t\r", &tsave)) {
				char *end;
				uint64_t v = strtoull(tok, &end, sec == S_MEM ? 16 : 0);

				if (*end) {
					*why = "bad number";
					return -EINVAL;
				}
				if (sec == S_RESULT) {
					c->result = v;
					c->has_result = 1;
				} else if (sec == S_MEM) {
					uint8_t *nm = realloc(c->mem, c->mem_len + 1);

					if (!nm)
						return -ENOMEM;
					c->mem = nm;
					c->mem[c->mem_len++] = (uint8_t)v;
				} else {
					/* The little-endian value of an 8-byte instruction. */
					struct bpf_insn *nr;

					nr = realloc(c->raw, (c->nraw + 1) * sizeof(*nr));

					if (!nr)
						return -ENOMEM;
					c->raw = nr;
					memset(&nr[c->nraw], 0, sizeof(*nr));
					nr[c->nraw].code = (uint8_t)v;
					nr[c->nraw].dst_reg = (v >> 8) & 0xf;
					nr[c->nraw].src_reg = (v >> 12) & 0xf;
					nr[c->nraw].off = (int16_t)(uint16_t)(v >> 16);
					nr[c->nraw].imm = (int32_t)(uint32_t)(v >> 32);
					c->nraw++;
				}
			}
			break;
		default:
			break;
		}
	}
	if (!c->has_result) {
		*why = "no result section";
		return -EINVAL;
	}
	if (!c->asm_text && !c->raw) {
		*why = "no program";
		return -EINVAL;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads, parses and assembles one file into c and *prog (c.raw itself, or a malloc'ed array in
 * *insns); returns the slot count, or -1 after reporting the failure through test_fail(). */
static int conf_read_case(const char *dir, const char *name, struct conf_case *c,
			  struct bpf_insn **insns, const struct bpf_insn **prog)
{
	char path[4096], errbuf[256];
	const char *why = "";
	char *text;
	int n, err;

	*insns = NULL;
	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_file(path);
	if (!text) {
		test_fail(__FILE__, __LINE__, "%s: cannot read", name);
		return -1;
	}
	err = conf_parse(text, c, &why);
	free(text);
	if (err) {
		test_fail(__FILE__, __LINE__, "%s: parse: %s", name, why);
		return -1;
	}
	if (c->raw) {
		*prog = c->raw;
		return c->nraw;
	}
	n = casm_assemble(c->asm_text, insns, errbuf, sizeof(errbuf));
	if (n < 0)
		test_fail(__FILE__, __LINE__, "%s: assemble: %s", name, errbuf);
	*prog = *insns;
	return n;
}

/* Runs one file; returns 1 if it passed, reporting failures through test_fail(). */
enum conf_engine { CONF_INTERP, CONF_JIT };

/* Runs one file on engine; returns 1 if it passed, reporting failures through test_fail(). */
static int conf_run_file(const char *dir, const char *name, enum conf_engine engine)
{
	struct conf_case c;
	struct bpf_insn *insns = NULL;
	const struct bpf_insn *code;
	struct interp_prog *prog = NULL;
	struct jit_prog *jp = NULL;
	uint64_t args[5] = { 0 }, r0 = 0;
	uint8_t *mem = NULL;
	int n, err, ok = 0;

	n = conf_read_case(dir, name, &c, &insns, &code);
	if (n < 0)
		goto out;
	if (engine == CONF_INTERP)
		err = interp_prepare(code, (uint32_t)n, &conf_env, &prog);
	else
		err = jit_compile(code, (uint32_t)n, &conf_env, NULL, &jp);
	if (err) {
		test_fail(__FILE__, __LINE__, "%s: %s: %s", name,
			  engine == CONF_INTERP ? "interp_prepare" : "jit_compile", strerror(-err));
		goto out;
	}
	if (c.mem_len) {
		mem = malloc(c.mem_len);
		if (!mem)
			goto out;
		memcpy(mem, c.mem, c.mem_len);
	}
	args[0] = (uint64_t)(uintptr_t)mem;
	args[1] = c.mem_len;
	err = engine == CONF_INTERP ? interp_exec(prog, args, &r0) : jit_exec(jp, args, &r0);
	if (err)
		test_fail(__FILE__, __LINE__, "%s: run error %s", name, strerror(-err));
	else if (r0 != c.result)
		test_fail(__FILE__, __LINE__, "%s: expected 0x%" PRIx64 ", got 0x%" PRIx64, name,
			  c.result, r0);
	else
		ok = 1;
out:
	free(mem);
	interp_free(prog);
	if (jp)
		jit_free(jp);
	free(insns);
	conf_case_free(&c);
	return ok;
}

/* The sorted *.data names in dir (free each and the array): the count, or -1 if dir cannot be
 * opened. */
static int conf_list(const char *dir, char ***out)
{
	char **names = NULL;
	int count = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;
		char *name;

		if (l < 6 || strcmp(de->d_name + l - 5, ".data"))
			continue;
		nn = realloc(names, (count + 1) * sizeof(*names));
		name = strdup(de->d_name);
		if (!nn || !name) {
			free(name);
			names = nn ? nn : names;
			break;
		}
		names = nn;
		names[count++] = name;
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof(*names), name_cmp);
	*out = names;
	return count;
}

static const char *conf_dir(void)
{
	const char *dir = getenv("USERBPF_CONFORMANCE_DIR");

	return dir ? dir : CONF_DEFAULT_DIR;
}

static void conf_run_all(enum conf_engine engine)
{
	const char *dir = conf_dir();
	char **names;
	int count, passed = 0;

	count = conf_list(dir, &names);
	if (count < 0)
		SKIP("conformance suite not found at %s (set USERBPF_CONFORMANCE_DIR)", dir);
	if (count == 0) {
		free(names);
		SKIP("no *.data files in %s", dir);
	}
	for (int i = 0; i < count; i++) {
		passed += conf_run_file(dir, names[i], engine);
		free(names[i]);
	}
	free(names);
	printf("conformance (%s): %d/%d files passed (%s)\n",
	       engine == CONF_INTERP ? "interp" : "jit", passed, count, dir);
	CHECK_EQ(passed, count);
}

TEST(conformance_suite)
{
	conf_run_all(CONF_INTERP);
}

#ifdef __x86_64__
TEST(conformance_suite_jit)
{
	conf_run_all(CONF_JIT);
}
#endif

/* ==== The same files through the conformance plugin's path ====
 *
 * conf_plugin_run() (tools/conformance-plugin/) is what build/userbpf-conformance-plugin does
 * with a program: load it through userbpf_prog_load_ext() — the verifier — with the memory as a
 * writable ctx and helper 5 as "unwind", then run it.  Every file goes through it here; a file
 * the verifier refuses passes only if conf_refused[] lists it, with the reason the kernel's
 * verifier would refuse it too.  conformance_plugin_binary then checks the binary's own
 * protocol (hex on stdin, memory argument, r0 in hex on stdout) on a few files.
 */
#include <linux/limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tools/conformance-plugin/conf_plugin.h"

/* Files the verifier refuses, for the reason the kernel would.  Filled at integration with the
 * real verifier (the stand-in accepts everything); candidates, by what the kernel does:
 *   callx.data — `call %r2` (BPF_JMP|BPF_CALL|BPF_X): the kernel's verifier has no callx. */
static const struct {
	const char *file;
	const char *reason;
} conf_refused[] = {
	/* Shifts by an immediate outside [0, width): the kernel's check_alu_op() refuses them
	 * ("invalid shift N"), whatever the ISA says they compute. */
	{ "arsh32-imm-high.data", "invalid shift " },
	{ "arsh32-imm-neg.data", "invalid shift " },
	{ "arsh64-imm-high.data", "invalid shift " },
	{ "arsh64-imm-neg.data", "invalid shift " },
	{ "lsh32-imm-high.data", "invalid shift " },
	{ "lsh32-imm-neg.data", "invalid shift " },
	{ "lsh64-imm-high.data", "invalid shift " },
	{ "lsh64-imm-neg.data", "invalid shift " },
	{ "rsh32-imm-high.data", "invalid shift " },
	{ "rsh32-imm-neg.data", "invalid shift " },
	{ "rsh64-imm-high.data", "invalid shift " },
	{ "rsh64-imm-neg.data", "invalid shift " },
	/* callx (0x8d): Linux 6.18 has no call-by-register instruction. */
	{ "callx.data", "unknown opcode 8d" },
	{ NULL, NULL },
};

static const char *conf_refused_reason(const char *name)
{
	for (size_t i = 0; i < sizeof(conf_refused) / sizeof(conf_refused[0]); i++)
		if (conf_refused[i].file && !strcmp(conf_refused[i].file, name))
			return conf_refused[i].reason;
	return NULL;
}

/* 1: passed (ran with the right r0, or refused as listed); 0: failed (reported). */
static int conf_run_file_plugin(const char *dir, const char *name, int *refused)
{
	static char log[65536];
	const char *listed = conf_refused_reason(name);
	const struct bpf_insn *code;
	struct bpf_insn *insns = NULL;
	struct conf_case c;
	uint64_t r0 = 0;
	int n, err, ok = 0;

	n = conf_read_case(dir, name, &c, &insns, &code);
	if (n < 0)
		goto out;
	err = conf_plugin_run(code, (uint32_t)n, c.mem, c.mem_len, &r0, log, sizeof(log));
	if (err && listed) {
		/* refused, and for the reason listed: the kernel's own error line */
		if (strstr(log, listed)) {
			(*refused)++;
			ok = 1;
		} else {
			test_fail(__FILE__, __LINE__, "%s: refused, but not with \"%s\":\n%s", name,
				  listed, log);
		}
	} else if (err) {
		test_fail(__FILE__, __LINE__, "%s: refused (%s):\n%s", name, strerror(-err), log);
	} else if (listed) {
		test_fail(__FILE__, __LINE__, "%s: listed as refused (%s) but accepted", name,
			  listed);
	} else if (r0 != c.result) {
		test_fail(__FILE__, __LINE__, "%s: expected 0x%" PRIx64 ", got 0x%" PRIx64, name,
			  c.result, r0);
	} else {
		ok = 1;
	}
out:
	free(insns);
	conf_case_free(&c);
	return ok;
}

TEST(conformance_suite_plugin_path)
{
	const char *dir = conf_dir();
	int count, passed = 0, refused = 0;
	char **names;

	count = conf_list(dir, &names);
	if (count < 0)
		SKIP("conformance suite not found at %s (set USERBPF_CONFORMANCE_DIR)", dir);
	if (count == 0) {
		free(names);
		SKIP("no *.data files in %s", dir);
	}
	for (int i = 0; i < count; i++) {
		passed += conf_run_file_plugin(dir, names[i], &refused);
		free(names[i]);
	}
	free(names);
	printf("conformance through the plugin path (verifier + embedding API): %d/%d passed, "
	       "%d of them refused as listed\n", passed, count, refused);
	CHECK_EQ(passed, count);
}

/* Runs the plugin binary on one file the way the official runner does ("%02x  " per byte,
 * memory as the first argument, an option after it) and compares its stdout with the result. */
static void conf_check_binary(const char *plugin, const char *dir, const char *name)
{
	char tmp[] = "/tmp/userbpf-conf-XXXXXX", cmd[PATH_MAX * 2 + 8192], out[64] = "";
	const struct bpf_insn *code;
	struct bpf_insn *insns = NULL;
	struct conf_case c;
	size_t pos;
	FILE *f, *p;
	int n, fd;

	n = conf_read_case(dir, name, &c, &insns, &code);
	if (n < 0)
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		test_fail(__FILE__, __LINE__, "mkstemp: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < n * 8; i++)
		fprintf(f, "%02x  ", ((const uint8_t *)code)[i]);
	fputc('\n', f);
	fclose(f);
	pos = (size_t)snprintf(cmd, sizeof(cmd), "%s '", plugin);
	for (size_t i = 0; i < c.mem_len && pos + 4 < sizeof(cmd); i++)
		pos += (size_t)snprintf(cmd + pos, sizeof(cmd) - pos, "%02x ", c.mem[i]);
	snprintf(cmd + pos, sizeof(cmd) - pos, "' --interpret < %s", tmp);
	p = popen(cmd, "r");
	if (!p || !fgets(out, sizeof(out), p))
		test_fail(__FILE__, __LINE__, "%s: no output from %s", name, cmd);
	else if (strtoull(out, NULL, 16) != c.result)
		test_fail(__FILE__, __LINE__, "%s: plugin printed %s, expected 0x%" PRIx64, name, out,
			  c.result);
	if (p && pclose(p) != 0)
		test_fail(__FILE__, __LINE__, "%s: plugin exit status not 0", name);
	unlink(tmp);
out:
	free(insns);
	conf_case_free(&c);
}

TEST(conformance_plugin_binary)
{
	static const char *const files[] = { "mem-len.data", "ldxb.data", "call_unwind_fail.data",
					     "lddw.data", "stxdw.data" };
	const char *dir = conf_dir();
	char exe[PATH_MAX], plugin[PATH_MAX + 64], sh[PATH_MAX + 256], *slash;
	ssize_t len;
	int status;

	if (access(dir, R_OK))
		SKIP("conformance suite not found at %s (set USERBPF_CONFORMANCE_DIR)", dir);
	/* the runner is BUILD/tests/run-tests; the plugin is BUILD/userbpf-conformance-plugin */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	REQUIRE(len > 0);
	exe[len] = 0;
	for (int i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		REQUIRE(slash);
		*slash = 0;
	}
	snprintf(plugin, sizeof(plugin), "%s/userbpf-conformance-plugin", exe);
	if (access(plugin, X_OK))
		SKIP("%s not built", plugin);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		conf_check_binary(plugin, dir, files[i]);

	/* a refused program (unknown opcode 0xff): 1; usage errors: 2 */
	snprintf(sh, sizeof(sh), "echo 'ff 00 00 00 00 00 00 00' | %s 2>/dev/null", plugin);
	status = system(sh);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	snprintf(sh, sizeof(sh), "echo '95 00 00' | %s >/dev/null 2>&1", plugin);
	status = system(sh);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	snprintf(sh, sizeof(sh), "echo '95 00 00 00 00 00 00 00' | %s --bogus >/dev/null 2>&1",
		 plugin);
	status = system(sh);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}
