/* fpconv.c: exact conversions between binary floating-point formats.
 *
 * Everything narrower than double is produced by one rounding routine that works on the
 * integer significand, so every rounding mode (and .satfinite/.relu) is exact without
 * depending on the host's floating-point environment.  NaN results are the canonical
 * NaN of the format (0x7fff for f16 and bf16, as the hardware and cuda_bf16.hpp do).
 */
#include <math.h>

#include "ptx_internal.h"

typedef struct fmtinfo {
	int mbits, ebits, bias;
	uint64_t qnan;
} fmtinfo;

static const fmtinfo fmts[] = {
	[FMT_F16] = { 10, 5, 15, 0x7fff },
	[FMT_BF16] = { 7, 8, 127, 0x7fff },
	[FMT_F32] = { 23, 8, 127, 0x7fffffff },
	[FMT_F64] = { 52, 11, 1023, 0x7fffffffffffffffull },
};

/* Rounds (-1)^neg * mant * 2^exp (mant != 0; sticky: nonzero bits lie below mant). */
static uint64_t pack(int neg, uint64_t mant, int exp, int sticky, int fmt, int rnd, int flags)
{
	const fmtinfo *F = &fmts[fmt];
	int lz = __builtin_clzll(mant);
	mant <<= lz;
	exp -= lz;
	int e = exp + 63;                       /* exponent of the leading bit */
	int emin = 1 - F->bias;
	int q = (e > emin ? e : emin) - F->mbits; /* weight of the result's last bit */
	int shift = q - exp;                    /* > 0: bits of mant below that weight */
	uint64_t kept;
	int half, rest;
	if (shift >= 64) {
		kept = 0;
		half = shift == 64 ? (int)(mant >> 63) : 0;
		rest = shift == 64 ? ((mant << 1) != 0 || sticky) : 1;
	} else {
		kept = mant >> shift;
		uint64_t r = mant << (64 - shift);
		half = (int)(r >> 63);
		rest = (r << 1) != 0 || sticky;
	}
	int inexact = half || rest, up = 0;
	switch (rnd) {
	case RND_RZ: break;
	case RND_RM: up = neg && inexact; break;
	case RND_RP: up = !neg && inexact; break;
	case RND_RNA: up = half; break;
	default: up = half && (rest || (kept & 1)); break;
	}
	kept += (uint64_t)up;
	uint64_t inf = ((1ull << F->ebits) - 1) << F->mbits;
	uint64_t enc;
	if (q + F->mbits + F->bias - 1 >= (1 << F->ebits)) {
		enc = inf;
	} else {
		enc = ((uint64_t)(q + F->mbits + F->bias - 1) << F->mbits) + kept;
	}
	if (enc >= inf) {
		int to_inf;
		switch (rnd) {
		case RND_RZ: to_inf = 0; break;
		case RND_RM: to_inf = neg; break;
		case RND_RP: to_inf = !neg; break;
		default: to_inf = 1; break;
		}
		enc = to_inf && !(flags & F_SATFINITE) ? inf : inf - 1;
	}
	return enc | ((uint64_t)neg << (F->ebits + F->mbits));
}

uint64_t ptx__round_double(double x, int fmt, int rnd, int flags)
{
	const fmtinfo *F = &fmts[fmt];
	uint64_t b = of_f64(x);
	int neg = (int)(b >> 63);
	int E = (int)((b >> 52) & 0x7ff);
	uint64_t frac = b & ((1ull << 52) - 1);
	uint64_t sign = (uint64_t)neg << (F->ebits + F->mbits);
	uint64_t inf = ((1ull << F->ebits) - 1) << F->mbits;
	if (E == 0x7ff && frac)
		return F->qnan;
	if ((flags & F_RELU) && neg)
		return 0;
	if (E == 0x7ff)
		return sign | ((flags & F_SATFINITE) ? inf - 1 : inf);
	if (E == 0 && frac == 0)
		return sign;
	if (fmt == FMT_F64)
		return b;
	uint64_t mant = E ? frac | (1ull << 52) : frac;
	int exp = E ? E - 1075 : -1074;
	return pack(neg, mant, exp, 0, fmt, rnd, flags);
}

uint64_t ptx__round_int(uint64_t mag, int neg, int fmt, int rnd)
{
	if (!mag)
		return 0;
	return pack(neg, mag, 0, 0, fmt, rnd, 0);
}

double ptx__half_to_double(uint32_t h, int fmt)
{
	const fmtinfo *F = &fmts[fmt];
	int nb = F->ebits + F->mbits;
	int neg = (int)((h >> nb) & 1);
	int E = (int)((h >> F->mbits) & ((1u << F->ebits) - 1));
	uint32_t frac = h & ((1u << F->mbits) - 1);
	double v;
	if (E == (1 << F->ebits) - 1)
		v = frac ? NAN : INFINITY;
	else if (E == 0)
		v = ldexp((double)frac, 1 - F->bias - F->mbits);
	else
		v = ldexp((double)(frac | (1u << F->mbits)), E - F->bias - F->mbits);
	return neg ? -v : v;
}

/* a + b with its last bit forced odd when inexact ("round to odd"): rounding that result
 * again to a format with at least two fewer bits gives the correctly rounded sum. */
double ptx__add_odd(double a, double b)
{
	double s = a + b;
	if (!isfinite(s))
		return s;
	double bb = s - a;
	double err = (a - (s - bb)) + (b - bb);
	if (err != 0 && !(of_f64(s) & 1))
		s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
	return s;
}

uint32_t ptx__f32_to_bf16_rn(uint32_t f)
{
	return (uint32_t)ptx__round_double(f32_of(f), FMT_BF16, RND_RN, 0);
}

float ptx__ftz(float x)
{
	if (x != 0 && fabsf(x) < 0x1p-126f)
		return copysignf(0.0f, x);
	return x;
}

double ptx__ftz16(double x, int fmt)
{
	double tiny = fmt == FMT_F16 ? 0x1p-14 : 0x1p-126;
	if (x != 0 && fabs(x) < tiny)
		return copysign(0.0, x);
	return x;
}
