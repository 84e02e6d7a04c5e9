/* ops_matrix.c: warp-wide 8x8 matrix moves of 16-bit elements: ldmatrix (PTX ISA
 * 9.7.14.5.15), stmatrix (9.7.14.5.16) and movmatrix (9.7.14.5.17).
 *
 * ldmatrix/stmatrix .m8n8.xN: lanes 8i..8i+7 give the addresses of the 8 rows (16 bytes
 * each) of matrix i; lane l's register i holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1
 * of matrix i (low half first), or with .trans row and column swapped.  Row addresses must be
 * 16-byte aligned and in shared memory; lanes beyond 8N give no address. */
#include <stdio.h>
#include <string.h>

#include "ptx_internal.h"

enum { MX_LD, MX_ST, MX_MOV };

/* Host pointer of the 16-byte row that lane l addresses (in->space: shared or generic). */
static uint8_t *row_ptr(pwarp *w, const pinsn *in, uint32_t l, int write, int *st)
{
	uint64_t a = R(in->s[4])[l] + (uint64_t)in->off;
	if (in->flags & F_ADDR32)
		a = (uint32_t)a;
	if (in->space == SP_GENERIC) {
		if (a - SHARED_BASE >= WINDOW_SIZE) {
			*st = ptx__fault(w, in, (int)l, PTX_EFAULT, "%s address 0x%llx is not in shared "
					 "memory", ptx__op_name(in->op), (unsigned long long)a);
			return NULL;
		}
		a -= SHARED_BASE;
	}
	if (a & 15) {
		*st = ptx__fault(w, in, (int)l, PTX_EMISALIGNED, "misaligned address: %s row address "
				 "0x%llx is not 16-byte aligned", ptx__op_name(in->op),
				 (unsigned long long)(in->space == SP_GENERIC ? a + SHARED_BASE : a));
		return NULL;
	}
	return ptx__mem(w, in, (int)l, SP_SHARED, a, 16, write, st);
}

/* Element (row, col) of matrix i is halfword col of row (8i + row); lane l's register
 * holds halves (r0, c0) and (r0 + dr, c0 + dc). */
static void frag_cells(uint32_t l, int trans, int *r0, int *c0, int *dr, int *dc)
{
	if (trans) {
		*r0 = 2 * (int)(l & 3);
		*c0 = (int)(l >> 2);
		*dr = 1;
		*dc = 0;
	} else {
		*r0 = (int)(l >> 2);
		*c0 = 2 * (int)(l & 3);
		*dr = 0;
		*dc = 1;
	}
}

static int x_ldst(pwarp *w, const pinsn *in, uint32_t m)
{
	int st = ptx__warp_aligned(w, in, m), trans = in->mode2;
	if (st)
		return st;
	uint16_t mat[4][8][8];
	int nmat = in->vec, write = in->mode == MX_ST;
	uint8_t *rows[4][8];
	for (int i = 0; i < nmat; i++)
		for (int r = 0; r < 8; r++) {
			rows[i][r] = row_ptr(w, in, (uint32_t)(8 * i + r), write, &st);
			if (!rows[i][r])
				return st;
			if (!write)
				memcpy(mat[i][r], rows[i][r], 16);
		}
	for (int i = 0; i < nmat; i++) {
		uint64_t *R = R(write ? in->s[i] : in->d[i]);
		for (uint32_t l = 0; l < WARP; l++) {
			int r0, c0, dr, dc;
			frag_cells(l, trans, &r0, &c0, &dr, &dc);
			if (write) {
				mat[i][r0][c0] = (uint16_t)R[l];
				mat[i][r0 + dr][c0 + dc] = (uint16_t)(R[l] >> 16);
			} else {
				R[l] = (uint64_t)mat[i][r0][c0] | (uint64_t)mat[i][r0 + dr][c0 + dc] << 16;
			}
		}
	}
	if (write)
		for (int i = 0; i < nmat; i++)
			for (int r = 0; r < 8; r++)
				memcpy(rows[i][r], mat[i][r], 16);
	return 0;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: the matrix a holds (ldmatrix's layout),
 * transposed. */
static int x_movmatrix(pwarp *w, const pinsn *in, uint32_t m)
{
	int st = ptx__warp_aligned(w, in, m);
	if (st)
		return st;
	uint16_t mat[8][8];
	const uint64_t *A = R(in->s[0]);
	for (uint32_t l = 0; l < WARP; l++) {
		mat[l >> 2][2 * (l & 3)] = (uint16_t)A[l];
		mat[l >> 2][2 * (l & 3) + 1] = (uint16_t)(A[l] >> 16);
	}
	uint64_t *d = R(in->d[0]);
	for (uint32_t l = 0; l < WARP; l++)
		d[l] = (uint64_t)mat[2 * (l & 3)][l >> 2] | (uint64_t)mat[2 * (l & 3) + 1][l >> 2] << 16;
	return 0;
}

int ptx__dec_matrix(pdec *D)
{
	pinsn *in = D->in;
	if (!dx_take(D, W_sync) || !dx_take(D, W_aligned) || !dx_take(D, W_m8n8) ||
	    dx_ntypes(D) != 1 || dx_type(D, 0) != T_b16)
		return dx_bad(D);
	in->mode2 = (uint8_t)dx_take(D, W_trans);
	if (in->op == OP_movmatrix) {
		if (!in->mode2 || dx_nops(D, 2, 2))
			return dx_bad(D);
		in->mode = MX_MOV;
		in->d[0] = dx_dst(D, 0);
		in->s[0] = dx_src(D, 1, T_b32);
		in->fn = x_movmatrix;
		return dx_done(D);
	}
	int n = dx_take(D, W_x1) ? 1 : dx_take(D, W_x2) ? 2 : dx_take(D, W_x4) ? 4 : 0;
	int space = dx_take_space(D);
	if (!n || (space != -1 && space != SP_SHARED) || dx_nops(D, 2, 2))
		return dx_bad(D);
	in->mode = in->op == OP_ldmatrix ? MX_LD : MX_ST;
	in->vec = (uint8_t)n;
	in->space = (uint8_t)(space < 0 ? SP_GENERIC : SP_SHARED);
	int ld = in->mode == MX_LD;
	if (dx_addr(D, ld ? 1 : 0) < -1)
		return -1;
	uint32_t regs[4];
	if (dx_reglist(D, ld ? 0 : 1, n, ld, T_b32, regs))
		return -1;
	for (int i = 0; i < n; i++) {
		if (ld)
			in->d[i] = regs[i];
		else
			in->s[i] = regs[i];
	}
	in->fn = x_ldst;
	return dx_done(D);
}
