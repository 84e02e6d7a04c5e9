/* tcore.c: the warp-level matrix engine: which lane holds which element of a fragment, and
 * D = A * B + C computed the way the tensor cores compute it.
 *
 * Fragment layouts of mma are the PTX ISA's, 9.7.14.5.1-13 ("Matrix Fragments for
 * mma.m8n8k4 with .f16 floating point type", "... mma.m8n8k4 with .f64", "... mma.m8n8k16",
 * "... mma.m8n8k32", "... mma.m8n8k128", "... mma.m16n8k4", "... mma.m16n8k8", "... mma.m16n8k16
 * with floating point type", "... mma.m16n8k16 with integer type", "... mma.m16n8k32",
 * "... mma.m16n8k64", "... mma.m16n8k128", "... mma.m16n8k256").  With groupID g = lane / 4,
 * threadID_in_group t = lane % 4 and e elements per 32-bit register, every shape but
 * m8n8k4 .f16 reads:
 *   A (m x k):  register r holds row g (+8 for odd r when m = 16), columns
 *               4e * (m = 16 ? r / 2 : r) + e * t + j, j < e
 *   B (k x n):  register r holds column g, rows 4e * r + e * t + j
 *   C, D:       element i (register i / e) sits at row g + 8 * (i / 2), column 2t + i % 2
 * m8n8k4 .f16 runs four independent 8x8x4 products, one per quad-pair (lanes 4q..4q+3 and
 * 16+4q..16+4q+3), with the table of 9.7.14.5.1.
 *
 * wmma fragments are unspecified (9.7.14.4.1 "Matrix Fragments for WMMA"); here a wmma
 * fragment is the mma fragments of its tiles in order: A of 16 x k (8 x k for m8n32k16)
 * row tiles, B of k x 8 column tiles, C and D of 16 x 8 (8 x 8) tiles in row-major tile
 * order.  .f16 A and B fragments hold eight registers, more than the matrix needs: the rest
 * repeat the first ones (wmma.load writes them, wmma.mma reads only the first).
 *
 * Arithmetic.  The ISA leaves "the accumulation order, rounding and handling of subnormal
 * inputs" unspecified (9.7.14.5.14); the simulator follows the measurements of M. Fasi,
 * N. J. Higham, M. Mikaitis and S. Pranesh, "Numerical behavior of NVIDIA tensor cores",
 * PeerJ Computer Science 7:e330 (2021), on V100, T4 and A100:
 *   - products of f16, bf16 and tf32 elements are exact, subnormals included;
 *   - the products are summed in blocks (4 per block on sm_70 and sm_75; 8 for f16 and bf16,
 *     4 for tf32 on sm_80 and later) together with the running accumulator: every term is
 *     aligned to the largest exponent among them and its bits below the 24th significant
 *     bit of the largest are dropped (toward zero), the aligned terms are added exactly and
 *     the sum is rounded toward zero to f32 once, without normalising in between;
 *   - blocks follow one another in increasing k, each one's result the next accumulator.
 * Not covered by those measurements, and chosen here: a NaN term gives the canonical NaN;
 * an infinite product (or inf * 0) follows IEEE; a sum of 2^128 or more in magnitude is
 * infinite (smaller ones truncate to the largest finite f32); an exact zero is -0 only
 * when every term is -0.  An .f16 D is that f32 result rounded to nearest even; an .f16 C
 * enters as its exact value.  .tf32 elements are the upper 19 bits of their register.
 * Integer mma is exact (.satfinite clamps to the s32 range, else it wraps); .b1 counts
 * bits; .f64 is a chain of fused multiply-adds in k order with the given rounding.
 */
#include <math.h>
#include <string.h>

#include "mma.h"
#include "parse.h"

#define MX_MAXA 4096          /* elements of the largest operand: m16n8k256 .b1 A */

int ptx__mx_bits(int t)
{
	switch (t) {
	case T_f16: case T_bf16: return 16;
	case T_s8: case T_u8: case T_e4m3: case T_e5m2: return 8;
	case T_s4: case T_u4: return 4;
	case T_b1: return 1;
	case T_f64: return 64;
	default: return 32;
	}
}

static int per_reg(int t)
{
	int b = ptx__mx_bits(t);
	return b >= 32 ? 1 : 32 / b;
}

