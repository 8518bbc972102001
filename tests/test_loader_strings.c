/* The string kfuncs (bpf_strcmp() ... bpf_strnstr()) through the ELF loader, differentially:
 * the corpus program xdp_string_kfuncs makes one call per packet, on strings in a map value, on
 * the stack, in .rodata, a 64 KiB string with no NUL in reach, NULL and a small integer.  The
 * kernel and userbpf must both return what the table says (both where the kernel's bpf() is
 * available, userbpf alone otherwise).  Without a kernel BTF, skipped.  The kfuncs' raw calling
 * details (a char argument's upper bits, an unwritten register, an unreadable address) are in
 * test_kfunc_run.c and test_verifier_kfunc.c. */
#include <errno.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "userbpf/loader.h"
#include "test.h"

enum { CMP, CASECMP, CHR, CHRNUL, NCHR, RCHR, LEN, NLEN, SPN, CSPN, STR, NSTR };
/* sources: strings 0-15 of `strs`, and */
enum { BIG = 16, NUL_PTR = 17, SMALL_INT = 18, LITERAL = 19, STACK = 32 };

static const char strs[16][32] = {
	"hello", "hello", "help", "HeLLo", "\x80" "abc", "\xc0\xc9\xde\xd7", "\xe0\xe9\xfe\xd7", "",
	"aabbccdd", "ab", "xyzabcabd", "abd", "abc", "bc", "a\xff" "b\xff", "a",
};

