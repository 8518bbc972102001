/* BPF_MAP_TYPE_TASK_STORAGE and BPF_MAP_TYPE_CGRP_STORAGE against the kernel: creation rules
 * (those of socket storage, a bpf_spin_lock in the value allowed); the commands on this
 * process's task through a pidfd and on its cgroup through the cgroup's directory (the same task
 * and cgroup on both sides: the kernel keeps the value on the object, userbpf in the map under
 * its pid or id), on other fds, and those the types refuse; bpf_task_storage_get() and _delete()
 * from a raw tracepoint on the current task and its parent, bpf_cgrp_storage_get() and _delete()
 * on the current task's cgroup, seen by bpf() through their fds; and the verifier's rules for
 * the task and cgroup arguments and the maps.  Skipped where the kernel's bpf() or BTF is
 * unavailable.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_cgroup.h"

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define ENOTSUPP 524

static const char STRS[] = "\0int\0v\0a\0long\0bpf_spin_lock\0val\0lv\0l";
enum {
	S_INT = 1, S_V = 5, S_A = 7, S_LONG = 9, S_LOCK = 14, S_VAL = 28, S_LV = 32, S_L = 35,
	S_END = sizeof(STRS)
};
enum { INT = 1, LONG, VAL, LOCK, LOCKED };
static const uint32_t types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32), /* 1 int */
	T_INT(S_LONG, 8, 0, 0, 64),		/* 2 u64 */
	T_STRUCT(S_V, 1, 8), T_MEMBER(S_A, LONG, 0), /* 3 struct v { u64 a; } */
	T_STRUCT(S_LOCK, 1, 4), T_MEMBER(S_VAL, INT, 0), /* 4 struct bpf_spin_lock { int val; } */
	/* 5 struct lv { struct bpf_spin_lock l; u64 a; } */
	T_STRUCT(S_LV, 2, 16), T_MEMBER(S_L, LOCK, 0), T_MEMBER(S_A, LONG, 64),
};

/* (a create's flag here: the value is struct lv, with its lock) */
#define LOCKED_VALUE (1u << 31)

static struct bpf_result create(int s, uint32_t type, int btf, uint32_t ks, uint32_t max,
				uint32_t flags, uint32_t key_id)
{
	bool locked = flags & LOCKED_VALUE;

	return side_map_create_btf(s, type, ks, locked ? 16 : 8, max, flags & ~LOCKED_VALUE, btf,
				   key_id, locked ? LOCKED : VAL);
}

/* On each side a BTF blob and a storage map of type (task or socket) with struct v values. */
static bool storage_maps(uint32_t type, int btf[NSIDES], int map[NSIDES])
{
	for (int s = 0; s < NSIDES; s++) {
		map[s] = -1;
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		if (btf[s] < 0)
			return false;
		map[s] = create(s, type, btf[s], 4, 0, BPF_F_NO_PREALLOC, INT).rc;
		if (map[s] < 0)
			return false;
	}
	return true;
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

TEST(diff_local_storage_create)
{
	static const struct {
		uint32_t ks, max, flags, key_id;
	} shapes[] = {
		{ 4, 0, BPF_F_NO_PREALLOC, INT },   { 4, 0, 0, INT },
		{ 4, 0, BPF_F_NO_PREALLOC | BPF_F_CLONE, INT },
		{ 4, 0, BPF_F_NO_PREALLOC | BPF_F_RDONLY, INT },
		{ 4, 1, BPF_F_NO_PREALLOC, INT },   { 8, 0, BPF_F_NO_PREALLOC, LONG },
		{ 4, 0, BPF_F_NO_PREALLOC, 0 },	    { 4, 0, BPF_F_NO_PREALLOC, VAL },
		{ 4, 0, BPF_F_NO_PREALLOC | LOCKED_VALUE, INT },
	};
	static const uint32_t map_types[] = { BPF_MAP_TYPE_TASK_STORAGE, BPF_MAP_TYPE_CGRP_STORAGE,
					      BPF_MAP_TYPE_SK_STORAGE,
					      BPF_MAP_TYPE_INODE_STORAGE };
	int btf[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++)
		REQUIRE((btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END)) >= 0);
	for (size_t t = 0; t < ARRAY_SIZE(map_types); t++)
		for (size_t i = 0; i < ARRAY_SIZE(shapes); i++) {
			struct bpf_result r[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++)
				r[s] = create(s, map_types[t], btf[s], shapes[i].ks, shapes[i].max,
					      shapes[i].flags, shapes[i].key_id);
			snprintf(what, sizeof(what), "create type %u, shape %zu", map_types[t], i);
			AGREE(what, r);
			close_all((int[]){ r[K].rc, r[U].rc }, 2);
		}
	close_all(btf, NSIDES);
}

