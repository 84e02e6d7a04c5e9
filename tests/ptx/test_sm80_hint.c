/* test_sm80_hint.c: cache qualifiers and policies (.L2::cache_hint with its policy operand
 * on ld, st, atom, red and a 16-bit atom; .L2::64B/128B/256B;
 * .L1::evict_last, .L1::no_allocate; prefetch eviction priorities; createpolicy, applypriority,
 * discard) and nanosleep (sm_70), some under a guard: the original on simulated sm_80, the lowered text on sm_75,
 * sm_70 and sm_61, every byte the same.  One warp per block: the atomics apply in lane
 * order in both. */
#include <stdlib.h>
#include <string.h>

#include "sm80_tests.h"

#define BLOCKS 4

/* in: 8 u32 per thread; out: 8 u32 per thread; cnt: 8 u32 per block. */
static const char hint_kernel[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pcnt)\n{\n"
	"\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<20>;\n\t.reg .b16 %h<4>;\n\t.reg .pred %p<4>;\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmad.lo.u32 %r3, %r2, 32, %r1;\n"
	"\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\tld.param.u64 %rd3, [pcnt];\n"
	"\tmul.wide.u32 %rd4, %r3, 32;\n\tadd.u64 %rd5, %rd2, %rd4;\n\tadd.u64 %rd4, %rd1, %rd4;\n"
	"\tmul.wide.u32 %rd6, %r2, 32;\n\tadd.u64 %rd6, %rd3, %rd6;\n"
	"\tmul.wide.u32 %rd9, %r2, 1024;\n\tadd.u64 %rd10, %rd2, %rd9;\n\tadd.u64 %rd9, %rd1, %rd9;\n"
	"\tand.b32 %r4, %r1, 1;\n\tsetp.ne.u32 %p1, %r4, 0;\n\tsetp.eq.u32 %p2, %r1, 0;\n"
	"\tcreatepolicy.fractional.L2::evict_last.b64 %rd7, 1.0;\n"
	"\tcreatepolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd8, 0.5;\n"
	"\tld.global.L2::cache_hint.u32 %r10, [%rd4], %rd7;\n"
	"\t@%p1 ld.global.L1::evict_last.L2::128B.u32 %r10, [%rd4+4];\n"
	"\tld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%r11, %r12}, [%rd4+8];\n"
	"\tld.global.L2::64B.u32 %r13, [%rd4+16];\n"
	"\tld.global.L2::cache_hint.L2::128B.u32 %r17, [%rd4+20], %rd8;\n"
	"\tprefetch.global.L2::evict_last [%rd4];\n\tprefetch.global.L2::evict_normal [%rd4+16];\n"
	"\t@%p2 applypriority.global.L2::evict_normal [%rd9], 128;\n"
	"\t@%p2 discard.global.L2 [%rd10], 128;\n\t@%p1 nanosleep.u32 %r1;\n\tnanosleep.u32 100;\n"
	"\tbar.sync 0;\n"
	"\tst.global.L2::cache_hint.u32 [%rd5], %r10, %rd8;\n"
	"\t@!%p1 st.global.L1::evict_first.u32 [%rd5+4], %r13;\n"
	"\tst.global.L1::no_allocate.v2.u32 [%rd5+8], {%r11, %r12};\n"
	"\tatom.global.add.L2::cache_hint.u32 %r14, [%rd6], %r10, %rd7;\n"
	"\tst.global.u32 [%rd5+16], %r14;\n"
	"\tred.global.add.L2::cache_hint.u32 [%rd6+4], %r13, %rd7;\n"
	"\tadd.u32 %r16, %r1, 1;\n"
	"\tatom.global.cas.b32 %r15, [%rd6+8], %r1, %r16;\n"
	"\tst.global.u32 [%rd5+20], %r15;\n\tmov.u32 %r20, 7;\n"
	"\t@!%p1 atom.global.exch.L2::cache_hint.b32 %r20, [%rd6+12], %r16, %rd8;\n"
	"\tst.global.u32 [%rd5+28], %r20;\n"
	"\tand.b32 %r18, %r17, 0x3bff;\n\tcvt.u16.u32 %h2, %r18;\n"
	"\tatom.global.add.noftz.L2::cache_hint.f16 %h1, [%rd6+16], %h2, %rd8;\n"
	"\tcvt.u32.u16 %r19, %h1;\n\tst.global.u32 [%rd5+24], %r19;\n"
	"\tret;\n}\n";

int test_sm80_hint(int argc, char **argv)
{
	(void)argc, (void)argv;
	uint64_t seed = 23;
	uint32_t *in = malloc(BLOCKS * 1024), *outs[4], *cnts[4];
	for (int i = 0; i < BLOCKS * 256; i++)
		in[i] = (uint32_t)sim_rng(&seed);
	void *o[4][8] = { { 0 } };
	for (int t = 0; t < 4; t++) {
		o[t][1] = outs[t] = calloc(BLOCKS * 256, 4);
		o[t][2] = cnts[t] = calloc(BLOCKS * 8, 4);
	}
	sarg args[3] = { { BLOCKS * 1024, in, NULL, 0 }, { BLOCKS * 1024, NULL, NULL, 0 },
			 { BLOCKS * 32, NULL, NULL, 0 } };
	srun R = { .kernel = "k", .grid = BLOCKS, .block = 32, .args = args, .nargs = 3 };
	if (!sm80_run_all(hint_kernel, &R, o, NULL))
		for (int t = 1; t < 4; t++) {
			for (int i = 0; i < BLOCKS * 256; i++)
				CHECK_EQ(outs[t][i], outs[0][i], "hints on sm_%d: thread %d word %d",
					 sm80_targets[t - 1], i / 8, i % 8);
			for (int i = 0; i < BLOCKS * 8; i++)
				CHECK_EQ(cnts[t][i], cnts[0][i], "hints on sm_%d: block %d counter %d",
					 sm80_targets[t - 1], i / 8, i % 8);
		}
	/* sm_80 itself: what the guarded loads and stores, the sum and the cas chain leave */
	for (int b = 0; b < BLOCKS; b++) {
		uint32_t sum = 0;
		for (int l = 0; l < 32; l++) {
			const uint32_t *x = in + (b * 32 + l) * 8, *y = outs[0] + (b * 32 + l) * 8;
			uint32_t v = x[l & 1];
			CHECK_EQ(y[0], v, "hints on sm_80: block %d lane %d word 0", b, l);
			CHECK_EQ(y[1], l & 1 ? 0 : x[4], "hints on sm_80: block %d lane %d word 1", b, l);
			CHECK_EQ(y[2], x[2], "hints on sm_80: block %d lane %d word 2", b, l);
			CHECK_EQ(y[4], sum, "hints on sm_80: block %d lane %d atom.add's old value", b, l);
			CHECK_EQ(y[5], (uint32_t)l, "hints on sm_80: block %d lane %d cas's old value", b, l);
			CHECK_EQ(y[7], l & 1 ? 7u : l ? (uint32_t)l - 1 : 0, "hints on sm_80: block %d lane %d exch's old value", b, l);
			sum += v;
		}
		CHECK_EQ(cnts[0][b * 8], sum, "hints on sm_80: block %d atom.add's sum", b);
		CHECK_EQ(cnts[0][b * 8 + 2], 32u, "hints on sm_80: block %d cas chain", b);
		CHECK_EQ(cnts[0][b * 8 + 3], 31u, "hints on sm_80: block %d exch", b);
	}
	for (int t = 0; t < 4; t++) {
		free(outs[t]);
		free(cnts[t]);
	}
	free(in);
	return 0;
}
