/* emit_matrix.c: ldmatrix and movmatrix (sm_75) for sm_70 and older, with shfl.sync and
 * shared-memory loads; the result is bit-identical (data movement only).
 *
 * ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 (PTX ISA 9.7.14.5.15): lanes
 * 8i..8i+7 give the row addresses of matrix i; lane l's register i holds row l / 4,
 * columns 2 (l % 4) and 2 (l % 4) + 1 (low half first), or with .trans the column l / 4 of
 * rows 2 (l % 4) and 2 (l % 4) + 1.  Here each lane fetches the address of the row it needs
 * from the lane that gave it (shfl.sync.idx) and loads its four bytes (two halves for
 * .trans) itself.
 * stmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 [p], {r} (sm_90; 9.7.14.5.16) is the
 * same the other way: each lane fetches the address of its row and stores its four bytes
 * (two halves, each to its own row, for .trans).
 * movmatrix.sync.aligned.m8n8.trans.b16 d, a (9.7.14.5.17): d holds what a holds in
 * ldmatrix's layout, transposed: lane l's halves are a's (2t, g) and (2t + 1, g) with
 * g = l / 4, t = l % 4, which lanes 8t + g / 2 and 8t + 4 + g / 2 hold in their halves g % 2. */
#include <string.h>

#include "lower_internal.h"

#define ALL ir_imm(0xffffffffu)

/* The words of ldmatrix, in any order: count of matrices, .trans, .shared; -1 if other. */
static int ldmatrix_form(const pinst *I, int *n, int *trans, int *shared)
{
	int sync = 0, aligned = 0, shape = 0, b16 = 0;
	*n = *trans = *shared = 0;
	for (int i = 1; i < I->nwords; i++) {
		const char *w = I->word[i];
		if (!strcmp(w, "sync"))
			sync = 1;
		else if (!strcmp(w, "aligned"))
			aligned = 1;
		else if (!strcmp(w, "m8n8"))
			shape = 1;
		else if (!strcmp(w, "b16"))
			b16 = 1;
		else if (!strcmp(w, "trans"))
			*trans = 1;
		else if (!strcmp(w, "shared") || !strcmp(w, "shared::cta"))
			*shared = 1;
		else if (!strcmp(w, "x1") || !strcmp(w, "x2") || !strcmp(w, "x4"))
			*n = w[1] - '0';
		else
			return -1;
	}
	return sync && aligned && shape && b16 && *n ? 0 : -1;
}

int ptxl_need_ldmatrix(const pinst *I, const lctx *ctx)
{
	int n, trans, shared;
	(void)ctx;
	return ldmatrix_form(I, &n, &trans, &shared) ? 0 : !strcmp(I->word[0], "stmatrix") ? 90 : 75;
}

/* The row address lane src gave, plus off bytes: a .b32 for shared memory, .b64 generic. */
static iarg row_addr(iseq *S, iarg addr, iarg src, int wide, iarg off)
{
	iarg a;
	if (!wide) {
		a = ir_r(S);
		E(S, "shfl.sync.idx.b32", a, addr, src, ir_imm(31), ALL);
		E(S, "add.s32", a, a, off);
		return a;
	}
	iarg half = ptxl_ir_temps(S, IA_R, 2), got = ptxl_ir_temps(S, IA_R, 2), o64 = ir_d(S);
	a = ir_d(S);
	E(S, "mov.b64", ir_tvec(half, 2), addr);
	E(S, "shfl.sync.idx.b32", got, half, src, ir_imm(31), ALL);
	E(S, "shfl.sync.idx.b32", ir_el(got, 1), ir_el(half, 1), src, ir_imm(31), ALL);
	E(S, "mov.b64", a, ir_tvec(got, 2));
	E(S, "cvt.u64.u32", o64, off);
	E(S, "add.s64", a, a, o64);
	return a;
}