/* The command on each side with key fd; the results must agree, and the values read. */
static void commands_agree(const char *what, int cmd, const int map[NSIDES], int fd, uint64_t v,
			   uint64_t flags)
{
	struct bpf_result r[NSIDES];
	uint64_t got[NSIDES] = { 1, 2 };

	for (int s = 0; s < NSIDES; s++) {
		if (cmd == BPF_MAP_LOOKUP_ELEM)
			r[s] = side_elem(s, cmd, map[s], &fd, &got[s], flags);
		else
			r[s] = side_elem(s, cmd, map[s], &fd, &v, flags);
	}
	if (AGREE(what, r) && cmd == BPF_MAP_LOOKUP_ELEM && !r[K].rc)
		CHECK_EQ(got[U], got[K]);
}

TEST(diff_task_storage_commands)
{
	int btf[NSIDES], map[NSIDES], pidfd, other = open("/dev/null", O_RDONLY);

	SKIP_WITHOUT_KERNEL_BPF();
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		SKIP("no pidfd_open()");
	REQUIRE(storage_maps(BPF_MAP_TYPE_TASK_STORAGE, btf, map));
	commands_agree("lookup, none yet", BPF_MAP_LOOKUP_ELEM, map, pidfd, 0, 0);
	commands_agree("update, noexist", BPF_MAP_UPDATE_ELEM, map, pidfd, 41, BPF_NOEXIST);
	commands_agree("update, noexist again", BPF_MAP_UPDATE_ELEM, map, pidfd, 42, BPF_NOEXIST);
	commands_agree("lookup", BPF_MAP_LOOKUP_ELEM, map, pidfd, 0, 0);
	commands_agree("update, exist", BPF_MAP_UPDATE_ELEM, map, pidfd, 43, BPF_EXIST);
	commands_agree("update, bad flags", BPF_MAP_UPDATE_ELEM, map, pidfd, 44, 7);
	commands_agree("update, F_LOCK without a lock", BPF_MAP_UPDATE_ELEM, map, pidfd, 44,
		       BPF_F_LOCK);
	commands_agree("lookup again", BPF_MAP_LOOKUP_ELEM, map, pidfd, 0, 0);
	commands_agree("lookup by a file's fd", BPF_MAP_LOOKUP_ELEM, map, other, 0, 0);
	commands_agree("update by a file's fd", BPF_MAP_UPDATE_ELEM, map, other, 1, 0);
	commands_agree("lookup by fd -1", BPF_MAP_LOOKUP_ELEM, map, -1, 0, 0);
	commands_agree("delete", BPF_MAP_DELETE_ELEM, map, pidfd, 0, 0);
	commands_agree("delete again", BPF_MAP_DELETE_ELEM, map, pidfd, 0, 0);
	commands_agree("update, exist, none", BPF_MAP_UPDATE_ELEM, map, pidfd, 45, BPF_EXIST);
	for (int s = 0; s < NSIDES; s++) {
		int key = pidfd, next;

		CHECK_EQ(side_elem(s, BPF_MAP_GET_NEXT_KEY, map[s], &key, &next, 0).err, ENOTSUPP);
	}
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close(pidfd);
	close(other);
}

