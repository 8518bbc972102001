/* Reading BTF-defined maps: just enough of the .BTF section to decode the structs of `.maps`.
 *
 * libbpf's bpf_helpers.h encodes a map definition in the *type* of a variable:
 *   __uint(name, val)  is  int (*name)[val]      (a pointer to an array of val ints)
 *   __type(name, T)    is  typeof(T) *name       (a pointer to T; the field's size is T's)
 * so a definition is a STRUCT whose members are pointers, found as a VAR of the DATASEC named
 * ".maps".  Algorithm: check the header, walk the type section once to index every type by id
 * (each kind's trailing records sized from its vlen), then for each map name look up the VAR
 * in DATASEC .maps and decode its struct's members.
 *
 * Invariants: after btf_index() every id < nr has its record entirely inside the type section;
 * every name offset is checked against the string section, which ends with a NUL.  Records are
 * read with memcpy (a malformed object may misalign them).  Type chains are followed at most
 * MAX_CHAIN links, so a cyclic typedef cannot loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>

#include "loader.h"

#define MAX_CHAIN 32
#define INFO_ENC(kind, kflag, vlen) ((u32)(kflag) << 31 | (u32)(kind) << 24 | (u32)(vlen))

struct btf {
	const struct userbpf_object *obj;
	const u8 *types;
	u32 types_len;
	const char *strs;
	u32 strs_len;
	u32 nr;	   /* number of ids, including void (0) */
	u32 *offs; /* offs[id]: byte offset of type id in types[], id >= 1 */
};

static void btf_type_at(const struct btf *btf, u32 id, struct btf_type *t)
{
	memcpy(t, btf->types + btf->offs[id], sizeof(*t));
}

/* The records after type id's struct btf_type. */
static const u8 *btf_extra(const struct btf *btf, u32 id)
{
	return btf->types + btf->offs[id] + sizeof(struct btf_type);
}

static const char *btf_str(const struct btf *btf, u32 off)
{
	return off < btf->strs_len ? btf->strs + off : NULL;
}

