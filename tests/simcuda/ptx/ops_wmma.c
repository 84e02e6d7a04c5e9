/* ops_wmma.c: wmma.load, wmma.store and wmma.mma (PTX ISA 9.7.14.4.3-5) over the fragment
 * layout of tcore.c.  Matrices in memory follow 9.7.14.4.2 "Matrix Storage for WMMA":
 * row- or column-major, a stride in elements (default: the leading dimension), each row
 * (column) starting at an address aligned to the fragment's size in bytes, or to the row's
 * own size where that is smaller (the default strides of m32n8k16 and m8n32k16 need it). */
#include <stdio.h>
#include <string.h>

#include "mma.h"
#include "parse.h"

enum { WM_LOAD, WM_STORE, WM_MMA };

typedef struct wshape {
	uint16_t word;
	uint16_t m, n, k;
} wshape;

static const wshape shapes[] = {
	{ W_m16n16k16, 16, 16, 16 }, { W_m32n8k16, 32, 8, 16 }, { W_m8n32k16, 8, 32, 16 },
	{ W_m16n16k8, 16, 16, 8 }, { W_m8n8k4, 8, 8, 4 }, { W_m8n8k32, 8, 8, 32 },
	{ W_m8n8k128, 8, 8, 128 },
};

/* Multiplicand types of each shape (9.7.14.4.3 and 9.7.14.4.5, Syntax). */
static int shape_takes(const wshape *s, int t)
{
	switch (s->word) {
	case W_m16n16k8: return t == T_tf32;
	case W_m8n8k4: return t == T_f64;
	case W_m8n8k32: return t == T_s4 || t == T_u4;
	case W_m8n8k128: return t == T_b1;
	default: return t == T_f16 || t == T_bf16 || t == T_s8 || t == T_u8;
	}
}

static int acc_type_ok(int at, int t)
{
	switch (at) {
	case T_f16: return t == T_f16 || t == T_f32;
	case T_bf16: case T_tf32: return t == T_f32;
	case T_f64: return t == T_f64;
	default: return t == T_s32;
	}
}

/* Registers of a fragment: .f16 multiplicands always take eight (9.7.14.4.1). */
static int frag_regs(const pmx *x, int which)
{
	int t = which == FR_A ? x->at : which == FR_B ? x->bt : x->ct;
	if (which != FR_C && t == T_f16)
		return 8;
	return ptx__mx_unique(x, which);
}

/* Bits of one element in memory. */
static int mem_bits(int t)
{
	return t == T_tf32 ? 32 : ptx__mx_bits(t);
}

/* ------------------------------------------------------------ load/store */

