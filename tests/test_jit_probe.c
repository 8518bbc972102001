/* test_jit_probe.c — probe loads (BPF_PROBE_MEM(SX): a kernel object's fields) in the JIT.
 * A load whose address is in the tasks' arena reads in place after one inline check; a run of
 * them through one pointer shares one check (emit_probe_run()), which covers loads up to
 * TASK_ARENA_TAIL - 8 bytes apart because that much past the arena stays mapped and zero.  The
 * run ends where the pointer is overwritten, a jump lands, another pointer is used, the offsets
 * spread too far, or PROBE_RUN_MAX (8) loads are in it.
 *
 * Every program runs on the interpreter (probe_load() for every load) and on the JIT with the
 * pointer at an arena block, the arena's first and last bytes (loads below it, or across its
 * end into the mapped zero bytes), a malloc'ed buffer (outside: the slow path reads it), NULL
 * and an unmapped page: the results must agree.  The slow paths are out of line: one must go
 * back before a loop's bound computed right after it.  Then the bench's task program through
 * bpf(): its JIT code has two checks, and it reads the caller's ids as the kernel's does, on a
 * run that looks the task up and on runs that read it as kept.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <userbpf/insn.h>

#include "test.h"
#include "interp_cases.h"
#include "kbpf.h"
#include "prog_struct.h"
#include "btf/vmlinux.h"
#include "exec/current_task.h"
#include "exec/interp.h"
#include "exec/jit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define PROBE(sz, dst, src, off) BPF_RAW_INSN(BPF_LDX | 0x20 | (sz), dst, src, off, 0)
#define PROBE_SX(sz, dst, src, off) BPF_RAW_INSN(BPF_LDX | 0x40 | (sz), dst, src, off, 0)
/* r0 from r2..r5, each weighed, so that every load's value shows */
#define MIX                                                                                       \
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 1000003),          \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),                                     \
		BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 1000003),                                       \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),                                     \
		BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 1000003),                                       \
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5), BPF_EXIT_INSN()

#ifdef __x86_64__

struct probe_case {
	const char *name;
	struct bpf_insn insns[24];
	uint32_t checks; /* inline arena checks in the JIT code */
};