/* Bytes of records following a type of this kind and vlen; -1 for an unknown kind. */
static long extra_size(u32 kind, u32 vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

static int btf_index(struct btf *btf, const u8 *data, size_t size)
{
	const struct userbpf_object *obj = btf->obj;
	struct btf_header hdr;
	u32 cap = 64, off = 0;

	if (size < sizeof(hdr))
		return ld_err(obj, -EBADMSG, "section '.BTF': %zu bytes, too short for a header",
			      size);
	memcpy(&hdr, data, sizeof(hdr));
	if (hdr.magic != BTF_MAGIC)
		return ld_err(obj, -EBADMSG, "section '.BTF': bad magic 0x%04x", hdr.magic);
	if (hdr.version != BTF_VERSION)
		return ld_err(obj, -EOPNOTSUPP, "section '.BTF': version %u is not %u", hdr.version,
			      BTF_VERSION);
	/* u64 sums: offset + length of each part cannot wrap. */
	if (hdr.hdr_len < sizeof(hdr) || hdr.hdr_len > size ||
	    (u64)hdr.type_off + hdr.type_len > size - hdr.hdr_len ||
	    (u64)hdr.str_off + hdr.str_len > size - hdr.hdr_len)
		return ld_err(obj, -EBADMSG,
			      "section '.BTF': type or string section lies outside "
			      "its %zu bytes",
			      size);
	btf->types = data + hdr.hdr_len + hdr.type_off;
	btf->types_len = hdr.type_len;
	btf->strs = (const char *)data + hdr.hdr_len + hdr.str_off;
	btf->strs_len = hdr.str_len;
	if (!btf->strs_len || btf->strs[btf->strs_len - 1])
		return ld_err(obj, -EBADMSG, "section '.BTF': string section does not end in NUL");

	btf->offs = malloc(cap * sizeof(*btf->offs));
	if (!btf->offs)
		return ld_err(obj, -ENOMEM, "section '.BTF': out of memory");
	btf->nr = 1;
	while (off < btf->types_len) {
		struct btf_type t;
		long extra;

		if (btf->types_len - off < sizeof(t))
			return ld_err(obj, -EBADMSG, "section '.BTF': type %u is truncated",
				      btf->nr);
		memcpy(&t, btf->types + off, sizeof(t));
		extra = extra_size(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0)
			return ld_err(obj, -EBADMSG, "section '.BTF': type %u has unknown kind %u",
				      btf->nr, BTF_INFO_KIND(t.info));
		if ((u64)btf->types_len - off - sizeof(t) < (u64)extra)
			return ld_err(obj, -EBADMSG,
				      "section '.BTF': type %u extends past the type "
				      "section",
				      btf->nr);
		if (btf->nr == cap) {
			u32 *n;

			cap *= 2;
			n = realloc(btf->offs, cap * sizeof(*btf->offs));
			if (!n)
				return ld_err(obj, -ENOMEM, "section '.BTF': out of memory");
			btf->offs = n;
		}
		btf->offs[btf->nr++] = off;
		off += sizeof(t) + extra;
	}
	return 0;
}

/* Follows typedefs and qualifiers from id; 0 (void) or an unresolvable chain gives -1. */
static long skip_mods(const struct btf *btf, u32 id)
{
	for (int i = 0; i < MAX_CHAIN; i++) {
		struct btf_type t;

		if (!id || id >= btf->nr)
			return -1;
		btf_type_at(btf, id, &t);
		switch (BTF_INFO_KIND(t.info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t.type;
			break;
		default:
			return id;
		}
	}
	return -1;
}

/* The size in bytes of type id, or -1 if it has none (void, function, forward, cycle). */
static long long type_size(const struct btf *btf, u32 id, int depth)
{
	struct btf_array arr;
	struct btf_type t;
	long long elem;
	long sid;

	sid = depth < MAX_CHAIN ? skip_mods(btf, id) : -1;
	if (sid < 0)
		return -1;
	btf_type_at(btf, sid, &t);
	switch (BTF_INFO_KIND(t.info)) {
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		return t.size;
	case BTF_KIND_PTR:
		return 8;
	case BTF_KIND_ARRAY:
		memcpy(&arr, btf_extra(btf, sid), sizeof(arr));
		elem = type_size(btf, arr.type, depth + 1);
		/* Division, not a product that could wrap: the total must fit in u32. */
		if (elem < 0 || (arr.nelems && elem > UINT32_MAX / arr.nelems))
			return -1;
		return elem * arr.nelems;
	}
	return -1;
}

/* The VAR named name in DATASEC ds, as the id of its type, or -1. */
static long datasec_var(const struct btf *btf, u32 ds, const char *name)
{
	struct btf_type t, v;

	btf_type_at(btf, ds, &t);
	for (u32 i = 0; i < BTF_INFO_VLEN(t.info); i++) {
		struct btf_var_secinfo si;
		const char *n;

		memcpy(&si, btf_extra(btf, ds) + i * sizeof(si), sizeof(si));
		if (!si.type || si.type >= btf->nr)
			continue;
		btf_type_at(btf, si.type, &v);
		n = btf_str(btf, v.name_off);
		if (BTF_INFO_KIND(v.info) == BTF_KIND_VAR && n && !strcmp(n, name))
			return v.type;
	}
	return -1;
}

/* The VAR named name in the DATASEC called sec, as the id of its type, or -1. */
static long section_var(const struct btf *btf, const char *sec, const char *name)
{
	for (u32 id = 1; id < btf->nr; id++) {
		struct btf_type t;
		const char *n;

		btf_type_at(btf, id, &t);
		n = btf_str(btf, t.name_off);
		if (BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC && n && !strcmp(n, sec))
			return datasec_var(btf, id, name);
	}
	return -1;
}

static int map_struct(const struct btf *btf, const char *map, u32 id, struct ld_map_def *def,
		      bool inner);

/* `__array(values, struct { ... })` of a map of maps (an array of pointers to the definition of
 * the inner maps, libbpf's convention): the template, into def->inner. */
static int map_values(const struct btf *btf, const char *map, const struct btf_member *m,
		      struct ld_map_def *def, bool inner)
{
	const struct userbpf_object *obj = btf->obj;
	struct btf_type arr_t, ptr, st;
	struct btf_array arr;
	long id;
	int err;

	if (inner)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': an inner map cannot have values "
			      "(one level of maps of maps)",
			      map);
	btf_type_at(btf, m->type, &arr_t);
	if (BTF_INFO_KIND(arr_t.info) != BTF_KIND_ARRAY)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': field 'values' is not "
			      "__array() (an array of pointers)",
			      map);
	memcpy(&arr, btf_extra(btf, m->type), sizeof(arr));
	id = skip_mods(btf, arr.type);
	if (id > 0)
		btf_type_at(btf, id, &ptr);
	if (id <= 0 || BTF_INFO_KIND(ptr.info) != BTF_KIND_PTR)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': field 'values' is not "
			      "__array() (an array of pointers)",
			      map);
	id = skip_mods(btf, ptr.type);
	if (id > 0)
		btf_type_at(btf, id, &st);
	if (id > 0 && BTF_INFO_KIND(st.info) == BTF_KIND_FUNC_PROTO) {
		/* a program array's initial programs (checked against its type at the end) */
		def->prog_values = true;
		def->value_size = 4;
		def->values_off = m->offset / 8;
		return 0;
	}
	if (id <= 0 || BTF_INFO_KIND(st.info) != BTF_KIND_STRUCT)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': field 'values' does not point "
			      "to a map definition",
			      map);
	if (def->value_size && def->value_size != 4)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': value_size %u of a map of maps "
			      "(its values are 4-byte map fds)",
			      map, def->value_size);
	def->inner = calloc(1, sizeof(*def->inner));
	if (!def->inner)
		return ld_err(obj, -ENOMEM, "out of memory");
	def->value_size = 4;
	def->values_off = m->offset / 8;
	err = map_struct(btf, map, (u32)id, def->inner, true);
	return err;
}

