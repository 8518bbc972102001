/* conf_plugin.c — one conformance program through the embedding API (see conf_plugin.h).
 *
 * The program loads with the log off (the verifier's level-1 log of an accepted program is a
 * full trace, costly for nothing); only a refusal is loaded again with the log on, to give the
 * reason, as libbpf does.  The memory is copied so the program may write it, as the suite's
 * contract allows; a program without memory gets R1 = NULL, R2 = 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <userbpf.h>

#include "conf_plugin.h"

static uint64_t conf_unwind(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	return r1;
}

static const struct userbpf_helper conf_helpers[] = {
	{ "unwind", CONF_UNWIND_HELPER, USERBPF_HELPER_F_UNWIND, conf_unwind,
	  { USERBPF_ARG_ANYTHING }, USERBPF_RET_INTEGER },
};

int conf_plugin_run(const struct bpf_insn *insns, uint32_t cnt, const void *mem, size_t mem_len,
		    uint64_t *r0, char *log, size_t log_size)
{
	struct userbpf_prog_load_opts opts = {
		.sz = sizeof(opts),
		.ctx_writable = true,
		.helpers = conf_helpers,
		.nr_helpers = 1,
	};
	struct userbpf_prog *prog;
	uint8_t *copy = NULL;
	int err;

	if (log && log_size)
		log[0] = 0;
	if (mem_len > UINT32_MAX)
		return -E2BIG;
	opts.ctx_size = (uint32_t)mem_len;
	err = userbpf_prog_load_ext(insns, cnt, &opts, &prog);
	if (err) {
		/* again with the log on, for the reason; the verifier's log needs >= 128 bytes */
		if (log && log_size >= 128) {
			opts.log_level = 1;
			opts.log_buf = log;
			opts.log_size = log_size > UINT32_MAX ? UINT32_MAX : (uint32_t)log_size;
			if (!userbpf_prog_load_ext(insns, cnt, &opts, &prog))
				userbpf_prog_free(prog); /* cannot happen: same input */
		}
		return err;
	}
	if (mem_len) {
		copy = malloc(mem_len);
		if (!copy) {
			userbpf_prog_free(prog);
			return -ENOMEM;
		}
		memcpy(copy, mem, mem_len);
	}
	*r0 = userbpf_prog_run(prog, copy);
	free(copy);
	userbpf_prog_free(prog);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int conf_parse_hex(const char *text, uint8_t **out, size_t *len)
{
	size_t n = 0, cap = 0;
	uint8_t *buf = NULL;
	const char *p = text;

	*out = NULL;
	*len = 0;
	for (;;) {
		int hi, lo;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		hi = hexval((unsigned char)p[0]);
		lo = hi < 0 ? -1 : hexval((unsigned char)p[1]);
		if (lo < 0) {
			free(buf);
			return -EINVAL;
		}
		p += 2;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap = cap * 2 + 256);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		buf[n++] = (uint8_t)(hi << 4 | lo);
	}
	*out = buf;
	*len = n;
	return 0;
}
