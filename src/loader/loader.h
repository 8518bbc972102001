/* The ELF loader's private state, shared by elf.c (parsing and checks at open), btf.c (the BTF
 * reader behind .maps), reloc.c (building each program's final instructions) and load.c (the
 * public API: map creation and program load through the backend).
 *
 * Invariants once userbpf_object_open_*() has returned an object:
 *  - every section, symbol and relocation the loader will use has been range-checked: section
 *    data lies within the image, symbols index existing sections, each relocation names an
 *    instruction of its section and resolves to a map, a global-data offset or a function start;
 *  - funcs[] is sorted by (section, offset) and functions do not overlap;
 *  - relocs[] is sorted by (section, instruction);
 *  - strings returned to callers point into the image or into the object: stable until close.
 */
#ifndef USERBPF_LOADER_PRIV_H
#define USERBPF_LOADER_PRIV_H

#include <gelf.h>
#include <libelf.h>
#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */

#include <userbpf/loader.h>

#include "util.h"

#define BPF_INSN_SZ 8u
/* The kernel's map name length (BPF_OBJ_NAME_LEN), including the NUL. */
#define LD_OBJ_NAME_LEN 16u

/* What a section is to the loader. */
enum ld_sec_kind {
	SEC_OTHER = 0,	 /* ignored (debug info, BTF.ext, ...) */
	SEC_CODE,	 /* executable: .text (subprograms) or a program section */
	SEC_MAPS_BTF,	 /* .maps */
	SEC_MAPS_LEGACY, /* maps: an array of struct bpf_map_def */
	SEC_DATA,	 /* .data, .rodata, .bss and their .data.* / .rodata.* variants */
	SEC_LICENSE,
	SEC_VERSION,
};

struct ld_sec {
	const char *name;
	enum ld_sec_kind kind;
	const u8 *data; /* NULL for SHT_NOBITS */
	size_t size;
	int map; /* SEC_DATA: index in maps[], -1 when the section is empty (no map) */
};

/* A function: a STT_FUNC symbol in a code section.  In .text it is a subprogram, elsewhere a
 * program (prog >= 0). */
struct ld_func {
	const char *name;
	u32 sec;
	u32 off;  /* first instruction, in instructions */
	u32 cnt;  /* instruction count */
	int prog; /* index in progs[], or -1 */
};

enum ld_reloc_kind {
	RELO_MAP,  /* ld_imm64 of a map: src_reg BPF_PSEUDO_MAP_FD, imm = fd */
	RELO_DATA, /* ld_imm64 into global data: BPF_PSEUDO_MAP_VALUE, fd and offset */
	RELO_CALL, /* bpf-to-bpf call: imm = distance to the callee's copy */
	RELO_FUNC, /* ld_imm64 of a function (a callback): BPF_PSEUDO_FUNC, imm as a call's */
	RELO_KFUNC, /* call of an extern kernel function (__ksym): BPF_PSEUDO_KFUNC_CALL, imm =
		     * its id in the kernel's BTF (0: a weak one the kernel lacks) */
	RELO_KCONFIG, /* ld_imm64 of a __kconfig extern: BPF_PSEUDO_MAP_VALUE of .kconfig */
	RELO_KSYM, /* ld_imm64 of an extern kernel function (a weak kfunc's existence test):
		    * BPF_PSEUDO_BTF_ID with its id, or the constant 0 for a weak one it lacks */
	RELO_KSYM_ADDR, /* ld_imm64 of a typeless kernel symbol: its address (/proc/kallsyms) as
			 * a plain constant (0 for a weak one the kernel lacks) */
};

struct ld_reloc {
	u32 sec;  /* the code section holding the instruction */
	u32 insn; /* instruction index in that section */
	enum ld_reloc_kind kind;
	u32 map;  /* RELO_MAP, RELO_DATA */
	u32 off;  /* RELO_DATA: byte offset in the section's value */
	u32 func; /* RELO_KCONFIG: index in kcfg[]; RELO_CALL, RELO_FUNC: index in funcs[] of the callee; RELO_KFUNC, RELO_KSYM:
		   * the kernel BTF id */
	const char *name; /* RELO_KSYM_ADDR: the symbol, looked up at load (as libbpf does) */
	bool weak;	  /* ... a weak one, 0 where the kernel has it not */
};

