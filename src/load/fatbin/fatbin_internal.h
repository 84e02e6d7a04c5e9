/* Private to src/load/fatbin and its tools: little-endian reads and the error message. */
#ifndef BF16SHIM_FATBIN_INTERNAL_H
#define BF16SHIM_FATBIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t fb__rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t fb__rd32(const uint8_t *p)
{
	return (uint32_t)fb__rd16(p) | (uint32_t)fb__rd16(p + 2) << 16;
}

static inline uint64_t fb__rd64(const uint8_t *p)
{
	return (uint64_t)fb__rd32(p) | (uint64_t)fb__rd32(p + 4) << 32;
}

/* Writes the message into err (when there is room) and returns status. */
int fb__fail(char *err, size_t errlen, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
