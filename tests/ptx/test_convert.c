/* test_convert.c: every lowered cvt against the oracle: all 2^16 inputs for 16-bit
 * sources, all 2^32 f32 inputs for cvt.rn/.rz.bf16.f32 (in parts), and every rounding
 * class for the rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define BATCH 65536

static const unsigned flag_sets[4] = { 0, M_RELU, M_SATF, M_RELU | M_SATF };

static void cvt_name(char *buf, size_t cap, int rnd, unsigned flags, const char *types)
{
	snprintf(buf, cap, "cvt.%s%s%s.%s", rnd_names[rnd], flags & M_RELU ? ".relu" : "",
		 flags & M_SATF ? ".satfinite" : "", types);
}

static int parse_rnd(const char *s)
{
	for (int r = RND_RN; r <= RND_RP; r++)
		if (!strcmp(s, rnd_names[r]))
			return r;
	return -1;
}

/* f32 inputs covering every rounding class: all exponents and top fraction bits, with the
 * 16 bits that are rounded away set to each interesting pattern. */
static uint32_t sample_f32(uint64_t i, uint64_t *rng)
{
	static const uint16_t low[] = { 0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff, 0x4000,
					0xc000 };
	uint32_t hi = (uint32_t)(i / 12) << 16;
	unsigned k = (unsigned)(i % 12);
	return hi | (k < 8 ? low[k] : (uint16_t)rng_next(rng));
}

int test_cvt_f32_bf16_sampled(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t rng = 1;
	for (int rnd = RND_RN; rnd <= RND_RP; rnd++) {
		for (int f = 0; f < 4; f++) {
			char stmt[96], op[64];
			runner R;
			cvt_name(op, sizeof(op), rnd, flag_sets[f], "bf16.f32");
			snprintf(stmt, sizeof(stmt), "%s %%rs1, %%f1;", op);
			if (runner_init(&R, stmt, BATCH))
				return 1;
			for (uint64_t base = 0; base < 65536ull * 12; base += BATCH) {
				for (int l = 0; l < BATCH; l++)
					R.buf[1][0][l] = sample_f32(base + (uint64_t)l, &rng);
				if (runner_run(&R, BATCH, NULL))
					return 1;
				for (int l = 0; l < BATCH; l++) {
					uint32_t x = (uint32_t)R.buf[1][0][l];
					CHECK_EQ(R.buf[0][0][l], ex_f32_to_bf16(x, rnd, flag_sets[f]),
						 "%s of 0x%08x", op, x);
				}
			}
			runner_free(&R);
		}
	}
	return 0;
}

/* cvt_f32_bf16_all MODE PART NPARTS: all f32 inputs of one part against the oracle. */
int test_cvt_f32_bf16_all(int argc, char **argv)
{
	int rnd = argc >= 1 ? parse_rnd(argv[0]) : RND_RN;
	unsigned part = argc >= 3 ? (unsigned)atoi(argv[1]) : 0;
	unsigned nparts = argc >= 3 ? (unsigned)atoi(argv[2]) : 1;
	if (rnd < 0 || nparts == 0 || part >= nparts || (nparts & (nparts - 1)))
		return FAIL("usage: cvt_f32_bf16_all rn|rz|rm|rp PART NPARTS(power of 2)"), 1;
	char stmt[64];
	runner R;
	snprintf(stmt, sizeof(stmt), "cvt.%s.bf16.f32 %%rs1, %%f1;", rnd_names[rnd]);
	if (runner_init(&R, stmt, BATCH))
		return 1;
	uint64_t span = (1ull << 32) / nparts, first = span * part;
	for (uint64_t base = first; base < first + span; base += BATCH) {
		for (int l = 0; l < BATCH; l++)
			R.buf[1][0][l] = base + (uint64_t)l;
		if (runner_run(&R, BATCH, NULL))
			return 1;
		for (int l = 0; l < BATCH; l++) {
			uint32_t x = (uint32_t)(base + (uint64_t)l);
			if (R.buf[0][0][l] != ex_f32_to_bf16(x, rnd, 0))
				CHECK_EQ(R.buf[0][0][l], ex_f32_to_bf16(x, rnd, 0), "%s of 0x%08x", stmt, x);
		}
	}
	runner_free(&R);
	return 0;
}

