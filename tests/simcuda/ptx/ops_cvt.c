/* ops_cvt.c: cvt between every integer and floating-point type, with the integer (.rni
 * .rzi .rmi .rpi) and floating (.rn .rz .rm .rp) rounding modes, .sat, .ftz, .relu and
 * .satfinite, and the packed f16x2/bf16x2 forms.
 *
 * Float to integer saturates; NaN gives 0, or 1 << (bits - 1) when the source is f64 or
 * the destination is 64-bit (PTX ISA, cvt, Integer Notes). */
#include <math.h>

#include "ptx_internal.h"

static int fmt_of(int t)
{
	switch (t) {
	case T_f16: case T_f16x2: return FMT_F16;
	case T_bf16: case T_bf16x2: return FMT_BF16;
	case T_f32: return FMT_F32;
	default: return FMT_F64;
	}
}

static int is_fp(int t)
{
	return ptx__type_float(t) || ptx__type_half(t);
}

/* Source value of a float type as an exact double. */
static double src_double(const pinsn *in, uint64_t v)
{
	switch (in->t2) {
	case T_f32: {
		float f = f32_of(v);
		return in->flags & F_FTZ ? ptx__ftz(f) : f;
	}
	case T_f64: return f64_of(v);
	default: return ptx__half_to_double((uint32_t)v & 0xffff, fmt_of(in->t2));
	}
}

static double round_integral(double x, int rnd)
{
	switch (rnd) {
	case RND_RZI: return trunc(x);
	case RND_RMI: return floor(x);
	case RND_RPI: return ceil(x);
	default: return nearbyint(x);
	}
}

static uint64_t to_int(const pinsn *in, double x)
{
	int dt = in->t, bits = ptx__type_size(dt) * 8, sgn = ptx__type_signed(dt);
	if (isnan(x))
		return in->t2 != T_f64 && bits < 64 ? 0 : ext_by_type(1ull << (bits - 1), dt);
	x = round_integral(x, in->rnd);
	double lo = sgn ? -ldexp(1.0, bits - 1) : 0.0, hi = sgn ? ldexp(1.0, bits - 1)
								: ldexp(1.0, bits);
	if (x <= lo)
		return sgn ? ext_by_type(1ull << (bits - 1), dt) : 0;
	if (x >= hi)
		return sgn ? ext_by_type((1ull << (bits - 1)) - 1, dt)
			   : (bits == 64 ? ~0ull : (1ull << bits) - 1);
	return sgn ? ext_by_type((uint64_t)(int64_t)x, dt) : (uint64_t)x;
}

/* Integer source (already extended) to an integer destination, with .sat. */
static uint64_t int_to_int(const pinsn *in, uint64_t v)
{
	int dt = in->t, st = in->t2;
	if (in->flags & F_SAT) {
		int bits = ptx__type_size(dt) * 8, ds = ptx__type_signed(dt);
		int ss = ptx__type_signed(st);
		int neg = ss && (int64_t)v < 0;
		uint64_t max = ds ? (1ull << (bits - 1)) - 1 : (bits == 64 ? ~0ull : (1ull << bits) - 1);
		if (neg) {
			int64_t min = ds ? -(int64_t)(max) - 1 : 0;
			if ((int64_t)v < min)
				v = (uint64_t)min;
		} else if (v > max) {
			v = max;
		}
	}
	return ext_by_type(v, dt);
}

static uint64_t to_float(const pinsn *in, double x)
{
	int dt = in->t, rnd = in->rnd;
	if (rnd >= RND_RNI) {   /* same type, rounded to an integral value */
		x = round_integral(x, rnd);
		rnd = RND_RN;
	}
	if (in->flags & F_SAT)
		x = isnan(x) ? 0.0 : x <= 0 ? 0.0 : x > 1 ? 1.0 : x;
	if (dt == T_f64)
		return of_f64(x);
	uint64_t r = ptx__round_double(x, fmt_of(dt), rnd ? rnd : RND_RN,
				       in->flags & (F_RELU | F_SATFINITE));
	if (dt == T_f32 && (in->flags & F_FTZ))
		r = of_f32(ptx__ftz(f32_of(r)));
	return r;
}

static uint64_t cvt_one(const pinsn *in, uint64_t v)
{
	int dt = in->t, st = in->t2;
	if (!is_fp(st)) {
		uint64_t sv = ext_by_type(v, st);
		if (!is_fp(dt))
			return int_to_int(in, sv);
		int neg = ptx__type_signed(st) && (int64_t)sv < 0;
		uint64_t mag = neg ? 0 - sv : sv;
		if (dt == T_f64)
			return ptx__round_int(mag, neg, FMT_F64, in->rnd ? in->rnd : RND_RN);
		return ptx__round_int(mag, neg, fmt_of(dt), in->rnd ? in->rnd : RND_RN);
	}
	/* Widening a NaN keeps its payload (quieted), like the shift the compilers emit. */
	if (dt == T_f32 && (st == T_bf16 || st == T_f16) && !(in->flags & (F_SAT | F_FTZ)) &&
	    in->rnd == RND_NONE) {
		uint32_t h = (uint32_t)v & 0xffff;
		if (st == T_bf16)
			return (uint64_t)h << 16;
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
			return ((uint64_t)(h & 0x8000) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13);
	}
	double x = src_double(in, v);
	return is_fp(dt) ? to_float(in, x) : to_int(in, x);
}