/* Inode storage: a value per inode, named by any fd of it (the same file opened twice or through
 * a hard link, both ends of a pipe, any two anonymous-inode fds: one inode each), O_PATH fds
 * too. */
TEST(diff_inode_storage_commands)
{
	char path[] = "/tmp/userbpf-inode-XXXXXX", link_path[64];
	int btf[NSIDES], map[NSIDES], file, again, by_link, opath, sock, pipes[2], ev1, ev2, pidfd;

	SKIP_WITHOUT_KERNEL_BPF();
	file = mkstemp(path);
	REQUIRE(file >= 0);
	snprintf(link_path, sizeof(link_path), "%s.link", path);
	REQUIRE(!link(path, link_path));
	again = open(path, O_RDONLY);
	by_link = open(link_path, O_RDWR);
	opath = open(path, O_PATH);
	sock = socket(AF_UNIX, SOCK_DGRAM, 0);
	ev1 = eventfd(0, 0);
	ev2 = eventfd(0, 0);
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	REQUIRE(again >= 0 && by_link >= 0 && opath >= 0 && sock >= 0 && !pipe(pipes) &&
		ev1 >= 0 && ev2 >= 0);
	REQUIRE(storage_maps(BPF_MAP_TYPE_INODE_STORAGE, btf, map));
	commands_agree("lookup, none yet", BPF_MAP_LOOKUP_ELEM, map, file, 0, 0);
	commands_agree("update, noexist", BPF_MAP_UPDATE_ELEM, map, file, 41, BPF_NOEXIST);
	commands_agree("update, noexist, the file opened again", BPF_MAP_UPDATE_ELEM, map, again,
		       42, BPF_NOEXIST);
	commands_agree("lookup, through the hard link", BPF_MAP_LOOKUP_ELEM, map, by_link, 0, 0);
	commands_agree("update, exist, O_PATH", BPF_MAP_UPDATE_ELEM, map, opath, 43, BPF_EXIST);
	commands_agree("lookup", BPF_MAP_LOOKUP_ELEM, map, file, 0, 0);
	commands_agree("update, bad flags", BPF_MAP_UPDATE_ELEM, map, file, 44, 7);
	commands_agree("update, F_LOCK without a lock", BPF_MAP_UPDATE_ELEM, map, file, 44,
		       BPF_F_LOCK);
	commands_agree("lookup, a socket", BPF_MAP_LOOKUP_ELEM, map, sock, 0, 0);
	commands_agree("update, a socket", BPF_MAP_UPDATE_ELEM, map, sock, 5, BPF_ANY);
	commands_agree("lookup, the socket", BPF_MAP_LOOKUP_ELEM, map, sock, 0, 0);
	commands_agree("update, a pipe's read end", BPF_MAP_UPDATE_ELEM, map, pipes[0], 6, 0);
	commands_agree("lookup, its write end", BPF_MAP_LOOKUP_ELEM, map, pipes[1], 0, 0);
	commands_agree("update, an eventfd", BPF_MAP_UPDATE_ELEM, map, ev1, 7, BPF_NOEXIST);
	commands_agree("lookup, another eventfd", BPF_MAP_LOOKUP_ELEM, map, ev2, 0, 0);
	if (pidfd >= 0)
		commands_agree("update, a pidfd", BPF_MAP_UPDATE_ELEM, map, pidfd, 8, BPF_NOEXIST);
	commands_agree("lookup, fd -1", BPF_MAP_LOOKUP_ELEM, map, -1, 0, 0);
	commands_agree("update, fd -1", BPF_MAP_UPDATE_ELEM, map, -1, 9, 0);
	commands_agree("delete, fd 999", BPF_MAP_DELETE_ELEM, map, 999, 0, 0);
	commands_agree("delete", BPF_MAP_DELETE_ELEM, map, by_link, 0, 0);
	commands_agree("delete again", BPF_MAP_DELETE_ELEM, map, file, 0, 0);
	commands_agree("lookup, deleted", BPF_MAP_LOOKUP_ELEM, map, again, 0, 0);
	commands_agree("update, exist, none", BPF_MAP_UPDATE_ELEM, map, file, 45, BPF_EXIST);
	commands_agree("lookup, the socket still", BPF_MAP_LOOKUP_ELEM, map, sock, 0, 0);
	for (int s = 0; s < NSIDES; s++) {
		int key = file, next;

		CHECK_EQ(side_elem(s, BPF_MAP_GET_NEXT_KEY, map[s], &key, &next, 0).err, ENOTSUPP);
	}
	/* only its helpers (an LSM program's) take the map */
	{
		struct bpf_insn p[] = {
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
			BPF_LD_MAP_FD(BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP("inode storage to map_lookup_elem", BPF_PROG_TYPE_XDP, p,
				   ARRAY_SIZE(p), map, 1);
	}
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close_all((int[]){ file, again, by_link, opath, sock, pipes[0], pipes[1], ev1, ev2, pidfd },
		  10);
	unlink(link_path);
	unlink(path);
}

/* This process's cgroup (v2) directory, opened (-1 if no cgroup2 mount shows it). */
static int own_cgroup_fd(void)
{
	char dir[5200];

	return own_cgroup_dir(dir, sizeof(dir)) ? -1
						: open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

TEST(diff_cgrp_storage_commands)
{
	int btf[NSIDES], map[NSIDES], cg = own_cgroup_fd(), other = open("/dev/null", O_RDONLY);
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY), v1 = open("/sys/fs/cgroup/memory",
								  O_RDONLY | O_DIRECTORY);

	SKIP_WITHOUT_KERNEL_BPF();
	if (cg < 0)
		SKIP("no cgroup2 mount that shows this process's cgroup");
	REQUIRE(storage_maps(BPF_MAP_TYPE_CGRP_STORAGE, btf, map));
	commands_agree("lookup, none yet", BPF_MAP_LOOKUP_ELEM, map, cg, 0, 0);
	commands_agree("update, noexist", BPF_MAP_UPDATE_ELEM, map, cg, 41, BPF_NOEXIST);
	commands_agree("update, noexist again", BPF_MAP_UPDATE_ELEM, map, cg, 42, BPF_NOEXIST);
	commands_agree("lookup", BPF_MAP_LOOKUP_ELEM, map, cg, 0, 0);
	commands_agree("update, exist", BPF_MAP_UPDATE_ELEM, map, cg, 43, BPF_EXIST);
	commands_agree("update, bad flags", BPF_MAP_UPDATE_ELEM, map, cg, 44, 7);
	commands_agree("lookup by a file's fd", BPF_MAP_LOOKUP_ELEM, map, other, 0, 0);
	commands_agree("update by a directory's fd", BPF_MAP_UPDATE_ELEM, map, dir, 1, 0);
	commands_agree("lookup by fd -1", BPF_MAP_LOOKUP_ELEM, map, -1, 0, 0);
	if (v1 >= 0) { /* (a cgroup v1 hierarchy's directory: the kernel takes it too) */
		commands_agree("update, a v1 cgroup", BPF_MAP_UPDATE_ELEM, map, v1, 50, 0);
		commands_agree("lookup, a v1 cgroup", BPF_MAP_LOOKUP_ELEM, map, v1, 0, 0);
		commands_agree("lookup, the v2 one still", BPF_MAP_LOOKUP_ELEM, map, cg, 0, 0);
	}
	commands_agree("delete", BPF_MAP_DELETE_ELEM, map, cg, 0, 0);
	commands_agree("delete again", BPF_MAP_DELETE_ELEM, map, cg, 0, 0);
	commands_agree("update, exist, none", BPF_MAP_UPDATE_ELEM, map, cg, 45, BPF_EXIST);
	for (int s = 0; s < NSIDES; s++) {
		int key = cg, next;

		CHECK_EQ(side_elem(s, BPF_MAP_GET_NEXT_KEY, map[s], &key, &next, 0).err, ENOTSUPP);
	}
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close_all((int[]){ cg, other, dir, v1 }, 4);
}

#define TASK BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf)

static int task_field(const char *name)
{
	const struct btf *btf = btf_vmlinux();

	return btf ? (int)btf_member_offset(btf, btf_vmlinux_task_struct(), name) : -1;
}

/* Whose storage a program reaches: the current task's, its parent's, its cgroup's. */
enum owner { OWN_TASK, OWN_PARENT, OWN_CGROUP };

/* "v = bpf_task_storage_get(map, task, NULL, flags); return v ? ++v->a : 0" where task is the
 * current one (OWN_PARENT: its real_parent), loaded on side s; or with del, "return
 * bpf_task_storage_delete(map, task)"; OWN_CGROUP: the same with bpf_cgrp_storage_*() on
 * task->cgroups->dfl_cgrp. */
static int storage_prog(int s, int map, enum owner owner, uint32_t flags, bool del)
{
	struct bpf_insn p[16];
	uint32_t n = 0;
	const struct btf *btf = btf_vmlinux();
	u32 cset = btf_find_by_name_kind(btf, "css_set", BTF_KIND_STRUCT);

	p[n++] = TASK;
	p[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_0);
	if (owner == OWN_PARENT)
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0,
				     (int16_t)task_field("real_parent"));
	if (owner == OWN_CGROUP) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, (int16_t)task_field("cgroups"));
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2,
				     (int16_t)btf_member_offset(btf, cset, "dfl_cgrp"));
	}
	{
		const struct bpf_insn ld[2] = { BPF_LD_MAP_FD(BPF_REG_1, map) };

		memcpy(&p[n], ld, sizeof(ld));
		n += 2;
	}
	if (del) {
		p[n++] = BPF_EMIT_CALL(owner == OWN_CGROUP ? BPF_FUNC_cgrp_storage_delete
							   : BPF_FUNC_task_storage_delete);
	} else {
		p[n++] = BPF_MOV64_IMM(BPF_REG_3, 0);
		p[n++] = BPF_MOV64_IMM(BPF_REG_4, (int32_t)flags);
		p[n++] = BPF_EMIT_CALL(owner == OWN_CGROUP ? BPF_FUNC_cgrp_storage_get
							   : BPF_FUNC_task_storage_get);
		p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4);
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0);
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1);
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0);
		p[n++] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_1);
	}
	p[n++] = BPF_EXIT_INSN();
	return side_prog_load(s, BPF_PROG_TYPE_RAW_TRACEPOINT, p, n);
}

