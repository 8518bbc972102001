/* userbpf ELF loader: open a BPF object compiled by clang -target bpf (libbpf conventions), list
 * its programs and maps, create the maps and load the programs through a bpf()-shaped function.
 *
 * The backend is a function with bpf()'s signature and contract (-1 and errno on failure):
 * userbpf's bpf() by default, or e.g. a wrapper around syscall(__NR_bpf) to load the same object
 * into the kernel.  Everything the loader does to maps and programs goes through it.
 *
 * Errors: every function that can fail returns a negative errno (never -1 with errno).  When the
 * options name an error buffer, a one-line message naming the object, section and symbol is
 * written there (always NUL-terminated, truncated to fit); nothing is allocated for it.  A
 * BPF_PROG_LOAD failure also leaves the verifier's log in the options' log buffer, if given.
 *
 * Lifetime: handles (objects, programs, maps) and the strings they return live until
 * userbpf_object_close(), which also closes every fd the object created.  Not thread-safe: one
 * object is used by one thread at a time.
 */
#ifndef USERBPF_LOADER_H
#define USERBPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include <userbpf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A function with the bpf() system call's signature and contract. */
typedef int (*userbpf_bpf_fn)(int cmd, union bpf_attr *attr, unsigned int size);

/* Options for opening an object.  Set sz to sizeof(struct userbpf_object_opts); fields past sz
 * read as zero, so a caller built against an older, shorter struct keeps working, and a larger
 * struct is accepted only when every byte past the last known field is zero (else -EINVAL). */
struct userbpf_object_opts {
	size_t sz;
	/* The backend; NULL: userbpf's bpf(). */
	userbpf_bpf_fn bpf;
	/* The object's name in messages; NULL: the file name, or "mem" for an in-memory object. */
	const char *name;
	/* Where failure messages go (may be NULL).  Kept for userbpf_object_load(). */
	char *errbuf;
	size_t errbuf_size;
	/* The verifier log of BPF_PROG_LOAD (may be NULL).  With log_level 0, a program is loaded
	 * without a log and, only if that fails, loaded again with log_level 1 to fill the buffer.
	 * The buffer holds the log of the last program loaded. */
	char *log_buf;
	unsigned int log_size;
	unsigned int log_level;
	/* Where maps declared with __uint(pinning, LIBBPF_PIN_BY_NAME) are pinned, as
	 * "<pin_root_path>/<map name>"; NULL: "/sys/fs/bpf", libbpf's default.  At load, a map
	 * pinned there already is reused (its type, sizes, max_entries and flags must match, else
	 * -EINVAL) and its contents left as they are; otherwise the map is made and pinned. */
	const char *pin_root_path;
	/* The BTF that CO-RE relocations (.BTF.ext's, from BPF_CORE_READ() and the like) are
	 * resolved against, as libbpf's option of this name; NULL: the running kernel's
	 * (/sys/kernel/btf/vmlinux, or the file USERBPF_VMLINUX_BTF names). */
	const char *btf_custom_path;
	/* Kernel config lines ("CONFIG_X=y\nCONFIG_Y=42\n") for the object's __kconfig
	 * externs, read before (and overriding) the kernel's own config, as libbpf's option of
	 * this name; NULL: the kernel's config only. */
	const char *kconfig;
};
#define userbpf_object_opts__last_field kconfig

struct userbpf_object;
struct userbpf_program;
struct userbpf_map;

/* Opens the ELF object in path / in the size bytes at buf (copied; the caller may free it on
 * return).  Parses and checks everything that can be checked without the backend: ELF header,
 * sections, symbols, license, version, map definitions (BTF .maps and legacy maps), relocations,
 * calls.  Returns 0 and *objp, or a negative errno: -EINVAL bad arguments or options, -ENOENT /
 * -EACCES ... the file cannot be read, -ENOEXEC not a BPF ELF relocatable object, -EBADMSG a
 * malformed structure, -EOPNOTSUPP a feature the loader does not support, -ENOMEM. */
USERBPF_API int userbpf_object_open_file(const char *path, const struct userbpf_object_opts *opts,
					 struct userbpf_object **objp);
USERBPF_API int userbpf_object_open_mem(const void *buf, size_t size,
					const struct userbpf_object_opts *opts,
					struct userbpf_object **objp);

/* Creates the maps (and fills and freezes the global-data ones), then relocates and loads every
 * program.  Returns 0, or the negative errno of the first failing step (its message in errbuf);
 * on failure every fd created so far is closed again.  -EALREADY if already loaded. */
USERBPF_API int userbpf_object_load(struct userbpf_object *obj);

/* Closes every fd the object holds and frees it.  NULL is a no-op. */
USERBPF_API void userbpf_object_close(struct userbpf_object *obj);

/* The object's name, its license string and its "version" section (0 when absent). */
USERBPF_API const char *userbpf_object_name(const struct userbpf_object *obj);
USERBPF_API const char *userbpf_object_license(const struct userbpf_object *obj);
USERBPF_API unsigned int userbpf_object_kversion(const struct userbpf_object *obj);

/* Programs, in section order then offset order.  NULL when out of range / not found. */
USERBPF_API size_t userbpf_object_program_count(const struct userbpf_object *obj);
USERBPF_API struct userbpf_program *userbpf_object_program(const struct userbpf_object *obj, size_t i);
USERBPF_API struct userbpf_program *userbpf_object_find_program(const struct userbpf_object *obj,
							  const char *name);
