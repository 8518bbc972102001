/* BPF_BTF_LOAD: a table of hand-built BTF blobs, valid and malformed for each rule, loaded on
 * userbpf and on the live kernel; each must agree on the result, the errno and the log's last
 * line (the error).  Blobs are a type section written as u32 words with the macros below, the
 * shared string table STRS, and an optional fix-up of the assembled bytes for header cases.
 */
#include <linux/btf.h>
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stdlib.h>
#include <unistd.h>

#include "btf_blob.h"
#include "fd.h"
#include "kbpf.h"
#include "test.h"

#define BTF_MAX_SIZE_TEST (16u * 1024 * 1024)

/* The string table every case shares, and its offsets. */
static const char STRS[] = "\0int\0s\0a\0b\0.maps\0f\0u8\0e\0V\0t\0bad name\0.sec\0a.b\0tag";
enum { S_INT = 1, S_S = 5, S_A = 7, S_B = 9, S_MAPS = 11, S_F = 17, S_U8 = 19, S_E = 22,
       S_V = 24, S_T = 26, S_BAD = 28, S_SEC = 37, S_DOT = 42, S_TAG = 46, S_END = sizeof(STRS) };


struct btf_case {
	const char *name;
	u32 types[64];
	u32 nwords;		/* 0: count to the last non-zero word */
	void (*fix)(struct blob *b);
};

static struct btf_header *hdr(struct blob *b)
{
	return (struct btf_header *)b->data;
}

/* Header fix-ups. */
static void fix_size4(struct blob *b) { b->size = 4; }
static void fix_hdr_len_big(struct blob *b) { hdr(b)->hdr_len = b->size + 1; }
static void fix_magic(struct blob *b) { hdr(b)->magic = 0x9feb; }
static void fix_version(struct blob *b) { hdr(b)->version = 2; }
static void fix_flags(struct blob *b) { hdr(b)->flags = 1; }
static void fix_no_data(struct blob *b) { b->size = sizeof(struct btf_header); }
static void fix_gap(struct blob *b) { hdr(b)->type_off = 4; hdr(b)->type_len -= 4; }
static void fix_overlap(struct blob *b) { hdr(b)->str_off -= 4; hdr(b)->str_len += 4; }
static void fix_too_long(struct blob *b) { hdr(b)->str_len += 4; }
static void fix_str_off_far(struct blob *b) { hdr(b)->str_off = 0x10000; }
static void fix_trailing(struct blob *b) { b->data[b->size++] = 0; }
static void fix_str_no_nul0(struct blob *b) { b->data[b->size - hdr(b)->str_len] = 'x'; }
static void fix_str_no_nul_end(struct blob *b) { b->data[b->size - 1] = 'x'; }
static void fix_str_empty(struct blob *b) { hdr(b)->type_len += hdr(b)->str_len; hdr(b)->str_len = 0; }
static void fix_type_len0(struct blob *b) { hdr(b)->str_off = 0; hdr(b)->str_len += hdr(b)->type_len; hdr(b)->type_len = 0; }
static void fix_type_short(struct blob *b) { hdr(b)->type_len = 8; hdr(b)->str_off = 8; hdr(b)->str_len += 0; memmove(b->data + 24 + 8, b->data + 24 + 16, hdr(b)->str_len); b->size -= 8; }

/* Strings first, then types: the string section is not at the end. */
static void fix_str_first(struct blob *b)
{
	struct btf_header *h = hdr(b);
	u8 *n = malloc(b->size);

	memcpy(n, b->data, sizeof(*h));
	memcpy(n + sizeof(*h), b->data + sizeof(*h) + h->str_off, h->str_len);
	memcpy(n + sizeof(*h) + h->str_len, b->data + sizeof(*h), h->type_len);
	((struct btf_header *)n)->str_off = 0;
	((struct btf_header *)n)->type_off = h->str_len;
	memcpy(b->data, n, b->size);
	free(n);
}

/* A longer header whose extra bytes are zero (fine) or not (E2BIG). */
static void grow_hdr(struct blob *b, u8 fill)
{
	memmove(b->data + 32, b->data + 24, b->size - 24);
	memset(b->data + 24, 0, 8);
	b->data[27] = fill;
	hdr(b)->hdr_len = 32;
	b->size += 8;
}
static void fix_hdr_zero_ext(struct blob *b) { grow_hdr(b, 0); }
static void fix_hdr_nonzero_ext(struct blob *b) { grow_hdr(b, 1); }

