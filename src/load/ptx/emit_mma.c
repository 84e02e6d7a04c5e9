/* emit_mma.c: mma.sync.aligned.m16n8kK.row.col with .bf16 and .tf32 operands (sm_80) and
 * .f16 ones (m16n8k8 sm_75, m16n8k16 sm_80), for older targets (PTX ISA 9.7.14.5.14).
 *
 * Fragments (PTX ISA 9.7.14.5.7-9, "Matrix Fragments for mma.m16n8k4/k8/k16"), with
 * g = laneid / 4, t = laneid % 4 and e elements per 32-bit register (2 for .f16/.bf16, 1 for
 * .tf32): A register r holds row g + 8 (r % 2), columns 4e (r / 2) + e t + j (j < e); B
 * register r holds column g, rows 4e r + e t + j; C/D element i is row g + 8 (i / 2),
 * column 2t + i % 2.
 *
 * On sm_75 an .f16 product is two m16n8k8 in place; every other form is a call of a helper
 * of this module (helpers.c), one per form:
 *   - .f16 on sm_70: the tensor cores through mma.m8n8k4 (emit_mma_tc.c);
 *   - .bf16, .tf32 on sm_70 and sm_75: the f16 tensor cores on f16 fragments holding exactly
 *     the same values, as they are or scaled by powers of two (emit_mma_exact.c), else (an
 *     element no scaling brings into f16, NaN) the FMA path below;
 *   - everything on sm_61 and older: the FMA path.
 * The FMA path: each lane gathers the rows of A and columns of B its four results need with
 * shfl.sync (A rows g and g + 8 from the lanes of its own group of four, B columns 2t and
 * 2t + 1 from lanes 8t..8t+7), and sums c + a0 b0 + a1 b1 + ... with fma.rn.f32 in k order:
 * every product of two f16/bf16/tf32 values is exact in f32, so each step rounds once, and
 * the result is within k * 2^-24 * (|c| + sum |a b|) of the exact one, as the tensor cores'
 * truncated block sums are within k * 2^-23 of it.  The tensor-core paths are within the
 * same bound (their products are exact too; only the accumulation differs, which the ISA
 * leaves unspecified).  NaN and infinities follow IEEE (a partial sum in k order may
 * overflow where the tensor cores' block sums do not); an f16 D is the f32 result rounded
 * to nearest even, as on the tensor cores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

/* The f32 values of register x: two bf16/f16 halves (low first) or one tf32. */
void ptxl_mma_unpack(iseq *S, int et, iarg x, iarg v[2])
{
	v[0] = ir_r(S);
	if (et == ET_TF32) {
		E(S, "and.b32", v[0], x, ir_imm(0xffffe000u));   /* the upper 19 bits */
		return;
	}
	v[1] = ir_r(S);
	if (et == ET_BF16) {
		E(S, "shl.b32", v[0], x, ir_imm(16));
		E(S, "and.b32", v[1], x, ir_imm(0xffff0000u));
		return;
	}
	iarg h = ptxl_ir_temps(S, IA_H, 2);
	E(S, "mov.b32", ir_tvec(h, 2), x);
	E(S, "cvt.f32.f16", v[0], h);
	E(S, "cvt.f32.f16", v[1], ir_el(h, 1));
}

/* The accumulators as f32: the four registers, or the halves of two f16x2. */
void ptxl_mma_load_c(iseq *S, const mfrag *F, iarg c[4])
{
	for (int i = 0; i < 4; i++)
		c[i] = F->c[i];
	if (F->cf16)
		for (int q = 0; q < 2; q++)
			ptxl_mma_unpack(S, ET_F16, F->c[q], c + 2 * q);
}

/* Writes D: f32 values, rounded to f16 pairs for an f16 D. */
void ptxl_mma_store_d(iseq *S, const mfrag *F, const iarg *val)
{
	int rows = F->half_rows ? 1 : 2;
	for (int q = 0; q < rows && F->df16; q++) {
		iarg h = ptxl_ir_temps(S, IA_H, 2);
		E(S, "cvt.rn.f16.f32", h, val[2 * q]);
		E(S, "cvt.rn.f16.f32", ir_el(h, 1), val[2 * q + 1]);
		ptxl_ir_emit(S, F->dguard, "mov.b32", (iarg[]){ F->d[q], ir_tvec(h, 2) }, 2);
	}
}