/* struct bpf_map_def and the BTF map definition reduce to this. */
struct ld_map_def {
	u32 type;
	u32 key_size;
	u32 value_size;
	u32 max_entries;
	u32 map_flags;
	u32 numa_node;
	u32 map_extra;	/* __uint(map_extra, ...): a bloom filter's hash count */
	u32 pinning;	/* __uint(pinning, ...): LIBBPF_PIN_NONE (0) or LIBBPF_PIN_BY_NAME (1) */
	/* Maps of maps: the template of the inner maps, from __array(values, struct {...})
	 * (owned; NULL otherwise), and where the values array starts in the definition (the
	 * initial inner maps are relocations into it). */
	struct ld_map_def *inner;
	u32 values_off;
	/* A program array's __array(values, int (void *)): its initial values are programs
	 * (relocations against their functions), set once every program is loaded. */
	bool prog_values;
	/* BTF type ids of the key and value (__type(), or a data section's DATASEC), passed to
	 * BPF_MAP_CREATE with the object's BTF as libbpf does; 0: none. */
	u32 btf_key_type_id;
	u32 btf_value_type_id;
};

struct userbpf_map {
	const char *name; /* the variable or section name */
	struct ld_map_def def;
	u32 sec;	/* the section defining it */
	u64 sec_off;	/* where in that section (maps), 0 for global data */
	const u8 *init; /* global data: initial value (NULL: zeroes, .bss) */
	bool global_data; /* one of the global data sections' maps */
	u8 *init_owned;	/* userbpf_map_set_initial_value()'s copy, which init then points at */
	bool frozen;	/* .rodata: freeze after filling */
	/* Maps of maps: 1 + the index in maps[] of slot i's initial inner map (0: none), for
	 * max_entries slots; program arrays (def.prog_values): 1 + the index in progs[]; NULL
	 * without initial values. */
	u32 *init_slots;
	int fd;		/* -1 until created */
	bool reused;	/* fd is of a map pinned before this load (pin_path) */
	/* Where the map is pinned at load (reused if pinned there already): "<pin root>/<name>"
	 * for __uint(pinning, LIBBPF_PIN_BY_NAME), or userbpf_map_set_pin_path()'s; owned, NULL:
	 * none.  pinned: the map is pinned there (after a load or userbpf_map_pin()). */
	char *pin_path;
	bool pinned;
	struct userbpf_object *obj; /* the object the map belongs to (its backend) */
};

struct userbpf_program {
	const char *name;
	const char *sec_name;
	enum bpf_prog_type type;
	enum bpf_attach_type attach_type;
	u32 prog_flags;		/* BPF_F_SLEEPABLE, BPF_F_XDP_HAS_FRAGS, as the section says */
	u32 attach_btf_id;	/* a tracing program's target in the kernel's BTF (at load) */
	bool autoload;		/* loaded with the object (a "?" section: not unless asked) */
	u32 func;		/* index in funcs[] */
	struct bpf_insn *insns; /* after load: the relocated program */
	size_t insn_cnt;	/* before load: the function's own count */
	int fd;
	/* From .BTF.ext, at the final instruction offsets (ld_prog_build); NULL/0 without. */
	struct bpf_func_info *func_info;
	u32 nfunc_info;
	struct bpf_line_info *line_info;
	u32 nline_info;
	/* CO-RE relocations that found nothing, by instruction (for the verifier log's sake) */
	struct ld_poisoned *poisoned;
	u32 npoisoned;
};

/* A __kconfig extern (kconfig.c): its slot in the read-only ".kconfig" map libbpf makes. */
enum ld_kcfg_type { KCFG_UNKNOWN, KCFG_CHAR, KCFG_BOOL, KCFG_INT, KCFG_TRISTATE, KCFG_CHAR_ARR };

