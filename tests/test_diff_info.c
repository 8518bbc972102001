/* BPF_OBJ_GET_INFO_BY_FD, differentially: map info for several map types and info_len rules;
 * program info (type, tag, name, license, map ids, processed instructions, creator, load time,
 * record sizes) for programs with map references; and the errors.  Ids differ between the
 * sides, so they are checked for consistency (a program's map ids are its maps' ids) rather
 * than equality.  Skipped where the kernel's bpf() is unavailable.
 */
#include <fcntl.h>
#include <linux/btf.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

/* where BPF_OBJ_GET_INFO_BY_FD's attr ends */
#define ATTR_INFO_END (offsetof(union bpf_attr, info.info) + sizeof(__u64))

TEST(diff_info_maps)
{
	static const struct {
		uint32_t type, ks, vs, max, flags;
		const char *name;
	} maps[] = {
		{ BPF_MAP_TYPE_HASH, 4, 8, 16, 0, "counts" },
		{ BPF_MAP_TYPE_ARRAY, 4, 12, 3, BPF_F_RDONLY_PROG, "cfg.rodata" },
		{ BPF_MAP_TYPE_PERCPU_HASH, 8, 16, 4, BPF_F_NO_PREALLOC, "" },
		{ BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0, "ports" },
		{ BPF_MAP_TYPE_QUEUE, 0, 4, 4, 0, "q" },
		{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, "events" },
	};
	/* (6.18's struct is 104 bytes: 16 past ours) */
	static const uint32_t lens[] = { 0, 4, 24, sizeof(struct bpf_map_info),
					 sizeof(struct bpf_map_info) + 8, 104, 112 };

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		int fd[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.map_type = maps[m].type;
			a.key_size = maps[m].ks;
			a.value_size = maps[m].vs;
			a.max_entries = maps[m].max;
			a.map_flags = maps[m].flags;
			strcpy(a.map_name, maps[m].name);
			fd[s] = side_call(s, BPF_MAP_CREATE, &a).rc;
			REQUIRE(fd[s] >= 0);
		}
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			union {
				struct bpf_map_info info;
				uint8_t raw[112];
			} u[NSIDES];
			uint32_t len[NSIDES];
			struct bpf_result r[NSIDES];
			char what[64];

			snprintf(what, sizeof(what), "map %zu info_len %u", m, lens[l]);
			for (int s = 0; s < NSIDES; s++) {
				memset(&u[s], 0, sizeof(u[s]));
				len[s] = lens[l];
				r[s] = side_obj_info(s, fd[s], &u[s], &len[s]);
			}
			if (!AGREE(what, r))
				continue;
			if (len[K] != len[U])
				test_fail(__FILE__, __LINE__, "%s: info_len back %u / %u", what,
					  len[K], len[U]);
			CHECK((u[K].info.id != 0) == (u[U].info.id != 0) || lens[l] < 8);
			u[K].info.id = u[U].info.id = 0;
			if (memcmp(&u[K], &u[U], sizeof(u[K])))
				test_fail(__FILE__, __LINE__, "%s: the info differs", what);
		}
		/* bytes past the struct must be zero (a hash request, at 88, is not served: no
		 * map here hashes its contents); a page is the limit; NULL with a length */
		for (int t = 0; t < 4; t++) {
			uint8_t buf[NSIDES][112];
			uint32_t len[NSIDES];
			struct bpf_result r[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				memset(buf[s], 0, sizeof(buf[s]));
				buf[s][t == 3 ? 91 : 107] = 1;
				len[s] = t == 1 ? 5000 : t == 2 ? 16 : sizeof(buf[s]);
				r[s] = side_obj_info(s, fd[s], t == 2 ? NULL : buf[s], &len[s]);
			}
			AGREE(t == 0 ? "nonzero tail" : t == 1 ? "over a page" : t == 2 ? "NULL info"
										: "hash request",
			      r);
		}
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
}

/* A socket filter reading a hash map and a .rodata-like array value (LD_IMM64 of both kinds),
 * with a bpf-to-bpf call when sub. */
