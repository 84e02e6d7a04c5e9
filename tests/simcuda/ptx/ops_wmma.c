/* ops_wmma.c: warp-level matrix multiply-accumulate (PTX ISA 9.7.14.4, wmma), the
 * m16n16k16 shape with f16 multiplicands and f16 or f32 accumulators:
 *   wmma.load.{a,b,c}.sync{.aligned}.{row,col}.m16n16k16{.global,.shared}.type r, [p]{, stride}
 *   wmma.store.d.sync{.aligned}.{row,col}.m16n16k16{.global,.shared}.type [p], r{, stride}
 *   wmma.mma.sync{.aligned}.{row,col}.{row,col}.m16n16k16.dtype.ctype d, a, b, c
 * A fragment's distribution over the lanes is unspecified by the ISA ("the layout of
 * the fragments held by different threads is unspecified"), so any layout the three
 * instructions agree on is faithful.  Here lane l holds the elements l*8 .. l*8+7 of the
 * matrix in row-major order: an f16 a/b fragment has them as halves of registers 0-3 and
 * again in registers 4-7 (the ISA gives a/b eight .f16x2 registers, twice what 256
 * elements need); an f32 accumulator one per register, an f16 one two per register.
 * The rules the CUDA C++ Programming Guide states for load_matrix_sync and
 * store_matrix_sync ("Warp Matrix Functions") are enforced with a trap: the whole warp
 * executes the instruction, with one address and one stride; the address is 256-bit
 * aligned and the stride a multiple of 16 bytes.  Products of f16 values are exact in
 * f32; each element of d is c plus the 16 products added in k order, each addition
 * rounded to f32 (an f16 d is that sum rounded to f16 once).  Memory traffic is counted
 * once per element, as the warp's one access to the tile. */
#include <string.h>

#include "parse.h"

#define DIM 16
#define ELEMS (DIM * DIM)
#define PER_LANE (ELEMS / WARP)

enum { WM_LOAD, WM_STORE, WM_MMA };
enum { MAT_A, MAT_B, MAT_C, MAT_D };

/* mode2 bits: memory layout of a load/store (col-major), or of mma's a and b. */
#define L_COL 1u
#define L_BCOL 2u

/* Registers of a fragment of type t for matrix `mat`. */
static int frag_regs(int mat, int t)
{
	return mat <= MAT_B || t == T_f32 ? 8 : 4;
}

static const uint32_t *regs_of(const pwarp *w, const pinsn *in, int first)
{
	return w->b->m->regl + in->aux + (uint32_t)first;
}

/* Element e of the row-major tile held by lane l: register and half (or -1: whole). */
static void slot_of_elem(int e, int t, int mat, int *reg, int *half)
{
	int q = e % PER_LANE;
	if (mat <= MAT_B || t == T_f16) {
		*reg = q / 2;
		*half = q % 2;
	} else {
		*reg = q;
		*half = -1;
	}
}

static uint64_t get_elem(const pwarp *w, const uint32_t *regs, int e, int t, int mat)
{
	int reg, half;
	slot_of_elem(e, t, mat, &reg, &half);
	uint64_t v = R(regs[reg])[e / PER_LANE];
	return half < 0 ? (uint32_t)v : (v >> (16 * half)) & 0xffff;
}

static void set_elem(pwarp *w, const uint32_t *regs, int e, int t, int mat, uint64_t bits)
{
	int reg, half;
	slot_of_elem(e, t, mat, &reg, &half);
	uint64_t *r = &R(regs[reg])[e / PER_LANE];
	if (half < 0) {
		*r = (uint32_t)bits;
		return;
	}
	uint64_t mask = 0xffffull << (16 * half);
	*r = (*r & ~mask & 0xffffffffull) | ((bits & 0xffff) << (16 * half));
	if (mat <= MAT_B) /* the copy in registers 4-7 */
		R(regs[reg + 4])[e / PER_LANE] = *r;
}

