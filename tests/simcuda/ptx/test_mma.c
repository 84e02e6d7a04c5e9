/* test_mma.c: every mma.sync shape and type of tests/simcuda/kernels/mma*.cu, on the
 * devices that have it.  The matrices are packed into the kernels' registers with the PTX
 * ISA's fragment tables, written out here per shape from the ISA's text (independently of
 * tcore.c's one rule), and every element of D is compared with its definition:
 *   - integers exactly (wrapping, or clamped with .satfinite), .b1 as popc of and/xor;
 *   - f64 as fused multiply-adds in k order;
 *   - f16/bf16/tf32 by the accumulation of README.md "Numerics" (blocks of 4 products on
 *     sm_70/sm_75, 8 on sm_80+ for 16-bit inputs, 4 for tf32; terms truncated at 24 bits
 *     below the largest, the exact sum truncated to f32), computed here with long double,
 *     and within the f32 bound of the exact (long double) sum;
 *   - "exact" inputs (multiples of 1/16) whose every partial sum is exact, so any order
 *     gives the same result: this checks the layouts without trusting the arithmetic.
 * Inputs: random, exact, and adversarial (NaN, infinities, subnormals, largest magnitudes,
 * cancellation, low tf32 bits that must be ignored).
 *   usage: test_ptx_mma KERNELS_DIR */
#include "test_util.h"

enum { A, B, C };
enum { F16 = 1, BF16, TF32, F32, F64, S8, U8, S4, U4, B1, S32 };

typedef struct mcase {
	const char *file, *kernel;
	int m, n, k, at, bt, ct, dt;
	int alay, blay;           /* 0 row, 1 col (m8n8k4 only; the others are row.col) */
	int sat, bitop;           /* bitop: 1 xor, 2 and */
	int min_sm;
} mcase;

