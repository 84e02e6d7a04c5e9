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

typedef struct wmma_tiers {
	wgeom G;
	const hkey *k;
	const iarg *const *op;
	int na, nb;
	iarg fa[8], fb[8];   /* A and B as f16 */
} wmma_tiers;

static void wmma_pack(iseq *S, const xfrag *X, void *ctx)
{
	wmma_tiers *W = ctx;
	for (int r = 0; r < W->na + W->nb; r++)
		E(S, "mov.b32", r < W->na ? W->fa[r] : W->fb[r - W->na], ptxl_ir_anylist(S, X->h + 2 * r, 2));
}

/* Every tile: sides 0, D = A * B + C on the tensor cores; else P from a zero accumulator,
 * then D = C + 2^-(alpha + beta) P. */
static void wmma_product(iseq *S, const xfrag *X, void *ctx, int sides)
{
	wmma_tiers *W = ctx;
	const iarg *const *op = W->op;
	int rows = W->G.half ? 1 : 2;
	for (int T = 0; T < W->G.R; T++)
		for (int C = 0; C < W->G.Ct; C++) {
			mfrag F = tile(&W->G, T, C, W->fa, W->fb, op[HP_C], op[HP_D]);
			F.et = ET_F16;
			if (!sides) {
				ptxl_tc_product(S, &F, W->k->target);
				continue;
			}
			iarg zero = ir_r(S), p = ptxl_ir_temps(S, IA_R, 4), factor[4];
			int rs[4], cs[4];
			E(S, "mov.b32", zero, ir_imm(0));
			for (int i = 0; i < 4; i++) {
				F.c[i] = zero;
				F.d[i] = ir_el(p, i);
				rs[i] = W->G.half ? 0 : 2 * T + i / 2;
				cs[i] = XFRAG_SIDE_B + C;
			}
			ptxl_tc_product(S, &F, W->k->target);
			ptxl_xfrag_factors(S, X, sides, rs, cs, 2 * rows, factor);
			for (int i = 0; i < 2 * rows; i++) {
				int r = ptxl_wmma_dreg(&W->G, T, C, i / 2, i % 2);
				E(S, "fma.rn.f32", op[HP_D][r], ir_el(p, i), factor[i], op[HP_C][r]);
			}
		}
}

static void wmma_fallback(iseq *S, void *ctx)
{
	wmma_tiers *W = ctx;
	for (int T = 0; T < W->G.R; T++)
		for (int C = 0; C < W->G.Ct; C++) {
			mfrag F = tile(&W->G, T, C, W->op[HP_A], W->op[HP_B], W->op[HP_C], W->op[HP_D]);
			ptxl_mma_fma(S, &F);
		}
}

int ptxl_wmma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	static const xtiers ops = { wmma_pack, wmma_product, wmma_fallback };
	int n[HP_COUNT];
	ptxl_wmma_helper_sizes(k, n);
	wmma_tiers W = { ptxl_wmma_geom(k->m, k->n), k, op, n[HP_A], n[HP_B], { { 0 } }, { { 0 } } };
	if (k->target < 70) {
		wmma_fallback(S, &W);
		return 0;
	}
	/* Scales: rows 2T + h of A, columns of B by tile (XFRAG_SIDE_B + C). */
	xfrag *X = calloc(1, sizeof(*X));
	if (!X)
		return -1;
	for (int r = 0; r < W.na; r++)
		ptxl_xfrag_add(X, S, ET_BF16, op[HP_A][r], W.G.half ? 0 : 2 * (r / 4) + r % 2);
	for (int r = 0; r < W.nb; r++)
		ptxl_xfrag_add(X, S, ET_BF16, op[HP_B][r], XFRAG_SIDE_B + r / 2);
	iarg fa = ptxl_ir_temps(S, IA_R, W.na), fb = ptxl_ir_temps(S, IA_R, W.nb);
	for (int r = 0; r < 8; r++) {
		W.fa[r] = r < W.na ? ir_el(fa, r) : ir_imm(0);
		W.fb[r] = r < W.nb ? ir_el(fb, r) : ir_imm(0);
	}
	ptxl_xfrag_tiers(S, X, &ops, &W);
	free(X);
	return 0;
}
