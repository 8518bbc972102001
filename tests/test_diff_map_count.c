/* The kfunc bpf_map_sum_elem_count(map) against the kernel: the number of elements of a map of
 * each type (with and without preallocation), empty, after inserts, an update of a present key
 * and deletes (the hash maps count, the others say 0); the verifier's level-2 log of a call
 * with a map, and its refusal of NULL, the stack and a number.  Skipped where the kernel's
 * bpf() or BTF is unavailable. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define KCALL(id) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id)

/* The count of map fd on side s, through a socket filter's call (its result returned). */
static struct bpf_result count_of(int s, int fd, int32_t kfunc, uint32_t *count, char *log,
				  size_t log_size)
{
	struct bpf_insn p[] = {
		BPF_LD_MAP_FD(BPF_REG_1, fd),
		KCALL(kfunc),
		BPF_EXIT_INSN(),
	};
	uint8_t pkt[64] = { 0 };
	struct bpf_result r;

	memset(log, 0, log_size);
	r = side_prog_load_level(s, BPF_PROG_TYPE_SOCKET_FILTER, 0, p, 4, log, log_size, 2);
	log_cut_map_addrs(log);
	if (r.rc < 0)
		return r;
	int prog = r.rc;

	r = side_test_run(s, prog, pkt, sizeof(pkt), count);
	close(prog);
	return r;
}

TEST(diff_map_sum_elem_count)
{
	static const uint32_t types[] = {
		BPF_MAP_TYPE_HASH,	      BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_PERCPU_HASH,
		BPF_MAP_TYPE_LRU_PERCPU_HASH, BPF_MAP_TYPE_ARRAY,    BPF_MAP_TYPE_PERCPU_ARRAY,
	};
	static char log[NSIDES][8192];
	const struct btf *btf = btf_vmlinux();
	int32_t kfunc = btf ? (int32_t)btf_find_func(btf, "bpf_map_sum_elem_count") : 0;
	int compared = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (kfunc <= 0)
		SKIP("no bpf_map_sum_elem_count in the kernel's BTF");
	for (size_t t = 0; t < ARRAY_SIZE(types); t++)
		for (uint32_t flags = 0; flags <= BPF_F_NO_PREALLOC; flags += BPF_F_NO_PREALLOC) {
			int fd[NSIDES];
			uint64_t v[64] = { 0 };
			bool array = types[t] == BPF_MAP_TYPE_ARRAY ||
				     types[t] == BPF_MAP_TYPE_PERCPU_ARRAY;

			if (array && flags)
				continue;
			for (int s = 0; s < NSIDES; s++)
				fd[s] = side_map_create(s, types[t], 4, 8, 16, flags).rc;
			if (fd[K] < 0 || fd[U] < 0) {
				CHECK_EQ(fd[K] < 0, fd[U] < 0);
				for (int s = 0; s < NSIDES; s++)
					if (fd[s] >= 0)
						close(fd[s]);
				continue;
			}
			/* steps: insert 0..4, update 2, delete 1 and 9 */
			for (int step = 0; step < 4; step++) {
				struct bpf_result r[NSIDES];
				uint32_t count[NSIDES];
				char what[80];

				for (int s = 0; s < NSIDES; s++) {
					uint32_t key;

					if (step == 1)
						for (key = 0; key < 5; key++)
							side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &key, v,
								  BPF_ANY);
					if (step == 2) {
						key = 2;
						side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &key, v, BPF_ANY);
					}
					if (step == 3) {
						key = 1;
						side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], &key, NULL, 0);
						key = 9;
						side_elem(s, BPF_MAP_DELETE_ELEM, fd[s], &key, NULL, 0);
					}
					r[s] = count_of(s, fd[s], kfunc, &count[s], log[s],
							sizeof(log[s]));
				}
				snprintf(what, sizeof(what), "map type %u flags %#x, step %d", types[t],
					 flags, step);
				if (AGREE(what, r) && !r[K].rc) {
					CHECK_EQ(count[U], count[K]);
					compared++;
				}
				if (step == 0)
					LOGS_SAME(what, log[K], log[U]);
			}
			for (int s = 0; s < NSIDES; s++)
				close(fd[s]);
		}
	printf("diff_map_sum_elem_count: %d counts with the kernel's\n", compared);
	CHECK(compared >= 20);
}

TEST(diff_map_sum_elem_count_args)
{
	const struct btf *btf = btf_vmlinux();
	int32_t kfunc = btf ? (int32_t)btf_find_func(btf, "bpf_map_sum_elem_count") : 0;
	const struct bpf_insn cases[][4] = {
		{ BPF_MOV64_IMM(BPF_REG_1, 0), KCALL(kfunc), BPF_EXIT_INSN() },
		{ BPF_MOV64_REG(BPF_REG_1, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		  KCALL(kfunc), BPF_EXIT_INSN() },
		{ BPF_MOV64_IMM(BPF_REG_1, 64), KCALL(kfunc), BPF_EXIT_INSN() },
		{ BPF_MOV64_REG(BPF_REG_1, BPF_REG_1), KCALL(kfunc), BPF_EXIT_INSN() },
	};
	static char log[NSIDES][8192];

	SKIP_WITHOUT_KERNEL_BPF();
	if (kfunc <= 0)
		SKIP("no bpf_map_sum_elem_count in the kernel's BTF");
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct bpf_result r[NSIDES];
		uint32_t n = cases[c][3].code ? 4 : 3;
		char what[32];

		for (int s = 0; s < NSIDES; s++) {
			memset(log[s], 0, sizeof(log[s]));
			r[s] = side_prog_load_level(s, BPF_PROG_TYPE_SOCKET_FILTER, 0, cases[c], n,
						    log[s], sizeof(log[s]), 2);
			if (r[s].rc >= 0)
				close(r[s].rc);
		}
		snprintf(what, sizeof(what), "argument case %zu", c);
		CHECK(r[K].rc < 0);
		if (AGREE(what, r))
			LOGS_SAME(what, log[K], log[U]);
	}
}
