/* seq.c — an iterator program's output into its seq_file (exec/seq_file.h):
 * bpf_seq_printf(), formatted as bpf_snprintf() formats, and bpf_seq_write(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/seq_file.h"
#include "exec/helpers/impl.h"

#define SEQ_MAGIC 0x5eb0f11e5eb0f11eull
#define BPRINTF_VARARGS 12 /* the kernel's MAX_BPRINTF_VARARGS */

struct iter_seq *seq_file_new(void)
{
	struct iter_seq *s = calloc(1, sizeof(*s));

	if (s)
		s->magic = SEQ_MAGIC;
	return s;
}

void seq_file_free(struct iter_seq *s)
{
	if (s)
		free(s->buf);
	free(s);
}

/* A seq_file pointer the verifier let a program pass: ours, or NULL. */
static struct iter_seq *seq_of(u64 p)
{
	struct iter_seq *s = PTR(p);

	return s && s->magic == SEQ_MAGIC ? s : NULL;
}

static int seq_append(struct iter_seq *s, const void *data, size_t n)
{
	if (s->len + n > SEQ_OUT_MAX) {
		s->overflow = true;
		return -EOVERFLOW;
	}
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		char *b;

		while (cap < s->len + n)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	return 0;
}

u64 h_seq_printf(u64 seq, u64 fmt, u64 fmt_size, u64 data, u64 data_len)
{
	struct iter_seq *s = seq_of(seq);
	int nargs = (int)((u32)data_len / 8), n, err;
	char *out;

	if (!s)
		return (u64)-EINVAL;
	if ((u32)data_len % 8 || (u32)data_len > BPRINTF_VARARGS * 8 || ((u32)data_len && !data))
		return (u64)-EINVAL;
	n = bprintf_format(NULL, 0, PTR(fmt), (u32)fmt_size, PTR(data), nargs);
	if (n < 0)
		return (u64)(s64)n;
	out = malloc((size_t)n + 1);
	if (!out)
		return (u64)-ENOMEM;
	bprintf_format(out, (size_t)n + 1, PTR(fmt), (u32)fmt_size, PTR(data), nargs);
	err = seq_append(s, out, (size_t)n);
	free(out);
	return (u64)(s64)err;
}

u64 h_seq_write(u64 seq, u64 data, u64 len, u64 a4, u64 a5)
{
	struct iter_seq *s = seq_of(seq);

	if (!s)
		return (u64)-EINVAL;
	return (u64)(s64)seq_append(s, PTR(data), (size_t)(u32)len);
}