static const struct probe_case cases[] = {
    {"three fields, one check",
     {PROBE(BPF_W, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_W, BPF_REG_3, BPF_REG_1, 4),
      PROBE(BPF_DW, BPF_REG_4, BPF_REG_1, 16), MIX},
     1},
    {"sign-extending loads in the run",
     {PROBE_SX(BPF_B, BPF_REG_2, BPF_REG_1, 3), PROBE_SX(BPF_H, BPF_REG_3, BPF_REG_1, 6),
      PROBE_SX(BPF_W, BPF_REG_4, BPF_REG_1, 8), PROBE(BPF_B, BPF_REG_5, BPF_REG_1, 1), MIX},
     1},
    /* the second load replaces the pointer with the one at +8: the run ends with it */
    {"pointer overwritten",
     {PROBE(BPF_DW, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_DW, BPF_REG_1, BPF_REG_1, 8),
      PROBE(BPF_W, BPF_REG_3, BPF_REG_1, 0), PROBE(BPF_W, BPF_REG_4, BPF_REG_1, 4),
      BPF_MOV64_REG(BPF_REG_5, BPF_REG_1), MIX},
     2},
    /* the jump lands on the third load: the first is alone, the last two a run */
    {"a jump into the run",
     {BPF_JMP_IMM(BPF_JEQ, BPF_REG_2, 1, 1), PROBE(BPF_W, BPF_REG_3, BPF_REG_1, 0),
      PROBE(BPF_W, BPF_REG_4, BPF_REG_1, 4), PROBE(BPF_W, BPF_REG_5, BPF_REG_1, 8), MIX},
     2},
    /* the furthest apart one check covers: the last byte read is 4096 past the first */
    {"4088 apart",
     {PROBE(BPF_DW, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_DW, BPF_REG_3, BPF_REG_1, 4088), MIX},
     1},
    {"4089 apart",
     {PROBE(BPF_DW, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_B, BPF_REG_3, BPF_REG_1, 4089), MIX},
     2},
    /* checked at the lowest address, below the pointer */
    {"negative offset first",
     {PROBE(BPF_W, BPF_REG_2, BPF_REG_1, 4080), PROBE(BPF_W, BPF_REG_3, BPF_REG_1, -8),
      PROBE(BPF_H, BPF_REG_4, BPF_REG_1, 100), MIX},
     1},
    {"nine loads",
     {PROBE(BPF_B, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_B, BPF_REG_3, BPF_REG_1, 1),
      PROBE(BPF_B, BPF_REG_4, BPF_REG_1, 2), PROBE(BPF_B, BPF_REG_5, BPF_REG_1, 3),
      PROBE(BPF_B, BPF_REG_2, BPF_REG_1, 4), PROBE(BPF_B, BPF_REG_3, BPF_REG_1, 5),
      PROBE(BPF_B, BPF_REG_4, BPF_REG_1, 6), PROBE(BPF_B, BPF_REG_5, BPF_REG_1, 7),
      PROBE(BPF_B, BPF_REG_2, BPF_REG_1, 8), MIX},
     2},
    /* r6 = r1 + 64 between: another pointer, so three runs of one */
    {"two pointers",
     {BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 64),
      PROBE(BPF_W, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_W, BPF_REG_3, BPF_REG_6, 0),
      PROBE(BPF_W, BPF_REG_4, BPF_REG_1, 4), MIX},
     3},
    /* r6 = r1 + r3, used only as an address: folded, [r1 + r3 + off], so each load alone */
    {"a folded pointer",
     {BPF_MOV64_IMM(BPF_REG_3, 24), BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
      BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_3), PROBE(BPF_W, BPF_REG_2, BPF_REG_6, 0),
      PROBE(BPF_W, BPF_REG_4, BPF_REG_6, 4), MIX},
     2},
    /* the pointer's value is moved elsewhere between the loads: one run still */
    {"a copy of the pointer between",
     {PROBE(BPF_W, BPF_REG_2, BPF_REG_1, 0), PROBE(BPF_W, BPF_REG_3, BPF_REG_1, 4),
      BPF_MOV64_REG(BPF_REG_4, BPF_REG_1), PROBE(BPF_W, BPF_REG_5, BPF_REG_4, 8), MIX},
     2},
};

static uint32_t case_len(const struct probe_case *pc)
{
	uint32_t n = N(pc->insns);

	while (n && !pc->insns[n - 1].code)
		n--;
	return n;
}

