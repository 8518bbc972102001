/* Pinning, differentially: BPF_OBJ_PIN and BPF_OBJ_GET on the kernel (into a BPF filesystem
 * mounted for the test on a temporary directory) and on userbpf (into a temporary directory: its
 * pins are files of any filesystem).  The attr rules (file_flags, path_fd with and without
 * BPF_F_PATH_FD, the bytes after path_fd), what can be pinned (maps and programs; not a BTF
 * object, a pipe or a bad fd), the path errors (empty, NULL, missing directory, existing name,
 * trailing slash, a file as a directory, a bad path_fd), BPF_OBJ_GET's errors (a directory, a
 * missing name, flags) and what a pin does: the object outlives its fds with its contents and
 * id, a program array keeps its programs, an fd got with BPF_F_RDONLY or BPF_F_WRONLY has that
 * access, a pin can be renamed and reached through a symlink, and unlink() lets the object go.
 * Skipped where the kernel's bpf() or mount() of a BPF filesystem is unavailable.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#ifndef BPF_F_PATH_FD
#define BPF_F_PATH_FD (1U << 14)
#endif

static char dirs[NSIDES][64];

static void pin_dirs_remove(void)
{
	if (dirs[K][0]) {
		umount2(dirs[K], MNT_DETACH);
		rmdir(dirs[K]);
		dirs[K][0] = '\0';
	}
	if (dirs[U][0]) {
		rmdir(dirs[U]);
		dirs[U][0] = '\0';
	}
}

/* A bpffs for the kernel's pins and a plain directory for userbpf's; NULL or why not. */
static const char *pin_dirs_make(void)
{
	static char why[128];

	if (!kernel_bpf_available())
		return kernel_bpf_unavailable_reason();
	strcpy(dirs[K], "/tmp/userbpf-pin-k-XXXXXX");
	strcpy(dirs[U], "/tmp/userbpf-pin-u-XXXXXX");
	if (!mkdtemp(dirs[K]) || !mkdtemp(dirs[U])) {
		snprintf(why, sizeof(why), "mkdtemp: %s", strerror(errno));
		dirs[K][0] = dirs[U][0] = '\0';
		return why;
	}
	if (mount("bpf", dirs[K], "bpf", 0, "mode=0700")) {
		snprintf(why, sizeof(why), "mount -t bpf: %s", strerror(errno));
		rmdir(dirs[K]);
		dirs[K][0] = '\0';
		pin_dirs_remove();
		return why;
	}
	return NULL;
}

#define REQUIRE_PIN_DIRS()                                                                         \
	do {                                                                                       \
		const char *why_ = pin_dirs_make();                                                \
		if (why_)                                                                          \
			SKIP("no kernel BPF filesystem to compare with: %s", why_);                \
	} while (0)

/* BPF_OBJ_PIN or BPF_OBJ_GET with every field given, path_fd and the word after it included. */
static struct bpf_result obj_call(int s, int cmd, const char *path, uint32_t bpf_fd,
				  uint32_t flags, int32_t path_fd, uint32_t after)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = PTR_TO_U64(path);
	a.bpf_fd = bpf_fd;
	a.file_flags = flags;
	memcpy((uint8_t *)&a + 16, &path_fd, 4);
	memcpy((uint8_t *)&a + 20, &after, 4);
	return side_call(s, cmd, &a);
}

/* side s's directory joined with name */
static const char *at(int s, const char *name)
{
	static char buf[NSIDES][2][200];
	static int turn;

	turn ^= 1;
	snprintf(buf[s][turn], sizeof(buf[s][turn]), "%s/%s", dirs[s], name);
	return buf[s][turn];
}

static int load_ret(int s, int32_t ret)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, ret), BPF_EXIT_INSN() };

	return side_prog_load(s, BPF_PROG_TYPE_XDP, insns, 2);
}