#define INT32 T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32)

static const struct btf_case cases[] = {
	/* header */
	{ "valid_int", { INT32 } },
	{ "hdr_len_not_found", { INT32 }, 0, fix_size4 },
	{ "hdr_len_beyond", { INT32 }, 0, fix_hdr_len_big },
	{ "hdr_ext_zero", { INT32 }, 0, fix_hdr_zero_ext },
	{ "hdr_ext_nonzero", { INT32 }, 0, fix_hdr_nonzero_ext },
	{ "bad_magic", { INT32 }, 0, fix_magic },
	{ "bad_version", { INT32 }, 0, fix_version },
	{ "bad_flags", { INT32 }, 0, fix_flags },
	{ "no_data", { INT32 }, 0, fix_no_data },
	{ "section_gap", { INT32, T_PTR(1) }, 0, fix_gap },
	{ "section_overlap", { INT32, T_PTR(1) }, 0, fix_overlap },
	{ "section_too_long", { INT32 }, 0, fix_too_long },
	{ "section_offset_far", { INT32 }, 0, fix_str_off_far },
	{ "trailing_byte", { INT32 }, 0, fix_trailing },
	{ "str_not_at_end", { INT32 }, 0, fix_str_first },
	{ "str_no_leading_nul", { INT32 }, 0, fix_str_no_nul0 },
	{ "str_no_trailing_nul", { INT32 }, 0, fix_str_no_nul_end },
	{ "str_empty", { INT32 }, 0, fix_str_empty },
	{ "no_types", { INT32 }, 0, fix_type_len0 },
	{ "type_truncated", { INT32 }, 0, fix_type_short },
	/* every record */
	{ "info_bits", { S_INT, INFO(BTF_KIND_INT, 0, 0) | 0x00200000, 4, 32 } },
	{ "kind_unknown0", { 0, INFO(0, 0, 0), 0 }, 3 },
	{ "kind_20", { 0, INFO(20, 0, 0), 0 }, 3 },
	{ "name_off_oob", { 999, INFO(BTF_KIND_INT, 0, 0), 4, 32 } },
	/* INT */
	{ "int_meta_short", { S_INT, INFO(BTF_KIND_INT, 0, 0), 4 }, 3 },
	{ "int_vlen", { S_INT, INFO(BTF_KIND_INT, 0, 1), 4, 32 } },
	{ "int_kflag", { S_INT, INFO(BTF_KIND_INT, 1, 0), 4, 32 } },
	{ "int_data_bits", { S_INT, INFO(BTF_KIND_INT, 0, 0), 4, 0x10000020 } },
	{ "int_over_128", { T_INT(S_INT, 16, 0, 8, 128) } },
	{ "int_over_size", { T_INT(S_INT, 4, 0, 0, 33) } },
	{ "int_encoding", { T_INT(S_INT, 4, 8, 0, 32) } },
	{ "int_bool_char", { T_INT(S_INT, 1, BTF_INT_BOOL, 0, 1), T_INT(S_U8, 1, BTF_INT_CHAR, 0, 8) } },
	{ "int_anon", { T_INT(0, 8, 0, 0, 64) } },
	/* PTR and modifiers */
	{ "ptr_named", { INT32, T_REF(BTF_KIND_PTR, S_A, 1) } },
	{ "ptr_kflag", { INT32, 0, INFO(BTF_KIND_PTR, 1, 0), 1 } },
	{ "ptr_vlen", { INT32, 0, INFO(BTF_KIND_PTR, 0, 1), 1 } },
	{ "ptr_type_max", { INT32, T_PTR(0x100000) } },
	{ "ptr_type_oob", { INT32, T_PTR(5) } },
	{ "ptr_void", { T_PTR(0) }, 3 },
	{ "ptr_to_var", { INT32, T_VAR(S_V, 1, 0), T_PTR(2) } },
	{ "typedef_noname", { INT32, T_REF(BTF_KIND_TYPEDEF, 0, 1) } },
	{ "typedef_bad_name", { INT32, T_REF(BTF_KIND_TYPEDEF, S_BAD, 1) } },
	{ "typedef_dot_name", { INT32, T_REF(BTF_KIND_TYPEDEF, S_DOT, 1) } },
	{ "typedef_void", { T_REF(BTF_KIND_TYPEDEF, S_T, 0) }, 3 },
	{ "const_named", { INT32, T_REF(BTF_KIND_CONST, S_A, 1) } },
	{ "volatile_ok", { INT32, T_REF(BTF_KIND_VOLATILE, 0, 1) } },
	{ "restrict_ok", { INT32, T_PTR(1), T_REF(BTF_KIND_RESTRICT, 0, 2) } },
	{ "modifier_loop", { T_REF(BTF_KIND_TYPEDEF, S_T, 2), T_REF(BTF_KIND_CONST, 0, 1) } },
	{ "ptr_loop_ok", { T_STRUCT(S_S, 1, 8), T_MEMBER(S_A, 2, 0), T_PTR(1) } },
	{ "ptr_self", { T_PTR(1) } },
	{ "type_tag_empty", { INT32, T_REF(BTF_KIND_TYPE_TAG, 0, 1) } },
	{ "type_tag_ok", { INT32, T_REF(BTF_KIND_TYPE_TAG, S_TAG, 1), T_PTR(2) } },
	{ "type_tag_kflag", { INT32, S_TAG, INFO(BTF_KIND_TYPE_TAG, 1, 0), 1, T_PTR(2) } },
	{ "type_tag_after_const", { INT32, T_REF(BTF_KIND_TYPE_TAG, S_TAG, 1),
				    T_REF(BTF_KIND_CONST, 0, 2), T_PTR(3) } },
	{ "type_tag_before_const", { INT32, T_REF(BTF_KIND_CONST, 0, 1),
				     T_REF(BTF_KIND_TYPE_TAG, S_TAG, 2), T_PTR(3) } },
	/* FWD */
	{ "fwd_ok_union", { S_S, INFO(BTF_KIND_FWD, 1, 0), 0 }, 3 },
	{ "fwd_type", { S_S, INFO(BTF_KIND_FWD, 0, 0), 1 } },
	{ "fwd_noname", { 0, INFO(BTF_KIND_FWD, 0, 0), 0 }, 3 },
	{ "fwd_vlen", { S_S, INFO(BTF_KIND_FWD, 0, 2), 0 }, 3 },
	/* ARRAY */
	{ "array_ok", { INT32, T_ARRAY(1, 1, 4) } },
	{ "array_named", { INT32, S_A, INFO(BTF_KIND_ARRAY, 0, 0), 0, 1, 1, 4 } },
	{ "array_size", { INT32, 0, INFO(BTF_KIND_ARRAY, 0, 0), 4, 1, 1, 4 } },
	{ "array_kflag", { INT32, 0, INFO(BTF_KIND_ARRAY, 1, 0), 0, 1, 1, 4 } },
	{ "array_elem0", { INT32, T_ARRAY(0, 1, 4) } },
	{ "array_index0", { INT32, T_ARRAY(1, 0, 4) } },
	{ "array_index_ptr", { INT32, T_PTR(1), T_ARRAY(1, 2, 4) } },
	{ "array_elem_proto", { INT32, T_PROTO(1, 0), T_ARRAY(2, 1, 4) } },
	{ "array_elem_bitint", { INT32, T_INT(S_U8, 1, 0, 0, 3), T_ARRAY(2, 1, 4) } },
	{ "array_overflow", { INT32, T_ARRAY(1, 1, 0x40000001) } },
	{ "array_short", { INT32, 0, INFO(BTF_KIND_ARRAY, 0, 0), 0, 1 } },
	{ "array_of_self", { INT32, T_ARRAY(2, 1, 4) } },
	/* STRUCT / UNION */
	{ "struct_ok", { INT32, T_STRUCT(S_S, 2, 8), T_MEMBER(S_A, 1, 0), T_MEMBER(S_B, 1, 32) } },
	{ "struct_bad_name", { INT32, T_STRUCT(S_BAD, 1, 4), T_MEMBER(S_A, 1, 0) } },
	{ "struct_member_name_oob", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(999, 1, 0) } },
	{ "struct_member_bad_name", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_BAD, 1, 0) } },
	{ "struct_member_void", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 0, 0) } },
	{ "struct_member_oob", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 7, 0) } },
	{ "struct_offsets_down", { INT32, T_STRUCT(S_S, 2, 8), T_MEMBER(S_A, 1, 32),
				   T_MEMBER(S_B, 1, 0) } },
	{ "struct_offset_beyond", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 1, 40) } },
	{ "struct_member_exceeds", { INT32, T_STRUCT(S_S, 1, 6), T_MEMBER(S_A, 1, 32) } },
	{ "struct_meta_short", { INT32, T_STRUCT(S_S, 2, 8), T_MEMBER(S_A, 1, 0) } },
	{ "struct_member_fwd", { S_S, INFO(BTF_KIND_FWD, 0, 0), 0, T_STRUCT(S_T, 1, 4),
				 T_MEMBER(S_A, 1, 0) } },
	{ "struct_self", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 2, 0) } },
	{ "struct_ptr_unaligned", { INT32, T_PTR(1), T_STRUCT(S_S, 1, 16), T_MEMBER(S_A, 2, 4) } },
	{ "struct_bitfield_ok", { INT32, S_S, INFO(BTF_KIND_STRUCT, 1, 2), 4,
				  T_MEMBER(S_A, 1, 3u << 24 | 0), T_MEMBER(S_B, 1, 5u << 24 | 3) } },
	{ "struct_bitfield_big", { INT32, S_S, INFO(BTF_KIND_STRUCT, 1, 1), 8,
				   T_MEMBER(S_A, 1, 33u << 24 | 0) } },
	{ "struct_bitfield_ptr", { INT32, T_PTR(1), S_S, INFO(BTF_KIND_STRUCT, 1, 1), 8,
				   T_MEMBER(S_A, 2, 3u << 24 | 0) } },
	{ "struct_kflag_unaligned", { INT32, S_S, INFO(BTF_KIND_STRUCT, 1, 1), 8,
				      T_MEMBER(S_A, 1, 3) } },
	{ "struct_int_bits_exceed", { T_INT(S_INT, 4, 0, 0, 20), T_STRUCT(S_S, 1, 2),
				      T_MEMBER(S_A, 1, 0) } },
	{ "union_offset", { INT32, S_S, INFO(BTF_KIND_UNION, 0, 2), 4, T_MEMBER(S_A, 1, 0),
			    T_MEMBER(S_B, 1, 8) } },
	{ "union_ok", { INT32, S_S, INFO(BTF_KIND_UNION, 0, 2), 4, T_MEMBER(S_A, 1, 0),
			T_MEMBER(S_B, 1, 0) } },
	{ "struct_typedef_member", { INT32, T_REF(BTF_KIND_TYPEDEF, S_T, 1), T_STRUCT(S_S, 1, 4),
				     T_MEMBER(S_A, 2, 0) } },
	{ "struct_float_misaligned", { S_F, INFO(BTF_KIND_FLOAT, 0, 0), 8, T_STRUCT(S_S, 1, 16),
				       T_MEMBER(S_A, 1, 32) } },
	/* ENUM / ENUM64 */
	{ "enum_ok", { S_E, INFO(BTF_KIND_ENUM, 0, 2), 4, S_A, 1, S_B, (u32)-1 } },
	{ "enum_signed", { S_E, INFO(BTF_KIND_ENUM, 1, 1), 4, S_A, (u32)-5 } },
	{ "enum_size3", { S_E, INFO(BTF_KIND_ENUM, 0, 1), 3, S_A, 1 } },
	{ "enum_size16", { S_E, INFO(BTF_KIND_ENUM, 0, 1), 16, S_A, 1 } },
	{ "enum_member_noname", { S_E, INFO(BTF_KIND_ENUM, 0, 1), 4, 0, 1 } },
	{ "enum_member_name_oob", { S_E, INFO(BTF_KIND_ENUM, 0, 1), 4, 999, 1 } },
	{ "enum_bad_name", { S_BAD, INFO(BTF_KIND_ENUM, 0, 1), 4, S_A, 1 } },
	{ "enum64_ok", { S_E, INFO(BTF_KIND_ENUM64, 0, 1), 8, S_A, 1, 2 } },
	{ "enum64_signed", { S_E, INFO(BTF_KIND_ENUM64, 1, 1), 8, S_A, (u32)-1, (u32)-1 } },
	{ "enum64_short", { S_E, INFO(BTF_KIND_ENUM64, 0, 1), 8, S_A, 1 } },
	/* FUNC_PROTO / FUNC */
	{ "proto_ok", { INT32, T_PROTO(1, 2), T_PARAM(S_A, 1), T_PARAM(0, 0) } },
	{ "proto_named", { INT32, S_F, INFO(BTF_KIND_FUNC_PROTO, 0, 0), 1 } },
	{ "proto_kflag", { INT32, 0, INFO(BTF_KIND_FUNC_PROTO, 1, 0), 1 } },
	{ "proto_ret_oob", { T_PROTO(9, 0) } },
	{ "proto_ret_var", { INT32, T_VAR(S_V, 1, 0), T_PROTO(2, 0) } },
	{ "proto_arg_oob", { INT32, T_PROTO(1, 1), T_PARAM(S_A, 9) } },
	{ "proto_arg_bad_name", { INT32, T_PROTO(1, 1), T_PARAM(S_BAD, 1) } },
	{ "proto_vararg_named", { INT32, T_PROTO(1, 2), T_PARAM(S_A, 1), T_PARAM(S_B, 0) } },
	{ "proto_arg_void_mid", { INT32, T_PROTO(1, 2), T_PARAM(S_A, 0), T_PARAM(S_B, 1) } },
	{ "proto_ret_fwd", { S_S, INFO(BTF_KIND_FWD, 0, 0), 0, T_PROTO(1, 0) } },
	{ "func_ok", { INT32, T_PROTO(1, 1), T_PARAM(S_A, 1), T_FUNC(S_F, 2, BTF_FUNC_GLOBAL) } },
	{ "func_noname", { INT32, T_PROTO(1, 0), T_FUNC(0, 2, 0) } },
	{ "func_extern", { INT32, T_PROTO(1, 0), T_FUNC(S_F, 2, 2) } },
	{ "func_linkage3", { INT32, T_PROTO(1, 0), T_FUNC(S_F, 2, 3) } },
	{ "func_kflag", { INT32, T_PROTO(1, 0), S_F, INFO(BTF_KIND_FUNC, 1, 0), 2 } },
	{ "func_not_proto", { INT32, T_FUNC(S_F, 1, 0) } },
	{ "func_arg_unnamed", { INT32, T_PROTO(1, 1), T_PARAM(0, 1), T_FUNC(S_F, 2, 0) } },
	/* VAR / DATASEC */
	{ "var_ok", { INT32, T_VAR(S_V, 1, 1) } },
	{ "var_extern", { INT32, T_VAR(S_V, 1, 2) } },
	{ "var_noname", { INT32, T_VAR(0, 1, 0) } },
	{ "var_dot_name", { INT32, T_VAR(S_DOT, 1, 0) } },
	{ "var_void", { T_VAR(S_V, 0, 0) }, 4 },
	{ "var_kflag", { INT32, S_V, INFO(BTF_KIND_VAR, 1, 0), 1, 0 }, 8 },
	{ "var_of_fwd", { S_S, INFO(BTF_KIND_FWD, 0, 0), 0, T_VAR(S_V, 1, 0) }, 7 },
	{ "datasec_ok", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(2, 0, 4) } },
	{ "datasec_maps_ok", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_MAPS, 1, 8), T_VSI(2, 4, 4) } },
	{ "datasec_size0", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 0), T_VSI(2, 0, 4) } },
	{ "datasec_noname", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(0, 1, 4), T_VSI(2, 0, 4) } },
	{ "datasec_bad_name", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_BAD, 1, 4), T_VSI(2, 0, 4) } },
	{ "datasec_not_var", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(1, 0, 4) } },
	{ "datasec_offset", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(2, 4, 4) } },
	{ "datasec_vsi_size0", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(2, 0, 0) } },
	{ "datasec_off_plus_size", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 6),
				     T_VSI(2, 4, 4) } },
	{ "datasec_small_vsi", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(2, 0, 2) } },
	{ "datasec_overlap", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 2, 8), T_VSI(2, 0, 4),
			       T_VSI(2, 2, 4) } },
	{ "datasec_type0", { INT32, T_VAR(S_V, 1, 1), T_DATASEC(S_SEC, 1, 4), T_VSI(0, 0, 4) } },
	/* FLOAT */
	{ "float_ok", { S_F, INFO(BTF_KIND_FLOAT, 0, 0), 8 } },
	{ "float_size3", { S_F, INFO(BTF_KIND_FLOAT, 0, 0), 3 } },
	{ "float_kflag", { S_F, INFO(BTF_KIND_FLOAT, 1, 0), 4 } },
	/* DECL_TAG */
	{ "decl_tag_ok", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 1, 0), S_TAG,
			   INFO(BTF_KIND_DECL_TAG, 0, 0), 2, 0 }, 12 },
	{ "decl_tag_whole", { INT32, T_VAR(S_V, 1, 0), S_TAG, INFO(BTF_KIND_DECL_TAG, 0, 0), 2,
			      (u32)-1 } },
	{ "decl_tag_empty", { INT32, T_VAR(S_V, 1, 0), 0, INFO(BTF_KIND_DECL_TAG, 0, 0), 2,
			      (u32)-1 } },
	{ "decl_tag_idx_neg2", { INT32, T_VAR(S_V, 1, 0), S_TAG, INFO(BTF_KIND_DECL_TAG, 0, 0), 2,
				 (u32)-2 } },
	{ "decl_tag_on_int", { INT32, S_TAG, INFO(BTF_KIND_DECL_TAG, 0, 0), 1, (u32)-1 } },
	{ "decl_tag_idx_var", { INT32, T_VAR(S_V, 1, 0), S_TAG, INFO(BTF_KIND_DECL_TAG, 0, 0), 2,
				0 }, 12 },
	{ "decl_tag_idx_oob", { INT32, T_STRUCT(S_S, 1, 4), T_MEMBER(S_A, 1, 0), S_TAG,
				INFO(BTF_KIND_DECL_TAG, 0, 0), 2, 1 } },
	{ "decl_tag_kflag", { INT32, T_VAR(S_V, 1, 0), S_TAG, INFO(BTF_KIND_DECL_TAG, 1, 0), 2,
			      (u32)-1 } },
	/* resolution depth: a chain of 33 const */
	{ "depth_33", { INT32,
			T_REF(BTF_KIND_CONST, 0, 1), T_REF(BTF_KIND_CONST, 0, 2), T_REF(BTF_KIND_CONST, 0, 3),
			T_REF(BTF_KIND_CONST, 0, 4), T_REF(BTF_KIND_CONST, 0, 5), T_REF(BTF_KIND_CONST, 0, 6),
			T_REF(BTF_KIND_CONST, 0, 7), T_REF(BTF_KIND_CONST, 0, 8), T_REF(BTF_KIND_CONST, 0, 9),
			T_REF(BTF_KIND_CONST, 0, 10), T_REF(BTF_KIND_CONST, 0, 11),
			T_REF(BTF_KIND_CONST, 0, 12), T_REF(BTF_KIND_CONST, 0, 13),
			T_REF(BTF_KIND_CONST, 0, 14), T_REF(BTF_KIND_CONST, 0, 15), T_PTR(16) } },
};

