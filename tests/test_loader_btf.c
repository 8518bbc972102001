/* The ELF loader with BTF: each clang-compiled example is opened and loaded on userbpf and on
 * the live kernel at log level 2; the loader passes .BTF (BPF_BTF_LOAD) and .BTF.ext's
 * func_info / line_info, so both verifier logs carry "; <source> @ file:line" comments.  Each
 * instruction must get the same source comment on both (the log of the last program of each
 * object); the full sequence of comments is the same where both verifiers walk the same paths
 * (userbpf prunes some paths the kernel walks again: reported, not failed).
 */
#include <stdbool.h>
#include <stdlib.h>

#include <userbpf/loader.h>

#include "kbpf.h"
#include "test.h"

#define LOG_SIZE (1 << 20)

static const char *const examples[] = { "globals", "sockex1", "xdp_portfilter" };

/* Loads the example with backend be; its log's source-line comments go to lines. */
static int load_example(const char *name, const struct bpf_backend *be, char *log, char *lines,
			size_t size, unsigned *nlines)
{
	struct userbpf_object_opts o = { .sz = sizeof(o) };
	struct userbpf_object *obj;
	char path[256], err[512];
	size_t n = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/examples/%s.bpf.o", LOADER_OBJ_DIR, name);
	o.bpf = be->bpf;
	o.errbuf = err;
	o.errbuf_size = sizeof(err);
	o.log_buf = log;
	o.log_size = LOG_SIZE;
	o.log_level = 2;
	log[0] = 0;
	rc = userbpf_object_open_file(path, &o, &obj);
	if (rc)
		return rc;
	rc = userbpf_object_load(obj);
	if (rc)
		fprintf(stderr, "%s on %s: %s\n", name, be->name, err);
	userbpf_object_close(obj);
	*nlines = 0;
	lines[0] = 0;
	for (const char *p = log; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p + 1) : strlen(p);

		if (p[0] == ';' && p[1] == ' ' && n + len < size) {
			memcpy(lines + n, p, len);
			n += len;
			lines[n] = 0;
			(*nlines)++;
		}
		p += len;
	}
	return rc;
}

/* "insn: source" for each source comment and the instruction it precedes, sorted, unique:
 * what must agree even where the two verifiers walk paths a different number of times. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t insn_sources(const char *log, char **out, size_t max)
{
	size_t n = 0, k = 0;

	for (const char *p = log; *p && n < max;) {
		const char *e = strchr(p, '\n'), *q;

		if (!e)
			break;
		if (p[0] == ';' && p[1] == ' ' && (q = e + 1) && *q >= '0' && *q <= '9') {
			out[n] = malloc(512);
			snprintf(out[n], 512, "%d: %.*s", atoi(q), (int)(e - p), p);
			n++;
		}
		p = e + 1;
	}
	qsort(out, n, sizeof(*out), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(out[k - 1], out[i])) {
			free(out[i]);
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

TEST(loader_btf_source_lines_match_kernel)
{
	char *logu = malloc(LOG_SIZE), *logk = malloc(LOG_SIZE);
	char *lu = malloc(LOG_SIZE), *lk = malloc(LOG_SIZE);
	unsigned nu, nk;

	if (!kernel_bpf_available()) {
		free(logu), free(logk), free(lu), free(lk);
		SKIP("kernel bpf() unavailable: %s", kernel_bpf_unavailable_reason());
	}
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		int ru = load_example(examples[i], &backend_userbpf, logu, lu, LOG_SIZE, &nu);
		int rk = load_example(examples[i], &backend_kernel, logk, lk, LOG_SIZE, &nk);

		CHECK_EQ(ru, 0);
		CHECK_EQ(rk, 0);
		CHECK(nk > 0);
		{
			static char *su[4096], *sk[4096];
			size_t nsu = insn_sources(logu, su, 4096), nsk = insn_sources(logk, sk, 4096);
			size_t missing = 0, conflicts = 0;

			/* every comment the kernel prints before an insn, userbpf prints too; and
			 * no instruction gets two different comments */
			for (size_t j = 0; j < nsk; j++)
				missing += !bsearch(&sk[j], su, nsu, sizeof(*su), cmp_str);
			for (size_t j = 0; j < nsu; j++)
				for (size_t m = 0; m < nsk; m++)
					conflicts += atoi(su[j]) == atoi(sk[m]) &&
						     strcmp(su[j], sk[m]);
			if (missing || conflicts)
				test_fail(__FILE__, __LINE__, "%s: %zu kernel source comments missing, "
					  "%zu instructions with a different comment", examples[i],
					  missing, conflicts);
			fprintf(stderr, "loader btf: %s: the kernel's %zu (instruction, source) "
				"pairs all on userbpf (%zu pairs); the log's %u source comments %s the "
				"kernel's %u\n", examples[i], nsk, nsu, nu,
				strcmp(lu, lk) ? "differ (paths walked) from" : "are exactly", nk);
			for (size_t j = 0; j < nsu; j++)
				free(su[j]);
			for (size_t j = 0; j < nsk; j++)
				free(sk[j]);
		}
		if (getenv("BTF_TEST_VERBOSE"))
			fprintf(stderr, "== %s userbpf:\n%s\n== kernel:\n%s\n", examples[i], logu,
				logk);
	}
	free(logu), free(logk), free(lu), free(lk);
}