/* Closes the fd of a successful GET (rc >= 0). */
static void close_result(struct bpf_result r[NSIDES])
{
	for (int s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
}

TEST(diff_pin_attr_and_path_rules)
{
	struct bpf_result r[NSIDES];
	int map[NSIDES], dirfd[NSIDES], btf_fd[NSIDES], pipefd[NSIDES][2];
	static const struct {
		uint32_t hdr[6], t[4];
		char str[5];
	} __attribute__((packed)) btf = {
		{ 0x0001eb9f, 24, 0, 16, 16, 5 },
		{ 1, 1u << 24, 4, 32 },
		"\0int",
	};

	REQUIRE_PIN_DIRS();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0).rc;
		dirfd[s] = open(dirs[s], O_RDONLY | O_DIRECTORY);
		memset(&a, 0, sizeof(a));
		a.btf = PTR_TO_U64(&btf);
		a.btf_size = sizeof(btf);
		btf_fd[s] = side_call(s, BPF_BTF_LOAD, &a).rc;
		REQUIRE(map[s] >= 0 && dirfd[s] >= 0 && btf_fd[s] >= 0 && !pipe(pipefd[s]));
	}
	/* each case on both sides: { what, cmd, name (NULL: a NULL pathname; "/" prefix: as
	 * is), fd kind, flags, path_fd kind, the word after path_fd } */
	enum { F_MAP, F_NONE, F_BAD, F_PIPE, F_BTF };
	enum { P_ZERO, P_DIR, P_BAD, P_FILE };
	static const struct {
		const char *what;
		int cmd;
		const char *name;
		int fd, flags, path_fd;
		uint32_t after;
	} cases[] = {
		{ "pin", BPF_OBJ_PIN, "m", F_MAP, 0, P_ZERO, 0 },
		{ "pin again", BPF_OBJ_PIN, "m", F_MAP, 0, P_ZERO, 0 },
		{ "pin, a flag", BPF_OBJ_PIN, "m2", F_MAP, BPF_F_RDONLY, P_ZERO, 0 },
		{ "pin, path_fd without the flag", BPF_OBJ_PIN, "m2", F_MAP, 0, P_DIR, 0 },
		{ "pin, a word after path_fd", BPF_OBJ_PIN, "m2", F_MAP, 0, P_ZERO, 1 },
		{ "pin, fd 0", BPF_OBJ_PIN, "m2", F_NONE, 0, P_ZERO, 0 },
		{ "pin, a bad fd", BPF_OBJ_PIN, "m2", F_BAD, 0, P_ZERO, 0 },
		{ "pin, a pipe", BPF_OBJ_PIN, "m2", F_PIPE, 0, P_ZERO, 0 },
		{ "pin, a BTF object", BPF_OBJ_PIN, "m2", F_BTF, 0, P_ZERO, 0 },
		{ "pin, NULL path", BPF_OBJ_PIN, NULL, F_MAP, 0, P_ZERO, 0 },
		{ "pin, empty path", BPF_OBJ_PIN, "/", F_MAP, 0, P_ZERO, 0 },
		{ "pin, no such directory", BPF_OBJ_PIN, "nodir/m", F_MAP, 0, P_ZERO, 0 },
		{ "pin, a pin as directory", BPF_OBJ_PIN, "m/x", F_MAP, 0, P_ZERO, 0 },
		{ "pin, trailing slash", BPF_OBJ_PIN, "m3/", F_MAP, 0, P_ZERO, 0 },
		{ "pin, path_fd", BPF_OBJ_PIN, "/rel", F_MAP, BPF_F_PATH_FD, P_DIR, 0 },
		{ "pin, bad path_fd", BPF_OBJ_PIN, "/rel2", F_MAP, BPF_F_PATH_FD, P_BAD, 0 },
		{ "pin, path_fd a file", BPF_OBJ_PIN, "/rel2", F_MAP, BPF_F_PATH_FD, P_FILE, 0 },
		{ "pin, bad path_fd, absolute path", BPF_OBJ_PIN, "abs", F_MAP, BPF_F_PATH_FD, P_BAD,
		  0 },
		{ "get", BPF_OBJ_GET, "m", F_NONE, 0, P_ZERO, 0 },
		{ "get, read-only", BPF_OBJ_GET, "m", F_NONE, BPF_F_RDONLY, P_ZERO, 0 },
		{ "get, write-only", BPF_OBJ_GET, "m", F_NONE, BPF_F_WRONLY, P_ZERO, 0 },
		{ "get, both", BPF_OBJ_GET, "m", F_NONE, BPF_F_RDONLY | BPF_F_WRONLY, P_ZERO, 0 },
		{ "get, another flag", BPF_OBJ_GET, "m", F_NONE, 1u << 5, P_ZERO, 0 },
		{ "get, bpf_fd set", BPF_OBJ_GET, "m", F_MAP, 0, P_ZERO, 0 },
		{ "get, path_fd without the flag", BPF_OBJ_GET, "m", F_NONE, 0, P_DIR, 0 },
		{ "get, a word after path_fd", BPF_OBJ_GET, "m", F_NONE, 0, P_ZERO, 1 },
		{ "get, path_fd", BPF_OBJ_GET, "/rel", F_NONE, BPF_F_PATH_FD, P_DIR, 0 },
		{ "get, bad path_fd", BPF_OBJ_GET, "/rel", F_NONE, BPF_F_PATH_FD, P_BAD, 0 },
		{ "get, missing", BPF_OBJ_GET, "nothing", F_NONE, 0, P_ZERO, 0 },
		{ "get, no such directory", BPF_OBJ_GET, "nodir/m", F_NONE, 0, P_ZERO, 0 },
		{ "get, the directory", BPF_OBJ_GET, ".", F_NONE, 0, P_ZERO, 0 },
		{ "get, the directory, read-only", BPF_OBJ_GET, ".", F_NONE, BPF_F_RDONLY, P_ZERO,
		  0 },
		{ "get, NULL path", BPF_OBJ_GET, NULL, F_NONE, 0, P_ZERO, 0 },
		{ "get, empty path", BPF_OBJ_GET, "/", F_NONE, 0, P_ZERO, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int s = 0; s < NSIDES; s++) {
			const char *name = cases[i].name, *path;
			uint32_t fd = cases[i].fd == F_MAP    ? (uint32_t)map[s]
				      : cases[i].fd == F_BAD  ? 999
				      : cases[i].fd == F_PIPE ? (uint32_t)pipefd[s][0]
				      : cases[i].fd == F_BTF  ? (uint32_t)btf_fd[s]
							      : 0;
			int32_t path_fd = cases[i].path_fd == P_DIR    ? dirfd[s]
					  : cases[i].path_fd == P_BAD  ? 998
					  : cases[i].path_fd == P_FILE ? pipefd[s][1]
								       : 0;

			path = !name ? NULL : name[0] == '/' ? name + 1 : at(s, name);
			r[s] = obj_call(s, cases[i].cmd, path, fd, (uint32_t)cases[i].flags,
					path_fd, cases[i].after);
		}
		AGREE(cases[i].what, r);
		if (cases[i].cmd == BPF_OBJ_GET)
			close_result(r);
	}
	/* what GET gave is the pinned map: the same id, with the asked access */
	for (int s = 0; s < NSIDES; s++) {
		int fd = obj_call(s, BPF_OBJ_GET, at(s, "m"), 0, BPF_F_RDONLY, 0, 0).rc;
		uint32_t key = 0;
		uint64_t v = 7;

		REQUIRE(fd >= 0);
		CHECK_EQ(side_map_id(s, fd), side_map_id(s, map[s]));
		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fd, &key, &v, 0);
		close(fd);
	}
	AGREE("update through a read-only pin's fd", r);
	for (int s = 0; s < NSIDES; s++) {
		unlink(at(s, "m"));
		unlink(at(s, "rel"));
		unlink(at(s, "abs"));
		close(map[s]);
		close(dirfd[s]);
		close(btf_fd[s]);
		close(pipefd[s][0]);
		close(pipefd[s][1]);
	}
	pin_dirs_remove();
}

