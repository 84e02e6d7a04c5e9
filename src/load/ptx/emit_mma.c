/* emit_mma.c: mma.sync.aligned.m16n8kK.row.col with .bf16 and .tf32 operands (sm_80) and
 * .f16 ones (m16n8k8 sm_75, m16n8k16 sm_80), for older targets (PTX ISA 9.7.14.5.14).
 *
 * Fragments (PTX ISA 9.7.14.5.7-9, "Matrix Fragments for mma.m16n8k4/k8/k16"), with
 * g = laneid / 4, t = laneid % 4 and e elements per 32-bit register (2 for .f16/.bf16, 1 for
 * .tf32): A register r holds row g + 8 (r % 2), columns 4e (r / 2) + e t + j (j < e); B
 * register r holds column g, rows 4e r + e t + j; C/D element i is row g + 8 (i / 2),
 * column 2t + i % 2.
 *
 * sm_75, .bf16/.tf32: when every element of the warp's A and B fragments is exactly an f16
 * (converted and back, equal; one vote for the warp), the product runs on the f16 tensor
 * cores: .bf16 m16n8k16 as two m16n8k8 (A registers 0-1 and 2-3, B 0 and 1: the same split
 * as .f16 m16n8k16), .tf32 m16n8k8 as one m16n8k8 with k reordered (A registers 0 and 2
 * pack into the first f16x2, 1 and 3 into the second, B 0 and 1 into one: the columns t
 * and t + 4 of each lane become 2t and 2t + 1 on both sides, which leaves the sum over k
 * unchanged), m16n8k4 likewise with zeros in the odd columns.  The products are exact
 * either way, so only the tensor cores' accumulation differs, which the ISA leaves
 * unspecified.  .f16 m16n8k16 is two m16n8k8, as vLLM's AWQ kernels split it.
 *
 * Otherwise (sm_70 and older, or an element an f16 cannot hold): each lane gathers the rows
 * of A and columns of B its four results need with shfl.sync (A rows g and g + 8 from the
 * lanes of its own group of four, B columns 2t and 2t + 1 from lanes 8t..8t+7), and sums
 * c + a0 b0 + a1 b1 + ... with fma.rn.f32 in k order: every product of two f16/bf16/tf32
 * values is exact in f32, so each step rounds once, and the result is within
 * k * 2^-24 * (|c| + sum |a b|) of the exact one, as the tensor cores' truncated block sums
 * are within k * 2^-23 of it.  NaN and infinities follow IEEE (a partial sum in k order may
 * overflow where the tensor cores' block sums do not); an f16 D is the f32 result rounded
 * to nearest even, as on the tensor cores. */
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

/* The f32 values of register x: two bf16/f16 halves (low first) or one tf32. */
static void unpack(iseq *S, int et, iarg x, iarg v[2])
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
static void load_c(iseq *S, const mfrag *F, iarg c[4])
{
	for (int i = 0; i < 4; i++)
		c[i] = F->c[i];
	if (F->cf16)
		for (int q = 0; q < 2; q++)
			unpack(S, ET_F16, F->c[q], c + 2 * q);
}

/* Writes D: f32 values, rounded to f16 pairs for an f16 D. */
static void store_d(iseq *S, const mfrag *F, const iarg *val)
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
static void fma_path(iseq *S, const mfrag *F)
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
			unpack(S, F->et, x, v);
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
				unpack(S, F->et, x, v);
				for (int j = 0; j < e; j++)
					bv[c][4 * e * r + e * tp + j] = v[j];
			}
		}
	/* All but the last step into temporaries, then the last steps write D: D may share
	 * registers with A, B or C, which are all read by then. */
	iarg c0[4], acc[4], last[4];
	load_c(S, F, c0);
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
		store_d(S, F, last);
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

/* The fragments as f16x2 for m16n8k8 steps: A pairs fa, fa+1 (fa+2, fa+3 for a second
 * step), B fb (fb+1); ok: whether every value was exact. */
static void f16_fragments(iseq *S, const mfrag *F, iarg fa, iarg fb, iarg ok)
{
	int na = F->et == ET_TF32 ? F->k / 2 : F->k / 4, nb = F->et == ET_TF32 ? F->k / 4 : F->k / 8;
	int n = F->et == ET_TF32 ? 3 : na + nb;   /* f16x2 registers made */
	iarg h = ptxl_ir_temps(S, IA_H, 2 * n), v[2];
	for (int r = 0; r < na + nb; r++) {
		iarg x = r < na ? F->a[r] : F->b[r - na];
		unpack(S, F->et, x, v);
		if (F->et == ET_TF32) {   /* A r -> pair r % 2, half r / 2; B r -> pair 2, half r */
			int pair = r < na ? r % 2 : 2, half = r < na ? r / 2 : r - na;
			to_f16_exact(S, v[0], ir_el(h, 2 * pair + half), ok, r == 0);
			continue;
		}
		for (int j = 0; j < 2; j++)
			to_f16_exact(S, v[j], ir_el(h, 2 * r + j), ok, r == 0 && j == 0);
	}
	if (F->et == ET_TF32 && F->k == 4)
		for (int pair = 0; pair < 3; pair++)
			E(S, "mov.b16", ir_el(h, 2 * pair + 1), ir_imm(0));
	for (int q = 0; q < n; q++) {
		int isa = F->et == ET_TF32 ? q < 2 : q < na;
		iarg dst = isa ? ir_el(fa, q) : ir_el(fb, q - (F->et == ET_TF32 ? 2 : na));
		E(S, "mov.b32", dst, ir_tvec(ir_el(h, 2 * q), 2));
	}
}

