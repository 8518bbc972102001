/* Building a program's final instructions at load time: the program's function, followed by a
 * copy of every function it calls (directly or not), with map references and calls fixed up.
 *
 * Algorithm: a worklist of appended functions, starting with the program's own.  For each
 * function in append order, walk the relocations that fall inside it (relocs[] is sorted, found
 * by binary search): a map reference becomes BPF_PSEUDO_MAP_FD with the map's fd, a global-data
 * reference BPF_PSEUDO_MAP_VALUE with the fd and the offset in insn[1].imm, and a call is
 * pointed at the callee's copy, appending the callee the first time it is seen (an ld_imm64 of a
 * function, a callback, likewise becomes BPF_PSEUDO_FUNC relative to its copy).  Each function
 * is appended at most once per program, so recursion terminates and the result is at most the
 * sum of all functions' sizes, which is allocated up front.
 *
 * Invariant: base[f] is where function f starts in the program, or NOT_APPENDED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "loader.h"

#define NOT_APPENDED UINT32_MAX

int ld_func_at(const struct userbpf_object *obj, u32 sec, u32 insn)
{
	size_t lo = 0, hi = obj->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ld_func *f = &obj->funcs[mid];

		if (f->sec == sec && f->off == insn)
			return mid;
		if (f->sec < sec || (f->sec == sec && f->off < insn))
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Index of the first relocation at or after (sec, insn). */
static size_t first_reloc(const struct userbpf_object *obj, u32 sec, u32 insn)
{
	size_t lo = 0, hi = obj->nrelocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ld_reloc *r = &obj->relocs[mid];

		if (r->sec < sec || (r->sec == sec && r->insn < insn))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct build {
	struct bpf_insn *insns;
	size_t cnt;
	u32 *base;
	u32 *order;
	size_t norder;
};

static void append(const struct userbpf_object *obj, struct build *b, u32 fi)
{
	const struct ld_func *f = &obj->funcs[fi];

	b->base[fi] = b->cnt;
	b->order[b->norder++] = fi;
	memcpy(&b->insns[b->cnt], obj->secs[f->sec].data + (size_t)f->off * BPF_INSN_SZ,
	       (size_t)f->cnt * BPF_INSN_SZ);
	b->cnt += f->cnt;
}

/* A typeless kernel symbol's address, as libbpf resolves it from /proc/kallsyms: an error where
 * two lines give it different addresses, or a strong one is missing; a weak one missing is 0. */
static int ksym_addr(const struct userbpf_object *obj, const struct ld_reloc *r, u64 *addr)
{
	bool ambiguous;
	int err = kallsyms_lookup(r->name, addr, &ambiguous);

	if (!err && ambiguous)
		return ld_err(obj, -EINVAL, "extern (ksym) '%s': resolution is ambiguous", r->name);
	if (err == -ENOENT && r->weak)
		return 0;
	if (err == -ENOENT)
		return ld_err(obj, -ESRCH, "extern '%s' (strong): not resolved", r->name);
	if (err)
		return ld_err(obj, err, "extern (ksym) '%s': /proc/kallsyms: %s", r->name,
			      err == -EPERM ? "no addresses shown to this process" : strerror(-err));
	return 0;
}

static int fixup_func(const struct userbpf_object *obj, const struct userbpf_program *prog,
		      struct build *b, u32 fi)
{
	const struct ld_func *f = &obj->funcs[fi];

	for (size_t i = first_reloc(obj, f->sec, f->off); i < obj->nrelocs; i++) {
		const struct ld_reloc *r = &obj->relocs[i];
		struct bpf_insn *insn;
		u32 pos;

		if (r->sec != f->sec || r->insn >= f->off + f->cnt)
			break;
		pos = b->base[fi] + (r->insn - f->off);
		insn = &b->insns[pos];
		if (r->kind != RELO_CALL && r->kind != RELO_KFUNC && r->insn + 1 >= f->off + f->cnt)
			return ld_err(obj, -EBADMSG,
				      "program '%s': function '%s': ld_imm64 at insn "
				      "%u runs past the function's end",
				      prog->name, f->name, r->insn);
		switch (r->kind) {
		case RELO_MAP:
			insn[0].src_reg = BPF_PSEUDO_MAP_FD;
			insn[0].imm = obj->maps[r->map].fd;
			insn[1].imm = 0;
			break;
		case RELO_DATA:
			insn[0].src_reg = BPF_PSEUDO_MAP_VALUE;
			insn[0].imm = obj->maps[r->map].fd;
			insn[1].imm = r->off;
			break;
		case RELO_CALL:
		case RELO_FUNC:
			if (b->base[r->func] == NOT_APPENDED)
				append(obj, b, r->func);
			insn = &b->insns[pos];
			insn->src_reg = r->kind == RELO_CALL ? BPF_PSEUDO_CALL : BPF_PSEUDO_FUNC;
			insn->imm = (s32)b->base[r->func] - (s32)(pos + 1);
			if (r->kind == RELO_FUNC)
				insn[1].imm = 0;
			break;
		case RELO_KFUNC:
			insn->src_reg = BPF_PSEUDO_KFUNC_CALL;
			insn->imm = (s32)r->func;
			insn->off = 0;
			break;
		case RELO_KCONFIG:
			insn[0].src_reg = BPF_PSEUDO_MAP_VALUE;
			insn[0].imm = obj->maps[obj->kconfig_map].fd;
			insn[1].imm = (s32)obj->kcfg[r->func].off;
			break;
		case RELO_KSYM:
			insn[0].src_reg = r->func ? BPF_PSEUDO_BTF_ID : 0;
			insn[0].imm = (s32)r->func;
			insn[1].imm = 0;
			break;
		case RELO_KSYM_ADDR: {
			u64 addr;
			int err = ksym_addr(obj, r, &addr);

			if (err)
				return err;
			insn[0].src_reg = 0;
			insn[0].imm = (s32)(u32)addr;
			insn[1].imm = (s32)(u32)(addr >> 32);
			break;
		}
		}
	}
	return 0;
}

int ld_prog_build(struct userbpf_object *obj, struct userbpf_program *prog)
{
	struct build b = {0};
	size_t total = 0;
	int err = 0;

	for (size_t i = 0; i < obj->nfuncs; i++)
		total += obj->funcs[i].cnt;
	b.insns = calloc(total, sizeof(*b.insns));
	b.base = malloc(obj->nfuncs * sizeof(*b.base));
	b.order = malloc(obj->nfuncs * sizeof(*b.order));
	if (!b.insns || !b.base || !b.order) {
		err = ld_err(obj, -ENOMEM, "program '%s': out of memory for %zu instructions",
			     prog->name, total);
		goto free_all;
	}
	for (size_t i = 0; i < obj->nfuncs; i++)
		b.base[i] = NOT_APPENDED;
	append(obj, &b, prog->func);
	for (size_t k = 0; k < b.norder; k++) {
		err = fixup_func(obj, prog, &b, b.order[k]);
		if (err)
			goto free_all;
	}
	err = ld_core_relocate(obj, prog, b.insns, b.cnt, b.order, b.norder, b.base);
	if (err)
		goto free_all;
	err = ld_btf_ext_info(obj, prog, b.order, b.norder, b.base);
	if (err)
		goto free_all;
	free(prog->insns);
	prog->insns = b.insns;
	prog->insn_cnt = b.cnt;
	b.insns = NULL;
free_all:
	free(b.order);
	free(b.base);
	free(b.insns);
	return err;
}
