/* .BTF.ext: the func_info and line_info records clang writes per ELF section, relocated to the
 * instruction offsets of each loaded program.
 *
 * Layout (libbpf's): a header (magic 0xeB9F, version 1, hdr_len, then offsets and lengths of
 * the func_info and line_info parts, relative to the header's end).  Each part is a record size
 * followed by blocks { sec_name_off (a .BTF string), num_info, num_info records }, where a
 * record's first field is the instruction's byte offset in its section.  A program is its own
 * function followed by the subprograms reloc.c appended: for each function, in append order,
 * the records that fall inside it move to base + (insn - function start).  Records are
 * ascending within a section and functions do not overlap, so the result is ascending too.
 *
 * Nothing here fails the load: an object whose .BTF.ext is malformed, or whose .BTF the backend
 * did not take (obj->btf_fd < 0), is loaded without func/line info (as libbpf does).
 */
#include <errno.h>
#include <stddef.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

struct ext_hdr {
	u16 magic;
	u8 version;
	u8 flags;
	u32 hdr_len;
	u32 func_info_off, func_info_len, line_info_off, line_info_len;
	u32 core_relo_off, core_relo_len; /* present when hdr_len says so */
};
#define EXT_HDR_MIN offsetof(struct ext_hdr, core_relo_off) /* before CO-RE was added */

const char *ld_btf_string(const struct userbpf_object *obj, u32 off)
{
	const struct ld_sec *s = &obj->secs[obj->btf_sec];
	struct btf_header h;

	if (s->size < sizeof(h))
		return NULL;
	memcpy(&h, s->data, sizeof(h));
	if ((u64)h.hdr_len + h.str_off + h.str_len > s->size || off >= h.str_len ||
	    !h.str_len || s->data[h.hdr_len + h.str_off + h.str_len - 1])
		return NULL;
	return (const char *)s->data + h.hdr_len + h.str_off + off;
}

int ld_btf_ext_walk(const struct userbpf_object *obj, const u8 *part, u32 len, u32 ksize,
		    const struct ld_func *f, ld_ext_rec_fn fn, void *arg)
{
	u32 rec_size, pos = 4;

	if (len < 4)
		return -EBADMSG;
	memcpy(&rec_size, part, 4);
	if (rec_size < ksize)
		return -EBADMSG;
	while (pos + 8 <= len) {
		u32 name_off, cnt;
		const char *sec;

		memcpy(&name_off, part + pos, 4);
		memcpy(&cnt, part + pos + 4, 4);
		pos += 8;
		if ((u64)cnt * rec_size > len - pos)
			return -EBADMSG;
		sec = ld_btf_string(obj, name_off);
		for (u32 i = 0; sec && !strcmp(sec, obj->secs[f->sec].name) && i < cnt; i++) {
			const u8 *r = part + pos + (size_t)i * rec_size;
			u32 byte_off, insn;
			int err;

			memcpy(&byte_off, r, 4);
			insn = byte_off / BPF_INSN_SZ;
			if (insn < f->off || insn >= f->off + f->cnt)
				continue;
			err = fn(arg, r, i);
			if (err)
				return err;
		}
		pos += cnt * rec_size;
	}
	return 0;
}

/* Appends one func_info or line_info record (ksize bytes) at its offset in the program. */
struct collect {
	const struct ld_func *f;
	u32 base, ksize;
	u8 **out;
	u32 *n;
};

static int collect_one(void *arg, const u8 *r, u32 idx)
{
	struct collect *c = arg;
	u32 insn;
	u8 *grown;

	(void)idx;
	memcpy(&insn, r, 4);
	insn = c->base + (insn / BPF_INSN_SZ - c->f->off);
	grown = realloc(*c->out, (size_t)(*c->n + 1) * c->ksize);
	if (!grown)
		return -ENOMEM;
	*c->out = grown;
	memcpy(grown + (size_t)*c->n * c->ksize, r, c->ksize);
	memcpy(grown + (size_t)*c->n * c->ksize, &insn, 4);
	(*c->n)++;
	return 0;
}

/* The records (ksize bytes each) of part that lie in function f, appended to *out at their new
 * offsets.  Returns 0 or -errno (-ENOMEM; a malformed part gives -EBADMSG and is ignored by
 * the caller). */
static int collect(const struct userbpf_object *obj, const u8 *part, u32 len, u32 ksize,
		   const struct ld_func *f, u32 base, u8 **out, u32 *n)
{
	struct collect c = { f, base, ksize, out, n };

	return ld_btf_ext_walk(obj, part, len, ksize, f, collect_one, &c);
}

const u8 *ld_btf_ext_core_relos(const struct userbpf_object *obj, u32 *len)
{
	const struct ld_sec *s;
	struct ext_hdr h;

	if (!obj->btf_ext_sec)
		return NULL;
	s = &obj->secs[obj->btf_ext_sec];
	if (!s->data || s->size < EXT_HDR_MIN)
		return NULL;
	memset(&h, 0, sizeof(h));
	memcpy(&h, s->data, s->size < sizeof(h) ? s->size : sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != 1 || h.hdr_len < sizeof(h) || h.hdr_len > s->size ||
	    (u64)h.core_relo_off + h.core_relo_len > s->size - h.hdr_len || h.core_relo_len < 4)
		return NULL;
	*len = h.core_relo_len;
	return s->data + h.hdr_len + h.core_relo_off;
}

int ld_btf_ext_info(const struct userbpf_object *obj, struct userbpf_program *prog,
		    const u32 *order, size_t norder, const u32 *base)
{
	const struct ld_sec *s;
	struct ext_hdr h;
	u8 *fi = NULL, *li = NULL;
	u32 nfi = 0, nli = 0;
	int err = 0;

	free(prog->func_info);
	free(prog->line_info);
	prog->func_info = NULL;
	prog->line_info = NULL;
	prog->nfunc_info = prog->nline_info = 0;
	if (!obj->btf_ext_sec || !obj->btf_sec || obj->btf_fd < 0)
		return 0;
	s = &obj->secs[obj->btf_ext_sec];
	if (!s->data || s->size < EXT_HDR_MIN)
		return 0;
	memset(&h, 0, sizeof(h));
	memcpy(&h, s->data, EXT_HDR_MIN);
	/* u64 sums: each part must lie inside the section */
	if (h.magic != BTF_MAGIC || h.version != 1 || h.hdr_len < EXT_HDR_MIN ||
	    h.hdr_len > s->size ||
	    (u64)h.func_info_off + h.func_info_len > s->size - h.hdr_len ||
	    (u64)h.line_info_off + h.line_info_len > s->size - h.hdr_len)
		return 0;
	for (size_t k = 0; k < norder && !err; k++) {
		const struct ld_func *f = &obj->funcs[order[k]];
		const u8 *d = s->data + h.hdr_len;

		if (h.func_info_len)
			err = collect(obj, d + h.func_info_off, h.func_info_len,
				      sizeof(struct bpf_func_info), f, base[order[k]], &fi, &nfi);
		if (!err && h.line_info_len)
			err = collect(obj, d + h.line_info_off, h.line_info_len,
				      sizeof(struct bpf_line_info), f, base[order[k]], &li, &nli);
	}
	if (err) {
		free(fi);
		free(li);
		return err == -ENOMEM ? ld_err(obj, err, "program '%s': out of memory for "
					       ".BTF.ext records", prog->name) : 0;
	}
	prog->func_info = (struct bpf_func_info *)fi;
	prog->nfunc_info = nfi;
	prog->line_info = (struct bpf_line_info *)li;
	prog->nline_info = nli;
	return 0;
}
