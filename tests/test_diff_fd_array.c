/* Maps named by index (LD_IMM64 with src_reg BPF_PSEUDO_MAP_IDX or BPF_PSEUDO_MAP_IDX_VALUE:
 * imm indexes BPF_PROG_LOAD's fd_array), what light skeletons and gen_loader send, against the
 * kernel: a map and a value's address found through the array (a negative index included: the
 * kernel reads before the array), no array, an index at a closed fd, a second half that is not
 * zero, an array the kernel cannot read.  The verdict, errno, error line and, for a program that
 * loads, its run's result must be the kernel's (and its translated program names the map by
 * id, as one named by fd).  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* r0 = the map's value at key 0, word 1 (idx: the map's index in fd_array) */
#define LOOKUP_BY_IDX(kind, idx, hi)                                                             \
	{ BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),            \
	  BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),                                                 \
	  BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, kind, 0, idx),                      \
	  BPF_RAW_INSN(0, 0, 0, 0, hi), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),               \
	  BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2), BPF_MOV64_IMM(BPF_REG_0, 99), BPF_EXIT_INSN(),   \
	  BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4), BPF_EXIT_INSN() }
/* r0 = the word at offset off of the value idx names */
#define VALUE_BY_IDX(idx, off)                                                                   \
	{ BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_IDX_VALUE, 0, idx),  \
	  BPF_RAW_INSN(0, 0, 0, 0, off), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),             \
	  BPF_EXIT_INSN() }

enum { ARRAY_OK, NO_ARRAY, UNREADABLE };

/* The translated program of side s's fd (its 4th instruction the map's LD_IMM64) shows the map
 * as one named by fd, by its id. */
static void check_dump(int s, int fd, uint32_t map_id)
{
	struct bpf_insn insns[64];
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	memset(insns, 0, sizeof(insns)); /* (valgrind does not see the kernel's bpf() write it) */
	info.xlated_prog_insns = PTR_TO_U64(insns);
	info.xlated_prog_len = sizeof(insns);
	if (side_obj_info(s, fd, &info, &len).rc) {
		test_fail(__FILE__, __LINE__, "side %d: BPF_OBJ_GET_INFO_BY_FD failed", s);
		return;
	}
	CHECK(info.xlated_prog_len >= 5 * sizeof(insns[0]));
	CHECK_EQ(insns[3].code, BPF_LD | BPF_DW | BPF_IMM);
	CHECK_EQ(insns[3].src_reg, BPF_PSEUDO_MAP_FD);
	CHECK_EQ((uint32_t)insns[3].imm, map_id);
}

