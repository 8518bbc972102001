/* The CO-RE engine (core_relo.h): access specs, candidate matching, values and patching.
 *
 * An access spec has two views of an access string such as "0:1:2:3":
 *   raw   every index as written, anonymous struct members included;
 *   high  only what has a meaning across BTFs: the root's array index, named members (matched
 *         by name in the target) and array elements (matched by index, within bounds unless the
 *         array is a struct's last, flexible, member).
 * A target spec is built by walking the local high-level view through a candidate type, searching
 * anonymous members depth-first for each name; its raw view and bit offset follow from where the
 * names were found.
 *
 * Messages go through who->print in the format both libbpf and the kernel share ("prog '%s':
 * relo #%d: ..."); the kernel's prints an empty program name and upper-case kind names.
 */
#include <errno.h>
#include <limits.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/core_relo.h"

#define SPEC_MAX_LEN 64 /* accessors in a spec (libbpf's BPF_CORE_SPEC_MAX_LEN) */
#define RESOLVE_DEPTH 32

struct acc {
	u32 type_id;
	u32 idx;
	const char *name; /* NULL for an array index */
};

struct spec {
	const struct btf *btf;
	struct acc acc[SPEC_MAX_LEN]; /* the high-level view */
	int len;
	int raw[SPEC_MAX_LEN];
	int raw_len;
	u32 root_type_id;
	u32 kind;	/* enum bpf_core_relo_kind */
	u32 bit_offset; /* of the field from the root pointer */
};

/* ---- messages ---- */

static void say(const struct core_who *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct core_who *who, const char *fmt, ...)
{
	va_list ap;

	if (!who->print)
		return;
	va_start(ap, fmt);
	who->print(who->arg, fmt, ap);
	va_end(ap);
}

static const char *kind_name(const struct core_who *who, const struct btf_type *t)
{
	static const char *const lower[NR_BTF_KINDS] = {
		"unknown", "int", "ptr", "array", "struct", "union", "enum", "fwd", "typedef",
		"volatile", "const", "restrict", "func", "func_proto", "var", "datasec", "float",
		"decl_tag", "type_tag", "enum64",
	};
	u32 k = BTF_INFO_KIND(t->info);

	if (who->kernel)
		return btf_kind_str(k);
	return k < NR_BTF_KINDS ? lower[k] : "unknown";
}

