/* BPF_MAP_TYPE_CGROUP_ARRAY, differentially: creation rules; bpf() commands with every kind of
 * fd a caller may pass (cgroup2 directories, other directories and files, O_PATH fds, closed
 * fds, a map's) and every flag, the slots walked; bpf_skb_under_cgroup() from tc and
 * bpf_current_task_under_cgroup() from a raw tracepoint, run in a cgroup made for the test
 * (the root, its parent, itself, a sibling, an empty slot, beyond the array); and the
 * verifier's pairing of the map type with the two helpers.  Skipped where the kernel's bpf() is
 * unavailable; the nested-cgroup part where no cgroup2 mount is writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbpf.h"
#include "test_cgroup.h"
#include "test.h"
#include "userbpf/insn.h"

#define CGA_ENTRIES 6

TEST(diff_cgroup_array_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 8, 0 },
		{ 4, 8, 8, 0 },
		{ 8, 4, 8, 0 },
		{ 4, 4, 0, 0 },
		{ 4, 4, 8, BPF_F_NUMA_NODE },
		{ 4, 4, 8, BPF_F_RDONLY },
		{ 4, 4, 8, BPF_F_WRONLY },
		{ 4, 4, 8, BPF_F_RDONLY_PROG },
		{ 4, 4, 8, BPF_F_MMAPABLE },
		{ 4, 4, 8, BPF_F_INNER_MAP },
		{ 4, 4, 8, BPF_F_PRESERVE_ELEMS },
		{ 4, 4, 8, BPF_F_NO_PREALLOC },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(BPF_MAP_TYPE_CGROUP_ARRAY, shapes);
}

/* Updates of slot key with fd (the same number on both sides unless side_fd) and flags: the
 * results agree. */
static bool update_agrees(const int map[NSIDES], uint32_t key, int fd, const int *side_fd,
			  uint64_t flags, const char *what)
{
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		uint32_t v = (uint32_t)(side_fd ? side_fd[s] : fd);

		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, &v, flags);
	}
	return AGREE(what, r);
}

/* Both sides' slots hold nothing bpf() can read: lookups, walks, deletes and batches agree. */
static void reads_agree(const int map[NSIDES], const char *what)
{
	for (uint32_t key = 0; key <= CGA_ENTRIES; key++) {
		struct bpf_result r[NSIDES];
		uint32_t v[NSIDES] = { 0 };

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &key, &v[s], 0);
		AGREE(what, r);
	}
	{
		uint32_t keys[NSIDES][CGA_ENTRIES + 1], n[NSIDES] = { 0 };

		for (int s = 0; s < NSIDES; s++) {
			uint32_t k, *prev = NULL;

			while (n[s] <= CGA_ENTRIES &&
			       side_elem(s, BPF_MAP_GET_NEXT_KEY, map[s], prev, &k, 0).rc == 0) {
				keys[s][n[s]] = k;
				prev = &keys[s][n[s]++];
			}
		}
		CHECK_EQ(n[K], n[U]);
		CHECK(n[K] == n[U] && !memcmp(keys[K], keys[U], n[K] * sizeof(keys[K][0])));
	}
	for (int cmd = BPF_MAP_LOOKUP_BATCH; cmd <= BPF_MAP_DELETE_BATCH; cmd++) {
		uint32_t keys[CGA_ENTRIES] = { 0 }, vals[CGA_ENTRIES] = { 0 }, out = 0;
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.batch.map_fd = (uint32_t)map[s];
			a.batch.keys = PTR_TO_U64(keys);
			a.batch.values = PTR_TO_U64(vals);
			a.batch.out_batch = PTR_TO_U64(&out);
			a.batch.count = 2;
			r[s] = side_call(s, cmd, &a);
		}
		AGREE(what, r);
	}
}

