/* A loaded BPF program: what BPF_PROG_LOAD produces and BPF_PROG_TEST_RUN runs.
 *
 * Lifecycle: prog_load() (src/prog/load.c) checks attr, copies the instructions into a new
 * bpf_prog, calls bpf_check() (src/verifier/), which proves it safe, resolves map references and
 * rewrites what needs rewriting; then the program is prepared for execution and installed as an
 * fd (an OBJ_PROG object).  The program holds a reference on every map it uses until destroyed.
 */
#ifndef USERBPF_PROG_H
#define USERBPF_PROG_H

#include <linux/bpf.h>

#include "fd.h"
#include "util.h"

struct bpf_map;
struct btf;
struct interp_prog;

struct bpf_prog {
	struct bpf_object obj;		/* must stay first */
	u32 type;			/* enum bpf_prog_type */
	u32 expected_attach_type;
	u32 prog_flags;
	u32 kern_version;
	bool gpl_compatible;		/* license allows GPL-only helpers */
	char name[BPF_OBJ_NAME_LEN];

	/* The instructions.  Before bpf_check(): as the user passed them.  After: verified, with
	 * each map reference (LD_IMM64 src_reg BPF_PSEUDO_MAP_FD / BPF_PSEUDO_MAP_VALUE) holding
	 * the address (struct bpf_map *, or the map value's address) split over the two imm
	 * halves, low 32 bits first, as the kernel does; other rewrites are the verifier's. */
	struct bpf_insn *insns;
	u32 len;

	/* Maps the program uses, each with a reference taken (obj_get) by the verifier. */
	struct bpf_map **used_maps;
	u32 used_map_cnt;

	u32 stack_depth;		/* deepest frame's stack use in bytes, from the verifier */

	/* BTF of the load (prog_btf_fd with func/line info), a reference; NULL without. */
	struct btf *btf;
	struct bpf_func_info *func_info;	/* per subprogram */
	u32 func_info_cnt;
	struct bpf_line_info *linfo;
	u32 nr_linfo;

	struct interp_prog *interp;	/* prepared for the interpreter (NULL until then) */
};

static inline struct bpf_prog *prog_of(struct bpf_object *obj)
{
	return container_of(obj, struct bpf_prog, obj);
}

/* bpf() commands (src/prog/). */
int prog_load(union bpf_attr *attr, union bpf_attr *uattr, u32 usize);
int prog_test_run(union bpf_attr *attr, union bpf_attr *uattr, u32 usize);

#endif
