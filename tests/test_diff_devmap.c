/* BPF_MAP_TYPE_DEVMAP and BPF_MAP_TYPE_DEVMAP_HASH, differentially: creation rules; seeded
 * random bpf() command sequences (devices that exist or not, programs for the device or not,
 * every flag) with full walks, whose results, values and key order must be the kernel's; an
 * XDP program's bpf_redirect_map() and lookups through TEST_RUN; and the verifier's rules for
 * these maps.  Skipped where the kernel's bpf() is unavailable.
 */
#include <string.h>
#include <unistd.h>

#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

static const uint32_t dev_types[2] = { BPF_MAP_TYPE_DEVMAP, BPF_MAP_TYPE_DEVMAP_HASH };

TEST(diff_devmap_create)
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
	};
	/* the hash's limit (an array this big is a matter of memory) */
	static const struct map_shape huge[] = { { 4, 4, (1u << 31) + 1, 0 } };

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(BPF_MAP_TYPE_DEVMAP, shapes);
	CREATES_AGREE(BPF_MAP_TYPE_DEVMAP_HASH, shapes);
	CREATES_AGREE(BPF_MAP_TYPE_DEVMAP_HASH, huge);
}

/* An XDP program for a device map entry (expected_attach_type BPF_XDP_DEVMAP), or a plain one. */
static int load_xdp(int s, bool for_devmap)
{
	struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_0, XDP_PASS), BPF_EXIT_INSN() };
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = 2;
	a.license = PTR_TO_U64("GPL");
	a.expected_attach_type = for_devmap ? BPF_XDP_DEVMAP : 0;
	return side_call(s, BPF_PROG_LOAD, &a).rc;
}

/* The program id in a value read back, made comparable between the sides (whose ids differ):
 * 1 if there is one.  (Only the devmap program can be there.) */
static void normalise(struct bpf_devmap_val *v)
{
	v->bpf_prog.id = !!v->bpf_prog.id;
}

/* Device map values agree: the same bytes, but for the program ids (see normalise()). */
static bool devvals_same(const void *kv, const void *uv, void *arg)
{
	struct bpf_devmap_val k, u;
	uint32_t vs = *(const uint32_t *)arg;

	memcpy(&k, kv, sizeof(k));
	memcpy(&u, uv, sizeof(u));
	if (vs == 8) {
		normalise(&k);
		normalise(&u);
	}
	return !memcmp(&k, &u, vs);
}

/* One random command on both sides: an update (of a device that exists or not, with the devmap
 * program, a plain one, -1 or none, and random flags), a delete or a lookup.  *ok counts the
 * successes; false after a reported difference. */
static bool one_command(const int fd[NSIDES], const int devprog[NSIDES], const int plain[NSIDES],
			uint32_t vs, uint64_t rng, const char *what, int *ok)
{
	static const uint32_t ifx[] = { 1, 1, 1, 0, 999999 };
	uint32_t key = (uint32_t)(rng % 9), op = (uint32_t)(rng >> 8) % 4;
	uint32_t fsel = (uint32_t)(rng >> 24) % 4;
	uint64_t flags = (rng >> 16) % 5 == 0 ? (rng >> 20) % 4 : BPF_ANY;
	struct bpf_result r[NSIDES];
	struct bpf_devmap_val v[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		int cmd = op < 2 ? BPF_MAP_UPDATE_ELEM : op == 2 ? BPF_MAP_DELETE_ELEM
							       : BPF_MAP_LOOKUP_ELEM;

		memset(&v[s], 0, sizeof(v[s]));
		v[s].ifindex = ifx[(rng >> 28) % 5];
		v[s].bpf_prog.fd = fsel == 0	 ? devprog[s]
				   : fsel == 1 ? plain[s]
				   : fsel == 2 ? -1
					       : 0;
		r[s] = side_elem(s, cmd, fd[s], &key, op == 2 ? NULL : &v[s],
				 op < 2 ? flags : 0);
		if (op == 3 && vs == 8)
			normalise(&v[s]);
	}
	if (!AGREE(what, r))
		return false;
	if (op == 3 && r[K].rc == 0 && memcmp(&v[K], &v[U], vs)) {
		test_fail(__FILE__, __LINE__, "%s: values differ", what);
		return false;
	}
	*ok += r[K].rc == 0;
	return true;
}

