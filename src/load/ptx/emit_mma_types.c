/* emit_mma_types.c: mma.sync with 8-bit integer, fp8 and f64 operands for older targets
 * (PTX ISA 9.7.14.5.14; fragments 9.7.14.5.1-13).  g = laneid / 4, t = laneid % 4.
 *
 * .s8/.u8 m16n8k32 and m16n8k16 (sm_80): A register r holds row g + 8 (r % 2), bytes k =
 * 16 (r / 2) + 4t..4t+3; B register r holds column g, k = 16 r + 4t..4t+3; C/D element i
 * row g + 8 (i / 2), column 2t + i % 2.  An m8n8k16 (sm_75: Turing's int8 tensor cores)
 * holds A row g, k = 4t..4t+3, B column g, the same k, and C/D row g, columns 2t, 2t + 1:
 * the rows g and g + 8 of the m16n8 shapes are each one m8n8k16 per 16 of k, with the
 * registers as they are.  Below sm_75, dp4a (sm_61): each lane gathers with shfl.sync the
 * four words of its rows (from the lanes of its group) and of its columns (lanes 8t..8t+7)
 * and sums them four bytes at a time.  Either way the sum of products is made from zero
 * (it cannot overflow: 32 products of 8 bits), then added to C once, wrapping or, with
 * .satfinite, saturating (add.sat.s32): bit-exact.
 * .e4m3/.e5m2 m16n8k32 and m16n8k16, f32 C and D (sm_89): every fp8 value is exact in f16
 * (e5m2 is the upper byte of an f16; e4m3, with 3 bits of fraction and a smaller range, is
 * an f16 whose byte was shifted 7 bits, times 2^8, NaN where the byte is 0x7f or 0xff), so
 * the product is an f16 m16n8k16 (emit_mma.c: the f16 tensor cores on sm_75, fp32 FMAs
 * below) per 16 of k.  A lane's four fp8 of k = 4t..4t+3 become the f16 pairs at k' = 2t,
 * 2t + 1 and 2t + 8, 2t + 9 of A and of B alike: the same permutation of k on both sides,
 * which leaves the sum over k unchanged.  Products exact, so within the fp32 accumulation
 * bound of the exact result.
 * .f64 m8n8k4 (sm_80): A holds row g, column t; B row t, column g; C/D row g, columns 2t
 * and 2t + 1: each lane gathers its row and columns with shfl.sync and adds the products to
 * C with fma.rn.f64 in k order, the simulator's definition of the tensor cores' f64
 * arithmetic (one rounding per step). */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

enum { MT_INT8, MT_FP8, MT_F64 };

typedef struct tform {
	int kind, k, sat;
	const char *at, *bt;
} tform;

static int tform_of(const pinst *I, tform *f)
{
	int w = 6, n = I->nwords;

	memset(f, 0, sizeof *f);
	if (n < 10 || strcmp(I->word[1], "sync") || strcmp(I->word[2], "aligned") ||
	    strcmp(I->word[4], "row") || strcmp(I->word[5], "col"))
		return -1;
	if (!strcmp(I->word[6], "satfinite")) {
		f->sat = 1;
		w = 7;
	}
	if (n != w + 4)
		return -1;
	const char *dt = I->word[w], *ct = I->word[w + 3], *sh = I->word[3];
	f->at = I->word[w + 1];
	f->bt = I->word[w + 2];
	int int8 = (!strcmp(f->at, "s8") || !strcmp(f->at, "u8")) &&
		   (!strcmp(f->bt, "s8") || !strcmp(f->bt, "u8"));
	int fp8 = (!strcmp(f->at, "e4m3") || !strcmp(f->at, "e5m2")) &&
		  (!strcmp(f->bt, "e4m3") || !strcmp(f->bt, "e5m2"));
	f->k = !strcmp(sh, "m16n8k32") ? 32 : !strcmp(sh, "m16n8k16") ? 16 : 0;
	if (int8 && f->k && !strcmp(dt, "s32") && !strcmp(ct, "s32")) {
		f->kind = MT_INT8;
		return 0;
	}
	if (fp8 && f->k && !f->sat && !strcmp(dt, "f32") && !strcmp(ct, "f32")) {
		f->kind = MT_FP8;
		return 0;
	}
	if (!strcmp(sh, "m8n8k4") && !f->sat && !strcmp(dt, "f64") && !strcmp(f->at, "f64") &&
	    !strcmp(f->bt, "f64") && !strcmp(ct, "f64")) {
		f->kind = MT_F64;
		f->k = 4;
		return 0;
	}
	return -1;
}

int ptxl_need_mma_types(const pinst *I, const lctx *ctx)
{
	tform f;

	(void)ctx;
	if (tform_of(I, &f))
		return 0;
	return f.kind == MT_FP8 ? 89 : 80;
}

/* ------------------------------------------------------------------ int8 */

/* The sums of one lane's four results, from zero, with dp4a: s[i] for row g + 8 (i / 2),
 * column 2t + i % 2. */
