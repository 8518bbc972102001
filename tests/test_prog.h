/* Shared by the program tests: the two back ends of a differential test (userbpf's bpf() and the
 * kernel's), and loading a program on either.
 *
 * Programs that use a map name it with BPF_LD_MAP_FD(reg, MAP_SLOT); prog_load_on() replaces
 * MAP_SLOT with the side's map fd, so one instruction array serves both sides.
 */
#ifndef USERBPF_TEST_PROG_H
#define USERBPF_TEST_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include "test.h"

#define MAP_SLOT 0x7ffffff0

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct side {
	const char *name;
	int (*bpf)(int cmd, union bpf_attr *attr, unsigned int size);
};

static inline int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

static const struct side side_user = { "userbpf", bpf };
static const struct side side_kern = { "kernel", kernel_bpf };

/* Whether the kernel's bpf() can load a socket filter here (root, not sandboxed). */
static inline bool kernel_bpf_available(void)
{
	static int avail = -1;

	if (avail < 0) {
		struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
		union bpf_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		a.insns = (uintptr_t)insns;
		a.insn_cnt = 2;
		a.license = (uintptr_t) "GPL";
		fd = kernel_bpf(BPF_PROG_LOAD, &a, sizeof(a));
		avail = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	return avail;
}

/* Under valgrind: it checks the kernel's pointer arguments, which the differential tests make
 * invalid on purpose (EFAULT cases), so they run only outside it (make check). */
static inline bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

#define REQUIRE_KERNEL()                                                                         \
	do {                                                                                     \
		if (under_valgrind())                                                            \
			SKIP("kernel side not run under valgrind (invalid pointers on purpose)"); \
		if (!kernel_bpf_available())                                                     \
			SKIP("the kernel's bpf() is unavailable here (needs root and "           \
			     "CONFIG_BPF_SYSCALL): %s", strerror(errno));                        \
	} while (0)

/* Loads cnt instructions as a program of type on side s, with MAP_SLOT replaced by map_fd.
 * Returns the fd, or -1 with errno.  A kernel failure's verifier log goes to stderr. */
static inline int prog_load_on(const struct side *s, u_int32_t type, const struct bpf_insn *insns,
			       u_int32_t cnt, int map_fd)
{
	struct bpf_insn *copy = malloc(cnt * sizeof(*copy));
	static char log[65536];
	union bpf_attr a;
	int fd, err;

	memcpy(copy, insns, cnt * sizeof(*copy));
	for (u_int32_t i = 0; i < cnt; i++)
		if (copy[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    copy[i].src_reg == BPF_PSEUDO_MAP_FD && copy[i].imm == MAP_SLOT)
			copy[i].imm = map_fd;
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)copy;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	if (s->bpf == kernel_bpf) {
		a.log_buf = (uintptr_t)log;
		a.log_size = sizeof(log);
		a.log_level = 1;
	}
	log[0] = 0;
	fd = s->bpf(BPF_PROG_LOAD, &a, sizeof(a));
	err = errno;
	if (fd < 0 && s->bpf == kernel_bpf)
		fprintf(stderr, "kernel verifier log:\n%s\n", log);
	free(copy);
	errno = err;
	return fd;
}

/* Creates a map on side s; -1 with errno on failure. */
static inline int map_create_on(const struct side *s, u_int32_t type, u_int32_t key_size,
				u_int32_t value_size, u_int32_t max_entries)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key_size;
	a.value_size = value_size;
	a.max_entries = max_entries;
	return s->bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

#endif