/* Decodes one member of a map definition into def. */
static int map_field(const struct btf *btf, const char *map, const struct btf_member *m,
		     struct ld_map_def *def, bool *has_type, bool inner)
{
	const struct userbpf_object *obj = btf->obj;
	const char *name = btf_str(btf, m->name_off);
	struct btf_type ptr, arr_t;
	struct btf_array arr;
	long long size;
	long target;
	u32 *field = NULL;

	if (!name || !*name)
		return ld_err(obj, -EBADMSG, "section '.maps': map '%s': a field has no name", map);
	if (!m->type || m->type >= btf->nr)
		return ld_err(obj, -EBADMSG,
			      "section '.maps': map '%s': field '%s': type id %u "
			      "out of range",
			      map, name, m->type);
	if (!strcmp(name, "values"))
		return map_values(btf, map, m, def, inner);
	btf_type_at(btf, m->type, &ptr);
	if (BTF_INFO_KIND(ptr.info) != BTF_KIND_PTR)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': field '%s' is not a "
			      "pointer (__uint() or __type())",
			      map, name);

	if (!strcmp(name, "key") || !strcmp(name, "value")) {
		size = type_size(btf, ptr.type, 0);
		if (size <= 0)
			return ld_err(obj, -EINVAL,
				      "section '.maps': map '%s': field '%s': its "
				      "type has no size",
				      map, name);
		field = name[0] == 'k' ? &def->key_size : &def->value_size;
		if (name[0] == 'k')
			def->btf_key_type_id = ptr.type;
		else
			def->btf_value_type_id = ptr.type;
		if (*field && *field != size)
			return ld_err(obj, -EINVAL,
				      "section '.maps': map '%s': %s_size %u "
				      "contradicts __type(%s) of %lld bytes",
				      map, name, *field, name, size);
		*field = size;
		return 0;
	}

	if (!strcmp(name, "type"))
		field = &def->type;
	else if (!strcmp(name, "max_entries"))
		field = &def->max_entries;
	else if (!strcmp(name, "map_flags"))
		field = &def->map_flags;
	else if (!strcmp(name, "numa_node"))
		field = &def->numa_node;
	else if (!strcmp(name, "map_extra"))
		field = &def->map_extra;
	else if (!strcmp(name, "key_size"))
		field = &def->key_size;
	else if (!strcmp(name, "value_size"))
		field = &def->value_size;
	else if (!strcmp(name, "pinning"))
		field = &def->pinning;
	else
		return ld_err(obj, -EOPNOTSUPP,
			      "section '.maps': map '%s': unknown or unsupported "
			      "field '%s'",
			      map, name);
	target = skip_mods(btf, ptr.type);
	if (target > 0)
		btf_type_at(btf, target, &arr_t);
	if (target <= 0 || BTF_INFO_KIND(arr_t.info) != BTF_KIND_ARRAY)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': field '%s' is not "
			      "__uint() (a pointer to an array)",
			      map, name);
	memcpy(&arr, btf_extra(btf, target), sizeof(arr));
	if (field == &def->pinning && arr.nelems > 1) /* LIBBPF_PIN_NONE, LIBBPF_PIN_BY_NAME */
		return ld_err(obj, -EINVAL, "section '.maps': map '%s': invalid pinning value %u",
			      map, arr.nelems);
	if ((field == &def->key_size || field == &def->value_size) && *field &&
	    *field != arr.nelems)
		return ld_err(obj, -EINVAL,
			      "section '.maps': map '%s': %s %u contradicts the "
			      "__type() size %u",
			      map, name, arr.nelems, *field);
	*field = arr.nelems;
	if (field == &def->type)
		*has_type = true;
	return 0;
}

