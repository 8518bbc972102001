/* A streaming JSON writer for the CLI's --json output (bpftool's json_writer, minimal).
 *
 * A stack of open containers remembers whether the current one already has a member, so commas
 * come out right without the callers tracking them; after json_key() the next value belongs to
 * that key and takes no comma.  Strings are escaped per RFC 8259 (control characters as \u00XX).
 * Output is compact, on stdout; json_finish() ends the document with a newline.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

#define JSON_DEPTH 16

static bool has_member[JSON_DEPTH];
static int depth;
static bool after_key;

static void sep(void)
{
	if (after_key) {
		after_key = false;
		return;
	}
	if (depth > 0 && depth <= JSON_DEPTH) {
		if (has_member[depth - 1])
			putchar(',');
		has_member[depth - 1] = true;
	}
}

static void open_c(char c)
{
	sep();
	putchar(c);
	if (depth < JSON_DEPTH)
		has_member[depth] = false;
	depth++;
}

static void close_c(char c)
{
	putchar(c);
	if (depth > 0)
		depth--;
}

void json_begin_object(void)
{
	open_c('{');
}
void json_end_object(void)
{
	close_c('}');
}
void json_begin_array(void)
{
	open_c('[');
}
void json_end_array(void)
{
	close_c(']');
}

static void put_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void json_key(const char *key)
{
	sep();
	put_string(key);
	putchar(':');
	after_key = true;
}

void json_string(const char *s)
{
	sep();
	put_string(s ? s : "");
}

void json_uint(uint64_t v)
{
	sep();
	printf("%" PRIu64, v);
}

void json_int(int64_t v)
{
	sep();
	printf("%" PRId64, v);
}

void json_double(double v)
{
	sep();
	printf("%.3f", v);
}

void json_bool(bool v)
{
	sep();
	fputs(v ? "true" : "false", stdout);
}

void json_finish(void)
{
	putchar('\n');
	depth = 0;
	after_key = false;
}