static int frag_type(const pmx *x, int which)
{
	switch (which) {
	case FR_A: return x->at;
	case FR_B: return x->bt;
	case FR_C: return x->ct;
	default: return x->dt;
	}
}

void ptx__mx_dims(const pmx *x, int which, int *rows, int *cols)
{
	*rows = which == FR_B ? x->k : x->m;
	*cols = which == FR_A ? x->k : x->n;
}

int ptx__mx_unique(const pmx *x, int which)
{
	int rows, cols, np = x->kind == MXK_MMA884 ? 4 : 1;
	ptx__mx_dims(x, which, &rows, &cols);
	return np * rows * cols / (WARP * per_reg(frag_type(x, which)));
}

int ptx__mx_pos(const pmx *x, int which, int lane, int r, int j, int *row, int *col)
{
	int t = frag_type(x, which), e = per_reg(t), g = lane >> 2, tg = lane & 3;
	if (r >= ptx__mx_unique(x, which))
		return 0;
	if (x->kind == MXK_MMA884) {
		int hi = lane >= 16 ? 4 : 0, i = r * e + j;
		if (which == FR_A) {
			*row = x->alay ? i + hi : tg + hi;
			*col = x->alay ? tg : i;
		} else if (which == FR_B) {
			*row = x->blay ? i : tg;
			*col = x->blay ? tg + hi : i + hi;
		} else if (t == T_f16) {
			*row = tg + hi;
			*col = i;
		} else {
			*row = (lane & 1) + (i & 2) + hi;
			*col = (i & 4) + (lane & 2) + (i & 1);
		}
		return 1;
	}
	int th = x->m >= 16 ? 16 : 8;
	if (which == FR_A) {
		int rpt = th * x->k / (WARP * e), rr = r % rpt;
		*row = th * (r / rpt) + g + (th == 16 ? 8 * (rr & 1) : 0);
		*col = 4 * e * (th == 16 ? rr >> 1 : rr) + e * tg + j;
	} else if (which == FR_B) {
		int rpt = x->k / (4 * e), rr = r % rpt;
		*row = 4 * e * rr + e * tg + j;
		*col = 8 * (r / rpt) + g;
	} else {
		int i = r * e + j, ept = th / 4, tile = i / ept, ii = i % ept, nt = x->n / 8;
		*row = th * (tile / nt) + g + 8 * (ii >> 1);
		*col = 8 * (tile % nt) + 2 * tg + (ii & 1);
	}
	return 1;
}

int ptx__mx_block(int device_sm, int atype, int k)
{
	int b = k;
	if (atype == T_f16 || atype == T_bf16)
		b = device_sm >= 80 ? 8 : 4;
	else if (atype == T_tf32)
		b = 4;
	else if (atype == T_e4m3 || atype == T_e5m2)
		b = 16;     /* not measured: documented in README.md */
	return b < k ? b : k;
}

/* ------------------------------------------------------------ elements */

static double f16_value(uint32_t h)
{
	uint32_t e = (h >> 10) & 0x1f, f = h & 0x3ff;
	double v;
	if (e == 0x1f)
		v = f ? NAN : INFINITY;
	else if (e == 0)
		v = (double)f * 0x1p-24;
	else
		v = f64_of((uint64_t)(e - 15 + 1023) << 52 | (uint64_t)f << 42);
	return h & 0x8000 ? -v : v;
}

/* e4m3 (ebits 4: no infinities, S.1111.111 is NaN) and e5m2 (IEEE-like), PTX ISA 5.2.5.1. */
static double fp8_value(uint32_t h, int ebits)
{
	int mbits = 7 - ebits, bias = (1 << (ebits - 1)) - 1;
	uint32_t e = (h >> mbits) & ((1u << ebits) - 1), f = h & ((1u << mbits) - 1);
	double v;
	if (ebits == 4 && e == 15 && f == 7)
		v = NAN;
	else if (ebits == 5 && e == 31)
		v = f ? NAN : INFINITY;
	else
		v = e ? ldexp((double)(f | (1u << mbits)), (int)e - bias - mbits)
		      : ldexp((double)f, 1 - bias - mbits);
	return h & 0x80 ? -v : v;
}

