/* emit_common.c: the building blocks every lowering shares: getting bf16 values into f32
 * bit patterns, rounding f32 bit patterns to bf16 with integer instructions, and writing
 * the original's destinations.
 *
 * Rounding f32 -> bf16 (doc/facts.md): round-to-nearest-even is
 * (x + 0x7fff + ((x >> 16) & 1)) >> 16, towards zero x >> 16, towards -inf/+inf adds 0xffff
 * first when the sign says so; overflow carries into the exponent and gives infinity,
 * which is what each mode wants.  NaN gives the canonical 0x7fff.  Because bf16 has f32's
 * exponent range, this is exact for subnormals too.  A wider exact value is first rounded
 * to f32 "to odd" (towards zero, last bit set when inexact): with 16 spare bits that keeps
 * the final round-to-nearest-even correct (no double rounding). */
#include "lower_internal.h"

iarg ptxl_bf_widen(iseq *S, int opnd)
{
	iarg h = ir_h(S), r = ir_r(S);
	E(S, "mov.b16", h, ir_opnd(opnd));
	E(S, "cvt.u32.u16", r, h);
	E(S, "shl.b32", r, r, ir_imm(16));
	return r;
}

void ptxl_bf_split(iseq *S, int opnd, iarg *lo, iarg *hi)
{
	iarg r = ir_r(S);
	*lo = ir_r(S);
	*hi = ir_r(S);
	E(S, "mov.b32", r, ir_opnd(opnd));
	E(S, "shl.b32", *lo, r, ir_imm(16));
	E(S, "and.b32", *hi, r, ir_imm(0xffff0000u));
}

iarg ptxl_f32_in(iseq *S, int opnd)
{
	iarg r = ir_r(S);
	E(S, "mov.f32", r, ir_opnd(opnd));
	return r;
}

iarg ptxl_bf_round(iseq *S, iarg x, int rnd, unsigned flags)
{
	iarg nan = ir_p(S), t = ir_r(S), s;
	E(S, "setp.nan.f32", nan, x, x);
	switch (rnd) {
	case RND_RZ:
		E(S, "shr.u32", t, x, ir_imm(16));
		break;
	case RND_RM:
	case RND_RP:
		s = ir_r(S);
		if (rnd == RND_RP) {
			E(S, "not.b32", s, x);
			E(S, "shr.s32", s, s, ir_imm(31));
		} else {
			E(S, "shr.s32", s, x, ir_imm(31));
		}
		E(S, "and.b32", s, s, ir_imm(0xffff));
		E(S, "add.u32", t, x, s);
		E(S, "shr.u32", t, t, ir_imm(16));
		break;
	default:
		E(S, "shr.u32", t, x, ir_imm(16));
		E(S, "and.b32", t, t, ir_imm(1));
		E(S, "add.u32", t, t, x);
		E(S, "add.u32", t, t, ir_imm(0x7fff));
		E(S, "shr.u32", t, t, ir_imm(16));
		break;
	}
	E(S, "selp.b32", t, ir_imm(0x7fff), t, nan);
	if (flags & M_SATF) {   /* +-inf -> +-max finite (0x7f7f); NaN stays NaN */
		iarg m = ir_r(S), q = ir_p(S), u = ir_r(S);
		E(S, "and.b32", m, t, ir_imm(0x7fff));
		E(S, "setp.eq.u32", q, m, ir_imm(0x7f80));
		E(S, "sub.u32", u, t, ir_imm(1));
		E(S, "selp.b32", t, u, t, q);
	}
	if (flags & M_RELU) {   /* negative (-0 included) -> +0; the canonical NaN is positive */
		iarg m = ir_r(S), q = ir_p(S);
		E(S, "and.b32", m, t, ir_imm(0x8000));
		E(S, "setp.ne.u32", q, m, ir_imm(0));
		E(S, "selp.b32", t, ir_imm(0), t, q);
	}
	return t;
}

iarg ptxl_f32_or_sticky(iseq *S, iarg z, iarg inexact)
{
	iarg s = ir_r(S), r = ir_r(S);
	E(S, "selp.b32", s, ir_imm(1), ir_imm(0), inexact);
	E(S, "or.b32", r, z, s);
	return r;
}

iarg ptxl_bf_pack(iseq *S, iarg lo, iarg hi)
{
	iarg r = ir_r(S);
	E(S, "shl.b32", r, hi, ir_imm(16));
	E(S, "or.b32", r, r, lo);
	return r;
}

void ptxl_bf_write16(iseq *S, int opnd, iarg r)
{
	iarg h = ir_h(S);
	E(S, "cvt.u16.u32", h, r);
	EG(S, "mov.b16", ir_opnd(opnd), h);
}

void ptxl_write32(iseq *S, int opnd, iarg r)
{
	EG(S, "mov.b32", ir_opnd(opnd), r);
}

/* t = src + off (off may be negative; immediates print unsigned). */
static void add_offset(iseq *S, int wide, iarg t, iarg src, long long off)
{
	if (off < 0)
		E(S, wide ? "sub.s64" : "sub.s32", t, src, ir_imm(0ull - (unsigned long long)off));
	else
		E(S, wide ? "add.s64" : "add.s32", t, src, ir_imm((uint64_t)off));
}

int ptxl_addr_temp(iseq *S, const pinst *I, const pmods *M, int opnd, int wide, iarg *out)
{
	paddr A;
	if (opnd >= I->nops || ptxl_addr_parse(I->op[opnd], &A))
		return -1;
	int w = A.kind == AB_REG && M->ctx->regs ? ptxl_reg_width(M->ctx->regs, A.base) : 0;
	iarg t = wide ? ir_d(S) : ir_r(S);
	if (A.kind == AB_NONE) {
		E(S, wide ? "mov.b64" : "mov.b32", t, ir_imm((uint64_t)A.off));
		*out = t;
		return 0;
	}
	if (A.kind == AB_SYM) {
		if (wide)
			return -1;   /* a generic address of a variable: cvta of which space? */
		E(S, "mov.u32", t, ir_obase(opnd));
	} else if (w == (wide ? RW_64 : RW_32)) {
		add_offset(S, wide, t, ir_obase(opnd), A.off);
		*out = t;
		return 0;
	} else if (w == RW_64) {
		E(S, "cvt.u32.u64", t, ir_obase(opnd));   /* a .shared address: 32 bits */
	} else {
		return -1;   /* unknown, or a 32-bit register as a generic address */
	}
	if (A.off)
		add_offset(S, wide, t, t, A.off);
	*out = t;
	return 0;
}