/* A pattern no two positions share within a run's reach, seeded so each place differs. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 151 + seed * 17 + (i >> 8) * 7) | 1);
}

TEST(jit_probe_runs)
{
	uintptr_t lo = 0;
	size_t size = 0;
	uint8_t *block, *heap, *unmapped, *end;
	uint8_t saved_end[16];
	int runs = 0;

	REQUIRE(current_task_arena(&lo, &size) && size > 64);
	block = task_arena_alloc(8192 + 64);
	heap = malloc(8192 + 64);
	unmapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(block && heap && unmapped != MAP_FAILED);
	REQUIRE((uintptr_t)block >= lo && (uintptr_t)block < lo + size);
	munmap(unmapped, 4096);
	fill(block, 8192 + 64, 1);
	fill(heap, 8192 + 64, 2);
	/* at +8 a pointer the "pointer overwritten" case follows: into the arena, or the heap */
	memcpy(block + 64 + 8, &(uint64_t){(uintptr_t)block + 256}, 8);
	memcpy(heap + 64 + 8, &(uint64_t){(uintptr_t)heap + 512}, 8);
	/* the arena's last bytes (never handed out here) get a pattern, put back after */
	end = (uint8_t *)(lo + size - sizeof(saved_end));
	memcpy(saved_end, end, sizeof(saved_end));
	fill(end, sizeof(saved_end), 3);

	const struct {
		const char *what;
		uint64_t ptr;
	} ptrs[] = {
	    {"arena block", (uintptr_t)block + 64},
	    {"arena's start", lo},
	    {"arena's last 8 bytes", lo + size - 8},
	    {"arena's last 3 bytes", lo + size - 3},
	    {"heap", (uintptr_t)heap + 64},
	    {"NULL", 0},
	    {"unmapped", (uintptr_t)unmapped},
	};

	for (size_t c = 0; c < N(cases); c++) {
		const struct probe_case *pc = &cases[c];
		uint32_t n = case_len(pc);
		struct jit_prog *jp = NULL;
		struct interp_prog *ip = NULL;

		if (jit_compile(pc->insns, n, &interp_case_env, NULL, &jp) ||
		    interp_prepare(pc->insns, n, &interp_case_env, &ip)) {
			test_fail(__FILE__, __LINE__, "%s: does not compile", pc->name);
			jit_free(jp);
			interp_free(ip);
			continue;
		}
		if (jit_probe_checks(jp) != pc->checks)
			test_fail(__FILE__, __LINE__, "%s: %u arena checks, not %u", pc->name,
				  jit_probe_checks(jp), pc->checks);
		for (size_t p = 0; p < N(ptrs); p++) {
			uint64_t args[5] = {ptrs[p].ptr}, ir0 = 1, jr0 = 2;
			int ie = interp_exec(ip, args, &ir0), je = jit_exec(jp, args, &jr0);

			if (ie || je || ir0 != jr0)
				test_fail(__FILE__, __LINE__,
					  "%s, %s: interpreter %d %#llx, JIT %d %#llx", pc->name,
					  ptrs[p].what, ie, (unsigned long long)ir0, je,
					  (unsigned long long)jr0);
			runs++;
		}
		jit_free(jp);
		interp_free(ip);
	}
	memcpy(end, saved_end, sizeof(saved_end));
	free(heap);
	CHECK_EQ(runs, (int)(N(cases) * N(ptrs)));
}

/* A probe load's slow path is out of line and goes back to where its fast path goes on: here
 * that is before the loop's bound, computed falling into the loop head right after the load
 * (jit_opts.pkt_cmp for the check at slot 5), which a jump back to the next slot would skip.
 * r1 = the probe pointer, r2 = data, r3 = data_end; the interpreter has the answers. */
TEST(jit_probe_slow_path_resumes)
{
	static const struct bpf_insn prog[] = {
	    BPF_MOV64_IMM(BPF_REG_0, 0),
	    BPF_MOV64_IMM(BPF_REG_4, 0),
	    PROBE(BPF_W, BPF_REG_7, BPF_REG_1, 0),
	    BPF_MOV64_REG(BPF_REG_5, BPF_REG_2), /* loop: */
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_5, 2),
	    BPF_JMP_REG(BPF_JGT, BPF_REG_5, BPF_REG_3, 5), /* to out */
	    BPF_LDX_MEM(BPF_H, BPF_REG_6, BPF_REG_2, 0),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 2),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 1),
	    BPF_JMP_IMM(BPF_JLT, BPF_REG_4, 15, -8), /* to loop */
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7), /* out: */
	    BPF_EXIT_INSN(),
	};
	uint8_t fact[2] = {1u << 5, 0};
	struct jit_opts o = {.sz = sizeof(o), .pkt_cmp = fact};
	struct jit_prog *jp = NULL;
	struct interp_prog *ip = NULL;
	static uint8_t pkt[40];
	uint32_t *obj = task_arena_alloc(64);
	int runs = 0;

	REQUIRE(obj);
	*obj = 0x1234567;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 29 + 5);
	REQUIRE(jit_compile(prog, N(prog), &interp_case_env, &o, &jp) == 0);
	REQUIRE(interp_prepare(prog, N(prog), &interp_case_env, &ip) == 0);
	CHECK_EQ(jit_hoisted_checks(jp), 1);
	CHECK_EQ(jit_probe_checks(jp), 1);
	for (int where = 0; where < 2; where++) {
		for (uint32_t len = 0; len <= 33; len++) {
			uint64_t args[5] = {where ? (uintptr_t)obj : 0, (uintptr_t)pkt,
					    (uintptr_t)pkt + len};
			uint64_t ir0 = 1, jr0 = 2;
			int ie = interp_exec(ip, args, &ir0), je = jit_exec(jp, args, &jr0);

			if (ie || je || ir0 != jr0)
				test_fail(__FILE__, __LINE__,
					  "%s, %u bytes: interpreter %d %#llx, JIT %d %#llx",
					  where ? "arena" : "NULL", len, ie,
					  (unsigned long long)ir0, je, (unsigned long long)jr0);
			runs++;
		}
	}
	CHECK_EQ(runs, 68);
	jit_free(jp);
	interp_free(ip);
}

