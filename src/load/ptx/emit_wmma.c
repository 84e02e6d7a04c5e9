/* emit_wmma.c: wmma with .bf16 multiplicands (sm_80: PTX ISA 9.7.14.4.3-5, shapes m16n16k16,
 * m32n8k16 and m8n32k16, f32 accumulators) for older targets.
 *
 * Which thread holds which element of a wmma fragment is unspecified (9.7.14.4.1 "Matrix
 * Fragments for WMMA"), so a function whose wmma use .bf16 gets a layout of this pass, for
 * its bf16 A and B fragments and its f32 C and D fragments alike: ptxl_wmma_prescan() marks
 * the function, and there every wmma.load.a/.b .bf16, wmma.load.c / wmma.store.d .f32 and
 * wmma.mma .bf16 is rewritten (the hardware's f32 accumulator layout on sm_70/75 is not
 * documented, so it is not relied on).  The layout is that of mma.m16n8k16 (9.7.14.5.9)
 * tile by tile, with g = laneid / 4 and t = laneid % 4:
 *   A (m x 16): 16-row tiles (8 rows for m8n32k16), four registers each (two for 8 rows):
 *               register r holds row g + 8 (r % 2), columns 8 (r / 2) + 2t + j (j < 2);
 *               for 8 rows, register r holds row g, columns 8r + 2t + j;
 *   B (16 x n): 8-column tiles, two registers each: register r holds column g, rows
 *               8r + 2t + j;
 *   C, D:       16 x 8 tiles (8 x 8 for m8n32k16) in row-major tile order, four elements
 *               each (two): element i at row g + 8 (i / 2), column 2t + i % 2.
 * which is the register count the ISA gives each fragment (a/b: 4/4, 8/2, 2/8; c/d: 8).
 * Loads and stores move each element with its own ld/st at
 *   p + (row * stride + col) * size (.row), p + (col * stride + row) * size (.col)
 * (9.7.14.4.2 "Matrix Storage for WMMA"; stride in elements, by default the leading
 * dimension), bit-exact; wmma.mma is one mma.m16n8k16 per tile of D through
 * ptxl_mma_build() (emit_mma.c: the f16 tensor cores on sm_75 where f16 holds every value,
 * else the exact-product fp32 FMA loop), within the fp32 accumulation bound.
 *
 * A function that also has f16 wmma.mma with an f32 C or D would hand accumulators between
 * the two layouts: that instruction is reported, not lowered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"

enum { WL_A, WL_B, WL_C, WL_D, WL_MMA };

typedef struct wform {
	int what;            /* WL_* */
	int m, n, k;
	int col[2];          /* .col: of the load/store, or of A and B for mma */
	int space;           /* 0 generic, 1 .global, 2 .shared */
	int type[4];         /* the type words: one for load/store; d, a, b, c for mma */
	int ntypes;
} wform;

static int type_of(const char *w)
{
	static const struct { const char *w; int t; } types[] = {
		{ "bf16", TY_BF16 }, { "f16", TY_F16 }, { "f32", TY_F32 }, { "s32", TY_S32 },
		{ "tf32", TY_OTHER }, { "f64", TY_F64 }, { "s8", TY_S8 }, { "u8", TY_U8 },
		{ "s4", TY_OTHER }, { "u4", TY_OTHER }, { "b1", TY_OTHER },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(w, types[i].w))
			return types[i].t;
	return TY_NONE;
}

