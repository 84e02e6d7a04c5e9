/* emit_arith.c: lowerings of bf16/bf16x2 arithmetic and comparisons.
 *
 * fma: a*b+c is rounded to f32 towards zero, and fma.rm and fma.rp tell whether that was
 * exact; the last bit set when not ("round to odd") makes the final rounding to bf16 the
 * correctly rounded result (no double rounding, subnormals included).
 * add/sub/mul need no such care: a product of two 8-bit significands is exact in f32 unless
 * it is below 2^-134, where both it and its f32 rounding round to zero; a sum is exact in
 * f32 unless the exponents are 16+ apart, where both round to the larger operand.
 * min/max use f32 min/max on the exact f32 values; neg/abs are bit operations. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

typedef iarg (*half_fn)(iseq *S, const pinst *I, const pmods *M, const iarg *x);

/* Runs fn on the operands 1..nsrc as bf16 or, for bf16x2, on each half. */
static int per_half(iseq *S, const pinst *I, const pmods *M, int nsrc, half_fn fn)
{
	iarg lo[3], hi[3];
	if (I->nops != nsrc + 1)
		return -1;
	if (M->type[0] == TY_BF16) {
		for (int k = 0; k < nsrc; k++)
			lo[k] = ptxl_bf_widen(S, k + 1);
		ptxl_bf_write16(S, 0, fn(S, I, M, lo));
		return 0;
	}
	for (int k = 0; k < nsrc; k++)
		ptxl_bf_split(S, k + 1, &lo[k], &hi[k]);
	iarg rl = fn(S, I, M, lo), rh = fn(S, I, M, hi);
	ptxl_write32(S, 0, ptxl_bf_pack(S, rl, rh));
	return 0;
}

static iarg fma_half(iseq *S, const pinst *I, const pmods *M, const iarg *x)
{
	iarg z = ir_r(S), dn = ir_r(S), up = ir_r(S), inexact = ir_p(S);
	(void)I;
	E(S, "fma.rz.f32", z, x[0], x[1], x[2]);
	E(S, "fma.rm.f32", dn, x[0], x[1], x[2]);
	E(S, "fma.rp.f32", up, x[0], x[1], x[2]);
	E(S, "setp.neu.f32", inexact, dn, up);
	return ptxl_bf_round(S, ptxl_f32_or_sticky(S, z, inexact), RND_RN, M->flags & M_RELU);
}

int ptxl_build_fma(iseq *S, const pinst *I, const pmods *M)
{
	return per_half(S, I, M, 3, fma_half);
}

static iarg asm_half(iseq *S, const pinst *I, const pmods *M, const iarg *x)
{
	iarg r = ir_r(S);
	const char *op = !strcmp(I->word[0], "add") ? "add.rn.f32"
			 : !strcmp(I->word[0], "sub") ? "sub.rn.f32" : "mul.rn.f32";
	E(S, op, r, x[0], x[1]);
	return ptxl_bf_round(S, r, RND_RN, M->flags & M_RELU);
}

int ptxl_build_add_sub_mul(iseq *S, const pinst *I, const pmods *M)
{
	return per_half(S, I, M, 2, asm_half);
}

/* PTX ISA min/max: a NaN operand is ignored (both NaN: NaN), .NaN makes any NaN win,
 * .xorsign.abs compares magnitudes and gives a non-NaN result the XOR of the signs.  a and
 * b are f32 bits; the result's too (flags: M_NAN, M_XORSIGN, M_FTZ). */
iarg ptxl_minmax_f32(iseq *S, int is_min, iarg a, iarg b, unsigned flags)
{
	iarg r = ir_r(S), sign = ir_r(S);
	int xs = (flags & M_XORSIGN) != 0, ftz = (flags & M_FTZ) != 0;
	if (xs) {
		iarg ma = ir_r(S), mb = ir_r(S);
		E(S, "xor.b32", sign, a, b);
		E(S, "and.b32", sign, sign, ir_imm(0x80000000u));
		E(S, "and.b32", ma, a, ir_imm(0x7fffffff));
		E(S, "and.b32", mb, b, ir_imm(0x7fffffff));
		a = ma, b = mb;
	}
	E(S, is_min ? (ftz ? "min.ftz.f32" : "min.f32") : (ftz ? "max.ftz.f32" : "max.f32"), r,
	  a, b);
	if (flags & M_NAN) {
		iarg any = ir_p(S);
		E(S, "setp.nan.f32", any, a, b);
		E(S, "selp.b32", r, ir_imm(0x7fffffff), r, any);
	}
	if (xs) {
		iarg nan = ir_p(S), signed_ = ir_r(S);
		E(S, "setp.nan.f32", nan, r, r);
		E(S, "or.b32", signed_, r, sign);
		E(S, "selp.b32", r, r, signed_, nan);
	}
	return r;
}

static iarg minmax_half(iseq *S, const pinst *I, const pmods *M, const iarg *x)
{
	iarg t = ir_r(S);
	E(S, "shr.u32", t, ptxl_minmax_f32(S, !strcmp(I->word[0], "min"), x[0], x[1], M->flags),
	  ir_imm(16));
	return t;
}

int ptxl_build_min_max(iseq *S, const pinst *I, const pmods *M)
{
	return per_half(S, I, M, 2, minmax_half);
}

