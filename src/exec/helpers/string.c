/* string.c — the string helpers: bpf_strtol(), bpf_strtoul(), bpf_strncmp(), and the
 * printf family (bpf_trace_printk(), bpf_trace_vprintk(), bpf_snprintf()) with the kernel's
 * format rules.
 */
#include <ctype.h>
#include <stdio.h>

#include "exec/trace.h"
#include "map/map.h"
#include "exec/helpers/impl.h"

#define PRINTK_BUF 1024 /* the kernel's MAX_BPRINTF_BUF: trace output is cut to it */

/* Formats one IPv4/IPv6 address as %pI4 / %pi4 / %pI6 / %pi6 do. */
static int fmt_ip(char *out, size_t n, char form, char ver, const void *ptr)
{
	u8 ip[16] = { 0 };
	size_t len = ver == '4' ? 4 : 16;

	if (!copy_nofault(ip, ptr, len))
		memset(ip, 0, len);
	if (ver == '4')
		return snprintf(out, n, form == 'I' ? "%u.%u.%u.%u" : "%03u.%03u.%03u.%03u", ip[0],
				ip[1], ip[2], ip[3]);
	if (form == 'I')
		return snprintf(out, n, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
				"%02x%02x:%02x%02x", ip[0], ip[1], ip[2], ip[3], ip[4], ip[5],
				ip[6], ip[7], ip[8], ip[9], ip[10], ip[11], ip[12], ip[13], ip[14],
				ip[15]);
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, n - 2 * i, "%02x", ip[i]);
	return 32;
}

/* The kernel's bpf_bprintf_prepare() rules, then formatting: the format must be NUL-terminated
 * within fmt_size, hold no ASCII control characters, and use at most nargs conversions among
 * [flags 0+- ][width](d|i|u|x|X with l/ll, c, s, p, pK, px, ps, pS, pB, pks, pus, pI4, pi4,
 * pI6, pi6); %% is literal.  The arguments the kernel copies out first (numbers, characters,
 * strings, formatted addresses) share its 512-byte buffer: strings are cut to what is left, and
 * an argument that finds it full is -ENOSPC.  Writes at most out_size bytes to out (NUL-
 * terminated when out_size > 0; out may be NULL when out_size is 0) and returns the length the
 * whole output has (as vsnprintf), or -EINVAL / -ENOSPC with out untouched: the format is
 * checked in a first pass that writes nothing. */
#define BPRINTF_BIN_ARGS 512 /* the kernel's MAX_BPRINTF_BIN_ARGS */

static int bprintf_pass(char *out, size_t out_size, const char *fmt, size_t flen, const u64 *args,
			int nargs)
{
	size_t pos = 0, bin = 0; /* bin: bytes of the kernel's argument buffer used */
	int nspec = 0;
	long total = 0;

	if (out_size)
		out[0] = 0;

#define EMIT(...)                                                                                \
	do {                                                                                     \
		int n_ = snprintf(pos < out_size ? out + pos : NULL,                             \
				  pos < out_size ? out_size - pos : 0, __VA_ARGS__);             \
		total += n_;                                                                     \
		pos = (size_t)total < out_size ? (size_t)total : out_size ? out_size - 1 : 0;    \
	} while (0)
/* n bytes of the argument buffer, 4-byte aligned first for numbers */
#define BIN_TAKE(n, align)                                                                       \
	do {                                                                                     \
		if (align)                                                                       \
			bin = (bin + 3) & ~(size_t)3;                                            \
		if (BPRINTF_BIN_ARGS - bin < (size_t)(n))                                        \
			return -ENOSPC;                                                          \
		bin += (n);                                                                      \
	} while (0)

	for (size_t i = 0; i < flen; i++) {
		unsigned char c = fmt[i];
		char spec[16];
		size_t s0, slen;
		u64 arg;

		if (isascii(c) && !isprint(c) && !isspace(c))
			return -EINVAL;
		if (c != '%') {
			EMIT("%c", c);
			continue;
		}
		if (fmt[i + 1] == '%') {
			EMIT("%%");
			i++;
			continue;
		}
		if (nspec >= nargs)
			return -EINVAL;
		arg = args ? args[nspec] : 0;
		nspec++;
		s0 = i++;
		if (!isascii((unsigned char)fmt[i]))
			return -EINVAL;
		while (fmt[i] == '0' || fmt[i] == '+' || fmt[i] == '-' || fmt[i] == ' ')
			i++;
		if (fmt[i] >= '1' && fmt[i] <= '9')
			while (fmt[i] >= '0' && fmt[i] <= '9')
				i++;
		slen = i - s0; /* "%[flags][width]" */
		if (slen > 8)
			return -EINVAL; /* a width we will not honour */
		memcpy(spec, fmt + s0, slen);

		if (fmt[i] == 'p') {
			char n1 = fmt[i + 1], n2 = n1 ? fmt[i + 2] : 0, buf[64];
			int len;

			if (!n1 || isspace((unsigned char)n1) || ispunct((unsigned char)n1) ||
			    n1 == 'K' || n1 == 'x' || n1 == 's' || n1 == 'S' || n1 == 'B') {
				/* a pointer: printed raw (the kernel hashes plain %p); %pB is
				 * copied out as the text the kernel formats */
				if (n1 == 'K' || n1 == 'x' || n1 == 's' || n1 == 'S' || n1 == 'B')
					i++;
				len = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)arg);
				if (n1 == 'B')
					BIN_TAKE((size_t)len + 1, false);
				else
					BIN_TAKE(8, true);
				memcpy(spec + slen, "s", 2);
				EMIT(spec, buf);
				continue;
			}
			if ((n1 == 'k' || n1 == 'u') && n2 == 's') {
				i += 2;
				goto fmt_str;
			}
			if ((n1 != 'i' && n1 != 'I') || (n2 != '4' && n2 != '6'))
				return -EINVAL;
			i += 2;
			if (BPRINTF_BIN_ARGS - bin < (n2 == '4' ? 4u : 16u))
				return -ENOSPC;
			len = fmt_ip(buf, sizeof(buf), n1, n2, PTR(arg));
			BIN_TAKE((size_t)len + 1, false);
			memcpy(spec + slen, "s", 2);
			EMIT(spec, buf);
			continue;
		}
		if (fmt[i] == 's') {
			char str[BPRINTF_BIN_ARGS];
			int len;
fmt_str:
			if (fmt[i + 1] && !isspace((unsigned char)fmt[i + 1]) &&
			    !ispunct((unsigned char)fmt[i + 1]))
				return -EINVAL;
			if (bin == BPRINTF_BIN_ARGS)
				return -ENOSPC;
			len = copy_str_nofault(str, PTR(arg), BPRINTF_BIN_ARGS - bin);
			if (len < 0) {
				str[0] = 0;
				len = 1;
			}
			bin += (size_t)len;
			memcpy(spec + slen, "s", 2);
			EMIT(spec, str);
			continue;
		}
		if (fmt[i] == 'c') {
			BIN_TAKE(1, false);
			memcpy(spec + slen, "c", 2);
			EMIT(spec, (char)arg);
			continue;
		}
		{
			int l = 0;

			while (fmt[i] == 'l' && l < 2) {
				l++;
				i++;
			}
			if (fmt[i] != 'i' && fmt[i] != 'd' && fmt[i] != 'u' && fmt[i] != 'x' &&
			    fmt[i] != 'X')
				return -EINVAL;
			BIN_TAKE(l ? 8 : 4, true);
			/* %d and %ld: 32 bits and 64 bits (long is 64-bit on the kernels we mirror) */
			memcpy(spec + slen, "ll", 2);
			spec[slen + 2] = fmt[i];
			spec[slen + 3] = 0;
			if (fmt[i] == 'd' || fmt[i] == 'i')
				EMIT(spec, l ? (long long)arg : (long long)(s32)arg);
			else
				EMIT(spec, l ? (unsigned long long)arg : (unsigned long long)(u32)arg);
		}
	}
