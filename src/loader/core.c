/* CO-RE in the ELF loader: the relocations clang writes into .BTF.ext (BPF_CORE_READ(),
 * bpf_core_field_exists(), bpf_core_type_size(), bpf_core_enum_value(), preserve_access_index
 * structs...) applied to each program as it is built, before BPF_PROG_LOAD, as libbpf does, so
 * that an object compiled against one kernel's types runs against another's, on userbpf and on
 * the kernel backend alike.
 *
 * The local types are the object's .BTF (with the loader's DATASEC fix-ups, parsed as
 * BPF_BTF_LOAD parses it); the target is the kernel's BTF (btf_vmlinux(): the running kernel's
 * file or USERBPF_VMLINUX_BTF), or the file the btf_custom_path option names.  Candidate lists
 * are kept per local type for the object's life and narrowed by each relocation that matches,
 * as libbpf's cache is.  A relocation that matches nothing poisons its instruction (the
 * verifier refuses it where it is reachable); a malformed one fails the load with the engine's
 * message.  Kernel modules' BTF is not searched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/core_relo.h"
#include "btf/vmlinux.h"
#include "loader.h"

struct cand_entry {
	u32 local_id;
	struct core_cands cands;
};

struct ld_poisoned {
	u32 insn;      /* in the built program */
	char spec[256];
	bool cut;      /* the spec did not fit: "..." follows it, as libbpf marks it */
};

struct ld_core {
	struct btf *local;	  /* the object's .BTF */
	const struct btf *target; /* the kernel's, or custom (then owned) */
	struct btf *custom;
	struct cand_entry *cache;
	size_t ncache;
	char msg[512]; /* the engine's last message, for the error */
};

static void keep_last(void *arg, const char *fmt, va_list ap)
{
	struct ld_core *c = arg;
	size_t n;

	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	n = strlen(c->msg);
	while (n && (c->msg[n - 1] == '\n' || c->msg[n - 1] == ' '))
		c->msg[--n] = '\0';
}

/* The object's CO-RE state, made on first use.  0 or -errno with a message. */
static int core_init(struct userbpf_object *obj, const char *prog)
{
	struct ld_core *c;
	size_t size = 0;
	u8 *copy;
	int err;

	if (obj->core)
		return 0;
	copy = ld_btf_prepared(obj, &size, &err);
	if (!copy)
		return err ? err : ld_err(obj, -EINVAL, "program '%s': CO-RE relocations without "
						       "a .BTF section", prog);
	c = calloc(1, sizeof(*c));
	if (!c) {
		free(copy);
		return ld_err(obj, -ENOMEM, "out of memory for CO-RE relocations");
	}
	c->local = btf_parse_blob(copy, (u32)size, &err);
	free(copy);
	obj->core = c; /* (ld_core_free() cleans up, here on failure too) */
	if (err) {
		err = ld_err(obj, err, "program '%s': CO-RE relocations: the object's .BTF does not "
				  "parse: %s", prog, strerror(-err));
	} else if (obj->btf_custom_path) {
		c->custom = btf_parse_file(obj->btf_custom_path, &err);
		if (!c->custom)
			err = ld_err(obj, err, "program '%s': CO-RE relocations: target BTF '%s': %s",
				     prog, obj->btf_custom_path, strerror(-err));
		c->target = c->custom;
	} else {
		c->target = btf_vmlinux();
		if (!c->target)
			err = ld_err(obj, -ESRCH, "program '%s': CO-RE relocations need the kernel's "
					  "BTF: /sys/kernel/btf/vmlinux is not readable (set "
					  "USERBPF_VMLINUX_BTF or the btf_custom_path option)", prog);
	}
	/* a state that cannot relocate is not kept: a later build (a reload) tries again */
	if (err)
		ld_core_free(obj);
	return err;
}

/* The candidate list of local type id (searched once per object). */
static int cands_of(struct userbpf_object *obj, const struct core_who *who, u32 id,
		    struct core_cands **out)
{
	struct ld_core *c = obj->core;
	struct cand_entry *grown, *e;
	int err;