int ptxl_build_ldmatrix(iseq *S, const pinst *I, const pmods *M)
{
	int n, trans, shared, st = !strcmp(I->word[0], "stmatrix");
	int regs = st ? 1 : 0, mem = st ? 0 : 1;    /* stmatrix [p], {r}: the other way round */
	iarg addr;
	if (ldmatrix_form(I, &n, &trans, &shared) || I->nops != 2 || ptxl_vec_len(I->op[regs]) != n ||
	    ptxl_addr_temp(S, I, M, mem, !shared, &addr))
		return -1;
	const char *ld32 = shared ? "ld.shared.b32" : "ld.b32", *ld16 = shared ? "ld.shared.b16" : "ld.b16";
	const char *st32 = shared ? "st.shared.b32" : "st.b32", *st16 = shared ? "st.shared.b16" : "st.b16";
	iarg lane = ir_r(S), g = ir_r(S), t = ir_r(S), off = ir_r(S);
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "shr.u32", g, lane, ir_imm(2));
	E(S, "and.b32", t, lane, ir_imm(3));
	if (trans) {   /* rows 2t and 2t + 1, column g: byte 2g of each */
		E(S, "shl.b32", t, t, ir_imm(1));
		E(S, "shl.b32", off, g, ir_imm(1));
	} else {       /* row g, columns 2t and 2t + 1: bytes 4t..4t+3 */
		E(S, "shl.b32", off, t, ir_imm(2));
	}
	for (int i = 0; i < n; i++) {
		iarg src = ir_r(S);
		E(S, "or.b32", src, trans ? t : g, ir_imm((uint64_t)(8 * i)));
		if (!trans) {
			iarg a = row_addr(S, addr, src, !shared, off);
			if (st)
				EG(S, st32, ir_mem(a, 0), ir_vec(1, i));
			else
				EG(S, ld32, ir_vec(0, i), ir_mem(a, 0));
			continue;
		}
		iarg h = ptxl_ir_temps(S, IA_H, 2), src1 = ir_r(S);
		E(S, "add.s32", src1, src, ir_imm(1));
		iarg a0 = row_addr(S, addr, src, !shared, off), a1 = row_addr(S, addr, src1, !shared, off);
		if (st) {
			E(S, "mov.b32", ir_tvec(h, 2), ir_vec(1, i));
			EG(S, st16, ir_mem(a0, 0), h);
			EG(S, st16, ir_mem(a1, 0), ir_el(h, 1));
			continue;
		}
		EG(S, ld16, h, ir_mem(a0, 0));   /* under the guard, as the other loads */
		EG(S, ld16, ir_el(h, 1), ir_mem(a1, 0));
		EG(S, "mov.b32", ir_vec(0, i), ir_tvec(h, 2));
	}
	return 0;
}

int ptxl_need_movmatrix(const pinst *I, const lctx *ctx)
{
	(void)ctx;
	return I->nwords == 6 && !strcmp(I->word[1], "sync") && !strcmp(I->word[2], "aligned") &&
	       !strcmp(I->word[3], "m8n8") && !strcmp(I->word[4], "trans") &&
	       !strcmp(I->word[5], "b16") ? 75 : 0;
}

int ptxl_build_movmatrix(iseq *S, const pinst *I, const pmods *M)
{
	(void)M;
	if (I->nops != 2)
		return -1;
	iarg lane = ir_r(S), g = ir_r(S), src0 = ir_r(S), src1 = ir_r(S), v0 = ir_r(S), v1 = ir_r(S);
	iarg odd = ir_p(S), sel = ir_r(S), t = ir_r(S);
	E(S, "mov.u32", lane, ir_text("%laneid"));
	E(S, "shr.u32", g, lane, ir_imm(2));
	E(S, "and.b32", t, lane, ir_imm(3));
	E(S, "shl.b32", t, t, ir_imm(3));
	E(S, "shr.u32", src0, g, ir_imm(1));
	E(S, "or.b32", src0, src0, t);          /* 8t + g / 2 */
	E(S, "or.b32", src1, src0, ir_imm(4));
	E(S, "shfl.sync.idx.b32", v0, ir_opnd(1), src0, ir_imm(31), ALL);
	E(S, "shfl.sync.idx.b32", v1, ir_opnd(1), src1, ir_imm(31), ALL);
	E(S, "and.b32", t, g, ir_imm(1));
	E(S, "setp.ne.u32", odd, t, ir_imm(0));
	/* prmt: bytes 0-1 of v0 and of v1 (0x5410), or bytes 2-3 of each (0x7632) */
	E(S, "selp.b32", sel, ir_imm(0x7632), ir_imm(0x5410), odd);
	EG(S, "prmt.b32", ir_opnd(0), v0, v1, sel);
	return 0;
}
