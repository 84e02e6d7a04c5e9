/* C reference for the kernel tests (see ref.h). */
#include "ref.h"

#include <math.h>

#include "harness.h"
#include "kernels.h"

static float decode(uint16_t h, int mant_bits, int exp_bits)
{
	int bias = (1 << (exp_bits - 1)) - 1, emax = (1 << exp_bits) - 1;
	int e = (h >> mant_bits) & emax, m = h & ((1 << mant_bits) - 1);
	double v;
	if (e == emax)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, 1 - bias - mant_bits);
	else
		v = ldexp(m + (1 << mant_bits), e - bias - mant_bits);
	return (float)((h >> (mant_bits + exp_bits)) ? -v : v);
}

float ref_bf16_to_f32(uint16_t h)
{
	return decode(h, 7, 8);
}

float ref_f16_to_f32(uint16_t h)
{
	return decode(h, 10, 5);
}

/* |v| rounded to nearest even with mant_bits fraction bits and minimum exponent emin
 * (below it the quantum stays 2^(emin - mant_bits): subnormals). */
static double round_to(double v, int mant_bits, int emin)
{
	if (v == 0 || isinf(v))
		return v;
	int e;
	frexp(v, &e);
	int ex = e - 1 < emin ? emin : e - 1;
	double q = ldexp(1.0, ex - mant_bits);
	return nearbyint(v / q) * q;
}

uint16_t ref_bf16_rne(float f)
{
	double r = round_to(fabs((double)f), 7, -126);
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	if (r > 0x1.fep127)
		return sign | 0x7f80;
	return sign | (uint16_t)(bits_of((float)r) >> 16);   /* r is exact in bf16 */
}

uint16_t ref_f16_rne(float f)
{
	double r = round_to(fabs((double)f), 10, -14);
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	if (r > 65504)
		return sign | 0x7c00;
	if (r < 0x1p-14)
		return sign | (uint16_t)(r * 0x1p24);
	int e;
	double m = frexp(r, &e);   /* r = m * 2^e, m in [0.5, 1) */
	return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}

/* s(word) of kernels.h, computed through frexp. */
int ref_scale(uint32_t w)
{
	uint16_t m = w & 0xffff;
	int e;
	if (!m)
		return 0;
	frexp(ref_bf16_to_f32(m), &e);
	return e - 1 - 15;
}

uint32_t ref_absmax_bits(uint16_t h)
{
	uint32_t a = h & 0x7fff;
	return a < 0x7f80 ? a : 0;
}

float ref_epilogue(float alpha, float d, float beta, float c)
{
	float t = alpha * d;
	if (beta != 0)
		t = fmaf(beta, c, t);
	return t;
}

void check_out(int ctype, uint32_t got, float want, const char *ctx)
{
	switch (ctype) {
	case KERNEL_TYPE_F32:
		if (isnan(want))
			CHECK(isnan(f32_of(got)), "%s: got 0x%08x, want NaN", ctx, got);
		else
			CHECK_BITS(got, bits_of(want), "%s (f32, want %a)", ctx, want);
		break;
	case KERNEL_TYPE_BF16:
		if (isnan(want))
			CHECK((got & 0x7fc0) == 0x7fc0, "%s: got 0x%04x, want quiet NaN", ctx, got);
		else
			CHECK_BITS(got, ref_bf16_rne(want), "%s (bf16 of %a)", ctx, want);
		break;
	default:
		if (isnan(want))
			CHECK((got & 0x7c00) == 0x7c00 && (got & 0x3ff), "%s: got 0x%04x, want NaN",
			      ctx, got);
		else
			CHECK_BITS(got, ref_f16_rne(want), "%s (f16 of %a)", ctx, want);
	}
}