/* Whether side s still has a map with this id (BPF_MAP_GET_NEXT_ID, which takes no reference),
 * waiting up to 2 s for the kernel, which frees an unpinned object a moment later (RCU, a work
 * queue).  expect: the answer that ends the wait early. */
static bool map_id_alive(int s, uint32_t id, bool expect)
{
	bool alive = !expect;

	for (int tries = 0; tries < 200 && alive != expect; tries++) {
		union bpf_attr a;

		if (tries)
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
		memset(&a, 0, sizeof(a));
		a.start_id = id - 1;
		alive = !side_call(s, BPF_MAP_GET_NEXT_ID, &a).rc && a.next_id == id;
	}
	return alive;
}

TEST(diff_pin_lifetime)
{
	struct bpf_result r[NSIDES];
	uint32_t ids[NSIDES], arr_ids[NSIDES], prog_ids[NSIDES];

	REQUIRE_PIN_DIRS();
	for (int s = 0; s < NSIDES; s++) {
		int map = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 16, 0).rc;
		int parr = side_map_create(s, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 2, 0).rc;
		int prog = load_ret(s, XDP_TX);
		uint32_t key = 3, zero = 0;
		uint64_t v = 0x1122334455667788ull;
		union bpf_attr a;
		uint32_t len;
		struct bpf_prog_info info;

		REQUIRE(map >= 0 && parr >= 0 && prog >= 0);
		REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, map, &key, &v, 0).rc, 0);
		REQUIRE_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM, parr, &zero, &prog, 0).rc, 0);
		ids[s] = side_map_id(s, map);
		arr_ids[s] = side_map_id(s, parr);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		REQUIRE_EQ(side_obj_info(s, prog, &info, &len).rc, 0);
		prog_ids[s] = info.id;
		CHECK_EQ(obj_call(s, BPF_OBJ_PIN, at(s, "map"), (uint32_t)map, 0, 0, 0).rc, 0);
		CHECK_EQ(obj_call(s, BPF_OBJ_PIN, at(s, "parr"), (uint32_t)parr, 0, 0, 0).rc, 0);
		CHECK_EQ(obj_call(s, BPF_OBJ_PIN, at(s, "prog"), (uint32_t)prog, 0, 0, 0).rc, 0);
		/* the pin's file: a regular file, read-write for its owner alone */
		{
			struct stat st;

			CHECK(!stat(at(s, "map"), &st) && S_ISREG(st.st_mode) &&
			      (st.st_mode & 0777) == (0600 & ~0022u));
		}
		close(map);
		close(parr);
		close(prog);
		memset(&a, 0, sizeof(a));
		(void)a;
	}
	/* every fd is closed: the pins hold the objects, contents and all */
	for (int s = 0; s < NSIDES; s++) {
		int map = obj_call(s, BPF_OBJ_GET, at(s, "map"), 0, 0, 0, 0).rc;
		int parr = obj_call(s, BPF_OBJ_GET, at(s, "parr"), 0, 0, 0, 0).rc;
		int prog = obj_call(s, BPF_OBJ_GET, at(s, "prog"), 0, BPF_F_RDONLY, 0, 0).rc;
		uint32_t key = 3, zero = 0, slot = 0, retval = 0;
		uint64_t v = 0;
		uint8_t pkt[64] = { 0 };

		REQUIRE(map >= 0 && parr >= 0 && prog >= 0);
		CHECK_EQ(side_map_id(s, map), ids[s]);
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, map, &key, &v, 0).rc, 0);
		CHECK_EQ(v, 0x1122334455667788ull);
		/* a program array keeps its programs while pinned (the pin is a user reference) */
		CHECK_EQ(side_elem(s, BPF_MAP_LOOKUP_ELEM, parr, &zero, &slot, 0).rc, 0);
		CHECK_EQ(slot, prog_ids[s]);
		/* a program's fd is whole whatever the flags asked */
		CHECK_EQ(side_test_run(s, prog, pkt, sizeof(pkt), &retval).rc, 0);
		CHECK_EQ(retval, XDP_TX);
		/* renamed, the pin still holds; through a symlink too */
		CHECK_EQ(rename(at(s, "map"), at(s, "map2")), 0);
		CHECK_EQ(symlink(at(s, "map2"), at(s, "link")), 0);
		r[s] = obj_call(s, BPF_OBJ_GET, at(s, "map"), 0, 0, 0, 0);
		CHECK(r[s].rc < 0 && r[s].err == ENOENT);
		r[s] = obj_call(s, BPF_OBJ_GET, at(s, "link"), 0, 0, 0, 0);
		CHECK(r[s].rc >= 0 && side_map_id(s, r[s].rc) == ids[s]);
		if (r[s].rc >= 0)
			close(r[s].rc);
		/* a pin over a symlink's name: EEXIST */
		r[s] = obj_call(s, BPF_OBJ_PIN, at(s, "link"), (uint32_t)map, 0, 0, 0);
		CHECK(r[s].rc < 0 && r[s].err == EEXIST);
		close(map);
		close(parr);
		close(prog);
	}
	/* unlinked and with no fd left, the objects go */
	for (int s = 0; s < NSIDES; s++) {
		CHECK_EQ(unlink(at(s, "link")), 0);
		CHECK(map_id_alive(s, ids[s], true));
		CHECK_EQ(unlink(at(s, "map2")), 0);
		CHECK(!map_id_alive(s, ids[s], false));
		CHECK_EQ(unlink(at(s, "parr")), 0);
		if (map_id_alive(s, arr_ids[s], false))
			test_fail(__FILE__, __LINE__, "side %d: the program array outlives its pin", s);
		CHECK_EQ(unlink(at(s, "prog")), 0);
	}
	pin_dirs_remove();
}