/* The map definition struct id (its members) into def. */
static int map_struct(const struct btf *btf, const char *map, u32 id, struct ld_map_def *def,
		      bool inner)
{
	bool has_type = false;
	struct btf_type st;
	int err;

	btf_type_at(btf, id, &st);
	for (u32 i = 0; i < BTF_INFO_VLEN(st.info); i++) {
		struct btf_member m;

		memcpy(&m, btf_extra(btf, id) + i * sizeof(m), sizeof(m));
		err = map_field(btf, map, &m, def, &has_type, inner);
		if (err)
			return err;
	}
	if (!has_type)
		return ld_err(btf->obj, -EINVAL,
			      "section '.maps': map '%s'%s has no __uint(type, ...)", map,
			      inner ? ": the inner map" : "");
	if (def->prog_values && def->type != BPF_MAP_TYPE_PROG_ARRAY)
		return ld_err(btf->obj, -EINVAL,
			      "section '.maps': map '%s': __array(values) of functions is "
			      "for program arrays",
			      map);
	if (!inner && !def->inner && (def->type == BPF_MAP_TYPE_ARRAY_OF_MAPS ||
				      def->type == BPF_MAP_TYPE_HASH_OF_MAPS))
		return ld_err(btf->obj, -EINVAL,
			      "section '.maps': map '%s': a map of maps needs "
			      "__array(values, <inner map definition>)",
			      map);
	return 0;
}

static int map_def(const struct btf *btf, u32 ds, struct ld_btf_var *var)
{
	const struct userbpf_object *obj = btf->obj;
	struct btf_type st;
	long id;

	id = datasec_var(btf, ds, var->name);
	if (id < 0)
		return ld_err(obj, -EBADMSG,
			      "section '.maps': map '%s' has no variable in BTF "
			      "DATASEC '.maps'",
			      var->name);
	id = skip_mods(btf, id);
	if (id > 0)
		btf_type_at(btf, id, &st);
	if (id <= 0 || BTF_INFO_KIND(st.info) != BTF_KIND_STRUCT)
		return ld_err(obj, -EINVAL, "section '.maps': map '%s' is not a struct", var->name);
	return map_struct(btf, var->name, (u32)id, var->def, false);
}

int ld_btf_map_defs(const struct userbpf_object *obj, const u8 *data, size_t size,
		    struct ld_btf_var *vars, size_t nvars)
{
	struct btf btf = {.obj = obj};
	long ds = -1;
	int err;

	err = btf_index(&btf, data, size);
	if (err)
		goto free_offs;
	for (u32 id = 1; id < btf.nr && ds < 0; id++) {
		struct btf_type t;
		const char *n;

		btf_type_at(&btf, id, &t);
		n = btf_str(&btf, t.name_off);
		if (BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC && n && !strcmp(n, ".maps"))
			ds = id;
	}
	if (ds < 0) {
		err =
		    ld_err(obj, -EBADMSG, "section '.BTF': no DATASEC '.maps' describing the maps");
		goto free_offs;
	}
	for (size_t i = 0; i < nvars && !err; i++)
		err = map_def(&btf, ds, &vars[i]);
free_offs:
	free(btf.offs);
	return err;
}