#undef BIN_TAKE
#undef EMIT
	return total > INT32_MAX ? INT32_MAX : (int)total;
}

int bprintf_format(char *out, size_t out_size, const char *fmt, u32 fmt_size, const u64 *args,
		   int nargs)
{
	const char *end = memchr(fmt, 0, fmt_size);
	int err;

	if (!end)
		return -EINVAL;
	err = bprintf_pass(NULL, 0, fmt, (size_t)(end - fmt), args, nargs);
	if (err < 0 || !out_size)
		return err;
	return bprintf_pass(out, out_size, fmt, (size_t)(end - fmt), args, nargs);
}

int bprintf_check(const char *fmt, u32 nargs)
{
	int err = bprintf_format(NULL, 0, fmt, UINT32_MAX, NULL, (int)nargs);

	return err < 0 ? err : 0;
}

u64 h_trace_printk(u64 fmt, u64 fmt_size, u64 a1, u64 a2, u64 a3)
{
	const u64 args[3] = { a1, a2, a3 };
	char out[PRINTK_BUF];
	int n = bprintf_format(out, sizeof(out), PTR(fmt), (u32)fmt_size, args, 3);

	if (n < 0)
		return (u64)(s64)n;
	trace_emit(out);
	return (u64)n;
}

#define BPRINTF_VARARGS 12 /* the kernel's MAX_BPRINTF_VARARGS */

/* bpf_trace_vprintk(fmt, fmt_size, data, data_len): trace_printk() with data_len / 8 arguments
 * in an array of u64. */
u64 h_trace_vprintk(u64 fmt, u64 fmt_size, u64 data, u64 data_len, u64 a5)
{
	char out[PRINTK_BUF];
	int n;

	if ((u32)data_len % 8 || (u32)data_len > BPRINTF_VARARGS * 8 || ((u32)data_len && !data))
		return (u64)-EINVAL;
	n = bprintf_format(out, sizeof(out), PTR(fmt), (u32)fmt_size, PTR(data),
			   (int)((u32)data_len / 8));
	if (n < 0)
		return (u64)(s64)n;
	trace_emit(out);
	return (u64)n;
}

/* bpf_snprintf(str, str_size, fmt, data, data_len): the output's length with its NUL (as if
 * str_size were unlimited), at most str_size bytes written; fmt is a constant string (the
 * verifier checked it against data_len / 8 arguments). */
u64 h_snprintf(u64 str, u64 str_size, u64 fmt, u64 data, u64 data_len)
{
	int n;

	if ((u32)data_len % 8 || (u32)data_len > BPRINTF_VARARGS * 8 || ((u32)data_len && !data))
		return (u64)-EINVAL;
	n = bprintf_format(PTR(str), (u32)str_size, PTR(fmt), UINT32_MAX, PTR(data),
		    (int)((u32)data_len / 8));
	return n < 0 ? (u64)(s64)n : (u64)n + 1;
}