/* The warp's one address and stride; 0, or the trap already reported. */
static int warp_access(pwarp *w, const pinsn *in, uint32_t m, uint64_t *addr, uint64_t *stride)
{
	const uint64_t *A = R(in->s[4]);
	const uint64_t *S = in->s[0] != NOREG ? R(in->s[0]) : NULL;
	uint32_t esz = (uint32_t)ptx__type_size(in->t);

	if (m != FULL_MASK)
		return ptx__fault(w, in, (int)__builtin_ctz(~m), PTX_ETRAP,
				  "wmma executed by part of a warp (mask 0x%08x)", m);
	*addr = A[0] + (uint64_t)in->off;
	*stride = S ? (uint32_t)S[0] : DIM;
	for (int l = 1; l < WARP; l++)
		if (A[l] + (uint64_t)in->off != *addr || (S && (uint32_t)S[l] != *stride))
			return ptx__fault(w, in, l, PTX_ETRAP,
					  "wmma with a different address or stride in lane %d", l);
	if (*addr % 32 || (*stride * esz) % 16)
		return ptx__fault(w, in, 0, PTX_ETRAP,
				  "wmma at 0x%llx with stride %llu: the address must be 32-byte "
				  "aligned and the stride a multiple of 16 bytes",
				  (unsigned long long)*addr, (unsigned long long)*stride);
	return 0;
}

/* Byte offset of element (r, c) of the tile in memory. */
static uint64_t elem_offset(const pinsn *in, int r, int c, uint64_t stride)
{
	uint64_t esz = (uint64_t)ptx__type_size(in->t);
	return in->mode2 & L_COL ? ((uint64_t)c * stride + (uint64_t)r) * esz
				 : ((uint64_t)r * stride + (uint64_t)c) * esz;
}

static int x_wmma_mem(pwarp *w, const pinsn *in, uint32_t m)
{
	uint64_t addr = 0, stride = 0;
	uint32_t esz = (uint32_t)ptx__type_size(in->t);
	int st = warp_access(w, in, m, &addr, &stride), mat = in->mode == WM_STORE ? MAT_D : in->rnd;
	const uint32_t *regs = regs_of(w, in, 0);

	if (st)
		return st;
	for (int e = 0; e < ELEMS; e++) {
		uint8_t *p = ptx__mem(w, in, 0, in->space, addr + elem_offset(in, e / DIM, e % DIM, stride),
				      esz, in->mode == WM_STORE, &st);
		if (!p)
			return st;
		uint64_t v = 0;
		if (in->mode == WM_STORE) {
			v = get_elem(w, regs, e, in->t, mat);
			memcpy(p, &v, esz);
		} else {
			memcpy(&v, p, esz);
			set_elem(w, regs, e, in->t, mat, v);
		}
	}
	return 0;
}

static float f16_value(uint64_t h)
{
	return (float)ptx__half_to_double((uint32_t)h, FMT_F16);
}

static int x_wmma_mma(pwarp *w, const pinsn *in, uint32_t m)
{
	const uint32_t *d = regs_of(w, in, 0), *a, *b, *c;
	int dn = frag_regs(MAT_D, in->t), cn = frag_regs(MAT_C, in->t2);
	float A[ELEMS], B[ELEMS], C[ELEMS];

	if (m != FULL_MASK)
		return ptx__fault(w, in, (int)__builtin_ctz(~m), PTX_ETRAP,
				  "wmma executed by part of a warp (mask 0x%08x)", m);
	a = regs_of(w, in, dn);
	b = regs_of(w, in, dn + 8);
	c = regs_of(w, in, dn + 16);
	(void)cn;
	for (int e = 0; e < ELEMS; e++) {
		uint64_t cv = get_elem(w, c, e, in->t2, MAT_C);
		A[e] = f16_value(get_elem(w, a, e, T_f16, MAT_A));
		B[e] = f16_value(get_elem(w, b, e, T_f16, MAT_B));
		C[e] = in->t2 == T_f32 ? f32_of(cv) : f16_value(cv);
	}
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			float acc = C[i * DIM + j];
			for (int kk = 0; kk < DIM; kk++)
				acc += A[i * DIM + kk] * B[kk * DIM + j]; /* the product is exact */
			uint64_t bits = in->t == T_f32 ? of_f32(acc)
						       : ptx__round_double(acc, FMT_F16, RND_RN, 0);
			set_elem(w, d, i * DIM + j, in->t, MAT_D, bits);
		}
	return 0;
}