u32 ld_btf_datasec_id(const struct userbpf_object *obj, const u8 *data, size_t size,
		      const char *name)
{
	struct btf btf = {.obj = obj};
	u32 found = 0;

	if (btf_index(&btf, data, size) == 0)
		for (u32 id = 1; id < btf.nr && !found; id++) {
			struct btf_type t;
			const char *n;

			btf_type_at(&btf, id, &t);
			n = btf_str(&btf, t.name_off);
			if (BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC && n && !strcmp(n, name))
				found = id;
		}
	free(btf.offs);
	return found;
}

/* libbpf's kcfg type of id (find_kcfg_type()): bool (a 1-byte BTF_INT_BOOL), char (any
 * other 1-byte int), int (2, 4 or 8 bytes), tristate (enum libbpf_tristate), char array. */
static enum ld_kcfg_type kcfg_type(const struct btf *btf, u32 id, bool *is_signed, int depth)
{
	long sid = depth < MAX_CHAIN ? skip_mods(btf, id) : -1;
	struct btf_array arr;
	struct btf_type t;
	const char *n;
	u32 enc;

	if (sid < 0)
		return KCFG_UNKNOWN;
	btf_type_at(btf, sid, &t);
	n = btf_str(btf, t.name_off);
	switch (BTF_INFO_KIND(t.info)) {
	case BTF_KIND_INT:
		memcpy(&enc, btf_extra(btf, sid), sizeof(enc));
		enc = BTF_INT_ENCODING(enc);
		if (enc & BTF_INT_BOOL)
			return t.size == 1 ? KCFG_BOOL : KCFG_UNKNOWN;
		if (is_signed)
			*is_signed = enc & BTF_INT_SIGNED;
		if (t.size == 1)
			return KCFG_CHAR;
		if (t.size < 1 || t.size > 8 || (t.size & (t.size - 1)))
			return KCFG_UNKNOWN;
		return KCFG_INT;
	case BTF_KIND_ENUM:
		if (t.size != 4)
			return KCFG_UNKNOWN;
		/* fall through */
	case BTF_KIND_ENUM64:
		return n && !strcmp(n, "libbpf_tristate") ? KCFG_TRISTATE : KCFG_UNKNOWN;
	case BTF_KIND_ARRAY:
		memcpy(&arr, btf_extra(btf, sid), sizeof(arr));
		if (!arr.nelems || kcfg_type(btf, arr.type, NULL, depth + 1) != KCFG_CHAR)
			return KCFG_UNKNOWN;
		return KCFG_CHAR_ARR;
	}
	return KCFG_UNKNOWN;
}

/* libbpf's btf__align_of() for the kcfg types: an integer's or enum's size up to 8, an
 * array's element's. */
static u32 kcfg_align(const struct btf *btf, u32 id, int depth)
{
	long sid = depth < MAX_CHAIN ? skip_mods(btf, id) : -1;
	struct btf_array arr;
	struct btf_type t;

	if (sid < 0)
		return 1;
	btf_type_at(btf, sid, &t);
	if (BTF_INFO_KIND(t.info) == BTF_KIND_ARRAY) {
		memcpy(&arr, btf_extra(btf, sid), sizeof(arr));
		return kcfg_align(btf, arr.type, depth + 1);
	}
	return t.size < 8 ? (t.size ? t.size : 1) : 8;
}

int ld_btf_kcfg(const struct userbpf_object *obj, const u8 *data, size_t size, const char *name,
		struct ld_kcfg *k)
{
	struct btf btf = {.obj = obj};
	long type = -1;
	int err;

	err = btf_index(&btf, data, size);
	if (!err)
		type = section_var(&btf, ".kconfig", name);
	if (!err && type >= 0) {
		long long sz = type_size(&btf, (u32)type, 0);

		k->is_signed = false;
		k->type = kcfg_type(&btf, (u32)type, &k->is_signed, 0);
		k->sz = sz > 0 && sz <= UINT32_MAX ? (u32)sz : 0;
		k->align = kcfg_align(&btf, (u32)type, 0);
	}
	free(btf.offs);
	return err ? err : type >= 0;
}

