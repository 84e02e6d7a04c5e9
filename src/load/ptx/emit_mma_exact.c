/* emit_mma_exact.c: .bf16 and .tf32 fragments (of mma, and of this pass's wmma) as f16
 * values that are exactly the same, for the f16 tensor cores of sm_70 and sm_75.
 *
 * An f16 holds a bf16 or tf32 value exactly when the value is zero or its magnitude lies
 * in [2^-17, 65504] with no more significant bits than the f16 keeps there (bf16's 8 always
 * fit above 2^-17; tf32's 11 above 2^-14): ptxl_xfrag_exact converts each element as it is
 * and checks it by converting back (one vote for the warp).  Where that fails, as for a
 * softmax row whose smallest entries are far below 2^-17, ptxl_xfrag_scaled scales each row
 * of A and each column of B by a power of two, 2^alpha and 2^beta, that brings its largest
 * magnitude into [2^15, 2^16): the same check then holds for every element within 2^32 of
 * its row's or column's largest, the f16 products are exact as before, and
 * D = C + 2^-(alpha + beta) P, with P the product from a zero accumulator, one fma per
 * element (the README's argument for the GEMM path's first slice, here without a second:
 * where the check fails the FMA path computes the product).  A row of A (rows g and g + 8
 * of each tile) or a column of B (column g of each tile) belongs to a lane's group of four,
 * so two butterfly steps give its largest magnitude.
 *
 * alpha and beta stay in [-16, 63]: 2^-(alpha + beta) is a normal f32, and v 2^alpha never
 * underflows f32 to zero for a nonzero bf16 or tf32 v (so the check cannot pass a value the
 * scaling lost); a row whose largest magnitude is 2^31 or more, or whose spread is wider,
 * fails the check and takes the FMA path.  Infinities convert exactly and NaN never passes
 * (NaN != NaN), so specials take the path that follows IEEE. */
#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

void ptxl_xfrag_add(xfrag *X, iseq *S, int et, iarg reg, int scale)
{
	iarg v[2];
	ptxl_mma_unpack(S, et, reg, v);
	for (int j = 0; j < (et == ET_TF32 ? 1 : 2) && X->n < XFRAG_MAX; j++) {
		X->v[X->n] = v[j];
		X->scale[X->n++] = (uint8_t)scale;
	}
}

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

/* Every element as it is; ok[side]: each of A's (side 0), of B's (side 1) was exact. */
static void exact(iseq *S, xfrag *X, const iarg ok[2])
{
	int first[2] = { 1, 1 };
	for (int e = 0; e < X->n; e++) {
		int side = X->scale[e] >= XFRAG_SIDE_B;
		X->h[e] = ir_h(S);
		to_f16_exact(S, X->v[e], X->h[e], ok[side], first[side]);
		first[side] = 0;
	}
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

/* The elements of the sides asked for (1: A's, 2: B's) scaled by their row's or column's
 * power of two; ok: each of them was exact. */
static void scaled(iseq *S, xfrag *X, iarg ok, int sides)
{
	iarg mag[XFRAG_SCALES], sc[XFRAG_SCALES];
	int seen[XFRAG_SCALES] = { 0 }, first = 1;
	for (int e = 0; e < X->n; e++) {
		int q = X->scale[e];
		if (!(sides & (q >= XFRAG_SIDE_B ? 2 : 1)))
			continue;
		iarg m = seen[q] ? ir_r(S) : (mag[q] = ir_r(S));
		E(S, "shl.b32", m, X->v[e], ir_imm(1));
		if (seen[q])
			E(S, "max.u32", mag[q], mag[q], m);
		seen[q] = 1;
	}
	for (int q = 0; q < XFRAG_SCALES; q++) {
		if (!seen[q])
			continue;
		X->x[q] = group_exponent(S, mag[q]);
		sc[q] = ir_r(S);   /* 2^alpha: f32 bits (269 - x) << 23 */
		E(S, "sub.s32", sc[q], ir_imm(269), X->x[q]);
		E(S, "shl.b32", sc[q], sc[q], ir_imm(23));
	}
	for (int e = 0; e < X->n; e++) {
		if (!seen[X->scale[e]])
			continue;
		iarg s = ir_r(S);
		X->h[e] = ir_h(S);
		E(S, "mul.f32", s, X->v[e], sc[X->scale[e]]);
		to_f16_exact(S, s, X->h[e], ok, first);
		first = 0;
	}
}

void ptxl_xfrag_factors(iseq *S, const xfrag *X, int sides, const int *row, const int *col,
			int n, iarg *factor)
{
	if (!(sides & 2)) {   /* columns as they are (x = 142): 2^-alpha, bits (x_row - 15) << 23 */
		iarg f[XFRAG_SCALES];
		int have[XFRAG_SCALES] = { 0 };
		for (int i = 0; i < n; i++) {
			if (!have[row[i]]) {
				f[row[i]] = ir_r(S);
				E(S, "sub.s32", f[row[i]], X->x[row[i]], ir_imm(15));
				E(S, "shl.b32", f[row[i]], f[row[i]], ir_imm(23));
				have[row[i]] = 1;
			}
			factor[i] = f[row[i]];
		}
		return;
	}
	iarg lane = ir_r(S), src[2] = { ir_r(S), ir_r(S) }, colx[XFRAG_SCALES][2], base[XFRAG_SCALES];
	int have_col[XFRAG_SCALES] = { 0 }, have_row[XFRAG_SCALES] = { 0 };
	/* beta of column 2t + j of a tile lives in group 2t + j: lanes 8t and 8t + 4 */
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "and.b32", src[0], lane, ir_imm(3));
	E(S, "shl.b32", src[0], src[0], ir_imm(3));
	E(S, "or.b32", src[1], src[0], ir_imm(4));
	for (int i = 0; i < n; i++) {
		int c = col[i], r = row[i];
		if (!have_col[c]) {
			for (int j = 0; j < 2; j++) {
				colx[c][j] = ir_r(S);
				E(S, "shfl.sync.idx.b32", colx[c][j], X->x[c], src[j], ir_imm(31), ALL);
			}
			have_col[c] = 1;
		}
		if (!have_row[r]) {   /* 2^-(alpha + beta): bits (x_row + x_col - 157) << 23 */
			base[r] = ir_r(S);
			E(S, "sub.s32", base[r], X->x[r], ir_imm(157));
			have_row[r] = 1;
		}
		factor[i] = ir_r(S);
		E(S, "add.s32", factor[i], base[r], colx[c][i % 2]);
		E(S, "shl.b32", factor[i], factor[i], ir_imm(23));
	}
}