/* BPF_TOKEN_CREATE of 6.9, named by fds on both sides (they are the same files): its attr
 * rules, a bad fd, an O_PATH one, files, directories and objects that are not a BPF
 * filesystem's root (EINVAL), and the root of one, where the kernel (in the initial user
 * namespace) and userbpf alike say EOPNOTSUPP. */
static struct bpf_result token_create(int s, uint32_t flags, int32_t fd, uint32_t after)
{
	uint32_t a[40] = { 0 };

	a[0] = flags;
	memcpy(&a[1], &fd, 4);
	a[2] = after;
	return backend_call(diff_sides[s], 36, a, sizeof(a));
}

TEST(diff_token_create)
{
	struct bpf_result r[NSIDES];
	int s, calls = 0, root, root_path, sub, file, tmp, map[NSIDES];
	char path[128];

	REQUIRE_PIN_DIRS();
	snprintf(path, sizeof(path), "%s/sub", dirs[K]);
	REQUIRE(mkdir(path, 0700) == 0);
	root = open(dirs[K], O_RDONLY | O_DIRECTORY);
	root_path = open(dirs[K], O_PATH);
	sub = open(path, O_RDONLY | O_DIRECTORY);
	file = open("/proc/self/status", O_RDONLY);
	tmp = open("/tmp", O_RDONLY | O_DIRECTORY);
	REQUIRE(root >= 0 && root_path >= 0 && sub >= 0 && file >= 0 && tmp >= 0);
	for (s = 0; s < NSIDES; s++)
		map[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
	CALL_BOTH("bpffs root", token_create(s, 0, root, 0));
	CALL_BOTH("flags", token_create(s, 1, root, 0));
	CALL_BOTH("tail", token_create(s, 0, root, 1));
	CALL_BOTH("fd -1", token_create(s, 0, -1, 0));
	CALL_BOTH("fd closed", token_create(s, 0, 9999, 0));
	CALL_BOTH("O_PATH root", token_create(s, 0, root_path, 0));
	CALL_BOTH("bpffs subdirectory", token_create(s, 0, sub, 0));
	CALL_BOTH("procfs file", token_create(s, 0, file, 0));
	CALL_BOTH("/tmp", token_create(s, 0, tmp, 0));
	CALL_BOTH("map", token_create(s, 0, map[s], 0));
	CHECK_EQ(r[K].err, EINVAL);
	printf("diff_token_create: %d calls with the kernel's results\n", calls);
	for (s = 0; s < NSIDES; s++)
		close(map[s]);
	close(root);
	close(root_path);
	close(sub);
	close(file);
	close(tmp);
	rmdir(path);
	pin_dirs_remove();
}
