/* ops_float.c: f32 and f64 arithmetic, special functions, copysign and testp.
 *
 * .rn arithmetic is the host's IEEE arithmetic (no contraction: this file is built with
 * -ffp-contract=off); directed modes go through round.c.  .ftz flushes subnormal inputs
 * and results, .sat clamps to [0, 1] with NaN -> +0.  NaN results are the canonical NaN
 * the GPU produces (0x7fffffff).  The .approx functions use the host libm, which is
 * within the ulp bounds the PTX ISA documents for them.
 */
#include <math.h>

#include "ptx_internal.h"

enum { FO_ADD, FO_SUB, FO_MUL, FO_FMA, FO_DIV, FO_ABS, FO_NEG, FO_MIN, FO_MAX, FO_RCP,
       FO_SQRT, FO_RSQRT, FO_EX2, FO_LG2, FO_SIN, FO_COS, FO_TANH, FO_COPYSIGN, FO_RCP64A };

#define CANON32 0x7fffffffu
#define CANON64 0x7fffffffffffffffull

static float fmin_ptx(float a, float b, int nan, int mx)
{
	if (isnan(a) || isnan(b)) {
		if (nan || (isnan(a) && isnan(b)))
			return f32_of(CANON32);
		return isnan(a) ? b : a;
	}
	if (a == b)   /* -0.0 < +0.0 */
		return (signbit(a) != signbit(b)) ? (mx ? 0.0f : -0.0f) : a;
	return mx ? (a > b ? a : b) : (a < b ? a : b);
}

/* .xorsign.abs: min/max of the magnitudes, with the XOR of the operands' sign bits unless
 * the result is NaN (PTX ISA 9.7.3.11-12). */
static float fmin_xorsign(float a, float b, int nan, int mx)
{
	int neg = !!signbit(a) ^ !!signbit(b);
	float r = fmin_ptx(fabsf(a), fabsf(b), nan, mx);
	return isnan(r) ? r : neg ? -r : r;
}

static double dmin_ptx(double a, double b, int mx)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? f64_of(CANON64) : isnan(a) ? b : a;
	if (a == b)
		return (signbit(a) != signbit(b)) ? (mx ? 0.0 : -0.0) : a;
	return mx ? (a > b ? a : b) : (a < b ? a : b);
}

static float f32_eval(const pinsn *in, float a, float b, float c)
{
	int rnd = in->rnd, directed = rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP;
	switch (in->mode) {
	case FO_ADD: return directed ? ptx__f32_op(RO_ADD, rnd, a, b, 0) : a + b;
	case FO_SUB: return directed ? ptx__f32_op(RO_SUB, rnd, a, b, 0) : a - b;
	case FO_MUL: return directed ? ptx__f32_op(RO_MUL, rnd, a, b, 0) : a * b;
	case FO_FMA: return directed ? ptx__f32_op(RO_FMA, rnd, a, b, c) : fmaf(a, b, c);
	case FO_DIV: return directed ? ptx__f32_op(RO_DIV, rnd, a, b, 0) : a / b;
	case FO_ABS: return fabsf(a);
	case FO_NEG: return -a;
	case FO_MIN:
	case FO_MAX:
		if (in->flags & F_XORSIGN)
			return fmin_xorsign(a, b, in->flags & F_NAN, in->mode == FO_MAX);
		return fmin_ptx(a, b, in->flags & F_NAN, in->mode == FO_MAX);
	case FO_RCP: return directed ? ptx__f32_op(RO_RCP, rnd, a, 0, 0) : 1.0f / a;
	case FO_SQRT: return directed ? ptx__f32_op(RO_SQRT, rnd, a, 0, 0) : sqrtf(a);
	case FO_RSQRT: return (float)(1.0 / sqrt((double)a));
	case FO_EX2: return exp2f(a);
	case FO_LG2: return log2f(a);
	case FO_SIN: return sinf(a);
	case FO_COS: return cosf(a);
	case FO_TANH: return tanhf(a);
	default: return copysignf(b, a);
	}
}

static int x_f32(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	const uint64_t *B = in->s[1] != NOREG ? R(in->s[1]) : A;
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : A;
	int ftz = !!(in->flags & F_FTZ), sat = !!(in->flags & F_SAT);
	int bits = in->mode == FO_ABS || in->mode == FO_NEG || in->mode == FO_COPYSIGN;
	LANES(l, m) {
		float a = f32_of(A[l]), b = f32_of(B[l]), c = f32_of(C[l]);
		if (ftz) {
			a = ptx__ftz(a);
			b = ptx__ftz(b);
			c = ptx__ftz(c);
		}
		float r = f32_eval(in, a, b, c);
		if (ftz)
			r = ptx__ftz(r);
		if (sat)
			r = isnan(r) ? 0.0f : r <= 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
		d[l] = isnan(r) && !bits ? CANON32 : of_f32(r);
	}
	return 0;
}

