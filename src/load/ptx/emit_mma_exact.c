/* emit_mma_exact.c: .bf16 and .tf32 mma fragments as f16 fragments that hold exactly the
 * same values, for the f16 tensor cores of sm_70 and sm_75 (emit_mma_tc.c).
 *
 * An f16 holds a bf16 or tf32 value exactly when the value is zero or its magnitude lies
 * in [2^-17, 65504] with no more significant bits than the f16 keeps there (bf16's 8 always
 * fit above 2^-17; tf32's 11 above 2^-14): f16_exact converts each element as it is and
 * checks it by converting back (one vote for the warp).  Where that fails, as for a softmax
 * row whose smallest entries are far below 2^-17, f16_scaled scales each row of A and each
 * column of B by a power of two, 2^alpha and 2^beta, that brings its largest magnitude into
 * [2^15, 2^16): the same check then holds for every element within 2^32 of its row's or
 * column's largest, the f16 products are exact as before, and D = C + 2^-(alpha + beta) P,
 * with P the product from a zero accumulator, one fma per element (the README's argument for
 * the GEMM path's first slice, here without a second: where the check fails the FMA path
 * computes the product).  Rows and columns belong to a lane's group of four (rows g and
 * g + 8 of A, column g of B), so two butterfly steps give their largest magnitudes.
 *
 * alpha and beta stay in [-16, 63]: 2^-(alpha + beta) is a normal f32, and v 2^alpha never
 * underflows f32 to zero for a nonzero bf16 or tf32 v (so the check cannot pass a value the
 * scaling lost); a row whose largest magnitude is 2^31 or more, or whose spread is wider,
 * fails the check and takes the FMA path.  Infinities convert exactly and NaN never passes
 * (NaN != NaN), so specials take the path that follows IEEE. */
#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

/* v -> f16 in h; ok &= (v is exactly that f16).  first: ok is set, not and-ed. */
static void to_f16_exact(iseq *S, iarg v, iarg h, iarg ok, int first)
{
	iarg back = ir_r(S);
	E(S, "cvt.rn.f16.f32", h, v);
	E(S, "cvt.f32.f16", back, h);
	if (first)
		E(S, "setp.eq.f32", ok, back, v);
	else
		E(S, "setp.eq.and.f32", ok, back, v, ok);
}

int ptxl_mma_exact_elems(const mfrag *F, int *na, int *nb)
{
	*na = F->et == ET_TF32 ? F->k / 2 : F->k / 4;
	*nb = F->et == ET_TF32 ? F->k / 4 : F->k / 8;
	return F->et == ET_TF32 ? 1 : 2;
}

void ptxl_mma_exact_values(iseq *S, const mfrag *F, iarg v[12][2])
{
	int na, nb;
	ptxl_mma_exact_elems(F, &na, &nb);
	for (int r = 0; r < na + nb; r++)
		ptxl_mma_unpack(S, F->et, r < na ? F->a[r] : F->b[r - na], v[r]);
}

/* The f16 values h[r][j] of element j of register r (A's then B's) into the f16x2
 * fragments of an m16n8k8/k16 product: A pairs fa, fa+1 (fa+2, fa+3 for a second step), B fb
 * (fb+1).  .tf32 m16n8k8 reorders k: A registers 0 and 2 make the first f16x2, 1 and 3 the
 * second, B 0 and 1 one (columns t and t + 4 become 2t and 2t + 1 on both sides, which
 * leaves the sum over k unchanged); m16n8k4 likewise, with zeros in the odd columns. */
static void pack(iseq *S, const mfrag *F, iarg h[12][2], iarg fa, iarg fb)
{
	int na, nb;
	ptxl_mma_exact_elems(F, &na, &nb);
	if (F->et != ET_TF32) {
		for (int r = 0; r < na + nb; r++) {
			iarg dst = r < na ? ir_el(fa, r) : ir_el(fb, r - na);
			E(S, "mov.b32", dst, ptxl_ir_anylist(S, h[r], 2));
		}
		return;
	}
	iarg zero = ir_h(S);
	if (F->k == 4)
		E(S, "mov.b16", zero, ir_imm(0));
	for (int q = 0; q < 3; q++) {   /* A pairs 0, 1; B */
		iarg lo = q < 2 ? h[q][0] : h[na][0];
		iarg hi = F->k == 4 ? zero : q < 2 ? h[q + 2][0] : h[na + 1][0];
		E(S, "mov.b32", q < 2 ? ir_el(fa, q) : fb, ptxl_ir_anylist(S, (iarg[]){ lo, hi }, 2));
	}
}

