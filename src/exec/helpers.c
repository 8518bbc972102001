/* The BPF helper functions userbpf provides, and the table of their prototypes.
 *
 * One entry per helper, indexed by the kernel's number (enum bpf_func_id): the prototype the
 * verifier checks calls against (the kernel's argument and return types, gpl_only flag), the
 * implementation the interpreter calls, and the set of program types that may call it (the
 * kernel's <type>_func_proto() switches, as Linux 6.18 answers them for a privileged loader).
 *
 * Semantics are the kernel's, in user space: "current" is the calling thread (pid = tid,
 * tgid = the process); the "kernel" memory of probe_read_kernel is this process's memory; both
 * probe_read helpers copy through process_vm_readv() on our own pid, so a bad address gives
 * -EFAULT (and a zeroed buffer) instead of a crash.  Map helpers call the map's ops with the
 * struct bpf_map the program holds (no fd look-up) and return the ops' negative errno, which is
 * what the kernel's helpers return.  They run inside the read section the runner holds.
 */
#include <ctype.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "exec/bpf_dynptr.h"
#include "exec/bpf_timer.h"
#include "exec/callback.h"
#include "exec/helpers.h"
#include "exec/sock.h"
#include "exec/trace.h"
#include "rcu.h"
#include "syscall.h"
#include "map/cgroup_array.h"
#include "map/cgroup_storage.h"
#include "map/jhash.h"
#include "map/map.h"
#include "map/perf_event_array.h"
#include "map/ringbuf.h"
#include "prog/run.h"

#define TYPE_BIT(t) (1u << (t))
#define SKB_TYPES (TYPE_BIT(BPF_PROG_TYPE_SOCKET_FILTER) | TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS))
#define TRACING_TYPES                                                                            \
	(TYPE_BIT(BPF_PROG_TYPE_KPROBE) | TYPE_BIT(BPF_PROG_TYPE_TRACEPOINT) |                     \
	 TYPE_BIT(BPF_PROG_TYPE_RAW_TRACEPOINT))
#define ALL_TYPES (SKB_TYPES | TRACING_TYPES | TYPE_BIT(BPF_PROG_TYPE_XDP))

#define PTR(x) ((void *)(uintptr_t)(x))

/* ---- maps ---- */

static u64 h_map_lookup_elem(u64 map, u64 key, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (uintptr_t)m->ops->lookup_ptr(m, PTR(key));
}

/* (a map with timers: an update or delete may free a timer whose callback runs; the JIT calls
 * these for such maps, not the ops, prog_resolve_call()) */
static u64 h_map_update_elem(u64 map, u64 key, u64 value, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);
	int ret = map_prog_update(m)(m, PTR(key), PTR(value), flags);

	if (m->timer_off >= 0)
		bpf_timer_sync();
	return (u64)(s64)ret;
}

static u64 h_map_delete_elem(u64 map, u64 key, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);
	int ret = m->ops->delete(m, PTR(key));

	if (m->timer_off >= 0)
		bpf_timer_sync();
	return (u64)(s64)ret;
}

/* Queue and stack maps (the verifier allows these three on them only): their ops with no key
 * (src/map/queue_stack.c). */
static u64 h_map_push_elem(u64 map, u64 value, u64 flags, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->update(m, NULL, PTR(value), flags);
}

static u64 h_map_pop_elem(u64 map, u64 value, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->lookup_and_delete(m, NULL, PTR(value), 0);
}

static u64 h_map_peek_elem(u64 map, u64 value, u64 a3, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->lookup(m, NULL, PTR(value));
}

/* bpf_redirect_map(map, key, flags): the map type's answer (the verifier allows device maps
 * only).  Nothing is sent: see src/map/devmap.c. */
static u64 h_redirect_map(u64 map, u64 key, u64 flags, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (u64)(s64)m->ops->xdp_redirect(m, key, flags);
}

/* bpf_spin_lock(lock) / bpf_spin_unlock(lock): the lock word of a map value (the verifier
 * checked it is one, and pairs the two on every path). */
static u64 h_spin_lock(u64 lock, u64 a2, u64 a3, u64 a4, u64 a5)
{
	map_spin_lock(PTR(lock));
	return 0;
}

static u64 h_spin_unlock(u64 lock, u64 a2, u64 a3, u64 a4, u64 a5)
{
	map_spin_unlock(PTR(lock));
	return 0;
}

/* jit_opts.resolve_call for a loaded program: a map helper whose map the JIT knows becomes a
 * direct call of the map's op (no helper and no ops indirection; int results sign-extended as
 * the helpers do), and an array map's lookup becomes inline index arithmetic, as the kernel's
 * JIT does with map_gen_lookup.  r1 must be one of the maps the verifier recorded for prog. */
int prog_resolve_call(void *arg, const void *fn, u64 r1, struct jit_call *how)
{
	const struct bpf_prog *prog = arg;
	struct bpf_map *m = NULL;
	u32 elem_size;
	void *base;

	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if ((uintptr_t)prog->used_maps[i] == r1)
			m = prog->used_maps[i];
	if (!m)
		return 0;
	if (fn == (const void *)h_map_lookup_elem) {
		if (m->ops->array_base && (base = m->ops->array_base(m, &elem_size))) {
			how->kind = JIT_CALL_ARRAY;
			how->base = (uintptr_t)base;
			how->elem_size = elem_size;
			how->max_entries = m->max_entries;
			return 1;
		}
		how->kind = JIT_CALL_DIRECT;
		how->fn = (const void *)m->ops->lookup_ptr;
		return how->fn != NULL;
	}
	if (m->timer_off >= 0) /* (the helpers, which wait for a freed timer's callback) */
		return 0;
	how->kind = JIT_CALL_DIRECT;
	how->sext32 = 1;
	if (fn == (const void *)h_map_update_elem)
		how->fn = (const void *)map_prog_update(m);
	else if (fn == (const void *)h_map_delete_elem)
		how->fn = (const void *)m->ops->delete;
	return how->fn != NULL;
}

/* bpf_map_lookup_percpu_elem(map, key, cpu): that CPU's copy (the verifier allows only
 * per-CPU maps). */
static u64 h_map_lookup_percpu_elem(u64 map, u64 key, u64 cpu, u64 a4, u64 a5)
{
	struct bpf_map *m = PTR(map);

	return (uintptr_t)m->ops->lookup_percpu_ptr(m, PTR(key), (u32)cpu);
}

/* ---- time, cpu, randomness, current task ---- */

static u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

static u64 h_ktime_get_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static u64 h_ktime_get_tai_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_TAI);
}

/* bpf_jiffies64(): the kernel's tick count has no user-space clock; this counts ticks of
 * CONFIG_HZ=250 (Debian's) since boot, which is what programs use it for (differences). */
#define KERNEL_HZ 250u
static u64 h_jiffies64(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE) / (1000000000u / KERNEL_HZ);
}

/* The NUMA node of the CPU the caller runs on. */
static u64 h_get_numa_node_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	unsigned int cpu, node;

	return getcpu(&cpu, &node) ? 0 : node;
}

/* CLOCK_MONOTONIC at tick resolution, as bpf_ktime_get_coarse_ns() (ktime_get_coarse_ns());
 * not for tracing programs, which may run where the coarse clock is not safe to read. */
static u64 h_ktime_get_coarse_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

static u64 h_ktime_get_boot_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_BOOTTIME);
}

/* Per-thread xorshift128+ seeded from getrandom(): cheap and independent across threads, like
 * the kernel's per-cpu prandom state.  Not for cryptography (neither is the kernel's). */
static __thread u64 prandom_s[2];

static u64 h_get_prandom_u32(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u64 x, y;

	if (unlikely(!prandom_s[0] && !prandom_s[1])) {
		if (getrandom(prandom_s, sizeof(prandom_s), GRND_NONBLOCK) != sizeof(prandom_s))
			prandom_s[0] = clock_ns(CLOCK_MONOTONIC) ^ (u64)gettid() << 32;
		prandom_s[1] |= 1; /* never the all-zero state */
	}
	x = prandom_s[0];
	y = prandom_s[1];
	prandom_s[0] = y;
	x ^= x << 23;
	prandom_s[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
	return (u32)((prandom_s[1] + y) >> 32);
}

static u64 h_get_smp_processor_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (u32)cpu;
}

static u64 h_get_current_pid_tgid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return (u64)(u32)getpid() << 32 | (u32)gettid();
}

static u64 h_get_current_uid_gid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return (u64)(u32)getgid() << 32 | (u32)getuid();
}

/* The kernel's __bpf_strtoull(): leading spaces (Latin-1's, as the kernel's ctype), a '-',
 * then _parse_integer_fixup_radix() and _parse_integer() on at most 63 bytes: the bytes
 * consumed, or -EINVAL (no digits, a bad base or flag), -ERANGE (the value overflows 64 bits). */
static s64 strtox(const char *buf, u64 len, u64 flags, u64 *res, bool *neg)
{
	unsigned int base = flags & 0x1f;
	char str[64];
	u64 i = 0, n, v = 0, start;
	bool overflow = false;

	if (!len || (base != 0 && base != 8 && base != 10 && base != 16) || (flags & ~0x1full))
		return -EINVAL;
	while (i < len && (isspace((unsigned char)buf[i]) || buf[i] == (char)0xa0))
		i++;
	*neg = i < len && buf[i] == '-';
	if (*neg)
		i++;
	if (i == len)
		return -EINVAL;
	n = len - i < sizeof(str) - 1 ? len - i : sizeof(str) - 1;
	memcpy(str, buf + i, n);
	str[n] = 0;
	start = 0;
	if (base == 0) {
		if (str[0] == '0') {
			base = (str[1] | 0x20) == 'x' && isxdigit((unsigned char)str[2]) ? 16 : 8;
		} else {
			base = 10;
		}
	}
	if (base == 16 && str[0] == '0' && (str[1] | 0x20) == 'x')
		start = 2;
	for (n = start; str[n]; n++) {
		unsigned int c = (unsigned char)str[n], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	if (n == start)
		return -EINVAL;
	*res = v;
	return (s64)(i + n);
}

/* bpf_strtol(buf, len, flags, res) / bpf_strtoul(): the bytes parsed, *res the value (0 on an
 * error). */
static u64 h_strtol(u64 buf, u64 len, u64 flags, u64 res, u64 a5)
{
	s64 *out = PTR(res), n;
	u64 v = 0;
	bool neg;

	*out = 0;
	n = strtox(PTR(buf), len, flags, &v, &neg);
	if (n < 0)
		return (u64)n;
	if (neg ? (s64)-v > 0 : (s64)v < 0)
		return (u64)(s64)-ERANGE;
	*out = neg ? (s64)-v : (s64)v;
	return (u64)n;
}

static u64 h_strtoul(u64 buf, u64 len, u64 flags, u64 res, u64 a5)
{
	u64 *out = PTR(res), v = 0;
	s64 n;
	bool neg;

	*out = 0;
	n = strtox(PTR(buf), len, flags, &v, &neg);
	if (n < 0)
		return (u64)n;
	if (neg)
		return (u64)(s64)-EINVAL;
	*out = v;
	return (u64)n;
}

/* bpf_strncmp(s1, s1_sz, s2): the kernel's strncmp(), whose result is -1, 0 or 1 (s2 is a
 * NUL-terminated constant, the verifier made sure). */
static u64 h_strncmp(u64 s1, u64 s1_sz, u64 s2, u64 a4, u64 a5)
{
	const unsigned char *a = PTR(s1), *b = PTR(s2);

	for (u64 i = 0; i < s1_sz; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? (u64)-1 : 1;
		if (!a[i])
			break;
	}
	return 0;
}

/* The kernel's strscpy_pad(buf, current->comm, size): NUL-terminated, zero-padded. */
static u64 h_get_current_comm(u64 buf, u64 size, u64 a3, u64 a4, u64 a5)
{
	char comm[17] = { 0 };
	char *dst = PTR(buf);
	size_t n;

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	n = strnlen(comm, size - 1);
	memcpy(dst, comm, n);
	memset(dst + n, 0, size - n);
	return 0;
}

/* ---- memory probes ---- */

/* Copies size bytes from our own address src; false if any of it is not readable. */
static bool copy_nofault(void *dst, const void *src, size_t size)
{
	struct iovec local = { dst, size }, remote = { (void *)src, size };

	return !size || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

static u64 h_probe_read(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	if (likely(copy_nofault(PTR(dst), PTR(src), (u32)size)))
		return 0;
	memset(PTR(dst), 0, (u32)size);
	return (u64)-EFAULT;
}

/* Copies the NUL-terminated string at src into dst (size > 0 bytes, always terminated), a page
 * at a time so that a string ending just before unmapped memory is still read, and nothing past
 * the NUL (dst beyond it keeps its bytes, as the kernel's byte-wise copy leaves them).  Returns
 * its length with the NUL, or -EFAULT. */
static int copy_str_nofault(char *dst, const char *src, size_t size)
{
	char page[4096];
	size_t done = 0;

	while (done < size - 1) {
		size_t chunk = 4096 - ((uintptr_t)(src + done) & 4095);
		char *nul;

		if (chunk > size - 1 - done)
			chunk = size - 1 - done;
		if (!src || !copy_nofault(page, src + done, chunk))
			return -EFAULT;
		nul = memchr(page, 0, chunk);
		if (nul) {
			memcpy(dst + done, page, (size_t)(nul - page) + 1);
			return (int)(done + (size_t)(nul - page)) + 1;
		}
		memcpy(dst + done, page, chunk);
		done += chunk;
	}
	dst[done] = 0;
	return (int)done + 1;
}

/* bpf_probe_read_str() and its _user / _kernel forms: the string with its NUL (the length
 * returned counts it), or -EFAULT with dst zeroed; size 0 copies nothing and returns 0. */
static u64 h_probe_read_str(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	int n;

	if (!(u32)size)
		return 0;
	n = copy_str_nofault(PTR(dst), PTR(src), (u32)size);
	if (n < 0)
		memset(PTR(dst), 0, (u32)size);
	return (u64)(s64)n;
}

/* ---- trace_printk ---- */

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

static int bprintf(char *out, size_t out_size, const char *fmt, u32 fmt_size, const u64 *args,
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
	int err = bprintf(NULL, 0, fmt, UINT32_MAX, NULL, (int)nargs);

	return err < 0 ? err : 0;
}

static u64 h_trace_printk(u64 fmt, u64 fmt_size, u64 a1, u64 a2, u64 a3)
{
	const u64 args[3] = { a1, a2, a3 };
	char out[PRINTK_BUF];
	int n = bprintf(out, sizeof(out), PTR(fmt), (u32)fmt_size, args, 3);

	if (n < 0)
		return (u64)(s64)n;
	trace_emit(out);
	return (u64)n;
}

#define BPRINTF_VARARGS 12 /* the kernel's MAX_BPRINTF_VARARGS */

/* bpf_trace_vprintk(fmt, fmt_size, data, data_len): trace_printk() with data_len / 8 arguments
 * in an array of u64. */
static u64 h_trace_vprintk(u64 fmt, u64 fmt_size, u64 data, u64 data_len, u64 a5)
{
	char out[PRINTK_BUF];
	int n;

	if ((u32)data_len % 8 || (u32)data_len > BPRINTF_VARARGS * 8 || ((u32)data_len && !data))
		return (u64)-EINVAL;
	n = bprintf(out, sizeof(out), PTR(fmt), (u32)fmt_size, PTR(data), (int)((u32)data_len / 8));
	if (n < 0)
		return (u64)(s64)n;
	trace_emit(out);
	return (u64)n;
}

/* bpf_snprintf(str, str_size, fmt, data, data_len): the output's length with its NUL (as if
 * str_size were unlimited), at most str_size bytes written; fmt is a constant string (the
 * verifier checked it against data_len / 8 arguments). */
static u64 h_snprintf(u64 str, u64 str_size, u64 fmt, u64 data, u64 data_len)
{
	int n;

	if ((u32)data_len % 8 || (u32)data_len > BPRINTF_VARARGS * 8 || ((u32)data_len && !data))
		return (u64)-EINVAL;
	n = bprintf(PTR(str), (u32)str_size, PTR(fmt), UINT32_MAX, PTR(data),
		    (int)((u32)data_len / 8));
	return n < 0 ? (u64)(s64)n : (u64)n + 1;
}

/* ---- packets (socket filters, tc) ---- */

/* bpf_skb_load_bytes(skb, offset, to, len): 0, or -EFAULT with to zeroed when out of bounds. */
static u64 h_skb_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	const struct skb_ctx *c = PTR(ctx);
	u32 offset = (u32)off, n = (u32)len, plen = (u32)(c->data_end - c->data);

	if (offset > INT32_MAX || n > plen || offset > plen - n) {
		memset(PTR(to), 0, n);
		return (u64)-EFAULT;
	}
	memcpy(PTR(to), c->data + offset, n);
	return 0;
}

/* A flow dissector's bpf_skb_load_bytes(): the kernel's reads through the skb being dissected,
 * which its BPF_PROG_TEST_RUN does not have (only the packet's bytes), so there the helper always
 * fails as it does without an skb: -EFAULT, to zeroed.  userbpf runs flow dissectors through
 * the test run only, and does the same.  (Programs read the packet directly.) */
static u64 h_flow_dissector_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	memset(PTR(to), 0, (u32)len);
	return (u64)-EFAULT;
}