static int x_cvt(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	LANES(l, m) d[l] = cvt_one(in, A[l]);
	return 0;
}

/* The conversions address arithmetic uses all the time: plain sign/zero extension. */
static int x_cvt_ext(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	int st = in->t2, dt = in->t;
	LANES(l, m) d[l] = ext_by_type(ext_by_type(A[l], st), dt);
	return 0;
}

/* cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a to the high half. */
static int x_cvt_x2(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]);
	int fmt = fmt_of(in->t), fl = in->flags & (F_RELU | F_SATFINITE);
	LANES(l, m) {
		uint64_t hi = ptx__round_double(f32_of(A[l]), fmt, in->rnd, fl);
		uint64_t lo = ptx__round_double(f32_of(B[l]), fmt, in->rnd, fl);
		d[l] = hi << 16 | lo;
	}
	return 0;
}

/* cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32: an f32 kept to its upper 19 bits (PTX ISA
 * 9.7.9.21); NaN gives the canonical NaN. */
static int x_cvt_tf32(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t *d = R(in->d[0]);
	const uint64_t *A = R(in->s[0]);
	LANES(l, m) {
		uint32_t u = (uint32_t)A[l], mag = u & 0x7fffffffu, sign = u & 0x80000000u;
		if (mag > 0x7f800000u) {
			d[l] = 0x7fffffffu;
			continue;
		}
		if (mag != 0x7f800000u) {
			if (in->rnd == RND_RNA)
				mag += 0x1000u;
			else if (in->rnd == RND_RN)
				mag += 0xfffu + ((mag >> 13) & 1);
			mag &= ~0x1fffu;
		}
		if ((in->flags & F_SATFINITE) && mag >= 0x7f800000u)
			mag = 0x7f7fe000u;
		d[l] = (in->flags & F_RELU) && sign ? 0 : (sign | mag);
	}
	return 0;
}

int ptx__dec_cvt(pdec *D)
{
	pinsn *in = D->in;
	int dt = dx_type(D, 0), st = dx_type(D, 1);
	int rnd = dx_take_rnd(D);
	int ftz = dx_take(D, W_ftz), sat = dx_take(D, W_sat), relu = dx_take(D, W_relu);
	int satf = dx_take(D, W_satfinite);
	int df = is_fp(dt), sf = is_fp(st), irnd = rnd >= RND_RNI, frnd = rnd && !irnd;
	int x2 = dt == T_f16x2 || dt == T_bf16x2;
	if (dt == T_tf32 && st == T_f32 && dx_ntypes(D) == 2) {
		if ((rnd != RND_RNA && rnd != RND_RN && rnd != RND_RZ) || ftz || sat ||
		    (relu && rnd == RND_RNA) || dx_nops(D, 2, 2))
			return dx_bad(D);
		in->rnd = (uint8_t)rnd;
		in->flags |= (relu ? F_RELU : 0) | (satf ? F_SATFINITE : 0);
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_f32);
		in->fn = x_cvt_tf32;
		return dx_done(D);
	}
	if (dx_ntypes(D) != 2 || !dt || !st || dt == T_pred || st == T_pred ||
	    ptx__type_size(dt) > 8 || ptx__type_size(st) > 8 || dt == T_tf32 || st == T_tf32 ||
	    dt >= T_e4m3 || st >= T_e4m3 || st == T_f16x2 || st == T_bf16x2 || rnd == RND_RNA)
		return dx_bad(D);
	if (x2) {
		if (st != T_f32 || (rnd != RND_RN && rnd != RND_RZ) || ftz || sat ||
		    dx_nops(D, 3, 3))
			return dx_bad(D);
		in->t = (uint8_t)dt;
		in->t2 = (uint8_t)st;
		in->rnd = (uint8_t)rnd;
		in->flags |= (relu ? F_RELU : 0) | (satf ? F_SATFINITE : 0);
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_f32);
		in->s[1] = dx_src(D, 2, T_f32);
		in->fn = x_cvt_x2;
		return dx_done(D);
	}
	int narrowing = df && sf && ptx__type_size(dt) < ptx__type_size(st);
	if ((!df && irnd != sf) || (!df && frnd) || (df && !sf && irnd) ||
	    (df && sf && irnd && dt != st) ||
	    (df && sf && frnd && !narrowing && !((dt == T_bf16 && st == T_f16) ||
						 (dt == T_f16 && st == T_bf16))) ||
	    ((relu || satf) && (dt != T_f16 && dt != T_bf16)) ||
	    (ftz && dt != T_f32 && st != T_f32))
		return dx_bad(D);
	if (dx_nops(D, 2, 2))
		return -1;
	in->t = (uint8_t)dt;
	in->t2 = (uint8_t)st;
	in->rnd = (uint8_t)rnd;
	in->flags |= (ftz ? F_FTZ : 0) | (sat ? F_SAT : 0) | (relu ? F_RELU : 0) |
		     (satf ? F_SATFINITE : 0);
	in->d[0] = dx_dst(D, 0);
	in->s[0] = dx_src(D, 1, st);
	in->fn = !df && !sf && !sat ? x_cvt_ext : x_cvt;
	return dx_done(D);
}
