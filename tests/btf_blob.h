/* Hand-built BTF blobs for tests: a type section written as u32 words with the macros below, a
 * string table, assembled behind a header by btf_blob(). */
#ifndef USERBPF_TESTS_BTF_BLOB_H
#define USERBPF_TESTS_BTF_BLOB_H

#include <linux/btf.h>
#include <stdint.h>

#define INFO(kind, kf, vlen) (((uint32_t)(kf) << 31) | ((uint32_t)(kind) << 24) | (uint32_t)(vlen))
#define T_INT(name, size, enc, off, bits)                                                       \
	(name), INFO(BTF_KIND_INT, 0, 0), (size),                                               \
		((uint32_t)(enc) << 24 | (uint32_t)(off) << 16 | (bits))
#define T_REF(kind, name, type) (name), INFO(kind, 0, 0), (type)
#define T_PTR(type) T_REF(BTF_KIND_PTR, 0, type)
#define T_ARRAY(elem, idx, n) 0, INFO(BTF_KIND_ARRAY, 0, 0), 0, (elem), (idx), (n)
#define T_STRUCT(name, vlen, size) (name), INFO(BTF_KIND_STRUCT, 0, vlen), (size)
#define T_MEMBER(name, type, off) (name), (type), (off)
#define T_PROTO(ret, vlen) 0, INFO(BTF_KIND_FUNC_PROTO, 0, vlen), (ret)
#define T_PARAM(name, type) (name), (type)
#define T_FUNC(name, proto, linkage) (name), INFO(BTF_KIND_FUNC, 0, linkage), (proto)
#define T_VAR(name, type, linkage) (name), INFO(BTF_KIND_VAR, 0, 0), (type), (linkage)
#define T_DATASEC(name, vlen, size) (name), INFO(BTF_KIND_DATASEC, 0, vlen), (size)
#define T_VSI(type, off, size) (type), (off), (size)

struct blob {
	uint8_t *data;
	uint32_t size;
};

/* The blob of nwords type words and the strs_len bytes of strs (malloc'ed, with 64 spare
 * bytes for fix-ups). */
struct blob btf_blob(const uint32_t *types, uint32_t nwords, const char *strs, uint32_t strs_len);

#endif