/* bpf_skb_store_bytes(skb, offset, from, len, flags).  With BPF_F_RECOMPUTE_CSUM and a
 * CHECKSUM_COMPLETE skb, the checksum is updated for the bytes replaced, as the kernel's
 * postpull/postpush pair does; BPF_F_INVALIDATE_HASH clears a hash we never set. */
static u64 h_skb_store_bytes(u64 ctx, u64 off, u64 from, u64 len, u64 flags)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 offset = (u32)off, n = (u32)len, plen = skb->ctx.uapi.len;
	u8 *p;

	if (flags & ~(u64)(BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH))
		return (u64)-EINVAL;
	if (offset > INT32_MAX || (u64)offset + n > plen)
		return (u64)-EFAULT;
	p = skb->ctx.data + offset;
	if ((flags & BPF_F_RECOMPUTE_CSUM) && skb->csum_complete) {
		/* csum - sum(old bytes) + sum(new bytes); subtracting is adding the complement.
		 * The parity of offset is the bytes' position in their 16-bit words, as for the
		 * kernel (the checksum starts at the network header, an even offset). */
		bool even = !(offset & 1);
		u16 old_sum = csum_fold16(csum_add_bytes(0, p, n, even));
		u16 new_sum = csum_fold16(csum_add_bytes(0, PTR(from), n, even));

		skb->csum = csum_fold16(skb->csum + (u16)~old_sum + new_sum);
	}
	memcpy(p, PTR(from), n);
	if (flags & BPF_F_INVALIDATE_HASH)
		skb->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_skb_load_bytes_relative(skb, offset, to, len, start_header): from the mac or the network
 * header; out of bounds, an unknown start or offset > 0xffff: -EFAULT with to zeroed. */
static u64 h_skb_load_bytes_relative(u64 ctx, u64 off, u64 to, u64 len, u64 start_header)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 offset = (u32)off, n = (u32)len, hdr = (u32)start_header;
	const u8 *start = hdr == BPF_HDR_START_MAC ? skb->mac :
			  hdr == BPF_HDR_START_NET ? skb->net : NULL;

	if (offset > 0xffff || !start || (size_t)(skb->tail - start) < (size_t)offset + n) {
		memset(PTR(to), 0, n);
		return (u64)-EFAULT;
	}
	memcpy(PTR(to), start + offset, n);
	return 0;
}

/* bpf_skb_pull_data(skb, len): the first len bytes (0: the linear part) made direct-access
 * readable and writable; a test run's skb is linear, so it is there unless len passes its end
 * (-ENOMEM, as pskb_may_pull() fails). */
static u64 h_skb_pull_data(u64 ctx, u64 len, u64 a3, u64 a4, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));

	return (u32)len <= skb->ctx.uapi.len ? 0 : (u64)-ENOMEM;
}

/* ---- packet size and metadata (tc) ---- */

#define SKB_MAX_LEN 16064u	/* the kernel's BPF_SKB_MAX_LEN (SKB_MAX_ALLOC, 4 KiB pages) */
#define VLAN_HLEN 4u

/* (prog/run.h) */
int run_skb_room(struct run_skb *skb, u32 head, u32 tail)
{
	size_t hr = (size_t)(skb->ctx.data - skb->head), tr = (size_t)(skb->end - skb->tail);
	size_t more_h = hr < head ? round_up(head - hr, 64) : 0;
	size_t more_t = tr < tail ? round_up(tail - tr, 64) : 0;
	size_t size = (size_t)(skb->end - skb->head);
	ptrdiff_t d;
	u8 *nb;

	if (!more_h && !more_t)
		return 0;
	if (!skb->can_grow)
		return -ENOMEM;
	nb = calloc(1, more_h + size + more_t);
	if (!nb)
		return -ENOMEM;
	memcpy(nb + more_h, skb->head, size);
	d = (nb + more_h) - skb->head;
	free(skb->head);
	skb->head = nb;
	skb->end = nb + more_h + size + more_t;
	skb->tail += d;
	skb->mac += d;
	skb->net += d;
	skb->ctx.data += d;
	skb->ctx.data_end += d;
	skb->ctx.data_meta += d;
	return 0;
}

/* The packet's new extent after a helper moved its start or end (bpf_compute_data_pointers()). */
static void skb_set_data(struct run_skb *skb, u8 *data, u8 *tail)
{
	skb->ctx.data = skb->ctx.data_meta = data;
	skb->ctx.data_end = skb->tail = tail;
	skb->ctx.uapi.len = (u32)(tail - data);
}

/* bpf_skb_change_tail(skb, new_len, flags): grows the packet with zeroes or cuts it, not below
 * the network header; the checksum is no longer CHECKSUM_COMPLETE (but a test run with
 * BPF_F_TEST_SKB_CHECKSUM_COMPLETE still compares the stale sum, as the kernel's does). */
static u64 h_skb_change_tail(u64 ctx, u64 new_len, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 len = skb->ctx.uapi.len, n = (u32)new_len;
	u32 min = skb->net > skb->ctx.data ? (u32)(skb->net - skb->ctx.data) : 0;
	int err;

	if (flags || n > SKB_MAX_LEN || n < min)
		return (u64)-EINVAL;
	if (skb->encapsulation)
		return (u64)-ENOTSUPP;
	if (n > len) {
		err = run_skb_room(skb, 0, n - len);
		if (err)
			return (u64)(s64)err;
		memset(skb->tail, 0, n - len);
	}
	if (n != len)
		skb->csum_complete = false;
	skb_set_data(skb, skb->ctx.data, skb->ctx.data + n);
	return 0;
}

/* bpf_skb_change_head(skb, head_room, flags): head_room zero bytes pushed in front, which
 * become the mac header (the network header stays where it was). */
static u64 h_skb_change_head(u64 ctx, u64 head_room, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 len = skb->ctx.uapi.len, room = (u32)head_room, n = len + room;
	int err;

	if (flags || n > SKB_MAX_LEN || n < len)
		return (u64)-EINVAL;
	err = run_skb_room(skb, room, 0);
	if (err)
		return (u64)(s64)err;
	memset(skb->ctx.data - room, 0, room);
	skb->mac = skb->ctx.data - room;
	skb_set_data(skb, skb->ctx.data - room, skb->tail);
	return 0;
}

/* 6.18's flags of bpf_skb_adjust_room() that our uapi header may lack */
#define ADJ_ROOM_DECAP_L3_IPV4 (1ull << 7)
#define ADJ_ROOM_DECAP_L3_IPV6 (1ull << 8)
#define ADJ_ROOM_DECAP_L3_MASK (ADJ_ROOM_DECAP_L3_IPV4 | ADJ_ROOM_DECAP_L3_IPV6)
#define ADJ_ROOM_ENCAP_L3_MASK (BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 | BPF_F_ADJ_ROOM_ENCAP_L3_IPV6)
#define ADJ_ROOM_MASK                                                                            \
	(BPF_F_ADJ_ROOM_FIXED_GSO | ADJ_ROOM_ENCAP_L3_MASK | BPF_F_ADJ_ROOM_ENCAP_L4_GRE |         \
	 BPF_F_ADJ_ROOM_ENCAP_L4_UDP | BPF_F_ADJ_ROOM_ENCAP_L2_ETH |                              \
	 BPF_F_ADJ_ROOM_ENCAP_L2(BPF_ADJ_ROOM_ENCAP_L2_MASK) | ADJ_ROOM_DECAP_L3_MASK)

/* The encapsulation a growing bpf_skb_adjust_room() asks for, checked as the kernel's
 * bpf_skb_net_grow() does before it moves anything: 0, or the error. */
static int adjust_room_encap_check(const struct run_skb *skb, u32 diff, u64 flags)
{
	u8 inner_mac_len = (u8)(flags >> BPF_ADJ_ROOM_ENCAP_L2_SHIFT);

	if ((flags & ADJ_ROOM_ENCAP_L3_MASK) == ADJ_ROOM_ENCAP_L3_MASK)
		return -EINVAL;
	if ((flags & BPF_F_ADJ_ROOM_ENCAP_L4_GRE) && (flags & BPF_F_ADJ_ROOM_ENCAP_L4_UDP))
		return -EINVAL;
	if ((flags & BPF_F_ADJ_ROOM_ENCAP_L2_ETH) && inner_mac_len < ETH_HLEN)
		return -EINVAL;
	if (skb->encapsulation)
		return -EALREADY;
	if (inner_mac_len > diff)
		return -EINVAL;
	return 0;
}

/* bpf_skb_adjust_room(skb, len_diff, mode, flags): len_diff zero bytes inserted (or bytes
 * removed) after the mac header (BPF_ADJ_ROOM_MAC) or after the IPv4/IPv6 header
 * (BPF_ADJ_ROOM_NET), the headers before them moved along; with the encapsulation flags the
 * skb becomes an encapsulation (and its protocol the outer one's), with the decapsulation
 * flags (shrinking) the protocol becomes the inner one's. */
static u64 h_skb_adjust_room(u64 ctx, u64 len_diff, u64 mode, u64 flags, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	s32 diff = (s32)len_diff;
	u32 abs_diff = diff < 0 ? -(u32)diff : (u32)diff;
	u16 proto = (u16)skb->ctx.uapi.protocol;
	u32 base = proto == htons(ETH_P_IP) ? 20 : 40, off, len_cur;
	u8 *d = skb->ctx.data;
	bool shrink = diff < 0;
	int err;

	if (flags & ~(ADJ_ROOM_MASK | BPF_F_ADJ_ROOM_NO_CSUM_RESET))
		return (u64)-EINVAL;
	if (abs_diff > 0xfff)
		return (u64)-EFAULT;
	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return (u64)-ENOTSUPP;
	off = (u32)(skb->net - skb->mac);
	if ((u32)mode == BPF_ADJ_ROOM_NET)
		off += base;
	else if ((u32)mode != BPF_ADJ_ROOM_MAC)
		return (u64)-ENOTSUPP;
	len_cur = skb->ctx.uapi.len - (u32)(skb->net - d);
	if (shrink ? abs_diff >= len_cur || len_cur - abs_diff < base
		   : skb->ctx.uapi.len + abs_diff > SKB_MAX_LEN)
		return (u64)-ENOTSUPP;
	if (shrink) {
		if (flags & ~(BPF_F_ADJ_ROOM_FIXED_GSO | ADJ_ROOM_DECAP_L3_MASK |
			      BPF_F_ADJ_ROOM_NO_CSUM_RESET))
			return (u64)-EINVAL;
		if ((flags & ADJ_ROOM_DECAP_L3_MASK) == ADJ_ROOM_DECAP_L3_MASK)
			return (u64)-EINVAL;
		if (off + abs_diff > skb->ctx.uapi.len)
			return (u64)-ENOMEM;
		if (skb->csum_complete) /* skb_postpull_rcsum() of the removed bytes */
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, d + off, abs_diff,
										 true)));
		memmove(d + abs_diff, d, off);
		skb->mac += abs_diff;
		skb->net += abs_diff;
		skb_set_data(skb, d + abs_diff, skb->tail);
		if (proto == htons(ETH_P_IP) && (flags & ADJ_ROOM_DECAP_L3_IPV6))
			skb->ctx.uapi.protocol = htons(ETH_P_IPV6);
		else if (proto == htons(ETH_P_IPV6) && (flags & ADJ_ROOM_DECAP_L3_IPV4))
			skb->ctx.uapi.protocol = htons(ETH_P_IP);
		goto done;
	}
	if (flags & ADJ_ROOM_ENCAP_L3_MASK) {
		err = adjust_room_encap_check(skb, abs_diff, flags);
		if (err)
			return (u64)(s64)err;
	}
	err = run_skb_room(skb, abs_diff, 0);
	if (err)
		return (u64)(s64)err;
	d = skb->ctx.data - abs_diff;
	memmove(d, d + abs_diff, off);
	memset(d + off, 0, abs_diff); /* (zeroes: a COMPLETE checksum stays right) */
	skb->mac -= abs_diff;
	skb->net -= abs_diff;
	skb_set_data(skb, d, skb->tail);
	if (flags & ADJ_ROOM_ENCAP_L3_MASK) {
		skb->encapsulation = true;
		if (proto == htons(ETH_P_IP) && (flags & BPF_F_ADJ_ROOM_ENCAP_L3_IPV6))
			skb->ctx.uapi.protocol = htons(ETH_P_IPV6);
		else if (proto == htons(ETH_P_IPV6) && (flags & BPF_F_ADJ_ROOM_ENCAP_L3_IPV4))
			skb->ctx.uapi.protocol = htons(ETH_P_IP);
	}
done:
	if (!(flags & BPF_F_ADJ_ROOM_NO_CSUM_RESET)) /* __skb_reset_checksum_unnecessary() */
		skb->csum_unnecessary = false, skb->csum_level = 0;
	return 0;
}

/* bpf_skb_change_proto(skb, proto, flags): IPv4 to IPv6 makes 20 bytes of room after the mac
 * header, IPv6 to IPv4 removes 20 there (the program writes the new header); the hash is
 * cleared. */
static u64 h_skb_change_proto(u64 ctx, u64 proto, u64 flags, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 from = (u16)skb->ctx.uapi.protocol, to = (u16)proto;
	u32 off = (u32)(skb->net - skb->mac), diff = 20;
	u8 *d = skb->ctx.data;
	int err;

	if (flags)
		return (u64)-EINVAL;
	if (from == htons(ETH_P_IP) && to == htons(ETH_P_IPV6)) {
		err = run_skb_room(skb, diff, 0);
		if (err)
			return (u64)(s64)err;
		d = skb->ctx.data - diff;
		memmove(d, d + diff, off);
		memset(d + off, 0, diff);
		skb->mac -= diff;
		skb->net -= diff;
	} else if (from == htons(ETH_P_IPV6) && to == htons(ETH_P_IP)) {
		if (off + diff > skb->ctx.uapi.len)
			return (u64)-ENOMEM;
		if (skb->csum_complete)
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, d + off, diff,
										 true)));
		memmove(d + diff, d, off);
		d += diff;
		skb->mac += diff;
		skb->net += diff;
	} else {
		return (u64)-ENOTSUPP;
	}
	skb_set_data(skb, d, skb->tail);
	skb->ctx.uapi.protocol = to;
	skb->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_csum_level(skb, level): the CHECKSUM_UNNECESSARY depth, as the kernel's
 * __skb_{incr,decr,reset}_checksum_unnecessary() change it; QUERY reads it (-EACCES when the
 * checksum is not "unnecessary"). */
static u64 h_csum_level(u64 ctx, u64 level, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));

	switch (level) {
	case BPF_CSUM_LEVEL_INC:
		if (skb->csum_unnecessary) {
			if (skb->csum_level < 3) /* SKB_MAX_CSUM_LEVEL */
				skb->csum_level++;
		} else if (!skb->csum_complete) {
			skb->csum_unnecessary = true;
			skb->csum_level = 0;
		}
		return 0;
	case BPF_CSUM_LEVEL_DEC:
		if (skb->csum_unnecessary) {
			if (!skb->csum_level)
				skb->csum_unnecessary = false;
			else
				skb->csum_level--;
		}
		return 0;
	case BPF_CSUM_LEVEL_RESET:
		skb->csum_unnecessary = false;
		skb->csum_level = 0;
		return 0;
	case BPF_CSUM_LEVEL_QUERY:
		return skb->csum_unnecessary ? skb->csum_level : (u64)-EACCES;
	default:
		return (u64)-EINVAL;
	}
}

static bool eth_type_vlan(u16 proto_be)
{
	return proto_be == htons(ETH_P_8021Q) || proto_be == htons(ETH_P_8021AD);
}

/* The kernel's __skb_vlan_pop(): the VLAN header after the MAC addresses leaves the payload;
 * *tci its TCI, skb->protocol what it encapsulated. */
static int skb_vlan_pop_payload(struct run_skb *skb, u16 *tci)
{
	u8 *d = skb->ctx.data;
	u16 proto, raw;

	if (d != skb->mac)
		return -EINVAL;
	if (skb->ctx.uapi.len < ETH_HLEN + VLAN_HLEN)
		return -ENOMEM;
	if (skb->csum_complete) /* the kernel's skb_postpull_rcsum() of the 4 bytes */
		skb->csum = csum_fold16(skb->csum +
					(u16)~csum_fold16(csum_add_bytes(0, d + 2 * ETH_ALEN,
									 VLAN_HLEN, true)));
	*tci = (u16)(d[14] << 8 | d[15]);
	memcpy(&proto, d + 16, 2);
	if (ntohs(proto) >= ETH_P_802_3_MIN) {
		skb->ctx.uapi.protocol = proto;
	} else {
		memcpy(&raw, d + 18, 2);
		skb->ctx.uapi.protocol = htons(raw == 0xffff ? ETH_P_802_3 : ETH_P_802_2);
	}
	memmove(d + VLAN_HLEN, d, 2 * ETH_ALEN);
	skb->mac = d + VLAN_HLEN;
	if (skb->net < skb->mac + ETH_HLEN)
		skb->net = skb->mac + ETH_HLEN;
	skb_set_data(skb, d + VLAN_HLEN, skb->tail);
	return 0;
}

