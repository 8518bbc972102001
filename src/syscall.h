/* The bpf() entry point (src/syscall.c). */
#ifndef USERBPF_SYSCALL_H
#define USERBPF_SYSCALL_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stdint.h>

/* The reference kernel's (6.18) union bpf_attr is 168 bytes, our uapi header's smaller: an attr
 * a command handler gets must have all of them, the ones past our header zero unless the caller
 * set them (handlers read raw bytes there: BPF_PROG_LOAD's fd_array_cnt and signature). */
#define KERNEL_ATTR_SIZE 168u
union kernel_attr {
	union bpf_attr attr;
	uint8_t raw[KERNEL_ATTR_SIZE];
};

/* bpf() itself, under a name that is not exported: what userbpf's own callers use (the preload
 * library's syscall()), so that an application's function named bpf() can never stand in for it
 * (an application bpf() that calls syscall(__NR_bpf) would then call itself). */
int bpf_syscall(int cmd, union bpf_attr *attr, unsigned int size);

/* bpf_sys_bpf(), a syscall program's bpf(): the commands the kernel's allows (others: -EINVAL),
 * on an attr in the program's memory; the result, or -errno. */
int sys_bpf_from_prog(int cmd, union bpf_attr *attr, unsigned int size);

#endif