int ld_btf_ksym_typeless(const struct userbpf_object *obj, const u8 *data, size_t size,
			 const char *name)
{
	struct btf btf = {.obj = obj};
	long type = -1;
	int err;

	err = btf_index(&btf, data, size);
	if (!err)
		type = section_var(&btf, ".ksyms", name);
	/* (void through qualifiers: `extern const void sym __ksym`) */
	for (int i = 0; !err && type > 0 && i < MAX_CHAIN; i++) {
		struct btf_type t;
		u32 kind;

		if ((u32)type >= btf.nr)
			break;
		btf_type_at(&btf, (u32)type, &t);
		kind = BTF_INFO_KIND(t.info);
		if (kind != BTF_KIND_CONST && kind != BTF_KIND_VOLATILE &&
		    kind != BTF_KIND_RESTRICT && kind != BTF_KIND_TYPEDEF &&
		    kind != BTF_KIND_TYPE_TAG)
			break;
		type = t.type;
	}
	free(btf.offs);
	return err ? err : type == 0;
}

bool ld_btf_datasec_has_global(const struct userbpf_object *obj, const u8 *data, size_t size,
			       u32 ds)
{
	struct btf btf = {.obj = obj};
	bool found = false;

	if (ds && btf_index(&btf, data, size) == 0 && ds < btf.nr) {
		struct btf_type t;

		btf_type_at(&btf, ds, &t);
		for (u32 i = 0; BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC && i < BTF_INFO_VLEN(t.info) &&
				!found; i++) {
			struct btf_var_secinfo si;
			struct btf_type v;
			struct btf_var var;

			memcpy(&si, btf_extra(&btf, ds) + i * sizeof(si), sizeof(si));
			if (!si.type || si.type >= btf.nr)
				continue;
			btf_type_at(&btf, si.type, &v);
			if (BTF_INFO_KIND(v.info) != BTF_KIND_VAR)
				continue;
			memcpy(&var, btf_extra(&btf, si.type), sizeof(var));
			found = var.linkage != BTF_VAR_STATIC;
		}
	}
	free(btf.offs);
	return found;
}

/* The value of the symbol called name (a variable), or -1. */
static long long sym_value(const struct userbpf_object *obj, const char *name)
{
	for (size_t i = 0; i < obj->nsyms; i++) {
		Elf64_Sym sym;
		const char *n;

		memcpy(&sym, obj->secs[obj->symtab].data + i * sizeof(sym), sizeof(sym));
		if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT)
			continue;
		n = elf_strptr(obj->elf, obj->strtab, sym.st_name);
		if (n && !strcmp(n, name))
			return (long long)sym.st_value;
	}
	return -1;
}

/* Sorts n struct btf_var_secinfo at p by offset (insertion sort: a handful of them). */
static void sort_secinfos(u8 *p, u32 n)
{
	for (u32 i = 1; i < n; i++) {
		for (u32 j = i; j > 0; j--) {
			struct btf_var_secinfo a, b;

			memcpy(&a, p + (j - 1) * sizeof(a), sizeof(a));
			memcpy(&b, p + j * sizeof(b), sizeof(b));
			if (a.offset <= b.offset)
				break;
			memcpy(p + (j - 1) * sizeof(a), &b, sizeof(b));
			memcpy(p + j * sizeof(b), &a, sizeof(a));
		}
	}
}