/* bpf_skb_vlan_push(skb, proto, tci): the tag goes to the skb's metadata (vlan_present,
 * vlan_tci, vlan_proto); one already there moves into the payload first. */
static u64 h_skb_vlan_push(u64 ctx, u64 proto, u64 tci, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 p = (u16)proto;

	if (!eth_type_vlan(p))
		p = htons(ETH_P_8021Q);
	if (skb->ctx.uapi.vlan_present) {
		u16 old_proto = (u16)skb->ctx.uapi.vlan_proto, old_tci = htons(
			(u16)skb->ctx.uapi.vlan_tci);
		u8 *d;

		if (skb->ctx.data != skb->mac)
			return (u64)-EINVAL;
		if (run_skb_room(skb, VLAN_HLEN, 0))
			return (u64)-ENOMEM;
		d = skb->ctx.data - VLAN_HLEN;
		memmove(d, d + VLAN_HLEN, 2 * ETH_ALEN);
		memcpy(d + 12, &old_proto, 2);
		memcpy(d + 14, &old_tci, 2);
		skb->mac = d;
		skb->ctx.uapi.protocol = old_proto;
		if (skb->csum_complete) /* skb_postpush_rcsum() */
			skb->csum = csum_add_bytes(skb->csum, d + 2 * ETH_ALEN, VLAN_HLEN, true);
		skb_set_data(skb, d, skb->tail);
	}
	skb->ctx.uapi.vlan_present = 1;
	skb->ctx.uapi.vlan_tci = (u16)tci;
	skb->ctx.uapi.vlan_proto = p;
	return 0;
}

/* bpf_skb_vlan_pop(skb): the metadata's tag goes, else the payload's first; then a tag left in
 * the payload moves to the metadata (the kernel's skb_vlan_pop()). */
static u64 h_skb_vlan_pop(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 tci, proto;
	int err;

	if (skb->ctx.uapi.vlan_present) {
		skb->ctx.uapi.vlan_present = 0;
		skb->ctx.uapi.vlan_tci = 0;
		skb->ctx.uapi.vlan_proto = 0;
	} else {
		if (!eth_type_vlan((u16)skb->ctx.uapi.protocol))
			return 0;
		err = skb_vlan_pop_payload(skb, &tci);
		if (err)
			return (u64)(s64)err;
	}
	proto = (u16)skb->ctx.uapi.protocol;
	if (!eth_type_vlan(proto))
		return 0;
	err = skb_vlan_pop_payload(skb, &tci);
	if (err)
		return (u64)(s64)err;
	skb->ctx.uapi.vlan_present = 1;
	skb->ctx.uapi.vlan_tci = tci;
	skb->ctx.uapi.vlan_proto = proto;
	return 0;
}

/* bpf_get_hash_recalc(skb): the packet's flow hash, computed once (then kept in skb->hash, where
 * bpf_set_hash() may have put one): a jhash of the IPv4/IPv6 addresses, protocol and ports
 * under a random seed, never 0, as the kernel's flow dissector hash is.  Its values are not
 * the kernel's, whose seed is its own: only its properties are (stable for a flow, nonzero). */
static u64 h_get_hash_recalc(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	static u32 seed;
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;
	const u8 *ip = skb->net;
	u32 keys[10] = { 0 }, h, s = __atomic_load_n(&seed, __ATOMIC_RELAXED);
	size_t l4 = 0;

	if (skb->ctx.uapi.hash)
		return skb->ctx.uapi.hash;
	while (!s) {
		if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
			s = (u32)clock_ns(CLOCK_MONOTONIC) | 1;
		__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	}
	if (proto == htons(ETH_P_IP) && ip + 20 <= skb->tail) {
		memcpy(keys, ip + 12, 8);
		keys[8] = ip[9];
		l4 = (size_t)(ip[0] & 15) * 4;
	} else if (proto == htons(ETH_P_IPV6) && ip + 40 <= skb->tail) {
		memcpy(keys, ip + 8, 32);
		keys[8] = ip[6];
		l4 = 40;
	}
	if (l4 && (keys[8] == IPPROTO_TCP || keys[8] == IPPROTO_UDP) && ip + l4 + 4 <= skb->tail)
		memcpy(&keys[9], ip + l4, 4);
	h = jhash(keys, sizeof(keys), s);
	skb->ctx.uapi.hash = h ? h : 1;
	return skb->ctx.uapi.hash;
}

/* bpf_set_hash(skb, hash), bpf_set_hash_invalid(skb): skb->hash, as a software L4 hash. */
static u64 h_set_hash(u64 ctx, u64 hash, u64 a3, u64 a4, u64 a5)
{
	run_skb_of(PTR(ctx))->ctx.uapi.hash = (u32)hash;
	return 0;
}

static u64 h_set_hash_invalid(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	run_skb_of(PTR(ctx))->ctx.uapi.hash = 0;
	return 0;
}

/* bpf_skb_change_type(skb, type): between host, broadcast, multicast and other host only. */
static u64 h_skb_change_type(u64 ctx, u64 type, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));

	if (skb->ctx.uapi.pkt_type > PACKET_OTHERHOST || (u32)type > PACKET_OTHERHOST)
		return (u64)-EINVAL;
	skb->ctx.uapi.pkt_type = (u32)type;
	return 0;
}

/* ---- cgroups and network namespaces ---- */

/* The calling thread's cgroup (v2) id, or its ancestor's at level (-1: the cgroup itself; 0 is
 * the root, whose id is 1): the kernel's id is the cgroup directory's inode number in the
 * cgroup2 file system, which /proc/thread-self/cgroup and the cgroup2 mount lead to.  0 when the
 * level is deeper than the cgroup, or when no cgroup2 mount shows the cgroup (only the root's id
 * is known then). */
static u64 current_cgroup_id(int level)
{
	char line[4096], path[4096 + 256], mnt[1024] = "", root[1024] = "";
	const char *rel;
	struct stat st;
	FILE *f;
	int depth = 0, n;
	size_t len;

	f = fopen("/proc/thread-self/cgroup", "re");
	if (!f)
		return 0;
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
		line[0] = 0;
	fclose(f);
	if (strncmp(line, "0::/", 4))
		return 0;
	len = strcspn(line + 3, "\n");
	line[3 + len] = 0;
	rel = line + 3; /* "/a/b" */
	/* the ancestor at level: the path's first level components */
	for (const char *p = rel + 1; *p; p++)
		if (*p == '/')
			depth++;
	if (rel[1])
		depth++;
	if (level > depth)
		return 0;
	if (level >= 0) {
		char *p = line + 3;

		for (n = 0; n < level && p; n++)
			p = strchr(p + 1, '/');
		if (level == 0)
			line[4] = 0; /* "/" */
		else if (p)
			*p = 0; /* "/a/b/c" at level 2: "/a/b" */
	}
	if (!strcmp(rel, "/"))
		return 1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (fgets(path, sizeof(path), f)) {
		char r[1024], m[1024], *dash = strstr(path, " - ");

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(path, "%*s %*s %*s %1023s %1023s", r, m) != 2)
			continue;
		strcpy(root, r);
		strcpy(mnt, m);
		break;
	}
	fclose(f);
	if (!mnt[0])
		return 0;
	/* the mount shows the hierarchy from its root (a cgroup namespace's, say) */
	len = strcmp(root, "/") ? strlen(root) : 0;
	if (len && (strncmp(rel, root, len) || (rel[len] && rel[len] != '/')))
		return 0;
	snprintf(path, sizeof(path), "%s%s", mnt, rel + len);
	return stat(path, &st) ? 0 : (u64)st.st_ino;
}

/* bpf_current_task_under_cgroup(map, idx), bpf_skb_under_cgroup(skb, map, idx): 1 when the
 * calling thread's cgroup (which a test run's dummy socket belongs to) is the cgroup array's
 * cgroup at idx or below it, else 0; E2BIG, EAGAIN (cgroup_array.h).  A cgroup is under C
 * exactly when its ancestor at C's level is C. */
static u64 under_cgroup(u64 map, u64 idx)
{
	u64 id;
	int level, err = cgroup_array_get(PTR(map), (u32)idx, &id, &level);

	if (err)
		return (u64)(s64)err;
	return current_cgroup_id(level) == id;
}

static u64 h_current_task_under_cgroup(u64 map, u64 idx, u64 a3, u64 a4, u64 a5)
{
	return under_cgroup(map, idx);
}

static u64 h_skb_under_cgroup(u64 ctx, u64 map, u64 idx, u64 a4, u64 a5)
{
	return under_cgroup(map, idx);
}

/* bpf_get_stackid(ctx, map, flags), bpf_get_stack(ctx, buf, size, flags): a program here runs
 * in user space, with no kernel call chain to record (nor a user one the kernel would see), so
 * both answer as the kernel's do without a call chain, -EFAULT (get_stack zeroing buf), after
 * the kernel's checks of their flags (-EINVAL). */
#define STACK_SKIP_MASK 0xffull /* BPF_F_SKIP_FIELD_MASK */
static u64 h_get_stackid(u64 ctx, u64 map, u64 flags, u64 a4, u64 a5)
{
	if (flags & ~(STACK_SKIP_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
		      BPF_F_REUSE_STACKID))
		return (u64)-EINVAL;
	return (u64)-EFAULT;
}

static u64 h_get_stack(u64 ctx, u64 buf, u64 size, u64 flags, u64 a5)
{
	bool user = flags & BPF_F_USER_STACK, build_id = flags & BPF_F_USER_BUILD_ID;
	u64 err = (u64)-EFAULT;

	if ((flags & ~(STACK_SKIP_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)) ||
	    (!user && build_id) || size % (build_id ? 32 : 8))
		err = (u64)-EINVAL;
	memset(PTR(buf), 0, (u32)size);
	return err;
}

/* bpf_sk_storage_get(map, sk, value, flags), bpf_sk_storage_delete(map, sk): the storage of
 * a test run's dummy socket (__sk_buff.sk), which goes with the run, or of a kernel socket a
 * lookup found, which the map keeps (src/map/sk_storage.c).  flags: BPF_SK_STORAGE_GET_F_CREATE
 * or 0, else NULL; a socket that is not a full one (time-wait) has none. */
static u64 h_sk_storage_get(u64 map, u64 sk, u64 value, u64 flags, u64 a5)
{
	struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;
	bool create = flags == BPF_SK_STORAGE_GET_F_CREATE;

	if (!ps || flags > BPF_SK_STORAGE_GET_F_CREATE || !prog_sock_is_full(ps))
		return 0;
	if (ps->cookie)
		return (u64)(uintptr_t)sk_storage_sock_get(PTR(map), ps->cookie, PTR(value), create);
	return (u64)(uintptr_t)sk_storage_get(&ps->storage, PTR(map), PTR(value), create);
}

static u64 h_sk_storage_delete(u64 map, u64 sk, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;

	if (!ps || !prog_sock_is_full(ps))
		return (u64)-EINVAL;
	if (ps->cookie)
		return (u64)(s64)sk_storage_sock_delete(PTR(map), ps->cookie);
	return (u64)(s64)sk_storage_delete(&ps->storage, PTR(map));
}

/* bpf_sk_lookup_tcp(), bpf_sk_lookup_udp(), bpf_skc_lookup_tcp() (ctx, tuple, tuple_size,
 * netns_id, flags): a kernel socket of the runner's network namespace, found as the kernel's
 * lookup finds it (src/exec/sock_lookup.c), seen from the packet's device: a test run's skb
 * arrives on __sk_buff.ifindex, an XDP frame on its ingress_ifindex (whose helpers take a
 * 32-bit netns_id).  A cgroup sock_addr program's (which never runs here) from no device. */
static u64 skb_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	u32 ifindex = ((const struct skb_ctx *)PTR(ctx))->uapi.ifindex;

	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, false, flags,
					   ifindex, full);
}

/* The three lookups of each context (tcp, udp, skc) over its lookup function. */
#define SK_LOOKUP_HELPERS(prefix, lookup)                                                          \
	static u64 prefix##sk_lookup_tcp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)       \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_TCP, true);                   \
	}                                                                                          \
	static u64 prefix##sk_lookup_udp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)       \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_UDP, true);                   \
	}                                                                                          \
	static u64 prefix##skc_lookup_tcp(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags)      \
	{                                                                                          \
		return lookup(ctx, tuple, len, netns, flags, IPPROTO_TCP, false);                  \
	}

SK_LOOKUP_HELPERS(h_, skb_lookup)

static u64 xdp_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	u32 ifindex = ((const struct xdp_ctx *)PTR(ctx))->uapi.ingress_ifindex;

	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, true, flags,
					   ifindex, full);
}

SK_LOOKUP_HELPERS(h_xdp_, xdp_lookup)

static u64 sa_lookup(u64 ctx, u64 tuple, u64 len, u64 netns, u64 flags, u8 proto, bool full)
{
	return (u64)(uintptr_t)sock_lookup(proto, PTR(tuple), (u32)len, netns, false, flags, 0,
					   full);
}

SK_LOOKUP_HELPERS(h_sa_, sa_lookup)

/* bpf_sk_release(sk): the socket stays until the run ends (sock_lookup_run_end()), as a
 * kernel socket stays for an RCU grace period; the verifier has seen to the reference. */
static u64 h_sk_release(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* bpf_sk_assign(ctx, sk, flags) in tc: the socket the packet is to be delivered to, which only
 * tc ingress may choose; a test run is not at ingress, so it is -EOPNOTSUPP there as in the
 * kernel (-EINVAL for flags). */
static u64 h_sk_assign(u64 ctx, u64 sk, u64 flags, u64 a4, u64 a5)
{
	return flags ? (u64)-EINVAL : (u64)-EOPNOTSUPP;
}

/* bpf_sk_assign(ctx, sk, flags) in a socket lookup program (the kernel's
 * bpf_sk_lookup_assign()): selects sk (NULL: none) as the lookup's result, ctx->sk, after the
 * kernel's checks: not a reference-counted socket (only TCP listeners and UDP sockets are freed
 * after an RCU grace period instead), a listening TCP or unconnected UDP one, of the
 * connection's protocol and family (an IPv6 socket that is not v6-only takes IPv4 too), and
 * none selected before unless BPF_SK_LOOKUP_F_REPLACE. */
static u64 h_sk_lookup_assign(u64 ctx, u64 sk, u64 flags, u64 a4, u64 a5)
{
	struct sk_lookup_run *run = PTR(ctx);
	struct bpf_sk_lookup *c = &run->ctx;
	const struct prog_sock *ps = sk ? prog_sock_of(sk) : NULL;
	const struct bpf_sock *s = ps ? &ps->sk : NULL;
	bool inet = s && (s->family == AF_INET || s->family == AF_INET6);
	bool rcu_freed = inet && ((s->protocol == IPPROTO_TCP && s->state == SK_LISTEN) ||
				  s->protocol == IPPROTO_UDP);

	if (flags & ~(u64)(BPF_SK_LOOKUP_F_REPLACE | BPF_SK_LOOKUP_F_NO_REUSEPORT))
		return (u64)-EINVAL;
	if (s && (!rcu_freed || (s->protocol == IPPROTO_UDP && s->state != SK_CLOSE)))
		return (u64)-ESOCKTNOSUPPORT;
	if (s && s->protocol != c->protocol)
		return (u64)-EPROTOTYPE;
	if (s && s->family != c->family && (s->family == AF_INET || ps->v6only))
		return (u64)-EAFNOSUPPORT;
	if (c->sk && !(flags & BPF_SK_LOOKUP_F_REPLACE))
		return (u64)-EEXIST;
	c->sk = (struct bpf_sock *)(uintptr_t)sk;
	run->no_reuseport = flags & BPF_SK_LOOKUP_F_NO_REUSEPORT;
	return 0;
}

/* bpf_get_listener_sock(sk): sk when it listens (a TCP socket; the dummy socket of a test
 * run is closed), else NULL.  (These return the socket's struct bpf_sock whichever view they
 * were given.) */
static u64 h_get_listener_sock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return ps->sk.state == SK_LISTEN ? (u64)(uintptr_t)&ps->sk : 0;
}

/* bpf_get_local_storage(map, flags): the run's storage of a cgroup storage map; flags are 0
 * (the verifier's). */
static u64 h_get_local_storage(u64 map, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return (u64)(uintptr_t)cgroup_storage_get(PTR(map));
}

static u64 h_get_current_cgroup_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_cgroup_id(-1);
}

static u64 h_get_current_ancestor_cgroup_id(u64 level, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return level > INT32_MAX ? 0 : current_cgroup_id((int)level);
}

/* bpf_skb_cgroup_id(skb), bpf_skb_ancestor_cgroup_id(skb, level): the cgroup of the packet's
 * socket, which for a test run's dummy socket is the cgroup of whoever runs it. */
static u64 h_skb_cgroup_id(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_cgroup_id(-1);
}

/* bpf_sk_fullsock(sk): the socket when it is a full one, as a test run's dummy socket is (a
 * time-wait socket a lookup found is not). */
