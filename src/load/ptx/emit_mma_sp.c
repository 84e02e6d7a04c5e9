/* emit_mma_sp.c: mma.sp{::ordered_metadata} (sm_80, PTX ISA 9.7.14.6) for older targets,
 * through its dense equivalent: A expanded with its metadata into the fragments of the
 * dense product (m16n8k16 .f16/.bf16 per 16 columns of k, m16n8k8 .tf32 per 8), then those
 * products, C to D, as mma.sync (emit_mma.c).  Forms: .f16/.bf16 m16n8k16 and m16n8k32,
 * .tf32 m16n8k8 and m16n8k16, the ones CUTLASS's Sm80 sparse GEMMs issue.
 *
 * The sparse fragment (9.7.14.6.1-2): lane 4g + t holds in register r the two nonzero
 * elements (one for .tf32) of chunk t + 4 (r / 2) (four columns; two for .tf32) of row
 * g + 8 (r % 2); their places in the chunk are a nibble of the metadata, bits [1:0] for the
 * register's low half and [3:2] for its high half (.tf32: the place is bits [1:0] / 2).  The
 * group's metadata comes from lane 4g + f (f the sparsity selector) where one register holds
 * it all, else chunks 0-3 from lane 4g + 2f and 4-7 from 4g + 2f + 1; chunk c's nibble is
 * bits 4 (c % 4) for row g, 16 + 4 (c % 4) for row g + 8.  A dense register (row g + 8h,
 * columns 2t and 2t + 1 of its block; .tf32: column t) takes its chunk from the lane of its
 * group that holds it, and each half (byte permute) the element the nibble places there, or
 * zero.  Products exact and accumulated as mma.sync's are: within the fp32 accumulation
 * bound. */
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

typedef struct spform {
	int et, k, cf16, df16, sel;
} spform;

/* "mma.sp{::ordered_metadata}.sync.aligned.mKnNkK.row.col.D.A.B.C d, a, b, c, e, f" */
static int sp_form(const pinst *I, spform *f)
{
	static const struct { const char *shape, *type; int et, k; } forms[] = {
		{ "m16n8k16", "f16", ET_F16, 16 }, { "m16n8k32", "f16", ET_F16, 32 },
		{ "m16n8k16", "bf16", ET_BF16, 16 }, { "m16n8k32", "bf16", ET_BF16, 32 },
		{ "m16n8k8", "tf32", ET_TF32, 8 }, { "m16n8k16", "tf32", ET_TF32, 16 },
	};
	if (I->nwords != 11 || I->nops != 6 || strcmp(I->word[2], "sync") || strcmp(I->word[3], "aligned") ||
	    strcmp(I->word[5], "row") || strcmp(I->word[6], "col") || strcmp(I->word[8], I->word[9]))
		return -1;
	f->k = 0;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(I->word[4], forms[i].shape) && !strcmp(I->word[8], forms[i].type))
			f->et = forms[i].et, f->k = forms[i].k;
	f->df16 = !strcmp(I->word[7], "f16");
	f->cf16 = !strcmp(I->word[10], "f16");
	if (!f->k || (!f->df16 && strcmp(I->word[7], "f32")) || (!f->cf16 && strcmp(I->word[10], "f32")) ||
	    f->df16 != f->cf16 || (f->df16 && f->et != ET_F16))
		return -1;
	const char *s = I->op[5];
	int pairs = f->k == (f->et == ET_TF32 ? 16 : 32);
	f->sel = s[0] >= '0' && s[0] <= '3' && (!s[1] || (s[0] == '0' && s[1] == 'x' && s[2] >= '0' &&
						      s[2] <= '3' && !s[3])) ? s[s[1] ? 2 : 0] - '0' : -1;
	return f->sel < 0 || f->sel > (pairs ? 1 : 3) ? -1 : 0;
}

int ptxl_need_mma_sp(const pinst *I, const lctx *ctx)
{
	spform f;
	(void)ctx;
	return sp_form(I, &f) ? 0 : 80;
}

static void key_regs(const hkey *k, int n[HP_COUNT])
{
	int e = k->et == ET_TF32 ? 1 : 2;
	n[HP_A] = k->k / (4 * e);          /* half of a dense A's */
	n[HP_B] = k->k / (4 * e);
	n[HP_C] = k->cf16 ? 2 : 4;
	n[HP_E] = 1;
	n[HP_D] = k->df16 ? 2 : 4;
}

void ptxl_mma_sp_helper_sizes(const hkey *k, int n[HP_COUNT])
{
	key_regs(k, n);
}

void ptxl_mma_sp_helper_name(const hkey *k, char *out, size_t cap)
{
	snprintf(out, cap, "mma_sp_m16n8k%d_%s_%s_sel%d_sm%d", k->k, k->et == ET_BF16 ? "bf16" :
		 k->et == ET_TF32 ? "tf32" : "f16", k->df16 ? "f16" : "f32", k->sel, k->target);
}

/* Dense register q of block bk (row g + 8 (q % 2); 16-bit: columns 8 (q / 2) + 2t, +1;
 * .tf32: column 4 (q / 2) + t) from the sparse registers a, metadata words meta. */