static const char *relo_kind_str(u32 kind)
{
	static const char *const names[] = {
		[BPF_CORE_FIELD_BYTE_OFFSET] = "byte_off",   [BPF_CORE_FIELD_BYTE_SIZE] = "byte_sz",
		[BPF_CORE_FIELD_EXISTS] = "field_exists",    [BPF_CORE_FIELD_SIGNED] = "signed",
		[BPF_CORE_FIELD_LSHIFT_U64] = "lshift_u64",  [BPF_CORE_FIELD_RSHIFT_U64] = "rshift_u64",
		[BPF_CORE_TYPE_ID_LOCAL] = "local_type_id",  [BPF_CORE_TYPE_ID_TARGET] = "target_type_id",
		[BPF_CORE_TYPE_EXISTS] = "type_exists",	     [BPF_CORE_TYPE_SIZE] = "type_size",
		[BPF_CORE_ENUMVAL_EXISTS] = "enumval_exists", [BPF_CORE_ENUMVAL_VALUE] = "enumval_value",
		[BPF_CORE_TYPE_MATCHES] = "type_matches",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "unknown";
}

/* ---- BTF accessors ---- */

static u32 kind_of(const struct btf_type *t) { return BTF_INFO_KIND(t->info); }
static u32 vlen_of(const struct btf_type *t) { return BTF_INFO_VLEN(t->info); }
static bool is_composite(const struct btf_type *t)
{
	return kind_of(t) == BTF_KIND_STRUCT || kind_of(t) == BTF_KIND_UNION;
}
static bool is_any_enum(const struct btf_type *t)
{
	return t && (kind_of(t) == BTF_KIND_ENUM || kind_of(t) == BTF_KIND_ENUM64);
}
static u32 int_encoding(const struct btf_type *t) { return BTF_INT_ENCODING(*(const u32 *)(t + 1)); }
static u32 int_offset(const struct btf_type *t) { return BTF_INT_OFFSET(*(const u32 *)(t + 1)); }
static const struct btf_member *members(const struct btf_type *t)
{
	return (const struct btf_member *)(t + 1);
}
static const struct btf_array *array_of(const struct btf_type *t)
{
	return (const struct btf_array *)(t + 1);
}
static const struct btf_param *params(const struct btf_type *t)
{
	return (const struct btf_param *)(t + 1);
}
static u32 member_bit_offset(const struct btf_type *t, u32 i)
{
	u32 off = members(t)[i].offset;

	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(off) : off;
}
static u32 member_bitfield_size(const struct btf_type *t, u32 i)
{
	return BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BITFIELD_SIZE(members(t)[i].offset) : 0;
}

/* Enumerator i's name offset and value (enum or enum64). */
static u32 enumerator_name(const struct btf_type *t, u32 i)
{
	if (kind_of(t) == BTF_KIND_ENUM)
		return ((const struct btf_enum *)(t + 1))[i].name_off;
	return ((const struct btf_enum64 *)(t + 1))[i].name_off;
}

static u64 enumerator_value(const struct btf_type *t, u32 i)
{
	const struct btf_enum64 *e;

	if (kind_of(t) == BTF_KIND_ENUM)
		return (u32)((const struct btf_enum *)(t + 1))[i].val;
	e = (const struct btf_enum64 *)(t + 1) + i;
	return (u64)e->val_hi32 << 32 | e->val_lo32;
}

static const char *name_of(const struct btf *btf, u32 off)
{
	return btf_str_by_offset(btf, off);
}

static bool str_empty(const char *s)
{
	return !s || !*s;
}

/* Type id's record, void's (kind 0, no name) for id 0, NULL for a bad id: the kernel's and
 * libbpf's lookups, which a relocation's root type goes through. */
static const struct btf_type *type_or_void(const struct btf *btf, u32 id)
{
	static const struct btf_type void_type;

	return id ? btf_type_by_id(btf, id) : &void_type;
}

/* Modifiers and typedefs skipped; NULL for void or a bad id. */
static const struct btf_type *skip_mods(const struct btf *btf, u32 id, u32 *res_id)
{
	return btf_skip_modifiers(btf, id, res_id);
}

/* The byte size of type id (arrays multiplied out, pointers 8): -EINVAL where it has none,
 * -E2BIG past 4 GiB. */
static s64 resolve_size(const struct btf *btf, u32 id)
{
	u64 nelems = 1;

	for (int depth = 0; depth < RESOLVE_DEPTH; depth++) {
		const struct btf_type *t = btf_type_by_id(btf, id);

		if (!t)
			return -EINVAL;
		switch (kind_of(t)) {
		case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_ENUM64: case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: case BTF_KIND_FLOAT: case BTF_KIND_DATASEC:
			if (nelems * t->size > UINT32_MAX)
				return -E2BIG;
			return (s64)(nelems * t->size);
		case BTF_KIND_PTR:
			return (s64)(nelems * 8);
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG: case BTF_KIND_VAR:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			nelems *= array_of(t)->nelems;
			if (nelems > UINT32_MAX)
				return -E2BIG;
			id = array_of(t)->type;
			break;
		default:
			return -EINVAL;
		}
	}
	return -EINVAL;
}

u32 core_essential_name_len(const char *name)
{
	size_t n = strlen(name);

	/* the last "X___Y" with X and Y not underscores: the name ends after X */
	for (long i = (long)n - 5; i >= 0; i--) {
		const char *s = name + i;

		if (s[0] != '_' && s[1] == '_' && s[2] == '_' && s[3] == '_' && s[4] != '_')
			return (u32)i + 1;
	}
	return (u32)n;
}

static bool kinds_compat(const struct btf_type *a, const struct btf_type *b)
{
	return kind_of(a) == kind_of(b) || (is_any_enum(a) && is_any_enum(b));
}

static bool names_equal_essential(const char *a, const char *b)
{
	u32 la = core_essential_name_len(a), lb = core_essential_name_len(b);

	return la == lb && !strncmp(a, b, la);
}

/* ---- type compatibility (TYPE_EXISTS, TYPE_SIZE, TYPE_ID_TARGET) ---- */

/* A kind neither relation has a rule for: not compatible, with the engine's message. */
static int unexpected_kind(const struct core_who *who, const struct btf_type *lt, u32 lid,
			   u32 tid)
{
	say(who, "unexpected kind %s relocated, local [%u], target [%u]\n", kind_name(who, lt), lid,
	    tid);
	return 0;
}

/* Whether local_id and targ_id (names already matched) have compatible shapes: same kinds
 * (enum and enum64 alike), pointers and arrays by their targets, function prototypes by their
 * arguments and return.  level bounds the prototype nesting. */
static int types_are_compat(const struct core_who *who, const struct btf *lb, u32 lid,
			    const struct btf *tb, u32 tid, int level)
{
	const struct btf_type *lt = btf_type_by_id(lb, lid), *tt = btf_type_by_id(tb, tid);

	if (!lt || !tt || !kinds_compat(lt, tt))
		return 0;
	for (int depth = 32; depth > 0; depth--) {
		lt = skip_mods(lb, lid, &lid);
		tt = skip_mods(tb, tid, &tid);
		if (!lt || !tt)
			return -EINVAL;
		if (!kinds_compat(lt, tt))
			return 0;
		switch (kind_of(lt)) {
		case BTF_KIND_UNKN: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
		case BTF_KIND_FWD: case BTF_KIND_ENUM64:
			return 1;
		case BTF_KIND_INT:
			/* old-style bitfield integers are the only incompatible ones */
			return int_offset(lt) == 0 && int_offset(tt) == 0;
		case BTF_KIND_PTR:
			lid = lt->type;
			tid = tt->type;
			continue;
		case BTF_KIND_ARRAY:
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			continue;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *lp = params(lt), *tp = params(tt);

			if (vlen_of(lt) != vlen_of(tt))
				return 0;
			for (u32 i = 0; i < vlen_of(lt); i++) {
				u32 a, b;
				int r;

				if (level <= 0)
					return -EINVAL;
				skip_mods(lb, lp[i].type, &a);
				skip_mods(tb, tp[i].type, &b);
				r = types_are_compat(who, lb, a, tb, b, level - 1);
				if (r <= 0)
					return r;
			}
			skip_mods(lb, lt->type, &lid);
			skip_mods(tb, tt->type, &tid);
			continue;
		}
		default:
			return unexpected_kind(who, lt, lid, tid);
		}
	}
	return -EINVAL;
}

/* ---- type match (TYPE_MATCHES): a stricter, member-by-member relation ---- */

static bool names_match(const struct btf *lb, u32 loff, const struct btf *tb, u32 toff)
{
	const char *l = name_of(lb, loff), *t = name_of(tb, toff);

	if (str_empty(t))
		return str_empty(l);
	return !str_empty(l) && names_equal_essential(l, t);
}

static int types_match(const struct core_who *who, const struct btf *lb, u32 lid,
		       const struct btf *tb, u32 tid, bool behind_ptr, int level);

static int enums_match(const struct btf *lb, const struct btf_type *lt, const struct btf *tb,
		       const struct btf_type *tt)
{
	if (lt->size != tt->size || vlen_of(lt) > vlen_of(tt))
		return 0;
	/* every local enumerator has a namesake in the target; values are not compared */
	for (u32 i = 0; i < vlen_of(lt); i++) {
		bool found = false;

		for (u32 j = 0; j < vlen_of(tt) && !found; j++)
			found = names_match(lb, enumerator_name(lt, i), tb, enumerator_name(tt, j));
		if (!found)
			return 0;
	}
	return 1;
}

