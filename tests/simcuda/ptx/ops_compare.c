/* ops_compare.c: setp, set, selp and slct for integer, f32/f64 and f16/bf16 types. */
#include <math.h>

#include "ptx_internal.h"

enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS, C_EQU, C_NEU, C_LTU,
       C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
enum { B_NONE, B_AND, B_OR, B_XOR };

static const uint16_t cmp_words[] = { W_eq, W_ne, W_lt, W_le, W_gt, W_ge, W_lo, W_ls, W_hi,
				      W_hs, W_equ, W_neu, W_ltu, W_leu, W_gtu, W_geu, W_num,
				      W_nan };

static int cmp_int(int op, uint64_t ua, uint64_t ub, int sgn)
{
	int64_t a = (int64_t)ua, b = (int64_t)ub;
	switch (op) {
	case C_EQ: return ua == ub;
	case C_NE: return ua != ub;
	case C_LT: return sgn ? a < b : ua < ub;
	case C_LE: return sgn ? a <= b : ua <= ub;
	case C_GT: return sgn ? a > b : ua > ub;
	case C_GE: return sgn ? a >= b : ua >= ub;
	case C_LO: return ua < ub;
	case C_LS: return ua <= ub;
	case C_HI: return ua > ub;
	default: return ua >= ub;
	}
}

static int cmp_float(int op, double a, double b)
{
	int un = isnan(a) || isnan(b);
	switch (op) {
	case C_EQ: return !un && a == b;
	case C_NE: return !un && a != b;
	case C_LT: return !un && a < b;
	case C_LE: return !un && a <= b;
	case C_GT: return !un && a > b;
	case C_GE: return !un && a >= b;
	case C_EQU: return un || a == b;
	case C_NEU: return un || a != b;
	case C_LTU: return un || a < b;
	case C_LEU: return un || a <= b;
	case C_GTU: return un || a > b;
	case C_GEU: return un || a >= b;
	case C_NUM: return !un;
	default: return un;
	}
}

/* The operands of a comparison as doubles (exact for every supported float type). */
static double fval(uint64_t v, int t, int ftz, int half)
{
	switch (t) {
	case T_f32: return ftz ? ptx__ftz(f32_of(v)) : f32_of(v);
	case T_f64: return f64_of(v);
	case T_f16: case T_f16x2: {
		double x = ptx__half_to_double((uint32_t)(v >> (16 * half)) & 0xffff, FMT_F16);
		return ftz ? ptx__ftz16(x, FMT_F16) : x;
	}
	default: return ptx__half_to_double((uint32_t)(v >> (16 * half)) & 0xffff, FMT_BF16);
	}
}

static int compare(const pinsn *in, uint64_t a, uint64_t b, int half)
{
	int t = in->t2;
	if (ptx__type_float(t) || ptx__type_half(t))
		return cmp_float(in->mode, fval(a, t, in->flags & F_FTZ, half),
				 fval(b, t, in->flags & F_FTZ, half));
	int sgn = ptx__type_signed(t);
	return cmp_int(in->mode, ext_by_type(a, t), ext_by_type(b, t), sgn);
}

/* What set writes for true: per 16-bit half when the source is packed. */
static uint64_t set_true(int t)
{
	switch (t) {
	case T_f32: return 0x3f800000u;
	case T_f16: case T_f16x2: return 0x3c00u;
	case T_bf16: case T_bf16x2: return 0x3f80u;
	case T_u16: return 0xffffu;
	case T_u32: return 0xffffffffu;
	default: return ~0ull;   /* s16, s32: stored sign-extended */
	}
}

/* The destination types set accepts for a source type, as ptxas does: integers and f32
 * for non-half sources, integers for f16/bf16 (16-bit ones only there), a packed
 * destination only for the same packed source, f16 for no bf16 source. */
static int set_types_ok(int dt, int st)
{
	int half = ptx__type_half(st), x2 = st == T_f16x2 || st == T_bf16x2;
	switch (dt) {
	case T_u32: case T_s32: return 1;
	case T_f32: return !half;
	case T_u16: case T_s16: return st == T_f16 || st == T_bf16;
	case T_f16: return !x2 && st != T_bf16;
	case T_bf16: return !x2;
	case T_f16x2: case T_bf16x2: return st == dt;
	default: return 0;
	}
}

static int combine(int bop, int t, int c)
{
	return bop == B_AND ? t & c : bop == B_OR ? t | c : bop == B_XOR ? t ^ c : t;
}

/* setp: d = t BOOL c, and the optional second destination p = !t BOOL c
 * (for f16x2/bf16x2: d and p take the low and the high half). */
static int x_setp(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]);
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : NULL;
	uint64_t *d = R(in->d[0]), *p = in->d[1] != NOREG ? R(in->d[1]) : NULL;
	int x2 = in->t2 == T_f16x2 || in->t2 == T_bf16x2;
	LANES(l, m) {
		int c = C ? (C[l] != 0) ^ !!(in->flags & F_NEG3) : 0;
		int t = compare(in, A[l], B[l], 0);
		d[l] = (uint64_t)combine(in->mode2, t, c);
		if (p)
			p[l] = (uint64_t)(x2 ? combine(in->mode2, compare(in, A[l], B[l], 1), c)
					     : combine(in->mode2, !t, c));
	}
	return 0;
}

/* set: all ones (sign-extended for .s16/.s32) or 1.0 for true, 0 for false; a packed
 * source gives one 16-bit result per half (PTX ISA 9.7.7.1). */
