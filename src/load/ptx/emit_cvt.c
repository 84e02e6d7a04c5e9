/* emit_cvt.c: lowerings of cvt with a bf16 side.
 * Every path is one exact step plus one rounding: bf16 -> f32 is a shift, f16/int16 -> f32
 * is exact, and wider sources (f64, 32/64-bit integers) are rounded to f32 to odd (or in
 * the same directed mode, which composes) before the f32 -> bf16 rounding. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

static int frnd(const pmods *M)
{
	return M->rnd == RND_NONE ? RND_RN : M->rnd;
}

/* "cvt.rz.f32.s64" and the like; 0 if it does not fit. */
static int mnemonic(char *buf, size_t cap, const char *head, int rnd, int d, int s)
{
	int k = snprintf(buf, cap, rnd ? "%s.%s.%s.%s" : "%s%s.%s.%s", head, ptxl_rnd_word(rnd),
			 ptxl_type_word(d), ptxl_type_word(s));
	return k > 0 && (size_t)k < cap;
}

/* cvt.frnd{.relu}{.satfinite}.bf16.f32 d, a  and  .bf16x2.f32 d, a, b (a -> high half) */
int ptxl_build_cvt_from_f32(iseq *S, const pinst *I, const pmods *M)
{
	int rnd = frnd(M);
	if (M->type[0] == TY_BF16) {
		if (I->nops != 2)
			return -1;
		ptxl_bf_write16(S, 0, ptxl_bf_round(S, ptxl_f32_in(S, 1), rnd, M->flags));
		return 0;
	}
	if (I->nops != 3)
		return -1;
	iarg hi = ptxl_bf_round(S, ptxl_f32_in(S, 1), rnd, M->flags);
	iarg lo = ptxl_bf_round(S, ptxl_f32_in(S, 2), rnd, M->flags);
	ptxl_write32(S, 0, ptxl_bf_pack(S, lo, hi));
	return 0;
}

/* cvt{.rnd}{.ftz}.f32.bf16: the shift keeps NaN payloads, like cuda_bf16.hpp's
 * __bfloat162float; with a rounding or .ftz modifier a NaN becomes the canonical one, as
 * any rounding conversion makes it. */
int ptxl_build_cvt_to_f32(iseq *S, const pinst *I, const pmods *M)
{
	if (I->nops != 2)
		return -1;
	iarg x = ptxl_bf_widen(S, 1);
	if (M->flags & M_FTZ) {   /* subnormal input -> zero of the same sign */
		iarg e = ir_r(S), z = ir_p(S), sg = ir_r(S);
		E(S, "and.b32", e, x, ir_imm(0x7f800000));
		E(S, "setp.eq.u32", z, e, ir_imm(0));
		E(S, "and.b32", sg, x, ir_imm(0x80000000u));
		E(S, "selp.b32", x, sg, x, z);
	}
	if (M->rnd != RND_NONE || (M->flags & M_FTZ)) {
		iarg nan = ir_p(S);
		E(S, "setp.nan.f32", nan, x, x);
		E(S, "selp.b32", x, ir_imm(0x7fffffff), x, nan);
	}
	ptxl_write32(S, 0, x);
	return 0;
}

int ptxl_build_cvt_to_f64(iseq *S, const pinst *I, const pmods *M)
{
	(void)M;
	if (I->nops != 2)
		return -1;
	EG(S, "cvt.f64.f32", ir_opnd(0), ptxl_bf_widen(S, 1));
	return 0;
}

/* bf16 -> f32 is exact, so cvt.frnd.f16.f32 rounds once. */
int ptxl_build_cvt_to_f16(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	if (I->nops != 2 || !mnemonic(op, sizeof(op), "cvt", frnd(M), TY_F16, TY_F32))
		return -1;
	EG(S, op, ir_opnd(0), ptxl_bf_widen(S, 1));
	return 0;
}

int ptxl_build_cvt_from_f16(iseq *S, const pinst *I, const pmods *M)
{
	if (I->nops != 2)
		return -1;
	iarg x = ir_r(S);
	E(S, "cvt.f32.f16", x, ir_opnd(1));
	ptxl_bf_write16(S, 0, ptxl_bf_round(S, x, frnd(M), 0));
	return 0;
}