/* Runs storage_prog() on both sides: the same result. */
static void prog_runs_agree(const char *what, const int map[NSIDES], enum owner owner,
			    uint32_t flags, bool del)
{
	uint64_t args[2] = { 0, 0 };
	uint32_t ret[NSIDES] = { 1, 2 };
	struct bpf_result r[NSIDES];
	int fd[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		fd[s] = storage_prog(s, map[s], owner, flags, del);
		CHECK(fd[s] >= 0);
		if (fd[s] < 0)
			return;
		r[s] = side_test_run_ctx(s, fd[s], NULL, 0, 0, args, sizeof(args), NULL, 0,
					 &ret[s]);
		close(fd[s]);
	}
	if (AGREE(what, r) && !r[K].rc && ret[U] != ret[K])
		test_fail(__FILE__, __LINE__, "%s: kernel %d, userbpf %d", what, (int)ret[K],
			  (int)ret[U]);
}

TEST(diff_task_storage_prog)
{
	int btf[NSIDES], map[NSIDES], self, parent;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || task_field("real_parent") < 0)
		SKIP("no kernel BTF: the task is laid out by it");
	/* (the program's task is this thread: it must be the one the pidfd names, the kernel's
	 * ids must be userbpf's) */
	if (gettid() != getpid() || !pids_are_global())
		SKIP("not the main thread, or a pid namespace of its own");
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	parent = (int)syscall(SYS_pidfd_open, getppid(), 0);
	if (self < 0 || parent < 0)
		SKIP("no pidfd_open()");
	REQUIRE(storage_maps(BPF_MAP_TYPE_TASK_STORAGE, btf, map));
	prog_runs_agree("get without create", map, OWN_TASK, 0, false);
	for (int i = 0; i < 3; i++)
		prog_runs_agree("get, create", map, OWN_TASK, BPF_LOCAL_STORAGE_GET_F_CREATE,
				false);
	prog_runs_agree("get, bad flags", map, OWN_TASK, 2, false);
	commands_agree("bpf() sees the program's value", BPF_MAP_LOOKUP_ELEM, map, self, 0, 0);
	commands_agree("bpf() sets one", BPF_MAP_UPDATE_ELEM, map, self, 100, BPF_EXIST);
	prog_runs_agree("the program sees it", map, OWN_TASK, 0, false);
	prog_runs_agree("the parent's, created", map, OWN_PARENT,
			BPF_LOCAL_STORAGE_GET_F_CREATE, false);
	commands_agree("bpf() sees the parent's", BPF_MAP_LOOKUP_ELEM, map, parent, 0, 0);
	prog_runs_agree("delete", map, OWN_TASK, 0, true);
	prog_runs_agree("delete again", map, OWN_TASK, 0, true);
	commands_agree("bpf() sees it deleted", BPF_MAP_LOOKUP_ELEM, map, self, 0, 0);
	prog_runs_agree("the parent's deleted", map, OWN_PARENT, 0, true);
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close(self);
	close(parent);
}