/* The FMA path: D = C + sum over k of A(row, k) B(k, col), in k order. */
void ptxl_mma_fma(iseq *S, const mfrag *F)
{
	int e = F->et == ET_TF32 ? 1 : 2, na = F->k / (2 * e), nb = F->k / (4 * e);
	int rows = F->half_rows ? 1 : 2;
	iarg lane = ir_r(S), b8 = ir_r(S);
	iarg av[2][16], bv[2][16], v[2];
	E(S, "mov.u32", lane, ir_text("%laneid"));
	/* A rows g and g + 8 from the four lanes of this lane's group: c = 0x1c03 makes
	 * segments of four lanes, so source t' is the group's first lane + t'. */
	for (int tp = 0; tp < 4; tp++)
		for (int r = 0; r < na; r++) {
			if (rows == 1 && r % 2)
				continue;
			iarg x = ir_r(S);
			E(S, "shfl.sync.idx.b32", x, F->a[r], ir_imm((uint64_t)tp), ir_imm(0x1c03), ALL);
			ptxl_mma_unpack(S, F->et, x, v);
			for (int j = 0; j < e; j++)
				av[r % 2][4 * e * (r / 2) + e * tp + j] = v[j];
		}
	/* B columns 2t + c from lanes 4 (2t + c) + t'. */
	E(S, "and.b32", b8, lane, ir_imm(3));
	E(S, "shl.b32", b8, b8, ir_imm(3));
	for (int c = 0; c < 2; c++)
		for (int tp = 0; tp < 4; tp++) {
			iarg src = ir_r(S);
			E(S, "or.b32", src, b8, ir_imm((uint64_t)(4 * c + tp)));
			for (int r = 0; r < nb; r++) {
				iarg x = ir_r(S);
				E(S, "shfl.sync.idx.b32", x, F->b[r], src, ir_imm(31), ALL);
				ptxl_mma_unpack(S, F->et, x, v);
				for (int j = 0; j < e; j++)
					bv[c][4 * e * r + e * tp + j] = v[j];
			}
		}
	/* All but the last step into temporaries, then the last steps write D: D may share
	 * registers with A, B or C, which are all read by then. */
	iarg c0[4], acc[4], last[4];
	ptxl_mma_load_c(S, F, c0);
	for (int i = 0; i < 2 * rows; i++) {
		acc[i] = c0[i];
		for (int k = 0; k + 1 < F->k; k++) {
			iarg t = ir_r(S);
			E(S, "fma.rn.f32", t, av[i / 2][k], bv[i % 2][k], acc[i]);
			acc[i] = t;
		}
	}
	for (int i = 0; i < 2 * rows; i++) {
		int k = F->k - 1;
		if (F->df16) {
			last[i] = ir_r(S);
			E(S, "fma.rn.f32", last[i], av[i / 2][k], bv[i % 2][k], acc[i]);
		} else {
			ptxl_ir_emit(S, F->dguard, "fma.rn.f32",
				     (iarg[]){ F->d[i], av[i / 2][k], bv[i % 2][k], acc[i] }, 4);
		}
	}
	if (F->df16)
		ptxl_mma_store_d(S, F, last);
}

/* A copy of F for the tensor cores: f16 fragments fa (A) and fb (B) of an m16n8k8 (tf32,
 * bf16 k8) or m16n8k16 product. */
static mfrag f16_frag(const mfrag *F, iarg fa, iarg fb)
{
	mfrag G = *F;
	int steps = F->et == ET_BF16 ? F->k / 8 : 1;
	G.et = ET_F16;
	G.k = 8 * steps;
	for (int j = 0; j < 4; j++)
		G.a[j] = j < 2 * steps ? ir_el(fa, j) : ir_imm(0);
	for (int j = 0; j < 2; j++)
		G.b[j] = j < steps ? ir_el(fb, j) : ir_imm(0);
	if (F->half_rows)   /* rows 8..15 do not exist: zeros in A's odd registers */
		for (int j = 1; j < 4; j += 2)
			G.a[j] = ir_imm(0);
	return G;
}

