/* test_misc.c: lowered min/max, neg/abs, setp/set, the approximations, and guards. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define BATCH 65536

/* Operand pairs: every pair of 256 values (specials and random) for scalars; random
 * halves for x2. */
static void fill_pairs(runner *R, int x2, uint64_t *rng)
{
	static uint16_t set[256];
	for (int i = 0; i < 256; i++)
		set[i] = rng_bf16(rng);
	for (int l = 0; l < BATCH; l++) {
		uint64_t a = set[l & 255], b = set[(l >> 8) & 255];
		if (x2) {
			a |= (uint64_t)rng_bf16(rng) << 16;
			b |= (uint64_t)rng_bf16(rng) << 16;
		}
		R->buf[1][0][l] = a;
		R->buf[2][0][l] = b;
	}
}

int test_min_max(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const mods[4] = { "", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs" };
	uint64_t rng = 30;
	for (int mx = 0; mx < 2; mx++)
		for (int m = 0; m < 4; m++)
			for (int x2 = 0; x2 < 2; x2++) {
				char stmt[80];
				runner R;
				snprintf(stmt, sizeof(stmt), "%s%s.%s %s, %s, %s;", mx ? "max" : "min",
					 mods[m], x2 ? "bf16x2" : "bf16", x2 ? "%r1" : "%rs1",
					 x2 ? "%r2" : "%rs2", x2 ? "%r3" : "%rs3");
				if (runner_init(&R, stmt, BATCH))
					return 1;
				fill_pairs(&R, x2, &rng);
				if (runner_run(&R, BATCH, NULL))
					return 1;
				for (int l = 0; l < BATCH; l++) {
					uint64_t A = R.buf[1][0][l], B = R.buf[2][0][l];
					uint64_t want = ex_minmax((uint16_t)A, (uint16_t)B, mx, m & 1, m >> 1);
					if (x2)
						want |= (uint64_t)ex_minmax((uint16_t)(A >> 16), (uint16_t)(B >> 16),
									    mx, m & 1, m >> 1) << 16;
					CHECK_EQ(R.buf[0][0][l], want, "%s a=0x%llx b=0x%llx", stmt,
						 (unsigned long long)A, (unsigned long long)B);
				}
				runner_free(&R);
			}
	return 0;
}

int test_neg_abs(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const stmts[4] = { "neg.bf16 %rs1, %rs2;", "abs.bf16 %rs1, %rs2;",
					      "neg.bf16x2 %r1, %r2;", "abs.bf16x2 %r1, %r2;" };
	uint64_t rng = 31;
	for (int k = 0; k < 4; k++) {
		runner R;
		if (runner_init(&R, stmts[k], BATCH))
			return 1;
		for (int l = 0; l < BATCH; l++)
			R.buf[1][0][l] = k < 2 ? (uint64_t)l : (uint32_t)rng_next(&rng);
		if (runner_run(&R, BATCH, NULL))
			return 1;
		for (int l = 0; l < BATCH; l++) {
			uint64_t a = R.buf[1][0][l];
			uint64_t want = k & 1 ? a & 0x7fff7fff : a ^ (k < 2 ? 0x8000 : 0x80008000u);
			CHECK_EQ(R.buf[0][0][l], want, "%s of 0x%llx", stmts[k], (unsigned long long)a);
		}
		runner_free(&R);
	}
	return 0;
}

static const char *const cmps[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu",
				     "leu", "gtu", "geu", "num", "nan" };

static int boolop(int k, int v, int c)
{
	return k == 0 ? v : k == 1 ? v && c : k == 2 ? v || c : v ^ c;
}

int test_compare(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const bops[4] = { "", ".and", ".or", ".xor" };
	uint64_t rng = 32;
	for (size_t ci = 0; ci < sizeof(cmps) / sizeof(cmps[0]); ci++) {
		for (int form = 0; form < 7; form++) {
			/* 0 setp, 1 setp x2 p|q, 2 set.u32, 3 set.s32 from bf16x2, 4 set.bf16, 5 set.bf16x2,
			 * 6 set.bf16 from u32 sources */
			int bk = (int)(ci % 4), x2 = form == 1 || form == 3 || form == 5;
			const char *bop = bops[bk];
			char stmt[96], tail[32] = "";
			runner R;
			if (bk)
				snprintf(tail, sizeof(tail), ", %%p3");
			switch (form) {
			case 0: snprintf(stmt, sizeof(stmt), "setp.%s%s.bf16 %%p1, %%rs2, %%rs3%s;", cmps[ci], bop, tail); break;
			case 1: snprintf(stmt, sizeof(stmt), "setp.%s%s.bf16x2 %%p1|%%p2, %%r2, %%r3%s;", cmps[ci], bop, tail); break;
			case 2: snprintf(stmt, sizeof(stmt), "set.%s%s.u32.bf16 %%r1, %%rs2, %%rs3%s;", cmps[ci], bop, tail); break;
			case 3: snprintf(stmt, sizeof(stmt), "set.%s%s.s32.bf16x2 %%r1, %%r2, %%r3%s;", cmps[ci], bop, tail); break;
			case 4: snprintf(stmt, sizeof(stmt), "set.%s%s.bf16.bf16 %%rs1, %%rs2, %%rs3%s;", cmps[ci], bop, tail); break;
			case 5: snprintf(stmt, sizeof(stmt), "set.%s%s.bf16x2.bf16x2 %%r1, %%r2, %%r3%s;", cmps[ci], bop, tail); break;
			default: snprintf(stmt, sizeof(stmt), "set.%s%s.bf16.u32 %%rs1, %%r2, %%r3%s;", cmps[ci], bop, tail); break;
			}
			if (form == 6 && ci >= 6)
				continue;   /* unordered compares are for floating point */
			if (runner_init(&R, stmt, BATCH))
				return 1;
			fill_pairs(&R, x2, &rng);
			for (int l = 0; l < BATCH; l++)
				R.buf[3][0][l] = rng_next(&rng) & 1;
			if (runner_run(&R, BATCH, NULL))
				return 1;
			for (int l = 0; l < BATCH; l++) {
				uint64_t A = R.buf[1][0][l], B = R.buf[2][0][l];
				int c = (int)R.buf[3][0][l];
				int lo = boolop(bk, ex_compare(cmps[ci], (uint16_t)A, (uint16_t)B), c);
				int hi = boolop(bk, ex_compare(cmps[ci], (uint16_t)(A >> 16), (uint16_t)(B >> 16)), c);
				uint64_t got = R.buf[0][0][l], want;
				switch (form) {
				case 0: want = (uint64_t)lo; break;
				case 1: got = R.buf[0][1][l] | R.buf[0][2][l] << 1; want = (uint64_t)(lo | hi << 1); break;
				case 2: want = lo ? 0xffffffffu : 0; break;
				case 3: want = (lo ? 0xffffu : 0) | (hi ? 0xffff0000u : 0); break;
				case 4: want = lo ? 0x3f80 : 0; break;
				case 5: want = (lo ? 0x3f80u : 0) | (hi ? 0x3f800000u : 0); break;
				default: {
					uint32_t x = (uint32_t)A, y = (uint32_t)B;
					int v = !strcmp(cmps[ci], "eq") ? x == y : !strcmp(cmps[ci], "ne") ? x != y
						: !strcmp(cmps[ci], "lt") ? x < y : !strcmp(cmps[ci], "le") ? x <= y
						: !strcmp(cmps[ci], "gt") ? x > y : x >= y;
					want = boolop(bk, v, c) ? 0x3f80 : 0;
				}
				}
				CHECK_EQ(got, want, "%s a=0x%llx b=0x%llx c=%d", stmt,
					 (unsigned long long)A, (unsigned long long)B, c);
			}
			runner_free(&R);
		}
	}
	return 0;
}

/* ex2.approx.ftz and tanh.approx are approximations: the lowering is the f32
 * approximation rounded once, so it must be within one bf16 ulp of the exact value. */
int test_approx(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const stmts[2] = { "ex2.approx.ftz.bf16 %rs1, %rs2;",
					      "tanh.approx.bf16 %rs1, %rs2;" };
	for (int k = 0; k < 2; k++) {
		runner R;
		if (runner_init(&R, stmts[k], BATCH))
			return 1;
		for (int l = 0; l < BATCH; l++)
			R.buf[1][0][l] = (uint64_t)l;
		if (runner_run(&R, BATCH, NULL))
			return 1;
		for (int l = 0; l < BATCH; l++) {
			double x = ex_bf16_value((uint16_t)l);
			if (k == 0 && fabs(x) < 0x1p-126)
				x = 0;   /* .ftz */
			double e = k ? tanh(x) : exp2(x);
			uint16_t got = (uint16_t)R.buf[0][0][l];
			double g = ex_bf16_value(got);
			if (isnan(e)) {
				CHECK(ex_is_nan16(got), "%s of 0x%04x: want NaN, got 0x%04x", stmts[k], l, got);
				continue;
			}
			uint64_t eb;
			memcpy(&eb, &e, 8);
			uint16_t near = ex_f64_to_bf16(eb, RND_RN);
			int ulps = abs((int)(got & 0x7fff) - (int)(near & 0x7fff));
			int ok = got == near || (((got ^ near) & 0x8000) == 0 && ulps <= 1) ||
				 (fabs(e) < 0x1p-126 && fabs(g) < 0x1p-126);
			CHECK(ok, "%s of 0x%04x: got 0x%04x, nearest 0x%04x", stmts[k], l, got, near);
		}
		runner_free(&R);
	}
	return 0;
}

/* A guarded instruction writes its destinations only where the guard holds, and a
 * negated guard is honoured; with several destinations (p|q) as well. */
int test_guard(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const stmts[] = {
		"@%p5 cvt.rn.bf16.f32 %rs1, %f1;", "@!%p5 fma.rn.bf16x2 %r1, %r2, %r3, %r4;",
		"@%p5 cvt.rni.s32.bf16 %r1, %rs2;", "@!%p5 setp.lt.bf16x2 %p1|%p2, %r2, %r3;",
		"@%p5 neg.bf16 %rs1, %rs2;",
	};
	uint64_t rng = 33;
	uint8_t *guard = malloc(BATCH);
	for (size_t k = 0; k < sizeof(stmts) / sizeof(stmts[0]); k++) {
		runner R, U;
		if (runner_init(&R, stmts[k], BATCH) || runner_init(&U, strchr(stmts[k], ' ') + 1, BATCH))
			return 1;
		int neg = stmts[k][1] == '!';
		for (int l = 0; l < BATCH; l++) {
			uint8_t g = (uint8_t)(rng_next(&rng) & 1);
			guard[l] = neg ? !g : g;
			for (int i = 1; i < 4; i++)
				R.buf[i][0][l] = U.buf[i][0][l] = (uint32_t)rng_next(&rng);
			for (int p = 0; p < 3; p++)
				R.buf[0][p][l] = 0xdead;
		}
		if (runner_run(&R, BATCH, guard) || runner_run(&U, BATCH, NULL))
			return 1;
		int parts = strchr(stmts[k], '|') ? 2 : 0;
		for (int l = 0; l < BATCH; l++)
			for (int p = parts ? 1 : 0; p <= parts; p++)
				CHECK_EQ(R.buf[0][p][l], guard[l] ? U.buf[0][p][l] : 0xdead,
					 "%s lane %d part %d (guard %d)", stmts[k], l, p, guard[l]);
		runner_free(&R);
		runner_free(&U);
	}
	free(guard);
	return 0;
}