static int load_prog(int s, int hash, int arr, bool sub)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, hash),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_LD_MAP_VALUE(BPF_REG_6, arr, 4),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, 0),
		sub ? BPF_CALL_REL(1) : BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = sub ? 13 : 11;
	a.license = PTR_TO_U64(sub ? "MIT" : "GPL");
	strcpy(a.prog_name, sub ? "with_sub" : "lookup");
	return side_call(s, BPF_PROG_LOAD, &a).rc;
}

TEST(diff_info_progs)
{
	int hash[NSIDES], arr[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		hash[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 8, 4, 0).rc;
		arr[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 16, 1, 0).rc;
		REQUIRE(hash[s] >= 0 && arr[s] >= 0);
	}
	for (int sub = 0; sub < 2; sub++) {
		struct bpf_prog_info info[NSIDES];
		uint32_t ids[NSIDES][4], len[NSIDES];
		uint8_t tags[NSIDES][4][BPF_TAG_SIZE];
		struct bpf_result r[NSIDES];
		int fd[NSIDES];
		struct timespec now;

		clock_gettime(CLOCK_BOOTTIME, &now);
		for (int s = 0; s < NSIDES; s++) {
			fd[s] = load_prog(s, hash[s], arr[s], sub);
			REQUIRE(fd[s] >= 0);
			memset(&info[s], 0, sizeof(info[s]));
			/* the kernel's writes are invisible to valgrind: start defined */
			memset(ids[s], 0, sizeof(ids[s]));
			memset(tags[s], 0, sizeof(tags[s]));
			info[s].nr_map_ids = 4;
			info[s].map_ids = PTR_TO_U64(ids[s]);
			info[s].nr_prog_tags = sub ? 0 : 4;
			info[s].prog_tags = PTR_TO_U64(tags[s]);
			len[s] = sizeof(info[s]);
			r[s] = side_obj_info(s, fd[s], &info[s], &len[s]);
		}
		if (AGREE("prog info", r)) {
			CHECK_EQ(len[K], len[U]);
			CHECK_EQ(info[K].type, info[U].type);
			CHECK(!memcmp(info[K].tag, info[U].tag, BPF_TAG_SIZE));
			CHECK(!strcmp(info[K].name, info[U].name));
			CHECK_EQ(info[K].gpl_compatible, info[U].gpl_compatible);
			CHECK_EQ(info[K].created_by_uid, info[U].created_by_uid);
			CHECK_EQ(info[K].verified_insns, info[U].verified_insns);
			CHECK_EQ(info[K].nr_map_ids, info[U].nr_map_ids);
			CHECK_EQ(info[K].btf_id, info[U].btf_id);
			CHECK_EQ(info[K].func_info_rec_size, info[U].func_info_rec_size);
			CHECK_EQ(info[K].line_info_rec_size, info[U].line_info_rec_size);
			CHECK_EQ(info[K].jited_line_info_rec_size, info[U].jited_line_info_rec_size);
			CHECK_EQ(info[K].run_cnt, info[U].run_cnt);
			for (int s = 0; s < NSIDES; s++) {
				uint64_t t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

				/* loaded just now, by the clock the kernel uses */
				CHECK(info[s].load_time >= t - 1000000000u &&
				      info[s].load_time < t + 60000000000ull);
				CHECK(info[s].id != 0);
				CHECK(info[s].nr_map_ids == 2 &&
				      ((ids[s][0] == side_map_id(s, hash[s]) &&
					ids[s][1] == side_map_id(s, arr[s])) ||
				       (ids[s][1] == side_map_id(s, hash[s]) &&
					ids[s][0] == side_map_id(s, arr[s]))));
			}
			if (!sub) {
				CHECK_EQ(info[K].nr_prog_tags, info[U].nr_prog_tags);
				CHECK(!memcmp(tags[K][0], tags[U][0], BPF_TAG_SIZE) &&
				      !memcmp(tags[U][0], info[U].tag, BPF_TAG_SIZE));
				CHECK_EQ(info[K].nr_jited_ksyms, info[U].nr_jited_ksyms);
			}
		}
		/* record sizes the caller gives must be the kernel's */
		for (int s = 0; s < NSIDES; s++) {
			memset(&info[s], 0, sizeof(info[s]));
			info[s].func_info_rec_size = 3;
			len[s] = sizeof(info[s]);
			r[s] = side_obj_info(s, fd[s], &info[s], &len[s]);
		}
		AGREE("bad func_info_rec_size", r);
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(hash[s]);
		close(arr[s]);
	}
}

