/* Shared by the fuzz targets: the libFuzzer entry point each defines, a byte reader that
 * turns fuzz input into arguments, and the invariant check that aborts with a message. */
#ifndef BF16SHIM_FUZZ_H
#define BF16SHIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the input front to back; past its end every read is zero. */
struct bytes {
	const uint8_t *p;
	size_t n, at;
};

static inline uint8_t take8(struct bytes *b)
{
	return b->at < b->n ? b->p[b->at++] : 0;
}

static inline uint64_t take64(struct bytes *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | take8(b);
	return v;
}

/* Aborts (libFuzzer then saves the input) when an invariant is broken; prints both sides. */
#define CHECK(cond, fmt, ...)                                                              \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: invariant broken: %s: " fmt "\n", __FILE__,  \
				__LINE__, #cond, __VA_ARGS__);                             \
			abort();                                                           \
		}                                                                          \
	} while (0)

#endif
