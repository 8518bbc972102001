/* BPF_MAP_TYPE_STACK_TRACE against the kernel: creation rules (key and value sizes, flags, build
 * ids, the perf_event_max_stack limit, max_entries), the commands on a map no program has filled
 * (delete answers E2BIG past the buckets), and the verifier's rules for bpf_get_stackid() and
 * bpf_get_stack().  What a program records is the kernel's own call chain, which userbpf has not:
 * its helpers answer -EFAULT, as the kernel's do without a call chain (checked on userbpf alone).
 * Skipped where the kernel's bpf() is unavailable, but for that last check.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define ST BPF_MAP_TYPE_STACK_TRACE

/* r0, a helper's result, indexes the 64-byte buffer at fp - 64 when it is 1 or more (its
 * upper bound is what the verifier must know), then return 0 */
#define RESULT_INDEXES_BUF                                                                       \
	BPF_JMP_IMM(BPF_JSLT, BPF_REG_0, 1, 4), BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),             \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -65), BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_0),     \
	BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()

TEST(diff_stackmap_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 8, 16, 0 },
		{ 4, 127 * 8, 16, 0 },
		{ 4, 128 * 8, 16, 0 },
		{ 4, 12, 16, 0 },
		{ 4, 4, 16, 0 },
		{ 8, 8, 16, 0 },
		{ 4, 8, 0, 0 },
		{ 4, 8, 1u << 16, 0 },
		{ 4, 8, (1u << 31) + 1, 0 },	/* (1 << 31: the kernel cannot preallocate it) */
		{ 4, 32, 16, BPF_F_STACK_BUILD_ID },
		{ 4, 40, 16, BPF_F_STACK_BUILD_ID },
		{ 4, 127 * 32, 16, BPF_F_STACK_BUILD_ID },
		{ 4, 128 * 32, 16, BPF_F_STACK_BUILD_ID },
		{ 4, 8, 16, BPF_F_NO_PREALLOC },
		{ 4, 8, 16, BPF_F_RDONLY },
		{ 4, 8, 16, BPF_F_RDONLY_PROG },
		{ 4, 8, 16, BPF_F_NUMA_NODE },
		{ 4, 8, 16, BPF_F_MMAPABLE },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(ST, shapes);
}

TEST(diff_stackmap_commands)
{
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fd[s] = side_map_create(s, ST, 4, 64, 10, 0).rc;
		REQUIRE(fd[s] >= 0);
	}
	/* keys around the 16 buckets of 10 entries */
	static const uint32_t keys[] = { 0, 9, 10, 15, 16, 17, 1000 };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (int c = 0; c < 5; c++) {
			static const int cmds[] = { BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM,
						    BPF_MAP_DELETE_ELEM, BPF_MAP_GET_NEXT_KEY,
						    BPF_MAP_LOOKUP_AND_DELETE_ELEM };
			struct bpf_result r[NSIDES];
			uint8_t value[64] = { 0 };
			char what[48];

			for (int s = 0; s < NSIDES; s++)
				r[s] = side_elem(s, cmds[c], fd[s], &keys[k], value, 0);
			snprintf(what, sizeof(what), "key %u command %d", keys[k], cmds[c]);
			AGREE(what, r);
		}
	}
	{
		struct bpf_result r[NSIDES];
		uint32_t next;

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], NULL, &next, 0);
		AGREE("first key", r);
	}
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}

/* The helpers' arguments: the map (a stack map, and only with get_stackid), get_stack's buffer
 * and its size, whose bound the result keeps; in the tracing types and not in others. */