/* The common .rn forms without modifiers, kept branch-free for speed. */
static int x_fadd(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]);
	float sb = in->mode == FO_SUB ? -1.0f : 1.0f;
	LANES(l, m) {
		float r = f32_of(A[l]) + sb * f32_of(B[l]);
		d[l] = r == r ? of_f32(r) : CANON32;
	}
	return 0;
}

static int x_fmul(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]);
	LANES(l, m) {
		float r = f32_of(A[l]) * f32_of(B[l]);
		d[l] = r == r ? of_f32(r) : CANON32;
	}
	return 0;
}

static int x_ffma(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]), *C = R(in->s[2]);
	LANES(l, m) {
		float r = fmaf(f32_of(A[l]), f32_of(B[l]), f32_of(C[l]));
		d[l] = r == r ? of_f32(r) : CANON32;
	}
	return 0;
}

static int x_f64(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	const uint64_t *B = in->s[1] != NOREG ? R(in->s[1]) : A;
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : A;
	int rnd = in->rnd, dir = rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP;
	LANES(l, m) {
		double a = f64_of(A[l]), b = f64_of(B[l]), c = f64_of(C[l]), r;
		switch (in->mode) {
		case FO_ADD: r = dir ? ptx__f64_op(RO_ADD, rnd, a, b, 0) : a + b; break;
		case FO_SUB: r = dir ? ptx__f64_op(RO_SUB, rnd, a, b, 0) : a - b; break;
		case FO_MUL: r = dir ? ptx__f64_op(RO_MUL, rnd, a, b, 0) : a * b; break;
		case FO_FMA: r = dir ? ptx__f64_op(RO_FMA, rnd, a, b, c) : fma(a, b, c); break;
		case FO_DIV: r = dir ? ptx__f64_op(RO_DIV, rnd, a, b, 0) : a / b; break;
		case FO_ABS: d[l] = A[l] & ~(1ull << 63); continue;
		case FO_NEG: d[l] = A[l] ^ (1ull << 63); continue;
		case FO_COPYSIGN: d[l] = (B[l] & ~(1ull << 63)) | (A[l] & (1ull << 63)); continue;
		case FO_MIN: r = dmin_ptx(a, b, 0); break;
		case FO_MAX: r = dmin_ptx(a, b, 1); break;
		case FO_RCP: r = dir ? ptx__f64_op(RO_RCP, rnd, a, 0, 0) : 1.0 / a; break;
		case FO_SQRT: r = dir ? ptx__f64_op(RO_SQRT, rnd, a, 0, 0) : sqrt(a); break;
		case FO_RSQRT:
			if (in->flags & F_FTZ && fabs(a) < 0x1p-1022)
				a = copysign(0.0, a);
			r = 1.0 / sqrt(a);
			break;
		default: {
			/* rcp.approx.ftz.f64: from the upper 32 bits of a; low word of d zero */
			uint64_t hi = A[l] & 0xffffffff00000000ull;
			double x = f64_of(hi);
			if (isnan(x)) {
				d[l] = 0x7fffffff00000000ull;
				continue;
			}
			if (fabs(x) < 0x1p-1022)
				x = copysign(0.0, x);
			r = 1.0 / x;
			if (fabs(r) < 0x1p-1022)
				r = copysign(0.0, r);
			d[l] = of_f64(r) & 0xffffffff00000000ull;
			continue;
		}
		}
		d[l] = isnan(r) ? CANON64 : of_f64(r);
	}
	return 0;
}

static int x_testp(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	LANES(l, m) {
		double a = in->t == T_f32 ? f32_of(A[l]) : f64_of(A[l]);
		int c = fpclassify(a), r;
		if (in->t == T_f32 && c == FP_NORMAL && fabs(a) < 0x1p-126)
			c = FP_SUBNORMAL;
		switch (in->mode) {
		case 0: r = isfinite(a); break;
		case 1: r = isinf(a); break;
		case 2: r = !isnan(a); break;
		case 3: r = isnan(a); break;
		case 4: r = c == FP_NORMAL; break;
		default: r = c == FP_SUBNORMAL; break;
		}
		d[l] = (uint64_t)r;
	}
	return 0;
}