static int composites_match(const struct core_who *who, const struct btf *lb,
			    const struct btf_type *lt, const struct btf *tb,
			    const struct btf_type *tt, bool behind_ptr, int level)
{
	if (vlen_of(lt) > vlen_of(tt))
		return 0;
	for (u32 i = 0; i < vlen_of(lt); i++) {
		const struct btf_member *lm = members(lt) + i;
		bool found = false;

		for (u32 j = 0; j < vlen_of(tt) && !found; j++) {
			const struct btf_member *tm = members(tt) + j;
			int r;

			if (!names_match(lb, lm->name_off, tb, tm->name_off))
				continue;
			r = types_match(who, lb, lm->type, tb, tm->type, behind_ptr, level - 1);
			if (r < 0)
				return r;
			found = r > 0;
		}
		if (!found)
			return 0;
	}
	return 1;
}

static int types_match(const struct core_who *who, const struct btf *lb, u32 lid,
		       const struct btf *tb, u32 tid, bool behind_ptr, int level)
{
	if (level <= 0)
		return -EINVAL;
	for (int depth = 32; depth > 0; depth--) {
		const struct btf_type *lt = skip_mods(lb, lid, &lid), *tt = skip_mods(tb, tid, &tid);
		u32 lk, tk;

		if (!lt || !tt)
			return -EINVAL;
		if (!names_match(lb, lt->name_off, tb, tt->name_off))
			return 0;
		lk = kind_of(lt);
		tk = kind_of(tt);
		switch (lk) {
		case BTF_KIND_UNKN:
			return lk == tk;
		case BTF_KIND_FWD: {
			bool lf = BTF_INFO_KFLAG(lt->info);

			if (lk == tk)
				return lf == BTF_INFO_KFLAG(tt->info);
			/* behind a pointer, a declaration matches its definition (kflag: union) */
			return behind_ptr && ((tk == BTF_KIND_STRUCT && !lf) ||
					      (tk == BTF_KIND_UNION && lf));
		}
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return is_any_enum(tt) ? enums_match(lb, lt, tb, tt) : 0;
		case BTF_KIND_STRUCT: case BTF_KIND_UNION:
			if (behind_ptr) {
				if (lk == tk)
					return 1;
				return tk == BTF_KIND_FWD &&
				       (lk == BTF_KIND_UNION) == (bool)BTF_INFO_KFLAG(tt->info);
			}
			if (lk != tk)
				return 0;
			return composites_match(who, lb, lt, tb, tt, behind_ptr, level);
		case BTF_KIND_INT:
			if (lk != tk)
				return 0;
			return lt->size == tt->size &&
			       (int_encoding(lt) & BTF_INT_SIGNED) == (int_encoding(tt) & BTF_INT_SIGNED);
		case BTF_KIND_PTR:
			if (lk != tk)
				return 0;
			behind_ptr = true;
			lid = lt->type;
			tid = tt->type;
			continue;
		case BTF_KIND_ARRAY:
			if (lk != tk || array_of(lt)->nelems != array_of(tt)->nelems)
				return 0;
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			continue;
		case BTF_KIND_FUNC_PROTO:
			if (lk != tk || vlen_of(lt) != vlen_of(tt))
				return 0;
			for (u32 i = 0; i < vlen_of(lt); i++) {
				int r = types_match(who, lb, params(lt)[i].type, tb, params(tt)[i].type,
						    behind_ptr, level - 1);

				if (r <= 0)
					return r;
			}
			lid = lt->type;
			tid = tt->type;
			continue;
		default:
			return unexpected_kind(who, lt, lid, tid);
		}
	}
	return -EINVAL;
}

/* ---- specs ---- */

static bool is_field_kind(u32 k) { return k <= BPF_CORE_FIELD_RSHIFT_U64; }
static bool is_type_kind(u32 k)
{
	return k == BPF_CORE_TYPE_ID_LOCAL || k == BPF_CORE_TYPE_ID_TARGET ||
	       k == BPF_CORE_TYPE_EXISTS || k == BPF_CORE_TYPE_SIZE || k == BPF_CORE_TYPE_MATCHES;
}
static bool is_enumval_kind(u32 k)
{
	return k == BPF_CORE_ENUMVAL_EXISTS || k == BPF_CORE_ENUMVAL_VALUE;
}

/* An array with no elements as the last member of a struct: indexes beyond 0 are fine. */
static bool is_flex_array(const struct btf *btf, const struct acc *parent, const struct btf_array *a)
{
	if (!parent->name || a->nelems > 0)
		return false;
	return parent->idx == vlen_of(btf_type_by_id(btf, parent->type_id)) - 1;
}

