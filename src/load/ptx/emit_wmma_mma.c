/* emit_wmma_mma.c: the helper of wmma.mma .f32.bf16.bf16.f32 (m16n16k16, m32n8k16,
 * m8n32k16) in this pass's fragment layout (emit_wmma.c): one m16n8k16 product per tile of D
 * (16 x 8, or 8 x 8 for m8n32k16), R row tiles by Ct column tiles.
 *
 * Each element of A and B is converted once for all the tiles that use it: to f16 as it
 * is, else scaled by its row's or column's power of two (emit_mma_exact.c), and the tiles
 * run on the tensor cores (emit_mma_tc.c); where neither conversion is exact, and on sm_61
 * and older, each tile runs the FMA path.  Within the fp32 accumulation bound either way
 * (emit_mma.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

void ptxl_wmma_helper_sizes(const hkey *k, int n[HP_COUNT])
{
	n[HP_A] = k->m == 8 ? 2 : k->m / 4;
	n[HP_B] = k->n / 4;
	n[HP_C] = n[HP_D] = 8;
	n[HP_E] = 0;
}

void ptxl_wmma_helper_name(const hkey *k, char *out, size_t cap)
{
	snprintf(out, cap, "wmma_m%dn%dk%d_f32_bf16_sm%d", k->m, k->n, k->k, k->target);
}

/* Tile (T, C) as an m16n8k16 product on registers a (A's), b (B's), c and d. */
static mfrag tile(const wgeom *G, int T, int C, const iarg *a, const iarg *b, const iarg *c,
		  const iarg *d)
{
	mfrag F = { ET_BF16, 16, 0, 0, G->half, 0, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
	for (int q = 0; q < 4; q++) {
		F.a[q] = G->half ? (q % 2 ? ir_imm(0) : a[q / 2]) : a[4 * T + q];
		int h = q / 2, j = q % 2, r = ptxl_wmma_dreg(G, T, C, h, j);
		F.c[q] = G->half && h ? ir_imm(0) : c[r];
		F.d[q] = G->half && h ? ir_imm(0) : d[r];
	}
	F.b[0] = b[2 * C];
	F.b[1] = b[2 * C + 1];
	return F;
}

int ptxl_wmma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	wgeom G = ptxl_wmma_geom(k->m, k->n);
	int n[HP_COUNT], R = G.R, Ct = G.Ct, rows = G.half ? 1 : 2;
	ptxl_wmma_helper_sizes(k, n);
	if (k->target < 70) {
		for (int T = 0; T < R; T++)
			for (int C = 0; C < Ct; C++) {
				mfrag F = tile(&G, T, C, op[HP_A], op[HP_B], op[HP_C], op[HP_D]);
				ptxl_mma_fma(S, &F);
			}
		return 0;
	}
	/* Scales: rows 2T + h of A (0..3), columns of B by tile (4 + C). */
	xfrag *X = calloc(1, sizeof(*X));
	if (!X)
		return -1;
	for (int r = 0; r < n[HP_A]; r++)
		ptxl_xfrag_add(X, S, ET_BF16, op[HP_A][r], G.half ? 0 : 2 * (r / 4) + r % 2);
	for (int r = 0; r < n[HP_B]; r++)
		ptxl_xfrag_add(X, S, ET_BF16, op[HP_B][r], 4 + r / 2);
	iarg fa = ptxl_ir_temps(S, IA_R, n[HP_A]), fb = ptxl_ir_temps(S, IA_R, n[HP_B]);
	iarg ok = ir_p(S), all = ir_p(S), fav[8], fbv[8];
	iarg scaled = ptxl_ir_label(S), slow = ptxl_ir_label(S), done = ptxl_ir_label(S);
	for (int r = 0; r < 8; r++) {
		fav[r] = r < n[HP_A] ? ir_el(fa, r) : ir_imm(0);
		fbv[r] = r < n[HP_B] ? ir_el(fb, r) : ir_imm(0);
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			ptxl_xfrag_scaled(S, X, ok);
		else
			ptxl_xfrag_exact(S, X, ok);
		for (int r = 0; r < n[HP_A] + n[HP_B]; r++)
			E(S, "mov.b32", r < n[HP_A] ? fav[r] : fbv[r - n[HP_A]], ptxl_ir_anylist(S, X->h + 2 * r, 2));
		E(S, "vote.sync.all.pred", all, ok, ALL);
		EN(S, all, "bra.uni", pass ? slow : scaled);
		for (int T = 0; T < R; T++)
			for (int C = 0; C < Ct; C++) {
				mfrag F = tile(&G, T, C, fav, fbv, op[HP_C], op[HP_D]);
				F.et = ET_F16;
				if (!pass) {
					ptxl_tc_product(S, &F, k->target);
					continue;
				}
				/* P from a zero accumulator, then D = C + 2^-(alpha + beta) P */
				iarg zero = ir_r(S), p = ptxl_ir_temps(S, IA_R, 4), factor[4];
				int rs[4], cs[4];
				E(S, "mov.b32", zero, ir_imm(0));
				for (int i = 0; i < 4; i++) {
					F.c[i] = zero;
					F.d[i] = ir_el(p, i);
					rs[i] = G.half ? 0 : 2 * T + i / 2;
					cs[i] = 4 + C;
				}
				ptxl_xfrag_factors(S, X, rs, cs, 2 * rows, factor);
				ptxl_tc_product(S, &F, k->target);
				for (int i = 0; i < 2 * rows; i++) {
					int r = ptxl_wmma_dreg(&G, T, C, i / 2, i % 2);
					E(S, "fma.rn.f32", op[HP_D][r], ir_el(p, i), factor[i], op[HP_C][r]);
				}
			}
		E(S, "bra.uni", done);
		ptxl_ir_place(S, pass ? slow : scaled);
	}
	free(X);
	for (int T = 0; T < R; T++)
		for (int C = 0; C < Ct; C++) {
			mfrag F = tile(&G, T, C, op[HP_A], op[HP_B], op[HP_C], op[HP_D]);
			ptxl_mma_fma(S, &F);
		}
	ptxl_ir_place(S, done);
	return 0;
}
