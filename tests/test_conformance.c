/* test_conformance.c — runs the bpf_conformance suite's *.data files on the interpreter.
 *
 * The files are read at test time from $USERBPF_CONFORMANCE_DIR, default ../shared/conformance
 * (relative to the repo root, where tests run); they are never copied into the repository.  Each
 * file is split into sections ("-- asm", "-- raw", "-- mem", "-- result"; others ignored, see the
 * suite's README.md), its program assembled (or "raw" words decoded), and run with r1 = a private
 * copy of mem (NULL if none) and r2 = its length.  r0 must equal the last "result" line.  The
 * environment registers uBPF's test helper 5, "unwind", which returns its first argument and
 * ends the program with r0 = 0 when that is 0; `call %r2` (callx) reaches it the same way.
 * All files run inside one TEST per engine (interpreter, then the JIT where it exists); each
 * failure names its file and engine.
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

enum conf_engine { CONF_INTERP, CONF_JIT };

/* --- JIT engine: compile and run, the interpreter's statuses. --- */
static int conf_exec_jit(const struct bpf_insn *insns, int n, const uint64_t args[5],
			 uint64_t *r0, const char *name)
{
	struct jit_prog *jp;
	int err = jit_compile(insns, (uint32_t)n, &conf_env, NULL, &jp);

	if (err) {
		test_fail(__FILE__, __LINE__, "%s: jit_compile: %s", name, strerror(-err));
		return err;
	}
	err = jit_exec(jp, args, r0);
	jit_free(jp);
	return err;
}

/* Runs one file on engine; returns 1 if it passed, reporting failures through test_fail(). */
static int conf_run_file(const char *dir, const char *name, enum conf_engine engine)
{
	char path[4096], errbuf[256];
	const char *why = "";
	struct conf_case c;
	struct bpf_insn *insns = NULL;
	struct interp_prog *prog = NULL;
	uint64_t args[5] = { 0 }, r0 = 0;
	uint8_t *mem = NULL;
	char *text;
	int n, err, ok = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_file(path);
	if (!text) {
		test_fail(__FILE__, __LINE__, "%s: cannot read", name);
		return 0;
	}
	err = conf_parse(text, &c, &why);
	free(text);
	if (err) {
		test_fail(__FILE__, __LINE__, "%s: parse: %s", name, why);
		goto out;
	}
	if (c.raw) {
		n = c.nraw;
	} else {
		n = casm_assemble(c.asm_text, &insns, errbuf, sizeof(errbuf));
		if (n < 0) {
			test_fail(__FILE__, __LINE__, "%s: assemble: %s", name, errbuf);
			goto out;
		}
	}
	if (engine == CONF_INTERP) {
		err = interp_prepare(c.raw ? c.raw : insns, (uint32_t)n, &conf_env, &prog);
		if (err) {
			test_fail(__FILE__, __LINE__, "%s: interp_prepare: %s", name,
				  strerror(-err));
			goto out;
		}
	}
	if (c.mem_len) {
		mem = malloc(c.mem_len);
		if (!mem)
			goto out;
		memcpy(mem, c.mem, c.mem_len);
	}
	args[0] = (uint64_t)(uintptr_t)mem;
	args[1] = c.mem_len;
	if (engine == CONF_JIT) {
		err = conf_exec_jit(c.raw ? c.raw : insns, n, args, &r0, name);
		if (err)
			goto out; /* reported */
	} else {
		err = interp_exec(prog, args, &r0);
	}
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
	free(insns);
	conf_case_free(&c);
	return ok;
}

static void conf_run_all(enum conf_engine engine)
{
	const char *dir = getenv("USERBPF_CONFORMANCE_DIR");
	char **names = NULL;
	int count = 0, passed = 0;
	struct dirent *de;
	DIR *d;

	if (!dir)
		dir = CONF_DEFAULT_DIR;
	d = opendir(dir);
	if (!d)
		SKIP("conformance suite not found at %s (set USERBPF_CONFORMANCE_DIR)", dir);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l < 6 || strcmp(de->d_name + l - 5, ".data"))
			continue;
		nn = realloc(names, (count + 1) * sizeof(*names));
		REQUIRE(nn);
		names = nn;
		names[count] = strdup(de->d_name);
		REQUIRE(names[count]);
		count++;
	}
	closedir(d);
	if (count == 0) {
		free(names);
		SKIP("no *.data files in %s", dir);
	}
	qsort(names, count, sizeof(*names), name_cmp);
	for (int i = 0; i < count; i++) {
		passed += conf_run_file(dir, names[i], engine);
		free(names[i]);
	}
	free(names);
	printf("conformance (%s): %d/%d files passed (%s)\n",
	       engine == CONF_JIT ? "jit" : "interp", passed, count, dir);
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
