/* Number formats of the simulated BLAS: sizes and names of cudaDataType values, exact
 * decoding of every input type, and rounding once (to nearest even) to every output type.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blas_internal.h"

static const struct type_info {
	int type;
	const char *name;
	size_t size;          /* 0: not held by the simulator (complex, sub-byte, unsigned) */
} types[] = {
	{ CUDA_R_16F, "R_16F", 2 },        { CUDA_C_16F, "C_16F", 0 },
	{ CUDA_R_16BF, "R_16BF", 2 },      { CUDA_C_16BF, "C_16BF", 0 },
	{ CUDA_R_32F, "R_32F", 4 },        { CUDA_C_32F, "C_32F", 0 },
	{ CUDA_R_64F, "R_64F", 8 },        { CUDA_C_64F, "C_64F", 0 },
	{ CUDA_R_4I, "R_4I", 0 },          { CUDA_C_4I, "C_4I", 0 },
	{ CUDA_R_4U, "R_4U", 0 },          { CUDA_C_4U, "C_4U", 0 },
	{ CUDA_R_8I, "R_8I", 1 },          { CUDA_C_8I, "C_8I", 0 },
	{ CUDA_R_8U, "R_8U", 0 },          { CUDA_C_8U, "C_8U", 0 },
	{ CUDA_R_16I, "R_16I", 0 },        { CUDA_C_16I, "C_16I", 0 },
	{ CUDA_R_16U, "R_16U", 0 },        { CUDA_C_16U, "C_16U", 0 },
	{ CUDA_R_32I, "R_32I", 4 },        { CUDA_C_32I, "C_32I", 0 },
	{ CUDA_R_32U, "R_32U", 0 },        { CUDA_C_32U, "C_32U", 0 },
	{ CUDA_R_64I, "R_64I", 0 },        { CUDA_C_64I, "C_64I", 0 },
	{ CUDA_R_64U, "R_64U", 0 },        { CUDA_C_64U, "C_64U", 0 },
	{ CUDA_R_8F_E4M3, "R_8F_E4M3", 1 }, { CUDA_R_8F_E5M2, "R_8F_E5M2", 1 },
	{ CUDA_R_8F_UE8M0, "R_8F_UE8M0", 0 }, { CUDA_R_6F_E2M3, "R_6F_E2M3", 0 },
	{ CUDA_R_6F_E3M2, "R_6F_E3M2", 0 }, { CUDA_R_4F_E2M1, "R_4F_E2M1", 0 },
};

static const struct type_info *type_lookup(int t)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == t)
			return &types[i];
	return NULL;
}

size_t blas_type_size(cudaDataType t)
{
	const struct type_info *ti = type_lookup(t);
	return ti ? ti->size : 0;
}

int blas_type_known(int t)
{
	return type_lookup(t) != NULL;
}

const char *blas_type_name(int t)
{
	static __thread char buf[16];
	const struct type_info *ti = type_lookup(t);

	if (ti)
		return ti->name;
	snprintf(buf, sizeof(buf), "%d", t);
	return buf;
}

static uint32_t f32_bits(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return x;
}

static float f32_from_bits(uint32_t x)
{
	float f;
	memcpy(&f, &x, 4);
	return f;
}

float blas_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;

	if (exp == 0x1f)
		return f32_from_bits(sign | 0x7f800000 | (mant << 13));
	if (exp == 0) {
		/* Subnormal: mant * 2^-24, exact in float. */
		float v = ldexpf((float)mant, -24);
		return sign ? -v : v;
	}
	return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t blas_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ax = x & 0x7fffffff;

	if (ax > 0x7f800000) /* NaN stays NaN, quiet */
		return sign | 0x7e00 | (uint16_t)((ax >> 13) & 0x3ff);
	if (ax >= 0x47800000) /* >= 65536 (and inf): beyond the last rounding step */
		return sign | 0x7c00;
	if (ax < 0x38800000) {
		/* Below 2^-14: a half subnormal, in units of 2^-24.  Scaling by 2^24 is exact;
		 * nearbyintf rounds to nearest even (default mode).  1024 is the smallest
		 * normal, whose encoding is the same number. */
		float v = nearbyintf(f32_from_bits(ax) * 16777216.0f);
		return sign | (uint16_t)v;
	}
	uint32_t h = ((((ax >> 23) - 112) << 10) | ((ax >> 13) & 0x3ff));
	uint32_t rest = ax & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++; /* a carry into the exponent is right, up to inf */
	return sign | (uint16_t)h;
}

float blas_bf16_to_f32(uint16_t h)
{
	return f32_from_bits((uint32_t)h << 16);
}

uint16_t blas_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);

	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40); /* keep NaN a (quiet) NaN */
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

