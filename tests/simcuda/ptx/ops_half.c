/* ops_half.c: f16, f16x2, bf16 and bf16x2 arithmetic.
 *
 * Operands are widened to double exactly; products of two halves are exact in double,
 * sums are exact for f16 and rounded to odd for bf16 (whose exponent range is wide), so
 * the single rounding to the 16-bit format at the end is the correctly rounded result.
 * Packed types apply the operation to the low and the high half independently.
 */
#include <math.h>

#include "ptx_internal.h"

enum { HO_ADD, HO_SUB, HO_MUL, HO_FMA, HO_NEG, HO_ABS, HO_MIN, HO_MAX, HO_EX2, HO_TANH };

/* min/max (PTX ISA 9.7.4.7-8): -0 < +0; one NaN operand gives the other, two NaNs (or
 * one, with .NaN) the canonical NaN.  .xorsign.abs compares the magnitudes and gives a
 * non-NaN result the XOR of the operands' sign bits (taken before .abs, NaNs included). */
static uint32_t minmax16(const pinsn *in, uint32_t a, uint32_t b, double x, double y, int fmt)
{
	int xs = !!(in->flags & F_XORSIGN), mx = in->mode == HO_MAX;
	double r;
	if (xs) {
		x = fabs(x);
		y = fabs(y);
	}
	if (isnan(x) || isnan(y)) {
		if ((in->flags & F_NAN) || (isnan(x) && isnan(y)))
			return 0x7fffu;
		r = isnan(x) ? y : x;
	} else if (x == y && signbit(x) != signbit(y)) {
		r = mx ? 0.0 : -0.0;
	} else {
		r = mx ? (x > y ? x : y) : (x < y ? x : y);
	}
	uint32_t h = (uint32_t)ptx__round_double(r, fmt, RND_RN, 0);   /* exact */
	return xs ? (h & 0x7fffu) | ((a ^ b) & 0x8000u) : h;
}

static uint32_t half_op(const pinsn *in, uint32_t a, uint32_t b, uint32_t c, int fmt)
{
	int ftz = !!(in->flags & F_FTZ);
	double x = ptx__half_to_double(a, fmt), y = ptx__half_to_double(b, fmt);
	double z = ptx__half_to_double(c, fmt), r;
	if (ftz) {
		x = ptx__ftz16(x, fmt);
		y = ptx__ftz16(y, fmt);
		z = ptx__ftz16(z, fmt);
	}
	switch (in->mode) {
	case HO_ADD: r = fmt == FMT_BF16 ? ptx__add_odd(x, y) : x + y; break;
	case HO_SUB: r = fmt == FMT_BF16 ? ptx__add_odd(x, -y) : x - y; break;
	case HO_MUL: r = x * y; break;
	case HO_FMA: r = ptx__add_odd(x * y, z); break;
	case HO_NEG:
		if (ftz && x == 0)
			return (a ^ 0x8000u) & 0x8000u;
		return a ^ 0x8000u;
	case HO_ABS:
		if (ftz && x == 0)
			return 0;
		return a & 0x7fffu;
	case HO_MIN:
	case HO_MAX:
		return minmax16(in, a, b, x, y, fmt);
	case HO_EX2: r = exp2(x); break;
	default: r = tanh(x); break;
	}
	if (in->flags & F_SAT)
		r = isnan(r) ? 0.0 : r <= 0 ? 0.0 : r > 1 ? 1.0 : r;
	uint32_t h = (uint32_t)ptx__round_double(r, fmt, RND_RN, in->flags & F_RELU);
	if (ftz && (h & 0x7fffu) && (h & 0x7c00u) == 0)
		h &= 0x8000u;   /* subnormal f16 result */
	return h;
}

static int x_half(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	const uint64_t *B = in->s[1] != NOREG ? R(in->s[1]) : A;
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : A;
	int fmt = in->t == T_bf16 || in->t == T_bf16x2 ? FMT_BF16 : FMT_F16;
	int x2 = in->t == T_f16x2 || in->t == T_bf16x2;
	LANES(l, m) {
		uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l];
		uint32_t r = half_op(in, a & 0xffff, b & 0xffff, c & 0xffff, fmt);
		if (x2)
			r |= half_op(in, a >> 16, b >> 16, c >> 16, fmt) << 16;
		d[l] = r;
	}
	return 0;
}

static const struct { uint8_t op, mode, nsrc; } hops[] = {
	{ OP_add, HO_ADD, 2 }, { OP_sub, HO_SUB, 2 }, { OP_mul, HO_MUL, 2 },
	{ OP_fma, HO_FMA, 3 }, { OP_neg, HO_NEG, 1 }, { OP_abs, HO_ABS, 1 },
	{ OP_min, HO_MIN, 2 }, { OP_max, HO_MAX, 2 }, { OP_ex2, HO_EX2, 1 },
	{ OP_tanh, HO_TANH, 1 },
};

int ptx__dec_half(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op, t = dx_type(D, 0);
	int i = 0, n = (int)(sizeof(hops) / sizeof(hops[0]));
	while (i < n && hops[i].op != op)
		i++;
	if (i == n || dx_ntypes(D) != 1 || !ptx__type_half(t))
		return dx_bad(D);
	int mode = hops[i].mode, bf = t == T_bf16 || t == T_bf16x2;
	int rnd = dx_take_rnd(D);
	int ftz = dx_take(D, W_ftz), sat = dx_take(D, W_sat), relu = dx_take(D, W_relu);
	int nan = dx_take(D, W_NaN), approx = dx_take(D, W_approx);
	int xs = dx_take(D, W_xorsign), xabs = dx_take(D, W_abs);
	int arith = mode <= HO_FMA, minmax = mode == HO_MIN || mode == HO_MAX;
	if ((rnd && (rnd != RND_RN || !arith)) || (mode == HO_FMA && !rnd) ||
	    (ftz && bf && mode != HO_EX2) || (sat && (bf || !arith)) ||
	    (relu && mode != HO_FMA) || (relu && sat) ||
	    (nan && !minmax) || xs != xabs || (xs && !minmax) ||
	    (approx != (mode == HO_EX2 || mode == HO_TANH)) ||
	    (mode == HO_EX2 && bf && !ftz) || (mode == HO_TANH && ftz))
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->mode = (uint8_t)mode;
	in->rnd = (uint8_t)rnd;
	in->flags |= (ftz && !bf ? F_FTZ : 0) | (sat ? F_SAT : 0) | (relu ? F_RELU : 0) |
		     (nan ? F_NAN : 0) | (xs ? F_XORSIGN : 0);
	int nsrc = hops[i].nsrc;
	if (dx_nops(D, nsrc + 1, nsrc + 1))
		return -1;
	in->d[0] = dx_dst(D, 0);
	for (int k = 0; k < nsrc; k++)
		in->s[k] = dx_src(D, k + 1, ptx__type_size(t) == 4 ? T_b32 : T_b16);
	in->fn = x_half;
	return dx_done(D);
}
