/* Malformed objects: one per loader check, each with its errno and its exact message.
 *
 * A fixture is either a small source in tests/fixtures/ that clang compiles into something the
 * loader refuses (missing license, extern, unknown map type, ...), or a well-formed object with
 * one field changed by a mutator below (ELF header, section header, symbol, relocation, BTF
 * header): the generators live here, next to the expectation they produce.  Objects are opened
 * from memory (so messages start "mem: "); open must fail with the errno and a message starting
 * with the expected text (most are complete; a few end where file-size numbers would follow).
 */
#include <elf.h>
#include <stdlib.h>

#include <userbpf/loader.h>

#include "kbpf.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif

struct image {
	unsigned char *buf;
	size_t size;
};

static int read_image(const char *name, struct image *img)
{
	char path[256];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s.bpf.o", LOADER_OBJ_DIR, name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	img->buf = malloc(n);
	img->size = n;
	if (!img->buf || fread(img->buf, 1, n, f) != (size_t)n) {
		fclose(f);
		free(img->buf);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Well-formed objects from clang are aligned: plain pointers into the image are fine here. */
static Elf64_Ehdr *ehdr(struct image *img)
{
	return (Elf64_Ehdr *)img->buf;
}

static Elf64_Shdr *shdr_i(struct image *img, size_t i)
{
	return (Elf64_Shdr *)(img->buf + ehdr(img)->e_shoff) + i;
}

static char *sec_name(struct image *img, Elf64_Shdr *sh)
{
	return (char *)img->buf + shdr_i(img, ehdr(img)->e_shstrndx)->sh_offset + sh->sh_name;
}

static Elf64_Shdr *shdr(struct image *img, const char *name)
{
	for (size_t i = 1; i < ehdr(img)->e_shnum; i++)
		if (!strcmp(sec_name(img, shdr_i(img, i)), name))
			return shdr_i(img, i);
	abort();
}

static void *sec_data(struct image *img, const char *name)
{
	return img->buf + shdr(img, name)->sh_offset;
}

static Elf64_Sym *sym(struct image *img, const char *name)
{
	Elf64_Shdr *st = shdr(img, ".symtab");
	Elf64_Sym *s = (Elf64_Sym *)(img->buf + st->sh_offset);
	const char *strs = (char *)img->buf + shdr_i(img, st->sh_link)->sh_offset;

	for (size_t i = 0; i < st->sh_size / sizeof(*s); i++)
		if (!strcmp(strs + s[i].st_name, name))
			return &s[i];
	abort();
}

static Elf64_Rel *rel(struct image *img, const char *sec, size_t i)
{
	return (Elf64_Rel *)sec_data(img, sec) + i;
}

static struct bpf_insn *insn(struct image *img, const char *sec, size_t i)
{
	return (struct bpf_insn *)sec_data(img, sec) + i;
}

/* Mutators: each breaks one thing. */
static void m_not_elf(struct image *img)
{
	memcpy(img->buf, "this is not an ELF file", 24);
	img->size = 24;
}
static void m_elf32(struct image *img)
{
	img->buf[EI_CLASS] = ELFCLASS32;
}
static void m_big_endian(struct image *img)
{
	img->buf[EI_DATA] = ELFDATA2MSB;
}
static void m_machine(struct image *img)
{
	ehdr(img)->e_machine = EM_X86_64;
}
static void m_exec(struct image *img)
{
	ehdr(img)->e_type = ET_EXEC;
}
static void m_truncated(struct image *img)
{
	img->size = ehdr(img)->e_shoff + 10;
}
static void m_sec_past_end(struct image *img)
{
	shdr(img, "socket")->sh_size = 0x100000;
}
static void m_partial_insn(struct image *img)
{
	shdr(img, "socket")->sh_size = 93;
}
static void m_no_symtab(struct image *img)
{
	shdr(img, ".symtab")->sh_type = SHT_PROGBITS;
}
static void m_license_unterminated(struct image *img)
{
	memcpy(sec_data(img, "license"), "GPLX", 4);
}
static void m_func_too_long(struct image *img)
{
	sym(img, "globals_prog")->st_size = 4096;
}
static void m_no_btf(struct image *img)
{
	sec_name(img, shdr(img, ".BTF"))[3] = 'X';
}
static void m_btf_magic(struct image *img)
{
	img->buf[shdr(img, ".BTF")->sh_offset] ^= 0xff;
}
static void m_btf_type_len(struct image *img)
{
	/* struct btf_header: magic(2) version(1) flags(1) hdr_len type_off type_len ... */
	unsigned char *h = sec_data(img, ".BTF");
	uint32_t type_len;

	memcpy(&type_len, h + 12, 4);
	type_len -= 6;
	memcpy(h + 12, &type_len, 4);
}
static void m_legacy_size(struct image *img)
{
	shdr(img, "maps")->sh_size = 30;
}
static void m_legacy_type(struct image *img)
{
	*(uint32_t *)sec_data(img, "maps") = 4242;
}
static void m_legacy_tail(struct image *img)
{
	/* Two 20-byte records become two 24-byte ones whose extra field is non-zero. */
	Elf64_Shdr *sh = shdr(img, "maps");

	sh->sh_size = 48;
	sym(img, "legacy_hash")->st_value = 24;
	img->buf[sh->sh_offset + 20] = 1;
}
static void m_rel_offset(struct image *img)
{
	rel(img, ".relsocket", 0)->r_offset = 3;
}
static void m_rel_symbol(struct image *img)
{
	rel(img, ".relsocket", 0)->r_info =
	    ELF64_R_INFO(9999, ELF64_R_TYPE(rel(img, ".relsocket", 0)->r_info));
}
static void m_rel_type(struct image *img)
{
	rel(img, ".relsocket", 0)->r_info =
	    ELF64_R_INFO(ELF64_R_SYM(rel(img, ".relsocket", 0)->r_info), 99);
}
static void m_rel_not_ldimm64(struct image *img)
{
	rel(img, ".relsocket", 0)->r_offset = 16;
}
static void m_rel_dup(struct image *img)
{
	rel(img, ".relsocket", 2)->r_offset = 0;
}
static void m_data_range(struct image *img)
{
	sym(img, "last")->st_value = 0x100;
}
static void m_not_a_map(struct image *img)
{
	insn(img, "socket", 5)->imm = 8;
}
static void m_call_mid_func(struct image *img)
{
	insn(img, "socket", 6)->imm = 2;
}
static void m_rela(struct image *img)
{
	shdr(img, ".relsocket")->sh_type = SHT_RELA;
}

static uint32_t btf_u32(struct image *img, size_t off)
{
	uint32_t v;

	memcpy(&v, (unsigned char *)sec_data(img, ".BTF") + off, 4);
	return v;
}

static void btf_set_u32(struct image *img, size_t off, uint32_t v)
{
	memcpy((unsigned char *)sec_data(img, ".BTF") + off, &v, 4);
}

/* The BTF string s (a whole NUL-terminated entry) in the string section. */
static char *btf_string(struct image *img, const char *s)
{
	char *strs = (char *)sec_data(img, ".BTF") + btf_u32(img, 4) + btf_u32(img, 16);
	uint32_t len = btf_u32(img, 20);

	for (uint32_t i = 0; i < len; i += strlen(strs + i) + 1)
		if (!strcmp(strs + i, s))
			return strs + i;
	abort();
}

static void m_version_size(struct image *img)
{
	shdr(img, "version")->sh_size = 2;
}
static void m_license_nobits(struct image *img)
{
	shdr(img, "license")->sh_type = SHT_NOBITS;
}
static void m_symtab_entsize(struct image *img)
{
	shdr(img, ".symtab")->sh_entsize = 0;
}
static void m_func_overlap(struct image *img)
{
	/* Move globals_prog into .text over scale(). */
	Elf64_Sym *s = sym(img, "globals_prog");

	s->st_shndx = shdr(img, ".text") - shdr_i(img, 0);
	s->st_value = 8;
}
static void m_legacy_misaligned(struct image *img)
{
	sym(img, "legacy_hash")->st_value = 4;
}
static void m_btf_version(struct image *img)
{
	((unsigned char *)sec_data(img, ".BTF"))[2] = 2;
}
static void m_btf_lengths(struct image *img)
{
	btf_set_u32(img, 20, 0x7fffffff);
}
static void m_btf_strings(struct image *img)
{
	btf_set_u32(img, 20, btf_u32(img, 20) - 1);
}
static void m_btf_kind(struct image *img)
{
	/* The first type's info: kind in bits 24..28. */
	size_t info = btf_u32(img, 4) + btf_u32(img, 8) + 4;

	btf_set_u32(img, info, btf_u32(img, info) | 0x1f000000);
}
static void m_btf_no_datasec(struct image *img)
{
	btf_string(img, ".maps")[4] = 'z';
}
static void m_btf_no_var(struct image *img)
{
	btf_string(img, "my_map")[0] = 'n';
}
static void m_rel_link(struct image *img)
{
	shdr(img, ".relsocket")->sh_link = 0;
}
static void m_call_to_data(struct image *img)
{
	Elf64_Rel *call = rel(img, ".relsocket", 1), *bss = rel(img, ".relsocket", 2);

	call->r_info = ELF64_R_INFO(ELF64_R_SYM(bss->r_info), ELF64_R_TYPE(call->r_info));
}
static void m_call_unrelocated(struct image *img)
{
	rel(img, ".relsocket", 1)->r_info = ELF64_R_INFO(0, 0); /* R_BPF_NONE */
	insn(img, "socket", 6)->imm = 0;
}
/* the callback's ld_imm64 pointed one instruction into the function */
static void m_func_ptr_mid(struct image *img)
{
	insn(img, "socket", 1)->imm += 8;
}
static void m_ldimm64_cut(struct image *img)
{
	shdr(img, "socket")->sh_size = 64;
	sym(img, "globals_prog")->st_size = 64;
}

static const struct fixture {
	const char *name;
	const char *base; /* object under LOADER_OBJ_DIR, without .bpf.o */
	void (*mutate)(struct image *img);
	int err;
	const char *msg; /* the message starts with this */
} fixtures[] = {
    {"not_elf", "examples/globals", m_not_elf, -ENOEXEC, "mem: not an ELF object"},
    {"elf32", "examples/globals", m_elf32, -ENOEXEC,
     "mem: ELF class 1 is not ELFCLASS64: BPF objects are 64-bit"},
    {"big_endian", "examples/globals", m_big_endian, -ENOEXEC,
     "mem: ELF byte order 2 is not the host's"},
    {"wrong_machine", "examples/globals", m_machine, -ENOEXEC,
     "mem: ELF machine 62 is not EM_BPF (247)"},
    {"not_relocatable", "examples/globals", m_exec, -ENOEXEC,
     "mem: ELF type 2 is not ET_REL (a relocatable object)"},
    {"truncated_file", "examples/globals", m_truncated, -EBADMSG,
     "mem: the section header table (31 entries of 64 bytes at offset "},
    {"section_past_end", "examples/globals", m_sec_past_end, -EBADMSG,
     "mem: section 'socket' (index 4): 1048576 bytes at offset 192 extend past the end of "
     "the file ("},
    {"partial_insn", "examples/globals", m_partial_insn, -EBADMSG,
     "mem: section 'socket': size 93 is not a whole number of instructions"},
    {"no_symtab", "examples/globals", m_no_symtab, -EBADMSG, "mem: no symbol table (.symtab)"},
    {"license_unterminated", "examples/globals", m_license_unterminated, -EBADMSG,
     "mem: section 'license': not a NUL-terminated string"},
    {"func_too_long", "examples/globals", m_func_too_long, -EBADMSG,
     "mem: section 'socket': function 'globals_prog' (bytes 0+4096) is not whole "
     "instructions inside the section (96 bytes)"},
    {"maps_without_btf", "examples/sockex1", m_no_btf, -ENOENT,
     "mem: section '.maps': map 'my_map' needs BTF, but there is no '.BTF' section"},
    {"btf_bad_magic", "examples/sockex1", m_btf_magic, -EBADMSG,
     "mem: section '.BTF': bad magic 0xeb60"},
    {"btf_truncated_type", "examples/sockex1", m_btf_type_len, -EBADMSG,
     "mem: section '.BTF': type 34 is truncated"},
    {"unknown_map_type", "tests/fixtures/unknown_map_type", NULL, -EINVAL,
     "mem: section '.maps': map 'bad_type': unknown map type 4242"},
    {"unknown_map_field", "tests/fixtures/unknown_map_field", NULL, -EOPNOTSUPP,
     "mem: section '.maps': map 'odd_field': unknown or unsupported field 'colour'"},
    {"legacy_maps_size", "tests/fixtures/legacy_maps", m_legacy_size, -EBADMSG,
     "mem: section 'maps': 30 bytes do not hold 2 struct bpf_map_def"},
    {"legacy_map_type", "tests/fixtures/legacy_maps", m_legacy_type, -EINVAL,
     "mem: section 'maps': map 'legacy_array': unknown map type 4242"},
    {"legacy_map_tail", "tests/fixtures/legacy_maps", m_legacy_tail, -EOPNOTSUPP,
     "mem: section 'maps': map 'legacy_array': non-zero field past map_flags (byte 20 of "
     "24)"},
    {"rela", "examples/globals", m_rela, -EOPNOTSUPP,
     "mem: section '.relsocket': RELA relocations are not supported (clang emits REL)"},
    {"reloc_not_insn", "examples/globals", m_rel_offset, -EBADMSG,
     "mem: section 'socket': relocation 0 at offset 3 is not an instruction (the section "
     "has 96 bytes)"},
    {"reloc_bad_symbol", "examples/globals", m_rel_symbol, -EBADMSG,
     "mem: section 'socket': relocation 0 names symbol 9999 of 21"},
    {"reloc_bad_type", "examples/globals", m_rel_type, -EOPNOTSUPP,
     "mem: section 'socket': relocation 0 against 'calls': unsupported relocation type 99"},
    {"reloc_not_ld_imm64", "examples/globals", m_rel_not_ldimm64, -EINVAL,
     "mem: section 'socket': relocation 0 against 'calls' at insn 2: not a ld_imm64 or call "
     "instruction (code 0x79)"},
    {"reloc_duplicate", "examples/globals", m_rel_dup, -EBADMSG,
     "mem: section 'socket': two relocations at insn 0"},
    {"reloc_missing_symbol", "tests/fixtures/extern_var", NULL, -ENOENT,
     "mem: section 'socket': insn 0 refers to extern 'missing_var', which is not a function or "
     "variable of the kernel's BTF (/sys/kernel/btf/vmlinux); the only externs userbpf supports "
     "are kernel functions and variables (__ksym)"},
    {"reloc_bad_target", "tests/fixtures/bad_reloc_target", NULL, -EINVAL,
     "mem: section 'socket': relocation 0 at insn 0: 'odd_place' is in section '.custom', "
     "which is neither code, a map nor global data"},
    {"reloc_data_range", "examples/globals", m_data_range, -EINVAL,
     "mem: section 'socket': relocation 2 at insn 7: 'last' + 0 is outside section '.bss' "
     "(16 bytes)"},
    {"reloc_not_a_map", "examples/sockex1", m_not_a_map, -EINVAL,
     "mem: section 'socket': relocation 0 at insn 5: 'my_map' + 8 is not a map of section "
     "'.maps'"},
    {"call_mid_function", "examples/globals", m_call_mid_func, -EBADMSG,
     "mem: section 'socket': call at insn 6 to insn 3 of '.text', which is not the start of "
     "a function"},
    {"version_size", "tests/fixtures/legacy_maps", m_version_size, -EBADMSG,
     "mem: section 'version': 2 bytes, not 4"},
    {"license_nobits", "examples/globals", m_license_nobits, -EBADMSG,
     "mem: section 'license': has no bytes in the file (NOBITS)"},
    {"symtab_entsize", "examples/globals", m_symtab_entsize, -EBADMSG,
     "mem: section '.symtab': malformed symbol table"},
    {"func_overlap", "examples/globals", m_func_overlap, -EBADMSG,
     "mem: section '.text': functions 'scale' and 'globals_prog' overlap"},
    {"legacy_map_misaligned", "tests/fixtures/legacy_maps", m_legacy_misaligned, -EBADMSG,
     "mem: section 'maps': map 'legacy_hash' at offset 4 is not a record of 20 bytes"},
    {"btf_version", "examples/sockex1", m_btf_version, -EOPNOTSUPP,
     "mem: section '.BTF': version 2 is not 1"},
    {"btf_lengths", "examples/sockex1", m_btf_lengths, -EBADMSG,
     "mem: section '.BTF': type or string section lies outside its "},
    {"btf_strings_unterminated", "examples/sockex1", m_btf_strings, -EBADMSG,
     "mem: section '.BTF': string section does not end in NUL"},
    {"btf_unknown_kind", "examples/sockex1", m_btf_kind, -EBADMSG,
     "mem: section '.BTF': type 1 has unknown kind 31"},
    {"btf_no_maps_datasec", "examples/sockex1", m_btf_no_datasec, -EBADMSG,
     "mem: section '.BTF': no DATASEC '.maps' describing the maps"},
    {"btf_no_map_var", "examples/sockex1", m_btf_no_var, -EBADMSG,
     "mem: section '.maps': map 'my_map' has no variable in BTF DATASEC '.maps'"},
    {"map_no_type", "tests/fixtures/map_no_type", NULL, -EINVAL,
     "mem: section '.maps': map 'typeless' has no __uint(type, ...)"},
    {"map_key_conflict", "tests/fixtures/map_key_conflict", NULL, -EINVAL,
     "mem: section '.maps': map 'two_keys': key_size 8 contradicts the __type() size 4"},
    {"map_field_not_ptr", "tests/fixtures/map_field_not_ptr", NULL, -EINVAL,
     "mem: section '.maps': map 'plain': field 'type' is not a pointer (__uint() or "
     "__type())"},
    {"map_uint_not_array", "tests/fixtures/map_uint_not_array", NULL, -EINVAL,
     "mem: section '.maps': map 'wrong_kind': field 'type' is not __uint() (a pointer to an "
     "array)"},
    {"map_key_void", "tests/fixtures/map_key_void", NULL, -EINVAL,
     "mem: section '.maps': map 'void_key': field 'key': its type has no size"},
    {"map_in_map_no_values", "tests/fixtures/map_in_map_no_values", NULL, -EINVAL,
     "mem: section '.maps': map 'outer': a map of maps needs __array(values, <inner map "
     "definition>)"},
    {"map_in_map_nested", "tests/fixtures/map_in_map_nested", NULL, -EINVAL,
     "mem: section '.maps': map 'outer': an inner map cannot have values (one level of maps "
     "of maps)"},
    {"func_values_not_prog_array", "tests/fixtures/func_values_not_prog_array", NULL, -EINVAL,
     "mem: section '.maps': map 'not_jumps': __array(values) of functions is for program "
     "arrays"},
    {"map_pinning_invalid", "tests/fixtures/map_pinning_invalid", NULL, -EINVAL,
     "mem: section '.maps': map 'pinned': invalid pinning value 2"},
    {"map_not_struct", "tests/fixtures/map_not_struct", NULL, -EINVAL,
     "mem: section '.maps': map 'not_a_map' is not a struct"},
    {"reloc_section_link", "examples/globals", m_rel_link, -EBADMSG,
     "mem: section '.relsocket': malformed relocation section"},
    {"call_to_data", "examples/globals", m_call_to_data, -EINVAL,
     "mem: section 'socket': call at insn 6 to 'last', which is in non-code section '.bss'"},
    {"call_unrelocated", "examples/globals", m_call_unrelocated, -EBADMSG,
     "mem: section 'socket': call at insn 6 to insn 7 of 'socket', which is not the start "
     "of a function"},
    {"ld_imm64_cut", "examples/globals", m_ldimm64_cut, -EBADMSG,
     "mem: section 'socket': relocation 2 against 'last': the ld_imm64 at insn 7 is cut by "
     "the end of the section"},
    {"func_ptr_mid", "tests/fixtures/func_ptr", m_func_ptr_mid, -EBADMSG,
     "mem: section 'socket': relocation 0 at insn 1: '.text' + 8 is not the start of a "
     "function"},
};

TEST(loader_malformed_fixtures)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		const struct fixture *fx = &fixtures[i];
		struct userbpf_object_opts opts = {.sz = sizeof(opts)};
		struct userbpf_object *obj = NULL;
		char msg[512];
		struct image img;
		int err;

		opts.errbuf = msg;
		opts.errbuf_size = sizeof(msg);
		if (read_image(fx->base, &img)) {
			test_fail(__FILE__, __LINE__, "%s: cannot read %s", fx->name, fx->base);
			continue;
		}
		if (fx->mutate)
			fx->mutate(&img);
		memset(msg, 0, sizeof(msg));
		err = userbpf_object_open_mem(img.buf, img.size, &opts, &obj);
		if (getenv("LOADER_SHOW_MESSAGES"))
			printf("%-22s %4d %s\n", fx->name, err, msg);
		if (err != fx->err || strncmp(msg, fx->msg, strlen(fx->msg)))
			test_fail(__FILE__, __LINE__, "%s: want %d \"%s\", got %d \"%s\"", fx->name,
				  fx->err, fx->msg, err, msg);
		if (!err)
			userbpf_object_close(obj);
		CHECK(err || obj);
		CHECK(!err || !obj);
		free(img.buf);
	}
}

