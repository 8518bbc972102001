/* Pinning on userbpf alone (no kernel needed): pins are files in any directory (src/pin.c).
 * A pin holds its object after every fd closes and lets it go when its last link is removed
 * through unlink(), unlinkat(), remove() or a rename() over it; hard links, renames and
 * RENAME_EXCHANGE keep it; its file says what it pins; a file that is not a pin is EACCES; an
 * mmapable array (whose pages are its memfd's) comes back only while one of its fds is open.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static char dir[64];

static const char *at(const char *name)
{
	static char buf[2][128];
	static int turn;

	turn ^= 1;
	snprintf(buf[turn], sizeof(buf[turn]), "%.60s/%.60s", dir, name);
	return buf[turn];
}

static int map_create(uint32_t type, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 4;
	a.map_flags = flags;
	return bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static int obj_cmd(int cmd, const char *path, int fd, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	a.bpf_fd = (uint32_t)fd;
	a.file_flags = flags;
	return bpf(cmd, &a, sizeof(a));
}

static uint32_t map_id(int fd)
{
	struct bpf_map_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info = (uint64_t)(uintptr_t)&info;
	a.info.info_len = sizeof(info);
	return bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) ? 0 : info.id;
}

/* A program of type: the 2 insns at insns. */
static int prog_load(uint32_t type, const struct bpf_insn *insns)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	return bpf(BPF_PROG_LOAD, &a, sizeof(a));
}

/* The id of the map pinned at path, 0 if BPF_OBJ_GET fails. */
static uint32_t pinned_id(const char *path)
{
	int fd = obj_cmd(BPF_OBJ_GET, path, 0, 0);
	uint32_t id = fd >= 0 ? map_id(fd) : 0;

	if (fd >= 0)
		close(fd);
	return id;
}

#define REQUIRE_DIR()                                                                              \
	do {                                                                                       \
		strcpy(dir, "/tmp/userbpf-pin-XXXXXX");                                            \
		if (!mkdtemp(dir))                                                                 \
			SKIP("mkdtemp: %s", strerror(errno));                                      \
	} while (0)

