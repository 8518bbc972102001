/* task.c — the helpers about the running thread and its clocks: time (monotonic, boot, TAI,
 * coarse, jiffies), the CPU and NUMA node, randomness, pid/tgid/uid/comm, stacks, signals, the
 * pid namespace.  "Current" is the calling thread: pid = tid, tgid = the process.
 */
#include <ctype.h>
#include <sys/stat.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>

#include "exec/callback.h"
#include "exec/current_task.h"
#include "exec/task_vma.h"
#include "map/map.h"
#include "map/sk_storage.h"
#include "exec/helpers/impl.h"

u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

u64 h_ktime_get_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_MONOTONIC);
}

u64 h_ktime_get_tai_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_TAI);
}

/* bpf_jiffies64(): the kernel's tick count has no user-space clock; this counts ticks of
 * CONFIG_HZ=250 (Debian's) since boot, which is what programs use it for (differences). */
#define KERNEL_HZ 250u
u64 h_jiffies64(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE) / (1000000000u / KERNEL_HZ);
}

/* The NUMA node of the CPU the caller runs on. */
u64 h_get_numa_node_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	unsigned int cpu, node;

	return getcpu(&cpu, &node) ? 0 : node;
}

/* CLOCK_MONOTONIC at tick resolution, as bpf_ktime_get_coarse_ns() (ktime_get_coarse_ns());
 * not for tracing programs, which may run where the coarse clock is not safe to read. */
u64 h_ktime_get_coarse_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
}

u64 h_ktime_get_boot_ns(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return clock_ns(CLOCK_BOOTTIME);
}

/* Per-thread xorshift128+ seeded from getrandom(): cheap and independent across threads, like
 * the kernel's per-cpu prandom state.  Not for cryptography (neither is the kernel's). */
static __thread u64 prandom_s[2];

u64 h_get_prandom_u32(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
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

u64 h_get_smp_processor_id(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (u32)cpu;
}

u64 h_get_current_pid_tgid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return (u64)(u32)getpid() << 32 | (u32)gettid();
}

/* bpf_get_current_task(): a task_struct for this thread (current_task.c) */
/* bpf_kptr_xchg(dst, ptr): ptr into the kptr at dst, what was there out (a map value's field;
 * the references move with the pointers). */
u64 h_kptr_xchg(u64 dst, u64 ptr, u64 a3, u64 a4, u64 a5)
{
	return __atomic_exchange_n((u64 *)(uintptr_t)dst, ptr, __ATOMIC_SEQ_CST);
}

u64 h_get_current_task(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return current_task_addr();
}

/* bpf_find_vma(task, addr, callback, ctx, flags): callback(task, vma, ctx) on the area of the
 * task's memory that holds addr (src/exec/task_vma.c); 0, or -ENOENT where none does (or the
 * task has no memory), -EINVAL for flags, -EBUSY from inside the callback. */
u64 h_find_vma(u64 task, u64 addr, u64 callback, u64 ctx, u64 flags)
{
	u64 vma;
	int err;

	if (flags)
		return (u64)-EINVAL;
	vma = task_vma_get(task, addr, &err);
	if (!vma)
		return (u64)(s64)err;
	exec_callback_call(callback, task, vma, ctx, 0, 0); /* (its result is not looked at) */
	task_vma_put();
	return 0;
}