static void int8_dp4a(iseq *S, const tform *f, iarg s[4])
{
	char op[32];
	int na = f->k / 8, nb = f->k / 16;
	iarg lane = ir_r(S), b8 = ir_r(S), aw[2][4][2], bw[2][4][2];

	snprintf(op, sizeof op, "dp4a.%s.%s", f->at[0] == 's' ? "s32" : "u32",
		 f->bt[0] == 's' ? "s32" : "u32");
	E(S, "mov.u32", lane, ir_text("%laneid"));
	/* A rows g (registers 0, 2) and g + 8 (1, 3) from the lanes of this group of four
	 * (c = 0x1c03: segments of four lanes); B columns 2t and 2t + 1 from lanes 8t + 4c + t'. */
	for (int tp = 0; tp < 4; tp++)
		for (int r = 0; r < na; r++) {
			aw[r % 2][tp][r / 2] = ir_r(S);
			E(S, "shfl.sync.idx.b32", aw[r % 2][tp][r / 2], ir_vec(1, r), ir_imm((uint64_t)tp),
			  ir_imm(0x1c03), ALL);
		}
	E(S, "and.b32", b8, lane, ir_imm(3));
	E(S, "shl.b32", b8, b8, ir_imm(3));
	for (int c = 0; c < 2; c++)
		for (int tp = 0; tp < 4; tp++) {
			iarg src = ir_r(S);
			E(S, "or.b32", src, b8, ir_imm((uint64_t)(4 * c + tp)));
			for (int r = 0; r < nb; r++) {
				bw[c][tp][r] = ir_r(S);
				E(S, "shfl.sync.idx.b32", bw[c][tp][r], ir_vec(2, r), src, ir_imm(31), ALL);
			}
		}
	for (int i = 0; i < 4; i++) {
		s[i] = ir_r(S);
		E(S, "mov.b32", s[i], ir_imm(0));
		for (int r = 0; r < nb; r++)
			for (int tp = 0; tp < 4; tp++)
				E(S, op, s[i], aw[i / 2][tp][r], bw[i % 2][tp][r], s[i]);
	}
}

static int build_int8(iseq *S, const pinst *I, const tform *f, int target)
{
	int na = f->k / 8, nb = f->k / 16;
	iarg s[4];

	if (ptxl_vec_len(I->op[0]) != 4 || ptxl_vec_len(I->op[1]) != na ||
	    ptxl_vec_len(I->op[2]) != nb || ptxl_vec_len(I->op[3]) != 4)
		return -1;
	if (target >= 75) {
		char op[80];
		snprintf(op, sizeof op, "mma.sync.aligned.m8n8k16.row.col.s32.%s.%s.s32", f->at, f->bt);
		for (int h = 0; h < 2; h++) {
			iarg acc = ptxl_ir_temps(S, IA_R, 2), a0 = ir_vec(1, h), b0 = ir_vec(2, 0);
			E(S, "mov.b32", acc, ir_imm(0));
			E(S, "mov.b32", ir_el(acc, 1), ir_imm(0));
			for (int r = 0; r < nb; r++) {
				a0 = ir_vec(1, h + 2 * r);
				b0 = ir_vec(2, r);
				E(S, op, ir_tvec(acc, 2), ptxl_ir_list(&a0, 1), ptxl_ir_list(&b0, 1),
				  ir_tvec(acc, 2));
			}
			s[2 * h] = acc;
			s[2 * h + 1] = ir_el(acc, 1);
		}
	} else {
		int8_dp4a(S, f, s);
	}
	/* D = C + the sum, once: D may be C's registers or A's, all read by now */
	for (int i = 0; i < 4; i++)
		EG(S, f->sat ? "add.sat.s32" : "add.s32", ir_vec(0, i), ir_vec(3, i), s[i]);
	return 0;
}

/* ------------------------------------------------------------------ fp8 */

/* Bytes j and j + 1 of x (fp8 of type ty) as an f16x2 (byte j in the low half). */
static iarg fp8_pair(iseq *S, iarg x, int j, const char *ty)
{
	iarg h = ir_r(S), z = ir_r(S);

	E(S, "mov.b32", z, ir_imm(0));
	if (!strcmp(ty, "e5m2")) {      /* each byte the upper one of its half */
		E(S, "prmt.b32", h, x, z, ir_imm(j ? 0x3424 : 0x1404));
		return h;
	}
	iarg t = ir_r(S), sign = ir_r(S), mag = ir_r(S), nan = ir_r(S), scale = ir_r(S);
	E(S, "prmt.b32", t, x, z, ir_imm(j ? 0x4342 : 0x4140));     /* halves: the bytes */
	E(S, "and.b32", sign, t, ir_imm(0x00800080));
	E(S, "shl.b32", sign, sign, ir_imm(8));
	E(S, "and.b32", mag, t, ir_imm(0x007f007f));
	E(S, "shl.b32", h, mag, ir_imm(7));
	E(S, "or.b32", h, h, sign);                /* the value times 2^-8, exactly */
	E(S, "mov.b32", scale, ir_imm(0x5c005c00));   /* 256.0 in both halves */
	E(S, "mul.rn.f16x2", h, h, scale);
	/* NaN (magnitude 0x7f): the canonical f16 NaN in that half */
	E(S, "add.u32", nan, mag, ir_imm(0x00010001));
	E(S, "and.b32", nan, nan, ir_imm(0x00800080));
	E(S, "shr.u32", nan, nan, ir_imm(7));
	E(S, "mul.lo.u32", nan, nan, ir_imm(0x7fff));
	E(S, "or.b32", h, h, nan);
	return h;
}