static const struct { uint8_t op, mode, nsrc; } fops[] = {
	{ OP_add, FO_ADD, 2 }, { OP_sub, FO_SUB, 2 }, { OP_mul, FO_MUL, 2 },
	{ OP_fma, FO_FMA, 3 }, { OP_mad, FO_FMA, 3 }, { OP_div, FO_DIV, 2 },
	{ OP_abs, FO_ABS, 1 }, { OP_neg, FO_NEG, 1 }, { OP_min, FO_MIN, 2 },
	{ OP_max, FO_MAX, 2 }, { OP_rcp, FO_RCP, 1 }, { OP_sqrt, FO_SQRT, 1 },
	{ OP_rsqrt, FO_RSQRT, 1 }, { OP_ex2, FO_EX2, 1 }, { OP_lg2, FO_LG2, 1 },
	{ OP_sin, FO_SIN, 1 }, { OP_cos, FO_COS, 1 }, { OP_tanh, FO_TANH, 1 },
	{ OP_copysign, FO_COPYSIGN, 2 },
};

static int dec_testp(pdec *D)
{
	pinsn *in = D->in;
	static const uint16_t w[] = { W_finite, W_infinite, W_number, W_notanumber, W_normal,
				      W_subnormal };
	int mode = -1;
	for (int i = 0; i < 6 && mode < 0; i++)
		if (dx_take(D, w[i]))
			mode = i;
	int t = dx_type(D, 0);
	if (mode < 0 || dx_ntypes(D) != 1 || !ptx__type_float(t) || dx_nops(D, 2, 2))
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->mode = (uint8_t)mode;
	in->d[0] = dx_dst(D, 0);
	in->s[0] = dx_src(D, 1, t);
	in->fn = x_testp;
	return dx_done(D);
}

int ptx__dec_float(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op, t = dx_type(D, 0);
	if (op == OP_testp)
		return dec_testp(D);
	int i = 0, n = (int)(sizeof(fops) / sizeof(fops[0]));
	while (i < n && fops[i].op != op)
		i++;
	if (i == n || dx_ntypes(D) != 1 || !ptx__type_float(t))
		return dx_bad(D);
	int mode = fops[i].mode, nsrc = fops[i].nsrc, f32 = t == T_f32;
	int rnd = dx_take_rnd(D);
	int approx = dx_take(D, W_approx), full = dx_take(D, W_full);
	int ftz = dx_take(D, W_ftz), sat = dx_take(D, W_sat), nan = dx_take(D, W_NaN);
	int xs = dx_take(D, W_xorsign), xabs = dx_take(D, W_abs);
	if (rnd > RND_RP || (rnd && (approx || full)) || (full && op != OP_div) ||
	    xs != xabs || (xs && (!f32 || (mode != FO_MIN && mode != FO_MAX))) ||
	    (sat && (!f32 || (mode != FO_ADD && mode != FO_SUB && mode != FO_MUL &&
			      mode != FO_FMA))) ||
	    (nan && (!f32 || (mode != FO_MIN && mode != FO_MAX))))
		return dx_bad(D);
	switch (mode) {
	case FO_FMA:
		if (!rnd && !(op == OP_mad && f32))
			return dx_bad(D);   /* fma and mad.f64 need a rounding mode */
		break;
	case FO_DIV:
		if (!rnd && !(f32 && (approx || full)))
			return dx_bad(D);
		break;
	case FO_RCP:
	case FO_SQRT:
		if (!rnd && !approx)
			return dx_bad(D);
		if (!f32 && approx) {
			if (op != OP_rcp || !ftz)
				return dx_bad(D);
			mode = FO_RCP64A;
			ftz = 0;
		}
		break;
	case FO_RSQRT: case FO_EX2: case FO_LG2: case FO_SIN: case FO_COS: case FO_TANH:
		if (!approx || (!f32 && mode != FO_RSQRT) || (mode == FO_TANH && ftz))
			return dx_bad(D);
		if (!f32 && ftz) {
			in->flags |= F_FTZ;
			ftz = 0;
		}
		break;
	case FO_COPYSIGN:
		if (ftz)
			return dx_bad(D);
		break;
	default:
		if (approx)
			return dx_bad(D);
		break;
	}
	if (ftz && !f32)
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->mode = (uint8_t)mode;
	in->rnd = (uint8_t)rnd;
	in->flags |= (ftz ? F_FTZ : 0) | (sat ? F_SAT : 0) | (nan ? F_NAN : 0) |
		     (approx || full ? F_APPROX : 0) | (xs ? F_XORSIGN : 0);
	if (dx_nops(D, nsrc + 1, nsrc + 1))
		return -1;
	in->d[0] = dx_dst(D, 0);
	for (int k = 0; k < nsrc; k++)
		in->s[k] = dx_src(D, k + 1, t);
	int plain = !(in->flags & (F_FTZ | F_SAT | F_NAN)) && rnd <= RND_RN;
	if (!f32)
		in->fn = x_f64;
	else if (plain && (mode == FO_ADD || mode == FO_SUB))
		in->fn = x_fadd;
	else if (plain && mode == FO_MUL)
		in->fn = x_fmul;
	else if (plain && mode == FO_FMA)
		in->fn = x_ffma;
	else
		in->fn = x_f32;
	return dx_done(D);
}
