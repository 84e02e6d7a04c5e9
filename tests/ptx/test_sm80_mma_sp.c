/* test_sm80_mma_sp.c: mma.sp and mma.sp::ordered_metadata (2:4 sparse A for .f16/.bf16
 * m16n8k16 and m16n8k32, 1:2 for .tf32 m16n8k8 and m16n8k16) with every sparsity selector:
 * the original on simulated sm_80 and the lowered text on sm_75, sm_70 and sm_61, each
 * element of D against the exact sum c + sum a b of the dense A (long double) within the
 * fp32 accumulation bound K * 2^-23 * (|c| + sum |a b|) (plus half an f16 ulp for an f16 D).
 *
 * The sparse fragments and the metadata are written out here from the PTX ISA (9.7.14.6.1
 * "Sparse matrix storage", 9.7.14.6.2 "Matrix fragments for multiply-accumulate operation
 * with sparse matrix A"), apart from the simulator and the pass: lane 4g + t holds in
 * register r the nonzero elements of chunk t + 4 (r / 2) of row g + 8 (r % 2) (chunks of four
 * columns, two for .tf32), the first in the low half; the metadata of the group is in lane
 * 4g + f, or 4g + 2f (chunks 0-3) and 4g + 2f + 1 (chunks 4-7), chunk c's two 2-bit indices
 * at bits 4 (c % 4) (row g) and 16 + 4 (c % 4) (row g + 8), the first index in the low bits
 * (MLIR's Sm80 test fills 0x8888 for elements in columns 0 and 2 of each chunk).  A
 * metadata nibble that names one column twice fails the launch on sm_80 (the ISA leaves it
 * undefined; the simulator refuses to guess). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

typedef struct spcase {
	const char *variant;   /* "sp" or "sp::ordered_metadata" */
	const char *type;      /* "bf16", "f16", "tf32" */
	int k, f16cd, sel;
} spcase;

static const spcase cases[] = {
	{ "sp", "bf16", 32, 0, 0 }, { "sp", "bf16", 32, 0, 1 },
	{ "sp::ordered_metadata", "bf16", 32, 0, 0 }, { "sp", "bf16", 16, 0, 2 },
	{ "sp", "f16", 32, 0, 1 }, { "sp::ordered_metadata", "f16", 32, 1, 0 },
	{ "sp", "f16", 16, 1, 3 }, { "sp", "tf32", 16, 0, 1 }, { "sp", "tf32", 8, 0, 0 },
};

#define WARPS 16

static int is_tf32(const spcase *c) { return !strcmp(c->type, "tf32"); }
static int na(const spcase *c) { return c->k / (is_tf32(c) ? 4 : 8); }
static int nb(const spcase *c) { return c->k / (is_tf32(c) ? 4 : 8); }
static int nd(const spcase *c) { return c->f16cd ? 2 : 4; }