static u64 h_sk_fullsock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return prog_sock_is_full(ps) ? (u64)(uintptr_t)&ps->sk : 0;
}

/* bpf_tcp_sock(sk): a full TCP socket's struct bpf_tcp_sock (a socket a lookup found; not a
 * test run's dummy socket, which has no protocol), else NULL. */
static u64 h_tcp_sock(u64 sk, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct prog_sock *ps = prog_sock_of(sk);

	return prog_sock_is_full(ps) && ps->sk.protocol == IPPROTO_TCP ? (u64)(uintptr_t)&ps->tcp : 0;
}

static u64 h_skb_ancestor_cgroup_id(u64 ctx, u64 level, u64 a3, u64 a4, u64 a5)
{
	return level > INT32_MAX ? 0 : current_cgroup_id((int)level);
}

/* bpf_get_netns_cookie(ctx or NULL): the cookie of the packet's socket's network namespace
 * (the runner's, for a test run's dummy socket), which SO_NETNS_COOKIE tells user space; NULL
 * asks for the initial namespace's, known only when we run in it (else 0). */
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
/* Whether we run in the initial network namespace (whose /proc inode is PROC_NET_INIT_INO). */
static bool in_init_netns(void)
{
	struct stat st;

	return !stat("/proc/self/ns/net", &st) && st.st_ino == 0xeffffff9u;
}

static u64 h_get_netns_cookie(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	u64 cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	close(fd);
	return ctx || in_init_netns() ? cookie : 0;
}

/* The socket helpers on an skb.  A test run's skb belongs to a dummy socket, as the kernel's
 * (uid 0, whoever runs it); its cookie is drawn when first asked, from a process-wide counter
 * (the kernel's is system-wide, so only "nonzero, stable within a run" is portable). */
static u64 h_get_socket_cookie(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	static u64 last_cookie;
	struct run_skb *skb = run_skb_of(PTR(ctx));

	if (!skb->sock_cookie)
		skb->sock_cookie = __atomic_add_fetch(&last_cookie, 1, __ATOMIC_RELAXED);
	return skb->sock_cookie;
}

static u64 h_get_socket_uid(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* 0: no route's realm; and the helpers of the cgroup hooks userbpf verifies but never runs. */
static u64 h_zero(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* The calling thread's net_cls class id: its cgroup v1 net_cls controller's net_cls.classid
 * (the kernel's task_get_classid(), which a test run's dummy socket also takes); 0 where no
 * net_cls hierarchy is mounted (cgroup v2 hosts). */
static u32 net_cls_classid(void)
{
	char line[4096], path[4096 + 1100], mnt[1024] = "", cg[4096] = "";
	unsigned long id = 0;
	FILE *f = fopen("/proc/thread-self/cgroup", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *p;

		if (!ctl || !(p = strchr(ctl + 1, ':')))
			continue;
		*p = 0;
		/* "N:net_cls,net_prio:/path" */
		for (char *tok = strtok(ctl + 1, ","); tok; tok = strtok(NULL, ","))
			if (!strcmp(tok, "net_cls"))
				snprintf(cg, sizeof(cg), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	}
	if (f)
		fclose(f);
	if (!cg[0])
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	while (f && fgets(path, sizeof(path), f)) {
		char m[1024], opts[1024], *dash = strstr(path, " - ");

		if (dash && sscanf(dash + 3, "cgroup %*s %1023s", opts) == 1 &&
		    (strstr(opts, ",net_cls") || !strncmp(opts, "net_cls", 7)) &&
		    sscanf(path, "%*s %*s %*s %*s %1023s", m) == 1) {
			strcpy(mnt, m);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!mnt[0])
		return 0;
	snprintf(path, sizeof(path), "%s%s/net_cls.classid", mnt, cg);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%lu", &id) != 1)
			id = 0;
		fclose(f);
	}
	return (u32)id;
}

static u64 h_cgroup_classid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return net_cls_classid();
}

/* bpf_skb_ecn_set_ce(skb): an ECN-capable IPv4 or IPv6 packet is marked Congestion
 * Experienced (the IPv4 checksum and a COMPLETE checksum follow): 1, or 1 if it already was;
 * 0 for a packet that is not ECN-capable or not IP. */
static u64 h_skb_ecn_set_ce(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;
	u8 *ip = skb->net;

	if (proto == htons(ETH_P_IP) && ip + 20 <= skb->tail) {
		u32 ecn = (u32)(ip[1] + 1) & 3;
		u16 check, add;

		if (!(ecn & 2))
			return !ecn;
		/* the kernel's csum16_add() of htons(0xfffb) + htons(ecn), on the raw field */
		memcpy(&check, ip + 10, 2);
		add = (u16)(htons(0xfffb) + htons((u16)ecn));
		check = (u16)(check + add);
		check = (u16)(check + (check < add));
		memcpy(ip + 10, &check, 2);
		ip[1] |= 3;
		return 1;
	}
	if (proto == htons(ETH_P_IPV6) && ip + 40 <= skb->tail) {
		u8 before[4];

		if (!(((ip[0] << 4 | ip[1] >> 4) & 0xff) & 3))
			return 0;
		memcpy(before, ip, 4);
		ip[1] |= 3 << 4;
		if (skb->csum_complete)
			skb->csum = csum_fold16(skb->csum +
						(u16)~csum_fold16(csum_add_bytes(0, before, 4, true)) +
						csum_fold16(csum_add_bytes(0, ip, 4, true)));
		return 1;
	}
	return 0;
}

/* bpf_clone_redirect(skb, ifindex, flags): a copy of the packet to a device's egress (or, with
 * BPF_F_INGRESS, ingress).  A test run sends nothing: the device must exist (-EINVAL) and be up
 * (-ENETDOWN), as the kernel checks before sending. */
static u64 h_clone_redirect(u64 ctx, u64 ifindex, u64 flags, u64 a4, u64 a5)
{
	char name[IF_NAMESIZE];
	struct ifreq ifr;
	int fd, up;

	if (flags & ~(u64)BPF_F_INGRESS)
		return (u64)-EINVAL;
	if (!if_indextoname((u32)ifindex, name))
		return (u64)-EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	up = fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP);
	if (fd >= 0)
		close(fd);
	return up ? 0 : (u64)-ENETDOWN;
}

/* bpf_skb_get_xfrm_state(skb, index, to, size, flags): a test run's packet has no IPsec
 * state: -EINVAL, to zeroed. */
static u64 h_skb_get_xfrm_state(u64 ctx, u64 index, u64 to, u64 size, u64 flags)
{
	memset(PTR(to), 0, (u32)size);
	return (u64)-EINVAL;
}

/* ---- tunnel metadata (tc) ---- */

/* The kernel's legacy TUNNEL_* flags (host order; bpf_tunnel_key.tunnel_flags is their __be16) */
#define TUNNEL_CSUM 0x0001
#define TUNNEL_KEY 0x0004
#define TUNNEL_SEQ 0x0008
#define TUNNEL_DONT_FRAGMENT 0x0100
#define TUNNEL_OPTIONS_PRESENT 0xd800 /* GENEVE, VXLAN, ERSPAN and GTP options */
#define TUNNEL_NOCACHE 0x2000
#define TUNNEL_KEY_SIZE sizeof(struct bpf_tunnel_key)

/* The sizes of older struct bpf_tunnel_key layouts the kernel still takes. */
static bool tunnel_key_compat_size(u32 size)
{
	return size == offsetof(struct bpf_tunnel_key, local_ipv6[0]) ||
	       size == offsetof(struct bpf_tunnel_key, tunnel_label) ||
	       size == offsetof(struct bpf_tunnel_key, tunnel_ext) ||
	       size == offsetof(struct bpf_tunnel_key, remote_ipv6[1]);
}

/* bpf_skb_set_tunnel_key(skb, from, size, flags): the packet gets transmit tunnel metadata:
 * id, tos, ttl, remote and local addresses (IPv4, or IPv6 with a flow label), flags. */
static u64 h_skb_set_tunnel_key(u64 ctx, u64 from, u64 size, u64 flags, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	struct bpf_tunnel_key k = { 0 };
	u32 n = (u32)size;

	if (flags & ~(u64)(BPF_F_TUNINFO_IPV6 | BPF_F_ZERO_CSUM_TX | BPF_F_DONT_FRAGMENT |
			   BPF_F_SEQ_NUMBER))
		return (u64)-EINVAL;
	if (n != TUNNEL_KEY_SIZE && !tunnel_key_compat_size(n))
		return (u64)-EINVAL;
	memcpy(&k, PTR(from), n);
	if ((!(flags & BPF_F_TUNINFO_IPV6) && k.tunnel_label) || k.tunnel_ext)
		return (u64)-EINVAL;
	memset(&skb->tun, 0, sizeof(skb->tun));
	skb->tun.set = true;
	skb->tun.flags = TUNNEL_KEY | TUNNEL_CSUM | TUNNEL_NOCACHE;
	if (flags & BPF_F_DONT_FRAGMENT)
		skb->tun.flags |= TUNNEL_DONT_FRAGMENT;
	if (flags & BPF_F_ZERO_CSUM_TX)
		skb->tun.flags &= (u16)~TUNNEL_CSUM;
	if (flags & BPF_F_SEQ_NUMBER)
		skb->tun.flags |= TUNNEL_SEQ;
	skb->tun.id = k.tunnel_id;
	skb->tun.tos = k.tunnel_tos;
	skb->tun.ttl = k.tunnel_ttl;
	if (flags & BPF_F_TUNINFO_IPV6) {
		skb->tun.ipv6 = true;
		memcpy(skb->tun.dst, k.remote_ipv6, 16);
		memcpy(skb->tun.src, k.local_ipv6, 16);
		skb->tun.label = htonl(k.tunnel_label) & htonl(0xfffff);
	} else {
		skb->tun.dst[0] = htonl(k.remote_ipv4);
		skb->tun.src[0] = htonl(k.local_ipv4);
	}
	return 0;
}

/* bpf_skb_get_tunnel_key(skb, to, size, flags): the metadata back (its source address as the
 * remote one: the kernel reads the receive side's view); -EINVAL without metadata, -EPROTO for
 * the other address family; to is zeroed on an error. */
static u64 h_skb_get_tunnel_key(u64 ctx, u64 to, u64 size, u64 flags, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	struct bpf_tunnel_key k = { 0 };
	u32 n = (u32)size;
	int err = -EINVAL;

	if (!skb->tun.set || (flags & ~(u64)(BPF_F_TUNINFO_IPV6 | BPF_F_TUNINFO_FLAGS)))
		goto clear;
	if (skb->tun.ipv6 != !!(flags & BPF_F_TUNINFO_IPV6)) {
		err = -EPROTO;
		goto clear;
	}
	if (n != TUNNEL_KEY_SIZE && (!tunnel_key_compat_size(n) ||
				     (n == offsetof(struct bpf_tunnel_key, remote_ipv6[1]) &&
				      skb->tun.ipv6)))
		goto clear;
	k.tunnel_id = (u32)skb->tun.id;
	k.tunnel_tos = skb->tun.tos;
	k.tunnel_ttl = skb->tun.ttl;
	k.tunnel_ext = 0;
	if (flags & BPF_F_TUNINFO_FLAGS)
		k.tunnel_flags = htons(skb->tun.flags);
	if (flags & BPF_F_TUNINFO_IPV6) {
		memcpy(k.remote_ipv6, skb->tun.src, 16);
		memcpy(k.local_ipv6, skb->tun.dst, 16);
		k.tunnel_label = ntohl(skb->tun.label);
	} else {
		k.remote_ipv4 = ntohl(skb->tun.src[0]);
		k.local_ipv4 = ntohl(skb->tun.dst[0]);
	}
	memcpy(PTR(to), &k, n);
	return 0;
clear:
	memset(PTR(to), 0, n);
	return (u64)(s64)err;
}

/* bpf_skb_set_tunnel_opt(skb, from, size): options (a multiple of 4 bytes, at most 255) for
 * the metadata bpf_skb_set_tunnel_key() set; bpf_skb_get_tunnel_opt(skb, to, size) reads them
 * (their length, the rest of to zeroed). */
static u64 h_skb_set_tunnel_opt(u64 ctx, u64 from, u64 size, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 n = (u32)size;

	if (!skb->tun.set || (n & 3))
		return (u64)-EINVAL;
	if (n > sizeof(skb->tun.opts))
		return (u64)-ENOMEM;
	skb->tun.opts_len = n;
	memcpy(skb->tun.opts, PTR(from), n);
	if (n)
		skb->tun.flags |= TUNNEL_OPTIONS_PRESENT;
	return 0;
}

static u64 h_skb_get_tunnel_opt(u64 ctx, u64 to, u64 size, u64 a4, u64 a5)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 n = (u32)size;
	u8 *out = PTR(to);

	if (!skb->tun.set || !(skb->tun.flags & TUNNEL_OPTIONS_PRESENT)) {
		memset(out, 0, n);
		return (u64)-ENOENT;
	}
	if (n < skb->tun.opts_len) {
		memset(out, 0, n);
		return (u64)-ENOMEM;
	}
	memcpy(out, skb->tun.opts, skb->tun.opts_len);
	memset(out + skb->tun.opts_len, 0, n - skb->tun.opts_len);
	return skb->tun.opts_len;
}

/* bpf_send_signal(sig), bpf_send_signal_thread(sig): sig to the current process (or thread),
 * which for a test run is whoever runs it; -EINVAL for no signal number. */
static u64 h_send_signal(u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	if ((u32)sig > 64)
		return (u64)-EINVAL;
	return kill(getpid(), (int)sig) ? (u64)(s64)-errno : 0;
}

static u64 h_send_signal_thread(u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	if ((u32)sig > 64)
		return (u64)-EINVAL;
	return tgkill(getpid(), gettid(), (int)sig) ? (u64)(s64)-errno : 0;
}

/* bpf_get_ns_current_pid_tgid(dev, ino, nsdata, size): our pid and tgid as the pid namespace
 * named by the (device, inode) of its /proc/self/ns/pid sees them, when that is ours. */
static u64 h_get_ns_current_pid_tgid(u64 dev, u64 ino, u64 nsdata, u64 size, u64 a5)
{
	struct bpf_pidns_info *out = PTR(nsdata);
	struct stat st;

	if ((u32)size != sizeof(*out) || (u64)(u32)dev != dev ||
	    stat("/proc/self/ns/pid", &st) || st.st_ino != ino || (u64)st.st_dev != dev) {
		memset(out, 0, (u32)size);
		return (u64)-EINVAL;
	}
	out->pid = (u32)gettid();
	out->tgid = (u32)getpid();
	return 0;
}

/* ---- checksums (the kernel's include/net/checksum.h, in memory byte order) ---- */

/* The kernel's csum_partial() on x86-64: the ones' complement sum of len bytes as little-endian
 * words (a last odd byte as the low byte of its word), seeded, as 32 bits. */
static u32 csum_partial(const u8 *p, u32 len, u32 seed)
{
	u64 sum = seed;
	u32 i = 0, w;
	u16 h;

	for (; len - i >= 4; i += 4) { /* (2^32 words before the u64 could overflow) */
		memcpy(&w, p + i, 4);
		sum += w;
	}
	if (len - i >= 2) {
		memcpy(&h, p + i, 2);
		sum += h;
		i += 2;
	}
	if (i < len)
		sum += p[i];
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	return (u32)sum;
}

static u32 csum_add32(u32 a, u32 b)
{
	u32 r = a + b;

	return r + (r < b);
}

/* csum_fold(): the complemented 16-bit fold */
static u16 csum_fold(u32 sum)
{
	return (u16)~csum_fold16(sum);
}

static u16 csum16_add(u16 a, u16 b)
{
	u16 r = (u16)(a + b);

	return (u16)(r + (r < b));
}

/* bpf_csum_diff(from, from_size, to, to_size, seed): 6.18's sum(to) + seed - sum(from), folded
 * to 16 bits (not complemented), for any sizes (the verifier bounds them; 6.1 wanted multiples
 * of 4 and 512 bytes in all, and returned 32 bits). */
static u64 h_csum_diff(u64 from, u64 from_size, u64 to, u64 to_size, u64 seed)
{
	u32 fs = (u32)from_size, ts = (u32)to_size, sum;

	if (!fs)
		sum = csum_partial(PTR(to), ts, (u32)seed);
	else if (!ts)
		sum = ~csum_partial(PTR(from), fs, ~(u32)seed);
	else
		sum = csum_add32(csum_partial(PTR(to), ts, (u32)seed), ~csum_partial(PTR(from), fs, 0));
	return csum_fold16(sum);
}

/* The 16-bit checksum field at offset of an skb's packet, for the replace helpers: NULL (then
 * -EFAULT) when it is odd, beyond 0xffff or not inside the packet. */
static u8 *csum_field(const struct run_skb *skb, u32 offset)
{
	if (offset > 0xffff || (offset & 1) || (u64)offset + 2 > skb->ctx.uapi.len)
		return NULL;
	return skb->ctx.data + offset;
}

static u16 ld16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, 2);
	return v;
}