struct ld_kcfg {
	const char *name;
	enum ld_kcfg_type type;
	u32 sz, align;
	u32 off;	/* in the map's value */
	bool is_signed; /* KCFG_INT, KCFG_CHAR */
	bool is_weak;	/* unresolved, it reads as zero */
	bool is_set;
};

struct userbpf_object {
	char name[64];
	userbpf_bpf_fn bpf;
	char *errbuf;
	size_t errbuf_size;
	char *log_buf;
	u32 log_size;
	u32 log_level;
	char *pin_root; /* the pin_root_path option, copied; NULL: /sys/fs/bpf */

	void *image; /* our copy of the ELF file */
	size_t image_size;
	Elf *elf;

	struct ld_sec *secs; /* indexed by ELF section index */
	size_t nsecs;
	const char *license;
	u32 kversion;
	bool has_license;

	struct ld_func *funcs;
	size_t nfuncs;
	struct ld_reloc *relocs;
	size_t nrelocs;
	struct userbpf_program *progs;
	size_t nprogs;
	struct userbpf_map *maps;
	size_t nmaps;
	bool loaded;

	size_t symtab, strtab, nsyms; /* section indexes of .symtab and its strings */
	size_t btf_sec, btf_ext_sec;  /* section indexes of .BTF and .BTF.ext, 0 if none */
	int btf_fd;		      /* the loaded .BTF, -1 when none could be loaded */
	char *btf_custom_path;	      /* the option, copied: CO-RE's target BTF; NULL: the kernel's */
	char *kconfig;		      /* the kconfig option, copied (NULL: none) */
	struct ld_kcfg *kcfg;	      /* the __kconfig externs, in the order first referenced */
	size_t nkcfg;
	int kconfig_map;	      /* their map's index in maps[], -1 without */
	struct ld_core *core;	      /* CO-RE state, made on first use (core.c) */
};

