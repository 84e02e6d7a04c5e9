/* C reference for the kernel tests (see ref.h). */
#include "ref.h"

#include <math.h>
#include <string.h>

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

void push_epi_extra(void **argv, int *n, struct epi_extra *e)
{
	argv[(*n)++] = &e->bias;
	argv[(*n)++] = &e->bias_type;
	argv[(*n)++] = &e->bias_along;
	argv[(*n)++] = &e->bias_bstride;
	argv[(*n)++] = &e->act;
}

float ref_load(int type, const void *base, uint64_t i)
{
	const unsigned char *p = base;
	uint32_t v = 0;
	if (type == KERNEL_TYPE_F32) {
		memcpy(&v, p + 4 * i, 4);
		return f32_of(v);
	}
	memcpy(&v, p + 2 * i, 2);
	return type == KERNEL_TYPE_BF16 ? ref_bf16_to_f32((uint16_t)v) : ref_f16_to_f32((uint16_t)v);
}

double ref_gelu(double x)
{
	double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	if (isnan(x))
		return x;
	if (x == -INFINITY)
		return NAN;                 /* -Inf * 0 in the formula */
	return x / (1.0 + exp(-2.0 * u));
}

/* One f32 ulp at v: 2^-149 in the subnormal range. */
static double ulp_f32(double v)
{
	int e;
	frexp(fabs(v), &e);
	return ldexp(1.0, (e - 24 < -149) ? -149 : e - 24);
}

void check_act(int ctype, uint32_t got, float pre, uint32_t act, const char *ctx)
{
	if (act != KERNEL_ACT_GELU) {
		float want = pre;
		if (act == KERNEL_ACT_RELU)
			want = pre > 0 ? pre : 0.0f;
		check_out(ctype, got, want, ctx);
		return;
	}
	double ref = ref_gelu(pre), tol = 4 * ulp_f32(ref);
	if (isnan(ref) || isinf(ref)) {
		check_out(ctype, got, (float)ref, ctx);
		return;
	}
	/* The kernel rounds its f32 result to ctype once: any rounding of a value within tol. */
	float lo = (float)(ref - tol), hi = (float)(ref + tol), g;
	if (ctype == KERNEL_TYPE_F32) {
		g = f32_of(got);
		CHECK(g >= lo && g <= hi && !(pre < 0 && !signbit(g)),
		      "%s: gelu(%a) = %a, want %a within 4 ulp", ctx, pre, g, ref);
		return;
	}
	g = ctype == KERNEL_TYPE_BF16 ? ref_bf16_to_f32((uint16_t)got) : ref_f16_to_f32((uint16_t)got);
	{
		float glo = ctype == KERNEL_TYPE_BF16 ? ref_bf16_to_f32(ref_bf16_rne(lo)) :
			    ref_f16_to_f32(ref_f16_rne(lo));
		float ghi = ctype == KERNEL_TYPE_BF16 ? ref_bf16_to_f32(ref_bf16_rne(hi)) :
			    ref_f16_to_f32(ref_f16_rne(hi));
		CHECK(g >= glo && g <= ghi, "%s: gelu(%a) = %a, want a rounding of %a", ctx, pre, g,
		      ref);
	}
}
