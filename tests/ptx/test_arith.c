/* test_arith.c: lowered bf16/bf16x2 arithmetic against the oracle: random operands, exact
 * ties (and ties plus a tiny sticky term, the double-rounding trap of a plain f32 fma),
 * cancellation, far exponents, subnormal results and the special values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define BATCH 65536

static uint16_t bf16_of(int neg, unsigned sig, int exp)   /* sig in [1, 255], sig*2^exp */
{
	return (uint16_t)ex_round_int(neg, sig, exp, FMT_BF16, RND_RN, 0);
}

static int exp_of(uint16_t h)   /* exponent of the leading bit of a finite nonzero bf16 */
{
	int E = (h >> 7) & 0xff;
	if (E)
		return E - 127;
	return -133 + (31 - __builtin_clz(h & 0x7fu));
}

static uint16_t finite_bf16(uint64_t *rng)
{
	uint16_t h;
	do
		h = (uint16_t)rng_next(rng);
	while ((h & 0x7f80) == 0x7f80 || !(h & 0x7fff));
	return h;
}

/* fma operands: random, an exact tie (a*b is an odd multiple of half an ulp of c), a
 * product that is itself a bf16 midpoint plus a tiny or zero c, a cancelling c. */
static void fma_case(uint64_t *rng, uint16_t *a, uint16_t *b, uint16_t *c)
{
	uint64_t r = rng_next(rng);
	int neg = (int)(r >> 63);
	switch (r % 6) {
	case 0: case 1:
		*a = rng_bf16(rng), *b = rng_bf16(rng), *c = rng_bf16(rng);
		return;
	case 2: {
		*c = finite_bf16(rng);
		int e = exp_of(*c) - 8 - (int)((r >> 8) % 2);
		*a = bf16_of(neg, (unsigned)((r >> 16) % 128) * 2 + 1, 0);
		*b = bf16_of(0, 1, e);
		return;
	}
	case 3: {
		unsigned x, y;
		do {
			x = (unsigned)(rng_next(rng) % 128) * 2 + 1;
			y = (unsigned)(rng_next(rng) % 128) * 2 + 1;
		} while (x * y < 257 || x * y > 511);
		int ea = (int)((r >> 8) % 200) - 110, eb = (int)((r >> 20) % 60) - 30;
		*a = bf16_of(neg, x, ea), *b = bf16_of(0, y, eb);
		int ep = exp_of(*a) + exp_of(*b);
		*c = r & (1 << 30) ? (uint16_t)(neg ? 0x8000 : 0)
				   : bf16_of((int)(r >> 31) & 1, 1 + (unsigned)((r >> 40) % 255),
					     ep - 20 - (int)((r >> 32) % 60));
		return;
	}
	case 4: {
		*a = finite_bf16(rng), *b = finite_bf16(rng);
		double p = ex_bf16_value(*a) * ex_bf16_value(*b);   /* exact */
		float f = (float)(-p);
		uint32_t u;
		memcpy(&u, &f, 4);
		*c = (uint16_t)((u >> 16) + ((r >> 8) & 3) - 1);
		return;
	}
	default:   /* subnormal products near the bottom of the range */
		*a = bf16_of(neg, 1 + (unsigned)((r >> 8) % 255), -70 - (int)((r >> 16) % 10));
		*b = bf16_of(0, 1 + (unsigned)((r >> 24) % 255), -60 - (int)((r >> 32) % 10));
		*c = (uint16_t)(rng_next(rng) & 0x80ff);
		return;
	}
}

static int run_fma(const char *stmt, int x2, int relu, uint64_t seed)
{
	runner R;
	uint64_t rng = seed;
	if (runner_init(&R, stmt, BATCH))
		return 1;
	for (int it = 0; it < 8; it++) {
		for (int l = 0; l < BATCH; l++) {
			uint16_t a, b, c, a2, b2, c2;
			fma_case(&rng, &a, &b, &c);
			fma_case(&rng, &a2, &b2, &c2);
			R.buf[1][0][l] = x2 ? (uint64_t)a2 << 16 | a : a;
			R.buf[2][0][l] = x2 ? (uint64_t)b2 << 16 | b : b;
			R.buf[3][0][l] = x2 ? (uint64_t)c2 << 16 | c : c;
		}
		if (runner_run(&R, BATCH, NULL))
			return 1;
		for (int l = 0; l < BATCH; l++) {
			uint64_t A = R.buf[1][0][l], B = R.buf[2][0][l], C = R.buf[3][0][l];
			uint64_t want = ex_fma((uint16_t)A, (uint16_t)B, (uint16_t)C, relu);
			if (x2)
				want |= (uint64_t)ex_fma((uint16_t)(A >> 16), (uint16_t)(B >> 16),
							 (uint16_t)(C >> 16), relu) << 16;
			CHECK_EQ(R.buf[0][0][l], want, "%s a=0x%llx b=0x%llx c=0x%llx", stmt,
				 (unsigned long long)A, (unsigned long long)B, (unsigned long long)C);
		}
	}
	runner_free(&R);
	return 0;
}

int test_fma(int argc, char **argv)
{
	(void)argc, (void)argv;
	return run_fma("fma.rn.bf16 %rs1, %rs2, %rs3, %rs4;", 0, 0, 10) ||
	       run_fma("fma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs4;", 0, 1, 11) ||
	       run_fma("fma.rn.bf16x2 %r1, %r2, %r3, %r4;", 1, 0, 12) ||
	       run_fma("fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;", 1, 1, 13);
}

enum { OP_ADD, OP_SUB, OP_MUL };