TEST(pin_holds_until_last_link)
{
	unsigned live = obj_live_count();
	int m = map_create(BPF_MAP_TYPE_HASH, 0), fd;
	uint32_t id = map_id(m), key = 1;
	uint64_t v = 42, got = 0;
	char text[128], want[128];
	union bpf_attr a;
	ssize_t n;

	REQUIRE_DIR();
	REQUIRE(m >= 0 && id);
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)m;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&v;
	REQUIRE_EQ(bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)), 0);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("m"), m, 0), 0);
	/* the file says what it pins */
	fd = open(at("m"), O_RDONLY);
	n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	REQUIRE(n > 0);
	text[n] = '\0';
	snprintf(want, sizeof(want), "userbpf map %u of process %d\n", id, (int)getpid());
	CHECK(!strcmp(text, want));
	close(m);
	CHECK_EQ(obj_live_count(), live + 1);
	/* fetched back: the same map, its contents kept */
	fd = obj_cmd(BPF_OBJ_GET, at("m"), 0, 0);
	REQUIRE(fd >= 0);
	CHECK_EQ(map_id(fd), id);
	a.map_fd = (uint32_t)fd;
	a.value = (uint64_t)(uintptr_t)&got;
	CHECK_EQ(bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)), 0);
	CHECK_EQ(got, 42);
	close(fd);
	/* a hard link is a second name: the first one's removal keeps the object */
	REQUIRE_EQ(link(at("m"), at("m2")), 0);
	CHECK_EQ(unlink(at("m")), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	CHECK_EQ(pinned_id(at("m2")), id);
	/* renamed, then removed through remove(): gone */
	CHECK_EQ(rename(at("m2"), at("m3")), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	CHECK_EQ(pinned_id(at("m3")), id);
	CHECK_EQ(remove(at("m3")), 0);
	CHECK_EQ(obj_live_count(), live);
	CHECK_EQ(pinned_id(at("m3")), 0);
	CHECK_EQ(errno, ENOENT);
	rmdir(dir);
}

TEST(pin_rename_over_and_exchange)
{
	unsigned live = obj_live_count();
	int m1 = map_create(BPF_MAP_TYPE_ARRAY, 0), m2 = map_create(BPF_MAP_TYPE_ARRAY, 0);
	int dfd;
	uint32_t id1 = map_id(m1), id2 = map_id(m2);

	REQUIRE_DIR();
	REQUIRE(m1 >= 0 && m2 >= 0);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("a"), m1, 0), 0);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("b"), m2, 0), 0);
	close(m1);
	close(m2);
	CHECK_EQ(obj_live_count(), live + 2);
	/* exchanged, both stay, each under the other's name */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	REQUIRE(dfd >= 0);
	CHECK_EQ(renameat2(dfd, "a", dfd, "b", RENAME_EXCHANGE), 0);
	CHECK_EQ(obj_live_count(), live + 2);
	CHECK_EQ(pinned_id(at("a")), id2);
	CHECK_EQ(pinned_id(at("b")), id1);
	/* renamed over the other: the one replaced goes */
	CHECK_EQ(renameat(dfd, "a", dfd, "b"), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	CHECK_EQ(pinned_id(at("b")), id2);
	/* a rename onto itself (a hard link of the same file) removes nothing */
	REQUIRE_EQ(link(at("b"), at("c")), 0);
	CHECK_EQ(rename(at("b"), at("c")), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	CHECK_EQ(unlinkat(dfd, "b", 0), 0);
	CHECK_EQ(obj_live_count(), live + 1);
	CHECK_EQ(unlinkat(dfd, "c", 0), 0);
	CHECK_EQ(obj_live_count(), live);
	close(dfd);
	rmdir(dir);
}

TEST(pin_other_files_and_programs)
{
	unsigned live = obj_live_count();
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_TX), BPF_EXIT_INSN() };
	union bpf_attr a;
	uint8_t pkt[64] = { 0 };
	int prog, fd, m;
	void *p;

	REQUIRE_DIR();
	/* a file that is no pin: EACCES, as a file that is no BPF inode */
	fd = open(at("plain"), O_WRONLY | O_CREAT, 0600);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(obj_cmd(BPF_OBJ_GET, at("plain"), 0, 0), -1);
	CHECK_EQ(errno, EACCES);
	CHECK_EQ(unlink(at("plain")), 0);
	/* a program, pinned and its fd closed, runs from the fd BPF_OBJ_GET gives */
	prog = prog_load(BPF_PROG_TYPE_XDP, insns);
	REQUIRE(prog >= 0);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("prog"), prog, 0), 0);
	close(prog);
	fd = obj_cmd(BPF_OBJ_GET, at("prog"), 0, BPF_F_RDONLY);
	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)fd;
	a.test.data_in = (uint64_t)(uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	CHECK_EQ(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
	CHECK_EQ(a.test.retval, XDP_TX);
	close(fd);
	CHECK_EQ(unlink(at("prog")), 0);
	CHECK_EQ(obj_live_count(), live);
	/* an mmapable array's pages are its memfd's: it comes back while one of its fds is open,
	 * sharing them, and not after (EOPNOTSUPP, as BPF_MAP_GET_FD_BY_ID) */
	m = map_create(BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE);
	REQUIRE(m >= 0);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("mm"), m, 0), 0);
	fd = obj_cmd(BPF_OBJ_GET, at("mm"), 0, 0);
	REQUIRE(fd >= 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(p != MAP_FAILED);
	{
		uint64_t *v = mmap(NULL, 4096, PROT_READ, MAP_SHARED, m, 0);

		REQUIRE(v != MAP_FAILED);
		((uint64_t *)p)[1] = 77;
		CHECK_EQ(v[1], 77);
		munmap(v, 4096);
	}
	munmap(p, 4096);
	close(fd);
	close(m);
	CHECK_EQ(obj_cmd(BPF_OBJ_GET, at("mm"), 0, 0), -1);
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_EQ(unlink(at("mm")), 0);
	CHECK_EQ(obj_live_count(), live);
	/* with no pin left, unlink() and rename() of other files work as ever */
	fd = open(at("f"), O_WRONLY | O_CREAT, 0600);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(rename(at("f"), at("g")), 0);
	CHECK_EQ(unlink(at("f")), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(unlink(at("g")), 0);
	CHECK_EQ(rmdir(dir), 0);
}

/* A link, pinned and its fd closed, stays (with its program) until the pin goes: BPF_OBJ_GET
 * gives an fd of it; then its id is gone with it. */
TEST(pin_link)
{
	unsigned live = obj_live_count();
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct bpf_link_info info;
	union bpf_attr a;
	int prog, link, fd;
	uint32_t id;

	REQUIRE_DIR();
	prog = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, insns);
	REQUIRE(prog >= 0);
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uint64_t)(uintptr_t)"sched_switch";
	a.raw_tracepoint.prog_fd = (uint32_t)prog;
	link = bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
	close(prog); /* (the link holds it) */
	REQUIRE(link >= 0);
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)link;
	a.info.info = (uint64_t)(uintptr_t)&info;
	a.info.info_len = sizeof(info);
	REQUIRE_EQ(bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)), 0);
	id = info.id;
	CHECK_EQ(info.type, BPF_LINK_TYPE_RAW_TRACEPOINT);
	REQUIRE_EQ(obj_cmd(BPF_OBJ_PIN, at("link"), link, 0), 0);
	close(link);
	fd = obj_cmd(BPF_OBJ_GET, at("link"), 0, BPF_F_RDONLY);
	REQUIRE(fd >= 0);
	memset(&info, 0, sizeof(info));
	a.info.bpf_fd = (uint32_t)fd;
	CHECK_EQ(bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)), 0);
	CHECK_EQ(info.id, id);
	close(fd);
	CHECK_EQ(unlink(at("link")), 0);
	memset(&a, 0, sizeof(a));
	a.link_id = id;
	CHECK_EQ(bpf(BPF_LINK_GET_FD_BY_ID, &a, sizeof(a)), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(obj_live_count(), live);
	rmdir(dir);
}
