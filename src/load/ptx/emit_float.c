/* emit_float.c: floating-point instructions without bf16 that older targets lack, and two
 * that have nothing to do there.
 *
 * min/max (PTX ISA 9.7.3.11-12, 9.7.4.7-8): .NaN on f32 (sm_80), .xorsign.abs on f32
 * (sm_86), and every f16/f16x2 form ({.ftz}{.NaN}{.xorsign.abs}, sm_80/sm_86): on the exact
 * f32 values (an f16 widens exactly; .ftz flushes f16 subnormals first), by the f32 rules
 * of emit_arith.c, rounded back to f16 (exact: the result is an operand, or the canonical
 * NaN 0x7fff either way).  Bit-exact.
 * tanh.approx.f32 (sm_75; 9.7.3.22) below sm_75: sign(x) * (1 - 2 / (2^(2|x| log2 e) + 1))
 * with ex2.approx and rcp.approx, which for |x| >= 0.55 stays within a few ulps (no
 * cancellation: the subtrahend is at most 0.5); below, the odd Taylor series to x^11,
 * whose first omitted term is under 2^-17 of the result.  Both well within the ISA's
 * bound for the approximation (a relative error of 2^-11); NaN, infinities and signed
 * zeros as tanh has them.  tanh.approx.f16/f16x2 and ex2.approx.f16/f16x2 (sm_75) widen to
 * f32, as above or ex2.approx.f32, and round once back.
 * griddepcontrol.wait and .launch_dependents (sm_90; 9.7.15.1-2): without programmatic
 * dependent launch (an sm_90 feature) a grid starts after its predecessor has finished, so
 * the wait is over before it begins, and there is no dependent to launch early: nothing.
 * fence.proxy.async (sm_90; 9.7.13.4) orders the generic proxy against the async proxy,
 * which GPUs before sm_90 do not have (whatever uses it there stays out): nothing.
 * fence.proxy.alias (sm_70) below sm_70, where fence does not exist: membar.sys, the
 * strongest fence those targets have. */
#include <string.h>

#include "lower_internal.h"

static int has_word(const pinst *I, const char *w)
{
	for (int i = 1; i < I->nwords; i++)
		if (!strcmp(I->word[i], w))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ min, max */

/* The flags of a min/max without bf16, and its type (TY_F32, TY_F16, TY_F16X2); -1 for a
 * form this file does not know. */
static int minmax_form(const pinst *I, unsigned *flags)
{
	int ty = 0;

	*flags = 0;
	if (I->nops != 3)
		return -1;
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (!strcmp(w, "ftz"))
			*flags |= M_FTZ;
		else if (!strcmp(w, "NaN"))
			*flags |= M_NAN;
		else if (!strcmp(w, "xorsign"))
			*flags |= M_XORSIGN;
		else if (!strcmp(w, "abs"))
			*flags |= M_ABS;
		else if (!ty && !strcmp(w, "f32"))
			ty = TY_F32;
		else if (!ty && !strcmp(w, "f16"))
			ty = TY_F16;
		else if (!ty && !strcmp(w, "f16x2"))
			ty = TY_F16X2;
		else
			return -1;
	}
	if (!ty || ((*flags & M_XORSIGN) != 0) != ((*flags & M_ABS) != 0))
		return -1;
	return ty;
}

int ptxl_need_minmax(const pinst *I, const lctx *ctx)
{
	unsigned f;
	int ty = minmax_form(I, &f);

	(void)ctx;
	if (ty < 0 || (ty == TY_F32 && !(f & (M_NAN | M_XORSIGN))))
		return 0;
	return f & M_XORSIGN ? 86 : 80;
}

/* f16 bits (low 16 of a .b32 temporary) -> f32 bits, subnormals flushed first with ftz. */
static iarg widen_f16(iseq *S, iarg h, int ftz)
{
	iarg x = ir_h(S), f = ir_r(S);

	E(S, "cvt.u16.u32", x, h);
	if (ftz) {
		iarg e = ir_h(S), z = ir_h(S), sub = ir_p(S);
		E(S, "and.b16", e, x, ir_imm(0x7c00));
		E(S, "setp.eq.u16", sub, e, ir_imm(0));
		E(S, "and.b16", z, x, ir_imm(0x8000));
		E(S, "selp.b16", x, z, x, sub);
	}
	E(S, "cvt.f32.f16", f, x);
	return f;
}

