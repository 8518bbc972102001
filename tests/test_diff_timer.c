/* Maps with a bpf_timer in their values, differentially: creates of every map type (and the
 * flags that matter) with a value holding one timer or two must get the kernel's verdicts.  (The
 * timers at run time: test_loader_timer.c; the verifier's side: test_verifier_timer.c.)
 * Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"

/* BTF: 1 u32, 2 u64, 3 struct bpf_timer, 4 struct { u64 n; struct bpf_timer t; } (24 bytes),
 * 5 struct { u64 n; struct bpf_timer t; struct bpf_timer u; } (40 bytes: two timers). */
static const char STRS[] = "\0u32\0u64\0bpf_timer\0v\0n\0t\0u\0a\0b";
static const uint32_t types[] = {
	T_INT(1, 4, 0, 0, 32),
	T_INT(5, 8, 0, 0, 64),
	T_STRUCT(9, 2, 16), T_MEMBER(27, 2, 0), T_MEMBER(29, 2, 64),
	T_STRUCT(19, 2, 24), T_MEMBER(21, 2, 0), T_MEMBER(23, 3, 64),
	T_STRUCT(19, 3, 40), T_MEMBER(21, 2, 0), T_MEMBER(23, 3, 64), T_MEMBER(25, 3, 192),
};

/* Creates with a timer value: every map type, with flags that matter (mmapable arrays, no
 * preallocation), and a value with two timers: the same verdicts on both sides. */
TEST(diff_timer_creates)
{
	static const uint32_t map_types[] = {
		BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_PERCPU_HASH,
		BPF_MAP_TYPE_PERCPU_ARRAY, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_LRU_PERCPU_HASH,
		BPF_MAP_TYPE_ARRAY_OF_MAPS, BPF_MAP_TYPE_QUEUE, BPF_MAP_TYPE_BLOOM_FILTER,
		BPF_MAP_TYPE_SK_STORAGE, BPF_MAP_TYPE_CGROUP_STORAGE,
	};
	static const uint32_t flags[] = { 0, BPF_F_NO_PREALLOC, BPF_F_MMAPABLE, BPF_F_RDONLY_PROG };
	int btf[NSIDES], made = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		btf[s] = side_btf_load(s, types, sizeof(types) / 4, STRS, sizeof(STRS));
		REQUIRE(btf[s] >= 0);
	}
	for (size_t t = 0; t < sizeof(map_types) / sizeof(map_types[0]); t++)
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			for (uint32_t value = 4; value <= 5; value++) {
				struct bpf_result r[NSIDES];
				char what[80];
				uint32_t type = map_types[t];
				bool sks = type == BPF_MAP_TYPE_SK_STORAGE;
				bool cgs = type == BPF_MAP_TYPE_CGROUP_STORAGE;
				bool keyless = type == BPF_MAP_TYPE_QUEUE ||
					       type == BPF_MAP_TYPE_BLOOM_FILTER;
				uint32_t ks = keyless ? 0 : cgs ? 8 : 4;
				uint32_t vs = value == 4 ? 24 : 40;
				uint32_t max = (sks || cgs) ? 0 : 4;
				uint32_t map_flags = flags[f] | (sks ? BPF_F_NO_PREALLOC : 0);

				for (int s = 0; s < NSIDES; s++)
					r[s] = side_map_create_btf(s, type, ks, vs, max, map_flags,
								   btf[s], ks == 4 ? 1 : 0, value);
				snprintf(what, sizeof(what), "map type %u flags %#x, %s", map_types[t],
					 flags[f], value == 4 ? "a timer" : "two timers");
				AGREE(what, r);
				for (int s = 0; s < NSIDES; s++)
					if (r[s].rc >= 0)
						close(r[s].rc);
				made += r[K].rc >= 0;
			}
	CHECK(made >= 3);
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
}