#endif /* __x86_64__ */

/* The bench's task program, its result the ids: pid * 3 + tgid * 5 + real_parent->tgid * 7
 * (the calling thread's, its process's and the parent process's ids). */
TEST(diff_jit_probe_task)
{
	const struct btf *btf = btf_vmlinux();
	uint32_t task = btf_vmlinux_task_struct();
	long pid = task ? btf_member_offset(btf, task, "pid") : -1;
	long tgid = task ? btf_member_offset(btf, task, "tgid") : -1;
	long rp = task ? btf_member_offset(btf, task, "real_parent") : -1;
	uint32_t want = (uint32_t)syscall(SYS_gettid) * 3 + (uint32_t)getpid() * 5 +
			(uint32_t)getppid() * 7;
	uint8_t pkt[64] = {0};

	if (pid < 0 || tgid < 0 || rp < 0) {
		test_skip("no kernel BTF with task_struct's pid, tgid and real_parent");
		return;
	}
	const struct bpf_insn prog[] = {
	    BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, (int16_t)pid),
	    BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, (int16_t)tgid),
	    BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0, (int16_t)rp),
	    BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_3, (int16_t)tgid),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_1, 3),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_2, 5),
	    BPF_ALU64_IMM(BPF_MUL, BPF_REG_3, 7),
	    BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
	    BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	    BPF_EXIT_INSN(),
	};
	int was = userbpf_set_jit(1);
	int fd = side_prog_load(U, BPF_PROG_TYPE_XDP, prog, N(prog));
	uint32_t got = 0;

	userbpf_set_jit(was);
	REQUIRE(fd >= 0);
#ifdef __x86_64__
	{
		struct bpf_prog *p = prog_struct_of_fd(fd);

		/* the three loads through the task: one run; the parent's tgid: one more */
		CHECK(p && p->jit);
		if (p && p->jit)
			CHECK_EQ(jit_probe_checks(p->jit), 2);
	}
#endif
	/* one run: the task is looked up (the JIT's slow path); three: then read as kept */
	CHECK_EQ(side_test_run(U, fd, pkt, sizeof(pkt), &got).err, 0);
	CHECK_EQ(got, want);
	got = 0;
	CHECK_EQ(side_test_run_ctx(U, fd, pkt, sizeof(pkt), 3, NULL, 0, NULL, 0, &got).err, 0);
	CHECK_EQ(got, want);
	close(fd);
	if (!kernel_bpf_available()) {
		test_skip("the kernel's bpf() is unavailable: %s", kernel_bpf_unavailable_reason());
		return;
	}
	fd = side_prog_load(K, BPF_PROG_TYPE_XDP, prog, N(prog));
	REQUIRE(fd >= 0);
	got = 0;
	CHECK_EQ(side_test_run(K, fd, pkt, sizeof(pkt), &got).err, 0);
	CHECK_EQ(got, want);
	close(fd);
}