static int build_fp8(iseq *S, const pinst *I, const tform *f, int target)
{
	int na = f->k / 8, nb = f->k / 16, steps = f->k / 16;
	iarg prev[4], mid = ptxl_ir_temps(S, IA_R, 4);

	if (ptxl_vec_len(I->op[0]) != 4 || ptxl_vec_len(I->op[1]) != na ||
	    ptxl_vec_len(I->op[2]) != nb || ptxl_vec_len(I->op[3]) != 4)
		return -1;
	for (int i = 0; i < 4; i++)
		prev[i] = ir_vec(3, i);
	for (int s = 0; s < steps; s++) {
		int last = s == steps - 1;
		mfrag F = { ET_F16, 16, 0, 0, 0, last, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
		/* fp8 A registers 2s (row g) and 2s + 1 (row g + 8): f16 A registers 0/1 are their
		 * bytes 0-1, registers 2/3 their bytes 2-3; B likewise. */
		for (int r = 0; r < 2; r++) {
			iarg x = ir_r(S);
			E(S, "mov.b32", x, ir_vec(1, 2 * s + r));
			F.a[r] = fp8_pair(S, x, 0, f->at);
			F.a[r + 2] = fp8_pair(S, x, 2, f->at);
		}
		{
			iarg x = ir_r(S);
			E(S, "mov.b32", x, ir_vec(2, s));
			F.b[0] = fp8_pair(S, x, 0, f->bt);
			F.b[1] = fp8_pair(S, x, 2, f->bt);
		}
		for (int i = 0; i < 4; i++) {
			F.c[i] = prev[i];
			F.d[i] = last ? ir_vec(0, i) : ir_el(mid, i);
		}
		if (ptxl_mma_build(S, &F, target))
			return -1;
		for (int i = 0; i < 4; i++)
			prev[i] = ir_el(mid, i);
	}
	return 0;
}

/* ------------------------------------------------------------------ f64 */

/* Lane src's f64 register x. */
static iarg shfl64(iseq *S, iarg x, iarg src, uint64_t c)
{
	iarg half = ptxl_ir_temps(S, IA_R, 2), got = ptxl_ir_temps(S, IA_R, 2), v = ir_d(S);

	E(S, "mov.b64", ir_tvec(half, 2), x);
	E(S, "shfl.sync.idx.b32", got, half, src, ir_imm(c), ALL);
	E(S, "shfl.sync.idx.b32", ir_el(got, 1), ir_el(half, 1), src, ir_imm(c), ALL);
	E(S, "mov.b64", v, ir_tvec(got, 2));
	return v;
}

static int build_f64(iseq *S, const pinst *I)
{
	iarg lane = ir_r(S), b8 = ir_r(S), a[4], b[2][4], acc[2];

	if (ptxl_vec_len(I->op[0]) != 2 || ptxl_vec_len(I->op[1]) != 1 ||
	    ptxl_vec_len(I->op[2]) != 1 || ptxl_vec_len(I->op[3]) != 2)
		return -1;
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "and.b32", b8, lane, ir_imm(3));
	E(S, "shl.b32", b8, b8, ir_imm(3));
	for (int k = 0; k < 4; k++) {
		a[k] = shfl64(S, ir_vec(1, 0), ir_imm((uint64_t)k), 0x1c03);   /* row g, column k */
		for (int c = 0; c < 2; c++) {                                     /* row k, column 2t + c */
			iarg src = ir_r(S);
			E(S, "or.b32", src, b8, ir_imm((uint64_t)(4 * c + k)));
			b[c][k] = shfl64(S, ir_vec(2, 0), src, 31);
		}
	}
	for (int c = 0; c < 2; c++) {
		acc[c] = ir_d(S);
		E(S, "mov.b64", acc[c], ir_vec(3, c));
		for (int k = 0; k < 4; k++)
			E(S, "fma.rn.f64", acc[c], a[k], b[c][k], acc[c]);
	}
	for (int c = 0; c < 2; c++)
		EG(S, "mov.b64", ir_vec(0, c), acc[c]);
	return 0;
}

int ptxl_build_mma_types(iseq *S, const pinst *I, const pmods *M)
{
	tform f;

	if (tform_of(I, &f) || I->nops != 4)
		return -1;
	return f.kind == MT_INT8 ? build_int8(S, I, &f, M->ctx->target)
	       : f.kind == MT_FP8 ? build_fp8(S, I, &f, M->ctx->target) : build_f64(S, I);
}
