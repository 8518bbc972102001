/* Verifier cost: time to BPF_PROG_LOAD (verify) a program on userbpf against the kernel's
 * BPF_PROG_LOAD of the same program in the same run, and userbpf's peak memory by program size.
 *
 * Why: the verifier is the slow part of loading; these rows show how it scales on the shapes
 * that stress a verifier differently: a long straight line (one pass, per-insn data only), a deep
 * if-ladder (a branch per rung, pruning keeps it linear), a bounded loop (one walk per
 * iteration) and many map lookups (helper calls and NULL-check branches).  The rate is loads per
 * second; the ratio is userbpf's rate over the kernel's.  Memory: each size is loaded in a fresh
 * child process and the growth of its peak RSS (getrusage ru_maxrss) is reported, so the figure
 * is the verifier's peak (the instruction copies included), not the allocator's history.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <userbpf.h>
#include <userbpf/insn.h>

#include "bench.h"

typedef int (*bpf_call_fn)(int cmd, union bpf_attr *attr, unsigned int size);

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

struct load_ctx {
	bpf_call_fn call;
	struct bpf_insn *insns;
	unsigned int cnt;
	int map_fd;		/* this side's map, patched into LD_IMM64 map loads */
};

static int load(bpf_call_fn call, const struct bpf_insn *insns, unsigned int cnt)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = cnt;
	a.license = (uintptr_t) "GPL";
	return call(BPF_PROG_LOAD, &a, sizeof(a));
}

static uint64_t op_load(void *ctx, unsigned int tid, unsigned int nthreads, uint64_t n)
{
	struct load_ctx *c = ctx;
	uint64_t fails = 0;

	for (uint64_t i = 0; i < n; i++) {
		int fd = load(c->call, c->insns, c->cnt);

		if (fd < 0)
			fails++;
		else
			close(fd);
	}
	return fails;
}

/* r0 = 0, then cnt - 2 ALU instructions, exit. */
static unsigned int straight(struct bpf_insn *p, unsigned int cnt)
{
	unsigned int n = 0;

	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	for (; n < cnt - 1; n++)
		p[n] = n % 2 ? BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 3)
			     : BPF_ALU64_IMM(BPF_XOR, BPF_REG_0, (int32_t)n);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* r1 = unknown; rungs x { if r1 OP k goto +1; r0 += 1 or r0 = r0 }: a branch per rung.  With
 * JEQ and a no-op the two paths meet in states one contains (pruning keeps it linear); with JGT
 * and r0 += 1 they differ in r0 and r1, which only liveness and precision tracking can prune. */
static unsigned int ladder(struct bpf_insn *p, unsigned int rungs, bool jeq)
{
	unsigned int n = 0;

	p[n++] = BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	for (unsigned int i = 0; i < rungs; i++) {
		p[n++] = BPF_JMP_IMM(jeq ? BPF_JEQ : BPF_JGT, BPF_REG_1, 1000 + (int32_t)i * 7, 1);
		p[n++] = jeq ? BPF_MOV64_REG(BPF_REG_0, BPF_REG_0) : BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1);
	}
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* for (r1 = 0; r1 < iters; r1++) r0 += r1 */
static unsigned int loop(struct bpf_insn *p, int iters)
{
	unsigned int n = 0;

	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_1, 0);
	p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1);
	p[n++] = BPF_JMP_IMM(BPF_JLT, BPF_REG_1, iters, -3);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* lookups x { key = i % 4; r0 = lookup(map, &key); if r0 { *(u64 *)r0 += 1 } } */
static unsigned int lookups(struct bpf_insn *p, unsigned int k, int map_fd)
{
	unsigned int n = 0;

	p[n++] = BPF_MOV64_IMM(BPF_REG_6, 0);
	for (unsigned int i = 0; i < k; i++) {
		struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, map_fd) };

		p[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -8, (int32_t)(i % 4));
		p[n++] = ld[0];
		p[n++] = ld[1];
		p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8);
		p[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
		p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2);
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0);
		p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_1);
	}
	p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_6);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

static int array_map(bpf_call_fn call)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 4;
	return call(BPF_MAP_CREATE, &a, sizeof(a));
}

static void row(const char *name, struct load_ctx *u, struct load_ctx *k)
{
	struct bench_side sides[2] = {
		{ "userbpf", op_load, u },
		{ "kernel", k->insns && load(kernel_bpf, k->insns, k->cnt) >= 0 ? op_load : NULL, k },
	};

	if (!bench_selected(name))
		return;
	if (load(bpf, u->insns, u->cnt) < 0) {
		printf("%-28s userbpf rejects it: %s\n", name, strerror(errno));
		return;
	}
	bench_row(name, sides, 2, 1);
}

BENCH(verifier)
{
	unsigned int max = 1000000;
	struct bpf_insn *p = calloc(max, sizeof(*p)), *kp = calloc(max, sizeof(*kp));
	struct load_ctx u = { bpf, p, 0, -1 }, k = { kernel_bpf, kp, 0, -1 };
	int umap = array_map(bpf), kmap = array_map(kernel_bpf);

	if (!p || !kp)
		return;
	u.cnt = k.cnt = straight(p, 100000);
	memcpy(kp, p, u.cnt * sizeof(*p));
	row("verify/straight/100k", &u, &k);
	u.cnt = k.cnt = ladder(p, 2000, true);
	memcpy(kp, p, u.cnt * sizeof(*p));
	row("verify/if-ladder/2000-jeq", &u, &k);
	u.cnt = k.cnt = ladder(p, 100, false);
	memcpy(kp, p, u.cnt * sizeof(*p));
	row("verify/if-ladder/100-jgt", &u, &k);
	u.cnt = k.cnt = loop(p, 5000);
	memcpy(kp, p, u.cnt * sizeof(*p));
	row("verify/loop/5000-iters", &u, &k);
	u.cnt = lookups(p, 500, umap);
	k.cnt = lookups(kp, 500, kmap);
	if (kmap < 0)
		k.insns = NULL;
	row("verify/map-lookups/500", &u, &k);
	free(p);
	free(kp);
	if (umap >= 0)
		close(umap);
	if (kmap >= 0)
		close(kmap);
}

/* Peak RSS growth (KiB) of loading a straight line of cnt instructions, in a child. */
static long peak_kib(unsigned int cnt)
{
	int fds[2];
	long kib = -1;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct bpf_insn *p = calloc(cnt, sizeof(*p));
		struct rusage before, after;
		long d = -1;
		int fd;

		if (p) {
			straight(p, cnt);
			getrusage(RUSAGE_SELF, &before);
			fd = load(bpf, p, cnt);
			getrusage(RUSAGE_SELF, &after);
			if (fd >= 0)
				d = after.ru_maxrss - before.ru_maxrss;
		}
		if (write(fds[1], &d, sizeof(d)) != sizeof(d))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &kib, sizeof(kib)) != sizeof(kib))
		kib = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return kib;
}

BENCH(verifier_memory)
{
	static const unsigned int sizes[] = { 10000, 100000, 1000000 };

	if (!bench_selected("verify/memory"))
		return;
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		long kib = peak_kib(sizes[i]);

		if (kib < 0)
			printf("verify/memory/straight/%u  unavailable\n", sizes[i]);
		else
			printf("verify/memory/straight/%-8u peak RSS +%ld KiB  (%.1f bytes/insn)\n",
			       sizes[i], kib, kib * 1024.0 / sizes[i]);
	}
}