/* The unmutated bases open: each failure above is the mutation's doing. */
TEST(loader_fixture_bases_open)
{
	static const char *const bases[] = {"examples/globals", "examples/sockex1",
					    "tests/fixtures/legacy_maps"};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct userbpf_object *obj;
		struct image img;

		REQUIRE_EQ(read_image(bases[i], &img), 0);
		CHECK_EQ(userbpf_object_open_mem(img.buf, img.size, NULL, &obj), 0);
		userbpf_object_close(obj);
		free(img.buf);
	}
}

/* What libbpf opens, userbpf opens: an object without a license section (its programs load
 * with an empty license, non-GPL, on userbpf and on the kernel) and one whose section name
 * implies no program type (its instructions are there before the load; loading it fails,
 * EINVAL with libbpf's message, and the object loads without it). */
TEST(loader_libbpf_lenient_open)
{
	struct userbpf_object_opts opts = {.sz = sizeof(opts)};
	struct userbpf_object *obj;
	struct userbpf_program *p;
	struct image img;
	char msg[512];

	opts.errbuf = msg;
	opts.errbuf_size = sizeof(msg);
	for (int s = 0; s < NSIDES; s++) {
		if (s == K && !kernel_bpf_available())
			continue;
		opts.bpf = diff_sides[s]->bpf;
		REQUIRE_EQ(read_image("tests/fixtures/no_license", &img), 0);
		REQUIRE_EQ(userbpf_object_open_mem(img.buf, img.size, &opts, &obj), 0);
		CHECK_EQ(userbpf_object_load(obj), 0);
		CHECK(userbpf_program_fd(userbpf_object_program(obj, 0)) >= 0);
		userbpf_object_close(obj);
		free(img.buf);
	}
	opts.bpf = NULL;
	REQUIRE_EQ(read_image("tests/fixtures/unknown_section", &img), 0);
	REQUIRE_EQ(userbpf_object_open_mem(img.buf, img.size, &opts, &obj), 0);
	p = userbpf_object_find_program(obj, "frob");
	REQUIRE(p);
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_UNSPEC);
	CHECK_EQ(userbpf_program_insn_cnt(p), 2);
	CHECK(userbpf_program_insns(p) &&
	      userbpf_program_insns(p)[1].code == (BPF_JMP | BPF_EXIT));
	CHECK_EQ(userbpf_object_load(obj), -EINVAL);
	CHECK(!strcmp(msg, "mem: program 'frob': missing BPF prog type, check ELF section name "
			   "'frobnicate/eth0'"));
	CHECK_EQ(userbpf_program_set_autoload(obj, p, false), 0);
	CHECK_EQ(userbpf_object_load(obj), 0);
	userbpf_object_close(obj);
	free(img.buf);
}

/* Messages are cut to the caller's buffer and stay NUL-terminated. */
TEST(loader_errbuf_truncation)
{
	struct userbpf_object_opts opts = {.sz = sizeof(opts)};
	struct userbpf_object *obj;
	char msg[12];

	memset(msg, 'x', sizeof(msg));
	opts.errbuf = msg;
	opts.errbuf_size = 10;
	CHECK_EQ(userbpf_object_open_mem("garbage", 7, &opts, &obj), -ENOEXEC);
	CHECK(!strcmp(msg, "mem: not "));
	CHECK_EQ(msg[10], 'x');
}