/* f32 -> f16 bits, rounded to nearest, in the low half of a .b32 temporary. */
static iarg narrow_f16(iseq *S, iarg f)
{
	iarg h = ir_h(S), r = ir_r(S);

	E(S, "cvt.rn.f16.f32", h, f);
	E(S, "cvt.u32.u16", r, h);
	return r;
}

int ptxl_build_minmax(iseq *S, const pinst *I, const pmods *M)
{
	unsigned f;
	int ty = minmax_form(I, &f), is_min = !strcmp(I->word[0], "min");
	iarg a = ir_r(S), b = ir_r(S);

	(void)M;
	if (ty < 0)
		return -1;
	if (ty == TY_F32) {
		E(S, "mov.b32", a, ir_opnd(1));
		E(S, "mov.b32", b, ir_opnd(2));
		EG(S, "mov.b32", ir_opnd(0), ptxl_minmax_f32(S, is_min, a, b, f));
		return 0;
	}
	if (ty == TY_F16) {
		iarg r;
		E(S, "cvt.u32.u16", a, ir_opnd(1));
		E(S, "cvt.u32.u16", b, ir_opnd(2));
		r = narrow_f16(S, ptxl_minmax_f32(S, is_min, widen_f16(S, a, f & M_FTZ),
						 widen_f16(S, b, f & M_FTZ), f & ~M_FTZ));
		{
			iarg h = ir_h(S);
			E(S, "cvt.u16.u32", h, r);
			EG(S, "mov.b16", ir_opnd(0), h);
		}
		return 0;
	}
	/* f16x2: the halves apart, then together again */
	{
		iarg ahi = ir_r(S), bhi = ir_r(S), lo, hi, out = ir_r(S);
		E(S, "mov.b32", a, ir_opnd(1));
		E(S, "mov.b32", b, ir_opnd(2));
		E(S, "shr.u32", ahi, a, ir_imm(16));
		E(S, "shr.u32", bhi, b, ir_imm(16));
		lo = narrow_f16(S, ptxl_minmax_f32(S, is_min, widen_f16(S, a, f & M_FTZ),
						   widen_f16(S, b, f & M_FTZ), f & ~M_FTZ));
		hi = narrow_f16(S, ptxl_minmax_f32(S, is_min, widen_f16(S, ahi, f & M_FTZ),
						   widen_f16(S, bhi, f & M_FTZ), f & ~M_FTZ));
		E(S, "shl.b32", out, hi, ir_imm(16));
		E(S, "or.b32", out, out, lo);
		EG(S, "mov.b32", ir_opnd(0), out);
	}
	return 0;
}

/* ------------------------------------------------------------------ tanh, ex2 */

/* An f32 constant in a register (the printer writes immediates as integers). */
static iarg f32c(iseq *S, uint32_t bits)
{
	iarg r = ir_r(S);

	E(S, "mov.b32", r, ir_imm(bits));
	return r;
}

/* tanh of the f32 bits x, for targets without tanh.approx.f32. */
iarg ptxl_tanh_f32(iseq *S, iarg x)
{
	/* The odd Taylor coefficients 1/3, 2/15, 17/315, 62/2835, 1382/155925, as f32. */
	static const float coef[] = { -1.0f / 3, 2.0f / 15, -17.0f / 315, 62.0f / 2835,
				      -1382.0f / 155925 };
	iarg ax = ir_r(S), x2 = ir_r(S), p = ir_r(S), big = ir_r(S), e = ir_r(S), r = ir_r(S);
	iarg small = ir_p(S), sign = ir_r(S);
	uint32_t bits;

	E(S, "abs.f32", ax, x);
	/* |x| >= 0.55: 1 - 2 / (e^(2|x|) + 1) */
	iarg one = f32c(S, 0x3f800000u);
	E(S, "mul.f32", e, ax, f32c(S, 0x4038aa3bu));            /* 2 log2(e) */
	E(S, "ex2.approx.ftz.f32", e, e);
	E(S, "add.f32", e, e, one);
	E(S, "rcp.approx.ftz.f32", e, e);
	E(S, "fma.rn.f32", big, e, f32c(S, 0xc0000000u), one);   /* 1 - 2e */
	/* |x| < 0.55: |x| + |x|^3 (c1 + x^2 (c2 + ...)) */
	E(S, "mul.f32", x2, ax, ax);
	memcpy(&bits, &coef[4], 4);
	E(S, "mov.b32", p, ir_imm(bits));
	for (int i = 3; i >= 0; i--) {
		memcpy(&bits, &coef[i], 4);
		E(S, "fma.rn.f32", p, p, x2, f32c(S, bits));
	}
	E(S, "mul.f32", p, p, x2);
	E(S, "fma.rn.f32", p, p, ax, ax);
	E(S, "setp.lt.f32", small, ax, f32c(S, 0x3f0ccccdu));     /* 0.55 */
	E(S, "selp.b32", r, p, big, small);
	/* the sign of x on the magnitude (tanh is odd; -0 stays -0, NaN stays NaN) */
	E(S, "and.b32", sign, x, ir_imm(0x80000000u));
	E(S, "or.b32", r, r, sign);
	return r;
}

