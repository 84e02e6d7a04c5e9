/* exact.h: the oracle: what each bf16 instruction computes, from the PTX ISA's
 * definitions, with exact (big fixed-point) arithmetic and one explicit rounding, so it
 * shares nothing with the lowered sequences or with the host's floating point.
 * Rounding modes and flags use lower_internal.h's RND_* and M_* values. */
#ifndef PTX_TEST_EXACT_H
#define PTX_TEST_EXACT_H

#include <stdint.h>

enum { FMT_BF16, FMT_F16, FMT_F32, FMT_F64 };

#define BF16_NAN 0x7fffu
#define F16_NAN 0x7fffu
#define F32_NAN 0x7fffffffu

/* Rounds an exact value given as (-1)^neg * mag * 2^exp (mag may be 0) to fmt. */
uint64_t ex_round_int(int neg, uint64_t mag, int exp, int fmt, int rnd, unsigned flags);

/* Conversions. */
uint16_t ex_f32_to_bf16(uint32_t x, int rnd, unsigned flags);
uint32_t ex_bf16_to_f32(uint16_t h, int rounded, int ftz);
uint16_t ex_f16_to_bf16(uint16_t h, int rnd);
uint16_t ex_bf16_to_f16(uint16_t h, int rnd);
uint16_t ex_f64_to_bf16(uint64_t x, int rnd);
uint16_t ex_int_to_bf16(uint64_t v, int is_signed, int bits, int rnd);
uint64_t ex_bf16_to_int(uint16_t h, int is_signed, int bits, int irnd);
uint16_t ex_bf16_round_integral(uint16_t h, int irnd);
double ex_bf16_value(uint16_t h);   /* exact (bf16 fits a double) */

/* Arithmetic, per 16-bit half. */
uint16_t ex_fma(uint16_t a, uint16_t b, uint16_t c, int relu);
uint16_t ex_add(uint16_t a, uint16_t b);
uint16_t ex_sub(uint16_t a, uint16_t b);
uint16_t ex_mul(uint16_t a, uint16_t b);
uint16_t ex_minmax(uint16_t a, uint16_t b, int is_max, int nan, int xorsign);

/* Comparisons: cmp is the PTX word ("lt", "geu", "num", ...). */
int ex_compare(const char *cmp, uint16_t a, uint16_t b);

int ex_is_nan16(uint16_t h);

#endif