/* cvt.frnd{.relu}{.satfinite}.bf16x2.f32 d, a, b: a to the high half, b to the low. */
int test_cvt_bf16x2_f32(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t rng = 2;
	for (int rnd = RND_RN; rnd <= RND_RP; rnd++) {
		for (int f = 0; f < 4; f++) {
			char stmt[96], op[64];
			runner R;
			cvt_name(op, sizeof(op), rnd, flag_sets[f], "bf16x2.f32");
			snprintf(stmt, sizeof(stmt), "%s %%r1, %%f1, %%f2;", op);
			if (runner_init(&R, stmt, BATCH))
				return 1;
			for (int l = 0; l < BATCH; l++) {
				R.buf[1][0][l] = sample_f32(rng_next(&rng) % (65536 * 12), &rng);
				R.buf[2][0][l] = sample_f32(rng_next(&rng) % (65536 * 12), &rng);
			}
			if (runner_run(&R, BATCH, NULL))
				return 1;
			for (int l = 0; l < BATCH; l++) {
				uint32_t a = (uint32_t)R.buf[1][0][l], b = (uint32_t)R.buf[2][0][l];
				uint32_t want = (uint32_t)ex_f32_to_bf16(a, rnd, flag_sets[f]) << 16 |
						ex_f32_to_bf16(b, rnd, flag_sets[f]);
				CHECK_EQ(R.buf[0][0][l], want, "%s of 0x%08x, 0x%08x", op, a, b);
			}
			runner_free(&R);
		}
	}
	return 0;
}

/* Runs stmt on all 2^16 values of operand 1 and checks operand 0 with want(). */
static int all16(const char *stmt, uint64_t (*want)(uint16_t, const void *), const void *ctx,
		 uint64_t (*sample)(uint64_t))
{
	runner R;
	if (runner_init(&R, stmt, BATCH))
		return 1;
	for (int l = 0; l < BATCH; l++)
		R.buf[1][0][l] = sample ? sample((uint64_t)l) : (uint64_t)l;
	if (runner_run(&R, BATCH, NULL))
		return 1;
	for (int l = 0; l < BATCH; l++)
		CHECK_EQ(R.buf[0][0][l], want((uint16_t)l, ctx), "%s of 0x%04x", stmt, l);
	runner_free(&R);
	return 0;
}

static uint64_t want_f32(uint16_t h, const void *ctx)
{
	const int *mode = ctx;   /* 0 plain, 1 with a rounding modifier, 2 .ftz */
	return ex_bf16_to_f32(h, *mode == 1, *mode == 2);
}

static uint64_t want_f64(uint16_t h, const void *ctx)
{
	(void)ctx;
	double v = ex_bf16_value(h);
	uint64_t u;
	if (isnan(v))
		return 0x7fffffffffffffffull;   /* any NaN: the test maps NaNs to this */
	memcpy(&u, &v, 8);
	return u;
}

int test_cvt_bf16_f32(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const int modes[3] = { 0, 1, 2 };
	if (all16("cvt.f32.bf16 %f1, %rs1;", want_f32, &modes[0], NULL) ||
	    all16("cvt.rn.f32.bf16 %f1, %rs1;", want_f32, &modes[1], NULL) ||
	    all16("cvt.ftz.f32.bf16 %f1, %rs1;", want_f32, &modes[2], NULL))
		return 1;
	runner R;
	if (runner_init(&R, "cvt.f64.bf16 %fd1, %rs1;", BATCH))
		return 1;
	for (int l = 0; l < BATCH; l++)
		R.buf[1][0][l] = (uint64_t)l;
	if (runner_run(&R, BATCH, NULL))
		return 1;
	for (int l = 0; l < BATCH; l++) {
		uint64_t got = R.buf[0][0][l];
		double g;
		memcpy(&g, &got, 8);
		CHECK_EQ(isnan(g) ? 0x7fffffffffffffffull : got, want_f64((uint16_t)l, NULL),
			 "cvt.f64.bf16 of 0x%04x", l);
	}
	runner_free(&R);
	return 0;
}

