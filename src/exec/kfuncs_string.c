/* kfuncs_string.c — the kernel's read-only string kfuncs (kernel/bpf/helpers.c, 6.17 and later):
 * bpf_strcmp(), bpf_strcasecmp(), bpf_strchr(), bpf_strchrnul(), bpf_strnchr(), bpf_strrchr(),
 * bpf_strlen(), bpf_strnlen(), bpf_strspn(), bpf_strcspn(), bpf_strstr(), bpf_strnstr().
 *
 * Their string arguments are named __ign: the verifier checks nothing about them, so a string
 * may be any value at all.  Like the kernel's, these read a byte at a time without faulting
 * (-EFAULT where a byte cannot be read), stop after XATTR_SIZE_MAX bytes (-E2BIG), and return
 * an index, never a pointer.  The kernel says -ERANGE for an address outside its own half;
 * here, for those no mapping can hold (nofault_allowed(), probe.c).  `char` is
 * unsigned, as in every kernel since 6.2 (-funsigned-char): bytes 0x80 and above compare above
 * ASCII.
 */
#include <errno.h>
#include <pthread.h>

#include "exec/helpers/impl.h"
#include "exec/kfuncs_string.h"
#include "map/value_ranges.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define XATTR_SIZE_MAX 65536
#define CHUNK 256 /* bytes copied at a time: one process_vm_readv() per chunk, never past a page */

/* A string being read: the bytes at [at, at + len) are at win (buf, a copy, or the memory
 * itself where it can be read directly). */
struct rstr {
	uintptr_t base;
	uintptr_t at;
	size_t len;
	const unsigned char *win;
	unsigned char buf[CHUNK];
};

/* Starts reading the string at p; false (-ERANGE) where the address is not allowed at all. */
static bool rstr_open(struct rstr *s, u64 p)
{
	/* (an address past a 32-bit process's reach reads as unmapped) */
	s->base = p <= UINTPTR_MAX ? (uintptr_t)p : 0;
	s->at = 0;
	s->len = 0;
	return nofault_allowed(p);
}

/* This thread's stack, [lo, hi) (0, 0 until asked; hi 1 where it cannot be known). */
static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));

/* How many bytes from a lie in this thread's stack above our own frame (0: a is not there): the
 * frames of the program that called us (its BPF stack is there, for the JIT and the interpreter
 * alike) and of its callers, all mapped, so that plain loads are safe.  A string on the
 * program's stack, the common case, then costs no system call.  Not under ASan, which would take
 * a string that runs past the BPF stack for an overflow of its frame, nor under valgrind, which
 * would take the program's unwritten stack bytes for undefined: both take process_vm_readv()'s
 * bytes as defined. */
static size_t on_live_stack(uintptr_t a)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (!stack_hi) {
		pthread_attr_t attr;
		void *lo;
		size_t size;

		stack_hi = 1;
		if (!UNDER_ASAN && !RUNNING_ON_VALGRIND &&
		    !pthread_getattr_np(pthread_self(), &attr)) {
			if (!pthread_attr_getstack(&attr, &lo, &size)) {
				stack_lo = (uintptr_t)lo;
				stack_hi = (uintptr_t)lo + size;
			}
			pthread_attr_destroy(&attr);
		}
	}
	/* (here below lo or above hi: running on another stack, a coroutine's) */
	return here >= stack_lo && here < stack_hi && a >= here && a < stack_hi ? stack_hi - a : 0;
}

/* Makes the bytes from a readable at s->win; false if a cannot be read.  A chunk stops at the
 * page's end, so that a string ending before unreadable memory reads; on the live stack or in a
 * map's values (value_ranges.c), the memory itself is read. */
static __attribute__((noinline)) bool rstr_fill(struct rstr *s, uintptr_t a)
{
	size_t n = 4096 - (a & 4095), direct = 0;
	uintptr_t end;

	if (!s->base)
		return false;
	direct = on_live_stack(a);
	if (!direct && (end = value_ranges_end(a)))
		direct = end - a;
	if (direct) {
		s->win = (const unsigned char *)a;
		n = direct;
	} else {
		if (n > CHUNK)
			n = CHUNK;
		if (!copy_nofault(s->buf, (const void *)a, n)) {
			s->len = 0;
			return false;
		}
		s->win = s->buf;
	}
	s->at = a;
	s->len = n;
	return true;
}