u64 h_get_current_uid_gid(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
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
u64 h_strtol(u64 buf, u64 len, u64 flags, u64 res, u64 a5)
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

u64 h_strtoul(u64 buf, u64 len, u64 flags, u64 res, u64 a5)
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
u64 h_strncmp(u64 s1, u64 s1_sz, u64 s2, u64 a4, u64 a5)
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
u64 h_get_current_comm(u64 buf, u64 size, u64 a3, u64 a4, u64 a5)
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

/* bpf_get_stackid(ctx, map, flags), bpf_get_stack(ctx, buf, size, flags): a program here runs
 * in user space, with no kernel call chain to record (nor a user one the kernel would see), so
 * both answer as the kernel's do without a call chain, -EFAULT (get_stack zeroing buf), after
 * the kernel's checks of their flags (-EINVAL). */
#define STACK_SKIP_MASK 0xffull /* BPF_F_SKIP_FIELD_MASK */
u64 h_get_stackid(u64 ctx, u64 map, u64 flags, u64 a4, u64 a5)
{
	if (flags & ~(STACK_SKIP_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP |
		      BPF_F_REUSE_STACKID))
		return (u64)-EINVAL;
	return (u64)-EFAULT;
}

u64 h_get_stack(u64 ctx, u64 buf, u64 size, u64 flags, u64 a5)
{
	bool user = flags & BPF_F_USER_STACK, build_id = flags & BPF_F_USER_BUILD_ID;
	u64 err = (u64)-EFAULT;

	if ((flags & ~(STACK_SKIP_MASK | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)) ||
	    (!user && build_id) || size % (build_id ? 32 : 8))
		err = (u64)-EINVAL;
	memset(PTR(buf), 0, (u32)size);
	return err;
}

/* bpf_get_task_stack(task, buf, size, flags): a task's call chain, which is no more there for
 * another task than for the current one: bpf_get_stack()'s answers. */
u64 h_get_task_stack(u64 task, u64 buf, u64 size, u64 flags, u64 a5)
{
	return h_get_stack(0, buf, size, flags, 0);
}

/* A perf event program's sample helpers.  Such a program never runs here (the kernel has no
 * BPF_PROG_TEST_RUN for it, and userbpf no hardware events to attach it to): the verifier's
 * rules are what matter; were one run, it would get what a sample without the data answers.
 * bpf_read_branch_records(ctx, buf, size, flags): no branch stack, -ENOENT (after the flags'
 * check, -EINVAL).  bpf_perf_prog_read_value(ctx, buf, size): no counter to read, buf zeroed
 * and -EINVAL for a size other than struct bpf_perf_event_value's, else -ENOENT. */
u64 h_read_branch_records(u64 ctx, u64 buf, u64 size, u64 flags, u64 a5)
{
	return flags & ~(u64)BPF_F_GET_BRANCH_RECORDS_SIZE ? (u64)-EINVAL : (u64)-ENOENT;
}

u64 h_perf_prog_read_value(u64 ctx, u64 buf, u64 size, u64 a4, u64 a5)
{
	memset(PTR(buf), 0, (u32)size);
	return (u32)size != sizeof(struct bpf_perf_event_value) ? (u64)-EINVAL : (u64)-ENOENT;
}

/* bpf_get_branch_snapshot(buf, size, flags): the CPU's last-branch records, which a program in
 * user space has none of: -ENOENT with buf untouched, as the kernel's without LBR (flags are
 * checked after the snapshot: -EINVAL then). */
u64 h_get_branch_snapshot(u64 buf, u64 size, u64 flags, u64 a4, u64 a5)
{
	return flags ? (u64)-EINVAL : (u64)-ENOENT;
}

/* bpf_send_signal(sig), bpf_send_signal_thread(sig): sig to the current process (or thread),
 * which for a test run is whoever runs it; -EINVAL for no signal number. */
u64 h_send_signal(u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	if ((u32)sig > 64)
		return (u64)-EINVAL;
	return kill(getpid(), (int)sig) ? (u64)(s64)-errno : 0;
}

u64 h_send_signal_thread(u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	if ((u32)sig > 64)
		return (u64)-EINVAL;
	return tgkill(getpid(), gettid(), (int)sig) ? (u64)(s64)-errno : 0;
}

/* bpf_get_ns_current_pid_tgid(dev, ino, nsdata, size): our pid and tgid as the pid namespace
 * named by the (device, inode) of its /proc/self/ns/pid sees them, when that is ours. */
u64 h_get_ns_current_pid_tgid(u64 dev, u64 ino, u64 nsdata, u64 size, u64 a5)
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

/* bpf_task_storage_get(map, task, value, flags), bpf_task_storage_delete(map, task): the value
 * the map keeps for the task (src/map/sk_storage.c), by the pid in its task_struct.  flags:
 * BPF_LOCAL_STORAGE_GET_F_CREATE or 0, else NULL, as the kernel's. */
u64 h_task_storage_get(u64 map, u64 task, u64 value, u64 flags, u64 a5)
{
	u32 pid;

	if (!task || flags & ~(u64)BPF_LOCAL_STORAGE_GET_F_CREATE || current_task_pid(task, &pid))
		return 0;
	return (u64)(uintptr_t)task_storage_get(PTR(map), pid, PTR(value),
						flags == BPF_LOCAL_STORAGE_GET_F_CREATE);
}

u64 h_task_storage_delete(u64 map, u64 task, u64 a3, u64 a4, u64 a5)
{
	u32 pid;

	if (!task || current_task_pid(task, &pid))
		return (u64)-EINVAL;
	return (u64)(s64)task_storage_delete(PTR(map), pid);
}