static const struct {
	uint8_t op, a, b;
	uint32_t arg, arg2;
	int ret;
} cases[] = {
	{ CMP, 0, 1, 0, 0, 0 },
	{ CMP, 0, 2, 0, 0, -1 },	/* 'l' < 'p' */
	{ CMP, 2, 0, 0, 0, 1 },
	{ CMP, 0, 3, 0, 0, 1 },		/* case counts */
	{ CMP, 4, 12, 0, 0, 1 },	/* char is unsigned: 0x80 > 'a' */
	{ CMP, 7, 0, 0, 0, -1 },
	{ CMP, 0, 7, 0, 0, 1 },
	{ CMP, 7, 7, 0, 0, 0 },
	{ CMP, STACK + 0, STACK + 1, 0, 0, 0 },
	{ CMP, STACK + 0, 2, 0, 0, -1 },
	{ CMP, LITERAL, LITERAL, 0, 0, 0 },
	{ CMP, LITERAL, 0, 0, 0, 1 },
	{ CMP, NUL_PTR, 0, 0, 0, -ERANGE },
	{ CMP, 0, NUL_PTR, 0, 0, -ERANGE },
	{ CMP, SMALL_INT, 0, 0, 0, -ERANGE },
	{ CMP, BIG, BIG, 0, 0, -E2BIG },
	{ CMP, BIG, 0, 0, 0, -1 },
	{ CASECMP, 0, 3, 0, 0, 0 },
	{ CASECMP, 3, 0, 0, 0, 0 },
	{ CASECMP, 0, 2, 0, 0, -1 },
	{ CASECMP, 5, 6, 0, 0, 0 },	/* Latin-1 upper case, 0xd7 has none */
	{ CASECMP, 4, 12, 0, 0, 1 },
	{ CASECMP, 5, 0, 0, 0, 1 },
	{ CASECMP, BIG, BIG, 0, 0, -E2BIG },
	{ CASECMP, NUL_PTR, NUL_PTR, 0, 0, -ERANGE },
	{ CHR, 0, 0, 'l', 0, 2 },
	{ CHR, 0, 0, 'z', 0, -ENOENT },
	{ CHR, 0, 0, 0, 0, 5 },		/* the NUL is found */
	{ CHR, 4, 0, 0x80, 0, 0 },
	{ CHR, 7, 0, 'a', 0, -ENOENT },
	{ CHR, BIG, 0, 'b', 0, -E2BIG },
	{ CHR, BIG, 0, 'a', 0, 0 },
	{ CHR, NUL_PTR, 0, 'a', 0, -ERANGE },
	{ CHR, STACK + 10, 0, 'b', 0, 4 },
	{ CHRNUL, 0, 0, 'l', 0, 2 },
	{ CHRNUL, 0, 0, 'z', 0, 5 },
	{ CHRNUL, 7, 0, 'z', 0, 0 },
	{ CHRNUL, BIG, 0, 'b', 0, -E2BIG },
	{ CHRNUL, SMALL_INT, 0, 'b', 0, -ERANGE },
	{ NCHR, 0, 0, 2, 'l', -ENOENT },
	{ NCHR, 0, 0, 3, 'l', 2 },
	{ NCHR, 0, 0, 0, 'h', -ENOENT },
	{ NCHR, 0, 0, 100, 0, 5 },
	{ NCHR, BIG, 0, 65536, 'b', -E2BIG },
	{ NCHR, BIG, 0, 65535, 'b', -ENOENT },
	{ NCHR, BIG, 0, 0xffffffff, 'a', 0 },
	{ NCHR, NUL_PTR, 0, 3, 'a', -ERANGE },
	{ RCHR, 0, 0, 'l', 0, 3 },
	{ RCHR, 0, 0, 'z', 0, -ENOENT },
	{ RCHR, 0, 0, 0, 0, 5 },
	{ RCHR, 14, 0, 0xff, 0, 3 },		/* an int, and char is unsigned: 255 is 0xff */
	{ RCHR, 14, 0, 0xffffffff, 0, -ENOENT },	/* and -1 no char */
	{ RCHR, 14, 0, 'b', 0, 2 },
	{ RCHR, BIG, 0, 'a', 0, -E2BIG },
	{ RCHR, LITERAL, 0, 'l', 0, 6 },
	{ LEN, 0, 0, 0, 0, 5 },
	{ LEN, 7, 0, 0, 0, 0 },
	{ LEN, BIG, 0, 0, 0, -E2BIG },
	{ LEN, NUL_PTR, 0, 0, 0, -ERANGE },
	{ LEN, LITERAL, 0, 0, 0, 7 },
	{ LEN, STACK + 0, 0, 0, 0, 5 },
	{ LEN, STACK + 8, 0, 0, 0, 8 },
	{ NLEN, 0, 0, 3, 0, 3 },
	{ NLEN, 0, 0, 5, 0, 5 },
	{ NLEN, 0, 0, 6, 0, 5 },
	{ NLEN, 0, 0, 0, 0, 0 },
	{ NLEN, BIG, 0, 65535, 0, 65535 },
	{ NLEN, BIG, 0, 65536, 0, -E2BIG },
	{ NLEN, BIG, 0, 0xffffffff, 0, -E2BIG },
	{ NLEN, SMALL_INT, 0, 4, 0, -ERANGE },
	{ SPN, 8, 9, 0, 0, 4 },
	{ SPN, 8, 7, 0, 0, 0 },
	{ SPN, 7, 9, 0, 0, 0 },
	{ SPN, 12, 12, 0, 0, 3 },
	{ SPN, BIG, 9, 0, 0, -E2BIG },
	{ SPN, 0, NUL_PTR, 0, 0, -ERANGE },
	{ SPN, STACK + 8, STACK + 9, 0, 0, 4 },
	{ CSPN, 8, 13, 0, 0, 2 },
	{ CSPN, 8, 7, 0, 0, 8 },
	{ CSPN, 0, 11, 0, 0, 5 },
	{ CSPN, BIG, 13, 0, 0, -E2BIG },
	{ CSPN, NUL_PTR, 13, 0, 0, -ERANGE },
	{ STR, 10, 11, 0, 0, 6 },
	{ STR, 10, 12, 0, 0, 3 },
	{ STR, 10, 7, 0, 0, 0 },
	{ STR, 7, 7, 0, 0, 0 },
	{ STR, 12, 10, 0, 0, -ENOENT },
	{ STR, 0, 2, 0, 0, -ENOENT },
	{ STR, BIG, 13, 0, 0, -E2BIG },
	{ STR, BIG, 7, 0, 0, 0 },
	{ STR, LITERAL, STACK + 15, 0, 0, 5 },
	{ STR, NUL_PTR, 7, 0, 0, -ERANGE },
	{ NSTR, 12, 13, 3, 0, 1 },	/* a match that ends at len */
	{ NSTR, 12, 13, 2, 0, -ENOENT },
	{ NSTR, 10, 11, 9, 0, 6 },
	{ NSTR, 10, 11, 8, 0, -ENOENT },
	{ NSTR, 10, 7, 0, 0, 0 },
	{ NSTR, 0, 0, 0, 0, -ENOENT },
	{ NSTR, 12, 12, 100, 0, 0 },
	{ NSTR, BIG, 13, 0xffffffff, 0, -E2BIG },
	{ NSTR, 0, SMALL_INT, 5, 0, -ERANGE },
};