/* The words of a wmma instruction (9.7.14.4.3-5); -1 for a form this file does not know. */
static int wmma_form(const pinst *I, wform *f)
{
	static const struct { const char *w; int m, n, k; } shapes[] = {
		{ "m16n16k16", 16, 16, 16 }, { "m32n8k16", 32, 8, 16 }, { "m8n32k16", 8, 32, 16 },
	};
	memset(f, 0, sizeof(*f));
	if (I->nwords < 3 || strcmp(I->word[0], "wmma"))
		return -1;
	int i = 2, sync = 0, nlay = 0;
	if (!strcmp(I->word[1], "mma")) {
		f->what = WL_MMA;
	} else if (!strcmp(I->word[1], "load") || !strcmp(I->word[1], "store")) {
		const char *w = I->word[2];
		f->what = !strcmp(w, "a") ? WL_A : !strcmp(w, "b") ? WL_B : !strcmp(w, "c") ? WL_C
			  : !strcmp(w, "d") ? WL_D : -1;
		if (f->what < 0 || (f->what == WL_D) != (I->word[1][0] == 's'))
			return -1;
		i = 3;
	} else {
		return -1;
	}
	for (; i < I->nwords; i++) {
		const char *w = I->word[i];
		int t = type_of(w);
		if (!strcmp(w, "sync"))
			sync = 1;
		else if (!strcmp(w, "aligned"))
			continue;
		else if (!strcmp(w, "row") || !strcmp(w, "col")) {
			if (nlay == 2)
				return -1;
			f->col[nlay++] = w[0] == 'c';
		} else if (!strcmp(w, "global"))
			f->space = 1;
		else if (!strcmp(w, "shared") || !strcmp(w, "shared::cta"))
			f->space = 2;
		else if (t != TY_NONE && f->ntypes < 4)
			f->type[f->ntypes++] = t;
		else {
			size_t s;
			for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
				if (!strcmp(w, shapes[s].w))
					break;
			if (s == sizeof(shapes) / sizeof(shapes[0]) || f->m)
				return -1;
			f->m = shapes[s].m, f->n = shapes[s].n, f->k = shapes[s].k;
		}
	}
	if (!sync || !f->m || nlay != (f->what == WL_MMA ? 2 : 1))
		return -1;
	return f->what == WL_MMA ? (f->ntypes == 4 || f->ntypes == 2 ? 0 : -1) : (f->ntypes == 1 ? 0 : -1);
}

static int is_bf16_mma(const wform *f)
{
	return f->ntypes == 4 && f->type[0] == TY_F32 && f->type[1] == TY_BF16 &&
	       f->type[2] == TY_BF16 && f->type[3] == TY_F32;
}

/* Registers of a fragment in this layout. */
static int frag_regs(const wform *f, int what)
{
	if (what == WL_A)
		return f->m / 4;          /* 4 per 16 rows */
	if (what == WL_B)
		return f->n / 4;          /* 2 per 8 columns */
	return 8;
}

/* Where element j of register r of a fragment sits: row = g or 2t (lane_is_g[0]) plus
 * *row, col likewise (lane_is_g[1]). */
static void elem_pos(const wform *f, int what, int r, int j, int *row, int *col, int lane_is_g[2])
{
	if (what == WL_A) {
		lane_is_g[0] = 1, lane_is_g[1] = 0;
		if (f->m == 8) {
			*row = 0, *col = 8 * r + j;
			return;
		}
		int tile = r / 4, q = r % 4;
		*row = 16 * tile + 8 * (q % 2), *col = 8 * (q / 2) + j;
		return;
	}
	if (what == WL_B) {
		lane_is_g[0] = 0, lane_is_g[1] = 1;
		*row = 8 * (r % 2) + j, *col = 8 * (r / 2);
		return;
	}
	lane_is_g[0] = 1, lane_is_g[1] = 0;   /* C/D: element r (j is 0) */
	if (f->m == 8) {
		*row = 0, *col = 8 * (r / 2) + r % 2;
		return;
	}
	int tile = r / 4, q = r % 4, across = f->n / 8;
	*row = 16 * (tile / across) + 8 * (q / 2), *col = 8 * (tile % across) + q % 2;
}

