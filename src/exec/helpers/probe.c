/* probe.c — bpf_probe_read*(): the "kernel" memory is this process's, copied through
 * process_vm_readv() on our own pid so that a bad address gives -EFAULT and a zeroed buffer
 * instead of a crash.
 */
#include <sys/uio.h>
#include <unistd.h>

#include "map/map.h"
#include "exec/helpers/impl.h"
#include "exec/current_task.h"
#include "exec/interp.h"

/* Copies size bytes from our own address src; false if any of it is not readable. */
bool copy_nofault(void *dst, const void *src, size_t size)
{
	struct iovec local = { dst, size }, remote = { (void *)src, size };

	return !size || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

/* The kernel refuses user-space addresses (-ERANGE) where it reads its own memory without
 * faulting (string kfuncs, the bits iterator); here every address is the process's, so only
 * those no mapping can hold are refused: below mmap_min_addr (NULL and small integers, as on
 * the kernel) and non-canonical ones. */
bool nofault_allowed(u64 addr)
{
	u64 top = addr >> 47;

	return addr >= 65536 && (top == 0 || top == 0x1ffff);
}

uint64_t probe_load(uint64_t addr, int32_t width)
{
	u32 n = (u32)(width < 0 ? -width : width);
	u64 v = 0;

	/* The task objects programs reach are read in place; anything else (a field userbpf
	 * leaves NULL, a stale pointer) through process_vm_readv(), which says whether it is
	 * mapped.  (little-endian: the low n bytes of v) */
	if (current_task_holds(addr, n))
		memcpy(&v, PTR(addr), n);
	else if (!nofault_allowed(addr) || addr > UINTPTR_MAX - n ||
		 !copy_nofault(&v, PTR(addr), n))
		return 0;
	if (width < 0)
		v = n == 1 ? (u64)(s64)(s8)v : n == 2 ? (u64)(s64)(s16)v : (u64)(s64)(s32)v;
	return v;
}

u64 h_probe_read(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	/* (an address past a 32-bit process's reach cannot be read) */
	if (likely(src <= UINTPTR_MAX && copy_nofault(PTR(dst), PTR(src), (u32)size)))
		return 0;
	memset(PTR(dst), 0, (u32)size);
	return (u64)-EFAULT;
}

/* Copies the NUL-terminated string at src into dst (size > 0 bytes, always terminated), a page
 * at a time so that a string ending just before unmapped memory is still read, and nothing past
 * the NUL (dst beyond it keeps its bytes, as the kernel's byte-wise copy leaves them).  Returns
 * its length with the NUL, or -EFAULT. */
int copy_str_nofault(char *dst, const char *src, size_t size)
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
u64 h_probe_read_str(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	int n;

	if (!(u32)size)
		return 0;
	n = src <= UINTPTR_MAX ? copy_str_nofault(PTR(dst), PTR(src), (u32)size) : -EFAULT;
	if (n < 0)
		memset(PTR(dst), 0, (u32)size);
	return (u64)(s64)n;
}

/* The _kernel forms: the kernel's copy_from_kernel_nofault() first refuses an address it does
 * not allow with -ERANGE (whatever the size, 0 included), and its string copy returns 0 for size
 * 0 before that; the legacy and _user forms read "user" memory: -EFAULT. */
u64 h_probe_read_kernel(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	if (unlikely(!nofault_allowed(src))) {
		memset(PTR(dst), 0, (u32)size);
		return (u64)-ERANGE;
	}
	return h_probe_read(dst, size, src, a4, a5);
}

u64 h_probe_read_kernel_str(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	if (unlikely((u32)size && !nofault_allowed(src))) {
		memset(PTR(dst), 0, (u32)size);
		return (u64)-ERANGE;
	}
	return h_probe_read_str(dst, size, src, a4, a5);
}

/* copy_from_user(): the bytes up to the first it cannot read copied, the rest of dst zeroed,
 * and -EFAULT; nothing past user space (all of dst zeroed), and an empty copy succeeds at any
 * address. */
int copy_from_user_emul(u8 *dst, u64 src, u32 n)
{
	u32 done = 0;

	if (!n)
		return 0;
	if (src + n >= src && src + n <= USER_PTR_MAX && src + n - 1 <= UINTPTR_MAX)
		while (done < n) { /* (a page at a time: what can be read is whole pages) */
			u32 chunk = 4096 - (u32)((src + done) & 4095);

			if (chunk > n - done)
				chunk = n - done;
			if (!copy_nofault(dst + done, (const void *)(uintptr_t)(src + done), chunk))
				break;
			done += chunk;
		}
	if (done == n)
		return 0;
	memset(dst + done, 0, n - done);
	return -EFAULT;
}

/* bpf_copy_from_user_task(dst, size, user_ptr, task, flags) (sleepable programs): the
 * kernel's access_process_vm() of the task's memory: this process's read in place, another's
 * through process_vm_readv() (which the same permission as the kernel's ptrace check allows),
 * the idle task's (no mm) not at all; unless every byte was read, all of dst zeroed and
 * -EFAULT.  Flags must be 0 (-EINVAL, before anything). */
u64 h_copy_from_user_task(u64 dst, u64 size, u64 src, u64 task, u64 flags)
{
	u32 n = (u32)size, pid = 0;
	int tgid = current_task_tgid(task);

	if (flags)
		return (u64)-EINVAL;
	if (!n)
		return 0;
	if (!current_task_pid(task, &pid) && pid && tgid == getpid()) {
		if (!copy_from_user_emul(PTR(dst), src, n))
			return 0;
	} else if (pid && src + n >= src && src + n <= USER_PTR_MAX &&
		   src + n - 1 <= UINTPTR_MAX) {
		struct iovec local = { PTR(dst), n };
		struct iovec remote = { (void *)(uintptr_t)src, n };

		if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)n)
			return 0;
	}
	memset(PTR(dst), 0, n);
	return (u64)-EFAULT;
}

/* bpf_copy_from_user() (sleepable programs): copy_from_user(), then all of dst zeroed on a
 * fault. */
u64 h_copy_from_user(u64 dst, u64 size, u64 src, u64 a4, u64 a5)
{
	if (!copy_from_user_emul(PTR(dst), src, (u32)size))
		return 0;
	memset(PTR(dst), 0, (u32)size);
	return (u64)-EFAULT;
}
