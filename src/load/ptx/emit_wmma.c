/* emit_wmma.c: wmma with .bf16 multiplicands (sm_80: PTX ISA 9.7.14.4.3-5, shapes m16n16k16,
 * m32n8k16 and m8n32k16, f32 accumulators) for older targets: the fragments' layout, loads
 * and stores; the products are emit_wmma_mma.c's.
 *
 * Which thread holds which element of a wmma fragment is unspecified (9.7.14.4.1 "Matrix
 * Fragments for WMMA"), so a function whose wmma use .bf16 gets a layout of this pass, for
 * its bf16 A and B fragments and its f32 C and D fragments alike: ptxl_wmma_prescan() marks
 * the function, and there every wmma.load.a/.b .bf16, wmma.load.c / wmma.store.d .f32 and
 * wmma.mma .bf16 is rewritten (the hardware's f32 accumulator layout on sm_70/75 is not
 * documented, so it is not relied on).  The layout is that of mma.m16n8k16 (9.7.14.5.9)
 * tile by tile, R tiles of 16 rows (one of 8 for m8n32k16) by Ct tiles of 8 columns, with
 * the rows, columns and k of the matrix permuted so that what a lane loads is contiguous
 * (the sum over k and the tiles' products do not depend on the order).  With g = laneid / 4
 * and t = laneid % 4:
 *   A: register 4T + q of row tile T holds row R (2g + q % 2) + T (row g for m8n32k16,
 *      registers q = 0, 1 only), k = 4t + 2 (q / 2) + j (j < 2, its halves);
 *   B: register 2C + q of column tile C holds column Ct g + C, k = 4t + 2q + j;
 *   C, D: tile (T, C)'s element 2h + j (mma's row g + 8h, column 2t + j) is register
 *      ((2T + h) 2 + j) Ct + C, matrix row R (2g + h) + T (g for m8n32k16), column
 *      Ct (2t + j) + C;
 * which is the register count the ISA gives each fragment (a/b: 4/4, 8/2, 2/8; c/d: 8), and
 * puts a lane's k of a row of A (of a column of B) at 4t..4t+3, a lane's columns of C at
 * Ct 2t .. Ct 2t + 2Ct - 1 and its rows at neighbouring places.  Loads and stores move
 * what the layout makes contiguous with one vector access (ld/st .v2 and .v4, aligned as
 * 9.7.14.4.2 "Matrix Storage for WMMA" aligns each row or column: to the fragment's size),
 * two 16-bit halves that are a column's neighbours with one 32-bit access and a byte
 * permute, and the rest one element at a time; bit-exact.
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

wgeom ptxl_wmma_geom(int m, int n)
{
	return (wgeom){ m == 32 ? 2 : 1, n / 8, m == 8 };
}

int ptxl_wmma_dreg(const wgeom *G, int T, int C, int h, int j)
{
	return ((2 * T + h) * 2 + j) * G->Ct + C;
}

/* Registers of a fragment in this layout. */
static int frag_regs(const wform *f, int what)
{
	if (what == WL_A)
		return f->m == 8 ? 2 : f->m / 4;
	if (what == WL_B)
		return f->n / 4;
	return 8;
}

/* A lane's place in the matrix: row = rg g + rt t + r0, column = cg g + ct t + c0, with
 * (r0, c0) element j of register r's (elem_pos). */
typedef struct lanecoef { int rg, rt, cg, ct; } lanecoef;

static lanecoef lane_coef(const wform *f, int what)
{
	wgeom G = ptxl_wmma_geom(f->m, f->n);
	int rows = G.half ? 1 : 2 * G.R;
	if (what == WL_A)
		return (lanecoef){ rows, 0, 0, 4 };
	if (what == WL_B)
		return (lanecoef){ 0, 4, G.Ct, 0 };
	return (lanecoef){ rows, 0, 0, 2 * G.Ct };
}

static void elem_pos(const wform *f, int what, int r, int j, int *r0, int *c0)
{
	wgeom G = ptxl_wmma_geom(f->m, f->n);
	if (what == WL_A) {
		int T = r / 4, q = G.half ? 2 * r : r % 4;
		*r0 = G.half ? 0 : (q % 2) * G.R + T;
		*c0 = 2 * (q / 2) + j;
	} else if (what == WL_B) {
		*r0 = 2 * (r % 2) + j;
		*c0 = r / 2;
	} else {   /* r = ((2T + h) 2 + jj) Ct + C */
		int C = r % G.Ct, jj = r / G.Ct % 2, h = r / G.Ct / 2 % 2, T = r / G.Ct / 4;
		*r0 = G.half ? 0 : h * G.R + T;
		*c0 = jj * G.Ct + C;
	}
}

/* One piece of a fragment in memory, at element (major, minor) of the layout's leading
 * dimension: a whole 32-bit register (half -1), the halves j of register reg and of its
 * neighbour `partner` as one 32-bit word, or one half alone (partner -1). */