static char *kernel_text(const spcase *c)
{
	char *t = malloc(8192);
	int n = snprintf(t, 8192,
		".version 8.5\n.target sm_80\n.address_size 64\n"
		".visible .entry sp_test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe, .param .u64 pd)\n{\n"
		"\t.reg .b32 %%a<4>;\n\t.reg .b32 %%b<4>;\n\t.reg .%s %%c<4>;\n\t.reg .%s %%d<4>;\n\t.reg .b32 %%e;\n"
		"\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<16>;\n"
		"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%ctaid.x;\n\tmad.lo.u32 %%r3, %%r2, 32, %%r1;\n"
		"\tmul.wide.u32 %%rd9, %%r3, 4;\n", c->f16cd ? "b32" : "f32", c->f16cd ? "b32" : "f32");
	static const char *const names[5] = { "pa", "pb", "pc", "pe", "pd" };
	const int counts[5] = { na(c), nb(c), nd(c), 1, nd(c) };
	for (int p = 0; p < 5; p++) {
		n += snprintf(t + n, 8192 - n, "\tld.param.u64 %%rd%d, [%s];\n\tmul.lo.u64 %%rd10, %%rd9, %d;\n"
			      "\tadd.u64 %%rd%d, %%rd%d, %%rd10;\n", p + 1, names[p], counts[p], p + 1, p + 1);
		if (p == 4)
			break;
		for (int r = 0; r < counts[p]; r++) {
			if (p == 3)
				n += snprintf(t + n, 8192 - n, "\tld.global.b32 %%e, [%%rd4];\n");
			else
				n += snprintf(t + n, 8192 - n, "\tld.global.b32 %%%c%d, [%%rd%d+%d];\n", "abc"[p], r,
					      p + 1, 4 * r);
		}
	}
	n += snprintf(t + n, 8192 - n, "\tmma.%s.sync.aligned.m16n8k%d.row.col.%s.%s.%s.%s ", c->variant, c->k,
		      c->f16cd ? "f16" : "f32", c->type, c->type, c->f16cd ? "f16" : "f32");
	n = sm80_mma_lists(t, n, 8192, (const int[4]){ nd(c), na(c), nb(c), nd(c) });
	n += snprintf(t + n, 8192 - n, ", %%e, 0x%d;\n", c->sel);
	for (int r = 0; r < nd(c); r++)
		n += snprintf(t + n, 8192 - n, "\tst.global.b32 [%%rd5+%d], %%d%d;\n", 4 * r, r);
	snprintf(t + n, 8192 - n, "\tret;\n}\n");
	return t;
}

/* An element's bits from a value (exact for the values made below) and back. */
static uint32_t bits_of(const spcase *c, double v)
{
	if (!strcmp(c->type, "f16"))
		return sm80_f16_bits(v);
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	return !strcmp(c->type, "bf16") ? u >> 16 : u;
}

static double value_of(const spcase *c, uint32_t b)
{
	if (!strcmp(c->type, "f16"))
		return sm80_f16_value((uint16_t)b);
	return sm80_f32_value(!strcmp(c->type, "bf16") ? b << 16 : b & 0xffffe000u);
}

typedef struct spdata {
	uint32_t *fa, *fb, *fc, *fe;
	double A[WARPS][16][32], B[WARPS][32][8], C[WARPS][16][8];
} spdata;

/* Values of one significand bit pattern over a few binades, so every product and sum is
 * exact in long double; exact: multiples of 1/16 (then D is exact too). */
static double make(uint64_t *s, int exact)
{
	uint64_t r = sim_rng(s);
	if (exact)
		return (double)((int)(r % 33) - 16) / 16;
	return (r & 1 ? -1 : 1) * ldexp(1 + (double)((r >> 8) % 64) / 64, (int)((r >> 20) % 12) - 8);
}