TEST(diff_devmap_commands)
{
	uint64_t rng = 0x0123456789abcdefull;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++)
		for (uint32_t vs = 4; vs <= 8; vs += 4) {
			int fd[NSIDES], devprog[NSIDES], plain[NSIDES], ok = 0;
			char what[64];

			for (int s = 0; s < NSIDES; s++) {
				fd[s] = side_map_create(s, dev_types[t], 4, vs, 6, 0).rc;
				devprog[s] = load_xdp(s, true);
				plain[s] = load_xdp(s, false);
				REQUIRE(fd[s] >= 0 && devprog[s] >= 0 && plain[s] >= 0);
			}
			for (int i = 0; i < 400; i++) {
				uint64_t x = xorshift64(&rng);

				snprintf(what, sizeof(what), "type %u value %u step %d",
					 dev_types[t], vs, i);
				if (!one_command(fd, devprog, plain, vs, x, what, &ok))
					break;
				if (i % 50 == 49 && !WALKS_AGREE(what, fd, vs, 64, devvals_same, &vs))
					break;
			}
			CHECK(ok > 100);
			for (int s = 0; s < NSIDES; s++) {
				close(fd[s]);
				close(devprog[s]);
				close(plain[s]);
			}
		}
}

TEST(diff_devmap_redirect)
{
	SKIP_WITHOUT_KERNEL_BPF();
	for (int t = 0; t < 2; t++) {
		int fd[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			fd[s] = side_map_create(s, dev_types[t], 4, 4, 8, 0).rc;
			REQUIRE(fd[s] >= 0);
			for (uint32_t k = 0, lo = 1; k < 8; k += 3)
				REQUIRE(!side_elem(s, BPF_MAP_UPDATE_ELEM, fd[s], &k, &lo, 0).rc);
		}
		/* (lookups read the ifindex) */
		REDIRECTS_AGREE(fd, true, 3 | BPF_F_BROADCAST, 300, 0x5555aaaa3333ccccull);
		for (int s = 0; s < NSIDES; s++)
			close(fd[s]);
	}
}

TEST(diff_devmap_verifier)
{
	int dm[NSIDES], hm[NSIDES];

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		dm[s] = side_map_create(s, BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0).rc;
		hm[s] = side_map_create(s, BPF_MAP_TYPE_HASH, 4, 4, 4, 0).rc;
		REQUIRE(dm[s] >= 0 && hm[s] >= 0);
	}
	{ /* a lookup's value is read-only */
		struct bpf_insn p[] = {
			BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
			BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 7), BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP("devmap value write", BPF_PROG_TYPE_XDP, p, 10, dm, 1);
		p[6] = BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, 0);
		VERDICTS_AGREE_MAP("devmap value read", BPF_PROG_TYPE_XDP, p, 10, dm, 1);
	}
	{ /* no update from programs; redirect_map only on device maps, only from XDP */
		struct bpf_insn upd[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1), BPF_LD_MAP_FD(BPF_REG_1, 0),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
			BPF_MOV64_REG(BPF_REG_3, BPF_REG_2), BPF_MOV64_IMM(BPF_REG_4, 0),
			BPF_EMIT_CALL(BPF_FUNC_map_update_elem), BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
			BPF_EXIT_INSN(),
		};
		struct bpf_insn red[] = {
			BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_3, 0), BPF_EMIT_CALL(BPF_FUNC_redirect_map),
			BPF_EXIT_INSN(),
		};

		VERDICTS_AGREE_MAP("devmap update", BPF_PROG_TYPE_XDP, upd, 10, dm, 1);
		VERDICTS_AGREE_MAP("redirect_map on a hash", BPF_PROG_TYPE_XDP, red, 6, hm, 0);
		VERDICTS_AGREE_MAP("redirect_map from tc", BPF_PROG_TYPE_SCHED_CLS, red, 6, dm, 0);
		VERDICTS_AGREE_MAP("redirect_map", BPF_PROG_TYPE_XDP, red, 6, dm, 0);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(dm[s]);
		close(hm[s]);
	}
}
