/* SHA-256 (FIPS 180-4), for the keys and checksums of the cache of lowered modules. */
#ifndef BF16SHIM_SHA256_H
#define BF16SHIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_final(struct sha256 *c, uint8_t digest[32]);
/* The digest of data as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