static void st16(u8 *p, u16 v)
{
	memcpy(p, &v, 2);
}

/* bpf_l3_csum_replace(skb, offset, from, to, flags): updates the checksum at offset for a
 * field changed from `from` to `to` (flags: its size, 2 or 4; 0: `to` is a csum_diff()). */
static u64 h_l3_csum_replace(u64 ctx, u64 off, u64 from, u64 to, u64 flags)
{
	u8 *p;
	u16 sum;

	if (flags & ~(u64)BPF_F_HDR_FIELD_MASK)
		return (u64)-EINVAL;
	p = csum_field(run_skb_of(PTR(ctx)), (u32)off);
	if (!p)
		return (u64)-EFAULT;
	sum = ld16(p);
	switch (flags & BPF_F_HDR_FIELD_MASK) {
	case 0:
		if (from)
			return (u64)-EINVAL;
		st16(p, csum_fold(csum_add32((u32)to, ~(u32)sum)));
		break;
	case 2:
		st16(p, (u16)~csum16_add(csum16_add((u16)~sum, (u16)~(u16)from), (u16)to));
		break;
	case 4:
		st16(p, csum_fold(csum_add32(csum_add32(~(u32)sum, ~(u32)from), (u32)to)));
		break;
	default:
		return (u64)-EINVAL;
	}
	return 0;
}

#ifndef BPF_F_IPV6
#define BPF_F_IPV6 (1ULL << 7) /* (uapi 6.16) */
#endif

/* bpf_l4_csum_replace(skb, offset, from, to, flags): as l3, for a TCP/UDP checksum; with
 * BPF_F_PSEUDO_HDR the field is in the pseudo header, so a CHECKSUM_COMPLETE skb's csum changes
 * too (not for a csum_diff() with BPF_F_IPV6); BPF_F_MARK_MANGLED_0 leaves a zero checksum
 * (UDP's "none") alone and writes a computed zero as 0xffff, unless BPF_F_MARK_ENFORCE. */
static u64 h_l4_csum_replace(u64 ctx, u64 off, u64 from, u64 to, u64 flags)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	bool pseudo = flags & BPF_F_PSEUDO_HDR, mmzero = flags & BPF_F_MARK_MANGLED_0;
	u32 diff[2], d;
	u8 *p;
	u16 sum;

	if (flags & ~(u64)(BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE | BPF_F_PSEUDO_HDR |
			   BPF_F_HDR_FIELD_MASK | BPF_F_IPV6))
		return (u64)-EINVAL;
	p = csum_field(skb, (u32)off);
	if (!p)
		return (u64)-EFAULT;
	sum = ld16(p);
	if (mmzero && !(flags & BPF_F_MARK_ENFORCE) && !sum)
		return 0;
	switch (flags & BPF_F_HDR_FIELD_MASK) {
	case 0:
		if (from)
			return (u64)-EINVAL;
		d = (u32)to;
		if (flags & BPF_F_IPV6)
			pseudo = false; /* the kernel leaves skb->csum alone for IPv6 diffs */
		break;
	case 2:
	case 4:
		diff[0] = ~(u32)((flags & BPF_F_HDR_FIELD_MASK) == 2 ? (u16)from : (u32)from);
		diff[1] = (flags & BPF_F_HDR_FIELD_MASK) == 2 ? (u16)to : (u32)to;
		d = csum_partial((const u8 *)diff, sizeof(diff), 0);
		break;
	default:
		return (u64)-EINVAL;
	}
	/* not CHECKSUM_PARTIAL (a test run's skb never is) */
	st16(p, csum_fold(csum_add32(d, ~(u32)sum)));
	if (skb->csum_complete && pseudo) {
		/* skb->csum = ~(~skb->csum + d), on our big-endian view of it */
		u16 cur = (u16)__builtin_bswap16(csum_fold16(skb->csum));

		skb->csum = __builtin_bswap16((u16)~csum_fold16(csum_add32(d, (u16)~cur)));
	}
	if (mmzero && !ld16(p))
		st16(p, 0xffff); /* CSUM_MANGLED_0 */
	return 0;
}

/* ---- redirects (outside a live datapath: the verdict only) ---- */

/* bpf_redirect(ifindex, flags) for tc: TC_ACT_REDIRECT, or TC_ACT_SHOT for flags other than
 * BPF_F_INGRESS. */
static u64 h_redirect(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags & ~(u64)BPF_F_INGRESS ? TC_ACT_SHOT : TC_ACT_REDIRECT;
}

/* A device's MTU and link-layer header length, read from the host (the devices a test run's
 * packet may name are the host's, as the kernel's are): 0, or -ENODEV. */
static int dev_mtu(u32 ifindex, u32 *mtu, u32 *hh_len)
{
	char name[IF_NAMESIZE], path[64 + IF_NAMESIZE], buf[16] = { 0 };
	struct ifreq ifr;
	int fd, ok;
	FILE *f;

	if (!if_indextoname(ifindex, name))
		return -ENODEV;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr);
	if (fd >= 0)
		close(fd);
	if (!ok)
		return -ENODEV;
	*mtu = (u32)ifr.ifr_mtu;
	/* Ethernet and loopback devices have the Ethernet header; the others (tunnels) none */
	snprintf(path, sizeof(path), "/sys/class/net/%s/type", name);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	*hh_len = atoi(buf) == ARPHRD_ETHER || atoi(buf) == ARPHRD_LOOPBACK ? ETH_HLEN : 0;
	return 0;
}

/* bpf_check_mtu(ctx, ifindex, mtu_len, len_diff, flags): whether the packet (or *mtu_len, an
 * L3 length, when nonzero) plus len_diff fits the device's MTU (ifindex 0: the packet's own
 * device); *mtu_len gets the MTU (0 on an error). */
static u64 check_mtu(u32 dev_ifindex, u32 ifindex, u32 *mtu_len, s32 len_diff, u32 len)
{
	u32 mtu = 0, hh = 0;
	s64 n;

	if (dev_mtu(ifindex ? ifindex : dev_ifindex, &mtu, &hh)) {
		*mtu_len = 0;
		return (u64)-ENODEV;
	}
	n = (*mtu_len ? (s64)*mtu_len + hh : (s64)len) + len_diff;
	*mtu_len = mtu;
	return (s32)n <= (s32)(mtu + hh) ? BPF_MTU_CHK_RET_SUCCESS : BPF_MTU_CHK_RET_FRAG_NEEDED;
}

static u64 h_skb_check_mtu(u64 ctx, u64 ifindex, u64 mtu_len, u64 len_diff, u64 flags)
{
	const struct run_skb *skb = run_skb_of(PTR(ctx));
	u32 *mtu = PTR(mtu_len);

	if ((flags & ~(u64)BPF_MTU_CHK_SEGS) ||
	    ((flags & BPF_MTU_CHK_SEGS) && ((s32)len_diff || *mtu))) {
		*mtu = 0;
		return (u64)-EINVAL;
	}
	/* (not GSO: BPF_MTU_CHK_SEGS changes nothing) */
	return check_mtu(skb->ctx.uapi.ifindex, (u32)ifindex, mtu, (s32)len_diff,
			 skb->ctx.uapi.len);
}

static u64 h_xdp_check_mtu(u64 ctx, u64 ifindex, u64 mtu_len, u64 len_diff, u64 flags)
{
	const struct xdp_ctx *xdp = PTR(ctx);
	u32 *mtu = PTR(mtu_len);

	if (flags) {
		*mtu = 0;
		return (u64)-EINVAL;
	}
	return check_mtu(xdp->uapi.ingress_ifindex, (u32)ifindex, mtu, (s32)len_diff,
			 (u32)(xdp->data_end - xdp->data));
}

/* bpf_skb_set_tstamp(skb, tstamp, type): the delivery time and its clock (IPv4 and IPv6
 * packets only); a monotonic or TAI time must be nonzero. */
static u64 h_skb_set_tstamp(u64 ctx, u64 tstamp, u64 type, u64 a4, u64 a5)
{
	struct run_skb *skb = run_skb_of(PTR(ctx));
	u16 proto = (u16)skb->ctx.uapi.protocol;

	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return (u64)-EOPNOTSUPP;
	switch ((u32)type) {
	case 0: /* BPF_SKB_CLOCK_REALTIME */
		break;
	case 1: /* BPF_SKB_CLOCK_MONOTONIC */
	case 2: /* BPF_SKB_CLOCK_TAI */
		if (!tstamp)
			return (u64)-EINVAL;
		break;
	default:
		return (u64)-EINVAL;
	}
	skb->ctx.uapi.tstamp = tstamp;
	skb->ctx.uapi.tstamp_type = (u8)type;
	return 0;
}

/* bpf_redirect_neigh(ifindex, params, plen, flags), bpf_redirect_peer(ifindex, flags): tc's
 * redirects through the neighbour subsystem or into a peer device's namespace: a test run
 * returns TC_ACT_REDIRECT and sends nothing, as the kernel's; a short params or any flag is
 * TC_ACT_SHOT. */
static u64 h_redirect_neigh(u64 ifindex, u64 params, u64 plen, u64 flags, u64 a5)
{
	return ((s32)plen && (s32)plen < (s32)sizeof(struct bpf_redir_neigh)) || flags
		       ? TC_ACT_SHOT
		       : TC_ACT_REDIRECT;
}

static u64 h_redirect_peer(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags ? TC_ACT_SHOT : TC_ACT_REDIRECT;
}

/* bpf_redirect(ifindex, flags) for XDP: XDP_REDIRECT, or XDP_ABORTED for any flag. */
static u64 h_xdp_redirect(u64 ifindex, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return flags ? XDP_ABORTED : XDP_REDIRECT;
}

/* ---- XDP frame geometry (XDP) ---- */

#define ETH_HLEN 14

/* bpf_xdp_adjust_head(xdp, offset): data moves by offset, staying at least ETH_HLEN before
 * data_end and after the xdp_frame room and the metadata, which moves along with data. */
static u64 h_xdp_adjust_head(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off;
	size_t metalen = (size_t)(x->data - x->data_meta);

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	/* in integers: the bounds are compared before anything points outside the frame */
	if ((s64)(x->data - x->hard_start) + offset < (s64)(XDP_FRAME_SIZE + metalen) ||
	    (s64)(x->data_end - x->data) - offset < ETH_HLEN)
		return (u64)-EINVAL;
	if (metalen)
		memmove(x->data_meta + offset, x->data_meta, metalen);
	x->data_meta += offset;
	x->data += offset;
	return 0;
}

/* bpf_xdp_adjust_meta(xdp, offset): data_meta moves by offset, between the xdp_frame room and
 * data; the metadata must stay a multiple of 4 bytes and below 256. */
static u64 h_xdp_adjust_meta(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off, pos = (s64)(x->data_meta - x->hard_start) + offset;
	s64 metalen = (s64)(x->data - x->hard_start) - pos;

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	if (pos < XDP_FRAME_SIZE || metalen < 0)
		return (u64)-EINVAL;
	if ((metalen & 3) || metalen > XDP_META_MAX)
		return (u64)-EACCES;
	x->data_meta += offset;
	return 0;
}

/* The multi-buffer half of bpf_xdp_adjust_tail(): grow the last frag inside its page, or free
 * bytes from the end, frag by frag, then from the linear part once no frag is left. */
static u64 xdp_frags_adjust_tail(struct xdp_ctx *x, s64 offset)
{
	u32 last = x->frags_size - (x->nr_frags - 1) * XDP_FRAG_SIZE;

	if (offset > 0) {
		if (offset > XDP_FRAG_SIZE - last)
			return (u64)-EINVAL;
		memset(x->frags + x->frags_size, 0, (size_t)offset);
		x->frags_size += (u32)offset;
		return 0;
	}
	offset = -offset;
	if (offset > (s64)(x->data_end - x->data) + x->frags_size - ETH_HLEN)
		return (u64)-EINVAL;
	if (offset < x->frags_size) {
		x->frags_size -= (u32)offset;
		x->nr_frags = (x->frags_size + XDP_FRAG_SIZE - 1) / XDP_FRAG_SIZE;
		return 0;
	}
	offset -= x->frags_size;
	x->frags_size = 0;
	x->nr_frags = 0;
	x->data_end -= offset;
	return 0;
}

/* bpf_xdp_adjust_tail(xdp, offset): data_end moves by offset, up to hard_end and at least
 * ETH_HLEN after data; grown bytes read as zero. */
static u64 h_xdp_adjust_tail(u64 ctx, u64 off, u64 a3, u64 a4, u64 a5)
{
	struct xdp_ctx *x = PTR(ctx);
	s64 offset = (s32)off;

	if (!x->hard_start)
		return (u64)-EOPNOTSUPP;
	if (x->nr_frags)
		return xdp_frags_adjust_tail(x, offset);
	if (offset > x->hard_end - x->data_end || (s64)(x->data_end - x->data) + offset < ETH_HLEN)
		return (u64)-EINVAL;
	if (offset > 0)
		memset(x->data_end, 0, (size_t)offset);
	x->data_end += offset;
	return 0;
}

/* bpf_xdp_get_buff_len(xdp): the linear part and the frags. */
static u64 h_xdp_get_buff_len(u64 ctx, u64 a2, u64 a3, u64 a4, u64 a5)
{
	const struct xdp_ctx *x = PTR(ctx);

	return (u64)(x->data_end - x->data) + x->frags_size;
}

/* The bytes [offset, offset + len) of the frame, linear part and frags (which follow it in
 * memory here), for bpf_xdp_load_bytes / _store_bytes; NULL with *err set when out of range. */
static u8 *xdp_bytes(const struct xdp_ctx *x, u64 off, u64 len, u64 *err)
{
	u32 offset = (u32)off, n = (u32)len;

	if (offset > 0xffff || n > 0xffff) {
		*err = (u64)-EFAULT;
		return NULL;
	}
	if ((u64)offset + n > (u64)(x->data_end - x->data) + x->frags_size) {
		*err = (u64)-EINVAL;
		return NULL;
	}
	return x->data + offset;
}

static u64 h_xdp_load_bytes(u64 ctx, u64 off, u64 to, u64 len, u64 a5)
{
	u64 err = 0;
	const u8 *p = xdp_bytes(PTR(ctx), off, len, &err);

	if (p)
		memcpy(PTR(to), p, (u32)len);
	return err;
}

static u64 h_xdp_store_bytes(u64 ctx, u64 off, u64 from, u64 len, u64 a5)
{
	u64 err = 0;
	u8 *p = xdp_bytes(PTR(ctx), off, len, &err);

	if (p)
		memcpy(p, PTR(from), (u32)len);
	return err;
}

/* ---- ring buffers ---- */

static u64 h_ringbuf_output(u64 map, u64 data, u64 size, u64 flags, u64 a5)
{
	return (u64)(s64)ringbuf_output(PTR(map), PTR(data), size, flags);
}

static u64 h_ringbuf_reserve(u64 map, u64 size, u64 flags, u64 a4, u64 a5)
{
	return (u64)(uintptr_t)ringbuf_reserve(PTR(map), size, flags);
}

/* (the flags only choose how a kernel consumer is woken: nothing to check or do here) */
static u64 h_ringbuf_submit(u64 sample, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ringbuf_commit(PTR(sample), false);
	return 0;
}

static u64 h_ringbuf_discard(u64 sample, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ringbuf_commit(PTR(sample), true);
	return 0;
}

/* bpf_user_ringbuf_drain(map, callback, ctx, flags): each submitted record, in order, to the
 * callback as a local dynptr (read-write, as the kernel's) with ctx, until none is left, the
 * callback returns 1 or 128Ki records were drained; the count of records drained (discarded
 * ones skipped), -EBUSY while another drain runs, -EINVAL or -E2BIG for a bad record. */
#define USER_RINGBUF_MAX_SAMPLES (128 * 1024) /* the kernel's BPF_MAX_USER_RINGBUF_SAMPLES */
static u64 h_user_ringbuf_drain(u64 map, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);
	long samples, discarded = 0;
	u64 ret = 0;

	if (flags & ~(u64)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
		return (u64)-EINVAL;
	if (user_ringbuf_begin(m))
		return (u64)-EBUSY;
	for (samples = 0; samples < USER_RINGBUF_MAX_SAMPLES && !ret; samples++) {
		u64 dynptr[2];
		void *sample;
		u32 size;
		int err = user_ringbuf_peek(m, &sample, &size);

		if (err == -ENODATA)
			break;
		if (err == -EAGAIN) {
			discarded++;
			continue;
		}
		if (err) {
			user_ringbuf_end(m);
			return (u64)(s64)err;
		}
		bpf_dynptr_init_local(dynptr, sample, size);
		ret = exec_callback_call(callback, (u64)(uintptr_t)dynptr, ctx, 0, 0, 0);
		user_ringbuf_consume(m, size);
	}
	user_ringbuf_end(m);
	return (u64)(samples - discarded);
}

static u64 h_ringbuf_query(u64 map, u64 flags, u64 a3, u64 a4, u64 a5)
{
	return ringbuf_query(PTR(map), flags);
}

/* ---- perf event output (src/map/perf_event_array.h) ---- */