float blas_fp8_to_f32(uint8_t v, cudaDataType t)
{
	int neg = v & 0x80;
	float r;

	if (t == CUDA_R_8F_E4M3) {
		/* E4M3 (fn): bias 7, no infinities, S.1111.111 is NaN. */
		int e = (v >> 3) & 0xf, m = v & 7;
		if (e == 0xf && m == 7)
			return NAN;
		r = e ? ldexpf((float)(8 + m), e - 10) : ldexpf((float)m, -9);
	} else {
		/* E5M2: IEEE-like, bias 15. */
		int e = (v >> 2) & 0x1f, m = v & 3;
		if (e == 0x1f)
			return m ? NAN : (neg ? -INFINITY : INFINITY);
		r = e ? ldexpf((float)(4 + m), e - 17) : ldexpf((float)m, -16);
	}
	return neg ? -r : r;
}

float blas_load_f32(const void *base, int64_t idx, cudaDataType t)
{
	const unsigned char *p = base;

	switch (t) {
	case CUDA_R_16F: {
		uint16_t h;
		memcpy(&h, p + idx * 2, 2);
		return blas_f16_to_f32(h);
	}
	case CUDA_R_16BF: {
		uint16_t h;
		memcpy(&h, p + idx * 2, 2);
		return blas_bf16_to_f32(h);
	}
	case CUDA_R_32F: {
		float f;
		memcpy(&f, p + idx * 4, 4);
		return f;
	}
	case CUDA_R_64F: {
		double d;
		memcpy(&d, p + idx * 8, 8);
		return (float)d;
	}
	case CUDA_R_8I:
		return (float)(int8_t)p[idx];
	case CUDA_R_32I: {
		int32_t i;
		memcpy(&i, p + idx * 4, 4);
		return (float)i;
	}
	case CUDA_R_8F_E4M3:
	case CUDA_R_8F_E5M2:
		return blas_fp8_to_f32(p[idx], t);
	default:
		return NAN;
	}
}

double blas_load_f64(const void *base, int64_t idx, cudaDataType t)
{
	if (t == CUDA_R_64F) {
		double d;
		memcpy(&d, (const unsigned char *)base + idx * 8, 8);
		return d;
	}
	if (t == CUDA_R_32I)
		return (double)blas_load_i32(base, idx, t);
	return (double)blas_load_f32(base, idx, t);
}

int32_t blas_load_i32(const void *base, int64_t idx, cudaDataType t)
{
	const unsigned char *p = base;

	if (t == CUDA_R_8I)
		return (int8_t)p[idx];
	if (t == CUDA_R_32I) {
		int32_t i;
		memcpy(&i, p + idx * 4, 4);
		return i;
	}
	return (int32_t)blas_load_f64(base, idx, t);
}

static int is_int_type(cudaDataType t)
{
	return t == CUDA_R_32I || t == CUDA_R_8I;
}

void blas_store_f32(void *base, int64_t idx, cudaDataType t, float v)
{
	unsigned char *p = base;
	uint16_t h;

	switch (t) {
	case CUDA_R_16F:
		h = blas_f32_to_f16(v);
		memcpy(p + idx * 2, &h, 2);
		break;
	case CUDA_R_16BF:
		h = blas_f32_to_bf16(v);
		memcpy(p + idx * 2, &h, 2);
		break;
	case CUDA_R_32F:
		memcpy(p + idx * 4, &v, 4);
		break;
	case CUDA_R_64F:
		blas_store_f64(base, idx, t, v);
		break;
	default:
		if (is_int_type(t))
			blas_store_i32(base, idx, t, (int32_t)v);
		break; /* no output of other types is simulated */
	}
}

void blas_store_f64(void *base, int64_t idx, cudaDataType t, double v)
{
	if (t == CUDA_R_64F)
		memcpy((unsigned char *)base + idx * 8, &v, 8);
	else if (is_int_type(t))
		blas_store_i32(base, idx, t, (int32_t)v);
	else
		blas_store_f32(base, idx, t, (float)v);
}

void blas_store_i32(void *base, int64_t idx, cudaDataType t, int32_t v)
{
	unsigned char *p = base;

	if (t == CUDA_R_32I)
		memcpy(p + idx * 4, &v, 4);
	else if (t == CUDA_R_8I)
		p[idx] = (unsigned char)v;
	else
		blas_store_f64(base, idx, t, (double)v);
}

void blas_scalar_copy(unsigned char dst[8], const void *src, cudaDataType t)
{
	size_t n = blas_type_size(t);

	memset(dst, 0, 8);
	memcpy(dst, src, n && n <= 8 ? n : 4);
}

int blas_scalar_is_zero(const unsigned char v[8], cudaDataType t)
{
	switch (t) {
	case CUDA_R_32I:
		return blas_load_i32(v, 0, t) == 0;
	case CUDA_R_64F:
		return blas_load_f64(v, 0, t) == 0.0;
	default:
		return blas_load_f32(v, 0, t) == 0.0f;
	}
}