static uint64_t want_to_f16(uint16_t h, const void *ctx)
{
	return ex_bf16_to_f16(h, *(const int *)ctx);
}

static uint64_t want_from_f16(uint16_t h, const void *ctx)
{
	return ex_f16_to_bf16(h, *(const int *)ctx);
}

int test_cvt_f16(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const int modes[5] = { RND_RN, RND_RN, RND_RZ, RND_RM, RND_RP };
	for (int r = 0; r <= RND_RP; r++) {
		char s1[64], s2[64];
		const char *dot = r ? "." : "";
		snprintf(s1, sizeof(s1), "cvt%s%s.f16.bf16 %%h1, %%rs1;", dot, rnd_names[r]);
		snprintf(s2, sizeof(s2), "cvt%s%s.bf16.f16 %%rs1, %%h1;", dot, rnd_names[r]);
		if (all16(s1, want_to_f16, &modes[r], NULL) || all16(s2, want_from_f16, &modes[r], NULL))
			return 1;
	}
	return 0;
}

/* f64 inputs that stress the f64 -> f32 -> bf16 path: near bf16 values and midpoints
 * (a few f64 ulps and a few f32 ulps away), subnormal and huge values, random bits. */
static uint64_t sample_f64(uint64_t *rng)
{
	uint64_t r = rng_next(rng);
	uint16_t h = rng_bf16(rng);
	double v = ex_bf16_value(h), u;
	uint64_t b;
	if (!isfinite(v))
		v = ldexp(1.0, (int)(r % 300) - 150);
	switch (r % 8) {
	case 0: b = rng_next(rng); memcpy(&u, &b, 8); return b;
	case 1: v = v + ldexp(v, -8); break;                 /* a bf16 midpoint */
	case 2: v = nextafter(v + ldexp(v, -8), INFINITY); break;
	case 3: v = nextafter(v + ldexp(v, -8), 0); break;
	case 4: v = v + ldexp(v, -8) + ldexp(v, -30); break; /* above the midpoint, in f32's range */
	case 5: v = ldexp((double)(r >> 12 | 1), -1074 + (int)(r % 40)); break;
	case 6: v = ldexp((double)(r >> 11), (int)(r % 200) - 100); break;
	default: v = ldexp(1.0 + ldexp((double)(r >> 40), -24), 127 + (int)(r % 3)); break;
	}
	if (r & (1ull << 40))
		v = -v;
	memcpy(&b, &v, 8);
	return b;
}

int test_cvt_f64(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t rng = 3;
	for (int rnd = RND_RN; rnd <= RND_RP; rnd++) {
		char stmt[64];
		runner R;
		snprintf(stmt, sizeof(stmt), "cvt.%s.bf16.f64 %%rs1, %%fd1;", rnd_names[rnd]);
		if (runner_init(&R, stmt, BATCH))
			return 1;
		for (int it = 0; it < 16; it++) {
			for (int l = 0; l < BATCH; l++)
				R.buf[1][0][l] = sample_f64(&rng);
			if (runner_run(&R, BATCH, NULL))
				return 1;
			for (int l = 0; l < BATCH; l++) {
				uint64_t x = R.buf[1][0][l];
				CHECK_EQ(R.buf[0][0][l], ex_f64_to_bf16(x, rnd), "%s of 0x%016llx", stmt,
					 (unsigned long long)x);
			}
		}
		runner_free(&R);
	}
	return 0;
}