/* bpf_perf_event_output(ctx, map, flags, data, size) of tracing programs: flags is the slot. */
static u64 h_perf_event_output(u64 ctx, u64 map, u64 flags, u64 data, u64 size)
{
	if (flags & ~(u64)BPF_F_INDEX_MASK)
		return (u64)-EINVAL;
	return (u64)(s64)perf_event_array_output(PTR(map), flags, PTR(data), (u32)size, NULL, 0);
}

/* The skb and XDP forms: the upper bits of flags (BPF_F_CTXLEN_MASK) ask for that many bytes of
 * the packet, from its start, after data (the kernel's bpf_skb_event_output(),
 * bpf_xdp_event_output()); avail is how many it has. */
static u64 pkt_event_output(u64 map, u64 flags, u64 meta, u64 meta_size, const u8 *pkt,
			    u64 avail)
{
	u64 n = (flags & BPF_F_CTXLEN_MASK) >> 32;

	if (flags & ~(u64)(BPF_F_CTXLEN_MASK | BPF_F_INDEX_MASK))
		return (u64)-EINVAL;
	if (n > avail)
		return (u64)-EFAULT;
	return (u64)(s64)perf_event_array_output(PTR(map), flags, PTR(meta), (u32)meta_size, pkt,
						 (u32)n);
}

static u64 h_skb_event_output(u64 ctx, u64 map, u64 flags, u64 meta, u64 meta_size)
{
	const struct skb_ctx *c = PTR(ctx);

	return pkt_event_output(map, flags, meta, meta_size, c->data,
				(u64)(c->data_end - c->data));
}

/* (the frags follow the linear part in memory here) */
static u64 h_xdp_event_output(u64 ctx, u64 map, u64 flags, u64 meta, u64 meta_size)
{
	const struct xdp_ctx *x = PTR(ctx);

	return pkt_event_output(map, flags, meta, meta_size, x->data,
				(u64)(x->data_end - x->data) + x->frags_size);
}

/* ---- callbacks (src/exec/callback.h) ---- */

#define BPF_MAX_LOOPS (1u << 23) /* the kernel's bound on bpf_loop()'s iterations */

/* bpf_loop(nr_loops, callback, ctx, flags): callback(i, ctx, 0, 0, 0) for i = 0, 1, ... below
 * nr_loops (a u32, as the kernel's argument: the high half is ignored); a nonzero return stops
 * after i + 1 calls.  Returns the number of calls, -EINVAL for flags, -E2BIG beyond the bound. */
static u64 h_loop(u64 nr, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	u32 nr_loops = (u32)nr;

	if (flags)
		return (u64)-EINVAL;
	if (nr_loops > BPF_MAX_LOOPS)
		return (u64)-E2BIG;
	for (u32 i = 0; i < nr_loops; i++)
		if (exec_callback_call(callback, i, ctx, 0, 0, 0))
			return (u64)i + 1;
	return nr_loops;
}

/* bpf_for_each_map_elem(map, callback, ctx, flags): the map type's walk (map.h, for_each). */
static u64 h_for_each_map_elem(u64 map, u64 callback, u64 ctx, u64 flags, u64 a5)
{
	struct bpf_map *m = PTR(map);

	if (flags || !m->ops->for_each) /* (the verifier refuses a type without one) */
		return (u64)-EINVAL;
	return (u64)m->ops->for_each(m, callback, PTR(ctx));
}

/* bpf_tail_call: the runners handle it (interp_env.tail_call, src/prog/tail_call.c); this entry
 * only gives it a prototype, and a callx of its id falls through, as a failed tail call does. */
static u64 h_tail_call(u64 ctx, u64 map, u64 index, u64 a4, u64 a5)
{
	return 0;
}

/* ---- the table ---- */

struct helper {
	struct bpf_func_proto proto;
	u32 types;	/* TYPE_BIT() of the program types that may call it */
};

#define ARGS(...) .arg_type = { __VA_ARGS__ }
/* bpf_sk_lookup_*()'s: ctx, the tuple (read only) and its size, netns_id, flags */
#define SK_LOOKUP_ARGS                                                                             \
	ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING

