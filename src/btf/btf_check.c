/* BTF validation with the kernel's rules, order, errno and log text (its btf_parse()).
 *
 * Phases, each stopping at the first error:
 *   1. header: hdr_len present, unknown trailing header bytes zero, magic, version, flags, then
 *      the two sections (types, strings) must tile the data after the header: no gap, no
 *      overlap, nothing outside;
 *   2. strings: the section ends the blob, starts and ends with NUL;
 *   3. meta: each type record in order -- info bits, kind, name offset, then the kind's own rules
 *      (check_meta) which also size its trailing records; every record is indexed by id;
 *   4. resolve: every type that refers to others is resolved depth-first with an explicit stack
 *      of at most MAX_RESOLVE_DEPTH vertices (a revisit of a vertex on the stack is a loop);
 *      struct members and array elements must resolve to something sized; function prototypes
 *      have their return and argument types checked;
 *   5. type tags: in every modifier chain, type tags come first (and chains are < 32 long).
 *
 * The resolve modes follow the kernel's notion of "sink": resolving through a pointer stops at
 * anything that is not a modifier or pointer (so struct self-references through pointers are
 * fine), resolving for a struct or array stops at anything that is not a modifier, array or
 * struct.  Invariants: records are read only after their whole size was checked against what
 * is left of the type section; every id followed is < nr_types or reported; every name offset
 * printed is checked first.  The log lines are the kernel's ("[id] KIND name details msg").
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/vmlinux.h"
#include "verifier/env.h"

#define ENOTSUPP 524		/* the kernel's internal "not supported", which bpf() leaks */
#define MAX_RESOLVE_DEPTH 32
#define KSYM_NAME_LEN 512
#define BITS_PER_U128 128
#define PTR_SIZE 8		/* sizeof(void *) for BPF programs */
#define BTF_INT_MASK 0x0fffffffu
#define BTF_INFO_MASK 0x9f1fffffu
#define BTF_MEMBER_BITS(off) ((off) >> 24)
#define BTF_MEMBER_OFF(off) ((off) & 0xffffff)
#define BYTES_UP(bits) (((bits) + 7) >> 3)

enum { NOT_VISITED, VISITED, RESOLVED };
enum resolve_mode { RESOLVE_TBD, RESOLVE_PTR, RESOLVE_STRUCT_OR_ARRAY };

struct vertex {
	const struct btf_type *t;
	u32 id;
	u16 next_member;
};

struct env {
	struct btf *btf;
	struct vlog *log;
	u8 *visit;		/* per id: NOT_VISITED, VISITED (on the stack), RESOLVED */
	struct vertex stack[MAX_RESOLVE_DEPTH];
	u32 top;
	u32 log_id;		/* the id log lines name */
	bool meta_phase;	/* member lines then do not repeat their struct */
	enum resolve_mode mode;
};

/* Void: the type of id 0.  Not NULL, so that "no such type" and "void" stay distinct. */
static const struct btf_type btf_void;

static const char *const kind_str[NR_BTF_KINDS] = {
	"UNKNOWN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
	"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC", "FLOAT",
	"DECL_TAG", "TYPE_TAG", "ENUM64",
};

const char *btf_kind_str(u32 kind)
{
	return kind < NR_BTF_KINDS ? kind_str[kind] : "UNKNOWN";
}

/* ---- small accessors ---- */

static u32 kind(const struct btf_type *t) { return BTF_INFO_KIND(t->info); }
static u32 vlen(const struct btf_type *t) { return BTF_INFO_VLEN(t->info); }
static bool kflag(const struct btf_type *t) { return BTF_INFO_KFLAG(t->info); }
static u32 int_data(const struct btf_type *t) { return *(const u32 *)(t + 1); }

static const struct btf_type *type_by_id(const struct btf *btf, u32 id)
{
	if (!id)
		return &btf_void;
	return id < btf->nr_types ? btf->types[id] : NULL;
}

static bool is_void(const struct btf_type *t) { return t == &btf_void; }
static bool is_kind(const struct btf_type *t, u32 k) { return t != &btf_void && kind(t) == k; }

static bool is_modifier(const struct btf_type *t)
{
	switch (kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return !is_void(t);
	}
	return false;
}

static bool is_struct(const struct btf_type *t)
{
	return is_kind(t, BTF_KIND_STRUCT) || is_kind(t, BTF_KIND_UNION);
}

static bool nosize(const struct btf_type *t)
{
	return !t || is_void(t) || is_kind(t, BTF_KIND_FWD) || is_kind(t, BTF_KIND_FUNC) ||
	       is_kind(t, BTF_KIND_FUNC_PROTO) || is_kind(t, BTF_KIND_DECL_TAG);
}

/* Types that may only start a resolution, never be reached by one. */
static bool source_only(const struct btf_type *t)
{
	return is_kind(t, BTF_KIND_VAR) || is_kind(t, BTF_KIND_DECL_TAG) ||
	       is_kind(t, BTF_KIND_DATASEC);
}

static bool needs_resolve(const struct btf_type *t)
{
	return is_modifier(t) || is_kind(t, BTF_KIND_PTR) || is_struct(t) ||
	       is_kind(t, BTF_KIND_ARRAY) || is_kind(t, BTF_KIND_FUNC) || source_only(t);
}

static bool has_size(const struct btf_type *t)
{
	if (is_void(t))
		return false;
	switch (kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM64:
		return true;
	}
	return false;
}

/* An int that occupies whole bytes of a power-of-two size from bit 0. */
static bool int_is_regular(const struct btf_type *t)
{
	u32 d = int_data(t);
	u8 bits = (u8)BTF_INT_BITS(d), bytes = (u8)BYTES_UP(bits);

	return !(bits & 7) && !BTF_INT_OFFSET(d) &&
	       (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16);
}

static const char *name_at(const struct btf *btf, u32 off)
{
	const char *s;

	if (!off)
		return "(anon)";
	s = btf_str_by_offset(btf, off);
	return s ? s : "(invalid-name-offset)";
}

static bool name_char_ok(char c, bool first)
{
	return (first ? isalpha((unsigned char)c) : isalnum((unsigned char)c)) || c == '_' ||
	       c == '.';
}

/* An identifier ('.' allowed, as in "a.b" of static variables) of fewer than KSYM_NAME_LEN
 * characters (offset already valid). */
static bool name_valid_identifier(const struct btf *btf, u32 off)
{
	const char *s = btf->strings + off, *limit = s + KSYM_NAME_LEN;

	if (!name_char_ok(*s, true))
		return false;
	for (s++; *s && s < limit; s++)
		if (!name_char_ok(*s, false))
			return false;
	return !*s;
}

/* A section name: printable characters, non-empty. */
static bool name_valid_section(const struct btf *btf, u32 off)
{
	const char *s = btf->strings + off, *limit = s + KSYM_NAME_LEN;

	if (!*s)
		return false;
	for (; *s && s < limit; s++)
		if (!isprint((unsigned char)*s))
			return false;
	return !*s;
}

/* ---- the log, in the kernel's words ---- */

static void blog(struct env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void blog(struct env *env, const char *fmt, ...)
{
	va_list ap;

	if (!env->log->level)
		return;
	va_start(ap, fmt);
	vlog_vprintf(env->log, fmt, ap);
	va_end(ap);
}

static void log_details(struct env *env, const struct btf_type *t);

/* "[id] KIND name" with the kind's details (details) and a message (fmt, may be NULL). */
static void log_type(struct env *env, const struct btf_type *t, bool details, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));
static void log_type(struct env *env, const struct btf_type *t, bool details, const char *fmt,
		     ...)
{
	va_list ap;

	if (!env->log->level)
		return;
	blog(env, "[%u] %s %s%s", env->log_id, kind_str[kind(t)], name_at(env->btf, t->name_off),
	     details ? " " : "");
	if (details)
		log_details(env, t);
	if (fmt && *fmt) {
		blog(env, " ");
		va_start(ap, fmt);
		vlog_vprintf(env->log, fmt, ap);
		va_end(ap);
	}
	blog(env, "\n");
}

