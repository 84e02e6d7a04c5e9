/* ops_mma.c: mma.sync.aligned, the warp-level matrix multiply-accumulate (PTX ISA
 * 9.7.14.5.14), and mma.sp{::ordered_metadata} with a structured-sparse A (9.7.14.6.3) for
 * .f16/.bf16 (m16n8k16, m16n8k32) and .tf32 (m16n8k8, m16n8k16): shapes and types, and the
 * handler that runs them over the whole warp with the engine of tcore.c. */
#include <string.h>

#include "mma.h"
#include "parse.h"

typedef struct mshape {
	uint16_t word;
	uint16_t m, n, k;
} mshape;

static const mshape shapes[] = {
	{ W_m8n8k4, 8, 8, 4 }, { W_m16n8k4, 16, 8, 4 }, { W_m16n8k8, 16, 8, 8 },
	{ W_m16n8k16, 16, 8, 16 }, { W_m16n8k32, 16, 8, 32 }, { W_m16n8k64, 16, 8, 64 },
	{ W_m8n8k16, 8, 8, 16 }, { W_m8n8k32, 8, 8, 32 }, { W_m8n8k128, 8, 8, 128 },
	{ W_m16n8k128, 16, 8, 128 }, { W_m16n8k256, 16, 8, 256 },
};

/* The multiplicand types each shape takes (9.7.14.5.14, Syntax). */
static const struct {
	uint16_t shape;
	uint8_t types[6];
} combos[] = {
	{ W_m8n8k4, { T_f16, T_f64 } },
	{ W_m16n8k4, { T_tf32, T_f64 } },
	{ W_m16n8k8, { T_f16, T_bf16, T_tf32, T_f64 } },
	{ W_m16n8k16, { T_f16, T_bf16, T_s8, T_u8, T_f64, T_e4m3 } },
	{ W_m16n8k16, { T_e5m2 } },
	{ W_m16n8k32, { T_s8, T_u8, T_s4, T_u4, T_e4m3, T_e5m2 } },
	{ W_m16n8k64, { T_s4, T_u4 } },
	{ W_m8n8k16, { T_s8, T_u8 } },
	{ W_m8n8k32, { T_s4, T_u4 } },
	{ W_m8n8k128, { T_b1 } },
	{ W_m16n8k128, { T_b1 } },
	{ W_m16n8k256, { T_b1 } },
};

static int shape_takes(uint16_t shape, int t)
{
	for (size_t i = 0; i < sizeof(combos) / sizeof(combos[0]); i++)
		if (combos[i].shape == shape)
			for (int j = 0; j < 6 && combos[i].types[j]; j++)
				if (combos[i].types[j] == t)
					return 1;
	return 0;
}

/* Multiplicand types that may be mixed (A and B of one family). */
static int family(int t)
{
	switch (t) {
	case T_s8: case T_u8: return 1;
	case T_s4: case T_u4: return 2;
	case T_e4m3: case T_e5m2: return 3;
	default: return 10 + t;
	}
}

int ptx__x_mx(pwarp *w, const pinsn *in, uint32_t m)
{
	const pmx *x = &w->b->m->mx[in->aux];
	int st = ptx__warp_aligned(w, in, m);
	if (!st && x->sparse)
		st = ptx__mx_sparse_check(w, in, x);
	if (!st) {
		ptx__mx_exec(w, x);
		w->b->mma_steps++;
	}
	return st;
}

/* Accumulator types a multiplicand type allows: 1 f16 or f32, 2 f32, 3 s32, 4 f64. */
static int acc_class(int at)
{
	switch (at) {
	case T_f16: case T_e4m3: case T_e5m2: return 1;
	case T_bf16: case T_tf32: return 2;
	case T_f64: return 4;
	default: return 3;
	}
}

static int acc_ok(int cls, int t)
{
	switch (cls) {
	case 1: return t == T_f16 || t == T_f32;
	case 2: return t == T_f32;
	case 3: return t == T_s32;
	default: return t == T_f64;
	}
}

/* Fills x from "mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype
 * {.bitop.popc}{.rnd}" and operands "d, a, b, c". */
static int dec_shape_types(pdec *D, pmx *x)
{
	const mshape *sh = NULL;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]) && !sh; i++)
		if (dx_take(D, shapes[i].word))
			sh = &shapes[i];
	if (!sh || !dx_take(D, W_sync) || !dx_take(D, W_aligned) || dx_ntypes(D) != 4)
		return dx_bad(D);
	x->m = sh->m;
	x->n = sh->n;
	x->k = sh->k;
	x->dt = (uint8_t)dx_type(D, 0);
	x->at = (uint8_t)dx_type(D, 1);
	x->bt = (uint8_t)dx_type(D, 2);
	x->ct = (uint8_t)dx_type(D, 3);
	for (int i = 0; i < 2; i++) {
		int w = dx_take_first(D, W_row, W_col);
		if (!w)
			return dx_bad(D);
		*(i ? &x->blay : &x->alay) = (uint8_t)(w == W_col);
	}
	if (!shape_takes(sh->word, x->at) || family(x->at) != family(x->bt))
		return dx_bad(D);
	int cls = acc_class(x->at);
	if (!acc_ok(cls, x->ct) || !acc_ok(cls, x->dt))
		return dx_bad(D);
	if (sh->word == W_m8n8k4 && x->at == T_f16) {
		x->kind = MXK_MMA884;
		if (x->ct == T_f32 && x->dt != T_f32)
			return dx_fail(D, PTX_ESYNTAX, ".dtype must be '.f32' when .ctype is '.f32' for "
				       "'mma' instruction with shape '.m8n8k4'");
	} else {
		x->kind = MXK_MMA;
		/* Every other shape: .row.col only, D of C's type (9.7.14.5.14). */
		if (x->alay != 0 || x->blay != 1 || x->dt != x->ct)
			return dx_bad(D);
	}
	if (cls == 3 && x->at != T_b1)
		x->sat = (uint8_t)dx_take(D, W_satfinite);
	if (x->at == T_b1) {
		x->bitop = dx_take(D, W_xor) ? W_xor : dx_take(D, W_and) ? W_and : 0;
		if (!x->bitop || !dx_take(D, W_popc))
			return dx_bad(D);
	}
	return 0;
}