TEST(diff_cgrp_storage_prog)
{
	int btf[NSIDES], map[NSIDES], cg = own_cgroup_fd();

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || task_field("cgroups") < 0)
		SKIP("no kernel BTF: the task and cgroup are laid out by it");
	if (cg < 0)
		SKIP("no cgroup2 mount that shows this process's cgroup");
	REQUIRE(storage_maps(BPF_MAP_TYPE_CGRP_STORAGE, btf, map));
	prog_runs_agree("get without create", map, OWN_CGROUP, 0, false);
	for (int i = 0; i < 3; i++)
		prog_runs_agree("get, create", map, OWN_CGROUP, BPF_LOCAL_STORAGE_GET_F_CREATE,
				false);
	prog_runs_agree("get, bad flags", map, OWN_CGROUP, 2, false);
	commands_agree("bpf() sees the program's value", BPF_MAP_LOOKUP_ELEM, map, cg, 0, 0);
	commands_agree("bpf() sets one", BPF_MAP_UPDATE_ELEM, map, cg, 100, BPF_EXIST);
	prog_runs_agree("the program sees it", map, OWN_CGROUP, 0, false);
	prog_runs_agree("delete", map, OWN_CGROUP, 0, true);
	prog_runs_agree("delete again", map, OWN_CGROUP, 0, true);
	commands_agree("bpf() sees it deleted", BPF_MAP_LOOKUP_ELEM, map, cg, 0, 0);
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close(cg);
}