#define LOG_TYPE(env, t, ...) log_type(env, t, true, __VA_ARGS__)
#define LOG_BASIC(env, t, ...) log_type(env, t, false, __VA_ARGS__)

static void log_member(struct env *env, const struct btf_type *st, const struct btf_member *m,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void log_member(struct env *env, const struct btf_type *st, const struct btf_member *m,
		       const char *fmt, ...)
{
	va_list ap;

	if (!env->log->level)
		return;
	if (!env->meta_phase)
		LOG_TYPE(env, st, NULL);
	if (kflag(st))
		blog(env, "\t%s type_id=%u bitfield_size=%u bits_offset=%u",
		     name_at(env->btf, m->name_off), m->type, BTF_MEMBER_BITS(m->offset),
		     BTF_MEMBER_OFF(m->offset));
	else
		blog(env, "\t%s type_id=%u bits_offset=%u", name_at(env->btf, m->name_off), m->type,
		     m->offset);
	if (fmt && *fmt) {
		blog(env, " ");
		va_start(ap, fmt);
		vlog_vprintf(env->log, fmt, ap);
		va_end(ap);
	}
	blog(env, "\n");
}

static void log_vsi(struct env *env, const struct btf_type *ds, const struct btf_var_secinfo *v,
		    const char *msg)
{
	if (!env->log->level)
		return;
	if (!env->meta_phase)
		LOG_TYPE(env, ds, NULL);
	blog(env, "\t type_id=%u offset=%u size=%u", v->type, v->offset, v->size);
	if (msg)
		blog(env, " %s", msg);
	blog(env, "\n");
}

static const char *int_encoding_str(u32 enc)
{
	switch (enc) {
	case 0:
		return "(none)";
	case BTF_INT_SIGNED:
		return "SIGNED";
	case BTF_INT_CHAR:
		return "CHAR";
	case BTF_INT_BOOL:
		return "BOOL";
	}
	return "UNKN";
}

static void log_func_proto(struct env *env, const struct btf_type *t)
{
	const struct btf_param *a = (const struct btf_param *)(t + 1);
	u32 n = vlen(t);

	blog(env, "return=%u args=(", t->type);
	if (!n) {
		blog(env, "void");
	} else if (n == 1 && !a[0].type) {
		blog(env, "vararg");
	} else {
		blog(env, "%u %s", a[0].type, name_at(env->btf, a[0].name_off));
		for (u32 i = 1; i + 1 < n; i++)
			blog(env, ", %u %s", a[i].type, name_at(env->btf, a[i].name_off));
		if (n > 1) {
			if (a[n - 1].type)
				blog(env, ", %u %s", a[n - 1].type,
				     name_at(env->btf, a[n - 1].name_off));
			else
				blog(env, ", vararg");
		}
	}
	blog(env, ")");
}

static void log_details(struct env *env, const struct btf_type *t)
{
	switch (kind(t)) {
	case BTF_KIND_INT:
		blog(env, "size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size,
		     BTF_INT_OFFSET(int_data(t)), BTF_INT_BITS(int_data(t)),
		     int_encoding_str(BTF_INT_ENCODING(int_data(t))));
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
		blog(env, "type_id=%u", t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		blog(env, "type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type,
		     a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_DATASEC:
		blog(env, "size=%u vlen=%u", t->size, vlen(t));
		break;
	case BTF_KIND_FWD:
		blog(env, "%s", kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC_PROTO:
		log_func_proto(env, t);
		break;
	case BTF_KIND_VAR:
		blog(env, "type_id=%u linkage=%u", t->type, ((const struct btf_var *)(t + 1))->linkage);
		break;
	case BTF_KIND_FLOAT:
		blog(env, "size=%u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		blog(env, "type=%u component_idx=%d", t->type,
		     ((const struct btf_decl_tag *)(t + 1))->component_idx);
		break;
	}
}

/* ---- phase 3: each record on its own ---- */

static int meta_short(struct env *env, const struct btf_type *t, u32 left, u32 needed)
{
	if (left >= needed)
		return 0;
	LOG_BASIC(env, t, "meta_left:%u meta_needed:%u", left, needed);
	return -EINVAL;
}

static s32 check_int(struct env *env, const struct btf_type *t, u32 left)
{
	u32 d, bits, enc;

	if (meta_short(env, t, left, sizeof(u32)))
		return -EINVAL;
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	d = int_data(t);
	if (d & ~BTF_INT_MASK) {
		LOG_BASIC(env, t, "Invalid int_data:%x", d);
		return -EINVAL;
	}
	bits = BTF_INT_BITS(d) + BTF_INT_OFFSET(d);
	if (bits > BITS_PER_U128) {
		LOG_TYPE(env, t, "nr_bits exceeds %d", BITS_PER_U128);
		return -EINVAL;
	}
	if (BYTES_UP(bits) > t->size) {
		LOG_TYPE(env, t, "nr_bits exceeds type_size");
		return -EINVAL;
	}
	enc = BTF_INT_ENCODING(d);
	if (enc && enc != BTF_INT_SIGNED && enc != BTF_INT_CHAR && enc != BTF_INT_BOOL) {
		LOG_TYPE(env, t, "Unsupported encoding");
		return -ENOTSUPP;
	}
	LOG_TYPE(env, t, NULL);
	return sizeof(u32);
}

/* PTR, TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG. */
static s32 check_ref(struct env *env, const struct btf_type *t, u32 left)
{
	const char *v;

	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (kflag(t) && kind(t) != BTF_KIND_TYPE_TAG) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (t->type > BTF_MAX_TYPE) {
		LOG_TYPE(env, t, "Invalid type_id");
		return -EINVAL;
	}
	if (kind(t) == BTF_KIND_TYPEDEF) {
		if (!t->name_off || !name_valid_identifier(env->btf, t->name_off)) {
			LOG_TYPE(env, t, "Invalid name");
			return -EINVAL;
		}
	} else if (kind(t) == BTF_KIND_TYPE_TAG) {
		v = btf_str_by_offset(env->btf, t->name_off);
		if (!v || !*v) {
			LOG_TYPE(env, t, "Invalid name");
			return -EINVAL;
		}
	} else if (t->name_off) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return 0;
}

static s32 check_fwd(struct env *env, const struct btf_type *t, u32 left)
{
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (t->type) {
		LOG_TYPE(env, t, "type != 0");
		return -EINVAL;
	}
	if (!t->name_off || !name_valid_identifier(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return 0;
}

static s32 check_array(struct env *env, const struct btf_type *t, u32 left)
{
	const struct btf_array *a = (const void *)(t + 1);

	if (meta_short(env, t, left, sizeof(*a)))
		return -EINVAL;
	if (t->name_off) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (t->size) {
		LOG_TYPE(env, t, "size != 0");
		return -EINVAL;
	}
	if (!a->type || a->type > BTF_MAX_TYPE) {
		LOG_TYPE(env, t, "Invalid elem");
		return -EINVAL;
	}
	if (!a->index_type || a->index_type > BTF_MAX_TYPE) {
		LOG_TYPE(env, t, "Invalid index");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return sizeof(*a);
}

static s32 check_struct(struct env *env, const struct btf_type *t, u32 left)
{
	const struct btf_member *m = (const void *)(t + 1);
	u32 need = vlen(t) * sizeof(*m), last = 0;
	bool is_union = kind(t) == BTF_KIND_UNION;

	if (meta_short(env, t, left, need))
		return -EINVAL;
	if (t->name_off && !name_valid_identifier(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	for (u32 i = 0; i < vlen(t); i++, m++) {
		u32 off = kflag(t) ? BTF_MEMBER_OFF(m->offset) : m->offset;

		if (m->name_off >= env->btf->str_len) {
			log_member(env, t, m, "Invalid member name_offset:%u", m->name_off);
			return -EINVAL;
		}
		if (m->name_off && !name_valid_identifier(env->btf, m->name_off)) {
			log_member(env, t, m, "Invalid name");
			return -EINVAL;
		}
		if (!m->type || m->type > BTF_MAX_TYPE) {
			log_member(env, t, m, "Invalid type_id");
			return -EINVAL;
		}
		/* ">" not ">=": the last member may be a zero-sized array */
		if ((is_union && off) || last > off) {
			log_member(env, t, m, "Invalid member bits_offset");
			return -EINVAL;
		}
		if (BYTES_UP(off) > t->size) {
			log_member(env, t, m, "Member bits_offset exceeds its struct size");
			return -EINVAL;
		}
		log_member(env, t, m, NULL);
		last = off;
	}
	return need;
}

static s32 check_enum(struct env *env, const struct btf_type *t, u32 left)
{
	bool is64 = kind(t) == BTF_KIND_ENUM64;
	u32 rec = is64 ? sizeof(struct btf_enum64) : sizeof(struct btf_enum);
	u32 need = vlen(t) * rec;
	const u8 *p = (const u8 *)(t + 1);

	if (meta_short(env, t, left, need))
		return -EINVAL;
	if (t->size > 8 || !t->size || (t->size & (t->size - 1))) {
		LOG_TYPE(env, t, "Unexpected size");
		return -EINVAL;
	}
	if (t->name_off && !name_valid_identifier(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	for (u32 i = 0; i < vlen(t); i++, p += rec) {
		const struct btf_enum64 *e = (const void *)p; /* name_off, then val or val_lo32 */

		if (e->name_off >= env->btf->str_len) {
			blog(env, "\tInvalid name_offset:%u", e->name_off);
			return -EINVAL;
		}
		if (!e->name_off || !name_valid_identifier(env->btf, e->name_off)) {
			LOG_TYPE(env, t, "Invalid name");
			return -EINVAL;
		}
		if (is64) {
			u64 v = (u64)e->val_hi32 << 32 | e->val_lo32;

			if (kflag(t))
				blog(env, "\t%s val=%lld\n", name_at(env->btf, e->name_off),
				     (long long)v);
			else
				blog(env, "\t%s val=%llu\n", name_at(env->btf, e->name_off),
				     (unsigned long long)v);
		} else {
			u32 v = e->val_lo32;

			if (kflag(t))
				blog(env, "\t%s val=%d\n", name_at(env->btf, e->name_off), (int)v);
			else
				blog(env, "\t%s val=%u\n", name_at(env->btf, e->name_off), v);
		}
	}
	return need;
}

static s32 check_func_proto(struct env *env, const struct btf_type *t, u32 left)
{
	u32 need = vlen(t) * sizeof(struct btf_param);

	if (meta_short(env, t, left, need))
		return -EINVAL;
	if (t->name_off) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return need;
}

static s32 check_func(struct env *env, const struct btf_type *t, u32 left)
{
	if (!t->name_off || !name_valid_identifier(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	if (vlen(t) > BTF_FUNC_GLOBAL) {
		LOG_TYPE(env, t, "Invalid func linkage");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return 0;
}

static s32 check_var(struct env *env, const struct btf_type *t, u32 left)
{
	const struct btf_var *v = (const void *)(t + 1);

	if (meta_short(env, t, left, sizeof(*v)))
		return -EINVAL;
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (!t->name_off || !name_valid_identifier(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	if (!t->type || t->type > BTF_MAX_TYPE) {
		LOG_TYPE(env, t, "Invalid type_id");
		return -EINVAL;
	}
	if (v->linkage != BTF_VAR_STATIC && v->linkage != BTF_VAR_GLOBAL_ALLOCATED) {
		LOG_TYPE(env, t, "Linkage not supported");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return sizeof(*v);
}

static s32 check_datasec(struct env *env, const struct btf_type *t, u32 left)
{
	const struct btf_var_secinfo *v = (const void *)(t + 1);
	u32 need = vlen(t) * sizeof(*v);
	u64 last_end = 0, sum = 0;

	if (meta_short(env, t, left, need))
		return -EINVAL;
	if (!t->size) {
		LOG_TYPE(env, t, "size == 0");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (!t->name_off || !name_valid_section(env->btf, t->name_off)) {
		LOG_TYPE(env, t, "Invalid name");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	for (u32 i = 0; i < vlen(t); i++, v++) {
		if (!v->type || v->type > BTF_MAX_TYPE) {
			log_vsi(env, t, v, "Invalid type_id");
			return -EINVAL;
		}
		if (v->offset < last_end || v->offset >= t->size) {
			log_vsi(env, t, v, "Invalid offset");
			return -EINVAL;
		}
		if (!v->size || v->size > t->size) {
			log_vsi(env, t, v, "Invalid size");
			return -EINVAL;
		}
		last_end = (u64)v->offset + v->size;
		if (last_end > t->size) {
			log_vsi(env, t, v, "Invalid offset+size");
			return -EINVAL;
		}
		log_vsi(env, t, v, NULL);
		sum += v->size;
	}
	if (t->size < sum) {
		LOG_TYPE(env, t, "Invalid btf_info size");
		return -EINVAL;
	}
	return need;
}

static s32 check_float(struct env *env, const struct btf_type *t, u32 left)
{
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (kflag(t)) {
		LOG_TYPE(env, t, "Invalid btf_info kind_flag");
		return -EINVAL;
	}
	if (t->size != 2 && t->size != 4 && t->size != 8 && t->size != 12 && t->size != 16) {
		LOG_TYPE(env, t, "Invalid type_size");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return 0;
}

static s32 check_decl_tag(struct env *env, const struct btf_type *t, u32 left)
{
	const struct btf_decl_tag *d = (const void *)(t + 1);
	const char *v;

	if (meta_short(env, t, left, sizeof(*d)))
		return -EINVAL;
	v = btf_str_by_offset(env->btf, t->name_off);
	if (!v || !*v) {
		LOG_TYPE(env, t, "Invalid value");
		return -EINVAL;
	}
	if (vlen(t)) {
		LOG_TYPE(env, t, "vlen != 0");
		return -EINVAL;
	}
	if (d->component_idx < -1) {
		LOG_TYPE(env, t, "Invalid component_idx");
		return -EINVAL;
	}
	LOG_TYPE(env, t, NULL);
	return sizeof(*d);
}

/* Returns the record's size (header and trailing records) or -errno. */
static s32 check_meta(struct env *env, const struct btf_type *t, u32 left)
{
	s32 extra;

	if (left < sizeof(*t)) {
		blog(env, "[%u] meta_left:%u meta_needed:%zu", env->log_id, left, sizeof(*t));
		return -EINVAL;
	}
	left -= sizeof(*t);
	if (t->info & ~BTF_INFO_MASK) {
		blog(env, "[%u] Invalid btf_info:%x", env->log_id, t->info);
		return -EINVAL;
	}
	if (kind(t) > BTF_KIND_ENUM64 || kind(t) == BTF_KIND_UNKN) {
		blog(env, "[%u] Invalid kind:%u", env->log_id, kind(t));
		return -EINVAL;
	}
	if (t->name_off >= env->btf->str_len) {
		blog(env, "[%u] Invalid name_offset:%u", env->log_id, t->name_off);
		return -EINVAL;
	}
	switch (kind(t)) {
	case BTF_KIND_INT:
		extra = check_int(env, t, left);
		break;
	case BTF_KIND_ARRAY:
		extra = check_array(env, t, left);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		extra = check_struct(env, t, left);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		extra = check_enum(env, t, left);
		break;
	case BTF_KIND_FWD:
		extra = check_fwd(env, t, left);
		break;
	case BTF_KIND_FUNC:
		extra = check_func(env, t, left);
		break;
	case BTF_KIND_FUNC_PROTO:
		extra = check_func_proto(env, t, left);
		break;
	case BTF_KIND_VAR:
		extra = check_var(env, t, left);
		break;
	case BTF_KIND_DATASEC:
		extra = check_datasec(env, t, left);
		break;
	case BTF_KIND_FLOAT:
		extra = check_float(env, t, left);
		break;
	case BTF_KIND_DECL_TAG:
		extra = check_decl_tag(env, t, left);
		break;
	default: /* PTR and the modifiers */
		extra = check_ref(env, t, left);
		break;
	}
	return extra < 0 ? extra : (s32)sizeof(*t) + extra;
}

static int add_type(struct env *env, const struct btf_type *t)
{
	struct btf *btf = env->btf;

	if (btf->nr_types == btf->types_cap) {
		const struct btf_type **n;
		u32 cap;

		if (btf->types_cap == BTF_MAX_TYPE) {
			blog(env, "Exceeded max num of types");
			return -E2BIG;
		}
		cap = btf->types_cap + (btf->types_cap / 4 > 16 ? btf->types_cap / 4 : 16);
		if (cap > BTF_MAX_TYPE)
			cap = BTF_MAX_TYPE;
		n = realloc(btf->types, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		btf->types = n;
		btf->types_cap = cap;
	}
	btf->types[btf->nr_types++] = t;
	return 0;
}

static int check_all_metas(struct env *env)
{
	const u8 *cur = (const u8 *)env->btf->type_buf, *end = cur + env->btf->hdr.type_len;
	int err;

	env->log_id = 1;
	while (cur < end) {
		s32 n = check_meta(env, (const struct btf_type *)cur, (u32)(end - cur));

		if (n < 0)
			return n;
		err = add_type(env, (const struct btf_type *)cur);
		if (err)
			return err;
		cur += n;
		env->log_id++;
	}
	return 0;
}

/* ---- phase 4: resolution ---- */

static bool is_sink(const struct env *env, const struct btf_type *t)
{
	switch (env->mode) {
	case RESOLVE_TBD:
		return !needs_resolve(t);
	case RESOLVE_PTR:
		return !is_modifier(t) && !is_kind(t, BTF_KIND_PTR);
	default:
		return !is_modifier(t) && !is_kind(t, BTF_KIND_ARRAY) && !is_struct(t);
	}
}

static bool is_resolved(const struct env *env, u32 id)
{
	return env->visit[id] == RESOLVED;
}

static int push(struct env *env, const struct btf_type *t, u32 id)
{
	struct vertex *v;

	if (env->top == MAX_RESOLVE_DEPTH)
		return -E2BIG;
	if (env->visit[id] != NOT_VISITED)
		return -EEXIST;
	env->visit[id] = VISITED;
	v = &env->stack[env->top++];
	v->t = t;
	v->id = id;
	v->next_member = 0;
	if (env->mode == RESOLVE_TBD) {
		if (is_kind(t, BTF_KIND_PTR))
			env->mode = RESOLVE_PTR;
		else if (is_struct(t) || is_kind(t, BTF_KIND_ARRAY))
			env->mode = RESOLVE_STRUCT_OR_ARRAY;
	}
	return 0;
}

static void pop_resolved(struct env *env, u32 resolved_id, u32 size)
{
	u32 id = env->stack[--env->top].id;

	env->btf->resolved_sizes[id] = size;
	env->btf->resolved_ids[id] = resolved_id;
	env->visit[id] = RESOLVED;
}

/* The sized type id stands for (following a resolved modifier or var once), its size in *size;
 * NULL when it has none. */
static const struct btf_type *id_size(const struct btf *btf, u32 *id, u32 *size)
{
	const struct btf_type *t = type_by_id(btf, *id);
	u32 sid = *id, sz;

	if (nosize(t))
		return NULL;
	if (!has_size(t) && !is_kind(t, BTF_KIND_ARRAY) && !is_kind(t, BTF_KIND_PTR)) {
		if (!is_modifier(t) && !is_kind(t, BTF_KIND_VAR))
			return NULL;
		sid = btf->resolved_ids[sid];
		t = type_by_id(btf, sid);
		if (nosize(t))
			return NULL;
		if (!has_size(t) && !is_kind(t, BTF_KIND_ARRAY) && !is_kind(t, BTF_KIND_PTR))
			return NULL;
	}
	if (has_size(t))
		sz = t->size;
	else if (is_kind(t, BTF_KIND_ARRAY))
		sz = btf->resolved_sizes[sid];
	else
		sz = PTR_SIZE;
	*id = sid;
	if (size)
		*size = sz;
	return t;
}

/* MODIFIERS and PTR: the chain must end in something sized, void, a forward or a prototype. */
static int resolve_ref(struct env *env, const struct vertex *v)
{
	struct btf *btf = env->btf;
	u32 next_id = v->t->type;
	const struct btf_type *next = type_by_id(btf, next_id);

	if (!next || source_only(next)) {
		LOG_TYPE(env, v->t, "Invalid type_id");
		return -EINVAL;
	}
	if (!is_sink(env, next) && !is_resolved(env, next_id))
		return push(env, next, next_id);
	if (is_kind(v->t, BTF_KIND_PTR) && is_modifier(next)) {
		/* the modifier may have stopped at a pointer while resolving for a struct: go on
		 * from it so that this pointer is not part of a loop */
		u32 rid = btf->resolved_ids[next_id];
		const struct btf_type *r = type_by_id(btf, rid);

		if (is_kind(r, BTF_KIND_PTR) && !is_sink(env, r) && !is_resolved(env, rid))
			return push(env, r, rid);
	}
	if (!id_size(btf, &next_id, NULL)) {
		if (is_resolved(env, next_id) && next_id) {
			next_id = btf->resolved_ids[next_id];
			next = type_by_id(btf, next_id);
		}
		if (!is_void(next) && !is_kind(next, BTF_KIND_FWD) &&
		    !is_kind(next, BTF_KIND_FUNC_PROTO)) {
			LOG_TYPE(env, v->t, "Invalid type_id");
			return -EINVAL;
		}
	}
	pop_resolved(env, next_id, 0);
	return 0;
}

static int resolve_var(struct env *env, const struct vertex *v)
{
	struct btf *btf = env->btf;
	u32 next_id = v->t->type;
	const struct btf_type *next = type_by_id(btf, next_id);

	if (!next || source_only(next)) {
		LOG_TYPE(env, v->t, "Invalid type_id");
		return -EINVAL;
	}
	if (!is_sink(env, next) && !is_resolved(env, next_id))
		return push(env, next, next_id);
	if (is_modifier(next)) {
		u32 rid = btf->resolved_ids[next_id];
		const struct btf_type *r = type_by_id(btf, rid);

		if (is_kind(r, BTF_KIND_PTR) && !is_sink(env, r) && !is_resolved(env, rid))
			return push(env, r, rid);
	}
	/* a variable must have a size: no void, forward or function */
	if (!id_size(btf, &next_id, NULL)) {
		LOG_TYPE(env, v->t, "Invalid type_id");
		return -EINVAL;
	}
	pop_resolved(env, next_id, 0);
	return 0;
}

static int resolve_array(struct env *env, const struct vertex *v)
{
	const struct btf_array *a = (const void *)(v->t + 1);
	struct btf *btf = env->btf;
	const struct btf_type *idx, *elem;
	u32 idx_id = a->index_type, elem_id = a->type, elem_size;

	idx = type_by_id(btf, idx_id);
	if (nosize(idx) || source_only(idx)) {
		LOG_TYPE(env, v->t, "Invalid index");
		return -EINVAL;
	}
	if (!is_sink(env, idx) && !is_resolved(env, idx_id))
		return push(env, idx, idx_id);
	idx = id_size(btf, &idx_id, NULL);
	if (!idx || !is_kind(idx, BTF_KIND_INT) || !int_is_regular(idx)) {
		LOG_TYPE(env, v->t, "Invalid index");
		return -EINVAL;
	}
	elem = type_by_id(btf, elem_id);
	if (nosize(elem) || source_only(elem)) {
		LOG_TYPE(env, v->t, "Invalid elem");
		return -EINVAL;
	}
	if (!is_sink(env, elem) && !is_resolved(env, elem_id))
		return push(env, elem, elem_id);
	elem = id_size(btf, &elem_id, &elem_size);
	if (!elem) {
		LOG_TYPE(env, v->t, "Invalid elem");
		return -EINVAL;
	}
	if (is_kind(elem, BTF_KIND_INT) && !int_is_regular(elem)) {
		LOG_TYPE(env, v->t, "Invalid array of int");
		return -EINVAL;
	}
	/* division: the product must fit in u32 */
	if (a->nelems && elem_size > UINT32_MAX / a->nelems) {
		LOG_TYPE(env, v->t, "Array size overflows U32_MAX");
		return -EINVAL;
	}
	pop_resolved(env, elem_id, elem_size * a->nelems);
	return 0;
}

/* ---- struct members: checked against the member type's kind ---- */

static int check_member(struct env *env, const struct btf_type *st, const struct btf_member *m,
			const struct btf_type *mt, bool kf);

static int member_unsupported(struct env *env, const struct btf_type *st, bool kf)
{
	LOG_BASIC(env, st, kf ? "Unsupported check_kflag_member" : "Unsupported check_member");
	return -EINVAL;
}

/* A member at a byte boundary that must fit in the struct with size bytes. */
static int member_bytes(struct env *env, const struct btf_type *st, const struct btf_member *m,
			u32 size)
{
	if (m->offset & 7) {
		log_member(env, st, m, "Member is not byte aligned");
		return -EINVAL;
	}
	if (st->size - (m->offset >> 3) < size) {
		log_member(env, st, m, "Member exceeds struct_size");
		return -EINVAL;
	}
	return 0;
}

static int member_int(struct env *env, const struct btf_type *st, const struct btf_member *m,
		      const struct btf_type *mt)
{
	u32 d = int_data(mt), off = m->offset, copy, bytes;

	if (UINT32_MAX - off < BTF_INT_OFFSET(d)) {
		log_member(env, st, m, "bits_offset exceeds U32_MAX");
		return -EINVAL;
	}
	off += BTF_INT_OFFSET(d);
	bytes = off >> 3;
	copy = BTF_INT_BITS(d) + (off & 7);
	if (copy > BITS_PER_U128) {
		log_member(env, st, m, "nr_copy_bits exceeds 128");
		return -EINVAL;
	}
	if (st->size < bytes || st->size - bytes < BYTES_UP(copy)) {
		log_member(env, st, m, "Member exceeds struct_size");
		return -EINVAL;
	}
	return 0;
}

static int member_int_kflag(struct env *env, const struct btf_type *st,
			    const struct btf_member *m, const struct btf_type *mt)
{
	u32 bits = BTF_MEMBER_BITS(m->offset), off = BTF_MEMBER_OFF(m->offset);
	u32 int_bits = BTF_INT_BITS(int_data(mt)), bytes, copy;

	if (!int_is_regular(mt)) {
		log_member(env, st, m, "Invalid member base type");
		return -EINVAL;
	}
	if (!bits) {
		if (off & 7) {
			log_member(env, st, m, "Invalid member offset");
			return -EINVAL;
		}
		bits = int_bits;
	} else if (bits > int_bits) {
		log_member(env, st, m, "Invalid member bitfield_size");
		return -EINVAL;
	}
	bytes = off >> 3;
	copy = bits + (off & 7);
	if (copy > BITS_PER_U128) {
		log_member(env, st, m, "nr_copy_bits exceeds 128");
		return -EINVAL;
	}
	if (st->size < bytes || st->size - bytes < BYTES_UP(copy)) {
		log_member(env, st, m, "Member exceeds struct_size");
		return -EINVAL;
	}
	return 0;
}

static int member_enum_kflag(struct env *env, const struct btf_type *st,
			     const struct btf_member *m, const struct btf_type *mt)
{
	u32 off = BTF_MEMBER_OFF(m->offset), bits = BTF_MEMBER_BITS(m->offset);

	if (!bits) {
		if (off & 7) {
			log_member(env, st, m, "Member is not byte aligned");
			return -EINVAL;
		}
		bits = 32;
	} else if (bits > 32) {
		log_member(env, st, m, "Invalid member bitfield_size");
		return -EINVAL;
	}
	if (st->size < BYTES_UP(off + bits)) {
		log_member(env, st, m, "Member exceeds struct_size");
		return -EINVAL;
	}
	return 0;
}

static int member_float(struct env *env, const struct btf_type *st, const struct btf_member *m,
			const struct btf_type *mt)
{
	u64 align = mt->size < PTR_SIZE ? mt->size : PTR_SIZE;

	if (m->offset % (align * 8)) {
		log_member(env, st, m, "Member is not properly aligned");
		return -EINVAL;
	}
	if ((u64)m->offset / 8 + mt->size > st->size) {
		log_member(env, st, m, "Member exceeds struct_size");
		return -EINVAL;
	}
	return 0;
}

static int check_member(struct env *env, const struct btf_type *st, const struct btf_member *m,
			const struct btf_type *mt, bool kf)
{
	u32 k = kind(mt);

	if (is_modifier(mt)) {
		struct btf_member rm = *m;
		u32 rid = m->type;
		const struct btf_type *rt = id_size(env->btf, &rid, NULL);

		if (!rt) {
			log_member(env, st, m, "Invalid member");
			return -EINVAL;
		}
		rm.type = rid;
		return check_member(env, st, &rm, rt, kf);
	}
	switch (k) {
	case BTF_KIND_INT:
		return kf ? member_int_kflag(env, st, m, mt) : member_int(env, st, m, mt);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return kf ? member_enum_kflag(env, st, m, mt) : member_bytes(env, st, m, mt->size);
	case BTF_KIND_PTR:
	case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FLOAT:
		if (kf) {
			if (BTF_MEMBER_BITS(m->offset)) {
				log_member(env, st, m, "Invalid member bitfield_size");
				return -EINVAL;
			}
			/* a bit offset only: the plain checks apply */
		}
		if (k == BTF_KIND_FLOAT)
			return member_float(env, st, m, mt);
		if (k == BTF_KIND_PTR)
			return member_bytes(env, st, m, PTR_SIZE);
		if (k == BTF_KIND_ARRAY) {
			u32 id = m->type, size = 0;

			if (m->offset & 7) {
				log_member(env, st, m, "Member is not byte aligned");
				return -EINVAL;
			}
			id_size(env->btf, &id, &size);
			return member_bytes(env, st, m, size);
		}
		return member_bytes(env, st, m, mt->size);
	}
	return member_unsupported(env, st, kf);
}

static int resolve_struct(struct env *env, struct vertex *v)
{
	const struct btf_member *m = (const void *)(v->t + 1);
	bool kf = kflag(v->t);
	int err;

	if (v->next_member) {
		/* the member pushed last time is resolved now: check it */
		const struct btf_member *last = m + v->next_member - 1;

		err = check_member(env, v->t, last, type_by_id(env->btf, last->type), kf);
		if (err)
			return err;
	}
	for (u32 i = v->next_member; i < vlen(v->t); i++) {
		const struct btf_type *mt = type_by_id(env->btf, m[i].type);

		if (nosize(mt) || source_only(mt)) {
			log_member(env, v->t, &m[i], "Invalid member");
			return -EINVAL;
		}
		if (!is_sink(env, mt) && !is_resolved(env, m[i].type)) {
			v->next_member = (u16)(i + 1);
			return push(env, mt, m[i].type);
		}
		err = check_member(env, v->t, &m[i], mt, kf);
		if (err)
			return err;
	}
	pop_resolved(env, 0, 0);
	return 0;
}

static int resolve_datasec(struct env *env, struct vertex *v)
{
	const struct btf_var_secinfo *s = (const void *)(v->t + 1);

	env->mode = RESOLVE_TBD;
	for (u32 i = v->next_member; i < vlen(v->t); i++) {
		const struct btf_type *vt = type_by_id(env->btf, s[i].type);
		u32 id, size = 0;

		if (!vt || !is_kind(vt, BTF_KIND_VAR)) {
			log_vsi(env, v->t, &s[i], "Not a VAR kind member");
			return -EINVAL;
		}
		if (!is_sink(env, vt) && !is_resolved(env, s[i].type)) {
			v->next_member = (u16)(i + 1);
			return push(env, vt, s[i].type);
		}
		id = vt->type;
		if (!id_size(env->btf, &id, &size)) {
			log_vsi(env, v->t, &s[i], "Invalid type");
			return -EINVAL;
		}
		if (s[i].size < size) {
			log_vsi(env, v->t, &s[i], "Invalid size");
			return -EINVAL;
		}
	}
	pop_resolved(env, 0, 0);
	return 0;
}

/* FUNC: its type is a prototype whose named arguments all have names. */
static int func_check(struct env *env, const struct btf_type *t)
{
	const struct btf_type *proto = type_by_id(env->btf, t->type);
	const struct btf_param *a;

	if (!proto || !is_kind(proto, BTF_KIND_FUNC_PROTO)) {
		LOG_TYPE(env, t, "Invalid type_id");
		return -EINVAL;
	}
	a = (const void *)(proto + 1);
	for (u32 i = 0; i < vlen(proto); i++) {
		if (!a[i].name_off && a[i].type) {
			LOG_TYPE(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int resolve_func(struct env *env, const struct vertex *v)
{
	int err = func_check(env, v->t);

	if (err)
		return err;
	pop_resolved(env, v->t->type, 0);
	return 0;
}

static bool decl_tag_target(const struct btf_type *t)
{
	return is_kind(t, BTF_KIND_FUNC) || is_struct(t) || is_kind(t, BTF_KIND_VAR) ||
	       is_kind(t, BTF_KIND_TYPEDEF);
}

static int resolve_decl_tag(struct env *env, const struct vertex *v)
{
	const struct btf_type *next = type_by_id(env->btf, v->t->type);
	s32 idx = ((const struct btf_decl_tag *)(v->t + 1))->component_idx;
	u32 n;

	if (!next || !decl_tag_target(next)) {
		LOG_TYPE(env, v->t, "Invalid type_id");
		return -EINVAL;
	}
	if (!is_sink(env, next) && !is_resolved(env, v->t->type))
		return push(env, next, v->t->type);
	if (idx != -1) {
		if (is_kind(next, BTF_KIND_VAR) || is_kind(next, BTF_KIND_TYPEDEF)) {
			LOG_TYPE(env, v->t, "Invalid component_idx");
			return -EINVAL;
		}
		if (is_struct(next)) {
			n = vlen(next);
		} else { /* a function: its prototype's arguments */
			const struct btf_type *p = type_by_id(env->btf, next->type);

			n = p ? vlen(p) : 0;
		}
		if ((u32)idx >= n) {
			LOG_TYPE(env, v->t, "Invalid component_idx");
			return -EINVAL;
		}
	}
	pop_resolved(env, v->t->type, 0);
	return 0;
}

static int resolve_one(struct env *env, struct vertex *v)
{
	switch (kind(v->t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return resolve_ref(env, v);
	case BTF_KIND_ARRAY:
		return resolve_array(env, v);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return resolve_struct(env, v);
	case BTF_KIND_VAR:
		return resolve_var(env, v);
	case BTF_KIND_DATASEC:
		return resolve_datasec(env, v);
	case BTF_KIND_FUNC:
		return resolve_func(env, v);
	case BTF_KIND_DECL_TAG:
		return resolve_decl_tag(env, v);
	}
	LOG_BASIC(env, v->t, "Unsupported resolve");
	return -EINVAL;
}

/* The final sanity check of a resolved type. */
static bool resolve_valid(struct env *env, const struct btf_type *t, u32 id)
{
	struct btf *btf = env->btf;

	if (!is_resolved(env, id))
		return false;
	if (is_struct(t) || is_kind(t, BTF_KIND_DATASEC))
		return !btf->resolved_ids[id] && !btf->resolved_sizes[id];
	if (is_kind(t, BTF_KIND_DECL_TAG) || is_kind(t, BTF_KIND_FUNC))
		return btf->resolved_ids[id] && !btf->resolved_sizes[id];
	if (is_modifier(t) || is_kind(t, BTF_KIND_PTR) || is_kind(t, BTF_KIND_VAR)) {
		const struct btf_type *r = type_by_id(btf, btf->resolved_ids[id]);

		return r && !is_modifier(r) && !is_kind(r, BTF_KIND_VAR) &&
		       !is_kind(r, BTF_KIND_DATASEC);
	}
	if (is_kind(t, BTF_KIND_ARRAY)) {
		const struct btf_array *a = (const void *)(t + 1);
		u32 eid = a->type, esize;
		const struct btf_type *e = id_size(btf, &eid, &esize);

		return e && !is_modifier(e) && a->nelems * esize == btf->resolved_sizes[id];
	}
	return false;
}

static int resolve(struct env *env, const struct btf_type *t, u32 id)
{
	u32 saved = env->log_id;
	int err;

	env->mode = RESOLVE_TBD;
	err = push(env, t, id);
	while (!err && env->top) {
		struct vertex *v = &env->stack[env->top - 1];

		env->log_id = v->id;
		err = resolve_one(env, v);
	}
	env->log_id = id;
	if (err == -E2BIG)
		LOG_TYPE(env, t, "Exceeded max resolving depth:%u", MAX_RESOLVE_DEPTH);
	else if (err == -EEXIST)
		LOG_TYPE(env, t, "Loop detected");
	if (!err && !resolve_valid(env, t, id)) {
		LOG_TYPE(env, t, "Invalid resolve state");
		err = -EINVAL;
	}
	env->log_id = saved;
	/* a failed resolution leaves vertices on the stack: the parse is over anyway */
	env->top = 0;
	return err;
}

/* The return and argument types of a prototype, resolving them first if need be. */
static int func_proto_check(struct env *env, const struct btf_type *t)
{
	const struct btf_param *a = (const void *)(t + 1);
	struct btf *btf = env->btf;
	u32 n = vlen(t);
	int err;

	if (t->type) {
		u32 rid = t->type;
		const struct btf_type *r = type_by_id(btf, rid);

		if (!r || source_only(r)) {
			LOG_TYPE(env, t, "Invalid return type");
			return -EINVAL;
		}
		if (needs_resolve(r) && !is_resolved(env, rid)) {
			err = resolve(env, r, rid);
			if (err)
				return err;
		}
		if (!id_size(btf, &rid, NULL)) {
			LOG_TYPE(env, t, "Invalid return type");
			return -EINVAL;
		}
	}
	if (!n)
		return 0;
	if (!a[n - 1].type) { /* a vararg, unnamed */
		if (a[n - 1].name_off) {
			LOG_TYPE(env, t, "Invalid arg#%u", n);
			return -EINVAL;
		}
		n--;
	}
	for (u32 i = 0; i < n; i++) {
		u32 aid = a[i].type;
		const struct btf_type *at = type_by_id(btf, aid);

		if (!at || source_only(at)) {
			LOG_TYPE(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
		if (a[i].name_off && (a[i].name_off >= btf->str_len ||
				      !name_valid_identifier(btf, a[i].name_off))) {
			LOG_TYPE(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
		if (needs_resolve(at) && !is_resolved(env, aid)) {
			err = resolve(env, at, aid);
			if (err)
				return err;
		}
		if (!id_size(btf, &aid, NULL)) {
			LOG_TYPE(env, t, "Invalid arg#%u", i + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int check_all_types(struct env *env)
{
	struct btf *btf = env->btf;
	u32 n = btf->nr_types;
	int err;

	btf->resolved_ids = calloc(n, sizeof(u32));
	btf->resolved_sizes = calloc(n, sizeof(u32));
	env->visit = calloc(n, 1);
	if (!btf->resolved_ids || !btf->resolved_sizes || !env->visit)
		return -ENOMEM;
	env->meta_phase = false;
	for (u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf->types[id];

		env->log_id = id;
		if (needs_resolve(t) && !is_resolved(env, id)) {
			err = resolve(env, t, id);
			if (err)
				return err;
		}
		if (is_kind(t, BTF_KIND_FUNC_PROTO)) {
			err = func_proto_check(env, t);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- phases 1, 2 and 5 ---- */

static int check_sections(struct env *env, u32 size)
{
	const struct btf_header *h = &env->btf->hdr;
	struct { u32 off, len; } s[2] = { { h->type_off, h->type_len }, { h->str_off, h->str_len } };
	u32 total = 0, expected = size - h->hdr_len;

	/* in offset order (then length), compared as the kernel's sort does: the difference
	 * taken as a signed int */
	int cmp = (int)(s[0].off - s[1].off) ? (int)(s[0].off - s[1].off)
					     : (int)(s[0].len - s[1].len);

	if (cmp > 0) {
		u32 o = s[0].off, l = s[0].len;

		s[0] = s[1];
		s[1].off = o;
		s[1].len = l;
	}
	for (int i = 0; i < 2; i++) {
		if (expected < s[i].off) {
			blog(env, "Invalid section offset");
			return -EINVAL;
		}
		if (total < s[i].off) {
			blog(env, "Unsupported section found");
			return -EINVAL;
		}
		if (total > s[i].off) {
			blog(env, "Section overlap found");
			return -EINVAL;
		}
		if (expected - total < s[i].len) {
			blog(env, "Total section length too long");
			return -EINVAL;
		}
		total += s[i].len;
	}
	if (expected != total) {
		blog(env, "Unsupported section found");
		return -EINVAL;
	}
	return 0;
}

static int parse_hdr(struct env *env, const u8 *data, u32 size)
{
	struct btf_header *h = &env->btf->hdr;
	u32 hdr_len;

	if (size < offsetof(struct btf_header, hdr_len) + sizeof(h->hdr_len)) {
		blog(env, "hdr_len not found");
		return -EINVAL;
	}
	memcpy(&hdr_len, data + offsetof(struct btf_header, hdr_len), sizeof(hdr_len));
	if (size < hdr_len) {
		blog(env, "btf_header not found");
		return -EINVAL;
	}
	for (u32 i = sizeof(*h); i < hdr_len; i++) {
		if (data[i]) {
			blog(env, "Unsupported btf_header");
			return -E2BIG;
		}
	}
	memset(h, 0, sizeof(*h));
	memcpy(h, data, hdr_len < sizeof(*h) ? hdr_len : sizeof(*h));
	if (env->log->level) {
		blog(env, "magic: 0x%x\n", h->magic);
		blog(env, "version: %u\n", h->version);
		blog(env, "flags: 0x%x\n", h->flags);
		blog(env, "hdr_len: %u\n", h->hdr_len);
		blog(env, "type_off: %u\n", h->type_off);
		blog(env, "type_len: %u\n", h->type_len);
		blog(env, "str_off: %u\n", h->str_off);
		blog(env, "str_len: %u\n", h->str_len);
		blog(env, "btf_total_size: %u\n", size);
	}
	if (h->magic != BTF_MAGIC) {
		blog(env, "Invalid magic");
		return -EINVAL;
	}
	if (h->version != BTF_VERSION) {
		blog(env, "Unsupported version");
		return -ENOTSUPP;
	}
	if (h->flags) {
		blog(env, "Unsupported flags");
		return -ENOTSUPP;
	}
	if (size == h->hdr_len) {
		blog(env, "No data");
		return -EINVAL;
	}
	return check_sections(env, size);
}

static int parse_str_sec(struct env *env, const u8 *data, u32 size)
{
	struct btf *btf = env->btf;
	const struct btf_header *h = &btf->hdr;
	const u8 *s = data + h->hdr_len + h->str_off;

	if ((u64)h->hdr_len + h->str_off + h->str_len != size) {
		blog(env, "String section is not at the end");
		return -EINVAL;
	}
	if (!h->str_len || h->str_len - 1 > BTF_MAX_NAME_OFFSET || s[h->str_len - 1] || s[0]) {
		blog(env, "Invalid string section");
		return -EINVAL;
	}
	btf->strings = malloc(h->str_len);
	if (!btf->strings)
		return -ENOMEM;
	memcpy(btf->strings, s, h->str_len);
	btf->str_len = h->str_len;
	return 0;
}

static int parse_type_sec(struct env *env, const u8 *data)
{
	struct btf *btf = env->btf;
	const struct btf_header *h = &btf->hdr;
	int err;

	if (h->type_off & 3) {
		blog(env, "Unaligned type_off");
		return -EINVAL;
	}
	if (!h->type_len) {
		blog(env, "No type found");
		return -EINVAL;
	}
	/* an aligned copy: hdr_len need not be a multiple of 4 */
	btf->type_buf = calloc((h->type_len + 3) / 4, sizeof(u32));
	if (!btf->type_buf)
		return -ENOMEM;
	memcpy(btf->type_buf, data + h->hdr_len + h->type_off, h->type_len);
	btf->nr_types = 0;
	err = add_type(env, NULL); /* void */
	if (err)
		return err;
	env->meta_phase = true;
	err = check_all_metas(env);
	if (err)
		return err;
	return check_all_types(env);
}

static int check_type_tags(struct env *env)
{
	struct btf *btf = env->btf;
	u32 good = 0;

	for (u32 i = 1; i < btf->nr_types; i++) {
		const struct btf_type *t = btf->types[i];
		u32 cur = i;
		int limit = 32;
		bool in_tags;

		if (!is_modifier(t))
			continue;
		in_tags = is_kind(t, BTF_KIND_TYPE_TAG);
		while (is_modifier(t)) {
			if (!limit--) {
				blog(env, "Max chain length or cycle detected");
				return -ELOOP;
			}
			if (is_kind(t, BTF_KIND_TYPE_TAG)) {
				if (!in_tags) {
					blog(env, "Type tags don't precede modifiers");
					return -EINVAL;
				}
			} else {
				in_tags = false;
			}
			if (cur <= good)
				break;
			cur = t->type;
			t = type_by_id(btf, cur);
			if (!t)
				return -EINVAL;
		}
		good = i;
	}
	return 0;
}

/* The kptr-tagged pointer type (kptr, kptr_untrusted, percpu_kptr) a member of type id is:
 * its tag, or NULL. */
static const struct btf_type *kptr_tag_of(const struct btf *btf, u32 id)
{
	const struct btf_type *t = type_by_id(btf, id), *tag;
	const char *n;

	if (!t || kind(t) != BTF_KIND_PTR)
		return NULL;
	tag = type_by_id(btf, t->type);
	if (!tag || kind(tag) != BTF_KIND_TYPE_TAG)
		return NULL;
	n = btf_str_by_offset(btf, tag->name_off);
	return n && (!strcmp(n, "kptr") || !strcmp(n, "kptr_untrusted") ||
		     !strcmp(n, "percpu_kptr")) ? tag : NULL;
}

/* The kernel's btf_parse_struct_metas() as it bears on kptrs: a struct with a member that is a
 * kptr has its fields parsed at load, and fails the load when none of them makes a field (a
 * kptr not 8-aligned is none: EFAULT) or when a referenced kptr points at a kernel struct the
 * kernel cannot drop a reference to (no destructor kfunc: ENOENT).  (A struct the kernel's BTF
 * lacks is the program's own object: fine here.) */
static int check_kptr_structs(struct env *env)
{
	static const char *const dtors[] = { "task_struct", "cgroup", "bpf_cpumask",
					     "bpf_crypto_ctx" };
	const struct btf *btf = env->btf;

	for (u32 id = 1; id < btf->nr_types; id++) {
		const struct btf_type *t = btf->types[id];
		const struct btf_member *m = (const struct btf_member *)(t + 1);
		bool has = false;
		int fields = 0;

		if (kind(t) != BTF_KIND_STRUCT)
			continue;
		for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++) {
			const struct btf_type *tag = kptr_tag_of(btf, m[i].type), *target;
			const char *tn, *name;
			const struct btf *vmlinux;
			bool known = false;

			if (!tag)
				continue;
			has = true;
			if (kflag(t) || m[i].offset % 64)
				continue; /* (no field) */
			fields++;
			tn = btf_str_by_offset(btf, tag->name_off);
			target = type_by_id(btf, tag->type);
			name = target ? btf_str_by_offset(btf, target->name_off) : NULL;
			if (strcmp(tn, "kptr") || !name || kind(target) != BTF_KIND_STRUCT)
				continue;
			vmlinux = btf_vmlinux();
			if (!vmlinux || !btf_find_by_name_kind(vmlinux, name, BTF_KIND_STRUCT))
				continue;
			for (size_t d = 0; d < ARRAY_SIZE(dtors); d++)
				known |= !strcmp(name, dtors[d]);
			if (!known)
				return -ENOENT;
		}
		if (has && !fields)
			return -EFAULT;
	}
	return 0;
}

int btf_parse(struct btf *btf, const u8 *data, u32 size, struct vlog *log)
{
	struct env *env;
	int err;

	env = calloc(1, sizeof(*env));
	if (!env)
		return -ENOMEM;
	env->btf = btf;
	env->log = log;
	err = parse_hdr(env, data, size);
	if (!err)
		err = parse_str_sec(env, data, size);
	if (!err)
		err = parse_type_sec(env, data);
	if (!err)
		err = check_type_tags(env);
	if (!err)
		err = check_kptr_structs(env);
	free(env->visit);
	free(env);
	return err;
}

void btf_free_data(struct btf *btf)
{
	free(btf->type_buf);
	free(btf->strings);
	free(btf->types);
	free(btf->resolved_ids);
	free(btf->resolved_sizes);
}

const struct btf_type *btf_skip_modifiers(const struct btf *btf, u32 id, u32 *res_id)
{
	const struct btf_type *t = type_by_id(btf, id);

	while (t && is_modifier(t)) {
		id = t->type;
		t = type_by_id(btf, id);
	}
	if (res_id)
		*res_id = id;
	return t == &btf_void ? NULL : t;
}

const struct btf_type *btf_type_id_size(const struct btf *btf, u32 *id, u32 *size)
{
	return id_size(btf, id, size);
}

/* The kind of special field a struct name (or, tag, a pointer's type tag) makes: the kernel's
 * special structs and tags in map values (btf_parse_fields()); 0 for others. */
static u32 special_name(const char *n, bool tag)
{
	static const struct {
		const char *name;
		u32 kind;
	} structs[] = {
		{ "bpf_spin_lock", BTF_SPECIAL_LOCK },	   { "bpf_res_spin_lock", BTF_SPECIAL_LOCK },
		{ "bpf_timer", BTF_SPECIAL_TIMER },	   { "bpf_wq", BTF_SPECIAL_TIMER },
		{ "bpf_task_work", BTF_SPECIAL_TIMER },	   { "bpf_list_head", BTF_SPECIAL_OTHER },
		{ "bpf_list_node", BTF_SPECIAL_OTHER },	   { "bpf_rb_root", BTF_SPECIAL_OTHER },
		{ "bpf_rb_node", BTF_SPECIAL_OTHER },	   { "bpf_refcount", BTF_SPECIAL_OTHER },
	};
	static const char *const tags[] = { "kptr", "kptr_untrusted", "percpu_kptr", "uptr" };

	for (size_t i = 0; n && !tag && i < ARRAY_SIZE(structs); i++)
		if (!strcmp(n, structs[i].name))
			return structs[i].kind;
	for (size_t i = 0; n && tag && i < ARRAY_SIZE(tags); i++)
		if (!strcmp(n, tags[i]))
			return BTF_SPECIAL_KPTR;
	return 0;
}

/* The special fields type id holds anywhere (BTF_SPECIAL_*): special structs, and tagged
 * pointers, through members, array elements and section variables (depth-bounded). */
static u32 specials(const struct btf *btf, u32 id, int depth)
{
	const struct btf_type *t = type_by_id(btf, id);
	u32 found = 0;

	if (!t || depth > 16)
		return 0;
	while (t && is_modifier(t)) {
		if (kind(t) == BTF_KIND_TYPE_TAG)
			found |= special_name(btf_str_by_offset(btf, t->name_off), true);
		t = type_by_id(btf, t->type);
	}
	if (!t)
		return found;
	switch (kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = (const struct btf_member *)(t + 1);

		if (kind(t) == BTF_KIND_STRUCT)
			found |= special_name(btf_str_by_offset(btf, t->name_off), false);
		for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++)
			found |= specials(btf, m[i].type, depth + 1);
		return found;
	}
	case BTF_KIND_ARRAY:
		return found | specials(btf, ((const struct btf_array *)(t + 1))->type, depth + 1);
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = (const struct btf_var_secinfo *)(t + 1);

		for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++)
			found |= specials(btf, v[i].type, depth + 1);
		return found;
	}
	case BTF_KIND_VAR:
		return found | specials(btf, t->type, depth + 1);
	case BTF_KIND_PTR: {
		/* a tag sits between the pointer and its target: PTR -> TYPE_TAG -> STRUCT */
		const struct btf_type *n = type_by_id(btf, t->type);

		if (n && kind(n) == BTF_KIND_TYPE_TAG)
			found |= special_name(btf_str_by_offset(btf, n->name_off), true);
		return found;
	}
	default:
		return found;
	}
}

u32 btf_special_fields(const struct btf *btf, u32 id)
{
	return specials(btf, id, 0);
}

int btf_find_value_field(const struct btf *btf, u32 value_id, const char *name, u32 align)
{
	const struct btf_type *t = type_by_id(btf, value_id);
	const struct btf_member *m;
	int off = -ENOENT;

	while (t && is_modifier(t))
		t = type_by_id(btf, t->type);
	if (!t || kind(t) != BTF_KIND_STRUCT)
		return -EINVAL;
	m = (const struct btf_member *)(t + 1);
	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		const struct btf_type *mt = type_by_id(btf, m[i].type);

		while (mt && is_modifier(mt))
			mt = type_by_id(btf, mt->type);
		const char *n = mt ? btf_str_by_offset(btf, mt->name_off) : NULL;

		if (!mt || kind(mt) != BTF_KIND_STRUCT || !n || strcmp(n, name))
			continue;
		if (off >= 0 || kflag(t) || m[i].offset % (align * 8))
			return -E2BIG; /* a second one, or not where it can be */
		off = (int)(m[i].offset / 8);
	}
	return off;
}

int btf_find_kptrs(const struct btf *btf, u32 value_id, struct btf_kptr *out, int max)
{
	const struct btf_type *t = type_by_id(btf, value_id);
	const struct btf_member *m;
	int n = 0;

	while (t && is_modifier(t))
		t = type_by_id(btf, t->type);
	if (!t || kind(t) != BTF_KIND_STRUCT)
		return 0;
	m = (const struct btf_member *)(t + 1);
	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		const struct btf_type *mt = type_by_id(btf, m[i].type), *tag, *target;
		const char *tn;

		while (mt && is_modifier(mt) && kind(mt) != BTF_KIND_TYPE_TAG)
			mt = type_by_id(btf, mt->type);
		if (!mt || kind(mt) != BTF_KIND_PTR) {
			/* (a kptr deeper down: nested structs and arrays of them) */
			if (mt && (btf_special_fields(btf, m[i].type) & BTF_SPECIAL_KPTR))
				return -EOPNOTSUPP;
			continue;
		}
		tag = type_by_id(btf, mt->type);
		if (!tag || kind(tag) != BTF_KIND_TYPE_TAG)
			continue;
		tn = btf_str_by_offset(btf, tag->name_off);
		if (!tn || (strcmp(tn, "kptr") && strcmp(tn, "kptr_untrusted")))
			return special_name(tn, true) ? -EOPNOTSUPP : 0;
		target = type_by_id(btf, tag->type);
		if (kflag(t) || m[i].offset % 64 || !target || kind(target) != BTF_KIND_STRUCT)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		out[n].off = m[i].offset / 8;
		out[n].ref = !strcmp(tn, "kptr");
		out[n++].pointee = btf_str_by_offset(btf, target->name_off);
	}
	return n;
}
