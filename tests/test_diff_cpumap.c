/* BPF_MAP_TYPE_CPUMAP, differentially: creation rules; seeded random bpf() command sequences
 * (queue sizes in range, 0 and too large, CPUs that exist or not, programs for the map or not,
 * every flag) with full walks, whose results, values and key order must be the kernel's; an XDP
 * program's bpf_redirect_map() through TEST_RUN; and the verifier's rules for the map.  Skipped
 * where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

#define CPUMAP BPF_MAP_TYPE_CPUMAP
#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(diff_cpumap_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 8, 0 },
		{ 4, 8, 8, 0 },
		{ 4, 12, 8, 0 },
		{ 8, 4, 8, 0 },
		{ 4, 4, 0, 0 },
		{ 4, 4, 8, BPF_F_NUMA_NODE },
		{ 4, 4, 8, BPF_F_RDONLY },
		{ 4, 4, 8, BPF_F_RDONLY_PROG },
		{ 4, 4, 8, BPF_F_NO_PREALLOC },
		{ 4, 4, 256, 0 },  /* NR_CPUS of the reference kernel (kernel_max + 1) */
		{ 4, 4, 257, 0 },
		{ 4, 4, 8193, 0 }, /* (of Debian's) */
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(CPUMAP, shapes);
}

/* An XDP program for a CPU map entry (expected_attach_type BPF_XDP_CPUMAP), or a plain one. */
static int load_xdp(int s, bool for_cpumap)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };

	return side_prog_load_eat_log(s, BPF_PROG_TYPE_XDP, for_cpumap ? BPF_XDP_CPUMAP : 0,
				      insns, 2, NULL, 0).rc;
}

/* Values agree: the same bytes, but for the program ids (which differ between the sides): only
 * whether there is one. */
static bool cpuvals_same(const void *kv, const void *uv, void *arg)
{
	struct bpf_cpumap_val k = { 0 }, u = { 0 };
	uint32_t vs = *(const uint32_t *)arg;

	memcpy(&k, kv, vs);
	memcpy(&u, uv, vs);
	k.bpf_prog.id = !!k.bpf_prog.id;
	u.bpf_prog.id = !!u.bpf_prog.id;
	return !memcmp(&k, &u, sizeof(k));
}

TEST(diff_cpumap_commands)
{
	uint32_t cpus = (uint32_t)userbpf_num_possible_cpus();
	uint64_t rng = 0x0fedcba987654321ull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (uint32_t vs = 4; vs <= 8; vs += 4) {
		int fd[NSIDES], cpuprog[NSIDES], plain[NSIDES], ok = 0;
		uint32_t max = cpus + 3;

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = side_map_create(s, CPUMAP, 4, vs, max, 0).rc;
			cpuprog[s] = load_xdp(s, true);
			plain[s] = load_xdp(s, false);
			REQUIRE(fd[s] >= 0 && cpuprog[s] >= 0 && plain[s] >= 0);
		}
		for (int i = 0; i < 400; i++) {
			static const uint32_t qsizes[] = { 1, 64, 16384, 0, 16385 };
			uint64_t x = xorshift64(&rng);
			uint32_t key = (uint32_t)(x % (max + 2)), op = (uint32_t)(x >> 8) % 4;
			uint32_t fsel = (uint32_t)(x >> 24) % 4;
			uint64_t flags = (x >> 16) % 5 == 0 ? (x >> 20) % 4 : BPF_ANY;
			struct bpf_result r[NSIDES];
			struct bpf_cpumap_val v[NSIDES];
			char what[64];

			for (int s = 0; s < NSIDES; s++) {
				int cmd = op < 2    ? BPF_MAP_UPDATE_ELEM
					  : op == 2 ? BPF_MAP_DELETE_ELEM
						    : BPF_MAP_LOOKUP_ELEM;

				memset(&v[s], 0, sizeof(v[s]));
				v[s].qsize = qsizes[(x >> 28) % N(qsizes)];
				v[s].bpf_prog.fd = fsel == 0   ? cpuprog[s]
						   : fsel == 1 ? plain[s]
						   : fsel == 2 ? -1
							       : 0;
				r[s] = side_elem(s, cmd, fd[s], &key, op == 2 ? NULL : &v[s],
						 op < 2 ? flags : 0);
			}
			snprintf(what, sizeof(what), "value %u step %d", vs, i);
			if (!AGREE(what, r))
				break;
			if (op == 3 && r[K].rc == 0 && !cpuvals_same(&v[K], &v[U], &vs)) {
				test_fail(__FILE__, __LINE__, "%s: values differ", what);
				break;
			}
			ok += r[K].rc == 0;
			if (i % 50 == 49 && !WALKS_AGREE(what, fd, vs, 64, cpuvals_same, &vs))
				break;
		}
		CHECK(ok > 100);
		for (int s = 0; s < NSIDES; s++) {
			close(fd[s]);
			close(cpuprog[s]);
			close(plain[s]);
		}
	}
}

TEST(diff_cpumap_redirect)
{
	int fd[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_cpumap_val v = { .qsize = 128 };

		fd[s] = side_map_create(s, CPUMAP, 4, sizeof(v), 8, 0).rc;
		REQUIRE(fd[s] >= 0);
		for (uint32_t k = 0; k < 8 && k < (uint32_t)userbpf_num_possible_cpus(); k++)
			REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &k, &v, 0).rc);
	}
	REDIRECTS_AGREE(fd, false, 3, 300, 0x3333cccc5555aaaaull);
	for (int s = 0; s < NSIDES; s++)
		close(fd[s]);
}

TEST(diff_cpumap_verifier)
{
	int cm[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		cm[s] = side_map_create(s, CPUMAP, 4, 4, 4, 0).rc;
		REQUIRE(cm[s] >= 0);
	}
	{
		struct bpf_insn look[] = {
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
			BPF_EXIT_INSN(),
		};
		struct bpf_insn red[] = {
			BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_redirect_map),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP("cpumap lookup", BPF_PROG_TYPE_XDP, look, 8, cm, 1);
		VERDICTS_AGREE_MAP("redirect_map from tc", BPF_PROG_TYPE_SCHED_CLS, red, 6, cm, 0);
		VERDICTS_AGREE_MAP("redirect_map", BPF_PROG_TYPE_XDP, red, 6, cm, 0);
	}
	for (int s = 0; s < NSIDES; s++)
		close(cm[s]);
}