/* Writes "<object>: <message>" into the caller's error buffer and returns err (negative). */
int ld_err(const struct userbpf_object *obj, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* elf.c: parses obj->image into sections, functions, programs, maps and relocations. */
int ld_elf_parse(struct userbpf_object *obj);
/* elf.c: the program type a section name implies; -EOPNOTSUPP for unknown names. */
int ld_prog_type_of(const char *sec, enum bpf_prog_type *type, enum bpf_attach_type *attach,
		    u32 *flags);

/* btf.c: reads the map definitions of .maps from the .BTF section (data, size).  For each
 * (name, section offset) pair in vars, fills defs[i].  Messages name the map. */
struct ld_btf_var {
	const char *name;
	struct ld_map_def *def;
};
int ld_btf_map_defs(const struct userbpf_object *obj, const u8 *data, size_t size,
		    struct ld_btf_var *vars, size_t nvars);
/* The id of the DATASEC named name in .BTF (data, size), 0 if none (or no valid BTF). */
u32 ld_btf_datasec_id(const struct userbpf_object *obj, const u8 *data, size_t size,
		      const char *name);

/* btf.c: whether DATASEC ds of .BTF (data, size) holds a variable that is not static: what
 * makes libbpf create a global data map mmapable (a skeleton can reach it). */
bool ld_btf_datasec_has_global(const struct userbpf_object *obj, const u8 *data, size_t size,
			       u32 ds);
/* btf.c: whether name is a VAR of the DATASEC ".kconfig" in .BTF (data, size): 1 with k's
 * type, size, alignment and sign filled as libbpf classifies them, 0 if not, or -errno. */
int ld_btf_kcfg(const struct userbpf_object *obj, const u8 *data, size_t size, const char *name,
		struct ld_kcfg *k);
/* kconfig.c: after the relocations, lays the __kconfig externs out as libbpf does and adds
 * the ".kconfig" map (an array of one read-only value, frozen once filled). */
int ld_kconfig_layout(struct userbpf_object *obj);
/* kconfig.c: at load, the .kconfig map's value: LINUX_KERNEL_VERSION and LINUX_HAS_*
 * probed as libbpf probes them, CONFIG_* read from /boot/config-$(uname -r) or
 * /proc/config.gz; a strong extern left unset fails (-ESRCH). */
int ld_kconfig_fill(struct userbpf_object *obj);

/* btf.c: fills, in a copy of .BTF (data, size), what clang leaves for the loader: each
 * DATASEC's size (its ELF section's) and its variables' offsets (their symbols' values). */
int ld_btf_fixup(const struct userbpf_object *obj, u8 *data, size_t size);
/* btf.c: then libbpf's rewrite of .ksyms (extern kernel functions), which appends a type:
 * *data (malloc'ed) may be replaced by a larger copy.  0 or -errno. */
/* Whether extern name is a typeless kernel symbol: a VAR of type void (through qualifiers) in
 * .ksyms (1, 0, or -errno). */
int ld_btf_ksym_typeless(const struct userbpf_object *obj, const u8 *data, size_t size,
			 const char *name);
int ld_btf_ksyms(const struct userbpf_object *obj, u8 **data, size_t *size);
/* btf.c: a malloc'ed copy of .BTF with both rewrites, as it is loaded and as CO-RE reads it;
 * NULL without .BTF (*err 0) or when it is malformed (*err, with a message). */
u8 *ld_btf_prepared(const struct userbpf_object *obj, size_t *size, int *err);
/* btf_ext.c: prog's func_info and line_info from .BTF.ext, for the functions appended at
 * base[order[k]] (k < norder).  Without .BTF.ext or a loaded .BTF, none. */
int ld_btf_ext_info(const struct userbpf_object *obj, struct userbpf_program *prog,
		    const u32 *order, size_t norder, const u32 *base);

/* btf_ext.c: the .BTF string at off, or NULL. */
const char *ld_btf_string(const struct userbpf_object *obj, u32 off);
/* btf_ext.c: calls fn(arg, record, index in its block) for each record of a .BTF.ext part
 * (len bytes: a record size of at least ksize, then blocks { section name, count, records })
 * whose section is f's and whose instruction lies in f.  0, -EBADMSG for a malformed part, or
 * what fn returned first if not 0. */
typedef int (*ld_ext_rec_fn)(void *arg, const u8 *rec, u32 idx);
int ld_btf_ext_walk(const struct userbpf_object *obj, const u8 *part, u32 len, u32 ksize,
		    const struct ld_func *f, ld_ext_rec_fn fn, void *arg);
/* btf_ext.c: .BTF.ext's CO-RE relocation part (record size, then blocks as func_info's), or
 * NULL when there is none. */
const u8 *ld_btf_ext_core_relos(const struct userbpf_object *obj, u32 *len);

/* core.c: applies the CO-RE relocations of the functions appended at base[order[k]] to the
 * program being built (insns, cnt), against the kernel's BTF (or btf_custom_path), as libbpf
 * does before it loads; nothing without relocations.  0 or -errno with a message. */
int ld_core_relocate(struct userbpf_object *obj, struct userbpf_program *prog,
		     struct bpf_insn *insns, size_t cnt, const u32 *order, size_t norder,
		     const u32 *base);
/* core.c: in a failed load's verifier log (buf, size bytes), the last refusal of a poisoned
 * instruction ("N: (85) call unknown#195896080" / "invalid func unknown#195896080") rewritten
 * as libbpf does: "N: <invalid CO-RE relocation>" / "failed to resolve CO-RE relocation
 * <spec>". */
void ld_core_explain_log(const struct userbpf_program *prog, char *buf, size_t size);
/* core.c: frees the object's CO-RE state (its parsed BTFs and candidate lists). */
void ld_core_free(struct userbpf_object *obj);

/* reloc.c: builds prog->insns: the function, the subprograms it calls (transitively) appended,
 * map and global-data references set to the created maps' fds. */
int ld_prog_build(struct userbpf_object *obj, struct userbpf_program *prog);
/* reloc.c: index in funcs[] of the function of section sec starting at instruction insn, or -1. */
int ld_func_at(const struct userbpf_object *obj, u32 sec, u32 insn);

/* Whether userbpf's own bpf() loads programs of type (src/prog/load.c). */
bool prog_type_supported(u32 type);

#endif /* USERBPF_LOADER_PRIV_H */