static int x_wmma_mem(pwarp *w, const pinsn *in, uint32_t m)
{
	int st = ptx__warp_aligned(w, in, m);
	if (st)
		return st;
	const pmx *x = &w->b->m->mx[in->aux];
	int which = x->which, store = in->mode == WM_STORE;
	int t = which == FR_A ? x->at : which == FR_B ? x->bt : which == FR_C ? x->ct : x->dt;
	int rows, cols, bits = mem_bits(t), e = 32 / (ptx__mx_bits(t) > 32 ? 32 : ptx__mx_bits(t));
	ptx__mx_dims(x, which, &rows, &cols);
	if (ptx__mx_bits(t) == 64)
		e = 1;
	const uint64_t *A = R(in->s[4]);
	uint64_t base = A[0] + (uint64_t)in->off;
	if (in->flags & F_ADDR32)
		base = (uint32_t)base;
	uint64_t stride = in->s[3] != NOREG ? (uint32_t)R(in->s[3])[0] : (uint64_t)(x->alay ? rows : cols);
	for (uint32_t l = 1; l < WARP; l++) {
		uint64_t a = A[l] + (uint64_t)in->off;
		if (in->flags & F_ADDR32)
			a = (uint32_t)a;
		uint64_t s = in->s[3] != NOREG ? (uint32_t)R(in->s[3])[l] : stride;
		if (a != base || s != stride)
			return ptx__fault(w, in, (int)l, PTX_ETRAP, "the lanes of the warp give different "
					  "addresses or strides (lane 0: 0x%llx, %llu; lane %u: 0x%llx, %llu)",
					  (unsigned long long)base, (unsigned long long)stride, l,
					  (unsigned long long)a, (unsigned long long)s);
	}
	/* Each row (column) starts aligned to the fragment, or to its own size if smaller. */
	uint64_t frag = (uint64_t)frag_regs(x, which == FR_D ? FR_C : which) * (bits == 64 ? 8 : 4);
	uint64_t line = (uint64_t)(x->alay ? rows : cols) * (uint64_t)bits / 8, align = frag < line ? frag : line;
	uint64_t lead = stride * (uint64_t)bits / 8;
	for (int i = 0; i < (x->alay ? cols : rows); i++)
		if ((base + (uint64_t)i * lead) & (align - 1))
			return ptx__fault(w, in, 0, PTX_EMISALIGNED, "misaligned address: %s %d of the "
					  "matrix starts at 0x%llx, not %llu-byte aligned (stride %llu)",
					  x->alay ? "column" : "row", i,
					  (unsigned long long)(base + (uint64_t)i * lead),
					  (unsigned long long)align, (unsigned long long)stride);
	int nregs = store ? x->nd : frag_regs(x, which), nu = ptx__mx_unique(x, which);
	for (int r = 0; r < nregs; r++) {
		uint64_t *R = R(x->r[r]);
		for (uint32_t l = 0; l < WARP; l++) {
			uint64_t v = store ? R[l] : 0;
			for (int j = 0; j < e; j++) {
				int row, col;
				ptx__mx_pos(x, which, (int)l, r % nu, j, &row, &col);
				uint64_t idx = x->alay ? (uint64_t)col * stride + (uint64_t)row
						       : (uint64_t)row * stride + (uint64_t)col;
				uint64_t bit = idx * (uint64_t)bits;
				uint32_t sz = bits < 8 ? 1 : (uint32_t)bits / 8;
				uint8_t *p = ptx__mem(w, in, (int)l, in->space, base + bit / 8, sz, store, &st);
				if (!p)
					return st;
				if (bits < 8) {
					uint32_t sh = (uint32_t)(bit % 8), mask = (1u << bits) - 1;
					if (store)
						*p = (uint8_t)((*p & ~(mask << sh)) |
							       (((v >> (bits * j)) & mask) << sh));
					else
						v |= (uint64_t)((*p >> sh) & mask) << (bits * j);
				} else if (store) {
					uint64_t part = v >> (ptx__mx_bits(t) * j);
					memcpy(p, &part, sz);
				} else {
					uint64_t part = 0;
					memcpy(&part, p, sz);
					v |= part << (ptx__mx_bits(t) * j);
				}
			}
			if (!store)
				R[l] = ptx__mx_bits(t) == 64 ? v : (uint32_t)v;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- decoding */

static const wshape *take_shape(pdec *D)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (dx_take(D, shapes[i].word))
			return &shapes[i];
	return NULL;
}

/* .sync, and .aligned: required from PTX ISA 6.3, implicit before (9.7.14.4.3). */
static int take_sync(pdec *D, const char *what)
{
	int aligned = dx_take(D, W_aligned);
	if (!dx_take(D, W_sync))
		return dx_bad(D);
	if (!aligned && D->P->m->ptx_version >= 63)
		return dx_fail(D, PTX_ESYNTAX, ".aligned modifier required for instruction '%s'", what);
	return 0;
}

static int dec_mem(pdec *D, pmx *x, int store)
{
	pinsn *in = D->in;
	int which = dx_take(D, W_a) ? FR_A : dx_take(D, W_b) ? FR_B : dx_take(D, W_c) ? FR_C
		    : dx_take(D, W_d) ? FR_D : -1;
	if (which < 0 || (store ? which != FR_D : which == FR_D))
		return dx_bad(D);
	static const char *const names[] = { "wmma.load.a", "wmma.load.b", "wmma.load.c",
					     "wmma.store.d" };
	if (take_sync(D, names[which]))
		return -1;
	const wshape *s = take_shape(D);
	int lay = dx_take(D, W_row) ? 0 : dx_take(D, W_col) ? 1 : -1, space = dx_take_space(D);
	int t = dx_type(D, 0);
	if (!s || lay < 0 || dx_ntypes(D) != 1 || dx_nops(D, 2, 3) ||
	    (space != -1 && space != SP_GLOBAL && space != SP_SHARED))
		return dx_bad(D);
	x->kind = MXK_WMMA;
	x->m = s->m;
	x->n = s->n;
	x->k = s->k;
	x->which = (uint8_t)which;
	x->alay = (uint8_t)lay;
	/* The other operands' types only size the fragments: any valid ones do. */
	int mult = which <= FR_B ? t : s->word == W_m16n16k8 ? T_tf32 : s->word == W_m8n8k4 ? T_f64
		   : s->word == W_m8n8k32 ? T_s4 : s->word == W_m8n8k128 ? T_b1
		   : t == T_s32 ? T_s8 : T_f16;
	if (!shape_takes(s, mult) || (which >= FR_C && !acc_type_ok(mult, t)))
		return dx_bad(D);
	/* Sub-byte and single-bit A is row-major, B column-major (9.7.14.4.3). */
	if ((mult == T_s4 || mult == T_u4 || mult == T_b1) &&
	    ((which == FR_A && lay != 0) || (which == FR_B && lay != 1)))
		return dx_bad(D);
	x->at = x->bt = (uint8_t)mult;
	x->ct = x->dt = (uint8_t)(which >= FR_C ? t : mult == T_f16 ? T_f32 : mult == T_f64 ? T_f64
				  : (mult == T_bf16 || mult == T_tf32) ? T_f32 : T_s32);
	in->mode = store ? WM_STORE : WM_LOAD;
	in->space = (uint8_t)(space < 0 ? SP_GENERIC : space);
	int n = frag_regs(x, which == FR_D ? FR_C : which);
	x->nd = (uint8_t)n;
	int ai = store ? 0 : 1;
	if (dx_addr(D, ai) < -1 || dx_reglist(D, store ? 1 : 0, n, !store, t, x->r))
		return -1;
	if (D->nops == 3)
		in->s[3] = dx_src(D, 2, T_u32);
	in->fn = x_wmma_mem;
	return dx_done(D);
}

static int dec_mma(pdec *D, pmx *x)
{
	int bitop = dx_take(D, W_xor) ? W_xor : dx_take(D, W_and) ? W_and : 0;
	if (bitop && !dx_take(D, W_popc))
		return dx_bad(D);
	if (take_sync(D, "wmma.mma"))
		return -1;
	const wshape *s = take_shape(D);
	int aw = dx_take_first(D, W_row, W_col), bw = dx_take_first(D, W_row, W_col);
	int al = aw ? aw == W_col : -1, bl = bw ? bw == W_col : -1;
	int nt = dx_ntypes(D);
	if (!s || al < 0 || bl < 0 || (nt != 2 && nt != 4))
		return dx_bad(D);
	x->kind = MXK_WMMA;
	x->m = s->m;
	x->n = s->n;
	x->k = s->k;
	x->alay = (uint8_t)al;
	x->blay = (uint8_t)bl;
	x->dt = (uint8_t)dx_type(D, 0);
	x->at = (uint8_t)(nt == 2 ? T_f16 : dx_type(D, 1));
	x->bt = (uint8_t)(nt == 2 ? T_f16 : dx_type(D, 2));
	x->ct = (uint8_t)dx_type(D, nt - 1);
	int ints = x->at == T_s8 || x->at == T_u8 || x->at == T_s4 || x->at == T_u4;
	if (!shape_takes(s, x->at) || x->at != x->bt || !acc_type_ok(x->at, x->ct) ||
	    !acc_type_ok(x->at, x->dt) || (x->at != T_f16 && x->dt != x->ct) ||
	    (x->at == T_b1) != (bitop != 0) ||
	    ((x->at == T_s4 || x->at == T_u4 || x->at == T_b1) && (al != 0 || bl != 1)))
		return dx_bad(D);
	x->bitop = (uint8_t)bitop;
	/* .satfinite: integers clamp; on f16 (removed from PTX ISA 6.5) results stay finite. */
	if (ints || (x->at == T_f16 && D->P->m->ptx_version < 65))
		x->sat = (uint8_t)dx_take(D, W_satfinite);
	x->na = (uint8_t)frag_regs(x, FR_A);
	x->nb = (uint8_t)frag_regs(x, FR_B);
	D->in->mode = WM_MMA;
	D->in->fn = ptx__x_mx;
	return ptx__dec_mx_operands(D, x);
}

int ptx__dec_wmma(pdec *D)
{
	pmx *x = dx_new_mx(D);
	if (!x)
		return -1;
	if (dx_take(D, W_load))
		return dec_mem(D, x, 0);
	if (dx_take(D, W_store))
		return dec_mem(D, x, 1);
	if (dx_take(D, W_mma))
		return dec_mma(D, x);
	return dx_bad(D);
}
