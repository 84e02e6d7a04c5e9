/* test_sm80_mma_types.c: mma with 8-bit integers, fp8 and f64 (emit_mma_types.c).  Each form
 * runs as one warp's fragments loaded from memory, the original on simulated sm_80 (sm_90
 * for fp8, which needs sm_89), the lowered text on sm_75, sm_70 and sm_61.
 *
 * int8: m16n8k32 and m16n8k16, every signedness pair, with and without .satfinite, on
 *   random bytes and accumulators, some near the ends of s32: bit-identical.
 * fp8: m16n8k32 (the four type pairs) and m16n8k16 on every byte of both formats against
 *   a one-hot B, so that D is C plus each A value exactly (NaN and infinities included, a
 *   row at a time); and on multiples of 1/8 below 2, whose products and sums are exact in
 *   f32 in any order: bit-identical.
 * f64: m8n8k4 on random values: bit-identical (one fma.rn.f64 per step in k order). */
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define MAXW 16                     /* words per lane and operand */

/* One warp: lane l loads na words of A, nb of B, nc of C (each `word` bytes) from
 * a + l * na * word, ..., runs `mma` and stores nd words of D. */
static char *kernel(const char *version, const char *target, const char *mma, int na, int nb,
		    int nc, int nd, int word)
{
	const char *reg = word == 8 ? "%fd" : "%r";
	char *t = malloc(8192);
	int n = snprintf(t, 8192,
		".version %s\n.target %s\n.address_size 64\n"
		".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
		"\t.reg .b32 %%r<40>;\n\t.reg .f64 %%fd<40>;\n\t.reg .b64 %%rd<12>;\n"
		"\tmov.u32 %%r39, %%laneid;\n", version, target);
	const char *par[4] = { "pa", "pb", "pc", "pd" };
	int cnt[4] = { na, nb, nc, nd }, base[4] = { 0, 8, 16, 24 };
	for (int o = 0; o < 4; o++) {
		n += snprintf(t + n, 8192 - n, "\tld.param.u64 %%rd%d, [%s];\n"
			      "\tmul.wide.u32 %%rd8, %%r39, %d;\n\tadd.u64 %%rd%d, %%rd%d, %%rd8;\n",
			      o + 1, par[o], cnt[o] * word, o + 1, o + 1);
		for (int i = 0; i < cnt[o] && o < 3; i++)
			n += snprintf(t + n, 8192 - n, "\tld.global.b%d %s%d, [%%rd%d+%d];\n", 8 * word,
				      reg, base[o] + i, o + 1, i * word);
	}
	n += snprintf(t + n, 8192 - n, "\t%s ", mma);
	for (int o = 0; o < 4; o++) {
		int src = o == 0 ? 3 : o - 1;    /* d, a, b, c */
		n += snprintf(t + n, 8192 - n, "%s{", o ? ", " : "");
		for (int i = 0; i < cnt[src]; i++)
			n += snprintf(t + n, 8192 - n, "%s%s%d", i ? ", " : "", reg, base[src] + i);
		n += snprintf(t + n, 8192 - n, "}");
	}
	n += snprintf(t + n, 8192 - n, ";\n");
	for (int i = 0; i < nd; i++)
		n += snprintf(t + n, 8192 - n, "\tst.global.b%d [%%rd4+%d], %s%d;\n", 8 * word,
			      i * word, reg, 24 + i);
	snprintf(t + n, 8192 - n, "\tret;\n}\n");
	return t;
}

/* Runs text with the operands, the original on sm0 and lowered on the three targets; 0
 * when every target's D equals the original's. */