/* Parses relo's access string against the local BTF into *s.  0 or -errno. */
static int parse_spec(const struct core_who *who, const struct btf *btf,
		      const struct bpf_core_relo *relo, struct spec *s)
{
	const char *str = name_of(btf, relo->access_str_off), *p;
	const struct btf_type *t;
	u32 id;
	s64 sz;

	if (str_empty(str) || *str == ':')
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->btf = btf;
	s->root_type_id = relo->type_id;
	s->kind = relo->kind;
	if (is_type_kind(relo->kind))
		return strcmp(str, "0") ? -EINVAL : 0;

	for (p = str; *p;) {
		int v, n;

		if (*p == ':')
			p++;
		if (sscanf(p, "%d%n", &v, &n) != 1 || v < 0)
			return -EINVAL;
		if (s->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		p += n;
		s->raw[s->raw_len++] = v;
	}
	if (!s->raw_len)
		return -EINVAL;
	t = skip_mods(btf, relo->type_id, &id);
	if (!t)
		return -EINVAL;
	s->acc[0].type_id = id;
	s->acc[0].idx = (u32)s->raw[0];
	s->len = 1;

	if (is_enumval_kind(relo->kind)) {
		if (!is_any_enum(t) || s->raw_len > 1 || (u32)s->raw[0] >= vlen_of(t))
			return -EINVAL;
		s->acc[0].name = name_of(btf, enumerator_name(t, (u32)s->raw[0]));
		return 0;
	}
	if (!is_field_kind(relo->kind))
		return -EINVAL;

	sz = resolve_size(btf, id);
	if (sz < 0)
		return (int)sz;
	s->bit_offset = (u32)(s->raw[0] * sz * 8);
	for (int i = 1; i < s->raw_len; i++) {
		u32 idx = (u32)s->raw[i];

		t = skip_mods(btf, id, &id);
		if (!t)
			return -EINVAL;
		if (is_composite(t)) {
			const struct btf_member *m;

			if (idx >= vlen_of(t))
				return -EINVAL;
			s->bit_offset += member_bit_offset(t, idx);
			m = members(t) + idx;
			if (m->name_off) {
				const char *name = name_of(btf, m->name_off);

				if (str_empty(name))
					return -EINVAL;
				s->acc[s->len++] = (struct acc){ id, idx, name };
			}
			id = m->type;
		} else if (kind_of(t) == BTF_KIND_ARRAY) {
			const struct btf_array *a = array_of(t);
			bool flex = is_flex_array(btf, &s->acc[s->len - 1], a);

			if (!skip_mods(btf, a->type, &id))
				return -EINVAL;
			if (!flex && idx >= a->nelems)
				return -EINVAL;
			s->acc[s->len++] = (struct acc){ id, idx, NULL };
			sz = resolve_size(btf, id);
			if (sz < 0)
				return (int)sz;
			s->bit_offset += (u32)(idx * sz * 8);
		} else {
			/* (the string as left by the parse: its end, as the kernel's and libbpf's print) */
			say(who, "prog '%s': relo for [%u] %s (at idx %d) captures type [%u] of unexpected kind %s\n",
			    who->prog, relo->type_id, p, i, id, kind_name(who, t));
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether a local field's type may be relocated to a target field's: composites with
 * composites, same kinds otherwise; enums and declarations by name (or one anonymous),
 * integers of any size and sign (not old-style bitfields), arrays by their elements. */
static int fields_are_compat(const struct btf *lb, u32 lid, const struct btf *tb, u32 tid)
{
	for (int depth = 0; depth < RESOLVE_DEPTH; depth++) {
		const struct btf_type *lt = skip_mods(lb, lid, &lid), *tt = skip_mods(tb, tid, &tid);

		if (!lt || !tt)
			return -EINVAL;
		if (is_composite(lt) && is_composite(tt))
			return 1;
		if (!kinds_compat(lt, tt))
			return 0;
		switch (kind_of(lt)) {
		case BTF_KIND_PTR: case BTF_KIND_FLOAT:
			return 1;
		case BTF_KIND_FWD: case BTF_KIND_ENUM: case BTF_KIND_ENUM64: {
			const char *ln = name_of(lb, lt->name_off), *tn = name_of(tb, tt->name_off);
			u32 ll = ln ? core_essential_name_len(ln) : 0;
			u32 tl = tn ? core_essential_name_len(tn) : 0;

			return !ll || !tl || (ll == tl && !strncmp(ln, tn, ll));
		}
		case BTF_KIND_INT:
			return int_offset(lt) == 0 && int_offset(tt) == 0;
		case BTF_KIND_ARRAY:
			lid = array_of(lt)->type;
			tid = array_of(tt)->type;
			continue;
		default:
			return 0;
		}
	}
	return -EINVAL;
}

/* Finds the target member named as local accessor la's, in targ_id or (depth first) in its
 * anonymous members, extending s's raw view and bit offset on the way.  1 found and
 * compatible, 0 not, -errno. */
static int match_member(const struct btf *lb, const struct acc *la, const struct btf *tb,
			u32 targ_id, struct spec *s, u32 *next_id)
{
	const struct btf_type *tt = skip_mods(tb, targ_id, &targ_id), *lt;
	const struct btf_member *lm;
	const char *lname;

	if (!tt)
		return -EINVAL;
	if (!is_composite(tt))
		return 0;
	lt = btf_type_by_id(lb, la->type_id);
	lm = members(lt) + la->idx;
	lname = name_of(lb, lm->name_off);
	for (u32 i = 0; i < vlen_of(tt); i++) {
		const struct btf_member *m = members(tt) + i;
		u32 bit = member_bit_offset(tt, i);
		const char *tname;
		int r;

		if (s->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		/* tentatively take this member */
		s->bit_offset += bit;
		s->raw[s->raw_len++] = (int)i;
		tname = name_of(tb, m->name_off);
		if (str_empty(tname)) {
			r = match_member(lb, la, tb, m->type, s, next_id);
			if (r)
				return r;
		} else if (!strcmp(lname, tname)) {
			s->acc[s->len++] = (struct acc){ targ_id, i, tname };
			*next_id = m->type;
			r = fields_are_compat(lb, lm->type, tb, m->type);
			if (!r)
				s->len--;
			return r;
		}
		s->bit_offset -= bit;
		s->raw_len--;
	}
	return 0;
}

/* Matches local spec ls against target type targ_id into ts: 1 matched, 0 not, -errno. */
static int spec_match(const struct core_who *who, const struct spec *ls, const struct btf *tb,
		      u32 targ_id, struct spec *ts)
{
	memset(ts, 0, sizeof(*ts));
	ts->btf = tb;
	ts->root_type_id = targ_id;
	ts->kind = ls->kind;

	if (is_type_kind(ls->kind)) {
		if (ls->kind == BPF_CORE_TYPE_MATCHES)
			return types_match(who, ls->btf, ls->root_type_id, tb, targ_id, false,
					   who->kernel ? 2 : 32);
		return types_are_compat(who, ls->btf, ls->root_type_id, tb, targ_id,
					who->kernel ? 2 : 32);
	}
	if (is_enumval_kind(ls->kind)) {
		const struct btf_type *tt = skip_mods(tb, targ_id, &targ_id);
		const char *lname = ls->acc[0].name;

		if (!is_any_enum(tt) || !lname)
			return 0;
		for (u32 i = 0; i < vlen_of(tt); i++) {
			const char *tname = name_of(tb, enumerator_name(tt, i));

			if (tname && names_equal_essential(lname, tname)) {
				ts->acc[0] = (struct acc){ targ_id, i, tname };
				ts->len = 1;
				ts->raw[0] = (int)i;
				ts->raw_len = 1;
				return 1;
			}
		}
		return 0;
	}
	if (!is_field_kind(ls->kind))
		return -EINVAL;

	for (int i = 0; i < ls->len; i++) {
		const struct acc *la = &ls->acc[i];
		const struct btf_type *tt = skip_mods(tb, targ_id, &targ_id);
		s64 sz;

		if (!tt)
			return -EINVAL;
		if (la->name) {
			int r = match_member(ls->btf, la, tb, targ_id, ts, &targ_id);

			if (r <= 0)
				return r;
			continue;
		}
		/* an index: the root's is on the pointer itself, the others need an array */
		if (i > 0) {
			const struct btf_array *a;

			if (kind_of(tt) != BTF_KIND_ARRAY)
				return 0;
			a = array_of(tt);
			if (!is_flex_array(tb, &ts->acc[ts->len - 1], a) && la->idx >= a->nelems)
				return 0;
			if (!skip_mods(tb, a->type, &targ_id))
				return -EINVAL;
		}
		if (ts->raw_len == SPEC_MAX_LEN)
			return -E2BIG;
		ts->acc[ts->len++] = (struct acc){ targ_id, la->idx, NULL };
		ts->raw[ts->raw_len++] = (int)la->idx;
		sz = resolve_size(tb, targ_id);
		if (sz < 0)
			return (int)sz;
		ts->bit_offset += (u32)(la->idx * sz * 8);
	}
	return 1;
}

/* "<byte_off> [7] STRUCT foo.a[2] (0:1:2 @ offset 12)", into buf (cut to fit); the length
 * the whole text has. */
static size_t format_spec(const struct core_who *who, char *buf, size_t size, const struct spec *s)
{
	const struct btf_type *t = type_or_void(s->btf, s->root_type_id);
	const char *name = t ? name_of(s->btf, t->name_off) : NULL;
	size_t len = 0, total = 0;

#define APPEND(...)                                                                              \
	do {                                                                                     \
		int r_ = snprintf(buf + len, size - len, __VA_ARGS__);                           \
		if (r_ > 0) {                                                                    \
			total += (size_t)r_;                                                     \
			len = len + (size_t)r_ >= size ? size - 1 : len + (size_t)r_;            \
		}                                                                                \
	} while (0)

	buf[0] = '\0';
	APPEND("<%s> [%u] %s %s", relo_kind_str(s->kind), s->root_type_id,
	       t ? kind_name(who, t) : "UNKNOWN", str_empty(name) ? "<anon>" : name);
	if (is_type_kind(s->kind) || !t)
		return total;
	if (is_enumval_kind(s->kind)) {
		const struct btf_type *e = skip_mods(s->btf, s->root_type_id, NULL);
		u32 i = (u32)s->raw[0];
		const char *en = name_of(s->btf, enumerator_name(e, i));
		u64 v = enumerator_value(e, i);
		bool sgn = BTF_INFO_KFLAG(e->info);

		if (kind_of(e) == BTF_KIND_ENUM) {
			if (sgn)
				APPEND("::%s = %d", en, (s32)v);
			else
				APPEND("::%s = %u", en, (u32)v);
		} else if (sgn) {
			APPEND("::%s = %lld", en, (long long)v);
		} else {
			APPEND("::%s = %llu", en, (unsigned long long)v);
		}
		return total;
	}
	for (int i = 0; i < s->len; i++) {
		if (s->acc[i].name)
			APPEND(".%s", s->acc[i].name);
		else if (i > 0 || s->acc[i].idx > 0)
			APPEND("[%u]", s->acc[i].idx);
	}
	APPEND(" (");
	for (int i = 0; i < s->raw_len; i++)
		APPEND("%s%d", i ? ":" : "", s->raw[i]);
	if (s->bit_offset % 8)
		APPEND(" @ offset %u.%u)", s->bit_offset / 8, s->bit_offset % 8);
	else
		APPEND(" @ offset %u)", s->bit_offset / 8);
#undef APPEND
	return total;
}

int core_format_local_spec(const struct core_who *who, const struct btf *local,
			   const struct bpf_core_relo *relo, char *buf, size_t size, size_t *len)
{
	struct spec *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = parse_spec(who, local, relo, s);
	if (!err)
		*len = format_spec(who, buf, size, s);
	free(s);
	return err;
}

/* ---- values ---- */

/* A field relocation's value for spec s (NULL: nothing matched).  *field_sz and *type_id: the
 * field's size and type where a load or store may follow it (not bitfields).  -EUCLEAN asks for
 * the instruction to be poisoned. */
static int calc_field(const struct core_who *who, const struct bpf_core_relo *relo,
		      const struct spec *s, u64 *val, u32 *field_sz, u32 *type_id, bool *validate)
{
	const struct acc *a;
	const struct btf_type *t, *mt;
	u32 byte_off, byte_sz, bit_off, bit_sz, ftype;
	bool bitfield;
	s64 sz;

	*field_sz = 0;
	if (relo->kind == BPF_CORE_FIELD_EXISTS) {
		*val = s ? 1 : 0;
		return 0;
	}
	if (!s)
		return -EUCLEAN;
	a = &s->acc[s->len - 1];
	t = btf_type_by_id(s->btf, a->type_id);
	if (!a->name) { /* the access ends on an array element */
		if (relo->kind != BPF_CORE_FIELD_BYTE_OFFSET && relo->kind != BPF_CORE_FIELD_BYTE_SIZE) {
			say(who, "prog '%s': relo %d at insn #%d can't be applied to array access\n",
			    who->prog, relo->kind, relo->insn_off / 8);
			return -EINVAL;
		}
		sz = resolve_size(s->btf, a->type_id);
		if (sz < 0)
			return -EINVAL;
		if (relo->kind == BPF_CORE_FIELD_BYTE_OFFSET) {
			*val = s->bit_offset / 8;
			*field_sz = (u32)sz; /* a load or store of the element */
			*type_id = a->type_id;
		} else {
			*val = (u64)sz;
		}
		if (validate)
			*validate = true;
		return 0;
	}
	mt = skip_mods(s->btf, members(t)[a->idx].type, &ftype);
	bit_off = s->bit_offset;
	bit_sz = member_bitfield_size(t, a->idx);
	bitfield = bit_sz > 0;
	if (bitfield) {
		/* the smallest naturally aligned load that holds every bit of it */
		byte_sz = mt->size;
		byte_off = bit_off / 8 / byte_sz * byte_sz;
		while (bit_off + bit_sz - byte_off * 8 > byte_sz * 8) {
			if (byte_sz >= 8) {
				say(who, "prog '%s': relo %d at insn #%d can't be satisfied for bitfield\n",
				    who->prog, relo->kind, relo->insn_off / 8);
				return -E2BIG;
			}
			byte_sz *= 2;
			byte_off = bit_off / 8 / byte_sz * byte_sz;
		}
	} else {
		sz = resolve_size(s->btf, ftype);
		if (sz < 0)
			return -EINVAL;
		byte_sz = (u32)sz;
		byte_off = bit_off / 8;
		bit_sz = byte_sz * 8;
	}
	/* a bitfield's offset and size are the loader's choice, not clang's: no check */
	if (validate)
		*validate = !bitfield;
	switch (relo->kind) {
	case BPF_CORE_FIELD_BYTE_OFFSET:
		*val = byte_off;
		if (!bitfield) {
			*field_sz = byte_sz;
			*type_id = ftype;
		}
		break;
	case BPF_CORE_FIELD_BYTE_SIZE:
		*val = byte_sz;
		break;
	case BPF_CORE_FIELD_SIGNED:
		*val = (is_any_enum(mt) && BTF_INFO_KFLAG(mt->info)) ||
		       (kind_of(mt) == BTF_KIND_INT && (int_encoding(mt) & BTF_INT_SIGNED));
		if (validate)
			*validate = true;
		break;
	case BPF_CORE_FIELD_LSHIFT_U64:
		*val = 64 - (bit_off + bit_sz - byte_off * 8); /* little-endian */
		break;
	case BPF_CORE_FIELD_RSHIFT_U64:
		*val = 64 - bit_sz;
		if (validate)
			*validate = true;
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

static int calc_type(const struct bpf_core_relo *relo, const struct spec *s, u64 *val,
		     bool *validate)
{
	s64 sz;

	if (validate)
		*validate = true;
	if (!s) { /* no such type: 0 for every kind */
		*val = 0;
		return 0;
	}
	switch (relo->kind) {
	case BPF_CORE_TYPE_ID_TARGET:
		*val = s->root_type_id;
		if (validate) /* ids change when objects are linked: nothing to check */
			*validate = false;
		return 0;
	case BPF_CORE_TYPE_EXISTS:
	case BPF_CORE_TYPE_MATCHES:
		*val = 1;
		return 0;
	case BPF_CORE_TYPE_SIZE:
		sz = resolve_size(s->btf, s->root_type_id);
		if (sz < 0)
			return -EINVAL;
		*val = (u64)sz;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int calc_enumval(const struct bpf_core_relo *relo, const struct spec *s, u64 *val)
{
	switch (relo->kind) {
	case BPF_CORE_ENUMVAL_EXISTS:
		*val = s ? 1 : 0;
		return 0;
	case BPF_CORE_ENUMVAL_VALUE:
		if (!s)
			return -EUCLEAN;
		*val = enumerator_value(btf_type_by_id(s->btf, s->acc[0].type_id), s->acc[0].idx);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* The relocation's values for the local spec and one target spec (NULL: none matched). */
static int calc_relo(const struct core_who *who, const struct bpf_core_relo *relo, int relo_idx,
		     const struct spec *ls, const struct spec *ts, struct core_res *res)
{
	int err = -EOPNOTSUPP;

	memset(res, 0, sizeof(*res));
	res->validate = true;
	if (is_field_kind(relo->kind)) {
		err = calc_field(who, relo, ls, &res->orig_val, &res->orig_sz, &res->orig_type_id,
				 &res->validate);
		if (!err)
			err = calc_field(who, relo, ts, &res->new_val, &res->new_sz,
					 &res->new_type_id, NULL);
		if (!err && res->orig_sz != res->new_sz) {
			const struct btf_type *o = btf_type_by_id(ls->btf, res->orig_type_id);
			const struct btf_type *n = btf_type_by_id(ts->btf, res->new_type_id);

			/* a load may change size only for pointers (a 32-bit kernel's) and unsigned
			 * integers, whose values zero extension keeps */
			if (o && n && kind_of(o) == BTF_KIND_PTR && kind_of(n) == BTF_KIND_PTR)
				;
			else if (o && n && kind_of(o) == BTF_KIND_INT && kind_of(n) == BTF_KIND_INT &&
				 int_encoding(o) != BTF_INT_SIGNED && int_encoding(n) != BTF_INT_SIGNED)
				;
			else
				res->fail_memsz_adjust = true;
		}
	} else if (is_type_kind(relo->kind)) {
		err = calc_type(relo, ls, &res->orig_val, &res->validate);
		if (!err)
			err = calc_type(relo, ts, &res->new_val, NULL);
	} else if (is_enumval_kind(relo->kind)) {
		err = calc_enumval(relo, ls, &res->orig_val);
		if (!err)
			err = calc_enumval(relo, ts, &res->new_val);
	}
	if (err == -EUCLEAN) {
		res->poison = true;
		err = 0;
	} else if (err == -EOPNOTSUPP) {
		say(who, "prog '%s': relo #%d: unrecognized CO-RE relocation %s (%d) at insn #%d\n",
		    who->prog, relo_idx, relo_kind_str(relo->kind), relo->kind, relo->insn_off / 8);
	}
	return err;
}

int core_calc_relo_insn(const struct core_who *who, const struct bpf_core_relo *relo, int relo_idx,
			const struct btf *local, struct core_cands *cands, struct core_res *res)
{
	struct spec *specs, *ls, *cs, *ts;
	const struct btf_type *lt = type_or_void(local, relo->type_id);
	const char *lname;
	char buf[256];
	u32 kept = 0;
	int err = 0;

	if (!lt)
		return -EINVAL;
	lname = name_of(local, lt->name_off);
	if (!lname)
		return -EINVAL;
	specs = calloc(3, sizeof(*specs)); /* ~2 KiB each: off the stack */
	if (!specs)
		return -ENOMEM;
	ls = &specs[0];
	cs = &specs[1];
	ts = &specs[2];

	err = parse_spec(who, local, relo, ls);
	if (err) {
		const char *str = name_of(local, relo->access_str_off);

		say(who, "prog '%s': relo #%d: parsing [%u] %s %s + %s failed: %d\n", who->prog,
		    relo_idx, relo->type_id, kind_name(who, lt), str_empty(lname) ? "<anon>" : lname,
		    str ? str : "<?>", err);
		err = -EINVAL;
		goto out;
	}
	format_spec(who, buf, sizeof(buf), ls);
	say(who, "prog '%s': relo #%d: %s\n", who->prog, relo_idx, buf);

	if (relo->kind == BPF_CORE_TYPE_ID_LOCAL) { /* the program's own id: no search */
		memset(res, 0, sizeof(*res));
		res->orig_val = res->new_val = ls->root_type_id;
		goto out;
	}
	if (str_empty(lname)) {
		say(who, "prog '%s': relo #%d: <%s> (%d) relocation doesn't support anonymous types\n",
		    who->prog, relo_idx, relo_kind_str(relo->kind), relo->kind);
		err = -EOPNOTSUPP;
		goto out;
	}
	for (u32 i = 0; i < cands->len; i++) {
		struct core_res cres;
		int r = spec_match(who, ls, cands->v[i].btf, cands->v[i].id, cs);

		format_spec(who, buf, sizeof(buf), cs);
		if (r < 0) {
			say(who, "prog '%s': relo #%d: error matching candidate #%u %s: %d\n",
			    who->prog, relo_idx, i, buf, r);
			err = r;
			goto out;
		}
		say(who, "prog '%s': relo #%d: %s candidate #%u %s\n", who->prog, relo_idx,
		    r ? "matching" : "non-matching", i, buf);
		if (!r)
			continue;
		err = calc_relo(who, relo, relo_idx, ls, cs, &cres);
		if (err)
			goto out;
		if (!kept) {
			*res = cres;
			*ts = *cs;
		} else if (cs->bit_offset != ts->bit_offset) {
			say(who, "prog '%s': relo #%d: field offset ambiguity: %u != %u\n", who->prog,
			    relo_idx, cs->bit_offset, ts->bit_offset);
			err = -EINVAL;
			goto out;
		} else if (cres.poison != res->poison || cres.new_val != res->new_val) {
			say(who, "prog '%s': relo #%d: relocation decision ambiguity: %s %llu != %s %llu\n",
			    who->prog, relo_idx, cres.poison ? "failure" : "success",
			    (unsigned long long)cres.new_val, res->poison ? "failure" : "success",
			    (unsigned long long)res->new_val);
			err = -EINVAL;
			goto out;
		}
		cands->v[kept++] = cands->v[i];
	}
	if (kept) {
		cands->len = kept;
	} else {
		/* nothing matched: existence checks say 0, the rest poison their instruction */
		say(who, "prog '%s': relo #%d: no matching targets found\n", who->prog, relo_idx);
		err = calc_relo(who, relo, relo_idx, ls, NULL, res);
	}
out:
	free(specs);
	return err;
}

/* ---- patching ---- */

static void poison(const struct core_who *who, int relo_idx, u32 idx, struct bpf_insn *insn)
{
	say(who, "prog '%s': relo #%d: substituting insn #%u w/ invalid insn\n", who->prog, relo_idx,
	    idx);
	*insn = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = CORE_POISON_IMM };
}

static int size_bytes(u8 code)
{
	switch (BPF_SIZE(code)) {
	case BPF_DW: return 8;
	case BPF_W: return 4;
	case BPF_H: return 2;
	default: return 1;
	}
}

static int size_code(u32 bytes)
{
	switch (bytes) {
	case 8: return BPF_DW;
	case 4: return BPF_W;
	case 2: return BPF_H;
	case 1: return BPF_B;
	default: return -1;
	}
}

static bool is_ldimm64(const struct bpf_insn *insn)
{
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW);
}

int core_patch_insn(const struct core_who *who, struct bpf_insn *insns, u32 cnt, u32 idx,
		    const struct bpf_core_relo *relo, int relo_idx, const struct core_res *res)
{
	struct bpf_insn *insn = &insns[idx];
	u64 orig = res->orig_val, nv = res->new_val;
	const char *p = who->prog;
	u32 shown = relo->insn_off / 8; /* messages count from the relocation's frame */
	bool both;

	/* only these carry a relocatable value; anything else is refused even when the
	 * relocation would have poisoned it (6.18 checks the instruction's form first) */
	switch (BPF_CLASS(insn->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		if (BPF_SRC(insn->code) == BPF_K)
			break;
		goto unrecognized;
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		break;
	case BPF_LD:
		if (!is_ldimm64(insn) || idx + 1 >= cnt || insn[0].src_reg || insn[0].off ||
		    insn[1].code || insn[1].dst_reg || insn[1].src_reg || insn[1].off) {
			say(who, "prog '%s': relo #%d: insn #%u (LDIMM64) has unexpected form\n", p,
			    relo_idx, shown);
			return -EINVAL;
		}
		break;
	default:
unrecognized:
		say(who, "prog '%s': relo #%d: trying to relocate unrecognized insn #%u, code:0x%x, src:0x%x, dst:0x%x, off:0x%x, imm:0x%x\n",
		    p, relo_idx, shown, insn->code, insn->src_reg, insn->dst_reg, (u32)(s32)insn->off,
		    (u32)insn->imm);
		return -EINVAL;
	}
	if (res->poison) {
poison:
		/* both halves of an ldimm64, or the verifier would see "unknown opcode 00" (in
		 * this order, as 6.18 logs them) */
		both = is_ldimm64(insn) && idx + 1 < cnt;
		poison(who, relo_idx, shown, insn);
		if (both)
			poison(who, relo_idx, shown + 1, insn + 1);
		return 0;
	}
	switch (BPF_CLASS(insn->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		if (res->validate && (u64)(s64)insn->imm != orig) {
			say(who, "prog '%s': relo #%d: unexpected insn #%u (ALU/ALU64) value: got %u, exp %llu -> %llu\n",
			    p, relo_idx, shown, (u32)insn->imm, (unsigned long long)orig,
			    (unsigned long long)nv);
			return -EINVAL;
		}
		say(who, "prog '%s': relo #%d: patched insn #%u (ALU/ALU64) imm %llu -> %llu\n", p,
		    relo_idx, shown, (unsigned long long)(s64)insn->imm, (unsigned long long)nv);
		insn->imm = (s32)nv;
		return 0;
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		if (res->validate && (u64)(s64)insn->off != orig) {
			say(who, "prog '%s': relo #%d: unexpected insn #%u (LDX/ST/STX) value: got %u, exp %llu -> %llu\n",
			    p, relo_idx, shown, (u32)insn->off, (unsigned long long)orig,
			    (unsigned long long)nv);
			return -EINVAL;
		}
		if (nv > SHRT_MAX) {
			say(who, "prog '%s': relo #%d: insn #%u (LDX/ST/STX) value too big: %llu\n", p,
			    relo_idx, shown, (unsigned long long)nv);
			return -ERANGE;
		}
		if (res->fail_memsz_adjust) {
			say(who, "prog '%s': relo #%d: insn #%u (LDX/ST/STX) accesses field incorrectly. "
				 "Make sure you are accessing pointers, unsigned integers, or fields of matching type and size.\n",
			    p, relo_idx, shown);
			goto poison;
		}
		say(who, "prog '%s': relo #%d: patched insn #%u (LDX/ST/STX) off %llu -> %llu\n", p,
		    relo_idx, shown, (unsigned long long)(s64)insn->off, (unsigned long long)nv);
		insn->off = (s16)nv;
		if (res->new_sz != res->orig_sz) {
			int have = size_bytes(insn->code), code = size_code(res->new_sz);

			if (have != (int)res->orig_sz) {
				say(who, "prog '%s': relo #%d: insn #%u (LDX/ST/STX) unexpected mem size: got %d, exp %u\n",
				    p, relo_idx, shown, have, res->orig_sz);
				return -EINVAL;
			}
			if (code < 0) {
				say(who, "prog '%s': relo #%d: insn #%u (LDX/ST/STX) invalid new mem size: %u\n",
				    p, relo_idx, shown, res->new_sz);
				return -EINVAL;
			}
			insn->code = (u8)(BPF_MODE(insn->code) | code | BPF_CLASS(insn->code));
			say(who, "prog '%s': relo #%d: patched insn #%u (LDX/ST/STX) mem_sz %u -> %u\n", p,
			    relo_idx, shown, res->orig_sz, res->new_sz);
		}
		return 0;
	case BPF_LD: {
		u64 imm;

		imm = (u32)insn[0].imm | (u64)(u32)insn[1].imm << 32;
		if (res->validate && imm != orig) {
			say(who, "prog '%s': relo #%d: unexpected insn #%u (LDIMM64) value: got %llu, exp %llu -> %llu\n",
			    p, relo_idx, shown, (unsigned long long)imm, (unsigned long long)orig,
			    (unsigned long long)nv);
			return -EINVAL;
		}
		insn[0].imm = (s32)(u32)nv;
		insn[1].imm = (s32)(u32)(nv >> 32);
		say(who, "prog '%s': relo #%d: patched insn #%u (LDIMM64) imm64 %llu -> %llu\n", p,
		    relo_idx, shown, (unsigned long long)imm, (unsigned long long)nv);
		return 0;
	}
	default:
		goto unrecognized;
	}
}

/* ---- candidates ---- */

int core_cands_add(const struct core_who *who, const struct btf *local, u32 local_id,
		   const struct btf *targ, struct core_cands *out)
{
	const struct btf_type *lt = btf_type_by_id(local, local_id);
	const char *lname = lt ? name_of(local, lt->name_off) : NULL;
	u32 len;

	if (str_empty(lname))
		return -EINVAL;
	len = core_essential_name_len(lname);
	for (u32 id = 1; id < targ->nr_types; id++) {
		const struct btf_type *t = targ->types[id];
		const char *n;
		struct core_cand *v;

		if (who->kernel ? kind_of(t) != kind_of(lt) : !kinds_compat(t, lt))
			continue;
		n = name_of(targ, t->name_off);
		if (str_empty(n) || strncmp(n, lname, len) || core_essential_name_len(n) != len)
			continue;
		v = realloc(out->v, (out->len + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		out->v = v;
		v[out->len++] = (struct core_cand){ targ, id };
	}
	return 0;
}