/* Loads and stores: op[vec] the fragment, op[mem] the matrix, op[2] the stride if given. */
static int build_mem(iseq *S, const pinst *I, const pmods *M, const wform *f)
{
	int store = f->what == WL_D, vec = store ? 1 : 0, mem = store ? 0 : 1;
	int regs = frag_regs(f, f->what), half = f->what <= WL_B, size = half ? 2 : 4;
	int shared = f->space == 2, col = f->col[0];
	iarg base;
	if (I->nops < 2 || I->nops > 3 || ptxl_vec_len(I->op[vec]) != regs ||
	    ptxl_addr_temp(S, I, M, mem, !shared, &base))
		return -1;
	int rows = f->what == WL_A ? f->m : f->what == WL_B ? f->k : f->m;
	int cols = f->what == WL_A ? f->k : f->what == WL_B ? f->n : f->n;
	iarg lane = ir_r(S), g = ir_r(S), t2 = ir_r(S), stride = ir_r(S), lin = ir_r(S);
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "shr.u32", g, lane, ir_imm(2));
	E(S, "and.b32", t2, lane, ir_imm(3));
	E(S, "shl.b32", t2, t2, ir_imm(1));
	if (I->nops == 3)
		E(S, "mov.u32", stride, ir_opnd(2));
	else
		E(S, "mov.u32", stride, ir_imm((uint64_t)(col ? rows : cols)));
	/* lin: the lane's part of the element index, (major * stride + minor) */
	int dummy_r, dummy_c, lg[2];
	elem_pos(f, f->what, 0, 0, &dummy_r, &dummy_c, lg);
	iarg lrow = lg[0] ? g : t2, lcol = lg[1] ? g : t2;
	E(S, "mad.lo.u32", lin, col ? lcol : lrow, stride, col ? lrow : lcol);
	const char *sp = shared ? ".shared" : f->space == 1 ? ".global" : "";
	char op[32];
	snprintf(op, sizeof(op), "%s%s.b%d", store ? "st" : "ld", sp, 8 * size);
	for (int r = 0; r < regs; r++) {
		iarg h = half ? ptxl_ir_temps(S, IA_H, 2) : ir_r(S);
		for (int j = 0; j < (half ? 2 : 1); j++) {
			int row, c;
			elem_pos(f, f->what, r, j, &row, &c, lg);
			int major = col ? c : row, minor = col ? row : c;
			iarg e = ir_r(S);
			E(S, "mad.lo.u32", e, stride, ir_imm((uint64_t)major), lin);
			iarg a;
			if (shared) {
				a = ir_r(S);
				E(S, "mad.lo.u32", a, e, ir_imm((uint64_t)size), base);
			} else {
				a = ir_d(S);
				E(S, "mul.wide.u32", a, e, ir_imm((uint64_t)size));
				E(S, "add.s64", a, a, base);
			}
			iarg mem_at = ir_mem(a, (int64_t)minor * size);
			if (store)
				EG(S, op, mem_at, ir_vec(1, r));
			else
				EG(S, op, half ? ir_el(h, j) : ir_vec(0, r), mem_at);
		}
		if (half)
			EG(S, "mov.b32", ir_vec(0, r), ir_tvec(h, 2));
	}
	return 0;
}

/* Whether element strings of the original's vector operands x and y name one register
 * (ignoring ix == iy when same_ok). */
static int overlap(const pinst *I, int x, int y, int same_ok)
{
	int nx = ptxl_vec_len(I->op[x]), ny = ptxl_vec_len(I->op[y]);
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++) {
			const char *s, *u;
			size_t ls, lu;
			if (same_ok && i == j)
				continue;
			if (!ptxl_vec_elem(I->op[x], i, &s, &ls) && !ptxl_vec_elem(I->op[y], j, &u, &lu) &&
			    ls == lu && !memcmp(s, u, ls))
				return 1;
		}
	return 0;
}