/* f64 -> f32 to odd (exactness checked by converting back), or in the directed mode. */
int ptxl_build_cvt_from_f64(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	int rnd = frnd(M);
	if (I->nops != 2)
		return -1;
	iarg d = ir_d(S), x = ir_r(S);
	E(S, "mov.f64", d, ir_opnd(1));
	if (rnd == RND_RN) {
		iarg back = ir_d(S), inexact = ir_p(S);
		E(S, "cvt.rz.f32.f64", x, d);
		E(S, "cvt.f64.f32", back, x);
		E(S, "setp.neu.f64", inexact, back, d);
		x = ptxl_f32_or_sticky(S, x, inexact);
	} else {
		if (!mnemonic(op, sizeof(op), "cvt", rnd, TY_F32, TY_F64))
			return -1;
		E(S, op, x, d);
	}
	ptxl_bf_write16(S, 0, ptxl_bf_round(S, x, rnd, 0));
	return 0;
}

/* Integers: 16-bit ones are exact in f32; wider ones are rounded to odd (inexact exactly
 * when rounding down and up differ) or in the directed mode. */
int ptxl_build_cvt_from_int(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	int rnd = frnd(M), st = M->type[1];
	if (I->nops != 2)
		return -1;
	iarg x = ir_r(S);
	if (st == TY_S16 || st == TY_U16 || rnd != RND_RN) {
		int r1 = st == TY_S16 || st == TY_U16 ? RND_RN : rnd;
		if (!mnemonic(op, sizeof(op), "cvt", r1, TY_F32, st))
			return -1;
		E(S, op, x, ir_opnd(1));
	} else {
		static const int modes[3] = { RND_RZ, RND_RM, RND_RP };
		iarg v[3] = { x, ir_r(S), ir_r(S) }, inexact = ir_p(S);
		for (int i = 0; i < 3; i++) {
			if (!mnemonic(op, sizeof(op), "cvt", modes[i], TY_F32, st))
				return -1;
			E(S, op, v[i], ir_opnd(1));
		}
		E(S, "setp.neu.f32", inexact, v[1], v[2]);
		x = ptxl_f32_or_sticky(S, x, inexact);
	}
	ptxl_bf_write16(S, 0, ptxl_bf_round(S, x, rnd, 0));
	return 0;
}

/* bf16 -> integer: the value is exact in f32, so the f32 conversion (with its saturation
 * and NaN rules) gives the same integer. */
int ptxl_build_cvt_to_int(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	if (I->nops != 2 || !mnemonic(op, sizeof(op), "cvt", M->rnd, M->type[0], TY_F32))
		return -1;
	EG(S, op, ir_opnd(0), ptxl_bf_widen(S, 1));
	return 0;
}

/* cvt.rni.bf16.bf16 and friends: an integral value of a bf16 has at most 8 significant
 * bits, so the f32 result is exactly a bf16 and the final rounding only maps NaN. */
int ptxl_build_cvt_round(iseq *S, const pinst *I, const pmods *M)
{
	char op[40];
	if (I->nops != 2 || !mnemonic(op, sizeof(op), "cvt", M->rnd, TY_F32, TY_F32))
		return -1;
	iarg y = ir_r(S);
	E(S, op, y, ptxl_bf_widen(S, 1));
	ptxl_bf_write16(S, 0, ptxl_bf_round(S, y, RND_RN, 0));
	return 0;
}

/* cvt.{rn,rz}.f16x2.f32 d, a, b (sm_80; PTX ISA 9.7.9.21): a converted to d's upper half
 * and b to its lower one, each rounded once as cvt.{rn,rz}.f16.f32 (sm_20) rounds it:
 * bit-exact.  The .relu and .satfinite forms are reported (-80: no rewrite). */
int ptxl_need_cvt_f16x2(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	int n = I->nwords;
	if (n < 4 || strcmp(I->word[n - 2], "f16x2") || strcmp(I->word[n - 1], "f32"))
		return 0;
	return n == 4 && (!strcmp(I->word[1], "rn") || !strcmp(I->word[1], "rz")) ? 80 : -80;
}

int ptxl_build_cvt_f16x2(iseq *S, const pinst *I, const pmods *M)
{
	(void)M;
	if (I->nops != 3)
		return -1;
	const char *op = !strcmp(I->word[1], "rz") ? "cvt.rz.f16.f32" : "cvt.rn.f16.f32";
	iarg h = ptxl_ir_temps(S, IA_H, 2);   /* {low, high} */
	E(S, op, ir_el(h, 1), ir_opnd(1));
	E(S, op, h, ir_opnd(2));
	EG(S, "mov.b32", ir_opnd(0), ir_tvec(h, 2));
	return 0;
}
