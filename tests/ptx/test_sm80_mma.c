/* test_sm80_mma.c: mma.sync m16n8k{4,8,16} with .bf16, .tf32 and .f16 operands: the
 * original on simulated sm_80 and the lowered text on sm_75, sm_70 and sm_61, each element
 * of D against the exact sum c + sum a b (long double) within the accumulation bound of
 * fp32 tensor cores, K * 2^-23 * (|c| + sum |a b|) (plus 2^-149 K for underflow, and half
 * an f16 ulp for an f16 D), and exactly where every product and sum is exact.
 *
 * Each warp (one block) gets its own matrices, of one of four kinds: exact (multiples of
 * 1/16), values an f16 holds (the sm_75 tensor-core path), wide exponents (the FMA path)
 * and specials (NaN, infinities, subnormals, the largest magnitudes, f16 range edges).
 * Fragments are placed by the PTX ISA's tables (9.7.14.5.7-9), written out here apart from
 * the pass: the sm_80 run checks them. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

enum { KIND_EXACT, KIND_F16, KIND_WIDE, KIND_SPECIAL, NKIND };

typedef struct form {
	const char *name;
	int et, k, cf16, df16;   /* ET_*-like: 0 f16, 1 bf16, 2 tf32 */
} form;

static const form forms[] = {
	{ "m16n8k16.f32.bf16.bf16.f32", 1, 16, 0, 0 },
	{ "m16n8k8.f32.bf16.bf16.f32", 1, 8, 0, 0 },
	{ "m16n8k8.f32.tf32.tf32.f32", 2, 8, 0, 0 },
	{ "m16n8k4.f32.tf32.tf32.f32", 2, 4, 0, 0 },
	{ "m16n8k16.f32.f16.f16.f32", 0, 16, 0, 0 },
	{ "m16n8k16.f16.f16.f16.f16", 0, 16, 1, 1 },
	{ "m16n8k8.f32.f16.f16.f32", 0, 8, 0, 0 },
	{ "m16n8k8.f16.f16.f16.f16", 0, 8, 1, 1 },
};

#define WARPS 48

static int per_reg(const form *f) { return f->et == 2 ? 1 : 2; }
static int na(const form *f) { return f->k / (2 * per_reg(f)); }
static int nb(const form *f) { return f->k / (4 * per_reg(f)); }

/* PTX ISA 9.7.14.5.7-9: with g = lane / 4, t = lane % 4, e elements per register. */
static void a_pos(const form *f, int lane, int r, int j, int *row, int *col)
{
	int e = per_reg(f), g = lane / 4, t = lane % 4;
	*row = g + 8 * (r % 2);
	*col = 4 * e * (r / 2) + e * t + j;
}

static void b_pos(const form *f, int lane, int r, int j, int *row, int *col)
{
	int e = per_reg(f), g = lane / 4, t = lane % 4;
	*row = 4 * e * r + e * t + j;
	*col = g;
}

