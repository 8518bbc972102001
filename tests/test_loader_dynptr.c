/* Dynptrs at run time, differentially: the corpus program xdp_dynptr_ops, loaded by the ELF
 * loader on both sides, performs one dynptr operation per test run (bpf_dynptr_from_mem() over a
 * map value with sizes in and beyond it, reads and writes at offsets and lengths in and beyond
 * the dynptr, unknown flags, bpf_dynptr_data() slices written through, ring buffer records
 * reserved as dynptrs until the ring is full, written, submitted or discarded).  The same random
 * operations in the same order must give the same return codes, results and map values on both
 * sides.  (The verifier's side: test_verifier_dynptr.c.)  Skipped where the kernel's bpf() is
 * unavailable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbpf.h"
#include "test.h"
#include "loader_sides.h"

struct val {
	uint8_t b[64];
};

struct result {
	int64_t ret[4];
	uint8_t bytes[32];
	uint64_t avail;
};

struct dynptr_sides {
	struct obj_sides os;
	int vals[NSIDES], results[NSIDES];
};

/* xdp_dynptr_ops.bpf.o on both sides, and its maps. */
static bool open_sides(struct dynptr_sides *ds)
{
	if (!obj_sides_open(&ds->os, LOADER_OBJ_DIR "/tests/corpus/xdp_dynptr_ops.bpf.o"))
		return false;
	for (int s = 0; s < NSIDES; s++) {
		ds->vals[s] = obj_sides_map(&ds->os, s, "vals");
		ds->results[s] = obj_sides_map(&ds->os, s, "results");
		if (ds->vals[s] < 0 || ds->results[s] < 0)
			return false;
	}
	return true;
}

/* The element key of map fd on side s (0xdd bytes if it cannot be read). */
static void get(int s, int fd, uint32_t key, void *value, size_t size)
{
	memset(value, 0xdd, size);
	if (side_elem(s, BPF_MAP_LOOKUP_ELEM, fd, &key, value, 0).rc)
		memset(value, 0xdd, size);
}

/* One operation (the packet's first 8 bytes, then 32 bytes of data) on both sides: the run,
 * then the element's result and value, must agree. */
static bool op(struct dynptr_sides *ds, const uint8_t hdr[8], unsigned step)
{
	uint8_t pkt[64];
	struct bpf_result r[NSIDES];
	uint32_t ret[NSIDES], key = hdr[1];
	struct result res[NSIDES];
	struct val v[NSIDES];
	char name[64];

	memcpy(pkt, hdr, 8);
	for (int i = 8; i < (int)sizeof(pkt); i++)
		pkt[i] = (uint8_t)(step * 31 + i);
	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, ds->os.prog[s], pkt, sizeof(pkt), &ret[s]);
	snprintf(name, sizeof(name), "dynptr step %u: op %u key %u off %u len %u", step, hdr[0],
		 hdr[1], hdr[2], hdr[3] & 31);
	if (!AGREE(name, r))
		return false;
	CHECK_EQ(ret[U], ret[K]);
	for (int s = 0; s < NSIDES; s++) {
		get(s, ds->results[s], key, &res[s], sizeof(res[s]));
		get(s, ds->vals[s], key, &v[s], sizeof(v[s]));
	}
	if (memcmp(&res[K], &res[U], sizeof(res[K]))) {
		test_fail(__FILE__, __LINE__,
			  "%s: results differ: kernel ret %lld %lld %lld avail %llu, userbpf ret %lld "
			  "%lld %lld avail %llu",
			  name, (long long)res[K].ret[0], (long long)res[K].ret[1],
			  (long long)res[K].ret[2], (unsigned long long)res[K].avail,
			  (long long)res[U].ret[0], (long long)res[U].ret[1], (long long)res[U].ret[2],
			  (unsigned long long)res[U].avail);
		return false;
	}
	if (memcmp(&v[K], &v[U], sizeof(v[K]))) {
		test_fail(__FILE__, __LINE__, "%s: the map values differ", name);
		return false;
	}
	return true;
}

TEST(loader_dynptr_runs)
{
	static const uint16_t sizes[] = { 0, 1, 8, 16, 48, 63, 64, 65, 200, 1000, 4088, 4096, 60000 };
	struct dynptr_sides ds;
	unsigned ops[5] = { 0 }, fails = 0;
	uint32_t seed = 20261205;

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(open_sides(&ds));
	for (uint32_t key = 0; key < 4; key++) {
		struct val v;
		struct bpf_result r[NSIDES];

		for (int i = 0; i < 64; i++)
			v.b[i] = (uint8_t)(key * 64 + i);
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, ds.vals[s], &key, &v, BPF_ANY);
		AGREE("bpf() update of a value", r);
	}
	for (unsigned step = 0; step < 600 && fails < 5; step++) {
		uint8_t hdr[8];
		uint16_t size;

		seed = seed * 1103515245u + 12345u;
		hdr[0] = (uint8_t)((seed >> 16) % 5);
		hdr[1] = (uint8_t)((seed >> 8) & 3);
		seed = seed * 1103515245u + 12345u;
		hdr[2] = (uint8_t)((seed >> 16) % 72);
		hdr[3] = (uint8_t)((seed >> 8) & 31);
		seed = seed * 1103515245u + 12345u;
		hdr[4] = (uint8_t)((seed >> 16) % 4 == 3 ? (seed >> 8) & 3 : 0);
		hdr[5] = 0;
		size = sizes[(seed >> 20) % (sizeof(sizes) / sizeof(sizes[0]))];
		hdr[6] = (uint8_t)size;
		hdr[7] = (uint8_t)(size >> 8);
		ops[hdr[0]]++;
		if (!op(&ds, hdr, step))
			fails++;
	}
	printf("dynptr runs: %u from_mem+read, %u from_mem+write, %u data, %u ring buffer, %u "
	       "read with flags; results and values agree: %s\n",
	       ops[0], ops[1], ops[2], ops[3], ops[4], fails ? "no" : "yes");
	obj_sides_close(&ds.os);
}