/* Appends a fragment's registers to the module's lists; n must match the fragment. */
static int take_list(pdec *D, int i, int n, int dst)
{
	const popnd *o = &D->ops[i];
	ptx_module *mod = D->P->m;
	uint32_t *l;

	if (o->kind != O_VEC || o->n != n)
		return dx_fail(D, PTX_ESYNTAX, "Argument vector size mismatch for instruction '%s'",
			       D->text);
	l = ptx__grow(D->P, mod->regl, &mod->regl_cap, mod->nregl + (uint32_t)n, sizeof *l);
	if (!l)
		return -1;
	mod->regl = l;
	for (int k = 0; k < n; k++) {
		const popnd *e = &o->elem[k];
		if (e->kind != O_REG || TAG_KIND(e->reg) != TAG_GPR || e->neg)
			return dx_fail(D, PTX_ESYNTAX, "operands of '%s' must be registers", D->text);
		l[mod->nregl++] = dst ? dx_elem_dst(D, e) : e->reg;
	}
	D->in->vec = (uint8_t)(D->in->vec + n);
	return 0;
}

int ptx__dec_wmma(pdec *D)
{
	pinsn *in = D->in;
	int kind = dx_take(D, W_load) ? WM_LOAD : dx_take(D, W_store) ? WM_STORE :
		   dx_take(D, W_mma) ? WM_MMA : -1;
	int mat = dx_take(D, W_a) ? MAT_A : dx_take(D, W_b) ? MAT_B : dx_take(D, W_c) ? MAT_C :
		  dx_take(D, W_d) ? MAT_D : -1;
	int sync = dx_take(D, W_sync);

	dx_take(D, W_aligned);
	in->aux = D->P->m->nregl;
	in->vec = 0;
	in->mode = (uint8_t)(kind < 0 ? 0 : kind);
	if (kind < 0 || !sync)
		return dx_bad(D);
	if (kind == WM_MMA) {
		int al = dx_take(D, W_col) ? 1 : (dx_take(D, W_row), 0);
		int bl = dx_take(D, W_col) ? 1 : (dx_take(D, W_row), 0);
		if (mat >= 0 || !dx_take(D, W_m16n16k16) || dx_ntypes(D) != 2 || dx_nops(D, 4, 4))
			return dx_fail(D, PTX_EUNKNOWN, "'%s' is not implemented", D->text);
		in->t = (uint8_t)dx_type(D, 0);
		in->t2 = (uint8_t)dx_type(D, 1);
		if ((in->t != T_f16 && in->t != T_f32) || (in->t2 != T_f16 && in->t2 != T_f32))
			return dx_fail(D, PTX_EUNKNOWN, "'%s' is not implemented", D->text);
		in->mode2 = (uint8_t)((al ? L_COL : 0) | (bl ? L_BCOL : 0));
		if (take_list(D, 0, frag_regs(MAT_D, in->t), 1) || take_list(D, 1, 8, 0) ||
		    take_list(D, 2, 8, 0) || take_list(D, 3, frag_regs(MAT_C, in->t2), 0))
			return -1;
		in->fn = x_wmma_mma;
		return dx_done(D);
	}
	int col = dx_take(D, W_col) ? 1 : dx_take(D, W_row) ? 0 : -1;
	int space = dx_take_space(D);
	if (col < 0 || mat < 0 || (kind == WM_STORE) != (mat == MAT_D) || !dx_take(D, W_m16n16k16))
		return dx_fail(D, PTX_EUNKNOWN, "'%s' is not implemented", D->text);
	if (space < 0)
		space = SP_GENERIC;
	if (space != SP_GENERIC && space != SP_GLOBAL && space != SP_SHARED)
		return dx_bad(D);
	in->t = (uint8_t)dx_type(D, 0);
	if (dx_ntypes(D) != 1 || (in->t != T_f16 && in->t != T_f32) ||
	    (mat <= MAT_B && in->t != T_f16) || dx_nops(D, 2, 3))
		return dx_fail(D, PTX_EUNKNOWN, "'%s' is not implemented", D->text);
	in->space = (uint8_t)space;
	in->rnd = (uint8_t)mat; /* no rounding here: the matrix a load fills */
	in->mode2 = (uint8_t)(col ? L_COL : 0);
	if (dx_addr(D, kind == WM_LOAD ? 1 : 0) < -1 ||
	    take_list(D, kind == WM_LOAD ? 0 : 1, frag_regs(mat, in->t), kind == WM_LOAD))
		return -1;
	if (D->nops == 3)
		in->s[0] = dx_src(D, 2, T_u32);
	in->fn = x_wmma_mem;
	return dx_done(D);
}