TEST(diff_cgroup_array_commands)
{
	char mnt[1024], file[1100];
	int map[NSIDES], other[NSIDES], root, rootpath, tmp, procs;
	uint32_t key;

	SKIP_WITHOUT_KERNEL_BPF();
	cgroup2_mount(mnt, sizeof(mnt));
	if (!mnt[0])
		SKIP("no cgroup2 mount");
	snprintf(file, sizeof(file), "%s/cgroup.procs", mnt);
	root = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rootpath = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	procs = open(file, O_RDONLY | O_CLOEXEC);
	REQUIRE(root >= 0 && rootpath >= 0 && tmp >= 0 && procs >= 0);
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_CGROUP_ARRAY, 4, 4, CGA_ENTRIES, 0).rc;
		other[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(map[s] >= 0 && other[s] >= 0);
	}
	reads_agree(map, "empty");
	update_agrees(map, 0, root, NULL, BPF_ANY, "root");
	update_agrees(map, 1, root, NULL, BPF_NOEXIST, "noexist");
	update_agrees(map, 1, root, NULL, BPF_EXIST, "exist");
	update_agrees(map, 1, root, NULL, BPF_F_LOCK, "lock");
	update_agrees(map, 2, root, NULL, BPF_ANY, "root again");
	update_agrees(map, 3, rootpath, NULL, BPF_ANY, "O_PATH");
	update_agrees(map, 3, tmp, NULL, BPF_ANY, "another directory");
	update_agrees(map, 3, procs, NULL, BPF_ANY, "a cgroup file");
	update_agrees(map, 3, -1, NULL, BPF_ANY, "fd -1");
	update_agrees(map, 3, 1000, NULL, BPF_ANY, "a closed fd");
	update_agrees(map, 3, 0, other, BPF_ANY, "a map");
	update_agrees(map, CGA_ENTRIES, root, NULL, BPF_ANY, "beyond");
	update_agrees(map, CGA_ENTRIES, -1, NULL, BPF_ANY, "beyond, bad fd");
	update_agrees(map, CGA_ENTRIES, root, NULL, BPF_NOEXIST, "beyond, bad flags");
	reads_agree(map, "two slots");
	for (key = 0; key <= CGA_ENTRIES; key++) {
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = side_elem(s, BPF_MAP_DELETE_ELEM, map[s], &key, NULL, 0);
		AGREE("delete", r);
	}
	reads_agree(map, "deleted");
	/* a slot's cgroup fd may be closed: the map keeps the cgroup */
	update_agrees(map, 4, root, NULL, BPF_ANY, "root into 4");
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(other[s]);
	}
	close(root);
	close(rootpath);
	close(tmp);
	close(procs);
}

/* Appends an LD_IMM64 (src BPF_PSEUDO_MAP_FD for a map fd, or 0) to insns at n. */
static uint32_t emit_ld64(struct bpf_insn *insns, uint32_t n, int reg, int src, uint64_t imm)
{
	const struct bpf_insn two[] = { BPF_LD_IMM64_RAW(reg, src, imm) };

	insns[n] = two[0];
	insns[n + 1] = two[1];
	return n + 2;
}

#define PROBE_SLOTS (CGA_ENTRIES + 2)

/* Stores under_cgroup(map, idx) for idx 0 .. CGA_ENTRIES and (1 << 32) + 2 (the helpers take a
 * u32) into the u64 slots of an array's value: bpf_skb_under_cgroup() from tc (skb) or
 * bpf_current_task_under_cgroup() from a raw tracepoint. */