int ptxl_build_neg_abs(iseq *S, const pinst *I, const pmods *M)
{
	int neg = !strcmp(I->word[0], "neg"), x2 = M->type[0] == TY_BF16X2;
	if (I->nops != 2)
		return -1;
	iarg v = x2 ? ir_r(S) : ir_h(S), r = x2 ? ir_r(S) : ir_h(S);
	uint64_t mask = neg ? (x2 ? 0x80008000u : 0x8000u) : (x2 ? 0x7fff7fffu : 0x7fffu);
	E(S, x2 ? "mov.b32" : "mov.b16", v, ir_opnd(1));
	E(S, neg ? (x2 ? "xor.b32" : "xor.b16") : (x2 ? "and.b32" : "and.b16"), r, v, ir_imm(mask));
	EG(S, x2 ? "mov.b32" : "mov.b16", ir_opnd(0), r);
	return 0;
}

/* "setp.lt.and.ftz" + ".f32"; 0 if it does not fit. */
static int cmp_mnemonic(char *buf, size_t cap, const char *base, const pmods *M, const char *tail)
{
	int k = snprintf(buf, cap, "%s.%s%s%s%s%s", base, M->cmp, M->boolop ? "." : "",
			 M->boolop ? M->boolop : "", (M->flags & M_FTZ) ? ".ftz" : "", tail);
	return k > 0 && (size_t)k < cap;
}

/* setp.CmpOp{.BoolOp}{.ftz}.bf16 p[|q], a, b{, c}: the f32 comparison of the exact
 * values.  For bf16x2, p takes the low halves and q the high ones. */
int ptxl_build_setp(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	int withc = I->nops == 4;
	if ((I->nops != 3 && !withc) || !cmp_mnemonic(op, sizeof(op), "setp", M, ".f32"))
		return -1;
	if (M->type[0] == TY_BF16) {
		iarg a = ptxl_bf_widen(S, 1), b = ptxl_bf_widen(S, 2);
		if (withc)
			EG(S, op, ir_opnd(0), a, b, ir_opnd(3));
		else
			EG(S, op, ir_opnd(0), a, b);
		return 0;
	}
	if (!strchr(I->op[0], '|'))
		return -1;
	iarg lo[2], hi[2], p[2] = { ir_p(S), ir_p(S) };
	ptxl_bf_split(S, 1, &lo[0], &hi[0]);
	ptxl_bf_split(S, 2, &lo[1], &hi[1]);
	for (int k = 0; k < 2; k++) {
		const iarg *x = k ? hi : lo;
		if (withc)
			E(S, op, p[k], x[0], x[1], ir_opnd(3));
		else
			E(S, op, p[k], x[0], x[1]);
	}
	EG(S, "mov.pred", ir_opnd_part(0, 1), p[0]);
	EG(S, "mov.pred", ir_opnd_part(0, 2), p[1]);
	return 0;
}

/* set: a u32/s32 result is the f32 set of the exact values; a bf16 result is 0 or 1.0
 * (0x3f80) and a bf16x2 source sets each half (to 1.0, or to 0xffff for u32/s32), made
 * from the all-ones u32 result. */
int ptxl_build_set(iseq *S, const pinst *I, const pmods *M)
{
	char op[40], tail[16];
	int withc = I->nops == 4, d = M->type[0], s = M->type[1];
	if (I->nops != 3 && !withc)
		return -1;
	int bf_src = s == TY_BF16 || s == TY_BF16X2, halves = s == TY_BF16X2 ? 2 : 1;
	snprintf(tail, sizeof(tail), ".%s.%s", d == TY_S32 ? "s32" : "u32",
		 bf_src ? "f32" : ptxl_type_word(s));
	if (!cmp_mnemonic(op, sizeof(op), "set", M, tail))
		return -1;
	iarg c = withc ? ir_opnd(3) : ir_imm(0);
	int n = withc ? 4 : 3;
	if (halves == 1 && d != TY_BF16) {
		iarg args[4] = { ir_opnd(0), ptxl_bf_widen(S, 1), ptxl_bf_widen(S, 2), c };
		ptxl_ir_emit(S, 1, op, args, n);
		return 0;
	}
	iarg lo[2], hi[2], r[2] = { ir_r(S), ir_r(S) };
	uint64_t one = d == TY_BF16 || d == TY_BF16X2 ? 0x3f80 : 0xffff;
	if (halves == 2) {
		ptxl_bf_split(S, 1, &lo[0], &hi[0]);
		ptxl_bf_split(S, 2, &lo[1], &hi[1]);
	} else if (bf_src) {
		lo[0] = ptxl_bf_widen(S, 1), lo[1] = ptxl_bf_widen(S, 2);
	} else {
		lo[0] = ir_opnd(1), lo[1] = ir_opnd(2);
	}
	for (int k = 0; k < halves; k++) {
		const iarg *x = k ? hi : lo;
		iarg args[4] = { r[k], x[0], x[1], c };
		ptxl_ir_emit(S, 0, op, args, n);
		E(S, "and.b32", r[k], r[k], ir_imm(one));
	}
	if (halves == 2)
		ptxl_write32(S, 0, ptxl_bf_pack(S, r[0], r[1]));
	else
		ptxl_bf_write16(S, 0, r[0]);
	return 0;
}

/* ex2.approx.ftz / tanh.approx: approximations by definition; the f32 approximation
 * rounded once to bf16. */
static iarg approx_half(iseq *S, const pinst *I, const pmods *M, const iarg *x)
{
	iarg r = ir_r(S);
	if (!strcmp(I->word[0], "tanh") && M->ctx->target < 75)
		return ptxl_bf_round(S, ptxl_tanh_f32(S, x[0]), RND_RN, 0);   /* emit_float.c */
	E(S, !strcmp(I->word[0], "ex2") ? "ex2.approx.ftz.f32" : "tanh.approx.f32", r, x[0]);
	return ptxl_bf_round(S, r, RND_RN, 0);
}

int ptxl_build_approx(iseq *S, const pinst *I, const pmods *M)
{
	return per_half(S, I, M, 1, approx_half);
}