/* The verifier's rules: which task and cgroup pointers the helpers take, and which maps. */
TEST(diff_local_storage_verifier)
{
	int btf[NSIDES], map[NSIDES], sk_btf[NSIDES], sk_map[NSIDES], cg_btf[NSIDES];
	int cg_map[NSIDES], same = 0;
	static char log[NSIDES][1 << 16];
	int16_t parent = (int16_t)task_field("parent"), rp = (int16_t)task_field("real_parent");
	int16_t cgroups = (int16_t)task_field("cgroups");
	const struct btf *vmlinux = btf_vmlinux();
	int16_t dfl = vmlinux ? (int16_t)btf_member_offset(vmlinux,
		btf_find_by_name_kind(vmlinux, "css_set", BTF_KIND_STRUCT), "dfl_cgrp") : -1;
	enum { TASK_MAP, SK_MAP, CGRP_MAP };
	const struct {
		const char *what;
		struct bpf_insn arg[2]; /* what sets r2 after r0 = the task */
		int fn;
		int map;
	} cases[] = {
		{ "cgroup: the current one (RCU)", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, cgroups),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, dfl) }, BPF_FUNC_cgrp_storage_get,
		  CGRP_MAP },
		{ "cgroup: delete, the current one", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0,
		  cgroups), BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, dfl) },
		  BPF_FUNC_cgrp_storage_delete, CGRP_MAP },
		{ "cgroup: a task", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_cgrp_storage_get, CGRP_MAP },
		{ "cgroup: a css_set", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, cgroups),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_cgrp_storage_get, CGRP_MAP },
		{ "cgroup: NULL", { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_5, 0) },
		  BPF_FUNC_cgrp_storage_get, CGRP_MAP },
		{ "cgroup: delete, NULL", { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_5, 0) },
		  BPF_FUNC_cgrp_storage_delete, CGRP_MAP },
		{ "cgroup: the parent's (untrusted)", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0,
		  parent), BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, cgroups) },
		  BPF_FUNC_cgrp_storage_get, CGRP_MAP },
		{ "cgroup: a task storage map", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, cgroups),
		  BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, dfl) }, BPF_FUNC_cgrp_storage_get,
		  TASK_MAP },
		{ "task storage's get on a cgroup storage map", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, CGRP_MAP },
		{ "lookup in a cgroup storage map", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		  BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8) }, BPF_FUNC_map_lookup_elem, CGRP_MAP },
		{ "the current task", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "its real_parent (RCU)", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, rp),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "its parent (untrusted)", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, parent),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "offset", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 8) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "NULL", { BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_5, 0) },
		  BPF_FUNC_task_storage_get, TASK_MAP },
		{ "a css_set", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, cgroups),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "a scalar", { BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_0, rp),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, TASK_MAP },
		{ "delete, the current task", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_delete, TASK_MAP },
		{ "delete, untrusted", { BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_0, parent),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_delete, TASK_MAP },
		{ "a socket storage map", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		  BPF_MOV64_IMM(BPF_REG_5, 0) }, BPF_FUNC_task_storage_get, SK_MAP },
		{ "lookup in a task storage map", { BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		  BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8) }, BPF_FUNC_map_lookup_elem, TASK_MAP },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux() || rp < 0 || parent < 0 || cgroups < 0)
		SKIP("no kernel BTF: the task is laid out by it");
	REQUIRE(storage_maps(BPF_MAP_TYPE_TASK_STORAGE, btf, map));
	REQUIRE(storage_maps(BPF_MAP_TYPE_SK_STORAGE, sk_btf, sk_map));
	REQUIRE(storage_maps(BPF_MAP_TYPE_CGRP_STORAGE, cg_btf, cg_map));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			struct bpf_insn p[] = {
				BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
				TASK,
				cases[i].arg[0],
				cases[i].arg[1],
				BPF_LD_MAP_FD(BPF_REG_1, cases[i].map == SK_MAP     ? sk_map[s]
							 : cases[i].map == CGRP_MAP ? cg_map[s]
										    : map[s]),
				BPF_MOV64_IMM(BPF_REG_3, 0),
				BPF_MOV64_IMM(BPF_REG_4, 0),
				BPF_EMIT_CALL(cases[i].fn),
				BPF_MOV64_IMM(BPF_REG_0, 0),
				BPF_EXIT_INSN(),
			};

			r[s] = side_prog_load_level(s, BPF_PROG_TYPE_RAW_TRACEPOINT, 0, p,
						    ARRAY_SIZE(p), log[s], sizeof(log[s]), 2);
			if (r[s].rc >= 0)
				close(r[s].rc);
			char *end = strstr(log[s], "processed ");

			if (end)
				*end = 0;
			/* (the map's address differs: its LD_IMM64 shows it) */
			log_cut_map_addrs(log[s]);
		}
		if (!AGREE(cases[i].what, r))
			continue;
		if (strcmp(log[K], log[U]))
			test_fail(__FILE__, __LINE__,
				  "%s: logs differ:\n--- kernel\n%s--- userbpf\n%s", cases[i].what,
				  log[K], log[U]);
		else
			same++;
	}
	CHECK_EQ(same, (int)ARRAY_SIZE(cases));
	close_all(map, NSIDES);
	close_all(btf, NSIDES);
	close_all(sk_map, NSIDES);
	close_all(cg_map, NSIDES);
	close_all(cg_btf, NSIDES);
	close_all(sk_btf, NSIDES);
}