static struct blob build(const struct btf_case *c)
{
	u32 n = c->nwords;
	struct blob b;

	if (!n)
		for (u32 i = 0; i < ARRAY_SIZE(c->types); i++)
			if (c->types[i])
				n = i + 1;
	b = btf_blob(c->types, n, STRS, S_END);
	if (c->fix)
		c->fix(&b);
	return b;
}

#define LOG_SIZE 65536

struct outcome {
	int rc, err;
	char log[LOG_SIZE];
};

static void load(const struct bpf_backend *be, const struct blob *b, const void *data,
		 struct outcome *o)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.btf = PTR_TO_U64(data);
	a.btf_size = b->size;
	a.btf_log_buf = PTR_TO_U64(o->log);
	a.btf_log_size = LOG_SIZE;
	a.btf_log_level = 1;
	o->log[0] = 0;
	errno = 0;
	o->rc = be->bpf(BPF_BTF_LOAD, &a, sizeof(a));
	o->err = o->rc < 0 ? errno : 0;
	if (o->rc >= 0)
		close(o->rc);
}

/* The log's last line (the error, when there is one). */
static const char *last_line(const char *log, char *buf, size_t size)
{
	size_t n = strlen(log);
	const char *p;

	while (n && log[n - 1] == '\n')
		n--;
	p = log + n;
	while (p > log && p[-1] != '\n')
		p--;
	snprintf(buf, size, "%.*s", (int)(log + n - p), p);
	return buf;
}