static void fill(const spcase *c, spdata *D, uint64_t seed, int exact)
{
	int tf = is_tf32(c), per = tf ? 2 : 4, chunks = c->k / per, pairs = chunks > 4;
	for (int w = 0; w < WARPS; w++) {
		uint8_t pos[16][8][2];   /* per row and chunk: the columns of its nonzeros, in register order */
		memset(D->A[w], 0, sizeof(D->A[w]));
		for (int i = 0; i < 16; i++)
			for (int ch = 0; ch < chunks; ch++) {
				uint64_t r = sim_rng(&seed);
				int p0 = (int)(r % (uint64_t)per), p1 = (int)((r >> 8) % (uint64_t)(per - 1));
				p1 += p1 >= p0;
				if (tf)
					p1 = p0;
				else if (!strcmp(c->variant, "sp::ordered_metadata") && p0 > p1) {
					int x = p0;
					p0 = p1, p1 = x;
				}
				pos[i][ch][0] = (uint8_t)p0, pos[i][ch][1] = (uint8_t)p1;
				D->A[w][i][per * ch + p0] = value_of(c, bits_of(c, make(&seed, exact)));
				if (!tf)
					D->A[w][i][per * ch + p1] = value_of(c, bits_of(c, make(&seed, exact)));
			}
		for (int k = 0; k < c->k; k++)
			for (int j = 0; j < 8; j++)
				D->B[w][k][j] = value_of(c, bits_of(c, make(&seed, exact)));
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 8; j++) {
				double v = exact ? (double)((int)(sim_rng(&seed) % 257) - 128) / 8 : make(&seed, 0);
				D->C[w][i][j] = c->f16cd ? sm80_f16_value(sm80_f16_bits(v)) : (double)(float)v;
			}
		for (int lane = 0; lane < 32; lane++) {
			int g = lane / 4, t = lane % 4, L = w * 32 + lane;
			for (int r = 0; r < na(c); r++) {
				int row = g + 8 * (r % 2), ch = t + 4 * (r / 2);
				uint32_t lo = bits_of(c, D->A[w][row][per * ch + pos[row][ch][0]]);
				uint32_t hi = tf ? 0 : bits_of(c, D->A[w][row][per * ch + pos[row][ch][1]]);
				D->fa[L * na(c) + r] = tf ? lo : lo | hi << 16;
			}
			for (int r = 0; r < nb(c); r++) {   /* dense B: column g, rows 4e r + e t + j */
				int e = tf ? 1 : 2;
				uint32_t v = 0;
				for (int j = 0; j < e; j++)
					v |= bits_of(c, D->B[w][4 * e * r + e * t + j][g]) << (16 * j);
				D->fb[L * nb(c) + r] = v;
			}
			for (int i = 0; i < 4; i++) {
				int row = g + 8 * (i / 2), col = 2 * t + i % 2;
				uint32_t b = bits_of(c, D->C[w][row][col]);
				if (c->f16cd) {
					uint32_t *p = &D->fc[L * 2 + i / 2];
					*p = i % 2 ? *p | b << 16 : b;
				} else {
					float f = (float)D->C[w][row][col];
					memcpy(&D->fc[L * 4 + i], &f, 4);
				}
			}
			/* metadata: this lane's word where it carries the group's */
			uint32_t meta = 0;
			int first = pairs ? 2 * c->sel : c->sel, half = t - first;
			if (half == 0 || (pairs && half == 1))
				for (int h = 0; h < 2; h++)
					for (int q = 0; q < 4; q++) {
						int ch = 4 * half + q, row = g + 8 * h;
						uint32_t nib = tf ? (pos[row][ch][0] ? 0xe : 0x4)
							   : (uint32_t)(pos[row][ch][0] | pos[row][ch][1] << 2);
						meta |= nib << (16 * h + 4 * q);
					}
			D->fe[L] = meta;
		}
	}
}

static int check(const spcase *c, const spdata *D, const uint32_t *out, int sm, int exact)
{
	int bad = 0;
	for (int w = 0; w < WARPS; w++)
		for (int lane = 0; lane < 32; lane++)
			for (int i = 0; i < 4; i++) {
				int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
				uint32_t r = out[(w * 32 + lane) * nd(c) + (c->f16cd ? i / 2 : i)];
				double got = c->f16cd ? sm80_f16_value((uint16_t)(i % 2 ? r >> 16 : r))
						      : (double)sm80_f32_value(r);
				long double s = D->C[w][row][col], mag = fabsl(s);
				for (int k = 0; k < c->k; k++) {
					s += (long double)D->A[w][row][k] * D->B[w][k][col];
					mag += fabsl((long double)D->A[w][row][k] * D->B[w][k][col]);
				}
				long double bound = exact ? 0 : c->k * 0x1p-23L * mag + c->k * 0x1p-149L;
				if (c->f16cd)
					bound += fabsl(s) * 0x1p-11L + 0x1p-25L;
				double want = c->f16cd ? sm80_f16_value(sm80_f16_bits((double)s)) : (double)(float)s;
				int ok = exact ? got == want : fabsl((long double)got - s) <= bound;
				if (!ok && bad++ < 5)
					FAIL("mma.%s m16n8k%d .%s selector %d on sm_%d, warp %d, D[%d][%d]: got %.9g, "
					     "want %.9Lg within %.3Lg", c->variant, c->k, c->type, c->sel, sm, w, row,
					     col, got, s, bound);
			}
	return bad;
}