TEST(diff_stackmap_verifier)
{
	int stack[NSIDES], hash[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		stack[s] = side_map_create(s, ST, 4, 64, 16, 0).rc;
		hash[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 64, 16, 0).rc;
		REQUIRE(stack[s] >= 0 && hash[s] >= 0);
	}
	static const struct {
		const char *what;
		uint32_t type;
		bool hash, lookup;
	} stackid[] = {
		{ "kprobe", BPF_PROG_TYPE_KPROBE, false, false },
		{ "tracepoint", BPF_PROG_TYPE_TRACEPOINT, false, false },
		{ "raw tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, false, false },
		{ "perf event", BPF_PROG_TYPE_PERF_EVENT, false, false },
		{ "a hash map", BPF_PROG_TYPE_KPROBE, true, false },
		{ "map_lookup_elem", BPF_PROG_TYPE_KPROBE, false, true },
		{ "XDP", BPF_PROG_TYPE_XDP, false, false },
	};
	for (size_t i = 0; i < sizeof(stackid) / sizeof(stackid[0]); i++) {
		struct bpf_insn p[NSIDES][8];

		for (int s = 0; s < NSIDES; s++) {
			int map = stackid[i].hash ? hash[s] : stack[s];
			struct bpf_insn call[] = {
				BPF_LD_MAP_FD(BPF_REG_2, map),
				BPF_MOV64_IMM(BPF_REG_3, BPF_F_USER_STACK),
				BPF_EMIT_CALL(BPF_FUNC_get_stackid),
				BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_EXIT_INSN(),
			};
			struct bpf_insn lookup[] = { /* lookup(map, fp - 4) */
				BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
				BPF_LD_MAP_FD(BPF_REG_1, map),
				BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
				BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
				BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
				BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_EXIT_INSN(),
			};

			if (stackid[i].lookup)
				memcpy(p[s], lookup, sizeof(lookup));
			else
				memcpy(p[s], call, sizeof(call));
		}
		VERDICTS_AGREE(stackid[i].what, stackid[i].type, p[K], p[U],
			       stackid[i].lookup ? 8 : 6);
	}
	/* get_stack into 64 bytes at fp - 64; the result, at most 64, indexes a 64-byte buffer */
	for (int size = 0; size <= 72; size += 8) {
		struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
			BPF_MOV64_IMM(BPF_REG_3, size),
			BPF_MOV64_IMM(BPF_REG_4, BPF_F_USER_STACK),
			BPF_EMIT_CALL(BPF_FUNC_get_stack),
			RESULT_INDEXES_BUF,
		};
		char what[32];

		snprintf(what, sizeof(what), "get_stack of %d bytes", size);
		VERDICTS_AGREE(what, BPF_PROG_TYPE_KPROBE, insns, insns, 12);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(stack[s]);
		close(hash[s]);
	}
}

/* On userbpf (no call chain): a raw tracepoint's get_stackid gives -EFAULT, or -EINVAL for
 * unknown flags; get_stack zeroes its buffer. */
TEST(stackmap_no_call_chain)
{
	int map = side_map_create(U, ST, 4, 64, 16, 0).rc;

	REQUIRE(map >= 0);
	for (int f = 0; f < 2; f++) {
		struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_LD_MAP_FD(BPF_REG_2, map),
			BPF_LD_IMM64(BPF_REG_3, f ? (1ull << 40) : BPF_F_USER_STACK),
			BPF_EMIT_CALL(BPF_FUNC_get_stackid),
			BPF_EXIT_INSN(),
		};
		int prog = side_prog_load(U, BPF_PROG_TYPE_RAW_TRACEPOINT, insns,
					  sizeof(insns) / sizeof(insns[0]));
		union bpf_attr a;

		REQUIRE(prog >= 0);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)prog;
		CHECK_EQ(side_call(U, BPF_PROG_TEST_RUN, &a).rc, 0);
		CHECK_EQ((int32_t)a.test.retval, f ? -EINVAL : -EFAULT);
		close(prog);
	}
	close(map);
}

/* bpf_get_task_stack(task, buf, size, flags), a base helper of 6.18 (every program type): the
 * verifier's rules against the kernel's (a task it may pass on, not NULL, not a number; the
 * buffer and its size), then runs of a raw tracepoint on the current task whose flags or size
 * the kernel refuses (-EINVAL, the buffer zeroed) on both sides.  A valid call gets the
 * kernel's stack of the task there, and -EFAULT here (no call chain, as bpf_get_stack()). */