static double elem(uint64_t v, int t, int j)
{
	switch (t) {
	case T_f16: return f16_value((uint32_t)(v >> (16 * j)) & 0xffff);
	case T_bf16: return f32_of(((v >> (16 * j)) & 0xffff) << 16);
	case T_tf32: return f32_of(v & 0xffffe000u);
	case T_f32: return f32_of(v);
	case T_f64: return f64_of(v);
	case T_s8: return (int8_t)(v >> (8 * j));
	case T_u8: return (uint8_t)(v >> (8 * j));
	case T_s4: return (int32_t)((uint32_t)v << (28 - 4 * j)) >> 28;
	case T_u4: return (double)((v >> (4 * j)) & 15);
	case T_b1: return (double)((v >> j) & 1);
	case T_e4m3: return fp8_value((uint32_t)(v >> (8 * j)) & 0xff, 4);
	case T_e5m2: return fp8_value((uint32_t)(v >> (8 * j)) & 0xff, 5);
	default: return (int32_t)v;   /* s32 */
	}
}

/* Index of element (lane, register, j) of each fragment in the engine's matrices:
 * A[prob][row][col], B transposed (Bt[prob][col][row]), C and D [prob][row][col]. */
int ptx__mx_prepare(pdec *D, pmx *x)
{
	ptx_module *m = D->P->m;
	for (int which = FR_A; which <= FR_D; which++) {
		int e = per_reg(frag_type(x, which)), nu = ptx__mx_unique(x, which), rows, cols;
		uint32_t need = (uint32_t)(nu * WARP * e);
		ptx__mx_dims(x, which, &rows, &cols);
		uint16_t *t = ptx__grow(D->P, m->mxtab, &m->mxtab_cap, m->nmxtab + need, sizeof(uint16_t));
		if (!t)
			return -1;
		m->mxtab = t;
		x->tab[which] = m->nmxtab;
		for (int r = 0; r < nu; r++)
			for (int l = 0; l < WARP; l++)
				for (int j = 0; j < e; j++) {
					int row, col, prob = x->kind == MXK_MMA884 ? (l >> 2) & 3 : 0;
					ptx__mx_pos(x, which, l, r, j, &row, &col);
					t[m->nmxtab++] = (uint16_t)(prob * rows * cols +
								  (which == FR_B ? col * rows + row
										 : row * cols + col));
				}
	}
	return 0;
}

/* Reads fragment `which` of every lane into the engine's matrix mat (the 16-bit types,
 * the common case, without the per-element type switch). */
static void unpack(pwarp *w, const pmx *x, int which, const uint32_t *regs, double *mat)
{
	int t = frag_type(x, which), e = per_reg(t), nu = ptx__mx_unique(x, which);
	const uint16_t *idx = w->b->m->mxtab + x->tab[which];
	for (int r = 0; r < nu; r++) {
		const uint64_t *R = R(regs[r]);
		if (t == T_f16) {
			for (int l = 0; l < WARP; l++, idx += 2) {
				mat[idx[0]] = f16_value((uint32_t)R[l] & 0xffff);
				mat[idx[1]] = f16_value((uint32_t)(R[l] >> 16) & 0xffff);
			}
		} else if (t == T_bf16) {
			for (int l = 0; l < WARP; l++, idx += 2) {
				mat[idx[0]] = f32_of((R[l] & 0xffff) << 16);
				mat[idx[1]] = f32_of(R[l] & 0xffff0000u);
			}
		} else {
			for (int l = 0; l < WARP; l++, idx += e)
				for (int j = 0; j < e; j++)
					mat[idx[j]] = elem(R[l], t, j);
		}
	}
}

/* ----------------------------------------------------------- sparse A */

/* mma.sp's A (PTX ISA 9.7.14.6.1-2): lane 4g + t holds in register r the two nonzero
 * elements (one for .tf32) of chunk t + 4 (r / 2) (four columns; two for .tf32) of row
 * g + 8 (r % 2).  Their places in the chunk are a nibble of the metadata: bits [1:0] for the
 * first (the register's low half), [3:2] for the second; for .tf32 the place of the one
 * element is bits [1:0] / 2, the nibble 0b0100 or 0b1110.  The group's metadata comes from
 * lane 4g + f (f the selector) where one register holds all of it (m16n8k16 .f16/.bf16,
 * m16n8k8 .tf32), else from lanes 4g + 2f (chunks 0-3) and 4g + 2f + 1 (chunks 4-7): chunk c's
 * nibble at bits 4 (c % 4) for row g, 16 + 4 (c % 4) for row g + 8 (the layout of 9.7.14.6.2's
 * figures; CUTLASS's and MLIR's Sm80 sparse GEMMs fill the metadata so). */