static int load_probe(int s, bool skb, int cga, int out)
{
	struct bpf_insn insns[128];
	uint32_t n = 0;

	insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0);
	n = emit_ld64(insns, n, BPF_REG_1, BPF_PSEUDO_MAP_FD, (uint32_t)out);
	insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
	insns[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	insns[n++] = BPF_EXIT_INSN();
	insns[n++] = BPF_MOV64_REG(BPF_REG_8, BPF_REG_0);
	for (int i = 0; i < PROBE_SLOTS; i++) {
		int r = skb ? BPF_REG_2 : BPF_REG_1;

		if (skb)
			insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
		n = emit_ld64(insns, n, r, BPF_PSEUDO_MAP_FD, (uint32_t)cga);
		if (i <= CGA_ENTRIES)
			insns[n++] = BPF_MOV64_IMM(r + 1, i);
		else
			n = emit_ld64(insns, n, r + 1, 0, (1ull << 32) + 2);
		insns[n++] = BPF_EMIT_CALL(skb ? BPF_FUNC_skb_under_cgroup
					       : BPF_FUNC_current_task_under_cgroup);
		insns[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_8, BPF_REG_0, 8 * i);
	}
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	insns[n++] = BPF_EXIT_INSN();
	return side_prog_load(s, skb ? BPF_PROG_TYPE_SCHED_CLS : BPF_PROG_TYPE_RAW_TRACEPOINT,
			      insns, n);
}

/* Runs both probes on both sides with the cgroup array holding dirs[0..n) in its first slots
 * (the rest empty): the stored results agree; expect[i] (for i < n) is what slot i must give. */
static void probes_agree(const int *dirs, int n, const int64_t *expect, const char *where)
{
	for (int skb = 0; skb < 2; skb++) {
		int64_t res[NSIDES][PROBE_SLOTS];

		for (int s = 0; s < NSIDES; s++) {
			int cga = side_map_create(s, BPF_MAP_TYPE_CGROUP_ARRAY, 4, 4, CGA_ENTRIES, 0).rc;
			int out = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8 * PROBE_SLOTS, 1, 0).rc;
			int prog;
			uint32_t key = 0, retval;
			struct bpf_result r;
			union bpf_attr a;
			static const uint8_t pkt[64] = { [12] = 0x08 };

			REQUIRE(cga >= 0 && out >= 0);
			for (uint32_t k = 0; k < (uint32_t)n; k++) {
				uint32_t v = (uint32_t)dirs[k];

				REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, cga, &k, &v, 0).rc == 0);
			}
			prog = load_probe(s, skb, cga, out);
			REQUIRE(prog >= 0);
			if (skb) {
				r = side_test_run(s, prog, pkt, sizeof(pkt), &retval);
			} else {
				memset(&a, 0, sizeof(a));
				a.test.prog_fd = (uint32_t)prog;
				r = side_call(s, BPF_PROG_TEST_RUN, &a);
			}
			CHECK_EQ(r.rc, 0);
			memset(res[s], 0x5a, sizeof(res[s]));
			REQUIRE(side_elem(s, BPF_MAP_LOOKUP_ELEM, out, &key, res[s], 0).rc == 0);
			close(prog);
			close(out);
			close(cga);
		}
		for (int i = 0; i < PROBE_SLOTS; i++)
			if (res[K][i] != res[U][i])
				test_fail(__FILE__, __LINE__, "%s, %s, slot %d: kernel %lld, userbpf %lld",
					  where, skb ? "skb_under_cgroup" : "current_task_under_cgroup",
					  i, (long long)res[K][i], (long long)res[U][i]);
		for (int i = 0; i < n; i++)
			CHECK_EQ(res[U][i], expect[i]);
		CHECK_EQ(res[U][CGA_ENTRIES], -E2BIG);
		CHECK_EQ(res[U][CGA_ENTRIES - 1], -EAGAIN);
		CHECK_EQ(res[U][CGA_ENTRIES + 1], (n > 2 ? expect[2] : -EAGAIN));
	}
}

/* In our cgroup: the root holds us.  Then (where cgroup2 is writable) in a/b, made for the
 * test: the root, a and b hold us, c (b's sibling) does not. */