#define TASK_STACK_CALL(size, flags)                                                              \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                 \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64), BPF_MOV64_IMM(BPF_REG_3, size),                    \
	BPF_LD_IMM64(BPF_REG_4, flags), BPF_EMIT_CALL(BPF_FUNC_get_task_stack)

TEST(diff_get_task_stack)
{
	static const struct {
		const char *what;
		uint32_t type;
		struct bpf_insn task;
	} cases[] = {
		{ "raw tracepoint, the current task", BPF_PROG_TYPE_RAW_TRACEPOINT,
		  BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf) },
		{ "XDP, the current task", BPF_PROG_TYPE_XDP,
		  BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf) },
		{ "socket filter, the current task", BPF_PROG_TYPE_SOCKET_FILTER,
		  BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf) },
		{ "raw tracepoint, NULL", BPF_PROG_TYPE_RAW_TRACEPOINT,
		  BPF_MOV64_IMM(BPF_REG_0, 0) },
		{ "raw tracepoint, the task as a number", BPF_PROG_TYPE_RAW_TRACEPOINT,
		  BPF_EMIT_CALL(BPF_FUNC_get_current_task) },
		{ "raw tracepoint, the stack as the task", BPF_PROG_TYPE_RAW_TRACEPOINT,
		  BPF_MOV64_REG(BPF_REG_0, BPF_REG_10) },
	};
	static const struct {
		int size;
		uint64_t flags;
	} bad[] = { { 64, 1ull << 40 }, { 12, 0 }, { 64, BPF_F_USER_BUILD_ID }, { 60, 256 } };
	int runs = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_insn insns[] = {
			cases[i].task, TASK_STACK_CALL(64, BPF_F_USER_STACK),
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE(cases[i].what, cases[i].type, insns, insns,
			       sizeof(insns) / sizeof(insns[0]));
	}
	/* the result, at most the size (the kernel's bound on it), indexes the 64-byte buffer */
	for (int size = 8; size <= 72; size += 64) {
		struct bpf_insn insns[] = {
			BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
			TASK_STACK_CALL(size, 0),
			RESULT_INDEXES_BUF,
		};
		char what[48];

		snprintf(what, sizeof(what), "get_task_stack of %d bytes, its result an index",
			 size);
		VERDICTS_AGREE(what, BPF_PROG_TYPE_RAW_TRACEPOINT, insns, insns,
			       sizeof(insns) / sizeof(insns[0]));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* r0 = the result, or 1 if a byte of the buffer (filled with 0xff first) is not
		 * zero after it */
		struct bpf_insn insns[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -64, -1),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, -1),
			BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
			TASK_STACK_CALL(bad[i].size, bad[i].flags),
			BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -64),
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, bad[i].size >= 64 ? -8 : -64),
			BPF_ALU64_REG(BPF_OR, BPF_REG_1, BPF_REG_2),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};
		uint32_t ret[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			int prog = side_prog_load(s, BPF_PROG_TYPE_RAW_TRACEPOINT, insns,
						  sizeof(insns) / sizeof(insns[0]));

			ret[s] = 7;
			if (prog < 0) {
				test_fail(__FILE__, __LINE__, "side %d: bad call %zu not loaded", s,
					  i);
				continue;
			}
			side_test_run_ctx(s, prog, NULL, 0, 0, NULL, 0, NULL, 0, &ret[s]);
			close(prog);
		}
		CHECK_EQ((int32_t)ret[U], (int32_t)ret[K]);
		CHECK_EQ((int32_t)ret[U], -EINVAL);
		runs += ret[U] == ret[K];
	}
	printf("diff_get_task_stack: %zu programs with the kernel's verdict, %d refused calls with "
	       "its -EINVAL and zeroed buffer\n", sizeof(cases) / sizeof(cases[0]), runs);
}
