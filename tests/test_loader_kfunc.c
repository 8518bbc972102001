/* kfuncs through the ELF loader, differentially: the corpus program xdp_kfunc_dynptr declares
 * the dynptr kfuncs as `extern ... __ksym` (the loader finds them by name in the kernel's BTF)
 * and a weak kfunc no kernel has, whose existence test makes its call dead code.  Loaded on both
 * sides, it runs one step per packet (adjust a local dynptr to [start, end), take a slice at an
 * offset: without a buffer, with one, of an adjusted clone), and both sides must return the same
 * packed answers, which the table also gives.  (The verifier's side: test_verifier_kfunc.c; the
 * kfuncs alone: test_kfunc_run.c.)  Without the kernel's bpf(), only userbpf runs, against the
 * table; without a kernel BTF, skipped.  Also xdp_iter_bytes, open-coded iterators. */
#include <string.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "userbpf/loader.h"
#include "test.h"

/* adjust's return, the size after it, a NULL slice, or the slice's first two bytes */
#define R(adj, size, b0, b1) ((uint32_t)(uint8_t)(adj) | (size) << 8 | (b0) << 17 | (b1) << 25)
#define R_NULL(adj, size) ((uint32_t)(uint8_t)(adj) | (size) << 8 | 1 << 16)

static const struct {
	uint8_t start, end, off, kind;
	uint32_t ret;
} steps[] = {
	{ 0, 32, 0, 0, R(0, 32, 10, 11) },	/* the element's bytes are 10 + i */
	{ 4, 12, 2, 0, R(0, 8, 16, 17) },
	{ 4, 12, 5, 0, R_NULL(0, 8) },		/* 4 bytes at 5 of 8: past the end */
	{ 12, 4, 0, 0, R(-22, 32, 10, 11) },	/* start after end: EINVAL, unchanged */
	{ 0, 33, 0, 0, R(-34, 32, 10, 11) },	/* past the size: ERANGE */
	{ 8, 8, 0, 0, R_NULL(0, 0) },		/* an empty view */
	{ 0, 32, 24, 1, R(0, 32, 34, 35) },	/* with a buffer: the memory itself */
	{ 0, 32, 25, 1, R_NULL(0, 32) },
	{ 2, 20, 3, 2, R(0, 18, 16, 17) },	/* the clone starts a byte later */
	{ 2, 20, 15, 2, R_NULL(0, 18) },
};

/* path loaded on each side (the kernel's where its bpf() works), `vals` key 0 set to bytes
 * 10 + i; the program fds in prog[] (-1 where not loaded); false if a side failed. */
static bool open_both(const char *path, struct userbpf_object *obj[NSIDES], int prog[NSIDES],
		      int first)
{
	uint8_t val[32];
	uint32_t key = 0;

	for (int i = 0; i < 32; i++)
		val[i] = (uint8_t)(10 + i);
	for (int s = first; s < NSIDES; s++) {
		struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = diff_sides[s]->bpf };

		if (userbpf_object_open_file(path, &o, &obj[s]) || userbpf_object_load(obj[s])) {
			test_fail(__FILE__, __LINE__, "%s: no load on side %d", path, s);
			return false;
		}
		prog[s] = userbpf_program_fd(userbpf_object_program(obj[s], 0));
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM,
				   userbpf_map_fd(userbpf_object_find_map(obj[s], "vals")), &key, val,
				   0).rc, 0);
	}
	return true;
}

TEST(loader_kfunc)
{
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	int first = kernel_bpf_available() ? K : U, prog[NSIDES] = { -1, -1 };

	if (!btf_vmlinux()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc externs cannot be resolved");
		return;
	}
	if (!open_both(LOADER_OBJ_DIR "/tests/corpus/xdp_kfunc_dynptr.bpf.o", obj, prog, first))
		goto out;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint8_t pkt[16] = { steps[i].start, steps[i].end, steps[i].off, steps[i].kind };

		for (int s = first; s < NSIDES; s++) {
			uint32_t ret = 0;

			CHECK_EQ(side_test_run(s, prog[s], pkt, sizeof(pkt), &ret).rc, 0);
			if (ret != steps[i].ret)
				test_fail(__FILE__, __LINE__, "step %zu: %s returned %#x, not %#x", i,
					  s == K ? "the kernel" : "userbpf", ret, steps[i].ret);
		}
	}
out:
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}

/* xdp_iter_bytes: open-coded iterators (bpf_for()'s loops) over packets of several lengths; the
 * sums are computed here too. */
TEST(loader_iter)
{
	static const uint32_t lens[] = { 14, 63, 64, 65, 200 };
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	int first = kernel_bpf_available() ? K : U, prog[NSIDES] = { -1, -1 };
	uint32_t weighted = 0;

	if (!btf_vmlinux()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc externs cannot be resolved");
		return;
	}
	for (uint32_t i = 0; i < 4; i++)
		for (uint32_t j = 0; j < 8; j++)
			weighted += (10 + ((i * 8 + j) & 31)) * (i + 1);
	if (!open_both(LOADER_OBJ_DIR "/tests/corpus/xdp_iter_bytes.bpf.o", obj, prog, first))
		goto out;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		uint8_t pkt[200];
		uint32_t sum = 0;

		for (uint32_t b = 0; b < lens[l]; b++) {
			pkt[b] = (uint8_t)(b * 7 + 3);
			if (b < 64)
				sum += pkt[b];
		}
		for (int s = first; s < NSIDES; s++) {
			uint32_t ret = 0;

			CHECK_EQ(side_test_run(s, prog[s], pkt, lens[l], &ret).rc, 0);
			if (ret != ((sum & 0xffff) | weighted << 16))
				test_fail(__FILE__, __LINE__, "%u bytes: %s returned %#x, not %#x",
					  lens[l], s == K ? "the kernel" : "userbpf", ret,
					  (sum & 0xffff) | weighted << 16);
		}
	}
out:
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}