/* ------------------------------------------------------------ mma's fragments */

/* Registers of A (*na) and B (*nb) of F; elements per register. */
static int elems(const mfrag *F, int *na, int *nb)
{
	*na = F->et == ET_TF32 ? F->k / 2 : F->k / 4;
	*nb = F->et == ET_TF32 ? F->k / 4 : F->k / 8;
	return F->et == ET_TF32 ? 1 : 2;
}

void ptxl_xfrag_tiers(iseq *S, xfrag *X, const xtiers *T, void *ctx)
{
	iarg ok[2] = { ir_p(S), ir_p(S) }, both = ir_p(S), all = ir_p(S);
	iarg inexact = ptxl_ir_label(S), scale2 = ptxl_ir_label(S), slow = ptxl_ir_label(S);
	iarg done = ptxl_ir_label(S);
	exact(S, X, ok);
	T->pack(S, X, ctx);
	E(S, "and.pred", both, ok[0], ok[1]);
	E(S, "vote.sync.all.pred", all, both, ALL);
	EN(S, all, "bra.uni", inexact);
	T->product(S, X, ctx, 0);
	E(S, "bra.uni", done);
	ptxl_ir_place(S, inexact);   /* B as it is when its elements were exact, else both */
	E(S, "vote.sync.all.pred", all, ok[1], ALL);
	EN(S, all, "bra.uni", scale2);
	for (int sides = 1; sides <= 3; sides += 2) {
		scaled(S, X, ok[0], sides);
		T->pack(S, X, ctx);
		E(S, "vote.sync.all.pred", all, ok[0], ALL);
		EN(S, all, "bra.uni", slow);
		T->product(S, X, ctx, sides);
		E(S, "bra.uni", done);
		if (sides == 1)
			ptxl_ir_place(S, scale2);
	}
	ptxl_ir_place(S, slow);
	T->fallback(S, ctx);
	ptxl_ir_place(S, done);
}

void ptxl_mma_xfrag(iseq *S, const mfrag *F, xfrag *X)
{
	int na, nb;
	elems(F, &na, &nb);
	X->n = 0;
	for (int r = 0; r < na; r++)   /* A register r: row g + 8 (r % 2): scale r % 2 */
		if (!(F->half_rows && r % 2))
			ptxl_xfrag_add(X, S, F->et, F->a[r], r % 2);
	for (int r = 0; r < nb; r++)   /* B: column g */
		ptxl_xfrag_add(X, S, F->et, F->b[r], XFRAG_SIDE_B);
}

/* X's f16 values into the f16x2 fragments of an m16n8k8/k16 product: A pairs fa, fa+1
 * (fa+2, fa+3 for a second step), B fb (fb+1).  .tf32 m16n8k8 reorders k: A registers 0
 * and 2 make the first f16x2, 1 and 3 the second, B 0 and 1 one (columns t and t + 4 become
 * 2t and 2t + 1 on both sides, which leaves the sum over k unchanged); m16n8k4 likewise,
 * with zeros in the odd columns. */
void ptxl_mma_xfrag_pack(iseq *S, const mfrag *F, const xfrag *X, iarg fa, iarg fb)
{
	int na, nb;
	elems(F, &na, &nb);
	if (F->et != ET_TF32) {
		int e = 0;
		for (int r = 0; r < na + nb; r++) {
			iarg dst = r < na ? ir_el(fa, r) : ir_el(fb, r - na);
			if (r < na && F->half_rows && r % 2) {
				E(S, "mov.b32", dst, ir_imm(0));
				continue;
			}
			E(S, "mov.b32", dst, ptxl_ir_anylist(S, X->h + e, 2));
			e += 2;
		}
		return;
	}
	iarg zero = ir_h(S);
	if (F->k == 4)
		E(S, "mov.b16", zero, ir_imm(0));
	for (int q = 0; q < 3; q++) {   /* A pairs 0, 1; B */
		iarg lo = q < 2 ? X->h[q] : X->h[na];
		iarg hi = F->k == 4 ? zero : q < 2 ? X->h[q + 2] : X->h[na + 1];
		E(S, "mov.b32", q < 2 ? ir_el(fa, q) : fb, ptxl_ir_anylist(S, (iarg[]){ lo, hi }, 2));
	}
}
