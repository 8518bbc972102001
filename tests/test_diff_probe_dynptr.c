/* bpf_probe_read_{user,kernel}{,_str}_dynptr() (6.16), against the kernel: a socket filter
 * makes a local dynptr over a 64-byte map value (or a NULL one) and copies into it at an
 * offset, with a size, from a source.  The user forms read this process's memory on both sides
 * (the kernel's test run runs in it): strings with their NUL anywhere, ones that run into an
 * unreadable page, NULL, the kernel's guard hole.  The kernel forms are compared on what both
 * refuse (NULL, small integers, non-canonical addresses): userbpf reads its
 * process's memory where the kernel says -ERANGE for a user address (README).  The value
 * returned and every byte of the map value must be the kernel's (the word-at-a-time copy's
 * zeroed bytes after a NUL included).  Skipped where the kernel's bpf() is unavailable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"
#include "verifier_harness.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define VALUE 64

static const char *const names[] = { "bpf_probe_read_user_dynptr",
				     "bpf_probe_read_user_str_dynptr",
				     "bpf_probe_read_kernel_dynptr",
				     "bpf_probe_read_kernel_str_dynptr" };

/* r0 = kfunc(a local dynptr over the map value (flags 1: a NULL one), off, size, src) */
static int build(int map_fd, uint32_t kfunc_id, uint32_t flags, uint64_t off, uint64_t size,
		 uint64_t src, struct bpf_insn *p)
{
	return copy_prog(map_fd, VALUE, (int)flags, off, size, src,
			 BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
				      (int32_t)kfunc_id), p);
}

TEST(diff_probe_read_dynptr)
{
	const struct btf *vmlinux = btf_vmlinux();
	uint32_t ids[N(names)];
	uint8_t *pages, value[NSIDES][VALUE];
	uint32_t seed = 20261206;
	int maps[NSIDES], runs = 0, copied = 0, faulted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!vmlinux)
		SKIP("no kernel BTF");
	for (size_t k = 0; k < N(names); k++) {
		ids[k] = btf_find_func(vmlinux, names[k]);
		if (!ids[k])
			SKIP("the kernel's BTF has no %s (before 6.16)", names[k]);
	}
	pages = copy_fixture(maps, VALUE);
	REQUIRE(pages != NULL);

	/* the verifier's view of each call: the same level-2 log */
	for (size_t k = 0; k < N(names); k++) {
		static char logs[NSIDES][1 << 16];
		struct bpf_result r[NSIDES];
		char diff[512];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn prog[32];
			int n = build(maps[s], ids[k], 0, 8, 16, 0x1000, prog);
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
			a.insns = PTR_TO_U64(prog);
			a.insn_cnt = (uint32_t)n;
			a.license = PTR_TO_U64("GPL");
			a.log_buf = PTR_TO_U64(logs[s]);
			a.log_size = sizeof(logs[s]);
			a.log_level = 2;
			logs[s][0] = 0;
			r[s] = side_call(s, BPF_PROG_LOAD, &a);
			if (r[s].rc >= 0)
				close(r[s].rc);
			vlog_blank_addrs(logs[s]);
		}
		if (AGREE(names[k], r) && strcmp(logs[K], logs[U])) {
			vlog_first_diff(logs[K], logs[U], diff, sizeof(diff));
			test_fail(__FILE__, __LINE__, "%s: %s", names[k], diff);
		}
	}
	for (int i = 0; i < 800; i++) {
#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
		uint32_t k = RND(N(names)), flags = RND(8) ? 0 : 1;
		uint64_t off = RND(8) ? RND(VALUE) : RND(3) ? RND(VALUE + 16) : 1ull << 32;
		uint64_t size = RND(8) ? RND(VALUE - off % VALUE + 1) : RND(3) ? RND(VALUE + 16)
										: 1ull << 33;
		uint64_t src;
		uint32_t kind = RND(10);
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		char what[160];

		/* the kernel forms: only what both refuse (NULL, small, non-canonical: the
		 * guard hole is not unreadable on every machine) */
		if (k >= 2 && (kind < 6 || kind > 8))
			kind = 6 + RND(3);
		src = copy_src(pages, kind, RND(1u << 20));
#undef RND
		snprintf(what, sizeof(what), "#%d %s(%s, off %llu, size %llu, src %#llx)", i,
			 names[k], flags ? "NULL dynptr" : "64-byte dynptr", (unsigned long long)off,
			 (unsigned long long)size, (unsigned long long)src);
		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn prog[32];
			int n = build(maps[s], ids[k], flags, off, size, src, prog);

			r[s] = side_copy_run(s, maps[s], VALUE, BPF_PROG_TYPE_SOCKET_FILTER, 0, prog,
					     (uint32_t)n, true, value[s], &ret[s]);
		}
		if (!AGREE(what, r) || r[K].rc < 0)
			continue;
		runs++;
		copied += ret[K] != 0 && (int32_t)ret[K] > 0;
		faulted += (int32_t)ret[K] == -EFAULT;
		COPIES_AGREE(what, ret, value[K], value[U], VALUE);
	}
	copy_fixture_done(pages, maps);
	if (getenv("TEST_VERBOSE"))
		printf("diff_probe_read_dynptr: %d runs, %d returned a length, %d -EFAULT\n", runs,
		       copied, faulted);
	CHECK(runs >= 700 && copied >= 50 && faulted >= 50);
}