/* ---- values: bits of an element, and its value ---- */
static double elem_value(int et, uint32_t bits)
{
	if (et == 0)
		return sm80_f16_value((uint16_t)bits);
	float f;
	uint32_t u = et == 1 ? bits << 16 : bits & 0xffffe000u;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t from_double(int et, double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	if (et == 0)
		return sm80_f16_bits(v);
	return et == 1 ? u >> 16 : u;
}

static uint32_t special(int et, uint64_t r)
{
	static const uint16_t bf[] = { 0x7fc0, 0xffc0, 0x7f80, 0xff80, 0x7f7f, 0xff7f, 0x0001, 0x807f,
				       0x0080, 0x0000, 0x8000, 0x4700, 0x4780, 0x3880, 0x3800, 0x3380,
				       0x3f80, 0xbf80, 0x477f, 0xc77f, 0x7f81 };
	static const uint16_t h[] = { 0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x83ff,
				      0x0400, 0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c01, 0x0200 };
	static const uint32_t tf[] = { 0x7fc00000, 0xffc00000, 0x7f800000, 0xff800000, 0x7f7fe000,
				       0xff7fe000, 0x00002000, 0x807fe000, 0x00800000, 0x00000000,
				       0x80000000, 0x47000000, 0x47800000, 0x38800000, 0x38000000,
				       0x33800000, 0x3f800000, 0x7f800001 };
	if (et == 0)
		return h[r % (sizeof(h) / sizeof(h[0]))];
	if (et == 1)
		return bf[r % (sizeof(bf) / sizeof(bf[0]))];
	return tf[r % (sizeof(tf) / sizeof(tf[0]))] | (uint32_t)(r >> 40 & 0x1fff);
}

/* An element of the given kind (bits). */
static uint32_t make(int et, int kind, uint64_t *s)
{
	uint64_t r = sim_rng(s);
	double sign = (r & 1) ? -1 : 1;
	switch (kind) {
	case KIND_EXACT:
		return from_double(et, (double)((int)(r % 33) - 16) / 16);
	case KIND_F16: {   /* exponents in [-14, 15], significands an f16 holds */
		int e = (int)((r >> 8) % 30) - 14;
		double m = 1 + (double)((r >> 16) % 128) / 128;
		if (et == 0)
			m = 1 + (double)((r >> 16) % 1024) / 1024;
		else if (et == 2)
			m = 1 + (double)((r >> 16) % 1024) / 1024;
		uint32_t b = from_double(et, sign * ldexp(m, e));
		return et == 2 ? b | (uint32_t)(r >> 44 & 0x1fff) : b;   /* tf32: low bits ignored */
	}
	case KIND_WIDE: {
		int e = (int)((r >> 8) % 61) - 30;
		if (et == 0)
			e = (int)((r >> 8) % 30) - 14;
		uint32_t b = from_double(et, sign * ldexp(1 + (double)((r >> 16) % 100000) / 100000, e));
		return et == 2 ? b | (uint32_t)(r >> 44 & 0x1fff) : b;
	}
	default:
		if ((r >> 4) % 3)
			return make(et, KIND_F16, s);
		return special(et, r >> 8);
	}
}

typedef struct exp_el {
	long double sum, abs;
	int nan, inf;        /* the exact result is NaN / +-inf (inf: its sign) */
} exp_el;

static void expect(const form *f, const double *A, const double *B, double c, int row, int col,
		   exp_el *x)
{
	long double s = c, a = fabs(c);
	int pinf = isinf(c) && c > 0, ninf = isinf(c) && c < 0, nan = isnan(c);
	for (int k = 0; k < f->k; k++) {
		double p = A[row * f->k + k] * B[k * 8 + col];
		if (isnan(A[row * f->k + k]) || isnan(B[k * 8 + col]) || isnan(p))
			nan = 1;
		else if (isinf(p))
			*(p > 0 ? &pinf : &ninf) = 1;
		else {
			s += (long double)A[row * f->k + k] * B[k * 8 + col];
			a += fabsl((long double)A[row * f->k + k] * B[k * 8 + col]);
		}
	}
	x->sum = s;
	x->abs = a;
	x->nan = nan || (pinf && ninf);
	x->inf = x->nan ? 0 : pinf ? 1 : ninf ? -1 : 0;
}

/* Whether got (f32, or f16 for an f16 D) is within the bound of x; exact: must equal. */
static int judge(const form *f, uint32_t got, const exp_el *x, int exact, char *why, size_t n)
{
	double g = f->df16 ? sm80_f16_value((uint16_t)got) : (double)sm80_f32_value(got);
	double top = f->df16 ? 65520.0 : (double)FLT_MAX;
	long double bound = (long double)f->k * 0x1p-23L * x->abs + f->k * 0x1p-149L;
	if (f->df16)
		bound += fabsl(x->sum) * 0x1p-11L + 0x1p-25L;
	/* Finite products of 2^127 or more: a partial sum (a block of the tensor cores, a
	 * step of the FMA path) may overflow, to either sign; the ISA says nothing of it. */
	if (x->abs >= (f->df16 ? 32768.0L : 0x1p127L)) {
		snprintf(why, n, "want NaN, inf or %.9Lg within %.3Lg (partial sums may overflow)",
			 x->sum, bound);
		return isnan(g) || isinf(g) || fabsl((long double)g - x->sum) <= bound;
	}
	if (x->nan) {
		snprintf(why, n, "want NaN");
		return isnan(g);
	}
	if (x->inf) {
		snprintf(why, n, "want %cinf", x->inf > 0 ? '+' : '-');
		return isinf(g) && (g > 0) == (x->inf > 0);
	}
	snprintf(why, n, "want %.9Lg within %.3Lg", x->sum, exact ? 0.0L : bound);
	if (exact) {
		double want = f->df16 ? sm80_f16_value(sm80_f16_bits((double)x->sum)) : (double)(float)x->sum;
		return g == want && signbit(g) == signbit(want);
	}
	if (fabsl(x->sum) + bound >= top && isinf(g) && (g > 0) == (x->sum > 0))
		return 1;   /* at the top of the range either may overflow */
	return !isnan(g) && !isinf(g) && fabsl((long double)g - x->sum) <= bound;
}

static char *kernel_text(const form *f)
{
	int nd = f->df16 ? 2 : 4, nc = f->cf16 ? 2 : 4;
	char *t = malloc(8192);
	int n = snprintf(t, 8192,
		".version 8.0\n.target sm_80\n.address_size 64\n"
		".visible .entry mma_test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
		"\t.reg .b32 %%a<4>;\n\t.reg .b32 %%b<2>;\n\t.reg .%s %%c<4>;\n\t.reg .%s %%d<4>;\n"
		"\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<12>;\n"
		"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 32, %%r1;\n"
		"\tmul.wide.u32 %%rd9, %%r3, 4;\n",
		f->cf16 ? "b32" : "f32", f->df16 ? "b32" : "f32");
	static const char *const names[4] = { "pa", "pb", "pc", "pd" };
	const int counts[4] = { na(f), nb(f), nc, nd };
	for (int p = 0; p < 4; p++) {
		n += snprintf(t + n, 8192 - n, "\tld.param.u64 %%rd%d, [%s];\n\tmul.lo.u64 %%rd10, %%rd9, %d;\n"
			      "\tadd.u64 %%rd%d, %%rd%d, %%rd10;\n", p + 1, names[p], counts[p], p + 5, p + 1);
		if (p == 3)
			break;
		for (int r = 0; r < counts[p]; r++)
			n += snprintf(t + n, 8192 - n, "\tld.global.b32 %%%c%d, [%%rd%d+%d];\n", "abc"[p], r,
				      p + 5, 4 * r);
	}
	n += snprintf(t + n, 8192 - n, "\tmma.sync.aligned.%.*s.row.col%s ", (int)strcspn(f->name, "."),
		      f->name, f->name + strcspn(f->name, "."));
	n = sm80_mma_lists(t, n, 8192, (const int[4]){ nd, na(f), nb(f), nc });
	n += snprintf(t + n, 8192 - n, ";\n");
	for (int r = 0; r < nd; r++)
		n += snprintf(t + n, 8192 - n, "\tst.global.b32 [%%rd8+%d], %%d%d;\n", 4 * r, r);
	snprintf(t + n, 8192 - n, "\tret;\n}\n");
	return t;
}

typedef struct data {
	uint32_t *fa, *fb, *fc;
	double *A, *B, *C;   /* per warp: 16 x k, k x 8, 16 x 8 */
	int *kind;
} data;

/* Matrices of the given kinds (kind < 0: warp w gets kind w % NKIND; NKIND + s: data set s
 * of operands.c) and their fragments. */
static void fill(const form *f, data *D, int kind, uint64_t seed)
{
	int e = per_reg(f), nc = f->cf16 ? 2 : 4;
	for (int w = 0; w < WARPS; w++) {
		int kd = kind < 0 ? w % NKIND : kind;
		double *A = D->A + w * 16 * f->k, *B = D->B + w * f->k * 8, *C = D->C + w * 128;
		uint32_t abits[16][16], bbits[16][8], cbits[16][8];
		D->kind[w] = kd;
		int set = kd - NKIND;
		for (int i = 0; i < 16 * f->k; i++) {
			abits[i / f->k][i % f->k] = set >= 0 ? from_double(f->et, sm80_operand(set, 0, i / f->k,
							       i % f->k, 16, &seed)) : make(f->et, kd, &seed);
			A[i] = elem_value(f->et, abits[i / f->k][i % f->k]);
		}
		for (int i = 0; i < 8 * f->k; i++) {
			bbits[i / 8][i % 8] = set >= 0 ? from_double(f->et, sm80_operand(set, 1, i / 8, i % 8,
							     f->k, &seed)) : make(f->et, kd, &seed);
			B[i] = elem_value(f->et, bbits[i / 8][i % 8]);
		}
		for (int i = 0; i < 128; i++) {
			uint64_t r = sim_rng(&seed);
			double c = kd == KIND_EXACT ? (double)((int)(r % 257) - 128) / 8
				   : set >= 0 ? (double)(float)sm80_operand(set, 2, i / 8, i % 8, 16, &seed)
				   : (double)(float)((double)(int64_t)r / 0x1p63 * 4);
			if (kd == KIND_SPECIAL && r % 7 == 0)
				c = elem_value(f->cf16 ? 0 : 2, special(f->cf16 ? 0 : 2, r >> 12) & ~0x1fffu);
			if (f->cf16) {
				cbits[i / 8][i % 8] = sm80_f16_bits(c);
				c = sm80_f16_value((uint16_t)cbits[i / 8][i % 8]);
			} else {
				float cf = (float)c;
				memcpy(&cbits[i / 8][i % 8], &cf, 4);
			}
			C[i] = c;
		}
		for (int lane = 0; lane < 32; lane++) {
			uint32_t *pa = D->fa + (w * 32 + lane) * na(f), *pb = D->fb + (w * 32 + lane) * nb(f);
			uint32_t *pc = D->fc + (w * 32 + lane) * nc;
			for (int r = 0; r < na(f); r++) {
				pa[r] = 0;
				for (int j = 0; j < e; j++) {
					int row, col;
					a_pos(f, lane, r, j, &row, &col);
					pa[r] |= e == 1 ? abits[row][col] : abits[row][col] << (16 * j);
				}
			}
			for (int r = 0; r < nb(f); r++) {
				pb[r] = 0;
				for (int j = 0; j < e; j++) {
					int row, col;
					b_pos(f, lane, r, j, &row, &col);
					pb[r] |= e == 1 ? bbits[row][col] : bbits[row][col] << (16 * j);
				}
			}
			for (int i = 0; i < 4; i++) {   /* C element i: row g + 8 (i / 2), col 2t + i % 2 */
				int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
				if (f->cf16)
					pc[i / 2] = i % 2 ? pc[i / 2] | cbits[row][col] << 16 : cbits[row][col];
				else
					pc[i] = cbits[row][col];
			}
		}
	}
}

/* Runs text on sm (lowered first when sm < 80) and checks every element of D. */
static uint64_t run_check(const form *f, const char *text, int sm, data *D, uint32_t *out)
{
	int nd = f->df16 ? 2 : 4, nc = f->cf16 ? 2 : 4;
	sarg args[4] = {
		{ (size_t)WARPS * 32 * na(f) * 4, D->fa, NULL, 0 },
		{ (size_t)WARPS * 32 * nb(f) * 4, D->fb, NULL, 0 },
		{ (size_t)WARPS * 32 * nc * 4, D->fc, NULL, 0 },
		{ (size_t)WARPS * 32 * nd * 4, NULL, out, 0 },
	};
	srun R = { .kernel = "mma_test", .grid = WARPS, .block = 32, .args = args, .nargs = 4 };
	int st = sm >= 80 ? sim_run(text, strlen(text), sm, &R) : sim_lower_run(text, sm, &R, NULL);
	if (st) {
		FAIL("%s on sm_%d: %s", f->name, sm, R.err);
		return 0;
	}
	int bad = 0;
	for (int w = 0; w < WARPS; w++)
		for (int lane = 0; lane < 32; lane++)
			for (int i = 0; i < 4; i++) {
				int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
				uint32_t r = out[(w * 32 + lane) * nd + (f->df16 ? i / 2 : i)];
				uint32_t got = f->df16 ? (i % 2 ? r >> 16 : r & 0xffff) : r;
				exp_el x;
				char why[160];
				expect(f, D->A + w * 16 * f->k, D->B + w * f->k * 8, D->C[w * 128 + row * 8 + col],
				       row, col, &x);
				if (!judge(f, got, &x, D->kind[w] == KIND_EXACT, why, sizeof(why)) && bad++ < 5)
					FAIL("%s on sm_%d, warp %d (kind %d), D[%d][%d]: got 0x%x (%.9g), %s", f->name, sm,
					     w, D->kind[w], row, col, got,
					     f->df16 ? sm80_f16_value((uint16_t)got) : (double)sm80_f32_value(got), why);
			}
	return R.instructions;
}

static const int targets[] = { 80, 75, 70, 61 };

static void data_alloc(data *D)
{
	D->fa = calloc((size_t)WARPS * 32 * 4, 4);
	D->fb = calloc((size_t)WARPS * 32 * 2, 4);
	D->fc = calloc((size_t)WARPS * 32 * 4, 4);
	D->A = calloc((size_t)WARPS * 16 * 16, sizeof(double));
	D->B = calloc((size_t)WARPS * 16 * 8, sizeof(double));
	D->C = calloc((size_t)WARPS * 128, sizeof(double));
	D->kind = calloc(WARPS, sizeof(int));
}

static void data_free(data *D)
{
	free(D->fa), free(D->fb), free(D->fc), free(D->A), free(D->B), free(D->C), free(D->kind);
}

void bench_sm80_mma(sm80_bench_fn add)
{
	uint32_t *out = calloc((size_t)WARPS * 32 * 4, 4);
	for (size_t fi = 0; fi < sizeof(forms) / sizeof(forms[0]); fi++) {
		const form *f = &forms[fi];
		char *text = kernel_text(f);
		data D;
		data_alloc(&D);
		for (int set = 0; set < SM80_OPERAND_SETS; set++) {
			uint64_t instr[4];
			fill(f, &D, NKIND + set, 3000 + 10 * fi + (size_t)set);
			for (int t = 0; t < 4; t++)
				instr[t] = run_check(f, text, targets[t], &D, out);
			add("mma", f->name, sm80_operand_sets[set], instr);
		}
		data_free(&D);
		free(text);
	}
	free(out);
}

int test_sm80_mma(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (size_t fi = 0; fi < sizeof(forms) / sizeof(forms[0]); fi++) {
		const form *f = &forms[fi];
		char *text = kernel_text(f);
		data D;
		data_alloc(&D);
		uint32_t *out[4];
		fill(f, &D, -1, 1000 + fi);
		for (int t = 0; t < 4; t++) {
			out[t] = calloc((size_t)WARPS * 32 * 4, 4);
			run_check(f, text, targets[t], &D, out[t]);
		}
		/* Exact data: every target gives the same bits. */
		int nd = f->df16 ? 2 : 4;
		for (int t = 1; t < 4; t++)
			for (int w = 0; w < WARPS; w++)
				if (D.kind[w] == KIND_EXACT)
					for (int i = 0; i < 32 * nd; i++)
						CHECK_EQ(out[t][w * 32 * nd + i], out[0][w * 32 * nd + i],
							 "%s exact data, sm_%d against sm_80, warp %d word %d", f->name,
							 targets[t], w, i);
		/* sm_75 and sm_70 take the tensor cores where f16 holds the operands (sm_70 through
		 * mma.m8n8k4, for .f16 too), the FMA path where not: fewer instructions for the
		 * first (half on sm_75; sm_70's m8n8k4 takes operands from three lanes of four,
		 * two thirds), and fewer than sm_61's FMA path on the same data. */
		for (int t = 75; t >= 70; t -= 5) {
			char *low = NULL;
			srun R = { .kernel = "mma_test" };
			sim_lower_run(text, t, &R, &low);
			CHECK(t == 75 || (low && strstr(low, "mma.sync.aligned.m8n8k4")), "%s lowered for sm_70: "
			      "no mma.m8n8k4", f->name);
			free(low);
			fill(f, &D, KIND_F16, 7);
			uint64_t fast = run_check(f, text, t, &D, out[1]), fma = run_check(f, text, 61, &D, out[3]);
			CHECK(fast && fma && fast < fma, "%s with f16 data: %llu instructions on sm_%d, "
			      "%llu on sm_61 (FMA): the tensor-core path is not taken", f->name,
			      (unsigned long long)fast, t, (unsigned long long)fma);
			if (!f->et)
				continue;
			fill(f, &D, KIND_WIDE, 7);
			uint64_t slow = run_check(f, text, t, &D, out[1]);
			CHECK(fast && slow && (t == 75 ? fast * 2 < slow : fast * 3 < slow * 2),
			      "%s on sm_%d: %llu instructions with f16 data, "
			      "%llu with wide data: the tensor-core path is not taken", f->name, t,
			      (unsigned long long)fast, (unsigned long long)slow);
			printf("%s on sm_%d: %llu thread-instructions (f16 path), %llu (FMA path)\n", f->name, t,
			       (unsigned long long)fast, (unsigned long long)slow);
		}
		for (int t = 0; t < 4; t++)
			free(out[t]);
		data_free(&D);
		free(text);
	}
	return 0;
}