struct req {
	uint8_t op, a, b, pad;
	uint32_t arg, arg2;
};

/* path loaded on each side from first (the kernel's where its bpf() works), the maps filled:
 * `strs` with the strings, `big` with 'a' but for a NUL in its last byte. */
static bool open_both(const char *path, struct userbpf_object *obj[NSIDES], int prog[NSIDES],
		      int first)
{
	static char bigv[65536 + 64];
	uint32_t key = 0;

	memset(bigv, 'a', sizeof(bigv) - 1);
	for (int s = first; s < NSIDES; s++) {
		struct userbpf_object_opts o = { .sz = sizeof(o), .bpf = diff_sides[s]->bpf };

		if (userbpf_object_open_file(path, &o, &obj[s]) || userbpf_object_load(obj[s])) {
			test_fail(__FILE__, __LINE__, "%s: no load on side %d", path, s);
			return false;
		}
		prog[s] = userbpf_program_fd(userbpf_object_program(obj[s], 0));
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM,
				   userbpf_map_fd(userbpf_object_find_map(obj[s], "strs")), &key,
				   (void *)strs, 0).rc, 0);
		CHECK_EQ(side_elem(s, BPF_MAP_UPDATE_ELEM,
				   userbpf_map_fd(userbpf_object_find_map(obj[s], "big")), &key,
				   bigv, 0).rc, 0);
	}
	return true;
}

TEST(loader_strings)
{
	struct userbpf_object *obj[NSIDES] = { NULL, NULL };
	int first = kernel_bpf_available() ? K : U, prog[NSIDES] = { -1, -1 };
	unsigned int agreed = 0;

	if (!btf_vmlinux()) {
		test_skip("no kernel BTF (/sys/kernel/btf/vmlinux): kfunc externs cannot be resolved");
		return;
	}
	if (!self_reads_work()) {
		test_skip("process_vm_readv() cannot read this process (qemu-user?): the string "
			  "kfuncs read through it");
		return;
	}
	if (!btf_find_func(btf_vmlinux(), "bpf_strcmp")) {
		test_skip("the kernel's BTF has no string kfuncs (they came in 6.17)");
		return;
	}
	if (!open_both(LOADER_OBJ_DIR "/tests/corpus/xdp_string_kfuncs.bpf.o", obj, prog, first))
		goto out;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct req r = { cases[i].op, cases[i].a, cases[i].b, 0, cases[i].arg, cases[i].arg2 };
		uint8_t pkt[64] = { 0 };
		bool all = true;

		memcpy(pkt, &r, sizeof(r));
		for (int s = first; s < NSIDES; s++) {
			uint32_t ret = 0;

			CHECK_EQ(side_test_run(s, prog[s], pkt, sizeof(pkt), &ret).rc, 0);
			if (ret != (uint32_t)cases[i].ret) {
				all = false;
				test_fail(__FILE__, __LINE__, "case %zu (op %u on %u, %u): %s returned "
					  "%d, not %d", i, r.op, r.a, r.b,
					  s == K ? "the kernel" : "userbpf", (int)ret, cases[i].ret);
			}
		}
		agreed += all;
	}
	CHECK_EQ(agreed, sizeof(cases) / sizeof(cases[0]));
out:
	for (int s = 0; s < NSIDES; s++)
		userbpf_object_close(obj[s]);
}
