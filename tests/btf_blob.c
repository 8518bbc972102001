/* Hand-built BTF blobs for tests (see btf_blob.h). */
#include <stdlib.h>
#include <string.h>

#include "btf_blob.h"

struct blob btf_blob(const uint32_t *types, uint32_t nwords, const char *strs, uint32_t strs_len)
{
	struct btf_header h = { BTF_MAGIC, BTF_VERSION, 0, sizeof(h), 0, 0, 0, 0 };
	uint32_t tlen = nwords * 4;
	struct blob b;

	h.type_len = tlen;
	h.str_off = tlen;
	h.str_len = strs_len;
	b.data = calloc(1, sizeof(h) + tlen + strs_len + 64);
	if (!b.data)
		abort();
	memcpy(b.data, &h, sizeof(h));
	memcpy(b.data + sizeof(h), types, tlen);
	memcpy(b.data + sizeof(h) + tlen, strs, strs_len);
	b.size = sizeof(h) + tlen + strs_len;
	return b;
}