typedef struct wunit {
	int major, minor, reg, half, partner;
	iarg tmp;        /* where a word or a half was loaded */
} wunit;

static int unit_cmp(const void *x, const void *y)
{
	const wunit *a = x, *b = y;
	return a->major != b->major ? a->major - b->major : a->minor - b->minor;
}

static int is_word(const wunit *u)
{
	return u->half < 0 || u->partner >= 0;
}

/* The pieces of a fragment: whole registers where their halves are neighbours in memory,
 * else pairs of registers whose halves are (a 32-bit word for each half, then byte
 * permutes), else halves one at a time. */
static int fragment_units(const wform *f, int what, int col, wunit *u)
{
	int regs = frag_regs(f, what), half = what <= WL_B, n = 0;
	int mj[16][2], mn[16][2], used[16] = { 0 };
	for (int r = 0; r < regs; r++)
		for (int j = 0; j < (half ? 2 : 1); j++) {
			int r0, c0;
			elem_pos(f, what, r, j, &r0, &c0);
			mj[r][j] = col ? c0 : r0;
			mn[r][j] = col ? r0 : c0;
		}
	for (int r = 0; r < regs; r++) {
		if (used[r])
			continue;
		used[r] = 1;
		if (!half || (mj[r][1] == mj[r][0] && mn[r][1] == mn[r][0] + 1)) {
			u[n++] = (wunit){ mj[r][0], mn[r][0], r, -1, -1, { 0 } };
			continue;
		}
		int p = -1;
		for (int q = 0; q < regs && p < 0; q++)
			if (!used[q] && mj[q][0] == mj[r][0] && mn[q][0] == mn[r][0] + 1 &&
			    mj[q][1] == mj[r][1] && mn[q][1] == mn[r][1] + 1)
				p = q;
		if (p >= 0)
			used[p] = 1;
		for (int j = 0; j < 2; j++)
			u[n++] = (wunit){ mj[r][j], mn[r][j], r, j, p, { 0 } };
	}
	qsort(u, (size_t)n, sizeof(*u), unit_cmp);
	return n;
}