static const struct helper helpers[] = {
	[BPF_FUNC_map_lookup_elem] = { { h_map_lookup_elem, "bpf_map_lookup_elem", false, true,
					 RET_PTR_TO_MAP_VALUE_OR_NULL,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY) }, ALL_TYPES },
	[BPF_FUNC_map_update_elem] = { { h_map_update_elem, "bpf_map_update_elem", false, true,
					 RET_INTEGER,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
					      ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_map_delete_elem] = { { h_map_delete_elem, "bpf_map_delete_elem", false, true,
					 RET_INTEGER,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY) }, ALL_TYPES },
	[BPF_FUNC_redirect_map] = { { h_redirect_map, "bpf_redirect_map", false, false,
				      RET_INTEGER,
				      ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING) },
				    TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_map_push_elem] = { { h_map_push_elem, "bpf_map_push_elem", false, true,
				       RET_INTEGER,
				       ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING) },
				     ALL_TYPES },
	[BPF_FUNC_map_pop_elem] = { { h_map_pop_elem, "bpf_map_pop_elem", false, false,
				      RET_INTEGER,
				      ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE) },
				    ALL_TYPES },
	[BPF_FUNC_map_peek_elem] = { { h_map_peek_elem, "bpf_map_peek_elem", false, false,
				       RET_INTEGER,
				       ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE) },
				     ALL_TYPES },
	[BPF_FUNC_skb_change_tail] = { { h_skb_change_tail, "bpf_skb_change_tail", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_head] = { { h_skb_change_head, "bpf_skb_change_head", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_adjust_room] = { { h_skb_adjust_room, "bpf_skb_adjust_room", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
							   ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_proto] = { { h_skb_change_proto, "bpf_skb_change_proto", false, false,
					  RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					  .changes_pkt_data = true },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_csum_level] = { { h_csum_level, "bpf_csum_level", false, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_redirect_neigh] = { { h_redirect_neigh, "bpf_redirect_neigh", false, false,
					RET_INTEGER, ARGS(ARG_ANYTHING, ARG_PTR_TO_MEM_OR_NULL,
							  ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_redirect_peer] = { { h_redirect_peer, "bpf_redirect_peer", false, false,
				       RET_INTEGER, ARGS(ARG_ANYTHING, ARG_ANYTHING) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_check_mtu] = { { h_skb_check_mtu, "bpf_check_mtu", true, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_INT, ARG_ANYTHING,
					ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_set_tstamp] = { { h_skb_set_tstamp, "bpf_skb_set_tstamp", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_current_cgroup_id] = { { h_get_current_cgroup_id,
					       "bpf_get_current_cgroup_id", false, false,
					       RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_current_ancestor_cgroup_id] = { { h_get_current_ancestor_cgroup_id,
							"bpf_get_current_ancestor_cgroup_id", false,
							false, RET_INTEGER, ARGS(ARG_ANYTHING) },
						      ALL_TYPES },
	[BPF_FUNC_skb_cgroup_id] = { { h_skb_cgroup_id, "bpf_skb_cgroup_id", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_ancestor_cgroup_id] = { { h_skb_ancestor_cgroup_id,
						"bpf_skb_ancestor_cgroup_id", false, false,
						RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
					      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_netns_cookie] = { { h_get_netns_cookie, "bpf_get_netns_cookie", false,
					  false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX_OR_NULL) },
					SKB_TYPES },
	[BPF_FUNC_skb_cgroup_classid] = { { h_cgroup_classid, "bpf_skb_cgroup_classid", false,
					    false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_ecn_set_ce] = { { h_skb_ecn_set_ce, "bpf_skb_ecn_set_ce", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_clone_redirect] = { { h_clone_redirect, "bpf_clone_redirect", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					.changes_pkt_data = true },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_xfrm_state] = { { h_skb_get_xfrm_state, "bpf_skb_get_xfrm_state", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
						 ARG_CONST_SIZE, ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_current_task_under_cgroup] = { { h_current_task_under_cgroup,
						   "bpf_current_task_under_cgroup", false, false,
						   RET_INTEGER,
						   ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
						 ALL_TYPES },
	[BPF_FUNC_skb_under_cgroup] = { { h_skb_under_cgroup, "bpf_skb_under_cgroup", false,
					  false, RET_INTEGER,
					  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_stackid] = { { h_get_stackid, "bpf_get_stackid", true, false, RET_INTEGER,
				     ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				   TRACING_TYPES },
	[BPF_FUNC_get_stack] = { { h_get_stack, "bpf_get_stack", true, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					ARG_ANYTHING) },
				 TRACING_TYPES },
	/* the socket lookups: tc's and cgroup skb's here, XDP's and sock_addr's in their own
	 * tables (the same prototypes, their own contexts) */
	[BPF_FUNC_sk_lookup_tcp] = { { h_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, true,
				       RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_lookup_udp] = { { h_sk_lookup_udp, "bpf_sk_lookup_udp", false, true,
				       RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skc_lookup_tcp] = { { h_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, true,
					RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_release] = { { h_sk_release, "bpf_sk_release", false, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_SOCK_RELEASE) },
				  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_tcp_sock] = { { h_tcp_sock, "bpf_tcp_sock", false, false,
				  RET_PTR_TO_TCP_SOCK_OR_NULL, ARGS(ARG_PTR_TO_SOCK_COMMON) },
				TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_assign] = { { h_sk_assign, "bpf_sk_assign", false, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_listener_sock] = { { h_get_listener_sock, "bpf_get_listener_sock", false,
					   false, RET_PTR_TO_SOCKET_OR_NULL,
					   ARGS(ARG_PTR_TO_SOCK_COMMON) },
					 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_fullsock] = { { h_sk_fullsock, "bpf_sk_fullsock", false, false,
				     RET_PTR_TO_SOCKET_OR_NULL, ARGS(ARG_PTR_TO_SOCK_COMMON) },
				   TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	/* the cgroup of the socket, which a test run's is made in: the calling thread's, as the
	 * skb forms answer (their functions, which do not look at their first argument) */
	[BPF_FUNC_sk_cgroup_id] = { { h_skb_cgroup_id, "bpf_sk_cgroup_id", false, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON) }, 0 },
	[BPF_FUNC_sk_ancestor_cgroup_id] = { { h_skb_ancestor_cgroup_id, "bpf_sk_ancestor_cgroup_id",
					       false, false, RET_INTEGER,
					       ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING) },
					     0 },
	[BPF_FUNC_sk_storage_get] = { { h_sk_storage_get, "bpf_sk_storage_get", false, false,
					RET_PTR_TO_MAP_VALUE_OR_NULL,
					ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON,
					     ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_storage_delete] = { { h_sk_storage_delete, "bpf_sk_storage_delete", false,
					   false, RET_INTEGER,
					   ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON) },
					 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_local_storage] = { { h_get_local_storage, "bpf_get_local_storage", false,
					   false, RET_PTR_TO_MAP_VALUE,
					   ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
					 TYPE_BIT(BPF_PROG_TYPE_CGROUP_SKB) |
						 TYPE_BIT(BPF_PROG_TYPE_CGROUP_SOCK) },
	[BPF_FUNC_send_signal] = { { h_send_signal, "bpf_send_signal", false, false, RET_INTEGER,
				     ARGS(ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_send_signal_thread] = { { h_send_signal_thread, "bpf_send_signal_thread", false,
					    false, RET_INTEGER, ARGS(ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_get_ns_current_pid_tgid] = { { h_get_ns_current_pid_tgid,
						 "bpf_get_ns_current_pid_tgid", false, false,
						 RET_INTEGER, ARGS(ARG_ANYTHING, ARG_ANYTHING,
								   ARG_PTR_TO_UNINIT_MEM,
								   ARG_CONST_SIZE) },
					       ALL_TYPES },
	[BPF_FUNC_skb_set_tunnel_key] = { { h_skb_set_tunnel_key, "bpf_skb_set_tunnel_key", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE,
						 ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_tunnel_key] = { { h_skb_get_tunnel_key, "bpf_skb_get_tunnel_key", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE,
						 ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_set_tunnel_opt] = { { h_skb_set_tunnel_opt, "bpf_skb_set_tunnel_opt", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_tunnel_opt] = { { h_skb_get_tunnel_opt, "bpf_skb_get_tunnel_opt", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM,
						 ARG_CONST_SIZE) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_vlan_push] = { { h_skb_vlan_push, "bpf_skb_vlan_push", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
				       .changes_pkt_data = true },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_vlan_pop] = { { h_skb_vlan_pop, "bpf_skb_vlan_pop", false, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_CTX), .changes_pkt_data = true },
				    TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_hash_recalc] = { { h_get_hash_recalc, "bpf_get_hash_recalc", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_set_hash] = { { h_set_hash, "bpf_set_hash", false, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_set_hash_invalid] = { { h_set_hash_invalid, "bpf_set_hash_invalid", false, false,
					  RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_type] = { { h_skb_change_type, "bpf_skb_change_type", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_pull_data] = { { h_skb_pull_data, "bpf_skb_pull_data", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
				       .changes_pkt_data = true },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_socket_cookie] = { { h_get_socket_cookie, "bpf_get_socket_cookie", false,
					   false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) }, SKB_TYPES },
	[BPF_FUNC_get_socket_uid] = { { h_get_socket_uid, "bpf_get_socket_uid", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX) }, SKB_TYPES },
	/* (tc: the skb's; the other types: the current task's, without arguments) */
	[BPF_FUNC_get_cgroup_classid] = { { h_cgroup_classid, "bpf_get_cgroup_classid", false,
					    false, RET_INTEGER, ARGS(0) },
					  ALL_TYPES & ~TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_route_realm] = { { h_zero, "bpf_get_route_realm", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_jiffies64] = { { h_jiffies64, "bpf_jiffies64", false, false, RET_INTEGER,
				   ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_tai_ns] = { { h_ktime_get_tai_ns, "bpf_ktime_get_tai_ns", false,
					  false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* tracing programs' form; skb and XDP programs get theirs from bpf_helper_proto() */
	[BPF_FUNC_perf_event_output] = { { h_perf_event_output, "bpf_perf_event_output", true,
					   false, RET_INTEGER,
					   ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
						ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO) },
					 TRACING_TYPES },
	[BPF_FUNC_ringbuf_output] = { { h_ringbuf_output, "bpf_ringbuf_output", false, false,
					RET_INTEGER,
					ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MEM,
					     ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_reserve] = { { h_ringbuf_reserve, "bpf_ringbuf_reserve", false, false,
					 RET_PTR_TO_RINGBUF_MEM_OR_NULL,
					 ARGS(ARG_CONST_MAP_PTR, ARG_CONST_ALLOC_SIZE_OR_ZERO,
					      ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_submit] = { { h_ringbuf_submit, "bpf_ringbuf_submit", false, false,
					RET_VOID,
					ARGS(ARG_PTR_TO_RINGBUF_MEM_RELEASE, ARG_ANYTHING) },
				      ALL_TYPES },
	[BPF_FUNC_ringbuf_discard] = { { h_ringbuf_discard, "bpf_ringbuf_discard", false, false,
					 RET_VOID, ARGS(ARG_PTR_TO_RINGBUF_MEM_RELEASE,
							ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_spin_lock] = { { h_spin_lock, "bpf_spin_lock", false, false, RET_VOID,
				   ARGS(ARG_PTR_TO_SPIN_LOCK) }, ALL_TYPES },
	[BPF_FUNC_spin_unlock] = { { h_spin_unlock, "bpf_spin_unlock", false, false, RET_VOID,
				     ARGS(ARG_PTR_TO_SPIN_LOCK) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_query] = { { h_ringbuf_query, "bpf_ringbuf_query", false, false,
				       RET_INTEGER, ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				     ALL_TYPES },
	[BPF_FUNC_map_lookup_percpu_elem] = { { h_map_lookup_percpu_elem,
						"bpf_map_lookup_percpu_elem", false, true,
						RET_PTR_TO_MAP_VALUE_OR_NULL,
						ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
						     ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_loop] = { { h_loop, "bpf_loop", false, false, RET_INTEGER,
			      ARGS(ARG_ANYTHING, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL,
				   ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_for_each_map_elem] = { { h_for_each_map_elem, "bpf_for_each_map_elem", false,
					   false, RET_INTEGER,
					   ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC,
						ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING) },
					 ALL_TYPES },
	[BPF_FUNC_timer_init] = { { bpf_timer_init_helper, "bpf_timer_init", true, false,
				    RET_INTEGER,
				    ARGS(ARG_PTR_TO_TIMER, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				  ALL_TYPES },
	[BPF_FUNC_timer_set_callback] = { { bpf_timer_set_callback_helper,
					    "bpf_timer_set_callback", true, false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_TIMER, ARG_PTR_TO_FUNC) },
					  ALL_TYPES },
	[BPF_FUNC_timer_start] = { { bpf_timer_start_helper, "bpf_timer_start", true, false,
				     RET_INTEGER,
				     ARGS(ARG_PTR_TO_TIMER, ARG_ANYTHING, ARG_ANYTHING) },
				   ALL_TYPES },
	[BPF_FUNC_timer_cancel] = { { bpf_timer_cancel_helper, "bpf_timer_cancel", true, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_TIMER) },
				    ALL_TYPES },
	[BPF_FUNC_dynptr_from_mem] = { { bpf_dynptr_from_mem_helper, "bpf_dynptr_from_mem", false,
					 false, RET_INTEGER,
					 ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					      ARG_ANYTHING, ARG_PTR_TO_DYNPTR_LOCAL_UNINIT) },
				       ALL_TYPES },
	[BPF_FUNC_dynptr_read] = { { bpf_dynptr_read_helper, "bpf_dynptr_read", false, false,
				     RET_INTEGER,
				     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					  ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING, ARG_ANYTHING) },
				   ALL_TYPES },
	[BPF_FUNC_dynptr_write] = { { bpf_dynptr_write_helper, "bpf_dynptr_write", false, false,
				      RET_INTEGER,
				      ARGS(ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING, ARG_PTR_TO_MEM,
					   ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) },
				    ALL_TYPES },
	[BPF_FUNC_dynptr_data] = { { bpf_dynptr_data_helper, "bpf_dynptr_data", false, false,
				     RET_PTR_TO_DYNPTR_MEM_OR_NULL,
				     ARGS(ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING,
					  ARG_CONST_ALLOC_SIZE_OR_ZERO) },
				   ALL_TYPES },
	[BPF_FUNC_ringbuf_reserve_dynptr] = { { bpf_ringbuf_reserve_dynptr_helper,
						"bpf_ringbuf_reserve_dynptr", false, false,
						RET_INTEGER,
						ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING,
						     ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT) },
					      ALL_TYPES },
	[BPF_FUNC_ringbuf_submit_dynptr] = { { bpf_ringbuf_submit_dynptr_helper,
					       "bpf_ringbuf_submit_dynptr", false, false, RET_VOID,
					       ARGS(ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE,
						    ARG_ANYTHING) },
					     ALL_TYPES },
	[BPF_FUNC_ringbuf_discard_dynptr] = { { bpf_ringbuf_discard_dynptr_helper,
						"bpf_ringbuf_discard_dynptr", false, false, RET_VOID,
						ARGS(ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE,
						     ARG_ANYTHING) },
					      ALL_TYPES },
	[BPF_FUNC_user_ringbuf_drain] = { { h_user_ringbuf_drain, "bpf_user_ringbuf_drain", false,
					    false, RET_INTEGER,
					    ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC,
						 ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING) },
					  ALL_TYPES },
	[BPF_FUNC_tail_call] = { { h_tail_call, "bpf_tail_call", false, false, RET_VOID,
				   ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				 ALL_TYPES },
	[BPF_FUNC_ktime_get_ns] = { { h_ktime_get_ns, "bpf_ktime_get_ns", false, false,
				      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_trace_printk] = { { h_trace_printk, "bpf_trace_printk", true, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE) },
				    ALL_TYPES },
	[BPF_FUNC_get_prandom_u32] = { { h_get_prandom_u32, "bpf_get_prandom_u32", false, false,
					 RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_smp_processor_id] = { { h_get_smp_processor_id,
					      "bpf_get_smp_processor_id", false, false,
					      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* (neither takes the packet itself: pkt_access false, as the kernel's) */
	[BPF_FUNC_skb_store_bytes] = { { h_skb_store_bytes, "bpf_skb_store_bytes", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM,
					      ARG_CONST_SIZE, ARG_ANYTHING), .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_current_pid_tgid] = { { h_get_current_pid_tgid,
					      "bpf_get_current_pid_tgid", false, false,
					      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_current_uid_gid] = { { h_get_current_uid_gid, "bpf_get_current_uid_gid",
					     false, false, RET_INTEGER, ARGS(0) },
					   ALL_TYPES },
	[BPF_FUNC_get_current_comm] = { { h_get_current_comm, "bpf_get_current_comm", false,
					  false, RET_INTEGER,
					  ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) },
					ALL_TYPES },
	[BPF_FUNC_skb_load_bytes] = { { h_skb_load_bytes, "bpf_skb_load_bytes", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
					     ARG_CONST_SIZE) }, SKB_TYPES },
	[BPF_FUNC_probe_read_user] = { { h_probe_read, "bpf_probe_read_user", true, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					      ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_probe_read_kernel] = { { h_probe_read, "bpf_probe_read_kernel", true, false,
					   RET_INTEGER,
					   ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_boot_ns] = { { h_ktime_get_boot_ns, "bpf_ktime_get_boot_ns", false,
					   false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* the legacy probe reads, and the string forms (tracing programs) */
	[BPF_FUNC_probe_read] = { { h_probe_read, "bpf_probe_read", true, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					 ARG_ANYTHING) }, TRACING_TYPES },
	[BPF_FUNC_probe_read_str] = { { h_probe_read_str, "bpf_probe_read_str", true, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					     ARG_ANYTHING) }, TRACING_TYPES },
	[BPF_FUNC_probe_read_user_str] = { { h_probe_read_str, "bpf_probe_read_user_str", true,
					     false, RET_INTEGER,
					     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						  ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_probe_read_kernel_str] = { { h_probe_read_str, "bpf_probe_read_kernel_str",
					       true, false, RET_INTEGER,
					       ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						    ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_get_numa_node_id] = { { h_get_numa_node_id, "bpf_get_numa_node_id", false,
					  false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_coarse_ns] = { { h_ktime_get_coarse_ns, "bpf_ktime_get_coarse_ns",
					     false, false, RET_INTEGER, ARGS(0) },
					   SKB_TYPES | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_head] = { { h_xdp_adjust_head, "bpf_xdp_adjust_head", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_meta] = { { h_xdp_adjust_meta, "bpf_xdp_adjust_meta", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_tail] = { { h_xdp_adjust_tail, "bpf_xdp_adjust_tail", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_get_buff_len] = { { h_xdp_get_buff_len, "bpf_xdp_get_buff_len", false,
					  false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_load_bytes] = { { h_xdp_load_bytes, "bpf_xdp_load_bytes", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
					     ARG_CONST_SIZE) }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_store_bytes] = { { h_xdp_store_bytes, "bpf_xdp_store_bytes", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM,
					      ARG_CONST_SIZE) }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_skb_load_bytes_relative] = { { h_skb_load_bytes_relative,
						 "bpf_skb_load_bytes_relative", false, false,
						 RET_INTEGER,
						 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING,
						      ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE,
						      ARG_ANYTHING) }, SKB_TYPES },
	[BPF_FUNC_strtol] = { { h_strtol, "bpf_strtol", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG) },
			      ALL_TYPES },
	[BPF_FUNC_strtoul] = { { h_strtoul, "bpf_strtoul", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG) },
			       ALL_TYPES },
	[BPF_FUNC_snprintf] = { { h_snprintf, "bpf_snprintf", true, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_WRITE_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
				       ARG_PTR_TO_CONST_STR, ARG_PTR_TO_MEM_OR_NULL,
				       ARG_CONST_SIZE_OR_ZERO) }, ALL_TYPES },
	[BPF_FUNC_trace_vprintk] = { { h_trace_vprintk, "bpf_trace_vprintk", true, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE,
							 ARG_PTR_TO_MEM_OR_NULL,
							 ARG_CONST_SIZE_OR_ZERO) }, ALL_TYPES },
	[BPF_FUNC_strncmp] = { { h_strncmp, "bpf_strncmp", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_CONST_STR) },
			       ALL_TYPES },
	[BPF_FUNC_csum_diff] = { { h_csum_diff, "bpf_csum_diff", false, true, RET_INTEGER,
				   ARGS(ARG_PTR_TO_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
					ARG_PTR_TO_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
					ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_l3_csum_replace] = { { h_l3_csum_replace, "bpf_l3_csum_replace", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
					      ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_l4_csum_replace] = { { h_l4_csum_replace, "bpf_l4_csum_replace", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
					      ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
};

/* Helpers whose implementation depends on the program type (the kernel's <type>_func_proto()
 * returns a different proto for the same id). */
/* XDP's socket lookups (the kernel's bpf_xdp_sk_lookup_*()) and a cgroup sock_addr
 * program's (bpf_sock_addr_sk_lookup_*(), which takes no packet), by helper id. */
static const struct helper xdp_lookup_helpers[] = {
	[BPF_FUNC_sk_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, true,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_sk_lookup_udp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_sk_lookup_udp, "bpf_sk_lookup_udp", false, true,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_skc_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, true,
		  RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
};
static const struct helper sa_lookup_helpers[] = {
	[BPF_FUNC_sk_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, false,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_sk_lookup_udp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_sk_lookup_udp, "bpf_sk_lookup_udp", false, false,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_skc_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, false,
		  RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
};

/* Which of the lookup tables' entries func_id is (-1: none). */
static int lookup_index(u32 func_id)
{
	return func_id == BPF_FUNC_sk_lookup_tcp || func_id == BPF_FUNC_sk_lookup_udp ||
			       func_id == BPF_FUNC_skc_lookup_tcp
		       ? (int)(func_id - BPF_FUNC_sk_lookup_tcp)
		       : -1;
}

static const struct helper sk_lookup_assign_helper = {
	{ h_sk_lookup_assign, "bpf_sk_assign", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_SOCKET_OR_NULL, ARG_ANYTHING) }, 0 };
static const struct helper xdp_redirect_helper = {
	{ h_xdp_redirect, "bpf_redirect", false, false, RET_INTEGER,
	  ARGS(ARG_ANYTHING, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_XDP) };
static const struct helper tc_classid_helper = {
	{ h_cgroup_classid, "bpf_get_cgroup_classid", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX) },
	TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) };
static const struct helper xdp_check_mtu_helper = {
	{ h_xdp_check_mtu, "bpf_check_mtu", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_INT, ARG_ANYTHING, ARG_ANYTHING) },
	TYPE_BIT(BPF_PROG_TYPE_XDP) };
static const struct helper pe_get_stackid_helper = {
	{ h_get_stackid, "bpf_get_stackid", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_PERF_EVENT) };
static const struct helper cg_sock_sk_storage_get_helper = {
	{ h_sk_storage_get, "bpf_sk_storage_get", false, false, RET_PTR_TO_MAP_VALUE_OR_NULL,
	  ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_CTX, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
	TYPE_BIT(BPF_PROG_TYPE_CGROUP_SOCK) };
static const struct helper flow_dissector_load_bytes_helper = {
	{ h_flow_dissector_load_bytes, "bpf_skb_load_bytes", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) },
	TYPE_BIT(BPF_PROG_TYPE_FLOW_DISSECTOR) };
static const struct helper tc_redirect_helper = {
	{ h_redirect, "bpf_redirect", false, false, RET_INTEGER,
	  ARGS(ARG_ANYTHING, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) };

static const struct helper skb_event_output_helper = {
	{ h_skb_event_output, "bpf_perf_event_output", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM,
	       ARG_CONST_SIZE_OR_ZERO) },
	SKB_TYPES };
static const struct helper xdp_event_output_helper = {
	{ h_xdp_event_output, "bpf_perf_event_output", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM,
	       ARG_CONST_SIZE_OR_ZERO) },
	TYPE_BIT(BPF_PROG_TYPE_XDP) };

/* LWT programs (the kernel's lwt_out_func_proto(), lwt_in_... and lwt_xmit_...): the base
 * helpers of a socket filter without its socket ones, some skb ones, and for transmit programs
 * most of tc's packet and tunnel helpers. */
static const struct bpf_func_proto *lwt_helper_proto(u32 func_id, u32 prog_type)
{
	bool xmit = prog_type == BPF_PROG_TYPE_LWT_XMIT;

	switch (func_id) {
	case BPF_FUNC_skb_load_bytes:
	case BPF_FUNC_skb_pull_data:
	case BPF_FUNC_csum_diff:
	case BPF_FUNC_get_route_realm:
	case BPF_FUNC_get_hash_recalc:
	case BPF_FUNC_skb_under_cgroup:
		return &helpers[func_id].proto;
	case BPF_FUNC_get_cgroup_classid:
		return &tc_classid_helper.proto;
	case BPF_FUNC_skb_load_bytes_relative:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_socket_uid:
	case BPF_FUNC_get_netns_cookie:
		return NULL;
	case BPF_FUNC_redirect:
		return xmit ? &tc_redirect_helper.proto : NULL;
	case BPF_FUNC_skb_get_tunnel_key:
	case BPF_FUNC_skb_set_tunnel_key:
	case BPF_FUNC_skb_get_tunnel_opt:
	case BPF_FUNC_skb_set_tunnel_opt:
	case BPF_FUNC_clone_redirect:
	case BPF_FUNC_skb_change_tail:
	case BPF_FUNC_skb_change_head:
	case BPF_FUNC_skb_store_bytes:
	case BPF_FUNC_csum_level:
	case BPF_FUNC_l3_csum_replace:
	case BPF_FUNC_l4_csum_replace:
	case BPF_FUNC_set_hash_invalid:
		return xmit ? &helpers[func_id].proto : NULL;
	default:
		return bpf_helper_proto(func_id, BPF_PROG_TYPE_SOCKET_FILTER);
	}
}

/* The base helpers (the kernel's bpf_base_func_proto()): those every program type here has. */
static const struct bpf_func_proto *base_helper_proto(u32 func_id)
{
	return func_id < ARRAY_SIZE(helpers) && helpers[func_id].proto.func &&
			       (helpers[func_id].types & ALL_TYPES) == ALL_TYPES
		       ? &helpers[func_id].proto
		       : NULL;
}

/* A cgroup sock program's helpers (the kernel's sock_filter_func_proto()): the base ones that
 * every type here has, the current task's, and the socket's forms of get_socket_cookie and
 * get_netns_cookie, which take the ctx as the skb forms do, and the data form of
 * perf_event_output, with the tracing form's arguments.  The kernel has no BPF_PROG_TEST_RUN
 * for the type and userbpf no hook to attach it to, so the programs are verified, never run:
 * what matters is each prototype.  A sock_addr program (the kernel's sock_addr_func_proto()) has
 * the same but for the socket storage helpers, which take its ctx->sk (a cgroup sock program's
 * get takes the ctx, the socket itself, and it has no delete). */
static const struct bpf_func_proto *cgroup_sock_helper_proto(u32 func_id, u32 prog_type)
{
	bool sock_addr = prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR;

	if (sock_addr && lookup_index(func_id) >= 0)
		return &sa_lookup_helpers[lookup_index(func_id)].proto;
	switch (func_id) {
	case BPF_FUNC_sk_release:
		return sock_addr ? &helpers[func_id].proto : NULL;
	case BPF_FUNC_sk_storage_get:
		return sock_addr ? &helpers[func_id].proto : &cg_sock_sk_storage_get_helper.proto;
	case BPF_FUNC_sk_storage_delete:
		return sock_addr ? &helpers[func_id].proto : NULL;
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_get_current_comm:
	case BPF_FUNC_get_cgroup_classid:
	case BPF_FUNC_ktime_get_coarse_ns:
	case BPF_FUNC_get_local_storage:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* A cgroup device program's (the kernel's cgroup_dev_func_proto()): the cgroup hooks' common
 * ones (the storage, the current task's) and the data form of perf_event_output, then the base
 * ones.  Verified only, as cgroup sock programs. */
static const struct bpf_func_proto *cgroup_dev_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_get_current_comm:
	case BPF_FUNC_get_cgroup_classid:
	case BPF_FUNC_get_local_storage:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* A cgroup sysctl program's own helpers (the sysctl's name and values), which never run here. */
static const struct helper sysctl_helpers[] = {
	{ { h_zero, "bpf_sysctl_get_name", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sysctl_get_current_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sysctl_get_new_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sysctl_set_new_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
};

/* A cgroup sysctl program's (the kernel's sysctl_func_proto()): its own four, the coarse clock,
 * and a device program's.  Verified only. */
static const struct bpf_func_proto *cgroup_sysctl_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_sysctl_get_name:
	case BPF_FUNC_sysctl_get_current_value:
	case BPF_FUNC_sysctl_get_new_value:
	case BPF_FUNC_sysctl_set_new_value:
		return &sysctl_helpers[func_id - BPF_FUNC_sysctl_get_name].proto;
	case BPF_FUNC_ktime_get_coarse_ns:
		return &helpers[func_id].proto;
	default:
		return cgroup_dev_helper_proto(func_id);
	}
}

/* A cgroup sockopt program's (the kernel's cg_sockopt_func_proto()): a device program's, the
 * netns cookie of its ctx, and the socket storage and TCP view of its ctx->sk.  Verified only
 * too. */
static const struct bpf_func_proto *cgroup_sockopt_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_tcp_sock:
		return &helpers[func_id].proto;
	default:
		return cgroup_dev_helper_proto(func_id);
	}
}

/* A flow dissector's (the kernel's flow_dissector_func_proto()): its own skb_load_bytes, and the
 * networking types' base helpers (bpf_sk_base_func_proto()): the ones every type here has, the
 * coarse clock, and the current task's classid (tc's other form of it aside). */
static const struct bpf_func_proto *flow_dissector_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_skb_load_bytes:
		return &flow_dissector_load_bytes_helper.proto;
	case BPF_FUNC_ktime_get_coarse_ns:
	case BPF_FUNC_get_cgroup_classid:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* bpf_sys_bpf(cmd, attr, attr_size) and bpf_sys_close(fd), a syscall program's: bpf() itself
 * (the commands the kernel's allows), and close().  Each leaves the run's read section while it
 * works (it may wait for read sections to end, and they do not nest):
 * a sleepable program's pointers from before may then be stale if the command freed what they
 * point into (an inner map it deleted), which the kernel's RCU tasks trace keeps alive. */
static u64 h_sys_bpf(u64 cmd, u64 attr, u64 size, u64 a4, u64 a5)
{
	int ret;

	rcu_read_unlock();
	ret = sys_bpf_from_prog((int)cmd, PTR(attr), (u32)size);
	rcu_read_lock();
	return (u64)(s64)ret;
}

static u64 h_sys_close(u64 fd, u64 a2, u64 a3, u64 a4, u64 a5)
{
	int ret;

	rcu_read_unlock(); /* (the object the fd held may go: it waits for read sections) */
	ret = close((int)(u32)fd) ? -errno : 0;
	rcu_read_lock();
	return (u64)(s64)ret;
}

static const struct helper syscall_helpers[] = {
	{ { h_sys_bpf, "bpf_sys_bpf", false, false, RET_INTEGER,
	    ARGS(ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_sys_close, "bpf_sys_close", false, false, RET_INTEGER, ARGS(ARG_ANYTHING) }, 0 },
};

/* A sock_ops program's own helpers (the socket's options, its callbacks, socket maps, TCP
 * header options), which never run here. */
static const struct helper sock_ops_helpers[] = {
	{ { h_zero, "bpf_setsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_getsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
		 ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sock_ops_cb_flags_set", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sock_map_update", false, true, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sock_hash_update", false, true, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_load_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_store_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_reserve_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING) }, 0 },
};

/* bpf_bind(ctx, addr, addr_len): a sock_addr program binds the socket at its connect hooks;
 * verified only, as the program never runs here. */
static const struct helper sa_bind_helper = {
	{ h_zero, "bpf_bind", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 };

/* A cgroup sockopt program's setsockopt and getsockopt (the kernel's bpf_sk_setsockopt()...):
 * on a socket, its ctx->sk, not on the ctx. */
static const struct helper sk_sockopt_helpers[] = {
	{ { h_zero, "bpf_setsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM,
		 ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_getsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
		 ARG_CONST_SIZE) }, 0 },
};

/* A sock_ops program's (the kernel's sock_ops_func_proto()): the cgroup hooks' common ones,
 * its own, the socket's cookies, storage and TCP view, the data form of perf_event_output, then
 * the networking base ones (as a flow dissector's).  Verified only: the kernel has no test run
 * for it either. */
static const struct bpf_func_proto *sock_ops_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_setsockopt:
		return &sock_ops_helpers[0].proto;
	case BPF_FUNC_getsockopt:
		return &sock_ops_helpers[1].proto;
	case BPF_FUNC_sock_ops_cb_flags_set:
		return &sock_ops_helpers[2].proto;
	case BPF_FUNC_sock_map_update:
		return &sock_ops_helpers[3].proto;
	case BPF_FUNC_sock_hash_update:
		return &sock_ops_helpers[4].proto;
	case BPF_FUNC_load_hdr_opt:
	case BPF_FUNC_store_hdr_opt:
	case BPF_FUNC_reserve_hdr_opt:
		return &sock_ops_helpers[5 + func_id - BPF_FUNC_load_hdr_opt].proto;
	case BPF_FUNC_get_local_storage:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_tcp_sock:
		return &helpers[func_id].proto;
	case BPF_FUNC_skb_load_bytes:
		return NULL;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

/* Socket map programs' own: an sk_skb program redirects a socket's stream data to a socket of
 * a map, an sk_msg program a message, and works on the message's bytes.  Verified only: the
 * kernel has no test run for either type, and userbpf no socket data to run them on. */
enum { SK_REDIRECT_MAP, SK_REDIRECT_HASH, MSG_REDIRECT_MAP, MSG_REDIRECT_HASH, MSG_APPLY_BYTES,
       MSG_CORK_BYTES, MSG_PULL_DATA, MSG_PUSH_DATA, MSG_POP_DATA };
static const struct helper sockmap_prog_helpers[] = {
	[SK_REDIRECT_MAP] = { { h_zero, "bpf_sk_redirect_map", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
				     ARG_ANYTHING) }, 0 },
	[SK_REDIRECT_HASH] = { { h_zero, "bpf_sk_redirect_hash", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
				      ARG_ANYTHING) }, 0 },
	[MSG_REDIRECT_MAP] = { { h_zero, "bpf_msg_redirect_map", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
				      ARG_ANYTHING) }, 0 },
	[MSG_REDIRECT_HASH] = { { h_zero, "bpf_msg_redirect_hash", false, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
				       ARG_ANYTHING) }, 0 },
	[MSG_APPLY_BYTES] = { { h_zero, "bpf_msg_apply_bytes", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	[MSG_CORK_BYTES] = { { h_zero, "bpf_msg_cork_bytes", false, false, RET_INTEGER,
			       ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	/* (these three move the message's bytes) */
	[MSG_PULL_DATA] = { { h_zero, "bpf_msg_pull_data", false, false, RET_INTEGER,
			      ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			      .changes_pkt_data = true }, 0 },
	[MSG_PUSH_DATA] = { { h_zero, "bpf_msg_push_data", false, false, RET_INTEGER,
			      ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			      .changes_pkt_data = true }, 0 },
	[MSG_POP_DATA] = { { h_zero, "bpf_msg_pop_data", false, false, RET_INTEGER,
			     ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			     .changes_pkt_data = true }, 0 },
};

/* An sk_skb program's (the kernel's sk_skb_func_proto()): a tc program's packet helpers, the
 * socket's cookie and owner, redirection, the skb form of perf_event_output, the socket
 * lookups, then the networking base ones (as a flow dissector's). */
static const struct bpf_func_proto *sk_skb_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_skb_store_bytes:
	case BPF_FUNC_skb_load_bytes:
	case BPF_FUNC_skb_pull_data:
	case BPF_FUNC_skb_change_tail:
	case BPF_FUNC_skb_change_head:
	case BPF_FUNC_skb_adjust_room:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_socket_uid:
	case BPF_FUNC_sk_lookup_tcp:
	case BPF_FUNC_sk_lookup_udp:
	case BPF_FUNC_skc_lookup_tcp:
	case BPF_FUNC_sk_release:
		return &helpers[func_id].proto;
	case BPF_FUNC_sk_redirect_map:
		return &sockmap_prog_helpers[SK_REDIRECT_MAP].proto;
	case BPF_FUNC_sk_redirect_hash:
		return &sockmap_prog_helpers[SK_REDIRECT_HASH].proto;
	case BPF_FUNC_perf_event_output:
		return &skb_event_output_helper.proto;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

/* An sk_msg program's (the kernel's sk_msg_func_proto()): its message helpers, the data form of
 * perf_event_output, the current task's ids, socket storage, the netns cookie, then the
 * networking base ones. */
static const struct bpf_func_proto *sk_msg_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_msg_redirect_map:
		return &sockmap_prog_helpers[MSG_REDIRECT_MAP].proto;
	case BPF_FUNC_msg_redirect_hash:
		return &sockmap_prog_helpers[MSG_REDIRECT_HASH].proto;
	case BPF_FUNC_msg_apply_bytes:
		return &sockmap_prog_helpers[MSG_APPLY_BYTES].proto;
	case BPF_FUNC_msg_cork_bytes:
		return &sockmap_prog_helpers[MSG_CORK_BYTES].proto;
	case BPF_FUNC_msg_pull_data:
		return &sockmap_prog_helpers[MSG_PULL_DATA].proto;
	case BPF_FUNC_msg_push_data:
		return &sockmap_prog_helpers[MSG_PUSH_DATA].proto;
	case BPF_FUNC_msg_pop_data:
		return &sockmap_prog_helpers[MSG_POP_DATA].proto;
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_get_netns_cookie:
		return &helpers[func_id].proto;
	case BPF_FUNC_skb_load_bytes:
		return NULL;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

const struct bpf_func_proto *bpf_helper_proto(u32 func_id, u32 prog_type)
{
	/* setsockopt and getsockopt: a sock_addr program's take its ctx, as sock_ops ones do; a
	 * sockopt program's its ctx->sk (at some hooks of each: bpf_helper_proto_attach()) */
	if (func_id == BPF_FUNC_bind && prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
		return &sa_bind_helper.proto;
	if ((func_id == BPF_FUNC_setsockopt || func_id == BPF_FUNC_getsockopt) &&
	    (prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR || prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT))
		return &(prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT
				 ? sk_sockopt_helpers
				 : sock_ops_helpers)[func_id == BPF_FUNC_getsockopt].proto;
	/* a sock_addr program has a cgroup sock program's and the socket lookups (the kernel's
	 * sock_addr_func_proto(), but for helpers userbpf does not have, which bind or configure
	 * sockets) */
	if (prog_type == BPF_PROG_TYPE_CGROUP_SOCK || prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
		return cgroup_sock_helper_proto(func_id, prog_type);
	if (prog_type == BPF_PROG_TYPE_FLOW_DISSECTOR)
		return flow_dissector_helper_proto(func_id);
	/* a socket lookup program's (the kernel's sk_lookup_func_proto()): the networking base
	 * ones, as a flow dissector's, the data form of perf_event_output, sk_release and its
	 * own sk_assign */
	if (prog_type == BPF_PROG_TYPE_SK_LOOKUP)
		return func_id == BPF_FUNC_sk_assign ? &sk_lookup_assign_helper.proto
		       : func_id == BPF_FUNC_perf_event_output || func_id == BPF_FUNC_sk_release
			       ? &helpers[func_id].proto
		       : func_id == BPF_FUNC_skb_load_bytes  ? NULL
							     : flow_dissector_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_DEVICE)
		return cgroup_dev_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT)
		return cgroup_sockopt_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_SYSCTL)
		return cgroup_sysctl_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SOCK_OPS)
		return sock_ops_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SK_SKB)
		return sk_skb_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SK_MSG)
		return sk_msg_helper_proto(func_id);
	/* a syscall program's (the kernel's syscall_prog_func_proto()): bpf() and close(), then
	 * the tracing helpers (not the kernel's BTF or kallsyms lookups) */
	if (prog_type == BPF_PROG_TYPE_SYSCALL && func_id == BPF_FUNC_sys_bpf)
		return &syscall_helpers[0].proto;
	if (prog_type == BPF_PROG_TYPE_SYSCALL && func_id == BPF_FUNC_sys_close)
		return &syscall_helpers[1].proto;
	if (prog_type == BPF_PROG_TYPE_SYSCALL)
		prog_type = BPF_PROG_TYPE_KPROBE;
	/* perf event programs have the tracing helpers of kprobes (the kernel's
	 * pe_prog_func_proto() falls back to bpf_tracing_func_proto()), but their own
	 * get_stackid, which is not GPL-only */
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT && func_id == BPF_FUNC_get_stackid)
		return &pe_get_stackid_helper.proto;
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT)
		prog_type = BPF_PROG_TYPE_KPROBE;
	if (prog_type_is_lwt(prog_type))
		return func_id < ARRAY_SIZE(helpers) ? lwt_helper_proto(func_id, prog_type) : NULL;
	/* cgroup skb programs have the socket filter's helpers (the kernel's cg_skb_func_proto()
	 * falls back to sk_filter_func_proto(); the ones it adds need cgroups or sockets) */
	if (prog_type == BPF_PROG_TYPE_CGROUP_SKB) {
		if (func_id == BPF_FUNC_skb_cgroup_id || func_id == BPF_FUNC_skb_ancestor_cgroup_id ||
		    func_id == BPF_FUNC_skb_ecn_set_ce || func_id == BPF_FUNC_get_local_storage ||
		    func_id == BPF_FUNC_sk_storage_get || func_id == BPF_FUNC_sk_storage_delete ||
		    func_id == BPF_FUNC_sk_fullsock || func_id == BPF_FUNC_sk_cgroup_id ||
		    func_id == BPF_FUNC_sk_ancestor_cgroup_id || lookup_index(func_id) >= 0 ||
		    func_id == BPF_FUNC_sk_release || func_id == BPF_FUNC_get_listener_sock ||
		    func_id == BPF_FUNC_tcp_sock)
			return &helpers[func_id].proto; /* (cg_skb_func_proto()'s own) */
		prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	}
	/* tc actions have the classifiers' (tc_cls_act_func_proto()) */
	if (prog_type == BPF_PROG_TYPE_SCHED_ACT)
		prog_type = BPF_PROG_TYPE_SCHED_CLS;
	if (func_id == BPF_FUNC_redirect && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_redirect_helper.proto;
	if (prog_type == BPF_PROG_TYPE_XDP && lookup_index(func_id) >= 0)
		return &xdp_lookup_helpers[lookup_index(func_id)].proto;
	if (func_id == BPF_FUNC_perf_event_output && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_event_output_helper.proto;
	if (func_id == BPF_FUNC_perf_event_output &&
	    (prog_type == BPF_PROG_TYPE_SOCKET_FILTER || prog_type == BPF_PROG_TYPE_SCHED_CLS))
		return &skb_event_output_helper.proto;
	if (func_id == BPF_FUNC_check_mtu && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_check_mtu_helper.proto;
	if (func_id == BPF_FUNC_redirect && prog_type == BPF_PROG_TYPE_SCHED_CLS)
		return &tc_redirect_helper.proto;
	if (func_id == BPF_FUNC_get_cgroup_classid && prog_type == BPF_PROG_TYPE_SCHED_CLS)
		return &tc_classid_helper.proto;
	if (func_id >= ARRAY_SIZE(helpers) || !helpers[func_id].proto.func || prog_type >= 32 ||
	    !(helpers[func_id].types & TYPE_BIT(prog_type)))
		return NULL;
	return &helpers[func_id].proto;
}

/* bpf_get_retval(), bpf_set_retval(): the value the cgroup hook's syscall is to return.  Only the
 * cgroup hooks userbpf verifies but never runs have them (the kernel's cgroup_common_func_proto():
 * not at skb ingress and egress, sock_ops, nor at the sock_addr hooks that cannot refuse), so
 * they do nothing here (h_zero). */
static const struct helper get_retval_helper = {
	{ h_zero, "bpf_get_retval", false, false, RET_INTEGER, ARGS(0) }, 0 };
static const struct helper set_retval_helper = {
	{ h_zero, "bpf_set_retval", false, false, RET_INTEGER, ARGS(ARG_ANYTHING) }, 0 };

const struct bpf_func_proto *bpf_helper_proto_attach(u32 func_id, u32 prog_type,
						     u32 expected_attach_type)
{
	bool cgroup_hook = prog_type == BPF_PROG_TYPE_CGROUP_SOCK ||
			   prog_type == BPF_PROG_TYPE_CGROUP_DEVICE ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SYSCTL ||
			   prog_type == BPF_PROG_TYPE_SOCK_OPS ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR;

	/* (bind at the IPv4 and IPv6 connect hooks only; a sockopt program's set/getsockopt only
	 * at the setsockopt hook; a sock_addr program's at every hook, 6.18's) */
	if (func_id == BPF_FUNC_bind && expected_attach_type != UINT32_MAX &&
	    expected_attach_type != BPF_CGROUP_INET4_CONNECT &&
	    expected_attach_type != BPF_CGROUP_INET6_CONNECT)
		return NULL;
	if ((func_id == BPF_FUNC_setsockopt || func_id == BPF_FUNC_getsockopt) &&
	    expected_attach_type != UINT32_MAX && prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT &&
	    expected_attach_type != BPF_CGROUP_SETSOCKOPT)
		return NULL;
	if (func_id != BPF_FUNC_get_retval && func_id != BPF_FUNC_set_retval)
		return bpf_helper_proto(func_id, prog_type);
	/* the kernel decides by the attach type alone (a device program loaded for attach type
	 * 0, skb ingress, has neither, nor a sock_ops one for its own hook) */
	if (!cgroup_hook || expected_attach_type == BPF_CGROUP_INET_INGRESS ||
	    expected_attach_type == BPF_CGROUP_INET_EGRESS ||
	    expected_attach_type == BPF_CGROUP_SOCK_OPS ||
	    sock_addr_hook(expected_attach_type) == SA_HOOK_MUST_ALLOW)
		return NULL;
	return func_id == BPF_FUNC_get_retval ? &get_retval_helper.proto
					      : &set_retval_helper.proto;
}

/* The interpreter's table for one program type: what bpf_helper_proto() allows, nothing more,
 * so that even a program the verifier let through cannot reach another type's helpers. */
u32 helper_fns(u32 prog_type, bpf_helper_fn *fns, u32 n)
{
	u32 cnt = n < ARRAY_SIZE(helpers) ? n : ARRAY_SIZE(helpers);

	for (u32 id = 0; id < cnt; id++) {
		/* with the helpers some hooks of the type have (UINT32_MAX: an attach type
		 * none excludes): the verifier saw to the hook */
		const struct bpf_func_proto *p = bpf_helper_proto_attach(id, prog_type, UINT32_MAX);

		fns[id] = p ? p->func : NULL;
	}
	return cnt;
}
