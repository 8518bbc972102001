/* The verifier log: one sink, verbose(), with the kernel's buffer rules (kernel 6.4 and later).
 *
 * The log is a stream of bytes with logical positions start_pos..end_pos; the user buffer of
 * len_total bytes holds a window of it.  In the default (rotating) mode the window is the last
 * len_total - 1 bytes, stored circularly at position % len_total and rotated into place by
 * vlog_finalize(); with BPF_LOG_FIXED it is the first len_total - 1 bytes.  The buffer always
 * holds a NUL-terminated string.  vlog_reset() rewinds the stream (at log level 1 the log of a
 * path that verified fine is dropped), but len_max, the longest the stream ever was, is kept:
 * the load fails with ENOSPC when it exceeded the buffer, even if what remains fits.
 *
 * Each message is formatted into a 1024-byte scratch buffer first (longer ones are cut), as the
 * kernel does.  Nothing here can fail: the user buffer is our own memory.
 */
#include <errno.h>
#include <stdio.h>

#include "verifier/env.h"

#define LOG_LEVEL1 1
#define LOG_LEVEL2 2
#define LOG_STATS 4
#define LOG_FIXED 8
#define LOG_MASK (LOG_LEVEL1 | LOG_LEVEL2 | LOG_STATS | LOG_FIXED)
#define LOG_TMP_SIZE 1024

int vlog_init(struct vlog *log, u32 level, u64 ubuf, u32 size)
{
	memset(log, 0, sizeof(*log));
	log->level = level;
	log->len_total = size;
	log->fixed = level & LOG_FIXED;
	/* A buffer and its size go together; a buffer without a level is meaningless. */
	if (!!ubuf != !!size)
		return -EINVAL;
	if (ubuf && !level)
		return -EINVAL;
	if (level & ~LOG_MASK)
		return -EINVAL;
	if (size > (UINT32_MAX >> 2))
		return -EINVAL;
	if (ubuf) {
		log->ubuf = u64_to_voidp(ubuf);
		if (!log->ubuf)
			return -EFAULT;
		log->ubuf[0] = 0;
	}
	return 0;
}

bool vlog_on(const struct vlog *log)
{
	return log->level != 0;
}

static void vlog_write(struct vlog *log, const char *kbuf, u32 n)
{
	/* n counts the terminating NUL */
	if (log->end_pos + n > log->len_max)
		log->len_max = log->end_pos + n;
	if (log->fixed) {
		u64 cur = log->end_pos;

		log->end_pos += n - 1;
		if (!log->ubuf || cur >= log->len_total)
			return;
		u32 new_n = (u32)(log->len_total - cur < n ? log->len_total - cur : n);
		memcpy(log->ubuf + cur, kbuf, new_n - 1);
		log->ubuf[cur + new_n - 1] = 0;
		return;
	}
	u64 new_end = log->end_pos + n;

	if (new_end - log->start_pos >= log->len_total)
		log->start_pos = new_end - log->len_total;
	log->end_pos = new_end - 1;
	if (!log->ubuf)
		return;
	u32 new_n = n < log->len_total ? n : log->len_total;
	u32 buf_start = (u32)((new_end - new_n) % log->len_total);
	u32 buf_end = (u32)(new_end % log->len_total);
	const char *src = kbuf + n - new_n;

	if (buf_end == 0)
		buf_end = log->len_total;
	if (buf_start < buf_end) {
		memcpy(log->ubuf + buf_start, src, buf_end - buf_start);
	} else {
		u32 first = log->len_total - buf_start;

		memcpy(log->ubuf + buf_start, src, first);
		memcpy(log->ubuf, src + first, buf_end);
	}
}

void vlog_vprintf(struct vlog *log, const char *fmt, va_list ap)
{
	char kbuf[LOG_TMP_SIZE];
	int n;

	if (!log->level)
		return;
	n = vsnprintf(kbuf, sizeof(kbuf), fmt, ap);
	if (n < 0)
		return;
	if (n > LOG_TMP_SIZE - 1)
		n = LOG_TMP_SIZE - 1;
	vlog_write(log, kbuf, (u32)n + 1);
}

void vlog_printf(struct vlog *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_vprintf(log, fmt, ap);
	va_end(ap);
}

void verbose(struct verifier_env *env, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_vprintf(&env->log, fmt, ap);
	va_end(ap);
}

void vlog_reset(struct vlog *log, u64 pos)
{
	if (!log->level || pos > log->end_pos)
		return;
	log->end_pos = pos;
	if (log->end_pos < log->start_pos)
		log->start_pos = log->end_pos;
	if (!log->ubuf)
		return;
	u64 at = log->fixed ? pos : pos % log->len_total;

	if (at < log->len_total)
		log->ubuf[at] = 0;
}

static void reverse(char *b, u32 from, u32 to)
{
	for (u32 i = from, j = to - 1; i < to && i < j; i++, j--) {
		char c = b[i];

		b[i] = b[j];
		b[j] = c;
	}
}

int vlog_finalize(struct vlog *log)
{
	if (!log->level)
		return 0;
	if (log->ubuf && log->start_pos) {
		/* rotate left by start_pos % len_total so the text starts at the beginning */
		u32 sublen = log->len_total - (u32)(log->start_pos % log->len_total);

		reverse(log->ubuf, 0, log->len_total);
		reverse(log->ubuf, 0, sublen);
		reverse(log->ubuf, sublen, log->len_total);
	}
	if (log->ubuf && log->len_max > log->len_total)
		return -ENOSPC;
	return 0;
}