static void dense_reg(iseq *S, const hkey *k, const iarg *a, const iarg *meta, iarg t, int bk,
		      int q, iarg out)
{
	int tf = k->et == ET_TF32, h = q % 2;
	iarg half = ir_r(S), src = ir_r(S), c = ir_r(S), w = ir_r(S), nib = ir_r(S), pos = ir_r(S);
	iarg i0 = ir_r(S), i1 = ir_r(S);
	/* chunk c: 4 bk + 2 (q / 2) + t / 2, in the group's lane c % 4, register h + 2 (c / 4) */
	E(S, "shr.u32", half, t, ir_imm(1));
	E(S, "add.u32", src, half, ir_imm((uint64_t)(2 * (q / 2))));
	E(S, "shfl.sync.idx.b32", w, a[h + 2 * bk], src, ir_imm(0x1c03), ALL);
	E(S, "shl.b32", c, src, ir_imm(2));
	E(S, "add.u32", c, c, ir_imm((uint64_t)(16 * h)));
	E(S, "bfe.u32", nib, meta[bk], c, ir_imm(4));
	E(S, "and.b32", i0, nib, ir_imm(3));
	E(S, "and.b32", pos, t, ir_imm(1));
	if (tf) {   /* one element: its place (bits [1:0]) / 2 against t % 2 */
		iarg p = ir_p(S);
		E(S, "shr.u32", i0, i0, ir_imm(1));
		E(S, "setp.eq.u32", p, i0, pos);
		E(S, "selp.b32", out, w, ir_imm(0), p);
		return;
	}
	/* halves p = 2 (t % 2) + j: bytes 0-1 of w where i0 is p, 2-3 where i1 is, else zeros */
	iarg sel = ir_r(S), part = ir_r(S), p0 = ir_p(S), p1 = ir_p(S);
	E(S, "shr.u32", i1, nib, ir_imm(2));
	E(S, "shl.b32", pos, pos, ir_imm(1));
	for (int j = 0; j < 2; j++) {
		iarg dst = j ? part : sel;
		if (j)
			E(S, "add.u32", pos, pos, ir_imm(1));
		E(S, "setp.eq.u32", p0, i0, pos);
		E(S, "setp.eq.u32", p1, i1, pos);
		E(S, "selp.b32", dst, ir_imm(0x32), ir_imm(0x44), p1);
		E(S, "selp.b32", dst, ir_imm(0x10), dst, p0);
	}
	E(S, "shl.b32", part, part, ir_imm(8));
	E(S, "or.b32", sel, sel, part);
	E(S, "prmt.b32", out, w, ir_imm(0), sel);
}

int ptxl_mma_sp_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	int n[HP_COUNT], tf = k->et == ET_TF32, blocks = k->k / (tf ? 8 : 16);
	int pairs = k->k == (tf ? 16 : 32);
	key_regs(k, n);
	iarg lane = ir_r(S), t = ir_r(S), meta[2];
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "and.b32", t, lane, ir_imm(3));
	for (int m = 0; m < (pairs ? 2 : 1); m++) {
		meta[m] = ir_r(S);
		E(S, "shfl.sync.idx.b32", meta[m], op[HP_E][0], ir_imm((uint64_t)((pairs ? 2 : 1) * k->sel + m)),
		  ir_imm(0x1c03), ALL);
	}
	iarg acc = ptxl_ir_temps(S, IA_R, 4);
	for (int bk = 0; bk < blocks; bk++) {
		iarg dense = ptxl_ir_temps(S, IA_R, 4);
		int last = bk == blocks - 1;
		for (int q = 0; q < 4; q++)
			dense_reg(S, k, op[HP_A], meta, t, bk, q, ir_el(dense, q));
		mfrag F = { k->et, tf ? 8 : 16, bk ? 0 : k->cf16, last ? k->df16 : 0, 0, 0,
			    { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
		for (int q = 0; q < 4; q++) {
			F.a[q] = ir_el(dense, q);
			F.c[q] = bk ? ir_el(acc, q) : q < n[HP_C] ? op[HP_C][q] : ir_imm(0);
			F.d[q] = last ? (q < n[HP_D] ? op[HP_D][q] : ir_imm(0)) : ir_el(acc, q);
		}
		F.b[0] = op[HP_B][2 * bk];
		F.b[1] = op[HP_B][2 * bk + 1];
		if (ptxl_mma_build(S, &F, k->target))
			return -1;
	}
	return 0;
}

/* mma.sp d, a, b, c, e, f: the helper of its form. */
int ptxl_build_mma_sp(iseq *S, const pinst *I, const pmods *M)
{
	spform f;
	int n[HP_COUNT];
	hkey k;
	if (sp_form(I, &f))
		return -1;
	memset(&k, 0, sizeof(k));
	k.kind = HK_MMA_SP;
	k.target = (uint8_t)M->ctx->target;
	k.et = (uint8_t)f.et, k.k = (uint8_t)f.k, k.cf16 = (uint8_t)f.cf16, k.df16 = (uint8_t)f.df16;
	k.sel = (uint8_t)f.sel;
	key_regs(&k, n);
	if (ptxl_vec_len(I->op[0]) != n[HP_D] || ptxl_vec_len(I->op[1]) != n[HP_A] ||
	    ptxl_vec_len(I->op[2]) != n[HP_B] || ptxl_vec_len(I->op[3]) != n[HP_C] || I->op[4][0] != '%')
		return -1;
	iarg a[4], b[4], c[4], e[1] = { ir_opnd(4) }, d[4];
	for (int j = 0; j < 4; j++) {
		a[j] = ir_vec(1, j < n[HP_A] ? j : 0);
		b[j] = ir_vec(2, j < n[HP_B] ? j : 0);
		c[j] = ir_vec(3, j < n[HP_C] ? j : 0);
		d[j] = ir_vec(0, j < n[HP_D] ? j : 0);
	}
	const char *name = ptxl_helper_use(M->ctx->helpers, &k);
	const iarg *op[HP_COUNT] = { a, b, c, e, d };
	return name ? ptxl_helper_call(S, name, &k, op) : -1;
}