int ld_btf_fixup(const struct userbpf_object *obj, u8 *data, size_t size)
{
	struct btf btf = {.obj = obj};
	int err;

	err = btf_index(&btf, data, size);
	if (err)
		goto free_offs;
	for (u32 id = 1; id < btf.nr; id++) {
		struct btf_type t;
		const char *sec;
		u8 *vsi;

		btf_type_at(&btf, id, &t);
		sec = btf_str(&btf, t.name_off);
		if (BTF_INFO_KIND(t.info) != BTF_KIND_DATASEC || !sec)
			continue;
		for (size_t i = 1; i < obj->nsecs && !t.size; i++)
			if (obj->secs[i].name && !strcmp(obj->secs[i].name, sec))
				t.size = obj->secs[i].size;
		/* .kconfig has no section: its size is the map's, its externs become its
		 * variables, at their offsets there (libbpf's rewrite) */
		if (!strcmp(sec, ".kconfig") && obj->kconfig_map >= 0)
			t.size = obj->maps[obj->kconfig_map].def.value_size;
		memcpy((u8 *)btf.types + btf.offs[id], &t, sizeof(t));
		vsi = (u8 *)btf_extra(&btf, id);
		for (u32 i = 0; i < BTF_INFO_VLEN(t.info); i++, vsi += sizeof(struct btf_var_secinfo)) {
			struct btf_var_secinfo si;
			struct btf_type v;
			const char *n;
			long long val;

			memcpy(&si, vsi, sizeof(si));
			if (!si.type || si.type >= btf.nr)
				continue;
			btf_type_at(&btf, si.type, &v);
			n = btf_str(&btf, v.name_off);
			if (BTF_INFO_KIND(v.info) != BTF_KIND_VAR || !n)
				continue;
			val = sym_value(obj, n);
			for (size_t k = 0; !strcmp(sec, ".kconfig") && k < obj->nkcfg; k++) {
				struct btf_var var;

				if (strcmp(obj->kcfg[k].name, n))
					continue;
				val = obj->kcfg[k].off;
				memcpy(&var, btf_extra(&btf, si.type), sizeof(var));
				var.linkage = BTF_VAR_GLOBAL_ALLOCATED;
				memcpy((u8 *)btf_extra(&btf, si.type), &var, sizeof(var));
			}
			if (val >= 0 && val <= UINT32_MAX) {
				si.offset = (u32)val;
				memcpy(vsi, &si, sizeof(si));
			}
		}
		/* .kconfig's entries in the order of their new offsets, which the kernel's check
		 * wants (libbpf sorts them too) */
		if (!strcmp(sec, ".kconfig"))
			sort_secinfos((u8 *)btf_extra(&btf, id), BTF_INFO_VLEN(t.info));
	}
free_offs:
	free(btf.offs);
	return err;
}

/* libbpf's rewrite of .ksyms (bpf_object__collect_externs()): the kernel's BTF check takes
 * neither an extern FUNC nor a DATASEC entry that is not a VAR, so each extern function
 * becomes a global one (its unnamed parameters named), and its .ksyms entry a 4-byte slot of
 * one new VAR "dummy_ksym" of type int appended to the blob; each extern variable becomes an
 * allocated int of a 4-byte slot. */