static struct outcome ou, ok;

TEST(btf_load_differential)
{
	unsigned agree = 0, same_log = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct blob b = build(&cases[i]);
		char lu[256], lk[256];

		load(&backend_userbpf, &b, b.data, &ou);
		load(&backend_kernel, &b, b.data, &ok);
		last_line(ou.log, lu, sizeof(lu));
		last_line(ok.log, lk, sizeof(lk));
		if ((ou.rc < 0) == (ok.rc < 0) && ou.err == ok.err && !strcmp(lu, lk)) {
			agree++;
			same_log += !strcmp(ou.log, ok.log);
		} else {
			test_fail(__FILE__, __LINE__,
				  "%s: userbpf %d/%d '%s', kernel %d/%d '%s'", cases[i].name,
				  ou.rc < 0 ? -1 : 0, ou.err, lu, ok.rc < 0 ? -1 : 0, ok.err, lk);
		}
		if (getenv("BTF_TEST_VERBOSE") && strcmp(ou.log, ok.log))
			fprintf(stderr, "== %s\n-- userbpf:\n%s\n-- kernel:\n%s\n", cases[i].name,
				ou.log, ok.log);
		free(b.data);
	}
	fprintf(stderr, "btf_load_differential: %u/%zu agree (rc, errno, error line), %u with "
		"the whole log equal\n", agree, ARRAY_SIZE(cases), same_log);
}

