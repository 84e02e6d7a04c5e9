/* mma.h: the warp-level matrix engine shared by mma (ops_mma.c) and wmma (ops_wmma.c):
 * where each fragment element lives, and D = A * B + C computed as the tensor cores do
 * (tcore.c). */
#ifndef PTX_MMA_H
#define PTX_MMA_H

#include "ptx_internal.h"

/* How fragments map to matrix elements (pmx.kind). */
enum {
	MXK_MMA,      /* mma shapes but m8n8k4.f16: the PTX ISA's tables, 9.7.14.5.x */
	MXK_MMA884,   /* mma.m8n8k4 with .f16: four 8x8x4 products, one per quad-pair */
	MXK_WMMA,     /* wmma: this simulator's layout (tcore.c), the ISA leaves it open */
};
enum { FR_A, FR_B, FR_C, FR_D };

/* Bits of one element in its register (f64: 64, one per register). */
int ptx__mx_bits(int t);
/* Matrix element (row, col) that element j of fragment register r holds in lane l;
 * returns 0 when the register is a copy the warp holds twice (wmma .f16 A and B). */
int ptx__mx_pos(const pmx *x, int which, int lane, int r, int j, int *row, int *col);
/* Rows and columns of a fragment's matrix: A is m x k, B k x n, C and D m x n. */
void ptx__mx_dims(const pmx *x, int which, int *rows, int *cols);
/* Registers of a fragment that hold distinct elements (the rest repeat them). */
int ptx__mx_unique(const pmx *x, int which);
/* Lays out, once at load, where each fragment element of x goes in the engine's matrices
 * (x->tab); 0, or -1 when out of memory. */
int ptx__mx_prepare(pdec *D, pmx *x);
/* D = A * B + C over the warp's registers (x->r: d, a, b, c). */
void ptx__mx_exec(pwarp *w, const pmx *x);
/* mma.sp: fails the launch where the metadata selects an element twice (or out of order
 * for ::ordered_metadata), which the ISA leaves undefined (9.7.14.6.1); 0 if none does. */
int ptx__mx_sparse_check(pwarp *w, const pinsn *in, const pmx *x);
/* The handler of mma and wmma.mma: the whole warp, then the engine. */
int ptx__x_mx(pwarp *w, const pinsn *in, uint32_t m);
/* Decodes the rest of mma / wmma.mma: .f64 rounding, then the operand lists d, a, b, c
 * (x->na and x->nb set by the caller), and checks nothing is left over (ops_mma.c). */
int ptx__dec_mx_operands(pdec *D, pmx *x);
/* Products accumulated at once by the tensor cores of device_sm (tcore.c). */
int ptx__mx_block(int device_sm, int atype, int k);

#endif