static int approx_form(const pinst *I, int *ty)
{
	int tanh_ = !strcmp(I->word[0], "tanh");

	*ty = 0;
	if (I->nops != 2 || !has_word(I, "approx"))
		return -1;
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (!strcmp(w, "approx") || (!tanh_ && !strcmp(w, "ftz")))
			continue;
		if (*ty)
			return -1;
		*ty = !strcmp(w, "f32") ? TY_F32 : !strcmp(w, "f16") ? TY_F16
		      : !strcmp(w, "f16x2") ? TY_F16X2 : -1;
		if (*ty < 0)
			return -1;
	}
	if (!*ty || (!tanh_ && *ty == TY_F32))
		return -1;          /* ex2.approx.f32 is old */
	return tanh_;
}

int ptxl_need_approx(const pinst *I, const lctx *ctx)
{
	int ty;

	(void)ctx;
	return approx_form(I, &ty) < 0 ? 0 : 75;
}

/* f32 bits -> tanh or ex2, on targets without their f16 or tanh forms */
static iarg approx_f32(iseq *S, int tanh_, iarg x, int target)
{
	iarg r = ir_r(S);

	if (tanh_ && target < 75)
		return ptxl_tanh_f32(S, x);
	E(S, tanh_ ? "tanh.approx.f32" : "ex2.approx.ftz.f32", r, x);
	return r;
}

int ptxl_build_approx_f(iseq *S, const pinst *I, const pmods *M)
{
	int ty, tanh_ = approx_form(I, &ty), target = M->ctx->target;
	iarg a = ir_r(S);

	if (tanh_ < 0)
		return -1;
	if (ty == TY_F32) {
		E(S, "mov.b32", a, ir_opnd(1));
		EG(S, "mov.b32", ir_opnd(0), approx_f32(S, tanh_, a, target));
		return 0;
	}
	if (ty == TY_F16) {
		iarg h = ir_h(S);
		E(S, "cvt.u32.u16", a, ir_opnd(1));
		E(S, "cvt.u16.u32", h, narrow_f16(S, approx_f32(S, tanh_, widen_f16(S, a, 0), target)));
		EG(S, "mov.b16", ir_opnd(0), h);
		return 0;
	}
	{
		iarg ahi = ir_r(S), lo, hi, out = ir_r(S);
		E(S, "mov.b32", a, ir_opnd(1));
		E(S, "shr.u32", ahi, a, ir_imm(16));
		lo = narrow_f16(S, approx_f32(S, tanh_, widen_f16(S, a, 0), target));
		hi = narrow_f16(S, approx_f32(S, tanh_, widen_f16(S, ahi, 0), target));
		E(S, "shl.b32", out, hi, ir_imm(16));
		E(S, "or.b32", out, out, lo);
		EG(S, "mov.b32", ir_opnd(0), out);
	}
	return 0;
}

/* ------------------------------------------------------------------ nothing to do */

int ptxl_need_griddep(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	return I->nops == 0 && I->nwords == 2 &&
	       (!strcmp(I->word[1], "wait") || !strcmp(I->word[1], "launch_dependents")) ? 90 : 0;
}

int ptxl_need_fence_proxy(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	if (I->nops || I->nwords < 3 || strcmp(I->word[1], "proxy"))
		return 0;
	if (!strcmp(I->word[2], "alias") && I->nwords == 3)
		return 70;
	/* fence.proxy.async{.shared::cta, .shared::cluster, .global} */
	if (!strcmp(I->word[2], "async") &&
	    (I->nwords == 3 || (I->nwords == 4 && (!strcmp(I->word[3], "shared::cta") ||
						   !strcmp(I->word[3], "global")))))
		return 90;
	return 0;
}

int ptxl_build_fence_proxy(iseq *S, const pinst *I, const pmods *M)
{
	(void)M;
	if (!strcmp(I->word[2], "alias"))
		E0(S, "membar.sys");
	return 0;
}