/* A BTF object's info: its blob (in part and whole), size, name rules. */
TEST(diff_info_btf)
{
	struct {
		struct btf_header h;
		uint32_t type[4];
		char str[5];
	} __attribute__((packed)) blob = {
		{ BTF_MAGIC, 1, 0, sizeof(struct btf_header), 0, 16, 16, 5 },
		{ 1, 1u << 24, 4, (1u << 24) | 32 }, /* int: signed, 32 bits */
		"\0int",
	};
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.btf = PTR_TO_U64(&blob);
		a.btf_size = sizeof(blob);
		fd[s] = side_call(s, BPF_BTF_LOAD, &a).rc;
		REQUIRE(fd[s] >= 0);
	}
	/* blob room: none, part, all; a name buffer (with and without its length) */
	for (int t = 0; t < 5; t++) {
		struct bpf_btf_info info[NSIDES];
		uint8_t data[NSIDES][sizeof(blob)];
		char name[NSIDES][16];
		uint32_t len[NSIDES];
		struct bpf_result r[NSIDES];
		char what[32];

		snprintf(what, sizeof(what), "btf info %d", t);
		for (int s = 0; s < NSIDES; s++) {
			memset(&info[s], 0, sizeof(info[s]));
			memset(data[s], 0xee, sizeof(data[s]));
			memset(name[s], 'x', sizeof(name[s]));
			info[s].btf = PTR_TO_U64(data[s]);
			info[s].btf_size = t == 0 ? 0 : t == 1 ? 10 : sizeof(blob);
			if (t >= 3)
				info[s].name = PTR_TO_U64(name[s]);
			info[s].name_len = t == 3 ? sizeof(name[s]) : 0;
			len[s] = sizeof(info[s]);
			r[s] = side_obj_info(s, fd[s], &info[s], &len[s]);
		}
		if (!AGREE(what, r) || r[K].rc)
			continue;
		CHECK_EQ(len[K], len[U]);
		CHECK_EQ(info[K].btf_size, info[U].btf_size);
		CHECK_EQ(info[K].name_len, info[U].name_len);
		CHECK_EQ(info[K].kernel_btf, info[U].kernel_btf);
		CHECK(info[K].id && info[U].id);
		CHECK(!memcmp(data[K], data[U], sizeof(blob)));
		CHECK(t != 3 || !strcmp(name[K], name[U]));
	}
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}

TEST(diff_info_errors)
{
	int devnull = open("/dev/null", O_RDONLY);
	uint8_t buf[NSIDES][64];
	struct bpf_result r[NSIDES];
	uint32_t len[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(devnull >= 0);
	for (int s = 0; s < NSIDES; s++) {
		len[s] = sizeof(buf[s]);
		r[s] = side_obj_info(s, 1000, buf[s], &len[s]);
	}
	AGREE("closed fd", r);
	for (int s = 0; s < NSIDES; s++) {
		len[s] = sizeof(buf[s]);
		r[s] = side_obj_info(s, devnull, buf[s], &len[s]);
	}
	AGREE("not a bpf object", r);
	for (int s = 0; s < NSIDES; s++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (uint32_t)devnull;
		a.info.info = PTR_TO_U64(buf[s]);
		a.info.info_len = 64;
		((uint8_t *)&a)[ATTR_INFO_END] = 1;
		r[s] = side_call(s, BPF_OBJ_GET_INFO_BY_FD, &a);
	}
	AGREE("a byte after info.info", r);
	close(devnull);
}
