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