/* wmma.mma d, a, b, c: one m16n8k16 product per tile of D. */
static int build_mma(iseq *S, const pinst *I, const pmods *M, const wform *f)
{
	if (I->nops != 4 || ptxl_vec_len(I->op[0]) != 8 || ptxl_vec_len(I->op[1]) != frag_regs(f, WL_A) ||
	    ptxl_vec_len(I->op[2]) != frag_regs(f, WL_B) || ptxl_vec_len(I->op[3]) != 8)
		return -1;
	/* Tiles run one after another: a D register must not be one a later tile reads. */
	if (overlap(I, 0, 1, 0) || overlap(I, 0, 2, 0) || overlap(I, 0, 3, 1))
		return -1;
	int tiles = f->m == 8 ? 4 : 2, half = f->m == 8, per = half ? 2 : 4;
	for (int T = 0; T < tiles; T++) {
		int arow = f->m == 32 ? T : 0, bcol = f->m == 32 ? 0 : T;
		mfrag F = { ET_BF16, 16, 0, 0, half, 1, { { 0 } }, { { 0 } }, { { 0 } }, { { 0 } } };
		for (int j = 0; j < 4; j++) {
			F.a[j] = half ? (j % 2 ? ir_imm(0) : ir_vec(1, j / 2)) : ir_vec(1, 4 * arow + j);
			F.c[j] = j < per ? ir_vec(3, per * T + j) : ir_imm(0);
			F.d[j] = j < per ? ir_vec(0, per * T + j) : ir_imm(0);
		}
		F.b[0] = ir_vec(2, 2 * bcol);
		F.b[1] = ir_vec(2, 2 * bcol + 1);
		if (ptxl_mma_build(S, &F, M->ctx->target))
			return -1;
	}
	return 0;
}

int ptxl_need_wmma(const pinst *I, const lctx *ctx)
{
	wform f;
	if (!ctx->wmma_explicit || wmma_form(I, &f))
		return 0;
	switch (f.what) {
	case WL_A:
	case WL_B:
		return f.type[0] == TY_BF16 ? 80 : 0;
	case WL_C:
	case WL_D:
		return f.type[0] == TY_F32 ? 80 : 0;
	default:
		if (is_bf16_mma(&f))
			return 80;
		/* f16 products into or from f32 accumulators of this pass's layout */
		return f.type[0] == TY_F32 || f.type[f.ntypes - 1] == TY_F32 ? -80 : 0;
	}
}

int ptxl_build_wmma(iseq *S, const pinst *I, const pmods *M)
{
	wform f;
	if (wmma_form(I, &f))
		return -1;
	return f.what == WL_MMA ? build_mma(S, I, M, &f) : build_mem(S, I, M, &f);
}

int ptxl_wmma_prescan(const char *in, size_t len, int target, uint8_t **flags)
{
	ptx_cursor S;
	ptx_stmt st;
	int nfunc = 0, cap = 0, depth = 0;
	pinst *I = malloc(sizeof(*I));
	*flags = NULL;
	if (!I)
		return -1;
	ptxl_statements_init(&S, in, len);
	while (target < 80 && ptxl_next_statement(&S, &st)) {
		if (st.kind == ST_OPEN && depth++ == 0) {
			if (nfunc == cap) {
				cap = cap ? 2 * cap : 16;
				uint8_t *p = realloc(*flags, (size_t)cap);
				if (!p) {
					free(*flags), free(I);
					*flags = NULL;
					return -1;
				}
				*flags = p;
			}
			(*flags)[nfunc++] = 0;
		} else if (st.kind == ST_CLOSE && depth > 0) {
			depth--;
		} else if (st.kind == ST_INSN && depth > 0 && nfunc &&
			   !ptxl_insn_parse(I, in + st.start, st.end - st.start) && !strcmp(I->word[0], "wmma")) {
			for (int i = 1; i < I->nwords; i++)
				if (!strcmp(I->word[i], "bf16"))
					(*flags)[nfunc - 1] = 1;
		}
	}
	free(I);
	return nfunc;
}

void ptxl_wmma_helper_sizes(const hkey *k, int n[HP_COUNT])
{
	(void)k;
	memset(n, 0, HP_COUNT * sizeof(int));
}

int ptxl_wmma_helper_body(iseq *S, const hkey *k, const iarg *const op[HP_COUNT])
{
	(void)S, (void)k, (void)op;
	return -1;
}

void ptxl_wmma_helper_name(const hkey *k, char *out, size_t cap)
{
	(void)k;
	snprintf(out, cap, "wmma");
}
