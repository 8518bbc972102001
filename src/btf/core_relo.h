/* CO-RE ("compile once, run everywhere"): moving a program's field offsets, sizes, type facts and
 * enum values from the types it was compiled against (the local BTF, clang's) to the types of the
 * BTF it will run against (the target: the kernel's).  clang records each such instruction in
 * .BTF.ext as a struct bpf_core_relo: the instruction's byte offset, a local type id, an access
 * string ("0:1:2": array index on the root, then member or element indexes) and what to compute.
 *
 * Two callers share this engine, as libbpf's relo_core.c is shared by libbpf and the kernel:
 *   - BPF_PROG_LOAD's core_relos (verifier/btf_info.c), 6.18's rules and verifier-log lines;
 *   - the ELF loader (loader/core.c), libbpf's rules, before the program is loaded anywhere.
 *
 * Per relocation: find the candidates (target types of the local type's name, a "___flavor"
 * suffix ignored), match the access against each, compute the value for the local and the
 * matched target types (all matches must agree), then patch the instruction: the immediate of an
 * ALU op or ldimm64, the offset (and size, where safe) of a load or store.  A relocation that
 * matches nothing turns its instruction into `call 195896080` (0xbad2310), which the verifier
 * refuses as "invalid func unknown#195896080" only where it is reachable.
 */
#ifndef USERBPF_BTF_CORE_RELO_H
#define USERBPF_BTF_CORE_RELO_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <stdarg.h>
#include <stdbool.h>

#include "btf/btf.h"

#define CORE_POISON_IMM 195896080 /* 0xbad2310, "bad relo" */

/* Who relocates: whose rules and messages. */
struct core_who {
	bool kernel;	  /* BPF_PROG_LOAD (6.18) rather than the loader (libbpf) */
	const char *prog; /* the name in "prog '%s': ..." lines: "" for the kernel, as it prints */
	void (*print)(void *arg, const char *fmt, va_list ap); /* NULL: no messages */
	void *arg;
};

struct core_cand {
	const struct btf *btf;
	u32 id;
};

struct core_cands {
	struct core_cand *v;
	u32 len;
};

/* What a relocation comes to for one candidate, or for all of them. */
struct core_res {
	u64 orig_val, new_val;	   /* the value clang wrote (checked when validate), the new one */
	bool poison;		   /* no match: make the instruction invalid */
	bool validate;		   /* check the instruction holds orig_val */
	bool fail_memsz_adjust;	   /* the field's size changed in a way a load cannot follow */
	u32 orig_sz, new_sz;	   /* field sizes, for a load's or store's size */
	u32 orig_type_id, new_type_id;
};

/* Target types whose names equal local_id's up to a flavor suffix: the kernel's search
 * (the same kind) or libbpf's (enum and enum64 alike), in id order, appended to *out (which the
 * caller frees).  -EINVAL for an anonymous or missing local type, -ENOMEM. */
int core_cands_add(const struct core_who *who, const struct btf *local, u32 local_id,
		   const struct btf *targ, struct core_cands *out);

/* The essential length of a name: up to its last "X___Y" flavor separator. */
u32 core_essential_name_len(const char *name);

/* The result of relocation relo_idx against cands, which it narrows to the candidates that
 * matched (when any did).  0, or -errno with a message. */
int core_calc_relo_insn(const struct core_who *who, const struct bpf_core_relo *relo, int relo_idx,
			const struct btf *local, struct core_cands *cands, struct core_res *res);

/* relo's local access as the messages show it ("<byte_off> [7] struct foo.a (0:1 @ offset 4)"),
 * into buf (cut to fit), *len the whole text's length.  0 or -errno (an access string that does
 * not parse). */
int core_format_local_spec(const struct core_who *who, const struct btf *local,
			   const struct bpf_core_relo *relo, char *buf, size_t size, size_t *len);

/* Patches insns[idx] (and idx + 1 for an ldimm64; cnt bounds both) with res.  0 or -errno. */
int core_patch_insn(const struct core_who *who, struct bpf_insn *insns, u32 cnt, u32 idx,
		    const struct bpf_core_relo *relo, int relo_idx, const struct core_res *res);

#endif