	for (size_t i = 0; i < c->ncache; i++) {
		if (c->cache[i].local_id == id) {
			*out = &c->cache[i].cands;
			return 0;
		}
	}
	grown = realloc(c->cache, (c->ncache + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->cache = grown;
	e = &c->cache[c->ncache];
	memset(e, 0, sizeof(*e));
	e->local_id = id;
	err = core_cands_add(who, c->local, id, c->target, &e->cands);
	if (err) {
		free(e->cands.v);
		return err;
	}
	c->ncache++;
	*out = &e->cands;
	return 0;
}

/* One relocation record, of function f (appended at base), relocation index idx in its
 * section's list. */
static int relocate_one(struct userbpf_object *obj, struct userbpf_program *prog,
			const struct ld_func *f, u32 base, const struct bpf_core_relo *r, u32 idx,
			struct bpf_insn *insns, size_t cnt)
{
	struct ld_core *c = obj->core;
	const struct core_who who = { .kernel = false, .prog = f->name, .print = keep_last,
				      .arg = c };
	struct core_cands none = { 0 }, *cands = &none;
	u32 at = base + (r->insn_off / 8 - f->off);
	struct bpf_core_relo rel = *r;
	struct core_res res;
	int err = 0;

	c->msg[0] = '\0';
	/* messages count instructions from the function's start, as libbpf's */
	rel.insn_off = r->insn_off - f->off * 8;
	if (r->kind != BPF_CORE_TYPE_ID_LOCAL) {
		err = cands_of(obj, &who, r->type_id, &cands);
		if (err)
			return ld_err(obj, err, "program '%s': relo #%u: target candidate search failed "
					   "for [%u]: %s", f->name, idx, r->type_id, strerror(-err));
	}
	err = core_calc_relo_insn(&who, &rel, (int)idx, c->local, cands, &res);
	if (!err)
		err = core_patch_insn(&who, insns, (u32)cnt, at, &rel, (int)idx, &res);
	if (!err && insns[at].code == (BPF_JMP | BPF_CALL) && insns[at].imm == CORE_POISON_IMM &&
	    !insns[at].src_reg) {
		struct ld_poisoned *grown = realloc(prog->poisoned,
						    (prog->npoisoned + 1) * sizeof(*grown));

		if (!grown)
			return ld_err(obj, -ENOMEM, "out of memory for CO-RE relocations");
		prog->poisoned = grown;
		grown[prog->npoisoned].insn = at;
		size_t len = 0;

		if (core_format_local_spec(&who, c->local, r, grown[prog->npoisoned].spec,
					   sizeof(grown->spec), &len))
			grown[prog->npoisoned].spec[0] = '\0';
		grown[prog->npoisoned].cut = len >= sizeof(grown->spec);
		prog->npoisoned++;
	}
	if (err)
		return ld_err(obj, err, "program '%s': CO-RE relocation #%u (instruction %u) failed: %s",
			      f->name, idx, r->insn_off / 8 - f->off,
			      c->msg[0] ? c->msg : strerror(-err));
	return 0;
}

struct walk {
	struct userbpf_object *obj;
	struct userbpf_program *prog;
	const struct ld_func *f;
	u32 base;
	struct bpf_insn *insns;
	size_t cnt;
};

static int relocate_rec(void *arg, const u8 *rec, u32 idx)
{
	struct walk *w = arg;
	struct bpf_core_relo r;
	int err;

	memcpy(&r, rec, sizeof(r));
	if (r.insn_off % 8)
		return ld_err(w->obj, -EINVAL, ".BTF.ext: CO-RE relocation #%u of '%s' at byte %u",
			      idx, w->obj->secs[w->f->sec].name, r.insn_off);
	if (!w->obj->core) {
		err = core_init(w->obj, w->prog->name);
		if (err)
			return err;
	}
	return relocate_one(w->obj, w->prog, w->f, w->base, &r, idx, w->insns, w->cnt);
}

int ld_core_relocate(struct userbpf_object *obj, struct userbpf_program *prog,
		     struct bpf_insn *insns, size_t cnt, const u32 *order, size_t norder,
		     const u32 *base)
{
	u32 len;
	const u8 *part = ld_btf_ext_core_relos(obj, &len);

	free(prog->poisoned);
	prog->poisoned = NULL;
	prog->npoisoned = 0;
	for (size_t k = 0; part && k < norder; k++) {
		struct walk w = { obj, prog, &obj->funcs[order[k]], base[order[k]], insns, cnt };
		int err = ld_btf_ext_walk(obj, part, len, sizeof(struct bpf_core_relo), w.f,
					  relocate_rec, &w);

		if (err == -EBADMSG)
			return ld_err(obj, err, ".BTF.ext: malformed CO-RE relocations");
		if (err)
			return err;
	}
	return 0;
}

/* The start of the line before the one at line (buf's first line has none). */
static char *line_before(char *buf, char *line)
{
	char *p = line - 1;

	if (line == buf)
		return NULL;
	while (p > buf && p[-1] != '\n')
		p--;
	return p;
}

void ld_core_explain_log(const struct userbpf_program *prog, char *buf, size_t size)
{
	static const char refusal[] = "invalid func unknown#195896080\n";
	char *line = NULL, *prev, *end, patch[400];
	size_t off, len, tail;
	int insn = -1;

	if (!buf || !size || !prog->npoisoned)
		return;
	buf[size - 1] = '\0';
	for (char *p = strstr(buf, refusal); p; p = strstr(p + 1, refusal))
		if (p == buf || p[-1] == '\n')
			line = p;
	if (!line || !(prev = line_before(buf, line)) ||
	    sscanf(prev, "%d: (%*d) call unknown#195896080\n", &insn) != 1 || insn < 0)
		return;
	for (u32 i = 0; i < prog->npoisoned; i++) {
		if (prog->poisoned[i].insn != (u32)insn)
			continue;
		snprintf(patch, sizeof(patch), "%d: <invalid CO-RE relocation>\n"
			 "failed to resolve CO-RE relocation %s%s\n", insn, prog->poisoned[i].spec,
			 prog->poisoned[i].cut ? "..." : "");
		end = line + sizeof(refusal) - 1;
		off = (size_t)(prev - buf);
		len = strlen(patch);
		if (off + len + 1 > size)
			return;
		tail = strlen(end);
		if (tail > size - 1 - off - len) /* what no longer fits is cut, as libbpf does */
			tail = size - 1 - off - len;
		memmove(prev + len, end, tail);
		memcpy(prev, patch, len);
		prev[len + tail] = '\0';
		return;
	}
}

void ld_core_free(struct userbpf_object *obj)
{
	struct ld_core *c = obj->core;

	if (!c)
		return;
	for (size_t i = 0; i < c->ncache; i++)
		free(c->cache[i].cands.v);
	free(c->cache);
	btf_free_parsed(c->local);
	btf_free_parsed(c->custom);
	free(c);
	obj->core = NULL;
}
