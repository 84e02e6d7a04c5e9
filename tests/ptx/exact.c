/* exact.c: the oracle (see exact.h).  Values are integers times powers of two; a sum of
 * two terms is formed exactly in 128 bits (a term more than 90 bits below the other is
 * replaced by a tiny one of the same sign: it can only act as a sticky bit), and
 * ex_round_int() rounds once, with the ISA's special cases handled around it. */
#include <math.h>
#include <string.h>

#include "exact.h"
#include "lower_internal.h"

typedef unsigned __int128 u128;

static const struct { int p, emin, emax; } F[] = {
	[FMT_BF16] = { 8, -126, 127 }, [FMT_F16] = { 11, -14, 15 },
	[FMT_F32] = { 24, -126, 127 }, [FMT_F64] = { 53, -1022, 1023 },
};

static int msb128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);
	return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)v);
}

static uint64_t encode(int fmt, int neg, uint64_t kept, int q)
{
	int p = F[fmt].p, ebits = fmt == FMT_F16 ? 5 : fmt == FMT_F64 ? 11 : 8;
	int bias = (1 << (ebits - 1)) - 1, nb = ebits + p - 1;
	uint64_t e = kept >> (p - 1) ? (uint64_t)(q + p - 1 + bias) : 0;
	uint64_t frac = kept & ((1ull << (p - 1)) - 1);
	return ((uint64_t)neg << nb) | (e << (p - 1)) | frac;
}

static uint64_t max_finite(int fmt, int neg)
{
	int p = F[fmt].p;
	return encode(fmt, neg, (1ull << p) - 1, F[fmt].emax - p + 1);
}

static uint64_t infinity(int fmt, int neg)
{
	return max_finite(fmt, neg) + 1;
}

static uint64_t round128(int neg, u128 mag, int exp, int fmt, int rnd, unsigned flags)
{
	int p = F[fmt].p;
	if (flags & M_RELU && neg)
		return 0;
	if (mag == 0)
		return encode(fmt, neg, 0, F[fmt].emin - p + 1);
	int E = exp + msb128(mag);
	int q = (E > F[fmt].emin ? E : F[fmt].emin) - (p - 1);
	int shift = q - exp;
	u128 kept;
	int half = 0, rest = 0;
	if (shift > 0 && shift < 64 && !(mag >> 64)) {   /* the common case, in 64 bits */
		uint64_t m = (uint64_t)mag, rem = m & ((1ull << shift) - 1);
		kept = m >> shift;
		half = (int)((rem >> (shift - 1)) & 1);
		rest = (rem & ((1ull << (shift - 1)) - 1)) != 0;
	} else if (shift <= 0) {
		kept = mag << -shift;
	} else if (shift > 128) {
		kept = 0, rest = 1;
	} else if (shift == 128) {
		kept = 0, half = msb128(mag) == 127, rest = (mag << 1) != 0;
	} else {
		kept = mag >> shift;
		u128 rem = mag & (((u128)1 << shift) - 1);
		half = (int)((rem >> (shift - 1)) & 1);
		rest = (rem & (((u128)1 << (shift - 1)) - 1)) != 0;
	}
	int inexact = half || rest, up;
	switch (rnd) {
	case RND_RZ: up = 0; break;
	case RND_RM: up = neg && inexact; break;
	case RND_RP: up = !neg && inexact; break;
	default: up = half && (rest || (kept & 1)); break;
	}
	kept += (u128)up;
	if (kept >> p) {
		kept >>= 1;
		q++;
	}
	if (q + p - 1 > F[fmt].emax) {
		int to_inf = rnd == RND_RZ ? 0 : rnd == RND_RM ? neg : rnd == RND_RP ? !neg : 1;
		return to_inf && !(flags & M_SATF) ? infinity(fmt, neg) : max_finite(fmt, neg);
	}
	return encode(fmt, neg, (uint64_t)kept, q);
}

uint64_t ex_round_int(int neg, uint64_t mag, int exp, int fmt, int rnd, unsigned flags)
{
	return round128(neg, mag, exp, fmt, rnd, flags);
}

/* A finite value: (-1)^neg * mag * 2^exp. */
typedef struct term {
	int neg;
	uint64_t mag;
	int exp;
} term;

static term bf16_term(uint16_t h)
{
	int E = (h >> 7) & 0xff;
	term t = { h >> 15, (uint64_t)(h & 0x7f) | (E ? 0x80u : 0), E ? E - 134 : -133 };
	return t;
}

