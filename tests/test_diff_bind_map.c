/* BPF_PROG_BIND_MAP, differentially: the attr rules and fd errors, the info's map_ids (the maps
 * the program uses, then the bound ones in the order they came, none twice), and the bound map's
 * lifetime (the program keeps it after its last fd closes, and lets it go with itself).  The
 * kernel's ids are system-wide, ours per process: each side is checked against its own ids.
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static struct bpf_result bind_call(int s, uint32_t prog_fd, uint32_t map_fd, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_bind_map.prog_fd = prog_fd;
	a.prog_bind_map.map_fd = map_fd;
	a.prog_bind_map.flags = flags;
	return side_call(s, BPF_PROG_BIND_MAP, &a);
}

/* An XDP program that looks key 0 up in map_fd (or only returns, map_fd < 0). */
static int load_prog(int s, int map_fd)
{
	struct bpf_insn with_map[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn plain[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };

	return map_fd < 0 ? side_prog_load(s, BPF_PROG_TYPE_XDP, plain, 2)
			  : side_prog_load(s, BPF_PROG_TYPE_XDP, with_map, 8);
}

/* The program's map ids into ids (room for n); how many it has, or -1. */
static int prog_map_ids(int s, int prog_fd, uint32_t *ids, uint32_t n)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = n;
	info.map_ids = PTR_TO_U64(ids);
	if (side_obj_info(s, prog_fd, &info, &len).rc)
		return -1;
	return (int)info.nr_map_ids;
}

static struct bpf_result map_fd_by_id(int s, uint32_t id)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.map_id = id;
	r = side_call(s, BPF_MAP_GET_FD_BY_ID, &a);
	if (r.rc >= 0)
		close(r.rc);
	return r;
}

TEST(diff_bind_map_attr_rules)
{
	int map[NSIDES], prog[NSIDES];
	struct bpf_result r[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0).rc;
		prog[s] = load_prog(s, -1);
		REQUIRE(map[s] >= 0 && prog[s] >= 0);
	}
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], (uint32_t)map[s], 1);
	AGREE("flags", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], (uint32_t)map[s], 1u << 31);
	AGREE("high flag", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)-1, (uint32_t)map[s], 0);
	AGREE("prog fd -1", r);
	CHECK_EQ(r[U].err, EBADF);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, 9999, (uint32_t)map[s], 0);
	AGREE("prog fd not open", r);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)map[s], (uint32_t)map[s], 0);
	AGREE("prog fd a map's", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], 9999, 0);
	AGREE("map fd not open", r);
	CHECK_EQ(r[U].err, EBADF);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], (uint32_t)prog[s], 0);
	AGREE("map fd a program's", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], 0, 1); /* flags come before the fds */
	AGREE("flags and a bad map fd", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++) { /* a byte after flags */
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.prog_bind_map.prog_fd = (uint32_t)prog[s];
		a.prog_bind_map.map_fd = (uint32_t)map[s];
		((uint8_t *)&a)[offsetof(union bpf_attr, prog_bind_map.flags) + 4] = 1;
		r[s] = side_call(s, BPF_PROG_BIND_MAP, &a);
	}
	AGREE("byte after the last field", r);
	CHECK_EQ(r[U].err, EINVAL);
	for (int s = 0; s < NSIDES; s++)
		r[s] = bind_call(s, (uint32_t)prog[s], (uint32_t)map[s], 0);
	AGREE("a good bind", r);
	CHECK_EQ(r[U].rc, 0);
	for (int s = 0; s < NSIDES; s++) {
		close(prog[s]);
		close(map[s]);
	}
}

TEST(diff_bind_map_ids)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		int used = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0).rc;
		int b1 = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		int b2 = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 2, 0).rc;
		int prog = load_prog(s, used);
		uint32_t ids[4] = { 0 };

		REQUIRE(used >= 0 && b1 >= 0 && b2 >= 0 && prog >= 0);
		CHECK_EQ(prog_map_ids(s, prog, ids, 4), 1);
		CHECK_EQ(bind_call(s, (uint32_t)prog, (uint32_t)b2, 0).rc, 0);
		CHECK_EQ(bind_call(s, (uint32_t)prog, (uint32_t)b1, 0).rc, 0);
		/* again, and the map the program uses: nothing changes */
		CHECK_EQ(bind_call(s, (uint32_t)prog, (uint32_t)b2, 0).rc, 0);
		CHECK_EQ(bind_call(s, (uint32_t)prog, (uint32_t)used, 0).rc, 0);
		CHECK_EQ(prog_map_ids(s, prog, ids, 4), 3);
		CHECK_EQ(ids[0], side_map_id(s, used));
		CHECK_EQ(ids[1], side_map_id(s, b2));
		CHECK_EQ(ids[2], side_map_id(s, b1));
		CHECK_EQ(ids[3], 0);
		/* room for one: the count is still all of them, one id copied */
		memset(ids, 0, sizeof(ids));
		CHECK_EQ(prog_map_ids(s, prog, ids, 1), 3);
		CHECK_EQ(ids[0], side_map_id(s, used));
		CHECK_EQ(ids[1], 0);
		close(prog);
		close(used);
		close(b1);
		close(b2);
	}
}

/* The map, bound and its fd closed, lives as long as the program.  The kernel frees a program,
 * and then its maps, after a grace period and from a work queue: its side is polled for up to
 * two seconds. */
TEST(diff_bind_map_lifetime)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		int map = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		int prog = load_prog(s, -1);
		uint32_t id;
		struct bpf_result r;

		REQUIRE(map >= 0 && prog >= 0);
		id = side_map_id(s, map);
		REQUIRE(id != 0);
		CHECK_EQ(bind_call(s, (uint32_t)prog, (uint32_t)map, 0).rc, 0);
		close(map);
		r = map_fd_by_id(s, id);
		CHECK(r.rc >= 0); /* held by the program */
		close(prog);
		for (int tries = 0; tries < 400; tries++) {
			r = map_fd_by_id(s, id);
			if (r.rc < 0)
				break;
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
		}
		CHECK_EQ(r.rc, -1); /* gone with the program */
		CHECK_EQ(r.err, ENOENT);
	}
}