TEST(diff_fd_array_map_idx)
{
	static const struct {
		const char *what;
		struct bpf_insn insns[12];
		int array;
	} cases[] = {
		{ "a map by index", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 1, 0), ARRAY_OK },
		{ "the other map", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 2, 0), ARRAY_OK },
		{ "a negative index", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, -1, 0), ARRAY_OK },
		{ "an index at a closed fd", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 3, 0), ARRAY_OK },
		{ "an index at a non-map fd", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 0, 0), ARRAY_OK },
		{ "no fd_array", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 1, 0), NO_ARRAY },
		{ "an unreadable fd_array", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 1, 0), UNREADABLE },
		{ "a second half not zero", LOOKUP_BY_IDX(BPF_PSEUDO_MAP_IDX, 1, 4), ARRAY_OK },
		{ "a value by index", VALUE_BY_IDX(2, 4), ARRAY_OK },
		{ "a value by index, offset 0", VALUE_BY_IDX(2, 0), ARRAY_OK },
		{ "a value past its end", VALUE_BY_IDX(2, 8), ARRAY_OK },
		{ "a value of a hash map", VALUE_BY_IDX(1, 0), ARRAY_OK },
		{ "a value without fd_array", VALUE_BY_IDX(2, 0), NO_ARRAY },
	};
	/* [0] a guard slot read by index -1; then fd_array: a non-map fd, a hash map, an array of
	 * one element, a closed fd */
	int fds[NSIDES][5], ran = 0;
	void *unreadable;

	SKIP_WITHOUT_KERNEL_BPF();
	unreadable = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(unreadable != MAP_FAILED);
	for (int s = 0; s < NSIDES; s++) {
		uint32_t key = 0, v[2] = { 5, 0x1234 };

		fds[s][2] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		fds[s][3] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0).rc;
		REQUIRE(fds[s][2] >= 0 && fds[s][3] >= 0);
		REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, fds[s][2], &key, v, 0).rc, 0);
		v[1] = 0x5678;
		REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, fds[s][3], &key, v, 0).rc, 0);
		fds[s][0] = fds[s][3];	/* (index -1: the array) */
		fds[s][1] = 0;		/* stdin */
		fds[s][4] = 1000;	/* (no such fd) */
	}
	for (size_t i = 0; i < N(cases); i++) {
		static char log[NSIDES][4096];
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		const char *line[NSIDES];
		uint32_t n = 0;

		while (n < N(cases[i].insns) && (cases[i].insns[n].code || n == 0 ||
						  cases[i].insns[n - 1].code ==
							  (BPF_LD | BPF_DW | BPF_IMM)))
			n++;
		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
			a.insns = PTR_TO_U64(cases[i].insns);
			a.insn_cnt = n;
			a.license = PTR_TO_U64("GPL");
			a.log_buf = PTR_TO_U64(log[s]);
			a.log_size = sizeof(log[s]);
			a.log_level = 1;
			log[s][0] = 0;
			a.fd_array = cases[i].array == ARRAY_OK     ? PTR_TO_U64(&fds[s][1])
				     : cases[i].array == UNREADABLE ? PTR_TO_U64(unreadable)
								    : 0;
			r[s] = side_call(s, BPF_PROG_LOAD, &a);
			line[s] = log_error_line(log[s]);
			if (r[s].rc >= 0) {
				uint8_t pkt[64] = { 0 };
				int fd = r[s].rc;

				if (i == 0)
					check_dump(s, fd, side_map_id(s, fds[s][2]));
				r[s] = side_test_run(s, fd, pkt, sizeof(pkt), &ret[s]);
				close(fd);
			}
		}
		if (getenv("TEST_VERBOSE"))
			printf("%s: kernel %d/%d \"%s\" ret %#x; userbpf %d/%d \"%s\" ret %#x\n",
			       cases[i].what, r[K].rc, r[K].err, line[K] ? line[K] : "", ret[K],
			       r[U].rc, r[U].err, line[U] ? line[U] : "", ret[U]);
		if (!AGREE(cases[i].what, r))
			continue;
		if (r[K].rc < 0 && strcmp(line[K] ? line[K] : "", line[U] ? line[U] : ""))
			test_fail(__FILE__, __LINE__, "%s: the kernel says \"%s\", userbpf \"%s\"",
				  cases[i].what, line[K] ? line[K] : "", line[U] ? line[U] : "");
		if (r[K].rc >= 0) {
			ran++;
			if (ret[K] != ret[U])
				test_fail(__FILE__, __LINE__, "%s: the kernel's run returns %#x, "
					  "userbpf's %#x", cases[i].what, ret[K], ret[U]);
		}
	}
	CHECK(ran >= 5);
	munmap(unreadable, 4096);
	for (int s = 0; s < NSIDES; s++) {
		close(fds[s][2]);
		close(fds[s][3]);
	}
}

/* fd_array with fd_array_cnt (6.14): every fd in it is bound to the program from the start, a
 * map (first in the info's map_ids, in the array's order, once each, checked as a map the
 * program refers to: a sleepable one's types) or a BTF object; anything else, too many maps, a
 * count too big or without an array are refused.  The verdict, errno, error line and the
 * program's maps (which of the test's it holds, in order) must be the kernel's. */