/* One product of .bf16/.tf32 fragments through the tiers of emit_mma_exact.c. */
typedef struct mma_tiers {
	const mfrag *F;
	mfrag G;             /* F on the f16 fragments fa, fb */
	iarg fa, fb;
	int target;
} mma_tiers;

static void mma_pack(iseq *S, const xfrag *X, void *ctx)
{
	mma_tiers *M = ctx;
	ptxl_mma_xfrag_pack(S, M->F, X, M->fa, M->fb);
}

/* sides 0: D = A * B + C on the tensor cores; else P from a zero accumulator, then
 * D = C + 2^-(alpha + beta) P, one rounding. */
static void mma_product(iseq *S, const xfrag *X, void *ctx, int sides)
{
	mma_tiers *M = ctx;
	if (!sides) {
		ptxl_tc_product(S, &M->G, M->target);
		return;
	}
	static const int row[4] = { 0, 0, 1, 1 }, col[4] = { XFRAG_SIDE_B, XFRAG_SIDE_B, XFRAG_SIDE_B,
							    XFRAG_SIDE_B };
	int rows = M->F->half_rows ? 1 : 2;
	mfrag G = M->G;
	iarg zero = ir_r(S), p = ptxl_ir_temps(S, IA_R, 4), factor[4];
	E(S, "mov.b32", zero, ir_imm(0));
	for (int i = 0; i < 4; i++) {
		G.c[i] = zero;
		G.d[i] = ir_el(p, i);
	}
	G.cf16 = G.df16 = 0;
	G.dguard = 0;
	ptxl_tc_product(S, &G, M->target);
	ptxl_xfrag_factors(S, X, sides, row, col, 2 * rows, factor);
	for (int i = 0; i < 2 * rows; i++)
		ptxl_ir_emit(S, M->F->dguard, "fma.rn.f32",
			     (iarg[]){ M->F->d[i], ir_el(p, i), factor[i], M->F->c[i] }, 4);
}

static void mma_fallback(iseq *S, void *ctx)
{
	ptxl_mma_fma(S, ((mma_tiers *)ctx)->F);
}

int ptxl_mma_build(iseq *S, const mfrag *F, int target)
{
	if (target < 70) {
		ptxl_mma_fma(S, F);
		return 0;
	}
	if (F->et == ET_F16) {
		ptxl_tc_product(S, F, target);
		return 0;
	}
	static const xtiers ops = { mma_pack, mma_product, mma_fallback };
	int steps = F->et == ET_BF16 ? F->k / 8 : 1;
	mma_tiers M = { F, *F, ptxl_ir_temps(S, IA_R, 2 * steps), ptxl_ir_temps(S, IA_R, steps), target };
	M.G = f16_frag(F, M.fa, M.fb);
	xfrag *X = calloc(1, sizeof(*X));
	if (!X)
		return -1;
	ptxl_mma_xfrag(S, F, X);
	ptxl_xfrag_tiers(S, X, &ops, &M);
	free(X);
	return 0;
}

int ptxl_mma_form(const pinst *I, mform *f)
{
	static const struct { const char *shape; int k; } shapes[] = {
		{ "m16n8k4", 4 }, { "m16n8k8", 8 }, { "m16n8k16", 16 },
	};
	if (I->nwords != 10 || strcmp(I->word[1], "sync") || strcmp(I->word[2], "aligned") ||
	    strcmp(I->word[4], "row") || strcmp(I->word[5], "col") || strcmp(I->word[7], I->word[8]))
		return -1;
	f->k = 0;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (!strcmp(I->word[3], shapes[i].shape))
			f->k = shapes[i].k;
	const char *at = I->word[7], *dt = I->word[6], *ct = I->word[9];
	f->et = !strcmp(at, "bf16") ? ET_BF16 : !strcmp(at, "tf32") ? ET_TF32 : !strcmp(at, "f16") ? ET_F16 : -1;
	f->df16 = !strcmp(dt, "f16");
	f->cf16 = !strcmp(ct, "f16");
	if (f->et < 0 || !f->k || (!f->df16 && strcmp(dt, "f32")) || (!f->cf16 && strcmp(ct, "f32")))
		return -1;
	if (f->df16 != f->cf16 || (f->df16 && f->et != ET_F16))
		return -1;   /* m16n8k8/k16 take D and C of one type (ptxas 13.0) */
	if (f->et == ET_TF32 ? f->k == 16 : f->k == 4)
		return -1;
	return 0;
}