static const char *mma_f16_op(int f16)
{
	return f16 ? "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"
		   : "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
}

/* An operand list for regs[0..n): as it is when the registers are consecutive, else
 * copied into consecutive temporaries. */
static iarg list(iseq *S, const iarg *regs, int n)
{
	iarg l = ptxl_ir_list(regs, n);
	if (l.k != IA_NONE)
		return l;
	iarg t = ptxl_ir_temps(S, IA_R, n);
	for (int j = 0; j < n; j++)
		E(S, "mov.b32", ir_el(t, j), regs[j]);
	return ir_tvec(t, n);
}

/* `steps` m16n8k8 products on f16x2 fragments (A: a[2s], a[2s+1]; B: b[s]) from C to D.
 * m16n8k8 takes an f16 C only with an f16 D (ptxas: ".dtype must be '.f16' when .ctype is
 * '.f16'"), so with two steps an f16 C enters as f32 and D is rounded once at the end. */
static void tensor_steps(iseq *S, const mfrag *F, const iarg *a, const iarg *b, int steps)
{
	int f16 = F->df16 && steps == 1, rows = F->half_rows ? 1 : 2, nd = f16 ? 2 : 4;
	iarg c, d = ptxl_ir_list(F->d, nd), cv[4];
	if (F->cf16 && !f16) {
		load_c(S, F, cv);
		c = list(S, cv, 4);
	} else {
		c = list(S, F->c, nd);
	}
	int direct = !F->half_rows && d.k != IA_NONE && F->df16 == f16;
	for (int s = 0; s < steps; s++) {
		int final = s == steps - 1;
		iarg out = final && direct ? d : ir_tvec(ptxl_ir_temps(S, IA_R, nd), nd);
		ptxl_ir_emit(S, final && direct ? F->dguard : 0, mma_f16_op(f16),
			     (iarg[]){ out, list(S, a + 2 * s, 2), list(S, b + s, 1), c }, 4);
		c = out;
	}
	if (direct)
		return;
	iarg val[4];
	for (int i = 0; i < nd; i++)
		val[i] = (iarg){ IA_R, 0, (uint16_t)(c.i + i), 0 };
	if (F->df16 && !f16) {
		store_d(S, F, val);
		return;
	}
	for (int i = 0; i < nd; i++)
		if (!(f16 ? rows == 1 && i : rows == 1 && i >= 2))
			ptxl_ir_emit(S, F->dguard, "mov.b32", (iarg[]){ F->d[i], val[i] }, 2);
}

int ptxl_mma_build(iseq *S, const mfrag *F, int target)
{
	if (target < 75) {
		fma_path(S, F);
		return 0;
	}
	if (F->et == ET_F16) {   /* m16n8k16 -> two m16n8k8 */
		tensor_steps(S, F, F->a, F->b, F->k / 8);
		return 0;
	}
	int steps = F->et == ET_BF16 ? F->k / 8 : 1;
	iarg fa = ptxl_ir_temps(S, IA_R, 2 * steps), fb = ptxl_ir_temps(S, IA_R, steps);
	iarg a[4], b[2], ok = ir_p(S), all = ir_p(S);
	for (int j = 0; j < 2 * steps; j++)
		a[j] = ir_el(fa, j);
	for (int j = 0; j < steps; j++)
		b[j] = ir_el(fb, j);
	iarg slow = ptxl_ir_label(S), done = ptxl_ir_label(S);
	f16_fragments(S, F, fa, fb, ok);
	E(S, "vote.sync.all.pred", all, ok, ALL);
	EN(S, all, "bra.uni", slow);
	tensor_steps(S, F, a, b, steps);
	E(S, "bra.uni", done);
	ptxl_ir_place(S, slow);
	fma_path(S, F);
	ptxl_ir_place(S, done);
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

/* mma.sync.aligned.m16n8kK.row.col d, a, b, c as the original wrote it. */
int ptxl_build_mma(iseq *S, const pinst *I, const pmods *M)
{
	mform f;
	if (ptxl_mma_form(I, &f) || I->nops != 4)
		return -1;
	int e = f.et == ET_TF32 ? 1 : 2, na = f.k / (2 * e), nb = f.k / (4 * e);
	int nd = f.df16 ? 2 : 4, nc = f.cf16 ? 2 : 4;
	if (ptxl_vec_len(I->op[0]) != nd || ptxl_vec_len(I->op[1]) != na ||
	    ptxl_vec_len(I->op[2]) != nb || ptxl_vec_len(I->op[3]) != nc)
		return -1;
	mfrag F = { f.et, f.k, f.cf16, f.df16, 0, 1, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
	for (int j = 0; j < 4; j++) {
		F.a[j] = j < na ? ir_vec(1, j) : ir_imm(0);
		F.c[j] = j < nc ? ir_vec(3, j) : ir_imm(0);
		F.d[j] = j < nd ? ir_vec(0, j) : ir_imm(0);
	}
	for (int j = 0; j < 2; j++)
		F.b[j] = j < nb ? ir_vec(2, j) : ir_imm(0);
	return ptxl_mma_build(S, &F, M->ctx->target);
}