TEST(diff_fd_array_cnt)
{
	enum { A, B, PERF, STDIN, CLOSED, BTF, NFDS };
	static const struct {
		const char *what;
		int fds[4], nfds; /* indexes into the side's fds, or -1 for 64 fresh arrays */
		uint32_t cnt;
		bool uses_b, sleepable, null_array;
	} cases[] = {
		{ "one map, unused", { A }, 1, 1, .uses_b = false },
		{ "two maps, the second used", { A, B }, 2, 2, .uses_b = true },
		{ "two maps, the first used", { B, A }, 2, 2, .uses_b = true },
		{ "no count: only the used map", { A, B }, 2, 0, .uses_b = true },
		{ "a map twice", { A, A }, 2, 2, .uses_b = false },
		{ "stdin", { STDIN }, 1, 1, .uses_b = false },
		{ "a closed fd", { CLOSED }, 1, 1, .uses_b = false },
		{ "a BTF object", { BTF }, 1, 1, .uses_b = false },
		{ "a BTF object and a map", { BTF, B, BTF }, 3, 3, .uses_b = false },
		{ "a count too big", { A }, 1, 0x40000000, .uses_b = false },
		{ "a count just too big", { A }, 1, 0x3fffffff, .uses_b = false },
		{ "a count without an array", { A }, 1, 1, .null_array = true },
		{ "a sleepable program's perf event array", { PERF }, 1, 1, .sleepable = true },
		{ "a socket filter's perf event array", { PERF }, 1, 1, .uses_b = false },
		{ "65 maps", { -1 }, 0, 65, .uses_b = false },
		{ "64 maps", { -1 }, 0, 64, .uses_b = false },
	};
	static const uint32_t types[] = { T_INT(1, 4, 0, 0, 32) };
	int fds[NSIDES][NFDS], many[NSIDES][65];
	uint32_t ids[NSIDES][NFDS];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		fds[s][A] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0).rc;
		fds[s][B] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		fds[s][PERF] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 4, 0).rc;
		fds[s][STDIN] = 0;
		fds[s][CLOSED] = 1000;
		fds[s][BTF] = side_btf_load(s, types, N(types), "\0int", 5);
		for (int i = 0; i < 65; i++) {
			many[s][i] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
			REQUIRE(many[s][i] >= 0);
		}
		REQUIRE(fds[s][A] >= 0 && fds[s][B] >= 0 && fds[s][PERF] >= 0 && fds[s][BTF] >= 0);
		for (int f = 0; f < NFDS; f++)
			ids[s][f] = f <= PERF ? side_map_id(s, fds[s][f]) : 0;
	}
	for (size_t i = 0; i < N(cases); i++) {
		static char log[NSIDES][4096];
		struct bpf_result r[NSIDES];
		const char *line[NSIDES];
		char held[NSIDES][128];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn prog[] = {
				BPF_LD_MAP_FD(BPF_REG_1, fds[s][B]),
				BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_EXIT_INSN(),
			};
			uint8_t attr[160] = { 0 };
			union bpf_attr *a = (union bpf_attr *)attr;
			int arr[4];

			for (int f = 0; f < cases[i].nfds; f++)
				arr[f] = cases[i].fds[0] < 0 ? 0 : fds[s][cases[i].fds[f]];
			a->prog_type = cases[i].sleepable ? BPF_PROG_TYPE_SYSCALL
							  : BPF_PROG_TYPE_SOCKET_FILTER;
			a->prog_flags = cases[i].sleepable ? BPF_F_SLEEPABLE : 0;
			a->insns = PTR_TO_U64(cases[i].uses_b ? prog : prog + 2);
			a->insn_cnt = cases[i].uses_b ? 4 : 2;
			a->license = PTR_TO_U64("GPL");
			a->log_buf = PTR_TO_U64(log[s]);
			a->log_size = sizeof(log[s]);
			a->log_level = 1;
			log[s][0] = 0;
			a->fd_array = cases[i].null_array   ? 0
				      : cases[i].fds[0] < 0 ? PTR_TO_U64(many[s])
							    : PTR_TO_U64(arr);
			memcpy(attr + 148, &cases[i].cnt, sizeof(cases[i].cnt));
			r[s] = backend_call(diff_sides[s], BPF_PROG_LOAD, attr, sizeof(attr));
			line[s] = log_error_line(log[s]);
			held[s][0] = 0;
			if (r[s].rc >= 0) {
				/* the program's maps, as the test's names for them */
				struct bpf_prog_info info;
				uint32_t len = sizeof(info), map_ids[70];

				memset(&info, 0, sizeof(info));
				memset(map_ids, 0, sizeof(map_ids));
				info.nr_map_ids = 70;
				info.map_ids = PTR_TO_U64(map_ids);
				if (!side_obj_info(s, r[s].rc, &info, &len).rc)
					for (uint32_t m = 0; m < info.nr_map_ids && m < 70; m++) {
						const char *name = "other";

						for (int f = A; f <= PERF; f++)
							if (map_ids[m] == ids[s][f])
								name = f == A ? "A" : f == B ? "B" : "perf";
						if (strlen(held[s]) < sizeof(held[s]) - 8)
							strcat(strcat(held[s], " "), name);
					}
				close(r[s].rc);
			}
		}
		if (!AGREE(cases[i].what, r))
			continue;
		if (r[K].rc < 0 && strcmp(line[K] ? line[K] : "", line[U] ? line[U] : ""))
			test_fail(__FILE__, __LINE__, "%s: the kernel says \"%s\", userbpf \"%s\"",
				  cases[i].what, line[K] ? line[K] : "", line[U] ? line[U] : "");
		if (strcmp(held[K], held[U]))
			test_fail(__FILE__, __LINE__, "%s: the kernel's program holds%s, userbpf's%s",
				  cases[i].what, held[K], held[U]);
		if (getenv("TEST_VERBOSE"))
			printf("%s: %d/%d \"%s\" holds%s\n", cases[i].what, r[K].rc < 0 ? -1 : 0,
			       r[K].err, line[K] ? line[K] : "", held[K]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(fds[s][A]);
		close(fds[s][B]);
		close(fds[s][PERF]);
		close(fds[s][BTF]);
		for (int i = 0; i < 65; i++)
			close(many[s][i]);
	}
}