static uint32_t sparse_nibble(const pwarp *w, const pmx *x, int lane, int r, int *chunk)
{
	const uint64_t *E = R(x->r[x->nd + x->na + x->nb + x->nc]);
	int per = x->at == T_tf32 ? 2 : 4, chunks = x->k / per, g = lane >> 2;
	*chunk = (lane & 3) + 4 * (r / 2);
	int src = 4 * g + (chunks > 4 ? 2 * x->sel + *chunk / 4 : x->sel);
	return (uint32_t)(E[src] >> (4 * (*chunk % 4) + 16 * (r % 2))) & 0xf;
}

int ptx__mx_sparse_check(pwarp *w, const pinsn *in, const pmx *x)
{
	for (int l = 0; l < WARP; l++)
		for (int r = 0; r < x->na; r++) {
			int c;
			uint32_t nib = sparse_nibble(w, x, l, r, &c), i0 = nib & 3, i1 = nib >> 2;
			int bad = x->at == T_tf32 ? (nib != 4 && nib != 14) : i0 == i1 || (x->ordered && i0 > i1);
			if (bad)
				return ptx__fault(w, in, l, PTX_ETRAP, "mma.sp metadata 0x%x for row %d, columns "
						  "%d..%d is not a valid index pair", nib, (l >> 2) + 8 * (r % 2),
						  c * (x->at == T_tf32 ? 2 : 4), c * (x->at == T_tf32 ? 2 : 4) +
						  (x->at == T_tf32 ? 1 : 3));
		}
	return 0;
}

/* The dense A (rows of x->k, zeros where the metadata places nothing). */
static void sparse_a(pwarp *w, const pmx *x, const uint32_t *regs, double *A)
{
	int tf = x->at == T_tf32, K = x->k;
	for (int i = 0; i < 16 * K; i++)
		A[i] = 0;
	for (int l = 0; l < WARP; l++)
		for (int r = 0; r < x->na; r++) {
			int c;
			uint32_t nib = sparse_nibble(w, x, l, r, &c), v = (uint32_t)R(regs[r])[l];
			double *row = A + ((l >> 2) + 8 * (r % 2)) * K;
			if (tf) {
				row[2 * c + (nib & 3) / 2] = elem(v, T_tf32, 0);
			} else {
				row[4 * c + (nib & 3)] = elem(v, x->at, 0);
				row[4 * c + (nib >> 2)] = elem(v, x->at, 1);
			}
		}
}

/* ----------------------------------------------------------- arithmetic */

/* |v| rounded toward zero to f32 bits; 2^128 and beyond is infinite. */
static uint32_t f32_rz(double v)
{
	uint64_t u = of_f64(v);
	uint32_t sign = (uint32_t)(u >> 63) << 31;
	int e = (int)((u >> 52) & 0x7ff) - 1023;
	uint64_t man = u & ((1ull << 52) - 1);
	if (v == 0)
		return sign;
	if (e >= 128)
		return sign | 0x7f800000u;
	if (e >= -126)
		return sign | (uint32_t)(e + 127) << 23 | (uint32_t)(man >> 29);
	if (e < -149)
		return sign;
	return sign | (uint32_t)(((1ull << 52) | man) >> (52 - (e + 149)));
}

/* A block with a NaN, an infinity or nothing but zeros among its terms. */
static uint32_t tc_special(const double *t, int nt)
{
	int nan = 0, pinf = 0, ninf = 0, negzero = 1;
	for (int i = 0; i < nt; i++) {
		if (isnan(t[i]))
			nan = 1;
		else if (isinf(t[i]))
			*(t[i] > 0 ? &pinf : &ninf) = 1;
		else if (t[i] != 0 || !signbit(t[i]))
			negzero = 0;
	}
	if (nan || (pinf && ninf))
		return 0x7fffffffu;
	if (pinf || ninf)
		return pinf ? 0x7f800000u : 0xff800000u;
	return negzero ? 0x80000000u : 0;
}