/* A task found by id and held (bpf_task_from_pid() in XDP, released after): the helpers take it
 * as the kernel's do; the value a get creates on this process is the one bpf() sees through its
 * pidfd, on both sides. */
TEST(diff_task_storage_acquired_task)
{
	const struct btf *btf = btf_vmlinux();
	s32 from_pid = btf ? (s32)btf_find_func(btf, "bpf_task_from_pid") : -1;
	s32 release = btf ? (s32)btf_find_func(btf, "bpf_task_release") : -1;
	int btfs[NSIDES], map[NSIDES], self;
	uint64_t v[NSIDES] = { 1, 2 };
	static const uint8_t pkt[64];
	static char log[NSIDES][1 << 16];

	SKIP_WITHOUT_KERNEL_BPF();
	if (from_pid <= 0 || release <= 0)
		SKIP("no kernel BTF with bpf_task_from_pid()");
	if (!pids_are_global())
		SKIP("a pid namespace of its own: the kernel's ids are not userbpf's");
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self < 0)
		SKIP("no pidfd_open()");
	REQUIRE(storage_maps(BPF_MAP_TYPE_TASK_STORAGE, btfs, map));
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn p[] = {
			BPF_MOV64_IMM(BPF_REG_1, getpid()),
			BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, from_pid),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 11),
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
			BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_MOV64_IMM(BPF_REG_4, BPF_LOCAL_STORAGE_GET_F_CREATE),
			BPF_EMIT_CALL(BPF_FUNC_task_storage_get),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
			BPF_ST_MEM(BPF_DW, BPF_REG_0, 0, 77),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, release),
			BPF_MOV64_IMM(BPF_REG_0, 2),
			BPF_EXIT_INSN(),
		};
		struct bpf_result r = side_prog_load_level(s, BPF_PROG_TYPE_XDP, 0, p,
							   ARRAY_SIZE(p), log[s],
							   sizeof(log[s]), 2);
		uint32_t ret = 0;
		char *m;

		CHECK(r.rc >= 0);
		if (r.rc < 0)
			continue;
		CHECK_EQ(side_test_run(s, r.rc, pkt, sizeof(pkt), &ret).rc, 0);
		CHECK_EQ(ret, 2);
		close(r.rc);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, map[s], &self, &v[s], 0).rc, 0);
		log_cut_map_addrs(log[s]); /* (the map's address differs) */
		if ((m = strstr(log[s], "processed ")))
			*m = 0;
	}
	CHECK_EQ(v[K], 77);
	CHECK_EQ(v[U], v[K]);
	if (strcmp(log[K], log[U]))
		test_fail(__FILE__, __LINE__, "logs differ:\n--- kernel\n%s--- userbpf\n%s", log[K],
			  log[U]);
	close_all(map, NSIDES);
	close_all(btfs, NSIDES);
	close(self);
}
