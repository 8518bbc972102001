/* syscall.c — a syscall program's own helpers (the kernel's syscall_prog_func_proto()): bpf()
 * and close() on the caller's behalf, and the lookups a loader program makes: a type of the
 * kernel's BTF, a kernel symbol's address.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "exec/helpers/impl.h"
#include "kallsyms.h"
#include "rcu.h"
#include "syscall.h"

/* bpf_sys_bpf(cmd, attr, attr_size) and bpf_sys_close(fd), a syscall program's: bpf() itself
 * (the commands the kernel's allows), and close().  Each leaves the run's read section while it
 * works (it may wait for read sections to end, and they do not nest):
 * a sleepable program's pointers from before may then be stale if the command freed what they
 * point into (an inner map it deleted), which the kernel's RCU tasks trace keeps alive. */
u64 h_sys_bpf(u64 cmd, u64 attr, u64 size, u64 a4, u64 a5)
{
	int ret;

	rcu_read_unlock();
	ret = sys_bpf_from_prog((int)cmd, PTR(attr), (u32)size);
	rcu_read_lock();
	return (u64)(s64)ret;
}

u64 h_sys_close(u64 fd, u64 a2, u64 a3, u64 a4, u64 a5)
{
	int ret;

	rcu_read_unlock(); /* (the object the fd held may go: it waits for read sections) */
	ret = close((int)(u32)fd) ? -errno : 0;
	rcu_read_lock();
	return (u64)(s64)ret;
}

/* bpf_btf_find_by_name_kind(name, name_sz, kind, flags): the id of a type of the kernel's BTF
 * (kind is a u8 there, name_sz and flags ints), as light skeletons resolve kfuncs and ksyms; the
 * kernel's modules' BTF is not searched (userbpf reads none), which the kernel would answer
 * with the module BTF's new fd in the upper 32 bits. */
u64 h_btf_find_by_name_kind(u64 name, u64 name_sz, u64 kind, u64 flags, u64 a5)
{
	const struct btf *btf;
	const char *n = PTR(name);
	int sz = (int)name_sz;
	u32 id;

	if ((int)flags || sz <= 1 || n[sz - 1])
		return (u64)-EINVAL;
	btf = btf_vmlinux();
	if (!btf)
		return (u64)-EINVAL; /* (the kernel's answer without a BTF of its own) */
	id = btf_find_by_name_kind(btf, n, (u8)kind);
	return id ? id : (u64)-ENOENT;
}

/* bpf_kallsyms_lookup_name(name, name_sz, flags, res): a kernel symbol's address into *res,
 * from /proc/kallsyms (the first line naming it: the kernel's own symbols come before its
 * modules'); -EPERM where the file shows no addresses (the kernel's bpf_dump_raw_ok() is the
 * same test of the caller's credentials), -ENOENT for a name it has not. */
u64 h_kallsyms_lookup_name(u64 name, u64 name_sz, u64 flags, u64 res, u64 a5)
{
	const char *n = PTR(name);
	int sz = (int)name_sz, err;
	u64 found = 0;

	memcpy(PTR(res), &found, sizeof(found)); /* (0 on every error, as the kernel's) */
	if ((int)flags)
		return (u64)-EINVAL;
	if (sz <= 1 || n[sz - 1])
		return (u64)-EINVAL;
	err = kallsyms_lookup(n, &found, NULL);
	if (err == -EPERM)
		return (u64)-EPERM;
	memcpy(PTR(res), &found, sizeof(found));
	return found ? 0 : (u64)-ENOENT;
}