/* The byte i into the string in *c; false if it cannot be read. */
static inline bool rstr_at(struct rstr *s, u32 i, unsigned char *c)
{
	uintptr_t a = s->base + i;

	if (unlikely(a - s->at >= s->len) && !rstr_fill(s, a))
		return false;
	*c = s->win[a - s->at];
	return true;
}

/* The bytes from i on that can be read now without another fill: *w points at byte i, *n of
 * them (at least 1); false if byte i cannot be read.  Loops over a string take it a window
 * at a time, with plain loads inside. */
static inline bool rstr_span(struct rstr *s, u32 i, const unsigned char **w, size_t *n)
{
	uintptr_t a = s->base + i;

	if (unlikely(a - s->at >= s->len) && !rstr_fill(s, a))
		return false;
	*w = s->win + (a - s->at);
	*n = s->len - (a - s->at);
	return true;
}

/* The kernel's tolower(): its ctype table is Latin-1, whose upper-case letters are A-Z and
 * 0xc0-0xde but 0xd7. */
static unsigned char lower(unsigned char c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7))
		c += 'a' - 'A';
	return c;
}

#define RET(v) ((u64)(u32)(int)(v)) /* an int result, zero-extended as from compiled code */

static u64 str_compare(u64 p1, u64 p2, bool ignore_case)
{
	struct rstr s1, s2;

	/* (both opened, both addresses checked, before either string is read) */
	bool ok1 = rstr_open(&s1, p1), ok2 = rstr_open(&s2, p2);

	if (!ok1 || !ok2)
		return RET(-ERANGE);
	for (u32 i = 0; i < XATTR_SIZE_MAX;) {
		const unsigned char *w1, *w2;
		size_t n1, n2, n;

		/* byte i of both, then as many more as both windows hold */
		if (!rstr_span(&s1, i, &w1, &n1) || !rstr_span(&s2, i, &w2, &n2))
			return RET(-EFAULT);
		n = n1 < n2 ? n1 : n2;
		if (n > XATTR_SIZE_MAX - i)
			n = XATTR_SIZE_MAX - i;
		for (size_t j = 0; j < n; j++) {
			unsigned char c1 = w1[j], c2 = w2[j];

			if (ignore_case) {
				c1 = lower(c1);
				c2 = lower(c2);
			}
			if (c1 != c2)
				return RET(c1 < c2 ? -1 : 1);
			if (!c1)
				return 0;
		}
		i += (u32)n;
	}
	return RET(-E2BIG);
}

u64 bpf_strcmp_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5)
{
	return str_compare(s1, s2, false);
}

u64 bpf_strcasecmp_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5)
{
	return str_compare(s1, s2, true);
}

/* The first c in the first count bytes (the NUL counts: c 0 finds it).  Past count: -ENOENT,
 * or count itself for bpf_strnlen() (len). */
static u64 str_nchr(u64 p, u64 count, unsigned char c, bool len)
{
	u64 end = count < XATTR_SIZE_MAX ? count : XATTR_SIZE_MAX;
	struct rstr s;
	u32 i = 0;

	if (!rstr_open(&s, p))
		return RET(-ERANGE);
	while (i < end) {
		const unsigned char *w;
		size_t n;

		if (!rstr_span(&s, i, &w, &n))
			return RET(-EFAULT);
		if (n > end - i)
			n = (size_t)(end - i);
		for (size_t j = 0; j < n; j++) {
			if (w[j] == c)
				return i + j;
			if (!w[j])
				return RET(-ENOENT);
		}
		i += (u32)n;
	}
	if (i == XATTR_SIZE_MAX)
		return RET(-E2BIG);
	return len ? i : RET(-ENOENT);
}

/* (a char argument is the register's low byte) */
u64 bpf_strnchr_kfunc(u64 s, u64 count, u64 c, u64 a4, u64 a5)
{
	return str_nchr(s, count, (unsigned char)c, false);
}

u64 bpf_strchr_kfunc(u64 s, u64 c, u64 a3, u64 a4, u64 a5)
{
	return str_nchr(s, XATTR_SIZE_MAX, (unsigned char)c, false);
}