/* The function name, the section name, the program type and expected attach type the section
 * name implies (BPF_PROG_TYPE_UNSPEC for a name that implies none: loading the program fails,
 * EINVAL, as in libbpf), the instruction count and the instructions (before load: the
 * function's own, as in the file; after: relocated, with appended subprograms, as passed to
 * BPF_PROG_LOAD) and the fd (-1 before load). */
USERBPF_API const char *userbpf_program_name(const struct userbpf_program *prog);
USERBPF_API const char *userbpf_program_section(const struct userbpf_program *prog);
USERBPF_API enum bpf_prog_type userbpf_program_type(const struct userbpf_program *prog);
USERBPF_API enum bpf_attach_type userbpf_program_expected_attach_type(const struct userbpf_program *prog);
USERBPF_API size_t userbpf_program_insn_cnt(const struct userbpf_program *prog);
USERBPF_API const struct bpf_insn *userbpf_program_insns(const struct userbpf_program *prog);
USERBPF_API int userbpf_program_fd(const struct userbpf_program *prog);
/* Whether userbpf_object_load() loads prog (libbpf's bpf_program__autoload()): yes, but for a
 * section named with a leading '?' (SEC("?xdp")).  Leaving a program out (before the load;
 * EBUSY after it) lets an object's other programs load where it cannot (a tracing program on
 * userbpf): its fd stays -1 and its program-array slots empty.  0, or -1 with errno. */
USERBPF_API bool userbpf_program_autoload(const struct userbpf_program *prog);
USERBPF_API int userbpf_program_set_autoload(struct userbpf_object *obj,
					     struct userbpf_program *prog, bool autoload);
/* Loads a loaded program of obj once more, exactly as userbpf_object_load() did (its BTF
 * func_info and line_info included), on the object's backend, with the verifier log asked for:
 * the log of that program alone.  Returns the new program fd (the caller closes it), or -1 with
 * errno (EINVAL: not loaded, or a log_size without log_buf). */
USERBPF_API int userbpf_program_reload(struct userbpf_object *obj,
				       const struct userbpf_program *prog, char *log_buf,
				       size_t log_size, unsigned int log_level);

/* Maps: those of .maps (BTF), of the legacy "maps" section, then one per global-data section
 * (.data, .rodata, .bss, .data.*, .rodata.*), named after the variable or the section. */
USERBPF_API size_t userbpf_object_map_count(const struct userbpf_object *obj);
USERBPF_API struct userbpf_map *userbpf_object_map(const struct userbpf_object *obj, size_t i);
USERBPF_API struct userbpf_map *userbpf_object_find_map(const struct userbpf_object *obj,
							const char *name);
USERBPF_API const char *userbpf_map_name(const struct userbpf_map *map);
USERBPF_API enum bpf_map_type userbpf_map_type(const struct userbpf_map *map);
USERBPF_API unsigned int userbpf_map_key_size(const struct userbpf_map *map);
USERBPF_API unsigned int userbpf_map_value_size(const struct userbpf_map *map);
USERBPF_API unsigned int userbpf_map_max_entries(const struct userbpf_map *map);
USERBPF_API unsigned int userbpf_map_flags(const struct userbpf_map *map);
USERBPF_API int userbpf_map_fd(const struct userbpf_map *map);
/* Pinning, as libbpf's bpf_map__set_pin_path(), __pin_path(), __is_pinned(), __pin() and
 * __unpin().  A map's pin path (a map declared with __uint(pinning, LIBBPF_PIN_BY_NAME) has
 * "<pin_root_path>/<name>"; set_pin_path() sets or, with NULL, clears it before load: -EBUSY
 * after) is where userbpf_object_load() reuses or pins it.  userbpf_map_pin(): pins the loaded
 * map at path (NULL: its pin path), which becomes its pin path; 0 if already pinned there,
 * -EEXIST if elsewhere, -EINVAL with no path or before load, else the backend's BPF_OBJ_PIN
 * error.  userbpf_map_unpin(): unlink()s path (NULL: the pin path; -EINVAL for another path
 * than the pin path); the pin path stays for a later userbpf_map_pin(map, NULL). */
USERBPF_API int userbpf_map_set_pin_path(struct userbpf_map *map, const char *path);
USERBPF_API const char *userbpf_map_pin_path(const struct userbpf_map *map);
USERBPF_API bool userbpf_map_is_pinned(const struct userbpf_map *map);
USERBPF_API int userbpf_map_pin(struct userbpf_map *map, const char *path);
USERBPF_API int userbpf_map_unpin(struct userbpf_map *map, const char *path);
/* Global data (.data, .rodata, .bss, ... maps), before userbpf_object_load(): the bytes the map
 * will start with, as libbpf's bpf_map__set_initial_value() (how `const volatile` settings in
 * .rodata are given before the verifier sees them as constants).  size must be the value size.
 * Returns 0, or -1 with errno: EINVAL (not global data, another size, data NULL), EBUSY (the
 * map exists already). */
USERBPF_API int userbpf_map_set_initial_value(struct userbpf_map *map, const void *data,
					      size_t size);
/* A global data map's initial bytes (NULL for .bss until set: zeroes) and, in *size, their
 * count; NULL for any other map. */
USERBPF_API const void *userbpf_map_initial_value(const struct userbpf_map *map, size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* USERBPF_LOADER_H */