/* The register lists d, a, b, c (and e for mma.sp) of x->r, from operand 0 on. */
static int dec_lists(pdec *D, pmx *x, int ne)
{
	uint32_t *r = x->r;
	if (ptx__mx_prepare(D, x) || dx_reglist(D, 0, x->nd, 1, x->dt, r) ||
	    dx_reglist(D, 1, x->na, 0, T_b32, r + x->nd) ||
	    dx_reglist(D, 2, x->nb, 0, T_b32, r + x->nd + x->na) ||
	    dx_reglist(D, 3, x->nc, 0, x->ct, r + x->nd + x->na + x->nb))
		return -1;
	return ne ? dx_reglist(D, 4, ne, 0, T_b32, r + x->nd + x->na + x->nb + x->nc) : 0;
}

int ptx__dec_mx_operands(pdec *D, pmx *x)
{
	if (x->at == T_f64) {
		int rnd = dx_take_rnd(D);
		if (rnd > RND_RP)
			return dx_bad(D);
		x->rnd = (uint8_t)(rnd ? rnd : RND_RN);
	}
	x->blk = (uint8_t)ptx__mx_block(D->P->m->device_sm, x->at, x->k);
	x->nd = (uint8_t)ptx__mx_unique(x, FR_D);
	x->nc = (uint8_t)ptx__mx_unique(x, FR_C);
	if (dx_nops(D, 4, 4) || dec_lists(D, x, 0))
		return -1;
	return dx_done(D);
}

/* mma.sp{::ordered_metadata}.sync.aligned.shape.row.col.dtype.atype.btype.ctype d, a, b, c,
 * e, f: A holds half of its k columns (9.7.14.6.1), e the metadata, f the sparsity
 * selector, an immediate (9.7.14.6.3). */
static int dec_sparse(pdec *D, pmx *x)
{
	static const struct { uint16_t word; uint8_t k, type; } forms[] = {
		{ W_m16n8k16, 16, T_f16 }, { W_m16n8k32, 32, T_f16 }, { W_m16n8k16, 16, T_bf16 },
		{ W_m16n8k32, 32, T_bf16 }, { W_m16n8k8, 8, T_tf32 }, { W_m16n8k16, 16, T_tf32 },
	};
	int shape = 0;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !shape; i++)
		if (dx_take(D, forms[i].word))
			shape = forms[i].word;
	if (!shape || !dx_take(D, W_sync) || !dx_take(D, W_aligned) || dx_ntypes(D) != 4 ||
	    !dx_take(D, W_row) || !dx_take(D, W_col))
		return dx_bad(D);
	x->kind = MXK_MMA;
	x->sparse = 1;
	x->m = 16, x->n = 8;
	x->dt = (uint8_t)dx_type(D, 0), x->at = (uint8_t)dx_type(D, 1);
	x->bt = (uint8_t)dx_type(D, 2), x->ct = (uint8_t)dx_type(D, 3);
	x->k = 0;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (forms[i].word == shape && forms[i].type == x->at)
			x->k = forms[i].k;
	if (!x->k || x->bt != x->at || !acc_ok(acc_class(x->at), x->ct) || x->dt != x->ct)
		return dx_fail(D, PTX_EUNKNOWN, "Instruction '%s' (this form of mma.sp) is not "
			       "implemented by the simulator", D->text);
	x->na = (uint8_t)(x->at == T_tf32 ? x->k / 4 : x->k / 8);
	x->nb = (uint8_t)ptx__mx_unique(x, FR_B);
	x->blk = (uint8_t)ptx__mx_block(D->P->m->device_sm, x->at, x->k);
	x->nd = (uint8_t)ptx__mx_unique(x, FR_D);
	x->nc = (uint8_t)ptx__mx_unique(x, FR_C);
	if (dx_nops(D, 6, 6) || dec_lists(D, x, 1))
		return -1;
	/* the selector: one thread of four (0..3), or a pair (0, 1) where two carry it */
	int pairs = x->k == (x->at == T_tf32 ? 16 : 32);
	if (D->ops[5].kind != O_IMM || D->ops[5].imm < 0 || D->ops[5].imm > (pairs ? 1 : 3))
		return dx_fail(D, PTX_ESYNTAX, "sparsity selector of '%s' must be an immediate in 0..%d",
			       D->text, pairs ? 1 : 3);
	x->sel = (uint8_t)D->ops[5].imm;
	D->in->fn = ptx__x_mx;
	return dx_done(D);
}

int ptx__dec_mma(pdec *D)
{
	pmx *x = dx_new_mx(D);
	if (!x)
		return -1;
	x->ordered = (uint8_t)dx_take(D, W_ordered_metadata);
	if (dx_take(D, W_sp))
		return dec_sparse(D, x);
	if (x->ordered)
		return dx_bad(D);
	if (dec_shape_types(D, x))
		return -1;
	x->na = (uint8_t)ptx__mx_unique(x, FR_A);
	x->nb = (uint8_t)ptx__mx_unique(x, FR_B);
	D->in->fn = ptx__x_mx;
	return ptx__dec_mx_operands(D, x);
}