/* The attr rules around the blob: size limit, pointers, log attributes, flags, log space. */
TEST(btf_load_attr_differential)
{
	static const struct btf_case ok_case = { "valid", { INT32 } };
	struct blob b = build(&ok_case);
	static char small[16];
	struct {
		const char *name;
		u64 btf;
		u32 size, log_size, level, flags_word;
		bool log_buf;
	} t[] = {
		{ "ok_no_log", PTR_TO_U64(b.data), b.size, 0, 0, 0, false },
		{ "too_big", PTR_TO_U64(b.data), BTF_MAX_SIZE_TEST + 1, 0, 0, 0, false },
		{ "null_data", 0, b.size, 0, 0, 0, false },
		{ "size0", PTR_TO_U64(b.data), 0, 0, 0, 0, false },
		{ "level_no_buf", PTR_TO_U64(b.data), b.size, 0, 1, 0, false },
		{ "buf_no_level", PTR_TO_U64(b.data), b.size, sizeof(small), 0, 0, true },
		{ "bad_level", PTR_TO_U64(b.data), b.size, sizeof(small), 0x20, 0, true },
		{ "log_too_small", PTR_TO_U64(b.data), b.size, sizeof(small), 1, 0, true },
		{ "flags", PTR_TO_U64(b.data), b.size, 0, 0, 1, false },
		{ "token_flag", PTR_TO_U64(b.data), b.size, 0, 0, 1u << 16, false },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct bpf_result r[2];
		const struct bpf_backend *be[2] = { &backend_userbpf, &backend_kernel };
		u32 true_size[2];

		for (int s = 0; s < 2; s++) {
			u8 raw[168];
			union bpf_attr *a = (union bpf_attr *)raw;

			memset(raw, 0, sizeof(raw));
			a->btf = t[i].btf;
			a->btf_size = t[i].size;
			a->btf_log_buf = t[i].log_buf ? PTR_TO_U64(small) : 0;
			a->btf_log_size = t[i].log_size;
			a->btf_log_level = t[i].level;
			memcpy(raw + 32, &t[i].flags_word, 4);
			r[s] = backend_call(be[s], BPF_BTF_LOAD, raw, 40);
			memcpy(&true_size[s], raw + 28, 4);
			if (r[s].rc >= 0)
				close(r[s].rc);
		}
		if ((r[0].rc < 0) != (r[1].rc < 0) || r[0].err != r[1].err ||
		    true_size[0] != true_size[1])
			test_fail(__FILE__, __LINE__, "%s: userbpf %d/%d true_size %u, kernel %d/%d "
				  "true_size %u", t[i].name, r[0].rc < 0 ? -1 : 0, r[0].err,
				  true_size[0], r[1].rc < 0 ? -1 : 0, r[1].err, true_size[1]);
	}
	free(b.data);
}

/* A BTF fd is an object: close() releases it. */
TEST(btf_fd_close_releases)
{
	static const struct btf_case ok_case = { "valid", { INT32 } };
	struct blob b = build(&ok_case);
	union bpf_attr a;
	unsigned before = obj_live_count();
	int fd;

	memset(&a, 0, sizeof(a));
	a.btf = PTR_TO_U64(b.data);
	a.btf_size = b.size;
	fd = bpf(BPF_BTF_LOAD, &a, sizeof(a));
	REQUIRE(fd >= 0);
	CHECK_EQ(obj_live_count(), before + 1);
	close(fd);
	CHECK_EQ(obj_live_count(), before);
	free(b.data);
}
