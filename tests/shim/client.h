/* What the driver-API test clients share: a file read whole (with NUL padding after it,
 * so PTX text is terminated and a fatbin can be handed over with trailing NULs) and bf16
 * rounding on the host. */
#ifndef BF16SHIM_TEST_CLIENT_H
#define BF16SHIM_TEST_CLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file at path followed by pad (at least 1) NUL bytes; *len: the file's bytes. */
static inline char *client_read(const char *path, size_t pad, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	s = calloc(1, (size_t)n + pad);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		s = NULL;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return s;
}

/* float -> bf16, round to nearest even; NaN -> the canonical 0x7fff. */
static inline uint16_t client_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return 0x7fff;
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

#endif