static void run_case(const spcase *c, spdata *D, int exact, uint64_t seed, uint64_t instr[4])
{
	char *text = kernel_text(c);
	uint32_t *outs[4];
	void *vouts[4][8] = { { 0 } };
	fill(c, D, seed, exact);
	for (int t = 0; t < 4; t++)
		vouts[t][4] = outs[t] = calloc((size_t)WARPS * 32 * 4, 4);
	sarg args[5] = {
		{ (size_t)WARPS * 32 * 4 * 4, D->fa, NULL, 0 }, { (size_t)WARPS * 32 * 4 * 4, D->fb, NULL, 0 },
		{ (size_t)WARPS * 32 * 4 * 4, D->fc, NULL, 0 }, { (size_t)WARPS * 32 * 4, D->fe, NULL, 0 },
		{ (size_t)WARPS * 32 * 4 * 4, NULL, NULL, 0 },
	};
	srun R = { .kernel = "sp_test", .grid = WARPS, .block = 32, .args = args, .nargs = 5 };
	if (!sm80_run_all(text, &R, vouts, instr))
		for (int t = 0; t < 4; t++)
			check(c, D, outs[t], t ? sm80_targets[t - 1] : 80, exact);
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(text);
}

static spdata *data_new(void)
{
	spdata *D = calloc(1, sizeof(*D));
	D->fa = calloc((size_t)WARPS * 32 * 4, 4);
	D->fb = calloc((size_t)WARPS * 32 * 4, 4);
	D->fc = calloc((size_t)WARPS * 32 * 4, 4);
	D->fe = calloc((size_t)WARPS * 32, 4);
	return D;
}

static void data_free(spdata *D)
{
	free(D->fa), free(D->fb), free(D->fc), free(D->fe), free(D);
}

/* A nibble naming one column twice (0b0101): the launch fails on sm_80. */
static void invalid_metadata(spdata *D)
{
	const spcase *c = &cases[0];
	char *text = kernel_text(c);
	fill(c, D, 7, 0);
	D->fe[0] = (D->fe[0] & ~0xfu) | 0x5;   /* lane 0 carries the metadata for selector 0 */
	sarg args[5] = {
		{ (size_t)WARPS * 32 * 4 * 4, D->fa, NULL, 0 }, { (size_t)WARPS * 32 * 4 * 4, D->fb, NULL, 0 },
		{ (size_t)WARPS * 32 * 4 * 4, D->fc, NULL, 0 }, { (size_t)WARPS * 32 * 4, D->fe, NULL, 0 },
		{ (size_t)WARPS * 32 * 4 * 4, NULL, NULL, 0 },
	};
	srun R = { .kernel = "sp_test", .grid = WARPS, .block = 32, .args = args, .nargs = 5 };
	int st = sim_run(text, strlen(text), 80, &R);
	CHECK(st != 0 && strstr(R.err, "metadata"), "mma.sp with metadata 0b0101 on sm_80: status %d (%s), "
	      "want a failed launch", st, R.err);
	free(text);
}

int test_sm80_mma_sp(int argc, char **argv)
{
	(void)argc, (void)argv;
	spdata *D = data_new();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int exact = 0; exact < 2; exact++)
			run_case(&cases[i], D, exact, 100 + 10 * i + (size_t)exact, NULL);
		printf("mma.%s m16n8k%d .%s%s selector %d: checked on sm_80, sm_75, sm_70, sm_61\n",
		       cases[i].variant, cases[i].k, cases[i].type, cases[i].f16cd ? " (f16 C, D)" : "",
		       cases[i].sel);
	}
	invalid_metadata(D);
	data_free(D);
	return 0;
}

void bench_sm80_mma_sp(sm80_bench_fn add)
{
	spdata *D = data_new();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t instr[4] = { 0 };
		char name[96];
		snprintf(name, sizeof(name), "%s m16n8k%d %s sel%d", cases[i].variant, cases[i].k,
			 cases[i].type, cases[i].sel);
		run_case(&cases[i], D, 0, 500 + i, instr);
		add("mma.sp", name, "random", instr);
	}
	data_free(D);
}
