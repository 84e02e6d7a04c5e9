/* numeric.c against independent references: the compiler's _Float16 conversions (IEEE round to
 * nearest even) for fp16, generic significand rounding for bf16, and the FP8 encodings'
 * definitions.  Rounding is checked at every low-bit pattern that decides it, for every
 * sign/exponent/high-mantissa combination.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blas_internal.h"

static int failures;

#define CHECK_BITS(what, x, got, want)                                                    \
	do {                                                                              \
		if ((got) != (want) && failures++ < 10)                                   \
			fprintf(stderr, "%s(0x%08x): got 0x%04x, want 0x%04x\n", what,    \
				(unsigned)(x), (unsigned)(got), (unsigned)(want));        \
	} while (0)

static float from_bits(uint32_t x)
{
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static uint16_t half_ref(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t b;
	memcpy(&b, &h, 2);
	return b;
}

/* Round to 8 significant bits (bf16), nearest even, IEEE subnormals, overflow to inf. */
static uint16_t bf16_ref(float f)
{
	uint32_t x;
	int e;
	double d = f;

	if (d != 0 && isfinite(d)) {
		frexp(d, &e);
		if (e - 1 < -126)
			e = -125;
		d = nearbyint(ldexp(d, 8 - e)) * ldexp(1, e - 8);
	}
	f = (float)d; /* exact unless beyond FLT_MAX, which is inf as wanted */
	memcpy(&x, &f, 4);
	return (uint16_t)(x >> 16);
}

static void fp16_and_bf16(void)
{
	/* Low bits that decide rounding: below, at and above the halfway points of both
	 * formats (bit 12 for fp16, bit 15 for bf16), and the subnormal range's neighbours. */
	static const uint16_t lows[] = { 0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000,
					 0x3000, 0x7fff, 0x8000, 0x8001, 0xc000, 0xefff, 0xffff };
	long n = 0;

	for (uint32_t h = 0; h < 65536; h++) {
		_Float16 hv;
		uint16_t hb = (uint16_t)h;
		memcpy(&hv, &hb, 2);
		float want = (float)hv, got = blas_f16_to_f32(hb);
		if (memcmp(&want, &got, 4) && !(isnan(want) && isnan(got)) && failures++ < 10)
			fprintf(stderr, "f16_to_f32(0x%04x) = %g, want %g\n", h, got, want);
		uint32_t bw = h << 16;
		float bf = blas_bf16_to_f32(hb);
		if (memcmp(&bw, &bf, 4) && failures++ < 10)
			fprintf(stderr, "bf16_to_f32(0x%04x) wrong\n", h);

		for (size_t i = 0; i < sizeof(lows) / sizeof(lows[0]); i++) {
			uint32_t x = (h << 16) | lows[i];
			float f = from_bits(x);
			uint16_t g16 = blas_f32_to_f16(f), gb = blas_f32_to_bf16(f);
			n++;
			if (isnan(f)) {
				/* NaN stays a quiet NaN, sign kept. */
				CHECK_BITS("f32_to_f16 NaN", x, (g16 & 0x7e00) | (g16 & 0x8000),
					   0x7e00 | ((x >> 16) & 0x8000));
				CHECK_BITS("f32_to_bf16 NaN", x, (gb & 0x7fc0) | (gb & 0x8000),
					   0x7fc0 | ((x >> 16) & 0x8000));
				continue;
			}
			CHECK_BITS("f32_to_f16", x, g16, half_ref(f));
			CHECK_BITS("f32_to_bf16", x, gb, bf16_ref(f));
		}
	}
	printf("%ld fp32 values rounded to fp16 and bf16\n", n);
}

static void fp8(void)
{
	static const struct {
		cudaDataType t;
		uint8_t v;
		double want;
	} cases[] = {
		{ CUDA_R_8F_E4M3, 0x38, 1.0 },      { CUDA_R_8F_E4M3, 0x7e, 448.0 },
		{ CUDA_R_8F_E4M3, 0x01, 0x1p-9 },   { CUDA_R_8F_E4M3, 0x08, 0x1p-6 },
		{ CUDA_R_8F_E4M3, 0xc4, -3.0 },     { CUDA_R_8F_E4M3, 0x7f, NAN },
		{ CUDA_R_8F_E4M3, 0x78, 256.0 },    { CUDA_R_8F_E5M2, 0x3c, 1.0 },
		{ CUDA_R_8F_E5M2, 0x7b, 57344.0 },  { CUDA_R_8F_E5M2, 0x7c, INFINITY },
		{ CUDA_R_8F_E5M2, 0xfc, -INFINITY }, { CUDA_R_8F_E5M2, 0x7d, NAN },
		{ CUDA_R_8F_E5M2, 0x01, 0x1p-16 },  { CUDA_R_8F_E5M2, 0x3e, 1.5 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double got = blas_fp8_to_f32(cases[i].v, cases[i].t);
		if (!(got == cases[i].want || (isnan(got) && isnan(cases[i].want)))) {
			fprintf(stderr, "fp8(%d, 0x%02x) = %g, want %g\n", cases[i].t, cases[i].v, got,
				cases[i].want);
			failures++;
		}
	}
}

/* Every stored type reads back what was written, rounded once. */
static void load_store(void)
{
	unsigned char buf[64];
	static const cudaDataType types[] = { CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F,
					      CUDA_R_32I, CUDA_R_8I };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		cudaDataType t = types[i];
		memset(buf, 0xa5, sizeof buf);
		blas_store_f32(buf, 3, t, -5.0f);
		if (blas_load_f32(buf, 3, t) != -5.0f || blas_load_f64(buf, 3, t) != -5.0 ||
		    blas_load_i32(buf, 3, t) != -5) {
			fprintf(stderr, "load/store of %s\n", blas_type_name(t));
			failures++;
		}
		/* Neighbours untouched. */
		size_t es = blas_type_size(t);
		if (buf[2 * es + es - 1] != 0xa5 || buf[4 * es] != 0xa5) {
			fprintf(stderr, "store of %s wrote outside its element\n", blas_type_name(t));
			failures++;
		}
	}
	blas_store_f32(buf, 0, CUDA_R_16BF, 1.00390625f); /* 1 + 2^-8: tie, to even */
	if (blas_load_f32(buf, 0, CUDA_R_16BF) != 1.0f) {
		fprintf(stderr, "bf16 tie not to even\n");
		failures++;
	}
	blas_store_i32(buf, 0, CUDA_R_32I, INT32_MIN);
	if (blas_load_i32(buf, 0, CUDA_R_32I) != INT32_MIN) {
		fprintf(stderr, "int32 round trip\n");
		failures++;
	}
	if (strcmp(blas_type_name(CUDA_R_16BF), "R_16BF") || strcmp(blas_type_name(999), "999")) {
		fprintf(stderr, "type names\n");
		failures++;
	}
}

int main(void)
{
	fp16_and_bf16();
	fp8();
	load_store();
	if (failures) {
		fprintf(stderr, "numeric_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("numeric_test: all checks passed\n");
	return 0;
}