static uint16_t ex_op(int op, uint16_t a, uint16_t b)
{
	return op == OP_ADD ? ex_add(a, b) : op == OP_SUB ? ex_sub(a, b) : ex_mul(a, b);
}

/* Pairs: random, exact ties, exponents 8..40 apart, subnormal products. */
static void pair_case(uint64_t *rng, int op, uint16_t *a, uint16_t *b)
{
	uint64_t r = rng_next(rng);
	int neg = (int)(r >> 63);
	switch (r % 4) {
	case 0:
		*a = rng_bf16(rng), *b = rng_bf16(rng);
		return;
	case 1:
		*a = finite_bf16(rng);
		if (op == OP_MUL) {
			unsigned x, y;
			do {
				x = (unsigned)(rng_next(rng) % 128) * 2 + 1;
				y = (unsigned)(rng_next(rng) % 128) * 2 + 1;
			} while (x * y < 257 || x * y > 511);
			*a = bf16_of(neg, x, (int)((r >> 8) % 200) - 110);
			*b = bf16_of(0, y, (int)((r >> 20) % 40) - 20);
		} else {
			*b = bf16_of(neg, (unsigned)((r >> 16) % 128) * 2 + 1, exp_of(*a) - 8 - (int)((r >> 8) % 2));
		}
		return;
	case 2:
		*a = finite_bf16(rng);
		*b = bf16_of(neg, 1 + (unsigned)((r >> 16) % 255), exp_of(*a) - 8 - (int)((r >> 8) % 33));
		return;
	default:
		*a = bf16_of(neg, 1 + (unsigned)((r >> 8) % 255), -60 - (int)((r >> 16) % 20));
		*b = op == OP_MUL ? bf16_of(0, 1 + (unsigned)((r >> 24) % 255), -60 - (int)((r >> 32) % 20))
				  : (uint16_t)(rng_next(rng) & 0x80ff);
		return;
	}
}

int test_add_sub_mul(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const names[3] = { "add", "sub", "mul" };
	uint64_t rng = 20;
	for (int op = 0; op < 3; op++) {
		for (int form = 0; form < 3; form++) {   /* .rn.bf16, .bf16, .rn.bf16x2 */
			char stmt[64];
			runner R;
			int x2 = form == 2;
			snprintf(stmt, sizeof(stmt), "%s%s.%s %s, %s, %s;", names[op],
				 form == 1 ? "" : ".rn", x2 ? "bf16x2" : "bf16", x2 ? "%r1" : "%rs1",
				 x2 ? "%r2" : "%rs2", x2 ? "%r3" : "%rs3");
			if (runner_init(&R, stmt, BATCH))
				return 1;
			for (int it = 0; it < 4; it++) {
				for (int l = 0; l < BATCH; l++) {
					uint16_t a, b, a2, b2;
					pair_case(&rng, op, &a, &b);
					pair_case(&rng, op, &a2, &b2);
					if (rng_next(&rng) & 1) {   /* either operand may be the big one */
						uint16_t t = a;
						a = b, b = t;
					}
					R.buf[1][0][l] = x2 ? (uint64_t)a2 << 16 | a : a;
					R.buf[2][0][l] = x2 ? (uint64_t)b2 << 16 | b : b;
				}
				if (runner_run(&R, BATCH, NULL))
					return 1;
				for (int l = 0; l < BATCH; l++) {
					uint64_t A = R.buf[1][0][l], B = R.buf[2][0][l];
					uint64_t want = ex_op(op, (uint16_t)A, (uint16_t)B);
					if (x2)
						want |= (uint64_t)ex_op(op, (uint16_t)(A >> 16), (uint16_t)(B >> 16)) << 16;
					CHECK_EQ(R.buf[0][0][l], want, "%s a=0x%llx b=0x%llx", stmt,
						 (unsigned long long)A, (unsigned long long)B);
				}
			}
			runner_free(&R);
		}
	}
	return 0;
}

/* add_sub_mul_pairs OP PART NPARTS: every pair of bf16 operands (2^32) of one part. */
int test_add_sub_mul_pairs(int argc, char **argv)
{
	int op = argc >= 1 ? (!strcmp(argv[0], "add") ? OP_ADD : !strcmp(argv[0], "sub") ? OP_SUB
			      : !strcmp(argv[0], "mul") ? OP_MUL : -1) : OP_ADD;
	unsigned part = argc >= 3 ? (unsigned)atoi(argv[1]) : 0;
	unsigned nparts = argc >= 3 ? (unsigned)atoi(argv[2]) : 1;
	if (op < 0 || nparts == 0 || nparts > 65536 || part >= nparts || 65536 % nparts)
		return FAIL("usage: add_sub_mul_pairs add|sub|mul PART NPARTS (dividing 65536)"), 1;
	static const char *const names[3] = { "add", "sub", "mul" };
	char stmt[64];
	runner R;
	snprintf(stmt, sizeof(stmt), "%s.rn.bf16 %%rs1, %%rs2, %%rs3;", names[op]);
	if (runner_init(&R, stmt, BATCH))
		return 1;
	unsigned per = 65536 / nparts;
	for (unsigned a = part * per; a < (part + 1) * per; a++) {
		for (int l = 0; l < BATCH; l++) {
			R.buf[1][0][l] = a;
			R.buf[2][0][l] = (uint64_t)l;
		}
		if (runner_run(&R, BATCH, NULL))
			return 1;
		for (int l = 0; l < BATCH; l++) {
			uint16_t want = ex_op(op, (uint16_t)a, (uint16_t)l);
			if (R.buf[0][0][l] != want)
				CHECK_EQ(R.buf[0][0][l], want, "%s a=0x%04x b=0x%04x", stmt, a, l);
		}
	}
	runner_free(&R);
	return 0;
}