void ptxl_mma_f16_exact(iseq *S, const mfrag *F, iarg v[12][2], iarg fa, iarg fb, iarg ok)
{
	int na, nb, e = ptxl_mma_exact_elems(F, &na, &nb), first = 1;
	iarg h[12][2];
	for (int r = 0; r < na + nb; r++)
		for (int j = 0; j < e; j++) {
			h[r][j] = ir_h(S);
			to_f16_exact(S, v[r][j], h[r][j], ok, first);
			first = 0;
		}
	pack(S, F, h, fa, fb);
}

/* Largest magnitude over the group of four of m (bits of f32 magnitudes shifted left by one,
 * which orders them as unsigned integers), then its f32 exponent field clamped to
 * [79, 158]: alpha = 142 - that. */
static iarg group_exponent(iseq *S, iarg m)
{
	iarg o = ir_r(S);
	for (int x = 1; x <= 2; x *= 2) {
		E(S, "shfl.sync.bfly.b32", o, m, ir_imm((uint64_t)x), ir_imm(0x1f), ALL);
		E(S, "max.u32", m, m, o);
	}
	E(S, "shr.u32", m, m, ir_imm(24));
	E(S, "max.u32", m, m, ir_imm(79));
	E(S, "min.u32", m, m, ir_imm(158));
	return m;
}

/* 2^alpha for exponent x: f32 bits (269 - x) << 23. */
static iarg scale_of(iseq *S, iarg x)
{
	iarg s = ir_r(S);
	E(S, "sub.s32", s, ir_imm(269), x);
	E(S, "shl.b32", s, s, ir_imm(23));
	return s;
}

void ptxl_mma_f16_scaled(iseq *S, const mfrag *F, iarg v[12][2], iarg fa, iarg fb, iarg ok,
			 iarg factor[4])
{
	int na, nb, e = ptxl_mma_exact_elems(F, &na, &nb), first = 1;
	int rows = F->half_rows ? 1 : 2;
	iarg mag[3] = { ir_r(S), ir_r(S), ir_r(S) };   /* rows g, g + 8; column g */
	int seen[3] = { 0, 0, 0 };
	for (int r = 0; r < na + nb; r++)
		for (int j = 0; j < e; j++) {
			int which = r < na ? r % 2 : 2;
			if (which == 1 && rows == 1)
				continue;
			iarg m = seen[which] ? ir_r(S) : mag[which];
			E(S, "shl.b32", m, v[r][j], ir_imm(1));
			if (seen[which])
				E(S, "max.u32", mag[which], mag[which], m);
			seen[which] = 1;
		}
	iarg x[3], sc[3];
	for (int q = 0; q < 3; q++)
		if (q < rows || q == 2) {
			x[q] = group_exponent(S, mag[q]);
			sc[q] = scale_of(S, x[q]);
		}
	iarg h[12][2];
	for (int r = 0; r < na + nb; r++)
		for (int j = 0; j < e; j++) {
			int which = r < na ? r % 2 : 2;
			h[r][j] = ir_h(S);
			if (which == 1 && rows == 1) {   /* rows 8..15 of m8n32k16: zeros */
				E(S, "mov.b16", h[r][j], ir_imm(0));
				continue;
			}
			iarg s = ir_r(S);
			E(S, "mul.f32", s, v[r][j], sc[which]);
			to_f16_exact(S, s, h[r][j], ok, first);
			first = 0;
		}
	pack(S, F, h, fa, fb);
	/* D element i (row g + 8 (i / 2), column 2t + i % 2) is scaled by 2^(alpha_row +
	 * beta_col); beta of column c lives in group c: lanes 8t and 8t + 4. */
	iarg lane = ir_r(S), src = ir_r(S), col[2] = { ir_r(S), ir_r(S) }, base[2];
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "and.b32", src, lane, ir_imm(3));
	E(S, "shl.b32", src, src, ir_imm(3));
	E(S, "shfl.sync.idx.b32", col[0], x[2], src, ir_imm(31), ALL);
	E(S, "or.b32", src, src, ir_imm(4));
	E(S, "shfl.sync.idx.b32", col[1], x[2], src, ir_imm(31), ALL);
	for (int q = 0; q < rows; q++) {   /* 2^-(alpha + beta): bits (x_row + x_col - 157) << 23 */
		base[q] = ir_r(S);
		E(S, "sub.s32", base[q], x[q], ir_imm(157));
	}
	for (int i = 0; i < 2 * rows; i++) {
		factor[i] = ir_r(S);
		E(S, "add.s32", factor[i], base[i / 2], col[i % 2]);
		E(S, "shl.b32", factor[i], factor[i], ir_imm(23));
	}
}