static int x_set(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]);
	const uint64_t *C = in->s[2] != NOREG ? R(in->s[2]) : NULL;
	uint64_t *d = R(in->d[0]);
	uint64_t yes = set_true(in->t);
	int x2 = in->t2 == T_f16x2 || in->t2 == T_bf16x2;
	LANES(l, m) {
		int c = C ? (C[l] != 0) ^ !!(in->flags & F_NEG3) : 0;
		int t = combine(in->mode2, compare(in, A[l], B[l], 0), c);
		if (!x2) {
			d[l] = t ? yes : 0;
			continue;
		}
		uint32_t r = (t ? (uint32_t)yes & 0xffffu : 0) |
			     (combine(in->mode2, compare(in, A[l], B[l], 1), c) ? (uint32_t)yes << 16 : 0);
		d[l] = in->t == T_s32 ? (uint64_t)(int64_t)(int32_t)r : r;
	}
	return 0;
}

static int x_selp(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]), *C = R(in->s[2]);
	uint64_t *d = R(in->d[0]);
	uint64_t neg = !!(in->flags & F_NEG3);
	LANES(l, m) d[l] = ((C[l] != 0) ^ neg) ? A[l] : B[l];
	return 0;
}

static int x_slct(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint64_t *A = R(in->s[0]), *B = R(in->s[1]), *C = R(in->s[2]);
	uint64_t *d = R(in->d[0]);
	LANES(l, m) {
		int ge;
		if (in->t2 == T_f32) {
			float c = f32_of(C[l]);
			ge = (in->flags & F_FTZ ? ptx__ftz(c) : c) >= 0.0f;
		} else {
			ge = (int32_t)C[l] >= 0;
		}
		d[l] = ge ? A[l] : B[l];
	}
	return 0;
}

static int cmp_ok(int op, int t)
{
	if (ptx__type_float(t) || ptx__type_half(t))
		return op <= C_GE || op >= C_EQU;
	if (t == T_b16 || t == T_b32 || t == T_b64)
		return op == C_EQ || op == C_NE;
	return op <= C_HS;
}

static int take_bool(pdec *D)
{
	return dx_take(D, W_and) ? B_AND : dx_take(D, W_or) ? B_OR : dx_take(D, W_xor) ? B_XOR
										   : B_NONE;
}

static int dec_setp_set(pdec *D)
{
	pinsn *in = D->in;
	int op = -1;
	for (int i = 0; i < (int)(sizeof(cmp_words) / sizeof(cmp_words[0])) && op < 0; i++)
		if (dx_take(D, cmp_words[i]))
			op = i;
	in->mode2 = (uint8_t)take_bool(D);
	if (dx_take(D, W_ftz))
		in->flags |= F_FTZ;
	int set = in->op == OP_set;
	int st = set ? dx_type(D, 1) : dx_type(D, 0);
	in->t = (uint8_t)(set ? dx_type(D, 0) : T_pred);
	in->t2 = (uint8_t)st;
	if (op < 0 || dx_ntypes(D) != (set ? 2 : 1) || !cmp_ok(op, st) || st == T_pred ||
	    ptx__type_size(st) < 2 || ptx__type_size(st) > 8)
		return dx_bad(D);
	if (set && !set_types_ok(in->t, st))
		return dx_bad(D);
	if ((in->flags & F_FTZ) && ((st != T_f32 && st != T_f16 && st != T_f16x2) ||
				    in->t == T_bf16 || in->t == T_bf16x2))
		return dx_bad(D);
	in->mode = (uint8_t)op;
	int nops = in->mode2 ? 4 : 3;
	if (dx_nops(D, nops, nops))
		return -1;
	if (set)
		in->d[0] = dx_dst(D, 0);
	else if (dx_dst_pair(D, 0))
		return -1;
	if (!set && (st == T_f16x2 || st == T_bf16x2) && in->d[1] == NOREG)
		return dx_bad(D);   /* packed setp needs "p|q" */
	in->s[0] = dx_src(D, 1, st);
	in->s[1] = dx_src(D, 2, st);
	if (in->mode2) {
		int neg;
		in->s[2] = dx_pred(D, 3, &neg);
		if (neg)
			in->flags |= F_NEG3;
	}
	in->fn = set ? x_set : x_setp;
	return dx_done(D);
}

int ptx__dec_compare(pdec *D)
{
	pinsn *in = D->in;
	if (in->op == OP_setp || in->op == OP_set)
		return dec_setp_set(D);
	int t = dx_type(D, 0);
	if (in->op == OP_selp) {
		if (dx_ntypes(D) != 1 || t == T_pred || ptx__type_size(t) < 2 ||
		    ptx__type_size(t) > 8 || dx_nops(D, 4, 4))
			return dx_bad(D);
		in->t = (uint8_t)t;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, t);
		in->s[1] = dx_src(D, 2, t);
		int neg;
		in->s[2] = dx_pred(D, 3, &neg);
		if (neg)
			in->flags |= F_NEG3;
		in->fn = x_selp;
		return dx_done(D);
	}
	if (dx_take(D, W_ftz))
		in->flags |= F_FTZ;
	int ct = dx_type(D, 1);
	if (dx_ntypes(D) != 2 || (ct != T_s32 && ct != T_f32) || ptx__type_size(t) < 2 ||
	    ptx__type_size(t) > 8 || t == T_pred || ((in->flags & F_FTZ) && ct != T_f32) ||
	    dx_nops(D, 4, 4))
		return dx_bad(D);
	in->t = (uint8_t)t;
	in->t2 = (uint8_t)ct;
	in->d[0] = dx_dst(D, 0);
	in->s[0] = dx_src(D, 1, t);
	in->s[1] = dx_src(D, 2, t);
	in->s[2] = dx_src(D, 3, ct);
	in->fn = x_slct;
	return dx_done(D);
}