/* c + a[0] * b[0] + ... + a[n-1] * b[n-1], one tensor-core block (see the top). */
static uint32_t tc_block(uint32_t c, const double *a, const double *b, int n)
{
	double t[33];
	int nt = n + 1;
	t[0] = f32_of(c);
	/* The largest biased exponent: zeros give 0 (products of 16- and 19-bit inputs are
	 * never double subnormals), NaN and infinities 0x7ff. */
	uint64_t emax = (of_f64(t[0]) >> 52) & 0x7ff;
	for (int i = 0; i < n; i++) {
		t[i + 1] = a[i] * b[i];
		uint64_t e = (of_f64(t[i + 1]) >> 52) & 0x7ff;
		emax = e > emax ? e : emax;
	}
	if (emax == 0x7ff || emax == 0)
		return tc_special(t, nt);
	/* Keep 24 bits below and including the largest term's leading bit. */
	int q = (int)emax - 1023 - 23;
	double down = f64_of((uint64_t)(1023 - q) << 52), up = f64_of((uint64_t)(1023 + q) << 52);
	int64_t s0 = 0, s1 = 0;
	int i = 0;
	for (; i + 1 < nt; i += 2) {
		s0 += (int64_t)(t[i] * down);
		s1 += (int64_t)(t[i + 1] * down);
	}
	if (i < nt)
		s0 += (int64_t)(t[i] * down);
	s0 += s1;
	return s0 ? f32_rz((double)s0 * up) : 0;
}

static uint32_t sat_s32(int64_t v, int sat)
{
	if (sat && v > INT32_MAX)
		return INT32_MAX;
	if (sat && v < INT32_MIN)
		return (uint32_t)INT32_MIN;
	return (uint32_t)v;
}

/* One element of D: row i of A against column j of B (b is B transposed), plus c. */
static uint64_t compute(const pmx *x, const double *a, const double *b, double c)
{
	int K = x->k;
	if (x->at == T_f64) {
		double acc = c;
		for (int k = 0; k < K; k++)
			acc = x->rnd > RND_RN ? ptx__f64_op(RO_FMA, x->rnd, a[k], b[k], acc)
					      : fma(a[k], b[k], acc);
		return isnan(acc) ? 0x7fffffffffffffffull : of_f64(acc);
	}
	if (x->ct == T_s32) {
		int64_t acc = (int64_t)c;
		for (int k = 0; k < K; k++)
			acc += x->at != T_b1 ? (int64_t)(a[k] * b[k])
			       : x->bitop == W_and ? (int64_t)(a[k] != 0 && b[k] != 0)
			       : (int64_t)(a[k] != b[k]);
		return sat_s32(acc, x->sat);
	}
	uint32_t acc = (uint32_t)of_f32((float)c);   /* exact: c is f32 or f16 */
	for (int k0 = 0; k0 < K; k0 += x->blk)
		acc = tc_block(acc, a + k0, b + k0, x->blk);
	if (x->dt != T_f16)
		return acc;
	return ptx__round_double(f32_of(acc), FMT_F16, RND_RN, x->sat ? F_SATFINITE : 0);
}

void ptx__mx_exec(pwarp *w, const pmx *x)
{
	double A[MX_MAXA], Bt[MX_MAXA / 2], C[4 * 256];
	uint64_t dv[4 * 256];
	int np = x->kind == MXK_MMA884 ? 4 : 1, M = x->m, N = x->n, K = x->k;
	const uint32_t *rd = x->r, *ra = rd + x->nd, *rb = ra + x->na, *rc = rb + x->nb;
	if (x->sparse)
		sparse_a(w, x, ra, A);
	else
		unpack(w, x, FR_A, ra, A);
	unpack(w, x, FR_B, rb, Bt);
	unpack(w, x, FR_C, rc, C);
	for (int p = 0; p < np; p++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++)
				dv[(p * M + i) * N + j] = compute(x, A + (p * M + i) * K,
								  Bt + (p * N + j) * K,
								  C[(p * M + i) * N + j]);
	/* Pack D (its registers may be those of A, B or C: all were read above). */
	int e = per_reg(x->dt), bits = ptx__mx_bits(x->dt);
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	const uint16_t *idx = w->b->m->mxtab + x->tab[FR_D];
	for (int r = 0; r < x->nd; r++) {
		uint64_t *R = R(rd[r]);
		for (int l = 0; l < WARP; l++, idx += e) {
			uint64_t v = 0;
			for (int j = 0; j < e; j++)
				v |= (dv[idx[j]] & mask) << (bits * j);
			R[l] = v;
		}
	}
}