static const mcase cases[] = {
	{ "mma70.ptx", "m8n8k4_f32_f16_row_col", 8, 8, 4, F16, F16, F32, F32, 0, 1, 0, 0, 70 },
	{ "mma70.ptx", "m8n8k4_f16_f16_col_row", 8, 8, 4, F16, F16, F16, F16, 1, 0, 0, 0, 70 },
	{ "mma70.ptx", "m8n8k4_f32_f16c_row_row", 8, 8, 4, F16, F16, F16, F32, 0, 0, 0, 0, 70 },
	{ "mma70.ptx", "m8n8k4_f32_f16_col_col", 8, 8, 4, F16, F16, F32, F32, 1, 1, 0, 0, 70 },
	{ "mma75.ptx", "m16n8k8_f32_f16", 16, 8, 8, F16, F16, F32, F32, 0, 1, 0, 0, 75 },
	{ "mma75.ptx", "m16n8k8_f16_f16", 16, 8, 8, F16, F16, F16, F16, 0, 1, 0, 0, 75 },
	{ "mma75.ptx", "m8n8k16_s32_s8u8", 8, 8, 16, S8, U8, S32, S32, 0, 1, 0, 0, 75 },
	{ "mma75.ptx", "m8n8k32_s32_s4_sat", 8, 8, 32, S4, S4, S32, S32, 0, 1, 1, 0, 75 },
	{ "mma75.ptx", "m8n8k128_s32_b1_xor", 8, 8, 128, B1, B1, S32, S32, 0, 1, 0, 1, 75 },
	{ "mma.ptx", "m16n8k16_f32_f16", 16, 8, 16, F16, F16, F32, F32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k16_f16_f16", 16, 8, 16, F16, F16, F16, F16, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k16_f32_bf16", 16, 8, 16, BF16, BF16, F32, F32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k8_f32_bf16", 16, 8, 8, BF16, BF16, F32, F32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k8_f32_tf32", 16, 8, 8, TF32, TF32, F32, F32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k4_f32_tf32", 16, 8, 4, TF32, TF32, F32, F32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k16_s32_s8", 16, 8, 16, S8, S8, S32, S32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k32_s32_u8s8_sat", 16, 8, 32, U8, S8, S32, S32, 0, 1, 1, 0, 80 },
	{ "mma.ptx", "m16n8k32_s32_s4", 16, 8, 32, S4, S4, S32, S32, 0, 1, 0, 0, 80 },
	{ "mma.ptx", "m16n8k64_s32_u4s4_sat", 16, 8, 64, U4, S4, S32, S32, 0, 1, 1, 0, 80 },
	{ "mma.ptx", "m16n8k128_s32_b1_xor", 16, 8, 128, B1, B1, S32, S32, 0, 1, 0, 1, 80 },
	{ "mma.ptx", "m16n8k256_s32_b1_and", 16, 8, 256, B1, B1, S32, S32, 0, 1, 0, 2, 80 },
	{ "mma.ptx", "m8n8k4_f64", 8, 8, 4, F64, F64, F64, F64, 0, 1, 0, 0, 80 },
};

static int bits_of(int t)
{
	switch (t) {
	case F16: case BF16: return 16;
	case S8: case U8: return 8;
	case S4: case U4: return 4;
	case B1: return 1;
	case F64: return 64;
	default: return 32;
	}
}

static int per_word(int t)
{
	return t == F64 ? 1 : 32 / (bits_of(t) > 32 ? 32 : bits_of(t));
}

/* ------------------------------------------------ the ISA's fragment tables */

/* Element i of matrix `which` held by lane l: (row, col), and for m8n8k4 .f16 the quad-pair
 * computation it belongs to.  PTX ISA 9.7.14.5.1-13, per shape. */
static void isa_pos(const mcase *c, int which, int t, int l, int i, int *row, int *col, int *q)
{
	int g = l >> 2, tg = l % 4, hi = l >= 16 ? 4 : 0;
	*q = 0;
	if (c->k == 4 && c->at == F16) {   /* 9.7.14.5.1, four computations (quad-pairs) */
		*q = (l % 16) / 4;
		if (which == A) {
			*row = c->alay ? i % 4 + hi : l % 4 + hi;
			*col = c->alay ? l % 4 : i;
		} else if (which == B) {
			*row = c->blay ? i : l % 4;
			*col = c->blay ? l % 4 + hi : i + hi;
		} else if (t == F16) {
			*row = l % 4 + hi;
			*col = i;
		} else {
			*row = (l & 1) + (i & 2) + hi;
			*col = (i & 4) + (l & 2) + (i & 1);
		}
		return;
	}
	if (which == C) {   /* every other shape: c0, c1 in row g, c2, c3 in row g + 8 */
		*row = i < 2 ? g : g + 8;
		*col = tg * 2 + (i & 1);
		return;
	}
	int m = c->m, k = c->k, tt = c->at;
	if (m == 8) {   /* 9.7.14.5.2 (f64), .3 (k16), .4 (k32), .5 (k128): one register each */
		int e = k / 4;
		*row = which == A ? g : tg * e + i;
		*col = which == A ? tg * e + i : g;
		return;
	}
	if (tt == TF32) {   /* 9.7.14.5.6 (k4), 9.7.14.5.7 (k8) */
		if (which == A) {
			*row = (i & 1) ? g + 8 : g;
			*col = i >= 2 ? tg + 4 : tg;
		} else {
			*row = i ? tg + 4 : tg;
			*col = g;
		}
		return;
	}
	if (k == 8) {   /* 9.7.14.5.7 .f16/.bf16 */
		*row = which == A ? (i < 2 ? g : g + 8) : tg * 2 + i;
		*col = which == A ? tg * 2 + (i & 1) : g;
		return;
	}
	/* 9.7.14.5.8 (k16 float), .9 (k16 int), .10 (k32), .11 (k64), .12 (k128), .13 (k256):
	 * e elements per register, registers alternating rows g / g + 8 over k halves. */
	int e = 32 / bits_of(tt), na = 16 * k / 32 / e;
	if (which == A) {
		int r = i / e;
		*row = (r & 1) ? g + 8 : g;
		*col = tg * e + i % e + (na == 4 && r >= 2 ? k / 2 : 0);
	} else {
		int r = i / e;
		*row = tg * e + i % e + (r ? k / 2 : 0);
		*col = g;
	}
}

/* ------------------------------------------------------------ values */

static long double value(uint32_t v, int t)
{
	switch (t) {
	case F16: return h2l(v, 0);
	case BF16: return h2l(v, 1);
	case TF32: return bitsf(v & 0xffffe000u);
	case F32: return bitsf(v);
	case S8: return (int8_t)v;
	case U8: return (uint8_t)v;
	case S4: return (int)((v & 8) ? (int)(v & 15) - 16 : (int)(v & 15));
	case U4: return v & 15;
	case B1: return v & 1;
	default: return (int32_t)v;
	}
}

/* A random element of type t, in one of the input modes. */
enum { M_RANDOM, M_EXACT, M_SPECIAL, M_CANCEL };

static uint32_t gen16(int bf, int mode)
{
	uint32_t r = rnd32();
	int ebits = bf ? 8 : 5, mbits = bf ? 7 : 10, bias = bf ? 127 : 15;
	if (mode == M_EXACT) {   /* k / 16, |k| <= 16 */
		int k = (int)(r % 33) - 16;
		return ref16((long double)k / 16, bf, RN, 0);
	}
	if (mode == M_SPECIAL && r % 8 == 0) {
		static const uint16_t f16s[] = { 0x7e00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001,
						 0x83ff, 0x0400, 0x8000, 0x0000 };
		static const uint16_t bf16s[] = { 0x7fc0, 0x7f80, 0xff80, 0x7f7f, 0xff7f, 0x0001,
						  0x807f, 0x0080, 0x8000, 0x0000 };
		return bf ? bf16s[(r >> 3) % 10] : f16s[(r >> 3) % 10];
	}
	int e = (int)((r >> 16) % 12) - 6 + bias;   /* |x| in [2^-6, 2^6) */
	if (mode == M_CANCEL)
		e = (int)((r >> 16) % 3) + bias + 8;
	if (e < 1)
		e = 1;
	(void)ebits;
	return (r & 0x8000) | (uint32_t)e << mbits | (r & ((1u << mbits) - 1));
}

static uint32_t gen(int t, int mode)
{
	uint32_t r = rnd32();
	switch (t) {
	case F16: return gen16(0, mode);
	case BF16: return gen16(1, mode);
	case TF32: {
		uint32_t h = gen16(1, mode) << 16;          /* an f32 with tf32's exponent range */
		if (mode == M_EXACT)
			return h;
		h |= (r & 0x7fu) << 13 | (r >> 7 & 0x1fffu);   /* low 13 bits: ignored */
		return h;
	}
	case F32:
		if (mode == M_EXACT)
			return fbits((float)((int)(r % 2049) - 1024) / 16);
		if (mode == M_SPECIAL && r % 8 == 0) {
			static const uint32_t s[] = { 0x7fc00000, 0x7f800000, 0xff800000, 0x7f7fffff,
						      0x00000001, 0x80000000, 0x007fffff, 0 };
			return s[(r >> 3) % 8];
		}
		if (mode == M_CANCEL)
			return fbits(ldexpf((float)(int32_t)rnd32(), -20 + (int)(r % 4)));
		return fbits(ldexpf((float)(int32_t)rnd32() / 2147483648.0f, (int)(r % 16) - 8));
	case S32:
		if (mode == M_SPECIAL)
			return r & 1 ? 0x7ffff000u + (r >> 20) : 0x80000fffu - (r >> 20);
		return r;
	default:
		return r;   /* integers and bits: any pattern */
	}
}

/* ------------------------------------------------------------ references */

static int block_of(const mcase *c, int sm)
{
	int b = c->at == TF32 ? 4 : sm >= 80 ? 8 : 4;
	return b < c->k ? b : c->k;
}

/* D[i][j] of problem q: returns the bits; *bound gets the f32 error bound of the
 * accumulation (0 when not a float case or not finite) and *exact the exact sum. */
static uint64_t ref_elem(const mcase *c, int sm, const uint32_t *a, const uint32_t *b,
			 uint64_t cv, long double *exact, long double *bound)
{
	int K = c->k;
	*bound = 0;
	if (c->at == F64) {
		double acc, x, y;
		memcpy(&acc, &cv, 8);
		for (int k = 0; k < K; k++) {
			uint64_t u = (uint64_t)a[2 * k] | (uint64_t)a[2 * k + 1] << 32;
			memcpy(&x, &u, 8);
			u = (uint64_t)b[2 * k] | (uint64_t)b[2 * k + 1] << 32;
			memcpy(&y, &u, 8);
			acc = fma(x, y, acc);
		}
		uint64_t r;
		memcpy(&r, &acc, 8);
		return isnan(acc) ? 0x7fffffffffffffffull : r;
	}
	if (c->ct == S32) {
		long long acc = (int32_t)cv;
		for (int k = 0; k < K; k++) {
			long long x = (long long)value(a[k], c->at), y = (long long)value(b[k], c->bt);
			acc += c->bitop == 1 ? (x ^ y) : c->bitop == 2 ? (x & y) : x * y;
		}
		if (c->sat)
			acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
		return (uint32_t)acc;
	}
	float acc = (float)value((uint32_t)cv, c->ct);
	long double p[256], mx = fabsl((long double)acc);
	*exact = acc;
	int blk = block_of(c, sm);
	for (int k = 0; k < K; k++) {
		p[k] = value(a[k], c->at) * value(b[k], c->bt);
		*exact += p[k];
		if (fabsl(p[k]) > mx)
			mx = fabsl(p[k]);
	}
	for (int k0 = 0; k0 < K; k0 += blk) {
		acc = ref_tc_block(acc, p + k0, blk);
		if (fabsl((long double)acc) > mx)
			mx = fabsl((long double)acc);
	}
	/* Each block drops less than 2^-23 of the largest term per term, plus the truncation. */
	*bound = (long double)(K / blk) * (blk + 2) * ldexpl(mx, -22);
	if (c->dt == F16)
		return ref16(acc, 0, RN, 0);
	return isnan(acc) ? 0x7fffffffu : fbits(acc);
}

/* ------------------------------------------------------------ the runs */

#define PROBLEMS 24

static int words(const mcase *c, int which, int t)
{
	int rows = which == B ? c->k : c->m, cols = which == A ? c->k : c->n;
	int np = c->k == 4 && c->at == F16 ? 4 : 1;
	int n = np * rows * cols / 32 / per_word(t);
	return t == F64 ? 2 * n : n;
}

static void run_case(const mcase *c, int sm, int mode)
{
	char path[64];
	snprintf(path, sizeof(path), "%s", c->file);
	char *text = read_text(kernels_dir, path, NULL);
	if (sm < 75) {   /* built for compute_75: the m8n8k4 kernels are sm_70 ones */
		char *t = strstr(text, ".target sm_75");
		if (t)
			t[12] = '0';
	}
	ptx_module *m = load_text(text, sm, PTX_OK, NULL, 0);
	free(text);
	if (!m)
		return;
	int np = c->k == 4 && c->at == F16 ? 4 : 1, M = c->m, N = c->n, K = c->k;
	int wa = words(c, A, c->at), wb = words(c, B, c->bt), wc = words(c, C, c->ct);
	int wd = words(c, C, c->dt), nin = wa + wb + wc;
	int fa = wa * per_word(c->at) / (c->at == F64 ? 2 : 1), fb = wb * per_word(c->bt) / (c->bt == F64 ? 2 : 1);
	int fc = wc * per_word(c->ct) / (c->ct == F64 ? 2 : 1), fd = wd * per_word(c->dt) / (c->dt == F64 ? 2 : 1);
	size_t ne = (size_t)PROBLEMS * np;
	uint32_t *Am = calloc(ne * M * K * 2, 4), *Bm = calloc(ne * K * N * 2, 4);
	uint64_t *Cm = calloc(ne * M * N, 8);
	uint32_t *in = calloc((size_t)PROBLEMS * 32 * nin, 4), *out = calloc((size_t)PROBLEMS * 32 * wd, 4);
	int aw = c->at == F64 ? 2 : 1;
	for (size_t i = 0; i < ne * M * K * aw; i++)
		Am[i] = aw == 2 ? fbits(0) : gen(c->at, mode);
	for (size_t i = 0; i < ne * K * N * aw; i++)
		Bm[i] = aw == 2 ? 0 : gen(c->bt, mode);
	for (size_t i = 0; i < ne * M * N; i++)
		Cm[i] = gen(c->ct, mode);
	if (c->at == F64) {
		for (size_t i = 0; i < ne * M * K; i++) {
			double v = mode == M_EXACT ? (double)((int)(rnd32() % 33) - 16) / 16
						   : ldexp((double)(int32_t)rnd32(), (int)(rnd32() % 40) - 60);
			if (mode == M_SPECIAL && i % 7 == 0)
				v = i % 3 ? NAN : INFINITY;
			memcpy(&Am[2 * i], &v, 8);
			v = (double)(int32_t)rnd32() / 1024;
			memcpy(&Bm[2 * i], &v, 8);
		}
		for (size_t i = 0; i < ne * M * N; i++) {
			double v = (double)(int32_t)rnd32() / 64;
			memcpy(&Cm[i], &v, 8);
		}
	}
	/* Pack: lane l's element i of each fragment, by the ISA's tables. */
	for (int p = 0; p < PROBLEMS; p++)
		for (int l = 0; l < 32; l++) {
			uint32_t *r = in + ((size_t)p * 32 + l) * nin;
			int row, col, q;
			for (int i = 0; i < fa; i++) {
				isa_pos(c, A, c->at, l, i, &row, &col, &q);
				const uint32_t *e = &Am[(((size_t)p * np + q) * M * K + (size_t)row * K + col) * aw];
				int bi = bits_of(c->at);
				if (aw == 2) {
					r[2 * i] = e[0];
					r[2 * i + 1] = e[1];
				} else {
					r[i / per_word(c->at)] |= (e[0] & (bi >= 32 ? ~0u : (1u << bi) - 1))
								 << (bi * (i % per_word(c->at)));
				}
			}
			for (int i = 0; i < fb; i++) {
				isa_pos(c, B, c->bt, l, i, &row, &col, &q);
				const uint32_t *e = &Bm[(((size_t)p * np + q) * K * N + (size_t)row * N + col) * aw];
				int bi = bits_of(c->bt);
				if (aw == 2) {
					r[wa + 2 * i] = e[0];
					r[wa + 2 * i + 1] = e[1];
				} else {
					r[wa + i / per_word(c->bt)] |= (e[0] & (bi >= 32 ? ~0u : (1u << bi) - 1))
								      << (bi * (i % per_word(c->bt)));
				}
			}
			for (int i = 0; i < fc; i++) {
				isa_pos(c, C, c->ct, l, i, &row, &col, &q);
				uint64_t e = Cm[((size_t)p * np + q) * M * N + (size_t)row * N + col];
				if (c->ct == F64) {
					r[wa + wb + 2 * i] = (uint32_t)e;
					r[wa + wb + 2 * i + 1] = (uint32_t)(e >> 32);
				} else if (c->ct == F16) {
					r[wa + wb + i / 2] |= ((uint32_t)e & 0xffff) << (16 * (i % 2));
				} else {
					r[wa + wb + i] = (uint32_t)e;
				}
			}
		}
	tmem t = { 0 };
	uint64_t din = tmem_alloc(&t, (size_t)PROBLEMS * 32 * nin * 4);
	uint64_t dout = tmem_alloc(&t, (size_t)PROBLEMS * 32 * wd * 4);
	memcpy(tmem_host(&t, din), in, (size_t)PROBLEMS * 32 * nin * 4);
	void *params[] = { &din, &dout };
	char err[512] = "";
	ptx_status st = run_kernel(m, c->kernel, PROBLEMS, 32, 0, params, &t, err, sizeof(err));
	CHECK(st == PTX_OK, "%s on sm_%d: %s %s", c->kernel, sm, ptx_status_name(st), err);
	memcpy(out, tmem_host(&t, dout), (size_t)PROBLEMS * 32 * wd * 4);
	int bad = 0;
	for (int p = 0; p < PROBLEMS && st == PTX_OK; p++)
		for (int l = 0; l < 32; l++)
			for (int i = 0; i < fd; i++) {
				int row, col, q;
				isa_pos(c, C, c->dt, l, i, &row, &col, &q);
				const uint32_t *r = out + ((size_t)p * 32 + l) * wd;
				uint64_t got = c->dt == F64 ? (uint64_t)r[2 * i] | (uint64_t)r[2 * i + 1] << 32
					       : c->dt == F16 ? (r[i / 2] >> (16 * (i % 2))) & 0xffff : r[i];
				uint32_t ar[512], bc[512];
				size_t pq = (size_t)p * np + q;
				for (int k = 0; k < K; k++)
					for (int w = 0; w < aw; w++) {
						ar[k * aw + w] = Am[(pq * M * K + (size_t)row * K + k) * aw + w];
						bc[k * aw + w] = Bm[(pq * K * N + (size_t)k * N + col) * aw + w];
					}
				long double exact = 0, bound;
				uint64_t want = ref_elem(c, sm, ar, bc, Cm[pq * M * N + (size_t)row * N + col],
							 &exact, &bound);
				if (got != want && bad++ < 5)
					CHECK(0, "%s on sm_%d, inputs %d: problem %d D[%d][%d] (lane %d, d%d) = "
					      "0x%llx, want 0x%llx", c->kernel, sm, mode, p * np + q, row, col,
					      l, i, (unsigned long long)got, (unsigned long long)want);
				/* The documented arithmetic stays within the f32 bound of the exact sum. */
				if (bound > 0 && isfinite(exact) && c->dt == F32 && got == want) {
					long double g = bitsf((uint32_t)got);
					if (fabsl(g - exact) > bound && bad++ < 5)
						CHECK(0, "%s on sm_%d: D[%d][%d] = %.9Lg is %.3Lg from the exact "
						      "%.12Lg, beyond the bound %.3Lg", c->kernel, sm, row, col, g,
						      fabsl(g - exact), exact, bound);
				}
				if (mode == M_EXACT && c->dt == F32 && (long double)bitsf((uint32_t)got) != exact &&
				    bad++ < 5)
					CHECK(0, "%s on sm_%d: exact inputs, D[%d][%d] = %.9g, want %.12Lg",
					      c->kernel, sm, row, col, bitsf((uint32_t)got), exact);
			}
	tmem_free(&t);
	free(Am);
	free(Bm);
	free(Cm);
	free(in);
	free(out);
	ptx_module_free(m);
}

int main(int argc, char **argv)
{
	kernels_dir = argc > 1 ? argv[1] : ".";
	static const int sms[] = { 70, 75, 80, 86, 90 };
	int runs = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t s = 0; s < sizeof(sms) / sizeof(sms[0]); s++) {
			if (sms[s] < cases[i].min_sm || (sms[s] < 75 && strcmp(cases[i].file, "mma70.ptx")))
				continue;
			for (int mode = M_RANDOM; mode <= M_CANCEL; mode++) {
				run_case(&cases[i], sms[s], mode);
				runs++;
			}
		}
	printf("%d mma runs of %d problems each\n", runs, PROBLEMS);
	return failures ? 1 : 0;
}
