/* ops_int.c: integer arithmetic: add/sub (.sat, .cc and carries), mul/mad (.lo/.hi/.wide),
 * mul24/mad24, div/rem, abs/neg/min/max, sad.
 *
 * A handler switches once on the instruction type and runs a loop typed for it; values
 * are stored sign-extended for signed types so any later reader sees the right bits. */
#include <limits.h>

#include "ptx_internal.h"

/* Runs BODY with S (the signed or unsigned C type of t) and U (its unsigned twin). */
#define INT_SWITCH(t, ...)                                                           \
	switch (t) {                                                                 \
	case T_s16: { typedef int16_t S; typedef uint16_t U; __VA_ARGS__; } break;   \
	case T_u16: case T_b16: { typedef uint16_t S; typedef uint16_t U; __VA_ARGS__; } break; \
	case T_s32: { typedef int32_t S; typedef uint32_t U; __VA_ARGS__; } break;   \
	case T_u32: case T_b32: { typedef uint32_t S; typedef uint32_t U; __VA_ARGS__; } break; \
	case T_s64: { typedef int64_t S; typedef uint64_t U; __VA_ARGS__; } break;   \
	default: { typedef uint64_t S; typedef uint64_t U; __VA_ARGS__; } break;     \
	}
/* a < 0 for a value of type S; sgn says whether S is signed (no -Wtype-limits noise). */
#define NEG(a) (sgn && is_negative((int64_t)(a)))
static inline int is_negative(int64_t v)
{
	return v < 0;
}

#define OPS3 uint64_t *d = R(in->d[0]); \
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]), *C = in->s[2] != NOREG ? R(in->s[2]) : A
#define STORE(x) ((uint64_t)(S)(U)(x))

enum { M_LO, M_HI, M_WIDE };

static int x_add(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	INT_SWITCH(in->t, LANES(l, m) d[l] = STORE((U)A[l] + (U)B[l]));
	return 0;
}

static int x_sub(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	INT_SWITCH(in->t, LANES(l, m) d[l] = STORE((U)A[l] - (U)B[l]));
	return 0;
}

static int x_addsub_sat(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	LANES(l, m) {
		int64_t a = (int32_t)A[l], b = (int32_t)B[l];
		int64_t r = in->op == OP_sub ? a - b : a + b;
		r = r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r;
		d[l] = (uint64_t)r;
	}
	return 0;
}

/* add.cc, addc{.cc}, sub.cc, subc{.cc}: 32/64-bit with the per-lane carry flag. */
static int x_carry(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	int sub = in->op == OP_sub || in->op == OP_subc;
	int cin = in->op == OP_addc || in->op == OP_subc;
	int bits = ptx__type_size(in->t) * 8;
	uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
	LANES(l, m) {
		uint64_t a = A[l] & mask, b = B[l] & mask, c = cin ? w->cc[l] : 0;
		uint64_t r, cout;
		if (!sub) {
			r = (a + b + c) & mask;
			cout = bits == 64 ? (r < a || (c && r == a)) : ((a + b + c) >> 32) & 1;
		} else {
			r = (a - b - c) & mask;
			cout = a < b || (a - b) < c;   /* borrow */
		}
		if (in->flags & F_CC)
			w->cc[l] = (uint8_t)cout;
		d[l] = ptx__type_signed(in->t) ? ext_by_type(r, in->t) : r;
	}
	return 0;
}