/* The first c, or the NUL's index. */
u64 bpf_strchrnul_kfunc(u64 p, u64 c, u64 a3, u64 a4, u64 a5)
{
	struct rstr s;
	unsigned char sc;

	if (!rstr_open(&s, p))
		return RET(-ERANGE);
	for (u32 i = 0; i < XATTR_SIZE_MAX; i++) {
		if (!rstr_at(&s, i, &sc))
			return RET(-EFAULT);
		if (!sc || sc == (unsigned char)c)
			return i;
	}
	return RET(-E2BIG);
}

/* The last c.  Here c is an int, compared whole with each byte: 0xff finds the bytes 0xff, -1
 * finds nothing. */
u64 bpf_strrchr_kfunc(u64 p, u64 c, u64 a3, u64 a4, u64 a5)
{
	struct rstr s;
	unsigned char sc;
	int last = -ENOENT;

	if (!rstr_open(&s, p))
		return RET(-ERANGE);
	for (u32 i = 0; i < XATTR_SIZE_MAX; i++) {
		if (!rstr_at(&s, i, &sc))
			return RET(-EFAULT);
		if (sc == (int)c)
			last = (int)i;
		if (!sc)
			return RET(last);
	}
	return RET(-E2BIG);
}

u64 bpf_strnlen_kfunc(u64 s, u64 count, u64 a3, u64 a4, u64 a5)
{
	return str_nchr(s, count, 0, true);
}

u64 bpf_strlen_kfunc(u64 s, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return bpf_strnlen_kfunc(s, XATTR_SIZE_MAX, 0, 0, 0);
}

/* The length of s's first part made of bytes in set (accept), or of bytes not in it. */
static u64 str_span(u64 p, u64 pset, bool accept)
{
	struct rstr s, set;
	unsigned char cs, cset = 0;

	/* (both opened, both addresses checked, before either string is read) */
	bool ok1 = rstr_open(&s, p), ok2 = rstr_open(&set, pset);

	if (!ok1 || !ok2)
		return RET(-ERANGE);
	for (u32 i = 0; i < XATTR_SIZE_MAX; i++) {
		u32 j;

		if (!rstr_at(&s, i, &cs))
			return RET(-EFAULT);
		if (!cs)
			return i;
		for (j = 0; j < XATTR_SIZE_MAX; j++) {
			if (!rstr_at(&set, j, &cset))
				return RET(-EFAULT);
			if (cs == cset || !cset)
				break;
		}
		if (j == XATTR_SIZE_MAX)
			return RET(-E2BIG);
		if (accept ? !cset : cset != 0)
			return i;
	}
	return RET(-E2BIG);
}

u64 bpf_strspn_kfunc(u64 s, u64 accept, u64 a3, u64 a4, u64 a5)
{
	return str_span(s, accept, true);
}

u64 bpf_strcspn_kfunc(u64 s, u64 reject, u64 a3, u64 a4, u64 a5)
{
	return str_span(s, reject, false);
}

/* Where s2 first occurs within s1's first len bytes.  A match may end exactly at len: s2's
 * byte there is read to see whether it is the NUL. */
u64 bpf_strnstr_kfunc(u64 p1, u64 p2, u64 len, u64 a4, u64 a5)
{
	struct rstr s1, s2;
	unsigned char c1, c2;

	/* (both opened, both addresses checked, before either string is read) */
	bool ok1 = rstr_open(&s1, p1), ok2 = rstr_open(&s2, p2);

	if (!ok1 || !ok2)
		return RET(-ERANGE);
	for (u32 i = 0; i < XATTR_SIZE_MAX; i++) {
		u32 j;

		for (j = 0; (u64)i + j <= len && j < XATTR_SIZE_MAX; j++) {
			if (!rstr_at(&s2, j, &c2))
				return RET(-EFAULT);
			if (!c2)
				return i;
			if ((u64)i + j == len)
				break;
			if (!rstr_at(&s1, i + j, &c1))
				return RET(-EFAULT);
			if (!c1)
				return RET(-ENOENT);
			if (c1 != c2)
				break;
		}
		if (j == XATTR_SIZE_MAX)
			return RET(-E2BIG);
		if ((u64)i + j == len)
			return RET(-ENOENT);
	}
	return RET(-E2BIG);
}

u64 bpf_strstr_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5)
{
	return bpf_strnstr_kfunc(s1, s2, XATTR_SIZE_MAX, 0, 0);
}