static int compare(const char *what, const char *text, int sm0, const void *a, const void *b,
		   const void *c, size_t asz, size_t bsz, size_t csz, size_t dsz)
{
	sarg args[4] = { { asz, a, NULL, 0 }, { bsz, b, NULL, 0 }, { csz, c, NULL, 0 },
			 { dsz, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = 1, .block = 32, .args = args, .nargs = 4 };
	uint32_t *d[4];
	int bad = sm80_run_on(text, sm0, &R, 3, d) || !sm80_same_words(d, dsz / 4, what);
	for (int t = 0; t < 4; t++)
		free(d[t]);
	return bad;
}

static void test_int8(void)
{
	static const char *const types[] = { "s8", "u8" };
	uint64_t seed = 41;
	uint32_t a[32 * 4], b[32 * 2], c[32 * 4];
	for (int k = 0; k < 2; k++)
		for (int sat = 0; sat < 2; sat++)
			for (int at = 0; at < 2; at++)
				for (int bt = 0; bt < 2; bt++) {
					int kk = k ? 32 : 16, na = kk / 8, nb = kk / 16;
					char mma[128];
					snprintf(mma, sizeof mma, "mma.sync.aligned.m16n8k%d.row.col%s.s32.%s.%s.s32",
						 kk, sat ? ".satfinite" : "", types[at], types[bt]);
					for (int i = 0; i < 32 * 4; i++) {
						a[i] = (uint32_t)sim_rng(&seed);
						/* near the ends of s32, and small */
						c[i] = i % 3 == 0 ? 0x7fffff00u + (uint32_t)(i * 97 % 512)
						     : i % 3 == 1 ? 0x80000000u + (uint32_t)(i * 31 % 512)
								  : (uint32_t)sim_rng(&seed) % 100000;
					}
					for (int i = 0; i < 32 * 2; i++)
						b[i] = (uint32_t)sim_rng(&seed);
					char *text = kernel("7.0", "sm_80", mma, na, nb, 4, 4, 4);
					compare(mma, text, 80, a, b, c, 32 * 4 * na, 32 * 4 * nb, 32 * 16, 32 * 16);
					free(text);
				}
}

/* fp8 with an exact answer: A covers every byte (two rows hold the NaN/infinity bytes: each
 * makes its own row NaN); B one-hot (column c: 1.0 at k = c); or multiples of 1/8. */
static void test_fp8(void)
{
	static const char *const types[] = { "e4m3", "e5m2" };
	static const uint8_t one[] = { 0x38, 0x3c };      /* 1.0 in e4m3, e5m2 */
	uint64_t seed = 43;
	for (int k = 0; k < 2; k++)
		for (int pair = 0; pair < 4; pair++)
			for (int exact = 0; exact < 2; exact++) {
				int at = pair / 2, bt = pair % 2, kk = k ? 32 : 16;
				int na = kk / 8, nb = kk / 16;
				uint8_t A[16][32], B[32][8];
				uint32_t a[32 * 4] = { 0 }, b[32 * 2] = { 0 }, c[32 * 4];
				char mma[128];
				if (k == 0 && pair)
					continue;     /* m16n8k16: one pair is enough */
				snprintf(mma, sizeof mma, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", kk,
					 types[at], types[bt]);
				for (int r = 0; r < 16; r++)
					for (int q = 0; q < kk; q++) {
						/* 1/8 to 2: e4m3 0x20-0x3f (multiples of 1/64), e5m2
						 * 0x30-0x3f (of 1/32); products and sums stay within
						 * 24 bits */
						uint8_t v = (uint8_t)(sim_rng(&seed) % 32), s = (uint8_t)(sim_rng(&seed) % 2 << 7);
						A[r][q] = exact ? (uint8_t)(s | (at ? 0x30 + v % 16 : 0x20 + v))
								: (uint8_t)(r * kk + q);
					}
				for (int q = 0; q < kk; q++)
					for (int col = 0; col < 8; col++) {
						uint8_t v = (uint8_t)(sim_rng(&seed) % 32);
						B[q][col] = exact ? (uint8_t)(bt ? 0x30 + v % 16 : 0x20 + v)
								: q == col ? one[bt] : 0;
					}
				/* fragments: A register r of lane l: row g + 8 (r % 2), k 16 (r / 2) + 4t.. */
				for (int l = 0; l < 32; l++) {
					int g = l / 4, t = l % 4;
					for (int r = 0; r < na; r++)
						for (int j = 0; j < 4; j++)
							a[l * na + r] |= (uint32_t)A[g + 8 * (r % 2)][16 * (r / 2) + 4 * t + j] << 8 * j;
					for (int r = 0; r < nb; r++)
						for (int j = 0; j < 4; j++)
							b[l * nb + r] |= (uint32_t)B[16 * r + 4 * t + j][g] << 8 * j;
				}
				for (int i = 0; i < 32 * 4; i++) {
					float v = (float)((int)(sim_rng(&seed) % 2001) - 1000) / 64;
					memcpy(&c[i], &v, 4);
				}
				char *text = kernel("8.7", "sm_90", mma, na, nb, 4, 4, 4);
				char what[160];
				snprintf(what, sizeof what, "%s (%s)", mma, exact ? "exact sums" : "every byte");
				compare(what, text, 90, a, b, c, 32 * 4 * na, 32 * 4 * nb, 32 * 16, 32 * 16);
				free(text);
			}
}

static void test_f64(void)
{
	uint64_t seed = 47;
	double a[32], b[32], c[64];
	for (int i = 0; i < 32; i++) {
		a[i] = (double)(int64_t)sim_rng(&seed) / 9.7e17;
		b[i] = (double)(int64_t)sim_rng(&seed) / 3.1e18;
	}
	for (int i = 0; i < 64; i++)
		c[i] = (double)(int64_t)sim_rng(&seed) / 7.3e18;
	char *text = kernel("7.0", "sm_80", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 1, 1,
			    2, 2, 8);
	compare("mma.m8n8k4.f64", text, 80, a, b, c, sizeof a, sizeof b, sizeof c, sizeof c);
	free(text);
}

int test_sm80_mma_types(int argc, char **argv)
{
	(void)argc, (void)argv;
	test_int8();
	test_fp8();
	test_f64();
	return 0;
}
