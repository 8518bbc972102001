/* Bob Jenkins' lookup3 hash ("jhash"), public domain, written from its description.  The kernel's
 * hash map hashes keys with it, so using the same function and seed 0 (BPF_F_ZERO_SEED) gives the
 * same bucket for every key, hence the kernel's iteration order. */
#ifndef USERBPF_JHASH_H
#define USERBPF_JHASH_H

#include <string.h>

#include "util.h"

#define JHASH_INITVAL 0xdeadbeefu

static inline u32 rol32(u32 w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

#define JHASH_MIX(a, b, c)                                                                       \
	do {                                                                                     \
		a -= c; a ^= rol32(c, 4); c += b;                                                \
		b -= a; b ^= rol32(a, 6); a += c;                                                \
		c -= b; c ^= rol32(b, 8); b += a;                                                \
		a -= c; a ^= rol32(c, 16); c += b;                                               \
		b -= a; b ^= rol32(a, 19); a += c;                                               \
		c -= b; c ^= rol32(b, 4); b += a;                                                \
	} while (0)

#define JHASH_FINAL(a, b, c)                                                                     \
	do {                                                                                     \
		c ^= b; c -= rol32(b, 14);                                                       \
		a ^= c; a -= rol32(c, 11);                                                       \
		b ^= a; b -= rol32(a, 25);                                                       \
		c ^= b; c -= rol32(b, 16);                                                       \
		a ^= c; a -= rol32(c, 4);                                                        \
		b ^= a; b -= rol32(a, 14);                                                       \
		c ^= b; c -= rol32(b, 24);                                                       \
	} while (0)

static inline u32 get_le32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4); /* little-endian hosts only: x86-64 and i386 */
	return v;
}

/* lookup3's hashlittle() over len bytes. */
static inline __attribute__((always_inline)) u32 jhash(const void *key, u32 len, u32 seed)
{
	const u8 *k = key;
	u32 a, b, c;

	a = b = c = JHASH_INITVAL + len + seed;
	if (len == 4) { /* the common key: the tail case of one word, without the loop and switch */
		a += get_le32(k);
		JHASH_FINAL(a, b, c);
		return c;
	}
	while (len > 12) {
		a += get_le32(k);
		b += get_le32(k + 4);
		c += get_le32(k + 8);
		JHASH_MIX(a, b, c);
		len -= 12;
		k += 12;
	}
	switch (len) {
	case 12: c += (u32)k[11] << 24; /* fall through */
	case 11: c += (u32)k[10] << 16; /* fall through */
	case 10: c += (u32)k[9] << 8;   /* fall through */
	case 9:  c += k[8];             /* fall through */
	case 8:  b += (u32)k[7] << 24;  /* fall through */
	case 7:  b += (u32)k[6] << 16;  /* fall through */
	case 6:  b += (u32)k[5] << 8;   /* fall through */
	case 5:  b += k[4];             /* fall through */
	case 4:  a += (u32)k[3] << 24;  /* fall through */
	case 3:  a += (u32)k[2] << 16;  /* fall through */
	case 2:  a += (u32)k[1] << 8;   /* fall through */
	case 1:  a += k[0];
		JHASH_FINAL(a, b, c);
		break;
	case 0:
		break;
	}
	return c;
}

#endif