static const struct { const char *name, *reg; int sgn, bits; } ints[] = {
	{ "s16", "%rs2", 1, 16 }, { "u16", "%rs2", 0, 16 }, { "s32", "%r2", 1, 32 },
	{ "u32", "%r2", 0, 32 }, { "s64", "%rd2", 1, 64 }, { "u64", "%rd2", 0, 64 },
};

/* Integers with few significant bits (ties included), near the ends of the range, and
 * random ones of every length. */
static uint64_t sample_int(uint64_t *rng, int bits)
{
	uint64_t r = rng_next(rng), m = rng_next(rng);
	int sh = (int)(r % (uint64_t)bits);
	switch (r >> 60) {
	case 0: case 1: case 2: return ((m & 0x1ff) | 1) << sh;             /* 9 bits: ties */
	case 3: return (((m & 0x1ff) | 1) << sh) + (r & 1 ? 1 : ~0ull);
	case 4: return ~0ull - (m & 0xff);
	case 5: return (1ull << (bits - 1)) + (m & 0xff) - 0x80;
	default: return m >> (r % 64);
	}
}

int test_cvt_int_to_bf16(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t rng = 4;
	for (size_t t = 0; t < sizeof(ints) / sizeof(ints[0]); t++) {
		for (int rnd = RND_RN; rnd <= RND_RP; rnd++) {
			char stmt[64];
			runner R;
			snprintf(stmt, sizeof(stmt), "cvt.%s.bf16.%s %%rs1, %s;", rnd_names[rnd],
				 ints[t].name, ints[t].reg);
			if (runner_init(&R, stmt, BATCH))
				return 1;
			for (int it = 0; it < (ints[t].bits == 16 ? 1 : 8); it++) {
				for (int l = 0; l < BATCH; l++)
					R.buf[1][0][l] = ints[t].bits == 16 ? (uint64_t)l
									  : sample_int(&rng, ints[t].bits);
				if (ints[t].bits == 32)
					for (int l = 0; l < BATCH; l++)
						R.buf[1][0][l] &= 0xffffffffu;
				if (runner_run(&R, BATCH, NULL))
					return 1;
				for (int l = 0; l < BATCH; l++) {
					uint64_t v = R.buf[1][0][l];
					CHECK_EQ(R.buf[0][0][l], ex_int_to_bf16(v, ints[t].sgn, ints[t].bits, rnd),
						 "%s of 0x%llx", stmt, (unsigned long long)v);
				}
			}
			runner_free(&R);
		}
	}
	return 0;
}

typedef struct to_int_ctx { int sgn, bits, irnd; } to_int_ctx;

static uint64_t want_int(uint16_t h, const void *ctx)
{
	const to_int_ctx *c = ctx;
	return ex_bf16_to_int(h, c->sgn, c->bits, c->irnd);
}

static uint64_t want_integral(uint16_t h, const void *ctx)
{
	return ex_bf16_round_integral(h, ((const to_int_ctx *)ctx)->irnd);
}

int test_cvt_bf16_to_int(int argc, char **argv)
{
	(void)argc, (void)argv;
	static const char *const irnd[4] = { "rni", "rzi", "rmi", "rpi" };
	for (int r = 0; r < 4; r++) {
		char stmt[64];
		to_int_ctx c = { 0, 0, RND_RNI + r };
		for (size_t t = 0; t < sizeof(ints) / sizeof(ints[0]); t++) {
			snprintf(stmt, sizeof(stmt), "cvt.%s.%s.bf16 %s, %%rs1;", irnd[r], ints[t].name,
				 ints[t].reg);
			c.sgn = ints[t].sgn, c.bits = ints[t].bits;
			if (all16(stmt, want_int, &c, NULL))
				return 1;
		}
		snprintf(stmt, sizeof(stmt), "cvt.%s.bf16.bf16 %%rs1, %%rs2;", irnd[r]);
		if (all16(stmt, want_integral, &c, NULL))
			return 1;
	}
	return 0;
}