static uint64_t mulhi64(uint64_t a, uint64_t b, int sgn)
{
	if (sgn)
		return (uint64_t)(((__int128)(int64_t)a * (__int128)(int64_t)b) >> 64);
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

/* mul and mad: mode2 selects .lo/.hi/.wide; mad adds the third operand. */
static int x_mul(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	int mad = in->op == OP_mad, sgn = ptx__type_signed(in->t);
	int bits = ptx__type_size(in->t) * 8;
	LANES(l, m) {
		uint64_t a = ext_by_type(A[l], in->t), b = ext_by_type(B[l], in->t), r;
		if (in->mode2 == M_LO) {
			r = a * b + (mad ? C[l] : 0);
			r = ext_by_type(r, in->t);
		} else if (in->mode2 == M_HI) {
			if (bits == 64)
				r = mulhi64(a, b, sgn);
			else
				r = sgn ? (uint64_t)(((int64_t)a * (int64_t)b) >> bits)
					: (a * b) >> bits;
			r = ext_by_type(r + (mad ? C[l] : 0), in->t);
		} else {
			r = a * b + (mad ? C[l] : 0);   /* product of the halves fits in 64 bits */
			int wt = bits == 16 ? (sgn ? T_s32 : T_u32) : (sgn ? T_s64 : T_u64);
			r = ext_by_type(r, wt);
		}
		d[l] = r;
	}
	return 0;
}

static int x_mad_hi_sat(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	LANES(l, m) {
		int64_t p = ((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32;
		int64_t r = p + (int32_t)C[l];
		d[l] = (uint64_t)(r > INT_MAX ? INT_MAX : r < INT_MIN ? INT_MIN : r);
	}
	return 0;
}

/* mul24/mad24: 24-bit operands, 48-bit product; .lo keeps bits 31..0, .hi bits 47..16. */
static int x_mul24(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	int sgn = in->t == T_s32;
	LANES(l, m) {
		int64_t a = sgn ? ((int64_t)(A[l] << 40) >> 40) : (int64_t)(A[l] & 0xffffff);
		int64_t b = sgn ? ((int64_t)(B[l] << 40) >> 40) : (int64_t)(B[l] & 0xffffff);
		uint64_t p = (uint64_t)(a * b);
		uint32_t r = in->mode2 == M_HI ? (uint32_t)(p >> 16) : (uint32_t)p;
		if (in->op == OP_mad24)
			r += (uint32_t)C[l];
		d[l] = sgn ? (uint64_t)(int64_t)(int32_t)r : r;
	}
	return 0;
}

/* Division by zero gives all ones (rem: the dividend), as the hardware sequence does. */
static int x_div(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	int rem = in->op == OP_rem, sgn = ptx__type_signed(in->t);
	INT_SWITCH(in->t, LANES(l, m) {
		S a = (S)A[l], b = (S)B[l];
		S r;
		if (b == 0)
			r = rem ? a : (S)~(U)0;
		else if (sgn && b == (S)-1)
			r = rem ? 0 : (S)(0 - (U)a);
		else
			r = rem ? a % b : a / b;
		d[l] = STORE(r);
	});
	return 0;
}

static int x_abs(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	int sgn = ptx__type_signed(in->t);
	(void)B, (void)C;
	INT_SWITCH(in->t, LANES(l, m) {
		S a = (S)A[l];
		d[l] = STORE(NEG(a) ? 0 - (U)a : (U)a);
	});
	return 0;
}

static int x_neg(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)B, (void)C;
	INT_SWITCH(in->t, LANES(l, m) d[l] = STORE(0 - (U)A[l]));
	return 0;
}

static int x_minmax(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	(void)C;
	int mx = in->op == OP_max, relu = !!(in->flags & F_RELU), sgn = ptx__type_signed(in->t);
	INT_SWITCH(in->t, LANES(l, m) {
		S a = (S)A[l], b = (S)B[l];
		S r = mx ? (a > b ? a : b) : (a < b ? a : b);
		if (relu && NEG(r))
			r = 0;
		d[l] = STORE(r);
	});
	return 0;
}

static int x_sad(pwarp *w, const pinsn *in, uint32_t m)
{
	OPS3;
	INT_SWITCH(in->t, LANES(l, m) {
		S a = (S)A[l], b = (S)B[l];
		U diff = a < b ? (U)b - (U)a : (U)a - (U)b;
		d[l] = STORE((U)C[l] + diff);
	});
	return 0;
}

static int int_type(int t, int allow16)
{
	switch (t) {
	case T_s32: case T_u32: case T_s64: case T_u64: case T_b32: case T_b64: return 1;
	case T_s16: case T_u16: case T_b16: return allow16;
	default: return 0;
	}
}

int ptx__dec_int(pdec *D)
{
	pinsn *in = D->in;
	int op = in->op, t = dx_type(D, 0);
	if (dx_ntypes(D) != 1 || !int_type(t, op != OP_mul24 && op != OP_mad24))
		return dx_bad(D);
	in->t = (uint8_t)t;
	int nsrc = 2, wide_dst = 0;
	switch (op) {
	case OP_add:
	case OP_sub:
		if (dx_take(D, W_cc)) {
			in->flags |= F_CC;
			in->fn = x_carry;
		} else if (dx_take(D, W_sat)) {
			if (t != T_s32)
				return dx_bad(D);
			in->fn = x_addsub_sat;
		} else {
			in->fn = op == OP_add ? x_add : x_sub;
		}
		break;
	case OP_addc:
	case OP_subc:
		if (dx_take(D, W_cc))
			in->flags |= F_CC;
		if (ptx__type_size(t) < 4)
			return dx_bad(D);
		in->fn = x_carry;
		break;
	case OP_mul:
	case OP_mad:
	case OP_mul24:
	case OP_mad24:
		in->mode2 = dx_take(D, W_lo) ? M_LO : dx_take(D, W_hi) ? M_HI :
			    dx_take(D, W_wide) ? M_WIDE : 0xff;
		if (in->mode2 == 0xff || (in->mode2 == M_WIDE && (ptx__type_size(t) == 8 ||
								  op == OP_mul24 || op == OP_mad24)))
			return dx_bad(D);
		wide_dst = in->mode2 == M_WIDE;
		nsrc = op == OP_mad || op == OP_mad24 ? 3 : 2;
		in->fn = op == OP_mul24 || op == OP_mad24 ? x_mul24 : x_mul;
		if (op == OP_mad && dx_take(D, W_sat)) {
			if (t != T_s32 || in->mode2 != M_HI)
				return dx_bad(D);
			in->fn = x_mad_hi_sat;
		}
		break;
	case OP_div:
	case OP_rem:
		in->fn = x_div;
		break;
	case OP_abs:
	case OP_neg:
		nsrc = 1;
		in->fn = op == OP_abs ? x_abs : x_neg;
		break;
	case OP_min:
	case OP_max:
		if (dx_take(D, W_relu)) {
			if (t != T_s32)
				return dx_bad(D);
			in->flags |= F_RELU;
		}
		in->fn = x_minmax;
		break;
	case OP_sad:
		nsrc = 3;
		in->fn = x_sad;
		break;
	default:
		return dx_bad(D);
	}
	if (dx_nops(D, nsrc + 1, nsrc + 1))
		return -1;
	in->d[0] = dx_dst(D, 0);
	int wt = ptx__type_size(t) == 2 ? (ptx__type_signed(t) ? T_s32 : T_u32)
					: (ptx__type_signed(t) ? T_s64 : T_u64);
	for (int i = 0; i < nsrc; i++)
		in->s[i] = dx_src(D, i + 1, i == 2 && wide_dst ? wt : t);
	return dx_done(D);
}