TEST(diff_cgroup_array_under_cgroup)
{
	char mnt[1024], a[1200], b[1300], c[1300], procs[1400], pid[32];
	int dirs[4];

	SKIP_WITHOUT_KERNEL_BPF();
	cgroup2_mount(mnt, sizeof(mnt));
	if (!mnt[0])
		SKIP("no cgroup2 mount");
	dirs[0] = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(dirs[0] >= 0);
	probes_agree(dirs, 1, (const int64_t[]){ 1 }, "our cgroup");

	snprintf(a, sizeof(a), "%s/userbpf-cga-%d", mnt, (int)getpid());
	snprintf(b, sizeof(b), "%s/b", a);
	snprintf(c, sizeof(c), "%s/c", a);
	if (mkdir(a, 0755)) {
		printf("  (no writable cgroup2 mount: the nested cgroup part is skipped)\n");
		close(dirs[0]);
		return;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", b);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (mkdir(b, 0755) || mkdir(c, 0755) || write_str(procs, pid)) {
		printf("  (cannot move into a test cgroup: the nested cgroup part is skipped)\n");
	} else {
		dirs[1] = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		dirs[2] = open(b, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		dirs[3] = open(c, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		REQUIRE(dirs[1] >= 0 && dirs[2] >= 0 && dirs[3] >= 0);
		probes_agree(dirs, 4, (const int64_t[]){ 1, 1, 1, 0 }, "a nested cgroup");
		/* back where we were: now only the root holds us */
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", mnt);
		CHECK_EQ(write_str(procs, pid), 0);
		probes_agree(dirs, 4, (const int64_t[]){ 1, 0, 0, 0 }, "back in the root");
		for (int i = 1; i < 4; i++)
			close(dirs[i]);
	}
	rmdir(c);
	rmdir(b);
	rmdir(a);
	close(dirs[0]);
}

TEST(diff_cgroup_array_verifier)
{
	int cga[NSIDES], arr[NSIDES];
	struct bpf_insn lookup[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn skb_under[] = {
		BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_skb_under_cgroup), BPF_EXIT_INSN(),
	};
	struct bpf_insn task_under[] = {
		BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_current_task_under_cgroup), BPF_EXIT_INSN(),
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		cga[s] = side_map_create(s, BPF_MAP_TYPE_CGROUP_ARRAY, 4, 4, 4, 0).rc;
		arr[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 4, 0).rc;
		REQUIRE(cga[s] >= 0 && arr[s] >= 0);
	}
	VERDICTS_AGREE_MAP("lookup in a cgroup array", BPF_PROG_TYPE_SCHED_CLS, lookup, 8, cga, 1);
	VERDICTS_AGREE_MAP("skb_under_cgroup", BPF_PROG_TYPE_SCHED_CLS, skb_under, 5, cga, 0);
	VERDICTS_AGREE_MAP("skb_under_cgroup on an array", BPF_PROG_TYPE_SCHED_CLS, skb_under, 5, arr,
		       0);
	VERDICTS_AGREE_MAP("skb_under_cgroup from lwt_xmit", BPF_PROG_TYPE_LWT_XMIT, skb_under, 5, cga,
		       0);
	VERDICTS_AGREE_MAP("skb_under_cgroup from xdp", BPF_PROG_TYPE_XDP, skb_under, 5, cga, 0);
	VERDICTS_AGREE_MAP("current_task_under_cgroup", BPF_PROG_TYPE_RAW_TRACEPOINT, task_under, 5,
		       cga, 0);
	VERDICTS_AGREE_MAP("current_task_under_cgroup on an array", BPF_PROG_TYPE_RAW_TRACEPOINT,
		       task_under, 5, arr, 0);
	VERDICTS_AGREE_MAP("current_task_under_cgroup from tc", BPF_PROG_TYPE_SCHED_CLS, task_under, 5,
		       cga, 0);
	VERDICTS_AGREE_MAP("current_task_under_cgroup from xdp", BPF_PROG_TYPE_XDP, task_under, 5, cga,
		       0);
	for (int s = 0; s < NSIDES; s++) {
		close(cga[s]);
		close(arr[s]);
	}
}