static void form_regs(int et, int k, int cf16, int df16, int n[HP_COUNT])
{
	int e = et == ET_TF32 ? 1 : 2;
	n[HP_A] = k / (2 * e);
	n[HP_B] = k / (4 * e);
	n[HP_C] = cf16 ? 2 : 4;
	n[HP_E] = 0;
	n[HP_D] = df16 ? 2 : 4;
}

void ptxl_mma_helper_sizes(const hkey *k, int n[HP_COUNT])
{
	form_regs(k->et, k->k, k->cf16, k->df16, n);
}

int ptxl_mma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	int n[HP_COUNT];
	form_regs(k->et, k->k, k->cf16, k->df16, n);
	mfrag F = { k->et, k->k, k->cf16, k->df16, 0, 0, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
	for (int j = 0; j < 4; j++) {
		F.a[j] = j < n[HP_A] ? op[HP_A][j] : ir_imm(0);
		F.c[j] = j < n[HP_C] ? op[HP_C][j] : ir_imm(0);
		F.d[j] = j < n[HP_D] ? op[HP_D][j] : ir_imm(0);
	}
	for (int j = 0; j < 2; j++)
		F.b[j] = j < n[HP_B] ? op[HP_B][j] : ir_imm(0);
	return ptxl_mma_build(S, &F, k->target);
}

static const char *et_name(int et)
{
	return et == ET_BF16 ? "bf16" : et == ET_TF32 ? "tf32" : "f16";
}

void ptxl_mma_helper_name(const hkey *k, char *out, size_t cap)
{
	snprintf(out, cap, "mma_m16n8k%d_%s_%s_%s_sm%d", k->k, k->df16 ? "f16" : "f32", et_name(k->et),
		 k->cf16 ? "f16" : "f32", k->target);
}

/* mma.sync.aligned.m16n8kK.row.col d, a, b, c as the original wrote it: on sm_75 an .f16
 * product is two m16n8k8 in place; everything else calls the helper of its form. */
int ptxl_build_mma(iseq *S, const pinst *I, const pmods *M)
{
	mform f;
	int n[HP_COUNT];
	if (ptxl_mma_form(I, &f) || I->nops != 4)
		return -1;
	form_regs(f.et, f.k, f.cf16, f.df16, n);
	if (ptxl_vec_len(I->op[0]) != n[HP_D] || ptxl_vec_len(I->op[1]) != n[HP_A] ||
	    ptxl_vec_len(I->op[2]) != n[HP_B] || ptxl_vec_len(I->op[3]) != n[HP_C])
		return -1;
	iarg a[4], b[2], c[4], d[4];
	for (int j = 0; j < 4; j++) {
		a[j] = j < n[HP_A] ? ir_vec(1, j) : ir_imm(0);
		c[j] = j < n[HP_C] ? ir_vec(3, j) : ir_imm(0);
		d[j] = j < n[HP_D] ? ir_vec(0, j) : ir_imm(0);
	}
	for (int j = 0; j < 2; j++)
		b[j] = j < n[HP_B] ? ir_vec(2, j) : ir_imm(0);
	if (M->ctx->target >= 75 && f.et == ET_F16) {
		mfrag F = { f.et, f.k, f.cf16, f.df16, 0, 1, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
		memcpy(F.a, a, sizeof(a));
		memcpy(F.b, b, sizeof(b));
		memcpy(F.c, c, sizeof(c));
		memcpy(F.d, d, sizeof(d));
		return ptxl_mma_build(S, &F, M->ctx->target);
	}
	hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_MMA;
	k.target = (uint8_t)M->ctx->target;
	k.et = (uint8_t)f.et, k.k = (uint8_t)f.k, k.cf16 = (uint8_t)f.cf16, k.df16 = (uint8_t)f.df16;
	const char *name = ptxl_helper_use(M->ctx->helpers, &k);
	const iarg *op[HP_COUNT] = { a, b, c, NULL, d };
	return name ? ptxl_helper_call(S, name, &k, op) : -1;
}
