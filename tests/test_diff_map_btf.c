/* Maps with BTF (btf_fd, btf_key_type_id, btf_value_type_id), differentially: for every map type,
 * key and value type ids of every kind (sized or not, matching the sizes or not, an array's u32
 * key or not, a keyless .data section, a value holding a bpf_spin_lock) and btf_fd values (a BTF
 * object, another object, a closed fd), BPF_MAP_CREATE must give the kernel's result, and a map
 * made must report the ids in BPF_OBJ_GET_INFO_BY_FD.  (How a lock in a value behaves:
 * tests/test_diff_lock.c.)  Skipped where the kernel's bpf() is unavailable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"

static const char STRS[] = "\0int\0a\0b\0s\0t\0bpf_spin_lock\0v\0l\0V\0.data\0val";
enum { S_INT = 1, S_A = 5, S_B = 7, S_S = 9, S_T = 11, S_LOCK = 13, S_V = 27, S_L = 29,
       S_VAR = 31, S_DATA = 33, S_VAL = 39, S_END = sizeof(STRS) };

/* Type ids of the blob below. */
enum {
	U32 = 1, S32, U64, BITS16, PAIR, TYPEDEF_U32, CONST_PAIR, PTR_U32, ARR_U32_2, PROTO,
	SPIN_LOCK, LOCKED, VAR_U64, DATASEC, NTYPES
};

static const uint32_t types[] = {
	T_INT(S_INT, 4, 0, 0, 32),			/* 1 u32 */
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),		/* 2 s32 */
	T_INT(S_INT, 8, 0, 0, 64),			/* 3 u64 */
	T_INT(S_INT, 4, 0, 0, 16),			/* 4 a 16-bit int in 4 bytes */
	T_STRUCT(S_S, 2, 8), T_MEMBER(S_A, U32, 0), T_MEMBER(S_B, U32, 32), /* 5 struct s */
	T_REF(BTF_KIND_TYPEDEF, S_T, U32),		/* 6 typedef u32 t */
	T_REF(BTF_KIND_CONST, 0, PAIR),			/* 7 const struct s */
	T_PTR(U32),					/* 8 u32 * */
	T_ARRAY(U32, U32, 2),				/* 9 u32[2] */
	T_PROTO(U32, 0),				/* 10 u32 (void) */
	T_STRUCT(S_LOCK, 1, 4), T_MEMBER(S_VAL, U32, 0), /* 11 struct bpf_spin_lock */
	T_STRUCT(S_V, 2, 8), T_MEMBER(S_A, U32, 0), T_MEMBER(S_L, SPIN_LOCK, 32), /* 12 */
	T_VAR(S_VAR, U64, 1),				/* 13 u64 V */
	T_DATASEC(S_DATA, 1, 8), T_VSI(VAR_U64, 0, 8),	/* 14 .data */
};

struct map_kind {
	uint32_t type, ks, vs, max, flags;
	bool inner; /* a map of maps: inner_map_fd is a template array */
};

static const struct map_kind kinds[] = {
	{ BPF_MAP_TYPE_HASH, 4, 8, 4, 0, false },
	{ BPF_MAP_TYPE_HASH, 8, 8, 4, 0, false },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, false },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, false },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_RDONLY_PROG, false },
	{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, false },
	{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, 0, false },
	{ BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0, false },
	{ BPF_MAP_TYPE_LPM_TRIE, 8, 8, 4, BPF_F_NO_PREALLOC, false },
	{ BPF_MAP_TYPE_QUEUE, 0, 8, 4, 0, false },
	{ BPF_MAP_TYPE_STACK, 0, 8, 4, 0, false },
	{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, false },
	{ BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, false },
	{ BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0, false },
	{ BPF_MAP_TYPE_DEVMAP_HASH, 4, 4, 4, 0, false },
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 4, 0, true },
	{ BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 4, 0, true },
};

static struct bpf_result create(int s, const struct map_kind *k, int btf_fd, uint32_t key_id,
				uint32_t value_id, int inner)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = k->type;
	a.key_size = k->ks;
	a.value_size = k->vs;
	a.max_entries = k->max;
	a.map_flags = k->flags;
	a.inner_map_fd = k->inner ? (uint32_t)inner : 0;
	a.btf_fd = (uint32_t)btf_fd;
	a.btf_key_type_id = key_id;
	a.btf_value_type_id = value_id;
	return side_call(s, BPF_MAP_CREATE, &a);
}

/* The map's BTF ids as its info reports them: btf object present, key id, value id. */
static void map_btf_ids(int s, int fd, uint32_t out[3])
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	out[0] = out[1] = out[2] = 0xdead;
	if (side_obj_info(s, fd, &info, &len).rc == 0) {
		out[0] = info.btf_id != 0;
		out[1] = info.btf_key_type_id;
		out[2] = info.btf_value_type_id;
	}
}

TEST(diff_map_btf)
{
	static const uint32_t key_ids[] = { 0, U32, S32, U64, BITS16, PAIR, TYPEDEF_U32, PTR_U32,
					    ARR_U32_2, PROTO, NTYPES + 5 };
	static const uint32_t value_ids[] = { 0, U32, U64, PAIR, CONST_PAIR, ARR_U32_2, LOCKED,
					      DATASEC, PROTO, PTR_U32 };
	int btf[NSIDES], inner[NSIDES], made = 0, cases = 0, locked = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, S_END);
		inner[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		REQUIRE(btf[s] >= 0 && inner[s] >= 0);
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t ki = 0; ki < sizeof(key_ids) / sizeof(key_ids[0]); ki++)
			for (size_t vi = 0; vi < sizeof(value_ids) / sizeof(value_ids[0]); vi++)
				for (int f = 0; f < 3; f++) {
					struct bpf_result r[NSIDES];
					uint32_t ids[NSIDES][3];
					char what[96];

					/* the BTF object; a map's fd; a closed fd (only with the
					 * first few ids: the fd checks come first) */
					if (f && (ki > 2 || vi > 2))
						continue;
					for (int s = 0; s < NSIDES; s++)
						r[s] = create(s, &kinds[k],
							      f == 0 ? btf[s] : f == 1 ? inner[s] : 999,
							      key_ids[ki], value_ids[vi], inner[s]);
					snprintf(what, sizeof(what),
						 "map type %u ks %u vs %u: key id %u value id %u fd %d",
						 kinds[k].type, kinds[k].ks, kinds[k].vs, key_ids[ki],
						 value_ids[vi], f);
					cases++;
					if (AGREE(what, r) && r[K].rc >= 0) {
						made++;
						locked += value_ids[vi] == LOCKED;
						for (int s = 0; s < NSIDES; s++)
							map_btf_ids(s, r[s].rc, ids[s]);
						if (memcmp(ids[K], ids[U], sizeof(ids[K])))
							test_fail(__FILE__, __LINE__,
								  "%s: info btf ids %u/%u/%u, userbpf "
								  "%u/%u/%u",
								  what, ids[K][0], ids[K][1], ids[K][2],
								  ids[U][0], ids[U][1], ids[U][2]);
					}
					for (int s = 0; s < NSIDES; s++)
						if (r[s].rc >= 0)
							close(r[s].rc);
				}
	printf("map btf: %d creates, %d made on both sides (%d with a bpf_spin_lock)\n", cases,
	       made, locked);
	CHECK(made > 20 && locked > 0);
	for (int s = 0; s < NSIDES; s++) {
		close(btf[s]);
		close(inner[s]);
	}
}
