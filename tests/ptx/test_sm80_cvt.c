/* test_sm80_cvt.c: cvt.rn.f16x2.f32 and cvt.rz.f16x2.f32 (sm_80), plain and under a guard:
 * the original on simulated sm_80, the lowered text on sm_75, sm_70 and sm_61, bit for bit,
 * on f32 values around the f16 range (ties, subnormals, overflow, NaN, infinities); the
 * sm_80 results against round-to-nearest-even computed here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define THREADS 1024

/* in: two f32 per thread; out: three u32 per thread (rn, rz, guarded rn or 7). */
static const char cvt_kernel[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
	"\t.reg .b32 %r<10>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<2>;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 128, %r1;\n"
	"\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
	"\tmul.wide.u32 %rd3, %r3, 8;\n\tadd.u64 %rd3, %rd1, %rd3;\n"
	"\tmul.wide.u32 %rd4, %r3, 12;\n\tadd.u64 %rd4, %rd2, %rd4;\n"
	"\tld.global.f32 %f1, [%rd3];\n\tld.global.f32 %f2, [%rd3+4];\n"
	"\tcvt.rn.f16x2.f32 %r4, %f1, %f2;\n\tcvt.rz.f16x2.f32 %r5, %f1, %f2;\n"
	"\tand.b32 %r6, %r1, 3;\n\tsetp.eq.u32 %p1, %r6, 0;\n\tmov.u32 %r7, 7;\n"
	"\t@!%p1 cvt.rn.f16x2.f32 %r7, %f2, %f1;\n"
	"\tst.global.u32 [%rd4], %r4;\n\tst.global.u32 [%rd4+4], %r5;\n\tst.global.u32 [%rd4+8], %r7;\n"
	"\tret;\n}\n";

static uint32_t value(uint64_t *s)
{
	static const uint32_t special[] = { 0x7fc00000u, 0x7f800000u, 0xff800000u, 0x477fe000u,
					    0x477ff000u, 0x33000000u, 0x33000001u, 0x80000000u };
	uint64_t r = sim_rng(s);
	if (r % 16 == 0)
		return special[(r >> 8) % 8];
	uint32_t e = 100 + (uint32_t)((r >> 32) % 46);   /* 2^-27 .. 2^18 */
	uint32_t m = (uint32_t)(r >> 8) & 0x7fffff;
	if (r & 0x100000000000ull)
		m &= 0xffffe000u | 0x1000;                  /* f16 halfway cases */
	return (uint32_t)(r >> 63) << 31 | e << 23 | m;
}

int test_sm80_cvt(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t seed = 16;
	uint32_t *in = malloc(THREADS * 8), *outs[4];
	for (int i = 0; i < THREADS * 2; i++)
		in[i] = value(&seed);
	void *o[4][8] = { { 0 } };
	for (int t = 0; t < 4; t++)
		o[t][1] = outs[t] = calloc(THREADS, 12);
	sarg args[2] = { { THREADS * 8, in, NULL, 0 }, { THREADS * 12, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = THREADS / 128, .block = 128, .args = args, .nargs = 2 };
	if (!sm80_run_all(cvt_kernel, &R, o, NULL))
		for (int t = 1; t < 4; t++)
			for (int i = 0; i < THREADS * 3; i++)
				CHECK_EQ(outs[t][i], outs[0][i], "cvt f16x2 on sm_%d: thread %d word %d",
					 sm80_targets[t - 1], i / 3, i % 3);
	for (int i = 0; i < THREADS; i++) {
		float a = sm80_f32_value(in[2 * i]), b = sm80_f32_value(in[2 * i + 1]);
		uint32_t want = (uint32_t)sm80_f16_bits(a) << 16 | sm80_f16_bits(b);
		if (isnan(a) || isnan(b))
			continue;   /* the NaN's payload: the sm_80 run's, compared above */
		CHECK_EQ(outs[0][3 * i], want, "cvt.rn.f16x2.f32 on sm_80: thread %d (%a, %a)", i, a, b);
		CHECK_EQ(outs[0][3 * i + 2], i % 4 ? want << 16 | want >> 16 : 7u,
			 "guarded cvt.rn.f16x2.f32 on sm_80: thread %d", i);
	}
	for (int t = 0; t < 4; t++)
		free(outs[t]);
	free(in);
	return 0;
}