int ex_is_nan16(uint16_t h)
{
	return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static int bf_is_inf(uint16_t h)
{
	return (h & 0x7fff) == 0x7f80;
}

double ex_bf16_value(uint16_t h)
{
	if (ex_is_nan16(h))
		return NAN;
	if (bf_is_inf(h))
		return h >> 15 ? -INFINITY : INFINITY;
	term t = bf16_term(h);
	double v = ldexp((double)t.mag, t.exp);
	return t.neg ? -v : v;
}

/* Rounds x + y exactly (rnd, flags); an exact zero sum takes IEEE's sign rule. */
static uint16_t sum_round(term x, term y, unsigned flags)
{
	if (x.mag == 0 && y.mag == 0)
		return (uint16_t)round128(x.neg && y.neg, 0, 0, FMT_BF16, RND_RN, flags);
	if (x.mag == 0)
		return (uint16_t)round128(y.neg, y.mag, y.exp, FMT_BF16, RND_RN, flags);
	if (y.mag == 0)
		return (uint16_t)round128(x.neg, x.mag, x.exp, FMT_BF16, RND_RN, flags);
	int tx = x.exp + 63 - __builtin_clzll(x.mag), ty = y.exp + 63 - __builtin_clzll(y.mag);
	if (tx < ty) {
		term t = x;
		x = y, y = t;
		int u = tx;
		tx = ty, ty = u;
	}
	if (tx - ty > 90) {   /* only a sticky bit below everything that matters */
		y.mag = 1;
		y.exp = tx - 100;
	}
	int e = x.exp < y.exp ? x.exp : y.exp;
	u128 X = (u128)x.mag << (x.exp - e), Y = (u128)y.mag << (y.exp - e);
	if (x.neg == y.neg)
		return (uint16_t)round128(x.neg, X + Y, e, FMT_BF16, RND_RN, flags);
	if (X == Y)
		return (uint16_t)round128(0, 0, 0, FMT_BF16, RND_RN, flags);
	return X > Y ? (uint16_t)round128(x.neg, X - Y, e, FMT_BF16, RND_RN, flags)
		     : (uint16_t)round128(y.neg, Y - X, e, FMT_BF16, RND_RN, flags);
}

uint16_t ex_fma(uint16_t a, uint16_t b, uint16_t c, int relu)
{
	unsigned fl = relu ? M_RELU : 0;
	int pneg = (a ^ b) >> 15;
	if (ex_is_nan16(a) || ex_is_nan16(b) || ex_is_nan16(c))
		return BF16_NAN;
	int ainf = bf_is_inf(a), binf = bf_is_inf(b), azero = !(a & 0x7fff), bzero = !(b & 0x7fff);
	if ((ainf && bzero) || (binf && azero))
		return BF16_NAN;
	if (ainf || binf) {
		if (bf_is_inf(c) && (c >> 15) != pneg)
			return BF16_NAN;
		return relu && pneg ? 0 : (uint16_t)(0x7f80 | pneg << 15);
	}
	if (bf_is_inf(c))
		return relu && (c >> 15) ? 0 : c;
	term x = bf16_term(a), y = bf16_term(b), z = bf16_term(c);
	term prod = { pneg, x.mag * y.mag, x.exp + y.exp };
	return sum_round(prod, z, fl);
}

uint16_t ex_add(uint16_t a, uint16_t b)
{
	return ex_fma(a, 0x3f80, b, 0);   /* a * 1 + b is exactly a + b */
}

uint16_t ex_sub(uint16_t a, uint16_t b)
{
	return ex_fma(b, 0xbf80, a, 0);   /* b * -1 + a */
}

uint16_t ex_mul(uint16_t a, uint16_t b)
{
	/* a*b + (-0): exact zero products keep their sign, everything else is a*b. */
	return ex_fma(a, b, 0x8000, 0);
}

uint16_t ex_minmax(uint16_t a, uint16_t b, int is_max, int nan, int xorsign)
{
	uint16_t xs = (a ^ b) & 0x8000, d;
	if (xorsign) {
		a &= 0x7fff;
		b &= 0x7fff;
	}
	int na = ex_is_nan16(a), nb = ex_is_nan16(b);
	if ((na && nb) || (nan && (na || nb))) {
		d = BF16_NAN;
	} else if (na) {
		d = b;
	} else if (nb) {
		d = a;
	} else {
		double x = ex_bf16_value(a), y = ex_bf16_value(b);
		if (x == y)   /* -0 < +0 */
			d = is_max ? (a >> 15 ? b : a) : (a >> 15 ? a : b);
		else
			d = (x < y) != is_max ? a : b;
	}
	if (xorsign && !ex_is_nan16(d))
		d = (uint16_t)((d & 0x7fff) | xs);
	return d;
}

int ex_compare(const char *cmp, uint16_t a, uint16_t b)
{
	double x = ex_bf16_value(a), y = ex_bf16_value(b);
	int un = isnan(x) || isnan(y), u = cmp[2] == 'u' || !strcmp(cmp, "neu") ? 1 : 0;
	char base[3] = { cmp[0], cmp[1], 0 };
	if (!strcmp(cmp, "num"))
		return !un;
	if (!strcmp(cmp, "nan"))
		return un;
	if (un)
		return u;
	if (!strcmp(base, "eq")) return x == y;
	if (!strcmp(base, "ne")) return x != y;
	if (!strcmp(base, "lt")) return x < y;
	if (!strcmp(base, "le")) return x <= y;
	if (!strcmp(base, "gt")) return x > y;
	return x >= y;
}

uint16_t ex_f32_to_bf16(uint32_t x, int rnd, unsigned flags)
{
	int neg = x >> 31, E = (x >> 23) & 0xff;
	uint32_t frac = x & 0x7fffff;
	if (E == 0xff && frac)
		return BF16_NAN;
	if (E == 0xff) {
		if ((flags & M_RELU) && neg)
			return 0;
		return (uint16_t)((flags & M_SATF) ? max_finite(FMT_BF16, neg) : infinity(FMT_BF16, neg));
	}
	return (uint16_t)round128(neg, E ? frac | 0x800000u : frac, E ? E - 150 : -149, FMT_BF16,
				  rnd, flags);
}

uint32_t ex_bf16_to_f32(uint16_t h, int rounded, int ftz)
{
	if (ftz && !(h & 0x7f80))
		return (uint32_t)(h & 0x8000) << 16;
	if (ex_is_nan16(h) && (rounded || ftz))
		return F32_NAN;
	return (uint32_t)h << 16;
}

uint16_t ex_f16_to_bf16(uint16_t h, int rnd)
{
	int neg = h >> 15, E = (h >> 10) & 0x1f;
	uint32_t frac = h & 0x3ff;
	if (E == 0x1f)
		return frac ? BF16_NAN : (uint16_t)infinity(FMT_BF16, neg);
	return (uint16_t)round128(neg, E ? frac | 0x400u : frac, E ? E - 25 : -24, FMT_BF16, rnd, 0);
}

uint16_t ex_bf16_to_f16(uint16_t h, int rnd)
{
	if (ex_is_nan16(h))
		return F16_NAN;
	if (bf_is_inf(h))
		return (uint16_t)infinity(FMT_F16, h >> 15);
	term t = bf16_term(h);
	return (uint16_t)round128(t.neg, t.mag, t.exp, FMT_F16, rnd, 0);
}

uint16_t ex_f64_to_bf16(uint64_t x, int rnd)
{
	int neg = (int)(x >> 63), E = (int)((x >> 52) & 0x7ff);
	uint64_t frac = x & ((1ull << 52) - 1);
	if (E == 0x7ff)
		return frac ? BF16_NAN : (uint16_t)infinity(FMT_BF16, neg);
	return (uint16_t)round128(neg, E ? frac | (1ull << 52) : frac, E ? E - 1075 : -1074,
				  FMT_BF16, rnd, 0);
}

uint16_t ex_int_to_bf16(uint64_t v, int is_signed, int bits, int rnd)
{
	if (bits < 64)
		v &= (1ull << bits) - 1;
	int neg = is_signed && (v >> (bits - 1)) & 1;
	uint64_t mag = neg ? (bits == 64 ? 0 - v : (1ull << bits) - v) : v;
	return (uint16_t)round128(neg, mag, 0, FMT_BF16, rnd, 0);
}

/* The integer nearest to (-1)^neg * mag * 2^exp in mode irnd, as a magnitude (saturated
 * at 2^64 - 1) and a sign. */
static uint64_t round_integral(term t, int irnd, int *neg_out)
{
	uint64_t q, rem, half;
	*neg_out = t.neg;
	if (t.exp >= 0)
		return t.exp + 63 - __builtin_clzll(t.mag) >= 64 ? ~0ull : t.mag << t.exp;
	int s = -t.exp;
	q = s >= 64 ? 0 : t.mag >> s;
	rem = s >= 64 ? t.mag : t.mag & ((1ull << s) - 1);
	half = s >= 64 ? 0 : 1ull << (s - 1);
	int inexact = rem != 0, up;
	switch (irnd) {
	case RND_RZI: up = 0; break;
	case RND_RMI: up = t.neg && inexact; break;
	case RND_RPI: up = !t.neg && inexact; break;
	default: up = s < 64 && (rem > half || (rem == half && (q & 1))); break;
	}
	return q + (uint64_t)up;
}

uint64_t ex_bf16_to_int(uint16_t h, int is_signed, int bits, int irnd)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
	uint64_t smax = (1ull << (bits - 1)) - 1;
	if (ex_is_nan16(h))
		return bits == 64 ? 1ull << 63 : 0;
	int neg;
	uint64_t m = bf_is_inf(h) ? ~0ull : round_integral(bf16_term(h), irnd, &neg);
	if (bf_is_inf(h))
		neg = h >> 15;
	if (!is_signed)
		return neg ? 0 : m > mask ? mask : m;
	if (neg)
		return m > smax + 1 ? (smax + 1) & mask : (0 - m) & mask;
	return m > smax ? smax : m;
}

uint16_t ex_bf16_round_integral(uint16_t h, int irnd)
{
	if (ex_is_nan16(h))
		return BF16_NAN;
	if (bf_is_inf(h) || !(h & 0x7fff) || bf16_term(h).exp >= 0)
		return h;   /* already integral */
	int neg;
	uint64_t m = round_integral(bf16_term(h), irnd, &neg);
	return (uint16_t)round128(neg, m, 0, FMT_BF16, RND_RN, 0);
}