/* Loads and stores: op[vec] the fragment, op[mem] the matrix, op[2] the stride if given. */
static int build_mem(iseq *S, const pinst *I, const pmods *M, const wform *f)
{
	int store = f->what == WL_D, vec = store ? 1 : 0, mem = store ? 0 : 1;
	int regs = frag_regs(f, f->what), size = f->what <= WL_B ? 2 : 4;
	int shared = f->space == 2, col = f->col[0];
	iarg base;
	paddr P;
	if (I->nops < 2 || I->nops > 3 || ptxl_vec_len(I->op[vec]) != regs || ptxl_addr_parse(I->op[mem], &P))
		return -1;
	if (P.kind == AB_REG && !P.off && M->ctx->regs &&
	    ptxl_reg_width(M->ctx->regs, P.base) == (shared ? RW_32 : RW_64))
		base = ir_obase(mem);   /* the register itself */
	else if (ptxl_addr_temp(S, I, M, mem, !shared, &base))
		return -1;
	int rows = f->what == WL_A ? f->m : f->what == WL_B ? f->k : f->m;
	int cols = f->what == WL_A ? f->k : f->what == WL_B ? f->n : f->n;
	lanecoef L = lane_coef(f, f->what);
	int mg = col ? L.cg : L.rg, mt = col ? L.ct : L.rt, ng = col ? L.rg : L.cg, nt = col ? L.rt : L.ct;
	int imm_stride = I->nops < 3 || (I->op[2][0] >= '0' && I->op[2][0] <= '9');
	long long sv = I->nops == 3 && imm_stride ? strtoll(I->op[2], NULL, 0) : col ? rows : cols;
	/* The lane's first element: (mg g + mt t) stride + ng g + nt t (one of each pair is 0);
	 * its byte address. */
	iarg lane = ir_r(S), g = ir_r(S), t = ir_r(S), x = ir_r(S), stride = ir_r(S), a;
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "shr.u32", g, lane, ir_imm(2));
	E(S, "and.b32", t, lane, ir_imm(3));
	if (imm_stride) {   /* x = major_coef * stride * (g or t) + minor_coef * (t or g) */
		E(S, "mul.lo.u32", x, nt ? t : g, ir_imm((uint64_t)(nt ? nt : ng)));
		E(S, "mad.lo.u32", x, mg ? g : t, ir_imm((uint64_t)((mg ? mg : mt) * sv)), x);
	} else {
		iarg major = ir_r(S);
		E(S, "mov.u32", stride, ir_opnd(2));
		E(S, "mul.lo.u32", major, mg ? g : t, ir_imm((uint64_t)(mg ? mg : mt)));
		E(S, "mul.lo.u32", x, nt ? t : g, ir_imm((uint64_t)(nt ? nt : ng)));
		E(S, "mad.lo.u32", x, major, stride, x);
	}
	if (shared) {
		a = ir_r(S);
		E(S, "mad.lo.u32", a, x, ir_imm((uint64_t)size), base);
	} else {
		a = ir_d(S);
		E(S, "mul.wide.u32", a, x, ir_imm((uint64_t)size));
		E(S, "add.s64", a, a, base);
	}
	/* The lane's address is aligned as its row or column (16 bytes or more) and its place
	 * in it, nt t + ng g elements. */
	int align = 16;
	while (align > size && ((nt * size) % align || (ng * size) % align))
		align /= 2;
	wunit u[32];
	int n = fragment_units(f, f->what, col, u);
	const char *sp = shared ? ".shared" : f->space == 1 ? ".global" : "";
	iarg rowaddr = a;
	int rowmajor = 0;
	for (int i = 0; i < n;) {
		int len = 1;   /* a run of 32-bit words in one row: one vector access */
		while (is_word(&u[i]) && i + len < n && len < 4 && is_word(&u[i + len]) &&
		       u[i + len].major == u[i].major && u[i + len].minor == u[i].minor + len * (4 / size))
			len++;
		while (len > 1 && (len == 3 || (u[i].minor * size) % (len * 4) || len * 4 > align))
			len = len == 3 ? 2 : len / 2;
		if (u[i].major != rowmajor && !imm_stride) {   /* that row's address */
			iarg y = ir_r(S);
			E(S, "mul.lo.u32", y, stride, ir_imm((uint64_t)(u[i].major * size)));
			if (shared) {
				rowaddr = ir_r(S);
				E(S, "add.u32", rowaddr, a, y);
			} else {
				iarg w = ir_d(S);
				rowaddr = ir_d(S);
				E(S, "cvt.u64.u32", w, y);
				E(S, "add.s64", rowaddr, a, w);
			}
			rowmajor = u[i].major;
		}
		long long off = ((imm_stride ? (long long)u[i].major * sv : 0) + u[i].minor) * size;
		char op[48];
		if (!is_word(&u[i])) {   /* a half alone */
			u[i].tmp = ir_h(S);
			snprintf(op, sizeof(op), "ld%s.b16", sp);
			EG(S, op, u[i].tmp, ir_mem(rowaddr, off));
			i++;
			continue;
		}
		iarg list[4];
		for (int k = 0; k < len; k++)
			list[k] = u[i + k].half < 0 ? ir_vec(vec, u[i + k].reg) : (u[i + k].tmp = ir_r(S));
		snprintf(op, sizeof(op), "%s%s%s.b32", store ? "st" : "ld", sp,
			 len == 4 ? ".v4" : len == 2 ? ".v2" : "");
		iarg l = len > 1 ? ptxl_ir_anylist(S, list, len) : list[0];
		if (store)
			EG(S, op, ir_mem(rowaddr, off), l);
		else
			EG(S, op, l, ir_mem(rowaddr, off));
		i += len;
	}
	/* Registers made of halves: a pair's words W0 (halves 0) and W1 (halves 1) give the
	 * register (low halves) and its partner (high halves); lone halves are packed. */
	for (int i = 0; i < n; i++) {
		if (u[i].half != 0)
			continue;
		int k = 0;
		while (k < n && !(u[k].reg == u[i].reg && u[k].half == 1))
			k++;
		if (k == n)
			return -1;
		if (u[i].partner >= 0) {
			EG(S, "prmt.b32", ir_vec(0, u[i].reg), u[i].tmp, u[k].tmp, ir_imm(0x5410));
			EG(S, "prmt.b32", ir_vec(0, u[i].partner), u[i].tmp, u[k].tmp, ir_imm(0x7632));
		} else {
			EG(S, "mov.b32", ir_vec(0, u[i].reg), ptxl_ir_anylist(S, (iarg[]){ u[i].tmp, u[k].tmp }, 2));
		}
	}
	return 0;
}

/* wmma.mma d, a, b, c: the helper of its shape (emit_wmma_mma.c). */
static int build_mma(iseq *S, const pinst *I, const pmods *M, const wform *f)
{
	int na = frag_regs(f, WL_A), nb = frag_regs(f, WL_B);
	if (I->nops != 4 || ptxl_vec_len(I->op[0]) != 8 || ptxl_vec_len(I->op[1]) != na ||
	    ptxl_vec_len(I->op[2]) != nb || ptxl_vec_len(I->op[3]) != 8)
		return -1;
	iarg a[8], b[8], c[8], d[8];
	for (int j = 0; j < 8; j++) {
		a[j] = ir_vec(1, j < na ? j : 0);
		b[j] = ir_vec(2, j < nb ? j : 0);
		c[j] = ir_vec(3, j);
		d[j] = ir_vec(0, j);
	}
	hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_WMMA;
	k.target = (uint8_t)M->ctx->target;
	k.m = (uint8_t)f->m, k.n = (uint8_t)f->n, k.k = (uint8_t)f->k;
	const char *name = ptxl_helper_use(M->ctx->helpers, &k);
	const iarg *op[HP_COUNT] = { a, b, c, NULL, d };
	return name ? ptxl_helper_call(S, name, &k, op) : -1;
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

