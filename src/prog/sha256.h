/* SHA-256 (FIPS 180-4), for the kernel's program tag: 6.18 takes the first 8 bytes of the
 * SHA-256 digest of the instructions (prog/info.c). */
#ifndef USERBPF_PROG_SHA256_H
#define USERBPF_PROG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32

void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE]);

#endif
