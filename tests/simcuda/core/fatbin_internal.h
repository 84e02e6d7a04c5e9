/* Private to fatbin.c and cubin.c: little-endian reads and the error message. */
#ifndef SIMCUDA_FATBIN_INTERNAL_H
#define SIMCUDA_FATBIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fatbin.h"

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

static inline uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Writes the message into err and returns FATBIN_EINVALID. */
int fatbin__fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* In a function with err and errlen: fails with the message. */
#define FAIL(...) return fatbin__fail(err, errlen, __VA_ARGS__)

#endif
