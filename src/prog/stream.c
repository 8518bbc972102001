/* Programs' standard streams: the kfunc that writes them and the command that reads them
 * (stream.h), after the kernel's kernel/bpf/stream.c.
 *
 * The kernel queues each message as an element of its text (without a NUL) and counts the
 * stream's capacity in those lengths; a read copies from the oldest element on, takes an
 * element off once all of it was read, and leaves a partly read one at the head.  A message the
 * formatting made longer than the kernel's 1024-byte buffer is refused with -ENOMEM after its
 * length was counted (the kernel's order), and that count is never given back, as there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/helpers/impl.h"
#include "fd.h"
#include "prog/prog.h"
#include "prog/stream.h"

#define STREAM_BUF 1024		/* the kernel's MAX_BPRINTF_BUF: the longest message */
#define STREAM_VARARGS 12	/* MAX_BPRINTF_VARARGS */

struct stream_msg {
	struct stream_msg *next;
	int len;		/* its bytes */
	int consumed;		/* of them, read already */
	char str[];
};

static struct prog_stream *stream_of(struct bpf_prog *prog, int id)
{
	if (id != BPF_STREAM_STDOUT && id != BPF_STREAM_STDERR)
		return NULL;
	return &prog->streams[id - 1];
}

/* Counts len bytes against the stream's capacity (its lock held): -ENOSPC where they would
 * reach it. */
static int stream_take_capacity(struct prog_stream *s, int len)
{
	if (s->capacity >= STREAM_CAPACITY || s->capacity + len >= STREAM_CAPACITY)
		return -ENOSPC;
	s->capacity += len;
	return 0;
}

static int stream_push(struct prog_stream *s, const char *str, int len)
{
	struct stream_msg *m = NULL;
	int err;

	if (len >= 0 && len <= STREAM_BUF)
		m = malloc(sizeof(*m) + (size_t)len);
	spin_lock(&s->lock);
	err = stream_take_capacity(s, len);
	if (!err && !m)
		err = -ENOMEM; /* (the length stays counted, as in the kernel) */
	if (!err) {
		memcpy(m->str, str, (size_t)len);
		m->len = len;
		m->consumed = 0;
		m->next = NULL;
		if (s->tail)
			s->tail->next = m;
		else
			s->head = m;
		s->tail = m;
		m = NULL;
	}
	spin_unlock(&s->lock);
	free(m);
	return err;
}

u64 bpf_stream_vprintk_kfunc(u64 stream_id, u64 fmt, u64 args, u64 len, u64 prog)
{
	struct prog_stream *s = stream_of(PTR(prog), (int)stream_id);
	u32 data_len = (u32)len;
	char buf[STREAM_BUF];
	int n;

	if (!s)
		return (u64)-ENOENT;
	if (data_len % 8 || data_len > STREAM_VARARGS * 8 || (data_len && !args))
		return (u64)-EINVAL;
	/* fmt is a NUL-terminated constant (the verifier's __str check) */
	n = bprintf_format(buf, sizeof(buf), PTR(fmt), (u32)strlen(PTR(fmt)) + 1, PTR(args),
			   (int)(data_len / 8));
	if (n < 0)
		return (u64)(s64)n;
	/* n is the whole text's length: at 1024 the copy takes the buffer's NUL too, as the
	 * kernel's does; beyond, the message is refused */
	return (u64)(s64)stream_push(s, buf, n);
}

/* Where a copy to the caller's buffer faults: userbpf trusts the caller's pointers as libc
 * does, but for the first page, where NULL points. */
static bool user_buf_bad(uintptr_t buf, size_t n)
{
	return n && buf < 4096;
}

/* The kernel's bpf_stream_read(): up to len bytes, from the oldest message on; the number
 * read, or -EFAULT where the buffer faults (what was read before stays read; the message it
 * faulted in stays as it was).  (6.18.44 reads a length above INT_MAX as the unsigned number it
 * is: an empty message then reads as 0 bytes, not a fault.) */
static int stream_read(struct prog_stream *s, char *buf, u32 len)
{
	u32 rem = len;
	int ret = 0;

	spin_lock(&s->lock);
	while (rem) {
		struct stream_msg *m = s->head;
		u32 pos = len - rem, used;

		if (!m)
			break;
		used = (u32)(m->len - m->consumed) < rem ? (u32)(m->len - m->consumed) : rem;
		if (user_buf_bad((uintptr_t)buf + pos, used)) {
			ret = -EFAULT;
			break;
		}
		if (used) /* (buf may be NULL for an empty message) */
			memcpy(buf + pos, m->str + m->consumed, used);
		m->consumed += (int)used;
		rem -= used;
		if (m->consumed != m->len)
			continue; /* (rem is 0 now) */
		s->head = m->next;
		if (!s->head)
			s->tail = NULL;
		s->capacity -= m->len;
		free(m);
	}
	spin_unlock(&s->lock);
	return ret ? ret : (int)(len - rem);
}

/* 6.18's attr: stream_buf (u64), stream_buf_len, stream_id, prog_fd (u32 each), beyond the
 * uapi header's union */
int prog_stream_read(const union bpf_attr *attr)
{
	const u8 *raw = (const u8 *)attr;
	struct bpf_object *obj;
	struct prog_stream *s;
	u64 buf;
	u32 len, id, fd;
	int err;

	memcpy(&buf, raw, 8);
	memcpy(&len, raw + 8, 4);
	memcpy(&id, raw + 12, 4);
	memcpy(&fd, raw + 16, 4);
	obj = obj_get_from_fd((int)fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	s = stream_of(prog_of(obj), (int)id);
	err = s ? stream_read(s, (char *)(uintptr_t)buf, len) : -ENOENT;
	obj_put(obj);
	return err;
}

void prog_streams_free(struct bpf_prog *prog)
{
	for (int i = 0; i < 2; i++) {
		struct stream_msg *m = prog->streams[i].head, *next;

		for (; m; m = next) {
			next = m->next;
			free(m);
		}
	}
}