int ld_btf_ksyms(const struct userbpf_object *obj, u8 **data, size_t *size)
{
	static const char dummy[] = "dummy_ksym";
	struct btf btf = {.obj = obj};
	struct btf_header hdr;
	u32 ksyms = 0, int_id = 0, var_id, name_off;
	size_t grown_size;
	u8 *grown, *types;
	int err;

	err = btf_index(&btf, *data, *size);
	for (u32 id = 1; !err && id < btf.nr; id++) {
		struct btf_type t;
		const char *n;
		u32 enc;

		btf_type_at(&btf, id, &t);
		n = btf_str(&btf, t.name_off);
		if (BTF_INFO_KIND(t.info) == BTF_KIND_DATASEC && n && !strcmp(n, ".ksyms"))
			ksyms = id;
		if (BTF_INFO_KIND(t.info) == BTF_KIND_INT && !int_id) {
			memcpy(&enc, btf_extra(&btf, id), sizeof(enc));
			if (BTF_INT_BITS(enc) == 32)
				int_id = id;
		}
	}
	if (err || !ksyms || !int_id) {
		free(btf.offs);
		return err;
	}
	/* the new blob: types, the VAR, strings, the VAR's name */
	memcpy(&hdr, *data, sizeof(hdr));
	grown_size = *size + sizeof(struct btf_type) + sizeof(struct btf_var) + sizeof(dummy);
	grown = calloc(1, grown_size);
	if (!grown) {
		free(btf.offs);
		return ld_err(obj, -ENOMEM, "section '.BTF': out of memory");
	}
	var_id = btf.nr;
	name_off = hdr.str_len;
	memcpy(grown, *data, hdr.hdr_len + hdr.type_off + hdr.type_len);
	{
		struct btf_type v = { .name_off = name_off, .info = INFO_ENC(BTF_KIND_VAR, 0, 0),
				      .type = int_id };
		struct btf_var linkage = { BTF_VAR_GLOBAL_ALLOCATED };
		u8 *at = grown + hdr.hdr_len + hdr.type_off + hdr.type_len;

		memcpy(at, &v, sizeof(v));
		memcpy(at + sizeof(v), &linkage, sizeof(linkage));
	}
	memcpy(grown + hdr.hdr_len + hdr.type_off + hdr.type_len + sizeof(struct btf_type) +
		       sizeof(struct btf_var),
	       *data + hdr.hdr_len + hdr.str_off, hdr.str_len);
	memcpy(grown + grown_size - sizeof(dummy), dummy, sizeof(dummy));
	/* (the strings now follow the types: one layout, whatever clang's was) */
	hdr.type_off = 0;
	hdr.type_len += sizeof(struct btf_type) + sizeof(struct btf_var);
	hdr.str_off = hdr.type_len;
	hdr.str_len += sizeof(dummy);
	memcpy(grown, &hdr, sizeof(hdr));
	if (grown_size != (size_t)hdr.hdr_len + hdr.str_off + hdr.str_len) {
		/* clang puts the strings right after the types; anything else is left alone */
		free(grown);
		free(btf.offs);
		return 0;
	}
	types = grown + hdr.hdr_len;
	{
		struct btf_type ds;
		u8 *vsi;

		memcpy(&ds, types + btf.offs[ksyms], sizeof(ds));
		vsi = types + btf.offs[ksyms] + sizeof(ds);
		for (u32 i = 0; i < BTF_INFO_VLEN(ds.info); i++, vsi += sizeof(struct btf_var_secinfo)) {
			struct btf_var_secinfo si;
			struct btf_type f, proto;

			memcpy(&si, vsi, sizeof(si));
			if (!si.type || si.type >= btf.nr)
				continue;
			memcpy(&f, types + btf.offs[si.type], sizeof(f));
			if (BTF_INFO_KIND(f.info) == BTF_KIND_VAR) {
				/* a typed kernel variable: an allocated int (libbpf's) */
				struct btf_var var = { BTF_VAR_GLOBAL_ALLOCATED };

				f.type = int_id;
				memcpy(types + btf.offs[si.type], &f, sizeof(f));
				memcpy(types + btf.offs[si.type] + sizeof(f), &var, sizeof(var));
				si.offset = i * 4;
				si.size = 4;
				memcpy(vsi, &si, sizeof(si));
				continue;
			}
			if (BTF_INFO_KIND(f.info) != BTF_KIND_FUNC)
				continue;
			f.info = INFO_ENC(BTF_KIND_FUNC, 0, BTF_FUNC_GLOBAL);
			memcpy(types + btf.offs[si.type], &f, sizeof(f));
			if (f.type && f.type < btf.nr) {
				u8 *params = types + btf.offs[f.type] + sizeof(proto);

				memcpy(&proto, types + btf.offs[f.type], sizeof(proto));
				for (u32 j = 0; BTF_INFO_KIND(proto.info) == BTF_KIND_FUNC_PROTO &&
						j < BTF_INFO_VLEN(proto.info); j++) {
					struct btf_param p;

					memcpy(&p, params + j * sizeof(p), sizeof(p));
					if (p.type && !p.name_off) {
						p.name_off = name_off;
						memcpy(params + j * sizeof(p), &p, sizeof(p));
					}
				}
			}
			si.type = var_id;
			si.offset = i * 4;
			si.size = 4;
			memcpy(vsi, &si, sizeof(si));
		}
		ds.size = BTF_INFO_VLEN(ds.info) * 4;
		memcpy(types + btf.offs[ksyms], &ds, sizeof(ds));
	}
	free(btf.offs);
	free(*data);
	*data = grown;
	*size = grown_size;
	return 0;
}

u8 *ld_btf_prepared(const struct userbpf_object *obj, size_t *size, int *err)
{
	const struct ld_sec *s = &obj->secs[obj->btf_sec];
	u8 *copy;

	*err = 0;
	if (!obj->btf_sec || !s->data || !s->size || s->size > UINT32_MAX - 64)
		return NULL;
	copy = malloc(s->size);
	if (!copy) {
		*err = ld_err(obj, -ENOMEM, "out of memory for a copy of '.BTF'");
		return NULL;
	}
	memcpy(copy, s->data, s->size);
	*size = s->size;
	*err = ld_btf_fixup(obj, copy, *size);
	if (!*err)
		*err = ld_btf_ksyms(obj, &copy, size);
	if (*err) {
		free(copy);
		return NULL;
	}
	return copy;
}
